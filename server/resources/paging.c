/*
 * paging.c: the query and the answer of a paged list; see paging.h.
 */
#include "paging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ?limit=: a whole number in 1..PAGING_LIMIT_MAX. */
static bool read_limit(const char *limit, int *out, err_info *e)
{
    const char *digits = limit + (*limit == '-');
    long v;

    if (*digits == '\0' || strspn(digits, "0123456789") != strlen(digits)) {
        err_set(e, ERR_INVALID, "limit", "limit is a whole number, not \"%s\"",
                limit);
        return false;
    }
    v = strlen(digits) > 9 ? -1 : strtol(limit, NULL, 10);
    if (v < 1 || v > PAGING_LIMIT_MAX) {
        err_set(e, ERR_RANGE, "limit", "limit is 1 to %d, not \"%s\"",
                PAGING_LIMIT_MAX, limit);
        return false;
    }
    *out = (int)v;
    return true;
}

bool paging_read(http_request *r, bool has_order, paging *p, err_info *e)
{
    const char *order = has_order ? http_query(r, "order") : NULL;
    const char *limit = http_query(r, "limit");
    const char *cursor = http_query(r, "cursor");

    p->has_order = has_order;
    p->is_newest_first = false;
    p->limit = PAGING_LIMIT_DEFAULT;
    p->cursor = NULL;
    if (order && strcmp(order, "oldest") != 0 && strcmp(order, "newest") != 0) {
        err_set(e, ERR_INVALID, "order",
                "order is oldest or newest, not \"%s\"", order);
        return false;
    }
    p->is_newest_first = order && strcmp(order, "newest") == 0;
    if (limit && !read_limit(limit, &p->limit, e))
        return false;
    if (cursor && (cursor[0] == '\0' || strlen(cursor) > PAGING_CURSOR_MAX)) {
        paging_cursor_error(e);
        return false;
    }
    p->cursor = cursor;
    return true;
}

err_code paging_cursor_error(err_info *e)
{
    return err_set(e, ERR_INVALID, "cursor",
                   "the cursor is not one this service gave for this list "
                   "(pass the next_cursor of a page, with the same order)");
}

err_code paging_db_result(err_code rc, err_info *e)
{
    if (rc != ERR_NOT_FOUND)
        return rc;
    err_clear(e);
    return paging_cursor_error(e);
}

void paging_reply(http_request *r, const paging *p, json_t *page, json_t *items,
                  const char *next_cursor)
{
    if (page == NULL)
        page = json_object();
    if (p->has_order)
        json_object_set_new(
            page, "order",
            json_string(p->is_newest_first ? "newest" : "oldest"));
    json_object_set_new(page, "items", items);
    json_object_set_new(page, "next_cursor",
                        next_cursor ? json_string(next_cursor) : json_null());
    http_reply_json(r, 200, page);
}

void paging_serve(http_request *r, const paging_list *l)
{
    db *d = http_db(r->srv);
    db_conn *c;
    void *rows = NULL;
    size_t n = 0, i;
    paging p;
    json_t *items;
    err_info e;
    err_code rc;

    err_clear(&e);
    if (!paging_read(r, true, &p, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    c = db_read_acquire(d);
    {
        db_page pg = {p.cursor, p.is_newest_first, p.limit + 1};
        rc =
            paging_db_result(l->fetch(c, r->params[0], &pg, &rows, &n, &e), &e);
    }
    db_read_release(d, c);
    if (rc != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    /* One row more than the page tells whether another page follows. */
    items = json_array();
    for (i = 0; i < n && i < (size_t)p.limit; i++)
        json_array_append_new(items, l->item((char *)rows + i * l->size));
    paging_reply(r, &p, NULL, items,
                 n > (size_t)p.limit
                     ? l->cursor((char *)rows + (size_t)(p.limit - 1) * l->size)
                     : NULL);
    if (l->release)
        l->release(rows, n);
    else
        free(rows);
}
