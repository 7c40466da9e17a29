/*
 * test_verifier.c: tests verifier/, the standalone dice verifier.
 *
 * Its primitives against the published vectors (SHA-256 and HMAC-SHA256:
 * those the server's are held to too, digest_vectors.h; RFC 8439
 * ChaCha20) and against libsodium; a golden
 * rng v1 stream computed with node's crypto, which both the verifier's
 * vf_rng and the service's rng_v1 must reproduce; the combat check on
 * reports built here, each kind of tampering caught and named; and the
 * umpire-verify binary's exit codes ($UMPIRE_VERIFY_BIN, set by make test;
 * those tests skip when it is unset).  The ledger check has its own suite,
 * tests/verifier/test_verifier_ledger.c.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "digest_vectors.h"
#include "rng.h"
#include "suites.h"
#include "verifier_fixture.h"
#include "vf_crypto.h"
#include "vf_verify.h"

/* ---- helpers ------------------------------------------------------------- */

static void assert_hex(const uint8_t *bytes, size_t n, const char *want)
{
    char got[2 * 256 + 1];

    ck_assert_uint_le(n, 256);
    vf_hex(bytes, n, got);
    ck_assert_str_eq(got, want);
}

/* ---- primitives ---------------------------------------------------------- */

START_TEST(test_sha256_fips)
{
    size_t n, i;
    const sha256_vector *v = sha256_vectors(&n);
    uint8_t d[VF_SHA256_LEN];

    for (i = 0; i < n; i++) {
        vf_sha256(v[i].msg, strlen(v[i].msg), d);
        assert_hex(d, sizeof d, v[i].hex);
    }
}
END_TEST

/* A million 'a', fed in pieces of uneven sizes across block boundaries. */
START_TEST(test_sha256_million_a)
{
    static const size_t steps[] = {1, 63, 64, 65, 1000, 7};
    uint8_t chunk[1000], d[VF_SHA256_LEN];
    vf_sha256_ctx s;
    size_t done = 0, i = 0;

    memset(chunk, 'a', sizeof chunk);
    vf_sha256_init(&s);
    while (done < 1000000) {
        size_t n = steps[i++ % 6];
        if (n > 1000000 - done)
            n = 1000000 - done;
        vf_sha256_update(&s, chunk, n);
        done += n;
    }
    vf_sha256_final(&s, d);
    assert_hex(
        d, sizeof d,
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

/* Every length around the padding boundaries agrees with libsodium. */
START_TEST(test_sha256_vs_libsodium)
{
    uint8_t msg[300], a[VF_SHA256_LEN], b[VF_SHA256_LEN];

    randombytes_buf(msg, sizeof msg);
    for (size_t n = 0; n <= sizeof msg; n++) {
        vf_sha256(msg, n, a);
        crypto_hash_sha256(b, msg, n);
        ck_assert_msg(memcmp(a, b, sizeof a) == 0, "length %zu differs", n);
    }
}
END_TEST

START_TEST(test_hmac_rfc4231)
{
    size_t n, i, key_len, msg_len;
    const hmac_vector *v = hmac_vectors(&n);
    uint8_t key[256], msg[256], mac[VF_SHA256_LEN];

    for (i = 0; i < n; i++) {
        key_len = vector_bytes_get(&v[i].key, key);
        msg_len = vector_bytes_get(&v[i].msg, msg);
        vf_hmac_sha256(key, key_len, msg, msg_len, mac);
        assert_hex(mac, sizeof mac, v[i].hex);
    }
}
END_TEST

/* Keys of every length up to past two blocks agree with libsodium. */
START_TEST(test_hmac_vs_libsodium)
{
    uint8_t key[150], msg[100], a[VF_SHA256_LEN], b[VF_SHA256_LEN];
    crypto_auth_hmacsha256_state st;

    randombytes_buf(key, sizeof key);
    randombytes_buf(msg, sizeof msg);
    for (size_t n = 0; n <= sizeof key; n++) {
        vf_hmac_sha256(key, n, msg, n % sizeof msg, a);
        crypto_auth_hmacsha256_init(&st, key, n);
        crypto_auth_hmacsha256_update(&st, msg, n % sizeof msg);
        crypto_auth_hmacsha256_final(&st, b);
        ck_assert_msg(memcmp(a, b, sizeof a) == 0, "key length %zu differs", n);
    }
}
END_TEST

static const uint8_t rfc_key[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                    11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                    22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/* RFC 8439 section 2.3.2: key 00..1f, nonce 00:00:00:09:00:00:00:4a:00.. */
START_TEST(test_chacha20_block_rfc8439)
{
    static const uint8_t nonce[12] = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};
    uint8_t block[64];

    vf_chacha20_block(rfc_key, 1, nonce, block);
    assert_hex(
        block, sizeof block,
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
}
END_TEST

/* RFC 8439 section 2.4.2: the sunscreen text, counter 1, read through the
 * keystream reader in pieces that straddle the block boundary. */
START_TEST(test_chacha20_encrypt_rfc8439)
{
    static const uint8_t nonce[12] = {0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0};
    static const char text[] =
        "Ladies and Gentlemen of the class of '99: If I could offer you only "
        "one tip for the future, sunscreen would be it.";
    uint8_t ks[sizeof text - 1], out[sizeof text - 1];
    static const size_t pieces[] = {1, 7, 50, 13, 43};
    vf_chacha20 c;
    size_t at = 0;

    ck_assert_uint_eq(sizeof ks, 114);
    vf_chacha20_init(&c, rfc_key, nonce, 1);
    for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        vf_chacha20_read(&c, ks + at, pieces[i]);
        at += pieces[i];
    }
    ck_assert_uint_eq(at, sizeof ks);
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)text[i] ^ ks[i];
    assert_hex(
        out, sizeof out,
        "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
        "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
        "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
        "5af90bbf74a35be6b40b8eedf2785e42874d");
}
END_TEST

/* ---- the golden rng v1 stream -------------------------------------------- */

/*
 * Computed with node's crypto alone (OpenSSL's "chacha20" takes a 16-byte
 * IV: the 4-byte little-endian block counter, then the 12-byte nonce):
 *
 *   node -e 'const c=require("crypto"),s=Buffer.from([...Array(32).keys()]),
 *     k=c.createHmac("sha256",s).update(process.argv[1]).digest(),
 *     x=c.createCipheriv("chacha20",k,Buffer.alloc(16)),
 *     w=()=>x.update(Buffer.alloc(4)).readUInt32LE(0),
 *     d=f=>{for(;;){const v=w();if(v<2**32-2**32%f)return v%f+1}};
 *     console.log(c.createHash("sha256").update(s).digest("hex"),
 *       k.toString("hex"), [1,2,3,4,5,6,7,8,9,10,11,12].map(()=>d(6)))'
 *     discord:1234567890
 *
 * (words with w() in place of d(6), other faces likewise, each run from a
 * fresh stream).  The second client seed was found by trying
 * "discord:1234567890", "discord:1234567891", ... until one of the first
 * words was at or above the d997 limit, 2^32 - 966 = 4294966330: its word 0,
 * 4294966801, is rejected by a d997 (which then takes word 1) but is a fine
 * d1000 (limit 4294967000).
 */
#define GOLDEN_COMMITMENT                                                      \
    "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"

static const struct golden {
    const char *client_seed, *key;
    uint32_t words[20];
    int d6[12], d20[12], d1000[12], d997[12];
    int d997_n_words; /* words the twelve d997 took */
    int mixed[8];     /* d997, d6, d20, d1000, d2, d12, d100, d8 */
    int mixed_n_words;
} golden[] = {
    {"discord:1234567890",
     "71bd46f0b1d1696be0402801e4045f221fe094d393fcb9d9af1cfc978113012e",
     {2580846204, 1979112719, 668335318,  1064303372, 1810554154,
      854483671,  3222192055, 2251343165, 3482171461, 164720471,
      3463082149, 2898619275, 3542261094, 1423580041, 3858907953,
      2424287568, 3001237747, 2871897399, 1570268628, 1901549318},
     {1, 6, 5, 3, 5, 2, 2, 6, 2, 6, 2, 4},
     {5, 20, 19, 13, 15, 12, 16, 6, 2, 12, 10, 16},
     {205, 720, 319, 373, 155, 672, 56, 166, 462, 472, 150, 276},
     {41, 921, 357, 888, 161, 834, 717, 517, 409, 120, 656, 299},
     12,
     {41, 6, 19, 373, 1, 8, 56, 6},
     8},
    {"discord:1234569811",
     "623666e4db213ae7001968509abed80a23524b331cccc0c34a6030fbbc9c98bb",
     {4294966801, 518328328,  1269518292, 339303345,  25154635,
      2369190047, 98125857,   4069351404, 790673897,  2329445300,
      2530885893, 2000988555, 2447675664, 1885111359, 968157589,
      3420105836, 3793427763, 2730213409, 116372047,  1637300503},
     {2, 5, 1, 4, 2, 6, 4, 1, 6, 3, 4, 4},
     {2, 9, 13, 6, 16, 8, 18, 5, 18, 1, 14, 16},
     {802, 329, 293, 346, 636, 48, 858, 405, 898, 301, 894, 556},
     {990, 307, 318, 326, 5, 121, 193, 57, 663, 397, 583, 785},
     13,
     {990, 1, 6, 636, 2, 10, 5, 2},
     9},
};

static const int mixed_faces[8] = {997, 6, 20, 1000, 2, 12, 100, 8};

/* The two implementations behind one interface, so that each golden check
 * runs on both: the verifier's vf_rng and the service's rng_v1. */
typedef struct either_rng {
    bool is_server;
    vf_rng vf;
    rng_v1 sv;
} either_rng;

static void either_init(either_rng *r, bool is_server, const char *client)
{
    uint8_t seed[RNG_SEED_LEN];

    verifier_fixture_seed_fill(seed, 0);
    r->is_server = is_server;
    if (is_server)
        rng_v1_init(&r->sv, seed, (const uint8_t *)client, strlen(client));
    else
        vf_rng_init(&r->vf, seed, (const uint8_t *)client, strlen(client));
}

static uint32_t either_word(either_rng *r)
{
    return r->is_server ? rng_v1_word(&r->sv) : vf_rng_word(&r->vf);
}

static int either_die(either_rng *r, int faces)
{
    return r->is_server ? rng_v1_die(&r->sv, faces) : vf_rng_die(&r->vf, faces);
}

static uint64_t either_n_words(const either_rng *r)
{
    return r->is_server ? r->sv.n_words : r->vf.n_words;
}

static void check_run(const struct golden *g, bool is_server, int faces,
                      const int *want, int want_n_words)
{
    either_rng r;

    either_init(&r, is_server, g->client_seed);
    for (int i = 0; i < 12; i++)
        ck_assert_msg(either_die(&r, faces) == want[i], "%s %s d%d die %d",
                      is_server ? "rng_v1" : "vf_rng", g->client_seed, faces,
                      i + 1);
    if (want_n_words > 0)
        ck_assert_uint_eq(either_n_words(&r), (uint64_t)want_n_words);
}

START_TEST(test_golden_commitment_and_key)
{
    uint8_t seed[RNG_SEED_LEN], d[VF_SHA256_LEN];
    char hex[65];

    verifier_fixture_seed_fill(seed, 0);
    vf_sha256(seed, sizeof seed, d);
    assert_hex(d, sizeof d, GOLDEN_COMMITMENT);
    rng_commitment(seed, hex);
    ck_assert_str_eq(hex, GOLDEN_COMMITMENT);
    for (size_t i = 0; i < 2; i++) {
        const char *cs = golden[i].client_seed;
        vf_hmac_sha256(seed, sizeof seed, cs, strlen(cs), d);
        assert_hex(d, sizeof d, golden[i].key);
    }
}
END_TEST

/* _i: 0..3 = (golden case) x (verifier, service). */
START_TEST(test_golden_words)
{
    const struct golden *g = &golden[_i / 2];
    either_rng r;

    either_init(&r, _i % 2 == 1, g->client_seed);
    for (int i = 0; i < 20; i++)
        ck_assert_msg(either_word(&r) == g->words[i], "word %d", i);
}
END_TEST

START_TEST(test_golden_dice)
{
    const struct golden *g = &golden[_i / 2];
    bool is_server = _i % 2 == 1;
    either_rng r;

    check_run(g, is_server, 6, g->d6, 12);
    check_run(g, is_server, 20, g->d20, 12);
    check_run(g, is_server, 1000, g->d1000, 12);
    check_run(g, is_server, 997, g->d997, g->d997_n_words);
    either_init(&r, is_server, g->client_seed);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(either_die(&r, mixed_faces[i]), g->mixed[i]);
    ck_assert_uint_eq(either_n_words(&r), (uint64_t)g->mixed_n_words);
}
END_TEST

/* The rejection rule itself: the limits named in the README. */
START_TEST(test_rng_limits)
{
    ck_assert_uint_eq(vf_rng_limit(6), UINT64_C(4294967292));
    ck_assert_uint_eq(vf_rng_limit(997), UINT64_C(4294966330));
    ck_assert_uint_eq(vf_rng_limit(1000), UINT64_C(4294967000));
    ck_assert_uint_eq(vf_rng_limit(2), UINT64_C(4294967296));
    ck_assert_uint_eq(vf_rng_limit(4), UINT64_C(4294967296));
}
END_TEST

/* Random seeds, client seeds and faces: both implementations agree. */
START_TEST(test_rng_vs_server)
{
    for (int t = 0; t < 50; t++) {
        uint8_t seed[RNG_SEED_LEN], client[64];
        size_t client_len = randombytes_uniform(sizeof client + 1);
        vf_rng a;
        rng_v1 b;

        randombytes_buf(seed, sizeof seed);
        randombytes_buf(client, sizeof client);
        vf_rng_init(&a, seed, client, client_len);
        rng_v1_init(&b, seed, client, client_len);
        for (int i = 0; i < 200; i++) {
            int faces = 2 + (int)randombytes_uniform(999);
            ck_assert_int_eq(vf_rng_die(&a, faces), rng_v1_die(&b, faces));
        }
        ck_assert_uint_eq(a.n_words, b.n_words);
        rng_v1_cleanup(&b);
    }
}
END_TEST

/* ---- combat reports ------------------------------------------------------ */

#define N_ROLLS 6
static const int combat_faces[N_ROLLS] = {6, 6, 20, 10, 6, 1000};

/*
 * A seeded report of N_ROLLS dice from seed 0x40.. and client seed "table
 * 4", the naturals drawn by the service's rng_v1; rolls listed newest first
 * so that the verifier must sort them.  New reference.
 */
static json_t *make_report(void)
{
    uint8_t seed[RNG_SEED_LEN];
    char seed_hex[65], commitment[65], unit[16];
    json_t *rolls = json_array();
    rng_v1 r;

    verifier_fixture_seed_fill(seed, 0x40);
    rng_hex(seed, sizeof seed, seed_hex);
    rng_commitment(seed, commitment);
    rng_v1_init(&r, seed, (const uint8_t *)"table 7", 7);
    for (int i = 0; i < N_ROLLS; i++) {
        snprintf(unit, sizeof unit, "Unit %c", 'A' + i);
        json_array_insert_new(
            rolls, 0,
            json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:i}", "seq", i + 1,
                      "side", i < 3 ? "red" : "blue", "unit", unit, "reason",
                      "scrud.front", "faces", combat_faces[i], "natural",
                      rng_v1_die(&r, combat_faces[i]), "modified", 0));
    }
    rng_v1_cleanup(&r);
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:b}, s:o}", "id",
                     "cbt_test", "system", "scrud", "dice", "source", "seeded",
                     "rng", "v1", "commitment", commitment, "server_seed",
                     seed_hex, "client_seed", "table 7", "verifiable", 1,
                     "rolls", rolls);
}

static json_t *dice_of(json_t *report)
{
    return json_object_get(report, "dice");
}

/* The roll whose seq is seq (the list is newest first). */
static json_t *roll_seq(json_t *report, int seq)
{
    return json_array_get(json_object_get(report, "rolls"),
                          (size_t)(N_ROLLS - seq));
}

START_TEST(test_combat_good)
{
    json_t *rep = make_report();

    verifier_fixture_expect(rep, VF_MODE_COMBAT, VF_OK, "RESULT: verified");
    json_decref(rep);
}
END_TEST

/* {server_seed, commitment, client_seed, rolls: [{faces, natural}]} */
START_TEST(test_combat_minimal_form)
{
    json_t *rep = make_report(), *min = json_object(), *rolls = json_array();

    for (int seq = 1; seq <= N_ROLLS; seq++) {
        json_t *r = roll_seq(rep, seq);
        json_array_append_new(
            rolls, json_pack("{s:O, s:O}", "faces", json_object_get(r, "faces"),
                             "natural", json_object_get(r, "natural")));
    }
    json_object_set(min, "server_seed",
                    json_object_get(dice_of(rep), "server_seed"));
    json_object_set(min, "commitment",
                    json_object_get(dice_of(rep), "commitment"));
    json_object_set(min, "client_seed",
                    json_object_get(dice_of(rep), "client_seed"));
    json_object_set_new(min, "rolls", rolls);
    verifier_fixture_expect(min, VF_MODE_COMBAT, VF_OK, "all 6 dice");
    json_object_del(min, "commitment");
    verifier_fixture_expect(min, VF_MODE_COMBAT, VF_OK,
                            "commitment: none given");
    json_object_set_new(min, "client_seed", json_string("table 5"));
    verifier_fixture_expect(min, VF_MODE_COMBAT, VF_MISMATCH, NULL);
    json_decref(min);
    json_decref(rep);
}
END_TEST

START_TEST(test_combat_changed_natural)
{
    json_t *rep = make_report(), *roll = roll_seq(rep, 3);
    json_int_t n = json_integer_value(json_object_get(roll, "natural"));

    json_object_set_new(roll, "natural", json_integer(n % 20 + 1));
    verifier_fixture_expect(rep, VF_MODE_COMBAT, VF_MISMATCH, "MISMATCH");
    verifier_fixture_expect(rep, VF_MODE_COMBAT, VF_MISMATCH,
                            "die 3 (Unit C): the seed gives");
    json_decref(rep);
}
END_TEST

START_TEST(test_combat_missing_die)
{
    json_t *rep = make_report();

    json_array_remove(json_object_get(rep, "rolls"), N_ROLLS - 2);
    verifier_fixture_expect(rep, VF_MODE_COMBAT, VF_MISMATCH,
                            "die 2 is missing");
    json_decref(rep);
}
END_TEST

START_TEST(test_combat_wrong_commitment)
{
    json_t *rep = make_report();
    uint8_t other[RNG_SEED_LEN];
    char hex[65];

    verifier_fixture_seed_fill(other, 0x41);
    rng_commitment(other, hex);
    json_object_set_new(dice_of(rep), "commitment", json_string(hex));
    verifier_fixture_expect(rep, VF_MODE_COMBAT, VF_MISMATCH,
                            "the server seed does not match its commitment");
    json_decref(rep);
}
END_TEST

START_TEST(test_combat_entered)
{
    json_t *rep = make_report();

    json_object_set_new(dice_of(rep), "source", json_string("entered"));
    json_object_set_new(dice_of(rep), "rng", json_null());
    json_object_set_new(dice_of(rep), "commitment", json_null());
    json_object_set_new(dice_of(rep), "server_seed", json_null());
    json_object_set_new(dice_of(rep), "client_seed", json_null());
    verifier_fixture_expect(rep, VF_MODE_COMBAT, VF_UNVERIFIABLE,
                            "honest record");
    json_decref(rep);
}
END_TEST

START_TEST(test_combat_unrevealed)
{
    json_t *rep = make_report();

    json_object_set_new(dice_of(rep), "server_seed", json_null());
    verifier_fixture_expect(rep, VF_MODE_COMBAT, VF_UNVERIFIABLE,
                            "not revealed");
    json_decref(rep);
}
END_TEST

/* Malformed reports: one member of the report, its dice or its third roll
 * replaced (or removed, when json is NULL). */
static const struct bad_case {
    int where; /* 0 the report, 1 its dice, 2 the roll of seq 3 */
    const char *key, *json;
} bad_cases[] = {
    {0, "rolls", NULL},
    {0, "rolls", "{}"},
    {0, "dice", "[]"},
    {1, "server_seed", NULL},
    {1, "server_seed", "\"0011\""},
    {1, "server_seed",
     "\"zz4142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f\""},
    {1, "server_seed", "42"},
    {1, "commitment", "\"not hex\""},
    {1, "client_seed", "7"},
    {1, "source", "\"magic\""},
    {1, "rng", "\"v2\""},
    {2, "faces", "1"},
    {2, "faces", "1001"},
    {2, "faces", "\"6\""},
    {2, "natural", NULL},
    {2, "natural", "4.0"},
    {2, "seq", NULL},
};

START_TEST(test_combat_malformed)
{
    const struct bad_case *b = &bad_cases[_i];
    json_t *rep = make_report();
    json_t *target = b->where == 0   ? rep
                     : b->where == 1 ? dice_of(rep)
                                     : roll_seq(rep, 3);

    if (b->json == NULL)
        json_object_del(target, b->key);
    else
        json_object_set_new(target, b->key,
                            json_loads(b->json, JSON_DECODE_ANY, NULL));
    verifier_fixture_expect(rep, VF_MODE_COMBAT, VF_BAD_INPUT,
                            "UNUSABLE INPUT");
    json_decref(rep);
}
END_TEST

START_TEST(test_combat_not_an_object)
{
    json_t *arr = json_array();

    verifier_fixture_expect(arr, VF_MODE_COMBAT, VF_BAD_INPUT, NULL);
    verifier_fixture_expect(arr, VF_MODE_LEDGER, VF_BAD_INPUT, NULL);
    json_decref(arr);
}
END_TEST

/* ---- the umpire-verify binary -------------------------------------------- */

/* A temporary file holding doc, or text when doc is NULL; new path. */
static char *temp_file(const json_t *doc, const char *text)
{
    const char *dir = getenv("TMPDIR");
    char *path = malloc(4096);
    FILE *f;
    int fd;

    ck_assert_ptr_nonnull(path);
    snprintf(path, 4096, "%s/umpire-verify-XXXXXX", dir && *dir ? dir : "/tmp");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    if (doc != NULL)
        ck_assert_int_eq(json_dumpf(doc, f, JSON_INDENT(1)), 0);
    else
        fputs(text, f);
    fclose(f);
    return path;
}

/* The exit code of the binary run with args (a shell fragment). */
static int run_bin(const char *bin, const char *args)
{
    char cmd[8192];
    int status;

    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", bin, args);
    status = system(cmd);
    ck_assert_msg(WIFEXITED(status), "%s did not exit", cmd);
    return WEXITSTATUS(status);
}

START_TEST(test_binary_exit_codes)
{
    const char *bin = getenv("UMPIRE_VERIFY_BIN");
    json_t *rep, *L;
    char *good, *bad, *junk, *ledger, *broken, args[4200];

    if (bin == NULL || bin[0] == '\0') {
        fprintf(stderr, "verifier: UMPIRE_VERIFY_BIN is not set (make test "
                        "sets it): the binary's tests are skipped\n");
        return;
    }
    rep = make_report();
    good = temp_file(rep, NULL);
    verifier_fixture_change_die(roll_seq(rep, 4));
    bad = temp_file(rep, NULL);
    junk = temp_file(NULL, "{\"dice\": ");
    L = verifier_fixture_ledger();
    ledger = temp_file(L, NULL);
    verifier_fixture_change_die(verifier_fixture_entry_at(L, 3));
    broken = temp_file(L, NULL);

    ck_assert_int_eq(run_bin(bin, good), 0);
    ck_assert_int_eq(run_bin(bin, bad), 1);
    ck_assert_int_eq(run_bin(bin, junk), 2);
    snprintf(args, sizeof args, "- < '%s'", good);
    ck_assert_int_eq(run_bin(bin, args), 0);
    snprintf(args, sizeof args, "--ledger '%s'", ledger);
    ck_assert_int_eq(run_bin(bin, args), 0);
    snprintf(args, sizeof args, "--ledger '%s'", broken);
    ck_assert_int_eq(run_bin(bin, args), 1);
    snprintf(args, sizeof args, "--ledger '%s'", good); /* not a ledger */
    ck_assert_int_eq(run_bin(bin, args), 2);
    snprintf(args, sizeof args, "'%s.missing'", good);
    ck_assert_int_eq(run_bin(bin, args), 2);
    ck_assert_int_eq(run_bin(bin, "--help"), 0);
    ck_assert_int_eq(run_bin(bin, ""), 2);

    char *paths[] = {good, bad, junk, ledger, broken};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        remove(paths[i]);
        free(paths[i]);
    }
    json_decref(rep);
    json_decref(L);
}
END_TEST

Suite *suite_verifier(void)
{
    Suite *s = suite_create("verifier");
    TCase *prim = tcase_create("primitives");
    TCase *golden_tc = tcase_create("golden");
    TCase *combat = tcase_create("combat");
    TCase *binary = tcase_create("binary");

    tcase_add_test(prim, test_sha256_fips);
    tcase_add_test(prim, test_sha256_million_a);
    tcase_add_test(prim, test_sha256_vs_libsodium);
    tcase_add_test(prim, test_hmac_rfc4231);
    tcase_add_test(prim, test_hmac_vs_libsodium);
    tcase_add_test(prim, test_chacha20_block_rfc8439);
    tcase_add_test(prim, test_chacha20_encrypt_rfc8439);
    suite_add_tcase(s, prim);

    tcase_add_test(golden_tc, test_golden_commitment_and_key);
    tcase_add_loop_test(golden_tc, test_golden_words, 0, 4);
    tcase_add_loop_test(golden_tc, test_golden_dice, 0, 4);
    tcase_add_test(golden_tc, test_rng_limits);
    tcase_add_test(golden_tc, test_rng_vs_server);
    suite_add_tcase(s, golden_tc);

    tcase_add_test(combat, test_combat_good);
    tcase_add_test(combat, test_combat_minimal_form);
    tcase_add_test(combat, test_combat_changed_natural);
    tcase_add_test(combat, test_combat_missing_die);
    tcase_add_test(combat, test_combat_wrong_commitment);
    tcase_add_test(combat, test_combat_entered);
    tcase_add_test(combat, test_combat_unrevealed);
    tcase_add_loop_test(combat, test_combat_malformed, 0,
                        (int)(sizeof bad_cases / sizeof *bad_cases));
    tcase_add_test(combat, test_combat_not_an_object);
    suite_add_tcase(s, combat);

    tcase_add_test(binary, test_binary_exit_codes);
    tcase_set_timeout(binary, 30);
    suite_add_tcase(s, binary);
    return s;
}
