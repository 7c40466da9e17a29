/*
 * test_idempotency_http.c: Idempotency-Key on the requests that roll dice
 * (server/http/idem.h), over HTTP.  A retry with the key gets the first
 * response again (status, body, Location) with Idempotent-Replayed: true,
 * and rolls nothing: no combat, roll, battle action, commitment or ledger
 * entry is added; the key with another request is refused, as are
 * malformed keys; a refused request stores nothing; identical requests
 * racing land once; keys belong to the token that sent them; a replay is
 * rendered in the format the retry asks for; a key is kept for 24 hours.
 * Uses ledger_rig.h.
 */
#include "db.h"
#include "harness.h"
#include "ledger_rig.h"
#include "matrix_rig.h"
#include "rig.h"
#include "scs_rig.h"
#include "suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ONEOFF                                                                 \
    "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\"},{\"name\":"      \
    "\"a2\"}]},{\"name\":\"b\",\"units\":[{\"name\":\"b1\"},{\"name\":"        \
    "\"b2\",\"faces\":10}]}],\"dice\":{\"client_seed\":\"retry\"}}"
#define ONEOFF_B                                                               \
    "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\"}]},{\"name\":"    \
    "\"b\",\"units\":[{\"name\":\"b1\"}]}]}"
#define CAMPAIGN_SCRUD                                                         \
    "{\"sides\":[{\"side\":\"blue\",\"units\":[{\"unit\":\"B1\"}]},{\"side\":" \
    "\"red\",\"units\":[{\"unit\":\"R1\"}]}]}"
#define M1                                                                     \
    BATTLE("", ARMY("blue", Q(B1), ""), ARMY("red", Q(R1), ""),                \
           PAIR(Q(B1), Q(R1)))

/* ---- helpers ---- */

static long long count(const char *table)
{
    char sql[96];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    return ts_sql_int(rig_ts, sql);
}

/* b is a replay of a: the same status, body, Location and type. */
static void check_replay(const lg_resp *a, const lg_resp *b)
{
    RIG_IS_TRUE(!a->is_replayed);
    RIG_IS_TRUE(b->is_replayed);
    RIG_EQ_INT(b->status, a->status);
    RIG_EQ_STR(b->body, a->body);
    RIG_EQ_STR(b->location, a->location);
    RIG_EQ_STR(b->content_type, a->content_type);
}

/* r is a 422 problem naming the Idempotency-Key header. */
static void check_key_refused(const lg_resp *r)
{
    RIG_EQ_INT(r->status, 422);
    RIG_IS_TRUE(!r->is_replayed);
    RIG_EQ_STR(scs_str(r->json, "field"), "Idempotency-Key");
}

/* ---- 1. A retry gets the first answer, and rolls nothing ---- */

START_TEST(test_oneoff_replay)
{
    long long n_combats = count("combats"), n_rolls = count("rolls");
    lg_resp *a, *b;
    json_t *w;

    snprintf(rig_ctx, sizeof rig_ctx, "a one-off retried");
    a = lg_do(201, "POST", NULL, "oneoff-1", NULL, ONEOFF, "/v1/combats/scrud");
    RIG_IS_TRUE(!a->is_replayed);
    RIG_IS_TRUE(strstr(a->location, scs_str(a->json, "id")) != NULL);
    w = scs_rig_world(NULL);
    b = lg_do(201, "POST", NULL, "oneoff-1", NULL, ONEOFF, "/v1/combats/scrud");
    check_replay(a, b);
    b = lg_do(201, "POST", NULL, "oneoff-1", NULL, ONEOFF, "/v1/combats/scrud");
    check_replay(a, b);
    scs_rig_assert_unchanged(w, NULL);
    RIG_EQ_INT(count("combats"), n_combats + 1);
    /* A one-off's roll log is packed in its own row (migration 13): no
     * roll row at all; served once, as the first answer gave it. */
    RIG_EQ_INT(count("rolls"), n_rolls);
    RIG_IS_TRUE(json_array_size(scs_get(a->json, "rolls")) > 0);
    RIG_IS_TRUE(json_equal(
        a->json, scs_call(200, "GET", NULL, NULL, "%s", a->location)));
    /* without the key, the same body is a new combat */
    b = lg_do(201, "POST", NULL, NULL, NULL, ONEOFF, "/v1/combats/scrud");
    RIG_IS_TRUE(!b->is_replayed);
    RIG_IS_TRUE(strcmp(b->location, a->location) != 0);
    RIG_EQ_INT(count("combats"), n_combats + 2);
}
END_TEST

START_TEST(test_campaign_replay)
{
    char k0[65], k1[65], path[160];
    test_campaign c;
    lg_resp *a, *b;
    json_t *w, *led;

    lg_campaign(&c);
    lg_next(&c, k0);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "a campaign combat retried");
    a = lg_do(201, "POST", c.umpire, "camp-1", NULL, CAMPAIGN_SCRUD, "%s",
              path);
    lg_check_seeded(a->json, k0);
    lg_next(&c, k1);
    led = lg_ledger(&c);
    RIG_EQ_INT(rig_inum(led, "length"), 2);
    w = scs_rig_world(&c);
    b = lg_do(201, "POST", c.umpire, "camp-1", NULL, CAMPAIGN_SCRUD, "%s",
              path);
    check_replay(a, b);
    /* the campaign (its next commitment and ledger among it), units,
     * history and combats are as the first left them */
    scs_rig_assert_unchanged(w, &c);
    RIG_IS_TRUE(json_equal(led, lg_ledger(&c)));
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM combats WHERE campaign_id = ?",
                          TS_TEXT(c.id)),
               1);
    lg_check_verified(lg_verify(&c, "%s", ""), 2, 2, 2, 0, 0);
}
END_TEST

/* ---- 2. The key with another request, malformed keys, refusals ---- */

START_TEST(test_key_reused)
{
    lg_resp *a, *r;
    json_t *w;

    a = lg_do(201, "POST", NULL, "reused", NULL, ONEOFF, "/v1/combats/scrud");
    w = scs_rig_world(NULL);
    snprintf(rig_ctx, sizeof rig_ctx, "the key with another body");
    check_key_refused(lg_do(422, "POST", NULL, "reused", NULL, ONEOFF_B,
                            "/v1/combats/scrud"));
    snprintf(rig_ctx, sizeof rig_ctx, "the key on another route");
    check_key_refused(
        lg_do(422, "POST", NULL, "reused", NULL, ONEOFF, "/v1/combats/edna"));
    check_key_refused(
        lg_do(422, "POST", NULL, "reused", NULL, NULL, "/v1/commitments"));
    scs_rig_assert_unchanged(w, NULL);
    /* and still the first answer for the first request */
    r = lg_do(201, "POST", NULL, "reused", NULL, ONEOFF, "/v1/combats/scrud");
    check_replay(a, r);
}
END_TEST

START_TEST(test_malformed_keys)
{
    char long_key[300];
    static const char *const bad[] = {
        "", " ", "a b", "a\tb", "a,b\x01", "\xc3\xa9t\xc3\xa9", NULL};
    lg_resp *a, *b;
    json_t *w;
    size_t i;

    w = scs_rig_world(NULL);
    for (i = 0; bad[i]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "malformed key %zu", i);
        check_key_refused(lg_do(422, "POST", NULL, bad[i], NULL, ONEOFF,
                                "/v1/combats/scrud"));
    }
    memset(long_key, 'k', 256);
    long_key[256] = '\0';
    snprintf(rig_ctx, sizeof rig_ctx, "a key of 256 bytes");
    check_key_refused(
        lg_do(422, "POST", NULL, long_key, NULL, ONEOFF, "/v1/combats/scrud"));
    check_key_refused(
        lg_do(422, "POST", NULL, long_key, NULL, NULL, "/v1/commitments"));
    scs_rig_assert_unchanged(w, NULL);
    /* 255 visible characters are a key */
    long_key[255] = '\0';
    long_key[0] = '!';
    long_key[254] = '~';
    snprintf(rig_ctx, sizeof rig_ctx, "a key of 255 bytes");
    a = lg_do(201, "POST", NULL, long_key, NULL, ONEOFF, "/v1/combats/scrud");
    b = lg_do(201, "POST", NULL, long_key, NULL, ONEOFF, "/v1/combats/scrud");
    check_replay(a, b);
}
END_TEST

START_TEST(test_refused_stores_nothing)
{
    char path[160];
    test_campaign c;
    lg_resp *a, *b;

    /* refused while the request is read */
    snprintf(rig_ctx, sizeof rig_ctx, "refused, then fixed");
    lg_do(422, "POST", NULL, "fix-1", NULL,
          "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\"}]}]}",
          "/v1/combats/scrud");
    RIG_EQ_INT(count("idempotency_keys"), 0);
    a = lg_do(201, "POST", NULL, "fix-1", NULL, ONEOFF, "/v1/combats/scrud");
    RIG_IS_TRUE(!a->is_replayed);
    b = lg_do(201, "POST", NULL, "fix-1", NULL, ONEOFF, "/v1/combats/scrud");
    check_replay(a, b);

    /* refused in the writer's job: a unit the campaign does not have, then
     * a commitment that is not the next */
    lg_campaign(&c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "refused in the job, then fixed");
    lg_do(422, "POST", c.umpire, "fix-2", NULL,
          "{\"sides\":[{\"side\":\"blue\",\"units\":[{\"unit\":\"B9\"}]},{"
          "\"side\":\"red\",\"units\":[{\"unit\":\"R1\"}]}]}",
          "%s", path);
    lg_do(409, "POST", c.umpire, "fix-2", NULL,
          "{\"sides\":[{\"side\":\"blue\",\"units\":[{\"unit\":\"B1\"}]},{"
          "\"side\":\"red\",\"units\":[{\"unit\":\"R1\"}]}],\"dice\":{"
          "\"commitment\":\"abababababababababababababababababababababababab"
          "abababababababab\"}}",
          "%s", path);
    RIG_EQ_INT(count("idempotency_keys"), 1);
    RIG_EQ_INT(rig_inum(lg_ledger(&c), "length"), 0);
    a = lg_do(201, "POST", c.umpire, "fix-2", NULL, CAMPAIGN_SCRUD, "%s", path);
    RIG_IS_TRUE(!a->is_replayed);
    b = lg_do(201, "POST", c.umpire, "fix-2", NULL, CAMPAIGN_SCRUD, "%s", path);
    check_replay(a, b);
    RIG_EQ_INT(count("idempotency_keys"), 2);
}
END_TEST

/* ---- 3. Identical requests racing land once ---- */

/* The answers of a burst: each ok with one body (the first answer, or
 * its replay) or 409 idempotency_in_flight; exactly one is not a replay.
 * Returns how many answered ok. */
static int check_burst(const lg_shot *shots, int n, int ok, const char **body)
{
    int i, n_ok = 0, n_first = 0;

    *body = NULL;
    for (i = 0; i < n; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "racing request %d", i);
        if (shots[i].status == ok) {
            if (*body == NULL)
                *body = shots[i].body;
            RIG_EQ_STR(shots[i].body, *body);
            n_ok++;
            n_first += !shots[i].is_replayed;
            continue;
        }
        RIG_EQ_INT(shots[i].status, 409);
        RIG_EQ_STR(shots[i].code, "idempotency_in_flight");
    }
    snprintf(rig_ctx, sizeof rig_ctx, "the race");
    RIG_IS_TRUE(n_ok >= 1);
    RIG_EQ_INT(n_first, 1);
    return n_ok;
}

START_TEST(test_concurrent_retries)
{
    long long n_combats = count("combats"), n_rolls = count("rolls");
    const char *body;
    lg_shot shots[16];
    json_t *rep;
    lg_resp *r;

    lg_burst(16, "POST", "/v1/combats/scrud", NULL, "race-1", ONEOFF, shots);
    check_burst(shots, 16, 201, &body);
    snprintf(rig_ctx, sizeof rig_ctx, "after the race");
    rep = scs_rig_keep(json_loads(body, 0, NULL));
    RIG_EQ_INT(count("combats"), n_combats + 1);
    RIG_EQ_INT(count("rolls"), n_rolls); /* packed in the combat's row */
    RIG_IS_TRUE(json_array_size(scs_get(rep, "rolls")) > 0);
    r = lg_do(201, "POST", NULL, "race-1", NULL, ONEOFF, "/v1/combats/scrud");
    RIG_IS_TRUE(r->is_replayed);
    RIG_EQ_STR(r->body, body);
}
END_TEST

START_TEST(test_concurrent_battle_action)
{
    char path[256];
    const char *body;
    lg_shot shots[16];
    test_campaign c;
    json_t *b;
    lg_resp *r;

    lg_campaign(&c);
    b = lg_cpost(&c, 201, "battles", M1);
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s/actions", c.id,
             scs_str(b, "id"));
    lg_burst(16, "POST", path, c.umpire, "race-2", MROLL(0, ""), shots);
    check_burst(shots, 16, 200, &body);
    snprintf(rig_ctx, sizeof rig_ctx, "after the race");
    RIG_EQ_INT(mx_n_action_rows(scs_str(b, "id")), 1);
    RIG_EQ_INT(rig_inum(lg_ledger(&c), "length"), 1);
    RIG_EQ_INT(rig_inum(mx_get(&c, scs_str(b, "id")), "n_actions"), 1);
    r = lg_do(200, "POST", c.umpire, "race-2", NULL, MROLL(0, ""), "%s", path);
    RIG_IS_TRUE(r->is_replayed);
    RIG_EQ_STR(r->body, body);
}
END_TEST

/* ---- 4. Keys belong to their token ---- */

START_TEST(test_keys_per_token)
{
    test_campaign c[2];
    lg_resp *a[2], *r;
    int i;

    for (i = 0; i < 2; i++)
        lg_campaign(&c[i]);
    for (i = 0; i < 2; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "campaign %d's umpire", i);
        a[i] = lg_do(201, "POST", c[i].umpire, "shared", NULL, CAMPAIGN_SCRUD,
                     "/v1/campaigns/%s/combats/scrud", c[i].id);
        RIG_IS_TRUE(!a[i]->is_replayed);
    }
    RIG_IS_TRUE(strcmp(a[0]->location, a[1]->location) != 0);
    /* the public routes: one scope of their own */
    snprintf(rig_ctx, sizeof rig_ctx, "a one-off");
    r = lg_do(201, "POST", NULL, "shared", NULL, ONEOFF, "/v1/combats/scrud");
    RIG_IS_TRUE(!r->is_replayed);
    r = lg_do(201, "POST", c[0].umpire, "shared", NULL, ONEOFF,
              "/v1/combats/scrud");
    RIG_IS_TRUE(r->is_replayed);
    for (i = 0; i < 2; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "campaign %d's retry", i);
        check_replay(a[i], lg_do(201, "POST", c[i].umpire, "shared", NULL,
                                 CAMPAIGN_SCRUD,
                                 "/v1/campaigns/%s/combats/scrud", c[i].id));
        RIG_EQ_INT(ts_sql_int(rig_ts,
                              "SELECT count(*) FROM combats WHERE "
                              "campaign_id = ?",
                              TS_TEXT(c[i].id)),
                   1);
    }
}
END_TEST

/* ---- 5. Battles and commitments ---- */

/* A keyed Civilization phase: its answer, made in the writer job, is the
 * battle as it then stands (as GET serves it), and a retry gets it again
 * without a second phase. */
START_TEST(test_civ_phase_retried)
{
    char path[256], bid[64];
    test_campaign c;
    lg_resp *a, *b;
    json_t *bt;

    lg_campaign(&c);
    snprintf(rig_ctx, sizeof rig_ctx, "a Civilization phase retried");
    bt = lg_cpost(&c, 201, "battles",
                  "{\"system\":\"civ\",\"turn\":1,\"current_era\":1,"
                  "\"attacker\":{\"side\":\"blue\",\"units\":[\"cb1\"]},"
                  "\"defender\":{\"side\":\"red\",\"units\":[\"cr1\"]}}");
    snprintf(bid, sizeof bid, "%s", scs_str(bt, "id"));
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s/actions", c.id,
             bid);
    a = lg_do(200, "POST", c.umpire, "phase-1", NULL, "{\"action\":\"phase\"}",
              "%s", path);
    RIG_IS_TRUE(json_equal(a->json, mx_get(&c, bid)));
    RIG_EQ_INT(rig_inum(a->json, "n_actions"), 1);
    b = lg_do(200, "POST", c.umpire, "phase-1", NULL, "{\"action\":\"phase\"}",
              "%s", path);
    check_replay(a, b);
    RIG_EQ_INT(mx_n_action_rows(bid), 1);
}
END_TEST

START_TEST(test_battle_retries)
{
    char path[256], k[65], next[65];
    test_campaign c;
    lg_resp *a, *b;
    const char *bid;
    json_t *led;

    lg_campaign(&c);
    lg_next(&c, k);
    snprintf(rig_ctx, sizeof rig_ctx, "a battle created twice");
    a = lg_do(201, "POST", c.umpire, "bat-1", NULL, M1,
              "/v1/campaigns/%s/battles", c.id);
    b = lg_do(201, "POST", c.umpire, "bat-1", NULL, M1,
              "/v1/campaigns/%s/battles", c.id);
    check_replay(a, b);
    bid = scs_str(a->json, "id");
    RIG_EQ_STR(scs_str(scs_get(a->json, "dice"), "commitment"), k);
    RIG_EQ_INT(count("battles"), 1);
    lg_next(&c, next);
    /* one commitment spent (the battle keeps it), the next drawn in its
     * place on the campaign's row */
    RIG_IS_TRUE(strcmp(next, k) != 0);
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM campaigns WHERE id = ? AND "
                          "next_commitment = ?",
                          TS_TEXT(c.id), TS_TEXT(next)),
               1);
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM commitments WHERE "
                          "commitment = ?",
                          TS_TEXT(k)),
               0);
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM battles WHERE "
                          "commitment = ? AND server_seed IS NOT NULL",
                          TS_TEXT(k)),
               1);

    snprintf(rig_ctx, sizeof rig_ctx, "a roll retried");
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s/actions", c.id,
             bid);
    a = lg_do(200, "POST", c.umpire, "roll-1", NULL, MROLL(0, ""), "%s", path);
    led = lg_ledger(&c);
    b = lg_do(200, "POST", c.umpire, "roll-1", NULL, MROLL(0, ""), "%s", path);
    check_replay(a, b);
    RIG_EQ_INT(mx_n_action_rows(bid), 1);
    RIG_IS_TRUE(json_equal(led, lg_ledger(&c)));
    RIG_EQ_INT(rig_inum(mx_get(&c, bid), "n_actions"), 1);
    /* the battle goes on; the old key still answers as it did */
    lg_do(200, "POST", c.umpire, NULL, NULL, ACCEPT(0), "%s", path);
    b = lg_do(200, "POST", c.umpire, "roll-1", NULL, MROLL(0, ""), "%s", path);
    check_replay(a, b);
    RIG_EQ_INT(mx_n_action_rows(bid), 2);
    RIG_EQ_INT(rig_inum(lg_ledger(&c), "length"), 2);
    lg_check_verified(lg_verify(&c, "%s", ""), 2, 2, 2, 0, 0);
}
END_TEST

START_TEST(test_commitment_retry)
{
    long long n = count("commitments");
    lg_resp *a, *b;

    snprintf(rig_ctx, sizeof rig_ctx, "a commitment asked for twice");
    a = lg_do(201, "POST", NULL, "ahead-1", NULL, NULL, "/v1/commitments");
    b = lg_do(201, "POST", NULL, "ahead-1", NULL, NULL, "/v1/commitments");
    check_replay(a, b);
    RIG_EQ_STR(scs_str(b->json, "commitment"), scs_str(a->json, "commitment"));
    RIG_EQ_INT(count("commitments"), n + 1);
    check_key_refused(
        lg_do(422, "POST", NULL, "ahead-1", NULL, "{}", "/v1/commitments"));
    RIG_EQ_INT(count("commitments"), n + 1);
}
END_TEST

/* ---- 6. A replay in the retry's format ---- */

START_TEST(test_replay_renders)
{
    char path[160], id[64];
    test_campaign c;
    lg_resp *a, *r;

    lg_campaign(&c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c.id);
    a = lg_do(201, "POST", c.umpire, "fmt-1", NULL, CAMPAIGN_SCRUD, "%s", path);
    snprintf(id, sizeof id, "%s", scs_str(a->json, "id"));
    scs_rig_assert_contains(a->content_type, "application/json");

    snprintf(rig_ctx, sizeof rig_ctx, "replayed as Markdown");
    r = lg_do(201, "POST", c.umpire, "fmt-1", NULL, CAMPAIGN_SCRUD,
              "%s?format=md", path);
    RIG_IS_TRUE(r->is_replayed);
    scs_rig_assert_contains(r->content_type, "text/markdown");
    scs_rig_assert_contains(r->body, id);
    RIG_EQ_STR(r->location, a->location);
    snprintf(rig_ctx, sizeof rig_ctx, "replayed as HTML");
    r = lg_do(201, "POST", c.umpire, "fmt-1", "Accept: text/html\r\n",
              CAMPAIGN_SCRUD, "%s", path);
    RIG_IS_TRUE(r->is_replayed);
    scs_rig_assert_contains(r->content_type, "text/html");
    scs_rig_assert_contains(r->body, id);
    snprintf(rig_ctx, sizeof rig_ctx, "replayed as JSON");
    r = lg_do(201, "POST", c.umpire, "fmt-1", "Accept: text/html\r\n",
              CAMPAIGN_SCRUD, "%s?format=json", path);
    check_replay(a, r);
    lg_do(422, "POST", c.umpire, "fmt-1", NULL, CAMPAIGN_SCRUD, "%s?format=pdf",
          path);
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM combats WHERE campaign_id = ?",
                          TS_TEXT(c.id)),
               1);

    /* first as HTML: what is kept is the report, replayed as JSON */
    snprintf(rig_ctx, sizeof rig_ctx, "first as HTML");
    a = lg_do(201, "POST", c.umpire, "fmt-2", NULL, CAMPAIGN_SCRUD,
              "%s?format=html", path);
    scs_rig_assert_contains(a->content_type, "text/html");
    r = lg_do(201, "POST", c.umpire, "fmt-2", NULL, CAMPAIGN_SCRUD, "%s", path);
    RIG_IS_TRUE(r->is_replayed);
    scs_rig_assert_contains(r->content_type, "application/json");
    RIG_EQ_STR(r->location, a->location);
    RIG_IS_TRUE(json_equal(
        r->json, scs_call(200, "GET", c.umpire, NULL, "%s", a->location)));
}
END_TEST

/* ---- 7. A key is kept for 24 hours ---- */

START_TEST(test_key_expires)
{
    lg_resp *a, *b;
    char day_ago[DB_TIME_MAX];

    a = lg_do(201, "POST", NULL, "day-old", NULL, ONEOFF, "/v1/combats/scrud");
    db_time_ago(25 * 3600, day_ago);
    RIG_EQ_INT(ts_sql_exec(rig_ts,
                           "UPDATE idempotency_keys SET created_at = ? "
                           "WHERE key = 'day-old'",
                           TS_TEXT(day_ago)),
               1);
    snprintf(rig_ctx, sizeof rig_ctx, "a key used 25 hours ago");
    b = lg_do(201, "POST", NULL, "day-old", NULL, ONEOFF, "/v1/combats/scrud");
    RIG_IS_TRUE(!b->is_replayed);
    RIG_IS_TRUE(strcmp(b->location, a->location) != 0);
}
END_TEST

Suite *suite_idempotency_http(void)
{
    Suite *s = suite_create("idempotency_http");
    TCase *tc = tcase_create("idempotency_http");

    tcase_add_checked_fixture(tc, lg_setup, lg_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_oneoff_replay);
    tcase_add_test(tc, test_campaign_replay);
    tcase_add_test(tc, test_key_reused);
    tcase_add_test(tc, test_malformed_keys);
    tcase_add_test(tc, test_refused_stores_nothing);
    tcase_add_test(tc, test_concurrent_retries);
    tcase_add_test(tc, test_concurrent_battle_action);
    tcase_add_test(tc, test_keys_per_token);
    tcase_add_test(tc, test_battle_retries);
    tcase_add_test(tc, test_civ_phase_retried);
    tcase_add_test(tc, test_commitment_retry);
    tcase_add_test(tc, test_replay_renders);
    tcase_add_test(tc, test_key_expires);
    suite_add_tcase(s, tc);
    return s;
}
