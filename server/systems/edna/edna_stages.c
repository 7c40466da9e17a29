/*
 * api_edna.c: EDNA tests (docs/rules/edna.md) as combats: in a campaign
 * against its units' stored EDNA, or one-off with units given inline; the
 * report, and replay.  A volley tests several units in one request, all or
 * nothing: the new EDNA of every unit, the combat and its roll log land in
 * one job of the database writer.
 */
#include "api.h"
#include "combat.h"
#include "edna.h"
#include "jsonv.h"
#include "jsonw.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct edna_job {
    combat_record rec; /* first: combat_finish finds it as the state */
    edna_input in;
    edna_unit units[EDNA_MAX_UNITS];
    char unit_ref[EDNA_MAX_UNITS][DB_NAME_MAX]; /* campaign: as asked */
    char unit_name[EDNA_MAX_UNITS][DB_NAME_MAX];
    char unit_id[EDNA_MAX_UNITS][DB_ID_MAX];     /* "" one-off */
    char side_name[EDNA_MAX_UNITS][DB_NAME_MAX]; /* "" one-off */
    int start[EDNA_MAX_UNITS];                   /* starting EDNA */
    int entered[EDNA_MAX_UNITS][EDNA_MAX_DICE];
    int n_entered[EDNA_MAX_UNITS];
    json_t *options; /* the request's (a reference) or NULL */
} edna_job;

static void edna_job_free(void *p)
{
    edna_job *j = p;

    if (j == NULL)
        return;
    json_decref(j->options);
    combat_record_cleanup(&j->rec);
    free(j);
}

static err_code parse_options(const json_t *obj, edna_options *o, err_info *e)
{
    static const char *const fields[] = {"dice", "faces", NULL};
    err_code rc;

    if ((rc = jv_object_only(obj, "options", fields, e)) ||
        (rc = jv_int(obj, "options", "dice", false, 1, EDNA_MAX_DICE, &o->dice,
                     e)) ||
        (rc = jv_int(obj, "options", "faces", false, RNG_FACES_MIN,
                     RNG_FACES_MAX, &o->faces, e)))
        return rc;
    return ERR_OK;
}

/* Entered dice of unit i, checked against the options when known. */
static err_code parse_dice_list(const json_t *dice, const char *path,
                                edna_job *j, size_t i, err_info *e)
{
    char f[JV_PATH_MAX];
    size_t k;

    jv_path(f, path, "dice");
    if (dice == NULL)
        return j->rec.dice.kind == DICE_ENTERED
                   ? err_set(e, ERR_MISSING, f,
                             "entered dice need the \"dice\" of every unit")
                   : ERR_OK;
    if (j->rec.dice.kind != DICE_ENTERED)
        return err_set(e, ERR_INVALID, f,
                       "dice are seeded: give \"dice\" only with dice.source "
                       "\"entered\"");
    for (k = 0; k < json_array_size(dice); k++) {
        json_t *v = json_array_get(dice, k);
        if (!json_is_integer(v))
            return err_set(e, ERR_INVALID, f, "each die is an integer");
        if (json_integer_value(v) < 1 || json_integer_value(v) > RNG_FACES_MAX)
            return err_set(e, ERR_RANGE, f, "each die is from 1 to %d",
                           RNG_FACES_MAX);
        j->entered[i][k] = (int)json_integer_value(v);
    }
    j->n_entered[i] = (int)k;
    return ERR_OK;
}

/* A unit of the request: by reference (campaign) or inline (one-off). */
static err_code parse_unit(const json_t *u, const char *path, bool is_campaign,
                           edna_job *j, size_t i, err_info *e)
{
    static const char *const campaign_fields[] = {"unit", "modifier", "dice",
                                                  NULL};
    static const char *const inline_fields[] = {"name",     "edna", "start",
                                                "modifier", "dice", NULL};
    const char *ref = NULL;
    json_t *dice = NULL;
    err_code rc;

    j->start[i] = 8;
    j->units[i].edna = -1;
    if ((rc = jv_object_only(
             u, path, is_campaign ? campaign_fields : inline_fields, e)) ||
        (rc = jv_string(u, path, is_campaign ? "unit" : "name", true, 64, &ref,
                        e)) ||
        (rc = jv_int(u, path, "modifier", false, -EDNA_MODIFIER_LIMIT,
                     EDNA_MODIFIER_LIMIT, &j->units[i].modifier, e)) ||
        (!is_campaign && ((rc = jv_int(u, path, "start", false, 1, EDNA_MAX,
                                       &j->start[i], e)) ||
                          (rc = jv_int(u, path, "edna", false, 0, EDNA_MAX,
                                       &j->units[i].edna, e)))) ||
        (rc = jv_array(u, path, "dice", false, 1, EDNA_MAX_DICE, &dice, e)) ||
        (rc = parse_dice_list(dice, path, j, i, e)))
        return rc;
    text_copy(is_campaign ? j->unit_ref[i] : j->unit_name[i], DB_NAME_MAX, ref);
    if (is_campaign)
        return ERR_OK;
    if (j->units[i].edna < 0) {
        j->units[i].edna = j->start[i];
    } else if (json_object_get(u, "start") == NULL) {
        if (j->units[i].edna > j->start[i])
            j->start[i] = j->units[i].edna; /* EDNA never rose to get here */
    } else if (j->units[i].edna > j->start[i]) {
        char f[JV_PATH_MAX];
        jv_path(f, path, "edna");
        return err_set(e, ERR_RANGE, f,
                       "EDNA only goes down: at most its start %d, not %d",
                       j->start[i], j->units[i].edna);
    }
    return ERR_OK;
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

static edna_job *edna_job_parse(http_request *r, bool is_campaign, err_info *e)
{
    static const char *const fields[] = {"units", "options", "dice", "note",
                                         NULL};
    json_t *body = http_body_object(r), *units = NULL, *opts = NULL;
    edna_job *j;
    size_t i;

    if (body == NULL)
        return NULL;
    j = calloc(1, sizeof *j);
    r->state = j;
    r->state_free = edna_job_free;
    if (j == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    edna_options_default(&j->in.options);
    if (jv_object_only(body, "", fields, e) ||
        combat_parse_record(body, &j->rec, e) ||
        jv_array(body, "", "units", true, 1, EDNA_MAX_UNITS, &units, e) ||
        jv_object(body, "", "options", false, &opts, e))
        goto fail;
    for (i = 0; i < json_array_size(units); i++) {
        char p[JV_PATH_MAX];
        size_t k;
        jv_index(p, "units", i);
        if (parse_unit(json_array_get(units, i), p, is_campaign, j, i, e))
            goto fail;
        for (k = 0; k < i; k++)
            if (strcmp(is_campaign ? j->unit_ref[k] : j->unit_name[k],
                       is_campaign ? j->unit_ref[i] : j->unit_name[i]) == 0) {
                char f[JV_PATH_MAX];
                jv_path(f, p, is_campaign ? "unit" : "name");
                err_set(e, ERR_INVALID, f, "the unit is already tested here");
                goto fail;
            }
    }
    j->in.units = j->units;
    j->in.n_units = json_array_size(units);
    /* One-off options apply over the defaults now; a campaign test's over
     * the campaign's, in the job. */
    if (!is_campaign && ((opts && parse_options(opts, &j->in.options, e)) ||
                         check_entered(j, e) || combat_cite(r, &j->rec, e)))
        goto fail;
    j->options = json_incref(opts);
    json_decref(body);
    return j;
fail:
    json_decref(body);
    http_reply_problem(r, e);
    return NULL;
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

/* One unit's test as in the report (members into the open object). */
static void test_write(jw *w, const edna_job *j, const edna_result *res,
                       size_t i)
{
    const edna_result_unit *t = &res->units[i];
    int k;

    jw_kstring(w, "unit", j->unit_name[i]);
    jw_kstring_or_null(w, "unit_id", j->unit_id[i]);
    jw_key(w, "naturals");
    jw_array(w);
    for (k = 0; k < j->in.options.dice; k++)
        jw_int(w, j->rec.rolls[t->first_roll + (size_t)k].natural);
    jw_array_end(w);
    jw_kint(w, "modifier", j->units[i].modifier);
    jw_kint(w, "total", t->total);
    jw_kint(w, "start", j->start[i]);
    jw_kint(w, "edna_before", t->edna_before);
    jw_kint(w, "edna_after", t->edna_after);
    jw_kbool(w, "passed", t->is_passed);
    jw_kbool(w, "ineffective", t->is_ineffective);
}

static void tests_write(jw *w, const edna_job *j, const edna_result *res)
{
    size_t i;

    jw_key(w, "tests");
    jw_array(w);
    for (i = 0; i < res->n_units; i++) {
        jw_object(w);
        test_write(w, j, res, i);
        jw_object_end(w);
    }
    jw_array_end(w);
}

static char *markdown(const edna_job *j, const edna_result *res)
{
    text_buf b = {0};
    size_t i;

    text_printf(&b, "**EDNA test%s** (%dd%d)\n", res->n_units > 1 ? "s" : "",
                j->in.options.dice, j->in.options.faces);
    for (i = 0; i < res->n_units; i++) {
        const edna_result_unit *t = &res->units[i];
        char name[2 * DB_NAME_MAX];
        text_md(name, sizeof name, j->unit_name[i]);
        text_printf(&b, "- %s: %d against EDNA %d, %s%s\n", name, t->total,
                    t->edna_before, t->is_passed ? "passed" : "failed",
                    t->is_ineffective ? ", now ineffective" : "");
        if (!t->is_passed && !t->is_ineffective)
            text_printf(&b, "  EDNA %d -> %d\n", t->edna_before, t->edna_after);
    }
    text_printf(&b, "_Dice: %s._\n", combat_dice_note(&j->rec));
    return text_take(&b);
}

/* Resolves the tests and fills the combat row, its rolls and report. */
static err_code edna_run(edna_job *j, edna_result *res, err_info *e)
{
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
    md = markdown(j, res);
    jw_init(&w);
    jw_object(&w);
    combat_report_head(&w, &j->rec);
    jw_key(&w, "options");
    jw_object(&w);
    jw_kint(&w, "dice", j->in.options.dice);
    jw_kint(&w, "faces", j->in.options.faces);
    jw_object_end(&w);
    jw_key(&w, "dice");
    combat_dice_write(&w, cb);
    tests_write(&w, j, res);
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

void api_oneoff_edna(http_request *r)
{
    edna_result res;
    edna_job *j;
    err_info e;

    err_clear(&e);
    memset(&res, 0, sizeof res);
    if ((j = edna_job_parse(r, false, &e)) == NULL)
        return;
    if (edna_run(j, &res, &e) != ERR_OK) {
        edna_result_cleanup(&res);
        http_reply_problem(r, &e);
        return;
    }
    edna_result_cleanup(&res);
    http_defer_write(r, combat_insert_job, combat_finish);
}

/* Campaign units: found, carrying EDNA, in play; their EDNA filled in. */
static err_code bind_units(db_conn *c, edna_job *j, err_info *e)
{
    char f[JV_PATH_MAX];
    db_unit u;
    size_t i, k;
    err_code rc;

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
        text_copy(j->unit_id[i], DB_ID_MAX, u.id);
        text_copy(j->unit_name[i], DB_NAME_MAX, u.name);
        text_copy(j->side_name[i], DB_NAME_MAX, u.side_name);
        j->units[i].edna = u.edna;
        j->start[i] = u.edna_start;
    }
    return ERR_OK;
}

static err_code apply_unit(db_conn *c, edna_job *j, const edna_result *res,
                           size_t i, err_info *e)
{
    db_unit before, after;
    jw w;
    err_code rc;

    if ((rc = db_unit_find(c, j->rec.campaign_id, j->unit_id[i], &before, e)))
        return rc;
    after = before;
    after.edna = res->units[i].edna_after;
    if ((rc = db_unit_update(c, &after, e)))
        return rc;
    jw_init(&w);
    jw_object(&w);
    test_write(&w, j, res, i);
    jw_kstring(&w, "system", "edna");
    jw_object_end(&w);
    return combat_unit_event(c, &j->rec, &before, &after, &w, e);
}

static err_code campaign_edna_job(db_conn *c, void *arg, err_info *e)
{
    edna_job *j = arg;
    db_campaign cmp;
    edna_result res;
    size_t i;
    err_code rc;

    memset(&res, 0, sizeof res);
    if ((rc = db_campaign_get(c, j->rec.campaign_id, &cmp, e)))
        return rc;
    j->in.options = cmp.edna;
    if ((j->options && (rc = parse_options(j->options, &j->in.options, e))) ||
        (rc = check_entered(j, e)) || (rc = bind_units(c, j, e)) ||
        (rc = combat_take_commitment(c, &j->rec, NULL, e)) ||
        (rc = edna_run(j, &res, e)) ||
        (rc = db_combat_insert(c, &j->rec.cb, j->rec.rolls, j->rec.n_rolls, e)))
        goto out;
    for (i = 0; i < res.n_units && rc == ERR_OK; i++)
        rc = apply_unit(c, j, &res, i, e);
out:
    edna_result_cleanup(&res);
    return rc;
}

void api_campaign_edna(http_request *r)
{
    edna_job *j;
    err_info e;

    err_clear(&e);
    if ((j = edna_job_parse(r, true, &e)) == NULL)
        return;
    text_copy(j->rec.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(j->rec.token_id, DB_ID_MAX, r->token.id);
    http_defer_write(r, campaign_edna_job, combat_finish);
}

bool api_edna_replay(const json_t *stored, dice_source *src, json_t *diffs)
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
