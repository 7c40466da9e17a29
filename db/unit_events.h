/*
 * unit_events.h: a unit history event's columns and their reading, shared by
 * unit_events.c (a unit's history, a campaign's feed), unit_events_write.c
 * (inserting them) and event_log.c (the campaign event log, which joins its
 * unit events), with what SQLite's writer keeps (log.c and webhooks.c use
 * it too).  Included by no file outside db/ (db.c calls db_heads_forget).
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

/* HISTORY_EVENT_COLUMNS from column col of st into ev (its note and
 * documents new: db_events_free). */
void history_event_read(db_stmt *st, int col, db_event *ev);

/* Forgets the units' history heads the SQLite writer c keeps
 * (unit_events.c): called whenever its writes are rolled back (a job's
 * savepoint, a batch), and when it closes.  Nothing for another
 * connection. */
void db_heads_forget(db_conn *c);
/* Keeps combat_id's row, just inserted by SQLite's writer c, for its
 * history events (unit_events.c; forgotten with the heads).  Nothing for
 * another connection. */
void db_keys_keep_combat(db_conn *c, const char *combat_id, long long row);
/* Whether SQLite's writer c knows if campaign_id has a webhook (then
 * *has); keeps that (forgotten with the heads); forgets it (every write
 * of a webhook: webhooks.c).  Nothing for another connection. */
bool db_keys_hooks_kept(db_conn *c, const char *campaign_id, bool *has);
void db_keys_hooks_keep(db_conn *c, const char *campaign_id, bool has);
void db_keys_hooks_forget(db_conn *c);
/* The campaign whose version the SQLite writer c's running job has
 * counted (migration 26: a write of a unit counts it unless its job
 * has): forgotten as each job starts (db.c) and with the heads; kept,
 * with the version it left where the write knew it (else 0); asked; its
 * version asked (false where not known).  Nothing (false) for another
 * connection. */
void db_keys_job_start(db_conn *c);
void db_keys_version_counted(db_conn *c, const char *campaign_id,
                             long long version);
bool db_keys_version_is_counted(db_conn *c, const char *campaign_id);
bool db_keys_counted_version(db_conn *c, const char *campaign_id,
                             long long *version);

#endif
