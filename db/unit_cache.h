/*
 * unit_cache.h: campaigns' unit rows, with their sides' rows and their
 * own (what db_campaign_get reads), kept between the snapshots that
 * campaign combats are worked out on (unit_cache.c).  Included by db/'s
 * own files only.
 *
 * A campaign's version (migration 12) counts every change to its row,
 * its units and its sides, by triggers, whatever the front door; a
 * committed version is one state of them.  So a unit read in a snapshot
 * where its campaign is at version V is the unit of every snapshot at V.
 * The cache keeps, for a few campaigns, the version V its rows are of and
 * the rows; a snapshot at another version does not use them.  A combat
 * writes none of the sides, nor of the campaign's row what
 * db_campaign_get reads (only its ledger's head and next commitment).
 *
 * What moves it on: a campaign combat worked out on a snapshot at V lands
 * on the writer (pipeline_campaign_job) as the only change to the
 * campaign in between (it lands only if the campaign is still at V, and
 * SQLite's writer is alone while it writes): the writer reads the
 * version V' its writes left and notes the units it wrote (db_units_landed),
 * and once its batch is committed, the rows kept at V are the rows at V',
 * but for those units, whose new rows the combat made.  The next combat
 * of the campaign then reads its units here, not from the store.
 *
 * SQLite stores only: a PostgreSQL store has other instances' writers
 * too, whose writes may fall between a writer's reads.
 */
#ifndef UMPIRE_UNIT_CACHE_H
#define UMPIRE_UNIT_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "db.h"
#include "db_sql.h"

typedef struct unit_cache unit_cache;

/* NULL when out of memory (then nothing is kept). */
unit_cache *unit_cache_new(void);
void unit_cache_free(unit_cache *k);

/* The unit ref (id, or name) of campaign_id as a snapshot at version reads
 * it, into *out: true when kept.  A name is answered only when no kept
 * unit has it as its id, and ref does not look like a unit's id (which a
 * unit not kept may have). */
bool unit_cache_get(unit_cache *k, const char *campaign_id, long long version,
                    const char *ref, db_unit *out);
/* Keeps u, read from a snapshot where its campaign is at version. */
void unit_cache_put(unit_cache *k, long long version, const db_unit *u);

/* The campaign's own row (db_campaign_get's) as a snapshot at version
 * reads it, when kept (its version the one asked). */
bool unit_cache_campaign_get(unit_cache *k, const char *campaign_id,
                             long long version, db_campaign *out);

/* A combat's units as it left them (its writer job, not yet committed):
 * the campaign went from version from to to by its writes alone. */
typedef struct unit_landing {
    char campaign_id[DB_ID_MAX];
    long long from, to;
    db_unit *units; /* owned; as stored (db_unit_as_stored) */
    size_t n;
} unit_landing;

/* Once its writes are committed: the rows kept at from are those at to,
 * with its units'. */
void unit_cache_land(unit_cache *k, const unit_landing *l);

/* The slot of the cache that campaign_id's rows take: two campaigns of
 * one slot put each other out (the tests keep campaigns apart with it). */
unsigned unit_cache_slot(const char *campaign_id);

/* For tests: lookups answered and not; the rows kept for campaign_id (up
 * to max into out; how many) and their version; d's cache (NULL: none). */
void unit_cache_stats(unit_cache *k, long long *hits, long long *misses);
size_t unit_cache_rows(unit_cache *k, const char *campaign_id,
                       long long *version, db_unit *out, size_t max);
size_t unit_cache_sides(unit_cache *k, const char *campaign_id,
                        long long *version, db_side *out, size_t max);
unit_cache *db_unit_cache(db *d);
/* For tests: from now on nothing is kept, as when there was no memory for
 * the cache at db_open (every unit read from the store, as on
 * PostgreSQL).  Before any job or read of d. */
void db_unit_cache_drop(db *d);

/* ---- the connections' side (db_conn's units, snap_*, landings) ---- */

/* c's snapshot read campaign_id at version (db_campaign_get). */
void db_snapshot_saw(db_conn *c, const char *campaign_id, long long version);
/* c holds no snapshot now: it reads nothing through the cache. */
void db_snapshot_forget(db_conn *c);
/* db_unit_find's: the unit ref of campaign_id as c's snapshot would read
 * it, when kept (true); a unit c read, kept. */
bool db_unit_kept(db_conn *c, const char *campaign_id, const char *ref,
                  db_unit *out);
void db_unit_keep(db_conn *c, const db_unit *u);
/* db_side_find's, the same for a side. */
bool db_side_kept(db_conn *c, const char *campaign_id, const char *ref,
                  db_side *out);
void db_side_keep(db_conn *c, const db_side *d);
/* db_campaign_get's: in a snapshot, the campaign's row when kept at the
 * version the snapshot holds (read: the snapshot then has read it); the
 * row read, kept. */
bool db_campaign_kept(db_conn *c, const char *id, db_campaign *out);
void db_campaign_keep(db_conn *c, const db_campaign *cmp);
/* db_commitment_next's: campaign_id's next commitment as c's snapshot
 * read it with the campaign's version (db_campaign_kept), when it did
 * (true). */
bool db_snapshot_next(const db_conn *c, const char *campaign_id,
                      db_commitment *out);
/* db_chain_open's: campaign_id's ledger as c's snapshot read it with the
 * campaign's version (db_campaign_kept), when it did (true). */
bool db_snapshot_ledger(const db_conn *c, const char *campaign_id,
                        db_ledger_head *out);
/* Reads ahead of the combats in flight (db_snapshot_ahead): cmp, read
 * in c's snapshot, as they leave it (its version), noting whether they
 * apply; the next commitment, the ledger and a unit u read, as they
 * leave them, where they apply (the first two: true). */
void db_campaign_ahead(db_conn *c, db_campaign *cmp);
bool db_ahead_next(const db_conn *c, const char *campaign_id,
                   db_commitment *out);
bool db_ahead_chain(const db_conn *c, const char *campaign_id, db_chain *ch);
void db_unit_ahead(const db_conn *c, const char *campaign_id, db_unit *u);
/* The writer's landings after its first keep: dropped (a job rolled
 * back, or the batch ended). */
void db_landings_drop(db_conn *w, size_t keep);
/* The writer's landings to d's cache: its batch is committed. */
void db_landings_publish(db *d, db_conn *w);

#endif
