/*
 * pipeline.h: a combat of any system, from its request to its record,
 * through the stages of the table of systems (systems.h).  The one path
 * every front door takes, so that none copies it:
 *
 *   one-off:   pipeline_read, pipeline_oneoff (check, the cited
 *              commitment, run), then combat_insert_job on the writer;
 *   campaign:  pipeline_read, then pipeline_campaign_job on the writer:
 *              the campaign read, bind, its next commitment read, run;
 *              then, and only for a combat that lands, the commitment
 *              claimed (the next one drawn), the combat and its rolls
 *              inserted, apply; all in one transaction, so the combat
 *              lands whole or not at all, and a refused one writes
 *              nothing;
 *   odds:      pipeline_odds: pipeline_bound (read, then check one-off or
 *              bind from a read snapshot), then the system's odds stage;
 *              nothing rolled, claimed or written (docs/odds.md).
 *
 * Nothing here knows HTTP: resources/combats.c is the HTTP front door of
 * the combats, resources/odds_http.c of the odds.
 */
#ifndef UMPIRE_PIPELINE_H
#define UMPIRE_PIPELINE_H

#include <jansson.h>

#include "db.h"
#include "err.h"
#include "systems.h"

/*
 * Reads a request of system s into a new job (*out, whose first member is
 * its combat_record; free with s->job_free, also on failure, when
 * *out is not NULL).  campaign_id NULL: a one-off combat; otherwise the
 * campaign's, and token_id who resolves it (both copied).  body borrowed.
 */
err_code pipeline_read(const systems_entry *s, const json_t *body,
                       const char *campaign_id, const char *token_id,
                       void **out, err_info *e);

/* A one-off job read by pipeline_read: checked, its cited commitment
 * read through d's pool (the writer claims it), and run.  The record is
 * then ready for combat_insert_job. */
err_code pipeline_oneoff(db *d, void *job, err_info *e);

/* The writer job of a campaign combat (a db_job_fn; arg is the job). */
err_code pipeline_campaign_job(db_conn *c, void *arg, err_info *e);

/*
 * A request of system s read and made ready to resolve, without resolving
 * it: one-off, read and checked; in a campaign, read, then bound to the
 * campaign's options and units from one read snapshot of d's pool (no
 * writer, no commitment).  *out as pipeline_read's (s->job_free, also on
 * failure, when not NULL).  s must have a bind stage for a campaign.
 */
err_code pipeline_bound(const systems_entry *s, const json_t *body,
                        const char *campaign_id, db *d, void **out,
                        err_info *e);

/*
 * The odds of a request of system s (docs/odds.md): body is the combat's
 * body with an optional "odds" object (borrowed), campaign_id NULL for a
 * one-off, token_id the caller's.  A new answer, or NULL with e set.
 */
json_t *pipeline_odds(const systems_entry *s, const json_t *body,
                      const char *campaign_id, const char *token_id, db *d,
                      err_info *e);

#endif
