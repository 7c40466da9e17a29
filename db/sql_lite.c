/*
 * sql_lite.c: SQLite connections, as the service opens them (db_conn.h):
 * the writer's in WAL mode with synchronous=FULL and a bounded log, the
 * readers' read-only; a schema newer than the build's refused before
 * anything changes in the file.  Statements on them are db_sql.c's.
 */
#include "db_conn.h"
#include "db_sql.h"
#include "migrations.h"

#include <stdio.h>

#define DB_STR_(x) #x
#define DB_STR(x)  DB_STR_(x)

/* PRAGMA user_version of an SQLite connection, or -1. */
int lite_user_version(sqlite3 *conn)
{
    sqlite3_stmt *st = NULL;
    int v = -1;

    if (sqlite3_prepare_v2(conn, "PRAGMA user_version", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Runs sql on an SQLite connection being set up. */
static err_code lite_exec(sqlite3 *conn, const char *sql, err_info *e)
{
    char *msg = NULL;

    if (sqlite3_exec(conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
        err_set(e, ERR_DB, NULL, "%s", msg ? msg : sqlite3_errmsg(conn));
        sqlite3_free(msg);
        return ERR_DB;
    }
    return ERR_OK;
}

int lite_pages_of(sqlite3 *conn, long bytes)
{
    sqlite3_stmt *st = NULL;
    long page = 0;

    if (sqlite3_prepare_v2(conn, "PRAGMA page_size", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        page = (long)sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (page <= 0)
        page = DB_PAGE_SIZE;
    return bytes / page > 0 ? (int)(bytes / page) : 1;
}

/* Switches conn to WAL and says whether SQLite really did. */
static bool is_wal(sqlite3 *conn)
{
    sqlite3_stmt *st = NULL;
    bool ok = false;

    if (sqlite3_prepare_v2(conn, "PRAGMA journal_mode = WAL", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        ok = sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal") ==
             0;
    sqlite3_finalize(st);
    return ok;
}

/* The writer's wal_autocheckpoint: DB_AUTOCHECKPOINT_BYTES of its own
 * pages. */
static bool autocheckpoint(sqlite3 *conn, err_info *e)
{
    if (sqlite3_wal_autocheckpoint(
            conn, lite_pages_of(conn, DB_AUTOCHECKPOINT_BYTES)) == SQLITE_OK)
        return true;
    err_set(e, ERR_DB, NULL, "%s", sqlite3_errmsg(conn));
    return false;
}

/* An SQLite connection to the file at path, set up as every one is. */
err_code lite_open(const char *path, bool is_writer, sqlite3 **out, err_info *e)
{
    int flags = is_writer ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                          : SQLITE_OPEN_READONLY;
    sqlite3 *conn = NULL;

    flags |= SQLITE_OPEN_NOMUTEX;
    /* The writer's log a commit at a time (wal_vfs.c). */
    if (sqlite3_open_v2(path, &conn, flags,
                        is_writer ? lite_writer_vfs() : NULL) != SQLITE_OK) {
        err_set(e, ERR_DB, "db", "cannot open the database %s: %s", path,
                conn ? sqlite3_errmsg(conn) : "out of memory");
        sqlite3_close(conn);
        return ERR_DB;
    }
    sqlite3_busy_timeout(conn, DB_BUSY_MS);
    sqlite3_extended_result_codes(conn, 1);
    /* Refuse a newer schema before changing anything in the file. */
    if (is_writer && lite_user_version(conn) > migrations_count) {
        err_set(e, ERR_DB, "db",
                "the database has schema version %d, newer than this "
                "build's %d",
                lite_user_version(conn), migrations_count);
        sqlite3_close(conn);
        return ERR_DB;
    }
    /* Before anything is written: a database this creates takes the
     * page size (a no-op on one that exists). */
    if (is_writer && lite_exec(conn, "PRAGMA page_size = " DB_STR(DB_PAGE_SIZE),
                               e) != ERR_OK) {
        sqlite3_close(conn);
        return ERR_DB;
    }
    if (is_writer && !is_wal(conn)) {
        err_set(e, ERR_DB, "db",
                "the database %s cannot run in WAL mode, which durability "
                "needs",
                path);
        sqlite3_close(conn);
        return ERR_DB;
    }
    if (is_writer &&
        (lite_exec(conn, "PRAGMA synchronous = FULL", e) != ERR_OK ||
         lite_exec(conn, "PRAGMA cache_size = -65536", e) != ERR_OK ||
         !autocheckpoint(conn, e) ||
         lite_exec(conn, "PRAGMA journal_size_limit = " DB_STR(DB_WAL_LIMIT),
                   e) != ERR_OK ||
         lite_exec(conn, "PRAGMA foreign_keys = ON", e) != ERR_OK)) {
        sqlite3_close(conn);
        return ERR_DB;
    }
    *out = conn;
    return ERR_OK;
}
