// #/tokens (umpire): reissue the umpire's token or a side's player token
// (POST .../tokens), and the record of every token issued (GET .../tokens).
// A reissued token works at once and the one it replaces stops at once;
// the new one is shown once. Reissuing the umpire's own token switches
// this tab to the new one, so the console goes on working.

import { h, replace, table, timeEl, announce } from './dom.js';
import { getAll, sendJSON, setToken } from './api.js';
import { cpath, isUmpire, sides, session } from './session.js';
import { errorBox, errorText } from './forms.js';
import { secretLine, downloadSecretsButton, fileSlug } from './secrets.js';

export async function renderTokens(view) {
  view.append(h('h1', null, 'Tokens'));
  if (!isUmpire()) {
    view.append(h('p', { class: 'notice' }, 'Only the umpire reissues tokens. A player who lost theirs asks the umpire for a new one.'));
    return;
  }
  view.append(
    h(
      'p',
      null,
      'A lost or leaked token is replaced here. The new token works at once and the old one stops at once: give the new one to its holder. Every token issued is recorded below (never the tokens themselves: the service keeps only their hashes).',
    ),
  );
  const logArea = h('section', { 'aria-labelledby': 'token-log-heading' }, h('h2', { id: 'token-log-heading' }, 'Tokens issued'), h('p', null, 'Loading…'));
  const holders = [{ role: 'umpire', side: null, label: 'The umpire (you)' }, ...sides().map((s) => ({ role: 'player', side: s, label: `Side ${s.name}` }))];
  view.append(
    h('section', { class: 'card' }, h('h2', null, 'Reissue a token'), h('ul', { class: 'holders plain' }, holders.map((who) => reissueRow(who, () => loadLog(logArea))))),
    logArea,
  );
  await loadLog(logArea);
}

/** A holder's line: Reissue, then a confirmation, then the new token under it. */
function reissueRow(who, onIssued) {
  const sideName = who.side ? who.side.name : null;
  const data = { 'data-role': who.role, 'data-side-name': sideName };
  const out = h('div', { class: 'reissue-out', ...data });
  const reissue = h('button', { type: 'button', testid: 'token-reissue', ...data }, 'Reissue');
  const confirm = h('button', { type: 'button', class: 'danger', testid: 'token-reissue-confirm', ...data, hidden: true }, 'Yes: replace it now');
  const cancel = h('button', { type: 'button', class: 'button-quiet', hidden: true }, 'Cancel');
  const ask = h('span', { class: 'confirm-text', hidden: true }, `The current ${who.role === 'umpire' ? 'umpire' : `${sideName}`} token stops working at once.`);
  const showConfirm = (on) => {
    reissue.hidden = on;
    confirm.hidden = !on;
    cancel.hidden = !on;
    ask.hidden = !on;
    (on ? confirm : reissue).focus();
  };
  reissue.addEventListener('click', () => {
    replace(out);
    showConfirm(true);
  });
  cancel.addEventListener('click', () => showConfirm(false));
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    cancel.disabled = true;
    try {
      const body = who.role === 'umpire' ? { role: 'umpire' } : { role: 'player', side: who.side.id };
      const issued = await sendJSON('POST', cpath('/tokens'), body);
      if (issued.role === 'umpire') setToken(issued.token); // this tab goes on with the new one
      replace(out, issuedNotice(who, issued));
      announce(`New ${who.role === 'umpire' ? 'umpire' : `${sideName} player`} token issued; the old one no longer works.`);
      onIssued();
    } catch (err) {
      replace(out, errorBox(err.status === 404 && err.code === 'no_such_route' ? 'This service cannot reissue tokens yet (it has no such route): upgrade it.' : errorText(err)));
    } finally {
      confirm.disabled = false;
      cancel.disabled = false;
      showConfirm(false);
    }
  });
  return h(
    'li',
    { class: 'holder', testid: 'token-holder', ...data },
    h('div', { class: 'holder-line' }, h('strong', { class: 'holder-name' }, who.label), h('span', { class: 'row-actions' }, reissue, ask, confirm, cancel)),
    out,
  );
}

function issuedNotice(who, issued) {
  const label = who.role === 'umpire' ? 'New umpire token' : `New player token of ${who.side.name}`;
  const text = () =>
    [
      `umpire campaign: ${session.who.campaign_name} (${session.who.campaign_id})`,
      `issued: ${issued.issued_at}`,
      `console: ${location.origin}/`,
      '',
      `${label}:`,
      issued.token,
      '',
    ].join('\n');
  const name = `${fileSlug(session.who.campaign_name)}-${who.role === 'umpire' ? 'umpire' : fileSlug(who.side.name)}-token.txt`;
  return h(
    'div',
    { class: 'notice', role: 'status', testid: 'token-reissued', 'data-role': who.role, 'data-side-name': who.side ? who.side.name : null },
    h('p', null, h('strong', null, 'Shown only this once. '), who.role === 'umpire' ? 'This tab now uses it; sign in with it elsewhere.' : `Give it to ${who.side.name}'s players; their old token no longer works.`),
    secretLine(label, issued.token, { testid: 'reissued-token', 'data-role': who.role }),
    h('div', { class: 'actions' }, downloadSecretsButton('Download it (text file)', name, text)),
  );
}

const ISSUED_BY = { creation: 'with the campaign', umpire: 'reissued by the umpire' };

async function loadLog(area) {
  const heading = h('h2', { id: 'token-log-heading' }, 'Tokens issued');
  try {
    const items = await getAll(cpath('/tokens'));
    if (!items.length) {
      replace(area, heading, h('p', { class: 'empty' }, 'None recorded.'));
      return;
    }
    const newest = [...items].sort((a, b) => b.issued_at.localeCompare(a.issued_at));
    replace(
      area,
      heading,
      table(
        ['When', 'Token', 'How'],
        newest.map((t) =>
          h(
            'tr',
            { testid: 'token-log-row', 'data-role': t.role, 'data-side-name': t.side ? t.side.name : null, 'data-issued-by': t.issued_by },
            h('td', null, timeEl(t.issued_at)),
            h('td', null, t.role === 'umpire' ? 'umpire' : `player, ${t.side ? t.side.name : '?'}`),
            h('td', null, ISSUED_BY[t.issued_by] || t.issued_by),
          ),
        ),
        { class: 'token-log' },
      ),
    );
  } catch (err) {
    replace(area, heading, errorBox(err.status === 404 && err.code === 'no_such_route' ? 'This service keeps no record of tokens yet (it has no such route): upgrade it.' : errorText(err)));
  }
}
