/*
 * http.h: the HTTP server: libmicrohttpd daemon, request lifecycle,
 * responses, access log, graceful stop.
 *
 * The anatomy of a request:
 *   1. the access handler's first call makes a request (freed by the
 *      completed callback) and refuses a Content-Length over the limit
 *      with 413 at once; upload calls append the body, and refuse it (413,
 *      connection closed) as soon as it passes the limit;
 *   2. the last call routes it (router.c): 404/405, then authentication,
 *      then the route's handler;
 *   3. a handler answers at once (reads), or hands a job to the database
 *      writer with http_defer_write: the connection is suspended and
 *      resumed once the job's transaction has committed, and the handler's
 *      finish callback writes the response.  A dice result is therefore
 *      never sent before it is durable.
 * Meanwhile http_conn.c keeps slow and idle connections from holding every
 * slot (the request deadline, idle keep-alive connections closed).  A
 * handler may instead answer with a stream that stays open (the live
 * events: http_reply_stream, http_stream.h), written by another thread
 * while its connection holds no worker; it is exempt from those deadlines.
 */
#ifndef UMPIRE_HTTP_H
#define UMPIRE_HTTP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cors.h"
#include "db.h"
#include "discord_verify.h"
#include "err.h"
#include "notify.h"

/*
 * Each connection's memory pool in libmicrohttpd (its request line and
 * headers, its read buffer, the answer's headers), zeroed by it for every
 * request: about 1.5 instructions a byte (about 49k a request at its
 * default of 32 KB, 24k at this).  A request's headers take up to about
 * 14 KB of it; more are refused by libmicrohttpd with 431.  The body is
 * not kept there (it is appended in the upload calls, up to body_limit).
 * bench/bare.c uses the same.
 */
#define HTTP_CONNECTION_MEMORY (16 * 1024)

/* The defaults of http_config_default that bench/bare.c configures its
 * daemon with too, so that the two are alike: connections open at most,
 * the seconds of silence before one is closed, and connections from one
 * address at most. */
#define HTTP_DEFAULT_CONNECTION_LIMIT   1024
#define HTTP_DEFAULT_CONNECTION_TIMEOUT 30
#define HTTP_DEFAULT_PER_IP_LIMIT       256

typedef struct http_config {
    const char *listen; /* IPv4 or IPv6 address, default 127.0.0.1 */
    int port;           /* 0 picks a free port */
    const char *db_path;
    int threads;            /* HTTP worker threads */
    int connection_timeout; /* seconds without a byte before a connection is
                               closed (libmicrohttpd's; every byte restarts
                               it) */
    int connection_limit;   /* open connections at most */
    size_t body_limit;      /* request body bytes at most */
    const char *access_log; /* "-" stderr, "off", or a file path */
    cors_config cors;       /* origins allowed to call the API (cors.h) */
    discord_config discord; /* the Discord application (discord_verify.h);
                               its endpoint is off without it */
    notify_config notify;   /* the poster of channel posts (notify.h) */
    /* Slow and idle clients (http_conn.h). */
    int request_timeout;         /* seconds for a whole request (line, headers,
                                    body) to arrive, however it trickles; 0 none */
    int keepalive_timeout;       /* seconds a kept-alive connection may wait for
                                    its next request; 0 none */
    int per_ip_connection_limit; /* open connections from one address at
                                    most; 0 none */
    int idle_close_percent;      /* at this share of connection_limit open, idle
                                    kept-alive connections are closed, longest
                                    idle first; 0 never */
    int stop_timeout; /* seconds http_stop waits for requests in flight */
    /* Live event streams (resources/events.c, http_stream.h). */
    int events_limit;        /* streams open at most, service-wide */
    int events_keepalive_ms; /* a keep-alive comment after this long
                                without an event */
    /* Long reads (http_heavy.h): the threads that run them and how many
     * may wait; the same for the odds, apart, so that neither waits for
     * the other. */
    int read_threads;
    int read_queue;
    int odds_threads;
    int odds_queue;
    /* A streamed answer (an export, a shared link, live events) whose
     * client takes less than 64 KiB in this many seconds while half its
     * buffer or more waits is cut (http_stream.h): its snapshot and place
     * given back. */
    int stream_stall_timeout;
    /* A ledger's export or a shared link's ledger still streaming after
     * this many seconds is cut the same way, however fast its client
     * reads, so that no snapshot is held longer; 0: never. */
    int export_time_limit;
} http_config;

void http_config_default(http_config *cfg);

typedef struct http_server http_server;

/* Opens the database, starts the poster of channel posts on it and
 * starts serving; *out is new (http_stop). */
err_code http_start(const http_config *cfg, http_server **out, err_info *e);

/* The port actually bound. */
int http_port(const http_server *s);

/*
 * Stops accepting and lets the requests in flight finish, for
 * cfg.stop_timeout seconds at most, then stops the daemon and the poster of
 * channel posts and closes the database cleanly; true (s is freed).  When a
 * database write is still running at the bound, it logs how many and returns
 * false without waiting for them: s is left running, not freed (its threads may
 * still touch it); the process may exit (a write not committed by then rolls
 * back, so a combat lands whole or not at all) or call http_stop again.
 * NULL allowed (true).
 */
bool http_stop(http_server *s);

/* Whether the server is stopping (new requests get 503). */
bool http_is_stopping(const http_server *s);

/* What the server is doing (http_stats_read). */
typedef struct http_stats {
    int n_connections;           /* open now */
    int n_idle;                  /* of them, kept alive between requests */
    int n_in_flight;             /* requests begun and not completed */
    int n_pending;               /* of them, waiting for a database write */
    int n_streams;               /* event streams open (http_stream.h) */
    unsigned long n_cut;         /* connections closed past their request
                                    deadline (request_timeout) */
    unsigned long n_idle_closed; /* closed after keepalive_timeout idle */
    unsigned long n_given_up;    /* idle ones closed near the limit */
} http_stats;

void http_stats_read(http_server *s, http_stats *out);

/* The database (borrowed). */
db *http_db(http_server *s);

/* The origins allowed to call the API from a browser (borrowed). */
const cors_config *http_cors(const http_server *s);

/* The Discord application's settings (borrowed). */
const discord_config *http_discord(const http_server *s);

/* Streamed responses (http_stream.h): the server's pump (borrowed). */
typedef struct http_streams http_streams;
typedef struct http_stream http_stream;
http_streams *http_event_streams(http_server *s);
/* The streamed ledger exports' (resources/ledgers.c). */
http_streams *http_export_streams(http_server *s);

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

/* Where a deferred write stands (http_request.job_state). */
typedef enum http_job_state {
    HTTP_JOB_NONE,    /* no write */
    HTTP_JOB_RUNNING, /* queued or running on the writer */
    HTTP_JOB_DONE,    /* its outcome is durable; the connection resumed */
    HTTP_JOB_ORPHANED /* the connection went first: the writer frees it */
} http_job_state;

typedef struct http_request http_request;
typedef void (*http_finish_fn)(http_request *r, err_code rc, const err_info *e);

struct http_request {
    http_server *srv;
    struct MHD_Connection *conn;
    const char *method; /* borrowed from libmicrohttpd */
    char *path;         /* owned copy of the URL path */
    char *body;         /* owned, NUL-terminated */
    size_t body_len;
    double started;                /* monotonic seconds */
    char *param_buf;               /* owned copy of path, cut into params */
    char *params[HTTP_MAX_PARAMS]; /* path parameters, in param_buf */
    int n_params;
    const void *route_arg; /* the route's arg (router.h), or NULL */
    bool has_token;
    db_token token; /* the caller's token, when has_token */
    int format;     /* the report_format asked for (Accept, ?format=) */

    /* Idempotency-Key (idem.h). */
    bool has_idem; /* the request carries a new key, claimed */
    /* The campaign its write job changes, when its path does not name it
     * (a Discord interaction's linked campaign); "" otherwise. */
    char job_campaign[DB_ID_MAX];
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
    int retry_after;           /* seconds for Retry-After; 0: none */
    http_stream *stream;       /* a streamed body (http_reply_stream): the
                                  request's until queued, then the response's */
    bool is_stream;            /* the response is a stream */
    bool is_ready;
    bool is_queued; /* handed to libmicrohttpd (or written, http_reply.h) */

    /* A deferred write.  is_pending: counted in the server's writes in
     * flight, until the request is answered or gone, whichever is first
     * (exactly once).  job_state: an http_job_state, handed between the
     * writer and libmicrohttpd's threads. */
    bool is_pending;
    atomic_int job_state;
    err_code job_rc;
    err_info job_err;
    db_job_fn job;                 /* runs with state on the writer */
    void (*read)(http_request *r); /* a long read's handler (http_heavy.h),
                                      run off the request workers */
    http_finish_fn finish;
    /* Called with state once the deferred write's batch has committed or
     * rolled back, on the writer's thread, before the connection is
     * resumed for finish; or once the write will never run (the writer
     * stopped, the service stopping), on the thread that found it so.
     * (An Idempotency-Key's finish runs inside the job, before it.)
     * NULL: none.  What the handler holds until its write is in the store
     * or never will be is let go of there, not on an HTTP thread later. */
    void (*committed)(void *state);
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
/* 200 with a body streamed from s (http_stream.h; taken, even when the
 * response cannot be made) of the static type; sent with
 * X-Accel-Buffering: no, so that a reverse proxy passes it on as it
 * comes. */
void http_reply_stream(http_request *r, http_stream *s, const char *type);
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

/*
 * Runs handler(r) on the threads of long reads (http_heavy.h) instead of
 * this worker: r's connection is suspended, and resumed to send what the
 * handler answered.  When their queue is full, r is answered 503 busy at
 * once.  Counted with the writes in flight, so http_stop waits for it.
 */
void http_defer_read(http_request *r, void (*handler)(http_request *r));
/* The same on the threads of the odds (ROUTER_ODDS), apart from the long
 * reads: a public route's odds asked by many never hold a campaign's
 * reads back, nor those the odds. */
void http_defer_odds(http_request *r, void (*handler)(http_request *r));

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
