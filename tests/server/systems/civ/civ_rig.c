/*
 * civ_rig.c: the rig of the Civilization-over-HTTP suite; see civ_rig.h.
 * The model below follows docs/rules/civ.md, "A phase", step by step;
 * it reads the served report and recomputes it, never the server's code.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "civ_rig.h"
#include "matrix_rig.h"

void cv_campaign(test_campaign *c, const char *att, const char *def)
{
    const char *const sides[] = {att, def, NULL};

    scs_rig_campaign(c, NULL, sides);
}

json_t *cv_unit(const test_campaign *c, const char *name, const char *side,
                const char *civ, char *id_out)
{
    json_t *body = json_pack("{s:s, s:s, s:O}", "name", name, "side", side,
                             "civ", scs_json("%s", civ));
    char *text = scs_text(body);
    json_t *u;

    json_decref(body);
    u = scs_call(201, "POST", c->umpire, text, "/v1/campaigns/%s/units", c->id);
    free(text);
    scs_rig_assert_has(u, "{\"civ\":%s,\"systems\":[\"civ\"]}", civ);
    if (id_out)
        snprintf(id_out, 64, "%s", scs_str(u, "id"));
    return u;
}

/* ---- the vectors ---- */

bool cv_has(const json_t *arr, const char *s)
{
    const json_t *x;
    size_t i;

    json_array_foreach(arr, i, x)
    {
        if (json_string_value(x) && strcmp(json_string_value(x), s) == 0)
            return true;
    }
    return false;
}

/* got equals want, or the test fails naming what. */
static void same(const json_t *got, const json_t *want, const char *what)
{
    char *g = scs_text(got), *w = scs_text(want);

    ck_assert_msg(got && want && json_equal(got, want),
                  "%s: %s is %s, expected %s", rig_ctx, what, g, w);
    free(g);
    free(w);
}

int cv_vec_army(const json_t *bt, const char *name)
{
    int a;

    for (a = 0; a < 2; a++)
        if (name && strcmp(cv_vec_name(bt, a), name) == 0)
            return a;
    ck_abort_msg("%s: no army %s in the vector", rig_ctx, name);
    return -1;
}

const char *cv_vec_name(const json_t *bt, int a)
{
    return scs_str(scs_get(bt, mx_army_key[a]), "name");
}

/* A vector unit's piece {class, era, bonus[, dice_multiplier]} (new). */
static json_t *vec_piece(const json_t *u)
{
    json_t *p =
        json_pack("{s:O, s:O, s:O}", "class", scs_get(u, "class"), "era",
                  scs_get(u, "era"), "bonus", scs_get(u, "bonus"));

    if (scs_get(u, "dice_multiplier"))
        json_object_set(p, "dice_multiplier", scs_get(u, "dice_multiplier"));
    return p;
}

json_t *cv_vec_units(const test_campaign *c, const json_t *bt)
{
    json_t *ids = scs_rig_keep(json_object()), *u, *p;
    char id[64], *text;
    size_t i;
    int a;

    for (a = 0; a < 2; a++)
        json_array_foreach(scs_get(scs_get(bt, mx_army_key[a]), "units"), i, u)
        {
            p = vec_piece(u);
            text = scs_text(p);
            cv_unit(c, scs_str(u, "id"), cv_vec_name(bt, a), text, id);
            free(text);
            json_decref(p);
            json_object_set_new(ids, scs_str(u, "id"), json_string(id));
        }
    return ids;
}

json_t *cv_vec_campaign_body(const json_t *bt, int turn)
{
    json_t *body = json_pack(
        "{s:s, s:i, s:O, s:b, s:b, s:{s:s}}", "system", "civ", "turn", turn,
        "current_era", scs_get(bt, "current_era"), "settlement",
        json_is_true(scs_get(bt, "settlement")), "great_wall",
        json_is_true(scs_get(bt, "great_wall")), "dice", "source", "entered");
    const json_t *u;
    size_t i;
    int a;

    for (a = 0; a < 2; a++) {
        const json_t *va = scs_get(bt, mx_army_key[a]);
        json_t *units = json_array();
        json_array_foreach(scs_get(va, "units"), i, u)
            json_array_append(units, scs_get(u, "id"));
        json_object_set_new(body, mx_army_key[a],
                            json_pack("{s:O, s:O, s:o}", "side",
                                      scs_get(va, "name"), "technologies",
                                      scs_get(va, "technologies"), "units",
                                      units));
    }
    return body;
}

json_t *cv_vec_action(const json_t *bt, const json_t *ph)
{
    static const char *const from[3] = {"waves", "aircraft_support",
                                        "casualty_order"};
    static const char *const to[3] = {"wave", "aircraft_support", "casualties"};
    json_t *body = json_pack("{s:s, s:{}}", "action", "phase", "dice"), *v;
    const char *name;
    size_t k;
    int a;

    for (k = 0; k < 3; k++)
        json_object_foreach(scs_get(ph, from[k]), name, v)
        {
            const char *key = mx_army_key[cv_vec_army(bt, name)];
            if (scs_get(body, key) == NULL)
                json_object_set_new(body, key, json_object());
            json_object_set(scs_get(body, key), to[k], v);
        }
    for (a = 0; a < 2; a++)
        json_object_set(scs_get(body, "dice"), mx_army_key[a],
                        scs_get(scs_get(ph, "dice"), cv_vec_name(bt, a)));
    return body;
}

json_t *cv_vec_oneoff_body(const json_t *bt, size_t n)
{
    const json_t *phases = scs_get(bt, "phases"), *u;
    json_t *x, *v,
        *body = json_pack("{s:O, s:b, s:b, s:[], s:{s:s}}", "current_era",
                          scs_get(bt, "current_era"), "settlement",
                          json_is_true(scs_get(bt, "settlement")), "great_wall",
                          json_is_true(scs_get(bt, "great_wall")), "rolls",
                          "dice", "source", "entered");
    size_t i, k;
    int a;

    for (a = 0; a < 2; a++) {
        const json_t *va = scs_get(bt, mx_army_key[a]);
        const char *name = cv_vec_name(bt, a);
        json_t *army =
                   json_pack("{s:s, s:O, s:[]}", "name", name, "technologies",
                             scs_get(va, "technologies"), "units"),
               *pref = json_array(), *p;
        json_array_foreach(scs_get(va, "units"), i, u)
        {
            p = vec_piece(u);
            json_object_set(p, "name", scs_get(u, "id"));
            json_array_append_new(scs_get(army, "units"), p);
        }
        for (i = 0; i < n; i++)
            json_array_foreach(
                scs_get(scs_get(scs_at(phases, i), "waves"), name), k, x)
            {
                if (!cv_has(pref, json_string_value(x)))
                    json_array_append(pref, x);
            }
        if (json_array_size(pref) > 0)
            json_object_set(army, "wave_preference", pref);
        json_decref(pref);
        if ((v = scs_get(scs_get(scs_at(phases, 0), "aircraft_support"), name)))
            json_object_set(army, "aircraft_support", v);
        if ((v = scs_get(scs_get(scs_at(phases, 0), "casualty_order"), name)))
            json_object_set(army, "casualty_order", v);
        json_object_set_new(body, mx_army_key[a], army);
    }
    for (i = 0; i < n; i++)
        for (a = 0; a < 2; a++)
            json_array_foreach(
                scs_get(scs_get(scs_at(phases, i), "dice"), cv_vec_name(bt, a)),
                k, x) json_array_append(scs_get(body, "rolls"), x);
    return body;
}

void cv_vec_check_phase(const json_t *got, const json_t *bt, const json_t *ph)
{
    const json_t *ex = scs_get(ph, "expect"), *v;
    const char *k;
    char what[64];
    int a;

    for (a = 0; a < 2; a++) {
        const char *n = cv_vec_name(bt, a);
        const json_t *g = scs_get(got, mx_army_key[a]);
        if ((v = scs_get(scs_get(ph, "waves"), n)))
            same(scs_get(g, "wave"), v, "the wave");
        if ((v = scs_get(scs_get(ph, "aircraft_support"), n)))
            same(scs_get(g, "aircraft_support"), v, "the aircraft's class");
        snprintf(what, sizeof what, "%s's dice", n);
        same(scs_get(g, "dice"), scs_get(scs_get(ph, "dice"), n), what);
        RIG_EQ_INT(rig_inum(g, "total"), rig_inum(scs_get(ex, "totals"), n));
        json_object_foreach(scs_get(scs_get(ex, "terms"), n), k, v)
        {
            snprintf(what, sizeof what, "%s's term %s", n, k);
            same(scs_get(scs_get(g, "terms"), k), v, what);
        }
        snprintf(what, sizeof what, "%s's units destroyed", n);
        same(scs_get(g, "destroyed"), scs_get(scs_get(ex, "destroyed"), n),
             what);
    }
}

json_t *cv_vec_survivors(const json_t *bt, size_t n)
{
    json_t *s = scs_rig_keep(json_object()), *u;
    size_t i, k;
    int a;

    for (a = 0; a < 2; a++) {
        json_t *alive = json_array();
        json_array_foreach(scs_get(scs_get(bt, mx_army_key[a]), "units"), i, u)
        {
            bool is_dead = false;
            for (k = 0; k < n; k++)
                is_dead |= cv_has(
                    scs_get(scs_get(scs_get(scs_at(scs_get(bt, "phases"), k),
                                            "expect"),
                                    "destroyed"),
                            cv_vec_name(bt, a)),
                    scs_str(u, "id"));
            if (!is_dead)
                json_array_append(alive, scs_get(u, "id"));
        }
        json_object_set_new(s, mx_army_key[a], alive);
    }
    return s;
}

/* ---- the model (civ.md, "A phase") ---- */

#define CV_MAX 100
enum { INF, CAV, ART, AIR, OTH };
static const char *const classes[] = {"infantry", "cavalry", "artillery",
                                      "aircraft", "other"};

typedef struct piece {
    const char *name, *unit_id;
    int cls, era, bonus, mult;
} piece;

/* The setup and which units are still in the battle. */
typedef struct model {
    piece u[2][CV_MAX];
    int n[2], tech[2], current_era;
    bool is_settlement, has_great_wall;
    bool is_alive[2][CV_MAX];
} model;

/* One army's part in a phase as served, its wave and aircraft resolved. */
typedef struct part {
    const json_t *j;
    int wave[CV_MAX], n_wave, air[CV_MAX], n_air, support;
} part;

static model g_m; /* static: a failed assertion leaks nothing */

static int class_of(const char *s)
{
    int k;

    for (k = 0; s && k <= OTH; k++)
        if (strcmp(s, classes[k]) == 0)
            return k;
    ck_abort_msg("%s: no class %s", rig_ctx, s ? s : "(null)");
    return -1;
}

static void model_init(model *m, const json_t *setup)
{
    const json_t *army, *u;
    size_t i;
    int a;

    memset(m, 0, sizeof *m);
    m->current_era = (int)rig_inum(setup, "current_era");
    m->is_settlement = json_is_true(scs_get(setup, "settlement"));
    m->has_great_wall = json_is_true(scs_get(setup, "great_wall"));
    for (a = 0; a < 2; a++) {
        army = scs_get(setup, mx_army_key[a]);
        m->tech[a] = (int)json_integer_value(scs_get(army, "technologies"));
        json_array_foreach(scs_get(army, "units"), i, u)
        {
            piece *p = &m->u[a][m->n[a]];
            p->name = scs_str(u, "name");
            p->unit_id = scs_str(u, "unit_id");
            p->cls = class_of(scs_str(u, "class"));
            p->era = (int)rig_inum(u, "era");
            p->bonus = (int)rig_inum(u, "bonus");
            p->mult = p->cls == AIR ? (int)rig_inum(u, "dice_multiplier") : 1;
            m->is_alive[a][m->n[a]++] = true;
        }
    }
}

/* The unit of army a called name. */
static int find(const model *m, int a, const char *name)
{
    int u;

    for (u = 0; name && u < m->n[a]; u++)
        if (strcmp(m->u[a][u].name, name) == 0)
            return u;
    ck_abort_msg("%s: %s is not a unit of the %s", rig_ctx,
                 name ? name : "(null)", mx_army_key[a]);
    return -1;
}

static int names_to(const model *m, int a, const json_t *arr, int *out)
{
    const json_t *x;
    size_t k;

    RIG_IS_TRUE(json_is_array(arr));
    json_array_foreach(arr, k, x) out[k] = find(m, a, json_string_value(x));
    return (int)json_array_size(arr);
}

static int regulars(const model *m, int a)
{
    int u, n = 0;

    for (u = 0; u < m->n[a]; u++)
        n += m->is_alive[a][u] && m->u[a][u].cls != AIR;
    return n;
}

static int die5(long long natural)
{
    RIG_IS_TRUE(natural >= 1 && natural <= 6);
    return natural == 6 ? 5 : (int)natural;
}

/* Step 1 with standing orders: the preference order, then the order
 * listed, of units in the battle that are not aircraft. */
static int plan_wave(const model *m, int a, const json_t *pref, int size,
                     int *out)
{
    bool is_taken[CV_MAX] = {false};
    const json_t *x;
    size_t k;
    int n = 0, u;

    json_array_foreach(pref, k, x)
    {
        u = find(m, a, json_string_value(x));
        if (n < size && m->is_alive[a][u] && m->u[a][u].cls != AIR &&
            !is_taken[u])
            is_taken[u] = true, out[n++] = u;
    }
    for (u = 0; u < m->n[a] && n < size; u++)
        if (m->is_alive[a][u] && m->u[a][u].cls != AIR && !is_taken[u])
            is_taken[u] = true, out[n++] = u;
    return n;
}

/* Steps 1 and 2 for army a: its wave and the aircraft that fight. */
static void check_wave(const model *m, int a, part *p, int size,
                       const json_t *orders)
{
    const json_t *g = p->j;
    const char *sup = scs_str(g, "aircraft_support");
    int count[OTH + 1] = {0}, want[CV_MAX], n_air = 0, n_fight, k, u;
    bool is_seen[CV_MAX] = {false};

    p->n_wave = names_to(m, a, scs_get(g, "wave"), p->wave);
    RIG_EQ_INT(p->n_wave, size); /* all of the smaller army's, so */
    for (k = 0; k < p->n_wave; k++) {
        u = p->wave[k];
        RIG_IS_TRUE(m->is_alive[a][u] && m->u[a][u].cls != AIR);
        RIG_IS_TRUE(!is_seen[u]);
        is_seen[u] = true;
        count[m->u[a][u].cls]++;
    }
    if (orders) {
        plan_wave(m, a, scs_get(orders, "wave_preference"), size, want);
        for (k = 0; k < size; k++)
            RIG_EQ_STR(m->u[a][p->wave[k]].name, m->u[a][want[k]].name);
    }
    for (u = 0; u < m->n[a]; u++)
        n_air += m->is_alive[a][u] && m->u[a][u].cls == AIR;
    p->support = -1;
    p->n_air = names_to(m, a, scs_get(g, "aircraft"), p->air);
    if (n_air == 0) {
        RIG_IS_TRUE(json_is_null(scs_get(g, "aircraft_support")));
        RIG_EQ_INT(p->n_air, 0);
        RIG_EQ_INT(rig_inum(g, "idle_aircraft"), 0);
        return;
    }
    p->support = class_of(sup);
    RIG_IS_TRUE(p->support != AIR);
    if (orders && scs_str(orders, "aircraft_support"))
        RIG_EQ_STR(sup, scs_str(orders, "aircraft_support"));
    else if (orders) { /* most units in the wave; ties in civ.md's order */
        static const int ties[] = {INF, CAV, ART, OTH};
        int best = INF;
        for (k = 1; k < 4; k++)
            if (count[ties[k]] > count[best])
                best = ties[k];
        RIG_EQ_STR(sup, classes[best]);
    }
    /* one aircraft per unit of the class, in the order listed */
    n_fight = count[p->support] < n_air ? count[p->support] : n_air;
    RIG_EQ_INT(p->n_air, n_fight);
    RIG_EQ_INT(rig_inum(g, "idle_aircraft"), n_air - n_fight);
    for (u = 0, k = 0; u < m->n[a] && k < n_fight; u++)
        if (m->is_alive[a][u] && m->u[a][u].cls == AIR)
            RIG_EQ_STR(m->u[a][p->air[k++]].name, m->u[a][u].name);
}

/* Step 3 for army a: every term of its total from the dice. */
static void check_total(const model *m, int a, const part *p, const part *o)
{
    static const int beats[3][2] = {{CAV, INF}, {INF, ART}, {ART, CAV}};
    static const char *const pairs[3] = {
        "cavalry_infantry", "infantry_artillery", "artillery_cavalry"};
    const json_t *g = p->j, *d = scs_get(g, "dice"), *t = scs_get(g, "terms");
    int base = 0, air = 0, bonus = 0, sci = 0, cia = 0, settle = 0, sum, k, u;
    int diff = m->tech[a] - m->tech[1 - a];

    RIG_EQ_INT(json_array_size(d), p->n_wave + p->n_air);
    for (k = 0; k < p->n_wave; k++) {
        const piece *x = &m->u[a][p->wave[k]];
        base += die5(json_integer_value(scs_at(d, (size_t)k))) * x->era;
        bonus += x->bonus;
    }
    for (k = 0; k < p->n_air; k++)
        air += die5(json_integer_value(scs_at(d, (size_t)(p->n_wave + k)))) *
               m->u[a][p->air[k]].mult;
    if (diff > 0) /* floor(units * difference / 2) */
        sci = p->n_wave * diff / 2;
    for (k = 0; k < 3; k++) { /* CIA: this army's highest eras first */
        int eras[CV_MAX], n_mine = 0, n_theirs = 0, i, j, x, n_match;
        for (i = 0; i < p->n_wave; i++)
            if (m->u[a][p->wave[i]].cls == beats[k][0]) {
                x = m->u[a][p->wave[i]].era;
                for (j = n_mine++; j > 0 && eras[j - 1] < x; j--)
                    eras[j] = eras[j - 1];
                eras[j] = x;
            }
        for (i = 0; i < o->n_wave; i++)
            n_theirs += m->u[1 - a][o->wave[i]].cls == beats[k][1];
        n_match = n_mine < n_theirs ? n_mine : n_theirs;
        RIG_EQ_INT(rig_inum(scs_get(g, "cia_matches"), pairs[k]), n_match);
        for (i = 0; i < n_match; i++)
            cia += eras[i];
    }
    if (a == 0 && m->is_settlement) /* every defending unit, wave or not */
        for (u = 0; u < m->n[1]; u++)
            settle -= m->is_alive[1][u]
                          ? (m->has_great_wall && m->current_era == 1
                                 ? 2
                                 : m->current_era)
                          : 0;
    RIG_EQ_INT(rig_inum(t, "base"), base);
    RIG_EQ_INT(rig_inum(t, "aircraft"), air);
    RIG_EQ_INT(rig_inum(t, "bonus"), bonus);
    RIG_EQ_INT(rig_inum(t, "science"), sci);
    RIG_EQ_INT(rig_inum(t, "cia"), cia);
    RIG_EQ_INT(rig_inum(t, "settlement"), settle);
    sum = base + air + bonus + sci + cia + settle;
    RIG_EQ_INT(rig_inum(g, "total"), sum < 0 ? 0 : sum);
}

/* Step 4's order of losses with standing orders: oldest era first; in an
 * era the casualty order, then the lowest bonus, then the order the army
 * lists its pieces (ux, uy). */
static bool is_after(const piece *x, int rx, int ux, const piece *y, int ry,
                     int uy)
{
    if (x->era != y->era)
        return x->era > y->era;
    if ((rx >= 0) != (ry >= 0))
        return rx < 0;
    if (rx >= 0)
        return rx > ry;
    if (x->bonus != y->bonus)
        return x->bonus > y->bonus;
    return ux > uy;
}

static int plan_losses(const model *m, int a, const part *p,
                       const json_t *orders, int damage, int *out, int *left)
{
    int rank[CV_MAX], ord[CV_MAX], k, j, t, n = 0, n_down = 0, n_reg = 0;
    bool is_out[CV_MAX] = {false};
    const json_t *x;
    size_t i;

    for (k = 0; k < m->n[a]; k++)
        rank[k] = -1;
    json_array_foreach(scs_get(orders, "casualty_order"), i, x)
        rank[find(m, a, json_string_value(x))] = (int)i;
    memcpy(ord, p->wave, sizeof ord);
    for (k = 1; k < p->n_wave; k++)
        for (j = k; j > 0 &&
                    is_after(&m->u[a][ord[j - 1]], rank[ord[j - 1]], ord[j - 1],
                             &m->u[a][ord[j]], rank[ord[j]], ord[j]);
             j--)
            t = ord[j], ord[j] = ord[j - 1], ord[j - 1] = t;
    *left = damage;
    for (k = 0; k < p->n_wave && *left >= 5 * m->u[a][ord[k]].era; k++) {
        *left -= 5 * m->u[a][ord[k]].era;
        is_out[ord[k]] = true;
        out[n++] = ord[k];
        n_reg++;
        if (m->u[a][ord[k]].cls == p->support && n_down < p->n_air) {
            is_out[p->air[n_down]] = true;
            out[n++] = p->air[n_down++];
        }
    }
    if (n_reg == regulars(m, a)) /* none left: the aircraft go too */
        for (k = 0; k < m->n[a]; k++)
            if (m->is_alive[a][k] && !is_out[k])
                out[n++] = k;
    return n;
}

/* Step 4 for army a: the other army's total destroys its wave's units. */
static void check_losses(model *m, int a, const part *p, int damage,
                         const json_t *orders)
{
    const json_t *g = p->j;
    int dest[CV_MAX], want[CV_MAX], n_dest, n_want, left, k, i, u;
    int cost = 0, n_reg = 0, n_sup = 0, n_air = 0, n_alive_air = 0;
    bool is_dead[CV_MAX] = {false}, is_in_wave[CV_MAX] = {false};

    RIG_EQ_INT(rig_inum(g, "damage_taken"), damage);
    n_dest = names_to(m, a, scs_get(g, "destroyed"), dest);
    for (k = 0; k < p->n_wave; k++)
        is_in_wave[p->wave[k]] = true;
    for (k = 0; k < n_dest; k++) {
        u = dest[k];
        RIG_IS_TRUE(m->is_alive[a][u] && !is_dead[u]);
        is_dead[u] = true;
        if (m->u[a][u].cls == AIR) {
            n_air++;
            continue;
        }
        RIG_IS_TRUE(is_in_wave[u]);
        cost += 5 * m->u[a][u].era;
        n_reg++;
        n_sup += m->u[a][u].cls == p->support;
    }
    RIG_IS_TRUE(cost <= damage);
    RIG_EQ_INT(rig_inum(g, "damage_lost"), damage - cost);
    /* oldest era first: a survivor of the wave is no older than any unit
     * lost, and what was lost could not pay for it */
    for (k = 0; k < p->n_wave; k++) {
        u = p->wave[k];
        if (is_dead[u])
            continue;
        RIG_IS_TRUE(5 * m->u[a][u].era > damage - cost);
        for (i = 0; i < n_dest; i++)
            RIG_IS_TRUE(m->u[a][dest[i]].cls == AIR ||
                        m->u[a][dest[i]].era <= m->u[a][u].era);
    }
    for (u = 0; u < m->n[a]; u++)
        n_alive_air += m->is_alive[a][u] && m->u[a][u].cls == AIR;
    RIG_EQ_INT(n_air, n_reg == regulars(m, a)
                          ? n_alive_air
                          : (n_sup < p->n_air ? n_sup : p->n_air));
    if (orders) {
        n_want = plan_losses(m, a, p, orders, damage, want, &left);
        RIG_EQ_INT(n_dest, n_want);
        for (k = 0; k < n_dest; k++)
            RIG_EQ_STR(m->u[a][dest[k]].name, m->u[a][want[k]].name);
    }
    for (k = 0; k < n_dest; k++)
        m->is_alive[a][dest[k]] = false;
}

/* Step 5 and the report's end: survivors, over, winner, next wave. */
static void check_end(const model *m, const json_t *rep)
{
    int r[2] = {regulars(m, 0), regulars(m, 1)}, a, u;
    bool is_over = r[0] == 0 || r[1] == 0;
    const json_t *nw = scs_get(rep, "next_wave");
    size_t len = strlen(rig_ctx);
    json_t *alive;

    snprintf(rig_ctx + len, sizeof rig_ctx - len, ", the end");
    for (a = 0; a < 2; a++) {
        alive = scs_rig_keep(json_array());
        for (u = 0; u < m->n[a]; u++)
            if (m->is_alive[a][u])
                json_array_append_new(alive, json_string(m->u[a][u].name));
        same(scs_get(scs_get(rep, "survivors"), mx_army_key[a]), alive,
             "the survivors");
    }
    RIG_IS_TRUE(json_is_true(scs_get(rep, "over")) == is_over);
    if (is_over && (r[0] || r[1]))
        RIG_EQ_STR(scs_str(rep, "winner"), mx_army_key[r[0] ? 0 : 1]);
    else
        RIG_IS_TRUE(json_is_null(scs_get(rep, "winner")));
    if (is_over)
        RIG_IS_TRUE(json_is_false(scs_get(rep, "unresolved")));
    if (nw == NULL)
        return;
    if (is_over) {
        RIG_IS_TRUE(json_is_null(nw));
        return;
    }
    RIG_EQ_INT(rig_inum(nw, "size"), r[0] < r[1] ? r[0] : r[1]);
    if (r[0] == r[1])
        RIG_IS_TRUE(json_is_null(scs_get(nw, "picked_by")));
    else
        RIG_EQ_STR(scs_str(nw, "picked_by"), mx_army_key[r[0] > r[1] ? 0 : 1]);
}

void cv_check_report(const json_t *rep, const json_t *setup, const json_t *plan)
{
    const json_t *ph, *orders[2] = {NULL, NULL};
    char base[96];
    part p[2];
    size_t i;
    int a, size;

    snprintf(base, sizeof base, "%.90s", rig_ctx);
    model_init(&g_m, setup);
    for (a = 0; a < 2 && plan; a++) /* absent: the defaults */
        orders[a] = scs_get(plan, mx_army_key[a])
                        ? scs_get(plan, mx_army_key[a])
                        : scs_json("{}");
    RIG_IS_TRUE(json_is_array(scs_get(rep, "phases")));
    json_array_foreach(scs_get(rep, "phases"), i, ph)
    {
        snprintf(rig_ctx, sizeof rig_ctx, "%s, phase %zu", base, i + 1);
        RIG_EQ_INT(rig_inum(ph, "index"), (long long)i);
        size = regulars(&g_m, 0) < regulars(&g_m, 1) ? regulars(&g_m, 0)
                                                     : regulars(&g_m, 1);
        RIG_IS_TRUE(size > 0); /* no phase after the end */
        for (a = 0; a < 2; a++) {
            p[a].j = scs_get(ph, mx_army_key[a]);
            check_wave(&g_m, a, &p[a], size, orders[a]);
        }
        for (a = 0; a < 2; a++)
            check_total(&g_m, a, &p[a], &p[1 - a]);
        for (a = 0; a < 2; a++)
            check_losses(&g_m, a, &p[a], (int)rig_inum(p[1 - a].j, "total"),
                         orders[a]);
    }
    snprintf(rig_ctx, sizeof rig_ctx, "%s", base);
    check_end(&g_m, rep);
    snprintf(rig_ctx, sizeof rig_ctx, "%s", base);
}

void cv_check_rolls(const json_t *rolls, const json_t *rep, const json_t *setup,
                    const char *source)
{
    const json_t *ph, *g, *r;
    size_t i, k, n = 0, n_wave;
    int a;

    model_init(&g_m, setup);
    json_array_foreach(scs_get(rep, "phases"), i, ph) for (a = 0; a < 2; a++)
    {
        g = scs_get(ph, mx_army_key[a]);
        n_wave = json_array_size(scs_get(g, "wave"));
        for (k = 0; k < json_array_size(scs_get(g, "dice")); k++) {
            bool is_air = k >= n_wave;
            const char *name = json_string_value(
                is_air ? scs_at(scs_get(g, "aircraft"), k - n_wave)
                       : scs_at(scs_get(g, "wave"), k));
            const piece *u = &g_m.u[a][find(&g_m, a, name)];
            long long die = json_integer_value(scs_at(scs_get(g, "dice"), k));
            r = scs_at(rolls, n++);
            snprintf(rig_ctx, sizeof rig_ctx, "roll %zu (phase %zu, %s)", n,
                     i + 1, name);
            RIG_IS_TRUE(r != NULL);
            RIG_EQ_INT(rig_inum(r, "seq"), (long long)n);
            RIG_EQ_STR(scs_str(r, "unit"), name);
            if (u->unit_id)
                RIG_EQ_STR(scs_str(r, "unit_id"), u->unit_id);
            RIG_EQ_STR(scs_str(r, "side"),
                       scs_str(scs_get(setup, mx_army_key[a]), "name"));
            RIG_EQ_STR(scs_str(r, "reason"),
                       is_air ? "civ.aircraft" : "civ.base");
            RIG_EQ_INT(rig_inum(r, "faces"), 6);
            RIG_EQ_INT(rig_inum(r, "natural"), die);
            RIG_EQ_INT(rig_inum(r, "modified"),
                       die5(die) * (is_air ? u->mult : u->era));
            RIG_EQ_STR(scs_str(r, "source"), source);
        }
    }
    RIG_EQ_INT(json_array_size(rolls), (long long)n);
}
