/*
 * civ_fixture.c: see civ_fixture.h.  The reference model restates
 * ../shared/rules/civ.md ("A phase", steps 1 to 4) without calling
 * core/civ.c beyond reading the battle and phase it checks.
 */
#include "civ_fixture.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

/* ---- setups and orders ---- */

void cfix_setup_init(civ_setup *s)
{
    memset(s, 0, sizeof *s);
    s->current_era = 1;
}

/* Appends a unit to army a; returns its index. */
static int add_unit(civ_setup *s, int a, civ_class cls, int era, int bonus,
                    int mult)
{
    civ_army *m = &s->armies[a];
    civ_unit *x = &m->units[m->n_units];

    ck_assert_int_lt(m->n_units, CIV_MAX_UNITS);
    x->cls = cls;
    x->era = era;
    x->bonus = bonus;
    x->dice_multiplier = mult;
    return m->n_units++;
}

void cfix_orders_init(civ_orders o[2])
{
    memset(o, 0, 2 * sizeof *o);
    o[0].support = o[1].support = -1;
}

void cfix_build(civ_setup *s, const char *spec)
{
    static const char letters[] = "icapo";
    const char *p = spec;
    char *end;
    int a = 0, u;

    while (*p != '\0') {
        const char *c = strchr(letters, *p);
        if (*p == ' ' || *p == '|') {
            a += *p++ == '|';
            continue;
        }
        ck_assert_msg(c != NULL && *p != '\0', "spec %s", spec);
        u = (int)strtol(p + 1, &end, 10);
        if (*p == 'p') {
            add_unit(s, a, CIV_AIRCRAFT, 4, 0, u);
        } else {
            u = add_unit(s, a, (civ_class)(c - letters), u, 0, 0);
            if (*end == '+' || *end == '-')
                s->armies[a].units[u].bonus = (int)strtol(end, &end, 10);
        }
        p = end;
    }
}

int cfix_list(const char *text, int *out)
{
    char *end;
    int n = 0;

    for (;;) {
        long v = strtol(text, &end, 10);
        if (end == text)
            return n;
        out[n++] = (int)v;
        text = end;
    }
}

/* ---- a hand-worked battle ---- */

cfix_hand *cfix_hand_new(const char *spec)
{
    cfix_hand *h = calloc(1, sizeof *h);

    ck_assert_ptr_nonnull(h);
    cfix_setup_init(&h->s);
    cfix_build(&h->s, spec);
    cfix_orders_init(h->o);
    CFIX_OK(civ_battle_init(&h->b, &h->s, &h->e), &h->e);
    return h;
}

void cfix_hand_free(cfix_hand *h)
{
    dice_cleanup(&h->d);
    free(h);
}

void cfix_fight(cfix_hand *h, const int *values, size_t n)
{
    dice_cleanup(&h->d);
    dice_init_values(&h->d, DICE_ENTERED, values, n);
    h->before = h->b;
    CFIX_OK(civ_fight_phase(&h->b, h->o, &h->d, &h->ph, &h->e), &h->e);
    CFIX_OK(dice_check_all_used(&h->d, &h->e), &h->e);
    cfix_check_phase(&h->before, &h->b, h->o, &h->ph, &h->d);
    cfix_orders_init(h->o);
}

void cfix_refused(cfix_hand *h, err_code code, const char *field)
{
    civ_battle copy = h->b;
    err_code rc;

    dice_cleanup(&h->d);
    dice_init_values(&h->d, DICE_ENTERED, cfix_same(3), CFIX_MAX_DICE);
    err_clear(&h->e);
    rc = civ_fight_phase(&h->b, h->o, &h->d, &h->ph, &h->e);
    ck_assert_msg(rc == code, "%s expected, got %s (%s: %s)",
                  err_code_name(code), err_code_name(rc), h->e.field,
                  h->e.message);
    ck_assert_str_eq(h->e.field, field);
    ck_assert_msg(memcmp(&copy, &h->b, sizeof copy) == 0, "battle changed");
    ck_assert_uint_eq(h->d.n_log, 0);
    ck_assert_uint_eq(h->d.next_value, 0);
}

const int *cfix_same(int v)
{
    static int dice[CFIX_MAX_DICE];
    int k;

    for (k = 0; k < CFIX_MAX_DICE; k++)
        dice[k] = v;
    return dice;
}

void cfix_destroyed(const civ_army_phase *p, const int *want, int n)
{
    int k;

    ck_assert_int_eq(p->n_destroyed, n);
    for (k = 0; k < n; k++)
        ck_assert_int_eq(p->destroyed[k], want[k]);
}

/* ---- JSON ---- */

json_t *cfix_load_vectors(const char *file)
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

int cfix_jint(const json_t *j, const char *what)
{
    ck_assert_msg(json_is_integer(j), "%s: not an integer", what);
    return (int)json_integer_value(j);
}

const char *cfix_jstr(const json_t *j, const char *what)
{
    ck_assert_msg(json_is_string(j), "%s: not a string", what);
    return json_string_value(j);
}

void cfix_known_keys(const json_t *j, const char *keys, const char *what)
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

/* The army called name. */
static int army_of(const cfix_vbattle *v, const char *name)
{
    int a;

    for (a = 0; a < 2; a++)
        if (strcmp(v->names[a], name) == 0)
            return a;
    ck_abort_msg("%s: no army %s", v->name, name);
    return -1;
}

/* Unit id of army a, as its index. */
static int unit_of(const cfix_vbattle *v, int a, const char *id)
{
    int u;

    for (u = 0; u < v->setup.armies[a].n_units; u++)
        if (strcmp(v->ids[a][u], id) == 0)
            return u;
    ck_abort_msg("%s: no unit %s in %s", v->name, id, v->names[a]);
    return -1;
}

/* A list of ids of army a, as indices; returns the count. */
static int load_ids(const cfix_vbattle *v, int a, const json_t *j, int *out)
{
    const json_t *x;
    size_t i;

    ck_assert_msg(json_is_array(j), "%s: not a list of ids", v->name);
    ck_assert_uint_le(json_array_size(j), CIV_MAX_UNITS);
    json_array_foreach(j, i, x)
    {
        out[i] = unit_of(v, a, cfix_jstr(x, "unit id"));
    }
    return (int)json_array_size(j);
}

static void load_army(cfix_vbattle *v, int a, const json_t *j)
{
    civ_army *m = &v->setup.armies[a];
    const json_t *units = json_object_get(j, "units"), *ju, *mult;
    size_t i;
    int k;

    cfix_known_keys(j, " name technologies units ", "army");
    v->names[a] = cfix_jstr(json_object_get(j, "name"), "army name");
    m->technologies =
        cfix_jint(json_object_get(j, "technologies"), "technologies");
    ck_assert(json_is_array(units));
    ck_assert_uint_le(json_array_size(units), CIV_MAX_UNITS);
    m->n_units = (int)json_array_size(units);
    json_array_foreach(units, i, ju)
    {
        civ_unit *x = &m->units[i];
        const char *cls;
        cfix_known_keys(ju, " id class era bonus dice_multiplier ", "unit");
        v->ids[a][i] = cfix_jstr(json_object_get(ju, "id"), "id");
        for (k = 0; k < (int)i; k++)
            ck_assert_str_ne(v->ids[a][k], v->ids[a][i]);
        cls = cfix_jstr(json_object_get(ju, "class"), "class");
        ck_assert_msg(civ_class_parse(cls, &x->cls), "class %s", cls);
        x->era = cfix_jint(json_object_get(ju, "era"), "era");
        x->bonus = cfix_jint(json_object_get(ju, "bonus"), "bonus");
        mult = json_object_get(ju, "dice_multiplier");
        ck_assert_msg((mult != NULL) == (x->cls == CIV_AIRCRAFT),
                      "%s: a dice_multiplier is an aircraft's", v->ids[a][i]);
        if (mult != NULL)
            x->dice_multiplier = cfix_jint(mult, "dice_multiplier");
    }
}

static void load_setup(cfix_vbattle *v, const json_t *j)
{
    const json_t *x;

    cfix_known_keys(j,
                    " name current_era settlement great_wall attacker "
                    "defender phases expect ",
                    "battle");
    v->name = cfix_jstr(json_object_get(j, "name"), "battle name");
    v->setup.current_era =
        cfix_jint(json_object_get(j, "current_era"), "current_era");
    x = json_object_get(j, "settlement");
    ck_assert(json_is_boolean(x));
    v->setup.is_settlement = json_is_true(x);
    x = json_object_get(j, "great_wall");
    ck_assert(x == NULL || json_is_boolean(x));
    v->setup.has_great_wall = json_is_true(x);
    load_army(v, 0, json_object_get(j, "attacker"));
    load_army(v, 1, json_object_get(j, "defender"));
    ck_assert_str_ne(v->names[0], v->names[1]);
}

/* "waves", "aircraft_support", "casualty_order" of phase j into orders; the
 * file's waves into want (n_want[a] < 0: none given). */
static void load_orders(cfix_vbattle *v, const json_t *j, civ_orders *o,
                        int want[2][CIV_MAX_UNITS], int n_want[2])
{
    const json_t *x;
    const char *name;
    int a;

    cfix_orders_init(o);
    n_want[0] = n_want[1] = -1;
    json_object_foreach((json_t *)json_object_get(j, "waves"), name, x)
    {
        a = army_of(v, name);
        n_want[a] = load_ids(v, a, x, want[a]);
        /* Only the larger army picks a wave; the smaller one's is all its
         * units, which the file may spell out. */
        if (civ_regulars(&v->b, a) > civ_regulars(&v->b, 1 - a)) {
            memcpy(o[a].wave, want[a], sizeof want[a]);
            o[a].n_wave = n_want[a];
        }
    }
    json_object_foreach((json_t *)json_object_get(j, "aircraft_support"), name,
                        x)
    {
        civ_class c;
        a = army_of(v, name);
        ck_assert(civ_class_parse(cfix_jstr(x, "aircraft_support"), &c));
        o[a].support = (int)c;
    }
    json_object_foreach((json_t *)json_object_get(j, "casualty_order"), name, x)
    {
        a = army_of(v, name);
        o[a].n_casualties = load_ids(v, a, x, o[a].casualties);
    }
}

/* "dice": each army's naturals, the attacker's first. */
static size_t load_dice(cfix_vbattle *v, const json_t *j, int *values)
{
    const json_t *x;
    size_t n = 0, i;
    int a;

    ck_assert_msg(json_object_size(j) == 2, "%s: dice of two armies", v->name);
    for (a = 0; a < 2; a++) {
        x = json_object_get(j, v->names[a]);
        ck_assert_msg(json_is_array(x), "%s: no dice for %s", v->name,
                      v->names[a]);
        ck_assert_uint_le(n + json_array_size(x), CFIX_MAX_DICE);
        for (i = 0; i < json_array_size(x); i++)
            values[n++] = cfix_jint(json_array_get(x, i), "die");
    }
    return n;
}

/* A phase's "expect": totals, terms (every one present), destroyed. */
static void check_expect(const cfix_vbattle *v, const civ_phase *ph,
                         const json_t *j)
{
    const json_t *x, *t;
    const char *name, *term;
    int a, ids[CIV_MAX_UNITS], n, k;

    cfix_known_keys(j, " totals terms destroyed ", "phase expect");
    json_object_foreach((json_t *)json_object_get(j, "totals"), name, x)
    {
        a = army_of(v, name);
        ck_assert_msg(ph->armies[a].total == cfix_jint(x, "total"),
                      "%s: %s's total %d, not %d", v->name, name,
                      ph->armies[a].total, (int)json_integer_value(x));
    }
    json_object_foreach((json_t *)json_object_get(j, "terms"), name, x)
    {
        const civ_army_phase *p = &ph->armies[army_of(v, name)];
        cfix_known_keys(x, " base aircraft bonus science cia settlement ",
                        "terms");
        json_object_foreach((json_t *)x, term, t)
        {
            int got = strcmp(term, "base") == 0       ? p->base
                      : strcmp(term, "aircraft") == 0 ? p->air
                      : strcmp(term, "bonus") == 0    ? p->bonus
                      : strcmp(term, "science") == 0  ? p->science
                      : strcmp(term, "cia") == 0      ? p->cia
                                                      : p->settlement;
            ck_assert_msg(got == cfix_jint(t, term), "%s: %s's %s %d, not %d",
                          v->name, name, term, got, (int)json_integer_value(t));
        }
    }
    /* The file lists losses in the order the owner allots them, which is
     * the order the core destroys them in. */
    json_object_foreach((json_t *)json_object_get(j, "destroyed"), name, x)
    {
        a = army_of(v, name);
        n = load_ids(v, a, x, ids);
        ck_assert_msg(ph->armies[a].n_destroyed == n,
                      "%s: %s lost %d units, not %d", v->name, name,
                      ph->armies[a].n_destroyed, n);
        for (k = 0; k < n; k++)
            ck_assert_msg(ph->armies[a].destroyed[k] == ids[k],
                          "%s: %s's loss %d is %s, not %s", v->name, name, k,
                          v->ids[a][ph->armies[a].destroyed[k]],
                          v->ids[a][ids[k]]);
    }
}

static void play_phase(cfix_vbattle *v, const json_t *j)
{
    int i = v->n_phases, want[2][CIV_MAX_UNITS], n_want[2], a, k;
    civ_orders o[2];
    civ_phase *ph = &v->phases[i];
    civ_battle before = v->b;
    dice_source d;
    err_info e;

    cfix_known_keys(j, " waves aircraft_support casualty_order dice expect ",
                    "phase");
    load_orders(v, j, o, want, n_want);
    v->n_values = load_dice(v, json_object_get(j, "dice"), v->values);
    dice_init_values(&d, DICE_ENTERED, v->values, v->n_values);
    CFIX_OK(civ_fight_phase(&v->b, o, &d, ph, &e), &e);
    CFIX_OK(dice_check_all_used(&d, &e), &e);
    cfix_check_phase(&before, &v->b, o, ph, &d);
    for (a = 0; a < 2; a++) {
        if (n_want[a] < 0)
            continue;
        ck_assert_int_eq(ph->armies[a].n_wave, n_want[a]);
        for (k = 0; k < n_want[a]; k++)
            ck_assert_int_eq(ph->armies[a].wave[k], want[a][k]);
    }
    check_expect(v, ph, json_object_get(j, "expect"));
    dice_cleanup(&d);
    v->n_phases++;
}

/* The battle's "expect": the winner's name and each army's survivors. */
static void check_end(const cfix_vbattle *v, const json_t *j)
{
    const json_t *x;
    const char *name;
    int a, ids[CIV_MAX_UNITS], n, k, u;

    cfix_known_keys(j, " winner survivors ", "battle expect");
    x = json_object_get(j, "winner");
    if (x != NULL) {
        ck_assert(civ_is_over(&v->b));
        ck_assert_int_eq(v->b.winner, json_is_null(x)
                                          ? -1
                                          : army_of(v, cfix_jstr(x, "winner")));
    }
    json_object_foreach((json_t *)json_object_get(j, "survivors"), name, x)
    {
        bool is_listed[CIV_MAX_UNITS] = {false};
        a = army_of(v, name);
        n = load_ids(v, a, x, ids);
        for (k = 0; k < n; k++)
            is_listed[ids[k]] = true;
        for (u = 0; u < v->setup.armies[a].n_units; u++)
            ck_assert_msg(v->b.is_alive[a][u] == is_listed[u],
                          "%s: %s's %s alive %d", v->name, name, v->ids[a][u],
                          v->b.is_alive[a][u]);
    }
}

cfix_vbattle *cfix_vbattle_play(const json_t *j)
{
    cfix_vbattle *v = calloc(1, sizeof *v);
    const json_t *phases, *x;
    size_t i;
    err_info e;

    ck_assert_ptr_nonnull(v);
    load_setup(v, j);
    CFIX_OK(civ_battle_init(&v->b, &v->setup, &e), &e);
    phases = json_object_get(j, "phases");
    ck_assert(json_is_array(phases) && json_array_size(phases) > 0);
    ck_assert_uint_le(json_array_size(phases), 8);
    json_array_foreach(phases, i, x)
    {
        play_phase(v, x);
    }
    x = json_object_get(j, "expect");
    if (x != NULL)
        check_end(v, x);
    return v;
}

/* ---- random battles ---- */

int cfix_pick(uint64_t *x, int lo, int hi)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return lo + (int)(z % (uint64_t)(hi - lo + 1));
}

void cfix_seed(uint64_t n, uint8_t seed[RNG_SEED_LEN])
{
    int i;

    memset(seed, 0, RNG_SEED_LEN);
    for (i = 0; i < 8; i++)
        seed[i] = (uint8_t)(n >> (8 * i));
    seed[31] = 0xc1;
}

static void shuffle(int *v, int n, uint64_t *x)
{
    int i, j, t;

    for (i = n - 1; i > 0; i--) {
        j = cfix_pick(x, 0, i);
        t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

void cfix_random_setup(civ_setup *s, uint64_t n)
{
    uint64_t x = n * 7919u + 17u;
    int a, k;

    cfix_setup_init(s);
    s->current_era = cfix_pick(&x, 1, 4);
    s->is_settlement = cfix_pick(&x, 0, 2) == 0;
    s->has_great_wall = cfix_pick(&x, 0, 3) == 0;
    for (a = 0; a < 2; a++) {
        int n_units = cfix_pick(&x, 1, 10), n_regular = 0;
        s->armies[a].technologies = cfix_pick(&x, 0, 8);
        for (k = 0; k < n_units; k++) {
            int r = cfix_pick(&x, 0, 99);
            civ_class c = r < 12   ? CIV_AIRCRAFT
                          : r < 20 ? CIV_OTHER
                                   : (civ_class)cfix_pick(&x, 0, 2);
            if (c == CIV_AIRCRAFT) {
                add_unit(s, a, c, 4, 0, cfix_pick(&x, 1, 3));
                continue;
            }
            add_unit(s, a, c, cfix_pick(&x, 1, 4), cfix_pick(&x, -2, 3), 0);
            n_regular++;
        }
        if (n_regular == 0)
            add_unit(s, a, CIV_INFANTRY, cfix_pick(&x, 1, 4), 0, 0);
    }
}

/* ---- the reference model ---- */

static const civ_unit *unit(const civ_battle *b, int a, int u)
{
    return &b->setup->armies[a].units[u];
}

static int regulars(const civ_battle *b, int a)
{
    int u, n = 0;

    for (u = 0; u < b->setup->armies[a].n_units; u++)
        n += b->is_alive[a][u] && unit(b, a, u)->cls != CIV_AIRCRAFT;
    return n;
}

/* Step 1: army a's wave under orders o; returns its size.  The wave
 * given (the smaller army may name all its units), or else its preference
 * order, then the order listed (for the smaller army: the order its units,
 * all forward, go in). */
static int ref_wave(const civ_battle *b, const civ_orders o[2], int a,
                    int *wave)
{
    int n0 = regulars(b, 0), n1 = regulars(b, 1), size = n0 < n1 ? n0 : n1;
    bool taken[CIV_MAX_UNITS] = {false};
    int n = 0, k, u;

    if (o[a].n_wave > 0) { /* for the smaller army, all its units */
        memcpy(wave, o[a].wave, (size_t)o[a].n_wave * sizeof *wave);
        return o[a].n_wave;
    }
    for (k = 0; k < o[a].n_preference && n < size; k++) {
        u = o[a].preference[k];
        if (u >= 0 && u < b->setup->armies[a].n_units && b->is_alive[a][u] &&
            unit(b, a, u)->cls != CIV_AIRCRAFT && !taken[u]) {
            taken[u] = true;
            wave[n++] = u;
        }
    }
    for (u = 0; u < b->setup->armies[a].n_units && n < size; u++)
        if (b->is_alive[a][u] && unit(b, a, u)->cls != CIV_AIRCRAFT &&
            !taken[u]) {
            taken[u] = true;
            wave[n++] = u;
        }
    return n;
}

void cfix_random_orders(const civ_battle *b, civ_orders o[2], uint64_t *x)
{
    int a, k, u, n, pool[CIV_MAX_UNITS], wave[CIV_MAX_UNITS];

    cfix_orders_init(o);
    for (a = 0; a < 2; a++) {
        const civ_army *m = &b->setup->armies[a];
        bool has_air = false;
        n = 0;
        for (u = 0; u < m->n_units; u++) {
            has_air |= b->is_alive[a][u] && m->units[u].cls == CIV_AIRCRAFT;
            if (b->is_alive[a][u] && m->units[u].cls != CIV_AIRCRAFT)
                pool[n++] = u;
        }
        shuffle(pool, n, x);
        if (cfix_pick(x, 0, 1)) { /* named: the smaller army's is all of it */
            k = regulars(b, 1 - a);
            o[a].n_wave = n < k ? n : k;
            memcpy(o[a].wave, pool, (size_t)n * sizeof *pool);
        } else { /* a preference order (any unit, alive or not) */
            for (u = 0; u < m->n_units; u++)
                o[a].preference[u] = u;
            o[a].n_preference = cfix_pick(x, 0, m->n_units);
            shuffle(o[a].preference, m->n_units, x);
        }
        if (has_air && cfix_pick(x, 0, 1)) {
            static const int classes[] = {CIV_INFANTRY, CIV_CAVALRY,
                                          CIV_ARTILLERY, CIV_OTHER};
            o[a].support = classes[cfix_pick(x, 0, 3)];
        }
        n = ref_wave(b, o, a, wave);
        shuffle(wave, n, x);
        for (k = 1; k <= CIV_MAX_ERA; k++) /* some of it, oldest era first */
            for (u = 0; u < n; u++)
                if (unit(b, a, wave[u])->era == k && cfix_pick(x, 0, 2) == 0)
                    o[a].casualties[o[a].n_casualties++] = wave[u];
    }
}

/* Step 2: the class the aircraft support (the most in the wave; ties
 * infantry, cavalry, artillery, then other) and those that fight. */
static void check_aircraft(const civ_battle *b, const civ_orders *o, int a,
                           const civ_army_phase *p)
{
    static const int ties[] = {CIV_INFANTRY, CIV_CAVALRY, CIV_ARTILLERY,
                               CIV_OTHER};
    int count[CIV_OTHER + 1] = {0}, air[CIV_MAX_UNITS], n_air = 0, k, u;
    int support = o->support, n_fight;

    for (k = 0; k < p->n_wave; k++)
        count[unit(b, a, p->wave[k])->cls]++;
    for (u = 0; u < b->setup->armies[a].n_units; u++)
        if (b->is_alive[a][u] && unit(b, a, u)->cls == CIV_AIRCRAFT)
            air[n_air++] = u;
    if (n_air == 0) {
        ck_assert_int_eq(p->support, -1);
        ck_assert_int_eq(p->n_aircraft + p->idle_aircraft, 0);
        return;
    }
    if (support < 0)
        for (k = 0, support = ties[0]; k < 4; k++)
            if (count[ties[k]] > count[support])
                support = ties[k];
    ck_assert_int_eq(p->support, support);
    n_fight = n_air < count[support] ? n_air : count[support];
    ck_assert_int_eq(p->n_aircraft, n_fight);
    ck_assert_int_eq(p->idle_aircraft, n_air - n_fight);
    for (k = 0; k < n_fight; k++)
        ck_assert_int_eq(p->aircraft[k], air[k]);
}

/* One die of the log: a d6 for (a, u), modified die5 times mult. */
static int check_die(const dice_source *d, size_t i, int a, int u,
                     const char *reason, int mult)
{
    const dice_roll *r = &d->log[i];
    int v = r->natural == 6 ? 5 : r->natural;

    ck_assert_uint_lt(i, d->n_log);
    ck_assert_int_eq(r->faces, 6);
    ck_assert_int_eq(r->side, a);
    ck_assert_int_eq(r->unit, u);
    ck_assert_str_eq(r->reason, reason);
    ck_assert_int_eq(r->modified, v * mult);
    return v * mult;
}

/* Step 3: every term of army a's total. */
static void check_terms(const civ_battle *b, const civ_phase *ph, int a,
                        const dice_source *d)
{
    static const int beats[3][2] = {{CIV_CAVALRY, CIV_INFANTRY},
                                    {CIV_INFANTRY, CIV_ARTILLERY},
                                    {CIV_ARTILLERY, CIV_CAVALRY}};
    const civ_army_phase *p = &ph->armies[a], *q = &ph->armies[1 - a];
    const civ_setup *s = b->setup;
    int base = 0, air = 0, bonus = 0, cia = 0, pen = 0, diff, k, i, j, sum;
    size_t r = p->first_roll;

    for (k = 0; k < p->n_wave; k++) {
        const civ_unit *x = unit(b, a, p->wave[k]);
        base += check_die(d, r++, a, p->wave[k], "civ.base", x->era);
        bonus += x->bonus;
    }
    for (k = 0; k < p->n_aircraft; k++)
        air += check_die(d, r++, a, p->aircraft[k], "civ.aircraft",
                         unit(b, a, p->aircraft[k])->dice_multiplier);
    ck_assert_uint_eq(r, a == 0 ? q->first_roll : d->n_log);
    ck_assert_int_eq(p->base, base);
    ck_assert_int_eq(p->air, air);
    ck_assert_int_eq(p->bonus, bonus);
    diff = s->armies[a].technologies - s->armies[1 - a].technologies;
    ck_assert_int_eq(p->science, diff > 0 ? p->n_wave * diff / 2 : 0);
    for (k = 0; k < 3; k++) { /* the highest eras are matched */
        int n_theirs = 0, m = 0;
        for (i = 0; i < p->n_wave; i++)
            m += (int)unit(b, a, p->wave[i])->cls == beats[k][0];
        for (i = 0; i < q->n_wave; i++)
            n_theirs += (int)unit(b, 1 - a, q->wave[i])->cls == beats[k][1];
        m = m < n_theirs ? m : n_theirs;
        ck_assert_int_eq(p->cia_matches[k], m);
        for (j = CIV_MAX_ERA; j >= 1; j--) /* count down eras */
            for (i = 0; i < p->n_wave && m > 0; i++)
                if ((int)unit(b, a, p->wave[i])->cls == beats[k][0] &&
                    unit(b, a, p->wave[i])->era == j) {
                    cia += j;
                    m--;
                }
    }
    ck_assert_int_eq(p->cia, cia);
    if (a == CIV_ATTACKER && s->is_settlement)
        for (i = 0; i < s->armies[1].n_units; i++)
            pen -= b->is_alive[1][i] ? (s->has_great_wall && s->current_era == 1
                                            ? 2
                                            : s->current_era)
                                     : 0;
    ck_assert_int_eq(p->settlement, pen);
    sum = base + air + bonus + p->science + cia + pen;
    ck_assert_int_ge(p->total, 0);
    ck_assert_int_eq(p->total, sum < 0 ? 0 : sum);
}

/* Does x come before y in the loss order (casualty ranks rank, -1 for
 * unlisted; px, py their places in the army's listing)? */
static bool loses_before(const civ_unit *x, const civ_unit *y, int rx, int ry,
                         int px, int py)
{
    if (x->era != y->era)
        return x->era < y->era;
    if ((rx >= 0) != (ry >= 0))
        return rx >= 0;
    if (rx >= 0)
        return rx < ry;
    if (x->bonus != y->bonus)
        return x->bonus < y->bonus;
    return px < py; /* the order the army lists them */
}

/* Step 4 for army a: the losses in order, the aircraft going down. */
static void check_losses(const civ_battle *b, const civ_battle *after,
                         const civ_orders *o, const civ_phase *ph, int a,
                         bool *dead)
{
    const civ_army_phase *p = &ph->armies[a];
    int order[CIV_MAX_UNITS], pos[CIV_MAX_UNITS], rank[CIV_MAX_UNITS];
    int want[CIV_MAX_UNITS], n = 0, left, n_air = 0, k, i, j, u;

    for (k = 0; k < p->n_wave; k++) {
        order[k] = p->wave[k];
        pos[p->wave[k]] = p->wave[k]; /* ties: the army's listing */
        rank[p->wave[k]] = -1;
    }
    for (k = 0; k < o->n_casualties; k++)
        for (i = 0; i < p->n_wave; i++)
            if (p->wave[i] == o->casualties[k])
                rank[p->wave[i]] = k;
    for (i = 1; i < p->n_wave; i++) /* insertion sort by loses_before */
        for (j = i; j > 0; j--) {
            int x = order[j], y = order[j - 1];
            if (!loses_before(unit(b, a, x), unit(b, a, y), rank[x], rank[y],
                              pos[x], pos[y]))
                break;
            order[j] = y;
            order[j - 1] = x;
        }
    left = ph->armies[1 - a].total;
    ck_assert_int_eq(p->damage_taken, left);
    for (k = 0; k < p->n_wave && left >= 5 * unit(b, a, order[k])->era; k++) {
        left -= 5 * unit(b, a, order[k])->era;
        want[n++] = order[k];
        if ((int)unit(b, a, order[k])->cls == p->support &&
            n_air < p->n_aircraft)
            want[n++] = p->aircraft[n_air++];
    }
    ck_assert_int_eq(p->damage_lost, left);
    if (k < p->n_wave) /* the next unit was not paid for */
        ck_assert_int_lt(p->damage_lost, 5 * unit(b, a, order[k])->era);
    for (i = 0; i < n; i++)
        dead[want[i]] = true;
    for (u = 0, j = 0; u < b->setup->armies[a].n_units; u++)
        j +=
            b->is_alive[a][u] && !dead[u] && unit(b, a, u)->cls != CIV_AIRCRAFT;
    for (u = 0; j == 0 && u < b->setup->armies[a].n_units; u++)
        if (b->is_alive[a][u] && !dead[u]) { /* aircraft alone: lost */
            dead[u] = true;
            want[n++] = u;
        }
    ck_assert_int_eq(p->n_destroyed, n);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(p->destroyed[i], want[i]);
    for (u = 0; u < b->setup->armies[a].n_units; u++)
        ck_assert(after->is_alive[a][u] == (b->is_alive[a][u] && !dead[u]));
}

/* The properties the brief names, from the phase alone. */
static void check_properties(const civ_battle *b, const civ_phase *ph, int a)
{
    const civ_army_phase *p = &ph->armies[a];
    bool is_dead[CIV_MAX_UNITS] = {false};
    int cost = 0, k, i;

    for (k = 0; k < p->n_destroyed; k++)
        if (unit(b, a, p->destroyed[k])->cls != CIV_AIRCRAFT) {
            is_dead[p->destroyed[k]] = true;
            cost += 5 * unit(b, a, p->destroyed[k])->era;
        }
    ck_assert_int_le(cost, p->damage_taken);
    ck_assert_int_eq(cost + p->damage_lost, p->damage_taken);
    for (k = 0; k < p->n_wave; k++)
        for (i = 0; i < p->n_wave; i++)
            ck_assert(
                !(is_dead[p->wave[k]] && !is_dead[p->wave[i]] &&
                  unit(b, a, p->wave[i])->era < unit(b, a, p->wave[k])->era));
}

void cfix_check_phase(const civ_battle *before, const civ_battle *after,
                      const civ_orders o[2], const civ_phase *ph,
                      const dice_source *d)
{
    int n0 = regulars(before, 0), n1 = regulars(before, 1), a, k;
    int wave[CIV_MAX_UNITS], n;
    bool dead[2][CIV_MAX_UNITS] = {{false}};

    for (a = 0; a < 2; a++) {
        n = ref_wave(before, o, a, wave);
        ck_assert_int_eq(n, n0 < n1 ? n0 : n1);
        ck_assert_int_eq(ph->armies[a].n_wave, n);
        for (k = 0; k < n; k++)
            ck_assert_int_eq(ph->armies[a].wave[k], wave[k]);
        check_aircraft(before, &o[a], a, &ph->armies[a]);
    }
    for (a = 0; a < 2; a++)
        check_terms(before, ph, a, d);
    for (a = 0; a < 2; a++) {
        check_losses(before, after, &o[a], ph, a, dead[a]);
        check_properties(before, ph, a);
    }
    ck_assert_ptr_eq(after->setup, before->setup);
    ck_assert_int_eq(after->n_phases, before->n_phases + 1);
    n0 = regulars(after, 0);
    n1 = regulars(after, 1);
    ck_assert(civ_is_over(after) == (n0 == 0 || n1 == 0));
    ck_assert_int_eq(after->winner, n0 > 0 && n1 == 0   ? 0
                                    : n1 > 0 && n0 == 0 ? 1
                                                        : -1);
}
