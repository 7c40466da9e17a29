/*
 * test_scrud_json.c: a campaign unit's result for its history taken from
 * the report (scrud_json_unit_result, server/systems/scrud/scrud_json.c)
 * is the text the unit's entry written again gives, byte for byte, with
 * its "system" and "side" after it (scrud_json_unit_result_text, which a
 * combat stored as its facts gives its history with): for every unit of
 * combats of one to five units a side, reserves among them, with names
 * that need escaping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "dice.h"
#include "scrud.h"
#include "scrud_json.h"
#include "suites.h"

START_TEST(test_unit_result_is_its_report_entry)
{
    static const char *const side_names[2] = {"Red \"Guard\"\\\n", "Blue"};
    static scrud_plan plan; /* large: not on the stack */
    int values[64], n = _i % 5 + 1, s, i, k;
    scrud_spans spans;
    scrud_result res;
    dice_source src;
    err_info e;
    char *report;
    jw w;

    memset(&plan, 0, sizeof plan);
    scrud_options_default(&plan.in.options);
    for (s = 0; s < 2; s++) {
        snprintf(plan.side_name[s], sizeof plan.side_name[s], "%s",
                 side_names[s]);
        snprintf(plan.side_id[s], sizeof plan.side_id[s], "sd_%d", s);
        plan.in.sides[s].units = plan.units[s];
        plan.in.sides[s].n_units = (size_t)(s ? 6 - n : n);
        for (i = 0; i < (int)plan.in.sides[s].n_units; i++) {
            scrud_unit *u = &plan.units[s][i];
            scrud_unit_default(u);
            u->quality = (i + _i) % 3;
            u->defeat_penalty = i % 2;
            u->is_reserve = i == 3;
            snprintf(plan.unit_name[s][i], sizeof plan.unit_name[s][i],
                     "%s%d \"\xc3\xa9\"", s ? "B" : "R", i);
            snprintf(plan.unit_id[s][i], sizeof plan.unit_id[s][i], "unit_%d%d",
                     s, i);
        }
    }
    for (k = 0; k < 64; k++)
        values[k] = (k * 7 + _i) % 6 + 1;
    dice_init_values(&src, DICE_REPLAY, values, 64);
    memset(&res, 0, sizeof res);
    err_clear(&e);
    ck_assert_msg(scrud_resolve(&plan.in, &src, &res, &e) == ERR_OK, "%s",
                  e.message);
    jw_init(&w);
    jw_object(&w);
    jw_kstring(&w, "id", "cbt_1");
    scrud_json_outcome_write(&w, &plan, &res, &spans);
    jw_object_end(&w);
    ck_assert_ptr_nonnull(report = jw_take(&w, NULL));
    for (s = 0; s < 2; s++)
        for (i = 0; i < (int)plan.in.sides[s].n_units; i++) {
            char *got = scrud_json_unit_result(report, &spans, &plan, s, i),
                 *want = scrud_json_unit_result_text(&plan, &res, s, i);
            json_t *j;
            ck_assert_ptr_nonnull(got);
            ck_assert_str_eq(got, want);
            /* and it reads as the unit's */
            ck_assert_ptr_nonnull(j = json_loads(got, 0, NULL));
            ck_assert_str_eq(json_string_value(json_object_get(j, "unit")),
                             plan.unit_name[s][i]);
            ck_assert_str_eq(json_string_value(json_object_get(j, "side")),
                             side_names[s]);
            json_decref(j);
            free(got);
            free(want);
        }
    free(report);
    scrud_result_cleanup(&res);
    dice_cleanup(&src);
}
END_TEST

Suite *suite_scrud_json(void)
{
    Suite *s = suite_create("scrud_json");
    TCase *tc = tcase_create("scrud_json");

    tcase_add_loop_test(tc, test_unit_result_is_its_report_entry, 0, 10);
    suite_add_tcase(s, tc);
    return s;
}
