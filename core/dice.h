/*
 * dice.h: the one dice-source interface every combat system draws from.
 *
 * A dice source is one of three kinds (docs/dice.md):
 *   DICE_SEEDED   the rng v1 stream from a server seed and a client seed;
 *   DICE_ENTERED  values an umpire rolled at a table and typed in;
 *   DICE_REPLAY   the naturals logged by an earlier combat, fed back.
 * Combat code calls dice_roll and never asks which kind it has.  Every die
 * drawn is appended to the source's roll log, in order, with the unit and
 * the reason it was rolled for; the combat fills in the modified value.
 */
#ifndef UMPIRE_DICE_H
#define UMPIRE_DICE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "rng.h"

typedef enum dice_kind { DICE_SEEDED, DICE_ENTERED, DICE_REPLAY } dice_kind;

/* One row of the roll log. */
typedef struct dice_roll {
    int faces;          /* the die's faces */
    int natural;        /* what the die shows */
    int modified;       /* after modifiers; the combat sets it, else natural */
    int side;           /* side index in the combat, or -1 */
    int unit;           /* unit index within its side, or -1 */
    const char *reason; /* static string such as "scrud.front" */
} dice_roll;

typedef struct dice_source {
    dice_kind kind;
    rng_v1 rng;        /* DICE_SEEDED only */
    const int *values; /* DICE_ENTERED, DICE_REPLAY: borrowed naturals */
    size_t n_values;
    size_t next_value; /* index of the next value to hand out */
    dice_roll *log;    /* the roll log, owned */
    size_t n_log;
    size_t log_cap;
} dice_source;

/* A seeded source; client_seed may be NULL (empty). */
void dice_init_seeded(dice_source *d, const uint8_t seed[RNG_SEED_LEN],
                      const uint8_t *client_seed, size_t client_seed_len);

/*
 * An entered or replay source handing out values in order.  values is
 * borrowed and must outlive the source.
 */
void dice_init_values(dice_source *d, dice_kind kind, const int *values,
                      size_t n_values);

/*
 * Reuse for many combats (the odds, core/odds.h): dice_forget_log empties
 * the roll log, keeping its storage (a seeded source goes on where its
 * stream stands); dice_restart_values does the same for an entered or
 * replay source and hands out values (borrowed) from the first.
 */
void dice_forget_log(dice_source *d);
void dice_restart_values(dice_source *d, const int *values, size_t n_values);

/* Frees the roll log and wipes key material; NULL allowed. */
void dice_cleanup(dice_source *d);

/*
 * Draws one die of faces faces for (side, unit) and logs it.  *natural gets
 * the value and, if log_index is not NULL, *log_index its row.  Fails with
 * ERR_DICE when an entered or replay source has no value left or its value
 * does not fit the die (field "dice"), ERR_NOMEM when the log cannot grow.
 */
err_code dice_roll_die(dice_source *d, int faces, int side, int unit,
                       const char *reason, int *natural, size_t *log_index,
                       err_info *e);

/*
 * Advances a seeded source past n dice of faces faces, as if they had been
 * drawn, without logging them: an interactive battle's next action
 * continues the stream where its earlier actions left it.  Other kinds
 * are left alone.
 */
void dice_skip(dice_source *d, int faces, size_t n);

/*
 * ERR_DICE if an entered or replay source still holds unused values: a
 * combat must use every die typed in, no more and no fewer.
 */
err_code dice_check_all_used(const dice_source *d, err_info *e);

/* "seeded", "entered" or "replay". */
const char *dice_kind_name(dice_kind kind);

#endif
