/*
 * fog_rig.h: the campaign the fog of war suite (test_fog_http.c) reads
 * through fog: sides red (the player) and blue, units of every system,
 * a SCRUD combat that eliminates a blue unit, an EDNA test, an SCS
 * combat, a Matrix battle fought to its end (its record a combat) and a
 * Civilization battle a phase in, and a blue unit eliminated by the
 * umpire.  Helpers abort the test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_FOG_RIG_H
#define UMPIRE_TESTS_FOG_RIG_H

#include <jansson.h>

#include "fog.h"
#include "harness.h"

/* The levels by fog.h's order (fog_level): full, status, name, hidden. */
extern const char *const fog_rig_levels[];

/* The campaign and what was fought in it. */
typedef struct fog_rig_world {
    test_campaign c;    /* red: player[0]; blue */
    char combat[4][64]; /* SCRUD, EDNA, SCS, the Matrix battle's record */
    char battle[2][64]; /* Matrix, Civilization */
    json_t *blue_ids;   /* blue's unit ids (an array) */
} fog_rig_world;

/* Builds it on rig_ts (rig.h) into *w: release with fog_rig_free. */
void fog_rig_build(fog_rig_world *w);
void fog_rig_free(fog_rig_world *w);

/* Sets the campaign's fog with PATCH, and checks the answer: off (level
 * -1, others "hidden": the switch alone turns it off) or on at a level
 * (FOG_FULL..FOG_HIDDEN). */
void fog_rig_set_fog(const fog_rig_world *w, int level);

#endif
