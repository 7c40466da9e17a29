#define _GNU_SOURCE /* vasprintf */
/*
 * harness.c: test server and HTTP client; see harness.h.
 */
#include "harness.h"
#include "unit_cache.h"

#include <arpa/inet.h>
#include <check.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

bool ts_is_pg(void)
{
    const char *url = getenv("UMPIRE_TEST_PG");

    return url != NULL && url[0] != '\0';
}

/* Runs sql on the tests' PostgreSQL database; aborts the test on failure. */
static void pg_run(const char *sql)
{
    PGconn *c = PQconnectdb(getenv("UMPIRE_TEST_PG"));
    PGresult *res;

    ck_assert_msg(PQstatus(c) == CONNECTION_OK, "PostgreSQL: %s",
                  PQerrorMessage(c));
    PQclear(PQexec(c, "SET client_min_messages = warning"));
    res = PQexec(c, sql);
    ck_assert_msg(PQresultStatus(res) == PGRES_COMMAND_OK, "%s: %s", sql,
                  PQresultErrorMessage(res));
    PQclear(res);
    PQfinish(c);
}

void ts_pg_schema(test_server *ts)
{
    static int n;
    const char *url = getenv("UMPIRE_TEST_PG");
    char sql[96];

    snprintf(ts->schema, sizeof ts->schema, "t%ld_%ld_%d", (long)getpid(),
             (long)time(NULL), ++n);
    snprintf(sql, sizeof sql, "CREATE SCHEMA %s", ts->schema);
    pg_run(sql);
    snprintf(ts->db_path, sizeof ts->db_path, "%s%coptions=-csearch_path%%3D%s",
             url, strchr(url, '?') ? '&' : '?', ts->schema);
}

test_server *ts_start_config(http_config *cfg)
{
    test_server *ts = calloc(1, sizeof *ts);
    err_info e;

    ck_assert_ptr_nonnull(ts);
    snprintf(ts->dir, sizeof ts->dir, "/tmp/umpire-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(ts->dir));
    snprintf(ts->db_path, sizeof ts->db_path, "%s/umpire.db", ts->dir);
    if (ts_is_pg())
        ts_pg_schema(ts);
    cfg->db_path = ts->db_path;
    err_clear(&e);
    if (http_start(cfg, &ts->srv, &e) != ERR_OK)
        ck_abort_msg("http_start: %s", e.message);
    ts->port = http_port(ts->srv);
    ck_assert_int_gt(ts->port, 0);
    return ts;
}

static test_server *start_with(size_t body_limit, const char *cors_origins,
                               const discord_config *discord,
                               const notify_config *posts)
{
    http_config cfg;
    err_info e;

    http_config_default(&cfg);
    cfg.port = 0;
    cfg.access_log = "off";
    cfg.body_limit = body_limit;
    err_clear(&e);
    if (cors_origins && cors_config_add(&cfg.cors, cors_origins, &e) != ERR_OK)
        ck_abort_msg("cors_config_add: %s", e.message);
    if (discord != NULL)
        cfg.discord = *discord;
    if (posts != NULL)
        cfg.notify = *posts;
    return ts_start_config(&cfg);
}

static test_server *start(size_t body_limit, const char *cors_origins)
{
    return start_with(body_limit, cors_origins, NULL, NULL);
}

test_server *ts_start_discord(const discord_config *discord,
                              const notify_config *posts)
{
    return start_with(64 * 1024, NULL, discord, posts);
}

test_server *ts_start_with(size_t body_limit)
{
    return start(body_limit, NULL);
}

test_server *ts_start(void)
{
    return start(64 * 1024, NULL);
}

test_server *ts_start_cors(const char *origins)
{
    return start(64 * 1024, origins);
}

void ts_stop(test_server *ts)
{
    char path[192];

    if (ts == NULL)
        return;
    http_stop(ts->srv);
    if (ts->schema[0] != '\0') {
        char sql[96];
        snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", ts->schema);
        pg_run(sql);
    }
    snprintf(path, sizeof path, "%s/umpire.db", ts->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/umpire.db-wal", ts->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/umpire.db-shm", ts->dir);
    unlink(path);
    rmdir(ts->dir);
    free(ts);
}

void http_resp_cleanup(http_resp *r)
{
    if (r == NULL)
        return;
    free(r->body);
    free(r->head);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

static void header_value(const char *headers, const char *name, char *out,
                         size_t n)
{
    const char *p = headers;
    size_t len = strlen(name);

    out[0] = '\0';
    while ((p = strchr(p, '\n')) != NULL) {
        p++;
        if (strncasecmp(p, name, len) == 0 && p[len] == ':') {
            const char *v = p + len + 1, *end;
            while (*v == ' ')
                v++;
            end = strpbrk(v, "\r\n");
            snprintf(out, n, "%.*s", (int)(end ? end - v : (long)strlen(v)), v);
            return;
        }
    }
}

/* A chunked body (RFC 9112, section 7.1) decoded in place: the chunks'
 * data joined, sizes and trailers dropped.  A body cut short keeps what
 * came whole. */
static void dechunk(char *body)
{
    char *in = body, *out = body;

    for (;;) {
        char *end;
        unsigned long size = strtoul(in, &end, 16);
        char *data = strstr(end, "\r\n");
        if (end == in || data == NULL || size == 0)
            break;
        data += 2;
        if (strlen(data) < size)
            break;
        memmove(out, data, size);
        out += size;
        in = data + size;
        if (strncmp(in, "\r\n", 2) != 0)
            break;
        in += 2;
    }
    *out = '\0';
}

int ts_raw(test_server *ts, const char *raw, size_t len, http_resp *out)
{
    char te[64];
    struct sockaddr_in a;
    char *buf = NULL, *body;
    size_t n = 0, cap = 0;
    ssize_t got;
    int fd;

    memset(out, 0, sizeof *out);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)ts->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    while (len > 0) {
        ssize_t w = send(fd, raw, len, MSG_NOSIGNAL);
        if (w <= 0)
            break; /* the server may answer before reading everything */
        raw += w;
        len -= (size_t)w;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
        got = recv(fd, buf + n, cap - n - 1, 0);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (buf == NULL || n == 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    if (sscanf(buf, "HTTP/1.%*d %d", &out->status) != 1) {
        free(buf);
        return -1;
    }
    body = strstr(buf, "\r\n\r\n");
    if (body) {
        *body = '\0';
        body += 4;
    } else {
        body = buf + n;
    }
    header_value(buf, "Content-Type", out->content_type,
                 sizeof out->content_type);
    header_value(buf, "Location", out->location, sizeof out->location);
    header_value(buf, "Allow", out->allow, sizeof out->allow);
    header_value(buf, "Transfer-Encoding", te, sizeof te);
    if (strcasecmp(te, "chunked") == 0) /* a streamed answer */
        dechunk(body);
    out->head = strdup(buf);
    out->body = strdup(body);
    out->json = out->body[0] ? json_loads(out->body, 0, NULL) : NULL;
    free(buf);
    return 0;
}

int ts_header(const http_resp *r, const char *name, char *out, size_t n)
{
    const char *p = r->head;
    size_t len = strlen(name);
    int count = 0;

    out[0] = '\0';
    while (p && (p = strchr(p, '\n')) != NULL) {
        p++;
        if (strncasecmp(p, name, len) == 0 && p[len] == ':' && count++ == 0) {
            const char *v = p + len + 1;
            while (*v == ' ')
                v++;
            snprintf(out, n, "%.*s", (int)strcspn(v, "\r\n"), v);
        }
    }
    return count;
}

int ts_request(test_server *ts, const char *method, const char *path,
               const char *token, const char *body, http_resp *out)
{
    size_t blen = body ? strlen(body) : 0;
    size_t cap = blen + strlen(path) + 512;
    char *req = malloc(cap);
    int n, rc;

    ck_assert_ptr_nonnull(req);
    n = snprintf(req, cap,
                 "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                 "%s%s%s%s"
                 "Content-Length: %zu\r\n\r\n",
                 method, path, token ? "Authorization: Bearer " : "",
                 token ? token : "", token ? "\r\n" : "",
                 body ? "Content-Type: application/json\r\n" : "", blen);
    if (body)
        memcpy(req + n, body, blen);
    rc = ts_raw(ts, req, (size_t)n + blen, out);
    free(req);
    return rc;
}

json_t *ts_call(test_server *ts, int expect_status, const char *method,
                const char *path, const char *token, const char *body_fmt, ...)
{
    char *body = NULL;
    http_resp r;
    json_t *j;
    va_list ap;

    if (body_fmt) {
        va_start(ap, body_fmt);
        ck_assert_int_ge(vasprintf(&body, body_fmt, ap), 0);
        va_end(ap);
    }
    ck_assert_int_eq(ts_request(ts, method, path, token, body, &r), 0);
    if (r.status != expect_status)
        ck_abort_msg("%s %s: expected %d, got %d: %s", method, path,
                     expect_status, r.status, r.body);
    free(body);
    j = r.json;
    r.json = NULL;
    http_resp_cleanup(&r);
    return j;
}

void ts_campaign(test_server *ts, test_campaign *c, const char *options_json,
                 const char *const sides[])
{
    char list[512] = "";
    json_t *j, *js;
    int i;

    memset(c, 0, sizeof *c);
    for (i = 0; sides[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list),
                 "%s{\"name\":\"%s\"}", i ? "," : "", sides[i]);
    if (options_json)
        j = ts_call(ts, 201, "POST", "/v1/campaigns", NULL,
                    "{\"name\":\"test\",\"sides\":[%s],\"options\":{"
                    "\"scrud\":%s}}",
                    list, options_json);
    else
        j = ts_call(ts, 201, "POST", "/v1/campaigns", NULL,
                    "{\"name\":\"test\",\"sides\":[%s]}", list);
    snprintf(c->id, sizeof c->id, "%s",
             json_string_value(json_object_get(j, "id")));
    snprintf(c->umpire, sizeof c->umpire, "%s",
             json_string_value(json_object_get(j, "umpire_token")));
    js = json_object_get(j, "sides");
    c->n_sides = (int)json_array_size(js);
    for (i = 0; i < c->n_sides && i < 4; i++) {
        json_t *s = json_array_get(js, (size_t)i);
        snprintf(c->player[i], sizeof c->player[i], "%s",
                 json_string_value(json_object_get(s, "player_token")));
        snprintf(c->side_id[i], sizeof c->side_id[i], "%s",
                 json_string_value(json_object_get(s, "id")));
    }
    json_decref(j);
}

void ts_unit(test_server *ts, const test_campaign *c, const char *name,
             const char *side, int quality, int faces, char *id_out)
{
    char path[128];
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s/units", c->id);
    j = ts_call(ts, 201, "POST", path, c->umpire,
                "{\"name\":\"%s\",\"side\":\"%s\",\"scrud\":{\"quality\":%d,"
                "\"faces\":%d}}",
                name, side, quality, faces);
    if (id_out)
        snprintf(id_out, 64, "%s", json_string_value(json_object_get(j, "id")));
    json_decref(j);
}

const char *ts_vectors_dir(void)
{
    const char *d = getenv("UMPIRE_TEST_VECTORS");

    return d && d[0] ? d : "tests/vectors";
}

json_t *ts_load_vector(const char *file)
{
    char path[512];
    json_error_t jerr;
    json_t *j;

    snprintf(path, sizeof path, "%s/%s", ts_vectors_dir(), file);
    j = json_load_file(path, 0, &jerr);
    if (j == NULL)
        ck_abort_msg("cannot load %s: %s", path, jerr.text);
    return j;
}

int ts_check_kept_units(test_server *ts, const char *campaign_id)
{
    db *d = http_db(ts->srv);
    unit_cache *k = db_unit_cache(d);
    db_unit *kept = calloc(64, sizeof *kept), row;
    long long version, now = -1;
    size_t i, n;
    db_conn *r;

    ck_assert_ptr_nonnull(kept);
    if (ts_is_pg()) {
        ck_assert_ptr_null(k);
        free(kept);
        return -1;
    }
    ck_assert_ptr_nonnull(k);
    n = unit_cache_rows(k, campaign_id, &version, kept, 64);
    r = db_read_acquire(d);
    ck_assert_int_eq(db_campaign_version(r, campaign_id, &now, NULL), ERR_OK);
    if (version != now)
        n = 0; /* not used: of another version */
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(db_unit_find(r, campaign_id, kept[i].id, &row, NULL),
                         ERR_OK);
        ck_assert_msg(memcmp(&row, &kept[i], sizeof row) == 0,
                      "the unit %s kept is not the store's", kept[i].name);
    }
    if (version == now) {
        db_side sides[16], side;
        db_campaign cmp, kept_cmp;
        long long at;
        size_t n_sides = unit_cache_sides(k, campaign_id, &at, sides, 16);
        for (i = 0; i < n_sides; i++) {
            ck_assert_int_eq(
                db_side_find(r, campaign_id, sides[i].id, &side, NULL), ERR_OK);
            ck_assert_msg(memcmp(&side, &sides[i], sizeof side) == 0,
                          "the side %s kept is not the store's", sides[i].name);
        }
        if (unit_cache_campaign_get(k, campaign_id, now, &kept_cmp)) {
            ck_assert_int_eq(db_campaign_get(r, campaign_id, &cmp, NULL),
                             ERR_OK);
            ck_assert_msg(memcmp(&cmp, &kept_cmp, sizeof cmp) == 0,
                          "the campaign's row kept is not the store's");
        }
    }
    db_read_release(d, r);
    free(kept);
    return (int)n;
}
