/*
 * dice.c: dice sources and the roll log; see dice.h.
 */
#include "dice.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void dice_init_seeded(dice_source *d, const uint8_t seed[RNG_SEED_LEN],
                      const uint8_t *client_seed, size_t client_seed_len)
{
    memset(d, 0, sizeof *d);
    d->kind = DICE_SEEDED;
    rng_v1_init(&d->rng, seed, client_seed, client_seed_len);
}

void dice_init_values(dice_source *d, dice_kind kind, const int *values,
                      size_t n_values)
{
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->values = values;
    d->n_values = n_values;
}

void dice_forget_log(dice_source *d)
{
    d->n_log = 0;
}

void dice_restart_values(dice_source *d, const int *values, size_t n_values)
{
    assert(d->kind != DICE_SEEDED);
    d->values = values;
    d->n_values = n_values;
    d->next_value = 0;
    d->n_log = 0;
}

void dice_cleanup(dice_source *d)
{
    if (d == NULL)
        return;
    free(d->log);
    rng_v1_cleanup(&d->rng);
    memset(d, 0, sizeof *d);
}

static err_code log_append(dice_source *d, err_info *e)
{
    if (d->n_log == d->log_cap) {
        size_t cap = d->log_cap ? 2 * d->log_cap : 16;
        dice_roll *log = realloc(d->log, cap * sizeof *log);
        if (log == NULL)
            return err_set(e, ERR_NOMEM, NULL,
                           "out of memory for the roll log");
        d->log = log;
        d->log_cap = cap;
    }
    return ERR_OK;
}

void dice_skip(dice_source *d, int faces, size_t n)
{
    size_t i;

    if (d->kind != DICE_SEEDED)
        return;
    for (i = 0; i < n; i++)
        (void)rng_v1_die(&d->rng, faces);
}

err_code dice_roll_die(dice_source *d, int faces, int side, int unit,
                       const char *reason, int *natural, size_t *log_index,
                       err_info *e)
{
    dice_roll *row;
    int value;

    if (faces < RNG_FACES_MIN || faces > RNG_FACES_MAX)
        return err_set(e, ERR_RANGE, "faces",
                       "a die has %d to %d faces, not %d", RNG_FACES_MIN,
                       RNG_FACES_MAX, faces);
    if (log_append(d, e) != ERR_OK)
        return ERR_NOMEM;
    if (d->kind == DICE_SEEDED) {
        value = rng_v1_die(&d->rng, faces);
    } else {
        if (d->next_value >= d->n_values)
            return err_set(e, ERR_DICE, "dice",
                           "the combat needs more than the %zu %s dice given",
                           d->n_values, dice_kind_name(d->kind));
        value = d->values[d->next_value];
        if (value < 1 || value > faces)
            return err_set(e, ERR_DICE, "dice",
                           "%s die %zu is %d, but a d%d shows 1 to %d",
                           dice_kind_name(d->kind), d->next_value + 1, value,
                           faces, faces);
        d->next_value++;
    }
    row = &d->log[d->n_log];
    row->faces = faces;
    row->natural = value;
    row->modified = value;
    row->side = side;
    row->unit = unit;
    row->reason = reason;
    if (log_index != NULL)
        *log_index = d->n_log;
    d->n_log++;
    *natural = value;
    return ERR_OK;
}

err_code dice_check_all_used(const dice_source *d, err_info *e)
{
    if (d->kind != DICE_SEEDED && d->next_value != d->n_values)
        return err_set(e, ERR_DICE, "dice",
                       "%zu %s dice were given but the combat used %zu",
                       d->n_values, dice_kind_name(d->kind), d->next_value);
    return ERR_OK;
}

const char *dice_kind_name(dice_kind kind)
{
    switch (kind) {
    case DICE_SEEDED: return "seeded";
    case DICE_ENTERED: return "entered";
    case DICE_REPLAY: return "replay";
    }
    return "unknown";
}
