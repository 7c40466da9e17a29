/*
 * test_jsonv.c: tests the object checks of server/json/jsonv.c that every
 * request body's parser starts with: jv_object_only (every key must be
 * one of a list) and jv_object_fields (the same of the names a mask
 * allows, and the value of each, so that a parser looks none up again),
 * and the _val getters a parser gives those values to.  The errors must
 * name the field, as a client sees it.
 */
#include <stdio.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "jsonv.h"
#include "suites.h"

static json_t *parse(const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);

    ck_assert_msg(j != NULL, "%s: %s", text, jerr.text);
    return j;
}

static const char *const names[] = {"unit",    "name", "quality",
                                    "reserve", "die",  NULL};
enum { N_UNIT, N_NAME, N_QUALITY, N_RESERVE, N_DIE };
#define BIT(n) (1u << (n))

START_TEST(test_fields_present)
{
    json_t *j = parse("{\"name\":\"A\",\"die\":null,\"quality\":2}");
    json_t *v[5];
    err_info e;

    memset(v, 0x5a, sizeof v);
    err_clear(&e);
    ck_assert_int_eq(jv_object_fields(j, "sides[0].units[1]", names,
                                      BIT(N_NAME) | BIT(N_QUALITY) |
                                          BIT(N_RESERVE) | BIT(N_DIE),
                                      v, &e),
                     ERR_OK);
    ck_assert_ptr_eq(v[N_NAME], json_object_get(j, "name"));
    ck_assert_ptr_eq(v[N_QUALITY], json_object_get(j, "quality"));
    /* null is there: a parser refuses it as the wrong type */
    ck_assert(json_is_null(v[N_DIE]));
    ck_assert_ptr_null(v[N_UNIT]);
    ck_assert_ptr_null(v[N_RESERVE]);
    json_decref(j);
    j = parse("{}");
    memset(v, 0x5a, sizeof v);
    ck_assert_int_eq(jv_object_fields(j, "", names, ~0u, v, &e), ERR_OK);
    for (int i = 0; i < 5; i++)
        ck_assert_ptr_null(v[i]);
    json_decref(j);
}
END_TEST

/* The getters of a value found: absent is fine unless required, and
 * every error names the field under its object's path. */
START_TEST(test_val_getters)
{
    json_t *j = parse("{\"name\":\"\",\"die\":null,\"quality\":9,"
                      "\"reserve\":true}");
    json_t *v[5];
    const char *ref = "kept";
    int q = -7;
    bool r = false;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(
        jv_object_fields(j, "sides[1].units[2]", names, ~0u, v, &e), ERR_OK);
    /* absent, not required: nothing changes */
    ck_assert_int_eq(jv_string_val(v[N_UNIT], "sides[1].units[2]", "unit",
                                   false, 64, &ref, &e),
                     ERR_OK);
    ck_assert_str_eq(ref, "kept");
    /* absent, required */
    ck_assert_int_eq(jv_string_val(v[N_UNIT], "sides[1].units[2]", "unit", true,
                                   64, &ref, &e),
                     ERR_MISSING);
    ck_assert_str_eq(e.field, "sides[1].units[2].unit");
    ck_assert_str_eq(e.message, "the field \"unit\" is required");
    err_clear(&e);
    ck_assert_int_eq(jv_string_val(v[N_NAME], "sides[1].units[2]", "name", true,
                                   64, &ref, &e),
                     ERR_RANGE);
    ck_assert_str_eq(e.field, "sides[1].units[2].name");
    err_clear(&e);
    ck_assert_int_eq(jv_int_val(v[N_QUALITY], "sides[1].units[2]", "quality",
                                false, -3, 3, &q, &e),
                     ERR_RANGE);
    ck_assert_str_eq(e.message, "must be between -3 and 3, not 9");
    ck_assert_int_eq(q, -7);
    err_clear(&e);
    ck_assert_int_eq(
        jv_int_val(v[N_QUALITY], "", "quality", false, 0, 9, &q, &e), ERR_OK);
    ck_assert_int_eq(q, 9);
    ck_assert_int_eq(jv_int_val(v[N_DIE], "u", "die", true, 1, 6, &q, &e),
                     ERR_INVALID);
    ck_assert_str_eq(e.field, "u.die");
    ck_assert_str_eq(e.message, "must be an integer, not null");
    err_clear(&e);
    ck_assert_int_eq(jv_bool_val(v[N_RESERVE], "u", "reserve", false, &r, &e),
                     ERR_OK);
    ck_assert(r);
    ck_assert_int_eq(jv_bool_val(v[N_QUALITY], "u", "quality", false, &r, &e),
                     ERR_INVALID);
    ck_assert_str_eq(e.message, "must be true or false, not an integer");
    json_decref(j);
}
END_TEST

/* A name of the list that the mask leaves out is as unknown as any. */
START_TEST(test_fields_not_allowed)
{
    json_t *j = parse("{\"unit\":\"B1\",\"name\":\"A\"}");
    json_t *v[5];
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(jv_object_fields(j, "sides[1].units[0]", names,
                                      BIT(N_UNIT) | BIT(N_DIE), v, &e),
                     ERR_UNKNOWN_FIELD);
    ck_assert_str_eq(e.field, "sides[1].units[0].name");
    ck_assert_str_eq(e.message, "unknown field \"name\"");
    err_clear(&e);
    ck_assert_int_eq(jv_object_only(j, "sides[1].units[0]", names, &e), ERR_OK);
    json_decref(j);
    j = parse("{\"unit\":\"B1\",\"colour\":\"red\"}");
    err_clear(&e);
    ck_assert_int_eq(jv_object_only(j, "x", names, &e), ERR_UNKNOWN_FIELD);
    ck_assert_str_eq(e.field, "x.colour");
    json_decref(j);
}
END_TEST

START_TEST(test_fields_not_an_object)
{
    json_t *j = parse("[1]");
    json_t *v[5];
    err_info e;

    memset(v, 0x5a, sizeof v);
    err_clear(&e);
    ck_assert_int_eq(jv_object_fields(j, "sides[0]", names, ~0u, v, &e),
                     ERR_INVALID);
    ck_assert_str_eq(e.field, "sides[0]");
    ck_assert_str_eq(e.message, "must be an object, not an array");
    for (int i = 0; i < 5; i++)
        ck_assert_ptr_null(v[i]);
    json_decref(j);
}
END_TEST

/* Past 32 names a name is always allowed; its value is found all the same. */
START_TEST(test_fields_many_names)
{
    char buf[40][16], body[64];
    const char *many[41];
    json_t *v[40], *j;
    err_info e;
    int i;

    for (i = 0; i < 40; i++) {
        snprintf(buf[i], sizeof buf[i], "k%d", i);
        many[i] = buf[i];
    }
    many[40] = NULL;
    snprintf(body, sizeof body, "{\"k3\":1,\"k31\":2,\"k39\":3}");
    j = parse(body);
    err_clear(&e);
    ck_assert_int_eq(jv_object_fields(j, "", many, BIT(3) | BIT(31), v, &e),
                     ERR_OK);
    for (i = 0; i < 40; i++)
        ck_assert_ptr_eq(v[i], i == 3 || i == 31 || i == 39
                                   ? json_object_get(j, many[i])
                                   : NULL);
    ck_assert_int_eq(jv_object_fields(j, "", many, BIT(3), v, &e),
                     ERR_UNKNOWN_FIELD);
    ck_assert_str_eq(e.field, "k31");
    json_decref(j);
}
END_TEST

Suite *suite_jsonv(void)
{
    Suite *s = suite_create("jsonv");
    TCase *tc = tcase_create("objects");

    tcase_add_test(tc, test_fields_present);
    tcase_add_test(tc, test_val_getters);
    tcase_add_test(tc, test_fields_not_allowed);
    tcase_add_test(tc, test_fields_not_an_object);
    tcase_add_test(tc, test_fields_many_names);
    suite_add_tcase(s, tc);
    return s;
}
