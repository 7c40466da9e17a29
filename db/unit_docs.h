/*
 * unit_docs.h: a combat's unit history documents packed in its row
 * (migration 14), read back for the event lists of unit_events.c and
 * event_log.c.  Included by no file outside db/.
 */
#ifndef UMPIRE_UNIT_DOCS_H
#define UMPIRE_UNIT_DOCS_H

#include "db.h"

/* The packed documents of the last few combats read, kept while a list
 * is filled: a feed lists a combat's events one after the other, or
 * (several writers) interleaved with a few others'.  Zeroed to start;
 * unit_docs_cache_clear frees it. */
#define UNIT_DOCS_CACHED 4
typedef struct unit_docs_cache {
    struct unit_docs_cached {
        char combat_id[DB_ID_MAX];
        char *text; /* its documents unpacked, or NULL */
        char actor_token_id[DB_ID_MAX];
        char *note; /* the combat's, or NULL */
    } slots[UNIT_DOCS_CACHED];
    int next; /* the slot the next combat read takes */
} unit_docs_cache;

/* Fills ev's documents from its combat's row when they are stored there
 * (ev->doc_slot > 0 and no ev->after), and its actor and note where they
 * are empty; nothing otherwise.  The row is read into cache.  ERR_DB when
 * the row or its documents cannot be read, ERR_NOMEM. */
err_code unit_docs_fill(db_conn *c, db_event *ev, unit_docs_cache *cache,
                        err_info *e);
/* unit_docs_fill's work once the row is read, for an event whose
 * documents are there (ev->doc_slot > 0): ev's documents (its
 * doc_slot-th) from text, its combat's documents unpacked, and the
 * combat's actor and note (NULL: none) where ev's are empty.  ERR_DB when
 * text does not hold them or the event has no state, ERR_NOMEM; either
 * may leave ev part filled (its documents, actor and note), for the
 * caller to clear or to fail with. */
err_code unit_docs_take(db_event *ev, const char *text, const char *actor,
                        const char *note, err_info *e);
void unit_docs_cache_clear(unit_docs_cache *cache);

#endif
