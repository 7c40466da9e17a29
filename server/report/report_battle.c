/*
 * report_battle.c: a battle as it stands (open, finished, escalated,
 * abandoned), of any system fought as battles: what every battle has
 * (status, turn, dice, links), and its system's part from the table of
 * systems (systems.h: each system's battle renderer, e.g.
 * systems/matrix/matrix_report.c); see report.h and report_doc.h.
 */
#include "report.h"
#include "report_doc.h"
#include "systems.h"

#include <stdlib.h>
#include <string.h>

/* ---- a battle ---- */

static const char *status_words(const char *status)
{
    if (rj_is_eq(status, "open"))
        return "open, being fought";
    if (rj_is_eq(status, "finished"))
        return "finished";
    if (rj_is_eq(status, "escalated"))
        return "escalated: the skirmish became an open battle";
    if (rj_is_eq(status, "abandoned"))
        return "abandoned: ended with no result, nothing happened to its "
               "units";
    return status;
}

static void battle_head(report_doc *d, const json_t *b)
{
    int turn, n;

    if (rj_str(b, "status"))
        report_doc_item(d, "**Status:** %s", status_words(rj_str(b, "status")));
    if (rj_num(b, "turn", &turn))
        report_doc_item(d, "**Turn:** %d", turn);
    if (rj_str(b, "campaign_id"))
        report_doc_item(d, "**Campaign:** `%s`", rj_str(b, "campaign_id"));
    if (rj_str(b, "created_at"))
        report_doc_item(d, "**Created:** %s", rj_str(b, "created_at"));
    if (rj_str(b, "updated_at"))
        report_doc_item(d, "**Updated:** %s", rj_str(b, "updated_at"));
    if (rj_num(b, "n_actions", &n))
        report_doc_item(d, "**Actions so far:** %d", n);
    if (rj_str(b, "note"))
        report_doc_item(d, "**Note:** %s", rj_str(b, "note"));
}

/* The record and the battles this one is linked to, by id. */
static void battle_links(report_doc *d, const json_t *b)
{
    if (!rj_str(b, "combat_id") && !rj_str(b, "escalated_from") &&
        !rj_str(b, "escalated_to"))
        return;
    report_doc_heading(d, 2, "Links");
    if (rj_str(b, "combat_id"))
        report_doc_item(d, "**Record:** combat `%s`", rj_str(b, "combat_id"));
    if (rj_str(b, "escalated_from"))
        report_doc_item(d, "**Escalated from:** the skirmish `%s`",
                        rj_str(b, "escalated_from"));
    if (rj_str(b, "escalated_to"))
        report_doc_item(d, "**Escalated to:** the battle `%s`",
                        rj_str(b, "escalated_to"));
}

/* The battle's system: as it says, or as its members show. */
static const char *battle_system(const json_t *b)
{
    if (rj_str(b, "system"))
        return rj_str(b, "system");
    if (rj_get(b, "phases"))
        return "civ";
    return rj_get(b, "combats") ? "matrix" : NULL;
}

char *report_battle(const json_t *battle, report_format fmt)
{
    const char *system = battle_system(battle);
    const char *name = report_doc_system_name(system);
    text_buf title = {0};
    char *t;
    report_doc d;

    text_printf(&title, "%s battle %s", name ? name : "A",
                rj_str(battle, "id") ? rj_str(battle, "id") : "");
    t = text_take(&title);
    report_doc_begin(&d, fmt, t ? t : "Battle");
    free(t);
    report_doc_heading(&d, 1, "%s battle", name ? name : "A");
    if (rj_str(battle, "id"))
        report_doc_add(&d, " `%s`", rj_str(battle, "id"));
    battle_head(&d, battle);
    {
        const systems_entry *sys = systems_find(system);
        if (sys != NULL && sys->battle != NULL)
            sys->battle->render(&d, battle);
    }
    report_doc_dice(&d, rj_get(battle, "dice"),
                    rj_str(battle, "combat_id") ? REPORT_DOC_ROLLS_IN_RECORD
                                                : REPORT_DOC_ROLLS_NONE,
                    rj_is_eq(rj_str(battle, "status"), "open"));
    battle_links(&d, battle);
    return report_doc_end(&d);
}
