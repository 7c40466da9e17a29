/*
 * report_doc_table.c: the tables of the reports (report_doc.h): an HTML
 * table, or in Markdown a code block with its columns aligned, since chat
 * renders no tables.  Inside the code block nothing is escaped, so a cell
 * only has its control characters turned into spaces and its backticks
 * into quotes: it can neither break a row nor close the block.
 */
#include "report_doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_doc_table_init(report_doc_table *t, size_t n_cols,
                           const char *const *head)
{
    size_t i;

    memset(t, 0, sizeof *t);
    t->n_cols = n_cols < REPORT_DOC_MAX_COLS ? n_cols : REPORT_DOC_MAX_COLS;
    for (i = 0; i < t->n_cols; i++) {
        t->is_num[i] = head[i][0] == '#';
        t->head[i] = head[i] + t->is_num[i];
    }
}

void report_doc_table_cell(report_doc_table *t, const char *text)
{
    char *copy;

    if (t->is_failed)
        return;
    if (t->n_cells == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **cells = realloc(t->cells, cap * sizeof *cells);
        if (cells == NULL) {
            t->is_failed = true;
            return;
        }
        t->cells = cells;
        t->cap = cap;
    }
    if ((copy = strdup(text ? text : "")) == NULL) {
        t->is_failed = true;
        return;
    }
    t->cells[t->n_cells++] = copy;
}

void report_doc_table_int(report_doc_table *t, const json_t *v)
{
    char num[24];

    if (!json_is_integer(v)) {
        report_doc_table_cell(t, NULL);
        return;
    }
    snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
    report_doc_table_cell(t, num);
}

void report_doc_table_cleanup(report_doc_table *t)
{
    size_t i;

    for (i = 0; i < t->n_cells; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* Characters on screen of UTF-8 text (continuation bytes do not count). */
static size_t text_width(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static const char *cell_text(const char *text)
{
    return text[0] ? text : "\xE2\x80\x94"; /* an em dash */
}

/* n spaces (or dashes). */
static void repeat(report_doc *d, char c, size_t n)
{
    char run[65];

    memset(run, c, sizeof run - 1);
    while (n > 0) {
        size_t k = n < sizeof run - 1 ? n : sizeof run - 1;
        run[k] = '\0';
        report_doc_raw(d, run);
        run[k] = c;
        n -= k;
    }
}

/* A cell of the code block: padded to width, safe inside the fence. */
static void code_cell(report_doc *d, const char *text, size_t width,
                      bool is_right, bool is_last)
{
    size_t pad = width - text_width(text);
    char *safe = strdup(text), *p;

    if (safe == NULL) {
        d->b.is_failed = true;
        return;
    }
    for (p = safe; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
        else if (*p == '`')
            *p = '\'';
    if (is_right)
        repeat(d, ' ', pad);
    report_doc_raw(d, safe);
    if (!is_right && !is_last)
        repeat(d, ' ', pad);
    report_doc_raw(d, is_last ? "\n" : "  ");
    free(safe);
}

static void table_markdown(report_doc *d, const report_doc_table *t,
                           size_t n_rows)
{
    size_t width[REPORT_DOC_MAX_COLS], r, c;

    for (c = 0; c < t->n_cols; c++) {
        width[c] = text_width(t->head[c]);
        for (r = 0; r < n_rows; r++) {
            size_t w = text_width(cell_text(t->cells[r * t->n_cols + c]));
            width[c] = w > width[c] ? w : width[c];
        }
    }
    report_doc_raw(d, "```\n");
    for (c = 0; c < t->n_cols; c++)
        code_cell(d, t->head[c], width[c], t->is_num[c], c + 1 == t->n_cols);
    for (c = 0; c < t->n_cols; c++) {
        repeat(d, '-', width[c]);
        report_doc_raw(d, c + 1 == t->n_cols ? "\n" : "  ");
    }
    for (r = 0; r < n_rows; r++)
        for (c = 0; c < t->n_cols; c++)
            code_cell(d, cell_text(t->cells[r * t->n_cols + c]), width[c],
                      t->is_num[c], c + 1 == t->n_cols);
    report_doc_raw(d, "```\n\n");
}

static void table_html(report_doc *d, const report_doc_table *t, size_t n_rows)
{
    size_t r, c;

    report_doc_raw(d, "<div class=\"t\"><table>\n<thead><tr>");
    for (c = 0; c < t->n_cols; c++) {
        report_doc_raw(d, t->is_num[c] ? "<th class=\"n\">" : "<th>");
        report_doc_text(d, t->head[c]);
        report_doc_raw(d, "</th>");
    }
    report_doc_raw(d, "</tr></thead>\n<tbody>\n");
    for (r = 0; r < n_rows; r++) {
        report_doc_raw(d, "<tr>");
        for (c = 0; c < t->n_cols; c++) {
            report_doc_raw(d, t->is_num[c] ? "<td class=\"n\">" : "<td>");
            report_doc_text(d, cell_text(t->cells[r * t->n_cols + c]));
            report_doc_raw(d, "</td>");
        }
        report_doc_raw(d, "</tr>\n");
    }
    report_doc_raw(d, "</tbody></table></div>\n");
}

void report_doc_table_write(report_doc *d, const report_doc_table *t)
{
    size_t n_rows = t->n_cols ? t->n_cells / t->n_cols : 0;

    report_doc_close(d);
    if (t->is_failed) {
        d->b.is_failed = true; /* the document fails as a whole */
        return;
    }
    if (t->n_cols == 0)
        return;
    if (d->is_html)
        table_html(d, t, n_rows);
    else
        table_markdown(d, t, n_rows);
}
