/*
 * scs_report.h: an SCS combat in a report to share (report/report.h): the
 * outcome and every unit's fate, in Markdown or HTML.
 */
#ifndef UMPIRE_SCS_REPORT_H
#define UMPIRE_SCS_REPORT_H

#include <jansson.h>

#include "report_doc.h"

/* The outcome and every unit's fate of a stored report (borrowed), into
 * d: the render stage of the table of systems (systems.h). */
void scs_report_render(report_doc *d, const json_t *rep);

#endif
