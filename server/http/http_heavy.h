/*
 * http_heavy.h: the threads that run long reads (a campaign's ledger
 * verified, its report, a shared link), so that they never hold a request
 * worker; a pool of its own, alike, runs the odds (http_defer_odds).
 *
 * A route flagged ROUTER_HEAVY (router.h) is not run by the worker that
 * read it: http_defer_read (http.h) suspends its connection and queues its
 * handler here; one of these threads runs it, and resumes the connection
 * to send what it answered.  Meanwhile the worker goes on with other
 * connections, so /health and the pages stay quick however many long reads
 * run.  The threads run at a lower priority (nice 10) than the workers:
 * on a busy machine, short requests go first.
 *
 * The queue is bounded: when it is full a long read is refused at once
 * (503 busy, with Retry-After) rather than waiting unseen.
 */
#ifndef UMPIRE_HTTP_HEAVY_H
#define UMPIRE_HTTP_HEAVY_H

#include <stdbool.h>

#include "err.h"

typedef struct http_heavy http_heavy;

typedef void (*http_heavy_fn)(void *arg);

/* Starts threads threads (1 or more), named name (as ps -L shows them:
 * 15 bytes at most), behind a queue of queue_max jobs; *out is new
 * (http_heavy_stop).  ERR_INTERNAL when a thread cannot be made. */
err_code http_heavy_start(const char *name, int threads, int queue_max,
                          http_heavy **out, err_info *e);

/* Queues fn(arg); false when the queue is full or the pool has stopped
 * (fn is then not called). */
bool http_heavy_submit(http_heavy *h, http_heavy_fn fn, void *arg);

/* Runs what is queued, stops the threads and frees h.  NULL allowed. */
void http_heavy_stop(http_heavy *h);

#endif
