/*
 * odds_scrud.c: the odds of a SCRUD combat (see odds_scrud.h): its dice
 * learnt from one seeded run, grouped in blocks of identical adjacent
 * units, every throw (or sample) resolved by scrud_resolve and counted.
 */
#include "odds_scrud.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BLOCK SCRUD_MAX_UNITS_PER_SIDE

/* A block's roles (odds_roles) for the multiset v. */
typedef struct block_roles {
    int v[MAX_BLOCK];
    odds_count *w; /* owned; NULL until first needed */
    odds_count orderings;
} block_roles;

typedef struct scrud_ctx {
    const scrud_input *in;
    odds_scrud *out;
    dice_source src; /* replay, restarted for each throw */
    size_t n_dice;
    bool is_exact;         /* enumerating: blocks hold multisets */
    int *block[2];         /* each unit's block (its first unit's index) */
    odds_count *pascal;    /* for odds_roles */
    block_roles *roles[2]; /* by the block's first unit */
} scrud_ctx;

#define N_MEASURES 7

/* Units a and b are the same for the rules, but for their place. */
static bool is_same_unit(const scrud_unit *a, const scrud_unit *b)
{
    return a->quality == b->quality && a->defeat_penalty == b->defeat_penalty &&
           a->fatigue_penalty == b->fatigue_penalty && a->faces == b->faces &&
           a->is_reserve == b->is_reserve && a->modifier == b->modifier &&
           a->is_eliminated == b->is_eliminated;
}

/* What is counted of a unit's outcome, in the order of odds_scrud_unit. */
static void measures(const scrud_unit_result *r, uint64_t x[N_MEASURES])
{
    x[0] = r->defeats > 0;
    x[1] = (uint64_t)r->defeats;
    x[2] = r->eliminated != SCRUD_ELIM_NONE;
    x[3] = r->eliminated == SCRUD_ELIM_THRESHOLD;
    x[4] = r->eliminated == SCRUD_ELIM_THREE_DEFEATS;
    x[5] = (uint64_t)r->defeat_penalty;
    x[6] = (uint64_t)r->fatigue_penalty;
}

/* Measure m of u. */
static odds_acc *acc_of(odds_scrud_unit *u, int m)
{
    odds_acc *const accs[N_MEASURES] = {&u->defeated,       &u->defeats,
                                        &u->eliminated,     &u->by_threshold,
                                        &u->by_defeats,     &u->defeat_penalty,
                                        &u->fatigue_penalty};

    return accs[m];
}

/* The roles of side s's block from unit b for its multiset v (g dice),
 * kept from the last throw while its multiset stays (the odometer turns
 * the last block fastest). */
static const block_roles *roles_of(scrud_ctx *c, int s, size_t b, const int *v,
                                   size_t g)
{
    block_roles *r = &c->roles[s][b];
    size_t h;

    if (r->w != NULL && memcmp(r->v, v, g * sizeof *v) == 0)
        return r;
    if (r->w == NULL && (r->w = malloc(g * g * sizeof *r->w)) == NULL)
        return NULL;
    memcpy(r->v, v, g * sizeof *v);
    odds_roles(v, g, c->pascal, MAX_BLOCK, r->w);
    for (r->orderings = 0, h = 0; h < g; h++)
        r->orderings += r->w[h];
    return r;
}

/* Side s's block of g units from unit b: on a multiset, each member in
 * every role the orderings give it (odds.h, odds_roles). */
static err_code count_block(scrud_ctx *c, const scrud_result *res,
                            const int *naturals, odds_count w, int s, size_t b,
                            size_t g, err_info *e)
{
    size_t first = s ? c->in->sides[0].n_units : 0, i, h;
    uint64_t x[MAX_BLOCK][N_MEASURES];
    odds_count sum[MAX_BLOCK];
    const block_roles *r;
    int m;

    for (h = 0; h < g; h++)
        measures(&res->units[s][b + h], x[h]);
    if (!c->is_exact || g == 1) {
        for (i = 0; i < g; i++)
            for (m = 0; m < N_MEASURES; m++)
                odds_acc_add(acc_of(&c->out->units[s][b + i], m), w, x[i][m]);
        return ERR_OK;
    }
    /* dice in the order units are listed */
    if ((r = roles_of(c, s, b, naturals + first + b, g)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
    /* w is every group's orderings: the other groups' stay as they are */
    w /= r->orderings;
    for (m = 0; m < N_MEASURES; m++) {
        memset(sum, 0, g * sizeof *sum);
        for (h = 0; h < g; h++)
            for (i = 0; x[h][m] != 0 && i < g; i++)
                sum[i] += r->w[i * g + h] * x[h][m];
        for (i = 0; i < g; i++)
            acc_of(&c->out->units[s][b + i], m)->sum += w * sum[i];
    }
    return ERR_OK;
}

static err_code count_units(scrud_ctx *c, const scrud_result *res,
                            const int *naturals, odds_count w, err_info *e)
{
    size_t i, k;
    int s;
    err_code rc;

    for (s = 0; s < 2; s++)
        for (i = 0; i < c->in->sides[s].n_units; i = k) {
            for (k = i; k < c->in->sides[s].n_units && c->block[s][k] == (int)i;
                 k++)
                ;
            if ((rc = count_block(c, res, naturals, w, s, i, k - i, e)))
                return rc;
        }
    return ERR_OK;
}

static err_code visit(void *p, const int *naturals, odds_count w, err_info *e)
{
    scrud_ctx *c = p;
    odds_scrud *o = c->out;
    scrud_result res;
    int s, d[2];
    err_code rc;

    dice_restart_values(&c->src, naturals, c->n_dice);
    rc = scrud_resolve(c->in, &c->src, &res, e);
    if (rc == ERR_OK) {
        for (s = 0; s < 2; s++) {
            d[s] = res.defeats[s] > o->max_defeats[s] ? o->max_defeats[s]
                                                      : res.defeats[s];
            odds_acc_add(&o->defeats[s][d[s]], w, 1);
            odds_acc_add(&o->mean_defeats[s], w, (uint64_t)res.defeats[s]);
        }
        odds_acc_add(&o->more[res.defeats[0] > res.defeats[1]   ? 0
                              : res.defeats[1] > res.defeats[0] ? 1
                                                                : 2],
                     w, 1);
        rc = count_units(c, &res, naturals, w, e);
        o->total += w;
    }
    scrud_result_cleanup(&res);
    return rc;
}

/* The dice the combat draws, learnt from one seeded run, each in its
 * unit's block. */
static err_code learn_dice(scrud_ctx *c, const odds_limits *l, odds_die *dice,
                           err_info *e)
{
    dice_source rec;
    scrud_result res;
    size_t i;
    err_code rc;

    odds_seeded(l, &rec);
    rc = scrud_resolve(c->in, &rec, &res, e);
    scrud_result_cleanup(&res);
    if (rc == ERR_OK && rec.n_log > ODDS_MAX_DICE)
        rc = err_set(e, ERR_LIMIT, NULL, "the odds take at most %d dice",
                     ODDS_MAX_DICE);
    for (i = 0; rc == ERR_OK && i < rec.n_log; i++) {
        int s = rec.log[i].side, u = rec.log[i].unit;
        dice[i].faces = rec.log[i].faces;
        dice[i].slot = (int)i;
        dice[i].group = (int)i;
        if (i > 0 && rec.log[i - 1].side == s &&
            is_same_unit(&c->in->sides[s].units[u],
                         &c->in->sides[s].units[u - 1]))
            dice[i].group = dice[i - 1].group;
    }
    c->n_dice = rec.n_log;
    dice_cleanup(&rec);
    return rc;
}

/* Each unit's block: the first unit of the run of identical units it is
 * in (adjacent dice of one group are adjacent units of one side). */
static void find_blocks(scrud_ctx *c)
{
    int s;
    size_t i;

    for (s = 0; s < 2; s++)
        for (i = 0; i < c->in->sides[s].n_units; i++)
            c->block[s][i] =
                i > 0 && is_same_unit(&c->in->sides[s].units[i],
                                      &c->in->sides[s].units[i - 1])
                    ? c->block[s][i - 1]
                    : (int)i;
}

static err_code alloc_out(const scrud_input *in, scrud_ctx *c, odds_scrud *o,
                          err_info *e)
{
    int s;

    for (s = 0; s < 2; s++) {
        o->n_units[s] = in->sides[s].n_units;
        o->max_defeats[s] = (int)in->sides[1 - s].n_units;
        o->units[s] = calloc(o->n_units[s], sizeof *o->units[s]);
        o->defeats[s] =
            calloc((size_t)o->max_defeats[s] + 1, sizeof *o->defeats[s]);
        c->block[s] = calloc(o->n_units[s], sizeof *c->block[s]);
        if (!o->units[s] || !o->defeats[s] || !c->block[s])
            return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
    }
    c->pascal = odds_pascal(MAX_BLOCK);
    c->roles[0] = calloc(o->n_units[0], sizeof *c->roles[0]);
    c->roles[1] = calloc(o->n_units[1], sizeof *c->roles[1]);
    if (c->pascal == NULL || c->roles[0] == NULL || c->roles[1] == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
    return ERR_OK;
}

err_code odds_scrud_compute(const scrud_input *in, const odds_limits *l,
                            odds_scrud *out, err_info *e)
{
    odds_die *dice = calloc(ODDS_MAX_DICE, sizeof *dice);
    scrud_ctx c;
    size_t i, k;
    int s;
    err_code rc;

    memset(out, 0, sizeof *out);
    memset(&c, 0, sizeof c);
    odds_stats_init(&out->stats);
    c.in = in;
    c.out = out;
    dice_init_values(&c.src, DICE_REPLAY, NULL, 0);
    if (dice == NULL) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        goto out;
    }
    if ((rc = scrud_validate(in, e)) || (rc = alloc_out(in, &c, out, e)) ||
        (rc = learn_dice(&c, l, dice, e)) ||
        (rc = odds_choose(dice, c.n_dice, 0, l, &c.is_exact, &out->stats, e)))
        goto out;
    find_blocks(&c);
    rc = c.is_exact ? odds_enumerate(dice, c.n_dice, c.n_dice, l, visit, &c,
                                     &out->stats, e)
                    : odds_sample(dice, c.n_dice, c.n_dice, l, visit, &c,
                                  &out->stats, e);
    for (s = 0; s < 2; s++)
        for (i = 0; i < in->sides[s].n_units; i++) {
            for (k = i;
                 k < in->sides[s].n_units && c.block[s][k] == c.block[s][i];
                 k++)
                ;
            out->units[s][i].block = (unsigned)(k - (size_t)c.block[s][i]);
        }
out:
    for (s = 0; s < 2; s++) {
        for (i = 0; c.roles[s] && i < in->sides[s].n_units; i++)
            free(c.roles[s][i].w);
        free(c.roles[s]);
        free(c.block[s]);
    }
    free(c.pascal);
    free(dice);
    dice_cleanup(&c.src);
    return rc;
}

void odds_scrud_cleanup(odds_scrud *o)
{
    int s;

    if (o == NULL)
        return;
    for (s = 0; s < 2; s++) {
        free(o->units[s]);
        free(o->defeats[s]);
    }
    memset(o, 0, sizeof *o);
}
