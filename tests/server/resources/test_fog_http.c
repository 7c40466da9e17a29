/*
 * test_fog_http.c: fog of war over HTTP (server/systems/fog.h).  One
 * campaign, red (the player here) against blue, with units of every
 * system, a SCRUD combat, an EDNA test, an SCS combat, a Matrix and a
 * Civilization battle and a blue unit eliminated, is read by the red
 * player with fog off, and on at each level (full, status, name, hidden),
 * the umpire switching it with PATCH.  What the player reads is compared
 * with a reference model applied to what the umpire reads: its own units
 * whole, blue's reduced to the level, or absent; at "hidden" no blue
 * unit's name or id appears anywhere.  The umpire's answers stay what
 * they were with fog off.  Also: the option at creation, PATCH and its
 * errors, and a viewer holding no side (a share link's) in process.
 */
#include "fog.h"
#include "fog_rig.h"
#include "harness.h"
#include "rig.h"
#include "suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* ---- the reference model ---- */

static const char *const keep_name[] = {"id",   "unit",    "unit_id", "name",
                                        "side", "side_id", "role",    NULL};
static const char *const keep_status[] = {"eliminated", "eliminated_reason",
                                          NULL};

static bool listed(const char *k, const char *const list[])
{
    for (; *list; list++)
        if (strcmp(k, *list) == 0)
            return true;
    return false;
}

/* What the player sees of a unit of side_id: red's whole, blue's as the
 * campaign's level (others; FOG_FULL with fog off). */
static int level_of(const fog_rig_world *w, const char *side_id, int others)
{
    return side_id && strcmp(side_id, w->c.side_id[0]) == 0 ? FOG_FULL : others;
}

/* An entry about a unit as level shows it (new), NULL when absent. */
static json_t *model_entry(const json_t *full, int level)
{
    const char *k;
    json_t *v, *m;

    if (level == FOG_FULL)
        return json_deep_copy(full);
    if (level == FOG_HIDDEN)
        return NULL;
    m = json_object();
    json_object_foreach((json_t *)full, k, v)
    {
        if (listed(k, keep_name) ||
            (level == FOG_STATUS && listed(k, keep_status)))
            json_object_set(m, k, v);
    }
    json_object_set_new(m, "fog", json_string(fog_rig_levels[level]));
    return m;
}

/* A history event as level shows it (new), NULL when absent: where and
 * when, its states reduced like entries, nothing of what the unit did. */
static json_t *model_event(const json_t *full, int level)
{
    static const char *const kept[] = {"seq",  "unit_seq",  "unit_id", "at",
                                       "kind", "combat_id", NULL};
    static const char *const states[] = {"before", "after"};
    json_t *m, *state, *s;
    const char *k;
    json_t *v;
    int i;

    if (level == FOG_FULL || level == FOG_HIDDEN)
        return level == FOG_FULL ? json_deep_copy(full) : NULL;
    m = json_object();
    json_object_foreach((json_t *)full, k, v)
    {
        if (listed(k, kept))
            json_object_set(m, k, v);
    }
    for (i = 0; i < 2; i++) {
        state = get(full, states[i]);
        s = json_is_object(state) ? model_entry(state, level) : json_null();
        json_object_del(s, "fog");
        json_object_set_new(m, states[i], s);
    }
    json_object_set_new(m, "fog", json_string(fog_rig_levels[level]));
    return m;
}

/* The entries of arr as the player sees them, each placed by side(e). */
static json_t *
model_entries(const fog_rig_world *w, const json_t *arr, int others,
              const char *(*side)(const fog_rig_world *, const json_t *))
{
    json_t *out = json_array(), *e, *m;
    size_t i;

    json_array_foreach(arr, i, e)
    {
        if ((m = model_entry(e, level_of(w, side(w, e), others))) != NULL)
            json_array_append_new(out, m);
    }
    return out;
}

/* Where entries name their side: a unit's "side", or by its name (every
 * red unit's name starts "Red"). */
static const char *side_of_unit(const fog_rig_world *w, const json_t *u)
{
    (void)w;
    return str(get(u, "side"), "id");
}

static const char *side_of_name(const fog_rig_world *w, const json_t *e)
{
    const char *n = str(e, "unit") ? str(e, "unit") : str(e, "name");

    return n && strncmp(n, "Red", 3) == 0 ? w->c.side_id[0] : w->c.side_id[1];
}

static void assert_json_eq(const json_t *got, const json_t *want,
                           const char *what)
{
    char *g, *x;

    if (json_equal(got, want))
        return;
    g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    x = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    ck_abort_msg("%s: %s\ngot  %.3000s\nwant %.3000s", rig_ctx, what,
                 g ? g : "(null)", x ? x : "(null)");
}

/* At "hidden", no blue unit's name or id appears in doc. */
static void assert_no_blue(const fog_rig_world *w, const json_t *doc,
                           const char *what)
{
    char *s = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY);
    json_t *id;
    size_t i;

    ck_assert_ptr_nonnull(s);
    ck_assert_msg(strstr(s, "Bleu") == NULL,
                  "%s: %s names a blue unit: %.3000s", rig_ctx, what, s);
    json_array_foreach(w->blue_ids, i, id)
    {
        ck_assert_msg(strstr(s, json_string_value(id)) == NULL,
                      "%s: %s has the id of a blue unit", rig_ctx, what);
    }
    free(s);
}

/* ---- what the player reads, against the model ---- */

static json_t *as_umpire(const fog_rig_world *w, const char *what)
{
    return rig_call(200, "GET", w->c.umpire, NULL, "/v1/campaigns/%s/%s",
                    w->c.id, what);
}

static json_t *as_player(const fog_rig_world *w, int status, const char *what)
{
    return rig_call(status, "GET", w->c.player[0], NULL, "/v1/campaigns/%s/%s",
                    w->c.id, what);
}

/* GET what (a unit, or its card) as the player: the model of the
 * umpire's answer, or 404 for a hidden unit. */
static void check_read(const fog_rig_world *w, const char *what, int level)
{
    json_t *u = as_umpire(w, what), *want = model_entry(u, level);
    json_t *got = as_player(w, level == FOG_HIDDEN ? 404 : 200, what);

    if (want)
        assert_json_eq(got, want, what);
    json_decref(u);
    json_decref(want);
    json_decref(got);
}

/* Each unit read by id, its card and its history. */
static void check_unit(const fog_rig_world *w, const json_t *u, int others)
{
    const char *id = str(u, "id");
    int level = level_of(w, str(get(u, "side"), "id"), others);
    char what[160];
    json_t *full, *got, *items = json_array(), *e, *m;
    size_t i;

    snprintf(what, sizeof what, "units/%s", id);
    check_read(w, what, level);
    snprintf(what, sizeof what, "units/%s/card", id);
    check_read(w, what, level);
    snprintf(what, sizeof what, "units/%s/history?limit=200", id);
    full = as_umpire(w, what);
    got = as_player(w, level == FOG_HIDDEN ? 404 : 200, what);
    json_array_foreach(get(full, "items"), i, e)
    {
        if ((m = model_event(e, level)) != NULL)
            json_array_append_new(items, m);
    }
    if (level != FOG_HIDDEN)
        assert_json_eq(get(got, "items"), items, what);
    json_decref(full);
    json_decref(got);
    json_decref(items);
}

static void check_units(const fog_rig_world *w, int others)
{
    json_t *u = as_umpire(w, "units?limit=200"), *p, *want, *x;
    size_t i;

    p = as_player(w, 200, "units?limit=200");
    want = model_entries(w, get(u, "items"), others, side_of_unit);
    assert_json_eq(get(p, "items"), want, "units");
    if (others == FOG_HIDDEN)
        assert_no_blue(w, p, "units");
    json_array_foreach(get(u, "items"), i, x) check_unit(w, x, others);
    json_decref(u);
    json_decref(p);
    json_decref(want);
}

/* A filter on what the level hides keeps the list to red's units. */
static void check_filter(const fog_rig_world *w, const char *query, int needs,
                         int others)
{
    char what[96];
    json_t *u, *p, *want = json_array(), *x, *m;
    size_t i;

    snprintf(what, sizeof what, "units?limit=200&%s", query);
    u = as_umpire(w, what);
    p = as_player(w, 200, what);
    json_array_foreach(get(u, "items"), i, x)
    {
        int level = level_of(w, side_of_unit(w, x), others);
        if (others > needs && level != FOG_FULL)
            continue;
        if ((m = model_entry(x, level)) != NULL)
            json_array_append_new(want, m);
    }
    assert_json_eq(get(p, "items"), want, what);
    json_decref(u);
    json_decref(p);
    json_decref(want);
}

/* The feed whole, and a page of 2 at a time adding up to it. */
static void check_feed(const fog_rig_world *w, int others)
{
    json_t *u = as_umpire(w, "history?limit=200"), *p, *want = json_array();
    json_t *pages = json_array(), *e, *m;
    char what[128], cursor[32] = "";
    size_t i;

    json_array_foreach(get(u, "items"), i, e)
    {
        m = model_event(e,
                        level_of(w, str(get(e, "after"), "side_id"), others));
        if (m)
            json_array_append_new(want, m);
    }
    p = as_player(w, 200, "history?limit=200");
    assert_json_eq(get(p, "items"), want, "history");
    if (others == FOG_HIDDEN)
        assert_no_blue(w, p, "the feed");
    json_decref(p);
    do {
        snprintf(what, sizeof what, "history?limit=2%s%s",
                 cursor[0] ? "&cursor=" : "", cursor);
        p = as_player(w, 200, what);
        json_array_extend(pages, get(p, "items"));
        snprintf(cursor, sizeof cursor, "%s",
                 str(p, "next_cursor") ? str(p, "next_cursor") : "");
        RIG_IS_TRUE(json_array_size(get(p, "items")) == 2 || !cursor[0]);
        json_decref(p);
    } while (cursor[0]);
    assert_json_eq(pages, want, "the feed, 2 at a time");
    json_decref(u);
    json_decref(want);
    json_decref(pages);
}

/* A report without the units' entries, its summary and its fog (new):
 * what fog leaves as it was below "hidden". */
static json_t *course(const json_t *rep)
{
    static const char *const parts[] = {
        "sides", "tests", "attackers",        "defenders",
        "input", "setup", "summary_markdown", "fog",
        NULL};
    json_t *c = json_deep_copy(rep);
    size_t i;

    for (i = 0; parts[i]; i++)
        json_object_del(c, parts[i]);
    return c;
}

/* The part of a report that holds entries, as the player sees it. */
static void check_entries(const fog_rig_world *w, const json_t *u,
                          const json_t *p, int others, const char *what)
{
    json_t *want = model_entries(w, u, others, side_of_name);

    assert_json_eq(p, want, what);
    json_decref(want);
}

/* A report or battle read by the player: whole with fog off or "full";
 * else marked, its frame and fight as the umpire's ("hidden": no blue in
 * it), and its entries checked by check. */
static bool check_frame(const fog_rig_world *w, const json_t *u,
                        const json_t *p, int others, const char *what)
{
    json_t *cu, *cp;

    if (others == FOG_FULL) {
        assert_json_eq(p, u, what);
        return false;
    }
    RIG_EQ_STR(str(get(p, "fog"), "others"), fog_rig_levels[others]);
    RIG_EQ_STR(str(get(p, "fog"), "side_id"), w->c.side_id[0]);
    if (others == FOG_HIDDEN)
        assert_no_blue(w, p, what);
    else {
        cu = course(u);
        cp = course(p);
        assert_json_eq(cp, cu, what);
        json_decref(cu);
        json_decref(cp);
    }
    return true;
}

/* The armies of a battle's setup (Matrix, Civilization). */
static void check_armies(const fog_rig_world *w, const json_t *u,
                         const json_t *p, int others)
{
    static const char *const armies[] = {"attacker", "defender"};
    size_t a;

    for (a = 0; a < 2; a++)
        check_entries(w, get(get(u, armies[a]), "units"),
                      get(get(p, armies[a]), "units"), others, armies[a]);
}

/* The entries of combat k (SCRUD, EDNA, SCS, the Matrix record). */
static void check_combat_entries(const fog_rig_world *w, size_t k,
                                 const json_t *u, const json_t *p, int others)
{
    static const char *const roles[] = {"attackers", "defenders"};
    size_t i;

    for (i = 0; i < 2 && k == 0; i++)
        check_entries(w, get(json_array_get(get(u, "sides"), i), "units"),
                      get(json_array_get(get(p, "sides"), i), "units"), others,
                      "SCRUD units");
    if (k == 1)
        check_entries(w, get(u, "tests"), get(p, "tests"), others,
                      "EDNA tests");
    for (i = 0; i < 2 && k == 2; i++) {
        check_entries(w, get(u, roles[i]), get(p, roles[i]), others, roles[i]);
        check_entries(w, get(get(u, "input"), roles[i]),
                      get(get(p, "input"), roles[i]), others, "SCS input");
    }
    if (k == 3)
        check_armies(w, get(get(u, "input"), "setup"),
                     get(get(p, "input"), "setup"), others);
}

static void check_combats(const fog_rig_world *w, int others)
{
    char what[128];
    json_t *u, *p;
    size_t k;

    for (k = 0; k < 4; k++) {
        snprintf(what, sizeof what, "combats/%s", w->combat[k]);
        u = as_umpire(w, what);
        p = as_player(w, 200, what);
        if (check_frame(w, u, p, others, what))
            check_combat_entries(w, k, u, p, others);
        json_decref(u);
        json_decref(p);
    }
}

/* Matrix and Civilization: each army's units; blue's lasting state
 * (quality; class, era, bonus) absent. */
static void check_battles(const fog_rig_world *w, int others)
{
    static const char *const state[] = {"quality", "class", "era", "bonus",
                                        NULL};
    char what[128];
    json_t *u, *p, *e;
    size_t k, i, j;

    for (k = 0; k < 2; k++) {
        snprintf(what, sizeof what, "battles/%s", w->battle[k]);
        u = as_umpire(w, what);
        p = as_player(w, 200, what);
        if (check_frame(w, u, p, others, what))
            check_armies(w, get(u, "setup"), get(p, "setup"), others);
        json_array_foreach(get(get(get(p, "setup"), "defender"), "units"), i, e)
        {
            for (j = 0; state[j] && others != FOG_FULL; j++)
                ck_assert_msg(get(e, state[j]) == NULL,
                              "%s: %s shows blue's %s", rig_ctx, what,
                              state[j]);
        }
        json_decref(u);
        json_decref(p);
    }
}

/* The combats of a list (the campaign's, or its report's) as the player
 * reads them: at "hidden" a SCRUD summary names no unit eliminated (new). */
static json_t *model_combats(const json_t *full, int others)
{
    json_t *out = json_deep_copy(full), *cb;
    const char *sum, *cut;
    size_t i;

    json_array_foreach(out, i, cb)
    {
        sum = str(cb, "summary");
        cut = sum ? strstr(sum, "; eliminated: ") : NULL;
        if (others == FOG_HIDDEN && cut)
            json_object_set_new(cb, "summary",
                                json_stringn(sum, (size_t)(cut - sum)));
    }
    return out;
}

static void check_report(const fog_rig_world *w, int others)
{
    json_t *u = as_umpire(w, "report"), *p = as_player(w, 200, "report");
    json_t *want;

    if (others == FOG_FULL)
        assert_json_eq(p, u, "report");
    else {
        want = model_entries(w, get(u, "units"), others, side_of_unit);
        assert_json_eq(get(p, "units"), want, "the report's units");
        json_decref(want);
        want = model_combats(get(u, "combats"), others);
        assert_json_eq(get(p, "combats"), want, "the report's combats");
        assert_json_eq(get(p, "sides"), get(u, "sides"), "the report's sides");
        json_decref(want);
        if (others == FOG_HIDDEN)
            assert_no_blue(w, p, "report");
    }
    json_decref(u);
    json_decref(p);
}

/* The campaign's list of combats: the summaries as the model says. */
static void check_list(const fog_rig_world *w, int others)
{
    json_t *u = as_umpire(w, "combats?limit=200");
    json_t *p = as_player(w, 200, "combats?limit=200");
    json_t *want = model_combats(get(u, "items"), others);

    assert_json_eq(get(p, "items"), want, "combats");
    if (others == FOG_HIDDEN)
        assert_no_blue(w, p, "combats");
    json_decref(u);
    json_decref(p);
    json_decref(want);
}

/* What the umpire reads, kept to check it never changes. */
#define N_UMPIRE_READS 10
static void umpire_reads(const fog_rig_world *w, json_t *out[N_UMPIRE_READS])
{
    char what[128];
    int i;

    out[0] = as_umpire(w, "units?limit=200");
    out[1] = as_umpire(w, "history?limit=200");
    out[2] = as_umpire(w, "report");
    out[3] = as_umpire(w, "combats?limit=200");
    for (i = 0; i < 4; i++) {
        snprintf(what, sizeof what, "combats/%s", w->combat[i]);
        out[4 + i] = as_umpire(w, what);
    }
    for (i = 0; i < 2; i++) {
        snprintf(what, sizeof what, "battles/%s", w->battle[i]);
        out[8 + i] = as_umpire(w, what);
    }
}

/* ---- the tests ---- */

/* Fog off (with "others" at "hidden": the switch alone turns it off),
 * then on at each level: _i 0 is off, 1..4 full, status, name, hidden. */
START_TEST(test_fog_levels)
{
    int level = _i - 1, others = level < 0 ? FOG_FULL : level;
    json_t *before[N_UMPIRE_READS], *after[N_UMPIRE_READS];
    fog_rig_world w;
    int i;

    fog_rig_build(&w);
    snprintf(rig_ctx, sizeof rig_ctx, "fog %s",
             level < 0 ? "off" : fog_rig_levels[level]);
    umpire_reads(&w, before);
    fog_rig_set_fog(&w, level);
    check_units(&w, others);
    check_filter(&w, "system=scrud", FOG_FULL, others);
    check_filter(&w, "ineffective=false", FOG_FULL, others);
    check_filter(&w, "side=blue&system=edna", FOG_FULL, others);
    check_filter(&w, "eliminated=true", FOG_STATUS, others);
    check_filter(&w, "eliminated=false", FOG_STATUS, others);
    check_feed(&w, others);
    check_combats(&w, others);
    check_list(&w, others);
    check_battles(&w, others);
    check_report(&w, others);
    /* The umpire always sees everything. */
    umpire_reads(&w, after);
    for (i = 0; i < N_UMPIRE_READS; i++) {
        assert_json_eq(after[i], before[i], "the umpire's read");
        json_decref(before[i]);
        json_decref(after[i]);
    }
    fog_rig_free(&w);
}
END_TEST

/* A PATCH refused with status, code and field. */
static void refused(const fog_rig_world *w, const char *token, const char *body,
                    int status, const char *code, const char *field)
{
    char path[128];
    http_resp r;

    snprintf(path, sizeof path, "/v1/campaigns/%s", w->c.id);
    ck_assert_int_eq(ts_request(rig_ts, "PATCH", path, token, body, &r), 0);
    ck_assert_msg(r.status == status, "PATCH %s: %d, expected %d: %s", body,
                  r.status, status, r.body);
    if (code)
        ck_assert_msg(
            str(r.json, "code") && strcmp(str(r.json, "code"), code) == 0,
            "PATCH %s: code %s, expected %s", body, str(r.json, "code"), code);
    if (field)
        ck_assert_msg(str(r.json, "field") &&
                          strcmp(str(r.json, "field"), field) == 0,
                      "PATCH %s: field %s, expected %s", body,
                      str(r.json, "field"), field);
    http_resp_cleanup(&r);
}

START_TEST(test_patch)
{
    static const struct {
        const char *body, *code, *field;
    } bad[] = {
        {"{}", "missing_field", "options"},
        {"{\"name\":\"x\",\"options\":{}}", "unknown_field", "name"},
        {"{\"options\":{}}", "missing_field", "options.fog"},
        {"{\"options\":{\"scrud\":{}}}", "unknown_field", "options.scrud"},
        {"{\"options\":{\"fog\":{}}}", "missing_field", "options.fog"},
        {"{\"options\":{\"fog\":true}}", "invalid_value", "options.fog"},
        {"{\"options\":{\"fog\":{\"enabled\":\"yes\"}}}", "invalid_value",
         "options.fog.enabled"},
        {"{\"options\":{\"fog\":{\"others\":\"some\"}}}", "invalid_value",
         "options.fog.others"},
        {"{\"options\":{\"fog\":{\"others\":\"name\",\"side\":\"red\"}}}",
         "unknown_field", "options.fog.side"},
    };
    test_campaign c2;
    json_t *j, *before, *want;
    fog_rig_world w;
    size_t i;

    memset(&w, 0, sizeof w);
    w.blue_ids = json_array();
    ts_campaign(rig_ts, &w.c, NULL, (const char *const[]){"red", "blue", NULL});
    /* The default, shown to every token. */
    j = rig_call(200, "GET", w.c.player[0], NULL, "/v1/campaigns/%s", w.c.id);
    before = json_deep_copy(get(j, "options"));
    want = json_pack("{s:b, s:s}", "enabled", 0, "others", "status");
    assert_json_eq(get(get(j, "options"), "fog"), want, "the default");
    json_decref(want);
    json_decref(j);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused(&w, w.c.umpire, bad[i].body, 422, bad[i].code, bad[i].field);
    refused(&w, w.c.player[0], "{\"options\":{\"fog\":{\"enabled\":true}}}",
            403, NULL, NULL);
    refused(&w, NULL, "{\"options\":{\"fog\":{\"enabled\":true}}}", 401, NULL,
            NULL);
    /* Refused, nothing changed. */
    j = rig_call(200, "GET", w.c.umpire, NULL, "/v1/campaigns/%s", w.c.id);
    assert_json_eq(get(j, "options"), before, "options after refusals");
    json_decref(j);
    /* One field at a time: the other stays. */
    j = rig_call(200, "PATCH", w.c.umpire,
                 "{\"options\":{\"fog\":{\"enabled\":true}}}",
                 "/v1/campaigns/%s", w.c.id);
    RIG_EQ_STR(str(j, "id"), w.c.id);
    RIG_EQ_STR(str(get(j, "you"), "role"), "umpire");
    RIG_IS_TRUE(json_is_true(get(get(get(j, "options"), "fog"), "enabled")));
    RIG_EQ_STR(str(get(get(j, "options"), "fog"), "others"), "status");
    json_decref(j);
    json_decref(rig_call(200, "PATCH", w.c.umpire,
                         "{\"options\":{\"fog\":{\"others\":\"name\"}}}",
                         "/v1/campaigns/%s", w.c.id));
    j = rig_call(200, "GET", w.c.player[1], NULL, "/v1/campaigns/%s", w.c.id);
    RIG_IS_TRUE(json_is_true(get(get(get(j, "options"), "fog"), "enabled")));
    RIG_EQ_STR(str(get(get(j, "options"), "fog"), "others"), "name");
    /* The systems' options are untouched. */
    json_object_del(before, "fog");
    json_object_del(get(j, "options"), "fog");
    assert_json_eq(get(j, "options"), before, "the systems' options");
    json_decref(j);
    json_decref(before);
    /* Given at creation, like the systems' options. */
    j = rig_call(201, "POST", NULL,
                 "{\"name\":\"c\",\"sides\":[{\"name\":\"a\"}],\"options\":{"
                 "\"fog\":{\"enabled\":true,\"others\":\"hidden\"}}}",
                 "/v1/campaigns");
    RIG_EQ_STR(str(get(get(j, "options"), "fog"), "others"), "hidden");
    snprintf(c2.id, sizeof c2.id, "%s", str(j, "id"));
    json_decref(j);
    j = rig_call(422, "POST", NULL,
                 "{\"name\":\"c\",\"sides\":[{\"name\":\"a\"}],\"options\":{"
                 "\"fog\":{\"others\":\"all\"}}}",
                 "/v1/campaigns");
    RIG_EQ_STR(str(j, "field"), "options.fog.others");
    json_decref(j);
    fog_rig_free(&w);
}
END_TEST

/* A viewer holding no side (a share link's, fog.h) sees every side
 * fogged; the umpire's view leaves a report as it is. */
START_TEST(test_no_side)
{
    db *d = http_db(rig_ts->srv);
    db_conn *c;
    db_campaign cmp;
    fog_view v, ump;
    json_t *u, *p, *sd, *e;
    char what[96];
    size_t i, k;
    fog_rig_world w;

    fog_rig_build(&w);
    fog_rig_set_fog(&w, FOG_STATUS);
    c = db_read_acquire(d);
    ck_assert_int_eq(db_campaign_get(c, w.c.id, &cmp, NULL), ERR_OK);
    ck_assert_int_eq(fog_view_load(c, &cmp, false, NULL, &v, NULL), ERR_OK);
    ck_assert_int_eq(fog_view_load(c, &cmp, true, NULL, &ump, NULL), ERR_OK);
    db_read_release(d, c);
    ck_assert(v.is_on && !ump.is_on);
    ck_assert_int_eq(fog_of_side(&v, w.c.side_id[0]), FOG_STATUS);
    ck_assert_str_eq(fog_units_side(&v, FOG_FULL), "");
    ck_assert_ptr_null(fog_units_side(&v, FOG_STATUS));
    snprintf(rig_ctx, sizeof rig_ctx, "no side");
    snprintf(what, sizeof what, "combats/%s", w.combat[0]);
    u = as_umpire(&w, what);
    p = fog_report(&ump, json_deep_copy(u));
    assert_json_eq(p, u, "the umpire's view");
    json_decref(p);
    p = fog_report(&v, json_deep_copy(u));
    ck_assert(json_is_null(get(get(p, "fog"), "side_id")));
    json_array_foreach(get(p, "sides"), i, sd)
    {
        json_array_foreach(get(sd, "units"), k, e)
        {
            RIG_EQ_STR(str(e, "fog"), "status");
            ck_assert_ptr_null(get(e, "before"));
        }
    }
    json_decref(u);
    json_decref(p);
    fog_view_cleanup(&v);
    fog_view_cleanup(&ump);
    fog_rig_free(&w);
}
END_TEST

Suite *suite_fog_http(void)
{
    Suite *s = suite_create("fog_http");
    TCase *tc = tcase_create("fog");

    tcase_add_checked_fixture(tc, rig_setup, rig_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_fog_levels, 0, 5);
    tcase_add_test(tc, test_patch);
    tcase_add_test(tc, test_no_side);
    suite_add_tcase(s, tc);
    return s;
}
