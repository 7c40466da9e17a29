/*
 * test_discord_http.c: tests server/discord/ through its endpoint, with a
 * test that plays Discord (discord_rig.h): signatures (bad, missing,
 * stale), PING, the endpoint off, linking and claiming (no token in a
 * public message, unlink and re-link), who may do what, every command
 * and autocomplete, an unknown unit, and a repeated interaction; /odds
 * answering a player the numbers of POST .../odds/scrud, refusing an
 * unknown unit, and its edna and scs (public), worked out on the odds'
 * own threads (with them full, the service's busy as a notice); a
 * combat made with a command posted to the campaign's webhook, like any
 * other, to a stand-in for Discord (notify_rig.h).
 */
#include "discord_odds.h"
#include "discord_rig.h"
#include "edges_rig.h"
#include "notify_rig.h"
#include "suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static discord_rig g;

static void setup(void)
{
    discord_rig_start(&g);
}

static void teardown(void)
{
    discord_rig_stop(&g);
}

/* A combat of red's R1, R2 against blue's B1 (the rig's units). */
static void units(void)
{
    discord_rig_unit(&g, "R1", "red");
    discord_rig_unit(&g, "R2", "red");
    discord_rig_unit(&g, "B1", "blue");
}

static size_t n_combats(void)
{
    char path[128];
    json_t *j;
    size_t n;

    snprintf(path, sizeof path, "/v1/campaigns/%s/combats", g.cmp.id);
    j = ts_call(g.ts, 200, "GET", path, g.cmp.umpire, NULL);
    n = json_array_size(json_object_get(j, "items"));
    json_decref(j);
    return n;
}

START_TEST(test_ping_is_answered_pong)
{
    char *body = discord_rig_body(&g, 1, DISCORD_RIG_OTHER, NULL);
    json_t *r = discord_rig_send(&g, body);

    ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 1);
    json_decref(r);
    free(body);
}
END_TEST

START_TEST(test_bad_signatures_get_401)
{
    char *body = discord_rig_body(&g, 1, DISCORD_RIG_OTHER, NULL);
    char ts[24], sig[129], *tampered;
    unsigned char pk[32], sk[64];
    discord_rig other = g;
    http_resp r;

    snprintf(ts, sizeof ts, "%lld", (long long)time(NULL));
    /* Missing headers. */
    discord_rig_post(&g, NULL, ts, body, &r);
    ck_assert_int_eq(r.status, 401);
    http_resp_cleanup(&r);
    discord_rig_sign(&g, ts, body, sig);
    discord_rig_post(&g, sig, NULL, body, &r);
    ck_assert_int_eq(r.status, 401);
    http_resp_cleanup(&r);
    /* Malformed. */
    discord_rig_post(&g, "zz", ts, body, &r);
    ck_assert_int_eq(r.status, 401);
    http_resp_cleanup(&r);
    /* Signed by another key. */
    crypto_sign_keypair(pk, sk);
    memcpy(other.sk, sk, sizeof sk);
    discord_rig_sign(&other, ts, body, sig);
    discord_rig_post(&g, sig, ts, body, &r);
    ck_assert_int_eq(r.status, 401);
    ck_assert_ptr_nonnull(strstr(r.body, "discord_signature"));
    http_resp_cleanup(&r);
    /* The right key, but the body or the timestamp changed. */
    discord_rig_sign(&g, ts, body, sig);
    tampered = strdup(body);
    tampered[strlen(tampered) - 2] = ' ';
    discord_rig_post(&g, sig, ts, tampered, &r);
    ck_assert_int_eq(r.status, 401);
    http_resp_cleanup(&r);
    ts[strlen(ts) - 1] = ts[strlen(ts) - 1] == '0' ? '1' : '0';
    discord_rig_post(&g, sig, ts, body, &r);
    ck_assert_int_eq(r.status, 401);
    http_resp_cleanup(&r);
    free(tampered);
    free(body);
}
END_TEST

START_TEST(test_stale_timestamps_are_refused)
{
    char *body = discord_rig_body(&g, 1, DISCORD_RIG_OTHER, NULL);
    long long offs[] = {-301, -3600, 301, 3600};
    char ts[24], sig[129];
    http_resp r;
    size_t i;

    for (i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        snprintf(ts, sizeof ts, "%lld", (long long)time(NULL) + offs[i]);
        discord_rig_sign(&g, ts, body, sig);
        discord_rig_post(&g, sig, ts, body, &r);
        ck_assert_int_eq(r.status, 401);
        ck_assert_ptr_nonnull(strstr(r.body, "discord_stale"));
        http_resp_cleanup(&r);
    }
    /* Within the window: answered. */
    snprintf(ts, sizeof ts, "%lld", (long long)time(NULL) - 200);
    discord_rig_sign(&g, ts, body, sig);
    discord_rig_post(&g, sig, ts, body, &r);
    ck_assert_int_eq(r.status, 200);
    http_resp_cleanup(&r);
    free(body);
}
END_TEST

START_TEST(test_endpoint_off_without_application)
{
    test_server *ts = ts_start();
    http_resp r;

    ck_assert_int_eq(ts_request(ts, "POST", "/v1/discord/interactions", NULL,
                                "{\"type\":1}", &r),
                     0);
    ck_assert_int_eq(r.status, 503);
    ck_assert_ptr_nonnull(strstr(r.body, "discord_off"));
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_another_application_is_refused)
{
    char *body = discord_rig_body(&g, 2, DISCORD_RIG_UMPIRE,
                                  "{\"name\":\"ledger\",\"type\":1}");
    char *p = strstr(body, DISCORD_RIG_APP);
    json_t *r;

    p[0] = '9';
    r = discord_rig_send(&g, body);
    discord_rig_assert_notice(r, "another application");
    json_decref(r);
    free(body);
}
END_TEST

START_TEST(test_unlinked_channel)
{
    json_t *r = discord_rig_command(&g, DISCORD_RIG_UMPIRE, "ledger", "[]");

    discord_rig_assert_notice(r, "not linked");
    json_decref(r);
    r = discord_rig_command(
        &g, DISCORD_RIG_PLAYER, "claim",
        "[{\"name\":\"token\",\"type\":3,\"value\":\"%s\"}]", g.cmp.player[0]);
    discord_rig_assert_notice(r, "not linked");
    json_decref(r);
}
END_TEST

START_TEST(test_link_claim_unlink_relink)
{
    json_t *r;
    char buf[64];

    /* A player token cannot link; a wrong token is refused. */
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "link",
        "[{\"name\":\"token\",\"type\":3,\"value\":\"%s\"}]", g.cmp.player[0]);
    discord_rig_assert_notice(r, "player token");
    json_decref(r);
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "link",
        "[{\"name\":\"token\",\"type\":3,\"value\":\"x\"}]");
    discord_rig_assert_notice(r, "not valid");
    json_decref(r);
    discord_rig_link(&g);
    /* No answer holds the token. */
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "link",
        "[{\"name\":\"token\",\"type\":3,\"value\":\"%s\"}]", g.cmp.umpire);
    ck_assert_ptr_null(strstr(discord_rig_text(r), g.cmp.umpire));
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "link");
    json_decref(r);
    /* A player cannot unlink; the umpire can; then nothing works until
     * it is linked again. */
    r = discord_rig_command(&g, DISCORD_RIG_PLAYER, "unlink", "[]");
    discord_rig_assert_notice(r, "Only the campaign's umpire");
    json_decref(r);
    r = discord_rig_command(&g, DISCORD_RIG_UMPIRE, "unlink", "[]");
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "no longer linked"));
    discord_rig_keep(r, "unlink");
    json_decref(r);
    r = discord_rig_command(&g, DISCORD_RIG_PLAYER, "commitment", "[]");
    discord_rig_assert_notice(r, "not linked");
    json_decref(r);
    discord_rig_link(&g);
    r = discord_rig_command(&g, DISCORD_RIG_PLAYER, "commitment", "[]");
    snprintf(buf, sizeof buf, "%s", discord_rig_text(r));
    ck_assert_int_eq(buf[0], '`');
    json_decref(r);
    /* Someone who claimed nothing reads nothing. */
    r = discord_rig_command(&g, DISCORD_RIG_OTHER, "commitment", "[]");
    discord_rig_assert_notice(r, "Claim your side");
    json_decref(r);
}
END_TEST

START_TEST(test_player_cannot_roll)
{
    json_t *r;

    units();
    discord_rig_link(&g);
    r = discord_rig_command(
        &g, DISCORD_RIG_PLAYER, "scrud",
        "[{\"name\":\"side_a\",\"type\":3,\"value\":\"R1\"},"
        "{\"name\":\"side_b\",\"type\":3,\"value\":\"B1\"}]");
    discord_rig_assert_notice(r, "players read");
    discord_rig_keep(r, "refused_player");
    json_decref(r);
    ck_assert_uint_eq(n_combats(), 0);
}
END_TEST

START_TEST(test_unknown_unit)
{
    json_t *r;

    units();
    discord_rig_link(&g);
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "scrud",
        "[{\"name\":\"side_a\",\"type\":3,\"value\":\"R1, Nobody +1\"},"
        "{\"name\":\"side_b\",\"type\":3,\"value\":\"B1\"}]");
    discord_rig_assert_notice(r, "no unit \"Nobody\"");
    json_decref(r);
    r = discord_rig_command(&g, DISCORD_RIG_UMPIRE, "scrud",
                            "[{\"name\":\"side_a\",\"type\":3,\"value\":\"R1, "
                            "B1\"},{\"name\":\"side_b\",\"type\":3,"
                            "\"value\":\"R2\"}]");
    discord_rig_assert_notice(r, "one side's units");
    json_decref(r);
    ck_assert_uint_eq(n_combats(), 0);
}
END_TEST

START_TEST(test_scrud_combat_and_its_seed)
{
    char path[160];
    json_t *r, *cb;
    const char *title;

    units();
    discord_rig_link(&g);
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "scrud",
        "[{\"name\":\"side_a\",\"type\":3,\"value\":\"R1 +1, R2 reserve\"},"
        "{\"name\":\"side_b\",\"type\":3,\"value\":\"B1\"},"
        "{\"name\":\"modifier_b\",\"type\":4,\"value\":1},"
        "{\"name\":\"note\",\"type\":3,\"value\":\"@everyone at the ford\"}]");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 4);
    title = json_string_value(json_object_get(
        json_array_get(json_object_get(json_object_get(r, "data"), "embeds"),
                       0),
        "title"));
    ck_assert_str_eq(title, "SCRUD: red vs blue");
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "defeat"));
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "scrud");
    json_decref(r);
    /* The interaction's id is the client seed of the stored combat. */
    ck_assert_uint_eq(n_combats(), 1);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats", g.cmp.id);
    r = ts_call(g.ts, 200, "GET", path, g.cmp.umpire, NULL);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", g.cmp.id,
             json_string_value(json_object_get(
                 json_array_get(json_object_get(r, "items"), 0), "id")));
    json_decref(r);
    cb = ts_call(g.ts, 200, "GET", path, g.cmp.player[0], NULL);
    {
        char want[48];
        snprintf(want, sizeof want, "discord:%s", g.last_id);
        ck_assert_str_eq(json_string_value(json_object_get(
                             json_object_get(cb, "dice"), "client_seed")),
                         want);
    }
    json_decref(cb);
}
END_TEST

/* The id of the campaign's unit called name (into out, 64 bytes). */
static void unit_id(const char *name, char *out)
{
    char path[128];
    json_t *j, *u;
    size_t i;

    out[0] = '\0';
    snprintf(path, sizeof path, "/v1/campaigns/%s/units", g.cmp.id);
    j = ts_call(g.ts, 200, "GET", path, g.cmp.umpire, NULL);
    json_array_foreach(
        json_object_get(j, "items"), i,
        u) if (strcmp(json_string_value(json_object_get(u, "name")), name) == 0)
        snprintf(out, 64, "%s", json_string_value(json_object_get(u, "id")));
    json_decref(j);
    ck_assert_msg(out[0] != '\0', "no unit %s", name);
}

/* The whole text of a reply's first embed (description and fields). */
static char *embed_text(const json_t *r)
{
    const json_t *em = json_array_get(
                     json_object_get(json_object_get(r, "data"), "embeds"), 0),
                 *f;
    size_t i, n = 1;
    char *out;

    n += strlen(discord_rig_text(r));
    json_array_foreach(json_object_get(em, "fields"), i, f) n +=
        strlen(json_string_value(json_object_get(f, "value"))) + 1;
    out = calloc(1, n);
    strcat(out, discord_rig_text(r));
    json_array_foreach(json_object_get(em, "fields"), i, f)
    {
        strcat(out, json_string_value(json_object_get(f, "value")));
        strcat(out, "\n");
    }
    return out;
}

/* "<fraction>" of a probability, as the embed shows it: "(7/36)". */
static void assert_shows(const char *text, const json_t *p)
{
    char want[96];

    snprintf(want, sizeof want, "(%s)",
             json_string_value(json_object_get(p, "fraction")));
    ck_assert_msg(strstr(text, want) != NULL, "%s not in %s", want, text);
}

START_TEST(test_odds_scrud_as_the_route_answers)
{
    char path[160], r1[64], r2[64], b1[64], *text;
    json_t *r, *a, *side, *u;
    size_t s, i;
    const int who[] = {0, 1};

    units();
    discord_rig_link(&g);
    unit_id("R1", r1);
    unit_id("R2", r2);
    unit_id("B1", b1);
    snprintf(path, sizeof path, "/v1/campaigns/%s/odds/scrud", g.cmp.id);
    a = ts_call(g.ts, 200, "POST", path, g.cmp.player[0],
                "{\"sides\":[{\"side\":\"red\",\"modifier\":0,\"units\":"
                "[{\"unit\":\"%s\",\"modifier\":1},{\"unit\":\"%s\"}]},"
                "{\"side\":\"blue\",\"modifier\":1,\"units\":[{\"unit\":"
                "\"%s\"}]}]}",
                r1, r2, b1);
    ck_assert(json_is_true(json_object_get(a, "exact")));
    /* The umpire, and a player (odds read): the same numbers. */
    for (s = 0; s < 2; s++) {
        r = discord_rig_command(
            &g, who[s] ? DISCORD_RIG_PLAYER : DISCORD_RIG_UMPIRE, "odds",
            "[{\"name\":\"scrud\",\"type\":1,\"options\":["
            "{\"name\":\"side_a\",\"type\":3,\"value\":\"R1 +1, R2\"},"
            "{\"name\":\"side_b\",\"type\":3,\"value\":\"B1\"},"
            "{\"name\":\"modifier_b\",\"type\":4,\"value\":1}]}]");
        ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 4);
        ck_assert_int_eq(json_integer_value(json_object_get(
                             json_object_get(r, "data"), "flags")),
                         64);
        discord_rig_assert_limits(r);
        text = embed_text(r);
        assert_shows(
            text, json_object_get(json_object_get(a, "more_defeats"), "first"));
        assert_shows(text, json_object_get(json_object_get(a, "more_defeats"),
                                           "second"));
        assert_shows(
            text, json_object_get(json_object_get(a, "more_defeats"), "equal"));
        {
            size_t k;
            json_array_foreach(json_object_get(a, "sides"), k, side)
                json_array_foreach(json_object_get(side, "units"), i, u)
                    assert_shows(text, json_object_get(u, "eliminated"));
        }
        free(text);
        if (s == 1)
            discord_rig_keep(r, "odds_scrud");
        json_decref(r);
    }
    json_decref(a);
    /* Nothing rolled. */
    ck_assert_uint_eq(n_combats(), 0);
}
END_TEST

START_TEST(test_odds_unknown_unit_and_public)
{
    json_t *r;

    units();
    discord_rig_link(&g);
    r = discord_rig_command(
        &g, DISCORD_RIG_PLAYER, "odds",
        "[{\"name\":\"scrud\",\"type\":1,\"options\":["
        "{\"name\":\"side_a\",\"type\":3,\"value\":\"R1, Nobody\"},"
        "{\"name\":\"side_b\",\"type\":3,\"value\":\"B1\"}]}]");
    discord_rig_assert_notice(r, "no unit \"Nobody\"");
    json_decref(r);
    /* EDNA, and SCS shown to the channel. */
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "odds",
        "[{\"name\":\"edna\",\"type\":1,\"options\":["
        "{\"name\":\"units\",\"type\":3,\"value\":\"R1, B1 +1\"}]}]");
    {
        char *all = json_dumps(r, 0);
        ck_assert_ptr_nonnull(strstr(all, "Pass "));
        free(all);
    }
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "odds_edna");
    json_decref(r);
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "odds",
        "[{\"name\":\"scs\",\"type\":1,\"options\":["
        "{\"name\":\"attackers\",\"type\":3,\"value\":\"R1, R2\"},"
        "{\"name\":\"defenders\",\"type\":3,\"value\":\"B1\"},"
        "{\"name\":\"table\",\"type\":3,\"value\":\"example-2d6\"},"
        "{\"name\":\"public\",\"type\":5,\"value\":true}]}]");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 4);
    ck_assert(json_object_get(json_object_get(r, "data"), "flags") == NULL ||
              json_integer_value(
                  json_object_get(json_object_get(r, "data"), "flags")) == 0);
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "%"));
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "odds_scs");
    json_decref(r);
    ck_assert_uint_eq(n_combats(), 0);
}
END_TEST

START_TEST(test_repeated_interaction_acts_once)
{
    char *body;
    json_t *first, *again;

    units();
    discord_rig_link(&g);
    body = discord_rig_body(
        &g, 2, DISCORD_RIG_UMPIRE,
        "{\"name\":\"scrud\",\"type\":1,\"options\":[{\"name\":\"side_a\","
        "\"type\":3,\"value\":\"R1, R2\"},{\"name\":\"side_b\",\"type\":3,"
        "\"value\":\"B1\"}]}");
    first = discord_rig_send(&g, body);
    again = discord_rig_send(&g, body);
    ck_assert(json_equal(first, again));
    ck_assert_uint_eq(n_combats(), 1);
    json_decref(first);
    json_decref(again);
    free(body);
    /* A repeated link is answered again too, not linked twice. */
    body = discord_rig_body(&g, 2, DISCORD_RIG_UMPIRE,
                            "{\"name\":\"unlink\",\"type\":1}");
    first = discord_rig_send(&g, body);
    again = discord_rig_send(&g, body);
    ck_assert_msg(json_equal(first, again), "%s then %s",
                  discord_rig_text(first), discord_rig_text(again));
    json_decref(first);
    json_decref(again);
    free(body);
}
END_TEST

START_TEST(test_edna_and_scs)
{
    json_t *r;

    units();
    discord_rig_link(&g);
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "edna",
        "[{\"name\":\"units\",\"type\":3,\"value\":\"R1 +1, B1\"}]");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 4);
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "R1: **"));
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "edna");
    json_decref(r);
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "scs",
        "[{\"name\":\"attackers\",\"type\":3,\"value\":\"R1, R2 x1/2\"},"
        "{\"name\":\"defenders\",\"type\":3,\"value\":\"B1 x2\"},"
        "{\"name\":\"table\",\"type\":3,\"value\":\"example-2d6\"},"
        "{\"name\":\"column_shift\",\"type\":4,\"value\":-1}]");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 4);
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "odds"));
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "scs");
    json_decref(r);
    /* A table the campaign does not have: refused, with why. */
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "scs",
        "[{\"name\":\"attackers\",\"type\":3,\"value\":\"R1\"},"
        "{\"name\":\"defenders\",\"type\":3,\"value\":\"B1\"},"
        "{\"name\":\"table\",\"type\":3,\"value\":\"nope\"}]");
    discord_rig_assert_notice(r, "refused");
    json_decref(r);
    ck_assert_uint_eq(n_combats(), 2);
}
END_TEST

START_TEST(test_reads_unit_ledger_commitment_check)
{
    json_t *r, *list;
    char path[128], opt[160];

    units();
    discord_rig_link(&g);
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "scrud",
        "[{\"name\":\"side_a\",\"type\":3,\"value\":\"R1\"},"
        "{\"name\":\"side_b\",\"type\":3,\"value\":\"B1\"}]");
    json_decref(r);
    r = discord_rig_command(
        &g, DISCORD_RIG_PLAYER, "unit",
        "[{\"name\":\"unit\",\"type\":3,\"value\":\"R1\"}]");
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "In play"));
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "unit");
    json_decref(r);
    r = discord_rig_command(&g, DISCORD_RIG_PLAYER, "unit",
                            "[{\"name\":\"unit\",\"type\":3,\"value\":\"Z\"}]");
    discord_rig_assert_notice(r, "no unit");
    json_decref(r);
    r = discord_rig_command(&g, DISCORD_RIG_PLAYER, "ledger", "[]");
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "**Verified**"));
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "ledger");
    json_decref(r);
    r = discord_rig_command(&g, DISCORD_RIG_PLAYER, "commitment", "[]");
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "commitment");
    json_decref(r);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats", g.cmp.id);
    list = ts_call(g.ts, 200, "GET", path, g.cmp.umpire, NULL);
    snprintf(opt, sizeof opt, "%s",
             json_string_value(json_object_get(
                 json_array_get(json_object_get(list, "items"), 0), "id")));
    json_decref(list);
    r = discord_rig_command(
        &g, DISCORD_RIG_PLAYER, "check",
        "[{\"name\":\"combat\",\"type\":3,\"value\":\"%s\"}]", opt);
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "**Reproduced**"));
    ck_assert_ptr_nonnull(strstr(discord_rig_text(r), "verified against"));
    discord_rig_assert_limits(r);
    discord_rig_keep(r, "check");
    json_decref(r);
    r = discord_rig_command(
        &g, DISCORD_RIG_PLAYER, "check",
        "[{\"name\":\"combat\",\"type\":3,\"value\":\"cbt_nope\"}]");
    discord_rig_assert_notice(r, "Refused");
    json_decref(r);
}
END_TEST

/* The values of an autocomplete answer's choices, joined by '|'. */
static void choices(const json_t *r, char *out, size_t n)
{
    const json_t *c;
    size_t i;

    ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 8);
    out[0] = '\0';
    json_array_foreach(json_object_get(json_object_get(r, "data"), "choices"),
                       i, c)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? "|" : "",
                 json_string_value(json_object_get(c, "value")));
}

START_TEST(test_autocomplete)
{
    char got[1024];
    json_t *r;

    units();
    discord_rig_unit(&g, "Rifles", "red");
    discord_rig_link(&g);
    r = discord_rig_complete(&g, DISCORD_RIG_UMPIRE, "scrud",
                             "[{\"name\":\"side_a\",\"type\":3,\"value\":\"R1, "
                             "r\",\"focused\":true}]");
    choices(r, got, sizeof got);
    ck_assert_str_eq(got, "R1, R2|R1, Rifles");
    discord_rig_keep(r, "autocomplete_units");
    json_decref(r);
    r = discord_rig_complete(&g, DISCORD_RIG_PLAYER, "unit",
                             "[{\"name\":\"unit\",\"type\":3,\"value\":\"b\","
                             "\"focused\":true}]");
    choices(r, got, sizeof got);
    ck_assert_str_eq(got, "B1");
    json_decref(r);
    r = discord_rig_complete(
        &g, DISCORD_RIG_UMPIRE, "scs",
        "[{\"name\":\"table\",\"type\":3,\"value\":\"2d6\","
        "\"focused\":true}]");
    choices(r, got, sizeof got);
    ck_assert_ptr_nonnull(strstr(got, "example-2d6"));
    json_decref(r);
    /* A player gets no choices of an umpire's command. */
    r = discord_rig_complete(&g, DISCORD_RIG_PLAYER, "scrud",
                             "[{\"name\":\"side_a\",\"type\":3,\"value\":\"R\","
                             "\"focused\":true}]");
    choices(r, got, sizeof got);
    ck_assert_str_eq(got, "");
    json_decref(r);
}
END_TEST

/* The poster catches every combat of a campaign through a trigger on its
 * combats (db/webhooks.c), whichever front door made it: a Discord
 * command's combat is posted too, once, and nothing else is (linking,
 * claiming, reading). */
static receiver *rcv; /* the stand-in for Discord */

static void setup_posts(void)
{
    notify_config ncfg;

    rcv = rcv_start(NULL, 0); /* 204 to everything */
    nrig_config(&ncfg, rcv_port(rcv));
    discord_rig_start_with(&g, &ncfg);
}

static void teardown_posts(void)
{
    discord_rig_stop(&g); /* the poster first: it may be talking to rcv */
    rcv_stop(rcv);
    rcv = NULL;
}

START_TEST(test_command_combat_posted_to_webhook)
{
    char path[160], id[64], *text;
    json_t *r, *w, *msg, *embed, *cb;
    rcv_request q;

    units();
    discord_rig_link(&g);
    snprintf(path, sizeof path, "/v1/campaigns/%s/webhook", g.cmp.id);
    json_decref(ts_call(g.ts, 201, "PUT", path, g.cmp.umpire,
                        "{\"url\":\"%s\"}", NRIG_URL));
    r = discord_rig_command(
        &g, DISCORD_RIG_UMPIRE, "scrud",
        "[{\"name\":\"side_a\",\"type\":3,\"value\":\"R1, R2\"},"
        "{\"name\":\"side_b\",\"type\":3,\"value\":\"B1\"},"
        "{\"name\":\"note\",\"type\":3,\"value\":\"from Discord\"}]");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 4);
    json_decref(r);
    r = discord_rig_command(&g, DISCORD_RIG_PLAYER, "ledger", "[]");
    json_decref(r);
    /* The combat, as the campaign lists it. */
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats", g.cmp.id);
    r = ts_call(g.ts, 200, "GET", path, g.cmp.umpire, NULL);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "items")), 1);
    snprintf(id, sizeof id, "%s",
             json_string_value(json_object_get(
                 json_array_get(json_object_get(r, "items"), 0), "id")));
    json_decref(r);
    /* Delivered, and counted on the campaign's webhook. */
    w = nrig_wait_settled(g.ts, &g.cmp, 1, 5000);
    ck_assert_int_eq(json_integer_value(json_object_get(w, "delivered")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(w, "failures")), 0);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(w, "last_delivery"), "combat_id")),
                     id);
    json_decref(w);
    /* What Discord was sent: the combat's report, once. */
    ck_assert_int_eq(rcv_wait(rcv, 1, 1000), 1);
    rcv_get(rcv, 0, &q);
    ck_assert_str_eq(q.method, "POST");
    ck_assert_str_eq(q.path, "/api/webhooks/" NRIG_HOOK_ID "/" NRIG_TOKEN);
    msg = json_loads(q.body, 0, NULL);
    ck_assert_ptr_nonnull(msg);
    embed = json_array_get(json_object_get(msg, "embeds"), 0);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", g.cmp.id, id);
    cb = ts_call(g.ts, 200, "GET", path, g.cmp.player[0], NULL);
    ck_assert_str_eq(
        json_string_value(json_object_get(embed, "description")),
        json_string_value(json_object_get(cb, "summary_markdown")));
    text = json_dumps(embed, 0);
    ck_assert_msg(strstr(text, path) && strstr(text, "from Discord"), "%s",
                  text);
    free(text);
    json_decref(cb);
    json_decref(msg);
    rcv_request_cleanup(&q);
    ck_assert_int_eq(rcv_wait(rcv, 2, 200), 1);
}
END_TEST

/* /odds works its odds out on the odds' own threads, as the odds routes
 * do, not on the request worker that read the interaction: with those
 * threads and their queue full (one thread, one waiting), an /odds is
 * answered at once with the service's busy as a notice, and once they
 * are free, with the odds. */
static void setup_odds_threads(void)
{
    http_config cfg;

    http_config_default(&cfg);
    cfg.port = 0;
    cfg.access_log = "off";
    cfg.odds_threads = 1;
    cfg.odds_queue = 1;
    discord_rig_start_config(&g, &cfg);
}

static json_t *odds_command(void)
{
    return discord_rig_command(
        &g, DISCORD_RIG_PLAYER, "odds",
        "[{\"name\":\"scrud\",\"type\":1,\"options\":["
        "{\"name\":\"side_a\",\"type\":3,\"value\":\"R1, R2\"},"
        "{\"name\":\"side_b\",\"type\":3,\"value\":\"B1\"}]}]");
}

START_TEST(test_odds_on_the_odds_threads)
{
    http_resp resp;
    int fds[2], i;
    json_t *r;

    units();
    discord_rig_link(&g);
    for (i = 0; i < 2; i++) {
        /* The most samples (about 0.4 s of work here), 10 ms apart, so
         * that the thread and the queue are still full on a machine
         * several times faster. */
        ck_assert_int_ge(fds[i] = edges_send_slow_odds(g.ts, 1000000), 0);
        usleep(10 * 1000);
    }
    r = odds_command();
    discord_rig_assert_notice(r, "too many odds are waiting");
    json_decref(r);
    for (i = 0; i < 2; i++) {
        memset(&resp, 0, sizeof resp);
        ck_assert_int_eq(edges_read_one(fds[i], 20, &resp), 0);
        ck_assert_int_eq(resp.status, 200);
        http_resp_cleanup(&resp);
        close(fds[i]);
    }
    r = odds_command();
    ck_assert_int_eq(json_integer_value(json_object_get(r, "type")), 4);
    ck_assert_int_eq(
        json_array_size(json_object_get(json_object_get(r, "data"), "embeds")),
        1);
    json_decref(r);
    /* Odds that waited longer than Discord can wait for them: busy. */
    discord_odds_set_wait_max(0);
    r = odds_command();
    discord_odds_set_wait_max(DISCORD_ODDS_WAIT_MAX_MS);
    discord_rig_assert_notice(r, "waited too long");
    json_decref(r);
    ck_assert_uint_eq(n_combats(), 0);
}
END_TEST

Suite *suite_discord_http(void)
{
    Suite *s = suite_create("discord_http");
    TCase *t = tcase_create("endpoint");

    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 30);
    tcase_add_test(t, test_ping_is_answered_pong);
    tcase_add_test(t, test_bad_signatures_get_401);
    tcase_add_test(t, test_stale_timestamps_are_refused);
    tcase_add_test(t, test_endpoint_off_without_application);
    tcase_add_test(t, test_another_application_is_refused);
    tcase_add_test(t, test_unlinked_channel);
    tcase_add_test(t, test_link_claim_unlink_relink);
    tcase_add_test(t, test_player_cannot_roll);
    tcase_add_test(t, test_unknown_unit);
    tcase_add_test(t, test_scrud_combat_and_its_seed);
    tcase_add_test(t, test_repeated_interaction_acts_once);
    tcase_add_test(t, test_edna_and_scs);
    tcase_add_test(t, test_reads_unit_ledger_commitment_check);
    tcase_add_test(t, test_autocomplete);
    tcase_add_test(t, test_odds_scrud_as_the_route_answers);
    tcase_add_test(t, test_odds_unknown_unit_and_public);
    suite_add_tcase(s, t);
    /* Its own server, posting to a stand-in for Discord. */
    t = tcase_create("channel posts");
    tcase_add_checked_fixture(t, setup_posts, teardown_posts);
    tcase_set_timeout(t, 30);
    tcase_add_test(t, test_command_combat_posted_to_webhook);
    suite_add_tcase(s, t);
    /* Its own server, the odds' threads one and their queue one. */
    t = tcase_create("odds threads");
    tcase_add_checked_fixture(t, setup_odds_threads, teardown);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_odds_on_the_odds_threads);
    suite_add_tcase(s, t);
    return s;
}
