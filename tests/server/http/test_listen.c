/*
 * test_listen.c: the listening socket and its accepting thread
 * (server/http/http_listen.c), over a libmicrohttpd daemon of the test's
 * own that answers every request with "ok" and notes the worker thread
 * that answered.
 */
#include <check.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "http_listen.h"
#include "suites.h"

#define MAX_SEEN 64

/* The worker threads that answered, in the order they did. */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t seen[MAX_SEEN];
static int n_seen;

/* A request for /block waits in its handler, holding its worker, until
 * the test lets it go; its connection's socket number meanwhile. */
static pthread_mutex_t block_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t block_cond = PTHREAD_COND_INITIALIZER;
static bool is_blocked, is_released;
static int blocked_fd = -1;
static pthread_t blocked_thread;

static void hold_worker(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 25; /* never for ever (a test takes 30 s at most) */
    pthread_mutex_lock(&block_lock);
    blocked_fd = ci != NULL ? ci->connect_fd : -1;
    blocked_thread = pthread_self();
    is_blocked = true;
    pthread_cond_broadcast(&block_cond);
    while (!is_released &&
           pthread_cond_timedwait(&block_cond, &block_lock, &until) == 0)
        ;
    pthread_mutex_unlock(&block_lock);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn,
                              const char *url, const char *method,
                              const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    static const char body[] = "ok";
    struct MHD_Response *r;
    enum MHD_Result rc;

    (void)cls, (void)method, (void)version, (void)upload;
    (void)upload_size;
    if (*con_cls == NULL) { /* the first call: headers only */
        *con_cls = (void *)body;
        return MHD_YES;
    }
    if (strcmp(url, "/block") == 0)
        hold_worker(conn);
    pthread_mutex_lock(&seen_lock);
    if (n_seen < MAX_SEEN)
        seen[n_seen++] = pthread_self();
    pthread_mutex_unlock(&seen_lock);
    r = MHD_create_response_from_buffer(sizeof body - 1, (void *)body,
                                        MHD_RESPMEM_PERSISTENT);
    rc = MHD_queue_response(conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

/* The rig's connection notification: the listener's, but for the
 * connection after swallow_next is set, whose start and close the
 * listener never hears of, as of one libmicrohttpd closes before its
 * worker takes it up (no memory for it). */
static pthread_mutex_t swallow_lock = PTHREAD_MUTEX_INITIALIZER;
static bool swallow_next;
static struct MHD_Connection *swallowed;
static int swallowed_fd = -1; /* its socket, the server's end */

static void rig_notify(void *cls, struct MHD_Connection *c,
                       void **socket_context,
                       enum MHD_ConnectionNotificationCode code)
{
    bool is_swallowed;

    pthread_mutex_lock(&swallow_lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED && swallow_next) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        swallow_next = false;
        swallowed = c;
        swallowed_fd = ci != NULL ? ci->connect_fd : -1;
    }
    is_swallowed = c == swallowed;
    if (is_swallowed && code == MHD_CONNECTION_NOTIFY_CLOSED)
        swallowed = NULL;
    pthread_mutex_unlock(&swallow_lock);
    if (!is_swallowed)
        http_listener_on_notify(cls, c, socket_context, code);
}

/* libmicrohttpd's per-IP connection limit for the next rig (0: none). */
static unsigned rig_per_ip;

typedef struct rig {
    struct MHD_Daemon *d;
    http_listener *l;
    int port;
    int family;
} rig;

/* A daemon of `threads` workers (1: libmicrohttpd's single thread) and at
 * most `limit` connections, listening on addr's loopback address through
 * http_listen.c; false where the system has no such address (IPv6). */
static bool rig_start(rig *g, int family, unsigned threads, unsigned limit)
{
    struct sockaddr_storage ss;

    memset(&ss, 0, sizeof ss);
    memset(g, 0, sizeof *g);
    n_seen = 0;
    swallow_next = false;
    swallowed = NULL;
    swallowed_fd = -1;
    g->family = family;
    ss.ss_family = (sa_family_t)family;
    if (family == AF_INET6)
        ((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
    else
        ((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (!http_listener_open(&ss, &g->l, &g->port)) {
        ck_assert_msg(family == AF_INET6, "listen: %s", strerror(errno));
        return false;
    }
    ck_assert_int_gt(g->port, 0);
    g->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC |
            MHD_USE_NO_LISTEN_SOCKET,
        0, NULL, NULL, answer, NULL, MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, http_listen_daemon_limit(limit, threads),
        MHD_OPTION_NOTIFY_CONNECTION, rig_notify, g->l,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, rig_per_ip, MHD_OPTION_END);
    ck_assert_ptr_nonnull(g->d);
    ck_assert(http_listener_start(g->l, g->d, limit));
    return true;
}

static void rig_stop(rig *g)
{
    http_listener_stop(g->l);
    MHD_stop_daemon(g->d);
    http_listener_free(g->l);
}

static int rig_socket(const rig *g)
{
    int fd = socket(g->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

    ck_assert_int_ge(fd, 0);
    return fd;
}

/* fd (rig_socket's) connected to the rig. */
static int rig_connect_fd(const rig *g, int fd)
{
    struct sockaddr_storage ss;
    socklen_t len;

    memset(&ss, 0, sizeof ss);
    if (g->family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        a->sin6_port = htons((uint16_t)g->port);
        len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a->sin_port = htons((uint16_t)g->port);
        len = sizeof *a;
    }
    ck_assert_msg(connect(fd, (struct sockaddr *)&ss, len) == 0, "connect: %s",
                  strerror(errno));
    return fd;
}

static int rig_connect(const rig *g)
{
    return rig_connect_fd(g, rig_socket(g));
}

static void send_get_path(int fd, const char *path)
{
    char req[128];
    int n =
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);

    ck_assert_int_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), (ssize_t)n);
}

static void send_get(int fd)
{
    send_get_path(fd, "/");
}

/* 1: an answer "ok" read within timeout_ms; 0: nothing yet; -1: the
 * connection closed first. */
static int read_answer(int fd, int timeout_ms)
{
    char buf[1024];
    size_t n = 0;

    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        ssize_t k;

        if (poll(&p, 1, timeout_ms) <= 0)
            return 0;
        k = recv(fd, buf + n, sizeof buf - 1 - n, 0);
        if (k <= 0)
            return -1;
        n += (size_t)k;
        buf[n] = '\0';
        if (strstr(buf, "\r\n\r\nok") != NULL) {
            ck_assert_msg(strncmp(buf, "HTTP/1.1 200", 12) == 0, "%s", buf);
            return 1;
        }
        ck_assert_uint_lt(n, sizeof buf - 1);
    }
}

/* A connection whose request for /block holds its worker (the rig's
 * first), once it is held; blocked_fd and blocked_thread say which. */
static int hold_a_worker(const rig *g)
{
    int fd = rig_connect(g);

    is_blocked = is_released = false;
    send_get_path(fd, "/block");
    pthread_mutex_lock(&block_lock);
    while (!is_blocked)
        pthread_cond_wait(&block_cond, &block_lock);
    pthread_mutex_unlock(&block_lock);
    return fd;
}

static void release_the_worker(void)
{
    pthread_mutex_lock(&block_lock);
    is_released = true;
    pthread_cond_broadcast(&block_cond);
    pthread_mutex_unlock(&block_lock);
}

/* A new connection to the rig is answered within timeout_ms. */
static void assert_served(const rig *g, int timeout_ms)
{
    int fd = rig_connect(g);

    send_get(fd);
    ck_assert_int_eq(read_answer(fd, timeout_ms), 1);
    close(fd);
}

/* waiting (its request sent) is not answered while the rig holds its
 * limit, n_accepted connections taken; once to_close closes, it is. */
static void assert_waits_until_closed(const rig *g, int waiting, int to_close,
                                      unsigned long n_accepted)
{
    ck_assert_int_eq(read_answer(waiting, 600), 0);
    ck_assert_uint_eq(http_listener_accepted(g->l), n_accepted);
    close(to_close);
    ck_assert_int_eq(read_answer(waiting, 3000), 1);
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether the rig has accepted n connections within timeout seconds. */
static bool wait_accepted(const rig *g, unsigned long n, double timeout)
{
    double end = now_s() + timeout;

    while (http_listener_accepted(g->l) < n)
        if (now_s() > end)
            return false;
        else
            usleep(10 * 1000);
    return true;
}

/* Whether a thread of this process is named name (/proc/self/task). */
static bool has_thread_named(const char *name)
{
    char path[64], comm[32];
    bool found = false;
    DIR *dir = opendir("/proc/self/task");
    struct dirent *de;

    ck_assert_ptr_nonnull(dir);
    while (!found && (de = readdir(dir)) != NULL) {
        FILE *f;

        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.16s/comm", de->d_name);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        if (fgets(comm, sizeof comm, f) != NULL) {
            comm[strcspn(comm, "\n")] = '\0';
            found = strcmp(comm, name) == 0;
        }
        fclose(f);
    }
    closedir(dir);
    return found;
}

/* Connections opened at once go to the workers in turn: of 12 on four
 * workers, each takes 3 (a socket number skipped by another open file
 * moves one at most: 2 to 4).  libmicrohttpd's own accepting gave one
 * worker all of a burst.  The clients' sockets are made first: they are
 * this process's too, and would take every other number. */
START_TEST(test_listen_spreads_over_workers)
{
    enum { N = 12, THREADS = 4 };
    pthread_t who[THREADS];
    int fds[N], count[THREADS] = {0}, n_who = 0, i, j;
    rig g;

    rig_start(&g, AF_INET, THREADS, 100);
    for (i = 0; i < N; i++)
        fds[i] = rig_socket(&g);
    for (i = 0; i < N; i++)
        rig_connect_fd(&g, fds[i]);
    for (i = 0; i < N; i++) {
        send_get(fds[i]);
        ck_assert_int_eq(read_answer(fds[i], 2000), 1);
    }
    ck_assert_int_eq(n_seen, N);
    for (i = 0; i < N; i++) {
        for (j = 0; j < n_who && !pthread_equal(who[j], seen[i]); j++)
            ;
        if (j == n_who) {
            ck_assert_int_lt(n_who, THREADS);
            who[n_who++] = seen[i];
        }
        count[j]++;
    }
    ck_assert_int_eq(n_who, THREADS);
    for (j = 0; j < THREADS; j++)
        ck_assert_msg(count[j] >= 2 && count[j] <= 4,
                      "a worker answered %d of %d", count[j], N);
    ck_assert_uint_eq(http_listener_accepted(g.l), N);
    /* The accepting thread is named for ps, top and gdb; gone once
     * stopped. */
    ck_assert(has_thread_named("umpire-accept"));
    for (i = 0; i < N; i++)
        close(fds[i]);
    rig_stop(&g);
    ck_assert(!has_thread_named("umpire-accept"));
}
END_TEST

/* At the connection limit a new connection waits, unanswered and not
 * closed, and is served once a connection closes. */
START_TEST(test_listen_waits_at_limit)
{
    int a, b, c;
    rig g;

    rig_start(&g, AF_INET, 2, 2);
    a = rig_connect(&g);
    b = rig_connect(&g);
    send_get(a);
    send_get(b);
    ck_assert_int_eq(read_answer(a, 2000), 1);
    ck_assert_int_eq(read_answer(b, 2000), 1);
    c = rig_connect(&g); /* the kernel's backlog takes it */
    send_get(c);
    assert_waits_until_closed(&g, c, a, 2);
    ck_assert_uint_eq(http_listener_accepted(g.l), 3);
    /* b still works. */
    send_get(b);
    ck_assert_int_eq(read_answer(b, 2000), 1);
    close(b);
    close(c);
    rig_stop(&g);
}
END_TEST

/*
 * Connections handed to one worker faster than it takes them up are all
 * served while the server has room.  libmicrohttpd counts a worker's
 * connections once it takes them up, and refuses one that then finds the
 * worker at its share of the limit: with the share its own (2 of 4 over
 * two workers), the third here was closed unanswered.  A request holds its
 * worker meanwhile, and the new connections' socket numbers are made to
 * name that worker (numbers of its parity left free, every other taken).
 */
START_TEST(test_listen_one_worker_takes_the_whole_limit)
{
    enum { N = 3, FILLERS = 40 };
    int a, fds[N], fillers[FILLERS], parity, i;
    rig g;

    rig_start(&g, AF_INET, 2, N + 1);
    a = hold_a_worker(&g);
    parity = blocked_fd % 2;
    ck_assert_int_ge(blocked_fd, 0);
    for (i = 0; i < N; i++)
        fds[i] = rig_socket(&g);
    for (i = 0; i < FILLERS; i++)
        ck_assert_int_ge(fillers[i] = open("/dev/null", O_RDONLY | O_CLOEXEC),
                         0);
    for (i = 0; i < FILLERS; i++)
        if (fillers[i] % 2 == parity) {
            close(fillers[i]);
            fillers[i] = -1;
        }
    for (i = 0; i < N; i++)
        rig_connect_fd(&g, fds[i]);
    while (http_listener_accepted(g.l) < N + 1)
        usleep(1000);
    release_the_worker();
    ck_assert_int_eq(read_answer(a, 2000), 1);
    for (i = 0; i < N; i++) {
        send_get(fds[i]);
        ck_assert_msg(read_answer(fds[i], 2000) == 1, "connection %d", i);
    }
    /* They went to the held worker, as the test means them to. */
    ck_assert_int_eq(n_seen, N + 1);
    for (i = 0; i < N + 1; i++)
        ck_assert(pthread_equal(seen[i], blocked_thread));
    for (i = 0; i < N; i++)
        close(fds[i]);
    for (i = 0; i < FILLERS; i++)
        if (fillers[i] >= 0)
            close(fillers[i]);
    close(a);
    rig_stop(&g);
}
END_TEST

/*
 * A burst of connections far past the limit: only the limit's worth is
 * taken (the rest wait in the backlog), and once they go the server still
 * answers.  Connections handed over and not yet taken up by a worker used
 * not to count: the thread took on more than the limit, and a worker given
 * one past its share hung for good (libmicrohttpd 0.9.75 keeps a lock when
 * it refuses one), with one, two or four workers.
 */
static const unsigned burst_threads[] = {1, 2, 4};

START_TEST(test_listen_burst_past_limit)
{
    enum { N = 100, LIMIT = 16 };
    int fds[N], i;
    rig g;

    rig_start(&g, AF_INET, burst_threads[_i], LIMIT);
    for (i = 0; i < N; i++)
        fds[i] = rig_connect(&g); /* the backlog takes each */
    ck_assert(wait_accepted(&g, LIMIT, 5.0));
    usleep(300 * 1000);
    ck_assert_uint_eq(http_listener_accepted(g.l), LIMIT);
    for (i = 0; i < N; i++)
        close(fds[i]);
    assert_served(&g, 5000);
    rig_stop(&g);
}
END_TEST

/*
 * A connection handed over counts towards the limit until its worker
 * takes it up and it closes, however long the worker takes: here the one
 * worker is held by a request for 3 s, with one handed over (in transit)
 * and one more waiting, at a limit of 2.  The one waiting is not taken
 * until the worker is let go and one of the two closes; then all three
 * are answered.
 */
START_TEST(test_listen_in_transit_counted_while_held)
{
    int a, b, c;
    rig g;

    rig_start(&g, AF_INET, 1, 2);
    a = hold_a_worker(&g);
    b = rig_connect(&g); /* handed over; the worker is held */
    ck_assert(wait_accepted(&g, 2, 5.0));
    c = rig_connect(&g);
    send_get(b);
    send_get(c);
    usleep(3000 * 1000);
    ck_assert_uint_eq(http_listener_accepted(g.l), 2);
    release_the_worker();
    ck_assert_int_eq(read_answer(a, 2000), 1);
    ck_assert_int_eq(read_answer(b, 2000), 1);
    close(a); /* room for c */
    ck_assert_int_eq(read_answer(c, 2000), 1);
    close(b);
    close(c);
    assert_served(&g, 2000);
    rig_stop(&g);
}
END_TEST

/*
 * A worker held with a backlog waiting: exactly the limit is handed over
 * (the held one among them), never more, whatever the wait; past a
 * worker's share libmicrohttpd 0.9.75 would refuse the connection when
 * the worker takes it up, and the worker would hang.  Once it is let go,
 * every connection is answered, those in the backlog as others close.
 */
START_TEST(test_listen_held_worker_never_past_the_limit)
{
    enum { N = 320, LIMIT = 100 };
    int a, fds[N], i;
    rig g;

    rig_start(&g, AF_INET, 1, LIMIT);
    a = hold_a_worker(&g);
    for (i = 0; i < N; i++) {
        fds[i] = rig_connect(&g);
        send_get(fds[i]);
    }
    ck_assert(wait_accepted(&g, LIMIT, 5.0));
    usleep(3000 * 1000);
    ck_assert_uint_eq(http_listener_accepted(g.l), LIMIT);
    release_the_worker();
    ck_assert_int_eq(read_answer(a, 3000), 1);
    close(a);
    for (i = 0; i < N; i++) {
        ck_assert_msg(read_answer(fds[i], 5000) == 1, "connection %d", i);
        close(fds[i]);
    }
    rig_stop(&g);
}
END_TEST

/* A connection served whose start and close the listener never hears
 * of (rig_notify swallows them), still open. */
static int connect_swallowed(const rig *g)
{
    int x;

    pthread_mutex_lock(&swallow_lock);
    swallow_next = true;
    pthread_mutex_unlock(&swallow_lock);
    x = rig_connect(g);
    send_get(x);
    ck_assert_int_eq(read_answer(x, 2000), 1);
    return x;
}

/*
 * A connection closed before its worker took it up, unreported (as
 * libmicrohttpd closes one it has no memory for): once its socket is
 * gone, it no longer counts, and the next connection is taken at once
 * (well before the 2 s an older version waited), at a limit of 1; and
 * again for a second one, so nothing of the limit is lost for good.
 */
START_TEST(test_listen_lost_connection_not_counted)
{
    int round;
    rig g;

    rig_start(&g, AF_INET, 1, 1);
    for (round = 0; round < 2; round++) {
        int x, y;
        double start;

        x = connect_swallowed(&g);
        close(x); /* the server closes its end: never reported */
        start = now_s();
        y = rig_connect(&g);
        send_get(y);
        ck_assert_int_eq(read_answer(y, 1500), 1);
        ck_assert_msg(now_s() - start < 1.5, "taken after %.2f s",
                      now_s() - start);
        close(y);
    }
    assert_served(&g, 2000);
    rig_stop(&g);
}
END_TEST

/* Whether the server's end of the swallowed connection is closed within
 * 2 s. */
static bool swallowed_closed(void)
{
    int i;

    for (i = 0; i < 200; i++) {
        if (fcntl(swallowed_fd, F_GETFD) < 0 && errno == EBADF)
            return true;
        usleep(10 * 1000);
    }
    return false;
}

/*
 * The same, its socket's number taken since by a file another part of the
 * process opened (here /dev/null, as the database or a log would): the
 * number is open, but on something else, so the connection is gone all
 * the same and the next is taken at once.
 */
START_TEST(test_listen_lost_connection_number_reused)
{
    int x, y, held[256], n_held = 0, fd;
    bool is_reused = false;
    rig g;

    rig_start(&g, AF_INET, 1, 1);
    x = connect_swallowed(&g);
    ck_assert_int_ge(swallowed_fd, 0);
    close(x);
    ck_assert(swallowed_closed());
    while (!is_reused && n_held < 256 &&
           (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
        held[n_held++] = fd;
        is_reused = fd == swallowed_fd;
    }
    ck_assert_msg(is_reused, "socket %d not reused in %d opens", swallowed_fd,
                  n_held);
    y = rig_connect(&g);
    send_get(y);
    ck_assert_int_eq(read_answer(y, 1500), 1);
    close(y);
    while (n_held > 0)
        close(held[--n_held]);
    rig_stop(&g);
}
END_TEST

/* A connection to the rig (IPv4) from the loopback address from. */
static int rig_connect_from(const rig *g, const char *from)
{
    struct sockaddr_in a;
    int fd = rig_socket(g);

    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    ck_assert_int_eq(inet_pton(AF_INET, from, &a.sin_addr), 1);
    ck_assert_msg(bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s",
                  strerror(errno));
    return rig_connect_fd(g, fd);
}

/*
 * A connection libmicrohttpd refuses as it is handed over (here its
 * per-IP limit of 1) is taken off at once: it neither counts towards the
 * limit nor shows up later as lost, which would count one too many gone
 * and let one too many in.  At a limit of 2: A open, B from the same
 * address refused, C from another taken (its socket likely on B's
 * number); D from a third waits while A and C are open, and is served
 * once A closes.
 */
START_TEST(test_listen_refused_not_counted)
{
    int a, b, c, d;
    rig g;

    rig_per_ip = 1;
    rig_start(&g, AF_INET, 1, 2);
    rig_per_ip = 0;
    a = rig_connect_from(&g, "127.0.0.1");
    send_get(a);
    ck_assert_int_eq(read_answer(a, 2000), 1);
    b = rig_connect_from(&g, "127.0.0.1"); /* refused: the per-IP limit */
    ck_assert_int_eq(read_answer(b, 2000), -1);
    close(b);
    c = rig_connect_from(&g, "127.0.0.2");
    send_get(c);
    ck_assert_int_eq(read_answer(c, 2000), 1);
    d = rig_connect_from(&g, "127.0.0.3");
    send_get(d);
    assert_waits_until_closed(&g, d, a, 3);
    close(c);
    close(d);
    rig_stop(&g);
}
END_TEST

/* A connection limit of 0 is refused: there would be nothing to keep a
 * worker under its share. */
START_TEST(test_listen_limit_zero_refused)
{
    struct sockaddr_storage ss;
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    struct MHD_Daemon *d;
    http_listener *l = NULL;
    int port;

    memset(&ss, 0, sizeof ss);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert(http_listener_open(&ss, &l, &port));
    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
                             MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET,
                         0, NULL, NULL, answer, NULL, MHD_OPTION_END);
    ck_assert_ptr_nonnull(d);
    errno = 0;
    ck_assert(!http_listener_start(l, d, 0));
    ck_assert_int_eq(errno, EINVAL);
    http_listener_stop(l);
    MHD_stop_daemon(d);
    http_listener_free(l);
}
END_TEST

/* Port 0 takes a free port, which a second listener cannot take. */
START_TEST(test_listen_port_in_use)
{
    struct sockaddr_storage ss;
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    http_listener *l = NULL;
    int port = -1;
    rig g;

    rig_start(&g, AF_INET, 1, 10);
    memset(&ss, 0, sizeof ss);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a->sin_port = htons((uint16_t)g.port);
    errno = 0;
    ck_assert(!http_listener_open(&ss, &l, &port));
    ck_assert_int_eq(errno, EADDRINUSE);
    ck_assert_ptr_null(l);
    assert_served(&g, 2000); /* the first still serves */
    rig_stop(&g);
}
END_TEST

/* An IPv6 address listens on IPv6 (where the system has one). */
START_TEST(test_listen_ipv6)
{
    rig g;

    if (!rig_start(&g, AF_INET6, 2, 10))
        return; /* no IPv6 loopback here */
    assert_served(&g, 2000);
    rig_stop(&g);
}
END_TEST

/* Stopping with connections open and one waiting in the backlog: the
 * thread ends, the daemon stops, nothing is handed to it after. */
START_TEST(test_listen_stops_with_connections)
{
    int a, b;
    rig g;

    rig_start(&g, AF_INET, 2, 1);
    a = rig_connect(&g);
    send_get(a);
    ck_assert_int_eq(read_answer(a, 2000), 1);
    b = rig_connect(&g); /* waits: the limit is 1 */
    http_listener_stop(g.l);
    MHD_stop_daemon(g.d);
    http_listener_free(g.l);
    ck_assert_int_eq(read_answer(a, 1000), -1); /* closed by the stop */
    /* Never served: reset with the listening socket (the send may fail). */
    (void)send(b, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27, MSG_NOSIGNAL);
    ck_assert_int_eq(read_answer(b, 1000), -1);
    close(a);
    close(b);
}
END_TEST

Suite *suite_listen(void)
{
    Suite *s = suite_create("listen");
    TCase *tc = tcase_create("listen");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_listen_spreads_over_workers);
    tcase_add_test(tc, test_listen_waits_at_limit);
    tcase_add_test(tc, test_listen_one_worker_takes_the_whole_limit);
    tcase_add_test(tc, test_listen_in_transit_counted_while_held);
    tcase_add_test(tc, test_listen_held_worker_never_past_the_limit);
    tcase_add_test(tc, test_listen_lost_connection_not_counted);
    tcase_add_test(tc, test_listen_lost_connection_number_reused);
    tcase_add_test(tc, test_listen_refused_not_counted);
    tcase_add_test(tc, test_listen_limit_zero_refused);
    tcase_add_loop_test(tc, test_listen_burst_past_limit, 0,
                        (int)(sizeof burst_threads / sizeof burst_threads[0]));
    tcase_add_test(tc, test_listen_port_in_use);
    tcase_add_test(tc, test_listen_ipv6);
    tcase_add_test(tc, test_listen_stops_with_connections);
    suite_add_tcase(s, tc);
    return s;
}
