/*
 * checkpointer.c: the write-ahead log copied into the database by a
 * thread of its own, beside the writer (db_int.h, db_ckpt_*).
 *
 * SQLite's own checkpoint (wal_autocheckpoint) runs on the writer's
 * connection, inside the commit that takes the log past its size: every
 * page of the log is read back and written into the database, and the
 * database synced, while every request waiting on the writer waits on
 * that too.  With pages of 1 KiB that is some 16,000 reads and writes and
 * a sync every 16 MiB of log; under load a campaign's combats, which run
 * on the writer, saw their p90 double (bench/README.md, "Checkpoints off
 * the writer").
 *
 * So the writer only watches the log's size (a WAL hook, called after
 * each commit with the frames the log holds) and asks this thread for a
 * pass: a PASSIVE checkpoint on the thread's own connection, which copies
 * what is committed and waits for no one, while the writer goes on
 * committing after it.  The log can start over from its beginning only
 * once every frame in it is in the database, and the writer adds frames
 * all the while, so once a pass is done the writer finishes the job
 * itself, at its next commit: a PASSIVE checkpoint of only the frames it
 * added meanwhile (SQLite resumes where the last one stopped), after
 * which its next transaction starts the log over.  If that tail is still
 * large (the writer outran the pass), another pass is asked for instead.
 *
 * Each pass ends with a sync of the database file on this thread: SQLite
 * syncs it only in a checkpoint that reaches the end of the log, which
 * would be the writer's tail, so the writer would sync all the pass wrote.
 *
 * The log stays bounded: past CKPT_HARD_FACTOR times the size that starts
 * a pass, the writer waits for the pass under way and checkpoints
 * itself, as SQLite's own would have, so a disk slower than the writes
 * slows the writes rather than letting the log grow (and a commit that
 * does so waits for up to twice what SQLite's own checkpoint copied).
 * Readers holding an old snapshot hold back any checkpoint, this one as
 * SQLite's.
 *
 * What stays the writer's (db.c): the checkpoint that truncates the log
 * when it is idle (a pass under way makes it busy, and it is tried again
 * later), the final one at close (once this thread has stopped), and
 * after a full disk, SQLite's own every 64 KiB for a while
 * (db_ckpt_detach, then db_ckpt_attach).
 */
#include "db_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

/* The log may hold this many times the pages that start a pass before the
 * writer checkpoints itself (32 MiB). */
#define CKPT_HARD_FACTOR 2
/* The writer finishes a pass itself when the frames it added since are at
 * most this share of the pages that start a pass (1/CKPT_TAIL_DIVISOR). */
#define CKPT_TAIL_DIVISOR 8

struct db_ckpt {
    db_conn *conn; /* the thread's own, read-write */
    pthread_t thread;
    bool has_thread;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a pass asked for, or stopping */
    pthread_cond_t done; /* a pass ended */
    int start_pages;     /* a pass is asked for at this many frames */
    /* Under lock: */
    bool is_stopping;
    bool is_asked;   /* a pass asked for, not begun */
    bool is_running; /* a pass under way */
    bool is_ended;   /* a pass ended, the writer's tail not run yet */
    int backfilled;  /* frames in the database after the last pass */
    unsigned long passes, tails, waits; /* db_ckpt_stats' counts */
};

/* One PASSIVE checkpoint on c: the frames in the database after it (0
 * where it failed: the next pass or the writer's tail tries again). */
static int passive(sqlite3 *c)
{
    int n_log = 0, n_done = 0;

    if (sqlite3_wal_checkpoint_v2(c, NULL, SQLITE_CHECKPOINT_PASSIVE, &n_log,
                                  &n_done) != SQLITE_OK)
        return 0;
    return n_done > 0 ? n_done : 0;
}

/* The database file synced, as a checkpoint syncs it.  SQLite syncs it
 * only in a checkpoint that reaches the end of the log, which under load
 * is the writer's tail, not the pass: unsynced, the pages the pass wrote
 * would be synced there, on the writer (some 20 ms a pass on the 2-core
 * machine).  A sync writes nothing of its own, so it is safe whatever the
 * other connections do; one that fails leaves the work to that tail. */
static void sync_database(sqlite3 *c)
{
    sqlite3_file *f = NULL;

    if (sqlite3_file_control(c, "main", SQLITE_FCNTL_FILE_POINTER, &f) ==
            SQLITE_OK &&
        f != NULL && f->pMethods != NULL)
        (void)f->pMethods->xSync(f, SQLITE_SYNC_NORMAL);
}

static void *ckpt_main(void *arg)
{
    db_ckpt *k = arg;

    (void)prctl(PR_SET_NAME, "umpire-ckpt");
    pthread_mutex_lock(&k->lock);
    for (;;) {
        int n;

        while (!k->is_asked && !k->is_stopping)
            pthread_cond_wait(&k->wake, &k->lock);
        if (k->is_stopping)
            break;
        k->is_asked = false;
        k->is_running = true;
        pthread_mutex_unlock(&k->lock);
        if ((n = passive(k->conn->lite)) > 0)
            sync_database(k->conn->lite);
        pthread_mutex_lock(&k->lock);
        k->is_running = false;
        k->is_ended = true;
        k->backfilled = n;
        k->passes++;
        pthread_cond_broadcast(&k->done);
    }
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

/* The writer's checkpoint of the log's tail, or of all of it. */
static void writer_checkpoint(db_ckpt *k, sqlite3 *w, bool is_tail)
{
    (void)passive(w);
    pthread_mutex_lock(&k->lock);
    if (is_tail)
        k->tails++;
    else
        k->waits++;
    pthread_mutex_unlock(&k->lock);
}

/* The WAL hook: on the writer's thread, after each commit, n_frames the
 * frames the log now holds. */
static int on_commit(void *arg, sqlite3 *w, const char *name, int n_frames)
{
    db_ckpt *k = arg;
    int hard = k->start_pages * CKPT_HARD_FACTOR;
    int tail_max = k->start_pages / CKPT_TAIL_DIVISOR;

    (void)name;
    pthread_mutex_lock(&k->lock);
    if (n_frames >= hard) {
        /* Too far behind: wait for the pass under way (or asked for),
         * then the writer checkpoints itself. */
        while ((k->is_running || k->is_asked) && !k->is_stopping)
            pthread_cond_wait(&k->done, &k->lock);
        k->is_ended = false;
        pthread_mutex_unlock(&k->lock);
        writer_checkpoint(k, w, false);
        return SQLITE_OK;
    }
    if (k->is_ended && n_frames < k->backfilled)
        k->is_ended = false; /* the log started over since: nothing left */
    if (k->is_ended) {
        k->is_ended = false;
        if (n_frames - k->backfilled <= tail_max) {
            pthread_mutex_unlock(&k->lock);
            writer_checkpoint(k, w, true);
            return SQLITE_OK;
        }
        k->is_asked = true; /* the writer outran it: another pass */
        pthread_cond_signal(&k->wake);
    } else if (n_frames >= k->start_pages && !k->is_running && !k->is_asked) {
        k->is_asked = true;
        pthread_cond_signal(&k->wake);
    }
    pthread_mutex_unlock(&k->lock);
    return SQLITE_OK;
}

err_code db_ckpt_start(const char *path, db_conn *writer, db_ckpt **out,
                       err_info *e)
{
    db_ckpt *k = calloc(1, sizeof *k);

    *out = NULL;
    if (k == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->wake, NULL);
    pthread_cond_init(&k->done, NULL);
    k->start_pages = lite_pages_of(writer->lite, DB_AUTOCHECKPOINT_BYTES);
    if (db_conn_open(path, true, &k->conn, e) != ERR_OK) {
        db_ckpt_stop(k);
        return e && e->code ? e->code : ERR_DB;
    }
    if (pthread_create(&k->thread, NULL, ckpt_main, k) != 0) {
        db_ckpt_stop(k);
        return err_set(e, ERR_INTERNAL, NULL, "cannot start the checkpointer");
    }
    k->has_thread = true;
    db_ckpt_attach(k, writer);
    *out = k;
    return ERR_OK;
}

void db_ckpt_attach(db_ckpt *k, db_conn *writer)
{
    sqlite3_wal_hook(writer->lite, on_commit, k);
}

void db_ckpt_detach(db_ckpt *k, db_conn *writer)
{
    (void)k;
    sqlite3_wal_hook(writer->lite, NULL, NULL);
}

void db_ckpt_stop(db_ckpt *k)
{
    if (k == NULL)
        return;
    if (k->has_thread) {
        pthread_mutex_lock(&k->lock);
        k->is_stopping = true;
        pthread_cond_broadcast(&k->wake);
        pthread_cond_broadcast(&k->done);
        pthread_mutex_unlock(&k->lock);
        pthread_join(k->thread, NULL);
    }
    db_conn_close(k->conn);
    pthread_mutex_destroy(&k->lock);
    pthread_cond_destroy(&k->wake);
    pthread_cond_destroy(&k->done);
    free(k);
}

void db_ckpt_get_stats(db_ckpt *k, db_ckpt_stats *out)
{
    memset(out, 0, sizeof *out);
    if (k == NULL)
        return;
    out->is_running = k->has_thread;
    out->start_pages = k->start_pages;
    pthread_mutex_lock(&k->lock);
    out->passes = k->passes;
    out->tails = k->tails;
    out->waits = k->waits;
    pthread_mutex_unlock(&k->lock);
}
