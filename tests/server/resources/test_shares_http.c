/*
 * test_shares_http.c: tests share links (server/resources/shares.c,
 * db/shares.c, docs/sharing.md) through real HTTP: a link to a combat, a
 * battle and the campaign read without a token at GET /v1/shared/{secret},
 * the report as its own route serves it (rolls included) and the ledger
 * entries its dice reach, their hash chain recomputed here from their
 * fields as docs/ledger.md defines it (a reference model written apart
 * from core/ledger.c) and compared with GET .../ledger; Markdown and HTML;
 * links listed without their secret, revoked (404 from then on), unknown
 * (404); who may make them; bodies refused naming the field; and the
 * console's share page at GET /share/{secret} with the console's headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>
#include <sodium.h>

#include "api_fixture.h"
#include "console.h"
#include "edges_rig.h"
#include "harness.h"
#include "suites.h"
#include "vf_verify.h"

#define ZEROS "0000000000000000000000000000000000000000000000000000000000000000"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* ---- the campaign ---- */

/* A campaign (Red, Blue) whose units carry the default systems: two
 * SCRUD combats (ids into cb), then a Matrix battle created and rolled
 * once (its id into bat), so the ledger holds rolls, then actions. */
static void world(test_campaign *c, char cb[2][64], char bat[64])
{
    static const char *const units[][2] = {{"R1", "Red"},
                                           {"R2", "Red"},
                                           {"B1", "Blue"},
                                           {"M1", "Red"},
                                           {"M2", "Blue"}};
    static const char *const combats[] = {
        "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":\"R1\"},"
        "{\"unit\":\"R2\"}]},{\"side\":\"Blue\",\"units\":[{\"unit\":\"B1\"}]}]"
        "}",
        "{\"dice\":{\"client_seed\":\"day 2\"},\"sides\":[{\"side\":\"Red\","
        "\"units\":[{\"unit\":\"R1\"}]},{\"side\":\"Blue\",\"units\":["
        "{\"unit\":\"B1\"}]}]}"};
    json_t *j;
    size_t i;

    api_fixture_mk(c);
    for (i = 0; i < sizeof units / sizeof units[0]; i++)
        API_FIXTURE_OK(201, "POST", api_fixture_cp(c, "/units"), c->umpire,
                       "{\"name\":\"%s\",\"side\":\"%s\"}", units[i][0],
                       units[i][1]);
    for (i = 0; i < 2; i++) {
        j = API_FIXTURE_CALL(201, "POST", api_fixture_cp(c, "/combats/scrud"),
                             c->umpire, "%s", combats[i]);
        snprintf(cb[i], 64, "%s", jstr(j, "id"));
    }
    j = API_FIXTURE_CALL(
        201, "POST", api_fixture_cp(c, "/battles"), c->umpire,
        "{\"turn\":1,\"attacker\":{\"side\":\"Red\",\"units\":[\"M1\"]},"
        "\"defender\":{\"side\":\"Blue\",\"units\":[\"M2\"]},"
        "\"line\":[{\"attacker\":[\"M1\"],\"defender\":[\"M2\"]}]}");
    snprintf(bat, 64, "%s", jstr(j, "id"));
    API_FIXTURE_OK(200, "POST", api_fixture_cp(c, "/battles/%s/actions", bat),
                   c->umpire,
                   "{\"action\":\"roll\",\"combat\":0,\"expect_actions\":0}");
}

/* A Matrix battle of two units made for it, M3 (Red) against M4 (Blue),
 * not rolled yet: its id into id (64 bytes), returned. */
static const char *second_battle(test_campaign *c, char *id)
{
    API_FIXTURE_OK(201, "POST", api_fixture_cp(c, "/units"), c->umpire,
                   "{\"name\":\"M3\",\"side\":\"Red\"}");
    API_FIXTURE_OK(201, "POST", api_fixture_cp(c, "/units"), c->umpire,
                   "{\"name\":\"M4\",\"side\":\"Blue\"}");
    snprintf(id, 64, "%s",
             jstr(API_FIXTURE_CALL(
                      201, "POST", api_fixture_cp(c, "/battles"), c->umpire,
                      "{\"turn\":1,\"attacker\":{\"side\":\"Red\",\"units\":"
                      "[\"M3\"]},\"defender\":{\"side\":\"Blue\",\"units\":"
                      "[\"M4\"]},\"line\":[{\"attacker\":[\"M3\"],"
                      "\"defender\":[\"M4\"]}]}"),
                  "id"));
    return id;
}

/* POST .../shares with body (201); the link's secret into secret (64
 * bytes), checked to be 32 bytes of unpadded base64url; the answer
 * (kept). */
static json_t *share(const test_campaign *c, const char *body, char *secret)
{
    http_resp *r =
        api_fixture_req("POST", api_fixture_cp(c, "/shares"), c->umpire, body);
    const char *url;

    ck_assert_msg(r->status == 201, "share %s: %d %s", body, r->status,
                  r->body);
    ck_assert_str_eq(r->location, api_fixture_cp(c, "/shares"));
    api_fixture_assert_prefix(jstr(r->json, "id"), "shr_");
    api_fixture_assert_time(jstr(r->json, "created_at"));
    api_fixture_assert_has(r->json, "{\"revoked_at\":null}");
    url = jstr(r->json, "url");
    api_fixture_assert_prefix(url, "/share/");
    snprintf(secret, 64, "%s", url + 7);
    ck_assert_msg(strlen(secret) == 43 &&
                      strspn(secret, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
                                     "opqrstuvwxyz0123456789-_") == 43,
                  "not 32 bytes of base64url: %s", secret);
    return api_fixture_keep(json_incref(r->json));
}

/* GET /v1/shared/{secret}{query} (query "" or "?..."), with no token:
 * status; its JSON (kept).  A refusal must be not_found, or (422)
 * invalid_value of the field ledger. */
static json_t *shared_q(const char *secret, const char *query, int status)
{
    char path[192];
    http_resp *r;

    snprintf(path, sizeof path, "/v1/shared/%s%s", secret, query);
    r = api_fixture_req("GET", path, NULL, NULL);
    ck_assert_msg(r->status == status, "%s: %d, expected %d: %.600s", path,
                  r->status, status, r->body);
    if (status == 422)
        api_fixture_check_problem(r, status, "invalid_value", "ledger", path);
    else if (status != 200)
        api_fixture_check_problem(r, status, "not_found", NULL, path);
    return api_fixture_keep(json_incref(r->json));
}

static json_t *shared(const char *secret, int status)
{
    return shared_q(secret, "", status);
}

/* ---- the ledger, recomputed (docs/ledger.md) ---- */

typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        ck_assert_ptr_nonnull(t->p);
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

/* A field as a netstring: "<len>:<bytes>,". */
static void field(text *t, const char *s)
{
    char len[24];

    s = s ? s : ""; /* absent values are the empty text */
    snprintf(len, sizeof len, "%zu:", strlen(s));
    put(t, len, strlen(len));
    put(t, s, strlen(s));
    put(t, ",", 1);
}

static void field_int(text *t, const json_t *v)
{
    char n[24];

    ck_assert_msg(json_is_integer(v), "not an integer");
    snprintf(n, sizeof n, "%lld", (long long)json_integer_value(v));
    field(t, n);
}

/* An array of integers as a comma-separated field. */
static void field_list(text *t, const json_t *a)
{
    char buf[1024] = "";
    size_t i;

    for (i = 0; i < json_array_size(a); i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%lld",
                 i ? "," : "",
                 (long long)json_integer_value(json_array_get(a, i)));
    field(t, buf);
}

/* An entry's canonical content ("umpire-ledger-v1"), from its fields. */
static void content(text *t, const json_t *en, const char *campaign_id)
{
    bool is_roll = strcmp(jstr(en, "kind"), "roll") == 0;

    field(t, "umpire-ledger-v1");
    field(t, jstr(en, "kind"));
    field(t, campaign_id);
    field_int(t, json_object_get(en, "pos"));
    field(t, jstr(en, "at"));
    field(t, jstr(en, is_roll ? "combat_id" : "battle_id"));
    field_int(t, json_object_get(en, "seq"));
    if (is_roll) {
        field(t, jstr(en, "side"));
        field(t, jstr(en, "unit_id"));
        field(t, jstr(en, "unit"));
        field(t, jstr(en, "reason"));
        field_int(t, json_object_get(en, "faces"));
        field_int(t, json_object_get(en, "natural"));
        field_int(t, json_object_get(en, "modified"));
    } else {
        field(t, jstr(en, "action"));
        field_list(t, json_object_get(en, "faces"));
        field_list(t, json_object_get(en, "naturals"));
        field(t, jstr(en, "detail"));
    }
    field(t, jstr(en, "source"));
    field(t, jstr(en, "rng"));
    field(t, jstr(en, "commitment"));
    field(t, jstr(en, "client_seed"));
}

static void to_hex(const unsigned char *b, char hex[65])
{
    size_t i;

    for (i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", b[i]);
}

/* entries are positions 1, 2, ... each linked to the one before by
 * SHA-256(previous hash's 32 bytes || content), and the last one's hash
 * is head; n of them. */
static void chain_check(const json_t *ledger, const char *campaign_id, size_t n)
{
    const json_t *entries = json_object_get(ledger, "entries"), *en;
    unsigned char prev[32] = {0}, h[32];
    char hex[65];
    text t = {NULL, 0, 0};
    size_t i;

    ck_assert_int_eq(json_array_size(entries), n);
    ck_assert_int_eq(json_integer_value(json_object_get(ledger, "length")), n);
    json_array_foreach(entries, i, en)
    {
        ck_assert_int_eq(json_integer_value(json_object_get(en, "pos")), i + 1);
        to_hex(prev, hex);
        ck_assert_str_eq(jstr(en, "prev_hash"), hex);
        t.len = 0;
        put(&t, (const char *)prev, sizeof prev);
        content(&t, en, campaign_id);
        crypto_hash_sha256(h, (const unsigned char *)t.p, t.len);
        to_hex(h, hex);
        ck_assert_msg(strcmp(jstr(en, "hash"), hex) == 0,
                      "entry %zu: hash %s, recomputed %s", i + 1,
                      jstr(en, "hash"), hex);
        memcpy(prev, h, sizeof prev);
    }
    to_hex(prev, hex);
    ck_assert_str_eq(jstr(ledger, "head"), n ? hex : ZEROS);
    free(t.p);
}

/* The shared entries are GET .../ledger's first n, as they are. */
static void same_as_export(const test_campaign *c, const json_t *ledger,
                           size_t n)
{
    const json_t *all = json_object_get(
        api_fixture_get(api_fixture_cp(c, "/ledger"), c->player[1]), "entries");
    size_t i;

    ck_assert_int_gt(json_array_size(all), n - 1);
    for (i = 0; i < n; i++)
        ck_assert_msg(
            json_equal(json_array_get(json_object_get(ledger, "entries"), i),
                       json_array_get(all, i)),
            "entry %zu is not the export's", i + 1);
}

/* The records of the ledger part's seeds, in order, as "a,b,..." (out:
 * 256 bytes): those with entries among the part's, no other. */
static const char *seed_records(const json_t *ledger, char *out)
{
    const json_t *sd;
    size_t i, len = 0;

    out[0] = '\0';
    json_array_foreach(json_object_get(ledger, "seeds"), i, sd)
    {
        len += (size_t)snprintf(out + len, 256 - len, "%s%s", i ? "," : "",
                                jstr(sd, "record"));
        ck_assert_uint_lt(len, 256);
    }
    return out;
}

/* Each of the part's seeds is the export's seed of its record, as it is
 * (its commitment, seed, client seed, source and rng). */
static void seeds_as_exported(const test_campaign *c, const json_t *ledger)
{
    const json_t *all = json_object_get(
        api_fixture_get(api_fixture_cp(c, "/ledger"), c->player[1]), "seeds");
    const json_t *sd, *ex;
    size_t i, k;

    json_array_foreach(json_object_get(ledger, "seeds"), i, sd)
    {
        bool is_found = false;
        json_array_foreach(
            all, k, ex) if (strcmp(jstr(ex, "record"), jstr(sd, "record")) == 0)
        {
            ck_assert_msg(json_equal(sd, ex),
                          "the seed of %s is not the export's",
                          jstr(sd, "record"));
            is_found = true;
        }
        ck_assert_msg(is_found, "%s is not in the export's seeds",
                      jstr(sd, "record"));
    }
}

/* "a,b,c" of up to three ids (NULL ends them early), into out (256). */
static const char *ids(char *out, const char *a, const char *b, const char *c)
{
    snprintf(out, 256, "%s%s%s%s%s", a, b ? "," : "", b ? b : "", c ? "," : "",
             c ? c : "");
    return out;
}

/* ---- the links ---- */

/* A combat's link: the report as the combat's own route serves it, rolls
 * included, and the ledger up to its last die, not beyond. */
START_TEST(test_share_combat)
{
    test_campaign c;
    char cb[2][64], bat[64], secret[64], body[160], got[256], want[256];
    json_t *doc, *own, *ledger;
    long long last;

    world(&c, cb, bat);
    snprintf(body, sizeof body,
             "{\"kind\":\"combat\",\"id\":\"%s\",\"note\":\"day 1\"}", cb[0]);
    api_fixture_assert_has(share(&c, body, secret),
                           "{\"kind\":\"combat\",\"target_id\":\"%s\","
                           "\"note\":\"day 1\"}",
                           cb[0]);
    doc = shared(secret, 200);
    own =
        api_fixture_get(api_fixture_cp(&c, "/combats/%s", cb[0]), c.player[0]);
    api_fixture_assert_has(doc,
                           "{\"kind\":\"combat\",\"campaign\":{\"id\":"
                           "\"%s\",\"name\":\"test\"}}",
                           c.id);
    api_fixture_assert_time(jstr(doc, "created_at"));
    ck_assert_msg(json_equal(json_object_get(doc, "report"), own),
                  "the shared report is not the combat's");
    ck_assert_int_eq(json_array_size(json_object_get(own, "rolls")), 3);
    last = json_integer_value(
        json_object_get(json_object_get(own, "ledger"), "last_pos"));
    ck_assert_int_eq(last, 3);
    ledger = json_object_get(doc, "ledger");
    chain_check(ledger, c.id, (size_t)last);
    same_as_export(&c, ledger, (size_t)last);
    ck_assert_str_eq(jstr(ledger, "head"),
                     jstr(json_object_get(own, "ledger"), "hash"));
    /* The seeds of the records among those entries: the first combat's
     * alone, not the second's nor the battle's. */
    ck_assert_str_eq(seed_records(ledger, got), ids(want, cb[0], NULL, NULL));
    seeds_as_exported(&c, ledger);
    /* The second combat's link reaches its own dice, after the first's. */
    snprintf(body, sizeof body, "{\"kind\":\"combat\",\"id\":\"%s\"}", cb[1]);
    share(&c, body, secret);
    doc = shared(secret, 200);
    chain_check(json_object_get(doc, "ledger"), c.id, 5);
    ck_assert_str_eq(seed_records(json_object_get(doc, "ledger"), got),
                     ids(want, cb[0], cb[1], NULL));
    api_fixture_assert_has(doc,
                           "{\"report\":{\"id\":\"%s\",\"dice\":{"
                           "\"client_seed\":\"day 2\"}}}",
                           cb[1]);
}
END_TEST

/* A battle's link: the battle as its route serves it, and the chain up to
 * its last action's entry, with its seed hidden while it is open. */
START_TEST(test_share_battle)
{
    test_campaign c;
    char cb[2][64], bat[64], fresh[64], secret[64], body[160], got[256],
        want[256];
    json_t *doc, *own;

    world(&c, cb, bat);
    /* A combat after the battle's roll: the link's part stops before it. */
    API_FIXTURE_OK(201, "POST", api_fixture_cp(&c, "/combats/scrud"), c.umpire,
                   "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":"
                   "\"R2\"}]},{\"side\":\"Blue\",\"units\":[{\"unit\":"
                   "\"B1\"}]}]}");
    snprintf(body, sizeof body, "{\"kind\":\"battle\",\"id\":\"%s\"}", bat);
    api_fixture_assert_has(share(&c, body, secret),
                           "{\"kind\":\"battle\",\"target_id\":\"%s\","
                           "\"note\":null}",
                           bat);
    doc = shared(secret, 200);
    own = api_fixture_get(api_fixture_cp(&c, "/battles/%s", bat), c.umpire);
    ck_assert_msg(json_equal(json_object_get(doc, "report"), own),
                  "the shared battle is not the battle");
    {
        json_t *ledger = json_object_get(doc, "ledger");
        json_t *entries = json_object_get(ledger, "entries");
        json_t *last = json_array_get(entries, json_array_size(entries) - 1);
        json_t *sd;
        size_t i;
        int n_battle = 0;

        /* 3 + 2 rolls, then the battle's roll; not the combat after it */
        ck_assert_uint_eq(json_array_size(entries), 6);
        ck_assert_str_eq(json_string_value(json_object_get(last, "battle_id")),
                         bat);
        chain_check(ledger, c.id, 6);
        same_as_export(&c, ledger, 6);
        seeds_as_exported(&c, ledger);
        json_array_foreach(json_object_get(ledger, "seeds"), i, sd)
        {
            if (strcmp(json_string_value(json_object_get(sd, "record")), bat) !=
                0)
                continue;
            n_battle++;
            ck_assert(json_is_null(json_object_get(sd, "server_seed")));
        }
        ck_assert_int_eq(n_battle, 1);
        ck_assert_str_eq(seed_records(ledger, got),
                         ids(want, cb[0], cb[1], bat));
    }
    /* A battle not rolled yet: no entries, no seeds, the head 64 zeros. */
    snprintf(body, sizeof body, "{\"kind\":\"battle\",\"id\":\"%s\"}",
             second_battle(&c, fresh));
    share(&c, body, secret);
    doc = shared(secret, 200);
    api_fixture_assert_has(doc,
                           "{\"ledger\":{\"length\":0,\"head\":\"%s\","
                           "\"entries\":[],\"seeds\":[]}}",
                           ZEROS);
}
END_TEST

/* The campaign's link: its report, and the whole chain, battle actions
 * included. */
START_TEST(test_share_campaign)
{
    test_campaign c;
    char cb[2][64], bat[64], secret[64], got[256], want[256];
    json_t *doc, *own, *ledger;
    size_t n;

    world(&c, cb, bat);
    api_fixture_assert_has(share(&c, "{\"kind\":\"campaign\"}", secret),
                           "{\"kind\":\"campaign\",\"target_id\":null}");
    doc = shared(secret, 200);
    own = api_fixture_get(api_fixture_cp(&c, "/report"), c.player[1]);
    ck_assert_msg(json_equal(json_object_get(doc, "report"), own),
                  "the shared report is not the campaign's");
    ledger = json_object_get(doc, "ledger");
    n = (size_t)json_integer_value(json_object_get(
        json_object_get(json_object_get(own, "campaign"), "ledger"), "length"));
    ck_assert_int_eq(n, 6); /* 3 + 2 rolls, then the battle's roll */
    chain_check(ledger, c.id, n);
    same_as_export(&c, ledger, n);
    ck_assert_str_eq(
        jstr(json_array_get(json_object_get(ledger, "entries"), 5), "kind"),
        "action");
    ck_assert_str_eq(
        jstr(ledger, "head"),
        jstr(json_object_get(json_object_get(own, "campaign"), "ledger"),
             "head"));
    ck_assert_str_eq(seed_records(ledger, got), ids(want, cb[0], cb[1], bat));
}
END_TEST

/* A new link to the campaign's record of kind and id (NULL: the
 * campaign), its secret into secret; its whole answer into *whole and its
 * ?ledger=own one into *own (kept). */
static void share_read(const test_campaign *c, const char *kind, const char *id,
                       char *secret, json_t **whole, json_t **own)
{
    char body[160];

    if (id != NULL)
        snprintf(body, sizeof body, "{\"kind\":\"%s\",\"id\":\"%s\"}", kind,
                 id);
    else
        snprintf(body, sizeof body, "{\"kind\":\"%s\"}", kind);
    share(c, body, secret);
    *whole = shared(secret, 200);
    *own = shared_q(secret, "?ledger=own", 200);
}

/* The link's ?ledger=own answer against its whole one: the same report,
 * length and head, "after" after, and exactly the whole one's entries
 * after it (so the first's prev_hash is the hash of entry after, 64
 * zeros for 0), with the seeds of their own records, each the export's;
 * their records into got (seed_records). */
static const char *own_part_check(const test_campaign *c, const json_t *whole,
                                  const json_t *own, long long after, char *got)
{
    const json_t *wl = json_object_get(whole, "ledger");
    const json_t *ol = json_object_get(own, "ledger");
    const json_t *we = json_object_get(wl, "entries");
    const json_t *oe = json_object_get(ol, "entries");
    size_t i;

    ck_assert_msg(json_equal(json_object_get(whole, "report"),
                             json_object_get(own, "report")),
                  "the part's report is not the whole answer's");
    ck_assert_msg(json_equal(json_object_get(wl, "length"),
                             json_object_get(ol, "length")),
                  "the part's length is not the whole answer's");
    ck_assert_str_eq(jstr(ol, "head"), jstr(wl, "head"));
    ck_assert(json_is_integer(json_object_get(ol, "after")));
    ck_assert_int_eq(json_integer_value(json_object_get(ol, "after")), after);
    ck_assert_ptr_null(json_object_get(wl, "after"));
    ck_assert_uint_eq(json_array_size(oe), json_array_size(we) - (size_t)after);
    for (i = 0; i < json_array_size(oe); i++)
        ck_assert_msg(json_equal(json_array_get(oe, i),
                                 json_array_get(we, (size_t)after + i)),
                      "the part's entry %zu is not entry %lld", i + 1,
                      after + (long long)i + 1);
    ck_assert_str_eq(jstr(json_array_get(oe, 0), "prev_hash"),
                     after > 0
                         ? jstr(json_array_get(we, (size_t)after - 1), "hash")
                         : ZEROS);
    seeds_as_exported(c, ol);
    return seed_records(ol, got);
}

/* umpire-verify's check of a link's answer (vf_verify_shared) on doc:
 * verified, and its report holds says (when not NULL). */
static void verifies(const json_t *doc, const char *says)
{
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    vf_result got;

    ck_assert_ptr_nonnull(f);
    got = vf_verify_shared(doc, f);
    fclose(f);
    ck_assert_msg(got == VF_OK, "umpire-verify: %d:\n%s", (int)got, out);
    ck_assert_msg(says == NULL || strstr(out, says) != NULL,
                  "umpire-verify lacks \"%s\":\n%s", says, out);
    free(out);
}

/* ?ledger=own: the entries from the shared record's own first entry (a
 * combat's first die, a battle's first action, the campaign's from 1) to
 * the same last one, however many other records' entries lie before;
 * ledger=all is the default; any other value is 422. */
START_TEST(test_share_own)
{
    test_campaign c;
    char cb[2][64], bat[64], bat2[64], cb3[64], secret[64], got[256], want[256];
    json_t *whole, *own;
    const json_t *oe;

    world(&c, cb, bat);
    /* The second combat: its 2 dice after the first combat's 3. */
    share_read(&c, "combat", cb[1], secret, &whole, &own);
    ck_assert_str_eq(own_part_check(&c, whole, own, 3, got),
                     ids(want, cb[1], NULL, NULL));
    verifies(whole, "5 entries chained (1 to 5)");
    verifies(own, "2 entries chained (4 to 5)");
    ck_assert_uint_eq(json_array_size(json_object_get(
                          json_object_get(own, "ledger"), "entries")),
                      2);
    ck_assert_msg(json_equal(shared_q(secret, "?ledger=all", 200), whole),
                  "ledger=all is not the default");
    /* The first combat's: from entry 1, as the whole answer, after 0. */
    share_read(&c, "combat", cb[0], secret, &whole, &own);
    ck_assert_str_eq(own_part_check(&c, whole, own, 0, got),
                     ids(want, cb[0], NULL, NULL));

    /* After the battle's roll (entry 6): a second battle rolled (7), a
     * combat's 2 dice (8, 9), the first battle abandoned (10), then the
     * second (11).  Each battle's part runs from its own first action to
     * its last, the other records' entries between among them, with
     * their seeds (the battles' revealed). */
    second_battle(&c, bat2);
    API_FIXTURE_OK(200, "POST", api_fixture_cp(&c, "/battles/%s/actions", bat2),
                   c.umpire,
                   "{\"action\":\"roll\",\"combat\":0,\"expect_actions\":0}");
    own = API_FIXTURE_CALL(201, "POST", api_fixture_cp(&c, "/combats/scrud"),
                           c.umpire,
                           "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":"
                           "\"R2\"}]},{\"side\":\"Blue\",\"units\":[{\"unit\":"
                           "\"B1\"}]}]}");
    snprintf(cb3, sizeof cb3, "%s", jstr(own, "id"));
    API_FIXTURE_OK(200, "POST", api_fixture_cp(&c, "/battles/%s/actions", bat),
                   c.umpire, "{\"action\":\"abandon\"}");
    API_FIXTURE_OK(200, "POST", api_fixture_cp(&c, "/battles/%s/actions", bat2),
                   c.umpire, "{\"action\":\"abandon\"}");
    /* The combat after the battle's roll (entries 8 and 9, read by its
     * id): its first die's previous entry is an action. */
    share_read(&c, "combat", cb3, secret, &whole, &own);
    ck_assert_str_eq(own_part_check(&c, whole, own, 7, got),
                     ids(want, cb3, NULL, NULL));
    verifies(own, "2 entries chained (8 to 9)");
    /* The first battle: entries 6 to 10. */
    share_read(&c, "battle", bat, secret, &whole, &own);
    own_part_check(&c, whole, own, 5, got);
    verifies(whole, "the ledger holds the battle's 2 actions");
    verifies(own, "5 entries chained (6 to 10)");
    ck_assert_msg(strstr(got, cb3) && strstr(got, bat) && strstr(got, bat2) &&
                      !strstr(got, cb[1]),
                  "the first battle's part has the seeds of %s", got);
    oe = json_object_get(json_object_get(own, "ledger"), "entries");
    ck_assert_uint_eq(json_array_size(oe), 5);
    ck_assert_str_eq(jstr(json_array_get(oe, 0), "battle_id"), bat);
    ck_assert_str_eq(jstr(json_array_get(oe, 1), "battle_id"), bat2);
    ck_assert_str_eq(jstr(json_array_get(oe, 2), "combat_id"), cb3);
    ck_assert_str_eq(jstr(json_array_get(oe, 4), "battle_id"), bat);
    ck_assert_str_eq(jstr(json_array_get(oe, 4), "action"), "abandon");
    /* The second battle: entries 7 to 11, from its own first action (not
     * the campaign's first battle action, nor the first battle's). */
    share_read(&c, "battle", bat2, secret, &whole, &own);
    own_part_check(&c, whole, own, 6, got);
    /* The first battle's abandon (its action 2) is in this part; its
     * roll is not: chained, not re-derived. */
    verifies(own, "began before this part");
    verifies(whole, "11 entries chained (1 to 11)");
    ck_assert_msg(strstr(got, cb3) && strstr(got, bat) && strstr(got, bat2),
                  "the second battle's part has the seeds of %s", got);
    oe = json_object_get(json_object_get(own, "ledger"), "entries");
    ck_assert_uint_eq(json_array_size(oe), 5);
    ck_assert_str_eq(jstr(json_array_get(oe, 0), "battle_id"), bat2);
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_array_get(oe, 0), "seq")), 1);
    ck_assert_str_eq(jstr(json_array_get(oe, 4), "battle_id"), bat2);

    /* The campaign's: its whole chain (11 entries), after 0. */
    share_read(&c, "campaign", NULL, secret, &whole, &own);
    own_part_check(&c, whole, own, 0, got);
    verifies(own, "11 entries chained (1 to 11)");
    ck_assert_uint_eq(json_array_size(json_object_get(
                          json_object_get(own, "ledger"), "entries")),
                      11);

    /* Any other value, an empty one included, is 422 and names ledger. */
    shared_q(secret, "?ledger=mine", 422);
    shared_q(secret, "?ledger=", 422);
    shared_q(secret, "?ledger=OWN", 422);
}
END_TEST

/* ?format=md and html, and Accept: the report rendered as its own route
 * renders it. */
START_TEST(test_share_formats)
{
    static const char *const formats[] = {"md", "markdown", "html"};
    test_campaign c;
    char cb[2][64], bat[64], secret[64], body[160], path[128], own[256];
    char raw[256];
    http_resp *mine, *theirs, r;
    size_t i;

    world(&c, cb, bat);
    snprintf(body, sizeof body, "{\"kind\":\"combat\",\"id\":\"%s\"}", cb[0]);
    share(&c, body, secret);
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "/v1/shared/%s?format=%s", secret,
                 formats[i]);
        snprintf(own, sizeof own, "%s?format=%s",
                 api_fixture_cp(&c, "/combats/%s", cb[0]), formats[i]);
        mine = api_fixture_req("GET", path, NULL, NULL);
        theirs = api_fixture_req("GET", own, c.player[0], NULL);
        ck_assert_int_eq(mine->status, 200);
        ck_assert_str_eq(mine->content_type, theirs->content_type);
        ck_assert_str_eq(mine->body, theirs->body);
        ck_assert_ptr_nonnull(strstr(mine->body, cb[0]));
    }
    ck_assert_str_eq(mine->content_type, "text/html; charset=utf-8");
    ck_assert_ptr_nonnull(strstr(mine->body, "<html"));
    /* Accept chooses too, and the answer says it varies with it. */
    snprintf(raw, sizeof raw,
             "GET /v1/shared/%s HTTP/1.1\r\nHost: x\r\n"
             "Accept: text/markdown\r\nConnection: close\r\n\r\n",
             secret);
    ck_assert_int_eq(ts_raw(api_fixture_ts, raw, strlen(raw), &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "text/markdown; charset=utf-8");
    ck_assert_int_eq(ts_header(&r, "Vary", own, sizeof own), 1);
    ck_assert_str_eq(own, "Accept");
    http_resp_cleanup(&r);
    snprintf(path, sizeof path, "/v1/shared/%s?format=pdf", secret);
    api_fixture_problem("GET", path, NULL, NULL, 422, "invalid_value",
                        "format");
}
END_TEST

/* Fog of war: a link holds no side, so with fog on every side's units
 * are "others" (here hidden); the ledger stays whole and checkable. */
START_TEST(test_share_fog)
{
    test_campaign c;
    char cb[2][64], bat[64], s1[64], s2[64], body[160];
    json_t *doc, *side;
    char *dump;
    bool is_named;
    size_t i;

    world(&c, cb, bat);
    API_FIXTURE_OK(200, "PATCH", api_fixture_cp(&c, "%s", ""), c.umpire,
                   "{\"options\":{\"fog\":{\"enabled\":true,"
                   "\"others\":\"hidden\"}}}");
    snprintf(body, sizeof body, "{\"kind\":\"combat\",\"id\":\"%s\"}", cb[0]);
    share(&c, body, s1);
    share(&c, "{\"kind\":\"campaign\"}", s2);
    doc = shared(s1, 200);
    api_fixture_assert_has(doc,
                           "{\"report\":{\"id\":\"%s\",\"fog\":{"
                           "\"side_id\":null,\"others\":\"hidden\"}}}",
                           cb[0]);
    json_array_foreach(json_object_get(json_object_get(doc, "report"), "sides"),
                       i, side)
        ck_assert_int_eq(json_array_size(json_object_get(side, "units")), 0);
    dump = json_dumps(json_object_get(doc, "report"), 0);
    is_named = strstr(dump, "\"R1\"") != NULL;
    free(dump);
    ck_assert_msg(!is_named, "a hidden unit is named in the shared report");
    chain_check(json_object_get(doc, "ledger"), c.id, 3);
    same_as_export(&c, json_object_get(doc, "ledger"), 3);
    /* The umpire still sees everything. */
    ck_assert_ptr_null(json_object_get(
        api_fixture_get(api_fixture_cp(&c, "/combats/%s", cb[0]), c.umpire),
        "fog"));
    doc = shared(s2, 200);
    ck_assert_int_eq(json_array_size(json_object_get(
                         json_object_get(doc, "report"), "units")),
                     0);
    chain_check(json_object_get(doc, "ledger"), c.id, 6);
}
END_TEST

/* Listed without the secret; revoked: 404 at once, and again 204 with
 * the first time kept; an unknown secret or link: 404. */
START_TEST(test_list_revoke_unknown)
{
    test_campaign c;
    char cb[2][64], bat[64], s1[64], s2[64], body[160], path[128];
    json_t *a, *b, *list, *page;
    http_resp *r;
    const char *revoked_at;

    world(&c, cb, bat);
    snprintf(body, sizeof body,
             "{\"kind\":\"combat\",\"id\":\"%s\",\"note\":\"for Blue\"}",
             cb[0]);
    a = share(&c, body, s1);
    b = share(&c, "{\"kind\":\"campaign\"}", s2);
    r = api_fixture_req("GET", api_fixture_cp(&c, "/shares"), c.umpire, NULL);
    ck_assert_int_eq(r->status, 200);
    ck_assert(strstr(r->body, s1) == NULL && strstr(r->body, s2) == NULL);
    ck_assert(strstr(r->body, "url") == NULL &&
              strstr(r->body, "hash") == NULL);
    api_fixture_assert_has(
        r->json,
        "{\"order\":\"oldest\",\"next_cursor\":null,\"items\":["
        "{\"id\":\"%s\",\"kind\":\"combat\",\"target_id\":\"%s\","
        "\"note\":\"for Blue\",\"created_at\":\"%s\",\"revoked_at\":null},"
        "{\"id\":\"%s\",\"kind\":\"campaign\",\"target_id\":null,"
        "\"note\":null,\"revoked_at\":null}]}",
        jstr(a, "id"), cb[0], jstr(a, "created_at"), jstr(b, "id"));
    page = api_fixture_get(api_fixture_cp(&c, "/shares?order=newest&limit=1"),
                           c.umpire);
    api_fixture_assert_has(page,
                           "{\"items\":[{\"id\":\"%s\"}],"
                           "\"next_cursor\":\"%s\"}",
                           jstr(b, "id"), jstr(b, "id"));
    page = api_fixture_get(
        api_fixture_cp(&c, "/shares?order=newest&limit=1&cursor=%s",
                       jstr(b, "id")),
        c.umpire);
    api_fixture_assert_has(page,
                           "{\"items\":[{\"id\":\"%s\"}],"
                           "\"next_cursor\":null}",
                           jstr(a, "id"));
    /* Revoked: 404 from the answer on; the other link still opens. */
    snprintf(path, sizeof path, "/shares/%s", jstr(a, "id"));
    ck_assert_ptr_null(API_FIXTURE_CALL(
        204, "DELETE", api_fixture_cp(&c, "%s", path), c.umpire, NULL));
    shared(s1, 404);
    shared(s2, 200);
    list = api_fixture_get(api_fixture_cp(&c, "/shares"), c.umpire);
    revoked_at =
        jstr(json_array_get(json_object_get(list, "items"), 0), "revoked_at");
    api_fixture_assert_time(revoked_at);
    /* Again: 204, the first time kept. */
    ck_assert_ptr_null(API_FIXTURE_CALL(
        204, "DELETE", api_fixture_cp(&c, "%s", path), c.umpire, NULL));
    list = api_fixture_get(api_fixture_cp(&c, "/shares"), c.umpire);
    api_fixture_assert_has(list,
                           "{\"items\":[{\"revoked_at\":\"%s\"},"
                           "{\"revoked_at\":null}]}",
                           revoked_at);
    shared(s1, 404);
    /* Unknown: a secret never given, one a letter off, a link id. */
    shared("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 404);
    s2[0] = s2[0] == 'A' ? 'B' : 'A';
    shared(s2, 404);
    api_fixture_problem("DELETE", api_fixture_cp(&c, "/shares/shr_nope"),
                        c.umpire, NULL, 404, "not_found", NULL);
    api_fixture_problem("GET", api_fixture_cp(&c, "/shares?cursor=shr_nope"),
                        c.umpire, NULL, 422, "invalid_value", "cursor");
}
END_TEST

START_TEST(test_who_may)
{
    test_campaign c, other;
    char cb[2][64], bat[64], s1[64], body[160], path[160];
    json_t *a;

    world(&c, cb, bat);
    api_fixture_mk(&other);
    snprintf(body, sizeof body, "{\"kind\":\"combat\",\"id\":\"%s\"}", cb[0]);
    api_fixture_problem("POST", api_fixture_cp(&c, "/shares"), c.player[0],
                        body, 403, "forbidden", NULL);
    api_fixture_problem("POST", api_fixture_cp(&c, "/shares"), other.umpire,
                        body, 403, "forbidden", NULL);
    api_fixture_problem("POST", api_fixture_cp(&c, "/shares"), NULL, body, 401,
                        "unauthorized", NULL);
    api_fixture_problem("GET", api_fixture_cp(&c, "/shares"), c.player[0], NULL,
                        403, "forbidden", NULL);
    a = share(&c, body, s1);
    snprintf(path, sizeof path, "/shares/%s", jstr(a, "id"));
    api_fixture_problem("DELETE", api_fixture_cp(&c, "%s", path), c.player[1],
                        NULL, 403, "forbidden", NULL);
    api_fixture_problem("DELETE", api_fixture_cp(&c, "%s", path), NULL, NULL,
                        401, "unauthorized", NULL);
    /* Another campaign's umpire cannot reach it, even through its own. */
    api_fixture_problem("DELETE", api_fixture_cp(&other, "%s", path),
                        other.umpire, NULL, 404, "not_found", NULL);
    shared(s1, 200);
    ck_assert_int_eq(
        api_fixture_n_items(api_fixture_cp(&c, "/shares"), c.umpire), 1);
}
END_TEST

START_TEST(test_refused_bodies)
{
    test_campaign c, other;
    char cb[2][64], bat[64], ocb[64], body[256];
    char note[520];
    json_t *j;
    struct {
        char body[640];
        const char *code, *field;
    } cases[12];
    size_t n = 0, i;

    world(&c, cb, bat);
    api_fixture_mk(&other);
    API_FIXTURE_OK(201, "POST", api_fixture_cp(&other, "/units"), other.umpire,
                   "{\"name\":\"X\",\"side\":\"Red\"}");
    API_FIXTURE_OK(201, "POST", api_fixture_cp(&other, "/units"), other.umpire,
                   "{\"name\":\"Y\",\"side\":\"Blue\"}");
    j = API_FIXTURE_CALL(201, "POST", api_fixture_cp(&other, "/combats/scrud"),
                         other.umpire,
                         "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":"
                         "\"X\"}]},{\"side\":\"Blue\",\"units\":[{\"unit\":"
                         "\"Y\"}]}]}");
    snprintf(ocb, sizeof ocb, "%s", jstr(j, "id"));
    memset(note, 'n', 501);
    note[501] = '\0';
#define CASE(code_, field_, ...)                                               \
    do {                                                                       \
        snprintf(cases[n].body, sizeof cases[n].body, __VA_ARGS__);            \
        cases[n].code = code_;                                                 \
        cases[n++].field = field_;                                             \
    } while (0)
    CASE("missing_field", "kind", "{\"id\":\"%s\"}", cb[0]);
    CASE("invalid_value", "kind", "{\"kind\":\"unit\",\"id\":\"%s\"}", cb[0]);
    CASE("missing_field", "id", "{\"kind\":\"combat\"}");
    CASE("missing_field", "id", "{\"kind\":\"battle\"}");
    CASE("invalid_value", "id", "{\"kind\":\"campaign\",\"id\":\"%s\"}", cb[0]);
    CASE("invalid_value", "id", "{\"kind\":\"combat\",\"id\":\"cbt_nope\"}");
    CASE("invalid_value", "id", "{\"kind\":\"combat\",\"id\":\"%s\"}", bat);
    CASE("invalid_value", "id", "{\"kind\":\"battle\",\"id\":\"%s\"}", cb[0]);
    CASE("invalid_value", "id", "{\"kind\":\"combat\",\"id\":\"%s\"}", ocb);
    CASE("out_of_range", "note", "{\"kind\":\"campaign\",\"note\":\"%s\"}",
         note);
    CASE("unknown_field", "secret",
         "{\"kind\":\"campaign\",\"secret\":\"abc\"}");
#undef CASE
    for (i = 0; i < n; i++)
        api_fixture_problem("POST", api_fixture_cp(&c, "/shares"), c.umpire,
                            cases[i].body, 422, cases[i].code, cases[i].field);
    snprintf(body, sizeof body, "{\"kind\":\"combat\",\"id\":");
    api_fixture_problem("POST", api_fixture_cp(&c, "/shares"), c.umpire, body,
                        400, "invalid_json", NULL);
    ck_assert_int_eq(
        api_fixture_n_items(api_fixture_cp(&c, "/shares"), c.umpire), 0);
}
END_TEST

/* HEAD of a link: GET's status and headers (its answer streamed: chunked,
 * no Content-Length), no body; each HEAD's stream ends with it, so that
 * ten in a row (more than the links' 8 at once) are all answered, and a
 * GET after them too. */
START_TEST(test_share_head)
{
    test_campaign c;
    char cb[2][64], bat[64], secret[64], body[160], path[128], te[32];
    http_resp *r;
    int i;

    world(&c, cb, bat);
    snprintf(body, sizeof body, "{\"kind\":\"combat\",\"id\":\"%s\"}", cb[1]);
    share(&c, body, secret);
    snprintf(path, sizeof path, "/v1/shared/%s", secret);
    for (i = 0; i < 10; i++) {
        r = api_fixture_req("HEAD", path, NULL, NULL);
        ck_assert_int_eq(r->status, 200);
        ck_assert_msg(r->body == NULL || r->body[0] == '\0', "HEAD has a body");
        ck_assert_int_eq(ts_header(r, "Transfer-Encoding", te, sizeof te), 1);
        ck_assert_str_eq(te, "chunked");
        ck_assert_int_eq(ts_header(r, "Content-Length", te, sizeof te), 0);
        ck_assert_str_eq(r->content_type, "application/json");
    }
    chain_check(json_object_get(shared(secret, 200), "ledger"), c.id, 5);
}
END_TEST

/* GET /share/{secret}: the console's share page, whatever the secret,
 * with the console's security headers, its ETag, and no query. */
START_TEST(test_share_page)
{
    test_campaign c;
    char cb[2][64], bat[64], secret[64], path[128], got[512];
    const console_asset *a = console_find("share.html");
    http_resp *r;
    size_t i;

    ck_assert_ptr_nonnull(a);
    world(&c, cb, bat);
    share(&c, "{\"kind\":\"campaign\"}", secret);
    snprintf(path, sizeof path, "/share/%s", secret);
    r = api_fixture_req("GET", path, NULL, NULL);
    ck_assert_int_eq(r->status, 200);
    ck_assert_str_eq(r->content_type, "text/html; charset=utf-8");
    ck_assert_int_eq(strlen(r->body), a->len);
    ck_assert(memcmp(r->body, a->data, a->len) == 0);
    for (i = 0; i < console_n_headers; i++) {
        ck_assert_int_eq(ts_header(r, console_headers[i][0], got, sizeof got),
                         1);
        ck_assert_str_eq(got, console_headers[i][1]);
    }
    ck_assert_int_eq(ts_header(r, "Content-Security-Policy", got, sizeof got),
                     1);
    ck_assert_ptr_nonnull(strstr(got, "script-src 'self'"));
    ck_assert_ptr_nonnull(strstr(got, "connect-src 'self'"));
    ck_assert_int_eq(ts_header(r, "ETag", got, sizeof got), 1);
    ck_assert_str_eq(got, a->etag);
    ck_assert_int_eq(
        ts_header(r, "Access-Control-Allow-Origin", got, sizeof got), 0);
    /* The same page for any secret of the right shape (the page's script
     * asks the API); a path that cannot be one is 404. */
    r = api_fixture_req("GET",
                        "/share/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                        NULL, NULL);
    ck_assert_int_eq(r->status, 200);
    api_fixture_problem("GET", "/share/unknown", NULL, NULL, 404, "not_found",
                        NULL);
    api_fixture_problem("GET", "/v1/shared/unknown", NULL, NULL, 404,
                        "not_found", NULL);
    r = api_fixture_req("HEAD", path, NULL, NULL);
    ck_assert_int_eq(r->status, 200);
    snprintf(path, sizeof path, "/share/%s?format=json", secret);
    api_fixture_problem("GET", path, NULL, NULL, 400, "unknown_parameter",
                        "format");
}
END_TEST

/* The access log keeps a link's secret out: its paths are logged with
 * the secret cut to 4 characters. */
START_TEST(test_secret_not_in_access_log)
{
    static const char *const sides[] = {"Red", "Blue", NULL};
    char dir[64] = "/tmp/umpire-log-XXXXXX", log[128], path[160], url[128];
    char cut[16], line[512];
    http_config cfg;
    test_campaign c;
    test_server *ts;
    json_t *j;
    FILE *f;
    int n_lines = 0, n_cut = 0;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(log, sizeof log, "%s/access.log", dir);
    edges_config(&cfg);
    cfg.access_log = log;
    ts = edges_start(&cfg);
    ts_campaign(ts, &c, NULL, sides);
    snprintf(path, sizeof path, "/v1/campaigns/%s/shares", c.id);
    j = ts_call(ts, 201, "POST", path, c.umpire, "{\"kind\":\"campaign\"}");
    snprintf(url, sizeof url, "%s",
             json_string_value(json_object_get(j, "url")));
    json_decref(j);
    json_decref(ts_call(ts, 200, "GET", url, NULL, NULL));
    snprintf(path, sizeof path, "/v1/shared/%s", url + 7);
    json_decref(ts_call(ts, 200, "GET", path, NULL, NULL));
    ts_stop(ts);
    snprintf(cut, sizeof cut, "%.4s...\"", url + 7);
    f = fopen(log, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f) != NULL) {
        n_lines++;
        ck_assert_msg(strstr(line, url + 7) == NULL,
                      "the secret is in the log: %s", line);
        n_cut += strstr(line, cut) != NULL;
    }
    fclose(f);
    unlink(log);
    rmdir(dir);
    ck_assert_int_ge(n_lines, 4);
    ck_assert_int_eq(n_cut, 2);
}
END_TEST

Suite *suite_shares_http(void)
{
    Suite *s = suite_create("shares_http");
    TCase *tc = tcase_create("shares"), *log;

    tcase_add_checked_fixture(tc, api_fixture_setup, api_fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_share_combat);
    tcase_add_test(tc, test_share_battle);
    tcase_add_test(tc, test_share_campaign);
    tcase_add_test(tc, test_share_own);
    tcase_add_test(tc, test_share_formats);
    tcase_add_test(tc, test_share_fog);
    tcase_add_test(tc, test_list_revoke_unknown);
    tcase_add_test(tc, test_who_may);
    tcase_add_test(tc, test_refused_bodies);
    tcase_add_test(tc, test_share_page);
    tcase_add_test(tc, test_share_head);
    suite_add_tcase(s, tc);
    log = tcase_create("log");
    tcase_set_timeout(log, 30);
    tcase_add_test(log, test_secret_not_in_access_log);
    suite_add_tcase(s, log);
    return s;
}
