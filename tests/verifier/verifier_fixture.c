/*
 * verifier_fixture.c: the verifier suites' shared helpers; see
 * verifier_fixture.h.
 */
#include "verifier_fixture.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sodium.h>

/* ---- checks -------------------------------------------------------------- */

/* Runs a check with its report captured; *text is new, the caller frees. */
static vf_result run_check(const json_t *doc, vf_mode mode, char **text)
{
    size_t len;
    FILE *out = open_memstream(text, &len);
    vf_result res;

    ck_assert_ptr_nonnull(out);
    res = mode == VF_MODE_LEDGER ? vf_verify_ledger(doc, out)
                                 : vf_verify_combat(doc, out);
    fclose(out);
    return res;
}

/* Asserts the result and that the report says want_text (if not NULL). */
void verifier_fixture_expect(const json_t *doc, vf_mode mode, vf_result want,
                             const char *want_text)
{
    char *text = NULL;
    vf_result got = run_check(doc, mode, &text);

    ck_assert_msg(got == want, "result %d, want %d; report:\n%s", (int)got,
                  (int)want, text);
    ck_assert_msg(want_text == NULL || strstr(text, want_text) != NULL,
                  "report lacks \"%s\":\n%s", want_text, text);
    free(text);
}

void verifier_fixture_seed_fill(uint8_t seed[RNG_SEED_LEN], uint8_t first)
{
    for (int i = 0; i < RNG_SEED_LEN; i++)
        seed[i] = (uint8_t)(first + i);
}

/* ---- ledgers ------------------------------------------------------------- */

/* docs/ledger.md, "Canonical content": the members after pos, in order. */
static const char *const roll_members[] = {
    "at",     "combat_id", "seq",        "side",        "unit_id",
    "unit",   "reason",    "faces",      "natural",     "modified",
    "source", "rng",       "commitment", "client_seed", NULL};
static const char *const action_members[] = {
    "at",     "battle_id", "seq", "action",     "faces",       "naturals",
    "detail", "source",    "rng", "commitment", "client_seed", NULL};

/* A netstring of s appended to the content. */
static void put_text(char *content, size_t cap, const char *s)
{
    size_t len = strlen(content);

    snprintf(content + len, cap - len, "%zu:%s,", strlen(s), s);
    ck_assert_uint_lt(strlen(content), cap - 1);
}

/* A member by its JSON type: text, a number, numbers joined by commas, or
 * the empty text for null. */
static void put_member(char *content, size_t cap, const json_t *v)
{
    char text[1024] = "";
    size_t i;

    ck_assert_ptr_nonnull(v);
    if (json_is_string(v))
        snprintf(text, sizeof text, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
    for (i = 0; json_is_array(v) && i < json_array_size(v); i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%lld",
                 i ? "," : "",
                 (long long)json_integer_value(json_array_get(v, i)));
    put_text(content, cap, text);
}

/* hash = SHA-256(prev || content), by libsodium. */
static void sodium_entry_hash(const json_t *ledger, const json_t *e,
                              const uint8_t prev[32], uint8_t hash[32])
{
    const char *kind = json_string_value(json_object_get(e, "kind"));
    const char *const *m =
        strcmp(kind, "action") == 0 ? action_members : roll_members;
    char content[4096] = "";
    crypto_hash_sha256_state st;

    put_text(content, sizeof content, "umpire-ledger-v1");
    put_text(content, sizeof content, kind);
    put_member(content, sizeof content, json_object_get(ledger, "campaign_id"));
    put_member(content, sizeof content, json_object_get(e, "pos"));
    for (; *m != NULL; m++)
        put_member(content, sizeof content, json_object_get(e, *m));
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, prev, 32);
    crypto_hash_sha256_update(&st, (const uint8_t *)content, strlen(content));
    crypto_hash_sha256_final(&st, hash);
}

/* Rewrites prev_hash and hash of entries [from, to), chained on from the
 * hash of the entry before; reaching the end, the length and head too. */
void verifier_fixture_rehash(json_t *ledger, size_t from, size_t to)
{
    json_t *entries = json_object_get(ledger, "entries");
    uint8_t prev[32] = {0};
    char hex[65];

    if (from > 0)
        rng_unhex(json_string_value(json_object_get(
                      json_array_get(entries, from - 1), "hash")),
                  prev, 32);
    for (size_t i = from; i < to; i++) {
        json_t *e = json_array_get(entries, i);
        rng_hex(prev, 32, hex);
        json_object_set_new(e, "prev_hash", json_string(hex));
        sodium_entry_hash(ledger, e, prev, prev);
        rng_hex(prev, 32, hex);
        json_object_set_new(e, "hash", json_string(hex));
    }
    if (to == json_array_size(entries)) {
        json_object_set_new(ledger, "length", json_integer((json_int_t)to));
        json_object_set_new(ledger, "head", json_string(hex));
    }
}

/* A combat or battle of the test ledger, its dice drawn by rng_v1. */
typedef struct test_record {
    const char *id, *kind, *client_seed; /* client_seed may be NULL */
    uint8_t first;                       /* its seed is first, first+1, ... */
    char seed_hex[65], commitment[65];
    rng_v1 rng;
} test_record;

static void record_start(test_record *r)
{
    uint8_t seed[RNG_SEED_LEN];
    const char *cs = r->client_seed;

    verifier_fixture_seed_fill(seed, r->first);
    rng_hex(seed, sizeof seed, r->seed_hex);
    rng_commitment(seed, r->commitment);
    rng_v1_init(&r->rng, seed, (const uint8_t *)cs, cs ? strlen(cs) : 0);
}

static void add_roll(json_t *entries, test_record *r, int seq, int faces)
{
    int natural = rng_v1_die(&r->rng, faces);

    json_array_append_new(
        entries,
        json_pack("{s:I, s:s, s:s, s:s, s:i, s:s, s:s?, s:s, s:s, s:i, s:i, "
                  "s:i, s:s, s:s, s:s, s:s?}",
                  "pos", (json_int_t)json_array_size(entries) + 1, "kind",
                  "roll", "at", "2026-11-22T10:00:00.123Z", "combat_id", r->id,
                  "seq", seq, "side", "red", "unit_id",
                  seq == 2 ? NULL : "unit_1", "unit", "Rangers", "reason",
                  "scrud.front", "faces", faces, "natural", natural, "modified",
                  natural + 1, "source", "seeded", "rng", "v1", "commitment",
                  r->commitment, "client_seed", r->client_seed));
}

static void add_action(json_t *entries, test_record *r, int seq,
                       const char *action, int n_dice)
{
    json_t *faces = json_array(), *naturals = json_array();

    for (int i = 0; i < n_dice; i++) {
        json_array_append_new(faces, json_integer(6));
        json_array_append_new(naturals, json_integer(rng_v1_die(&r->rng, 6)));
    }
    json_array_append_new(
        entries,
        json_pack(
            "{s:I, s:s, s:s, s:s, s:i, s:s, s:o, s:o, s:s?, s:s, s:s, "
            "s:s, s:n}",
            "pos", (json_int_t)json_array_size(entries) + 1, "kind", "action",
            "at", "2026-11-22T11:00:00.000Z", "battle_id", r->id, "seq", seq,
            "action", action, "faces", faces, "naturals", naturals, "detail",
            seq == 2 ? "{\"reserves\": [\"Guards\"]}" : NULL, "source",
            "seeded", "rng", "v1", "commitment", r->commitment, "client_seed"));
}

/*
 * Eight entries: combat cbt_a's three dice (pos 1-3), battle bat_b's roll
 * of 2d6 (4), combat cbt_c's two dice (5, 6), bat_b's commit drawing one d6
 * (7) and its accept drawing none (8); every seed revealed.  New reference.
 */
json_t *verifier_fixture_ledger(void)
{
    test_record rec[3] = {{.id = "cbt_a",
                           .kind = "combat",
                           .first = 0x10,
                           .client_seed = "alpha"},
                          {.id = "bat_b", .kind = "battle", .first = 0x20},
                          {.id = "cbt_c", .kind = "combat", .first = 0x30}};
    json_t *entries = json_array(), *seeds = json_array(), *ledger;

    for (int i = 0; i < 3; i++) {
        record_start(&rec[i]);
        json_array_append_new(
            seeds,
            json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s?}", "record",
                      rec[i].id, "kind", rec[i].kind, "source", "seeded", "rng",
                      "v1", "commitment", rec[i].commitment, "server_seed",
                      rec[i].seed_hex, "client_seed", rec[i].client_seed));
    }
    add_roll(entries, &rec[0], 1, 6);
    add_roll(entries, &rec[0], 2, 6);
    add_roll(entries, &rec[0], 3, 20);
    add_action(entries, &rec[1], 1, "roll", 2);
    add_roll(entries, &rec[2], 1, 10);
    add_roll(entries, &rec[2], 2, 1000);
    add_action(entries, &rec[1], 2, "commit", 1);
    add_action(entries, &rec[1], 3, "accept", 0);
    for (int i = 0; i < 3; i++)
        rng_v1_cleanup(&rec[i].rng);
    ledger = json_pack("{s:s, s:s, s:i, s:s, s:o, s:o}", "campaign_id",
                       "cmp_test", "version", "umpire-ledger-v1", "length", 0,
                       "head", "", "entries", entries, "seeds", seeds);
    verifier_fixture_rehash(ledger, 0, json_array_size(entries));
    return ledger;
}

json_t *verifier_fixture_entry_at(json_t *ledger, size_t pos)
{
    return json_array_get(json_object_get(ledger, "entries"), pos - 1);
}

/* Changes an entry's (first) die to another face. */
void verifier_fixture_change_die(json_t *e)
{
    bool is_action = json_is_array(json_object_get(e, "naturals"));
    json_t *arr = json_object_get(e, "naturals");
    json_t *n =
        is_action ? json_array_get(arr, 0) : json_object_get(e, "natural");
    json_t *f = json_object_get(e, "faces");
    json_int_t faces = json_integer_value(is_action ? json_array_get(f, 0) : f);

    json_integer_set(n, json_integer_value(n) % faces + 1);
}
