/*
 * odds_civ.c: the odds of a Civilization phase and battle (see
 * odds_civ.h).  Every phase is fought by civ_fight_phase on a copy of the
 * battle as it stood: per army, keyed by its total (odds_keyed_build),
 * then every pair of totals; the battle as a tree of phases with exact
 * fractions while it fits, else sampled.
 */
#include "odds_civ.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BRANCHES 65536 /* next states of one phase, at most */

/* Called for each outcome of a phase: the battle after it, the phase,
 * and the throws it stands for. */
typedef err_code (*phase_fn)(void *arg, const civ_battle *after,
                             const civ_phase *ph, odds_count w, err_info *e);

/* One phase being counted. */
typedef struct phase_run {
    const civ_battle *state;
    const civ_orders *orders; /* [2] */
    dice_source src;
    size_t n_slots;
    int army; /* keyed: whose total */
    phase_fn fn;
    void *arg;
    const odds_limits *l;
    odds_stats *st;
} phase_run;

/* The phase on a copy of the state with this throw. */
static err_code fight(phase_run *r, const int *naturals, civ_battle *after,
                      civ_phase *ph, err_info *e)
{
    *after = *r->state;
    dice_restart_values(&r->src, naturals, r->n_slots);
    return civ_fight_phase(after, r->orders, &r->src, ph, e);
}

static err_code key_of(void *p, const int *naturals, int *key, err_info *e)
{
    phase_run *r = p;
    civ_battle after;
    civ_phase ph;
    err_code rc = fight(r, naturals, &after, &ph, e);

    *key = ph.armies[r->army].total;
    return rc;
}

static err_code phase_visit(void *p, const int *naturals, odds_count w,
                            err_info *e)
{
    phase_run *r = p;
    civ_battle after;
    civ_phase ph;
    err_code rc = fight(r, naturals, &after, &ph, e);

    return rc ? rc : r->fn(r->arg, &after, &ph, w, e);
}

/* Army a's dice of the logged phase, exchangeable ones grouped: wave
 * pieces by era, aircraft by dice multiplier. */
static size_t army_dice(const civ_setup *s, const dice_source *rec, int a,
                        odds_die *dice)
{
    int keys[2 * CIV_MAX_UNITS];
    size_t n = 0, i, j;

    for (i = 0; i < rec->n_log; i++) {
        const dice_roll *d = &rec->log[i];
        const civ_unit *u = &s->armies[a].units[d->unit];
        int key = u->cls == CIV_AIRCRAFT ? 100 + u->dice_multiplier : u->era;
        if (d->side != a)
            continue;
        /* insertion by key, stable: groups lie together */
        for (j = n; j > 0 && keys[j - 1] > key; j--) {
            keys[j] = keys[j - 1];
            dice[j] = dice[j - 1];
        }
        keys[j] = key;
        dice[j].faces = d->faces;
        dice[j].slot = (int)i;
        n++;
    }
    for (i = 0; i < n; i++)
        dice[i].group = keys[i];
    return n;
}

/* The dice of one phase, learnt from one seeded run (the orders are
 * checked there). */
static err_code learn(phase_run *r, odds_die dice[2][2 * CIV_MAX_UNITS],
                      size_t n[2], err_info *e)
{
    dice_source rec;
    civ_battle after = *r->state;
    civ_phase ph;
    err_code rc;
    int a;

    odds_seeded(r->l, &rec);
    rc = civ_fight_phase(&after, r->orders, &rec, &ph, e);
    r->n_slots = rec.n_log;
    for (a = 0; rc == ERR_OK && a < 2; a++)
        n[a] = army_dice(r->state->setup, &rec, a, dice[a]);
    dice_cleanup(&rec);
    return rc;
}

/* Every pair of totals, from the two armies keyed apart; *is_fit false
 * (nothing visited) when the pairs do not fit the budget (why says). */
static err_code phase_exact(phase_run *r, odds_die dice[2][2 * CIV_MAX_UNITS],
                            const size_t n[2], bool *is_fit, char *why,
                            err_info *e)
{
    odds_keyed k[2];
    odds_count t[2] = {0, 0}, throws;
    size_t i;
    int a;
    err_code rc = ERR_OK;

    memset(k, 0, sizeof k);
    for (a = 0; a < 2 && rc == ERR_OK; a++) {
        r->army = a;
        rc = odds_keyed_build(dice[a], n[a], r->n_slots, r->l, key_of, r, &k[a],
                              r->st, e);
        for (i = 0; i < k[a].n_keys; i++)
            t[a] += k[a].counts[i];
    }
    *is_fit =
        rc == ERR_OK &&
        odds_fits(r->l,
                  r->st->calls + (uint64_t)k[0].n_keys * (uint64_t)k[1].n_keys,
                  odds_count_mul(t[0], t[1], &throws), why);
    if (*is_fit)
        rc = odds_keyed_pairs(&k[0], &k[1], dice[1], n[1], r->l, phase_visit, r,
                              r->st, e);
    odds_keyed_cleanup(&k[0]);
    odds_keyed_cleanup(&k[1]);
    return rc;
}

/* Sampled: every die of both armies drawn, the phase fought each time. */
static err_code phase_sampled(phase_run *r, odds_die dice[2][2 * CIV_MAX_UNITS],
                              const size_t n[2], err_info *e)
{
    odds_die all[4 * CIV_MAX_UNITS];

    memcpy(all, dice[0], n[0] * sizeof *all);
    memcpy(all + n[0], dice[1], n[1] * sizeof *all);
    return odds_sample(all, n[0] + n[1], r->n_slots, r->l, phase_visit, r,
                       r->st, e);
}

/*
 * Every outcome of one phase from state with orders, to fn: exact when
 * the armies' throws fit the budget (*is_exact true), else sampled when
 * is_sampling and the method allows (ERR_LIMIT when it demands exact
 * odds), else nothing visited (*is_exact false).
 */
static err_code phase_each(const civ_battle *state, const civ_orders *orders,
                           bool is_sampling, const odds_limits *l,
                           odds_stats *st, phase_fn fn, void *arg,
                           bool *is_exact, err_info *e)
{
    odds_die(*dice)[2 * CIV_MAX_UNITS] = calloc(2, sizeof *dice);
    phase_run r;
    size_t n[2] = {0, 0};
    uint64_t v[2];
    odds_count t[2];
    bool is_ok;
    char why[200] = "";
    err_code rc;

    memset(&r, 0, sizeof r);
    r.state = state;
    r.orders = orders;
    r.fn = fn;
    r.arg = arg;
    r.l = l;
    r.st = st;
    *is_exact = false;
    dice_init_values(&r.src, DICE_REPLAY, NULL, 0);
    if (dice == NULL) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        goto out;
    }
    if ((rc = learn(&r, dice, n, e)))
        goto out;
    /* Both sides' spaces worked out (v and t), whether or not the first
     * fits. */
    is_ok = odds_space(dice[0], n[0], &v[0], &t[0]);
    is_ok = odds_space(dice[1], n[1], &v[1], &t[1]) && is_ok;
    if (v[0] > UINT64_MAX / 2 || v[1] > UINT64_MAX / 2)
        v[0] = v[1] = UINT64_MAX / 2;
    if (l->method != ODDS_SAMPLE &&
        odds_fits(l, st->calls + v[0] + v[1], is_ok, why) &&
        (rc = phase_exact(&r, dice, n, is_exact, why, e)) == ERR_OK &&
        *is_exact) {
        st->method = "convolution";
        goto out;
    }
    if (rc != ERR_OK || !is_sampling)
        goto out;
    if (l->method == ODDS_EXACT) {
        rc = err_set(e, ERR_LIMIT, "odds.method", "%s", why);
    } else {
        if (l->method != ODDS_SAMPLE && st->why[0] == '\0')
            memcpy(st->why, why, sizeof st->why);
        rc = phase_sampled(&r, dice, n, e);
    }
out:
    free(dice);
    dice_cleanup(&r.src);
    return rc;
}

/* ---- this phase ---- */

static err_code totals_add(odds_civ_totals *t, int key, odds_count w,
                           err_info *e)
{
    size_t lo = 0, hi = t->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == t->n || t->keys[lo] != key) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 32;
            int *keys = realloc(t->keys, cap * sizeof *keys);
            odds_acc *accs = keys ? realloc(t->accs, cap * sizeof *accs) : NULL;
            if (keys)
                t->keys = keys;
            if (accs == NULL)
                return err_set(e, ERR_NOMEM, NULL,
                               "out of memory for the odds");
            t->accs = accs;
            t->cap = cap;
        }
        memmove(t->keys + lo + 1, t->keys + lo, (t->n - lo) * sizeof *t->keys);
        memmove(t->accs + lo + 1, t->accs + lo, (t->n - lo) * sizeof *t->accs);
        t->keys[lo] = key;
        memset(&t->accs[lo], 0, sizeof t->accs[lo]);
        t->n++;
    }
    odds_acc_add(&t->accs[lo], w, 1);
    return ERR_OK;
}

static err_code count_phase(void *arg, const civ_battle *after,
                            const civ_phase *ph, odds_count w, err_info *e)
{
    odds_civ *o = arg;
    int a, k, t0 = ph->armies[0].total, t1 = ph->armies[1].total;
    err_code rc;

    for (a = 0; a < 2; a++) {
        const civ_army_phase *p = &ph->armies[a];
        if ((rc = totals_add(&o->armies[a].totals, p->total, w, e)))
            return rc;
        odds_acc_add(&o->armies[a].mean_total, w, (uint64_t)p->total);
        odds_acc_add(&o->armies[a].mean_destroyed, w, (uint64_t)p->n_destroyed);
        for (k = 0; k < p->n_destroyed; k++)
            odds_acc_add(&o->armies[a].destroyed[p->destroyed[k]], w, 1);
    }
    odds_acc_add(&o->higher[t0 > t1 ? 0 : t1 > t0 ? 1 : 2], w, 1);
    odds_acc_add(&o->after[!civ_is_over(after) ? 3
                           : after->winner < 0 ? 2
                                               : after->winner],
                 w, 1);
    o->total += w;
    return ERR_OK;
}

/* ---- the battle ---- */

/* The states one phase can lead to, with their throws. */
typedef struct branch {
    civ_battle state;
    odds_count count;
} branch;

typedef struct branches {
    branch *b;
    size_t n, cap;
} branches;

static err_code add_branch(void *arg, const civ_battle *after,
                           const civ_phase *ph, odds_count w, err_info *e)
{
    branches *bs = arg;
    size_t i;

    (void)ph;
    for (i = 0; i < bs->n; i++)
        if (memcmp(bs->b[i].state.is_alive, after->is_alive,
                   sizeof after->is_alive) == 0) {
            bs->b[i].count += w;
            return ERR_OK;
        }
    if (bs->n == bs->cap) {
        size_t cap = bs->cap ? 2 * bs->cap : 16;
        branch *b =
            cap <= MAX_BRANCHES ? realloc(bs->b, cap * sizeof *b) : NULL;
        if (b == NULL)
            return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        bs->b = b;
        bs->cap = cap;
    }
    bs->b[bs->n].state = *after;
    bs->b[bs->n].count = w;
    bs->n++;
    return ERR_OK;
}

typedef struct battle_ctx {
    const odds_civ_input *in;
    const odds_limits *l;
    odds_stats *st;
    uint64_t budget; /* calls the battle's paths may take */
    odds_fsum winner[4];
    odds_fsum lost[2][CIV_MAX_UNITS];
    odds_fsum phases;
    bool is_failed; /* over the budget, or a fraction too large */
} battle_ctx;

/* A battle's end (or its phase limit), num / den of the throws. */
static void leaf(battle_ctx *x, const civ_battle *s, int phases, odds_count num,
                 odds_count den)
{
    int k = !civ_is_over(s) ? 3 : s->winner < 0 ? 2 : s->winner, a, u;
    odds_count np;
    bool is_ok = odds_fsum_add(&x->winner[k], num, den) &&
                 odds_count_mul(num, (odds_count)phases, &np) &&
                 odds_fsum_add(&x->phases, np, den);

    for (a = 0; a < 2 && is_ok; a++)
        for (u = 0; u < s->setup->armies[a].n_units && is_ok; u++)
            if (!s->is_alive[a][u])
                is_ok = odds_fsum_add(&x->lost[a][u], num, den);
    if (!is_ok)
        x->is_failed = true;
}

/* Every path of the battle from s, num / den of the throws so far. */
static err_code dfs(battle_ctx *x, const civ_battle *s, int phases,
                    odds_count num, odds_count den, err_info *e)
{
    branches bs = {NULL, 0, 0};
    odds_count t = 0, n2, d2;
    bool is_exact;
    size_t i;
    err_code rc;

    if (x->is_failed)
        return ERR_OK;
    if (civ_is_over(s) || phases >= x->in->max_phases) {
        leaf(x, s, phases, num, den);
        return ERR_OK;
    }
    if (x->st->calls > x->budget) {
        x->is_failed = true;
        return ERR_OK;
    }
    rc = phase_each(s, phases == 0 ? x->in->orders : x->in->standing, false,
                    x->l, x->st, add_branch, &bs, &is_exact, e);
    x->is_failed |= rc == ERR_OK && !is_exact;
    for (i = 0; i < bs.n; i++)
        t += bs.b[i].count;
    for (i = 0; i < bs.n && rc == ERR_OK && !x->is_failed; i++) {
        if (!odds_count_mul(num, bs.b[i].count, &n2) ||
            !odds_count_mul(den, t, &d2))
            x->is_failed = true;
        else
            rc = dfs(x, &bs.b[i].state, phases + 1, n2, d2, e);
    }
    free(bs.b);
    return rc;
}

static void battle_exact_values(const battle_ctx *x, odds_civ *o)
{
    int a, u, k;

    for (k = 0; k < 4; k++)
        o->winner[k] = odds_value_frac(x->winner[k].num, x->winner[k].den);
    for (a = 0; a < 2; a++)
        for (u = 0; u < x->in->battle->setup->armies[a].n_units; u++)
            o->lost[a][u] =
                odds_value_frac(x->lost[a][u].num, x->lost[a][u].den);
    o->mean_phases = odds_value_frac(x->phases.num, x->phases.den);
}

/* The battle on seeded dice, phase after phase through the rules. */
static err_code battle_sampled(battle_ctx *x, odds_civ *o, err_info *e)
{
    odds_acc winner[4], phases = {0, 0}, (*lost)[CIV_MAX_UNITS];
    const uint64_t n_samples = x->l->samples;
    dice_source d;
    uint64_t n;
    int a, u, k;
    err_code rc = ERR_OK;

    memset(winner, 0, sizeof winner);
    if ((lost = calloc(2, sizeof *lost)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
    odds_seeded(x->l, &d);
    for (n = 0; n < n_samples && rc == ERR_OK; n++) {
        civ_battle s = *x->in->battle;
        civ_phase ph;
        int p = 0;
        while (rc == ERR_OK && !civ_is_over(&s) && p < x->in->max_phases) {
            if ((rc = odds_tick(x->l, x->st, e)) == ERR_OK)
                rc = civ_fight_phase(
                    &s, p == 0 ? x->in->orders : x->in->standing, &d, &ph, e);
            dice_forget_log(&d);
            p++;
        }
        k = !civ_is_over(&s) ? 3 : s.winner < 0 ? 2 : s.winner;
        odds_acc_add(&winner[k], 1, 1);
        odds_acc_add(&phases, 1, (uint64_t)p);
        for (a = 0; a < 2; a++)
            for (u = 0; u < s.setup->armies[a].n_units; u++)
                odds_acc_add(&lost[a][u], 1, !s.is_alive[a][u]);
    }
    dice_cleanup(&d);
    for (k = 0; k < 4; k++)
        o->winner[k] = odds_value_of(&winner[k], n_samples, 1, false);
    for (a = 0; a < 2; a++)
        for (u = 0; u < x->in->battle->setup->armies[a].n_units; u++)
            o->lost[a][u] = odds_value_of(&lost[a][u], n_samples, 1, false);
    o->mean_phases = odds_value_of(&phases, n_samples, 1, false);
    x->st->is_exact = false;
    x->st->method = "monte_carlo";
    x->st->samples = n_samples;
    free(lost);
    return rc;
}

/* The battle: its paths exactly while they fit, else sampled. */
static err_code battle(const odds_civ_input *in, const odds_limits *l,
                       odds_civ *o, err_info *e)
{
    battle_ctx *x = calloc(1, sizeof *x);
    int a, u, k;
    err_code rc = ERR_OK;

    if (x == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
    x->in = in;
    x->l = l;
    x->st = &o->battle_stats;
    /* A tenth of the budget: beyond it, sampling answers sooner. */
    x->budget = l->max_calls / ODDS_CIV_BATTLE_SHARE;
    odds_fsum_init(&x->phases);
    for (k = 0; k < 4; k++)
        odds_fsum_init(&x->winner[k]);
    for (a = 0; a < 2; a++)
        for (u = 0; u < CIV_MAX_UNITS; u++)
            odds_fsum_init(&x->lost[a][u]);
    x->is_failed = l->method == ODDS_SAMPLE;
    if (!x->is_failed)
        rc = dfs(x, in->battle, 0, 1, 1, e);
    if (rc == ERR_OK && !x->is_failed) {
        o->battle_stats.method = "enumeration";
        battle_exact_values(x, o);
    } else if (rc == ERR_OK && l->method == ODDS_EXACT) {
        rc = err_set(e, ERR_LIMIT, "odds.method",
                     "the battle's exact odds take more than its budget of "
                     "%llu resolve calls, or fractions over 2^%d",
                     (unsigned long long)(l->max_calls / ODDS_CIV_BATTLE_SHARE),
                     ODDS_THROWS_BITS);
    } else if (rc == ERR_OK) {
        if (l->method != ODDS_SAMPLE)
            snprintf(o->battle_stats.why, sizeof o->battle_stats.why,
                     "the battle's paths take more than its budget of %llu "
                     "resolve calls, or fractions over 2^%d",
                     (unsigned long long)(l->max_calls / ODDS_CIV_BATTLE_SHARE),
                     ODDS_THROWS_BITS);
        rc = battle_sampled(x, o, e);
    }
    free(x);
    return rc;
}

err_code odds_civ_compute(const odds_civ_input *in, const odds_limits *l,
                          odds_civ *out, err_info *e)
{
    bool is_exact;
    err_code rc;

    memset(out, 0, sizeof *out);
    odds_stats_init(&out->stats);
    odds_stats_init(&out->phase_stats);
    odds_stats_init(&out->battle_stats);
    if (civ_is_over(in->battle))
        return err_set(e, ERR_CONFLICT, NULL, "the battle is over");
    if (in->has_battle &&
        (in->max_phases < 1 || in->max_phases > CIV_MAX_PHASES))
        return err_set(e, ERR_RANGE, "max_phases", "1 to %d, not %d",
                       CIV_MAX_PHASES, in->max_phases);
    if ((rc = phase_each(in->battle, in->orders, true, l, &out->phase_stats,
                         count_phase, out, &is_exact, e)))
        return rc;
    out->stats = out->phase_stats;
    if (!in->has_battle)
        return ERR_OK;
    out->has_battle = true;
    rc = battle(in, l, out, e);
    odds_stats_merge(&out->stats, &out->battle_stats);
    return rc;
}

void odds_civ_cleanup(odds_civ *o)
{
    int a;

    if (o == NULL)
        return;
    for (a = 0; a < 2; a++) {
        free(o->armies[a].totals.keys);
        free(o->armies[a].totals.accs);
    }
    memset(o, 0, sizeof *o);
}
