/*
 * test_battles_http.c: the life of a campaign battle beyond fighting it
 * (docs/rules/matrix.md, "Abandoning a battle" and "Skirmishes and
 * escalation"), over HTTP: a battle abandoned (its seed revealed, the
 * abandon logged, its units untouched and free again, the exhaustion it
 * used up given back), a unit eliminated mid-battle stopping it until it
 * is corrected back or the battle abandoned, the turn of the battle an
 * escalated skirmish becomes, a one-off skirmish that escalates, and the
 * replay of a Matrix report whose stored state was edited.  Kept apart
 * from test_matrix_http.c (the rules fought step by step) for length;
 * uses matrix_rig.h.
 */
#include "harness.h"
#include "matrix_rig.h"
#include "rig.h"
#include "rng.h"
#include "scs_rig.h"
#include "suites.h"

#include <check.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A campaign battle in turn t (BATTLE of matrix_rig.h is in turn 1). */
#define BATTLE_T(t, more, a, d, l)                                             \
    "{\"turn\":" #t more ",\"attacker\":" a ",\"defender\":" d ",\"line\":[" l \
    "]}"
#define BLUE2   ARMY("blue", Q(B1) "," Q(B2), "")
#define RED2    ARMY("red", Q(R1) "," Q(R2), "")
#define LINE2   PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(R2))
#define ABANDON "{\"action\":\"abandon\"}"
#define ACTIONS "/v1/campaigns/%s/battles/%s/actions"
/* X of blue against Y of red, entered dice, in turn %d. */
#define X_AGAINST_Y                                                            \
    "{\"turn\":%d" ENTERED                                                     \
    ",\"attacker\":" ARMY("blue", Q(X), "") ",\"defender\":" ARMY(             \
        "red", Q(Y), "") ",\"line\":[" PAIR(Q(X), Q(Y)) "]}"

/* ---- helpers ---- */

/* Both sides marked exhausted for turn: units X (blue) and Y (red) fight
 * a battle in turn - 1 in which Y is beaten (4 against 2), and half the
 * units that fought beaten exhausts both armies. */
static void exhaust_sides(const test_campaign *c, int turn)
{
    json_t *b;
    char bid[64];

    mx_unit(c, "X", "blue", 0, NULL);
    mx_unit(c, "Y", "red", 0, NULL);
    b = mx_battle(c, 201, X_AGAINST_Y, turn - 1);
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    mx_act(c, bid, 200, MROLL(0, DICE("X", 4, "Y", 2)));
    b = mx_act(c, bid, 200, ACCEPT(0));
    snprintf(rig_ctx, sizeof rig_ctx, "sides exhausted for turn %d", turn);
    scs_rig_assert_has(b, "{\"status\":\"finished\",\"result\":{\"army_state\":"
                          "\"some units routed, or half or more beaten\","
                          "\"exhausted\":[\"attacker\",\"defender\"]}}");
    scs_rig_assert_has(scs_rig_keep(rig_cget(c, "sides")),
                       "{\"items\":[{\"exhausted_turn\":%d},{"
                       "\"exhausted_turn\":%d}]}",
                       turn, turn);
}

/* The sides' marks: both exhausted_turn (0: null). */
static void check_marks(const test_campaign *c, int turn)
{
    char want[16];
    json_t *items = scs_get(scs_rig_keep(rig_cget(c, "sides")), "items");
    size_t i;

    snprintf(want, sizeof want, "%d", turn);
    snprintf(rig_ctx, sizeof rig_ctx, "both sides marked for turn %s",
             turn ? want : "none");
    RIG_EQ_INT(json_array_size(items), 2);
    for (i = 0; i < 2; i++)
        scs_rig_assert_has(scs_at(items, i), "{\"exhausted_turn\":%s}",
                           turn ? want : "null");
}

/* An action on battle bid refused with this problem, changing nothing of
 * w; the problem (kept). */
static json_t *refuse_action(const test_campaign *c, const json_t *w,
                             int status, const char *code, const char *field,
                             const char *token, const char *bid,
                             const char *body)
{
    json_t *p = scs_rig_refuse(status, code, field, "POST", token, body,
                               ACTIONS, c->id, bid);

    mx_assert_unchanged(w, c);
    return p;
}

/* The battle's state as created: the armies' exhaustion (and their
 * modifier: -1 each when exhausted). */
static void check_exhausted(const json_t *b, bool is_exhausted)
{
    const char *x = is_exhausted ? "true" : "false";
    int mod = is_exhausted ? -1 : 0;

    scs_rig_assert_has(b,
                       "{\"setup\":{\"attacker\":{\"exhausted\":%s},"
                       "\"defender\":{\"exhausted\":%s}},\"armies\":{"
                       "\"attacker\":{\"modifier\":%d},\"defender\":{"
                       "\"modifier\":%d}}}",
                       x, x, mod, mod);
}

/* ---- 1. Abandoned ---- */

START_TEST(test_abandon)
{
    /* parts of the world an abandon changes: the battle and the sides */
    static const char *const changed[] = {"/sides", "/battles",
                                          "#battle_actions", "campaign"};
    uint8_t seed[RNG_SEED_LEN], hash[crypto_hash_sha256_BYTES];
    char hex[2 * crypto_hash_sha256_BYTES + 1], bid[64], commitment[80];
    static const char *const order[4][2] = {
        {"0", "B1"}, {"0", "R1"}, {"1", "B2"}, {"1", "R2"}};
    json_t *b, *half, *st, *w, *now, *p, *v;
    const char *key;
    test_campaign c;
    rng_v1 rng;
    size_t i, k;

    mx_campaign(&c);
    mx_units(&c, 2);
    exhaust_sides(&c, 2);
    b = mx_battle(&c, 201,
                  BATTLE_T(2,
                           ",\"note\":\"at the ford\",\"dice\":{"
                           "\"client_seed\":\"ford\"}",
                           BLUE2, RED2, LINE2));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    snprintf(commitment, sizeof commitment, "%s",
             scs_str(scs_get(b, "dice"), "commitment"));
    snprintf(rig_ctx, sizeof rig_ctx, "battle in an exhausted turn");
    check_exhausted(b, true);
    check_marks(&c, 0); /* used up by this battle */
    mx_act(&c, bid, 200, MROLL(0, ""));
    mx_act(&c, bid, 200, ACCEPT(0));
    half = mx_act(&c, bid, 200, MROLL(1, ""));
    w = mx_world(&c);
    /* refused: by a player, malformed, on a state not seen */
    snprintf(rig_ctx, sizeof rig_ctx, "abandon refused");
    refuse_action(&c, w, 403, "forbidden", NULL, c.player[0], bid, ABANDON);
    refuse_action(&c, w, 422, "unknown_field", "combat", c.umpire, bid,
                  "{\"action\":\"abandon\",\"combat\":1}");
    refuse_action(&c, w, 409, "conflict", "expect_actions", c.umpire, bid,
                  "{\"action\":\"abandon\",\"expect_actions\":2}");
    /* An action that is none of them names every one, abandon included
     * (regression: the message listed roll, commit and accept only). */
    p = refuse_action(&c, w, 422, "invalid_value", "action", c.umpire, bid,
                      "{\"action\":\"retreat\"}");
    scs_rig_assert_contains(scs_str(p, "detail"), "abandon");
    st = mx_act(&c, bid, 200,
                "{\"action\":\"abandon\",\"note\":\"called off\","
                "\"expect_actions\":3}");
    snprintf(rig_ctx, sizeof rig_ctx, "abandoned");
    scs_rig_assert_has(st,
                       "{\"status\":\"abandoned\",\"n_actions\":4,\"over\":"
                       "false,\"escalated\":false,\"result\":null,"
                       "\"combat_id\":null,\"note\":\"at the ford\","
                       "\"dice\":{\"source\":\"seeded\",\"commitment\":"
                       "\"%s\",\"client_seed\":\"ford\"}}",
                       commitment);
    RIG_IS_TRUE(json_equal(scs_get(st, "combats"), scs_get(half, "combats")));
    RIG_IS_TRUE(json_equal(scs_get(st, "setup"), scs_get(half, "setup")));
    RIG_IS_TRUE(json_equal(mx_get(&c, bid), st));
    /* the seed is revealed: it is the commitment's, and the dice thrown so
     * far are its stream, in the order thrown */
    ck_assert_ptr_nonnull(scs_str(scs_get(st, "dice"), "server_seed"));
    ck_assert_int_eq(rng_unhex(scs_str(scs_get(st, "dice"), "server_seed"),
                               seed, sizeof seed),
                     0);
    crypto_hash_sha256(hash, seed, sizeof seed);
    sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
    RIG_EQ_STR(hex, commitment);
    rng_v1_init(&rng, seed, (const uint8_t *)"ford", 4);
    for (i = 0; i < 4; i++) {
        const json_t *cs =
            scs_at(scs_get(st, "combats"), (size_t)atoi(order[i][0]));
        snprintf(rig_ctx, sizeof rig_ctx, "die %zu (%s)", i, order[i][1]);
        RIG_EQ_INT(rig_inum(scs_get(cs, "dice"), order[i][1]),
                   rng_v1_die(&rng, 6));
    }
    /* the abandon is logged as the last action */
    snprintf(rig_ctx, sizeof rig_ctx, "the abandon logged");
    RIG_EQ_INT(mx_n_action_rows(bid), 4);
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM battle_actions WHERE "
                          "battle_id = ? AND seq = 4 AND kind = 'abandon' AND "
                          "note = 'called off' AND naturals = '[]'",
                          TS_TEXT(bid)),
               1);
    scs_rig_assert_has(scs_rig_keep(rig_cget(&c, "battles")),
                       "{\"items\":[{\"status\":\"finished\"},{\"id\":\"%s\","
                       "\"status\":\"abandoned\",\"n_actions\":4,"
                       "\"combat_id\":null}]}",
                       bid);
    /* nothing happened to the units, no record; the exhaustion this
     * battle used up is the sides' again, for its turn */
    now = mx_world(&c);
    json_object_foreach(w, key, v)
    {
        bool is_changed = strcmp(key, bid) == 0;
        for (k = 0; k < sizeof changed / sizeof changed[0]; k++)
            is_changed |= strcmp(key, changed[k]) == 0;
        snprintf(rig_ctx, sizeof rig_ctx, "after the abandon: %s", key);
        if (!is_changed)
            RIG_IS_TRUE(json_equal(v, scs_get(now, key)));
    }
    /* the campaign changed only by the abandon's entry in its ledger */
    snprintf(rig_ctx, sizeof rig_ctx, "the abandon in the ledger");
    RIG_EQ_INT(rig_inum(scs_get(scs_get(now, "campaign"), "ledger"), "length"),
               rig_inum(scs_get(scs_get(w, "campaign"), "ledger"), "length") +
                   1);
    RIG_EQ_STR(scs_str(scs_get(now, "campaign"), "next_commitment"),
               scs_str(scs_get(w, "campaign"), "next_commitment"));
    json_object_del(scs_get(now, "campaign"), "ledger");
    json_object_del(scs_get(w, "campaign"), "ledger");
    RIG_IS_TRUE(json_equal(scs_get(w, "campaign"), scs_get(now, "campaign")));
    check_marks(&c, 2);
    /* read back the same after a restart */
    mx_restart();
    snprintf(rig_ctx, sizeof rig_ctx, "abandoned, after a restart");
    RIG_IS_TRUE(json_equal(mx_get(&c, bid), st));
    /* over: every further action is refused */
    w = mx_world(&c);
    for (i = 0; i < 3; i++) {
        static const char *const more[] = {ACCEPT(1), MROLL(0, ""), ABANDON};
        snprintf(rig_ctx, sizeof rig_ctx, "after the abandon: %s", more[i]);
        p = refuse_action(&c, w, 409, "conflict", NULL, c.umpire, bid, more[i]);
        scs_rig_assert_contains(scs_str(p, "detail"), "abandoned");
    }
    /* its units are free, and fight their next battle exhausted */
    b = mx_battle(&c, 201, BATTLE_T(2, "", BLUE2, RED2, LINE2));
    snprintf(rig_ctx, sizeof rig_ctx, "the units in a new battle");
    check_exhausted(b, true);
    check_marks(&c, 0);
}
END_TEST

/* ---- 2. A unit eliminated mid-battle ---- */

START_TEST(test_unit_eliminated_mid_battle)
{
    static const char *const steps[] = {ACCEPT(0),
                                        MROLL(1, DICE("B2", 3, "R2", 3))};
    json_t *b, *w, *p;
    char bid[64], other[64], r2[64], r3[64];
    test_campaign c;
    size_t i;

    mx_campaign(&c);
    mx_units(&c, 2);
    mx_unit(&c, "B3", "blue", 0, NULL);
    mx_unit(&c, "R3", "red", 0, r3);
    b = mx_battle(&c, 201, BATTLE_T(1, ENTERED, BLUE2, RED2, LINE2));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    mx_act(&c, bid, 200, MROLL(0, DICE("B1", 5, "R1", 2)));
    /* R2, of combat 1, taken out of play by a correction */
    p = scs_rig_keep(rig_cget(&c, "units"));
    snprintf(r2, sizeof r2, "%s",
             scs_str(rig_find_by(scs_get(p, "items"), "name", "R2"), "id"));
    scs_call(200, "PATCH", c.umpire, "{\"eliminated\":true}",
             "/v1/campaigns/%s/units/%s", c.id, r2);
    w = mx_world(&c);
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "R2 eliminated: %s", steps[i]);
        p = refuse_action(&c, w, 409, "conflict", NULL, c.umpire, bid,
                          steps[i]);
        RIG_IS_TRUE(scs_get(p, "field") == NULL);
        scs_rig_assert_contains(scs_str(p, "detail"), "R2");
        scs_rig_assert_contains(scs_str(p, "detail"), "abandon the battle");
    }
    /* corrected back into play: the battle goes on to its end */
    scs_call(200, "PATCH", c.umpire, "{\"eliminated\":false}",
             "/v1/campaigns/%s/units/%s", c.id, r2);
    snprintf(rig_ctx, sizeof rig_ctx, "R2 back in play");
    RIG_EQ_INT(rig_inum(mx_act(&c, bid, 200, "%s", steps[0]), "n_actions"), 2);
    RIG_EQ_INT(rig_inum(mx_act(&c, bid, 200, "%s", steps[1]), "n_actions"), 3);
    b = mx_act(&c, bid, 200, ACCEPT(1));
    scs_rig_assert_has(b, "{\"status\":\"finished\",\"n_actions\":4,"
                          "\"result\":{\"unit_results\":{\"R1\":\"beaten\"}}}");
    /* or the battle is abandoned: it is not stopped by the unit */
    b = mx_battle(&c, 201,
                  BATTLE_T(1, ENTERED, ARMY("blue", Q(B3), ""),
                           ARMY("red", Q(R3), ""), PAIR(Q(B3), Q(R3))));
    snprintf(other, sizeof other, "%s", scs_str(b, "id"));
    mx_act(&c, other, 200, MROLL(0, DICE("B3", 1, "R3", 1)));
    scs_call(200, "PATCH", c.umpire, "{\"eliminated\":true}",
             "/v1/campaigns/%s/units/%s", c.id, r3);
    snprintf(rig_ctx, sizeof rig_ctx, "R3 eliminated, battle abandoned");
    scs_rig_assert_has(mx_act(&c, other, 200, ABANDON),
                       "{\"status\":\"abandoned\",\"n_actions\":2}");
    scs_rig_assert_has(
        scs_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s/units/%s", c.id,
                 r3),
        "{\"eliminated\":true,\"eliminated_reason\":\"correction\"}");
}
END_TEST

/* ---- 3. The battle an escalated skirmish becomes ---- */

#define SKIRMISH_ARMY(side, u1, u2)                                            \
    ARMY(side, Q(u1) "," Q(u2), ",\"reserve\":[" Q(u2) "]")
#define FROM(t) BATTLE_T(t, ",\"escalated_from\":\"%s\"", BLUE2, RED2, LINE2)

START_TEST(test_escalation_turn)
{
    json_t *sk, *ob, *w;
    char sid[64], obid[64], path[160];
    test_campaign c;

    mx_campaign(&c);
    mx_units(&c, 2);
    exhaust_sides(&c, 2);
    sk = mx_battle(&c, 201,
                   BATTLE_T(2, ENTERED ",\"kind\":\"skirmish\"",
                            SKIRMISH_ARMY("blue", B1, B2),
                            SKIRMISH_ARMY("red", R1, R2), PAIR(Q(B1), Q(R1))));
    snprintf(sid, sizeof sid, "%s", scs_str(sk, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "exhausted skirmish");
    check_exhausted(sk, true);
    mx_act(&c, sid, 200, MROLL(0, DICE("B1", 3, "R1", 3)));
    mx_act(&c, sid, 200, COMMIT(0, "attacker", "B2", DIE(2)));
    sk = mx_act(&c, sid, 200, COMMIT(0, "defender", "R2", DIE(2)));
    RIG_EQ_STR(scs_str(sk, "status"), "escalated");
    /* the open battle is fought at once, in the skirmish's turn */
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c.id);
    w = mx_world(&c);
    snprintf(rig_ctx, sizeof rig_ctx, "escalated into another turn");
    mx_refuse(&c, w, 422, "rule_violation", "turn", c.umpire,
              mx_fmt(FROM(3), sid), "%s", path);
    mx_refuse(&c, w, 422, "rule_violation", "turn", c.umpire,
              mx_fmt(FROM(1), sid), "%s", path);
    ob = mx_battle(&c, 201, FROM(2), sid);
    snprintf(obid, sizeof obid, "%s", scs_str(ob, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "the open battle");
    scs_rig_assert_has(ob,
                       "{\"status\":\"open\",\"turn\":2,"
                       "\"escalated_from\":\"%s\"}",
                       sid);
    check_exhausted(ob, true); /* as the skirmish fought */
    check_marks(&c, 0);
    /* abandoned: the exhaustion was the skirmish's, not given back */
    scs_rig_assert_has(mx_act(&c, obid, 200, ABANDON),
                       "{\"status\":\"abandoned\",\"n_actions\":1}");
    check_marks(&c, 0);
    scs_rig_assert_has(mx_get(&c, sid),
                       "{\"status\":\"escalated\",\"escalated_to\":\"%s\"}",
                       obid);
    /* its units are free again */
    ob = mx_battle(&c, 201, BATTLE_T(2, "", BLUE2, RED2, LINE2));
    snprintf(rig_ctx, sizeof rig_ctx, "a new battle after the abandon");
    check_exhausted(ob, false);
}
END_TEST

/* ---- 4. A one-off skirmish that escalates ---- */

START_TEST(test_oneoff_skirmish_escalates)
{
    /* each army commits its only reserve: the skirmish escalates with the
     * defender's; A3 of the attacker is its full strength, waiting */
    static const char *const refused[] = {
        ",{\"combat\":0,\"army\":\"attacker\",\"unit\":\"A3\"}",
        ",{\"combat\":0,\"army\":\"attacker\",\"unit\":\"A2\"}"};
#define ONEOFF_SKIRMISH                                                        \
    "{\"kind\":\"skirmish\",\"dice\":{\"client_seed\":\"lane\"},"              \
    "\"attacker\":{\"name\":\"blue\",\"units\":[{\"name\":\"A1\"},{"           \
    "\"name\":\"A2\",\"quality\":1},{\"name\":\"A3\"}],\"reserve\":["          \
    "\"A2\"]},\"defender\":{\"name\":\"red\",\"units\":[{\"name\":\"D1\"},{"   \
    "\"name\":\"D2\"}],\"reserve\":[\"D2\"]},\"line\":[{\"attacker\":["        \
    "\"A1\"],\"defender\":[\"D1\"]}],\"commits\":[{\"combat\":0,\"army\":"     \
    "\"attacker\",\"unit\":\"A2\"},{\"combat\":0,\"army\":\"defender\","       \
    "\"unit\":\"D2\"}%s]}"
    static const char *const reasons[] = {"matrix.line", "matrix.line",
                                          "matrix.reserve", "matrix.reserve"};
    static const char *const units[] = {"A1", "D1", "A2", "D2"};
    json_t *rep, *w, *p;
    char path[128];
    size_t i;

    rep = scs_call(201, "POST", NULL, mx_fmt(ONEOFF_SKIRMISH, ""),
                   "/v1/combats/matrix");
    snprintf(rig_ctx, sizeof rig_ctx, "one-off skirmish");
    scs_rig_assert_has(rep, "{\"system\":\"matrix\",\"escalated\":true,"
                            "\"over\":true,\"result\":null,"
                            "\"summary_markdown\":null,\"combats\":[{"
                            "\"rolled\":true,\"accepted\":false}]}");
    RIG_EQ_INT(json_array_size(scs_get(scs_get(rep, "input"), "actions")), 3);
    RIG_EQ_INT(json_array_size(
                   scs_get(scs_at(scs_get(rep, "combats"), 0), "reserves")),
               2);
    RIG_EQ_INT(json_array_size(scs_get(rep, "rolls")), 4);
    for (i = 0; i < 4; i++)
        scs_rig_assert_has(scs_at(scs_get(rep, "rolls"), i),
                           "{\"unit\":\"%s\",\"reason\":\"%s\"}", units[i],
                           reasons[i]);
    mx_check_seeded(scs_get(rep, "dice"), scs_get(rep, "rolls"));
    snprintf(path, sizeof path, "/v1/combats/%s", scs_str(rep, "id"));
    RIG_IS_TRUE(json_equal(scs_call(200, "GET", NULL, NULL, "%s", path), rep));
    scs_rig_assert_has(scs_call(200, "POST", NULL, NULL, "%s/replay", path),
                       "{\"reproduced\":true,\"seeded_dice_verified\":true}");
    /* a commit planned after the escalation is refused, naming it */
    w = scs_rig_world(NULL);
    for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "commit after the escalation %zu", i);
        p = scs_rig_refuse(422, "rule_violation", "commits[2]", "POST", NULL,
                           mx_fmt(ONEOFF_SKIRMISH, refused[i]),
                           "/v1/combats/matrix");
        scs_rig_assert_contains(scs_str(p, "detail"), "escalated");
        scs_rig_assert_unchanged(w, NULL);
    }
#undef ONEOFF_SKIRMISH
}
END_TEST

/* ---- 5. Replay of an edited Matrix report ---- */

START_TEST(test_replay_edited_report)
{
    static const struct {
        const char *path, *value, *part;
    } edits[] = {
        {"armies.attacker.modifier", "5", "the armies differ"},
        {"summary_markdown", "\"**Matrix battle**\"", "the summary differs"},
        {"over", "false", "the over differ"},
        {"escalated", "true", "the escalated differ"},
    };
    json_t *vec = scs_rig_keep(ts_load_vector("matrix-examples.json"));
    json_t *bt = scs_get(vec, "battle"), *rep, *r;
    char path[128];
    size_t i;

    for (i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "edited: %s = %s", edits[i].path,
                 edits[i].value);
        rep = mx_post(201, NULL, mx_vec_oneoff_body(bt, NULL, NULL),
                      "/v1/combats/matrix");
        snprintf(path, sizeof path, "/v1/combats/%s", scs_str(rep, "id"));
        rig_check_replay(path, NULL);
        RIG_EQ_INT(scs_rig_edit_report(scs_str(rep, "id"), edits[i].path,
                                       edits[i].value),
                   1);
        r = scs_call(200, "POST", NULL, NULL, "%s/replay", path);
        RIG_IS_TRUE(json_is_false(scs_get(r, "reproduced")));
        RIG_EQ_INT(json_array_size(scs_get(r, "differences")), 1);
        scs_rig_assert_contains(
            json_string_value(scs_at(scs_get(r, "differences"), 0)),
            edits[i].part);
    }
}
END_TEST

Suite *suite_battles_http(void)
{
    Suite *s = suite_create("battles_http");
    TCase *tc = tcase_create("battles_http");

    tcase_add_checked_fixture(tc, scs_rig_setup, scs_rig_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_abandon);
    tcase_add_test(tc, test_unit_eliminated_mid_battle);
    tcase_add_test(tc, test_escalation_turn);
    tcase_add_test(tc, test_oneoff_skirmish_escalates);
    tcase_add_test(tc, test_replay_edited_report);
    suite_add_tcase(s, tc);
    return s;
}
