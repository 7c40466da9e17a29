/*
 * test_scrud_http.c: SCRUD combats end to end over HTTP, against the rules
 * (docs/rules/scrud.md, dice.md): seeded dice re-derived from the revealed
 * seed, replay and tamper detection, all-or-nothing refusals, campaign
 * options, reserves and die faces, route separation, resupply.  The worked
 * examples of the test vectors are in test_scrud_vectors.c; both use
 * rig.h.
 */
#include "db_fixture.h"
#include "harness.h"
#include "rig.h"
#include "rng.h"
#include "suites.h"

#include <check.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shorthands for jansson lookups (borrowed; NULL when absent). */
static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static json_t *at(const json_t *a, size_t i)
{
    return json_array_get(a, i);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* A campaign unit is in play with these penalties and modifier. */
static void check_unit(const test_campaign *c, const char *id, int defeat,
                       int fatigue, int modifier)
{
    json_t *u = rig_cget(c, "units/%s", id), *sc = get(u, "scrud");

    RIG_IS_TRUE(json_is_false(get(u, "eliminated")));
    RIG_EQ_INT(rig_inum(sc, "defeat_penalty"), defeat);
    RIG_EQ_INT(rig_inum(sc, "fatigue_penalty"), fatigue);
    RIG_EQ_INT(rig_inum(sc, "modifier"), modifier);
    json_decref(u);
}

/* Asserts a 422 problem with code and field (either may be NULL). */
static void expect_problem(const json_t *p, const char *code, const char *field)
{
    RIG_IS_TRUE(p != NULL);
    RIG_EQ_INT(rig_inum(p, "status"), 422);
    if (code)
        RIG_EQ_STR(str(p, "code"), code);
    if (field)
        RIG_EQ_STR(str(p, "field"), field);
}
/* ---- 3. Seeded dice: the commitment and every natural re-derived ---- */

/* Each unit's faces are the number after its first letter. */
#define SEEDED_BODY                                                            \
    "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a6\"},"                \
    "{\"name\":\"a10\",\"faces\":10},{\"name\":\"a20\",\"faces\":20,"          \
    "\"quality\":1},{\"name\":\"a100\",\"faces\":100},{\"name\":\"a6x\"}]},"   \
    "{\"name\":\"b\",\"units\":[{\"name\":\"b2\",\"faces\":2},"                \
    "{\"name\":\"b12\",\"faces\":12},{\"name\":\"b1000\",\"faces\":1000},"     \
    "{\"name\":\"b8\",\"faces\":8,\"reserve\":true},{\"name\":\"b6\"}]}],"     \
    "\"dice\":{\"source\":\"seeded\",\"client_seed\":\"discord:42\"}}"

START_TEST(test_seeded_dice_verifiable)
{
    json_t *rep =
        ts_call(rig_ts, 201, "POST", "/v1/combats/scrud", NULL, SEEDED_BODY);
    json_t *rep2, *dice = get(rep, "dice"), *rolls = get(rep, "rolls"), *r;
    uint8_t seed[RNG_SEED_LEN], hash[crypto_hash_sha256_BYTES];
    char hex[2 * crypto_hash_sha256_BYTES + 1];
    const char *cs = "discord:42";
    rng_v1 rng, plain;
    size_t i;
    int n_differ = 0;

    snprintf(rig_ctx, sizeof rig_ctx, "seeded one-off");
    RIG_EQ_STR(str(dice, "source"), "seeded");
    RIG_EQ_STR(str(dice, "rng"), "v1");
    RIG_EQ_STR(str(dice, "client_seed"), cs);
    RIG_IS_TRUE(json_is_true(get(dice, "verifiable")));
    ck_assert_ptr_nonnull(str(dice, "server_seed"));
    RIG_EQ_INT(strlen(str(dice, "server_seed")), 2 * RNG_SEED_LEN);
    ck_assert_int_eq(rng_unhex(str(dice, "server_seed"), seed, sizeof seed), 0);
    crypto_hash_sha256(hash, seed, sizeof seed);
    sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
    RIG_EQ_STR(str(dice, "commitment"), hex);
    /* One die per unit, re-derived in log order from seed and client seed */
    RIG_EQ_INT(json_array_size(rolls), 10);
    rng_v1_init(&rng, seed, (const uint8_t *)cs, strlen(cs));
    rng_v1_init(&plain, seed, NULL, 0);
    json_array_foreach(rolls, i, r)
    {
        const char *unit = str(r, "unit");
        int faces = (int)rig_inum(r, "faces"),
            natural = (int)rig_inum(r, "natural");
        json_t *u = rig_report_unit(rep, unit);
        snprintf(rig_ctx, sizeof rig_ctx, "seeded roll %zu (%s)", i + 1, unit);
        RIG_EQ_INT(rig_inum(r, "seq"), (long long)i + 1);
        RIG_EQ_STR(str(r, "source"), "seeded");
        RIG_EQ_STR(str(r, "rng"), "v1");
        RIG_EQ_INT(faces, atoi(unit + 1));
        RIG_IS_TRUE(natural >= 1 && natural <= faces);
        RIG_EQ_INT(natural, rng_v1_die(&rng, faces));
        RIG_EQ_INT(natural, rig_inum(u, "natural"));
        RIG_EQ_INT(rig_inum(r, "modified"), rig_inum(u, "score"));
        RIG_EQ_STR(str(r, "reason"), json_is_true(get(u, "reserve"))
                                         ? "scrud.reserve"
                                         : "scrud.front");
        if (rng_v1_die(&plain, faces) != natural)
            n_differ++;
    }
    rng_v1_cleanup(&rng);
    rng_v1_cleanup(&plain);
    snprintf(rig_ctx, sizeof rig_ctx, "seeded one-off");
    RIG_IS_TRUE(n_differ > 0); /* the client seed is mixed in */
    /* A second combat draws a new seed */
    rep2 = ts_call(rig_ts, 201, "POST", "/v1/combats/scrud", NULL, SEEDED_BODY);
    RIG_IS_TRUE(strcmp(str(get(rep2, "dice"), "server_seed"),
                       str(dice, "server_seed")) != 0);
    RIG_IS_TRUE(strcmp(str(get(rep2, "dice"), "commitment"),
                       str(dice, "commitment")) != 0);
    json_decref(rep2);
    json_decref(rep);
}
END_TEST

/* Request bodies of campaign combats, written compactly. */
#define U(n, d)        "{\"unit\":\"" n "\",\"die\":" #d "}"
#define RES(n, d)      "{\"unit\":\"" n "\",\"reserve\":true,\"die\":" #d "}"
#define SIDE(s, units) "{\"side\":\"" s "\",\"units\":[" units "]}"
#define ENTERED(s0, s1)                                                        \
    "{\"sides\":[" s0 "," s1 "],\"dice\":{\"source\":\"entered\"}}"
#define ENTERED_OPTS(s0, s1, opts)                                             \
    "{\"sides\":[" s0 "," s1 "],\"dice\":{\"source\":\"entered\"},"            \
    "\"options\":" opts "}"

/* The sides of most hand-made campaigns. */
static const char *const AB[] = {"a", "b", NULL};

/* ---- 4. Replay sees a roll altered in the database ---- */

/* Whether some difference of the replay rp holds what. */
static bool differs(const json_t *rp, const char *what)
{
    json_t *d;
    size_t i;

    json_array_foreach(get(rp, "differences"), i, d)
    {
        if (strstr(json_string_value(d), what) != NULL)
            return true;
    }
    fprintf(stderr, "%s: no difference holds \"%s\": %s\n", rig_ctx, what,
            json_dumps(get(rp, "differences"), 0));
    return false;
}

/* A one-off of A1 (quality q) against B1, entered dice 2 and 5: its
 * answer (201), new. */
static json_t *a1_against_b1(int q)
{
    char body[256];

    snprintf(body, sizeof body,
             "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"A1\","
             "\"quality\":%d,\"die\":2}]},{\"name\":\"b\",\"units\":[{"
             "\"name\":\"B1\",\"die\":5}]}],\"dice\":{\"source\":"
             "\"entered\"}}",
             q);
    return rig_call(201, "POST", NULL, body, "/v1/combats/scrud");
}

/* rig_packed_rolls_edit: B1's roll (the second) a 4, modified 4. */
static void b1_rolled_4(db_roll *rolls, size_t *n, void *ctx)
{
    (void)ctx;
    ck_assert_uint_eq(*n, 2);
    ck_assert_str_eq(rolls[1].unit_name, "B1");
    rolls[1].natural = 4;
    rolls[1].modified = 4;
}

START_TEST(test_replay_detects_tampering)
{
    test_campaign c;
    json_t *rep, *back, *rp;
    char path[160];

    ts_campaign(rig_ts, &c, NULL, AB);
    ts_unit(rig_ts, &c, "A1", "a", 0, 6, NULL);
    ts_unit(rig_ts, &c, "B1", "b", 0, 6, NULL);
    rep = rig_campaign_combat(
        &c, 201, ENTERED(SIDE("a", U("A1", 2)), SIDE("b", U("B1", 5))));
    snprintf(rig_ctx, sizeof rig_ctx, "tamper");
    RIG_EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "second");
    RIG_EQ_STR(str(at(get(rep, "rolls"), 0), "unit"), "A1");
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id,
             str(rep, "id"));
    rig_check_replay(path, c.umpire);
    /* A1's 2 becomes a 6: A1 would now win the pair */
    RIG_EQ_INT(rig_edit_roll(str(rep, "id"), 1, "6"), 1);
    back = rig_call(200, "GET", c.umpire, NULL, "%s", path);
    RIG_EQ_INT(rig_inum(at(get(back, "rolls"), 0), "natural"), 6); /* it took */
    json_decref(back);
    rp = rig_call(200, "POST", c.umpire, NULL, "%s/replay", path);
    RIG_IS_TRUE(json_is_false(get(rp, "reproduced")));
    RIG_IS_TRUE(json_array_size(get(rp, "differences")) > 0);
    RIG_EQ_STR(str(rp, "combat_id"), str(rep, "id"));
    json_decref(rp);
    json_decref(rep);

    /* The same with a one-off, whose rolls are packed in its row, in the
     * compact layout, and which is stored as its facts (db.h), the dice
     * it drew with them: the roll altered there, the report, rendered
     * from the facts, still says what the combat was; replay finds the
     * log otherwise. */
    snprintf(rig_ctx, sizeof rig_ctx, "tamper a one-off");
    rep = a1_against_b1(0);
    snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM combats WHERE id = ? AND "
                          "substr(rolls, 1, 4) = ?",
                          TS_TEXT(str(rep, "id")), TS_BLOB("\x1brc1", 4)),
               1);
    rig_check_replay(path, NULL);
    RIG_EQ_INT(rig_edit_roll(str(rep, "id"), 1, "6"), 1);
    back = rig_call(200, "GET", NULL, NULL, "%s", path);
    RIG_EQ_INT(rig_inum(at(get(back, "rolls"), 0), "natural"), 6);
    RIG_EQ_STR(str(at(get(back, "pairs"), 0), "winner"), "second");
    json_decref(back);
    rp = rig_call(200, "POST", NULL, NULL, "%s/replay", path);
    RIG_IS_TRUE(json_is_false(get(rp, "reproduced")));
    /* the die the combat drew, the outcome the log gives, the altered
     * roll's modified value */
    RIG_IS_TRUE(differs(rp, "roll 1: natural 6 in the log, 2 at the combat"));
    RIG_IS_TRUE(differs(rp, "the pairs differ from the stored report"));
    RIG_IS_TRUE(differs(rp, "roll 1: modified 6 now, 2 in the log"));
    json_decref(rp);
    json_decref(rep);

    /* B1's 5 made a 4, its modified value with it: the outcome stays,
     * the die the combat drew says otherwise. */
    snprintf(rig_ctx, sizeof rig_ctx, "tamper a one-off, consistently");
    rep = a1_against_b1(0);
    snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
    RIG_EQ_INT(rig_packed_rolls_edit(str(rep, "id"), b1_rolled_4, NULL), 1);
    rp = rig_call(200, "POST", NULL, NULL, "%s/replay", path);
    RIG_IS_TRUE(json_is_false(get(rp, "reproduced")));
    RIG_IS_TRUE(differs(rp, "roll 2: natural 4 in the log, 5 at the combat"));
    RIG_IS_TRUE(differs(rp, "the sides differ from the stored report"));
    json_decref(rp);

    /* A die its faces cannot show: the combat still reads as it was (its
     * log as it is now), and replay says the dice do not fit. */
    snprintf(rig_ctx, sizeof rig_ctx, "tamper a one-off, past its faces");
    RIG_EQ_INT(rig_edit_roll(str(rep, "id"), 1, "9"), 1);
    back = rig_call(200, "GET", NULL, NULL, "%s", path);
    RIG_EQ_INT(rig_inum(at(get(back, "rolls"), 0), "natural"), 9);
    RIG_EQ_INT(rig_inum(rig_report_unit(back, "A1"), "natural"), 2);
    json_decref(back);
    rp = rig_call(200, "POST", NULL, NULL, "%s/replay", path);
    RIG_IS_TRUE(json_is_false(get(rp, "reproduced")));
    RIG_IS_TRUE(differs(rp, "roll 1: natural 9 in the log, 2 at the combat"));
    RIG_IS_TRUE(differs(rp, "the logged dice do not fit the combat"));
    json_decref(rp);
    json_decref(rep);
}
END_TEST

/* ---- 4b. A one-off is stored as its facts ---- */

/* A one-off's row holds its facts (db.h) in its report's place: a few
 * hundred bytes, tagged; the combat reads back byte for byte as it was
 * answered, its report rendered from them and its logged dice; a value
 * damaged there is an error that says so, and facts of another combat
 * put there render that combat's input with this one's dice, which
 * replay finds. */
/* The result a unit's history event serves for the unit named name of
 * the combat report rep, of side: its entry of the report with its
 * system and side (new). */
static json_t *result_want(const json_t *rep, const char *name,
                           const char *side)
{
    json_t *want = json_deep_copy(rig_report_unit(rep, name));

    ck_assert_ptr_nonnull(want);
    json_object_set_new(want, "system", json_string("scrud"));
    json_object_set_new(want, "side", json_string(side));
    return want;
}

/* The result unit_id's history serves for the combat combat_id, the
 * campaign's newest: want, and named name where name is not NULL; and so
 * in the feed, whose newest n_feed events are the combat's (its units',
 * asked in turn).  The feed's events, new, for the caller's checks. */
static json_t *result_served(const test_campaign *c, const char *combat_id,
                             const char *unit_id, const json_t *want,
                             const char *name, size_t n_feed)
{
    json_t *rep, *items;
    size_t k, n_unit = 0;

    rep = rig_call(200, "GET", c->umpire, NULL,
                   "/v1/campaigns/%s/units/%s/history?order=newest&limit=1",
                   c->id, unit_id);
    RIG_EQ_INT(json_array_size(get(rep, "items")), 1);
    RIG_EQ_STR(str(at(get(rep, "items"), 0), "combat_id"), combat_id);
    RIG_IS_TRUE(json_equal(get(at(get(rep, "items"), 0), "result"), want));
    if (name != NULL)
        RIG_EQ_STR(str(get(at(get(rep, "items"), 0), "result"), "unit"), name);
    json_decref(rep);
    rep = rig_call(200, "GET", c->umpire, NULL,
                   "/v1/campaigns/%s/history?order=newest&limit=%zu", c->id,
                   n_feed);
    items = json_incref(get(rep, "items"));
    json_decref(rep);
    RIG_EQ_INT(json_array_size(items), n_feed);
    for (k = 0; k < n_feed; k++) {
        json_t *ev = at(items, k);
        RIG_EQ_STR(str(ev, "combat_id"), combat_id);
        if (strcmp(str(ev, "unit_id"), unit_id) == 0) {
            RIG_IS_TRUE(json_equal(get(ev, "result"), want));
            n_unit++;
        }
    }
    RIG_EQ_INT(n_unit, 1);
    return items;
}

START_TEST(test_oneoff_stored_as_facts)
{
    /* Every kind of fact: options, a side's modifier, names that JSON and
     * Markdown escape, faces, reserves, penalties, seeded dice. */
    static const char body[] =
        "{\"sides\":[{\"name\":\"Bl\\\"ue *1*\",\"modifier\":1,\"units\":["
        "{\"name\":\"Guard\",\"quality\":3},"
        "{\"name\":\"Line \\u00e9\",\"quality\":1,\"defeat_penalty\":1},"
        "{\"name\":\"Light\",\"quality\":2,\"fatigue_penalty\":1},"
        "{\"name\":\"Militia\",\"quality\":-1},"
        "{\"name\":\"Hussars\",\"quality\":2,\"faces\":8},"
        "{\"name\":\"Guns\",\"quality\":1,\"reserve\":true}]},"
        "{\"name\":\"Red\",\"modifier\":-1,\"units\":["
        "{\"name\":\"Old Guard\",\"quality\":4,\"modifier\":1},"
        "{\"name\":\"Fusiliers\",\"quality\":2,\"defeat_penalty\":1},"
        "{\"name\":\"Cuirassiers\",\"quality\":3,\"faces\":10,"
        "\"reserve\":true}]}],"
        "\"options\":{\"cap\":7,\"floor\":null,\"extra_dice\":\"half\","
        "\"max_penalty_per_combat\":2,\"eliminate_below\":-3},"
        "\"note\":\"facts\"}";
    static const unsigned char damaged[] = {0x1b, 'f', 'c', '1', 2,
                                            0,    0,   1,   2,   3};
    http_resp posted, back;
    char path[160], id[64], other[64], a1[64], *docs;
    test_campaign c;
    json_t *rep, *rp, *want;
    size_t i;
    int k;

    /* And the rest: entered dice (a note of their own in the Markdown),
     * the other options, a client seed. */
    static const char entered[] =
        "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"A1\","
        "\"quality\":1,\"die\":1},{\"name\":\"A2\",\"die\":6,"
        "\"defeat_penalty\":2}]},{\"name\":\"b\",\"units\":[{\"name\":"
        "\"B1\",\"die\":6,\"faces\":12}]}],\"dice\":{\"source\":"
        "\"entered\"},\"options\":{\"attrition\":false,"
        "\"defeats_per_elimination\":2,\"cap\":null,"
        "\"extra_dice\":\"ignore\"}}";
    static const char client_seed[] =
        "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"A1\"},"
        "{\"name\":\"A2\",\"fatigue_penalty\":1}]},{\"name\":\"b\","
        "\"units\":[{\"name\":\"B1\",\"quality\":-2}]}],\"dice\":{"
        "\"source\":\"seeded\",\"client_seed\":\"table 7\"},"
        "\"options\":{\"defeats_per_elimination\":0,\"floor\":2}}";
    const char *const bodies[] = {body, entered, client_seed, body, body};

    for (k = 0; k < 5; k++) {
        snprintf(rig_ctx, sizeof rig_ctx, "facts %d", k);
        ck_assert_int_eq(ts_request(rig_ts, "POST", "/v1/combats/scrud", NULL,
                                    bodies[k], &posted),
                         0);
        RIG_EQ_INT(posted.status, 201);
        snprintf(id, sizeof id, "%s", str(posted.json, "id"));
        RIG_EQ_INT(ts_sql_int(rig_ts,
                              "SELECT count(*) FROM combats WHERE id = ? AND "
                              "substr(report, 1, 4) = ? AND "
                              "length(report) < 400",
                              TS_TEXT(id),
                              TS_BLOB("\x1b"
                                      "fc1",
                                      4)),
                   1);
        snprintf(path, sizeof path, "/v1/combats/%s", id);
        ck_assert_int_eq(ts_request(rig_ts, "GET", path, NULL, NULL, &back), 0);
        RIG_EQ_INT(back.status, 200);
        RIG_EQ_STR(back.body, posted.body);
        http_resp_cleanup(&back);
        http_resp_cleanup(&posted);
        rig_check_replay(path, NULL);
    }

    /* The value damaged: its checksum fails, and the read fails (the log
     * says why: the client is told a database error). */
    snprintf(rig_ctx, sizeof rig_ctx, "facts damaged");
    RIG_EQ_INT(ts_sql_exec(rig_ts, "UPDATE combats SET report = ? WHERE id = ?",
                           TS_BLOB(damaged, sizeof damaged), TS_TEXT(id)),
               1);
    rep = rig_call(500, "GET", NULL, NULL, "%s", path);
    RIG_EQ_STR(str(rep, "code"), "database_error");
    json_decref(rep);

    /* Another combat's facts (its A1 of quality 0, not 4): this one reads
     * back with them and its own row (id, time, dice source), and replay
     * finds the logged dice modified otherwise. */
    snprintf(rig_ctx, sizeof rig_ctx, "facts of another combat");
    rep = a1_against_b1(4);
    snprintf(id, sizeof id, "%s", str(rep, "id"));
    RIG_EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "first");
    json_decref(rep);
    rep = a1_against_b1(0);
    snprintf(other, sizeof other, "%s", str(rep, "id"));
    json_decref(rep);
    RIG_EQ_INT(ts_sql_exec(rig_ts,
                           "UPDATE combats SET report = (SELECT report FROM "
                           "combats WHERE id = ?) WHERE id = ?",
                           TS_TEXT(other), TS_TEXT(id)),
               1);
    snprintf(path, sizeof path, "/v1/combats/%s", id);
    rep = rig_call(200, "GET", NULL, NULL, "%s", path);
    RIG_EQ_STR(str(rep, "id"), id);
    RIG_EQ_INT(rig_inum(rig_report_unit(rep, "A1"), "quality"), 0);
    RIG_EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "second");
    json_decref(rep);
    rp = rig_call(200, "POST", NULL, NULL, "%s/replay", path);
    RIG_IS_TRUE(json_is_false(get(rp, "reproduced")));
    RIG_IS_TRUE(json_array_size(get(rp, "differences")) >= 1);
    json_decref(rp);

    /* A campaign combat too: its facts name its sides and units by id and
     * hold their penalties before; its history documents are packed in
     * their own value (not after a report); it reads back byte for byte,
     * and each unit's history holds its entry of the report. */
    snprintf(rig_ctx, sizeof rig_ctx, "campaign facts");
    ts_campaign(rig_ts, &c, NULL, AB);
    ts_unit(rig_ts, &c, "A1", "a", 2, 6, a1);
    ts_unit(rig_ts, &c, "B1", "b", 1, 8, NULL);
    for (k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c.id);
        ck_assert_int_eq(
            ts_request(rig_ts, "POST", path, c.umpire,
                       k == 2
                           ? "{\"sides\":[{\"side\":\"a\",\"units\":["
                             "{\"unit\":\"A1\"}]},{\"side\":\"b\","
                             "\"modifier\":2,\"units\":[{\"unit\":\"B1\"}]}],"
                             "\"options\":{\"max_penalty_per_combat\":2}}"
                           : "{\"sides\":[{\"side\":\"a\",\"units\":["
                             "{\"unit\":\"A1\"}]},{\"side\":\"b\","
                             "\"units\":[{\"unit\":\"B1\"}]}]}",
                       &posted),
            0);
        RIG_EQ_INT(posted.status, 201);
        snprintf(id, sizeof id, "%s", str(posted.json, "id"));
        RIG_EQ_INT(ts_sql_int(rig_ts,
                              "SELECT count(*) FROM combats WHERE id = ? AND "
                              "substr(report, 1, 4) = ? AND "
                              "substr(unit_docs, 1, 4) = ?",
                              TS_TEXT(id),
                              TS_BLOB("\x1b"
                                      "fc1",
                                      4),
                              TS_BLOB("\x1b"
                                      "ud1",
                                      4)),
                   1);
        snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id, id);
        ck_assert_int_eq(ts_request(rig_ts, "GET", path, c.umpire, NULL, &back),
                         0);
        RIG_EQ_INT(back.status, 200);
        RIG_EQ_STR(back.body, posted.body);
        /* The history documents hold each unit's state, not its result,
         * which the combat gives again: A1's history and the campaign's
         * feed serve its entry of the report, with its system and side. */
        docs = ts_sql_doc(rig_ts, "SELECT unit_docs FROM combats WHERE id = ?",
                          TS_TEXT(id));
        ck_assert_ptr_nonnull(docs);
        RIG_IS_TRUE(strstr(docs, "\"name\":\"A1\"") != NULL);
        RIG_IS_TRUE(strstr(docs, "\"natural\"") == NULL);
        free(docs);
        want = result_want(posted.json, "A1", "a");
        rep = result_served(&c, id, a1, want, NULL, 2);
        for (i = 0; i < 2; i++) {
            json_t *ev = at(rep, i);
            if (strcmp(str(ev, "unit_id"), a1) != 0)
                RIG_EQ_STR(str(get(ev, "result"), "unit"), "B1");
        }
        json_decref(rep);
        json_decref(want);
        if (k < 2) {
            http_resp_cleanup(&back);
            http_resp_cleanup(&posted);
            rig_check_replay(path, c.umpire);
        }
    }
    /* The last one's A1 roll altered in its log: A1's history still holds
     * the result the combat gave, and so does its report (the log shows
     * the roll as it is now); replay finds it.  (The ledger's hashes find
     * it too: docs/ledger.md.) */
    snprintf(rig_ctx, sizeof rig_ctx, "campaign facts, a roll altered");
    rep = rig_call(200, "GET", c.umpire, NULL,
                   "/v1/campaigns/%s/units/%s/history?order=newest&limit=1",
                   c.id, a1);
    want = json_deep_copy(get(at(get(rep, "items"), 0), "result"));
    json_decref(rep);
    RIG_EQ_INT(rig_edit_roll(id, 1, "9"), 1);
    rep = rig_call(200, "GET", c.umpire, NULL,
                   "/v1/campaigns/%s/units/%s/history?order=newest&limit=1",
                   c.id, a1);
    RIG_IS_TRUE(json_equal(get(at(get(rep, "items"), 0), "result"), want));
    json_decref(rep);
    rep = rig_call(200, "GET", c.umpire, NULL, "%s", path);
    RIG_IS_TRUE(json_equal(get(rep, "sides"), get(posted.json, "sides")));
    RIG_EQ_INT(rig_inum(at(get(rep, "rolls"), 0), "natural"), 9);
    json_decref(rep);
    rp = rig_call(200, "POST", c.umpire, NULL, "%s/replay", path);
    RIG_IS_TRUE(json_is_false(get(rp, "reproduced")));
    RIG_IS_TRUE(differs(rp, "in the log"));
    json_decref(rp);
    json_decref(want);
    http_resp_cleanup(&back);
    http_resp_cleanup(&posted);
}
END_TEST

/* A campaign combat stored before its facts were (migration 24), its
 * history documents in a frame packed after its report (as before
 * migration 20): its report, read first on either store, and its units'
 * histories read back. */
START_TEST(test_history_docs_after_report)
{
    test_campaign c;
    char a1[64], id[64], path[192], *docs, *report;
    unsigned char *z;
    size_t zlen;
    json_t *rep, *stored, *h, *ev;

    snprintf(rig_ctx, sizeof rig_ctx, "documents after the report");
    ts_campaign(rig_ts, &c, NULL, AB);
    ts_unit(rig_ts, &c, "A1", "a", 1, 6, a1);
    ts_unit(rig_ts, &c, "B1", "b", 0, 6, NULL);
    rep = rig_campaign_combat(
        &c, 201, ENTERED(SIDE("a", U("A1", 4)), SIDE("b", U("B1", 2))));
    snprintf(id, sizeof id, "%s", str(rep, "id"));
    docs = ts_sql_doc(rig_ts, "SELECT unit_docs FROM combats WHERE id = ?",
                      TS_TEXT(id));
    ck_assert_ptr_nonnull(docs);
    /* The report as it was stored: the answer less its ledger and rolls. */
    stored = json_deep_copy(rep);
    json_object_del(stored, "ledger");
    json_object_del(stored, "rolls");
    report = json_dumps(stored, JSON_COMPACT);
    ck_assert_ptr_nonnull(z = db_fixture_pack_after(docs, report, &zlen));
    RIG_EQ_INT(ts_sql_exec(rig_ts,
                           "UPDATE combats SET report = ?, unit_docs = ? "
                           "WHERE id = ?",
                           TS_BLOB(report, strlen(report)), TS_BLOB(z, zlen),
                           TS_TEXT(id)),
               1);
    h = rig_call(200, "GET", c.umpire, NULL,
                 "/v1/campaigns/%s/units/%s/history?order=newest&limit=1", c.id,
                 a1);
    ev = at(get(h, "items"), 0);
    RIG_EQ_STR(str(ev, "combat_id"), id);
    RIG_EQ_STR(str(get(ev, "before"), "name"), "A1");
    RIG_IS_TRUE(json_is_null(get(ev, "result"))); /* none was stored */
    json_decref(h);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id, id);
    h = rig_call(200, "GET", c.umpire, NULL, "%s", path);
    RIG_IS_TRUE(json_equal(h, rep));
    json_decref(h);
    free(z);
    free(report);
    free(docs);
    json_decref(stored);
    json_decref(rep);
}
END_TEST

/* ---- 5. A refused combat changes nothing ---- */

typedef struct refusal {
    const char *body, *code, *field;
} refusal;

static const refusal refusals[] = {
    /* B2 is eliminated (by correction); every other unit is fine */
    {ENTERED(SIDE("a", U("A1", 3) "," U("A3", 4)),
             SIDE("b", U("B1", 2) "," U("B2", 5))),
     "rule_violation", "sides[1].units[1]"},
    {"{\"sides\":[" SIDE("a", U("A1", 3)) "," SIDE(
         "b", "{\"unit\":\"B1\"}") "],\"dice\":{\"source\":\"entered\"}}",
     "missing_field", "sides[1].units[0].die"},
    {ENTERED(SIDE("a", U("A1", 3) "," U("A3", 7)), SIDE("b", U("B1", 2))),
     "out_of_range", "sides[0].units[1].die"},
    {ENTERED(SIDE("a", U("A1", 0)), SIDE("b", U("B1", 2))), "out_of_range",
     "sides[0].units[0].die"},
    {"{\"sides\":[" SIDE("a", U("A1", 3)) "," SIDE(
         "b", U("B1", 2)) "],\"dice\":{\"source\":\"seeded\"}}",
     NULL, "sides[0].units[0].die"},
    {"{\"sides\":[" SIDE("a", U("A1", 3)) "," SIDE("b", U("B1", 2)) "]}", NULL,
     "sides[0].units[0].die"},
    {ENTERED(SIDE("a", U("A1", 3) "," U("A1", 4)), SIDE("b", U("B1", 2))), NULL,
     "sides[0].units[1].unit"},
    {ENTERED(SIDE("a", U("A1", 3)), SIDE("b", U("B1", 2) "," U("A1", 4))), NULL,
     "sides[1].units[1].unit"},
    {ENTERED(SIDE("a", U("A1", 3) "," U("B1", 4)), SIDE("b", U("C1", 2))), NULL,
     "sides[0].units[1].unit"},
    {"{\"sides\":[" SIDE("a", U("A1", 3)) "," SIDE("b", U("B1", 2)) "," SIDE(
         "c", U("C1", 2)) "],\"dice\":{\"source\":\"entered\"}}",
     NULL, NULL},
    {ENTERED(SIDE("a", U("A1", 3)), SIDE("a", U("A3", 2))), NULL,
     "sides[1].side"},
};

/* Posts a refused combat and asserts that nothing changed. */
static void refuse(const test_campaign *c, const char *body, const char *code,
                   const char *field, const json_t *units0,
                   const json_t *combats0)
{
    json_t *p, *u, *cb;

    snprintf(rig_ctx, sizeof rig_ctx, "refusal %.170s", body);
    p = rig_campaign_combat(c, 422, body);
    expect_problem(p, code, field);
    u = rig_cget(c, "units");
    cb = rig_cget(c, "combats");
    RIG_IS_TRUE(json_equal(u, units0));
    RIG_IS_TRUE(json_equal(cb, combats0));
    json_decref(p);
    json_decref(u);
    json_decref(cb);
}

START_TEST(test_all_or_nothing)
{
    static const char *const sides[] = {"a", "b", "c", NULL};
    static const char *const names[] = {"A1", "A3", "B1", "B2", "C1"};
    char ids[5][64], body[512];
    json_t *units0, *combats0, *hist0[5], *x;
    test_campaign c;
    size_t i;

    ts_campaign(rig_ts, &c, NULL, sides);
    for (i = 0; i < 5; i++)
        ts_unit(rig_ts, &c, names[i],
                i < 2   ? "a"
                : i < 4 ? "b"
                        : "c",
                0, 6, ids[i]);
    ts_unit(rig_ts, &c, "A2", "a", 0, 6, NULL);
    json_decref(rig_campaign_combat(
        &c, 201,
        ENTERED(SIDE("a", U("A1", 4) "," U("A2", 1)), SIDE("b", U("B1", 3)))));
    x = rig_call(200, "PATCH", c.umpire, "{\"eliminated\":true}",
                 "/v1/campaigns/%s/units/%s", c.id, ids[3]);
    snprintf(rig_ctx, sizeof rig_ctx, "correction");
    RIG_IS_TRUE(json_is_true(get(x, "eliminated")));
    RIG_EQ_STR(str(x, "eliminated_reason"), "correction");
    json_decref(x);
    units0 = rig_cget(&c, "units");
    combats0 = rig_cget(&c, "combats");
    RIG_EQ_INT(json_array_size(get(combats0, "items")), 1);
    for (i = 0; i < 5; i++)
        hist0[i] = rig_cget(&c, "units/%s/history", ids[i]);
    for (i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
        refuse(&c, refusals[i].body, refusals[i].code, refusals[i].field,
               units0, combats0);
    /* the same unit by name and by id; the same side by name and by id */
    snprintf(body, sizeof body,
             ENTERED(SIDE("a", U("A1", 3) ",{\"unit\":\"%s\",\"die\":4}"),
                     SIDE("b", U("B1", 2))),
             ids[0]);
    refuse(&c, body, NULL, "sides[0].units[1].unit", units0, combats0);
    snprintf(body, sizeof body,
             ENTERED(SIDE("a", U("A1", 3)), SIDE("%s", U("A3", 2))),
             c.side_id[0]);
    refuse(&c, body, NULL, "sides[1].side", units0, combats0);
    for (i = 0; i < 5; i++) {
        x = rig_cget(&c, "units/%s/history", ids[i]);
        snprintf(rig_ctx, sizeof rig_ctx, "history of %s after refusals",
                 names[i]);
        RIG_IS_TRUE(json_equal(x, hist0[i]));
        json_decref(x);
        json_decref(hist0[i]);
    }
    json_decref(units0);
    json_decref(combats0);
}
END_TEST

/* ---- 6. Campaign options, and request options over them ---- */

START_TEST(test_campaign_options)
{
    test_campaign c;
    json_t *rep, *cmp;
    char ids[4][64];

    ts_campaign(rig_ts, &c, "{\"attrition\":false,\"eliminate_below\":-5}", AB);
    ts_unit(rig_ts, &c, "A1", "a", 0, 6, ids[0]);
    ts_unit(rig_ts, &c, "B1", "b", 0, 6, ids[1]);
    ts_unit(rig_ts, &c, "A2", "a", -3, 6, ids[2]); /* fights only below -2 */
    ts_unit(rig_ts, &c, "B2", "b", 0, 6, ids[3]);
    /* The campaign's options: A1 is defeated without a lasting penalty */
    rep = rig_campaign_combat(
        &c, 201, ENTERED(SIDE("a", U("A1", 2)), SIDE("b", U("B1", 5))));
    snprintf(rig_ctx, sizeof rig_ctx, "campaign options");
    RIG_IS_TRUE(json_is_false(get(get(rep, "options"), "attrition")));
    RIG_EQ_INT(rig_inum(get(rep, "options"), "eliminate_below"), -5);
    RIG_EQ_INT(rig_inum(rig_report_unit(rep, "A1"), "defeats"), 1);
    RIG_EQ_INT(
        rig_inum(get(rig_report_unit(rep, "A1"), "penalties_added"), "defeat"),
        0);
    json_decref(rep);
    check_unit(&c, ids[0], 0, 0, 0);
    /* The request turns attrition on; the campaign's threshold stays */
    rep = rig_campaign_combat(&c, 201,
                              ENTERED_OPTS(SIDE("a", U("A2", 2)),
                                           SIDE("b", U("B2", 6)),
                                           "{\"attrition\":true}"));
    snprintf(rig_ctx, sizeof rig_ctx, "request options");
    RIG_IS_TRUE(json_is_true(get(get(rep, "options"), "attrition")));
    RIG_EQ_INT(rig_inum(get(rep, "options"), "eliminate_below"), -5);
    RIG_EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "second");
    json_decref(rep);
    check_unit(&c, ids[2], 1, 0, -4);
    check_unit(&c, ids[3], 0, 1, -1);
    /* The override does not stick to the campaign */
    rep = rig_campaign_combat(
        &c, 201, ENTERED(SIDE("a", U("A1", 1)), SIDE("b", U("B1", 4))));
    snprintf(rig_ctx, sizeof rig_ctx, "campaign options again");
    RIG_IS_TRUE(json_is_false(get(get(rep, "options"), "attrition")));
    json_decref(rep);
    check_unit(&c, ids[0], 0, 0, 0);
    /* A request threshold of -2 refuses A2, now at -4 */
    rep = rig_campaign_combat(&c, 422,
                              ENTERED_OPTS(SIDE("a", U("A2", 2)),
                                           SIDE("b", U("B2", 6)),
                                           "{\"eliminate_below\":-2}"));
    snprintf(rig_ctx, sizeof rig_ctx, "request threshold");
    expect_problem(rep, "rule_violation", "sides[0].units[0]");
    json_decref(rep);
    cmp = rig_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s", c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "campaign after");
    RIG_IS_TRUE(
        json_is_false(get(get(get(cmp, "options"), "scrud"), "attrition")));
    RIG_EQ_INT(rig_inum(get(get(cmp, "options"), "scrud"), "eliminate_below"),
               -5);
    json_decref(cmp);
}
END_TEST

/* ---- 7. Reserves and a d10 ---- */

START_TEST(test_reserves_and_faces)
{
    static const char *const sides[] = {"x", "y", NULL};
    static const struct {
        const char *unit;
        int bonus, score, rank; /* rank 0: a reserve */
    } want[] = {
        {"X1", 1, 4, 2}, {"X2", 2, 9, 1}, {"XR1", 0, 0, 0}, {"XR2", 0, 0, 0}};
    test_campaign c;
    char ids[6][64];
    json_t *rep, *u, *r;
    size_t i;

    ts_campaign(rig_ts, &c, NULL, sides);
    ts_unit(rig_ts, &c, "X1", "x", 0, 6, ids[0]);
    ts_unit(rig_ts, &c, "X2", "x", 0, 10, ids[1]);
    ts_unit(rig_ts, &c, "XR1", "x", 0, 6, ids[2]);
    ts_unit(rig_ts, &c, "XR2", "x", 0, 6, ids[3]);
    ts_unit(rig_ts, &c, "Y1", "y", 0, 6, ids[4]);
    ts_unit(rig_ts, &c, "Y2", "y", 0, 6, ids[5]);
    /*
     * Front line X2 7 (d10) before X1 3.  XR1 shows 1: +1 to X2 only; XR2
     * shows 6: +1 to both.  X2 9 beats Y1 4; X1 4 beats Y2 3.
     */
    rep =
        rig_campaign_combat(&c, 201,
                            ENTERED(SIDE("x", U("X1", 3) "," U("X2", 7) "," RES(
                                                  "XR1", 1) "," RES("XR2", 6)),
                                    SIDE("y", U("Y1", 4) "," U("Y2", 3))));
    for (i = 0; i < 4; i++) {
        u = rig_report_unit(rep, want[i].unit);
        snprintf(rig_ctx, sizeof rig_ctx, "reserves, %s", want[i].unit);
        RIG_EQ_INT(rig_inum(u, "reserve_bonus"), want[i].bonus);
        RIG_EQ_INT(rig_inum(u, "defeats"), 0);
        RIG_IS_TRUE(json_is_null(get(u, "eliminated")));
        RIG_IS_TRUE(json_is_false(get(u, "heavy_fighting")) ||
                    want[i].rank == 0);
        if (want[i].rank) { /* X2's 9 is capped at its 10 faces, not at 6 */
            RIG_EQ_INT(rig_inum(u, "score"), want[i].score);
            RIG_EQ_INT(rig_inum(u, "rank"), want[i].rank);
        } else {
            RIG_IS_TRUE(json_is_true(get(u, "reserve")));
            RIG_IS_TRUE(json_is_null(get(u, "rank")));
            RIG_EQ_INT(rig_inum(get(u, "penalties_added"), "fatigue"), 0);
            RIG_IS_TRUE(json_equal(get(u, "before"), get(u, "after")));
        }
    }
    snprintf(rig_ctx, sizeof rig_ctx, "reserves");
    RIG_EQ_INT(json_array_size(get(at(get(rep, "sides"), 0), "lined_up")), 2);
    RIG_EQ_INT(json_array_size(get(rep, "pairs")), 2);
    RIG_EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "first");
    RIG_EQ_STR(str(at(get(rep, "pairs"), 1), "winner"), "first");
    RIG_EQ_INT(json_array_size(get(rep, "extra")), 0);
    RIG_EQ_INT(rig_inum(at(get(rep, "sides"), 1), "defeats_suffered"), 2);
    RIG_EQ_INT(json_array_size(get(rep, "rolls")), 6);
    json_array_foreach(get(rep, "rolls"), i, r)
    {
        const char *unit = str(r, "unit");
        RIG_EQ_STR(str(r, "reason"),
                   unit[1] == 'R' ? "scrud.reserve" : "scrud.front");
        RIG_EQ_INT(rig_inum(r, "faces"), strcmp(unit, "X2") == 0 ? 10 : 6);
    }
    json_decref(rep);
    snprintf(rig_ctx, sizeof rig_ctx, "after the reserves' combat");
    check_unit(&c, ids[2], 0, 0, 0); /* the reserves are as they were */
    check_unit(&c, ids[3], 0, 0, 0);
    check_unit(&c, ids[4], 1, 0, -1);
    check_unit(&c, ids[5], 1, 0, -1);
    check_unit(&c, ids[1], 0, 0, 0);
    check_unit(&c, ids[0], 0, 0, 0);
}
END_TEST

/* ---- 8. One-off and campaign combats stay on their own routes ---- */

START_TEST(test_combat_routes_separate)
{
    test_campaign c;
    json_t *one, *camp, *p;
    const char *oid, *cid;

    ts_campaign(rig_ts, &c, NULL, AB);
    ts_unit(rig_ts, &c, "A1", "a", 0, 6, NULL);
    ts_unit(rig_ts, &c, "B1", "b", 0, 6, NULL);
    one = rig_call(201, "POST", NULL,
                   "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"A1\"}]},"
                   "{\"name\":\"b\",\"units\":[{\"name\":\"B1\"}]}]}",
                   "/v1/combats/scrud");
    camp = rig_campaign_combat(
        &c, 201,
        "{\"sides\":[" SIDE("a", "{\"unit\":\"A1\"}") "," SIDE(
            "b", "{\"unit\":\"B1\"}") "]}");
    oid = str(one, "id");
    cid = str(camp, "id");
    snprintf(rig_ctx, sizeof rig_ctx, "routes");
    p = rig_call(404, "GET", c.umpire, NULL, "/v1/campaigns/%s/combats/%s",
                 c.id, oid);
    RIG_EQ_STR(str(p, "code"), "not_found");
    json_decref(p);
    json_decref(rig_call(404, "POST", c.umpire, NULL,
                         "/v1/campaigns/%s/combats/%s/replay", c.id, oid));
    p = rig_call(404, "GET", NULL, NULL, "/v1/combats/%s", cid);
    RIG_EQ_STR(str(p, "code"), "not_found");
    json_decref(p);
    json_decref(
        rig_call(404, "POST", NULL, NULL, "/v1/combats/%s/replay", cid));
    /* Each is readable where it belongs */
    json_decref(rig_call(200, "GET", NULL, NULL, "/v1/combats/%s", oid));
    json_decref(rig_cget(&c, "combats/%s", cid));
    json_decref(one);
    json_decref(camp);
}
END_TEST

/* ---- 9. Resupply clears the fatigue of heavy fighting ---- */

START_TEST(test_resupply_after_combat)
{
    test_campaign c;
    char a1[64], b1[64];
    json_t *u, *h, *ev;

    ts_campaign(rig_ts, &c, NULL, AB);
    ts_unit(rig_ts, &c, "A1", "a", 0, 6, a1);
    ts_unit(rig_ts, &c, "B1", "b", 0, 6, b1);
    json_decref(rig_call(200, "PATCH", c.umpire,
                         "{\"scrud\":{\"defeat_penalty\":1}}",
                         "/v1/campaigns/%s/units/%s", c.id, a1));
    /* A1 rolls a 6 (scores 5 at -1) and beats B1's 2 */
    json_decref(rig_campaign_combat(
        &c, 201, ENTERED(SIDE("a", U("A1", 6)), SIDE("b", U("B1", 2)))));
    snprintf(rig_ctx, sizeof rig_ctx, "before resupply");
    check_unit(&c, a1, 1, 1, -2);
    check_unit(&c, b1, 1, 0, -1);
    u = rig_call(200, "POST", c.umpire, NULL,
                 "/v1/campaigns/%s/units/%s/resupply", c.id, a1);
    snprintf(rig_ctx, sizeof rig_ctx, "resupply answer");
    RIG_EQ_INT(rig_inum(get(u, "scrud"), "fatigue_penalty"), 0);
    RIG_EQ_INT(rig_inum(get(u, "scrud"), "defeat_penalty"), 1);
    RIG_EQ_INT(rig_inum(get(u, "scrud"), "modifier"), -1);
    json_decref(u);
    snprintf(rig_ctx, sizeof rig_ctx, "after resupply");
    check_unit(&c, a1, 1, 0, -1);
    h = rig_cget(&c, "units/%s/history", a1);
    ev = at(get(h, "items"), json_array_size(get(h, "items")) - 1);
    RIG_EQ_STR(str(ev, "kind"), "resupply");
    RIG_EQ_INT(rig_inum(get(get(ev, "before"), "scrud"), "fatigue_penalty"), 1);
    RIG_EQ_INT(rig_inum(get(get(ev, "after"), "scrud"), "fatigue_penalty"), 0);
    json_decref(h);
}
END_TEST

/* A combat stored as its facts gives each unit's result for its history
 * as the JSON writer writes it, served as that text: names that JSON
 * escapes (a control character the writer spells \u0001, which stored
 * text so spelled was written again for) read back as they were, and each unit
 * of a 3 v 2 combat, on its own page and in the feed, gets its own entry of the
 * report. */
START_TEST(test_facts_results_of_each_unit)
{
    /* as they are, and as JSON text for ts_unit */
    static const char *const names[5] = {"Le \"Vieux\" \\ Garde", "A\n2\x01",
                                         "Line \u00e9/2", "B1", "B2"};
    static const char *const names_json[5] = {"Le \\\"Vieux\\\" \\\\ Garde",
                                              "A\\n2\\u0001", "Line \u00e9/2",
                                              "B1", "B2"};
    static const char *const sides[5] = {"a", "a", "a", "b", "b"};
    char ids[5][64], path[256];
    test_campaign c;
    http_resp posted;
    json_t *body, *units[2];
    size_t i;
    char *text;

    ts_campaign(rig_ts, &c, NULL, AB);
    units[0] = json_array();
    units[1] = json_array();
    for (i = 0; i < 5; i++) {
        ts_unit(rig_ts, &c, names_json[i], sides[i], (int)i % 3, 6, ids[i]);
        json_array_append_new(units[i >= 3],
                              json_pack("{s:s}", "unit", ids[i]));
    }
    body = json_pack("{s:[{s:s,s:o},{s:s,s:o}]}", "sides", "side", "a", "units",
                     units[0], "side", "b", "units", units[1]);
    text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c.id);
    ck_assert_int_eq(ts_request(rig_ts, "POST", path, c.umpire, text, &posted),
                     0);
    free(text);
    RIG_EQ_INT(posted.status, 201);
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM combats WHERE id = ? AND "
                          "substr(report, 1, 4) = ?",
                          TS_TEXT(str(posted.json, "id")),
                          TS_BLOB("\x1b"
                                  "fc1",
                                  4)),
               1);
    for (i = 0; i < 5; i++) {
        json_t *want = result_want(posted.json, names[i], sides[i]);
        /* and in the feed, whose page asks every unit's of the one combat */
        json_decref(result_served(&c, str(posted.json, "id"), ids[i], want,
                                  names[i], 5));
        json_decref(want);
    }
    http_resp_cleanup(&posted);
}
END_TEST

Suite *suite_scrud_http(void)
{
    Suite *s = suite_create("scrud_http");
    TCase *tc = tcase_create("scrud_http");

    tcase_add_checked_fixture(tc, rig_setup, rig_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_seeded_dice_verifiable);
    tcase_add_test(tc, test_replay_detects_tampering);
    tcase_add_test(tc, test_oneoff_stored_as_facts);
    tcase_add_test(tc, test_facts_results_of_each_unit);
    tcase_add_test(tc, test_history_docs_after_report);
    tcase_add_test(tc, test_all_or_nothing);
    tcase_add_test(tc, test_campaign_options);
    tcase_add_test(tc, test_reserves_and_faces);
    tcase_add_test(tc, test_combat_routes_separate);
    tcase_add_test(tc, test_resupply_after_combat);
    suite_add_tcase(s, tc);
    return s;
}
