/*
 * test_discord_battle.c: tests server/discord/discord_battle.c and
 * discord_battle_view.c through the endpoint: a Matrix battle and a
 * Civilization battle opened with their commands and fought to their end
 * with the buttons and selects of their messages, each press updating
 * the message in place; a Civilization phase with its wave and both
 * armies' aircraft picked in selects, checked against the battle as GET
 * .../battles/{battle} shows it; a button pressed twice acts once, and a
 * choice on a stale message is refused; a player's press is refused; the
 * [Odds] buttons of both before a roll or a phase answer a player too,
 * with the numbers of POST .../odds/matrix, and act on nothing.
 */
#include "discord_rig.h"
#include "suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static discord_rig g;

static void setup(void)
{
    discord_rig_start(&g);
    discord_rig_unit(&g, "Rifles A", "red");
    discord_rig_unit(&g, "Rifles B", "red");
    discord_rig_unit(&g, "Rifles C", "red");
    discord_rig_unit(&g, "Jaeger A", "blue");
    discord_rig_unit(&g, "Jaeger B", "blue");
    discord_rig_link(&g);
}

static void teardown(void)
{
    discord_rig_stop(&g);
}

static int type_of(const json_t *r)
{
    return (int)json_integer_value(json_object_get(r, "type"));
}

static json_t *open_matrix(void)
{
    json_t *r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "matrix",
        "[{\"name\":\"attacker\",\"type\":3,\"value\":\"Rifles A, Rifles B, "
        "Rifles C\"},{\"name\":\"defender\",\"type\":3,\"value\":\"Jaeger A, "
        "Jaeger B\"},{\"name\":\"line\",\"type\":3,\"value\":\"Rifles A v "
        "Jaeger A; Rifles B v Jaeger B\"},{\"name\":\"turn\",\"type\":4,"
        "\"value\":1},{\"name\":\"argument\",\"type\":4,\"value\":1}]");

    ck_assert_int_eq(type_of(r), 4);
    ck_assert_ptr_nonnull(discord_rig_component(r, ":roll:0"));
    discord_rig_assert_limits(r);
    return r;
}

START_TEST(test_matrix_battle_fought_with_buttons)
{
    json_t *r = open_matrix(), *next;
    char id[128];
    int presses = 0;

    discord_rig_keep(r, "matrix_open");
    /* Roll, commit the reserve once, accept; until no button is left but
     * abandon. */
    while (discord_rig_component(r, ":roll:") ||
           discord_rig_component(r, ":accept:")) {
        const char *commit = discord_rig_component(r, ":commit:");
        const char *act = discord_rig_component(r, ":roll:");
        if (act == NULL && commit != NULL) {
            snprintf(id, sizeof id, "%s", commit);
            next = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id,
                                     "[\"Rifles C\"]");
        } else {
            snprintf(id, sizeof id, "%s",
                     act ? act : discord_rig_component(r, ":accept:"));
            next = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, NULL);
        }
        ck_assert_msg(type_of(next) == 7, "press %s: %s", id,
                      discord_rig_text(next));
        discord_rig_assert_limits(next);
        json_decref(r);
        r = next;
        ck_assert_int_lt(++presses, 20);
    }
    discord_rig_keep(r, "matrix_over");
    ck_assert_ptr_nonnull(strstr(
        json_string_value(json_object_get(
            json_array_get(
                json_object_get(json_object_get(r, "data"), "embeds"), 0),
            "title")),
        "finished"));
    ck_assert_ptr_null(discord_rig_component(r, ":abandon"));
    json_decref(r);
}
END_TEST

/* Before a roll: the odds of that combat, to the umpire and a player,
 * as POST .../odds/matrix answers them; nothing acted. */
START_TEST(test_matrix_odds_button)
{
    json_t *r = open_matrix(), *o, *a, *res;
    const char *odds = discord_rig_component(r, ":odds:0");
    char path[160], want[96], id[128];
    const char *text;
    size_t i;

    ck_assert_ptr_nonnull(odds);
    snprintf(id, sizeof id, "%s", odds);
    o = discord_rig_press(&g, DISCORD_RIG_PLAYER, id, NULL);
    ck_assert_int_eq(type_of(o), 4);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(o, "data"), "flags")),
                     64);
    discord_rig_assert_limits(o);
    discord_rig_keep(o, "odds_matrix");
    text = discord_rig_text(o);
    ck_assert_ptr_nonnull(strstr(text, "Combat 1, before its roll"));
    /* The numbers of the odds route for the battle as it stands. */
    snprintf(path, sizeof path, "/v1/campaigns/%s/odds/matrix", g.cmp.id);
    {
        const char *p1 = strchr(id, ':') + 1, *p2 = strchr(p1, ':');
        char battle[64];
        snprintf(battle, sizeof battle, "%.*s", (int)(p2 - p1), p1);
        a = ts_call(g.ts, 200, "POST", path, g.cmp.player[0],
                    "{\"battle\":\"%s\"}", battle);
    }
    json_array_foreach(json_object_get(json_array_get(
                           json_object_get(a, "combats"), 0), "results"),
                       i, res) {
        const json_t *p = json_object_get(res, "p");
        if (json_number_value(json_object_get(p, "decimal")) <= 0.0)
            continue;
        snprintf(want, sizeof want, "(%s)",
                 json_string_value(json_object_get(p, "fraction")));
        ck_assert_msg(strstr(text, want) != NULL, "%s not in %s", want, text);
    }
    json_decref(a);
    json_decref(o);
    /* The umpire too; the battle is still before its first roll. */
    o = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, NULL);
    ck_assert_int_eq(type_of(o), 4);
    ck_assert_ptr_nonnull(strstr(discord_rig_text(o), "Combat 1"));
    json_decref(o);
    snprintf(id, sizeof id, "%s", discord_rig_component(r, ":roll:0"));
    o = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, NULL);
    ck_assert_int_eq(type_of(o), 7);
    json_decref(o);
    json_decref(r);
}
END_TEST

START_TEST(test_button_pressed_twice_acts_once)
{
    json_t *r = open_matrix(), *first, *second;
    char id[128];

    snprintf(id, sizeof id, "%s", discord_rig_component(r, ":roll:0"));
    first = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, NULL);
    ck_assert_int_eq(type_of(first), 7);
    /* The same button again (another interaction): the battle has moved
     * on, so it is refused and says so. */
    second = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, NULL);
    discord_rig_assert_notice(second, "another action landed first");
    discord_rig_keep(second, "refused_double_press");
    json_decref(second);
    /* A player's press. */
    second = discord_rig_press(&g, DISCORD_RIG_PLAYER,
                               discord_rig_component(first, ":accept:"),
                               NULL);
    discord_rig_assert_notice(second, "players read");
    json_decref(second);
    json_decref(first);
    json_decref(r);
}
END_TEST

START_TEST(test_matrix_abandoned)
{
    json_t *r = open_matrix(), *next;
    char id[128];

    snprintf(id, sizeof id, "%s", discord_rig_component(r, ":abandon"));
    next = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, NULL);
    ck_assert_int_eq(type_of(next), 7);
    ck_assert_ptr_null(discord_rig_component(next, ":abandon"));
    json_decref(next);
    json_decref(r);
}
END_TEST

/* Before a phase: each army's chance to win it, to a player. */
START_TEST(test_civ_odds_button)
{
    json_t *r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "civ",
        "[{\"name\":\"attacker\",\"type\":3,\"value\":\"Rifles A, Rifles B, "
        "Rifles C\"},{\"name\":\"defender\",\"type\":3,\"value\":\"Jaeger A, "
        "Jaeger B\"},{\"name\":\"current_era\",\"type\":4,\"value\":2},"
        "{\"name\":\"turn\",\"type\":4,\"value\":2}]"),
           *o;
    char id[128];

    ck_assert_msg(type_of(r) == 4 && discord_rig_component(r, ":odds:"),
                  "%s", discord_rig_text(r));
    snprintf(id, sizeof id, "%s", discord_rig_component(r, ":odds:"));
    o = discord_rig_press(&g, DISCORD_RIG_PLAYER, id, NULL);
    ck_assert_msg(type_of(o) == 4, "%s", discord_rig_text(o));
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(o, "data"), "flags")),
                     64);
    ck_assert_ptr_nonnull(strstr(discord_rig_text(o), "Attacker wins the "
                                                      "phase"));
    discord_rig_assert_limits(o);
    discord_rig_keep(o, "odds_civ");
    json_decref(o);
    /* Nothing acted: the phase is still to fight. */
    snprintf(id, sizeof id, "%s", discord_rig_component(r, ":phase:"));
    o = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, NULL);
    ck_assert_msg(type_of(o) == 7, "%s", discord_rig_text(o));
    json_decref(o);
    json_decref(r);
}
END_TEST

START_TEST(test_civ_battle_fought_with_waves)
{
    json_t *r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "civ",
        "[{\"name\":\"attacker\",\"type\":3,\"value\":\"Rifles A, Rifles B, "
        "Rifles C\"},{\"name\":\"defender\",\"type\":3,\"value\":\"Jaeger A, "
        "Jaeger B\"},{\"name\":\"current_era\",\"type\":4,\"value\":2},"
        "{\"name\":\"turn\",\"type\":4,\"value\":2},{\"name\":\"settlement\","
        "\"type\":5,\"value\":true}]"),
           *next;
    char id[128];
    int presses = 0;

    ck_assert_msg(type_of(r) == 4 && discord_rig_component(r, ":phase"),
                  "%s", discord_rig_text(r));
    discord_rig_keep(r, "civ_open");
    /* The first phase with the wave picked in the select, then the
     * standing order, until an army is gone. */
    snprintf(id, sizeof id, "%s", discord_rig_component(r, ":wave:"));
    next = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, "[\"Rifles C\", "
                                                        "\"Rifles B\"]");
    ck_assert_msg(type_of(next) == 7, "%s", discord_rig_text(next));
    json_decref(r);
    r = next;
    while (discord_rig_component(r, ":phase")) {
        snprintf(id, sizeof id, "%s", discord_rig_component(r, ":phase"));
        next = discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, NULL);
        ck_assert_msg(type_of(next) == 7, "%s", discord_rig_text(next));
        discord_rig_assert_limits(next);
        json_decref(r);
        r = next;
        ck_assert_int_lt(++presses, 60);
    }
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "Winner"));
    discord_rig_keep(r, "civ_over");
    json_decref(r);
}
END_TEST

/* A Civilization piece of class (and dice multiplier, for an aircraft)
 * on side. */
static void civ_piece(const char *name, const char *side, const char *civ)
{
    char path[128];

    snprintf(path, sizeof path, "/v1/campaigns/%s/units", g.cmp.id);
    json_decref(ts_call(g.ts, 201, "POST", path, g.cmp.umpire,
                        "{\"name\":\"%s\",\"side\":\"%s\",\"civ\":%s}",
                        name, side, civ));
}

/* The select whose custom_id has part in reply (borrowed), or NULL. */
static const json_t *select_with(const json_t *reply, const char *part)
{
    const json_t *rw, *c;
    size_t i, k;

    json_array_foreach(json_object_get(json_object_get(reply, "data"),
                                       "components"),
                       i, rw)
        json_array_foreach(json_object_get(rw, "components"), k, c) {
            const char *id = json_string_value(json_object_get(c, "custom_id"));
            if (id && strstr(id, part) && json_integer_value(json_object_get(
                                              c, "type")) == 3)
                return c;
        }
    return NULL;
}

/* The value of the select's option marked default, or NULL. */
static const char *chosen(const json_t *select)
{
    const json_t *o;
    size_t i;

    json_array_foreach(json_object_get(select, "options"), i, o)
        if (json_is_true(json_object_get(o, "default")))
            return json_string_value(json_object_get(o, "value"));
    return NULL;
}

/* Whether the select offers value. */
static bool has_option(const json_t *select, const char *value)
{
    const json_t *o;
    size_t i;

    json_array_foreach(json_object_get(select, "options"), i, o)
        if (strcmp(json_string_value(json_object_get(o, "value")), value) == 0)
            return true;
    return false;
}

/* Whether list (JSON array of strings) holds name. */
static bool holds(const json_t *list, const char *name)
{
    const json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
            return true;
    return false;
}

/* Presses custom_id (copied first: it may be borrowed from a reply about
 * to be freed) with a select's values. */
static json_t *press(const char *custom_id, const char *values)
{
    char id[128];

    snprintf(id, sizeof id, "%s", custom_id);
    return discord_rig_press(&g, DISCORD_RIG_UMPIRE, id, values);
}

START_TEST(test_civ_phase_with_aircraft_picked_in_selects)
{
    json_t *r, *next, *battle;
    const json_t *ph, *att, *def;
    char path[192], bid[64], stale[128];
    const char *id;

    civ_piece("Hussars", "red", "{\"class\":\"cavalry\",\"era\":2}");
    civ_piece("Biplane", "red",
              "{\"class\":\"aircraft\",\"era\":3,\"dice_multiplier\":2}");
    civ_piece("Zeppelin", "blue", "{\"class\":\"aircraft\",\"era\":3}");
    civ_piece("Guards A", "blue", "{\"class\":\"infantry\",\"era\":4}");
    civ_piece("Guards B", "blue", "{\"class\":\"infantry\",\"era\":4}");
    /* Three regular pieces against two: the attacker picks a wave of
     * two; both armies have an aircraft.  The battle outlasts the phase:
     * the Guards cost 40 damage (5 an era), more than the attacker can
     * make (two era-2 dice and a biplane's, 12 + 12 + 10, and 2 of CIA
     * bonus), and Rifles B stays out of the wave. */
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "civ",
        "[{\"name\":\"attacker\",\"type\":3,\"value\":\"Rifles A, Rifles B, "
        "Hussars, Biplane\"},{\"name\":\"defender\",\"type\":3,\"value\":"
        "\"Guards A, Guards B, Zeppelin\"},{\"name\":\"current_era\",\"type\":"
        "4,\"value\":3},{\"name\":\"turn\",\"type\":4,\"value\":1}]");
    ck_assert_msg(type_of(r) == 4 && discord_rig_component(r, ":phase"),
                  "%s", discord_rig_text(r));
    discord_rig_assert_limits(r);
    /* The battle's id, from "b:<battle>:0:phase:...". */
    id = discord_rig_component(r, ":phase");
    ck_assert_int_eq(sscanf(id, "b:%63[^:]:0:phase:-1:-:--", bid), 1);
    ck_assert_ptr_nonnull(discord_rig_component(r, ":phase:-1:-:--"));
    /* An aircraft select per army, the default chosen; no aircraft in
     * the wave's. */
    ck_assert_str_eq(chosen(select_with(r, ":air:-1:attacker:--")), "default");
    ck_assert_str_eq(chosen(select_with(r, ":air:-1:defender:--")), "default");
    ck_assert_msg(has_option(select_with(r, ":wave:-1:attacker:--"),
                             "Hussars") &&
                      !has_option(select_with(r, ":wave:-1:attacker:--"),
                                  "Biplane"),
                  "the wave's select offers the regular pieces only");

    /* The attacker's aircraft support cavalry: the message is updated in
     * place, no action taken (still 0), its components carrying it. */
    next = press(discord_rig_component(r, ":air:-1:attacker:"),
                 "[\"cavalry\"]");
    ck_assert_msg(type_of(next) == 7, "%s", discord_rig_text(next));
    json_decref(r);
    r = next;
    ck_assert_ptr_nonnull(discord_rig_component(r, ":0:phase:-1:-:c-"));
    ck_assert_ptr_nonnull(discord_rig_component(r, ":0:wave:-1:attacker:c-"));
    ck_assert_str_eq(chosen(select_with(r, ":air:-1:attacker:")), "cavalry");
    ck_assert_str_eq(chosen(select_with(r, ":air:-1:defender:")), "default");
    /* The defender's support other, where it has no piece: its aircraft
     * will sit the phase out. */
    next = press(discord_rig_component(r, ":air:-1:defender:"), "[\"other\"]");
    ck_assert_msg(type_of(next) == 7, "%s", discord_rig_text(next));
    json_decref(r);
    r = next;
    ck_assert_str_eq(chosen(select_with(r, ":air:-1:defender:")), "other");
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "civ_aircraft_chosen");
    snprintf(stale, sizeof stale, "%s",
             discord_rig_component(r, ":air:-1:attacker:co"));

    /* The phase, the wave picked in its select, with both orders. */
    next = press(discord_rig_component(r, ":0:wave:-1:attacker:co"),
                 "[\"Hussars\", \"Rifles A\"]");
    ck_assert_msg(type_of(next) == 7, "%s", discord_rig_text(next));
    json_decref(r);
    r = next;
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "civ_aircraft_phase");
    ck_assert_ptr_nonnull(
        strstr(discord_rig_text(r), "aircraft supporting cavalry: Biplane"));
    ck_assert_ptr_nonnull(
        strstr(discord_rig_text(r), "aircraft supporting other: none flew "
                                    "(1 idle)"));

    /* The phase as the battle shows it. */
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s", g.cmp.id, bid);
    battle = ts_call(g.ts, 200, "GET", path, g.cmp.umpire, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(battle, "n_actions")),
                     1);
    ph = json_array_get(json_object_get(battle, "phases"), 0);
    att = json_object_get(ph, "attacker");
    def = json_object_get(ph, "defender");
    ck_assert_str_eq(json_string_value(json_array_get(
                         json_object_get(att, "wave"), 0)),
                     "Hussars");
    ck_assert_str_eq(json_string_value(json_array_get(
                         json_object_get(att, "wave"), 1)),
                     "Rifles A");
    ck_assert_str_eq(
        json_string_value(json_object_get(att, "aircraft_support")),
        "cavalry");
    ck_assert_uint_eq(json_array_size(json_object_get(att, "aircraft")), 1);
    ck_assert_str_eq(json_string_value(json_array_get(
                         json_object_get(att, "aircraft"), 0)),
                     "Biplane");
    /* Biplane's die counts times its multiplier, a 6 as 5. */
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(att, "terms"),
                                           "aircraft")),
        2 * (json_integer_value(json_array_get(json_object_get(att, "dice"),
                                               2)) == 6
                 ? 5
                 : json_integer_value(json_array_get(
                       json_object_get(att, "dice"), 2))));
    ck_assert_str_eq(
        json_string_value(json_object_get(def, "aircraft_support")), "other");
    ck_assert_uint_eq(json_array_size(json_object_get(def, "aircraft")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(def, "idle_aircraft")),
                     1);
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(def, "terms"),
                                           "aircraft")),
        0);
    /* The orders carry over to the next phase for an army whose aircraft
     * are left. */
    ck_assert_str_eq(json_string_value(json_object_get(battle, "status")),
                     "open");
    {
        char want[32];
        snprintf(want, sizeof want, ":1:phase:-1:-:%c%c",
                 holds(json_object_get(json_object_get(battle, "survivors"),
                                       "attacker"),
                       "Biplane")
                     ? 'c'
                     : '-',
                 holds(json_object_get(json_object_get(battle, "survivors"),
                                       "defender"),
                       "Zeppelin")
                     ? 'o'
                     : '-');
        ck_assert_msg(discord_rig_component(r, want) != NULL, "no %s", want);
    }
    json_decref(battle);

    /* A choice made on the message as it was before the phase. */
    next = press(stale, "[\"infantry\"]");
    discord_rig_assert_notice(next, "another action landed first");
    json_decref(next);
    json_decref(r);
}
END_TEST

Suite *suite_discord_battle(void)
{
    Suite *s = suite_create("discord_battle");
    TCase *t = tcase_create("components");

    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 30);
    tcase_add_test(t, test_matrix_battle_fought_with_buttons);
    tcase_add_test(t, test_button_pressed_twice_acts_once);
    tcase_add_test(t, test_matrix_abandoned);
    tcase_add_test(t, test_matrix_odds_button);
    tcase_add_test(t, test_civ_odds_button);
    tcase_add_test(t, test_civ_battle_fought_with_waves);
    tcase_add_test(t, test_civ_phase_with_aircraft_picked_in_selects);
    suite_add_tcase(s, t);
    return s;
}
