/*
 * wal.c: the write-ahead log's upkeep on the writer's connection (db_sql.h):
 * a checkpoint that moves the log into the database and truncates it, and
 * a one-page write that says whether the disk takes writes again.  db.c
 * decides when: after a batch that failed for a full disk, whenever the
 * writer is idle, and at close.
 */
#include "db_conn.h"
#include "db_sql.h"

#include <stdio.h>

err_code db_wal_checkpoint(db_conn *c, int timeout_ms, err_info *e)
{
    sqlite3 *w = c->lite;
    int rc;

    sqlite3_busy_timeout(w, timeout_ms);
    rc = sqlite3_wal_checkpoint_v2(w, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL,
                                   NULL);
    sqlite3_busy_timeout(w, DB_BUSY_MS);
    if (rc == SQLITE_OK)
        return ERR_OK;
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
        return err_set(e, ERR_CONFLICT, NULL,
                       "the checkpoint waits for readers of the database");
    return db_fail(c, e, "checkpoint");
}

/* Runs sql on w; SQLite's code. */
static int run(sqlite3 *w, const char *sql)
{
    return sqlite3_exec(w, sql, NULL, NULL, NULL);
}

err_code db_wal_probe(db_conn *c, err_info *e)
{
    sqlite3 *w = c->lite;
    sqlite3_stmt *st = NULL;
    char sql[64];
    int version = -1;
    err_code rc = ERR_OK;

    if (sqlite3_prepare_v2(w, "PRAGMA user_version", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (version < 0)
        return db_fail(c, e, "read the schema version");
    /* The same version written again: page 1 changes on disk, not in
     * meaning. */
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", version);
    if (run(w, "BEGIN IMMEDIATE") != SQLITE_OK || run(w, sql) != SQLITE_OK ||
        run(w, "COMMIT") != SQLITE_OK) {
        rc = db_fail(c, e, "write");
        if (!sqlite3_get_autocommit(w))
            run(w, "ROLLBACK");
    }
    return rc;
}
