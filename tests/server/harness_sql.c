/*
 * harness_sql.c: SQL on a test server's own database, on SQLite or
 * PostgreSQL alike; see harness.h.
 */
#include "harness.h"

#include "db_conn.h"
#include "db_sql.h"

#include <check.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Type oids libpq does not name (pg_type.h). */
enum { OID_BYTEA = 17, OID_TEXT = 25 };

/* The most parameters a statement takes here. */
#define SQL_PARAMS_MAX 16

/* A value read: its bytes with a NUL after them (NULL for NULL), and
 * their number. */
typedef struct sql_cell {
    char *p;
    size_t n;
} sql_cell;

/* What a statement gave: its columns' names, its rows' cells row after
 * row, and the rows it changed; or, when it failed, why. */
typedef struct sql_result {
    int n_rows, n_cols, changes;
    char **names;
    sql_cell *cells;
    char error[512];
} sql_result;

static void result_free(sql_result *r)
{
    int i;

    for (i = 0; r->names && i < r->n_cols; i++)
        free(r->names[i]);
    for (i = 0; i < r->n_rows * r->n_cols; i++)
        free(r->cells[i].p);
    free(r->names);
    free(r->cells);
    r->names = NULL;
    r->cells = NULL;
    r->n_rows = 0;
}

/* Sets cell to a copy of the n bytes at p (NULL: SQL's NULL). */
static void cell_set(sql_cell *cell, const void *p, size_t n)
{
    cell->p = NULL;
    cell->n = 0;
    if (p == NULL)
        return;
    cell->p = malloc(n + 1);
    ck_assert_ptr_nonnull(cell->p);
    memcpy(cell->p, p, n);
    cell->p[n] = '\0';
    cell->n = n;
}

/* Makes room for r's columns' names. */
static void result_names(sql_result *r, int n_cols)
{
    r->n_cols = n_cols;
    r->names = calloc((size_t)n_cols + 1, sizeof *r->names);
    ck_assert_ptr_nonnull(r->names);
}

/* Makes room for one more row of r; its cells. */
static sql_cell *result_row(sql_result *r)
{
    size_t n = (size_t)(r->n_rows + 1) * (size_t)r->n_cols;
    sql_cell *cells = realloc(r->cells, (n + 1) * sizeof *cells);

    ck_assert_ptr_nonnull(cells);
    r->cells = cells;
    return cells + (size_t)r->n_rows++ * (size_t)r->n_cols;
}

/* Binds args (n of them) to st's parameters in order. */
static int lite_bind(sqlite3_stmt *st, const ts_arg *args, int n)
{
    int i, rc = SQLITE_OK;

    for (i = 0; rc == SQLITE_OK && i < n; i++) {
        const ts_arg *a = &args[i];
        if (a->kind == TS_ARG_TEXT)
            rc = sqlite3_bind_text(st, i + 1, a->text, -1, SQLITE_TRANSIENT);
        else if (a->kind == TS_ARG_INT)
            rc = sqlite3_bind_int64(st, i + 1, a->i);
        else if (a->kind == TS_ARG_BLOB)
            rc = sqlite3_bind_blob(st, i + 1, a->blob, (int)a->n,
                                   SQLITE_TRANSIENT);
        else
            rc = sqlite3_bind_null(st, i + 1);
    }
    return rc;
}

/* Steps st to its end, its rows into out. */
static int lite_rows(sqlite3_stmt *st, sql_result *out)
{
    int rc, k;

    result_names(out, sqlite3_column_count(st));
    for (k = 0; k < out->n_cols; k++)
        out->names[k] = strdup(sqlite3_column_name(st, k));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sql_cell *row = result_row(out);
        for (k = 0; k < out->n_cols; k++) {
            int type = sqlite3_column_type(st, k);
            const void *p = type == SQLITE_BLOB
                                ? sqlite3_column_blob(st, k)
                                : (const void *)sqlite3_column_text(st, k);
            cell_set(&row[k], type == SQLITE_NULL ? NULL : p,
                     (size_t)sqlite3_column_bytes(st, k));
        }
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Runs sql with its n parameters on the SQLite file. */
static void lite_run(const test_server *ts, const char *sql, const ts_arg *args,
                     int n, sql_result *out)
{
    sqlite3 *sq = NULL;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_open_v2(ts->db_path, &sq, SQLITE_OPEN_READWRITE, NULL);

    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(sq, 5000);
        rc = sqlite3_prepare_v2(sq, sql, -1, &st, NULL);
    }
    if (rc == SQLITE_OK && sqlite3_bind_parameter_count(st) != n)
        snprintf(out->error, sizeof out->error, "%d parameters given for %d", n,
                 sqlite3_bind_parameter_count(st));
    else if (rc == SQLITE_OK && (rc = lite_bind(st, args, n)) == SQLITE_OK &&
             (rc = lite_rows(st, out)) == SQLITE_OK)
        out->changes = sqlite3_changes(sq);
    if (rc != SQLITE_OK && out->error[0] == '\0')
        snprintf(out->error, sizeof out->error, "%s", sqlite3_errmsg(sq));
    sqlite3_finalize(st);
    sqlite3_close(sq);
}

/* The rows of res into out: bytea as its bytes, the rest as its text. */
static void pg_rows(PGresult *res, sql_result *out)
{
    int i, k;

    result_names(out, PQnfields(res));
    for (k = 0; k < out->n_cols; k++)
        out->names[k] = strdup(PQfname(res, k));
    for (i = 0; i < PQntuples(res); i++) {
        sql_cell *row = result_row(out);
        for (k = 0; k < out->n_cols; k++) {
            const char *v = PQgetvalue(res, i, k);
            size_t len = 0;
            unsigned char *b;
            if (PQgetisnull(res, i, k)) {
                cell_set(&row[k], NULL, 0);
            } else if (PQftype(res, k) == OID_BYTEA) {
                b = PQunescapeBytea((const unsigned char *)v, &len);
                ck_assert_ptr_nonnull(b);
                cell_set(&row[k], b, len);
                PQfreemem(b);
            } else {
                cell_set(&row[k], v, (size_t)PQgetlength(res, i, k));
            }
        }
    }
    out->changes = atoi(PQcmdTuples(res));
}

/* Runs sql with its n parameters on the PostgreSQL schema: texts and
 * integers sent as text, their types inferred there, blobs as bytea. */
static void pg_run_sql(const test_server *ts, const char *sql,
                       const ts_arg *args, int n, sql_result *out)
{
    bool used[PG_PARAMS_MAX] = {false};
    Oid types[SQL_PARAMS_MAX];
    const char *values[SQL_PARAMS_MAX];
    int lengths[SQL_PARAMS_MAX], formats[SQL_PARAMS_MAX], i, n_params;
    char ints[SQL_PARAMS_MAX][24];
    char *pg_sql = pg_sql_text(sql, &n_params, used); /* as the store's */
    PGconn *c;
    PGresult *res;

    ck_assert_ptr_nonnull(pg_sql);
    if (n_params != n || n > SQL_PARAMS_MAX) {
        snprintf(out->error, sizeof out->error, "%d parameters given for %d", n,
                 n_params);
        free(pg_sql);
        return;
    }
    for (i = 0; i < n; i++) {
        types[i] = used[i] ? 0 : OID_TEXT;
        values[i] = args[i].kind == TS_ARG_TEXT ? args[i].text : NULL;
        lengths[i] = formats[i] = 0;
        if (args[i].kind == TS_ARG_INT) {
            snprintf(ints[i], sizeof ints[i], "%lld", args[i].i);
            values[i] = ints[i];
        } else if (args[i].kind == TS_ARG_BLOB) {
            types[i] = OID_BYTEA;
            values[i] = args[i].blob;
            lengths[i] = (int)args[i].n;
            formats[i] = 1;
        }
    }
    c = PQconnectdb(ts->db_path);
    res = PQstatus(c) == CONNECTION_OK
              ? PQexecParams(c, pg_sql, n, types, values, lengths, formats, 0)
              : NULL;
    if (PQresultStatus(res) == PGRES_COMMAND_OK ||
        PQresultStatus(res) == PGRES_TUPLES_OK)
        pg_rows(res, out);
    else
        snprintf(out->error, sizeof out->error, "%s",
                 res ? PQresultErrorMessage(res) : PQerrorMessage(c));
    PQclear(res);
    PQfinish(c);
    free(pg_sql);
}

/* Runs sql with args (as the macros of harness.h list them) on ts's
 * store; aborts the test when it fails. */
static void sql_run(test_server *ts, const char *sql, const ts_arg *args,
                    sql_result *out)
{
    int n = 0;

    memset(out, 0, sizeof *out);
    while (args[n + 1].kind != TS_ARG_END)
        n++;
    if (ts->schema[0] != '\0')
        pg_run_sql(ts, sql, args + 1, n, out);
    else
        lite_run(ts, sql, args + 1, n, out);
    if (out->error[0] != '\0') {
        result_free(out);
        ck_abort_msg("%s: %s", sql, out->error);
    }
}

/* The first value of r, or NULL. */
static const sql_cell *first_cell(const sql_result *r)
{
    return r->n_rows > 0 && r->n_cols > 0 && r->cells[0].p ? &r->cells[0]
                                                           : NULL;
}

int ts_sql_exec_a(test_server *ts, const char *sql, const ts_arg *args)
{
    sql_result r;
    int n;

    sql_run(ts, sql, args, &r);
    n = r.changes;
    result_free(&r);
    return n;
}

long long ts_sql_int_a(test_server *ts, const char *sql, const ts_arg *args)
{
    sql_result r;
    long long n;

    sql_run(ts, sql, args, &r);
    n = first_cell(&r) ? strtoll(first_cell(&r)->p, NULL, 10) : -1;
    result_free(&r);
    return n;
}

bool ts_sql_text_a(test_server *ts, char *out, size_t n, const char *sql,
                   const ts_arg *args)
{
    sql_result r;
    bool is_row;

    sql_run(ts, sql, args, &r);
    is_row = r.n_rows > 0;
    snprintf(out, n, "%s", first_cell(&r) ? first_cell(&r)->p : "");
    result_free(&r);
    return is_row;
}

/* The first column of the first row of sql, a stored value, read by read
 * (db_doc_text, db_rolls_text): new, or NULL for no row. */
static char *first_value(test_server *ts, const char *sql, const ts_arg *args,
                         char *(*read)(const void *value, size_t len))
{
    sql_result r;
    char *text;

    sql_run(ts, sql, args, &r);
    text = first_cell(&r) ? read(first_cell(&r)->p, first_cell(&r)->n) : NULL;
    result_free(&r);
    return text;
}

char *ts_sql_doc_a(test_server *ts, const char *sql, const ts_arg *args)
{
    return first_value(ts, sql, args, db_doc_text);
}

char *ts_sql_rolls_a(test_server *ts, const char *sql, const ts_arg *args)
{
    return first_value(ts, sql, args, db_rolls_text);
}

int ts_sql_each_a(test_server *ts, ts_sql_row_fn each, void *ctx,
                  const char *sql, const ts_arg *args)
{
    sql_result r;
    const char **values;
    int i, k, n;

    sql_run(ts, sql, args, &r);
    values = calloc((size_t)r.n_cols + 1, sizeof *values);
    ck_assert_ptr_nonnull(values);
    for (i = 0; i < r.n_rows; i++) {
        for (k = 0; k < r.n_cols; k++)
            values[k] = r.cells[i * r.n_cols + k].p;
        each(ctx, r.n_cols, (const char *const *)r.names, values);
    }
    n = r.n_rows;
    free(values);
    result_free(&r);
    return n;
}

/* Adds a table's name to the list ctx. */
typedef struct table_list {
    char (*names)[64];
    int n, max;
} table_list;

static void add_table(void *ctx, int n, const char *const *names,
                      const char *const *values)
{
    table_list *l = ctx;

    (void)names;
    if (n > 0 && values[0] && l->n < l->max)
        snprintf(l->names[l->n++], 64, "%s", values[0]);
}

int ts_sql_tables(test_server *ts, char (*names)[64], int max)
{
    table_list l = {names, 0, max};

    if (ts->schema[0] != '\0')
        ts_sql_each(ts, add_table, &l,
                    "SELECT table_name FROM information_schema.tables WHERE "
                    "table_schema = current_schema() AND table_type = "
                    "'BASE TABLE' ORDER BY table_name");
    else
        ts_sql_each(ts, add_table, &l,
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "ORDER BY name");
    return l.n;
}
