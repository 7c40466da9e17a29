/*
 * scrud.c: SCRUD combat resolution, step by step as docs/rules/scrud.md
 * numbers the steps.  Every ordering is total (ties broken by a written
 * rule, never by qsort's whims): the line-up compares score, then natural,
 * then listed order; the three-defeats choice compares modifier, score,
 * natural, then prefers the unit listed last.
 */
#include "scrud.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void scrud_options_default(scrud_options *o)
{
    o->cap_kind = SCRUD_CAP_FACES;
    o->cap = 0;
    o->has_floor = true;
    o->floor = 1;
    o->extra_dice = SCRUD_EXTRA_BEAT_LOWEST;
    o->attrition = true;
    o->max_penalty_per_combat = 1;
    o->eliminate_below = -2;
    o->defeats_per_elimination = 3;
}

void scrud_unit_default(scrud_unit *u)
{
    memset(u, 0, sizeof *u);
    u->faces = 6;
}

int scrud_unit_modifier(const scrud_unit *u)
{
    return u->quality - u->defeat_penalty - u->fatigue_penalty;
}

/* "Resupply and rest": fatigue goes, defeats stay. */
void scrud_unit_resupply(scrud_unit *u)
{
    u->fatigue_penalty = 0;
}

static err_code check_limit(int v, int lo, int hi, const char *field,
                            err_info *e)
{
    if (v < lo || v > hi)
        return err_set(e, ERR_RANGE, field, "must be between %d and %d, not %d",
                       lo, hi, v);
    return ERR_OK;
}

/* Before any die ("Setting up a combat" and "Limits"): every unit can
 * fight, and every number is in range. */
err_code scrud_validate(const scrud_input *in, err_info *e)
{
    const int L = SCRUD_MODIFIER_LIMIT;
    char f[ERR_FIELD_MAX];
    size_t s, i, n_front;

    for (s = 0; s < 2; s++) {
        const scrud_side *side = &in->sides[s];
        if (side->n_units == 0)
            return err_set(e, ERR_INVALID,
                           s ? "sides[1].units" : "sides[0].units",
                           "a side needs at least one unit");
        if (side->n_units > SCRUD_MAX_UNITS_PER_SIDE) {
            snprintf(f, sizeof f, "sides[%zu].units", s);
            return err_set(e, ERR_LIMIT, f,
                           "a side has at most %d units, not %zu",
                           SCRUD_MAX_UNITS_PER_SIDE, side->n_units);
        }
        if (side->modifier < -L || side->modifier > L) {
            snprintf(f, sizeof f, "sides[%zu].modifier", s);
            return check_limit(side->modifier, -L, L, f, e);
        }
        n_front = 0;
        for (i = 0; i < side->n_units; i++) {
            const scrud_unit *u = &side->units[i];
            int m;
/* The field path is formatted only for an error. */
#define CHECK(name, lo, hi)                                                    \
    if (u->name < (lo) || u->name > (hi)) {                                    \
        snprintf(f, sizeof f, "sides[%zu].units[%zu].%s", s, i, #name);        \
        return check_limit(u->name, lo, hi, f, e);                             \
    }
            CHECK(quality, -L, L)
            CHECK(defeat_penalty, 0, L)
            CHECK(fatigue_penalty, 0, L)
            CHECK(faces, RNG_FACES_MIN, RNG_FACES_MAX)
            CHECK(modifier, -L, L)
#undef CHECK
            m = scrud_unit_modifier(u); /* in range now: no overflow */
            if (u->is_eliminated) {
                snprintf(f, sizeof f, "sides[%zu].units[%zu]", s, i);
                return err_set(e, ERR_RULE, f,
                               "the unit is eliminated and cannot fight");
            }
            if (m < in->options.eliminate_below) {
                snprintf(f, sizeof f, "sides[%zu].units[%zu]", s, i);
                return err_set(
                    e, ERR_RULE, f,
                    "the unit's modifier %d is below the elimination "
                    "threshold %d: it is eliminated and cannot fight",
                    m, in->options.eliminate_below);
            }
            if (in->options.has_floor &&
                in->options.cap_kind == SCRUD_CAP_FACES &&
                in->options.floor > u->faces) {
                snprintf(f, sizeof f, "sides[%zu].units[%zu].faces", s, i);
                return err_set(e, ERR_RANGE, f,
                               "the floor %d is above the cap of this unit's "
                               "d%d",
                               in->options.floor, u->faces);
            }
            if (!u->is_reserve)
                n_front++;
        }
        if (n_front == 0) {
            snprintf(f, sizeof f, "sides[%zu].units", s);
            return err_set(e, ERR_RULE, f,
                           "a side needs at least one unit in the front line");
        }
    }
    {
        const scrud_options *o = &in->options;
        if (o->cap_kind == SCRUD_CAP_FIXED &&
            check_limit(o->cap, -L, RNG_FACES_MAX + L, "options.cap", e))
            return ERR_RANGE;
        if (o->has_floor && check_limit(o->floor, -L, L, "options.floor", e))
            return ERR_RANGE;
        if (o->has_floor && o->cap_kind == SCRUD_CAP_FIXED && o->floor > o->cap)
            return err_set(e, ERR_RANGE, "options.floor",
                           "the floor %d is above the cap %d", o->floor,
                           o->cap);
        if (check_limit(o->max_penalty_per_combat, 0, 2,
                        "options.max_penalty_per_combat", e) ||
            check_limit(o->eliminate_below, -L, L, "options.eliminate_below",
                        e) ||
            check_limit(o->defeats_per_elimination, 0, L,
                        "options.defeats_per_elimination", e))
            return ERR_RANGE;
    }
    return ERR_OK;
}

/* Step 1 (and again in step 3): the score held between floor and cap. */
static int clamp_score(const scrud_options *o, int faces, int raw)
{
    if (o->cap_kind == SCRUD_CAP_FACES && raw > faces)
        raw = faces;
    else if (o->cap_kind == SCRUD_CAP_FIXED && raw > o->cap)
        raw = o->cap;
    if (o->has_floor && raw < o->floor)
        raw = o->floor;
    return raw;
}

/* Step 2's order: higher score, then higher natural, then listed first. */
static int lines_up_before(const scrud_unit_result *r, int a, int b)
{
    if (r[a].score != r[b].score)
        return r[a].score > r[b].score;
    if (r[a].natural != r[b].natural)
        return r[a].natural > r[b].natural;
    return a < b;
}

/* Insertion sort: stable, total, and n is at most 100. */
static void line_up(const scrud_unit_result *r, int *order, size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        int x = order[i];
        for (j = i; j > 0 && lines_up_before(r, x, order[j - 1]); j--)
            order[j] = order[j - 1];
        order[j] = x;
    }
}

/*
 * The result's arrays, in one zeroed block (one allocation per combat,
 * which the odds make millions of): each side's units first (they hold a
 * size_t), then the pairs, the extra dice and the int arrays.  units[0]
 * owns the block (scrud_result_cleanup).
 */
static err_code alloc_result(const scrud_input *in, scrud_result *out,
                             err_info *e)
{
    size_t n0 = in->sides[0].n_units, n1 = in->sides[1].n_units;
    size_t n_min = n0 < n1 ? n0 : n1;
    size_t n_pairs = n_min ? n_min : 1;
    char *block;

    memset(out, 0, sizeof *out);
    block = calloc(1, (n0 + n1) * sizeof(scrud_unit_result) +
                          n_pairs * sizeof(scrud_pair) +
                          (n0 + n1) * sizeof(scrud_extra_die) +
                          2 * (n0 + n1) * sizeof(int));
    if (block == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    out->units[0] = (scrud_unit_result *)(void *)block;
    out->units[1] = out->units[0] + n0;
    out->pairs = (scrud_pair *)(void *)(out->units[1] + n1);
    out->extra = (scrud_extra_die *)(void *)(out->pairs + n_pairs);
    out->line_up[0] = (int *)(void *)(out->extra + n0 + n1);
    out->line_up[1] = out->line_up[0] + n0;
    out->eliminated[0] = out->line_up[1] + n1;
    out->eliminated[1] = out->eliminated[0] + n0;
    return ERR_OK;
}

/* Steps 1 to 3: roll and score, line up, then the reserves' pips and the
 * line-up again. */
static err_code roll_and_line_up(const scrud_input *in, dice_source *dice,
                                 scrud_result *out, err_info *e)
{
    const scrud_options *o = &in->options;
    size_t s, i, k;

    for (s = 0; s < 2; s++) {
        const scrud_side *side = &in->sides[s];
        for (i = 0; i < side->n_units; i++) {
            const scrud_unit *u = &side->units[i];
            scrud_unit_result *r = &out->units[s][i];
            err_code rc =
                dice_roll_die(dice, u->faces, (int)s, (int)i,
                              u->is_reserve ? "scrud.reserve" : "scrud.front",
                              &r->natural, &r->roll, e);
            if (rc != ERR_OK)
                return rc;
            r->modifier_before = scrud_unit_modifier(u);
            r->rank = -1;
        }
    }
    for (s = 0; s < 2; s++) {
        const scrud_side *side = &in->sides[s];
        scrud_unit_result *r = out->units[s];
        size_t n = 0;

        for (i = 0; i < side->n_units; i++) {
            const scrud_unit *u = &side->units[i];
            if (u->is_reserve) {
                r[i].score = r[i].natural; /* reserve dice are not modified */
                continue;
            }
            r[i].score = clamp_score(o, u->faces,
                                     r[i].natural + r[i].modifier_before +
                                         side->modifier + u->modifier);
            out->line_up[s][n++] = (int)i;
        }
        out->n_line_up[s] = n;
        line_up(r, out->line_up[s], n);
        /* Step 3: a reserve die showing N adds +1 to each of the first N
         * front-line dice, in the line-up before any reserve pips. */
        for (i = 0; i < side->n_units; i++) {
            if (!side->units[i].is_reserve)
                continue;
            for (k = 0; k < n && k < (size_t)r[i].natural; k++)
                r[out->line_up[s][k]].reserve_bonus++;
        }
        for (k = 0; k < n; k++) {
            int j = out->line_up[s][k];
            const scrud_unit *u = &side->units[j];
            r[j].score = clamp_score(o, u->faces,
                                     r[j].natural + r[j].modifier_before +
                                         side->modifier + u->modifier +
                                         r[j].reserve_bonus);
        }
        line_up(r, out->line_up[s], n);
        for (k = 0; k < n; k++)
            r[out->line_up[s][k]].rank = (int)k;
        for (i = 0; i < side->n_units; i++)
            dice->log[r[i].roll].modified = r[i].score;
    }
    return ERR_OK;
}

/* Steps 4 to 6: pairs, unpaired dice, defeats. */
static void fight(const scrud_input *in, scrud_result *out)
{
    size_t n0 = out->n_line_up[0], n1 = out->n_line_up[1];
    size_t n = n0 < n1 ? n0 : n1, k;
    int big, small, lowest;

    for (k = 0; k < n; k++) {
        scrud_pair *p = &out->pairs[k];
        int a = out->line_up[0][k], b = out->line_up[1][k];
        p->unit[0] = a;
        p->unit[1] = b;
        p->score[0] = out->units[0][a].score;
        p->score[1] = out->units[1][b].score;
        if (p->score[0] > p->score[1]) {
            p->winner = SCRUD_FIRST;
            out->units[1][b].defeats++;
        } else if (p->score[1] > p->score[0]) {
            p->winner = SCRUD_SECOND;
            out->units[0][a].defeats++;
        } else {
            p->winner = SCRUD_TIE;
        }
    }
    out->n_pairs = n;
    if (n0 == n1)
        goto count;
    big = n0 > n1 ? 0 : 1;
    small = 1 - big;
    lowest = out->line_up[small][n - 1];
    for (k = n; k < out->n_line_up[big]; k++) {
        int u = out->line_up[big][k];
        const scrud_unit_result *r = &out->units[big][u];
        int faces = in->sides[big].units[u].faces;
        bool is_defeat = false;

        switch (in->options.extra_dice) {
        case SCRUD_EXTRA_BEAT_LOWEST:
            is_defeat = r->score > out->units[small][lowest].score;
            break;
        case SCRUD_EXTRA_IGNORE: is_defeat = false; break;
        case SCRUD_EXTRA_HALF: is_defeat = 2 * r->natural > faces; break;
        }
        out->extra[out->n_extra].side = big;
        out->extra[out->n_extra].unit = u;
        out->extra[out->n_extra].target = is_defeat ? lowest : -1;
        out->n_extra++;
        if (is_defeat)
            out->units[small][lowest].defeats++;
    }
count:
    for (k = 0; k < 2; k++) {
        size_t i;
        out->defeats[k] = 0;
        for (i = 0; i < in->sides[k].n_units; i++)
            out->defeats[k] += out->units[k][i].defeats;
    }
}

/* Step 7: attrition; step 8: the threshold. */
static void attrition(const scrud_input *in, scrud_result *out)
{
    const scrud_options *o = &in->options;
    size_t s, i;

    for (s = 0; s < 2; s++) {
        for (i = 0; i < in->sides[s].n_units; i++) {
            const scrud_unit *u = &in->sides[s].units[i];
            scrud_unit_result *r = &out->units[s][i];
            int budget = o->max_penalty_per_combat;

            r->defeat_penalty = u->defeat_penalty;
            r->fatigue_penalty = u->fatigue_penalty;
            if (!u->is_reserve) {
                r->is_heavy_fighting =
                    r->natural == u->faces || r->score >= u->faces;
                if (o->attrition && r->defeats > 0 && budget > 0) {
                    r->defeat_penalty_added = 1;
                    budget--;
                }
                if (o->attrition && r->is_heavy_fighting && budget > 0)
                    r->fatigue_penalty_added = 1;
            }
            r->defeat_penalty += r->defeat_penalty_added;
            r->fatigue_penalty += r->fatigue_penalty_added;
            r->modifier_after =
                u->quality - r->defeat_penalty - r->fatigue_penalty;
            if (!u->is_reserve && r->modifier_after < o->eliminate_below) {
                r->eliminated = SCRUD_ELIM_THRESHOLD;
                out->eliminated[s][out->n_eliminated[s]++] = (int)i;
            }
        }
    }
}

/* Step 9's choice: is a a worse pick than b (eliminated first)? */
static bool eliminated_before(const scrud_unit_result *r, int a, int b)
{
    if (r[a].modifier_after != r[b].modifier_after)
        return r[a].modifier_after < r[b].modifier_after;
    if (r[a].score != r[b].score)
        return r[a].score < r[b].score;
    if (r[a].natural != r[b].natural)
        return r[a].natural < r[b].natural;
    return a > b; /* the unit listed last */
}

/* Step 9: one more elimination for every defeats_per_elimination defeats. */
static void three_defeats(const scrud_input *in, scrud_result *out)
{
    int per = in->options.defeats_per_elimination;
    size_t s, i;
    int n;

    if (per <= 0)
        return;
    for (s = 0; s < 2; s++) {
        scrud_unit_result *r = out->units[s];
        for (n = out->defeats[s] / per; n > 0; n--) {
            int pick = -1;
            for (i = 0; i < in->sides[s].n_units; i++) {
                if (in->sides[s].units[i].is_reserve ||
                    r[i].eliminated != SCRUD_ELIM_NONE)
                    continue;
                if (pick < 0 || eliminated_before(r, (int)i, pick))
                    pick = (int)i;
            }
            if (pick < 0)
                break; /* nobody left to eliminate */
            r[pick].eliminated = SCRUD_ELIM_THREE_DEFEATS;
            out->eliminated[s][out->n_eliminated[s]++] = pick;
        }
    }
}

err_code scrud_resolve(const scrud_input *in, dice_source *dice,
                       scrud_result *out, err_info *e)
{
    err_code rc;

    memset(out, 0, sizeof *out);
    if ((rc = scrud_validate(in, e)) != ERR_OK)
        return rc;
    if ((rc = alloc_result(in, out, e)) != ERR_OK)
        return rc;
    if ((rc = roll_and_line_up(in, dice, out, e)) != ERR_OK)
        return rc;
    fight(in, out);
    attrition(in, out);
    three_defeats(in, out);
    return ERR_OK;
}

void scrud_result_cleanup(scrud_result *out)
{
    if (out == NULL)
        return;
    free(out->units[0]); /* the block of every array (alloc_result) */
    memset(out, 0, sizeof *out);
}

const char *scrud_extra_rule_name(scrud_extra_rule r)
{
    switch (r) {
    case SCRUD_EXTRA_BEAT_LOWEST: return "beat_lowest";
    case SCRUD_EXTRA_IGNORE: return "ignore";
    case SCRUD_EXTRA_HALF: return "half";
    }
    return "?";
}

const char *scrud_elimination_name(scrud_elimination el)
{
    switch (el) {
    case SCRUD_ELIM_NONE: return "none";
    case SCRUD_ELIM_THRESHOLD: return "threshold";
    case SCRUD_ELIM_THREE_DEFEATS: return "three_defeats";
    }
    return "?";
}

const char *scrud_winner_name(scrud_winner w)
{
    switch (w) {
    case SCRUD_FIRST: return "first";
    case SCRUD_SECOND: return "second";
    case SCRUD_TIE: return "tie";
    }
    return "?";
}

static err_code resolve_any(const void *input, dice_source *dice, void *result,
                            err_info *e)
{
    return scrud_resolve(input, dice, result, e);
}

static void cleanup_any(void *result)
{
    scrud_result_cleanup(result);
}

const registry_system scrud_system = {
    .name = "scrud",
    .title = "SCRUD: Simple Combat Resolution Using Dice",
    .rules = "docs/rules/scrud.md",
    .input_size = sizeof(scrud_input),
    .result_size = sizeof(scrud_result),
    .resolve = resolve_any,
    .result_cleanup = cleanup_any,
};
