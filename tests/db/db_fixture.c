/*
 * db_fixture.c: the fresh database of a database test, SQL probes (a
 * snapshot of the whole file among them), the writer's blocker, rows
 * written through the writer and units checked against the ones written;
 * see db_fixture.h.
 *
 * The blocker is static, so a failed test never leaves the writer pointing
 * into a dead stack frame; teardown releases it before closing.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <sodium.h>
#include <zstd.h>

#include "db_fixture.h"
#include "scrud.h"
#include "scs.h"

db *db_fixture_db;
char db_fixture_path[192];

static char suite_dir[64]; /* per TCase: holds every test folder */
static char test_dir[128]; /* per test */

/* ---- fixtures ---------------------------------------------------------- */

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    struct dirent *de;
    struct stat sb;
    char child[1024];

    if (dir == NULL) {
        unlink(path);
        return;
    }
    while ((de = readdir(dir)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(child, sizeof child, "%s/%s", path, de->d_name);
        if (lstat(child, &sb) == 0 && S_ISDIR(sb.st_mode))
            remove_tree(child);
        else
            unlink(child);
    }
    closedir(dir);
    rmdir(path);
}

void db_fixture_suite_make(void)
{
    snprintf(suite_dir, sizeof suite_dir, "/tmp/umpire-test-db-XXXXXX");
    ck_assert_msg(mkdtemp(suite_dir) != NULL, "mkdtemp: %s", strerror(errno));
}

void db_fixture_suite_remove(void)
{
    if (suite_dir[0] != '\0')
        remove_tree(suite_dir);
    suite_dir[0] = '\0';
}

/* Holds the writer inside a job until released (or DB_FIXTURE_WAIT_SECONDS
 * pass). */
static struct blocker {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool is_started, is_released;
} blocker;

void db_fixture_setup(void)
{
    ck_assert_msg(suite_dir[0] != '\0', "no suite folder");
    snprintf(test_dir, sizeof test_dir, "%s/t-XXXXXX", suite_dir);
    ck_assert_msg(mkdtemp(test_dir) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(db_fixture_path, sizeof db_fixture_path, "%s/umpire.db", test_dir);
    db_fixture_db = NULL;
    memset(&blocker, 0, sizeof blocker);
    pthread_mutex_init(&blocker.lock, NULL);
    pthread_cond_init(&blocker.cond, NULL);
}

void db_fixture_teardown(void)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char file[256];
    size_t i;

    db_fixture_release_writer();
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(file, sizeof file, "%s%s", db_fixture_path, suffixes[i]);
        unlink(file);
    }
    rmdir(test_dir);
    pthread_mutex_destroy(&blocker.lock);
    pthread_cond_destroy(&blocker.cond);
}

void db_fixture_open(void)
{
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_open(db_fixture_path, 2, &db_fixture_db, &e);
    ck_assert_msg(rc == ERR_OK, "db_open(%s): %s", db_fixture_path, e.message);
    ck_assert_ptr_nonnull(db_fixture_db);
}

/* ---- SQL probes -------------------------------------------------------- */

bool db_fixture_file_exists(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0;
}

long long db_fixture_log_size(const char *db_path)
{
    char path[600];
    struct stat sb;

    snprintf(path, sizeof path, "%s-wal", db_path);
    return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

/* The first column of the first row of sql as an int, or -1. */
int db_fixture_lite_query_int(sqlite3 *c, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int v = -1;

    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

void db_fixture_lite_query_text(sqlite3 *c, const char *sql, char *buf,
                                size_t n)
{
    sqlite3_stmt *st = NULL;

    snprintf(buf, n, "%s", "(none)");
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* Rows of table (a literal name) whose id is id, or -1. */
int db_fixture_lite_count_rows(sqlite3 *c, const char *table, const char *id)
{
    char sql[96];
    sqlite3_stmt *st = NULL;
    int v = -1;

    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE id = ?", table);
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

bool db_fixture_str_eq_or_null(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

void db_fixture_raw_exec(const char *sql)
{
    sqlite3 *c = NULL;
    int rc;

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    rc = sqlite3_exec(c, sql, NULL, NULL, NULL);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(c));
    sqlite3_close(c);
}

int db_fixture_raw_query_int(const char *sql)
{
    sqlite3 *c = NULL;
    int v;

    ck_assert_int_eq(
        sqlite3_open_v2(db_fixture_path, &c, SQLITE_OPEN_READONLY, NULL),
        SQLITE_OK);
    v = db_fixture_query_int(c, sql);
    sqlite3_close(c);
    return v;
}

void db_fixture_check_chains(void)
{
    ck_assert_int_eq(
        db_fixture_raw_query_int(
            "SELECT count(*) FROM unit_events e WHERE prev_seq IS NOT "
            "(SELECT max(p.seq) FROM unit_events p WHERE p.unit_row = "
            "e.unit_row AND p.seq < e.seq) OR unit_seq IS NOT (SELECT "
            "count(*) FROM unit_events p WHERE p.unit_row = e.unit_row AND "
            "p.seq <= e.seq)"),
        0);
    ck_assert_int_eq(
        db_fixture_raw_query_int(
            "SELECT count(*) FROM unit_heads h WHERE seq IS NOT (SELECT "
            "max(seq) FROM unit_events WHERE unit_row = h.unit_row) OR n IS "
            "NOT (SELECT count(*) FROM unit_events WHERE unit_row = "
            "h.unit_row) OR unit_seq IS NOT n"),
        0);
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM unit_heads"),
        db_fixture_raw_query_int(
            "SELECT count(DISTINCT unit_row) FROM unit_events"));
    ck_assert_int_eq(
        db_fixture_raw_query_int(
            "SELECT count(*) FROM (SELECT unit_row, seq FROM unit_events "
            "WHERE unit_seq % 64 = 0 EXCEPT SELECT unit_row, seq FROM "
            "unit_marks)"),
        0);
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM unit_marks"),
        db_fixture_raw_query_int(
            "SELECT count(*) FROM unit_events WHERE unit_seq % 64 = 0"));
}

char *db_fixture_snapshot(void)
{
    sqlite3 *c = NULL;
    sqlite3_stmt *st = NULL, *rows = NULL;
    char *buf = NULL, sql[160];
    size_t len = 0;
    FILE *f;
    int i;

    f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(
        sqlite3_open_v2(db_fixture_path, &c, SQLITE_OPEN_READONLY, NULL),
        SQLITE_OK);
    fprintf(f, "version %d\n", db_fixture_query_int(c, "PRAGMA user_version"));
    ck_assert_int_eq(sqlite3_prepare_v2(c,
                                        "SELECT type, name, sql FROM "
                                        "sqlite_master ORDER BY type, name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        fprintf(f, "%s %s: %s\n", (const char *)sqlite3_column_text(st, 0),
                (const char *)sqlite3_column_text(st, 1),
                sqlite3_column_text(st, 2)
                    ? (const char *)sqlite3_column_text(st, 2)
                    : "-");
        if (strcmp((const char *)sqlite3_column_text(st, 0), "table") != 0)
            continue;
        /* Every table has two columns or more that start a unique key. */
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" ORDER BY 1, 2",
                 (const char *)sqlite3_column_text(st, 1));
        ck_assert_int_eq(sqlite3_prepare_v2(c, sql, -1, &rows, NULL),
                         SQLITE_OK);
        while (sqlite3_step(rows) == SQLITE_ROW) {
            for (i = 0; i < sqlite3_column_count(rows); i++)
                fprintf(f, "%s%s",
                        sqlite3_column_type(rows, i) == SQLITE_NULL
                            ? "NULL"
                            : (const char *)sqlite3_column_text(rows, i),
                        i + 1 < sqlite3_column_count(rows) ? "|" : "\n");
        }
        sqlite3_finalize(rows);
    }
    sqlite3_finalize(st);
    sqlite3_close(c);
    fclose(f);
    return buf;
}

void db_fixture_deadline(struct timespec *ts)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += DB_FIXTURE_WAIT_SECONDS;
}

/* ---- the writer -------------------------------------------------------- */

static err_code job_block(db_conn *c, void *arg, err_info *e)
{
    struct timespec limit;

    (void)c;
    (void)arg;
    (void)e;
    db_fixture_deadline(&limit);
    pthread_mutex_lock(&blocker.lock);
    blocker.is_started = true;
    pthread_cond_broadcast(&blocker.cond);
    while (!blocker.is_released &&
           pthread_cond_timedwait(&blocker.cond, &blocker.lock, &limit) !=
               ETIMEDOUT)
        ;
    pthread_mutex_unlock(&blocker.lock);
    return ERR_OK;
}

static void done_nothing(void *arg, err_code rc, const err_info *e)
{
    (void)arg;
    (void)rc;
    (void)e;
}

/* Queues the blocker and returns once the writer is inside it, so every
 * job submitted before db_fixture_release_writer lands in the next batch. */
void db_fixture_hold_writer(void)
{
    struct timespec limit;

    ck_assert_int_eq(db_submit(db_fixture_db, job_block, done_nothing, NULL),
                     ERR_OK);
    db_fixture_deadline(&limit);
    pthread_mutex_lock(&blocker.lock);
    while (!blocker.is_started &&
           pthread_cond_timedwait(&blocker.cond, &blocker.lock, &limit) !=
               ETIMEDOUT)
        ;
    pthread_mutex_unlock(&blocker.lock);
    ck_assert_msg(blocker.is_started, "the writer never ran the blocker");
}

void db_fixture_release_writer(void)
{
    pthread_mutex_lock(&blocker.lock);
    blocker.is_released = true;
    pthread_cond_broadcast(&blocker.cond);
    pthread_mutex_unlock(&blocker.lock);
}

/* Job wrappers: one store call each, the row as arg. */
err_code db_fixture_job_campaign(db_conn *c, void *arg, err_info *e)
{
    return db_campaign_insert(c, arg, e);
}

err_code db_fixture_job_side(db_conn *c, void *arg, err_info *e)
{
    return db_side_insert(c, arg, e);
}

err_code db_fixture_job_side_update(db_conn *c, void *arg, err_info *e)
{
    return db_side_update(c, arg, e);
}

/* db_write of run(arg); returns its code, the details in *e. */
err_code db_fixture_write_rc(db_job_fn run, void *arg, err_info *e)
{
    err_clear(e);
    return db_write(db_fixture_db, run, arg, e);
}

void db_fixture_write_ok(db_job_fn run, void *arg, const char *what)
{
    err_info e;
    err_code rc = db_fixture_write_rc(run, arg, &e);

    ck_assert_msg(rc == ERR_OK, "%s: %s: %s", what, err_code_name(rc),
                  e.message);
}

void db_fixture_new_campaign(db_campaign *c, const char *name)
{
    memset(c, 0, sizeof *c);
    db_new_id("cmp", c->id);
    snprintf(c->name, sizeof c->name, "%s", name);
    db_now(c->created_at);
    scrud_options_default(&c->scrud);
    scs_options_default(&c->scs);
}

void db_fixture_add_campaign(db_campaign *c, const char *name)
{
    db_fixture_new_campaign(c, name);
    db_fixture_write_ok(db_fixture_job_campaign, c, "insert campaign");
}

/* id NULL: a random one. */
void db_fixture_new_side(db_side *s, const char *campaign_id, const char *id,
                         const char *name)
{
    memset(s, 0, sizeof *s);
    if (id != NULL)
        snprintf(s->id, sizeof s->id, "%s", id);
    else
        db_new_id("sd", s->id);
    snprintf(s->campaign_id, sizeof s->campaign_id, "%s", campaign_id);
    snprintf(s->name, sizeof s->name, "%s", name);
    db_now(s->created_at);
}

void db_fixture_add_side(db_side *s, const char *campaign_id, const char *id,
                         const char *name)
{
    db_fixture_new_side(s, campaign_id, id, name);
    db_fixture_write_ok(db_fixture_job_side, s, "insert side");
}

/* ---- combats ----------------------------------------------------------- */

/* note and client_seed borrowed. */
void db_fixture_new_combat(db_combat *cb, const char *campaign_id,
                           const char *created_at, char *note,
                           char *client_seed)
{
    memset(cb, 0, sizeof *cb);
    db_new_id("cmb", cb->id);
    snprintf(cb->campaign_id, sizeof cb->campaign_id, "%s", campaign_id);
    snprintf(cb->system, sizeof cb->system, "scrud");
    snprintf(cb->created_at, sizeof cb->created_at, "%s", created_at);
    snprintf(cb->dice_source, sizeof cb->dice_source, "seeded");
    snprintf(cb->rng, sizeof cb->rng, "v1");
    snprintf(cb->commitment, sizeof cb->commitment, "%s", DB_FIXTURE_HEX64);
    snprintf(cb->server_seed, sizeof cb->server_seed, "%s", DB_FIXTURE_HEX64_B);
    db_new_id("tok", cb->actor_token_id);
    cb->note = note;
    cb->client_seed = client_seed;
    cb->summary = "Blue 2 defeats, Red 3 defeats";
    cb->report = "{\"winner\":\"Blue\",\"note\":\"\xc3\xa9t\xc3\xa9\"}";
}

/* ---- units ------------------------------------------------------------- */

err_code db_fixture_job_unit(db_conn *c, void *arg, err_info *e)
{
    return db_unit_insert(c, arg, e);
}

err_code db_fixture_job_unit_update(db_conn *c, void *arg, err_info *e)
{
    return db_unit_update(c, arg, e);
}

/* id NULL: a random one. */
void db_fixture_new_unit(db_unit *u, const db_side *s, const char *id,
                         const char *name)
{
    memset(u, 0, sizeof *u);
    if (id != NULL)
        snprintf(u->id, sizeof u->id, "%s", id);
    else
        db_new_id("un", u->id);
    snprintf(u->campaign_id, sizeof u->campaign_id, "%s", s->campaign_id);
    snprintf(u->side_id, sizeof u->side_id, "%s", s->id);
    snprintf(u->name, sizeof u->name, "%s", name);
    db_now(u->created_at);
    scrud_unit_default(&u->scrud);
}

/* The counter a unit written as u reads back with: defaults without SCS,
 * no reduced side without one, no attack value where none is printed. */
static scs_counter stored_scs(const db_unit *u)
{
    scs_counter k;

    memset(&k, 0, sizeof k);
    if (!u->has_scs)
        return k;
    k = u->scs;
    if (!k.has_reduced)
        memset(&k.reduced, 0, sizeof k.reduced);
    if (!k.full.has_attack)
        k.full.attack = 0;
    if (!k.reduced.has_attack)
        k.reduced.attack = 0;
    return k;
}

static void check_printed(const scs_printed *got, const scs_printed *want,
                          const char *what)
{
    ck_assert_msg(got->has_attack == want->has_attack, "%s.has_attack", what);
    ck_assert_msg(got->attack == want->attack, "%s.attack %d, want %d", what,
                  got->attack, want->attack);
    ck_assert_msg(got->defense == want->defense, "%s.defense %d, want %d", what,
                  got->defense, want->defense);
    ck_assert_msg(got->movement == want->movement, "%s.movement %d, want %d",
                  what, got->movement, want->movement);
}

static void check_scs(const db_unit *got, const db_unit *want)
{
    scs_counter w = stored_scs(want);

    ck_assert_int_eq(got->has_scs, want->has_scs);
    check_printed(&got->scs.full, &w.full, "full");
    ck_assert_int_eq(got->scs.has_reduced, w.has_reduced);
    check_printed(&got->scs.reduced, &w.reduced, "reduced");
    ck_assert_int_eq(got->scs.steps, w.steps);
    ck_assert_int_eq(got->scs.steps_lost, w.steps_lost);
    ck_assert_int_eq(got->scs.is_exploit, w.is_exploit);
    ck_assert_int_eq(got->scs.is_out_of_supply, w.is_out_of_supply);
}

void db_fixture_check_unit(const db_unit *got, const db_unit *want,
                           const char *want_side)
{
    ck_assert_str_eq(got->id, want->id);
    ck_assert_str_eq(got->campaign_id, want->campaign_id);
    ck_assert_str_eq(got->side_id, want->side_id);
    ck_assert_str_eq(got->name, want->name);
    ck_assert_str_eq(got->created_at, want->created_at);
    ck_assert_int_eq(got->is_eliminated, want->is_eliminated);
    ck_assert_int_eq(got->scrud.is_eliminated, want->is_eliminated);
    ck_assert_str_eq(got->eliminated_reason, want->eliminated_reason);
    ck_assert_str_eq(got->eliminated_by, want->eliminated_by);
    ck_assert_int_eq(got->scrud.quality, want->scrud.quality);
    ck_assert_int_eq(got->scrud.faces, want->scrud.faces);
    ck_assert_int_eq(got->scrud.defeat_penalty, want->scrud.defeat_penalty);
    ck_assert_int_eq(got->scrud.fatigue_penalty, want->scrud.fatigue_penalty);
    ck_assert_int_eq(got->has_scrud, want->has_scrud);
    ck_assert_int_eq(got->has_edna, want->has_edna);
    ck_assert_int_eq(got->edna, want->edna);
    ck_assert_int_eq(got->edna_start, want->edna_start);
    check_scs(got, want);
    ck_assert_int_eq(got->has_matrix, want->has_matrix);
    ck_assert_int_eq(got->matrix_quality, want->matrix_quality);
    if (want_side != NULL)
        ck_assert_str_eq(got->side_name, want_side);
}

void db_fixture_raw_scs(const char *id, char *buf, size_t n)
{
    char sql[480];
    sqlite3 *c = NULL;

    snprintf(sql, sizeof sql,
             "SELECT has_scs || '|' || coalesce(scs_attack, 'NULL') || '|' "
             "|| scs_defense || '|' || scs_movement || '|' || "
             "scs_has_reduced || '|' || coalesce(scs_r_attack, 'NULL') || "
             "'|' || scs_r_defense || '|' || scs_r_movement || '|' || "
             "scs_steps || '|' || scs_steps_lost || '|' || scs_exploit || "
             "'|' || scs_out_of_supply FROM units WHERE id = '%s'",
             id);
    ck_assert_int_eq(
        sqlite3_open_v2(db_fixture_path, &c, SQLITE_OPEN_READONLY, NULL),
        SQLITE_OK);
    db_fixture_query_text(c, sql, buf, n);
    sqlite3_close(c);
}

/* ---- values of older layouts ------------------------------------------ */

unsigned char *db_fixture_pack_after(const char *text, const char *prefix,
                                     size_t *len)
{
    size_t n = strlen(text), room = ZSTD_compressBound(n), got;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    unsigned char *z = malloc(room);

    ck_assert_ptr_nonnull(cctx);
    ck_assert_ptr_nonnull(z);
    /* As the service packed them: level 1, with a checksum. */
    got = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    if (!ZSTD_isError(got))
        got = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(got) && prefix[0] != '\0')
        got = ZSTD_CCtx_refPrefix(cctx, prefix, strlen(prefix));
    if (!ZSTD_isError(got))
        got = ZSTD_compress2(cctx, z, room, text, n);
    ZSTD_freeCCtx(cctx);
    ck_assert_msg(!ZSTD_isError(got), "zstd: %s", ZSTD_getErrorName(got));
    *len = got;
    return z;
}

unsigned char *db_fixture_pack_bare(const char *text, size_t *len)
{
    return db_fixture_pack_after(text, "", len);
}

void db_fixture_rolls_check(const unsigned char *rolls, size_t n,
                            unsigned char out[4])
{
    static const unsigned char key[crypto_shorthash_KEYBYTES] =
        "umpire rolls v1";
    unsigned char h[crypto_shorthash_BYTES];

    crypto_shorthash(h, rolls, n, key);
    memcpy(out, h, 4);
}

unsigned char *db_fixture_rolls_v1(const unsigned char *v2, size_t v2_len,
                                   bool is_bare, size_t *len)
{
    enum { HEAD = 8, INTS = 4 * 5, STRS = 6, HEX = 64 };
    size_t k = (size_t)v2[4] | (size_t)v2[5] << 8 | (size_t)v2[6] << 16 |
               (size_t)v2[7] << 24,
           head = HEAD + k * 32, n, zlen, i;
    char *text = db_rolls_text(v2, v2_len), *bare, *q;
    const unsigned char *p, *end;
    unsigned char *z, *out;

    ck_assert_int_eq(memcmp(v2, "\x1brh2", 4), 0);
    ck_assert_ptr_nonnull(text);
    /* Each roll of the text: its numbers, its strings, then its previous
     * hash and its hash (a string each, the previous one empty after the
     * first roll), which the frame leaves out. */
    n = strlen(text);
    ck_assert_ptr_nonnull(q = bare = malloc(n + 1));
    p = (const unsigned char *)text;
    end = p + n;
    while (p < end) {
        const unsigned char *start = p;
        p += INTS;
        for (i = 0; i < STRS; i++)
            p += p[0];
        memcpy(q, start, (size_t)(p - start));
        q += p - start;
        ck_assert(p[0] == 1 || p[0] == HEX + 1);
        p += p[0];
        ck_assert_int_eq(p[0], HEX + 1);
        p += p[0];
    }
    *q = '\0';
    free(text);
    z = is_bare ? db_fixture_pack_bare(bare, &zlen) : db_doc_pack(bare, &zlen);
    free(bare);
    ck_assert_ptr_nonnull(z);
    ck_assert_ptr_nonnull(out = malloc(head + zlen));
    memcpy(out, v2, head);
    memcpy(out, "\x1brh1", 4);
    memcpy(out + head, z, zlen);
    free(z);
    *len = head + zlen;
    return out;
}
