/*
 * pipeline.h: a combat of any system, from its request to its record,
 * through the stages of the table of systems (systems.h).  The one path
 * every front door takes, so that none copies it:
 *
 *   one-off:   pipeline_read, pipeline_oneoff (check, the cited
 *              commitment, run), then combat_insert_job on the writer;
 *   campaign:  pipeline_read, pipeline_stage, then pipeline_campaign_job
 *              on the writer.  pipeline_stage, on the request's thread,
 *              works the combat out on a read snapshot of the campaign:
 *              the campaign read, bind, its next commitment read, run,
 *              apply with its writes recorded, not made, and its rolls
 *              chained onto the campaign's ledger.  The writer then
 *              only writes: if the campaign is still at the version the
 *              snapshot read (every change to what the rules read moves
 *              it: migration 12) and its next commitment is the one the
 *              dice came from, it inserts the combat with its rolls
 *              packed, spends the commitment with the ledger's save and
 *              makes the recorded writes.  If not (another combat landed
 *              first, a unit was edited), or the combat was not staged,
 *              the writer works it out again itself, as it always may,
 *              the same way on its own connection (the campaign read,
 *              bind, the commitment, run, apply recording its writes,
 *              the chain), then writes it as a staged one.  Either way
 *              all in one transaction, so the combat lands whole or not
 *              at all, and a refused one writes nothing.  While other combats
 * of its campaign are in flight, a combat is staged ahead of them, on the
 * campaign as they leave it (pipeline_stage), and lands only where they all
 * landed (the campaign's version, the ledger's head they leave, and the
 * commitment it spends where it spends one, say so); odds:      pipeline_odds:
 * pipeline_bound (read, then check one-off or bind from a read snapshot), then
 * the system's odds stage; nothing rolled, claimed or written (docs/odds.md).
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

/*
 * A campaign job read by pipeline_read, worked out on a read snapshot of
 * d's pool, if its system can (a reset stage): alone (where those of
 * its campaign in flight leave nothing to go on, once they have
 * landed), or, where other combats of its campaign are in flight
 * (staged, with dice, seeded or entered: either store lands a campaign's
 * jobs in the order they are handed over), ahead of them, on
 * the campaign as they leave it (combat_campaign_enter: its units, its
 * ledger and its next commitment theirs); its landing then checks that
 * they all landed, as they were worked out, and nothing else, or works
 * it out again.  Whatever fails here (a unit unknown, say) is left for
 * the writer job to find and answer: the job is then as it was.
 * Returns whether the combat was staged.
 */
bool pipeline_stage(db *d, void *job);
/* Once the job staged (or not) by pipeline_stage is handed to the writer,
 * or never will be: the next combat of its campaign may be worked out
 * (ahead of it, which lands after it only if handed over after it). */
void pipeline_staged_handed(void *job);

/* The writer job of a campaign combat (a db_job_fn; arg is the job):
 * a staged combat's writes, or the combat worked out and written. */
err_code pipeline_campaign_job(db_conn *c, void *arg, err_info *e);

/* Campaign combats whose staged outcome the writer landed, and those it
 * worked out again (the campaign had changed), since the start. */
void pipeline_stats(long long *landed, long long *redone);
/* Of the staged ones, those worked out ahead of others of their campaign
 * in flight (combat_campaign_enter), since the start. */
long long pipeline_n_ahead(void);

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
