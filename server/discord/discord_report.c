/*
 * discord_report.c: a combat's report as a Discord embed; see
 * discord_report.h.  Everything shown comes from the report's JSON, each
 * name made safe for chat Markdown; what is read is checked for its type,
 * and a report of an unknown shape still gets its summary.
 */
#include "discord_report.h"

#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MD (4 * 64 + 1) /* a name escaped for Markdown */

/* ---- reading the report ---- */

static const json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(get(o, k));

    return s ? s : "";
}

static long long num(const json_t *o, const char *k)
{
    return json_integer_value(get(o, k));
}

/* o's member k, a name, made safe for Markdown into out. */
static const char *md(char out[NAME_MD], const json_t *o, const char *k)
{
    discord_reply_md(out, NAME_MD, str(o, k));
    return out;
}

const char *discord_report_signed(char out[24], long long n)
{
    snprintf(out, 24, "%s%lld", n < 0 ? "-" : "+", n < 0 ? -n : n);
    return out;
}

/* Appends printf-style text (a line at most 1 KiB) to b. */
static void add(text_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add(text_buf *b, const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    text_printf(b, "%s", line);
}

void discord_report_where(char *out, size_t n, const char *campaign_id,
                          const char *combat_id)
{
    snprintf(out, n,
             "Full report: GET /v1/campaigns/%s/combats/%s?format=md (any "
             "token of the campaign); check it with /check combat:%s or "
             "umpire-verify.",
             campaign_id, combat_id, combat_id);
}

void discord_report_fields(discord_embed *em, const char *name,
                           const char *text)
{
    const char *p = text ? text : "";
    char title[2 * NAME_MD + 64];
    int part = 1;

    while (*p) {
        size_t len = 0, units = 0, line = 0;
        char *value;
        /* Whole lines while they fit in a field's value. */
        while (p[len]) {
            const char *nl = strchr(p + len, '\n');
            size_t l = nl ? (size_t)(nl - (p + len)) + 1 : strlen(p + len);
            char *piece = strndup(p + len, l);
            size_t u = piece ? discord_reply_len(piece) : l;
            free(piece);
            if (units + u > DISCORD_REPLY_FIELD_VALUE_MAX && line > 0)
                break;
            units += u;
            len += l;
            line++;
        }
        value = strndup(p, len);
        if (part == 1)
            snprintf(title, sizeof title, "%s", name);
        else
            snprintf(title, sizeof title, "%s (%d)", name, part);
        if (value == NULL || !discord_reply_embed_field(em, title, value,
                                                        false)) {
            free(value);
            /* The rest is counted as left out: one more at least. */
            return;
        }
        free(value);
        p += len;
        part++;
    }
}

/* The footer: the combat, its dice and how to check them, into out. */
static void footer(char *out, size_t n, const json_t *report)
{
    const json_t *dice = get(report, "dice");
    const char *cs = str(dice, "client_seed");

    if (strcmp(str(dice, "source"), "seeded") == 0)
        snprintf(out, n,
                 "Combat %s \xC2\xB7 dice seeded (rng %s), commitment %s, "
                 "seed %s%s%s",
                 str(report, "id"), str(dice, "rng"), str(dice, "commitment"),
                 str(dice, "server_seed"), cs[0] ? ", client seed " : "", cs);
    else
        snprintf(out, n, "Combat %s \xC2\xB7 dice entered at the table",
                 str(report, "id"));
}

/* ---- SCRUD ---- */

static void scrud_units(text_buf *b, const json_t *side)
{
    const json_t *u;
    char name[NAME_MD], q[24], m[24], p[24];
    size_t i;

    json_array_foreach(get(side, "units"), i, u) {
        add(b, "%s: d%lld **%lld**, quality %s, modifier %s, penalties %s",
            md(name, u, "unit"), num(u, "faces"), num(u, "natural"),
            discord_report_signed(q, num(u, "quality")),
            discord_report_signed(m, num(u, "combat_modifier")),
            discord_report_signed(p, num(get(u, "before"), "modifier")));
        if (json_is_true(get(u, "reserve")))
            add(b, ", reserve %s",
                discord_report_signed(q, num(u, "reserve_bonus")));
        add(b, " \xE2\x86\x92 %lld", num(u, "score"));
        if (num(u, "defeats") > 0)
            add(b, ", %lld defeat%s", num(u, "defeats"),
                num(u, "defeats") == 1 ? "" : "s");
        if (json_is_string(get(u, "eliminated")))
            add(b, ", **eliminated** (%s)", str(u, "eliminated"));
        add(b, "\n");
    }
}

static void scrud(discord_embed *em, const json_t *report)
{
    const json_t *sides = get(report, "sides"), *s, *x;
    char a[NAME_MD], bn[NAME_MD], title[2 * NAME_MD + 16], mod[24];
    text_buf t = {0}, pairs = {0};
    size_t i, k, n_elim = 0;

    snprintf(title, sizeof title, "SCRUD: %s vs %s",
             md(a, json_array_get(sides, 0), "name"),
             md(bn, json_array_get(sides, 1), "name"));
    discord_reply_embed_title(em, title);
    /* The result first: defeats, then eliminations. */
    json_array_foreach(sides, i, s) {
        add(&t, "**%s**: %lld defeat%s\n", md(a, s, "name"),
            num(s, "defeats_suffered"),
            num(s, "defeats_suffered") == 1 ? "" : "s");
    }
    json_array_foreach(sides, i, s) json_array_foreach(get(s, "eliminated"), k,
                                                       x) {
        add(&t, "%s **%s** eliminated (%s)\n", n_elim ? "" : "\n",
            md(a, x, "unit"), str(x, "reason"));
        n_elim++;
    }
    if (n_elim == 0)
        add(&t, "No unit eliminated.\n");
    json_array_foreach(get(report, "pairs"), i, x) {
        add(&pairs, "%s %lld vs %s %lld: %s\n", md(a, x, "first"),
            num(x, "first_score"), md(bn, x, "second"),
            num(x, "second_score"), str(x, "winner"));
    }
    json_array_foreach(get(report, "extra"), i, x) {
        if (json_is_string(get(x, "defeated")))
            add(&pairs, "extra die: %s %lld defeats %s\n", md(a, x, "unit"),
                num(x, "score"), md(bn, x, "defeated"));
        else
            add(&pairs, "extra die: %s %lld, %s\n", md(a, x, "unit"),
                num(x, "score"), str(x, "result"));
    }
    {
        char *text = text_take(&t);
        discord_reply_embed_text(em, text);
        free(text);
    }
    {
        char *text = text_take(&pairs);
        discord_report_fields(em, "Pairs", text);
        free(text);
    }
    json_array_foreach(sides, i, s) {
        text_buf u = {0};
        char *text;
        snprintf(title, sizeof title, "%s dice (side modifier %s)",
                 md(a, s, "name"),
                 discord_report_signed(mod, num(s, "modifier")));
        scrud_units(&u, s);
        text = text_take(&u);
        discord_report_fields(em, title, text);
        free(text);
    }
}

/* ---- EDNA ---- */

static void edna(discord_embed *em, const json_t *report)
{
    const json_t *x, *d;
    char name[NAME_MD], m[24], title[64];
    text_buf t = {0}, dice = {0};
    size_t i, k, n_failed = 0, n_out = 0;
    char *text;

    snprintf(title, sizeof title, "EDNA tests (%lldd%lld)",
             num(get(report, "options"), "dice"),
             num(get(report, "options"), "faces"));
    discord_reply_embed_title(em, title);
    json_array_foreach(get(report, "tests"), i, x) {
        bool is_passed = json_is_true(get(x, "passed"));
        add(&t, "%s: **%s**, EDNA %lld", md(name, x, "unit"),
            is_passed ? "passed" : "failed", num(x, "edna_before"));
        if (num(x, "edna_after") != num(x, "edna_before"))
            add(&t, " \xE2\x86\x92 %lld", num(x, "edna_after"));
        if (json_is_true(get(x, "ineffective"))) {
            add(&t, ", **ineffective**");
            n_out++;
        }
        add(&t, "\n");
        n_failed += !is_passed;
        add(&dice, "%s: ", name);
        json_array_foreach(get(x, "naturals"), k, d)
            add(&dice, "%s%lld", k ? "+" : "", (long long)json_integer_value(d));
        if (num(x, "modifier") != 0)
            add(&dice, " %s", discord_report_signed(m, num(x, "modifier")));
        add(&dice, " = %lld against %lld\n", num(x, "total"),
            num(x, "edna_before"));
    }
    add(&t, "\n%zu tested, %zu failed, %zu ineffective.",
        json_array_size(get(report, "tests")), n_failed, n_out);
    text = text_take(&t);
    discord_reply_embed_text(em, text);
    free(text);
    text = text_take(&dice);
    discord_report_fields(em, "Dice (with modifiers)", text);
    free(text);
}

/* ---- SCS ---- */

static void scs_units(text_buf *b, const json_t *units)
{
    const json_t *u, *m;
    char name[NAME_MD];
    size_t i, k;

    json_array_foreach(units, i, u) {
        add(b, "%s: %lld", md(name, u, "unit"), num(u, "strength"));
        json_array_foreach(get(u, "multipliers"), k, m)
            add(b, " \xC3\x97%s", json_is_string(m) ? json_string_value(m)
                                                    : "?");
        add(b, " = %s", str(get(u, "value"), "fraction"));
        if (num(u, "lost") > 0)
            add(b, ", loses %lld step%s", num(u, "lost"),
                num(u, "lost") == 1 ? "" : "s");
        if (json_is_true(get(u, "eliminated")))
            add(b, ", **eliminated**");
        add(b, "\n");
    }
}

static void scs(discord_embed *em, const json_t *report)
{
    const json_t *roll = get(report, "roll"), *d, *x;
    char title[NAME_MD + 32], name[NAME_MD];
    text_buf t = {0}, b = {0};
    size_t i;
    char *text;

    snprintf(title, sizeof title, "SCS combat on %s",
             md(name, get(report, "table"), "name"));
    discord_reply_embed_title(em, title);
    add(&t, "**%s**: roll %lld (", str(report, "result"), num(roll, "value"));
    json_array_foreach(get(roll, "dice"), i, d)
        add(&t, "%s%lld", i ? "+" : "", (long long)json_integer_value(d));
    add(&t, ", %s) on %s, odds %s (attack %s against defense %s)\n",
        str(roll, "kind"), str(report, "column"), str(report, "odds"),
        str(get(report, "attack_total"), "fraction"),
        str(get(report, "defense_total"), "fraction"));
    add(&t, "Defender: %lld step%s lost, retreat %lld. Attacker: %lld step%s "
            "lost, retreat %lld.\n",
        num(get(report, "defender"), "steps"),
        num(get(report, "defender"), "steps") == 1 ? "" : "s",
        num(get(report, "defender"), "retreat_hexes"),
        num(get(report, "attacker"), "steps"),
        num(get(report, "attacker"), "steps") == 1 ? "" : "s",
        num(get(report, "attacker"), "retreat_hexes"));
    json_array_foreach(get(report, "eliminated"), i, x) {
        discord_reply_md(name, sizeof name, json_string_value(x));
        add(&t, "**%s** eliminated\n", name);
    }
    if (json_is_true(get(get(report, "advance"), "allowed")))
        add(&t, "Advance: %lld hex%s.\n",
            num(get(report, "advance"), "hexes"),
            num(get(report, "advance"), "hexes") == 1 ? "" : "es");
    text = text_take(&t);
    discord_reply_embed_text(em, text);
    free(text);
    scs_units(&b, get(report, "attackers"));
    text = text_take(&b);
    discord_report_fields(em, "Attackers", text);
    free(text);
    memset(&b, 0, sizeof b);
    scs_units(&b, get(report, "defenders"));
    text = text_take(&b);
    discord_report_fields(em, "Defenders", text);
    free(text);
}

/* ---- any other: a battle's record (Matrix, Civilization) ---- */

static void summary(discord_embed *em, const json_t *report)
{
    char title[64];

    snprintf(title, sizeof title, "%s battle",
             strcmp(str(report, "system"), "civ") == 0 ? "Civilization"
                                                        : "Matrix");
    discord_reply_embed_title(em, title);
    discord_reply_embed_text(em, str(report, "summary_markdown"));
}

json_t *discord_report_combat(const json_t *report, const char *campaign_id)
{
    static const struct {
        const char *system;
        void (*render)(discord_embed *em, const json_t *report);
        int color;
    } systems[] = {{"scrud", scrud, 0x2f6f9f},
                   {"edna", edna, 0x8a5a00},
                   {"scs", scs, 0x4b7a3a}};
    const char *sys = str(report, "system");
    char where[512], foot[640];
    discord_embed em;
    size_t i;

    discord_report_where(where, sizeof where, campaign_id, str(report, "id"));
    footer(foot, sizeof foot, report);
    for (i = 0; i < sizeof systems / sizeof systems[0]; i++)
        if (strcmp(sys, systems[i].system) == 0)
            break;
    discord_reply_embed_init(&em, NULL, i < 3 ? systems[i].color : 0x7a3a6a,
                             foot, where);
    if (i < 3)
        systems[i].render(&em, report);
    else
        summary(&em, report);
    if (json_is_string(get(report, "note")) && str(report, "note")[0])
        discord_reply_embed_field(&em, "Note", str(report, "note"), false);
    return discord_reply_embed_take(&em);
}
