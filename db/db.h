/*
 * db.h: the SQLite database: opening, migrations, connections, and the
 * single writer that commits many requests' writes with one fsync.
 *
 * Invariants:
 *   - the database runs in WAL mode with synchronous=FULL: a transaction
 *     reported committed survives a crash or power loss;
 *   - exactly one connection writes, owned by the writer thread; reads use
 *     a pool of read-only connections and see the last committed state;
 *     a connection goes back to the pool with no transaction open;
 *   - migrations are numbered, forward-only, each in its own transaction,
 *     and recorded in PRAGMA user_version;
 *   - a write that fails leaves nothing; one that fails because the disk
 *     is full answers ERR_FULL (db_health says so until writes land
 *     again); the write-ahead log is kept bounded (db.c says how).
 *
 * db.c implements the connections and the writer (wal.c its log's
 * upkeep, db_sql.c the SQL helpers, ids and times, doc_pack.c documents
 * stored packed, writer_kept.c what SQLite's writer keeps between its
 * statements); backup.c the online
 * copy (db_backup); store.c, units.c, unit_events.c and unit_events_write.c,
 * log.c, tables.c and battles.c the rows to and from structs (campaigns, sides,
 * tokens; units; history; combats, rolls; combat results tables; Matrix battles
 * and their actions; fog.c a campaign's fog of war and where its units stand;
 * event_log.c the campaign event log), declared in the second half of this
 * header.
 *
 * This header names no SQLite type or function: above db/, a connection is
 * an opaque db_conn handed to the functions below.  The SQL helpers the
 * stores share are db/'s own, in db_sql.h.
 */
#ifndef UMPIRE_DB_H
#define UMPIRE_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "civ.h"
#include "edna.h"
#include "err.h"
#include "ledger.h"
#include "scrud.h"
#include "scs.h"

typedef struct db db;

/* A connection to the database: a pooled reader, or the writer's inside a
 * job.  Opaque above db/: only db/ runs SQL on it. */
typedef struct db_conn db_conn;

/* A unit of write work, run inside the writer's transaction (under its own
 * savepoint: a job that fails leaves no trace, and the others still land). */
typedef err_code (*db_job_fn)(db_conn *conn, void *arg, err_info *e);

/* Called on the writer thread once the job's fate is durable: rc ERR_OK
 * means committed.  e is the job's error (borrowed for the call). */
typedef void (*db_done_fn)(void *arg, err_code rc, const err_info *e);

#define DB_ID_MAX   40 /* ids such as "cmp_0123456789abcdef01234567" */
#define DB_TIME_MAX 32 /* "2026-11-22T10:00:00.123Z" */

/*
 * Opens (creating if needed) the database at path (":memory:" is refused:
 * the pool needs a file), applies pending migrations and starts the writer.
 * n_readers is the size of the read pool.  *out is new: free with db_close.
 */
err_code db_open(const char *path, int n_readers, db **out, err_info *e);

/*
 * Serialises the writes of the transaction on c (a write job's) to
 * campaign_id with every other writer's, of this process or another,
 * until the transaction ends.  A PostgreSQL store takes an advisory lock
 * on the campaign (several instances write at once, each with several
 * writers); SQLite's one writer is already alone, so there it does
 * nothing.  Combats of different campaigns never wait for each other.
 */
err_code db_lock_campaign(db_conn *c, const char *campaign_id, err_info *e);

/*
 * Whether this process is the one that sends channel posts (webhooks):
 * always for SQLite; for PostgreSQL the instance holding the posters'
 * lock (an advisory lock on a connection of its own), so that among
 * several instances one posts, and another takes over within about a
 * second when it stops.  Any thread; cheap when called often.
 */
bool db_is_poster(db *d);

/*
 * Whether numbers the store hands out in order (the event log's seq)
 * commit in that order across campaigns: true with one writer (SQLite);
 * with several (PostgreSQL: writers of several instances) they commit in
 * order only within a campaign, whose writes go one at a time
 * (db_lock_campaign), so a reader of many campaigns' new rows reads each
 * campaign after its own last seq.
 */
bool db_commits_in_order(db *d);

/* Whether the database setting path names a file (the embedded SQLite
 * store), rather than a PostgreSQL connection URL (postgresql://...). */
bool db_is_file(const char *path);

/*
 * Waits for queued jobs, stops the writer, checkpoints the write-ahead log
 * into the database (TRUNCATE) and closes.  NULL ok (ERR_OK).  Returns the
 * final checkpoint's outcome: ERR_OK, ERR_FULL (the disk is full) or
 * ERR_DB; when it failed, every committed write is still safe in the
 * -wal file, which SQLite replays when the database is next opened.
 * The outcome is also written where db_close_report asked.
 */
err_code db_close(db *d);

/* Asks db_close to write its final checkpoint's outcome into *out (the
 * caller's; it must outlive db_close; cleared here), for a caller that
 * does not call db_close itself (the server's shutdown). */
void db_close_report(db *d, err_info *out);

/* The problem a write refused for a full disk answers (ERR_FULL). */
#define DB_FULL_MESSAGE                                                        \
    "the database's disk is full; nothing was written; retry when space is "   \
    "freed"

/* The problem a write answers when a PostgreSQL store cannot be reached,
 * or its server is no longer the primary (ERR_UNAVAILABLE, 503). */
#define DB_DOWN_MESSAGE                                                        \
    "the database cannot be reached (it may be failing over); nothing was "    \
    "written; retry shortly"

/* The database's health as its writer last found it. */
typedef enum db_health_state {
    DB_HEALTH_OK,  /* the last write or checkpoint succeeded */
    DB_HEALTH_FULL /* writes are failing: the disk is full (ERR_FULL) */
} db_health_state;

/*
 * Whether writes are failing because the disk is full.  It turns FULL when
 * a batch or a checkpoint fails so, and back to OK by itself once a batch
 * that changed rows commits, or once the writer's own retry succeeds (while
 * FULL the writer, when idle, retries every DB_UPKEEP_MS a checkpoint, to
 * get the log's space back, and a one-page write).  Any thread.
 */
db_health_state db_health(db *d);

/* How long the writer waits idle before its upkeep: a checkpoint that
 * truncates the write-ahead log, and while the disk is full, its retries. */
#define DB_UPKEEP_MS 250

/* What db_backup copied. */
typedef struct db_backup_info {
    int schema_version;    /* the copy's PRAGMA user_version */
    long long size;        /* bytes of the copy */
    long long n_campaigns; /* rows in the copy */
    long long n_combats;
    double seconds; /* how long the copy took */
} db_backup_info;

/*
 * An online, consistent copy of the database at path into dest, by VACUUM
 * INTO from one read transaction (a snapshot: writes committed meanwhile
 * neither restart nor enter it, so it finishes under steady writes).  The
 * copy is written to dest.tmp (created exclusively), checked (PRAGMA
 * quick_check), fsynced, linked as dest (never replacing a file), and the
 * folder fsynced.  path must be an existing umpire database (ERR_NOT_FOUND;
 * ERR_INVALID for another file; it is opened without creating); the server
 * may be running.  dest must not exist (ERR_CONFLICT), nor dest.tmp
 * (ERR_CONFLICT: another backup, or a crashed one's leftover).  On failure
 * dest.tmp is removed and dest not made.  info (may be NULL) says what was
 * copied.  Any thread or process; uses no db handle.
 */
err_code db_backup(const char *path, const char *dest, db_backup_info *info,
                   err_info *e);

/* The schema version after migrations (PRAGMA user_version). */
int db_schema_version(db *d);

/* Reads the schema through a pooled connection: the schema version, or -1
 * when the database cannot be read. */
int db_ping(db *d);

/* Number of migrations this build knows. */
int db_n_migrations(void);

/* A read-only connection from the pool; blocks while all are lent out.
 * Return it with db_read_release.  Each statement on it sees the last
 * committed state on its own; for several reads from one snapshot use
 * db_read_begin instead. */
db_conn *db_read_acquire(db *d);

/* Returns conn (NULL ok) to the pool.  A transaction still open on it is
 * rolled back first; if even that fails, the connection is closed and a
 * fresh one takes its place, so no borrower inherits an old snapshot. */
void db_read_release(db *d, db_conn *conn);

/*
 * A pooled read connection in a read transaction: every read on *out until
 * db_read_end sees one snapshot (writes committed meanwhile are not seen).
 * Blocks while the pool is lent out.  *out is borrowed from the pool until
 * db_read_end; on failure (ERR_DB: BEGIN failed) the connection is already
 * back in the pool and *out is NULL.
 */
err_code db_read_begin(db *d, db_conn **out, err_info *e);

/*
 * Ends the snapshot of c (from db_read_begin) and returns c to the pool, in
 * every case.  ERR_DB when COMMIT fails (the transaction is then rolled
 * back).  NULL c: nothing to do, ERR_OK.
 */
err_code db_read_end(db *d, db_conn *c, err_info *e);

/* A read-only connection of its own, outside the pool, in a read
 * transaction: for a read that outlives a request (a streamed export),
 * which must not hold a pooled one.  Close it with db_snapshot_close, on
 * any thread. */
err_code db_snapshot_open(db *d, db_conn **out, err_info *e);
void db_snapshot_close(db_conn *c);
/* c, a snapshot, is given up before its statements have read their
 * answers to the end (the client of an export left): finalizing them
 * does not read the rest of an answer on PostgreSQL (up to a campaign's
 * whole ledger), and db_snapshot_close then sends no ROLLBACK (which
 * would read it first): closing the connection ends both.  Call it just
 * before those. */
void db_snapshot_abandon(db_conn *c);

/*
 * Queues run(arg) for the writer; done(arg, ...) is called on the writer
 * thread after the batch holding it committed or failed.  Never blocks on
 * the disk.  Fails only if the writer has stopped (ERR_INTERNAL).
 */
err_code db_submit(db *d, db_job_fn run, db_done_fn done, void *arg);

/*
 * db_submit for a job that writes campaign_id's rows (NULL or "": none):
 * its writes to the campaign are serialised with every other writer's,
 * of this process or another (db_lock_campaign, taken before run), and
 * of a store with several writers, none takes a campaign's job while
 * another holds one, so that a busy campaign never holds every writer.
 */
err_code db_submit_in(db *d, const char *campaign_id, db_job_fn run,
                      db_done_fn done, void *arg);

/* Runs run(arg) through the writer and waits for its durable outcome;
 * db_write_in as a job of campaign_id's (db_submit_in). */
err_code db_write(db *d, db_job_fn run, void *arg, err_info *e);
err_code db_write_in(db *d, const char *campaign_id, db_job_fn run, void *arg,
                     err_info *e);

/* Statistics of the writer: jobs and commits so far. */
void db_writer_stats(db *d, unsigned long *n_jobs, unsigned long *n_commits);

/* The checkpoints of an SQLite store's log, off the writer (db/
 * checkpointer.c): whether the thread runs (else SQLite's own checkpoint
 * runs on the writer, and the counts are 0), the log's size in pages that
 * starts a pass, and so far: the thread's passes, the writer's
 * checkpoints of a pass's tail, and those it ran itself after waiting,
 * the log being too long. */
typedef struct db_ckpt_stats {
    bool is_running;
    int start_pages;
    unsigned long passes, tails, waits;
} db_ckpt_stats;
void db_checkpoint_stats(db *d, db_ckpt_stats *out);

/* Rows written so far by jobs that then failed and were rolled back.  A
 * job checks everything before it writes, so this stays 0; the tests
 * check it. */
unsigned long db_writer_refused(db *d);

/* A new id "<prefix>_<24 hex digits>" into out (DB_ID_MAX bytes): the
 * time in milliseconds (12 digits), then 48 random bits. */
void db_new_id(const char *prefix, char out[DB_ID_MAX]);

/* The current UTC time as RFC 3339 with milliseconds. */
void db_now(char out[DB_TIME_MAX]);

/* The time seconds ago, written as db_now writes times (so that stored
 * times compare with it as text): the cut-off of what expires. */
void db_time_ago(long seconds, char out[DB_TIME_MAX]);

/* ---- the store (store.c; units: units.c) ----
 *
 * Every function takes the connection to use: a pooled read connection for
 * reads, or the writer's connection inside a db_job_fn for writes (so a
 * combat's unit changes, combat row and roll log share one transaction).
 * Lookups that find nothing return ERR_NOT_FOUND.  Text documents (combat
 * reports, history states) are opaque strings here.
 */

#define DB_NAME_MAX   65 /* names are 1..64 bytes */
#define DB_REASON_MAX 24

/* A campaign's fog of war (migration 9; what it hides is the server's,
 * server/systems/fog.h): whether it is on, and what a player sees of the
 * units of the other sides. */
#define DB_FOG_OTHERS_MAX 8
typedef struct db_fog {
    bool is_enabled;
    char others[DB_FOG_OTHERS_MAX]; /* "full", "status", "name" or "hidden";
                                       "" is stored as "status" */
} db_fog;

typedef struct db_campaign {
    char id[DB_ID_MAX];
    char name[DB_NAME_MAX];
    char created_at[DB_TIME_MAX];
    scrud_options scrud; /* the campaign's default SCRUD options */
    edna_options edna;   /* the campaign's EDNA test dice */
    int edna_start;      /* EDNA of a new unit unless it says otherwise */
    scs_options scs;     /* the campaign's SCS out-of-supply multipliers */
    db_fog fog;          /* its fog of war */
    long long version;   /* counts the changes to what a combat's rules
                            read (migration 12), its next commitment
                            included (migration 16), as read */
} db_campaign;

typedef struct db_side {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char name[DB_NAME_MAX];
    char created_at[DB_TIME_MAX];
    /* Matrix battles: the campaign turn in which the side's army fights its
     * next battle exhausted (-1; matrix.md, "The battle's result"), or 0
     * for none */
    int exhausted_turn;
} db_side;

typedef struct db_token {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char side_id[DB_ID_MAX]; /* "" for the umpire token */
    bool is_umpire;
} db_token;

typedef struct db_unit {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char side_id[DB_ID_MAX];
    char side_name[DB_NAME_MAX]; /* read only: joined from sides */
    char name[DB_NAME_MAX];
    char created_at[DB_TIME_MAX];
    bool is_eliminated;
    char eliminated_reason[DB_REASON_MAX]; /* "" when not eliminated */
    char eliminated_by[DB_ID_MAX];         /* combat id, or "" */
    bool has_scrud;                        /* the unit fights SCRUD combats */
    scrud_unit scrud;   /* quality, penalties, faces; other fields unused */
    bool has_edna;      /* the unit takes EDNA tests */
    int edna;           /* current EDNA; 0 is ineffective */
    int edna_start;     /* its starting EDNA */
    bool has_scs;       /* the unit fights SCS combats */
    scs_counter scs;    /* its counter and steps lost */
    bool has_matrix;    /* the unit fights Matrix game battles */
    int matrix_quality; /* its quality modifier there, -3..3
                         * (MATRIX_QUALITY_MAX); stored as given */
    bool has_civ;       /* the unit is a Civilization piece */
    civ_unit civ;       /* its class, era, bonus, dice multiplier */
    long long row;      /* read only: its row's rowid; 0 until read */
} db_unit;

typedef struct db_event {
    long long seq;      /* service-wide order: the feed's cursor */
    long long unit_seq; /* place in the unit's history, from 1 */
    char unit_id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char at[DB_TIME_MAX];
    char kind[16]; /* created, combat, correction, resupply */
    /* Its unit's row where known, which keys the event (migration 18)
     * without finding the unit by its id; 0: by unit_id.  Stored as it
     * is, unchecked: only ever the db_unit.row of the unit read, whose
     * id is unit_id. */
    long long unit_row;
    char combat_id[DB_ID_MAX];
    char actor_token_id[DB_ID_MAX];
    char *note;   /* owned by lists; borrowed on insert */
    char *before; /* document or NULL */
    char *after;  /* document */
    char *result; /* document or NULL */
    /* Where the documents are stored: 0, in the event's own row; k > 0,
     * k-th in the packed documents of its combat's row (migration 14,
     * db_combat_pack_events), its actor, note, time and kind ("combat")
     * the combat's.  Lists read them back either way. */
    int doc_slot;
    /* A unit's page (db_events_page with a unit) reads, with each event,
     * what its combat's row holds for it, where the row holds it as it is
     * stored today; else it is read apart (as the other lists do): its
     * combat's system and facts (NULL: not read, or not stored so), the
     * unit's rolls in it (has_rolls: read), and its packed documents
     * (the event's own, above). */
    char system[16];
    unsigned char *facts;
    size_t facts_len;
    struct db_roll *rolls; /* db_roll, below */
    size_t n_rolls;
    bool has_rolls;
} db_event;

typedef struct db_combat {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX]; /* "" for one-off combats */
    char system[16];
    char created_at[DB_TIME_MAX];
    char dice_source[16];
    char rng[8];
    char commitment[65];
    char server_seed[65];
    char actor_token_id[DB_ID_MAX];
    char *note;        /* may be NULL */
    char *client_seed; /* may be NULL */
    char *summary;
    char *report; /* the report document: the combat's record */
    /* Its facts, stored in place of the report where set (below, "a
     * combat's facts": the system renders the report from them): set
     * before db_combat_pack, which then stores them rather than the report
     * (the report, rendered too, is what the combat is answered with);
     * read back by db_combat_get, report NULL.  Owned. */
    unsigned char *facts;
    size_t facts_len;
    /* Read back (db_combat_get): what the report's value holds after the
     * report (a campaign combat's history documents; a one-off's roll log
     * written before migration 21), in report's own allocation after its
     * end; or NULL */
    const char *after_report;
    /* the report packed to store (db_combat_pack), or NULL: stored as it
     * is; owned */
    unsigned char *report_z;
    size_t report_z_len;
    /* the roll log packed to store (db_combat_pack): a one-off's, in its
     * row, or a campaign combat's once chained, in its row with
     * ledger_first (migration 22; a row of combat_rolls before); or
     * NULL: its rolls are rows of their own; owned.  (Read back, a
     * one-off's written before migration 21 may be one byte, RS: its
     * rolls in its report's frame.) */
    unsigned char *rolls_z;
    size_t rolls_z_len;
    /* the ledger place of the first roll packed in rolls_z (a campaign
     * combat's, the others following it), or 0 */
    long long ledger_first;
    /* the documents of the combat's unit history events packed to store
     * in its row (db_combat_pack_events), or NULL: each event holds its
     * own; owned */
    unsigned char *unit_docs_z;
    size_t unit_docs_z_len;
    /* the record of a campaign battle: its dice are in the ledger as the
     * battle's actions, so its rolls are not chained again */
    bool is_battle_record;
} db_combat;

typedef struct db_roll {
    int seq; /* 1-based, in draw order */
    char side_name[DB_NAME_MAX];
    char unit_id[DB_ID_MAX];
    char unit_name[DB_NAME_MAX];
    char reason[32];
    int faces, natural, modified;
    char source[16];
    char rng[8];
    /* its entry in the campaign's ledger (0 and "": not in the ledger) */
    long long ledger_pos;
    char prev_hash[LEDGER_HASH_HEX]; /* set when chained; read back from a
                                        packed log only */
    char hash[LEDGER_HASH_HEX];
} db_roll;

/* Campaigns, sides, tokens.  The SCS multipliers must be positive fractions
 * (ERR_INTERNAL otherwise: start from scs_options_default); they are kept
 * exact.  A campaign row whose options cannot be read back is ERR_DB. */
err_code db_campaign_insert(db_conn *c, const db_campaign *cmp, err_info *e);
err_code db_campaign_get(db_conn *c, const char *id, db_campaign *out,
                         err_info *e);
/* The campaign's version alone (db_campaign.version). */
err_code db_campaign_version(db_conn *c, const char *id, long long *out,
                             err_info *e);
/* A campaign combat landed on c (its ledger's save, then its units'
 * writes), worked out on version: the campaign left at version + 1, one
 * count for the whole combat, on either store, as a combat worked out
 * ahead of it expects (pipeline.c).  SQLite's save counts it so already
 * (migration 26: a unit's write does not count again).  PostgreSQL's
 * trigger counts each unit's write, and a combat that saves no ledger
 * counts none: there it is set, in the combat's transaction, so no
 * reader sees the counts in between. */
err_code db_campaign_landed_at(db_conn *c, const char *campaign_id,
                               long long version, err_info *e);
/* Saves the campaign's fog of war (fog.c); others must be one of the four
 * ("" is "status"; ERR_INTERNAL otherwise).  ERR_NOT_FOUND: no campaign
 * id. */
err_code db_campaign_fog_save(db_conn *c, const char *id, const db_fog *f,
                              err_info *e);
err_code db_side_insert(db_conn *c, const db_side *s, err_info *e);
/* *out is new (free()); sides in creation order. */
err_code db_sides_list(db_conn *c, const char *campaign_id, db_side **out,
                       size_t *n, err_info *e);
/* A side of the campaign by id or, failing that, by name. */
err_code db_side_find(db_conn *c, const char *campaign_id,
                      const char *id_or_name, db_side *out, err_info *e);
/* Saves a side's exhausted_turn (the only field that changes); the side
 * is found by id and campaign_id (ERR_NOT_FOUND if there is none). */
err_code db_side_update(db_conn *c, const db_side *s, err_info *e);
err_code db_token_insert(db_conn *c, const db_token *t, const char *hash_hex,
                         const char *created_at, err_info *e);
/* The live token whose hash is hash_hex: ERR_NOT_FOUND when there is none
 * or it was revoked (reissued, migration 8). */
err_code db_token_find(db_conn *c, const char *hash_hex, db_token *out,
                       err_info *e);

/* Units.  Without has_scs the SCS counter is not stored (defaults are), and
 * without scs.has_reduced neither is its reduced side: they read back as
 * zeros with no attack. */
err_code db_unit_insert(db_conn *c, const db_unit *u, err_info *e);
/* Saves name, side, elimination, SCRUD, EDNA, SCS and Matrix state of an
 * existing unit (ERR_NOT_FOUND if there is none). */
err_code db_unit_update(db_conn *c, const db_unit *u, err_info *e);
/* A unit of the campaign by id or, failing that, by name.  The row is
 * checked for the systems it carries (ERR_DB when a value is out of its
 * range), since combats trust it.  In a snapshot (db_read_begin) that has
 * read the campaign (db_campaign_get), of an SQLite store, from the units
 * kept for the campaign at the version read, when kept (db/unit_cache.h). */
err_code db_unit_find(db_conn *c, const char *campaign_id,
                      const char *id_or_name, db_unit *out, err_info *e);
/* The n units refs (ids or names) of the campaign read together, for the
 * db_unit_find of each that follow on c until db_units_prefetch_end: on
 * PostgreSQL, one statement (for up to 63 refs) where each find is one.
 * Between the two, c must see the campaign's units as they were read (a
 * snapshot, or the writer's job under the campaign's lock) and write
 * none.  On SQLite, or out of memory, nothing: the finds read one at a
 * time.  An error only where the read failed (which ends PostgreSQL's
 * transaction: the finds could not read either). */
err_code db_units_prefetch(db_conn *c, const char *campaign_id,
                           const char *const *refs, size_t n, err_info *e);
void db_units_prefetch_end(db_conn *c);
/* u as the store gives it back once written (db_unit_update, then
 * db_unit_find): what it does not store is as a read leaves it.  out may
 * be u. */
void db_unit_as_stored(const db_unit *u, db_unit *out);
/* The writer's job of a campaign combat worked out on a snapshot of its
 * campaign at version from, once it has written the combat (and nothing
 * else of the campaign): *units (n, taken: *units is NULL after) are the
 * combat's units as it left them, as stored (db_unit_as_stored).  Once
 * the job's batch is committed, the next combats of the campaign read
 * them, and the campaign's other units kept at from, without the store
 * (unit_cache.h).  Nothing when it cannot (no memory, a PostgreSQL
 * store): the next combats read the store. */
void db_units_landed(db_conn *w, const char *campaign_id, long long from,
                     db_unit **units, size_t n);
/* Filters of db_units_list: NULL or -1 for "any". */
typedef struct db_unit_filter {
    const char *side_id;
    const char *system; /* "scrud", "edna", "scs", "matrix" or "civ":
                         * units carrying it */
    int eliminated;     /* 0 or 1 */
    int ineffective;    /* 1: EDNA units at 0; 0: EDNA units above 0 */
} db_unit_filter;

/* *out is new (free()), in creation order. */
err_code db_units_list(db_conn *c, const char *campaign_id,
                       const db_unit_filter *f, db_unit **out, size_t *n,
                       err_info *e);
err_code db_units_count(db_conn *c, const char *campaign_id, int *n,
                        err_info *e);
/* Where a unit stands, which is all fog of war needs to know of it. */
typedef struct db_unit_ref {
    char id[DB_ID_MAX];
    char name[DB_NAME_MAX];
    char side_id[DB_ID_MAX];
} db_unit_ref;
/* Every unit of the campaign, in creation order (fog.c); *out new
 * (free()). */
err_code db_unit_refs(db_conn *c, const char *campaign_id, db_unit_ref **out,
                      size_t *n, err_info *e);

/*
 * A page of a list (keyset pagination, as the API pages its lists): the
 * rows after the row named by after, in the list's order (or the reverse,
 * is_newest_first), limit of them at most.  One SQL statement per shape
 * (PERF.md), an index range where an index serves.  after, when not NULL, is
 * the id of a row of the campaign (ERR_NOT_FOUND otherwise), or for tables a
 * name (which need not exist any more).  *out is new, as for the whole list.
 */
typedef struct db_page {
    const char *after;    /* the last row of the previous page, or NULL */
    bool is_newest_first; /* the reverse order */
    int limit;            /* rows at most */
} db_page;

/* A page of the campaign's sides, in creation order; *out new (free()). */
err_code db_sides_page(db_conn *c, const char *campaign_id, const db_page *pg,
                       db_side **out, size_t *n, err_info *e);
/* A page of the units of f (NULL: all) in creation order; *out new
 * (free()). */
err_code db_units_page(db_conn *c, const char *campaign_id,
                       const db_unit_filter *f, const db_page *pg,
                       db_unit **out, size_t *n, err_info *e);

/* A campaign combat's row of the event log held back (db_combat_insert
 * _chained's held), to be written with its units' events in one row
 * (db_events_insert_logged; migration 27): on SQLite only, where
 * is_pending says it is still to be written.  Nothing may write the log
 * between the two (the units' rows may: they log nothing). */
typedef struct db_combat_log {
    bool is_pending;
    char campaign_id[DB_ID_MAX];
    char combat_id[DB_ID_MAX];
    bool has_move;              /* the ledger moved with the combat: */
    long long length;           /* its length */
    char head[LEDGER_HASH_HEX]; /* and head after it */
} db_combat_log;

/* History. */
err_code db_event_insert(db_conn *c, const db_event *ev, err_info *e);
/* The n events evs, inserted in order; each logged in the campaign event
 * log.  The events of one combat go in one call: on SQLite, those whose
 * documents are in the combat's row (doc_slot) are logged by one row of
 * the log for up to DB_LOG_BLOCK_MAX of them (docs/events.md, "How it
 * works"). */
#define DB_LOG_BLOCK_MAX                                                       \
    64 /* never lower it: the log's reader and the feed's (db_events_page)     \
          count on no stored block being longer */
err_code db_events_insert(db_conn *c, const db_event *const *evs, size_t n,
                          err_info *e);
/* The same, after the row of the event log of their combat held back
 * (held; NULL or not pending: none): written first, in one row with the
 * first block of that combat's events where they start one, else alone;
 * then not pending.  n may be 0: the combat's row alone. */
err_code db_events_insert_logged(db_conn *c, const db_event *const *evs,
                                 size_t n, db_combat_log *held, err_info *e);
/* *out is new: release with db_events_free. Oldest first. */
err_code db_events_list(db_conn *c, const char *unit_id, db_event **out,
                        size_t *n, err_info *e);

/* A page of history: one unit's (unit_id set) or a whole campaign's. */
typedef struct db_event_query {
    const char *campaign_id;
    const char *unit_id; /* NULL: every unit of the campaign */
    long long after;     /* cursor: events past this seq; 0 from the start */
    bool is_newest_first;
    int limit; /* rows at most */
} db_event_query;

/* *out is new: release with db_events_free. */
err_code db_events_page(db_conn *c, const db_event_query *q, db_event **out,
                        size_t *n, err_info *e);
/* Rolls of one unit in one combat, in order; *out new (free()). */
err_code db_rolls_of_unit(db_conn *c, const char *combat_id,
                          const char *unit_id, db_roll **out, size_t *n,
                          err_info *e);
void db_events_free(db_event *evs, size_t n);

/* Combat results tables of a campaign (SCS), stored as their documents. */
#define DB_TABLES_MAX 100 /* tables in one campaign */
typedef struct db_table {
    char campaign_id[DB_ID_MAX];
    char name[DB_NAME_MAX];
    char created_at[DB_TIME_MAX];
    char updated_at[DB_TIME_MAX];
    char *doc; /* the table as JSON text: owned by gets and lists,
                * borrowed by db_table_put */
} db_table;
/* Creates the table or replaces the one of that name (keeping its
 * created_at); *is_new says which.  The times are the caller's (db_now):
 * t->created_at is used only for a new table.  ERR_LIMIT when the campaign
 * has DB_TABLES_MAX tables and t->name is not one of them; ERR_CONFLICT
 * when the campaign does not exist. */
err_code db_table_put(db_conn *c, const db_table *t, bool *is_new, err_info *e);
/* out->doc is new: release with db_table_cleanup. */
err_code db_table_get(db_conn *c, const char *campaign_id, const char *name,
                      db_table *out, err_info *e);
/* By name; *out new (db_tables_free), docs included. */
err_code db_tables_list(db_conn *c, const char *campaign_id, db_table **out,
                        size_t *n, err_info *e);
/* ERR_NOT_FOUND when there is none of that name. */
err_code db_table_delete(db_conn *c, const char *campaign_id, const char *name,
                         err_info *e);
void db_table_cleanup(db_table *t);
void db_tables_free(db_table *ts, size_t n);
/* A page of the campaign's tables by name (is_newest_first: descending);
 * *out new (db_tables_free), docs included. */
err_code db_tables_page(db_conn *c, const char *campaign_id, const db_page *pg,
                        db_table **out, size_t *n, err_info *e);

/*
 * Interactive battles (Matrix): a battle is its setup (a document the
 * server writes) and the actions taken on it, each with the dice it drew;
 * the state is rebuilt from them.  When it ends, its record is a combat
 * (combat_id) with the whole roll log.
 */
typedef struct db_battle {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char system[16]; /* "matrix" */
    char status[16]; /* "open", "finished" or "escalated" */
    int turn;        /* the campaign turn it is fought in */
    char created_at[DB_TIME_MAX];
    char updated_at[DB_TIME_MAX];
    char dice_source[16]; /* "seeded" or "entered" */
    char commitment[65];  /* seeded: SHA-256 of the seed, shown at once */
    char server_seed[65]; /* seeded: hex; served only once it is closed */
    char *client_seed;    /* may be NULL */
    char actor_token_id[DB_ID_MAX]; /* who created it */
    char *note;                     /* may be NULL */
    char *setup;                    /* the setup document */
    int n_actions;                  /* actions taken so far */
    char combat_id[DB_ID_MAX];      /* its combat record once over, or "" */
    char linked_from[DB_ID_MAX];    /* the skirmish it escalated from, or "" */
    char linked_to[DB_ID_MAX];      /* the open battle it escalated to, or "" */
} db_battle;

typedef struct db_battle_action {
    int seq; /* 1-based, in order */
    char at[DB_TIME_MAX];
    char actor_token_id[DB_ID_MAX];
    char kind[16];  /* "roll", "commit" or "accept" */
    int combat;     /* index in the line */
    int army;       /* commit: 0 attacker, 1 defender; else -1 */
    int unit;       /* commit: index in its army; else -1 */
    char *naturals; /* the dice drawn, a JSON array of integers ("[]") */
    char *detail;   /* the system's orders for the action (a document the
                     * server writes, e.g. a Civilization phase's waves),
                     * or NULL */
    char *note;     /* may be NULL */
} db_battle_action;

/* In a writer job.  Strings borrowed.  Empty strings of nullable columns
 * are stored as NULL (and read back as "" or NULL), but client_seed is kept
 * as given, "" included, like a combat's.  setup must not be NULL
 * (ERR_INTERNAL); ERR_CONFLICT for a taken id, an unknown campaign or
 * combat, or a status not in the list. */
err_code db_battle_insert(db_conn *c, const db_battle *b, err_info *e);
/* Saves status, updated_at, n_actions, combat_id, linked_to of the battle
 * b->id of b->campaign_id (ERR_NOT_FOUND if there is none). */
err_code db_battle_update(db_conn *c, const db_battle *b, err_info *e);
/* A battle of the campaign (ERR_NOT_FOUND for another campaign's); out's
 * strings new: db_battle_cleanup (out is left empty on failure). */
err_code db_battle_get(db_conn *c, const char *campaign_id, const char *id,
                       db_battle *out, err_info *e);
void db_battle_cleanup(db_battle *b);
/* The campaign's battles, oldest first, without setup (NULL); *out new:
 * db_battles_free. */
err_code db_battles_list(db_conn *c, const char *campaign_id, db_battle **out,
                         size_t *n, err_info *e);
void db_battles_free(db_battle *bs, size_t n);
/* A page of the campaign's battles, oldest first (created_at, then
 * creation order), without setup; *out new: db_battles_free. */
err_code db_battles_page(db_conn *c, const char *campaign_id, const db_page *pg,
                         db_battle **out, size_t *n, err_info *e);
/* Appends an action, and to the campaign's ledger (its seq must be the
 * battle's n_actions + 1: the
 * primary key refuses a second action with the same seq with ERR_CONFLICT,
 * so two requests racing on one battle cannot both land; the first stays
 * as it was).  An unknown battle is ERR_CONFLICT too.  a->naturals must
 * not be NULL (ERR_INTERNAL); strings borrowed. */
err_code db_battle_action_insert(db_conn *c, const char *battle_id,
                                 const db_battle_action *a, err_info *e);
/* The battle's actions in order; *out new: db_battle_actions_free. */
err_code db_battle_actions_list(db_conn *c, const char *battle_id,
                                db_battle_action **out, size_t *n, err_info *e);
void db_battle_actions_free(db_battle_action *as, size_t n);

/* Combats and their roll log.  A campaign combat's rolls (unless it is a
 * battle's record) are appended to the campaign's ledger, and each roll's
 * ledger_pos and hash are set. */
/* Packs cb->report as it will be stored (zstd with the documents'
 * dictionary), and the roll log (rolls, n), before the writer, in a
 * compact layout without a frame (combat_pack.c): a one-off's, or a
 * campaign combat's once chained (db_combat_chain: then with each roll's
 * hashes, cb->ledger_first set, stored in its row with it).  A report_z
 * already packed with the events' documents (db_combat_pack_events) is kept as
 * it is; db_combat_insert (a one-off) or db_combat_insert_chained then stores
 * cb->report_z and cb->rolls_z, and no row per roll.  A campaign's rolls
 * not chained (a battle's record) stay rows.  A report stored plain and
 * rolls stored as rows (older ones, or not packed) read back the same.
 * ERR_NOMEM. */
err_code db_combat_pack(db_combat *cb, const db_roll *rolls, size_t n,
                        err_info *e);
/* A packed roll log, as db_combat_pack packs it (the text, unpacked from
 * combats.rolls), into *out (new, free()), *n rolls; chained at
 * ledger_first (combats.ledger_first; 0 for a one-off's): then
 * each roll's ledger place, previous hash and hash are set.  ERR_DB when
 * it is malformed. */
err_code db_rolls_unpack(const char *text, long long ledger_first,
                         db_roll **out, size_t *n, err_info *e);
/* The text db_rolls_unpack reads, from the zlen bytes of a packed roll
 * log as stored (combats.rolls): new, or NULL when
 * out of memory or when the value does not read. */
char *db_rolls_text(const void *value, size_t zlen);
/* The zlen bytes of a packed roll log as stored (combats.rolls) read as
 * db_rolls_unpack reads their text (db_rolls_text), to the same rolls or
 * ERR_DB, and ERR_NOMEM: the compact layouts straight into their rolls,
 * the others through their text. */
err_code db_rolls_read(const void *value, size_t zlen, long long ledger_first,
                       db_roll **out, size_t *n, err_info *e);
/* Packs the documents (before, after, result) of the combat's n unit
 * history events evs once for its row, before the writer, and numbers
 * each event's place there (doc_slot): then db_event_insert stores the
 * events without their documents, actor, note, time or kind, and
 * db_combat_insert_chained the documents once, packed (a combat's events
 * share most of their text).  A campaign combat's with cb->report, in
 * one frame with it: cb->report_z, which db_combat_pack then keeps (call
 * this first), and cb->unit_docs_z says so (db_combat_docs_in_report);
 * others in cb->unit_docs_z.  Packs nothing (every doc_slot 0) unless every
 * event is a "combat" event of cb with the combat's actor and note.  Each
 * packed event's time becomes the combat's (created_at), as it reads
 * back; its documents stay its own in memory.  ERR_NOMEM. */
err_code db_combat_pack_events(db_combat *cb, db_event *const *evs, size_t n,
                               err_info *e);
/* Whether cb's report is packed with its events' documents. */
bool db_combat_docs_in_report(const db_combat *cb);
err_code db_combat_insert(db_conn *c, const db_combat *cb, db_roll *rolls,
                          size_t n_rolls, err_info *e);

/* out's strings are new: release with db_combat_cleanup.  A combat
 * stored as its facts reads back with them and no report; ERR_DB when
 * they are damaged (their checksum fails). */
err_code db_combat_get(db_conn *c, const char *id, db_combat *out, err_info *e);
void db_combat_cleanup(db_combat *cb);
/* Summaries (no report) of a campaign's combats, oldest first. */
err_code db_combats_list(db_conn *c, const char *campaign_id, db_combat **out,
                         size_t *n, err_info *e);
void db_combats_free(db_combat *cbs, size_t n);
/* *out is new (free()); in seq order. */
err_code db_rolls_list(db_conn *c, const char *combat_id, db_roll **out,
                       size_t *n, err_info *e);
/* The same for cb as db_combat_get read it: a one-off's rolls packed
 * after its report in the same value (as before migration 21) are taken
 * from the report already read (cb->after_report) rather than read and
 * unpacked again. */
err_code db_combat_rolls(db_conn *c, const db_combat *cb, db_roll **out,
                         size_t *n, err_info *e);
/* A page of the campaign's combat summaries, oldest first (created_at,
 * then creation order); *out new: db_combats_free. */
err_code db_combats_page(db_conn *c, const char *campaign_id, const db_page *pg,
                         db_combat **out, size_t *n, err_info *e);

/* ---- a combat's facts (facts.c) ----
 *
 * A combat's facts are what its system renders its report from, besides
 * what its row holds (its id, time, note and dice) and its roll log (the
 * dice it drew): the input as the rules took it, e.g. a SCRUD combat's
 * options, sides and units.  Stored in place of the report (db_combat,
 * facts), a few hundred bytes, written without zstd's work of packing a
 * report several kilobytes long; the report is rendered from them again
 * when the combat is read (server/systems, render_facts).  Which facts,
 * in which order, is the system's layout; db writes and reads their
 * integers and strings, and stores them tagged with a checksum, which
 * db_combat_get checks. */
typedef struct db_facts {
    unsigned char *buf;
    size_t len, cap;
    bool is_nomem;
} db_facts;
/* Appends v, or s (NULL as ""), to f (zeroed to start): an id as
 * db_new_id makes them (a prefix of 2 to 8 letters, '_', 24 hex digits:
 * "unit_…", "sd_…") takes its bytes, not
 * its digits. */
void db_facts_int(db_facts *f, long long v);
void db_facts_str(db_facts *f, const char *s);
/* Hands what f holds to cb (cb->facts, cb->facts_len, replacing any) and
 * empties f; false when out of memory or f is empty (cb then has none). */
bool db_facts_done(db_facts *f, db_combat *cb);
/* Reads cb's facts back in the order they were written: each get answers
 * the next one; one that is not there, or an integer outside [min, max],
 * or a string of size bytes or more, marks the reader bad (and answers
 * min, or ""). */
typedef struct db_facts_reader {
    const unsigned char *p, *end;
    bool is_bad;
} db_facts_reader;
void db_facts_read(db_facts_reader *r, const db_combat *cb);
int db_facts_get_int(db_facts_reader *r, int min, int max);
void db_facts_get_str(db_facts_reader *r, char *out, size_t size);
/* Whether every fact read well and none is left. */
bool db_facts_end(const db_facts_reader *r);

/* ---- dice anyone can check (ledger.c, ledger_rows.c, ledger_cursor.c,
 * commitments.c, idempotency.c) ---- */

/*
 * Commitments: a seed drawn ahead, its commitment (SHA-256) published, and
 * later used by exactly one combat or battle.  A campaign has exactly one
 * unused commitment, its next; one-off ones are asked for and then cited.
 */
typedef struct db_commitment {
    char commitment[LEDGER_HASH_HEX];
    char seed[LEDGER_HASH_HEX]; /* hex of the 32-byte seed: secret until used */
    char campaign_id[DB_ID_MAX]; /* "" for a one-off */
    char created_at[DB_TIME_MAX];
    char used_at[DB_TIME_MAX]; /* "" while unused */
    char used_by[DB_ID_MAX];   /* the combat or battle, "" while unused */
} db_commitment;

/* Draws a fresh seed from the operating system and stores it as a new
 * unused commitment of campaign_id ("" or NULL: a one-off, a row of
 * commitments); *out is it.  A campaign's is its next (migration 16: on
 * its row), which it must not have yet (ERR_CONFLICT). */
err_code db_commitment_new(db_conn *c, const char *campaign_id,
                           db_commitment *out, err_info *e);
/* Migration 5's: a campaign's next commitment as a row of commitments,
 * as they were kept until migration 16 moved them onto their campaign. */
err_code db_commitment_new_row(db_conn *c, const char *campaign_id,
                               db_commitment *out, err_info *e);
/* Draws a fresh seed and its commitment for campaign_id ("" or NULL: a
 * one-off) into out, without storing it. */
void db_commitment_draw(const char *campaign_id, db_commitment *out);
/* A one-off commitment by its commitment (ERR_NOT_FOUND). */
err_code db_commitment_get(db_conn *c, const char *commitment,
                           db_commitment *out, err_info *e);
/* The campaign's next (unused) commitment (ERR_NOT_FOUND if none). */
err_code db_commitment_next(db_conn *c, const char *campaign_id,
                            db_commitment *out, err_info *e);
/* Marks it used by used_by at at; ERR_CONFLICT when it is already used or
 * unknown (so two requests citing it cannot both land). */
err_code db_commitment_use(db_conn *c, const char *commitment,
                           const char *used_by, const char *at, err_info *e);
/* A campaign's next commitment, spent, spent by the combat or battle
 * that rolls with its seed (that record keeps the commitment and its
 * seed, docs/dice.md), and *next drawn in its place, in one write of the
 * campaign's row (its version counted).  ERR_CONFLICT when spent is not
 * its next commitment (another combat spent it first). */
err_code db_commitment_renew(db_conn *c, const char *campaign_id,
                             const char *spent, db_commitment *next,
                             err_info *e);
/* Deletes one-off commitments never used and created before before. */
err_code db_commitments_purge(db_conn *c, const char *before, err_info *e);

/*
 * The campaign ledger (docs/ledger.md).  Appending: db_chain_open reads the
 * campaign's length and head, db_chain_add numbers and hashes each entry
 * in turn (en->pos and en->campaign_id are set; prev and hash receive the
 * link), and db_chain_save stores the new length and head, all in the
 * caller's writer job.
 */
typedef struct db_chain {
    char campaign_id[DB_ID_MAX];
    long long length;
    long long length0; /* the length db_chain_open read: moved when not */
    char head[LEDGER_HASH_HEX];
    char head0[LEDGER_HASH_HEX]; /* and the head it read */
    /* head as its bytes, once db_chain_add has read or made it: the next
     * entry is hashed on them, not on head's digits read again.  Code
     * that sets head itself clears has_head_raw. */
    uint8_t head_raw[LEDGER_HASH_BYTES];
    bool has_head_raw;
    /* The campaign's next commitment spent with the save ("" for none),
     * and the next drawn ahead in its place (db_chain_spend): the save
     * stores both in its one write of the campaign's row. */
    char spent[LEDGER_HASH_HEX];
    db_commitment next;
} db_chain;

err_code db_chain_open(db_conn *c, const char *campaign_id, db_chain *ch,
                       err_info *e);
err_code db_chain_add(db_chain *ch, ledger_entry *en,
                      char prev[LEDGER_HASH_HEX], char hash[LEDGER_HASH_HEX],
                      err_info *e);
/* Saves the length and head (and, when ch->spent is set, spends it and
 * sets the next commitment; ERR_CONFLICT when spent is not the
 * campaign's next), and logs the ledger's move in the campaign event log
 * where it moved (SQLite; PostgreSQL's trigger logs it).  A combat's
 * save is log.c's own: its move is logged with the combat, in one row. */
err_code db_chain_save(db_conn *c, const db_chain *ch, err_info *e);
/* Makes the save of ch spend the campaign's next commitment, spent, and
 * set the next in its place, drawn now (off the writer). */
void db_chain_spend(db_chain *ch, const char *spent);
/*
 * A campaign as the combats of it in flight (staged, not yet landed) will
 * leave it, for the next combat to be worked out ahead of them
 * (pipeline.c): from, the version the first of them was worked out on;
 * version, the one they leave; chain, the ledger they leave (its length
 * and head) and the next commitment they draw (chain.next); units, every
 * unit they read or wrote, as they leave it (db_unit_as_stored).
 */
typedef struct db_ahead {
    char campaign_id[DB_ID_MAX];
    long long from, version;
    db_chain chain;
    db_unit *units;
    size_t n_units;
} db_ahead;
/* c (from db_read_begin) reads a's campaign as a leaves it, where its
 * snapshot holds the campaign at a version from a->from to a->version
 * (the combats in flight landed or not; some of them, in order): its
 * version (db_campaign_get) a->version; its next commitment, its ledger
 * (db_chain_open) and its units (db_unit_find) a's.  a is borrowed until
 * db_read_end.  Nothing written is trusted to it: the combat lands only
 * where the campaign is still at a->version, with the ledger at a's head
 * and (where it spends one) a's next commitment
 * (db_combat_insert_chained): they all landed, and nothing else wrote.
 * db_snapshot_is_ahead: whether c's db_campaign_get found it so. */
void db_snapshot_ahead(db_conn *c, const db_ahead *a);
bool db_snapshot_is_ahead(const db_conn *c);
/* The version of campaign_id that c's snapshot read (db_campaign_get), as
 * the store holds it (not ahead's); -1 where it read none.  On either
 * store, though PostgreSQL keeps no units between snapshots. */
long long db_snapshot_version(const db_conn *c, const char *campaign_id);
/* A campaign combat's rolls chained ahead on a read snapshot (c), off
 * the writer: each roll's place and hashes from the campaign's ledger as
 * c reads it, and *end the ledger after them.  db_combat_insert_chained
 * then, where the campaign is still at version (that of the snapshot:
 * so the ledger has not moved since, nor its next commitment), saves the
 * ledger at end and inserts the combat and its rolls as they are
 * (*is_current true); else writes nothing (*is_current false: the caller
 * works the combat out again, pipeline.c). */
err_code db_combat_chain(db_conn *c, const db_combat *cb, db_roll *rolls,
                         size_t n_rolls, db_chain *end, err_info *e);
/* held: NULL to log the combat here; else, on SQLite, its row of the log
 * held there (is_pending) for db_events_insert_logged, which must come
 * next in the job. */
err_code db_combat_insert_chained(db_conn *c, const db_combat *cb,
                                  const db_roll *rolls, size_t n_rolls,
                                  const db_chain *end, long long version,
                                  bool *is_current, db_combat_log *held,
                                  err_info *e);
/* Whether the landing of a combat of n_rolls rolls, its ledger ending at
 * end, saves the ledger (db_combat_insert_chained): where it rolled or
 * spends a commitment.  On PostgreSQL a landing that saves none counts
 * no version by it (db_campaign_landed_at). */
bool db_combat_saves_ledger(size_t n_rolls, const db_chain *end);

/* One stored ledger entry, as read back (strings owned). */
typedef struct db_ledger_row {
    ledger_kind kind;
    long long pos;
    char at[DB_TIME_MAX];
    char record_id[DB_ID_MAX]; /* combat (roll) or battle (action) */
    int seq;
    char side[DB_NAME_MAX];
    char unit_id[DB_ID_MAX];
    char unit[DB_NAME_MAX];
    char reason[32];
    int faces, natural, modified;
    char action[16];
    int *naturals;  /* owned, or NULL */
    int n_naturals; /* -1 when the stored list cannot be read */
    char *detail;   /* or NULL */
    char source[16];
    char rng[8];
    char commitment[LEDGER_HASH_HEX];
    char *client_seed; /* or NULL */
    char prev_hash[LEDGER_HASH_HEX];
    char hash[LEDGER_HASH_HEX];
} db_ledger_row;

/* The campaign's ledger in stored order (by ledger_pos); *out new:
 * db_ledger_rows_free. */
err_code db_ledger_rows(db_conn *c, const char *campaign_id,
                        db_ledger_row **out, size_t *n, err_info *e);
void db_ledger_rows_free(db_ledger_row *rows, size_t n);
/* One row's strings freed, and the row emptied. */
void db_ledger_row_clear(db_ledger_row *row);

/* The record behind entries of the ledger, with its dice's seeds. */
typedef struct db_ledger_seed {
    bool is_battle; /* a battle; else a combat */
    char id[DB_ID_MAX];
    char source[16];
    char commitment[LEDGER_HASH_HEX]; /* "" for none */
    char seed[LEDGER_HASH_HEX];       /* "" for none: an open battle's is
                                         withheld */
    char *client_seed;                /* owned, or NULL */
} db_ledger_seed;

/*
 * The ledger read a row at a time, for an export that streams (c stays
 * the cursor's until db_ledger_cursor_close, within one read transaction
 * for one snapshot): its entries in order, then the records that seed
 * them (combats with entries in the order they were written, then
 * battles).  The next functions return 1 with a row (entry: clear it with
 * db_ledger_row_clear; seed: free its client_seed), 0 at the end, -1 on
 * error (e).
 */
typedef struct db_ledger_cursor db_ledger_cursor;
/* after: the entries from after + 1 are given, and only the records with
 * entries among them, unless is_all_seeds (0: from the first, and for the
 * whole ledger every battle, entries or not); upto: the last position
 * given, and only the records with entries up to it (a shared link's part
 * of the ledger); below 0, the whole ledger.  is_all_seeds: the seeds of
 * the whole ledger's records, whatever after (not with upto).  A part
 * reads the records logged around its entries in the campaign's event
 * log (found by halving its seqs), not every record of the campaign,
 * unless it holds more than half of a long ledger. */
err_code db_ledger_cursor_open(db_conn *c, const char *campaign_id,
                               long long after, long long upto,
                               bool is_all_seeds, db_ledger_cursor **out,
                               err_info *e);
/* For tests: the ledger's length from which a part of more than half of
 * it is read whole (4096 unless set; 0: always so), and the parts opened
 * so far read through the log and whole. */
void db_ledger_parts_whole_from(long long entries);
void db_ledger_parts_stats(long long *logged, long long *whole);
/* The same cursor over one combat's entries, its first to its last
 * position (as db_ledger_cursor_open(c, campaign_id, first - 1, last, ...)
 * reads them, with that combat's seed), found by its id, without the
 * event log's search.  first and last must be the combat's own first and last
 * positions (its report's ledger.first_pos and last_pos): the read starts
 * at its first roll, which holds its previous hash.  A combat of another
 * campaign gives nothing, and no other record's entries ever come. */
err_code db_ledger_cursor_open_combat(db_conn *c, const char *campaign_id,
                                      const char *combat_id, long long first,
                                      long long last, db_ledger_cursor **out,
                                      err_info *e);
int db_ledger_cursor_entry(db_ledger_cursor *cur, db_ledger_row *row,
                           err_info *e);
int db_ledger_cursor_seed(db_ledger_cursor *cur, db_ledger_seed *seed,
                          err_info *e);
void db_ledger_cursor_close(db_ledger_cursor *cur);

/* The positions of battle_id's first and last entries in campaign_id's
 * ledger, and the hash of its last; *first and *last 0 (hash "") when it
 * has none yet. */
err_code db_battle_ledger_reach(db_conn *c, const char *campaign_id,
                                const char *battle_id, long long *first,
                                long long *last, char hash[LEDGER_HASH_HEX],
                                err_info *e);

/* A view of row as an entry of campaign_id (borrows row). */
void db_ledger_row_entry(const db_ledger_row *row, const char *campaign_id,
                         ledger_entry *en);

/* Rolls of the campaign's combats (battles' records aside) that are not
 * in its ledger, as "combat_id#seq" texts; *out new (free()). */
err_code db_ledger_unchained(db_conn *c, const char *campaign_id,
                             char (**out)[DB_ID_MAX + 16], size_t *n,
                             err_info *e);

/* Migration 5's after step: chains every campaign's rolls and actions
 * logged before it, in the order they were logged, and gives every
 * campaign its next commitment. */
err_code db_ledger_backfill(db_conn *c, err_info *e);

/*
 * Idempotency keys: the first response to a request that rolled dice,
 * stored in the same transaction as what it did.
 */
#define DB_IDEM_KEY_MAX 256 /* keys are 1..255 bytes */
typedef struct db_idem {
    char scope[DB_ID_MAX]; /* the caller's token id, or "" (public) */
    char key[DB_IDEM_KEY_MAX];
    char fingerprint[LEDGER_HASH_HEX]; /* SHA-256 of method, path, body */
    char created_at[DB_TIME_MAX];
    int status;
    char location[160];
    char render[16]; /* what the body is, for ?format= ("" none) */
    char *body;      /* owned when read (db_idem_cleanup) */
} db_idem;

/* The key's stored response if it was stored at or after since
 * (ERR_NOT_FOUND otherwise: an older key is as good as gone). */
err_code db_idem_get(db_conn *c, const char *scope, const char *key,
                     const char *since, db_idem *out, err_info *e);
/* ERR_CONFLICT when the key is taken. */
err_code db_idem_insert(db_conn *c, const db_idem *k, err_info *e);
/* Deletes keys created before before. */
err_code db_idem_purge(db_conn *c, const char *before, err_info *e);
void db_idem_cleanup(db_idem *k);

/* ---- Discord (discord.c; server/discord/, docs/discord.md) ----
 *
 * Channels linked to campaigns, the campaign's Discord umpires and the
 * sides its players claimed, and the interactions that changed
 * something.  Discord's ids (snowflakes) are decimal text.
 */
#define DB_DISCORD_ID_MAX 24 /* a snowflake: up to 20 digits */

typedef struct db_discord_channel {
    char guild_id[DB_DISCORD_ID_MAX];
    char channel_id[DB_DISCORD_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char linked_by[DB_DISCORD_ID_MAX]; /* the user who linked it */
    char linked_at[DB_TIME_MAX];
} db_discord_channel;

/* The link of a channel (ERR_NOT_FOUND: none). */
err_code db_discord_channel_get(db_conn *c, const char *guild_id,
                                const char *channel_id, db_discord_channel *out,
                                err_info *e);
/* Links ch's channel to ch's campaign, replacing its link if any. */
err_code db_discord_channel_link(db_conn *c, const db_discord_channel *ch,
                                 err_info *e);
/* ERR_NOT_FOUND when the channel is not linked. */
err_code db_discord_channel_unlink(db_conn *c, const char *guild_id,
                                   const char *channel_id, err_info *e);

/* What a Discord user is in a campaign. */
typedef enum db_discord_role {
    DB_DISCORD_NONE,   /* neither linked as umpire nor claimed a side */
    DB_DISCORD_PLAYER, /* claimed a side with its player token */
    DB_DISCORD_UMPIRE  /* linked a channel with the umpire token */
} db_discord_role;

/* Records user_id as an umpire of the campaign (once). */
err_code db_discord_umpire_add(db_conn *c, const char *campaign_id,
                               const char *user_id, const char *at,
                               err_info *e);
/* Records that user_id holds side_id, replacing a side claimed before. */
err_code db_discord_player_claim(db_conn *c, const char *campaign_id,
                                 const char *user_id, const char *side_id,
                                 const char *at, err_info *e);
/* The user's role in the campaign (an umpire who also claimed a side is
 * an umpire), and a player's side id ("" otherwise). */
err_code db_discord_role_get(db_conn *c, const char *campaign_id,
                             const char *user_id, db_discord_role *role,
                             char side_id[DB_ID_MAX], err_info *e);

/* An interaction that changed something (strings borrowed). */
typedef struct db_discord_interaction {
    const char *id;          /* Discord's interaction id */
    const char *at;          /* db_now */
    const char *campaign_id; /* NULL or "" when none */
    const char *user_id;
    const char *command; /* e.g. "scrud", "link", "mx:roll" */
} db_discord_interaction;

/* ERR_CONFLICT when the interaction was recorded already. */
err_code db_discord_interaction_insert(db_conn *c,
                                       const db_discord_interaction *in,
                                       err_info *e);

/* A name offered to a user typing (autocomplete) and what it is. */
typedef struct db_discord_name {
    char name[DB_NAME_MAX]; /* a unit's name, or a combat's id */
    char detail[96];        /* its side, or the combat's system and time */
} db_discord_name;

/* The campaign's units in play carrying system (NULL: any) whose name
 * holds typed (ASCII letters in any case), those starting with it first:
 * up to max into out. */
err_code db_discord_units_like(db_conn *c, const char *campaign_id,
                               const char *system, const char *typed,
                               db_discord_name *out, size_t max, size_t *n,
                               err_info *e);
/* The campaign's combats whose id holds typed, newest first: up to max
 * into out (detail: system, time and summary, cut). */
err_code db_discord_combats_like(db_conn *c, const char *campaign_id,
                                 const char *typed, db_discord_name *out,
                                 size_t max, size_t *n, err_info *e);

/* The id of the campaign's umpire token (who a Discord umpire acts as). */
err_code db_token_umpire_id(db_conn *c, const char *campaign_id,
                            char out[DB_ID_MAX], err_info *e);

/* ---- channel posts (webhooks.c; server/notify/, docs/discord.md) ----
 *
 * A campaign's Discord webhook (one at most) and the posts waiting for
 * it.  A post is made by the database itself: migration 7's trigger on
 * combats adds one, in the combat's own transaction, for every combat or
 * battle record of a campaign that has a webhook.  The poster
 * (server/notify/) sends the oldest post of each campaign and settles it,
 * delivered or failed; settling removes it.
 */
#define DB_WEBHOOK_ID_MAX    24  /* a snowflake: 1..20 digits */
#define DB_WEBHOOK_TOKEN_MAX 129 /* tokens are 1..128 characters */
#define DB_WEBHOOK_URL_MAX   320
#define DB_WEBHOOK_ERROR_MAX 200 /* longer errors are cut */

typedef struct db_webhook {
    char campaign_id[DB_ID_MAX];
    char url[DB_WEBHOOK_URL_MAX];       /* as given: it holds the token */
    char hook_id[DB_WEBHOOK_ID_MAX];    /* the webhook's id */
    char token[DB_WEBHOOK_TOKEN_MAX];   /* its token: a secret, never served */
    char set_at[DB_TIME_MAX];           /* when it was put */
    long long n_delivered;              /* posts Discord took */
    char last_delivery_at[DB_TIME_MAX]; /* "" while none */
    char last_delivery_combat[DB_ID_MAX];
    long long n_failures;              /* posts given up on or dropped */
    char last_failure_at[DB_TIME_MAX]; /* "" while none */
    char last_failure_combat[DB_ID_MAX];
    char last_error[DB_WEBHOOK_ERROR_MAX];
    long long n_pending; /* read only: posts waiting */
} db_webhook;

/* A post waiting: the combat (or battle record) to post. */
typedef struct db_webhook_post {
    long long seq; /* service-wide order of the posts */
    char campaign_id[DB_ID_MAX];
    char combat_id[DB_ID_MAX];
    char created_at[DB_TIME_MAX]; /* the combat's */
    long long n_waiting;          /* heads only: the campaign's posts waiting */
} db_webhook_post;

/* Sets the campaign's webhook: url, hook_id, token and set_at of w (the
 * counts start again from nothing; posts waiting stay and go to the new
 * webhook).  *is_new says whether the campaign had none.  ERR_CONFLICT
 * for an unknown campaign. */
err_code db_webhook_put(db_conn *c, const db_webhook *w, bool *is_new,
                        err_info *e);
/* The campaign's webhook with its counts (ERR_NOT_FOUND: none). */
err_code db_webhook_get(db_conn *c, const char *campaign_id, db_webhook *out,
                        err_info *e);
/* Removes the webhook and its posts waiting (ERR_NOT_FOUND: none). */
err_code db_webhook_delete(db_conn *c, const char *campaign_id, err_info *e);
/* The oldest post waiting of each campaign, with n_waiting, in seq order;
 * *out new (free()). */
err_code db_webhook_heads(db_conn *c, db_webhook_post **out, size_t *n,
                          err_info *e);
/* Settles the post p->seq at at: removes it and counts it on its
 * campaign's webhook, delivered when error is NULL, else failed with
 * error (cut to DB_WEBHOOK_ERROR_MAX - 1 bytes).  A post already gone
 * (its webhook removed) is no error. */
err_code db_webhook_settle(db_conn *c, const db_webhook_post *p,
                           const char *error, const char *at, err_info *e);
/* Drops the campaign's oldest posts waiting beyond its newest keep, each
 * counted as a failure with error; *n_dropped says how many. */
err_code db_webhook_drop(db_conn *c, const char *campaign_id, long long keep,
                         const char *error, const char *at,
                         long long *n_dropped, err_info *e);

/* The writer's commit listeners (db.c): each fn(arg) is called on the
 * writer thread after every batch that committed, once its jobs' done
 * callbacks have run, in the order they were added; it must not block
 * (the poster of channel posts and the events pump only wake their
 * threads).  At most DB_LISTENERS_MAX at once: ERR_LIMIT beyond.  The
 * same fn and arg added twice are called twice. */
#define DB_LISTENERS_MAX 8
err_code db_add_commit_listener(db *d, void (*fn)(void *arg), void *arg,
                                err_info *e);
/* Removes the listener fn, arg (its first addition; nothing when there is
 * none).  Once this returns, it is not running and will not be called
 * again. */
void db_remove_commit_listener(db *d, void (*fn)(void *arg), void *arg);

/* ---- token issues and share links (tokens.c, shares.c; migration 8;
 * docs/sharing.md) ----
 *
 * A token is reissued by revoking the live one of its role and side and
 * adding its successor, in one writer job: the old token is refused
 * (db_token_find: ERR_NOT_FOUND) from the commit that makes the new one.
 * Every issue stays listed, revoked ones included.  A share link opens a
 * campaign's combat, battle or whole report to whoever holds its secret,
 * which is stored only as its SHA-256 hash, like a token's.
 */

/* One issue of a campaign's token, as listed (never its hash). */
typedef struct db_token_issue {
    char id[DB_ID_MAX];          /* tok_..., as history names actors */
    char side_id[DB_ID_MAX];     /* "" for the umpire's */
    char side_name[DB_NAME_MAX]; /* read only: joined from sides */
    bool is_umpire;
    char issued_at[DB_TIME_MAX];
    bool is_by_umpire;            /* a reissue; else made at creation */
    char revoked_at[DB_TIME_MAX]; /* "" while it is the live one */
} db_token_issue;

/* In a writer job: revokes the live token of t's role (and, for a
 * player, of t->side_id, which must be a side of t->campaign_id) at at,
 * then inserts t with hash_hex as issued by the umpire at at.  Strings
 * borrowed.  ERR_CONFLICT for a taken id or hash. */
err_code db_token_reissue(db_conn *c, const db_token *t, const char *hash_hex,
                          const char *at, err_info *e);
/* A page of the campaign's token issues in the order they were made
 * (is_newest_first: the reverse); after is a token id; *out new
 * (free()). */
err_code db_token_issues_page(db_conn *c, const char *campaign_id,
                              const db_page *pg, db_token_issue **out,
                              size_t *n, err_info *e);

#define DB_SHARE_NOTE_MAX 501 /* notes are 1..500 bytes */

typedef struct db_share {
    char id[DB_ID_MAX]; /* shr_... */
    char campaign_id[DB_ID_MAX];
    char kind[16];                /* "combat", "battle" or "campaign" */
    char target_id[DB_ID_MAX];    /* the combat or battle; "" for campaign */
    char note[DB_SHARE_NOTE_MAX]; /* "" for none */
    char created_at[DB_TIME_MAX];
    char actor_token_id[DB_ID_MAX]; /* who made it */
    char revoked_at[DB_TIME_MAX];   /* "" while it opens its target */
} db_share;

/* In a writer job: a new link whose secret hashes to hash_hex (s's
 * revoked_at is not read: a new link is live).  ERR_CONFLICT for a taken
 * id or hash, an unknown campaign, or a target that does not fit kind. */
err_code db_share_insert(db_conn *c, const db_share *s, const char *hash_hex,
                         err_info *e);
/* The live link whose secret hashes to hash_hex: ERR_NOT_FOUND when there
 * is none or it was revoked. */
err_code db_share_find(db_conn *c, const char *hash_hex, db_share *out,
                       err_info *e);
/* In a writer job: revokes the campaign's link id at at (a link revoked
 * already keeps its first time) and reads it back into *out;
 * ERR_NOT_FOUND when the campaign has no such link. */
err_code db_share_revoke(db_conn *c, const char *campaign_id, const char *id,
                         const char *at, db_share *out, err_info *e);
/* A page of the campaign's links in the order they were made
 * (is_newest_first: the reverse); after is a link id; *out new
 * (free()). */
err_code db_shares_page(db_conn *c, const char *campaign_id, const db_page *pg,
                        db_share **out, size_t *n, err_info *e);

/* ---- the campaign event log (event_log.c; migration 10;
 * docs/events.md) ----
 * One row per event, written in the transaction of what it reports: by
 * triggers, but on SQLite unit history events by db_events_insert (one
 * row for a combat's packed ones) and a campaign's combats and the
 * ledger's moves by db_log_combat and db_log_ledger (one row for a
 * combat and its move, and its units' events after them where it was
 * staged: db_events_insert_logged), read back one event per id: its seq
 * is the event's id, increasing service-wide. */

/* One event of the log, with what it reports joined from its record. */
typedef struct db_logged_event {
    long long seq; /* its id */
    char campaign_id[DB_ID_MAX];
    char kind[8];                 /* combat, battle, unit, ledger; revoked
                                     (a token: never served) */
    char record_id[DB_ID_MAX];    /* combat, battle, revoked: its id */
    char system[16];              /* combat, battle: its system */
    char status[16];              /* battle: its status then */
    long long n;                  /* battle: its actions then; ledger: its
                                     length then; unit: the events of its
                                     row (a block), as stored */
    char head[65];                /* ledger: its head then */
    char created_at[DB_TIME_MAX]; /* combat: when it landed */
    char *summary;                /* combat: owned, NULL for the others */
    db_event unit;                /* unit: the history event, its strings
                                     owned; zeroed for the others */
} db_logged_event;

/* The log's events after seq after, oldest first, limit at most: every
 * campaign's (campaign_id NULL; upto unused), or campaign_id's up to seq
 * upto (inclusive; LLONG_MAX for no bound).  A campaign's read comes
 * with its unit events' documents; every campaign's without those that
 * their combat keeps (migration 14; their after NULL): db_event_log_docs
 * reads them for the events wanted.  *out new: db_event_log_free. */
err_code db_event_log_after(db_conn *c, const char *campaign_id,
                            long long after, long long upto, int limit,
                            db_logged_event **out, size_t *n, err_info *e);
/* Reads the documents of the n unit events at evs that their combat
 * keeps, for the campaigns is_wanted(campaign_id, arg) accepts (NULL:
 * every one).  An event whose combat's documents cannot be read stays
 * without them (its history's pages report it), so that one damaged
 * row does not stop the log; ERR_NOMEM, or the store's failure. */
err_code db_event_log_docs(db_conn *c, db_logged_event *evs, size_t n,
                           bool (*is_wanted)(const char *campaign_id,
                                             void *arg),
                           void *arg, err_info *e);
/* The log's last seq, 0 while it is empty: every campaign's
 * (campaign_id NULL) or one's. */
err_code db_event_log_last(db_conn *c, const char *campaign_id, long long *out,
                           err_info *e);
/* NULL allowed. */
void db_event_log_free(db_logged_event *evs, size_t n);

/* ---- moving a store (copy.c) ----
 * For tools run beside the server, not by it: the umpire command's
 * migrate and copy-sqlite. */

/* The schema version of the store at path (a file or a PostgreSQL URL)
 * as it is, migrating nothing: 0 for a file that does not exist yet or
 * a database never migrated. */
err_code db_schema_version_at(const char *path, int *out, err_info *e);

#define DB_COPY_TABLES_MAX 40

/* What db_copy copied. */
typedef struct db_copy_info {
    int schema_version; /* both stores' */
    int n_tables;
    struct {
        char name[64];
        long long n_rows;
    } tables[DB_COPY_TABLES_MAX]; /* in the order copied */
    /* the campaigns copied, oldest first: owned, db_copy_info_free */
    char (*campaign_ids)[DB_ID_MAX];
    size_t n_campaigns;
    double seconds; /* how long the copy took */
} db_copy_info;

/*
 * Copies the SQLite store at src_path (an umpire database of any schema
 * version: it is first migrated to this build's) into the PostgreSQL
 * database dest_url (migrated too), which must hold no umpire data
 * (ERR_CONFLICT otherwise).  The source is read from one snapshot and the
 * destination written in one transaction: all or nothing.  Every table,
 * in foreign-key order, every column by name, SQLite's rowid into
 * PostgreSQL's rowid column; the identity sequences are moved past the
 * values copied.  The destination's triggers are off during the copy, so
 * the event log and the campaigns' versions are copied as they are, not
 * written again: that needs the role owning the tables (the one the
 * server migrates with).  The server should not be running on either
 * store.  On success info (zeroed first) says what was copied; free it
 * with db_copy_info_free.
 */
err_code db_copy(const char *src_path, const char *dest_url, db_copy_info *info,
                 err_info *e);
void db_copy_info_free(db_copy_info *info);

#endif
