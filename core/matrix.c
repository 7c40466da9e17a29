/*
 * matrix.c: Matrix game battles, as docs/rules/matrix.md describes them:
 * the line, a combat, reserves, the battle's result and the exhaustion
 * it leaves.
 */
#include "matrix.h"

#include <assert.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

static const char *const army_key[2] = {"attacker", "defender"};

const char *matrix_fate_name(matrix_fate f)
{
    switch (f) {
    case MATRIX_NONE: return "none";
    case MATRIX_REPULSED: return "repulsed";
    case MATRIX_BEATEN: return "beaten";
    case MATRIX_ROUTED: return "routed";
    }
    return "none";
}

int matrix_fate_points(matrix_fate f)
{
    return (int)f; /* routed 3, beaten 2, repulsed 1 */
}

matrix_fate matrix_compare(int score0, int score1, int *loser)
{
    int hi, lo;

    /* A score below 1 counts as 1. */
    if (score0 < 1)
        score0 = 1;
    if (score1 < 1)
        score1 = 1;
    if (score0 == score1) {
        *loser = -1;
        return MATRIX_NONE;
    }
    *loser = score0 < score1 ? 0 : 1;
    hi = score0 < score1 ? score1 : score0;
    lo = score0 < score1 ? score0 : score1;
    /* hi:lo against 2:1 and 3:1, in integers: exact. */
    if (hi < 2 * lo)
        return MATRIX_REPULSED;
    if (hi < 3 * lo)
        return MATRIX_BEATEN;
    return MATRIX_ROUTED;
}

int matrix_army_modifier(const matrix_army *a)
{
    return a->argument + (a->is_ambushing ? 1 : 0) - (a->is_exhausted ? 1 : 0);
}

int matrix_reserve_army(const matrix_setup *s)
{
    int n0 = s->armies[0].n_units, n1 = s->armies[1].n_units;

    if (s->kind == MATRIX_SKIRMISH)
        return 2;
    if (n0 == n1)
        return -1;
    return n0 > n1 ? 0 : 1;
}

/* Unit u of army a is in army a's reserve. */
static bool in_reserve(const matrix_setup *s,
                       const bool in_line[2][MATRIX_MAX_UNITS], int a, int u)
{
    int k, r = matrix_reserve_army(s);

    if (s->kind == MATRIX_SKIRMISH) {
        for (k = 0; k < s->armies[a].n_reserve; k++)
            if (s->armies[a].reserve[k] == u)
                return true;
        return false;
    }
    return r == a && !in_line[a][u];
}

static err_code check_army(const matrix_setup *s, int a, err_info *e)
{
    const matrix_army *m = &s->armies[a];
    char f[ERR_FIELD_MAX];
    int u;

    if (m->n_units < 1 || m->n_units > MATRIX_MAX_UNITS) {
        snprintf(f, sizeof f, "%s.units", army_key[a]);
        return err_set(e, ERR_RANGE, f, "an army has 1 to %d units, not %d",
                       MATRIX_MAX_UNITS, m->n_units);
    }
    for (u = 0; u < m->n_units; u++)
        if (m->quality[u] < -MATRIX_QUALITY_MAX ||
            m->quality[u] > MATRIX_QUALITY_MAX) {
            snprintf(f, sizeof f, "%s.units[%d].quality", army_key[a], u);
            return err_set(e, ERR_RANGE, f, "quality is from %d to %d, not %d",
                           -MATRIX_QUALITY_MAX, MATRIX_QUALITY_MAX,
                           m->quality[u]);
        }
    if (m->argument < -1 || m->argument > 1) {
        snprintf(f, sizeof f, "%s.argument", army_key[a]);
        return err_set(e, ERR_RANGE, f,
                       "an argument advantages (+1) or disadvantages (-1) an "
                       "army, never more, not %d",
                       m->argument);
    }
    return ERR_OK;
}

/* The line: pairings, each unit once, two against one only for the larger
 * army, every unit of the smaller army (or of both, same sized) placed. */
static err_code check_line(const matrix_setup *s,
                           bool in_line[2][MATRIX_MAX_UNITS], err_info *e)
{
    int larger = matrix_reserve_army(s), c, a, k, u;
    char f[ERR_FIELD_MAX];

    if (s->n_line < 1 || s->n_line > MATRIX_MAX_COMBATS)
        return err_set(e, ERR_RANGE, "line", "a line has 1 to %d combats",
                       MATRIX_MAX_COMBATS);
    if (s->kind == MATRIX_SKIRMISH && s->n_line != 1)
        return err_set(e, ERR_RULE, "line",
                       "a skirmish starts with one unit of each army in the "
                       "line: one combat");
    for (c = 0; c < s->n_line; c++) {
        const matrix_pairing *p = &s->line[c];
        snprintf(f, sizeof f, "line[%d]", c);
        for (a = 0; a < 2; a++) {
            if (p->n_units[a] < 1 || p->n_units[a] > 2)
                return err_set(e, ERR_RULE, f,
                               "a combat is one unit against one, or two "
                               "against one");
            if (p->n_units[a] == 2 &&
                (larger != a || s->kind == MATRIX_SKIRMISH))
                return err_set(e, ERR_RULE, f,
                               "only the larger army may put two units "
                               "against one");
            for (k = 0; k < p->n_units[a]; k++) {
                u = p->units[a][k];
                if (u < 0 || u >= s->armies[a].n_units)
                    return err_set(e, ERR_INVALID, f, "no such unit in the %s",
                                   army_key[a]);
                if (in_line[a][u])
                    return err_set(e, ERR_RULE, f,
                                   "a unit stands once in the line");
                in_line[a][u] = true;
            }
        }
        if (p->n_units[0] == 2 && p->n_units[1] == 2)
            return err_set(e, ERR_RULE, f,
                           "a combat is one unit against one, or two against "
                           "one");
    }
    if (s->kind == MATRIX_SKIRMISH)
        return ERR_OK;
    for (a = 0; a < 2; a++) {
        if (a == larger)
            continue;
        for (u = 0; u < s->armies[a].n_units; u++)
            if (!in_line[a][u]) {
                snprintf(f, sizeof f, "%s.units[%d]", army_key[a], u);
                return err_set(e, ERR_RULE, f,
                               larger < 0
                                   ? "armies of the same size put every unit "
                                     "in the line"
                                   : "every unit of the smaller army stands "
                                     "in the line");
            }
    }
    return ERR_OK;
}

static err_code check_skirmish_reserves(const matrix_setup *s,
                                        const bool in_line[2][MATRIX_MAX_UNITS],
                                        err_info *e)
{
    char f[ERR_FIELD_MAX];
    int a, k, j, u;

    for (a = 0; a < 2; a++) {
        const matrix_army *m = &s->armies[a];
        if (s->kind != MATRIX_SKIRMISH && m->n_reserve > 0) {
            snprintf(f, sizeof f, "%s.reserve", army_key[a]);
            return err_set(e, ERR_RULE, f,
                           "in an open battle the reserve is the larger "
                           "army's units not in the line");
        }
        if (m->n_reserve < 0 || m->n_reserve > MATRIX_SKIRMISH_RESERVE) {
            snprintf(f, sizeof f, "%s.reserve", army_key[a]);
            return err_set(e, ERR_RULE, f,
                           "a skirmish has up to %d units of each army in "
                           "reserve",
                           MATRIX_SKIRMISH_RESERVE);
        }
        for (k = 0; k < m->n_reserve; k++) {
            u = m->reserve[k];
            snprintf(f, sizeof f, "%s.reserve[%d]", army_key[a], k);
            if (u < 0 || u >= m->n_units)
                return err_set(e, ERR_INVALID, f, "no such unit in the %s",
                               army_key[a]);
            if (in_line[a][u])
                return err_set(e, ERR_RULE, f,
                               "the unit stands in the line, not in reserve");
            for (j = 0; j < k; j++)
                if (m->reserve[j] == u)
                    return err_set(e, ERR_RULE, f,
                                   "the unit is in reserve once");
        }
    }
    return ERR_OK;
}

err_code matrix_check_setup(const matrix_setup *s, err_info *e)
{
    bool in_line[2][MATRIX_MAX_UNITS];
    err_code rc;

    memset(in_line, 0, sizeof in_line);
    if ((rc = check_army(s, 0, e)) || (rc = check_army(s, 1, e)))
        return rc;
    if (s->armies[0].is_ambushing && s->armies[1].is_ambushing)
        return err_set(e, ERR_RULE, "ambush",
                       "one army ambushes the other, not both");
    if ((rc = check_line(s, in_line, e)) ||
        (rc = check_skirmish_reserves(s, in_line, e)))
        return rc;
    return ERR_OK;
}

err_code matrix_battle_init(matrix_battle *b, const matrix_setup *s,
                            err_info *e)
{
    int c;

    /* Not the reserves: zeroing the whole battle, three times a one-off,
     * was a quarter of its cost. */
    memset(b, 0, offsetof(matrix_battle, combats));
    b->setup = s;
    for (c = 0; c < MATRIX_MAX_COMBATS; c++) {
        memset(&b->combats[c], 0, offsetof(matrix_combat, reserves));
        b->combats[c].loser = -1;
    }
    return matrix_check_setup(s, e);
}

void matrix_combat_copy(matrix_combat *dst, const matrix_combat *src)
{
    memcpy(dst, src, offsetof(matrix_combat, reserves));
    memcpy(dst->reserves, src->reserves,
           (size_t)src->n_reserves * sizeof src->reserves[0]);
}

static err_code check_combat(const matrix_battle *b, int c, err_info *e)
{
    if (c < 0 || c >= b->setup->n_line)
        return err_set(e, ERR_INVALID, "combat",
                       "the line has combats 0 to %d, not %d",
                       b->setup->n_line - 1, c);
    if (matrix_is_over(b))
        return err_set(e, ERR_CONFLICT, "combat", "the battle is over");
    return ERR_OK;
}

/* Rolls one die for unit u of army a; *score gets its modified value. */
static err_code unit_die(const matrix_setup *s, int a, int u, bool is_reserve,
                         dice_source *dice, int *natural, size_t *idx,
                         int *score, err_info *e)
{
    err_code rc = dice_roll_die(dice, 6, a, u,
                                is_reserve ? "matrix.reserve" : "matrix.line",
                                natural, idx, e);

    if (rc)
        return rc;
    *score = *natural + s->armies[a].quality[u] +
             matrix_army_modifier(&s->armies[a]) - (is_reserve ? 1 : 0);
    dice->log[*idx].modified = *score;
    return ERR_OK;
}

/* The combat's fate from its scores so far. */
static void decide(matrix_combat *cb)
{
    cb->fate = matrix_compare(cb->score[0], cb->score[1], &cb->loser);
}

err_code matrix_roll(matrix_battle *b, int c, dice_source *dice, err_info *e)
{
    const matrix_setup *s = b->setup;
    matrix_combat *cb = &b->combats[c], next;
    int a, k, v;
    size_t idx;
    err_code rc;

    if ((rc = check_combat(b, c, e)))
        return rc;
    if (cb->is_rolled)
        return err_set(e, ERR_CONFLICT, "combat", "combat %d is already rolled",
                       c);
    /* One combat at a time: the reserves of a rolled combat join it, or
     * not, before the next combat's dice are seen. */
    for (k = 0; k < s->n_line; k++)
        if (b->combats[k].is_rolled && !b->combats[k].is_accepted)
            return err_set(e, ERR_CONFLICT, "combat",
                           "combat %d is rolled and not yet accepted: accept "
                           "it before the next combat is rolled",
                           k);
    /* Rolled into a copy (of all but the reserves, which a roll does not
     * touch): a die that cannot be drawn changes nothing. */
    memcpy(&next, cb, offsetof(matrix_combat, reserves));
    next.first_roll = dice->n_log;
    for (a = 0; a < 2; a++) {
        next.score[a] = 0;
        for (k = 0; k < s->line[c].n_units[a]; k++) {
            if ((rc = unit_die(s, a, s->line[c].units[a][k], false, dice,
                               &next.natural[a][k], &idx, &v, e)))
                return rc;
            next.score[a] += v; /* two against one: added */
        }
    }
    memcpy(cb, &next, offsetof(matrix_combat, reserves));
    cb->is_rolled = true;
    b->n_rolled++;
    decide(cb);
    return ERR_OK;
}

/* Every reserve of both armies is committed: a skirmish escalates. */
static bool all_reserves_used(const matrix_battle *b)
{
    const matrix_setup *s = b->setup;
    int a, k;

    for (a = 0; a < 2; a++) {
        if (s->armies[a].n_reserve == 0)
            return false;
        for (k = 0; k < s->armies[a].n_reserve; k++)
            if (!b->is_committed[a][s->armies[a].reserve[k]])
                return false;
    }
    return true;
}

err_code matrix_commit(matrix_battle *b, int c, int army, int unit,
                       dice_source *dice, err_info *e)
{
    const matrix_setup *s = b->setup;
    bool in_line[2][MATRIX_MAX_UNITS];
    matrix_combat *cb = &b->combats[c];
    matrix_reserve r;
    int who = matrix_reserve_army(s), v, k, a;
    err_code rc;

    if ((rc = check_combat(b, c, e)))
        return rc;
    if (army < 0 || army > 1)
        return err_set(e, ERR_INVALID, "army", "attacker or defender");
    if (!cb->is_rolled)
        return err_set(e, ERR_CONFLICT, "combat",
                       "combat %d is not rolled yet: reserves join after "
                       "seeing its dice",
                       c);
    if (cb->is_accepted)
        return err_set(e, ERR_CONFLICT, "combat",
                       "combat %d is accepted: no more reserves may join it",
                       c);
    if (who != 2 && who != army)
        return err_set(e, ERR_RULE, "army",
                       who < 0 ? "armies of the same size have no reserves"
                               : "in an open battle only the larger army has "
                                 "reserves");
    memset(in_line, 0, sizeof in_line);
    for (k = 0; k < s->n_line; k++)
        for (a = 0; a < 2; a++) {
            int j;
            for (j = 0; j < s->line[k].n_units[a]; j++)
                in_line[a][s->line[k].units[a][j]] = true;
        }
    if (unit < 0 || unit >= s->armies[army].n_units)
        return err_set(e, ERR_INVALID, "unit", "no such unit in the %s",
                       army_key[army]);
    if (!in_reserve(s, in_line, army, unit))
        return err_set(e, ERR_RULE, "unit",
                       "the unit is not in the %s's reserve", army_key[army]);
    if (b->is_committed[army][unit])
        return err_set(e, ERR_RULE, "unit",
                       "the unit is already committed: a reserve joins one "
                       "combat");
    memset(&r, 0, sizeof r);
    r.army = army;
    r.unit = unit;
    if ((rc = unit_die(s, army, unit, true, dice, &r.natural, &r.roll, &v, e)))
        return rc;
    cb->reserves[cb->n_reserves++] = r;
    cb->score[army] += v;
    b->is_committed[army][unit] = true;
    decide(cb);
    if (s->kind == MATRIX_SKIRMISH && all_reserves_used(b))
        b->is_escalated = true;
    return ERR_OK;
}

err_code matrix_accept(matrix_battle *b, int c, err_info *e)
{
    matrix_combat *cb = &b->combats[c];
    err_code rc;

    if ((rc = check_combat(b, c, e)))
        return rc;
    if (!cb->is_rolled)
        return err_set(e, ERR_CONFLICT, "combat", "combat %d is not rolled yet",
                       c);
    if (cb->is_accepted)
        return err_set(e, ERR_CONFLICT, "combat",
                       "combat %d is already accepted", c);
    cb->is_accepted = true;
    b->n_accepted++;
    return ERR_OK;
}

bool matrix_is_over(const matrix_battle *b)
{
    return b->is_escalated || b->n_accepted == b->setup->n_line;
}

const char *matrix_state_name(matrix_state s)
{
    switch (s) {
    case MATRIX_STATE_HALF_ROUTED: return "half or more of the units routed";
    case MATRIX_STATE_ROUTED:
        return "some units routed, or half or more beaten";
    case MATRIX_STATE_BEATEN: return "none routed, some beaten";
    case MATRIX_STATE_HOLDING: return "none routed or beaten";
    }
    return "";
}

err_code matrix_battle_result(const matrix_battle *b, matrix_result *out,
                              err_info *e)
{
    const matrix_setup *s = b->setup;
    int c, a, k, n = 0, routed = 0, beaten = 0;

    memset(out, 0, sizeof *out);
    if (!matrix_is_over(b) || b->is_escalated)
        return err_set(e, ERR_CONFLICT, NULL,
                       b->is_escalated ? "the skirmish became an open battle"
                                       : "the battle is not over: every "
                                         "combat is rolled and accepted "
                                         "first");
    /* Every unit on the losing side of a combat, reserves included, takes
     * its fate. */
    for (c = 0; c < s->n_line; c++) {
        const matrix_combat *cb = &b->combats[c];
        for (a = 0; a < 2; a++)
            for (k = 0; k < s->line[c].n_units[a]; k++) {
                int u = s->line[c].units[a][k];
                out->has_fought[a][u] = true;
                if (cb->loser == a)
                    out->fates[a][u] = cb->fate;
            }
        for (k = 0; k < cb->n_reserves; k++) {
            const matrix_reserve *r = &cb->reserves[k];
            out->has_fought[r->army][r->unit] = true;
            if (cb->loser == r->army)
                out->fates[r->army][r->unit] = cb->fate;
        }
    }
    for (a = 0; a < 2; a++)
        for (k = 0; k < s->armies[a].n_units; k++)
            out->points[a] += matrix_fate_points(out->fates[a][k]);
    /* More casualty points lose; equal is a draw. */
    out->winner = out->points[0] == out->points[1]
                      ? -1
                      : (out->points[0] < out->points[1] ? 0 : 1);
    /* The army state, over the units the basis counts. */
    for (a = 0; a < 2; a++) {
        if (s->basis == MATRIX_BASIS_WINNER && out->winner >= 0 &&
            a != out->winner)
            continue;
        if (s->basis == MATRIX_BASIS_LOSER && out->winner >= 0 &&
            a == out->winner)
            continue;
        for (k = 0; k < s->armies[a].n_units; k++) {
            if (!out->has_fought[a][k])
                continue;
            n++;
            routed += out->fates[a][k] == MATRIX_ROUTED;
            beaten += out->fates[a][k] == MATRIX_BEATEN;
        }
    }
    if (n > 0 && 2 * routed >= n)
        out->state = MATRIX_STATE_HALF_ROUTED;
    else if (routed > 0 || (n > 0 && 2 * beaten >= n))
        out->state = MATRIX_STATE_ROUTED;
    else if (beaten > 0)
        out->state = MATRIX_STATE_BEATEN;
    else
        out->state = MATRIX_STATE_HOLDING;
    /* A draw has no winner to pursue or withdraw. */
    out->is_winner_pursuing =
        out->winner >= 0 && out->state == MATRIX_STATE_HOLDING;
    out->is_winner_withdrawing =
        out->winner >= 0 && out->state == MATRIX_STATE_HALF_ROUTED;
    out->is_exhausted[0] = out->is_exhausted[1] =
        out->state == MATRIX_STATE_HALF_ROUTED ||
        out->state == MATRIX_STATE_ROUTED;
    return ERR_OK;
}

/* "Exhaustion": a bloody battle exhausts both armies for the next turn. */
int matrix_exhausted_turn(const matrix_result *r, int army, int turn)
{
    assert(army == MATRIX_ATTACKER || army == MATRIX_DEFENDER);
    return r->is_exhausted[army] ? turn + 1 : 0;
}

/* "Exhaustion": the mark applies in its own turn only. */
bool matrix_is_exhausted_in(int exhausted_turn, int turn)
{
    return exhausted_turn > 0 && exhausted_turn == turn;
}

err_code matrix_resolve(const matrix_plan *p, dice_source *dice,
                        matrix_outcome *out, err_info *e)
{
    matrix_battle *b = &out->battle;
    int i, k;
    err_code rc;

    memset(&out->result, 0, sizeof out->result);
    out->result.winner = -1;
    if ((rc = matrix_battle_init(b, &p->setup, e)))
        return rc;
    for (i = 0; i < p->setup.n_line && !matrix_is_over(b); i++) {
        int c = p->order[i];
        if ((rc = matrix_roll(b, c, dice, e)))
            return rc;
        for (k = 0; k < p->n_reserves[c] && !matrix_is_over(b); k++) {
            int ref = p->reserves[c][k];
            if ((rc = matrix_commit(b, c, ref / MATRIX_MAX_UNITS,
                                    ref % MATRIX_MAX_UNITS, dice, e)))
                return rc;
        }
        if (!matrix_is_over(b) && (rc = matrix_accept(b, c, e)))
            return rc;
    }
    if (b->is_escalated)
        return ERR_OK;
    return matrix_battle_result(b, &out->result, e);
}

static err_code resolve_entry(const void *in, dice_source *dice, void *result,
                              err_info *e)
{
    return matrix_resolve(in, dice, result, e);
}

static void cleanup_entry(void *result)
{
    (void)result; /* caller storage, nothing owned */
}

const registry_system matrix_system = {
    .name = "matrix",
    .title = "Matrix: battles of matrix games (Harman / Thomas)",
    .rules = "docs/rules/matrix.md",
    .input_size = sizeof(matrix_plan),
    .result_size = sizeof(matrix_outcome),
    .resolve = resolve_entry,
    .result_cleanup = cleanup_entry,
};
