/*
 * report_rig.h: what the report suite (test_report.c, beside it) needs
 * on top of scs_rig.h: plain models of the escaping the reports do, the
 * checks every Markdown text and HTML page must pass (no table; a whole
 * page with no script, outside resource or unknown tag, every element
 * closed), a unit's fate on its line, entered and seeded dice, odd input
 * and every member of a report replaced by values of the wrong type,
 * one-off combats posted, and the hand-built documents the tests render.
 *
 * Texts report_rig_render_both returns are kept by the rig until teardown
 * (borrowed by the caller); JSON from report_rig_oneoff is kept by the
 * scs rig.  Helpers abort the test (Check) on failure, naming rig_ctx.
 */
#ifndef UMPIRE_TESTS_REPORT_RIG_H
#define UMPIRE_TESTS_REPORT_RIG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "report.h"
#include "scs_rig.h"

/* Names that would change a document's structure if written raw. */
#define REPORT_RIG_ANGLE "<b>&\"x'"
#define REPORT_RIG_STARS "*bold*_x_"

/* report_combat, report_battle or report_campaign. */
typedef char *(*report_rig_render_fn)(const json_t *, report_format);

/* A unit and the words its line must hold ("!" first: must not). */
typedef struct report_rig_fate {
    const char *unit;
    const char *words[5];
} report_rig_fate;

/* Checked fixtures.  Pure: no server; live: scs_rig_setup.  Both
 * teardowns free the texts kept. */
void report_rig_pure_setup(void);
void report_rig_pure_teardown(void);
void report_rig_live_setup(void);
void report_rig_live_teardown(void);

/* s escaped as the reports escape text (new: the caller frees it).
 * Markdown backslashes each mark character; HTML writes & < > " ' as
 * entities. */
char *report_rig_md_model(const char *s);
char *report_rig_html_model(const char *s);

/* How often needle occurs in hay, without overlaps. */
size_t report_rig_count(const char *hay, const char *needle);

/* md with its code blocks and code spans blanked (new): what is left is
 * read as Markdown. */
char *report_rig_outside_code(const char *md);

/* Renders doc both ways, checks the Markdown and the page; the two texts
 * (kept) in md, html. */
void report_rig_render_both(report_rig_render_fn render, const json_t *doc,
                            char **md, char **html);

/* what is (is not) in doc. */
void report_rig_expect_in(const char *doc, const char *what);
void report_rig_expect_not_in(const char *doc, const char *what);

/* The line of doc where f's unit's name is in bold (escaped for HTML if
 * is_html, for Markdown if not) holds f's words. */
void report_rig_expect_fate(const char *doc, bool is_html,
                            const report_rig_fate *f);
/* Each of the n fates in both texts. */
void report_rig_expect_fates(const char *md, const char *html,
                             const report_rig_fate *fates, size_t n);

/* Entered dice: said so, and no seed. */
void report_rig_expect_entered(const char *md, const char *html);
/* Seeded dice with the seed revealed: commitment, seed, how to check. */
void report_rig_expect_seeded(const char *md, const char *html,
                              const json_t *dice);

/* Renders doc (may be NULL) both ways and checks what must hold of any
 * input, hostile text escaped; frees the texts.  is_md_text: hostile text
 * may be the service's own Markdown (a campaign combat's
 * "summary_markdown"), passed on as it is. */
void report_rig_check_odd(report_rig_render_fn render, const json_t *doc,
                          bool is_md_text);
/* report_rig_check_odd on doc with every member, and every member of the
 * objects one level down, replaced in turn by values of the wrong type. */
void report_rig_check_mutations(report_rig_render_fn render, const json_t *doc);

/* Posts a one-off combat of system (body printf-style), which must answer
 * 201 with rolls; the report (kept by the scs rig). */
json_t *report_rig_oneoff(const char *system, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The worked example of docs/rules/scrud.md, with the Militia and the
 * Dragoons renamed to REPORT_RIG_STARS and REPORT_RIG_ANGLE, posted with
 * entered dice: the report (kept). */
json_t *report_rig_scrud_example(void);

/* Each unit of a finished Matrix battle's result on its line. */
void report_rig_expect_matrix_result(const char *md, const char *html,
                                     const json_t *result);

/* A campaign report built by hand (new): a name full of mark-up, combats
 * cbt_1..cbt_3 with summaries SUMMARY-ONE..SUMMARY-THREE (the first the
 * service's Markdown, the others hostile text), battle bat_1, units B1
 * and "R2 *x*". */
json_t *report_rig_campaign_doc(void);

/* The n markers appear in doc, each after the one before. */
void report_rig_expect_in_order(const char *doc, const char *const *markers,
                                size_t n);

#endif
