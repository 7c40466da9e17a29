/*
 * ledger_fixture.c: the ledger suites' shared entries and a link hashed
 * with libsodium's SHA-256, not core/ledger.c's; see ledger_fixture.h.
 */
#include "ledger_fixture.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sodium.h>

void ledger_fixture_sha_link(const char *prev, const char *content, size_t len,
                             char out[LEDGER_HASH_HEX])
{
    unsigned char *buf = calloc(1, 32 + len + 1), h[32];

    ck_assert_ptr_nonnull(buf);
    if (prev)
        ck_assert_int_eq(sodium_hex2bin(buf, 32, prev, 64, NULL, NULL, NULL),
                         0);
    memcpy(buf + 32, content, len);
    crypto_hash_sha256(h, buf, 32 + len);
    sodium_bin2hex(out, LEDGER_HASH_HEX, h, sizeof h);
    free(buf);
}

ledger_entry ledger_fixture_roll(void)
{
    ledger_entry en;

    memset(&en, 0, sizeof en);
    en.kind = LEDGER_ROLL;
    en.campaign_id = "cmp_1";
    en.pos = 7;
    en.at = LEDGER_FIXTURE_AT;
    en.record_id = "cbt_9";
    en.seq = 3;
    en.side = "Blue";
    en.unit_id = NULL;
    en.unit = "\xc3\x89"
              "claireurs";
    en.reason = "scrud.front";
    en.faces = 6;
    en.natural = 5;
    en.modified = 6;
    en.source = "seeded";
    en.rng = "v1";
    en.commitment = LEDGER_FIXTURE_HEX64;
    en.client_seed = NULL;
    return en;
}

ledger_entry ledger_fixture_action(const int *naturals, size_t n)
{
    ledger_entry en;

    memset(&en, 0, sizeof en);
    en.kind = LEDGER_ACTION;
    en.campaign_id = "cmp_1";
    en.pos = 12;
    en.at = "2026-11-22T10:05:00.000Z";
    en.record_id = "bat_abc";
    en.seq = 2;
    en.action = "roll";
    en.naturals = naturals;
    en.n_naturals = n;
    en.detail = "{\"waves\":[1]}";
    en.source = "seeded";
    en.rng = "v1";
    en.commitment = LEDGER_FIXTURE_HEX64_B;
    en.client_seed = "table 7";
    return en;
}
