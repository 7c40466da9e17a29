/*
 * units_doc.h: a unit as a document (as served, and its state as its
 * history keeps it before and after a change), and the history event that
 * records every change of a unit: by a combat or battle (combat.c and the
 * systems' battles) or by the umpire (resources/units.c).  A unit's
 * section of each system it carries is that system's, from the table of
 * systems (systems.h).
 */
#ifndef UMPIRE_UNITS_DOC_H
#define UMPIRE_UNITS_DOC_H

#include <jansson.h>

#include "db.h"
#include "err.h"

/* How many states units_doc_event_make and units_doc_state gave from
 * the last text written for their unit's row (units_doc.c), and how many
 * they wrote, since the process started. */
void units_doc_memo_stats(long long *hits, long long *misses);

/* The unit as served (new reference). */
json_t *units_doc_json(const db_unit *u);
/* Its state as its history keeps it (new reference; NULL when out of
 * memory): the document units_doc_event stores, parsed. */
json_t *units_doc_state(const db_unit *u);

/*
 * Records a history event of a unit (in c, inside the write transaction):
 * its state before (NULL for "created") and after, what caused it (a
 * combat id or NULL), who (token id or NULL), a note, and the unit's
 * result in a combat (a JSON document, borrowed; NULL for none); its
 * time at (a combat's events take the combat's), or now when NULL or "".
 */
err_code units_doc_event(db_conn *c, const db_unit *before,
                         const db_unit *after, const char *kind,
                         const char *combat_id, const char *token_id,
                         const char *note, const char *result, const char *at,
                         err_info *e);

/* The same event made, not written: ev's before and after documents are
 * new (free them), its note and result borrowed.  ERR_NOMEM. */
err_code units_doc_event_make(const db_unit *before, const db_unit *after,
                              const char *kind, const char *combat_id,
                              const char *token_id, const char *note,
                              const char *result, const char *at, db_event *ev,
                              err_info *e);

#endif
