/*
 * report_campaign.c: a campaign's report (report.h), from the document
 * the service builds for GET /v1/campaigns/{cid}/report:
 *
 *   {"campaign": the campaign as served (id, name, created_at, and maybe
 *                "ledger": {"length", "head"} and "next_commitment"),
 *    "sides":    [{"id", "name", "exhausted_turn"}],
 *    "units":    [each unit as GET .../units serves it],
 *    "combats":  [{"id", "system", "created_at", "note", "dice_source",
 *                  "summary", "url"}], oldest first,
 *    "battles":  [{"id", "system", "status", "turn", "created_at",
 *                  "combat_id", "url"}],
 *    "share_url": "/share/<secret>", only when served through a share
 *                 link (link_line)}
 *
 * A combat's "summary" is the one line the service stores with it: plain
 * text, names as they are, so it is escaped like any text.  An entry may
 * instead carry the report's "summary_markdown", the service's own
 * Markdown, which is kept as Markdown (report_doc_service_md).
 */
#include "report.h"
#include "report_doc.h"

#include <string.h>

static const char *signed_sign(int v)
{
    return v > 0 ? "+" : "";
}

/* ---- units ---- */

/* What each system the unit plays says of it, briefly. */
static void unit_systems(report_doc *d, const json_t *u)
{
    const json_t *x;
    int a, b;

    if ((x = rj_get(u, "scrud")) && rj_num(x, "modifier", &a)) {
        report_doc_add(d, "; SCRUD modifier %d", a);
        if (rj_num(x, "defeat_penalty", &a) && rj_num(x, "fatigue_penalty", &b))
            report_doc_add(d, " (defeat penalty %d, fatigue penalty %d)", a, b);
    }
    if ((x = rj_get(u, "edna")) && rj_num(x, "edna", &a) &&
        rj_num(x, "start", &b))
        report_doc_add(d, "; EDNA %d of %d%s", a, b,
                       json_is_true(rj_get(x, "ineffective")) ? ", ineffective"
                                                              : "");
    if ((x = rj_get(u, "scs")) && rj_num(x, "steps_left", &a) &&
        rj_num(x, "steps", &b))
        report_doc_add(d, "; SCS %d of %d step%s left", a, b,
                       b == 1 ? "" : "s");
    if ((x = rj_get(u, "matrix")) && rj_num(x, "quality", &a))
        report_doc_add(d, "; Matrix quality %s%d", signed_sign(a), a);
    if ((x = rj_get(u, "civ")) && rj_str(x, "class") && rj_num(x, "era", &a))
        report_doc_add(d, "; Civilization %s, era %d", rj_str(x, "class"), a);
}

static void unit_line(report_doc *d, const json_t *u)
{
    report_doc_sub(
        d, "**%s**: ", rj_str(u, "name") ? rj_str(u, "name") : "unnamed");
    if (json_is_true(rj_get(u, "eliminated"))) {
        report_doc_add(d, "**eliminated**");
        if (rj_str(u, "eliminated_reason"))
            report_doc_add(d, " (%s)", rj_str(u, "eliminated_reason"));
        if (rj_str(u, "eliminated_by"))
            report_doc_add(d, " by `%s`", rj_str(u, "eliminated_by"));
    } else {
        report_doc_add(d, "in play");
    }
    unit_systems(d, u);
}

/* A unit's side is one of the report's sides. */
static bool has_side(const json_t *sides, const json_t *u)
{
    const char *id = rj_str(rj_get(u, "side"), "id");
    const json_t *s;
    size_t i;

    json_array_foreach(sides, i,
                       s) if (rj_is_eq(rj_str(s, "id"), id)) return true;
    return false;
}

/* Each side with its units and their standing; units of no side listed
 * come last. */
static void sides(report_doc *d, const json_t *rep)
{
    const json_t *all = rj_get(rep, "sides"), *units = rj_get(rep, "units"), *s,
                 *u;
    size_t i, k;
    bool has_other = false;
    int turn;

    report_doc_heading(d, 2, "Sides and units");
    json_array_foreach(all, i, s)
    {
        report_doc_item(d, "**%s**",
                        rj_str(s, "name") ? rj_str(s, "name") : "?");
        if (rj_num(s, "exhausted_turn", &turn))
            report_doc_add(d, ", exhausted for turn %d", turn);
        json_array_foreach(units, k,
                           u) if (rj_is_eq(rj_str(rj_get(u, "side"), "id"),
                                           rj_str(s, "id"))) unit_line(d, u);
    }
    json_array_foreach(units, k, u)
    {
        if (has_side(all, u))
            continue;
        if (!has_other)
            report_doc_item(d, "**Units of no side listed**");
        has_other = true;
        unit_line(d, u);
    }
    if (json_array_size(all) == 0 && !has_other)
        report_doc_para(d, "No side.");
}

/* ---- combats and battles ---- */

/*
 * A combat's or a battle's "Link:" line (docs/console.md, "Share links"):
 * a page a reader can open, never the API's path, which needs a token.
 * Served through a share link, the document carries "share_url"
 * ("/share/<secret>", added by server/resources/shares.c) and the line
 * points at that page's entry for the record (#combat-<id>,
 * #battle-<id>), which needs no token either; otherwise at the console's
 * page for it (/#/reports/<id>, /#/battles/<id>), where a token holder
 * signs in.
 */
static void link_line(report_doc *d, const json_t *rep, const char *kind,
                      const char *id)
{
    const char *share = rj_str(rep, "share_url");

    if (id == NULL)
        return;
    if (share != NULL && strncmp(share, "/share/", 7) == 0)
        report_doc_sub(d, "Link: `%s#%s-%s`", share, kind, id);
    else
        report_doc_sub(d, "Link: `/#/%s/%s`",
                       strcmp(kind, "combat") == 0 ? "reports" : "battles",
                       id);
}

static void combats(report_doc *d, const json_t *rep)
{
    const json_t *all = rj_get(rep, "combats"), *c;
    size_t i;

    report_doc_heading(d, 2, "Combats (%d)", (int)json_array_size(all));
    if (json_array_size(all) == 0)
        report_doc_para(d, "No combat yet.");
    json_array_foreach(all, i, c)
    {
        const char *name = report_doc_system_name(rj_str(c, "system"));
        report_doc_item(d, "**%d.** ", (int)i + 1);
        if (rj_str(c, "created_at"))
            report_doc_add(d, "%s: ", rj_str(c, "created_at"));
        report_doc_add(d, "%s combat", name ? name : "a");
        if (rj_str(c, "id"))
            report_doc_add(d, " `%s`", rj_str(c, "id"));
        if (rj_str(c, "dice_source"))
            report_doc_add(d, ", %s dice", rj_str(c, "dice_source"));
        if (rj_str(c, "note"))
            report_doc_add(d, "; note: %s", rj_str(c, "note"));
        if (rj_str(c, "summary_markdown")) {
            report_doc_service_md(d, rj_str(c, "summary_markdown"));
        } else if (rj_str(c, "summary") && rj_str(c, "summary")[0]) {
            report_doc_newline(d);
            report_doc_add(d, "%s", rj_str(c, "summary"));
        }
        link_line(d, rep, "combat", rj_str(c, "id"));
    }
}

static void battles(report_doc *d, const json_t *rep)
{
    const json_t *all = rj_get(rep, "battles"), *b;
    size_t i;
    int turn;

    if (!json_is_array(all))
        return;
    report_doc_heading(d, 2, "Battles (%d)", (int)json_array_size(all));
    if (json_array_size(all) == 0)
        report_doc_para(d, "No battle yet.");
    json_array_foreach(all, i, b)
    {
        const char *name = report_doc_system_name(rj_str(b, "system"));
        report_doc_item(d, "%s battle", name ? name : "A");
        if (rj_str(b, "id"))
            report_doc_add(d, " `%s`", rj_str(b, "id"));
        if (rj_num(b, "turn", &turn))
            report_doc_add(d, ", turn %d", turn);
        if (rj_str(b, "status"))
            report_doc_add(d, ", %s", rj_str(b, "status"));
        if (rj_str(b, "created_at"))
            report_doc_add(d, " (created %s)", rj_str(b, "created_at"));
        if (rj_str(b, "combat_id"))
            report_doc_sub(d, "Record: combat `%s`", rj_str(b, "combat_id"));
        link_line(d, rep, "battle", rj_str(b, "id"));
    }
}

/* The ledger's head and the next seed's commitment, when shown. */
static void ledger(report_doc *d, const json_t *cmp)
{
    const json_t *l = rj_get(cmp, "ledger");
    int n;

    if (!json_is_object(l) && !rj_str(cmp, "next_commitment"))
        return;
    report_doc_heading(d, 2, "Ledger");
    if (rj_num(l, "length", &n))
        report_doc_item(d, "**Entries:** %d", n);
    if (rj_str(l, "head"))
        report_doc_item(d, "**Head:** `%s`", rj_str(l, "head"));
    if (rj_str(cmp, "next_commitment"))
        report_doc_item(d, "**Next commitment:** `%s`",
                        rj_str(cmp, "next_commitment"));
    report_doc_para(d, "Every die of the campaign is chained in its ledger: "
                       "anyone holding this head can tell later whether the "
                       "record was rewritten (the service's docs/ledger.md).");
}

char *report_campaign(const json_t *report, report_format fmt)
{
    const json_t *cmp = rj_get(report, "campaign");
    const char *name = rj_str(cmp, "name");
    report_doc d;

    report_doc_begin(&d, fmt, name ? name : "Campaign");
    report_doc_heading(&d, 1, "%s", name ? name : "Campaign");
    if (rj_str(cmp, "id"))
        report_doc_item(&d, "**Campaign:** `%s`", rj_str(cmp, "id"));
    if (rj_str(cmp, "created_at"))
        report_doc_item(&d, "**Created:** %s", rj_str(cmp, "created_at"));
    sides(&d, report);
    combats(&d, report);
    battles(&d, report);
    ledger(&d, cmp);
    return report_doc_end(&d);
}
