/*
 * test_cors.c: server/http/cors.c, the allowed CORS origins as the operator
 * writes them (--cors-origin, cors_origin): which values are origins,
 * which are refused and why, lists, "*", clearing, the limit, and the
 * match of a request's Origin.  What HTTP does with them is in
 * test_console_http.c.
 */
#include "cors.h"
#include "suites.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *value;
    int n_origins;
    bool is_any;
} good_origins[] = {
    {"https://app.example", 1, false},
    {"http://localhost:5173", 1, false},
    {" https://a.example ,http://b.example:8080,  https://c.example ", 3,
     false},
    {"*", 0, true},
    {"https://a.example,*", 1, true},
    {"http://[::1]:8080", 1, false},
    {"http://127.0.0.1:3000", 1, false},
    {"tauri://localhost", 1, false},
    {"https://a.example:8443", 1, false},
    {"http://a.example:443", 1, false},
};

static const char *const bad_origins[] = {
    "app.example",
    "https://",
    "https://app.example/",
    "https://app.example/console",
    "https://app.example?x=1",
    "https://user@app.example",
    "https://app.example:443",
    "http://app.example:80",
    "https://app.example:0",
    "https://app.example:65536",
    "https://app.example:08080",
    "https://app.example:",
    "https://app.example:http",
    "null",
    "://app.example",
    "1http://app.example",
    "https://a.example,,https://b.example",
    "https://a.example,",
    ",https://a.example",
    "https://app example",
    "https://app.example\r\nX-Evil: 1",
};

START_TEST(test_cors_config_good)
{
    cors_config c;
    err_info e;

    cors_config_init(&c);
    err_clear(&e);
    ck_assert_msg(cors_config_add(&c, good_origins[_i].value, &e) == ERR_OK,
                  "%s: %s", good_origins[_i].value, e.message);
    ck_assert_int_eq(c.n_origins, good_origins[_i].n_origins);
    ck_assert(c.is_any == good_origins[_i].is_any);
    ck_assert(cors_is_enabled(&c));
}
END_TEST

START_TEST(test_cors_config_bad)
{
    cors_config c;
    err_info e;

    cors_config_init(&c);
    err_clear(&e);
    ck_assert_int_eq(cors_config_add(&c, "https://kept.example", &e), ERR_OK);
    ck_assert_msg(cors_config_add(&c, bad_origins[_i], &e) == ERR_INVALID,
                  "%s was taken", bad_origins[_i]);
    ck_assert_str_eq(e.field, "cors_origin");
    ck_assert_int_gt(strlen(e.message), 0);
    /* Left as it was. */
    ck_assert_int_eq(c.n_origins, 1);
    ck_assert(!c.is_any);
    ck_assert_str_eq(c.origins[0], "https://kept.example");
}
END_TEST

START_TEST(test_cors_config_adds_up_and_clears)
{
    cors_config c;
    err_info e;
    char v[64];
    int i;

    cors_config_init(&c);
    err_clear(&e);
    ck_assert(!cors_is_enabled(&c));
    ck_assert_ptr_null(cors_allow(&c, "https://a.example"));
    ck_assert_int_eq(cors_config_add(&c, "https://a.example", &e), ERR_OK);
    ck_assert_int_eq(
        cors_config_add(&c, "https://b.example, https://c.example", &e),
        ERR_OK);
    ck_assert_int_eq(c.n_origins, 3);
    ck_assert_str_eq(c.origins[2], "https://c.example");
    /* Exact, letter case aside; the answer is the request's own text. */
    ck_assert_str_eq(cors_allow(&c, "https://b.example"), "https://b.example");
    ck_assert_str_eq(cors_allow(&c, "HTTPS://B.Example"), "HTTPS://B.Example");
    ck_assert_ptr_null(cors_allow(&c, "https://b.example:443"));
    ck_assert_ptr_null(cors_allow(&c, "https://b.example/"));
    ck_assert_ptr_null(cors_allow(&c, "https://d.example"));
    ck_assert_ptr_null(cors_allow(&c, ""));
    ck_assert_ptr_null(cors_allow(&c, NULL));
    /* An empty value clears the list. */
    ck_assert_int_eq(cors_config_add(&c, "  ", &e), ERR_OK);
    ck_assert_int_eq(c.n_origins, 0);
    ck_assert(!cors_is_enabled(&c));
    /* At most CORS_MAX_ORIGINS, all or nothing. */
    for (i = 0; i < CORS_MAX_ORIGINS; i++) {
        snprintf(v, sizeof v, "https://o%d.example", i);
        ck_assert_int_eq(cors_config_add(&c, v, &e), ERR_OK);
    }
    ck_assert_int_eq(cors_config_add(&c, "https://one-more.example", &e),
                     ERR_LIMIT);
    ck_assert_int_eq(c.n_origins, CORS_MAX_ORIGINS);
    /* "*" is always one more. */
    ck_assert_int_eq(cors_config_add(&c, "*", &e), ERR_OK);
    ck_assert_str_eq(cors_allow(&c, "https://anyone.example"), "*");
}
END_TEST

Suite *suite_cors(void)
{
    Suite *s = suite_create("cors");
    TCase *tc = tcase_create("config");

    tcase_add_loop_test(tc, test_cors_config_good, 0,
                        (int)(sizeof good_origins / sizeof good_origins[0]));
    tcase_add_loop_test(tc, test_cors_config_bad, 0,
                        (int)(sizeof bad_origins / sizeof bad_origins[0]));
    tcase_add_test(tc, test_cors_config_adds_up_and_clears);
    suite_add_tcase(s, tc);
    return s;
}
