// A SCRUD combat's result for people (docs/rules/scrud.md): the banner
// (the side that suffered fewer defeats wins; equal is even), each side's
// units with their die, every term of their score, and what the combat
// left on them; then the pairs and the extra dice.

import { h, signed, plural } from './dom.js';
import { breakdown, dieFace } from './dicefaces.js';
import { resultBanner, fateItem, worstFirst } from './outcome.js';
import { ELIMINATED_REASONS } from './format.js';

/** The winning side's name ('' when even), by defeats suffered. */
export function scrudWinner(r) {
  const [a, b] = r.sides;
  if (a.defeats_suffered === b.defeats_suffered) return '';
  return a.defeats_suffered < b.defeats_suffered ? a.name : b.name;
}

/** A unit's fate: reserve, eliminated, defeated or not-defeated. */
export function scrudFate(u) {
  if (u.reserve) return 'reserve';
  if (u.eliminated) return 'eliminated';
  return u.defeats ? 'defeated' : 'not-defeated';
}

/**
 * The terms of a front-line score (rules, "1. Roll and score"): the
 * unit's current modifier split into quality and penalties, the side's
 * and the unit's modifiers for this combat, and the reserve bonus; held
 * between floor and cap.
 */
function scoreTerms(u, side, options) {
  const b = u.before;
  const terms = [];
  if (u.quality - b.defeat_penalty - b.fatigue_penalty === b.modifier) {
    terms.push({ value: u.quality, label: 'quality' });
    terms.push({ value: -b.defeat_penalty, label: 'defeat penalty' });
    terms.push({ value: -b.fatigue_penalty, label: 'fatigue penalty' });
  } else {
    terms.push({ value: b.modifier, label: 'modifier' });
  }
  terms.push({ value: side.modifier || 0, label: 'side modifier' });
  terms.push({ value: u.combat_modifier || 0, label: 'this combat' });
  terms.push({ value: u.reserve_bonus || 0, label: 'from the reserve' });
  const sum = u.natural + terms.reduce((s, t) => s + (t.value || 0), 0);
  let note = null;
  if (sum !== u.score) {
    const cap = options.cap === 'faces' ? u.faces : options.cap;
    if (cap !== null && cap !== undefined && u.score === cap && sum > cap) note = `(${sum}, held at the cap)`;
    else if (options.floor !== null && options.floor !== undefined && u.score === options.floor && sum < options.floor) note = `(${sum}, held at the floor)`;
    else note = `(${sum} before the line-up)`;
  }
  return { terms, note };
}

function consequences(u) {
  const out = [];
  if (u.defeats > 1) out.push(`defeated ${u.defeats} times`);
  if (u.heavy_fighting) out.push('heavy fighting');
  const b = u.before;
  const a = u.after;
  if (b.defeat_penalty !== a.defeat_penalty) out.push(`defeat penalty ${b.defeat_penalty} → ${a.defeat_penalty}`);
  if (b.fatigue_penalty !== a.fatigue_penalty) out.push(`fatigue penalty ${b.fatigue_penalty} → ${a.fatigue_penalty}`);
  out.push(b.modifier !== a.modifier ? `modifier ${signed(b.modifier)} → ${signed(a.modifier)}` : `modifier stays ${signed(a.modifier)}`);
  if (u.eliminated) out.push(`eliminated: ${ELIMINATED_REASONS[u.eliminated] || u.eliminated}`);
  return out;
}

function unitItem(u, side, options) {
  let score;
  if (u.reserve) {
    score = h(
      'p',
      { class: 'score-line' },
      dieFace(u.natural, u.faces),
      ` rolled ${u.natural}: in reserve, +1 to ${u.natural === 1 ? 'the first die' : `each of the first ${u.natural} dice`} of ${side.name}'s line`,
    );
  } else {
    const { terms, note } = scoreTerms(u, side, options);
    score = h('p', { class: 'score-line' }, breakdown(u.natural, terms, u.score, { faces: u.faces, note, naturalLabel: `rolled ${u.natural}` }));
  }
  return fateItem({
    name: u.unit,
    side: side.name,
    fate: scrudFate(u),
    body: [score, u.reserve ? null : h('p', { class: 'after' }, consequences(u).join('; '))],
  });
}

export function scrudView(r) {
  const winner = scrudWinner(r);
  const [a, b] = r.sides;
  const fallen = r.sides.flatMap((s) => s.units.filter((u) => u.eliminated).map((u) => ({ name: u.unit, side: s.name, fate: 'eliminated' })));
  const defeats = (s) => (s.defeats_suffered ? plural(s.defeats_suffered, 'defeat') : 'none');
  const headline = winner
    ? `${winner} wins: ${winner === a.name ? b.name : a.name} suffers ${defeats(winner === a.name ? b : a)}, ${winner} ${defeats(winner === a.name ? a : b)}`
    : `Even: ${a.name} and ${b.name} each suffer ${defeats(a)}`;
  const pairs = r.pairs.map((p) => {
    const win = p.winner === 'first' ? p.first : p.winner === 'second' ? p.second : null;
    return h(
      'li',
      null,
      h(win === p.first ? 'strong' : 'span', null, `${p.first} ${p.first_score}`),
      ' against ',
      h(win === p.second ? 'strong' : 'span', null, `${p.second} ${p.second_score}`),
      win ? `: ${win} wins` : ': equal, nothing happens',
    );
  });
  const extra = r.extra.map((x) => h('li', null, `Extra die: ${x.unit} ${x.score} ${x.result === 'defeat' ? `defeats ${x.defeated}` : 'is ignored'}`));
  return [
    resultBanner({
      winner,
      tone: winner ? 'win' : 'draw',
      headline,
      fallen,
      facts: [fallen.length ? null : 'No unit was eliminated.'],
    }),
    h(
      'div',
      { class: 'sides-grid' },
      r.sides.map((side) =>
        h(
          'section',
          { class: ['side-result', side.name === winner && 'winner'], 'data-side': side.name },
          h('h3', null, side.name, side.name === winner ? h('span', { class: 'fate fate-win' }, 'wins') : null, side.modifier ? h('small', null, ` side modifier ${signed(side.modifier)}`) : null),
          h('ul', { class: 'unit-outcomes' }, worstFirst(side.units.map((u) => ({ u, fate: scrudFate(u) }))).map(({ u }) => unitItem(u, side, r.options))),
        ),
      ),
    ),
    h('h3', null, 'The pairs'),
    h('ul', { class: 'pairs' }, pairs, extra),
  ];
}
