/*
 * copy.c: an SQLite store copied into an empty PostgreSQL one (db_copy in
 * db.h), and the schema version of a store read without migrating it
 * (db_schema_version_at).
 *
 * Both stores are first brought to this build's schema by db_open (the
 * PostgreSQL one has the same tables and columns, db/migrations_pg.c,
 * plus a rowid column on the tables whose SQLite rowid the statements
 * read).  Then the source is read in one read transaction (a snapshot)
 * and the destination written in one transaction (all or nothing): every
 * table of the source, in an order in which each row's foreign keys are
 * already there, every column by name (PRAGMA table_info), SQLite's rowid
 * into PostgreSQL's rowid column, with COPY ... FROM STDIN.  Values go as
 * they are: integers, text, and bytes for the BYTEA columns (a packed
 * document, or text, goes in as its bytes).
 *
 * The destination's triggers (the event log, channel posts, the
 * campaign's version) would log and count again what the source already
 * logged and counted: they are off during the copy (ALTER TABLE ...
 * DISABLE TRIGGER USER, in the transaction, so nothing else ever sees
 * them off; it needs the role that owns the tables, the one the server's
 * migrations ran as, and holds an exclusive lock on each table until the
 * commit).  Foreign keys stay checked.  Identity sequences (the rowid
 * columns, unit_events.seq, webhook_posts.seq, event_log.seq) are then
 * moved past the values copied, and past SQLite's own counters
 * (sqlite_sequence), so that new rows never take a number already given.
 *
 * Like backup.c, this file knows both stores: it reads the SQLite schema
 * and feeds PostgreSQL's COPY through libpq.
 */
#include "db_int.h"
#include "db_sql.h"
#include "deadline.h"
#include "migrations.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define COPY_COLS_MAX     64
#define COPY_REFS_MAX     8
#define COPY_IDENTITY_MAX 4
#define COPY_NAME_MAX     64
/* Bytes of COPY data sent at once. */
#define COPY_CHUNK (256 * 1024)

typedef struct copy_col {
    char name[COPY_NAME_MAX];
    bool is_bytea; /* PostgreSQL's column is BYTEA */
} copy_col;

typedef struct copy_table {
    char name[COPY_NAME_MAX];
    copy_col cols[COPY_COLS_MAX]; /* SQLite's columns, in order */
    int n_cols;
    bool has_rowid; /* PostgreSQL's rowid column: SQLite's rowid */
    char identity[COPY_IDENTITY_MAX][COPY_NAME_MAX]; /* identity columns */
    int n_identity;
    char refs[COPY_REFS_MAX][COPY_NAME_MAX]; /* tables its keys name */
    int n_refs;
    long long n_rows;
} copy_table;

typedef struct copy_run {
    db_conn *src, *dest;
    copy_table tables[DB_COPY_TABLES_MAX]; /* in foreign-key order */
    int n_tables;
} copy_run;

/* Whether s is a plain lower-case name: the schema's names are. */
static bool is_name(const char *s)
{
    size_t n = s ? strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") : 0;

    return n > 0 && s[n] == '\0' && n < COPY_NAME_MAX;
}

/* ---- the schema version of a store, read as it is ---- */

/* An SQLite file's PRAGMA user_version, opened without creating it (and
 * read-write: a read-only connection could not recover a crash's log). */
static err_code lite_version(const char *path, int *out, err_info *e)
{
    sqlite3 *c = NULL;
    sqlite3_stmt *st = NULL;
    int rc;

    rc = sqlite3_open_v2(path, &c, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(c, DB_BUSY_MS);
        rc = sqlite3_prepare_v2(c, "PRAGMA user_version", -1, &st, NULL);
    }
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        *out = sqlite3_column_int(st, 0);
    else
        err_set(e, ERR_INVALID, "db", "%s cannot be read as a database: %s",
                path, c ? sqlite3_errmsg(c) : "out of memory");
    sqlite3_finalize(st);
    sqlite3_close(c);
    return e && e->code ? e->code : ERR_OK;
}

err_code db_schema_version_at(const char *path, int *out, err_info *e)
{
    struct stat sb;
    db_conn *c;
    err_code rc;

    *out = 0;
    if (!db_path_is_pg(path)) {
        if (stat(path, &sb) != 0)
            return errno == ENOENT
                       ? ERR_OK
                       : err_set(e, ERR_INVALID, "db", "cannot read %s: %s",
                                 path, strerror(errno));
        return lite_version(path, out, e);
    }
    if ((rc = pg_conn_open(path, false, &c, e)) != ERR_OK)
        return rc;
    *out = pg_schema_version(c);
    pg_conn_close(c);
    if (*out < 0)
        return err_set(e, ERR_DB, "db", "cannot read the schema version");
    return ERR_OK;
}

/* ---- the tables ---- */

/* PostgreSQL's columns of t, matched with SQLite's: each of SQLite's must
 * be there, and the only other may be rowid. */
static err_code dest_columns(copy_run *r, copy_table *t, err_info *e)
{
    db_stmt *st;
    err_code rc;
    int i, n = 0, step;

    if ((rc = db_prepare_own(r->dest,
                             "SELECT column_name, data_type, is_identity "
                             "FROM information_schema.columns WHERE "
                             "table_schema = current_schema() AND "
                             "table_name = ?1",
                             &st, e)) != ERR_OK)
        return rc;
    db_bind_text_copy(st, 1, t->name);
    while ((step = db_step(st)) == DB_ROW) {
        const char *name = (const char *)db_column_text(st, 0);
        const char *type = (const char *)db_column_text(st, 1);
        const char *ident = (const char *)db_column_text(st, 2);
        for (i = 0; i < t->n_cols && strcmp(t->cols[i].name, name); i++)
            ;
        if (i < t->n_cols) {
            t->cols[i].is_bytea = strcmp(type, "bytea") == 0;
            n++;
        } else if (strcmp(name, "rowid") == 0) {
            t->has_rowid = true;
        } else {
            rc = err_set(e, ERR_CONFLICT, "db",
                         "the PostgreSQL table %s has a column %s that the "
                         "SQLite one has not",
                         t->name, name);
            break;
        }
        if (strcmp(ident, "YES") == 0 && t->n_identity < COPY_IDENTITY_MAX)
            snprintf(t->identity[t->n_identity++], COPY_NAME_MAX, "%s", name);
    }
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(r->dest, e, "reading the PostgreSQL schema");
    db_finalize(st);
    if (rc == ERR_OK && n != t->n_cols)
        rc = err_set(e, ERR_CONFLICT, "db",
                     n == 0 ? "the PostgreSQL database has no table %s"
                            : "the PostgreSQL table %s lacks columns of the "
                              "SQLite one",
                     t->name);
    return rc;
}

/* Steps the source statement sql, reading column col of each row (a
 * name) into names, at most max. */
static err_code src_names(copy_run *r, const char *sql, int col,
                          char (*names)[COPY_NAME_MAX], int max, int *n,
                          err_info *e)
{
    db_stmt *st;
    err_code rc;
    int step;

    *n = 0;
    if ((rc = db_prepare_own(r->src, sql, &st, e)) != ERR_OK)
        return rc;
    while ((step = db_step(st)) == DB_ROW && rc == ERR_OK) {
        const char *name = (const char *)db_column_text(st, col);
        if (!is_name(name) || *n == max)
            rc = err_set(e, ERR_INVALID, "db",
                         "the SQLite schema is not umpire's (%s)",
                         name ? name : "a column without a name");
        else
            snprintf(names[(*n)++], COPY_NAME_MAX, "%s", name);
    }
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(r->src, e, "reading the SQLite schema");
    db_finalize(st);
    return rc;
}

/* Table t's columns and the tables its foreign keys name, from SQLite's
 * schema; then PostgreSQL's columns. */
static err_code read_table(copy_run *r, copy_table *t, err_info *e)
{
    char sql[128], names[COPY_COLS_MAX][COPY_NAME_MAX];
    err_code rc;
    int i, n;

    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", t->name);
    if ((rc = src_names(r, sql, 1, names, COPY_COLS_MAX, &n, e)) != ERR_OK)
        return rc;
    for (i = 0; i < n; i++)
        memcpy(t->cols[i].name, names[i], COPY_NAME_MAX);
    t->n_cols = n;
    snprintf(sql, sizeof sql, "PRAGMA foreign_key_list(\"%s\")", t->name);
    if ((rc = src_names(r, sql, 2, t->refs, COPY_REFS_MAX, &t->n_refs, e)) !=
        ERR_OK)
        return rc;
    return dest_columns(r, t, e);
}

/* Whether table name is placed: among the first n of r's tables. */
static bool is_placed(const copy_run *r, int n, const char *name)
{
    int i;

    for (i = 0; i < n; i++)
        if (strcmp(r->tables[i].name, name) == 0)
            return true;
    return false;
}

/* Whether every table that t's keys name (but itself) is placed, or is
 * none of the copy's. */
static bool is_ready(const copy_run *r, int n_placed, const copy_table *t)
{
    int i;

    for (i = 0; i < t->n_refs; i++)
        if (strcmp(t->refs[i], t->name) != 0 &&
            is_placed(r, r->n_tables, t->refs[i]) &&
            !is_placed(r, n_placed, t->refs[i]))
            return false;
    return true;
}

/* Puts the tables in an order in which every foreign key names a table
 * already copied. */
static err_code order_tables(copy_run *r, err_info *e)
{
    int placed, i;
    copy_table tmp;

    for (placed = 0; placed < r->n_tables; placed++) {
        for (i = placed; i < r->n_tables; i++)
            if (is_ready(r, placed, &r->tables[i]))
                break;
        if (i == r->n_tables)
            return err_set(e, ERR_INVALID, "db",
                           "the SQLite tables' foreign keys form a cycle");
        tmp = r->tables[i];
        memmove(&r->tables[placed + 1], &r->tables[placed],
                (size_t)(i - placed) * sizeof tmp);
        r->tables[placed] = tmp;
    }
    return ERR_OK;
}

/* The source's tables (the first read opens its snapshot), read and put
 * in foreign-key order. */
static err_code read_tables(copy_run *r, err_info *e)
{
    char names[DB_COPY_TABLES_MAX][COPY_NAME_MAX];
    err_code rc;
    int i, n;

    if ((rc = src_names(r,
                        "SELECT name FROM sqlite_schema WHERE type = 'table' "
                        "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                        "ORDER BY name",
                        0, names, DB_COPY_TABLES_MAX, &n, e)) != ERR_OK)
        return rc;
    for (i = 0; i < n; i++) {
        memcpy(r->tables[i].name, names[i], COPY_NAME_MAX);
        if ((rc = read_table(r, &r->tables[i], e)) != ERR_OK)
            return rc;
    }
    r->n_tables = n;
    return order_tables(r, e);
}

/* ---- the destination ---- */

/* The first column of sql's first row on c as an integer into *out. */
static err_code query_int(db_conn *c, const char *sql, long long *out,
                          err_info *e)
{
    db_stmt *st;
    err_code rc;

    *out = 0;
    if ((rc = db_prepare_own(c, sql, &st, e)) != ERR_OK)
        return rc;
    if (db_step(st) == DB_ROW)
        *out = db_column_int64(st, 0);
    else
        rc = db_fail(c, e, sql);
    db_finalize(st);
    return rc;
}

/* Opens the destination's transaction: each table locked, its triggers
 * off, and found empty. */
static err_code dest_begin(copy_run *r, err_info *e)
{
    char sql[160];
    err_info why;
    long long n;
    err_code rc;
    int i;

    if ((rc = db_exec(r->dest, "BEGIN", e)) != ERR_OK)
        return rc;
    for (i = 0; i < r->n_tables; i++) {
        const char *name = r->tables[i].name;
        snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" DISABLE TRIGGER USER",
                 name);
        err_clear(&why);
        if ((rc = db_exec(r->dest, sql, &why)) != ERR_OK)
            return err_set(e, rc, "db",
                           "cannot turn the triggers of %s off for the copy "
                           "(that needs the role owning the tables, which "
                           "the server's migrations ran as): %s",
                           name, why.message);
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM (SELECT 1 FROM \"%s\" LIMIT 1) AS x",
                 name);
        if ((rc = query_int(r->dest, sql, &n, e)) != ERR_OK)
            return rc;
        if (n > 0)
            return err_set(e, ERR_CONFLICT, "db",
                           "the PostgreSQL database already holds umpire "
                           "data (its table %s has rows): the copy goes "
                           "into an empty one only",
                           name);
    }
    return ERR_OK;
}

/* A growing buffer of COPY data. */
typedef struct copy_buf {
    char *p;
    size_t n, cap;
    bool is_oom;
} copy_buf;

/* Room for n more bytes: where to write them, or NULL. */
static char *buf_room(copy_buf *b, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : COPY_CHUNK * 2;
        char *p;
        while (cap < b->n + n)
            cap *= 2;
        if ((p = realloc(b->p, cap)) == NULL) {
            b->is_oom = true;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    return b->p + b->n;
}

static void buf_add(copy_buf *b, const char *s, size_t n)
{
    char *o = buf_room(b, n);

    if (o != NULL) {
        memcpy(o, s, n);
        b->n += n;
    }
}

/* n bytes at p as a field of COPY's text format: as bytea's hex (its
 * backslash escaped), or as text with COPY's escapes. */
static void buf_bytes(copy_buf *b, const unsigned char *p, size_t n,
                      bool is_bytea)
{
    static const char hex[] = "0123456789abcdef";
    char *o = buf_room(b, 3 + 2 * n), *start = o;
    size_t i;

    if (o == NULL)
        return;
    if (is_bytea) {
        memcpy(o, "\\\\x", 3);
        for (o += 3, i = 0; i < n; i++) {
            *o++ = hex[p[i] >> 4];
            *o++ = hex[p[i] & 15];
        }
    } else {
        for (i = 0; i < n; i++) {
            char ch = (char)p[i], esc = ch == '\\'   ? '\\'
                                        : ch == '\n' ? 'n'
                                        : ch == '\r' ? 'r'
                                        : ch == '\t' ? 't'
                                                     : 0;
            if (esc) {
                *o++ = '\\';
                *o++ = esc;
            } else {
                *o++ = ch;
            }
        }
    }
    b->n += (size_t)(o - start);
}

/* Column col of the source's row as a COPY field, typed as it is. */
static void buf_value(copy_buf *b, db_stmt *st, int col, bool is_bytea)
{
    char num[32];

    switch (db_column_type(st, col)) {
    case DB_NULL: buf_add(b, "\\N", 2); break;
    case DB_INTEGER:
        buf_add(b, num,
                (size_t)snprintf(num, sizeof num, "%lld",
                                 db_column_int64(st, col)));
        break;
    case DB_FLOAT:
        buf_add(b, num,
                (size_t)snprintf(num, sizeof num, "%.17g",
                                 sqlite3_column_double(st->lite, col)));
        break;
    default:
        buf_bytes(b, db_column_blob(st, col), (size_t)db_column_bytes(st, col),
                  is_bytea);
    }
}

/* The statements of t's copy: SELECT on the source, COPY on the
 * destination, naming the same columns (rowid first, where copied). */
static void copy_sql(const copy_table *t, char *sel, char *copy, size_t n)
{
    size_t ns, nc;
    int i;

    ns = (size_t)snprintf(sel, n, "SELECT %s", t->has_rowid ? "rowid" : "");
    nc = (size_t)snprintf(copy, n, "COPY \"%s\" (%s", t->name,
                          t->has_rowid ? "rowid" : "");
    for (i = 0; i < t->n_cols; i++) {
        const char *sep = i > 0 || t->has_rowid ? ", " : "";
        ns += (size_t)snprintf(sel + ns, n - ns, "%s\"%s\"", sep,
                               t->cols[i].name);
        nc += (size_t)snprintf(copy + nc, n - nc, "%s\"%s\"", sep,
                               t->cols[i].name);
    }
    snprintf(sel + ns, n - ns, " FROM \"%s\"%s", t->name,
             t->has_rowid ? " ORDER BY rowid" : "");
    snprintf(copy + nc, n - nc, ") FROM STDIN");
}

/* What a failure of libpq under the COPY answers. */
static err_code copy_fail(db_conn *c, PGresult *res, const char *table,
                          err_info *e)
{
    const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(c->pg);
    int n = (int)strcspn(msg, "\n");

    if (PQstatus(c->pg) == CONNECTION_BAD)
        return err_set(e, ERR_UNAVAILABLE, NULL, "%s", DB_DOWN_MESSAGE);
    return err_set(e, ERR_DB, "db", "copying %s: %.*s", table, n, msg);
}

/* Sends the source's rows of t (st, stepped) as COPY data: ERR_OK, or
 * the reason to abort the COPY. */
static err_code send_rows(copy_run *r, copy_table *t, db_stmt *st, err_info *e)
{
    copy_buf b = {NULL, 0, 0, false};
    err_code rc = ERR_OK;
    int step = DB_DONE, i, n = t->n_cols + (t->has_rowid ? 1 : 0);

    while (rc == ERR_OK && (step = db_step(st)) == DB_ROW) {
        for (i = 0; i < n; i++) {
            bool is_bytea =
                i >= n - t->n_cols && t->cols[i - (n - t->n_cols)].is_bytea;
            if (i > 0)
                buf_add(&b, "\t", 1);
            buf_value(&b, st, i, is_bytea);
        }
        buf_add(&b, "\n", 1);
        t->n_rows++;
        if (b.is_oom)
            rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
        else if (b.n >= COPY_CHUNK &&
                 PQputCopyData(r->dest->pg, b.p, (int)b.n) != 1)
            rc = copy_fail(r->dest, NULL, t->name, e);
        else if (b.n >= COPY_CHUNK)
            b.n = 0;
    }
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(r->src, e, "reading the SQLite database");
    if (rc == ERR_OK && b.n > 0 &&
        PQputCopyData(r->dest->pg, b.p, (int)b.n) != 1)
        rc = copy_fail(r->dest, NULL, t->name, e);
    free(b.p);
    return rc;
}

/* Copies t's rows, source to destination. */
static err_code copy_rows(copy_run *r, copy_table *t, err_info *e)
{
    char sel[COPY_COLS_MAX * (COPY_NAME_MAX + 4) + 128];
    char copy[sizeof sel];
    PGresult *res;
    db_stmt *st;
    err_code rc;

    copy_sql(t, sel, copy, sizeof sel);
    if ((rc = db_prepare_own(r->src, sel, &st, e)) != ERR_OK)
        return rc;
    res = PQexec(r->dest->pg, copy);
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        rc = copy_fail(r->dest, res, t->name, e);
        PQclear(res);
        db_finalize(st);
        return rc;
    }
    PQclear(res);
    rc = send_rows(r, t, st, e);
    db_finalize(st);
    if (PQputCopyEnd(r->dest->pg, rc == ERR_OK ? NULL : "the copy failed") !=
            1 &&
        rc == ERR_OK)
        rc = copy_fail(r->dest, NULL, t->name, e);
    while ((res = PQgetResult(r->dest->pg)) != NULL) {
        if (rc == ERR_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
            rc = copy_fail(r->dest, res, t->name, e);
        PQclear(res);
    }
    return rc;
}

/* Moves t's identity sequences past the values copied and past SQLite's
 * counter of the table (sqlite_sequence: AUTOINCREMENT never gives a
 * number twice, even one whose row is gone). */
static err_code move_sequences(copy_run *r, const copy_table *t, err_info *e)
{
    char sql[256];
    long long top, counter;
    db_stmt *st;
    err_code rc;
    int i;

    for (i = 0; i < t->n_identity; i++) {
        snprintf(sql, sizeof sql, "SELECT coalesce(max(\"%s\"), 0) FROM \"%s\"",
                 t->identity[i], t->name);
        if ((rc = query_int(r->dest, sql, &top, e)) != ERR_OK)
            return rc;
        snprintf(sql, sizeof sql,
                 "SELECT coalesce(max(seq), 0) FROM sqlite_sequence "
                 "WHERE name = '%s'",
                 t->name);
        if (strcmp(t->identity[i], "rowid") != 0 &&
            query_int(r->src, sql, &counter, NULL) == ERR_OK && counter > top)
            top = counter;
        if (top < 1)
            continue;
        snprintf(sql, sizeof sql,
                 "SELECT setval(pg_get_serial_sequence('%s', '%s'), ?1)",
                 t->name, t->identity[i]);
        if ((rc = db_prepare_own(r->dest, sql, &st, e)) != ERR_OK)
            return rc;
        db_bind_int64(st, 1, top);
        rc = db_step(st) == DB_ROW ? ERR_OK
                                   : db_fail(r->dest, e, "moving a sequence");
        db_finalize(st);
        if (rc != ERR_OK)
            return rc;
    }
    return ERR_OK;
}

/* Every table copied, its sequences moved and its triggers back on. */
static err_code copy_tables(copy_run *r, err_info *e)
{
    char sql[160];
    err_code rc;
    int i;

    for (i = 0; i < r->n_tables; i++)
        if ((rc = copy_rows(r, &r->tables[i], e)) != ERR_OK ||
            (rc = move_sequences(r, &r->tables[i], e)) != ERR_OK)
            return rc;
    for (i = 0; i < r->n_tables; i++) {
        snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" ENABLE TRIGGER USER",
                 r->tables[i].name);
        if ((rc = db_exec(r->dest, sql, e)) != ERR_OK)
            return rc;
    }
    return ERR_OK;
}

/* The copied campaigns' ids, from the source's snapshot, into info. */
static err_code read_campaigns(copy_run *r, db_copy_info *info, err_info *e)
{
    db_stmt *st;
    err_code rc;
    size_t cap = 0;
    int step;

    if ((rc = db_prepare_own(r->src,
                             "SELECT id FROM campaigns ORDER BY created_at, id",
                             &st, e)) != ERR_OK)
        return rc;
    while ((step = db_step(st)) == DB_ROW) {
        if (info->n_campaigns == cap) {
            void *p;
            cap = cap ? cap * 2 : 16;
            p = realloc(info->campaign_ids, cap * sizeof *info->campaign_ids);
            if (p == NULL) {
                rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
                break;
            }
            info->campaign_ids = p;
        }
        db_column_copy(st, 0, info->campaign_ids[info->n_campaigns++],
                       DB_ID_MAX);
    }
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(r->src, e, "reading the campaigns");
    db_finalize(st);
    return rc;
}

/* ---- the copy ---- */

/* Both stores brought to this build's schema, then opened for the copy:
 * the source read in one snapshot, the destination in one transaction. */
static err_code open_both(copy_run *r, const char *src_path,
                          const char *dest_url, err_info *e)
{
    db *d = NULL;
    err_code rc;

    /* The destination first: a source is not migrated for nothing. */
    if ((rc = db_open(dest_url, 1, &d, e)) != ERR_OK ||
        (rc = db_close(d)) != ERR_OK)
        return rc;
    if ((rc = db_open(src_path, 1, &d, e)) != ERR_OK ||
        (rc = db_close(d)) != ERR_OK)
        return rc;
    if ((rc = db_conn_open(src_path, true, &r->src, e)) != ERR_OK ||
        (rc = db_conn_open(dest_url, true, &r->dest, e)) != ERR_OK)
        return rc;
    if (db_user_version(r->src) != migrations_count ||
        db_user_version(r->dest) != migrations_count)
        return err_set(e, ERR_DB, "db",
                       "the databases are not both at schema version %d",
                       migrations_count);
    return db_exec(r->src, "BEGIN", e);
}

/* The source: an umpire database (never created here). */
static err_code check_source(const char *src_path, err_info *e)
{
    int v;
    err_code rc;

    if (db_path_is_pg(src_path) || strcmp(src_path, ":memory:") == 0)
        return err_set(e, ERR_INVALID, "src",
                       "the source must be an SQLite database file");
    if (access(src_path, F_OK) != 0)
        return err_set(e, ERR_NOT_FOUND, "src", "no database at %s: %s",
                       src_path, strerror(errno));
    if ((rc = lite_version(src_path, &v, e)) != ERR_OK)
        return rc;
    if (v < 1)
        return err_set(e, ERR_INVALID, "src",
                       "%s is not an umpire database (no schema version)",
                       src_path);
    if (v > migrations_count)
        return err_set(e, ERR_INVALID, "src",
                       "%s has schema version %d, newer than this build's %d",
                       src_path, v, migrations_count);
    return ERR_OK;
}

err_code db_copy(const char *src_path, const char *dest_url, db_copy_info *info,
                 err_info *e)
{
    copy_run *r;
    double t0 = monotonic_s();
    err_code rc;
    int i;

    memset(info, 0, sizeof *info);
    if (!db_path_is_pg(dest_url))
        return err_set(e, ERR_INVALID, "db",
                       "the destination must be a PostgreSQL database "
                       "(postgresql://...)");
    if ((rc = check_source(src_path, e)) != ERR_OK)
        return rc;
    if ((r = calloc(1, sizeof *r)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if ((rc = open_both(r, src_path, dest_url, e)) == ERR_OK &&
        (rc = read_tables(r, e)) == ERR_OK &&
        (rc = read_campaigns(r, info, e)) == ERR_OK &&
        (rc = dest_begin(r, e)) == ERR_OK && (rc = copy_tables(r, e)) == ERR_OK)
        rc = db_exec(r->dest, "COMMIT", e);
    if (rc != ERR_OK && r->dest != NULL)
        db_exec(r->dest, "ROLLBACK", NULL);
    if (r->src != NULL)
        db_exec(r->src, "ROLLBACK", NULL);
    for (i = 0; rc == ERR_OK && i < r->n_tables; i++) {
        snprintf(info->tables[i].name, sizeof info->tables[i].name, "%s",
                 r->tables[i].name);
        info->tables[i].n_rows = r->tables[i].n_rows;
    }
    info->n_tables = rc == ERR_OK ? r->n_tables : 0;
    info->schema_version = migrations_count;
    info->seconds = monotonic_s() - t0;
    db_conn_close(r->src);
    db_conn_close(r->dest);
    free(r);
    if (rc != ERR_OK)
        db_copy_info_free(info);
    return rc;
}

void db_copy_info_free(db_copy_info *info)
{
    free(info->campaign_ids);
    info->campaign_ids = NULL;
    info->n_campaigns = 0;
}
