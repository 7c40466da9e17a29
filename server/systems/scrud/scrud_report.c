/*
 * report_fates.c: the outcome of a SCRUD combat, an EDNA test and an SCS
 * combat, and what happened to each of their units, from their reports
 * (server/scrud_api.c, server/api_edna.c, server/scs_combat.c); see
 * report_doc.h.  The words follow the rules' pages (docs/rules/).
 */
#include "report_doc.h"

#include <string.h>

/* "; <label> <before> → <after>" of two objects' member k, when both have
 * it and it changed, or "stays" when is_modifier and it did not.  A
 * modifier is written with its sign (+1, 0, -1), as the rules write it. */
static void before_after(report_doc *d, const json_t *before,
                         const json_t *after, const char *k, const char *label,
                         bool is_modifier)
{
    char bs[16], as[16];
    int b, a;

    if (!rj_num(before, k, &b) || !rj_num(after, k, &a))
        return;
    snprintf(bs, sizeof bs, is_modifier && b > 0 ? "+%d" : "%d", b);
    snprintf(as, sizeof as, is_modifier && a > 0 ? "+%d" : "%d", a);
    if (b != a)
        report_doc_add(d, "; %s %s \xE2\x86\x92 %s", label, bs, as);
    else if (is_modifier)
        report_doc_add(d, "; %s stays %s", label, as);
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

    rj_num(u, "defeats", &defeats);
    if (defeats == 0)
        report_doc_add(d, "not defeated");
    else if (defeats == 1)
        report_doc_add(d, "defeated");
    else
        report_doc_add(d, "defeated %d times", defeats);
    if (rj_is_true(u, "heavy_fighting"))
        report_doc_add(d, ", heavy fighting");
}

static void scrud_unit(report_doc *d, const json_t *u)
{
    const json_t *before = rj_get(u, "before"), *after = rj_get(u, "after");
    const char *elim = rj_str(u, "eliminated");
    int natural, score;

    report_doc_sub(d, "**%s**", rj_name_of(u, "unit"));
    if (rj_num(u, "natural", &natural) && rj_num(u, "score", &score))
        report_doc_add(d, " (rolled %d, score %d)", natural, score);
    report_doc_add(d, ": ");
    if (rj_is_true(u, "reserve")) {
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

    json_array_foreach(rj_get(rep, "pairs"), i, p)
    {
        const char *winner = rj_str(p, "winner");
        int a = 0, b = 0;
        rj_num(p, "first_score", &a);
        rj_num(p, "second_score", &b);
        report_doc_item(d, "%s %d against %s %d: ", rj_name_of(p, "first"), a,
                        rj_name_of(p, "second"), b);
        if (winner && strcmp(winner, "first") == 0)
            report_doc_add(d, "%s wins", rj_name_of(p, "first"));
        else if (winner && strcmp(winner, "second") == 0)
            report_doc_add(d, "%s wins", rj_name_of(p, "second"));
        else
            report_doc_add(d, "equal, nothing happens");
    }
    json_array_foreach(rj_get(rep, "extra"), i, p)
    {
        int score = 0;
        rj_num(p, "score", &score);
        report_doc_item(d, "Extra die: %s %d ", rj_name_of(p, "unit"), score);
        if (rj_str(p, "defeated"))
            report_doc_add(d, "defeats %s", rj_str(p, "defeated"));
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
        if (rj_num(side, "defeats_suffered", &n))
            report_doc_add(d, "%s **%s** %d", s ? "," : "",
                           rj_name_of(side, "name"), n);
    }
    json_array_foreach(sides, s, side)
        json_array_foreach(rj_get(side, "eliminated"), i, u)
            report_doc_add(d, "%s%s (%s)", n_elim++ ? ", " : ". Eliminated: ",
                           rj_name_of(u, "unit"), rj_name_of(side, "name"));
    if (n_elim)
        report_doc_add(d, ".");
    else
        report_doc_add(d, ". No unit was eliminated.");
}

void report_doc_scrud(report_doc *d, const json_t *rep)
{
    const json_t *sides = rj_get(rep, "sides"), *side, *u;
    size_t s, i;

    report_doc_heading(d, 2, "Outcome");
    scrud_outcome(d, sides);
    scrud_pairs(d, rep);
    report_doc_heading(d, 2, "Units");
    json_array_foreach(sides, s, side)
    {
        report_doc_item(d, "**%s**", rj_name_of(side, "name"));
        json_array_foreach(rj_get(side, "units"), i, u) scrud_unit(d, u);
    }
}

/* ---- EDNA (docs/rules/edna.md) ---- */

/* The side of a tested unit, from the roll log (campaign tests). */
static const char *edna_side(const json_t *rep, const json_t *t)
{
    const char *id = rj_str(t, "unit_id"), *name = rj_str(t, "unit");
    const json_t *r;
    size_t i;

    json_array_foreach(rj_get(rep, "rolls"), i, r)
    {
        const char *side = rj_str(r, "side");
        bool is_it =
            id ? rj_str(r, "unit_id") && strcmp(rj_str(r, "unit_id"), id) == 0
               : name && rj_str(r, "unit") &&
                     strcmp(rj_str(r, "unit"), name) == 0;
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

    report_doc_item(d, "**%s**", rj_name_of(t, "unit"));
    if (edna_side(rep, t))
        report_doc_add(d, " (%s)", edna_side(rep, t));
    report_doc_add(d, ": ");
    if (rj_num(t, "total", &total) && rj_num(t, "edna_before", &before))
        report_doc_add(d, "%d against EDNA %d", total, before);
    report_doc_add(d, " (dice");
    json_array_foreach(rj_get(t, "naturals"), k, v)
        report_doc_add(d, "%s %d", k ? "," : "", (int)json_integer_value(v));
    if (rj_num(t, "modifier", &modifier) && modifier != 0)
        report_doc_add(d, ", modifier %s%d", modifier > 0 ? "+" : "", modifier);
    if (rj_is_true(t, "passed"))
        report_doc_add(d, "): **passed**");
    else
        report_doc_add(d, "): **failed**");
    if (!rj_num(t, "edna_before", &before) || !rj_num(t, "edna_after", &after))
        return;
    if (before == after)
        report_doc_add(d, ", EDNA stays %d", after);
    else
        report_doc_add(d, ", EDNA %d \xE2\x86\x92 %d", before, after);
    if (rj_is_true(t, "ineffective"))
        report_doc_add(d, ": now **ineffective**");
}

void report_doc_edna(report_doc *d, const json_t *rep)
{
    const json_t *tests = rj_get(rep, "tests"), *opts = rj_get(rep, "options"),
                 *t;
    int n_dice, faces, n_passed = 0;
    size_t i;

    json_array_foreach(tests, i, t) n_passed += rj_is_true(t, "passed");
    report_doc_heading(d, 2, "Outcome");
    report_doc_para(d, "%d unit%s tested", (int)json_array_size(tests),
                    json_array_size(tests) == 1 ? "" : "s");
    if (rj_num(opts, "dice", &n_dice) && rj_num(opts, "faces", &faces))
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
    const json_t *roll = rj_get(rep, "roll"), *v;
    const char *at = rj_str(rj_get(rep, "attack_total"), "decimal");
    const char *dt = rj_str(rj_get(rep, "defense_total"), "decimal");
    size_t k;
    int value;

    if (at && dt)
        report_doc_para(d, "Attack %s against defense %s", at, dt);
    else
        report_doc_para(d, "The odds");
    if (rj_str(rep, "odds"))
        report_doc_add(d, ": odds %s", rj_str(rep, "odds"));
    if (rj_str(rep, "column"))
        report_doc_add(d, ", column %s", rj_str(rep, "column"));
    if (rj_str(rep, "column_before_shifts") && rj_str(rep, "column") &&
        strcmp(rj_str(rep, "column_before_shifts"), rj_str(rep, "column")) != 0)
        report_doc_add(d, " (%s before the shifts)",
                       rj_str(rep, "column_before_shifts"));
    if (rj_str(rj_get(rep, "table"), "name"))
        report_doc_add(d, " on the table %s",
                       rj_str(rj_get(rep, "table"), "name"));
    report_doc_add(d, ".");
    if (rj_is_true(rep, "off_table")) {
        report_doc_add(d, " Off the left of the table: no roll, the attacker "
                          "loses a step.");
        return;
    }
    if (rj_num(roll, "value", &value))
        report_doc_add(d, " Roll %d", value);
    if (rj_str(roll, "kind"))
        report_doc_add(d, " (%s:", rj_str(roll, "kind"));
    json_array_foreach(rj_get(roll, "dice"), k, v)
        report_doc_add(d, "%s %d", k ? "," : "", (int)json_integer_value(v));
    if (rj_str(roll, "kind"))
        report_doc_add(d, ")");
    if (rj_str(rep, "result"))
        report_doc_add(d, ": **%s**", rj_str(rep, "result"));
    report_doc_add(d, ".");
}

/* One side's part of the result: steps, retreat and their exchanges. */
static void scs_side(report_doc *d, const json_t *r, const char *label)
{
    int steps = 0, hexes = 0, n;

    if (!json_is_object(r))
        return;
    rj_num(r, "steps", &steps);
    rj_num(r, "retreat_hexes", &hexes);
    report_doc_item(d, "**%s:** %s", label, steps ? "" : "no step lost");
    if (steps)
        report_doc_add(d, "%d step%s lost", steps, plural(steps, "", "s"));
    if (hexes)
        report_doc_add(d, ", retreats %d hex%s", hexes,
                       plural(hexes, "", "es"));
    if (rj_num(r, "converted", &n) && n)
        report_doc_add(d, ", %d retreat hex%s converted to steps", n,
                       plural(n, "", "es"));
    if (rj_num(r, "ezoc_hexes", &n) && n)
        report_doc_add(d, ", %d EZOC hex%s", n, plural(n, "", "es"));
    if (rj_num(r, "blocked_hexes", &n) && n)
        report_doc_add(d, ", %d retreat hex%s blocked", n, plural(n, "", "es"));
    if (rj_num(r, "steps_ignored", &n) && n)
        report_doc_add(d, ", %d step%s beyond what it could lose", n,
                       plural(n, "", "s"));
    if (rj_is_true(r, "eliminated"))
        report_doc_add(d, "; **eliminated**");
}

/* A unit's steps and where it goes; retreat: its side's hexes. */
static void scs_unit(report_doc *d, const json_t *u, int retreat)
{
    int lost = 0, before, after, steps, advance;

    rj_num(u, "lost", &lost);
    report_doc_sub(d, "**%s**", rj_name_of(u, "unit"));
    if (rj_str(u, "side"))
        report_doc_add(d, " (%s)", rj_str(u, "side"));
    report_doc_add(d, ": ");
    if (rj_is_true(u, "eliminated"))
        report_doc_add(d, "**eliminated**, ");
    if (lost == 0)
        report_doc_add(d, "no step lost");
    else
        report_doc_add(d, "loses %d step%s", lost, plural(lost, "", "s"));
    if (rj_num(u, "steps_lost_before", &before) &&
        rj_num(u, "steps_lost", &after) && rj_num(u, "steps", &steps) &&
        lost > 0)
        report_doc_add(d, " (steps lost %d \xE2\x86\x92 %d of %d)", before,
                       after, steps);
    if (rj_is_true(u, "eliminated"))
        return;
    if (retreat > 0)
        report_doc_add(d, "; retreats %d hex%s", retreat,
                       plural(retreat, "", "es"));
    if (rj_num(u, "advance_hexes", &advance) && advance > 0)
        report_doc_add(d, "; may advance %d hex%s", advance,
                       plural(advance, "", "es"));
}

void report_doc_scs(report_doc *d, const json_t *rep)
{
    static const char *const keys[2][3] = {
        {"attackers", "attacker", "Attackers"},
        {"defenders", "defender", "Defenders"}};
    const json_t *adv = rj_get(rep, "advance"), *u;
    int s, hexes, exploit;
    size_t i;

    report_doc_heading(d, 2, "Outcome");
    if (rj_is_true(rep, "overrun"))
        report_doc_para(d, "An overrun.");
    scs_odds(d, rep);
    scs_side(d, rj_get(rep, "defender"), "Defender");
    scs_side(d, rj_get(rep, "attacker"), "Attacker");
    if (rj_is_true(adv, "allowed") && rj_num(adv, "hexes", &hexes) &&
        rj_num(adv, "exploit_hexes", &exploit))
        report_doc_item(d, "**Advance:** %d hex%s, exploit-capable units %d%s",
                        hexes, plural(hexes, "", "es"), exploit,
                        rj_is_true(adv, "required") ? "; required" : "");
    report_doc_heading(d, 2, "Units");
    for (s = 0; s < 2; s++) {
        int retreat = 0;
        rj_num(rj_get(rep, keys[s][1]), "retreat_hexes", &retreat);
        report_doc_item(d, "**%s**", keys[s][2]);
        json_array_foreach(rj_get(rep, keys[s][0]), i, u)
            scs_unit(d, u, retreat);
    }
}
