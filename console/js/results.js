// A combat's result for people, drawn from the JSON report the service
// answered (never its Markdown): the banner first (the winner by side
// name, the eliminations), every unit's fate with its dice and score
// terms, the dice record, a link to the report page, and the report to
// share (Markdown to copy, HTML to download; the source folded away).

import { h, dl } from './dom.js';
import { cpath } from './session.js';
import { reportPanel } from './reportview.js';
import { systemTitle, diceText } from './format.js';
import { scrudView } from './result-scrud.js';
import { ednaView } from './result-edna.js';
import { scsView } from './result-scs.js';
import { matrixView } from './result-matrix.js';
import { civView } from './result-civ.js';

const VIEWS = { scrud: scrudView, edna: ednaView, scs: scsView, matrix: matrixView, civ: civView };

/**
 * The body of any combat report (a battle's record included): the banner
 * and the units, per system. opts.sideOf: unit id → side name, for the
 * systems whose reports name no side (EDNA).
 */
export function combatView(report, opts = {}) {
  const view = VIEWS[report.system];
  return h('div', { class: 'result-view', testid: 'report-rendered', 'data-system': report.system }, view ? view(report, opts) : h('p', null, report.summary_markdown || ''));
}

/** The elements to put in the result area for a combat's report. */
export function combatResult(report, { replayed = false, sideOf = null } = {}) {
  return [
    h('h2', null, `${systemTitle(report.system)} result`),
    replayed
      ? h('p', { class: 'notice' }, 'This is the answer to an earlier submission of the same request (same Idempotency-Key): nothing was rolled again.')
      : null,
    report.note ? h('p', { class: 'note' }, `Note: ${report.note}`) : null,
    combatView(report, { sideOf }),
    diceParts(report.dice, report.ledger),
    h(
      'p',
      { class: 'actions' },
      h('a', { class: 'button', href: `#/reports/${encodeURIComponent(report.id)}`, testid: 'open-report' }, 'Open the report'),
    ),
    h('h3', null, 'Share it'),
    reportPanel(cpath(`/combats/${encodeURIComponent(report.id)}`), { filename: report.id, heading: 'Combat report' }),
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
