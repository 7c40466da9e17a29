/*
 * scs.c: SCS odds combat, step by step as docs/rules/scs.md numbers the
 * procedure: counters, the checks made before any die, then the combat.
 * Fractions, odds and tables are in scs_table.c.
 */
#include "scs.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- counters ---- */

const scs_printed *scs_counter_shown(const scs_counter *c)
{
    return c->steps_lost > 0 && c->has_reduced ? &c->reduced : &c->full;
}

static err_code check_printed(const scs_printed *p, const char *path,
                              err_info *e)
{
    char f[ERR_FIELD_MAX];
    const int *v[3] = {&p->attack, &p->defense, &p->movement};
    static const char *const names[3] = {"attack", "defense", "movement"};
    int i;

    for (i = 0; i < 3; i++) {
        if (i == 0 && !p->has_attack)
            continue;
        if (*v[i] < 0 || *v[i] > SCS_MAX_PRINTED) {
            snprintf(f, sizeof f, "%s%s%s", path, *path ? "." : "", names[i]);
            return err_set(e, ERR_RANGE, f,
                           "a printed value is from 0 to %d, not %d",
                           SCS_MAX_PRINTED, *v[i]);
        }
    }
    return ERR_OK;
}

err_code scs_counter_check(const scs_counter *c, const char *path, err_info *e)
{
    char f[ERR_FIELD_MAX];
    err_code rc;

    snprintf(f, sizeof f, "%s%sreduced", path, *path ? "." : "");
    if ((rc = check_printed(&c->full, path, e)) ||
        (c->has_reduced && (rc = check_printed(&c->reduced, f, e))))
        return rc;
    if (c->steps == 1 && c->has_reduced)
        return err_set(e, ERR_INVALID, f,
                       "a unit of one step is printed on one side only: it "
                       "has no reduced side");
    if (c->steps > 1 && c->steps_lost > 0 && !c->has_reduced)
        return err_set(e, ERR_MISSING, f,
                       "a unit that lost a step shows its reduced side: give "
                       "its printed values");
    snprintf(f, sizeof f, "%s%ssteps", path, *path ? "." : "");
    if (c->steps < 1 || c->steps > SCS_MAX_STEPS)
        return err_set(e, ERR_RANGE, f, "steps are from 1 to %d, not %d",
                       SCS_MAX_STEPS, c->steps);
    snprintf(f, sizeof f, "%s%ssteps_lost", path, *path ? "." : "");
    if (c->steps_lost < 0 || c->steps_lost > c->steps)
        return err_set(e, ERR_RANGE, f,
                       "steps lost are from 0 to its %d steps, not %d",
                       c->steps, c->steps_lost);
    return ERR_OK;
}

/* "Counters": resupply clears out_of_supply; steps lost stay lost. */
void scs_counter_resupply(scs_counter *c)
{
    c->is_out_of_supply = false;
}

void scs_options_default(scs_options *o)
{
    o->out_of_supply_attack = scs_frac_int(1);
    o->out_of_supply_defense = scs_frac_int(1);
}

/* ---- the combat ---- */

static const char *const side_units[2] = {"attackers", "defenders"};
static const char *const side_alloc[2] = {"attacker_allocation",
                                          "defender_allocation"};
static const char *const side_retreat[2] = {"attacker_retreat",
                                            "defender_retreat"};

const char *scs_loss_cause_name(scs_loss_cause c)
{
    switch (c) {
    case SCS_LOSS_TABLE: return "table";
    case SCS_LOSS_OFF_TABLE: return "off_table";
    case SCS_LOSS_CONVERSION: return "conversion";
    case SCS_LOSS_EZOC: return "ezoc";
    case SCS_LOSS_BLOCKED: return "blocked";
    }
    return "table";
}

/* The printed value that makes a unit the side's strongest (8.0a):
 * attack for the attacker, defense for the defender. */
static int strength(const scs_unit *u, int side)
{
    if (side == SCS_DEFENDER)
        return u->defense;
    return u->has_attack ? u->attack : -1;
}

/* Step 1: the unit's printed value times every multiplier. */
static err_code unit_value(const scs_input *in, int side, size_t i,
                           scs_frac *out, err_info *e)
{
    const scs_unit *u = &in->units[side][i];
    scs_frac v = scs_frac_int(side == SCS_ATTACKER ? u->attack : u->defense);
    bool is_ok = true;
    int k;

    for (k = 0; k < u->n_multipliers; k++)
        is_ok = is_ok && scs_frac_mul(v, u->multipliers[k], &v);
    if (u->is_out_of_supply)
        is_ok = is_ok && scs_frac_mul(v,
                                      side == SCS_ATTACKER
                                          ? in->options.out_of_supply_attack
                                          : in->options.out_of_supply_defense,
                                      &v);
    if (!is_ok) {
        char f[ERR_FIELD_MAX];
        snprintf(f, sizeof f, "%s[%zu].multipliers", side_units[side], i);
        return err_set(e, ERR_LIMIT, f,
                       "the multipliers make a fraction too large to keep "
                       "exactly");
    }
    *out = v;
    return ERR_OK;
}

/* Step 1 for both sides: each unit's value and the totals. */
static err_code strengths(const scs_input *in, scs_outcome *out, err_info *e)
{
    int s;
    size_t i;
    err_code rc;

    for (s = 0; s < 2; s++) {
        out->sides[s].total = scs_frac_int(0);
        for (i = 0; i < in->n_units[s]; i++) {
            scs_frac *v = &out->units[s][i].value;
            if ((rc = unit_value(in, s, i, v, e)))
                return rc;
            if (!scs_frac_add(out->sides[s].total, *v, &out->sides[s].total))
                return err_set(e, ERR_LIMIT, side_units[s],
                               "the multipliers make the total too large to "
                               "keep exactly");
        }
    }
    return ERR_OK;
}

/* Units still able to lose a step: capacity left. */
static int left(const scs_input *in, const int lost[], int side, int u)
{
    const scs_unit *x = &in->units[side][u];
    return x->steps - x->steps_lost - lost[u];
}

/*
 * The default choice of the unit to lose the next step: among the units
 * with a step left and the fewest losses this combat, the strongest; ties
 * by the order listed.  -1 when the side has no step left.
 */
static int default_pick(const scs_input *in, const int lost[], int side)
{
    int u, best = -1, min_lost = INT_MAX;

    for (u = 0; u < (int)in->n_units[side]; u++)
        if (left(in, lost, side, u) > 0 && lost[u] < min_lost)
            min_lost = lost[u];
    for (u = 0; u < (int)in->n_units[side]; u++) {
        const scs_unit *x = &in->units[side][u];
        if (left(in, lost, side, u) <= 0 || lost[u] != min_lost)
            continue;
        if (best < 0 ||
            strength(x, side) > strength(&in->units[side][best], side))
            best = u;
    }
    return best;
}

/* Step 6 applied to an owner's allocation, before any die: 8.0a, 8.0b
 * and 8.0c, unit by unit in the order given. */
static err_code check_allocation(const scs_input *in, int side, err_info *e)
{
    const scs_orders *o = &in->orders[side];
    int lost[SCS_MAX_UNITS] = {0};
    char f[ERR_FIELD_MAX];
    int k, u, strongest = -1;

    for (u = 0; u < (int)in->n_units[side]; u++)
        if (strength(&in->units[side][u], side) > strongest)
            strongest = strength(&in->units[side][u], side);
    for (k = 0; k < o->n_allocation; k++) {
        int pick = o->allocation[k];
        snprintf(f, sizeof f, "%s[%d]", side_alloc[side], k);
        if (pick < 0 || pick >= (int)in->n_units[side])
            return err_set(e, ERR_INVALID, f, "not a unit of the %s",
                           side_units[side]);
        if (left(in, lost, side, pick) <= 0)
            return err_set(e, ERR_RULE, f,
                           "%s[%d] has no step left to lose: losses go only "
                           "to units in the combat that can absorb them "
                           "(rule 8.0c)",
                           side_units[side], pick);
        if (k == 0 && strength(&in->units[side][pick], side) != strongest)
            return err_set(e, ERR_RULE, f,
                           "the first step lost must come from the side's "
                           "strongest unit, the highest printed %s, %d "
                           "(rule 8.0a)",
                           side == SCS_ATTACKER ? "attack" : "defense",
                           strongest);
        /* 8.0b: no unit takes a second step while another that can still
         * lose one has taken none; past that the owner chooses (8.0c). */
        for (u = 0; lost[pick] > 0 && u < (int)in->n_units[side]; u++)
            if (left(in, lost, side, u) > 0 && lost[u] == 0)
                return err_set(
                    e, ERR_RULE, f,
                    "every unit in the combat absorbs one step before any "
                    "absorbs two (rule 8.0b): %s[%d] has lost none yet",
                    side_units[side], u);
        lost[pick]++;
    }
    return ERR_OK;
}

static err_code check_orders(const scs_input *in, int side, err_info *e)
{
    const scs_orders *o = &in->orders[side];
    char f[ERR_FIELD_MAX];
    const int *v[3] = {&o->convert, &o->ezoc_hexes, &o->blocked_hexes};
    static const char *const names[3] = {"convert_to_steps", "ezoc_hexes",
                                         "blocked_hexes"};
    int k;
    err_code rc;

    for (k = 0; k < 3; k++)
        if (*v[k] < 0 || *v[k] > SCS_MAX_EFFECT) {
            snprintf(f, sizeof f, "%s.%s", side_retreat[side], names[k]);
            return err_set(e, ERR_RANGE, f, "must be from 0 to %d, not %d",
                           SCS_MAX_EFFECT, *v[k]);
        }
    if (o->n_allocation < 0 || o->n_allocation > SCS_MAX_UNITS * SCS_MAX_STEPS)
        return err_set(e, ERR_LIMIT, side_alloc[side], "too many entries");
    if (o->n_extra_units < 0 ||
        o->n_extra_units > SCS_MAX_UNITS * SCS_MAX_STEPS) {
        snprintf(f, sizeof f, "%s.extra_step_units", side_retreat[side]);
        return err_set(e, ERR_LIMIT, f, "too many entries");
    }
    for (k = 0; k < o->n_extra_units; k++)
        if (o->extra_units[k] < 0 ||
            o->extra_units[k] >= (int)in->n_units[side]) {
            snprintf(f, sizeof f, "%s.extra_step_units[%d]", side_retreat[side],
                     k);
            return err_set(e, ERR_INVALID, f, "not a unit of the %s",
                           side_units[side]);
        }
    if ((rc = check_allocation(in, side, e)))
        return rc;
    return ERR_OK;
}

static err_code check_unit(const scs_input *in, int side, size_t i, err_info *e)
{
    const scs_unit *u = &in->units[side][i];
    char f[ERR_FIELD_MAX];
    int k;

    snprintf(f, sizeof f, "%s[%zu].attack", side_units[side], i);
    if (u->has_attack && (u->attack < 0 || u->attack > SCS_MAX_PRINTED))
        return err_set(e, ERR_RANGE, f, "printed values are from 0 to %d",
                       SCS_MAX_PRINTED);
    snprintf(f, sizeof f, "%s[%zu].defense", side_units[side], i);
    if (u->defense < 0 || u->defense > SCS_MAX_PRINTED)
        return err_set(e, ERR_RANGE, f, "printed values are from 0 to %d",
                       SCS_MAX_PRINTED);
    snprintf(f, sizeof f, "%s[%zu].steps", side_units[side], i);
    if (u->steps < 1 || u->steps > SCS_MAX_STEPS)
        return err_set(e, ERR_RANGE, f, "steps are from 1 to %d, not %d",
                       SCS_MAX_STEPS, u->steps);
    snprintf(f, sizeof f, "%s[%zu].steps_lost", side_units[side], i);
    if (u->steps_lost < 0 || u->steps_lost > u->steps)
        return err_set(e, ERR_RANGE, f,
                       "steps lost are from 0 to its %d steps, not %d",
                       u->steps, u->steps_lost);
    if (u->steps_lost == u->steps)
        return err_set(e, ERR_RULE, f,
                       "the unit has lost all its steps: it is eliminated "
                       "and out of play");
    snprintf(f, sizeof f, "%s[%zu]", side_units[side], i);
    if (side == SCS_ATTACKER && !u->has_attack)
        return err_set(e, ERR_RULE, f,
                       "a unit without a printed attack strength (barrage, "
                       "supply range, defense only) cannot attack (rule "
                       "7.2e)");
    if (u->n_multipliers < 0 || u->n_multipliers > SCS_MAX_MULTIPLIERS) {
        snprintf(f, sizeof f, "%s[%zu].multipliers", side_units[side], i);
        return err_set(e, ERR_LIMIT, f, "at most %d multipliers",
                       SCS_MAX_MULTIPLIERS);
    }
    for (k = 0; k < u->n_multipliers; k++)
        if (u->multipliers[k].num <= 0 || u->multipliers[k].den <= 0) {
            snprintf(f, sizeof f, "%s[%zu].multipliers[%d]", side_units[side],
                     i, k);
            return err_set(e, ERR_RANGE, f, "a multiplier is above 0");
        }
    return ERR_OK;
}

err_code scs_validate(const scs_input *in, err_info *e)
{
    int s, bad;
    size_t i;
    const char *why;
    err_code rc;

    if (in->table == NULL)
        return err_set(e, ERR_MISSING, "table", "a combat needs a table");
    if (!scs_table_check_columns(in->table, &bad, &why))
        return err_set(e, ERR_INVALID, "table.columns", "column %d %s", bad + 1,
                       why);
    if (in->column_shift < -SCS_MAX_SHIFT || in->column_shift > SCS_MAX_SHIFT)
        return err_set(e, ERR_RANGE, "column_shift",
                       "must be from %d to %d, not %d", -SCS_MAX_SHIFT,
                       SCS_MAX_SHIFT, in->column_shift);
    if (in->options.out_of_supply_attack.num <= 0 ||
        in->options.out_of_supply_defense.num <= 0)
        return err_set(e, ERR_RANGE, "options.out_of_supply",
                       "a multiplier is above 0");
    for (s = 0; s < 2; s++) {
        if (in->n_units[s] < 1)
            return err_set(e, ERR_RANGE, side_units[s],
                           "a combat needs at least one unit on each side");
        if (in->n_units[s] > SCS_MAX_UNITS)
            return err_set(e, ERR_LIMIT, side_units[s],
                           "at most %d units on a side, not %zu", SCS_MAX_UNITS,
                           in->n_units[s]);
        for (i = 0; i < in->n_units[s]; i++)
            if ((rc = check_unit(in, s, i, e)))
                return rc;
    }
    for (i = 0; i < in->n_units[SCS_ATTACKER]; i++)
        if (in->units[SCS_ATTACKER][i].attack > 0)
            break;
    if (i == in->n_units[SCS_ATTACKER]) /* multipliers are above 0 */
        return err_set(e, ERR_RULE, "attackers",
                       "the attack's total strength is 0: units of 0 attack "
                       "join an attack with others, they cannot make one "
                       "(rule 7.2e)");
    for (s = 0; s < 2; s++)
        if ((rc = check_orders(in, s, e)))
            return rc;
    return ERR_OK;
}

/* A combat being resolved: the input, the outcome and the losses so far. */
typedef struct fight {
    const scs_input *in;
    scs_outcome *out;
    int lost[2][SCS_MAX_UNITS];
    int next_alloc[2]; /* next entry of each side's allocation */
    int next_extra[2]; /* next entry of each side's extra_units */
} fight;

static bool side_has_steps(const fight *f, int side)
{
    size_t u;

    for (u = 0; u < f->in->n_units[side]; u++)
        if (left(f->in, f->lost[side], side, (int)u) > 0)
            return true;
    return false;
}

/*
 * Takes one step from side, for cause: from the next unit the owner's list
 * names if it can lose one, else by default_pick.  A step the side cannot
 * absorb is ignored (8.0c) and counted.
 */
static void take_step(fight *f, int side, scs_loss_cause cause, const int *list,
                      int n_list, int *next)
{
    scs_loss *l;
    int u = -1;
    bool is_ordered = false;

    if (!side_has_steps(f, side)) {
        f->out->sides[side].steps_ignored++;
        return;
    }
    if (*next < n_list) {
        int pick = list[(*next)++];
        if (left(f->in, f->lost[side], side, pick) > 0) {
            u = pick;
            is_ordered = true;
        }
    }
    if (u < 0)
        u = default_pick(f->in, f->lost[side], side);
    f->lost[side][u]++;
    l = &f->out->losses[f->out->n_losses++];
    l->side = side;
    l->unit = u;
    l->cause = cause;
    l->is_ordered = is_ordered;
}

static void take_table_step(fight *f, int side, scs_loss_cause cause)
{
    const scs_orders *o = &f->in->orders[side];
    take_step(f, side, cause, o->allocation, o->n_allocation,
              &f->next_alloc[side]);
}

static void take_extra_step(fight *f, int side, scs_loss_cause cause)
{
    const scs_orders *o = &f->in->orders[side];
    take_step(f, side, cause, o->extra_units, o->n_extra_units,
              &f->next_extra[side]);
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* Steps 6 and 7 for one side: the result's steps, then its retreat, with
 * the owner's conversion and the EZOC and blocked hexes reported. */
static void apply_side(fight *f, int side, scs_effect eff)
{
    const scs_orders *o = &f->in->orders[side];
    scs_side_result *r = &f->out->sides[side];
    int k, remaining;

    r->effect = eff;
    for (k = 0; k < eff.steps; k++)
        take_table_step(f, side, SCS_LOSS_TABLE);
    if (eff.retreat > 0 && side_has_steps(f, side)) {
        /* The no-retreat option: hexes into steps, one for one. */
        r->converted = min_int(o->convert, eff.retreat);
        for (k = 0; k < r->converted; k++)
            take_extra_step(f, side, SCS_LOSS_CONVERSION);
        remaining = eff.retreat - r->converted;
        /* Hexes that cannot be taken, and EZOC hexes among those taken:
         * one step each for the stack. */
        if (side_has_steps(f, side)) {
            r->blocked_hexes = min_int(o->blocked_hexes, remaining);
            r->ezoc_hexes =
                min_int(o->ezoc_hexes, remaining - r->blocked_hexes);
        }
        for (k = 0; k < r->blocked_hexes; k++)
            take_extra_step(f, side, SCS_LOSS_BLOCKED);
        for (k = 0; k < r->ezoc_hexes; k++)
            take_extra_step(f, side, SCS_LOSS_EZOC);
        r->retreat_hexes =
            side_has_steps(f, side) ? remaining - r->blocked_hexes : 0;
    }
    r->is_eliminated = !side_has_steps(f, side);
}

/* Step 8: the advance after combat, and each unit's final state. */
static void finish(fight *f)
{
    const scs_input *in = f->in;
    scs_outcome *out = f->out;
    const scs_side_result *def = &out->sides[SCS_DEFENDER];
    const scs_side_result *att = &out->sides[SCS_ATTACKER];
    size_t u;
    int s;

    for (s = 0; s < 2; s++)
        for (u = 0; u < in->n_units[s]; u++) {
            scs_unit_result *r = &out->units[s][u];
            r->lost = f->lost[s][u];
            r->steps_lost = in->units[s][u].steps_lost + r->lost;
            r->is_eliminated = r->steps_lost >= in->units[s][u].steps;
        }
    out->is_vacated = def->is_eliminated || def->retreat_hexes > 0;
    out->is_advance_allowed =
        out->is_vacated && !att->is_eliminated && att->retreat_hexes == 0;
    out->is_advance_required = out->is_advance_allowed && in->is_overrun;
    if (!out->is_advance_allowed)
        return;
    /* One hex; exploit-capable units up to the original retreat result,
     * even where the defender converted it or was destroyed (10.0a). */
    out->advance_hexes = 1;
    out->exploit_hexes = def->effect.retreat > 1 ? def->effect.retreat : 1;
    for (u = 0; u < in->n_units[SCS_ATTACKER]; u++) {
        scs_unit_result *r = &out->units[SCS_ATTACKER][u];
        if (!r->is_eliminated)
            r->advance = in->units[SCS_ATTACKER][u].is_exploit
                             ? out->exploit_hexes
                             : out->advance_hexes;
    }
}

/* Step 5: the roll, per the table's kind. */
static err_code roll(const scs_table *t, dice_source *dice, scs_outcome *out,
                     err_info *e)
{
    int a, b;
    size_t idx;
    err_code rc;

    if ((rc = dice_roll_die(dice, 6, SCS_ATTACKER, -1, "scs.crt", &a, &idx,
                            e)) ||
        (rc = dice_roll_die(dice, 6, SCS_ATTACKER, -1, "scs.crt", &b, NULL, e)))
        return rc;
    out->first_roll = idx;
    out->roll = t->roll == SCS_ROLL_D66 ? 10 * a + b : a + b;
    return ERR_OK;
}

err_code scs_resolve(const scs_input *in, dice_source *dice, scs_outcome *out,
                     err_info *e)
{
    fight f;
    int row;
    err_code rc;

    memset(out, 0, sizeof *out);
    memset(&f, 0, sizeof f);
    f.in = in;
    f.out = out;
    if ((rc = scs_validate(in, e)) || (rc = strengths(in, out, e)))
        return rc;
    /* Step 2: the odds. */
    if (!scs_odds_of(out->sides[SCS_ATTACKER].total,
                     out->sides[SCS_DEFENDER].total, &out->odds))
        return err_set(e, ERR_LIMIT, "attackers",
                       "the odds are too large to express");
    /* Step 3: the column, then the shifts, which stop at the right edge. */
    out->column_found = scs_table_column(in->table, out->odds);
    out->column = -1;
    if (out->column_found >= 0) {
        out->column = out->column_found + in->column_shift;
        if (out->column > in->table->n_columns - 1)
            out->column = in->table->n_columns - 1;
        if (out->column < 0)
            out->column = -1;
    }
    if (out->column < 0) {
        /* Step 4: left of the table: the attacker loses a step, no roll. */
        scs_effect one = {1, 0};
        out->is_off_table = true;
        out->sides[SCS_DEFENDER].is_eliminated = false;
        out->sides[SCS_ATTACKER].effect = one;
        take_table_step(&f, SCS_ATTACKER, SCS_LOSS_OFF_TABLE);
        out->sides[SCS_ATTACKER].is_eliminated =
            !side_has_steps(&f, SCS_ATTACKER);
        finish(&f);
        return ERR_OK;
    }
    /* Step 5: roll and read; the defender's result first. */
    if ((rc = roll(in->table, dice, out, e)))
        return rc;
    row = scs_roll_row(in->table->roll, out->roll);
    out->result = in->table->results[row][out->column];
    apply_side(&f, SCS_DEFENDER, out->result.defender);
    apply_side(&f, SCS_ATTACKER, out->result.attacker);
    finish(&f);
    return ERR_OK;
}

/* ---- the registry entry ---- */

static err_code resolve_entry(const void *in, dice_source *dice, void *result,
                              err_info *e)
{
    return scs_resolve(in, dice, result, e);
}

static void cleanup_entry(void *result)
{
    (void)result; /* caller storage, nothing owned */
}

const registry_system scs_system = {
    .name = "scs",
    .title = "SCS: Standard Combat Series odds combat",
    .rules = "docs/rules/scs.md",
    .input_size = sizeof(scs_input),
    .result_size = sizeof(scs_outcome),
    .resolve = resolve_entry,
    .result_cleanup = cleanup_entry,
};
