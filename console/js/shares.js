// #/shares: the umpire's share links (docs/console.md, "Share links").
// A link opens one combat's report, one battle, or the whole campaign
// report, read-only, to whoever holds it, at /share/{secret}: a page with
// no sign-in that checks the dice in the reader's browser (share.js).
//
//   #/shares                      the links, and a form to make one
//   #/shares/combat/<combat id>   the form with that combat chosen
//   #/shares/battle/<battle id>   the form with that battle chosen
//   #/shares/campaign             the form with the campaign chosen
//
// POST /v1/campaigns/{cid}/shares answers the link's url once (it holds
// the secret, which the service keeps only hashed, like a token); the
// list never shows it. DELETE .../shares/{id} revokes a link: its page
// answers "no such link" from then on.

import { h, replace, field, select, table, timeEl, copyText, announce } from './dom.js';
import { getAll, sendJSON } from './api.js';
import { cpath, isUmpire, onSessionChange } from './session.js';
import { FieldMap, FormError, runForm, actions, errorBox, textValue } from './forms.js';
import { systemTitle } from './format.js';

// The nav entry is the umpire's only.
onSessionChange(() => {
  const nav = document.getElementById('nav-shares');
  if (nav) nav.hidden = !isUmpire();
});

const KIND_TEXT = { combat: 'a combat’s report', battle: 'a battle', campaign: 'the whole campaign' };

/** The full address of a link, to paste anywhere. */
function fullUrl(url) {
  return new URL(url, location.origin).href;
}

export async function renderShares(view, rest = []) {
  view.append(h('h1', null, 'Share links'));
  if (!isUmpire()) {
    view.append(h('p', { class: 'notice' }, 'Only the umpire makes share links.'));
    return;
  }
  view.append(
    h(
      'p',
      { class: 'hint' },
      'A share link opens a report to whoever holds it, read-only and with no token: post it in the channel, send it to a player. Its page checks the dice in the reader’s browser: the seed against its commitment, every die re-derived, and the ledger’s chain up to the report. Fog of war applies as for someone of no side.',
    ),
  );
  const [presetKind, presetId] = rest;
  const created = h('div', { class: 'share-created-area', 'aria-live': 'polite' });
  const listArea = h('section', null, h('h2', null, 'Links'), h('p', null, 'Loading…'));
  view.append(await createForm(presetKind, presetId, created, () => drawList(listArea)), created, listArea);
  await drawList(listArea);
}

async function createForm(presetKind, presetId, created, onCreated) {
  const fields = new FieldMap();
  const kind = select(
    [
      { value: 'combat', label: 'A combat’s report' },
      { value: 'battle', label: 'A battle' },
      { value: 'campaign', label: 'The whole campaign' },
    ],
    { testid: 'share-kind-select' },
    ['combat', 'battle', 'campaign'].includes(presetKind) ? presetKind : 'combat',
  );
  const target = h('select', { testid: 'share-target' });
  const note = h('input', { type: 'text', maxlength: 200, testid: 'share-note', placeholder: 'e.g. turn 3, for the players' });
  fields.set('kind', kind);
  fields.set('id', target);
  fields.set('note', note);
  const targetField = field('Which one', target);

  const [combats, battles] = await Promise.all([getAll(cpath('/combats')).catch(() => []), getAll(cpath('/battles')).catch(() => [])]);
  const options = {
    combat: [...combats].reverse().map((c) => ({ value: c.id, label: `${systemTitle(c.system)} ${c.created_at.slice(0, 16).replace('T', ' ')}: ${c.summary || c.id}`.slice(0, 120) })),
    battle: [...battles].reverse().map((b) => ({ value: b.id, label: `${systemTitle(b.system)} battle, turn ${b.turn}, ${b.status} (${b.id})` })),
  };
  function drawTargets() {
    const k = kind.value;
    targetField.hidden = k === 'campaign';
    replace(target);
    const opts = options[k] || [];
    if (!opts.length && k !== 'campaign') target.append(h('option', { value: '' }, k === 'combat' ? 'no combat yet' : 'no battle yet'));
    for (const o of opts) target.append(h('option', { value: o.value }, o.label));
    if (presetId && opts.some((o) => o.value === presetId)) target.value = presetId;
  }
  kind.addEventListener('change', drawTargets);
  drawTargets();

  const form = h(
    'form',
    { class: 'card share-form', novalidate: true },
    h('h2', null, 'Make a link'),
    h('div', { class: 'row' }, field('Share', kind), targetField),
    field('Note (for your list; the reader does not see it)', note),
    actions(h('button', { type: 'submit', class: 'primary', testid: 'share-create' }, 'Make the link')),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    runForm(
      form,
      async () => {
        const body = { kind: kind.value };
        if (kind.value !== 'campaign') {
          if (!target.value) throw new FormError(`There is no ${kind.value} to share yet.`, target);
          body.id = target.value;
        }
        const n = textValue(note);
        if (n) body.note = n;
        const link = await sendJSON('POST', cpath('/shares'), body);
        replace(created, createdBox(link));
        announce('Share link made.');
        onCreated();
      },
      fields,
    );
  });
  return form;
}

function createdBox(link) {
  const url = fullUrl(link.url);
  const status = h('span', { class: 'inline-status', role: 'status' });
  const copy = h('button', { type: 'button', testid: 'share-copy' }, 'Copy');
  copy.addEventListener('click', async () => {
    status.textContent = (await copyText(url)) ? 'Copied.' : 'The browser refused to copy: select the link and copy it by hand.';
  });
  return h(
    'div',
    { class: 'card share-created notice', testid: 'share-created', 'data-share-id': link.id },
    h('p', null, h('strong', null, `A link to ${KIND_TEXT[link.kind] || link.kind}`), link.target_id ? [' ', h('code', null, link.target_id)] : null, ':'),
    h('p', { class: 'token-line' }, h('a', { href: link.url, target: '_blank', rel: 'noopener noreferrer', class: 'hash', testid: 'share-url' }, url), ' ', copy, status),
    h('p', { class: 'hint' }, 'Shown this once: the service keeps only a hash of it. Lost, make another; revoke the links you no longer want below.'),
  );
}

async function drawList(area) {
  let items;
  try {
    items = await getAll(cpath('/shares'));
  } catch (err) {
    replace(area, h('h2', null, 'Links'), errorBox(err));
    return;
  }
  const sorted = [...items].sort((a, b) => (a.revoked_at ? 1 : 0) - (b.revoked_at ? 1 : 0) || b.created_at.localeCompare(a.created_at));
  replace(
    area,
    h('h2', null, `Links (${items.filter((s) => !s.revoked_at).length} in use)`),
    sorted.length
      ? table(
          ['Made', 'Shares', 'Note', 'State', ''],
          sorted.map((s) => shareRow(s, area)),
          { class: 'shares' },
        )
      : h('p', { class: 'empty', testid: 'shares-empty' }, 'No link yet.'),
  );
}

function shareRow(s, area) {
  const what =
    s.kind === 'campaign'
      ? 'the whole campaign'
      : [s.kind === 'combat' ? 'combat ' : 'battle ', h('a', { href: s.kind === 'combat' ? `#/reports/${encodeURIComponent(s.target_id)}` : `#/battles/${encodeURIComponent(s.target_id)}` }, h('code', null, s.target_id))];
  const revoke = s.revoked_at
    ? null
    : h('button', { type: 'button', class: 'danger button-small', testid: 'share-revoke', 'data-share-id': s.id }, 'Revoke');
  if (revoke) {
    revoke.addEventListener('click', async () => {
      if (!window.confirm('Revoke this link? Whoever holds it can no longer open it.')) return;
      revoke.disabled = true;
      try {
        await sendJSON('DELETE', cpath(`/shares/${encodeURIComponent(s.id)}`));
        announce('Link revoked.');
        await drawList(area);
      } catch (err) {
        revoke.disabled = false;
        revoke.after(errorBox(err));
      }
    });
  }
  return h(
    'tr',
    { testid: 'share-row', 'data-share-id': s.id, 'data-kind': s.kind, 'data-revoked': String(Boolean(s.revoked_at)) },
    h('td', null, timeEl(s.created_at)),
    h('td', null, what),
    h('td', null, s.note || ''),
    h('td', null, s.revoked_at ? h('span', { class: 'badge status-abandoned' }, 'revoked ', timeEl(s.revoked_at)) : h('span', { class: 'badge status-open' }, 'in use')),
    h('td', null, revoke),
  );
}
