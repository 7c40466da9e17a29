/*
 * report_battles.c: a battle as it stands (open, finished, escalated,
 * abandoned), of either system fought as battles, and Matrix's part of
 * it and of its record, from the JSON of server/matrix_api.c and
 * server/api_battles.c; see report.h and report_doc.h.  Civilization's
 * part is in report_civ.c.
 *
 * Combats are counted from 1 here, as players count them and as the
 * service's summaries do (the API numbers them from 0).
 */
#include "report.h"
#include "report_doc.h"

#include <stdlib.h>
#include <string.h>

static const char *const army_key[2] = {"attacker", "defender"};
static const char *const army_label[2] = {"Attacker", "Defender"};

/* Shorthands for jansson lookups (borrowed; NULL when absent). */
static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* An integer member into *v; false when absent or not an integer. */
static bool num(const json_t *o, const char *k, int *v)
{
    json_t *j = json_object_get(o, k);

    if (!json_is_integer(j))
        return false;
    *v = (int)json_integer_value(j);
    return true;
}

static bool is_true(const json_t *o, const char *k)
{
    return json_is_true(json_object_get(o, k));
}

static const char *name_of(const json_t *o, const char *k)
{
    const char *s = str(o, k);

    return s ? s : "unnamed";
}

static bool is_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* An array of names, comma-separated. */
static void names(report_doc *d, const json_t *arr)
{
    const json_t *v;
    size_t i;

    json_array_foreach(arr, i, v)
        report_doc_add(d, "%s%s", i ? ", " : "", json_string_value(v));
}

/* The army key's index, or -1. */
static int army_index(const char *key)
{
    return is_eq(key, army_key[0]) ? 0 : is_eq(key, army_key[1]) ? 1 : -1;
}

/* ---- Matrix (docs/rules/matrix.md) ---- */

/* The index (from 0) of the combat of the line army a fights name in,
 * or -1. */
static int matrix_line_of(const json_t *setup, int a, const char *name)
{
    const json_t *pair, *v;
    size_t i, k;

    json_array_foreach(get(setup, "line"), i, pair) json_array_foreach(
        get(pair, army_key[a]), k,
        v) if (is_eq(json_string_value(v), name)) return (int)i;
    return -1;
}

/* The combat (from 0) reserve name of army a joined, or -1. */
static int matrix_joined(const json_t *combats, int a, const char *name)
{
    const json_t *c, *r;
    size_t i, k;
    int index;

    json_array_foreach(combats, i, c) json_array_foreach(
        get(c, "reserves"), k,
        r) if (is_eq(str(r, "unit"), name) &&
               is_eq(str(r, "army"), army_key[a])) return num(c, "index",
                                                              &index)
        ? index
        : (int)i;
    return -1;
}

/* name is in army a's reserve (the state's "armies"). */
static bool matrix_is_reserve(const json_t *state, int a, const char *name)
{
    const json_t *r;
    size_t i;

    json_array_foreach(get(get(get(state, "armies"), army_key[a]), "reserve"),
                       i, r) if (is_eq(str(r, "unit"), name)) return true;
    return false;
}

static int matrix_points(const char *fate)
{
    return is_eq(fate, "routed")   ? 3
           : is_eq(fate, "beaten") ? 2
                                   : is_eq(fate, "repulsed");
}

/* What the battle's result did to name; is_campaign: a routed unit is
 * eliminated. */
static void matrix_fate(report_doc *d, const json_t *result, const char *name,
                        bool is_campaign)
{
    const json_t *fates = get(result, "unit_results");
    const json_t *f = name ? get(fates, name) : NULL;
    int points;

    if (!json_is_object(fates))
        return;
    if (f == NULL) {
        report_doc_add(d, "; did not fight");
    } else if (!json_is_string(f) || is_eq(json_string_value(f), "none")) {
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
    const json_t *setup = get(state, "setup");
    int line, joined;

    if (!json_is_object(setup))
        setup = get(get(state, "input"), "setup");
    line = matrix_line_of(setup, a, name);
    joined = matrix_joined(get(state, "combats"), a, name);
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
        const json_t *army = get(setup, army_key[a]);
        const json_t *st = get(get(state, "armies"), army_key[a]);
        report_doc_item(d, "**%s: %s**", army_label[a], name_of(army, "name"));
        if (num(army, "argument", &v) && v != 0)
            report_doc_add(d, ", argument %s%d", v > 0 ? "+" : "", v);
        if (is_true(army, "exhausted"))
            report_doc_add(d, ", exhausted");
        if (is_eq(str(setup, "ambush"), army_key[a]))
            report_doc_add(d, ", ambushing");
        if (num(st, "modifier", &v))
            report_doc_add(d, " (modifier %s%d)", v > 0 ? "+" : "", v);
        json_array_foreach(get(army, "units"), i, u)
        {
            report_doc_sub(d, "**%s**", name_of(u, "name"));
            if (num(u, "quality", &v) && v != 0)
                report_doc_add(d, " (quality %s%d)", v > 0 ? "+" : "", v);
            report_doc_add(d, ": ");
            matrix_place(d, state, a, str(u, "name"));
            matrix_fate(d, get(state, "result"), str(u, "name"), is_campaign);
        }
    }
}

/* A rolled combat's dice and reserves. */
static void matrix_dice(report_doc *d, const json_t *c)
{
    json_t *dice = get(c, "dice"), *v;
    const json_t *r;
    const char *key;
    size_t i, k = 0;

    report_doc_sub(d, "Dice:");
    json_object_foreach(dice, key, v) report_doc_add(
        d, "%s %s %d", k++ ? "," : "", key, (int)json_integer_value(v));
    json_array_foreach(get(c, "reserves"), i, r)
    {
        int die = 0;
        num(r, "die", &die);
        report_doc_sub(d, "Reserve %s (the %s) joins with a %d",
                       name_of(r, "unit"), str(r, "army"), die);
    }
}

/* The combats of the line, as fought so far. */
static void matrix_combats(report_doc *d, const json_t *state)
{
    const json_t *c, *scores;
    size_t i;
    int index, s0, s1;

    report_doc_heading(d, 2, "Combats");
    json_array_foreach(get(state, "combats"), i, c)
    {
        if (!num(c, "index", &index))
            index = (int)i;
        scores = get(c, "scores");
        report_doc_item(d, "**Combat %d:** ", index + 1);
        names(d, get(c, "attacker"));
        report_doc_add(d, " against ");
        names(d, get(c, "defender"));
        if (!is_true(c, "rolled")) {
            report_doc_add(d, ": not rolled yet");
            continue;
        }
        if (num(scores, "attacker", &s0) && num(scores, "defender", &s1))
            report_doc_add(d, ": %d against %d", s0, s1);
        if (str(c, "loser"))
            report_doc_add(d, ", the %s %s", str(c, "loser"), str(c, "result"));
        else
            report_doc_add(d, ", even");
        if (!is_true(c, "accepted"))
            report_doc_add(d, " (not accepted yet: reserves may still join)");
        matrix_dice(d, c);
    }
}

/* The battle's result: winner, casualty points, army state. */
static void matrix_result(report_doc *d, const json_t *result,
                          const json_t *setup)
{
    const json_t *cp = get(result, "casualty_points"), *v;
    int w = army_index(str(result, "winner")), p0, p1;
    size_t i;

    if (w >= 0)
        report_doc_para(d, "**The %s (%s) wins.**", army_key[w],
                        name_of(get(setup, army_key[w]), "name"));
    else
        report_doc_para(d, "**A draw.**");
    if (num(cp, "attacker", &p0) && num(cp, "defender", &p1))
        report_doc_add(d, " Casualty points: attacker %d, defender %d.", p0,
                       p1);
    if (str(result, "army_state"))
        report_doc_add(d, " Army state: %s.", str(result, "army_state"));
    if (is_true(result, "winner_can_pursue"))
        report_doc_add(d, " The winner may pursue.");
    if (is_true(result, "winner_must_withdraw"))
        report_doc_add(d, " The winner must fall back.");
    json_array_foreach(get(result, "exhausted"), i,
                       v) if (army_index(json_string_value(v)) >= 0)
        report_doc_add(d, " The %s is exhausted.", json_string_value(v));
}

void report_doc_matrix_record(report_doc *d, const json_t *rep)
{
    const json_t *setup = get(get(rep, "input"), "setup");

    report_doc_heading(d, 2, "Outcome");
    if (str(setup, "kind"))
        report_doc_para(d, "A Matrix %s.",
                        is_eq(str(setup, "kind"), "skirmish") ? "skirmish"
                                                              : "battle");
    if (is_true(rep, "escalated"))
        report_doc_para(d, "The skirmish escalated into an open battle: no "
                           "result, and nothing happens to its units.");
    else if (json_is_object(get(rep, "result")))
        matrix_result(d, get(rep, "result"), setup);
    else
        report_doc_para(d, "No result.");
    matrix_combats(d, rep);
    matrix_units(d, rep, setup, str(rep, "campaign_id") != NULL);
}

/* ---- a battle ---- */

static const char *status_words(const char *status)
{
    if (is_eq(status, "open"))
        return "open, being fought";
    if (is_eq(status, "finished"))
        return "finished";
    if (is_eq(status, "escalated"))
        return "escalated: the skirmish became an open battle";
    if (is_eq(status, "abandoned"))
        return "abandoned: ended with no result, nothing happened to its "
               "units";
    return status;
}

static void battle_head(report_doc *d, const json_t *b)
{
    int turn, n;

    if (str(b, "status"))
        report_doc_item(d, "**Status:** %s", status_words(str(b, "status")));
    if (num(b, "turn", &turn))
        report_doc_item(d, "**Turn:** %d", turn);
    if (str(b, "campaign_id"))
        report_doc_item(d, "**Campaign:** `%s`", str(b, "campaign_id"));
    if (str(b, "created_at"))
        report_doc_item(d, "**Created:** %s", str(b, "created_at"));
    if (str(b, "updated_at"))
        report_doc_item(d, "**Updated:** %s", str(b, "updated_at"));
    if (num(b, "n_actions", &n))
        report_doc_item(d, "**Actions so far:** %d", n);
    if (str(b, "note"))
        report_doc_item(d, "**Note:** %s", str(b, "note"));
}

static void matrix_battle(report_doc *d, const json_t *b)
{
    const json_t *setup = get(b, "setup");
    const char *status = str(b, "status");

    if (str(setup, "kind"))
        report_doc_item(d, "**Kind:** %s",
                        is_eq(str(setup, "kind"), "skirmish") ? "a skirmish"
                                                              : "an open "
                                                                "battle");
    matrix_units(d, b, setup, true);
    matrix_combats(d, b);
    report_doc_heading(d, 2, "Result");
    if (is_true(b, "escalated") || is_eq(status, "escalated"))
        report_doc_para(d, "The skirmish escalated into an open battle: no "
                           "result, and nothing happens to its units.");
    else if (is_eq(status, "abandoned"))
        report_doc_para(d, "Abandoned: no result.");
    else if (json_is_object(get(b, "result")))
        matrix_result(d, get(b, "result"), setup);
    else
        report_doc_para(d, "Not over yet.");
}

/* The record and the battles this one is linked to, by id. */
static void battle_links(report_doc *d, const json_t *b)
{
    if (!str(b, "combat_id") && !str(b, "escalated_from") &&
        !str(b, "escalated_to"))
        return;
    report_doc_heading(d, 2, "Links");
    if (str(b, "combat_id"))
        report_doc_item(d, "**Record:** combat `%s`", str(b, "combat_id"));
    if (str(b, "escalated_from"))
        report_doc_item(d, "**Escalated from:** the skirmish `%s`",
                        str(b, "escalated_from"));
    if (str(b, "escalated_to"))
        report_doc_item(d, "**Escalated to:** the battle `%s`",
                        str(b, "escalated_to"));
}

/* The battle's system: as it says, or as its members show. */
static const char *battle_system(const json_t *b)
{
    if (str(b, "system"))
        return str(b, "system");
    if (get(b, "phases"))
        return "civ";
    return get(b, "combats") ? "matrix" : NULL;
}

char *report_battle(const json_t *battle, report_format fmt)
{
    const char *system = battle_system(battle);
    const char *name = report_doc_system_name(system);
    text_buf title = {0};
    char *t;
    report_doc d;

    text_printf(&title, "%s battle %s", name ? name : "A",
                str(battle, "id") ? str(battle, "id") : "");
    t = text_take(&title);
    report_doc_begin(&d, fmt, t ? t : "Battle");
    free(t);
    report_doc_heading(&d, 1, "%s battle", name ? name : "A");
    if (str(battle, "id"))
        report_doc_add(&d, " `%s`", str(battle, "id"));
    battle_head(&d, battle);
    if (is_eq(system, "matrix"))
        matrix_battle(&d, battle);
    else if (is_eq(system, "civ"))
        report_doc_civ_battle(&d, battle);
    report_doc_dice(&d, get(battle, "dice"),
                    str(battle, "combat_id") ? REPORT_DOC_ROLLS_IN_RECORD
                                             : REPORT_DOC_ROLLS_NONE,
                    is_eq(str(battle, "status"), "open"));
    battle_links(&d, battle);
    return report_doc_end(&d);
}
