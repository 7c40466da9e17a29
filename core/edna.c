/*
 * edna.c: EDNA tests, step by step as docs/rules/edna.md numbers them.
 */
#include "edna.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void edna_options_default(edna_options *o)
{
    o->dice = 2;
    o->faces = 6;
}

err_code edna_validate(const edna_input *in, err_info *e)
{
    char f[ERR_FIELD_MAX];
    size_t i;

    if (in->options.dice < 1 || in->options.dice > EDNA_MAX_DICE)
        return err_set(e, ERR_RANGE, "options.dice",
                       "must be between 1 and %d, not %d", EDNA_MAX_DICE,
                       in->options.dice);
    if (in->options.faces < RNG_FACES_MIN || in->options.faces > RNG_FACES_MAX)
        return err_set(e, ERR_RANGE, "options.faces",
                       "must be between %d and %d, not %d", RNG_FACES_MIN,
                       RNG_FACES_MAX, in->options.faces);
    if (in->n_units == 0)
        return err_set(e, ERR_RANGE, "units", "needs at least one unit");
    if (in->n_units > EDNA_MAX_UNITS)
        return err_set(e, ERR_LIMIT, "units",
                       "at most %d units are tested at once, not %zu",
                       EDNA_MAX_UNITS, in->n_units);
    for (i = 0; i < in->n_units; i++) {
        const edna_unit *u = &in->units[i];
        if (u->edna < 0 || u->edna > EDNA_MAX) {
            snprintf(f, sizeof f, "units[%zu].edna", i);
            return err_set(e, ERR_RANGE, f, "must be between 0 and %d, not %d",
                           EDNA_MAX, u->edna);
        }
        if (u->modifier < -EDNA_MODIFIER_LIMIT ||
            u->modifier > EDNA_MODIFIER_LIMIT) {
            snprintf(f, sizeof f, "units[%zu].modifier", i);
            return err_set(e, ERR_RANGE, f, "must be between %d and %d, not %d",
                           -EDNA_MODIFIER_LIMIT, EDNA_MODIFIER_LIMIT,
                           u->modifier);
        }
        /* Step 5: an ineffective unit takes no more tests. */
        if (u->edna == 0) {
            snprintf(f, sizeof f, "units[%zu]", i);
            return err_set(e, ERR_RULE, f,
                           "the unit is ineffective (EDNA 0) and cannot be "
                           "tested");
        }
    }
    return ERR_OK;
}

err_code edna_resolve(const edna_input *in, dice_source *dice, edna_result *out,
                      err_info *e)
{
    size_t i;
    int k;
    err_code rc;

    memset(out, 0, sizeof *out);
    if ((rc = edna_validate(in, e)))
        return rc;
    out->units = calloc(in->n_units, sizeof *out->units);
    if (out->units == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    out->n_units = in->n_units;
    for (i = 0; i < in->n_units; i++) {
        const edna_unit *u = &in->units[i];
        edna_result_unit *r = &out->units[i];
        int sum = 0;

        /* Step 1: roll the dice; total = naturals + modifier. */
        r->first_roll = dice->n_log;
        for (k = 0; k < in->options.dice; k++) {
            int natural;
            if ((rc = dice_roll_die(dice, in->options.faces, 0, (int)i,
                                    "edna.test", &natural, NULL, e)))
                return rc;
            sum += natural;
        }
        r->total = sum + u->modifier;
        r->edna_before = u->edna;
        /* Steps 2 to 4: at or under EDNA passes; over takes the excess. */
        r->is_passed = r->total <= u->edna;
        r->edna_after = r->is_passed ? u->edna : u->edna - (r->total - u->edna);
        /* Step 5: never below 0; at 0 the unit is ineffective. */
        if (r->edna_after < 0)
            r->edna_after = 0;
        r->is_ineffective = r->edna_after == 0;
    }
    return ERR_OK;
}

void edna_result_cleanup(edna_result *out)
{
    if (out == NULL)
        return;
    free(out->units);
    memset(out, 0, sizeof *out);
}

static err_code resolve_any(const void *input, dice_source *dice, void *result,
                            err_info *e)
{
    return edna_resolve(input, dice, result, e);
}

static void cleanup_any(void *result)
{
    edna_result_cleanup(result);
}

const registry_system edna_system = {
    .name = "edna",
    .title = "EDNA: Ever Decreasing Number Allocation",
    .rules = "docs/rules/edna.md",
    .input_size = sizeof(edna_input),
    .result_size = sizeof(edna_result),
    .resolve = resolve_any,
    .result_cleanup = cleanup_any,
};
