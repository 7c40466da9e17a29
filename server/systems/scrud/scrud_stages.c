/*
 * scrud_stages.c: SCRUD combats (docs/rules/scrud.md) through the table of
 * systems: the request read into a plan, the campaign's units bound, the
 * rules run with the combat's dice, each unit's penalties and elimination
 * applied, replay; see systems.h.  The JSON is in scrud_json.c, the
 * report's Markdown and HTML in scrud_report.c.
 */
#include "scrud_report.h"
#include "systems.h"
#include "combat.h"
#include "fog.h"
#include "jsonv.h"
#include "jsonw.h"
#include "text.h"
#include "registry.h"
#include "scrud_json.h"
#include "scrud_odds.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

static void scrud_job_free(void *p)
{
    scrud_job *j = p;

    if (j == NULL)
        return;
    json_decref(j->options);
    scrud_result_cleanup(&j->res);
    combat_record_cleanup(&j->rec);
    free(j);
}

/* reset: the outcome dropped, the job as bound. */
static void reset(void *job)
{
    scrud_job *j = job;

    scrud_result_cleanup(&j->res);
    memset(&j->res, 0, sizeof j->res);
    combat_record_unstage(&j->rec);
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

/* The report of cb (its head and dice: its row) fought as plan with
 * the outcome res, as stored and served before its rolls: new, or NULL
 * when out of memory.  Each unit's entry's span into spans (NULL: not
 * wanted).  The same text whether at the combat (run) or rendered again
 * from its facts (render_facts). */
static char *report_text(const db_combat *cb, const scrud_plan *plan,
                         const scrud_result *res, scrud_spans *spans)
{
    char *md =
        scrud_json_markdown(plan, res, combat_dice_note_of(cb->dice_source));
    char *text;
    jw w;

    jw_init(&w);
    jw_object(&w);
    combat_report_head(&w, cb);
    jw_key(&w, "options");
    scrud_json_options_write(&w, &plan->in.options);
    jw_key(&w, "dice");
    combat_dice_write(&w, cb);
    scrud_json_outcome_write(&w, plan, res, spans);
    jw_kstring(&w, "summary_markdown", md ? md : "");
    jw_object_end(&w);
    text = jw_take(&w, NULL);
    if (md == NULL) {
        free(text);
        text = NULL;
    }
    free(md);
    return text;
}

/* run: resolves j->plan with j->rec.dice into j->res, and fills the
 * combat row, its rolls and the report, and its facts, which are stored
 * rather than the report (db.h). */
static err_code run(void *job, err_info *e)
{
    scrud_job *j = job;
    scrud_result *res = &j->res;
    int values[2 * SCRUD_MAX_UNITS_PER_SIDE];
    size_t n_values;
    dice_source src;
    db_combat *cb = &j->rec.cb;
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
    cb->summary = scrud_json_summary(&j->plan, res);
    cb->report = report_text(cb, &j->plan, res, &j->spans);
    if (!cb->summary || !cb->report ||
        !scrud_facts_write(&j->plan, j->rec.rolls, j->rec.n_rolls, cb))
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
out:
    dice_cleanup(&src);
    return rc;
}

/* A combat stored as its facts, resolved again: cb's facts into *plan
 * (new; free() it, also on failure) with the naturals they recorded into
 * dice (SCRUD_FACTS_DICE_MAX), *n_dice of them, and with those dice the
 * outcome into res (scrud_result_cleanup it, also on failure). */
static err_code resolve_facts(const db_combat *cb, scrud_plan **plan, int *dice,
                              size_t *n_dice, scrud_result *res, err_info *e)
{
    dice_source src;
    err_code rc;

    memset(res, 0, sizeof *res);
    *n_dice = 0;
    if ((*plan = malloc(sizeof **plan)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if ((rc = scrud_facts_read(cb, *plan, dice, n_dice, e)))
        return rc;
    dice_init_values(&src, DICE_REPLAY, dice, *n_dice);
    if ((rc = scrud_resolve(&(*plan)->in, &src, res, e)) == ERR_OK)
        rc = dice_check_all_used(&src, e);
    dice_cleanup(&src);
    return rc;
}

/* render_facts: the report again, from cb's facts (its input and the
 * dice it drew), as run rendered it. */
static err_code render_facts(db_combat *cb, err_info *e)
{
    int dice[SCRUD_FACTS_DICE_MAX];
    size_t n_dice;
    scrud_plan *plan = NULL;
    scrud_result res;
    err_code rc = resolve_facts(cb, &plan, dice, &n_dice, &res, e);

    if (rc == ERR_OK) {
        free(cb->report);
        if ((cb->report = report_text(cb, plan, &res, NULL)) == NULL)
            rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    scrud_result_cleanup(&res);
    free(plan);
    return rc;
}

/* check_facts: for replay, the dice the facts recorded against the n
 * logged rolls (their number, each natural), and the one-line summary
 * they give against the one stored with the combat.  (The report,
 * rendered from the facts, is replayed from the log as a stored report
 * is: scrud_stages.c's replay.) */
static void check_facts(const db_combat *cb, const db_roll *rolls, size_t n,
                        json_t *diffs)
{
    int dice[SCRUD_FACTS_DICE_MAX];
    size_t n_dice, i;
    scrud_plan *plan = NULL;
    scrud_result res;
    char *summary = NULL;
    err_info e;

    err_clear(&e);
    if (resolve_facts(cb, &plan, dice, &n_dice, &res, &e) != ERR_OK) {
        combat_differ(diffs, "the stored facts do not resolve: %s", e.message);
    } else {
        if (n_dice != n)
            combat_differ(diffs, "the log holds %zu dice, the combat drew %zu",
                          n, n_dice);
        for (i = 0; i < n && i < n_dice; i++)
            if (rolls[i].natural != dice[i])
                combat_differ(diffs,
                              "roll %zu: natural %d in the log, %d at the "
                              "combat",
                              i + 1, rolls[i].natural, dice[i]);
        summary = scrud_json_summary(plan, &res);
        if (summary == NULL || cb->summary == NULL ||
            strcmp(summary, cb->summary) != 0)
            combat_differ(diffs,
                          "the stored facts give the summary \"%s\", not "
                          "the one stored with the combat",
                          summary ? summary : "");
    }
    free(summary);
    scrud_result_cleanup(&res);
    free(plan);
}

/* A combat's facts resolved, kept for its units' results (results_facts). */
typedef struct facts_kept {
    scrud_plan *plan;
    scrud_result res;
} facts_kept;

static void facts_kept_free(void *v)
{
    facts_kept *k = v;

    scrud_result_cleanup(&k->res);
    free(k->plan);
    free(k);
}

/* The i-th campaign unit's result (of those with an id, side by side):
 * its entry of the report with its system and side, as apply gave its
 * event, written from the facts' outcome without the rest of the
 * report. */
static char *result_facts(void *v, size_t i)
{
    const facts_kept *k = v;
    size_t u;
    int s;

    for (s = 0; s < 2; s++)
        for (u = 0; u < k->plan->in.sides[s].n_units; u++)
            if (k->plan->unit_id[s][u][0] && i-- == 0)
                return scrud_json_unit_result_text(k->plan, &k->res, s, (int)u);
    return NULL;
}

/* results_facts: the facts resolved once, and each campaign unit's
 * result rendered from them when it is asked (result_facts): a unit's
 * history page asks one of each combat. */
static err_code results_facts(const db_combat *cb, combat_results *out,
                              err_info *e)
{
    int dice[SCRUD_FACTS_DICE_MAX];
    size_t n_dice, i;
    facts_kept *k = malloc(sizeof *k);
    err_code rc;
    int s;

    if (k == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    k->plan = NULL;
    if ((rc = resolve_facts(cb, &k->plan, dice, &n_dice, &k->res, e))) {
        facts_kept_free(k);
        return rc;
    }
    combat_results_keep(out, k, result_facts, facts_kept_free);
    for (s = 0; s < 2 && rc == ERR_OK; s++)
        for (i = 0; i < k->plan->in.sides[s].n_units && rc == ERR_OK; i++)
            if (k->plan->unit_id[s][i][0] &&
                !combat_results_add(out, k->plan->unit_id[s][i]))
                rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    return rc;
}

static void *job_new(const json_t *body, err_info *e)
{
    scrud_job *j = malloc(sizeof *j);

    (void)body;
    if (j == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    /* All but the rows of units, which parse_unit clears one by one. */
    memset(j, 0, offsetof(scrud_job, plan.units));
    scrud_options_default(&j->plan.in.options);
    return j;
}

/* read: the sides and the options; a one-off's options apply over the
 * defaults now, a campaign combat's over the campaign's, in bind. */
static err_code read_request(void *job, const json_t *body, bool is_campaign,
                             err_info *e)
{
    static const char *const fields[] = {"sides", "options", "dice", "note",
                                         NULL};
    scrud_job *j = job;
    json_t *opts = NULL;
    err_code rc;

    if ((rc = jv_object_only(body, "", fields, e)) ||
        (rc = combat_parse_record(body, &j->rec, e)) ||
        (rc = jv_object(body, "", "options", false, &opts, e)) ||
        (rc = scrud_json_parse_sides(
             body, is_campaign, j->rec.dice.kind == DICE_ENTERED, &j->plan, e)))
        return rc;
    j->options = json_incref(opts);
    return ERR_OK;
}

static err_code check(void *job, err_info *e)
{
    scrud_job *j = job;

    return j->options ? scrud_json_options(j->options, "options",
                                           &j->plan.in.options, e)
                      : ERR_OK;
}

/* bind: the campaign's options under the request's, and its units. */
static err_code bind_campaign(db_conn *c, void *job, const db_campaign *cmp,
                              err_info *e)
{
    scrud_job *j = job;
    err_code rc;

    j->plan.in.options = cmp->scrud;
    if ((rc = check(job, e)))
        return rc;
    return scrud_json_bind_units(c, j->rec.campaign_id, &j->plan, &j->rec, e);
}

/* Applies the combat's outcome to one campaign unit, with its event. */
static err_code apply_unit(db_conn *c, scrud_job *j, const scrud_result *res,
                           int s, int i, err_info *e)
{
    const scrud_unit_result *ur = &res->units[s][i];
    db_unit before, after;
    char *result;
    err_code rc;

    if ((rc =
             combat_unit_before(c, &j->rec, j->plan.unit_id[s][i], &before, e)))
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
    /* A unit the combat left as it was (no penalty kept, not eliminated)
     * has nothing to write; its history event is recorded all the same.
     * (A difference in padding alone only costs a needless write.) */
    if (memcmp(&after, &before, sizeof after) != 0 &&
        (rc = combat_unit_update(c, &j->rec, &after, e)))
        return rc;
    /* The unit's result, its entry of the report, for its history. */
    if ((result = scrud_json_unit_result(j->rec.cb.report, &j->spans, &j->plan,
                                         s, i)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    return combat_unit_event_text(c, &j->rec, &before, &after, result, e);
}

/* apply: every unit's penalties and elimination, with its event. */
static err_code apply(db_conn *c, void *job, err_info *e)
{
    scrud_job *j = job;
    err_code rc;
    int s;
    size_t i;

    for (s = 0; s < 2; s++)
        for (i = 0; i < j->plan.in.sides[s].n_units; i++)
            if ((rc = apply_unit(c, j, &j->res, s, (int)i, e)))
                return rc;
    return ERR_OK;
}

/* SCRUD replay: the combat as its report records it, and the logged
 * naturals, through core again. */
static bool replay(const json_t *stored, dice_source *src, json_t *diffs)
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

/* unit: quality, faces, penalties and the modifier they make. */
static json_t *unit_json(const db_unit *u)
{
    const scrud_unit *s = &u->scrud;

    if (!u->has_scrud)
        return NULL;
    return json_pack("{s:i, s:i, s:i, s:i, s:i}", "quality", s->quality,
                     "faces", s->faces, "defeat_penalty", s->defeat_penalty,
                     "fatigue_penalty", s->fatigue_penalty, "modifier",
                     scrud_unit_modifier(s));
}

/* options: the campaign's SCRUD options (scrud.md, "Options"). */
static void options_default(db_campaign *cmp)
{
    scrud_options_default(&cmp->scrud);
}

static err_code options_read(const json_t *obj, const char *path,
                             db_campaign *cmp, err_info *e)
{
    return scrud_json_options(obj, path, &cmp->scrud, e);
}

static json_t *options_json(const db_campaign *cmp)
{
    return scrud_json_options_json(&cmp->scrud);
}

/* fog: each side's units reduced to what the viewer sees of that side
 * (fog.h); the fight itself (lined up, pairs, extra dice, eliminations)
 * stays, with the hidden units' names nulled. */
static void fog(fog_pass *p, json_t *doc)
{
    json_t *sides = json_object_get(doc, "sides"), *sd;
    size_t i;

    json_array_foreach(sides, i, sd)
    {
        const char *id = json_string_value(json_object_get(sd, "side_id"));
        fog_level level =
            id ? fog_of_side(p->v, id)
               : fog_of_side_name(
                     p->v, json_string_value(json_object_get(sd, "name")));
        fog_entries_at(p, json_object_get(sd, "units"), level);
    }
    fog_scrub(p, sides);
    fog_scrub(p, json_object_get(doc, "pairs"));
    fog_scrub(p, json_object_get(doc, "extra"));
}

/* fog_summary: "red vs blue: 1 and 2 defeats; eliminated: A, B" names the
 * units eliminated, which a viewer that sees other sides' units hidden
 * may not read: it gets the defeats alone. */
static char *summary_fog(const fog_view *v, const char *summary)
{
    const char *cut = strstr(summary, "; eliminated: ");

    if (v->others != FOG_HIDDEN || cut == NULL)
        return strdup(summary);
    return strndup(summary, (size_t)(cut - summary));
}

const systems_entry scrud_stages = {
    .rules = &scrud_system,
    .job_new = job_new,
    .job_free = scrud_job_free,
    .read = read_request,
    .check = check,
    .bind = bind_campaign,
    .run = run,
    .apply = apply,
    .reset = reset,
    .replay = replay,
    .render_facts = render_facts,
    .check_facts = check_facts,
    .results_facts = results_facts,
    .render = scrud_report_render,
    .unit_json = unit_json,
    .options_default = options_default,
    .options_read = options_read,
    .options_json = options_json,
    .odds = scrud_odds_answer,
    .fog = fog,
    .fog_summary = summary_fog,
};
