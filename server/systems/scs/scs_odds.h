/*
 * scs_odds.h: SCS's odds stage (systems.h; docs/odds.md, "SCS"): the
 * combat read and bound as the combat's, core/odds_scs.c's counts as
 * JSON.
 */
#ifndef UMPIRE_SCS_ODDS_H
#define UMPIRE_SCS_ODDS_H

#include <jansson.h>

#include "odds_json.h"

/* The answer to q (new), or NULL with e set. */
json_t *scs_odds_answer(const odds_json_req *q, err_info *e);

#endif
