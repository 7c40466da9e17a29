// An SCS combat's result for people (docs/rules/scs.md): the banner, the
// odds worked out (strengths × multipliers, the ratio, the column and its
// shifts), the two dice and the cell read, and each unit's steps lost with
// their causes (the table, a retreat converted into steps, a blocked
// retreat, an enemy zone of control).
//
// Who "wins" an SCS combat is the console's reading, for the banner: the
// attacker when the defender's hex is vacated; otherwise the side that
// lost fewer steps; equal: no winner.

import { h, plural } from './dom.js';
import { diceRow } from './dicefaces.js';
import { resultBanner, fateItem, worstFirst, names } from './outcome.js';

const CAUSES = {
  table: 'by the table',
  off_table: 'off the table',
  conversion: 'in place of retreating',
  ezoc: 'retreating through an enemy zone of control',
  blocked: 'for a blocked retreat',
};

function sideName(units) {
  return units.length ? units[0].side || '' : '';
}

/** The winning side's name, '' for none (see the top of the file). */
export function scsWinner(r) {
  const att = sideName(r.attackers) || 'the attacker';
  const def = sideName(r.defenders) || 'the defender';
  if (r.hex_vacated && r.attackers.some((u) => !u.eliminated)) return att;
  const lostA = r.attackers.reduce((s, u) => s + u.lost, 0);
  const lostD = r.defenders.reduce((s, u) => s + u.lost, 0);
  if (lostA === lostD) return '';
  return lostA < lostD ? att : def;
}

/** A unit's fate: eliminated, lost-steps or unharmed. */
export function scsFate(u) {
  if (u.eliminated) return 'eliminated';
  return u.lost ? 'lost-steps' : 'unharmed';
}

/** "lost 2 steps (1 by the table, 1 in place of retreating)". */
function lossText(u, losses) {
  if (!u.lost) return 'no step lost';
  const mine = losses.filter((l) => l.unit === u.unit && l.side === u.role);
  const counts = new Map();
  for (const l of mine) counts.set(l.cause, (counts.get(l.cause) || 0) + 1);
  const why = [...counts].map(([cause, n]) => `${n} ${CAUSES[cause] || cause}`);
  return `lost ${plural(u.lost, 'step')}${why.length ? ` (${why.join(', ')})` : ''}`;
}

function unitItem(u, r) {
  const label = u.role === 'attacker' ? 'attack' : 'defense';
  const mult = u.multipliers && u.multipliers.length ? ` × ${u.multipliers.join(' × ')} = ${u.value.decimal}` : '';
  const left = u.steps - u.steps_lost;
  return fateItem({
    name: u.unit,
    side: u.side,
    fate: scsFate(u),
    label: u.eliminated ? 'eliminated' : u.lost ? `lost ${plural(u.lost, 'step')}` : null,
    body: [
      h('p', { class: 'score-line' }, `${u.role}, ${u.side_shown} side: ${label} ${u.strength}${mult}`),
      h(
        'p',
        { class: 'after' },
        `${lossText(u, r.losses)}; ${u.eliminated ? 'no step left' : `${left} of ${plural(u.steps, 'step')} left`}`,
        u.advance_hexes ? `; may advance ${plural(u.advance_hexes, 'hex', 'hexes')}` : '',
      ),
    ],
  });
}

/** What the result did to a side that the units' lines do not say. */
function sideFacts(name, s) {
  const out = [];
  if (s.converted) out.push(`${name} took ${plural(s.converted, 'step')} instead of retreating ${plural(s.converted, 'hex', 'hexes')}`);
  if (s.blocked_hexes) out.push(`${name}: ${plural(s.blocked_hexes, 'retreat hex', 'retreat hexes')} blocked`);
  if (s.ezoc_hexes) out.push(`${name}: ${plural(s.ezoc_hexes, 'hex', 'hexes')} of retreat through an enemy zone of control`);
  if (s.retreat_hexes) out.push(`${name} must still retreat ${plural(s.retreat_hexes, 'hex', 'hexes')} on the map`);
  return out;
}

export function scsView(r) {
  const att = sideName(r.attackers) || 'the attacker';
  const def = sideName(r.defenders) || 'the defender';
  const winner = scsWinner(r);
  const all = [...r.attackers, ...r.defenders];
  const fallen = all.filter((u) => u.eliminated).map((u) => ({ name: u.unit, side: u.side, fate: 'eliminated' }));
  const result = r.result || (r.off_table ? 'off the table' : '–');
  const headline = winner
    ? `${winner} wins: ${result}${r.odds ? ` at ${r.odds}` : ''}`
    : `No winner: ${result}${r.odds ? ` at ${r.odds}` : ''}`;
  // Exploit hexes matter only when an exploit-capable attacker survives.
  const exploiters = r.attackers.filter((u) => u.exploit_capable && !u.eliminated);
  let advance = null;
  if (r.advance.allowed) {
    advance = `${att} ${r.advance.required ? 'must' : 'may'} advance ${plural(r.advance.hexes, 'hex', 'hexes')}`;
    if (exploiters.length) advance += `; ${names(exploiters.map((u) => u.unit))} (exploit) up to ${plural(r.advance.exploit_hexes, 'hex', 'hexes')}`;
  }
  const column =
    r.column_before_shifts && r.column !== r.column_before_shifts ? `column ${r.column_before_shifts} shifted to ${r.column}` : r.column ? `column ${r.column}` : 'no column';
  return [
    resultBanner({
      winner,
      tone: winner ? 'win' : 'draw',
      headline,
      fallen,
      facts: [
        r.hex_vacated ? `${def}'s hex is vacated` : null,
        advance,
        ...sideFacts(def, r.defender),
        ...sideFacts(att, r.attacker),
        r.overrun ? 'An overrun.' : null,
      ],
    }),
    h(
      'div',
      { class: 'odds-line' },
      h('span', null, `Attack ${r.attack_total.decimal} against defense ${r.defense_total.decimal}: ${r.odds || 'off the table'}, ${column}.`),
      r.roll
        ? h('span', { class: 'roll' }, ' Roll ', diceRow(r.roll.dice), ` ${r.roll.value} (${r.roll.kind}) on ${r.table.name}: `, h('strong', null, r.result))
        : h('span', null, ' No die rolled: the odds are off the left of the table.'),
    ),
    h(
      'div',
      { class: 'sides-grid' },
      [
        ['Attackers', att, r.attackers],
        ['Defenders', def, r.defenders],
      ].map(([title, name, units]) =>
        h(
          'section',
          { class: ['side-result', name === winner && 'winner'], 'data-side': name },
          h('h3', null, `${title}: ${name}`, name === winner ? h('span', { class: 'fate fate-win' }, 'wins') : null),
          h('ul', { class: 'unit-outcomes' }, worstFirst(units.map((u) => ({ u, fate: scsFate(u) }))).map(({ u }) => unitItem(u, r))),
        ),
      ),
    ),
  ];
}
