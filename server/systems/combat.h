/*
 * combat.h: what combats of every system share in the server: how the
 * request's "dice" are read (and a seed drawn), the dice and roll-log parts
 * of a report, and the checks replay makes whatever the system (combat.c);
 * a campaign combat's outcome staged off the writer, its units and its
 * campaign's combats in flight (combat_stage.c).
 */
#ifndef UMPIRE_COMBAT_H
#define UMPIRE_COMBAT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "db.h"
#include "dice.h"
#include "err.h"
#include "http.h"
#include "jsonw.h"

/* How a combat's dice are produced. */
typedef struct combat_dice {
    dice_kind kind;
    uint8_t seed[RNG_SEED_LEN];
    char seed_hex[2 * RNG_SEED_LEN + 1];
    char commitment[65];
    char client_seed[RNG_CLIENT_SEED_MAX + 1];
    size_t client_seed_len;
    bool has_client_seed;
    bool has_seed; /* seed drawn, or taken from a commitment */
    /* "commitment": the seed committed ahead that the caller cites */
    char cited[65];
    bool is_cited;
} combat_dice;

/* One-off commitments not used within this many seconds expire. */
#define COMBAT_COMMITMENT_TTL (24 * 60 * 60)

#define COMBAT_NOTE_MAX 500 /* bytes of a combat's note */

/*
 * What every combat shares from request to stored record.  A system's job
 * struct starts with one, so the steps below (and combat_finish, which
 * finds it as the request's state) serve every system.
 */
/* One write of an outcome worked out off the writer (pipeline_stage), in
 * the order the system's apply made it. */
typedef struct combat_change {
    bool is_event; /* a history event (ev); else a unit's new row (unit) */
    db_unit unit;
    db_event ev; /* its before, after and result owned */
} combat_change;

typedef struct combat_record {
    combat_dice dice;
    char note[COMBAT_NOTE_MAX + 1];
    bool has_note;
    char campaign_id[DB_ID_MAX]; /* "" one-off */
    char token_id[DB_ID_MAX];    /* who resolved it; "" one-off */
    db_combat cb;                /* cb.report: the report, without rolls */
    db_roll *rolls;              /* owned */
    size_t n_rolls;
    /* the system's entry (systems.h), set by pipeline_read */
    const struct systems_entry *system;
    /* A campaign combat worked out on a snapshot of its campaign, at
     * version (pipeline_stage): its writes wait in changes for the
     * writer, which lands them if the campaign is still at version. */
    bool is_staging; /* apply records its writes instead of making them */
    bool is_staged;  /* the outcome is worked out and waits */
    long long version;
    db_chain chain_end; /* the ledger after its rolls, chained ahead */
    combat_change *changes;
    size_t n_changes, cap_changes;
    bool is_counted; /* counted in its campaign's combats in flight */
    /* Which of its campaign's aheads it was worked out on (or after: the
     * one it may leave its own in place of; combat_campaign_enter). */
    unsigned long ahead_gen;
    /* It is the one of its campaign being worked out (from its entry
     * until combat_campaign_release). */
    bool holds_work;
    /* The campaign units bind read, as it read them, for apply: each unit
     * is read once per working out (combat_bind_keep, combat_unit_before);
     * owned. */
    db_unit *bound;
    size_t n_bound, cap_bound;
    /* A staged outcome's units as it leaves them (combat_units_leave);
     * owned. */
    db_unit *left;
    size_t n_left;
} combat_record;

/* Parses the body's "dice" and "note" into rec (combat_parse_dice). */
err_code combat_parse_record(const json_t *body, combat_record *rec,
                             err_info *e);

/*
 * Commitments ahead (docs/dice.md).  A campaign's seeded combat or battle
 * takes the campaign's next commitment in its writer job, in two steps so
 * that a request the rules refuse writes nothing:
 *
 *   combat_peek_commitment reads the campaign's next commitment, without
 *   writing: its seed (and commitment) become rec's; a cited commitment
 *   must be that next one (ERR_CONFLICT otherwise);
 *   combat_claim_commitment, once the combat will land, spends rec's
 *   commitment (the one combat_peek_commitment read; the combat's or
 *   battle's record keeps it and its seed) and draws the next one in its
 *   place, in one write (db_commitment_renew).
 *
 * Both in the job's transaction; entered dice take none (ERR_OK, nothing
 * done).  combat_take_commitment is the two at once, for a caller whose
 * checks are all made before it.
 */
err_code combat_peek_commitment(db_conn *c, combat_record *rec, err_info *e);
err_code combat_claim_commitment(db_conn *c, combat_record *rec, err_info *e);
err_code combat_take_commitment(db_conn *c, combat_record *rec, err_info *e);

/* A one-off combat citing a commitment: its seed becomes rec's (read
 * through the pool; the writer job claims it, see combat_insert_job).
 * Unknown, expired or a campaign's: ERR_INVALID; used: ERR_CONFLICT. */
err_code combat_cite(db *d, combat_record *rec, err_info *e);

/* The dice source of rec: its seeded stream (its seed drawn here where
 * none was taken from a commitment), or the entered values (borrowed, in
 * draw order). */
void combat_dice_init(combat_record *rec, dice_source *src, const int *entered,
                      size_t n_entered);

/* Fills rec->cb for a combat of system just resolved: a new id, the time,
 * the dice (seed revealed), who and the note. */
void combat_record_row(combat_record *rec, const char *system);

/* Names of a logged die's side and unit, from the system's own plan. */
typedef void (*combat_roll_names)(const void *plan, const dice_roll *d,
                                  const char **side, const char **unit_name,
                                  const char **unit_id);

/* rec's roll log as rows to store, from the dice source's log. */
err_code combat_record_rolls(combat_record *rec, const dice_source *src,
                             combat_roll_names names, const void *plan,
                             err_info *e);

/* The report's opening members (id, system, campaign_id, created_at,
 * note), cb's, into the object open in w. */
void combat_report_head(jw *w, const db_combat *cb);

/* How rec's dice were produced, for the Markdown summaries; the same for
 * a stored combat by its row's dice_source. */
const char *combat_dice_note(const combat_record *rec);
const char *combat_dice_note_of(const char *source);

/* Frees what rec owns and wipes the seed; NULL allowed. */
void combat_record_cleanup(combat_record *rec);

/* Records in a unit's history that rec's combat changed it from before to
 * after; result (taken, freed) is the unit's entry of the report, written
 * as a JSON object. */
err_code combat_unit_event(db_conn *c, combat_record *rec,
                           const db_unit *before, const db_unit *after,
                           jw *result, err_info *e);
/* The same with the result's text (taken, freed; NULL: out of memory). */
err_code combat_unit_event_text(db_conn *c, combat_record *rec,
                                const db_unit *before, const db_unit *after,
                                char *text, err_info *e);
/* Writes a unit's new row for rec's combat (db_unit_update). */
err_code combat_unit_update(db_conn *c, combat_record *rec,
                            const db_unit *after, err_info *e);
/* While rec->is_staging, both record what they would write in
 * rec->changes instead; combat_changes_write makes those writes (the
 * units' rows, then the events in their order, in one call:
 * db_events_insert_logged, after the combat's row of the event log held
 * back, held, with them where it can: db_combat_insert_chained), and
 * combat_record_unstage drops them with the outcome (its rolls, report
 * and summary) so that the combat can be worked out again. */
err_code combat_changes_write(db_conn *c, const combat_record *rec,
                              db_combat_log *held, err_info *e);
/* The units rec's staged outcome leaves: those bind read, with the new
 * rows apply made, as stored (rec->left); none when out of memory.  Off
 * the writer, once apply has run. */
void combat_units_leave(combat_record *rec);
/* Once combat_changes_write has landed rec's staged outcome: rec->left
 * (taken) for the next combats of its campaign to read without the store
 * (db_units_landed). */
void combat_units_landed(db_conn *c, combat_record *rec);
/* Packs the documents of the history events recorded in rec->changes
 * into the combat's row (db_combat_pack_events), off the writer, so that
 * combat_changes_write stores the events without them.  ERR_NOMEM. */
err_code combat_changes_pack(combat_record *rec, err_info *e);
void combat_record_unstage(combat_record *rec);

/* Keeps a copy of u, a unit bind has read and accepted, for apply.
 * ERR_NOMEM. */
err_code combat_bind_keep(combat_record *rec, const db_unit *u);
/* The unit unit_id as bind read it, or as c holds it when bind did not
 * keep it (db_unit_find).  Bind and apply read the same state (one
 * snapshot, or the writer's one transaction), so a unit is not read
 * twice. */
err_code combat_unit_before(db_conn *c, const combat_record *rec,
                            const char *unit_id, db_unit *out, err_info *e);
/* Forgets the units kept: before bind reads them again. */
void combat_bound_clear(combat_record *rec);

/*
 * Counts rec among its campaign's combats between their reading and
 * their writer job, and says how pipeline_stage works it out: alone (no
 * other in flight); ahead of those in flight, on how they leave the
 * campaign (*ahead, a copy: combat_ahead_free it), since the store lands
 * a campaign's jobs in the order they are handed to it (SQLite's one
 * writer, and PostgreSQL's writers, which take a campaign's jobs one at a
 * time: pg_writers.c); or not (the writer works it out whole, as it
 * always may).  Where another combat of
 * the campaign is being worked out, it waits for it, until
 * combat_campaign_release (its job handed to the writer); where those in
 * flight leave nothing to be worked out ahead on, it waits for them to
 * land, then is worked out alone (50 ms at most for the one, 5 ms for
 * the others, then the writer; once a wait for the others has run out,
 * the writer at once, until none is in flight).
 * combat_campaign_worked, once it is worked out or not, keeps
 * what it leaves for the next (where it was staged with dice, seeded or
 * entered: its landing shows the ones before landed), on the ahead
 * it was worked out on (is_on_ahead) or its snapshot alone; seen, the
 * campaign's version in its snapshot (what the combats before it left
 * up to there, the next reads from the store).
 * combat_campaign_no_ahead: the combats in flight will not land as
 * worked out (one was worked out again), so none is worked out ahead of
 * them.  combat_campaign_leave, once rec's batch is committed or rolled
 * back (combat_committed, on the writer's thread; or rec is freed), ends
 * the count: a combat worked out before that commit is worked out ahead
 * of it, not on a snapshot without it.  All are no-ops for a record not
 * counted.
 */
typedef enum combat_enter {
    COMBAT_ENTER_WRITER,
    COMBAT_ENTER_ALONE,
    COMBAT_ENTER_AHEAD
} combat_enter;
combat_enter combat_campaign_enter(combat_record *rec, db_ahead *ahead);
void combat_campaign_worked(combat_record *rec, bool is_on_ahead,
                            long long seen);
void combat_campaign_no_ahead(const char *campaign_id);
/* The next combat of rec's campaign may be worked out: rec's writer job
 * is handed over (or never will be), so that it lands before the next.
 * A no-op unless rec holds that (combat_campaign_enter). */
void combat_campaign_release(combat_record *rec);
void combat_campaign_leave(combat_record *rec);
/* combat_campaign_leave of state (a request's, starting with its
 * combat_record): its request's committed hook (http.h). */
void combat_committed(void *state);
/* The longest combat_campaign_enter waits, in ms, for one being worked
 * out (50) and for those in flight to land (5); 0 or less puts each
 * back: the tests' own. */
void combat_campaign_set_wait(int ms, int drain_ms);
void combat_ahead_free(db_ahead *a);

/* Writer job of a one-off combat: claims its cited commitment, if any,
 * and stores its record (arg: the request's state, which starts with a
 * combat_record). */
err_code combat_insert_job(db_conn *c, void *arg, err_info *e);

/* Finish of every combat request: 201 with the report and its roll log
 * and the Location of the combat, or the job's problem. */
void combat_finish(http_request *r, err_code rc, const err_info *e);

/* Parses the body's "dice" ({"source", "client_seed", "commitment"})
 * into d.  Seeded dice get their server seed, and its commitment, when
 * they are first rolled (combat_dice_init: fresh from the operating
 * system), unless a commitment's was taken before (a campaign's next,
 * combat_peek_commitment; one a one-off cites, combat_cite). */
err_code combat_parse_dice(const json_t *body, combat_dice *d, err_info *e);

/* The report's "dice" object for a stored combat. */
void combat_dice_write(jw *w, const db_combat *cb);
/* The roll log as a JSON array. */
void combat_rolls_write(jw *w, const db_roll *rolls, size_t n);
/* The report as served: the stored report text with its roll log spliced
 * in as the last member (new string, or NULL). */
char *combat_report_with_rolls(const char *report, const db_roll *rolls,
                               size_t n);

/* Appends one difference to a replay's list. */
void combat_differ(json_t *diffs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Seeded dice: the revealed seed matches its commitment and, with the
 * client seed, gives every logged natural (rng v1).  True when all match. */
bool combat_check_seeded_dice(const db_combat *cb, const db_roll *rolls,
                              size_t n, json_t *diffs);
/*
 * A system's replay step: resolves the combat its stored report records,
 * drawing from src (the logged naturals), and says in diffs where its
 * outcome differs from the report.  False when the report or the dice do
 * not describe a combat that resolves (a difference is said).
 */
typedef bool (*combat_replay_fn)(const json_t *report, dice_source *src,
                                 json_t *diffs);

/* Replays a stored combat through replay: the logged naturals feed it, the
 * log must be used whole, and each die must come out with the faces, reason
 * and modified value logged.  ERR_INTERNAL when the record cannot be read. */
err_code combat_replay(const db_combat *cb, const db_roll *rolls, size_t n,
                       combat_replay_fn replay, json_t *diffs, err_info *e);

/* A combat read back with its facts (db.h) and no report: its report
 * rendered again by its system (render_facts) from them (its input and
 * the dice it drew, not its roll log: the report says what the combat
 * was, as a stored report did, and replay compares the log with it),
 * into cb->report (new).  ERR_INTERNAL, said so, when its system stores
 * no facts or they do not render; ERR_NOMEM. */
err_code combat_render_facts(db_combat *cb, err_info *e);

/* The history results of a combat stored as its facts (db.h): each of
 * its units' (the result its history event was given at the combat),
 * rendered again from the facts, each when it is first asked: a unit's
 * history page asks one unit's of each combat.  A history page (or a
 * stream's turn) keeps the last combat's, for the events of the same
 * combat that follow it. */
typedef struct combat_results {
    char combat_id[DB_ID_MAX]; /* whose: "" none loaded */
    size_t n, cap;             /* units, and room for */
    char (*unit_id)[DB_ID_MAX];
    char **text; /* each unit's result, new; NULL until asked */
    /* The system's facts resolved, kept to render unit i's result (new;
     * NULL: out of memory) when it is asked, and freed with r. */
    void *facts;
    char *(*render)(void *facts, size_t i);
    void (*facts_free)(void *facts);
    /* The rolls of rolls_combat_id ("" none read), all its units', kept
     * for the feed, whose events of one combat follow each other
     * (combat_results_rolls). */
    char rolls_combat_id[DB_ID_MAX];
    db_roll *rolls;
    size_t n_rolls;
} combat_results;
/* Loads into r the results of combat_id, unless r holds them already;
 * none (n 0) when it is not stored as its facts, or has no row.
 * ERR_INTERNAL when they do not render, ERR_DB when they are damaged. */
err_code combat_results_load(db_conn *c, const char *combat_id,
                             combat_results *r, err_info *e);
/* As combat_results_load, from the system and facts of combat_id read
 * already (db_event's, read with a unit's page): borrowed, not kept. */
err_code combat_results_load_facts(const char *combat_id, const char *system,
                                   const unsigned char *facts, size_t len,
                                   combat_results *r, err_info *e);
/* unit_id's result in r into *out (NULL: none), rendered on its first
 * ask; ERR_NOMEM. */
err_code combat_results_of(combat_results *r, const char *unit_id,
                           const char **out, err_info *e);
/* For the systems' results_facts: facts (stolen) kept in r with how unit
 * i's result is rendered from them and how they are freed, then each unit
 * added in the order render numbers them (false when out of memory).
 * render's text is a JSON object as the JSON writer (jsonw.h) wrote it:
 * a history page serves it as it is, unchecked. */
void combat_results_keep(combat_results *r, void *facts,
                         char *(*render)(void *facts, size_t i),
                         void (*facts_free)(void *facts));
bool combat_results_add(combat_results *r, const char *unit_id);
/* The rolls of combat_id, all its units', into *out (n of them; r's,
 * until it is asked another combat's rolls or is cleaned up; loading
 * another combat's results keeps them): read once for the
 * events of the combat that follow one another (a page of the feed reads
 * each combat's once, not once for each of its units). */
err_code combat_results_rolls(db_conn *c, const char *combat_id,
                              combat_results *r, const db_roll **out, size_t *n,
                              err_info *e);
void combat_results_cleanup(combat_results *r);

/* For replay, a combat stored as its facts: what differs between them and
 * its n logged rolls, into diffs (its system's check_facts: for SCRUD,
 * each die's natural, and the one-line summary stored with the combat). */
void combat_check_facts(const db_combat *cb, const db_roll *rolls, size_t n,
                        json_t *diffs);

/* The report's own "dice" agree with the combat's row. */
void combat_check_report_dice(const db_combat *cb, json_t *diffs);

#endif
