/*
 * matrix_json.c: Matrix game battles in JSON, the setup and the actions;
 * see matrix_json.h.  The state, result and record are in
 * matrix_json_state.c.
 */
#include "matrix_json.h"
#include "combat.h"
#include "http.h"
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

json_t *matrix_json_names(const matrix_job *j, int a, const int *units, int n)
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
                            matrix_json_names(j, a, m->reserve, m->n_reserve));
        json_object_set_new(doc, matrix_json_army_key[a], army);
    }
    for (c = 0; c < s->n_line; c++)
        json_array_append_new(
            line, json_pack("{s:o, s:o}", "attacker",
                            matrix_json_names(j, 0, s->line[c].units[0],
                                              s->line[c].n_units[0]),
                            "defender",
                            matrix_json_names(j, 1, s->line[c].units[1],
                                              s->line[c].n_units[1])));
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
