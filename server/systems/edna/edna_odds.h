/*
 * edna_odds.h: EDNA's odds stage (systems.h; docs/odds.md, "EDNA"): the
 * test read and bound as the test's, core/odds_edna.c's odds as JSON.
 */
#ifndef UMPIRE_EDNA_ODDS_H
#define UMPIRE_EDNA_ODDS_H

#include <jansson.h>

#include "odds_json.h"

/* The answer to q (new), or NULL with e set. */
json_t *edna_odds_answer(const odds_json_req *q, err_info *e);

#endif
