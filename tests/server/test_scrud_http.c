/*
 * test_scrud_http.c: SCRUD combats end to end over HTTP, against the rules
 * (docs/rules/scrud.md, dice.md) and the test vectors: the Tannenberg
 * campaign three days in a row with the unit state persisted between
 * them, the blog examples as one-off combats, seeded dice re-derived from
 * the revealed seed, replay and tamper detection, all-or-nothing refusals,
 * campaign options, reserves and die faces, route separation, resupply.
 *
 * Every expectation of the vector tests is read from the vector files.
 */
#include "harness.h"
#include "rng.h"
#include "suites.h"

#include <check.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The server of the running test (a checked fixture). */
static test_server *g_ts;

/* What the current assertion is about, for failure messages. */
static char ctx[192];

#define EQ_INT(got, want)                                                     \
    do {                                                                      \
        long long g_ = (got), w_ = (want);                                    \
        ck_assert_msg(g_ == w_, "%s: %s is %lld, expected %lld", ctx, #got,   \
                      g_, w_);                                                \
    } while (0)

#define EQ_STR(got, want)                                                     \
    do {                                                                      \
        const char *g_ = (got), *w_ = (want);                                 \
        ck_assert_msg(g_ && w_ && strcmp(g_, w_) == 0,                        \
                      "%s: %s is %s, expected %s", ctx, #got,                 \
                      g_ ? g_ : "(null)", w_ ? w_ : "(null)");                \
    } while (0)

#define IS_TRUE(cond) ck_assert_msg((cond), "%s: %s", ctx, #cond)

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

/* An integer member that must be there. */
static long long inum(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    ck_assert_msg(json_is_integer(v), "%s: \"%s\" is not an integer", ctx, k);
    return (long long)json_integer_value(v);
}

/* The element of items whose member key is name, or NULL. */
static json_t *find_by(const json_t *items, const char *key, const char *name)
{
    size_t i;
    json_t *v;

    json_array_foreach(items, i, v) {
        const char *s = str(v, key);
        if (s && strcmp(s, name) == 0)
            return v;
    }
    return NULL;
}

/* A unit's entry in a report (either side), asserted present. */
static json_t *report_unit(const json_t *rep, const char *name)
{
    json_t *u = find_by(get(at(get(rep, "sides"), 0), "units"), "unit", name);

    if (u == NULL)
        u = find_by(get(at(get(rep, "sides"), 1), "units"), "unit", name);
    ck_assert_msg(u != NULL, "%s: no unit %s in the report", ctx, name);
    return u;
}

/* A request with a printf path; asserts status, returns the body. */
__attribute__((format(printf, 5, 6))) static json_t *
call(int status, const char *method, const char *token,
                    const char *body, const char *path_fmt, ...)
{
    char path[512];
    va_list ap;

    va_start(ap, path_fmt);
    vsnprintf(path, sizeof path, path_fmt, ap);
    va_end(ap);
    return body ? ts_call(g_ts, status, method, path, token, "%s", body)
                : ts_call(g_ts, status, method, path, token, NULL);
}

/* GET /v1/campaigns/{id}/<what> as the umpire. */
__attribute__((format(printf, 2, 3))) static json_t *
cget(const test_campaign *c, const char *what_fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    return call(200, "GET", c->umpire, NULL, "/v1/campaigns/%s/%s", c->id,
                what);
}

/* Posts a campaign SCRUD combat; body is the JSON text. */
static json_t *campaign_combat(const test_campaign *c, int status,
                               const char *body)
{
    return call(status, "POST", c->umpire, body,
                "/v1/campaigns/%s/combats/scrud", c->id);
}

/* A campaign unit is in play with these penalties and modifier. */
static void check_unit(const test_campaign *c, const char *id, int defeat,
                       int fatigue, int modifier)
{
    json_t *u = cget(c, "units/%s", id), *sc = get(u, "scrud");

    IS_TRUE(json_is_false(get(u, "eliminated")));
    EQ_INT(inum(sc, "defeat_penalty"), defeat);
    EQ_INT(inum(sc, "fatigue_penalty"), fatigue);
    EQ_INT(inum(sc, "modifier"), modifier);
    json_decref(u);
}

/* Asserts a 422 problem with code and field (either may be NULL). */
static void expect_problem(const json_t *p, const char *code, const char *field)
{
    IS_TRUE(p != NULL);
    EQ_INT(inum(p, "status"), 422);
    if (code)
        EQ_STR(str(p, "code"), code);
    if (field)
        EQ_STR(str(p, "field"), field);
}

/*
 * The request body of one vector combat with entered dice: campaign units
 * by reference, or inline units with their quality (from vunits).
 */
static char *vector_body(const json_t *vunits, const json_t *cv,
                         const json_t *options, bool is_campaign)
{
    json_t *body = json_object(), *sides = json_array();
    char *text;
    int s;

    for (s = 0; s < 2; s++) {
        const char *side = str(cv, s ? "second" : "first");
        json_t *dice = get(get(cv, "dice"), side), *units = json_array(), *d;
        size_t i;
        json_array_foreach(dice, i, d) {
            const char *name = json_string_value(at(d, 0));
            json_t *u = json_pack("{s:s, s:O}", is_campaign ? "unit" : "name",
                                  name, "die", at(d, 1));
            if (!is_campaign)
                json_object_set(u, "quality", get(get(vunits, name), "quality"));
            json_array_append_new(units, u);
        }
        json_array_append_new(sides, json_pack("{s:s, s:o}", is_campaign ? "side"
                                                                          : "name",
                                               side, "units", units));
    }
    json_object_set_new(body, "sides", sides);
    json_object_set_new(body, "dice", json_pack("{s:s}", "source", "entered"));
    if (options && json_object_size(options) > 0)
        json_object_set(body, "options", (json_t *)options);
    text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* Report rows (objects) against vector rows [k0, k1, k2] in order. */
static void check_rows(const json_t *got, const json_t *want, const char *k0,
                       const char *k1, const char *k2)
{
    const char *keys[3] = {k0, k1, k2};
    size_t i, k;

    EQ_INT(json_array_size(got), json_array_size(want));
    for (i = 0; i < json_array_size(want); i++)
        for (k = 0; k < 3; k++)
            ck_assert_msg(json_equal(get(at(got, i), keys[k]),
                                     at(at(want, i), k)),
                          "%s: row %zu: %s is not %s", ctx, i, keys[k],
                          json_string_value(at(at(want, i), k)));
}

/*
 * The outcome of a report against a vector combat's "expect": line-ups,
 * defeats, eliminations with reasons, pairs in order, unpaired dice.
 */
static void check_outcome(const json_t *rep, const json_t *vunits,
                          const json_t *cv)
{
    const json_t *ex = get(cv, "expect");
    json_t *sides = get(rep, "sides"), *v;
    size_t n_elim = 0, i;
    int s;

    EQ_INT(json_array_size(sides), 2);
    for (s = 0; s < 2; s++) {
        const char *name = str(cv, s ? "second" : "first");
        json_t *side = at(sides, (size_t)s);
        json_t *want = get(get(ex, "lined_up"), name);
        json_t *got = get(side, "lined_up");
        EQ_STR(str(side, "name"), name);
        EQ_INT(json_array_size(got), json_array_size(want));
        for (i = 0; i < json_array_size(want); i++)
            EQ_INT(inum(at(got, i), "score"), json_integer_value(at(want, i)));
        EQ_INT(inum(side, "defeats_suffered"),
               json_integer_value(get(get(ex, "defeats_suffered"), name)));
        json_array_foreach(get(side, "eliminated"), i, v) {
            const char *unit = str(v, "unit");
            const char *reason = str(get(ex, "eliminated"), unit);
            ck_assert_msg(reason != NULL, "%s: %s eliminated unexpectedly",
                          ctx, unit);
            EQ_STR(str(v, "reason"), reason);
            EQ_STR(str(get(vunits, unit), "side"), name);
            EQ_STR(str(report_unit(rep, unit), "eliminated"), reason);
            n_elim++;
        }
    }
    EQ_INT(n_elim, json_object_size(get(ex, "eliminated")));
    check_rows(get(rep, "pairs"), get(ex, "pairs"), "first", "second",
               "winner");
    check_rows(get(rep, "extra"), get(ex, "extra"), "unit", "defeated",
               "result");
}

/* State {defeat_penalty, fatigue_penalty, modifier} against a vector's. */
static void check_state(const json_t *got, const json_t *want)
{
    EQ_INT(inum(got, "defeat_penalty"), inum(want, "defeat_penalty"));
    EQ_INT(inum(got, "fatigue_penalty"), inum(want, "fatigue_penalty"));
    EQ_INT(inum(got, "modifier"), inum(want, "modifier"));
}

/* Whether the unit name rolls in vector combat cv. */
static bool fights_in(const json_t *cv, const char *name)
{
    int s;

    for (s = 0; s < 2; s++) {
        json_t *d;
        size_t i;
        json_array_foreach(get(get(cv, "dice"), str(cv, s ? "second" : "first")),
                           i, d)
            if (strcmp(json_string_value(at(d, 0)), name) == 0)
                return true;
    }
    return false;
}

/* POST .../replay (path without it) reproduces the combat. */
static void check_replay(const char *path, const char *token)
{
    json_t *r = call(200, "POST", token, NULL, "%s/replay", path);

    ck_assert_msg(json_is_true(get(r, "reproduced")), "%s: not reproduced: %s",
                  ctx, json_dumps(get(r, "differences"), 0));
    EQ_INT(json_array_size(get(r, "differences")), 0);
    json_decref(r);
}

/* ---- 1. Tannenberg, three days in a row in one campaign ---- */

#define T_DAYS 3

/* Units of the campaign after a day: survivors as the vector lists them,
 * the others eliminated (gone: name -> {reason, by}). */
static void check_persisted(const test_campaign *c, const json_t *vunits,
                            const json_t *ids, const json_t *after,
                            const json_t *gone, size_t day)
{
    json_t *list = cget(c, "units"), *items = get(list, "items"), *vu;
    const char *name;

    EQ_INT(json_array_size(items), json_object_size(vunits));
    json_object_foreach((json_t *)vunits, name, vu) {
        json_t *u = find_by(items, "name", name), *g = get(gone, name);
        snprintf(ctx, sizeof ctx, "tannenberg day %zu, unit %s", day, name);
        IS_TRUE(u != NULL);
        EQ_STR(str(u, "id"), str(ids, name));
        if (get(after, name)) {
            IS_TRUE(g == NULL);
            IS_TRUE(json_is_false(get(u, "eliminated")));
            IS_TRUE(json_is_null(get(u, "eliminated_reason")));
            check_state(get(u, "scrud"), get(after, name));
        } else {
            IS_TRUE(g != NULL);
            IS_TRUE(json_is_true(get(u, "eliminated")));
            EQ_STR(str(u, "eliminated_reason"), str(g, "reason"));
            EQ_STR(str(u, "eliminated_by"), str(g, "by"));
        }
    }
    json_decref(list);
}

/* History: created, then one combat event per day fought, in order, each
 * with the state the vector expects after that day. */
static void check_history(const test_campaign *c, const json_t *combats,
                          const char *name, const char *id,
                          char cids[][64], const json_t *gone)
{
    json_t *h = cget(c, "units/%s/history", id), *items = get(h, "items");
    size_t d, k = 1;

    snprintf(ctx, sizeof ctx, "history of %s", name);
    EQ_STR(str(h, "unit_id"), id);
    EQ_STR(str(at(items, 0), "kind"), "created");
    for (d = 0; d < T_DAYS; d++) {
        json_t *cv = at(combats, d), *ev, *want, *after;
        if (!fights_in(cv, name))
            continue;
        snprintf(ctx, sizeof ctx, "history of %s, day %zu", name, d + 1);
        ev = at(items, k++);
        EQ_STR(str(ev, "kind"), "combat");
        EQ_STR(str(ev, "combat_id"), cids[d]);
        IS_TRUE(inum(ev, "seq") > inum(at(items, k - 2), "seq"));
        want = get(get(get(cv, "expect"), "units_after"), name);
        after = get(ev, "after");
        if (want) {
            IS_TRUE(json_is_false(get(after, "eliminated")));
            check_state(get(after, "scrud"), want);
        } else {
            IS_TRUE(json_is_true(get(after, "eliminated")));
            EQ_STR(str(after, "eliminated_reason"),
                   str(get(gone, name), "reason"));
        }
    }
    snprintf(ctx, sizeof ctx, "history of %s", name);
    EQ_INT(json_array_size(items), k);
    json_decref(h);
}

START_TEST(test_tannenberg_campaign)
{
    json_t *vec = ts_load_vector("scrud-tannenberg.json");
    json_t *vunits = get(vec, "units"), *combats = get(vec, "combats");
    json_t *ids = json_object(), *gone = json_object(), *reports[T_DAYS];
    json_t *vu, *list, *v;
    const char *sides[3], *name;
    char cids[T_DAYS][64], *body;
    test_campaign c;
    size_t d, i;

    ck_assert_int_eq(json_array_size(combats), T_DAYS);
    sides[0] = str(at(combats, 0), "first");
    sides[1] = str(at(combats, 0), "second");
    sides[2] = NULL;
    ts_campaign(g_ts, &c, NULL, sides);
    json_object_foreach(vunits, name, vu) {
        char id[64];
        ts_unit(g_ts, &c, name, str(vu, "side"), (int)inum(vu, "quality"), 6,
                id);
        json_object_set_new(ids, name, json_string(id));
    }
    for (d = 0; d < T_DAYS; d++) {
        json_t *cv = at(combats, d), *ex = get(cv, "expect"), *rep;
        snprintf(ctx, sizeof ctx, "tannenberg day %zu", d + 1);
        body = vector_body(vunits, cv, get(vec, "options"), true);
        rep = reports[d] = campaign_combat(&c, 201, body);
        free(body);
        snprintf(cids[d], sizeof cids[d], "%s", str(rep, "id"));
        EQ_STR(str(rep, "campaign_id"), c.id);
        EQ_STR(str(get(rep, "dice"), "source"), "entered");
        check_outcome(rep, vunits, cv);
        for (i = 0; i < 2; i++)
            EQ_STR(str(at(get(rep, "sides"), i), "side_id"), c.side_id[i]);
        json_object_foreach(get(ex, "eliminated"), name, v)
            json_object_set_new(gone, name,
                                json_pack("{s:s, s:s}", "reason",
                                          json_string_value(v), "by", cids[d]));
        json_object_foreach(get(ex, "units_after"), name, v)
            if (fights_in(cv, name))
                check_state(get(report_unit(rep, name), "after"), v);
        check_persisted(&c, vunits, ids, get(ex, "units_after"), gone, d + 1);
    }
    /* Every combat reads back as it was answered, and replays */
    list = cget(&c, "combats");
    snprintf(ctx, sizeof ctx, "tannenberg combat list");
    EQ_INT(json_array_size(get(list, "items")), T_DAYS);
    for (d = 0; d < T_DAYS; d++) {
        char path[160];
        json_t *back;
        snprintf(ctx, sizeof ctx, "tannenberg day %zu read back", d + 1);
        EQ_STR(str(at(get(list, "items"), d), "id"), cids[d]);
        snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id,
                 cids[d]);
        back = call(200, "GET", c.player[0], NULL, "%s", path);
        IS_TRUE(json_equal(back, reports[d]));
        json_decref(back);
        json_decref(reports[d]);
        check_replay(path, c.umpire);
    }
    json_decref(list);
    json_object_foreach(vunits, name, vu)
        check_history(&c, combats, name, str(ids, name), cids, gone);
    json_decref(ids);
    json_decref(gone);
    json_decref(vec);
}
END_TEST

/* ---- 2. The blog examples as one-off combats ---- */

START_TEST(test_blog_examples_oneoff)
{
    json_t *vec = ts_load_vector("scrud-blog-examples.json"), *cv;
    size_t k, i;

    ck_assert_int_gt(json_array_size(get(vec, "cases")), 0);
    json_array_foreach(get(vec, "cases"), k, cv) {
        json_t *opts = get(cv, "options"), *rep, *back, *v;
        char *body = vector_body(get(cv, "units"), cv, opts, false), path[96];
        const char *key, *name;
        snprintf(ctx, sizeof ctx, "blog case %s", str(cv, "name"));
        rep = call(201, "POST", NULL, body, "/v1/combats/scrud");
        free(body);
        IS_TRUE(json_is_null(get(rep, "campaign_id")));
        IS_TRUE(json_is_null(get(at(get(rep, "sides"), 0), "side_id")));
        check_outcome(rep, get(cv, "units"), cv);
        /* Entered dice are recorded, not verifiable */
        IS_TRUE(json_is_false(get(get(rep, "dice"), "verifiable")));
        IS_TRUE(json_is_null(get(get(rep, "dice"), "commitment")));
        IS_TRUE(json_is_null(get(get(rep, "dice"), "server_seed")));
        json_array_foreach(get(rep, "rolls"), i, v) {
            EQ_STR(str(v, "source"), "entered");
            IS_TRUE(json_is_null(get(v, "rng")));
        }
        json_object_foreach(opts, key, v)
            ck_assert_msg(json_equal(get(get(rep, "options"), key), v),
                          "%s: option %s not applied", ctx, key);
        json_object_foreach(get(get(cv, "expect"), "units_after"), name, v)
            check_state(get(report_unit(rep, name), "after"), v);
        snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
        back = call(200, "GET", NULL, NULL, "%s", path);
        IS_TRUE(json_equal(back, rep));
        json_decref(back);
        check_replay(path, NULL);
        json_decref(rep);
    }
    json_decref(vec);
}
END_TEST

/* ---- 3. Seeded dice: the commitment and every natural re-derived ---- */

/* Each unit's faces are the number after its first letter. */
#define SEEDED_BODY                                                           \
    "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a6\"},"               \
    "{\"name\":\"a10\",\"faces\":10},{\"name\":\"a20\",\"faces\":20,"         \
    "\"quality\":1},{\"name\":\"a100\",\"faces\":100},{\"name\":\"a6x\"}]},"  \
    "{\"name\":\"b\",\"units\":[{\"name\":\"b2\",\"faces\":2},"               \
    "{\"name\":\"b12\",\"faces\":12},{\"name\":\"b1000\",\"faces\":1000},"    \
    "{\"name\":\"b8\",\"faces\":8,\"reserve\":true},{\"name\":\"b6\"}]}],"    \
    "\"dice\":{\"source\":\"seeded\",\"client_seed\":\"discord:42\"}}"

START_TEST(test_seeded_dice_verifiable)
{
    json_t *rep = ts_call(g_ts, 201, "POST", "/v1/combats/scrud", NULL,
                          SEEDED_BODY);
    json_t *rep2, *dice = get(rep, "dice"), *rolls = get(rep, "rolls"), *r;
    uint8_t seed[RNG_SEED_LEN], hash[crypto_hash_sha256_BYTES];
    char hex[2 * crypto_hash_sha256_BYTES + 1];
    const char *cs = "discord:42";
    rng_v1 rng, plain;
    size_t i;
    int n_differ = 0;

    snprintf(ctx, sizeof ctx, "seeded one-off");
    EQ_STR(str(dice, "source"), "seeded");
    EQ_STR(str(dice, "rng"), "v1");
    EQ_STR(str(dice, "client_seed"), cs);
    IS_TRUE(json_is_true(get(dice, "verifiable")));
    ck_assert_ptr_nonnull(str(dice, "server_seed"));
    EQ_INT(strlen(str(dice, "server_seed")), 2 * RNG_SEED_LEN);
    ck_assert_int_eq(rng_unhex(str(dice, "server_seed"), seed, sizeof seed), 0);
    crypto_hash_sha256(hash, seed, sizeof seed);
    sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
    EQ_STR(str(dice, "commitment"), hex);
    /* One die per unit, re-derived in log order from seed and client seed */
    EQ_INT(json_array_size(rolls), 10);
    rng_v1_init(&rng, seed, (const uint8_t *)cs, strlen(cs));
    rng_v1_init(&plain, seed, NULL, 0);
    json_array_foreach(rolls, i, r) {
        const char *unit = str(r, "unit");
        int faces = (int)inum(r, "faces"), natural = (int)inum(r, "natural");
        json_t *u = report_unit(rep, unit);
        snprintf(ctx, sizeof ctx, "seeded roll %zu (%s)", i + 1, unit);
        EQ_INT(inum(r, "seq"), (long long)i + 1);
        EQ_STR(str(r, "source"), "seeded");
        EQ_STR(str(r, "rng"), "v1");
        EQ_INT(faces, atoi(unit + 1));
        IS_TRUE(natural >= 1 && natural <= faces);
        EQ_INT(natural, rng_v1_die(&rng, faces));
        EQ_INT(natural, inum(u, "natural"));
        EQ_INT(inum(r, "modified"), inum(u, "score"));
        EQ_STR(str(r, "reason"), json_is_true(get(u, "reserve"))
                                     ? "scrud.reserve"
                                     : "scrud.front");
        if (rng_v1_die(&plain, faces) != natural)
            n_differ++;
    }
    rng_v1_cleanup(&rng);
    rng_v1_cleanup(&plain);
    snprintf(ctx, sizeof ctx, "seeded one-off");
    IS_TRUE(n_differ > 0); /* the client seed is mixed in */
    /* A second combat draws a new seed */
    rep2 = ts_call(g_ts, 201, "POST", "/v1/combats/scrud", NULL, SEEDED_BODY);
    IS_TRUE(strcmp(str(get(rep2, "dice"), "server_seed"),
                   str(dice, "server_seed")) != 0);
    IS_TRUE(strcmp(str(get(rep2, "dice"), "commitment"),
                   str(dice, "commitment")) != 0);
    json_decref(rep2);
    json_decref(rep);
}
END_TEST

/* Request bodies of campaign combats, written compactly. */
#define U(n, d) "{\"unit\":\"" n "\",\"die\":" #d "}"
#define RES(n, d) "{\"unit\":\"" n "\",\"reserve\":true,\"die\":" #d "}"
#define SIDE(s, units) "{\"side\":\"" s "\",\"units\":[" units "]}"
#define ENTERED(s0, s1)                                                       \
    "{\"sides\":[" s0 "," s1 "],\"dice\":{\"source\":\"entered\"}}"
#define ENTERED_OPTS(s0, s1, opts)                                            \
    "{\"sides\":[" s0 "," s1 "],\"dice\":{\"source\":\"entered\"},"           \
    "\"options\":" opts "}"

/* The sides of most hand-made campaigns. */
static const char *const AB[] = {"a", "b", NULL};

/* ---- 4. Replay sees a roll altered in the database ---- */

START_TEST(test_replay_detects_tampering)
{
    test_campaign c;
    json_t *rep, *back, *rp;
    char path[160];
    sqlite3 *sq;
    sqlite3_stmt *st;

    ts_campaign(g_ts, &c, NULL, AB);
    ts_unit(g_ts, &c, "A1", "a", 0, 6, NULL);
    ts_unit(g_ts, &c, "B1", "b", 0, 6, NULL);
    rep = campaign_combat(&c, 201,
                          ENTERED(SIDE("a", U("A1", 2)), SIDE("b", U("B1", 5))));
    snprintf(ctx, sizeof ctx, "tamper");
    EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "second");
    EQ_STR(str(at(get(rep, "rolls"), 0), "unit"), "A1");
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id,
             str(rep, "id"));
    check_replay(path, c.umpire);
    /* A1's 2 becomes a 6: A1 would now win the pair */
    ck_assert_int_eq(
        sqlite3_open_v2(g_ts->db_path, &sq, SQLITE_OPEN_READWRITE, NULL),
        SQLITE_OK);
    sqlite3_busy_timeout(sq, 5000);
    ck_assert_int_eq(sqlite3_prepare_v2(sq,
                                        "UPDATE rolls SET natural = 6 WHERE "
                                        "combat_id = ? AND seq = 1",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, str(rep, "id"), -1, SQLITE_TRANSIENT);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    ck_assert_int_eq(sqlite3_changes(sq), 1);
    sqlite3_finalize(st);
    sqlite3_close(sq);
    back = call(200, "GET", c.umpire, NULL, "%s", path);
    EQ_INT(inum(at(get(back, "rolls"), 0), "natural"), 6); /* it took */
    json_decref(back);
    rp = call(200, "POST", c.umpire, NULL, "%s/replay", path);
    IS_TRUE(json_is_false(get(rp, "reproduced")));
    IS_TRUE(json_array_size(get(rp, "differences")) > 0);
    EQ_STR(str(rp, "combat_id"), str(rep, "id"));
    json_decref(rp);
    json_decref(rep);
}
END_TEST

/* ---- 5. A refused combat changes nothing ---- */

typedef struct refusal {
    const char *body, *code, *field;
} refusal;

static const refusal refusals[] = {
    /* B2 is eliminated (by correction); every other unit is fine */
    {ENTERED(SIDE("a", U("A1", 3) "," U("A3", 4)),
             SIDE("b", U("B1", 2) "," U("B2", 5))),
     "rule_violation", "sides[1].units[1]"},
    {"{\"sides\":[" SIDE("a", U("A1", 3)) "," SIDE("b", "{\"unit\":\"B1\"}")
     "],\"dice\":{\"source\":\"entered\"}}",
     "missing_field", "sides[1].units[0].die"},
    {ENTERED(SIDE("a", U("A1", 3) "," U("A3", 7)), SIDE("b", U("B1", 2))),
     "out_of_range", "sides[0].units[1].die"},
    {ENTERED(SIDE("a", U("A1", 0)), SIDE("b", U("B1", 2))), "out_of_range",
     "sides[0].units[0].die"},
    {"{\"sides\":[" SIDE("a", U("A1", 3)) "," SIDE("b", U("B1", 2))
     "],\"dice\":{\"source\":\"seeded\"}}",
     NULL, "sides[0].units[0].die"},
    {"{\"sides\":[" SIDE("a", U("A1", 3)) "," SIDE("b", U("B1", 2)) "]}", NULL,
     "sides[0].units[0].die"},
    {ENTERED(SIDE("a", U("A1", 3) "," U("A1", 4)), SIDE("b", U("B1", 2))),
     NULL, "sides[0].units[1].unit"},
    {ENTERED(SIDE("a", U("A1", 3)), SIDE("b", U("B1", 2) "," U("A1", 4))),
     NULL, "sides[1].units[1].unit"},
    {ENTERED(SIDE("a", U("A1", 3) "," U("B1", 4)), SIDE("b", U("C1", 2))),
     NULL, "sides[0].units[1].unit"},
    {"{\"sides\":[" SIDE("a", U("A1", 3)) "," SIDE("b", U("B1", 2)) "," SIDE(
         "c", U("C1", 2)) "],\"dice\":{\"source\":\"entered\"}}",
     NULL, NULL},
    {ENTERED(SIDE("a", U("A1", 3)), SIDE("a", U("A3", 2))), NULL,
     "sides[1].side"},
};

/* Posts a refused combat and asserts that nothing changed. */
static void refuse(const test_campaign *c, const char *body, const char *code,
                   const char *field, const json_t *units0,
                   const json_t *combats0)
{
    json_t *p, *u, *cb;

    snprintf(ctx, sizeof ctx, "refusal %.170s", body);
    p = campaign_combat(c, 422, body);
    expect_problem(p, code, field);
    u = cget(c, "units");
    cb = cget(c, "combats");
    IS_TRUE(json_equal(u, units0));
    IS_TRUE(json_equal(cb, combats0));
    json_decref(p);
    json_decref(u);
    json_decref(cb);
}

START_TEST(test_all_or_nothing)
{
    static const char *const sides[] = {"a", "b", "c", NULL};
    static const char *const names[] = {"A1", "A3", "B1", "B2", "C1"};
    char ids[5][64], body[512];
    json_t *units0, *combats0, *hist0[5], *x;
    test_campaign c;
    size_t i;

    ts_campaign(g_ts, &c, NULL, sides);
    for (i = 0; i < 5; i++)
        ts_unit(g_ts, &c, names[i], i < 2 ? "a" : i < 4 ? "b" : "c", 0, 6,
                ids[i]);
    ts_unit(g_ts, &c, "A2", "a", 0, 6, NULL);
    json_decref(campaign_combat(&c, 201,
                                ENTERED(SIDE("a", U("A1", 4) "," U("A2", 1)),
                                        SIDE("b", U("B1", 3)))));
    x = call(200, "PATCH", c.umpire, "{\"eliminated\":true}",
             "/v1/campaigns/%s/units/%s", c.id, ids[3]);
    snprintf(ctx, sizeof ctx, "correction");
    IS_TRUE(json_is_true(get(x, "eliminated")));
    EQ_STR(str(x, "eliminated_reason"), "correction");
    json_decref(x);
    units0 = cget(&c, "units");
    combats0 = cget(&c, "combats");
    EQ_INT(json_array_size(get(combats0, "items")), 1);
    for (i = 0; i < 5; i++)
        hist0[i] = cget(&c, "units/%s/history", ids[i]);
    for (i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
        refuse(&c, refusals[i].body, refusals[i].code, refusals[i].field,
               units0, combats0);
    /* the same unit by name and by id; the same side by name and by id */
    snprintf(body, sizeof body,
             ENTERED(SIDE("a", U("A1", 3) ",{\"unit\":\"%s\",\"die\":4}"),
                     SIDE("b", U("B1", 2))),
             ids[0]);
    refuse(&c, body, NULL, "sides[0].units[1].unit", units0, combats0);
    snprintf(body, sizeof body,
             ENTERED(SIDE("a", U("A1", 3)), SIDE("%s", U("A3", 2))),
             c.side_id[0]);
    refuse(&c, body, NULL, "sides[1].side", units0, combats0);
    for (i = 0; i < 5; i++) {
        x = cget(&c, "units/%s/history", ids[i]);
        snprintf(ctx, sizeof ctx, "history of %s after refusals", names[i]);
        IS_TRUE(json_equal(x, hist0[i]));
        json_decref(x);
        json_decref(hist0[i]);
    }
    json_decref(units0);
    json_decref(combats0);
}
END_TEST

/* ---- 6. Campaign options, and request options over them ---- */

START_TEST(test_campaign_options)
{
    test_campaign c;
    json_t *rep, *cmp;
    char ids[4][64];

    ts_campaign(g_ts, &c, "{\"attrition\":false,\"eliminate_below\":-5}",
                AB);
    ts_unit(g_ts, &c, "A1", "a", 0, 6, ids[0]);
    ts_unit(g_ts, &c, "B1", "b", 0, 6, ids[1]);
    ts_unit(g_ts, &c, "A2", "a", -3, 6, ids[2]); /* fights only below -2 */
    ts_unit(g_ts, &c, "B2", "b", 0, 6, ids[3]);
    /* The campaign's options: A1 is defeated without a lasting penalty */
    rep = campaign_combat(&c, 201,
                          ENTERED(SIDE("a", U("A1", 2)), SIDE("b", U("B1", 5))));
    snprintf(ctx, sizeof ctx, "campaign options");
    IS_TRUE(json_is_false(get(get(rep, "options"), "attrition")));
    EQ_INT(inum(get(rep, "options"), "eliminate_below"), -5);
    EQ_INT(inum(report_unit(rep, "A1"), "defeats"), 1);
    EQ_INT(inum(get(report_unit(rep, "A1"), "penalties_added"), "defeat"), 0);
    json_decref(rep);
    check_unit(&c, ids[0], 0, 0, 0);
    /* The request turns attrition on; the campaign's threshold stays */
    rep = campaign_combat(&c, 201,
                          ENTERED_OPTS(SIDE("a", U("A2", 2)),
                                       SIDE("b", U("B2", 6)),
                                       "{\"attrition\":true}"));
    snprintf(ctx, sizeof ctx, "request options");
    IS_TRUE(json_is_true(get(get(rep, "options"), "attrition")));
    EQ_INT(inum(get(rep, "options"), "eliminate_below"), -5);
    EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "second");
    json_decref(rep);
    check_unit(&c, ids[2], 1, 0, -4);
    check_unit(&c, ids[3], 0, 1, -1);
    /* The override does not stick to the campaign */
    rep = campaign_combat(&c, 201,
                          ENTERED(SIDE("a", U("A1", 1)), SIDE("b", U("B1", 4))));
    snprintf(ctx, sizeof ctx, "campaign options again");
    IS_TRUE(json_is_false(get(get(rep, "options"), "attrition")));
    json_decref(rep);
    check_unit(&c, ids[0], 0, 0, 0);
    /* A request threshold of -2 refuses A2, now at -4 */
    rep = campaign_combat(&c, 422,
                          ENTERED_OPTS(SIDE("a", U("A2", 2)),
                                       SIDE("b", U("B2", 6)),
                                       "{\"eliminate_below\":-2}"));
    snprintf(ctx, sizeof ctx, "request threshold");
    expect_problem(rep, "rule_violation", "sides[0].units[0]");
    json_decref(rep);
    cmp = call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s", c.id);
    snprintf(ctx, sizeof ctx, "campaign after");
    IS_TRUE(json_is_false(get(get(get(cmp, "options"), "scrud"), "attrition")));
    EQ_INT(inum(get(get(cmp, "options"), "scrud"), "eliminate_below"), -5);
    json_decref(cmp);
}
END_TEST

/* ---- 7. Reserves and a d10 ---- */

START_TEST(test_reserves_and_faces)
{
    static const char *const sides[] = {"x", "y", NULL};
    static const struct {
        const char *unit;
        int bonus, score, rank; /* rank 0: a reserve */
    } want[] = {{"X1", 1, 4, 2}, {"X2", 2, 9, 1}, {"XR1", 0, 0, 0},
                {"XR2", 0, 0, 0}};
    test_campaign c;
    char ids[6][64];
    json_t *rep, *u, *r;
    size_t i;

    ts_campaign(g_ts, &c, NULL, sides);
    ts_unit(g_ts, &c, "X1", "x", 0, 6, ids[0]);
    ts_unit(g_ts, &c, "X2", "x", 0, 10, ids[1]);
    ts_unit(g_ts, &c, "XR1", "x", 0, 6, ids[2]);
    ts_unit(g_ts, &c, "XR2", "x", 0, 6, ids[3]);
    ts_unit(g_ts, &c, "Y1", "y", 0, 6, ids[4]);
    ts_unit(g_ts, &c, "Y2", "y", 0, 6, ids[5]);
    /*
     * Front line X2 7 (d10) before X1 3.  XR1 shows 1: +1 to X2 only; XR2
     * shows 6: +1 to both.  X2 9 beats Y1 4; X1 4 beats Y2 3.
     */
    rep = campaign_combat(
        &c, 201,
        ENTERED(SIDE("x", U("X1", 3) "," U("X2", 7) "," RES("XR1", 1)
                              "," RES("XR2", 6)),
                SIDE("y", U("Y1", 4) "," U("Y2", 3))));
    for (i = 0; i < 4; i++) {
        u = report_unit(rep, want[i].unit);
        snprintf(ctx, sizeof ctx, "reserves, %s", want[i].unit);
        EQ_INT(inum(u, "reserve_bonus"), want[i].bonus);
        EQ_INT(inum(u, "defeats"), 0);
        IS_TRUE(json_is_null(get(u, "eliminated")));
        IS_TRUE(json_is_false(get(u, "heavy_fighting")) || want[i].rank == 0);
        if (want[i].rank) { /* X2's 9 is capped at its 10 faces, not at 6 */
            EQ_INT(inum(u, "score"), want[i].score);
            EQ_INT(inum(u, "rank"), want[i].rank);
        } else {
            IS_TRUE(json_is_true(get(u, "reserve")));
            IS_TRUE(json_is_null(get(u, "rank")));
            EQ_INT(inum(get(u, "penalties_added"), "fatigue"), 0);
            IS_TRUE(json_equal(get(u, "before"), get(u, "after")));
        }
    }
    snprintf(ctx, sizeof ctx, "reserves");
    EQ_INT(json_array_size(get(at(get(rep, "sides"), 0), "lined_up")), 2);
    EQ_INT(json_array_size(get(rep, "pairs")), 2);
    EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "first");
    EQ_STR(str(at(get(rep, "pairs"), 1), "winner"), "first");
    EQ_INT(json_array_size(get(rep, "extra")), 0);
    EQ_INT(inum(at(get(rep, "sides"), 1), "defeats_suffered"), 2);
    EQ_INT(json_array_size(get(rep, "rolls")), 6);
    json_array_foreach(get(rep, "rolls"), i, r) {
        const char *unit = str(r, "unit");
        EQ_STR(str(r, "reason"),
               unit[1] == 'R' ? "scrud.reserve" : "scrud.front");
        EQ_INT(inum(r, "faces"), strcmp(unit, "X2") == 0 ? 10 : 6);
    }
    json_decref(rep);
    snprintf(ctx, sizeof ctx, "after the reserves' combat");
    check_unit(&c, ids[2], 0, 0, 0); /* the reserves are as they were */
    check_unit(&c, ids[3], 0, 0, 0);
    check_unit(&c, ids[4], 1, 0, -1);
    check_unit(&c, ids[5], 1, 0, -1);
    check_unit(&c, ids[1], 0, 0, 0);
    check_unit(&c, ids[0], 0, 0, 0);
}
END_TEST

/* ---- 8. One-off and campaign combats stay on their own routes ---- */

START_TEST(test_combat_routes_separate)
{
    test_campaign c;
    json_t *one, *camp, *p;
    const char *oid, *cid;

    ts_campaign(g_ts, &c, NULL, AB);
    ts_unit(g_ts, &c, "A1", "a", 0, 6, NULL);
    ts_unit(g_ts, &c, "B1", "b", 0, 6, NULL);
    one = call(201, "POST", NULL,
               "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"A1\"}]},"
               "{\"name\":\"b\",\"units\":[{\"name\":\"B1\"}]}]}",
               "/v1/combats/scrud");
    camp = campaign_combat(&c, 201, "{\"sides\":[" SIDE("a", "{\"unit\":\"A1\"}")
                                    "," SIDE("b", "{\"unit\":\"B1\"}") "]}");
    oid = str(one, "id");
    cid = str(camp, "id");
    snprintf(ctx, sizeof ctx, "routes");
    p = call(404, "GET", c.umpire, NULL, "/v1/campaigns/%s/combats/%s", c.id,
             oid);
    EQ_STR(str(p, "code"), "not_found");
    json_decref(p);
    json_decref(call(404, "POST", c.umpire, NULL,
                     "/v1/campaigns/%s/combats/%s/replay", c.id, oid));
    p = call(404, "GET", NULL, NULL, "/v1/combats/%s", cid);
    EQ_STR(str(p, "code"), "not_found");
    json_decref(p);
    json_decref(call(404, "POST", NULL, NULL, "/v1/combats/%s/replay", cid));
    /* Each is readable where it belongs */
    json_decref(call(200, "GET", NULL, NULL, "/v1/combats/%s", oid));
    json_decref(cget(&c, "combats/%s", cid));
    json_decref(one);
    json_decref(camp);
}
END_TEST

/* ---- 9. Resupply clears the fatigue of heavy fighting ---- */

START_TEST(test_resupply_after_combat)
{
    test_campaign c;
    char a1[64], b1[64];
    json_t *u, *h, *ev;

    ts_campaign(g_ts, &c, NULL, AB);
    ts_unit(g_ts, &c, "A1", "a", 0, 6, a1);
    ts_unit(g_ts, &c, "B1", "b", 0, 6, b1);
    json_decref(call(200, "PATCH", c.umpire,
                     "{\"scrud\":{\"defeat_penalty\":1}}",
                     "/v1/campaigns/%s/units/%s", c.id, a1));
    /* A1 rolls a 6 (scores 5 at -1) and beats B1's 2 */
    json_decref(campaign_combat(&c, 201, ENTERED(SIDE("a", U("A1", 6)),
                                                 SIDE("b", U("B1", 2)))));
    snprintf(ctx, sizeof ctx, "before resupply");
    check_unit(&c, a1, 1, 1, -2);
    check_unit(&c, b1, 1, 0, -1);
    u = call(200, "POST", c.umpire, NULL,
             "/v1/campaigns/%s/units/%s/resupply", c.id, a1);
    snprintf(ctx, sizeof ctx, "resupply answer");
    EQ_INT(inum(get(u, "scrud"), "fatigue_penalty"), 0);
    EQ_INT(inum(get(u, "scrud"), "defeat_penalty"), 1);
    EQ_INT(inum(get(u, "scrud"), "modifier"), -1);
    json_decref(u);
    snprintf(ctx, sizeof ctx, "after resupply");
    check_unit(&c, a1, 1, 0, -1);
    h = cget(&c, "units/%s/history", a1);
    ev = at(get(h, "items"), json_array_size(get(h, "items")) - 1);
    EQ_STR(str(ev, "kind"), "resupply");
    EQ_INT(inum(get(get(ev, "before"), "scrud"), "fatigue_penalty"), 1);
    EQ_INT(inum(get(get(ev, "after"), "scrud"), "fatigue_penalty"), 0);
    json_decref(h);
}
END_TEST

static void setup(void)
{
    g_ts = ts_start();
}

static void teardown(void)
{
    ts_stop(g_ts);
    g_ts = NULL;
}

Suite *suite_scrud_http(void)
{
    Suite *s = suite_create("scrud_http");
    TCase *tc = tcase_create("scrud_http");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tannenberg_campaign);
    tcase_add_test(tc, test_blog_examples_oneoff);
    tcase_add_test(tc, test_seeded_dice_verifiable);
    tcase_add_test(tc, test_replay_detects_tampering);
    tcase_add_test(tc, test_all_or_nothing);
    tcase_add_test(tc, test_campaign_options);
    tcase_add_test(tc, test_reserves_and_faces);
    tcase_add_test(tc, test_combat_routes_separate);
    tcase_add_test(tc, test_resupply_after_combat);
    suite_add_tcase(s, tc);
    return s;
}
