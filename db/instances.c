/*
 * instances.c: what several instances of a PostgreSQL store share (db_int.h,
 * db.h): the news of each other's commits, and which one sends channel
 * posts.
 *
 * News: the writer sends NOTIFY umpire_commit inside each transaction
 * that changed rows, so PostgreSQL delivers it when, and only if, the
 * transaction commits.  A thread of each instance LISTENs on a connection
 * of its own and, for each wake-up (however many notices it drained),
 * calls the instance's commit listeners, as its own writer does after a
 * commit: an event stream or the channel poster on one instance learns of
 * a combat another instance wrote.  The thread makes its connection again
 * after a failover, and calls the listeners then too (news may have been
 * missed meanwhile: the listeners only look).
 *
 * The poster: one instance holds a session advisory lock on a connection
 * of its own; it alone sends channel posts.  If it dies, its session ends,
 * the lock is free, and the next instance to look takes it.
 */
#include "db_conn.h"
#include "db_int.h"
#include "db_sql.h"
#include "deadline.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* How long the listening thread waits for news before it checks whether
 * it is stopping (ms), and waits before it reconnects (s). */
#define NEWS_POLL_MS     250
#define NEWS_RETRY_S     1
#define POSTER_RECHECK_S 1.0
#define POSTER_LOCK_KEY  "7236976"

err_code db_news_send(db_conn *w, err_info *e)
{
    db_stmt *st;
    err_code rc;

    if (w->kind != DB_KIND_PG)
        return ERR_OK;
    if ((rc = db_prepare(w, "SELECT pg_notify('umpire_commit', '')", &st, e)) !=
        ERR_OK)
        return rc;
    if (db_step(st) != DB_ROW)
        rc = db_fail(w, e, "announce the commit");
    db_done(st);
    return rc;
}

/* A connection listening for news, or NULL. */
static PGconn *news_connect(const char *url)
{
    PGconn *c = pg_connect(url, "umpire-news");
    PGresult *res;

    if (PQstatus(c) != CONNECTION_OK) {
        PQfinish(c);
        return NULL;
    }
    res = PQexec(c, "LISTEN umpire_commit");
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        PQclear(res);
        PQfinish(c);
        return NULL;
    }
    PQclear(res);
    return c;
}

/* Waits for news on c (up to NEWS_POLL_MS): 1 news came, 0 none, -1 the
 * connection broke. */
static int news_wait(PGconn *c)
{
    struct pollfd p = {.fd = PQsocket(c), .events = POLLIN};
    PGnotify *n;
    int got = 0;

    if (p.fd < 0)
        return -1;
    if (poll(&p, 1, NEWS_POLL_MS) < 0)
        return 0;
    if (!PQconsumeInput(c) || PQstatus(c) != CONNECTION_OK)
        return -1;
    while ((n = PQnotifies(c)) != NULL) {
        got = 1;
        PQfreemem(n);
    }
    return got;
}

static void *news_main(void *arg)
{
    db *d = arg;
    PGconn *c = NULL;
    int got;

    /* The name ps, top -H and perf show. */
    (void)prctl(PR_SET_NAME, "umpire-news");
    while (!atomic_load(&d->is_news_stopping)) {
        if (c == NULL) {
            if ((c = news_connect(d->path)) == NULL) {
                sleep(NEWS_RETRY_S);
                continue;
            }
            db_fire_listeners(d); /* what came while it was away */
        }
        got = news_wait(c);
        if (got > 0)
            db_fire_listeners(d);
        else if (got < 0) {
            PQfinish(c);
            c = NULL;
        }
    }
    PQfinish(c);
    return NULL;
}

err_code db_news_start(db *d, err_info *e)
{
    if (!d->is_pg)
        return ERR_OK;
    atomic_store(&d->is_news_stopping, false);
    if (pthread_create(&d->news_thread, NULL, news_main, d) != 0)
        return err_set(e, ERR_INTERNAL, NULL,
                       "cannot start the listener of other instances' "
                       "commits");
    d->has_news_thread = true;
    return ERR_OK;
}

void db_news_stop(db *d)
{
    if (!d->has_news_thread)
        return;
    atomic_store(&d->is_news_stopping, true);
    pthread_join(d->news_thread, NULL);
    d->has_news_thread = false;
}

/* Whether c (the poster's connection) still answers and holds the lock,
 * taking it when free. */
static bool poster_try(db_conn *c)
{
    PGresult *res =
        PQexec(c->pg, "SELECT pg_try_advisory_lock(" POSTER_LOCK_KEY ")");
    bool ok = PQresultStatus(res) == PGRES_TUPLES_OK &&
              strcmp(PQgetvalue(res, 0, 0), "t") == 0;

    PQclear(res);
    return ok;
}

bool db_is_poster(db *d)
{
    double now;
    bool is_poster;

    if (!d->is_pg)
        return true;
    pthread_mutex_lock(&d->poster_lock);
    now = monotonic_s();
    if (now >= d->poster_checked + POSTER_RECHECK_S) {
        d->poster_checked = now;
        if (d->poster_conn != NULL &&
            PQstatus(d->poster_conn->pg) != CONNECTION_OK) {
            db_conn_close(d->poster_conn);
            d->poster_conn = NULL;
            d->is_poster = false;
        }
        if (d->poster_conn == NULL &&
            db_conn_open(d->path, false, &d->poster_conn, NULL) != ERR_OK)
            d->poster_conn = NULL;
        /* Taken again while held, the lock stacks: a held one is checked
         * by a query that answers, not taken twice. */
        if (d->poster_conn != NULL) {
            if (d->is_poster) {
                PGresult *res = PQexec(d->poster_conn->pg, "SELECT 1");
                d->is_poster = PQresultStatus(res) == PGRES_TUPLES_OK;
                PQclear(res);
            } else {
                d->is_poster = poster_try(d->poster_conn);
            }
        }
    }
    is_poster = d->is_poster;
    pthread_mutex_unlock(&d->poster_lock);
    return is_poster;
}

void db_poster_release(db *d)
{
    pthread_mutex_lock(&d->poster_lock);
    db_conn_close(d->poster_conn); /* ends the session, and its lock */
    d->poster_conn = NULL;
    d->is_poster = false;
    pthread_mutex_unlock(&d->poster_lock);
}
