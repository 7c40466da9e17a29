/*
 * civ_report.c: Civilization's part of a battle's report and of the
 * record a battle leaves (one-off or campaign): the phases, who won, and
 * what became of every piece, from the JSON of civ_json.c; see
 * civ_report.h.  Phases are counted from 1, as the service's summaries
 * count them.
 */
#include "civ_report.h"

#include <string.h>

/* The phase (from 1) that destroyed name of army a, or 0. */
static int civ_destroyed_in(const json_t *phases, int a, const char *name)
{
    const json_t *p, *v;
    size_t i, k;

    json_array_foreach(phases, i, p) json_array_foreach(
        rj_get(rj_get(p, rj_army_key[a]), "destroyed"), k,
        v) if (rj_is_eq(json_string_value(v), name)) return (int)i +
        1;
    return 0;
}

static void civ_piece(report_doc *d, const json_t *u)
{
    int era, v;

    if (rj_str(u, "fog"))
        return; /* fog of war hides the piece from this reader (fog.h) */
    report_doc_add(d, " (%s",
                   rj_str(u, "class") ? rj_str(u, "class") : "piece");
    if (rj_num(u, "era", &era))
        report_doc_add(d, ", era %d", era);
    if (rj_num(u, "bonus", &v) && v != 0)
        report_doc_add(d, ", bonus %s%d", v > 0 ? "+" : "", v);
    if (rj_num(u, "dice_multiplier", &v) && v != 1)
        report_doc_add(d, ", dice \xC3\x97%d", v);
    report_doc_add(d, ")");
}

/* Each army with its pieces and what became of each. */
static void civ_units(report_doc *d, const json_t *state, const json_t *setup)
{
    const json_t *u;
    size_t i;
    int a, tech, phase;

    report_doc_heading(d, 2, "Armies");
    for (a = 0; a < 2; a++) {
        const json_t *army = rj_get(setup, rj_army_key[a]);
        report_doc_item(d, "**%s: %s**", rj_army_label[a],
                        rj_name_of(army, "name"));
        if (rj_num(army, "technologies", &tech) && tech > 0)
            report_doc_add(d, ", %d technolog%s", tech,
                           tech == 1 ? "y" : "ies");
        json_array_foreach(rj_get(army, "units"), i, u)
        {
            report_doc_sub(d, "**%s**", rj_name_of(u, "name"));
            civ_piece(d, u);
            phase =
                civ_destroyed_in(rj_get(state, "phases"), a, rj_str(u, "name"));
            if (phase > 0)
                report_doc_add(d, ": **destroyed** in phase %d", phase);
            else
                report_doc_add(d, ": %s",
                               rj_is_true(state, "over") ? "survived"
                                                         : "still standing");
        }
    }
}

/* The terms of an army's total that are not 0. */
static void civ_terms(report_doc *d, const json_t *terms)
{
    static const char *const keys[][2] = {
        {"base", "base"},   {"aircraft", "aircraft"},
        {"bonus", "bonus"}, {"science", "science"},
        {"cia", "CIA"},     {"settlement", "settlement"},
    };
    size_t i, k = 0;
    int v;

    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (!rj_num(terms, keys[i][0], &v) || (v == 0 && i > 0))
            continue;
        if (k++)
            report_doc_add(d, ", %s %d", keys[i][1], v);
        else
            report_doc_add(d, " (%s %d", keys[i][1], v);
    }
    if (k)
        report_doc_add(d, ")");
}

/* One army's part of a phase. */
static void civ_army_phase(report_doc *d, const json_t *p, int a,
                           const json_t *setup)
{
    const json_t *x = rj_get(p, rj_army_key[a]), *v;
    size_t k;
    int total;

    report_doc_sub(d, "%s (%s): wave ", rj_army_label[a],
                   rj_name_of(rj_get(setup, rj_army_key[a]), "name"));
    rj_names(d, rj_get(x, "wave"));
    if (json_array_size(rj_get(x, "aircraft")) > 0) {
        report_doc_add(d, "; aircraft ");
        rj_names(d, rj_get(x, "aircraft"));
        if (rj_str(x, "aircraft_support"))
            report_doc_add(d, " supporting %s", rj_str(x, "aircraft_support"));
    }
    report_doc_add(d, "; dice");
    json_array_foreach(rj_get(x, "dice"), k, v)
        report_doc_add(d, "%s %d", k ? "," : "", (int)json_integer_value(v));
    if (rj_num(x, "total", &total))
        report_doc_add(d, "; total %d", total);
    civ_terms(d, rj_get(x, "terms"));
    if (json_array_size(rj_get(x, "destroyed")) > 0) {
        report_doc_add(d, "; loses ");
        rj_names(d, rj_get(x, "destroyed"));
    } else {
        report_doc_add(d, "; loses nothing");
    }
}

static void civ_phases(report_doc *d, const json_t *state, const json_t *setup)
{
    const json_t *p;
    size_t i;
    int t0, t1;

    report_doc_heading(d, 2, "Phases");
    if (json_array_size(rj_get(state, "phases")) == 0)
        report_doc_para(d, "No phase fought yet.");
    json_array_foreach(rj_get(state, "phases"), i, p)
    {
        report_doc_item(d, "**Phase %d**", (int)i + 1);
        if (rj_num(rj_get(p, "attacker"), "total", &t0) &&
            rj_num(rj_get(p, "defender"), "total", &t1))
            report_doc_add(d, ": attacker %d, defender %d", t0, t1);
        civ_army_phase(d, p, 0, setup);
        civ_army_phase(d, p, 1, setup);
    }
}

/* Who won, after how many phases, or why it is not over. */
static void civ_outcome(report_doc *d, const json_t *state, const json_t *setup)
{
    int n = (int)json_array_size(rj_get(state, "phases"));
    int w = rj_army_index(rj_str(state, "winner"));
    const char *s = n == 1 ? "" : "s";

    if (rj_is_true(state, "over") && w >= 0)
        report_doc_para(
            d, "**The %s (%s) wins** after %d phase%s.", rj_army_key[w],
            rj_name_of(rj_get(setup, rj_army_key[w]), "name"), n, s);
    else if (rj_is_true(state, "over"))
        report_doc_para(d, "**Both armies are destroyed** after %d phase%s.", n,
                        s);
    else if (rj_is_true(state, "unresolved"))
        report_doc_para(d,
                        "**Unresolved** after %d phase%s: the phase limit "
                        "came first.",
                        n, s);
    else
        report_doc_para(d, "Not over yet: %d phase%s fought.", n, s);
}

/* The battle's options: era, settlement, Great Wall (into the block
 * open). */
static void civ_options(report_doc *d, const json_t *setup)
{
    int era;

    if (!rj_num(setup, "current_era", &era))
        return;
    report_doc_add(d, "era %d", era);
    if (rj_is_true(setup, "settlement"))
        report_doc_add(d, ", the defender holds a settlement");
    if (rj_is_true(setup, "great_wall"))
        report_doc_add(d, ", with the Great Wall");
}

/* A record's setup: the campaign battle's "input.setup", or the one-off's
 * "input" itself. */
static const json_t *civ_record_setup(const json_t *rep)
{
    const json_t *input = rj_get(rep, "input");

    return json_is_object(rj_get(input, "setup")) ? rj_get(input, "setup")
                                                  : input;
}

void civ_report_render(report_doc *d, const json_t *rep)
{
    const json_t *setup = civ_record_setup(rep);

    report_doc_heading(d, 2, "Outcome");
    civ_outcome(d, rep, setup);
    if (rj_get(setup, "current_era")) {
        report_doc_para(d, "Fought in ");
        civ_options(d, setup);
        report_doc_add(d, ".");
    }
    civ_phases(d, rep, setup);
    civ_units(d, rep, setup);
}

void civ_report_battle(report_doc *d, const json_t *b)
{
    const json_t *setup = rj_get(b, "setup"), *next = rj_get(b, "next_wave");
    int size;

    if (rj_get(setup, "current_era")) {
        report_doc_item(d, "**Options:** ");
        civ_options(d, setup);
    }
    civ_units(d, b, setup);
    civ_phases(d, b, setup);
    if (json_is_object(next) && rj_num(next, "size", &size)) {
        if (rj_str(next, "picked_by"))
            report_doc_para(d, "Next phase: the %s picks a wave of %d.",
                            rj_str(next, "picked_by"), size);
        else
            report_doc_para(d,
                            "Next phase: both armies send everything (%d "
                            "each).",
                            size);
    }
    report_doc_heading(d, 2, "Result");
    if (rj_is_eq(rj_str(b, "status"), "abandoned"))
        report_doc_para(d, "Abandoned: no result.");
    else
        civ_outcome(d, b, setup);
}
