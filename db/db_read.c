/*
 * db_read.c: the pool of read-only connections (db.h): lent one at a
 * time, and given back in autocommit mode: db_read_release rolls back a
 * transaction a borrower left open (or replaces the connection), so no
 * borrower reads from another's old snapshot.  db_read_begin/db_read_end
 * make one snapshot with every return code checked.
 */
#include "db_int.h"
#include "db_conn.h"
#include "db_sql.h"
#include "migrations.h"
#include "unit_cache.h"

#include <pthread.h>

int db_schema_version(db *d)
{
    db_conn *c = db_read_acquire(d);
    int v = db_user_version(c);

    db_read_release(d, c);
    return v;
}

int db_ping(db *d)
{
    db_conn *c = db_read_acquire(d);
    int ok = db_exec(c,
                     c->kind == DB_KIND_PG ? "SELECT 1 FROM umpire_schema"
                                           : "SELECT count(*) FROM "
                                             "sqlite_schema",
                     NULL) == ERR_OK;
    int v = ok ? db_user_version(c) : -1;

    db_read_release(d, c);
    return v;
}

int db_n_migrations(void)
{
    return migrations_count;
}

db_conn *db_read_acquire(db *d)
{
    db_conn *c = NULL;
    int i;

    pthread_mutex_lock(&d->pool_lock);
    for (;;) {
        for (i = 0; i < d->n_readers; i++)
            if (!d->is_lent[i]) {
                d->is_lent[i] = true;
                c = d->readers[i];
                break;
            }
        if (c != NULL)
            break;
        pthread_cond_wait(&d->pool_free, &d->pool_lock);
    }
    pthread_mutex_unlock(&d->pool_lock);
    db_snapshot_forget(c);
    return c;
}

/* The pool slot of conn, or -1; the caller holds pool_lock.  A lent
 * connection keeps its slot until its borrower returns it. */
static int reader_slot(db *d, db_conn *conn)
{
    int i;

    for (i = 0; i < d->n_readers; i++)
        if (d->readers[i] == conn)
            return i;
    return -1;
}

/* Rolls back a transaction left open on conn; whether conn is now in
 * autocommit mode, as a pooled reader must be. */
static bool reader_is_clean(db_conn *conn)
{
    if (!db_in_transaction(conn) && !conn->is_txn)
        return true;
    db_exec(conn, "ROLLBACK", NULL);
    return !db_in_transaction(conn) && !conn->is_txn;
}

void db_read_release(db *d, db_conn *conn)
{
    db_conn *fresh = NULL;
    bool is_clean;
    int slot;

    if (conn == NULL)
        return;
    db_snapshot_forget(conn);
    pthread_mutex_lock(&d->pool_lock);
    slot = reader_slot(d, conn);
    pthread_mutex_unlock(&d->pool_lock);
    if (slot < 0)
        return;
    /* Kept with a transaction open, conn would lend its old snapshot to
     * every later borrower: roll it back, or replace conn. */
    is_clean = reader_is_clean(conn);
    if (!is_clean) {
        db_conn_close(conn);
        if (db_conn_open(d->path, false, &fresh, NULL) != ERR_OK)
            fresh = NULL;
        else
            fresh->tokens = d->tokens; /* as db_open gave the one it replaces */
    }
    pthread_mutex_lock(&d->pool_lock);
    if (!is_clean)
        d->readers[slot] = fresh;
    /* A slot whose replacement failed stays lent, and empty: the pool is
     * one smaller, which is better than a reader stuck in the past. */
    if (is_clean || fresh != NULL) {
        d->is_lent[slot] = false;
        pthread_cond_signal(&d->pool_free);
    }
    pthread_mutex_unlock(&d->pool_lock);
}

/* What opens a snapshot: SQLite's read transaction is one; PostgreSQL's
 * default (read committed) is not. */
static const char *read_begin(const db_conn *c)
{
    return c->kind == DB_KIND_PG
               ? "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
               : "BEGIN";
}

err_code db_read_begin(db *d, db_conn **out, err_info *e)
{
    db_conn *c = db_read_acquire(d);
    err_code rc;

    *out = NULL;
    if ((rc = db_control(c, read_begin(c), e)) != ERR_OK) {
        db_read_release(d, c);
        return rc;
    }
    /* One snapshot until db_read_end: what it reads of a campaign at a
     * version is what every snapshot at that version reads. */
    c->units = d->units;
    *out = c;
    return ERR_OK;
}

err_code db_read_end(db *d, db_conn *c, err_info *e)
{
    err_code rc;

    if (c == NULL)
        return ERR_OK;
    db_snapshot_forget(c);
    if ((rc = db_control(c, "COMMIT", e)) != ERR_OK)
        db_control(c, "ROLLBACK", NULL);
    db_read_release(d, c);
    return rc;
}

err_code db_snapshot_open(db *d, db_conn **out, err_info *e)
{
    db_conn *c = NULL;
    err_code rc;

    *out = NULL;
    if ((rc = db_conn_open(d->path, false, &c, e)) != ERR_OK)
        return rc;
    if ((rc = db_control(c, read_begin(c), e)) != ERR_OK) {
        db_conn_close(c);
        return rc;
    }
    *out = c;
    return ERR_OK;
}

void db_snapshot_abandon(db_conn *c)
{
    if (c != NULL)
        c->is_abandoned = true;
}

void db_snapshot_close(db_conn *c)
{
    if (c == NULL)
        return;
    /* Given up mid-read: no ROLLBACK, which on PostgreSQL would first read
     * the rest of a pending answer; closing ends the transaction. */
    if (!c->is_abandoned)
        db_exec(c, "ROLLBACK", NULL);
    db_conn_close(c);
}
