// The share page, /share/{secret} (share.html): a report an umpire shared,
// read without a token, and checked in this browser.
//
//   1. The page's own crypto first reproduces the worked vector of
//      verifier/README.md (verify.js selfTest): if it cannot, it says so
//      and vouches for nothing.
//   2. GET /v1/shared/{secret}?ledger=own (public): {kind, campaign,
//      created_at, report, ledger: {entries, head, after}}, the ledger
//      from the record's own first entry, small however long the
//      campaign. When the chain up to the report is short enough
//      (WALK_MAX entries), the whole answer (from entry 1) is read
//      straight after and checked instead; a longer one is read when the
//      reader asks ("Walk the ledger from entry 1"). 404: unknown or
//      revoked; 429 or 503: busy (share-answer.js says what to do).
//   3. verify.js verifyShared: the seed against its commitment, every die
//      re-derived (rng v1), the ledger's chain from entry 1 (or from the
//      part's first entry) up to the report, the combat's seal and its
//      dice in the ledger.
//   4. The report as the service renders it (?format=md), to read; as an
//      HTML page and as the JSON checked, to keep.
//
// Every text from the service lands in text nodes (dom.js h()), never in
// markup. What the page checked is shown check by check, each with
// data-ok, so a reader (and the browser tests) can see which one failed.

import { h, replace, timeEl, table, copyText, downloadBlob } from './dom.js';
import { selfTest, verifyShared } from './verify.js';
import { shareFailure, cutShort } from './share-answer.js';

const SYSTEMS = { scrud: 'SCRUD', edna: 'EDNA', scs: 'SCS', matrix: 'Matrix', civ: 'Civilization' };
const systemTitle = (s) => SYSTEMS[s] || s || '';

const main = document.getElementById('main');

// The longest chain (entries up to the report) read whole without asking:
// about 11 MB of JSON. globalThis.umpireShareWalkMax overrides it (the
// browser tests read a part with 0).
const WALK_MAX = 20000;
const walkMax = () => (Number.isInteger(globalThis.umpireShareWalkMax) ? globalThis.umpireShareWalkMax : WALK_MAX);

/** The secret: the last part of /share/{secret}. */
function secretFromPath() {
  const m = /^\/share\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
  return m ? m[1] : null;
}

function okAttr(ok) {
  return ok === null || ok === undefined ? 'null' : String(Boolean(ok));
}

function mark(ok) {
  if (ok === null || ok === undefined) return h('span', { class: 'vmark vmark-none', 'aria-hidden': 'true' }, '–');
  return h('span', { class: ['vmark', ok ? 'vmark-ok' : 'vmark-bad'], 'aria-hidden': 'true' }, ok ? '✓' : '✗');
}

/**
 * The service's short Markdown (a combat's summary_markdown: lines, "- "
 * items, **bold**, _italic_) as text nodes in <strong>/<em>: never parsed
 * as HTML, so a unit's name stays text whatever it holds.
 */
function miniMarkdown(md) {
  const unescape = (t) => t.replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1');
  // Marks not escaped with a backslash: **bold**, and _italic_ between spaces.
  const re = /(?<!\\)\*\*(.+?)(?<!\\)\*\*|(?<![\w\\])_(.+?)(?<!\\)_(?!\w)/g;
  const inline = (line) => {
    const out = [];
    let last = 0;
    for (const m of line.matchAll(re)) {
      if (m.index > last) out.push(unescape(line.slice(last, m.index)));
      out.push(m[1] !== undefined ? h('strong', null, unescape(m[1])) : h('em', null, unescape(m[2])));
      last = m.index + m[0].length;
    }
    if (last < line.length) out.push(unescape(line.slice(last)));
    return out;
  };
  const box = h('div', { class: 'mini-md' });
  let list = null;
  for (const line of String(md).split('\n')) {
    if (/^\s*- /.test(line)) {
      if (!list) box.append((list = h('ul')));
      list.append(h('li', null, inline(line.replace(/^\s*- /, ''))));
    } else {
      list = null;
      if (line.trim()) box.append(h('p', null, inline(line)));
    }
  }
  return box;
}

/** One line of "What this page checked": data-check names it, data-ok says how it went. */
function checkItem(name, ok, title, ...detail) {
  return h(
    'li',
    { class: ['vcheck', ok === true && 'ok', ok === false && 'bad'], testid: 'verify-check', 'data-check': name, 'data-ok': okAttr(ok) },
    mark(ok),
    h('div', null, h('strong', null, title), detail.length ? h('div', { class: 'vcheck-detail' }, detail) : null),
    h('span', { class: 'visually-hidden' }, ok === true ? ' (holds)' : ok === false ? ' (FAILS)' : ' (not checked)'),
  );
}

const hashCode = (s) => h('code', { class: 'hash' }, s ?? '—');

// ---- the parts ---------------------------------------------------------

function selfTestItem(checks) {
  const ok = checks.every((c) => c.ok);
  const bad = checks.filter((c) => !c.ok);
  return h(
    'li',
    { class: ['vcheck', ok ? 'ok' : 'bad'], testid: 'share-selftest', 'data-ok': String(ok), 'data-check': 'selftest' },
    mark(ok),
    h(
      'div',
      null,
      h('strong', null, ok ? 'This page’s crypto passes its self-test' : 'This page’s crypto FAILS its self-test: nothing below can be trusted'),
      h(
        'details',
        { class: 'vcheck-detail' },
        h('summary', null, `The worked vector of verifier/README.md: ${checks.length - bad.length} of ${checks.length} values reproduced`),
        h(
          'ul',
          { class: 'selftest-list' },
          checks.map((c) =>
            h('li', { class: c.ok ? 'ok' : 'bad' }, mark(c.ok), ` ${c.name}`, c.ok ? null : h('span', null, `: expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(c.got)}`)),
          ),
        ),
        h('p', { class: 'hint' }, 'SHA-256 and HMAC-SHA256 from @noble/hashes, ChaCha20 from @noble/ciphers, served with this page (console/vendor/).'),
      ),
    ),
  );
}

function verdictBox(result, doc, selfOk) {
  let verdict = result.verdict;
  if (!selfOk) verdict = 'failed';
  const nDice = result.dice && result.dice.dice ? result.dice.dice.length : 0;
  const L = result.ledger;
  let title;
  let body;
  if (!selfOk) {
    title = 'Not checked: this browser’s crypto fails the self-test';
    body = 'The page cannot vouch for anything here. Check the report with umpire-verify instead.';
  } else if (verdict === 'verified') {
    title = 'Verified in your browser';
    const parts = [];
    if (result.dice && result.dice.status === 'verified' && nDice) parts.push(`the seed matches its commitment and all ${nDice} dice follow from it`);
    else if (result.dice && result.dice.status === 'verified') parts.push(doc.kind === 'battle' ? 'the revealed seed matches its commitment (for its dice, see below)' : 'the revealed seed matches its commitment');
    if (L) parts.push(L.after > 0 ? `the ledger's chain holds from entry ${L.after + 1} to entry ${L.chain.walked} (entries 1 to ${L.after} were not walked: see below)` : `the ledger's chain holds from entry 1 to entry ${L.chain.walked}`);
    const text = parts.join('; ');
    body = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  } else if (verdict === 'failed') {
    title = 'This report FAILS the check';
    body = result.problems[0] || 'see below';
  } else {
    title = 'Nothing here can be re-derived';
    const d = result.dice;
    body = d && d.status === 'entered'
      ? 'The dice were entered by the umpire from a real table: an honest record, not something anyone can re-derive.'
      : d && d.status === 'pending'
        ? 'The dice are seeded, but the seed stays secret until the battle is over: open this link again then.'
        : 'This report carries no seeded dice and no ledger entries to check.';
  }
  return h(
    'section',
    { class: ['share-verdict', `verdict-${verdict}`], testid: 'share-verdict', 'data-verdict': verdict, role: 'status' },
    h('p', { class: 'share-verdict-title' }, mark(verdict === 'verified' ? true : verdict === 'failed' ? false : null), ' ', title),
    h('p', { class: 'share-verdict-body' }, body),
    verdict === 'failed' && result.problems.length
      ? h('ul', { class: 'share-problems' }, result.problems.map((p) => h('li', { testid: 'verify-problem' }, p)))
      : null,
  );
}

function diceTable(v) {
  const rows = v.dice.map((d) =>
    h(
      'tr',
      { testid: 'verify-die', 'data-seq': d.seq, 'data-ok': okAttr(d.ok), class: d.ok === true ? 'die-ok' : d.ok === false ? 'die-bad' : null },
      h('td', null, d.seq),
      h('td', null, d.side ?? '—'),
      h('td', null, d.unit ?? h('span', { class: 'hint', title: 'withheld by fog of war' }, '—')),
      h('td', { class: 'reason' }, d.reason ?? ''),
      h('td', null, `d${d.faces}`),
      h('td', { class: 'num' }, d.logged),
      h('td', { class: 'num' }, d.computed ?? '–'),
      h('td', null, mark(d.ok), h('span', { class: 'vword' }, d.ok === true ? ' matches' : d.ok === false ? ' DIFFERS' : ' not checked')),
    ),
  );
  return table(['#', 'Side', 'Unit', 'Reason', 'Die', 'Report says', 'Seed gives', ''], rows, { class: 'verify-dice' });
}

function diceChecks(v, doc) {
  const d = doc.report.dice || {};
  const items = [];
  if (v.commitment) {
    items.push(
      checkItem(
        'commitment',
        v.commitment.ok,
        v.commitment.ok === null ? 'The revealed seed (the report names no commitment to hold it to)' : 'The revealed seed matches its commitment',
        h('div', null, 'SHA-256 of the server seed: ', hashCode(v.commitment.computed)),
        h('div', null, 'commitment in the report: ', hashCode(v.commitment.expected)),
        h('div', null, 'server seed: ', hashCode(d.server_seed)),
        h('div', null, 'client seed: ', d.client_seed === null || d.client_seed === undefined ? 'none' : h('code', null, JSON.stringify(d.client_seed))),
      ),
    );
  }
  if (v.dice && v.dice.length && (v.status === 'verified' || v.status === 'failed')) {
    const bad = v.dice.filter((x) => x.ok === false).length;
    items.push(
      checkItem(
        'dice',
        bad === 0 && v.dice.every((x) => x.ok === true),
        bad ? `${bad} of ${v.dice.length} dice do NOT follow from the seed` : `All ${v.dice.length} dice follow from the seed (rng v1)`,
        'HMAC-SHA256 of the client seed under the server seed keys ChaCha20; each die takes the next 32-bit word of its stream (docs/dice.md).',
      ),
    );
  }
  return items;
}

function ledgerChecks(L, doc, walkAll) {
  if (!L) return [];
  const items = [];
  items.push(
    checkItem(
      'ledger-chain',
      L.chain.ok,
      L.chain.ok ? `The ledger's chain holds: entries ${L.after + 1} to ${L.chain.walked}` : `The ledger's chain breaks at entry ${L.chain.walked + 1} of ${L.upTo}`,
      L.after > 0
        ? `Each entry rebuilt from its fields and hashed onto the one before, from entry ${L.after}'s hash as entry ${L.after + 1} names it (docs/ledger.md). Last hash: `
        : 'Each entry rebuilt from its fields and hashed onto the one before, from 64 zeros (docs/ledger.md). Last hash: ',
      hashCode(L.chain.lastHash),
    ),
  );
  if (L.after > 0) {
    const first = doc.kind === 'battle' ? 'battle’s first action' : doc.kind === 'combat' ? 'combat’s first die' : 'first entry';
    const button = h('button', { type: 'button', testid: 'share-walk-all' }, `Walk the ledger from entry 1 (${L.upTo} entries)`);
    button.addEventListener('click', () => {
      button.disabled = true;
      button.textContent = 'Reading the ledger from entry 1…';
      walkAll();
    });
    items.push(
      checkItem(
        'ledger-start',
        null,
        `Entries 1 to ${L.after}, before the ${first}, are not walked here`,
        h('div', null, `This page read the ledger from the ${first} (entry ${L.after + 1}), which names entry ${L.after}'s hash as `, hashCode(L.chain.startHash), '. Whether that entry hangs on the chain from its start is checked by walking it from entry 1; or compare it with the hash of an export you keep.'),
        h('p', { class: 'actions' }, button),
      ),
    );
  }
  if (L.seal) {
    items.push(
      checkItem(
        'ledger-seal',
        L.seal.ok,
        L.seal.ok ? `The combat's seal is entry ${L.seal.pos} of the chain` : `The combat's seal does NOT match entry ${L.seal.pos}`,
        h('div', null, 'the report’s ledger hash: ', hashCode(L.seal.expected)),
        h('div', null, `entry ${L.seal.pos} of the chain: `, hashCode(L.seal.computed)),
      ),
    );
    items.push(
      checkItem(
        'ledger-cross',
        L.cross.length === 0,
        L.cross.length === 0 ? 'The ledger holds this combat’s dice as the report gives them' : 'The ledger and the report disagree on this combat’s dice',
        L.cross.length ? h('ul', null, L.cross.map((p) => h('li', null, p))) : null,
      ),
    );
  }
  if (L.head) {
    items.push(
      checkItem('ledger-head', L.head.ok, L.head.ok ? 'The chain ends at the ledger’s head' : 'The chain does NOT end at the ledger’s head', h('div', null, 'head: ', hashCode(L.head.expected))),
    );
  }
  const c = L.dice.counts;
  const others = L.dice.records.filter((r) => r.id !== doc.report.id);
  if (others.length || L.dice.problems.length) {
    const parts = [];
    if (c.rederived) parts.push(`${c.rederived} re-derived from their revealed seeds`);
    if (c.pending) parts.push(`${c.pending} of battles still open (their seeds are revealed when they end)`);
    if (c.entered) parts.push(`${c.entered} entered by hand (a record, not a proof)`);
    if (c.unknown) parts.push(`${c.unknown} whose seeds this link does not carry (chained, not re-derived)`);
    if (c.earlier) parts.push(`${c.earlier} of records begun before the entries read here (chained, not re-derived)`);
    items.push(
      checkItem(
        'ledger-dice',
        L.dice.problems.length ? false : c.rederived ? true : null,
        L.dice.problems.length ? 'Dice in the ledger do NOT follow from their seeds' : 'The dice in the ledger',
        `${parts.join('; ') || 'none'}.`,
      ),
    );
  }
  return items;
}

/**
 * What this page can say of a battle's dice. A battle's dice follow its
 * actions (docs/dice.md), which its document does not list in order; the
 * ledger's entries of its actions do, and so does its record, the combat
 * stored when it ends, whose own link checks it die by die.
 */
function battleDiceItem(doc, result) {
  const r = doc.report;
  const d = r.dice || {};
  const L = result.ledger;
  if (d.source === 'entered') {
    return checkItem('battle-dice', null, 'Entered dice: recorded, not verifiable', 'The umpire typed the dice in from a real table: an honest record, not a proof.');
  }
  if (!d.server_seed) {
    return checkItem('battle-dice', null, 'The battle’s seed is still secret', 'A battle’s seed is revealed once it is over, so that nobody can work out its next die. Open this link again then.');
  }
  if (L && L.dice.records.some((x) => x.id === r.id && x.status === 'verified')) {
    return checkItem('battle-dice', true, 'Every die of its actions follows from the seed', 'Re-derived from the ledger’s entries of its actions, in the order they were taken.');
  }
  return checkItem(
    'battle-dice',
    null,
    'Its dice are not re-derived on this page',
    r.combat_id
      ? ['They are in its record, combat ', h('code', null, r.combat_id), ': a link to that combat checks them die by die.']
      : 'The battle ended with no record to check them in.',
  );
}

function checksSection(selfChecks, result, doc, walkAll) {
  const items = [selfTestItem(selfChecks)];
  if (result.dice && doc.kind === 'combat') items.push(...diceChecks(result.dice, doc));
  if (doc.kind === 'battle' && result.dice && result.dice.commitment) items.push(...diceChecks({ ...result.dice, dice: [] }, doc));
  items.push(...ledgerChecks(result.ledger, doc, walkAll));
  if (doc.kind === 'battle') items.push(battleDiceItem(doc, result));
  return h('section', { class: 'card share-checks', 'aria-labelledby': 'checks-h' }, h('h2', { id: 'checks-h' }, 'What this page checked'), h('ul', { class: 'vchecks' }, items));
}

/** The campaign's combats and battles, each with an anchor the report's "Link:" lines name. */
function campaignRecords(report) {
  const combats = Array.isArray(report.combats) ? report.combats : [];
  const battles = Array.isArray(report.battles) ? report.battles : [];
  return h(
    'section',
    { class: 'share-records' },
    h('h2', null, `Combats (${combats.length})`),
    combats.length
      ? h(
          'ol',
          { class: 'share-record-list' },
          combats.map((c) =>
            h(
              'li',
              { id: `combat-${c.id}`, testid: 'share-combat', 'data-combat-id': c.id },
              h('strong', null, `${systemTitle(c.system)} combat`),
              ' ',
              timeEl(c.created_at),
              c.note ? ` – ${c.note}` : '',
              h('div', { class: 'hint' }, h('code', null, c.id), `, ${c.dice_source || ''} dice`),
              h('p', null, c.summary || ''),
            ),
          ),
        )
      : h('p', { class: 'empty' }, 'No combat yet.'),
    h('h2', null, `Battles (${battles.length})`),
    battles.length
      ? h(
          'ul',
          { class: 'share-record-list' },
          battles.map((b) =>
            h('li', { id: `battle-${b.id}`, 'data-battle-id': b.id }, h('strong', null, `${systemTitle(b.system)} battle`), ` ${b.status}, turn ${b.turn} `, h('code', null, b.id)),
          ),
        )
      : h('p', { class: 'empty' }, 'No battle yet.'),
  );
}

/** The report as the service renders it, fetched as Markdown once: a page
 * drawn again (the whole ledger read) keeps it. */
let reportView = null;
function renderedReport(secret) {
  if (reportView) return reportView;
  const pre = h('pre', { class: 'report', testid: 'share-report', tabindex: '0', 'aria-label': 'The report as Markdown' }, 'Loading…');
  reportView = pre;
  fetch(`/v1/shared/${secret}?format=md`, { headers: { Accept: 'text/markdown' }, credentials: 'omit', cache: 'no-store' })
    .then(async (res) => {
      if (!res.ok) throw new Error(`the service answered ${res.status}`);
      replace(pre, await res.text());
    })
    .catch((e) => replace(pre, `The report could not be read as Markdown: ${e.message}`));
  return pre;
}

function keepSection(secret, doc) {
  const status = h('span', { class: 'inline-status', role: 'status' });
  const copyBtn = h('button', { type: 'button', testid: 'share-copy-link' }, 'Copy this link');
  copyBtn.addEventListener('click', async () => {
    status.textContent = (await copyText(location.href)) ? 'Link copied.' : 'The browser refused to copy: copy the address by hand.';
  });
  const name = (doc.report && doc.report.id) || (doc.campaign && doc.campaign.id) || 'shared';
  const jsonBtn = h('button', { type: 'button', testid: 'share-download-json' }, 'Download the JSON checked');
  jsonBtn.addEventListener('click', () => {
    downloadBlob(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }), `${name}.json`);
  });
  return h(
    'section',
    { class: 'share-keep' },
    h('h2', null, 'Keep it, check it yourself'),
    h(
      'p',
      { class: 'actions' },
      h('a', { class: 'button', href: `/v1/shared/${secret}?format=html`, download: `${(doc.report && doc.report.id) || 'report'}.html`, testid: 'share-download-html' }, 'Download as a page (HTML)'),
      jsonBtn,
      copyBtn,
      status,
    ),
    h(
      'p',
      { class: 'hint' },
      'This page checked the report with code the service sent along with it. To check without trusting that code either, download the JSON it checked and run ',
      h('code', null, `umpire-verify ${name}.json`),
      ' (the service’s verifier/README.md), or the short node or Python script of its docs/dice.md, on your own machine.',
    ),
  );
}

// ---- the page ----------------------------------------------------------

function titleOf(doc) {
  const r = doc.report || {};
  const campaign = (doc.campaign && doc.campaign.name) || '';
  if (doc.kind === 'combat') return `${systemTitle(r.system)} combat – ${campaign}`;
  if (doc.kind === 'battle') return `${systemTitle(r.system)} battle – ${campaign}`;
  return `Campaign report – ${campaign}`;
}

function showError(title, detail) {
  const loading = document.getElementById('share-loading');
  if (loading) loading.remove();
  document.getElementById('share-title').textContent = title;
  main.append(h('p', { class: 'form-error', role: 'alert', testid: 'share-error' }, detail));
}

/**
 * The page for doc (drawn again in place when the whole ledger is read);
 * note: a line on why only a part of the ledger was checked, or null.
 */
function draw(secret, doc, selfChecks, note) {
  const selfOk = selfChecks.every((c) => c.ok);
  const result = verifyShared(doc);
  const r = doc.report;
  const walkAll = () => walkWhole(secret, selfChecks);
  document.getElementById('share-loading')?.remove();
  document.getElementById('share-title').textContent = titleOf(doc);
  document.title = `${titleOf(doc)} – umpire`;

  const when = r.created_at || doc.created_at;
  const campaignName = (doc.campaign && doc.campaign.name) || '';
  const what =
    doc.kind === 'campaign'
      ? [`The campaign “${campaignName}” as it stands now`]
      : [doc.kind === 'battle' ? `A battle (${r.status || ''})` : 'A combat', ` of the campaign “${campaignName}”`, when ? h('span', null, ', ', timeEl(when)) : null];
  const facts = h('p', { class: 'share-facts', testid: 'share-kind', 'data-kind': doc.kind }, what, '. Shared ', timeEl(doc.created_at), ' by its umpire.');
  const parts = [facts];
  if (r.note) parts.push(h('p', { class: 'share-note' }, 'Note: ', r.note));
  parts.push(verdictBox(result, doc, selfOk));
  if (note) parts.push(h('p', { class: 'notice', role: 'status', testid: 'share-part-note' }, note));
  if (doc.kind === 'combat' && r.summary_markdown) {
    parts.push(h('section', { class: 'card share-summary', testid: 'share-summary' }, h('h2', null, 'Outcome'), miniMarkdown(r.summary_markdown)));
  }
  parts.push(checksSection(selfChecks, result, doc, walkAll));
  if (doc.kind === 'combat' && result.dice && result.dice.dice.length) {
    parts.push(h('section', { class: 'share-dice', 'aria-labelledby': 'dice-h' }, h('h2', { id: 'dice-h' }, `The dice (${result.dice.dice.length})`), diceTable(result.dice)));
  }
  if (doc.kind === 'campaign') parts.push(campaignRecords(r));
  parts.push(h('section', { class: 'share-full' }, h('h2', null, 'The report'), renderedReport(secret)));
  parts.push(keepSection(secret, doc));
  const body = h('div', { id: 'share-body', testid: 'share-body', 'data-after': String(result.ledger ? result.ledger.after : 0) }, parts);
  const old = document.getElementById('share-body');
  if (old) old.replaceWith(body);
  else main.append(body);

  // A link from a campaign report ("Link: /share/…#combat-…") lands on its entry.
  if (location.hash.length > 1) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) {
      target.classList.add('share-target');
      target.scrollIntoView();
    }
  }
}

/** GET /v1/shared/{secret}{query}: {doc}, or {fail: {title, detail}}. */
async function readShared(secret, query) {
  let res;
  try {
    res = await fetch(`/v1/shared/${secret}${query}`, { headers: { Accept: 'application/json' }, credentials: 'omit', cache: 'no-store' });
  } catch {
    return { fail: { title: 'No answer', detail: 'The service did not answer. Try again in a moment.' } };
  }
  if (!res.ok) return { fail: shareFailure(res.status, res.headers.get('Retry-After')) };
  try {
    return { doc: await res.json() };
  } catch (e) {
    return { fail: cutShort(e.message) };
  }
}

/**
 * The whole answer (the ledger from entry 1), checked and drawn in place of
 * the part: read straight after the part for a short chain (a second
 * stream among the links' 8, about 0.15 s of the service's time on a
 * chain of WALK_MAX entries: bench/README.md's scale run reads 80,000 in
 * 0.56 s), or when the reader asks.
 */
async function walkWhole(secret, selfChecks, part) {
  const whole = await readShared(secret, '');
  if (whole.doc) {
    draw(secret, whole.doc, selfChecks, null);
    return true;
  }
  if (part) draw(secret, part, selfChecks, `The ledger from entry 1 could not be read (${whole.fail.title.toLowerCase()}: ${whole.fail.detail}) This page checked it from the report’s own first entry.`);
  else {
    const button = document.querySelector('[data-testid="share-walk-all"]');
    if (button) {
      button.disabled = false;
      button.textContent = `Walk the ledger from entry 1: ${whole.fail.detail}`;
    }
  }
  return false;
}

async function start() {
  const secret = secretFromPath();
  // The self-test first: a page whose crypto is wrong vouches for nothing.
  const selfChecks = selfTest();
  if (!secret) {
    showError('No such link', 'This address holds no share link: it should end in /share/ followed by the link’s secret.');
    return;
  }
  // The ledger from the record's own first entry first: small whatever
  // the campaign's length; the whole of a short one straight after.
  const part = await readShared(secret, '?ledger=own');
  if (part.fail) {
    showError(part.fail.title, part.fail.detail);
    return;
  }
  const L = part.doc.ledger || {};
  if (Number.isInteger(L.after) && L.after > 0 && Number.isInteger(L.length) && L.length <= walkMax()) {
    await walkWhole(secret, selfChecks, part.doc);
    return;
  }
  draw(secret, part.doc, selfChecks, null);
}

start();
