/*
 * civ_odds.h: Civilization's odds stage (systems.h; docs/odds.md,
 * "Civilization"): a one-off battle's first phase and the battle on its
 * standing orders, or a campaign battle's next phase with the orders
 * given (and the battle on from there), as JSON from core/odds_civ.c.
 */
#ifndef UMPIRE_CIV_ODDS_H
#define UMPIRE_CIV_ODDS_H

#include <jansson.h>

#include "odds_json.h"

/* The answer to q (new), or NULL with e set. */
json_t *civ_odds_answer(const odds_json_req *q, err_info *e);

#endif
