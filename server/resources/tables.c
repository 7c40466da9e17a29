/*
 * tables.c: combat results tables (SCS) as data: the built-in ones,
 * and each campaign's own, put (created or replaced) whole after every
 * column, row and cell is checked (scs_json_table_parse), read, listed and
 * removed.  A combat's report keeps the table it was resolved on, so
 * replacing or removing a table never changes a combat already fought.
 */
#include "tables.h"
#include "jsonb.h"
#include "http.h"
#include "jsonv.h"
#include "paging.h"
#include "scs_json.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stored table as served (new reference), or NULL. */
static json_t *stored_json(const db_table *t)
{
    json_t *doc = json_loads(t->doc, 0, NULL);

    if (doc == NULL)
        return NULL;
    json_object_set_new(doc, "builtin", json_false());
    json_object_set_new(doc, "example", json_false());
    json_object_set_new(doc, "created_at", json_string(t->created_at));
    json_object_set_new(doc, "updated_at", json_string(t->updated_at));
    return doc;
}

void tables_builtin_list(http_request *r)
{
    http_reply_json(r, 200,
                    json_pack("{s:o}", "items", scs_json_builtin_tables()));
}

void tables_builtin_get(http_request *r)
{
    json_t *doc = scs_json_builtin_table(r->params[0]);
    err_info e;

    if (doc == NULL) {
        err_clear(&e);
        err_set(&e, ERR_NOT_FOUND, NULL, "there is no built-in table \"%s\"",
                r->params[0]);
        http_reply_problem(r, &e);
        return;
    }
    http_reply_json(r, 200, doc);
}

void tables_list(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    db_table *ts = NULL;
    size_t n = 0, i;
    paging p;
    json_t *items;
    err_info e;
    err_code rc;

    err_clear(&e);
    /* By name: no ?order= (paging.h); the cursor is a name. */
    if (!paging_read(r, false, &p, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    c = db_read_acquire(d);
    {
        db_page pg = {p.cursor, false, p.limit + 1};
        rc = db_tables_page(c, r->params[0], &pg, &ts, &n, &e);
    }
    db_read_release(d, c);
    if (rc != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    /* One row more than the page tells whether another page follows. */
    items = json_array();
    for (i = 0; i < n && i < (size_t)p.limit; i++)
        json_array_append_new(items, stored_json(&ts[i]));
    paging_reply(r, &p, NULL, items,
                 n > (size_t)p.limit ? ts[p.limit - 1].name : NULL);
    db_tables_free(ts, n);
}

void tables_get(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    db_table t;
    json_t *doc;
    err_info e;
    err_code rc;

    err_clear(&e);
    memset(&t, 0, sizeof t);
    rc = db_table_get(c, r->params[0], r->params[1], &t, NULL);
    db_read_release(d, c);
    if (rc == ERR_NOT_FOUND &&
        (doc = scs_json_builtin_table(r->params[1])) != NULL) {
        http_reply_json(r, 200, doc);
        return;
    }
    if (rc != ERR_OK) {
        err_set(&e, rc, NULL,
                rc == ERR_NOT_FOUND ? "the campaign has no table \"%s\""
                                    : "cannot read the table \"%s\"",
                r->params[1]);
        http_reply_problem(r, &e);
        return;
    }
    http_reply_json(r, 200, stored_json(&t));
    db_table_cleanup(&t);
}

/* A table being put: the row, whether it is new, and the row as stored. */
typedef struct table_put {
    db_table t;
    bool is_new;
    db_table got;
} table_put;

static void table_put_free(void *p)
{
    table_put *tp = p;

    if (tp) {
        free(tp->t.doc);
        db_table_cleanup(&tp->got);
    }
    free(tp);
}

/* Puts the table and reads it back in the same transaction. */
static err_code table_put_job(db_conn *c, void *arg, err_info *e)
{
    table_put *tp = arg;
    err_code rc;

    if ((rc = db_table_put(c, &tp->t, &tp->is_new, e)))
        return rc;
    return db_table_get(c, tp->t.campaign_id, tp->t.name, &tp->got, e);
}

static void table_put_finish(http_request *r, err_code rc, const err_info *e)
{
    table_put *tp = r->state;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    if (tp->is_new)
        snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/tables/%s",
                 tp->t.campaign_id, tp->t.name);
    http_reply_json(r, tp->is_new ? 201 : 200, stored_json(&tp->got));
}

void tables_put(http_request *r)
{
    json_t *body = http_body_object(r), *builtin;
    const char *name = r->params[1], *given;
    scs_table *t;
    table_put *tp;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    t = malloc(sizeof *t);
    tp = calloc(1, sizeof *tp);
    r->state = tp;
    r->state_free = table_put_free;
    if (t == NULL || tp == NULL) {
        err_set(&e, ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    if (!scs_json_name_ok(name, "table_name", &e) ||
        scs_json_table_parse(body, "", t, &e))
        goto fail;
    given = json_string_value(json_object_get(body, "name"));
    if (given && strcmp(given, name) != 0) {
        err_set(&e, ERR_INVALID, "name",
                "the body names the table \"%s\", the path \"%s\"", given,
                name);
        goto fail;
    }
    if ((builtin = scs_json_builtin_table(name)) != NULL) {
        json_decref(builtin);
        err_set(&e, ERR_CONFLICT, "table_name",
                "\"%s\" is a built-in table: give the campaign's own table "
                "another name",
                name);
        goto fail;
    }
    text_copy(tp->t.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(tp->t.name, DB_NAME_MAX, name);
    db_now(tp->t.updated_at);
    text_copy(tp->t.created_at, DB_TIME_MAX, tp->t.updated_at);
    tp->t.doc = jsonb_text(scs_json_table_doc(body, name));
    if (tp->t.doc == NULL) {
        err_set(&e, ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    free(t);
    json_decref(body);
    http_defer_write(r, table_put_job, table_put_finish);
    return;
fail:
    free(t);
    json_decref(body);
    http_reply_problem(r, &e);
}

static err_code table_delete_job(db_conn *c, void *arg, err_info *e)
{
    table_put *tp = arg;
    err_code rc = db_table_delete(c, tp->t.campaign_id, tp->t.name, NULL);

    if (rc == ERR_NOT_FOUND)
        return err_set(e, rc, NULL, "the campaign has no table \"%s\"",
                       tp->t.name);
    return rc == ERR_OK ? ERR_OK : err_set(e, rc, NULL, "cannot remove it");
}

static void table_delete_finish(http_request *r, err_code rc, const err_info *e)
{
    if (rc != ERR_OK)
        http_reply_err(r, rc, e);
    else
        http_reply_no_content(r);
}

void tables_delete(http_request *r)
{
    table_put *tp = calloc(1, sizeof *tp);
    json_t *builtin;
    err_info e;

    err_clear(&e);
    r->state = tp;
    r->state_free = table_put_free;
    if (tp == NULL) {
        err_set(&e, ERR_NOMEM, NULL, "out of memory");
        http_reply_problem(r, &e);
        return;
    }
    if (!scs_json_name_ok(r->params[1], "table_name", &e)) {
        http_reply_problem(r, &e);
        return;
    }
    if ((builtin = scs_json_builtin_table(r->params[1])) != NULL) {
        json_decref(builtin);
        err_set(&e, ERR_CONFLICT, "table_name",
                "\"%s\" is a built-in table: it cannot be removed",
                r->params[1]);
        http_reply_problem(r, &e);
        return;
    }
    text_copy(tp->t.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(tp->t.name, DB_NAME_MAX, r->params[1]);
    http_defer_write(r, table_delete_job, table_delete_finish);
}
