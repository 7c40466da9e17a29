/*
 * bare.c: the baseline of `make bench`: a libmicrohttpd server that answers
 * every request with the same small JSON body and does nothing else.
 *
 *   bench-bare PORT [THREADS [PER_IP_LIMIT]]
 *
 * PORT 0 takes any free port.  Once listening it prints one line,
 * "bench-bare listening on http://127.0.0.1:PORT", on stdout, then nothing
 * per request; SIGTERM or SIGINT stops it cleanly.
 *
 * It is configured exactly as the real server's daemon (start_daemon() in
 * server/http/http.c, with umpire's defaults) so that the ratio of the two
 * measures umpire's own work, not a different setup:
 *   - the same flags: internal polling thread, epoll (MHD_USE_AUTO),
 *     suspend/resume, inter-thread communication and no listening socket
 *     of libmicrohttpd's own: the server's (server/http/http_listen.c)
 *     accepts and hands each connection over, spreading them evenly over
 *     the workers;
 *   - a thread pool of THREADS (2, umpire's --threads);
 *   - connection timeout 30 s, connection limit 1024 (kept by the
 *     accepting thread, as the server's), per-IP connection
 *     limit PER_IP_LIMIT (256, umpire's --per-ip-connection-limit; 0 for
 *     none), as umpire's defaults;
 *   - the same per-connection memory pool: MHD_OPTION_CONNECTION_MEMORY_LIMIT
 *     at HTTP_CONNECTION_MEMORY (http.h).  A larger pool here would be
 *     zeroed on every request and make the ceiling lower than it is
 *     (PERF.md);
 *   - the headers umpire sends on a JSON answer (http_reply.c add_headers:
 *     Content-Type, Cache-Control, X-Content-Type-Options, the policy
 *     headers and Vary);
 *   - the response queued on the second call of the access handler, not the
 *     first (queueing on the first makes libmicrohttpd close the connection).
 * What umpire does in its callbacks (the connection table, the completed
 * callback, the URI log) is umpire's own work, so the bare server has none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "http.h"        /* HTTP_CONNECTION_MEMORY, HTTP_DEFAULT_* */
#include "http_listen.h" /* the server's listening socket and accepting */

/* umpire's default --connection-limit. */
#define CONNECTION_LIMIT ((unsigned)HTTP_DEFAULT_CONNECTION_LIMIT)

static const char BODY[] = "{\"status\":\"ok\"}";

/* The one response, shared by every request (libmicrohttpd counts its
 * references; it never changes). */
static struct MHD_Response *response;

/* Distinct from NULL: marks a connection whose first call has been seen. */
static int seen;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)cls;
    (void)url;
    (void)method;
    (void)version;
    (void)upload;
    if (*con_cls == NULL) {
        *con_cls = &seen;
        return MHD_YES;
    }
    if (*upload_size > 0) {
        *upload_size = 0; /* a body is read and ignored */
        return MHD_YES;
    }
    return MHD_queue_response(conn, MHD_HTTP_OK, response);
}

static int parse_num(const char *s, long lo, long hi, long *out)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(s, &end, 10);
    if (errno || end == s || *end || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

int main(int argc, char **argv)
{
    struct sockaddr_storage ss;
    struct sockaddr_in *addr = (struct sockaddr_in *)&ss;
    struct MHD_Daemon *d;
    http_listener *listener;
    sigset_t sigs;
    long port, threads = 2, per_ip = HTTP_DEFAULT_PER_IP_LIMIT;
    int sig, bound_port;

    if (argc < 2 || argc > 4 || parse_num(argv[1], 0, 65535, &port) ||
        (argc >= 3 && parse_num(argv[2], 1, 64, &threads)) ||
        (argc == 4 && parse_num(argv[3], 0, 1000000, &per_ip))) {
        fprintf(stderr, "usage: bench-bare PORT [THREADS [PER_IP_LIMIT]]\n");
        return 2;
    }
    memset(&ss, 0, sizeof ss);
    addr->sin_family = AF_INET;
    addr->sin_port = htons((uint16_t)port);
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    response = MHD_create_response_from_buffer(sizeof BODY - 1, (void *)BODY,
                                               MHD_RESPMEM_PERSISTENT);
    if (response == NULL ||
        MHD_add_response_header(response, "Content-Type", "application/json") !=
            MHD_YES ||
        MHD_add_response_header(response, "Cache-Control", "no-store") !=
            MHD_YES ||
        MHD_add_response_header(response, "X-Content-Type-Options",
                                "nosniff") != MHD_YES ||
        MHD_add_response_header(response, "Content-Security-Policy",
                                "default-src 'none'; frame-ancestors 'none'") !=
            MHD_YES ||
        MHD_add_response_header(response, "X-Frame-Options", "DENY") !=
            MHD_YES ||
        MHD_add_response_header(response, "Referrer-Policy", "no-referrer") !=
            MHD_YES ||
        MHD_add_response_header(response, "Vary", "Accept") != MHD_YES) {
        fprintf(stderr, "bench-bare: cannot build the response\n");
        return 1;
    }

    /* Stop signals go to sigwait below, not to the daemon's threads. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (!http_listener_open(&ss, &listener, &bound_port)) {
        fprintf(stderr, "bench-bare: cannot listen on 127.0.0.1 port %ld: %s\n",
                port, strerror(errno));
        MHD_destroy_response(response);
        return 1;
    }
    d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
            MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET,
        0, NULL, NULL, on_request, NULL, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)threads, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)HTTP_DEFAULT_CONNECTION_TIMEOUT, MHD_OPTION_CONNECTION_LIMIT,
        http_listen_daemon_limit(CONNECTION_LIMIT, (unsigned)threads),
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)per_ip,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONNECTION_MEMORY,
        MHD_OPTION_NOTIFY_CONNECTION, http_listener_on_notify, listener,
        MHD_OPTION_END);
    if (d == NULL || !http_listener_start(listener, d, CONNECTION_LIMIT)) {
        fprintf(stderr, "bench-bare: cannot start its threads\n");
        http_listener_stop(listener);
        if (d != NULL)
            MHD_stop_daemon(d);
        http_listener_free(listener);
        MHD_destroy_response(response);
        return 1;
    }
    printf("bench-bare listening on http://127.0.0.1:%d (%ld threads, "
           "%ld connections per IP)\n",
           bound_port, threads, per_ip);
    fflush(stdout);

    sigwait(&sigs, &sig);
    http_listener_stop(listener);
    MHD_stop_daemon(d);
    http_listener_free(listener);
    MHD_destroy_response(response);
    return 0;
}
