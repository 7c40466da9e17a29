/*
 * report_doc.c: the document writer of the reports; see report_doc.h.
 *
 * Markdown is written for Discord as much as for CommonMark: blocks are
 * separated by a blank line, list items are "- " (a nested item "  - "),
 * and text from the JSON has every mark character backslash-escaped, and
 * a leading "-", "+" or "1." escaped where it would start a line.  HTML is
 * one page with its style inline; text from the JSON has & < > " '
 * escaped.  In both, control characters in that text become spaces, so a
 * name cannot break a line.
 */
#include "report_doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Characters Markdown (or Discord's flavour of it) may read as marks. */
static const char md_marks[] = "\\`*_~|>#[]()<";

/* Readable on a phone and on a desktop, light or dark. */
static const char page_style[] =
    "<style>\n"
    ":root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fdfdfc;"
    "--mute:#5f6368;--line:#d9d9d6;--head:#f1f1ee}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e8e8e6;--bg:#1b1c1e;"
    "--mute:#a3a7ad;--line:#3a3c40;--head:#26282b}}\n"
    "body{margin:0 auto;max-width:52rem;padding:1rem;color:var(--fg);"
    "background:var(--bg);font:16px/1.5 system-ui,-apple-system,"
    "'Segoe UI',Roboto,sans-serif;overflow-wrap:anywhere}\n"
    "h1{font-size:1.5rem;margin:.5rem 0 1rem}"
    "h2{font-size:1.2rem;margin:1.5rem 0 .5rem;"
    "border-bottom:1px solid var(--line)}"
    "h3{font-size:1.05rem;margin:1rem 0 .25rem}\n"
    "ul{padding-left:1.25rem}li{margin:.15rem 0}\n"
    "code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "overflow-wrap:anywhere}\n"
    ".t{overflow-x:auto}table{border-collapse:collapse;margin:.5rem 0;"
    "font-size:.9rem}th,td{padding:.2rem .6rem;text-align:left;"
    "border-bottom:1px solid var(--line)}th{background:var(--head)}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".sm{color:var(--mute);font-size:.92rem}.sm ul{margin:.2rem 0}"
    ".sm div{margin:.1rem 0}\n"
    "</style>\n";

/* ---- appending ---- */

/* A small staging buffer in front of the document's text_buf. */
typedef struct sink {
    report_doc *d;
    char buf[256];
    size_t n;
} sink;

static void sink_flush(sink *s)
{
    if (s->n == 0)
        return;
    s->buf[s->n] = '\0';
    text_printf(&s->d->b, "%s", s->buf);
    s->n = 0;
}

static void sink_put(sink *s, const char *p)
{
    size_t len = strlen(p);

    if (s->n + len + 1 > sizeof s->buf)
        sink_flush(s);
    if (len + 1 > sizeof s->buf) {
        text_printf(&s->d->b, "%s", p);
        return;
    }
    memcpy(s->buf + s->n, p, len);
    s->n += len;
}

static void sink_char(sink *s, char c)
{
    char one[2] = {c, '\0'};

    sink_put(s, one);
}

/* One character of text in HTML: the five that matter escaped. */
static void html_char(sink *s, char c)
{
    switch (c) {
    case '&': sink_put(s, "&amp;"); break;
    case '<': sink_put(s, "&lt;"); break;
    case '>': sink_put(s, "&gt;"); break;
    case '"': sink_put(s, "&quot;"); break;
    case '\'': sink_put(s, "&#39;"); break;
    default: sink_char(s, c);
    }
}

static bool is_control(char c)
{
    return (unsigned char)c < 0x20 || c == 0x7f;
}

/* Where a Markdown line starting with v would start a list item ("-",
 * "+", or digits then "." or ")"), the index of the character to escape;
 * -1 if none. */
static int md_lead(const char *v)
{
    int i = 0, k;

    while (v[i] == ' ')
        i++;
    if (v[i] == '-' || v[i] == '+')
        return i;
    for (k = i; v[k] >= '0' && v[k] <= '9'; k++)
        ;
    return k > i && (v[k] == '.' || v[k] == ')') ? k : -1;
}

/* Text from the JSON, escaped for where it lands. */
static void put_text(sink *s, const char *v)
{
    report_doc *d = s->d;
    int lead = !d->is_html && !d->is_code && d->is_line_start ? md_lead(v) : -1;
    int i;

    for (i = 0; v[i]; i++) {
        char c = is_control(v[i]) ? ' ' : v[i];
        if (d->is_html) {
            html_char(s, c);
            continue;
        }
        if (d->is_code) {
            sink_char(s, c == '`' ? '\'' : c);
            continue;
        }
        if (i == lead || strchr(md_marks, c) != NULL)
            sink_char(s, '\\');
        sink_char(s, c);
        /* A zero-width space after @: a name such as "@everyone" pasted
         * into Discord must not mention anyone. */
        if (c == '@')
            sink_put(s, "\xe2\x80\x8b");
    }
    if (i > 0)
        d->is_line_start = false;
}

/* The report's own words (n bytes of p): **bold** and `code` marks. */
static void put_words(sink *s, const char *p, size_t n)
{
    report_doc *d = s->d;
    size_t i;

    for (i = 0; i < n; i++) {
        if (p[i] == '*' && i + 1 < n && p[i + 1] == '*') {
            sink_put(s, !d->is_html  ? "**"
                        : d->is_bold ? "</strong>"
                                     : "<strong>");
            d->is_bold = !d->is_bold;
            i++;
        } else if (p[i] == '`') {
            sink_put(s, !d->is_html ? "`" : d->is_code ? "</code>" : "<code>");
            d->is_code = !d->is_code;
        } else if (d->is_html) {
            html_char(s, p[i]);
        } else {
            sink_char(s, p[i]);
        }
    }
    if (n > 0)
        d->is_line_start = false;
}

static void vadd(report_doc *d, const char *fmt, va_list ap)
{
    sink s = {.d = d, .n = 0};
    const char *run = fmt, *p;
    char num[24];

    for (p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        put_words(&s, run, (size_t)(p - run));
        p++;
        if (*p == 's') {
            const char *v = va_arg(ap, const char *);
            if (v)
                put_text(&s, v);
        } else if (*p == 'd') {
            snprintf(num, sizeof num, "%d", va_arg(ap, int));
            put_words(&s, num, strlen(num));
        } else {
            put_words(&s, "%", 1);
            if (*p == '\0')
                p--;
        }
        run = p + 1;
    }
    put_words(&s, run, strlen(run));
    sink_flush(&s);
}

/* ---- blocks ---- */

/* Marks left open at the end of a block are closed. */
static void close_marks(report_doc *d)
{
    if (d->is_code)
        text_printf(&d->b, "%s", d->is_html ? "</code>" : "`");
    if (d->is_bold)
        text_printf(&d->b, "%s", d->is_html ? "</strong>" : "**");
    d->is_code = d->is_bold = false;
}

static bool is_item(int block)
{
    return block == REPORT_DOC_ITEM || block == REPORT_DOC_SUB;
}

/* Closes the block open before one of kind next; a list stays open when
 * next is an item. */
static void close_block(report_doc *d, int next)
{
    bool is_html = d->is_html;

    close_marks(d);
    switch (d->block) {
    case REPORT_DOC_HEADING:
        if (is_html)
            text_printf(&d->b, "</h%d>\n", d->level);
        else
            text_printf(&d->b, "\n\n");
        break;
    case REPORT_DOC_PARA:
        text_printf(&d->b, is_html ? "</p>\n" : "\n\n");
        break;
    case REPORT_DOC_ITEM:
    case REPORT_DOC_SUB:
        if (is_item(next))
            text_printf(&d->b, "%s", is_html ? "" : "\n");
        else if (!is_html)
            text_printf(&d->b, "\n\n");
        else
            text_printf(&d->b, "%s",
                        d->block == REPORT_DOC_SUB
                            ? "</li>\n</ul></li>\n</ul>\n"
                            : "</li>\n</ul>\n");
        break;
    }
}

/* Opens a block of kind (and heading level). */
static void open_block(report_doc *d, int kind, int level)
{
    int was = d->block;

    close_block(d, kind);
    if (kind == REPORT_DOC_SUB && !is_item(was))
        kind = REPORT_DOC_ITEM; /* a nested item needs an item above */
    if (kind == REPORT_DOC_HEADING) {
        d->level = level < 1 ? 1 : level > 3 ? 3 : level;
        if (d->is_html)
            text_printf(&d->b, "<h%d>", d->level);
        else
            text_printf(&d->b, "%s ",
                        d->level == 1   ? "#"
                        : d->level == 2 ? "##"
                                        : "###");
    } else if (kind == REPORT_DOC_PARA) {
        text_printf(&d->b, "%s", d->is_html ? "<p>" : "");
    } else if (!d->is_html) {
        text_printf(&d->b, "%s", kind == REPORT_DOC_SUB ? "  - " : "- ");
    } else if (!is_item(was)) {
        text_printf(&d->b, "<ul>\n<li>");
    } else if (kind == REPORT_DOC_SUB) {
        text_printf(&d->b, "%s",
                    was == REPORT_DOC_SUB ? "</li>\n<li>" : "\n<ul>\n<li>");
    } else {
        text_printf(&d->b, "%s",
                    was == REPORT_DOC_SUB ? "</li>\n</ul></li>\n<li>"
                                          : "</li>\n<li>");
    }
    d->block = kind;
    d->is_line_start = true;
}

void report_doc_begin(report_doc *d, report_format fmt, const char *title)
{
    sink s;

    memset(d, 0, sizeof *d);
    d->is_html = fmt == REPORT_HTML;
    if (!d->is_html)
        return;
    text_printf(&d->b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                       "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
                       "content=\"width=device-width, initial-scale=1\">\n"
                       "<title>");
    s.d = d;
    s.n = 0;
    put_text(&s, title ? title : "Report");
    sink_flush(&s);
    text_printf(&d->b, "</title>\n%s</head>\n<body>\n", page_style);
}

char *report_doc_end(report_doc *d)
{
    close_block(d, REPORT_DOC_NONE);
    d->block = REPORT_DOC_NONE;
    if (d->is_html)
        text_printf(&d->b, "</body>\n</html>\n");
    else if (!d->b.is_failed && d->b.len == 0)
        text_printf(&d->b, "\n");
    else
        while (!d->b.is_failed && d->b.len > 1 && d->b.s[d->b.len - 2] == '\n')
            d->b.s[--d->b.len] = '\0'; /* one newline at the end */
    return text_take(&d->b);
}

void report_doc_heading(report_doc *d, int level, const char *fmt, ...)
{
    va_list ap;

    open_block(d, REPORT_DOC_HEADING, level);
    va_start(ap, fmt);
    vadd(d, fmt, ap);
    va_end(ap);
}

void report_doc_para(report_doc *d, const char *fmt, ...)
{
    va_list ap;

    open_block(d, REPORT_DOC_PARA, 0);
    va_start(ap, fmt);
    vadd(d, fmt, ap);
    va_end(ap);
}

void report_doc_item(report_doc *d, const char *fmt, ...)
{
    va_list ap;

    open_block(d, REPORT_DOC_ITEM, 0);
    va_start(ap, fmt);
    vadd(d, fmt, ap);
    va_end(ap);
}

void report_doc_sub(report_doc *d, const char *fmt, ...)
{
    va_list ap;

    open_block(d, REPORT_DOC_SUB, 0);
    va_start(ap, fmt);
    vadd(d, fmt, ap);
    va_end(ap);
}

void report_doc_add(report_doc *d, const char *fmt, ...)
{
    va_list ap;

    if (d->block == REPORT_DOC_NONE)
        open_block(d, REPORT_DOC_PARA, 0);
    va_start(ap, fmt);
    vadd(d, fmt, ap);
    va_end(ap);
}

void report_doc_newline(report_doc *d)
{
    if (d->block == REPORT_DOC_NONE)
        open_block(d, REPORT_DOC_PARA, 0);
    close_marks(d);
    if (d->is_html)
        text_printf(&d->b, "<br>");
    else
        text_printf(&d->b, "\n%s",
                    d->block == REPORT_DOC_SUB    ? "    "
                    : d->block == REPORT_DOC_ITEM ? "  "
                                                  : "");
    d->is_line_start = true;
}

/* ---- the service's Markdown ---- */

/* One line of the service's Markdown as HTML: **bold**, a whole line in
 * _italics_, backslash escapes; everything else is text. */
static void service_inline(sink *s, const char *p, size_t n)
{
    bool is_bold = false;
    bool is_em = n >= 2 && p[0] == '_' && p[n - 1] == '_' && p[n - 2] != '\\';
    size_t i = is_em ? 1 : 0;

    if (is_em) {
        sink_put(s, "<em>");
        n--;
    }
    for (; i < n; i++) {
        if (p[i] == '\\' && i + 1 < n) {
            i++;
        } else if (p[i] == '*' && i + 1 < n && p[i + 1] == '*') {
            sink_put(s, is_bold ? "</strong>" : "<strong>");
            is_bold = !is_bold;
            i++;
            continue;
        }
        html_char(s, is_control(p[i]) ? ' ' : p[i]);
    }
    if (is_bold)
        sink_put(s, "</strong>");
    if (is_em)
        sink_put(s, "</em>");
}

/* The service's Markdown as HTML: "- " lines a list, an indented line
 * under an item goes with it, other lines one each. */
static void service_html(report_doc *d, const char *md)
{
    sink s = {.d = d, .n = 0};
    bool in_ul = false, in_li = false;
    const char *line = md;

    sink_put(&s, "<div class=\"sm\">");
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line), lead = 0;
        while (lead < n && line[lead] == ' ')
            lead++;
        if (lead + 2 <= n && line[lead] == '-' && line[lead + 1] == ' ') {
            sink_put(&s, in_li ? "</li><li>" : in_ul ? "<li>" : "<ul><li>");
            service_inline(&s, line + lead + 2, n - lead - 2);
            in_ul = in_li = true;
        } else if (lead < n && lead > 0 && in_li) {
            sink_put(&s, "<br>");
            service_inline(&s, line + lead, n - lead);
        } else if (lead < n) {
            sink_put(&s, in_li ? "</li></ul><div>" : "<div>");
            service_inline(&s, line + lead, n - lead);
            sink_put(&s, "</div>");
            in_ul = in_li = false;
        }
        line += end ? n + 1 : n;
    }
    sink_put(&s, in_li ? "</li></ul></div>" : "</div>");
    sink_flush(&s);
}

/* The service's Markdown under the item open: each line indented, with
 * what could end the item or the document neutralized (a code fence, a
 * heading, a quote). */
static void service_markdown(report_doc *d, const char *md)
{
    sink s = {.d = d, .n = 0};
    const char *p = md;

    while (*p) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p), i, lead = 0;
        while (lead < n && p[lead] == ' ')
            lead++;
        if (lead < n) {
            sink_put(&s, "\n  ");
            for (i = 0; i < n; i++) {
                char c = is_control(p[i]) ? ' ' : p[i];
                if (i == lead && (c == '#' || c == '>'))
                    sink_char(&s, '\\');
                sink_char(&s, c == '`' ? '\'' : c);
            }
        }
        p += end ? n + 1 : n;
    }
    sink_flush(&s);
}

void report_doc_service_md(report_doc *d, const char *md)
{
    if (md == NULL || md[0] == '\0')
        return;
    if (d->block == REPORT_DOC_NONE)
        open_block(d, REPORT_DOC_PARA, 0);
    close_marks(d);
    if (d->is_html)
        service_html(d, md);
    else
        service_markdown(d, md);
    d->is_line_start = false;
}

void report_doc_raw(report_doc *d, const char *markup)
{
    text_printf(&d->b, "%s", markup);
}

void report_doc_text(report_doc *d, const char *text)
{
    sink s = {.d = d, .n = 0};

    put_text(&s, text);
    sink_flush(&s);
}

void report_doc_close(report_doc *d)
{
    close_block(d, REPORT_DOC_NONE);
    d->block = REPORT_DOC_NONE;
}

/* ---- lookups in the JSON ---- */

const char *const rj_army_key[2] = {"attacker", "defender"};
const char *const rj_army_label[2] = {"Attacker", "Defender"};

json_t *rj_get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

const char *rj_str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

bool rj_num(const json_t *o, const char *k, int *v)
{
    json_t *j = json_object_get(o, k);

    if (!json_is_integer(j))
        return false;
    *v = (int)json_integer_value(j);
    return true;
}

bool rj_is_true(const json_t *o, const char *k)
{
    return json_is_true(json_object_get(o, k));
}

const char *rj_name_of(const json_t *o, const char *k)
{
    const char *s = rj_str(o, k);

    return s ? s : "unnamed";
}

bool rj_is_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

void rj_names(report_doc *d, const json_t *arr)
{
    const json_t *v;
    size_t i;

    json_array_foreach(arr, i, v)
        report_doc_add(d, "%s%s", i ? ", " : "", json_string_value(v));
}

int rj_army_index(const char *key)
{
    return rj_is_eq(key, rj_army_key[0])   ? 0
           : rj_is_eq(key, rj_army_key[1]) ? 1
                                           : -1;
}
