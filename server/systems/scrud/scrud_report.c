/*
 * scrud_report.c: the outcome of a SCRUD combat and what happened to each
 * of its units, from its report (scrud_json.c); see scrud_report.h.
 * The words follow docs/rules/scrud.md.
 */
#include "scrud_report.h"

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
    if (rj_str(u, "fog")) {
        /* Fog of war shows this reader its name, and at "status" its
         * elimination (fog.h). */
        if (elim)
            report_doc_add(d, ": **eliminated** (%s)", scrud_elimination(elim));
        return;
    }
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

void scrud_report_render(report_doc *d, const json_t *rep)
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
