/*
 * sql_pg.c: the PostgreSQL side of db_sql.h's statements, through libpq
 * (db_conn.h says how the two stores share one SQL).
 *
 * A statement is prepared on the server once per connection, under a name
 * of its own, with its parameters' types inferred there from the SQL; it
 * is run with PQexecPrepared, its values sent as text (bytea as bytes), and
 * its rows come back whole as text, which the column calls read.  A
 * connection that broke is made again (PQreset, which for a multi-host
 * string with target_session_attrs=read-write finds the new primary) the
 * next time it is used outside a transaction; inside one, its statements
 * fail, so a transaction the break cut is never half made again.
 */
#include "db_conn.h"
#include "db_sql.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Type oids (pg_type.h, which libpq does not install). */
enum {
    OID_BOOL = 16,
    OID_BYTEA = 17,
    OID_INT8 = 20,
    OID_INT2 = 21,
    OID_INT4 = 23,
    OID_TEXT = 25,
    OID_OID = 26,
    OID_FLOAT4 = 700,
    OID_FLOAT8 = 701,
    OID_NUMERIC = 1700
};

/* What db_step answers for a failure (SQLite's SQLITE_ERROR). */
enum { PG_STEP_ERROR = 1 };

/* Bumped when a server says it is no longer the primary, or is shutting
 * down: every connection of the process is made again when next used
 * outside a transaction. */
static atomic_uint pg_epoch;

unsigned pg_epoch_now(void)
{
    return atomic_load(&pg_epoch);
}

/* Whether s starts with the word w. */
static bool starts(const char *s, const char *w)
{
    while (*w != '\0' && *s == *w)
        s++, w++;
    return *w == '\0';
}

/* Records c's failure: res's SQLSTATE and message, or the connection's. */
static void note_failure(db_conn *c, const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(c->pg);
    size_t n;

    if (PQstatus(c->pg) == CONNECTION_BAD)
        state = "08006";
    snprintf(c->sqlstate, sizeof c->sqlstate, "%s", state ? state : "XX000");
    /* A server no longer the primary, or shutting down, keeps answering
     * on this session: the next use outside a transaction connects again
     * (a multi-host URL then finds the primary). */
    if (strcmp(c->sqlstate, "25006") == 0 || starts(c->sqlstate, "57P")) {
        c->needs_reset = true;
        /* and every other connection of the process, which may be on
         * the same server (a reader would read a demoted node's state) */
        atomic_fetch_add(&pg_epoch, 1);
    }
    snprintf(c->errmsg, sizeof c->errmsg, "%s", msg ? msg : "");
    n = strlen(c->errmsg);
    while (n > 0 && (c->errmsg[n - 1] == '\n' || c->errmsg[n - 1] == ' '))
        c->errmsg[--n] = '\0';
}

err_code pg_fail_code(db_conn *c)
{
    const char *s = c->sqlstate;

    if (strncmp(s, "23", 2) == 0)
        return ERR_CONFLICT;
    /* Text that is not UTF-8 (a path's %ff): nothing stored can match it,
     * since nothing that is not UTF-8 is ever stored. */
    if (strcmp(s, "22021") == 0)
        return ERR_NOT_FOUND;
    if (strcmp(s, "53100") == 0)
        return ERR_FULL;
    /* The server is gone, shutting down, or no longer the primary. */
    if (strncmp(s, "08", 2) == 0 || strncmp(s, "57P", 3) == 0 ||
        strcmp(s, "25006") == 0 || PQstatus(c->pg) == CONNECTION_BAD)
        return ERR_UNAVAILABLE;
    /* A campaign's lock not had in lock_timeout: busy, try again
     * (db_fail says so). */
    if (strcmp(s, "55P03") == 0)
        return ERR_UNAVAILABLE;
    return ERR_DB;
}

/* Whether sql opens (1) or ends (-1) a transaction, or neither (0). */
static int txn_effect(const char *sql)
{
    if (strncmp(sql, "BEGIN", 5) == 0)
        return 1;
    if (strncmp(sql, "COMMIT", 6) == 0 || strcmp(sql, "ROLLBACK") == 0 ||
        strncmp(sql, "END", 3) == 0)
        return -1;
    return 0;
}

/* Makes a broken connection again when no transaction is open on it:
 * whether it is usable. */
static bool pg_usable(db_conn *c)
{
    unsigned epoch = atomic_load(&pg_epoch);

    if (PQstatus(c->pg) == CONNECTION_OK && !c->needs_reset &&
        c->epoch == epoch)
        return true;
    if (c->is_txn)
        return false;
    c->needs_reset = false;
    c->epoch = epoch;
    PQreset(c->pg);
    if (PQstatus(c->pg) != CONNECTION_OK)
        return false;
    c->generation++; /* its prepared statements are gone */
    if (c->is_writer && !pg_session_setup(c)) {
        c->needs_reset = true; /* not without its settings */
        return false;
    }
    return true;
}

/* After a statement or a control command ran (ok or not): the
 * transaction it opened or ended. */
static void track_txn(db_conn *c, const char *sql, bool is_ok)
{
    int effect = txn_effect(sql);

    if (effect > 0 && is_ok)
        c->is_txn = true;
    else if (effect < 0)
        c->is_txn = false;
}

err_code pg_exec(db_conn *c, const char *sql, err_info *e)
{
    PGresult *res;
    ExecStatusType status;

    if (!pg_usable(c)) {
        note_failure(c, NULL);
        if (strcmp(sql, "ROLLBACK") == 0) {
            /* the break already ended it, and nothing of it stays */
            c->is_txn = false;
            return ERR_OK;
        }
        track_txn(c, sql, false);
        return err_set(e, ERR_UNAVAILABLE, NULL, "%s", DB_DOWN_MESSAGE);
    }
    /* SQLite's write transaction: PostgreSQL's read committed, said so
     * whatever the server's default (the campaign's lock, taken first,
     * then makes every read of the job see what was committed before). */
    res = PQexec(c->pg, starts(sql, "BEGIN IMMEDIATE")
                            ? "BEGIN ISOLATION LEVEL READ COMMITTED"
                            : sql);
    status = PQresultStatus(res);
    if ((status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) &&
        txn_effect(sql) > 0 && PQstatus(c->pg) == CONNECTION_BAD &&
        !c->is_retrying) {
        /* The break was found by this BEGIN: nothing was under way, so
         * connect again and begin once more. */
        PQclear(res);
        c->is_retrying = true;
        err_code again = pg_exec(c, sql, e);
        c->is_retrying = false;
        return again;
    }
    if (status == PGRES_COMMAND_OK && starts(sql, "COMMIT") &&
        strcmp(PQcmdStatus(res), "COMMIT") != 0) {
        /* COMMIT of a transaction that had failed: PostgreSQL rolls it
         * back and says ROLLBACK. */
        PQclear(res);
        c->is_txn = false;
        return err_set(e, ERR_DB, NULL, "the transaction was rolled back");
    }
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        note_failure(c, res);
        PQclear(res);
        track_txn(c, sql, false);
        return db_fail(c, e, "run");
    }
    PQclear(res);
    track_txn(c, sql, true);
    return ERR_OK;
}

bool pg_in_transaction(db_conn *c)
{
    PGTransactionStatusType t = PQtransactionStatus(c->pg);

    return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

/* ---- SQL: SQLite's parameters as PostgreSQL's ---- */

/*
 * sql with ?N as $N and each bare ? numbered as SQLite numbers it (the
 * largest so far, plus one); BEGIN IMMEDIATE as BEGIN; SQLite's unary +
 * before a column (which only keeps SQLite off an index) left out.
 * *n_params is the largest number, used[k] whether $k+1 appears.  NULL
 * when out of memory.
 */
char *pg_sql_text(const char *sql, int *n_params, bool used[PG_PARAMS_MAX])
{
    const char *start = sql;
    size_t n = strlen(sql);
    char *out = malloc(n * 2 + 16), *o = out;
    char quote = 0;
    int max = 0;

    *n_params = 0;
    if (out == NULL)
        return NULL;
    if (strncmp(sql, "BEGIN IMMEDIATE", 15) == 0) {
        strcpy(out, "BEGIN");
        return out;
    }
    while (*sql) {
        char ch = *sql++;
        if (quote) {
            if (ch == quote)
                quote = 0;
            *o++ = ch;
        } else if (ch == '\'' || ch == '"') {
            quote = ch;
            *o++ = ch;
        } else if (ch == '?') {
            int k = 0;
            if (*sql >= '0' && *sql <= '9') {
                while (*sql >= '0' && *sql <= '9')
                    k = k * 10 + (*sql++ - '0');
            } else {
                k = max + 1;
            }
            if (k > max)
                max = k;
            if (k >= 1 && k <= PG_PARAMS_MAX)
                used[k - 1] = true;
            o += sprintf(o, "$%d", k);
        } else if (ch == '+' && sql - 1 > start &&
                   (sql[-2] == ' ' || sql[-2] == '(') &&
                   ((*sql >= 'a' && *sql <= 'z') ||
                    (*sql >= 'A' && *sql <= 'Z'))) {
            /* unary + on a column: nothing to PostgreSQL */
        } else {
            *o++ = ch;
        }
    }
    *o = '\0';
    *n_params = max;
    return out;
}

/* ---- statements ---- */

/* Whether sql is a transaction's control (run with PQexec, unprepared). */
static bool is_control(const char *sql)
{
    return starts(sql, "BEGIN") || starts(sql, "COMMIT") ||
           starts(sql, "ROLLBACK") || starts(sql, "SAVEPOINT") ||
           starts(sql, "RELEASE") || starts(sql, "END");
}

/* Prepares st on the server under a new name and learns its parameters'
 * types: those the SQL uses are inferred there, a number it skips (a
 * first page's form of a paged query) is given as text. */
static err_code server_prepare(db_conn *c, db_stmt *st, err_info *e)
{
    PGresult *res;
    int i, n;

    if (!pg_usable(c)) {
        note_failure(c, NULL);
        return err_set(e, ERR_UNAVAILABLE, NULL, "%s", DB_DOWN_MESSAGE);
    }
    snprintf(st->name, sizeof st->name, "u%u", ++c->n_named);
    for (i = 0; i < st->n_params; i++)
        st->param_types[i] = st->is_used[i] ? 0 : OID_TEXT;
    res = PQprepare(c->pg, st->name, st->pg_sql, st->n_params, st->param_types);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        note_failure(c, res);
        PQclear(res);
        return db_fail(c, e, "prepare");
    }
    PQclear(res);
    res = PQdescribePrepared(c->pg, st->name);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        note_failure(c, res);
        PQclear(res);
        return db_fail(c, e, "prepare");
    }
    n = PQnparams(res);
    for (i = 0; i < n && i < st->n_params; i++)
        st->param_types[i] = PQparamtype(res, i);
    PQclear(res);
    st->generation = c->generation;
    return ERR_OK;
}

err_code pg_prepare(db_conn *c, db_stmt *st, err_info *e)
{
    bool used[PG_PARAMS_MAX] = {false};
    int n;

    if ((st->pg_sql = pg_sql_text(st->sql, &n, used)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (n > PG_PARAMS_MAX)
        return err_set(e, ERR_INTERNAL, NULL,
                       "a statement takes at most %d "
                       "parameters",
                       PG_PARAMS_MAX);
    st->n_params = n;
    memcpy(st->is_used, used, sizeof used);
    st->row = -1;
    st->is_control = is_control(st->pg_sql);
    if (n > 0) {
        st->param_types = calloc((size_t)n, sizeof *st->param_types);
        st->values = calloc((size_t)n, sizeof *st->values);
        st->lengths = calloc((size_t)n, sizeof *st->lengths);
        st->formats = calloc((size_t)n, sizeof *st->formats);
        st->is_owned = calloc((size_t)n, sizeof *st->is_owned);
        if (!st->param_types || !st->values || !st->lengths || !st->formats ||
            !st->is_owned)
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    if (st->is_control)
        return ERR_OK;
    return server_prepare(c, st, e);
}

static void free_blob(db_stmt *st)
{
    free(st->blob);
    st->blob = NULL;
    st->blob_len = 0;
    st->blob_row = st->blob_col = -1;
}

/* Reads what is left of a streamed statement's answer, a row at a time
 * (a cancel could land on the connection's next statement instead); on
 * a snapshot given up (db_snapshot_abandon) nothing: its connection is
 * closed next, which ends the statement on the server. */
static void stream_close(db_stmt *st)
{
    PGresult *res;

    if (!st->is_stream_open)
        return;
    st->is_stream_open = false;
    if (st->c->is_abandoned)
        return;
    while ((res = PQgetResult(st->c->pg)) != NULL)
        PQclear(res);
}

void pg_reset(db_stmt *st)
{
    stream_close(st);
    PQclear(st->res);
    st->res = NULL;
    st->is_run = false;
    st->row = -1;
    st->n_rows = 0;
    free_blob(st);
}

/* Parameter k unbound (a copy of its value freed). */
static void param_clear(db_stmt *st, int k)
{
    if (st->is_owned[k])
        free(st->values[k]);
    st->values[k] = NULL;
    st->is_owned[k] = false;
    st->lengths[k] = 0;
    st->formats[k] = 0;
}

void pg_clear(db_stmt *st)
{
    int i;

    for (i = 0; i < st->n_params; i++)
        param_clear(st, i);
}

void pg_finalize(db_stmt *st)
{
    pg_reset(st);
    if (st->values != NULL)
        pg_clear(st);
    free(st->pg_sql);
    free(st->param_types);
    free(st->values);
    free(st->lengths);
    free(st->formats);
    free(st->is_owned);
}

int pg_bind(db_stmt *st, int i, const void *v, int len, bool is_binary,
            bool is_copy)
{
    int k = i - 1;
    char *p;

    if (k < 0 || k >= st->n_params)
        return 25; /* SQLite's SQLITE_RANGE */
    param_clear(st, k);
    if (v == NULL)
        return DB_OK;
    if (len < 0)
        len = (int)strlen(v);
    /* bytea takes its bytes as they are (binary format); anything else
     * its text. */
    if (is_binary || st->param_types[k] == OID_BYTEA)
        st->formats[k] = 1;
    if (is_copy) {
        if ((p = malloc((size_t)len + 1)) == NULL)
            return 7; /* SQLite's SQLITE_NOMEM */
        memcpy(p, v, (size_t)len);
        p[len] = '\0';
        st->values[k] = p;
        st->is_owned[k] = true;
    } else {
        st->values[k] = (char *)v;
    }
    st->lengths[k] = len;
    return DB_OK;
}

/* The next row of a streamed statement into st->res. */
static int stream_next(db_stmt *st)
{
    db_conn *c = st->c;
    PGresult *res;
    ExecStatusType status;

    PQclear(st->res);
    st->res = NULL;
    free_blob(st);
    st->row = 0;
    st->n_rows = 0;
    if (!st->is_stream_open)
        return DB_DONE;
    if ((res = PQgetResult(c->pg)) == NULL) {
        st->is_stream_open = false;
        return DB_DONE;
    }
    status = PQresultStatus(res);
    if (status == PGRES_SINGLE_TUPLE) {
        st->res = res;
        st->n_rows = 1;
        return DB_ROW;
    }
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
        note_failure(c, res);
    PQclear(res);
    while ((res = PQgetResult(c->pg)) != NULL)
        PQclear(res);
    st->is_stream_open = false;
    return status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK
               ? DB_DONE
               : PG_STEP_ERROR;
}

/* Sends a statement of its own (db_prepare_own: a cursor's, which may
 * read a whole campaign's ledger) to come back a row at a time, so that
 * what it holds does not grow with what it reads; its rows are read to
 * the end (or it is reset) before the connection runs another. */
static int stream_start(db_stmt *st)
{
    db_conn *c = st->c;

    if (!PQsendQueryPrepared(c->pg, st->name, st->n_params,
                             (const char *const *)st->values, st->lengths,
                             st->formats, 0) ||
        !PQsetSingleRowMode(c->pg)) {
        note_failure(c, NULL);
        return PG_STEP_ERROR;
    }
    st->is_stream_open = true;
    return stream_next(st);
}

/* Runs st: its rows, or its changes, into st and c. */
static int run(db_stmt *st)
{
    db_conn *c = st->c;
    ExecStatusType status;
    err_info e;

    st->is_run = true;
    st->row = -1;
    st->n_rows = 0;
    if (st->is_control) {
        err_clear(&e);
        return pg_exec(c, st->pg_sql, &e) == ERR_OK ? DB_DONE : PG_STEP_ERROR;
    }
    if (!pg_usable(c)) {
        note_failure(c, NULL);
        return PG_STEP_ERROR;
    }
    if (st->generation != c->generation) {
        err_clear(&e);
        if (server_prepare(c, st, &e) != ERR_OK)
            return PG_STEP_ERROR;
    }
    if (!st->is_kept)
        return stream_start(st);
    st->res = PQexecPrepared(c->pg, st->name, st->n_params,
                             (const char *const *)st->values, st->lengths,
                             st->formats, 0);
    status = PQresultStatus(st->res);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        note_failure(c, st->res);
        PQclear(st->res);
        st->res = NULL;
        return PG_STEP_ERROR;
    }
    /* As SQLite counts: rows an INSERT, UPDATE or DELETE changed. */
    if (starts(PQcmdStatus(st->res), "INSERT") ||
        starts(PQcmdStatus(st->res), "UPDATE") ||
        starts(PQcmdStatus(st->res), "DELETE")) {
        c->changes = atoi(PQcmdTuples(st->res));
        c->total_changes += c->changes;
    }
    st->n_rows = status == PGRES_TUPLES_OK ? PQntuples(st->res) : 0;
    return DB_ROW;
}

int pg_step(db_stmt *st)
{
    if (!st->is_run && !st->is_kept && !st->is_control)
        return run(st); /* streamed: its first row, or the end */
    if (st->is_run && !st->is_kept && !st->is_control)
        return stream_next(st);
    if (!st->is_run) {
        int rc = run(st);
        if (rc != DB_ROW)
            return rc;
    } else if (st->res == NULL) {
        return st->is_control ? DB_DONE : PG_STEP_ERROR;
    }
    st->row++;
    free_blob(st);
    return st->row < st->n_rows ? DB_ROW : DB_DONE;
}

const char *pg_value(db_stmt *st, int col)
{
    if (st->res == NULL || st->row < 0 || st->row >= st->n_rows || col < 0 ||
        col >= PQnfields(st->res) || PQgetisnull(st->res, st->row, col))
        return NULL;
    return PQgetvalue(st->res, st->row, col);
}

int pg_column_type(db_stmt *st, int col)
{
    if (pg_value(st, col) == NULL)
        return DB_NULL;
    switch (PQftype(st->res, col)) {
    case OID_BOOL:
    case OID_INT2:
    case OID_INT4:
    case OID_INT8:
    case OID_OID: return DB_INTEGER;
    case OID_FLOAT4:
    case OID_FLOAT8:
    case OID_NUMERIC: return DB_FLOAT;
    case OID_BYTEA: return DB_BLOB;
    default: return DB_TEXT;
    }
}

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* bytea's text (hex, "\x...") as its bytes, NUL-terminated. */
static unsigned char *unhex(const char *v, size_t *len)
{
    size_t n = strlen(v), i;
    unsigned char *out, *esc;

    if (n < 2 || v[0] != '\\' || v[1] != 'x') {
        /* the old escape format */
        if ((esc = PQunescapeBytea((const unsigned char *)v, &n)) == NULL)
            return NULL;
        if ((out = malloc(n + 1)) != NULL) {
            memcpy(out, esc, n);
            out[n] = '\0';
            *len = n;
        }
        PQfreemem(esc);
        return out;
    }
    n = (n - 2) / 2;
    if ((out = malloc(n + 1)) == NULL)
        return NULL;
    for (i = 0; i < n; i++)
        out[i] = (unsigned char)(hex_digit(v[2 + 2 * i]) << 4 |
                                 hex_digit(v[3 + 2 * i]));
    out[n] = '\0';
    *len = n;
    return out;
}

const void *pg_column_blob(db_stmt *st, int col, size_t *len)
{
    const char *v = pg_value(st, col);

    *len = 0;
    if (v == NULL)
        return NULL;
    if (st->blob != NULL && st->blob_row == st->row && st->blob_col == col) {
        *len = st->blob_len;
        return st->blob;
    }
    free_blob(st);
    if ((st->blob = unhex(v, &st->blob_len)) == NULL)
        return NULL;
    st->blob_row = st->row;
    st->blob_col = col;
    *len = st->blob_len;
    return st->blob;
}
