/*
 * events_rig.h: a client of the live events stream (test_events_http.c)
 * over a raw socket: the request with Accept: text/event-stream, the
 * response's head, then its chunked body taken apart into the blocks of
 * text/event-stream (events, comments, retry), each read within a time.
 */
#ifndef UMPIRE_TESTS_EVENTS_RIG_H
#define UMPIRE_TESTS_EVENTS_RIG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "harness.h"

/* One open stream, or the answer that refused it. */
typedef struct events_client {
    int fd;
    int status;      /* the response's */
    char head[4096]; /* its status line and headers */
    json_t *problem; /* a refusal's body, or NULL */
    char *raw;       /* received, still chunked */
    size_t raw_len, raw_cap;
    char *text; /* the body so far, not yet taken apart */
    size_t text_len, text_cap;
    bool is_ended; /* the last chunk came, or the server closed */
} events_client;

/* One block of the stream (up to its blank line). */
typedef struct events_block {
    long long id;     /* id:, -1 for none */
    char kind[16];    /* event:, "" for none */
    char *data;       /* data: (owned), NULL for none */
    json_t *json;     /* data parsed, or NULL */
    char comment[64]; /* a comment line's text after ':', "" for none */
    bool has_retry;   /* a retry: line */
} events_block;

/*
 * GET /v1/campaigns/{campaign_id}/events?{query} (query NULL: none) with
 * token and Accept: text/event-stream, and extra (header lines, each
 * ending in \r\n, or NULL); reads the response's head within 5 s and
 * returns its status.  A refusal's body is read whole (c->problem).
 * Aborts the test when the server cannot be reached.
 */
int events_open(events_client *c, test_server *ts, const char *campaign_id,
                const char *query, const char *token, const char *extra);

/* The next block within timeout seconds: false when none came (or the
 * stream ended first). */
bool events_next(events_client *c, double timeout, events_block *out);
/* The next event (comments and retry skipped) within timeout seconds. */
bool events_next_event(events_client *c, double timeout, events_block *out);
/* Reads until the stream ends (true) or timeout seconds pass (false). */
bool events_wait_end(events_client *c, double timeout);

void events_block_cleanup(events_block *b);
/* Closes the socket and frees what c holds. */
void events_close(events_client *c);

#endif
