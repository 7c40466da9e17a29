/*
 * rig.h: the test rig of the SCRUD-over-HTTP suites (tests/server/systems/
 * scrud/test_scrud_http.c and test_scrud_vectors.c): a fresh server
 * per test (harness.h), a context that failure messages name, assertions
 * that print it, requests that assert their status, and lookups in combat
 * reports.  The stem is short on purpose: its names are in nearly every
 * assertion of those suites.
 *
 * JSON a helper returns is new: the caller decrefs it.  Helpers abort the
 * test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_RIG_H
#define UMPIRE_TESTS_RIG_H

#include <string.h>

#include <check.h>
#include <jansson.h>

#include "harness.h"

/* The server of the running test (between rig_setup and rig_teardown). */
extern test_server *rig_ts;

/* What the current assertion is about, for failure messages. */
extern char rig_ctx[192];

#define RIG_EQ_INT(got, want)                                                  \
    do {                                                                       \
        long long g_ = (got), w_ = (want);                                     \
        ck_assert_msg(g_ == w_, "%s: %s is %lld, expected %lld", rig_ctx,      \
                      #got, g_, w_);                                           \
    } while (0)

#define RIG_EQ_STR(got, want)                                                  \
    do {                                                                       \
        const char *g_ = (got), *w_ = (want);                                  \
        ck_assert_msg(g_ &&w_ &&strcmp(g_, w_) == 0,                           \
                      "%s: %s is %s, expected %s", rig_ctx, #got,              \
                      g_ ? g_ : "(null)", w_ ? w_ : "(null)");                 \
    } while (0)

#define RIG_IS_TRUE(cond) ck_assert_msg((cond), "%s: %s", rig_ctx, #cond)

/* Checked fixture: starts and stops the server. */
void rig_setup(void);
void rig_teardown(void);

/* An integer member that must be there. */
long long rig_inum(const json_t *o, const char *k);

/* The element of items whose member key is name, or NULL (borrowed). */
json_t *rig_find_by(const json_t *items, const char *key, const char *name);

/* A unit's entry in a report (either side), asserted present (borrowed). */
json_t *rig_report_unit(const json_t *rep, const char *name);

/* A request with a printf path; asserts status, returns the body (new). */
json_t *rig_call(int status, const char *method, const char *token,
                 const char *body, const char *path_fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* GET /v1/campaigns/{id}/<what> as the umpire (new). */
json_t *rig_cget(const test_campaign *c, const char *what_fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Posts a campaign SCRUD combat; body is the JSON text.  Returns the
 * answer (new). */
json_t *rig_campaign_combat(const test_campaign *c, int status,
                            const char *body);

/* POST .../replay (path without it) reproduces the combat. */
void rig_check_replay(const char *path, const char *token);

/* Sets the natural of roll seq of combat id to the SQL expression
 * natural ("6", "\"natural\" % 6 + 1"), as stored: one of its rows, or
 * (packed) the roll packed, the expression worked out on it
 * by the database.  The rolls changed. */
int rig_edit_roll(const char *id, int seq, const char *natural);

/* The rolls of combat id packed (a one-off's in its row, a campaign
 * combat's in its row with ledger_first, migration 22), unpacked
 * (db_rolls_unpack), changed by edit (the array may lose rolls: *n), and
 * packed again (db_combat_pack: chained rolls, the previous hash of each
 * after the first made the hash before it, as stored) and stored: a
 * tampering of what the database holds.
 * 1, or 0 when its rolls are rows, not packed. */
typedef void (*rig_rolls_fn)(db_roll *rolls, size_t *n, void *ctx);
int rig_packed_rolls_edit(const char *id, rig_rolls_fn edit, void *ctx);

#endif
