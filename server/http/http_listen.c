/*
 * http_listen.c: the listening socket and its accepting thread; see
 * http_listen.h.
 */
#define _GNU_SOURCE /* accept4 */
#include "http_listen.h"

#include "deadline.h"

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
#include <sys/stat.h>
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

/* How often, at most, the thread looks for connections closed before
 * their worker took them up, while the server is full (is_full). */
#define SWEEP_MS 100

/* A connection handed over and not taken up yet: its socket's number and
 * what the socket is (fstat), so that one libmicrohttpd closed without a
 * word is told from whatever took its number since. */
typedef struct transit {
    int fd;
    dev_t dev;
    ino_t ino;
} transit;

struct http_listener {
    int fd;                    /* the listening socket */
    int stop_fd;               /* an eventfd: readable once stopping */
    struct MHD_Daemon *daemon; /* whom connections are handed to */
    unsigned limit;            /* the server's connection limit */
    pthread_t thread;
    bool has_thread;
    atomic_ulong n_accepted; /* accepted */
    atomic_ulong n_handed;   /* of those, taken by MHD_add_connection */
    atomic_ulong n_closed;   /* of those, taken up and closed since */
    /* Those handed over and not taken up yet (in transit), under
     * transit_lock: added by the thread, taken off by the worker that
     * takes one up, or by the thread once it finds one closed. */
    pthread_mutex_t transit_lock;
    transit *transit;
    size_t n_transit, cap_transit;
    /* The thread's own: connections closed before they were taken up,
     * and when it last looked for them (CLOCK_MONOTONIC, seconds). */
    unsigned long n_lost, n_untold; /* untold: not yet said on stderr */
    double swept_at, told_at;
    bool is_miscounted; /* said once: more closed or lost than handed */
    int last_errno; /* the error accept last failed with; 0 since it worked */
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
    pthread_mutex_init(&l->transit_lock, NULL);
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
    pthread_mutex_destroy(&l->transit_lock);
    free(l);
    errno = saved;
    return false;
}

/* Takes entry i off the connections in transit (transit_lock held). */
static void transit_drop(http_listener *l, size_t i)
{
    l->transit[i] = l->transit[--l->n_transit];
}

/* Whether the connection in transit t was closed before it was taken up:
 * its number no longer open, or open on something else. */
static bool is_gone(const transit *t)
{
    struct stat sb;

    return fstat(t->fd, &sb) != 0 || sb.st_dev != t->dev || sb.st_ino != t->ino;
}

/* Counts n more connections lost, and says so: at most a line a second
 * (those found meanwhile are told with the next). */
static void note_lost(http_listener *l, unsigned long n)
{
    double now;

    if (n == 0)
        return;
    l->n_lost += n;
    l->n_untold += n;
    now = monotonic_s();
    if (now - l->told_at < 1.0)
        return;
    fprintf(stderr,
            "umpire: %lu connections handed to the request workers were "
            "closed before they were taken up (no memory for them?); no "
            "longer counted\n",
            l->n_untold);
    l->n_untold = 0;
    l->told_at = now;
}

/* Counts as lost the connections in transit that are gone (transit_lock
 * not held). */
static void sweep(http_listener *l)
{
    unsigned long n = 0;
    size_t i;

    pthread_mutex_lock(&l->transit_lock);
    for (i = 0; i < l->n_transit;)
        if (is_gone(&l->transit[i])) {
            transit_drop(l, i);
            n++;
        } else {
            i++;
        }
    pthread_mutex_unlock(&l->transit_lock);
    note_lost(l, n);
}

/* Notes fd as handed over; false without memory for it (or when fstat
 * fails).  A connection in transit under the same number was closed
 * before it was taken up (the number was free to be given again): lost,
 * found here sooner than the next sweep would. */
static bool transit_add(http_listener *l, int fd)
{
    struct stat sb;
    bool is_added = false;
    unsigned long n_lost = 0;
    size_t i;

    if (fstat(fd, &sb) != 0)
        return false;
    pthread_mutex_lock(&l->transit_lock);
    for (i = 0; i < l->n_transit; i++)
        if (l->transit[i].fd == fd) {
            transit_drop(l, i);
            n_lost = 1;
            break;
        }
    if (l->n_transit == l->cap_transit) {
        size_t cap = l->cap_transit ? 2 * l->cap_transit : 64;
        transit *t = realloc(l->transit, cap * sizeof *t);
        if (t != NULL) {
            l->transit = t;
            l->cap_transit = cap;
        }
    }
    if (l->n_transit < l->cap_transit) {
        l->transit[l->n_transit++] = (transit){fd, sb.st_dev, sb.st_ino};
        is_added = true;
    }
    pthread_mutex_unlock(&l->transit_lock);
    note_lost(l, n_lost);
    return is_added;
}

/* Takes fd off the connections in transit (if there). */
static void transit_remove(http_listener *l, int fd)
{
    size_t i;

    pthread_mutex_lock(&l->transit_lock);
    for (i = 0; i < l->n_transit; i++)
        if (l->transit[i].fd == fd) {
            transit_drop(l, i);
            break;
        }
    pthread_mutex_unlock(&l->transit_lock);
}

/*
 * Whether the server holds as many connections as its limit allows,
 * counted here rather than asked of libmicrohttpd, whose count leaves out
 * the connections handed over that no worker has taken up yet (and, asked
 * from this thread, read 0 at times with every connection open): those
 * handed over, less those closed since, taken up or not.  Kept exactly,
 * the limit is never passed, so no worker is ever given a connection past
 * its share (each worker's share is more than the whole limit):
 * libmicrohttpd 0.9.75 refuses such a connection without letting go of a
 * lock, and the worker hangs for good.  A worker reports each connection
 * it takes up and each it closes; libmicrohttpd closes one it has no
 * memory for before it is taken up, without a word, so while the server
 * is full the thread looks at the connections in transit (every SWEEP_MS
 * at most) for any whose socket is gone.
 */
static unsigned long n_open(http_listener *l)
{
    unsigned long handed = atomic_load(&l->n_handed);
    unsigned long gone = atomic_load(&l->n_closed) + l->n_lost;

    /* Only this thread hands over and counts the lost, and a connection is
     * closed or lost only once handed over, so gone <= handed.  Were that
     * ever not so, the count would wrap and the thread accept nothing
     * again: it counts none open instead, and says so once. */
    if (gone <= handed)
        return handed - gone;
    if (!l->is_miscounted)
        fprintf(stderr,
                "umpire: connections: %lu closed or lost of %lu "
                "handed over; counting none open\n",
                gone, handed);
    l->is_miscounted = true;
    return 0;
}

static bool is_full(http_listener *l)
{
    double now;

    if (n_open(l) < l->limit)
        return false;
    now = monotonic_s();
    if (now - l->swept_at >= SWEEP_MS / 1000.0) {
        l->swept_at = now;
        sweep(l);
    }
    return n_open(l) >= l->limit;
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
        /* Noted in transit and counted before it is handed over: its
         * worker may take it up before MHD_add_connection returns. */
        if (!transit_add(l, c)) {
            close(c); /* its client sees it closed, and may retry */
            return false;
        }
        atomic_fetch_add(&l->n_handed, 1);
        /* libmicrohttpd owns c from here, closing it if it refuses it (the
         * per-IP limit, no memory), before any other connection can take
         * its number from this thread. */
        if (MHD_add_connection(l->daemon, c, (struct sockaddr *)&ss, len) !=
            MHD_YES) {
            transit_remove(l, c);
            atomic_fetch_sub(&l->n_handed, 1);
        }
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
    /* The whole limit, and a margin (is_full keeps the limit exactly). */
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
    const union MHD_ConnectionInfo *ci;

    (void)socket_context;
    if (l == NULL)
        return;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (ci != NULL)
            transit_remove(l, ci->connect_fd);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        atomic_fetch_add(&l->n_closed, 1);
    }
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
    pthread_mutex_destroy(&l->transit_lock);
    free(l->transit);
    free(l);
}
