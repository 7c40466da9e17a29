/*
 * history.c: what happened to the units of a campaign, read back: a
 * unit's history and its card (its state with its last event), and the
 * campaign's feed of every unit's events.  Events are written by the
 * jobs that change a unit (units_doc_event, units.c), in the same
 * transaction; this file only reads them, a page at a time.
 *
 * A page's cursor is the service-wide seq of the last event it served:
 * opaque to clients, and stable whatever is written after it.
 */
#include "history.h"
#include "jsonb.h"
#include "units_doc.h"
#include "combat.h"
#include "http.h"
#include "paging.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stored state or result document (new reference), null for none. */
static json_t *parse_doc(const char *s)
{
    json_t *j = s ? json_loads(s, 0, NULL) : NULL;

    return j ? j : json_null();
}

/* One history event as served, with the dice the unit rolled in it. */
static json_t *event_json(db_conn *c, const db_event *ev, bool is_feed,
                          err_info *e)
{
    json_t *actor = ev->actor_token_id[0]
                        ? json_pack("{s:s, s:s}", "role", "umpire", "token_id",
                                    ev->actor_token_id)
                        : json_null();
    json_t *j = json_pack(
        "{s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "seq",
        (json_int_t)(is_feed ? ev->seq : ev->unit_seq), "at", ev->at, "kind",
        ev->kind, "combat_id", jsonb_str_or_null(ev->combat_id), "actor", actor,
        "note", jsonb_str_or_null(ev->note), "before", parse_doc(ev->before),
        "after", parse_doc(ev->after), "result", parse_doc(ev->result));

    if (is_feed) {
        json_object_set_new(j, "unit_id", json_string(ev->unit_id));
        json_object_set_new(j, "unit_seq", json_integer(ev->unit_seq));
    }
    if (ev->combat_id[0]) {
        db_roll *rolls = NULL;
        size_t n = 0, i;
        json_t *a = json_array();
        if (db_rolls_of_unit(c, ev->combat_id, ev->unit_id, &rolls, &n, e)) {
            json_decref(a);
            json_decref(j);
            return NULL;
        }
        for (i = 0; i < n; i++)
            json_array_append_new(
                a,
                json_pack("{s:i, s:s, s:i, s:i, s:i, s:s}", "seq", rolls[i].seq,
                          "reason", rolls[i].reason, "faces", rolls[i].faces,
                          "natural", rolls[i].natural, "modified",
                          rolls[i].modified, "source", rolls[i].source));
        free(rolls);
        json_object_set_new(j, "rolls", a);
    }
    return j;
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

/* Replies one page of q, with the cursor of the next. */
static void reply_page(http_request *r, db_conn *c, db_event_query *q,
                       json_t *page, bool is_feed)
{
    db *d = http_db(r->srv);
    db_event *evs = NULL;
    size_t n = 0, i;
    json_t *items;
    err_info e;
    char next[24];

    err_clear(&e);
    /* One row more than the page tells whether another page follows. */
    q->limit++;
    if (db_events_page(c, q, &evs, &n, &e)) {
        db_read_release(d, c);
        json_decref(page);
        http_reply_problem(r, &e);
        return;
    }
    items = json_array();
    for (i = 0; i < n && i < (size_t)q->limit - 1; i++) {
        json_t *j = event_json(c, &evs[i], is_feed, &e);
        if (j == NULL) {
            db_read_release(d, c);
            db_events_free(evs, n);
            json_decref(items);
            json_decref(page);
            http_reply_problem(r, &e);
            return;
        }
        json_array_append_new(items, j);
    }
    db_read_release(d, c);
    json_object_set_new(page, "order",
                        json_string(q->is_newest_first ? "newest" : "oldest"));
    json_object_set_new(page, "items", items);
    if (n == (size_t)q->limit) {
        snprintf(next, sizeof next, "%lld", evs[n - 2].seq);
        json_object_set_new(page, "next_cursor", json_string(next));
    } else {
        json_object_set_new(page, "next_cursor", json_null());
    }
    db_events_free(evs, n);
    http_reply_json(r, 200, page);
}

void history_unit(http_request *r)
{
    db *d = http_db(r->srv);
    db_event_query q = {r->params[0], NULL, 0, false, 0};
    db_conn *c;
    db_unit u;
    err_info e;

    err_clear(&e);
    if (!read_page_query(r, &q, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    c = db_read_acquire(d);
    if (db_unit_find(c, r->params[0], r->params[1], &u, &e)) {
        db_read_release(d, c);
        http_reply_problem(r, &e);
        return;
    }
    q.unit_id = u.id;
    reply_page(r, c, &q, json_pack("{s:s}", "unit_id", u.id), false);
}

void history_campaign(http_request *r)
{
    db_event_query q = {r->params[0], NULL, 0, false, 0};
    err_info e;

    err_clear(&e);
    if (!read_page_query(r, &q, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    reply_page(r, db_read_acquire(http_db(r->srv)), &q,
               json_pack("{s:s}", "campaign_id", r->params[0]), true);
}

void history_card(http_request *r)
{
    db *d = http_db(r->srv);
    db_event_query q = {r->params[0], NULL, 0, true, 1};
    db_conn *c = db_read_acquire(d);
    db_event *evs = NULL;
    size_t n = 0;
    db_unit u;
    json_t *card, *last = json_null();
    err_info e;

    err_clear(&e);
    if (db_unit_find(c, r->params[0], r->params[1], &u, &e) ||
        (q.unit_id = u.id, db_events_page(c, &q, &evs, &n, &e)) ||
        (n > 0 && (last = event_json(c, &evs[0], false, &e)) == NULL)) {
        db_read_release(d, c);
        db_events_free(evs, n);
        http_reply_problem(r, &e);
        return;
    }
    db_read_release(d, c);
    card = units_doc_json(&u);
    json_object_set_new(card, "ineffective",
                        json_boolean(u.has_edna && u.edna == 0));
    json_object_set_new(card, "n_events",
                        json_integer(n > 0 ? evs[0].unit_seq : 0));
    json_object_set_new(card, "last_event", last);
    db_events_free(evs, n);
    http_reply_json(r, 200, card);
}
