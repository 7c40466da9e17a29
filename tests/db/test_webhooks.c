/*
 * test_webhooks.c: tests db/webhooks.c and what migration 7 adds for
 * channel posts: a campaign's webhook put (new, replaced with its counts
 * reset), read and removed; the post made in the combat's own
 * transaction (on SQLite by the writer, which keeps whether the campaign
 * has a webhook: migration 26; on PostgreSQL by trigger), for campaigns
 * with a webhook only, and none for a combat whose job failed; posts settled
 * (delivered, failed, a post already gone) and dropped beyond a backlog, oldest
 * first; and the writer's commit listeners (db.c).  A fresh file with every
 * migration (db_fixture.h).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db.h"
#include "db_fixture.h"
#include "suites.h"

#define T0 "2026-11-22T10:00:00.000Z"
#define T1 "2026-11-22T11:00:00.000Z"

/* ---- helpers ----------------------------------------------------------- */

typedef struct put_job {
    db_webhook w;
    bool is_new;
} put_job;

static err_code job_put(db_conn *c, void *arg, err_info *e)
{
    put_job *j = arg;

    return db_webhook_put(c, &j->w, &j->is_new, e);
}

static err_code job_delete(db_conn *c, void *arg, err_info *e)
{
    return db_webhook_delete(c, arg, e);
}

static err_code job_combat(db_conn *c, void *arg, err_info *e)
{
    return db_combat_insert(c, arg, NULL, 0, e);
}

/* Inserts the combat, then fails: its savepoint is rolled back. */
static err_code job_combat_then_fail(db_conn *c, void *arg, err_info *e)
{
    err_code rc = db_combat_insert(c, arg, NULL, 0, e);

    return rc ? rc : err_set(e, ERR_RULE, NULL, "refused after the insert");
}

/* Gives the campaign arg a webhook and inserts a combat of it (which the
 * writer then knows has one), then fails: both rolled back. */
static err_code job_put_then_fail(db_conn *c, void *arg, err_info *e)
{
    db_webhook w;
    db_combat cb;
    bool is_new;
    err_code rc;

    memset(&w, 0, sizeof w);
    snprintf(w.campaign_id, sizeof w.campaign_id, "%s", (const char *)arg);
    snprintf(w.hook_id, sizeof w.hook_id, "999");
    snprintf(w.token, sizeof w.token, "tok-999");
    snprintf(w.url, sizeof w.url,
             "https://discord.com/api/webhooks/999/tok-999");
    snprintf(w.set_at, sizeof w.set_at, "%s", T0);
    db_fixture_new_combat(&cb, arg, T0, NULL, NULL);
    if ((rc = db_webhook_put(c, &w, &is_new, e)) ||
        (rc = db_combat_insert(c, &cb, NULL, 0, e)))
        return rc;
    return err_set(e, ERR_RULE, NULL, "refused after the insert");
}

typedef struct settle_job {
    db_webhook_post p;
    const char *error;
    long long keep, n_dropped;
} settle_job;

static err_code job_settle(db_conn *c, void *arg, err_info *e)
{
    settle_job *j = arg;

    return db_webhook_settle(c, &j->p, j->error, T1, e);
}

static err_code job_drop(db_conn *c, void *arg, err_info *e)
{
    settle_job *j = arg;

    return db_webhook_drop(c, j->p.campaign_id, j->keep, j->error, T1,
                           &j->n_dropped, e);
}

/* Gives campaign_id a webhook; whether it was new. */
static bool put(const char *campaign_id, const char *hook_id)
{
    put_job j;

    memset(&j, 0, sizeof j);
    snprintf(j.w.campaign_id, sizeof j.w.campaign_id, "%s", campaign_id);
    snprintf(j.w.hook_id, sizeof j.w.hook_id, "%s", hook_id);
    snprintf(j.w.token, sizeof j.w.token, "tok-%s", hook_id);
    snprintf(j.w.url, sizeof j.w.url,
             "https://discord.com/api/webhooks/%s/tok-%s", hook_id, hook_id);
    snprintf(j.w.set_at, sizeof j.w.set_at, "%s", T0);
    db_fixture_write_ok(job_put, &j, "put a webhook");
    return j.is_new;
}

/* A combat of campaign_id ("" one-off) inserted; its id into id. */
static void add_combat(const char *campaign_id, char id[DB_ID_MAX])
{
    db_combat cb;

    db_fixture_new_combat(&cb, campaign_id, T0, NULL, NULL);
    db_fixture_write_ok(job_combat, &cb, "insert a combat");
    snprintf(id, DB_ID_MAX, "%s", cb.id);
}

static db_webhook get(const char *campaign_id)
{
    db_conn *c = db_read_acquire(db_fixture_db);
    db_webhook w;
    err_info e;

    err_clear(&e);
    ck_assert_msg(db_webhook_get(c, campaign_id, &w, &e) == ERR_OK, "%s",
                  e.message);
    db_read_release(db_fixture_db, c);
    return w;
}

/* The heads (new, free()) and their count. */
static db_webhook_post *heads(size_t *n)
{
    db_conn *c = db_read_acquire(db_fixture_db);
    db_webhook_post *h = NULL;
    err_info e;

    err_clear(&e);
    ck_assert_msg(db_webhook_heads(c, &h, n, &e) == ERR_OK, "%s", e.message);
    db_read_release(db_fixture_db, c);
    return h;
}

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_put_get_delete)
{
    db_campaign cmp;
    db_webhook w;
    put_job j;
    err_info e;
    db_conn *c;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "one");
    ck_assert(put(cmp.id, "111"));
    w = get(cmp.id);
    ck_assert_str_eq(w.hook_id, "111");
    ck_assert_str_eq(w.token, "tok-111");
    ck_assert_str_eq(w.url, "https://discord.com/api/webhooks/111/tok-111");
    ck_assert_str_eq(w.set_at, T0);
    ck_assert_int_eq(w.n_delivered + w.n_failures + w.n_pending, 0);
    ck_assert_str_eq(w.last_delivery_at, "");
    ck_assert_str_eq(w.last_failure_at, "");
    /* Replaced: not new, the new URL. */
    ck_assert(!put(cmp.id, "222"));
    ck_assert_str_eq(get(cmp.id).hook_id, "222");
    /* Removed, then gone. */
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_delete, cmp.id, &e), ERR_OK);
    ck_assert_int_eq(db_fixture_write_rc(job_delete, cmp.id, &e),
                     ERR_NOT_FOUND);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_webhook_get(c, cmp.id, &w, NULL), ERR_NOT_FOUND);
    db_read_release(db_fixture_db, c);
    /* No such campaign. */
    memset(&j, 0, sizeof j);
    snprintf(j.w.campaign_id, sizeof j.w.campaign_id, "cmp_nope");
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_put, &j, &e), ERR_CONFLICT);
}
END_TEST

START_TEST(test_combats_make_posts)
{
    char ids[5][DB_ID_MAX], other[DB_ID_MAX], oneoff[DB_ID_MAX];
    db_campaign with, without;
    db_webhook_post *h;
    db_combat cb;
    err_info e;
    size_t n;
    int i;

    db_fixture_open();
    db_fixture_add_campaign(&with, "with");
    db_fixture_add_campaign(&without, "without");
    add_combat(with.id, ids[0]); /* before the webhook: no post */
    put(with.id, "111");
    for (i = 1; i < 4; i++)
        add_combat(with.id, ids[i]);
    add_combat(without.id, other);
    add_combat("", oneoff);
    add_combat(with.id, ids[4]); /* after another campaign's: posted */
    /* A combat whose job fails leaves no post behind. */
    db_fixture_new_combat(&cb, with.id, T0, NULL, NULL);
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_combat_then_fail, &cb, &e),
                     ERR_RULE);
    h = heads(&n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(h[0].campaign_id, with.id);
    ck_assert_str_eq(h[0].combat_id, ids[1]);
    ck_assert_str_eq(h[0].created_at, T0);
    ck_assert_int_eq(h[0].n_waiting, 4);
    free(h);
    ck_assert_int_eq(get(with.id).n_pending, 4);
    /* The webhook put by a job that fails, then rolled back: the campaign
     * without one still gets no post. */
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_put_then_fail, without.id, &e),
                     ERR_RULE);
    add_combat(without.id, other);
    h = heads(&n);
    ck_assert_uint_eq(n, 1);
    free(h);
}
END_TEST

START_TEST(test_settle)
{
    char ids[3][DB_ID_MAX], long_error[400];
    db_campaign cmp;
    db_webhook_post *h;
    db_webhook w;
    settle_job j;
    size_t n;
    int i;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "one");
    put(cmp.id, "111");
    for (i = 0; i < 3; i++)
        add_combat(cmp.id, ids[i]);
    memset(long_error, 'x', sizeof long_error - 1);
    long_error[sizeof long_error - 1] = '\0';
    /* Delivered, then failed: each the head of its turn. */
    for (i = 0; i < 2; i++) {
        h = heads(&n);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(h[0].combat_id, ids[i]);
        memset(&j, 0, sizeof j);
        j.p = h[0];
        j.error = i == 0 ? NULL : long_error;
        free(h);
        db_fixture_write_ok(job_settle, &j, "settle");
    }
    /* Settled again: already gone, counted once. */
    db_fixture_write_ok(job_settle, &j, "settle again");
    w = get(cmp.id);
    ck_assert_int_eq(w.n_delivered, 1);
    ck_assert_str_eq(w.last_delivery_at, T1);
    ck_assert_str_eq(w.last_delivery_combat, ids[0]);
    ck_assert_int_eq(w.n_failures, 1);
    ck_assert_str_eq(w.last_failure_at, T1);
    ck_assert_str_eq(w.last_failure_combat, ids[1]);
    ck_assert_uint_eq(strlen(w.last_error), DB_WEBHOOK_ERROR_MAX - 1);
    ck_assert_int_eq(w.n_pending, 1);
    /* Replaced: the counts start again, the post waiting stays. */
    put(cmp.id, "222");
    w = get(cmp.id);
    ck_assert_int_eq(w.n_delivered + w.n_failures, 0);
    ck_assert_str_eq(w.last_error, "");
    ck_assert_int_eq(w.n_pending, 1);
}
END_TEST

START_TEST(test_drop_keeps_newest)
{
    char ids[5][DB_ID_MAX];
    db_campaign cmp;
    db_webhook_post *h;
    db_webhook w;
    settle_job j;
    size_t n;
    int i;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "one");
    put(cmp.id, "111");
    for (i = 0; i < 5; i++)
        add_combat(cmp.id, ids[i]);
    memset(&j, 0, sizeof j);
    snprintf(j.p.campaign_id, sizeof j.p.campaign_id, "%s", cmp.id);
    j.keep = 2;
    j.error = "dropped";
    db_fixture_write_ok(job_drop, &j, "drop");
    ck_assert_int_eq(j.n_dropped, 3);
    h = heads(&n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(h[0].combat_id, ids[3]);
    ck_assert_int_eq(h[0].n_waiting, 2);
    free(h);
    w = get(cmp.id);
    ck_assert_int_eq(w.n_failures, 3);
    ck_assert_str_eq(w.last_failure_combat, ids[2]);
    ck_assert_str_eq(w.last_error, "dropped");
    /* Nothing beyond the backlog: nothing dropped. */
    db_fixture_write_ok(job_drop, &j, "drop again");
    ck_assert_int_eq(j.n_dropped, 0);
    ck_assert_int_eq(get(cmp.id).n_failures, 3);
}
END_TEST

START_TEST(test_delete_removes_posts)
{
    char id[DB_ID_MAX];
    db_campaign cmp;
    err_info e;
    size_t n;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "one");
    put(cmp.id, "111");
    add_combat(cmp.id, id);
    add_combat(cmp.id, id);
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_delete, cmp.id, &e), ERR_OK);
    free(heads(&n));
    ck_assert_uint_eq(n, 0);
    add_combat(cmp.id, id); /* no webhook: no post */
    free(heads(&n));
    ck_assert_uint_eq(n, 0);
}
END_TEST

static void count_commit(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

START_TEST(test_commit_listener)
{
    db_campaign cmp;
    atomic_int n_calls = 0, n_other = 0;
    int before, other;
    err_info e;

    db_fixture_open();
    err_clear(&e);
    ck_assert_int_eq(
        db_add_commit_listener(db_fixture_db, count_commit, &n_calls, &e),
        ERR_OK);
    ck_assert_int_eq(
        db_add_commit_listener(db_fixture_db, count_commit, &n_other, &e),
        ERR_OK);
    db_fixture_add_campaign(&cmp, "one");
    /* db_write returns from the done callback, which runs before the
     * listeners: the next write's return proves the first calls ended. */
    db_fixture_add_campaign(&cmp, "two");
    ck_assert_int_ge(atomic_load(&n_calls), 1);
    ck_assert_int_ge(atomic_load(&n_other), 1);
    /* Removing one leaves the other called. */
    db_remove_commit_listener(db_fixture_db, count_commit, &n_calls);
    before = atomic_load(&n_calls);
    other = atomic_load(&n_other);
    db_fixture_add_campaign(&cmp, "three");
    db_fixture_add_campaign(&cmp, "four");
    ck_assert_int_eq(atomic_load(&n_calls), before);
    ck_assert_int_gt(atomic_load(&n_other), other);
    db_remove_commit_listener(db_fixture_db, count_commit, &n_other);
    db_remove_commit_listener(db_fixture_db, count_commit, &n_other);
}
END_TEST

/* The list is bounded: one listener too many is refused, and removing
 * one makes room again. */
START_TEST(test_commit_listener_limit)
{
    atomic_int n[DB_LISTENERS_MAX + 1];
    err_info e;
    int i;

    db_fixture_open();
    for (i = 0; i < DB_LISTENERS_MAX; i++) {
        atomic_init(&n[i], 0);
        err_clear(&e);
        ck_assert_int_eq(
            db_add_commit_listener(db_fixture_db, count_commit, &n[i], &e),
            ERR_OK);
    }
    atomic_init(&n[DB_LISTENERS_MAX], 0);
    err_clear(&e);
    ck_assert_int_eq(db_add_commit_listener(db_fixture_db, count_commit,
                                            &n[DB_LISTENERS_MAX], &e),
                     ERR_LIMIT);
    db_remove_commit_listener(db_fixture_db, count_commit, &n[0]);
    err_clear(&e);
    ck_assert_int_eq(db_add_commit_listener(db_fixture_db, count_commit,
                                            &n[DB_LISTENERS_MAX], &e),
                     ERR_OK);
    for (i = 1; i <= DB_LISTENERS_MAX; i++)
        db_remove_commit_listener(db_fixture_db, count_commit, &n[i]);
}
END_TEST

Suite *suite_webhooks(void)
{
    Suite *s = suite_create("webhooks");
    TCase *tc = tcase_create("webhooks");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_put_get_delete);
    tcase_add_test(tc, test_combats_make_posts);
    tcase_add_test(tc, test_settle);
    tcase_add_test(tc, test_drop_keeps_newest);
    tcase_add_test(tc, test_delete_removes_posts);
    tcase_add_test(tc, test_commit_listener);
    tcase_add_test(tc, test_commit_listener_limit);
    return s;
}
