/*
 * db_sql.h: the SQL helpers the stores share (prepared statements kept on
 * their connection, stepping, reading rows, binding text).
 *
 * db/'s own header: included only by the .c files of db/ (and the tests
 * of db/).  Above db/, code includes db.h, which names no store: the
 * same calls run on an SQLite file or a PostgreSQL database (db_conn.h).
 */
#ifndef UMPIRE_DB_SQL_H
#define UMPIRE_DB_SQL_H

#include <stdbool.h>
#include <stddef.h>

#include "db.h"
#include "err.h"

/*
 * Statements, the same for both stores (db_conn.h says how).  The calls
 * and their codes are SQLite's, under db_ names: db_step answers DB_ROW,
 * DB_DONE or another code (a failure, which db_fail describes); binds
 * answer DB_OK (0) or a failure; a column is read by its 0-based index,
 * a parameter bound by its 1-based one.
 */
typedef struct db_stmt db_stmt;

#define DB_OK   0
#define DB_ROW  100
#define DB_DONE 101

/* A column's type, as db_column_type says it. */
enum { DB_INTEGER = 1, DB_FLOAT = 2, DB_TEXT = 3, DB_BLOB = 4, DB_NULL = 5 };

int db_step(db_stmt *st);
/* Makes st ready to run again, its bindings kept. */
void db_reset(db_stmt *st);
int db_bind_int(db_stmt *st, int i, int v);
int db_bind_int64(db_stmt *st, int i, long long v);
int db_bind_null(db_stmt *st, int i);
/* Binds n bytes at p, borrowed until the statement is released. */
int db_bind_blob(db_stmt *st, int i, const void *p, size_t n);
/* Binds a copy of s. */
int db_bind_text_copy(db_stmt *st, int i, const char *s);
int db_column_int(db_stmt *st, int col);
long long db_column_int64(db_stmt *st, int col);
/* A column's text, valid until the next step or release; NULL for NULL. */
const unsigned char *db_column_text(db_stmt *st, int col);
const void *db_column_blob(db_stmt *st, int col);
int db_column_bytes(db_stmt *st, int col);
int db_column_type(db_stmt *st, int col);

/* A channel post of combat_id (created_at), just inserted, queued where
 * its campaign has a webhook: SQLite's (webhooks.c; migration 26);
 * nothing on PostgreSQL, whose trigger queues it. */
err_code db_webhook_enqueue(db_conn *c, const char *campaign_id,
                            const char *combat_id, const char *created_at,
                            err_info *e);
/* A campaign's ledger as a read found it: its length and head. */
typedef struct db_ledger_head {
    char campaign_id[DB_ID_MAX];
    long long length;
    char head[LEDGER_HASH_HEX];
} db_ledger_head;

/* The campaign's version (db_campaign_version, which this is with next
 * NULL) and, in the same read, its next commitment (db_commitment_next's
 * columns; used_at and used_by empty) where it has one (*has_next; next
 * untouched where not), and its ledger's length and head (into ledger,
 * where next and ledger are given). */
err_code db_campaign_version_next(db_conn *c, const char *id, long long *out,
                                  db_commitment *next, bool *has_next,
                                  db_ledger_head *ledger, err_info *e);

/* Rows the connection's last statement changed; rows changed so far. */
int db_changes(db_conn *c);
long long db_total_changes(db_conn *c);
/* The rowid of the row c's last INSERT gave (SQLite); 0 on PostgreSQL,
 * where a statement returns what it needs (RETURNING). */
long long db_last_rowid(db_conn *c);
/* Where the SQLite writer c keeps what it keeps between its statements
 * (writer_kept.h, through writer_kept.c); NULL for any other connection. */
struct writer_kept **db_conn_kept(db_conn *c);
/* Whether a transaction is open on c. */
bool db_in_transaction(db_conn *c);
/* The SQLite connection under c (NULL for PostgreSQL): for the tests of
 * the SQLite store, which look under it. */
struct sqlite3 *db_conn_sqlite(db_conn *c);
/* The same for c a db_conn or already an sqlite3. */
#define DB_LITE(c)                                                             \
    _Generic((c), db_conn *                                                    \
             : db_conn_sqlite((db_conn *)(void *)(c)), default                 \
             : (struct sqlite3 *)(void *)(c))

/*
 * A statement of its own, not kept on the connection: for a cursor that
 * steps several statements at once (db_prepare's statements are reused).
 * Release it with db_finalize.
 */
err_code db_prepare_own(db_conn *c, const char *sql, db_stmt **st, err_info *e);
void db_finalize(db_stmt *st);

/*
 * Helpers for the stores.  db_prepare gives a statement for sql on conn,
 * reusing one kept on the connection when it is idle; release it with
 * db_done (never db_finalize).  db_fail maps a failure to
 * ERR_DB with a message, ERR_CONFLICT for a constraint, ERR_FULL with
 * DB_FULL_MESSAGE when the disk is full (db_is_full), or ERR_UNAVAILABLE
 * when a PostgreSQL store cannot be reached or is not the primary.
 */
err_code db_prepare(db_conn *conn, const char *sql, db_stmt **st, err_info *e);
void db_done(db_stmt *st);
err_code db_fail(db_conn *conn, err_info *e, const char *what);

/* Whether conn's last failure was the disk being full: SQLITE_FULL, or an
 * I/O error (a write, fsync or truncate) whose system error is ENOSPC or
 * EDQUOT; PostgreSQL's disk_full. */
bool db_is_full(db_conn *conn);

/* Steps st, expected to finish without rows; what names it in an error. */
err_code db_step_done(db_conn *c, db_stmt *st, err_info *e, const char *what);

/* How long a connection waits for a lock held by another (ms). */
#define DB_BUSY_MS 5000

/*
 * The log's upkeep (wal.c), SQLite's only, on the writer's connection w outside
 * any transaction.  db_wal_checkpoint moves the write-ahead log into the
 * database and truncates it (TRUNCATE), waiting up to timeout_ms for
 * locks: with a reader still on an old snapshot it moves what it can and
 * answers ERR_CONFLICT; ERR_FULL when the database cannot grow.
 * db_wal_probe writes and commits one page (the schema version, unchanged):
 * ERR_OK when the disk takes writes, ERR_FULL when it is full.
 */
err_code db_wal_checkpoint(db_conn *w, int timeout_ms, err_info *e);
err_code db_wal_probe(db_conn *w, err_info *e);

/* Reads a row into the element at elem (zeroed beforehand). */
typedef void (*db_row_reader)(db_stmt *st, void *elem);

/*
 * Steps st (prepared and bound) to the end, reading each row with read into
 * a growing array of size-byte elements: *out (new) and *n.  On failure the
 * array is released, with release (may be NULL) first, and *out is NULL.
 * st is released (db_done) in any case.
 */
err_code db_read_rows(db_conn *c, db_stmt *st, size_t size, db_row_reader read,
                      void (*release)(void *, size_t), void **out, size_t *n,
                      const char *what, err_info *e);
/* The rowid sql finds (?1 the row's id, ?2 its campaign) for the row id
 * of campaign_id: a page cursor's key; ERR_NOT_FOUND when there is none. */
err_code db_cursor_rowid(db_conn *c, const char *sql, const char *campaign_id,
                         const char *id, long long *out, err_info *e);

/* The integer in the first column of the row sql finds for ?1 = key into
 * *out (0 when it finds none); what names the read in a failure. */
err_code db_int64_of(db_conn *c, const char *sql, const char *key,
                     long long *out, const char *what, err_info *e);

/* The one row sql finds (?1 a campaign, ?2 an id or a name; its first
 * column the row's id) read into out by read, which says whether what it
 * read is possible (ERR_DB naming the row when not); ERR_NOT_FOUND when
 * there is none, naming noun ("unit") and what was asked for. */
err_code db_find_one(db_conn *c, const char *sql, const char *campaign_id,
                     const char *id_or_name, bool (*read)(db_stmt *, void *),
                     void *out, const char *noun, err_info *e);

/* A campaign's page's statements.  rows[after][newest first]: ?1 the
 * campaign, ?2 the cursor's rowid (only after one), ?3 the most rows; key
 * (?1 a row's id, ?2 its campaign) gives the rowid of the cursor's row.
 * A page in time order (is_timed: created_at, then rowid) takes the
 * cursor's created_at in ?2, its rowid in ?3 and the most rows in ?4, and
 * key gives created_at, rowid. */
typedef struct db_page_sql {
    const char *rows[2][2];
    const char *key;
    bool is_timed;
} db_page_sql;

/* The page pg (db.h) of campaign_id's rows by ps: the cursor's key, then
 * the rows, as db_read_rows reads them (*out, *n, release and what as
 * there); ERR_NOT_FOUND for a cursor that names no row of the campaign. */
err_code db_read_page(db_conn *c, const db_page_sql *ps,
                      const char *campaign_id, const db_page *pg, size_t size,
                      db_row_reader read, void (*release)(void *, size_t),
                      void **out, size_t *n, const char *what, err_info *e);

/* The ledger's head saved (ledger.c): its length and head on the
 * campaign's row, and the commitment it spends (db_chain_save, which also
 * logs the move, is this and db_log_ledger). */
err_code db_chain_store(db_conn *c, const db_chain *ch, err_info *e);
/* The same where the campaign is still at version (its write then counts
 * it again): *is_current says whether it was, and where it was not,
 * nothing is written (ERR_OK).  The version covers the commitment too: a
 * campaign at version whose next is not ch->spent refuses as
 * db_chain_store does. */
err_code db_chain_store_at(db_conn *c, const db_chain *ch, long long version,
                           bool *is_current, err_info *e);
/* Whether ch's campaign is still at version, with its ledger where ch
 * started (its length0 and head0), in one read: what db_chain_store_at
 * checks, for PostgreSQL (its SQL alone), which saves after the
 * combat's row. */
err_code db_chain_is_at(db_conn *c, const db_chain *ch, long long version,
                        bool *is_at, err_info *e);

/* The campaign event log's rows that no trigger writes on SQLite
 * (event_log.c; migration 25), in the transaction of what they report;
 * on PostgreSQL its triggers write them, and these do nothing.
 * db_log_combat: a campaign's combat (or battle record) just inserted,
 * with the ledger's move to moved's length and head where it moved the
 * ledger (one row for both, the combat's place before the move's; NULL
 * for none).  db_log_ledger: the ledger's move to ch's length and head
 * alone (a battle's action, through db_chain_save).  Rows written with
 * raw SQL are not logged on SQLite: every write goes through these. */
err_code db_log_combat(db_conn *c, const char *campaign_id,
                       const char *combat_id, const db_chain *moved,
                       err_info *e);
/* The combat of held logged (SQLite, held pending): alone (n_units 0),
 * or with the n_units (1..DB_LOG_BLOCK_MAX) events of its combat just
 * inserted from seq first, in one row (migration 27).  Then not
 * pending. */
err_code db_log_combat_held(db_conn *c, db_combat_log *held, long long first,
                            int n_units, err_info *e);
err_code db_log_ledger(db_conn *c, const db_chain *ch, err_info *e);

/* ERR_CONFLICT on dice.commitment: the campaign's next commitment, spent,
 * was spent by another write first (commitments.c; the ledger's save and
 * db_commitment_renew both spend it). */
err_code db_commitment_spent_first(err_info *e, const char *spent);

/* A copy of column col as text into buf (size n); "" for NULL. */
void db_column_copy(db_stmt *st, int col, char *buf, size_t n);

/* A malloc'd copy of column col, or NULL for NULL (caller frees). */
char *db_column_dup(db_stmt *st, int col);

/*
 * Documents stored packed.  A document column holds text, or a blob: the
 * text packed by zstd, in one frame that records its length.
 * db_doc_pack makes the blob (new, *len its size; NULL when out of
 * memory); db_column_doc reads either as a malloc'd text, NULL for NULL
 * or for a blob that does not inflate to its length.
 */
unsigned char *db_doc_pack(const char *text, size_t *len);
/* The same, packed harder (about a fifth smaller, for about a fifth more
 * work): for a document kept and read long, a campaign combat's report. */
unsigned char *db_doc_pack_small(const char *text, size_t *len);
/* The same, packed with less work (about 7 % less, for about 5 % more
 * bytes): a one-off combat's report, whose row still fits two to a page
 * (combat_pack.c). */
unsigned char *db_doc_pack_quick(const char *text, size_t *len);
char *db_column_doc(db_stmt *st, int col);
/* Column col: its text as it is (db_column_dup), or a blob unpacked by
 * unpack (its bytes, their number): db_column_doc's
 * reading.  NULL for NULL or an empty blob, or as unpack answers. */
char *db_column_unpacked(db_stmt *st, int col,
                         char *(*unpack)(const void *, size_t));
/* Whether the zlen bytes at z are a document packed with the dictionary
 * (read without any prefix). */
bool db_doc_is_dict(const void *z, size_t zlen);
/* The document in the zlen bytes at z, packed or not, as db_column_doc
 * reads it. */
char *db_doc_text(const void *z, size_t zlen);
/* The same, for a document packed with prefix as zstd's reference (a
 * frame that only inflates with the same prefix), or stored as it is.  A
 * combat's history documents were packed so, after its report, until
 * migration 20; such values still read.  (db_doc_text reads a bare frame,
 * packed with neither the dictionary nor a prefix: documents from before
 * the dictionary, and a campaign combat's roll log beside its hashes
 * before it too was packed with the dictionary.) */
char *db_doc_text_after(const void *z, size_t zlen, const char *prefix);
/* RS: in a combat's report value, where what is packed with the report
 * starts (a campaign combat's events' documents: unit_docs.c; a one-off's
 * rolls before migration 21: combat_pack.c); as the value of the column
 * that would hold that, that it is there.  No JSON text holds it raw. */
#define DB_AFTER_REPORT 0x1e
/* cb's report, RS, then text, in one frame packed as db_combat_pack
 * packs cb's report: into *z (new, *zlen bytes), and into *marker (new,
 * one byte) the value that says, in the column text would have had, that
 * it follows the report.  false when out of memory: nothing new. */
bool db_pack_after_report(const db_combat *cb, const char *text,
                          unsigned char **z, size_t *zlen,
                          unsigned char **marker);
/* Whether the value (len bytes) is that marker. */
bool db_is_after_report(const void *value, size_t len);
/* What follows the report in report (its value unpacked), new; NULL when
 * nothing does, or out of memory. */
char *db_after_report(const char *report);
/* Ends report (its value unpacked; NULL allowed) where what is packed
 * after it starts; what follows stays in place after the report's end, and
 * where it starts is returned (NULL: nothing follows). */
const char *db_report_end(char *report);
/* The stored layouts' integers (combat_pack.c's compact roll logs,
 * facts.c's facts): varints, 7 bits a byte, least significant first, the
 * top bit set on every byte but the last (a 64-bit value takes at most
 * DB_VARINT_MAX bytes); a signed value zigzagged first (0, -1, 1, -2, 2
 * ... as 0, 1, 2, 3, 4).  db_put_varint writes v at p and answers past
 * it; db_get_varint reads the one at *p (before end) into *v, moving *p
 * past it, false when it is cut short or longer than max bytes. */
enum { DB_VARINT_MAX = 10 };
static inline unsigned char *db_put_varint(unsigned char *p,
                                           unsigned long long v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}
static inline bool db_get_varint(const unsigned char **p,
                                 const unsigned char *end, int max,
                                 unsigned long long *v)
{
    int shift;

    *v = 0;
    for (shift = 0; *p < end && shift < 7 * max; shift += 7) {
        unsigned char b = *(*p)++;
        *v |= (unsigned long long)(b & 0x7f) << shift;
        if ((b & 0x80) == 0)
            return true;
    }
    return false;
}
static inline unsigned long long db_zigzag(long long v)
{
    return ((unsigned long long)v << 1) ^ (v < 0 ? ~0ULL : 0);
}
static inline long long db_unzigzag(unsigned long long u)
{
    return (long long)(u >> 1) ^ -(long long)(u & 1);
}
/* Whether the n bytes at s are lower-case hex digits (an id's or a
 * hash's, stored as their bytes). */
static inline bool db_is_lower_hex(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* A check against damage of the n bytes at value, not a secret: the first
 * DB_CHECK_BYTES of SipHash-2-4 (libsodium's crypto_shorthash) keyed by
 * key (crypto_shorthash_KEYBYTES bytes, each stored layout its own), into
 * out (combat_pack.c's compact roll logs, facts.c's facts). */
enum { DB_CHECK_BYTES = 4 };
void db_value_check(const unsigned char *key, const void *value, size_t n,
                    unsigned char out[DB_CHECK_BYTES]);
/* cb's facts as stored in the report's column (facts.c): tagged, with
 * their checksum; new, *len its size, or NULL when out of memory.
 * db_is_facts says whether a stored value is one; db_facts_unwrap
 * gives its facts (*facts new, *len their size): ERR_DB when it is not
 * one or its checksum fails, ERR_NOMEM. */
unsigned char *db_facts_wrap(const db_combat *cb, size_t *len);
bool db_is_facts(const void *z, size_t zlen);
err_code db_facts_unwrap(const void *z, size_t zlen, unsigned char **facts,
                         size_t *len);
/* A combat's packed roll log at column col (combats.rolls, however
 * packed: combat_pack.h) read into its rolls (db_rolls_read; a value
 * stored as text through db_rolls_unpack): ERR_DB for NULL or a value
 * that does not read, ERR_NOMEM.  unit_id: NULL, or the unit whose rolls
 * alone the caller keeps (the others' hashes may be left unwritten). */
err_code db_column_rolls_read(db_stmt *st, int col, long long ledger_first,
                              const char *unit_id, db_roll **out, size_t *n,
                              err_info *e);

/* Binds s as text, without a copy: s (not NULL) is borrowed and must
 * stay valid until st is released (db_done).  Returns DB_OK or a code. */
int db_bind_text(db_stmt *st, int i, const char *s);

/* Binds a copy of s as text, or NULL when s is NULL or "".  Returns
 * DB_OK or a code. */
int db_bind_text_or_null(db_stmt *st, int i, const char *s);

/* The same without the copy: s is borrowed, as db_bind_text's is. */
int db_bind_text_or_null_borrowed(db_stmt *st, int i, const char *s);

#endif
