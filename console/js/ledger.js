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
    const result = await getJSON(cpath('/ledger/verify'), p === undefined ? undefined : { pos: p, hash: hv.toLowerCase() });
    replace(out, ...verification(result));
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

function verification(r) {
  const d = r.dice;
  return [
    h(
      'p',
      { class: ['verdict', r.verified ? 'ok' : 'bad'], testid: 'ledger-verdict', 'data-verified': String(r.verified) },
      r.verified ? '✔ The ledger holds.' : '✘ The ledger does NOT hold.',
    ),
    dl([
      ['Entries walked', `${r.ledger.walked} of ${r.ledger.length}`],
      ['Head', h('code', { class: 'hash' }, r.ledger.head)],
      ['Seeded dice', `${d.seeded}, of which ${d.rederived} re-derived from their revealed seed`],
      ['Pending', d.pending ? `${d.pending} (battles still open: their seed is still secret)` : null],
      ['Entered dice', d.entered ? `${d.entered} (a record, not checkable)` : null],
    ]),
    r.problems.length
      ? h(
          'ul',
          { class: 'problems' },
          r.problems.map((p) => h('li', null, p.pos ? `Entry ${p.pos}: ${p.problem}` : p.problem)),
        )
      : null,
  ];
}
