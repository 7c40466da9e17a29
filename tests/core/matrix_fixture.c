/*
 * matrix_fixture.c: see matrix_fixture.h.  The reference model restates
 * docs/rules/matrix.md ("A combat", "The battle's result") without calling
 * core/matrix.c beyond reading the battle it checks.
 */
#include "matrix_fixture.h"
#include "registry.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

/* ---- JSON ---- */

json_t *mfix_load_vectors(const char *file)
{
    const char *dir = getenv("UMPIRE_TEST_VECTORS");
    char path[1024];
    json_error_t jerr;
    json_t *root;

    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/vectors",
             file);
    root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    ck_assert_msg(root != NULL, "%s:%d: %s", path, jerr.line, jerr.text);
    return root;
}

int mfix_jint(const json_t *j, const char *what)
{
    ck_assert_msg(json_is_integer(j), "%s: not an integer", what);
    return (int)json_integer_value(j);
}

const char *mfix_jstr(const json_t *j, const char *what)
{
    ck_assert_msg(json_is_string(j), "%s: not a string", what);
    return json_string_value(j);
}

void mfix_known_keys(const json_t *j, const char *keys, const char *what)
{
    char word[64];
    const char *key;
    json_t *x;

    ck_assert_msg(json_is_object(j), "%s: not an object", what);
    json_object_foreach((json_t *)j, key, x)
    {
        snprintf(word, sizeof word, " %s ", key);
        ck_assert_msg(strstr(keys, word) != NULL, "%s: unknown key %s", what,
                      key);
    }
}

/* ---- a battle of the vectors ---- */

/* The army called name; -1 for NULL. */
static int army_of(const mfix_vbattle *v, const char *name)
{
    int a;

    if (name == NULL)
        return -1;
    for (a = 0; a < 2; a++)
        if (strcmp(v->names[a], name) == 0)
            return a;
    ck_abort_msg("no army %s", name);
    return -1;
}

/* Unit id's index; *army gets its army. */
static int unit_of(const mfix_vbattle *v, const char *id, int *army)
{
    const matrix_setup *s = &v->plan.setup;
    int a, u, found = -1;

    for (a = 0; a < 2; a++)
        for (u = 0; u < s->armies[a].n_units; u++)
            if (strcmp(v->ids[a][u], id) == 0) {
                ck_assert_msg(found < 0, "unit %s twice", id);
                found = u;
                *army = a;
            }
    ck_assert_msg(found >= 0, "no unit %s", id);
    return found;
}

/* "attacker"/"defender": a name, the argument ("modifier") and units. */
static void load_army(mfix_vbattle *v, int a, const json_t *j)
{
    matrix_army *m = &v->plan.setup.armies[a];
    const json_t *units = json_object_get(j, "units"), *ju;
    size_t i;

    mfix_known_keys(j, " name modifier units ", "army");
    v->names[a] = mfix_jstr(json_object_get(j, "name"), "name");
    m->argument = mfix_jint(json_object_get(j, "modifier"), "modifier");
    ck_assert(json_is_array(units));
    ck_assert_uint_le(json_array_size(units), MATRIX_MAX_UNITS);
    m->n_units = (int)json_array_size(units);
    json_array_foreach(units, i, ju)
    {
        mfix_known_keys(ju, " id quality ", "unit");
        v->ids[a][i] = mfix_jstr(json_object_get(ju, "id"), "id");
        m->quality[i] = mfix_jint(json_object_get(ju, "quality"), "quality");
    }
}

/* "line": each combat [[attacker ids], [defender ids]]. */
static void load_line(mfix_vbattle *v, const json_t *j)
{
    matrix_setup *s = &v->plan.setup;
    const json_t *jc, *ids, *id;
    size_t c, k;
    int a, army;

    ck_assert(json_is_array(j));
    ck_assert_uint_le(json_array_size(j), MATRIX_MAX_COMBATS);
    s->n_line = (int)json_array_size(j);
    json_array_foreach(j, c, jc)
    {
        ck_assert(json_is_array(jc) && json_array_size(jc) == 2);
        for (a = 0; a < 2; a++) {
            ids = json_array_get(jc, (size_t)a);
            ck_assert(json_is_array(ids) && json_array_size(ids) <= 2);
            s->line[c].n_units[a] = (int)json_array_size(ids);
            json_array_foreach(ids, k, id)
            {
                s->line[c].units[a][k] =
                    unit_of(v, mfix_jstr(id, "line id"), &army);
                ck_assert_msg(army == a, "%s on the wrong side",
                              json_string_value(id));
            }
        }
    }
}

static bool in_line(const matrix_setup *s, int a, int u)
{
    int c, k;

    for (c = 0; c < s->n_line; c++)
        for (k = 0; k < s->line[c].n_units[a]; k++)
            if (s->line[c].units[a][k] == u)
                return true;
    return false;
}

/* "reserve": {army name: [ids]}.  A skirmish's is its input; an open
 * battle's is the larger army's units not in the line, and the file's
 * must say exactly that. */
static void load_reserve(mfix_vbattle *v, const json_t *j)
{
    matrix_setup *s = &v->plan.setup;
    int n0 = s->armies[0].n_units, n1 = s->armies[1].n_units;
    int larger = n0 > n1 ? 0 : n1 > n0 ? 1 : -1, a, u, n = 0;
    const json_t *ids, *id;
    const char *name;
    size_t k;

    json_object_foreach((json_t *)j, name, ids)
    {
        int want = army_of(v, name);
        json_array_foreach(ids, k, id)
        {
            u = unit_of(v, mfix_jstr(id, "reserve id"), &a);
            ck_assert_int_eq(a, want);
            ck_assert(!in_line(s, a, u));
            n++;
            if (s->kind == MATRIX_SKIRMISH) {
                ck_assert_int_lt(s->armies[a].n_reserve,
                                 MATRIX_SKIRMISH_RESERVE);
                s->armies[a].reserve[s->armies[a].n_reserve++] = u;
            } else {
                ck_assert_int_eq(a, larger);
            }
        }
    }
    if (s->kind == MATRIX_SKIRMISH || larger < 0)
        return;
    for (u = 0; u < s->armies[larger].n_units; u++)
        n -= !in_line(s, larger, u);
    ck_assert_int_eq(n, 0); /* the file lists the whole reserve */
}

/* "combats": the order they are rolled in and the reserves of each. */
static void load_combats(mfix_vbattle *v, const json_t *j)
{
    matrix_plan *p = &v->plan;
    const json_t *jc, *jr;
    bool seen[MATRIX_MAX_COMBATS] = {false};
    size_t i, k;
    int c, a, u;

    ck_assert(json_is_array(j));
    ck_assert_uint_eq(json_array_size(j), (size_t)p->setup.n_line);
    json_array_foreach(j, i, jc)
    {
        mfix_known_keys(jc,
                        " index dice expect_before_reserves reserves "
                        "expect ",
                        "combat");
        c = mfix_jint(json_object_get(jc, "index"), "index");
        ck_assert(c >= 0 && c < p->setup.n_line && !seen[c]);
        seen[c] = true;
        p->order[i] = c;
        json_array_foreach(json_object_get(jc, "reserves"), k, jr)
        {
            mfix_known_keys(jr, " unit die ", "reserves[]");
            u = unit_of(v, mfix_jstr(json_object_get(jr, "unit"), "unit"), &a);
            p->reserves[c][p->n_reserves[c]++] = a * MATRIX_MAX_UNITS + u;
        }
    }
}

static void vbattle_load(mfix_vbattle *v, const json_t *j)
{
    const json_t *kind = json_object_get(j, "kind");
    const json_t *x;
    const char *k;
    int c;

    memset(v, 0, sizeof *v);
    mfix_known_keys(j,
                    " kind attacker defender line reserve combats dice "
                    "expect ",
                    "battle");
    if (kind != NULL) {
        k = mfix_jstr(kind, "kind");
        ck_assert_msg(strcmp(k, "open") == 0 || strcmp(k, "skirmish") == 0,
                      "kind %s", k);
        v->plan.setup.kind = k[0] == 's' ? MATRIX_SKIRMISH : MATRIX_OPEN;
    }
    load_army(v, MATRIX_ATTACKER, json_object_get(j, "attacker"));
    load_army(v, MATRIX_DEFENDER, json_object_get(j, "defender"));
    load_line(v, json_object_get(j, "line"));
    if ((x = json_object_get(j, "reserve")) != NULL)
        load_reserve(v, x);
    if ((x = json_object_get(j, "combats")) != NULL)
        load_combats(v, x);
    else
        for (c = 0; c < v->plan.setup.n_line; c++)
            v->plan.order[c] = c;
}

/* The battle's entered dice in the plan's order (each combat's line
 * dice, attacker's first, then its reserves): from each combat's "dice"
 * and "reserves", or without "combats" from the one "dice" object. */
static size_t vbattle_dice(const mfix_vbattle *v, const json_t *j, int *values)
{
    const json_t *combats = json_object_get(j, "combats"), *dice, *jc, *jr;
    size_t n = 0, i, k, m = 0;
    int c, a;

    for (i = 0; i < (size_t)v->plan.setup.n_line; i++) {
        const matrix_pairing *p = &v->plan.setup.line[v->plan.order[i]];
        jc = combats ? json_array_get(combats, i) : NULL;
        dice = json_object_get(jc ? jc : j, "dice");
        ck_assert(json_is_object(dice));
        if (jc != NULL)
            m = 0;
        for (a = 0; a < 2; a++)
            for (c = 0; c < p->n_units[a]; c++, m++) {
                const char *id = v->ids[a][p->units[a][c]];
                ck_assert_uint_lt(n, MFIX_MAX_DICE);
                values[n++] = mfix_jint(json_object_get(dice, id), id);
            }
        json_array_foreach(json_object_get(jc, "reserves"), k, jr)
        {
            ck_assert_uint_lt(n, MFIX_MAX_DICE);
            values[n++] = mfix_jint(json_object_get(jr, "die"), "die");
        }
        if (jc != NULL) /* no die of the file left unused */
            ck_assert_uint_eq(json_object_size(dice), m);
    }
    if (combats == NULL)
        ck_assert_uint_eq(json_object_size(json_object_get(j, "dice")), m);
    return n;
}

/* ---- a battle of the vectors, played ---- */

matrix_fate mfix_fate_parse(const char *name)
{
    int f;

    if (strcmp(name, "even") == 0)
        return MATRIX_NONE;
    for (f = MATRIX_REPULSED; f <= MATRIX_ROUTED; f++)
        if (strcmp(name, matrix_fate_name((matrix_fate)f)) == 0)
            return (matrix_fate)f;
    ck_abort_msg("no fate %s", name);
    return MATRIX_NONE;
}

void mfix_expect_keys(const mfix_vbattle *v, const json_t *want,
                      const char *keys, const char *what)
{
    char all[256];

    snprintf(all, sizeof all, " %s %s%s", v->names[0], v->names[1], keys);
    mfix_known_keys(want, all, what);
}

/* Combat c against want: each army's score under its name, "loser" (a
 * name, null when even), "result". */
static void expect_combat(const mfix_vbattle *v, int c, const json_t *want)
{
    const matrix_combat *cb = &v->b.combats[c];
    const json_t *loser = json_object_get(want, "loser");
    int a;

    for (a = 0; a < 2; a++)
        ck_assert_msg(
            cb->score[a] ==
                mfix_jint(json_object_get(want, v->names[a]), v->names[a]),
            "combat %d: %s scores %d", c, v->names[a], cb->score[a]);
    ck_assert_int_eq(
        cb->loser,
        army_of(v, json_is_null(loser) ? NULL : mfix_jstr(loser, "loser")));
    ck_assert_str_eq(matrix_fate_name(cb->fate),
                     matrix_fate_name(mfix_fate_parse(mfix_jstr(
                         json_object_get(want, "result"), "result"))));
}

void mfix_vbattle_expect(const mfix_vbattle *v, const json_t *want)
{
    const matrix_setup *s = &v->plan.setup;
    const json_t *x, *y;
    const char *key;
    bool listed[2] = {false, false};
    size_t i;
    int a, u;

    json_object_foreach((json_t *)json_object_get(want, "casualty_points"), key,
                        x)
    {
        ck_assert_int_eq(v->r.points[army_of(v, key)], mfix_jint(x, key));
    }
    if ((x = json_object_get(want, "winner")) != NULL)
        ck_assert_int_eq(v->r.winner, army_of(v, json_string_value(x)));
    if ((x = json_object_get(want, "loser")) != NULL)
        ck_assert_int_eq(v->r.winner < 0 ? -1 : 1 - v->r.winner,
                         army_of(v, json_string_value(x)));
    if ((x = json_object_get(want, "army_state")) != NULL)
        ck_assert_str_eq(matrix_state_name(v->r.state), mfix_jstr(x, "state"));
    if ((x = json_object_get(want, "winner_can_pursue")) != NULL)
        ck_assert_int_eq(v->r.is_winner_pursuing, json_is_true(x));
    if ((x = json_object_get(want, "exhausted")) != NULL) {
        json_array_foreach(x, i, y)
        {
            listed[army_of(v, mfix_jstr(y, "exhausted[]"))] = true;
        }
        ck_assert_int_eq(v->r.is_exhausted[0], listed[0]);
        ck_assert_int_eq(v->r.is_exhausted[1], listed[1]);
    }
    if ((x = json_object_get(want, "unit_results")) == NULL)
        return;
    ck_assert_uint_eq(json_object_size(x),
                      (size_t)(s->armies[0].n_units + s->armies[1].n_units));
    json_object_foreach((json_t *)x, key, y)
    {
        u = unit_of(v, key, &a);
        ck_assert_msg(v->r.fates[a][u] ==
                          (json_is_null(y)
                               ? MATRIX_NONE
                               : mfix_fate_parse(mfix_jstr(y, key))),
                      "%s: %s", key, matrix_fate_name(v->r.fates[a][u]));
    }
}

/* Combat c (the i-th rolled, described by jc) rolled, checked before
 * reserves, fed its reserves, checked, accepted. */
static void play_combat(mfix_vbattle *v, int c, const json_t *jc, bool is_one,
                        dice_source *d)
{
    const json_t *x = json_object_get(jc, "expect_before_reserves");
    err_info e;
    int k, ref;

    MFIX_OK(matrix_roll(&v->b, c, d, &e), &e);
    if (x != NULL) {
        mfix_expect_keys(v, x, " loser result ", "expect_before_reserves");
        expect_combat(v, c, x);
    }
    for (k = 0; k < v->plan.n_reserves[c]; k++) {
        ref = v->plan.reserves[c][k];
        MFIX_OK(matrix_commit(&v->b, c, ref / MATRIX_MAX_UNITS,
                              ref % MATRIX_MAX_UNITS, d, &e),
                &e);
    }
    x = json_object_get(jc, "expect");
    if (!is_one) /* else the battle's expect is the combat's too */
        mfix_expect_keys(v, x, " loser result ", "combats[].expect");
    expect_combat(v, c, x);
    ck_assert(!matrix_is_over(&v->b));
    MFIX_OK(matrix_accept(&v->b, c, &e), &e);
}

mfix_vbattle *mfix_vbattle_play(const json_t *j)
{
    const json_t *combats = json_object_get(j, "combats");
    mfix_vbattle *v = calloc(1, sizeof *v);
    dice_source d;
    err_info e;
    int i;

    ck_assert_ptr_nonnull(v);
    vbattle_load(v, j);
    v->n_values = vbattle_dice(v, j, v->values);
    dice_init_values(&d, DICE_ENTERED, v->values, v->n_values);
    MFIX_OK(matrix_battle_init(&v->b, &v->plan.setup, &e), &e);
    ck_assert(combats != NULL || v->plan.setup.n_line == 1);
    for (i = 0; i < v->plan.setup.n_line; i++)
        play_combat(v, v->plan.order[i],
                    combats ? json_array_get(combats, (size_t)i) : j,
                    combats == NULL, &d);
    ck_assert(matrix_is_over(&v->b));
    MFIX_OK(dice_check_all_used(&d, &e), &e);
    mfix_check_battle(&v->b, &d);
    MFIX_OK(matrix_battle_result(&v->b, &v->r, &e), &e);
    mfix_check_result(&v->b, &v->r);
    dice_cleanup(&d);
    return v;
}

void mfix_vbattle_resolve(mfix_vbattle *v)
{
    const registry_system *sys = &matrix_system;
    int pass;

    for (pass = 0; pass < 2; pass++) {
        dice_source d;
        err_info e;

        memset(&v->out, 0xa5, sizeof v->out);
        dice_init_values(&d, DICE_ENTERED, v->values, v->n_values);
        if (pass == 0)
            MFIX_OK(matrix_resolve(&v->plan, &d, &v->out, &e), &e);
        else
            MFIX_OK(sys->resolve(&v->plan, &d, &v->out, &e), &e);
        MFIX_OK(dice_check_all_used(&d, &e), &e);
        ck_assert(mfix_battle_equal(&v->out.battle, &v->b));
        ck_assert(memcmp(&v->out.result, &v->r, sizeof v->r) == 0);
        sys->result_cleanup(&v->out);
        dice_cleanup(&d);
    }
}

/* ---- hand-made setups ---- */

void mfix_setup_line(matrix_setup *s, matrix_kind kind, int n0, int n1,
                     int n_line)
{
    int c;

    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->armies[0].n_units = n0;
    s->armies[1].n_units = n1;
    s->n_line = n_line;
    for (c = 0; c < n_line; c++) {
        s->line[c].units[0][0] = s->line[c].units[1][0] = c;
        s->line[c].n_units[0] = s->line[c].n_units[1] = 1;
    }
}

void mfix_setup_skirmish(matrix_setup *s)
{
    int a;

    mfix_setup_line(s, MATRIX_SKIRMISH, 3, 3, 1);
    for (a = 0; a < 2; a++) {
        s->armies[a].reserve[0] = 1;
        s->armies[a].reserve[1] = 2;
        s->armies[a].n_reserve = 2;
    }
}

/* ---- random plans ---- */

/* splitmix64, and a value in lo..hi from it. */
static uint64_t next_u64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int pick(uint64_t *x, int lo, int hi)
{
    return lo + (int)(next_u64(x) % (uint64_t)(hi - lo + 1));
}

void mfix_shuffle(int *v, int n, uint64_t *x)
{
    int i, j, t;

    for (i = n - 1; i > 0; i--) {
        j = pick(x, 0, i);
        t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

void mfix_seed(uint64_t n, uint8_t seed[RNG_SEED_LEN])
{
    int i;

    memset(seed, 0, RNG_SEED_LEN);
    for (i = 0; i < 8; i++)
        seed[i] = (uint8_t)(n >> (8 * i));
    seed[31] = 0x3a;
}

static void identity(int *v, int n)
{
    int i;

    for (i = 0; i < n; i++)
        v[i] = i;
}

/* An open battle: the smaller army's units one a combat, the larger's
 * one each, some a second, the rest in reserve and some of those fed. */
static void random_open(matrix_plan *p, uint64_t *x)
{
    matrix_setup *s = &p->setup;
    int small = pick(x, 1, 6), extra = pick(x, 0, 4);
    int big = pick(x, 0, 1), lit = 1 - big, next = small, c, k;
    int su[MATRIX_MAX_UNITS], lu[MATRIX_MAX_UNITS];

    s->armies[big].n_units = small + extra;
    s->armies[lit].n_units = small;
    identity(su, small);
    identity(lu, small + extra);
    mfix_shuffle(su, small, x);
    mfix_shuffle(lu, small + extra, x);
    s->n_line = small;
    for (c = 0; c < small; c++) {
        matrix_pairing *q = &s->line[c];
        q->units[lit][0] = su[c];
        q->units[big][0] = lu[c];
        q->n_units[lit] = q->n_units[big] = 1;
        if (next < small + extra && pick(x, 0, 2) == 0) {
            q->units[big][1] = lu[next++];
            q->n_units[big] = 2;
        }
    }
    for (k = next; k < small + extra; k++)
        if (pick(x, 0, 2) > 0) {
            c = pick(x, 0, small - 1);
            p->reserves[c][p->n_reserves[c]++] = big * MATRIX_MAX_UNITS + lu[k];
        }
}

/* A skirmish: one unit each in the line, up to two each in reserve, and
 * all of them fed (escalation) or some. */
static void random_skirmish(matrix_plan *p, uint64_t *x)
{
    matrix_setup *s = &p->setup;
    int a, k, n, max, u[MATRIX_MAX_UNITS], refs[2 * MATRIX_SKIRMISH_RESERVE];
    int n_refs = 0;

    s->kind = MATRIX_SKIRMISH;
    s->n_line = 1;
    for (a = 0; a < 2; a++) {
        matrix_army *m = &s->armies[a];
        n = m->n_units = pick(x, 1, 5);
        identity(u, n);
        mfix_shuffle(u, n, x);
        s->line[0].units[a][0] = u[0];
        s->line[0].n_units[a] = 1;
        max = n - 1 < MATRIX_SKIRMISH_RESERVE ? n - 1 : MATRIX_SKIRMISH_RESERVE;
        m->n_reserve = pick(x, 0, max);
        for (k = 0; k < m->n_reserve; k++) {
            m->reserve[k] = u[1 + k];
            refs[n_refs++] = a * MATRIX_MAX_UNITS + u[1 + k];
        }
    }
    mfix_shuffle(refs, n_refs, x);
    if (pick(x, 0, 1))
        n_refs = pick(x, 0, n_refs);
    memcpy(p->reserves[0], refs, (size_t)n_refs * sizeof *refs);
    p->n_reserves[0] = n_refs;
}

void mfix_random_plan(matrix_plan *p, uint64_t n)
{
    matrix_setup *s = &p->setup;
    uint64_t x = n ^ 0x6d617472u;
    int a, u, ambush;

    memset(p, 0, sizeof *p);
    if (pick(&x, 0, 4) == 0)
        random_skirmish(p, &x);
    else
        random_open(p, &x);
    s->basis = (matrix_basis)pick(&x, 0, 2);
    ambush = pick(&x, 0, 3);
    for (a = 0; a < 2; a++) {
        matrix_army *m = &s->armies[a];
        m->argument = pick(&x, -1, 1);
        m->is_exhausted = pick(&x, 0, 3) == 0;
        m->is_ambushing = ambush == a;
        for (u = 0; u < m->n_units; u++)
            m->quality[u] = pick(&x, 0, 4) == 0 ? pick(&x, -MATRIX_QUALITY_MAX,
                                                       MATRIX_QUALITY_MAX)
                                                : pick(&x, -1, 1);
    }
    identity(p->order, s->n_line);
    mfix_shuffle(p->order, s->n_line, &x);
}

size_t mfix_replay_dice(const matrix_battle *b, const int *roll_order,
                        const int *reserve_order, int *values)
{
    const matrix_setup *s = b->setup;
    size_t n = 0;
    int i, a, k, c;

    for (i = 0; i < s->n_line; i++) {
        const matrix_combat *cb = &b->combats[roll_order[i]];
        for (a = 0; a < 2; a++)
            for (k = 0; k < s->line[roll_order[i]].n_units[a]; k++)
                values[n++] = cb->natural[a][k];
        for (k = 0; reserve_order == NULL && k < cb->n_reserves; k++)
            values[n++] = cb->reserves[k].natural;
    }
    for (i = 0; reserve_order != NULL && i < s->n_line; i++) {
        c = reserve_order[i];
        for (k = 0; k < b->combats[c].n_reserves; k++)
            values[n++] = b->combats[c].reserves[k].natural;
    }
    ck_assert_uint_le(n, MFIX_MAX_DICE);
    return n;
}

/* ---- the reference model ---- */

/* "Modifiers": argument, +1 ambushing, -1 exhausted, on every die. */
static int ref_modifier(const matrix_army *m)
{
    return m->argument + (m->is_ambushing ? 1 : 0) - (m->is_exhausted ? 1 : 0);
}

/* "A combat" step 3, with the ratio's thresholds written as products. */
static matrix_fate ref_fate(int s0, int s1, int *loser)
{
    int hi, lo;

    s0 = s0 > 0 ? s0 : 1;
    s1 = s1 > 0 ? s1 : 1;
    if (s0 == s1) {
        *loser = -1;
        return MATRIX_NONE;
    }
    *loser = s1 > s0 ? 0 : 1;
    hi = s1 > s0 ? s1 : s0;
    lo = s1 > s0 ? s0 : s1;
    if (hi >= 3 * lo)
        return MATRIX_ROUTED;
    return hi >= 2 * lo ? MATRIX_BEATEN : MATRIX_REPULSED;
}

static bool ref_in_reserve(const matrix_setup *s, int a, int u)
{
    int k, n0 = s->armies[0].n_units, n1 = s->armies[1].n_units;

    if (s->kind == MATRIX_SKIRMISH) {
        for (k = 0; k < s->armies[a].n_reserve; k++)
            if (s->armies[a].reserve[k] == u)
                return true;
        return false;
    }
    return n0 != n1 && (a == 0) == (n0 > n1) && !in_line(s, a, u);
}

/* Row i of d's log is unit u of army a's die, natural nat, modified mod. */
static void check_row(const dice_source *d, size_t i, int nat, int mod, int a,
                      int u, const char *reason)
{
    const dice_roll *row;

    ck_assert_uint_lt(i, d->n_log);
    row = &d->log[i];
    ck_assert_int_eq(row->faces, 6);
    ck_assert_int_eq(row->natural, nat);
    ck_assert(nat >= 1 && nat <= 6);
    ck_assert_int_eq(row->modified, mod);
    ck_assert_int_eq(row->side, a);
    ck_assert_int_eq(row->unit, u);
    ck_assert_str_eq(row->reason, reason);
}

/* Combat c's scores restated; returns the dice it rolled. */
static size_t check_combat(const matrix_battle *b, int c, const dice_source *d)
{
    const matrix_setup *s = b->setup;
    const matrix_combat *cb = &b->combats[c];
    int score[2] = {0, 0}, a, k, u, v, loser;
    size_t n = 0;

    for (a = 0; a < 2; a++)
        for (k = 0; k < s->line[c].n_units[a]; k++, n++) {
            u = s->line[c].units[a][k];
            v = cb->natural[a][k] + s->armies[a].quality[u] +
                ref_modifier(&s->armies[a]);
            score[a] += v; /* "Two units against one: their scores are added" */
            check_row(d, cb->first_roll + n, cb->natural[a][k], v, a, u,
                      "matrix.line");
        }
    for (k = 0; k < cb->n_reserves; k++, n++) {
        const matrix_reserve *r = &cb->reserves[k];
        ck_assert(ref_in_reserve(s, r->army, r->unit));
        ck_assert(b->is_committed[r->army][r->unit]);
        v = r->natural - 1 + s->armies[r->army].quality[r->unit] +
            ref_modifier(&s->armies[r->army]);
        score[r->army] += v;
        check_row(d, r->roll, r->natural, v, r->army, r->unit,
                  "matrix.reserve");
    }
    ck_assert_int_eq(cb->score[0], score[0]);
    ck_assert_int_eq(cb->score[1], score[1]);
    ck_assert_int_eq(cb->fate, ref_fate(score[0], score[1], &loser));
    ck_assert_int_eq(cb->loser, loser);
    return n;
}

bool mfix_battle_equal(const matrix_battle *a, const matrix_battle *b)
{
    int c;

    if (memcmp(a, b, offsetof(matrix_battle, combats)) != 0)
        return false;
    for (c = 0; c < MATRIX_MAX_COMBATS; c++) {
        const matrix_combat *x = &a->combats[c], *y = &b->combats[c];
        if (memcmp(x, y, offsetof(matrix_combat, reserves)) != 0 ||
            memcmp(x->reserves, y->reserves,
                   (size_t)x->n_reserves * sizeof x->reserves[0]) != 0)
            return false;
    }
    return true;
}

void mfix_check_battle(const matrix_battle *b, const dice_source *d)
{
    const matrix_setup *s = b->setup;
    int c, a, u, n_rolled = 0, n_accepted = 0, n_res = 0, n_committed = 0;
    size_t n_dice = 0;

    for (c = 0; c < s->n_line; c++) {
        const matrix_combat *cb = &b->combats[c];
        if (!cb->is_rolled) {
            ck_assert(!cb->is_accepted);
            ck_assert_int_eq(cb->n_reserves, 0);
            continue;
        }
        n_rolled++;
        n_accepted += cb->is_accepted;
        n_res += cb->n_reserves;
        n_dice += check_combat(b, c, d);
    }
    for (a = 0; a < 2; a++)
        for (u = 0; u < s->armies[a].n_units; u++)
            n_committed += b->is_committed[a][u];
    ck_assert_int_eq(b->n_rolled, n_rolled);
    ck_assert_int_eq(b->n_accepted, n_accepted);
    ck_assert_int_eq(n_committed, n_res); /* a reserve joins one combat */
    ck_assert_uint_eq(d->n_log, n_dice);
}

/* "The battle's result": the army state's row over n units that fought,
 * routed and beaten of them, most severe first. */
static matrix_state ref_state(int n, int routed, int beaten)
{
    if (2 * routed >= n)
        return MATRIX_STATE_HALF_ROUTED;
    if (routed > 0 || 2 * beaten >= n)
        return MATRIX_STATE_ROUTED;
    return beaten > 0 ? MATRIX_STATE_BEATEN : MATRIX_STATE_HOLDING;
}

void mfix_check_result(const matrix_battle *b, const matrix_result *r)
{
    static const int points[] = {0, 1, 2, 3}; /* none repulsed beaten routed */
    const matrix_setup *s = b->setup;
    matrix_fate fates[2][MATRIX_MAX_UNITS];
    bool fought[2][MATRIX_MAX_UNITS];
    int c, a, k, u, sum[2] = {0, 0}, winner, n = 0, routed = 0, beaten = 0;

    memset(fates, 0, sizeof fates);
    memset(fought, 0, sizeof fought);
    for (c = 0; c < s->n_line; c++) {
        const matrix_combat *cb = &b->combats[c];
        ck_assert(cb->is_rolled && cb->is_accepted);
        for (a = 0; a < 2; a++)
            for (k = 0; k < s->line[c].n_units[a]; k++) {
                u = s->line[c].units[a][k];
                fought[a][u] = true;
                fates[a][u] = cb->loser == a ? cb->fate : MATRIX_NONE;
            }
        for (k = 0; k < cb->n_reserves; k++) {
            const matrix_reserve *x = &cb->reserves[k];
            fought[x->army][x->unit] = true;
            fates[x->army][x->unit] =
                cb->loser == x->army ? cb->fate : MATRIX_NONE;
        }
    }
    for (a = 0; a < 2; a++)
        for (u = 0; u < MATRIX_MAX_UNITS; u++) {
            ck_assert_msg(r->fates[a][u] == fates[a][u], "army %d unit %d", a,
                          u);
            ck_assert_int_eq(r->has_fought[a][u], fought[a][u]);
            ck_assert(fought[a][u] || r->fates[a][u] == MATRIX_NONE);
            sum[a] += points[fates[a][u]];
        }
    ck_assert_int_eq(r->points[0], sum[0]);
    ck_assert_int_eq(r->points[1], sum[1]);
    winner = sum[0] == sum[1] ? -1 : sum[0] < sum[1] ? 0 : 1;
    ck_assert_int_eq(r->winner, winner);
    if (winner >= 0) /* the winner has strictly fewer points */
        ck_assert_int_lt(r->points[winner], r->points[1 - winner]);
    for (a = 0; a < 2; a++) {
        if (winner >= 0 && ((s->basis == MATRIX_BASIS_WINNER && a != winner) ||
                            (s->basis == MATRIX_BASIS_LOSER && a == winner)))
            continue;
        for (u = 0; u < s->armies[a].n_units; u++) {
            n += fought[a][u];
            routed += fought[a][u] && fates[a][u] == MATRIX_ROUTED;
            beaten += fought[a][u] && fates[a][u] == MATRIX_BEATEN;
        }
    }
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq(r->state, ref_state(n, routed, beaten));
    /* a draw has no winner to pursue or withdraw */
    ck_assert_int_eq(r->is_winner_pursuing,
                     winner >= 0 && r->state == MATRIX_STATE_HOLDING);
    ck_assert_int_eq(r->is_winner_withdrawing,
                     winner >= 0 && r->state == MATRIX_STATE_HALF_ROUTED);
    for (a = 0; a < 2; a++)
        ck_assert_int_eq(r->is_exhausted[a],
                         r->state == MATRIX_STATE_HALF_ROUTED ||
                             r->state == MATRIX_STATE_ROUTED);
}
