/*
 * pipeline.c: a combat of any system through the stages of its entry in
 * the table of systems; see pipeline.h.
 */
#include "pipeline.h"

#include "combat.h"
#include "text.h"

#include <assert.h>

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
    return ERR_OK;
}

err_code pipeline_campaign_job(db_conn *c, void *arg, err_info *e)
{
    combat_record *rec = arg;
    const systems_entry *s = rec->system;
    db_campaign cmp;
    err_code rc;

    assert(s != NULL && s->bind != NULL && s->apply != NULL);
    /* Nothing is written until the rules have accepted the combat: the
     * commitment's seed is read, not claimed, before they run. */
    if ((rc = db_campaign_get(c, rec->campaign_id, &cmp, e)) ||
        (rc = s->bind(c, arg, &cmp, e)) ||
        (rc = combat_peek_commitment(c, rec, e)) || (rc = s->run(arg, e)) ||
        (rc = combat_claim_commitment(c, rec, NULL, e)) ||
        (rc = db_combat_insert(c, &rec->cb, rec->rolls, rec->n_rolls, e)))
        return rc;
    return s->apply(c, arg, e);
}
