/*
 * edna_report.c: the outcome of EDNA tests and what became of each unit
 * tested, from its report (edna_stages.c); see edna_report.h.
 * The words follow docs/rules/edna.md.
 */
#include "edna_report.h"

#include <string.h>

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
    if (rj_str(t, "fog")) {
        /* Fog of war hides its test from this reader (fog.h). */
        report_doc_add(d, ": tested");
        return;
    }
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

void edna_report_render(report_doc *d, const json_t *rep)
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
