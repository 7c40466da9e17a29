/*
 * verifier_fixture.h: what the verifier suites (tests/verifier/
 * test_verifier.c and tests/verifier/test_verifier_ledger.c) share: a
 * check run with its report captured and asserted, test seeds, and a
 * campaign ledger built here and changed by the tests.
 *
 * The ledgers are hashed with libsodium's SHA-256 over the canonical
 * content of docs/ledger.md written the fixture's own way, so the chain is
 * not checked against the code under test.  Helpers abort the test (Check)
 * on failure.
 */
#ifndef UMPIRE_TESTS_VERIFIER_FIXTURE_H
#define UMPIRE_TESTS_VERIFIER_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "rng.h"
#include "vf_verify.h"

/* Runs the check of mode on doc and asserts its result, and that its
 * report says want_text (if not NULL). */
void verifier_fixture_expect(const json_t *doc, vf_mode mode, vf_result want,
                             const char *want_text);

/* The test seed first, first+1, first+2, ... */
void verifier_fixture_seed_fill(uint8_t seed[RNG_SEED_LEN], uint8_t first);

/*
 * Eight entries: combat cbt_a's three dice (pos 1-3), battle bat_b's roll
 * of 2d6 (4), combat cbt_c's two dice (5, 6), bat_b's commit drawing one d6
 * (7) and its accept drawing none (8); every seed revealed, and the records
 * of seeds in the order cbt_a, bat_b, cbt_c.  New reference.
 */
json_t *verifier_fixture_ledger(void);

/* Rewrites prev_hash and hash of entries [from, to), chained on from the
 * hash of the entry before; reaching the end, the length and head too. */
void verifier_fixture_rehash(json_t *ledger, size_t from, size_t to);

/* The entry at pos (1-based), borrowed. */
json_t *verifier_fixture_entry_at(json_t *ledger, size_t pos);

/* Changes the (first) die of an entry or a combat report's roll to
 * another face. */
void verifier_fixture_change_die(json_t *e);

#endif
