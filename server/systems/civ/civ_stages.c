/*
 * civ_stages.c: Civilization advanced combat (docs/rules/civ.md) through
 * the table of systems: the one-off battle, fought to its end in one
 * request with standing orders and a phase limit, and the replay of any
 * Civilization battle's record; see systems.h.  Battles fought phase by
 * phase in a campaign are in civ_campaign.c, the JSON in civ_json.c, the
 * report's Markdown and HTML in civ_report.c.
 */
#include "civ_report.h"
#include "systems.h"
#include "civ_json.h"
#include "civ_odds.h"
#include "combat.h"
#include "fog.h"
#include "jsonv.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PHASES 50

/* ---- one-off battles ---- */

static err_code parse_rolls(const json_t *body, civ_job *j, err_info *e)
{
    json_t *rolls = NULL;
    char f[JV_PATH_MAX];
    size_t k, max = (size_t)j->max_phases * 2 * 2 * CIV_MAX_UNITS;
    err_code rc;

    if ((rc = jv_array(body, "", "rolls", false, 1, max, &rolls, e)) ||
        rolls == NULL) {
        if (rc == ERR_OK && j->rec.dice.kind == DICE_ENTERED)
            rc = err_set(e, ERR_MISSING, "rolls",
                         "entered dice: give the \"rolls\", every die in the "
                         "order thrown");
        return rc;
    }
    if (j->rec.dice.kind != DICE_ENTERED)
        return err_set(e, ERR_INVALID, "rolls",
                       "the dice are seeded: give \"rolls\" only with "
                       "dice.source \"entered\"");
    for (k = 0; k < json_array_size(rolls); k++) {
        json_t *v = json_array_get(rolls, k);
        jv_index(f, "rolls", k);
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > 6)
            return err_set(e, ERR_RANGE, f, "a d6: 1 to 6");
        j->entered[k] = (int)json_integer_value(v);
    }
    j->n_entered = (int)json_array_size(rolls);
    return ERR_OK;
}

/* The one-off's input: the setup with its standing orders. */
static json_t *plan_json(const civ_job *j)
{
    json_t *doc = civ_json_setup_json(j);
    int a;

    for (a = 0; a < 2; a++) {
        json_t *army = json_object_get(doc, civ_json_army_key[a]);
        const civ_orders *o = &j->plan[a];
        json_t *pref = json_array(), *cas = json_array();
        int k;
        for (k = 0; k < o->n_preference; k++)
            json_array_append_new(
                pref, json_string(j->unit_name[a][o->preference[k]]));
        for (k = 0; k < o->n_casualties; k++)
            json_array_append_new(
                cas, json_string(j->unit_name[a][o->casualties[k]]));
        json_object_set_new(army, "wave_preference", pref);
        json_object_set_new(army, "casualty_order", cas);
        json_object_set_new(
            army, "aircraft_support",
            o->support >= 0 ? json_string(civ_class_name((civ_class)o->support))
                            : json_null());
    }
    json_object_set_new(doc, "max_phases", json_integer(j->max_phases));
    return doc;
}

/* A job sized for the request's phase limit. */
static void *job_new(const json_t *body, err_info *e)
{
    int max = DEFAULT_PHASES;
    civ_job *j;

    if (jv_int(body, "", "max_phases", false, 1, CIV_MAX_PHASES, &max, e))
        return NULL;
    if ((j = civ_job_new(max)) == NULL)
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    return j;
}

/* read: the setup, the standing orders and any entered rolls. */
static err_code read_request(void *job, const json_t *body, bool is_campaign,
                             err_info *e)
{
    static const char *const fields[] = {
        "current_era", "settlement", "great_wall", "attacker", "defender",
        "max_phases",  "rolls",      "dice",       "note",     NULL};
    civ_job *j = job;
    err_code rc;

    (void)is_campaign; /* a campaign's battles are civ_campaign.c's */
    if ((rc = jv_object_only(body, "", fields, e)) ||
        (rc = combat_parse_record(body, &j->rec, e)) ||
        (rc = civ_json_parse_setup(body, false, false, j, e)) ||
        (rc = civ_check_setup(&j->setup, e)) ||
        (rc = civ_json_parse_plan(body, j, e)) ||
        (rc = parse_rolls(body, j, e)))
        return rc;
    return ERR_OK;
}

/* A refusal of the plan, named as the request named it. */
static void plan_field(const civ_job *j, err_info *e)
{
    char *c = strstr(e->field, ".casualties");

    if (c != NULL) { /* the plan calls it casualty_order */
        char f[ERR_FIELD_MAX];
        snprintf(f, sizeof f, "%.*s.casualty_order%s", (int)(c - e->field),
                 e->field, c + strlen(".casualties"));
        text_copy(e->field, sizeof e->field, f);
    }
    if (e->code == ERR_DICE && j->rec.dice.kind == DICE_ENTERED) {
        err_clear(e);
        err_set(e, ERR_RANGE, "rolls",
                "the entered rolls ran out in phase %d: %d given",
                j->n_phases + 1, j->n_entered);
    }
}

/* run: the battle fought to its end (or the phase limit) with its dice,
 * and its record. */
static err_code run(void *job, err_info *e)
{
    civ_job *j = job;
    dice_source src;
    err_code rc;

    combat_dice_init(&j->rec, &src, j->entered, (size_t)j->n_entered);
    if ((rc = civ_json_fight_plan(j, &src, e))) {
        plan_field(j, e);
        rc = e->code;
    } else if (dice_check_all_used(&src, NULL)) {
        rc = err_set(e, ERR_RANGE, "rolls",
                     "the battle used %zu of the %d rolls given", src.n_log,
                     j->n_entered);
    } else {
        rc = civ_json_record(j, &src, NULL, plan_json(j), e);
    }
    dice_cleanup(&src);
    return rc;
}

/* ---- replay ---- */

static bool replay(const json_t *stored, dice_source *src, json_t *diffs)
{
    static const char *const parts[] = {"phases", "over", "unresolved",
                                        "winner", "survivors"};
    const json_t *input = json_object_get(stored, "input");
    const json_t *setup = json_object_get(input, "setup");
    const json_t *phases = json_object_get(input, "phases");
    civ_job *j = civ_job_new(CIV_MAX_PHASES);
    json_t *again = json_object();
    bool is_resolved = false;
    size_t i;
    err_info e;

    err_clear(&e);
    if (j == NULL) {
        combat_differ(diffs, "out of memory");
        goto out;
    }
    if (setup == NULL) /* a one-off: the plan is the input */
        setup = input;
    if (civ_json_parse_setup(setup, false, true, j, &e) ||
        civ_check_setup(&j->setup, &e)) {
        combat_differ(diffs, "the stored input cannot be read: %s", e.message);
        goto out;
    }
    if (phases == NULL) {
        json_t *plan = json_deep_copy(input);
        if (civ_json_parse_plan(plan, j, &e)) {
            json_decref(plan);
            combat_differ(diffs, "the stored plan cannot be read: %s",
                          e.message);
            goto out;
        }
        json_decref(plan);
        j->max_phases =
            (int)json_integer_value(json_object_get(input, "max_phases"));
        if (j->max_phases < 1 || j->max_phases > CIV_MAX_PHASES ||
            civ_json_fight_plan(j, src, &e)) {
            combat_differ(diffs, "the battle does not replay: %s", e.message);
            goto out;
        }
    } else {
        if (civ_battle_init(&j->battle, &j->setup, &e)) {
            combat_differ(diffs, "the stored setup breaks the rules: %s",
                          e.message);
            goto out;
        }
        for (i = 0; i < json_array_size(phases); i++) {
            civ_orders o[2];
            if (civ_json_parse_orders(json_array_get(phases, i), "", j, o,
                                      &e) ||
                civ_json_fight(j, o, src, &e)) {
                combat_differ(diffs, "phase %zu does not replay: %s", i + 1,
                              e.message);
                goto out;
            }
        }
    }
    is_resolved = true;
    civ_json_outcome_json(j, src, again);
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!json_equal(json_object_get(again, parts[i]),
                        json_object_get(stored, parts[i])))
            combat_differ(diffs, "the %s differ from the stored report",
                          parts[i]);
out:
    json_decref(again);
    civ_job_free(j);
    return is_resolved;
}

/* unit: its class, era, bonus and dice multiplier. */
static json_t *unit_json(const db_unit *u)
{
    return u->has_civ ? civ_json_unit_json(&u->civ) : NULL;
}

/* fog: each army's pieces reduced to what the viewer sees of its side
 * (fog.h), in a battle's setup or its record's "input"; the phases
 * (waves, dice, totals, pieces destroyed) and the survivors stay, the
 * hidden pieces' names nulled. */
static void fog(fog_pass *p, json_t *doc)
{
    json_t *input = json_object_get(doc, "input");

    fog_armies(p, json_object_get(doc, "setup"));
    fog_armies(p, json_object_get(input, "setup"));
    fog_scrub(p, json_object_get(doc, "setup"));
    fog_scrub(p, input);
    fog_scrub(p, json_object_get(doc, "phases"));
    fog_scrub(p, json_object_get(doc, "survivors"));
    fog_scrub(p, json_object_get(doc, "next_wave"));
}

const systems_entry civ_stages = {
    .rules = &civ_system,
    .job_new = job_new,
    .job_free = civ_job_free,
    .read = read_request,
    .run = run,
    .replay = replay,
    .render = civ_report_render,
    .unit_json = unit_json,
    .battle = &civ_campaign_battles,
    .odds = civ_odds_answer,
    .fog = fog,
};
