/*
 * test_ledger_tamper.c: the suite "ledger_http" (see test_ledger_http.c),
 * tampering with the database: each kind of change a database's owner
 * could make behind the service's back, on a fresh campaign, on either
 * store (harness.h's SQL), and what verify says of it.  Uses ledger_rig.h.
 */
#include "harness.h"
#include "ledger_rig.h"
#include "matrix_rig.h"
#include "rig.h"
#include "scs_rig.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Matrix battle of one unit against one (matrix_rig.h). */
#define M1(b, r, more)                                                         \
    BATTLE(more, ARMY("blue", Q(b), ""), ARMY("red", Q(r), ""),                \
           PAIR(Q(b), Q(r)))

/* Combats A (seeded, blue B1 against red R1), B (entered, B2 against R2)
 * and C (seeded, both against both), then a seeded Matrix battle of B1
 * against R1 rolled and accepted: its two actions, and its record. */
typedef struct world {
    test_campaign c;
    char combat[3][64];
    long long first[3], n[3]; /* each combat's first pos and dice */
    char bid[64], record[64];
    json_t *ledger; /* as it was: kept */
    long long length, seeded, entered;
} world;

static void world_make(world *w)
{
    static const char *const bodies[3] = {
        SCRUD(SU("B1"), SU("R1"), CS("a")),
        SCRUD(SUD("B2", 4), SUD("R2", 2), ",\"dice\":{\"source\":\"entered\"}"),
        SCRUD(SU("B1") "," SU("B2"), SU("R1") "," SU("R2"), CS("c"))};
    json_t *rep, *st;
    long long pos = 1;
    int i;

    memset(w, 0, sizeof *w);
    lg_campaign(&w->c);
    for (i = 0; i < 3; i++) {
        rep = lg_cpost(&w->c, 201, "combats/scrud", bodies[i]);
        snprintf(w->combat[i], sizeof w->combat[i], "%s", scs_str(rep, "id"));
        w->first[i] = pos;
        w->n[i] = (long long)json_array_size(scs_get(rep, "rolls"));
        pos += w->n[i];
        /* its rolls packed in its row, at their first place (migrations
         * 15 and 22), no row each */
        RIG_EQ_INT(ts_sql_int(rig_ts,
                              "SELECT count(*) FROM rolls WHERE combat_id = ?",
                              TS_TEXT(w->combat[i])),
                   0);
        RIG_EQ_INT(ts_sql_int(rig_ts,
                              "SELECT ledger_first FROM combats WHERE "
                              "id = ?",
                              TS_TEXT(w->combat[i])),
                   w->first[i]);
    }
    st = lg_cpost(&w->c, 201, "battles", M1(B1, R1, ""));
    snprintf(w->bid, sizeof w->bid, "%s", scs_str(st, "id"));
    lg_act(&w->c, w->bid, 200, MROLL(0, ""));
    st = lg_act(&w->c, w->bid, 200, ACCEPT(0));
    snprintf(rig_ctx, sizeof rig_ctx, "the world to tamper with");
    RIG_EQ_STR(scs_str(st, "status"), "finished");
    snprintf(w->record, sizeof w->record, "%s", scs_str(st, "combat_id"));
    w->length = pos + 1;
    w->seeded = w->n[0] + w->n[2] + 2;
    w->entered = w->n[1];
    w->ledger = lg_ledger(&w->c);
    RIG_EQ_INT(rig_inum(w->ledger, "length"), w->length);
    lg_check_verified(lg_verify(&w->c, "%s", ""), w->length, w->seeded,
                      w->seeded, w->entered, 0);
}

/* A die of a seeded roll at pos, changed (1..6 to another face). */
static int other_face(const world *w, long long pos)
{
    return (int)rig_inum(lg_at(w->ledger, pos), "natural") % 6 + 1;
}

/* The roll at pos (of combat k of w) given natural v, as stored: packed
 * in the combat's row, or a row of rolls (rig_edit_roll). */
static void set_natural_at(const world *w, long long pos, int v)
{
    char text[16];
    int k;

    for (k = 0; k < 3; k++)
        if (pos >= w->first[k] && pos < w->first[k] + w->n[k])
            break;
    ck_assert_int_lt(k, 3);
    snprintf(text, sizeof text, "%d", v);
    RIG_EQ_INT(rig_edit_roll(w->combat[k], (int)(pos - w->first[k] + 1), text),
               1);
}

/* The first roll dropped (rig_packed_rolls_edit). */
static void drop_first(db_roll *rolls, size_t *n, void *ctx)
{
    (void)ctx;
    memmove(rolls, rolls + 1, (*n - 1) * sizeof *rolls);
    (*n)--;
}

/* The first roll's previous hash set to ctx's (rig_packed_rolls_edit). */
static void set_first_prev(db_roll *rolls, size_t *n, void *ctx)
{
    ck_assert_uint_gt(*n, 0);
    snprintf(rolls[0].prev_hash, sizeof rolls[0].prev_hash, "%s",
             (const char *)ctx);
}

static const char *const tampering[] = {
    "a die changed",
    "a roll deleted",
    "a die changed and the chain rewritten to match",
    "a combat's client seed changed",
    "a combat's commitment changed",
    "a combat's server seed changed",
    "the last entry cut, the campaign's length and head set back",
    "a battle action's dice changed",
    "a finished battle's record changed",
    "a roll added outside the ledger",
    "a roll's stored previous hash changed",
    "a combat's packed rolls made unreadable",
};

START_TEST(test_tamper)
{
    world w;
    const test_campaign *c = &w.c;
    const char *a = w.combat[0], *cc = w.combat[2];
    long long last, pos;
    json_t *v, *edited;
    char want[96], kept[65], head[65];

    world_make(&w);
    last = w.length;
    snprintf(rig_ctx, sizeof rig_ctx, "tampering: %s", tampering[_i]);
    switch (_i) {
    case 0:
        pos = w.first[0] + 1;
        set_natural_at(&w, pos, other_face(&w, pos));
        lg_check_broken(lg_verify(c, "%s", ""), pos, "altered");
        break;
    case 1:
        if (!rig_packed_rolls_edit(w.combat[1], drop_first, NULL))
            ts_sql_exec(rig_ts,
                        "DELETE FROM rolls WHERE combat_id = ? AND seq = 1",
                        TS_TEXT(w.combat[1]));
        lg_check_broken(lg_verify(c, "%s", ""), w.first[1], "missing");
        break;
    case 2:
        pos = w.first[2] + 1;
        edited = scs_rig_keep(json_deep_copy(w.ledger));
        json_object_set_new(lg_at(edited, pos), "natural",
                            json_integer(other_face(&w, pos)));
        set_natural_at(&w, pos, other_face(&w, pos));
        lg_rewrite(c, edited, pos);
        v = lg_verify(c, "%s", "");
        /* the chain holds: only the seed re-derivation sees it */
        RIG_EQ_INT(rig_inum(scs_get(v, "ledger"), "walked"), last);
        lg_check_broken(v, pos, "the seed gives");
        /* and the head a player kept */
        snprintf(kept, sizeof kept, "%s", scs_str(w.ledger, "head"));
        v = lg_verify(c, "?pos=%lld&hash=%s", last, kept);
        lg_check_broken(v, pos, "the seed gives");
        RIG_EQ_INT(json_array_size(scs_get(v, "problems")), 2);
        RIG_EQ_INT(rig_inum(scs_at(scs_get(v, "problems"), 1), "pos"), last);
        break;
    case 3:
        ts_sql_exec(rig_ts, "UPDATE combats SET client_seed = 'b' WHERE id = ?",
                    TS_TEXT(cc));
        lg_check_broken(lg_verify(c, "%s", ""), w.first[2], "altered");
        break;
    case 4:
        ts_sql_exec(rig_ts, "UPDATE combats SET commitment = ? WHERE id = ?",
                    TS_TEXT(scs_str(lg_at(w.ledger, w.first[2]), "commitment")),
                    TS_TEXT(a));
        lg_check_broken(lg_verify(c, "%s", ""), w.first[0], "altered");
        break;
    case 5:
        ts_sql_exec(rig_ts,
                    "UPDATE combats SET server_seed = (SELECT server_seed "
                    "FROM combats WHERE id = ?) WHERE id = ?",
                    TS_TEXT(a), TS_TEXT(cc));
        v = lg_verify(c, "%s", "");
        RIG_EQ_INT(rig_inum(scs_get(v, "ledger"), "walked"), last);
        lg_check_broken(v, w.first[2], "commitment");
        break;
    case 6:
        snprintf(kept, sizeof kept, "%s",
                 scs_str(lg_at(w.ledger, last), "hash"));
        snprintf(head, sizeof head, "%s",
                 scs_str(lg_at(w.ledger, last - 1), "hash"));
        ts_sql_exec(rig_ts, "DELETE FROM battle_actions WHERE ledger_pos = ?",
                    TS_INT(last));
        RIG_EQ_INT(ts_sql_exec(rig_ts,
                               "UPDATE campaigns SET ledger_length = ? "
                               "WHERE id = ?",
                               TS_INT(last - 1), TS_TEXT(c->id)),
                   1);
        lg_check_broken(lg_verify(c, "%s", ""), last - 1, "head");
        ts_sql_exec(rig_ts, "UPDATE campaigns SET ledger_head = ? WHERE id = ?",
                    TS_TEXT(head), TS_TEXT(c->id));
        /* a consistent cut: only a hash kept from before tells */
        lg_check_verified(lg_verify(c, "%s", ""), last - 1, w.seeded, w.seeded,
                          w.entered, 0);
        lg_check_verified(lg_verify(c, "?pos=%lld&hash=%s", last - 1, head),
                          last - 1, w.seeded, w.seeded, w.entered, 0);
        lg_check_broken(lg_verify(c, "?pos=%lld&hash=%s", last, kept), last,
                        "gone");
        scs_rig_refuse(422, NULL, "pos", "GET", c->umpire, NULL,
                       "/v1/campaigns/%s/ledger/verify?pos=0&hash=%s", c->id,
                       kept);
        scs_rig_refuse(422, NULL, "hash", "GET", c->umpire, NULL,
                       "/v1/campaigns/%s/ledger/verify?pos=2", c->id);
        break;
    case 7:
        pos = last - 1;
        snprintf(want, sizeof want, "[%d,%d]",
                 (int)json_integer_value(
                     scs_at(scs_get(lg_at(w.ledger, pos), "naturals"), 0)) %
                         6 +
                     1,
                 (int)json_integer_value(
                     scs_at(scs_get(lg_at(w.ledger, pos), "naturals"), 1)));
        ts_sql_exec(rig_ts,
                    "UPDATE battle_actions SET naturals = ? WHERE "
                    "ledger_pos = ?",
                    TS_TEXT(want), TS_INT(pos));
        lg_check_broken(lg_verify(c, "%s", ""), pos, "altered");
        break;
    case 8:
        RIG_EQ_INT(ts_sql_exec(rig_ts,
                               "UPDATE rolls SET \"natural\" = \"natural\" "
                               "% 6 + 1 WHERE combat_id = ? AND seq = 1",
                               TS_TEXT(w.record)),
                   1);
        v = lg_verify(c, "%s", "");
        RIG_EQ_INT(rig_inum(scs_get(v, "ledger"), "walked"), last);
        lg_check_broken(v, 0, w.bid);
        break;
    case 9:
        RIG_EQ_INT(ts_sql_exec(rig_ts,
                               "INSERT INTO rolls (combat_id, seq, side_name, "
                               "unit_id, unit_name, reason, faces, "
                               "\"natural\", modified, source, rng) VALUES "
                               "(?, ?, 'blue', NULL, 'B1', 'scrud.front', 6, "
                               "6, 6, 'seeded', 'v1')",
                               TS_TEXT(a), TS_INT(w.n[0] + 1)),
                   1);
        snprintf(want, sizeof want, "%s#%lld", a, w.n[0] + 1);
        lg_check_broken(lg_verify(c, "%s", ""), 0, want);
        break;
    case 10:
        /* the first roll of C: the one whose previous hash is stored (the
         * others' is the hash of the roll before theirs) */
        pos = w.first[2];
        snprintf(want, sizeof want, "%s",
                 scs_str(lg_at(w.ledger, pos - 2), "hash"));
        if (!rig_packed_rolls_edit(cc, set_first_prev, want))
            ts_sql_exec(rig_ts,
                        "UPDATE rolls SET prev_hash = ? WHERE ledger_pos = ?",
                        TS_TEXT(want), TS_INT(pos));
        lg_check_broken(lg_verify(c, "%s", ""), pos, NULL);
        break;
    case 11:
        RIG_EQ_INT(
            ts_sql_exec(rig_ts, "UPDATE combats SET rolls = ? WHERE id = ?",
                        TS_BLOB("\x28\xb5\x2f\xfd\x00\x58", 6), TS_TEXT(cc)),
            1);
        lg_check_broken(lg_verify(c, "%s", ""), w.first[2], NULL);
        break;
    }
}
END_TEST

void lg_add_tamper_tests(TCase *tc)
{
    tcase_add_loop_test(tc, test_tamper, 0,
                        (int)(sizeof tampering / sizeof tampering[0]));
}
