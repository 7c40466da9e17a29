/*
 * tables.c: SQL for a campaign's combat results tables (SCS), declared in
 * db.h.  A table is a named document, opaque here: the server checks it
 * (scs_table) before it is stored and again when it is read for a combat.
 *
 * Invariants: a campaign holds at most DB_TABLES_MAX tables; a name is
 * unique in its campaign (the primary key); replacing a table keeps its
 * created_at.  Prepared statements only; every statement is released
 * (db_done) at its function's single exit.
 */
#include "db_sql.h"

#include <stdlib.h>
#include <string.h>

/* How many tables the campaign has, and whether one is named name. */
static err_code count_tables(db_conn *c, const char *campaign_id,
                             const char *name, int *n, bool *has_name,
                             err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    *n = 0;
    *has_name = false;
    if ((rc = db_prepare(c,
                         "SELECT count(*), coalesce(sum(CASE WHEN name = ?2 "
                         "THEN 1 ELSE 0 END), 0) "
                         "FROM crts WHERE campaign_id = ?1",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, name);
    if (db_step(st) == DB_ROW) {
        *n = db_column_int(st, 0);
        *has_name = db_column_int(st, 1) != 0;
    } else {
        rc = db_fail(c, e, "count tables");
    }
out:
    db_done(st);
    return rc;
}

/* The count and the write are two statements: callers write through the
 * single writer, inside its transaction, so nothing comes between them. */
err_code db_table_put(db_conn *c, const db_table *t, bool *is_new, err_info *e)
{
    db_stmt *st = NULL;
    bool has_name;
    err_code rc;
    int n;

    *is_new = false;
    if ((rc = count_tables(c, t->campaign_id, t->name, &n, &has_name, e)))
        goto out;
    if (!has_name && n >= DB_TABLES_MAX) {
        rc = err_set(e, ERR_LIMIT, NULL,
                     "the campaign already has %d tables, the most it may "
                     "hold",
                     DB_TABLES_MAX);
        goto out;
    }
    if ((rc = db_prepare(c,
                         has_name ? "UPDATE crts SET doc = ?3, updated_at = ?5 "
                                    "WHERE campaign_id = ?1 AND name = ?2"
                                  : "INSERT INTO crts (campaign_id, name, doc, "
                                    "created_at, updated_at) "
                                    "VALUES (?1,?2,?3,?4,?5)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, t->campaign_id);
    db_bind_text(st, 2, t->name);
    db_bind_text(st, 3, t->doc);
    if (!has_name)
        db_bind_text(st, 4, t->created_at);
    db_bind_text(st, 5, t->updated_at);
    if ((rc = db_step_done(
             c, st, e, has_name ? "replace table" : "insert table")) == ERR_OK)
        *is_new = !has_name;
out:
    db_done(st);
    return rc;
}

#define TABLE_COLUMNS "campaign_id, name, doc, created_at, updated_at "

static void read_table(db_stmt *st, db_table *t)
{
    memset(t, 0, sizeof *t);
    db_column_copy(st, 0, t->campaign_id, sizeof t->campaign_id);
    db_column_copy(st, 1, t->name, sizeof t->name);
    t->doc = db_column_dup(st, 2);
    db_column_copy(st, 3, t->created_at, sizeof t->created_at);
    db_column_copy(st, 4, t->updated_at, sizeof t->updated_at);
}

err_code db_table_get(db_conn *c, const char *campaign_id, const char *name,
                      db_table *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT " TABLE_COLUMNS "FROM crts "
                         "WHERE campaign_id = ? AND name = ?",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, name);
    step = db_step(st);
    if (step == DB_ROW) {
        read_table(st, out);
        if (out->doc == NULL) /* doc is NOT NULL: the copy failed */
            rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no table \"%s\"",
                     name);
    } else {
        rc = db_fail(c, e, "read table");
    }
out:
    db_done(st);
    return rc;
}

void db_table_cleanup(db_table *t)
{
    if (t == NULL)
        return;
    free(t->doc);
    memset(t, 0, sizeof *t);
}

static void read_table_row(db_stmt *st, void *elem)
{
    read_table(st, elem);
}

static void release_tables(void *v, size_t n)
{
    db_tables_free(v, n);
}

err_code db_tables_list(db_conn *c, const char *campaign_id, db_table **out,
                        size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    void *rows;
    err_code rc;
    size_t i;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT " TABLE_COLUMNS "FROM crts "
                         "WHERE campaign_id = ? ORDER BY name",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    rc = db_read_rows(c, st, sizeof **out, read_table_row, release_tables,
                      &rows, n, "list tables", e);
    *out = rows;
    for (i = 0; rc == ERR_OK && i < *n; i++)
        if ((*out)[i].doc == NULL) /* doc is NOT NULL: the copy failed */
            rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (rc != ERR_OK) {
        db_tables_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

err_code db_tables_page(db_conn *c, const char *campaign_id, const db_page *pg,
                        db_table **out, size_t *n, err_info *e)
{
    /* [after][newest first, i.e. by name descending]: one statement per
     * shape (PERF.md), each a range of the primary key (campaign_id,
     * name).  The key is the name itself: a table removed since the last
     * page still marks where the next starts. */
    static const char *const sql[2][2] = {
        {"SELECT " TABLE_COLUMNS "FROM crts WHERE campaign_id = ?1 "
         "ORDER BY name LIMIT ?3",
         "SELECT " TABLE_COLUMNS "FROM crts WHERE campaign_id = ?1 "
         "ORDER BY name DESC LIMIT ?3"},
        {"SELECT " TABLE_COLUMNS "FROM crts WHERE campaign_id = ?1 "
         "AND name > ?2 ORDER BY name LIMIT ?3",
         "SELECT " TABLE_COLUMNS "FROM crts WHERE campaign_id = ?1 "
         "AND name < ?2 ORDER BY name DESC LIMIT ?3"}};
    db_stmt *st = NULL;
    void *rows;
    err_code rc;
    size_t i;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c, sql[pg->after != NULL][pg->is_newest_first], &st,
                         e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    if (pg->after)
        db_bind_text(st, 2, pg->after);
    db_bind_int(st, 3, pg->limit);
    rc = db_read_rows(c, st, sizeof **out, read_table_row, release_tables,
                      &rows, n, "list tables", e);
    *out = rows;
    for (i = 0; rc == ERR_OK && i < *n; i++)
        if ((*out)[i].doc == NULL) /* doc is NOT NULL: the copy failed */
            rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (rc != ERR_OK) {
        db_tables_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

err_code db_table_delete(db_conn *c, const char *campaign_id, const char *name,
                         err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(
             c, "DELETE FROM crts WHERE campaign_id = ? AND name = ?", &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, name);
    if ((rc = db_step_done(c, st, e, "delete table")) == ERR_OK &&
        db_changes(c) != 1)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no table \"%s\"",
                     name);
out:
    db_done(st);
    return rc;
}

void db_tables_free(db_table *ts, size_t n)
{
    size_t i;

    for (i = 0; ts && i < n; i++)
        db_table_cleanup(&ts[i]);
    free(ts);
}
