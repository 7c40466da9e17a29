/*
 * test_api.c: the campaign API through real HTTP against the design note
 * (and api-spec/openapi.yaml): campaigns, sides, tokens, units,
 * corrections, resupply, history, and RFC 9457 problems.  Authentication
 * and authorization are in test_auth.c.  Every test gets a fresh server
 * over a fresh database (api_fixture.h); "a refused request changes
 * nothing" is checked by reading the state back before and after.
 */
#include <stdio.h>
#include <string.h>

#include <check.h>
#include <jansson.h>
#include <sodium.h>

#include "api_fixture.h"
#include "harness.h"
#include "suites.h"

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

#define SCRUD(q, f, d, t, m)                                                   \
    "\"scrud\":{\"quality\":" #q ",\"faces\":" #f ",\"defeat_penalty\":" #d    \
    ",\"fatigue_penalty\":" #t ",\"modifier\":" #m "}"
#define STATE(name, elim, reason, scrud)                                       \
    "{\"name\":\"" name "\",\"eliminated\":" elim                              \
    ",\"eliminated_reason\":" reason "," scrud "}"

#define N64 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"
#define N65 N64 "m"
#define E16 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
#define U64 E16 E16 E16 E16 /* 32 characters, 64 bytes of UTF-8 */
#define U66 U64 "\xc3\xa9"
#define DEFAULTS                                                               \
    "{\"cap\":\"faces\",\"floor\":1,\"extra_dice\":\"beat_lowest\","           \
    "\"attrition\":true,\"max_penalty_per_combat\":1,\"eliminate_below\":-2,"  \
    "\"defeats_per_elimination\":3}"

/* ---- campaigns ---- */

START_TEST(test_campaign_create_and_get)
{
    const char *tok[4];
    http_resp *r;
    json_t *j, *p;
    test_campaign c;
    size_t i;

    r = api_fixture_req(
        "POST", "/v1/campaigns", NULL,
        "{\"name\":\"Tannenberg 1914\",\"sides\":[{\"name\":\"Russia\"},"
        "{\"name\":\"Germany\"},{\"name\":\"" U64 "\"}]}");
    ck_assert_msg(r->status == 201, "got %d: %s", r->status, r->body);
    ck_assert_str_eq(r->content_type, "application/json");
    j = r->json;
    api_fixture_assert_prefix(jstr(j, "id"), "cmp_");
    snprintf(c.id, sizeof c.id, "%s", jstr(j, "id"));
    ck_assert_str_eq(r->location, api_fixture_cp(&c, "%s", ""));
    api_fixture_assert_time(jstr(j, "created_at"));
    api_fixture_assert_has(
        j, "{\"name\":\"Tannenberg 1914\",\"sides\":[{\"name\":"
           "\"Russia\"},{\"name\":\"Germany\"},{\"name\":\"" U64 "\"}],"
           "\"options\":{\"scrud\":" DEFAULTS "}}");
    tok[0] = jstr(j, "umpire_token");
    api_fixture_assert_prefix(tok[0], "ump_");
    for (i = 0; i < 3; i++) {
        json_t *s = json_array_get(json_object_get(j, "sides"), i);
        api_fixture_assert_prefix(jstr(s, "id"), "sd_");
        snprintf(c.side_id[i], sizeof c.side_id[i], "%s", jstr(s, "id"));
        tok[i + 1] = jstr(s, "player_token");
        api_fixture_assert_prefix(tok[i + 1], "ply_");
    }
    ck_assert_str_ne(tok[1], tok[2]);
    ck_assert_int_eq(api_fixture_n_campaigns(), 1);
    /* Read back by the umpire and by a player: only "you" differs. */
    p = api_fixture_get(api_fixture_cp(&c, "%s", ""), tok[3]);
    api_fixture_assert_has(
        p, "{\"you\":{\"role\":\"player\",\"side_id\":\"%s\"}}", c.side_id[2]);
    json_object_del(p, "you");
    j = api_fixture_get(api_fixture_cp(&c, "%s", ""), tok[0]);
    api_fixture_assert_has(
        j,
        "{\"id\":\"%s\",\"name\":\"Tannenberg 1914\",\"created_at\":"
        "\"%s\",\"options\":{\"scrud\":" DEFAULTS "},\"sides\":["
        "{\"id\":\"%s\",\"name\":\"Russia\"},{\"id\":\"%s\"},"
        "{\"id\":\"%s\"}],"
        "\"you\":{\"role\":\"umpire\",\"side_id\":null}}",
        c.id, jstr(r->json, "created_at"), c.side_id[0], c.side_id[1],
        c.side_id[2]);
    json_object_del(j, "you");
    ck_assert(json_equal(j, p));
    ck_assert_ptr_null(json_object_get(j, "umpire_token"));
    ck_assert_ptr_null(json_object_get(
        json_array_get(json_object_get(j, "sides"), 0), "player_token"));
}
END_TEST

/* Sides: listed, added (up to 16, with a working player token), refused. */
START_TEST(test_sides)
{
    test_campaign c;
    http_resp *r;
    json_t *j;
    char tok[128], id[64];
    int n;

    api_fixture_mk(&c);
    j = api_fixture_get(api_fixture_cp(&c, "/sides"), c.player[0]);
    api_fixture_assert_has(j,
                           "{\"items\":[{\"id\":\"%s\",\"name\":\"Red\"},"
                           "{\"id\":\"%s\",\"name\":\"Blue\"}]}",
                           c.side_id[0], c.side_id[1]);
    api_fixture_assert_time(
        jstr(json_array_get(json_object_get(j, "items"), 1), "created_at"));
    ck_assert_ptr_null(json_object_get(
        json_array_get(json_object_get(j, "items"), 0), "player_token"));
    r = api_fixture_req("POST", api_fixture_cp(&c, "/sides"), c.umpire,
                        "{\"name\":\"" N64 "\"}");
    ck_assert_msg(r->status == 201, "got %d: %s", r->status, r->body);
    api_fixture_assert_prefix(r->location, api_fixture_cp(&c, "%s", ""));
    api_fixture_assert_prefix(jstr(r->json, "id"), "sd_");
    api_fixture_assert_time(jstr(r->json, "created_at"));
    api_fixture_assert_has(r->json, "{\"name\":\"" N64 "\"}");
    api_fixture_assert_prefix(jstr(r->json, "player_token"), "ply_");
    snprintf(tok, sizeof tok, "%s", jstr(r->json, "player_token"));
    snprintf(id, sizeof id, "%s", jstr(r->json, "id"));
    /* The new token works, as a player of the new side. */
    api_fixture_assert_has(api_fixture_get(api_fixture_cp(&c, "%s", ""), tok),
                           "{\"you\":{\"role\":\"player\",\"side_id\":\"%s\"},"
                           "\"sides\":[{},{},"
                           "{\"id\":\"%s\",\"name\":\"" N64 "\"}]}",
                           id, id);
    strcat(tok, "0"); /* not the token */
    api_fixture_problem("GET", api_fixture_cp(&c, "/sides"), tok, NULL, 401,
                        "unauthorized", NULL);
    for (n = 3; n < 16; n++)
        API_FIXTURE_OK(201, "POST", api_fixture_cp(&c, "/sides"), c.umpire,
                       "{\"name\":\"S%d\"}", n);
    api_fixture_problem("POST", api_fixture_cp(&c, "/sides"), c.umpire,
                        "{\"name\":\"S99\"}", 422, "limit_exceeded", NULL);
    ck_assert_uint_eq(
        api_fixture_n_items(api_fixture_cp(&c, "/sides"), c.umpire), 16);
}
END_TEST

/* What scan_row looks for: the plain tokens, and the first found. */
typedef struct token_scan {
    const char *table;
    char (*tok)[128];
    char bad[256];
} token_scan;

/* Looks for the plain tokens in every column of a row. */
static void scan_row(void *ctx, int n, const char *const *names,
                     const char *const *values)
{
    token_scan *sc = ctx;
    int k;

    for (k = 0; k < n * 4; k++) {
        const char *v = values[k / 4];
        if (v && strstr(v, sc->tok[k % 4]) && !sc->bad[0])
            snprintf(sc->bad, sizeof sc->bad,
                     "%.60s.%.60s holds the token %.100s", sc->table,
                     names[k / 4], sc->tok[k % 4]);
    }
}

START_TEST(test_tokens_stored_hashed)
{
    test_campaign c;
    char tok[4][128], hex[65], role[16], tables[64][64], sql[128];
    unsigned char h[crypto_hash_sha256_BYTES];
    token_scan sc = {NULL, tok, ""};
    int i, k, n_tables, n_rows = 0;

    api_fixture_mk(&c);
    snprintf(tok[0], 128, "%s", c.umpire);
    snprintf(tok[1], 128, "%s", c.player[0]);
    snprintf(tok[2], 128, "%s", c.player[1]);
    snprintf(tok[3], 128, "%s",
             jstr(API_FIXTURE_CALL(201, "POST", api_fixture_cp(&c, "/sides"),
                                   c.umpire, "{\"name\":\"Green\"}"),
                  "player_token"));
    /* After the requests: no column of the tokens table, nor of any other
     * table, holds a plain token. */
    n_tables = ts_sql_tables(api_fixture_ts, tables, 64);
    for (i = 0; i < n_tables; i++) {
        snprintf(sql, sizeof sql, "SELECT * FROM \"%.60s\"", tables[i]);
        sc.table = tables[i];
        k = ts_sql_each(api_fixture_ts, scan_row, &sc, sql);
        n_rows += strcmp(tables[i], "tokens") == 0 ? k : 0;
    }
    ck_assert_msg(sc.bad[0] == '\0', "%s", sc.bad);
    ck_assert_int_ge(n_tables, 5);
    ck_assert_int_eq(n_rows, 4);
    /* What is stored is each token's SHA-256, with its role. */
    for (i = 0; i < 4; i++) {
        crypto_hash_sha256(h, (const unsigned char *)tok[i], strlen(tok[i]));
        for (k = 0; k < (int)sizeof h; k++)
            snprintf(hex + 2 * k, 3, "%02x", h[k]);
        ts_sql_text(api_fixture_ts, role, sizeof role,
                    "SELECT role FROM tokens WHERE hash = ?1", TS_TEXT(hex));
        ck_assert_str_eq(role, i == 0 ? "umpire" : "player");
    }
}
END_TEST

/* ---- units ---- */

START_TEST(test_unit_create)
{
    test_campaign c;
    http_resp *r;
    int i;

    api_fixture_mk(&c);
    r = api_fixture_req("POST", api_fixture_cp(&c, "/units"), c.umpire,
                        "{\"name\":\"1st Lancers\",\"side\":\"Blue\"}");
    ck_assert_msg(r->status == 201, "got %d: %s", r->status, r->body);
    api_fixture_assert_prefix(jstr(r->json, "id"), "unit_");
    ck_assert_str_eq(r->location,
                     api_fixture_cp(&c, "/units/%s", jstr(r->json, "id")));
    api_fixture_assert_time(jstr(r->json, "created_at"));
    api_fixture_assert_has(
        r->json,
        "{\"name\":\"1st Lancers\",\"side\":{\"id\":\"%s\","
        "\"name\":\"Blue\"},\"eliminated\":false,"
        "\"eliminated_reason\":null,\"eliminated_by\":null," SCRUD(0, 6, 0, 0,
                                                                   0) "}",
        c.side_id[1]);
    api_fixture_assert_same(r->json, r->location, c.umpire); /* as stored */
    /* Given values, the modifier computed; the side by id and by name. */
    for (i = 0; i < 2; i++)
        api_fixture_assert_has(
            API_FIXTURE_CALL(201, "POST", api_fixture_cp(&c, "/units"),
                             c.umpire,
                             "{\"name\":\"Guard%d\",\"side\":\"%s\",\"scrud\":{"
                             "\"quality\":3,\"faces\":10,\"defeat_penalty\":1,"
                             "\"fatigue_penalty\":4}}",
                             i, i ? "Red" : c.side_id[0]),
            "{\"side\":{\"id\":\"%s\",\"name\":\"Red\"}," SCRUD(3, 10, 1, 4,
                                                                -2) "}",
            c.side_id[0]);
    /* Edges are accepted: a 64-byte name, the ends of the ranges. */
    api_fixture_assert_has(
        API_FIXTURE_CALL(
            201, "POST", api_fixture_cp(&c, "/units"), c.umpire,
            "{\"name\":\"%s\",\"side\":\"Blue\",\"scrud\":{"
            "\"quality\":-100,\"faces\":1000,\"defeat_penalty\":100}}",
            U64),
        "{\"name\":\"%s\"," SCRUD(-100, 1000, 100, 0, -200) "}", U64);
    ck_assert_uint_eq(
        api_fixture_n_items(api_fixture_cp(&c, "/units"), c.umpire), 4);
}
END_TEST

START_TEST(test_unit_read)
{
    static const char *const missing[][3] = {
        {"GET", "/units/unit_nosuchunit", NULL},
        {"GET", "/units/Nobody", NULL},
        {"GET", "/units/Theirs", NULL}, /* another campaign's unit */
        {"PATCH", "/units/unit_nope", "{\"scrud\":{\"quality\":1}}"},
        {"POST", "/units/unit_nope/resupply", NULL},
        {"GET", "/units/unit_nope/history", NULL},
    };
    test_campaign c, other;
    char id[64], oid[64];
    json_t *a;
    size_t i;

    api_fixture_mk(&c);
    api_fixture_mk(&other);
    ts_unit(api_fixture_ts, &c, "1st Lancers", "Red", 2, 8, id);
    ts_unit(api_fixture_ts, &other, "Theirs", "Red", 0, 6, oid);
    a = api_fixture_get(api_fixture_cp(&c, "/units/%s", id), c.umpire);
    api_fixture_assert_has(a, "{\"id\":\"%s\"," SCRUD(2, 8, 0, 0, 2) "}", id);
    api_fixture_assert_same(a, api_fixture_cp(&c, "/units/1st%%20Lancers"),
                            c.player[1]);
    for (i = 0; i < sizeof missing / sizeof missing[0]; i++)
        api_fixture_problem(missing[i][0],
                            api_fixture_cp(&c, "%s", missing[i][1]), c.umpire,
                            missing[i][2], 404, "not_found", NULL);
    api_fixture_problem("GET", api_fixture_cp(&c, "/units/%s", oid),
                        c.player[0], NULL, 404, "not_found", NULL);
    ck_assert_uint_eq(
        api_fixture_n_items(api_fixture_cp(&c, "/units"), c.umpire), 1);
}
END_TEST

START_TEST(test_units_list_filters)
{
    static const char *const sides[] = {"Red Army", "Blue", NULL};
    static const char *const cases[][2] = {
        {"", "A,B,C"},
        {"?side=Red%20Army", "A,C"},
        {"?side=Blue", "B"},
        {"?eliminated=true", "C"},
        {"?eliminated=false", "A,B"},
        {"?side=Red%20Army&eliminated=false", "A"},
        {"?side=Blue&eliminated=true", ""},
        {NULL, "B"}, /* ?side=<Blue's id> */
    };
    test_campaign c;
    char got[128], cid[64];
    json_t *j, *u;
    size_t i, k;

    ts_campaign(api_fixture_ts, &c, NULL, sides);
    ts_unit(api_fixture_ts, &c, "A", "Red Army", 0, 6, NULL);
    ts_unit(api_fixture_ts, &c, "B", c.side_id[1], 0, 6, NULL);
    ts_unit(api_fixture_ts, &c, "C", "Red Army", 0, 6, cid);
    API_FIXTURE_OK(200, "PATCH", api_fixture_cp(&c, "/units/%s", cid), c.umpire,
                   "{\"eliminated\":true}");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        j = cases[i][0]
                ? api_fixture_get(api_fixture_cp(&c, "/units%s", cases[i][0]),
                                  c.player[1])
                : api_fixture_get(
                      api_fixture_cp(&c, "/units?side=%s", c.side_id[1]),
                      c.player[0]);
        got[0] = '\0';
        json_array_foreach(json_object_get(j, "items"), k, u)
        {
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s",
                     k ? "," : "", jstr(u, "name"));
        }
        ck_assert_msg(strcmp(got, cases[i][1]) == 0, "%s: got \"%s\"",
                      cases[i][0] ? cases[i][0] : "by id", got);
    }
    api_fixture_problem("GET", api_fixture_cp(&c, "/units?eliminated=yes"),
                        c.umpire, NULL, 422, "invalid_value", "eliminated");
    api_fixture_problem("GET", api_fixture_cp(&c, "/units?eliminated=1"),
                        c.player[0], NULL, 422, "invalid_value", "eliminated");
}
END_TEST

/* ---- corrections and resupply ---- */

/* PATCHes the unit; asserts the answer has want and is what is stored. */
static void patch(const test_campaign *c, const char *id, const char *body,
                  const char *want)
{
    json_t *u =
        API_FIXTURE_CALL(200, "PATCH", api_fixture_cp(c, "/units/%s", id),
                         c->umpire, "%s", body);

    api_fixture_assert_has(u, "%s", want);
    api_fixture_assert_same(u, api_fixture_cp(c, "/units/%s", id), c->umpire);
}

START_TEST(test_patch_and_history)
{
    test_campaign c;
    char id[64], tok_id[64];
    json_t *h, *e0, *e1;

    api_fixture_mk(&c);
    ts_unit(api_fixture_ts, &c, "Alpha", "Red", 1, 8, id);
    patch(&c, id,
          "{\"name\":\"Omega\",\"scrud\":{\"quality\":3,"
          "\"defeat_penalty\":1},\"note\":\"fell in a river\"}",
          "{\"name\":\"Omega\"," SCRUD(3, 8, 1, 0, 2) "}"); /* faces kept */
    api_fixture_assert_same(
        api_fixture_get(api_fixture_cp(&c, "/units/%s", id), c.umpire),
        api_fixture_cp(&c, "/units/Omega"), c.umpire);
    api_fixture_problem("GET", api_fixture_cp(&c, "/units/Alpha"), c.umpire,
                        NULL, 404, "not_found", NULL);
    patch(&c, id, "{\"scrud\":{\"faces\":12,\"fatigue_penalty\":2}}",
          "{" SCRUD(3, 12, 1, 2, 0) "}"); /* earlier changes kept */
    patch(&c, id, "{\"eliminated\":true}",
          "{\"eliminated\":true,\"eliminated_reason\":\"correction\","
          "\"eliminated_by\":null," SCRUD(3, 12, 1, 2, 0) "}");
    patch(&c, id, "{\"eliminated\":false}",
          "{\"eliminated\":false,\"eliminated_reason\":null}");
    /* The history: who changed what, from what to what, and why. */
    ts_sql_text(
        api_fixture_ts, tok_id, sizeof tok_id,
        "SELECT id FROM tokens WHERE campaign_id = ?1 AND role = 'umpire'",
        TS_TEXT(c.id));
    api_fixture_assert_prefix(tok_id, "tok_");
    h = api_fixture_get(api_fixture_cp(&c, "/units/%s/history", id),
                        c.player[0]);
    api_fixture_assert_has(
        h,
        "{\"unit_id\":\"%s\",\"items\":[{\"kind\":\"created\","
        "\"combat_id\":null,\"note\":null,\"before\":null,"
        "\"actor\":{\"role\":\"umpire\",\"token_id\":\"%s\"},"
        "\"after\":" STATE(
            "Alpha", "false", "null",
            SCRUD(1, 8, 0, 0,
                  1)) "},"
                      "{\"kind\":\"correction\",\"combat_id\":null,"
                      "\"note\":\"fell in a river\","
                      "\"actor\":{\"role\":\"umpire\",\"token_id\":\"%s\"},"
                      "\"before\":" STATE(
                          "Alpha", "false", "null",
                          SCRUD(1, 8, 0, 0,
                                1)) ","
                                    "\"after\":" STATE(
                                        "Omega", "false", "null",
                                        SCRUD(3, 8, 1, 0,
                                              2)) "},"
                                                  "{\"kind\":\"correction\","
                                                  "\"note\":null},"
                                                  "{\"after\":" STATE(
                                                      "Omega", "true",
                                                      "\"correction\"",
                                                      SCRUD(3, 12, 1, 2,
                                                            0)) "},"
                                                                "{\"after\":{"
                                                                "\"eliminated\""
                                                                ":false}}]}",
        id, tok_id, tok_id);
    e0 = json_array_get(json_object_get(h, "items"), 0);
    e1 = json_array_get(json_object_get(h, "items"), 1);
    ck_assert(json_is_integer(json_object_get(e0, "seq")));
    ck_assert_int_lt(json_integer_value(json_object_get(e0, "seq")),
                     json_integer_value(json_object_get(e1, "seq")));
    api_fixture_assert_time(jstr(e0, "at"));
    api_fixture_assert_time(jstr(e1, "at"));
    ck_assert_int_le(strcmp(jstr(e0, "at"), jstr(e1, "at")), 0);
}
END_TEST

START_TEST(test_resupply)
{
    test_campaign c;
    char id[64];

    api_fixture_mk(&c);
    ts_unit(api_fixture_ts, &c, "Alpha", "Red", 2, 8, id);
    API_FIXTURE_OK(200, "PATCH", api_fixture_cp(&c, "/units/%s", id), c.umpire,
                   "{\"scrud\":{\"defeat_penalty\":1,\"fatigue_penalty\":3}}");
    api_fixture_assert_has(
        API_FIXTURE_CALL(200, "POST",
                         api_fixture_cp(&c, "/units/%s/resupply", id), c.umpire,
                         NULL),
        "{" SCRUD(2, 8, 1, 0, 1) "}"); /* only fatigue cleared */
    api_fixture_assert_has(
        api_fixture_get(api_fixture_cp(&c, "/units/%s", id), c.umpire),
        "{" SCRUD(2, 8, 1, 0, 1) "}");
    /* Again, with a note, on a rested unit. */
    API_FIXTURE_OK(200, "POST", api_fixture_cp(&c, "/units/%s/resupply", id),
                   c.umpire, "{\"note\":\"depot at Lyck\"}");
    api_fixture_assert_has(
        api_fixture_get(api_fixture_cp(&c, "/units/%s/history", id), c.umpire),
        "{\"items\":[{\"kind\":\"created\"},{\"kind\":\"correction\"},"
        "{\"kind\":\"resupply\",\"note\":null,\"before\":" STATE(
            "Alpha", "false", "null",
            SCRUD(2, 8, 1, 3,
                  -2)) ",\"after\":" STATE("Alpha", "false", "null",
                                           SCRUD(2, 8, 1, 0,
                                                 1)) "},"
                                                     "{\"kind\":\"resupply\","
                                                     "\"note\":\"depot at "
                                                     "Lyck\",\"after\":" STATE(
                                                         "Alpha", "false",
                                                         "null",
                                                         SCRUD(2, 8, 1, 0,
                                                               1)) "}]}");
}
END_TEST

/* ---- refused requests ---- */

#define NOTE520    N65 N65 N65 N65 N65 N65 N65 N65
#define UNIT(rest) "{\"name\":\"X\",\"side\":\"Red\"" rest "}"
#define CMP(rest)  "{\"name\":\"x\",\"sides\":[{\"name\":\"A\"}]" rest "}"
#define S4(p)                                                                  \
    "{\"name\":\"" p "1\"},{\"name\":\"" p "2\"},{\"name\":\"" p "3\"},"       \
    "{\"name\":\"" p "4\"}"
#define SIDES(list) "{\"name\":\"x\",\"sides\":[" list "]}"

/* Route: C create campaign, U create unit, P patch Alpha, S add side,
 * R resupply Charlie (eliminated).  Code NULL: any code.  lo and hi, when
 * set, must appear in the detail. */
static const struct {
    char route;
    const char *body;
    int status;
    const char *code, *field, *lo, *hi;
} refused[] = {
#define BAD(route, body, status, code, field)                                  \
    {                                                                          \
        route, body, status, code, field, NULL, NULL                           \
    }
#define TYPE(route, body, field) BAD(route, body, 422, "invalid_value", field)
#define UNKNOWN(route, body, field)                                            \
    BAD(route, body, 422, "unknown_field", field)
#define MISSING(route, body, field)                                            \
    BAD(route, body, 422, "missing_field", field)
#define RANGE(route, body, field, lo, hi)                                      \
    {                                                                          \
        route, body, 422, "out_of_range", field, lo, hi                        \
    }
    /* malformed JSON, and JSON that is not an object */
    BAD('C', "{\"name\":", 400, "invalid_json", NULL),
    BAD('U', "{name: 1}", 400, "invalid_json", NULL),
    BAD('P', "{\"a\":1}}", 400, "invalid_json", NULL),
    BAD('S', "", 400, "invalid_json", NULL),
    TYPE('C', "[{\"name\":\"x\"}]", NULL),
    TYPE('U', "[]", NULL),
    TYPE('C', "\"x\"", NULL), /* valid JSON, not an object */
    /* wrong types */
    TYPE('U', UNIT(",\"scrud\":{\"quality\":\"3\"}"), "scrud.quality"),
    TYPE('U', UNIT(",\"scrud\":{\"faces\":6.0}"), "scrud.faces"),
    TYPE('U', "{\"name\":42,\"side\":\"Red\"}", "name"),
    TYPE('P', "{\"name\":null}", "name"),
    TYPE('P', "{\"eliminated\":\"true\"}", "eliminated"),
    TYPE('C', "{\"name\":7,\"sides\":[{\"name\":\"A\"}]}", "name"),
    TYPE('C', SIDES("{\"name\":\"A\"},\"B\""), "sides[1]"),
    TYPE('C', CMP(",\"options\":{\"scrud\":{\"attrition\":\"yes\"}}"),
         "options.scrud.attrition"),
    /* unknown fields, top level and nested */
    UNKNOWN('U', UNIT(",\"colour\":\"red\""), "colour"),
    UNKNOWN('U', UNIT(",\"scrud\":{\"qualty\":2}"), "scrud.qualty"),
    UNKNOWN('U', UNIT(",\"scrud\":{\"modifier\":2}"), "scrud.modifier"),
    UNKNOWN('P', "{\"side\":\"Blue\"}", "side"),
    UNKNOWN('C', CMP(",\"owner\":\"me\""), "owner"),
    UNKNOWN('C', SIDES("{\"name\":\"A\"},{\"name\":\"B\",\"colour\":\"b\"}"),
            "sides[1].colour"),
    UNKNOWN('C', CMP(",\"options\":{\"scrud\":{\"capp\":3}}"),
            "options.scrud.capp"),
    UNKNOWN('R', "{\"note\":\"x\",\"fatigue_penalty\":0}", "fatigue_penalty"),
    /* missing required fields */
    MISSING('C', "{\"sides\":[{\"name\":\"A\"}]}", "name"),
    MISSING('C', "{\"name\":\"x\"}", "sides"),
    MISSING('C', SIDES("{\"name\":\"A\"},{}"), "sides[1].name"),
    MISSING('U', "{\"side\":\"Red\"}", "name"),
    MISSING('U', "{\"name\":\"X\"}", "side"),
    MISSING('S', "{}", "name"),
    /* out of range: the detail names the range */
    RANGE('P', "{\"scrud\":{\"quality\":101}}", "scrud.quality", "-100", "100"),
    RANGE('P', "{\"scrud\":{\"faces\":1}}", "scrud.faces", "2", "1000"),
    RANGE('P', "{\"scrud\":{\"defeat_penalty\":101}}", "scrud.defeat_penalty",
          "0", "100"),
    RANGE('P', "{\"scrud\":{\"quality\":2,\"fatigue_penalty\":-1}}",
          "scrud.fatigue_penalty", "0", "100"),
    RANGE('U', UNIT(",\"scrud\":{\"fatigue_penalty\":101}"),
          "scrud.fatigue_penalty", "0", "100"),
    RANGE('C', CMP(",\"options\":{\"scrud\":{\"max_penalty_per_combat\":3}}"),
          "options.scrud.max_penalty_per_combat", "0", "2"),
    RANGE('P', "{\"scrud\":{\"quality\":5},\"note\":\"" NOTE520 "\"}", "note",
          "500", NULL),
    /* names: 1..64 bytes */
    RANGE('P', "{\"name\":\"\"}", "name", "64", NULL),
    RANGE('P', "{\"name\":\"" N65 "\"}", "name", "64", NULL),
    RANGE('U', "{\"name\":\"" U66 "\",\"side\":\"Red\"}", "name", "64", NULL),
    RANGE('S', "{\"name\":\"" N65 "\"}", "name", "64", NULL),
    RANGE('C', SIDES("{\"name\":\"" U66 "\"}"), "sides[0].name", "64", NULL),
    RANGE('C', "{\"name\":\"" N65 "\",\"sides\":[{\"name\":\"A\"}]}", "name",
          "64", NULL),
    /* counts and uniqueness */
    RANGE('C', SIDES(""), "sides", NULL, NULL),
    BAD('C',
        SIDES(S4("a") "," S4("b") "," S4("c") "," S4("d") ",{\"name\":\"e\"}"),
        422, "limit_exceeded", "sides"), /* 17 sides */
    TYPE('C',
         SIDES("{\"name\":\"Red\"},{\"name\":\"Blue\"},"
               "{\"name\":\"Red\"}"),
         "sides[2].name"),
    BAD('U', "{\"name\":\"Alpha\",\"side\":\"Blue\"}", 409, "conflict", NULL),
    TYPE('U', "{\"name\":\"New\",\"side\":\"Purple\"}", "side"),
    BAD('P', "{\"name\":\"Bravo\",\"scrud\":{\"quality\":5}}", 409, "conflict",
        NULL),
    BAD('S', "{\"name\":\"Red\"}", 409, "conflict", NULL),
    /* corrections that change nothing; resupply of an eliminated unit */
    BAD('P', "{\"note\":\"nothing at all\"}", 422, NULL, NULL),
    BAD('P', "{}", 422, NULL, NULL),
    BAD('R', NULL, 422, "rule_violation", NULL),
};
#define N_REFUSED (int)(sizeof refused / sizeof refused[0])

START_TEST(test_refused_changes_nothing)
{
    test_campaign c;
    char alpha[64], charlie[64], ctx[160];
    const char *path = "/v1/campaigns", *method = "POST", *tok = c.umpire;
    const json_t *before = api_fixture_world(&c, alpha, charlie);
    const char *detail;
    http_resp *r;

    switch (refused[_i].route) {
    case 'C': tok = NULL; break;
    case 'U': path = api_fixture_cp(&c, "/units"); break;
    case 'S': path = api_fixture_cp(&c, "/sides"); break;
    case 'P':
        path = api_fixture_cp(&c, "/units/%s", alpha), method = "PATCH";
        break;
    case 'R': path = api_fixture_cp(&c, "/units/%s/resupply", charlie); break;
    default: ck_abort_msg("bad route");
    }
    snprintf(ctx, sizeof ctx, "%s %c %.100s", method, refused[_i].route,
             refused[_i].body ? refused[_i].body : "(no body)");
    r = api_fixture_req(method, path, tok, refused[_i].body);
    api_fixture_check_problem(r, refused[_i].status, refused[_i].code,
                              refused[_i].field, ctx);
    detail = jstr(r->json, "detail");
    ck_assert_msg((!refused[_i].lo || strstr(detail, refused[_i].lo)) &&
                      (!refused[_i].hi || strstr(detail, refused[_i].hi)),
                  "%s: the detail \"%s\" does not name the range", ctx, detail);
    api_fixture_assert_unchanged(before, &c);
}
END_TEST

Suite *suite_api(void)
{
    Suite *s = suite_create("api");
    TCase *camp = tcase_create("campaigns"), *units = tcase_create("units"),
          *corr = tcase_create("corrections"), *errs = tcase_create("errors");
    TCase *all[] = {camp, units, corr, errs};
    size_t i;

    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        tcase_add_checked_fixture(all[i], api_fixture_setup,
                                  api_fixture_teardown);
        tcase_set_timeout(all[i], 60);
        suite_add_tcase(s, all[i]);
    }
    tcase_add_test(camp, test_campaign_create_and_get);
    tcase_add_test(camp, test_sides);
    tcase_add_test(camp, test_tokens_stored_hashed);
    tcase_add_test(units, test_unit_create);
    tcase_add_test(units, test_unit_read);
    tcase_add_test(units, test_units_list_filters);
    tcase_add_test(corr, test_patch_and_history);
    tcase_add_test(corr, test_resupply);
    tcase_add_loop_test(errs, test_refused_changes_nothing, 0, N_REFUSED);
    return s;
}
