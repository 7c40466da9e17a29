/*
 * test_spec_http.c: what the server answers over HTTP, against
 * api-spec/openapi.yaml: every operation of the spec is routed (not the
 * router's 404 no_such_route or 405); a sample of real answers to each
 * (without a token, with a token of a real campaign, with ?format=md,
 * with an unknown query parameter) has a status the operation documents;
 * the Allow header of OPTIONS and of a 405 lists the path's methods with
 * HEAD after GET and OPTIONS last.  A TCase of suite_spec (test_spec.c).
 */
#include "harness.h"
#include "router.h"
#include "spec_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The body to send with method: "{}" for those that take one. */
static const char *body_for(const char *method)
{
    return strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 ||
                   strcmp(method, "PATCH") == 0
               ? "{}"
               : NULL;
}

/* Sends op at path (its parameters filled) and asserts the answer's
 * status is one op documents; returns the answer (cleanup: caller). */
static void answer_is_documented(test_server *ts, const spec_op *op,
                                 const char *path, const char *token,
                                 http_resp *r)
{
    ck_assert_int_eq(
        ts_request(ts, op->method, path, token, body_for(op->method), r), 0);
    ck_assert_msg(spec_has_status(op, r->status),
                  "%s %s answered %d, which the spec does not document for "
                  "it: %s",
                  op->method, path, r->status, r->body ? r->body : "");
}

START_TEST(test_every_spec_route_answers_over_http)
{
    test_server *ts = ts_start();
    spec_doc *d = spec_read();
    int i;

    for (i = 0; i < d->n_ops; i++) {
        char path[256];
        http_resp r;
        const char *code;

        spec_instantiate(d->ops[i].path, NULL, path, sizeof path);
        answer_is_documented(ts, &d->ops[i], path, NULL, &r);
        code = json_string_value(json_object_get(r.json, "code"));
        ck_assert_msg(r.status != 405 &&
                          !(code && strcmp(code, "no_such_route") == 0),
                      "%s %s: the router does not answer it (%d %s)",
                      d->ops[i].method, path, r.status, r.body);
        http_resp_cleanup(&r);
    }
    free(d);
    ts_stop(ts);
}
END_TEST

/* With the umpire token of a real campaign (its id in the path, the other
 * parameters naming nothing), as is and with ?format=md: each answer is
 * documented; a JSON-only read answers 406 for Markdown. */
START_TEST(test_sampled_answers_are_documented)
{
    static const char *const sides[] = {"Red", "Blue", NULL};
    test_server *ts = ts_start();
    spec_doc *d = spec_read();
    test_campaign c;
    int i;

    ts_campaign(ts, &c, NULL, sides);
    for (i = 0; i < d->n_ops; i++) {
        const spec_op *op = &d->ops[i];
        const router_route *rt = spec_route(op->method, op->path);
        char path[256], md[300];
        http_resp r;

        spec_instantiate(op->path, c.id, path, sizeof path);
        answer_is_documented(ts, op, path, c.umpire, &r);
        http_resp_cleanup(&r);
        if (rt == NULL || !router_takes(rt, "format"))
            continue;
        snprintf(md, sizeof md, "%s?format=md", path);
        answer_is_documented(ts, op, md, c.umpire, &r);
        if (!(rt->flags & ROUTER_RENDERS))
            ck_assert_msg(r.status == 406, "%s %s: %d, not 406", op->method, md,
                          r.status);
        http_resp_cleanup(&r);
    }
    free(d);
    ts_stop(ts);
}
END_TEST

/* Regression (issue: unknown query parameters were ignored): on every
 * operation but OPTIONS, ?bogus=1 answers 400 unknown_parameter naming
 * it, a documented status, before the token is looked at. */
START_TEST(test_unknown_parameter_is_refused_everywhere)
{
    test_server *ts = ts_start();
    spec_doc *d = spec_read();
    int i;

    for (i = 0; i < d->n_ops; i++) {
        const spec_op *op = &d->ops[i];
        char path[300];
        http_resp r;

        spec_instantiate(op->path, NULL, path, sizeof path);
        strcat(path, "?format=json&bogus=1");
        if (!spec_has_query(op, "format"))
            strcpy(strstr(path, "?"), "?bogus=1");
        answer_is_documented(ts, op, path, NULL, &r);
        if (strcmp(op->method, "OPTIONS") == 0) {
            ck_assert_int_eq(r.status, 204);
        } else {
            ck_assert_msg(r.status == 400, "%s %s: %d", op->method, path,
                          r.status);
            ck_assert_str_eq(r.content_type, "application/problem+json");
            if (strcmp(op->method, "HEAD") != 0) {
                ck_assert_str_eq(
                    json_string_value(json_object_get(r.json, "code")),
                    "unknown_parameter");
                ck_assert_str_eq(
                    json_string_value(json_object_get(r.json, "field")),
                    "bogus");
            }
        }
        http_resp_cleanup(&r);
    }
    free(d);
    ts_stop(ts);
}
END_TEST

/* A name that is not printable ASCII is named with '?' in its place; a
 * POST that does not render takes no format; nor does the console. */
START_TEST(test_unknown_parameter_cases)
{
    test_server *ts = ts_start();
    json_t *p;

    p = ts_call(ts, 400, "GET", "/health?%C3%A9t%01=1", NULL, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(p, "field")), "??t?");
    json_decref(p);
    p = ts_call(ts, 400, "POST", "/v1/campaigns?format=md", NULL,
                "{\"name\": \"x\", \"sides\": [{\"name\": \"a\"}]}");
    ck_assert_str_eq(json_string_value(json_object_get(p, "field")), "format");
    json_decref(p);
    p = ts_call(ts, 400, "GET", "/?v=2", NULL, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(p, "field")), "v");
    json_decref(p);
    /* known parameters still work, an empty query too */
    json_decref(ts_call(ts, 200, "GET", "/v1/systems?format=json", NULL, NULL));
    json_decref(ts_call(ts, 200, "GET", "/v1/systems?", NULL, NULL));
    json_decref(ts_call(ts, 406, "GET", "/v1/systems?format=html", NULL, NULL));
    ts_stop(ts);
}
END_TEST

/* Whether the template tmpl matches path: a {param} takes one segment,
 * the rest of the path for a tail route. */
static bool matches(const router_route *rt, const char *path)
{
    const char *t = rt->path, *p = path;

    while (*t && *p) {
        if (*t == '{') {
            t = strchr(t, '}') + 1;
            if (*t == '\0' && (rt->flags & ROUTER_TAIL))
                return *p != '\0';
            if (*p == '/' || *p == '\0')
                return false;
            p += strcspn(p, "/");
        } else if (*t++ != *p++) {
            return false;
        }
    }
    return *t == '\0' && *p == '\0';
}

/* The Allow the router must send for path: the methods of the routes that
 * match it, in the table's order, HEAD after GET, then OPTIONS
 * (router.h). */
static void expected_allow(const char *path, char *out, size_t n)
{
    size_t k, len = 0;

    out[0] = '\0';
    for (k = 0; k < router_n_routes; k++)
        if (matches(&router_routes[k], path))
            len += (size_t)snprintf(
                out + len, n - len, "%s%s%s", len ? ", " : "",
                router_routes[k].method,
                strcmp(router_routes[k].method, "GET") == 0 ? ", HEAD" : "");
    snprintf(out + len, n - len, ", OPTIONS");
}

/* Regression (issue: the Allow of a 405 left out HEAD and OPTIONS). */
START_TEST(test_allow_lists_head_and_options)
{
    static const char *const others[] = {"DELETE", "PATCH", "PUT",
                                         "POST",   "HEAD",  NULL};
    test_server *ts = ts_start();
    char got0[96];
    http_resp r0;
    size_t k;

    for (k = 0; k < router_n_routes; k++) {
        const char *tmpl = router_routes[k].path;
        char path[256], want[96], got[96];
        http_resp r;
        int m;

        spec_instantiate(tmpl, NULL, path, sizeof path);
        expected_allow(path, want, sizeof want);
        ck_assert_int_eq(ts_request(ts, "OPTIONS", path, NULL, NULL, &r), 0);
        ck_assert_int_eq(r.status, 204);
        ts_header(&r, "Allow", got, sizeof got);
        ck_assert_msg(strcmp(got, want) == 0, "OPTIONS %s: Allow %s, not %s",
                      path, got, want);
        http_resp_cleanup(&r);
        for (m = 0; others[m]; m++) {
            char needle[16];
            snprintf(needle, sizeof needle, "%s,", others[m]);
            if (strstr(want, needle) != NULL)
                continue; /* the path has it */
            ck_assert_int_eq(
                ts_request(ts, others[m], path, NULL, body_for(others[m]), &r),
                0);
            ck_assert_msg(r.status == 405, "%s %s: %d", others[m], path,
                          r.status);
            ts_header(&r, "Allow", got, sizeof got);
            ck_assert_msg(strcmp(got, want) == 0, "%s %s: Allow %s, not %s",
                          others[m], path, got, want);
            http_resp_cleanup(&r);
            break;
        }
    }
    /* no HEAD where there is no GET */
    ck_assert_int_eq(ts_request(ts, "HEAD", "/v1/campaigns", NULL, NULL, &r0),
                     0);
    ck_assert_int_eq(r0.status, 405);
    ts_header(&r0, "Allow", got0, sizeof got0);
    ck_assert_str_eq(got0, "POST, OPTIONS");
    http_resp_cleanup(&r0);
    ts_stop(ts);
}
END_TEST

TCase *spec_http_tcase(void)
{
    TCase *tc = tcase_create("http");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_every_spec_route_answers_over_http);
    tcase_add_test(tc, test_sampled_answers_are_documented);
    tcase_add_test(tc, test_unknown_parameter_is_refused_everywhere);
    tcase_add_test(tc, test_unknown_parameter_cases);
    tcase_add_test(tc, test_allow_lists_head_and_options);
    return tc;
}
