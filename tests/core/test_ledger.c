/*
 * test_ledger.c: tests core/ledger.c, the campaign ledger of
 * docs/ledger.md: canonical content, links and dice lists parsed; the
 * chain's walk against a recorded length and head, with entries altered,
 * rehashed, deleted and swapped; and the dice re-derived from revealed
 * seeds.
 *
 * Contents are compared with netstrings written out by hand; hashes with
 * SHA-256 computed apart from core/ledger.c (ledger_fixture.h); seeded
 * dice with rng v1 drawn here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "ledger.h"
#include "ledger_fixture.h"
#include "rng.h"
#include "suites.h"

#define HEX64   LEDGER_FIXTURE_HEX64
#define HEX64_B LEDGER_FIXTURE_HEX64_B

/* content must be exactly want (a literal). */
static void check_content(const ledger_entry *en, const char *want)
{
    size_t len = 0;
    char *got = ledger_content(en, &len);

    ck_assert_ptr_nonnull(got);
    ck_assert_msg(len == strlen(want) && memcmp(got, want, len) == 0,
                  "content\n  %s\nexpected\n  %s", got, want);
    free(got);
}

/* ---- 1. Content, links, naturals ---------------------------------------- */

START_TEST(test_content_roll)
{
    ledger_entry en = ledger_fixture_roll();

    check_content(&en, "16:umpire-ledger-v1,4:roll,5:cmp_1,1:7,"
                       "24:2026-11-22T10:00:00.123Z,5:cbt_9,1:3,4:Blue,0:,"
                       "11:\xc3\x89"
                       "claireurs,11:scrud.front,1:6,1:5,1:6,"
                       "6:seeded,2:v1,64:" HEX64 ",0:,");
    /* what is stored beside the content is not part of it */
    en.prev_hash = HEX64;
    en.hash = HEX64_B;
    check_content(&en, "16:umpire-ledger-v1,4:roll,5:cmp_1,1:7,"
                       "24:2026-11-22T10:00:00.123Z,5:cbt_9,1:3,4:Blue,0:,"
                       "11:\xc3\x89"
                       "claireurs,11:scrud.front,1:6,1:5,1:6,"
                       "6:seeded,2:v1,64:" HEX64 ",0:,");
    /* entered: no rng, commitment; an empty client seed; long numbers;
     * separators inside fields */
    en.pos = 1234;
    en.unit_id = "un_1";
    en.unit = "a,b:c";
    en.faces = 1000;
    en.natural = 1000;
    en.modified = 0;
    en.source = "entered";
    en.rng = NULL;
    en.commitment = NULL;
    en.client_seed = "";
    check_content(&en, "16:umpire-ledger-v1,4:roll,5:cmp_1,4:1234,"
                       "24:2026-11-22T10:00:00.123Z,5:cbt_9,1:3,4:Blue,"
                       "4:un_1,5:a,b:c,11:scrud.front,4:1000,4:1000,1:0,"
                       "7:entered,0:,0:,0:,");
}
END_TEST

START_TEST(test_content_action)
{
    static const int two[] = {4, 1}, ten[] = {1, 2, 3, 4, 5, 6, 6, 5, 4, 3};
    ledger_entry en = ledger_fixture_action(two, 2);

    check_content(&en, "16:umpire-ledger-v1,6:action,5:cmp_1,2:12,"
                       "24:2026-11-22T10:05:00.000Z,7:bat_abc,1:2,4:roll,"
                       "3:6,6,3:4,1,13:{\"waves\":[1]},6:seeded,2:v1,"
                       "64:" HEX64_B ",7:table 7,");
    en = ledger_fixture_action(ten, 10);
    en.action = "phase";
    check_content(&en,
                  "16:umpire-ledger-v1,6:action,5:cmp_1,2:12,"
                  "24:2026-11-22T10:05:00.000Z,7:bat_abc,1:2,5:phase,"
                  "19:6,6,6,6,6,6,6,6,6,6,19:1,2,3,4,5,6,6,5,4,3,"
                  "13:{\"waves\":[1]},6:seeded,2:v1,64:" HEX64_B ",7:table 7,");
    /* no dice, no detail, entered */
    en = ledger_fixture_action(NULL, 0);
    en.action = "accept";
    en.detail = NULL;
    en.source = "entered";
    en.rng = NULL;
    en.commitment = NULL;
    en.client_seed = NULL;
    check_content(&en, "16:umpire-ledger-v1,6:action,5:cmp_1,2:12,"
                       "24:2026-11-22T10:05:00.000Z,7:bat_abc,1:2,6:accept,"
                       "0:,0:,0:,7:entered,0:,0:,0:,");
}
END_TEST

START_TEST(test_link)
{
    static const int two[] = {4, 1};
    ledger_entry r = ledger_fixture_roll(), a = ledger_fixture_action(two, 2);
    char want1[LEDGER_HASH_HEX], want2[LEDGER_HASH_HEX], got[LEDGER_HASH_HEX];
    size_t len1 = 0, len2 = 0;
    char *c1 = ledger_content(&r, &len1), *c2 = ledger_content(&a, &len2);
    err_info e;

    ck_assert_str_eq(ledger_genesis, "00000000000000000000000000000000"
                                     "00000000000000000000000000000000");
    ledger_fixture_sha_link(NULL, c1, len1, want1);
    ledger_link(ledger_genesis, c1, len1, got);
    ck_assert_str_eq(got, want1);
    /* a malformed previous hash counts as the genesis */
    ledger_link(NULL, c1, len1, got);
    ck_assert_str_eq(got, want1);
    ledger_link("not hex", c1, len1, got);
    ck_assert_str_eq(got, want1);
    ck_assert_int_eq(ledger_hash(&r, ledger_genesis, got, &e), ERR_OK);
    ck_assert_str_eq(got, want1);
    /* the next link starts from the previous hash's 32 bytes */
    ledger_fixture_sha_link(want1, c2, len2, want2);
    ledger_link(want1, c2, len2, got);
    ck_assert_str_eq(got, want2);
    ck_assert_int_eq(ledger_hash(&a, want1, got, &e), ERR_OK);
    ck_assert_str_eq(got, want2);
    ck_assert_str_ne(want1, want2);
    free(c1);
    free(c2);
}
END_TEST

/* The forms on bytes give the same hashes as those on hex digits, a
 * chain of them included, and a malformed hex reads as the genesis. */
START_TEST(test_link_raw)
{
    static const int two[] = {4, 1};
    ledger_entry r = ledger_fixture_roll(), a = ledger_fixture_action(two, 2);
    uint8_t prev[LEDGER_HASH_BYTES], h1[LEDGER_HASH_BYTES],
        h2[LEDGER_HASH_BYTES], zero[LEDGER_HASH_BYTES] = {0};
    char want1[LEDGER_HASH_HEX], want2[LEDGER_HASH_HEX], got[LEDGER_HASH_HEX];
    size_t len = 0;
    char *c = ledger_content(&a, &len);
    err_info e;

    ledger_unhex(NULL, prev);
    ck_assert_mem_eq(prev, zero, sizeof zero);
    memset(prev, 7, sizeof prev);
    ledger_unhex(HEX64 + 1, prev); /* 63 digits */
    ck_assert_mem_eq(prev, zero, sizeof zero);
    ledger_unhex(HEX64, prev);
    rng_hex(prev, sizeof prev, got);
    ck_assert_str_eq(got, HEX64);

    ck_assert_int_eq(ledger_hash(&r, HEX64, want1, &e), ERR_OK);
    ck_assert_int_eq(ledger_hash_raw(&r, prev, h1, &e), ERR_OK);
    rng_hex(h1, sizeof h1, got);
    ck_assert_str_eq(got, want1);
    ck_assert_int_eq(ledger_hash(&a, want1, want2, &e), ERR_OK);
    ck_assert_int_eq(ledger_hash_raw(&a, h1, h2, &e), ERR_OK);
    rng_hex(h2, sizeof h2, got);
    ck_assert_str_eq(got, want2);
    ledger_link_raw(h1, c, len, h2);
    rng_hex(h2, sizeof h2, got);
    ck_assert_str_eq(got, want2);
    ledger_fixture_sha_link(want1, c, len, got);
    ck_assert_str_eq(got, want2);
    free(c);
}
END_TEST

/* ledger_hash writes a content on the stack and moves it to the heap
 * when it outgrows it: the hash is the content's either way.  Negative
 * numbers are written as "%lld" writes them. */
START_TEST(test_hash_long_content)
{
    static int dice[300];
    ledger_entry r = ledger_fixture_roll(), a;
    char want[LEDGER_HASH_HEX], got[LEDGER_HASH_HEX], detail[3000];
    size_t i, len = 0;
    char *content;
    err_info e;

    r.modified = -3;
    r.natural = -1234567;
    content = ledger_content(&r, &len);
    ck_assert_ptr_nonnull(strstr(content, ",8:-1234567,2:-3,"));
    free(content);
    for (i = 0; i < sizeof dice / sizeof dice[0]; i++)
        dice[i] = (int)(i % 6) + 1;
    memset(detail, 'x', sizeof detail - 1);
    detail[sizeof detail - 1] = '\0';
    a = ledger_fixture_action(dice, sizeof dice / sizeof dice[0]);
    a.detail = detail;
    content = ledger_content(&a, &len);
    ck_assert_uint_gt(len, 4000);
    ledger_fixture_sha_link(HEX64, content, len, want);
    ck_assert_int_eq(ledger_hash(&a, HEX64, got, &e), ERR_OK);
    ck_assert_str_eq(got, want);
    free(content);
}
END_TEST

START_TEST(test_parse_naturals)
{
    static const struct {
        const char *text;
        int n, first, last;
    } good[] = {
        {"[4,1]", 2, 4, 1},     {"[]", 0, 0, 0},           {"[ ]", 0, 0, 0},
        {"[ 6 , 2 ]", 2, 6, 2}, {"[1000]", 1, 1000, 1000}, {"[1,2,3]", 3, 1, 3},
    };
    static const char *const bad[] = {
        "",       "4,1",   "[4,1",   "[4,,1]", "[,1]",
        "[4,]",   "[-1]",  "[1001]", "[a]",    "[4 1]",
        "[4,1]x", "[4.5]", "{4}",    "[[4]]",  "[99999999999999999999]",
    };
    int out[4];
    size_t i;

    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        ck_assert_msg(ledger_parse_naturals(good[i].text, out, 4) == good[i].n,
                      "%s", good[i].text);
        if (good[i].n > 0) {
            ck_assert_int_eq(out[0], good[i].first);
            ck_assert_int_eq(out[good[i].n - 1], good[i].last);
        }
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(ledger_parse_naturals(bad[i], out, 4) == -1, "%s",
                      bad[i]);
    ck_assert_int_eq(ledger_parse_naturals(NULL, out, 4), -1);
    /* more than max */
    ck_assert_int_eq(ledger_parse_naturals("[1,2,3,4]", out, 4), 4);
    ck_assert_int_eq(ledger_parse_naturals("[1,2,3,4,5]", out, 4), -1);
}
END_TEST

/* ---- 2. Walking the chain ----------------------------------------------- */

#define N_CHAIN 5

/* Entries 1..5, rolls of cbt_A and actions of bat_B in turn, linked. */
typedef struct chain {
    ledger_entry en[N_CHAIN];
    char prev[N_CHAIN][LEDGER_HASH_HEX], hash[N_CHAIN][LEDGER_HASH_HEX];
    int nat[N_CHAIN][2];
} chain;

/* (Re)links entries from i on, each after the stored hash of the one
 * before. */
static void chain_link(chain *ch, size_t from)
{
    size_t i;
    err_info e;

    for (i = from; i < N_CHAIN; i++) {
        memcpy(ch->prev[i], i ? ch->hash[i - 1] : ledger_genesis,
               LEDGER_HASH_HEX);
        ck_assert_int_eq(ledger_hash(&ch->en[i], ch->prev[i], ch->hash[i], &e),
                         ERR_OK);
    }
}

static void chain_make(chain *ch)
{
    size_t i;

    memset(ch, 0, sizeof *ch);
    for (i = 0; i < N_CHAIN; i++) {
        ledger_entry *en = &ch->en[i];
        ch->nat[i][0] = (int)i % 6 + 1;
        ch->nat[i][1] = 6 - (int)i % 6;
        *en = i % 2 ? ledger_fixture_action(ch->nat[i], 2)
                    : ledger_fixture_roll();
        en->pos = (long long)i + 1;
        en->seq = (int)i / 2 + 1;
        en->record_id = i % 2 ? "bat_B" : "cbt_A";
        en->natural = ch->nat[i][0];
        en->prev_hash = ch->prev[i];
        en->hash = ch->hash[i];
    }
    chain_link(ch, 0);
}

/* Walks n entries against the recorded length and head: the broken pos. */
static long long walk(const ledger_entry *en, size_t n, long long length,
                      const char *head, ledger_walk *w)
{
    err_info e;

    ck_assert_int_eq(ledger_check(en, n, length, head, w, &e), ERR_OK);
    if (w->broken_pos)
        ck_assert_msg(w->why[0] != '\0', "broken without a reason");
    return w->broken_pos;
}

START_TEST(test_check_good)
{
    chain ch;
    ledger_walk w;

    chain_make(&ch);
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN, ch.hash[4], &w), 0);
    ck_assert_int_eq(w.length, N_CHAIN);
    ck_assert_str_eq(w.head, ch.hash[4]);
    ck_assert_int_eq(walk(ch.en, 0, 0, ledger_genesis, &w), 0);
    ck_assert_str_eq(w.head, ledger_genesis);
    ck_assert_int_eq(walk(ch.en, 0, 1, ledger_genesis, &w), 1);
    /* cut consistently at its end: the walk alone cannot tell */
    ck_assert_int_eq(walk(ch.en, 4, 4, ch.hash[3], &w), 0);
}
END_TEST

START_TEST(test_check_broken)
{
    ledger_entry kept[N_CHAIN];
    ledger_walk w;
    err_info e;
    chain ch;

    /* content altered: broken at that entry */
    chain_make(&ch);
    ch.en[2].natural = ch.en[2].natural % 6 + 1;
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN, ch.hash[4], &w), 3);
    ck_assert_int_eq(w.length, 2);
    ck_assert_str_eq(w.head, ch.hash[1]);
    chain_make(&ch);
    ch.nat[3][1] = ch.nat[3][1] % 6 + 1; /* an action's die */
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN, ch.hash[4], &w), 4);
    chain_make(&ch);
    ch.en[1].detail = "{\"waves\":[2]}";
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN, ch.hash[4], &w), 2);
    /* altered and rehashed: the next entry no longer follows it */
    chain_make(&ch);
    ch.en[2].natural = ch.en[2].natural % 6 + 1;
    ck_assert_int_eq(ledger_hash(&ch.en[2], ch.prev[2], ch.hash[2], &e),
                     ERR_OK);
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN, ch.hash[4], &w), 4);
    /* and the whole rest rehashed: only the recorded head tells */
    chain_link(&ch, 2);
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN, "f00d", &w), N_CHAIN);
    /* an entry deleted */
    chain_make(&ch);
    memcpy(kept, ch.en, sizeof kept);
    memmove(&kept[2], &kept[3], 2 * sizeof kept[0]);
    ck_assert_int_eq(walk(kept, N_CHAIN - 1, N_CHAIN, ch.hash[4], &w), 3);
    /* two swapped */
    memcpy(kept, ch.en, sizeof kept);
    kept[1] = ch.en[2];
    kept[2] = ch.en[1];
    ck_assert_int_eq(walk(kept, N_CHAIN, N_CHAIN, ch.hash[4], &w), 2);
    /* no previous hash stored, or another one (its own hash intact) */
    memcpy(kept, ch.en, sizeof kept);
    kept[3].prev_hash = NULL;
    ck_assert_int_eq(walk(kept, N_CHAIN, N_CHAIN, ch.hash[4], &w), 4);
    kept[3].prev_hash = HEX64;
    ck_assert_int_eq(walk(kept, N_CHAIN, N_CHAIN, ch.hash[4], &w), 4);
    /* the recorded length and head */
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN + 1, ch.hash[4], &w),
                     N_CHAIN + 1);
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN - 1, ch.hash[4], &w),
                     N_CHAIN);
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN, ch.hash[3], &w), N_CHAIN);
    ck_assert_int_eq(walk(ch.en, N_CHAIN, N_CHAIN, NULL, &w), N_CHAIN);
}
END_TEST

/* ---- 3. Re-deriving the dice -------------------------------------------- */

/*
 * The record of a campaign: cbt_A (seeded, client seed "cs", a d6, d10,
 * d20 and d1000), bat_B (seeded, no client seed: actions of 2, 0 and 3
 * dice), cbt_E (entered) and bat_H (seeded, its seed still hidden),
 * interleaved as a campaign logs them.
 */
#define N_DICE 11
typedef struct dice_rec {
    ledger_entry en[N_DICE];
    int nat[N_DICE][3];
    uint8_t seed_a[32], seed_b[32];
    char hex_a[65], hex_b[65], com_a[65], com_b[65];
    ledger_seed seeds[3];
} dice_rec;

static void dice_make(dice_rec *d)
{
    /* record, seq, faces (roll) or dice (action) */
    static const struct {
        char rec;
        int seq, n;
    } plan[N_DICE] = {{'A', 1, 6},  {'B', 1, 2}, {'A', 2, 10}, {'B', 2, 0},
                      {'A', 3, 20}, {'E', 1, 6}, {'B', 3, 3},  {'A', 4, 1000},
                      {'E', 2, 6},  {'H', 1, 2}, {'H', 2, 1}};
    rng_v1 ra, rb;
    size_t i;
    int k;

    memset(d, 0, sizeof *d);
    for (k = 0; k < 32; k++) {
        d->seed_a[k] = (uint8_t)(k + 1);
        d->seed_b[k] = (uint8_t)(k + 101);
    }
    rng_hex(d->seed_a, 32, d->hex_a);
    rng_hex(d->seed_b, 32, d->hex_b);
    rng_commitment(d->seed_a, d->com_a);
    rng_commitment(d->seed_b, d->com_b);
    rng_v1_init(&ra, d->seed_a, (const uint8_t *)"cs", 2);
    rng_v1_init(&rb, d->seed_b, NULL, 0);
    for (i = 0; i < N_DICE; i++) {
        ledger_entry *en = &d->en[i];
        char rec = plan[i].rec;
        memset(en, 0, sizeof *en);
        en->pos = (long long)i + 1;
        en->seq = plan[i].seq;
        en->source = rec == 'E' ? "entered" : "seeded";
        en->rng = rec == 'E' ? NULL : "v1";
        if (rec == 'A' || rec == 'E') {
            en->kind = LEDGER_ROLL;
            en->record_id = rec == 'A' ? "cbt_A" : "cbt_E";
            en->faces = plan[i].n;
            en->natural = rec == 'A' ? rng_v1_die(&ra, plan[i].n) : 99;
            en->commitment = rec == 'A' ? d->com_a : NULL;
            en->client_seed = rec == 'A' ? "cs" : NULL;
            continue;
        }
        en->kind = LEDGER_ACTION;
        en->record_id = rec == 'B' ? "bat_B" : "bat_H";
        for (k = 0; k < plan[i].n; k++)
            d->nat[i][k] = rec == 'B' ? rng_v1_die(&rb, 6) : 3;
        en->naturals = d->nat[i];
        en->n_naturals = (size_t)plan[i].n;
        en->commitment = rec == 'B' ? d->com_b : HEX64;
    }
    rng_v1_cleanup(&ra);
    rng_v1_cleanup(&rb);
    d->seeds[0] = (ledger_seed){"cbt_A", d->hex_a};
    d->seeds[1] = (ledger_seed){"bat_B", d->hex_b};
    d->seeds[2] = (ledger_seed){"bat_H", NULL};
}

/* The dice check of n entries: the broken pos; counts into *c. */
static long long dice_walk(const ledger_entry *en, size_t n,
                           const ledger_seed *seeds, ledger_dice *c)
{
    ledger_walk w;
    err_info e;

    memset(&w, 0, sizeof w);
    ck_assert_int_eq(ledger_check_dice(en, n, seeds, 3, &w, c, &e), ERR_OK);
    if (w.broken_pos)
        ck_assert_msg(w.why[0] != '\0', "broken without a reason");
    return w.broken_pos;
}

START_TEST(test_dice_good)
{
    ledger_dice c;
    dice_rec d;

    dice_make(&d);
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 0);
    ck_assert_int_eq(c.seeded, 4 + 5 + 3);
    ck_assert_int_eq(c.rederived, 4 + 5);
    ck_assert_int_eq(c.entered, 2); /* 99 on a d6: recorded, not checked */
    ck_assert_int_eq(c.pending, 3);
}
END_TEST

START_TEST(test_dice_broken)
{
    ledger_entry cut[N_DICE];
    ledger_dice c;
    dice_rec d;

    /* a roll's natural changed */
    dice_make(&d);
    d.en[4].natural = d.en[4].natural % 20 + 1;
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 5);
    /* an action's die changed */
    dice_make(&d);
    d.nat[6][2] = d.nat[6][2] % 6 + 1;
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 7);
    /* the revealed seed is not the one committed to */
    dice_make(&d);
    d.seeds[0].server_seed = d.hex_b;
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 1);
    dice_make(&d);
    d.seeds[1].server_seed = "zz";
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 2);
    /* an entry names another commitment, or client seed, than its record */
    dice_make(&d);
    d.en[2].commitment = d.com_b;
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 3);
    dice_make(&d);
    d.en[7].client_seed = "other";
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 8);
    /* a die missing: seq 3 follows seq 1 */
    dice_make(&d);
    memcpy(cut, d.en, sizeof cut);
    memmove(&cut[2], &cut[3], (N_DICE - 3) * sizeof cut[0]);
    ck_assert_int_eq(dice_walk(cut, N_DICE - 1, d.seeds, &c), 5);
    /* an action out of place: bat_H's seq 2 first */
    dice_make(&d);
    d.en[9].seq = 2;
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 10);
    /* once bat_H's seed is revealed, its dice are checked too */
    dice_make(&d);
    d.seeds[2].server_seed = d.hex_a;
    ck_assert_int_eq(dice_walk(d.en, N_DICE, d.seeds, &c), 10);
}
END_TEST

Suite *suite_ledger_core(void)
{
    Suite *s = suite_create("ledger_core");
    TCase *core = tcase_create("core");

    tcase_add_test(core, test_content_roll);
    tcase_add_test(core, test_content_action);
    tcase_add_test(core, test_link);
    tcase_add_test(core, test_link_raw);
    tcase_add_test(core, test_hash_long_content);
    tcase_add_test(core, test_parse_naturals);
    tcase_add_test(core, test_check_good);
    tcase_add_test(core, test_check_broken);
    tcase_add_test(core, test_dice_good);
    tcase_add_test(core, test_dice_broken);
    suite_add_tcase(s, core);
    return s;
}
