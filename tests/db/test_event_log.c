/*
 * test_event_log.c: tests db/event_log.c and migration 10's campaign
 * event log: its triggers log, in order, battles created, acted on and
 * changing status and tokens revoked, whatever writes them (raw SQL here,
 * as any front door would); on SQLite the code that writes them logs
 * unit history events (db_events_insert, since migration 18), a
 * campaign's combats (not a one-off's) and the ledger's moves
 * (db_log_combat and db_log_ledger, since migration 25: a combat and its
 * move in one row, read back as two events); nothing for a job that
 * fails; what is joined in when read; reads by campaign, between seqs and
 * by batches; and the migration logging what the database held before, in
 * the order of its times.  A fresh file with every migration
 * (db_fixture.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db.h"
#include "db_conn.h"
#include "db_fixture.h"
#include "migrations.h"
#include "suites.h"

/* The migration that adds the log (migrations.c). */
#define EVENT_LOG_MIGRATION 10

#define T0 "2026-11-22T10:00:00.000Z"
#define T1 "2026-11-22T10:00:01.000Z"
#define T2 "2026-11-22T10:00:02.000Z"
#define T3 "2026-11-22T10:00:03.000Z"
#define HEAD_A                                                                 \
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static err_code job_combat(db_conn *c, void *arg, err_info *e)
{
    return db_combat_insert(c, arg, NULL, 0, e);
}

static err_code job_combat_then_fail(db_conn *c, void *arg, err_info *e)
{
    err_code rc = db_combat_insert(c, arg, NULL, 0, e);

    return rc ? rc : err_set(e, ERR_RULE, NULL, "refused after the insert");
}

static err_code job_event(db_conn *c, void *arg, err_info *e)
{
    return db_event_insert(c, arg, e);
}

/* The log after seq after (campaign_id NULL: every campaign's), read
 * through the pool; *n events, new (db_event_log_free). */
static db_logged_event *read_log(const char *campaign_id, long long after,
                                 long long upto, int limit, size_t *n)
{
    db_conn *c = db_read_acquire(db_fixture_db);
    db_logged_event *evs = NULL;
    err_info e;

    err_clear(&e);
    ck_assert_msg(db_event_log_after(c, campaign_id, after, upto, limit, &evs,
                                     n, &e) == ERR_OK,
                  "%s", e.message);
    db_read_release(db_fixture_db, c);
    return evs;
}

static long long last_seq(const char *campaign_id)
{
    db_conn *c = db_read_acquire(db_fixture_db);
    long long seq = -1;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(db_event_log_last(c, campaign_id, &seq, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    return seq;
}

/* A campaign with a side and a unit. */
static void setup_campaign(db_campaign *cmp, db_side *side, db_unit *u,
                           const char *name)
{
    db_fixture_add_campaign(cmp, name);
    db_fixture_add_side(side, cmp->id, NULL, "red");
    db_fixture_new_unit(u, side, NULL, "R1");
    db_fixture_write_ok(db_fixture_job_unit, u, "unit");
}

static void add_event(const db_unit *u, const char *at, const char *kind)
{
    db_event ev;

    memset(&ev, 0, sizeof ev);
    snprintf(ev.unit_id, sizeof ev.unit_id, "%s", u->id);
    snprintf(ev.campaign_id, sizeof ev.campaign_id, "%s", u->campaign_id);
    snprintf(ev.at, sizeof ev.at, "%s", at);
    snprintf(ev.kind, sizeof ev.kind, "%s", kind);
    ev.after = "{\"name\":\"R1\"}";
    db_fixture_write_ok(job_event, &ev, "history event");
}

START_TEST(test_combats_and_unit_events_are_logged)
{
    db_campaign cmp;
    db_side side;
    db_unit u;
    db_combat cb, oneoff;
    db_logged_event *evs;
    size_t n;

    db_fixture_open();
    ck_assert_int_eq(last_seq(NULL), 0);
    setup_campaign(&cmp, &side, &u, "one");
    add_event(&u, T0, "created");
    db_fixture_new_combat(&cb, cmp.id, T1, NULL, NULL);
    db_fixture_write_ok(job_combat, &cb, "combat");
    db_fixture_new_combat(&oneoff, "", T2, NULL, NULL); /* no campaign */
    db_fixture_write_ok(job_combat, &oneoff, "one-off");
    evs = read_log(NULL, 0, 0, 100, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(evs[0].kind, "unit");
    ck_assert_str_eq(evs[0].campaign_id, cmp.id);
    ck_assert_str_eq(evs[0].unit.unit_id, u.id);
    ck_assert_str_eq(evs[0].unit.kind, "created");
    ck_assert_str_eq(evs[0].unit.after, "{\"name\":\"R1\"}");
    ck_assert_int_eq(evs[0].unit.unit_seq, 1);
    ck_assert_str_eq(evs[1].kind, "combat");
    ck_assert_str_eq(evs[1].record_id, cb.id);
    ck_assert_str_eq(evs[1].system, "scrud");
    ck_assert_str_eq(evs[1].created_at, T1);
    ck_assert_str_eq(evs[1].summary, cb.summary);
    ck_assert_ptr_null(evs[1].unit.after);
    ck_assert_int_gt(evs[1].seq, evs[0].seq);
    ck_assert_int_eq(last_seq(NULL), evs[1].seq);
    ck_assert_int_eq(last_seq(cmp.id), evs[1].seq);
    db_event_log_free(evs, n);
}
END_TEST

/* A job that fails leaves no event: the log is in its transaction. */
START_TEST(test_failed_job_logs_nothing)
{
    db_campaign cmp;
    db_side side;
    db_unit u;
    db_combat cb;
    err_info e;

    db_fixture_open();
    setup_campaign(&cmp, &side, &u, "one");
    db_fixture_new_combat(&cb, cmp.id, T1, NULL, NULL);
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_combat_then_fail, &cb, &e),
                     ERR_RULE);
    ck_assert_int_eq(last_seq(NULL), 0);
}
END_TEST

/* The campaign's ledger moved to length 3 and HEAD_A, as a battle's
 * action moves it (db_chain_save, which logs the move). */
static err_code job_ledger_move(db_conn *c, void *arg, err_info *e)
{
    db_chain ch;
    err_code rc = db_chain_open(c, arg, &ch, e);

    if (rc != ERR_OK)
        return rc;
    ch.length = 3;
    memcpy(ch.head, HEAD_A, sizeof ch.head);
    return db_chain_save(c, &ch, e);
}

/* The campaign's ledger saved where it is: no move, nothing logged. */
static err_code job_ledger_same(db_conn *c, void *arg, err_info *e)
{
    db_chain ch;
    err_code rc = db_chain_open(c, arg, &ch, e);

    return rc ? rc : db_chain_save(c, &ch, e);
}

/* Battles and tokens through raw SQL, as any writer would (their
 * triggers log them): a battle created, acted on (the status then), its
 * status changed, an update that changes neither, and a token revoked
 * (once); between them, the ledger moved by the code that moves it
 * (migration 25: no trigger), then saved where it is (no event). */
START_TEST(test_battles_and_ledger_are_logged)
{
    db_campaign cmp;
    db_side side;
    db_unit u;
    db_logged_event *evs;
    char sql[2048];
    size_t n;

    db_fixture_open();
    setup_campaign(&cmp, &side, &u, "one");
    snprintf(sql, sizeof sql,
             "INSERT INTO battles (id, campaign_id, system, status, turn, "
             "created_at, updated_at, dice_source, setup) VALUES ('bat_1', "
             "'%s', 'civ', 'open', 1, '" T0 "', '" T0 "', 'entered', '{}');"
             "INSERT INTO battle_actions (battle_id, seq, at, kind, combat, "
             "army, unit, naturals) VALUES ('bat_1', 1, '" T1 "', 'phase', "
             "0, -1, -1, '[]');"
             "UPDATE battles SET n_actions = 1 WHERE id = 'bat_1';"
             "UPDATE battles SET status = 'finished' WHERE id = 'bat_1';",
             cmp.id);
    db_fixture_raw_exec(sql);
    db_fixture_write_ok(job_ledger_move, cmp.id, "the ledger's move");
    db_fixture_write_ok(job_ledger_same, cmp.id, "the ledger saved again");
    snprintf(sql, sizeof sql,
             "INSERT INTO tokens (id, campaign_id, role, hash, created_at) "
             "VALUES ('tok_1', '%s', 'umpire', 'ab', '" T0 "');"
             "UPDATE tokens SET revoked_at = '" T2 "' WHERE id = 'tok_1';"
             "UPDATE tokens SET revoked_at = '" T3 "' WHERE id = 'tok_1';",
             cmp.id);
    db_fixture_raw_exec(sql);
    evs = read_log(cmp.id, 0, LLONG_MAX, 100, &n);
    ck_assert_uint_eq(n, 5);
    ck_assert_str_eq(evs[0].kind, "battle");
    ck_assert_str_eq(evs[0].record_id, "bat_1");
    ck_assert_str_eq(evs[0].system, "civ");
    ck_assert_str_eq(evs[0].status, "open");
    ck_assert_int_eq(evs[0].n, 0);
    ck_assert_str_eq(evs[1].kind, "battle");
    ck_assert_str_eq(evs[1].status, "open");
    ck_assert_int_eq(evs[1].n, 1);
    ck_assert_str_eq(evs[2].kind, "battle");
    ck_assert_str_eq(evs[2].status, "finished");
    ck_assert_int_eq(evs[2].n, 1);
    ck_assert_str_eq(evs[3].kind, "ledger");
    ck_assert_int_eq(evs[3].n, 3);
    ck_assert_str_eq(evs[3].head, HEAD_A);
    ck_assert_str_eq(evs[4].kind, "revoked"); /* once */
    ck_assert_str_eq(evs[4].record_id, "tok_1");
    db_event_log_free(evs, n);
}
END_TEST

/* One campaign's events between two seqs, a batch at a time, against
 * the whole log filtered by hand (the reference). */
START_TEST(test_reads_by_campaign_and_bounds)
{
    db_campaign a, b;
    db_side sa, sb;
    db_unit ua, ub;
    db_logged_event *all, *got;
    long long want[16];
    size_t n_all, n, n_want = 0, i;
    int k;

    db_fixture_open();
    setup_campaign(&a, &sa, &ua, "a");
    setup_campaign(&b, &sb, &ub, "b");
    for (k = 0; k < 6; k++)
        add_event(k % 2 ? &ub : &ua, T0, "correction");
    all = read_log(NULL, 0, 0, 100, &n_all);
    ck_assert_uint_eq(n_all, 6);
    for (i = 0; i < n_all; i++)
        if (strcmp(all[i].campaign_id, a.id) == 0)
            want[n_want++] = all[i].seq;
    ck_assert_uint_eq(n_want, 3);
    /* After the first, up to the second: the second alone. */
    got = read_log(a.id, want[0], want[1], 100, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(got[0].seq, want[1]);
    db_event_log_free(got, n);
    /* A batch of 2, then the rest. */
    got = read_log(a.id, 0, LLONG_MAX, 2, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(got[1].seq, want[1]);
    db_event_log_free(got, n);
    got = read_log(a.id, want[1], LLONG_MAX, 2, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(got[0].seq, want[2]);
    db_event_log_free(got, n);
    /* Every campaign's, in batches. */
    got = read_log(NULL, all[2].seq, 0, 2, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(got[0].seq, all[3].seq);
    db_event_log_free(got, n);
    ck_assert_int_eq(last_seq(a.id), want[2]);
    ck_assert_int_eq(last_seq(NULL), all[5].seq);
    db_event_log_free(all, n_all);
}
END_TEST

/* A combat of the campaign and n history events of unit u, their
 * documents packed in its row (db_combat_pack_events), as a staged
 * campaign combat writes them. */
enum { BLOCK_EVENTS = DB_LOG_BLOCK_MAX + 6 };
#define DB_BLOCK_MAX_S "64" /* DB_LOG_BLOCK_MAX, in SQL */
_Static_assert(DB_LOG_BLOCK_MAX == 64, "DB_BLOCK_MAX_S");
typedef struct block_fight {
    db_combat cb;
    db_event ev[BLOCK_EVENTS];
    size_t n;
} block_fight;

static void block_fight_make(block_fight *f, const db_unit *u, size_t n)
{
    db_event *evs[BLOCK_EVENTS];
    size_t i;

    ck_assert_uint_le(n, BLOCK_EVENTS);
    memset(f, 0, sizeof *f);
    db_fixture_new_combat(&f->cb, u->campaign_id, T1, NULL, NULL);
    f->cb.report = "{\"units\":[{\"name\":\"R1\"}]}";
    f->n = n;
    for (i = 0; i < n; i++) {
        db_event *ev = &f->ev[i];
        snprintf(ev->unit_id, sizeof ev->unit_id, "%s", u->id);
        snprintf(ev->campaign_id, sizeof ev->campaign_id, "%s", u->campaign_id);
        snprintf(ev->at, sizeof ev->at, "%s", T1);
        snprintf(ev->kind, sizeof ev->kind, "combat");
        snprintf(ev->combat_id, sizeof ev->combat_id, "%s", f->cb.id);
        snprintf(ev->actor_token_id, sizeof ev->actor_token_id, "%s",
                 f->cb.actor_token_id);
        ev->after = "{\"name\":\"R1\"}";
        evs[i] = ev;
    }
    ck_assert_int_eq(db_combat_pack_events(&f->cb, evs, n, NULL), ERR_OK);
    ck_assert_int_eq(f->ev[n - 1].doc_slot, (int)n);
}

static err_code job_block_fight(db_conn *c, void *arg, err_info *e)
{
    block_fight *f = arg;
    const db_event *evs[BLOCK_EVENTS];
    err_code rc = db_combat_insert(c, &f->cb, NULL, 0, e);
    size_t i;

    for (i = 0; i < f->n; i++)
        evs[i] = &f->ev[i];
    return rc ? rc : db_events_insert(c, evs, f->n, e);
}

/* The ids of the n events evs (at most 128). */
static void ids_of(const db_logged_event *evs, size_t n, long long *ids)
{
    size_t i;

    ck_assert_uint_le(n, 128);
    for (i = 0; i < n; i++)
        ids[i] = evs[i].seq;
}

/* The log of campaign_id (NULL: every campaign's) read 2 events at a
 * time, each batch after the last one's last id: want's n ids are
 * campaign cmp's, each once, in order. */
static void check_in_batches(const char *campaign_id, const char *cmp,
                             const long long *want, size_t n_want)
{
    long long got_ids[128], after = 0;
    db_logged_event *got;
    size_t n, i, k = 0;

    ck_assert_uint_le(n_want, sizeof got_ids / sizeof got_ids[0]);
    do {
        got = read_log(campaign_id, after, campaign_id ? LLONG_MAX : 0, 2, &n);
        for (i = 0; i < n; i++) {
            if (campaign_id != NULL) /* its own only */
                ck_assert_str_eq(got[i].campaign_id, campaign_id);
            if (strcmp(got[i].campaign_id, cmp) != 0)
                continue;
            ck_assert_uint_lt(k, n_want); /* none twice */
            got_ids[k++] = got[i].seq;
        }
        if (n > 0)
            after = got[n - 1].seq;
        db_event_log_free(got, n);
    } while (n == 2);
    ck_assert_uint_eq(k, n_want);
    ck_assert_mem_eq(got_ids, want, n_want * sizeof want[0]);
}

/* A combat's packed events (doc_slot) are logged as one row, its seq the
 * last of the places they take (migration 17), and read back one event
 * per place, in order, whole; a read may start, end or stop (its limit)
 * within the block and go on from there; what is logged next takes the
 * place after it.  More than DB_LOG_BLOCK_MAX make two rows. */
START_TEST(test_packed_events_are_logged_as_a_block)
{
    db_campaign cmp, other;
    db_side side, side_o;
    db_unit u, uo;
    block_fight f;
    db_logged_event *all, *got;
    long long ids[128];
    size_t n_all, n, i;

    db_fixture_open();
    setup_campaign(&cmp, &side, &u, "one");
    setup_campaign(&other, &side_o, &uo, "two");
    block_fight_make(&f, &u, 3);
    db_fixture_write_ok(job_block_fight, &f, "combat and 3 events");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);
    add_event(&uo, T2, "correction"); /* another campaign's, after */
    add_event(&u, T3, "correction");  /* its own row, after */
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM event_log "
                                              "WHERE kind = 'unit'"),
                     3);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT n FROM event_log WHERE "
                                              "kind = 'unit' ORDER BY seq "
                                              "LIMIT 1"),
                     3);

    all = read_log(cmp.id, 0, LLONG_MAX, 100, &n_all);
    ck_assert_uint_eq(n_all, 5);
    ck_assert_str_eq(all[0].kind, "combat");
    for (i = 1; i <= 3; i++) {
        ck_assert_str_eq(all[i].kind, "unit");
        ck_assert_int_eq(all[i].seq, all[0].seq + (long long)i);
        ck_assert_int_eq(all[i].unit.unit_seq, (long long)i);
        ck_assert_str_eq(all[i].unit.combat_id, f.cb.id);
        ck_assert_str_eq(all[i].unit.after, "{\"name\":\"R1\"}");
        ck_assert_int_eq(all[i].unit.doc_slot, (int)i);
    }
    ck_assert_str_eq(all[4].unit.kind, "correction");
    ck_assert_int_eq(all[4].unit.unit_seq, 4);
    /* The other campaign's event took the place after the block. */
    ck_assert_int_eq(all[4].seq, all[3].seq + 2);
    ck_assert_int_eq(last_seq(cmp.id), all[4].seq);
    ids_of(all, n_all, ids);

    /* From within the block. */
    got = read_log(cmp.id, ids[1], LLONG_MAX, 100, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(got[0].seq, ids[2]);
    ck_assert_int_eq(got[0].unit.unit_seq, 2);
    db_event_log_free(got, n);
    /* Up to within it. */
    got = read_log(cmp.id, 0, ids[2], 100, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(got[2].seq, ids[2]);
    db_event_log_free(got, n);
    /* Every campaign's, two at a time: the same events, the other
     * campaign's among them, each once; the campaign's (a stream catching
     * up), the same. */
    check_in_batches(NULL, cmp.id, ids, n_all);
    check_in_batches(cmp.id, cmp.id, ids, n_all);
    db_event_log_free(all, n_all);

    /* More than a block holds. */
    block_fight_make(&f, &u, BLOCK_EVENTS);
    db_fixture_write_ok(job_block_fight, &f, "combat and its many events");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM event_log "
                                 "WHERE kind = 'unit' AND n = " DB_BLOCK_MAX_S),
        1);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT n FROM event_log "
                                              "ORDER BY seq DESC LIMIT 1"),
                     BLOCK_EVENTS - DB_LOG_BLOCK_MAX);
    all = read_log(cmp.id, ids[4], LLONG_MAX, 200, &n_all);
    ck_assert_uint_eq(n_all, 1 + BLOCK_EVENTS);
    for (i = 1; i < n_all; i++) {
        ck_assert_int_eq(all[i].seq, all[i - 1].seq + 1);
        ck_assert_int_eq(all[i].unit.unit_seq, 4 + (long long)i);
    }
    /* Up to the first of a full block, whose row's seq is 63 after it. */
    got = read_log(cmp.id, ids[4], all[1].seq, 200, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(got[1].seq, all[1].seq);
    ck_assert_int_eq(got[1].unit.unit_seq, 5);
    db_event_log_free(got, n);
    db_event_log_free(all, n_all);
}
END_TEST

/* A block fight whose combat drew n_rolls dice (seeded, chained onto the
 * campaign's ledger by db_combat_insert), then its events. */
typedef struct rolled_fight {
    block_fight f;
    db_roll rolls[4];
    size_t n_rolls;
} rolled_fight;

static err_code job_rolled_fight(db_conn *c, void *arg, err_info *e)
{
    rolled_fight *r = arg;
    const db_event *evs[BLOCK_EVENTS];
    err_code rc = db_combat_insert(c, &r->f.cb, r->rolls, r->n_rolls, e);
    size_t i;

    for (i = 0; i < r->f.n; i++)
        evs[i] = &r->f.ev[i];
    return rc ? rc : db_events_insert(c, evs, r->f.n, e);
}

static void rolled_fight_make(rolled_fight *r, const db_unit *u, size_t n_ev,
                              size_t n_rolls)
{
    size_t i;

    memset(r, 0, sizeof *r);
    block_fight_make(&r->f, u, n_ev);
    r->n_rolls = n_rolls;
    for (i = 0; i < n_rolls; i++) {
        db_roll *d = &r->rolls[i];
        d->seq = (int)i + 1;
        snprintf(d->side_name, sizeof d->side_name, "red");
        snprintf(d->unit_id, sizeof d->unit_id, "%s", u->id);
        snprintf(d->unit_name, sizeof d->unit_name, "R1");
        snprintf(d->reason, sizeof d->reason, "scrud.front");
        d->faces = 6;
        d->natural = (int)i % 6 + 1;
        d->modified = d->natural;
        snprintf(d->source, sizeof d->source, "seeded");
        snprintf(d->rng, sizeof d->rng, "v1");
    }
}

/* The campaign's ledger head now, into head. */
static void ledger_head_of(const char *campaign_id, char head[LEDGER_HASH_HEX])
{
    db_conn *c = db_read_acquire(db_fixture_db);
    db_chain ch;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(db_chain_open(c, campaign_id, &ch, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    memcpy(head, ch.head, LEDGER_HASH_HEX);
}

/* The log of campaign_id as text, every window (after, upto] of it:
 * after from 0 to its last, upto each of after + 1 to after + 70, and
 * no bound; every event's id, kind, record, n, head and unit event.
 * New. */
static char *windows_text(const char *campaign_id)
{
    long long last = last_seq(campaign_id), after, width;
    char *text = NULL;
    size_t len = 0, n, i;
    FILE *f = open_memstream(&text, &len);

    for (after = 0; after <= last; after++)
        for (width = 1; width <= 71; width++) {
            db_logged_event *evs =
                read_log(campaign_id, after,
                         width == 71 ? LLONG_MAX : after + width, 500, &n);
            fprintf(f, "(%lld, +%lld]:", after, width);
            for (i = 0; i < n; i++)
                fprintf(f, " %lld %s %s %lld %s %lld %s %d", evs[i].seq,
                        evs[i].kind, evs[i].record_id, evs[i].n, evs[i].head,
                        evs[i].unit.unit_seq, evs[i].unit.combat_id,
                        evs[i].unit.doc_slot);
            fputc('\n', f);
            db_event_log_free(evs, n);
        }
    fclose(f);
    return text;
}

/* a and b the same text; else where they part shows. */
static void same_text(const char *a, const char *b)
{
    size_t at = 0;

    while (a[at] && a[at] == b[at])
        at++;
    ck_assert_msg(a[at] == b[at], "read otherwise from: %.200s", a + at);
}

/* A combat logged with its units' events in its own row (migration 27:
 * a staged combat's, db_events_insert_logged), a full block of them:
 * the row takes DB_LOG_BLOCK_MAX + 2 ids (the combat, the ledger's move,
 * its events), and every window of the log reads the same as from the
 * two rows it stands for, whichever of its ids the window starts or ends
 * at. */
START_TEST(test_combat_row_with_a_full_block)
{
    db_campaign cmp;
    db_side side;
    db_unit u;
    rolled_fight r;
    long long combat_seq, block_seq, first;
    char sql[256], *split, *folded;

    db_fixture_open();
    setup_campaign(&cmp, &side, &u, "one");
    rolled_fight_make(&r, &u, DB_LOG_BLOCK_MAX, 2);
    db_fixture_write_ok(job_rolled_fight, &r, "combat of 2 dice, 64 events");
    free(r.f.cb.unit_docs_z);
    free(r.f.cb.report_z);
    add_event(&u, T3, "correction"); /* its own row, after */
    split = windows_text(cmp.id);
    combat_seq = db_fixture_raw_query_int(
        "SELECT seq FROM event_log WHERE kind = 'combat'");
    block_seq = db_fixture_raw_query_int("SELECT seq FROM event_log WHERE kind "
                                         "= 'unit' AND n = " DB_BLOCK_MAX_S);
    first = db_fixture_raw_query_int("SELECT unit_seq FROM event_log WHERE "
                                     "kind = 'unit' AND n = " DB_BLOCK_MAX_S);
    ck_assert_int_eq(block_seq, combat_seq + DB_LOG_BLOCK_MAX);
    /* the two rows made one, as db_log_combat_held writes it */
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    snprintf(sql, sizeof sql,
             "BEGIN; DELETE FROM event_log WHERE seq = %lld; UPDATE event_log "
             "SET seq = %lld, unit_seq = %lld, n_units = %d WHERE seq = %lld; "
             "COMMIT;",
             block_seq, block_seq, first, DB_LOG_BLOCK_MAX, combat_seq);
    db_fixture_raw_exec(sql);
    db_fixture_open();
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM event_log "
                                 "WHERE n_units = " DB_BLOCK_MAX_S),
        1);
    folded = windows_text(cmp.id);
    same_text(folded, split);
    free(split);
    free(folded);
}
END_TEST

/* A block fight whose combat's row of the log is held back and written
 * with its events (db_events_insert_logged), as a staged combat's: the
 * combat inserted (which logs it), its row taken out again in the same
 * transaction and held instead; no ledger move (no dice). */
static err_code job_held_block_fight(db_conn *c, void *arg, err_info *e)
{
    block_fight *f = arg;
    const db_event *evs[BLOCK_EVENTS];
    db_combat_log held;
    err_code rc = db_combat_insert(c, &f->cb, NULL, 0, e);
    size_t i;

    if (rc != ERR_OK)
        return rc;
    ck_assert_int_eq(sqlite3_exec(DB_LITE(c),
                                  "DELETE FROM event_log WHERE seq = (SELECT "
                                  "max(seq) FROM event_log) AND kind = "
                                  "'combat'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_changes(DB_LITE(c)), 1);
    memset(&held, 0, sizeof held);
    held.is_pending = true;
    snprintf(held.campaign_id, sizeof held.campaign_id, "%s",
             f->cb.campaign_id);
    snprintf(held.combat_id, sizeof held.combat_id, "%s", f->cb.id);
    for (i = 0; i < f->n; i++)
        evs[i] = &f->ev[i];
    rc = db_events_insert_logged(c, evs, f->n, &held, e);
    ck_assert(rc != ERR_OK || !held.is_pending);
    return rc;
}

/* A combat whose row is held for more events than a block holds, without
 * a ledger move: its row holds the first DB_LOG_BLOCK_MAX, a block row
 * the rest; every id once, in order; and every window reads as the rows
 * of before (the combat's own, then two blocks). */
START_TEST(test_held_combat_row_past_a_block)
{
    db_campaign cmp;
    db_side side;
    db_unit u;
    block_fight f;
    db_logged_event *all;
    size_t n_all, i;
    char *folded, *split;

    db_fixture_open();
    setup_campaign(&cmp, &side, &u, "one");
    block_fight_make(&f, &u, BLOCK_EVENTS);
    db_fixture_write_ok(job_held_block_fight, &f, "combat held, 70 events");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);
    add_event(&u, T3, "correction"); /* its own row, after */
    ck_assert_int_eq(
        db_fixture_raw_query_int(
            "SELECT count(*) FROM event_log WHERE kind = "
            "'combat' AND head IS NULL AND n_units = " DB_BLOCK_MAX_S),
        1);
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT n FROM event_log WHERE kind = 'unit' AND n "
                         "IS NOT NULL"),
                     BLOCK_EVENTS - DB_LOG_BLOCK_MAX);
    all = read_log(cmp.id, 0, LLONG_MAX, 500, &n_all);
    ck_assert_uint_eq(n_all, 1 + BLOCK_EVENTS + 1);
    ck_assert_str_eq(all[0].kind, "combat");
    ck_assert_str_eq(all[0].record_id, f.cb.id);
    for (i = 1; i < n_all; i++)
        ck_assert_int_eq(all[i].seq, all[i - 1].seq + 1);
    for (i = 1; i <= BLOCK_EVENTS; i++) {
        ck_assert_str_eq(all[i].kind, "unit");
        ck_assert_str_eq(all[i].unit.combat_id, f.cb.id);
        ck_assert_int_eq(all[i].unit.doc_slot, (int)i);
    }
    db_event_log_free(all, n_all);
    folded = windows_text(cmp.id);
    /* the combat's own row again, before its events' first block */
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    db_fixture_raw_exec(
        "BEGIN; INSERT INTO event_log (seq, campaign_id, kind, unit_seq, n) "
        "SELECT -seq, campaign_id, 'unit', unit_seq, n_units FROM event_log "
        "WHERE n_units IS NOT NULL; UPDATE event_log SET seq = seq - "
        "n_units, unit_seq = NULL, n_units = NULL WHERE n_units IS NOT NULL; "
        "UPDATE event_log SET seq = -seq WHERE seq < 0; COMMIT;");
    db_fixture_open();
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM event_log "
                                              "WHERE n_units IS NOT NULL"),
                     0);
    split = windows_text(cmp.id);
    same_text(folded, split);
    free(folded);
    free(split);
}
END_TEST

/* A campaign combat that moves the ledger is logged in one row for both
 * (migration 25: its id, and the ledger's length and head after it),
 * read back as the two events the triggers logged before, the combat's
 * id one before the move's: the combat with its system and summary and
 * no length or head, the move with its length and head and no combat.
 * A read may start, end or stop (its limit) between the two.  A combat
 * without dice, and one of another campaign, are rows of their own. */
START_TEST(test_combat_and_ledger_move_are_one_row)
{
    db_campaign cmp, other;
    db_side side, side_o;
    db_unit u, uo;
    rolled_fight r;
    db_combat plain;
    db_logged_event *all, *got;
    long long ids[16], after;
    size_t n_all, n, i, k;
    char head[LEDGER_HASH_HEX], sql[256];

    db_fixture_open();
    setup_campaign(&cmp, &side, &u, "one");
    setup_campaign(&other, &side_o, &uo, "two");
    rolled_fight_make(&r, &u, 3, 2);
    db_fixture_write_ok(job_rolled_fight, &r, "combat of 2 dice, 3 events");
    free(r.f.cb.unit_docs_z);
    free(r.f.cb.report_z);
    db_fixture_new_combat(&plain, other.id, T2, NULL, NULL);
    db_fixture_write_ok(job_combat, &plain, "a combat without dice");
    /* Stored: one row for the combat and its move, one for its events. */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM event_log WHERE campaign_id = '%s'", cmp.id);
    ck_assert_int_eq(db_fixture_raw_query_int(sql), 2);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM event_log l JOIN campaigns c ON c.id = "
             "l.campaign_id WHERE l.kind = 'combat' AND l.record_id = '%s' "
             "AND l.n = 2 AND l.head = c.ledger_head",
             r.f.cb.id);
    ck_assert_int_eq(db_fixture_raw_query_int(sql), 1);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM event_log "
                                              "WHERE kind = 'ledger'"),
                     0);
    ledger_head_of(cmp.id, head);

    all = read_log(cmp.id, 0, LLONG_MAX, 100, &n_all);
    ck_assert_uint_eq(n_all, 5); /* the combat, its move, 3 events */
    ids_of(all, n_all, ids);
    ck_assert_str_eq(all[0].kind, "combat");
    ck_assert_str_eq(all[0].record_id, r.f.cb.id);
    ck_assert_str_eq(all[0].system, "scrud");
    ck_assert_str_eq(all[0].summary, r.f.cb.summary);
    ck_assert_int_eq(all[0].n, 0);
    ck_assert_str_eq(all[0].head, "");
    ck_assert_str_eq(all[1].kind, "ledger");
    ck_assert_int_eq(all[1].seq, all[0].seq + 1);
    ck_assert_int_eq(all[1].n, 2);
    ck_assert_str_eq(all[1].head, head);
    ck_assert_str_eq(all[1].record_id, "");
    ck_assert_str_eq(all[1].system, "");
    ck_assert_ptr_null(all[1].summary);
    for (i = 2; i < 5; i++) {
        ck_assert_str_eq(all[i].kind, "unit");
        ck_assert_int_eq(all[i].seq, all[i - 1].seq + 1);
    }
    ck_assert_int_eq(last_seq(NULL), last_seq(other.id));
    ck_assert_int_gt(last_seq(other.id), ids[4]);

    /* After the combat: the move first.  Up to the combat: not the move. */
    got = read_log(cmp.id, ids[0], LLONG_MAX, 100, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(got[0].kind, "ledger");
    ck_assert_int_eq(got[0].seq, ids[1]);
    db_event_log_free(got, n);
    got = read_log(cmp.id, 0, ids[0], 100, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(got[0].kind, "combat");
    db_event_log_free(got, n);
    /* One at a time, its own and every campaign's: each event once, in
     * order; two at a time, the same (check_in_batches). */
    for (k = 0; k < 2; k++) {
        after = 0;
        for (i = 0; i < n_all; i++) {
            do {
                got = read_log(k ? NULL : cmp.id, after, k ? 0 : LLONG_MAX, 1,
                               &n);
                ck_assert_uint_eq(n, 1);
                after = got[0].seq;
                if (strcmp(got[0].campaign_id, cmp.id) != 0) {
                    db_event_log_free(got, n);
                    continue;
                }
                break;
            } while (1);
            ck_assert_int_eq(got[0].seq, ids[i]);
            ck_assert_str_eq(got[0].kind, all[i].kind);
            db_event_log_free(got, n);
        }
    }
    check_in_batches(NULL, cmp.id, ids, n_all);
    check_in_batches(cmp.id, cmp.id, ids, n_all);
    db_event_log_free(all, n_all);

    /* The other campaign's combat without dice: a row, an event. */
    all = read_log(other.id, 0, LLONG_MAX, 100, &n_all);
    ck_assert_uint_eq(n_all, 1);
    ck_assert_str_eq(all[0].kind, "combat");
    ck_assert_str_eq(all[0].record_id, plain.id);
    ck_assert_str_eq(all[0].head, "");
    db_event_log_free(all, n_all);
}
END_TEST

/* A combat's packed events go in as one run (two statements: the rows,
 * then their units' heads), and keep every unit's chain as one at a time
 * did: a unit twice in one run chains its second event onto its first; a
 * run that crosses a unit's 64th event marks it; a run after a row of its
 * own, and a combat with more than a block, go on from there. */
START_TEST(test_packed_runs_keep_the_chains)
{
    db_campaign cmp;
    db_side side;
    db_unit a, b;
    block_fight f;
    db_logged_event *all;
    size_t n_all, i;

    db_fixture_open();
    setup_campaign(&cmp, &side, &a, "one");
    db_fixture_new_unit(&b, &side, NULL, "R2");
    db_fixture_write_ok(db_fixture_job_unit, &b, "unit");
    block_fight_make(&f, &a, 3); /* a, b, a */
    snprintf(f.ev[1].unit_id, sizeof f.ev[1].unit_id, "%s", b.id);
    db_fixture_write_ok(job_block_fight, &f, "a, b, a");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);
    db_fixture_check_chains();
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT unit_seq FROM unit_events ORDER BY seq "
                         "DESC LIMIT 1"),
                     2);
    add_event(&b, T2, "correction");
    /* a's 3rd to 65th (its 64th marked), b's 3rd to 9th */
    block_fight_make(&f, &a, BLOCK_EVENTS);
    for (i = 0; i < BLOCK_EVENTS; i += 10)
        snprintf(f.ev[i].unit_id, sizeof f.ev[i].unit_id, "%s", b.id);
    db_fixture_write_ok(job_block_fight, &f, "a and b, more than a block");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);
    db_fixture_check_chains();
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM unit_marks"), 1);
    all = read_log(cmp.id, 0, LLONG_MAX, 200, &n_all);
    ck_assert_uint_eq(n_all, 2 + 3 + 1 + BLOCK_EVENTS);
    for (i = 1; i < n_all; i++)
        ck_assert_int_eq(all[i].seq, all[i - 1].seq + 1);
    db_event_log_free(all, n_all);
}
END_TEST

/* Two packed events, one of its own (logged by the trigger), another
 * packed: two blocks and a row between them, in the order written; then
 * the same refused after the insert: nothing logged, and what is logged
 * next takes the places the refused one had taken. */
typedef struct mixed_fight {
    block_fight f;
    db_event plain;
    bool is_refused;
} mixed_fight;

static err_code job_mixed(db_conn *c, void *arg, err_info *e)
{
    mixed_fight *m = arg;
    const db_event *evs[4] = {&m->f.ev[0], &m->f.ev[1], &m->plain, &m->f.ev[2]};
    err_code rc = db_combat_insert(c, &m->f.cb, NULL, 0, e);

    if (rc == ERR_OK)
        rc = db_events_insert(c, evs, 4, e);
    if (rc == ERR_OK && m->is_refused)
        rc = err_set(e, ERR_RULE, NULL, "refused after the insert");
    return rc;
}

static void mixed_make(mixed_fight *m, const db_unit *u, bool is_refused)
{
    block_fight_make(&m->f, u, 3);
    m->plain = m->f.ev[0];
    m->plain.doc_slot = 0;
    m->plain.combat_id[0] = '\0';
    snprintf(m->plain.kind, sizeof m->plain.kind, "correction");
    m->plain.after = "{\"name\":\"R1\",\"fixed\":true}";
    m->is_refused = is_refused;
}

START_TEST(test_blocks_and_rows_in_one_write)
{
    db_campaign cmp;
    db_side side;
    db_unit u;
    mixed_fight m;
    db_logged_event *evs;
    long long last;
    size_t n, i;
    err_info e;
    static const char *const kinds[] = {"combat", "combat", "correction",
                                        "combat"};

    db_fixture_open();
    setup_campaign(&cmp, &side, &u, "one");
    mixed_make(&m, &u, true);
    last = last_seq(NULL);
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_mixed, &m, &e), ERR_RULE);
    free(m.f.cb.unit_docs_z);
    free(m.f.cb.report_z);
    ck_assert_int_eq(last_seq(NULL), last);

    mixed_make(&m, &u, false);
    db_fixture_write_ok(job_mixed, &m, "combat and its events");
    free(m.f.cb.unit_docs_z);
    free(m.f.cb.report_z);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT group_concat(coalesce(n, "
                                              "1), '') FROM (SELECT n FROM "
                                              "event_log WHERE kind = 'unit' "
                                              "ORDER BY seq)"),
                     211);
    evs = read_log(cmp.id, last, LLONG_MAX, 100, &n);
    ck_assert_uint_eq(n, 5); /* the combat, then its 4 events */
    ck_assert_str_eq(evs[0].kind, "combat");
    ck_assert_int_eq(evs[0].seq, last + 1);
    for (i = 1; i < n; i++) {
        ck_assert_int_eq(evs[i].seq, last + 1 + (long long)i);
        ck_assert_str_eq(evs[i].unit.kind, kinds[i - 1]);
        ck_assert_int_eq(evs[i].unit.unit_seq, (long long)i);
    }
    ck_assert_str_eq(evs[3].unit.after, "{\"name\":\"R1\",\"fixed\":true}");
    ck_assert_int_eq(evs[4].unit.doc_slot, 3);
    ck_assert_int_eq(last_seq(cmp.id), evs[4].seq);
    db_event_log_free(evs, n);
}
END_TEST

/* The writer keeps the rows of the last campaign and combat its events
 * named, and of the combat it inserted last (unit_events_write.c): a combat's
 * events after the campaign's first find both kept, its own row among
 * them.  A combat refused after its events forgets them with its writes
 * (and the largest seq of the history events it inserted);
 * the same combat landing later, after another has taken its row, keys
 * its events by its own row. */
START_TEST(test_kept_keys_forgotten_with_a_refused_combat)
{
    db_campaign cmp;
    db_side side;
    db_unit u;
    mixed_fight m, first, second;
    char sql[256];
    err_info e;
    int k;

    db_fixture_open();
    setup_campaign(&cmp, &side, &u, "one");
    mixed_make(&first, &u, false); /* the campaign's keys read, kept */
    db_fixture_write_ok(job_mixed, &first, "the campaign's first combat");
    mixed_make(&m, &u, true);
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_mixed, &m, &e), ERR_RULE);
    mixed_make(&second, &u, false); /* takes the refused one's row */
    db_fixture_write_ok(job_mixed, &second, "another combat");
    m.is_refused = false; /* the same combat, its events, again */
    db_fixture_write_ok(job_mixed, &m, "the combat landing");
    for (k = 0; k < 3; k++) {
        mixed_fight *f = k == 0 ? &first : k == 1 ? &second : &m;
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM unit_events u JOIN combats c ON "
                 "c.rowid = u.combat_row WHERE c.id = '%s'",
                 f->f.cb.id);
        ck_assert_int_eq(db_fixture_raw_query_int(sql), 3);
        free(f->f.cb.unit_docs_z);
        free(f->f.cb.report_z);
    }
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM unit_events u JOIN campaigns c "
                         "ON c.rowid = u.campaign_row WHERE c.name = 'one'"),
                     3 * 4);
    /* The largest seq, kept too, was forgotten with them: the events
     * after took the seqs the refused ones had, as SQLite gives them. */
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT max(seq) - count(*) FROM unit_events"),
        0);
}
END_TEST

/* A database at the migration before the log, with a battle, a combat,
 * unit events and a ledger head, each at its time: the migration logs
 * them in the order of their times, then the ledger head. */
static void make_before_log(void)
{
    sqlite3 *c = NULL;
    sqlite3_stmt *st;
    err_info e;
    char sql[64];
    int k;

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    for (k = 0; k < EVENT_LOG_MIGRATION - 1; k++) {
        ck_assert_int_eq(sqlite3_exec(c, migrations_sql[k], NULL, NULL, NULL),
                         SQLITE_OK);
        err_clear(&e);
        if (migrations_after[k]) {
            /* the store's calls on this raw connection; the statements
             * they keep on it are finalized before it closes */
            db_conn w = {.kind = DB_KIND_SQLITE, .lite = c};
            ck_assert_int_eq(migrations_after[k](&w, &e), ERR_OK);
            db_conn_forget(&w);
        }
    }
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d",
             EVENT_LOG_MIGRATION - 1);
    ck_assert_int_eq(
        sqlite3_exec(c,
                     "INSERT INTO campaigns (id, name, created_at, "
                     "scrud_cap_kind, scrud_cap, scrud_has_floor, "
                     "scrud_floor, scrud_extra_dice, scrud_attrition, "
                     "scrud_max_penalty, scrud_eliminate_below, "
                     "scrud_defeats_per_elimination, ledger_length, "
                     "ledger_head) VALUES ('cmp_1', 'old', '" T0 "', 0, 0, "
                     "0, 0, 0, 0, 0, -5, 0, 4, '" HEAD_A "');"
                     "INSERT INTO sides (id, campaign_id, name, created_at) "
                     "VALUES ('sid_1', 'cmp_1', 'red', '" T0 "');"
                     "INSERT INTO units (id, campaign_id, side_id, name, "
                     "created_at) VALUES ('unt_1', 'cmp_1', 'sid_1', 'R1', "
                     "'" T0 "');"
                     "INSERT INTO unit_events (unit_id, campaign_id, at, "
                     "kind, after, unit_seq) VALUES ('unt_1', 'cmp_1', "
                     "'" T3 "', 'combat', '{}', 2), ('unt_1', 'cmp_1', '" T1
                     "', 'created', '{}', 1);"
                     "INSERT INTO combats (id, campaign_id, system, "
                     "created_at, dice_source, summary, report) VALUES "
                     "('cbt_1', 'cmp_1', 'scrud', '" T2 "', 'entered', 's', "
                     "'{}');"
                     "INSERT INTO battles (id, campaign_id, system, status, "
                     "turn, created_at, updated_at, dice_source, setup, "
                     "n_actions) VALUES ('bat_1', 'cmp_1', 'matrix', "
                     "'finished', 1, '" T0 "', '" T3 "', 'entered', '{}', 5);",
                     NULL, NULL, NULL),
        SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK);
    /* Migration 5's step keeps its statements on the connection. */
    while ((st = sqlite3_next_stmt(c, NULL)) != NULL)
        sqlite3_finalize(st);
    ck_assert_int_eq(sqlite3_close(c), SQLITE_OK);
}

START_TEST(test_migration_logs_what_was_there)
{
    static const char *const kinds[] = {"battle", "unit", "combat", "unit",
                                        "ledger"};
    db_logged_event *evs;
    size_t n, i;

    make_before_log();
    db_fixture_open();
    evs = read_log("cmp_1", 0, LLONG_MAX, 100, &n);
    ck_assert_uint_eq(n, 5);
    for (i = 0; i < n; i++) {
        ck_assert_str_eq(evs[i].kind, kinds[i]);
        ck_assert_int_eq(evs[i].seq, (long long)i + 1);
    }
    ck_assert_str_eq(evs[0].status, "finished");
    ck_assert_int_eq(evs[0].n, 5);
    ck_assert_int_eq(evs[1].unit.unit_seq, 1); /* by time, not by seq */
    ck_assert_str_eq(evs[1].unit.at, T1);
    ck_assert_str_eq(evs[2].record_id, "cbt_1");
    ck_assert_int_eq(evs[3].unit.unit_seq, 2);
    ck_assert_int_eq(evs[4].n, 4);
    ck_assert_str_eq(evs[4].head, HEAD_A);
    db_event_log_free(evs, n);
}
END_TEST

Suite *suite_event_log(void)
{
    Suite *s = suite_create("event_log");
    TCase *tc = tcase_create("event_log");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_combats_and_unit_events_are_logged);
    tcase_add_test(tc, test_failed_job_logs_nothing);
    tcase_add_test(tc, test_battles_and_ledger_are_logged);
    tcase_add_test(tc, test_reads_by_campaign_and_bounds);
    tcase_add_test(tc, test_packed_events_are_logged_as_a_block);
    tcase_add_test(tc, test_blocks_and_rows_in_one_write);
    tcase_add_test(tc, test_kept_keys_forgotten_with_a_refused_combat);
    tcase_add_test(tc, test_combat_and_ledger_move_are_one_row);
    tcase_add_test(tc, test_combat_row_with_a_full_block);
    tcase_add_test(tc, test_held_combat_row_past_a_block);
    tcase_add_test(tc, test_packed_runs_keep_the_chains);
    tcase_add_test(tc, test_migration_logs_what_was_there);
    return s;
}
