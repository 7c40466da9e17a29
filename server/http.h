/*
 * http.h: the HTTP server: libmicrohttpd daemon, request lifecycle,
 * responses, access log, graceful stop.
 *
 * The anatomy of a request:
 *   1. the access handler's first call makes a request (freed by the
 *      completed callback); upload calls append the body up to the limit;
 *   2. the last call routes it (router.c): 404/405, then authentication,
 *      then the route's handler;
 *   3. a handler answers at once (reads), or hands a job to the database
 *      writer with http_defer_write: the connection is suspended and
 *      resumed once the job's transaction has committed, and the handler's
 *      finish callback writes the response.  A dice result is therefore
 *      never sent before it is durable.
 */
#ifndef UMPIRE_HTTP_H
#define UMPIRE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "db.h"
#include "err.h"
#include "store.h"

typedef struct server_config {
    const char *listen; /* IPv4 or IPv6 address, default 127.0.0.1 */
    int port;           /* 0 picks a free port */
    const char *db_path;
    int threads;            /* HTTP worker threads */
    int connection_timeout; /* seconds idle before a connection is closed */
    int connection_limit;   /* open connections at most */
    size_t body_limit;      /* request body bytes at most */
    const char *access_log; /* "-" stderr, "off", or a file path */
} server_config;

void server_config_default(server_config *cfg);

typedef struct server server;

/* Opens the database and starts serving; *out is new (server_stop). */
err_code server_start(const server_config *cfg, server **out, err_info *e);

/* The port actually bound. */
int server_port(const server *s);

/* Stops accepting, lets in-flight requests finish (up to a few seconds),
 * stops the daemon and closes the database cleanly.  NULL allowed. */
void server_stop(server *s);

/* The database (borrowed). */
db *server_db(server *s);

#define HTTP_MAX_PARAMS 4

typedef struct request request;
typedef void (*finish_fn)(request *r, err_code rc, const err_info *e);

struct request {
    server *srv;
    struct MHD_Connection *conn;
    const char *method; /* borrowed from libmicrohttpd */
    char *path;         /* owned copy of the URL path */
    char *body;         /* owned, NUL-terminated */
    size_t body_len;
    bool is_too_large;
    double started;                /* monotonic seconds */
    char *param_buf;               /* owned copy of path, cut into params */
    char *params[HTTP_MAX_PARAMS]; /* path parameters, in param_buf */
    int n_params;
    bool has_token;
    db_token token; /* the caller's token, when has_token */

    /* The response. */
    int status;
    char *resp_body; /* owned */
    size_t resp_len;
    const char *content_type;
    char location[160];
    char allow[64];
    bool is_ready;

    /* A deferred write. */
    bool is_pending;
    bool is_resumed;
    err_code job_rc;
    err_info job_err;
    db_job_fn job; /* runs with state on the writer */
    finish_fn finish;
    void *state; /* the handler's, freed by state_free */
    void (*state_free)(void *state);
};

/* Responses.  json is stolen (decref'd) by reply_json; text (JSON already
 * serialized, malloc'd) is taken by reply_json_text (NULL means out of
 * memory). */
void reply_json(request *r, int status, json_t *json);
void reply_json_text(request *r, int status, char *text);
void reply_problem(request *r, const err_info *e);
/* A problem with an explicit status and code (router errors). */
void reply_problem_raw(request *r, int status, const char *code,
                       const char *title, const char *detail);

/*
 * Runs run(state) on the database writer and, once its transaction is
 * durable, calls finish(r, rc, e) on an HTTP thread to write the response.
 * r->state must be set; it stays alive until the request is freed.
 */
void http_defer_write(request *r, db_job_fn run, finish_fn finish);

/* The query argument key, or NULL (borrowed). */
const char *http_query(request *r, const char *key);

/* Parses r->body as a JSON object; on failure replies and returns NULL. */
json_t *http_body_object(request *r);

#endif
