/*
 * test_report.c: the reports to share (server/report/report.h).  Real
 * reports of every system, produced by the service in-process (one-off
 * combats with entered dice, so their outcome is known; seeded ones for the
 * dice section), a campaign combat, live Matrix and Civilization battles
 * from open to over, rendered as Markdown and as HTML: every unit's fate is
 * on its line, seeded dice show their commitment and seed, entered ones say
 * they cannot be checked, names full of mark-up are escaped (checked
 * against a plain model of the escaping), pages carry no script or outside
 * resource, Markdown has no table.  A campaign report built by hand lists
 * its combats in order.  Odd input never breaks a renderer: hand-written
 * oddities, and every member of the real reports replaced in turn by values
 * of the wrong type.  The choice of format over a table of ?format values
 * and Accept headers.  Uses scs_rig.h, matrix_rig.h and civ_rig.h; the
 * checks are in report_rig.h.
 */
#include "civ_rig.h"
#include "harness.h"
#include "matrix_rig.h"
#include "report.h"
#include "report_rig.h"
#include "rig.h"
#include "scs_rig.h"
#include "suites.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. SCRUD ---- */

START_TEST(test_scrud)
{
    static const report_rig_fate fates[] = {
        {"Rangers",
         {"not defeated", "fatigue penalty 0 \xE2\x86\x92 1",
          "modifier +1 \xE2\x86\x92 0", "!eliminated"}},
        {REPORT_RIG_STARS,
         {"eliminated", "threshold", "defeat penalty 1 \xE2\x86\x92 2",
          "modifier -2 \xE2\x86\x92 -3"}},
        {REPORT_RIG_ANGLE, {"eliminated", "defeats", "defeated 2 times"}},
        {"Guard", {"in reserve", "!eliminated"}},
        {"Fusiliers", {"fatigue penalty 0 \xE2\x86\x92 1", "!eliminated"}},
        {"Scouts", {"not defeated", "modifier stays 0", "!eliminated"}},
        {"Lancers", {"fatigue penalty 0 \xE2\x86\x92 1", "!eliminated"}},
    };
    json_t *rep = report_rig_scrud_example();
    char *md, *html, *plain, *esc;

    snprintf(rig_ctx, sizeof rig_ctx, "SCRUD entered");
    report_rig_render_both(report_combat, rep, &md, &html);
    report_rig_expect_in(md, "# SCRUD combat");
    report_rig_expect_in(md, scs_str(rep, "id"));
    report_rig_expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    report_rig_expect_entered(md, html);
    report_rig_expect_in(md, "## Rolls (9)");
    report_rig_expect_in(html, "Rolls (9)");
    /* Markdown: the names escaped wherever they are read as Markdown */
    plain = report_rig_outside_code(md);
    report_rig_expect_not_in(plain, REPORT_RIG_STARS);
    esc = report_rig_md_model(REPORT_RIG_STARS);
    report_rig_expect_in(plain, esc);
    free(esc);
    ck_assert_uint_eq(report_rig_count(plain, "<b>"),
                      report_rig_count(plain, "\\<b>"));
    report_rig_expect_in(plain, "walled \\*farm\\* \\<i\\>");
    free(plain);
    /* HTML: never raw, always as entities */
    report_rig_expect_not_in(html, REPORT_RIG_ANGLE);
    report_rig_expect_not_in(html, "<b>");
    report_rig_expect_not_in(html, "<i>");
    esc = report_rig_html_model(REPORT_RIG_ANGLE);
    report_rig_expect_in(html, esc);
    free(esc);
    report_rig_check_mutations(report_combat, rep);
}
END_TEST

START_TEST(test_scrud_seeded)
{
    json_t *rep = report_rig_oneoff(
        "scrud", "{\"dice\":{\"source\":\"seeded\",\"client_seed\":\"table "
                 "7\"},\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"A1\"},"
                 "{\"name\":\"A2\"}]},{\"name\":\"b\",\"units\":[{\"name\":"
                 "\"B1\"}]}]}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "SCRUD seeded");
    report_rig_render_both(report_combat, rep, &md, &html);
    report_rig_expect_seeded(md, html, scs_get(rep, "dice"));
    report_rig_expect_in(md, "**Client seed:** table 7");
    report_rig_expect_in(md, "## Rolls (3)");
    report_rig_expect_fate(md, false,
                           &(report_rig_fate){"A1", {"rolled", "modifier"}});
    report_rig_expect_fate(html, true,
                           &(report_rig_fate){"B1", {"rolled", "modifier"}});
}
END_TEST

/* A campaign combat: its campaign, and its place in the ledger. */
START_TEST(test_campaign_combat)
{
    static const char *const sides[] = {"north", "south", NULL};
    static const char hash[] =
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    test_campaign c;
    json_t *rep, *with_ledger;
    char *md, *html, path[256];

    ts_campaign(rig_ts, &c, NULL, sides);
    ts_unit(rig_ts, &c, "n1", "north", 0, 6, NULL);
    ts_unit(rig_ts, &c, "s1", "south", 0, 6, NULL);
    rep = scs_call(201, "POST", c.umpire,
                   "{\"sides\":[{\"side\":\"north\",\"units\":[{\"unit\":"
                   "\"n1\"}]},{\"side\":\"south\",\"units\":[{\"unit\":"
                   "\"s1\"}]}]}",
                   "/v1/campaigns/%s/combats/scrud", c.id);
    snprintf(path, sizeof path, "combats/%s", scs_str(rep, "id"));
    rep = scs_rig_keep(rig_cget(&c, "%s", path));
    snprintf(rig_ctx, sizeof rig_ctx, "campaign SCRUD");
    report_rig_render_both(report_combat, rep, &md, &html);
    report_rig_expect_in(md, c.id);
    report_rig_expect_in(html, c.id);
    report_rig_expect_seeded(md, html, scs_get(rep, "dice"));
    with_ledger = scs_rig_keep(json_deep_copy(rep));
    json_object_set_new(with_ledger, "ledger",
                        json_pack("{s:i, s:i, s:s}", "first_pos", 3, "last_pos",
                                  8, "hash", hash));
    report_rig_render_both(report_combat, with_ledger, &md, &html);
    report_rig_expect_in(md, "entries 3\xE2\x80\x93"
                             "8");
    report_rig_expect_in(html, "entries 3\xE2\x80\x93"
                               "8");
    report_rig_expect_in(md, hash);
    report_rig_expect_in(html, hash);
}
END_TEST

/* ---- 2. EDNA ---- */

START_TEST(test_edna)
{
    static const report_rig_fate fates[] = {
        {"X", {"passed", "EDNA stays 5", "modifier -2", "!ineffective"}},
        {"Y", {"failed", "EDNA 10 \xE2\x86\x92 8", "!ineffective"}},
        {"Z", {"failed", "EDNA 1 \xE2\x86\x92 0", "ineffective"}},
    };
    json_t *rep = report_rig_oneoff(
        "edna", "{\"dice\":{\"source\":\"entered\"},\"units\":[{\"name\":"
                "\"X\",\"edna\":5,\"start\":8,\"modifier\":-2,\"dice\":[3,4]},"
                "{\"name\":\"Y\",\"start\":10,\"dice\":[6,6]},{\"name\":\"Z\","
                "\"edna\":1,\"dice\":[6,6]}]}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "EDNA entered");
    report_rig_render_both(report_combat, rep, &md, &html);
    report_rig_expect_in(md, "# EDNA test");
    report_rig_expect_in(md, "3 units tested with 2d6: 1 passed, 2 failed.");
    report_rig_expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    report_rig_expect_entered(md, html);
    report_rig_check_mutations(report_combat, rep);
}
END_TEST

/* ---- 3. SCS ---- */

START_TEST(test_scs)
{
    static const report_rig_fate fates[] = {
        {"a1", {"no step lost", "may advance 1 hex", "!eliminated"}},
        {"a2", {"no step lost", "!eliminated"}},
        {"d1",
         {"loses 1 step", "steps lost 0 \xE2\x86\x92 1 of 2",
          "retreats 3 hexes", "!eliminated"}},
        {"d2", {"eliminated", "loses 1 step", "!retreats"}},
    };
    json_t *rep = report_rig_oneoff(
        "scs",
        "{\"table\":\"example-2d6\",\"attackers\":[{\"name\":\"a1\","
        "\"attack\":6,\"defense\":2},{\"name\":\"a2\",\"attack\":3,"
        "\"defense\":3,\"steps\":2}],\"defenders\":[{\"name\":\"d1\","
        "\"attack\":1,\"defense\":3,\"steps\":2},{\"name\":\"d2\",\"attack\":1,"
        "\"defense\":1}],\"dice\":{\"source\":\"entered\"},\"roll\":[5,6]}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "SCS entered");
    report_rig_render_both(report_combat, rep, &md, &html);
    report_rig_expect_in(md, "odds 2:1");
    report_rig_expect_in(md, "Roll 11 (2d6: 5, 6): **D2r3**");
    report_rig_expect_in(html, "<strong>D2r3</strong>");
    report_rig_expect_in(md, "**Defender:** 2 steps lost, retreats 3 hexes");
    report_rig_expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    report_rig_expect_entered(md, html);
    report_rig_check_mutations(report_combat, rep);
}
END_TEST

/* ---- 4. Matrix ---- */

/* The one-off battle of docs/rules/matrix.md (the ford). */
START_TEST(test_matrix_oneoff)
{
    static const report_rig_fate fates[] = {
        {"B1", {"in combat 1", "no loss"}},
        {"B3", {"in combat 3", "beaten", "2 casualty points"}},
        {"B4", {"reserve, joined combat 1", "no loss"}},
        {"R1", {"repulsed", "1 casualty point"}},
        {"R2", {"routed", "3 casualty points", "!eliminated"}},
        {"R3", {"in combat 3", "no loss"}},
    };
    json_t *rep = report_rig_oneoff(
        "matrix",
        "{\"attacker\":{\"name\":\"blue\",\"argument\":1,\"units\":[{"
        "\"name\":\"B1\"},{\"name\":\"B2\"},{\"name\":\"B3\"},{\"name\":"
        "\"B4\"}]},\"defender\":{\"name\":\"red\",\"units\":[{\"name\":\"R1\","
        "\"quality\":1},{\"name\":\"R2\",\"quality\":1},{\"name\":\"R3\","
        "\"quality\":1}]},\"line\":[{\"attacker\":[\"B1\"],\"defender\":["
        "\"R1\"],\"dice\":{\"B1\":3,\"R1\":4}},{\"attacker\":[\"B2\"],"
        "\"defender\":[\"R2\"],\"dice\":{\"B2\":6,\"R2\":1}},{\"attacker\":["
        "\"B3\"],\"defender\":[\"R3\"],\"dice\":{\"B3\":2,\"R3\":5}}],"
        "\"commits\":[{\"combat\":0,\"army\":\"attacker\",\"unit\":\"B4\","
        "\"die\":5}],\"dice\":{\"source\":\"entered\"}}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "Matrix one-off");
    report_rig_render_both(report_combat, rep, &md, &html);
    report_rig_expect_in(md, "**The attacker (blue) wins.**");
    report_rig_expect_in(html, "The attacker (blue) wins.");
    report_rig_expect_in(md, "Casualty points: attacker 2, defender 4.");
    report_rig_expect_in(
        md, "**Combat 1:** B1 against R1: 9 against 5, the defender "
            "repulsed");
    report_rig_expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    report_rig_expect_entered(md, html);
    report_rig_expect_in(md, "## Rolls (7)");
    report_rig_check_mutations(report_combat, rep);
}
END_TEST

/* A campaign battle, seeded: open (commitment, no seed), then over (seed,
 * record, fates); an abandoned one reveals its seed too. */
START_TEST(test_matrix_battle)
{
    test_campaign c;
    json_t *b, *st, *rec;
    char bid[64], *md, *html;

    mx_campaign(&c);
    mx_units(&c, 2);
    b = mx_battle(&c, 201,
                  BATTLE(",\"note\":\"the *ford*\"", ARMY("blue", Q(B1), ""),
                         ARMY("red", Q(R1), ""), PAIR(Q(B1), Q(R1))));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    st = mx_act(&c, bid, 200, "{\"action\":\"abandon\"}");
    snprintf(rig_ctx, sizeof rig_ctx, "abandoned battle");
    report_rig_render_both(report_battle, st, &md, &html);
    report_rig_expect_in(md, "**Status:** abandoned");
    report_rig_expect_in(md, scs_str(scs_get(st, "dice"), "server_seed"));
    report_rig_expect_not_in(md, "umpire-verify"); /* no record, no roll log */

    b = mx_battle(&c, 201,
                  BATTLE("", ARMY("blue", Q(B1) "," Q(B2), ""),
                         ARMY("red", Q(R1) "," Q(R2), ""),
                         PAIR(Q(B1), Q(R1)) "," PAIR(Q(B2), Q(R2))));
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "open battle");
    report_rig_render_both(report_battle, b, &md, &html);
    report_rig_expect_in(md, "# Matrix battle");
    report_rig_expect_in(md, "**Status:** open");
    report_rig_expect_in(md, scs_str(scs_get(b, "dice"), "commitment"));
    report_rig_expect_in(md, "secret until the battle is over");
    report_rig_expect_in(md, "**Combat 2:** B2 against R2: not rolled yet");
    report_rig_expect_fate(md, false,
                           &(report_rig_fate){"B1", {"in combat 1", "!loss"}});
    report_rig_expect_fate(html, true,
                           &(report_rig_fate){"R2", {"in combat 2", "!loss"}});
    report_rig_expect_in(md, "Not over yet.");
    report_rig_check_mutations(report_battle, b);

    st = mx_act(&c, bid, 200, MROLL(0, ""));
    snprintf(rig_ctx, sizeof rig_ctx, "battle half fought");
    report_rig_render_both(report_battle, st, &md, &html);
    report_rig_expect_in(md, "(not accepted yet: reserves may still join)");
    report_rig_expect_in(md, "  - Dice: B1 ");
    mx_act(&c, bid, 200, ACCEPT(0));
    mx_act(&c, bid, 200, MROLL(1, ""));
    st = mx_act(&c, bid, 200, ACCEPT(1));
    snprintf(rig_ctx, sizeof rig_ctx, "finished battle");
    report_rig_render_both(report_battle, st, &md, &html);
    report_rig_expect_in(md, "**Status:** finished");
    report_rig_expect_in(md, "**Record:** combat `");
    report_rig_expect_in(md, scs_str(st, "combat_id"));
    report_rig_expect_in(md, scs_str(scs_get(st, "dice"), "server_seed"));
    report_rig_expect_in(md, "The battle's record (its combat, under Links)");
    report_rig_expect_in(md, "umpire-verify");
    report_rig_expect_matrix_result(md, html, scs_get(st, "result"));
    report_rig_check_mutations(report_battle, st);

    rec = scs_rig_keep(rig_cget(&c, "combats/%s", scs_str(st, "combat_id")));
    snprintf(rig_ctx, sizeof rig_ctx, "battle record");
    report_rig_render_both(report_combat, rec, &md, &html);
    report_rig_expect_in(md, "**Battle:** `");
    report_rig_expect_in(md, bid);
    report_rig_expect_seeded(md, html, scs_get(rec, "dice"));
    report_rig_expect_in(md, "## Rolls (4)");
    report_rig_expect_matrix_result(md, html, scs_get(rec, "result"));
}
END_TEST

/* ---- 5. Civilization ---- */

/* The one-off of docs/rules/civ.md: the settlement holds. */
START_TEST(test_civ_oneoff)
{
    static const report_rig_fate fates[] = {
        {"sw1", {"destroyed", "in phase 1"}},
        {"ca3", {"destroyed", "in phase 1"}},
        {"ch1", {"destroyed", "in phase 2"}},
        {"ch3", {"destroyed", "in phase 3"}},
        {"ac4", {"destroyed", "in phase 2"}},
        {"ac5", {"survived", "!destroyed"}},
        {"ar1", {"destroyed", "in phase 1"}},
    };
    json_t *rep = report_rig_oneoff(
        "civ",
        "{\"current_era\":1,\"settlement\":true,\"attacker\":{\"name\":\"bob\","
        "\"technologies\":6,\"units\":[{\"name\":\"sw1\",\"class\":"
        "\"infantry\",\"era\":1,\"bonus\":1},{\"name\":\"sw2\",\"class\":"
        "\"infantry\",\"era\":1,\"bonus\":1},{\"name\":\"sw3\",\"class\":"
        "\"infantry\",\"era\":1,\"bonus\":1},{\"name\":\"ch1\",\"class\":"
        "\"cavalry\",\"era\":1},{\"name\":\"ch2\",\"class\":\"cavalry\","
        "\"era\":1},{\"name\":\"ch3\",\"class\":\"cavalry\",\"era\":1},{"
        "\"name\":\"ca1\",\"class\":\"artillery\",\"era\":1,\"bonus\":1},{"
        "\"name\":\"ca2\",\"class\":\"artillery\",\"era\":1,\"bonus\":1},{"
        "\"name\":\"ca3\",\"class\":\"artillery\",\"era\":1,\"bonus\":1}],"
        "\"wave_preference\":[\"sw1\",\"sw2\",\"sw3\",\"ca1\",\"ca2\","
        "\"ca3\"]},\"defender\":{\"name\":\"alice\",\"technologies\":4,"
        "\"units\":[{\"name\":\"ac1\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ac2\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ac3\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ac4\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ac5\",\"class\":\"artillery\",\"era\":1,"
        "\"bonus\":1},{\"name\":\"ar1\",\"class\":\"cavalry\",\"era\":1}]},"
        "\"dice\":{\"source\":\"entered\"},\"rolls\":[2,2,2,2,2,2,6,5,5,5,5,1,"
        "3,3,4,5,4,3]}");
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "Civilization one-off");
    report_rig_render_both(report_combat, rep, &md, &html);
    report_rig_expect_in(md, "**The defender (alice) wins** after 3 phases.");
    report_rig_expect_in(md, "the defender holds a settlement");
    report_rig_expect_in(md, "**Phase 3**: attacker 4, defender 5");
    report_rig_expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    report_rig_expect_entered(md, html);
    report_rig_expect_in(md, "## Rolls (18)");
    report_rig_check_mutations(report_combat, rep);
}
END_TEST

/* A campaign battle, entered, one of its pieces named with mark-up: open,
 * then won in one phase. */
START_TEST(test_civ_battle)
{
    static const report_rig_fate open_fates[] = {
        {REPORT_RIG_ANGLE, {"infantry, era 1", "still standing"}},
        {"j1", {"still standing"}},
    };
    static const report_rig_fate over_fates[] = {
        {REPORT_RIG_ANGLE, {"survived", "!destroyed"}},
        {"j1", {"destroyed", "in phase 1"}},
    };
    test_campaign c;
    char a_id[64], d_id[64], bid[64], *md, *html, *esc;
    json_t *b, *st;

    cv_campaign(&c, "bob", "alice");
    cv_unit(&c, REPORT_RIG_ANGLE, "bob",
            "{\"class\":\"infantry\",\"era\":1,\"bonus\":0}", a_id);
    cv_unit(&c, "j1", "alice", "{\"class\":\"infantry\",\"era\":1,\"bonus\":0}",
            d_id);
    b = mx_battle(&c, 201,
                  "{\"system\":\"civ\",\"turn\":2,\"current_era\":1,"
                  "\"attacker\":{\"side\":\"bob\",\"units\":[\"%s\"]},"
                  "\"defender\":{\"side\":\"alice\",\"units\":[\"%s\"]},"
                  "\"dice\":{\"source\":\"entered\"}}",
                  a_id, d_id);
    snprintf(bid, sizeof bid, "%s", scs_str(b, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "open Civilization battle");
    report_rig_render_both(report_battle, b, &md, &html);
    report_rig_expect_in(md, "# Civilization battle");
    report_rig_expect_in(md, "No phase fought yet.");
    report_rig_expect_in(md, "**Turn:** 2");
    report_rig_expect_fates(md, html, open_fates, 2);
    report_rig_expect_entered(md, html);
    report_rig_expect_not_in(html, REPORT_RIG_ANGLE);
    esc = report_rig_html_model(REPORT_RIG_ANGLE);
    report_rig_expect_in(html, esc);
    free(esc);
    report_rig_check_mutations(report_battle, b);

    st = mx_act(&c, bid, 200,
                "{\"action\":\"phase\",\"dice\":{\"attacker\":[6],"
                "\"defender\":[1]}}");
    snprintf(rig_ctx, sizeof rig_ctx, "finished Civilization battle");
    report_rig_render_both(report_battle, st, &md, &html);
    report_rig_expect_in(md, "**The attacker (bob) wins** after 1 phase.");
    report_rig_expect_in(md, "**Phase 1**: attacker 5, defender 1");
    report_rig_expect_in(md, scs_str(st, "combat_id"));
    report_rig_expect_fates(md, html, over_fates, 2);
    report_rig_check_mutations(report_battle, st);
}
END_TEST

/* ---- 6. A campaign ---- */

START_TEST(test_campaign_report)
{
    static const char *const order[] = {
        "cbt_1", "SUMMARY-ONE",   "cbt_2", "SUMMARY-TWO",
        "cbt_3", "SUMMARY-THREE", "bat_1"};
    static const report_rig_fate fates[] = {
        {"B1", {"in play", "SCRUD modifier 0", "!eliminated"}},
        {"R2 *x*", {"eliminated", "routed", "cbt_3", "EDNA 3 of 8"}},
    };
    json_t *doc = report_rig_campaign_doc();
    char *md, *html;

    snprintf(rig_ctx, sizeof rig_ctx, "campaign");
    report_rig_render_both(report_campaign, doc, &md, &html);
    report_rig_expect_in_order(md, order, sizeof order / sizeof order[0]);
    report_rig_expect_in_order(html, order, sizeof order / sizeof order[0]);
    report_rig_expect_in(md, "# The \\<script\\>alert\\(1\\)\\</script\\> "
                             "\\[ford\\]\\(x\\)");
    report_rig_expect_in(html,
                         "<title>The &lt;script&gt;alert(1)&lt;/script&gt;");
    report_rig_expect_in(md, "## Combats (3)");
    report_rig_expect_in(md, "**blue**, exhausted for turn 4");
    report_rig_expect_fates(md, html, fates, sizeof fates / sizeof fates[0]);
    /* the service's Markdown: kept in Markdown, converted in HTML */
    report_rig_expect_in(md, "**SCRUD: blue vs red**");
    report_rig_expect_in(html, "<strong>SCRUD: blue vs red</strong>");
    report_rig_expect_in(html, "<em>Dice: entered.</em>");
    report_rig_expect_in(html, "SUMMARY-THREE *x* [a](b) wins");
    report_rig_expect_in(md, "SUMMARY-THREE \\*x\\* \\[a\\]\\(b\\) wins");
    report_rig_expect_in(html, "&lt;img src=x");
    report_rig_expect_not_in(md, "\n# not a heading");
    report_rig_expect_in(md, "abc123");
    report_rig_expect_in(html, "def456");
    /* Links a reader can open: the console's pages, not the API's paths
     * (which need a token); through a share link, the share page. */
    report_rig_expect_in(md, "Link: `/#/reports/cbt_2`");
    report_rig_expect_in(html, "/#/battles/bat_1");
    report_rig_expect_not_in(md, "/v1/campaigns/cmp_1/combats/cbt_2");
    report_rig_check_mutations(report_campaign, doc);
    json_object_set_new(doc, "share_url", json_string("/share/s3cr3t"));
    report_rig_render_both(report_campaign, doc, &md, &html);
    report_rig_expect_in(md, "Link: `/share/s3cr3t#combat-cbt_2`");
    report_rig_expect_in(html, "/share/s3cr3t#battle-bat_1");
    report_rig_expect_not_in(md, "/#/reports/");
    json_decref(doc);
}
END_TEST

/* ---- 7. Odd input ---- */

START_TEST(test_odd_input)
{
    static const char *const docs[] = {
        "{}",
        "[]",
        "\"x<y>*\\n# h\"",
        "42",
        "null",
        "{\"system\":\"scrud\"}",
        "{\"system\":\"scrud\",\"sides\":[1,null,{\"units\":{}}],"
        "\"pairs\":[{}],\"extra\":\"x\"}",
        "{\"system\":\"edna\",\"tests\":[{\"naturals\":\"x\"},[]],"
        "\"options\":[]}",
        "{\"system\":\"scs\",\"roll\":{\"dice\":{}},\"off_table\":true}",
        "{\"system\":\"matrix\",\"combats\":[1,\"x\",{\"rolled\":true,"
        "\"dice\":[1],\"reserves\":{}}],\"result\":{\"unit_results\":[]},"
        "\"setup\":{\"attacker\":{\"units\":[1,{}]}}}",
        "{\"system\":\"civ\",\"phases\":{\"a\":1},\"over\":true,"
        "\"input\":[]}",
        "{\"system\":\"x<y>*\\n# h\",\"id\":\"x<y>*\\n# h\"}",
        "{\"status\":\"open\",\"phases\":[[],{\"attacker\":[]}]}",
        "{\"rolls\":[{},1,{\"faces\":\"6\",\"side\":7}],\"dice\":{\"source\":"
        "\"seeded\"},\"ledger\":{\"hash\":7}}",
        "{\"campaign\":[],\"sides\":{},\"units\":[{\"side\":\"x\"}],"
        "\"combats\":[null,{\"summary\":7}],\"battles\":\"x\"}",
    };
    static const report_rig_render_fn renders[] = {report_combat, report_battle,
                                                   report_campaign};
    size_t i, r;

    for (i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        json_t *doc = json_loads(docs[i], JSON_DECODE_ANY, NULL);
        ck_assert_msg(doc != NULL, "case %zu is not JSON", i);
        for (r = 0; r < 3; r++) {
            snprintf(rig_ctx, sizeof rig_ctx, "odd input %zu, renderer %zu", i,
                     r);
            report_rig_check_odd(renders[r], doc, false);
        }
        json_decref(doc);
    }
    for (r = 0; r < 3; r++) {
        snprintf(rig_ctx, sizeof rig_ctx, "NULL, renderer %zu", r);
        report_rig_check_odd(renders[r], NULL, false);
    }
}
END_TEST

/* ---- 8. The format ---- */

/* A name or note such as "@everyone" pasted into Discord must not
 * mention anyone: Markdown puts a zero-width space after every @ of the
 * data; HTML keeps it as it is. */
START_TEST(test_no_mentions)
{
    json_t *cb = json_pack("{s:s, s:s, s:s}", "id", "cbt_x", "system", "scrud",
                           "note", "@everyone and @here");
    char *md = report_combat(cb, REPORT_MARKDOWN);
    char *html = report_combat(cb, REPORT_HTML);

    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(html);
    ck_assert_msg(strstr(md, "@\xe2\x80\x8b"
                             "everyone") != NULL &&
                      strstr(md, "@\xe2\x80\x8b"
                                 "here") != NULL,
                  "no zero-width space after @ in:\n%s", md);
    ck_assert_ptr_null(strstr(md, "@everyone"));
    ck_assert_ptr_nonnull(strstr(html, "@everyone"));
    free(md);
    free(html);
    json_decref(cb);
}
END_TEST

START_TEST(test_format_choose)
{
    static const char browser[] =
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    static const struct {
        const char *query, *accept;
        int rc;
        report_format want;
    } cases[] = {
        {NULL, NULL, 0, REPORT_JSON},
        {NULL, browser, 0, REPORT_HTML},
        {NULL, "*/*", 0, REPORT_JSON}, /* curl */
        {NULL, "application/json", 0, REPORT_JSON},
        {NULL, "text/markdown", 0, REPORT_MARKDOWN},
        {NULL, "text/html", 0, REPORT_HTML},
        {NULL, "TEXT/HTML", 0, REPORT_HTML},
        {NULL, "text/*", 0, REPORT_MARKDOWN}, /* a tie: Markdown first */
        {NULL, "application/*", 0, REPORT_JSON},
        {NULL, "text/markdown;q=0.9, text/html;q=0.9", 0, REPORT_MARKDOWN},
        {NULL, "text/html;q=0.5, text/markdown;q=0.4", 0, REPORT_HTML},
        {NULL, "text/html, application/json;q=0.9", 0, REPORT_HTML},
        {NULL, "application/json;q=0.1, text/html;q=0.2", 0, REPORT_HTML},
        {NULL, "text/html ; q=0.8 , text/markdown ; q=0.7", 0, REPORT_HTML},
        {NULL, "text/html;level=1;q=0.4, application/json;q=0.3", 0,
         REPORT_HTML},
        {NULL, "text/html;q=0", 0, REPORT_JSON}, /* refused: none usable */
        {NULL, "*/*;q=0.1, text/html;q=0", 0, REPORT_JSON},
        {NULL, "text/*;q=0.3, */*;q=0.5", 0, REPORT_JSON},
        {NULL, "*/*;q=0.5, text/markdown;q=0.6", 0, REPORT_MARKDOWN},
        {NULL, "text/html;q=abc, text/markdown", 0, REPORT_MARKDOWN},
        {NULL, "text/html;q=1.5, text/markdown;q=0.1", 0, REPORT_MARKDOWN},
        {NULL, "text/html;q=0.0001", 0, REPORT_JSON},
        {NULL, "image/png", 0, REPORT_JSON},
        {NULL, "text/plain", 0, REPORT_JSON},
        {NULL, "garbage", 0, REPORT_JSON},
        {NULL, "", 0, REPORT_JSON},
        {NULL, ",,;q=,/", 0, REPORT_JSON},
        {"json", "text/html", 0, REPORT_JSON}, /* ?format wins */
        {"md", NULL, 0, REPORT_MARKDOWN},
        {"markdown", "application/json", 0, REPORT_MARKDOWN},
        {"html", "*/*", 0, REPORT_HTML},
        {"md", "garbage", 0, REPORT_MARKDOWN},
        {"", "text/html", -1, REPORT_JSON},
        {"xml", NULL, -1, REPORT_JSON},
        {"HTML", NULL, -1, REPORT_JSON},
        {"md ", NULL, -1, REPORT_JSON},
        {"text/html", NULL, -1, REPORT_JSON},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        report_format got = (report_format)99;
        int rc = report_format_choose(cases[i].query, cases[i].accept, &got);
        ck_assert_msg(rc == cases[i].rc, "case %zu (%s, %s): rc %d", i,
                      cases[i].query ? cases[i].query : "NULL",
                      cases[i].accept ? cases[i].accept : "NULL", rc);
        ck_assert_msg(rc != 0 || got == cases[i].want,
                      "case %zu (%s, %s): format %d, expected %d", i,
                      cases[i].query ? cases[i].query : "NULL",
                      cases[i].accept ? cases[i].accept : "NULL", (int)got,
                      (int)cases[i].want);
        ck_assert_msg(rc == 0 || got == (report_format)99,
                      "case %zu: the format was set on an error", i);
    }
    ck_assert_str_eq(report_content_type(REPORT_JSON), "application/json");
    ck_assert_str_eq(report_content_type(REPORT_MARKDOWN),
                     "text/markdown; charset=utf-8");
    ck_assert_str_eq(report_content_type(REPORT_HTML),
                     "text/html; charset=utf-8");
}
END_TEST

Suite *suite_report(void)
{
    Suite *s = suite_create("report");
    TCase *live = tcase_create("live");
    TCase *pure = tcase_create("pure");

    tcase_set_timeout(live, 120);
    tcase_add_checked_fixture(live, report_rig_live_setup,
                              report_rig_live_teardown);
    tcase_add_test(live, test_scrud);
    tcase_add_test(live, test_scrud_seeded);
    tcase_add_test(live, test_campaign_combat);
    tcase_add_test(live, test_edna);
    tcase_add_test(live, test_scs);
    tcase_add_test(live, test_matrix_oneoff);
    tcase_add_test(live, test_matrix_battle);
    tcase_add_test(live, test_civ_oneoff);
    tcase_add_test(live, test_civ_battle);
    suite_add_tcase(s, live);
    tcase_set_timeout(pure, 120);
    tcase_add_checked_fixture(pure, report_rig_pure_setup,
                              report_rig_pure_teardown);
    tcase_add_test(pure, test_campaign_report);
    tcase_add_test(pure, test_odd_input);
    tcase_add_test(pure, test_format_choose);
    tcase_add_test(pure, test_no_mentions);
    suite_add_tcase(s, pure);
    return s;
}
