/*
 * http_reply.c: responses, from what a handler sets on a request to what
 * goes on the wire; see http.h (the http_reply_ calls a handler makes) and
 * http_reply.h (queueing them).
 *
 * Every response buffer says who owns it: resp_body is the request's until
 * it is queued (then libmicrohttpd's, MHD_RESPMEM_MUST_FREE); resp_static
 * outlives every request (MHD_RESPMEM_PERSISTENT); a stream is the
 * request's until its response is made, then the response's (its free
 * callback, http_stream_release, ends it).
 */
#include "http_reply.h"
#include "http_stream.h"
#include "console.h"
#include "problem.h"
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

/* ---- what a handler sets ---- */

/* Ends r's stream, if it still holds one (its response was not made). */
static void drop_stream(http_request *r)
{
    http_stream_release(r->stream);
    r->stream = NULL;
    r->is_stream = false;
}

static void set_body(http_request *r, int status, char *body, const char *type)
{
    drop_stream(r);
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

void http_reply_stream(http_request *r, http_stream *s, const char *type)
{
    set_body(r, 200, NULL, type);
    r->stream = s;
    r->is_stream = true;
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

/* The fixed 500 problem, when no other answer can be made. */
static void reply_fallback(http_request *r)
{
    size_t len;
    const char *body = problem_fallback(&len);

    http_reply_reset(r);
    http_reply_static(r, 500, body, len, "application/problem+json");
}

/* p (taken, NULL allowed) as the response. */
static void reply_problem_doc(http_request *r, json_t *p)
{
    int status = (int)json_integer_value(json_object_get(p, "status"));
    char *s = p ? json_dumps(p, JSON_COMPACT) : NULL;

    json_decref(p);
    if (s == NULL || status < 100 || status > 599) {
        free(s);
        reply_fallback(r);
        return;
    }
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
    if (e->code == ERR_UNAVAILABLE)
        r->retry_after = 1; /* a failover takes seconds */
    reply_problem_doc(r, problem_json(e));
}

void http_reply_problem_raw(http_request *r, int status, const char *code,
                            const char *title, const char *detail)
{
    reply_problem_doc(r, problem_make(status, code, title, detail, NULL));
}

void http_reply_reset(http_request *r)
{
    drop_stream(r);
    free(r->resp_body);
    r->resp_body = NULL;
    r->resp_static = NULL;
    r->resp_len = 0;
    r->content_type = NULL;
    r->etag = NULL;
    r->cache_control = NULL;
    r->location[0] = '\0';
    r->allow[0] = '\0';
    r->render = HTTP_RENDER_NONE;
    r->is_preflight = false;
    r->retry_after = 0;
    r->is_ready = false;
    r->status = 500;
    r->is_replied_in_job = false;
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

/* ---- on the wire ---- */

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

/* Adds a header to whatever ctx is (a libmicrohttpd response, raw text). */
typedef void (*header_fn)(void *ctx, const char *name, const char *value);

/*
 * The headers that depend on where a response goes (docs/console.md): a
 * console page's security headers, or the API's, with CORS for a request
 * from an allowed origin (cors.h).  A preflight's own headers come with
 * r->is_preflight (router.c).
 */
static void add_policy_headers(http_request *r, header_fn add, void *ctx)
{
    const cors_config *cors = http_cors(r->srv);
    const char *allow;
    char vary[32] = "";
    size_t i;

    if (console_is_path(r->path)) {
        for (i = 0; i < console_n_headers; i++)
            add(ctx, console_headers[i][0], console_headers[i][1]);
        return;
    }
    /* Nothing of the API is meant to be framed or to leak a referrer; a
     * report as HTML styles itself inline and runs no script. */
    add(ctx, "Content-Security-Policy",
        r->content_type && strncmp(r->content_type, "text/html", 9) == 0
            ? "default-src 'none'; style-src 'unsafe-inline'; "
              "frame-ancestors 'none'"
            : "default-src 'none'; frame-ancestors 'none'");
    add(ctx, "X-Frame-Options", "DENY");
    add(ctx, "Referrer-Policy", "no-referrer");
    if (r->render != HTTP_RENDER_NONE)
        snprintf(vary, sizeof vary, "Accept");
    if (cors_is_enabled(cors))
        snprintf(vary + strlen(vary), sizeof vary - strlen(vary), "%sOrigin",
                 vary[0] ? ", " : "");
    if (vary[0])
        add(ctx, "Vary", vary);
    allow = cors_allow(cors, http_header(r, "Origin"));
    if (allow == NULL)
        return;
    add(ctx, "Access-Control-Allow-Origin", allow);
    if (r->is_preflight) {
        add(ctx, "Access-Control-Allow-Methods", CORS_ALLOW_METHODS);
        add(ctx, "Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
        add(ctx, "Access-Control-Max-Age", CORS_MAX_AGE);
    } else {
        add(ctx, "Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    }
}

/* Every header of r's response but the framing ones (Content-Length,
 * Connection, Date), which its writer adds. */
static void add_headers(http_request *r, header_fn add, void *ctx)
{
    if (r->content_type != NULL)
        add(ctx, "Content-Type", r->content_type);
    add(ctx, "Cache-Control", r->cache_control ? r->cache_control : "no-store");
    if (r->etag)
        add(ctx, "ETag", r->etag);
    add(ctx, "X-Content-Type-Options", "nosniff");
    add_policy_headers(r, add, ctx);
    if (r->location[0])
        add(ctx, "Location", r->location);
    if (r->allow[0])
        add(ctx, "Allow", r->allow);
    if (r->is_replayed)
        add(ctx, "Idempotent-Replayed", "true");
    if (r->status == 401)
        add(ctx, "WWW-Authenticate", "Bearer");
    if (r->retry_after > 0) {
        char secs[16];
        snprintf(secs, sizeof secs, "%d", r->retry_after);
        add(ctx, "Retry-After", secs);
    }
    if (r->is_stream)
        add(ctx, "X-Accel-Buffering", "no"); /* nginx: pass it on */
}

static void add_to_response(void *ctx, const char *name, const char *value)
{
    MHD_add_response_header(ctx, name, value);
}

/* The block libmicrohttpd asks a stream's reader for at most. */
#define STREAM_BLOCK 8192

static struct MHD_Response *make_response(http_request *r)
{
    if (r->stream != NULL) {
        struct MHD_Response *resp = MHD_create_response_from_callback(
            MHD_SIZE_UNKNOWN, STREAM_BLOCK, http_stream_read, r->stream,
            http_stream_release);
        if (resp == NULL)
            drop_stream(r);
        r->stream = NULL; /* the response's now */
        return resp;
    }
    if (r->resp_static != NULL)
        return MHD_create_response_from_buffer(
            r->resp_len, (void *)r->resp_static, MHD_RESPMEM_PERSISTENT);
    return MHD_create_response_from_buffer(r->resp_len, r->resp_body,
                                           MHD_RESPMEM_MUST_FREE);
}

enum MHD_Result http_reply_queue(http_request *r)
{
    struct MHD_Response *resp;
    enum MHD_Result ret;

    if (r->reshape != NULL)
        r->reshape(r);
    render(r);
    /* libmicrohttpd refuses a status outside 100..999 and drops the
     * connection: answer the fixed 500 instead. */
    if (r->status < 100 || r->status > 599)
        reply_fallback(r);
    resp = make_response(r);
    if (resp == NULL) {
        reply_fallback(r);
        resp = make_response(r);
    }
    if (resp == NULL)
        return MHD_NO;
    r->resp_body = NULL; /* now the response's */
    add_headers(r, add_to_response, resp);
    if (http_is_stopping(r->srv))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    ret = MHD_queue_response(r->conn, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    r->is_queued = ret == MHD_YES;
    return ret;
}

/* ---- written straight to the socket ---- */

typedef struct raw_head {
    char text[4096];
    size_t len;
    bool is_full;
} raw_head;

static void raw_printf(raw_head *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void raw_printf(raw_head *h, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (h->is_full)
        return;
    va_start(ap, fmt);
    n = vsnprintf(h->text + h->len, sizeof h->text - h->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof h->text - h->len)
        h->is_full = true;
    else
        h->len += (size_t)n;
}

static void add_to_raw(void *ctx, const char *name, const char *value)
{
    raw_printf(ctx, "%s: %s\r\n", name, value);
}

/* Reads off what the client has sent already (up to 64 KiB, without
 * waiting), so that the close that follows is not a reset. */
static void drain(int fd)
{
    char buf[4096];
    size_t total = 0;
    ssize_t n;

    while (total < 64 * 1024 &&
           (n = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
        total += (size_t)n;
}

bool http_reply_send_raw(http_request *r)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    const char *phrase;
    raw_head h = {.len = 0};
    char date[64];
    struct iovec iov[2];
    struct msghdr msg;
    time_t now = time(NULL);
    struct tm tm;
    ssize_t sent;

    if (ci == NULL)
        return false;
    if (r->status < 100 || r->status > 599)
        reply_fallback(r);
    phrase = MHD_get_reason_phrase_for((unsigned)r->status);
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    raw_printf(&h,
               "HTTP/1.1 %d %s\r\nDate: %s\r\nConnection: close\r\n"
               "Content-Length: %zu\r\n",
               r->status, phrase && phrase[0] ? phrase : "Unknown", date,
               r->resp_len);
    add_headers(r, add_to_raw, &h);
    raw_printf(&h, "\r\n");
    if (h.is_full)
        return false;
    iov[0].iov_base = h.text;
    iov[0].iov_len = h.len;
    iov[1].iov_base =
        (void *)(r->resp_static ? (const void *)r->resp_static : r->resp_body);
    iov[1].iov_len = iov[1].iov_base ? r->resp_len : 0;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    /* Nothing else is being written: libmicrohttpd is still reading this
     * request.  The socket is non-blocking; an answer this small fits. */
    sent = sendmsg(ci->connect_fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    drain(ci->connect_fd);
    r->is_queued = true;
    return sent == (ssize_t)(h.len + iov[1].iov_len);
}
