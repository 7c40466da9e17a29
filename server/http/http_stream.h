/*
 * http_stream.h: responses whose body is written over time, for as long as
 * the client stays (Server-Sent Events: resources/events.c), without a
 * worker thread held by each.
 *
 * How (libmicrohttpd 0.9.75, thread pool, MHD_ALLOW_SUSPEND_RESUME): a
 * stream's response is chunked and read through a content reader
 * (MHD_create_response_from_callback).  The reader copies out what the
 * stream's buffer holds; when it is empty it suspends the connection and
 * returns 0, the way libmicrohttpd documents to wait without busy polling,
 * and the worker thread goes on with other connections.  One thread per
 * server, the pump, resumes a suspended stream once it has bytes to send
 * or has ended.  A pipe (MHD_create_response_from_pipe) would not do:
 * libmicrohttpd reads it with a blocking read() on the worker thread.
 *
 * The pump also keeps streams alive and notices clients that leave.  After
 * keepalive_ms without a write it writes a keep-alive (an SSE comment).
 * While suspended, libmicrohttpd neither times a connection out nor sees
 * its client go, so the pump polls the sockets of the suspended streams for
 * the peer's hang-up (POLLRDHUP) and ends those streams at once: the
 * reader answers END_WITH_ERROR, libmicrohttpd closes the connection, and
 * its free callback marks the stream gone.  Only the pump resumes
 * connections, and only while it is not polling their sockets, so a
 * socket it polls is never closed under it.
 *
 * Ownership: a handler opens a stream (http_stream_open), which counts it
 * at once against the limits, and hands it to its response
 * (http_reply_stream, http.h); from then on libmicrohttpd's free callback
 * (http_stream_release) ends it.  The pump frees a stream on its own
 * thread, after giving the stream's user data to the producer's gone
 * callback.  The producer (resources/events_hub.c) writes on the pump
 * thread only, inside its work callback.
 *
 * Stopping (http.c): http_streams_close_all ends every stream, each
 * after its buffer is sent, refuses new ones, and returns once every
 * suspended connection has been resumed: libmicrohttpd must not be stopped
 * with one suspended.  http_streams_free, after libmicrohttpd has stopped,
 * stops the pump.
 */
#ifndef UMPIRE_HTTP_STREAM_H
#define UMPIRE_HTTP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "http.h"

typedef struct http_streams http_streams;

/* The producer of the streams' bytes; its callbacks run on the pump
 * thread, one at a time. */
typedef struct http_streams_producer {
    /* Its turn, after http_streams_wake, after a stream was opened, and
     * when a stream that wants more (http_stream_want) has sent half of
     * its buffer: streams are every stream open (borrowed for the call;
     * any may have ended meanwhile: writing to it then does nothing). */
    void (*work)(void *arg, http_stream *const *streams, size_t n);
    /* A stream has gone: its user data (http_stream_open) to free. */
    void (*gone)(void *arg, void *user);
    void *arg;
} http_streams_producer;

typedef struct http_streams_config {
    int max_streams;       /* open at most, service-wide */
    int keepalive_ms;      /* a keep-alive after this long without a write */
    const char *keepalive; /* its bytes (static), e.g. ": keep-alive\n\n" */
    size_t buffer_limit;   /* bytes a stream holds unsent before its
                              producer is told to wait (http_stream_room) */
    int stall_ms;          /* the stall window: a stream whose client
                              takes less than 64 KiB in one while half its
                              buffer or more waits is cut, what it holds
                              dropped, its connection shut (so its
                              producer's snapshot and its place are given
                              back); 0: never */
    int max_ms;            /* a stream open this long is cut the same way,
                              however fast its client reads (an export's
                              snapshot held no longer); 0: never */
    const char *name;      /* what the log calls these streams ("ledger
                              exports") */
} http_streams_config;

/* Starts the pump; *out is new (http_streams_free).  ERR_INTERNAL when
 * its thread or its wake-up descriptor cannot be made. */
err_code http_streams_start(const http_streams_config *cfg,
                            const http_streams_producer *producer,
                            http_streams **out, err_info *e);

/* Gives the producer a turn soon (any thread; it does not block: the
 * database writer's commit listener).  arg: the http_streams. */
void http_streams_wake(void *arg);

/* Ends every stream (each after its buffer is sent) and refuses new ones;
 * returns once no stream's connection is left suspended. */
void http_streams_close_all(http_streams *p);

/* Stops the pump and frees every stream left (the producer's gone called
 * for each).  Only once libmicrohttpd has stopped.  NULL allowed. */
void http_streams_free(http_streams *p);

/* Streams open now (not yet gone); 0 for NULL. */
int http_streams_count(http_streams *p);
/* Streams cut so far: for stalling (stall_ms), for running past max_ms. */
typedef struct http_streams_cuts {
    unsigned long stalled, too_long;
} http_streams_cuts;
http_streams_cuts http_streams_cut(http_streams *p);

/* Why http_stream_open refused. */
typedef enum http_stream_refusal {
    HTTP_STREAM_OPENED,
    HTTP_STREAM_KEY_FULL, /* max_per_key streams of key are open */
    HTTP_STREAM_FULL,     /* max_streams are open */
    HTTP_STREAM_CLOSED,   /* the server is stopping */
    HTTP_STREAM_NO_MEMORY
} http_stream_refusal;

/*
 * A new stream for r's connection, counted under key (a token's id,
 * copied) of which max_per_key may be open, with the producer's user data
 * user and its first bytes first (copied; sent as soon as the headers, so
 * that the client sees the response begin).  Hand it to
 * http_reply_stream.  NULL, with *why, when refused: user stays the
 * caller's.
 */
http_stream *http_stream_open(http_streams *p, http_request *r, const char *key,
                              int max_per_key, void *user, const char *first,
                              http_stream_refusal *why);

/* How a kind of stream is named when one is refused: what a key holds
 * too many of ("event streams open"), the problem code when the service
 * is full, the seconds of Retry-After of each, and whose key it is, with
 * its verb ("the shared links have"; NULL: "this token has"). */
typedef struct http_stream_kind {
    const char *what;
    const char *full_code;
    int retry_key, retry_full;
    const char *holder;
} http_stream_kind;

/* Answers r for a stream refused (why): 429 too_many_streams when its key
 * has max_per_key open, 503 kind->full_code when the service is full, 503
 * service_stopping while it stops, 500 out_of_memory. */
void http_stream_refuse(http_request *r, http_stream_refusal why,
                        const http_stream_kind *kind, int max_per_key);

/* Whether http_stream_open would open a stream of key now: why not, or
 * HTTP_STREAM_OPENED (a HEAD answers as its GET would). */
http_stream_refusal http_streams_check(http_streams *p, const char *key,
                                       int max_per_key);

/* libmicrohttpd's content reader and free callback of a stream's response
 * (cls: the stream).  http_stream_release also ends a stream whose
 * response was never made. */
ssize_t http_stream_read(void *cls, uint64_t pos, char *buf, size_t max);
void http_stream_release(void *cls);

/* ---- for the producer, inside its work callback ---- */

/* The stream's user data (borrowed). */
void *http_stream_user(const http_stream *s);
/* Bytes the stream may take before buffer_limit; 0 when it is full or
 * has ended. */
size_t http_stream_room(http_stream *s);
/* Appends len bytes (past buffer_limit too); false when the stream has
 * ended (or memory ran out: the stream then ends). */
bool http_stream_write(http_stream *s, const char *data, size_t len);
/* Ends s: what it holds is still sent, then its body ends. */
void http_stream_end(http_stream *s);
/* The producer has more for s: its work runs again once s has sent half
 * of its buffer. */
void http_stream_want(http_stream *s);

#endif
