#!/usr/bin/env node
/*
 * gen_rng_golden.js: derives tests/vectors/rng-v1-golden.json, the golden
 * vectors of the "rng v1" dice stream (../shared/rules/dice.md, section
 * 'The stream ("rng v1")'), without using any of the C code.
 *
 *   commitment = hex SHA-256(server seed)
 *   key        = HMAC-SHA256(key = server seed, message = client seed bytes)
 *   stream     = ChaCha20-IETF keystream under key, nonce of zeros, block
 *                counter from 0, read as little-endian 32-bit words
 *   die(F)     = next word w with w < 2^32 - (2^32 mod F), as (w mod F) + 1
 *
 * Only node's built-in crypto (OpenSSL) is used.  OpenSSL's "chacha20" takes
 * a 16-byte IV: the 32-bit little-endian block counter, then the 96-bit
 * nonce.  The script checks that against RFC 8439 before it trusts it.
 *
 * Usage: node tests/vectors/gen_rng_golden.js [output.json]
 * The output is deterministic: running it twice gives the same bytes.
 */
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const TWO_32 = 2 ** 32;
const N_WORDS = 40;          /* raw words recorded per ordinary case */
const N_DICE = 40;           /* dice per single-faces sequence */
const REJECT_WINDOW = 64;    /* a rejection must occur in the first 64 words */
const REJECT_SEARCH_MAX = 5000000;

function fail(msg) {
    process.stderr.write('gen_rng_golden: ' + msg + '\n');
    process.exit(1);
}

function check_eq(what, got, want) {
    if (got !== want)
        fail(what + ': got ' + got + ', want ' + want);
}

/* n bytes of ChaCha20-IETF keystream from block counter, under key/nonce. */
function chacha20_keystream(key, nonce, counter, n) {
    const iv = Buffer.alloc(16);
    iv.writeUInt32LE(counter, 0);
    nonce.copy(iv, 4);
    const c = crypto.createCipheriv('chacha20', key, iv);
    return Buffer.concat([c.update(Buffer.alloc(n)), c.final()]);
}

function hmac_sha256(key, msg) {
    return crypto.createHmac('sha256', key).update(msg).digest();
}

function sha256(data) {
    return crypto.createHash('sha256').update(data).digest();
}

/* Known-answer tests, so a wrong IV layout or cipher fails loudly. */
function self_test() {
    const zero32 = Buffer.alloc(32), zero12 = Buffer.alloc(12);
    const ks = (key, nonce, counter, n) =>
        chacha20_keystream(key, nonce, counter, n).toString('hex');

    /* RFC 8439 A.1, test vectors #1 and #2 (counter 0 and 1, zero key). */
    check_eq('RFC 8439 A.1 #1', ks(zero32, zero12, 0, 64),
             '76b8e0ada0f13d90405d6ae55386bd28' +
             'bdd219b8a08ded1aa836efcc8b770dc7' +
             'da41597c5157488d7724e03fb8d84a37' +
             '6a43b8f41518a11cc387b669b2ee6586');
    check_eq('RFC 8439 A.1 #2', ks(zero32, zero12, 1, 64),
             '9f07e7be5551387a98ba977c732d080d' +
             'cb0f29a048e3656912c6533e32ee7aed' +
             '29b721769ce64e43d57133b074d839d5' +
             '31ed1f28510afb45ace10a1f4b794d6f');
    /* The stream continues into block 1 on its own. */
    check_eq('block counter carries over',
             ks(zero32, zero12, 0, 128).slice(128),
             ks(zero32, zero12, 1, 64));
    /* RFC 8439 2.3.2: key 00..1f, nonce 00000009 0000004a 00000000, counter 1
     * (checks the nonce sits after the counter in the IV). */
    check_eq('RFC 8439 2.3.2',
             ks(seq_bytes(0, 32),
                Buffer.from('000000090000004a00000000', 'hex'), 1, 64),
             '10f1e7e4d13b5915500fdd1fa32071c4' +
             'c7d1f4c733c068030422aa9ac3d46c4e' +
             'd2826446079faa0914c2d705d98b02a2' +
             'b5129cd1de164eb9cbd083e8a2503c4e');
    /* RFC 4231 test case 2. */
    check_eq('RFC 4231 #2',
             hmac_sha256(Buffer.from('Jefe'),
                         Buffer.from('what do ya want for nothing?'))
                 .toString('hex'),
             '5bdcc146bf60754e6a042426089575c7' +
             '5a003f089d2739839dec58b964ec3843');
}

function seq_bytes(start, n) {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++)
        b[i] = (start + i) & 0xff;
    return b;
}

/* The rng v1 stream as a word reader; counts the words it hands out. */
class Stream {
    constructor(seed, client_seed) {
        this.key = hmac_sha256(seed, client_seed);
        this.cipher = crypto.createCipheriv('chacha20', this.key,
                                            Buffer.alloc(16));
        this.buf = Buffer.alloc(0);
        this.pos = 0;
        this.n_words = 0;
    }

    word() {
        if (this.pos + 4 > this.buf.length) {
            this.buf = this.cipher.update(Buffer.alloc(1024));
            this.pos = 0;
        }
        const w = this.buf.readUInt32LE(this.pos);
        this.pos += 4;
        this.n_words++;
        return w;
    }

    /* A die of faces faces; indices of rejected words go to rejected. */
    die(faces, rejected) {
        const limit = die_limit(faces);
        for (;;) {
            const index = this.n_words;
            const w = this.word();
            if (w < limit)
                return (w % faces) + 1;
            rejected.push(index);
        }
    }
}

function die_limit(faces) {
    if (!Number.isInteger(faces) || faces < 2 || faces > 1000)
        fail('faces out of 2..1000: ' + faces);
    return TWO_32 - (TWO_32 % faces);
}

function words_of(seed, client_seed, n) {
    const s = new Stream(seed, client_seed);
    const out = [];
    for (let i = 0; i < n; i++)
        out.push(s.word());
    return out;
}

/* faces_list consumed in order from one fresh stream. */
function dice_run(seed, client_seed, faces_list) {
    const s = new Stream(seed, client_seed);
    const rejected = [];
    const values = faces_list.map((f) => s.die(f, rejected));
    return {values, n_words: s.n_words, rejected_word_indices: rejected};
}

function single_faces(seed, client_seed, faces, count) {
    const r = dice_run(seed, client_seed, new Array(count).fill(faces));
    return Object.assign({faces, count}, r);
}

const MIXED_FACES = [6, 6, 8, 10, 6, 20, 2, 1000, 3, 12, 6, 100, 4, 997, 6,
                     10, 2, 20, 1000, 6, 7, 6, 999, 8, 6, 3, 10, 6, 20, 2];

/*
 * One case: raw words, N_DICE dice of each usual faces and, for each of
 * extra_faces, REJECT_WINDOW dice (enough to consume any word in the window).
 */
function make_case(name, note, seed, client_seed, extra_faces) {
    const runs = [6, 10, 20, 1000, 3].map((f) => [f, N_DICE])
        .concat((extra_faces || []).map((f) => [f, REJECT_WINDOW]));
    const mixed = dice_run(seed, client_seed, MIXED_FACES);
    return {
        name,
        note,
        seed_hex: seed.toString('hex'),
        client_seed: utf8_or_null(client_seed),
        client_seed_hex: client_seed.toString('hex'),
        commitment: sha256(seed).toString('hex'),
        key_hex: hmac_sha256(seed, client_seed).toString('hex'),
        words: words_of(seed, client_seed, N_WORDS),
        dice: runs.map(([f, n]) => single_faces(seed, client_seed, f, n)),
        mixed: Object.assign({faces: MIXED_FACES.slice()}, mixed),
    };
}

/* The client seed as text if it is valid UTF-8, else null. */
function utf8_or_null(bytes) {
    const text = bytes.toString('utf8');
    return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}

/* The faces in 2..1000 with the largest 2^32 mod F: the likeliest rejection. */
function likeliest_rejecting_faces() {
    let best = 2, best_mod = 0;
    for (let f = 2; f <= 1000; f++) {
        const m = TWO_32 % f;
        if (m > best_mod) {
            best = f;
            best_mod = m;
        }
    }
    return best;
}

/*
 * The first i with seed = SHA-256("reject-search-" + i) (client seed empty)
 * whose first REJECT_WINDOW words include one at or above the limit of faces.
 */
function search_rejection(faces) {
    const limit = die_limit(faces);
    const empty = Buffer.alloc(0);
    for (let i = 0; i < REJECT_SEARCH_MAX; i++) {
        const label = 'reject-search-' + i;
        const seed = sha256(Buffer.from(label, 'utf8'));
        const words = words_of(seed, empty, REJECT_WINDOW);
        const at = words.findIndex((w) => w >= limit);
        if (at >= 0)
            return {label, i, seed, words, at};
    }
    fail('no rejection for d' + faces + ' in ' + REJECT_SEARCH_MAX + ' seeds');
    return null;
}

function make_rejection_case(faces) {
    const found = search_rejection(faces);
    const empty = Buffer.alloc(0);
    const note = 'seed = SHA-256("' + found.label + '"), the first seed ' +
        'of that search whose first ' + REJECT_WINDOW + ' words reject a d' +
        faces + ' (limit ' + die_limit(faces) + ')';
    const c = make_case('rejection-d' + faces, note, found.seed, empty,
                        [faces]);
    c.words = found.words;
    c.rejection = {
        faces,
        limit: die_limit(faces),
        search_label: found.label,
        word_index: found.at,
        word: found.words[found.at],
    };
    /* The d-faces run must consume the rejected word, or it proves nothing. */
    const run = c.dice[c.dice.length - 1];
    if (!run.rejected_word_indices.includes(found.at))
        fail('rejection case does not reach word ' + found.at);
    /*
     * A mixed run whose die number word_index is the rejecting one: the dice
     * before it take one word each, so it meets the rejected word, and the
     * dice after it must each take the word after.
     */
    const faces_list = [];
    for (let k = 0; k < found.at; k++)
        faces_list.push(MIXED_FACES[k % MIXED_FACES.length]);
    faces_list.push(faces);
    faces_list.push(...MIXED_FACES.slice(0, 6));
    c.mixed = Object.assign({faces: faces_list},
                            dice_run(found.seed, empty, faces_list));
    check_eq('rejected word of the mixed run',
             JSON.stringify(c.mixed.rejected_word_indices),
             JSON.stringify([found.at]));
    return c;
}

function main() {
    self_test();

    const seq = seq_bytes(0, 32);
    const ff = Buffer.alloc(32, 0xff);
    const enc = (s) => Buffer.from(s, 'utf8');
    const likeliest = likeliest_rejecting_faces();

    const cases = [
        make_case('seed-00-1f-no-client', 'seed 00..1f, client seed empty',
                  seq, enc('')),
        make_case('seed-00-1f-discord', 'seed 00..1f, a Discord interaction id',
                  seq, enc('discord:1234567890')),
        make_case('seed-ff-no-client', 'seed all 0xff, client seed empty',
                  ff, enc('')),
        make_case('seed-ff-utf8-phrase', 'seed all 0xff, a UTF-8 phrase',
                  ff, enc('Würfel für Tannenberg — 1914 ⚔')),
        make_case('seed-00-1f-max-client',
                  'seed 00..1f, a 256-byte client seed', seq,
                  seq_bytes(0x80, 256)),
        make_rejection_case(likeliest),
        make_rejection_case(1000),
    ];

    const doc = {
        name: 'rng-v1-golden',
        spec: '../shared/rules/dice.md, section \'The stream ("rng v1")\'',
        generator: 'tests/vectors/gen_rng_golden.js (node crypto only, ' +
                   'independent of core/rng.c); regenerate with ' +
                   '`node tests/vectors/gen_rng_golden.js`',
        note: 'Per case: words are the first raw stream words; each ' +
              'entry of dice is a fresh stream drawing count dice of faces; ' +
              'mixed draws its faces in order from one fresh stream.  ' +
              'n_words counts words consumed, rejected ones included; ' +
              'rejected_word_indices are ' +
              '0-based stream positions.  client_seed_hex is authoritative ' +
              '(client_seed is its UTF-8 reading, for people).',
        likeliest_rejecting_faces: likeliest,
        cases,
    };

    const out = process.argv[2] ||
        path.join(__dirname, 'rng-v1-golden.json');
    fs.writeFileSync(out, format(doc) + '\n');
    process.stdout.write('wrote ' + out + '\n');
    for (const c of cases.filter((x) => x.rejection))
        process.stdout.write('  ' + c.name + ': ' +
                             c.rejection.search_label + ', word ' +
                             c.rejection.word_index + ' = ' +
                             c.rejection.word + ' >= ' +
                             c.rejection.limit + '\n');
}

/* JSON with arrays of numbers on one line, so the file stays readable. */
function format(doc) {
    return JSON.stringify(doc, null, 1)
        .replace(/\[\s+([-0-9.,\s]+?)\s+\]/g,
                 (m, body) => '[' + body.split(/,\s*/).join(', ') + ']');
}

main();
