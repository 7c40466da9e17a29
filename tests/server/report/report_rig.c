/*
 * report_rig.c: the rig of the report suite (test_report.c, beside it);
 * see report_rig.h.  The escaping models are written apart from
 * server/report/report.c on purpose: a test compares the real thing with
 * them.
 */
#include "report_rig.h"

#include <check.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- documents the test keeps until teardown ---- */

static char *g_docs[4096];
static size_t g_n_docs;

static char *keep(char *doc)
{
    ck_assert_msg(doc != NULL, "%s: a renderer returned NULL", rig_ctx);
    if (g_n_docs < sizeof g_docs / sizeof g_docs[0])
        g_docs[g_n_docs++] = doc;
    return doc;
}

/* Frees the documents kept; odd-input checks free their own as they go. */
static void docs_free(void)
{
    while (g_n_docs > 0)
        free(g_docs[--g_n_docs]);
}

void report_rig_pure_setup(void)
{
    rig_ctx[0] = '\0';
}

void report_rig_pure_teardown(void)
{
    docs_free();
}

void report_rig_live_setup(void)
{
    scs_rig_setup();
}

void report_rig_live_teardown(void)
{
    docs_free();
    scs_rig_teardown();
}

/* ---- the reference escaping and what every document must be ---- */

/* s escaped as the reports escape text: Markdown backslashes each mark
 * character (new). */
char *report_rig_md_model(const char *s)
{
    char *out = malloc(2 * strlen(s) + 1), *p = out;

    ck_assert_ptr_nonnull(out);
    for (; *s; s++) {
        if (strchr("\\`*_~|>#[]()<", *s))
            *p++ = '\\';
        *p++ = *s;
    }
    *p = '\0';
    return out;
}

/* HTML: & < > " ' as entities (new). */
char *report_rig_html_model(const char *s)
{
    char *out = malloc(6 * strlen(s) + 1), *p = out;

    ck_assert_ptr_nonnull(out);
    for (; *s; s++) {
        const char *e = *s == '&'    ? "&amp;"
                        : *s == '<'  ? "&lt;"
                        : *s == '>'  ? "&gt;"
                        : *s == '"'  ? "&quot;"
                        : *s == '\'' ? "&#39;"
                                     : NULL;
        if (e) {
            strcpy(p, e);
            p += strlen(e);
        } else {
            *p++ = *s;
        }
    }
    *p = '\0';
    return out;
}

size_t report_rig_count(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);

    for (; (hay = strstr(hay, needle)) != NULL; hay += len)
        n++;
    return n;
}

static bool has_ci(const char *hay, const char *needle)
{
    size_t i, len = strlen(needle);

    for (; *hay; hay++) {
        for (i = 0; i < len && hay[i]; i++)
            if (tolower((unsigned char)hay[i]) != needle[i])
                break;
        if (i == len)
            return true;
    }
    return false;
}

/* md with its code blocks and code spans blanked (new): what is left is
 * read as Markdown. */
char *report_rig_outside_code(const char *md)
{
    char *out = strdup(md), *p;
    bool in_fence = false, in_span = false;

    ck_assert_ptr_nonnull(out);
    for (p = out; *p; p++) {
        if (strncmp(p, "```", 3) == 0) {
            in_fence = !in_fence;
            p += 2;
        } else if (*p == '\n') {
            in_span = false;
        } else if (!in_fence && *p == '`' && (p == out || p[-1] != '\\')) {
            in_span = !in_span;
        } else if (in_fence || in_span) {
            *p = ' ';
        }
    }
    return out;
}

/* The first tag of the page that is not one the reports write, or has an
 * attribute that loads or runs anything (text is escaped, so any "<"
 * opens a tag), into bad; false if none.  (One assertion per page, not
 * per tag: Check records every assertion.) */
static bool find_bad_tag(const char *html, char *bad, size_t n)
{
    static const char *const allowed[] = {
        "!DOCTYPE", "html", "head",  "meta",  "title", "style",  "body", "h1",
        "h2",       "h3",   "p",     "ul",    "li",    "strong", "em",   "code",
        "div",      "br",   "table", "thead", "tbody", "tr",     "th",   "td"};
    const char *p, *end, *name;
    size_t i, len;

    for (p = strchr(html, '<'); p; p = strchr(end, '<')) {
        if ((end = strchr(p, '>')) == NULL) {
            snprintf(bad, n, "%.40s", p);
            return true;
        }
        snprintf(bad, n, "%.*s", (int)(end - p - 1), p + 1);
        name = bad + (bad[0] == '/');
        len = strspn(name, "!DOCTYPEabcdefghijklmnopqrstuvwxyz0123456789");
        for (i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
            if (strlen(allowed[i]) == len &&
                strncmp(name, allowed[i], len) == 0)
                break;
        if (i == sizeof allowed / sizeof allowed[0] || has_ci(bad, "src") ||
            has_ci(bad, "href") || has_ci(bad, " on") || has_ci(bad, "style="))
            return true;
    }
    return false;
}

/* The first element the page opens more or less often than it closes,
 * or NULL. */
static const char *unbalanced(const char *html)
{
    static const char *const tags[] = {"ul", "li",  "p",      "h1",   "h2",
                                       "h3", "tr",  "td",     "th",   "table",
                                       "em", "div", "strong", "code", "tbody"};
    char open[16], open_attr[16], close[16];
    size_t i;

    for (i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        snprintf(open, sizeof open, "<%s>", tags[i]);
        snprintf(open_attr, sizeof open_attr, "<%s ", tags[i]);
        snprintf(close, sizeof close, "</%s>", tags[i]);
        if (report_rig_count(html, open) + report_rig_count(html, open_attr) !=
            report_rig_count(html, close))
            return tags[i];
    }
    return NULL;
}

/* A standalone page: no script, nothing loaded from elsewhere, every
 * element it opens closed. */
static void check_page(const char *html)
{
    size_t len = strlen(html);
    char bad[512];

    ck_assert_msg(strncmp(html, "<!DOCTYPE html>\n", 16) == 0 &&
                      strstr(html, "<meta charset=\"utf-8\">") &&
                      strstr(html, "<title>") && strstr(html, "<style>") &&
                      len > 8 && strcmp(html + len - 8, "</html>\n") == 0,
                  "%s: not a whole page with charset, title and style:\n%s",
                  rig_ctx, html);
    ck_assert_msg(!has_ci(html, "<script") && !has_ci(html, "@import") &&
                      !has_ci(html, "url("),
                  "%s: a script or an outside resource:\n%s", rig_ctx, html);
    ck_assert_msg(!find_bad_tag(html, bad, sizeof bad),
                  "%s: a tag or attribute the page must not have: <%s>",
                  rig_ctx, bad);
    ck_assert_msg(unbalanced(html) == NULL, "%s: <%s> not balanced:\n%s",
                  rig_ctx, unbalanced(html), html);
}

/* Markdown for chat: no table, code fences paired, one final newline. */
static void check_markdown(const char *md)
{
    size_t len = strlen(md);

    ck_assert_msg(
        !strstr(md, "|---") && !strstr(md, "| ---") && !strstr(md, "|:--") &&
            report_rig_count(md, "```") % 2 == 0 && !strstr(md, "<!DOCTYPE") &&
            !strchr(md, '\r') && len >= 1 && md[len - 1] == '\n' &&
            (len == 1 || md[len - 2] != '\n'),
        "%s: a table, an open fence or a bad ending in:\n%s", rig_ctx, md);
}

/* Renders doc both ways with every check; the two texts in md, html. */
void report_rig_render_both(report_rig_render_fn render, const json_t *doc,
                            char **md, char **html)
{
    *md = keep(render(doc, REPORT_MARKDOWN));
    *html = keep(render(doc, REPORT_HTML));
    check_markdown(*md);
    check_page(*html);
}

void report_rig_expect_in(const char *doc, const char *what)
{
    ck_assert_msg(strstr(doc, what) != NULL, "%s: no \"%s\" in:\n%s", rig_ctx,
                  what, doc);
}

void report_rig_expect_not_in(const char *doc, const char *what)
{
    ck_assert_msg(strstr(doc, what) == NULL, "%s: \"%s\" should not be in:\n%s",
                  rig_ctx, what, doc);
}

/* ---- every unit's fate ---- */

/* The line of doc where unit's name is in bold, as its fate line. */
void report_rig_expect_fate(const char *doc, bool is_html,
                            const report_rig_fate *f)
{
    char *name =
        is_html ? report_rig_html_model(f->unit) : report_rig_md_model(f->unit);
    char marker[256], line[1024];
    const char *at, *end;
    size_t k;

    snprintf(marker, sizeof marker, is_html ? "<strong>%s</strong>" : "**%s**",
             name);
    free(name);
    at = strstr(doc, marker);
    ck_assert_msg(at != NULL, "%s: no line for %s (%s) in:\n%s", rig_ctx,
                  f->unit, marker, doc);
    while (at > doc && at[-1] != '\n')
        at--;
    end = strchr(at, '\n');
    snprintf(line, sizeof line, "%.*s",
             (int)(end ? (size_t)(end - at) : strlen(at)), at);
    for (k = 0; k < 5 && f->words[k]; k++) {
        bool is_not = f->words[k][0] == '!';
        ck_assert_msg((strstr(line, f->words[k] + is_not) != NULL) != is_not,
                      "%s: the line of %s %s \"%s\": %s", rig_ctx, f->unit,
                      is_not ? "has" : "lacks", f->words[k] + is_not, line);
    }
}

void report_rig_expect_fates(const char *md, const char *html,
                             const report_rig_fate *fates, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        report_rig_expect_fate(md, false, &fates[i]);
        report_rig_expect_fate(html, true, &fates[i]);
    }
}

/* Entered dice: said so, and no seed. */
void report_rig_expect_entered(const char *md, const char *html)
{
    report_rig_expect_in(md, "not verifiable");
    report_rig_expect_in(html, "not verifiable");
    report_rig_expect_not_in(md, "Commitment");
}

/* Seeded dice with the seed revealed: commitment, seed, how to check. */
void report_rig_expect_seeded(const char *md, const char *html,
                              const json_t *dice)
{
    ck_assert_ptr_nonnull(scs_str(dice, "server_seed"));
    report_rig_expect_in(md, scs_str(dice, "commitment"));
    report_rig_expect_in(html, scs_str(dice, "commitment"));
    report_rig_expect_in(md, scs_str(dice, "server_seed"));
    report_rig_expect_in(html, scs_str(dice, "server_seed"));
    report_rig_expect_in(md, "umpire-verify");
    report_rig_expect_in(html, "umpire-verify");
    report_rig_expect_not_in(md, "not verifiable");
}

/* ---- odd input ---- */

/* Renders doc both ways and checks what must hold of any input; frees
 * the texts.  is_md_text: hostile text may be the service's own Markdown
 * (a campaign combat's "summary_markdown"), passed on as it is. */
void report_rig_check_odd(report_rig_render_fn render, const json_t *doc,
                          bool is_md_text)
{
    char *md = render(doc, REPORT_MARKDOWN), *html = render(doc, REPORT_HTML);
    char *plain;

    ck_assert_msg(md && html, "%s: a renderer returned NULL", rig_ctx);
    check_markdown(md);
    check_page(html);
    plain = report_rig_outside_code(md);
    ck_assert_msg(!strstr(html, "<y>") && !strstr(md, "\n# h") &&
                      (is_md_text || !strstr(plain, "x<y>*")),
                  "%s: hostile text unescaped in:\n%s\n%s", rig_ctx, md, html);
    free(plain);
    free(md);
    free(html);
}

/* doc with its member key (of the object at parent's member pkey, or of
 * its first element when that is an array; NULL: doc itself) set to bad. */
static void check_replaced(report_rig_render_fn render, const json_t *doc,
                           const char *pkey, const char *key, const char *bad)
{
    json_t *copy = json_deep_copy(doc), *target = copy;
    json_t *v = json_loads(bad, JSON_DECODE_ANY, NULL);

    ck_assert_ptr_nonnull(v);
    if (pkey) {
        target = scs_get(copy, pkey);
        if (json_is_array(target))
            target = json_array_get(target, 0);
    }
    json_object_set_new(target, key, v);
    snprintf(rig_ctx, sizeof rig_ctx, "%s%s%s = %s", pkey ? pkey : "",
             pkey ? "." : "", key, bad);
    report_rig_check_odd(render, copy, strcmp(key, "summary_markdown") == 0);
    json_decref(copy);
}

/* Every member of doc, and of the objects one level down, replaced in
 * turn by values of the wrong type. */
void report_rig_check_mutations(report_rig_render_fn render, const json_t *doc)
{
    static const char *const bad[] = {"null",
                                      "7",
                                      "-2.5",
                                      "true",
                                      "\""
                                      "x<y>*\\n# h"
                                      "\"",
                                      "[]",
                                      "{}",
                                      "[1,\"x<y>*\\n# h\",null,{}]",
                                      "{\"a\":[], \"x<y>*\\n# h\":1}"};
    static const char *const bad_inner[] = {"null", "\"x<y>*\\n# h\"", "{}",
                                            "[{}]"};
    const char *key, *k2;
    json_t *v, *inner, *w;
    size_t i;

    json_object_foreach((json_t *)doc, key, v)
    {
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
            check_replaced(render, doc, NULL, key, bad[i]);
        inner = json_is_array(v) ? json_array_get(v, 0) : v;
        json_object_foreach(
            inner, k2, w) for (i = 0;
                               i < sizeof bad_inner / sizeof bad_inner[0]; i++)
            check_replaced(render, doc, key, k2, bad_inner[i]);
    }
}

/* ---- requests ---- */

/* s as a JSON string, in one of 8 rotating buffers. */
static const char *q(const char *s)
{
    static char bufs[8][256];
    static int k;
    json_t *j = json_string(s);
    char *text = json_dumps(j, JSON_ENCODE_ANY);

    k = (k + 1) % 8;
    snprintf(bufs[k], sizeof bufs[k], "%s", text);
    free(text);
    json_decref(j);
    return bufs[k];
}

/* Posts a one-off combat of system (body printf-style); the report
 * (kept). */
json_t *report_rig_oneoff(const char *system, const char *fmt, ...)
{
    char body[4096];
    va_list ap;
    int n;
    json_t *rep;

    va_start(ap, fmt);
    n = vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    ck_assert_msg(n > 0 && (size_t)n < sizeof body, "a body too long");
    rep = scs_call(201, "POST", NULL, body, "/v1/combats/%s", system);
    ck_assert_msg(json_is_array(scs_get(rep, "rolls")),
                  "no rolls in the report");
    return rep;
}

/* The worked example of docs/rules/scrud.md, with the Militia and the
 * Dragoons renamed to names full of mark-up: both are eliminated. */
json_t *report_rig_scrud_example(void)
{
    return report_rig_oneoff(
        "scrud",
        "{\"dice\":{\"source\":\"entered\"},\"note\":\"walled *farm* "
        "<i>\",\"sides\":[{\"name\":\"North\",\"units\":[{\"name\":"
        "\"Rangers\",\"quality\":1,\"die\":5},{\"name\":%s,\"quality\":-1,"
        "\"defeat_penalty\":1,\"die\":6},{\"name\":%s,\"modifier\":1,"
        "\"die\":3},{\"name\":\"Guard\",\"quality\":1,\"reserve\":true,"
        "\"die\":2}]},{\"name\":\"South\",\"modifier\":1,\"units\":[{"
        "\"name\":\"Fusiliers\",\"die\":6},{\"name\":\"Volunteers\","
        "\"quality\":-1,\"die\":5},{\"name\":\"Pioneers\","
        "\"fatigue_penalty\":1,\"die\":3},{\"name\":\"Scouts\",\"die\":4},{"
        "\"name\":\"Lancers\",\"die\":5}]}]}",
        q(REPORT_RIG_STARS), q(REPORT_RIG_ANGLE));
}

/* Each unit of a finished battle's result on its line. */
void report_rig_expect_matrix_result(const char *md, const char *html,
                                     const json_t *result)
{
    const char *name;
    json_t *f;

    json_object_foreach(scs_get(result, "unit_results"), name, f)
    {
        report_rig_fate x = {
            name,
            {json_is_string(f) ? json_string_value(f) : "no loss",
             json_is_string(f) ? "casualty point" : NULL}};
        report_rig_expect_fate(md, false, &x);
        report_rig_expect_fate(html, true, &x);
    }
}

json_t *report_rig_campaign_doc(void)
{
    json_t *doc = json_loads(
        "{\"campaign\":{\"id\":\"cmp_1\",\"name\":\"The <script>alert(1)"
        "</script> [ford](x)\",\"created_at\":\"2026-01-01T00:00:00Z\","
        "\"ledger\":{\"length\":12,\"head\":\"abc123\"},"
        "\"next_commitment\":\"def456\"},"
        "\"sides\":[{\"id\":\"sd_a\",\"name\":\"blue\",\"exhausted_turn\":4},"
        "{\"id\":\"sd_b\",\"name\":\"red\",\"exhausted_turn\":null}],"
        "\"units\":[{\"id\":\"u1\",\"name\":\"B1\",\"side\":{\"id\":\"sd_a\","
        "\"name\":\"blue\"},\"eliminated\":false,\"eliminated_reason\":null,"
        "\"eliminated_by\":null,\"systems\":[\"scrud\"],\"scrud\":{"
        "\"quality\":1,\"faces\":6,\"defeat_penalty\":1,\"fatigue_penalty\":0,"
        "\"modifier\":0}},{\"id\":\"u2\",\"name\":\"R2 *x*\",\"side\":{\"id\":"
        "\"sd_b\",\"name\":\"red\"},\"eliminated\":true,\"eliminated_reason\":"
        "\"routed\",\"eliminated_by\":\"cbt_3\",\"systems\":[\"edna\"],"
        "\"edna\":{\"edna\":3,\"start\":8,\"ineffective\":false}}],"
        "\"combats\":[{\"id\":\"cbt_1\",\"system\":\"scrud\",\"created_at\":"
        "\"2026-01-02\",\"note\":\"farm\",\"dice_source\":\"entered\","
        "\"summary_markdown\":\"**SCRUD: blue vs red**\\n- SUMMARY-ONE\\n"
        "_Dice: entered._\\n\",\"url\":\"/v1/campaigns/cmp_1/combats/"
        "cbt_1\"},"
        "{\"id\":\"cbt_2\",\"system\":\"edna\",\"created_at\":\"2026-01-03\","
        "\"note\":null,\"dice_source\":\"seeded\",\"summary\":\"SUMMARY-TWO "
        "<img src=x onerror=alert(1)>\\n```\\n# not a heading\\n\","
        "\"url\":\"/v1/campaigns/cmp_1/combats/cbt_2\"},"
        "{\"id\":\"cbt_3\",\"system\":\"matrix\",\"created_at\":\"2026-01-04\","
        "\"note\":null,\"dice_source\":\"seeded\",\"summary\":\"SUMMARY-THREE "
        "*x* [a](b) wins\",\"url\":\"/v1/campaigns/cmp_1/combats/cbt_3\"}],"
        "\"battles\":[{\"id\":\"bat_1\",\"system\":\"matrix\",\"status\":"
        "\"finished\",\"turn\":3,\"created_at\":\"2026-01-04\",\"combat_id\":"
        "\"cbt_3\",\"url\":\"/v1/campaigns/cmp_1/battles/bat_1\"}]}",
        0, NULL);

    ck_assert_ptr_nonnull(doc);
    return doc;
}

/* The markers appear in doc, each after the one before. */
void report_rig_expect_in_order(const char *doc, const char *const *markers,
                                size_t n)
{
    const char *at = doc;
    size_t i;

    for (i = 0; i < n; i++) {
        const char *next = strstr(at, markers[i]);
        ck_assert_msg(next != NULL, "%s: \"%s\" missing or out of order:\n%s",
                      rig_ctx, markers[i], doc);
        at = next + strlen(markers[i]);
    }
}
