/*
 * notify.c: the poster's thread; see notify.h.
 *
 * Threads: the writer only calls on_commit, which sets has_news under
 * lock and signals; everything else (the holds, the HTTP client) is the
 * poster thread's own.  The posts are rows (db.h): the thread reads the
 * oldest post waiting of each campaign through the read pool, sends one,
 * and settles it through the writer (db_write) before it looks again, so
 * a post is counted once, and a campaign's posts go in order.
 *
 * A campaign whose post failed a try, or whose webhook is at its rate
 * limit, is held until a time (its hold); the others go on meanwhile.
 * Holds live in memory: after a restart, a post waiting starts its tries
 * again.
 */
#include "notify.h"

#include "deadline.h"
#include "notify_discord.h"
#include "combat.h"
#include "notify_http.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* On commits, the posts are looked for at most this often (seconds): a
 * busy writer commits thousands of times a second. */
#define SCAN_GAP 0.02
/* Without any commit, they are looked for this often anyway. */
#define IDLE_SCAN 30.0

/* A campaign held back until not_before, with the tries of its post. */
typedef struct hold {
    char campaign_id[DB_ID_MAX];
    long long seq;     /* the post its tries are of; 0 for none */
    int n_tries;       /* tries of that post so far */
    double not_before; /* monotonic seconds */
} hold;

struct notify {
    db *d;
    notify_config cfg;
    char base[256]; /* cfg.api_base, copied */
    notify_http *http;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* on CLOCK_MONOTONIC */
    bool has_news;       /* a batch committed since the last look */
    bool is_stopping;
    /* The poster thread's own. */
    hold *holds;
    size_t n_holds, cap_holds;
    double global_until; /* a global rate limit holds every campaign */
    double last_scan;
};

/* What became of one try. */
typedef enum outcome { DELIVERED, RETRY, FAILED } outcome;

void notify_config_default(notify_config *cfg)
{
    cfg->api_base = "https://discord.com/api";
    cfg->timeout_ms = 5000;
    cfg->max_attempts = 5;
    cfg->backoff_ms = 1000;
    cfg->backoff_max_ms = 60000;
    cfg->max_retry_after_ms = 300000;
    cfg->backlog = 100;
    cfg->is_logging = true;
}

static err_code check_config(const notify_config *cfg, bool *is_http,
                             err_info *e)
{
    err_code rc;

    if ((rc = notify_discord_check_base(cfg->api_base, is_http, e)))
        return rc;
    if (cfg->timeout_ms < 1 || cfg->timeout_ms > 600000)
        return err_set(e, ERR_RANGE, "discord_timeout",
                       "a try takes 1 ms to 600 s");
    if (cfg->max_attempts < 1 || cfg->max_attempts > 100)
        return err_set(e, ERR_RANGE, "discord_attempts",
                       "a post is tried 1 to 100 times");
    if (cfg->backoff_ms < 1 || cfg->backoff_max_ms < cfg->backoff_ms)
        return err_set(e, ERR_RANGE, "discord_backoff",
                       "the backoff is at least 1 ms, and its longest "
                       "wait no shorter");
    if (cfg->max_retry_after_ms < 0 || cfg->backlog < 1)
        return err_set(e, ERR_RANGE, "discord_backlog",
                       "the backlog is at least 1 post");
    return ERR_OK;
}

/* The writer's commit listener: wakes the thread, nothing more. */
static void on_commit(void *arg)
{
    notify *n = arg;

    pthread_mutex_lock(&n->lock);
    n->has_news = true;
    pthread_cond_signal(&n->cond);
    pthread_mutex_unlock(&n->lock);
}

/* Waits until there is news (spaced SCAN_GAP apart), until the time
 * until (0: IDLE_SCAN from now), or the stop; false on the stop. */
static bool wait_for_work(notify *n, double until)
{
    bool is_stopping;

    if (until <= 0)
        until = monotonic_s() + IDLE_SCAN;
    pthread_mutex_lock(&n->lock);
    for (;;) {
        double now = monotonic_s(), deadline = until;
        struct timespec ts;
        if (n->is_stopping || now >= until)
            break;
        if (n->has_news) {
            if (now >= n->last_scan + SCAN_GAP)
                break;
            if (n->last_scan + SCAN_GAP < deadline)
                deadline = n->last_scan + SCAN_GAP;
        }
        ts.tv_sec = (time_t)deadline;
        ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
        pthread_cond_timedwait(&n->cond, &n->lock, &ts);
    }
    n->has_news = false;
    is_stopping = n->is_stopping;
    pthread_mutex_unlock(&n->lock);
    return !is_stopping;
}

/* ---- holds ---- */

/* The campaign's hold, or NULL. */
static hold *hold_find(notify *n, const char *campaign_id)
{
    size_t i;

    for (i = 0; i < n->n_holds; i++)
        if (strcmp(n->holds[i].campaign_id, campaign_id) == 0)
            return &n->holds[i];
    return NULL;
}

/* The campaign's hold, made (not holding) if it had none; NULL when out
 * of memory. */
static hold *hold_get(notify *n, const char *campaign_id)
{
    hold *h = hold_find(n, campaign_id);

    if (h != NULL)
        return h;
    if (n->n_holds == n->cap_holds) {
        size_t cap = n->cap_holds ? 2 * n->cap_holds : 8;
        hold *grown = realloc(n->holds, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        n->holds = grown;
        n->cap_holds = cap;
    }
    h = &n->holds[n->n_holds++];
    memset(h, 0, sizeof *h);
    snprintf(h->campaign_id, sizeof h->campaign_id, "%s", campaign_id);
    return h;
}

/* Forgets the holds that hold nothing any more: a campaign with no post
 * waiting whose time has come.  A hold whose post was settled elsewhere
 * (its webhook removed, or dropped) starts its tries again. */
static void holds_prune(notify *n, const db_webhook_post *heads, size_t n_heads,
                        double now)
{
    size_t i = 0, k;

    while (i < n->n_holds) {
        hold *h = &n->holds[i];
        const db_webhook_post *p = NULL;
        for (k = 0; k < n_heads && p == NULL; k++)
            if (strcmp(heads[k].campaign_id, h->campaign_id) == 0)
                p = &heads[k];
        if (p == NULL && h->not_before <= now) {
            *h = n->holds[--n->n_holds];
            continue;
        }
        if (p != NULL && p->seq != h->seq) {
            h->seq = p->seq;
            h->n_tries = 0;
        }
        i++;
    }
}

/* ---- the database ---- */

typedef struct settle_arg {
    const db_webhook_post *p;
    const char *error; /* NULL: delivered */
    long long keep;    /* drop: posts kept */
    long long n_dropped;
    char at[DB_TIME_MAX];
} settle_arg;

static err_code settle_job(db_conn *c, void *arg, err_info *e)
{
    settle_arg *a = arg;

    return db_webhook_settle(c, a->p, a->error, a->at, e);
}

static err_code drop_job(db_conn *c, void *arg, err_info *e)
{
    settle_arg *a = arg;

    return db_webhook_drop(c, a->p->campaign_id, a->keep, a->error, a->at,
                           &a->n_dropped, e);
}

/* Settles p (error NULL: delivered), logging a failure. */
static void settle(notify *n, const db_webhook_post *p, const char *error)
{
    settle_arg a = {p, error, 0, 0, ""};
    err_info e;

    err_clear(&e);
    db_now(a.at);
    if (db_write(n->d, settle_job, &a, &e) != ERR_OK)
        fprintf(stderr, "umpire: channel post of %s: cannot settle it: %s\n",
                p->combat_id, e.message);
    else if (error != NULL && n->cfg.is_logging)
        fprintf(stderr,
                "umpire: channel post of %s (campaign %s) failed: "
                "%s\n",
                p->combat_id, p->campaign_id, error);
}

/* Drops the posts of the heads' campaigns beyond the backlog, oldest
 * first; whether any went. */
static bool drop_backlog(notify *n, const db_webhook_post *heads,
                         size_t n_heads)
{
    char error[96];
    bool has_dropped = false;
    size_t i;

    snprintf(error, sizeof error,
             "dropped: more than %d posts were waiting (the backlog)",
             n->cfg.backlog);
    for (i = 0; i < n_heads; i++) {
        settle_arg a = {&heads[i], error, n->cfg.backlog, 0, ""};
        err_info e;
        if (heads[i].n_waiting <= n->cfg.backlog)
            continue;
        err_clear(&e);
        db_now(a.at);
        if (db_write(n->d, drop_job, &a, &e) != ERR_OK)
            fprintf(stderr, "umpire: channel posts of %s: cannot drop: %s\n",
                    heads[i].campaign_id, e.message);
        else if (a.n_dropped > 0 && n->cfg.is_logging)
            fprintf(stderr,
                    "umpire: channel posts of campaign %s: %lld "
                    "dropped, more than %d waiting\n",
                    heads[i].campaign_id, a.n_dropped, n->cfg.backlog);
        has_dropped = has_dropped || a.n_dropped > 0;
    }
    return has_dropped;
}

/* The report's Markdown summary (new, free()): its summary_markdown, or
 * else the combat's short summary. */
static char *summary_of(const db_combat *cb)
{
    json_t *doc = json_loads(cb->report ? cb->report : "", 0, NULL);
    const char *md =
        json_string_value(json_object_get(doc, "summary_markdown"));
    char *s = strdup(md && md[0] ? md : (cb->summary ? cb->summary : ""));

    json_decref(doc);
    return s;
}

/*
 * Reads what p's try needs, in one snapshot: the URL to post to and the
 * message (both new, free()), and the webhook's token.  *is_gone when the
 * webhook was removed (and the post with it).  Errors fail the post.
 */
static err_code read_post(notify *n, const db_webhook_post *p, char **url,
                          char **msg, char token[DB_WEBHOOK_TOKEN_MAX],
                          bool *is_gone, err_info *e)
{
    notify_discord_combat in;
    db_webhook w;
    db_campaign cmp;
    db_combat cb;
    db_conn *c;
    char *summary = NULL;
    err_code rc;

    *url = *msg = NULL;
    memset(&cb, 0, sizeof cb);
    if ((rc = db_read_begin(n->d, &c, e)))
        return rc;
    rc = db_webhook_get(c, p->campaign_id, &w, e);
    *is_gone = rc == ERR_NOT_FOUND;
    if (rc == ERR_OK)
        rc = db_campaign_get(c, p->campaign_id, &cmp, e);
    if (rc == ERR_OK)
        rc = db_combat_get(c, p->combat_id, &cb, e);
    /* Ended in every case; the first error stays in e. */
    if (db_read_end(n->d, c, e) != ERR_OK && rc == ERR_OK)
        rc = e && e->code ? e->code : ERR_DB;
    /* A combat stored as its facts: its report rendered from them (facts
     * that do not render: the post carries the one-line summary,
     * summary_of; out of memory fails the try). */
    if (rc == ERR_OK && cb.facts != NULL &&
        combat_render_facts(&cb, NULL) == ERR_NOMEM)
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (rc != ERR_OK)
        goto out;
    snprintf(token, DB_WEBHOOK_TOKEN_MAX, "%s", w.token);
    summary = summary_of(&cb);
    in = (notify_discord_combat){p->campaign_id, cmp.name,      p->combat_id,
                                 cb.system,      cb.created_at, cb.note,
                                 summary};
    *msg = summary ? notify_discord_message(&in) : NULL;
    *url = malloc(strlen(n->base) + strlen(w.hook_id) + strlen(w.token) + 16);
    if (*msg == NULL || *url == NULL) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    sprintf(*url, "%s/webhooks/%s/%s", n->base, w.hook_id, w.token);
out:
    free(summary);
    db_combat_cleanup(&cb);
    if (rc != ERR_OK) {
        free(*url);
        free(*msg);
        *url = *msg = NULL;
    }
    return rc;
}

/* ---- one try ---- */

/* The wait after the n_tries-th failed try, in seconds. */
static double backoff(const notify_config *cfg, int n_tries)
{
    double ms = cfg->backoff_ms;

    while (--n_tries > 0 && ms < cfg->backoff_max_ms)
        ms *= 2;
    return (ms < cfg->backoff_max_ms ? ms : cfg->backoff_max_ms) / 1000.0;
}

/* Replaces every copy of token in s with the mask: no error text keeps
 * a webhook's secret. */
static void scrub(char *s, const char *token)
{
    size_t len = strlen(token), mask = strlen(NOTIFY_DISCORD_MASK);
    char *hit;

    while (len >= mask && (hit = strstr(s, token)) != NULL) {
        memcpy(hit, NOTIFY_DISCORD_MASK, mask);
        memmove(hit + mask, hit + len, strlen(hit + len) + 1);
    }
}

/*
 * What try number n_tries of a post came to, by its answer a: *wait the
 * seconds before the next try (RETRY), *is_global whether that wait holds
 * every campaign (a global rate limit), error why it failed (FAILED, n
 * bytes).  A 429 waits what it asks (its body's retry_after, else
 * Retry-After, else X-RateLimit-Reset-After), or fails when that is over
 * max_retry_after_ms; a 5xx or no answer waits the backoff; another
 * refusal fails at once.  Every kind counts a try.
 */
static outcome judge(const notify_config *cfg, const notify_http_answer *a,
                     int n_tries, double *wait, bool *is_global, char *error,
                     size_t n)
{
    char message[160];
    bool is_last = n_tries >= cfg->max_attempts;

    *wait = backoff(cfg, n_tries);
    *is_global = false;
    error[0] = '\0';
    if (a->status >= 200 && a->status <= 299)
        return DELIVERED;
    if (a->status == 429) {
        double asked;
        notify_discord_read_429(a->body, &asked, is_global);
        *is_global = *is_global || a->is_global;
        if (asked < 0)
            asked = a->retry_after >= 0 ? a->retry_after : a->reset_after;
        if (asked >= 0)
            *wait = asked;
        if (*wait * 1000.0 > cfg->max_retry_after_ms) {
            snprintf(error, n,
                     "HTTP 429: rate limited for %.0f s, longer "
                     "than the poster waits",
                     *wait);
            return FAILED;
        }
        snprintf(error, n, "HTTP 429: rate limited, after %d tries", n_tries);
        return is_last ? FAILED : RETRY;
    }
    notify_discord_error_message(a->body, message, sizeof message);
    if (a->status == 0)
        snprintf(error, n, "no answer: %.200s", a->error);
    else
        snprintf(error, n, "HTTP %d%s%s", a->status, message[0] ? ": " : "",
                 message);
    if (a->status != 0 && a->status < 500)
        return FAILED;
    if (is_last)
        snprintf(error + strlen(error), n - strlen(error), ", after %d tries",
                 n_tries);
    return is_last ? FAILED : RETRY;
}

/* One try of p, and what follows from it: settled, or its campaign held
 * until its next try. */
static void deliver(notify *n, const db_webhook_post *p, hold *h)
{
    char *url, *msg, token[DB_WEBHOOK_TOKEN_MAX] = "", error[256];
    notify_http_answer a;
    bool is_gone = false, is_global;
    double wait;
    err_info e;
    err_code rc;
    outcome o;

    err_clear(&e);
    rc = read_post(n, p, &url, &msg, token, &is_gone, &e);
    if (is_gone)
        return; /* removed with its webhook */
    if (rc != ERR_OK) {
        snprintf(error, sizeof error, "cannot read the combat: %.200s",
                 e.message);
        settle(n, p, error);
        return;
    }
    notify_http_post(n->http, url, msg, n->cfg.timeout_ms, &a);
    free(url);
    free(msg);
    h->seq = p->seq;
    h->n_tries++;
    o = judge(&n->cfg, &a, h->n_tries, &wait, &is_global, error, sizeof error);
    scrub(error, token);
    if (o == RETRY) {
        h->not_before = monotonic_s() + wait;
        if (is_global)
            n->global_until = h->not_before;
        return;
    }
    settle(n, p, o == DELIVERED ? NULL : error);
    h->seq = 0;
    h->n_tries = 0;
    /* The webhook's bucket is empty: the campaign's next post waits for
     * it to refill instead of meeting a 429. */
    h->not_before = o == DELIVERED && a.remaining == 0 && a.reset_after > 0
                        ? monotonic_s() + a.reset_after
                        : 0;
}

/*
 * One look at the posts waiting: the backlog dropped, then one post sent
 * if one is ready.  Returns when to look next: now (something changed),
 * the end of the first hold, or 0 (nothing waits: on news).
 */
static double work_once(notify *n)
{
    db_webhook_post *heads = NULL;
    double now = monotonic_s(), next = 0;
    size_t n_heads = 0, i;
    db_conn *c = db_read_acquire(n->d);
    err_info e;

    err_clear(&e);
    n->last_scan = now;
    if (!db_is_poster(n->d)) {
        /* another instance posts; look again, to take over if it stops */
        db_read_release(n->d, c);
        return now + 1.0;
    }
    if (db_webhook_heads(c, &heads, &n_heads, &e) != ERR_OK) {
        db_read_release(n->d, c);
        fprintf(stderr, "umpire: channel posts: %s\n", e.message);
        return now + 1.0;
    }
    db_read_release(n->d, c);
    if (drop_backlog(n, heads, n_heads)) {
        free(heads);
        return now;
    }
    holds_prune(n, heads, n_heads, now);
    for (i = 0; i < n_heads; i++) {
        hold *h = hold_get(n, heads[i].campaign_id);
        double ready = h ? h->not_before : now + 1.0; /* out of memory */
        if (ready < n->global_until)
            ready = n->global_until;
        if (h != NULL && ready <= now) {
            deliver(n, &heads[i], h);
            next = now;
            break;
        }
        if (next == 0 || ready < next)
            next = ready;
    }
    free(heads);
    return next;
}

static void *poster_main(void *arg)
{
    notify *n = arg;
    double next = monotonic_s();

    /* The name ps, top -H and perf show. */
    (void)prctl(PR_SET_NAME, "umpire-notify");
    while (wait_for_work(n, next))
        next = work_once(n);
    return NULL;
}

err_code notify_start(db *d, const notify_config *cfg, notify **out,
                      err_info *e)
{
    pthread_condattr_t attr;
    notify *n;
    bool is_http;
    err_code rc;

    *out = NULL;
    if ((rc = check_config(cfg, &is_http, e)))
        return rc;
    n = calloc(1, sizeof *n);
    if (n == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    n->d = d;
    n->cfg = *cfg;
    snprintf(n->base, sizeof n->base, "%s", cfg->api_base);
    n->cfg.api_base = n->base;
    if ((rc = notify_http_new(is_http, &n->http, e))) {
        free(n);
        return rc;
    }
    pthread_mutex_init(&n->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&n->cond, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&n->thread, NULL, poster_main, n) != 0) {
        pthread_mutex_destroy(&n->lock);
        pthread_cond_destroy(&n->cond);
        notify_http_free(n->http);
        free(n);
        return err_set(e, ERR_INTERNAL, NULL, "cannot start the poster");
    }
    if ((rc = db_add_commit_listener(d, on_commit, n, e)) != ERR_OK) {
        notify_stop(n);
        return rc;
    }
    *out = n;
    return ERR_OK;
}

void notify_stop(notify *n)
{
    if (n == NULL)
        return;
    db_remove_commit_listener(n->d, on_commit, n);
    pthread_mutex_lock(&n->lock);
    n->is_stopping = true;
    pthread_cond_signal(&n->cond);
    pthread_mutex_unlock(&n->lock);
    pthread_join(n->thread, NULL);
    pthread_mutex_destroy(&n->lock);
    pthread_cond_destroy(&n->cond);
    notify_http_free(n->http);
    free(n->holds);
    free(n);
}
