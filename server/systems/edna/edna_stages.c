/*
 * edna_stages.c: EDNA tests (docs/rules/edna.md) through the table of
 * systems: in a campaign against its units' stored EDNA, or one-off with
 * units given inline, and replay; see systems.h.  A volley tests several
 * units in one request, all or nothing.  The JSON is in edna_json.c, the
 * report's Markdown and HTML in edna_report.c.
 */
#include "edna_json.h"
#include "edna_odds.h"
#include "edna_report.h"
#include "systems.h"
#include "combat.h"
#include "fog.h"
#include "edna.h"
#include "jsonv.h"
#include "jsonw.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void edna_job_free(void *p)
{
    edna_job *j = p;

    if (j == NULL)
        return;
    json_decref(j->options);
    edna_result_cleanup(&j->res);
    combat_record_cleanup(&j->rec);
    free(j);
}

/* reset: the outcome dropped, the job as bound. */
static void reset(void *job)
{
    edna_job *j = job;

    edna_result_cleanup(&j->res);
    memset(&j->res, 0, sizeof j->res);
    combat_record_unstage(&j->rec);
}

/* Once the options are known: each unit's entered dice fit them. */
static err_code check_entered(const edna_job *j, err_info *e)
{
    char f[JV_PATH_MAX];
    size_t i;
    int k;

    if (j->rec.dice.kind != DICE_ENTERED)
        return ERR_OK;
    for (i = 0; i < j->in.n_units; i++) {
        snprintf(f, sizeof f, "units[%zu].dice", i);
        if (j->n_entered[i] != j->in.options.dice)
            return err_set(
                e, ERR_RANGE, f, "a test rolls %d dice: give %d, not %d",
                j->in.options.dice, j->in.options.dice, j->n_entered[i]);
        for (k = 0; k < j->n_entered[i]; k++)
            if (j->entered[i][k] > j->in.options.faces)
                return err_set(
                    e, ERR_RANGE, f, "each die is 1 to %d (a d%d), not %d",
                    j->in.options.faces, j->in.options.faces, j->entered[i][k]);
    }
    return ERR_OK;
}

static void *job_new(const json_t *body, err_info *e)
{
    edna_job *j = calloc(1, sizeof *j);

    (void)body;
    if (j == NULL)
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    else
        edna_options_default(&j->in.options);
    return j;
}

/* read: the units tested, each once, and the options (applied in check,
 * or in bind over the campaign's). */
static err_code read_request(void *job, const json_t *body, bool is_campaign,
                             err_info *e)
{
    static const char *const fields[] = {"units", "options", "dice", "note",
                                         NULL};
    edna_job *j = job;
    json_t *units = NULL, *opts = NULL;
    size_t i;
    err_code rc;

    if ((rc = jv_object_only(body, "", fields, e)) ||
        (rc = combat_parse_record(body, &j->rec, e)) ||
        (rc =
             jv_array(body, "", "units", true, 1, EDNA_MAX_UNITS, &units, e)) ||
        (rc = jv_object(body, "", "options", false, &opts, e)))
        return rc;
    for (i = 0; i < json_array_size(units); i++) {
        char p[JV_PATH_MAX];
        size_t k;
        jv_index(p, "units", i);
        if ((rc = edna_json_unit(json_array_get(units, i), p, is_campaign, j, i,
                                 e)))
            return rc;
        for (k = 0; k < i; k++)
            if (strcmp(is_campaign ? j->unit_ref[k] : j->unit_name[k],
                       is_campaign ? j->unit_ref[i] : j->unit_name[i]) == 0) {
                char f[JV_PATH_MAX];
                jv_path(f, p, is_campaign ? "unit" : "name");
                return err_set(e, ERR_INVALID, f,
                               "the unit is already tested here");
            }
    }
    j->in.units = j->units;
    j->in.n_units = json_array_size(units);
    j->options = json_incref(opts);
    return ERR_OK;
}

/* check: the request's options over those in force, and the entered
 * dice against them. */
static err_code check(void *job, err_info *e)
{
    edna_job *j = job;
    err_code rc;

    if (j->options && (rc = edna_json_options(j->options, &j->in.options, e)))
        return rc;
    return check_entered(j, e);
}

/* Side and unit of a logged EDNA die (combat_roll_names). */
static void roll_names(const void *p, const dice_roll *d, const char **side,
                       const char **unit_name, const char **unit_id)
{
    const edna_job *j = p;

    *side = j->side_name[d->unit];
    *unit_name = j->unit_name[d->unit];
    *unit_id = j->unit_id[d->unit];
}

/* run: resolves the tests into j->res and fills the combat row, its
 * rolls and report. */
static err_code run(void *job, err_info *e)
{
    edna_job *j = job;
    edna_result *res = &j->res;
    int values[EDNA_MAX_UNITS * EDNA_MAX_DICE];
    size_t n_values = 0, i;
    dice_source src;
    db_combat *cb = &j->rec.cb;
    char *md = NULL, summary[128];
    int k;
    jw w;
    err_code rc;

    if (j->rec.dice.kind == DICE_ENTERED)
        for (i = 0; i < j->in.n_units; i++)
            for (k = 0; k < j->n_entered[i]; k++)
                values[n_values++] = j->entered[i][k];
    combat_dice_init(&j->rec, &src, values, n_values);
    if ((rc = edna_resolve(&j->in, &src, res, e)) ||
        (rc = dice_check_all_used(&src, e)))
        goto out;
    combat_record_row(&j->rec, "edna");
    if ((rc = combat_record_rolls(&j->rec, &src, roll_names, j, e)))
        goto out;
    {
        int n_failed = 0;
        for (i = 0; i < res->n_units; i++)
            n_failed += !res->units[i].is_passed;
        snprintf(summary, sizeof summary, "EDNA: %zu tested, %d failed",
                 res->n_units, n_failed);
        cb->summary = strdup(summary);
    }
    md = edna_json_markdown(j, res);
    jw_init(&w);
    jw_object(&w);
    combat_report_head(&w, &j->rec.cb);
    jw_key(&w, "options");
    jw_object(&w);
    jw_kint(&w, "dice", j->in.options.dice);
    jw_kint(&w, "faces", j->in.options.faces);
    jw_object_end(&w);
    jw_key(&w, "dice");
    combat_dice_write(&w, cb);
    edna_json_tests_write(&w, j, res);
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

/* bind: the campaign's options under the request's, and its units:
 * found, carrying EDNA, in play; their EDNA filled in. */
static err_code bind_found(db_conn *c, void *job, const db_campaign *cmp,
                           err_info *e)
{
    edna_job *j = job;
    char f[JV_PATH_MAX];
    db_unit u;
    size_t i, k;
    err_code rc;

    j->in.options = cmp->edna;
    if ((rc = check(job, e)))
        return rc;
    for (i = 0; i < j->in.n_units; i++) {
        snprintf(f, sizeof f, "units[%zu].unit", i);
        rc = db_unit_find(c, j->rec.campaign_id, j->unit_ref[i], &u, NULL);
        if (rc == ERR_NOT_FOUND)
            return err_set(e, ERR_INVALID, f, "the campaign has no unit \"%s\"",
                           j->unit_ref[i]);
        if (rc != ERR_OK)
            return err_set(e, rc, NULL, "cannot read units");
        if (!u.has_edna)
            return err_set(e, ERR_RULE, f, "the unit %s does not carry EDNA",
                           u.name);
        if (u.is_eliminated)
            return err_set(e, ERR_RULE, f,
                           "the unit %s is eliminated and out of play", u.name);
        for (k = 0; k < i; k++)
            if (strcmp(j->unit_id[k], u.id) == 0)
                return err_set(e, ERR_INVALID, f,
                               "the unit %s is already tested here", u.name);
        if (combat_bind_keep(&j->rec, &u) != ERR_OK)
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
        text_copy(j->unit_id[i], DB_ID_MAX, u.id);
        text_copy(j->unit_name[i], DB_NAME_MAX, u.name);
        text_copy(j->side_name[i], DB_NAME_MAX, u.side_name);
        j->units[i].edna = u.edna;
        j->start[i] = u.edna_start;
    }
    return ERR_OK;
}

/* bind_found, with the units read together where each find would be a
 * statement (PostgreSQL). */
static err_code bind_campaign(db_conn *c, void *job, const db_campaign *cmp,
                              err_info *e)
{
    edna_job *j = job;
    const char *refs[EDNA_MAX_UNITS];
    size_t i;
    err_code rc;

    for (i = 0; i < j->in.n_units && i < EDNA_MAX_UNITS; i++)
        refs[i] = j->unit_ref[i];
    if ((rc = db_units_prefetch(c, j->rec.campaign_id, refs, i, e)))
        return rc;
    rc = bind_found(c, job, cmp, e);
    db_units_prefetch_end(c);
    return rc;
}

static err_code apply_unit(db_conn *c, edna_job *j, const edna_result *res,
                           size_t i, err_info *e)
{
    db_unit before, after;
    jw w;
    err_code rc;

    if ((rc = combat_unit_before(c, &j->rec, j->unit_id[i], &before, e)))
        return rc;
    after = before;
    after.edna = res->units[i].edna_after;
    if ((rc = combat_unit_update(c, &j->rec, &after, e)))
        return rc;
    jw_init(&w);
    jw_object(&w);
    edna_json_test_write(&w, j, res, i);
    jw_kstring(&w, "system", "edna");
    jw_object_end(&w);
    return combat_unit_event(c, &j->rec, &before, &after, &w, e);
}

/* apply: every unit's new EDNA, with its event. */
static err_code apply(db_conn *c, void *job, err_info *e)
{
    edna_job *j = job;
    size_t i;
    err_code rc;

    for (i = 0; i < j->res.n_units; i++)
        if ((rc = apply_unit(c, j, &j->res, i, e)))
            return rc;
    return ERR_OK;
}

static bool replay(const json_t *stored, dice_source *src, json_t *diffs)
{
    json_t *tests = json_object_get(stored, "tests");
    json_t *opts = json_object_get(stored, "options");
    edna_job *j = calloc(1, sizeof *j);
    edna_result res;
    bool is_resolved = false;
    size_t i;

    memset(&res, 0, sizeof res);
    if (j == NULL || json_array_size(tests) > EDNA_MAX_UNITS) {
        combat_differ(diffs, "the stored report does not describe tests "
                             "that can be resolved");
        goto out;
    }
    j->in.options.dice = (int)json_integer_value(json_object_get(opts, "dice"));
    j->in.options.faces =
        (int)json_integer_value(json_object_get(opts, "faces"));
    for (i = 0; i < json_array_size(tests); i++) {
        json_t *t = json_array_get(tests, i);
        j->units[i].edna =
            (int)json_integer_value(json_object_get(t, "edna_before"));
        j->units[i].modifier =
            (int)json_integer_value(json_object_get(t, "modifier"));
    }
    j->in.units = j->units;
    j->in.n_units = json_array_size(tests);
    if (edna_system.resolve(&j->in, src, &res, NULL) != ERR_OK) {
        combat_differ(diffs, "the logged dice do not fit the tests");
        goto out;
    }
    is_resolved = true;
    for (i = 0; i < res.n_units; i++) {
        json_t *t = json_array_get(tests, i);
        json_t *naturals = json_object_get(t, "naturals");
        const edna_result_unit *u = &res.units[i];
        int k;

        if (json_array_size(naturals) != (size_t)j->in.options.dice ||
            json_integer_value(json_object_get(t, "start")) < u->edna_before)
            combat_differ(diffs,
                          "test %zu: the report's naturals or start do not "
                          "fit the test",
                          i + 1);
        for (k = 0; k < j->in.options.dice; k++)
            if (json_integer_value(json_array_get(naturals, (size_t)k)) !=
                src->log[u->first_roll + (size_t)k].natural)
                combat_differ(diffs,
                              "test %zu: the report's naturals differ from "
                              "the roll log",
                              i + 1);
        if (u->total != json_integer_value(json_object_get(t, "total")) ||
            u->edna_after !=
                json_integer_value(json_object_get(t, "edna_after")) ||
            u->is_passed != json_is_true(json_object_get(t, "passed")) ||
            u->is_ineffective !=
                json_is_true(json_object_get(t, "ineffective")))
            combat_differ(diffs, "test %zu differs from the stored report",
                          i + 1);
    }
out:
    edna_result_cleanup(&res);
    free(j);
    return is_resolved;
}

/* unit: its EDNA, its start, and whether it is ineffective. */
static json_t *unit_json(const db_unit *u)
{
    if (!u->has_edna)
        return NULL;
    return json_pack("{s:i, s:i, s:b}", "edna", u->edna, "start", u->edna_start,
                     "ineffective", u->edna == 0);
}

/* options: a new unit's starting EDNA and the test's dice. */
static void options_default(db_campaign *cmp)
{
    edna_options_default(&cmp->edna);
    cmp->edna_start = EDNA_START_DEFAULT;
}

static err_code options_read(const json_t *obj, const char *path,
                             db_campaign *cmp, err_info *e)
{
    static const char *const fields[] = {"start", "dice", "faces", NULL};
    err_code rc;

    if ((rc = jv_object_only(obj, path, fields, e)) ||
        (rc = jv_int(obj, path, "start", false, 1, EDNA_MAX, &cmp->edna_start,
                     e)) ||
        (rc = jv_int(obj, path, "dice", false, 1, EDNA_MAX_DICE,
                     &cmp->edna.dice, e)) ||
        (rc = jv_int(obj, path, "faces", false, RNG_FACES_MIN, RNG_FACES_MAX,
                     &cmp->edna.faces, e)))
        return rc;
    return ERR_OK;
}

static json_t *options_json(const db_campaign *cmp)
{
    return json_pack("{s:i, s:i, s:i}", "start", cmp->edna_start, "dice",
                     cmp->edna.dice, "faces", cmp->edna.faces);
}

/* fog: the tests of other sides' units reduced to the unit tested
 * (fog.h); a test names no side, so its unit is placed by its id. */
static void fog(fog_pass *p, json_t *doc)
{
    fog_entries(p, json_object_get(doc, "tests"), NULL);
}

const systems_entry edna_stages = {
    .rules = &edna_system,
    .job_new = job_new,
    .job_free = edna_job_free,
    .read = read_request,
    .check = check,
    .bind = bind_campaign,
    .run = run,
    .apply = apply,
    .reset = reset,
    .replay = replay,
    .render = edna_report_render,
    .unit_json = unit_json,
    .options_default = options_default,
    .options_read = options_read,
    .options_json = options_json,
    .odds = edna_odds_answer,
    .fog = fog,
};
