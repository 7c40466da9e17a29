/*
 * db_fixture.h: what the database suites (tests/db/test_*.c) share: a
 * fresh database file per test in its own mkdtemp folder, SQL probes that
 * read it directly (a snapshot of the whole file among them), the writer
 * held in place by a "blocker" job, rows written through the writer, and a
 * unit compared with the one written.
 *
 * Every test gets a folder under a per-TCase folder (db_fixture_suite_make,
 * an unchecked fixture), which is swept at the end for tests that failed in
 * a forked child before their teardown could run.  Helpers abort the test
 * (Check) on failure.
 */
#ifndef UMPIRE_TESTS_DB_FIXTURE_H
#define UMPIRE_TESTS_DB_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <sqlite3.h>

#include "db_sql.h"

#include "db.h"

/* The longest a test waits for the writer. */
#define DB_FIXTURE_WAIT_SECONDS 30

/* The open database of the test, or NULL; db_fixture_teardown closes it. */
extern db *db_fixture_db;
/* The test's database file: <test folder>/umpire.db. */
extern char db_fixture_path[192];

/* Unchecked fixture: makes and removes the per-TCase folder. */
void db_fixture_suite_make(void);
void db_fixture_suite_remove(void);

/* Checked fixture: a fresh test folder (no database open yet) and a reset
 * blocker; teardown releases the blocker, closes the database and removes
 * the file with its -wal, -shm and -journal files and the folder. */
void db_fixture_setup(void);
void db_fixture_teardown(void);

/* Opens db_fixture_path with db_open (every migration runs), two readers. */
void db_fixture_open(void);

/* ---- SQL probes -------------------------------------------------------- */

bool db_fixture_file_exists(const char *path);
/* Bytes of db_path's write-ahead log (its -wal file; 0 when there is none). */
long long db_fixture_log_size(const char *db_path);
/* The first column of the first row of sql as an int, or -1. */
int db_fixture_lite_query_int(sqlite3 *c, const char *sql);
#define db_fixture_query_int(c, sql) db_fixture_lite_query_int(DB_LITE(c), sql)
/* The same as text into buf (n bytes), or "(none)". */
void db_fixture_lite_query_text(sqlite3 *c, const char *sql, char *buf,
                                size_t n);
#define db_fixture_query_text(c, sql, buf, n)                                  \
    db_fixture_lite_query_text(DB_LITE(c), sql, buf, n)
/* Rows of table (a literal name) whose id is id, or -1. */
int db_fixture_lite_count_rows(sqlite3 *c, const char *table, const char *id);
#define db_fixture_count_rows(c, table, id)                                    \
    db_fixture_lite_count_rows(DB_LITE(c), table, id)
/* Whether a and b are the same string, or both NULL. */
bool db_fixture_str_eq_or_null(const char *a, const char *b);
/* SQL that takes the file's event log back to before migration 27 (no
 * n_units, the feed's index on unit rows alone): a file made now holds
 * no row that logs a combat with its events unless a staged combat wrote
 * it (pipeline.c). */
#define DB_FIXTURE_BEFORE_27                                                   \
    "DROP INDEX event_log_units;"                                              \
    "ALTER TABLE event_log DROP COLUMN n_units;"                               \
    "CREATE INDEX event_log_units ON event_log (campaign_id, unit_seq) "       \
    "WHERE kind = 'unit';"
/* SQL that takes a store back to before migration 23 (a unit's history
 * as a chain): for the tests that make an older store from this build's. */
#define DB_FIXTURE_BEFORE_23                                                   \
    DB_FIXTURE_BEFORE_27                                                       \
    "DROP TABLE unit_heads;"                                                   \
    "DROP TABLE unit_marks;"                                                   \
    "ALTER TABLE unit_events DROP COLUMN prev_seq;"                            \
    "CREATE INDEX unit_events_by_unit ON unit_events (unit_row, seq, "         \
    "unit_seq);"
/* Runs sql on db_fixture_path with a plain connection, outside db_open. */
void db_fixture_raw_exec(const char *sql);
/* db_fixture_query_int on db_fixture_path, opened read-only. */
int db_fixture_raw_query_int(const char *sql);

/* Every history event where its unit's chain says (the one before it of
 * its unit, its number its place), every head its unit's last, and a
 * mark on every 64th event of each unit (unit_events.c's MARK_EVERY), and
 * no other: checked on db_fixture_path. */
void db_fixture_check_chains(void);

/* Everything in db_fixture_path as text: the version, the schema and every
 * row of every table in a fixed order (each table's first two columns
 * must start a unique key).  New: free(). */
char *db_fixture_snapshot(void);

/* ---- the writer -------------------------------------------------------- */

/* Now plus DB_FIXTURE_WAIT_SECONDS on the real-time clock. */
void db_fixture_deadline(struct timespec *ts);

/* Queues the blocker and returns once the writer is inside it, so every
 * job submitted before db_fixture_release_writer lands in the next batch.
 * The blocker gives up by itself after DB_FIXTURE_WAIT_SECONDS. */
void db_fixture_hold_writer(void);
void db_fixture_release_writer(void);

/* db_write of run(arg); returns its code, the details in *e. */
err_code db_fixture_write_rc(db_job_fn run, void *arg, err_info *e);
/* db_write of run(arg), which must succeed; what names it in a failure. */
void db_fixture_write_ok(db_job_fn run, void *arg, const char *what);

/* Job wrappers: one store call each, the row as arg. */
err_code db_fixture_job_campaign(db_conn *c, void *arg, err_info *e);
err_code db_fixture_job_side(db_conn *c, void *arg, err_info *e);
err_code db_fixture_job_side_update(db_conn *c, void *arg, err_info *e);

/* A campaign with a new id, the given name, default options (SCRUD, SCS;
 * EDNA's are zero); "add" also inserts it through the writer. */
void db_fixture_new_campaign(db_campaign *c, const char *name);
void db_fixture_add_campaign(db_campaign *c, const char *name);

/* A side of campaign_id; id NULL: a random one.  "add" also inserts it. */
void db_fixture_new_side(db_side *s, const char *campaign_id, const char *id,
                         const char *name);
void db_fixture_add_side(db_side *s, const char *campaign_id, const char *id,
                         const char *name);

/* ---- combats ----------------------------------------------------------- */

/* Seeds of 64 hex digits for commitments and server seeds. */
#define DB_FIXTURE_HEX64                                                       \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define DB_FIXTURE_HEX64_B                                                     \
    "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

/* A seeded SCRUD combat of campaign_id ("" one-off) with a summary and a
 * report, no rolls; note and client_seed (may be NULL) borrowed. */
void db_fixture_new_combat(db_combat *cb, const char *campaign_id,
                           const char *created_at, char *note,
                           char *client_seed);

/* ---- values of older layouts ------------------------------------------ */

/* text packed as the service once packed documents (db_doc_text and
 * db_doc_text_after still read them): a bare zstd frame at level 1 with a
 * checksum, with prefix ("": none) as its reference.  New (free()). */
unsigned char *db_fixture_pack_after(const char *text, const char *prefix,
                                     size_t *len);
unsigned char *db_fixture_pack_bare(const char *text, size_t *len);
/* The checksum the compact layout of packed rolls ends with (combat_pack.c,
 * check_of), of its n bytes of rolls, into out: written here as the
 * service writes it, so that a test can make a value whose rolls are
 * damaged in a given way but whose checksum is right. */
void db_fixture_rolls_check(const unsigned char *rolls, size_t n,
                            unsigned char out[4]);
/* A campaign combat's packed rolls v2 (v2_len bytes, the compact layout
 * combat_pack.c writes now) as the layout before stored them: the same
 * tag's place ("\033rh1"), count and hashes, then the rolls' text without
 * their hashes in a zstd frame, with the documents' dictionary
 * (db_doc_pack), or bare (is_bare: db_fixture_pack_bare), as before
 * that.  New (free()), *len its size. */
unsigned char *db_fixture_rolls_v1(const unsigned char *v2, size_t v2_len,
                                   bool is_bare, size_t *len);

/* ---- units ------------------------------------------------------------- */

/* Job wrappers: db_unit_insert and db_unit_update, the unit as arg. */
err_code db_fixture_job_unit(db_conn *c, void *arg, err_info *e);
err_code db_fixture_job_unit_update(db_conn *c, void *arg, err_info *e);

/* A unit of side s; id NULL: a random one.  Default SCRUD values, no
 * system carried. */
void db_fixture_new_unit(db_unit *u, const db_side *s, const char *id,
                         const char *name);

/* Checks every stored field of got against want, the unit written (SCS as
 * the store keeps it: see db.h); side_name only when want_side is given. */
void db_fixture_check_unit(const db_unit *got, const db_unit *want,
                           const char *want_side);

/* The SCS columns of unit id as stored, read on a plain connection:
 * "has_scs|attack|defense|movement|has_reduced|r_attack|...|out_of_supply",
 * a NULL attack shown as "NULL". */
void db_fixture_raw_scs(const char *id, char *buf, size_t n);

#endif
