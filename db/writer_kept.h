/*
 * writer_kept.h: what SQLite's one writer keeps between its statements,
 * so that a combat's writes read less back: its units' history heads, the
 * keys of the campaign and combat its events name, the largest seq of
 * the history events, whether a campaign has a webhook, and which
 * campaign's version the running job has counted.  Only the writer writes on
 * SQLite, so all of it stays right until its writes are rolled back; then db.c
 * forgets it whole (db_kept_forget), and what is needed is read again.  Nothing
 * is kept for any other connection: PostgreSQL's writers are several, and its
 * triggers do this work there.  Included by no file outside db/.
 */
#ifndef UMPIRE_WRITER_KEPT_H
#define UMPIRE_WRITER_KEPT_H

#include "db_sql.h"

/* A unit's history head: its last event's seq (0: it has none), number
 * and how many it has (unit_events_write.c). */
typedef struct unit_head {
    long long seq, unit_seq, n;
} unit_head;

/* Heads kept: a unit's at its row modulo HEADS_KEPT (another unit's there
 * is a miss, read and put in its place). */
enum { HEADS_KEPT = 1024 };

typedef struct writer_kept {
    /* The heads the writer has read or moved, so that a combat's 8 events
     * do not read their units' heads again (8 statements, about 21k
     * instructions a combat). */
    long long unit_row[HEADS_KEPT]; /* 0: none kept in that place */
    unit_head head[HEADS_KEPT];
    /* The keys of the last campaign and combat its events named
     * (unit_events_write.c), and of the last combat it inserted
     * (db_keys_keep_combat, log.c): a combat's events find both without a
     * statement.  A row's rowid never changes, and no campaign or combat
     * is ever deleted. */
    char campaign_id[DB_ID_MAX], combat_id[DB_ID_MAX];
    long long campaign_row, combat_row;
    /* Whether the campaign hooks_campaign ("": none known) has a webhook
     * (db_webhook_enqueue): known until the writer writes a webhook
     * (db_keys_hooks_forget). */
    char hooks_campaign[DB_ID_MAX];
    bool has_hooks;
    /* The campaign whose version the running job has counted ("": none):
     * cleared as each job starts (db_keys_job_start). */
    char counted_campaign[DB_ID_MAX];
    long long counted_version; /* its version since, where known, else 0 */
    /* unit_events' largest seq, where known (has_last_event): the next
     * run of history events takes the seqs after it without a statement
     * (unit_events_write.c). */
    long long last_event;
    bool has_last_event;
} writer_kept;

/* What c keeps: made where c is SQLite's writer and keeps nothing yet
 * (db_kept), or NULL there (db_kept_if); NULL for any other connection,
 * and where memory is short (then nothing is kept: all is read again). */
writer_kept *db_kept(db_conn *c);
writer_kept *db_kept_if(db_conn *c);
/* Forgets all c keeps: called whenever its writes are rolled back (a
 * job's savepoint, a batch), and when it closes. */
void db_kept_forget(db_conn *c);

/* Keeps combat_id's row, just inserted by c, for its history events. */
void db_keys_keep_combat(db_conn *c, const char *combat_id, long long row);
/* Whether c knows if campaign_id has a webhook (then *has); keeps that;
 * forgets it (every write of a webhook: webhooks.c). */
bool db_keys_hooks_kept(db_conn *c, const char *campaign_id, bool *has);
void db_keys_hooks_keep(db_conn *c, const char *campaign_id, bool has);
void db_keys_hooks_forget(db_conn *c);
/* The campaign whose version c's running job has counted (migration 26:
 * a write of a unit counts it unless its job has): forgotten as each job
 * starts (db.c); kept, with the version it left where the write knew it
 * (else 0); asked; its version asked (false where not known). */
void db_keys_job_start(db_conn *c);
void db_keys_version_counted(db_conn *c, const char *campaign_id,
                             long long version);
bool db_keys_version_is_counted(db_conn *c, const char *campaign_id);
bool db_keys_counted_version(db_conn *c, const char *campaign_id,
                             long long *version);

#endif
