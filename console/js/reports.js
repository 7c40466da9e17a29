// #/reports: the campaign's combats (the records of finished battles
// included) and battles, and the campaign report.
// #/reports/<combat id>: one combat's report, to read, copy and download,
// and to replay. #/reports/campaign: the whole campaign in one document.

import { h, replace, table, timeEl, dl } from './dom.js';
import { getJSON, getAll, sendJSON } from './api.js';
import { cpath, session } from './session.js';
import { errorBox } from './forms.js';
import { systemTitle } from './format.js';
import { reportPanel } from './reportview.js';
import { battleTable } from './battles.js';

export async function renderReports(view) {
  view.append(
    h('h1', null, 'Reports'),
    h(
      'p',
      { class: 'actions' },
      h('a', { class: 'button', href: '#/reports/campaign', testid: 'campaign-report' }, 'The campaign report'),
    ),
  );
  const combatsArea = h('section', null, h('h2', null, 'Combats'), h('p', null, 'Loading…'));
  const battlesArea = h('section', null, h('h2', null, 'Battles'), h('p', null, 'Loading…'));
  view.append(combatsArea, battlesArea);

  const [combats, battles] = await Promise.allSettled([getAll(cpath('/combats')), getAll(cpath('/battles'))]);

  if (combats.status === 'rejected') replace(combatsArea, h('h2', null, 'Combats'), errorBox(combats.reason));
  else {
    const items = [...combats.value].reverse(); // newest first
    replace(
      combatsArea,
      h('h2', null, `Combats (${items.length})`),
      items.length
        ? table(
            ['When', 'System', 'Outcome', 'Dice', 'Note'],
            items.map((c) =>
              h(
                'tr',
                { testid: 'report-row', 'data-combat-id': c.id, 'data-system': c.system },
                h('td', null, h('a', { href: `#/reports/${encodeURIComponent(c.id)}`, testid: 'report-link' }, timeEl(c.created_at))),
                h('td', null, systemTitle(c.system)),
                h('td', null, c.summary),
                h('td', null, c.dice_source),
                h('td', null, c.note || ''),
              ),
            ),
            { class: 'reports' },
          )
        : h('p', { class: 'empty' }, 'No combat yet.'),
    );
  }

  if (battles.status === 'rejected') replace(battlesArea, h('h2', null, 'Battles'), errorBox(battles.reason));
  else {
    const items = [...battles.value].reverse();
    replace(battlesArea, h('h2', null, `Battles (${items.length})`), items.length ? battleTable(items) : h('p', { class: 'empty' }, 'No battle yet.'));
  }
}

export async function renderReport(view, id) {
  if (id === 'campaign') {
    const name = session.who.campaign_name;
    view.append(
      h('p', { class: 'crumbs' }, h('a', { href: '#/reports' }, 'Reports'), ' / campaign'),
      h('h1', null, `Campaign report: ${name}`),
      h('p', { class: 'hint' }, 'Every side and unit as they stand, every combat and battle, the ledger head and the next commitment: post it at the end of a turn.'),
      reportPanel(cpath('/report'), { filename: `campaign-${session.who.campaign_id}`, heading: 'Campaign report' }),
    );
    return;
  }

  const path = cpath(`/combats/${encodeURIComponent(id)}`);
  view.append(h('p', { class: 'crumbs' }, h('a', { href: '#/reports' }, 'Reports'), ' / ', id));
  let report;
  try {
    report = await getJSON(path);
  } catch (err) {
    view.append(h('h1', null, 'Report'), errorBox(err));
    return;
  }
  view.append(
    h('h1', null, `${systemTitle(report.system)} report`),
    dl([
      ['When', timeEl(report.created_at)],
      ['Note', report.note],
      ['Battle', report.battle_id ? h('a', { href: `#/battles/${encodeURIComponent(report.battle_id)}` }, report.battle_id) : null],
      ['Id', h('code', null, report.id)],
    ]),
    replayTool(path),
    reportPanel(path, { filename: report.id, heading: 'Combat report' }),
  );
}

/** Replay: the service runs the stored combat again from its logged dice. */
function replayTool(path) {
  const out = h('div', { class: 'replay-out', 'aria-live': 'polite' });
  const button = h('button', { type: 'button', testid: 'replay' }, 'Replay and check the dice');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const r = await sendJSON('POST', `${path}/replay`);
      const dice =
        r.seeded_dice_verified === null
          ? 'entered dice: a record, not verifiable'
          : r.seeded_dice_verified
            ? 'every seeded die re-derived from the revealed seed'
            : 'the seeded dice do NOT match their seed';
      replace(
        out,
        h(
          'p',
          { class: r.reproduced ? 'ok' : 'bad', testid: 'replay-result' },
          r.reproduced ? `Reproduced: the ${r.n_rolls} logged dice give the stored outcome; ${dice}.` : `NOT reproduced; ${dice}.`,
        ),
        r.differences.length ? h('ul', null, r.differences.map((d) => h('li', null, d))) : null,
      );
    } catch (err) {
      replace(out, errorBox(err));
    } finally {
      button.disabled = false;
    }
  });
  return h('div', { class: 'replay' }, button, out);
}
