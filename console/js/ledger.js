// #/ledger: the campaign's ledger (every die, chained), verified by the
// service on demand, optionally against a hash kept earlier; and its
// export, to check offline with umpire-verify.

import { h, replace, field, dl, downloadBlob, numberInput } from './dom.js';
import { getJSON, getBlob } from './api.js';
import { session, cpath, refreshCampaign } from './session.js';
import { FieldMap, FormError, onSubmit, actions, intValue, textValue, errorBox } from './forms.js';

export async function renderLedger(view) {
  await refreshCampaign();
  const ledger = session.campaign.ledger;
  view.append(
    h('h1', null, 'Ledger'),
    h(
      'p',
      null,
      'Every die of the campaign is chained in its ledger as it is logged: changing a die, dropping one or rolling a combat again afterwards breaks the chain. Verifying walks the chain and re-derives every die whose seed is revealed.',
    ),
    dl([
      ['Entries', h('span', { testid: 'ledger-entries' }, ledger.length)],
      ['Head', h('code', { class: 'hash' }, ledger.head)],
      ['Next commitment', h('code', { class: 'hash' }, session.campaign.next_commitment)],
    ]),
  );

  const fields = new FieldMap();
  const pos = numberInput({ min: 1, testid: 'ledger-pos', placeholder: 'e.g. 42' });
  const hash = h('input', { type: 'text', testid: 'ledger-hash', maxlength: 64, pattern: '[0-9a-f]{64}', autocomplete: 'off', spellcheck: 'false' });
  fields.set('pos', pos);
  fields.set('hash', hash);
  const out = h('div', { class: 'ledger-out', testid: 'ledger-result', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', novalidate: true },
    h('h2', null, 'Verify'),
    h(
      'details',
      null,
      h('summary', null, 'Also check a hash you kept'),
      h('p', { class: 'hint' }, 'An entry number and the hash you saw for it then (a head, or a combat report’s ledger hash).'),
      h('div', { class: 'row' }, field('Entry', pos), field('Hash', hash)),
    ),
    actions(h('button', { type: 'submit', class: 'primary', testid: 'ledger-verify' }, 'Verify the ledger')),
    out,
  );
  onSubmit(form, fields, async () => {
    const p = intValue(pos, 'Entry');
    const hv = textValue(hash);
    if ((p === undefined) !== (hv === undefined)) throw new FormError('Give both the entry and its hash, or neither.', p === undefined ? pos : hash);
    if (p === undefined) {
      replace(out, ...verification(await getJSON(cpath('/ledger/verify'))));
    } else {
      // Against a kept hash: the chain is verified on its own as well, so a
      // mistyped hash is told apart from a ledger that does not hold.
      const kept = { pos: p, hash: hv.toLowerCase() };
      const [withKept, chain] = await Promise.all([getJSON(cpath('/ledger/verify'), kept), getJSON(cpath('/ledger/verify'))]);
      replace(out, ...verification(withKept, { kept, chain }));
    }
    refreshCampaign().catch(() => {});
  });

  const exportBtn = h('button', { type: 'button', testid: 'ledger-download' }, 'Download the ledger (JSON)');
  const exportOut = h('div');
  exportBtn.addEventListener('click', async () => {
    exportBtn.disabled = true;
    replace(exportOut);
    try {
      const blob = await getBlob(cpath('/ledger'));
      downloadBlob(new Blob([blob], { type: 'application/json' }), `ledger-${session.who.campaign_id}.json`);
    } catch (err) {
      replace(exportOut, errorBox(err));
    } finally {
      exportBtn.disabled = false;
    }
  });

  view.append(
    form,
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'Check it yourself'),
      h('p', null, 'The export holds every entry and every revealed seed. umpire-verify --ledger checks it on your own machine, with its own SHA-256, HMAC and ChaCha20, so you need not trust the service.'),
      h('div', { class: 'actions' }, exportBtn),
      exportOut,
    ),
  );
}

/** "entry 5: its hash…" → "its hash…" (the list says "Entry 5:" already). */
function problemText(p) {
  const text = String(p.problem || '');
  return p.pos ? text.replace(new RegExp(`^entry ${p.pos}:\\s*`, 'i'), '') : text;
}

/**
 * The verdict. With a kept hash (kept: {pos, hash}; chain: the verification
 * without it): when the chain holds but the kept hash does not match, the
 * hash kept or typed differs from the ledger's, which is said as such (a
 * typo is likelier than a rewrite), not as a ledger that does not hold.
 */
function verification(r, { kept = null, chain = null } = {}) {
  const d = r.dice;
  const keptOnly = kept && !r.verified && chain && chain.verified;
  let verdict;
  if (r.verified) verdict = kept ? `✔ The ledger holds, and entry ${kept.pos} has the hash you kept.` : '✔ The ledger holds.';
  else if (keptOnly) verdict = `✘ Entry ${kept.pos} does not have the hash you gave.`;
  else verdict = '✘ The ledger does not hold: its chain is broken.';
  return [
    h('p', { class: ['verdict', r.verified ? 'ok' : 'bad'], testid: 'ledger-verdict', 'data-verified': String(r.verified), 'data-kept-only': keptOnly ? 'true' : null }, verdict),
    keptOnly
      ? h(
          'p',
          null,
          'The chain itself holds: every entry follows from the one before it. Check the entry number and the hash you typed against the one you kept (a single wrong character is enough). If they are exactly what you kept, the ledger was rewritten up to that entry since you saw it: ask the umpire.',
        )
      : null,
    dl([
      ['Entries walked', `${r.ledger.walked} of ${r.ledger.length}`],
      ['Head', h('code', { class: 'hash' }, r.ledger.head)],
      ['Seeded dice', `${d.seeded}, of which ${d.rederived} re-derived from their revealed seed`],
      ['Pending', d.pending ? `${d.pending} (battles still open: their seed is still secret)` : null],
      ['Entered dice', d.entered ? `${d.entered} (a record, not checkable)` : null],
    ]),
    r.problems.length && !keptOnly
      ? h(
          'ul',
          { class: 'problems' },
          r.problems.map((p) => h('li', null, p.pos ? `Entry ${p.pos}: ${problemText(p)}` : problemText(p))),
        )
      : null,
  ];
}
