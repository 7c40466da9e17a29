/*
 * test_history.c: unit histories, the campaign feed and the unit card over
 * HTTP.  One unit carrying SCRUD and EDNA goes through SCRUD combats, EDNA
 * tests, corrections and a resupply, interleaved with other units' events;
 * its history and the feed are then read in both orders, a page of 1, 2 and
 * 3 at a time, and the pages must add up to the whole list: no gaps, no
 * repeats, in order.  Each combat event is compared with the combat's own
 * report and roll log; each event's "before" with the previous "after".
 * Also: who may read, the card, and bad paging parameters.  Uses rig.h.
 */
#include "db_sql.h"
#include "harness.h"
#include "rig.h"
#include "suites.h"

#include <check.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shorthands for jansson lookups (borrowed; NULL when absent). */
static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static json_t *at(const json_t *a, size_t i)
{
    return json_array_get(a, i);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* The story of unit U, built by build_story (ids are 64 bytes). */
typedef struct story {
    test_campaign c;
    char u[64], b1[64], v[64]; /* U: SCRUD and EDNA; B1: SCRUD; V: EDNA */
    char combat[4][64];        /* U's combats, in order */
    char umpire_token_id[64];  /* the umpire token's id, from the database */
} story;

#define N_U_EVENTS    8
#define N_FEED_EVENTS 13 /* U 8, B1 3, V 2 */

/* U's events: kind, and the system of its combats. */
static const struct {
    const char *kind, *system;
    int combat; /* index in story.combat, or -1 */
} u_events[N_U_EVENTS] = {
    {"created", NULL, -1},    {"combat", "scrud", 0},   {"combat", "edna", 1},
    {"correction", NULL, -1}, {"resupply", NULL, -1},   {"combat", "scrud", 2},
    {"combat", "edna", 3},    {"correction", NULL, -1},
};

/* The id of the token whose SHA-256 is stored, read from the database. */
static void token_id_of(const char *token, char *out)
{
    uint8_t h[crypto_hash_sha256_BYTES];
    char hex[2 * sizeof h + 1];

    crypto_hash_sha256(h, (const uint8_t *)token, strlen(token));
    sodium_bin2hex(hex, sizeof hex, h, sizeof h);
    ck_assert(ts_sql_text(
        rig_ts, out, 64, "SELECT id FROM tokens WHERE hash = ?", TS_TEXT(hex)));
}

/* Creates a unit from the members after name; id_out 64 bytes. */
static void unit_with(const test_campaign *c, const char *name,
                      const char *side, const char *members, char *id_out)
{
    char body[256];
    json_t *j;

    snprintf(body, sizeof body, "{\"name\":\"%s\",\"side\":\"%s\",%s}", name,
             side, members);
    j = rig_call(201, "POST", c->umpire, body, "/v1/campaigns/%s/units", c->id);
    snprintf(id_out, 64, "%s", str(j, "id"));
    json_decref(j);
}

/* Posts a campaign combat of system; keeps its id in out (64 bytes). */
static void combat(const test_campaign *c, const char *system, const char *body,
                   char *out)
{
    json_t *j = rig_call(201, "POST", c->umpire, body,
                         "/v1/campaigns/%s/combats/%s", c->id, system);

    snprintf(out, 64, "%s", str(j, "id"));
    json_decref(j);
}

#define SCRUD_U_B1(du, db)                                                     \
    "{\"dice\":{\"source\":\"entered\"},\"sides\":[{\"side\":\"a\","           \
    "\"units\":[{\"unit\":\"U\",\"die\":" #du "}]},{\"side\":\"b\","           \
    "\"units\":[{\"unit\":\"B1\",\"die\":" #db "}]}]}"

static void build_story(story *s)
{
    static const char *const sides[] = {"a", "b", NULL};
    json_t *j;

    ts_campaign(rig_ts, &s->c, NULL, sides);
    token_id_of(s->c.umpire, s->umpire_token_id);
    unit_with(&s->c, "U", "a", "\"scrud\":{\"quality\":1},\"edna\":{}", s->u);
    unit_with(&s->c, "B1", "b", "\"scrud\":{}", s->b1);
    unit_with(&s->c, "V", "a", "\"edna\":{\"start\":6}", s->v);
    /* U's 6 beats B1's 2: heavy fighting, 1 fatigue for U */
    combat(&s->c, "scrud", SCRUD_U_B1(6, 2), s->combat[0]);
    /* 2 + 3 against EDNA 8: passed */
    combat(&s->c, "edna",
           "{\"dice\":{\"source\":\"entered\"},\"units\":[{\"unit\":\"U\","
           "\"dice\":[2,3]}]}",
           s->combat[1]);
    json_decref(rig_call(200, "PATCH", s->c.umpire,
                         "{\"edna\":{\"edna\":7},\"note\":\"rallied\"}",
                         "/v1/campaigns/%s/units/%s", s->c.id, s->u));
    json_decref(rig_call(200, "POST", s->c.umpire, NULL,
                         "/v1/campaigns/%s/units/%s/resupply", s->c.id, s->u));
    /* U 4 + 1 beats B1 3 - 1 */
    combat(&s->c, "scrud", SCRUD_U_B1(4, 3), s->combat[2]);
    /* a volley: V passes; U's 11 against 7 leaves 3 */
    combat(&s->c, "edna",
           "{\"dice\":{\"source\":\"entered\"},\"units\":[{\"unit\":\"V\","
           "\"dice\":[1,1]},{\"unit\":\"U\",\"dice\":[6,5]}]}",
           s->combat[3]);
    j = rig_call(200, "PATCH", s->c.umpire, "{\"scrud\":{\"quality\":2}}",
                 "/v1/campaigns/%s/units/%s", s->c.id, s->u);
    snprintf(rig_ctx, sizeof rig_ctx, "U at the end of its story");
    RIG_EQ_INT(rig_inum(get(j, "edna"), "edna"), 3);
    RIG_EQ_INT(rig_inum(get(j, "scrud"), "quality"), 2);
    RIG_EQ_INT(rig_inum(get(j, "scrud"), "fatigue_penalty"), 0);
    RIG_IS_TRUE(json_is_false(get(j, "eliminated")));
    json_decref(j);
}

/* GET path?order=..&limit=..&cursor=.. page after page until next_cursor
 * is null; asserts full pages and no empty trailing page.  Returns every
 * item in order (new). */
static json_t *walk(const char *token, const char *path, const char *order,
                    int limit)
{
    json_t *all = json_array(), *page;
    char cursor[64] = "";
    size_t n_pages = 0;

    for (;;) {
        json_t *next;
        page =
            rig_call(200, "GET", token, NULL, "%s?order=%s&limit=%d%s%s", path,
                     order, limit, cursor[0] ? "&cursor=" : "", cursor);
        snprintf(rig_ctx, sizeof rig_ctx, "%s, %s by %d, page %zu", path, order,
                 limit, n_pages + 1);
        RIG_EQ_STR(str(page, "order"), order);
        next = get(page, "next_cursor");
        RIG_IS_TRUE(json_is_null(next) || json_is_string(next));
        RIG_IS_TRUE(json_array_size(get(page, "items")) > 0);
        if (json_is_string(next))
            RIG_EQ_INT(json_array_size(get(page, "items")), limit);
        else
            RIG_IS_TRUE(json_array_size(get(page, "items")) <= (size_t)limit);
        json_array_extend(all, get(page, "items"));
        n_pages++;
        ck_assert_msg(n_pages < 100, "%s: the pages do not end", rig_ctx);
        if (!json_is_string(next)) {
            json_decref(page);
            break;
        }
        snprintf(cursor, sizeof cursor, "%s", json_string_value(next));
        json_decref(page);
    }
    return all;
}

/* The items of one GET that holds the whole list (new). */
static json_t *items_of(const char *token, const char *path_fmt, ...)
    __attribute__((format(printf, 2, 3)));

static json_t *items_of(const char *token, const char *path_fmt, ...)
{
    char path[512];
    json_t *page, *items;
    va_list ap;

    va_start(ap, path_fmt);
    vsnprintf(path, sizeof path, path_fmt, ap);
    va_end(ap);
    page = rig_call(200, "GET", token, NULL, "%s", path);
    RIG_IS_TRUE(json_is_null(get(page, "next_cursor")));
    items = json_incref(get(page, "items"));
    json_decref(page);
    return items;
}

/* The array reversed (new). */
static json_t *reversed(const json_t *a)
{
    json_t *r = json_array();
    size_t i;

    for (i = json_array_size(a); i > 0; i--)
        json_array_append(r, at(a, i - 1));
    return r;
}

/* Pages of 1, 2 and 3 in both orders add up to the whole list. */
static void check_paging(const char *token, const char *path,
                         const json_t *oldest)
{
    json_t *newest = reversed(oldest), *got;
    int limit;

    for (limit = 1; limit <= 3; limit++) {
        got = walk(token, path, "oldest", limit);
        snprintf(rig_ctx, sizeof rig_ctx, "%s oldest by %d", path, limit);
        RIG_EQ_INT(json_array_size(got), json_array_size(oldest));
        RIG_IS_TRUE(json_equal(got, oldest));
        json_decref(got);
        got = walk(token, path, "newest", limit);
        snprintf(rig_ctx, sizeof rig_ctx, "%s newest by %d", path, limit);
        RIG_IS_TRUE(json_equal(got, newest));
        json_decref(got);
    }
    json_decref(newest);
}

/* U's rolls in a combat's report: compared with an event's "rolls". */
static void check_event_rolls(const story *s, const json_t *ev)
{
    json_t *rep = rig_cget(&s->c, "combats/%s", str(ev, "combat_id"));
    json_t *rolls = get(ev, "rolls"), *r, *entry, *mine;
    size_t i, k = 0;

    RIG_IS_TRUE(json_is_array(rolls));
    /* a combat's event takes the combat's time */
    RIG_EQ_STR(str(ev, "at"), str(rep, "created_at"));
    json_array_foreach(get(rep, "rolls"), i, r)
    {
        if (strcmp(str(r, "unit_id"), s->u) != 0)
            continue;
        mine = at(rolls, k++);
        RIG_IS_TRUE(mine != NULL);
        RIG_EQ_INT(rig_inum(mine, "seq"), rig_inum(r, "seq"));
        RIG_EQ_INT(rig_inum(mine, "natural"), rig_inum(r, "natural"));
        RIG_EQ_INT(rig_inum(mine, "modified"), rig_inum(r, "modified"));
        RIG_EQ_INT(rig_inum(mine, "faces"), rig_inum(r, "faces"));
        RIG_EQ_STR(str(mine, "reason"), str(r, "reason"));
        RIG_EQ_STR(str(mine, "source"), str(r, "source"));
    }
    RIG_IS_TRUE(k > 0);
    RIG_EQ_INT(json_array_size(rolls), k); /* no other unit's dice */
    RIG_EQ_STR(str(rep, "system"), str(get(ev, "result"), "system"));
    /* the result is the unit's entry in the report, with its system */
    entry = json_deep_copy(get(ev, "result"));
    json_object_del(entry, "system");
    if (strcmp(str(rep, "system"), "edna") == 0) {
        mine = rig_find_by(get(rep, "tests"), "unit_id", s->u);
    } else {
        mine = rig_report_unit(rep, "U");
        RIG_EQ_STR(str(entry, "side"), "a");
        json_object_del(entry, "side");
    }
    RIG_IS_TRUE(json_equal(entry, mine));
    json_decref(entry);
    json_decref(rep);
}

/* Each of U's events as it should be, in its oldest-first list. */
static void check_u_events(const story *s, const json_t *items)
{
    static const int want_natural[2][2] = {{2, 3}, {6, 5}}; /* EDNA tests */
    json_t *ev, *prev = NULL;
    size_t i;

    RIG_EQ_INT(json_array_size(items), N_U_EVENTS);
    json_array_foreach(items, i, ev)
    {
        json_t *res = get(ev, "result");
        snprintf(rig_ctx, sizeof rig_ctx, "U's event %zu (%s)", i + 1,
                 u_events[i].kind);
        RIG_EQ_INT(rig_inum(ev, "seq"), (long long)i + 1);
        RIG_EQ_STR(str(ev, "kind"), u_events[i].kind);
        RIG_EQ_STR(str(get(ev, "actor"), "token_id"), s->umpire_token_id);
        if (prev) /* no change of U's state escapes its history */
            RIG_IS_TRUE(json_equal(get(ev, "before"), get(prev, "after")));
        prev = ev;
        if (u_events[i].combat < 0) {
            RIG_IS_TRUE(json_is_null(get(ev, "combat_id")));
            RIG_EQ_INT(json_array_size(get(ev, "rolls")), 0);
            continue;
        }
        RIG_EQ_STR(str(ev, "combat_id"), s->combat[u_events[i].combat]);
        RIG_EQ_STR(str(res, "system"), u_events[i].system);
        check_event_rolls(s, ev);
        if (strcmp(u_events[i].system, "edna") == 0) {
            int t = u_events[i].combat == 1 ? 0 : 1;
            RIG_EQ_INT(json_array_size(get(ev, "rolls")), 2);
            RIG_EQ_INT(rig_inum(at(get(ev, "rolls"), 0), "natural"),
                       want_natural[t][0]);
            RIG_EQ_INT(rig_inum(at(get(ev, "rolls"), 1), "natural"),
                       want_natural[t][1]);
            RIG_EQ_INT(rig_inum(res, "edna_after"),
                       rig_inum(get(get(ev, "after"), "edna"), "edna"));
            RIG_EQ_INT(rig_inum(res, "edna_before"),
                       rig_inum(get(get(ev, "before"), "edna"), "edna"));
        } else {
            RIG_EQ_INT(json_array_size(get(ev, "rolls")), 1);
        }
    }
    /* what each change was */
    ev = at(items, 1);
    snprintf(rig_ctx, sizeof rig_ctx, "U's first SCRUD combat");
    RIG_EQ_INT(rig_inum(get(get(ev, "before"), "scrud"), "fatigue_penalty"), 0);
    RIG_EQ_INT(rig_inum(get(get(ev, "after"), "scrud"), "fatigue_penalty"), 1);
    RIG_EQ_INT(rig_inum(at(get(ev, "rolls"), 0), "natural"), 6);
    ev = at(items, 3);
    snprintf(rig_ctx, sizeof rig_ctx, "U's EDNA correction");
    RIG_EQ_STR(str(ev, "note"), "rallied");
    RIG_EQ_INT(rig_inum(get(get(ev, "before"), "edna"), "edna"), 8);
    RIG_EQ_INT(rig_inum(get(get(ev, "after"), "edna"), "edna"), 7);
    ev = at(items, 4);
    snprintf(rig_ctx, sizeof rig_ctx, "U's resupply");
    RIG_EQ_INT(rig_inum(get(get(ev, "before"), "scrud"), "fatigue_penalty"), 1);
    RIG_EQ_INT(rig_inum(get(get(ev, "after"), "scrud"), "fatigue_penalty"), 0);
    ev = at(items, 6);
    snprintf(rig_ctx, sizeof rig_ctx, "U's EDNA test in a volley");
    RIG_EQ_INT(rig_inum(get(ev, "result"), "edna_before"), 7);
    RIG_EQ_INT(rig_inum(get(ev, "result"), "edna_after"), 3);
    ev = at(items, 7);
    snprintf(rig_ctx, sizeof rig_ctx, "U's SCRUD correction");
    RIG_EQ_INT(rig_inum(get(get(ev, "before"), "scrud"), "quality"), 1);
    RIG_EQ_INT(rig_inum(get(get(ev, "after"), "scrud"), "quality"), 2);
    RIG_IS_TRUE(json_equal(get(get(ev, "before"), "edna"),
                           get(get(ev, "after"), "edna")));
}

/* ---- 1. One unit's history, whole and in pages ---- */

START_TEST(test_unit_history_pages)
{
    story s;
    char path[192];
    json_t *all, *newest;

    build_story(&s);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units/%s/history", s.c.id,
             s.u);
    all = items_of(s.c.umpire, "%s?limit=200", path);
    check_u_events(&s, all);
    newest = items_of(s.c.umpire, "%s?order=newest", path);
    snprintf(rig_ctx, sizeof rig_ctx, "U's history, newest first");
    RIG_EQ_INT(rig_inum(at(newest, 0), "seq"), N_U_EVENTS);
    json_decref(newest);
    check_paging(s.c.umpire, path, all);
    /* the default order is oldest first */
    newest = items_of(s.c.umpire, "%s", path);
    snprintf(rig_ctx, sizeof rig_ctx, "U's history by default");
    RIG_IS_TRUE(json_equal(newest, all));
    json_decref(newest);
    json_decref(all);
}
END_TEST

/* ---- 2. The campaign-wide feed ---- */

START_TEST(test_campaign_feed)
{
    const char *ids[3];
    story s;
    char path[128];
    json_t *all, *ev;
    long long last = 0;
    size_t i, k;

    build_story(&s);
    ids[0] = s.u;
    ids[1] = s.b1;
    ids[2] = s.v;
    snprintf(path, sizeof path, "/v1/campaigns/%s/history", s.c.id);
    all = items_of(s.c.umpire, "%s?limit=200", path);
    snprintf(rig_ctx, sizeof rig_ctx, "the feed");
    RIG_EQ_INT(json_array_size(all), N_FEED_EVENTS);
    json_array_foreach(all, i, ev)
    {
        RIG_IS_TRUE(rig_inum(ev, "seq") > last); /* strictly increasing */
        last = rig_inum(ev, "seq");
        RIG_IS_TRUE(str(ev, "unit_id") != NULL);
        RIG_IS_TRUE(rig_inum(ev, "unit_seq") >= 1);
    }
    /* each unit's items are its history, in order */
    for (k = 0; k < 3; k++) {
        json_t *h = items_of(s.c.umpire, "/v1/campaigns/%s/units/%s/history",
                             s.c.id, ids[k]);
        size_t n = 0;
        json_array_foreach(all, i, ev)
        {
            json_t *copy;
            if (strcmp(str(ev, "unit_id"), ids[k]) != 0)
                continue;
            snprintf(rig_ctx, sizeof rig_ctx, "feed item %zu, unit %zu", i, k);
            RIG_EQ_INT(rig_inum(ev, "unit_seq"), (long long)n + 1);
            copy = json_deep_copy(ev);
            json_object_set(copy, "seq", get(ev, "unit_seq"));
            json_object_del(copy, "unit_seq");
            json_object_del(copy, "unit_id");
            RIG_IS_TRUE(json_equal(copy, at(h, n)));
            json_decref(copy);
            n++;
        }
        RIG_EQ_INT(n, json_array_size(h));
        json_decref(h);
    }
    /* the events of one combat are adjacent: B1 right after U in SCRUD */
    snprintf(rig_ctx, sizeof rig_ctx, "the feed's order");
    RIG_EQ_STR(str(at(all, 3), "combat_id"), s.combat[0]);
    RIG_EQ_STR(str(at(all, 4), "combat_id"), s.combat[0]);
    check_paging(s.c.umpire, path, all);
    /* newest first, seq strictly decreasing */
    json_decref(all);
    all = items_of(s.c.umpire, "%s?order=newest&limit=200", path);
    last = 0;
    json_array_foreach(all, i, ev)
    {
        snprintf(rig_ctx, sizeof rig_ctx, "the feed, newest, item %zu", i);
        RIG_IS_TRUE(last == 0 || rig_inum(ev, "seq") < last);
        last = rig_inum(ev, "seq");
    }
    json_decref(all);
}
END_TEST

/* A unit's page reads what each event's combat row holds for it (its
 * facts, the unit's rolls, the packed documents) with the event; a value
 * there that does not read is read again apart, which fails the page
 * (the log says why): never an event served without it.  The pages of
 * units with no event of that combat still read.  _i: the value damaged,
 * 0 the rolls, 1 the facts, 2 the documents, 3 documents that unpack but
 * hold no state for either unit. */
START_TEST(test_unit_page_of_a_damaged_combat)
{
    static const char *const columns[4] = {"rolls", "report", "unit_docs",
                                           "unit_docs"};
    /* each tagged as its kind is (a facts value, a documents frame) */
    static const unsigned char damaged[3][10] = {
        {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a},
        {0x1b, 'f', 'c', '1', 2, 0, 0, 1, 2, 3},
        {0x1b, 'u', 'd', '1', 0, 1, 2, 3, 4, 5}};
    story s;
    char sql[96];
    json_t *rep, *ev;
    size_t i, n_scrud = 0;

    build_story(&s);
    rep =
        items_of(s.c.umpire, "/v1/campaigns/%s/units/%s/history", s.c.id, s.u);
    snprintf(rig_ctx, sizeof rig_ctx, "U's page, whole");
    RIG_EQ_INT(json_array_size(rep), N_U_EVENTS);
    json_array_foreach(rep, i, ev)
    {
        if (str(ev, "combat_id") == NULL ||
            strcmp(str(ev, "combat_id"), s.combat[0]) != 0)
            continue;
        RIG_IS_TRUE(json_is_object(get(ev, "result")));
        RIG_EQ_INT(json_array_size(get(ev, "rolls")), 1);
        RIG_IS_TRUE(json_is_object(get(ev, "after")));
        n_scrud++;
    }
    RIG_EQ_INT(n_scrud, 1);
    json_decref(rep);

    snprintf(rig_ctx, sizeof rig_ctx, "%s damaged (%d)", columns[_i], _i);
    snprintf(sql, sizeof sql, "UPDATE combats SET %s = ? WHERE id = ?",
             columns[_i]);
    if (_i < 3) {
        RIG_EQ_INT(ts_sql_exec(rig_ts, sql,
                               TS_BLOB(damaged[_i], sizeof damaged[_i]),
                               TS_TEXT(s.combat[0])),
                   1);
    } else {
        size_t len = 0;
        unsigned char *z = db_doc_pack("\x1f\x1f\x1e\x1f\x1f\x1e", &len);
        ck_assert_ptr_nonnull(z);
        RIG_EQ_INT(
            ts_sql_exec(rig_ts, sql, TS_BLOB(z, len), TS_TEXT(s.combat[0])), 1);
        free(z);
    }
    rep = rig_call(500, "GET", s.c.umpire, NULL,
                   "/v1/campaigns/%s/units/%s/history", s.c.id, s.u);
    RIG_EQ_STR(str(rep, "code"), "database_error");
    json_decref(rep);
    rep = rig_call(500, "GET", s.c.umpire, NULL,
                   "/v1/campaigns/%s/units/%s/history?order=newest&limit=7",
                   s.c.id, s.u);
    RIG_EQ_STR(str(rep, "code"), "database_error");
    json_decref(rep);
    /* V has no event of it; U's newest page of one stops short of it */
    rep =
        items_of(s.c.umpire, "/v1/campaigns/%s/units/%s/history", s.c.id, s.v);
    RIG_EQ_INT(json_array_size(rep), 2); /* created, and the volley */
    json_decref(rep);
    rep = rig_call(200, "GET", s.c.umpire, NULL,
                   "/v1/campaigns/%s/units/%s/history?order=newest&limit=1",
                   s.c.id, s.u);
    RIG_EQ_INT(json_array_size(get(rep, "items")), 1);
    json_decref(rep);
}
END_TEST

/* The pages are written as text with each stored document spliced in as
 * it is (jsonr_is_plain), or, where it is not that simple, parsed and
 * written again: either way the value served is the value stored, a key
 * given twice its last value, and a document that does not read null. */
static void set_doc(const story *s, int unit_seq, const char *column,
                    const char *doc)
{
    char sql[192];

    snprintf(sql, sizeof sql,
             "UPDATE unit_events SET %s = ? WHERE unit_seq = ? AND unit_row "
             "= (SELECT rowid FROM units WHERE id = ?)",
             column);
    RIG_EQ_INT(
        ts_sql_exec(rig_ts, sql, TS_TEXT(doc), TS_INT(unit_seq), TS_TEXT(s->u)),
        1);
}

START_TEST(test_stored_documents_as_served)
{
    static const char spaced[] = " {\"n\" : \"a\\\"b\\/c\\n\", \"k\":[1, "
                                 "-2,true,null, {}],\"o\":{\"z\":0}} ";
    story s;
    json_t *items, *feed, *want, *ev;
    char path[192], stored[1024];
    size_t i;
    long long k;

    build_story(&s);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units/%s/history", s.c.id,
             s.u);
    /* each event whose documents are its own serves them as stored */
    items = items_of(s.c.umpire, "%s?limit=200", path);
    for (k = 1; k <= N_U_EVENTS; k++) {
        snprintf(rig_ctx, sizeof rig_ctx, "U's event %lld", k);
        if (!ts_sql_text(rig_ts, stored, sizeof stored,
                         "SELECT after FROM unit_events WHERE unit_seq = ? "
                         "AND after IS NOT NULL AND unit_row = (SELECT rowid "
                         "FROM units WHERE id = ?)",
                         TS_INT(k), TS_TEXT(s.u)))
            continue; /* packed in its combat's row */
        want = json_loads(stored, 0, NULL);
        RIG_IS_TRUE(want != NULL);
        RIG_IS_TRUE(json_equal(get(at(items, (size_t)k - 1), "after"), want));
        json_decref(want);
    }
    json_decref(items);
    /* not simple (a real number, a key twice), with spaces and escapes,
     * and damaged; and a note with control characters */
    set_doc(&s, 4, "before", "{\"x\":1.5,\"a\":1,\"a\":2}");
    set_doc(&s, 4, "after", spaced);
    set_doc(&s, 5, "after", "{\"broken\":");
    set_doc(&s, 4, "note", "two\nlines,\ta tab, \"quoted\" \\ \xc3\xa9");
    /* a note damaged into bytes that are not UTF-8 (SQLite keeps what it
     * is given; PostgreSQL refuses them): each such byte served as
     * U+FFFD, the page still JSON */
    if (!ts_is_pg())
        set_doc(&s, 5, "note", "cut \xc3 and \xff\xc3\xa9");
    items = items_of(s.c.umpire, "%s?limit=200", path);
    feed = items_of(s.c.umpire, "/v1/campaigns/%s/history?limit=200", s.c.id);
    for (i = 0; i < 2; i++) {
        json_t *e4 = at(items, 3), *e5 = at(items, 4);
        if (i == 1) { /* the same events in the feed */
            size_t j;
            e4 = e5 = NULL;
            json_array_foreach(feed, j, ev)
            {
                if (strcmp(str(ev, "unit_id"), s.u) != 0)
                    continue;
                if (rig_inum(ev, "unit_seq") == 4)
                    e4 = ev;
                if (rig_inum(ev, "unit_seq") == 5)
                    e5 = ev;
            }
        }
        snprintf(rig_ctx, sizeof rig_ctx, "%s", i ? "the feed" : "U's page");
        RIG_IS_TRUE(e4 != NULL && e5 != NULL);
        want = json_loads("{\"x\":1.5,\"a\":2}", 0, NULL);
        RIG_IS_TRUE(json_equal(get(e4, "before"), want));
        json_decref(want);
        want = json_loads(spaced, 0, NULL);
        RIG_IS_TRUE(want != NULL);
        RIG_IS_TRUE(json_equal(get(e4, "after"), want));
        json_decref(want);
        RIG_IS_TRUE(json_is_null(get(e5, "after")));
        RIG_EQ_STR(str(e4, "note"),
                   "two\nlines,\ta tab, \"quoted\" \\ \xc3\xa9");
        RIG_EQ_STR(str(e5, "kind"), u_events[4].kind);
        if (!ts_is_pg())
            RIG_EQ_STR(str(e5, "note"),
                       "cut \xef\xbf\xbd and \xef\xbf\xbd\xc3\xa9");
    }
    json_decref(feed);
    json_decref(items);
}
END_TEST

/* ---- 3. A cursor is stable while events are written ---- */

START_TEST(test_feed_cursor_while_writing)
{
    story s;
    json_t *page, *all, *got;
    char path[128], cursor[64];

    build_story(&s);
    snprintf(path, sizeof path, "/v1/campaigns/%s/history", s.c.id);
    page = rig_call(200, "GET", s.c.umpire, NULL, "%s?limit=5", path);
    snprintf(cursor, sizeof cursor, "%s", str(page, "next_cursor"));
    got = json_incref(get(page, "items"));
    json_decref(page);
    /* a new event after the first page */
    json_decref(rig_call(200, "PATCH", s.c.umpire, "{\"name\":\"U2\"}",
                         "/v1/campaigns/%s/units/%s", s.c.id, s.u));
    page = rig_call(200, "GET", s.c.umpire, NULL, "%s?limit=200&cursor=%s",
                    path, cursor);
    json_array_extend(got, get(page, "items"));
    json_decref(page);
    all = items_of(s.c.umpire, "%s?limit=200", path);
    snprintf(rig_ctx, sizeof rig_ctx, "feed across a write");
    RIG_EQ_INT(json_array_size(all), N_FEED_EVENTS + 1);
    RIG_IS_TRUE(json_equal(got, all));
    RIG_EQ_STR(str(get(at(all, N_FEED_EVENTS), "after"), "name"), "U2");
    json_decref(got);
    json_decref(all);
}
END_TEST

/* ---- 4. Who may read ---- */

START_TEST(test_history_access)
{
    static const char *const sides[] = {"x", "y", NULL};
    test_campaign other;
    story s;
    char paths[3][160];
    const char *path;
    json_t *as_umpire, *as_player, *p;
    size_t i;
    int k;

    build_story(&s);
    ts_campaign(rig_ts, &other, NULL, sides);
    snprintf(paths[0], sizeof paths[0], "/v1/campaigns/%s/units/%s/history",
             s.c.id, s.u);
    snprintf(paths[1], sizeof paths[1], "/v1/campaigns/%s/history", s.c.id);
    snprintf(paths[2], sizeof paths[2], "/v1/campaigns/%s/units/%s/card",
             s.c.id, s.u);
    for (i = 0; i < 3; i++) {
        path = paths[i];
        snprintf(rig_ctx, sizeof rig_ctx, "read %.160s", path);
        as_umpire = rig_call(200, "GET", s.c.umpire, NULL, "%s", path);
        for (k = 0; k < 2; k++) { /* both sides' players read alike */
            as_player = rig_call(200, "GET", s.c.player[k], NULL, "%s", path);
            RIG_IS_TRUE(json_equal(as_player, as_umpire));
            json_decref(as_player);
        }
        json_decref(as_umpire);
        p = rig_call(403, "GET", other.player[0], NULL, "%s", path);
        RIG_EQ_STR(str(p, "code"), "forbidden");
        json_decref(p);
        json_decref(rig_call(403, "GET", other.umpire, NULL, "%s", path));
        json_decref(rig_call(401, "GET", NULL, NULL, "%s", path));
    }
    /* a unit of this campaign is not found under another campaign */
    p = rig_call(404, "GET", other.umpire, NULL,
                 "/v1/campaigns/%s/units/%s/history", other.id, s.u);
    RIG_EQ_STR(str(p, "code"), "not_found");
    json_decref(p);
    json_decref(rig_call(404, "GET", other.player[1], NULL,
                         "/v1/campaigns/%s/units/%s/card", other.id, s.u));
}
END_TEST

/* ---- 5. The unit card ---- */

START_TEST(test_unit_card)
{
    story s;
    json_t *card, *unit, *newest, *hist, *page;

    build_story(&s);
    card = rig_cget(&s.c, "units/%s/card", s.u);
    unit = rig_cget(&s.c, "units/%s", s.u);
    page = rig_cget(&s.c, "units/%s/history?order=newest&limit=1", s.u);
    newest = json_incref(get(page, "items"));
    json_decref(page);
    hist =
        items_of(s.c.umpire, "/v1/campaigns/%s/units/%s/history", s.c.id, s.u);
    snprintf(rig_ctx, sizeof rig_ctx, "U's card");
    RIG_EQ_INT(json_array_size(get(card, "systems")), 2);
    RIG_EQ_STR(json_string_value(at(get(card, "systems"), 0)), "scrud");
    RIG_EQ_STR(json_string_value(at(get(card, "systems"), 1)), "edna");
    RIG_IS_TRUE(json_equal(get(card, "scrud"), get(unit, "scrud")));
    RIG_IS_TRUE(json_equal(get(card, "edna"), get(unit, "edna")));
    RIG_EQ_INT(rig_inum(get(card, "scrud"), "quality"), 2);
    RIG_EQ_INT(rig_inum(get(card, "scrud"), "fatigue_penalty"), 0);
    RIG_EQ_INT(rig_inum(get(card, "edna"), "edna"), 3);
    RIG_EQ_INT(rig_inum(get(card, "edna"), "start"), 8);
    RIG_IS_TRUE(json_is_false(get(card, "ineffective")));
    RIG_IS_TRUE(json_is_false(get(card, "eliminated")));
    RIG_EQ_INT(rig_inum(card, "n_events"), (long long)json_array_size(hist));
    RIG_EQ_INT(rig_inum(card, "n_events"), N_U_EVENTS);
    RIG_IS_TRUE(json_equal(get(card, "last_event"), at(newest, 0)));
    RIG_IS_TRUE(json_equal(get(card, "last_event"), at(hist, N_U_EVENTS - 1)));
    /* the card's state is the last event's "after" */
    RIG_IS_TRUE(json_equal(get(get(get(card, "last_event"), "after"), "edna"),
                           get(card, "edna")));
    json_decref(card);
    json_decref(unit);
    json_decref(newest);
    json_decref(hist);
    /* V's last event is the EDNA volley, with its two dice */
    card = rig_cget(&s.c, "units/%s/card", s.v);
    snprintf(rig_ctx, sizeof rig_ctx, "V's card");
    RIG_IS_TRUE(get(card, "scrud") == NULL);
    RIG_EQ_INT(rig_inum(card, "n_events"), 2);
    RIG_EQ_STR(str(get(card, "last_event"), "combat_id"), s.combat[3]);
    RIG_EQ_INT(json_array_size(get(get(card, "last_event"), "rolls")), 2);
    json_decref(card);
    /* B1, created and twice beaten: SCRUD only */
    card = rig_cget(&s.c, "units/%s/card", s.b1);
    snprintf(rig_ctx, sizeof rig_ctx, "B1's card");
    RIG_IS_TRUE(get(card, "edna") == NULL);
    RIG_EQ_INT(rig_inum(get(card, "scrud"), "defeat_penalty"), 2);
    RIG_EQ_INT(rig_inum(card, "n_events"), 3);
    json_decref(card);
}
END_TEST

/* ---- 6. Bad paging parameters ---- */

START_TEST(test_bad_paging)
{
    /* Codes and fields as api-spec/openapi.yaml's HistoryOrder,
     * HistoryLimit and HistoryCursor give them.  A limit that is not a
     * number has no code here: the spec says out_of_range, a server change
     * in progress answers invalid_value; the field is "limit" either way. */
    static const struct {
        const char *query, *code, *field;
    } bad[] = {
        {"order=sideways", "invalid_value", "order"},
        {"order=", "invalid_value", "order"},
        {"order=NEWEST", "invalid_value", "order"},
        {"limit=0", "out_of_range", "limit"},
        {"limit=201", "out_of_range", "limit"},
        {"limit=-1", "out_of_range", "limit"},
        {"limit=abc", NULL, "limit"},
        {"limit=5x", NULL, "limit"},
        {"limit=", NULL, "limit"},
        {"cursor=abc", "invalid_value", "cursor"},
        {"cursor=0", "invalid_value", "cursor"},
        {"cursor=-3", "invalid_value", "cursor"},
        {"cursor=", "invalid_value", "cursor"},
    };
    story s;
    char paths[3][192];
    json_t *p;
    size_t i, k;

    build_story(&s);
    snprintf(paths[0], sizeof paths[0], "/v1/campaigns/%s/units/%s/history",
             s.c.id, s.u);
    snprintf(paths[1], sizeof paths[1], "/v1/campaigns/%s/history", s.c.id);
    /* checked before the unit is looked up */
    snprintf(paths[2], sizeof paths[2],
             "/v1/campaigns/%s/units/unit_nope/history", s.c.id);
    for (k = 0; k < 3; k++)
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            snprintf(rig_ctx, sizeof rig_ctx, "%.150s?%.30s", paths[k],
                     bad[i].query);
            p = rig_call(422, "GET", s.c.player[0], NULL, "%s?%s", paths[k],
                         bad[i].query);
            RIG_EQ_INT(rig_inum(p, "status"), 422);
            if (bad[i].code)
                RIG_EQ_STR(str(p, "code"), bad[i].code);
            RIG_EQ_STR(str(p, "field"), bad[i].field);
            json_decref(p);
        }
    json_decref(
        rig_call(404, "GET", s.c.player[0], NULL, "%s?limit=5", paths[2]));
    for (k = 0; k < 2; k++) {
        /* the bounds themselves are fine */
        p = rig_call(200, "GET", s.c.player[0], NULL, "%s?limit=200", paths[k]);
        json_decref(p);
        p = rig_call(200, "GET", s.c.player[0], NULL, "%s?limit=1&order=newest",
                     paths[k]);
        snprintf(rig_ctx, sizeof rig_ctx, "%.150s by 1", paths[k]);
        RIG_EQ_INT(json_array_size(get(p, "items")), 1);
        RIG_IS_TRUE(json_is_string(get(p, "next_cursor")));
        json_decref(p);
    }
}
END_TEST

Suite *suite_history(void)
{
    Suite *s = suite_create("history");
    TCase *tc = tcase_create("history");

    tcase_add_checked_fixture(tc, rig_setup, rig_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_unit_history_pages);
    tcase_add_test(tc, test_campaign_feed);
    tcase_add_loop_test(tc, test_unit_page_of_a_damaged_combat, 0, 4);
    tcase_add_test(tc, test_stored_documents_as_served);
    tcase_add_test(tc, test_feed_cursor_while_writing);
    tcase_add_test(tc, test_history_access);
    tcase_add_test(tc, test_unit_card);
    tcase_add_test(tc, test_bad_paging);
    suite_add_tcase(s, tc);
    return s;
}
