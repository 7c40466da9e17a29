/*
 * wal_vfs.c: the writer's VFS (db_conn.h, lite_writer_vfs): SQLite's
 * default VFS, but for the write-ahead log, whose frames it hands to the
 * kernel a commit at a time.
 *
 * SQLite writes each frame of the log as two writes, its 24-byte header
 * and then its page, so a commit of ten pages was twenty pwrite calls,
 * each paying the kernel's work for a call (about 3 us here, at an offset
 * that is never a page's): 60 us of the writer's time where one call of
 * the same bytes takes 5.  This layer keeps the frames appended to the
 * log in a buffer and writes them as one call:
 *   - when the frame that commits is whole (its header names the
 *     database's size after the commit, which no other frame's does), so
 *     every frame of a commit is in the file before SQLite goes on to
 *     make the commit visible, whatever the sync setting;
 *   - when the connection changes a shared-memory lock of the database
 *     file, letting go of the log's write lock (lock 0) among them, so
 *     that frames of a transaction rolled back are where SQLite put them
 *     before another writer may write the log;
 *   - before anything that looks at the file (a read, its size, a sync,
 *     a truncation, a close), so the file is always what SQLite wrote to
 *     it by then;
 *   - before a write that does not follow the buffer, which then starts
 *     it again, or when it is full (64 KiB).
 * Only appends are held: the log's header (offset 0, when the log starts
 * over) and a frame rewritten in place (below the log's end: SQLite
 * rewrites a transaction's frames and their checksums before its commit)
 * are written through at once, after what the buffer held.
 * A write the kernel refuses is reported by the call that made it (the
 * commit frame's, a sync's ...), and what the buffer held is dropped:
 * it is never more than the transaction under way, which SQLite then
 * fails; frames past the last commit are never read (their salts and
 * checksums do not match).
 *
 * Where the layer cannot stand in exactly, the log is the default VFS's
 * own file: a log whose database file, or itself, does not say that a
 * write leaves the sector's other bytes as they were
 * (SQLITE_IOCAP_POWERSAFE_OVERWRITE; without it on the database file
 * SQLite pads a commit to a sector and writes part of a frame after its
 * sync), older file methods, a log whose database file this
 * layer did not open, or no memory for the buffer.  The database file is
 * wrapped only to see its shared-memory locks change; every other file
 * is the default VFS's own, opened in place.  The default VFS is the one found
 * when the writer opens, so a test's VFS installed as the default
 * (tests/db/full_vfs.h) is wrapped too: a layer is made for each default
 * met (a few at most).
 */
#include "db_conn.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

/* The most one write holds: 64 KiB, 62 frames of 1 KiB pages or 15 of
 * 4 KiB (a larger commit takes a write for each such run).  SQLite's unix VFS
 * writes at most 128 KiB less a byte a call: it keeps the low 17 bits of the
 * length. */
enum {
    WAL_BUF_SIZE = 64 * 1024,
    WAL_FRAME_HEADER = 24,
    WAL_LAYERS = 4 /* defaults met at most */
};

/* A log, or the database file of a log. */
typedef struct wal_file {
    sqlite3_file base;  /* first: SQLite sees this */
    sqlite3_file *real; /* the default VFS's file, right after this */
    /* a log's */
    unsigned char *buf;  /* WAL_BUF_SIZE bytes */
    size_t len;          /* bytes held */
    sqlite3_int64 at;    /* the file offset of buf[0] */
    sqlite3_int64 end;   /* the end of the frames appended since the
                            log's header */
    bool is_commit;      /* the last write was a commit frame's header */
    struct wal_file *db; /* its database file's */
    /* a database file's */
    const char *name;      /* as SQLite passed it to xOpen */
    struct wal_file *log;  /* its log's, while open */
    struct wal_file *next; /* the next database file open (dbs) */
} wal_file;

typedef struct wal_layer {
    sqlite3_vfs vfs; /* pAppData: the VFS under it */
    char name[64];
} wal_layer;

static wal_layer layers[WAL_LAYERS];
static int n_layers;
/* The database files open through a layer, for their logs to find; and
 * the layers. */
static wal_file *dbs;
static pthread_mutex_t layers_lock = PTHREAD_MUTEX_INITIALIZER;

static sqlite3_vfs *under(sqlite3_vfs *vfs)
{
    return vfs->pAppData;
}

static sqlite3_file *real_of(sqlite3_file *f)
{
    return ((wal_file *)f)->real;
}

/* Writes what f holds, in one call; the buffer is empty after, whatever
 * the outcome. */
static int flush(wal_file *f)
{
    int rc;

    if (f->len == 0)
        return SQLITE_OK;
    rc = f->real->pMethods->xWrite(f->real, f->buf, (int)f->len, f->at);
    f->len = 0;
    return rc;
}

/* ---- the default VFS's file's methods, straight through ---- */

static int pass_read(sqlite3_file *file, void *out, int amt, sqlite3_int64 off)
{
    return real_of(file)->pMethods->xRead(real_of(file), out, amt, off);
}

static int pass_write(sqlite3_file *file, const void *data, int amt,
                      sqlite3_int64 off)
{
    return real_of(file)->pMethods->xWrite(real_of(file), data, amt, off);
}

static int pass_truncate(sqlite3_file *file, sqlite3_int64 size)
{
    return real_of(file)->pMethods->xTruncate(real_of(file), size);
}

static int pass_sync(sqlite3_file *file, int flags)
{
    return real_of(file)->pMethods->xSync(real_of(file), flags);
}

static int pass_file_size(sqlite3_file *file, sqlite3_int64 *size)
{
    return real_of(file)->pMethods->xFileSize(real_of(file), size);
}

static int pass_lock(sqlite3_file *file, int lock)
{
    return real_of(file)->pMethods->xLock(real_of(file), lock);
}

static int pass_unlock(sqlite3_file *file, int lock)
{
    return real_of(file)->pMethods->xUnlock(real_of(file), lock);
}

static int pass_check_lock(sqlite3_file *file, int *out)
{
    return real_of(file)->pMethods->xCheckReservedLock(real_of(file), out);
}

/* The log's too: no file control looks at its bytes (and one asks for
 * the errno of the last write that failed). */
static int pass_control(sqlite3_file *file, int op, void *arg)
{
    return real_of(file)->pMethods->xFileControl(real_of(file), op, arg);
}

static int pass_sector(sqlite3_file *file)
{
    return real_of(file)->pMethods->xSectorSize(real_of(file));
}

static int pass_device(sqlite3_file *file)
{
    return real_of(file)->pMethods->xDeviceCharacteristics(real_of(file));
}

static int pass_shm_map(sqlite3_file *file, int pg, int pgsz, int extend,
                        void volatile **pp)
{
    return real_of(file)->pMethods->xShmMap(real_of(file), pg, pgsz, extend,
                                            pp);
}

static int pass_shm_lock(sqlite3_file *file, int offset, int n, int flags)
{
    return real_of(file)->pMethods->xShmLock(real_of(file), offset, n, flags);
}

static void pass_shm_barrier(sqlite3_file *file)
{
    real_of(file)->pMethods->xShmBarrier(real_of(file));
}

static int pass_shm_unmap(sqlite3_file *file, int delete_flag)
{
    return real_of(file)->pMethods->xShmUnmap(real_of(file), delete_flag);
}

static int pass_fetch(sqlite3_file *file, sqlite3_int64 off, int amt, void **pp)
{
    return real_of(file)->pMethods->xFetch(real_of(file), off, amt, pp);
}

static int pass_unfetch(sqlite3_file *file, sqlite3_int64 off, void *p)
{
    return real_of(file)->pMethods->xUnfetch(real_of(file), off, p);
}

/* ---- the log's methods: the buffer, then straight through ---- */

static int wf_close(sqlite3_file *file)
{
    wal_file *f = (wal_file *)file;
    int rc = flush(f), rc2 = SQLITE_OK;

    pthread_mutex_lock(&layers_lock);
    if (f->db != NULL)
        f->db->log = NULL;
    pthread_mutex_unlock(&layers_lock);
    if (f->real->pMethods != NULL)
        rc2 = f->real->pMethods->xClose(f->real);
    sqlite3_free(f->buf);
    f->buf = NULL;
    return rc != SQLITE_OK ? rc : rc2;
}

static int wf_read(sqlite3_file *file, void *out, int amt, sqlite3_int64 off)
{
    int rc = flush((wal_file *)file);

    return rc != SQLITE_OK ? rc : pass_read(file, out, amt, off);
}

/* A frame's header that names the database's size after it (bytes 4 to
 * 7, big-endian): the frame that commits. */
static bool is_commit_header(const unsigned char *p, int amt)
{
    return amt == WAL_FRAME_HEADER && (p[4] | p[5] | p[6] | p[7]) != 0;
}

static int wf_write(sqlite3_file *file, const void *data, int amt,
                    sqlite3_int64 off)
{
    wal_file *f = (wal_file *)file;
    bool was_commit = f->is_commit;
    int rc;

    f->is_commit = is_commit_header(data, amt);
    /* The log's header, or a frame rewritten in place: through at once. */
    if (off == 0 || off < f->end) {
        if ((rc = flush(f)) != SQLITE_OK)
            return rc;
        if (off == 0)
            f->end = amt;
        return pass_write(file, data, amt, off);
    }
    f->end = off + amt;
    if (f->len > 0 && off == f->at + (sqlite3_int64)f->len &&
        f->len + (size_t)amt <= WAL_BUF_SIZE) {
        memcpy(f->buf + f->len, data, (size_t)amt);
        f->len += (size_t)amt;
    } else {
        if ((rc = flush(f)) != SQLITE_OK)
            return rc;
        if ((size_t)amt > WAL_BUF_SIZE)
            return pass_write(file, data, amt, off);
        memcpy(f->buf, data, (size_t)amt);
        f->len = (size_t)amt;
        f->at = off;
    }
    /* The commit frame's page: the commit is whole. */
    return was_commit ? flush(f) : SQLITE_OK;
}

static int wf_truncate(sqlite3_file *file, sqlite3_int64 size)
{
    wal_file *f = (wal_file *)file;
    int rc = flush(f);

    if (f->end > size)
        f->end = size;
    return rc != SQLITE_OK ? rc : pass_truncate(file, size);
}

static int wf_sync(sqlite3_file *file, int flags)
{
    int rc = flush((wal_file *)file);

    return rc != SQLITE_OK ? rc : pass_sync(file, flags);
}

static int wf_file_size(sqlite3_file *file, sqlite3_int64 *size)
{
    int rc = flush((wal_file *)file);

    return rc != SQLITE_OK ? rc : pass_file_size(file, size);
}

static int wf_fetch(sqlite3_file *file, sqlite3_int64 off, int amt, void **pp)
{
    int rc = flush((wal_file *)file);

    *pp = NULL;
    return rc != SQLITE_OK ? rc : pass_fetch(file, off, amt, pp);
}

static const sqlite3_io_methods wal_io = {
    3,
    wf_close,
    wf_read,
    wf_write,
    wf_truncate,
    wf_sync,
    wf_file_size,
    pass_lock,
    pass_unlock,
    pass_check_lock,
    pass_control,
    pass_sector,
    pass_device,
    pass_shm_map,
    pass_shm_lock,
    pass_shm_barrier,
    pass_shm_unmap,
    wf_fetch,
    pass_unfetch,
};

/* ---- a log's database file: straight through, but for its closing and
 * its shared-memory locks ---- */

static int df_close(sqlite3_file *file)
{
    wal_file *f = (wal_file *)file, **p;

    pthread_mutex_lock(&layers_lock);
    for (p = &dbs; *p != NULL; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    if (f->log != NULL)
        f->log->db = NULL;
    pthread_mutex_unlock(&layers_lock);
    return f->real->pMethods->xClose(f->real);
}

/* Any change of the shared-memory locks, among them the log's write lock
 * (lock 0) let go: what the log's buffer holds is written first, while
 * the log is still this connection's.  Frames of a transaction rolled
 * back, which no commit names: a failure leaves nothing SQLite reads.
 * (In exclusive locking mode SQLite takes no such lock; leaving that mode
 * takes one.) */
static int df_shm_lock(sqlite3_file *file, int offset, int n, int flags)
{
    wal_file *f = (wal_file *)file;

    if (f->log != NULL && f->log->len > 0)
        (void)flush(f->log);
    return pass_shm_lock(file, offset, n, flags);
}

static const sqlite3_io_methods db_io = {
    3,
    df_close,
    pass_read,
    pass_write,
    pass_truncate,
    pass_sync,
    pass_file_size,
    pass_lock,
    pass_unlock,
    pass_check_lock,
    pass_control,
    pass_sector,
    pass_device,
    pass_shm_map,
    df_shm_lock,
    pass_shm_barrier,
    pass_shm_unmap,
    pass_fetch,
    pass_unfetch,
};

/* ---- the VFS's methods: the default's, but for opening a database file
 * and its log ---- */

/* Opens name with u's xOpen into f's trailing space (f->real); false
 * (with *rc) where it failed, or where its methods are older than this
 * layer stands in for (then closed again). */
static bool open_real(sqlite3_vfs *u, const char *name, wal_file *f, int flags,
                      int *out_flags, int *rc)
{
    f->real = (sqlite3_file *)(f + 1);
    *rc = u->xOpen(u, name, f->real, flags, out_flags);
    if (f->real->pMethods == NULL)
        return false;
    if (f->real->pMethods->iVersion < 3) {
        f->real->pMethods->xClose(f->real);
        f->real->pMethods = NULL;
        return false;
    }
    return true;
}

static int wv_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file,
                   int flags, int *out_flags)
{
    sqlite3_vfs *u = under(vfs);
    wal_file *f = (wal_file *)file, *dbf = NULL;
    const char *db_name;
    int rc = SQLITE_OK;

    memset(f, 0, sizeof *f);
    if ((flags & SQLITE_OPEN_MAIN_DB) && name != NULL) {
        if (!open_real(u, name, f, flags, out_flags, &rc)) {
            if (rc != SQLITE_OK)
                return rc;
            memset(f, 0, sizeof *f);
            return u->xOpen(u, name, file, flags, out_flags);
        }
        f->name = name;
        f->base.pMethods = &db_io;
        pthread_mutex_lock(&layers_lock);
        f->next = dbs;
        dbs = f;
        pthread_mutex_unlock(&layers_lock);
        return rc;
    }
    if (!(flags & SQLITE_OPEN_WAL) || name == NULL)
        return u->xOpen(u, name, file, flags, out_flags);
    /* A log: its database file's (SQLite's names of a connection's files
     * are one block, so the pointer is the one its xOpen was given). */
    db_name = sqlite3_filename_database(name);
    pthread_mutex_lock(&layers_lock);
    for (dbf = dbs; dbf != NULL; dbf = dbf->next)
        if (dbf->name == db_name && dbf->log == NULL)
            break;
    pthread_mutex_unlock(&layers_lock);
    if (dbf == NULL || (f->buf = sqlite3_malloc(WAL_BUF_SIZE)) == NULL)
        return u->xOpen(u, name, file, flags, out_flags);
    /* SQLite pads a commit where the database file does not promise
     * power-safe overwrites; the layer steps aside there, and where the
     * log does not promise them either. */
    if (!open_real(u, name, f, flags, out_flags, &rc) ||
        !(dbf->real->pMethods->xDeviceCharacteristics(dbf->real) &
          f->real->pMethods->xDeviceCharacteristics(f->real) &
          SQLITE_IOCAP_POWERSAFE_OVERWRITE)) {
        if (f->real->pMethods != NULL)
            f->real->pMethods->xClose(f->real);
        sqlite3_free(f->buf);
        if (rc != SQLITE_OK)
            return rc;
        memset(f, 0, sizeof *f);
        return u->xOpen(u, name, file, flags, out_flags);
    }
    f->base.pMethods = &wal_io;
    pthread_mutex_lock(&layers_lock);
    f->db = dbf;
    dbf->log = f;
    pthread_mutex_unlock(&layers_lock);
    return rc;
}

static int wv_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    return under(vfs)->xDelete(under(vfs), name, sync_dir);
}

static int wv_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    return under(vfs)->xAccess(under(vfs), name, flags, out);
}

static int wv_full_pathname(sqlite3_vfs *vfs, const char *name, int n,
                            char *out)
{
    return under(vfs)->xFullPathname(under(vfs), name, n, out);
}

static void *wv_dl_open(sqlite3_vfs *vfs, const char *name)
{
    return under(vfs)->xDlOpen(under(vfs), name);
}

static void wv_dl_error(sqlite3_vfs *vfs, int n, char *msg)
{
    under(vfs)->xDlError(under(vfs), n, msg);
}

static void (*wv_dl_sym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
    return under(vfs)->xDlSym(under(vfs), h, sym);
}

static void wv_dl_close(sqlite3_vfs *vfs, void *h)
{
    under(vfs)->xDlClose(under(vfs), h);
}

static int wv_randomness(sqlite3_vfs *vfs, int n, char *out)
{
    return under(vfs)->xRandomness(under(vfs), n, out);
}

static int wv_sleep(sqlite3_vfs *vfs, int us)
{
    return under(vfs)->xSleep(under(vfs), us);
}

static int wv_current_time(sqlite3_vfs *vfs, double *out)
{
    return under(vfs)->xCurrentTime(under(vfs), out);
}

static int wv_last_error(sqlite3_vfs *vfs, int n, char *buf)
{
    return under(vfs)->xGetLastError(under(vfs), n, buf);
}

static int wv_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
    return under(vfs)->xCurrentTimeInt64(under(vfs), out);
}

const char *lite_writer_vfs(void)
{
    sqlite3_vfs *u;
    const char *name = NULL;
    int i;

    if (sqlite3_initialize() != SQLITE_OK ||
        (u = sqlite3_vfs_find(NULL)) == NULL || u->iVersion < 2)
        return NULL;
    pthread_mutex_lock(&layers_lock);
    for (i = 0; i < n_layers && name == NULL; i++)
        if (layers[i].vfs.pAppData == u)
            name = layers[i].name;
    if (name == NULL && n_layers < WAL_LAYERS) {
        wal_layer *l = &layers[n_layers];
        sqlite3_vfs *v = &l->vfs;
        snprintf(l->name, sizeof l->name, "umpire-wal-%d", n_layers);
        memset(v, 0, sizeof *v);
        v->iVersion = 2;
        v->szOsFile = (int)sizeof(wal_file) + u->szOsFile;
        v->mxPathname = u->mxPathname;
        v->zName = l->name;
        v->pAppData = u;
        v->xOpen = wv_open;
        v->xDelete = wv_delete;
        v->xAccess = wv_access;
        v->xFullPathname = wv_full_pathname;
        v->xDlOpen = wv_dl_open;
        v->xDlError = wv_dl_error;
        v->xDlSym = wv_dl_sym;
        v->xDlClose = wv_dl_close;
        v->xRandomness = wv_randomness;
        v->xSleep = wv_sleep;
        v->xCurrentTime = wv_current_time;
        v->xGetLastError = wv_last_error;
        v->xCurrentTimeInt64 = wv_current_time64;
        if (sqlite3_vfs_register(v, 0) == SQLITE_OK) {
            n_layers++;
            name = l->name;
        }
    }
    pthread_mutex_unlock(&layers_lock);
    return name;
}
