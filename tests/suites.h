/*
 * suites.h: every Check suite of the project, one per source module, run by
 * tests/run_tests.c.  Test files mirror the source tree: tests/core/test_X.c
 * tests core/X.c.
 */
#ifndef UMPIRE_TESTS_SUITES_H
#define UMPIRE_TESTS_SUITES_H

#include <check.h>

Suite *suite_rng(void);
Suite *suite_dice(void);
Suite *suite_scrud(void);
Suite *suite_db(void);
Suite *suite_http(void);
Suite *suite_api(void);
Suite *suite_scrud_http(void);
Suite *suite_spec(void);

#endif
