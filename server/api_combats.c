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
#include "jsonv.h"
#include "registry.h"
#include "scrud_api.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#define NOTE_MAX 500

/* How a combat's dice are produced. */
typedef struct combat_dice {
    dice_kind kind;
    uint8_t seed[RNG_SEED_LEN];
    char seed_hex[2 * RNG_SEED_LEN + 1];
    char commitment[65];
    char client_seed[RNG_CLIENT_SEED_MAX + 1];
    size_t client_seed_len;
    bool has_client_seed;
} combat_dice;

typedef struct scrud_job {
    scrud_plan plan;
    combat_dice dice;
    json_t *options;   /* the request's options (a reference) or NULL */
    char note[NOTE_MAX + 1];
    bool has_note;
    char campaign_id[DB_ID_MAX]; /* "" one-off */
    char token_id[DB_ID_MAX];
    /* results */
    db_combat cb;
    db_roll *rolls;
    size_t n_rolls;
    json_t *report;    /* the stored report (without rolls) */
} scrud_job;

static void scrud_job_free(void *p)
{
    scrud_job *j = p;

    if (j == NULL)
        return;
    json_decref(j->options);
    json_decref(j->report);
    free(j->rolls);
    free(j->cb.summary);
    free(j->cb.input);
    free(j->cb.report);
    sodium_memzero(j->dice.seed, sizeof j->dice.seed);
    free(j);
}

static json_t *str_or_null(const char *s)
{
    return s && s[0] ? json_string(s) : json_null();
}

/* Parses "dice" and, for seeded dice, draws the server seed. */
static err_code parse_dice(const json_t *body, combat_dice *d, err_info *e)
{
    static const char *const fields[] = {"source", "client_seed", NULL};
    static const char *const sources[] = {"seeded", "entered", NULL};
    json_t *obj = NULL;
    const char *cs = NULL;
    int source = 0;
    err_code rc;

    memset(d, 0, sizeof *d);
    if ((rc = jv_object(body, "", "dice", false, &obj, e)))
        return rc;
    if (obj && ((rc = jv_object_only(obj, "dice", fields, e)) ||
                (rc = jv_enum(obj, "dice", "source", false, sources, &source,
                              e)) ||
                (rc = jv_string(obj, "dice", "client_seed", false,
                                RNG_CLIENT_SEED_MAX, &cs, e))))
        return rc;
    d->kind = source == 1 ? DICE_ENTERED : DICE_SEEDED;
    if (cs && d->kind == DICE_ENTERED)
        return err_set(e, ERR_INVALID, "dice.client_seed",
                       "a client seed goes with seeded dice only");
    if (cs) {
        d->client_seed_len = strlen(cs);
        memcpy(d->client_seed, cs, d->client_seed_len + 1);
        d->has_client_seed = true;
    }
    if (d->kind == DICE_SEEDED) {
        randombytes_buf(d->seed, sizeof d->seed);
        rng_hex(d->seed, sizeof d->seed, d->seed_hex);
        rng_commitment(d->seed, d->commitment);
    }
    return ERR_OK;
}

static json_t *dice_json(const db_combat *cb)
{
    bool is_seeded = strcmp(cb->dice_source, "seeded") == 0;

    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:b}", "source",
                     cb->dice_source, "rng", str_or_null(cb->rng),
                     "commitment", str_or_null(cb->commitment), "server_seed",
                     str_or_null(cb->server_seed), "client_seed",
                     cb->client_seed ? json_string(cb->client_seed)
                                     : json_null(),
                     "verifiable", is_seeded);
}

static json_t *rolls_json(const db_roll *rolls, size_t n)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < n; i++) {
        const db_roll *r = &rolls[i];
        json_array_append_new(
            a, json_pack("{s:i, s:s, s:s, s:o, s:s, s:i, s:i, s:i, s:s, s:o}",
                         "seq", r->seq, "side", r->side_name, "unit",
                         r->unit_name, "unit_id", str_or_null(r->unit_id),
                         "reason", r->reason, "faces", r->faces, "natural",
                         r->natural, "modified", r->modified, "source",
                         r->source, "rng", str_or_null(r->rng)));
    }
    return a;
}

/* The roll log of a resolved SCRUD combat as rows to store. */
static err_code scrud_rolls(const scrud_plan *plan, const dice_source *src,
                            const char *source, db_roll **out, size_t *n,
                            err_info *e)
{
    db_roll *v = calloc(src->n_log ? src->n_log : 1, sizeof *v);
    size_t i;

    *out = NULL;
    *n = 0;
    if (v == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < src->n_log; i++) {
        const dice_roll *d = &src->log[i];
        db_roll *r = &v[i];
        r->seq = (int)i + 1;
        snprintf(r->side_name, DB_NAME_MAX, "%s", plan->side_name[d->side]);
        snprintf(r->unit_id, DB_ID_MAX, "%s", plan->unit_id[d->side][d->unit]);
        snprintf(r->unit_name, DB_NAME_MAX, "%s",
                 plan->unit_name[d->side][d->unit]);
        snprintf(r->reason, sizeof r->reason, "%s", d->reason);
        r->faces = d->faces;
        r->natural = d->natural;
        r->modified = d->modified;
        snprintf(r->source, sizeof r->source, "%s", source);
        snprintf(r->rng, sizeof r->rng, "%s",
                 strcmp(source, "seeded") == 0 ? RNG_VERSION : "");
    }
    *out = v;
    *n = src->n_log;
    return ERR_OK;
}

/*
 * Resolves j->plan with j->dice and fills the combat row, its rolls and the
 * report; res is the caller's (cleanup with scrud_result_cleanup).
 */
static err_code scrud_run(scrud_job *j, scrud_result *res, err_info *e)
{
    int values[2 * SCRUD_MAX_UNITS_PER_SIDE];
    size_t n_values;
    dice_source src;
    db_combat *cb = &j->cb;
    json_t *input = NULL, *report = NULL;
    char *md = NULL;
    err_code rc;

    if (j->dice.kind == DICE_SEEDED) {
        dice_init_seeded(&src, j->dice.seed,
                         (const uint8_t *)j->dice.client_seed,
                         j->dice.client_seed_len);
    } else {
        scrud_api_entered_values(&j->plan, values, &n_values);
        dice_init_values(&src, DICE_ENTERED, values, n_values);
    }
    if ((rc = scrud_resolve(&j->plan.in, &src, res, e)) ||
        (rc = dice_check_all_used(&src, e)))
        goto out;
    db_new_id("cbt", cb->id);
    snprintf(cb->campaign_id, DB_ID_MAX, "%s", j->campaign_id);
    snprintf(cb->system, sizeof cb->system, "scrud");
    db_now(cb->created_at);
    snprintf(cb->dice_source, sizeof cb->dice_source, "%s",
             dice_kind_name(j->dice.kind));
    if (j->dice.kind == DICE_SEEDED) {
        snprintf(cb->rng, sizeof cb->rng, RNG_VERSION);
        snprintf(cb->commitment, sizeof cb->commitment, "%s",
                 j->dice.commitment);
        snprintf(cb->server_seed, sizeof cb->server_seed, "%s",
                 j->dice.seed_hex);
        cb->client_seed = j->dice.has_client_seed ? j->dice.client_seed : NULL;
    }
    snprintf(cb->actor_token_id, DB_ID_MAX, "%s", j->token_id);
    cb->note = j->has_note ? j->note : NULL;
    if ((rc = scrud_rolls(&j->plan, &src, cb->dice_source, &j->rolls,
                          &j->n_rolls, e)))
        goto out;
    md = scrud_api_markdown(&j->plan, res,
                            j->dice.kind == DICE_SEEDED
                                ? "seeded (rng v1), the seed is revealed in "
                                  "the report"
                                : "entered by the umpire from a real table "
                                  "(recorded, not verifiable)");
    cb->summary = scrud_api_summary(&j->plan, res);
    input = scrud_api_input_json(&j->plan);
    report = scrud_api_outcome_json(&j->plan, res);
    if (!md || !cb->summary || !input || !report) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    json_object_set_new(report, "id", json_string(cb->id));
    json_object_set_new(report, "system", json_string("scrud"));
    json_object_set_new(report, "campaign_id", str_or_null(cb->campaign_id));
    json_object_set_new(report, "created_at", json_string(cb->created_at));
    json_object_set_new(report, "note", str_or_null(cb->note));
    json_object_set_new(report, "options",
                        scrud_api_options_json(&j->plan.in.options));
    json_object_set_new(report, "dice", dice_json(cb));
    json_object_set_new(report, "summary_markdown", json_string(md));
    cb->input = json_dumps(input, JSON_COMPACT);
    cb->report = json_dumps(report, JSON_COMPACT);
    if (!cb->input || !cb->report)
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    j->report = report;
    report = NULL;
out:
    free(md);
    json_decref(input);
    json_decref(report);
    dice_cleanup(&src);
    return rc;
}

/* Parses what one-off and campaign SCRUD requests share. */
static scrud_job *scrud_job_parse(request *r, bool is_campaign, err_info *e)
{
    static const char *const fields[] = {"sides", "options", "dice", "note",
                                         NULL};
    json_t *body = http_body_object(r), *opts = NULL;
    const char *note = NULL;
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
    if (jv_object_only(body, "", fields, e) || parse_dice(body, &j->dice, e) ||
        jv_object(body, "", "options", false, &opts, e) ||
        jv_string(body, "", "note", false, NOTE_MAX, &note, e) ||
        scrud_api_parse_sides(body, is_campaign,
                              j->dice.kind == DICE_ENTERED, &j->plan, e))
        goto fail;
    if (note) {
        snprintf(j->note, sizeof j->note, "%s", note);
        j->has_note = true;
    }
    /* Options apply over the defaults now, and over the campaign's in the
     * job; checking them here refuses bad ones before any work. */
    if (opts && scrud_api_options(opts, "options", &j->plan.in.options, e))
        goto fail;
    j->options = json_incref(opts);
    json_decref(body);
    return j;
fail:
    json_decref(body);
    reply_problem(r, e);
    return NULL;
}

static void combat_finish(request *r, err_code rc, const err_info *e)
{
    scrud_job *j = r->state;
    json_t *out;

    if (rc != ERR_OK) {
        reply_problem(r, e);
        return;
    }
    out = json_deep_copy(j->report);
    json_object_set_new(out, "rolls", rolls_json(j->rolls, j->n_rolls));
    if (j->campaign_id[0])
        snprintf(r->location, sizeof r->location,
                 "/v1/campaigns/%s/combats/%s", j->campaign_id, j->cb.id);
    else
        snprintf(r->location, sizeof r->location, "/v1/combats/%s", j->cb.id);
    reply_json(r, 201, out);
}

static err_code oneoff_job(sqlite3 *c, void *arg, err_info *e)
{
    scrud_job *j = arg;

    return db_combat_insert(c, &j->cb, j->rolls, j->n_rolls, e);
}

void api_oneoff_scrud(request *r)
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
        reply_problem(r, &e);
        return;
    }
    scrud_result_cleanup(&res);
    http_defer_write(r, oneoff_job, combat_finish);
}

/* Applies the combat's outcome to one campaign unit, with its event. */
static err_code apply_unit(sqlite3 *c, scrud_job *j, const scrud_result *res,
                           int s, int i, err_info *e)
{
    const scrud_unit_result *ur = &res->units[s][i];
    db_unit before, after;
    json_t *units, *result;
    err_code rc;

    if ((rc = db_unit_find(c, j->campaign_id, j->plan.unit_id[s][i], &before,
                           e)))
        return rc;
    after = before;
    after.scrud.defeat_penalty = ur->defeat_penalty;
    after.scrud.fatigue_penalty = ur->fatigue_penalty;
    if (ur->eliminated != SCRUD_ELIM_NONE) {
        after.is_eliminated = true;
        after.scrud.is_eliminated = true;
        snprintf(after.eliminated_reason, DB_REASON_MAX, "%s",
                 scrud_elimination_name(ur->eliminated));
        snprintf(after.eliminated_by, DB_ID_MAX, "%s", j->cb.id);
    }
    if ((rc = db_unit_update(c, &after, e)))
        return rc;
    units = json_object_get(json_array_get(json_object_get(j->report, "sides"),
                                           (size_t)s),
                            "units");
    result = json_deep_copy(json_array_get(units, (size_t)i));
    json_object_set_new(result, "system", json_string("scrud"));
    json_object_set_new(result, "side", json_string(j->plan.side_name[s]));
    return api_unit_event(c, &before, &after, "combat", j->cb.id, j->token_id,
                          j->has_note ? j->note : NULL, result, e);
}

static err_code campaign_scrud_job(sqlite3 *c, void *arg, err_info *e)
{
    scrud_job *j = arg;
    db_campaign cmp;
    scrud_result res;
    err_code rc;
    int s;
    size_t i;

    memset(&res, 0, sizeof res);
    if ((rc = db_campaign_get(c, j->campaign_id, &cmp, e)))
        return rc;
    j->plan.in.options = cmp.scrud;
    if ((j->options &&
         (rc = scrud_api_options(j->options, "options", &j->plan.in.options,
                                 e))) ||
        (rc = scrud_api_bind_units(c, j->campaign_id, &j->plan, e)) ||
        (rc = scrud_run(j, &res, e)) ||
        (rc = db_combat_insert(c, &j->cb, j->rolls, j->n_rolls, e)))
        goto out;
    for (s = 0; s < 2; s++)
        for (i = 0; i < j->plan.in.sides[s].n_units; i++)
            if ((rc = apply_unit(c, j, &res, s, (int)i, e)))
                goto out;
out:
    scrud_result_cleanup(&res);
    return rc;
}

void api_campaign_scrud(request *r)
{
    scrud_job *j;
    err_info e;

    err_clear(&e);
    if ((j = scrud_job_parse(r, true, &e)) == NULL)
        return;
    snprintf(j->campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(j->token_id, DB_ID_MAX, "%s", r->token.id);
    http_defer_write(r, campaign_scrud_job, combat_finish);
}

/* ---- reading and replaying ---- */

/* Loads a combat and its rolls; one-off only when campaign_id is NULL. */
static err_code load_combat(request *r, const char *campaign_id,
                            const char *combat_id, db_combat *cb,
                            db_roll **rolls, size_t *n, err_info *e)
{
    db *d = server_db(r->srv);
    sqlite3 *c = db_read_acquire(d);
    err_code rc;

    *rolls = NULL;
    *n = 0;
    rc = db_combat_get(c, combat_id, cb, e);
    if (rc == ERR_OK && strcmp(cb->campaign_id, campaign_id ? campaign_id : "")) {
        db_combat_cleanup(cb);
        err_clear(e);
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no combat %s here", combat_id);
    }
    if (rc == ERR_OK)
        rc = db_rolls_list(c, combat_id, rolls, n, e);
    db_read_release(d, c);
    return rc;
}

static void reply_combat(request *r, const char *campaign_id)
{
    const char *id = r->params[campaign_id ? 1 : 0];
    db_combat cb;
    db_roll *rolls;
    size_t n;
    json_t *report;
    err_info e;

    err_clear(&e);
    memset(&cb, 0, sizeof cb);
    if (load_combat(r, campaign_id, id, &cb, &rolls, &n, &e)) {
        reply_problem(r, &e);
        return;
    }
    report = json_loads(cb.report, 0, NULL);
    if (report == NULL) {
        err_set(&e, ERR_INTERNAL, NULL, "the stored report of %s is malformed",
                id);
        reply_problem(r, &e);
    } else {
        json_object_set_new(report, "rolls", rolls_json(rolls, n));
        reply_json(r, 200, report);
    }
    free(rolls);
    db_combat_cleanup(&cb);
}

void api_oneoff_combat_get(request *r)
{
    reply_combat(r, NULL);
}

void api_campaign_combat_get(request *r)
{
    reply_combat(r, r->params[0]);
}

void api_campaign_combats_list(request *r)
{
    db *d = server_db(r->srv);
    sqlite3 *c = db_read_acquire(d);
    db_combat *cbs = NULL;
    size_t n = 0, i;
    json_t *items;
    err_info e;

    err_clear(&e);
    if (db_combats_list(c, r->params[0], &cbs, &n, &e)) {
        db_read_release(d, c);
        reply_problem(r, &e);
        return;
    }
    db_read_release(d, c);
    items = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(
            items, json_pack("{s:s, s:s, s:s, s:o, s:s, s:s}", "id", cbs[i].id,
                             "system", cbs[i].system, "created_at",
                             cbs[i].created_at, "note",
                             str_or_null(cbs[i].note), "dice_source",
                             cbs[i].dice_source, "summary",
                             cbs[i].summary ? cbs[i].summary : ""));
    db_combats_free(cbs, n);
    reply_json(r, 200, json_pack("{s:o}", "items", items));
}

/* Adds a difference, with printf formatting. */
static void differ(json_t *diffs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void differ(json_t *diffs, const char *fmt, ...)
{
    char line[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    json_array_append_new(diffs, json_string(line));
}

/* SCRUD replay: the stored input and logged naturals through core again. */
static err_code scrud_replay(const db_combat *cb, const db_roll *rolls,
                             size_t n, json_t *diffs, err_info *e)
{
    static const char *const parts[] = {"sides", "pairs", "extra"};
    scrud_plan *plan = calloc(1, sizeof *plan);
    int *values = calloc(n ? n : 1, sizeof *values);
    json_t *input = json_loads(cb->input, 0, NULL);
    json_t *stored = json_loads(cb->report, 0, NULL), *outcome = NULL;
    scrud_result res;
    dice_source src;
    size_t i;
    err_code rc;

    memset(&res, 0, sizeof res);
    dice_init_values(&src, DICE_REPLAY, values, 0);
    if (!plan || !values || !input || !stored) {
        rc = err_set(e, ERR_INTERNAL, NULL, "cannot read the stored combat");
        goto out;
    }
    for (i = 0; i < n; i++)
        values[i] = rolls[i].natural;
    dice_init_values(&src, DICE_REPLAY, values, n);
    if ((rc = scrud_api_parse_input(input, plan, e)))
        goto out;
    if (scrud_resolve(&plan->in, &src, &res, NULL) != ERR_OK ||
        dice_check_all_used(&src, NULL) != ERR_OK) {
        differ(diffs, "the logged dice do not fit the combat (%zu dice)", n);
        goto out;
    }
    for (i = 0; i < src.n_log; i++) {
        if (src.log[i].faces != rolls[i].faces)
            differ(diffs, "roll %zu: a d%d now, a d%d in the log", i + 1,
                   src.log[i].faces, rolls[i].faces);
        if (src.log[i].modified != rolls[i].modified)
            differ(diffs, "roll %zu: modified %d now, %d in the log", i + 1,
                   src.log[i].modified, rolls[i].modified);
    }
    outcome = scrud_api_outcome_json(plan, &res);
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!json_equal(json_object_get(outcome, parts[i]),
                        json_object_get(stored, parts[i])))
            differ(diffs, "the %s differ from the stored report", parts[i]);
out:
    scrud_result_cleanup(&res);
    dice_cleanup(&src);
    json_decref(outcome);
    json_decref(input);
    json_decref(stored);
    free(values);
    free(plan);
    return rc;
}

/* One replay function per system, by name. */
static const struct {
    const char *system;
    err_code (*replay)(const db_combat *cb, const db_roll *rolls, size_t n,
                       json_t *diffs, err_info *e);
} replayers[] = {
    {"scrud", scrud_replay},
};

static void replay(request *r, const char *campaign_id)
{
    const char *id = r->params[campaign_id ? 1 : 0];
    db_combat cb;
    db_roll *rolls;
    size_t n, i;
    json_t *diffs;
    err_info e;
    err_code rc = ERR_INTERNAL;

    err_clear(&e);
    memset(&cb, 0, sizeof cb);
    if (load_combat(r, campaign_id, id, &cb, &rolls, &n, &e)) {
        reply_problem(r, &e);
        return;
    }
    diffs = json_array();
    for (i = 0; i < sizeof replayers / sizeof replayers[0]; i++)
        if (strcmp(replayers[i].system, cb.system) == 0)
            rc = replayers[i].replay(&cb, rolls, n, diffs, &e);
    if (rc != ERR_OK) {
        if (e.code == ERR_OK)
            err_set(&e, ERR_INTERNAL, NULL, "no replay for the system %s",
                    cb.system);
        reply_problem(r, &e);
        json_decref(diffs);
    } else {
        reply_json(r, 200,
                   json_pack("{s:s, s:s, s:i, s:b, s:o}", "combat_id", cb.id,
                             "system", cb.system, "n_rolls", (int)n,
                             "reproduced", json_array_size(diffs) == 0,
                             "differences", diffs));
    }
    free(rolls);
    db_combat_cleanup(&cb);
}

void api_oneoff_combat_replay(request *r)
{
    replay(r, NULL);
}

void api_campaign_combat_replay(request *r)
{
    replay(r, r->params[0]);
}
