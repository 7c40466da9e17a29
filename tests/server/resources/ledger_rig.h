/*
 * ledger_rig.h: what the ledger and idempotency suites over HTTP
 * (test_ledger_http.c, beside it, and tests/server/http/
 * test_idempotency_http.c) share, on top of scs_rig.h: requests with any
 * headers (Idempotency-Key, Accept) whose every response header can be
 * read, bursts of identical requests from many threads, a campaign whose
 * units fight every system, and the campaign ledger exported, recomputed
 * from its fields and rewritten in the database (harness.h's SQL, which
 * the suites use directly too).
 *
 * JSON a helper returns is kept by the scs rig until teardown (borrowed by
 * the caller).  Helpers abort the test (Check) on failure, naming rig_ctx,
 * except lg_send, which threads call.
 */
#ifndef UMPIRE_TESTS_LEDGER_RIG_H
#define UMPIRE_TESTS_LEDGER_RIG_H

#include <stdbool.h>
#include <stddef.h>

#include <check.h>
#include <jansson.h>

#include "harness.h"
#include "ledger.h"
#include "scs_rig.h"

/* Request bodies of the ledger suites: campaign SCRUD of blue's units
 * against red's ("more": other members), a unit named or with its die,
 * a client seed. */
#define SU(n)     "{\"unit\":\"" n "\"}"
#define SUD(n, d) "{\"unit\":\"" n "\",\"die\":" #d "}"
#define SCRUD(b, r, more)                                                      \
    "{\"sides\":[{\"side\":\"blue\",\"units\":[" b "]},{\"side\":\"red\","     \
    "\"units\":[" r "]}]" more "}"
#define CS(s) ",\"dice\":{\"client_seed\":\"" s "\"}"

/* Checked fixture: scs_rig_setup, and the texts of responses kept until
 * teardown. */
void lg_setup(void);
void lg_teardown(void);
/* Adds the tampering tests (test_ledger_tamper.c) to the suite's case. */
void lg_add_tamper_tests(TCase *tc);

/* One response: its status, headers and body (kept until teardown when it
 * came from lg_post/lg_get; owned by the caller of lg_send). */
typedef struct lg_resp {
    int status;
    char *head;   /* the status line and the headers */
    char *body;   /* NUL-terminated */
    json_t *json; /* the parsed body, or NULL */
    char content_type[128];
    char location[256];
    char code[64];    /* a problem's code, or "" */
    bool is_replayed; /* Idempotent-Replayed: true */
} lg_resp;

/* The value of header name in r (case-insensitive), "" when absent. */
void lg_header(const lg_resp *r, const char *name, char *out, size_t n);

/* Sends method path with an optional token, Idempotency-Key (key, sent as
 * given even when empty; NULL: none), other header lines ("Name: value\r\n"
 * each, or NULL) and body (JSON text or NULL), and reads the response.
 * Returns 0, or -1 when the server could not be reached.  Asserts nothing:
 * safe from any thread.  lg_resp_cleanup frees what it got. */
int lg_send(const char *method, const char *path, const char *token,
            const char *key, const char *headers, const char *body,
            lg_resp *out);
void lg_resp_cleanup(lg_resp *r);

/* A request (path printf-style) that must answer status; the response,
 * kept until teardown (its json kept by the scs rig). */
lg_resp *lg_do(int status, const char *method, const char *token,
               const char *key, const char *headers, const char *body,
               const char *path_fmt, ...) __attribute__((format(printf, 7, 8)));

/* One request of a burst: what each thread got (status -1: no answer). */
typedef struct lg_shot {
    int status;
    char *body;
    char code[64];
    char location[256];
    bool is_replayed;
} lg_shot;

/* Sends the same request from n threads (n <= 16) released together; each
 * answer in shots (bodies kept until teardown). */
void lg_burst(int n, const char *method, const char *path, const char *token,
              const char *key, const char *body, lg_shot *shots);

/* ---- campaigns ---- */

/* The campaign's next commitment into out (65 bytes), asserted to be 64
 * hex digits. */
void lg_next(const test_campaign *c, char out[65]);
/* A campaign with the sides blue and red and the units B1, B2 (blue) and
 * R1, R2 (red), which fight SCRUD, EDNA and Matrix, and Civilization
 * infantry cb1 (blue) and cr1 (red) of era 1 and bonus -20 (they deal no
 * damage, so a battle of theirs stays open). */
void lg_campaign(test_campaign *c);

/* Posts body to the campaign's route (e.g. "combats/scrud") as the
 * umpire, no key; the answer (kept), which must have status. */
json_t *lg_cpost(const test_campaign *c, int status, const char *route,
                 const char *body);

/* rep's dice are seeded and revealed: the server seed's SHA-256 is
 * commitment (and dice.commitment), and every roll's natural is the rng v1
 * stream of that seed and the client seed, in seq order, at its faces. */
void lg_check_seeded(const json_t *rep, const char *commitment);

/* POST .../battles/{bid}/actions as the umpire; the answer (kept), which
 * must have status. */
json_t *lg_act(const test_campaign *c, const char *bid, int status,
               const char *body);

/* ---- the ledger ---- */

/* GET .../ledger and GET .../ledger/verify (query: "" or "?pos=..&hash=..")
 * as the umpire (kept). */
json_t *lg_ledger(const test_campaign *c);
json_t *lg_verify(const test_campaign *c, const char *query_fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* verify's answer: verified, the counts of its dice, and, when not
 * verified, first_broken's pos (0: null) and a word of its problem (or
 * NULL for any). */
void lg_check_verified(const json_t *v, long long length, long long seeded,
                       long long rederived, long long entered,
                       long long pending);
void lg_check_broken(const json_t *v, long long pos, const char *word);

/* An exported entry as a ledger_entry of campaign_id (borrowing j; its
 * naturals into the caller's array). */
void lg_entry(const json_t *j, const char *campaign_id, ledger_entry *en,
              int naturals[LEDGER_MAX_NATURALS]);
/* Every entry of an export recomputed from its fields (ledger_content and
 * ledger_link): pos 1..n, each prev_hash the hash before, each hash its
 * own, the head the last, the length n. */
void lg_recompute(const json_t *ledger);
/* Rewrites the stored hashes of every entry of ledger from pos from on as
 * its (edited) fields give them, consistently, and the campaign's head:
 * a rewrite only the dice check can see. */
void lg_rewrite(const test_campaign *c, const json_t *ledger, long long from);
/* The entry of the export at pos (borrowed). */
json_t *lg_at(const json_t *ledger, long long pos);

/* A campaign combat's report and the export: its ledger member spans
 * first..last, sealed by the hash of entry last (lg_check_span); the
 * entries from first on are its rolls in seq order, with its dice
 * (lg_check_rolls). */
void lg_check_span(const json_t *rep, const json_t *ledger, long long first,
                   long long last);
void lg_check_rolls(const json_t *rep, const json_t *ledger, long long first);
/* The export's entry pos is battle bid's action seq of this kind, drawing
 * n dice. */
void lg_check_action(const json_t *ledger, long long pos, const char *bid,
                     int seq, const char *action, size_t n);
/* The campaign shows a ledger of length entries headed by head, and its
 * url. */
void lg_check_head(const test_campaign *c, long long length, const char *head);

#endif
