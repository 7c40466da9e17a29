/*
 * matrix_odds.h: Matrix's odds stage (systems.h; docs/odds.md, "Matrix"):
 * a one-off plan, a campaign battle as it stands, or a campaign setup,
 * and core/odds_matrix.c's counts as JSON.
 */
#ifndef UMPIRE_MATRIX_ODDS_H
#define UMPIRE_MATRIX_ODDS_H

#include <jansson.h>

#include "odds_json.h"

/* The answer to q (new), or NULL with e set. */
json_t *matrix_odds_answer(const odds_json_req *q, err_info *e);

#endif
