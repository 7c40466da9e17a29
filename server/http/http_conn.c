/*
 * http_conn.c: the table of open connections and its reaper; see
 * http_conn.h.
 *
 * Invariants, all under t->lock: a connection arriving is in t->arriving,
 * ordered by the start of its request (so deadlines fall due from the
 * head); an idle one is in t->idle, longest idle first; a busy, streaming
 * or closing one is in neither.  n_open counts every connection
 * libmicrohttpd has told of and not yet closed, n_closing those of them
 * already shut down.
 */
#include "http_conn.h"
#include "deadline.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#define REAPER_TICK_MS 250

typedef enum conn_state {
    CONN_ARRIVING,  /* its request is coming in: a deadline runs */
    CONN_BUSY,      /* its request is in: being handled or answered */
    CONN_STREAMING, /* its answer is a live event stream: no deadline */
    CONN_IDLE,      /* kept alive between requests */
    CONN_CLOSING    /* shut down by the table: libmicrohttpd will close it */
} conn_state;

typedef struct conn conn;
struct conn {
    int fd; /* libmicrohttpd's socket (borrowed) */
    conn_state state;
    double since;      /* when its request began arriving, or it went idle */
    bool is_cut;       /* shut for being past its request deadline */
    conn *prev, *next; /* in t->arriving or t->idle */
};

typedef struct conn_list {
    conn *head, *tail;
    int n;
} conn_list;

struct http_conn_table {
    http_conn_limits lim;
    int high; /* this many open (not closing) gives up idle ones ... */
    int low;  /* ... until this many are left */
    pthread_mutex_t lock;
    pthread_cond_t wake; /* the reaper's tick, or its stop */
    pthread_t reaper;
    bool has_reaper;
    bool is_stopping;
    conn_list arriving, idle;
    int n_open, n_closing;
    unsigned long n_cut, n_idle_closed, n_given_up;
};

static void list_append(conn_list *l, conn *k)
{
    k->prev = l->tail;
    k->next = NULL;
    if (l->tail)
        l->tail->next = k;
    else
        l->head = k;
    l->tail = k;
    l->n++;
}

static void list_remove(conn_list *l, conn *k)
{
    if (k->prev)
        k->prev->next = k->next;
    else
        l->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        l->tail = k->prev;
    k->prev = k->next = NULL;
    l->n--;
}

static conn_list *list_of(http_conn_table *t, const conn *k)
{
    if (k->state == CONN_ARRIVING)
        return &t->arriving;
    if (k->state == CONN_IDLE)
        return &t->idle;
    return NULL;
}

/* Moves k to state, which begins now. */
static void move(http_conn_table *t, conn *k, conn_state state, double now)
{
    conn_list *l = list_of(t, k);

    if (l)
        list_remove(l, k);
    k->state = state;
    k->since = now;
    if ((l = list_of(t, k)) != NULL)
        list_append(l, k);
}

/* Closes k: libmicrohttpd reads the end of the stream and closes it. */
static void shut(http_conn_table *t, conn *k)
{
    move(t, k, CONN_CLOSING, k->since);
    t->n_closing++;
    shutdown(k->fd, SHUT_RDWR);
}

/* Near the limit, the idle connections go first, longest idle first. */
static void give_up_idle(http_conn_table *t)
{
    if (t->n_open - t->n_closing < t->high)
        return;
    while (t->idle.head && t->n_open - t->n_closing > t->low) {
        shut(t, t->idle.head);
        t->n_given_up++;
    }
}

static void tick(http_conn_table *t, double now)
{
    conn *k;

    while (t->lim.request_timeout > 0 && (k = t->arriving.head) != NULL &&
           k->since + t->lim.request_timeout <= now) {
        k->is_cut = true;
        shut(t, k);
        t->n_cut++;
    }
    while (t->lim.keepalive_timeout > 0 && (k = t->idle.head) != NULL &&
           k->since + t->lim.keepalive_timeout <= now) {
        shut(t, k);
        t->n_idle_closed++;
    }
    give_up_idle(t);
}

static void *reaper_main(void *arg)
{
    http_conn_table *t = arg;
    struct timespec at;

    /* The name ps, top -H and perf show. */
    (void)prctl(PR_SET_NAME, "umpire-reaper");
    pthread_mutex_lock(&t->lock);
    while (!t->is_stopping) {
        tick(t, monotonic_s());
        at = deadline_in_ms(REAPER_TICK_MS);
        pthread_cond_timedwait(&t->wake, &t->lock, &at);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

/* The thresholds of give_up_idle: from idle_close_percent of the limit
 * down to about 80% of it, at least one below. */
static void set_thresholds(http_conn_table *t)
{
    int limit = t->lim.connection_limit, pct = t->lim.idle_close_percent;
    long high = (long)limit * pct / 100;
    int step = limit / 10 > 1 ? limit / 10 : 1;

    if (pct <= 0 || limit <= 0) {
        t->high = INT_MAX;
        t->low = INT_MAX;
        return;
    }
    t->high = high > 1 ? (int)high : 1;
    t->low = t->high - step > 0 ? t->high - step : 0;
}

http_conn_table *http_conn_table_new(const http_conn_limits *limits)
{
    http_conn_table *t = calloc(1, sizeof *t);
    pthread_condattr_t ca;

    if (t == NULL)
        return NULL;
    t->lim = *limits;
    set_thresholds(t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&t->reaper, NULL, reaper_main, t) != 0) {
        http_conn_table_free(t);
        return NULL;
    }
    t->has_reaper = true;
    return t;
}

void http_conn_table_stop_reaper(http_conn_table *t)
{
    if (t == NULL || !t->has_reaper)
        return;
    pthread_mutex_lock(&t->lock);
    t->is_stopping = true;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->reaper, NULL);
    t->has_reaper = false;
}

void http_conn_table_free(http_conn_table *t)
{
    conn *k;

    if (t == NULL)
        return;
    http_conn_table_stop_reaper(t);
    /* libmicrohttpd has closed everything by now; free what it left. */
    while ((k = t->arriving.head) != NULL) {
        list_remove(&t->arriving, k);
        free(k);
    }
    while ((k = t->idle.head) != NULL) {
        list_remove(&t->idle, k);
        free(k);
    }
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

static conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return ci ? ci->socket_context : NULL;
}

static void on_started(http_conn_table *t, struct MHD_Connection *c,
                       void **socket_context)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    conn *k = ci ? calloc(1, sizeof *k) : NULL;

    *socket_context = k;
    if (k == NULL)
        return; /* untracked: libmicrohttpd's own timeout still holds */
    k->fd = ci->connect_fd;
    k->state = CONN_BUSY; /* in no list yet */
    pthread_mutex_lock(&t->lock);
    move(t, k, CONN_ARRIVING, monotonic_s());
    t->n_open++;
    give_up_idle(t);
    pthread_mutex_unlock(&t->lock);
}

void http_conn_on_notify(void *cls, struct MHD_Connection *c,
                         void **socket_context,
                         enum MHD_ConnectionNotificationCode code)
{
    http_conn_table *t = cls;
    conn *k = *socket_context;
    conn_list *l;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        on_started(t, c, socket_context);
        return;
    }
    if (k == NULL)
        return;
    pthread_mutex_lock(&t->lock);
    if ((l = list_of(t, k)) != NULL)
        list_remove(l, k);
    if (k->state == CONN_CLOSING)
        t->n_closing--;
    t->n_open--;
    pthread_mutex_unlock(&t->lock);
    *socket_context = NULL;
    free(k);
}

void *http_conn_on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    http_conn_table *t = cls;
    conn *k = conn_of(c);

    (void)uri;
    if (k == NULL)
        return NULL;
    /* A kept-alive connection starts its next request now; a new one's
     * request started when it was accepted. */
    pthread_mutex_lock(&t->lock);
    if (k->state == CONN_IDLE)
        move(t, k, CONN_ARRIVING, monotonic_s());
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

void http_conn_busy(http_conn_table *t, struct MHD_Connection *c)
{
    conn *k = conn_of(c);

    if (k == NULL)
        return;
    pthread_mutex_lock(&t->lock);
    if (k->state == CONN_ARRIVING)
        move(t, k, CONN_BUSY, monotonic_s());
    pthread_mutex_unlock(&t->lock);
}

void http_conn_stream(http_conn_table *t, struct MHD_Connection *c)
{
    conn *k = conn_of(c);

    if (k == NULL)
        return;
    pthread_mutex_lock(&t->lock);
    if (k->state == CONN_BUSY || k->state == CONN_ARRIVING)
        move(t, k, CONN_STREAMING, monotonic_s());
    pthread_mutex_unlock(&t->lock);
}

void http_conn_idle(http_conn_table *t, struct MHD_Connection *c)
{
    conn *k = conn_of(c);

    if (k == NULL)
        return;
    pthread_mutex_lock(&t->lock);
    if (k->state == CONN_BUSY || k->state == CONN_ARRIVING ||
        k->state == CONN_STREAMING)
        move(t, k, CONN_IDLE, monotonic_s());
    pthread_mutex_unlock(&t->lock);
}

bool http_conn_is_cut(http_conn_table *t, struct MHD_Connection *c)
{
    conn *k = conn_of(c);
    bool is_cut;

    if (k == NULL)
        return false;
    pthread_mutex_lock(&t->lock);
    is_cut = k->is_cut;
    pthread_mutex_unlock(&t->lock);
    return is_cut;
}

void http_conn_stats(http_conn_table *t, http_conn_counts *out)
{
    pthread_mutex_lock(&t->lock);
    out->n_open = t->n_open;
    out->n_idle = t->idle.n;
    out->n_cut = t->n_cut;
    out->n_idle_closed = t->n_idle_closed;
    out->n_given_up = t->n_given_up;
    pthread_mutex_unlock(&t->lock);
}
