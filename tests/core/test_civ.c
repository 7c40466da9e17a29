/*
 * test_civ.c: core/civ.c against the Civilization advanced combat rules
 * (../shared/rules/civ.md, from Kraybill's variant v1.4).
 *
 * The vectors ($UMPIRE_TEST_VECTORS/civ-examples.json) are loaded as data:
 * every phase on its entered dice, every key of "expect" checked, no
 * expected number copied into C.  Then the rules one at a time on hand-worked
 * dice (dice and eras, aircraft and their support, science, CIA, the
 * settlement, damage and loss orders), every refusal with its field (each
 * leaving the battle as it was, no die drawn), civ_resolve and the registry
 * entry, and properties over random battles on seeded dice.  Every phase fought
 * is also checked against the reference model of civ_fixture.c.  Armies are
 * written as cfix_build specs: "c4 c2 | i4 o4" is two cavalry (eras 4 and 2)
 * against an infantry and an "other", "o1-1" has bonus -1, "p2" is an aircraft
 * with dice multiplier 2.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "civ.h"
#include "civ_fixture.h"
#include "dice.h"
#include "registry.h"
#include "suites.h"

#define N_ELEMS   CFIX_N
#define FIGHT     CFIX_FIGHT
#define DESTROYED CFIX_DESTROYED

typedef cfix_hand hfix;

/* ---- the vectors ---- */

START_TEST(test_vectors)
{
    json_t *root = cfix_load_vectors("civ-examples.json");
    const json_t *battles = json_object_get(root, "battles"), *j;
    size_t i;

    cfix_known_keys(root, " name source note battles ", "civ-examples");
    ck_assert(json_is_array(battles) && json_array_size(battles) >= 2);
    json_array_foreach(battles, i, j)
    {
        free(cfix_vbattle_play(j));
    }
    json_decref(root);
}
END_TEST

/* ---- names and setups ---- */

START_TEST(test_class_names)
{
    static const char *const names[] = {"infantry", "cavalry", "artillery",
                                        "aircraft", "other"};
    civ_class c;
    int i;

    for (i = 0; i < 5; i++) {
        ck_assert_str_eq(civ_class_name((civ_class)i), names[i]);
        ck_assert(civ_class_parse(names[i], &c));
        ck_assert_int_eq(c, i);
    }
    ck_assert(!civ_class_parse("tank", &c));
    ck_assert(!civ_class_parse("Infantry", &c));
}
END_TEST

/* "i1 c2 | i1 p1" spoiled one way per row. */
static const struct {
    const char *name;
    int what, value;
    err_code code;
    const char *field;
} setup_cases[] = {
    {"current era 0", 0, 0, ERR_RANGE, "current_era"},
    {"current era 5", 0, 5, ERR_RANGE, "current_era"},
    {"no units", 1, 0, ERR_RANGE, "attacker.units"},
    {"101 units", 1, CIV_MAX_UNITS + 1, ERR_RANGE, "attacker.units"},
    {"technologies -1", 2, -1, ERR_RANGE, "attacker.technologies"},
    {"101 technologies", 2, 101, ERR_RANGE, "attacker.technologies"},
    {"era 0", 3, 0, ERR_RANGE, "attacker.units[1]"},
    {"era 5", 3, 5, ERR_RANGE, "attacker.units[1]"},
    {"bonus 21", 4, 21, ERR_RANGE, "attacker.units[1]"},
    {"bonus -21", 4, -21, ERR_RANGE, "attacker.units[1]"},
    {"multiplier 0", 5, 0, ERR_RANGE, "defender.units[1]"},
    {"multiplier 11", 5, 11, ERR_RANGE, "defender.units[1]"},
    {"aircraft alone", 6, 0, ERR_RULE, "defender.units"},
    {"class 7", 8, 7, ERR_INVALID, "attacker.units[1]"}, /* not an index */
    {"every limit", 7, 0, ERR_OK, ""},
};

START_TEST(test_setup_checks)
{
    civ_setup *s = calloc(1, sizeof *s);
    int v = setup_cases[_i].value;
    err_info e;

    ck_assert_ptr_nonnull(s);
    cfix_setup_init(s);
    cfix_build(s, "i1 c2 | i1 p1");
    switch (setup_cases[_i].what) {
    case 0: s->current_era = v; break;
    case 1: s->armies[0].n_units = v; break;
    case 2: s->armies[0].technologies = v; break;
    case 3: s->armies[0].units[1].era = v; break;
    case 4: s->armies[0].units[1].bonus = v; break;
    case 5: s->armies[1].units[1].dice_multiplier = v; break;
    case 6: s->armies[1].units[0] = s->armies[1].units[1]; break;
    case 8: s->armies[0].units[1].cls = (civ_class)v; break;
    default:
        s->current_era = 4;
        s->armies[0].technologies = CIV_TECH_MAX;
        s->armies[0].units[0].bonus = -CIV_BONUS_MAX;
        s->armies[0].units[1].bonus = CIV_BONUS_MAX;
        s->armies[0].units[1].era = CIV_MAX_ERA;
        s->armies[1].units[1].dice_multiplier = CIV_MULTIPLIER_MAX;
        while (s->armies[0].n_units < CIV_MAX_UNITS)
            cfix_build(s, "o1");
    }
    err_clear(&e);
    ck_assert_msg(civ_check_setup(s, &e) == setup_cases[_i].code, "%s: %s",
                  setup_cases[_i].name, e.message);
    ck_assert_str_eq(e.field, setup_cases[_i].field);
    free(s);
}
END_TEST

/* civ_battle_init checks the setup before it marks units alive: too many
 * units are refused without a write past is_alive. */
START_TEST(test_init_checks_first)
{
    struct {
        civ_battle b;
        unsigned char canary[128];
    } *w = calloc(1, sizeof *w);
    civ_setup *s = calloc(1, sizeof *s);
    size_t k;
    err_info e;

    ck_assert(w != NULL && s != NULL);
    memset(w->canary, 0xa5, sizeof w->canary);
    cfix_setup_init(s);
    cfix_build(s, "i1 | i1");
    s->armies[1].n_units = CIV_MAX_UNITS + 60;
    ck_assert_int_eq(civ_battle_init(&w->b, s, &e), ERR_RANGE);
    for (k = 0; k < sizeof w->canary; k++)
        ck_assert_msg(w->canary[k] == 0xa5, "byte %zu past the battle", k);
    free(w);
    free(s);
}
END_TEST

/* ---- step 3: the dice ---- */

/* A 6 counts as 5; both single units die at once: no winner, no more
 * phases. */
START_TEST(test_six_counts_as_five)
{
    hfix *f = cfix_hand_new("o1 | o1");

    FIGHT(f, 6, 6);
    ck_assert_int_eq(f->ph.armies[0].base, 5);
    ck_assert_int_eq(f->ph.armies[1].base, 5);
    ck_assert_int_eq(f->d.log[0].natural, 6);
    ck_assert_int_eq(f->d.log[0].modified, 5);
    ck_assert(civ_is_over(&f->b));
    ck_assert_int_eq(f->b.winner, -1);
    cfix_refused(f, ERR_CONFLICT, "");
    cfix_hand_free(f);
}
END_TEST

START_TEST(test_eras_multiply)
{
    hfix *f = cfix_hand_new("o3 o2 | o4 o4");

    FIGHT(f, 4, 3, 2, 1);
    ck_assert_int_eq(f->ph.armies[0].base, 4 * 3 + 3 * 2);
    ck_assert_int_eq(f->ph.armies[1].base, 2 * 4 + 1 * 4);
    /* 18 does not pay for a modern unit (20); 12 pays for the medieval
     * one (10) and leaves 2, short of the gunpowder one. */
    DESTROYED(&f->ph.armies[1]);
    ck_assert_int_eq(f->ph.armies[1].damage_lost, 18);
    DESTROYED(&f->ph.armies[0], 1);
    ck_assert_int_eq(f->ph.armies[0].damage_lost, 2);
    cfix_hand_free(f);
}
END_TEST

/* ---- step 2: aircraft ---- */

START_TEST(test_aircraft_multiplier)
{
    hfix *f = cfix_hand_new("o1 p2 p3 | o1");

    FIGHT(f, 2, 6, 1); /* one plane per "other" unit: the second idles */
    ck_assert_int_eq(f->ph.armies[0].support, CIV_OTHER);
    ck_assert_int_eq(f->ph.armies[0].n_aircraft, 1);
    ck_assert_int_eq(f->ph.armies[0].idle_aircraft, 1);
    ck_assert_int_eq(f->ph.armies[0].air, 5 * 2);
    ck_assert_int_eq(f->ph.armies[0].total, 12);
    ck_assert_str_eq(f->d.log[1].reason, "civ.aircraft");
    ck_assert_int_eq(f->d.log[1].unit, 1);
    ck_assert_int_eq(f->b.winner, 0);
    ck_assert(f->b.is_alive[0][1] && f->b.is_alive[0][2]);
    cfix_hand_free(f);
}
END_TEST

/* The default class: most units in the wave; ties infantry, cavalry,
 * artillery.  Three aircraft; at most one per unit of the class; the
 * defender, as many "other" units, has none. */
static const struct {
    const char *spec;
    int support, fight;
} support_cases[] = {
    {"i1 c1 p1 p1 p1 | o1 o1", CIV_INFANTRY, 1},
    {"c1 a1 p1 p1 p1 | o1 o1", CIV_CAVALRY, 1},
    {"a1 i1 p1 p1 p1 | o1 o1", CIV_INFANTRY, 1},
    {"a1 a1 i1 p1 p1 p1 | o1 o1 o1", CIV_ARTILLERY, 2},
    {"c1 i1 c1 c1 c1 p1 p1 p1 | o1 o1 o1 o1 o1", CIV_CAVALRY, 3},
    {"o1 o1 i1 p1 p1 p1 | o1 o1 o1", CIV_OTHER, 2},
    {"a1 p1 p1 p1 | o1", CIV_ARTILLERY, 1},
};

START_TEST(test_support_default)
{
    hfix *f = cfix_hand_new(support_cases[_i].spec);
    int n = f->s.armies[1].n_units;

    cfix_fight(f, cfix_same(1), (size_t)(2 * n + support_cases[_i].fight));
    ck_assert_int_eq(f->ph.armies[0].support, support_cases[_i].support);
    ck_assert_int_eq(f->ph.armies[0].n_aircraft, support_cases[_i].fight);
    ck_assert_int_eq(f->ph.armies[0].idle_aircraft,
                     3 - support_cases[_i].fight);
    ck_assert_int_eq(f->ph.armies[1].support, -1);
    cfix_hand_free(f);
}
END_TEST

/* A class named: one aircraft per unit of it, none for a class absent. */
START_TEST(test_support_named)
{
    hfix *f = cfix_hand_new("c1 c1 i1 p1 p1 p1 | o4 o4 o4");

    f->o[0].support = CIV_INFANTRY;
    FIGHT(f, 1, 1, 1, 2, 1, 1, 1);
    ck_assert_int_eq(f->ph.armies[0].n_aircraft, 1);
    ck_assert_int_eq(f->ph.armies[0].aircraft[0], 3);
    ck_assert_int_eq(f->ph.armies[0].idle_aircraft, 2);
    ck_assert_int_eq(f->ph.armies[0].air, 2);
    DESTROYED(&f->ph.armies[0], 0, 1); /* 12: cavalry, no plane with them */
    f->o[0].support = CIV_ARTILLERY;
    FIGHT(f, 1, 1); /* the infantry alone now, against one */
    ck_assert_int_eq(f->ph.armies[0].n_aircraft, 0);
    ck_assert_int_eq(f->ph.armies[0].idle_aircraft, 3);
    cfix_hand_free(f);
}
END_TEST

/* Each destroyed unit of the supported class takes one aircraft with it;
 * units of another class take none. */
START_TEST(test_aircraft_die_with_units)
{
    hfix *f = cfix_hand_new("c1 c1 c1 i1-1 p1 p1 | o1 o1 o1 o1");

    FIGHT(f, 1, 1, 1, 1, 1, 1, 4, 4, 4, 3); /* 15 damage */
    ck_assert_int_eq(f->ph.armies[0].support, CIV_CAVALRY);
    ck_assert_int_eq(f->ph.armies[0].n_aircraft, 2);
    /* The infantry (bonus -1) first, then two cavalry with their planes. */
    DESTROYED(&f->ph.armies[0], 3, 0, 4, 1, 5);
    cfix_hand_free(f);
}
END_TEST

/* No regular unit left: the aircraft go too, idle ones included; with
 * regulars left outside the wave, the idle aircraft stay. */
START_TEST(test_aircraft_lost_without_regulars)
{
    hfix *f = cfix_hand_new("i1 p1 p1 | o1 o1");

    FIGHT(f, 1, 1, 5);
    DESTROYED(&f->ph.armies[0], 0, 1, 2);
    ck_assert_int_eq(f->b.winner, 1);
    cfix_hand_free(f);
    f = cfix_hand_new("i1 c1 p1 p1 | o1");
    FIGHT(f, 1, 1, 5);
    DESTROYED(&f->ph.armies[0], 0, 2);
    ck_assert(f->b.is_alive[0][3]);
    ck_assert(!civ_is_over(&f->b));
    cfix_hand_free(f);
}
END_TEST

/* ---- step 3: the other terms ---- */

/* floor(units * difference / 2) for the army with more technologies;
 * aircraft are not units here. */
static const struct {
    const char *spec;
    int t0, t1, s0, s1;
} science_cases[] = {
    {"o4 o4 o4 p1 | o4 o4 o4 p1", 6, 3, 4, 0},
    {"o4 o4 o4 p1 | o4 o4 o4 p1", 3, 6, 0, 4},
    {"o4 o4 o4 p1 | o4 o4 o4 p1", 5, 5, 0, 0},
    {"o4 p1 | o4 p1", 4, 3, 0, 0},
    {"o4 o4 p1 | o4 o4 p1", 4, 3, 1, 0},
    {"o4 o4 | o4 o4", 8, 0, 8, 0},
};

START_TEST(test_science)
{
    hfix *f = cfix_hand_new(science_cases[_i].spec);

    f->s.armies[0].technologies = science_cases[_i].t0;
    f->s.armies[1].technologies = science_cases[_i].t1;
    /* A die a unit: every aircraft supports the "other" units. */
    cfix_fight(f, cfix_same(1),
               (size_t)(f->s.armies[0].n_units + f->s.armies[1].n_units));
    ck_assert_int_eq(f->ph.armies[0].science, science_cases[_i].s0);
    ck_assert_int_eq(f->ph.armies[1].science, science_cases[_i].s1);
    cfix_hand_free(f);
}
END_TEST

START_TEST(test_cia)
{
    /* Two cavalry (eras 4 and 2) against one infantry: the era 4 one. */
    hfix *f = cfix_hand_new("c4 c2 | i4 o4");

    FIGHT(f, 1, 1, 1, 1);
    ck_assert_int_eq(f->ph.armies[0].cia, 4);
    ck_assert_int_eq(f->ph.armies[0].cia_matches[0], 1);
    ck_assert_int_eq(f->ph.armies[1].cia, 0);
    cfix_hand_free(f);
    /* The whole triangle both ways. */
    f = cfix_hand_new("i2 c3 a1 | a1 i4 c2");
    FIGHT(f, 1, 1, 1, 1, 1, 1);
    ck_assert_int_eq(f->ph.armies[0].cia, 3 + 2 + 1);
    ck_assert_int_eq(f->ph.armies[1].cia, 2 + 4 + 1);
    cfix_hand_free(f);
    /* Against the wave, not the army: the defender's infantry sits out. */
    f = cfix_hand_new("c3 | o4 i4");
    FIGHT(f, 1, 1);
    ck_assert_int_eq(f->ph.armies[0].cia, 0);
    cfix_hand_free(f);
}
END_TEST

/* The attacker loses the current era (2 under the Great Wall in the
 * ancient era) per defending unit alive, wave or not. */
static const struct {
    bool is_settlement, has_wall;
    int era, per;
} settlement_cases[] = {
    {true, false, 1, 1}, {true, true, 1, 2},   {true, false, 3, 3},
    {true, true, 3, 3},  {false, false, 4, 0}, {false, true, 1, 0},
};

START_TEST(test_settlement)
{
    hfix *f = cfix_hand_new("o4+20 | o1 o1 o1");
    int per = settlement_cases[_i].per;

    f->s.is_settlement = settlement_cases[_i].is_settlement;
    f->s.has_great_wall = settlement_cases[_i].has_wall;
    f->s.current_era = settlement_cases[_i].era;
    FIGHT(f, 5, 1);
    ck_assert_int_eq(f->ph.armies[0].settlement, -3 * per);
    ck_assert_int_eq(f->ph.armies[1].settlement, 0);
    ck_assert_int_eq(f->ph.armies[0].total, 40 - 3 * per);
    FIGHT(f, 1, 1); /* one defender fewer */
    ck_assert_int_eq(f->ph.armies[0].settlement, -2 * per);
    cfix_hand_free(f);
}
END_TEST

START_TEST(test_total_never_negative)
{
    hfix *f = cfix_hand_new("o1 | o1-5 o1 o1 o1");

    f->s.is_settlement = true;
    f->s.current_era = 4;
    FIGHT(f, 1, 1);
    ck_assert_int_eq(f->ph.armies[0].settlement, -16);
    ck_assert_int_eq(f->ph.armies[0].total, 0);
    ck_assert_int_eq(f->ph.armies[1].total, 0);
    ck_assert_int_eq(f->ph.armies[1].damage_taken, 0);
    ck_assert_int_eq(f->ph.armies[0].damage_lost, 0);
    cfix_hand_free(f);
}
END_TEST

/* ---- step 4: damage ---- */

START_TEST(test_damage_lost)
{
    hfix *f = cfix_hand_new("o1 o1 o1 | o2 o2 o2");

    FIGHT(f, 3, 3, 3, 2, 2, 3);
    DESTROYED(&f->ph.armies[0], 0, 1);
    ck_assert_int_eq(f->ph.armies[0].damage_taken, 14);
    ck_assert_int_eq(f->ph.armies[0].damage_lost, 4);
    DESTROYED(&f->ph.armies[1]);
    ck_assert_int_eq(f->ph.armies[1].damage_lost, 9);
    cfix_hand_free(f);
}
END_TEST

/* Attacker: 0 medieval, 1 ancient +2, 2 and 3 ancient; ancient "other"
 * defenders, so no CIA. */
#define LOSSES "o2 o1+2 o1 o1 | o1 o1 o1 o1"

START_TEST(test_default_loss_order)
{
    hfix *f = cfix_hand_new(LOSSES);

    FIGHT(f, 1, 1, 1, 1, 5, 5, 4, 1); /* 15: oldest, lowest bonus first */
    DESTROYED(&f->ph.armies[0], 2, 3, 1);
    cfix_hand_free(f);
    f = cfix_hand_new(LOSSES);
    FIGHT(f, 1, 1, 1, 1, 5, 5, 5, 5); /* 20: not the medieval one */
    DESTROYED(&f->ph.armies[0], 2, 3, 1);
    ck_assert_int_eq(f->ph.armies[0].damage_lost, 5);
    cfix_hand_free(f);
    /* Ties go in the order the army lists its units, whatever order the
     * wave names them in (civ.md: "then the order listed"). */
    f = cfix_hand_new("o2 o1+2 o1 o1 o1 | o1 o1 o1");
    f->o[0].n_wave = cfix_list("3 2 4", f->o[0].wave);
    FIGHT(f, 1, 1, 1, 4, 1, 1);
    DESTROYED(&f->ph.armies[0], 2);
    cfix_hand_free(f);
}
END_TEST

START_TEST(test_casualty_order)
{
    hfix *f = cfix_hand_new(LOSSES);

    f->o[0].n_casualties = cfix_list("1 3", f->o[0].casualties);
    FIGHT(f, 1, 1, 1, 1, 5, 4, 1, 1);
    DESTROYED(&f->ph.armies[0], 1, 3);
    cfix_hand_free(f);
    /* Older era first whatever the order: the unlisted ancient units die
     * before the listed medieval one. */
    f = cfix_hand_new(LOSSES);
    f->o[0].n_casualties = cfix_list("2 0", f->o[0].casualties);
    FIGHT(f, 1, 1, 1, 1, 5, 5, 5, 5);
    DESTROYED(&f->ph.armies[0], 2, 3, 1);
    cfix_hand_free(f);
}
END_TEST

/* Refused orders on REFUSE; the attacker's default wave is 0, 1, 2
 * (unit 1 medieval, unit 4 an aircraft). */
#define REFUSE "i1 i2 c1 a1 p1 i1 | i1 c1 a1"
static const struct {
    const char *name;
    int army;
    const char *wave;
    int support;
    const char *casualties;
    err_code code;
    const char *field;
} refusals[] = {
    {"wave too small", 0, "0 1", -1, "", ERR_RULE, "attacker.wave"},
    {"wave too large", 0, "0 1 2 3", -1, "", ERR_RULE, "attacker.wave"},
    {"smaller army's part", 1, "0 1", -1, "", ERR_RULE, "defender.wave"},
    {"smaller army's 3, one dead", 1, "0 1 9", -1, "", ERR_RULE,
     "defender.wave[2]"},
    {"aircraft in a wave", 0, "0 1 4", -1, "", ERR_RULE, "attacker.wave[2]"},
    {"unit twice", 0, "0 1 0", -1, "", ERR_RULE, "attacker.wave[2]"},
    {"no such unit", 0, "0 1 9", -1, "", ERR_RULE, "attacker.wave[2]"},
    {"negative unit", 0, "-1 1 2", -1, "", ERR_RULE, "attacker.wave[0]"},
    {"support aircraft", 0, "", CIV_AIRCRAFT, "", ERR_RULE,
     "attacker.aircraft_support"},
    {"support, no aircraft", 1, "", CIV_CAVALRY, "", ERR_RULE,
     "defender.aircraft_support"},
    {"support class 5", 0, "", 5, "", ERR_INVALID, "attacker.aircraft_support"},
    {"newer era first", 0, "", -1, "1 0", ERR_RULE, "attacker.casualties[1]"},
    {"loss outside the wave", 0, "", -1, "0 5", ERR_RULE,
     "attacker.casualties[1]"},
    {"loss twice", 1, "", -1, "0 0", ERR_RULE, "defender.casualties[1]"},
    {"no such loss", 0, "", -1, "9", ERR_INVALID, "attacker.casualties[0]"},
    {"negative loss", 1, "", -1, "-1", ERR_INVALID, "defender.casualties[0]"},
};

START_TEST(test_refusals)
{
    hfix *f = cfix_hand_new(REFUSE);
    civ_orders *o = &f->o[refusals[_i].army];

    o->n_wave = cfix_list(refusals[_i].wave, o->wave);
    o->support = refusals[_i].support;
    o->n_casualties = cfix_list(refusals[_i].casualties, o->casualties);
    cfix_refused(f, refusals[_i].code, refusals[_i].field);
    cfix_hand_free(f);
}
END_TEST

/* A unit destroyed cannot go forward again; equal armies may name their
 * waves only as all their units. */
START_TEST(test_wave_dead_unit_and_equal_armies)
{
    hfix *f = cfix_hand_new("o1-1 o1 o1 o1 | o1 o1");

    FIGHT(f, 1, 2, 3, 2); /* 5 damage: unit 0 (bonus -1) goes */
    DESTROYED(&f->ph.armies[0], 0);
    f->o[0].n_wave = cfix_list("0 1", f->o[0].wave);
    cfix_refused(f, ERR_RULE, "attacker.wave[0]");
    f->o[0].n_wave = 0;
    FIGHT(f, 1, 1, 3, 2); /* the default wave: 1 and 2 */
    ck_assert_int_eq(f->ph.armies[0].wave[0], 1);
    /* 2 against 2: a wave is all of it (in the order named), or refused. */
    f->o[0].n_wave = cfix_list("3", f->o[0].wave);
    cfix_refused(f, ERR_RULE, "attacker.wave");
    f->o[0].n_wave = cfix_list("3 2", f->o[0].wave);
    f->o[1].n_wave = cfix_list("1 0", f->o[1].wave);
    FIGHT(f, 1, 1, 1, 1);
    ck_assert_int_eq(f->ph.armies[0].wave[0], 3);
    ck_assert_int_eq(f->ph.armies[1].wave[0], 1);
    ck_assert_int_eq(f->d.log[0].unit, 3);
    cfix_hand_free(f);
}
END_TEST

START_TEST(test_equal_armies_all_forward)
{
    hfix *f = cfix_hand_new("i1 i1 i1 | c1 p1 a1 a1");

    FIGHT(f, 1, 1, 1, 1, 1, 1, 1);
    ck_assert_int_eq(f->ph.armies[0].n_wave, 3);
    ck_assert_int_eq(f->ph.armies[1].n_wave, 3);
    ck_assert_int_eq(f->ph.armies[1].wave[1], 2); /* the aircraft aside */
    cfix_hand_free(f);
}
END_TEST

/* A plan of spec with default orders; new, the caller frees. */
static civ_plan *plan_new(const char *spec)
{
    civ_plan *p = calloc(1, sizeof *p);

    ck_assert_ptr_nonnull(p);
    cfix_setup_init(&p->setup);
    cfix_build(&p->setup, spec);
    cfix_orders_init(p->orders);
    return p;
}

/* Entered dice run out (for a unit, for an aircraft): refused before any
 * loss; the same inside civ_resolve, which also refuses a bad setup. */
START_TEST(test_dice_short)
{
    static const char *const specs[] = {"o1 o1 | o1 o1", "o1 p1 | o1"};
    static const int values[] = {3, 3, 3};
    civ_outcome out;
    civ_plan *p;
    int i;

    for (i = 0; i < 2; i++) {
        hfix *f = cfix_hand_new(specs[i]);
        civ_battle copy = f->b;
        dice_init_values(&f->d, DICE_ENTERED, values, (size_t)(3 - 2 * i));
        ck_assert_int_eq(civ_fight_phase(&f->b, f->o, &f->d, &f->ph, &f->e),
                         ERR_DICE);
        ck_assert(memcmp(&copy, &f->b, sizeof copy) == 0);
        p = plan_new(specs[i]);
        ck_assert_int_eq(civ_resolve(p, &f->d, &out, &f->e), ERR_DICE);
        civ_outcome_cleanup(&out);
        p->setup.current_era = 0;
        ck_assert_int_eq(civ_resolve(p, &f->d, &out, &f->e), ERR_RANGE);
        civ_outcome_cleanup(&out);
        free(p);
        cfix_hand_free(f);
    }
}
END_TEST

/* ---- civ_resolve and the registry ---- */

START_TEST(test_resolve_preference)
{
    static const int values[] = {1, 1, 5, 5, 5, 5, 5, 5};
    civ_plan *p = plan_new("i1 c1 a1 o1 | o1 o1");
    civ_orders *o = &p->orders[0];
    civ_outcome out;
    dice_source d;
    err_info e;

    o->n_preference = cfix_list("3 1", o->preference);
    /* 2 is not in the first wave: passed over, not refused. */
    o->n_casualties = cfix_list("2 1", o->casualties);
    dice_init_values(&d, DICE_ENTERED, values, N_ELEMS(values));
    CFIX_OK(civ_resolve(p, &d, &out, &e), &e);
    CFIX_OK(dice_check_all_used(&d, &e), &e);
    ck_assert_int_eq(out.n_phases, 2);
    ck_assert_int_eq(out.phases[0].armies[0].wave[0], 3);
    ck_assert_int_eq(out.phases[0].armies[0].wave[1], 1);
    DESTROYED(&out.phases[0].armies[0], 1, 3);
    ck_assert_int_eq(out.phases[1].armies[0].wave[0], 0);
    ck_assert_int_eq(out.phases[1].armies[0].wave[1], 2);
    DESTROYED(&out.phases[1].armies[0], 2, 0);
    ck_assert_int_eq(out.battle.winner, -1);
    ck_assert(!out.is_unresolved);
    civ_outcome_cleanup(&out);
    civ_outcome_cleanup(&out);
    civ_outcome_cleanup(NULL);
    dice_cleanup(&d);
    free(p);
}
END_TEST

/* Neither total can ever kill: the limit stops the battle unresolved. */
static const struct {
    int max, phases;
    err_code code;
} limit_cases[] = {
    {3, 3, ERR_OK},
    {0, 50, ERR_OK},
    {CIV_MAX_PHASES, CIV_MAX_PHASES, ERR_OK},
    {CIV_MAX_PHASES + 1, 0, ERR_RANGE},
};

START_TEST(test_resolve_phase_limit)
{
    civ_plan *p = plan_new("o1-20 | o1-20");
    uint8_t seed[RNG_SEED_LEN];
    civ_outcome out;
    dice_source d;
    err_info e;

    p->max_phases = limit_cases[_i].max;
    cfix_seed(7, seed);
    dice_init_seeded(&d, seed, NULL, 0);
    err_clear(&e);
    ck_assert_int_eq(civ_resolve(p, &d, &out, &e), limit_cases[_i].code);
    if (limit_cases[_i].code == ERR_OK) {
        ck_assert_int_eq(out.n_phases, limit_cases[_i].phases);
        ck_assert(out.is_unresolved);
        ck_assert(!civ_is_over(&out.battle));
        ck_assert_int_eq(out.battle.winner, -1);
    } else {
        ck_assert_str_eq(e.field, "max_phases");
    }
    civ_outcome_cleanup(&out);
    dice_cleanup(&d);
    free(p);
}
END_TEST

/* civ.md step 5: a one-off battle runs to its end.  The plan names the
 * class its aircraft support; once they are gone the battle goes on. */
START_TEST(test_resolve_support_outlives_aircraft)
{
    static const int values[] = {1, 1, 1, 1, 2, 2, 1, 1, 1, 5, 5};
    civ_plan *p = plan_new("c1 c1 c1 p1 | o1 o1 o1");
    civ_outcome out;
    dice_source d;
    err_info e;

    p->orders[0].support = CIV_CAVALRY;
    dice_init_values(&d, DICE_ENTERED, values, N_ELEMS(values));
    CFIX_OK(civ_resolve(p, &d, &out, &e), &e);
    ck_assert_int_eq(out.n_phases, 2);
    DESTROYED(&out.phases[0].armies[0], 0, 3);
    ck_assert_int_eq(out.battle.winner, 1);
    civ_outcome_cleanup(&out);
    dice_cleanup(&d);
    free(p);
}
END_TEST

/* The registry lists the system; its entry is civ_resolve. */
START_TEST(test_registry_entry)
{
    civ_plan *p = plan_new("o1 | o1");
    uint8_t seed[RNG_SEED_LEN];
    civ_outcome o1, o2;
    dice_source d1, d2;
    err_info e;

    ck_assert_ptr_eq(registry_find("civ"), &civ_system);
    ck_assert_uint_eq(civ_system.input_size, sizeof(civ_plan));
    ck_assert_uint_eq(civ_system.result_size, sizeof(civ_outcome));
    cfix_random_setup(&p->setup, 42);
    cfix_seed(42, seed);
    dice_init_seeded(&d1, seed, NULL, 0);
    dice_init_seeded(&d2, seed, NULL, 0);
    CFIX_OK(civ_system.resolve(p, &d1, &o1, &e), &e);
    CFIX_OK(civ_resolve(p, &d2, &o2, &e), &e);
    ck_assert_int_eq(o1.n_phases, o2.n_phases);
    ck_assert(memcmp(o1.phases, o2.phases,
                     (size_t)o1.n_phases * sizeof *o1.phases) == 0);
    civ_system.result_cleanup(&o1);
    ck_assert_ptr_null(o1.phases);
    civ_outcome_cleanup(&o2);
    dice_cleanup(&d1);
    dice_cleanup(&d2);
    free(p);
}
END_TEST

/* ---- properties over random battles ---- */

/* Battle _i phase by phase on seeded dice with random orders: every phase
 * against the reference model (wave sizes, terms summing to the total
 * clamped at 0, losses oldest era first, costs within the damage taken,
 * the damage lost under the next unit's cost), and the same setup, orders
 * and seed again give the same battle. */
START_TEST(test_prop_phases)
{
    hfix *f = cfix_hand_new("o1 | o1");
    uint8_t seed[RNG_SEED_LEN];
    civ_battle end;
    size_t n_log = 0;
    uint64_t x;
    int run, k;

    cfix_random_setup(&f->s, (uint64_t)_i);
    cfix_seed((uint64_t)_i, seed);
    for (run = 0; run < 2; run++) {
        x = (uint64_t)_i * 31u + 5u;
        CFIX_OK(civ_battle_init(&f->b, &f->s, &f->e), &f->e);
        dice_init_seeded(&f->d, seed, NULL, 0);
        for (k = 0; k < 60 && !civ_is_over(&f->b); k++) {
            cfix_random_orders(&f->b, f->o, &x);
            f->before = f->b;
            CFIX_OK(civ_fight_phase(&f->b, f->o, &f->d, &f->ph, &f->e), &f->e);
            cfix_check_phase(&f->before, &f->b, f->o, &f->ph, &f->d);
        }
        if (run == 0) {
            end = f->b;
            n_log = f->d.n_log;
        }
        ck_assert(memcmp(&end, &f->b, sizeof end) == 0);
        ck_assert_uint_eq(f->d.n_log, n_log);
        dice_cleanup(&f->d);
    }
    cfix_hand_free(f);
}
END_TEST

/* Plan _i through civ_resolve: twice on the same seed, identical; phase by
 * phase with the plan's orders, the same phases, each one right by the
 * reference model. */
START_TEST(test_prop_resolve)
{
    civ_plan *p = plan_new("o1 | o1");
    hfix *f = cfix_hand_new("o1 | o1");
    uint8_t seed[RNG_SEED_LEN];
    civ_outcome o1, o2;
    dice_source d1, d2;
    int a, k, u;
    uint64_t x = (uint64_t)_i * 131u + 9u;
    err_info e;

    cfix_random_setup(&p->setup, 1000u + (uint64_t)_i);
    p->max_phases = cfix_pick(&x, 0, 12);
    for (a = 0; a < 2; a++) {
        civ_orders *o = &p->orders[a];
        int n = p->setup.armies[a].n_units;
        for (u = 0; u < n; u++)
            o->preference[o->n_preference++] = cfix_pick(&x, 0, n - 1);
        for (k = 1; k <= CIV_MAX_ERA; k++) /* oldest era first */
            for (u = 0; u < n; u++)
                if (p->setup.armies[a].units[u].era == k && cfix_pick(&x, 0, 1))
                    o->casualties[o->n_casualties++] = u;
    }
    cfix_seed(5000u + (uint64_t)_i, seed);
    dice_init_seeded(&d1, seed, NULL, 0);
    dice_init_seeded(&d2, seed, NULL, 0);
    CFIX_OK(civ_resolve(p, &d1, &o1, &e), &e);
    CFIX_OK(civ_resolve(p, &d2, &o2, &e), &e);
    ck_assert_int_eq(o1.n_phases, o2.n_phases);
    ck_assert(memcmp(o1.phases, o2.phases,
                     (size_t)o1.n_phases * sizeof *o1.phases) == 0);
    ck_assert(memcmp(&o1.battle, &o2.battle, sizeof o1.battle) == 0);
    ck_assert_uint_eq(d1.n_log, d2.n_log);
    ck_assert(o1.is_unresolved == !civ_is_over(&o1.battle));
    ck_assert_int_le(o1.n_phases, p->max_phases ? p->max_phases : 50);
    /* By hand, phase by phase. */
    f->s = p->setup;
    CFIX_OK(civ_battle_init(&f->b, &f->s, &f->e), &f->e);
    dice_init_seeded(&f->d, seed, NULL, 0);
    for (k = 0; k < o1.n_phases; k++) {
        memcpy(f->o, p->orders, sizeof f->o);
        f->o[0].is_casualty_preference = f->o[1].is_casualty_preference = true;
        f->before = f->b;
        CFIX_OK(civ_fight_phase(&f->b, f->o, &f->d, &f->ph, &f->e), &f->e);
        cfix_check_phase(&f->before, &f->b, f->o, &f->ph, &f->d);
        ck_assert(memcmp(&f->ph, &o1.phases[k], sizeof f->ph) == 0);
    }
    ck_assert(memcmp(f->b.is_alive, o1.battle.is_alive, sizeof f->b.is_alive) ==
              0);
    civ_outcome_cleanup(&o1);
    civ_outcome_cleanup(&o2);
    dice_cleanup(&d1);
    dice_cleanup(&d2);
    cfix_hand_free(f);
    free(p);
}
END_TEST

Suite *suite_civ(void)
{
    Suite *s = suite_create("civ");
    TCase *t = tcase_create("vectors");

    tcase_add_test(t, test_vectors);
    suite_add_tcase(s, t);
    t = tcase_create("rules");
    tcase_add_test(t, test_class_names);
    tcase_add_loop_test(t, test_setup_checks, 0, (int)N_ELEMS(setup_cases));
    tcase_add_test(t, test_init_checks_first);
    tcase_add_test(t, test_six_counts_as_five);
    tcase_add_test(t, test_eras_multiply);
    tcase_add_test(t, test_aircraft_multiplier);
    tcase_add_loop_test(t, test_support_default, 0,
                        (int)N_ELEMS(support_cases));
    tcase_add_test(t, test_support_named);
    tcase_add_test(t, test_aircraft_die_with_units);
    tcase_add_test(t, test_aircraft_lost_without_regulars);
    tcase_add_loop_test(t, test_science, 0, (int)N_ELEMS(science_cases));
    tcase_add_test(t, test_cia);
    tcase_add_loop_test(t, test_settlement, 0, (int)N_ELEMS(settlement_cases));
    tcase_add_test(t, test_total_never_negative);
    tcase_add_test(t, test_damage_lost);
    tcase_add_test(t, test_default_loss_order);
    tcase_add_test(t, test_casualty_order);
    tcase_add_loop_test(t, test_refusals, 0, (int)N_ELEMS(refusals));
    tcase_add_test(t, test_wave_dead_unit_and_equal_armies);
    tcase_add_test(t, test_equal_armies_all_forward);
    tcase_add_test(t, test_dice_short);
    suite_add_tcase(s, t);
    t = tcase_create("resolve");
    tcase_add_test(t, test_resolve_preference);
    tcase_add_loop_test(t, test_resolve_phase_limit, 0,
                        (int)N_ELEMS(limit_cases));
    tcase_add_test(t, test_resolve_support_outlives_aircraft);
    tcase_add_test(t, test_registry_entry);
    suite_add_tcase(s, t);
    t = tcase_create("properties");
    tcase_set_timeout(t, 60);
    tcase_add_loop_test(t, test_prop_phases, 0, 300);
    tcase_add_loop_test(t, test_prop_resolve, 0, 200);
    suite_add_tcase(s, t);
    return s;
}
