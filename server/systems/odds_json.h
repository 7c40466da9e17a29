/*
 * odds_json.h: the odds (docs/odds.md) between JSON and core/odds.h, for
 * every system: the request's "odds" object (the method, the budget, the
 * seed, and what a system asks besides), the request as the systems'
 * odds stages take it (systems.h), the time bound, and the answer's
 * common parts: its head (exact or not, how, with what budget) and every
 * probability or mean as {"fraction", "decimal"} (exact) or
 * {"decimal", "se"} (sampled).
 */
#ifndef UMPIRE_ODDS_JSON_H
#define UMPIRE_ODDS_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "db.h"
#include "odds.h"
#include "rng.h"

#define ODDS_JSON_TIME_LIMIT_MS 5000   /* the time bound of one answer */
#define ODDS_JSON_SEED_DEFAULT  "odds" /* the Monte Carlo seed */
#define ODDS_JSON_AHEAD_DEFAULT 3      /* EDNA: tests after this one */

/* What the "odds" object asks. */
typedef struct odds_json_ask {
    odds_limits limits; /* its seed points at seed below */
    char seed[RNG_CLIENT_SEED_MAX + 1];
    double deadline; /* monotonic seconds: the time bound */
    /* EDNA */
    int tests_ahead;
    bool has_later_modifier;
    int later_modifier;
    /* Matrix: a reserve considered, as a commit action names it */
    bool has_reserve;
    int reserve_combat;
    int reserve_army; /* MATRIX_ATTACKER or MATRIX_DEFENDER */
    char reserve_unit[DB_NAME_MAX];
    /* Civilization: the battle on standing orders too */
    bool is_battle;
} odds_json_ask;

/* An odds request as the systems' odds stages take it (systems.h). */
typedef struct odds_json_req {
    const struct systems_entry *system;
    const json_t *body;      /* the combat's body without "odds" (borrowed) */
    const char *campaign_id; /* NULL: one-off */
    const char *token_id;    /* the caller's token, or "" */
    db *d;
    odds_json_ask ask;
} odds_json_req;

/*
 * Reads obj (the body's "odds", or NULL for none) for system into ask,
 * with the time bound starting now.  Strict: a field the system does not
 * take is ERR_UNKNOWN_FIELD ("odds.<name>").
 */
err_code odds_json_read(const json_t *obj, const char *system,
                        odds_json_ask *ask, err_info *e);

/* {"fraction": "7/36", "decimal": 0.19...} or {"decimal", "se"} (new). */
json_t *odds_json_value(const odds_value *v);
/* The mean of a over total (share: a block's members), as above. */
json_t *odds_json_acc(const odds_acc *a, odds_count total, unsigned share,
                      bool is_exact);

/* A count in decimal (a string: counts outgrow JSON's safe integers). */
json_t *odds_json_count(odds_count n);

/*
 * The answer's head (new): "system", "exact", "method", "resolve_calls",
 * "throws" (exact) and "samples" (sampled), "seed", "why" (why sampled,
 * or null), and "budget".
 */
json_t *odds_json_head(const char *system, const odds_stats *st,
                       const odds_json_ask *ask);

/* A part's own "exact", "method", "throws"/"samples", "why" into o. */
void odds_json_part(json_t *o, const odds_stats *st);

#endif
