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

#include "cors.h"
#include "db.h"
#include "discord_verify.h"
#include "err.h"
#include "notify.h"

typedef struct http_config {
    const char *listen; /* IPv4 or IPv6 address, default 127.0.0.1 */
    int port;           /* 0 picks a free port */
    const char *db_path;
    int threads;            /* HTTP worker threads */
    int connection_timeout; /* seconds idle before a connection is closed */
    int connection_limit;   /* open connections at most */
    size_t body_limit;      /* request body bytes at most */
    const char *access_log; /* "-" stderr, "off", or a file path */
    cors_config cors;       /* origins allowed to call the API (cors.h) */
    discord_config discord; /* the Discord application (discord_verify.h);
                               its endpoint is off without it */
    notify_config notify;   /* the poster of channel posts (notify.h) */
} http_config;

void http_config_default(http_config *cfg);

typedef struct http_server http_server;

/* Opens the database, starts the poster of channel posts on it and
 * starts serving; *out is new (http_stop). */
err_code http_start(const http_config *cfg, http_server **out, err_info *e);

/* The port actually bound. */
int http_port(const http_server *s);

/* Stops accepting, lets in-flight requests finish (up to a few seconds),
 * stops the daemon and the poster, and closes the database cleanly.  NULL
 * allowed. */
void http_stop(http_server *s);

/* The database (borrowed). */
db *http_db(http_server *s);

/* The origins allowed to call the API from a browser (borrowed). */
const cors_config *http_cors(const http_server *s);

/* The Discord application's settings (borrowed). */
const discord_config *http_discord(const http_server *s);

#define HTTP_MAX_PARAMS 4

/* What a response's JSON body is, when it can be rendered as a report
 * (Markdown or HTML, chosen by Accept or ?format=; see report.h). */
typedef enum http_render {
    HTTP_RENDER_NONE,
    HTTP_RENDER_COMBAT,  /* a combat report with its rolls */
    HTTP_RENDER_BATTLE,  /* an interactive battle's state */
    HTTP_RENDER_CAMPAIGN /* a campaign report */
} http_render;

/* "combat", "battle", "campaign" or "" for none, and back. */
const char *http_render_name(http_render k);
http_render http_render_kind(const char *name);

typedef struct http_request http_request;
typedef void (*http_finish_fn)(http_request *r, err_code rc, const err_info *e);

struct http_request {
    http_server *srv;
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
    const void *route_arg; /* the route's arg (router.h), or NULL */
    bool has_token;
    db_token token; /* the caller's token, when has_token */
    int format;     /* the report_format asked for (Accept, ?format=) */

    /* Idempotency-Key (idem.h). */
    bool has_idem;          /* the request carries a new key, claimed */
    bool is_claimed;        /* its key is in the server's in-flight set */
    db_idem idem;           /* scope, key and fingerprint */
    bool is_replied_in_job; /* the response was made in the writer job */
    bool is_replayed;       /* the response is a stored one */

    /* The response. */
    int status;
    char *resp_body; /* owned */
    size_t resp_len;
    const char *content_type;
    const unsigned char *resp_static; /* a static body, instead of
                                         resp_body (http_reply_static) */
    http_render render;               /* what the JSON body is, for ?format= */
    char location[160];
    char allow[64];
    const char *etag;          /* static, quoted, or NULL for none */
    const char *cache_control; /* static; NULL means no-store */
    bool is_preflight;         /* a CORS preflight from an allowed origin */
    bool is_ready;

    /* A deferred write. */
    bool is_pending;
    bool is_resumed;
    err_code job_rc;
    err_info job_err;
    db_job_fn job; /* runs with state on the writer */
    http_finish_fn finish;
    void *state; /* the handler's, freed by state_free */
    void (*state_free)(void *state);

    /* A front door's last word on the response, just before it is sent
     * (the first one or a replayed one): the Discord endpoint turns the
     * answers of the handlers it calls into its messages.  NULL: none. */
    void (*reshape)(http_request *r);
};

/* Responses.  json is stolen (decref'd) by http_reply_json; text (JSON
 * serialized, malloc'd) is taken by reply_json_text (NULL means out of
 * memory). */
void http_reply_json(http_request *r, int status, json_t *json);
void http_reply_json_text(http_request *r, int status, char *text);
/* 204 No Content. */
void http_reply_no_content(http_request *r);
/* A body that outlives every request (static data, borrowed); NULL data
 * and 0 len for none (304).  type may be NULL. */
void http_reply_static(http_request *r, int status, const void *data,
                       size_t len, const char *type);
void http_reply_problem(http_request *r, const err_info *e);
/* e's problem, or a generic one for rc when e holds none (a job's
 * failure). */
void http_reply_err(http_request *r, err_code rc, const err_info *e);
/* A problem with an explicit status and code (router errors). */
void http_reply_problem_raw(http_request *r, int status, const char *code,
                            const char *title, const char *detail);

/*
 * Runs run(state) on the database writer and, once its transaction is
 * durable, calls finish(r, rc, e) on an HTTP thread to write the response.
 * r->state must be set; it stays alive until the request is freed.
 */
void http_defer_write(http_request *r, db_job_fn run, http_finish_fn finish);

/* Claims r->idem's key for r (idem.c): false when another request in
 * flight holds it.  The claim ends when r is freed. */
bool http_claim_key(http_request *r);

/* The query argument key, or NULL (borrowed). */
const char *http_query(http_request *r, const char *key);
/* The request header name (any letter case), or NULL (borrowed). */
const char *http_header(http_request *r, const char *name);

/* Parses r->body as a JSON object; on failure replies and returns NULL. */
json_t *http_body_object(http_request *r);

#endif
