/*
 * report_fates.c: the outcome of a SCRUD combat, an EDNA test and an SCS
 * combat, and what happened to each of their units, from their reports
 * (server/scrud_api.c, server/api_edna.c, server/scs_combat.c); see
 * report_doc.h.  The words follow the rules' pages (docs/rules/).
 */
#include "report_doc.h"

#include <string.h>

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

/* A unit's name, or a word for none. */
static const char *name_of(const json_t *o, const char *k)
{
    const char *s = str(o, k);

    return s ? s : "unnamed";
}

/* "; <label> <before> → <after>" of two objects' member k, when both have
 * it and it changed, or "stays" when is_always and it did not. */
static void before_after(report_doc *d, const json_t *before,
                         const json_t *after, const char *k, const char *label,
                         bool is_always)
{
    int b, a;

    if (!num(before, k, &b) || !num(after, k, &a))
        return;
    if (b != a)
        report_doc_add(d, "; %s %d \xE2\x86\x92 %d", label, b, a);
    else if (is_always)
        report_doc_add(d, "; %s stays %d", label, a);
}

/* ---- SCRUD (docs/rules/scrud.md) ---- */

static const char *scrud_elimination(const char *reason)
{
    if (reason && strcmp(reason, "threshold") == 0)
        return "its modifier fell below the threshold";
    if (reason && strcmp(reason, "three_defeats") == 0)
        return "lost for its side's defeats";
    return reason;
}

/* A front-line unit's defeats and heavy fighting. */
static void scrud_result(report_doc *d, const json_t *u)
{
    int defeats = 0;

    num(u, "defeats", &defeats);
    if (defeats == 0)
        report_doc_add(d, "not defeated");
    else if (defeats == 1)
        report_doc_add(d, "defeated");
    else
        report_doc_add(d, "defeated %d times", defeats);
    if (is_true(u, "heavy_fighting"))
        report_doc_add(d, ", heavy fighting");
}

static void scrud_unit(report_doc *d, const json_t *u)
{
    const json_t *before = get(u, "before"), *after = get(u, "after");
    const char *elim = str(u, "eliminated");
    int natural, score;

    report_doc_sub(d, "**%s**", name_of(u, "unit"));
    if (num(u, "natural", &natural) && num(u, "score", &score))
        report_doc_add(d, " (rolled %d, score %d)", natural, score);
    report_doc_add(d, ": ");
    if (is_true(u, "reserve")) {
        report_doc_add(d, "in reserve, unchanged");
        return;
    }
    if (elim)
        report_doc_add(d, "**eliminated** (%s); ", scrud_elimination(elim));
    scrud_result(d, u);
    before_after(d, before, after, "defeat_penalty", "defeat penalty", false);
    before_after(d, before, after, "fatigue_penalty", "fatigue penalty", false);
    before_after(d, before, after, "modifier", "modifier", true);
}

/* The pairs and the extra dice, as fought. */
static void scrud_pairs(report_doc *d, const json_t *rep)
{
    const json_t *p;
    size_t i;

    json_array_foreach(get(rep, "pairs"), i, p)
    {
        const char *winner = str(p, "winner");
        int a = 0, b = 0;
        num(p, "first_score", &a);
        num(p, "second_score", &b);
        report_doc_item(d, "%s %d against %s %d: ", name_of(p, "first"), a,
                        name_of(p, "second"), b);
        if (winner && strcmp(winner, "first") == 0)
            report_doc_add(d, "%s wins", name_of(p, "first"));
        else if (winner && strcmp(winner, "second") == 0)
            report_doc_add(d, "%s wins", name_of(p, "second"));
        else
            report_doc_add(d, "equal, nothing happens");
    }
    json_array_foreach(get(rep, "extra"), i, p)
    {
        int score = 0;
        num(p, "score", &score);
        report_doc_item(d, "Extra die: %s %d ", name_of(p, "unit"), score);
        if (str(p, "defeated"))
            report_doc_add(d, "defeats %s", str(p, "defeated"));
        else
            report_doc_add(d, "is ignored");
    }
}

/* Defeats of each side and the units eliminated, in a sentence. */
static void scrud_outcome(report_doc *d, const json_t *sides)
{
    const json_t *side, *u;
    size_t s, i, n_elim = 0;
    int n;

    report_doc_para(d, "Defeats suffered:");
    json_array_foreach(sides, s, side)
    {
        if (num(side, "defeats_suffered", &n))
            report_doc_add(d, "%s **%s** %d", s ? "," : "",
                           name_of(side, "name"), n);
    }
    json_array_foreach(sides, s, side)
        json_array_foreach(get(side, "eliminated"), i, u)
            report_doc_add(d, "%s%s (%s)", n_elim++ ? ", " : ". Eliminated: ",
                           name_of(u, "unit"), name_of(side, "name"));
    if (n_elim)
        report_doc_add(d, ".");
    else
        report_doc_add(d, ". No unit was eliminated.");
}

void report_doc_scrud(report_doc *d, const json_t *rep)
{
    const json_t *sides = get(rep, "sides"), *side, *u;
    size_t s, i;

    report_doc_heading(d, 2, "Outcome");
    scrud_outcome(d, sides);
    scrud_pairs(d, rep);
    report_doc_heading(d, 2, "Units");
    json_array_foreach(sides, s, side)
    {
        report_doc_item(d, "**%s**", name_of(side, "name"));
        json_array_foreach(get(side, "units"), i, u) scrud_unit(d, u);
    }
}

/* ---- EDNA (docs/rules/edna.md) ---- */

/* The side of a tested unit, from the roll log (campaign tests). */
static const char *edna_side(const json_t *rep, const json_t *t)
{
    const char *id = str(t, "unit_id"), *name = str(t, "unit");
    const json_t *r;
    size_t i;

    json_array_foreach(get(rep, "rolls"), i, r)
    {
        const char *side = str(r, "side");
        bool is_it =
            id ? str(r, "unit_id") && strcmp(str(r, "unit_id"), id) == 0
               : name && str(r, "unit") && strcmp(str(r, "unit"), name) == 0;
        if (is_it && side && side[0])
            return side;
    }
    return NULL;
}

static void edna_test(report_doc *d, const json_t *rep, const json_t *t)
{
    const json_t *v;
    int total, before, after, modifier;
    size_t k;

    report_doc_item(d, "**%s**", name_of(t, "unit"));
    if (edna_side(rep, t))
        report_doc_add(d, " (%s)", edna_side(rep, t));
    report_doc_add(d, ": ");
    if (num(t, "total", &total) && num(t, "edna_before", &before))
        report_doc_add(d, "%d against EDNA %d", total, before);
    report_doc_add(d, " (dice");
    json_array_foreach(get(t, "naturals"), k, v)
        report_doc_add(d, "%s %d", k ? "," : "", (int)json_integer_value(v));
    if (num(t, "modifier", &modifier) && modifier != 0)
        report_doc_add(d, ", modifier %s%d", modifier > 0 ? "+" : "", modifier);
    if (is_true(t, "passed"))
        report_doc_add(d, "): **passed**");
    else
        report_doc_add(d, "): **failed**");
    if (!num(t, "edna_before", &before) || !num(t, "edna_after", &after))
        return;
    if (before == after)
        report_doc_add(d, ", EDNA stays %d", after);
    else
        report_doc_add(d, ", EDNA %d \xE2\x86\x92 %d", before, after);
    if (is_true(t, "ineffective"))
        report_doc_add(d, ": now **ineffective**");
}

void report_doc_edna(report_doc *d, const json_t *rep)
{
    const json_t *tests = get(rep, "tests"), *opts = get(rep, "options"), *t;
    int n_dice, faces, n_passed = 0;
    size_t i;

    json_array_foreach(tests, i, t) n_passed += is_true(t, "passed");
    report_doc_heading(d, 2, "Outcome");
    report_doc_para(d, "%d unit%s tested", (int)json_array_size(tests),
                    json_array_size(tests) == 1 ? "" : "s");
    if (num(opts, "dice", &n_dice) && num(opts, "faces", &faces))
        report_doc_add(d, " with %dd%d", n_dice, faces);
    report_doc_add(d, ": %d passed, %d failed.", n_passed,
                   (int)json_array_size(tests) - n_passed);
    report_doc_heading(d, 2, "Units");
    json_array_foreach(tests, i, t) edna_test(d, rep, t);
}

/* ---- SCS (docs/rules/scs.md) ---- */

static const char *plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* The odds, the column and the roll, in a sentence. */
static void scs_odds(report_doc *d, const json_t *rep)
{
    const json_t *roll = get(rep, "roll"), *v;
    const char *at = str(get(rep, "attack_total"), "decimal");
    const char *dt = str(get(rep, "defense_total"), "decimal");
    size_t k;
    int value;

    if (at && dt)
        report_doc_para(d, "Attack %s against defense %s", at, dt);
    else
        report_doc_para(d, "The odds");
    if (str(rep, "odds"))
        report_doc_add(d, ": odds %s", str(rep, "odds"));
    if (str(rep, "column"))
        report_doc_add(d, ", column %s", str(rep, "column"));
    if (str(rep, "column_before_shifts") && str(rep, "column") &&
        strcmp(str(rep, "column_before_shifts"), str(rep, "column")) != 0)
        report_doc_add(d, " (%s before the shifts)",
                       str(rep, "column_before_shifts"));
    if (str(get(rep, "table"), "name"))
        report_doc_add(d, " on the table %s", str(get(rep, "table"), "name"));
    report_doc_add(d, ".");
    if (is_true(rep, "off_table")) {
        report_doc_add(d, " Off the left of the table: no roll, the attacker "
                          "loses a step.");
        return;
    }
    if (num(roll, "value", &value))
        report_doc_add(d, " Roll %d", value);
    if (str(roll, "kind"))
        report_doc_add(d, " (%s:", str(roll, "kind"));
    json_array_foreach(get(roll, "dice"), k, v)
        report_doc_add(d, "%s %d", k ? "," : "", (int)json_integer_value(v));
    if (str(roll, "kind"))
        report_doc_add(d, ")");
    if (str(rep, "result"))
        report_doc_add(d, ": **%s**", str(rep, "result"));
    report_doc_add(d, ".");
}

/* One side's part of the result: steps, retreat and their exchanges. */
static void scs_side(report_doc *d, const json_t *r, const char *label)
{
    int steps = 0, hexes = 0, n;

    if (!json_is_object(r))
        return;
    num(r, "steps", &steps);
    num(r, "retreat_hexes", &hexes);
    report_doc_item(d, "**%s:** %s", label, steps ? "" : "no step lost");
    if (steps)
        report_doc_add(d, "%d step%s lost", steps, plural(steps, "", "s"));
    if (hexes)
        report_doc_add(d, ", retreats %d hex%s", hexes,
                       plural(hexes, "", "es"));
    if (num(r, "converted", &n) && n)
        report_doc_add(d, ", %d retreat hex%s converted to steps", n,
                       plural(n, "", "es"));
    if (num(r, "ezoc_hexes", &n) && n)
        report_doc_add(d, ", %d EZOC hex%s", n, plural(n, "", "es"));
    if (num(r, "blocked_hexes", &n) && n)
        report_doc_add(d, ", %d retreat hex%s blocked", n, plural(n, "", "es"));
    if (num(r, "steps_ignored", &n) && n)
        report_doc_add(d, ", %d step%s beyond what it could lose", n,
                       plural(n, "", "s"));
    if (is_true(r, "eliminated"))
        report_doc_add(d, "; **eliminated**");
}

/* A unit's steps and where it goes; retreat: its side's hexes. */
static void scs_unit(report_doc *d, const json_t *u, int retreat)
{
    int lost = 0, before, after, steps, advance;

    num(u, "lost", &lost);
    report_doc_sub(d, "**%s**", name_of(u, "unit"));
    if (str(u, "side"))
        report_doc_add(d, " (%s)", str(u, "side"));
    report_doc_add(d, ": ");
    if (is_true(u, "eliminated"))
        report_doc_add(d, "**eliminated**, ");
    if (lost == 0)
        report_doc_add(d, "no step lost");
    else
        report_doc_add(d, "loses %d step%s", lost, plural(lost, "", "s"));
    if (num(u, "steps_lost_before", &before) && num(u, "steps_lost", &after) &&
        num(u, "steps", &steps) && lost > 0)
        report_doc_add(d, " (steps lost %d \xE2\x86\x92 %d of %d)", before,
                       after, steps);
    if (is_true(u, "eliminated"))
        return;
    if (retreat > 0)
        report_doc_add(d, "; retreats %d hex%s", retreat,
                       plural(retreat, "", "es"));
    if (num(u, "advance_hexes", &advance) && advance > 0)
        report_doc_add(d, "; may advance %d hex%s", advance,
                       plural(advance, "", "es"));
}

void report_doc_scs(report_doc *d, const json_t *rep)
{
    static const char *const keys[2][3] = {
        {"attackers", "attacker", "Attackers"},
        {"defenders", "defender", "Defenders"}};
    const json_t *adv = get(rep, "advance"), *u;
    int s, hexes, exploit;
    size_t i;

    report_doc_heading(d, 2, "Outcome");
    if (is_true(rep, "overrun"))
        report_doc_para(d, "An overrun.");
    scs_odds(d, rep);
    scs_side(d, get(rep, "defender"), "Defender");
    scs_side(d, get(rep, "attacker"), "Attacker");
    if (is_true(adv, "allowed") && num(adv, "hexes", &hexes) &&
        num(adv, "exploit_hexes", &exploit))
        report_doc_item(d, "**Advance:** %d hex%s, exploit-capable units %d%s",
                        hexes, plural(hexes, "", "es"), exploit,
                        is_true(adv, "required") ? "; required" : "");
    report_doc_heading(d, 2, "Units");
    for (s = 0; s < 2; s++) {
        int retreat = 0;
        num(get(rep, keys[s][1]), "retreat_hexes", &retreat);
        report_doc_item(d, "**%s**", keys[s][2]);
        json_array_foreach(get(rep, keys[s][0]), i, u) scs_unit(d, u, retreat);
    }
}
