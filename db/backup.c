/*
 * backup.c: an online, consistent copy of the database (db_backup in db.h).
 *
 * VACUUM INTO reads the source in one read transaction, so the copy is the
 * snapshot of one moment and writes committed meanwhile neither enter it
 * nor restart it (SQLite's online backup API, which `sqlite3 .backup` uses,
 * starts over after every write by another connection and may never finish
 * under steady load).  It runs on a connection of its own, as the
 * server's readers do, and needs no lock the writer waits for.
 *
 * Invariant: dest appears only complete, checked and on disk: the copy is
 * made in dest.tmp (created exclusively first, so two backups to one dest
 * cannot mix), checked with PRAGMA quick_check, fsynced, linked as dest
 * (which never replaces a file), and the folder fsynced.
 */
#include "db_conn.h"
#include "db_sql.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "deadline.h"
#include "migrations.h"

/* The first column of the first row of sql on c as an integer, or -1. */
static long long query_int(sqlite3 *c, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long v = -1;

    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Opens path as it is (never creating it): flags SQLite's. */
static err_code open_db(const char *path, int flags, sqlite3 **out, err_info *e)
{
    if (sqlite3_open_v2(path, out, flags | SQLITE_OPEN_NOMUTEX, NULL) ==
        SQLITE_OK) {
        sqlite3_busy_timeout(*out, DB_BUSY_MS);
        sqlite3_extended_result_codes(*out, 1);
        return ERR_OK;
    }
    err_set(e, ERR_DB, "db", "cannot open the database %s: %s", path,
            *out ? sqlite3_errmsg(*out) : "out of memory");
    sqlite3_close(*out);
    *out = NULL;
    return ERR_DB;
}

/* The source: an umpire database this build can read. */
static err_code open_source(const char *path, sqlite3 **out, err_info *e)
{
    struct stat sb;
    long long v;

    *out = NULL;
    if (stat(path, &sb) != 0)
        return err_set(e, ERR_NOT_FOUND, "db", "no database at %s: %s", path,
                       strerror(errno));
    /* Read-write (never created): a read-only connection could not
     * recover a log left by a crash when the server is not running. */
    if (open_db(path, SQLITE_OPEN_READWRITE, out, e) != ERR_OK)
        return ERR_DB;
    v = query_int(*out, "PRAGMA user_version");
    if (v < 1 || v > migrations_count) {
        sqlite3_close(*out);
        *out = NULL;
        return err_set(e, ERR_INVALID, "db",
                       v < 0 ? "%s cannot be read as a database"
                       : v == 0
                           ? "%s is not an umpire database (no schema version)"
                           : "%s has a schema newer than this build's",
                       path);
    }
    return ERR_OK;
}

/* fsync of the file or folder at path. */
static err_code sync_path(const char *path, bool is_dir, err_info *e)
{
    int fd = open(path, (is_dir ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
    int rc;

    if (fd < 0)
        return err_set(e, ERR_DB, NULL, "cannot open %s: %s", path,
                       strerror(errno));
    rc = fsync(fd);
    if (rc != 0)
        err_set(e, errno == ENOSPC || errno == EDQUOT ? ERR_FULL : ERR_DB, NULL,
                "cannot sync %s: %s", path, strerror(errno));
    close(fd);
    return rc == 0 ? ERR_OK : e && e->code ? e->code : ERR_DB;
}

/* The folder holding path, into dir (n bytes). */
static void folder_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* Claims tmp for this backup: created empty and exclusively. */
static err_code claim(const char *dest, const char *tmp, err_info *e)
{
    struct stat sb;
    int fd;

    if (lstat(dest, &sb) == 0)
        return err_set(e, ERR_CONFLICT, "dest",
                       "%s exists: a backup never overwrites a file", dest);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST)
        return err_set(e, ERR_CONFLICT, "dest",
                       "%s exists: another backup to %s is running, or one "
                       "was interrupted (then remove it)",
                       tmp, dest);
    if (fd < 0)
        return err_set(e, errno == ENOSPC ? ERR_FULL : ERR_INVALID, "dest",
                       "cannot create %s: %s", tmp, strerror(errno));
    close(fd);
    return ERR_OK;
}

/* VACUUM INTO tmp from src, then the copy checked and counted. */
static err_code copy(sqlite3 *src, const char *tmp, db_backup_info *info,
                     err_info *e)
{
    sqlite3_stmt *st = NULL;
    sqlite3 *c = NULL;
    char ok[16] = "";
    err_code rc = ERR_OK;

    db_conn conn = {.kind = DB_KIND_SQLITE, .lite = src};

    if (sqlite3_prepare_v2(src, "VACUUM INTO ?", -1, &st, NULL) != SQLITE_OK)
        return db_fail(&conn, e, "backup");
    sqlite3_bind_text(st, 1, tmp, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail(&conn, e, "backup");
    sqlite3_finalize(st);
    if (rc != ERR_OK || (rc = open_db(tmp, SQLITE_OPEN_READONLY, &c, e)))
        return rc;
    if (sqlite3_prepare_v2(c, "PRAGMA quick_check", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(ok, sizeof ok, "%s",
                 (const char *)sqlite3_column_text(st, 0) ?: "");
    sqlite3_finalize(st);
    if (strcmp(ok, "ok") != 0)
        rc = err_set(e, ERR_DB, NULL, "the copy %s fails its check: %s", tmp,
                     ok[0] ? ok : sqlite3_errmsg(c));
    info->schema_version = (int)query_int(c, "PRAGMA user_version");
    info->n_campaigns = query_int(c, "SELECT count(*) FROM campaigns");
    info->n_combats = query_int(c, "SELECT count(*) FROM combats");
    sqlite3_close(c);
    return rc;
}

/* tmp becomes dest, unless dest appeared meanwhile: a hard link never
 * replaces a file (rename would); where the file system has none, rename
 * after one more look. */
static err_code publish(const char *tmp, const char *dest, err_info *e)
{
    struct stat sb;

    if (link(tmp, dest) == 0) {
        unlink(tmp);
        return ERR_OK;
    }
    if (errno == EEXIST || lstat(dest, &sb) == 0)
        return err_set(e, ERR_CONFLICT, "dest",
                       "%s exists: a backup never overwrites a file", dest);
    if (rename(tmp, dest) != 0)
        return err_set(e, ERR_DB, "dest", "cannot rename %s to %s: %s", tmp,
                       dest, strerror(errno));
    return ERR_OK;
}

err_code db_backup(const char *path, const char *dest, db_backup_info *info,
                   err_info *e)
{
    char tmp[PATH_MAX], dir[PATH_MAX];
    db_backup_info got;
    sqlite3 *src = NULL;
    struct stat sb;
    double t0 = monotonic_s();
    err_code rc;

    memset(&got, 0, sizeof got);
    if (info)
        memset(info, 0, sizeof *info);
    if (db_path_is_pg(path))
        return err_set(e, ERR_INVALID, "db",
                       "a PostgreSQL store is backed up with pg_dump or "
                       "pg_basebackup (deploy/postgresql.md), not by umpire");
    if (snprintf(tmp, sizeof tmp, "%s.tmp", dest) >= (int)sizeof tmp)
        return err_set(e, ERR_INVALID, "dest", "the path %s is too long", dest);
    folder_of(dest, dir, sizeof dir);
    if ((rc = open_source(path, &src, e)) || (rc = claim(dest, tmp, e))) {
        sqlite3_close(src);
        return rc;
    }
    if ((rc = copy(src, tmp, &got, e)) || (rc = sync_path(tmp, false, e)))
        goto out;
    if ((rc = publish(tmp, dest, e)))
        goto out;
    if ((rc = sync_path(dir, true, e)))
        goto out;
    got.size = stat(dest, &sb) == 0 ? (long long)sb.st_size : -1;
    got.seconds = monotonic_s() - t0;
    if (info)
        *info = got;
out:
    if (rc != ERR_OK)
        unlink(tmp);
    sqlite3_close(src);
    return rc;
}
