#define _GNU_SOURCE /* asprintf */
/*
 * test_console_http.c: server/http/console.c and cors.c, GET /v1/token
 * (server/resources/tokens.c) and the headers http.c adds, through real
 * HTTP (docs/console.md): the console's files served whole from the
 * built-in table with their types, ETags and security headers, 304 and
 * HEAD, nothing outside the table reachable; who a token is; CORS for the
 * allowed origins only (requests, errors, preflights, "*"), never on the
 * console.  The parsing of the allowed origins is in test_cors.c.
 */
#include "console.h"
#include "harness.h"
#include "suites.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The console's sources, relative to the checkout (the tests run there,
 * like the vectors). */
#define CONSOLE_DIR "console"

/* The console's security headers, written out again: a change to them
 * must be made here too, on purpose. */
static const char *const console_expected[][2] = {
    {"Content-Security-Policy",
     "default-src 'none'; script-src 'self'; style-src 'self'; "
     "img-src 'self' data:; connect-src 'self'; font-src 'self'; "
     "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
    {"X-Frame-Options", "DENY"},
    {"Referrer-Policy", "no-referrer"},
    {"Cross-Origin-Opener-Policy", "same-origin"},
    {"Cross-Origin-Resource-Policy", "same-origin"},
    {"Permissions-Policy", "camera=(), microphone=(), geolocation=()"},
    {"X-Content-Type-Options", "nosniff"},
};

static const char *const cors_headers[] = {
    "Access-Control-Allow-Origin",   "Access-Control-Allow-Methods",
    "Access-Control-Allow-Headers",  "Access-Control-Max-Age",
    "Access-Control-Expose-Headers", "Access-Control-Allow-Credentials"};

/* Sends method path with extra header lines ("Name: value\r\n" each, or
 * NULL), an optional bearer token and an optional JSON body. */
static void send_req(test_server *ts, const char *method, const char *path,
                     const char *headers, const char *token, const char *body,
                     http_resp *out)
{
    char *raw;
    int n;

    n = asprintf(&raw,
                 "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                 "%s%s%s%s%sContent-Length: %zu\r\n\r\n%s",
                 method, path, headers ? headers : "",
                 token ? "Authorization: Bearer " : "", token ? token : "",
                 token ? "\r\n" : "",
                 body ? "Content-Type: application/json\r\n" : "",
                 body ? strlen(body) : 0, body ? body : "");
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq(ts_raw(ts, raw, (size_t)n, out), 0);
    free(raw);
}

/* Asserts header name is in r exactly once, with this value. */
static void assert_header(const http_resp *r, const char *name,
                          const char *value)
{
    char v[512];
    int count = ts_header(r, name, v, sizeof v);

    ck_assert_msg(count == 1, "%s: %d times in %s", name, count, r->head);
    ck_assert_str_eq(v, value);
}

static void assert_no_header(const http_resp *r, const char *name)
{
    char v[512];

    ck_assert_msg(ts_header(r, name, v, sizeof v) == 0,
                  "%s should not be there: %s", name, r->head);
}

static void assert_console_headers(const http_resp *r)
{
    size_t i;

    for (i = 0; i < sizeof console_expected / sizeof console_expected[0]; i++)
        assert_header(r, console_expected[i][0], console_expected[i][1]);
    for (i = 0; i < sizeof cors_headers / sizeof cors_headers[0]; i++)
        assert_no_header(r, cors_headers[i]);
}

static void assert_no_cors(const http_resp *r)
{
    size_t i;

    for (i = 0; i < sizeof cors_headers / sizeof cors_headers[0]; i++)
        assert_no_header(r, cors_headers[i]);
}

static void assert_problem(const http_resp *r, int status, const char *code)
{
    ck_assert_int_eq(r->status, status);
    ck_assert_str_eq(r->content_type, "application/problem+json");
    ck_assert_ptr_nonnull(r->json);
    ck_assert_str_eq(json_string_value(json_object_get(r->json, "code")), code);
}

/* The file at console/path, whole (new, free()); *len its size. */
static char *read_source(const char *path, size_t *len)
{
    char full[512];
    struct stat st;
    FILE *f;
    char *buf;

    snprintf(full, sizeof full, "%s/%s", CONSOLE_DIR, path);
    ck_assert_msg(stat(full, &st) == 0, "cannot stat %s", full);
    buf = malloc((size_t)st.st_size + 1);
    ck_assert_ptr_nonnull(buf);
    f = fopen(full, "rb");
    ck_assert_ptr_nonnull(f);
    *len = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    ck_assert_int_eq(*len, (size_t)st.st_size);
    return buf;
}

/* The content type a path must be served with (docs/console.md). */
static const char *expected_type(const char *path)
{
    static const char *const types[][2] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".json", "application/json"},
        {".txt", "text/plain; charset=utf-8"}};
    const char *dot = strrchr(path, '.');
    size_t i;

    for (i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i][0]) == 0)
            return types[i][1];
    return NULL;
}

/* ---- the files ---- */

START_TEST(test_index_is_served_with_every_security_header)
{
    test_server *ts = ts_start();
    http_resp r;
    size_t len;
    char *want = read_source("index.html", &len), etag[64];

    send_req(ts, "GET", "/", NULL, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "text/html; charset=utf-8");
    assert_console_headers(&r);
    assert_header(&r, "Cache-Control", "no-cache");
    ck_assert_int_eq(ts_header(&r, "ETag", etag, sizeof etag), 1);
    ck_assert_int_eq(strlen(etag), 18);
    ck_assert(etag[0] == '"' && etag[17] == '"');
    ck_assert_uint_eq(strspn(etag + 1, "0123456789abcdef"), 16);
    ck_assert_uint_eq(strlen(r.body), len);
    ck_assert(memcmp(r.body, want, len) == 0);
    http_resp_cleanup(&r);
    /* Public: a token, even a wrong one, changes nothing. */
    send_req(ts, "GET", "/", NULL, "not-a-token", NULL, &r);
    ck_assert_int_eq(r.status, 200);
    http_resp_cleanup(&r);
    free(want);
    ts_stop(ts);
}
END_TEST

/* Each file of console/ relative to it, in paths[] (up to max). */
static void walk(const char *rel, char paths[][512], int *n, int max)
{
    char dir[512];
    DIR *d;
    struct dirent *de;

    snprintf(dir, sizeof dir, "%s%s%s", CONSOLE_DIR, rel[0] ? "/" : "", rel);
    d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((de = readdir(d)) != NULL) {
        char sub[512], full[768];
        struct stat st;
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' ||
            (len > 3 && strcmp(de->d_name + len - 3, ".md") == 0))
            continue; /* not served (Makefile) */
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
        snprintf(full, sizeof full, "%s/%s", CONSOLE_DIR, sub);
        ck_assert_int_eq(stat(full, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            walk(sub, paths, n, max);
        } else {
            ck_assert_int_lt(*n, max);
            snprintf(paths[(*n)++], 512, "%s", sub);
        }
    }
    closedir(d);
}

START_TEST(test_every_file_is_built_in_and_served)
{
    static char paths[256][512];
    test_server *ts = ts_start();
    int n = 0, i;
    bool has_nested = false;

    walk("", paths, &n, 256);
    ck_assert_int_gt(n, 0);
    ck_assert_uint_eq(console_n_assets, (size_t)n);
    for (i = 0; i < n; i++) {
        const console_asset *a = console_find(paths[i]);
        char url[600], etag[64];
        size_t len;
        char *want = read_source(paths[i], &len);
        http_resp r;

        ck_assert_msg(a != NULL, "%s is not built in", paths[i]);
        ck_assert_uint_eq(a->len, len);
        ck_assert(memcmp(a->data, want, len) == 0);
        has_nested = has_nested || strchr(paths[i], '/') != NULL;
        snprintf(url, sizeof url, "/console/%.500s", paths[i]);
        send_req(ts, "GET", url, NULL, NULL, NULL, &r);
        ck_assert_msg(r.status == 200, "%s: %d", url, r.status);
        if (expected_type(paths[i]))
            ck_assert_str_eq(r.content_type, expected_type(paths[i]));
        assert_console_headers(&r);
        assert_header(&r, "Cache-Control", "no-cache");
        ck_assert_int_eq(ts_header(&r, "ETag", etag, sizeof etag), 1);
        ck_assert_str_eq(etag, a->etag);
        /* Text files compare whole; the harness keeps bodies as strings. */
        if (memchr(want, '\0', len) == NULL) {
            ck_assert_uint_eq(strlen(r.body), len);
            ck_assert(memcmp(r.body, want, len) == 0);
        }
        http_resp_cleanup(&r);
        free(want);
    }
    /* The web app keeps its modules in a folder: /console/js/... */
    ck_assert(has_nested);
    ts_stop(ts);
}
END_TEST

START_TEST(test_etag_answers_304)
{
    test_server *ts = ts_start();
    const console_asset *a = console_find("index.html");
    char h[256];
    http_resp r;
    size_t i;
    /* If-None-Match values that name the file (text before and after its
     * ETag, or "*"), then ones that do not. */
    static const char *const match[][2] = {
        {"", ""}, {"W/", ""}, {"\"0\", ", ""}, {"", " , \"0\""}, {"*", NULL}};
    static const char *const other[] = {"\"0\"", "W/\"0\"", "\"\"",
                                        "0123456789abcdef"};

    ck_assert_ptr_nonnull(a);
    for (i = 0; i < sizeof match / sizeof match[0]; i++) {
        char v[128];
        if (match[i][1])
            snprintf(v, sizeof v, "%s%s%s", match[i][0], a->etag, match[i][1]);
        else
            snprintf(v, sizeof v, "%s", match[i][0]);
        snprintf(h, sizeof h, "If-None-Match: %s\r\n", v);
        send_req(ts, "GET", "/", h, NULL, NULL, &r);
        ck_assert_msg(r.status == 304, "If-None-Match: %s gave %d", v,
                      r.status);
        ck_assert_str_eq(r.body, "");
        assert_header(&r, "ETag", a->etag);
        assert_header(&r, "Cache-Control", "no-cache");
        assert_console_headers(&r);
        http_resp_cleanup(&r);
        send_req(ts, "GET", "/console/index.html", h, NULL, NULL, &r);
        ck_assert_int_eq(r.status, 304);
        http_resp_cleanup(&r);
    }
    for (i = 0; i < sizeof other / sizeof other[0]; i++) {
        snprintf(h, sizeof h, "If-None-Match: %s\r\n", other[i]);
        send_req(ts, "GET", "/", h, NULL, NULL, &r);
        ck_assert_msg(r.status == 200, "If-None-Match: %s gave %d", other[i],
                      r.status);
        ck_assert_uint_eq(strlen(r.body), a->len);
        http_resp_cleanup(&r);
    }
    ts_stop(ts);
}
END_TEST

START_TEST(test_unknown_file_is_404)
{
    test_server *ts = ts_start();
    static const char *const paths[] = {
        "/console/nope.js",   "/console/js/",         "/console/js",
        "/console/JS/api.js", "/console/index.html/", "/console/index.htm"};
    http_resp r;
    size_t i;

    for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        send_req(ts, "GET", paths[i], NULL, NULL, NULL, &r);
        assert_problem(&r, 404, "not_found");
        assert_console_headers(&r);
        assert_header(&r, "Cache-Control", "no-store");
        http_resp_cleanup(&r);
    }
    /* No route at all: the router's 404. */
    send_req(ts, "GET", "/console/", NULL, NULL, NULL, &r);
    assert_problem(&r, 404, "no_such_route");
    http_resp_cleanup(&r);
    send_req(ts, "GET", "/index.html", NULL, NULL, NULL, &r);
    assert_problem(&r, 404, "no_such_route");
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_no_path_leaves_the_table)
{
    test_server *ts = ts_start();
    static const char *const paths[] = {
        "/console/../Makefile",
        "/console/%2e%2e/Makefile",
        "/console/%2E%2E/Makefile",
        "/console/..%2fMakefile",
        "/console/..%2FMakefile",
        "/console/%2e%2e%2fMakefile",
        "/console/js/../../Makefile",
        "/console/js/%2e%2e/%2e%2e/Makefile",
        "/console/..\\Makefile",
        "/console/%2fetc%2fpasswd",
        "/console//etc/passwd",
        "/console/./index.html",
        "/console/js/../index.html",
        "/console/%2e/index.html",
        "/console/%00",
    };
    const console_asset *index = console_find("index.html");
    http_resp r;
    size_t i;

    for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        send_req(ts, "GET", paths[i], NULL, NULL, NULL, &r);
        ck_assert_msg(r.status == 404 || r.status == 400, "%s answered %d: %s",
                      paths[i], r.status, r.body);
        ck_assert_ptr_null(strstr(r.body, "non-recursive"));
        ck_assert_ptr_null(strstr(r.body, "root:"));
        http_resp_cleanup(&r);
    }
    /* libmicrohttpd decodes %00 and the path ends there: still a name in
     * the table, never a file. */
    send_req(ts, "GET", "/console/index.html%00/../../Makefile", NULL, NULL,
             NULL, &r);
    ck_assert(r.status == 404 ||
              (r.status == 200 && index != NULL &&
               strlen(r.body) == index->len &&
               memcmp(r.body, index->data, index->len) == 0));
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_head_has_the_headers_and_no_body)
{
    test_server *ts = ts_start();
    const console_asset *a = console_find("index.html");
    char len[32], want[32];
    http_resp r;

    ck_assert_ptr_nonnull(a);
    send_req(ts, "HEAD", "/", NULL, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "");
    ck_assert_str_eq(r.content_type, "text/html; charset=utf-8");
    snprintf(want, sizeof want, "%zu", a->len);
    ck_assert_int_eq(ts_header(&r, "Content-Length", len, sizeof len), 1);
    ck_assert_str_eq(len, want);
    assert_header(&r, "ETag", a->etag);
    assert_console_headers(&r);
    http_resp_cleanup(&r);
    send_req(ts, "HEAD", "/console/nope.css", NULL, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 404);
    ck_assert_str_eq(r.body, "");
    http_resp_cleanup(&r);
    /* HEAD goes wherever GET does, the API too. */
    send_req(ts, "HEAD", "/health", NULL, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "");
    ck_assert_str_eq(r.content_type, "application/json");
    http_resp_cleanup(&r);
    /* ... but not where there is no GET. */
    send_req(ts, "HEAD", "/v1/campaigns", NULL, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 405);
    ck_assert_str_eq(r.allow, "POST, OPTIONS");
    http_resp_cleanup(&r);
    send_req(ts, "POST", "/", NULL, NULL, "{}", &r);
    assert_problem(&r, 405, "method_not_allowed");
    ck_assert_str_eq(r.allow, "GET, HEAD, OPTIONS");
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

/* ---- who a token is ---- */

START_TEST(test_token_says_who_it_is)
{
    test_server *ts = ts_start();
    static const char *const sides[] = {"red", "blue", NULL};
    test_campaign c;
    json_t *j;
    http_resp r;

    ts_campaign(ts, &c, NULL, sides);
    j = ts_call(ts, 200, "GET", "/v1/token", c.umpire, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(j, "campaign_id")),
                     c.id);
    ck_assert_str_eq(json_string_value(json_object_get(j, "campaign_name")),
                     "test");
    ck_assert_str_eq(json_string_value(json_object_get(j, "role")), "umpire");
    ck_assert(json_is_null(json_object_get(j, "side_id")));
    ck_assert(json_is_null(json_object_get(j, "side_name")));
    ck_assert_uint_eq(json_object_size(j), 5);
    json_decref(j);
    j = ts_call(ts, 200, "GET", "/v1/token", c.player[1], NULL);
    ck_assert_str_eq(json_string_value(json_object_get(j, "campaign_id")),
                     c.id);
    ck_assert_str_eq(json_string_value(json_object_get(j, "role")), "player");
    ck_assert_str_eq(json_string_value(json_object_get(j, "side_id")),
                     c.side_id[1]);
    ck_assert_str_eq(json_string_value(json_object_get(j, "side_name")),
                     "blue");
    json_decref(j);
    send_req(ts, "GET", "/v1/token", NULL, "ump_not_a_token", NULL, &r);
    assert_problem(&r, 401, "unauthorized");
    assert_header(&r, "WWW-Authenticate", "Bearer");
    http_resp_cleanup(&r);
    send_req(ts, "GET", "/v1/token", NULL, NULL, NULL, &r);
    assert_problem(&r, 401, "unauthorized");
    http_resp_cleanup(&r);
    send_req(ts, "POST", "/v1/token", NULL, c.umpire, "{}", &r);
    assert_problem(&r, 405, "method_not_allowed");
    ck_assert_str_eq(r.allow, "GET, HEAD, OPTIONS");
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

/* ---- the API's own headers ---- */

START_TEST(test_api_headers)
{
    test_server *ts = ts_start();
    static const char *const sides[] = {"a", "b", NULL};
    test_campaign c;
    char path[160], loc[300];
    http_resp r;

    send_req(ts, "GET", "/health", "Origin: https://app.example\r\n", NULL,
             NULL, &r);
    ck_assert_int_eq(r.status, 200);
    assert_header(&r, "Content-Security-Policy",
                  "default-src 'none'; frame-ancestors 'none'");
    assert_header(&r, "X-Frame-Options", "DENY");
    assert_header(&r, "Referrer-Policy", "no-referrer");
    assert_header(&r, "Cache-Control", "no-store");
    assert_no_header(&r, "Cross-Origin-Resource-Policy");
    /* No origin is allowed by default, and nothing varies with one. */
    assert_no_cors(&r);
    assert_no_header(&r, "Vary");
    http_resp_cleanup(&r);
    /* A report as HTML keeps its inline style and runs nothing. */
    ts_campaign(ts, &c, NULL, sides);
    ts_unit(ts, &c, "A1", "a", 0, 6, NULL);
    ts_unit(ts, &c, "B1", "b", 0, 6, NULL);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c.id);
    send_req(ts, "POST", path, NULL, c.umpire,
             "{\"sides\":[{\"side\":\"a\",\"units\":[{\"unit\":\"A1\"}]},"
             "{\"side\":\"b\",\"units\":[{\"unit\":\"B1\"}]}]}",
             &r);
    ck_assert_int_eq(r.status, 201);
    snprintf(loc, sizeof loc, "%s?format=html", r.location);
    http_resp_cleanup(&r);
    send_req(ts, "GET", loc, NULL, c.player[0], NULL, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "text/html; charset=utf-8");
    assert_header(&r, "Content-Security-Policy",
                  "default-src 'none'; style-src 'unsafe-inline'; "
                  "frame-ancestors 'none'");
    assert_header(&r, "Vary", "Accept");
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

/* ---- CORS ---- */

#define ALLOWED        "Origin: https://app.example\r\n"
#define OTHER          "Origin: https://evil.example\r\n"
#define PREFLIGHT_POST "Access-Control-Request-Method: POST\r\n"

static void assert_cors(const http_resp *r, const char *origin)
{
    char v[128];

    assert_header(r, "Access-Control-Allow-Origin", origin);
    assert_header(r, "Access-Control-Expose-Headers",
                  "Location, Idempotent-Replayed");
    assert_no_header(r, "Access-Control-Allow-Credentials");
    assert_no_header(r, "Access-Control-Allow-Methods");
    ck_assert_int_eq(ts_header(r, "Vary", v, sizeof v), 1);
    ck_assert_ptr_nonnull(strstr(v, "Origin"));
}

START_TEST(test_cors_allowed_origin_reads_answers)
{
    test_server *ts =
        ts_start_cors("https://app.example, http://localhost:5173");
    static const char *const sides[] = {"a", "b", NULL};
    test_campaign c;
    char path[160], loc[256];
    http_resp r;

    send_req(ts, "GET", "/health", ALLOWED, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    assert_cors(&r, "https://app.example");
    assert_header(&r, "Vary", "Origin");
    http_resp_cleanup(&r);
    send_req(ts, "GET", "/v1/systems", "Origin: http://localhost:5173\r\n",
             NULL, NULL, &r);
    assert_cors(&r, "http://localhost:5173");
    http_resp_cleanup(&r);
    /* A combat: its Location is readable. */
    ts_campaign(ts, &c, NULL, sides);
    ts_unit(ts, &c, "A1", "a", 0, 6, NULL);
    ts_unit(ts, &c, "B1", "b", 0, 6, NULL);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c.id);
    send_req(ts, "POST", path, ALLOWED, c.umpire,
             "{\"sides\":[{\"side\":\"a\",\"units\":[{\"unit\":\"A1\"}]},"
             "{\"side\":\"b\",\"units\":[{\"unit\":\"B1\"}]}]}",
             &r);
    ck_assert_int_eq(r.status, 201);
    ck_assert_int_gt(strlen(r.location), 0);
    assert_cors(&r, "https://app.example");
    assert_header(&r, "Vary", "Accept, Origin");
    snprintf(loc, sizeof loc, "%s", r.location);
    http_resp_cleanup(&r);
    send_req(ts, "GET", loc, ALLOWED, c.player[1], NULL, &r);
    ck_assert_int_eq(r.status, 200);
    assert_cors(&r, "https://app.example");
    http_resp_cleanup(&r);
    /* Errors too, so the page can read the problem. */
    send_req(ts, "GET", "/v1/token", ALLOWED, "bad", NULL, &r);
    assert_problem(&r, 401, "unauthorized");
    assert_cors(&r, "https://app.example");
    http_resp_cleanup(&r);
    send_req(ts, "GET", "/v1/nothing", ALLOWED, NULL, NULL, &r);
    assert_problem(&r, 404, "no_such_route");
    assert_cors(&r, "https://app.example");
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_cors_other_origins_get_nothing)
{
    test_server *ts = ts_start_cors("https://app.example");
    static const char *const origins[] = {
        OTHER,
        "Origin: http://app.example\r\n",
        "Origin: https://app.example:8443\r\n",
        "Origin: https://app.example.evil.example\r\n",
        "Origin: https://sub.app.example\r\n",
        "Origin: null\r\n",
        "Origin: \r\n",
        ""};
    http_resp r;
    size_t i;

    for (i = 0; i < sizeof origins / sizeof origins[0]; i++) {
        send_req(ts, "GET", "/health", origins[i], NULL, NULL, &r);
        ck_assert_int_eq(r.status, 200); /* served: the browser blocks it */
        assert_no_cors(&r);
        assert_header(&r, "Vary", "Origin");
        http_resp_cleanup(&r);
    }
    /* The console is never shared, whatever the origin. */
    send_req(ts, "GET", "/", ALLOWED, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    assert_console_headers(&r);
    assert_no_header(&r, "Vary");
    http_resp_cleanup(&r);
    send_req(ts, "GET", "/console/index.html", ALLOWED, NULL, NULL, &r);
    assert_console_headers(&r);
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_cors_preflight)
{
    test_server *ts = ts_start_cors("https://app.example");
    static const char *const paths[] = {"/v1/campaigns", "/health",
                                        "/v1/campaigns/c/units/u",
                                        "/v1/no/such/route"};
    http_resp r;
    size_t i;

    for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        send_req(ts, "OPTIONS", paths[i],
                 ALLOWED PREFLIGHT_POST
                 "Access-Control-Request-Headers: authorization, "
                 "content-type, idempotency-key\r\n",
                 NULL, NULL, &r);
        ck_assert_msg(r.status == 204, "%s: %d %s", paths[i], r.status, r.body);
        ck_assert_str_eq(r.body, "");
        assert_header(&r, "Access-Control-Allow-Origin", "https://app.example");
        assert_header(&r, "Access-Control-Allow-Methods",
                      "GET, POST, PUT, PATCH, DELETE");
        assert_header(&r, "Access-Control-Allow-Headers",
                      "Authorization, Content-Type, Accept, Idempotency-Key");
        assert_header(&r, "Access-Control-Max-Age", "600");
        assert_header(&r, "Vary", "Origin");
        assert_no_header(&r, "Access-Control-Allow-Credentials");
        http_resp_cleanup(&r);
    }
    /* Another origin: refused, with nothing a browser could use. */
    send_req(ts, "OPTIONS", "/v1/campaigns", OTHER PREFLIGHT_POST, NULL, NULL,
             &r);
    assert_problem(&r, 403, "origin_not_allowed");
    assert_no_cors(&r);
    http_resp_cleanup(&r);
    /* A plain OPTIONS (no preflight) says what the path allows. */
    send_req(ts, "OPTIONS", "/v1/campaigns/c/units/u", NULL, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 204);
    ck_assert_str_eq(r.allow, "GET, HEAD, PATCH, OPTIONS");
    assert_no_cors(&r);
    http_resp_cleanup(&r);
    send_req(ts, "OPTIONS", "/v1/campaigns", ALLOWED, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 204);
    ck_assert_str_eq(r.allow, "POST, OPTIONS");
    assert_header(&r, "Access-Control-Allow-Origin", "https://app.example");
    assert_no_header(&r, "Access-Control-Allow-Methods");
    http_resp_cleanup(&r);
    send_req(ts, "OPTIONS", "/v1/nothing", NULL, NULL, NULL, &r);
    assert_problem(&r, 404, "no_such_route");
    http_resp_cleanup(&r);
    /* The console's paths are no API: no preflight is ever granted. */
    send_req(ts, "OPTIONS", "/", ALLOWED PREFLIGHT_POST, NULL, NULL, &r);
    ck_assert_int_eq(r.status, 204);
    ck_assert_str_eq(r.allow, "GET, HEAD, OPTIONS");
    assert_console_headers(&r);
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_cors_default_refuses_every_preflight)
{
    test_server *ts = ts_start();
    http_resp r;

    send_req(ts, "OPTIONS", "/v1/campaigns", ALLOWED PREFLIGHT_POST, NULL, NULL,
             &r);
    assert_problem(&r, 403, "origin_not_allowed");
    assert_no_cors(&r);
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_cors_any_origin)
{
    test_server *ts = ts_start_cors("*");
    static const char *const sides[] = {"a", "b", NULL};
    test_campaign c;
    http_resp r;

    send_req(ts, "GET", "/health", OTHER, NULL, NULL, &r);
    assert_cors(&r, "*");
    http_resp_cleanup(&r);
    send_req(ts, "OPTIONS", "/v1/campaigns", OTHER PREFLIGHT_POST, NULL, NULL,
             &r);
    ck_assert_int_eq(r.status, 204);
    assert_header(&r, "Access-Control-Allow-Origin", "*");
    assert_no_header(&r, "Access-Control-Allow-Credentials");
    http_resp_cleanup(&r);
    ts_campaign(ts, &c, NULL, sides);
    send_req(ts, "GET", "/v1/token", "Origin: null\r\n", c.umpire, NULL, &r);
    ck_assert_int_eq(r.status, 200);
    assert_cors(&r, "*");
    http_resp_cleanup(&r);
    /* Still nothing without an Origin. */
    send_req(ts, "GET", "/health", NULL, NULL, NULL, &r);
    assert_no_cors(&r);
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

Suite *suite_console_http(void)
{
    Suite *s = suite_create("console_http");
    TCase *files = tcase_create("files");
    TCase *token = tcase_create("token");
    TCase *cors = tcase_create("cors");

    tcase_add_test(files, test_index_is_served_with_every_security_header);
    tcase_add_test(files, test_every_file_is_built_in_and_served);
    tcase_add_test(files, test_etag_answers_304);
    tcase_add_test(files, test_unknown_file_is_404);
    tcase_add_test(files, test_no_path_leaves_the_table);
    tcase_add_test(files, test_head_has_the_headers_and_no_body);
    tcase_add_test(token, test_token_says_who_it_is);
    tcase_add_test(token, test_api_headers);
    tcase_add_test(cors, test_cors_allowed_origin_reads_answers);
    tcase_add_test(cors, test_cors_other_origins_get_nothing);
    tcase_add_test(cors, test_cors_preflight);
    tcase_add_test(cors, test_cors_default_refuses_every_preflight);
    tcase_add_test(cors, test_cors_any_origin);
    suite_add_tcase(s, files);
    suite_add_tcase(s, token);
    suite_add_tcase(s, cors);
    return s;
}
