/*
 * test_spec.c: api-spec/openapi.yaml and the server's route table agree:
 * every route the server answers is in the spec and the other way round;
 * HEAD is an operation wherever GET is, OPTIONS on every path; each
 * operation lists exactly the query parameters its route takes; and each
 * documents the statuses its route can answer, derived from the table
 * (auth, flags, path, query) and problem_status (spec_reader.h).  What the
 * server answers over HTTP is checked against the spec in
 * test_spec_http.c.
 */
#include "harness.h"
#include "console.h"
#include "router.h"
#include "spec_reader.h"
#include "suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether method is one of the route table's (not HEAD or OPTIONS). */
static bool is_table_method(const char *method)
{
    return strcmp(method, "HEAD") != 0 && strcmp(method, "OPTIONS") != 0;
}

START_TEST(test_every_route_is_in_the_spec)
{
    spec_doc *d = spec_read();
    size_t k;

    ck_assert_int_gt(d->n_ops, 0);
    for (k = 0; k < router_n_routes; k++)
        ck_assert_msg(spec_find(d, router_routes[k].method,
                                router_routes[k].path) != NULL,
                      "%s %s is served but not in %s", router_routes[k].method,
                      router_routes[k].path, spec_file());
    free(d);
}
END_TEST

START_TEST(test_every_spec_route_is_served)
{
    spec_doc *d = spec_read();
    size_t n = 0;
    int i;

    for (i = 0; i < d->n_ops; i++) {
        if (!is_table_method(d->ops[i].method))
            continue;
        n++;
        ck_assert_msg(spec_route(d->ops[i].method, d->ops[i].path) != NULL,
                      "%s %s is in the spec but not served", d->ops[i].method,
                      d->ops[i].path);
    }
    ck_assert_int_eq(n, router_n_routes);
    free(d);
}
END_TEST

/* HEAD where GET is and nowhere else; OPTIONS on every path with a route
 * and nowhere else (router.h). */
START_TEST(test_head_and_options_are_operations)
{
    spec_doc *d = spec_read();
    size_t k;
    int i;

    for (k = 0; k < router_n_routes; k++) {
        const router_route *rt = &router_routes[k];
        ck_assert_msg(spec_find(d, "OPTIONS", rt->path) != NULL,
                      "OPTIONS %s is answered but not in the spec", rt->path);
        if (strcmp(rt->method, "GET") == 0)
            ck_assert_msg(spec_find(d, "HEAD", rt->path) != NULL,
                          "HEAD %s is answered but not in the spec", rt->path);
    }
    for (i = 0; i < d->n_ops; i++) {
        const spec_op *op = &d->ops[i];
        if (strcmp(op->method, "HEAD") == 0)
            ck_assert_msg(spec_route("GET", op->path) != NULL,
                          "HEAD %s is in the spec but %s has no GET", op->path,
                          op->path);
        /* Any method of the table makes a path: a DELETE alone too
         * (DELETE .../shares/{share_id}). */
        if (strcmp(op->method, "OPTIONS") == 0)
            ck_assert_msg(spec_find(d, "GET", op->path) ||
                              spec_find(d, "POST", op->path) ||
                              spec_find(d, "PUT", op->path) ||
                              spec_find(d, "PATCH", op->path) ||
                              spec_find(d, "DELETE", op->path),
                          "OPTIONS %s: a path with no route", op->path);
    }
    free(d);
}
END_TEST

/* The route's query parameters (router.h) are the operation's (HEAD: as
 * its GET), both ways; OPTIONS takes any query and lists none. */
static void check_query(const spec_op *op, const router_route *rt)
{
    char names[256], *name, *save = NULL;
    int i;

    snprintf(names, sizeof names, "%s", rt->query);
    for (name = strtok_r(names, " ", &save); name;
         name = strtok_r(NULL, " ", &save))
        ck_assert_msg(spec_has_query(op, name),
                      "%s %s takes ?%s but the spec does not list it",
                      op->method, op->path, name);
    for (i = 0; i < op->n_query; i++)
        ck_assert_msg(router_takes(rt, op->query[i]),
                      "%s %s: the spec lists ?%s but the route refuses it "
                      "(router.c's table)",
                      op->method, op->path, op->query[i]);
}

START_TEST(test_query_parameters_match)
{
    spec_doc *d = spec_read();
    int i;

    for (i = 0; i < d->n_ops; i++) {
        const spec_op *op = &d->ops[i];
        const router_route *rt;
        if (strcmp(op->method, "OPTIONS") == 0) {
            ck_assert_msg(op->n_query == 0, "OPTIONS %s lists a query",
                          op->path);
            continue;
        }
        rt = spec_route(op->method, op->path);
        ck_assert_ptr_nonnull(rt);
        check_query(op, rt);
    }
    free(d);
}
END_TEST

/* The table keeps router.h's rule for format: every GET of the API and
 * every route that renders take it; the console's routes nothing. */
START_TEST(test_format_rule)
{
    size_t k;

    for (k = 0; k < router_n_routes; k++) {
        const router_route *rt = &router_routes[k];
        bool is_console = console_is_path(rt->path);
        bool should = !is_console && (strcmp(rt->method, "GET") == 0 ||
                                      (rt->flags & ROUTER_RENDERS));
        ck_assert_msg(router_takes(rt, "format") == should, "%s %s: format %s",
                      rt->method, rt->path,
                      should ? "missing" : "taken but not answered");
        if (is_console)
            ck_assert_msg(rt->query[0] == '\0', "%s takes a query", rt->path);
    }
}
END_TEST

START_TEST(test_router_takes)
{
    router_route rt = {
        "GET", "/x", NULL, ROUTER_PUBLIC, 0, "format order limit", NULL};

    ck_assert(router_takes(&rt, "format"));
    ck_assert(router_takes(&rt, "order"));
    ck_assert(router_takes(&rt, "limit"));
    ck_assert(!router_takes(&rt, "form"));
    ck_assert(!router_takes(&rt, "mat"));
    ck_assert(!router_takes(&rt, "rder"));
    ck_assert(!router_takes(&rt, "format order"));
    ck_assert(!router_takes(&rt, ""));
    rt.query = "";
    ck_assert(!router_takes(&rt, "format"));
}
END_TEST

/* Every status the route can answer, derived (spec_required), is one the
 * operation documents; OPTIONS and HEAD too. */
static void check_statuses(const spec_doc *d, const router_route *rt,
                           const char *method)
{
    const spec_op *op = spec_find(d, method, rt->path);
    int need[SPEC_MAX_STATUSES], n, i;
    const char *why[SPEC_MAX_STATUSES];

    ck_assert_msg(op != NULL, "%s %s is not in the spec", method, rt->path);
    n = spec_required(rt, op, need, why);
    for (i = 0; i < n; i++)
        ck_assert_msg(spec_has_status(op, need[i]),
                      "%s %s can answer %d (%s) but the spec does not say so",
                      method, rt->path, need[i], why[i]);
    for (i = 0; i < op->n_statuses; i++)
        ck_assert_msg(op->statuses[i] >= 100 && op->statuses[i] <= 599,
                      "%s %s: status %d", method, rt->path, op->statuses[i]);
}

START_TEST(test_statuses_are_documented)
{
    spec_doc *d = spec_read();
    size_t k;

    for (k = 0; k < router_n_routes; k++) {
        const router_route *rt = &router_routes[k];
        check_statuses(d, rt, rt->method);
        if (strcmp(rt->method, "GET") == 0)
            check_statuses(d, rt, "HEAD");
        check_statuses(d, rt, "OPTIONS");
    }
    free(d);
}
END_TEST

/* HEAD documents what its GET does, but 405, which it never answers. */
START_TEST(test_head_documents_what_get_does)
{
    spec_doc *d = spec_read();
    int i, k;

    for (i = 0; i < d->n_ops; i++) {
        const spec_op *head = &d->ops[i], *get;
        if (strcmp(head->method, "HEAD") != 0)
            continue;
        get = spec_find(d, "GET", head->path);
        ck_assert_ptr_nonnull(get);
        for (k = 0; k < get->n_statuses; k++)
            ck_assert_msg(get->statuses[k] == 405 ||
                              spec_has_status(head, get->statuses[k]),
                          "HEAD %s lacks GET's %d", head->path,
                          get->statuses[k]);
        for (k = 0; k < head->n_statuses; k++)
            ck_assert_msg(head->statuses[k] != 405 &&
                              spec_has_status(get, head->statuses[k]),
                          "HEAD %s documents %d, which GET does not",
                          head->path, head->statuses[k]);
    }
    free(d);
}
END_TEST

Suite *suite_spec(void)
{
    Suite *s = suite_create("spec");
    TCase *tc = tcase_create("routes");

    tcase_add_test(tc, test_every_route_is_in_the_spec);
    tcase_add_test(tc, test_every_spec_route_is_served);
    tcase_add_test(tc, test_head_and_options_are_operations);
    tcase_add_test(tc, test_query_parameters_match);
    tcase_add_test(tc, test_format_rule);
    tcase_add_test(tc, test_router_takes);
    tcase_add_test(tc, test_statuses_are_documented);
    tcase_add_test(tc, test_head_documents_what_get_does);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, spec_http_tcase());
    return s;
}
