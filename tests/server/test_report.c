/*
 * test_report.c: the reports to share (server/report.h).  Real reports of
 * every system, produced by the service in-process (one-off combats with
 * entered dice, so their outcome is known; seeded ones for the dice
 * section), a campaign combat, live Matrix and Civilization battles from
 * open to over, rendered as Markdown and as HTML: every unit's fate is on
 * its line, seeded dice show their commitment and seed, entered ones say
 * they cannot be checked, names full of mark-up are escaped (checked
 * against a plain model of the escaping), pages carry no script or
 * outside resource, Markdown has no table.  A campaign report built by
 * hand lists its combats in order.  Odd input never breaks a renderer:
 * hand-written oddities, and every member of the real reports replaced in
 * turn by values of the wrong type.  The choice of format over a table of
 * ?format values and Accept headers.  Uses scs_rig.h, matrix_rig.h and
 * civ_rig.h.
 */
#include "civ_rig.h"
#include "harness.h"
#include "matrix_rig.h"
#include "report.h"
#include "rig.h"
#include "scs_rig.h"
#include "suites.h"

#include <check.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names that would change a document's structure if written raw. */
#define ANGLE "<b>&\"x'"
#define STARS "*bold*_x_"

typedef char *(*render_fn)(const json_t *, report_format);

static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

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

static void pure_setup(void)
{
    rig_ctx[0] = '\0';
}

static void pure_teardown(void)
{
    docs_free();
}

static void live_setup(void)
{
    scs_rig_setup();
}

static void live_teardown(void)
{
    docs_free();
    scs_rig_teardown();
}

/* ---- the reference escaping and what every document must be ---- */

/* s escaped as the reports escape text: Markdown backslashes each mark
 * character (new). */
static char *md_model(const char *s)
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
static char *html_model(const char *s)
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

static size_t count(const char *hay, const char *needle)
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
static char *outside_code(const char *md)
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
        if (count(html, open) + count(html, open_attr) != count(html, close))
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
            count(md, "```") % 2 == 0 && !strstr(md, "<!DOCTYPE") &&
            !strchr(md, '\r') && len >= 1 && md[len - 1] == '\n' &&
            (len == 1 || md[len - 2] != '\n'),
        "%s: a table, an open fence or a bad ending in:\n%s", rig_ctx, md);
}

/* Renders doc both ways with every check; the two texts in md, html. */
static void render_both(render_fn render, const json_t *doc, char **md,
                        char **html)
{
    *md = keep(render(doc, REPORT_MARKDOWN));
    *html = keep(render(doc, REPORT_HTML));
    check_markdown(*md);
    check_page(*html);
}

static void expect_in(const char *doc, const char *what)
{
    ck_assert_msg(strstr(doc, what) != NULL, "%s: no \"%s\" in:\n%s", rig_ctx,
                  what, doc);
}

static void expect_not_in(const char *doc, const char *what)
{
    ck_assert_msg(strstr(doc, what) == NULL, "%s: \"%s\" should not be in:\n%s",
                  rig_ctx, what, doc);
}

/* ---- every unit's fate ---- */

/* A unit and the words its line must hold ("!" first: must not). */
typedef struct fate {
    const char *unit;
    const char *words[5];
} fate;

/* The line of doc where unit's name is in bold, as its fate line. */
static void expect_fate(const char *doc, bool is_html, const fate *f)
{
    char *name = is_html ? html_model(f->unit) : md_model(f->unit);
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

static void expect_fates(const char *md, const char *html, const fate *fates,
                         size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        expect_fate(md, false, &fates[i]);
        expect_fate(html, true, &fates[i]);
    }
}

/* Entered dice: said so, and no seed. */
static void expect_entered(const char *md, const char *html)
{
    expect_in(md, "not verifiable");
    expect_in(html, "not verifiable");
    expect_not_in(md, "Commitment");
}

/* Seeded dice with the seed revealed: commitment, seed, how to check. */
static void expect_seeded(const char *md, const char *html, const json_t *dice)
{
    ck_assert_ptr_nonnull(str(dice, "server_seed"));
    expect_in(md, str(dice, "commitment"));
    expect_in(html, str(dice, "commitment"));
    expect_in(md, str(dice, "server_seed"));
    expect_in(html, str(dice, "server_seed"));
    expect_in(md, "umpire-verify");
    expect_in(html, "umpire-verify");
    expect_not_in(md, "not verifiable");
}

/* ---- odd input ---- */

/* A hostile string: mark-up, a line break and a heading after it. */
#define BAD_TEXT "x<y>*\n# h"

/* Renders doc both ways and checks what must hold of any input; frees
 * the texts.  is_md_text: hostile text may be the service's own Markdown
 * (a campaign combat's "summary_markdown"), passed on as it is. */
static void check_odd(render_fn render, const json_t *doc, bool is_md_text)
{
    char *md = render(doc, REPORT_MARKDOWN), *html = render(doc, REPORT_HTML);
    char *plain;

    ck_assert_msg(md && html, "%s: a renderer returned NULL", rig_ctx);
    check_markdown(md);
    check_page(html);
    plain = outside_code(md);
    ck_assert_msg(!strstr(html, "<y>") && !strstr(md, "\n# h") &&
                      (is_md_text || !strstr(plain, "x<y>*")),
                  "%s: hostile text unescaped in:\n%s\n%s", rig_ctx, md, html);
    free(plain);
    free(md);
    free(html);
}

/* doc with its member key (of the object at parent's member pkey, or of
 * its first element when that is an array; NULL: doc itself) set to bad. */
static void check_replaced(render_fn render, const json_t *doc,
                           const char *pkey, const char *key, const char *bad)
{
    json_t *copy = json_deep_copy(doc), *target = copy;
    json_t *v = json_loads(bad, JSON_DECODE_ANY, NULL);

    ck_assert_ptr_nonnull(v);
    if (pkey) {
        target = get(copy, pkey);
        if (json_is_array(target))
            target = json_array_get(target, 0);
    }
    json_object_set_new(target, key, v);
    snprintf(rig_ctx, sizeof rig_ctx, "%s%s%s = %s", pkey ? pkey : "",
             pkey ? "." : "", key, bad);
    check_odd(render, copy, strcmp(key, "summary_markdown") == 0);
    json_decref(copy);
}

/* Every member of doc, and of the objects one level down, replaced in
 * turn by values of the wrong type. */
static void check_mutations(render_fn render, const json_t *doc)
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
static json_t *oneoff(const char *system, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static json_t *oneoff(const char *system, const char *fmt, ...)
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
    ck_assert_msg(json_is_array(get(rep, "rolls")), "no rolls in the report");
    return rep;
}

/* ---- 1. SCRUD ---- */

/* The worked example of docs/rules/scrud.md, with the Militia and the
 * Dragoons renamed to names full of mark-up: both are eliminated. */
static json_t *scrud_example(void)
{
    return oneoff(
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
        q(STARS), q(ANGLE));
}

START_TEST(test_scrud)
{
    static const fate fates[] = {
        {"Rangers",
         {"not defeated", "fatigue penalty 0 \xE2\x86\x92 1",
          "modifier 1 \xE2\x86\x92 0", "!eliminated"}},
        {STARS,
         {"eliminated", "threshold", "defeat penalty 1 \xE2\x86\x92 2",
          "modifier -2 \xE2\x86\x92 -3"}},
        {ANGLE, {"eliminated", "defeats", "defeated 2 times"}},
        {"Guard", {"in reserve", "!eliminated"}},
        {"Fusiliers", {"fatigue penalty 0 \xE2\x86\x92 1", "!eliminated"}},
        {"Scouts", {"not defeated", "modifier stays 0", "!eliminated"}},
        {"Lancers", {"fatigue penalty 0 \xE2\x86\x92 1", "!eliminated"}},
    };
    json_t *rep = scrud_example();
    char *md, *html, *plain, *esc;

    snprintf(rig_ctx, sizeof rig_ctx, "SCRUD entered");
    render_both(report_combat, rep, &md, &html);
    expect_in(md, "# SCRUD combat");
    expect_in(md, str(rep, "id"));
    expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    expect_entered(md, html);
    expect_in(md, "## Rolls (9)");
    expect_in(html, "Rolls (9)");
    /* Markdown: the names escaped wherever they are read as Markdown */
    plain = outside_code(md);
    expect_not_in(plain, STARS);
    esc = md_model(STARS);
    expect_in(plain, esc);
    free(esc);
    ck_assert_uint_eq(count(plain, "<b>"), count(plain, "\\<b>"));
    expect_in(plain, "walled \\*farm\\* \\<i\\>");
    free(plain);
    /* HTML: never raw, always as entities */
    expect_not_in(html, ANGLE);
    expect_not_in(html, "<b>");
    expect_not_in(html, "<i>");
    esc = html_model(ANGLE);
    expect_in(html, esc);
    free(esc);
    check_mutations(report_combat, rep);
}
END_TEST

START_TEST(test_scrud_seeded)
{
    json_t *rep = oneoff(
        "scrud", "{\"dice\":{\"source\":\"seeded\",\"client_seed\":\"table "
                 "7\"},\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"A1\"},"
                 "{\"name\":\"A2\"}]},{\"name\":\"b\",\"units\":[{\"name\":"
                 "\"B1\"}]}]}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "SCRUD seeded");
    render_both(report_combat, rep, &md, &html);
    expect_seeded(md, html, get(rep, "dice"));
    expect_in(md, "**Client seed:** table 7");
    expect_in(md, "## Rolls (3)");
    expect_fate(md, false, &(fate){"A1", {"rolled", "modifier"}});
    expect_fate(html, true, &(fate){"B1", {"rolled", "modifier"}});
}
END_TEST

/* A campaign combat: its campaign, and its place in the ledger. */
START_TEST(test_campaign_combat)
{
    static const char *const sides[] = {"north", "south", NULL};
    static const char hash[] =
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    test_campaign c;
    json_t *rep, *with_ledger;
    char *md, *html, path[256];

    ts_campaign(rig_ts, &c, NULL, sides);
    ts_unit(rig_ts, &c, "n1", "north", 0, 6, NULL);
    ts_unit(rig_ts, &c, "s1", "south", 0, 6, NULL);
    rep = scs_call(201, "POST", c.umpire,
                   "{\"sides\":[{\"side\":\"north\",\"units\":[{\"unit\":"
                   "\"n1\"}]},{\"side\":\"south\",\"units\":[{\"unit\":"
                   "\"s1\"}]}]}",
                   "/v1/campaigns/%s/combats/scrud", c.id);
    snprintf(path, sizeof path, "combats/%s", str(rep, "id"));
    rep = scs_rig_keep(rig_cget(&c, "%s", path));
    snprintf(rig_ctx, sizeof rig_ctx, "campaign SCRUD");
    render_both(report_combat, rep, &md, &html);
    expect_in(md, c.id);
    expect_in(html, c.id);
    expect_seeded(md, html, get(rep, "dice"));
    with_ledger = scs_rig_keep(json_deep_copy(rep));
    json_object_set_new(with_ledger, "ledger",
                        json_pack("{s:i, s:i, s:s}", "first_pos", 3, "last_pos",
                                  8, "hash", hash));
    render_both(report_combat, with_ledger, &md, &html);
    expect_in(md, "entries 3\xE2\x80\x93"
                  "8");
    expect_in(html, "entries 3\xE2\x80\x93"
                    "8");
    expect_in(md, hash);
    expect_in(html, hash);
}
END_TEST

/* ---- 2. EDNA ---- */

START_TEST(test_edna)
{
    static const fate fates[] = {
        {"X", {"passed", "EDNA stays 5", "modifier -2", "!ineffective"}},
        {"Y", {"failed", "EDNA 10 \xE2\x86\x92 8", "!ineffective"}},
        {"Z", {"failed", "EDNA 1 \xE2\x86\x92 0", "ineffective"}},
    };
    json_t *rep = oneoff(
        "edna", "{\"dice\":{\"source\":\"entered\"},\"units\":[{\"name\":"
                "\"X\",\"edna\":5,\"start\":8,\"modifier\":-2,\"dice\":[3,4]},"
                "{\"name\":\"Y\",\"start\":10,\"dice\":[6,6]},{\"name\":\"Z\","
                "\"edna\":1,\"dice\":[6,6]}]}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "EDNA entered");
    render_both(report_combat, rep, &md, &html);
    expect_in(md, "# EDNA test");
    expect_in(md, "3 units tested with 2d6: 1 passed, 2 failed.");
    expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    expect_entered(md, html);
    check_mutations(report_combat, rep);
}
END_TEST

/* ---- 3. SCS ---- */

START_TEST(test_scs)
{
    static const fate fates[] = {
        {"a1", {"no step lost", "may advance 1 hex", "!eliminated"}},
        {"a2", {"no step lost", "!eliminated"}},
        {"d1",
         {"loses 1 step", "steps lost 0 \xE2\x86\x92 1 of 2",
          "retreats 3 hexes", "!eliminated"}},
        {"d2", {"eliminated", "loses 1 step", "!retreats"}},
    };
    json_t *rep = oneoff(
        "scs",
        "{\"table\":\"example-2d6\",\"attackers\":[{\"name\":\"a1\","
        "\"attack\":6,\"defense\":2},{\"name\":\"a2\",\"attack\":3,"
        "\"defense\":3,\"steps\":2}],\"defenders\":[{\"name\":\"d1\","
        "\"attack\":1,\"defense\":3,\"steps\":2},{\"name\":\"d2\",\"attack\":1,"
        "\"defense\":1}],\"dice\":{\"source\":\"entered\"},\"roll\":[5,6]}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "SCS entered");
    render_both(report_combat, rep, &md, &html);
    expect_in(md, "odds 2:1");
    expect_in(md, "Roll 11 (2d6: 5, 6): **D2r3**");
    expect_in(html, "<strong>D2r3</strong>");
    expect_in(md, "**Defender:** 2 steps lost, retreats 3 hexes");
    expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    expect_entered(md, html);
    check_mutations(report_combat, rep);
}
END_TEST

/* ---- 4. Matrix ---- */

/* The one-off battle of docs/rules/matrix.md (the ford). */
START_TEST(test_matrix_oneoff)
{
    static const fate fates[] = {
        {"B1", {"in combat 1", "no loss"}},
        {"B3", {"in combat 3", "beaten", "2 casualty points"}},
        {"B4", {"reserve, joined combat 1", "no loss"}},
        {"R1", {"repulsed", "1 casualty point"}},
        {"R2", {"routed", "3 casualty points", "!eliminated"}},
        {"R3", {"in combat 3", "no loss"}},
    };
    json_t *rep = oneoff(
        "matrix",
        "{\"attacker\":{\"name\":\"blue\",\"argument\":1,\"units\":[{"
        "\"name\":\"B1\"},{\"name\":\"B2\"},{\"name\":\"B3\"},{\"name\":"
        "\"B4\"}]},\"defender\":{\"name\":\"red\",\"units\":[{\"name\":\"R1\","
        "\"quality\":1},{\"name\":\"R2\",\"quality\":1},{\"name\":\"R3\","
        "\"quality\":1}]},\"line\":[{\"attacker\":[\"B1\"],\"defender\":["
        "\"R1\"],\"dice\":{\"B1\":3,\"R1\":4}},{\"attacker\":[\"B2\"],"
        "\"defender\":[\"R2\"],\"dice\":{\"B2\":6,\"R2\":1}},{\"attacker\":["
        "\"B3\"],\"defender\":[\"R3\"],\"dice\":{\"B3\":2,\"R3\":5}}],"
        "\"commits\":[{\"combat\":0,\"army\":\"attacker\",\"unit\":\"B4\","
        "\"die\":5}],\"dice\":{\"source\":\"entered\"}}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "Matrix one-off");
    render_both(report_combat, rep, &md, &html);
    expect_in(md, "**The attacker (blue) wins.**");
    expect_in(html, "The attacker (blue) wins.");
    expect_in(md, "Casualty points: attacker 2, defender 4.");
    expect_in(md, "**Combat 1:** B1 against R1: 9 against 5, the defender "
                  "repulsed");
    expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    expect_entered(md, html);
    expect_in(md, "## Rolls (7)");
    check_mutations(report_combat, rep);
}
END_TEST

/* Each unit of a finished battle's result on its line. */
static void expect_matrix_result(const char *md, const char *html,
                                 const json_t *result)
{
    const char *name;
    json_t *f;

    json_object_foreach(get(result, "unit_results"), name, f)
    {
        fate x = {name,
                  {json_is_string(f) ? json_string_value(f) : "no loss",
                   json_is_string(f) ? "casualty point" : NULL}};
        expect_fate(md, false, &x);
        expect_fate(html, true, &x);
    }
}

/* A campaign battle, seeded: open (commitment, no seed), then over (seed,
 * record, fates); an abandoned one reveals its seed too. */
START_TEST(test_matrix_battle)
{
    test_campaign c;
    json_t *b, *st, *rec;
    char bid[64], *md, *html;

    mx_campaign(&c);
    mx_units(&c, 2);
    b = mx_battle(&c, 201,
                  BATTLE(",\"note\":\"the *ford*\"", ARMY("blue", Q(B1), ""),
                         ARMY("red", Q(R1), ""), PAIR(Q(B1), Q(R1))));
    snprintf(bid, sizeof bid, "%s", str(b, "id"));
    st = mx_act(&c, bid, 200, "{\"action\":\"abandon\"}");
    snprintf(rig_ctx, sizeof rig_ctx, "abandoned battle");
    render_both(report_battle, st, &md, &html);
    expect_in(md, "**Status:** abandoned");
    expect_in(md, str(get(st, "dice"), "server_seed"));
    expect_not_in(md, "umpire-verify"); /* no record, no roll log */

    b = mx_battle(&c, 201,
                  BATTLE("", ARMY("blue", Q(B1) "," Q(B2), ""),
                         ARMY("red", Q(R1) "," Q(R2), ""),
                         PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(R2))));
    snprintf(bid, sizeof bid, "%s", str(b, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "open battle");
    render_both(report_battle, b, &md, &html);
    expect_in(md, "# Matrix battle");
    expect_in(md, "**Status:** open");
    expect_in(md, str(get(b, "dice"), "commitment"));
    expect_in(md, "secret until the battle is over");
    expect_in(md, "**Combat 2:** B2 against R2: not rolled yet");
    expect_fate(md, false, &(fate){"B1", {"in combat 1", "!loss"}});
    expect_fate(html, true, &(fate){"R2", {"in combat 2", "!loss"}});
    expect_in(md, "Not over yet.");
    check_mutations(report_battle, b);

    st = mx_act(&c, bid, 200, MROLL(0, ""));
    snprintf(rig_ctx, sizeof rig_ctx, "battle half fought");
    render_both(report_battle, st, &md, &html);
    expect_in(md, "(not accepted yet: reserves may still join)");
    expect_in(md, "  - Dice: B1 ");
    mx_act(&c, bid, 200, ACCEPT(0));
    mx_act(&c, bid, 200, MROLL(1, ""));
    st = mx_act(&c, bid, 200, ACCEPT(1));
    snprintf(rig_ctx, sizeof rig_ctx, "finished battle");
    render_both(report_battle, st, &md, &html);
    expect_in(md, "**Status:** finished");
    expect_in(md, "**Record:** combat `");
    expect_in(md, str(st, "combat_id"));
    expect_in(md, str(get(st, "dice"), "server_seed"));
    expect_in(md, "The battle's record (its combat, under Links)");
    expect_in(md, "umpire-verify");
    expect_matrix_result(md, html, get(st, "result"));
    check_mutations(report_battle, st);

    rec = scs_rig_keep(rig_cget(&c, "combats/%s", str(st, "combat_id")));
    snprintf(rig_ctx, sizeof rig_ctx, "battle record");
    render_both(report_combat, rec, &md, &html);
    expect_in(md, "**Battle:** `");
    expect_in(md, bid);
    expect_seeded(md, html, get(rec, "dice"));
    expect_in(md, "## Rolls (4)");
    expect_matrix_result(md, html, get(rec, "result"));
}
END_TEST

/* ---- 5. Civilization ---- */

/* The one-off of docs/rules/civ.md: the settlement holds. */
START_TEST(test_civ_oneoff)
{
    static const fate fates[] = {
        {"sw1", {"destroyed", "in phase 1"}},
        {"ca3", {"destroyed", "in phase 1"}},
        {"ch1", {"destroyed", "in phase 2"}},
        {"ch3", {"destroyed", "in phase 3"}},
        {"ac4", {"destroyed", "in phase 2"}},
        {"ac5", {"survived", "!destroyed"}},
        {"ar1", {"destroyed", "in phase 1"}},
    };
    json_t *rep = oneoff(
        "civ",
        "{\"current_era\":1,\"settlement\":true,\"attacker\":{\"name\":\"bob\","
        "\"technologies\":6,\"units\":[{\"name\":\"sw1\",\"class\":"
        "\"infantry\",\"era\":1,\"bonus\":1},{\"name\":\"sw2\",\"class\":"
        "\"infantry\",\"era\":1,\"bonus\":1},{\"name\":\"sw3\",\"class\":"
        "\"infantry\",\"era\":1,\"bonus\":1},{\"name\":\"ch1\",\"class\":"
        "\"cavalry\",\"era\":1},{\"name\":\"ch2\",\"class\":\"cavalry\","
        "\"era\":1},{\"name\":\"ch3\",\"class\":\"cavalry\",\"era\":1},{"
        "\"name\":\"ca1\",\"class\":\"artillery\",\"era\":1,\"bonus\":1},{"
        "\"name\":\"ca2\",\"class\":\"artillery\",\"era\":1,\"bonus\":1},{"
        "\"name\":\"ca3\",\"class\":\"artillery\",\"era\":1,\"bonus\":1}],"
        "\"wave_preference\":[\"sw1\",\"sw2\",\"sw3\",\"ca1\",\"ca2\","
        "\"ca3\"]},\"defender\":{\"name\":\"alice\",\"technologies\":4,"
        "\"units\":[{\"name\":\"ac1\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ac2\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ac3\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ac4\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ac5\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ar1\",\"class\":\"cavalry\",\"era\":1}]},"
        "\"dice\":{\"source\":\"entered\"},\"rolls\":[2,2,2,2,2,2,6,5,5,5,5,1,"
        "3,3,4,5,4,3]}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "Civilization one-off");
    render_both(report_combat, rep, &md, &html);
    expect_in(md, "**The defender (alice) wins** after 3 phases.");
    expect_in(md, "the defender holds a settlement");
    expect_in(md, "**Phase 3**: attacker 4, defender 5");
    expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    expect_entered(md, html);
    expect_in(md, "## Rolls (18)");
    check_mutations(report_combat, rep);
}
END_TEST

/* A campaign battle, entered, one of its pieces named with mark-up: open,
 * then won in one phase. */
START_TEST(test_civ_battle)
{
    static const fate open_fates[] = {
        {ANGLE, {"infantry, era 1", "still standing"}},
        {"j1", {"still standing"}},
    };
    static const fate over_fates[] = {
        {ANGLE, {"survived", "!destroyed"}},
        {"j1", {"destroyed", "in phase 1"}},
    };
    test_campaign c;
    char a_id[64], d_id[64], bid[64], *md, *html, *esc;
    json_t *b, *st;

    cv_campaign(&c, "bob", "alice");
    cv_unit(&c, ANGLE, "bob", "{\"class\":\"infantry\",\"era\":1,\"bonus\":0}",
            a_id);
    cv_unit(&c, "j1", "alice", "{\"class\":\"infantry\",\"era\":1,\"bonus\":0}",
            d_id);
    b = mx_battle(&c, 201,
                  "{\"system\":\"civ\",\"turn\":2,\"current_era\":1,"
                  "\"attacker\":{\"side\":\"bob\",\"units\":[\"%s\"]},"
                  "\"defender\":{\"side\":\"alice\",\"units\":[\"%s\"]},"
                  "\"dice\":{\"source\":\"entered\"}}",
                  a_id, d_id);
    snprintf(bid, sizeof bid, "%s", str(b, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "open Civilization battle");
    render_both(report_battle, b, &md, &html);
    expect_in(md, "# Civilization battle");
    expect_in(md, "No phase fought yet.");
    expect_in(md, "**Turn:** 2");
    expect_fates(md, html, open_fates, 2);
    expect_entered(md, html);
    expect_not_in(html, ANGLE);
    esc = html_model(ANGLE);
    expect_in(html, esc);
    free(esc);
    check_mutations(report_battle, b);

    st = mx_act(&c, bid, 200,
                "{\"action\":\"phase\",\"dice\":{\"attacker\":[6],"
                "\"defender\":[1]}}");
    snprintf(rig_ctx, sizeof rig_ctx, "finished Civilization battle");
    render_both(report_battle, st, &md, &html);
    expect_in(md, "**The attacker (bob) wins** after 1 phase.");
    expect_in(md, "**Phase 1**: attacker 5, defender 1");
    expect_in(md, str(st, "combat_id"));
    expect_fates(md, html, over_fates, 2);
    check_mutations(report_battle, st);
}
END_TEST

/* ---- 6. A campaign ---- */

static json_t *campaign_doc(void)
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
static void expect_in_order(const char *doc, const char *const *markers,
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

START_TEST(test_campaign_report)
{
    static const char *const order[] = {
        "cbt_1", "SUMMARY-ONE",   "cbt_2", "SUMMARY-TWO",
        "cbt_3", "SUMMARY-THREE", "bat_1"};
    static const fate fates[] = {
        {"B1", {"in play", "SCRUD modifier 0", "!eliminated"}},
        {"R2 *x*", {"eliminated", "routed", "cbt_3", "EDNA 3 of 8"}},
    };
    json_t *doc = campaign_doc();
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "campaign");
    render_both(report_campaign, doc, &md, &html);
    expect_in_order(md, order, sizeof order / sizeof order[0]);
    expect_in_order(html, order, sizeof order / sizeof order[0]);
    expect_in(md, "# The \\<script\\>alert\\(1\\)\\</script\\> "
                  "\\[ford\\]\\(x\\)");
    expect_in(html, "<title>The &lt;script&gt;alert(1)&lt;/script&gt;");
    expect_in(md, "## Combats (3)");
    expect_in(md, "**blue**, exhausted for turn 4");
    expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    /* the service's Markdown: kept in Markdown, converted in HTML */
    expect_in(md, "**SCRUD: blue vs red**");
    expect_in(html, "<strong>SCRUD: blue vs red</strong>");
    expect_in(html, "<em>Dice: entered.</em>");
    expect_in(html, "SUMMARY-THREE *x* [a](b) wins");
    expect_in(md, "SUMMARY-THREE \\*x\\* \\[a\\]\\(b\\) wins");
    expect_in(html, "&lt;img src=x");
    expect_not_in(md, "\n# not a heading");
    expect_in(md, "abc123");
    expect_in(html, "def456");
    expect_in(md, "/v1/campaigns/cmp_1/combats/cbt_2");
    check_mutations(report_campaign, doc);
    json_decref(doc);
}
END_TEST

/* ---- 7. Odd input ---- */

START_TEST(test_odd_input)
{
    static const char *const docs[] = {
        "{}",
        "[]",
        "\"x<y>*\\n# h\"",
        "42",
        "null",
        "{\"system\":\"scrud\"}",
        "{\"system\":\"scrud\",\"sides\":[1,null,{\"units\":{}}],"
        "\"pairs\":[{}],\"extra\":\"x\"}",
        "{\"system\":\"edna\",\"tests\":[{\"naturals\":\"x\"},[]],"
        "\"options\":[]}",
        "{\"system\":\"scs\",\"roll\":{\"dice\":{}},\"off_table\":true}",
        "{\"system\":\"matrix\",\"combats\":[1,\"x\",{\"rolled\":true,"
        "\"dice\":[1],\"reserves\":{}}],\"result\":{\"unit_results\":[]},"
        "\"setup\":{\"attacker\":{\"units\":[1,{}]}}}",
        "{\"system\":\"civ\",\"phases\":{\"a\":1},\"over\":true,"
        "\"input\":[]}",
        "{\"system\":\"x<y>*\\n# h\",\"id\":\"x<y>*\\n# h\"}",
        "{\"status\":\"open\",\"phases\":[[],{\"attacker\":[]}]}",
        "{\"rolls\":[{},1,{\"faces\":\"6\",\"side\":7}],\"dice\":{\"source\":"
        "\"seeded\"},\"ledger\":{\"hash\":7}}",
        "{\"campaign\":[],\"sides\":{},\"units\":[{\"side\":\"x\"}],"
        "\"combats\":[null,{\"summary\":7}],\"battles\":\"x\"}",
    };
    static const render_fn renders[] = {report_combat, report_battle,
                                        report_campaign};
    size_t i, r;

    for (i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        json_t *doc = json_loads(docs[i], JSON_DECODE_ANY, NULL);
        ck_assert_msg(doc != NULL, "case %zu is not JSON", i);
        for (r = 0; r < 3; r++) {
            snprintf(rig_ctx, sizeof rig_ctx, "odd input %zu, renderer %zu", i,
                     r);
            check_odd(renders[r], doc, false);
        }
        json_decref(doc);
    }
    for (r = 0; r < 3; r++) {
        snprintf(rig_ctx, sizeof rig_ctx, "NULL, renderer %zu", r);
        check_odd(renders[r], NULL, false);
    }
}
END_TEST

/* ---- 8. The format ---- */

START_TEST(test_format_choose)
{
    static const char browser[] =
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    static const struct {
        const char *query, *accept;
        int rc;
        report_format want;
    } cases[] = {
        {NULL, NULL, 0, REPORT_JSON},
        {NULL, browser, 0, REPORT_HTML},
        {NULL, "*/*", 0, REPORT_JSON}, /* curl */
        {NULL, "application/json", 0, REPORT_JSON},
        {NULL, "text/markdown", 0, REPORT_MARKDOWN},
        {NULL, "text/html", 0, REPORT_HTML},
        {NULL, "TEXT/HTML", 0, REPORT_HTML},
        {NULL, "text/*", 0, REPORT_MARKDOWN}, /* a tie: Markdown first */
        {NULL, "application/*", 0, REPORT_JSON},
        {NULL, "text/markdown;q=0.9, text/html;q=0.9", 0, REPORT_MARKDOWN},
        {NULL, "text/html;q=0.5, text/markdown;q=0.4", 0, REPORT_HTML},
        {NULL, "text/html, application/json;q=0.9", 0, REPORT_HTML},
        {NULL, "application/json;q=0.1, text/html;q=0.2", 0, REPORT_HTML},
        {NULL, "text/html ; q=0.8 , text/markdown ; q=0.7", 0, REPORT_HTML},
        {NULL, "text/html;level=1;q=0.4, application/json;q=0.3", 0,
         REPORT_HTML},
        {NULL, "text/html;q=0", 0, REPORT_JSON}, /* refused: none usable */
        {NULL, "*/*;q=0.1, text/html;q=0", 0, REPORT_JSON},
        {NULL, "text/*;q=0.3, */*;q=0.5", 0, REPORT_JSON},
        {NULL, "*/*;q=0.5, text/markdown;q=0.6", 0, REPORT_MARKDOWN},
        {NULL, "text/html;q=abc, text/markdown", 0, REPORT_MARKDOWN},
        {NULL, "text/html;q=1.5, text/markdown;q=0.1", 0, REPORT_MARKDOWN},
        {NULL, "text/html;q=0.0001", 0, REPORT_JSON},
        {NULL, "image/png", 0, REPORT_JSON},
        {NULL, "text/plain", 0, REPORT_JSON},
        {NULL, "garbage", 0, REPORT_JSON},
        {NULL, "", 0, REPORT_JSON},
        {NULL, ",,;q=,/", 0, REPORT_JSON},
        {"json", "text/html", 0, REPORT_JSON}, /* ?format wins */
        {"md", NULL, 0, REPORT_MARKDOWN},
        {"markdown", "application/json", 0, REPORT_MARKDOWN},
        {"html", "*/*", 0, REPORT_HTML},
        {"md", "garbage", 0, REPORT_MARKDOWN},
        {"", "text/html", -1, REPORT_JSON},
        {"xml", NULL, -1, REPORT_JSON},
        {"HTML", NULL, -1, REPORT_JSON},
        {"md ", NULL, -1, REPORT_JSON},
        {"text/html", NULL, -1, REPORT_JSON},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        report_format got = (report_format)99;
        int rc = report_format_choose(cases[i].query, cases[i].accept, &got);
        ck_assert_msg(rc == cases[i].rc, "case %zu (%s, %s): rc %d", i,
                      cases[i].query ? cases[i].query : "NULL",
                      cases[i].accept ? cases[i].accept : "NULL", rc);
        ck_assert_msg(rc != 0 || got == cases[i].want,
                      "case %zu (%s, %s): format %d, expected %d", i,
                      cases[i].query ? cases[i].query : "NULL",
                      cases[i].accept ? cases[i].accept : "NULL", (int)got,
                      (int)cases[i].want);
        ck_assert_msg(rc == 0 || got == (report_format)99,
                      "case %zu: the format was set on an error", i);
    }
    ck_assert_str_eq(report_content_type(REPORT_JSON), "application/json");
    ck_assert_str_eq(report_content_type(REPORT_MARKDOWN),
                     "text/markdown; charset=utf-8");
    ck_assert_str_eq(report_content_type(REPORT_HTML),
                     "text/html; charset=utf-8");
}
END_TEST

Suite *suite_report(void)
{
    Suite *s = suite_create("report");
    TCase *live = tcase_create("live");
    TCase *pure = tcase_create("pure");

    tcase_set_timeout(live, 120);
    tcase_add_checked_fixture(live, live_setup, live_teardown);
    tcase_add_test(live, test_scrud);
    tcase_add_test(live, test_scrud_seeded);
    tcase_add_test(live, test_campaign_combat);
    tcase_add_test(live, test_edna);
    tcase_add_test(live, test_scs);
    tcase_add_test(live, test_matrix_oneoff);
    tcase_add_test(live, test_matrix_battle);
    tcase_add_test(live, test_civ_oneoff);
    tcase_add_test(live, test_civ_battle);
    suite_add_tcase(s, live);
    tcase_set_timeout(pure, 120);
    tcase_add_checked_fixture(pure, pure_setup, pure_teardown);
    tcase_add_test(pure, test_campaign_report);
    tcase_add_test(pure, test_odd_input);
    tcase_add_test(pure, test_format_choose);
    suite_add_tcase(s, pure);
    return s;
}
