/*
 * scrud_fixture.c: a SCRUD combat built in place and resolved with entered
 * dice; see scrud_fixture.h.
 */
#include <string.h>

#include <check.h>

#include "scrud_fixture.h"

void scrud_fixture_init(scrud_fixture *f)
{
    memset(f, 0, sizeof *f);
    f->in.sides[0].units = f->units[0];
    f->in.sides[1].units = f->units[1];
    scrud_options_default(&f->in.options);
}

/* Appends n fresh d6 units of the given quality to side s; returns the
 * first (borrowed). */
scrud_unit *scrud_fixture_add(scrud_fixture *f, int s, int n, int quality)
{
    scrud_unit *first = &f->units[s][f->in.sides[s].n_units];

    while (n-- > 0) {
        scrud_unit *u = &f->units[s][f->in.sides[s].n_units++];
        scrud_unit_default(u);
        u->quality = quality;
    }
    return first;
}

void scrud_fixture_cleanup(scrud_fixture *f)
{
    scrud_result_cleanup(&f->out);
    dice_cleanup(&f->dice);
}

/* The roll log (README "Roll log"): one row per unit in draw order, side 0
 * then side 1, reason by role, modified = the score (reserves: natural). */
void scrud_fixture_check_log(const scrud_input *in, const dice_source *d,
                             const scrud_result *out)
{
    size_t s, i, row = 0;

    for (s = 0; s < 2; s++) {
        for (i = 0; i < in->sides[s].n_units; i++, row++) {
            const scrud_unit *u = &in->sides[s].units[i];
            const scrud_unit_result *r = &out->units[s][i];
            const dice_roll *l = &d->log[row];

            ck_assert_uint_lt(row, d->n_log);
            ck_assert(r->roll == row && l->side == (int)s && l->unit == (int)i);
            ck_assert(l->faces == u->faces && l->natural == r->natural);
            ck_assert_int_eq(l->modified,
                             u->is_reserve ? l->natural : r->score);
            ck_assert_str_eq(l->reason,
                             u->is_reserve ? "scrud.reserve" : "scrud.front");
        }
    }
    ck_assert_uint_eq(d->n_log, row);
}

/* Resolves with entered dice (borrowed), which must be used exactly. */
void scrud_fixture_run(scrud_fixture *f, const int *dice, size_t n)
{
    err_code rc;

    dice_init_values(&f->dice, DICE_ENTERED, dice, n);
    rc = scrud_resolve(&f->in, &f->dice, &f->out, &f->e);
    ck_assert_msg(rc == ERR_OK, "scrud_resolve: %s at %s: %s",
                  err_code_name(rc), f->e.field, f->e.message);
    ck_assert_int_eq(dice_check_all_used(&f->dice, &f->e), ERR_OK);
    scrud_fixture_check_log(&f->in, &f->dice, &f->out);
}
