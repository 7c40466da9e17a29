/*
 * api_combats.c: combats of every system: resolving them (one-off or in a
 * campaign), reading their reports with the roll log, and replaying them.
 *
 * A combat lands whole or not at all: in a campaign, the units are read,
 * the combat resolved, and the combat row, every roll and every unit change
 * with its history event written in one job of the database writer; the
 * response goes out after that job's commit.
 */
#include "api.h"
#include "combat.h"
#include "jsonv.h"
#include "jsonw.h"
#include "text.h"
#include "registry.h"
#include "scrud_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

typedef struct scrud_job {
    combat_record rec; /* first: combat_finish finds it as the state */
    scrud_plan plan;
    json_t *options; /* the request's options (a reference) or NULL */
} scrud_job;

static void scrud_job_free(void *p)
{
    scrud_job *j = p;

    if (j == NULL)
        return;
    json_decref(j->options);
    combat_record_cleanup(&j->rec);
    free(j);
}

/* Side and unit of a logged SCRUD die (combat_roll_names). */
static void roll_names(const void *p, const dice_roll *d, const char **side,
                       const char **unit_name, const char **unit_id)
{
    const scrud_plan *plan = p;

    *side = plan->side_name[d->side];
    *unit_name = plan->unit_name[d->side][d->unit];
    *unit_id = plan->unit_id[d->side][d->unit];
}

/*
 * Resolves j->plan with j->rec.dice and fills the combat row, its rolls and the
 * report; res is the caller's (cleanup with scrud_result_cleanup).
 */
static err_code scrud_run(scrud_job *j, scrud_result *res, err_info *e)
{
    int values[2 * SCRUD_MAX_UNITS_PER_SIDE];
    size_t n_values;
    dice_source src;
    db_combat *cb = &j->rec.cb;
    char *md = NULL;
    jw w;
    err_code rc;

    n_values = 0;
    if (j->rec.dice.kind == DICE_ENTERED)
        scrud_json_entered_values(&j->plan, values, &n_values);
    combat_dice_init(&j->rec, &src, values, n_values);
    if ((rc = scrud_resolve(&j->plan.in, &src, res, e)) ||
        (rc = dice_check_all_used(&src, e)))
        goto out;
    combat_record_row(&j->rec, "scrud");
    if ((rc = combat_record_rolls(&j->rec, &src, roll_names, &j->plan, e)))
        goto out;
    md = scrud_json_markdown(&j->plan, res, combat_dice_note(&j->rec));
    cb->summary = scrud_json_summary(&j->plan, res);
    jw_init(&w);
    jw_object(&w);
    combat_report_head(&w, &j->rec);
    jw_key(&w, "options");
    scrud_json_options_write(&w, &j->plan.in.options);
    jw_key(&w, "dice");
    combat_dice_write(&w, cb);
    scrud_json_outcome_write(&w, &j->plan, res);
    jw_kstring(&w, "summary_markdown", md ? md : "");
    jw_object_end(&w);
    cb->report = jw_take(&w, NULL);
    if (!md || !cb->summary || !cb->report)
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
out:
    free(md);
    dice_cleanup(&src);
    return rc;
}

/* Parses what one-off and campaign SCRUD requests share. */
static scrud_job *scrud_job_parse(http_request *r, bool is_campaign,
                                  err_info *e)
{
    static const char *const fields[] = {"sides", "options", "dice", "note",
                                         NULL};
    json_t *body = http_body_object(r), *opts = NULL;
    scrud_job *j;

    if (body == NULL)
        return NULL;
    j = calloc(1, sizeof *j);
    r->state = j;
    r->state_free = scrud_job_free;
    if (j == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    scrud_options_default(&j->plan.in.options);
    if (jv_object_only(body, "", fields, e) ||
        combat_parse_record(body, &j->rec, e) ||
        jv_object(body, "", "options", false, &opts, e) ||
        scrud_json_parse_sides(body, is_campaign,
                              j->rec.dice.kind == DICE_ENTERED, &j->plan, e))
        goto fail;
    /* One-off options apply over the defaults now; a campaign combat's
     * apply over the campaign's, in the job. */
    if (!is_campaign &&
        ((opts && scrud_json_options(opts, "options", &j->plan.in.options, e)) ||
         combat_cite(r, &j->rec, e)))
        goto fail;
    j->options = json_incref(opts);
    json_decref(body);
    return j;
fail:
    json_decref(body);
    http_reply_problem(r, e);
    return NULL;
}

void api_oneoff_scrud(http_request *r)
{
    scrud_result res;
    scrud_job *j;
    err_info e;

    err_clear(&e);
    memset(&res, 0, sizeof res);
    if ((j = scrud_job_parse(r, false, &e)) == NULL)
        return;
    if (scrud_run(j, &res, &e) != ERR_OK) {
        scrud_result_cleanup(&res);
        http_reply_problem(r, &e);
        return;
    }
    scrud_result_cleanup(&res);
    http_defer_write(r, combat_insert_job, combat_finish);
}

/* Applies the combat's outcome to one campaign unit, with its event. */
static err_code apply_unit(db_conn *c, scrud_job *j, const scrud_result *res,
                           int s, int i, err_info *e)
{
    const scrud_unit_result *ur = &res->units[s][i];
    db_unit before, after;
    jw w;
    err_code rc;

    if ((rc = db_unit_find(c, j->rec.campaign_id, j->plan.unit_id[s][i],
                           &before, e)))
        return rc;
    after = before;
    after.scrud.defeat_penalty = ur->defeat_penalty;
    after.scrud.fatigue_penalty = ur->fatigue_penalty;
    if (ur->eliminated != SCRUD_ELIM_NONE) {
        after.is_eliminated = true;
        after.scrud.is_eliminated = true;
        text_copy(after.eliminated_reason, DB_REASON_MAX,
                  scrud_elimination_name(ur->eliminated));
        text_copy(after.eliminated_by, DB_ID_MAX, j->rec.cb.id);
    }
    if ((rc = db_unit_update(c, &after, e)))
        return rc;
    /* The unit's result, as in the report, for its history. */
    jw_init(&w);
    jw_object(&w);
    scrud_json_unit_write(&w, &j->plan, res, s, i);
    jw_kstring(&w, "system", "scrud");
    jw_kstring(&w, "side", j->plan.side_name[s]);
    jw_object_end(&w);
    return combat_unit_event(c, &j->rec, &before, &after, &w, e);
}

static err_code campaign_scrud_job(db_conn *c, void *arg, err_info *e)
{
    scrud_job *j = arg;
    db_campaign cmp;
    scrud_result res;
    err_code rc;
    int s;
    size_t i;

    memset(&res, 0, sizeof res);
    if ((rc = db_campaign_get(c, j->rec.campaign_id, &cmp, e)))
        return rc;
    j->plan.in.options = cmp.scrud;
    if ((j->options && (rc = scrud_json_options(j->options, "options",
                                               &j->plan.in.options, e))) ||
        (rc = scrud_json_bind_units(c, j->rec.campaign_id, &j->plan, e)) ||
        (rc = combat_take_commitment(c, &j->rec, NULL, e)) ||
        (rc = scrud_run(j, &res, e)) ||
        (rc = db_combat_insert(c, &j->rec.cb, j->rec.rolls, j->rec.n_rolls, e)))
        goto out;
    for (s = 0; s < 2; s++)
        for (i = 0; i < j->plan.in.sides[s].n_units; i++)
            if ((rc = apply_unit(c, j, &res, s, (int)i, e)))
                goto out;
out:
    scrud_result_cleanup(&res);
    return rc;
}

void api_campaign_scrud(http_request *r)
{
    scrud_job *j;
    err_info e;

    err_clear(&e);
    if ((j = scrud_job_parse(r, true, &e)) == NULL)
        return;
    text_copy(j->rec.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(j->rec.token_id, DB_ID_MAX, r->token.id);
    http_defer_write(r, campaign_scrud_job, combat_finish);
}

/* ---- reading and replaying ---- */

/* Loads a combat and its rolls; one-off only when campaign_id is NULL. */
static err_code load_combat(http_request *r, const char *campaign_id,
                            const char *combat_id, db_combat *cb,
                            db_roll **rolls, size_t *n, err_info *e)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    err_code rc;

    *rolls = NULL;
    *n = 0;
    rc = db_combat_get(c, combat_id, cb, e);
    if (rc == ERR_OK &&
        strcmp(cb->campaign_id, campaign_id ? campaign_id : "")) {
        db_combat_cleanup(cb);
        err_clear(e);
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no combat %s here", combat_id);
    }
    if (rc == ERR_OK && (rc = db_rolls_list(c, combat_id, rolls, n, e)))
        db_combat_cleanup(cb);
    db_read_release(d, c);
    return rc;
}

static void reply_combat(http_request *r, const char *campaign_id)
{
    const char *id = r->params[campaign_id ? 1 : 0];
    db_combat cb;
    db_roll *rolls;
    size_t n;
    char *report;
    err_info e;

    err_clear(&e);
    memset(&cb, 0, sizeof cb);
    if (load_combat(r, campaign_id, id, &cb, &rolls, &n, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    report = combat_report_with_rolls(cb.report, rolls, n);
    if (report == NULL) {
        err_set(&e, ERR_INTERNAL, NULL, "the stored report of %s is malformed",
                id);
        http_reply_problem(r, &e);
    } else {
        http_reply_json_text(r, 200, report);
        r->render = HTTP_RENDER_COMBAT;
    }
    free(rolls);
    db_combat_cleanup(&cb);
}

void api_oneoff_combat_get(http_request *r)
{
    reply_combat(r, NULL);
}

void api_campaign_combat_get(http_request *r)
{
    reply_combat(r, r->params[0]);
}

void api_campaign_combats_list(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    db_combat *cbs = NULL;
    size_t n = 0, i;
    json_t *items;
    err_info e;

    err_clear(&e);
    if (db_combats_list(c, r->params[0], &cbs, &n, &e)) {
        db_read_release(d, c);
        http_reply_problem(r, &e);
        return;
    }
    db_read_release(d, c);
    items = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(
            items,
            json_pack("{s:s, s:s, s:s, s:o, s:s, s:s}", "id", cbs[i].id,
                      "system", cbs[i].system, "created_at", cbs[i].created_at,
                      "note", api_str_or_null(cbs[i].note), "dice_source",
                      cbs[i].dice_source, "summary",
                      cbs[i].summary ? cbs[i].summary : ""));
    db_combats_free(cbs, n);
    http_reply_json(r, 200, json_pack("{s:o}", "items", items));
}

/* SCRUD replay: the combat as its report records it, and the logged
 * naturals, through core again. */
static bool scrud_replay(const json_t *stored, dice_source *src, json_t *diffs)
{
    static const char *const parts[] = {"sides", "pairs", "extra"};
    scrud_plan *plan = calloc(1, sizeof *plan);
    json_t *outcome = NULL;
    scrud_result res;
    bool is_resolved = false;
    size_t i;

    memset(&res, 0, sizeof res);
    if (plan == NULL || scrud_json_parse_input(stored, plan, NULL) != ERR_OK) {
        combat_differ(diffs, "the stored report does not describe a combat "
                             "that can be resolved");
        goto out;
    }
    if (scrud_system.resolve(&plan->in, src, &res, NULL) != ERR_OK) {
        combat_differ(diffs, "the logged dice do not fit the combat");
        goto out;
    }
    is_resolved = true;
    outcome = scrud_json_outcome_json(plan, &res);
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!json_equal(json_object_get(outcome, parts[i]),
                        json_object_get(stored, parts[i])))
            combat_differ(diffs, "the %s differ from the stored report",
                          parts[i]);
out:
    scrud_result_cleanup(&res);
    json_decref(outcome);
    free(plan);
    return is_resolved;
}

/* One replay function per system, by name. */
static const struct {
    const char *system;
    combat_replay_fn replay;
} replayers[] = {
    {"scrud", scrud_replay}, {"edna", api_edna_replay},
    {"scs", api_scs_replay}, {"matrix", api_matrix_replay},
    {"civ", api_civ_replay},
};

static void replay(http_request *r, const char *campaign_id)
{
    const char *id = r->params[campaign_id ? 1 : 0];
    db_combat cb;
    db_roll *rolls;
    size_t n, i;
    json_t *diffs;
    err_info e;
    err_code rc = ERR_INTERNAL;
    bool is_seeded, is_seed_ok;

    err_clear(&e);
    memset(&cb, 0, sizeof cb);
    if (load_combat(r, campaign_id, id, &cb, &rolls, &n, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    if (registry_find(cb.system) == NULL) {
        err_set(&e, ERR_INTERNAL, NULL, "combat %s has an unknown system %s",
                cb.id, cb.system);
        http_reply_problem(r, &e);
        free(rolls);
        db_combat_cleanup(&cb);
        return;
    }
    diffs = json_array();
    combat_check_report_dice(&cb, diffs);
    is_seeded = strcmp(cb.dice_source, "seeded") == 0;
    is_seed_ok = is_seeded && combat_check_seeded_dice(&cb, rolls, n, diffs);
    for (i = 0; i < sizeof replayers / sizeof replayers[0]; i++)
        if (strcmp(replayers[i].system, cb.system) == 0)
            rc = combat_replay(&cb, rolls, n, replayers[i].replay, diffs, &e);
    if (rc != ERR_OK) {
        if (e.code == ERR_OK)
            err_set(&e, ERR_INTERNAL, NULL, "no replay for the system %s",
                    cb.system);
        http_reply_problem(r, &e);
        json_decref(diffs);
    } else {
        http_reply_json(
            r, 200,
            json_pack("{s:s, s:s, s:i, s:b, s:o, s:o}", "combat_id", cb.id,
                      "system", cb.system, "n_rolls", (int)n, "reproduced",
                      json_array_size(diffs) == 0, "seeded_dice_verified",
                      is_seeded ? json_boolean(is_seed_ok) : json_null(),
                      "differences", diffs));
    }
    free(rolls);
    db_combat_cleanup(&cb);
}

void api_oneoff_combat_replay(http_request *r)
{
    replay(r, NULL);
}

void api_campaign_combat_replay(http_request *r)
{
    replay(r, r->params[0]);
}
