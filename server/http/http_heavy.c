/*
 * http_heavy.c: the threads of long reads; see http_heavy.h.
 *
 * A ring of queue_max jobs under one lock: submit appends and signals,
 * a thread takes the oldest.  Stopping lets the threads empty the ring
 * first: every job queued is run, so every connection suspended for one
 * is resumed.
 */
#define _GNU_SOURCE /* gettid */
#include "http_heavy.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

typedef struct job {
    http_heavy_fn fn;
    void *arg;
} job;

struct http_heavy {
    pthread_mutex_t lock;
    pthread_cond_t more; /* a job was queued, or the pool is stopping */
    job *ring;
    int cap, head, n; /* the queued jobs: ring[head .. head+n) mod cap */
    bool is_stopping;
    pthread_t *threads;
    int n_threads;
    char name[16]; /* its threads' (prctl: 15 bytes at most) */
};

/* Below the request workers: a long read gives way to short requests. */
enum { HEAVY_NICE = 10 };

static void *heavy_main(void *arg)
{
    http_heavy *h = arg;

    /* The name ps, top -H and perf show. */
    (void)prctl(PR_SET_NAME, h->name);
    /* Linux gives each thread its own nice value. */
    (void)setpriority(PRIO_PROCESS, (id_t)gettid(), HEAVY_NICE);
    pthread_mutex_lock(&h->lock);
    for (;;) {
        job j;

        while (h->n == 0 && !h->is_stopping)
            pthread_cond_wait(&h->more, &h->lock);
        if (h->n == 0)
            break; /* stopping, and nothing left */
        j = h->ring[h->head];
        h->head = (h->head + 1) % h->cap;
        h->n--;
        pthread_mutex_unlock(&h->lock);
        j.fn(j.arg);
        pthread_mutex_lock(&h->lock);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

err_code http_heavy_start(const char *name, int threads, int queue_max,
                          http_heavy **out, err_info *e)
{
    http_heavy *h = calloc(1, sizeof *h);

    *out = NULL;
    if (threads < 1)
        threads = 1;
    if (queue_max < 1)
        queue_max = 1;
    if (h == NULL ||
        (h->ring = calloc((size_t)queue_max, sizeof *h->ring)) == NULL ||
        (h->threads = calloc((size_t)threads, sizeof *h->threads)) == NULL) {
        if (h)
            free(h->ring);
        free(h);
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    h->cap = queue_max;
    snprintf(h->name, sizeof h->name, "%s", name);
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->more, NULL);
    for (h->n_threads = 0; h->n_threads < threads; h->n_threads++)
        if (pthread_create(&h->threads[h->n_threads], NULL, heavy_main, h) !=
            0) {
            http_heavy_stop(h);
            return err_set(e, ERR_INTERNAL, NULL,
                           "cannot start the threads of long reads");
        }
    *out = h;
    return ERR_OK;
}

bool http_heavy_submit(http_heavy *h, http_heavy_fn fn, void *arg)
{
    bool is_queued = false;

    pthread_mutex_lock(&h->lock);
    if (!h->is_stopping && h->n < h->cap) {
        h->ring[(h->head + h->n) % h->cap] = (job){fn, arg};
        h->n++;
        is_queued = true;
        pthread_cond_signal(&h->more);
    }
    pthread_mutex_unlock(&h->lock);
    return is_queued;
}

void http_heavy_stop(http_heavy *h)
{
    int i;

    if (h == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    h->is_stopping = true;
    pthread_cond_broadcast(&h->more);
    pthread_mutex_unlock(&h->lock);
    for (i = 0; i < h->n_threads; i++)
        pthread_join(h->threads[i], NULL);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->more);
    free(h->threads);
    free(h->ring);
    free(h);
}
