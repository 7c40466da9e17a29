/*
 * events_hub.c: the producer of the event streams; see events_hub.h.
 *
 * Everything here but starting and stopping runs on the pump's thread
 * (http_stream.h), one turn at a time: no lock is needed for the hub or
 * its subscribers.  A turn reads through one pooled read connection.
 *
 * Invariants: h->global is the last seq of the log the hub has read (its
 * news go to live subscribers only); a subscriber's cursor is the last
 * seq it has been given or passed over (fog), and every event of its
 * campaign up to it is behind it; a live subscriber's cursor is at least
 * h->global, a subscriber behind reads (cursor, h->global] of its campaign
 * before it is live again.  Seqs only grow, and the single writer commits
 * them in order, so nothing between two reads is missed.
 *
 * Where the store's writers commit seqs out of order across campaigns
 * (db_commits_in_order: several writers, several instances), a seq read
 * says nothing of the lower ones of other campaigns, still to commit:
 * no subscriber is ever live there, each reads its own campaign after
 * its own cursor every turn (within a campaign, writes go one at a time,
 * so its seqs commit in order).
 */
#include "events_hub.h"

#include "fog.h"
#include "history.h"
#include "jsonb.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Events read at once: the news of all campaigns, and a subscriber's
 * history while it catches up. */
#define NEWS_BATCH     256
#define CATCH_UP_BATCH 64
/* A stream's bytes waiting to be sent before the hub waits for it. */
#define BUFFER_LIMIT (256 * 1024)

struct events_hub {
    db *d;
    http_streams *streams;
    long long global; /* the log's last seq read; -1: unknown (no stream) */
    bool is_listening;
    bool is_ordered; /* db_commits_in_order: the news may be read at once */
};

struct events_sub {
    char campaign_id[DB_ID_MAX];
    char token_id[DB_ID_MAX]; /* the token it was opened with */
    bool is_umpire;
    char side_id[DB_ID_MAX]; /* a player's side */
    long long cursor;        /* the last seq given or passed over */
    bool is_live;            /* caught up: gets the news */
};

/* A viewer's fog of war, read once per turn (fog.h). */
typedef struct view {
    char campaign_id[DB_ID_MAX];
    char side_id[DB_ID_MAX];
    bool is_loaded; /* false: it could not be read (nothing is sent) */
    fog_view v;
} view;

/* One turn of the hub. */
typedef struct turn {
    events_hub *h;
    db_conn *c;
    view *views; /* the players' views met this turn */
    size_t n_views;
    long long plain_seq; /* the event whose text, as a viewer who sees */
    char *plain;         /* everything reads it, plain holds; 0: none */
    /* the last combat's results given again from its facts, and its
     * rolls, for its other units' events (history.h) */
    combat_results results;
    bool has_failed; /* a read failed: the turn stops */
} turn;

events_sub *events_hub_sub_new(const db_token *token, long long after)
{
    events_sub *sub = calloc(1, sizeof *sub);

    if (sub == NULL)
        return NULL;
    snprintf(sub->campaign_id, sizeof sub->campaign_id, "%s",
             token->campaign_id);
    snprintf(sub->token_id, sizeof sub->token_id, "%s", token->id);
    sub->is_umpire = token->is_umpire;
    snprintf(sub->side_id, sizeof sub->side_id, "%s", token->side_id);
    sub->cursor = after;
    return sub;
}

void events_hub_sub_free(events_sub *sub)
{
    free(sub);
}

/* ---- an event as sent ---- */

static json_t *url_of(const char *campaign_id, const char *what, const char *id)
{
    char url[160];

    snprintf(url, sizeof url, "/v1/campaigns/%s/%s/%s", campaign_id, what, id);
    return json_string(url);
}

/* What a combat event says: its summary as v may read it. */
static json_t *combat_data(const db_logged_event *ev, const fog_view *v)
{
    const char *summary = ev->summary ? ev->summary : "";
    char *fogged = v ? fog_summary(v, ev->system, summary) : NULL;
    json_t *j;

    if (v && fogged == NULL)
        return NULL;
    j = json_pack("{s:s, s:s, s:s, s:s, s:o}", "combat_id", ev->record_id,
                  "system", ev->system, "summary", fogged ? fogged : summary,
                  "created_at", ev->created_at, "url",
                  url_of(ev->campaign_id, "combats", ev->record_id));
    free(fogged);
    return j;
}

/*
 * The data of ev as viewer v sees it (NULL v: everything): new, or NULL
 * when v may not see it (*is_hidden) or on a failure (e says why).  Fog
 * of war (fog.h) reduces a unit's history event to what v sees of the
 * unit, or leaves it out, and a combat's summary likewise; a battle's
 * and the ledger's events name no unit.
 */
static json_t *event_data(turn *t, const db_logged_event *ev, const fog_view *v,
                          bool *is_hidden, err_info *e)
{
    json_t *j;

    *is_hidden = false;
    if (strcmp(ev->kind, "combat") == 0)
        j = combat_data(ev, v);
    else if (strcmp(ev->kind, "battle") == 0)
        j = json_pack("{s:s, s:s, s:s, s:I, s:o}", "battle_id", ev->record_id,
                      "system", ev->system, "status", ev->status, "n_actions",
                      (json_int_t)ev->n, "url",
                      url_of(ev->campaign_id, "battles", ev->record_id));
    else if (strcmp(ev->kind, "ledger") == 0)
        j = json_pack("{s:I, s:s}", "length", (json_int_t)ev->n, "head",
                      ev->head);
    else if ((j = history_feed_event(t->c, &ev->unit, &t->results, e)) == NULL)
        return NULL;
    else if (v != NULL) {
        j = fog_event(v, j, fog_unit_side(v, ev->unit.unit_id));
        *is_hidden = j == NULL;
        return j;
    }
    if (j == NULL)
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    return j;
}

/* "id: <seq>\nevent: <kind>\ndata: <JSON>\n\n" of ev for v: new, or NULL
 * (*is_hidden when v may not see it). */
static char *event_text(turn *t, const db_logged_event *ev, const fog_view *v,
                        bool *is_hidden, err_info *e)
{
    json_t *data = event_data(t, ev, v, is_hidden, e);
    char *json = data ? json_dumps(data, JSON_COMPACT) : NULL, *text = NULL;
    size_t len;

    json_decref(data);
    if (json == NULL) {
        if (data != NULL)
            err_set(e, ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    /* Compact JSON is one line: its strings' line breaks are escaped. */
    len = strlen(json) + strlen(ev->kind) + 64;
    if ((text = malloc(len)) != NULL)
        snprintf(text, len, "id: %lld\nevent: %s\ndata: %s\n\n", ev->seq,
                 ev->kind, json);
    else
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    free(json);
    return text;
}

/* ---- a turn ---- */

static void turn_fail(turn *t, const err_info *e)
{
    if (!t->has_failed)
        fprintf(stderr, "umpire: event streams: %s\n", e->message);
    t->has_failed = true;
}

/* The fog of war sub's viewer meets (fog.h): NULL when it sees
 * everything (the umpire, or fog off).  *ok false when it cannot be read:
 * then nothing is sent to sub this turn. */
static const fog_view *view_of(turn *t, const events_sub *sub, bool *ok)
{
    db_campaign cmp;
    err_info e;
    view *grown, *w;
    size_t i;

    *ok = true;
    if (sub->is_umpire)
        return NULL;
    for (i = 0; i < t->n_views; i++) {
        w = &t->views[i];
        if (strcmp(w->campaign_id, sub->campaign_id) == 0 &&
            strcmp(w->side_id, sub->side_id) == 0) {
            *ok = w->is_loaded;
            return w->is_loaded && w->v.is_on ? &w->v : NULL;
        }
    }
    if ((grown = realloc(t->views, (t->n_views + 1) * sizeof *grown)) == NULL) {
        *ok = false;
        return NULL;
    }
    t->views = grown;
    w = memset(&t->views[t->n_views++], 0, sizeof *w);
    snprintf(w->campaign_id, sizeof w->campaign_id, "%s", sub->campaign_id);
    snprintf(w->side_id, sizeof w->side_id, "%s", sub->side_id);
    err_clear(&e);
    w->is_loaded =
        db_campaign_get(t->c, sub->campaign_id, &cmp, &e) == ERR_OK &&
        fog_view_load(t->c, &cmp, false, sub->side_id, &w->v, &e) == ERR_OK;
    if (!w->is_loaded) /* its streams wait; the others go on */
        fprintf(stderr, "umpire: event streams: %s\n", e.message);
    *ok = w->is_loaded;
    return w->is_loaded && w->v.is_on ? &w->v : NULL;
}

/*
 * Gives ev to the stream s of sub, as sub's viewer may see it, and moves
 * sub's cursor past it; false when s has no room (or has ended), or the
 * event could not be made: then nothing moved.
 */
static bool deliver(turn *t, http_stream *s, events_sub *sub,
                    const db_logged_event *ev)
{
    const fog_view *v;
    bool ok, is_hidden;
    char *text;
    err_info e;

    if (strcmp(ev->kind, "revoked") == 0) {
        /* Not for clients: the stream's token stops working at once. */
        if (strcmp(ev->record_id, sub->token_id) == 0)
            http_stream_end(s);
        sub->cursor = ev->seq;
        return true;
    }
    if (http_stream_room(s) == 0)
        return false;
    v = view_of(t, sub, &ok);
    if (!ok)
        return false;
    err_clear(&e);
    if (v == NULL && t->plain_seq == ev->seq) {
        http_stream_write(s, t->plain, strlen(t->plain));
        sub->cursor = ev->seq;
        return true;
    }
    text = event_text(t, ev, v, &is_hidden, &e);
    if (text == NULL && !is_hidden) {
        turn_fail(t, &e);
        return false;
    }
    if (text != NULL)
        http_stream_write(s, text, strlen(text));
    if (v == NULL) { /* kept for the other viewers who see everything */
        free(t->plain);
        t->plain = text;
        t->plain_seq = ev->seq;
    } else {
        free(text);
    }
    sub->cursor = ev->seq;
    return true;
}

/* s could not take an event: when it is full, its producer wants a turn
 * once it has sent half; after a failure, the next commit brings one. */
static void fall_behind(http_stream *s)
{
    if (http_stream_room(s) == 0)
        http_stream_want(s);
}

/* The streams of a turn, asked whether a campaign has a live one. */
typedef struct watchers {
    http_stream *const *streams;
    size_t n;
} watchers;

/* Whether a live subscriber follows campaign_id: news reads the
 * documents of that campaign's unit events only. */
static bool is_watched(const char *campaign_id, void *arg)
{
    const watchers *w = arg;
    size_t k;

    for (k = 0; k < w->n; k++) {
        const events_sub *sub = http_stream_user(w->streams[k]);
        if (sub->is_live && strcmp(sub->campaign_id, campaign_id) == 0)
            return true;
    }
    return false;
}

/* The log's new events, of every campaign, to the live subscribers of
 * theirs; one with no room falls behind (catch_up). */
static void news(turn *t, http_stream *const *streams, size_t n)
{
    db_logged_event *evs = NULL;
    watchers watch = {streams, n};
    size_t n_evs = 0, i, k;
    err_info e;

    err_clear(&e);
    do {
        if (db_event_log_after(t->c, NULL, t->h->global, LLONG_MAX, NEWS_BATCH,
                               &evs, &n_evs, &e) != ERR_OK ||
            db_event_log_docs(t->c, evs, n_evs, is_watched, &watch, &e) !=
                ERR_OK) {
            db_event_log_free(evs, n_evs);
            turn_fail(t, &e);
            return;
        }
        for (i = 0; i < n_evs; i++) {
            for (k = 0; k < n; k++) {
                events_sub *sub = http_stream_user(streams[k]);
                if (!sub->is_live || evs[i].seq <= sub->cursor ||
                    strcmp(sub->campaign_id, evs[i].campaign_id) != 0)
                    continue;
                if (!deliver(t, streams[k], sub, &evs[i])) {
                    sub->is_live = false;
                    fall_behind(streams[k]);
                }
            }
            t->h->global = evs[i].seq;
        }
        db_event_log_free(evs, n_evs);
    } while (n_evs == NEWS_BATCH && !t->has_failed);
}

/* A subscriber behind: its campaign's events after its cursor, up to
 * the hub's, as its stream makes room; then it is live. */
static void catch_up(turn *t, http_stream *s, events_sub *sub)
{
    db_logged_event *evs = NULL;
    size_t n_evs = 0, i;
    err_info e;

    err_clear(&e);
    while (!sub->is_live && !t->has_failed) {
        if (http_stream_room(s) == 0) {
            fall_behind(s);
            return;
        }
        if (db_event_log_after(t->c, sub->campaign_id, sub->cursor,
                               t->h->is_ordered ? t->h->global : LLONG_MAX,
                               CATCH_UP_BATCH, &evs, &n_evs, &e) != ERR_OK) {
            turn_fail(t, &e);
            return;
        }
        for (i = 0; i < n_evs && deliver(t, s, sub, &evs[i]); i++)
            ;
        if (i < n_evs) { /* no room, or a failure */
            fall_behind(s);
        } else if (n_evs < CATCH_UP_BATCH) {
            if (!t->h->is_ordered) { /* read again next turn */
                db_event_log_free(evs, n_evs);
                return;
            }
            if (sub->cursor < t->h->global)
                sub->cursor = t->h->global;
            sub->is_live = true;
        }
        db_event_log_free(evs, n_evs);
        if (i < n_evs)
            return;
    }
}

/* The pump's producer (http_stream.h): a turn. */
static void work(void *arg, http_stream *const *streams, size_t n)
{
    events_hub *h = arg;
    turn t;
    err_info e;
    size_t i;

    if (n == 0) {
        /* Nobody listens: nothing is read.  The next turn with a stream
         * starts from the log's last seq then; a stream opened meanwhile
         * catches up from its own cursor to it, so nothing is missed. */
        h->global = -1;
        return;
    }
    memset(&t, 0, sizeof t);
    t.h = h;
    t.c = db_read_acquire(h->d);
    err_clear(&e);
    if (h->is_ordered && h->global < 0 &&
        db_event_log_last(t.c, NULL, &h->global, &e))
        turn_fail(&t, &e);
    if (!t.has_failed && h->is_ordered)
        news(&t, streams, n);
    for (i = 0; i < n && !t.has_failed; i++) {
        events_sub *sub = http_stream_user(streams[i]);
        if (!sub->is_live)
            catch_up(&t, streams[i], sub);
    }
    combat_results_cleanup(&t.results);
    db_read_release(h->d, t.c);
    for (i = 0; i < t.n_views; i++)
        fog_view_cleanup(&t.views[i].v);
    free(t.views);
    free(t.plain);
}

static void gone(void *arg, void *user)
{
    (void)arg;
    events_hub_sub_free(user);
}

err_code events_hub_start(db *d, int max_streams, int keepalive_ms,
                          int stall_ms, events_hub **out, err_info *e)
{
    http_streams_config cfg = {
        max_streams,         keepalive_ms, ": keep-alive\n\n",
        BUFFER_LIMIT,        stall_ms,     0,
        "live event streams"};
    http_streams_producer producer = {work, gone, NULL};
    events_hub *h = calloc(1, sizeof *h);
    err_code rc;

    *out = NULL;
    if (h == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    h->d = d;
    h->global = -1;
    h->is_ordered = db_commits_in_order(d);
    producer.arg = h;
    if ((rc = http_streams_start(&cfg, &producer, &h->streams, e)) ||
        (rc = db_add_commit_listener(d, http_streams_wake, h->streams, e))) {
        events_hub_stop(h);
        return rc;
    }
    h->is_listening = true;
    *out = h;
    return ERR_OK;
}

http_streams *events_hub_streams(events_hub *h)
{
    return h ? h->streams : NULL;
}

void events_hub_stop(events_hub *h)
{
    if (h == NULL)
        return;
    if (h->is_listening)
        db_remove_commit_listener(h->d, http_streams_wake, h->streams);
    http_streams_free(h->streams);
    free(h);
}
