/*
 * harness.h: a real umpire server on port 0 over a fresh database in a
 * temporary folder, and a small HTTP/1.1 client to talk to it.
 */
#ifndef UMPIRE_TESTS_HARNESS_H
#define UMPIRE_TESTS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "http.h"

typedef struct test_server {
    http_server *srv;
    int port;
    char dir[64]; /* the temporary folder */
    char db_path[512];
    char schema[48]; /* PostgreSQL: the server's schema, or "" */
} test_server;

/*
 * The store the tests run on: SQLite (a file in the server's folder) by
 * default; with UMPIRE_TEST_PG set to a PostgreSQL URL, a schema of its
 * own in that database for each server, dropped when it stops.
 */
bool ts_is_pg(void);
/* On PostgreSQL: a fresh schema for ts, and in ts->db_path the URL that
 * puts its server there (ts_stop drops it). */
void ts_pg_schema(test_server *ts);

/* A test about SQLite itself (its files, its connections' counters)
 * ends here on PostgreSQL; say why where it is used. */
#define TS_SQLITE_ONLY()                                                       \
    do {                                                                       \
        if (ts_is_pg())                                                        \
            return;                                                            \
    } while (0)

/* The units the server keeps for campaign_id's next combats
 * (db/unit_cache.h), when they are of the campaign's version now: each
 * checked byte for byte against the store's row, read without them, and
 * so are the sides and the campaign's row kept with them.  How many units
 * were checked; -1 on PostgreSQL, which keeps none. */
int ts_check_kept_units(test_server *ts, const char *campaign_id);

/* Starts a server (port 0, access log off); aborts the test on failure. */
test_server *ts_start(void);
/* Like ts_start with the body limit changed. */
test_server *ts_start_with(size_t body_limit);
/* Like ts_start with these allowed CORS origins (cors_config_add's
 * syntax); aborts the test if they do not parse. */
test_server *ts_start_cors(const char *origins);
/* Like ts_start with this Discord application (discord_verify.h) and
 * the poster of channel posts set as posts says (notify.h; NULL: the
 * defaults, posting to Discord itself: give no campaign a webhook). */
test_server *ts_start_discord(const discord_config *discord,
                              const notify_config *posts);
/* Starts a server with cfg (http_config_default's, changed by the
 * caller), on a database of its own (cfg->db_path set to it, on
 * PostgreSQL a schema of its own); aborts the test on failure. */
test_server *ts_start_config(http_config *cfg);
/* Stops it gracefully and removes its folder. */
void ts_stop(test_server *ts);

typedef struct http_resp {
    int status;
    char *body;   /* owned, NUL-terminated */
    json_t *json; /* the parsed body, or NULL */
    char content_type[128];
    char location[256];
    char allow[128];
    char *head; /* owned: the status line and the headers, CRLF-separated */
} http_resp;

/*
 * Sends method path with an optional bearer token and body (JSON text, or
 * NULL for none) and reads the whole response.  Returns 0, or -1 when the
 * server could not be reached.
 */
int ts_request(test_server *ts, const char *method, const char *path,
               const char *token, const char *body, http_resp *out);
/* Sends raw bytes (a whole request) and reads the response. */
int ts_raw(test_server *ts, const char *raw, size_t len, http_resp *out);
void http_resp_cleanup(http_resp *r);

/* How many times header name (any letter case) is in r; the first one's
 * value goes to out (n bytes, "" when there is none). */
int ts_header(const http_resp *r, const char *name, char *out, size_t n);

/*
 * Sends a request, asserts its status, and returns the parsed JSON body
 * (new reference; NULL if the body is empty).  body may be printf-style.
 */
json_t *ts_call(test_server *ts, int expect_status, const char *method,
                const char *path, const char *token, const char *body_fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* A campaign with its tokens, made through the API. */
typedef struct test_campaign {
    char id[64];
    char umpire[128];
    char player[4][128]; /* per side, in order */
    char side_id[4][64];
    int n_sides;
} test_campaign;

/* Creates a campaign with the given side names (NULL-terminated) and
 * optional SCRUD options JSON (or NULL). */
void ts_campaign(test_server *ts, test_campaign *c, const char *options_json,
                 const char *const sides[]);

/* Creates a unit; returns its id in id_out (64 bytes). */
void ts_unit(test_server *ts, const test_campaign *c, const char *name,
             const char *side, int quality, int faces, char *id_out);

/*
 * SQL on a test server's own database, on either store, through a
 * connection of the test's own (each call opens and closes one).  The
 * SQL is SQLite's, written once for both: parameters ? and ?N (numbered as
 * SQLite numbers them), "natural" quoted, integer columns compared with
 * integers, no rowid but on the tables that have one on PostgreSQL, no
 * INSERT OR REPLACE (ON CONFLICT ... DO UPDATE), no json_set.  On
 * PostgreSQL the parameters become $N and the statement runs through
 * libpq on ts->db_path, which names the server's schema.
 *
 * The parameters follow the SQL, each made by TS_TEXT, TS_INT, TS_BLOB or
 * TS_NULL; their number must be the statement's.  Failures abort the
 * test, naming the SQL.
 */
typedef struct ts_arg {
    int kind; /* TS_ARG_... */
    const char *text;
    long long i;
    const void *blob;
    size_t n;
} ts_arg;

enum { TS_ARG_END, TS_ARG_TEXT, TS_ARG_INT, TS_ARG_BLOB, TS_ARG_NULL };

#define TS_TEXT(s)      ((ts_arg){.kind = TS_ARG_TEXT, .text = (s)})
#define TS_INT(v)       ((ts_arg){.kind = TS_ARG_INT, .i = (long long)(v)})
#define TS_BLOB(p, len) ((ts_arg){.kind = TS_ARG_BLOB, .blob = (p), .n = (len)})
#define TS_NULL         ((ts_arg){.kind = TS_ARG_NULL})
/* The parameters' list: one element before them, which keeps the comma
 * that ## drops when there are none, and one after, which ends it. */
#define TS_END_ ((ts_arg){.kind = TS_ARG_END})

/* A row of ts_sql_each: its column names and values (n of each), a value
 * as its bytes with a NUL after them (bytea and blobs as their bytes),
 * NULL for NULL. */
typedef void (*ts_sql_row_fn)(void *ctx, int n, const char *const *names,
                              const char *const *values);

/* Runs the statement; the rows it changed. */
#define ts_sql_exec(ts, sql, ...)                                              \
    ts_sql_exec_a(ts, sql, (const ts_arg[]){TS_END_, ##__VA_ARGS__, TS_END_})
/* The first column of the first row as an integer; -1 when there is no row
 * or it is NULL. */
#define ts_sql_int(ts, sql, ...)                                               \
    ts_sql_int_a(ts, sql, (const ts_arg[]){TS_END_, ##__VA_ARGS__, TS_END_})
/* The same as text into out (n bytes), "" when there is no row or it is
 * NULL; whether there was a row. */
#define ts_sql_text(ts, out, n, sql, ...)                                      \
    ts_sql_text_a(ts, out, n, sql,                                             \
                  (const ts_arg[]){TS_END_, ##__VA_ARGS__, TS_END_})
/* The same as a document (a report: text, or packed as db_doc_pack packs
 * it), unpacked into a malloc'd text; NULL when there is no row or it is
 * NULL. */
#define ts_sql_doc(ts, sql, ...)                                               \
    ts_sql_doc_a(ts, sql, (const ts_arg[]){TS_END_, ##__VA_ARGS__, TS_END_})
/* The same as a packed roll log (db_rolls_text), as db_rolls_unpack
 * reads it. */
#define ts_sql_rolls(ts, sql, ...)                                             \
    ts_sql_rolls_a(ts, sql, (const ts_arg[]){TS_END_, ##__VA_ARGS__, TS_END_})
/* Calls each(ctx, ...) for every row; the number of rows. */
#define ts_sql_each(ts, each, ctx, sql, ...)                                   \
    ts_sql_each_a(ts, each, ctx, sql,                                          \
                  (const ts_arg[]){TS_END_, ##__VA_ARGS__, TS_END_})

/* What the macros call: args as they make it. */
int ts_sql_exec_a(test_server *ts, const char *sql, const ts_arg *args);
long long ts_sql_int_a(test_server *ts, const char *sql, const ts_arg *args);
bool ts_sql_text_a(test_server *ts, char *out, size_t n, const char *sql,
                   const ts_arg *args);
char *ts_sql_doc_a(test_server *ts, const char *sql, const ts_arg *args);
char *ts_sql_rolls_a(test_server *ts, const char *sql, const ts_arg *args);
int ts_sql_each_a(test_server *ts, ts_sql_row_fn each, void *ctx,
                  const char *sql, const ts_arg *args);
/* The names of the database's tables (at most max, 64 bytes each); how
 * many. */
int ts_sql_tables(test_server *ts, char (*names)[64], int max);

/* The folder of test vectors ($UMPIRE_TEST_VECTORS or tests/vectors). */
const char *ts_vectors_dir(void);
/* Loads a vector file from that folder (aborts the test if missing). */
json_t *ts_load_vector(const char *file);

#endif
