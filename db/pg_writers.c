/*
 * pg_writers.c: the writers of a PostgreSQL store (db_int.h).  Its
 * DB_PG_WRITERS threads, each on a connection of its own, take the queued
 * jobs one at a time, each in a transaction of its own: none takes a job
 * of a campaign another writer holds, so that a busy campaign (waiting
 * for its lock, held by another instance) holds one writer, never all;
 * jobs of other campaigns go on meanwhile.
 */
#include "db_int.h"
#include "db_sql.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

/* The first queued job no other writer holds the campaign of, taken off
 * the queue and its campaign marked as slot's; NULL when none is free.
 * The caller holds queue_lock. */
static db_job *take_free_job(db *d, int slot)
{
    db_job *j, *prev = NULL;
    int k;

    for (j = d->head; j != NULL; prev = j, j = j->next) {
        bool is_held = false;
        for (k = 0; k < DB_PG_WRITERS && j->campaign[0] != '\0'; k++)
            if (k != slot && strcmp(d->running[k], j->campaign) == 0)
                is_held = true;
        if (is_held)
            continue;
        if (prev)
            prev->next = j->next;
        else
            d->head = j->next;
        if (d->tail == j)
            d->tail = prev;
        j->next = NULL;
        memcpy(d->running[slot], j->campaign, sizeof j->campaign);
        return j;
    }
    return NULL;
}

/* A writer of several (PostgreSQL) ends its job: its campaign is free. */
static void job_ended(db *d, int slot)
{
    pthread_mutex_lock(&d->queue_lock);
    d->running[slot][0] = '\0';
    pthread_cond_broadcast(&d->queue_ready);
    pthread_mutex_unlock(&d->queue_lock);
}

/* The next job of writer slot of several (PostgreSQL): one at a time,
 * of a campaign no other writer holds (NULL: stopping, drained). */
static db_job *next_job(db *d, int slot)
{
    db_job *j;

    pthread_mutex_lock(&d->queue_lock);
    while ((j = take_free_job(d, slot)) == NULL &&
           !(d->is_stopping && d->head == NULL))
        pthread_cond_wait(&d->queue_ready, &d->queue_lock);
    pthread_mutex_unlock(&d->queue_lock);
    return j;
}

/* A writer of several (PostgreSQL): a job per transaction, so that no
 * transaction holds two campaigns' locks (writers of several instances
 * would deadlock taking them in different orders). */
void db_pg_run_jobs(db *d, db_conn *w, int slot)
{
    db_job *j;

    while ((j = next_job(d, slot)) != NULL) {
        db_run_batch(d, w, j);
        job_ended(d, slot);
    }
}

/* A further writer of a PostgreSQL store, on a connection of its own. */
typedef struct more_writer {
    db *d;
    db_conn *w;
    int slot;
} more_writer;

static void *more_writer_main(void *arg)
{
    more_writer mw = *(more_writer *)arg;

    /* The name ps, top -H and perf show. */
    (void)prctl(PR_SET_NAME, "umpire-writer");
    free(arg);
    db_pg_run_jobs(mw.d, mw.w, mw.slot);
    return NULL;
}

/* Starts the further writers of a PostgreSQL store. */
err_code db_pg_start_writers(db *d, err_info *e)
{
    int i;

    for (i = 0; i < DB_PG_WRITERS - 1; i++) {
        more_writer *mw = malloc(sizeof *mw);
        if (mw == NULL)
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
        if (db_conn_open(d->path, true, &d->more_writers[i], e) != ERR_OK) {
            free(mw);
            return e->code;
        }
        mw->d = d;
        mw->w = d->more_writers[i];
        mw->slot = i + 1;
        if (pthread_create(&d->more_threads[i], NULL, more_writer_main, mw) !=
            0) {
            free(mw);
            return err_set(e, ERR_INTERNAL, NULL, "cannot start a writer");
        }
        d->n_more++;
    }
    return ERR_OK;
}
