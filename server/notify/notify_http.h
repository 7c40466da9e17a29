/*
 * notify_http.h: the poster's outbound HTTPS, through libcurl's easy
 * interface: one JSON POST at a time, with a time limit, and what the
 * answer says about rate limits.  No redirects are followed, and only
 * https is spoken (plain http too when the API base is a loopback one,
 * for tests).  One client per thread.
 */
#ifndef UMPIRE_NOTIFY_HTTP_H
#define UMPIRE_NOTIFY_HTTP_H

#include <stdbool.h>

#include "err.h"

typedef struct notify_http notify_http;

/* A new client (notify_http_free); is_http_allowed lets it speak plain
 * http.  ERR_NOMEM or ERR_INTERNAL (libcurl would not start). */
err_code notify_http_new(bool is_http_allowed, notify_http **out, err_info *e);
/* NULL ok. */
void notify_http_free(notify_http *h);

/* What came back from one POST. */
typedef struct notify_http_answer {
    int status;         /* the HTTP status; 0 when none came (see error) */
    char error[256];    /* why there was no answer, or "" */
    double retry_after; /* Retry-After, in seconds; -1 when absent */
    double reset_after; /* X-RateLimit-Reset-After, seconds; -1 */
    long remaining;     /* X-RateLimit-Remaining; -1 when absent */
    bool is_global;     /* X-RateLimit-Global: true */
    char body[1024];    /* the body's start, NUL-terminated */
} notify_http_answer;

/* POSTs json (Content-Type: application/json) to url, taking at most
 * timeout_ms in all, and fills *out.  url and json are borrowed. */
void notify_http_post(notify_http *h, const char *url, const char *json,
                      long timeout_ms, notify_http_answer *out);

#endif
