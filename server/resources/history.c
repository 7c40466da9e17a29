/*
 * history.c: what happened to the units of a campaign, read back: a
 * unit's history and its card (its state with its last event), and the
 * campaign's feed of every unit's events.  Events are written by the
 * jobs that change a unit (units_doc_event, units.c), in the same
 * transaction; this file only reads them, a page at a time.
 *
 * A page's cursor is the service-wide seq of the last event it served:
 * opaque to clients, and stable whatever is written after it.
 *
 * Fog of war (fog.h): a player reads other sides' units' events reduced,
 * or not at all (a hidden unit's history and card answer 404, and the
 * feed leaves its events out, reading on until the page is full).
 */
#include "history.h"
#include "fog.h"
#include "jsonr.h"
#include "jsonw.h"
#include "units_doc.h"
#include "combat.h"
#include "http.h"
#include "paging.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stored state or result document (new reference), null for none or
 * one that does not read: what put_doc writes of a document it cannot
 * splice in as it is. */
static json_t *parse_doc(const char *s)
{
    json_t *j = s ? jsonr_loadb(s, strlen(s), 0, NULL) : NULL;

    return j ? j : json_null();
}

/* The result of a combat's event where its combat, stored as its facts
 * (db.h), gives it rather than the event (into results: the last
 * combat's, kept for its other units' events; *is_written then, for it
 * is the JSON writer's text just made); else the event's own (NULL:
 * none); *rc an error. */
static const char *result_of(db_conn *c, const db_event *ev,
                             combat_results *results, bool *is_written,
                             err_code *rc, err_info *e)
{
    const char *result = NULL;

    *rc = ERR_OK;
    *is_written = false;
    if (ev->result != NULL || ev->combat_id[0] == '\0' ||
        strcmp(ev->kind, "combat") != 0)
        return ev->result;
    *is_written = true;
    *rc = ev->facts != NULL /* read with the event: a unit's page */
              ? combat_results_load_facts(ev->combat_id, ev->system, ev->facts,
                                          ev->facts_len, results, e)
              : combat_results_load(c, ev->combat_id, results, e);
    if (*rc == ERR_OK)
        *rc = combat_results_of(results, ev->unit_id, &result, e);
    return result;
}

/* A stored document as the member key (a literal): its text as it is
 * where jsonr_is_plain says it reads as the value parse_doc would give,
 * else that value written again (null for none, or one that does not
 * read). */
static void put_doc(jw *w, const char *key, const char *doc)
{
    size_t n = doc ? strlen(doc) : 0;
    json_t *j;
    char *text;

    jw_key_plain(w, key, strlen(key));
    if (doc == NULL) {
        jw_null(w);
    } else if (jsonr_is_plain(doc, n)) {
        jw_raw(w, doc, n);
    } else {
        j = parse_doc(doc);
        text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
        json_decref(j);
        if (text == NULL)
            w->is_failed = true;
        else
            jw_raw(w, text, strlen(text));
        free(text);
    }
}

/*
 * One history event as served, with the dice the unit rolled in it,
 * written into w: each stored document spliced in as its text rather
 * than parsed and written again (a page holds three an event: building
 * them as a tree was most of a page's work, and writing the tree out
 * most of the rest).  false on an error (e).
 */
static bool event_write(jw *w, db_conn *c, const db_event *ev, bool is_feed,
                        combat_results *results, err_info *e)
{
    err_code rc;
    bool is_written;
    const char *result = result_of(c, ev, results, &is_written, &rc, e);

    if (rc != ERR_OK)
        return false;
    jw_object(w);
    jw_kint(w, "seq", is_feed ? ev->seq : ev->unit_seq);
    jw_kstring(w, "at", ev->at);
    jw_kstring(w, "kind", ev->kind);
    jw_kstring_or_null(w, "combat_id", ev->combat_id);
    jw_key(w, "actor");
    if (ev->actor_token_id[0]) {
        jw_object(w);
        jw_kstring(w, "role", "umpire");
        jw_kstring(w, "token_id", ev->actor_token_id);
        jw_object_end(w);
    } else {
        jw_null(w);
    }
    jw_kstring_or_null(w, "note", ev->note);
    put_doc(w, "before", ev->before);
    put_doc(w, "after", ev->after);
    if (is_written && result != NULL) /* as the writer wrote it */
        jw_kraw_plain(w, "result", 6, result, strlen(result));
    else
        put_doc(w, "result", result);
    if (is_feed) {
        jw_kstring(w, "unit_id", ev->unit_id);
        jw_kint(w, "unit_seq", ev->unit_seq);
    }
    if (ev->combat_id[0]) {
        /* A unit's: its own, read with the event or else apart (its page
         * has one event of each combat).  The feed's: its combat's, kept
         * for its next units'. */
        db_roll *own = NULL;
        const db_roll *rolls = NULL;
        size_t n = 0, i;
        if (is_feed) {
            rc = combat_results_rolls(c, ev->combat_id, results, &rolls, &n, e);
        } else if (ev->has_rolls) {
            rolls = ev->rolls;
            n = ev->n_rolls;
        } else if ((rc = db_rolls_of_unit(c, ev->combat_id, ev->unit_id, &own,
                                          &n, e)) == ERR_OK) {
            rolls = own;
        }
        if (rc != ERR_OK)
            return false;
        jw_key(w, "rolls");
        jw_array(w);
        for (i = 0; i < n; i++) {
            if (is_feed && strcmp(rolls[i].unit_id, ev->unit_id) != 0)
                continue;
            jw_object(w);
            jw_kint(w, "seq", rolls[i].seq);
            jw_kstring(w, "reason", rolls[i].reason);
            jw_kint(w, "faces", rolls[i].faces);
            jw_kint(w, "natural", rolls[i].natural);
            jw_kint(w, "modified", rolls[i].modified);
            jw_kstring(w, "source", rolls[i].source);
            jw_object_end(w);
        }
        jw_array_end(w);
        free(own);
    }
    jw_object_end(w);
    return true;
}

/* The event event_write writes, read back as a tree: where it is
 * edited (fog_event) or built into another document (the card, the live
 * streams); a page writes it as text. */
static json_t *event_json(db_conn *c, const db_event *ev, bool is_feed,
                          combat_results *results, err_info *e)
{
    json_t *j = NULL;
    char *text;
    size_t len = 0;
    jw w;

    jw_init(&w);
    if (!event_write(&w, c, ev, is_feed, results, e)) {
        jw_free(&w);
        return NULL;
    }
    if ((text = jw_take(&w, &len)) == NULL)
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    else if ((j = jsonr_loadb(text, len, 0, NULL)) == NULL)
        /* a text field of the row that is not UTF-8: a damaged store */
        err_set(e, ERR_DB, NULL, "history event %lld of unit %s does not read",
                ev->seq, ev->unit_id);
    free(text);
    return j;
}

json_t *history_feed_event(db_conn *c, const db_event *ev,
                           combat_results *results, err_info *e)
{
    return event_json(c, ev, true, results, e);
}

/* The paging query (paging.h) of a history; its cursor is the
 * service-wide seq of the last event of the previous page, in decimal:
 * opaque to clients, stable whatever is written next. */
static bool read_page_query(http_request *r, db_event_query *q, err_info *e)
{
    paging p;
    long long c = 0;

    if (!paging_read(r, true, &p, e))
        return false;
    if (p.cursor) {
        char *end;
        errno = 0;
        c = strtoll(p.cursor, &end, 10);
        if (*end || c < 1 || errno == ERANGE ||
            strspn(p.cursor, "0123456789") != strlen(p.cursor)) {
            paging_cursor_error(e);
            return false;
        }
    }
    q->is_newest_first = p.is_newest_first;
    q->limit = p.limit;
    q->after = c;
    return true;
}

/* One page being filled: its items, and the seq of the last served. */
typedef struct page_fill {
    jw items;           /* the page's items so far, a JSON array's text */
    int n, want;        /* items so far, and at most */
    long long last_seq; /* the last item's seq */
    bool has_more;      /* an event v may see follows the page */
} page_fill;

/*
 * Adds to pf the events of evs (n of them) v may see, until the page is
 * full; an event past a full page says another page follows.  side_id:
 * the unit's side for one unit's history, NULL for the feed (each
 * event's own, as v knows it).
 */
static err_code fill_page(db_conn *c, const fog_view *v, const db_event *evs,
                          size_t n, bool is_feed, const char *side_id,
                          page_fill *pf, combat_results *results, err_info *e)
{
    size_t i;

    for (i = 0; i < n && !pf->has_more; i++) {
        const char *side = side_id ? side_id : fog_unit_side(v, evs[i].unit_id);
        fog_level level = fog_of_side(v, side);
        json_t *j;
        char *text;
        if (level == FOG_HIDDEN)
            continue;
        if (pf->n == pf->want) {
            pf->has_more = true;
            break;
        }
        if (level == FOG_FULL) { /* as it is: written, not built */
            if (!event_write(&pf->items, c, &evs[i], is_feed, results, e))
                return e->code;
        } else { /* reduced: fog_event edits the event built */
            if ((j = event_json(c, &evs[i], is_feed, results, e)) == NULL)
                return e->code;
            j = fog_event(v, j, side);
            text = j ? json_dumps(j, JSON_COMPACT) : NULL;
            json_decref(j);
            if (text == NULL)
                return err_set(e, ERR_NOMEM, NULL, "out of memory");
            jw_raw(&pf->items, text, strlen(text));
            free(text);
        }
        pf->n++;
        pf->last_seq = evs[i].seq;
    }
    return ERR_OK;
}

/* Replies one page of q, its first member id_key: id, with the cursor
 * of the next; releases c.  A fogged feed may skip events, so it reads
 * on, a page's worth at a time, until the page is full or the history
 * ends.  The page is written as text (jsonw.h), not built. */
static void reply_page(http_request *r, db_conn *c, db_event_query *q,
                       const char *id_key, const char *id, bool is_feed,
                       const fog_view *v, const char *side_id)
{
    db *d = http_db(r->srv);
    page_fill pf;
    jw page;
    combat_results results;
    db_event *evs = NULL;
    size_t n = 0;
    err_info e;
    char next[24], *items;
    size_t items_len = 0;

    err_clear(&e);
    memset(&results, 0, sizeof results);
    jw_init(&pf.items);
    jw_array(&pf.items);
    pf.n = 0;
    pf.want = q->limit;
    pf.last_seq = 0;
    pf.has_more = false;
    /* One row more than the page tells whether another page follows. */
    q->limit++;
    for (;;) {
        if (db_events_page(c, q, &evs, &n, &e) ||
            fill_page(c, v, evs, n, is_feed, side_id, &pf, &results, &e))
            break;
        if (pf.has_more || n < (size_t)q->limit)
            break;
        q->after = evs[n - 1].seq;
        db_events_free(evs, n);
        evs = NULL;
        n = 0;
    }
    db_read_release(d, c);
    db_events_free(evs, n);
    combat_results_cleanup(&results);
    if (e.code != ERR_OK) {
        jw_free(&pf.items);
        http_reply_problem(r, &e);
        return;
    }
    jw_array_end(&pf.items);
    items = jw_take(&pf.items, &items_len);
    jw_init(&page);
    jw_object(&page);
    jw_key_plain(&page, id_key, strlen(id_key));
    jw_string(&page, id);
    jw_kstring(&page, "order", q->is_newest_first ? "newest" : "oldest");
    jw_key(&page, "items");
    if (items != NULL)
        jw_raw(&page, items, items_len);
    else
        page.is_failed = true;
    free(items);
    if (pf.has_more) {
        snprintf(next, sizeof next, "%lld", pf.last_seq);
        jw_kstring(&page, "next_cursor", next);
    } else {
        jw_kraw_plain(&page, "next_cursor", 11, "null", 4);
    }
    jw_object_end(&page);
    http_reply_json_text(r, 200, jw_take(&page, NULL));
}

/* The unit of the path, in c, as the caller may see it: a unit fog hides
 * is not found.  v is the caller's view (fog_view_cleanup it). */
static err_code find_unit(http_request *r, db_conn *c, fog_view *v, db_unit *u,
                          err_info *e)
{
    err_code rc;

    if ((rc = fog_view_of(c, r, r->params[0], v, e)) ||
        (rc = db_unit_find(c, r->params[0], r->params[1], u, e)))
        return rc;
    if (!fog_unit_visible(v, u->side_id))
        return fog_unit_not_found(e, r->params[1]);
    return ERR_OK;
}

void history_unit(http_request *r)
{
    db *d = http_db(r->srv);
    db_event_query q = {r->params[0], NULL, 0, false, 0};
    db_conn *c;
    db_unit u;
    fog_view v;
    err_info e;

    err_clear(&e);
    if (!read_page_query(r, &q, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    c = db_read_acquire(d);
    if (find_unit(r, c, &v, &u, &e)) {
        db_read_release(d, c);
        fog_view_cleanup(&v);
        http_reply_problem(r, &e);
        return;
    }
    q.unit_id = u.id;
    reply_page(r, c, &q, "unit_id", u.id, false, &v, u.side_id);
    fog_view_cleanup(&v);
}

void history_campaign(http_request *r)
{
    db *d = http_db(r->srv);
    db_event_query q = {r->params[0], NULL, 0, false, 0};
    db_conn *c;
    fog_view v;
    err_info e;

    err_clear(&e);
    if (!read_page_query(r, &q, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    c = db_read_acquire(d);
    if (fog_view_of(c, r, r->params[0], &v, &e)) {
        db_read_release(d, c);
        fog_view_cleanup(&v);
        http_reply_problem(r, &e);
        return;
    }
    reply_page(r, c, &q, "campaign_id", r->params[0], true, &v, NULL);
    fog_view_cleanup(&v);
}

void history_card(http_request *r)
{
    db *d = http_db(r->srv);
    db_event_query q = {r->params[0], NULL, 0, true, 1};
    db_conn *c = db_read_acquire(d);
    db_event *evs = NULL;
    size_t n = 0;
    db_unit u;
    fog_view v;
    json_t *card, *last = json_null();
    combat_results results;
    err_info e;

    err_clear(&e);
    memset(&results, 0, sizeof results);
    if (find_unit(r, c, &v, &u, &e) ||
        (q.unit_id = u.id, db_events_page(c, &q, &evs, &n, &e)) ||
        (n > 0 &&
         (last = event_json(c, &evs[0], false, &results, &e)) == NULL)) {
        combat_results_cleanup(&results);
        db_read_release(d, c);
        db_events_free(evs, n);
        fog_view_cleanup(&v);
        http_reply_problem(r, &e);
        return;
    }
    combat_results_cleanup(&results);
    db_read_release(d, c);
    card = units_doc_json(&u);
    json_object_set_new(card, "ineffective",
                        json_boolean(u.has_edna && u.edna == 0));
    json_object_set_new(card, "n_events",
                        json_integer(n > 0 ? evs[0].unit_seq : 0));
    json_object_set_new(card, "last_event", last);
    db_events_free(evs, n);
    /* Reduced whole: its state, and its last event with it. */
    card = fog_unit(&v, card);
    fog_view_cleanup(&v);
    http_reply_json(r, 200, card);
}
