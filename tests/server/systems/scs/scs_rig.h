/*
 * scs_rig.h: what the SCS-over-HTTP suites (test_scs_http.c and
 * test_scs_vectors.c, beside it) share, on top of rig.h: campaigns,
 * SCS units and tables made through the API, combats posted and their
 * problems checked, the campaign state a refused request must not change,
 * seeded dice re-derived with rng v1, replay, and comparison of two
 * reports' outcomes.
 *
 * JSON a helper returns is kept by the rig until teardown (borrowed by the
 * caller), so a test frees nothing and a failing assertion leaks nothing.
 * Helpers abort the test (Check) on failure, naming rig_ctx.
 */
#ifndef UMPIRE_TESTS_SCS_RIG_H
#define UMPIRE_TESTS_SCS_RIG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "harness.h"
#include "rig.h"

/* Request bodies written compactly.  Counters: attack, defense and a
 * reduced side (TWO) or none (ONE).  A combat on a table (COMBAT), on the
 * example table with entered dice (FIGHT): campaign units by name (UN),
 * with multipliers (UM), or one-off units inline (IU); "more" is other
 * members, each with its leading comma, such as ENTERED and ROLL. */
#define RED        "\"reduced\":{\"attack\":1,\"defense\":1}"
#define TWO(a, d)  "{\"attack\":" #a ",\"defense\":" #d "," RED "}"
#define ONE(a, d)  "{\"attack\":" #a ",\"defense\":" #d "}"
#define ROLL(a, b) ",\"roll\":[" #a "," #b "]"
#define UN(n)      "{\"unit\":\"" n "\"}"
#define UM(n, m)   "{\"unit\":\"" n "\",\"multipliers\":[" m "]}"
#define IU(n, a, d, more)                                                      \
    "{\"name\":\"" n "\",\"attack\":" #a ",\"defense\":" #d more "}"
#define ENTERED ",\"dice\":{\"source\":\"entered\"}"
#define COMBAT(table, att, def, more)                                          \
    "{\"table\":\"" table "\",\"attackers\":[" att "],\"defenders\":[" def     \
    "]" more "}"
#define FIGHT(att, def, more) COMBAT("example-2d6", att, def, ENTERED more)

/* Checked fixture: rig_setup and a pool of kept JSON; teardown frees it. */
void scs_rig_setup(void);
void scs_rig_teardown(void);

/* Keeps j (stolen) until teardown; returns it. */
json_t *scs_rig_keep(json_t *j);

/* Shorthands for jansson lookups (borrowed; NULL when absent). */
json_t *scs_get(const json_t *o, const char *k);
json_t *scs_at(const json_t *a, size_t i);
const char *scs_str(const json_t *o, const char *k);
/* JSON text to a kept value (aborts on a typo); printf-style. */
json_t *scs_json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* j as compact text (new string: the caller frees it). */
char *scs_text(const json_t *j);

/* A request with a printf path that must answer status; its body (kept;
 * NULL when empty). */
json_t *scs_call(int status, const char *method, const char *token,
                 const char *body, const char *path_fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A campaign with these sides (NULL-terminated) and "options" JSON (or
 * NULL). */
void scs_rig_campaign(test_campaign *c, const char *options,
                      const char *const sides[]);
/* Creates a unit carrying SCS only: scs is the "scs" object's JSON.  Its
 * id in id_out (64 bytes) unless NULL; returns the answer (kept). */
json_t *scs_rig_unit(const test_campaign *c, const char *name, const char *side,
                     const char *scs, char *id_out);
/* PUT the table doc (JSON text) as name: the answer (kept), 201 or 200. */
json_t *scs_rig_put_table(const test_campaign *c, const char *name, int status,
                          const char *doc);

/* The vectors' example table (scs-example-crt.json) as a document without
 * its name, to put under any (new). */
json_t *scs_rig_example_doc(void);
/* A d66 table, columns 1:1 and 3:1, "-" everywhere but rows 35 (3:1
 * "D1r2") and 53 (3:1 "A1"), which tell the tens die from the units (new). */
json_t *scs_rig_d66_doc(void);
/* Sets (value JSON) or removes (value NULL) the member at path of doc,
 * path written as the server names fields: "roll", "columns[2]",
 * "rows.7[3]". */
void scs_rig_set_at(json_t *doc, const char *path, const char *value);
/* PUTs doc (taken) as the campaign's table name; the answer (kept). */
json_t *scs_rig_put_doc(const test_campaign *c, const char *name, int status,
                        json_t *doc);

/* Posts a one-off (c NULL) or campaign SCS combat; the answer (kept). */
json_t *scs_rig_combat(const test_campaign *c, int status, const char *body);
/* The path of a combat of rep ("/v1/combats/<id>" or the campaign's). */
void scs_rig_combat_path(const json_t *rep, char *out, size_t n);
/* POST <path>/replay: the answer (kept), asserted reproduced (true) or not
 * (false). */
json_t *scs_rig_replay(const json_t *rep, const char *token,
                       bool is_reproduced);

/* p is an RFC 9457 problem with this status and, unless NULL, this code and
 * field. */
void scs_rig_problem(const json_t *p, int status, const char *code,
                     const char *field);

/* A request (as scs_call) refused with this problem (scs_rig_problem);
 * the problem (kept). */
json_t *scs_rig_refuse(int status, const char *code, const char *field,
                       const char *method, const char *token, const char *body,
                       const char *path_fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* The last event of a campaign unit's history (borrowed, kept). */
json_t *scs_rig_last_event(const test_campaign *c, const char *unit);

/* The unit's entry in a report, attackers then defenders (borrowed). */
json_t *scs_rig_report_unit(const json_t *rep, const char *name);

/*
 * What a refused request must not change: the campaign's units, sides,
 * tables, combats, feed and every unit's history, and the number of
 * combats and rolls in the database (one-off ones included).  c may be
 * NULL: the database counts only.
 */
json_t *scs_rig_world(const test_campaign *c);
void scs_rig_assert_unchanged(const json_t *before, const test_campaign *c);

/* The two naturals of rep's roll re-derived from its revealed server seed
 * and client seed (rng v1), and the commitment from the seed. */
void scs_rig_check_seeded(const json_t *rep);

/* The outcomes of two reports agree: totals, odds, columns, roll, result,
 * losses, side results, eliminated, advance, and each unit's part (who the
 * unit is in a campaign aside). */
void scs_rig_assert_same_outcome(const json_t *a, const json_t *b);

/* The JSON fmt (printf-style) is part of got: object members
 * recursively, arrays of the same length element by element, other values
 * equal. */
void scs_rig_assert_has(const json_t *got, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* rep's "input" posted as a one-off with rep's roll entered gives the same
 * outcome. */
void scs_rig_resubmit(const json_t *rep);
/* A unit's part in rep: its multipliers (JSON text) and exact value. */
void scs_rig_check_value(const json_t *rep, const char *unit, const char *mult,
                         const char *value);
/* rep's result is the cell of the table doc at its roll and column. */
void scs_rig_check_cell(const json_t *rep, const json_t *doc);
/* The steps side ("attacker", "defender") lost in rep, as logged. */
int scs_rig_n_lost(const json_t *rep, const char *side);
/* needle is part of s (which may be NULL). */
void scs_rig_assert_contains(const char *s, const char *needle);

/* Sets (value JSON) or removes (NULL) the member at path (scs_rig_set_at's
 * form: "input.defenders[0].multipliers") of combat id's stored report,
 * written back packed, as any change in the database would; the rows
 * changed. */
int scs_rig_edit_report(const char *id, const char *path, const char *value);

#endif
