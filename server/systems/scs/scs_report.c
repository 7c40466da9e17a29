/*
 * scs_report.c: the odds, the result of an SCS combat and what happened
 * to each of its units, from its report (scs_combat.c); see scs_report.h.
 * The words follow docs/rules/scs.md.
 */
#include "scs_report.h"

#include <string.h>

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
    if (rj_str(u, "fog")) {
        /* Fog of war shows this reader its name, and at "status" its
         * elimination (fog.h); the losses above say the rest. */
        if (rj_is_true(u, "eliminated"))
            report_doc_add(d, ": **eliminated**");
        return;
    }
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

void scs_report_render(report_doc *d, const json_t *rep)
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
