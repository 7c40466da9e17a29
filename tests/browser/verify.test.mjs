// verify.test.mjs: console/js/verify.js, the in-browser check of the dice
// and the ledger, run in node with node's own test runner (node --test; no
// dependency: run.sh runs it before installing anything).
//
// The references are independent of verify.js and of the vendored noble
// code it uses: the worked vector of verifier/README.md, the golden stream
// of tests/vectors/rng-v1-golden.json (made with node's crypto by
// gen_rng_golden.js), the two ledger entries printed in docs/ledger.md, and
// node's crypto for the chains built here.  The vendored files are checked
// against the SHA-256 table of console/vendor/README.md.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, createCipheriv } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  DiceStream, commitmentOf, rngKey, bytesToHex, selfTest, verifyCombat,
  entryContent, entryHash, verifyChain, verifyLedgerDice, verifyShared, ZERO_HASH,
} from '../../console/js/verify.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const golden = JSON.parse(readFileSync(path.join(ROOT, 'tests/vectors/rng-v1-golden.json'), 'utf8'));

// --- rng v1 against the worked vector and the golden stream.

test('the self-test reproduces the worked vector of verifier/README.md', () => {
  const checks = selfTest();
  assert.ok(checks.length >= 9);
  for (const c of checks) assert.ok(c.ok, `${c.name}: expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(c.got)}`);
});

test('the worked vector, value by value', () => {
  const seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
  assert.equal(commitmentOf(seed), '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd');
  assert.equal(bytesToHex(rngKey(seed, 'discord:1234567890')), '71bd46f0b1d1696be0402801e4045f221fe094d393fcb9d9af1cfc978113012e');
  // One stream: a d6, a d20, a d1000 and a d6 give 1, 20, 319, 3.
  const s = new DiceStream(seed, 'discord:1234567890');
  assert.deepEqual([6, 20, 1000, 6].map((f) => s.die(f)), [1, 20, 319, 3]);
  // The rejected word: a d997 skips word 0 (4294966801) and shows 990.
  const r = new DiceStream(seed, 'discord:1234569811');
  assert.equal(r.word(), 4294966801);
  const r2 = new DiceStream(seed, 'discord:1234569811');
  assert.equal(r2.die(997), 990);
  assert.deepEqual(r2.rejected, [0]);
  assert.equal(r2.die(997), 307);
});

for (const c of golden.cases) {
  test(`golden case ${c.name}`, () => {
    // client_seed_hex is authoritative (one case is bytes that are not UTF-8).
    const client = new Uint8Array(Buffer.from(c.client_seed_hex, 'hex'));
    if (typeof c.client_seed === 'string' && Buffer.from(c.client_seed, 'utf8').toString('hex') === c.client_seed_hex) {
      assert.equal(bytesToHex(rngKey(c.seed_hex, c.client_seed)), c.key_hex, 'the client seed as a string');
    }
    assert.equal(commitmentOf(c.seed_hex), c.commitment);
    assert.equal(bytesToHex(rngKey(c.seed_hex, client)), c.key_hex);
    const w = new DiceStream(c.seed_hex, client);
    assert.deepEqual(c.words.map(() => w.word()), c.words);
    for (const d of c.dice) {
      const s = new DiceStream(c.seed_hex, client);
      assert.deepEqual(Array.from({ length: d.count }, () => s.die(d.faces)), d.values, `d${d.faces}`);
      assert.equal(s.nWords, d.n_words, `d${d.faces}: words taken`);
      assert.deepEqual(s.rejected, d.rejected_word_indices, `d${d.faces}: words rejected`);
    }
    const m = new DiceStream(c.seed_hex, client);
    assert.deepEqual(c.mixed.faces.map((f) => m.die(f)), c.mixed.values, 'mixed');
    assert.equal(m.nWords, c.mixed.n_words);
    assert.deepEqual(m.rejected, c.mixed.rejected_word_indices);
  });
}

test('a stream crosses ChaCha20 blocks as node\'s chacha20 does', () => {
  const seed = 'ff'.repeat(32);
  const key = createHmac('sha256', Buffer.from(seed, 'hex')).update('blocks').digest();
  const x = createCipheriv('chacha20', key, Buffer.alloc(16));
  const ref = x.update(Buffer.alloc(4 * 100));
  const s = new DiceStream(seed, 'blocks');
  for (let i = 0; i < 100; i += 1) assert.equal(s.word(), ref.readUInt32LE(4 * i), `word ${i}`);
});

// --- a combat report.

function report(seedHex, client, faces) {
  const s = new DiceStream(seedHex, client);
  return {
    id: 'cbt_test',
    campaign_id: 'cmp_test',
    dice: { source: 'seeded', rng: 'v1', commitment: commitmentOf(seedHex), server_seed: seedHex, client_seed: client, verifiable: true },
    rolls: faces.map((f, i) => ({ seq: i + 1, side: i % 2 ? 'south' : 'north', unit: `U${i + 1}`, unit_id: `unit_${i + 1}`, reason: 'scrud.front', faces: f, natural: s.die(f), modified: 0, source: 'seeded', rng: 'v1' })),
  };
}

test('verifyCombat: the worked vector\'s combat is verified', () => {
  const seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
  const r = report(seed, 'discord:1234567890', [6, 20, 1000, 6]);
  assert.deepEqual(r.rolls.map((x) => x.natural), [1, 20, 319, 3]);
  const v = verifyCombat(r);
  assert.equal(v.status, 'verified');
  assert.equal(v.commitment.ok, true);
  assert.deepEqual(v.dice.map((d) => d.ok), [true, true, true, true]);
  assert.deepEqual(v.problems, []);
});

test('verifyCombat: a changed die fails and is named', () => {
  const seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
  const r = report(seed, 'discord:1234567890', [6, 20, 1000, 6]);
  r.rolls[2].natural = 320;
  const v = verifyCombat(r);
  assert.equal(v.status, 'failed');
  assert.deepEqual(v.dice.map((d) => d.ok), [true, true, false, true]);
  assert.match(v.problems[0], /die 3 \(U3\), d1000: the seed gives 319, the report says 320/);
});

test('verifyCombat: a changed seed fails its commitment', () => {
  const seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
  const r = report(seed, 'x', [6, 6]);
  r.dice.server_seed = `${seed.slice(0, 63)}0`;
  const v = verifyCombat(r);
  assert.equal(v.status, 'failed');
  assert.equal(v.commitment.ok, false);
  assert.match(v.problems[0], /does not match its commitment/);
});

test('verifyCombat: entered dice, a secret seed, missing dice, bad input', () => {
  assert.equal(verifyCombat({ dice: { source: 'entered' }, rolls: [{ seq: 1, faces: 6, natural: 3 }] }).status, 'entered');
  assert.equal(verifyCombat({ dice: { source: 'seeded', server_seed: null }, rolls: [] }).status, 'pending');
  assert.equal(verifyCombat({}).status, 'invalid');
  assert.equal(verifyCombat(null).status, 'invalid');
  const seed = 'ab'.repeat(32);
  const r = report(seed, null, [6, 6, 6]);
  r.rolls.splice(1, 1);
  const v = verifyCombat(r);
  assert.equal(v.status, 'failed');
  assert.match(v.problems.join('\n'), /not numbered 1, 2, 3/);
  const odd = report(seed, null, [6]);
  odd.rolls[0].faces = 1;
  assert.equal(verifyCombat(odd).status, 'failed');
  const bad = report(seed, null, [6]);
  bad.dice.server_seed = 'zz';
  assert.equal(verifyCombat(bad).status, 'failed');
});

// --- the ledger: docs/ledger.md's printed entries, and chains built here
// with node's crypto.

const DOC_CAMPAIGN = 'cmp_01a20375c656ef6bae66ed82';
const DOC_ENTRY_1 = {
  pos: 1, kind: 'roll', at: '2026-11-22T13:33:03.435Z', combat_id: 'cbt_01a20375d44a3f03e381cfe5', seq: 1,
  side: 'russian', unit_id: 'unit_01a20375c6f81f34b7c5cf4b', unit: 'R1', reason: 'scrud.front', faces: 6,
  natural: 2, modified: 1, source: 'seeded', rng: 'v1',
  commitment: '70b0f7ee11d45bf37f2910b413b4b9cbe4fe12f5e9527e911940027edde464a4', client_seed: 'day-1',
  prev_hash: ZERO_HASH, hash: '19db4f393c4763a64a1f50160572f874459f62fad0edcc9ac1581d4b9bf6cfce',
};
const DOC_ENTRY_10 = {
  pos: 10, kind: 'action', at: '2026-11-22T13:33:23.013Z', battle_id: 'bat_01a2037620309743add0aab5', seq: 1,
  action: 'roll', faces: [6, 6], naturals: [4, 5], detail: null, source: 'seeded', rng: 'v1',
  commitment: '7d01faf5d4c7a613d221b775926fba33a4972f0fa5f7c5720e5d85442fbcd04d', client_seed: null,
  prev_hash: '01042a51a00065baf55eacce746af15718dedd2f49a7d2cfe1efe2536a4820f1',
  hash: 'e1270dd37dcba8c7b80bb79bbde60823b3eb7d2055c08c5bf5a39087507032fe',
};

test('the entries printed in docs/ledger.md hash as printed', () => {
  for (const e of [DOC_ENTRY_1, DOC_ENTRY_10]) {
    const c = entryContent(e, DOC_CAMPAIGN);
    assert.ok(c.bytes, `entry ${e.pos}: ${c.missing}`);
    assert.equal(entryHash(e.prev_hash, c.bytes), e.hash, `entry ${e.pos}`);
  }
});

test('the canonical content is netstrings of UTF-8 bytes', () => {
  const e = { ...DOC_ENTRY_1, unit: 'Жан', modified: -1, client_seed: null };
  const text = Buffer.from(entryContent(e, 'cmp_x').bytes).toString('utf8');
  assert.ok(text.startsWith('16:umpire-ledger-v1,4:roll,5:cmp_x,1:1,24:2026-11-22T13:33:03.435Z,'));
  assert.ok(text.includes('6:Жан,'), 'a name counts its bytes, not its characters');
  assert.ok(text.includes(',2:-1,'));
  assert.ok(text.endsWith(',0:,'), 'null is the empty text');
  assert.equal(entryContent({ ...DOC_ENTRY_1, seq: '1' }, 'c').missing, 'seq');
});

// A reference chain, hashed with node's crypto from the same recipe.
function ns(s) {
  const b = Buffer.from(String(s), 'utf8');
  return Buffer.concat([Buffer.from(`${b.length}:`), b, Buffer.from(',')]);
}
function refHash(prev, e, campaign) {
  const fields = e.kind === 'roll'
    ? ['at', 'combat_id', 'seq', 'side', 'unit_id', 'unit', 'reason', 'faces', 'natural', 'modified', 'source', 'rng', 'commitment', 'client_seed']
    : ['at', 'battle_id', 'seq', 'action', 'faces', 'naturals', 'detail', 'source', 'rng', 'commitment', 'client_seed'];
  const parts = [Buffer.from(prev, 'hex'), ns('umpire-ledger-v1'), ns(e.kind), ns(campaign), ns(e.pos)];
  for (const f of fields) parts.push(ns(e[f] === null ? '' : Array.isArray(e[f]) ? e[f].join(',') : e[f]));
  return createHash('sha256').update(Buffer.concat(parts)).digest('hex');
}
function chain(campaign, combat) {
  const entries = [];
  let prev = ZERO_HASH;
  for (const r of combat.rolls) {
    const e = { pos: entries.length + 1, kind: 'roll', at: '2026-01-01T00:00:00.000Z', combat_id: combat.id, ...r, commitment: combat.dice.commitment, client_seed: combat.dice.client_seed, prev_hash: prev };
    e.hash = refHash(prev, e, campaign);
    prev = e.hash;
    entries.push(e);
  }
  const seed = 'cd'.repeat(32);
  const s = new DiceStream(seed, null);
  const nat = [s.die(6), s.die(6)];
  const a = { pos: entries.length + 1, kind: 'action', at: '2026-01-01T00:00:01.000Z', battle_id: 'bat_1', seq: 1, action: 'roll', faces: [6, 6], naturals: nat, detail: '{"combat":0}', source: 'seeded', rng: 'v1', commitment: commitmentOf(seed), client_seed: null, prev_hash: prev };
  a.hash = refHash(prev, a, campaign);
  entries.push(a);
  return { entries, battleSeed: seed };
}

test('verifyChain walks a chain built with node\'s crypto, and finds each break', () => {
  const combat = report('12'.repeat(32), 'turn 3', [6, 6, 20]);
  const { entries } = chain('cmp_test', combat);
  const ok = verifyChain(entries, 'cmp_test');
  assert.equal(ok.ok, true, ok.problems.join('\n'));
  assert.equal(ok.walked, 4);
  assert.equal(ok.lastHash, entries[3].hash);

  const altered = structuredClone(entries);
  altered[1].natural = altered[1].natural === 1 ? 2 : 1;
  const v = verifyChain(altered, 'cmp_test');
  assert.equal(v.ok, false);
  assert.equal(v.walked, 1);
  assert.match(v.problems[0], /entry 2: its hash does not match its content/);

  const dropped = structuredClone(entries);
  dropped.splice(1, 1);
  assert.match(verifyChain(dropped, 'cmp_test').problems[0], /entry 2 is missing: entry 3 comes next/);

  const relinked = structuredClone(entries);
  relinked[2].prev_hash = ZERO_HASH;
  assert.match(verifyChain(relinked, 'cmp_test').problems[0], /entry 3: prev_hash does not match entry 2/);

  assert.equal(verifyChain(entries, 'cmp_other').ok, false, 'the campaign id is part of every entry');
});

test('verifyLedgerDice re-derives each record, or says it is pending', () => {
  const combat = report('34'.repeat(32), null, [6, 6]);
  const { entries, battleSeed } = chain('cmp_test', combat);
  const seeds = {
    [combat.id]: combat.dice,
    bat_1: { source: 'seeded', commitment: commitmentOf(battleSeed), server_seed: null, client_seed: null },
  };
  let v = verifyLedgerDice(entries, seeds);
  assert.deepEqual(v.problems, []);
  assert.deepEqual(v.counts, { rederived: 2, pending: 2, entered: 0, unknown: 0, earlier: 0 });
  seeds.bat_1.server_seed = battleSeed;
  v = verifyLedgerDice(entries, seeds);
  assert.deepEqual(v.counts, { rederived: 4, pending: 0, entered: 0, unknown: 0, earlier: 0 });
  const changed = structuredClone(entries);
  changed[2].naturals[1] = changed[2].naturals[1] === 6 ? 5 : 6;
  v = verifyLedgerDice(changed, seeds);
  assert.match(v.problems[0], /entry 3: die 2 of bat_1: the seed gives \d, the ledger says \d/);
});

test('verifyShared: a combat share, as served and tampered', () => {
  const combat = report('56'.repeat(32), 'share', [6, 6, 6]);
  const { entries } = chain('cmp_test', combat);
  combat.ledger = { first_pos: 1, last_pos: 3, hash: entries[2].hash };
  const doc = { kind: 'combat', campaign: { id: 'cmp_test', name: 'T' }, report: combat, ledger: { entries: entries.slice(0, 3), head: entries[3].hash } };
  const good = verifyShared(doc);
  assert.equal(good.verdict, 'verified', good.problems.join('\n'));
  assert.equal(good.ledger.seal.ok, true);

  const die = structuredClone(doc);
  die.report.rolls[1].natural = die.report.rolls[1].natural === 6 ? 5 : 6;
  const v = verifyShared(die);
  assert.equal(v.verdict, 'failed');
  assert.match(v.problems.join('\n'), /die 2 \(U2\), d6: the seed gives \d, the report says \d/);
  assert.match(v.problems.join('\n'), /the report says natural \d, ledger entry 2 says \d/);

  // Fog of war nulls a hidden unit's name in the report, not in the ledger.
  const fogged = structuredClone(doc);
  for (const r of fogged.report.rolls) Object.assign(r, { unit: null, unit_id: null });
  assert.equal(verifyShared(fogged).verdict, 'verified', 'a withheld name is no disagreement');

  const seal = structuredClone(doc);
  seal.report.ledger.hash = ZERO_HASH;
  assert.match(verifyShared(seal).problems.join('\n'), /the combat's seal does not hold/);
  // A seal on an entry that is not the combat's last die, though it holds the hash.
  const other = structuredClone(doc);
  other.report.ledger = { first_pos: 1, last_pos: 2, hash: entries[1].hash };
  assert.match(verifyShared(other).problems.join('\n'), /the combat's seal, entry 2, is not its last die/);
  // Dice with no place in the ledger are no verified combat.
  const unplaced = structuredClone(doc);
  delete unplaced.report.ledger;
  assert.match(verifyShared(unplaced).problems.join('\n'), /names no place in the ledger for its 3 dice/);

  const ledger = structuredClone(doc);
  ledger.ledger.entries[0].unit = 'Someone else';
  const lv = verifyShared(ledger);
  assert.equal(lv.verdict, 'failed');
  assert.match(lv.problems[0], /entry 1: its hash does not match/);
});

test('verifyShared: a campaign share checks the chain up to its head', () => {
  const combat = report('78'.repeat(32), null, [6]);
  const { entries } = chain('cmp_test', combat);
  const doc = { kind: 'campaign', campaign: { id: 'cmp_test' }, report: { campaign: { id: 'cmp_test' } }, ledger: { entries, head: entries[entries.length - 1].hash } };
  assert.equal(verifyShared(doc).verdict, 'verified');
  const short = structuredClone(doc);
  short.ledger.entries.pop();
  assert.match(verifyShared(short).problems.join('\n'), /the chain ends at .*, but the ledger's head is/);
  assert.equal(verifyShared({ kind: 'campaign', report: {} }).verdict, 'unverifiable');
  assert.equal(verifyShared({}).verdict, 'failed');
});

test('verifyChain walks a part from the hash its first entry names, and finds each break', () => {
  const combat = report('9a'.repeat(32), 'part', [6, 6, 20]);
  const { entries } = chain('cmp_test', combat);
  const part = entries.slice(2);
  const ok = verifyChain(part, 'cmp_test', 2);
  assert.equal(ok.ok, true, ok.problems.join('\n'));
  assert.equal(ok.walked, 4);
  assert.equal(ok.startHash, entries[1].hash);
  assert.equal(ok.lastHash, entries[3].hash);
  // Read as from entry 1, the part does not hold.
  assert.match(verifyChain(part, 'cmp_test').problems[0], /entry 1 is out of order|entry 1 is missing/);
  // Its positions must follow after.
  assert.match(verifyChain(part, 'cmp_test', 1).problems[0], /entry 2 is missing: entry 3 comes next/);
  const altered = structuredClone(part);
  altered[0].natural = altered[0].natural === 1 ? 2 : 1;
  const v = verifyChain(altered, 'cmp_test', 2);
  assert.equal(v.ok, false);
  assert.equal(v.walked, 2, 'nothing of the part holds');
  assert.match(v.problems[0], /entry 3: its hash does not match its content/);
  const unnamed = structuredClone(part);
  unnamed[0].prev_hash = 'zz';
  assert.match(verifyChain(unnamed, 'cmp_test', 2).problems[0], /entry 3, the part's first, names no previous hash/);
});

test('verifyShared: a part of ?ledger=own, its records begun earlier left alone', () => {
  const combat = report('bc'.repeat(32), 'own', [6, 6, 6]);
  const { entries, battleSeed } = chain('cmp_test', combat);
  // The part after entry 1: the combat's dice 2 and 3 (begun before it) and the battle's action.
  const battle = { id: 'bat_1', dice: { source: 'seeded', commitment: commitmentOf(battleSeed), server_seed: battleSeed, client_seed: null } };
  const doc = { kind: 'battle', campaign: { id: 'cmp_test' }, report: battle, ledger: { length: 4, after: 3, head: entries[3].hash, entries: entries.slice(3), seeds: [] } };
  let v = verifyShared(doc);
  assert.equal(v.verdict, 'verified', v.problems.join('\n'));
  assert.equal(v.ledger.after, 3);
  // Its actions, all in the ledger: one here; a report of two fails.
  assert.equal(verifyShared({ ...doc, report: { ...battle, n_actions: 1 } }).verdict, 'verified');
  assert.match(verifyShared({ ...doc, report: { ...battle, n_actions: 2 } }).problems.join('\n'), /the ledger holds 1 of the battle's actions, the report 2/);
  assert.equal(v.ledger.chain.walked, 4);
  assert.equal(v.ledger.dice.counts.rederived, 2, 'the battle\'s two dice');
  // In a part after entry 1, the combat has begun before it: its dice
  // are left alone, the battle's re-derived.
  v = verifyLedgerDice(entries.slice(1), { bat_1: battle.dice }, true);
  assert.deepEqual(v.problems, []);
  assert.deepEqual(v.counts, { rederived: 2, pending: 0, entered: 0, unknown: 0, earlier: 2 });
  // Read as from entry 1 (no after), the same entries fail.
  const whole = structuredClone(doc);
  whole.ledger.entries = entries.slice(1);
  assert.equal(verifyShared(whole).verdict, 'failed');
  // A battle's part must start at its first action: one that starts at
  // the combat's dice before it, leaving the battle's action out, fails.
  const late = structuredClone(doc);
  late.ledger.after = 2;
  late.ledger.entries = entries.slice(2, 3);
  late.ledger.length = 3;
  assert.match(verifyShared(late).problems.join('\n'), /does not start at the battle's first action: entry 3 is .*roll 3/);
  // A record begun before the part is still held to running on by seq.
  const gap = entries.slice(1, 3).map((e) => structuredClone(e));
  gap[1].seq = 4;
  assert.match(verifyLedgerDice(gap, {}, true).problems.join('\n'), /do not run 2, 3, 4… \(seq 4 where 3 was due\)/);
  assert.equal(verifyLedgerDice(entries.slice(1, 3), {}, true).counts.earlier, 2);
  // Read as a whole answer (not a part), a record starting at seq 2 fails.
  assert.match(verifyLedgerDice(entries.slice(1, 3), {}).problems.join('\n'), /do not run 1, 2, 3… \(seq 2 where 1 was due\)/);
  // A combat's part: its seal and its dice found at their positions.
  const cdoc = { kind: 'combat', campaign: { id: 'cmp_test' }, report: { ...combat, ledger: { first_pos: 1, last_pos: 3, hash: entries[2].hash } }, ledger: { length: 3, after: 0, head: entries[2].hash, entries: entries.slice(0, 3), seeds: [] } };
  assert.equal(verifyShared(cdoc).verdict, 'verified');
  const later = structuredClone(combat);
  later.ledger = { first_pos: 1, last_pos: 3, hash: entries[2].hash };
  const tampered = { ...cdoc, report: later, ledger: { ...cdoc.ledger, after: 1, entries: entries.slice(1, 3) } };
  v = verifyShared(tampered);
  assert.equal(v.ledger.seal.ok, true, 'the seal is entry 3 of the part');
  assert.match(v.problems.join('\n'), /die 1 .*of the report is not in the ledger/, 'a part that leaves out a die of its own combat fails');
  assert.match(v.problems.join('\n'), /does not start at the combat's first die: entry 2 is .*roll 2/);
});

// --- the vendored files are the published ones.

test('console/vendor holds the files of console/vendor/README.md, unchanged', () => {
  const readme = readFileSync(path.join(ROOT, 'console/vendor/README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\| `([\w./-]+)` \| `([0-9a-f]{64})` \|$/gm)];
  assert.ok(rows.length >= 11, 'the README lists the files and their SHA-256');
  for (const [, file, sum] of rows) {
    const got = createHash('sha256').update(readFileSync(path.join(ROOT, 'console/vendor', file))).digest('hex');
    assert.equal(got, sum, file);
  }
});
