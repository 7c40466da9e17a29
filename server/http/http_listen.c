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
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
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

struct http_listener {
    int fd;                    /* the listening socket */
    int stop_fd;               /* an eventfd: readable once stopping */
    struct MHD_Daemon *daemon; /* whom connections are handed to */
    unsigned limit;            /* the server's connection limit; 0: none */
    pthread_t thread;
    bool has_thread;
    atomic_ulong n_accepted;
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

/* Whether the daemon holds as many connections as its limit allows. */
static bool is_full(const http_listener *l)
{
    const union MHD_DaemonInfo *info;

    if (l->limit == 0)
        return false;
    info = MHD_get_daemon_info(l->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info != NULL && info->num_connections >= l->limit;
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
            return errno == EAGAIN || errno == EWOULDBLOCK;
        }
        atomic_fetch_add(&l->n_accepted, 1);
        /* libmicrohttpd owns c from here, closing it if it refuses it (the
         * per-IP limit, no memory). */
        (void)MHD_add_connection(l->daemon, c, (struct sockaddr *)&ss, len);
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
    if (workers < 1)
        workers = 1;
    if (connection_limit > UINT_MAX / workers)
        return UINT_MAX;
    return connection_limit * workers;
}

bool http_listener_start(http_listener *l, struct MHD_Daemon *d,
                         unsigned connection_limit)
{
    int rc;

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

    if (l == NULL)
        return;
    if (l->has_thread) {
        while (write(l->stop_fd, &one, sizeof one) < 0 && errno == EINTR)
            ;
        pthread_join(l->thread, NULL);
    }
    close(l->fd);
    close(l->stop_fd);
    free(l);
}
