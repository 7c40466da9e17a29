/*
 * ledger_fixture.h: what the ledger suites (tests/core/test_ledger.c for
 * core/ledger.c, tests/db/test_ledger.c for the database side) share: a
 * time, two 64-hex-digit seeds, a link hashed here with SHA-256 apart from
 * core/ledger.c, and a roll and an action entry with every field set.
 * Helpers abort the test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_LEDGER_FIXTURE_H
#define UMPIRE_TESTS_LEDGER_FIXTURE_H

#include <stddef.h>

#include "ledger.h"

/* The time of ledger_fixture_roll, and of the database tests' records. */
#define LEDGER_FIXTURE_AT "2026-11-22T10:00:00.123Z"
/* Seeds of 64 hex digits for commitments and server seeds (the same as
 * db_fixture.h's DB_FIXTURE_HEX64 and DB_FIXTURE_HEX64_B). */
#define LEDGER_FIXTURE_HEX64                                                   \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define LEDGER_FIXTURE_HEX64_B                                                 \
    "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

/* out = hex SHA-256(prev's 32 bytes, or 32 zeros when prev is NULL ||
 * content[0..len)), computed here. */
void ledger_fixture_sha_link(const char *prev, const char *content, size_t len,
                             char out[LEDGER_HASH_HEX]);

/* A roll entry of campaign "cmp_1" with every field set (at
 * LEDGER_FIXTURE_AT, commitment LEDGER_FIXTURE_HEX64); strings are
 * literals. */
ledger_entry ledger_fixture_roll(void);

/* An action entry of "cmp_1" drawing naturals[0..n) (borrowed; NULL when n
 * is 0), commitment LEDGER_FIXTURE_HEX64_B; strings are literals. */
ledger_entry ledger_fixture_action(const int *naturals, size_t n);

#endif
