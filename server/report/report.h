/*
 * report.h: combats, battles and campaigns as documents to share: Markdown
 * to paste into a chat (Discord renders headings, bold, lists and code
 * blocks, but no tables) and a standalone HTML page to send to players
 * (inline style, no script, no external resource).
 *
 * The renderers read the JSON the service already serves and never fail
 * on odd input: a member missing or of the wrong type is left out.  Every
 * piece of text that came from the JSON is escaped for the format, so a
 * name cannot change the document's structure.  Files: report.c (formats,
 * a combat of any system and its dice), report_doc.c and
 * report_doc_table.c (the writer), report_battle.c (a battle's frame),
 * report_campaign.c.  Each system's own part of a combat or a battle is
 * its render stage in the table of systems (systems.h), in
 * systems/<system>/<system>_report.c.
 */
#ifndef UMPIRE_REPORT_H
#define UMPIRE_REPORT_H

#include <jansson.h>

typedef enum report_format {
    REPORT_JSON,
    REPORT_MARKDOWN,
    REPORT_HTML
} report_format;

/*
 * Chooses the format of a response.  query: the ?format= value or NULL
 * ("json", "md", "markdown", "html"; anything else is invalid).  accept:
 * the Accept header or NULL, read as media ranges with q-values among
 * application/json, text/markdown and text/html, and the ranges with a
 * "*" for the subtype or for both that cover them: the most specific
 * range naming a format gives its q, the highest q wins, ties go to JSON,
 * then Markdown, then HTML, and no usable range means JSON.
 * ?format wins over Accept.  Returns 0 with *out set, or -1 for an
 * invalid ?format value (*out untouched).
 */
int report_format_choose(const char *query, const char *accept,
                         report_format *out);

/* The Content-Type of a format (a static string). */
const char *report_content_type(report_format f);

/*
 * Each returns a new NUL-terminated text (free()), or NULL when out of
 * memory.  fmt is REPORT_MARKDOWN or REPORT_HTML (anything else renders
 * Markdown).  The JSON is borrowed.
 */

/* A combat report as served by GET /v1/combats/{id} or GET
 * /v1/campaigns/{cid}/combats/{id} (with its "rolls"), of any system. */
char *report_combat(const json_t *combat, report_format fmt);

/* A battle as served by GET /v1/campaigns/{cid}/battles/{id}, Matrix or
 * Civilization, open or over. */
char *report_battle(const json_t *battle, report_format fmt);

/* A campaign's report: {"campaign", "sides", "units", "combats",
 * "battles"} (see report_campaign.c). */
char *report_campaign(const json_t *report, report_format fmt);

#endif
