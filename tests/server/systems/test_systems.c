/*
 * test_systems.c: the table of systems (server/systems/systems.c) against
 * core's registry, and the pipeline (server/systems/pipeline.c) driven
 * without HTTP, as every new front door will drive it.
 */
#include "pipeline.h"
#include "suites.h"
#include "systems.h"

#include <string.h>

#include <jansson.h>

/* Every system of core's registry has one entry, in the same order, and
 * every entry names the stages every system needs. */
START_TEST(test_table_matches_registry)
{
    size_t i;

    ck_assert_uint_eq(systems_n, registry_n_systems);
    for (i = 0; i < systems_n; i++) {
        const systems_entry *s = systems_table[i];
        ck_assert_ptr_eq(s->rules, registry_systems[i]);
        ck_assert_ptr_eq(systems_find(registry_systems[i]->name), s);
        ck_assert_ptr_nonnull(s->job_new);
        ck_assert_ptr_nonnull(s->job_free);
        ck_assert_ptr_nonnull(s->read);
        ck_assert_ptr_nonnull(s->run);
        ck_assert_ptr_nonnull(s->replay);
        ck_assert_ptr_nonnull(s->render);
        ck_assert_ptr_nonnull(s->unit_json);
        ck_assert_ptr_nonnull(s->odds);
        /* A campaign combat binds and applies, or is fought as a battle. */
        ck_assert((s->bind != NULL) == (s->apply != NULL));
        ck_assert(s->bind != NULL || s->battle != NULL);
        ck_assert((s->options_read != NULL) == (s->options_json != NULL));
        ck_assert((s->options_read != NULL) == (s->options_default != NULL));
    }
    ck_assert_ptr_null(systems_find("chess"));
    ck_assert_ptr_null(systems_find(NULL));
}
END_TEST

/* A SCRUD one-off with entered dice through pipeline_read and
 * pipeline_oneoff alone: 5 against 3 with equal quality defeats b's
 * unit, and the record is ready for the writer. */
START_TEST(test_pipeline_oneoff_without_http)
{
    const char *body_text =
        "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\",\"die\":5}]},"
        "{\"name\":\"b\",\"units\":[{\"name\":\"b1\",\"die\":3}]}],"
        "\"dice\":{\"source\":\"entered\"},\"note\":\"by hand\"}";
    const systems_entry *s = systems_find("scrud");
    json_t *body = json_loads(body_text, 0, NULL), *rep, *sides, *b1;
    void *job = NULL;
    combat_record *rec;
    err_info e;

    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(body);
    err_clear(&e);
    ck_assert_int_eq(pipeline_read(s, body, NULL, NULL, &job, &e), ERR_OK);
    /* No commitment is cited, so the pool is not needed. */
    ck_assert_int_eq(pipeline_oneoff(NULL, job, &e), ERR_OK);
    rec = job;
    ck_assert_ptr_eq(rec->system, s);
    ck_assert_str_eq(rec->cb.system, "scrud");
    ck_assert_str_eq(rec->cb.dice_source, "entered");
    ck_assert_str_eq(rec->cb.campaign_id, "");
    ck_assert_uint_eq(rec->n_rolls, 2);
    ck_assert_int_eq(rec->rolls[0].natural, 5);
    ck_assert_int_eq(rec->rolls[1].natural, 3);
    rep = json_loads(rec->cb.report, 0, NULL);
    ck_assert_ptr_nonnull(rep);
    ck_assert_str_eq(json_string_value(json_object_get(rep, "note")),
                     "by hand");
    sides = json_object_get(rep, "sides");
    b1 = json_array_get(json_object_get(json_array_get(sides, 1), "units"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(b1, "unit")), "b1");
    ck_assert_int_eq(json_integer_value(json_object_get(b1, "defeats")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(sides, 1), "defeats_suffered")),
                     1);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(sides, 0), "defeats_suffered")),
                     0);
    json_decref(rep);
    s->job_free(job);
    json_decref(body);
}
END_TEST

/* A refused request is refused by its stage, with the field named, and
 * the job is still the caller's to free. */
START_TEST(test_pipeline_refusals)
{
    static const struct {
        const char *system, *body, *field;
        err_code code;
    } cases[] = {
        {"scrud", "{\"sides\":[],\"colour\":1}", "colour", ERR_UNKNOWN_FIELD},
        {"edna", "{\"units\":[{\"name\":\"x\",\"edna\":12,\"start\":10}]}",
         "units[0].edna", ERR_RANGE},
        {"scs", "{\"attackers\":[]}", "table", ERR_MISSING},
        {"civ", "{\"max_phases\":0}", "max_phases", ERR_RANGE},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const systems_entry *s = systems_find(cases[i].system);
        json_t *body = json_loads(cases[i].body, 0, NULL);
        void *job = NULL;
        err_info e;
        err_code rc;

        err_clear(&e);
        rc = pipeline_read(s, body, NULL, NULL, &job, &e);
        if (rc == ERR_OK)
            rc = pipeline_oneoff(NULL, job, &e);
        ck_assert_msg(rc == cases[i].code, "%s: %d, not %d (%s)",
                      cases[i].system, rc, cases[i].code, e.message);
        ck_assert_str_eq(e.field, cases[i].field);
        s->job_free(job);
        json_decref(body);
    }
}
END_TEST

Suite *suite_systems(void)
{
    Suite *s = suite_create("systems");
    TCase *tc = tcase_create("table");

    tcase_add_test(tc, test_table_matches_registry);
    tcase_add_test(tc, test_pipeline_oneoff_without_http);
    tcase_add_test(tc, test_pipeline_refusals);
    suite_add_tcase(s, tc);
    return s;
}
