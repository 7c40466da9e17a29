/*
 * civ_rig.h: what the Civilization-over-HTTP suite (test_civ_http.c,
 * beside it) needs on top of scs_rig.h and matrix_rig.h: campaigns
 * and Civilization pieces made through the API, the battles of
 * tests/vectors/civ-examples.json turned into requests and checked against
 * the file, and a reference model of docs/rules/civ.md that checks
 * every phase of a served report (waves, aircraft, each term of each
 * total, damage and losses) and its end.
 *
 * JSON a helper returns is kept by the scs rig until teardown (borrowed by
 * the caller) unless it says new.  Helpers abort the test (Check) on
 * failure, naming rig_ctx.
 */
#ifndef UMPIRE_TESTS_CIV_RIG_H
#define UMPIRE_TESTS_CIV_RIG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "harness.h"
#include "scs_rig.h"

/* s is one of the strings of the array arr. */
bool cv_has(const json_t *arr, const char *s);

/* A campaign with two sides, the attacker's first. */
void cv_campaign(test_campaign *c, const char *att, const char *def);
/* A unit of side carrying the Civilization piece civ (JSON text), which
 * the answer (kept) shows; its id in id_out (64 bytes) unless NULL. */
json_t *cv_unit(const test_campaign *c, const char *name, const char *side,
                const char *civ, char *id_out);

/*
 * The battles of civ-examples.json: armies by name ("bob", "alice") with
 * units {id, class, era, bonus, dice_multiplier}, and phases {waves,
 * aircraft_support, casualty_order, dice, expect {totals, terms,
 * destroyed}}, each keyed by army name.
 */
/* The army index (0 attacker, 1 defender) of the vector army name. */
int cv_vec_army(const json_t *bt, const char *name);
/* The name of the vector's army a. */
const char *cv_vec_name(const json_t *bt, int a);
/* Creates the vector's units in c, named by their ids; the map from name
 * to unit id (kept). */
json_t *cv_vec_units(const test_campaign *c, const json_t *bt);
/* The campaign battle's request: sides and units by name, entered dice
 * (new). */
json_t *cv_vec_campaign_body(const json_t *bt, int turn);
/* The phase action of vector phase ph: the waves, aircraft classes and
 * casualty orders it gives, and its dice per army (new). */
json_t *cv_vec_action(const json_t *bt, const json_t *ph);
/* The one-off request of the first n phases: inline armies, their dice as
 * rolls in draw order, each army's wave preference its waves of those
 * phases in turn, its class and casualty order those of the first phase
 * (new). */
json_t *cv_vec_oneoff_body(const json_t *bt, size_t n);
/* A served phase against vector phase ph: the waves and classes given,
 * the dice, totals, the terms it lists and the units destroyed. */
void cv_vec_check_phase(const json_t *got, const json_t *bt, const json_t *ph);
/* The survivors {"attacker", "defender"} after the vector's first n
 * phases (kept). */
json_t *cv_vec_survivors(const json_t *bt, size_t n);

/*
 * rep's phases and end (a one-off report, a battle's state or a record)
 * against civ.md, from setup ({current_era, settlement, great_wall,
 * attacker/defender {name, technologies, units [{name, class, era, bonus,
 * dice_multiplier}]}}).  plan, if not NULL, holds each army's standing
 * orders ({wave_preference, aircraft_support, casualty_order}, absent
 * ones defaulted): every wave, class and loss is then checked exactly.
 * With plan NULL (orders unknown) what any orders give is checked: wave
 * sizes and units, the aircraft of the class named, every term, totals
 * clamped at 0, losses oldest era first while the damage pays for them.
 */
void cv_check_report(const json_t *rep, const json_t *setup,
                     const json_t *plan);
/* rolls (a record's log) are rep's dice in draw order: per phase the
 * attacker's wave then its aircraft, then the defender's; modified is the
 * die (6 as 5) times the era or the multiplier; source as given. */
void cv_check_rolls(const json_t *rolls, const json_t *rep, const json_t *setup,
                    const char *source);

#endif
