/*
 * http.c: the libmicrohttpd daemon and the request lifecycle; see http.h.
 * Responses are made in http_reply.c; connections are tracked, and slow or
 * idle ones closed, in http_conn.c; the work a request hands to the writer
 * or a thread of long reads, and its return, is http_job.c's.
 *
 * Threads: libmicrohttpd's pool runs access handlers; the database writer
 * runs jobs and resumes suspended connections.  A request is touched by one
 * thread at a time: the writer only sets job_rc/job_err and resumes, except
 * when the connection went first (HTTP_JOB_ORPHANED): then the writer
 * frees the request.
 *
 * Accounting: n_in_flight counts requests from the access handler's first
 * call to the completed callback; n_pending those of them with a write in
 * flight, from http_defer_write to whichever comes first of the answer
 * being made and the request being completed (http_pending_end, exactly
 * once).
 */
#include "http_int.h"
#include "deadline.h"
#include "events_hub.h"
#include "http_conn.h"
#include "http_reply.h"
#include "http_heavy.h"
#include "http_listen.h"
#include "http_log.h"
#include "http_stream.h"
#include "ledgers.h"
#include "problem.h"
#include "router.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

void http_config_default(http_config *cfg)
{
    cfg->listen = "127.0.0.1";
    cfg->port = 8080;
    cfg->db_path = "data/umpire.db";
    cfg->threads = 2;
    cfg->connection_timeout = HTTP_DEFAULT_CONNECTION_TIMEOUT;
    cfg->connection_limit = HTTP_DEFAULT_CONNECTION_LIMIT;
    cfg->body_limit = 64 * 1024;
    cfg->access_log = "-";
    cors_config_init(&cfg->cors);
    discord_verify_config_init(&cfg->discord);
    notify_config_default(&cfg->notify);
    cfg->request_timeout = 10;
    cfg->keepalive_timeout = 15;
    cfg->per_ip_connection_limit = HTTP_DEFAULT_PER_IP_LIMIT;
    cfg->idle_close_percent = 90;
    cfg->stop_timeout = 10;
    cfg->events_limit = 256;
    cfg->events_keepalive_ms = 15000;
    cfg->read_threads = 2;
    cfg->read_queue = 64;
    cfg->odds_threads = 2;
    cfg->odds_queue = 64;
    cfg->stream_stall_timeout = 60;
    cfg->export_time_limit = 3600;
}

db *http_db(http_server *s)
{
    return s->db;
}

int http_port(const http_server *s)
{
    return s->port;
}

const cors_config *http_cors(const http_server *s)
{
    return &s->cfg.cors;
}

const discord_config *http_discord(const http_server *s)
{
    return &s->cfg.discord;
}

http_streams *http_event_streams(http_server *s)
{
    return events_hub_streams(s->events);
}

http_streams *http_export_streams(http_server *s)
{
    return s->exports;
}

bool http_is_stopping(const http_server *s)
{
    return atomic_load(&s->is_stopping);
}

void http_stats_read(http_server *s, http_stats *out)
{
    http_conn_counts c;

    memset(out, 0, sizeof *out);
    out->n_in_flight = atomic_load(&s->n_in_flight);
    out->n_pending = atomic_load(&s->n_pending);
    out->n_streams = http_streams_count(events_hub_streams(s->events));
    if (s->conns == NULL)
        return;
    http_conn_stats(s->conns, &c);
    out->n_connections = c.n_open;
    out->n_idle = c.n_idle;
    out->n_cut = c.n_cut;
    out->n_idle_closed = c.n_idle_closed;
    out->n_given_up = c.n_given_up;
}

/* ---- the lifecycle ---- */

void http_request_free(http_request *r)
{
    if (r == NULL)
        return;
    http_release_key(r);
    http_stream_release(r->stream); /* never handed to a response */
    if (r->state_free)
        r->state_free(r->state);
    free(r->path);
    free(r->param_buf);
    free(r->body);
    free(r->resp_body);
    free(r);
}

/*
 * The request is over: answered, or its connection gone (the client left,
 * or http_conn.c cut it at its deadline).  A write still running keeps the
 * request alive: the writer frees it (write_done); a write done but not
 * answered is counted done here.
 */
static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    http_server *s = cls;
    http_request *r = *con_cls;
    int running = HTTP_JOB_RUNNING;

    (void)toe;
    http_conn_idle(s->conns, conn);
    if (r == NULL)
        return;
    *con_cls = NULL;
    /* For the log, a request never answered: 408 when it did not arrive
     * whole in time (cut by http_conn.c), 499 when the client left. */
    if (!r->is_queued)
        r->status = http_conn_is_cut(s->conns, conn) ? 408 : 499;
    http_log_request(s->log, r, (monotonic_s() - r->started) * 1000.0);
    if (r->is_pending && atomic_compare_exchange_strong(&r->job_state, &running,
                                                        HTTP_JOB_ORPHANED)) {
        atomic_fetch_sub(&s->n_in_flight, 1);
        return;
    }
    http_pending_end(r);
    http_request_free(r);
    atomic_fetch_sub(&s->n_in_flight, 1);
}

static http_request *request_new(http_server *s, struct MHD_Connection *conn,
                                 const char *url, const char *method)
{
    http_request *r = calloc(1, sizeof *r);

    if (r == NULL)
        return NULL;
    r->srv = s;
    r->conn = conn;
    r->method = method;
    r->path = strdup(url);
    r->started = monotonic_s();
    r->status = 500;
    if (r->path == NULL) {
        free(r);
        return NULL;
    }
    atomic_fetch_add(&s->n_in_flight, 1);
    return r;
}

static bool is_json_type(const char *ct)
{
    size_t n = strlen("application/json");

    return strncasecmp(ct, "application/json", n) == 0 &&
           (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

static void reply_too_large(http_request *r)
{
    char detail[96];

    snprintf(detail, sizeof detail,
             "the request body is over the limit of %zu bytes",
             r->srv->cfg.body_limit);
    http_reply_problem_raw(r, 413, "body_too_large", "Request body too large",
                           detail);
}

/*
 * The first call: the request line and headers are in.  A body announced
 * over the limit is refused now, before any of it is read: a response
 * queued on the first call makes libmicrohttpd send no 100 Continue, read
 * none of the body, answer, and close the connection.
 */
static enum MHD_Result first_call(http_server *s, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  void **con_cls)
{
    http_request *r = request_new(s, conn, url, method);
    const char *cl;

    if (r == NULL)
        return MHD_NO;
    *con_cls = r;
    cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl == NULL || strtoull(cl, NULL, 10) <= s->cfg.body_limit)
        return MHD_YES;
    http_conn_busy(s->conns, conn);
    reply_too_large(r);
    return http_reply_queue(r);
}

/*
 * An upload call: part of the body.  A body that passes the limit (a
 * chunked one: a Content-Length over it was refused on the first call) is
 * refused at once: libmicrohttpd queues no response until the whole body
 * is in, so the 413 is written to the socket here and MHD_NO makes
 * libmicrohttpd close the connection.
 */
static enum MHD_Result upload(http_request *r, const char *data, size_t *size)
{
    char *b;

    if (r->body_len + *size > r->srv->cfg.body_limit) {
        reply_too_large(r);
        http_conn_busy(r->srv->conns, r->conn);
        http_reply_send_raw(r);
        *size = 0;
        return MHD_NO;
    }
    b = realloc(r->body, r->body_len + *size + 1);
    if (b == NULL)
        return MHD_NO;
    memcpy(b + r->body_len, data, *size);
    r->body = b;
    r->body_len += *size;
    r->body[r->body_len] = '\0';
    *size = 0;
    return MHD_YES;
}

static enum MHD_Result find_non_utf8(void *cls, enum MHD_ValueKind kind,
                                     const char *key, const char *value)
{
    const char **bad = cls;

    (void)kind;
    if (problem_is_utf8(key, strlen(key)) &&
        (value == NULL || problem_is_utf8(value, strlen(value))))
        return MHD_YES;
    *bad = key;
    return MHD_NO;
}

/* A query parameter that is not UTF-8 once percent-decoded is refused
 * here, whatever the route: no handler sees such text.  False when r was
 * answered. */
static bool check_query(http_request *r)
{
    const char *bad = NULL;
    err_info e;

    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, find_non_utf8,
                              &bad);
    if (bad == NULL)
        return true;
    err_clear(&e);
    err_set(&e, ERR_INVALID, bad,
            "query parameters are UTF-8 text once percent-decoded");
    http_reply_problem(r, &e);
    return false;
}

/* The request is all in: route it, unless the service is stopping, the
 * query is not text or the body is not JSON. */
static void dispatch(http_request *r)
{
    const char *ct = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_TYPE);

    http_conn_busy(r->srv->conns, r->conn);
    if (atomic_load(&r->srv->is_stopping))
        http_reply_stopping(r);
    else if (!check_query(r))
        return;
    else if (r->body_len > 0 && ct != NULL && !is_json_type(ct))
        http_reply_problem_raw(r, 415, "unsupported_media_type",
                               "Unsupported media type",
                               "request bodies must be application/json");
    else
        router_dispatch(r);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    http_server *s = cls;
    http_request *r = *con_cls;

    (void)version;
    if (r == NULL)
        return first_call(s, conn, url, method, con_cls);
    if (*size > 0)
        return upload(r, data, size);
    if (r->is_pending) {
        if (atomic_load(&r->job_state) != HTTP_JOB_DONE)
            return MHD_YES; /* spurious call while suspended */
        if (r->is_replied_in_job && r->job_rc != ERR_OK)
            http_reply_reset(r); /* made, then its transaction failed */
        if (!r->is_replied_in_job)
            r->finish(r, r->job_rc, &r->job_err);
        http_pending_end(r);
    } else if (!r->is_ready) {
        dispatch(r);
        if (r->is_pending)
            return MHD_YES;
    }
    if (!r->is_ready)
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "the handler gave no response");
    if (http_reply_queue(r) != MHD_YES)
        return MHD_NO;
    if (r->is_stream) /* exempt from the deadlines (http_conn.h) */
        http_conn_stream(s->conns, conn);
    return MHD_YES;
}

/* cfg's address and port as a socket address; false if not an address. */
static bool listen_addr(const http_config *cfg, struct sockaddr_storage *ss)
{
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

    memset(ss, 0, sizeof *ss);
    if (inet_pton(AF_INET, cfg->listen, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)cfg->port);
        return true;
    }
    if (inet_pton(AF_INET6, cfg->listen, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)cfg->port);
        return true;
    }
    return false;
}

/* The accepting thread's count of connections taken up and closed
 * (http_listen.c), and the connection table's (http_conn.c). */
static void on_connection(void *cls, struct MHD_Connection *c,
                          void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    http_server *s = cls;

    http_listener_on_notify(s->listener, c, socket_context, code);
    http_conn_on_notify(s->conns, c, socket_context, code);
}

/* The daemon, without a listening socket of its own: http_listen.c
 * accepts and hands it each connection. */
static struct MHD_Daemon *start_daemon(http_server *s)
{
    const http_config *cfg = &s->cfg;
    unsigned workers = (unsigned)(cfg->threads > 1 ? cfg->threads : 1);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC |
                     MHD_USE_NO_LISTEN_SOCKET;

    return MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s, MHD_OPTION_THREAD_POOL_SIZE,
        workers, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)cfg->connection_timeout, MHD_OPTION_CONNECTION_LIMIT,
        http_listen_daemon_limit((unsigned)cfg->connection_limit, workers),
        MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)(cfg->per_ip_connection_limit > 0
                       ? cfg->per_ip_connection_limit
                       : 0),
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
        MHD_OPTION_URI_LOG_CALLBACK, http_conn_on_uri, s->conns,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONNECTION_MEMORY,
        MHD_OPTION_END);
}

err_code http_start(const http_config *cfg, http_server **out, err_info *e)
{
    struct sockaddr_storage ss;
    http_server *s;
    http_conn_limits lim = {cfg->request_timeout, cfg->keepalive_timeout,
                            cfg->connection_limit, cfg->idle_close_percent};

    *out = NULL;
    if (!listen_addr(cfg, &ss))
        return err_set(e, ERR_INVALID, "listen",
                       "\"%s\" is not an IPv4 or IPv6 address", cfg->listen);
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    s->cfg = *cfg;
    pthread_mutex_init(&s->keys_lock, NULL);
    if (http_log_open(cfg->access_log, &s->log, e) != ERR_OK) {
        http_stop(s);
        return e && e->code ? e->code : ERR_INVALID;
    }
    /* A reader for each thread that reads: the workers, the long reads,
     * the odds (a campaign's odds read its units), and two more. */
    if (db_open(cfg->db_path,
                cfg->threads + cfg->read_threads + cfg->odds_threads + 2,
                &s->db, e) != ERR_OK) {
        http_stop(s);
        return ERR_DB;
    }
    if (db_commits_in_order(s->db)) { /* SQLite */
        db_ckpt_stats st;
        db_checkpoint_stats(s->db, &st);
        if (!st.is_running)
            fprintf(stderr, "umpire: the write-ahead log's checkpoints run "
                            "on the writer (their own thread could not "
                            "start)\n");
    }
    if (notify_start(s->db, &cfg->notify, &s->notify, e) != ERR_OK) {
        http_stop(s);
        return e && e->code ? e->code : ERR_INTERNAL;
    }
    if (events_hub_start(s->db, cfg->events_limit, cfg->events_keepalive_ms,
                         cfg->stream_stall_timeout * 1000, &s->events,
                         e) != ERR_OK) {
        http_stop(s);
        return e && e->code ? e->code : ERR_INTERNAL;
    }
    if (ledgers_export_start(cfg->stream_stall_timeout * 1000,
                             cfg->export_time_limit * 1000, &s->exports,
                             e) != ERR_OK) {
        http_stop(s);
        return e && e->code ? e->code : ERR_INTERNAL;
    }
    if (http_heavy_start("umpire-heavy", cfg->read_threads, cfg->read_queue,
                         &s->heavy, e) != ERR_OK ||
        http_heavy_start("umpire-odds", cfg->odds_threads, cfg->odds_queue,
                         &s->odds, e) != ERR_OK) {
        http_stop(s);
        return e && e->code ? e->code : ERR_INTERNAL;
    }
    if ((s->conns = http_conn_table_new(&lim)) == NULL) {
        http_stop(s);
        return err_set(e, ERR_NOMEM, NULL, "cannot start the reaper thread");
    }
    if (!http_listener_open(&ss, &s->listener, &s->port)) {
        int err = errno;

        http_stop(s);
        return err_set(e, ERR_INTERNAL, "port",
                       "cannot listen on %s port %d%s: %s", cfg->listen,
                       cfg->port, err == EADDRINUSE ? " (in use?)" : "",
                       strerror(err));
    }
    if ((s->daemon = start_daemon(s)) == NULL) {
        http_stop(s);
        return err_set(e, ERR_INTERNAL, NULL,
                       "cannot start the HTTP worker threads");
    }
    if (!http_listener_start(s->listener, s->daemon,
                             (unsigned)cfg->connection_limit)) {
        http_stop(s);
        return err_set(e, ERR_INTERNAL, NULL,
                       "cannot start the accepting thread");
    }
    *out = s;
    return ERR_OK;
}

/* Waits until *n is 0 or the deadline passes; true when it is 0. */
static bool wait_zero(atomic_int *n, double deadline)
{
    while (atomic_load(n) > 0) {
        if (monotonic_s() >= deadline)
            return false;
        usleep(5 * 1000);
    }
    return true;
}

bool http_stop(http_server *s)
{
    if (s == NULL)
        return true;
    if (s->daemon) {
        double deadline = monotonic_s() + s->cfg.stop_timeout;

        /* Stop taking requests (new ones get 503 and Connection: close),
         * then let every suspended write reach its commit and be answered:
         * libmicrohttpd must not be stopped with a connection still
         * suspended, and the writer's callbacks touch the requests.  Other
         * requests in flight get a short grace.  New connections are
         * still accepted meanwhile (and answered 503), until just before
         * libmicrohttpd stops. */
        atomic_store(&s->is_stopping, true);
        if (!wait_zero(&s->n_pending, deadline)) {
            /* Such a write's connection is suspended (libmicrohttpd aborts
             * when stopped with one) and the writer will touch its request:
             * leave everything as it is (a later call may finish). */
            fprintf(stderr,
                    "umpire: %d database writes still in flight after %d s; "
                    "stopping without them (unfinished ones roll back)\n",
                    atomic_load(&s->n_pending), s->cfg.stop_timeout);
            return false;
        }
        /* Event streams end (each after what it holds is sent) and no
         * connection is left suspended. */
        http_streams_close_all(events_hub_streams(s->events));
        http_streams_close_all(s->exports);
        if (!wait_zero(&s->n_in_flight, monotonic_s() + 2.0 < deadline
                                            ? monotonic_s() + 2.0
                                            : deadline))
            fprintf(stderr, "umpire: stopping with %d requests in flight\n",
                    atomic_load(&s->n_in_flight));
        http_conn_table_stop_reaper(s->conns);
        /* The thread that resumed the last of them may still be inside
         * MHD_resume_connection (write_done). */
        while (atomic_load(&s->n_resuming) > 0)
            usleep(1000);
        /* No connection may be handed to a stopped daemon. */
        http_listener_stop(s->listener);
        MHD_stop_daemon(s->daemon);
    }
    http_listener_free(s->listener);
    http_conn_table_free(s->conns);
    http_heavy_stop(s->heavy);
    http_heavy_stop(s->odds);
    http_streams_free(s->exports);
    events_hub_stop(s->events);
    /* Posts not yet sent stay in the database for the next start. */
    notify_stop(s->notify);
    db_close(s->db);
    http_log_close(s->log);
    pthread_mutex_destroy(&s->keys_lock);
    free(s->keys);
    free(s);
    return true;
}
