/*
 * civ.c: Civilization advanced combat, step by step as docs/rules/civ.md
 * numbers a phase: waves, aircraft, totals, damage.
 */
#include "civ.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const army_key[2] = {"attacker", "defender"};
static const char *const class_names[] = {"infantry", "cavalry", "artillery",
                                          "aircraft", "other"};

const char *civ_class_name(civ_class c)
{
    return c <= CIV_OTHER ? class_names[c] : "other";
}

bool civ_class_parse(const char *s, civ_class *out)
{
    int i;

    for (i = 0; i <= CIV_OTHER; i++)
        if (strcmp(s, class_names[i]) == 0) {
            *out = (civ_class)i;
            return true;
        }
    return false;
}

err_code civ_check_setup(const civ_setup *s, err_info *e)
{
    char f[ERR_FIELD_MAX];
    int a, u;

    if (s->current_era < 1 || s->current_era > CIV_MAX_ERA)
        return err_set(e, ERR_RANGE, "current_era", "eras are 1 to %d, not %d",
                       CIV_MAX_ERA, s->current_era);
    for (a = 0; a < 2; a++) {
        const civ_army *m = &s->armies[a];
        int n_regular = 0;
        if (m->n_units < 1 || m->n_units > CIV_MAX_UNITS) {
            snprintf(f, sizeof f, "%s.units", army_key[a]);
            return err_set(e, ERR_RANGE, f, "an army has 1 to %d units",
                           CIV_MAX_UNITS);
        }
        if (m->technologies < 0 || m->technologies > CIV_TECH_MAX) {
            snprintf(f, sizeof f, "%s.technologies", army_key[a]);
            return err_set(e, ERR_RANGE, f, "0 to %d, not %d", CIV_TECH_MAX,
                           m->technologies);
        }
        for (u = 0; u < m->n_units; u++) {
            const civ_unit *x = &m->units[u];
            snprintf(f, sizeof f, "%s.units[%d]", army_key[a], u);
            if ((int)x->cls < 0 || x->cls > CIV_OTHER)
                return err_set(e, ERR_INVALID, f, "no such class");
            if (x->era < 1 || x->era > CIV_MAX_ERA)
                return err_set(e, ERR_RANGE, f, "eras are 1 to %d, not %d",
                               CIV_MAX_ERA, x->era);
            if (x->bonus < -CIV_BONUS_MAX || x->bonus > CIV_BONUS_MAX)
                return err_set(e, ERR_RANGE, f, "a bonus is %d to %d, not %d",
                               -CIV_BONUS_MAX, CIV_BONUS_MAX, x->bonus);
            if (x->cls == CIV_AIRCRAFT &&
                (x->dice_multiplier < 1 ||
                 x->dice_multiplier > CIV_MULTIPLIER_MAX))
                return err_set(e, ERR_RANGE, f,
                               "an aircraft's dice multiplier is 1 to %d",
                               CIV_MULTIPLIER_MAX);
            n_regular += x->cls != CIV_AIRCRAFT;
        }
        if (n_regular == 0) {
            snprintf(f, sizeof f, "%s.units", army_key[a]);
            return err_set(e, ERR_RULE, f,
                           "an army needs a unit that is not an aircraft: "
                           "aircraft cannot fight alone");
        }
    }
    return ERR_OK;
}

err_code civ_battle_init(civ_battle *b, const civ_setup *s, err_info *e)
{
    int a, u;

    err_code rc;

    if ((rc = civ_check_setup(s, e)))
        return rc;
    memset(b, 0, sizeof *b);
    b->setup = s;
    b->winner = -1;
    for (a = 0; a < 2; a++)
        for (u = 0; u < s->armies[a].n_units; u++)
            b->is_alive[a][u] = true;
    return ERR_OK;
}

static bool is_regular(const civ_battle *b, int a, int u)
{
    return b->setup->armies[a].units[u].cls != CIV_AIRCRAFT;
}

int civ_regulars(const civ_battle *b, int a)
{
    int u, n = 0;

    for (u = 0; u < b->setup->armies[a].n_units; u++)
        n += b->is_alive[a][u] && is_regular(b, a, u);
    return n;
}

bool civ_is_over(const civ_battle *b)
{
    return civ_regulars(b, 0) == 0 || civ_regulars(b, 1) == 0;
}

/* Step 1: each army's wave, checked.  The smaller army (both when equal)
 * puts every regular unit forward; the larger picks exactly that many. */
static err_code pick_waves(const civ_battle *b, const civ_orders orders[2],
                           civ_phase *out, err_info *e)
{
    int n[2] = {civ_regulars(b, 0), civ_regulars(b, 1)};
    int size = n[0] < n[1] ? n[0] : n[1], a, k, u;
    char f[ERR_FIELD_MAX];

    for (a = 0; a < 2; a++) {
        const civ_orders *o = &orders[a];
        civ_army_phase *p = &out->armies[a];
        bool taken[CIV_MAX_UNITS] = {false};
        bool is_larger = n[a] > size;
        snprintf(f, sizeof f, "%s.wave", army_key[a]);
        /* The smaller army may name its wave, as long as it is all of it. */
        if (o->n_wave > 0 && !is_larger && o->n_wave != n[a])
            return err_set(e, ERR_RULE, f,
                           "the %s has no more units than the other army: "
                           "all its %d go forward",
                           army_key[a], n[a]);
        if (o->n_wave > 0 && o->n_wave != size)
            return err_set(e, ERR_RULE, f,
                           "the wave matches the smaller army: %d units, "
                           "not %d",
                           size, o->n_wave);
        for (k = 0; k < o->n_wave; k++) {
            u = o->wave[k];
            snprintf(f, sizeof f, "%s.wave[%d]", army_key[a], k);
            if (u < 0 || u >= b->setup->armies[a].n_units || !b->is_alive[a][u])
                return err_set(e, ERR_RULE, f,
                               "not a unit of the %s still in the battle",
                               army_key[a]);
            if (!is_regular(b, a, u))
                return err_set(e, ERR_RULE, f,
                               "aircraft do not count toward a wave: they "
                               "fight beside it");
            if (taken[u])
                return err_set(e, ERR_RULE, f, "the unit is in the wave once");
            taken[u] = true;
            p->wave[p->n_wave++] = u;
        }
        if (o->n_wave > 0)
            continue;
        /* The preference order, then the order listed. */
        for (k = 0; k < o->n_preference && p->n_wave < size; k++) {
            u = o->preference[k];
            if (u >= 0 && u < b->setup->armies[a].n_units &&
                b->is_alive[a][u] && is_regular(b, a, u) && !taken[u]) {
                taken[u] = true;
                p->wave[p->n_wave++] = u;
            }
        }
        for (u = 0; u < b->setup->armies[a].n_units && p->n_wave < size; u++)
            if (b->is_alive[a][u] && is_regular(b, a, u) && !taken[u]) {
                taken[u] = true;
                p->wave[p->n_wave++] = u;
            }
    }
    return ERR_OK;
}

/* Step 2: the class the aircraft support and those that fight. */
static err_code pick_aircraft(const civ_battle *b, const civ_orders orders[2],
                              civ_phase *out, err_info *e)
{
    static const civ_class ties[] = {CIV_INFANTRY, CIV_CAVALRY, CIV_ARTILLERY,
                                     CIV_OTHER};
    char f[ERR_FIELD_MAX];
    int a, k, u;

    for (a = 0; a < 2; a++) {
        civ_army_phase *p = &out->armies[a];
        int count[CIV_OTHER + 1] = {0}, n_air = 0, support = orders[a].support;
        for (u = 0; u < b->setup->armies[a].n_units; u++)
            n_air += b->is_alive[a][u] && !is_regular(b, a, u);
        for (k = 0; k < p->n_wave; k++)
            count[b->setup->armies[a].units[p->wave[k]].cls]++;
        p->support = -1;
        if (support > CIV_OTHER) {
            snprintf(f, sizeof f, "%s.aircraft_support", army_key[a]);
            return err_set(e, ERR_INVALID, f, "no such class");
        }
        if (n_air == 0) {
            if (support >= 0 && !orders[a].is_casualty_preference) {
                snprintf(f, sizeof f, "%s.aircraft_support", army_key[a]);
                return err_set(e, ERR_RULE, f,
                               "the %s has no aircraft to support a class",
                               army_key[a]);
            }
            continue;
        }
        if (support == CIV_AIRCRAFT) {
            snprintf(f, sizeof f, "%s.aircraft_support", army_key[a]);
            return err_set(e, ERR_RULE, f,
                           "aircraft support a class of regular units");
        }
        if (support < 0) { /* the class with most units, ties in order */
            support = ties[0];
            for (k = 1; k < 4; k++)
                if (count[ties[k]] > count[support])
                    support = ties[k];
        }
        p->support = support;
        /* At most one aircraft per unit of that class in the wave. */
        for (u = 0; u < b->setup->armies[a].n_units; u++) {
            if (!b->is_alive[a][u] || is_regular(b, a, u))
                continue;
            if (p->n_aircraft < count[support])
                p->aircraft[p->n_aircraft++] = u;
            else
                p->idle_aircraft++;
        }
    }
    return ERR_OK;
}

/* A die: 6 counts as 5. */
static int die5(int natural)
{
    return natural == 6 ? 5 : natural;
}

/* Step 3 for army a: every term of its total; dice drawn in wave order,
 * then its aircraft. */
static err_code total(const civ_battle *b, int a, civ_phase *out,
                      dice_source *dice, err_info *e)
{
    static const civ_class beats[3][2] = {{CIV_CAVALRY, CIV_INFANTRY},
                                          {CIV_INFANTRY, CIV_ARTILLERY},
                                          {CIV_ARTILLERY, CIV_CAVALRY}};
    const civ_setup *s = b->setup;
    const civ_army *m = &s->armies[a], *o = &s->armies[1 - a];
    civ_army_phase *p = &out->armies[a];
    const civ_army_phase *q = &out->armies[1 - a];
    int k, u, natural, diff, sum;
    size_t idx;
    err_code rc;

    p->first_roll = dice->n_log;
    for (k = 0; k < p->n_wave; k++) {
        const civ_unit *x = &m->units[p->wave[k]];
        if ((rc = dice_roll_die(dice, 6, a, p->wave[k], "civ.base", &natural,
                                &idx, e)))
            return rc;
        dice->log[idx].modified = die5(natural) * x->era;
        p->base += die5(natural) * x->era;
        p->bonus += x->bonus;
    }
    for (k = 0; k < p->n_aircraft; k++) {
        const civ_unit *x = &m->units[p->aircraft[k]];
        if ((rc = dice_roll_die(dice, 6, a, p->aircraft[k], "civ.aircraft",
                                &natural, &idx, e)))
            return rc;
        dice->log[idx].modified = die5(natural) * x->dice_multiplier;
        p->air += die5(natural) * x->dice_multiplier;
    }
    /* Scientific superiority: a point per wave unit per two technologies
     * of difference, the total rounded down. */
    diff = m->technologies - o->technologies;
    if (diff > 0)
        p->science = p->n_wave * diff / 2;
    /* CIA: this wave's pieces of the beating class matched one to one with
     * the other wave's of the beaten class, highest era first. */
    for (k = 0; k < 3; k++) {
        int eras[CIV_MAX_UNITS], n_mine = 0, n_theirs = 0, i, j, t;
        for (i = 0; i < p->n_wave; i++)
            if (m->units[p->wave[i]].cls == beats[k][0])
                eras[n_mine++] = m->units[p->wave[i]].era;
        for (i = 0; i < q->n_wave; i++)
            n_theirs += o->units[q->wave[i]].cls == beats[k][1];
        for (i = 1; i < n_mine; i++) /* highest era first */
            for (j = i; j > 0 && eras[j - 1] < eras[j]; j--) {
                t = eras[j];
                eras[j] = eras[j - 1];
                eras[j - 1] = t;
            }
        p->cia_matches[k] = n_mine < n_theirs ? n_mine : n_theirs;
        for (i = 0; i < p->cia_matches[k]; i++)
            p->cia += eras[i];
    }
    /* The settlement: the attacker loses the current era (2 under the
     * Great Wall in the ancient era) per defending unit in it. */
    if (a == CIV_ATTACKER && s->is_settlement) {
        int per = s->has_great_wall && s->current_era == 1 ? 2 : s->current_era;
        for (u = 0; u < o->n_units; u++)
            if (b->is_alive[CIV_DEFENDER][u])
                p->settlement -= per;
    }
    sum = p->base + p->air + p->bonus + p->science + p->cia + p->settlement;
    p->total = sum < 0 ? 0 : sum;
    return ERR_OK;
}

/* Step 4's order of army a's losses: oldest era first; within an era the
 * owner's order, then the lowest bonus, then the order listed. */
static err_code loss_order(const civ_battle *b, int a, const civ_orders *o,
                           const civ_army_phase *p, int *order, err_info *e)
{
    const civ_army *m = &b->setup->armies[a];
    int rank[CIV_MAX_UNITS], k, i, j, t;
    char f[ERR_FIELD_MAX];

    for (k = 0; k < p->n_wave; k++)
        rank[p->wave[k]] = CIV_MAX_UNITS + k; /* unlisted */
    for (k = 0; k < o->n_casualties; k++) {
        int u = o->casualties[k];
        bool is_in = false;
        snprintf(f, sizeof f, "%s.casualties[%d]", army_key[a], k);
        if (u < 0 || u >= m->n_units)
            return err_set(e, ERR_INVALID, f, "no such unit in the %s",
                           army_key[a]);
        for (i = 0; i < k; i++)
            if (o->casualties[i] == u)
                return err_set(e, ERR_RULE, f, "the unit is listed once");
        if (k > 0 && m->units[o->casualties[k - 1]].era > m->units[u].era)
            return err_set(e, ERR_RULE, f,
                           "older-era units die before newer ones: an era "
                           "%d unit cannot follow an era %d one",
                           m->units[u].era, m->units[o->casualties[k - 1]].era);
        for (i = 0; i < p->n_wave; i++)
            is_in |= p->wave[i] == u;
        if (!is_in && o->is_casualty_preference)
            continue;
        if (!is_in)
            return err_set(e, ERR_RULE, f,
                           "only units of this phase's wave can be lost");
        rank[u] = k;
    }
    /* The wave in the order the army lists its units, then sorted (stably,
     * so ties keep that order). */
    for (k = 0; k < p->n_wave; k++) {
        order[k] = p->wave[k];
        for (j = k; j > 0 && order[j - 1] > order[j]; j--) {
            t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    }
    for (i = 1; i < p->n_wave; i++)
        for (j = i; j > 0; j--) {
            const civ_unit *x = &m->units[order[j - 1]],
                           *y = &m->units[order[j]];
            int rx = rank[order[j - 1]], ry = rank[order[j]];
            bool is_after = x->era > y->era ||
                            (x->era == y->era && rx < CIV_MAX_UNITS &&
                             ry < CIV_MAX_UNITS && rx > ry) ||
                            (x->era == y->era && rx >= CIV_MAX_UNITS &&
                             ry < CIV_MAX_UNITS) ||
                            (x->era == y->era && rx >= CIV_MAX_UNITS &&
                             ry >= CIV_MAX_UNITS && x->bonus > y->bonus);
            if (!is_after)
                break;
            t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    return ERR_OK;
}

/* Step 4 for army a: the other army's damage destroys units in order while
 * it pays for the next one; supported aircraft go down with their units. */
static void take_damage(civ_battle *b, int a, const int *order,
                        civ_army_phase *p, int damage)
{
    const civ_army *m = &b->setup->armies[a];
    int k, left = damage, n_air = 0, u;

    p->damage_taken = damage;
    for (k = 0; k < p->n_wave; k++) {
        const civ_unit *x = &m->units[order[k]];
        if (left < 5 * x->era)
            break;
        left -= 5 * x->era;
        b->is_alive[a][order[k]] = false;
        p->destroyed[p->n_destroyed++] = order[k];
        if ((int)x->cls == p->support && n_air < p->n_aircraft) {
            b->is_alive[a][p->aircraft[n_air]] = false;
            p->destroyed[p->n_destroyed++] = p->aircraft[n_air++];
        }
    }
    p->damage_lost = left;
    /* No regular unit left: the aircraft are lost too. */
    if (civ_regulars(b, a) == 0)
        for (u = 0; u < m->n_units; u++)
            if (b->is_alive[a][u]) {
                b->is_alive[a][u] = false;
                p->destroyed[p->n_destroyed++] = u;
            }
}

err_code civ_fight_phase(civ_battle *b, const civ_orders orders[2],
                         dice_source *dice, civ_phase *out, err_info *e)
{
    int order[2][CIV_MAX_UNITS], a;
    err_code rc;

    memset(out, 0, sizeof *out);
    if (civ_is_over(b))
        return err_set(e, ERR_CONFLICT, NULL, "the battle is over");
    if ((rc = pick_waves(b, orders, out, e)) ||
        (rc = pick_aircraft(b, orders, out, e)) ||
        (rc = loss_order(b, 0, &orders[0], &out->armies[0], order[0], e)) ||
        (rc = loss_order(b, 1, &orders[1], &out->armies[1], order[1], e)))
        return rc;
    /* Attacker first, then defender: both totals before any loss. */
    if ((rc = total(b, CIV_ATTACKER, out, dice, e)) ||
        (rc = total(b, CIV_DEFENDER, out, dice, e)))
        return rc;
    for (a = 0; a < 2; a++)
        take_damage(b, a, order[a], &out->armies[a], out->armies[1 - a].total);
    b->n_phases++;
    if (civ_is_over(b)) {
        bool alive0 = civ_regulars(b, 0) > 0, alive1 = civ_regulars(b, 1) > 0;
        b->winner = alive0 ? 0 : (alive1 ? 1 : -1);
    }
    return ERR_OK;
}

err_code civ_resolve(const civ_plan *p, dice_source *dice, civ_outcome *out,
                     err_info *e)
{
    civ_battle *b = &out->battle;
    int max = p->max_phases > 0 ? p->max_phases : 50;
    err_code rc;

    memset(out, 0, sizeof *out);
    if (max > CIV_MAX_PHASES)
        return err_set(e, ERR_RANGE, "max_phases", "at most %d",
                       CIV_MAX_PHASES);
    if ((rc = civ_battle_init(b, &p->setup, e)))
        return rc;
    out->phases = calloc((size_t)max, sizeof *out->phases);
    if (out->phases == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    while (!civ_is_over(b) && out->n_phases < max) {
        civ_orders o[2];
        int a;
        /* The plan's orders for every phase: waves from the preference
         * orders, casualty orders as preferences. */
        memcpy(o, p->orders, sizeof o);
        for (a = 0; a < 2; a++) {
            o[a].n_wave = 0;
            o[a].is_casualty_preference = true;
        }
        if ((rc = civ_fight_phase(b, o, dice, &out->phases[out->n_phases], e)))
            return rc;
        out->n_phases++;
    }
    out->is_unresolved = !civ_is_over(b);
    return ERR_OK;
}

void civ_outcome_cleanup(civ_outcome *out)
{
    if (out == NULL)
        return;
    free(out->phases);
    out->phases = NULL;
}

static err_code resolve_entry(const void *in, dice_source *dice, void *result,
                              err_info *e)
{
    return civ_resolve(in, dice, result, e);
}

static void cleanup_entry(void *result)
{
    civ_outcome_cleanup(result);
}

const registry_system civ_system = {
    .name = "civ",
    .title = "Civilization: advanced combat in waves (Kraybill)",
    .rules = "docs/rules/civ.md",
    .input_size = sizeof(civ_plan),
    .result_size = sizeof(civ_outcome),
    .resolve = resolve_entry,
    .result_cleanup = cleanup_entry,
};
