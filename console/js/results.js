// A combat's result, drawn from the JSON report the service answered: the
// outcome for every unit, the dice and their commitment, a link to the
// report page, and the full report as Markdown to share.

import { h, dl, signed } from './dom.js';
import { cpath } from './session.js';
import { reportPanel } from './reportview.js';
import { systemTitle, scrudUnitOutcome, ednaTestOutcome, scsUnitOutcome, diceText } from './format.js';

/** The elements to put in the result area for a combat's report. */
export function combatResult(report, { replayed = false } = {}) {
  const body = {
    scrud: scrudParts,
    edna: ednaParts,
    scs: scsParts,
  }[report.system];
  return [
    h('h2', null, `${systemTitle(report.system)} result`),
    replayed
      ? h('p', { class: 'notice' }, 'This is the answer to an earlier submission of the same request (same Idempotency-Key): nothing was rolled again.')
      : null,
    report.note ? h('p', { class: 'note' }, `Note: ${report.note}`) : null,
    body ? body(report) : null,
    diceParts(report.dice, report.ledger),
    h(
      'p',
      { class: 'actions' },
      h('a', { class: 'button', href: `#/reports/${encodeURIComponent(report.id)}`, testid: 'open-report' }, 'Open the report'),
    ),
    h('h3', null, 'The report, to share'),
    reportPanel(cpath(`/combats/${encodeURIComponent(report.id)}`), { filename: report.id, heading: 'Combat report' }),
  ];
}

function scrudParts(r) {
  const [a, b] = r.sides;
  const pairs = r.pairs.map((p) => {
    const winner = p.winner === 'tie' ? 'equal, nothing happens' : `${p.winner === 'first' ? p.first : p.second} wins`;
    return h('li', null, `${p.first} ${p.first_score} against ${p.second} ${p.second_score}: ${winner}`);
  });
  const extra = r.extra.map((x) =>
    h('li', null, `Extra die: ${x.unit} ${x.score} ${x.result === 'defeat' ? `defeats ${x.defeated}` : 'is ignored'}`),
  );
  return [
    h(
      'p',
      { class: 'outcome' },
      `Defeats suffered: ${a.name} ${a.defeats_suffered}, ${b.name} ${b.defeats_suffered}. `,
      eliminatedSentence(r.sides.flatMap((s) => s.eliminated.map((e) => e.unit))),
    ),
    h('ul', { class: 'pairs' }, pairs, extra),
    r.sides.map((side) =>
      h(
        'section',
        { class: 'side-result', 'data-side': side.name },
        h('h3', null, side.name, side.modifier ? ` (side modifier ${signed(side.modifier)})` : ''),
        h(
          'ul',
          { class: 'unit-outcomes' },
          side.units.map((u) => {
            const o = scrudUnitOutcome(u);
            return h(
              'li',
              { testid: 'unit-outcome', 'data-unit-name': u.unit, class: u.eliminated ? 'eliminated' : null },
              h('strong', null, u.unit),
              ` (${o.rolled}): ${o.text}`,
            );
          }),
        ),
      ),
    ),
  ];
}

function eliminatedSentence(names) {
  return names.length ? `Eliminated: ${names.join(', ')}.` : 'No unit was eliminated.';
}

function ednaParts(r) {
  const failed = r.tests.filter((t) => !t.passed).length;
  return [
    h('p', { class: 'outcome' }, `${r.tests.length} tested (${r.options.dice}d${r.options.faces}), ${failed} failed.`),
    h(
      'ul',
      { class: 'unit-outcomes' },
      r.tests.map((t) =>
        h('li', { testid: 'unit-outcome', 'data-unit-name': t.unit, class: t.ineffective ? 'eliminated' : null }, h('strong', null, t.unit), `: ${ednaTestOutcome(t)}`),
      ),
    ),
  ];
}

function scsParts(r) {
  const roll = r.roll ? `${r.roll.dice.join(' and ')} (${r.roll.kind}: ${r.roll.value})` : 'none (off the table)';
  return [
    dl(
      [
        ['Table', `${r.table.name} (${r.table.source}, ${r.table.roll})`],
        ['Attack', r.attack_total.decimal],
        ['Defense', r.defense_total.decimal],
        ['Odds', r.odds || '–'],
        ['Column', r.column_before_shifts && r.column !== r.column_before_shifts ? `${r.column_before_shifts} → ${r.column}` : r.column || '–'],
        ['Roll', roll],
        ['Result', h('strong', null, r.result || (r.off_table ? 'off the table: the attacker loses a step' : '–'))],
        ['Eliminated', r.eliminated.length ? r.eliminated.join(', ') : 'none'],
        [
          'Advance',
          r.advance.allowed
            ? `${r.advance.required ? 'must' : 'may'} advance: ${r.advance.hexes} hex, exploit-capable units ${r.advance.exploit_hexes}`
            : 'none',
        ],
      ],
      'outcome',
    ),
    h(
      'ul',
      { class: 'unit-outcomes' },
      [...r.attackers, ...r.defenders].map((u) =>
        h('li', { testid: 'unit-outcome', 'data-unit-name': u.unit, class: u.eliminated ? 'eliminated' : null }, h('strong', null, u.unit), `: ${scsUnitOutcome(u)}`),
      ),
    ),
    r.defender.retreat_hexes || r.attacker.retreat_hexes
      ? h('p', null, `Retreats still to make on the map: defender ${r.defender.retreat_hexes} hex(es), attacker ${r.attacker.retreat_hexes}.`)
      : null,
  ];
}

/** The dice of a report or a battle, with the commitment and the seed. */
export function diceParts(d, ledger) {
  if (!d) return null;
  return h(
    'section',
    { class: 'dice-record' },
    h('h3', null, 'Dice'),
    h('p', null, diceText(d)),
    dl([
      ['Commitment', d.commitment ? h('code', { class: 'hash', testid: 'result-commitment' }, d.commitment) : null],
      ['Server seed', d.server_seed ? h('code', { class: 'hash' }, d.server_seed) : d.source === 'seeded' ? 'revealed when the battle is over' : null],
      ['Client seed', d.client_seed],
      ['Ledger', ledger ? h('span', null, `entries ${ledger.first_pos}–${ledger.last_pos}, hash `, h('code', { class: 'hash' }, ledger.hash)) : null],
    ]),
  );
}
