/*
 * edna_json.h: EDNA tests (docs/rules/edna.md) between JSON and core: the
 * job of a request (its units as asked, their names, sides and EDNA, the
 * entered dice), the options, a unit of the request, and the report's
 * tests and Markdown summary.  edna_stages.c runs it.
 */
#ifndef UMPIRE_EDNA_JSON_H
#define UMPIRE_EDNA_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "combat.h"
#include "edna.h"
#include "jsonw.h"

typedef struct edna_job {
    combat_record rec; /* first: combat_finish finds it as the state */
    edna_input in;
    edna_unit units[EDNA_MAX_UNITS];
    char unit_ref[EDNA_MAX_UNITS][DB_NAME_MAX]; /* campaign: as asked */
    char unit_name[EDNA_MAX_UNITS][DB_NAME_MAX];
    char unit_id[EDNA_MAX_UNITS][DB_ID_MAX];     /* "" one-off */
    char side_name[EDNA_MAX_UNITS][DB_NAME_MAX]; /* "" one-off */
    int start[EDNA_MAX_UNITS];                   /* starting EDNA */
    int entered[EDNA_MAX_UNITS][EDNA_MAX_DICE];
    int n_entered[EDNA_MAX_UNITS];
    edna_result res; /* once run */
    json_t *options; /* the request's (a reference) or NULL */
} edna_job;

/* The "options" object (dice, faces) over o. */
err_code edna_json_options(const json_t *obj, edna_options *o, err_info *e);

/* Unit i of the request, at path: by reference in a campaign (its
 * EDNA is the campaign's, bound later), inline one-off (name, edna,
 * start); its modifier and entered dice. */
err_code edna_json_unit(const json_t *u, const char *path, bool is_campaign,
                        edna_job *j, size_t i, err_info *e);

/* Unit i's test as in the report (members into the object open in w),
 * and the report's "tests" array. */
void edna_json_test_write(jw *w, const edna_job *j, const edna_result *res,
                          size_t i);
void edna_json_tests_write(jw *w, const edna_job *j, const edna_result *res);

/* The Markdown summary of the tests (new, free()), or NULL. */
char *edna_json_markdown(const edna_job *j, const edna_result *res);

#endif
