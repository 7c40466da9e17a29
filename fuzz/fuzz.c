/*
 * fuzz.c: what the fuzz targets share; see fuzz.h.
 *
 * The document checks read what report_doc.c writes: HTML is one page
 * whose tags and attributes are all the writer's own words (no JSON text
 * ever lands inside a tag), and whose text has & < > " ' as entities; a
 * Markdown table is a fenced code block the writer opens and closes
 * itself.  A check that fails is either a bug in a renderer or a change
 * of the writer this file has to learn; README.md says which to suspect.
 */
#include "fuzz.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

/* ---- repeatable random bytes ---- */

static uint64_t g_state;

/* splitmix64: a small, good enough stream; nothing here is secret. */
static uint64_t next64(void)
{
    uint64_t z = (g_state += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const char *fake_name(void)
{
    return "umpire-fuzz";
}

static uint32_t fake_random(void)
{
    return (uint32_t)next64();
}

static void fake_buf(void *const buf, const size_t size)
{
    unsigned char *p = buf;
    size_t i;

    for (i = 0; i < size; i++)
        p[i] = (unsigned char)next64();
}

static randombytes_implementation g_fake = {
    .implementation_name = fake_name,
    .random = fake_random,
    .stir = NULL,
    .uniform = NULL, /* libsodium's own, over random() */
    .buf = fake_buf,
    .close = NULL,
};

void fuzz_init(void)
{
    fuzz_check(randombytes_set_implementation(&g_fake) == 0,
               "randombytes_set_implementation failed");
    fuzz_check(sodium_init() >= 0, "sodium_init failed");
    fuzz_dice_reset();
}

void fuzz_dice_reset(void)
{
    g_state = 0x756d70697265ull; /* "umpire" */
}

void fuzz_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "\n==umpire-fuzz== check failed at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ---- UTF-8 ---- */

bool fuzz_utf8_ok(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;

    while (i < len) {
        unsigned c = s[i];
        size_t n, k;
        unsigned long cp;

        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            n = 1, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            n = 2, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            n = 3, cp = c & 0x07;
        else
            return false;
        for (k = 1; k <= n; k++) {
            if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += n + 1;
    }
    return true;
}

/* ---- rendered documents ---- */

/* Every tag report_doc.c and report_doc_table.c write, and every
 * attribute list they give one (" " first); meta and br have no end. */
static const char *const html_tags[] = {
    "html",  "head",  "meta", "title", "style",  "body", "h1", "h2",
    "h3",    "p",     "ul",   "li",    "strong", "code", "em", "table",
    "thead", "tbody", "tr",   "th",    "td",     "div",  "br", NULL};
static const char *const html_attrs[] = {
    "",
    " lang=\"en\"",
    " charset=\"utf-8\"",
    " name=\"viewport\" content=\"width=device-width, initial-scale=1\"",
    " class=\"sm\"",
    " class=\"t\"",
    " class=\"n\"",
    NULL};
static const char *const html_entities[] = {"&amp;",  "&lt;",  "&gt;",
                                            "&quot;", "&#39;", NULL};

#define HTML_DEPTH_MAX 64

static int html_tag(const char *name, size_t n)
{
    int i;

    for (i = 0; html_tags[i]; i++)
        if (strlen(html_tags[i]) == n && strncmp(html_tags[i], name, n) == 0)
            return i;
    return -1;
}

static bool html_attrs_ok(const char *a, size_t n)
{
    int i;

    for (i = 0; html_attrs[i]; i++)
        if (strlen(html_attrs[i]) == n && strncmp(html_attrs[i], a, n) == 0)
            return true;
    return false;
}

/* One tag at p ('<'): checked, pushed or popped; returns the character
 * after it (after the style sheet, for <style>). */
static const char *html_one_tag(const char *what, const char *doc,
                                const char *p, int stack[], size_t *depth)
{
    const char *end = strchr(p, '>'), *name, *lt;
    bool is_close = p[1] == '/';
    size_t n = 0;
    int t;

    fuzz_check(end != NULL, "%s: HTML: a '<' never closed at byte %zu", what,
               (size_t)(p - doc));
    lt = memchr(p + 1, '<', (size_t)(end - p - 1));
    fuzz_check(lt == NULL, "%s: HTML: '<' inside a tag at byte %zu", what,
               (size_t)(lt ? lt - doc : 0));
    name = p + 1 + is_close;
    while (isalnum((unsigned char)name[n]))
        n++;
    t = html_tag(name, n);
    fuzz_check(t >= 0,
               "%s: HTML: a tag the writer never writes at byte %zu: "
               "%.*s",
               what, (size_t)(p - doc), (int)(end - p + 1), p);
    fuzz_check(is_close ? name + n == end
                        : html_attrs_ok(name + n, (size_t)(end - name - n)),
               "%s: HTML: attributes the writer never writes at byte %zu: "
               "%.*s",
               what, (size_t)(p - doc), (int)(end - p + 1), p);
    if (is_close) {
        fuzz_check(*depth > 0 && stack[*depth - 1] == t,
                   "%s: HTML: </%s> at byte %zu closes %s", what, html_tags[t],
                   (size_t)(p - doc),
                   *depth ? html_tags[stack[*depth - 1]] : "nothing");
        (*depth)--;
        return end + 1;
    }
    if (strcmp(html_tags[t], "meta") == 0 || strcmp(html_tags[t], "br") == 0)
        return end + 1;
    fuzz_check(*depth < HTML_DEPTH_MAX, "%s: HTML: nested too deep", what);
    stack[(*depth)++] = t;
    if (strcmp(html_tags[t], "style") == 0) {
        const char *close = strstr(end, "</style>");
        fuzz_check(close != NULL, "%s: HTML: <style> never closed", what);
        return close;
    }
    return end + 1;
}

static void check_html(const char *what, const char *doc)
{
    static const char head[] = "<!DOCTYPE html>\n";
    int stack[HTML_DEPTH_MAX];
    size_t depth = 0, i;
    const char *p = doc;

    fuzz_check(strncmp(p, head, sizeof head - 1) == 0,
               "%s: HTML: no doctype first", what);
    for (p += sizeof head - 1; *p;) {
        if (*p == '<') {
            p = html_one_tag(what, doc, p, stack, &depth);
            continue;
        }
        if (*p == '&') {
            for (i = 0; html_entities[i]; i++)
                if (strncmp(p, html_entities[i], strlen(html_entities[i])) == 0)
                    break;
            fuzz_check(html_entities[i] != NULL,
                       "%s: HTML: a bare '&' at byte %zu: %.16s", what,
                       (size_t)(p - doc), p);
            p += strlen(html_entities[i]);
            continue;
        }
        fuzz_check(*p != '>' && *p != '"' && *p != '\'',
                   "%s: HTML: an unescaped %c at byte %zu: ...%.40s", what, *p,
                   (size_t)(p - doc), p > doc + 20 ? p - 20 : doc);
        p++;
    }
    fuzz_check(depth == 0, "%s: HTML: %zu tags left open, the last <%s>", what,
               depth, depth ? html_tags[stack[depth - 1]] : "");
}

static void check_markdown(const char *what, const char *doc)
{
    const char *line = doc;
    size_t fences = 0;

    while (*line) {
        const char *p = line, *nl = strchr(line, '\n');
        while (*p == ' ')
            p++;
        if (strncmp(p, "```", 3) == 0)
            fences++;
        if (nl == NULL)
            break;
        line = nl + 1;
    }
    fuzz_check(fences % 2 == 0,
               "%s: Markdown: a code block left open (%zu "
               "fences)",
               what, fences);
}

void fuzz_check_doc(const char *what, const char *text, report_format fmt)
{
    size_t len = strlen(text), i;

    fuzz_check(fuzz_utf8_ok(text, len), "%s: not valid UTF-8", what);
    for (i = 0; i < len; i++)
        fuzz_check(text[i] == '\n' ||
                       ((unsigned char)text[i] >= 0x20 && text[i] != 0x7f),
                   "%s: control character 0x%02x at byte %zu", what,
                   (unsigned char)text[i], i);
    if (fmt == REPORT_HTML)
        check_html(what, text);
    else
        check_markdown(what, text);
}

void fuzz_render_both(const char *what,
                      char *(*render)(const json_t *, report_format),
                      const json_t *json)
{
    static const report_format fmts[] = {REPORT_MARKDOWN, REPORT_HTML};
    char name[64];
    size_t i;

    for (i = 0; i < 2; i++) {
        char *doc = render(json, fmts[i]);
        snprintf(name, sizeof name, "%s as %s", what, i ? "HTML" : "Markdown");
        fuzz_check(doc != NULL, "%s: the renderer returned NULL", name);
        fuzz_check_doc(name, doc, fmts[i]);
        free(doc);
    }
}

/* ---- writing seeds ---- */

bool fuzz_is_emitting(void)
{
    const char *dir = getenv("UMPIRE_FUZZ_EMIT");

    return dir != NULL && dir[0] != '\0';
}

void fuzz_emit(char selector, const char *text, size_t len)
{
    const char *dir = getenv("UMPIRE_FUZZ_EMIT");
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    char path[4096];
    FILE *f;
    size_t i;

    if (!fuzz_is_emitting())
        return;
    h = (h ^ (unsigned char)selector) * 0x100000001b3ull;
    for (i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    snprintf(path, sizeof path, "%s/%c-%016llx", dir, selector,
             (unsigned long long)h);
    f = fopen(path, "wb");
    fuzz_check(f != NULL, "cannot write the seed %s", path);
    fputc(selector, f);
    fwrite(text, 1, len, f);
    fuzz_check(fclose(f) == 0, "cannot write the seed %s", path);
}
