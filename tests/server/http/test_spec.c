/*
 * test_spec.c: api-spec/openapi.yaml and the server's route table agree:
 * every route the server answers is in the spec, every route in the spec
 * is in the table, and every route in the spec is answered over HTTP (not
 * by the router's 404 no_such_route or 405).
 *
 * The spec is read line by line: under "paths:", a path sits at exactly two
 * spaces of indent and each operation's method at exactly four.
 */
#include "harness.h"
#include "router.h"
#include "suites.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPS 128

typedef struct spec_op {
    char method[8];
    char path[160];
} spec_op;

static const char *spec_path(void)
{
    const char *p = getenv("UMPIRE_API_SPEC");

    return p && p[0] ? p : "api-spec/openapi.yaml";
}

/* Reads the operations of the spec; returns their count. */
static int read_spec(spec_op *ops)
{
    FILE *f = fopen(spec_path(), "r");
    char line[512], path[160] = "";
    bool in_paths = false;
    int n = 0;

    ck_assert_msg(f != NULL, "cannot read %s", spec_path());
    while (fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\r\n");
        line[len] = '\0';
        if (line[0] != ' ' && line[0] != '\0' && line[0] != '#') {
            in_paths = strcmp(line, "paths:") == 0;
            continue;
        }
        if (!in_paths)
            continue;
        if (strncmp(line, "  /", 3) == 0 && line[len - 1] == ':') {
            snprintf(path, sizeof path, "%.*s", (int)(len - 3), line + 2);
        } else if (strncmp(line, "    ", 4) == 0 && line[4] != ' ' && path[0]) {
            static const char *const methods[] = {"get",   "post",   "put",
                                                  "patch", "delete", NULL};
            int i;
            for (i = 0; methods[i]; i++) {
                size_t m = strlen(methods[i]);
                if (strncmp(line + 4, methods[i], m) == 0 &&
                    line[4 + m] == ':') {
                    size_t k;
                    ck_assert_int_lt(n, MAX_OPS);
                    for (k = 0; k <= m; k++)
                        ops[n].method[k] =
                            (char)toupper((unsigned char)methods[i][k]);
                    snprintf(ops[n].path, sizeof ops[n].path, "%s", path);
                    n++;
                }
            }
        }
    }
    fclose(f);
    return n;
}

START_TEST(test_every_route_is_in_the_spec)
{
    spec_op ops[MAX_OPS];
    int n = read_spec(ops), i;
    size_t k;

    ck_assert_int_gt(n, 0);
    for (k = 0; k < router_n_routes; k++) {
        bool is_found = false;
        for (i = 0; i < n; i++)
            if (strcmp(ops[i].method, router_routes[k].method) == 0 &&
                strcmp(ops[i].path, router_routes[k].path) == 0)
                is_found = true;
        ck_assert_msg(is_found, "%s %s is served but not in %s",
                      router_routes[k].method, router_routes[k].path,
                      spec_path());
    }
}
END_TEST

START_TEST(test_every_spec_route_is_served)
{
    spec_op ops[MAX_OPS];
    int n = read_spec(ops), i;
    size_t k;

    ck_assert_int_eq((size_t)n, router_n_routes);
    for (i = 0; i < n; i++) {
        bool is_found = false;
        for (k = 0; k < router_n_routes; k++)
            if (strcmp(ops[i].method, router_routes[k].method) == 0 &&
                strcmp(ops[i].path, router_routes[k].path) == 0)
                is_found = true;
        ck_assert_msg(is_found, "%s %s is in the spec but not served",
                      ops[i].method, ops[i].path);
    }
}
END_TEST

/* Fills {params} with placeholder ids. */
static void instantiate(const char *tmpl, char *out, size_t n)
{
    size_t o = 0;

    while (*tmpl && o + 1 < n) {
        if (*tmpl == '{') {
            const char *end = strchr(tmpl, '}');
            o += (size_t)snprintf(out + o, n - o, "x_placeholder");
            tmpl = end + 1;
        } else {
            out[o++] = *tmpl++;
        }
    }
    out[o] = '\0';
}

START_TEST(test_every_spec_route_answers_over_http)
{
    test_server *ts = ts_start();
    spec_op ops[MAX_OPS];
    int n = read_spec(ops), i;

    for (i = 0; i < n; i++) {
        char path[256];
        http_resp r;
        const char *code;
        bool has_body = strcmp(ops[i].method, "GET") != 0;

        instantiate(ops[i].path, path, sizeof path);
        ck_assert_int_eq(ts_request(ts, ops[i].method, path, NULL,
                                    has_body ? "{}" : NULL, &r),
                         0);
        code = json_string_value(json_object_get(r.json, "code"));
        ck_assert_msg(r.status != 405 &&
                          !(code && strcmp(code, "no_such_route") == 0),
                      "%s %s: the router does not answer it (%d %s)",
                      ops[i].method, path, r.status, r.body);
        http_resp_cleanup(&r);
    }
    ts_stop(ts);
}
END_TEST

Suite *suite_spec(void)
{
    Suite *s = suite_create("spec");
    TCase *tc = tcase_create("routes");

    tcase_add_test(tc, test_every_route_is_in_the_spec);
    tcase_add_test(tc, test_every_spec_route_is_served);
    tcase_add_test(tc, test_every_spec_route_answers_over_http);
    suite_add_tcase(s, tc);
    return s;
}
