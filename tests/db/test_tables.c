/*
 * test_tables.c: tests db/tables.c, a campaign's combat results tables:
 * put (new, then replaced: created_at kept, updated_at and the document
 * taken, *is_new right), get, the list in name order against a sorted
 * reference, delete and ERR_NOT_FOUND, one campaign's tables apart from
 * another's, and the DB_TABLES_MAX limit.  Writes go through the writer,
 * reads through pooled connections, on a fresh file with every migration
 * (db_fixture.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db.h"
#include "db_fixture.h"
#include "suites.h"

/* ---- helpers ----------------------------------------------------------- */

/* Puts the tables ts[0..n-1] in one job (one commit), stopping at the
 * first failure; n_new counts those that were new, is_new is the last
 * one's answer. */
typedef struct put_job {
    const db_table *ts;
    size_t n;
    size_t n_new;
    bool is_new;
} put_job;

static err_code job_put(db_conn *c, void *arg, err_info *e)
{
    put_job *j = arg;
    err_code rc = ERR_OK;
    size_t i;

    j->n_new = 0;
    j->is_new = false;
    for (i = 0; i < j->n && rc == ERR_OK; i++) {
        j->is_new = true; /* put must clear it on a replace or failure */
        if ((rc = db_table_put(c, &j->ts[i], &j->is_new, e)) == ERR_OK)
            j->n_new += j->is_new;
    }
    return rc;
}

typedef struct delete_job {
    const char *campaign_id, *name;
} delete_job;

static err_code job_delete(db_conn *c, void *arg, err_info *e)
{
    delete_job *j = arg;

    return db_table_delete(c, j->campaign_id, j->name, e);
}

/* Puts t alone; returns the code, *is_new its answer. */
static err_code put_rc(const db_table *t, bool *is_new, err_info *e)
{
    put_job j = {t, 1, 0, false};
    err_code rc = db_fixture_write_rc(job_put, &j, e);

    *is_new = j.is_new;
    return rc;
}

/* Puts t, which must succeed and be new or not as is_new says. */
static void put_ok(const db_table *t, bool want_new)
{
    bool is_new;
    err_info e;
    err_code rc = put_rc(t, &is_new, &e);

    ck_assert_msg(rc == ERR_OK, "put %s: %s: %s", t->name, err_code_name(rc),
                  e.message);
    ck_assert_msg(is_new == want_new, "put %s: is_new %d", t->name, is_new);
}

static err_code delete_rc(const char *campaign_id, const char *name,
                          err_info *e)
{
    delete_job j = {campaign_id, name};

    return db_fixture_write_rc(job_delete, &j, e);
}

/* A table of campaign_id; doc and times borrowed. */
static void new_table(db_table *t, const char *campaign_id, const char *name,
                      const char *doc, const char *at)
{
    memset(t, 0, sizeof *t);
    snprintf(t->campaign_id, sizeof t->campaign_id, "%s", campaign_id);
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->created_at, sizeof t->created_at, "%s", at);
    snprintf(t->updated_at, sizeof t->updated_at, "%s", at);
    t->doc = (char *)doc;
}

static void check_table(const db_table *got, const db_table *want)
{
    ck_assert_str_eq(got->campaign_id, want->campaign_id);
    ck_assert_str_eq(got->name, want->name);
    ck_assert_str_eq(got->created_at, want->created_at);
    ck_assert_str_eq(got->updated_at, want->updated_at);
    ck_assert_ptr_nonnull(got->doc);
    ck_assert_str_eq(got->doc, want->doc);
}

/* get of (campaign_id, name) must be want. */
static void check_get(const char *campaign_id, const char *name,
                      const db_table *want)
{
    db_conn *r = db_read_acquire(db_fixture_db);
    db_table got;
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_table_get(r, campaign_id, name, &got, &e);
    db_read_release(db_fixture_db, r);
    ck_assert_msg(rc == ERR_OK, "get %s: %s", name, e.message);
    check_table(&got, want);
    db_table_cleanup(&got);
    ck_assert_ptr_null(got.doc);
}

static void check_get_missing(const char *campaign_id, const char *name)
{
    db_conn *r = db_read_acquire(db_fixture_db);
    db_table got;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(db_table_get(r, campaign_id, name, &got, &e),
                     ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    ck_assert_ptr_null(got.doc);
    db_table_cleanup(&got);
    db_read_release(db_fixture_db, r);
}

/* The list of campaign_id: *out new (db_tables_free). */
static size_t list(const char *campaign_id, db_table **out)
{
    db_conn *r = db_read_acquire(db_fixture_db);
    size_t n;
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_tables_list(r, campaign_id, out, &n, &e);
    db_read_release(db_fixture_db, r);
    ck_assert_msg(rc == ERR_OK, "list: %s", e.message);
    return n;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

#define DOC_A "{\"roll\":\"2d6\",\"columns\":[\"1:2\",\"1:1\",\"2:1\"]}"
#define DOC_B                                                                  \
    "{\"roll\":\"d66\",\"columns\":[\"1:1\"],\"note\":\"\xc3\xa9t\xc3\xa9\"}"
#define DOC_C "{\"roll\":\"2d6\",\"columns\":[\"1:1\",\"3:2\"]}"
#define T0    "2026-04-01T10:00:00.000Z"
#define T1    "2026-04-01T11:30:00.000Z"
#define T2    "2026-04-02T08:00:00.000Z"

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_put_new_then_replace)
{
    db_campaign c;
    db_table t, again;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Tables");
    new_table(&t, c.id, "Standard CRT", DOC_A, T0);
    put_ok(&t, true);
    check_get(c.id, "Standard CRT", &t);

    /* Replaced: the document and updated_at are the new ones, created_at
     * stays the first (the one given now is not used). */
    new_table(&again, c.id, "Standard CRT", DOC_B, T2);
    snprintf(again.updated_at, sizeof again.updated_at, "%s", T1);
    put_ok(&again, false);
    snprintf(again.created_at, sizeof again.created_at, "%s", T0);
    check_get(c.id, "Standard CRT", &again);

    /* And again, with the same document: still one table, not new. */
    put_ok(&again, false);
    check_get(c.id, "Standard CRT", &again);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM crts"), 1);

    /* Names are exact: another case is another table. */
    new_table(&t, c.id, "standard crt", DOC_A, T2);
    put_ok(&t, true);
    check_get(c.id, "standard crt", &t);
    check_get(c.id, "Standard CRT", &again);
    check_get_missing(c.id, "Standard");
    check_get_missing(c.id, "");
}
END_TEST

START_TEST(test_put_for_missing_campaign)
{
    db_table t;
    bool is_new = true;
    err_info e;

    db_fixture_open();
    new_table(&t, "cmp_000000000000000000000000", "Orphan", DOC_A, T0);
    ck_assert_int_eq(put_rc(&t, &is_new, &e), ERR_CONFLICT);
    ck_assert_int_eq(e.code, ERR_CONFLICT);
    ck_assert(!is_new);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM crts"), 0);
}
END_TEST

START_TEST(test_list_by_name)
{
    /* Put in no order; the list is in byte order of the names. */
    static const char *const names[] = {
        "Overrun", "b",         "Assault", "\xc3\x89lan", "a",
        "Z",       "Assault 2", "10",      "9",
    };
    enum { N = sizeof names / sizeof names[0] };
    const char *sorted[N];
    char docs[N][64];
    db_campaign c, empty;
    db_table ts[N], *got;
    size_t i, k, n;
    put_job j;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Listed");
    db_fixture_add_campaign(&empty, "Empty");
    for (i = 0; i < N; i++) {
        snprintf(docs[i], sizeof docs[i], "{\"n\":%zu}", i);
        new_table(&ts[i], c.id, names[i], docs[i],
                  i % 2 ? T1 : T0); /* creation time is not the order */
    }
    j = (put_job){ts, N, 0, false};
    db_fixture_write_ok(job_put, &j, "put tables");
    ck_assert_uint_eq(j.n_new, N);

    memcpy(sorted, names, sizeof sorted);
    qsort(sorted, N, sizeof sorted[0], cmp_names);
    n = list(c.id, &got);
    ck_assert_uint_eq(n, N);
    for (i = 0; i < n; i++) {
        ck_assert_str_eq(got[i].name, sorted[i]);
        for (k = 0; strcmp(names[k], sorted[i]) != 0; k++)
            ;
        check_table(&got[i], &ts[k]);
    }
    db_tables_free(got, n);

    n = list(empty.id, &got);
    ck_assert_uint_eq(n, 0);
    db_tables_free(got, n);
    n = list("cmp_nope", &got);
    ck_assert_uint_eq(n, 0);
    db_tables_free(got, n);
}
END_TEST

START_TEST(test_delete)
{
    db_campaign c;
    db_table a, b, *got;
    err_info e;
    size_t n;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Deleting");
    new_table(&a, c.id, "A", DOC_A, T0);
    new_table(&b, c.id, "B", DOC_B, T1);
    put_ok(&a, true);
    put_ok(&b, true);

    ck_assert_int_eq(delete_rc(c.id, "A", &e), ERR_OK);
    check_get_missing(c.id, "A");
    check_get(c.id, "B", &b);
    n = list(c.id, &got);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(got[0].name, "B");
    db_tables_free(got, n);

    ck_assert_int_eq(delete_rc(c.id, "A", &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    ck_assert_int_eq(delete_rc(c.id, "b", &e), ERR_NOT_FOUND);
    ck_assert_int_eq(delete_rc("cmp_nope", "B", &e), ERR_NOT_FOUND);
    check_get(c.id, "B", &b);

    /* A name deleted can be put again, as new, with a new created_at. */
    new_table(&a, c.id, "A", DOC_B, T2);
    put_ok(&a, true);
    check_get(c.id, "A", &a);
}
END_TEST

START_TEST(test_campaigns_apart)
{
    db_campaign c1, c2;
    db_table t1, t2, *got;
    err_info e;
    size_t n;

    db_fixture_open();
    db_fixture_add_campaign(&c1, "One");
    db_fixture_add_campaign(&c2, "Two");
    /* The same name in both campaigns: two tables, both new. */
    new_table(&t1, c1.id, "Standard", DOC_A, T0);
    new_table(&t2, c2.id, "Standard", DOC_B, T1);
    put_ok(&t1, true);
    put_ok(&t2, true);
    check_get(c1.id, "Standard", &t1);
    check_get(c2.id, "Standard", &t2);

    /* Replacing one leaves the other. */
    t2.doc = DOC_C;
    snprintf(t2.updated_at, sizeof t2.updated_at, "%s", T2);
    put_ok(&t2, false);
    check_get(c1.id, "Standard", &t1); /* its document and times */
    check_get(c2.id, "Standard", &t2);

    /* Each list holds its own campaign's table only. */
    new_table(&t1, c1.id, "Only in one", DOC_B, T2);
    put_ok(&t1, true);
    n = list(c2.id, &got);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(got[0].campaign_id, c2.id);
    db_tables_free(got, n);
    n = list(c1.id, &got);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(got[0].campaign_id, c1.id);
    ck_assert_str_eq(got[1].campaign_id, c1.id);
    db_tables_free(got, n);
    check_get_missing(c2.id, "Only in one");

    /* Deleting one leaves the other. */
    ck_assert_int_eq(delete_rc(c2.id, "Only in one", &e), ERR_NOT_FOUND);
    ck_assert_int_eq(delete_rc(c1.id, "Standard", &e), ERR_OK);
    check_get_missing(c1.id, "Standard");
    check_get(c2.id, "Standard", &t2);
}
END_TEST

START_TEST(test_limit)
{
    static db_table ts[DB_TABLES_MAX + 1];
    static char names[DB_TABLES_MAX + 1][16];
    db_campaign c, other;
    db_table t, *got;
    bool is_new = true;
    err_info e;
    put_job j;
    size_t i, n;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Full");
    db_fixture_add_campaign(&other, "Other");
    for (i = 0; i <= DB_TABLES_MAX; i++) {
        snprintf(names[i], sizeof names[i], "crt %03zu", i);
        new_table(&ts[i], c.id, names[i], DOC_A, T0);
    }
    j = (put_job){ts, DB_TABLES_MAX, 0, false};
    db_fixture_write_ok(job_put, &j, "put DB_TABLES_MAX tables");
    ck_assert_uint_eq(j.n_new, DB_TABLES_MAX);

    /* One more is refused, and nothing is written. */
    ck_assert_int_eq(put_rc(&ts[DB_TABLES_MAX], &is_new, &e), ERR_LIMIT);
    ck_assert_int_eq(e.code, ERR_LIMIT);
    ck_assert(!is_new);
    check_get_missing(c.id, names[DB_TABLES_MAX]);
    n = list(c.id, &got);
    ck_assert_uint_eq(n, DB_TABLES_MAX);
    db_tables_free(got, n);

    /* Replacing one of them is not one more. */
    new_table(&t, c.id, names[7], DOC_B, T1);
    put_ok(&t, false);
    snprintf(t.created_at, sizeof t.created_at, "%s", T0);
    check_get(c.id, names[7], &t);

    /* The limit is per campaign. */
    new_table(&t, other.id, names[DB_TABLES_MAX], DOC_A, T1);
    put_ok(&t, true);

    /* Room again after a delete. */
    ck_assert_int_eq(delete_rc(c.id, names[0], &e), ERR_OK);
    put_ok(&ts[DB_TABLES_MAX], true);
    check_get(c.id, names[DB_TABLES_MAX], &ts[DB_TABLES_MAX]);
    ck_assert_int_eq(put_rc(&ts[0], &is_new, &e), ERR_LIMIT);
}
END_TEST

START_TEST(test_free_null)
{
    db_table t;

    db_table_cleanup(NULL);
    db_tables_free(NULL, 0);
    db_tables_free(NULL, 3);
    memset(&t, 0, sizeof t);
    t.doc = strdup(DOC_A);
    db_table_cleanup(&t);
    ck_assert_ptr_null(t.doc);
    db_table_cleanup(&t); /* twice: nothing left to free */
}
END_TEST

Suite *suite_tables(void)
{
    Suite *s = suite_create("tables");
    TCase *tc = tcase_create("tables");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_put_new_then_replace);
    tcase_add_test(tc, test_put_for_missing_campaign);
    tcase_add_test(tc, test_list_by_name);
    tcase_add_test(tc, test_delete);
    tcase_add_test(tc, test_campaigns_apart);
    tcase_add_test(tc, test_limit);
    tcase_add_test(tc, test_free_null);
    return s;
}
