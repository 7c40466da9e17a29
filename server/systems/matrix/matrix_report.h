/*
 * matrix_report.h: Matrix game battles in reports to share (report/
 * report.h), in Markdown or HTML.
 */
#ifndef UMPIRE_MATRIX_REPORT_H
#define UMPIRE_MATRIX_REPORT_H

#include <jansson.h>

#include "report_doc.h"

/* The outcome, combats and fates of a battle's record (a combat report,
 * borrowed), into d: the render stage of the table of systems. */
void matrix_report_render(report_doc *d, const json_t *rep);

/* Matrix's part of a battle as served (kind, armies, combats, result). */
void matrix_report_battle(report_doc *d, const json_t *b);

#endif
