/*
 * paging.h: the query and the answer of a paged list, one scheme for
 * every list of the API (the history, units, combats, battles, sides, a
 * campaign's tables): ?order=oldest|newest, ?limit=1..200 (50 unless
 * said) and ?cursor=, the next_cursor of the previous page.  A page is
 * {"order", "items", "next_cursor"}, next_cursor null on the last page.
 *
 * Pages are keyed (keyset pagination): the cursor names the last item
 * served (an id, a table's name, an event's seq), never an offset, so a
 * page never skips or repeats an item whatever is written between two.
 */
#ifndef UMPIRE_PAGING_H
#define UMPIRE_PAGING_H

#include <stdbool.h>

#include <jansson.h>

#include "http.h"

#define PAGING_LIMIT_DEFAULT 50  /* items in a page without ?limit= */
#define PAGING_LIMIT_MAX     200 /* most items in a page */
#define PAGING_CURSOR_MAX    64  /* longest cursor (ids, names) */

typedef struct paging {
    bool has_order;       /* the list takes ?order= (a table list does not) */
    bool is_newest_first; /* ?order=newest */
    int limit;            /* 1..PAGING_LIMIT_MAX */
    const char *cursor;   /* ?cursor=, borrowed from r; NULL: first page */
} paging;

/*
 * Reads ?order= (when has_order), ?limit= and ?cursor= of r into *p.
 * False with e set (field the parameter's name) when one is malformed:
 * ERR_INVALID for an order other than oldest or newest, a limit that is
 * not a whole number, or an empty or overlong cursor; ERR_RANGE for a
 * limit outside 1..PAGING_LIMIT_MAX.  Whether a cursor names an item is
 * the list's to check (paging_cursor_error).
 */
bool paging_read(http_request *r, bool has_order, paging *p, err_info *e);

/* Records in e that the cursor names nothing of this list (ERR_INVALID,
 * field cursor); returns ERR_INVALID. */
err_code paging_cursor_error(err_info *e);

/* The outcome rc of a db page function (db.h's db_page) as the list's:
 * ERR_NOT_FOUND, a cursor that names no row, becomes paging_cursor_error
 * (replacing the database's words in e); other codes are returned as
 * they are. */
err_code paging_db_result(err_code rc, err_info *e);

/*
 * Replies 200 with the page: page (stolen; NULL for a new object) with
 * "order" (when p->has_order), "items" (stolen) and "next_cursor" (copied;
 * NULL on the last page) set.
 */
void paging_reply(http_request *r, const paging *p, json_t *page, json_t *items,
                  const char *next_cursor);

/* A list of a campaign's rows served a page at a time (paging_serve):
 * the campaign is the path's first parameter. */
typedef struct paging_list {
    /* A page of campaign_id's rows (db.h's *_page functions): *rows new,
     * n rows of size bytes each. */
    err_code (*fetch)(db_conn *c, const char *campaign_id, const db_page *pg,
                      void **rows, size_t *n, err_info *e);
    size_t size;
    json_t *(*item)(const void *row);       /* a row as served (new) */
    const char *(*cursor)(const void *row); /* the row's cursor (its id) */
    void (*release)(void *rows, size_t n);  /* NULL: free() */
} paging_list;

/* Serves the page the query asks of l (?order=, ?limit=, ?cursor=),
 * read from one pooled connection, or the problem: the whole of a list
 * route that has nothing else to do. */
void paging_serve(http_request *r, const paging_list *l);

#endif
