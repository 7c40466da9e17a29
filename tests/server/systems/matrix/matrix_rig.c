/*
 * matrix_rig.c: the rig of the Matrix-over-HTTP suite; see matrix_rig.h.
 */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <pthread.h>
#include <sodium.h>

#include "matrix_rig.h"
#include "rng.h"

const char *const mx_army_key[2] = {"attacker", "defender"};

void mx_campaign(test_campaign *c)
{
    static const char *const sides[] = {"blue", "red", NULL};

    scs_rig_campaign(c, NULL, sides);
}

void mx_unit(const test_campaign *c, const char *name, const char *side,
             int quality, char *id_out)
{
    char body[256];
    json_t *u;

    snprintf(body, sizeof body,
             "{\"name\":\"%s\",\"side\":\"%s\",\"matrix\":{\"quality\":%d}}",
             name, side, quality);
    u = scs_call(201, "POST", c->umpire, body, "/v1/campaigns/%s/units", c->id);
    RIG_EQ_INT(rig_inum(scs_get(u, "matrix"), "quality"), quality);
    if (id_out)
        snprintf(id_out, 64, "%s", scs_str(u, "id"));
}

/* A request whose body is formatted from fmt and ap. */
static json_t *vcall(int status, const char *token, const char *path,
                     const char *fmt, va_list ap)
{
    char *body = NULL;
    json_t *j;

    ck_assert_int_ge(vasprintf(&body, fmt, ap), 0);
    j = scs_call(status, "POST", token, body, "%s", path);
    free(body);
    return j;
}

json_t *mx_battle(const test_campaign *c, int status, const char *fmt, ...)
{
    char path[160];
    va_list ap;
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c->id);
    va_start(ap, fmt);
    j = vcall(status, c->umpire, path, fmt, ap);
    va_end(ap);
    return j;
}

json_t *mx_act(const test_campaign *c, const char *battle, int status,
               const char *fmt, ...)
{
    char path[256];
    va_list ap;
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s/actions", c->id,
             battle);
    va_start(ap, fmt);
    j = vcall(status, c->umpire, path, fmt, ap);
    va_end(ap);
    return j;
}

json_t *mx_get(const test_campaign *c, const char *battle)
{
    return scs_call(200, "GET", c->umpire, NULL, "/v1/campaigns/%s/battles/%s",
                    c->id, battle);
}

json_t *mx_post(int status, const char *token, json_t *body, const char *path)
{
    char *text = scs_text(body);
    json_t *j = scs_call(status, "POST", token, text, "%s", path);

    free(text);
    json_decref(body);
    return j;
}

long long mx_n_action_rows(const char *battle)
{
    return ts_sql_int(rig_ts,
                      "SELECT count(*) FROM battle_actions WHERE battle_id = ?",
                      TS_TEXT(battle));
}

void mx_action_seqs(const char *battle, long long *n_distinct,
                    long long *max_seq)
{
    *n_distinct = ts_sql_int(rig_ts,
                             "SELECT count(DISTINCT seq) FROM battle_actions "
                             "WHERE battle_id = ?",
                             TS_TEXT(battle));
    *max_seq = ts_sql_int(rig_ts,
                          "SELECT coalesce(max(seq), 0) FROM battle_actions "
                          "WHERE battle_id = ?",
                          TS_TEXT(battle));
}

json_t *mx_world(const test_campaign *c)
{
    json_t *w = scs_rig_world(c), *list, *b;
    size_t i;

    list = scs_call(200, "GET", c->umpire, NULL, "/v1/campaigns/%s/battles",
                    c->id);
    json_object_set(w, "/battles", list);
    json_object_set_new(w, "#battle_actions",
                        json_integer(ts_sql_int(
                            rig_ts, "SELECT count(*) FROM battle_actions")));
    json_array_foreach(scs_get(list, "items"), i, b)
        json_object_set(w, scs_str(b, "id"), mx_get(c, scs_str(b, "id")));
    return w;
}

void mx_assert_unchanged(const json_t *before, const test_campaign *c)
{
    json_t *now = mx_world(c), *v;
    const char *key;

    json_object_foreach((json_t *)before, key, v)
    {
        char *a = scs_text(v), *b = scs_text(scs_get(now, key));
        ck_assert_msg(json_equal(v, scs_get(now, key)),
                      "%s: %s changed:\n before %.900s\n after  %.900s",
                      rig_ctx, key, a, b);
        free(a);
        free(b);
    }
    RIG_EQ_INT(json_object_size(now), json_object_size(before));
}

void mx_refuse(const test_campaign *c, const json_t *before, int status,
               const char *code, const char *field, const char *token,
               const char *body, const char *path_fmt, ...)
{
    char path[512];
    va_list ap;
    json_t *p;

    va_start(ap, path_fmt);
    vsnprintf(path, sizeof path, path_fmt, ap);
    va_end(ap);
    p = scs_call(status, "POST", token, body, "%s", path);
    scs_rig_problem(p, status, code, field);
    mx_assert_unchanged(before, c);
}

void mx_check_seeded(const json_t *dice, const json_t *rolls)
{
    const char *cs = scs_str(dice, "client_seed");
    uint8_t seed[RNG_SEED_LEN], hash[crypto_hash_sha256_BYTES];
    char hex[2 * crypto_hash_sha256_BYTES + 1];
    const json_t *r;
    rng_v1 rng;
    size_t i;

    RIG_EQ_STR(scs_str(dice, "source"), "seeded");
    RIG_EQ_STR(scs_str(dice, "rng"), "v1");
    RIG_IS_TRUE(json_is_true(scs_get(dice, "verifiable")));
    ck_assert_msg(scs_str(dice, "server_seed") != NULL,
                  "%s: the server seed is not revealed", rig_ctx);
    ck_assert_int_eq(rng_unhex(scs_str(dice, "server_seed"), seed, sizeof seed),
                     0);
    crypto_hash_sha256(hash, seed, sizeof seed);
    sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
    RIG_EQ_STR(scs_str(dice, "commitment"), hex);
    RIG_IS_TRUE(json_array_size(rolls) > 0);
    rng_v1_init(&rng, seed, (const uint8_t *)cs, cs ? strlen(cs) : 0);
    json_array_foreach(rolls, i, r)
    {
        RIG_EQ_INT(rig_inum(r, "seq"), (long long)i + 1);
        RIG_EQ_INT(rig_inum(r, "faces"), 6);
        RIG_EQ_STR(scs_str(r, "source"), "seeded");
        RIG_EQ_STR(scs_str(r, "rng"), "v1");
        RIG_EQ_INT(rig_inum(r, "natural"), rng_v1_die(&rng, 6));
    }
    rng_v1_cleanup(&rng);
}

void mx_restart(void)
{
    http_config cfg;
    err_info e;

    http_stop(rig_ts->srv);
    rig_ts->srv = NULL;
    http_config_default(&cfg);
    cfg.port = 0;
    cfg.db_path = rig_ts->db_path;
    cfg.access_log = "off";
    cfg.body_limit = 64 * 1024;
    err_clear(&e);
    if (http_start(&cfg, &rig_ts->srv, &e) != ERR_OK)
        ck_abort_msg("restart: %s", e.message);
    rig_ts->port = http_port(rig_ts->srv);
}

/* ---- steps and bursts ---- */

/* Runs the steps on battle bid, each refusal changing nothing. */
void mx_run_steps(const test_campaign *c, const char *bid, const mx_step *steps,
                  size_t n)
{
    long long n_actions = rig_inum(mx_get(c, bid), "n_actions");
    json_t *w = mx_world(c), *st;
    size_t i;

    for (i = 0; i < n; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "step %zu: %.140s", i, steps[i].body);
        if (steps[i].status != 200) {
            mx_refuse(c, w, steps[i].status, steps[i].code, steps[i].field,
                      c->umpire, steps[i].body,
                      "/v1/campaigns/%s/battles/%s/actions", c->id, bid);
            continue;
        }
        st = mx_act(c, bid, 200, "%s", steps[i].body);
        RIG_EQ_INT(rig_inum(st, "n_actions"), ++n_actions);
        RIG_EQ_INT(mx_n_action_rows(bid), n_actions);
        w = mx_world(c);
    }
}

/* One request of a burst, sent when every thread is ready. */
static void *fire(void *arg)
{
    mx_shot *s = arg;
    http_resp r;

    pthread_barrier_wait(s->start);
    s->status = -1;
    s->n_actions = -1;
    if (ts_request(rig_ts, "POST", s->path, s->c->umpire, s->body, &r) != 0)
        return NULL;
    s->status = r.status;
    if (json_is_integer(json_object_get(r.json, "n_actions")))
        s->n_actions = json_integer_value(json_object_get(r.json, "n_actions"));
    http_resp_cleanup(&r);
    return NULL;
}

/* Fires n requests at once, bodies[i] (or body for all) at the battle's
 * actions; returns how many answered 200, and the answers in shots. */
int mx_burst(const test_campaign *c, const char *bid, mx_shot *shots, int n,
             const char *const *bodies, const char *body)
{
    pthread_barrier_t start;
    pthread_t th[16];
    int i, n_ok = 0;

    ck_assert_int_le(n, 16);
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (i = 0; i < n; i++) {
        shots[i].start = &start;
        shots[i].c = c;
        snprintf(shots[i].path, sizeof shots[i].path,
                 "/v1/campaigns/%s/battles/%s/actions", c->id, bid);
        snprintf(shots[i].body, sizeof shots[i].body, "%s",
                 bodies ? bodies[i] : body);
        pthread_create(&th[i], NULL, fire, &shots[i]);
    }
    for (i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        n_ok += shots[i].status == 200;
    }
    pthread_barrier_destroy(&start);
    return n_ok;
}

/* ---- the vectors ---- */

/* The army key ("attacker", "defender") of the vector army named name. */
const char *mx_vec_key(const json_t *bt, const char *name)
{
    RIG_IS_TRUE(name != NULL);
    return strcmp(scs_str(scs_get(bt, "attacker"), "name"), name) == 0
               ? "attacker"
               : "defender";
}

/* The vector unit called id (its army's index in *army). */
const json_t *mx_vec_unit(const json_t *bt, const char *id, int *army)
{
    const json_t *u;
    size_t i;
    int a;

    for (a = 0; a < 2; a++)
        json_array_foreach(scs_get(scs_get(bt, mx_army_key[a]), "units"), i, u)
        {
            if (strcmp(scs_str(u, "id"), id) == 0) {
                *army = a;
                return u;
            }
        }
    ck_abort_msg("%s: no unit %s in the vector", rig_ctx, id);
    return NULL;
}

/* Casualty points of a result (null: none). */
int mx_points(const char *result)
{
    if (result == NULL || strcmp(result, "none") == 0)
        return 0;
    return strcmp(result, "routed") == 0   ? 3
           : strcmp(result, "beaten") == 0 ? 2
                                           : 1;
}

/* A served combat against a vector expectation {blue, red, loser,
 * result}, whose scores are by army name. */
void mx_vec_check_combat(const json_t *cs, const json_t *bt, const json_t *want)
{
    const char *loser = scs_str(want, "loser");
    int a;

    RIG_IS_TRUE(json_is_true(scs_get(cs, "rolled")));
    for (a = 0; a < 2; a++)
        RIG_EQ_INT(
            rig_inum(scs_get(cs, "scores"), mx_army_key[a]),
            rig_inum(want, scs_str(scs_get(bt, mx_army_key[a]), "name")));
    if (loser)
        RIG_EQ_STR(scs_str(cs, "loser"), mx_vec_key(bt, loser));
    else
        RIG_IS_TRUE(json_is_null(scs_get(cs, "loser")));
    RIG_EQ_STR(scs_str(cs, "result"), scs_str(want, "result"));
}

/* A served result against the vector's expectation. */
void mx_vec_check_result(const json_t *res, const json_t *bt,
                         const json_t *want)
{
    static const char *const same[] = {"army_state", "winner_can_pursue",
                                       "unit_results"};
    const json_t *cp = scs_get(want, "casualty_points"), *x;
    json_t *exhausted = scs_rig_keep(json_array());
    size_t i;
    int a;

    for (a = 0; a < 2 && cp; a++)
        RIG_EQ_INT(rig_inum(scs_get(res, "casualty_points"), mx_army_key[a]),
                   rig_inum(cp, scs_str(scs_get(bt, mx_army_key[a]), "name")));
    if (scs_get(want, "winner"))
        RIG_EQ_STR(scs_str(res, "winner"),
                   mx_vec_key(bt, scs_str(want, "winner")));
    if (scs_get(want, "winner") && scs_get(want, "loser"))
        RIG_EQ_STR(scs_str(res, "loser"),
                   mx_vec_key(bt, scs_str(want, "loser")));
    for (i = 0; i < 3; i++)
        if (scs_get(want, same[i]))
            ck_assert_msg(
                json_equal(scs_get(res, same[i]), scs_get(want, same[i])),
                "%s: %s differs", rig_ctx, same[i]);
    if (scs_get(want, "exhausted") == NULL)
        return;
    json_array_foreach(scs_get(want, "exhausted"), i, x) json_array_append_new(
        exhausted, json_string(mx_vec_key(bt, json_string_value(x))));
    RIG_IS_TRUE(json_equal(scs_get(res, "exhausted"), exhausted));
}

/* The vector's combat of index c. */
const json_t *mx_vec_combat(const json_t *bt, long long c)
{
    const json_t *x;
    size_t i;

    json_array_foreach(scs_get(bt, "combats"), i, x)
    {
        if (rig_inum(x, "index") == c)
            return x;
    }
    ck_abort_msg("%s: no combat %lld in the vector", rig_ctx, c);
    return NULL;
}

/* The expected roll log of the vector battle, checked against rolls: per
 * combat in order, its line units (attacker first), then its reserves;
 * modified = natural + quality + army modifier (- 1 for a reserve). */
void mx_vec_check_rolls(const json_t *rolls, const json_t *bt,
                        const json_t *ids)
{
    const json_t *cmb, *r, *names;
    size_t i, k, n = 0;
    int a, b;

    json_array_foreach(scs_get(bt, "combats"), i, cmb)
    {
        const json_t *pair =
            scs_at(scs_get(bt, "line"), (size_t)rig_inum(cmb, "index"));
        json_t *seq = scs_rig_keep(json_array());
        for (a = 0; a < 2; a++)
            json_array_foreach(scs_at(pair, (size_t)a), k, names)
                json_array_append_new(
                    seq, json_pack("{s:O, s:O, s:b}", "unit", names, "die",
                                   scs_get(scs_get(cmb, "dice"),
                                           json_string_value(names)),
                                   "reserve", 0));
        json_array_foreach(scs_get(cmb, "reserves"), k, r)
            json_array_append_new(
                seq, json_pack("{s:O, s:O, s:b}", "unit", scs_get(r, "unit"),
                               "die", scs_get(r, "die"), "reserve", 1));
        json_array_foreach(seq, k, r)
        {
            const char *name = scs_str(r, "unit");
            const json_t *u = mx_vec_unit(bt, name, &b),
                         *got = scs_at(rolls, n++);
            long long die = rig_inum(r, "die");
            bool is_reserve = json_is_true(scs_get(r, "reserve"));
            snprintf(rig_ctx, sizeof rig_ctx, "roll %zu (%s)", n, name);
            RIG_IS_TRUE(got != NULL);
            RIG_EQ_INT(rig_inum(got, "seq"), (long long)n);
            RIG_EQ_STR(scs_str(got, "unit"), name);
            RIG_EQ_STR(scs_str(got, "unit_id"), scs_str(ids, name));
            RIG_EQ_STR(scs_str(got, "side"),
                       scs_str(scs_get(bt, mx_army_key[b]), "name"));
            RIG_EQ_STR(scs_str(got, "reason"),
                       is_reserve ? "matrix.reserve" : "matrix.line");
            RIG_EQ_INT(rig_inum(got, "faces"), 6);
            RIG_EQ_STR(scs_str(got, "source"), "entered");
            RIG_EQ_INT(rig_inum(got, "natural"), die);
            RIG_EQ_INT(rig_inum(got, "modified"),
                       die + rig_inum(u, "quality") +
                           rig_inum(scs_get(bt, mx_army_key[b]), "modifier") -
                           (is_reserve ? 1 : 0));
        }
    }
    RIG_EQ_INT(json_array_size(rolls), (long long)n);
}

/* The campaign battle's request: armies by side, attacker's units by id,
 * the defender's by name, the vector's line, entered dice. */
json_t *mx_vec_campaign_body(const json_t *bt, const json_t *ids, int turn)
{
    json_t *body =
        json_pack("{s:O, s:i, s:{s:s}, s:[]}", "kind", scs_get(bt, "kind"),
                  "turn", turn, "dice", "source", "entered", "line");
    const json_t *u, *p;
    size_t i;
    int a;

    for (a = 0; a < 2; a++) {
        const json_t *va = scs_get(bt, mx_army_key[a]);
        json_t *units = json_array();
        json_array_foreach(scs_get(va, "units"), i, u) json_array_append_new(
            units, a == 0 ? json_deep_copy(scs_get(ids, scs_str(u, "id")))
                          : json_string(scs_str(u, "id")));
        json_object_set_new(body, mx_army_key[a],
                            json_pack("{s:O, s:O, s:o}", "side",
                                      scs_get(va, "name"), "argument",
                                      scs_get(va, "modifier"), "units", units));
    }
    json_array_foreach(scs_get(bt, "line"), i, p) json_array_append_new(
        scs_get(body, "line"), json_pack("{s:O, s:O}", "attacker", scs_at(p, 0),
                                         "defender", scs_at(p, 1)));
    return body;
}

/* Fights the vector battle bid step by step; returns the last state. */
json_t *mx_vec_fight(const test_campaign *c, const char *bid, const json_t *bt)
{
    const json_t *cmb, *r, *cs;
    json_t *st = NULL;
    long long n = 0;
    size_t i, k;
    int a;

    json_array_foreach(scs_get(bt, "combats"), i, cmb)
    {
        long long idx = rig_inum(cmb, "index");
        char *dice = scs_text(scs_get(cmb, "dice"));
        st = mx_act(c, bid, 200,
                    "{\"action\":\"roll\",\"combat\":%lld,"
                    "\"dice\":%s}",
                    idx, dice);
        free(dice);
        snprintf(rig_ctx, sizeof rig_ctx, "vector combat %lld rolled", idx);
        RIG_EQ_INT(rig_inum(st, "n_actions"), ++n);
        cs = scs_at(scs_get(st, "combats"), (size_t)idx);
        RIG_IS_TRUE(json_equal(scs_get(cs, "dice"), scs_get(cmb, "dice")));
        if (scs_get(cmb, "expect_before_reserves"))
            mx_vec_check_combat(cs, bt, scs_get(cmb, "expect_before_reserves"));
        json_array_foreach(scs_get(cmb, "reserves"), k, r)
        {
            mx_vec_unit(bt, scs_str(r, "unit"), &a);
            st = mx_act(c, bid, 200,
                        "{\"action\":\"commit\",\"combat\":%lld,"
                        "\"army\":\"%s\",\"unit\":\"%s\",\"die\":%lld}",
                        idx, mx_army_key[a], scs_str(r, "unit"),
                        rig_inum(r, "die"));
            RIG_EQ_INT(rig_inum(st, "n_actions"), ++n);
            cs = scs_at(scs_get(st, "combats"), (size_t)idx);
            scs_rig_assert_has(scs_at(scs_get(cs, "reserves"), k),
                               "{\"army\":\"%s\",\"unit\":\"%s\",\"die\":%lld}",
                               mx_army_key[a], scs_str(r, "unit"),
                               rig_inum(r, "die"));
        }
        snprintf(rig_ctx, sizeof rig_ctx, "vector combat %lld", idx);
        mx_vec_check_combat(cs, bt, scs_get(cmb, "expect"));
        RIG_IS_TRUE(json_is_false(scs_get(cs, "accepted")));
        st =
            mx_act(c, bid, 200, "{\"action\":\"accept\",\"combat\":%lld}", idx);
        RIG_EQ_INT(rig_inum(st, "n_actions"), ++n);
        RIG_IS_TRUE(json_is_true(
            scs_get(scs_at(scs_get(st, "combats"), (size_t)idx), "accepted")));
        RIG_EQ_STR(scs_str(st, "status"),
                   i + 1 < json_array_size(scs_get(bt, "combats"))
                       ? "open"
                       : "finished");
    }
    return st;
}

/* The vector army inline: {name, argument, units: [{name, quality}]}. */
static json_t *inline_army(const json_t *va)
{
    json_t *o = json_pack("{s:O, s:O, s:[]}", "name", scs_get(va, "name"),
                          "argument", scs_get(va, "modifier"), "units");
    const json_t *u;
    size_t i;

    json_array_foreach(scs_get(va, "units"), i, u) json_array_append_new(
        scs_get(o, "units"), json_pack("{s:O, s:O}", "name", scs_get(u, "id"),
                                       "quality", scs_get(u, "quality")));
    return o;
}

/* A one-off of a vector battle: dice per combat (dice_of(c)), commits. */
json_t *mx_vec_oneoff_body(const json_t *bt, const json_t *all_dice,
                           json_t *order)
{
    json_t *body = json_pack("{s:o, s:o, s:[], s:[], s:{s:s}}", "attacker",
                             inline_army(scs_get(bt, "attacker")), "defender",
                             inline_army(scs_get(bt, "defender")), "line",
                             "commits", "dice", "source", "entered");
    const json_t *p, *cmb, *r;
    size_t i, k;
    int a;

    json_array_foreach(scs_get(bt, "line"), i, p)
    {
        const json_t *d =
            all_dice ? all_dice
                     : scs_get(mx_vec_combat(bt, (long long)i), "dice");
        json_array_append_new(scs_get(body, "line"),
                              json_pack("{s:O, s:O, s:O}", "attacker",
                                        scs_at(p, 0), "defender", scs_at(p, 1),
                                        "dice", d));
    }
    json_array_foreach(scs_get(bt, "combats"), i, cmb)
        json_array_foreach(scs_get(cmb, "reserves"), k, r)
    {
        mx_vec_unit(bt, scs_str(r, "unit"), &a);
        json_array_append_new(
            scs_get(body, "commits"),
            json_pack("{s:O, s:s, s:O, s:O}", "combat", scs_get(cmb, "index"),
                      "army", mx_army_key[a], "unit", scs_get(r, "unit"), "die",
                      scs_get(r, "die")));
    }
    if (order)
        json_object_set(body, "order", order);
    return body;
}

/* A request body from fmt, in one of 4 rotating static buffers. */
const char *mx_fmt(const char *fmt, ...)
{
    static char buf[4][2048];
    static int next;
    char *b = buf[next++ % 4];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(b, sizeof buf[0], fmt, ap);
    va_end(ap);
    return b;
}

/* Units B1.. of blue and R1.. of red, n each, quality 0. */
void mx_units(const test_campaign *c, int n)
{
    char name[16];
    int i;

    for (i = 1; i <= n; i++) {
        snprintf(name, sizeof name, "B%d", i);
        mx_unit(c, name, "blue", 0, NULL);
        snprintf(name, sizeof name, "R%d", i);
        mx_unit(c, name, "red", 0, NULL);
    }
}

/* ---- ratios ---- */

/* How an army reaches a score: its argument, its line unit's quality and
 * die, and (above 10, out of one die's reach) a reserve's. */
typedef struct side_plan {
    int argument, quality, die;
    bool has_reserve;
    int r_quality, r_die;
} side_plan;

static void plan_score(int s, side_plan *p)
{
    static const int args[] = {0, 1, -1}, qs[] = {0, 1, -1, 2, -2, 3, -3};
    size_t i, k;
    int d;

    memset(p, 0, sizeof *p);
    if (s > 10) { /* 6 + 3 + 1, and a reserve: die - 1 + quality + 1 */
        *p = (side_plan){1, 3, 6, true, 0, 0};
        for (k = 0; k < 7 && !p->r_die; k++)
            for (d = 1; d <= 6 && !p->r_die; d++)
                if (d + qs[k] == s - 10)
                    p->r_quality = qs[k], p->r_die = d;
        ck_assert_msg(p->r_die, "no reserve makes %d", s);
        return;
    }
    for (i = 0; i < 3; i++)
        for (k = 0; k < 7; k++)
            for (d = 1; d <= 6; d++)
                if (d + qs[k] + args[i] == s) {
                    *p = (side_plan){args[i], qs[k], d, false, 0, 0};
                    return;
                }
    ck_abort_msg("no unit scores %d", s);
}

json_t *mx_ratio_body(const int s[2])
{
    static const char *const unit[2] = {"A", "D"}, *const res[2] = {"A2", "D2"};
    json_t *body = json_pack("{s:[], s:[], s:{s:s}}", "line", "commits", "dice",
                             "source", "entered");
    json_t *dice = json_object();
    side_plan p[2];
    int a;

    for (a = 0; a < 2; a++) {
        plan_score(s[a], &p[a]);
        json_object_set_new(body, mx_army_key[a],
                            json_pack("{s:s, s:i, s:[{s:s, s:i}]}", "name",
                                      mx_army_key[a], "argument", p[a].argument,
                                      "units", "name", unit[a], "quality",
                                      p[a].quality));
        json_object_set_new(dice, unit[a], json_integer(p[a].die));
        if (!p[a].has_reserve)
            continue;
        json_array_append_new(
            scs_get(scs_get(body, mx_army_key[a]), "units"),
            json_pack("{s:s, s:i}", "name", res[a], "quality", p[a].r_quality));
        json_array_append_new(scs_get(body, "commits"),
                              json_pack("{s:i, s:s, s:s, s:i}", "combat", 0,
                                        "army", mx_army_key[a], "unit", res[a],
                                        "die", p[a].r_die));
    }
    ck_assert_msg(!(p[0].has_reserve && p[1].has_reserve),
                  "%d and %d: both out of one unit's reach", s[0], s[1]);
    json_array_append_new(scs_get(body, "line"),
                          json_pack("{s:[s], s:[s], s:o}", "attacker", unit[0],
                                    "defender", unit[1], "dice", dice));
    return body;
}
