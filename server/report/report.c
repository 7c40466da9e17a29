/*
 * report.c: choosing a report's format, and a combat report of any system
 * with its dice and roll log; see report.h.  Each system's outcome and
 * fates are its render stage in the table of systems (systems.h), in
 * systems/<system>/<system>_report.c.
 */
#include "report.h"
#include "report_doc.h"
#include "systems.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the format ---- */

/* The media types of the formats, in the order ties are broken. */
static const struct {
    const char *type, *subtype;
    report_format format;
} media[] = {
    {"application", "json", REPORT_JSON},
    {"text", "markdown", REPORT_MARKDOWN},
    {"text", "html", REPORT_HTML},
};

#define N_MEDIA (sizeof media / sizeof media[0])

/* The leading and trailing spaces of p[0..*n) trimmed. */
static const char *trim(const char *p, size_t *n)
{
    while (*n > 0 && (*p == ' ' || *p == '\t')) {
        p++;
        (*n)--;
    }
    while (*n > 0 && (p[*n - 1] == ' ' || p[*n - 1] == '\t'))
        (*n)--;
    return p;
}

/* p[0..n) is word, whatever its case. */
static bool is_word(const char *p, size_t n, const char *word)
{
    return n == strlen(word) && strncasecmp(p, word, n) == 0;
}

/* A qvalue ("0", "0.8", "1.000") in thousandths; false if malformed. */
static bool parse_q(const char *p, size_t n, int *q)
{
    size_t i;
    int v, scale = 100;

    if (n == 0 || (p[0] != '0' && p[0] != '1'))
        return false;
    v = (p[0] - '0') * 1000;
    if (n > 1 && (p[1] != '.' || n > 5))
        return false;
    for (i = 2; i < n; i++, scale /= 10) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v += (p[i] - '0') * scale;
    }
    *q = v;
    return v <= 1000;
}

/* The q of a range's parameters (p[0..n), after the media type); 1000
 * when none is given, false if one is malformed. */
static bool range_q(const char *p, size_t n, int *q)
{
    *q = 1000;
    while (n > 0) {
        const char *semi = memchr(p, ';', n);
        size_t len = semi ? (size_t)(semi - p) : n;
        size_t k = len;
        const char *param = trim(p, &k);
        if (k >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
            if (!parse_q(param + 2, k - 2, q))
                return false;
        }
        p += semi ? len + 1 : len;
        n -= semi ? len + 1 : len;
    }
    return true;
}

/*
 * One media range of an Accept header (p[0..n)): for each format it
 * names, its q, if it is more specific than the ranges seen before
 * (spec: 3 for type/subtype, 2 for type/x, 1 for x/x).
 */
static void accept_range(const char *p, size_t n, int spec[], int q[])
{
    const char *semi = memchr(p, ';', n), *end = p + n, *slash, *type;
    size_t len = semi ? (size_t)(semi - p) : n, t_len, s_len, f;
    int rq, s;

    type = trim(p, &len);
    slash = memchr(type, '/', len);
    if (slash == NULL || !range_q(semi ? semi + 1 : end,
                                  semi ? (size_t)(end - semi - 1) : 0, &rq))
        return;
    t_len = (size_t)(slash - type);
    s_len = len - t_len - 1;
    for (f = 0; f < N_MEDIA; f++) {
        if (is_word(type, t_len, "*") && is_word(slash + 1, s_len, "*"))
            s = 1;
        else if (!is_word(type, t_len, media[f].type))
            s = 0;
        else if (is_word(slash + 1, s_len, "*"))
            s = 2;
        else
            s = is_word(slash + 1, s_len, media[f].subtype) ? 3 : 0;
        if (s > spec[f] || (s > 0 && s == spec[f] && rq > q[f])) {
            spec[f] = s;
            q[f] = rq;
        }
    }
}

/* The format an Accept header prefers; JSON when it names none. */
static report_format accept_format(const char *accept)
{
    int spec[N_MEDIA] = {0}, q[N_MEDIA] = {0}, best_q = 0;
    report_format best = REPORT_JSON;
    const char *p = accept;
    size_t f;

    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        accept_range(p, n, spec, q);
        p += comma ? n + 1 : n;
    }
    for (f = 0; f < N_MEDIA; f++)
        if (spec[f] > 0 && q[f] > best_q) {
            best_q = q[f];
            best = media[f].format;
        }
    return best;
}

int report_format_choose(const char *query, const char *accept,
                         report_format *out)
{
    if (query == NULL) {
        *out = accept_format(accept);
        return 0;
    }
    if (strcmp(query, "json") == 0)
        *out = REPORT_JSON;
    else if (strcmp(query, "md") == 0 || strcmp(query, "markdown") == 0)
        *out = REPORT_MARKDOWN;
    else if (strcmp(query, "html") == 0)
        *out = REPORT_HTML;
    else
        return -1;
    return 0;
}

const char *report_content_type(report_format f)
{
    switch (f) {
    case REPORT_MARKDOWN: return "text/markdown; charset=utf-8";
    case REPORT_HTML: return "text/html; charset=utf-8";
    case REPORT_JSON: break;
    }
    return "application/json";
}

/* ---- parts every report shares ---- */

const char *report_doc_system_name(const char *system)
{
    static const char *const names[][2] = {
        {"scrud", "SCRUD"},   {"edna", "EDNA"},        {"scs", "SCS"},
        {"matrix", "Matrix"}, {"civ", "Civilization"},
    };
    size_t i;

    for (i = 0; system && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(system, names[i][0]) == 0)
            return names[i][1];
    return system;
}

/* How to check seeded dice whose seed is revealed, given where their
 * roll log is (REPORT_DOC_ROLLS_*). */
static void how_to_check(report_doc *d, int rolls_at)
{
    report_doc_para(d, "To check them: the SHA-256 of the server seed is the "
                       "commitment, and the server seed with the client seed "
                       "gives every natural of the roll log, in order.");
    if (rolls_at == REPORT_DOC_ROLLS_HERE)
        report_doc_add(d, " Save the JSON of this report and run "
                          "`umpire-verify` on it, or follow the service's "
                          "docs/dice.md.");
    else if (rolls_at == REPORT_DOC_ROLLS_IN_RECORD)
        report_doc_add(d, " The battle's record (its combat, under Links) "
                          "holds the roll log: save the record's JSON and "
                          "run `umpire-verify` on it, or follow the "
                          "service's docs/dice.md.");
}

/* Seeded dice: what they are and how anyone checks them. */
static void seeded_dice(report_doc *d, const json_t *dice, int rolls_at,
                        bool is_open)
{
    const char *seed = rj_str(dice, "server_seed");

    report_doc_item(d, "**Source:** seeded by the service");
    if (rj_str(dice, "rng"))
        report_doc_add(d, " (rng %s)", rj_str(dice, "rng"));
    if (rj_str(dice, "commitment"))
        report_doc_item(d, "**Commitment:** `%s`", rj_str(dice, "commitment"));
    if (seed)
        report_doc_item(d, "**Server seed:** `%s`", seed);
    else if (is_open)
        report_doc_item(d, "**Server seed:** secret until the battle is over");
    else
        report_doc_item(d, "**Server seed:** not shown");
    if (rj_str(dice, "client_seed"))
        report_doc_item(d, "**Client seed:** %s", rj_str(dice, "client_seed"));
    else
        report_doc_item(d, "**Client seed:** none");
    if (seed)
        how_to_check(d, rolls_at);
    else if (is_open)
        report_doc_para(d, "The commitment was shown before the first die: "
                           "once the battle is over the seed is revealed, and "
                           "anyone can check every die against it (the "
                           "service's docs/dice.md).");
}

void report_doc_dice(report_doc *d, const json_t *dice, int rolls_at,
                     bool is_open)
{
    const char *source = rj_str(dice, "source");

    report_doc_heading(d, 2, "Dice");
    if (source && strcmp(source, "seeded") == 0)
        seeded_dice(d, dice, rolls_at, is_open);
    else if (source && strcmp(source, "entered") == 0)
        report_doc_para(d, "**Source:** entered by the umpire from a real "
                           "table: recorded, not verifiable.");
    else if (source)
        report_doc_para(d, "**Source:** %s", source);
    else
        report_doc_para(d, "The report does not say how its dice were "
                           "rolled.");
}

/* A campaign combat's place in the campaign's ledger (docs/ledger.md). */
static void ledger(report_doc *d, const json_t *l)
{
    const json_t *first = rj_get(l, "first_pos"), *last = rj_get(l, "last_pos");

    if (!json_is_object(l))
        return;
    report_doc_item(d, "**Ledger:** ");
    if (json_is_integer(first) && json_is_integer(last) &&
        json_integer_value(first) != json_integer_value(last))
        report_doc_add(d, "entries %d\xE2\x80\x93%d",
                       (int)json_integer_value(first),
                       (int)json_integer_value(last));
    else if (json_is_integer(first))
        report_doc_add(d, "entry %d", (int)json_integer_value(first));
    else
        report_doc_add(d, "entries");
    if (rj_str(l, "hash"))
        report_doc_add(d, ", hash `%s`", rj_str(l, "hash"));
}

void report_doc_rolls(report_doc *d, const json_t *rolls)
{
    static const char *const head[] = {"#seq", "side",     "unit",     "reason",
                                       "#die", "#natural", "#modified"};
    report_doc_table t;
    const json_t *r;
    size_t i;

    if (!json_is_array(rolls))
        return;
    report_doc_heading(d, 2, "Rolls (%d)", (int)json_array_size(rolls));
    if (json_array_size(rolls) == 0) {
        report_doc_para(d, "No die was rolled.");
        return;
    }
    report_doc_table_init(&t, 7, head);
    json_array_foreach(rolls, i, r)
    {
        json_t *faces = rj_get(r, "faces");
        char die[24] = "";
        if (json_is_integer(faces))
            snprintf(die, sizeof die, "d%lld",
                     (long long)json_integer_value(faces));
        report_doc_table_int(&t, rj_get(r, "seq"));
        report_doc_table_cell(&t, rj_str(r, "side"));
        report_doc_table_cell(&t, rj_str(r, "unit"));
        report_doc_table_cell(&t, rj_str(r, "reason"));
        report_doc_table_cell(&t, die);
        report_doc_table_int(&t, rj_get(r, "natural"));
        report_doc_table_int(&t, rj_get(r, "modified"));
    }
    report_doc_table_write(d, &t);
    report_doc_table_cleanup(&t);
}

/* ---- a combat ---- */

/* The lines that place a combat: when, where, why. */
static void combat_head(report_doc *d, const json_t *c)
{
    json_t *turn = rj_get(c, "turn");

    if (rj_str(c, "created_at"))
        report_doc_item(d, "**When:** %s", rj_str(c, "created_at"));
    if (rj_str(c, "campaign_id"))
        report_doc_item(d, "**Campaign:** `%s`", rj_str(c, "campaign_id"));
    if (rj_str(c, "battle_id"))
        report_doc_item(d, "**Battle:** `%s`", rj_str(c, "battle_id"));
    if (json_is_integer(turn))
        report_doc_item(d, "**Turn:** %d", (int)json_integer_value(turn));
    if (rj_str(c, "note"))
        report_doc_item(d, "**Note:** %s", rj_str(c, "note"));
}

/* The system's outcome and fates: its render stage (systems.h). */
static void combat_body(report_doc *d, const json_t *c)
{
    const systems_entry *s = systems_find(rj_str(c, "system"));

    if (s != NULL) {
        s->render(d, c);
        return;
    }
    report_doc_heading(d, 2, "Outcome");
    report_doc_para(d, "This report's system is not one the service knows: "
                       "its outcome is not shown.");
}

/* What a combat of system is called: an EDNA combat is a test. */
static const char *combat_word(const char *system)
{
    return system && strcmp(system, "edna") == 0 ? "test" : "combat";
}

char *report_combat(const json_t *combat, report_format fmt)
{
    const char *system = rj_str(combat, "system"), *id = rj_str(combat, "id");
    const char *name = report_doc_system_name(system);
    text_buf title = {0};
    char *t;
    report_doc d;

    text_printf(&title, "%s %s %s", name ? name : "A", combat_word(system),
                id ? id : "");
    t = text_take(&title);
    report_doc_begin(&d, fmt, t ? t : "Combat");
    free(t);
    report_doc_heading(&d, 1, "%s %s", name ? name : "A", combat_word(system));
    if (id)
        report_doc_add(&d, " `%s`", id);
    combat_head(&d, combat);
    combat_body(&d, combat);
    report_doc_dice(&d, rj_get(combat, "dice"), REPORT_DOC_ROLLS_HERE, false);
    ledger(&d, rj_get(combat, "ledger"));
    report_doc_rolls(&d, rj_get(combat, "rolls"));
    return report_doc_end(&d);
}
