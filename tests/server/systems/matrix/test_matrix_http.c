/*
 * test_matrix_http.c: Matrix game battles (docs/rules/matrix.md) end to end
 * over HTTP.  The examples of tests/vectors/matrix-examples.json, read from
 * the file: the whole battle fought step by step in a campaign (its stored
 * effects, roll log and replay, exhaustion in the next battle), as a
 * one-off, two against one, and every ratio case as a one-off; a skirmish
 * that escalates into an open battle; a battle abandoned half way (and the
 * server restarted) read back exactly, its seeded dice re-derived with rng
 * v1 once it is over; every refused step, saying why and changing
 * nothing; and concurrent actions on one battle.  Uses matrix_rig.h.
 */
#include "harness.h"
#include "matrix_rig.h"
#include "rig.h"
#include "scs_rig.h"
#include "suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. matrix-examples.json through a campaign ---- */

START_TEST(test_vector_battle_campaign)
{
    const int turn = 3;
    json_t *vec = scs_rig_keep(ts_load_vector("matrix-examples.json"));
    json_t *bt = scs_get(vec, "battle"), *want = scs_get(bt, "expect");
    json_t *ids = scs_rig_keep(json_object()), *b, *st, *x, *w, *units, *rec;
    const char *bid, *cid, *name, *b1, *r1;
    char path[256], id[64], body[512];
    test_campaign c;
    size_t i;
    int a;

    mx_campaign(&c);
    for (a = 0; a < 2; a++)
        json_array_foreach(scs_get(scs_get(bt, mx_army_key[a]), "units"), i, x)
        {
            mx_unit(&c, scs_str(x, "id"),
                    scs_str(scs_get(bt, mx_army_key[a]), "name"),
                    (int)rig_inum(x, "quality"), id);
            json_object_set_new(ids, scs_str(x, "id"), json_string(id));
        }
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c.id);
    b = mx_post(201, c.umpire, mx_vec_campaign_body(bt, ids, turn), path);
    bid = scs_str(b, "id");
    snprintf(rig_ctx, sizeof rig_ctx, "vector battle created");
    scs_rig_assert_has(b,
                       "{\"status\":\"open\",\"turn\":%d,\"n_actions\":0,"
                       "\"over\":false,\"result\":null,\"combat_id\":null,"
                       "\"dice\":{\"source\":\"entered\",\"commitment\":null}}",
                       turn);
    for (a = 0; a < 2; a++)
        RIG_EQ_INT(
            rig_inum(scs_get(scs_get(b, "armies"), mx_army_key[a]), "modifier"),
            rig_inum(scs_get(bt, mx_army_key[a]), "modifier"));
    st = mx_vec_fight(&c, bid, bt);
    snprintf(rig_ctx, sizeof rig_ctx, "vector battle finished");
    RIG_IS_TRUE(json_is_true(scs_get(st, "over")));
    mx_vec_check_result(scs_get(st, "result"), bt, want);
    RIG_IS_TRUE(json_equal(mx_get(&c, bid), st));
    cid = scs_str(st, "combat_id");
    RIG_IS_TRUE(cid != NULL);
    /* routed units leave play; every unit that fought has its event */
    units = scs_get(scs_rig_keep(rig_cget(&c, "units")), "items");
    json_object_foreach(scs_get(want, "unit_results"), name, x)
    {
        const json_t *u = rig_find_by(units, "name", name), *ev;
        const char *res = json_is_null(x) ? "none" : json_string_value(x);
        bool is_routed = strcmp(res, "routed") == 0;
        snprintf(rig_ctx, sizeof rig_ctx, "stored effects on %s", name);
        mx_vec_unit(bt, name, &a);
        RIG_IS_TRUE(json_is_true(scs_get(u, "eliminated")) == is_routed);
        if (is_routed)
            scs_rig_assert_has(u,
                               "{\"eliminated_reason\":\"routed\","
                               "\"eliminated_by\":\"%s\"}",
                               cid);
        ev = scs_rig_last_event(&c, scs_str(ids, name));
        scs_rig_assert_has(ev,
                           "{\"kind\":\"combat\",\"combat_id\":\"%s\","
                           "\"after\":{\"eliminated\":%s},\"result\":{"
                           "\"system\":\"matrix\",\"battle_id\":\"%s\","
                           "\"army\":\"%s\",\"result\":\"%s\","
                           "\"casualty_points\":%d}}",
                           cid, is_routed ? "true" : "false", bid,
                           mx_army_key[a], res, mx_points(res));
    }
    x = scs_get(scs_rig_keep(rig_cget(&c, "sides")), "items");
    for (i = 0; i < json_array_size(x); i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "side %zu", i);
        scs_rig_assert_has(scs_at(x, i), "{\"exhausted_turn\":%d}", turn + 1);
    }
    /* the combat record: its roll log, its state, its replay */
    rec = scs_rig_keep(rig_cget(&c, "combats/%s", cid));
    snprintf(rig_ctx, sizeof rig_ctx, "the battle's combat record");
    scs_rig_assert_has(rec,
                       "{\"system\":\"matrix\",\"battle_id\":\"%s\","
                       "\"campaign_id\":\"%s\",\"turn\":%d}",
                       bid, c.id, turn);
    RIG_IS_TRUE(json_equal(scs_get(rec, "result"), scs_get(st, "result")));
    RIG_IS_TRUE(json_equal(scs_get(rec, "combats"), scs_get(st, "combats")));
    mx_vec_check_rolls(scs_get(rec, "rolls"), bt, ids);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id, cid);
    rig_check_replay(path, c.umpire);
    /* exhaustion: not applied in this turn, nor by a refused battle; applied
     * (and used up) by the next battle in turn + 1 */
    b1 = scs_str(scs_at(scs_get(scs_get(bt, "attacker"), "units"), 0), "id");
    r1 = scs_str(scs_at(scs_get(scs_get(bt, "defender"), "units"), 0), "id");
    RIG_IS_TRUE(json_is_null(scs_get(scs_get(want, "unit_results"), r1)) ||
                strcmp(scs_str(scs_get(want, "unit_results"), r1), "routed"));
#define NEXT(t, line)                                                          \
    "{\"turn\":%d,\"attacker\":{\"side\":\"%s\",\"units\":[\"%s\"]},"          \
    "\"defender\":{\"side\":\"%s\",\"units\":[\"%s\"]},\"line\":[" line "]}"
#define NEXT_ARGS(t)                                                           \
    t, scs_str(scs_get(bt, "attacker"), "name"), b1,                           \
        scs_str(scs_get(bt, "defender"), "name"), r1
    snprintf(body, sizeof body,
             NEXT(t, "{\"attacker\":[\"%s\"],\"defender\":[\"%s\"]},"
                     "{\"attacker\":[\"%s\"],\"defender\":[\"%s\"]}"),
             NEXT_ARGS(turn + 1), b1, r1, b1, r1);
    w = mx_world(&c);
    mx_refuse(&c, w, 422, "rule_violation", "line[1]", c.umpire, body,
              "/v1/campaigns/%s/battles", c.id);
    /* A unit fights one battle at a time, and these stay open: each
     * battle has its own pair of units (R9 a new one). */
    scs_call(201, "POST", c.umpire,
             "{\"name\":\"R9\",\"side\":\"red\",\"matrix\":{}}",
             "/v1/campaigns/%s/units", c.id);
    for (i = 0; i < 3; i++) {
        static const char *const bu[3] = {NULL, "B2", "B3"};
        static const char *const ru[3] = {NULL, "R3", "R9"};
        int t = i == 0 ? turn : turn + 1, mod = i == 1 ? -1 : 0;
        const char *bn = i ? bu[i] : b1, *rn = i ? ru[i] : r1;
        b = mx_battle(&c, 201,
                      "{\"turn\":%d,\"attacker\":{\"side\":\"%s\","
                      "\"units\":[\"%s\"]},\"defender\":{\"side\":\"%s\","
                      "\"units\":[\"%s\"]},\"line\":[{\"attacker\":[\"%s\"],"
                      "\"defender\":[\"%s\"]}]}",
                      t, scs_str(scs_get(bt, "attacker"), "name"), bn,
                      scs_str(scs_get(bt, "defender"), "name"), rn, bn, rn);
        snprintf(rig_ctx, sizeof rig_ctx, "battle %zu after exhaustion", i);
        scs_rig_assert_has(b,
                           "{\"armies\":{\"attacker\":{\"modifier\":%d},"
                           "\"defender\":{\"modifier\":%d}},\"setup\":{"
                           "\"attacker\":{\"exhausted\":%s},\"defender\":{"
                           "\"exhausted\":%s}}}",
                           mod, mod, i == 1 ? "true" : "false",
                           i == 1 ? "true" : "false");
        x = scs_get(scs_rig_keep(rig_cget(&c, "sides")), "items");
        if (i == 0)
            scs_rig_assert_has(x,
                               "[{\"exhausted_turn\":%d},{"
                               "\"exhausted_turn\":%d}]",
                               turn + 1, turn + 1);
        else
            scs_rig_assert_has(x, "[{\"exhausted_turn\":null},{"
                                  "\"exhausted_turn\":null}]");
    }
#undef NEXT
#undef NEXT_ARGS
}
END_TEST

/* ---- 1b. The battle and two against one as one-offs ---- */

/* A one-off's answer is stored and replays. */
static void check_stored_oneoff(const json_t *rep)
{
    char path[128];

    snprintf(path, sizeof path, "/v1/combats/%s", scs_str(rep, "id"));
    RIG_IS_TRUE(json_equal(scs_call(200, "GET", NULL, NULL, "%s", path), rep));
    RIG_IS_TRUE(json_is_null(scs_get(rep, "campaign_id")));
    rig_check_replay(path, NULL);
}

START_TEST(test_vector_oneoffs)
{
    json_t *vec = scs_rig_keep(ts_load_vector("matrix-examples.json"));
    json_t *bt = scs_get(vec, "battle"), *rep, *cmb, *two, *want;
    size_t i;

    /* the battle, in the vector's order, then in reverse */
    rep = mx_post(201, NULL, mx_vec_oneoff_body(bt, NULL, NULL),
                  "/v1/combats/matrix");
    snprintf(rig_ctx, sizeof rig_ctx, "one-off battle");
    json_array_foreach(scs_get(bt, "combats"), i, cmb) mx_vec_check_combat(
        scs_at(scs_get(rep, "combats"), (size_t)rig_inum(cmb, "index")), bt,
        scs_get(cmb, "expect"));
    mx_vec_check_result(scs_get(rep, "result"), bt, scs_get(bt, "expect"));
    RIG_EQ_INT(json_array_size(scs_get(rep, "rolls")), 7);
    check_stored_oneoff(rep);
    rep = mx_post(201, NULL, mx_vec_oneoff_body(bt, NULL, scs_json("[2,1,0]")),
                  "/v1/combats/matrix");
    snprintf(rig_ctx, sizeof rig_ctx, "one-off battle in reverse");
    mx_vec_check_result(scs_get(rep, "result"), bt, scs_get(bt, "expect"));
    RIG_EQ_STR(scs_str(scs_at(scs_get(rep, "rolls"), 0), "unit"),
               json_string_value(
                   scs_at(scs_at(scs_at(scs_get(bt, "line"), 2), 0), 0)));
    check_stored_oneoff(rep);
    /* two against one */
    two = scs_get(vec, "two_against_one");
    want = scs_get(two, "expect");
    rep =
        mx_post(201, NULL, mx_vec_oneoff_body(two, scs_get(two, "dice"), NULL),
                "/v1/combats/matrix");
    snprintf(rig_ctx, sizeof rig_ctx, "two against one");
    mx_vec_check_combat(scs_at(scs_get(rep, "combats"), 0), two, want);
    mx_vec_check_result(scs_get(rep, "result"), two, want);
    RIG_EQ_INT(json_array_size(scs_get(rep, "rolls")), 3);
    check_stored_oneoff(rep);
}
END_TEST

/* ---- 1c. Every ratio case as a one-off, one against one ---- */

START_TEST(test_vector_ratios)
{
    json_t *vec = scs_rig_keep(ts_load_vector("matrix-examples.json"));
    const json_t *cs;
    json_t *x;
    size_t i;
    int a;

    RIG_IS_TRUE(json_array_size(scs_get(vec, "ratios")) > 0);
    json_array_foreach(scs_get(vec, "ratios"), i, x)
    {
        static const char *const unit[2] = {"A", "D"};
        const char *want = scs_str(x, "expect");
        json_t *rep;
        int s[2], lo;
        for (a = 0; a < 2; a++)
            s[a] = (int)json_integer_value(scs_at(scs_get(x, "scores"), a));
        rep = mx_post(201, NULL, mx_ratio_body(s), "/v1/combats/matrix");
        snprintf(rig_ctx, sizeof rig_ctx, "ratio %d:%d", s[0], s[1]);
        cs = scs_at(scs_get(rep, "combats"), 0);
        RIG_EQ_INT(rig_inum(scs_get(cs, "scores"), "attacker"), s[0]);
        RIG_EQ_INT(rig_inum(scs_get(cs, "scores"), "defender"), s[1]);
        RIG_EQ_STR(scs_str(cs, "result"), want);
        if (strcmp(want, "even") == 0) {
            RIG_IS_TRUE(json_is_null(scs_get(cs, "loser")));
            RIG_IS_TRUE(
                json_is_null(scs_get(scs_get(rep, "result"), "winner")));
            continue;
        }
        /* a score below 1 counts as 1 */
        lo = (s[0] < 1 ? 1 : s[0]) < (s[1] < 1 ? 1 : s[1]) ? 0 : 1;
        RIG_EQ_STR(scs_str(cs, "loser"), mx_army_key[lo]);
        RIG_EQ_STR(
            scs_str(scs_get(scs_get(rep, "result"), "unit_results"), unit[lo]),
            want);
        RIG_EQ_INT(rig_inum(scs_get(scs_get(rep, "result"), "casualty_points"),
                            mx_army_key[lo]),
                   mx_points(want));
        RIG_EQ_STR(scs_str(scs_get(rep, "result"), "winner"),
                   mx_army_key[1 - lo]);
    }
}
END_TEST

/* ---- 2. A skirmish that escalates into an open battle ---- */

#define BLUE3 Q(B1) "," Q(B2) "," Q(B3)
#define RED3  Q(R1) "," Q(R2) "," Q(R3)
#define LINE3 PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(R2)) "," PAIR(Q(B3), Q(R3))
#define FROM3                                                                  \
    BATTLE(",\"escalated_from\":\"%s\"", ARMY("blue", BLUE3, ""),              \
           ARMY("red", RED3, ""), LINE3)
START_TEST(test_skirmish_escalates)
{
    static const char *const commits[][2] = {{"attacker", "B2"},
                                             {"defender", "R2"},
                                             {"attacker", "B3"},
                                             {"defender", "R3"}};
    json_t *sk, *st, *rec, *w, *ob, *x;
    const char *sid, *cid;
    char path[256], obid[64];
    test_campaign c;
    size_t i;

    mx_campaign(&c);
    mx_units(&c, 3);
    sk = mx_battle(
        &c, 201,
        BATTLE(",\"kind\":\"skirmish\",\"ambush\":\"defender\","
               "\"dice\":{\"client_seed\":\"skirmish\"}",
               ARMY("blue", BLUE3, ",\"reserve\":[" Q(B2) "," Q(B3) "]"),
               ARMY("red", RED3, ",\"reserve\":[" Q(R2) "," Q(R3) "]"),
               PAIR(Q(B1), Q(R1))));
    sid = scs_str(sk, "id");
    snprintf(rig_ctx, sizeof rig_ctx, "skirmish created");
    /* both armies have reserves; the ambushing defender gets +1 */
    scs_rig_assert_has(
        sk, "{\"setup\":{\"kind\":\"skirmish\",\"ambush\":"
            "\"defender\"},\"armies\":{\"attacker\":{\"modifier\":0,"
            "\"may_commit_reserves\":true},\"defender\":{"
            "\"modifier\":1,\"may_commit_reserves\":true}},"
            "\"dice\":{\"source\":\"seeded\",\"server_seed\":null}}");
    RIG_EQ_INT(strlen(scs_str(scs_get(sk, "dice"), "commitment")), 64);
    st = mx_act(&c, sid, 200, "{\"action\":\"roll\",\"combat\":0}");
    x = scs_at(scs_get(st, "combats"), 0);
    RIG_EQ_INT(rig_inum(scs_get(x, "scores"), "attacker"),
               rig_inum(scs_get(x, "dice"), "B1"));
    RIG_EQ_INT(rig_inum(scs_get(x, "scores"), "defender"),
               rig_inum(scs_get(x, "dice"), "R1") + 1);
    for (i = 0; i < 4; i++) {
        st = mx_act(&c, sid, 200,
                    "{\"action\":\"commit\",\"combat\":0,"
                    "\"army\":\"%s\",\"unit\":\"%s\"}",
                    commits[i][0], commits[i][1]);
        snprintf(rig_ctx, sizeof rig_ctx, "skirmish commit %zu", i + 1);
        RIG_EQ_STR(scs_str(st, "status"), i < 3 ? "open" : "escalated");
    }
    /* escalated: a record, no result applied */
    scs_rig_assert_has(st, "{\"escalated\":true,\"over\":true,\"result\":null,"
                           "\"n_actions\":5,\"escalated_to\":null}");
    cid = scs_str(st, "combat_id");
    RIG_IS_TRUE(cid != NULL);
    RIG_IS_TRUE(json_equal(mx_get(&c, sid), st));
    rec = scs_rig_keep(rig_cget(&c, "combats/%s", cid));
    RIG_EQ_INT(json_array_size(scs_get(rec, "rolls")), 6);
    mx_check_seeded(scs_get(st, "dice"), scs_get(rec, "rolls"));
    for (i = 0; i < 6; i++)
        RIG_EQ_STR(scs_str(scs_at(scs_get(rec, "rolls"), i), "reason"),
                   i < 2 ? "matrix.line" : "matrix.reserve");
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id, cid);
    rig_check_replay(path, c.umpire);
    x = scs_get(scs_rig_keep(rig_cget(&c, "units")), "items");
    for (i = 0; i < json_array_size(x); i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "after the skirmish, unit %zu", i);
        RIG_IS_TRUE(json_is_false(scs_get(scs_at(x, i), "eliminated")));
        RIG_EQ_STR(scs_str(scs_rig_last_event(&c, scs_str(scs_at(x, i), "id")),
                           "kind"),
                   "created");
    }
    scs_rig_assert_has(scs_rig_keep(rig_cget(&c, "sides")),
                       "{\"items\":[{\"exhausted_turn\":null},{"
                       "\"exhausted_turn\":null}]}");
    w = mx_world(&c);
    snprintf(rig_ctx, sizeof rig_ctx, "skirmish over");
    mx_refuse(&c, w, 409, "conflict", NULL, c.umpire,
              "{\"action\":\"accept\",\"combat\":0}",
              "/v1/campaigns/%s/battles/%s/actions", c.id, sid);
    /* the open battle: refused without every unit, as a skirmish, from a
     * battle that is not there */
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c.id);
    mx_refuse(
        &c, w, 422, "rule_violation", "attacker", c.umpire,
        mx_fmt(BATTLE(",\"escalated_from\":\"%s\"",
                      ARMY("blue", Q(B1) "," Q(B2), ""), ARMY("red", RED3, ""),
                      PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(R2))),
               sid),
        "%s", path);
    snprintf(rig_ctx, sizeof rig_ctx, "escalated into a skirmish");
    mx_refuse(&c, w, 422, "rule_violation", "kind", c.umpire,
              mx_fmt(BATTLE(",\"kind\":\"skirmish\",\"escalated_from\":\"%s\"",
                            ARMY("blue", BLUE3, ""), ARMY("red", RED3, ""),
                            PAIR(Q(B1), Q(R1))),
                     sid),
              "%s", path);
    mx_refuse(&c, w, 422, "invalid_value", "escalated_from", c.umpire,
              BATTLE(",\"escalated_from\":\"bat_nothing\"",
                     ARMY("blue", BLUE3, ""), ARMY("red", RED3, ""), LINE3),
              "%s", path);
    ob = mx_battle(&c, 201, FROM3, sid);
    snprintf(obid, sizeof obid, "%s", scs_str(ob, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "the open battle");
    scs_rig_assert_has(ob,
                       "{\"status\":\"open\",\"escalated_from\":\"%s\","
                       "\"escalated_to\":null,\"setup\":{\"kind\":\"open\"}}",
                       sid);
    scs_rig_assert_has(mx_get(&c, sid),
                       "{\"status\":\"escalated\","
                       "\"escalated_to\":\"%s\",\"escalated_from\":null}",
                       obid);
    /* a second link, or a link from an open battle, is refused */
    w = mx_world(&c);
    mx_refuse(&c, w, 409, "conflict", "escalated_from", c.umpire,
              mx_fmt(FROM3, sid), "%s", path);
    mx_refuse(&c, w, 409, "conflict", "escalated_from", c.umpire,
              mx_fmt(FROM3, obid), "%s", path);
}
END_TEST

/* ---- 3. A battle abandoned half way, read back exactly ---- */

START_TEST(test_abandoned_half_way)
{
    json_t *b, *last, *fin, *rolls, *c0, *c1;
    char bid[64], commitment[80], path[256];
    test_campaign c;

    mx_campaign(&c);
    mx_unit(&c, "B1", "blue", 1, NULL);
    mx_unit(&c, "B2", "blue", 0, NULL);
    mx_unit(&c, "B3", "blue", -1, NULL);
    mx_unit(&c, "R1", "red", 0, NULL);
    mx_unit(&c, "R2", "red", 2, NULL);
    b = mx_battle(&c, 201,
                  BATTLE(",\"note\":\"half way\",\"dice\":{\"client_seed\":"
                         "\"table 4\"}",
                         ARMY("blue", BLUE3, ",\"argument\":1"),
                         ARMY("red", Q(R1) "," Q(R2), ""),
                         PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(R2))));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    snprintf(commitment, sizeof commitment, "%s",
             scs_str(scs_get(b, "dice"), "commitment"));
    snprintf(rig_ctx, sizeof rig_ctx, "seeded battle created");
    RIG_EQ_INT(strlen(commitment), 64);
    scs_rig_assert_has(b, "{\"dice\":{\"source\":\"seeded\",\"rng\":\"v1\","
                          "\"server_seed\":null,\"client_seed\":\"table 4\","
                          "\"verifiable\":true}}");
    /* the attacker picks combat 1, feeds B3 into it, accepts; then stops */
    mx_act(&c, bid, 200, "{\"action\":\"roll\",\"combat\":1}");
    mx_act(&c, bid, 200,
           "{\"action\":\"commit\",\"combat\":1,\"army\":\"attacker\","
           "\"unit\":\"B3\",\"note\":\"B3 goes in\"}");
    last = mx_act(&c, bid, 200, "{\"action\":\"accept\",\"combat\":1}");
    snprintf(rig_ctx, sizeof rig_ctx, "half way");
    scs_rig_assert_has(last, "{\"status\":\"open\",\"n_actions\":3,\"over\":"
                             "false,\"result\":null,\"combat_id\":null,"
                             "\"combats\":[{\"rolled\":false},{\"rolled\":true,"
                             "\"accepted\":true}]}");
    mx_restart(); /* abandoned: the server goes away and comes back */
    RIG_IS_TRUE(json_equal(mx_get(&c, bid), last));
    RIG_EQ_STR(scs_str(scs_get(mx_get(&c, bid), "dice"), "commitment"),
               commitment);
    RIG_IS_TRUE(json_is_null(scs_get(scs_get(last, "dice"), "server_seed")));
    scs_rig_assert_has(
        scs_rig_keep(rig_cget(&c, "battles")),
        "{\"items\":[{\"id\":\"%s\",\"status\":\"open\",\"n_actions\":3,"
        "\"note\":\"half way\"}]}",
        bid);
    RIG_EQ_INT(mx_n_action_rows(bid), 3);
    /* finished later: the seed is revealed and every die re-derives */
    mx_act(&c, bid, 200, "{\"action\":\"roll\",\"combat\":0}");
    fin = mx_act(&c, bid, 200, "{\"action\":\"accept\",\"combat\":0}");
    snprintf(rig_ctx, sizeof rig_ctx, "finished after the restart");
    RIG_EQ_STR(scs_str(fin, "status"), "finished");
    RIG_EQ_STR(scs_str(scs_get(fin, "dice"), "commitment"), commitment);
    RIG_IS_TRUE(json_equal(mx_get(&c, bid), fin));
    rolls = scs_get(
        scs_rig_keep(rig_cget(&c, "combats/%s", scs_str(fin, "combat_id"))),
        "rolls");
    RIG_EQ_INT(json_array_size(rolls), 5);
    mx_check_seeded(scs_get(fin, "dice"), rolls);
    /* the log in the order fought: combat 1, B3's reserve, combat 0 */
    c0 = scs_at(scs_get(fin, "combats"), 0);
    c1 = scs_at(scs_get(fin, "combats"), 1);
    scs_rig_assert_has(
        rolls,
        "[{\"unit\":\"B2\",\"natural\":%lld,\"modified\":%lld},{\"unit\":"
        "\"R2\",\"natural\":%lld,\"modified\":%lld},{\"unit\":\"B3\","
        "\"reason\":\"matrix.reserve\",\"natural\":%lld,\"modified\":%lld},"
        "{\"unit\":\"B1\",\"natural\":%lld,\"modified\":%lld},{\"unit\":"
        "\"R1\",\"natural\":%lld,\"modified\":%lld}]",
        rig_inum(scs_get(c1, "dice"), "B2"),
        rig_inum(scs_get(c1, "dice"), "B2") + 1,
        rig_inum(scs_get(c1, "dice"), "R2"),
        rig_inum(scs_get(c1, "dice"), "R2") + 2,
        rig_inum(scs_at(scs_get(c1, "reserves"), 0), "die"),
        rig_inum(scs_at(scs_get(c1, "reserves"), 0), "die") - 1,
        rig_inum(scs_get(c0, "dice"), "B1"),
        rig_inum(scs_get(c0, "dice"), "B1") + 2,
        rig_inum(scs_get(c0, "dice"), "R1"),
        rig_inum(scs_get(c0, "dice"), "R1"));
    RIG_EQ_INT(rig_inum(scs_get(c1, "scores"), "attacker"),
               rig_inum(scs_get(c1, "dice"), "B2") + 1 +
                   rig_inum(scs_at(scs_get(c1, "reserves"), 0), "die") - 1);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s/replay", c.id,
             scs_str(fin, "combat_id"));
    scs_rig_assert_has(scs_call(200, "POST", c.umpire, NULL, "%s", path),
                       "{\"reproduced\":true,\"seeded_dice_verified\":true}");
}
END_TEST

/* ---- 4. Every refused step says why and changes nothing ---- */

START_TEST(test_create_refusals)
{
#define BLUE2 ARMY("blue", Q(B1) "," Q(B2), "")
#define RED2  ARMY("red", Q(R1) "," Q(R2), "")
#define LINE2 PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(R2))
    static const struct {
        const char *body, *code, *field;
    } cases[] = {
        /* two against one for the smaller army (red) */
        {BATTLE("", RED2, ARMY("blue", BLUE3, ""),
                PAIR(Q(R1) "," Q(R2), Q(B1))),
         "rule_violation", "line[0]"},
        {BATTLE("", ARMY("blue", BLUE3, ""), RED2,
                PAIR(Q(B1), Q(R1)) "," PAIR(Q(B1), Q(R2))),
         "rule_violation", "line[1]"},
        /* a unit of the smaller army left out */
        {BATTLE("", ARMY("blue", BLUE3, ""), RED2, PAIR(Q(B1), Q(R1))),
         "rule_violation", "defender.units[1]"},
        /* same size: every unit in the line */
        {BATTLE("", BLUE2, RED2, PAIR(Q(B1), Q(R1))), "rule_violation",
         "attacker.units[1]"},
        /* reserves in an open battle, larger or smaller army */
        {BATTLE("", ARMY("blue", BLUE3, ",\"reserve\":[" Q(B3) "]"), RED2,
                LINE2),
         "rule_violation", "attacker.reserve"},
        {BATTLE("", ARMY("blue", BLUE3, ""),
                ARMY("red", Q(R1) "," Q(R2), ",\"reserve\":[" Q(R2) "]"),
                LINE2),
         "rule_violation", "defender.reserve"},
        /* units of the wrong side, without Matrix, eliminated */
        {BATTLE("", ARMY("blue", Q(B1) "," Q(R1), ""), ARMY("red", Q(R2), ""),
                PAIR(Q(B1), Q(R2))),
         "rule_violation", "attacker.units[1]"},
        {BATTLE("", BLUE2, ARMY("red", Q(R1) "," Q(Rs), ""),
                PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(Rs))),
         "rule_violation", "defender.units[1]"},
        {BATTLE("", BLUE2, ARMY("red", Q(R1) "," Q(Rx), ""),
                PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(Rx))),
         "rule_violation", "defender.units[1]"},
        /* one army ambushes, not both; two sides; the units and fields */
        {BATTLE(",\"ambush\":\"both\"", BLUE2, RED2, LINE2), "invalid_value",
         "ambush"},
        {BATTLE("", BLUE2, ARMY("blue", Q(B3) "," Q(B4), ""),
                PAIR(Q(B1), Q(B3)) "," PAIR(Q(B2), Q(B4))),
         "rule_violation", "defender.side"},
        {BATTLE("", ARMY("blue", Q(Nobody) "," Q(B2), ""), RED2, LINE2),
         "invalid_value", "attacker.units[0]"},
        {BATTLE("", ARMY("blue", Q(B1) "," Q(B1), ""), RED2, LINE2),
         "invalid_value", "attacker.units[1]"},
        {BATTLE("", BLUE2, RED2, PAIR(Q(B3), Q(R1)) "," PAIR(Q(B2), Q(R2))),
         "invalid_value", "line[0].attacker[0]"},
        {BATTLE("", ARMY("blue", Q(B1) "," Q(B2), ",\"argument\":2"), RED2,
                LINE2),
         "out_of_range", "attacker.argument"},
        {BATTLE(",\"kind\":\"skirmish\"", BLUE2, RED2, LINE2), "rule_violation",
         "line"},
        {BATTLE(",\"kind\":\"skirmish\"",
                ARMY("blue", BLUE3 "," Q(B4),
                     ",\"reserve\":[" Q(B2) "," Q(B3) "," Q(B4) "]"),
                RED2, PAIR(Q(B1), Q(R1))),
         "limit_exceeded", "attacker.reserve"},
        {BATTLE(",\"kind\":\"ambush\"", BLUE2, RED2, LINE2), "missing_field",
         "ambush"},
        {BATTLE(",\"kind\":\"siege\"", BLUE2, RED2, LINE2), "invalid_value",
         "kind"},
        {BATTLE(",\"dice\":{\"source\":\"entered\"},\"retreat\":true", BLUE2,
                RED2, LINE2),
         "unknown_field", "retreat"},
        {"{\"attacker\":" BLUE2 ",\"defender\":" RED2 ",\"line\":[" LINE2 "]}",
         "missing_field", "turn"},
        {"{\"turn\":0,\"attacker\":" BLUE2 ",\"defender\":" RED2
         ",\"line\":[" LINE2 "]}",
         "out_of_range", "turn"},
    };
    test_campaign c, other;
    json_t *w, *u;
    size_t i;

    mx_campaign(&c);
    mx_campaign(&other);
    mx_units(&c, 4);
    scs_call(201, "POST", c.umpire,
             "{\"name\":\"Rs\",\"side\":\"red\",\"scrud\":{}}",
             "/v1/campaigns/%s/units", c.id); /* no Matrix */
    u = scs_call(201, "POST", c.umpire, "{\"name\":\"Rx\",\"side\":\"red\"}",
                 "/v1/campaigns/%s/units", c.id);
    scs_call(200, "PATCH", c.umpire, "{\"eliminated\":true}",
             "/v1/campaigns/%s/units/%s", c.id, scs_str(u, "id"));
    w = mx_world(&c);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "refused battle %zu: %.120s", i,
                 cases[i].body);
        mx_refuse(&c, w, 422, cases[i].code, cases[i].field, c.umpire,
                  cases[i].body, "/v1/campaigns/%s/battles", c.id);
    }
    snprintf(rig_ctx, sizeof rig_ctx, "battle by a player or another umpire");
    mx_refuse(&c, w, 403, "forbidden", NULL, c.player[0],
              BATTLE("", BLUE2, RED2, LINE2), "/v1/campaigns/%s/battles", c.id);
    mx_refuse(&c, w, 403, "forbidden", NULL, other.umpire,
              BATTLE("", BLUE2, RED2, LINE2), "/v1/campaigns/%s/battles", c.id);
    mx_refuse(&c, w, 401, "unauthorized", NULL, NULL,
              BATTLE("", BLUE2, RED2, LINE2), "/v1/campaigns/%s/battles", c.id);
}
END_TEST

START_TEST(test_action_refusals)
{
    static const mx_step entered[] = {
        {COMMIT(0, "attacker", "B3", DIE(4)), 409, "conflict", "combat"},
        {ACCEPT(0), 409, "conflict", "combat"},
        {MROLL(1, ""), 422, "missing_field", "dice"},
        {MROLL(1, DICE("B2", 3, "X", 4)), 422, "unknown_field", "dice.X"},
        {MROLL(1, ",\"dice\":{\"B2\":3,\"R2\":4,\"B1\":2}"), 422,
         "unknown_field", "dice.B1"},
        {MROLL(1, DICE("B2", 3, "R2", 7)), 422, "out_of_range", "dice.R2"},
        {MROLL(2, DICE("B2", 3, "R2", 4)), 422, "out_of_range", "combat"},
        {"{\"action\":\"retreat\",\"combat\":0}", 422, "invalid_value",
         "action"},
        {MROLL(0, DICE("B1", 3, "R1", 4)), 200, NULL, NULL},
        {MROLL(0, DICE("B1", 3, "R1", 4)), 409, "conflict", "combat"},
        {COMMIT(0, "attacker", "B1", DIE(4)), 422, "rule_violation", "unit"},
        {COMMIT(0, "defender", "R1", DIE(4)), 422, "rule_violation", "army"},
        {COMMIT(0, "attacker", "Nobody", DIE(4)), 422, "invalid_value", "unit"},
        {COMMIT(0, "attacker", "B3", ""), 422, "missing_field", "die"},
        {COMMIT(0, "attacker", "B3", DIE(7)), 422, "out_of_range", "die"},
        {COMMIT(0, "attacker", "B3", DIE(5)), 200, NULL, NULL},
        {COMMIT(0, "attacker", "B3", DIE(5)), 422, "rule_violation", "unit"},
        /* one combat at a time: combat 0 is rolled, not yet accepted */
        {MROLL(1, DICE("B2", 2, "R2", 2)), 409, "conflict", "combat"},
        {"{\"action\":\"accept\",\"combat\":0,\"expect_actions\":1}", 409,
         "conflict", "expect_actions"},
        {"{\"action\":\"accept\",\"combat\":0,\"expect_actions\":2}", 200, NULL,
         NULL},
        {COMMIT(0, "attacker", "B4", DIE(5)), 409, "conflict", "combat"},
        {ACCEPT(0), 409, "conflict", "combat"},
        {MROLL(1, DICE("B2", 2, "R2", 2)), 200, NULL, NULL},
        /* B3 joined combat 0: it cannot join combat 1 too */
        {COMMIT(1, "attacker", "B3", DIE(5)), 422, "rule_violation", "unit"},
        {"{\"action\":\"accept\",\"combat\":1,\"army\":\"attacker\"}", 422,
         "invalid_value", "army"},
        {"{\"action\":\"accept\",\"combat\":1,\"die\":3}", 422, "invalid_value",
         "die"},
        {ACCEPT(1), 200, NULL, NULL},
        {MROLL(0, DICE("B1", 3, "R1", 4)), 409, "conflict", NULL},
        {COMMIT(1, "attacker", "B4", DIE(2)), 409, "conflict", NULL},
        {ACCEPT(1), 409, "conflict", NULL},
    };
    static const mx_step seeded[] = {
        {MROLL(0, DICE("B1", 3, "R1", 4)), 422, "invalid_value", "dice"},
        {MROLL(0, ""), 200, NULL, NULL},
        {COMMIT(0, "attacker", "B1", ""), 422, "rule_violation", "army"},
        {COMMIT(0, "defender", "R1", ""), 422, "rule_violation", "army"},
        {COMMIT(0, "attacker", "B1", DIE(3)), 422, "invalid_value", "die"},
        /* a seeded roll refused draws no die: the stream stays put */
        {MROLL(1, ""), 409, "conflict", "combat"},
        {ACCEPT(0), 200, NULL, NULL},
        {MROLL(1, ""), 200, NULL, NULL},
        {ACCEPT(1), 200, NULL, NULL},
    };
    test_campaign c, other;
    json_t *b, *w;
    char bid[64];

    mx_campaign(&c);
    mx_campaign(&other);
    mx_units(&c, 4);
    b = mx_battle(
        &c, 201,
        BATTLE(ENTERED, ARMY("blue", BLUE3 "," Q(B4), ""), RED2, LINE2));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    mx_run_steps(&c, bid, entered, sizeof entered / sizeof entered[0]);
    RIG_EQ_STR(scs_str(mx_get(&c, bid), "status"), "finished");
    /* same-size armies, seeded dice: no reserves, no dice given */
    b = mx_battle(&c, 201, BATTLE("", BLUE2, RED2, LINE2));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    mx_run_steps(&c, bid, seeded, sizeof seeded / sizeof seeded[0]);
    b = mx_get(&c, bid);
    snprintf(rig_ctx, sizeof rig_ctx, "seeded battle finished");
    RIG_EQ_STR(scs_str(b, "status"), "finished");
    mx_check_seeded(scs_get(b, "dice"),
                    scs_get(scs_rig_keep(rig_cget(&c, "combats/%s",
                                                  scs_str(b, "combat_id"))),
                            "rolls"));
    snprintf(rig_ctx, sizeof rig_ctx, "actions by a player or another umpire");
    w = mx_world(&c);
    mx_refuse(&c, w, 403, "forbidden", NULL, c.player[0], ACCEPT(0),
              "/v1/campaigns/%s/battles/%s/actions", c.id, bid);
    mx_refuse(&c, w, 403, "forbidden", NULL, other.umpire, ACCEPT(0),
              "/v1/campaigns/%s/battles/%s/actions", c.id, bid);
    mx_refuse(&c, w, 404, "not_found", NULL, other.umpire, ACCEPT(0),
              "/v1/campaigns/%s/battles/%s/actions", other.id, bid);
    /* players read battles; other campaigns do not */
    scs_call(200, "GET", c.player[1], NULL, "/v1/campaigns/%s/battles/%s", c.id,
             bid);
    scs_call(403, "GET", other.umpire, NULL, "/v1/campaigns/%s/battles/%s",
             c.id, bid);
    scs_call(404, "GET", other.umpire, NULL, "/v1/campaigns/%s/battles/%s",
             other.id, bid);
}
END_TEST

/* ---- 5. Requests on one battle at once ---- */

START_TEST(test_concurrent_commits)
{
    static const char *const body[2] = {
        COMMIT(0, "attacker", "B2", ""),
        COMMIT(0, "attacker", "B3", ",\"expect_actions\":2")};
    static const int loser[2] = {422, 409};
    mx_shot shots[16];
    test_campaign c;
    json_t *b;
    char bid[64];
    int k, i;

    mx_campaign(&c);
    mx_units(&c, 3);
    b = mx_battle(&c, 201,
                  BATTLE("", ARMY("blue", BLUE3, ""), ARMY("red", Q(R1), ""),
                         PAIR(Q(B1), Q(R1))));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    mx_act(&c, bid, 200, MROLL(0, ""));
    /* the same commit 16 times at once (then 16 with the same expected
     * number of actions): one lands, the others are refused */
    for (k = 0; k < 2; k++) {
        snprintf(rig_ctx, sizeof rig_ctx, "16 times %s", body[k]);
        RIG_EQ_INT(mx_burst(&c, bid, shots, 16, NULL, body[k]), 1);
        for (i = 0; i < 16; i++)
            if (shots[i].status != 200)
                RIG_EQ_INT(shots[i].status, loser[k]);
            else
                RIG_EQ_INT(shots[i].n_actions, 2 + k);
        b = mx_get(&c, bid);
        RIG_EQ_INT(rig_inum(b, "n_actions"), 2 + k);
        RIG_EQ_INT(mx_n_action_rows(bid), 2 + k);
        RIG_EQ_INT(json_array_size(
                       scs_get(scs_at(scs_get(b, "combats"), 0), "reserves")),
                   1 + k);
    }
}
END_TEST

START_TEST(test_concurrent_rolls)
{
    char bodies[10][64], line[1024] = "", units[2][256] = {"", ""};
    const char *ptrs[10];
    int left[10], order[10], n_left = 10, r, i, k;
    bool seen[11] = {false};
    json_t *b, *fin, *rolls, *x;
    long long n_distinct, max_seq;
    test_campaign c;
    mx_shot shots[10];
    char bid[64];

    mx_campaign(&c);
    mx_units(&c, 10);
    for (i = 1; i <= 10; i++) {
        snprintf(units[0] + strlen(units[0]), 40, "%s\"B%d\"", i > 1 ? "," : "",
                 i);
        snprintf(units[1] + strlen(units[1]), 40, "%s\"R%d\"", i > 1 ? "," : "",
                 i);
        snprintf(line + strlen(line), 80, "%s" PAIR("\"B%d\"", "\"R%d\""),
                 i > 1 ? "," : "", i, i);
        left[i - 1] = i - 1;
    }
    b = mx_battle(&c, 201,
                  "{\"turn\":1,\"dice\":{\"client_seed\":\"ten\"},"
                  "\"attacker\":{\"side\":\"blue\",\"units\":[%s]},"
                  "\"defender\":{\"side\":\"red\",\"units\":[%s]},"
                  "\"line\":[%s]}",
                  units[0], units[1], line);
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    /* Each round, every combat not yet rolled is rolled at once: one
     * combat at a time, so exactly one lands and the others are refused
     * (409); it is accepted, and the next round rolls those left. */
    for (r = 0; r < 10; r++) {
        int won = -1;
        for (k = 0; k < n_left; k++) {
            snprintf(bodies[k], sizeof bodies[0],
                     "{\"action\":\"roll\",\"combat\":%d}", left[k]);
            ptrs[k] = bodies[k];
        }
        snprintf(rig_ctx, sizeof rig_ctx, "round %d: %d rolls at once", r,
                 n_left);
        RIG_EQ_INT(mx_burst(&c, bid, shots, n_left, ptrs, NULL), 1);
        for (k = 0; k < n_left; k++) {
            if (shots[k].status != 200) {
                RIG_EQ_INT(shots[k].status, 409);
                continue;
            }
            RIG_EQ_INT(shots[k].n_actions, 2 * r + 1);
            won = k;
        }
        order[r] = left[won];
        left[won] = left[--n_left];
        b = mx_get(&c, bid);
        RIG_EQ_INT(rig_inum(b, "n_actions"), 2 * r + 1);
        RIG_EQ_INT(mx_n_action_rows(bid), 2 * r + 1);
        for (k = 0; k < 10; k++) {
            x = scs_at(scs_get(b, "combats"), (size_t)k);
            RIG_IS_TRUE(
                json_is_true(scs_get(x, "rolled")) ==
                (k == order[r] || json_is_true(scs_get(x, "accepted"))));
        }
        fin = mx_act(&c, bid, 200, "{\"action\":\"accept\",\"combat\":%d}",
                     order[r]);
        RIG_EQ_INT(rig_inum(fin, "n_actions"), 2 * r + 2);
    }
    b = mx_get(&c, bid);
    RIG_EQ_INT(rig_inum(b, "n_actions"), 20);
    mx_action_seqs(bid, &n_distinct, &max_seq);
    RIG_EQ_INT(n_distinct, 20);
    RIG_EQ_INT(max_seq, 20);
    /* the seeded stream was drawn in the order the rolls landed */
    RIG_EQ_STR(scs_str(fin, "status"), "finished");
    rolls = scs_get(
        scs_rig_keep(rig_cget(&c, "combats/%s", scs_str(fin, "combat_id"))),
        "rolls");
    RIG_EQ_INT(json_array_size(rolls), 20);
    mx_check_seeded(scs_get(fin, "dice"), rolls);
    for (r = 0; r < 10; r++) {
        const json_t *cs = scs_at(scs_get(fin, "combats"), (size_t)order[r]);
        RIG_IS_TRUE(!seen[order[r] + 1]);
        seen[order[r] + 1] = true;
        for (k = 0; k < 2; k++) {
            x = scs_at(rolls, (size_t)(2 * r + k));
            snprintf(rig_ctx, sizeof rig_ctx, "roll %d of round %d", k, r);
            RIG_EQ_INT(atoi(scs_str(x, "unit") + 1), order[r] + 1);
            RIG_EQ_STR(scs_str(x, "side"), k == 0 ? "blue" : "red");
            RIG_EQ_INT(rig_inum(x, "natural"),
                       rig_inum(scs_get(cs, "dice"), scs_str(x, "unit")));
        }
    }
}
END_TEST

Suite *suite_matrix_http(void)
{
    Suite *s = suite_create("matrix_http");
    TCase *tc = tcase_create("matrix_http");

    tcase_add_checked_fixture(tc, scs_rig_setup, scs_rig_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_vector_battle_campaign);
    tcase_add_test(tc, test_vector_oneoffs);
    tcase_add_test(tc, test_vector_ratios);
    tcase_add_test(tc, test_skirmish_escalates);
    tcase_add_test(tc, test_abandoned_half_way);
    tcase_add_test(tc, test_create_refusals);
    tcase_add_test(tc, test_action_refusals);
    tcase_add_test(tc, test_concurrent_commits);
    tcase_add_test(tc, test_concurrent_rolls);
    suite_add_tcase(s, tc);
    return s;
}
