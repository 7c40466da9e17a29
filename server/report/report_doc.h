/*
 * report_doc.h: the document writer of the reports (report.h), and the
 * parts the report_*.c files and the systems' <system>_report.c files
 * (systems/<system>/) share.  One set of calls writes either format:
 * headings, paragraphs, two-level lists, tables and the service's own
 * Markdown summaries.
 *
 * Inline text is given printf-style with %s, %d and %% only.  The format
 * string is the report's own words and may mark **bold** and `code` the
 * Markdown way (HTML gets <strong> and <code>); every %s argument is text
 * from the JSON and is escaped for the format, so it can never open a
 * mark, a heading or a list of its own.  A NULL %s writes nothing.
 */
#ifndef UMPIRE_REPORT_DOC_H
#define UMPIRE_REPORT_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "report.h"
#include "text.h"

/* The kinds of block a document has open. */
enum {
    REPORT_DOC_NONE,
    REPORT_DOC_HEADING,
    REPORT_DOC_PARA,
    REPORT_DOC_ITEM,
    REPORT_DOC_SUB
};

typedef struct report_doc {
    text_buf b;
    bool is_html;
    int block;          /* REPORT_DOC_*: the block being written */
    int level;          /* the open heading's level */
    bool is_bold;       /* a **bold** mark is open in the block */
    bool is_code;       /* a `code` mark is open in the block */
    bool is_line_start; /* nothing written yet on the block's line */
} report_doc;

/* Starts a document; title (text from the JSON, escaped) names the HTML
 * page.  The first heading is the caller's. */
void report_doc_begin(report_doc *d, report_format fmt, const char *title);
/* Ends it: the text (new, free()), or NULL when out of memory. */
char *report_doc_end(report_doc *d);

/* Blocks: each closes the one before.  level is 1 to 3. */
void report_doc_heading(report_doc *d, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void report_doc_para(report_doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A list item, and an item of a list inside the item before it. */
void report_doc_item(report_doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void report_doc_sub(report_doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* More inline text in the block open. */
void report_doc_add(report_doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A line break inside the block open (an item's next line is indented
 * under it). */
void report_doc_newline(report_doc *d);

/*
 * The service's Markdown (a combat's summary: lines, "- " items, **bold**,
 * an _italic_ line, backslash escapes) inside the item open: indented
 * under it in Markdown, its lines and items converted in HTML, all of
 * its text escaped.
 */
void report_doc_service_md(report_doc *d, const char *md);

/* Lower level, for report_doc_table.c: markup written as it is (the
 * caller's own, for the format); text from the JSON, escaped; the block
 * open closed. */
void report_doc_raw(report_doc *d, const char *markup);
void report_doc_text(report_doc *d, const char *text);
void report_doc_close(report_doc *d);

#define REPORT_DOC_MAX_COLS 8

/* A table (report_doc_table.c): an HTML table, or in Markdown a code
 * block with its columns aligned (chat renders no tables).  Cells are
 * copied. */
typedef struct report_doc_table {
    size_t n_cols;
    const char *head[REPORT_DOC_MAX_COLS]; /* the report's own words */
    bool is_num[REPORT_DOC_MAX_COLS];      /* aligned right */
    char **cells;                          /* owned, row by row */
    size_t n_cells, cap;
    bool is_failed;
} report_doc_table;

/* head: n_cols column names, a leading '#' in one marks it numeric. */
void report_doc_table_init(report_doc_table *t, size_t n_cols,
                           const char *const *head);
/* The next cell (NULL or "" shows a dash). */
void report_doc_table_cell(report_doc_table *t, const char *text);
void report_doc_table_int(report_doc_table *t, const json_t *v);
void report_doc_table_write(report_doc *d, const report_doc_table *t);
void report_doc_table_cleanup(report_doc_table *t);

/* ---- parts shared by the report_*.c and <system>_report.c files ---- */

/* The title's name of a system ("SCRUD", "Civilization"...), or the
 * system as given (may be NULL). */
const char *report_doc_system_name(const char *system);

/* Where the roll log of the dice being reported is. */
enum {
    REPORT_DOC_ROLLS_HERE,      /* a combat report: its "rolls" */
    REPORT_DOC_ROLLS_IN_RECORD, /* a battle over: its record's */
    REPORT_DOC_ROLLS_NONE       /* a battle open or abandoned: none kept */
};

/* The dice section: source, seed and how to check it; rolls_at:
 * REPORT_DOC_ROLLS_*; is_open: a battle still open, whose seed stays
 * secret. */
void report_doc_dice(report_doc *d, const json_t *dice, int rolls_at,
                     bool is_open);
/* The roll log as a table. */
void report_doc_rolls(report_doc *d, const json_t *rolls);

/*
 * Lookups in the JSON being rendered, shared by the report_*.c and
 * <system>_report.c files ("rj": report JSON).  Members are borrowed;
 * absent or mistyped ones read as NULL, false or "unnamed", so odd input
 * renders without them.
 */
json_t *rj_get(const json_t *o, const char *k);
const char *rj_str(const json_t *o, const char *k);
/* An integer member into *v; false when absent or not an integer. */
bool rj_num(const json_t *o, const char *k, int *v);
bool rj_is_true(const json_t *o, const char *k);
/* A string member, or "unnamed". */
const char *rj_name_of(const json_t *o, const char *k);
/* Both non-NULL and equal. */
bool rj_is_eq(const char *a, const char *b);
/* An array of names, comma-separated, into d. */
void rj_names(report_doc *d, const json_t *arr);
/* The armies of a battle: their keys and labels, and a key's index (or
 * -1). */
extern const char *const rj_army_key[2];
extern const char *const rj_army_label[2];
int rj_army_index(const char *key);

#endif
