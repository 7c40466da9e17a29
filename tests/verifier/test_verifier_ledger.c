/*
 * test_verifier_ledger.c: tests the ledger check of verifier/
 * (vf_verify_ledger) on a campaign ledger built by verifier_fixture.c:
 * the good ledger verified, each kind of tampering (an entry altered,
 * replaced, removed or renumbered, the head or length wrong, a die
 * rewritten with the chain after it, a seed that is not the committed one)
 * caught and named, unrevealed seeds and empty ledgers, and malformed
 * ledgers refused as unusable input.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "suites.h"
#include "verifier_fixture.h"
#include "vf_verify.h"

/* The record i of seeds (0-based), borrowed. */
static json_t *seeds_at(json_t *ledger, size_t i)
{
    return json_array_get(json_object_get(ledger, "seeds"), i);
}

static size_t n_entries(json_t *ledger)
{
    return json_array_size(json_object_get(ledger, "entries"));
}

START_TEST(test_ledger_good)
{
    json_t *L = verifier_fixture_ledger();

    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_OK,
                            "RESULT: verified: 8 entries");
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_OK,
                            "battle bat_b: seed matches its "
                            "commitment; 3 dice re-derived");
    json_decref(L);
}
END_TEST

START_TEST(test_ledger_altered_entry)
{
    json_t *L = verifier_fixture_ledger();

    verifier_fixture_change_die(verifier_fixture_entry_at(L, 2));
    verifier_fixture_expect(
        L, VF_MODE_LEDGER, VF_MISMATCH,
        "PROBLEM: entry 2: hash does not match its content");
    json_decref(L);
}
END_TEST

START_TEST(test_ledger_replaced_entry)
{
    json_t *L = verifier_fixture_ledger();

    verifier_fixture_change_die(verifier_fixture_entry_at(L, 2));
    verifier_fixture_rehash(L, 1, 2);
    verifier_fixture_expect(
        L, VF_MODE_LEDGER, VF_MISMATCH,
        "PROBLEM: entry 3: prev_hash does not match entry 2");
    json_decref(L);
}
END_TEST

START_TEST(test_ledger_deleted_entry)
{
    json_t *L = verifier_fixture_ledger();

    json_array_remove(json_object_get(L, "entries"), 4);
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_MISMATCH,
                            "PROBLEM: entry 5 is missing");
    json_decref(L);
}
END_TEST

START_TEST(test_ledger_head_and_length)
{
    json_t *L = verifier_fixture_ledger();
    json_t *head = json_deep_copy(json_object_get(L, "head"));

    json_object_set(L, "head",
                    json_object_get(verifier_fixture_entry_at(L, 7), "hash"));
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_MISMATCH,
                            "PROBLEM: head is not");
    json_object_set_new(L, "head", head);
    json_object_set_new(L, "length", json_integer(7));
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_MISMATCH,
                            "PROBLEM: length says 7");
    /* The last entry dropped: the chain holds, the length and head do not. */
    json_object_set_new(L, "length", json_integer(8));
    json_array_remove(json_object_get(L, "entries"), 7);
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_MISMATCH,
                            "but the ledger has 7 entries");
    json_decref(L);
}
END_TEST

/* A die rewritten with the whole chain after it: only the seed catches it. */
START_TEST(test_ledger_rewritten_die)
{
    json_t *L = verifier_fixture_ledger();

    verifier_fixture_change_die(verifier_fixture_entry_at(L, 6));
    verifier_fixture_rehash(L, 0, n_entries(L));
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_MISMATCH,
                            "chain: 8 entries, each linked");
    verifier_fixture_expect(
        L, VF_MODE_LEDGER, VF_MISMATCH,
        "PROBLEM: entry 6: combat cbt_c die 2: the seed gives");
    json_decref(L);
    L = verifier_fixture_ledger();
    verifier_fixture_change_die(verifier_fixture_entry_at(L, 7));
    verifier_fixture_rehash(L, 0, n_entries(L));
    verifier_fixture_expect(
        L, VF_MODE_LEDGER, VF_MISMATCH,
        "PROBLEM: entry 7: battle bat_b action 2 die 1: the seed gives");
    json_decref(L);
}
END_TEST

START_TEST(test_ledger_wrong_seed)
{
    json_t *L = verifier_fixture_ledger();

    json_object_set(seeds_at(L, 0), "server_seed",
                    json_object_get(seeds_at(L, 2), "server_seed"));
    verifier_fixture_expect(
        L, VF_MODE_LEDGER, VF_MISMATCH,
        "PROBLEM: combat cbt_a: the server seed does not match its "
        "commitment");
    json_decref(L);
}
END_TEST

START_TEST(test_ledger_entry_disagrees_with_record)
{
    json_t *L = verifier_fixture_ledger();

    json_object_set_new(verifier_fixture_entry_at(L, 5), "client_seed",
                        json_string("x"));
    verifier_fixture_rehash(L, 0, n_entries(L));
    verifier_fixture_expect(
        L, VF_MODE_LEDGER, VF_MISMATCH,
        "PROBLEM: entry 5: its client_seed differs from combat cbt_c's");
    json_decref(L);
    L = verifier_fixture_ledger();
    json_array_remove(json_object_get(L, "seeds"), 2);
    verifier_fixture_expect(
        L, VF_MODE_LEDGER, VF_MISMATCH,
        "PROBLEM: entry 5: combat cbt_c is not listed in seeds");
    json_decref(L);
}
END_TEST

/* Two dice of one combat with the same number, the chain rebuilt. */
START_TEST(test_ledger_die_renumbered)
{
    json_t *L = verifier_fixture_ledger();

    json_object_set_new(verifier_fixture_entry_at(L, 2), "seq",
                        json_integer(3));
    verifier_fixture_rehash(L, 0, n_entries(L));
    verifier_fixture_expect(
        L, VF_MODE_LEDGER, VF_MISMATCH,
        "PROBLEM: entry 2: combat cbt_a has die 3 where 2 should be");
    json_decref(L);
}
END_TEST

/*
 * A battle still open: its seed is not revealed.  Not an error, and the
 * rest of the ledger verified, so VF_OK, the summary counting it.
 */
START_TEST(test_ledger_unrevealed)
{
    json_t *L = verifier_fixture_ledger();

    json_object_set_new(seeds_at(L, 1), "server_seed", json_null());
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_OK,
                            "battle bat_b: seed not yet revealed");
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_OK, "1 not yet revealed");
    json_decref(L);
}
END_TEST

START_TEST(test_ledger_empty)
{
    json_t *L = verifier_fixture_ledger();

    json_array_clear(json_object_get(L, "entries"));
    json_array_clear(json_object_get(L, "seeds"));
    json_object_set_new(L, "length", json_integer(0));
    json_object_set_new(L, "head",
                        json_string("0000000000000000000000000000"
                                    "000000000000000000000000000000"
                                    "000000"));
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_UNVERIFIABLE, "no entries");
    json_decref(L);
}
END_TEST

/* A part of an export (?after=N) is refused as such: its chain starts at
 * entry N + 1, not at the genesis. */
START_TEST(test_ledger_part_refused)
{
    json_t *L = verifier_fixture_ledger();

    json_object_set_new(L, "after", json_integer(2));
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_BAD_INPUT,
                            "the part of a ledger after entry 2");
    json_decref(L);
}
END_TEST

/* Malformed ledgers: a member of the ledger (pos 0), of an entry (pos) or
 * of the first record of seeds (pos -1) replaced, or removed. */
static const struct bad_ledger {
    int pos;
    const char *key, *json;
} bad_ledgers[] = {
    {0, "version", "\"umpire-ledger-v2\""},
    {0, "head", "\"abc\""},
    {0, "entries", NULL},
    {0, "seeds", "{}"},
    {0, "campaign_id", "null"},
    {3, "reason", NULL},
    {3, "natural", "\"4\""},
    {3, "hash", "\"xyz\""},
    {4, "naturals", "[1]"},
    {4, "faces", "[6, 1]"},
    {5, "kind", "\"move\""},
    {-1, "kind", "\"war\""},
    {-1, "server_seed", "\"00ff\""},
};

START_TEST(test_ledger_malformed)
{
    const struct bad_ledger *b = &bad_ledgers[_i];
    json_t *L = verifier_fixture_ledger();
    json_t *target = b->pos == 0 ? L
                     : b->pos < 0
                         ? seeds_at(L, 0)
                         : verifier_fixture_entry_at(L, (size_t)b->pos);

    if (b->json == NULL)
        json_object_del(target, b->key);
    else
        json_object_set_new(target, b->key,
                            json_loads(b->json, JSON_DECODE_ANY, NULL));
    verifier_fixture_expect(L, VF_MODE_LEDGER, VF_BAD_INPUT, "UNUSABLE INPUT");
    json_decref(L);
}
END_TEST

/* ---- a share link's answer (vf_verify_shared) ---- */

/* Checks doc as umpire-verify does a file (vf_verify_path, mode): the
 * result and, when not NULL, a text its report holds and one it lacks. */
static void expect_file(const json_t *doc, vf_mode mode, vf_result want,
                        const char *has, const char *lacks)
{
    char path[] = "/tmp/umpire-vf-shared.XXXXXX", *text = NULL;
    size_t len;
    int fd = mkstemp(path);
    FILE *out;
    vf_result got;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(json_dumpfd(doc, fd, 0), 0);
    close(fd);
    out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    got = vf_verify_path(path, mode, out);
    fclose(out);
    unlink(path);
    ck_assert_msg(got == want, "result %d, want %d; report:\n%s", (int)got,
                  (int)want, text);
    ck_assert_msg(has == NULL || strstr(text, has) != NULL,
                  "report lacks \"%s\":\n%s", has, text);
    ck_assert_msg(lacks == NULL || strstr(text, lacks) == NULL,
                  "report says \"%s\":\n%s", lacks, text);
    free(text);
}

/* The record of seeds whose id is id, borrowed. */
static json_t *seeds_of(json_t *L, const char *id)
{
    json_t *sd;
    size_t i;

    json_array_foreach(json_object_get(L, "seeds"), i, sd)
    {
        if (strcmp(json_string_value(json_object_get(sd, "record")), id) == 0)
            return sd;
    }
    ck_abort_msg("no seeds of %s", id);
    return NULL;
}

/*
 * A share link's answer over the fixture's ledger L: kind ("combat" for
 * cbt_c, dice 5 and 6; "battle" for bat_b, actions 4, 7 and 8;
 * "campaign"), its ledger the entries after after up to upto with the
 * seeds of the records they name.  New reference.
 */
static json_t *shared_doc(json_t *L, const char *kind, long long after,
                          long long upto)
{
    json_t *entries = json_array(), *seeds = json_array(), *report, *e;
    const char *names[3] = {"cbt_a", "bat_b", "cbt_c"};
    long long pos;
    size_t k;

    for (pos = after + 1; pos <= upto; pos++)
        json_array_append(entries, verifier_fixture_entry_at(L, (size_t)pos));
    for (k = 0; k < 3; k++) {
        bool is_named = false;
        size_t i;
        json_array_foreach(entries, i, e)
        {
            const char *rec = json_string_value(json_object_get(
                e, strcmp(names[k], "bat_b") ? "combat_id" : "battle_id"));
            is_named = is_named || (rec && strcmp(rec, names[k]) == 0);
        }
        if (is_named)
            json_array_append(seeds, seeds_of(L, names[k]));
    }
    if (strcmp(kind, "combat") == 0) {
        json_t *sd = seeds_of(L, "cbt_c"), *rolls = json_array();
        for (pos = 5; pos <= 6; pos++) {
            e = verifier_fixture_entry_at(L, (size_t)pos);
            json_array_append_new(
                rolls, json_pack("{s:O,s:O,s:O,s:O,s:O}", "seq",
                                 json_object_get(e, "seq"), "unit",
                                 json_object_get(e, "unit"), "side",
                                 json_object_get(e, "side"), "faces",
                                 json_object_get(e, "faces"), "natural",
                                 json_object_get(e, "natural")));
        }
        report =
            json_pack("{s:s,s:{s:O,s:O,s:O,s:O,s:O},s:o,s:{s:i,s:i,s:O}}", "id",
                      "cbt_c", "dice", "source", json_object_get(sd, "source"),
                      "rng", json_object_get(sd, "rng"), "commitment",
                      json_object_get(sd, "commitment"), "server_seed",
                      json_object_get(sd, "server_seed"), "client_seed",
                      json_object_get(sd, "client_seed"), "rolls", rolls,
                      "ledger", "first_pos", 5, "last_pos", 6, "hash",
                      json_object_get(verifier_fixture_entry_at(L, 6), "hash"));
    } else {
        report = json_pack("{s:s}", "id",
                           strcmp(kind, "battle") == 0 ? "bat_b" : "report");
    }
    ck_assert_ptr_nonnull(report);
    e = json_pack(
        "{s:s,s:{s:O,s:s},s:s,s:o,s:{s:I,s:O,s:o,s:o}}", "kind", kind,
        "campaign", "id", json_object_get(L, "campaign_id"), "name", "T",
        "created_at", "2026-01-01T00:00:00.000Z", "report", report, "ledger",
        "length", (json_int_t)upto, "head",
        json_object_get(verifier_fixture_entry_at(L, (size_t)upto), "hash"),
        "entries", entries, "seeds", seeds);
    ck_assert_ptr_nonnull(e);
    if (after > 0)
        json_object_set_new(json_object_get(e, "ledger"), "after",
                            json_integer(after));
    /* Its own values: the tests change them, not L's. */
    report = json_deep_copy(e);
    json_decref(e);
    return report;
}

/* The member key of a link's answer d's report, borrowed: what the
 * tests below change. */
static json_t *in_report(json_t *d, const char *key)
{
    return json_object_get(json_object_get(d, "report"), key);
}

/* The shared report's seal (its ledger's hash) made entry pos's hash. */
static void seal_on(json_t *d, json_t *L, size_t pos)
{
    json_object_set(in_report(d, "ledger"), "hash",
                    json_object_get(verifier_fixture_entry_at(L, pos), "hash"));
}

/* A combat's link, whole and as its own part; a battle's part, another
 * combat's dice among its actions; a part that began inside a record. */
START_TEST(test_shared_good)
{
    json_t *L = verifier_fixture_ledger(), *d;

    d = shared_doc(L, "combat", 0, 6);
    /* Found by its members whichever the mode. */
    expect_file(d, VF_MODE_COMBAT, VF_OK,
                "RESULT: verified: the report's dice follow from its seed; 6 "
                "entries chained (1 to 6)",
                "NOTE: a part");
    expect_file(d, VF_MODE_LEDGER, VF_OK, "seal: entry 6, its last die, holds",
                NULL);
    json_decref(d);
    d = shared_doc(L, "combat", 4, 6);
    expect_file(d, VF_MODE_COMBAT, VF_OK, "2 entries chained (5 to 6)", NULL);
    expect_file(d, VF_MODE_COMBAT, VF_OK,
                "NOTE: a part: entries 1 to 4 were not walked", NULL);
    expect_file(d, VF_MODE_COMBAT, VF_OK,
                "the ledger holds the report's 2 dice, one for one", NULL);
    json_decref(d);
    d = shared_doc(L, "battle", 3, 8);
    expect_file(d, VF_MODE_COMBAT, VF_OK, "5 entries chained (4 to 8)",
                "began before");
    json_decref(d);
    /* The campaign's: from entry 1, with "after": 0 as the server writes
     * it for ?ledger=own. */
    d = shared_doc(L, "campaign", 0, 8);
    json_object_set_new(json_object_get(d, "ledger"), "after", json_integer(0));
    expect_file(d, VF_MODE_COMBAT, VF_OK, "8 entries chained (1 to 8)",
                "NOTE: a part");
    json_decref(d);
    json_decref(L);
}
END_TEST

/* What a link's check catches: a part that starts after the record's
 * first die, a seal that is not the entry's, a die of the report that the
 * ledger does not hold, a part's entry altered, its length wrong. */
START_TEST(test_shared_tampered)
{
    json_t *L = verifier_fixture_ledger(), *d;

    d = shared_doc(L, "combat", 5, 6);
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the part does not start at the combat's first die", NULL);
    json_decref(d);
    d = shared_doc(L, "battle", 4, 8);
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the part does not start at the battle's first action", NULL);
    json_decref(d);
    /* A campaign's link holds no part. */
    d = shared_doc(L, "campaign", 1, 8);
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "a campaign's link holds its chain from entry 1", NULL);
    json_decref(d);
    /* The report names no place in the ledger: its dice are unchecked. */
    d = shared_doc(L, "combat", 0, 6);
    json_object_del(json_object_get(d, "report"), "ledger");
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the report names no place in the ledger for its 2 dice", NULL);
    json_object_set_new(json_object_get(d, "report"), "ledger",
                        json_string("x"));
    expect_file(d, VF_MODE_COMBAT, VF_BAD_INPUT, "UNUSABLE INPUT", NULL);
    json_decref(d);
    /* The seal on another record's entry, which holds its hash. */
    d = shared_doc(L, "combat", 0, 6);
    json_object_set_new(in_report(d, "ledger"), "first_pos", json_integer(3));
    json_object_set_new(in_report(d, "ledger"), "last_pos", json_integer(4));
    seal_on(d, L, 4);
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the combat's seal, entry 4, is not its last die", NULL);
    json_decref(d);
    /* A die dropped from the report; a unit's name changed in it. */
    d = shared_doc(L, "combat", 4, 6);
    json_array_remove(in_report(d, "rolls"), 1);
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the ledger holds 2 dice of this combat, the report 1", NULL);
    json_decref(d);
    d = shared_doc(L, "combat", 4, 6);
    json_object_set_new(json_array_get(in_report(d, "rolls"), 0), "unit",
                        json_string("Someone else"));
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "die 1: the report and ledger entry 5 differ (its unit)", NULL);
    json_decref(d);
    /* The report's seed another record's (its commitment with it): its
     * dice do not follow, whatever the ledger. */
    d = shared_doc(L, "combat", 4, 6);
    json_object_set(in_report(d, "dice"), "server_seed",
                    json_object_get(seeds_of(L, "cbt_a"), "server_seed"));
    json_object_set(in_report(d, "dice"), "commitment",
                    json_object_get(seeds_of(L, "cbt_a"), "commitment"));
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the report's dice do not follow from its seed", NULL);
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "its commitment is not the report's", NULL);
    json_decref(d);
    /* A battle's seed changed in its report; an action fewer than it
     * says. */
    d = shared_doc(L, "battle", 3, 8);
    json_object_set_new(json_object_get(d, "report"), "dice",
                        json_deep_copy(seeds_of(L, "bat_b")));
    json_object_set_new(json_object_get(d, "report"), "n_actions",
                        json_integer(3));
    expect_file(d, VF_MODE_COMBAT, VF_OK,
                "the battle's seed matches its commitment", NULL);
    expect_file(d, VF_MODE_COMBAT, VF_OK,
                "the ledger holds the battle's 3 actions", NULL);
    json_object_set(in_report(d, "dice"), "server_seed",
                    json_object_get(seeds_of(L, "cbt_a"), "server_seed"));
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the battle's server seed does not match its commitment", NULL);
    json_decref(d);
    d = shared_doc(L, "battle", 3, 8);
    json_object_set_new(json_object_get(d, "report"), "n_actions",
                        json_integer(4));
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the ledger holds 3 of the battle's actions, the report 4",
                NULL);
    json_decref(d);
    d = shared_doc(L, "combat", 4, 6);
    seal_on(d, L, 5);
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "the combat's seal does not hold", NULL);
    json_decref(d);
    /* A die of the report rewritten: the seed and the ledger disagree. */
    d = shared_doc(L, "combat", 4, 6);
    verifier_fixture_change_die(json_array_get(in_report(d, "rolls"), 1));
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "die 2: the report and ledger entry 6 differ", NULL);
    json_decref(d);
    /* An entry of the part altered (its chain broken). */
    d = shared_doc(L, "combat", 4, 6);
    verifier_fixture_change_die(json_array_get(
        json_object_get(json_object_get(d, "ledger"), "entries"), 0));
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH,
                "entry 5: hash does not match its content", NULL);
    json_decref(d);
    d = shared_doc(L, "combat", 4, 6);
    json_object_set_new(json_object_get(d, "ledger"), "length",
                        json_integer(5));
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH, "length says 5", NULL);
    json_decref(d);
    /* An after past length, or near the largest integer: unusable, not
     * an overflow. */
    d = shared_doc(L, "combat", 4, 6);
    json_object_set_new(json_object_get(d, "ledger"), "after", json_integer(7));
    expect_file(d, VF_MODE_COMBAT, VF_BAD_INPUT, "UNUSABLE INPUT", NULL);
    json_object_set_new(json_object_get(d, "ledger"), "length",
                        json_integer(INT64_MAX));
    json_object_set_new(json_object_get(d, "ledger"), "after",
                        json_integer(INT64_MAX - 1));
    expect_file(d, VF_MODE_COMBAT, VF_MISMATCH, "length says", NULL);
    json_decref(d);
    /* An unusable one. */
    d = shared_doc(L, "combat", 4, 6);
    json_object_set_new(json_object_get(d, "ledger"), "after",
                        json_string("4"));
    expect_file(d, VF_MODE_COMBAT, VF_BAD_INPUT, "UNUSABLE INPUT", NULL);
    json_decref(d);
    json_decref(L);
}
END_TEST

Suite *suite_verifier_ledger(void)
{
    Suite *s = suite_create("verifier_ledger");
    TCase *ledger = tcase_create("ledger");

    tcase_add_test(ledger, test_ledger_good);
    tcase_add_test(ledger, test_ledger_altered_entry);
    tcase_add_test(ledger, test_ledger_replaced_entry);
    tcase_add_test(ledger, test_ledger_deleted_entry);
    tcase_add_test(ledger, test_ledger_head_and_length);
    tcase_add_test(ledger, test_ledger_rewritten_die);
    tcase_add_test(ledger, test_ledger_wrong_seed);
    tcase_add_test(ledger, test_ledger_entry_disagrees_with_record);
    tcase_add_test(ledger, test_ledger_die_renumbered);
    tcase_add_test(ledger, test_ledger_unrevealed);
    tcase_add_test(ledger, test_ledger_empty);
    tcase_add_test(ledger, test_ledger_part_refused);
    tcase_add_test(ledger, test_shared_good);
    tcase_add_test(ledger, test_shared_tampered);
    tcase_add_loop_test(ledger, test_ledger_malformed, 0,
                        (int)(sizeof bad_ledgers / sizeof *bad_ledgers));
    suite_add_tcase(s, ledger);
    return s;
}
