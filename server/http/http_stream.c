/*
 * http_stream.c: streamed responses and their pump; see http_stream.h.
 *
 * Invariants, all under p->lock: a stream is in p->head's list from
 * http_stream_open until the pump reaps it (is_gone: libmicrohttpd has
 * freed its response, or none was made); only the pump thread unlinks and
 * frees one, so the pointers the producer is given stay valid for its
 * turn.  is_suspended is set by the content reader as it suspends the
 * connection and cleared by the pump as it resumes it: a connection is
 * resumed exactly once per suspension, and never after it is gone (a
 * suspended connection cannot be closed but by the pump's resuming it).
 * A stream that has ended is never suspended again.
 *
 * Linux: POLLRDHUP (the peer's hang-up) and eventfd (the pump's wake-up).
 */
#define _GNU_SOURCE /* POLLRDHUP */
#include "http_stream.h"

#include "deadline.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#define KEY_MAX DB_ID_MAX

struct http_stream {
    http_streams *pump;
    struct MHD_Connection *conn; /* borrowed from libmicrohttpd */
    int fd;                      /* its socket (borrowed), polled while
                                    suspended; -1 when unknown */
    char key[KEY_MAX];           /* what max_per_key counts */
    void *user;                  /* the producer's (gone frees it) */
    char *buf;                   /* bytes to send: buf[off..len) */
    size_t off, len, cap;
    double opened;       /* monotonic seconds: http_stream_open */
    double last_write;   /* the same: bytes last appended */
    double window_start; /* the same: its stall window began (stall_ms) */
    size_t window_taken; /* bytes the client took in that window */
    bool is_suspended;   /* by the reader; resumed by the pump */
    bool is_ended;       /* no more bytes: the body ends once buf is sent */
    bool is_hung_up;     /* the client left: the reader ends it at once */
    bool is_wanting;     /* the producer has more once there is room */
    bool is_gone;        /* the response is freed: the pump reaps it */
    http_stream *next;
};

struct http_streams {
    http_streams_config cfg;
    http_streams_producer producer;
    pthread_mutex_t lock;
    pthread_cond_t flushed; /* a pump pass has resumed what it should */
    pthread_t thread;
    bool has_thread;
    int wake_fd;            /* eventfd: the pump's poll wakes on it */
    http_stream *head;      /* every stream, newest first */
    int n_open;             /* of them, not gone */
    bool has_work;          /* the producer is due a turn */
    bool is_closing;        /* http_streams_close_all: no new streams */
    bool is_stopping;       /* http_streams_free: the pump ends */
    unsigned long n_passes; /* pump passes done (flushed's) */
    http_streams_cuts cuts; /* streams cut so far, by why */
    /* The lines cut wrote under the lock, for the log once it is let go
     * (a blocked stderr must not hold every stream); more are dropped. */
    char cut_log[8][192];
    size_t n_cut_log;
    /* The pump thread's own. */
    http_stream **snap;   /* the streams given to the producer */
    struct pollfd *fds;   /* [0] the wake-up, then suspended streams' */
    http_stream **polled; /* the stream of each fds[i], i >= 1 */
    size_t cap;
};

/* Wakes the pump's poll; p->lock need not be held. */
static void wake(http_streams *p)
{
    uint64_t one = 1;

    if (write(p->wake_fd, &one, sizeof one) < 0 && errno != EAGAIN)
        return; /* a full counter wakes the pump anyway */
}

void http_streams_wake(void *arg)
{
    http_streams *p = arg;

    pthread_mutex_lock(&p->lock);
    p->has_work = true;
    pthread_mutex_unlock(&p->lock);
    wake(p);
}

http_streams_cuts http_streams_cut(http_streams *p)
{
    http_streams_cuts n;

    pthread_mutex_lock(&p->lock);
    n = p->cuts;
    pthread_mutex_unlock(&p->lock);
    return n;
}

int http_streams_count(http_streams *p)
{
    int n;

    if (p == NULL)
        return 0;
    pthread_mutex_lock(&p->lock);
    n = p->n_open;
    pthread_mutex_unlock(&p->lock);
    return n;
}

/* ---- one stream ---- */

/* Appends under p->lock; false when out of memory. */
static bool append(http_stream *s, const char *data, size_t len)
{
    if (s->off > 0 && s->len + len > s->cap) {
        memmove(s->buf, s->buf + s->off, s->len - s->off);
        s->len -= s->off;
        s->off = 0;
    }
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? s->cap : 1024;
        char *grown;
        while (cap < s->len + len)
            cap *= 2;
        if ((grown = realloc(s->buf, cap)) == NULL)
            return false;
        s->buf = grown;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, len);
    if (s->len == s->off) {
        /* Something to take from now on: a window of its own. */
        s->window_start = monotonic_s();
        s->window_taken = 0;
    }
    s->len += len;
    s->last_write = monotonic_s();
    return true;
}

/* Ends s under p->lock: what it holds is still sent, unless the client
 * has left (is_hung_up), when it is dropped. */
static void end(http_stream *s, bool is_hung_up)
{
    s->is_ended = true;
    s->is_wanting = false;
    if (is_hung_up) {
        s->is_hung_up = true;
        s->off = s->len = 0;
    }
}

/* Whether p can take one more stream of key; why not into *why. */
static bool has_room(http_streams *p, const char *key, int max_per_key,
                     http_stream_refusal *why)
{
    const http_stream *s;
    int n = 0;

    if (p->is_closing) {
        *why = HTTP_STREAM_CLOSED;
        return false;
    }
    if (p->n_open >= p->cfg.max_streams) {
        *why = HTTP_STREAM_FULL;
        return false;
    }
    for (s = p->head; s; s = s->next)
        n += !s->is_gone && strcmp(s->key, key) == 0;
    if (n >= max_per_key) {
        *why = HTTP_STREAM_KEY_FULL;
        return false;
    }
    return true;
}

http_stream_refusal http_streams_check(http_streams *p, const char *key,
                                       int max_per_key)
{
    http_stream_refusal why = HTTP_STREAM_OPENED;

    pthread_mutex_lock(&p->lock);
    has_room(p, key, max_per_key, &why);
    pthread_mutex_unlock(&p->lock);
    return why;
}

http_stream *http_stream_open(http_streams *p, http_request *r, const char *key,
                              int max_per_key, void *user, const char *first,
                              http_stream_refusal *why)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    http_stream *s = calloc(1, sizeof *s);

    *why = HTTP_STREAM_NO_MEMORY;
    if (s == NULL)
        return NULL;
    s->pump = p;
    s->conn = r->conn;
    s->fd = ci ? ci->connect_fd : -1;
    s->opened = s->window_start = monotonic_s();
    snprintf(s->key, sizeof s->key, "%s", key);
    s->user = user;
    if (!append(s, first, strlen(first))) {
        free(s);
        return NULL;
    }
    pthread_mutex_lock(&p->lock);
    if (!has_room(p, key, max_per_key, why)) {
        pthread_mutex_unlock(&p->lock);
        free(s->buf);
        free(s);
        return NULL;
    }
    s->next = p->head;
    p->head = s;
    p->n_open++;
    p->has_work = true;
    pthread_mutex_unlock(&p->lock);
    wake(p);
    *why = HTTP_STREAM_OPENED;
    return s;
}

ssize_t http_stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    http_stream *s = cls;
    http_streams *p = s->pump;
    bool is_wake = false;
    ssize_t n = 0;

    (void)pos;
    pthread_mutex_lock(&p->lock);
    if (s->len > s->off) {
        size_t k = s->len - s->off < max ? s->len - s->off : max;
        memcpy(buf, s->buf + s->off, k);
        s->off += k;
        s->window_taken += k;
        if (s->off == s->len)
            s->off = s->len = 0;
        n = (ssize_t)k;
        if (s->is_wanting && s->len - s->off <= p->cfg.buffer_limit / 2) {
            s->is_wanting = false;
            p->has_work = is_wake = true;
        }
    } else if (s->is_ended) {
        n = s->is_hung_up ? MHD_CONTENT_READER_END_WITH_ERROR
                          : MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        /* Nothing to send: give the worker back until the pump resumes
         * the connection (http_stream.h); the pump now polls its socket
         * and times its keep-alive. */
        s->is_suspended = true;
        MHD_suspend_connection(s->conn);
        is_wake = true;
    }
    pthread_mutex_unlock(&p->lock);
    if (is_wake)
        wake(p);
    return n;
}

void http_stream_release(void *cls)
{
    http_stream *s = cls;
    http_streams *p;

    if (s == NULL)
        return;
    p = s->pump;
    pthread_mutex_lock(&p->lock);
    if (s->is_gone) {
        pthread_mutex_unlock(&p->lock);
        return;
    }
    end(s, true);
    s->is_gone = true;
    s->conn = NULL;
    s->fd = -1;
    p->n_open--;
    pthread_mutex_unlock(&p->lock);
    wake(p);
}

void *http_stream_user(const http_stream *s)
{
    return s->user;
}

size_t http_stream_room(http_stream *s)
{
    http_streams *p = s->pump;
    size_t held, room;

    pthread_mutex_lock(&p->lock);
    held = s->len - s->off;
    room = s->is_ended || held >= p->cfg.buffer_limit
               ? 0
               : p->cfg.buffer_limit - held;
    pthread_mutex_unlock(&p->lock);
    return room;
}

bool http_stream_write(http_stream *s, const char *data, size_t len)
{
    http_streams *p = s->pump;
    bool ok;

    pthread_mutex_lock(&p->lock);
    ok = !s->is_ended && append(s, data, len);
    if (!ok)
        end(s, false);
    pthread_mutex_unlock(&p->lock);
    return ok;
}

void http_stream_end(http_stream *s)
{
    http_streams *p = s->pump;

    pthread_mutex_lock(&p->lock);
    end(s, false);
    pthread_mutex_unlock(&p->lock);
}

void http_stream_want(http_stream *s)
{
    http_streams *p = s->pump;
    bool is_wake = false;

    pthread_mutex_lock(&p->lock);
    if (s->is_ended) {
        /* nothing more will be sent */
    } else if (s->len - s->off <= p->cfg.buffer_limit / 2) {
        /* The reader sent half already, before it was told: another
         * turn now, or none would come until the next wake-up. */
        p->has_work = is_wake = true;
    } else {
        s->is_wanting = true;
    }
    pthread_mutex_unlock(&p->lock);
    if (is_wake)
        wake(p);
}

/* ---- the pump ---- */

/* Room in the pump's arrays for n streams; false when out of memory. */
static bool reserve(http_streams *p, size_t n)
{
    size_t cap = p->cap ? p->cap : 16;
    http_stream **snap, **polled;
    struct pollfd *fds;

    if (n + 1 <= p->cap)
        return true;
    while (cap < n + 1)
        cap *= 2;
    snap = realloc(p->snap, cap * sizeof *snap);
    if (snap)
        p->snap = snap;
    polled = realloc(p->polled, cap * sizeof *polled);
    if (polled)
        p->polled = polled;
    fds = realloc(p->fds, cap * sizeof *fds);
    if (fds)
        p->fds = fds;
    if (snap == NULL || polled == NULL || fds == NULL)
        return false;
    p->cap = cap;
    return true;
}

/* Unlinks the streams that are gone and, without the lock, hands their
 * user data to the producer and frees them.  Holds p->lock on entry and
 * on return. */
static void reap(http_streams *p)
{
    http_stream **at = &p->head, *dead = NULL, *s;

    while ((s = *at) != NULL) {
        if (s->is_gone) {
            *at = s->next;
            s->next = dead;
            dead = s;
        } else {
            at = &s->next;
        }
    }
    if (dead == NULL)
        return;
    pthread_mutex_unlock(&p->lock);
    while ((s = dead) != NULL) {
        dead = s->next;
        p->producer.gone(p->producer.arg, s->user);
        free(s->buf);
        free(s);
    }
    pthread_mutex_lock(&p->lock);
}

/* The producer's turn, without the lock, over a snapshot of the streams.
 * Holds p->lock on entry and on return. */
static void produce(http_streams *p)
{
    http_stream *s;
    size_t n = 0;

    if (!p->has_work)
        return;
    p->has_work = false;
    for (s = p->head; s; s = s->next)
        n++;
    if (!reserve(p, n)) {
        p->has_work = true; /* try again on the next pass */
        return;
    }
    n = 0;
    for (s = p->head; s; s = s->next)
        if (!s->is_gone)
            p->snap[n++] = s;
    pthread_mutex_unlock(&p->lock);
    p->producer.work(p->producer.arg, p->snap, n);
    pthread_mutex_lock(&p->lock);
}

/* Bytes a client takes at least in a stall window (stall_ms) while half
 * its stream's buffer or more waits for it: about 1 KiB a second over a
 * minute's window. */
#define STALL_MIN_TAKEN (64 * 1024)

/* Cuts s, what it holds dropped, counted in *count.  The connection is
 * not gone (its response holds s), so its socket is still its own: shut,
 * libmicrohttpd closes it, and its free callback marks s gone (its
 * producer's data then freed).  Its line for the log says why (log_cuts
 * writes it). */
static void cut(http_streams *p, http_stream *s, unsigned long *count,
                const char *why)
{
    (*count)++;
    end(s, true);
    if (s->fd >= 0)
        shutdown(s->fd, SHUT_RDWR);
    if (p->n_cut_log < sizeof p->cut_log / sizeof p->cut_log[0])
        snprintf(p->cut_log[p->n_cut_log++], sizeof p->cut_log[0],
                 "umpire: cut one of the %s%s%s%s: %s\n",
                 p->cfg.name ? p->cfg.name : "streams", s->key[0] ? " (" : "",
                 s->key, s->key[0] ? ")" : "", why);
}

/* Writes the lines of the cuts since the last call, on the pump thread
 * without the lock (only it writes them). */
static void log_cuts(http_streams *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        fputs(p->cut_log[i], stderr);
}

/* At the end of s's stall window (s holding bytes): a client that took
 * less than STALL_MIN_TAKEN while half its buffer or more waited is cut;
 * otherwise a new window begins.  Returns next, or the window's end if
 * sooner. */
static double stall_check(http_streams *p, http_stream *s, double now,
                          double stall, double next)
{
    if (now - s->window_start >= stall) {
        if (s->len - s->off >= p->cfg.buffer_limit / 2 &&
            s->window_taken < STALL_MIN_TAKEN) {
            cut(p, s, &p->cuts.stalled, "its client read too slowly");
            return next;
        }
        s->window_start = now;
        s->window_taken = 0;
    }
    return next < 0 || s->window_start + stall < next ? s->window_start + stall
                                                      : next;
}

/* Keep-alives due, and every suspended stream with something to do
 * resumed; then the sockets to poll into p->fds (the wake-up first).
 * Returns how many, and the poll's timeout (ms, -1 none) in *timeout. */
static size_t flush(http_streams *p, double now, int *timeout)
{
    double ka = p->cfg.keepalive_ms / 1000.0, next = -1;
    double stall = p->cfg.stall_ms / 1000.0, max = p->cfg.max_ms / 1000.0;
    size_t n = 1, len = strlen(p->cfg.keepalive);
    http_stream *s;

    p->fds[0].fd = p->wake_fd;
    p->fds[0].events = POLLIN;
    for (s = p->head; s; s = s->next) {
        if (s->is_gone)
            continue;
        bool is_idle;

        /* A stream whose buffer is full is not idle: no keep-alive. */
        is_idle = !s->is_ended && s->len - s->off < p->cfg.buffer_limit;
        if (is_idle && now - s->last_write >= ka &&
            !append(s, p->cfg.keepalive, len))
            end(s, false);
        /* Running too long: cut.  One that has ended holds no snapshot
         * any more (its producer let it go first): its last bytes drain,
         * as slowly as the stall check lets them. */
        if (max > 0 && !s->is_ended) {
            if (now - s->opened >= max)
                cut(p, s, &p->cuts.too_long, "it ran past its time limit");
            else if (next < 0 || s->opened + max < next)
                next = s->opened + max;
        }
        if (stall > 0 && s->len > s->off)
            next = stall_check(p, s, now, stall, next);
        if (s->is_suspended && (s->len > s->off || s->is_ended)) {
            s->is_suspended = false;
            MHD_resume_connection(s->conn);
        }
        if (is_idle && !s->is_ended && (next < 0 || s->last_write + ka < next))
            next = s->last_write + ka;
        if (s->is_suspended && s->fd >= 0 && n < p->cap) {
            p->fds[n].fd = s->fd;
            p->fds[n].events = POLLRDHUP;
            p->polled[n++] = s;
        }
    }
    *timeout = next < 0 ? -1 : (int)((next - now) * 1000.0) + 1;
    p->n_passes++;
    pthread_cond_broadcast(&p->flushed);
    return n;
}

/* After the poll: the wake-up read, and the streams whose client left
 * ended (resumed by the next pass). */
static void after_poll(http_streams *p, size_t n)
{
    uint64_t count;
    size_t i;

    if (p->fds[0].revents & POLLIN) {
        if (read(p->wake_fd, &count, sizeof count) < 0 && errno != EAGAIN)
            p->has_work = true;
    }
    for (i = 1; i < n; i++)
        if (p->fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
            end(p->polled[i], true);
}

static void *pump_main(void *arg)
{
    http_streams *p = arg;
    int timeout;
    size_t n, n_log;

    /* The name ps, top -H and perf show. */
    (void)prctl(PR_SET_NAME, "umpire-stream");
    pthread_mutex_lock(&p->lock);
    while (!p->is_stopping) {
        reap(p);
        produce(p);
        /* Out of memory, it polls the sockets it has room for. */
        (void)reserve(p, (size_t)p->n_open);
        n = flush(p, monotonic_s(), &timeout);
        n_log = p->n_cut_log;
        p->n_cut_log = 0;
        pthread_mutex_unlock(&p->lock);
        log_cuts(p, n_log);
        if (poll(p->fds, (nfds_t)n, timeout) < 0 && errno != EINTR)
            usleep(10 * 1000);
        pthread_mutex_lock(&p->lock);
        after_poll(p, n);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

err_code http_streams_start(const http_streams_config *cfg,
                            const http_streams_producer *producer,
                            http_streams **out, err_info *e)
{
    http_streams *p = calloc(1, sizeof *p);

    *out = NULL;
    if (p == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    p->cfg = *cfg;
    p->producer = *producer;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->flushed, NULL);
    p->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (p->wake_fd < 0 || !reserve(p, 16) ||
        pthread_create(&p->thread, NULL, pump_main, p) != 0) {
        http_streams_free(p);
        return err_set(e, ERR_INTERNAL, NULL,
                       "cannot start the pump of event streams");
    }
    p->has_thread = true;
    *out = p;
    return ERR_OK;
}

void http_streams_close_all(http_streams *p)
{
    http_stream *s;
    unsigned long pass;

    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->is_closing = true;
    for (s = p->head; s; s = s->next)
        end(s, false);
    /* The pump's next pass (flush holds the lock) sees them ended and
     * resumes every suspended one. */
    pass = p->n_passes + 1;
    pthread_mutex_unlock(&p->lock);
    wake(p);
    pthread_mutex_lock(&p->lock);
    while (p->has_thread && p->n_passes < pass)
        pthread_cond_wait(&p->flushed, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void http_streams_free(http_streams *p)
{
    http_stream *s;

    if (p == NULL)
        return;
    if (p->has_thread) {
        pthread_mutex_lock(&p->lock);
        p->is_stopping = true;
        pthread_mutex_unlock(&p->lock);
        wake(p);
        pthread_join(p->thread, NULL);
    }
    /* The pump has stopped: its counts are final. */
    if (p->cuts.stalled + p->cuts.too_long > 0) {
        char limit[80] = "";
        if (p->cfg.max_ms > 0) /* only such streams have a time limit */
            snprintf(limit, sizeof limit,
                     ", %lu for running past their time limit",
                     p->cuts.too_long);
        fprintf(stderr,
                "umpire: %s cut since the start: %lu for a client reading "
                "too slowly%s\n",
                p->cfg.name ? p->cfg.name : "streams", p->cuts.stalled, limit);
    }
    /* libmicrohttpd has stopped: every response is freed, and no stream
     * can be suspended any more. */
    while ((s = p->head) != NULL) {
        p->head = s->next;
        p->producer.gone(p->producer.arg, s->user);
        free(s->buf);
        free(s);
    }
    if (p->wake_fd >= 0)
        close(p->wake_fd);
    pthread_cond_destroy(&p->flushed);
    pthread_mutex_destroy(&p->lock);
    free(p->snap);
    free(p->fds);
    free(p->polled);
    free(p);
}

void http_stream_refuse(http_request *r, http_stream_refusal why,
                        const http_stream_kind *kind, int max_per_key)
{
    char detail[160];

    if (why == HTTP_STREAM_KEY_FULL) {
        snprintf(detail, sizeof detail,
                 "%s %d %s already: close one, or retry later",
                 kind->holder ? kind->holder : "this token has", max_per_key,
                 kind->what);
        http_reply_problem_raw(r, 429, "too_many_streams", "Too many streams",
                               detail);
        r->retry_after = kind->retry_key;
    } else if (why == HTTP_STREAM_FULL) {
        snprintf(detail, sizeof detail,
                 "the service has as many %s as it takes; retry later",
                 kind->what);
        http_reply_problem_raw(r, 503, kind->full_code, "Service unavailable",
                               detail);
        r->retry_after = kind->retry_full;
    } else if (why == HTTP_STREAM_CLOSED) {
        http_reply_problem_raw(r, 503, "service_stopping",
                               "Service unavailable",
                               "the service is stopping; retry shortly");
    } else {
        http_reply_problem_raw(r, 500, "out_of_memory", "Internal error",
                               "out of memory");
    }
}
