// #/reports: the campaign's combats (the records of finished battles
// included) and battles, and the campaign report.
// #/reports/<combat id>: one combat's report, to read, copy and download,
// and to replay. #/reports/campaign: the whole campaign in one document.

import { h, append, replace, table, timeEl, dl, plural } from './dom.js';
import { getJSON, getAll, sendJSON } from './api.js';
import { cpath, session } from './session.js';
import { errorBox } from './forms.js';
import { systemTitle, statusText, systemLines } from './format.js';
import { reportPanel } from './reportview.js';
import { battleTable } from './battles.js';
import { combatView, diceParts } from './results.js';
import { resultBanner, fateItem, worstFirst } from './outcome.js';

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
    await renderCampaignReport(view);
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
  // EDNA reports name no side: the units' list does.
  let sideOf = null;
  if (report.system === 'edna') {
    try {
      sideOf = new Map((await getAll(cpath('/units'))).map((u) => [u.id, u.side.name]));
    } catch {
      sideOf = null;
    }
  }
  // dom.js's append: it skips the parts that are null (Element.append would write "null").
  append(view, [
    h('h1', null, `${systemTitle(report.system)} ${report.battle_id ? 'battle' : 'combat'}`, h('small', { class: 'h1-sub' }, ' ', timeEl(report.created_at))),
    report.note ? h('p', { class: 'note' }, `Note: ${report.note}`) : null,
    combatView(report, { sideOf }),
    diceParts(report.dice, report.ledger),
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'Share and check'),
      dl([
        ['Battle', report.battle_id ? h('a', { href: `#/battles/${encodeURIComponent(report.battle_id)}` }, report.battle_id) : null],
        ['Id', h('code', null, report.id)],
      ]),
      reportPanel(path, { filename: report.id, heading: 'Combat report' }),
      replayTool(path),
    ),
  ]);
}

/** The campaign as it stands, drawn from GET .../report. */
async function renderCampaignReport(view) {
  const name = session.who.campaign_name;
  view.append(
    h('p', { class: 'crumbs' }, h('a', { href: '#/reports' }, 'Reports'), ' / campaign'),
    h('h1', null, `Campaign report: ${name}`),
    h('p', { class: 'hint' }, 'Every side and unit as they stand, every combat and battle, the ledger head and the next commitment: post it at the end of a turn.'),
  );
  const body = h('div', { testid: 'report-rendered', 'data-system': 'campaign' }, h('p', null, 'Loading…'));
  view.append(body);
  try {
    const r = await getJSON(cpath('/report'));
    replace(body, ...campaignView(r));
  } catch (err) {
    replace(body, errorBox(err));
  }
  view.append(
    h('section', { class: 'card' }, h('h2', null, 'Share'), reportPanel(cpath('/report'), { filename: `campaign-${session.who.campaign_id}`, heading: 'Campaign report' })),
  );
}

function campaignView(r) {
  const bySide = r.sides.map((s) => ({ side: s, units: r.units.filter((u) => u.side.id === s.id) }));
  const lost = r.units.filter((u) => u.eliminated);
  const sideSections = bySide.map(({ side, units }) => {
    const gone = units.filter((u) => u.eliminated);
    return h(
      'section',
      { class: 'side-result', 'data-side': side.name },
      h('h3', null, side.name, h('small', null, ` ${units.length - gone.length} in play, ${gone.length} eliminated`)),
      side.exhausted_turn ? h('p', { class: 'hint' }, `Fights exhausted in turn ${side.exhausted_turn} (Matrix).`) : null,
      units.length
        ? h(
            'ul',
            { class: 'unit-outcomes' },
            worstFirst(units.map((u) => ({ u, fate: u.eliminated ? 'eliminated' : 'survived' }))).map(({ u, fate }) =>
              fateItem({
                name: u.name,
                side: side.name,
                fate,
                label: u.eliminated ? 'eliminated' : statusText(u),
                body: h('ul', { class: 'plain small' }, u.eliminated ? h('li', null, statusText(u)) : null, systemLines(u).map(([sys, text]) => h('li', null, h('span', { class: 'sys' }, systemTitle(sys)), ' ', text))),
              }),
            ),
          )
        : h('p', { class: 'empty' }, 'No unit.'),
    );
  });
  const combats = [...r.combats].reverse();
  return [
    resultBanner({
      headline: `${plural(r.units.length - lost.length, 'unit')} in play, ${lost.length} eliminated, after ${plural(r.combats.length, 'combat')}`,
      fallen: lost.map((u) => ({ name: u.name, side: u.side.name, fate: 'eliminated' })),
      facts: r.sides.map((s) => `${s.name}: ${r.units.filter((u) => u.side.id === s.id && !u.eliminated).length} in play`),
    }),
    h('h2', null, 'Sides'),
    h('div', { class: 'sides-grid' }, sideSections),
    h('h2', null, `Combats (${r.combats.length})`),
    combats.length
      ? h(
          'ol',
          { class: 'combat-feed plain' },
          combats.map((c) =>
            h('li', null, timeEl(c.created_at), ' ', h('span', { class: 'sys' }, systemTitle(c.system)), ' ', h('a', { href: `#/reports/${encodeURIComponent(c.id)}` }, c.summary), c.note ? h('span', { class: 'hint' }, ` (${c.note})`) : ''),
          ),
        )
      : h('p', { class: 'empty' }, 'No combat yet.'),
    r.battles.length ? [h('h2', null, `Battles (${r.battles.length})`), battleTable([...r.battles].reverse())] : null,
    h('h2', null, 'Dice'),
    dl([
      ['Ledger', `${plural(r.campaign.ledger.length, 'entry', 'entries')}, head`],
      ['Head', h('code', { class: 'hash' }, r.campaign.ledger.head)],
      ['Next commitment', h('code', { class: 'hash' }, r.campaign.next_commitment)],
    ]),
  ];
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
