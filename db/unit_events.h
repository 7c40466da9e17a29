/*
 * unit_events.h: a unit history event's columns and their reading, shared by
 * unit_events.c (a unit's history, a campaign's feed), unit_events_write.c
 * (inserting them) and event_log.c (the campaign event log, which joins its
 * unit events).  Included by no file outside db/.
 */
#ifndef UMPIRE_UNIT_EVENTS_H
#define UMPIRE_UNIT_EVENTS_H

#include "db_sql.h"

/* Every MARK_EVERY-th event of a unit is marked (unit_marks), so that a
 * page read from anywhere walks a bounded part of its chain.
 * (Migration 23's SQL on both stores, and its PostgreSQL trigger, write
 * the same 64: a store's marks are what its pages walk from, so the two
 * change together or not at all.) */
enum { MARK_EVERY = 64 };

/* The columns history_event_read reads, of the event u of unit_events
 * joined by HISTORY_EVENT_JOINS: its unit's and combat's ids from their
 * rows (migration 18: the event keys them by rowid; its campaign is its
 * unit's), and a packed event's time and kind from its combat's row. */
#define HISTORY_EVENT_COLUMNS                                                  \
    "u.seq, un.id, un.campaign_id, coalesce(u.at, uc.created_at), "            \
    "coalesce(u.kind, 'combat'), uc.id, u.actor_token_id, u.note, u.before, "  \
    "u.after, u.result, u.unit_seq, u.doc_slot "
#define HISTORY_EVENT_JOINS                                                    \
    "LEFT JOIN units un ON un.rowid = u.unit_row "                             \
    "LEFT JOIN combats uc ON uc.rowid = u.combat_row "

/* The number of unit events a row l of the event log logs, from its
 * unit_seq on: a unit's row, n (NULL: its one event; migration 17: a
 * block); a combat's, n_units (migration 27: with its events; NULL:
 * none, n being the ledger's length). */
#define LOG_UNITS                                                              \
    "(CASE WHEN l.kind = 'unit' THEN coalesce(l.n, 1) "                        \
    "ELSE coalesce(l.n_units, 0) END)"

/* HISTORY_EVENT_COLUMNS from column col of st into ev (its note and
 * documents new: db_events_free). */
void history_event_read(db_stmt *st, int col, db_event *ev);

#endif
