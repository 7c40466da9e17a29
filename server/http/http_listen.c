/*
 * http_listen.c: the listening socket and its accepting thread; see
 * http_listen.h.
 */
#define _GNU_SOURCE /* accept4 */
#include "http_listen.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

/* Connections accepted in a row before the thread looks for a stop. */
#define ACCEPT_RUN 64
/* How long the thread waits before it looks again when libmicrohttpd
 * holds its connection limit, or the process or the system is out of
 * descriptors or memory: new connections wait in the backlog meanwhile, as
 * they do when libmicrohttpd accepts itself (it stops watching the
 * listening socket at its limit). */
#define BACKOFF_MS 10

/* After this long with connections handed over and none taken up, those
 * are taken for lost (see is_full). */
#define LOST_AFTER_S 2

struct http_listener {
    int fd;                    /* the listening socket */
    int stop_fd;               /* an eventfd: readable once stopping */
    struct MHD_Daemon *daemon; /* whom connections are handed to */
    unsigned limit;            /* the server's connection limit */
    unsigned long hard_limit;  /* what may be open or in transit, ever */
    pthread_t thread;
    bool has_thread;
    atomic_ulong n_accepted; /* accepted */
    atomic_ulong n_handed;   /* of those, taken by MHD_add_connection */
    atomic_ulong n_started;  /* of those, taken up by their worker */
    atomic_ulong n_closed;   /* of those, closed since */
    /* The accepting thread's own: connections it wrote off as lost
     * (is_full), and n_started when it was last seen to move while the
     * server was full with some in transit. */
    unsigned long n_lost, seen_started;
    bool is_waiting; /* full with some in transit, since seen_at */
    bool is_capped;  /* held at hard_limit (said once a spell) */
    double seen_at;  /* CLOCK_MONOTONIC, seconds */
    int last_errno;  /* the error accept last failed with; 0 since it worked */
};

bool http_listener_open(const struct sockaddr_storage *addr,
                        http_listener **out, int *port)
{
    socklen_t len = addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                : sizeof(struct sockaddr_in);
    struct sockaddr_storage bound;
    socklen_t bound_len = sizeof bound;
    http_listener *l;
    int on = 1, saved;

    *out = NULL;
    l = calloc(1, sizeof *l);
    if (l == NULL)
        return false;
    l->stop_fd = -1;
    /* Non-blocking: the thread accepts until the backlog is empty. */
    l->fd =
        socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0)
        goto fail;
    /* As libmicrohttpd does: a restart binds at once, past TIME_WAIT. */
    (void)setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (addr->ss_family == AF_INET6)
        (void)setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(l->fd, (const struct sockaddr *)addr, len) != 0 ||
        listen(l->fd, SOMAXCONN) != 0 ||
        getsockname(l->fd, (struct sockaddr *)&bound, &bound_len) != 0)
        goto fail;
    l->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (l->stop_fd < 0)
        goto fail;
    *port = ntohs(bound.ss_family == AF_INET6
                      ? ((struct sockaddr_in6 *)&bound)->sin6_port
                      : ((struct sockaddr_in *)&bound)->sin_port);
    *out = l;
    return true;
fail:
    saved = errno;
    if (l->fd >= 0)
        close(l->fd);
    if (l->stop_fd >= 0)
        close(l->stop_fd);
    free(l);
    errno = saved;
    return false;
}

/*
 * Whether the server holds as many connections as its limit allows,
 * counted here rather than asked of libmicrohttpd, whose count leaves out
 * the connections handed over that no worker has taken up yet (and, asked
 * from this thread, read 0 at times with every connection open): those
 * handed over, less those closed since and those written off as lost.
 * Kept exactly, the limit is never passed, so no worker is ever given a
 * connection past its share (each worker's share is more than the whole
 * limit): libmicrohttpd 0.9.75 refuses such a connection without letting
 * go of a lock, and the worker hangs for good.  A connection handed over
 * can be dropped before its worker takes it up (no memory for its pool),
 * and then is never reported closed: with some handed over and not taken
 * up, and none taken up for LOST_AFTER_S while the server is full, those
 * are written off.  Written off or not, no more is handed over while
 * hard_limit (a worker's share, http_listen_daemon_limit) are open or in
 * transit: a worker held for long enough to see write-offs again and again
 * would otherwise be handed past its share.
 */
static bool is_full(http_listener *l)
{
    unsigned long handed, started, closed, in_transit;
    struct timespec ts;
    double now;

    /* Only this thread hands over, and a connection is reported closed
     * only once taken up: read in this order, closed <= started <=
     * handed. */
    handed = atomic_load(&l->n_handed);
    closed = atomic_load(&l->n_closed);
    started = atomic_load(&l->n_started);
    if (started + l->n_lost > handed) /* written off, then taken up late */
        l->n_lost = handed - started;
    /* Never past a worker's share, whatever was written off: a worker
     * holds at most what was handed over and not closed. */
    if (handed - closed >= l->hard_limit) {
        if (!l->is_capped)
            fprintf(stderr,
                    "umpire: connections: %lu open and %lu handed to the "
                    "request workers, not taken up: no more are accepted "
                    "until some close\n",
                    started - closed, handed - started);
        l->is_capped = true;
        return true;
    }
    l->is_capped = false;
    in_transit = handed - l->n_lost - started;
    if (handed - l->n_lost - closed < l->limit || in_transit == 0) {
        l->is_waiting = false;
        return handed - l->n_lost - closed >= l->limit;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    if (!l->is_waiting || started != l->seen_started) {
        /* Full with some in transit: from now, or since one was last
         * taken up. */
        l->is_waiting = true;
        l->seen_started = started;
        l->seen_at = now;
    } else if (now - l->seen_at >= LOST_AFTER_S) {
        fprintf(stderr,
                "umpire: %lu connections handed to the request workers were "
                "not taken up in %d s; no longer counted towards the "
                "connection limit (still towards a worker's share)\n",
                in_transit, LOST_AFTER_S);
        l->n_lost += in_transit;
        l->is_waiting = false;
        return handed - l->n_lost - closed >= l->limit;
    }
    return true;
}

/*
 * Accepts what is waiting, up to ACCEPT_RUN connections, while the daemon
 * has room; false when the thread should wait a while first (the daemon
 * full; out of descriptors or memory, or an error that would repeat at
 * once).
 */
static bool accept_some(http_listener *l)
{
    int i;

    for (i = 0; i < ACCEPT_RUN; i++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        int c;

        if (is_full(l))
            return false;
        c = accept4(l->fd, (struct sockaddr *)&ss, &len,
                    SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
                continue; /* that client left; the next one may not have */
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return true;
            if (errno != l->last_errno) /* once a spell, not each retry */
                fprintf(stderr,
                        "umpire: cannot accept connections (%s); "
                        "retrying every %d ms\n",
                        strerror(errno), BACKOFF_MS);
            l->last_errno = errno;
            return false;
        }
        l->last_errno = 0;
        atomic_fetch_add(&l->n_accepted, 1);
        /* Counted before it is handed over: its worker may take it up (and
         * count it started) before MHD_add_connection returns.
         * libmicrohttpd owns c from here, closing it if it refuses it (the
         * per-IP limit, no memory). */
        atomic_fetch_add(&l->n_handed, 1);
        if (MHD_add_connection(l->daemon, c, (struct sockaddr *)&ss, len) !=
            MHD_YES)
            atomic_fetch_sub(&l->n_handed, 1);
    }
    return true;
}

static void *accept_main(void *arg)
{
    http_listener *l = arg;
    struct pollfd fds[2] = {{l->fd, POLLIN, 0}, {l->stop_fd, POLLIN, 0}};
    bool is_backing_off = false;

    /* The name ps, top -H and perf show. */
    (void)prctl(PR_SET_NAME, "umpire-accept");
    for (;;) {
        /* Backing off, only the stop is watched: the backlog is still
         * readable. */
        int n =
            is_backing_off ? poll(&fds[1], 1, BACKOFF_MS) : poll(fds, 2, -1);

        if (n < 0)
            continue; /* EINTR */
        if (fds[1].revents != 0)
            break;
        is_backing_off = !accept_some(l);
    }
    return NULL;
}

unsigned http_listen_daemon_limit(unsigned connection_limit, unsigned workers)
{
    unsigned share;

    if (workers < 1)
        workers = 1;
    /* The whole limit, and more than is ever in transit once connections
     * are written off as lost (is_full). */
    if (connection_limit > (UINT_MAX - ACCEPT_RUN) / 2)
        return UINT_MAX;
    share = 2 * connection_limit + ACCEPT_RUN;
    if (share > UINT_MAX / workers)
        return UINT_MAX;
    return share * workers;
}

void http_listener_on_notify(void *cls, struct MHD_Connection *c,
                             void **socket_context,
                             enum MHD_ConnectionNotificationCode code)
{
    http_listener *l = cls;

    (void)c, (void)socket_context;
    if (l == NULL)
        return;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        atomic_fetch_add(&l->n_started, 1);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
        atomic_fetch_add(&l->n_closed, 1);
}

bool http_listener_start(http_listener *l, struct MHD_Daemon *d,
                         unsigned connection_limit)
{
    int rc;

    if (connection_limit == 0) {
        errno = EINVAL;
        return false;
    }
    l->daemon = d;
    l->limit = connection_limit;
    l->hard_limit = http_listen_daemon_limit(connection_limit, 1);
    rc = pthread_create(&l->thread, NULL, accept_main, l);
    if (rc != 0) {
        errno = rc;
        return false;
    }
    l->has_thread = true;
    return true;
}

unsigned long http_listener_accepted(const http_listener *l)
{
    return atomic_load(&l->n_accepted);
}

void http_listener_stop(http_listener *l)
{
    uint64_t one = 1;

    if (l == NULL || l->fd < 0)
        return;
    if (l->has_thread) {
        while (write(l->stop_fd, &one, sizeof one) < 0 && errno == EINTR)
            ;
        pthread_join(l->thread, NULL);
        l->has_thread = false;
    }
    close(l->fd);
    l->fd = -1;
}

void http_listener_free(http_listener *l)
{
    if (l == NULL)
        return;
    http_listener_stop(l);
    close(l->stop_fd);
    free(l);
}
