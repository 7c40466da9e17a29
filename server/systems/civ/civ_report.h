/*
 * civ_report.h: Civilization battles in reports to share (report/
 * report.h), in Markdown or HTML.
 */
#ifndef UMPIRE_CIV_REPORT_H
#define UMPIRE_CIV_REPORT_H

#include <jansson.h>

#include "report_doc.h"

/* The phases, outcome and every piece's fate of a battle's record (a
 * combat report, borrowed), into d: the render stage of the table of
 * systems. */
void civ_report_render(report_doc *d, const json_t *rep);

/* Civilization's part of a battle as served: options, armies, phases,
 * the next wave and the result. */
void civ_report_battle(report_doc *d, const json_t *b);

#endif
