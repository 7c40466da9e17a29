// verify.js: the dice and the ledger checked in the browser, with no word
// from the service taken on trust.
//
//   - rng v1 (docs/dice.md, "Seeded dice"; verifier/README.md, "The
//     algorithm"): commitment = SHA-256(seed); key = HMAC-SHA256(seed,
//     client seed); the ChaCha20 keystream (RFC 8439, nonce of zeros,
//     counter from 0) read as little-endian 32-bit words; a die of F faces
//     takes the next word below 2^32 - (2^32 mod F), as (w mod F) + 1.
//   - the ledger (docs/ledger.md): each entry's content rebuilt from its
//     fields as netstrings, hash(pos) = SHA-256(hash(pos - 1) || content),
//     64 zero bytes' worth of hash before the first.
//
// The crypto is not written here: SHA-256 and HMAC come from @noble/hashes
// and ChaCha20 from @noble/ciphers, vendored unchanged in console/vendor/
// (README.md there: versions, how they were fetched). WebCrypto has
// SHA-256 and HMAC too, but only in a secure context (https or localhost)
// and only asynchronously; a share link opened over plain http on a LAN
// must check all the same, so noble does all three.
//
// No DOM here: share.js draws the results, and tests/browser/verify.test.mjs
// runs this module in node against verifier/README.md's worked vector and
// tests/vectors/rng-v1-golden.json. Every check answers data (what was
// expected, what was computed, a sentence naming the problem), never throws
// on odd input.

import { sha256 } from '../vendor/noble-hashes/sha2.js';
import { hmac } from '../vendor/noble-hashes/hmac.js';
import { chacha20 } from '../vendor/noble-ciphers/chacha.js';

export const FACES_MIN = 2;
export const FACES_MAX = 1000;
export const LEDGER_VERSION = 'umpire-ledger-v1';
export const ZERO_HASH = '0'.repeat(64);

const utf8 = new TextEncoder();

// ---- bytes -------------------------------------------------------------

export function bytesToHex(bytes) {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** 64 lower- or upper-case hex digits → 32 bytes; null if malformed. */
export function hexToBytes(hex, nBytes = 32) {
  if (typeof hex !== 'string' || hex.length !== 2 * nBytes || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(nBytes);
  for (let i = 0; i < nBytes; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function isHex64(s) {
  return typeof s === 'string' && /^[0-9a-f]{64}$/.test(s);
}

export function sha256Hex(bytes) {
  return bytesToHex(sha256(typeof bytes === 'string' ? utf8.encode(bytes) : bytes));
}

// ---- rng v1 ------------------------------------------------------------

/** The commitment of a seed given in hex: SHA-256 of its 32 raw bytes. */
export function commitmentOf(seedHex) {
  const seed = hexToBytes(seedHex);
  return seed ? sha256Hex(seed) : null;
}

/**
 * key = HMAC-SHA256(key = the seed's bytes, message = the client seed's
 * UTF-8). clientSeed: a string, null (the empty message), or bytes.
 */
export function rngKey(seedHex, clientSeed) {
  const seed = hexToBytes(seedHex);
  if (!seed) throw new Error('the server seed is not 64 hex digits');
  const msg = clientSeed instanceof Uint8Array ? clientSeed : utf8.encode(clientSeed ?? '');
  return hmac(sha256, seed, msg);
}

const NONCE = new Uint8Array(12); // twelve zero bytes
const BLOCK = 64; // bytes of keystream per ChaCha20 block
const TWO32 = 2 ** 32;

/** The largest word a die of f faces keeps, plus one (docs/dice.md, step 6). */
export function dieLimit(faces) {
  return TWO32 - (TWO32 % faces);
}

/**
 * One rng v1 stream: words() in order, die(faces) as the service draws
 * them. The keystream is ChaCha20 encrypting zeros, one block (16 words)
 * at a time, the block counter from 0.
 */
export class DiceStream {
  constructor(seedHex, clientSeed) {
    this.key = rngKey(seedHex, clientSeed);
    this.block = null;
    this.counter = 0;
    this.offset = BLOCK;
    this.nWords = 0; // words taken, rejected ones included
    this.rejected = []; // 0-based positions of the words thrown away
  }

  word() {
    if (this.offset === BLOCK) {
      this.block = chacha20(this.key, NONCE, new Uint8Array(BLOCK), undefined, this.counter);
      this.counter += 1;
      this.offset = 0;
    }
    const b = this.block;
    const o = this.offset;
    this.offset += 4;
    this.nWords += 1;
    return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
  }

  die(faces) {
    if (!Number.isInteger(faces) || faces < FACES_MIN || faces > FACES_MAX) {
      throw new RangeError(`a die has ${FACES_MIN} to ${FACES_MAX} faces, not ${faces}`);
    }
    const limit = dieLimit(faces);
    for (;;) {
      const at = this.nWords;
      const w = this.word();
      if (w < limit) return (w % faces) + 1;
      this.rejected.push(at);
    }
  }
}

// ---- a combat report ---------------------------------------------------

function validFaces(f) {
  return Number.isInteger(f) && f >= FACES_MIN && f <= FACES_MAX;
}

function seedProblems(dice) {
  const problems = [];
  const seed = dice.server_seed;
  let commitment = null;
  if (hexToBytes(seed) === null) {
    problems.push(`the revealed server seed is not 64 hex digits: ${JSON.stringify(seed)}`);
    return { problems, commitment };
  }
  const computed = commitmentOf(seed);
  if (dice.commitment === null || dice.commitment === undefined) {
    commitment = { ok: null, computed, expected: null };
  } else {
    const ok = computed === String(dice.commitment).toLowerCase();
    commitment = { ok, computed, expected: dice.commitment };
    if (!ok) {
      problems.push(`the server seed does not match its commitment: SHA-256 of the seed is ${computed}, the commitment is ${dice.commitment}`);
    }
  }
  return { problems, commitment };
}

/**
 * Check a combat report's seeded dice (verifier/README.md, "What a combat
 * check does"). report: {dice: {source, rng, commitment, server_seed,
 * client_seed}, rolls: [{seq, unit, side, faces, natural}]}.
 *
 * Answers {status, commitment, dice, problems}:
 *   status     'verified' (every check holds), 'failed' (a die, the
 *              commitment or the order does not), 'entered' (dice typed in:
 *              a record, not a proof), 'pending' (seeded, seed not yet
 *              revealed), 'invalid' (the document is not a report's dice)
 *   commitment {ok, computed, expected} once a seed is revealed (ok null
 *              when the report names no commitment), else null
 *   dice       one per roll in seq order: {seq, unit, side, reason, faces,
 *              logged, computed, ok}; computed null when the die could not
 *              be derived (faces out of range)
 *   problems   sentences, the first the most telling
 */
export function verifyCombat(report) {
  const out = { status: 'invalid', commitment: null, dice: [], problems: [] };
  const dice = report && report.dice;
  const rolls = report && report.rolls;
  if (!dice || typeof dice !== 'object' || !Array.isArray(rolls)) {
    out.problems.push('the report has no dice and rolls to check');
    return out;
  }
  const sorted = [...rolls].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  const row = (r) => ({
    seq: r.seq,
    unit: r.unit ?? null,
    side: r.side ?? null,
    reason: r.reason ?? null,
    faces: r.faces,
    logged: r.natural,
    computed: null,
    ok: null,
  });
  if (dice.source === 'entered') {
    out.status = 'entered';
    out.dice = sorted.map(row);
    return out;
  }
  if (dice.source !== 'seeded') {
    out.problems.push(`the dice's source is ${JSON.stringify(dice.source)}, neither seeded nor entered`);
    return out;
  }
  if (dice.rng && dice.rng !== 'v1') {
    out.problems.push(`the dice were drawn with rng ${dice.rng}, which this page does not know (it knows v1)`);
    return out;
  }
  if (dice.server_seed === null || dice.server_seed === undefined) {
    out.status = 'pending';
    out.dice = sorted.map(row);
    return out;
  }
  const seed = seedProblems(dice);
  out.commitment = seed.commitment;
  out.problems.push(...seed.problems);
  if (!out.commitment) {
    out.status = 'failed';
    out.dice = sorted.map(row);
    return out;
  }

  sorted.forEach((r, i) => {
    if (r.seq !== i + 1) {
      out.problems.push(`the dice are not numbered 1, 2, 3…: die ${i + 1} is numbered ${JSON.stringify(r.seq)} (a die is missing, repeated or out of order)`);
    }
  });
  let stream;
  try {
    stream = new DiceStream(dice.server_seed, dice.client_seed);
  } catch (e) {
    out.problems.push(e.message);
    out.status = 'failed';
    return out;
  }
  let differ = 0;
  for (const r of sorted) {
    const d = row(r);
    if (!validFaces(r.faces)) {
      d.ok = false;
      out.problems.push(`die ${r.seq}${r.unit ? ` (${r.unit})` : ''} has ${JSON.stringify(r.faces)} faces, not ${FACES_MIN} to ${FACES_MAX}: the rest of the stream cannot be followed`);
      out.dice.push(d);
      break;
    }
    d.computed = stream.die(r.faces);
    d.ok = d.computed === r.natural;
    if (!d.ok) differ += 1;
    out.dice.push(d);
  }
  const bad = out.dice.filter((d) => d.ok === false && d.computed !== null);
  bad.forEach((d) => {
    out.problems.push(`die ${d.seq}${d.unit ? ` (${d.unit})` : ''}, d${d.faces}: the seed gives ${d.computed}, the report says ${d.logged} (${differ} of ${sorted.length} dice differ)`);
  });
  // Keep the commitment first: a wrong seed explains every die after it.
  out.status = out.problems.length ? 'failed' : 'verified';
  return out;
}

// ---- the ledger --------------------------------------------------------

function netstring(parts, value) {
  const bytes = utf8.encode(value);
  parts.push(utf8.encode(`${bytes.length}:`), bytes, utf8.encode(','));
}

const ROLL_FIELDS = [
  ['at', 'text'], ['combat_id', 'text'], ['seq', 'number'], ['side', 'text'],
  ['unit_id', 'text'], ['unit', 'text'], ['reason', 'text'], ['faces', 'number'],
  ['natural', 'number'], ['modified', 'number'], ['source', 'text'], ['rng', 'text'],
  ['commitment', 'text'], ['client_seed', 'text'],
];
const ACTION_FIELDS = [
  ['at', 'text'], ['battle_id', 'text'], ['seq', 'number'], ['action', 'text'],
  ['faces', 'numbers'], ['naturals', 'numbers'], ['detail', 'text'], ['source', 'text'],
  ['rng', 'text'], ['commitment', 'text'], ['client_seed', 'text'],
];

/**
 * The canonical content of an entry (docs/ledger.md, "Canonical content"):
 * its fields as netstrings, rebuilt from the export's members. Answers
 * {bytes} or {missing: name of a field absent or of the wrong type}.
 */
export function entryContent(entry, campaignId) {
  const isAction = entry.kind === 'action';
  if (entry.kind !== 'roll' && !isAction) return { missing: 'kind' };
  if (!Number.isInteger(entry.pos)) return { missing: 'pos' };
  const parts = [];
  netstring(parts, LEDGER_VERSION);
  netstring(parts, entry.kind);
  netstring(parts, campaignId);
  netstring(parts, String(entry.pos));
  for (const [name, type] of isAction ? ACTION_FIELDS : ROLL_FIELDS) {
    const v = entry[name];
    if (v === null) netstring(parts, '');
    else if (type === 'text' && typeof v === 'string') netstring(parts, v);
    else if (type === 'number' && Number.isInteger(v)) netstring(parts, String(v));
    else if (type === 'numbers' && Array.isArray(v) && v.every(Number.isInteger)) netstring(parts, v.join(','));
    else return { missing: name };
  }
  let n = 0;
  for (const p of parts) n += p.length;
  const bytes = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    bytes.set(p, o);
    o += p.length;
  }
  return { bytes };
}

/** hash(pos) = SHA-256(hash(pos - 1) as 32 raw bytes || content(pos)). */
export function entryHash(prevHashHex, contentBytes) {
  const prev = hexToBytes(prevHashHex);
  const buf = new Uint8Array(32 + contentBytes.length);
  buf.set(prev, 0);
  buf.set(contentBytes, 32);
  return sha256Hex(buf);
}

/**
 * Walk the chain from entry 1 (docs/ledger.md, "The chain"; verifier's
 * "What a ledger check does", step 1). entries: the export's, from pos 1;
 * or, with after above 0, a part of it (a share link's ?ledger=own): the
 * entries from pos after + 1, the first hashed onto the prev_hash it
 * names, which only the entries before could vouch for (startHash).
 * Stops at the first broken link: later entries hang on it and cannot be
 * trusted. Answers {ok, after, startHash, walked, lastHash, problems,
 * rows}: walked the last pos that holds (after when none does), rows one
 * per entry walked, {pos, ok, problem}.
 */
export function verifyChain(entries, campaignId, after = 0) {
  const out = { ok: true, after, startHash: ZERO_HASH, walked: after, lastHash: ZERO_HASH, problems: [], rows: [] };
  if (!Array.isArray(entries)) {
    out.ok = false;
    out.problems.push('the ledger has no list of entries');
    return out;
  }
  if (typeof campaignId !== 'string' || !campaignId) {
    out.ok = false;
    out.problems.push('the ledger names no campaign: its entries cannot be rebuilt');
    return out;
  }
  if (after > 0) {
    const first = entries[0];
    if (!first || !isHex64(first.prev_hash)) {
      out.ok = false;
      out.problems.push(`entry ${after + 1}, the part's first, names no previous hash to start from`);
      return out;
    }
    out.startHash = first.prev_hash;
  }
  let prev = out.startHash;
  for (let i = 0; i < entries.length; i += 1) {
    const e = entries[i];
    const pos = after + i + 1;
    let problem = null;
    if (!e || e.pos !== pos) {
      problem = e && Number.isInteger(e.pos) && e.pos > pos
        ? `entry ${pos} is missing: entry ${e.pos} comes next`
        : `entry ${pos} is out of order: it says pos ${JSON.stringify(e && e.pos)}`;
    } else if (e.prev_hash !== prev) {
      problem = pos === 1
        ? 'entry 1 does not start from 64 zeros (an entry before it was dropped, or the chain was replaced)'
        : `entry ${pos}: prev_hash does not match entry ${pos - 1} (an entry is missing or was replaced)`;
    } else {
      const c = entryContent(e, campaignId);
      if (c.missing) problem = `entry ${pos}: its field ${c.missing} is missing or of the wrong type`;
      else {
        const computed = entryHash(prev, c.bytes);
        if (computed !== e.hash) problem = `entry ${pos}: its hash does not match its content (the entry was altered): computed ${computed}, the ledger says ${e.hash}`;
        else prev = computed;
      }
    }
    out.rows.push({ pos, ok: !problem, problem });
    if (problem) {
      out.ok = false;
      out.problems.push(problem);
      break;
    }
    out.walked = pos;
  }
  out.lastHash = prev;
  return out;
}

/** The record an entry is of: a battle's id for an action, a combat's for a roll. */
const recordOf = (e) => (e.kind === 'action' ? e.battle_id : e.combat_id);

/**
 * Re-derive the dice the ledger's entries hold, record by record (a
 * combat's roll entries in seq order, a battle's action entries in seq
 * order, each action's dice in order), from each record's revealed seed.
 * seeds: {record id: {source, commitment, server_seed, client_seed}}.
 * isPart: the entries are a part of the chain (verifyChain's after above
 * 0), where a record may have begun before the first: one whose first
 * entry here is not its seq 1 is "earlier", its dice not re-derived (its
 * stream starts at entries this part does not hold), its entries still
 * held to running on by seq and to its seed's source and commitment.
 * Answers {records: [{id, kind, status, n_dice, problems}], problems,
 * counts: {rederived, pending, entered, unknown, earlier}}.
 */
export function verifyLedgerDice(entries, seeds, isPart = false) {
  const groups = new Map();
  for (const e of entries) {
    const id = recordOf(e);
    if (!groups.has(id)) groups.set(id, []);
    groups.get(id).push(e);
  }
  const out = { records: [], problems: [], counts: { rederived: 0, pending: 0, entered: 0, unknown: 0, earlier: 0 } };
  for (const [id, list] of groups) {
    const kind = list[0].kind === 'action' ? 'battle' : 'combat';
    const es = [...list].sort((a, b) => a.seq - b.seq);
    const rec = { id, kind, status: 'verified', n_dice: 0, problems: [] };
    out.records.push(rec);
    const nDice = (e) => (e.kind === 'action' ? (Array.isArray(e.faces) ? e.faces.length : 0) : 1);
    rec.n_dice = es.reduce((n, e) => n + nDice(e), 0);
    const isEarlier = isPart && Number.isInteger(es[0].seq) && es[0].seq > 1;
    const from = isEarlier ? es[0].seq : 1;
    const s = seeds[id];
    es.forEach((e, i) => {
      if (e.seq !== from + i) rec.problems.push(`entry ${e.pos}: ${id}'s entries do not run ${from}, ${from + 1}, ${from + 2}… (seq ${e.seq} where ${from + i} was due)`);
      if (s && (e.source !== s.source || (e.commitment ?? null) !== (s.commitment ?? null) || (e.client_seed ?? null) !== (s.client_seed ?? null))) {
        rec.problems.push(`entry ${e.pos}: its source, commitment or client seed is not ${id}'s`);
      }
    });
    if (isEarlier) {
      rec.status = rec.problems.length ? 'failed' : 'earlier';
      out.counts.earlier += rec.n_dice;
      out.problems.push(...rec.problems);
      continue;
    }
    if (!s) {
      rec.status = 'unknown';
      out.counts.unknown += rec.n_dice;
    } else if (s.source === 'entered' || es[0].source === 'entered') {
      rec.status = 'entered';
      out.counts.entered += rec.n_dice;
    } else if (s.server_seed === null || s.server_seed === undefined) {
      rec.status = 'pending';
      out.counts.pending += rec.n_dice;
    } else {
      const sp = seedProblems(s);
      rec.problems.push(...sp.problems.map((p) => `${id}: ${p}`));
      if (sp.commitment) {
        const stream = new DiceStream(s.server_seed, s.client_seed);
        let k = 0;
        for (const e of es) {
          const faces = e.kind === 'action' ? e.faces : [e.faces];
          const nats = e.kind === 'action' ? e.naturals : [e.natural];
          if (!Array.isArray(faces) || !Array.isArray(nats) || faces.length !== nats.length) {
            rec.problems.push(`entry ${e.pos}: its faces and naturals do not pair up`);
            break;
          }
          let stop = false;
          for (let j = 0; j < faces.length; j += 1) {
            k += 1;
            if (!validFaces(faces[j])) {
              rec.problems.push(`entry ${e.pos}: a die of ${JSON.stringify(faces[j])} faces`);
              stop = true;
              break;
            }
            const got = stream.die(faces[j]);
            if (got !== nats[j]) {
              rec.problems.push(`entry ${e.pos}: die ${k} of ${id}: the seed gives ${got}, the ledger says ${nats[j]} (the die was changed or re-rolled)`);
            }
          }
          if (stop) break;
        }
        if (!rec.problems.length) out.counts.rederived += rec.n_dice;
      }
    }
    if (rec.problems.length) rec.status = 'failed';
    out.problems.push(...rec.problems);
  }
  return out;
}

// ---- a shared document -------------------------------------------------

/** The roll entries of a combat must be the report's dice, one for one. */
function crossCheck(report, entries) {
  const problems = [];
  const mine = entries.filter((e) => e.kind === 'roll' && e.combat_id === report.id);
  const rolls = Array.isArray(report.rolls) ? report.rolls : [];
  const bySeq = new Map(mine.map((e) => [e.seq, e]));
  for (const r of rolls) {
    const e = bySeq.get(r.seq);
    if (!e) {
      problems.push(`die ${r.seq}${r.unit ? ` (${r.unit})` : ''} of the report is not in the ledger`);
      continue;
    }
    // A value the report leaves out or nulls (fog of war withholds a
    // unit's name from a viewer) is not compared: the ledger is not fogged.
    for (const [k, name] of [['natural', 'natural'], ['faces', 'faces'], ['unit', 'unit'], ['unit_id', 'unit id'], ['side', 'side'], ['reason', 'reason'], ['modified', 'modified']]) {
      if (r[k] !== undefined && r[k] !== null && e[k] !== r[k]) {
        problems.push(`die ${r.seq}${r.unit ? ` (${r.unit})` : ''}: the report says ${name} ${JSON.stringify(r[k])}, ledger entry ${e.pos} says ${JSON.stringify(e[k])}`);
      }
    }
  }
  if (mine.length !== rolls.length) {
    problems.push(`the ledger holds ${mine.length} dice of this combat, the report ${rolls.length}`);
  }
  const d = report.dice || {};
  for (const e of mine) {
    if ((e.commitment ?? null) !== (d.commitment ?? null) || (e.client_seed ?? null) !== (d.client_seed ?? null) || e.source !== d.source) {
      problems.push(`ledger entry ${e.pos}: its source, commitment or client seed is not the report's`);
      break;
    }
  }
  return problems;
}

function seedsOf(doc) {
  const seeds = {};
  const l = doc.ledger || {};
  if (Array.isArray(l.seeds)) {
    for (const s of l.seeds) if (s && s.record) seeds[s.record] = s;
  }
  const r = doc.report;
  if (r && r.id && r.dice && (doc.kind === 'combat' || doc.kind === 'battle')) seeds[r.id] = r.dice;
  return seeds;
}

/**
 * Check a document of GET /v1/shared/{secret}: {kind: 'combat' | 'battle'
 * | 'campaign', campaign: {id, name}, report, ledger: {entries, head,
 * after}} (after only in a part, ?ledger=own).
 *
 * Answers {verdict, dice, ledger, problems}:
 *   verdict  'verified' when everything that can be checked holds,
 *            'failed' when anything does not, 'unverifiable' when nothing
 *            could be checked (entered dice, a seed not yet revealed, no
 *            ledger): a record, not a proof
 *   dice     verifyCombat's answer for a combat (null otherwise); for a
 *            battle, {status, commitment} of its seed
 *   ledger   null when the document holds no entries, else {chain:
 *            verifyChain's answer, after (0, or the position a part of
 *            ?ledger=own starts after), upTo, seal: {pos, expected, computed,
 *            ok} | null, head: {expected, computed, ok} | null, cross:
 *            [problems], dice: verifyLedgerDice's answer}
 *   problems every problem found, the first the most telling
 */
export function verifyShared(doc) {
  const out = { verdict: 'unverifiable', dice: null, ledger: null, problems: [] };
  if (!doc || typeof doc !== 'object' || !doc.report || typeof doc.report !== 'object') {
    out.verdict = 'failed';
    out.problems.push('the shared document holds no report');
    return out;
  }
  const { kind, report } = doc;
  let checked = 0;

  if (kind === 'combat') {
    out.dice = verifyCombat(report);
    out.problems.push(...out.dice.problems);
    if (out.dice.status === 'verified' || out.dice.status === 'failed') checked += 1;
    if (out.dice.status === 'invalid') checked += 1;
  } else if (kind === 'battle' && report.dice) {
    const d = report.dice;
    out.dice = { status: d.source === 'entered' ? 'entered' : d.server_seed ? 'seed' : 'pending', commitment: null, dice: [], problems: [] };
    if (d.source === 'seeded' && d.server_seed) {
      const sp = seedProblems(d);
      out.dice.commitment = sp.commitment;
      out.dice.problems = sp.problems;
      out.problems.push(...sp.problems);
      out.dice.status = sp.problems.length ? 'failed' : 'verified';
      checked += 1;
    }
  }

  const entries = doc.ledger && Array.isArray(doc.ledger.entries) ? doc.ledger.entries : null;
  if (entries && entries.length) {
    const campaignId = (doc.campaign && doc.campaign.id) || report.campaign_id || (report.campaign && report.campaign.id);
    // A part (?ledger=own) starts after entry `after`, from the hash it names.
    const after = Number.isInteger(doc.ledger.after) && doc.ledger.after > 0 ? doc.ledger.after : 0;
    const L = { chain: verifyChain(entries, campaignId, after), after, upTo: after + entries.length, seal: null, head: null, cross: [], dice: null };
    const walked = entries.slice(0, L.chain.walked - after);
    // A part of a combat or a battle must start at the record's own
    // first entry: one that starts later leaves some of its dice out.
    if (after > 0 && (kind === 'combat' || kind === 'battle')) {
      const e = entries[0];
      const own = e && e.kind === (kind === 'combat' ? 'roll' : 'action') && recordOf(e) === report.id && e.seq === 1;
      if (!own) {
        const what = kind === 'combat' ? 'die' : 'action';
        out.problems.push(`the part of the ledger does not start at the ${kind}'s first ${what}: entry ${after + 1} is ${e ? `${recordOf(e)}'s ${e.kind} ${e.seq}` : 'missing'}`);
      }
    }
    out.ledger = L;
    checked += 1;
    out.problems.push(...L.chain.problems);
    if (kind === 'combat' && report.ledger && Number.isInteger(report.ledger.last_pos)) {
      const pos = report.ledger.last_pos;
      const e = pos > after ? entries[pos - 1 - after] : null;
      const rolls = Array.isArray(report.rolls) ? report.rolls : [];
      const lastSeq = rolls.reduce((m, r, i) => Math.max(m, Number.isInteger(r.seq) ? r.seq : i + 1), 0);
      // The seal is the combat's own last die, not any entry holding that hash.
      const mine = e && e.kind === 'roll' && e.combat_id === report.id && e.seq === lastSeq;
      const computed = L.chain.walked >= pos && e ? e.hash : null;
      L.seal = { pos, expected: report.ledger.hash, computed, ok: Boolean(mine) && computed !== null && computed === report.ledger.hash };
      if (!L.seal.ok) {
        out.problems.push(computed === null
          ? `the combat's seal, entry ${pos}, could not be reached along the chain`
          : !mine
            ? `the combat's seal, entry ${pos}, is not its last die`
            : `the combat's seal does not hold: entry ${pos} hashes to ${computed}, the report says ${report.ledger.hash}`);
      }
      L.cross = crossCheck(report, walked);
      out.problems.push(...L.cross);
    } else if (kind === 'battle' && Number.isInteger(report.n_actions)) {
      // Every action of the battle is an entry of the chain up to its last.
      const n = walked.filter((e) => e.kind === 'action' && e.battle_id === report.id).length;
      if (L.chain.ok && n !== report.n_actions) out.problems.push(`the ledger holds ${n} of the battle's actions, the report ${report.n_actions}`);
    } else if (kind === 'combat' && Array.isArray(report.rolls) && report.rolls.length && !report.battle_id) {
      // Dice with no place in the ledger: nothing ties them to the chain.
      out.problems.push(`the report names no place in the ledger for its ${report.rolls.length} dice`);
    }
    const head = doc.ledger.head;
    const wantHead = kind === 'campaign' ? head ?? (report.campaign && report.campaign.ledger && report.campaign.ledger.head) : null;
    if (wantHead && L.chain.ok) {
      // The head names the last entry: only a whole chain reaches it.
      const ok = L.chain.lastHash === wantHead;
      L.head = { expected: wantHead, computed: L.chain.lastHash, ok };
      if (!ok) out.problems.push(`the chain ends at ${L.chain.lastHash}, but the ledger's head is ${wantHead} (entries are missing at the end, or the head was changed)`);
    }
    L.dice = verifyLedgerDice(walked, seedsOf(doc), after > 0);
    out.problems.push(...L.dice.problems);
  }

  if (out.problems.length) out.verdict = 'failed';
  else if (checked > 0) out.verdict = 'verified';
  return out;
}

// ---- the worked vector -------------------------------------------------

/**
 * verifier/README.md, "Worked test vector": this code must reproduce it
 * before its word on a report is worth anything. Answers [{name, ok,
 * expected, got}], one per value checked.
 */
export function selfTest() {
  const seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
  const checks = [];
  const add = (name, expected, got) => checks.push({ name, expected, got, ok: JSON.stringify(expected) === JSON.stringify(got) });
  try {
    add('commitment of the seed 00…1f', '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd', commitmentOf(seed));
    add('key for "discord:1234567890"', '71bd46f0b1d1696be0402801e4045f221fe094d393fcb9d9af1cfc978113012e', bytesToHex(rngKey(seed, 'discord:1234567890')));
    const w = new DiceStream(seed, 'discord:1234567890');
    add('the first eight words', [2580846204, 1979112719, 668335318, 1064303372, 1810554154, 854483671, 3222192055, 2251343165], Array.from({ length: 8 }, () => w.word()));
    const d6 = new DiceStream(seed, 'discord:1234567890');
    add('six d6 from a fresh stream', [1, 6, 5, 3, 5, 2], Array.from({ length: 6 }, () => d6.die(6)));
    const mixed = new DiceStream(seed, 'discord:1234567890');
    add('a d6, a d20, a d1000 and a d6 from one stream', [1, 20, 319, 3], [6, 20, 1000, 6].map((f) => mixed.die(f)));
    const rej = 'discord:1234569811';
    add('key for "discord:1234569811"', '623666e4db213ae7001968509abed80a23524b331cccc0c34a6030fbbc9c98bb', bytesToHex(rngKey(seed, rej)));
    const r997 = new DiceStream(seed, rej);
    add('two d997: word 0 rejected, then 990 and 307', [990, 307, [0]], [r997.die(997), r997.die(997), r997.rejected]);
    add('a d1000 keeps word 0: 802', 802, new DiceStream(seed, rej).die(1000));
    add('a d6 keeps word 0: 2', 2, new DiceStream(seed, rej).die(6));
  } catch (e) {
    checks.push({ name: 'the self-test ran', expected: 'no error', got: String(e && e.message), ok: false });
  }
  return checks;
}
