/*
 * db_jobs.c: the writer's side the layers above call: jobs handed to it
 * (db_submit, db_submit_in, queued for the writer loop of db.c or
 * pg_writers.c), a job waited for (db_write, db_write_in), its counts, and
 * the listeners told of each commit.  Declared in db.h; struct db is in
 * db_int.h.
 */
#include "db_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

err_code db_submit(db *d, db_job_fn run, db_done_fn done, void *arg)
{
    return db_submit_in(d, NULL, run, done, arg);
}

err_code db_submit_in(db *d, const char *campaign_id, db_job_fn run,
                      db_done_fn done, void *arg)
{
    db_job *j = calloc(1, sizeof *j);

    if (j == NULL)
        return ERR_NOMEM;
    if (campaign_id != NULL)
        snprintf(j->campaign, sizeof j->campaign, "%s", campaign_id);
    j->run = run;
    j->done = done;
    j->arg = arg;
    pthread_mutex_lock(&d->queue_lock);
    if (d->is_stopping) {
        pthread_mutex_unlock(&d->queue_lock);
        free(j);
        return ERR_INTERNAL;
    }
    if (d->tail)
        d->tail->next = j;
    else
        d->head = j;
    d->tail = j;
    /* several writers: the one woken may find only a held campaign */
    if (d->is_pg)
        pthread_cond_broadcast(&d->queue_ready);
    else
        pthread_cond_signal(&d->queue_ready);
    pthread_mutex_unlock(&d->queue_lock);
    return ERR_OK;
}

typedef struct sync_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool is_done;
    err_code rc;
    err_info *e;
    db_job_fn run;
    void *arg;
} sync_wait;

static err_code sync_run(db_conn *conn, void *arg, err_info *e)
{
    sync_wait *w = arg;

    return w->run(conn, w->arg, e);
}

static void sync_done(void *arg, err_code rc, const err_info *e)
{
    sync_wait *w = arg;

    pthread_mutex_lock(&w->lock);
    w->rc = rc;
    /* The first error wins: keep one the caller already holds. */
    if (rc != ERR_OK && w->e != NULL && e != NULL && w->e->code == ERR_OK)
        *w->e = *e;
    w->is_done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

err_code db_write(db *d, db_job_fn run, void *arg, err_info *e)
{
    return db_write_in(d, NULL, run, arg, e);
}

err_code db_write_in(db *d, const char *campaign_id, db_job_fn run, void *arg,
                     err_info *e)
{
    sync_wait w;
    err_code rc;

    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.cond, NULL);
    w.e = e;
    w.run = run;
    w.arg = arg;
    rc = db_submit_in(d, campaign_id, sync_run, sync_done, &w);
    if (rc == ERR_OK) {
        pthread_mutex_lock(&w.lock);
        while (!w.is_done)
            pthread_cond_wait(&w.cond, &w.lock);
        pthread_mutex_unlock(&w.lock);
        rc = w.rc;
    } else {
        err_set(e, rc, NULL, "the database writer has stopped");
    }
    pthread_mutex_destroy(&w.lock);
    pthread_cond_destroy(&w.cond);
    return rc;
}

void db_writer_stats(db *d, unsigned long *n_jobs, unsigned long *n_commits)
{
    *n_jobs = atomic_load(&d->n_jobs);
    *n_commits = atomic_load(&d->n_commits);
}

err_code db_add_commit_listener(db *d, void (*fn)(void *arg), void *arg,
                                err_info *e)
{
    err_code rc = ERR_OK;

    pthread_mutex_lock(&d->listen_lock);
    if (d->n_listeners == DB_LISTENERS_MAX)
        rc = err_set(e, ERR_LIMIT, NULL, "at most %d commit listeners",
                     DB_LISTENERS_MAX);
    else {
        d->listeners[d->n_listeners].fn = fn;
        d->listeners[d->n_listeners].arg = arg;
        d->n_listeners++;
    }
    pthread_mutex_unlock(&d->listen_lock);
    return rc;
}

void db_remove_commit_listener(db *d, void (*fn)(void *arg), void *arg)
{
    int i;

    pthread_mutex_lock(&d->listen_lock);
    for (i = 0; i < d->n_listeners; i++)
        if (d->listeners[i].fn == fn && d->listeners[i].arg == arg) {
            memmove(&d->listeners[i], &d->listeners[i + 1],
                    (size_t)(d->n_listeners - i - 1) * sizeof d->listeners[0]);
            d->n_listeners--;
            break;
        }
    pthread_mutex_unlock(&d->listen_lock);
}

void db_fire_listeners(db *d)
{
    int i;

    pthread_mutex_lock(&d->listen_lock);
    for (i = 0; i < d->n_listeners; i++)
        d->listeners[i].fn(d->listeners[i].arg);
    pthread_mutex_unlock(&d->listen_lock);
}
