/*
 * http_job.c: the work a request hands to another thread, and its return
 * (http.h: http_defer_write, http_defer_read, http_claim_key): its
 * connection suspended while the database writer runs its write job (or
 * a thread of long reads its handler), then resumed for the answer, or
 * the request freed there when its connection went first; and the
 * Idempotency-Keys of requests in flight.  The lifecycle around it is
 * http.c's (http_int.h).
 */
#include "http_int.h"
#include "http_reply.h"
#include "idem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- idempotency keys in flight ---- */

static void key_text(const http_request *r, char *out, size_t n)
{
    snprintf(out, n, "%s\n%s", r->idem.scope, r->idem.key);
}

bool http_claim_key(http_request *r)
{
    http_server *s = r->srv;
    char k[sizeof r->idem.scope + sizeof r->idem.key + 2];
    bool is_free = true;
    size_t i;

    key_text(r, k, sizeof k);
    pthread_mutex_lock(&s->keys_lock);
    for (i = 0; i < s->n_keys && is_free; i++)
        is_free = strcmp(s->keys[i], k) != 0;
    if (is_free && s->n_keys == s->cap_keys) {
        size_t cap = s->cap_keys ? 2 * s->cap_keys : 16;
        char **grown = realloc(s->keys, cap * sizeof *grown);
        if (grown) {
            s->keys = grown;
            s->cap_keys = cap;
        }
    }
    if (is_free && s->n_keys < s->cap_keys &&
        (s->keys[s->n_keys] = strdup(k)) != NULL) {
        s->n_keys++;
        r->is_claimed = true;
    }
    pthread_mutex_unlock(&s->keys_lock);
    return r->is_claimed;
}

void http_release_key(http_request *r)
{
    http_server *s = r->srv;
    char k[sizeof r->idem.scope + sizeof r->idem.key + 2];
    size_t i;

    if (!r->is_claimed)
        return;
    key_text(r, k, sizeof k);
    pthread_mutex_lock(&s->keys_lock);
    for (i = 0; i < s->n_keys; i++)
        if (strcmp(s->keys[i], k) == 0) {
            free(s->keys[i]);
            s->keys[i] = s->keys[--s->n_keys];
            break;
        }
    pthread_mutex_unlock(&s->keys_lock);
    r->is_claimed = false;
}

/* ---- deferred writes ---- */

void http_reply_stopping(http_request *r)
{
    http_reply_problem_raw(r, 503, "service_stopping", "Service unavailable",
                           "the service is stopping; retry shortly");
}

void http_pending_end(http_request *r)
{
    if (!r->is_pending)
        return;
    r->is_pending = false;
    atomic_fetch_sub(&r->srv->n_pending, 1);
}

/*
 * On the writer, once the job's outcome is durable: the connection is
 * resumed, and the access handler answers.  If the connection went first
 * (the completed callback found the job still running and orphaned the
 * request), nobody will answer: the request is freed here.
 */
static void write_done(void *arg, err_code rc, const err_info *e)
{
    http_request *r = arg;
    struct MHD_Connection *conn = r->conn;
    http_server *s = r->srv;

    /* From the moment the job is done, the request may end (and stop
     * counting as pending) before this call returns: http_stop waits for
     * n_resuming too, so that libmicrohttpd is not stopped under the
     * resume.  r may be freed by then; s lives until http_stop. */
    atomic_fetch_add(&s->n_resuming, 1);
    /* Committed or rolled back: r is alive until the exchange below (its
     * connection suspended, or gone and left to this call to free). */
    if (r->committed != NULL)
        r->committed(r->state);
    r->job_rc = rc;
    err_clear(&r->job_err);
    if (rc != ERR_OK && e != NULL)
        r->job_err = *e;
    if (atomic_exchange(&r->job_state, HTTP_JOB_DONE) == HTTP_JOB_ORPHANED) {
        http_pending_end(r);
        http_request_free(r);
    } else {
        MHD_resume_connection(conn);
    }
    atomic_fetch_sub(&s->n_resuming, 1);
}

/* The campaign r's write job changes: named by its path
 * (/v1/campaigns/{id}/...) or set by its handler; NULL for none. */
static const char *job_campaign(const http_request *r)
{
    if (r->job_campaign[0] != '\0')
        return r->job_campaign;
    if (strncmp(r->path, "/v1/campaigns/", 14) == 0 && r->n_params > 0)
        return r->params[0];
    return NULL;
}

/*
 * Runs the handler's job with the handler's state (submitted as writing
 * its campaign: db_submit_in serialises the campaign's writes with every
 * other writer's, of this instance or another).  A request with an
 * Idempotency-Key makes its response here, once the job has succeeded,
 * and stores it under the key in the same transaction (idem.h).
 */
static err_code run_job(db_conn *conn, void *arg, err_info *e)
{
    http_request *r = arg;
    err_code rc = r->job(conn, r->state, e);

    if (rc != ERR_OK || !r->has_idem)
        return rc;
    r->finish(r, ERR_OK, NULL);
    r->is_replied_in_job = true;
    if (r->status < 200 || r->status > 299) {
        /* No answer to keep: nothing may land that a retry would roll
         * again (the finish failed, e.g. out of memory). */
        http_reply_reset(r);
        return err_set(e, ERR_INTERNAL, NULL,
                       "the answer to keep under the Idempotency-Key could "
                       "not be made");
    }
    if ((rc = idem_store(conn, r, e)) != ERR_OK)
        http_reply_reset(r);
    return rc;
}

/*
 * r counted in flight and its connection suspended, before its work goes
 * to another thread (the writer, a thread of long reads), whose end is
 * write_done; false when the service is stopping (r is then answered).
 */
static bool suspend_for_job(http_request *r)
{
    /* Counted before the stop flag is read, so http_stop either sees this
     * job and waits for it, or this job sees the flag and backs out. */
    atomic_fetch_add(&r->srv->n_pending, 1);
    if (atomic_load(&r->srv->is_stopping)) {
        atomic_fetch_sub(&r->srv->n_pending, 1);
        http_reply_stopping(r);
        return false;
    }
    r->is_pending = true;
    atomic_store(&r->job_state, HTTP_JOB_RUNNING);
    /* Suspend first: the job may finish before the caller returns. */
    MHD_suspend_connection(r->conn);
    return true;
}

void http_defer_write(http_request *r, db_job_fn run, http_finish_fn finish)
{
    err_info e;

    r->job = run;
    r->finish = finish;
    if (!suspend_for_job(r)) {
        if (r->committed != NULL) /* never will be */
            r->committed(r->state);
        return;
    }
    if (db_submit_in(r->srv->db, job_campaign(r), run_job, write_done, r) !=
        ERR_OK) {
        err_clear(&e);
        err_set(&e, ERR_INTERNAL, NULL, "the database writer has stopped");
        write_done(r, ERR_INTERNAL, &e);
    }
}

/* On a thread of long reads: the handler answers, then, as a write's
 * commit does, the connection is resumed (or, gone, the request freed). */
static void read_run(void *arg)
{
    http_request *r = arg;

    r->read(r);
    write_done(r, ERR_OK, NULL);
}

/* handler(r) run on pool's threads; busy: the detail of the 503 answered
 * when its queue is full. */
static void defer_to(http_request *r, http_heavy *pool,
                     void (*handler)(http_request *r), const char *busy)
{
    r->read = handler;
    if (!suspend_for_job(r))
        return;
    r->is_replied_in_job = true; /* the handler's answer, as it made it */
    if (!http_heavy_submit(pool, read_run, r)) {
        r->retry_after = 1;
        http_reply_problem_raw(r, 503, "busy", "Service busy", busy);
        write_done(r, ERR_OK, NULL);
    }
}

void http_defer_read(http_request *r, void (*handler)(http_request *r))
{
    defer_to(r, r->srv->heavy, handler,
             "too many long reads (reports, ledger checks, shared links) "
             "are waiting; retry shortly");
}

void http_defer_odds(http_request *r, void (*handler)(http_request *r))
{
    defer_to(r, r->srv->odds, handler,
             "too many odds are waiting to be worked out; retry shortly");
}
