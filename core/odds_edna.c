/*
 * odds_edna.c: the odds of an EDNA test (see odds_edna.h): the sums of a
 * test's dice by convolution, each sum resolved by edna_resolve on one
 * throw that makes it, and the chain of later tests over the EDNA left;
 * sampled through edna_resolve beyond the budget.
 */
#include "odds_edna.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct edna_ctx {
    const edna_input *in;
    const odds_limits *l;
    odds_stats *st;
    int n_sums;         /* sums from dice to dice * faces */
    odds_count *counts; /* [s - dice]: the throws of each sum */
    odds_count throws;  /* of one test */
    bool is_throws_ok;  /* they fit */
    int naturals[EDNA_MAX_DICE];
    dice_source src;
} edna_ctx;

/* One unit alike, as the odds see it. */
typedef struct edna_case {
    int edna, modifier, later;
    int ahead;
} edna_case;

/* Unit (edna, modifier) tested on a throw summing to s, through the
 * rules: *after its EDNA then, *is_passed whether it passed. */
static err_code test_sum(edna_ctx *c, int edna, int modifier, int s, int *after,
                         bool *is_passed, err_info *e)
{
    edna_unit u = {edna, modifier};
    edna_input one = {&u, 1, c->in->options};
    edna_result r;
    err_code rc;

    odds_sum_throw(c->in->options.dice, c->in->options.faces, s, c->naturals);
    dice_restart_values(&c->src, c->naturals, (size_t)c->in->options.dice);
    if ((rc = odds_tick(c->l, c->st, e)))
        return rc;
    rc = edna_resolve(&one, &c->src, &r, e);
    if (rc == ERR_OK) {
        *after = r.units[0].edna_after;
        *is_passed = r.units[0].is_passed;
    }
    edna_result_cleanup(&r);
    return rc;
}

/* This test, exact: each sum once.  dist[v] gets the throws leaving v. */
static err_code exact_test(edna_ctx *c, const edna_case *k, odds_edna_unit *u,
                           odds_count *dist, err_info *e)
{
    odds_count passed = 0, mean = 0;
    int s, after, v;
    bool is_passed;
    err_code rc;

    for (v = 0; v <= k->edna; v++)
        dist[v] = 0;
    for (s = 0; s < c->n_sums; s++) {
        if ((rc = test_sum(c, k->edna, k->modifier, s + c->in->options.dice,
                           &after, &is_passed, e)))
            return rc;
        if (is_passed)
            passed += c->counts[s];
        dist[after] += c->counts[s];
        mean += c->counts[s] * (odds_count)after;
    }
    u->passed = odds_value_frac(passed, c->throws);
    u->failed = odds_value_frac(c->throws - passed, c->throws);
    u->mean_after = odds_value_frac(mean, c->throws);
    for (v = 0; v <= k->edna; v++)
        u->after[v] = odds_value_frac(dist[v], c->throws);
    u->within[0] = u->after[0];
    return ERR_OK;
}

/* The later tests, exact: dist (throws over throws^(j+1)) stepped on,
 * each state's tests resolved once (next, lazily). */
static err_code exact_chain(edna_ctx *c, const edna_case *k, odds_edna_unit *u,
                            odds_count *dist, err_info *e)
{
    int *next =
        malloc((size_t)(k->edna + 1) * (size_t)c->n_sums * sizeof *next);
    odds_count q[EDNA_MAX + 1], den = c->throws;
    int j, v, s;
    bool is_passed;
    err_code rc = ERR_OK;

    if (next == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
    for (v = 0; v < (k->edna + 1) * c->n_sums; v++)
        next[v] = -1;
    for (j = 1; j <= k->ahead && rc == ERR_OK; j++) {
        memset(q, 0, sizeof q);
        q[0] = dist[0] * c->throws; /* ineffective stays so */
        for (v = 1; v <= k->edna && rc == ERR_OK; v++)
            for (s = 0; dist[v] != 0 && s < c->n_sums && rc == ERR_OK; s++) {
                int *to = &next[v * c->n_sums + s];
                if (*to < 0)
                    rc = test_sum(c, v, k->later, s + c->in->options.dice, to,
                                  &is_passed, e);
                if (rc == ERR_OK)
                    q[*to] += dist[v] * c->counts[s];
            }
        memcpy(dist, q, sizeof q);
        den *= c->throws;
        u->within[j] = odds_value_frac(dist[0], den);
    }
    free(next);
    return rc;
}

/* Sampled: the test and the later ones on seeded dice, through the rules;
 * is_test: this test's values too (else only the chain's). */
static err_code sampled(edna_ctx *c, const edna_case *k, odds_edna_unit *u,
                        bool is_test, err_info *e)
{
    odds_acc passed = {0, 0}, mean = {0, 0}, after[EDNA_MAX + 1],
             within[ODDS_EDNA_MAX_AHEAD + 1];
    dice_source d;
    uint64_t n;
    int j, v;
    err_code rc = ERR_OK;

    memset(after, 0, sizeof after);
    memset(within, 0, sizeof within);
    odds_seeded(c->l, &d);
    for (n = 0; n < c->l->samples && rc == ERR_OK; n++) {
        int edna = k->edna;
        for (j = 0; j <= k->ahead && rc == ERR_OK; j++) {
            edna_unit one = {edna, j == 0 ? k->modifier : k->later};
            edna_input in = {&one, 1, c->in->options};
            edna_result r;
            if (edna > 0 && (rc = odds_tick(c->l, c->st, e)) == ERR_OK) {
                rc = edna_resolve(&in, &d, &r, e);
                if (rc == ERR_OK) {
                    if (j == 0)
                        odds_acc_add(&passed, 1, r.units[0].is_passed);
                    edna = r.units[0].edna_after;
                }
                edna_result_cleanup(&r);
            }
            if (j == 0) {
                odds_acc_add(&after[edna], 1, 1);
                odds_acc_add(&mean, 1, (uint64_t)edna);
            }
            odds_acc_add(&within[j], 1, edna == 0);
            dice_forget_log(&d);
        }
    }
    dice_cleanup(&d);
    if (rc)
        return rc;
    if (is_test) {
        odds_acc failed = {c->l->samples - passed.sum, 0};
        failed.sum_sq = failed.sum;
        u->passed = odds_value_of(&passed, c->l->samples, 1, false);
        u->failed = odds_value_of(&failed, c->l->samples, 1, false);
        u->mean_after = odds_value_of(&mean, c->l->samples, 1, false);
        for (v = 0; v <= k->edna; v++)
            u->after[v] = odds_value_of(&after[v], c->l->samples, 1, false);
        u->within[0] = u->after[0];
    }
    for (j = 1; j <= k->ahead; j++)
        u->within[j] = odds_value_of(&within[j], c->l->samples, 1, false);
    c->st->is_exact = false;
    c->st->method = "monte_carlo";
    c->st->samples = c->l->samples;
    return ERR_OK;
}

/* One unit, or every unit alike: exact where the budget and the counts
 * allow, sampled otherwise. */
static err_code one_case(edna_ctx *c, const edna_case *k, odds_edna_unit *u,
                         err_info *e)
{
    odds_count dist[EDNA_MAX + 1], chain = c->throws;
    uint64_t test_calls = (uint64_t)c->n_sums;
    uint64_t chain_calls = (uint64_t)k->edna * (uint64_t)c->n_sums;
    bool is_test, is_chain = true;
    char why[200] = "";
    int j;

    for (j = 0; j < k->ahead && is_chain; j++)
        is_chain = odds_count_mul(chain, c->throws, &chain);
    is_test = c->l->method != ODDS_SAMPLE &&
              odds_fits(c->l, c->st->calls + test_calls, c->is_throws_ok, why);
    if (k->ahead > 0)
        is_chain =
            is_test && odds_fits(c->l, c->st->calls + test_calls + chain_calls,
                                 is_chain, why);
    if (c->l->method == ODDS_EXACT && !(is_test && is_chain))
        return err_set(e, ERR_LIMIT, "odds.method", "%s", why);
    if (!is_chain && c->st->why[0] == '\0' && c->l->method != ODDS_SAMPLE)
        memcpy(c->st->why, why, sizeof c->st->why);
    u->is_chain_exact = is_chain;
    if (!is_test)
        return sampled(c, k, u, true, e);
    c->st->method = c->st->is_exact ? "convolution" : c->st->method;
    c->st->throws = c->throws;
    {
        err_code rc = exact_test(c, k, u, dist, e);
        if (rc)
            return rc;
    }
    return is_chain ? exact_chain(c, k, u, dist, e)
                    : sampled(c, k, u, false, e);
}

err_code odds_edna_compute(const edna_input *in, const int *later_modifier,
                           int ahead, const odds_limits *l, odds_edna *out,
                           err_info *e)
{
    edna_ctx c;
    size_t i, j;
    err_code rc;

    memset(out, 0, sizeof *out);
    memset(&c, 0, sizeof c);
    odds_stats_init(&out->stats);
    dice_init_values(&c.src, DICE_REPLAY, NULL, 0);
    if ((rc = edna_validate(in, e)))
        goto out;
    if (ahead < 0 || ahead > ODDS_EDNA_MAX_AHEAD) {
        rc = err_set(e, ERR_RANGE, "odds.tests_ahead",
                     "must be between 0 and %d, not %d", ODDS_EDNA_MAX_AHEAD,
                     ahead);
        goto out;
    }
    c.in = in;
    c.l = l;
    c.st = &out->stats;
    c.n_sums = in->options.dice * (in->options.faces - 1) + 1;
    c.counts = calloc((size_t)c.n_sums, sizeof *c.counts);
    out->units = calloc(in->n_units, sizeof *out->units);
    if (!c.counts || !out->units) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        goto out;
    }
    out->n_units = in->n_units;
    out->ahead = ahead;
    c.is_throws_ok =
        odds_sum_counts(in->options.dice, in->options.faces, c.counts);
    for (j = 0; c.is_throws_ok && j < (size_t)c.n_sums; j++)
        c.throws += c.counts[j];
    for (i = 0; i < in->n_units && rc == ERR_OK; i++) {
        edna_case k = {
            in->units[i].edna, in->units[i].modifier,
            later_modifier ? later_modifier[i] : in->units[i].modifier, ahead};
        /* Units alike are worked out once. */
        for (j = 0; j < i; j++)
            if (in->units[j].edna == k.edna &&
                in->units[j].modifier == k.modifier &&
                (later_modifier ? later_modifier[j] : in->units[j].modifier) ==
                    k.later)
                break;
        if (j < i)
            out->units[i] = out->units[j];
        else
            rc = one_case(&c, &k, &out->units[i], e);
    }
out:
    free(c.counts);
    dice_cleanup(&c.src);
    return rc;
}

void odds_edna_cleanup(odds_edna *o)
{
    if (o == NULL)
        return;
    free(o->units);
    memset(o, 0, sizeof *o);
}
