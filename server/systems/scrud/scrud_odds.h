/*
 * scrud_odds.h: SCRUD's odds stage (systems.h; docs/odds.md, "SCRUD"):
 * the request read and bound as the combat's, core/odds_scrud.c's counts
 * as JSON.
 */
#ifndef UMPIRE_SCRUD_ODDS_H
#define UMPIRE_SCRUD_ODDS_H

#include <jansson.h>

#include "odds_json.h"

/* The answer to q (new), or NULL with e set. */
json_t *scrud_odds_answer(const odds_json_req *q, err_info *e);

#endif
