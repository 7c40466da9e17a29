/*
 * test_verifier_ledger.c: tests the ledger check of verifier/
 * (vf_verify_ledger) on a campaign ledger built by verifier_fixture.c:
 * the good ledger verified, each kind of tampering (an entry altered,
 * replaced, removed or renumbered, the head or length wrong, a die
 * rewritten with the chain after it, a seed that is not the committed one)
 * caught and named, unrevealed seeds and empty ledgers, and malformed
 * ledgers refused as unusable input.
 */
#include <stddef.h>

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
    tcase_add_loop_test(ledger, test_ledger_malformed, 0,
                        (int)(sizeof bad_ledgers / sizeof *bad_ledgers));
    suite_add_tcase(s, ledger);
    return s;
}
