/*
 * test_backup.c: `umpire backup` (db_backup in db/backup.c) under load.
 * While threads keep submitting campaign combats through a real server,
 * a backup is taken: it finishes within BACKUP_BOUND_S (SQLite's online
 * backup API, as `sqlite3 .backup` uses it, restarts on every write and may
 * never finish), and a second server started on the copy has every combat
 * acknowledged before the backup began, with every campaign's ledger
 * verified.  Then what a backup refuses: an existing file, a leftover
 * DEST.tmp, a missing source.
 */
#include "harness.h"
#include "suites.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#define BACKUP_BOUND_S 10.0
#define N_LOADERS      3
#define MAX_ACKED      20000

#define COMBAT                                                                 \
    "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":\"Alpha\"}]},"         \
    "{\"side\":\"Blue\",\"units\":[{\"unit\":\"Bravo\"}]}]}"
/* No lasting penalties, no elimination: the units fight for ever. */
#define ENDLESS "{\"attrition\":false,\"defeats_per_elimination\":0}"

typedef struct acked {
    int campaign; /* index into the load's campaigns */
    char id[64];
} acked;

typedef struct load {
    test_server *ts;
    test_campaign campaigns[N_LOADERS];
    char alpha[N_LOADERS][64]; /* each campaign's unit Alpha */
    pthread_mutex_t lock;
    acked *acks; /* the combats answered 201, in answer order */
    int n_acked;
    atomic_int n_failed;
    atomic_bool is_stopping;
} load;

typedef struct loader {
    load *l;
    int campaign;
} loader;

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Posts combats to its campaign until told to stop. */
static void *load_main(void *arg)
{
    loader *w = arg;
    load *l = w->l;
    const test_campaign *c = &l->campaigns[w->campaign];
    char path[128];
    http_resp r;

    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c->id);
    while (!atomic_load(&l->is_stopping)) {
        if (ts_request(l->ts, "POST", path, c->umpire, COMBAT, &r) != 0 ||
            r.status != 201) {
            atomic_fetch_add(&l->n_failed, 1);
        } else {
            const char *id = json_string_value(json_object_get(r.json, "id"));
            pthread_mutex_lock(&l->lock);
            if (id && l->n_acked < MAX_ACKED) {
                l->acks[l->n_acked].campaign = w->campaign;
                snprintf(l->acks[l->n_acked].id, 64, "%s", id);
                l->n_acked++;
            }
            pthread_mutex_unlock(&l->lock);
        }
        http_resp_cleanup(&r);
    }
    return NULL;
}

static int n_acked(load *l)
{
    int n;

    pthread_mutex_lock(&l->lock);
    n = l->n_acked;
    pthread_mutex_unlock(&l->lock);
    return n;
}

/* A server on the database file at path (not removed by ts_stop's
 * caller: the test removes its folder). */
static test_server *start_on(const char *path)
{
    test_server *ts = calloc(1, sizeof *ts);
    http_config cfg;
    err_info e;

    ck_assert_ptr_nonnull(ts);
    http_config_default(&cfg);
    cfg.port = 0;
    cfg.db_path = path;
    cfg.access_log = "off";
    err_clear(&e);
    if (http_start(&cfg, &ts->srv, &e) != ERR_OK)
        ck_abort_msg("http_start on %s: %s", path, e.message);
    ts->port = http_port(ts->srv);
    return ts;
}

static void remove_db(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", ".tmp"};
    char f[256];
    size_t i;

    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(f, sizeof f, "%s%s", path, suffixes[i]);
        unlink(f);
    }
}

/* Every combat in acks[0..n) is on ts; every campaign's ledger verifies;
 * the oldest events of each campaign's unit Alpha, its creation and the
 * combats of acks[0..n), read the same from ts as from the source (its
 * history names its unit, campaign and combats by rowid, which the copy
 * keeps). */
static void check_copy(test_server *ts, const load *l, int n)
{
    char path[256];
    json_t *j, *want;
    int i, k, a;

    for (i = 0; i < n; i++) {
        const test_campaign *c = &l->campaigns[l->acks[i].campaign];
        snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c->id,
                 l->acks[i].id);
        json_decref(ts_call(ts, 200, "GET", path, c->umpire, NULL));
    }
    for (i = 0; i < N_LOADERS; i++) {
        const test_campaign *c = &l->campaigns[i];
        snprintf(path, sizeof path, "/v1/campaigns/%s/ledger/verify", c->id);
        j = ts_call(ts, 200, "GET", path, c->umpire, NULL);
        ck_assert_msg(json_is_true(json_object_get(j, "verified")),
                      "campaign %d: the copy's ledger does not verify", i);
        json_decref(j);
        k = 1; /* its creation, and its combats among the first n */
        for (a = 0; a < n; a++)
            k += l->acks[a].campaign == i;
        k = k > 200 ? 200 : k;
        snprintf(path, sizeof path,
                 "/v1/campaigns/%s/units/%s/history?limit=%d", c->id,
                 l->alpha[i], k);
        j = ts_call(ts, 200, "GET", path, c->umpire, NULL);
        want = ts_call(l->ts, 200, "GET", path, c->umpire, NULL);
        ck_assert_uint_eq(json_array_size(json_object_get(j, "items")),
                          (size_t)k);
        ck_assert_msg(json_equal(json_object_get(j, "items"),
                                 json_object_get(want, "items")),
                      "campaign %d: the copy's history of Alpha differs", i);
        json_decref(j);
        json_decref(want);
    }
}

START_TEST(test_backup_under_load)
{
    static const char *const sides[] = {"Red", "Blue", NULL};
    pthread_t threads[N_LOADERS];
    loader workers[N_LOADERS];
    char dest[192];
    db_backup_info info;
    test_server *copy;
    double t0, took;
    load l;
    err_info e;
    int i, n_before;

    memset(&l, 0, sizeof l);
    l.ts = ts_start();
    l.acks = calloc(MAX_ACKED, sizeof *l.acks);
    ck_assert_ptr_nonnull(l.acks);
    pthread_mutex_init(&l.lock, NULL);
    for (i = 0; i < N_LOADERS; i++) {
        test_campaign *c = &l.campaigns[i];
        ts_campaign(l.ts, c, ENDLESS, sides);
        ts_unit(l.ts, c, "Alpha", "Red", 0, 6, l.alpha[i]);
        ts_unit(l.ts, c, "Bravo", "Blue", 0, 6, NULL);
        /* A gap in the units' rowids, so that a copy that numbered its
         * rows afresh would give the later campaigns' units others. */
        if (i == 0)
            ck_assert_int_eq(
                ts_sql_exec(l.ts,
                            "INSERT INTO units (rowid, id, campaign_id, "
                            "side_id, name, created_at) SELECT 1000, "
                            "'unt_gap', campaign_id, side_id, 'Gap', "
                            "created_at FROM units WHERE id = ?",
                            TS_TEXT(l.alpha[0])),
                1);
        workers[i] = (loader){&l, i};
        ck_assert_int_eq(
            pthread_create(&threads[i], NULL, load_main, &workers[i]), 0);
    }
    while (n_acked(&l) < 50)
        usleep(5 * 1000);

    /* The backup, while the load goes on. */
    snprintf(dest, sizeof dest, "%s/backup.db", l.ts->dir);
    n_before = n_acked(&l);
    t0 = now_s();
    err_clear(&e);
    ck_assert_msg(db_backup(l.ts->db_path, dest, &info, &e) == ERR_OK,
                  "db_backup: %s", e.message);
    took = now_s() - t0;
    usleep(100 * 1000);
    ck_assert_msg(n_acked(&l) > n_before,
                  "no combat landed while the backup ran");
    atomic_store(&l.is_stopping, true);
    for (i = 0; i < N_LOADERS; i++)
        pthread_join(threads[i], NULL);
    ck_assert_int_eq(atomic_load(&l.n_failed), 0);
    ck_assert_msg(took < BACKUP_BOUND_S, "the backup took %.2f s", took);
    ck_assert_int_eq(info.schema_version, db_n_migrations());
    ck_assert_int_ge(info.n_combats, n_before);
    ck_assert_int_eq(info.n_campaigns, N_LOADERS);
    ck_assert_int_gt(info.size, 0);

    /* A second server on the copy. */
    copy = start_on(dest);
    check_copy(copy, &l, n_before);
    http_stop(copy->srv);
    free(copy);
    remove_db(dest);
    free(l.acks);
    pthread_mutex_destroy(&l.lock);
    ts_stop(l.ts);
}
END_TEST

/* A backup never overwrites, leaves nothing behind when it fails, and
 * needs an umpire database to copy. */
START_TEST(test_backup_refusals)
{
    test_server *ts = ts_start();
    char dest[192], tmp[200], missing[192];
    db_backup_info info;
    long long size;
    struct stat sb;
    err_info e;
    FILE *f;

    snprintf(dest, sizeof dest, "%s/backup.db", ts->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", dest);
    snprintf(missing, sizeof missing, "%s/none.db", ts->dir);
    err_clear(&e);
    ck_assert_int_eq(db_backup(ts->db_path, dest, &info, &e), ERR_OK);
    size = info.size;
    ck_assert_int_eq(stat(tmp, &sb), -1);
    /* DEST exists: refused, and the file is untouched. */
    err_clear(&e);
    ck_assert_int_eq(db_backup(ts->db_path, dest, &info, &e), ERR_CONFLICT);
    ck_assert_ptr_nonnull(strstr(e.message, "exists"));
    ck_assert_int_eq(stat(dest, &sb), 0);
    ck_assert_int_eq(sb.st_size, size);
    unlink(dest);
    /* DEST.tmp left by another backup: refused, and left alone. */
    f = fopen(tmp, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    err_clear(&e);
    ck_assert_int_eq(db_backup(ts->db_path, dest, &info, &e), ERR_CONFLICT);
    ck_assert_ptr_nonnull(strstr(e.message, ".tmp"));
    ck_assert_int_eq(stat(tmp, &sb), 0);
    ck_assert_int_eq(stat(dest, &sb), -1);
    unlink(tmp);
    /* No database there: refused, nothing created. */
    err_clear(&e);
    ck_assert_int_eq(db_backup(missing, dest, &info, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(stat(missing, &sb), -1);
    ck_assert_int_eq(stat(dest, &sb), -1);
    ts_stop(ts);
}
END_TEST

Suite *suite_backup(void)
{
    Suite *s = suite_create("backup");
    TCase *tc = tcase_create("backup");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_backup_under_load);
    tcase_add_test(tc, test_backup_refusals);
    suite_add_tcase(s, tc);
    return s;
}
