/*
 * harness.h: a real umpire server on port 0 over a fresh database in a
 * temporary folder, and a small HTTP/1.1 client to talk to it.
 */
#ifndef UMPIRE_TESTS_HARNESS_H
#define UMPIRE_TESTS_HARNESS_H

#include <stdbool.h>

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

/* A test that reads or edits the SQLite file under the server ends here
 * on PostgreSQL (where the same guarantees are tested through the API). */
#define TS_SQLITE_ONLY()                                                       \
    do {                                                                       \
        if (ts_is_pg())                                                        \
            return;                                                            \
    } while (0)

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

/* The folder of test vectors ($UMPIRE_TEST_VECTORS or tests/vectors). */
const char *ts_vectors_dir(void);
/* Loads a vector file from that folder (aborts the test if missing). */
json_t *ts_load_vector(const char *file);

#endif
