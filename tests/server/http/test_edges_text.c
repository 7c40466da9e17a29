/*
 * test_edges_text.c: the suite "edges", text that is not UTF-8 (see
 * test_edges.c): a path or query parameter percent-decoded into bytes
 * that are not UTF-8 was echoed into a problem document, jansson refused
 * to build it, and the connection was dropped with no answer.  Every
 * route of the table and every query parameter the spec documents for a
 * GET route is tried, each parameter in turn, and problem.c's repair of
 * text is checked byte by byte.
 */
#include "edges_rig.h"
#include "problem.h"
#include "router.h"
#include "suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Percent-encoded bytes that are not UTF-8: a lone byte that never
 * starts one, a lead byte followed by no continuation, an overlong '/'. */
static const char *const bad_texts[] = {"%ff", "%c3%28", "%c0%af",
                                        "a%ed%a0%80b"};
#define N_BAD (sizeof bad_texts / sizeof bad_texts[0])

/* ---- the spec's query parameters ---- */

#define MAX_REFS 512

typedef struct spec_refs {
    char path[MAX_REFS][160]; /* a GET path ... */
    char ref[MAX_REFS][64];   /* ... and a parameter it names (a component,
                                 or "=name" for one written inline) */
    int n;
    char comp[MAX_REFS][64]; /* components/parameters that are in: query */
    char name[MAX_REFS][64]; /* their names */
    int n_comps;
} spec_refs;

static const char *spec_path(void)
{
    const char *p = getenv("UMPIRE_API_SPEC");

    return p && p[0] ? p : "api-spec/openapi.yaml";
}

/* The value after "key: " in line, unquoted, into out. */
static bool value_of(const char *line, const char *key, char *out, size_t n)
{
    const char *p = strstr(line, key);
    size_t len;

    if (p == NULL)
        return false;
    p += strlen(key);
    p += strspn(p, " '\"");
    len = strcspn(p, "'\"\r\n ");
    snprintf(out, n, "%.*s", (int)len, p);
    return true;
}

/* A line under paths: a path, an operation, or a parameter of a GET. */
static void read_path_line(spec_refs *s, const char *line, char *path,
                           bool *is_get, char *inline_name)
{
    static const char prefix[] = "#/components/parameters/";
    char v[64];
    const char *ref;

    if (strncmp(line, "  /", 3) == 0) {
        snprintf(path, 160, "%.*s", (int)strcspn(line + 2, ":"), line + 2);
        *is_get = false;
    } else if (strncmp(line, "    ", 4) == 0 && line[4] != ' ') {
        *is_get = strncmp(line + 4, "get:", 4) == 0;
    } else if (*is_get && s->n < MAX_REFS) {
        if ((ref = strstr(line, prefix)) != NULL) {
            snprintf(s->path[s->n], 160, "%s", path);
            snprintf(s->ref[s->n++], 64, "%.*s",
                     (int)strcspn(ref + sizeof prefix - 1, "'\""),
                     ref + sizeof prefix - 1);
        } else if (value_of(line, "- name:", v, sizeof v)) {
            snprintf(inline_name, 64, "%.63s", v);
        } else if (strstr(line, "in: query") && inline_name[0]) {
            snprintf(s->path[s->n], 160, "%s", path);
            snprintf(s->ref[s->n++], 64, "=%.62s", inline_name);
        }
    }
}

/* A line under components: parameters. */
static void read_param_line(spec_refs *s, const char *line, char *comp,
                            char *name)
{
    char v[64];

    if (strncmp(line, "    ", 4) == 0 && line[4] != ' ' && line[4]) {
        snprintf(comp, 64, "%.*s", (int)strcspn(line + 4, ":"), line + 4);
        name[0] = '\0';
    } else if (value_of(line, "      name:", v, sizeof v)) {
        snprintf(name, 64, "%s", v);
    } else if (strstr(line, "      in: query") && name[0] &&
               s->n_comps < MAX_REFS) {
        snprintf(s->comp[s->n_comps], 64, "%s", comp);
        snprintf(s->name[s->n_comps++], 64, "%s", name);
    }
}

static void read_spec(spec_refs *s)
{
    FILE *f = fopen(spec_path(), "r");
    char line[1024], path[160] = "", comp[64] = "", name[64] = "";
    char inline_name[64] = "";
    int section = 0; /* 1 paths, 2 components: parameters */
    bool is_get = false;

    ck_assert_msg(f != NULL, "cannot read %s", spec_path());
    memset(s, 0, sizeof *s);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != ' ' && line[0] != '\0' && line[0] != '#')
            section = strcmp(line, "paths:") == 0 ? 1 : 0;
        else if (strcmp(line, "  parameters:") == 0 && section != 1)
            section = 2;
        else if (section == 2 && line[0] == ' ' && line[2] != ' ')
            section = 0;
        else if (section == 1)
            read_path_line(s, line, path, &is_get, inline_name);
        else if (section == 2)
            read_param_line(s, line, comp, name);
    }
    fclose(f);
}

/* The query name a reference stands for, or NULL when it is no query
 * parameter. */
static const char *query_name(const spec_refs *s, const char *ref)
{
    int i;

    if (ref[0] == '=')
        return ref + 1;
    for (i = 0; i < s->n_comps; i++)
        if (strcmp(s->comp[i], ref) == 0)
            return s->name[i];
    return NULL;
}

/* ---- requests ---- */

/* rt's path with its parameters filled in: the campaign's id for
 * {campaign_id}, "x" for the others, and bad for parameter number k (-1
 * for none). */
static void fill_path(const char *tmpl, int k, const char *bad,
                      const char *campaign, char *out, size_t n)
{
    size_t o = 0;
    int i = 0;

    while (*tmpl && o + 1 < n) {
        if (*tmpl == '{') {
            const char *end = strchr(tmpl, '}');
            const char *v = i == k ? bad
                            : strncmp(tmpl, "{campaign_id}", 13) == 0
                                ? campaign
                                : "x";
            o += (size_t)snprintf(out + o, n - o, "%s", v);
            tmpl = end + 1;
            i++;
        } else {
            out[o++] = *tmpl++;
        }
    }
    out[o < n ? o : n - 1] = '\0';
}

/* Sends it, and asserts a 4xx problem document that parses as JSON. */
static void assert_problem_answer(test_server *ts, const char *method,
                                  const char *url, const char *token)
{
    bool has_body = strcmp(method, "POST") == 0 ||
                    strcmp(method, "PUT") == 0 || strcmp(method, "PATCH") == 0;
    http_resp r;

    ck_assert_msg(ts_request(ts, method, url, token, has_body ? "{}" : NULL,
                             &r) == 0,
                  "%s %s: no answer", method, url);
    ck_assert_msg(r.status >= 400 && r.status <= 499, "%s %s: %d %s", method,
                  url, r.status, r.body);
    ck_assert_msg(strcmp(r.content_type, "application/problem+json") == 0,
                  "%s %s: %s", method, url, r.content_type);
    ck_assert_msg(r.json != NULL, "%s %s: not JSON: %s", method, url, r.body);
    ck_assert_int_eq(json_integer_value(json_object_get(r.json, "status")),
                     r.status);
    ck_assert_ptr_nonnull(json_string_value(json_object_get(r.json, "detail")));
    http_resp_cleanup(&r);
}

/* Regression: GET /v1/combats/%ff got an empty reply. */
START_TEST(test_invalid_utf8_in_path_parameter_is_problem)
{
    static const char *const sides[] = {"a", "b", NULL};
    test_server *ts = ts_start();
    test_campaign c;
    char url[512];
    size_t i, b;
    int k, n_tried = 0;

    ts_campaign(ts, &c, NULL, sides);
    for (i = 0; i < router_n_routes; i++) {
        const router_route *rt = &router_routes[i];
        const char *p;
        int n_params = 0;
        for (p = rt->path; (p = strchr(p, '{')) != NULL; p++)
            n_params++;
        for (k = 0; k < n_params; k++)
            for (b = 0; b < N_BAD; b++) {
                fill_path(rt->path, k, bad_texts[b], c.id, url, sizeof url);
                assert_problem_answer(ts, rt->method, url, c.umpire);
                n_tried++;
            }
    }
    ck_assert_int_gt(n_tried, 40);
    ts_stop(ts);
}
END_TEST

/* Regression: a query parameter that is not UTF-8 got an empty reply. */
START_TEST(test_invalid_utf8_in_query_parameter_is_problem)
{
    static const char *const sides[] = {"a", "b", NULL};
    test_server *ts = ts_start();
    spec_refs *s = malloc(sizeof *s);
    test_campaign c;
    char path[400], url[512];
    size_t i, b;
    int j, n_tried = 0;

    ck_assert_ptr_nonnull(s);
    read_spec(s);
    ck_assert_int_gt(s->n_comps, 5);
    ts_campaign(ts, &c, NULL, sides);
    for (i = 0; i < router_n_routes; i++) {
        const router_route *rt = &router_routes[i];
        if (strcmp(rt->method, "GET") != 0)
            continue;
        fill_path(rt->path, -1, "", c.id, path, sizeof path);
        for (j = 0; j < s->n; j++) {
            const char *q = query_name(s, s->ref[j]);
            if (q == NULL || strcmp(s->path[j], rt->path) != 0)
                continue;
            for (b = 0; b < N_BAD; b++) {
                snprintf(url, sizeof url, "%s?%s=%s", path, q, bad_texts[b]);
                assert_problem_answer(ts, rt->method, url, c.umpire);
                n_tried++;
            }
        }
    }
    ck_assert_int_gt(n_tried, 20);
    free(s);
    ts_stop(ts);
}
END_TEST

/* problem.c: any text becomes valid UTF-8, valid text is kept. */
START_TEST(test_problem_text_always_valid_utf8)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "plain"},
        {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f"
                                                 "\x98\x80"}, /* é € 😀 */
        {"\xff", "\xef\xbf\xbd"},
        {"\xc3(", "\xef\xbf\xbd("},                          /* no follower */
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},            /* overlong / */
        {"\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* overlong */
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* surrogate */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf"
                             "\xbd"},                 /* above U+10FFFF */
        {"a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd"}, /* cut short */
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *v = problem_utf8(cases[i].in, strlen(cases[i].in));
        ck_assert_ptr_nonnull(v);
        ck_assert_msg(strcmp(v, cases[i].out) == 0, "case %zu", i);
        free(v);
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *p = problem_make(404, "not_found", "Not \xff found",
                                 cases[i].in, cases[i].in);
        char *text = p ? json_dumps(p, JSON_COMPACT) : NULL;
        json_t *back = text ? json_loads(text, 0, NULL) : NULL;
        ck_assert_msg(back != NULL, "case %zu", i);
        ck_assert_str_eq(json_string_value(json_object_get(back, "detail")),
                         cases[i].out);
        ck_assert_int_eq(json_integer_value(json_object_get(back, "status")),
                         404);
        json_decref(back);
        free(text);
        json_decref(p);
    }
}
END_TEST

/* The fixed answer of last resort is a problem document itself. */
START_TEST(test_problem_fallback_is_a_problem)
{
    size_t len;
    const char *body = problem_fallback(&len);
    json_t *j = json_loadb(body, len, 0, NULL);

    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "status")), 500);
    ck_assert_str_eq(json_string_value(json_object_get(j, "code")),
                     "internal_error");
    json_decref(j);
}
END_TEST

void edges_add_text_tests(TCase *tc)
{
    tcase_add_test(tc, test_invalid_utf8_in_path_parameter_is_problem);
    tcase_add_test(tc, test_invalid_utf8_in_query_parameter_is_problem);
    tcase_add_test(tc, test_problem_text_always_valid_utf8);
    tcase_add_test(tc, test_problem_fallback_is_a_problem);
}
