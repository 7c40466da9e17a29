/*
 * odds_matrix.c: the odds of a Matrix battle (see odds_matrix.h).  Every
 * combat is fought on a scratch battle reset from the battle as it
 * stands, through matrix_roll, matrix_commit and matrix_accept; the
 * battle's result is matrix_battle_result's.
 */
#include "odds_matrix.h"

#include <stdlib.h>
#include <string.h>

#define COMBAT_DICE (2 * MATRIX_MAX_UNITS + 4) /* line, reserves, one more */

/* One combat's classes: the throws of each and one throw of each. */
typedef struct combat_classes {
    odds_acc acc[ODDS_MATRIX_CLASSES];
    int reps[ODDS_MATRIX_CLASSES][COMBAT_DICE];
    bool has[ODDS_MATRIX_CLASSES];
    size_t n_dice;
    odds_count total;
    bool is_exact;
} combat_classes;

typedef struct matrix_ctx {
    const odds_matrix_input *in;
    const matrix_battle *b;       /* as it stands */
    matrix_battle *h;             /* scratch */
    int open[MATRIX_MAX_COMBATS]; /* combats not accepted in b */
    int n_open;
    int pending; /* rolled and not accepted, or -1 */
    const odds_limits *l;
    odds_stats *st;
    dice_source src;
    /* the combat being counted */
    int c;
    bool is_with;
    combat_classes *cls;
} matrix_ctx;

static int class_of(const matrix_combat *cb)
{
    return cb->loser < 0 ? 0 : 1 + 3 * cb->loser + ((int)cb->fate - 1);
}

/* The scratch battle back to the battle as it stands. */
static void reset(matrix_ctx *x)
{
    int k;

    for (k = 0; k < x->n_open; k++)
        matrix_combat_copy(&x->h->combats[x->open[k]],
                           &x->b->combats[x->open[k]]);
    memcpy(x->h->is_committed, x->b->is_committed, sizeof x->h->is_committed);
    x->h->n_rolled = x->b->n_rolled;
    x->h->n_accepted = x->b->n_accepted;
    x->h->is_escalated = x->b->is_escalated;
}

/* Combat c on the scratch battle: rolled if it is not, its planned
 * reserves, the reserve considered (is_with), accepted (is_accept); a
 * battle over (escalated) stops there, as matrix_resolve does. */
static err_code run_combat(matrix_ctx *x, int c, bool is_with, bool is_accept,
                           dice_source *src, err_info *e)
{
    matrix_battle *h = x->h;
    const matrix_plan *p = x->in->plan;
    int k;
    err_code rc;

    if (!h->combats[c].is_rolled && (rc = matrix_roll(h, c, src, e)))
        return rc;
    for (k = 0; k < p->n_reserves[c] && !matrix_is_over(h); k++) {
        int ref = p->reserves[c][k];
        if ((rc = matrix_commit(h, c, ref / MATRIX_MAX_UNITS,
                                ref % MATRIX_MAX_UNITS, src, e)))
            return rc;
    }
    if (is_with && !matrix_is_over(h) &&
        (rc = matrix_commit(h, c, x->in->with_army, x->in->with_unit, src, e)))
        return rc;
    if (is_accept && !matrix_is_over(h))
        return matrix_accept(h, c, e);
    return ERR_OK;
}

/* Combat c alone: the battle reset, the combat pending before it
 * accepted (so that c can be rolled), then c. */
static err_code alone(matrix_ctx *x, int c, bool is_with, dice_source *src,
                      err_info *e)
{
    err_code rc;

    reset(x);
    if (x->pending >= 0 && x->pending != c &&
        (rc = matrix_accept(x->h, x->pending, e)))
        return rc;
    return run_combat(x, c, is_with, false, src, e);
}

static err_code combat_visit(void *p, const int *naturals, odds_count w,
                             err_info *e)
{
    matrix_ctx *x = p;
    combat_classes *k = x->cls;
    int cl;
    err_code rc;

    dice_restart_values(&x->src, naturals, k->n_dice);
    if ((rc = alone(x, x->c, x->is_with, &x->src, e)))
        return rc;
    cl = class_of(&x->h->combats[x->c]);
    odds_acc_add(&k->acc[cl], w, 1);
    if (!k->has[cl]) {
        memcpy(k->reps[cl], naturals, k->n_dice * sizeof *naturals);
        k->has[cl] = true;
    }
    k->total += w;
    return ERR_OK;
}

/* Combat c's dice, from one seeded run: one army's dice of the same
 * kind (line or reserve) and quality, drawn one after another, are
 * exchangeable. */
static err_code combat_dice(matrix_ctx *x, int c, bool is_with, odds_die *dice,
                            size_t *n, err_info *e)
{
    const matrix_setup *s = x->b->setup;
    dice_source rec;
    size_t i;
    err_code rc;

    odds_seeded(x->l, &rec);
    rc = alone(x, c, is_with, &rec, e);
    *n = rec.n_log;
    for (i = 0; rc == ERR_OK && i < rec.n_log; i++) {
        const dice_roll *d = &rec.log[i], *prev = i ? &rec.log[i - 1] : NULL;
        dice[i].faces = d->faces;
        dice[i].slot = (int)i;
        dice[i].group = (int)i;
        if (prev && prev->side == d->side && prev->reason == d->reason &&
            s->armies[d->side].quality[prev->unit] ==
                s->armies[d->side].quality[d->unit])
            dice[i].group = dice[i - 1].group;
    }
    dice_cleanup(&rec);
    return rc;
}

/* Counts combat c's classes (with the reserve considered, or not) into
 * k: exact within the budget, else sampled. */
static err_code count_combat(matrix_ctx *x, int c, bool is_with,
                             combat_classes *k, err_info *e)
{
    odds_die dice[COMBAT_DICE];
    odds_stats st;
    err_code rc;

    memset(k, 0, sizeof *k);
    odds_stats_init(&st);
    st.calls = x->st->calls;
    if ((rc = combat_dice(x, c, is_with, dice, &k->n_dice, e)))
        return rc;
    x->c = c;
    x->is_with = is_with;
    x->cls = k;
    rc = odds_run(dice, k->n_dice, k->n_dice, 0, x->l, combat_visit, x, &st, e);
    k->is_exact = st.is_exact;
    st.calls -= x->st->calls;
    odds_stats_merge(x->st, &st);
    return rc;
}

/* A combat settled as it stands: its one class, certain. */
static void settled(const matrix_combat *cb, combat_classes *k)
{
    memset(k, 0, sizeof *k);
    k->has[class_of(cb)] = true;
    odds_acc_add(&k->acc[class_of(cb)], 1, 1);
    k->total = 1;
    k->is_exact = true;
}

/* ---- the battle ---- */

/* The rest of the battle, step by step: the pending combat first, then
 * the plan's order; each step with its classes. */
typedef struct battle_steps {
    int combat[MATRIX_MAX_COMBATS];
    bool is_with[MATRIX_MAX_COMBATS];
    const combat_classes *cls[MATRIX_MAX_COMBATS];
    int n;
} battle_steps;

/* One fought battle's result, counted with weight w. */
static err_code count_battle(matrix_ctx *x, odds_matrix_battle *o, odds_count w,
                             err_info *e)
{
    matrix_result r;
    int a, u, pts;
    err_code rc;

    o->total += w;
    if (x->h->is_escalated) {
        odds_acc_add(&o->escalated, w, 1);
        return ERR_OK;
    }
    if ((rc = matrix_battle_result(x->h, &r, e)))
        return rc;
    odds_acc_add(&o->winner[r.winner < 0 ? 2 : r.winner], w, 1);
    odds_acc_add(&o->state[r.state], w, 1);
    odds_acc_add(&o->exhausted, w, r.is_exhausted[0]);
    for (a = 0; a < 2; a++) {
        pts =
            r.points[a] > ODDS_MATRIX_POINTS ? ODDS_MATRIX_POINTS : r.points[a];
        odds_acc_add(&o->points[a][pts], w, 1);
        odds_acc_add(&o->mean_points[a], w, (uint64_t)r.points[a]);
        for (u = 0; u < x->b->setup->armies[a].n_units; u++) {
            odds_acc_add(&o->fates[a][u][r.fates[a][u]], w, 1);
            odds_acc_add(&o->fought[a][u], w, r.has_fought[a][u]);
        }
    }
    return ERR_OK;
}

/* The steps fought on the scratch battle, drawing from src. */
static err_code run_steps(matrix_ctx *x, const battle_steps *bs,
                          dice_source *src, err_info *e)
{
    int i;
    err_code rc;

    reset(x);
    for (i = 0; i < bs->n; i++)
        if ((rc = run_combat(x, bs->combat[i], bs->is_with[i], true, src, e)))
            return rc;
    return ERR_OK;
}

/* Every combination of the steps' classes, each fought on its throws. */
static err_code battle_exact(matrix_ctx *x, const battle_steps *bs,
                             odds_matrix_battle *o, err_info *e)
{
    int pick[MATRIX_MAX_COMBATS], i, k;
    int *values =
        malloc((size_t)(bs->n ? bs->n : 1) * COMBAT_DICE * sizeof *values);
    err_code rc = ERR_OK;

    if (values == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
    for (i = 0; i < bs->n; i++)
        for (pick[i] = 0; !bs->cls[i]->has[pick[i]]; pick[i]++)
            ;
    while (rc == ERR_OK) {
        odds_count w = 1;
        size_t n = 0;
        for (i = 0; i < bs->n; i++) {
            const combat_classes *k2 = bs->cls[i];
            w *= k2->acc[pick[i]].sum; /* fits: below the throws */
            memcpy(values + n, k2->reps[pick[i]], k2->n_dice * sizeof *values);
            n += k2->n_dice;
        }
        dice_restart_values(&x->src, values, n);
        if ((rc = odds_tick(x->l, &o->stats, e)) ||
            (rc = run_steps(x, bs, &x->src, e)) ||
            (rc = count_battle(x, o, w, e)))
            break;
        /* the odometer over the classes each step has */
        for (i = bs->n - 1; i >= 0; i--) {
            for (k = pick[i] + 1;
                 k < ODDS_MATRIX_CLASSES && !bs->cls[i]->has[k]; k++)
                ;
            if (k < ODDS_MATRIX_CLASSES) {
                pick[i] = k;
                break;
            }
            for (pick[i] = 0; !bs->cls[i]->has[pick[i]]; pick[i]++)
                ;
        }
        if (i < 0)
            break;
    }
    free(values);
    return rc;
}

static err_code battle_sampled(matrix_ctx *x, const battle_steps *bs,
                               odds_matrix_battle *o, err_info *e)
{
    dice_source d;
    uint64_t n;
    err_code rc = ERR_OK;

    odds_seeded(x->l, &d);
    for (n = 0; n < x->l->samples && rc == ERR_OK; n++) {
        if ((rc = odds_tick(x->l, &o->stats, e)) == ERR_OK &&
            (rc = run_steps(x, bs, &d, e)) == ERR_OK)
            rc = count_battle(x, o, 1, e);
        dice_forget_log(&d);
    }
    dice_cleanup(&d);
    o->stats.is_exact = false;
    o->stats.method = "monte_carlo";
    o->stats.samples = x->l->samples;
    return rc;
}

/* The rest of the battle (with the reserve considered, or not): exact
 * while every combat is and the combinations fit the budget. */
static err_code fight_battle(matrix_ctx *x, bool is_with, combat_classes *now,
                             const combat_classes *with, odds_matrix_battle *o,
                             err_info *e)
{
    battle_steps bs;
    combat_classes pending;
    odds_count combos = 1, throws = 1;
    bool is_exact = true;
    char why[200] = "the combats are sampled";
    int i, k, n;
    err_code rc;

    memset(&bs, 0, sizeof bs);
    odds_stats_init(&o->stats);
    if (x->pending >= 0) {
        bs.combat[bs.n] = x->pending;
        bs.is_with[bs.n] = is_with && x->in->with_combat == x->pending;
        settled(&x->b->combats[x->pending], &pending);
        bs.cls[bs.n++] = bs.is_with[0] ? with : &pending;
    }
    for (i = 0; i < x->in->n_order; i++) {
        int c = x->in->plan->order[i];
        bs.combat[bs.n] = c;
        bs.is_with[bs.n] = is_with && x->in->with_combat == c;
        bs.cls[bs.n] = bs.is_with[bs.n] ? with : &now[c];
        bs.n++;
    }
    for (i = 0; i < bs.n; i++) {
        for (k = 0, n = 0; k < ODDS_MATRIX_CLASSES; k++)
            n += bs.cls[i]->has[k];
        is_exact = is_exact && bs.cls[i]->is_exact &&
                   odds_count_mul(combos, (odds_count)n, &combos) &&
                   odds_count_mul(throws, bs.cls[i]->total, &throws);
    }
    if (is_exact && x->l->method != ODDS_SAMPLE &&
        odds_fits(x->l, x->st->calls + (uint64_t)combos, true, why)) {
        rc = battle_exact(x, &bs, o, e);
        o->stats.throws = throws;
    } else if (x->l->method == ODDS_EXACT) {
        rc = err_set(e, ERR_LIMIT, "odds.method", "%s", why);
    } else {
        rc = battle_sampled(x, &bs, o, e);
        if (x->l->method != ODDS_SAMPLE)
            memcpy(o->stats.why, why, sizeof o->stats.why);
    }
    odds_stats_merge(x->st, &o->stats);
    return rc;
}

/* ---- the whole ---- */

static void copy_classes(odds_acc *to, odds_count *total, bool *is_exact,
                         const combat_classes *k)
{
    memcpy(to, k->acc, sizeof k->acc);
    *total = k->total;
    *is_exact = k->is_exact;
}

/* Each combat as it stands (counted if not rolled yet), and the one the
 * reserve considered joins, with it. */
static err_code count_combats(matrix_ctx *x, combat_classes *now,
                              combat_classes *with, odds_matrix *out,
                              err_info *e)
{
    int c;
    err_code rc;

    for (c = 0; c < out->n_combats; c++) {
        odds_matrix_combat *oc = &out->combats[c];
        const matrix_combat *cb = &x->b->combats[c];
        oc->is_rolled = cb->is_rolled;
        oc->is_accepted = cb->is_accepted;
        if (cb->is_rolled)
            settled(cb, &now[c]);
        else if ((rc = count_combat(x, c, false, &now[c], e)))
            return rc;
        copy_classes(oc->now, &oc->now_total, &oc->is_now_exact, &now[c]);
        if (x->in->with_combat != c)
            continue;
        if ((rc = count_combat(x, c, true, with, e)))
            return rc;
        oc->has_with = true;
        copy_classes(oc->with, &oc->with_total, &oc->is_with_exact, with);
    }
    return ERR_OK;
}

err_code odds_matrix_compute(const odds_matrix_input *in, const odds_limits *l,
                             odds_matrix *out, err_info *e)
{
    const matrix_battle *b = in->battle;
    combat_classes *now = calloc(MATRIX_MAX_COMBATS + 1, sizeof *now);
    matrix_ctx x;
    int c;
    err_code rc;

    memset(out, 0, sizeof *out);
    memset(&x, 0, sizeof x);
    odds_stats_init(&out->stats);
    x.in = in;
    x.b = b;
    x.l = l;
    x.st = &out->stats;
    x.pending = -1;
    x.h = malloc(sizeof *x.h);
    dice_init_values(&x.src, DICE_REPLAY, NULL, 0);
    if (now == NULL || x.h == NULL) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        goto out;
    }
    memcpy(x.h, b, sizeof *x.h);
    out->n_combats = b->setup->n_line;
    for (c = 0; c < out->n_combats; c++) {
        if (b->combats[c].is_accepted)
            continue;
        x.open[x.n_open++] = c;
        if (b->combats[c].is_rolled)
            x.pending = c;
    }
    if (matrix_is_over(b)) {
        rc = err_set(e, ERR_CONFLICT, NULL, "the battle is over");
        goto out;
    }
    if (in->with_combat >= out->n_combats) {
        rc = err_set(e, ERR_INVALID, "odds.reserve.combat",
                     "the line has combats 0 to %d, not %d", out->n_combats - 1,
                     in->with_combat);
        goto out;
    }
    out->has_with = in->with_combat >= 0;
    if ((rc = count_combats(&x, now, &now[MATRIX_MAX_COMBATS], out, e)) ||
        (rc = fight_battle(&x, false, now, NULL, &out->battle, e)))
        goto out;
    if (out->has_with)
        rc = fight_battle(&x, true, now, &now[MATRIX_MAX_COMBATS],
                          &out->battle_with, e);
out:
    free(now);
    free(x.h);
    dice_cleanup(&x.src);
    return rc;
}
