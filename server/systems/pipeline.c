/*
 * pipeline.c: a combat of any system through the stages of its entry in
 * the table of systems; see pipeline.h.
 */
#include "pipeline.h"

#include "combat.h"
#include "odds_json.h"
#include "text.h"

#include <assert.h>
#include <stdatomic.h>
#include <string.h>

#include <sodium.h>

err_code pipeline_read(const systems_entry *s, const json_t *body,
                       const char *campaign_id, const char *token_id,
                       void **out, err_info *e)
{
    combat_record *rec;

    *out = s->job_new(body, e);
    if (*out == NULL)
        return e && e->code ? e->code : ERR_NOMEM;
    rec = *out;
    rec->system = s;
    if (campaign_id != NULL) {
        text_copy(rec->campaign_id, DB_ID_MAX, campaign_id);
        text_copy(rec->token_id, DB_ID_MAX, token_id ? token_id : "");
    }
    return s->read(*out, body, campaign_id != NULL, e);
}

err_code pipeline_oneoff(db *d, void *job, err_info *e)
{
    combat_record *rec = job;
    const systems_entry *s = rec->system;
    err_code rc;

    assert(s != NULL && rec->campaign_id[0] == '\0');
    if ((s->check && (rc = s->check(job, e))) ||
        (rc = combat_cite(d, rec, e)) || (rc = s->run(job, e)))
        return rc;
    /* The report and the roll log packed here, so that the writer only
     * writes (one row). */
    return db_combat_pack(&rec->cb, rec->rolls, rec->n_rolls, e);
}

static atomic_llong n_landed, n_redone, n_ahead;

void pipeline_stats(long long *landed, long long *redone)
{
    *landed = atomic_load(&n_landed);
    *redone = atomic_load(&n_redone);
}

long long pipeline_n_ahead(void)
{
    return atomic_load(&n_ahead);
}

/* The stages up to apply, on c: the writer's connection, or a snapshot
 * (rec->is_staging: apply records its writes). */
static err_code work_out(db_conn *c, combat_record *rec, db_campaign *cmp,
                         err_info *e)
{
    const systems_entry *s = rec->system;
    err_code rc;

    combat_bound_clear(rec);
    if ((rc = db_campaign_get(c, rec->campaign_id, cmp, e)) ||
        (rc = s->bind(c, rec, cmp, e)) ||
        (rc = combat_peek_commitment(c, rec, e)))
        return rc;
    /* The combat's id, which apply writes into eliminated units, is
     * drawn now rather than at the claim. */
    if (rec->cb.id[0] == '\0')
        db_new_id("cbt", rec->cb.id);
    return s->run(rec, e);
}

/* The campaign's next commitment, as c reads it, into rec->chain_end's
 * next (left empty where it cannot be read: then none is worked out
 * ahead of rec). */
static void leave_next_commitment(db_conn *c, combat_record *rec)
{
    err_info e;

    err_clear(&e);
    if (db_commitment_next(c, rec->campaign_id, &rec->chain_end.next, &e) !=
        ERR_OK)
        sodium_memzero(&rec->chain_end.next, sizeof rec->chain_end.next);
}

/* rec, worked out on c (work_out), made ready to land as one piece:
 * its writes recorded rather than made (apply, staging), its rolls
 * chained on the ledger as c reads it, its commitment spent with the
 * ledger's save, its units' events and rolls packed, the units it leaves
 * kept (combat_units_leave).  Where is_leaving, an entered combat leaves
 * the campaign's next commitment for the next combat worked out ahead of
 * it. */
static err_code stage_worked(db_conn *c, combat_record *rec, bool is_leaving,
                             err_info *e)
{
    err_code rc;

    rec->is_staging = true;
    rc = rec->system->apply(c, rec, e);
    rec->is_staging = false;
    if (rc == ERR_OK)
        rc = db_combat_chain(c, &rec->cb, rec->rolls, rec->n_rolls,
                             &rec->chain_end, e);
    /* Its commitment spent, and the next drawn, with the ledger's save.
     * A seeded combat always has one (drawn or taken): one without would
     * save spending none, so it is refused. */
    if (rc == ERR_OK && rec->dice.kind == DICE_SEEDED &&
        rec->dice.commitment[0] == '\0')
        rc = err_set(e, ERR_INTERNAL, NULL,
                     "a seeded combat without its commitment");
    if (rc == ERR_OK && rec->dice.kind == DICE_SEEDED)
        db_chain_spend(&rec->chain_end, rec->dice.commitment);
    /* Entered dice spend none: the next combat worked out ahead of this
     * one spends the campaign's next commitment as this one found it
     * (combat_campaign_worked), where it has one to be. */
    else if (rc == ERR_OK && rec->n_rolls > 0 && is_leaving)
        leave_next_commitment(c, rec);
    /* The events' documents packed with the report, then the rolls (and
     * the report, when the documents are not with it). */
    if (rc == ERR_OK)
        rc = combat_changes_pack(rec, e);
    if (rc == ERR_OK)
        rc = db_combat_pack(&rec->cb, rec->rolls, rec->n_rolls, e);
    if (rc == ERR_OK)
        combat_units_leave(rec);
    return rc;
}

/* The units' rows rec's landing writes. */
static size_t unit_writes(const combat_record *rec)
{
    size_t i, n = 0;

    for (i = 0; i < rec->n_changes; i++)
        n += !rec->changes[i].is_event;
    return n;
}

bool pipeline_stage(db *d, void *job)
{
    combat_record *rec = job;
    const systems_entry *s = rec->system;
    db_ahead ahead;
    db_campaign cmp;
    bool is_ahead = false;
    long long seen;
    db_conn *c;
    err_info e;
    err_code rc;

    assert(s != NULL && rec->campaign_id[0] != '\0');
    if (s->reset == NULL)
        return false;
    /* Alone, or ahead of its campaign's combats in flight, on how they
     * leave it; else the writer works it out whole. */
    switch (combat_campaign_enter(rec, &ahead)) {
    case COMBAT_ENTER_WRITER: return false;
    case COMBAT_ENTER_ALONE: break;
    case COMBAT_ENTER_AHEAD: is_ahead = true; break;
    }
    err_clear(&e);
    if ((rc = db_read_begin(d, &c, &e))) {
        combat_campaign_worked(rec, false, -1);
        combat_ahead_free(&ahead);
        return false;
    }
    if (is_ahead)
        db_snapshot_ahead(c, &ahead);
    rc = work_out(c, rec, &cmp, &e);
    /* Read as those in flight leave the campaign, or (all of them landed,
     * or the campaign moved otherwise) as the snapshot holds it. */
    is_ahead = is_ahead && db_snapshot_is_ahead(c);
    seen = db_snapshot_version(c, rec->campaign_id);
    if (rc == ERR_OK)
        rc = stage_worked(c, rec, true, &e);
    if (db_read_end(d, c, &e) != ERR_OK && rc == ERR_OK)
        rc = ERR_DB;
    if (rc != ERR_OK) {
        s->reset(rec);
        combat_campaign_worked(rec, false, -1);
        combat_ahead_free(&ahead);
        return false;
    }
    rec->version = cmp.version;
    rec->is_staged = true;
    if (is_ahead)
        atomic_fetch_add(&n_ahead, 1);
    combat_campaign_worked(rec, is_ahead, seen);
    /* An entered combat's save uses no next commitment: the seed it left
     * for the next goes now (the ahead holds its own copy). */
    if (rec->dice.kind != DICE_SEEDED)
        sodium_memzero(&rec->chain_end.next, sizeof rec->chain_end.next);
    combat_ahead_free(&ahead);
    return true;
}

void pipeline_staged_handed(void *job)
{
    combat_campaign_release(job);
}

/* rec, made ready on the version rec->version (stage_worked), written on
 * the writer's connection c where the campaign is still at that version
 * (*is_current); else nothing written. */
static err_code land(db_conn *c, combat_record *rec, bool *is_current,
                     err_info *e)
{
    /* The combat's row of the event log held back, and written with its
     * units' events (one row, on SQLite). */
    db_combat_log held = {.is_pending = false};
    err_code rc;

    if ((rc = db_combat_insert_chained(c, &rec->cb, rec->rolls, rec->n_rolls,
                                       &rec->chain_end, rec->version,
                                       is_current, &held, e)) ||
        !*is_current)
        return rc;
    if ((rc = combat_changes_write(c, rec, &held, e)) == ERR_OK &&
        held.is_pending) /* cannot be: combat_changes_write logs */
        rc = err_set(e, ERR_INTERNAL, NULL, "combat %s was not logged",
                     rec->cb.id);
    /* One version on, as the next combat worked out ahead of it expects,
     * where its writes may have counted otherwise (PostgreSQL's: a unit's
     * write counts, a combat without ledger to save counts nothing). */
    if (rc == ERR_OK &&
        (unit_writes(rec) > 0 ||
         !db_combat_saves_ledger(rec->n_rolls, &rec->chain_end)))
        rc = db_campaign_landed_at(c, rec->campaign_id, rec->version, e);
    if (rc == ERR_OK)
        combat_units_landed(c, rec);
    return rc;
}

err_code pipeline_campaign_job(db_conn *c, void *arg, err_info *e)
{
    combat_record *rec = arg;
    const systems_entry *s = rec->system;
    db_campaign cmp;
    bool is_current = false;
    err_code rc;

    assert(s != NULL && s->bind != NULL && s->apply != NULL);
    /* A staged outcome holds where the campaign is still at the version it
     * was worked out on.  That covers the commitment its dice came from
     * too: every write of a campaign's next commitment counts its version
     * (db_commitment_renew, db_commitment_new, the ledger's save that
     * spends it), and the save refuses a commitment that is not the next
     * one.  The ledger's save checks it (db_combat_insert_chained), and
     * spends the commitment (db_chain_spend). */
    if (rec->is_staged) {
        if ((rc = land(c, rec, &is_current, e)) != ERR_OK)
            goto out;
        if (is_current) {
            atomic_fetch_add(&n_landed, 1);
            goto out;
        }
        s->reset(rec); /* worked out again, below */
        atomic_fetch_add(&n_redone, 1);
        /* Those worked out ahead of it would not land either. */
        combat_campaign_no_ahead(rec->campaign_id);
    }
    /* Worked out here, on the campaign as the writer has it, and written
     * as a staged one is: the same few rows (its rolls and its units'
     * events packed in the combat's), rather than a row of every roll and
     * event.  Nothing is written until the rules have accepted the
     * combat, and its commitment is spent by the ledger's save. */
    if ((rc = work_out(c, rec, &cmp, e)) ||
        (rc = stage_worked(c, rec, false, e)))
        goto out;
    rec->version = cmp.version;
    if ((rc = land(c, rec, &is_current, e)) == ERR_OK && !is_current)
        rc = err_set(e, ERR_INTERNAL, NULL,
                     "combat %s: its campaign moved under the writer",
                     rec->cb.id);
out:
    /* A job that fails lands nothing: those worked out ahead of it would
     * not land either.  (It stops counting among its campaign's combats
     * in flight once its batch is committed: combat_committed.) */
    if (rc != ERR_OK)
        combat_campaign_no_ahead(rec->campaign_id);
    return rc;
}

err_code pipeline_bound(const systems_entry *s, const json_t *body,
                        const char *campaign_id, db *d, void **out, err_info *e)
{
    combat_record *rec;
    db_conn *c;
    db_campaign cmp;
    err_code rc;

    if ((rc = pipeline_read(s, body, campaign_id, NULL, out, e)))
        return rc;
    rec = *out;
    if (campaign_id == NULL)
        return s->check ? s->check(*out, e) : ERR_OK;
    assert(s->bind != NULL);
    /* The campaign and its units from one snapshot. */
    if ((rc = db_read_begin(d, &c, e)))
        return rc;
    rc = db_campaign_get(c, rec->campaign_id, &cmp, e);
    if (rc == ERR_OK)
        rc = s->bind(c, *out, &cmp, e);
    if (db_read_end(d, c, rc ? NULL : e) && rc == ERR_OK)
        rc = e && e->code ? e->code : ERR_DB;
    return rc;
}

json_t *pipeline_odds(const systems_entry *s, const json_t *body,
                      const char *campaign_id, const char *token_id, db *d,
                      err_info *e)
{
    odds_json_req q;
    json_t *rest, *answer = NULL;

    if (s->odds == NULL) {
        err_set(e, ERR_NOT_FOUND, NULL, "no odds for the system %s",
                systems_name(s));
        return NULL;
    }
    /* The combat's body without "odds": the system reads it as it reads
     * its combat, strictly. */
    if ((rest = json_copy((json_t *)body)) == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    json_object_del(rest, "odds");
    memset(&q, 0, sizeof q);
    q.system = s;
    q.body = rest;
    q.campaign_id = campaign_id;
    q.token_id = token_id ? token_id : "";
    q.d = d;
    if (odds_json_read(json_object_get(body, "odds"), systems_name(s), &q.ask,
                       e) == ERR_OK)
        answer = s->odds(&q, e);
    json_decref(rest);
    return answer;
}
