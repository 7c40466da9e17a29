/*
 * pg_conn.c: PostgreSQL connections, as the service opens them (db_conn.h):
 * the settings every one gets (keepalives; a writer's session limits), the
 * check of the database's collation, and the migrations, numbered as
 * SQLite's (migrations_pg.c), run under an advisory lock so that several
 * instances may start at once.  Statements on them are sql_pg.c's.
 */
#include "db_conn.h"
#include "db_sql.h"
#include "migrations_pg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The advisory lock every instance's migrations take in turn. */
#define PG_MIGRATE_LOCK "7236975"

/* ---- connections ---- */

/* Whether c's database compares text as bytes (the C collation), as the
 * stores' ordering and SQLite's do. */
static bool has_c_collation(db_conn *c)
{
    PGresult *res = PQexec(c->pg, "SELECT datcollate FROM pg_database "
                                  "WHERE datname = current_database()");
    bool ok = false;

    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1) {
        const char *v = PQgetvalue(res, 0, 0);
        ok = strcmp(v, "C") == 0 || strcmp(v, "POSIX") == 0 ||
             strncmp(v, "C.", 2) == 0;
    }
    PQclear(res);
    return ok;
}

/*
 * A writer's session settings.  Its transactions are short (a job each):
 * one left idle inside a transaction for seconds belongs to an instance
 * that died mid-job, and ending it frees the campaign it locked; the
 * server's keepalives find such a client gone within seconds (its own
 * default is hours); and a job that waits for a campaign's lock longer
 * than any job takes gives up, answered 503, rather than hold its writer.
 * Set on each new session (and again after a reconnection).
 */
#define WRITER_SESSION                                                         \
    "SET idle_in_transaction_session_timeout = '10s';"                         \
    "SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2;"            \
    "SET tcp_keepalives_count = 3; SET lock_timeout = '15s'"

bool pg_session_setup(db_conn *c)
{
    PGresult *res = PQexec(c->pg, WRITER_SESSION);
    bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;

    PQclear(res);
    return ok;
}

/* The server's notices (a table that already exists ...) are not the
 * service's to print. */
static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/*
 * What a connection is opened with, before the URL's own settings (which
 * take precedence): TCP keepalives and a bound on unacknowledged sends, so
 * that a database host that died without a word (no reset) is noticed in
 * seconds, not after the kernel's retransmissions (minutes) or keepalive
 * default (hours).
 */
static const char *const conn_keys[] = {"keepalives",
                                        "keepalives_idle",
                                        "keepalives_interval",
                                        "keepalives_count",
                                        "tcp_user_timeout",
                                        "fallback_application_name",
                                        "dbname",
                                        NULL};
#define CONN_DEFAULTS "1", "5", "2", "3", "10000"

PGconn *pg_connect(const char *url, const char *name)
{
    const char *values[] = {CONN_DEFAULTS, name, url, NULL};

    return PQconnectdbParams(conn_keys, values, 1);
}

err_code pg_conn_open(const char *url, bool is_writer, db_conn **out,
                      err_info *e)
{
    db_conn *c = calloc(1, sizeof *c);

    *out = NULL;
    if (c == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    c->kind = DB_KIND_PG;
    c->epoch = pg_epoch_now();
    c->is_writer = is_writer;
    c->pg = pg_connect(url, "umpire");
    if (c->pg == NULL || PQstatus(c->pg) != CONNECTION_OK) {
        err_set(e, ERR_UNAVAILABLE, "db", "cannot connect to PostgreSQL: %s",
                c->pg ? PQerrorMessage(c->pg) : "out of memory");
        pg_conn_close(c);
        return ERR_UNAVAILABLE;
    }
    PQsetNoticeProcessor(c->pg, quiet, NULL);
    if (is_writer && !pg_session_setup(c)) {
        err_set(e, ERR_UNAVAILABLE, "db",
                "cannot set up a PostgreSQL session: %s",
                PQerrorMessage(c->pg));
        pg_conn_close(c);
        return ERR_UNAVAILABLE;
    }
    if (is_writer && !has_c_collation(c)) {
        err_set(e, ERR_DB, "db",
                "the PostgreSQL database must use the C collation (CREATE "
                "DATABASE ... LOCALE 'C' TEMPLATE template0): the service "
                "orders ids, times and names as bytes");
        pg_conn_close(c);
        return ERR_DB;
    }
    *out = c;
    return ERR_OK;
}

void pg_conn_close(db_conn *c)
{
    if (c == NULL)
        return;
    db_conn_forget(c);
    db_units_prefetch_end(c);
    if (c->pg != NULL)
        PQfinish(c->pg);
    free(c);
}

/* ---- migrations ---- */

/* The schema version of c (its table made if missing), or -1. */
int pg_schema_version(db_conn *c)
{
    PGresult *res = PQexec(c->pg, "SELECT version FROM umpire_schema");
    int v = -1;

    if (PQresultStatus(res) == PGRES_TUPLES_OK)
        v = PQntuples(res) == 1 ? atoi(PQgetvalue(res, 0, 0)) : 0;
    else if (strcmp(PQresultErrorField(res, PG_DIAG_SQLSTATE) ?: "", "42P01") ==
             0)
        v = 0; /* no table yet: an empty database */
    PQclear(res);
    return v;
}

/* One migration, v to v + 1, in a transaction under the migrations' lock;
 * *done when there was none left to run. */
static err_code migrate_one(db_conn *c, bool *done, err_info *e)
{
    char sql[96];
    int v;

    *done = false;
    /* no lock_timeout (a writer's session has one): a migration waits
     * for another instance's, however long it takes */
    if (pg_exec(c, "BEGIN", e) != ERR_OK ||
        pg_exec(c, "SET LOCAL lock_timeout = 0", e) != ERR_OK ||
        pg_exec(c, "SELECT pg_advisory_xact_lock(" PG_MIGRATE_LOCK ")", e) !=
            ERR_OK ||
        pg_exec(c,
                "CREATE TABLE IF NOT EXISTS umpire_schema ("
                "version BIGINT NOT NULL)",
                e) != ERR_OK)
        goto fail;
    if ((v = pg_schema_version(c)) < 0) {
        err_set(e, ERR_DB, NULL, "cannot read the schema version");
        goto fail;
    }
    if (v > migrations_pg_count) {
        err_set(e, ERR_DB, "db",
                "the database has schema version %d, newer than this "
                "build's %d",
                v, migrations_pg_count);
        goto fail;
    }
    if (v == migrations_pg_count) {
        *done = true;
        return pg_exec(c, "COMMIT", e);
    }
    snprintf(sql, sizeof sql,
             v == 0 ? "INSERT INTO umpire_schema (version) VALUES (%d)"
                    : "UPDATE umpire_schema SET version = %d",
             v + 1);
    if (pg_exec(c, migrations_pg_sql[v], e) != ERR_OK ||
        pg_exec(c, sql, e) != ERR_OK)
        goto fail;
    return pg_exec(c, "COMMIT", e);
fail:
    pg_exec(c, "ROLLBACK", NULL);
    return e && e->code != ERR_OK ? e->code : ERR_DB;
}

err_code pg_migrate(db_conn *c, int *version, err_info *e)
{
    bool done = false;
    err_code rc;

    while (!done)
        if ((rc = migrate_one(c, &done, e)) != ERR_OK)
            return rc;
    *version = pg_schema_version(c);
    return ERR_OK;
}
