/*
 * matrix_report.c: Matrix's part of a battle's report and of the record a
 * battle leaves (one-off or campaign): the armies and where each unit
 * stood, every combat with its dice and reserves, the result, from the
 * JSON of matrix_json.c; see matrix_report.h.  The words follow
 * docs/rules/matrix.md.
 *
 * Combats are counted from 1 here, as players count them and as the
 * service's summaries do (the API numbers them from 0).
 */
#include "matrix_report.h"

#include <stdlib.h>
#include <string.h>

/* The index (from 0) of the combat of the line army a fights name in,
 * or -1. */
static int matrix_line_of(const json_t *setup, int a, const char *name)
{
    const json_t *pair, *v;
    size_t i, k;

    json_array_foreach(rj_get(setup, "line"), i, pair) json_array_foreach(
        rj_get(pair, rj_army_key[a]), k,
        v) if (rj_is_eq(json_string_value(v), name)) return (int)i;
    return -1;
}

/* The combat (from 0) reserve name of army a joined, or -1. */
static int matrix_joined(const json_t *combats, int a, const char *name)
{
    const json_t *c, *r;
    size_t i, k;
    int index;

    json_array_foreach(combats, i, c) json_array_foreach(
        rj_get(c, "reserves"), k,
        r) if (rj_is_eq(rj_str(r, "unit"), name) &&
               rj_is_eq(rj_str(r, "army"),
                        rj_army_key[a])) return rj_num(c, "index", &index)
        ? index
        : (int)i;
    return -1;
}

/* name is in army a's reserve (the state's "armies"). */
static bool matrix_is_reserve(const json_t *state, int a, const char *name)
{
    const json_t *r;
    size_t i;

    json_array_foreach(
        rj_get(rj_get(rj_get(state, "armies"), rj_army_key[a]), "reserve"), i,
        r) if (rj_is_eq(rj_str(r, "unit"), name)) return true;
    return false;
}

static int matrix_points(const char *fate)
{
    return rj_is_eq(fate, "routed")   ? 3
           : rj_is_eq(fate, "beaten") ? 2
                                      : rj_is_eq(fate, "repulsed");
}

/* What the battle's result did to name; is_campaign: a routed unit is
 * eliminated. */
static void matrix_fate(report_doc *d, const json_t *result, const char *name,
                        bool is_campaign)
{
    const json_t *fates = rj_get(result, "unit_results");
    const json_t *f = name ? rj_get(fates, name) : NULL;
    int points;

    if (!json_is_object(fates))
        return;
    if (f == NULL) {
        report_doc_add(d, "; did not fight");
    } else if (!json_is_string(f) || rj_is_eq(json_string_value(f), "none")) {
        report_doc_add(d, "; no loss");
    } else {
        points = matrix_points(json_string_value(f));
        report_doc_add(d, "; **%s** (%d casualty point%s)",
                       json_string_value(f), points, points == 1 ? "" : "s");
        if (is_campaign && points == 3)
            report_doc_add(d, ", eliminated");
    }
}

/* Where a unit of army a stands: its combat, or the reserve. */
static void matrix_place(report_doc *d, const json_t *state, int a,
                         const char *name)
{
    const json_t *setup = rj_get(state, "setup");
    int line, joined;

    if (!json_is_object(setup))
        setup = rj_get(rj_get(state, "input"), "setup");
    line = matrix_line_of(setup, a, name);
    joined = matrix_joined(rj_get(state, "combats"), a, name);
    if (line >= 0)
        report_doc_add(d, "in combat %d", line + 1);
    else if (joined >= 0)
        report_doc_add(d, "reserve, joined combat %d", joined + 1);
    else if (matrix_is_reserve(state, a, name))
        report_doc_add(d, "in reserve, not committed");
    else
        report_doc_add(d, "in neither the line nor the reserve");
}

/* Each army with its units, where each stands and, once over, its fate. */
static void matrix_units(report_doc *d, const json_t *state,
                         const json_t *setup, bool is_campaign)
{
    const json_t *u;
    size_t i;
    int a, v;

    report_doc_heading(d, 2, "Armies");
    for (a = 0; a < 2; a++) {
        const json_t *army = rj_get(setup, rj_army_key[a]);
        const json_t *st = rj_get(rj_get(state, "armies"), rj_army_key[a]);
        report_doc_item(d, "**%s: %s**", rj_army_label[a],
                        rj_name_of(army, "name"));
        if (rj_num(army, "argument", &v) && v != 0)
            report_doc_add(d, ", argument %s%d", v > 0 ? "+" : "", v);
        if (rj_is_true(army, "exhausted"))
            report_doc_add(d, ", exhausted");
        if (rj_is_eq(rj_str(setup, "ambush"), rj_army_key[a]))
            report_doc_add(d, ", ambushing");
        if (rj_num(st, "modifier", &v))
            report_doc_add(d, " (modifier %s%d)", v > 0 ? "+" : "", v);
        json_array_foreach(rj_get(army, "units"), i, u)
        {
            report_doc_sub(d, "**%s**", rj_name_of(u, "name"));
            if (rj_num(u, "quality", &v) && v != 0)
                report_doc_add(d, " (quality %s%d)", v > 0 ? "+" : "", v);
            report_doc_add(d, ": ");
            matrix_place(d, state, a, rj_str(u, "name"));
            matrix_fate(d, rj_get(state, "result"), rj_str(u, "name"),
                        is_campaign);
        }
    }
}

/* A rolled combat's dice and reserves. */
static void matrix_dice(report_doc *d, const json_t *c)
{
    json_t *dice = rj_get(c, "dice"), *v;
    const json_t *r;
    const char *key;
    size_t i, k = 0;

    report_doc_sub(d, "Dice:");
    json_object_foreach(dice, key, v) report_doc_add(
        d, "%s %s %d", k++ ? "," : "", key, (int)json_integer_value(v));
    json_array_foreach(rj_get(c, "reserves"), i, r)
    {
        int die = 0;
        rj_num(r, "die", &die);
        report_doc_sub(d, "Reserve %s (the %s) joins with a %d",
                       rj_name_of(r, "unit"), rj_str(r, "army"), die);
    }
}

/* The combats of the line, as fought so far. */
static void matrix_combats(report_doc *d, const json_t *state)
{
    const json_t *c, *scores;
    size_t i;
    int index, s0, s1;

    report_doc_heading(d, 2, "Combats");
    json_array_foreach(rj_get(state, "combats"), i, c)
    {
        if (!rj_num(c, "index", &index))
            index = (int)i;
        scores = rj_get(c, "scores");
        report_doc_item(d, "**Combat %d:** ", index + 1);
        rj_names(d, rj_get(c, "attacker"));
        report_doc_add(d, " against ");
        rj_names(d, rj_get(c, "defender"));
        if (!rj_is_true(c, "rolled")) {
            report_doc_add(d, ": not rolled yet");
            continue;
        }
        if (rj_num(scores, "attacker", &s0) && rj_num(scores, "defender", &s1))
            report_doc_add(d, ": %d against %d", s0, s1);
        if (rj_str(c, "loser"))
            report_doc_add(d, ", the %s %s", rj_str(c, "loser"),
                           rj_str(c, "result"));
        else
            report_doc_add(d, ", even");
        if (!rj_is_true(c, "accepted"))
            report_doc_add(d, " (not accepted yet: reserves may still join)");
        matrix_dice(d, c);
    }
}

/* The battle's result: winner, casualty points, army state. */
static void matrix_result(report_doc *d, const json_t *result,
                          const json_t *setup)
{
    const json_t *cp = rj_get(result, "casualty_points"), *v;
    int w = rj_army_index(rj_str(result, "winner")), p0, p1;
    size_t i;

    if (w >= 0)
        report_doc_para(d, "**The %s (%s) wins.**", rj_army_key[w],
                        rj_name_of(rj_get(setup, rj_army_key[w]), "name"));
    else
        report_doc_para(d, "**A draw.**");
    if (rj_num(cp, "attacker", &p0) && rj_num(cp, "defender", &p1))
        report_doc_add(d, " Casualty points: attacker %d, defender %d.", p0,
                       p1);
    if (rj_str(result, "army_state"))
        report_doc_add(d, " Army state: %s.", rj_str(result, "army_state"));
    if (rj_is_true(result, "winner_can_pursue"))
        report_doc_add(d, " The winner may pursue.");
    if (rj_is_true(result, "winner_must_withdraw"))
        report_doc_add(d, " The winner must fall back.");
    json_array_foreach(rj_get(result, "exhausted"), i,
                       v) if (rj_army_index(json_string_value(v)) >= 0)
        report_doc_add(d, " The %s is exhausted.", json_string_value(v));
}

void matrix_report_render(report_doc *d, const json_t *rep)
{
    const json_t *setup = rj_get(rj_get(rep, "input"), "setup");

    report_doc_heading(d, 2, "Outcome");
    if (rj_str(setup, "kind"))
        report_doc_para(d, "A Matrix %s.",
                        rj_is_eq(rj_str(setup, "kind"), "skirmish") ? "skirmish"
                                                                    : "battle");
    if (rj_is_true(rep, "escalated"))
        report_doc_para(d, "The skirmish escalated into an open battle: no "
                           "result, and nothing happens to its units.");
    else if (json_is_object(rj_get(rep, "result")))
        matrix_result(d, rj_get(rep, "result"), setup);
    else
        report_doc_para(d, "No result.");
    matrix_combats(d, rep);
    matrix_units(d, rep, setup, rj_str(rep, "campaign_id") != NULL);
}

void matrix_report_battle(report_doc *d, const json_t *b)
{
    const json_t *setup = rj_get(b, "setup");
    const char *status = rj_str(b, "status");

    if (rj_str(setup, "kind"))
        report_doc_item(d, "**Kind:** %s",
                        rj_is_eq(rj_str(setup, "kind"), "skirmish")
                            ? "a skirmish"
                            : "an open "
                              "battle");
    matrix_units(d, b, setup, true);
    matrix_combats(d, b);
    report_doc_heading(d, 2, "Result");
    if (rj_is_true(b, "escalated") || rj_is_eq(status, "escalated"))
        report_doc_para(d, "The skirmish escalated into an open battle: no "
                           "result, and nothing happens to its units.");
    else if (rj_is_eq(status, "abandoned"))
        report_doc_para(d, "Abandoned: no result.");
    else if (json_is_object(rj_get(b, "result")))
        matrix_result(d, rj_get(b, "result"), setup);
    else
        report_doc_para(d, "Not over yet.");
}
