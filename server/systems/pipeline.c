/*
 * pipeline.c: a combat of any system through the stages of its entry in
 * the table of systems; see pipeline.h.
 */
#include "pipeline.h"

#include "combat.h"
#include "odds_json.h"
#include "text.h"

#include <assert.h>
#include <string.h>

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
