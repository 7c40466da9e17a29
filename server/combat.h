/*
 * combat.h: what combats of every system share in the server: how the
 * request's "dice" are read (and a seed drawn), the dice and roll-log parts
 * of a report, and the checks replay makes whatever the system.
 */
#ifndef UMPIRE_COMBAT_H
#define UMPIRE_COMBAT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "db.h"
#include "dice.h"
#include "err.h"
#include "jsonw.h"

/* How a combat's dice are produced. */
typedef struct combat_dice {
    dice_kind kind;
    uint8_t seed[RNG_SEED_LEN];
    char seed_hex[2 * RNG_SEED_LEN + 1];
    char commitment[65];
    char client_seed[RNG_CLIENT_SEED_MAX + 1];
    size_t client_seed_len;
    bool has_client_seed;
} combat_dice;

/* Parses the body's "dice" ({"source", "client_seed"}) into d; seeded
 * dice get a fresh server seed from the operating system and its
 * commitment. */
err_code combat_parse_dice(const json_t *body, combat_dice *d, err_info *e);

/* The report's "dice" object for a stored combat. */
void combat_dice_write(jw *w, const db_combat *cb);
/* The roll log as a JSON array. */
void combat_rolls_write(jw *w, const db_roll *rolls, size_t n);
/* The report as served: the stored report text with its roll log spliced
 * in as the last member (new string, or NULL). */
char *combat_report_with_rolls(const char *report, const db_roll *rolls,
                               size_t n);

/* Appends one difference to a replay's list. */
void combat_differ(json_t *diffs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Seeded dice: the revealed seed matches its commitment and, with the
 * client seed, gives every logged natural (rng v1).  True when all match. */
bool combat_check_seeded_dice(const db_combat *cb, const db_roll *rolls,
                              size_t n, json_t *diffs);
/* The report's own "dice" agree with the combat's row. */
void combat_check_report_dice(const db_combat *cb, json_t *diffs);

#endif
