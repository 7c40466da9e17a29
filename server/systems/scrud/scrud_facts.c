/*
 * scrud_facts.c: a SCRUD combat's facts (db.h, "a combat's facts"): the
 * input as the rules took it and the dice it drew, which its report is
 * rendered from again (scrud_stages.c, render_facts).
 *
 * The layout, each integer and string as db_facts writes them:
 *
 *   the layout's number, 1;
 *   the options: cap_kind, cap, has_floor, floor, extra_dice, attrition,
 *     max_penalty_per_combat, eliminate_below, defeats_per_elimination;
 *   each side, first then second: its name, side_id ("" one-off) and
 *     modifier, its number of units, then each unit in the order of the
 *     request: its name, unit_id ("" one-off), quality, faces, combat
 *     modifier, reserve (0 or 1), defeat and fatigue penalties before;
 *   the number of dice drawn, then each one's natural in the order drawn
 *     (the roll log holds them too: replay compares the two, and the
 *     report rendered from these with what the log gives, as it compared
 *     a stored report).
 *
 * Read back, every value is checked against what a request may hold, and
 * the whole against the rules (scrud_validate), as a request is.
 */
#include "scrud_json.h"
#include "rng.h"

#include <limits.h>
#include <string.h>

enum { SCRUD_FACTS_V1 = 1 };

bool scrud_facts_write(const scrud_plan *plan, const db_roll *rolls,
                       size_t n_rolls, db_combat *cb)
{
    const scrud_options *o = &plan->in.options;
    db_facts f;
    size_t i;
    int s;

    memset(&f, 0, sizeof f);
    db_facts_int(&f, SCRUD_FACTS_V1);
    db_facts_int(&f, o->cap_kind);
    db_facts_int(&f, o->cap);
    db_facts_int(&f, o->has_floor);
    db_facts_int(&f, o->floor);
    db_facts_int(&f, o->extra_dice);
    db_facts_int(&f, o->attrition);
    db_facts_int(&f, o->max_penalty_per_combat);
    db_facts_int(&f, o->eliminate_below);
    db_facts_int(&f, o->defeats_per_elimination);
    for (s = 0; s < 2; s++) {
        const scrud_side *side = &plan->in.sides[s];
        db_facts_str(&f, plan->side_name[s]);
        db_facts_str(&f, plan->side_id[s]);
        db_facts_int(&f, side->modifier);
        db_facts_int(&f, (long long)side->n_units);
        for (i = 0; i < side->n_units; i++) {
            const scrud_unit *u = &plan->units[s][i];
            db_facts_str(&f, plan->unit_name[s][i]);
            db_facts_str(&f, plan->unit_id[s][i]);
            db_facts_int(&f, u->quality);
            db_facts_int(&f, u->faces);
            db_facts_int(&f, u->modifier);
            db_facts_int(&f, u->is_reserve);
            db_facts_int(&f, u->defeat_penalty);
            db_facts_int(&f, u->fatigue_penalty);
        }
    }
    db_facts_int(&f, (long long)n_rolls);
    for (i = 0; i < n_rolls; i++)
        db_facts_int(&f, rolls[i].natural);
    return db_facts_done(&f, cb);
}

/* The next fact, an integer of any int's value. */
static int any_int(db_facts_reader *r)
{
    return db_facts_get_int(r, INT_MIN, INT_MAX);
}

err_code scrud_facts_read(const db_combat *cb, scrud_plan *plan, int *dice,
                          size_t *n_dice, err_info *e)
{
    scrud_options *o = &plan->in.options;
    db_facts_reader r;
    size_t i;
    int s;

    memset(plan, 0, offsetof(scrud_plan, units));
    db_facts_read(&r, cb);
    if (db_facts_get_int(&r, SCRUD_FACTS_V1, SCRUD_FACTS_V1) != SCRUD_FACTS_V1)
        r.is_bad = true;
    o->cap_kind =
        (scrud_cap_kind)db_facts_get_int(&r, SCRUD_CAP_FACES, SCRUD_CAP_NONE);
    o->cap = any_int(&r);
    o->has_floor = db_facts_get_int(&r, 0, 1);
    o->floor = any_int(&r);
    o->extra_dice = (scrud_extra_rule)db_facts_get_int(
        &r, SCRUD_EXTRA_BEAT_LOWEST, SCRUD_EXTRA_HALF);
    o->attrition = db_facts_get_int(&r, 0, 1);
    o->max_penalty_per_combat = any_int(&r);
    o->eliminate_below = any_int(&r);
    o->defeats_per_elimination = any_int(&r);
    for (s = 0; s < 2 && !r.is_bad; s++) {
        scrud_side *side = &plan->in.sides[s];
        db_facts_get_str(&r, plan->side_name[s], DB_NAME_MAX);
        db_facts_get_str(&r, plan->side_id[s], DB_ID_MAX);
        side->modifier = any_int(&r);
        side->n_units =
            (size_t)db_facts_get_int(&r, 0, SCRUD_MAX_UNITS_PER_SIDE);
        side->units = plan->units[s];
        for (i = 0; i < side->n_units && !r.is_bad; i++) {
            scrud_unit *u = &plan->units[s][i];
            memset(u, 0, sizeof *u);
            db_facts_get_str(&r, plan->unit_name[s][i], DB_NAME_MAX);
            db_facts_get_str(&r, plan->unit_id[s][i], DB_ID_MAX);
            u->quality = any_int(&r);
            u->faces = any_int(&r);
            u->modifier = any_int(&r);
            u->is_reserve = db_facts_get_int(&r, 0, 1);
            u->defeat_penalty = any_int(&r);
            u->fatigue_penalty = any_int(&r);
        }
    }
    *n_dice = (size_t)db_facts_get_int(&r, 0, SCRUD_FACTS_DICE_MAX);
    for (i = 0; i < *n_dice && !r.is_bad; i++)
        dice[i] = db_facts_get_int(&r, 1, RNG_FACES_MAX);
    if (!db_facts_end(&r))
        return err_set(e, ERR_INTERNAL, NULL,
                       "its facts do not read as a SCRUD combat's");
    return scrud_validate(&plan->in, e);
}
