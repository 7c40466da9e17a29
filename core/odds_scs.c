/*
 * odds_scs.c: the odds of an SCS combat (see odds_scs.h): every throw of
 * the combat's roll resolved by scs_resolve and counted.
 */
#include "odds_scs.h"

#include <stdlib.h>
#include <string.h>

typedef struct scs_ctx {
    const scs_input *in;
    odds_scs *out;
    scs_outcome *res; /* scratch */
    dice_source src;
    size_t n_dice;
} scs_ctx;

/* The row's result, counted under its text among the column's. */
static void count_result(odds_scs *o, const scs_table *t, int row, int column,
                         odds_count w)
{
    const char *text = t->text[row][column];
    int k;

    for (k = 0; k < o->n_results; k++)
        if (strcmp(o->results_text[k], text) == 0)
            break;
    if (k == o->n_results) {
        memcpy(o->results_text[k], text, SCS_RESULT_TEXT);
        o->n_results++;
    }
    odds_acc_add(&o->results[k], w, 1);
}

static err_code visit(void *p, const int *naturals, odds_count w, err_info *e)
{
    scs_ctx *c = p;
    odds_scs *o = c->out;
    const scs_outcome *r = c->res;
    int s, lost[2] = {0, 0};
    size_t i;
    err_code rc;

    dice_restart_values(&c->src, naturals, c->n_dice);
    if ((rc = scs_resolve(c->in, &c->src, c->res, e)))
        return rc;
    if (!r->is_off_table) {
        int row = scs_roll_row(c->in->table->roll, r->roll);
        odds_acc_add(&o->rows[row], w, 1);
        count_result(o, c->in->table, row, r->column, w);
    }
    for (s = 0; s < 2; s++) {
        for (i = 0; i < c->in->n_units[s]; i++) {
            const scs_unit_result *u = &r->units[s][i];
            odds_acc_add(&o->units[s][i].lost[u->lost], w, 1);
            odds_acc_add(&o->units[s][i].mean_lost, w, (uint64_t)u->lost);
            odds_acc_add(&o->units[s][i].eliminated, w, u->is_eliminated);
            lost[s] += u->lost;
        }
        odds_acc_add(&o->side_lost[s], w, (uint64_t)lost[s]);
        odds_acc_add(&o->side_eliminated[s], w, r->sides[s].is_eliminated);
        odds_acc_add(&o->retreat_hexes[s], w,
                     (uint64_t)r->sides[s].retreat_hexes);
    }
    odds_acc_add(&o->vacated, w, r->is_vacated);
    odds_acc_add(&o->advance, w, r->is_advance_allowed);
    o->total += w;
    return ERR_OK;
}

err_code odds_scs_compute(const scs_input *in, const odds_limits *l,
                          odds_scs *out, err_info *e)
{
    scs_ctx c;
    odds_die dice[2];
    dice_source rec;
    size_t i;
    err_code rc;

    memset(out, 0, sizeof *out);
    memset(&c, 0, sizeof c);
    odds_stats_init(&out->stats);
    c.in = in;
    c.out = out;
    c.res = malloc(sizeof *c.res);
    dice_init_values(&c.src, DICE_REPLAY, NULL, 0);
    if (c.res == NULL) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        goto out;
    }
    /* One seeded run: what no die changes, and the dice drawn. */
    odds_seeded(l, &rec);
    rc = scs_resolve(in, &rec, c.res, e);
    c.n_dice = rec.n_log;
    for (i = 0; rc == ERR_OK && i < rec.n_log && i < 2; i++) {
        dice[i].faces = rec.log[i].faces;
        dice[i].slot = (int)i;
        dice[i].group = in->table->roll == SCS_ROLL_2D6 ? 0 : (int)i;
    }
    dice_cleanup(&rec);
    if (rc)
        goto out;
    out->totals[0] = c.res->sides[SCS_ATTACKER].total;
    out->totals[1] = c.res->sides[SCS_DEFENDER].total;
    out->odds = c.res->odds;
    out->column_found = c.res->column_found;
    out->column = c.res->column;
    out->is_off_table = c.res->is_off_table;
    out->n_rows = scs_roll_rows(in->table->roll);
    rc = odds_run(dice, c.n_dice, c.n_dice, 0, l, visit, &c, &out->stats, e);
out:
    free(c.res);
    dice_cleanup(&c.src);
    return rc;
}
