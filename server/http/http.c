/*
 * http.c: the libmicrohttpd daemon and the request lifecycle; see http.h.
 *
 * Threads: libmicrohttpd's pool runs access handlers; the database writer
 * runs jobs and resumes suspended connections.  A request is touched by one
 * thread at a time: the writer only sets job_rc/job_err and resumes.
 */
#include "http.h"
#include "console.h"
#include "idem.h"
#include "problem.h"
#include "report.h"
#include "router.h"

#include <arpa/inet.h>
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

struct http_server {
    http_config cfg;
    struct MHD_Daemon *daemon;
    db *db;
    FILE *log; /* access log, or NULL when off */
    bool is_log_owned;
    pthread_mutex_t log_lock;
    atomic_int n_in_flight;  /* requests between first call and completion */
    atomic_int n_pending;    /* requests suspended for a database write */
    atomic_bool is_stopping; /* new requests are turned away (503) */
    notify *notify;          /* the poster of channel posts */
    int port;
    /* Idempotency keys of requests in flight, "scope\nkey" (idem.h). */
    pthread_mutex_t keys_lock;
    char **keys;
    size_t n_keys, cap_keys;
};

void http_config_default(http_config *cfg)
{
    cfg->listen = "127.0.0.1";
    cfg->port = 8080;
    cfg->db_path = "data/umpire.db";
    cfg->threads = 2;
    cfg->connection_timeout = 30;
    cfg->connection_limit = 1024;
    cfg->body_limit = 64 * 1024;
    cfg->access_log = "-";
    cors_config_init(&cfg->cors);
    discord_verify_config_init(&cfg->discord);
    notify_config_default(&cfg->notify);
}

static double now_monotonic(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

/* ---- responses ---- */

static void set_body(http_request *r, int status, char *body, const char *type)
{
    free(r->resp_body);
    r->status = status;
    r->resp_body = body;
    r->resp_static = NULL;
    r->resp_len = body ? strlen(body) : 0;
    r->content_type = type;
    r->is_ready = true;
}

void http_reply_static(http_request *r, int status, const void *data,
                       size_t len, const char *type)
{
    set_body(r, status, NULL, type);
    r->resp_static = data;
    r->resp_len = data ? len : 0;
}

void http_reply_json(http_request *r, int status, json_t *json)
{
    char *s = json ? json_dumps(json, JSON_COMPACT) : NULL;

    json_decref(json);
    if (s == NULL) {
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "the server failed to build the response");
        return;
    }
    set_body(r, status, s, "application/json");
}

void http_reply_no_content(http_request *r)
{
    set_body(r, 204, NULL, NULL);
}

void http_reply_json_text(http_request *r, int status, char *text)
{
    if (text == NULL) {
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "the server failed to build the response");
        return;
    }
    set_body(r, status, text, "application/json");
}

static void reply_problem_doc(http_request *r, json_t *p)
{
    int status = (int)json_integer_value(json_object_get(p, "status"));
    char *s = json_dumps(p, JSON_COMPACT);

    json_decref(p);
    set_body(r, status, s, "application/problem+json");
}

void http_reply_err(http_request *r, err_code rc, const err_info *e)
{
    err_info fallback;

    if (e != NULL && e->code != ERR_OK) {
        http_reply_problem(r, e);
        return;
    }
    err_clear(&fallback);
    err_set(&fallback, rc, NULL, "the request failed");
    http_reply_problem(r, &fallback);
}

void http_reply_problem(http_request *r, const err_info *e)
{
    if (problem_status(e->code) >= 500)
        fprintf(stderr, "error: %s %s: %s: %s\n", r->method, r->path,
                err_code_name(e->code), e->message);
    reply_problem_doc(r, problem_json(e));
}

void http_reply_problem_raw(http_request *r, int status, const char *code,
                            const char *title, const char *detail)
{
    reply_problem_doc(r, problem_make(status, code, title, detail, NULL));
}

const char *http_render_name(http_render k)
{
    static const char *const names[] = {"", "combat", "battle", "campaign"};

    return names[k];
}

http_render http_render_kind(const char *name)
{
    http_render k;

    for (k = HTTP_RENDER_COMBAT; k <= HTTP_RENDER_CAMPAIGN; k++)
        if (strcmp(name, http_render_name(k)) == 0)
            return k;
    return HTTP_RENDER_NONE;
}

/* ---- idempotency keys in flight ---- */

static void key_text(const http_request *r, char *out, size_t n)
{
    snprintf(out, n, "%s\n%s", r->idem.scope, r->idem.key);
}

bool http_claim_key(http_request *r)
{
    http_server *s = r->srv;
    char k[sizeof r->idem.scope + sizeof r->idem.key + 2];
    bool is_free = true;
    size_t i;

    key_text(r, k, sizeof k);
    pthread_mutex_lock(&s->keys_lock);
    for (i = 0; i < s->n_keys && is_free; i++)
        is_free = strcmp(s->keys[i], k) != 0;
    if (is_free && s->n_keys == s->cap_keys) {
        size_t cap = s->cap_keys ? 2 * s->cap_keys : 16;
        char **grown = realloc(s->keys, cap * sizeof *grown);
        if (grown) {
            s->keys = grown;
            s->cap_keys = cap;
        }
    }
    if (is_free && s->n_keys < s->cap_keys &&
        (s->keys[s->n_keys] = strdup(k)) != NULL) {
        s->n_keys++;
        r->is_claimed = true;
    }
    pthread_mutex_unlock(&s->keys_lock);
    return r->is_claimed;
}

static void release_key(http_request *r)
{
    http_server *s = r->srv;
    char k[sizeof r->idem.scope + sizeof r->idem.key + 2];
    size_t i;

    if (!r->is_claimed)
        return;
    key_text(r, k, sizeof k);
    pthread_mutex_lock(&s->keys_lock);
    for (i = 0; i < s->n_keys; i++)
        if (strcmp(s->keys[i], k) == 0) {
            free(s->keys[i]);
            s->keys[i] = s->keys[--s->n_keys];
            break;
        }
    pthread_mutex_unlock(&s->keys_lock);
    r->is_claimed = false;
}

const char *http_query(http_request *r, const char *key)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *http_header(http_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

json_t *http_body_object(http_request *r)
{
    json_error_t jerr;
    json_t *v;
    char detail[256];

    if (r->body_len == 0) {
        http_reply_problem_raw(r, 400, "invalid_json", "Malformed JSON",
                               "the request needs a JSON object body");
        return NULL;
    }
    v = json_loadb(r->body, r->body_len,
                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (v == NULL) {
        snprintf(detail, sizeof detail,
                 "the body is not valid JSON: %s (line %d, column %d)",
                 jerr.text, jerr.line, jerr.column);
        http_reply_problem_raw(r, 400, "invalid_json", "Malformed JSON",
                               detail);
        return NULL;
    }
    if (!json_is_object(v)) {
        json_decref(v);
        http_reply_problem_raw(r, 422, "invalid_value", "Invalid value",
                               "the body must be a JSON object");
        return NULL;
    }
    return v;
}

/* ---- deferred writes ---- */

static void reply_stopping(http_request *r)
{
    http_reply_problem_raw(r, 503, "service_stopping", "Service unavailable",
                           "the service is stopping; retry shortly");
}

static void write_done(void *arg, err_code rc, const err_info *e)
{
    http_request *r = arg;

    r->job_rc = rc;
    err_clear(&r->job_err);
    if (rc != ERR_OK && e != NULL)
        r->job_err = *e;
    r->is_resumed = true;
    MHD_resume_connection(r->conn);
}

/* Forgets a response made in the writer job whose transaction failed. */
static void reset_response(http_request *r)
{
    free(r->resp_body);
    r->resp_body = NULL;
    r->resp_static = NULL;
    r->resp_len = 0;
    r->etag = NULL;
    r->cache_control = NULL;
    r->location[0] = '\0';
    r->render = HTTP_RENDER_NONE;
    r->is_ready = false;
    r->status = 500;
    r->is_replied_in_job = false;
}

/*
 * Runs the handler's job with the handler's state.  A request with an
 * Idempotency-Key makes its response here, once the job has succeeded,
 * and stores it under the key in the same transaction (idem.h).
 */
static err_code run_job(db_conn *conn, void *arg, err_info *e)
{
    http_request *r = arg;
    err_code rc = r->job(conn, r->state, e);

    if (rc != ERR_OK || !r->has_idem)
        return rc;
    r->finish(r, ERR_OK, NULL);
    r->is_replied_in_job = true;
    if (r->status < 200 || r->status > 299) {
        /* No answer to keep: nothing may land that a retry would roll
         * again (the finish failed, e.g. out of memory). */
        reset_response(r);
        return err_set(e, ERR_INTERNAL, NULL,
                       "the answer to keep under the Idempotency-Key could "
                       "not be made");
    }
    if ((rc = idem_store(conn, r, e)) != ERR_OK)
        reset_response(r);
    return rc;
}

void http_defer_write(http_request *r, db_job_fn run, http_finish_fn finish)
{
    err_info e;

    err_clear(&e);
    /* Counted before the stop flag is read, so http_stop either sees this
     * write and waits for it, or this write sees the flag and backs out. */
    atomic_fetch_add(&r->srv->n_pending, 1);
    if (atomic_load(&r->srv->is_stopping)) {
        atomic_fetch_sub(&r->srv->n_pending, 1);
        reply_stopping(r);
        return;
    }
    r->job = run;
    r->finish = finish;
    r->is_pending = true;
    /* Suspend first: the job may finish before this function returns. */
    MHD_suspend_connection(r->conn);
    if (db_submit(r->srv->db, run_job, write_done, r) != ERR_OK) {
        err_set(&e, ERR_INTERNAL, NULL, "the database writer has stopped");
        write_done(r, ERR_INTERNAL, &e);
    }
}

/* ---- the access log ---- */

/* The path as one log line can hold it: control characters, quotes and
 * backslashes escaped (libmicrohttpd has decoded %0a and the like). */
static void log_safe(const char *in, char *out, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    for (; *in && o + 5 < n; in++) {
        unsigned char c = (unsigned char)*in;
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

static void access_log(http_request *r)
{
    http_server *s = r->srv;
    const union MHD_ConnectionInfo *ci;
    char addr[INET6_ADDRSTRLEN] = "-", at[DB_TIME_MAX], path[512];

    if (s->log == NULL)
        return;
    ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
                      addr, sizeof addr);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr,
                      addr, sizeof addr);
    }
    db_now(at);
    log_safe(r->path, path, sizeof path);
    pthread_mutex_lock(&s->log_lock);
    fprintf(s->log, "%s %s \"%s %s\" %d %zu %.3fms\n", at, addr, r->method,
            path, r->status, r->resp_len,
            (now_monotonic() - r->started) * 1000.0);
    pthread_mutex_unlock(&s->log_lock);
}

/* ---- the lifecycle ---- */

static void request_free(http_request *r)
{
    if (r == NULL)
        return;
    release_key(r);
    if (r->state_free)
        r->state_free(r->state);
    free(r->path);
    free(r->param_buf);
    free(r->body);
    free(r->resp_body);
    free(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    http_server *s = cls;
    http_request *r = *con_cls;

    (void)conn;
    (void)toe;
    if (r == NULL)
        return;
    access_log(r);
    request_free(r);
    *con_cls = NULL;
    atomic_fetch_sub(&s->n_in_flight, 1);
}

/* A report asked for as Markdown or HTML: rendered from its JSON body. */
static void render(http_request *r)
{
    json_t *doc;
    char *text = NULL;

    if (r->render == HTTP_RENDER_NONE || r->format == REPORT_JSON ||
        r->status < 200 || r->status > 299 || r->resp_body == NULL)
        return;
    doc = json_loadb(r->resp_body, r->resp_len, 0, NULL);
    if (doc == NULL)
        return;
    if (r->render == HTTP_RENDER_COMBAT)
        text = report_combat(doc, (report_format)r->format);
    else if (r->render == HTTP_RENDER_BATTLE)
        text = report_battle(doc, (report_format)r->format);
    else
        text = report_campaign(doc, (report_format)r->format);
    json_decref(doc);
    if (text == NULL)
        return;
    free(r->resp_body);
    r->resp_body = text;
    r->resp_len = strlen(text);
    r->content_type = report_content_type((report_format)r->format);
}

/*
 * The headers that depend on where a response goes (docs/console.md): a
 * console page's security headers, or the API's, with CORS for a request
 * from an allowed origin (cors.h).  A preflight's own headers come with
 * r->is_preflight (router.c).
 */
static void add_policy_headers(http_request *r, struct MHD_Response *resp)
{
    const cors_config *cors = &r->srv->cfg.cors;
    const char *allow;
    char vary[32] = "";
    size_t i;

    if (console_is_path(r->path)) {
        for (i = 0; i < console_n_headers; i++)
            MHD_add_response_header(resp, console_headers[i][0],
                                    console_headers[i][1]);
        return;
    }
    /* Nothing of the API is meant to be framed or to leak a referrer; a
     * report as HTML styles itself inline and runs no script. */
    MHD_add_response_header(
        resp, "Content-Security-Policy",
        r->content_type && strncmp(r->content_type, "text/html", 9) == 0
            ? "default-src 'none'; style-src 'unsafe-inline'; "
              "frame-ancestors 'none'"
            : "default-src 'none'; frame-ancestors 'none'");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    if (r->render != HTTP_RENDER_NONE)
        snprintf(vary, sizeof vary, "Accept");
    if (cors_is_enabled(cors))
        snprintf(vary + strlen(vary), sizeof vary - strlen(vary), "%sOrigin",
                 vary[0] ? ", " : "");
    if (vary[0])
        MHD_add_response_header(resp, "Vary", vary);
    allow = cors_allow(cors, http_header(r, "Origin"));
    if (allow == NULL)
        return;
    MHD_add_response_header(resp, "Access-Control-Allow-Origin", allow);
    if (r->is_preflight) {
        MHD_add_response_header(resp, "Access-Control-Allow-Methods",
                                CORS_ALLOW_METHODS);
        MHD_add_response_header(resp, "Access-Control-Allow-Headers",
                                CORS_ALLOW_HEADERS);
        MHD_add_response_header(resp, "Access-Control-Max-Age", CORS_MAX_AGE);
    } else {
        MHD_add_response_header(resp, "Access-Control-Expose-Headers",
                                CORS_EXPOSE_HEADERS);
    }
}

static enum MHD_Result queue(http_request *r)
{
    struct MHD_Response *resp;
    enum MHD_Result ret;

    if (r->reshape != NULL)
        r->reshape(r);
    render(r);
    if (r->resp_static != NULL)
        resp = MHD_create_response_from_buffer(
            r->resp_len, (void *)r->resp_static, MHD_RESPMEM_PERSISTENT);
    else
        resp = MHD_create_response_from_buffer(r->resp_len, r->resp_body,
                                               MHD_RESPMEM_MUST_FREE);
    if (resp == NULL)
        return MHD_NO;
    r->resp_body = NULL; /* now the response's */
    if (r->content_type != NULL)
        MHD_add_response_header(resp, "Content-Type", r->content_type);
    MHD_add_response_header(resp, "Cache-Control",
                            r->cache_control ? r->cache_control : "no-store");
    if (r->etag)
        MHD_add_response_header(resp, "ETag", r->etag);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    add_policy_headers(r, resp);
    if (r->location[0])
        MHD_add_response_header(resp, "Location", r->location);
    if (r->allow[0])
        MHD_add_response_header(resp, "Allow", r->allow);
    if (r->is_replayed)
        MHD_add_response_header(resp, "Idempotent-Replayed", "true");
    if (r->status == 401)
        MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
    if (atomic_load(&r->srv->is_stopping))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    ret = MHD_queue_response(r->conn, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
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
    r->started = now_monotonic();
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    http_server *s = cls;
    http_request *r = *con_cls;

    (void)version;
    if (r == NULL) {
        const char *cl;
        r = request_new(s, conn, url, method);
        if (r == NULL)
            return MHD_NO;
        *con_cls = r;
        cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                         MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > s->cfg.body_limit)
            r->is_too_large = true;
        return MHD_YES;
    }
    if (*upload_size > 0) {
        if (!r->is_too_large &&
            r->body_len + *upload_size <= s->cfg.body_limit) {
            char *b = realloc(r->body, r->body_len + *upload_size + 1);
            if (b == NULL)
                return MHD_NO;
            memcpy(b + r->body_len, upload, *upload_size);
            r->body = b;
            r->body_len += *upload_size;
            r->body[r->body_len] = '\0';
        } else {
            r->is_too_large = true;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (r->is_pending) {
        if (!r->is_resumed)
            return MHD_YES; /* spurious call while suspended */
        r->is_pending = false;
        if (r->is_replied_in_job && r->job_rc != ERR_OK)
            reset_response(r); /* made, then its transaction failed */
        if (!r->is_replied_in_job)
            r->finish(r, r->job_rc, &r->job_err);
        atomic_fetch_sub(&s->n_pending, 1);
    } else if (!r->is_ready) {
        const char *ct = MHD_lookup_connection_value(
            conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
        if (r->is_too_large) {
            char detail[96];
            snprintf(detail, sizeof detail,
                     "the request body is over the limit of %zu bytes",
                     s->cfg.body_limit);
            http_reply_problem_raw(r, 413, "body_too_large",
                                   "Request body too large", detail);
        } else if (atomic_load(&s->is_stopping)) {
            reply_stopping(r);
        } else if (r->body_len > 0 && ct != NULL && !is_json_type(ct)) {
            http_reply_problem_raw(r, 415, "unsupported_media_type",
                                   "Unsupported media type",
                                   "request bodies must be application/json");
        } else {
            router_dispatch(r);
        }
        if (r->is_pending)
            return MHD_YES;
    }
    if (!r->is_ready)
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "the handler gave no response");
    return queue(r);
}

err_code http_start(const http_config *cfg, http_server **out, err_info *e)
{
    struct sockaddr_storage ss;
    socklen_t ss_len;
    unsigned flags;
    http_server *s;
    const union MHD_DaemonInfo *info;

    *out = NULL;
    memset(&ss, 0, sizeof ss);
    {
        struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
        if (inet_pton(AF_INET, cfg->listen, &a4->sin_addr) == 1) {
            a4->sin_family = AF_INET;
            a4->sin_port = htons((uint16_t)cfg->port);
            ss_len = sizeof *a4;
        } else if (inet_pton(AF_INET6, cfg->listen, &a6->sin6_addr) == 1) {
            a6->sin6_family = AF_INET6;
            a6->sin6_port = htons((uint16_t)cfg->port);
            ss_len = sizeof *a6;
        } else {
            return err_set(e, ERR_INVALID, "listen",
                           "\"%s\" is not an IPv4 or IPv6 address",
                           cfg->listen);
        }
    }
    (void)ss_len;
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    s->cfg = *cfg;
    pthread_mutex_init(&s->log_lock, NULL);
    pthread_mutex_init(&s->keys_lock, NULL);
    if (strcmp(cfg->access_log, "off") == 0) {
        s->log = NULL;
    } else if (strcmp(cfg->access_log, "-") == 0) {
        s->log = stderr;
    } else {
        s->log = fopen(cfg->access_log, "a");
        if (s->log == NULL) {
            free(s);
            return err_set(e, ERR_INVALID, "access_log",
                           "cannot open the access log %s", cfg->access_log);
        }
        setvbuf(s->log, NULL, _IOLBF, 0);
        s->is_log_owned = true;
    }
    if (db_open(cfg->db_path, cfg->threads + 2, &s->db, e) != ERR_OK) {
        http_stop(s);
        return ERR_DB;
    }
    if (notify_start(s->db, &cfg->notify, &s->notify, e) != ERR_OK) {
        http_stop(s);
        return e && e->code ? e->code : ERR_INTERNAL;
    }
    flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
            MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
    if (((struct sockaddr *)&ss)->sa_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    s->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, &ss,
        MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)(cfg->threads > 1 ? cfg->threads : 1),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->connection_timeout,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->connection_limit,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
    if (s->daemon == NULL) {
        http_stop(s);
        return err_set(e, ERR_INTERNAL, "port",
                       "cannot listen on %s port %d (in use?)", cfg->listen,
                       cfg->port);
    }
    info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : cfg->port;
    *out = s;
    return ERR_OK;
}

void http_stop(http_server *s)
{
    double deadline;

    if (s == NULL)
        return;
    if (s->daemon) {
        MHD_socket fd;

        /* Stop taking connections and requests (new ones get 503 and
         * Connection: close), then let every suspended write reach its
         * commit and be answered: libmicrohttpd must not be stopped with a
         * connection still suspended, and the writer's callbacks touch the
         * requests.  Other requests in flight get a short grace. */
        atomic_store(&s->is_stopping, true);
        fd = MHD_quiesce_daemon(s->daemon);
        while (atomic_load(&s->n_pending) > 0)
            usleep(5 * 1000);
        deadline = now_monotonic() + 2.0;
        while (atomic_load(&s->n_in_flight) > 0 && now_monotonic() < deadline)
            usleep(5 * 1000);
        MHD_stop_daemon(s->daemon);
        if (fd != MHD_INVALID_SOCKET)
            close(fd);
    }
    /* Posts not yet sent stay in the database for the next start. */
    notify_stop(s->notify);
    db_close(s->db);
    if (s->is_log_owned)
        fclose(s->log);
    pthread_mutex_destroy(&s->log_lock);
    pthread_mutex_destroy(&s->keys_lock);
    free(s->keys);
    free(s);
}
