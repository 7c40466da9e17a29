/*
 * events.c: GET /v1/campaigns/{campaign_id}/events (docs/events.md): the
 * request checked (it asks for text/event-stream; its Last-Event-ID or
 * ?last_event_id= is an event's id), the stream opened within its limits
 * (EVENTS_PER_TOKEN per token, 429; the service's, 503; both with
 * Retry-After), and handed to the response.  From then on the hub
 * (events_hub.c) writes into it on the pump's thread: no worker thread is
 * held (http_stream.h).
 */
#include "events.h"

#include "events_hub.h"
#include "http_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Seconds a refused client is asked to wait: a stream of its token may
 * end any moment (a client that leaves is noticed at once); the service's
 * limit is less likely to ease soon. */
#define RETRY_TOKEN   5
#define RETRY_SERVICE 30

/* The first bytes of every stream: how long a browser's EventSource waits
 * before it reconnects (ms), sent before any event so that the client
 * sees the response begin at once. */
#define STREAM_FIRST "retry: 3000\n\n"

/* Whether the media range at s (len bytes, spaces before it skipped) is
 * text/event-stream, text/ * or * / *, with a weight other than q=0. */
static bool is_stream_range(const char *s, size_t len)
{
    static const char *const ok[] = {"text/event-stream", "text/*", "*/*"};
    char range[128];
    const char *q;
    size_t i, n;

    if (len >= sizeof range)
        return false;
    memcpy(range, s, len);
    range[len] = '\0';
    n = strcspn(range, "; \t");
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strlen(ok[i]) == n && strncasecmp(range, ok[i], n) == 0)
            break;
    if (i == sizeof ok / sizeof ok[0])
        return false;
    q = strstr(range + n, "q=");
    return q == NULL || strtod(q + 2, NULL) > 0;
}

/* Whether Accept asks for text/event-stream (or allows it with text/ *
 * or * / *).  A request with no Accept is refused: the answer never ends,
 * and only a client that knows it is a stream should get one. */
static bool accepts_stream(http_request *r)
{
    const char *a = http_header(r, "Accept");

    while (a != NULL && *a) {
        size_t len = strcspn(a, ",");
        while (*a == ' ' && len > 0) {
            a++;
            len--;
        }
        if (is_stream_range(a, len))
            return true;
        a += len;
        if (*a == ',')
            a++;
    }
    return false;
}

/* The Last-Event-ID header, or else ?last_event_id=, as *after, with
 * *has_after; false (e set) when it is not an event's id (a whole number
 * from 0, in decimal).  An empty header is none (EventSource sends none
 * before its first event). */
static bool read_last_id(http_request *r, long long *after, bool *has_after,
                         err_info *e)
{
    const char *v = http_header(r, "Last-Event-ID");
    char *end;

    *has_after = false;
    if (v == NULL || v[0] == '\0') {
        v = http_query(r, "last_event_id");
        if (v == NULL)
            return true;
    }
    errno = 0;
    *after = strtoll(v, &end, 10);
    if (v[0] == '\0' || strspn(v, "0123456789") != strlen(v) || *end ||
        errno == ERANGE) {
        err_set(e, ERR_INVALID, "last_event_id",
                "Last-Event-ID (or ?last_event_id=) is the id of an event "
                "received: a whole number from 0");
        return false;
    }
    *has_after = true;
    return true;
}

/* Event streams, refused (http_stream_refuse). */
static const http_stream_kind events_kind = {
    "event streams open", "streams_full", RETRY_TOKEN, RETRY_SERVICE, NULL};

static void refuse(http_request *r, http_stream_refusal why)
{
    http_stream_refuse(r, why, &events_kind, EVENTS_PER_TOKEN);
}

/* Opens the stream of r's token from after (or, with no Last-Event-ID,
 * from the campaign's last event: only what comes next). */
static void open_stream(http_request *r, long long after, bool has_after)
{
    http_stream_refusal why;
    events_sub *sub;
    http_stream *s;
    err_info e;

    err_clear(&e);
    if (!has_after) {
        db *d = http_db(r->srv);
        db_conn *c = db_read_acquire(d);
        err_code rc = db_event_log_last(c, r->params[0], &after, &e);
        db_read_release(d, c);
        if (rc != ERR_OK) {
            http_reply_problem(r, &e);
            return;
        }
    }
    if ((sub = events_hub_sub_new(&r->token, after)) == NULL) {
        refuse(r, HTTP_STREAM_NO_MEMORY);
        return;
    }
    s = http_stream_open(http_event_streams(r->srv), r, r->token.id,
                         EVENTS_PER_TOKEN, sub, STREAM_FIRST, &why);
    if (s == NULL) {
        events_hub_sub_free(sub);
        refuse(r, why);
        return;
    }
    http_reply_stream(r, s, "text/event-stream");
}

void events_stream(http_request *r)
{
    long long after = 0;
    bool has_after;
    err_info e;

    err_clear(&e);
    if (!accepts_stream(r)) {
        http_reply_problem_raw(r, 406, "not_acceptable", "Not acceptable",
                               "this resource is a stream of events: send "
                               "Accept: text/event-stream");
        return;
    }
    if (!read_last_id(r, &after, &has_after, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    if (strcmp(r->method, "HEAD") == 0) { /* as GET would, no stream */
        http_stream_refusal why = http_streams_check(
            http_event_streams(r->srv), r->token.id, EVENTS_PER_TOKEN);
        if (why != HTTP_STREAM_OPENED)
            refuse(r, why);
        else
            http_reply_static(r, 200, NULL, 0, "text/event-stream");
        return;
    }
    open_stream(r, after, has_after);
}
