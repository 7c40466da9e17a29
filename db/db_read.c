/*
 * db_read.c: the pool of read-only connections (db.h): lent one at a
 * time, and given back in autocommit mode: db_read_release rolls back a
 * transaction a borrower left open (or replaces the connection), so no
 * borrower reads from another's old snapshot.  db_read_begin/db_read_end
 * make one snapshot with every return code checked.
 */
#include "db_int.h"
#include "db_sql.h"
#include "migrations.h"

#include <pthread.h>

int db_schema_version(db *d)
{
    sqlite3 *c = db_read_acquire(d);
    int v = db_user_version(c);

    db_read_release(d, c);
    return v;
}

int db_ping(db *d)
{
    sqlite3 *c = db_read_acquire(d);
    int ok = sqlite3_exec(c, "SELECT count(*) FROM sqlite_schema", NULL, NULL,
                          NULL) == SQLITE_OK;
    int v = ok ? db_user_version(c) : -1;

    db_read_release(d, c);
    return v;
}

int db_n_migrations(void)
{
    return migrations_count;
}

sqlite3 *db_read_acquire(db *d)
{
    sqlite3 *c = NULL;
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
    return c;
}

/* The pool slot of conn, or -1; the caller holds pool_lock.  A lent
 * connection keeps its slot until its borrower returns it. */
static int reader_slot(db *d, sqlite3 *conn)
{
    int i;

    for (i = 0; i < d->n_readers; i++)
        if (d->readers[i] == conn)
            return i;
    return -1;
}

/* Rolls back a transaction left open on conn; whether conn is now in
 * autocommit mode, as a pooled reader must be. */
static bool reader_is_clean(sqlite3 *conn)
{
    if (sqlite3_get_autocommit(conn))
        return true;
    db_exec(conn, "ROLLBACK", NULL);
    return sqlite3_get_autocommit(conn) != 0;
}

void db_read_release(db *d, sqlite3 *conn)
{
    sqlite3 *fresh = NULL;
    bool is_clean;
    int slot;

    if (conn == NULL)
        return;
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

err_code db_read_begin(db *d, db_conn **out, err_info *e)
{
    sqlite3 *c = db_read_acquire(d);
    err_code rc;

    *out = NULL;
    if ((rc = db_control(c, "BEGIN", e)) != ERR_OK) {
        db_read_release(d, c);
        return rc;
    }
    *out = c;
    return ERR_OK;
}

err_code db_read_end(db *d, db_conn *c, err_info *e)
{
    err_code rc;

    if (c == NULL)
        return ERR_OK;
    if ((rc = db_control(c, "COMMIT", e)) != ERR_OK)
        db_control(c, "ROLLBACK", NULL);
    db_read_release(d, c);
    return rc;
}

err_code db_snapshot_open(db *d, db_conn **out, err_info *e)
{
    sqlite3 *c = NULL;
    err_code rc;

    *out = NULL;
    if ((rc = db_conn_open(d->path, false, &c, e)) != ERR_OK)
        return rc;
    if ((rc = db_control(c, "BEGIN", e)) != ERR_OK) {
        db_conn_close(c);
        return rc;
    }
    *out = c;
    return ERR_OK;
}

void db_snapshot_close(db_conn *c)
{
    if (c == NULL)
        return;
    db_exec(c, "ROLLBACK", NULL);
    db_conn_close(c);
}
