/*
 * test_ledger_http.c: dice anyone can check, over HTTP (docs/dice.md,
 * docs/ledger.md).  A campaign fights seeded and entered SCRUD, seeded
 * EDNA, a Matrix battle and a Civilization battle: its next commitment
 * moves on exactly when seeded dice used it, every die enters the ledger
 * as it is rolled, the export recomputes from its own fields (by
 * core/ledger.c and by hand), and verify counts the dice (an open battle's
 * pending until it closes).  Then every kind of tampering with the
 * database, each on a fresh campaign, seen by verify (test_ledger_tamper.c,
 * beside it, in this suite); commitments cited in campaign and one-off
 * combats, and every refusal changing nothing; and the campaign report with
 * its formats.  Uses ledger_rig.h.
 */
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

/* A Matrix battle of one unit against one (matrix_rig.h). */
#define M1(b, r, more)                                                         \
    BATTLE(more, ARMY("blue", Q(b), ""), ARMY("red", Q(r), ""),                \
           PAIR(Q(b), Q(r)))
#define CITE(more) ",\"dice\":{\"commitment\":\"%s\"" more "}"
#define CIV_BATTLE                                                             \
    "{\"system\":\"civ\",\"turn\":1,\"current_era\":1,\"attacker\":{"          \
    "\"side\":\"blue\",\"units\":[\"cb1\"]},\"defender\":{\"side\":\"red\","   \
    "\"units\":[\"cr1\"]}%s}"
#define ABANDON "{\"action\":\"abandon\"}"
#define CSCRUD  "/v1/campaigns/%s/combats/scrud"
/* A client seed whose bytes a netstring must count right. */
#define UTF8_SEED                                                              \
    "\xc3\x89"                                                                 \
    "claireurs, 3:1"

/* ---- helpers ---- */

/* tmpl with its first "%s" replaced by s, in one of 4 rotating buffers
 * (valid for 3 more calls). */
static const char *with(const char *tmpl, const char *s)
{
    static char buf[4][4096];
    static int next;
    char *b = buf[next++ % 4];
    const char *at = strstr(tmpl, "%s");

    ck_assert_ptr_nonnull(at);
    snprintf(b, sizeof buf[0], "%.*s%s%s", (int)(at - tmpl), tmpl, s, at + 2);
    return b;
}

/* Whether entries (from the k-th on) name record id. */
static bool names(const json_t *entries, size_t k, const char *id)
{
    for (; k < json_array_size(entries); k++) {
        const json_t *en = json_array_get(entries, k);
        const char *r = scs_str(en, "combat_id");
        if (r == NULL)
            r = scs_str(en, "battle_id");
        if (r != NULL && strcmp(r, id) == 0)
            return true;
    }
    return false;
}

/* Every part of c's export after a position (?after=0 to one past its
 * last entry): the same length and head as whole, "after" said, exactly
 * whole's entries after it, each as whole gives it (a part that begins
 * inside a combat's rolls chains its first from the one before), and the
 * seeds of whole of the records they name, in whole's order; a malformed
 * position refused, naming it. */
static void check_parts(const test_campaign *c, const json_t *whole)
{
    static const char *const bad[] = {"-1",
                                      "x",
                                      "01",
                                      "1.5",
                                      "",
                                      "2x",
                                      "99999999999999999999",
                                      "9223372036854775807"};
    const json_t *all = scs_get(whole, "entries");
    long long len = rig_inum(whole, "length"), n;
    json_t *part, *entries;
    size_t i;

    RIG_EQ_INT((long long)json_array_size(all), len);
    for (n = 0; n <= len + 1; n++) {
        snprintf(rig_ctx, sizeof rig_ctx, "the export after %lld", n);
        part = scs_call(200, "GET", c->player[0], NULL,
                        "/v1/campaigns/%s/ledger?after=%lld", c->id, n);
        RIG_EQ_INT(rig_inum(part, "length"), len);
        RIG_EQ_STR(scs_str(part, "head"), scs_str(whole, "head"));
        if (n == 0)
            RIG_IS_TRUE(scs_get(part, "after") == NULL);
        else
            RIG_EQ_INT(rig_inum(part, "after"), n);
        entries = scs_get(part, "entries");
        RIG_EQ_INT((long long)json_array_size(entries), n < len ? len - n : 0);
        for (i = 0; i < json_array_size(entries); i++)
            RIG_IS_TRUE(json_equal(json_array_get(entries, i),
                                   json_array_get(all, (size_t)n + i)));
        {
            const json_t *seeds = scs_get(whole, "seeds");
            json_t *want = json_array();
            /* after=0 is the whole export: every battle's seed, entries
             * or not */
            for (i = 0; i < json_array_size(seeds); i++) {
                json_t *s = json_array_get(seeds, i);
                if (n == 0 || names(all, (size_t)n, scs_str(s, "record")))
                    json_array_append(want, s);
            }
            RIG_IS_TRUE(json_array_size(want) > 0 || n >= len);
            RIG_IS_TRUE(json_equal(scs_get(part, "seeds"), want));
            json_decref(want);
        }
        /* With every record's seeds (seeds=all), the entries up to n and
         * the part make the whole export exactly: a download cut short
         * after entry n, resumed. */
        part =
            scs_call(200, "GET", c->player[0], NULL,
                     "/v1/campaigns/%s/ledger?after=%lld&seeds=all", c->id, n);
        {
            json_t *joined = json_deep_copy(part), *e = json_array();
            for (i = 0; i < (size_t)n && i < json_array_size(all); i++)
                json_array_append(e, json_array_get(all, i));
            json_array_extend(e, scs_get(part, "entries"));
            json_object_set_new(joined, "entries", e);
            json_object_del(joined, "after");
            RIG_IS_TRUE(json_equal(joined, whole));
            json_decref(joined);
        }
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        scs_rig_refuse(422, NULL, "after", "GET", c->umpire, NULL,
                       "/v1/campaigns/%s/ledger?after=%s", c->id, bad[i]);
    scs_rig_refuse(422, NULL, "seeds", "GET", c->umpire, NULL,
                   "/v1/campaigns/%s/ledger?after=2&seeds=some", c->id);
}

/* ---- 1. A campaign's dice, as they are rolled ---- */

START_TEST(test_campaign_ledger)
{
    char k[6][65], bid[64], cid[64];
    json_t *rep, *b, *led, *st, *cmp;
    test_campaign c;

    lg_campaign(&c);
    lg_next(&c, k[0]);
    snprintf(rig_ctx, sizeof rig_ctx, "a new campaign");
    lg_check_head(&c, 0, ledger_genesis);
    lg_check_verified(lg_verify(&c, "%s", ""), 0, 0, 0, 0, 0);

    /* seeded SCRUD: the commitment shown, then a new one */
    rep = lg_cpost(&c, 201, "combats/scrud",
                   SCRUD(SU("B1"), SU("R1"), CS(UTF8_SEED)));
    snprintf(rig_ctx, sizeof rig_ctx, "seeded SCRUD");
    lg_check_seeded(rep, k[0]);
    lg_next(&c, k[1]);
    RIG_IS_TRUE(strcmp(k[0], k[1]) != 0);
    led = lg_ledger(&c);
    lg_check_span(rep, led, 1, 2);
    lg_check_rolls(rep, led, 1);
    RIG_IS_TRUE(json_equal(rep, scs_call(200, "GET", c.umpire, NULL,
                                         "/v1/campaigns/%s/combats/%s", c.id,
                                         scs_str(rep, "id"))));
    lg_check_verified(lg_verify(&c, "%s", ""), 2, 2, 2, 0, 0);

    /* entered SCRUD: no commitment used */
    rep = lg_cpost(&c, 201, "combats/scrud",
                   SCRUD(SUD("B2", 4), SUD("R2", 2),
                         ",\"dice\":{\"source\":\"entered\"}"));
    snprintf(rig_ctx, sizeof rig_ctx, "entered SCRUD");
    RIG_IS_TRUE(json_is_null(scs_get(scs_get(rep, "dice"), "commitment")));
    lg_next(&c, k[2]);
    RIG_EQ_STR(k[2], k[1]);
    led = lg_ledger(&c);
    lg_check_span(rep, led, 3, 4);
    lg_check_rolls(rep, led, 3);
    lg_check_verified(lg_verify(&c, "%s", ""), 4, 2, 2, 2, 0);

    /* seeded EDNA */
    rep = lg_cpost(&c, 201, "combats/edna", "{\"units\":[" SU("B1") "]}");
    snprintf(rig_ctx, sizeof rig_ctx, "seeded EDNA");
    lg_check_seeded(rep, k[1]);
    lg_next(&c, k[2]);
    RIG_IS_TRUE(strcmp(k[2], k[1]) != 0);
    led = lg_ledger(&c);
    lg_check_span(rep, led, 5, 6);
    lg_check_rolls(rep, led, 5);
    lg_check_verified(lg_verify(&c, "%s", ""), 6, 4, 4, 2, 0);

    /* a Matrix battle: committed at creation, its dice pending while open */
    b = lg_cpost(&c, 201, "battles", M1(B2, R2, ""));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "Matrix battle created");
    RIG_EQ_STR(scs_str(scs_get(b, "dice"), "commitment"), k[2]);
    RIG_IS_TRUE(json_is_null(scs_get(scs_get(b, "dice"), "server_seed")));
    lg_next(&c, k[3]);
    RIG_IS_TRUE(strcmp(k[3], k[2]) != 0);
    RIG_EQ_INT(rig_inum(lg_ledger(&c), "length"), 6);
    lg_act(&c, bid, 200, MROLL(0, ""));
    snprintf(rig_ctx, sizeof rig_ctx, "Matrix roll");
    led = lg_ledger(&c);
    lg_check_action(led, 7, bid, 1, "roll", 2);
    RIG_IS_TRUE(json_is_null(scs_get(
        rig_find_by(scs_get(led, "seeds"), "record", bid), "server_seed")));
    lg_check_verified(lg_verify(&c, "%s", ""), 7, 6, 4, 2, 2);
    st = lg_act(&c, bid, 200, ABANDON);
    snprintf(rig_ctx, sizeof rig_ctx, "Matrix battle abandoned");
    RIG_EQ_STR(scs_str(st, "status"), "abandoned");
    led = lg_ledger(&c);
    lg_check_action(led, 8, bid, 2, "abandon", 0);
    RIG_EQ_STR(scs_str(rig_find_by(scs_get(led, "seeds"), "record", bid),
                       "server_seed"),
               scs_str(scs_get(st, "dice"), "server_seed"));
    lg_check_verified(lg_verify(&c, "%s", ""), 8, 6, 6, 2, 0);
    lg_next(&c, k[4]);
    RIG_EQ_STR(k[4], k[3]);

    /* a Civilization battle: a phase, pending, then abandoned */
    b = lg_cpost(&c, 201, "battles", with(CIV_BATTLE, ""));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "Civilization battle created");
    RIG_EQ_STR(scs_str(scs_get(b, "dice"), "commitment"), k[3]);
    lg_next(&c, k[4]);
    RIG_IS_TRUE(strcmp(k[4], k[3]) != 0);
    st = lg_act(&c, bid, 200, "{\"action\":\"phase\"}");
    RIG_EQ_STR(scs_str(st, "status"), "open");
    led = lg_ledger(&c);
    lg_check_action(led, 9, bid, 1, "phase", 2);
    RIG_IS_TRUE(scs_str(lg_at(led, 9), "detail") != NULL);
    lg_check_verified(lg_verify(&c, "%s", ""), 9, 8, 6, 2, 2);
    lg_act(&c, bid, 200, ABANDON);
    led = lg_ledger(&c);
    lg_check_action(led, 10, bid, 2, "abandon", 0);
    lg_check_verified(lg_verify(&c, "%s", ""), 10, 8, 8, 2, 0);

    /* an entered Matrix battle fought to its end: no commitment, its dice
     * entered, its record outside the chain */
    b = lg_cpost(&c, 201, "battles", M1(B1, R1, ENTERED));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "entered Matrix battle");
    RIG_IS_TRUE(json_is_null(scs_get(scs_get(b, "dice"), "commitment")));
    lg_next(&c, k[5]);
    RIG_EQ_STR(k[5], k[4]);
    lg_act(&c, bid, 200, MROLL(0, DICE("B1", 4, "R1", 2)));
    st = lg_act(&c, bid, 200, ACCEPT(0));
    RIG_EQ_STR(scs_str(st, "status"), "finished");
    snprintf(cid, sizeof cid, "%s", scs_str(st, "combat_id"));
    led = lg_ledger(&c);
    RIG_EQ_INT(rig_inum(led, "length"), 12);
    lg_check_action(led, 11, bid, 1, "roll", 2);
    lg_check_action(led, 12, bid, 2, "accept", 0);
    RIG_EQ_STR(scs_str(lg_at(led, 11), "source"), "entered");
    rep = scs_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s/combats/%s",
                   c.id, cid);
    RIG_IS_TRUE(scs_get(rep, "ledger") == NULL);
    lg_check_verified(lg_verify(&c, "%s", ""), 12, 8, 8, 4, 0);

    /* the export: its entries recompute, the campaign shows its head */
    snprintf(rig_ctx, sizeof rig_ctx, "the export");
    lg_recompute(led);
    lg_check_head(&c, 12, scs_str(led, "head"));
    cmp = lg_verify(&c, "%s", "");
    RIG_EQ_STR(scs_str(scs_get(cmp, "ledger"), "head"), scs_str(led, "head"));
    RIG_EQ_INT(json_array_size(scs_get(led, "seeds")), 6);
    /* and a player reads the same */
    RIG_IS_TRUE(json_equal(led, scs_call(200, "GET", c.player[1], NULL,
                                         "/v1/campaigns/%s/ledger", c.id)));
    /* and its parts after each position, combats' rolls and battles'
     * actions among them, with a battle opened since that has no action
     * yet: the whole export lists its seed (withheld), a part names it
     * with seeds=all only */
    lg_cpost(&c, 201, "battles", M1(B1, R1, ""));
    led = lg_ledger(&c);
    RIG_EQ_INT(rig_inum(led, "length"), 12);
    RIG_EQ_INT(json_array_size(scs_get(led, "seeds")), 7);
    check_parts(&c, led);
}
END_TEST

/* ---- 3. Commitments ---- */

#define UPPER_HEX                                                              \
    "ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789"
#define NEVER_ISSUED                                                           \
    "abababababababababababababababababababababababababababababababab"

/* A new one-off commitment into out (65 bytes); the answer (kept). */
static lg_resp *new_commitment(char out[65])
{
    lg_resp *r = lg_do(201, "POST", NULL, NULL, NULL, NULL, "/v1/commitments");

    snprintf(out, 65, "%s", scs_str(r->json, "commitment"));
    return r;
}

START_TEST(test_campaign_commitments)
{
    char k0[65], k1[65], k2[65], one[65], short_k[64];
    const char *cite = SCRUD(SU("B1"), SU("R1"), CITE(""));
    json_t *w, *rep, *b, *p;
    test_campaign c;

    lg_campaign(&c);
    lg_next(&c, k0);
    new_commitment(one);
    memcpy(short_k, k0, 63);
    short_k[63] = '\0';
    w = mx_world(&c);

    /* refused: nothing changes, the next commitment stays */
    snprintf(rig_ctx, sizeof rig_ctx, "a commitment never issued");
    scs_rig_refuse(409, NULL, "dice.commitment", "POST", c.umpire,
                   with(cite, NEVER_ISSUED), CSCRUD, c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "a one-off commitment");
    scs_rig_refuse(409, NULL, "dice.commitment", "POST", c.umpire,
                   with(cite, one), CSCRUD, c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "entered dice with a commitment");
    scs_rig_refuse(
        422, NULL, "dice.commitment", "POST", c.umpire,
        with(SCRUD(SUD("B1", 4), SUD("R1", 2),
                   ",\"dice\":{\"source\":\"entered\",\"commitment\":\"%s\"}"),
             k0),
        CSCRUD, c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "upper-case hex");
    scs_rig_refuse(422, NULL, "dice.commitment", "POST", c.umpire,
                   with(cite, UPPER_HEX), CSCRUD, c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "63 digits");
    scs_rig_refuse(422, NULL, "dice.commitment", "POST", c.umpire,
                   with(cite, short_k), CSCRUD, c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "a battle citing another");
    scs_rig_refuse(409, NULL, "dice.commitment", "POST", c.umpire,
                   with(M1(B1, R1, CITE("")), one), "/v1/campaigns/%s/battles",
                   c.id);
    mx_assert_unchanged(w, &c);

    /* the next one cited: used, and a new one shown */
    rep = lg_cpost(
        &c, 201, "combats/scrud",
        with(SCRUD(SU("B1"), SU("R1"), CITE(",\"client_seed\":\"x\"")), k0));
    snprintf(rig_ctx, sizeof rig_ctx, "the next commitment cited");
    lg_check_seeded(rep, k0);
    RIG_EQ_STR(scs_str(scs_get(rep, "dice"), "client_seed"), "x");
    lg_next(&c, k1);
    RIG_IS_TRUE(strcmp(k0, k1) != 0);

    /* cited again: it is no longer the next */
    w = mx_world(&c);
    snprintf(rig_ctx, sizeof rig_ctx, "a used commitment cited");
    p = scs_rig_refuse(409, NULL, "dice.commitment", "POST", c.umpire,
                       with(cite, k0), CSCRUD, c.id);
    scs_rig_assert_contains(scs_str(p, "detail"), k1);
    scs_rig_refuse(409, NULL, "dice.commitment", "POST", c.umpire,
                   with("{\"units\":[" SU("B2") "]" CITE("") "}", k0),
                   "/v1/campaigns/%s/combats/edna", c.id);
    scs_rig_refuse(409, NULL, "dice.commitment", "POST", c.umpire,
                   with(M1(B1, R1, CITE("")), k0), "/v1/campaigns/%s/battles",
                   c.id);
    mx_assert_unchanged(w, &c);

    /* battles cite it too */
    b = lg_cpost(&c, 201, "battles", with(M1(B1, R1, CITE("")), k1));
    snprintf(rig_ctx, sizeof rig_ctx, "a battle citing the next");
    RIG_EQ_STR(scs_str(scs_get(b, "dice"), "commitment"), k1);
    lg_next(&c, k2);
    RIG_IS_TRUE(strcmp(k1, k2) != 0);
    b = lg_cpost(&c, 201, "battles",
                 with(with(CIV_BATTLE, CITE(",\"client_seed\":\"y\"")), k2));
    RIG_EQ_STR(scs_str(scs_get(b, "dice"), "commitment"), k2);
    lg_next(&c, k0);
    RIG_IS_TRUE(strcmp(k0, k2) != 0);
}
END_TEST

/* One-off combats of each system citing a commitment ("%s"). */
static const char *const oneoffs[][2] = {
    {"scrud",
     "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\"},{"
     "\"name\":\"a2\"}]},{\"name\":\"b\",\"units\":[{\"name\":"
     "\"b1\",\"faces\":10}]}]" CITE(",\"client_seed\":\"" UTF8_SEED "\"") "}"},
    {"edna", "{\"units\":[{\"name\":\"X\"}]" CITE("") "}"},
    {"scs", "{\"table\":\"example-2d6\",\"attackers\":[{\"name\":\"a\","
            "\"attack\":4,\"defense\":1}],\"defenders\":[{\"name\":\"d\","
            "\"attack\":1,\"defense\":2}]" CITE("") "}"},
    {"matrix", "{\"attacker\":{\"units\":[{\"name\":\"A1\"}]},\"defender\":{"
               "\"units\":[{\"name\":\"D1\"}]},\"line\":[{\"attacker\":["
               "\"A1\"],\"defender\":[\"D1\"]}]" CITE("") "}"},
    {"civ", "{\"current_era\":1,\"attacker\":{\"units\":[{\"name\":\"a\","
            "\"class\":\"infantry\",\"era\":1}]},\"defender\":{\"units\":[{"
            "\"name\":\"d\",\"class\":\"infantry\",\"era\":1}]}" CITE("") "}"},
};

START_TEST(test_oneoff_commitments)
{
    char k[65], k2[65], next[65], url[128];
    const char *body = oneoffs[0][1];
    json_t *rep, *got, *w;
    test_campaign c;
    lg_resp *r;
    size_t i;

    /* asked for, with no body or {} */
    r = new_commitment(k);
    snprintf(rig_ctx, sizeof rig_ctx, "a commitment asked for");
    snprintf(url, sizeof url, "/v1/commitments/%s", k);
    RIG_EQ_INT(strspn(k, "0123456789abcdef"), 64);
    RIG_EQ_STR(r->location, url);
    scs_rig_assert_has(r->json,
                       "{\"status\":\"unused\",\"rng\":\"v1\",\"used_by\":null,"
                       "\"used_at\":null,\"url\":\"%s\"}",
                       url);
    RIG_IS_TRUE(scs_str(r->json, "created_at") != NULL);
    RIG_IS_TRUE(scs_str(r->json, "expires_at") != NULL);
    RIG_IS_TRUE(scs_str(r->json, "expires_at") &&
                strcmp(scs_str(r->json, "expires_at"),
                       scs_str(r->json, "created_at")) > 0);
    RIG_IS_TRUE(
        json_equal(r->json, scs_call(200, "GET", NULL, NULL, "%s", url)));
    r = lg_do(201, "POST", NULL, NULL, NULL, "{}", "/v1/commitments");
    RIG_IS_TRUE(strcmp(scs_str(r->json, "commitment"), k) != 0);
    scs_rig_refuse(422, NULL, "x", "POST", NULL, "{\"x\":1}",
                   "/v1/commitments");
    RIG_EQ_INT(ts_sql_int(rig_ts, "SELECT count(*) FROM commitments"), 2);

    /* cited: its seed gives the dice, and it is used */
    rep = scs_call(201, "POST", NULL, with(body, k), "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "a commitment cited");
    lg_check_seeded(rep, k);
    RIG_EQ_STR(scs_str(scs_get(rep, "dice"), "client_seed"), UTF8_SEED);
    got = scs_call(200, "GET", NULL, NULL, "%s", url);
    scs_rig_assert_has(got,
                       "{\"commitment\":\"%s\",\"status\":\"used\","
                       "\"expires_at\":null,\"used_by\":{\"combat_id\":\"%s\","
                       "\"url\":\"/v1/combats/%s\"}}",
                       k, scs_str(rep, "id"), scs_str(rep, "id"));
    RIG_IS_TRUE(scs_str(got, "used_at") != NULL);

    /* refused, each changing nothing */
    lg_campaign(&c);
    lg_next(&c, next);
    w = scs_rig_world(&c);
    snprintf(rig_ctx, sizeof rig_ctx, "a used commitment cited");
    scs_rig_refuse(409, NULL, "dice.commitment", "POST", NULL, with(body, k),
                   "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "a commitment never issued");
    scs_rig_refuse(422, NULL, "dice.commitment", "POST", NULL,
                   with(body, NEVER_ISSUED), "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "upper-case hex");
    scs_rig_refuse(422, NULL, "dice.commitment", "POST", NULL,
                   with(body, UPPER_HEX), "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "not hex");
    scs_rig_refuse(422, NULL, "dice.commitment", "POST", NULL,
                   with(body, "a commitment"), "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "a campaign's next commitment");
    scs_rig_refuse(422, NULL, "dice.commitment", "POST", NULL, with(body, next),
                   "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "entered dice with a commitment");
    new_commitment(k2);
    scs_rig_refuse(422, NULL, "dice.commitment", "POST", NULL,
                   with("{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":"
                        "\"a1\",\"die\":3}]},{\"name\":\"b\",\"units\":[{"
                        "\"name\":\"b1\",\"die\":4}]}],\"dice\":{\"source\":"
                        "\"entered\",\"commitment\":\"%s\"}}",
                        k2),
                   "/v1/combats/scrud");
    scs_rig_assert_unchanged(w, &c);
    scs_call(404, "GET", NULL, NULL, "/v1/commitments/%s", next);
    scs_call(404, "GET", NULL, NULL, "/v1/commitments/%s", NEVER_ISSUED);
    scs_rig_assert_has(
        scs_call(200, "GET", NULL, NULL, "/v1/commitments/%s", k2),
        "{\"status\":\"unused\",\"used_by\":null}");

    /* every system cites one */
    for (i = 0; i < sizeof oneoffs / sizeof oneoffs[0]; i++) {
        new_commitment(k);
        snprintf(rig_ctx, sizeof rig_ctx, "a %s one-off citing %s",
                 oneoffs[i][0], k);
        rep = scs_call(201, "POST", NULL, with(oneoffs[i][1], k),
                       "/v1/combats/%s", oneoffs[i][0]);
        lg_check_seeded(rep, k);
        scs_rig_assert_has(
            scs_call(200, "GET", NULL, NULL, "/v1/commitments/%s", k),
            "{\"status\":\"used\",\"used_by\":{\"combat_id\":"
            "\"%s\"}}",
            scs_str(rep, "id"));
        scs_rig_refuse(409, NULL, "dice.commitment", "POST", NULL,
                       with(oneoffs[i][1], k), "/v1/combats/%s", oneoffs[i][0]);
    }
}
END_TEST

START_TEST(test_oneoff_commitment_race)
{
    lg_shot shots[12];
    char k[65];
    int i, n_created = 0;

    new_commitment(k);
    lg_burst(12, "POST", "/v1/combats/scrud", NULL, NULL,
             with(oneoffs[0][1], k), shots);
    snprintf(rig_ctx, sizeof rig_ctx, "twelve combats citing one commitment");
    for (i = 0; i < 12; i++) {
        json_t *j = scs_rig_keep(json_loads(shots[i].body, 0, NULL));
        if (shots[i].status == 201) {
            n_created++;
            RIG_EQ_STR(scs_str(scs_get(j, "dice"), "commitment"), k);
            continue;
        }
        RIG_EQ_INT(shots[i].status, 409);
        RIG_EQ_STR(scs_str(j, "field"), "dice.commitment");
    }
    RIG_EQ_INT(n_created, 1);
    RIG_EQ_INT(ts_sql_int(rig_ts,
                          "SELECT count(*) FROM combats WHERE commitment = ?",
                          TS_TEXT(k)),
               1);
}
END_TEST

/* ---- 4. The campaign report ---- */

START_TEST(test_campaign_report)
{
    char next[65], url[160];
    json_t *rep, *list, *x, *units, *sides, *led;
    const char *ids[3];
    test_campaign c;
    lg_resp *r;
    size_t i;

    lg_campaign(&c);
    ids[0] = scs_str(
        lg_cpost(&c, 201, "combats/scrud", SCRUD(SU("B1"), SU("R1"), "")),
        "id");
    ids[1] = scs_str(lg_cpost(&c, 201, "combats/scrud",
                              SCRUD(SUD("B2", 4), SUD("R2", 2),
                                    ",\"dice\":{\"source\":\"entered\"}")),
                     "id");
    ids[2] = scs_str(
        lg_cpost(&c, 201, "combats/edna", "{\"units\":[" SU("R1") "]}"), "id");
    x = lg_cpost(&c, 201, "battles", M1(B2, R2, ""));
    lg_next(&c, next);
    led = lg_ledger(&c);
    rep = scs_call(200, "GET", c.player[0], NULL, "/v1/campaigns/%s/report",
                   c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "the campaign report");
    snprintf(url, sizeof url, "/v1/campaigns/%s/ledger", c.id);
    scs_rig_assert_has(rep,
                       "{\"campaign\":{\"id\":\"%s\",\"next_commitment\":"
                       "\"%s\",\"ledger\":{\"length\":6,\"head\":\"%s\","
                       "\"url\":\"%s\"}},\"battles\":[{\"id\":\"%s\","
                       "\"system\":\"matrix\",\"status\":\"open\","
                       "\"combat_id\":null}]}",
                       c.id, next, scs_str(led, "head"), url, scs_str(x, "id"));
    list = scs_get(
        scs_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s/combats", c.id),
        "items");
    RIG_EQ_INT(json_array_size(scs_get(rep, "combats")), 3);
    json_array_foreach(scs_get(rep, "combats"), i, x)
    {
        json_t *item = json_deep_copy(x);
        RIG_EQ_STR(scs_str(x, "id"), ids[i]);
        RIG_IS_TRUE(scs_str(x, "summary") && scs_str(x, "summary")[0]);
        snprintf(url, sizeof url, "/v1/campaigns/%s/combats/%s", c.id, ids[i]);
        RIG_EQ_STR(scs_str(x, "url"), url);
        json_object_del(item, "url");
        RIG_IS_TRUE(json_equal(item, scs_at(list, i)));
        json_decref(item);
        RIG_EQ_STR(
            scs_str(scs_call(200, "GET", c.umpire, NULL, "%s", url), "id"),
            ids[i]);
    }
    units = scs_get(
        scs_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s/units", c.id),
        "items");
    RIG_IS_TRUE(json_equal(scs_get(rep, "units"), units));
    sides = scs_get(scs_rig_keep(rig_cget(&c, "sides")), "items");
    RIG_EQ_INT(json_array_size(scs_get(rep, "sides")), 2);
    json_array_foreach(scs_get(rep, "sides"), i, x)
    {
        RIG_EQ_STR(scs_str(x, "id"), scs_str(scs_at(sides, i), "id"));
        RIG_EQ_STR(scs_str(x, "name"), scs_str(scs_at(sides, i), "name"));
    }

    /* its formats */
    snprintf(rig_ctx, sizeof rig_ctx, "the report's formats");
    r = lg_do(200, "GET", c.umpire, NULL, NULL, NULL,
              "/v1/campaigns/%s/report?format=md", c.id);
    scs_rig_assert_contains(r->content_type, "text/markdown");
    RIG_IS_TRUE(r->json == NULL && r->body[0]);
    r = lg_do(200, "GET", c.umpire, NULL, NULL, NULL,
              "/v1/campaigns/%s/report?format=markdown", c.id);
    scs_rig_assert_contains(r->content_type, "text/markdown");
    r = lg_do(200, "GET", c.umpire, NULL, NULL, NULL,
              "/v1/campaigns/%s/report?format=html", c.id);
    scs_rig_assert_contains(r->content_type, "text/html");
    r = lg_do(200, "GET", c.umpire, NULL, "Accept: text/html\r\n", NULL,
              "/v1/campaigns/%s/report", c.id);
    scs_rig_assert_contains(r->content_type, "text/html");
    r = lg_do(200, "GET", c.umpire, NULL, "Accept: text/markdown\r\n", NULL,
              "/v1/campaigns/%s/report", c.id);
    scs_rig_assert_contains(r->content_type, "text/markdown");
    r = lg_do(200, "GET", c.umpire, NULL, "Accept: text/html\r\n", NULL,
              "/v1/campaigns/%s/report?format=json", c.id);
    scs_rig_assert_contains(r->content_type, "application/json");
    RIG_IS_TRUE(json_equal(r->json, rep));
    scs_rig_refuse(422, NULL, "format", "GET", c.umpire, NULL,
                   "/v1/campaigns/%s/report?format=pdf", c.id);
    /* a route that does not render */
    scs_rig_refuse(406, NULL, NULL, "GET", c.umpire, NULL,
                   "/v1/campaigns/%s/units?format=html", c.id);
    scs_rig_refuse(406, NULL, NULL, "GET", c.umpire, NULL,
                   "/v1/campaigns/%s/ledger?format=md", c.id);
    scs_rig_refuse(422, NULL, "format", "GET", c.umpire, NULL,
                   "/v1/campaigns/%s/units?format=pdf", c.id);
    r = lg_do(200, "GET", c.umpire, NULL, "Accept: text/html\r\n", NULL,
              "/v1/campaigns/%s/units", c.id);
    scs_rig_assert_contains(r->content_type, "application/json");
    RIG_IS_TRUE(json_equal(scs_get(r->json, "items"), units));
    /* combats and battles render, GET and POST */
    r = lg_do(200, "GET", c.umpire, NULL, NULL, NULL,
              "/v1/campaigns/%s/combats/%s?format=md", c.id, ids[0]);
    scs_rig_assert_contains(r->content_type, "text/markdown");
    r = lg_do(201, "POST", c.umpire, NULL, NULL, SCRUD(SU("B1"), SU("R2"), ""),
              "/v1/campaigns/%s/combats/scrud?format=html", c.id);
    scs_rig_assert_contains(r->content_type, "text/html");
    RIG_IS_TRUE(strstr(r->location, "/combats/cbt_") != NULL);
    r = lg_do(200, "GET", c.umpire, NULL, "Accept: text/markdown\r\n", NULL,
              "/v1/campaigns/%s/battles/%s", c.id,
              scs_str(scs_at(scs_get(rep, "battles"), 0), "id"));
    scs_rig_assert_contains(r->content_type, "text/markdown");
}
END_TEST

/* ---- 5. A phase of many dice ---- */

/* Civilization armies of up to 100 pieces throw a die for every piece of
 * their waves: 33 against 33 throw 66 dice in one phase, and the ledger
 * must hold that action like any other. */
START_TEST(test_civ_phase_of_many_dice)
{
    char body[4096], list[2][1024] = {"", ""}, bid[64];
    static const char *const sides[] = {"blue", "red", NULL};
    json_t *b, *led;
    test_campaign c;
    int i, a;

    scs_rig_campaign(&c, NULL, sides);
    for (i = 0; i < 33; i++)
        for (a = 0; a < 2; a++) {
            snprintf(body, sizeof body,
                     "{\"name\":\"%c%d\",\"side\":\"%s\",\"civ\":{\"class\":"
                     "\"infantry\",\"era\":1,\"bonus\":-20}}",
                     a ? 'r' : 'b', i, sides[a]);
            scs_call(201, "POST", c.umpire, body, "/v1/campaigns/%s/units",
                     c.id);
            snprintf(list[a] + strlen(list[a]),
                     sizeof list[a] - strlen(list[a]), "%s\"%c%d\"",
                     i ? "," : "", a ? 'r' : 'b', i);
        }
    snprintf(body, sizeof body,
             "{\"system\":\"civ\",\"turn\":1,\"current_era\":1,\"attacker\":{"
             "\"side\":\"blue\",\"units\":[%s]},\"defender\":{\"side\":"
             "\"red\",\"units\":[%s]}}",
             list[0], list[1]);
    b = lg_cpost(&c, 201, "battles", body);
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "a phase of 66 dice");
    lg_act(&c, bid, 200, "{\"action\":\"phase\"}");
    led = lg_ledger(&c);
    RIG_EQ_INT(rig_inum(led, "length"), 1);
    lg_check_action(led, 1, bid, 1, "phase", 66);
    lg_check_verified(lg_verify(&c, "%s", ""), 1, 66, 0, 0, 66);
}
END_TEST

Suite *suite_ledger_http(void)
{
    Suite *s = suite_create("ledger_http");
    TCase *tc = tcase_create("ledger_http");

    tcase_add_checked_fixture(tc, lg_setup, lg_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_campaign_ledger);
    lg_add_tamper_tests(tc);
    tcase_add_test(tc, test_campaign_commitments);
    tcase_add_test(tc, test_oneoff_commitments);
    tcase_add_test(tc, test_oneoff_commitment_race);
    tcase_add_test(tc, test_campaign_report);
    tcase_add_test(tc, test_civ_phase_of_many_dice);
    suite_add_tcase(s, tc);
    return s;
}
