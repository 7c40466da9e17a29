/*
 * matrix_api.c: Matrix game battles in JSON; see matrix_api.h.
 */
#include "matrix_json.h"
#include "api.h"
#include "jsonv.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const matrix_json_army_key[2] = {"attacker", "defender"};

/* "ambush" is an open battle with one army ambushing ("ambush" names
 * it); a skirmish can be an ambush too. */
static const char *const kinds[] = {"open", "skirmish", "ambush", NULL};
static const char *const bases[] = {"battle", "winner", "loser", NULL};
static const char *const action_names[] = {"roll", "commit", "accept", NULL};
static const char *const row_kinds[] = {"roll", "commit", "accept", "abandon",
                                        NULL};

const char *matrix_json_action_name(int kind)
{
    return kind >= 0 && kind <= MATRIX_ACT_ABANDON ? row_kinds[kind] : "?";
}

matrix_job *matrix_job_new(http_request *r, err_info *e)
{
    matrix_job *j = calloc(1, sizeof *j);

    r->state = j;
    r->state_free = matrix_job_free;
    if (j == NULL)
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    return j;
}

void matrix_job_free(void *p)
{
    matrix_job *j = p;

    if (j == NULL)
        return;
    json_decref(j->request);
    db_battle_cleanup(&j->row);
    combat_record_cleanup(&j->rec);
    free(j);
}

/* ---- the setup ---- */

/* The unit of army a called name (its name, id or the request's
 * reference), or -1. */
static int unit_index(const matrix_job *j, int a, const char *name)
{
    int u;

    for (u = 0; u < j->setup.armies[a].n_units; u++)
        if (strcmp(j->unit_name[a][u], name) == 0 ||
            (j->unit_id[a][u][0] && strcmp(j->unit_id[a][u], name) == 0) ||
            (j->unit_ref[a][u][0] && strcmp(j->unit_ref[a][u], name) == 0))
            return u;
    return -1;
}

static err_code parse_unit(const json_t *u, const char *path, bool is_campaign,
                           bool is_stored, matrix_job *j, int a, int i,
                           err_info *e)
{
    static const char *const inline_fields[] = {"name", "quality", NULL};
    static const char *const stored_fields[] = {"name", "quality", "unit_id",
                                                NULL};
    const char *s = NULL, *id = NULL;
    int b, k;
    err_code rc;

    if (is_campaign) {
        if (!json_is_string(u) || json_string_length(u) < 1 ||
            json_string_length(u) > 64)
            return err_set(e, ERR_INVALID, path,
                           "a unit of the campaign, by id or name");
        text_copy(j->unit_ref[a][i], DB_NAME_MAX, json_string_value(u));
        return ERR_OK;
    }
    if ((rc = jv_object_only(u, path, is_stored ? stored_fields : inline_fields,
                             e)) ||
        (rc = jv_string(u, path, "name", true, 64, &s, e)) ||
        (rc = jv_int(u, path, "quality", false, -MATRIX_QUALITY_MAX,
                     MATRIX_QUALITY_MAX, &j->setup.armies[a].quality[i], e)) ||
        (is_stored &&
         (rc = jv_string(u, path, "unit_id", false, DB_ID_MAX - 1, &id, e))))
        return rc;
    /* Units are named once in a battle: dice and results go by name. */
    for (b = 0; b <= a; b++)
        for (k = 0; k < (b < a ? j->setup.armies[b].n_units : i); k++)
            if (strcmp(j->unit_name[b][k], s) == 0) {
                char f[JV_PATH_MAX];
                jv_path(f, path, "name");
                return err_set(e, ERR_INVALID, f,
                               "the unit \"%s\" is already in this battle", s);
            }
    text_copy(j->unit_name[a][i], DB_NAME_MAX, s);
    if (id)
        text_copy(j->unit_id[a][i], DB_ID_MAX, id);
    return ERR_OK;
}

static err_code parse_army(const json_t *body, bool is_campaign, bool is_stored,
                           matrix_job *j, int a, err_info *e)
{
    static const char *const campaign_fields[] = {"side", "argument", "units",
                                                  "reserve", NULL};
    static const char *const inline_fields[] = {
        "name", "argument", "exhausted", "units", "reserve", NULL};
    static const char *const stored_fields[] = {
        "name", "side_id", "argument", "exhausted", "units", "reserve", NULL};
    const char *key = matrix_json_army_key[a], *name = NULL, *side_id = NULL;
    matrix_army *m = &j->setup.armies[a];
    json_t *army = NULL, *units = NULL, *reserve = NULL;
    char p[JV_PATH_MAX];
    size_t i;
    err_code rc;

    if ((rc = jv_object(body, "", key, true, &army, e)) ||
        (rc = jv_object_only(army, key,
                             is_stored     ? stored_fields
                             : is_campaign ? campaign_fields
                                           : inline_fields,
                             e)) ||
        (rc = jv_string(army, key, is_campaign ? "side" : "name", is_campaign,
                        64, &name, e)) ||
        (is_stored && (rc = jv_string(army, key, "side_id", false,
                                      DB_ID_MAX - 1, &side_id, e))) ||
        (rc = jv_int(army, key, "argument", false, -1, 1, &m->argument, e)) ||
        (!is_campaign &&
         (rc = jv_bool(army, key, "exhausted", false, &m->is_exhausted, e))) ||
        (rc = jv_array(army, key, "units", true, 1, MATRIX_MAX_UNITS, &units,
                       e)) ||
        (rc = jv_array(army, key, "reserve", false, 0, MATRIX_SKIRMISH_RESERVE,
                       &reserve, e)))
        return rc;
    if (name)
        text_copy(is_campaign ? j->army_ref[a] : j->army_name[a], DB_NAME_MAX,
                  name);
    else
        text_copy(j->army_name[a], DB_NAME_MAX, key);
    if (side_id)
        text_copy(j->side_id[a], DB_ID_MAX, side_id);
    m->n_units = (int)json_array_size(units);
    jv_path(p, key, "units");
    for (i = 0; i < json_array_size(units); i++) {
        char pu[JV_PATH_MAX];
        jv_index(pu, p, i);
        if ((rc = parse_unit(json_array_get(units, i), pu, is_campaign,
                             is_stored, j, a, (int)i, e)))
            return rc;
    }
    /* Reserve names are resolved once units are known (prepare). */
    m->n_reserve = (int)json_array_size(reserve);
    return ERR_OK;
}

err_code matrix_json_parse_setup(const json_t *body, bool is_campaign,
                                bool is_stored, matrix_job *j, err_info *e)
{
    static const char *const ambushes[] = {"attacker", "defender", NULL};
    json_t *line = NULL;
    int kind = 0, basis = 0, ambush = -1;
    err_code rc;

    j->ambush = -1;
    if ((rc = jv_enum(body, "", "kind", false, kinds, &kind, e)) ||
        (rc = jv_enum(body, "", "basis", false, bases, &basis, e)) ||
        (!json_is_null(json_object_get(body, "ambush")) &&
         (rc = jv_enum(body, "", "ambush", false, ambushes, &ambush, e))) ||
        (rc = parse_army(body, is_campaign, is_stored, j, 0, e)) ||
        (rc = parse_army(body, is_campaign, is_stored, j, 1, e)) ||
        (rc =
             jv_array(body, "", "line", true, 1, MATRIX_MAX_COMBATS, &line, e)))
        return rc;
    if (kind == 2 && ambush < 0)
        return err_set(e, ERR_MISSING, "ambush",
                       "an ambush names the ambushing army: \"attacker\" or "
                       "\"defender\"");
    j->setup.kind = kind == 1 ? MATRIX_SKIRMISH : MATRIX_OPEN;
    j->setup.basis = (matrix_basis)basis;
    if (ambush >= 0 && json_object_get(body, "ambush")) {
        j->ambush = ambush;
        j->setup.armies[ambush].is_ambushing = true;
    }
    j->setup.n_line = (int)json_array_size(line);
    return ERR_OK;
}

/* A list of unit names of army a at path into out. */
static err_code names_to_units(const matrix_job *j, const json_t *names,
                               const char *path, int a, int *out, int max,
                               int *n, err_info *e)
{
    char f[JV_PATH_MAX];
    size_t k;

    if (!json_is_array(names) || json_array_size(names) < 1 ||
        json_array_size(names) > (size_t)max)
        return err_set(e, ERR_INVALID, path,
                       "a list of 1 to %d of the %s's units, by name", max,
                       matrix_json_army_key[a]);
    for (k = 0; k < json_array_size(names); k++) {
        const char *s = json_string_value(json_array_get(names, k));
        jv_index(f, path, k);
        if (s == NULL || (out[k] = unit_index(j, a, s)) < 0)
            return err_set(e, ERR_INVALID, f, "%s%s%s is not a unit of the %s",
                           s ? "\"" : "", s ? s : "this", s ? "\"" : "",
                           matrix_json_army_key[a]);
    }
    *n = (int)json_array_size(names);
    return ERR_OK;
}

err_code matrix_json_prepare(matrix_job *j, err_info *e)
{
    const json_t *body = j->request;
    const json_t *line = json_object_get(body, "line");
    char p[JV_PATH_MAX], f[JV_PATH_MAX];
    size_t c;
    int a, n;
    err_code rc;

    for (c = 0; c < json_array_size(line); c++) {
        /* a one-off battle's entered dice go with each combat */
        static const char *const fields[] = {"attacker", "defender", "dice",
                                             NULL};
        static const char *const campaign_fields[] = {"attacker", "defender",
                                                      NULL};
        const json_t *pair = json_array_get(line, c);
        jv_index(p, "line", c);
        if ((rc = jv_object_only(
                 pair, p, j->rec.campaign_id[0] ? campaign_fields : fields, e)))
            return rc;
        for (a = 0; a < 2; a++) {
            jv_path(f, p, matrix_json_army_key[a]);
            if ((rc = names_to_units(
                     j, json_object_get(pair, matrix_json_army_key[a]), f, a,
                     j->setup.line[c].units[a], 2, &j->setup.line[c].n_units[a],
                     e)))
                return rc;
        }
    }
    for (a = 0; a < 2; a++) {
        const json_t *r = json_object_get(
            json_object_get(body, matrix_json_army_key[a]), "reserve");
        if (r == NULL || json_array_size(r) == 0)
            continue;
        jv_path(p, matrix_json_army_key[a], "reserve");
        if ((rc = names_to_units(j, r, p, a, j->setup.armies[a].reserve,
                                 MATRIX_SKIRMISH_RESERVE, &n, e)))
            return rc;
        j->setup.armies[a].n_reserve = n;
    }
    return matrix_battle_init(&j->battle, &j->setup, e);
}

static json_t *names_json(const matrix_job *j, int a, const int *units, int n)
{
    json_t *arr = json_array();
    int k;

    for (k = 0; k < n; k++)
        json_array_append_new(arr, json_string(j->unit_name[a][units[k]]));
    return arr;
}

json_t *matrix_json_setup_json(const matrix_job *j)
{
    const matrix_setup *s = &j->setup;
    json_t *doc = json_object(), *line = json_array();
    int a, u, c;

    json_object_set_new(doc, "kind",
                        json_string(kinds[s->kind == MATRIX_SKIRMISH]));
    json_object_set_new(doc, "ambush",
                        j->ambush >= 0
                            ? json_string(matrix_json_army_key[j->ambush])
                            : json_null());
    json_object_set_new(doc, "basis", json_string(bases[s->basis]));
    for (a = 0; a < 2; a++) {
        const matrix_army *m = &s->armies[a];
        json_t *units = json_array();
        json_t *army =
            json_pack("{s:s, s:i, s:b}", "name", j->army_name[a], "argument",
                      m->argument, "exhausted", m->is_exhausted);
        if (j->side_id[a][0])
            json_object_set_new(army, "side_id", json_string(j->side_id[a]));
        for (u = 0; u < m->n_units; u++) {
            json_t *unit = json_pack("{s:s, s:i}", "name", j->unit_name[a][u],
                                     "quality", m->quality[u]);
            if (j->unit_id[a][u][0])
                json_object_set_new(unit, "unit_id",
                                    json_string(j->unit_id[a][u]));
            json_array_append_new(units, unit);
        }
        json_object_set_new(army, "units", units);
        json_object_set_new(army, "reserve",
                            names_json(j, a, m->reserve, m->n_reserve));
        json_object_set_new(doc, matrix_json_army_key[a], army);
    }
    for (c = 0; c < s->n_line; c++)
        json_array_append_new(
            line,
            json_pack(
                "{s:o, s:o}", "attacker",
                names_json(j, 0, s->line[c].units[0], s->line[c].n_units[0]),
                "defender",
                names_json(j, 1, s->line[c].units[1], s->line[c].n_units[1])));
    json_object_set_new(doc, "line", line);
    return doc;
}

/* ---- actions ---- */

/* Entered dice of a roll: {"unit name": natural} for every unit of the
 * combat, attacker's first in draw order. */
static err_code roll_dice(const json_t *dice, const char *path,
                          const matrix_job *j, matrix_action *a, err_info *e)
{
    const matrix_pairing *p = &j->setup.line[a->combat];
    char f[JV_PATH_MAX];
    const char *key;
    json_t *v;
    int s, k;

    if (!json_is_object(dice))
        return err_set(e, ERR_INVALID, path,
                       "the dice of a roll: {\"unit name\": die} for each "
                       "unit of the combat");
    json_object_foreach((json_t *)dice, key, v)
    {
        bool is_in = false;
        for (s = 0; s < 2; s++)
            for (k = 0; k < p->n_units[s]; k++)
                is_in |= strcmp(key, j->unit_name[s][p->units[s][k]]) == 0;
        if (!is_in) {
            jv_path(f, path, key);
            return err_set(e, ERR_UNKNOWN_FIELD, f,
                           "\"%s\" is not a unit of combat %d", key, a->combat);
        }
    }
    a->n_naturals = 0;
    for (s = 0; s < 2; s++)
        for (k = 0; k < p->n_units[s]; k++) {
            const char *name = j->unit_name[s][p->units[s][k]];
            v = json_object_get(dice, name);
            jv_path(f, path, name);
            if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                json_integer_value(v) > 6)
                return err_set(e, v ? ERR_RANGE : ERR_MISSING, f,
                               "a d6: 1 to 6, for each unit of the combat");
            a->naturals[a->n_naturals++] = (int)json_integer_value(v);
        }
    a->has_dice = true;
    return ERR_OK;
}

err_code matrix_json_parse_action(const json_t *obj, const char *path,
                                 const matrix_job *j, bool is_entered,
                                 matrix_action *a, err_info *e)
{
    static const char *const fields[] = {"action", "combat",         "army",
                                         "unit",   "dice",           "die",
                                         "note",   "expect_actions", NULL};
    static const char *const armies[] = {"attacker", "defender", NULL};
    const char *unit = NULL;
    const json_t *dice;
    char f[JV_PATH_MAX];
    int die = 0;
    err_code rc;

    memset(a, 0, sizeof *a);
    a->army = -1;
    a->unit = -1;
    if ((rc = jv_object_only(obj, path, fields, e)) ||
        (rc = jv_enum(obj, path, "action", true, action_names, &a->kind, e)) ||
        (rc = jv_int(obj, path, "combat", true, 0, j->setup.n_line - 1,
                     &a->combat, e)))
        return rc;
    if (a->kind == MATRIX_ACT_COMMIT) {
        if ((rc = jv_enum(obj, path, "army", true, armies, &a->army, e)) ||
            (rc = jv_string(obj, path, "unit", true, 64, &unit, e)))
            return rc;
        jv_path(f, path, "unit");
        if ((a->unit = unit_index(j, a->army, unit)) < 0)
            return err_set(e, ERR_INVALID, f, "\"%s\" is not a unit of the %s",
                           unit, matrix_json_army_key[a->army]);
    } else if (json_object_get(obj, "army") || json_object_get(obj, "unit")) {
        jv_path(f, path, json_object_get(obj, "army") ? "army" : "unit");
        return err_set(e, ERR_INVALID, f,
                       "only a commit names an army and a unit");
    }
    dice = json_object_get(obj, a->kind == MATRIX_ACT_COMMIT ? "die" : "dice");
    jv_path(f, path, a->kind == MATRIX_ACT_COMMIT ? "die" : "dice");
    if (json_object_get(obj, a->kind == MATRIX_ACT_COMMIT ? "dice" : "die")) {
        jv_path(f, path, a->kind == MATRIX_ACT_COMMIT ? "dice" : "die");
        return err_set(e, ERR_INVALID, f,
                       "a roll takes \"dice\", a commit one \"die\", an "
                       "accept none");
    }
    if (a->kind == MATRIX_ACT_ACCEPT) {
        if (dice)
            return err_set(e, ERR_INVALID, f, "an accept rolls no die");
        return ERR_OK;
    }
    if (dice && !is_entered)
        return err_set(e, ERR_INVALID, f,
                       "the battle's dice are seeded: give dice only when "
                       "they are entered");
    if (!dice && is_entered)
        return err_set(e, ERR_MISSING, f,
                       "the battle's dice are entered: give the %s",
                       a->kind == MATRIX_ACT_COMMIT ? "die" : "dice");
    if (!dice)
        return ERR_OK;
    if (a->kind == MATRIX_ACT_ROLL)
        return roll_dice(dice, f, j, a, e);
    if ((rc = jv_int(obj, path, "die", true, 1, 6, &die, e)))
        return rc;
    a->naturals[0] = die;
    a->n_naturals = 1;
    a->has_dice = true;
    return ERR_OK;
}

void matrix_json_action_row(const matrix_action *a, db_battle_action *row,
                           char naturals[64])
{
    int k, n = 0;

    snprintf(row->kind, sizeof row->kind, "%s",
             matrix_json_action_name(a->kind));
    row->combat = a->combat;
    row->army = a->army;
    row->unit = a->unit;
    n += snprintf(naturals + n, 64 - (size_t)n, "[");
    for (k = 0; k < a->n_naturals; k++)
        n += snprintf(naturals + n, 64 - (size_t)n, "%s%d", k ? "," : "",
                      a->naturals[k]);
    snprintf(naturals + n, 64 - (size_t)n, "]");
    row->naturals = naturals;
}

err_code matrix_json_action_from_row(const db_battle_action *row,
                                    matrix_action *a, err_info *e)
{
    json_t *n = json_loads(row->naturals ? row->naturals : "", 0, NULL);
    size_t k;
    int kind;

    memset(a, 0, sizeof *a);
    for (kind = 0; row_kinds[kind]; kind++)
        if (strcmp(row_kinds[kind], row->kind) == 0)
            break;
    if (row_kinds[kind] == NULL || !json_is_array(n) ||
        json_array_size(n) > 4) {
        json_decref(n);
        return err_set(e, ERR_DB, NULL, "a stored action cannot be read");
    }
    a->kind = kind;
    a->combat = row->combat;
    a->army = row->army;
    a->unit = row->unit;
    for (k = 0; k < json_array_size(n); k++)
        a->naturals[k] = (int)json_integer_value(json_array_get(n, k));
    a->n_naturals = (int)json_array_size(n);
    json_decref(n);
    return ERR_OK;
}

err_code matrix_json_apply(matrix_job *j, matrix_action *a, dice_source *src,
                          err_info *e)
{
    size_t first = src->n_log, k;
    err_code rc;

    switch (a->kind) {
    case MATRIX_ACT_ROLL:
        rc = matrix_roll(&j->battle, a->combat, src, e);
        break;
    case MATRIX_ACT_COMMIT:
        rc = matrix_commit(&j->battle, a->combat, a->army, a->unit, src, e);
        break;
    case MATRIX_ACT_ABANDON: rc = ERR_OK; break;
    default: rc = matrix_accept(&j->battle, a->combat, e); break;
    }
    if (rc)
        return rc;
    a->n_naturals = (int)(src->n_log - first);
    for (k = first; k < src->n_log; k++)
        a->naturals[k - first] = src->log[k].natural;
    return ERR_OK;
}

err_code matrix_json_rebuild(matrix_job *j, dice_source *src, err_info *e)
{
    int i;
    err_code rc;

    if ((rc = matrix_battle_init(&j->battle, &j->setup, e)))
        return rc;
    for (i = 0; i < j->n_actions; i++) {
        matrix_action a = j->actions[i];
        if ((rc = matrix_json_apply(j, &a, src, e)))
            return rc;
    }
    return ERR_OK;
}

/* ---- state and result ---- */

static json_t *combat_json(const matrix_job *j, int c)
{
    const matrix_combat *cb = &j->battle.combats[c];
    const matrix_pairing *p = &j->setup.line[c];
    json_t *o = json_object(), *dice, *res;
    int a, k;

    json_object_set_new(o, "index", json_integer(c));
    for (a = 0; a < 2; a++)
        json_object_set_new(o, matrix_json_army_key[a],
                            names_json(j, a, p->units[a], p->n_units[a]));
    json_object_set_new(o, "rolled", json_boolean(cb->is_rolled));
    json_object_set_new(o, "accepted", json_boolean(cb->is_accepted));
    if (!cb->is_rolled)
        return o;
    dice = json_object();
    res = json_array();
    for (a = 0; a < 2; a++)
        for (k = 0; k < p->n_units[a]; k++)
            json_object_set_new(dice, j->unit_name[a][p->units[a][k]],
                                json_integer(cb->natural[a][k]));
    json_object_set_new(o, "dice", dice);
    for (k = 0; k < cb->n_reserves; k++) {
        const matrix_reserve *r = &cb->reserves[k];
        json_array_append_new(
            res, json_pack("{s:s, s:s, s:i}", "army",
                           matrix_json_army_key[r->army], "unit",
                           j->unit_name[r->army][r->unit], "die", r->natural));
    }
    json_object_set_new(o, "reserves", res);
    json_object_set_new(o, "scores",
                        json_pack("{s:i, s:i}", "attacker", cb->score[0],
                                  "defender", cb->score[1]));
    json_object_set_new(o, "loser",
                        cb->loser >= 0
                            ? json_string(matrix_json_army_key[cb->loser])
                            : json_null());
    json_object_set_new(
        o, "result",
        json_string(cb->loser >= 0 ? matrix_fate_name(cb->fate) : "even"));
    return o;
}

void matrix_json_result_json(const matrix_job *j, json_t *o)
{
    const matrix_result *r = &j->result;
    json_t *units = json_object(), *exhausted = json_array();
    int a, u;

    for (a = 0; a < 2; a++)
        for (u = 0; u < j->setup.armies[a].n_units; u++)
            if (r->has_fought[a][u])
                json_object_set_new(
                    units, j->unit_name[a][u],
                    r->fates[a][u] == MATRIX_NONE
                        ? json_null()
                        : json_string(matrix_fate_name(r->fates[a][u])));
    for (a = 0; a < 2; a++)
        if (r->is_exhausted[a])
            json_array_append_new(exhausted,
                                  json_string(matrix_json_army_key[a]));
    json_object_set_new(o, "casualty_points",
                        json_pack("{s:i, s:i}", "attacker", r->points[0],
                                  "defender", r->points[1]));
    json_object_set_new(o, "winner",
                        r->winner >= 0
                            ? json_string(matrix_json_army_key[r->winner])
                            : json_null());
    json_object_set_new(o, "loser",
                        r->winner >= 0
                            ? json_string(matrix_json_army_key[1 - r->winner])
                            : json_null());
    json_object_set_new(o, "army_state",
                        json_string(matrix_state_name(r->state)));
    json_object_set_new(o, "winner_can_pursue",
                        json_boolean(r->is_winner_pursuing));
    json_object_set_new(o, "winner_must_withdraw",
                        json_boolean(r->is_winner_withdrawing));
    json_object_set_new(o, "exhausted", exhausted);
    json_object_set_new(o, "unit_results", units);
}

/* Army a's reserve: a skirmish's named units, or in an open battle the
 * larger army's units not in the line; each with whether it is in. */
static json_t *reserve_json(const matrix_job *j, int a)
{
    const matrix_setup *s = &j->setup;
    bool in_line[MATRIX_MAX_UNITS] = {false};
    json_t *arr = json_array();
    int c, k, u;

    for (c = 0; c < s->n_line; c++)
        for (k = 0; k < s->line[c].n_units[a]; k++)
            in_line[s->line[c].units[a][k]] = true;
    for (u = 0; u < s->armies[a].n_units; u++) {
        bool is_reserve = false;
        if (s->kind == MATRIX_SKIRMISH) {
            for (k = 0; k < s->armies[a].n_reserve; k++)
                is_reserve |= s->armies[a].reserve[k] == u;
        } else {
            is_reserve = matrix_reserve_army(s) == a && !in_line[u];
        }
        if (is_reserve)
            json_array_append_new(
                arr, json_pack("{s:s, s:b}", "unit", j->unit_name[a][u],
                               "committed", j->battle.is_committed[a][u]));
    }
    return arr;
}

json_t *matrix_json_state_json(const matrix_job *j)
{
    json_t *o = json_object(), *combats = json_array(), *armies;
    int c, a, who = matrix_reserve_army(&j->setup);

    json_object_set_new(o, "setup", matrix_json_setup_json(j));
    armies = json_object();
    for (a = 0; a < 2; a++)
        json_object_set_new(armies, matrix_json_army_key[a],
                            json_pack("{s:i, s:b, s:o}", "modifier",
                                      matrix_army_modifier(&j->setup.armies[a]),
                                      "may_commit_reserves",
                                      who == 2 || who == a, "reserve",
                                      reserve_json(j, a)));
    json_object_set_new(o, "armies", armies);
    for (c = 0; c < j->setup.n_line; c++)
        json_array_append_new(combats, combat_json(j, c));
    json_object_set_new(o, "combats", combats);
    json_object_set_new(o, "over", json_boolean(matrix_is_over(&j->battle)));
    json_object_set_new(o, "escalated", json_boolean(j->battle.is_escalated));
    if (matrix_is_over(&j->battle) && !j->battle.is_escalated) {
        json_t *res = json_object();
        matrix_json_result_json(j, res);
        json_object_set_new(o, "result", res);
    } else {
        json_object_set_new(o, "result", json_null());
    }
    return o;
}

char *matrix_json_markdown(const matrix_job *j)
{
    const matrix_result *r = &j->result;
    text_buf b = {0};
    char name[2 * DB_NAME_MAX];
    int c, a;

    text_printf(&b, "**Matrix %s**\n",
                j->setup.kind == MATRIX_SKIRMISH ? "skirmish" : "battle");
    for (c = 0; c < j->setup.n_line; c++) {
        const matrix_combat *cb = &j->battle.combats[c];
        text_printf(&b, "- Combat %d: %d against %d, ", c + 1, cb->score[0],
                    cb->score[1]);
        if (cb->loser < 0)
            text_printf(&b, "even\n");
        else
            text_printf(&b, "the %s %s\n", matrix_json_army_key[cb->loser],
                        matrix_fate_name(cb->fate));
    }
    text_printf(&b, "Casualty points: attacker %d, defender %d. ", r->points[0],
                r->points[1]);
    if (r->winner < 0)
        text_printf(&b, "A draw.\n");
    else {
        text_md(name, sizeof name, j->army_name[r->winner]);
        text_printf(&b, "The %s (%s) wins.\n", matrix_json_army_key[r->winner],
                    name);
    }
    text_printf(&b, "Army state: %s.", matrix_state_name(r->state));
    for (a = 0; a < 2; a++)
        if (r->is_exhausted[a])
            text_printf(&b, " The %s is exhausted.", matrix_json_army_key[a]);
    text_printf(&b, "\n_Dice: %s._\n", combat_dice_note(&j->rec));
    return text_take(&b);
}

void matrix_json_roll_names(const void *plan, const dice_roll *d,
                           const char **side, const char **unit_name,
                           const char **unit_id)
{
    const matrix_job *j = plan;

    *side = j->army_name[d->side];
    *unit_name = j->unit_name[d->side][d->unit];
    *unit_id = j->unit_id[d->side][d->unit];
}

/* ---- the record ---- */

/* The report of a finished (or escalated) battle. */
static char *report_text(const matrix_job *j, const char *battle_id)
{
    json_t *o = json_object(), *state = matrix_json_state_json(j), *acts;
    char *md = NULL, *dice_text, *text;
    const db_combat *cb = &j->rec.cb;
    const char *key;
    json_t *v;
    jw w;
    int i;

    json_object_set_new(o, "id", json_string(cb->id));
    json_object_set_new(o, "system", json_string("matrix"));
    json_object_set_new(o, "campaign_id", api_str_or_null(cb->campaign_id));
    json_object_set_new(o, "created_at", json_string(cb->created_at));
    json_object_set_new(o, "note", api_str_or_null(cb->note));
    json_object_set_new(o, "battle_id", api_str_or_null(battle_id));
    if (j->turn > 0)
        json_object_set_new(o, "turn", json_integer(j->turn));
    acts = json_array();
    for (i = 0; i < j->n_actions; i++) {
        const matrix_action *a = &j->actions[i];
        json_t *x =
            json_pack("{s:s, s:i}", "action", matrix_json_action_name(a->kind),
                      "combat", a->combat);
        if (a->kind == MATRIX_ACT_COMMIT) {
            json_object_set_new(x, "army",
                                json_string(matrix_json_army_key[a->army]));
            json_object_set_new(x, "unit",
                                json_string(j->unit_name[a->army][a->unit]));
        }
        json_array_append_new(acts, x);
    }
    json_object_set_new(o, "input",
                        json_pack("{s:o, s:o}", "setup",
                                  matrix_json_setup_json(j), "actions", acts));
    json_object_foreach(state, key, v) if (strcmp(key, "setup") != 0)
        json_object_set(o, key, v);
    json_decref(state);
    jw_init(&w);
    combat_dice_write(&w, cb);
    dice_text = jw_take(&w, NULL);
    v = dice_text ? json_loads(dice_text, 0, NULL) : NULL;
    free(dice_text);
    json_object_set_new(o, "dice", v ? v : json_null());
    if (!j->battle.is_escalated)
        md = matrix_json_markdown(j);
    json_object_set_new(o, "summary_markdown",
                        md ? json_string(md) : json_null());
    free(md);
    text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* Fills j->rec's combat row, rolls and report for the battle as it
 * stands, rebuilding it once more over all its dice for the roll log. */
err_code matrix_json_record(matrix_job *j, const char *battle_id, err_info *e)
{
    int values[4 * MATRIX_JSON_MAX_ACTIONS], n_values = 0, i, k;
    db_combat *cb = &j->rec.cb;
    dice_source src;
    char summary[160];
    err_code rc;

    for (i = 0; i < j->n_actions; i++)
        for (k = 0; k < j->actions[i].n_naturals; k++)
            values[n_values++] = j->actions[i].naturals[k];
    dice_init_values(&src, DICE_REPLAY, values, (size_t)n_values);
    if ((rc = matrix_json_rebuild(j, &src, e)))
        goto out;
    if (!j->battle.is_escalated &&
        (rc = matrix_battle_result(&j->battle, &j->result, e)))
        goto out;
    combat_record_row(&j->rec, "matrix");
    if ((rc = combat_record_rolls(&j->rec, &src, matrix_json_roll_names, j, e)))
        goto out;
    if (j->battle.is_escalated)
        snprintf(summary, sizeof summary,
                 "Matrix skirmish escalated to an open battle");
    else
        snprintf(summary, sizeof summary,
                 "Matrix %s: %s, casualty points %d to %d",
                 j->setup.kind == MATRIX_SKIRMISH ? "skirmish" : "battle",
                 j->result.winner < 0
                     ? "a draw"
                     : (j->result.winner == 0 ? "the attacker wins"
                                              : "the defender wins"),
                 j->result.points[0], j->result.points[1]);
    cb->summary = strdup(summary);
    cb->report = report_text(j, battle_id);
    if (!cb->summary || !cb->report)
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
out:
    dice_cleanup(&src);
    return rc;
}
