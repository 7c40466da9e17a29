/*
 * test_jsonv.c: tests the object checks of server/json/jsonv.c that every
 * request body's parser starts with: jv_object_only (every key must be
 * one of a list) and jv_object_fields (the same of the names a mask
 * allows, and which of them the object has, so that a parser asks only
 * for those).  The errors must name the field, as a client sees it.
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
    unsigned has = 123;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(jv_object_fields(j, "sides[0].units[1]", names,
                                      BIT(N_NAME) | BIT(N_QUALITY) |
                                          BIT(N_RESERVE) | BIT(N_DIE),
                                      &has, &e),
                     ERR_OK);
    /* null is there: a parser refuses it as the wrong type */
    ck_assert_uint_eq(has, BIT(N_NAME) | BIT(N_QUALITY) | BIT(N_DIE));
    json_decref(j);
    j = parse("{}");
    ck_assert_int_eq(jv_object_fields(j, "", names, ~0u, &has, &e), ERR_OK);
    ck_assert_uint_eq(has, 0);
    json_decref(j);
}
END_TEST

/* A name of the list that the mask leaves out is as unknown as any. */
START_TEST(test_fields_not_allowed)
{
    json_t *j = parse("{\"unit\":\"B1\",\"name\":\"A\"}");
    unsigned has = 0;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(jv_object_fields(j, "sides[1].units[0]", names,
                                      BIT(N_UNIT) | BIT(N_DIE), &has, &e),
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
    unsigned has = 7;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(jv_object_fields(j, "sides[0]", names, ~0u, &has, &e),
                     ERR_INVALID);
    ck_assert_str_eq(e.field, "sides[0]");
    ck_assert_str_eq(e.message, "must be an object, not an array");
    ck_assert_uint_eq(has, 0);
    json_decref(j);
}
END_TEST

/* Past 32 names a name is always allowed, and its presence not told. */
START_TEST(test_fields_many_names)
{
    char buf[40][16], body[64];
    const char *many[41];
    unsigned has = 0;
    json_t *j;
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
    ck_assert_int_eq(jv_object_fields(j, "", many, BIT(3) | BIT(31), &has, &e),
                     ERR_OK);
    ck_assert_uint_eq(has, BIT(3) | BIT(31));
    ck_assert_int_eq(jv_object_fields(j, "", many, BIT(3), &has, &e),
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
    tcase_add_test(tc, test_fields_not_allowed);
    tcase_add_test(tc, test_fields_not_an_object);
    tcase_add_test(tc, test_fields_many_names);
    suite_add_tcase(s, tc);
    return s;
}
