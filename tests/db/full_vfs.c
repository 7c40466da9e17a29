/*
 * full_vfs.c: a full disk on demand for tests; see full_vfs.h.
 *
 * Each file the shim opens is its own small struct followed by the
 * wrapped VFS's file; every method passes through to that one except
 * where a failure is asked for.  The database files seen (main and -wal)
 * are remembered by name, and the quota weighs what stat says they take.
 */
#include "full_vfs.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <check.h>
#include <sqlite3.h>

#define FV_MAX_PATHS 8
#define FV_PATH_MAX  512

typedef struct fv_file {
    sqlite3_file base;  /* first: SQLite sees this */
    sqlite3_file *real; /* the wrapped VFS's file, right after this struct */
    bool is_counted;    /* a database file, weighed by the quota */
    bool is_log;        /* a write-ahead log: its writes are counted */
} fv_file;

static sqlite3_vfs fv_vfs;
static sqlite3_vfs *fv_orig;
static atomic_uint fv_what;
static atomic_llong fv_quota;
static atomic_ulong fv_refused;
static atomic_ulong fv_log_writes;
static atomic_bool fv_no_powersafe_db, fv_no_powersafe_log;
static atomic_ulong fv_log_writes_at_barrier; /* at the last xShmBarrier */
static atomic_ulong fv_late_log_writes;
static atomic_uint fv_db_write_delay_us; /* each write of a database file */
static pthread_mutex_t fv_lock = PTHREAD_MUTEX_INITIALIZER;
static char fv_paths[FV_MAX_PATHS][FV_PATH_MAX];
static int fv_n_paths;

static sqlite3_file *real_of(sqlite3_file *f)
{
    return ((fv_file *)f)->real;
}

long long full_vfs_used(void)
{
    long long used = 0;
    struct stat sb;
    int i;

    pthread_mutex_lock(&fv_lock);
    for (i = 0; i < fv_n_paths; i++)
        if (stat(fv_paths[i], &sb) == 0)
            used += (long long)sb.st_size;
    pthread_mutex_unlock(&fv_lock);
    return used;
}

static void remember(const char *path)
{
    int i;

    pthread_mutex_lock(&fv_lock);
    for (i = 0; i < fv_n_paths; i++)
        if (strcmp(fv_paths[i], path) == 0)
            break;
    if (i == fv_n_paths && fv_n_paths < FV_MAX_PATHS)
        snprintf(fv_paths[fv_n_paths++], FV_PATH_MAX, "%s", path);
    pthread_mutex_unlock(&fv_lock);
}

static int refuse(int rc)
{
    atomic_fetch_add(&fv_refused, 1);
    return rc;
}

/* ---- the file's methods ---- */

static int fv_close(sqlite3_file *f)
{
    sqlite3_file *r = real_of(f);

    return r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
}

static int fv_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 off)
{
    return real_of(f)->pMethods->xRead(real_of(f), buf, amt, off);
}

static int fv_write(sqlite3_file *f, const void *buf, int amt,
                    sqlite3_int64 off)
{
    sqlite3_file *r = real_of(f);
    long long quota = atomic_load(&fv_quota);
    sqlite3_int64 size = 0;

    if (((fv_file *)f)->is_log)
        atomic_fetch_add(&fv_log_writes, 1);
    else if (((fv_file *)f)->is_counted &&
             atomic_load(&fv_db_write_delay_us) > 0)
        usleep(atomic_load(&fv_db_write_delay_us));
    if (atomic_load(&fv_what) & FULL_VFS_WRITE)
        return refuse(SQLITE_FULL);
    if (quota > 0 && ((fv_file *)f)->is_counted &&
        r->pMethods->xFileSize(r, &size) == SQLITE_OK && off + amt > size &&
        full_vfs_used() + (off + amt - size) > quota)
        return refuse(SQLITE_FULL);
    return r->pMethods->xWrite(r, buf, amt, off);
}

static int fv_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    if (atomic_load(&fv_what) & FULL_VFS_TRUNCATE)
        return refuse(SQLITE_IOERR_TRUNCATE);
    return real_of(f)->pMethods->xTruncate(real_of(f), size);
}

static int fv_sync(sqlite3_file *f, int flags)
{
    if (atomic_load(&fv_what) & FULL_VFS_SYNC)
        return refuse(SQLITE_IOERR_FSYNC);
    return real_of(f)->pMethods->xSync(real_of(f), flags);
}

static int fv_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return real_of(f)->pMethods->xFileSize(real_of(f), size);
}

static int fv_lock_file(sqlite3_file *f, int lock)
{
    return real_of(f)->pMethods->xLock(real_of(f), lock);
}

static int fv_unlock(sqlite3_file *f, int lock)
{
    return real_of(f)->pMethods->xUnlock(real_of(f), lock);
}

static int fv_check_lock(sqlite3_file *f, int *out)
{
    return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}

/* The file's last system error: ENOSPC while the shim fails fsyncs or
 * truncates (the unix VFS keeps errno on the file for these). */
static int fv_control(sqlite3_file *f, int op, void *arg)
{
    if (op == SQLITE_FCNTL_LAST_ERRNO &&
        (atomic_load(&fv_what) & (FULL_VFS_SYNC | FULL_VFS_TRUNCATE))) {
        *(int *)arg = ENOSPC;
        return SQLITE_OK;
    }
    return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}

static int fv_sector(sqlite3_file *f)
{
    return real_of(f)->pMethods->xSectorSize(real_of(f));
}

static int fv_device(sqlite3_file *f)
{
    int d = real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
    bool is_log = ((fv_file *)f)->is_log;

    return atomic_load(is_log ? &fv_no_powersafe_log : &fv_no_powersafe_db)
               ? d & ~SQLITE_IOCAP_POWERSAFE_OVERWRITE
               : d;
}

static int fv_shm_map(sqlite3_file *f, int pg, int pgsz, int extend,
                      void volatile **pp)
{
    return real_of(f)->pMethods->xShmMap(real_of(f), pg, pgsz, extend, pp);
}

/* The log's write lock (lock 0) let go: the log's writes since the last
 * barrier came after whatever SQLite last published (a commit's header
 * is written between two barriers), counted as late. */
static int fv_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    if (offset == 0 && (flags & SQLITE_SHM_UNLOCK) &&
        (flags & SQLITE_SHM_EXCLUSIVE))
        atomic_fetch_add(&fv_late_log_writes,
                         atomic_load(&fv_log_writes) -
                             atomic_load(&fv_log_writes_at_barrier));
    return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
}

static void fv_shm_barrier(sqlite3_file *f)
{
    atomic_store(&fv_log_writes_at_barrier, atomic_load(&fv_log_writes));
    real_of(f)->pMethods->xShmBarrier(real_of(f));
}

static int fv_shm_unmap(sqlite3_file *f, int delete_flag)
{
    return real_of(f)->pMethods->xShmUnmap(real_of(f), delete_flag);
}

static int fv_fetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **pp)
{
    return real_of(f)->pMethods->xFetch(real_of(f), off, amt, pp);
}

static int fv_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    return real_of(f)->pMethods->xUnfetch(real_of(f), off, p);
}

static const sqlite3_io_methods fv_io = {
    3,
    fv_close,
    fv_read,
    fv_write,
    fv_truncate,
    fv_sync,
    fv_file_size,
    fv_lock_file,
    fv_unlock,
    fv_check_lock,
    fv_control,
    fv_sector,
    fv_device,
    fv_shm_map,
    fv_shm_lock,
    fv_shm_barrier,
    fv_shm_unmap,
    fv_fetch,
    fv_unfetch,
};

/* ---- the VFS's methods ---- */

static int fv_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file,
                   int flags, int *out_flags)
{
    fv_file *f = (fv_file *)file;
    int rc;

    (void)vfs;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)(f + 1);
    rc = fv_orig->xOpen(fv_orig, name, f->real, flags, out_flags);
    if (f->real->pMethods == NULL)
        return rc;
    f->base.pMethods = &fv_io;
    f->is_counted =
        name != NULL && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL));
    f->is_log = (flags & SQLITE_OPEN_WAL) != 0;
    if (f->is_counted)
        remember(name);
    return rc;
}

static int fv_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    (void)vfs;
    return fv_orig->xDelete(fv_orig, name, sync_dir);
}

static int fv_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    (void)vfs;
    return fv_orig->xAccess(fv_orig, name, flags, out);
}

static int fv_full_pathname(sqlite3_vfs *vfs, const char *name, int n,
                            char *out)
{
    (void)vfs;
    return fv_orig->xFullPathname(fv_orig, name, n, out);
}

static void *fv_dl_open(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return fv_orig->xDlOpen(fv_orig, name);
}

static void fv_dl_error(sqlite3_vfs *vfs, int n, char *msg)
{
    (void)vfs;
    fv_orig->xDlError(fv_orig, n, msg);
}

static void (*fv_dl_sym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
    (void)vfs;
    return fv_orig->xDlSym(fv_orig, h, sym);
}

static void fv_dl_close(sqlite3_vfs *vfs, void *h)
{
    (void)vfs;
    fv_orig->xDlClose(fv_orig, h);
}

static int fv_randomness(sqlite3_vfs *vfs, int n, char *out)
{
    (void)vfs;
    return fv_orig->xRandomness(fv_orig, n, out);
}

static int fv_sleep(sqlite3_vfs *vfs, int us)
{
    (void)vfs;
    return fv_orig->xSleep(fv_orig, us);
}

static int fv_current_time(sqlite3_vfs *vfs, double *out)
{
    (void)vfs;
    return fv_orig->xCurrentTime(fv_orig, out);
}

/* The system error of the last failure: ENOSPC while the shim fails
 * fsyncs or truncates (the unix VFS keeps errno for these). */
static int fv_last_error(sqlite3_vfs *vfs, int n, char *buf)
{
    (void)vfs;
    if (atomic_load(&fv_what) & (FULL_VFS_SYNC | FULL_VFS_TRUNCATE))
        return ENOSPC;
    return fv_orig->xGetLastError(fv_orig, n, buf);
}

static int fv_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
    (void)vfs;
    return fv_orig->xCurrentTimeInt64(fv_orig, out);
}

void full_vfs_install(void)
{
    atomic_store(&fv_what, 0);
    atomic_store(&fv_quota, 0);
    atomic_store(&fv_refused, 0);
    atomic_store(&fv_log_writes, 0);
    atomic_store(&fv_no_powersafe_db, false);
    atomic_store(&fv_no_powersafe_log, false);
    atomic_store(&fv_log_writes_at_barrier, 0);
    atomic_store(&fv_late_log_writes, 0);
    atomic_store(&fv_db_write_delay_us, 0);
    pthread_mutex_lock(&fv_lock);
    fv_n_paths = 0;
    pthread_mutex_unlock(&fv_lock);
    if (fv_orig == NULL) {
        fv_orig = sqlite3_vfs_find(NULL);
        ck_assert_ptr_nonnull(fv_orig);
        ck_assert_int_ge(fv_orig->iVersion, 2);
        memset(&fv_vfs, 0, sizeof fv_vfs);
        fv_vfs.iVersion = 2;
        fv_vfs.szOsFile = (int)sizeof(fv_file) + fv_orig->szOsFile;
        fv_vfs.mxPathname = fv_orig->mxPathname;
        fv_vfs.zName = "umpire-full";
        fv_vfs.xOpen = fv_open;
        fv_vfs.xDelete = fv_delete;
        fv_vfs.xAccess = fv_access;
        fv_vfs.xFullPathname = fv_full_pathname;
        fv_vfs.xDlOpen = fv_dl_open;
        fv_vfs.xDlError = fv_dl_error;
        fv_vfs.xDlSym = fv_dl_sym;
        fv_vfs.xDlClose = fv_dl_close;
        fv_vfs.xRandomness = fv_randomness;
        fv_vfs.xSleep = fv_sleep;
        fv_vfs.xCurrentTime = fv_current_time;
        fv_vfs.xGetLastError = fv_last_error;
        fv_vfs.xCurrentTimeInt64 = fv_current_time64;
    }
    ck_assert_int_eq(sqlite3_vfs_register(&fv_vfs, 1), SQLITE_OK);
}

void full_vfs_uninstall(void)
{
    atomic_store(&fv_what, 0);
    atomic_store(&fv_quota, 0);
    if (fv_orig == NULL)
        return;
    sqlite3_vfs_unregister(&fv_vfs);
    sqlite3_vfs_register(fv_orig, 1);
}

void full_vfs_fail(unsigned what)
{
    atomic_store(&fv_what, what);
}

void full_vfs_slow_db_writes(unsigned us)
{
    atomic_store(&fv_db_write_delay_us, us);
}

void full_vfs_set_quota(long long bytes)
{
    atomic_store(&fv_quota, bytes);
}

unsigned long full_vfs_n_refused(void)
{
    return atomic_load(&fv_refused);
}

unsigned long full_vfs_n_log_writes(void)
{
    return atomic_load(&fv_log_writes);
}

void full_vfs_set_powersafe(bool for_databases, bool for_logs)
{
    atomic_store(&fv_no_powersafe_db, !for_databases);
    atomic_store(&fv_no_powersafe_log, !for_logs);
}

unsigned long full_vfs_n_late_log_writes(void)
{
    return atomic_load(&fv_late_log_writes);
}
