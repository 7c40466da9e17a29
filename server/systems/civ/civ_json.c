/*
 * civ_json.c: Civilization advanced combat in JSON; see civ_json.h.
 */
#include "civ_json.h"
#include "jsonb.h"
#include "combat.h"
#include "jsonv.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const civ_json_army_key[2] = {"attacker", "defender"};

static const char *const class_choices[] = {"infantry", "cavalry", "artillery",
                                            "aircraft", "other",   NULL};
static const char *const cia_keys[3] = {
    "cavalry_infantry", "infantry_artillery", "artillery_cavalry"};

civ_job *civ_job_new(int max_phases)
{
    civ_job *j = calloc(1, sizeof *j);

    if (j == NULL)
        return NULL;
    j->phases = calloc((size_t)max_phases, sizeof *j->phases);
    j->orders = calloc((size_t)max_phases, sizeof *j->orders);
    j->entered =
        calloc((size_t)max_phases * 2 * 2 * CIV_MAX_UNITS, sizeof *j->entered);
    j->max_phases = max_phases;
    if (!j->phases || !j->orders || !j->entered) {
        civ_job_free(j);
        return NULL;
    }
    return j;
}

void civ_job_free(void *p)
{
    civ_job *j = p;

    if (j == NULL)
        return;
    free(j->phases);
    free(j->orders);
    free(j->entered);
    json_decref(j->request);
    json_decref(j->reply);
    db_battle_cleanup(&j->row);
    combat_record_cleanup(&j->rec);
    free(j);
}

/* ---- pieces and armies ---- */

err_code civ_json_parse_unit(const json_t *obj, const char *path, bool is_patch,
                             civ_unit *u, err_info *e)
{
    static const char *const fields[] = {"class", "era", "bonus",
                                         "dice_multiplier", NULL};
    int cls = (int)u->cls;
    char f[JV_PATH_MAX];
    err_code rc;

    if (!is_patch)
        u->dice_multiplier = 1;
    if ((rc = jv_object_only(obj, path, fields, e)) ||
        (rc = jv_enum(obj, path, "class", !is_patch, class_choices, &cls, e)) ||
        (rc =
             jv_int(obj, path, "era", !is_patch, 1, CIV_MAX_ERA, &u->era, e)) ||
        (rc = jv_int(obj, path, "bonus", false, -CIV_BONUS_MAX, CIV_BONUS_MAX,
                     &u->bonus, e)) ||
        (rc = jv_int(obj, path, "dice_multiplier", false, 1, CIV_MULTIPLIER_MAX,
                     &u->dice_multiplier, e)))
        return rc;
    u->cls = (civ_class)cls;
    if (u->cls != CIV_AIRCRAFT && json_object_get(obj, "dice_multiplier")) {
        jv_path(f, path, "dice_multiplier");
        return err_set(e, ERR_INVALID, f,
                       "only aircraft roll with a dice multiplier");
    }
    return ERR_OK;
}

json_t *civ_json_unit_json(const civ_unit *u)
{
    json_t *j = json_pack("{s:s, s:i, s:i}", "class", civ_class_name(u->cls),
                          "era", u->era, "bonus", u->bonus);

    if (u->cls == CIV_AIRCRAFT)
        json_object_set_new(j, "dice_multiplier",
                            json_integer(u->dice_multiplier));
    return j;
}

/* The unit of army a called name (name, id or reference), or -1. */
static int unit_index(const civ_job *j, int a, const char *name)
{
    int u;

    for (u = 0; u < j->setup.armies[a].n_units; u++)
        if (strcmp(j->unit_name[a][u], name) == 0 ||
            (j->unit_id[a][u][0] && strcmp(j->unit_id[a][u], name) == 0) ||
            (j->unit_ref[a][u][0] && strcmp(j->unit_ref[a][u], name) == 0))
            return u;
    return -1;
}

static err_code parse_army(const json_t *body, bool is_campaign, bool is_stored,
                           civ_job *j, int a, err_info *e)
{
    static const char *const campaign_fields[] = {"side", "technologies",
                                                  "units", NULL};
    static const char *const inline_fields[] = {"name",
                                                "technologies",
                                                "units",
                                                "wave_preference",
                                                "aircraft_support",
                                                "casualty_order",
                                                NULL};
    /* stored: a campaign battle's setup, or a one-off's plan */
    static const char *const stored_fields[] = {"name",
                                                "side_id",
                                                "technologies",
                                                "units",
                                                "wave_preference",
                                                "aircraft_support",
                                                "casualty_order",
                                                NULL};
    static const char *const unit_fields[] = {
        "name", "class", "era", "bonus", "dice_multiplier", "unit_id", NULL};
    const char *key = civ_json_army_key[a], *name = NULL, *side_id = NULL;
    civ_army *m = &j->setup.armies[a];
    json_t *army = NULL, *units = NULL;
    char p[JV_PATH_MAX], pu[JV_PATH_MAX];
    size_t i;
    int b, k;
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
        (rc = jv_int(army, key, "technologies", false, 0, CIV_TECH_MAX,
                     &m->technologies, e)) ||
        (rc = jv_array(army, key, "units", true, 1, CIV_MAX_UNITS, &units, e)))
        return rc;
    text_copy(is_campaign ? j->army_ref[a] : j->army_name[a], DB_NAME_MAX,
              name ? name : key);
    if (side_id)
        text_copy(j->side_id[a], DB_ID_MAX, side_id);
    m->n_units = (int)json_array_size(units);
    jv_path(p, key, "units");
    for (i = 0; i < json_array_size(units); i++) {
        const json_t *u = json_array_get(units, i);
        const char *un = NULL, *id = NULL;
        json_t *piece;
        jv_index(pu, p, i);
        if (is_campaign) {
            if (!json_is_string(u) || json_string_length(u) < 1 ||
                json_string_length(u) > 64)
                return err_set(e, ERR_INVALID, pu,
                               "a unit of the campaign, by id or name");
            text_copy(j->unit_ref[a][i], DB_NAME_MAX, json_string_value(u));
            continue;
        }
        if ((rc = jv_object_only(u, pu, unit_fields, e)) ||
            (rc = jv_string(u, pu, "name", true, 64, &un, e)) ||
            (is_stored &&
             (rc = jv_string(u, pu, "unit_id", false, DB_ID_MAX - 1, &id, e))))
            return rc;
        if (!is_stored && json_object_get(u, "unit_id")) {
            char f[JV_PATH_MAX];
            jv_path(f, pu, "unit_id");
            memcpy(pu, f, sizeof pu);
            return err_set(e, ERR_UNKNOWN_FIELD, pu, "not a field of a unit");
        }
        piece = json_deep_copy(u);
        json_object_del(piece, "name");
        json_object_del(piece, "unit_id");
        rc = civ_json_parse_unit(piece, pu, false, &m->units[i], e);
        json_decref(piece);
        if (rc)
            return rc;
        for (b = 0; b <= a; b++)
            for (k = 0; k < (b < a ? j->setup.armies[b].n_units : (int)i); k++)
                if (strcmp(j->unit_name[b][k], un) == 0) {
                    char f[JV_PATH_MAX];
                    jv_path(f, pu, "name");
                    memcpy(pu, f, sizeof pu);
                    return err_set(e, ERR_INVALID, pu,
                                   "the unit \"%s\" is already in this battle",
                                   un);
                }
        text_copy(j->unit_name[a][i], DB_NAME_MAX, un);
        if (id)
            text_copy(j->unit_id[a][i], DB_ID_MAX, id);
    }
    return ERR_OK;
}

err_code civ_json_parse_setup(const json_t *body, bool is_campaign,
                              bool is_stored, civ_job *j, err_info *e)
{
    err_code rc;

    if ((rc = jv_int(body, "", "current_era", true, 1, CIV_MAX_ERA,
                     &j->setup.current_era, e)) ||
        (rc = jv_bool(body, "", "settlement", false, &j->setup.is_settlement,
                      e)) ||
        (rc = jv_bool(body, "", "great_wall", false, &j->setup.has_great_wall,
                      e)) ||
        (rc = parse_army(body, is_campaign, is_stored, j, 0, e)) ||
        (rc = parse_army(body, is_campaign, is_stored, j, 1, e)))
        return rc;
    return ERR_OK;
}

/* Names at key of obj (path) to units of army a. */
static err_code names(const civ_job *j, const json_t *obj, const char *path,
                      const char *key, int a, int *out, int *n, err_info *e)
{
    json_t *arr = NULL;
    char f[JV_PATH_MAX], fk[JV_PATH_MAX];
    size_t k;
    err_code rc;

    *n = 0;
    if ((rc = jv_array(obj, path, key, false, 0, CIV_MAX_UNITS, &arr, e)) ||
        arr == NULL)
        return rc;
    jv_path(f, path, key);
    for (k = 0; k < json_array_size(arr); k++) {
        const char *s = json_string_value(json_array_get(arr, k));
        jv_index(fk, f, k);
        if (s == NULL || (out[k] = unit_index(j, a, s)) < 0)
            return err_set(e, ERR_INVALID, fk, "not a unit of the %s",
                           civ_json_army_key[a]);
    }
    *n = (int)json_array_size(arr);
    return ERR_OK;
}

static err_code support(const json_t *obj, const char *path, int *out,
                        err_info *e)
{
    const json_t *v = json_object_get(obj, "aircraft_support");
    int cls = -1;
    err_code rc;

    *out = -1;
    if (v == NULL || json_is_null(v)) /* null: the default class */
        return ERR_OK;
    if ((rc = jv_enum(obj, path, "aircraft_support", false, class_choices, &cls,
                      e)))
        return rc;
    if (cls == CIV_AIRCRAFT) {
        char f[JV_PATH_MAX];
        jv_path(f, path, "aircraft_support");
        return err_set(e, ERR_RULE, f,
                       "aircraft support a class of regular units");
    }
    *out = cls;
    return ERR_OK;
}

/* Standing orders name regular pieces: aircraft join no wave and take no
 * loss of their own. */
static err_code no_aircraft(const civ_job *j, int a, const char *key,
                            const int *units, int n, err_info *e)
{
    char f[JV_PATH_MAX];
    int k;

    for (k = 0; k < n; k++)
        if (j->setup.armies[a].units[units[k]].cls == CIV_AIRCRAFT) {
            snprintf(f, sizeof f, "%s.%s[%d]", civ_json_army_key[a], key, k);
            return err_set(e, ERR_RULE, f,
                           "an aircraft joins no wave and is lost only with "
                           "the pieces it supports");
        }
    return ERR_OK;
}

err_code civ_json_parse_plan(const json_t *body, civ_job *j, err_info *e)
{
    int a;
    err_code rc;

    for (a = 0; a < 2; a++) {
        const json_t *army = json_object_get(body, civ_json_army_key[a]);
        civ_orders *o = &j->plan[a];
        if ((rc = names(j, army, civ_json_army_key[a], "wave_preference", a,
                        o->preference, &o->n_preference, e)) ||
            (rc = support(army, civ_json_army_key[a], &o->support, e)) ||
            (rc = names(j, army, civ_json_army_key[a], "casualty_order", a,
                        o->casualties, &o->n_casualties, e)))
            return rc;
        o->is_casualty_preference = true;
        if ((rc = no_aircraft(j, a, "wave_preference", o->preference,
                              o->n_preference, e)) ||
            (rc = no_aircraft(j, a, "casualty_order", o->casualties,
                              o->n_casualties, e)))
            return rc;
    }
    return ERR_OK;
}

static json_t *names_json(const civ_job *j, int a, const int *units, int n)
{
    json_t *arr = json_array();
    int k;

    for (k = 0; k < n; k++)
        json_array_append_new(arr, json_string(j->unit_name[a][units[k]]));
    return arr;
}

json_t *civ_json_setup_json(const civ_job *j)
{
    json_t *doc = json_pack(
        "{s:i, s:b, s:b}", "current_era", j->setup.current_era, "settlement",
        j->setup.is_settlement, "great_wall", j->setup.has_great_wall);
    int a, u;

    for (a = 0; a < 2; a++) {
        const civ_army *m = &j->setup.armies[a];
        json_t *units = json_array();
        json_t *army = json_pack("{s:s, s:i}", "name", j->army_name[a],
                                 "technologies", m->technologies);
        if (j->side_id[a][0])
            json_object_set_new(army, "side_id", json_string(j->side_id[a]));
        for (u = 0; u < m->n_units; u++) {
            json_t *x = civ_json_unit_json(&m->units[u]);
            json_object_set_new(x, "name", json_string(j->unit_name[a][u]));
            if (j->unit_id[a][u][0])
                json_object_set_new(x, "unit_id",
                                    json_string(j->unit_id[a][u]));
            json_array_append_new(units, x);
        }
        json_object_set_new(army, "units", units);
        json_object_set_new(doc, civ_json_army_key[a], army);
    }
    return doc;
}

/* ---- phases ---- */

err_code civ_json_parse_orders(const json_t *obj, const char *path,
                               const civ_job *j, civ_orders out[2], err_info *e)
{
    static const char *const fields[] = {"wave", "aircraft_support",
                                         "casualties", NULL};
    char p[JV_PATH_MAX];
    int a;
    err_code rc;

    memset(out, 0, 2 * sizeof *out);
    for (a = 0; a < 2; a++) {
        json_t *army = NULL;
        out[a].support = -1;
        jv_path(p, path, civ_json_army_key[a]);
        if ((rc = jv_object(obj, path, civ_json_army_key[a], false, &army, e)))
            return rc;
        if (army == NULL)
            continue;
        if ((rc = jv_object_only(army, p, fields, e)) ||
            (rc = names(j, army, p, "wave", a, out[a].wave, &out[a].n_wave,
                        e)) ||
            (rc = support(army, p, &out[a].support, e)) ||
            (rc = names(j, army, p, "casualties", a, out[a].casualties,
                        &out[a].n_casualties, e)))
            return rc;
    }
    return ERR_OK;
}

json_t *civ_json_orders_json(const civ_job *j, const civ_orders o[2])
{
    json_t *doc = json_object();
    int a;

    for (a = 0; a < 2; a++) {
        json_t *x = json_object();
        if (o[a].n_wave > 0)
            json_object_set_new(x, "wave",
                                names_json(j, a, o[a].wave, o[a].n_wave));
        if (o[a].support >= 0)
            json_object_set_new(
                x, "aircraft_support",
                json_string(civ_class_name((civ_class)o[a].support)));
        if (o[a].n_casualties > 0)
            json_object_set_new(
                x, "casualties",
                names_json(j, a, o[a].casualties, o[a].n_casualties));
        json_object_set_new(doc, civ_json_army_key[a], x);
    }
    return doc;
}

err_code civ_json_fight(civ_job *j, const civ_orders orders[2],
                        dice_source *src, err_info *e)
{
    err_code rc;

    if (j->n_phases >= j->max_phases)
        return err_set(e, ERR_LIMIT, NULL, "a battle has at most %d phases",
                       j->max_phases);
    if ((rc = civ_fight_phase(&j->battle, orders, src, &j->phases[j->n_phases],
                              e)))
        return rc;
    memcpy(j->orders[j->n_phases], orders, 2 * sizeof *orders);
    j->n_phases++;
    return ERR_OK;
}

static json_t *army_phase_json(const civ_job *j, int a, const civ_army_phase *p,
                               const dice_source *src)
{
    json_t *o = json_object(), *dice = json_array(), *cia = json_object();
    int k;

    json_object_set_new(o, "wave", names_json(j, a, p->wave, p->n_wave));
    json_object_set_new(o, "aircraft",
                        names_json(j, a, p->aircraft, p->n_aircraft));
    json_object_set_new(o, "idle_aircraft", json_integer(p->idle_aircraft));
    json_object_set_new(o, "aircraft_support",
                        p->support >= 0
                            ? json_string(civ_class_name((civ_class)p->support))
                            : json_null());
    for (k = 0; k < p->n_wave + p->n_aircraft; k++)
        json_array_append_new(
            dice, json_integer(src && p->first_roll + (size_t)k < src->n_log
                                   ? src->log[p->first_roll + (size_t)k].natural
                                   : 0));
    json_object_set_new(o, "dice", dice);
    json_object_set_new(o, "terms",
                        json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "base",
                                  p->base, "aircraft", p->air, "bonus",
                                  p->bonus, "science", p->science, "cia",
                                  p->cia, "settlement", p->settlement));
    for (k = 0; k < 3; k++)
        json_object_set_new(cia, cia_keys[k], json_integer(p->cia_matches[k]));
    json_object_set_new(o, "cia_matches", cia);
    json_object_set_new(o, "total", json_integer(p->total));
    json_object_set_new(o, "damage_taken", json_integer(p->damage_taken));
    json_object_set_new(o, "destroyed",
                        names_json(j, a, p->destroyed, p->n_destroyed));
    json_object_set_new(o, "damage_lost", json_integer(p->damage_lost));
    return o;
}

void civ_json_outcome_json(const civ_job *j, const dice_source *src, json_t *o)
{
    json_t *phases = json_array(), *surv = json_object();
    int i, a, u;

    for (i = 0; i < j->n_phases; i++) {
        json_t *ph = json_pack("{s:i}", "index", i);
        for (a = 0; a < 2; a++)
            json_object_set_new(
                ph, civ_json_army_key[a],
                army_phase_json(j, a, &j->phases[i].armies[a], src));
        json_array_append_new(phases, ph);
    }
    json_object_set_new(o, "phases", phases);
    json_object_set_new(o, "over", json_boolean(civ_is_over(&j->battle)));
    json_object_set_new(o, "unresolved", json_boolean(j->is_unresolved));
    json_object_set_new(o, "winner",
                        civ_is_over(&j->battle) && j->battle.winner >= 0
                            ? json_string(civ_json_army_key[j->battle.winner])
                            : json_null());
    for (a = 0; a < 2; a++) {
        json_t *names_alive = json_array();
        for (u = 0; u < j->setup.armies[a].n_units; u++)
            if (j->battle.is_alive[a][u])
                json_array_append_new(names_alive,
                                      json_string(j->unit_name[a][u]));
        json_object_set_new(surv, civ_json_army_key[a], names_alive);
    }
    json_object_set_new(o, "survivors", surv);
}

char *civ_json_markdown(const civ_job *j)
{
    text_buf b = {0};
    char name[2 * DB_NAME_MAX];
    int i;

    text_printf(&b, "**Civilization battle**%s\n",
                j->setup.is_settlement ? " (a settlement)" : "");
    for (i = 0; i < j->n_phases; i++) {
        const civ_phase *p = &j->phases[i];
        text_printf(&b,
                    "- Phase %d: attacker %d, defender %d; losses: "
                    "attacker %d, defender %d\n",
                    i + 1, p->armies[0].total, p->armies[1].total,
                    p->armies[0].n_destroyed, p->armies[1].n_destroyed);
    }
    if (!civ_is_over(&j->battle))
        text_printf(&b, "%s\n",
                    j->is_unresolved ? "Unresolved: the phase limit came "
                                       "first."
                                     : "The battle goes on.");
    else if (j->battle.winner < 0)
        text_printf(&b, "Both armies are destroyed.\n");
    else {
        text_md(name, sizeof name, j->army_name[j->battle.winner]);
        text_printf(&b, "The %s (%s) wins.\n",
                    civ_json_army_key[j->battle.winner], name);
    }
    text_printf(&b, "_Dice: %s._\n", combat_dice_note(&j->rec));
    return text_take(&b);
}

void civ_json_roll_names(const void *plan, const dice_roll *d,
                         const char **side, const char **unit_name,
                         const char **unit_id)
{
    const civ_job *j = plan;

    *side = j->army_name[d->side];
    *unit_name = j->unit_name[d->side][d->unit];
    *unit_id = j->unit_id[d->side][d->unit];
}

/* ---- the record ---- */

/* Rebuilds j's battle from its phases' orders and the dice in src. */
err_code civ_json_rebuild(civ_job *j, const civ_orders (*orders)[2], int n,
                          dice_source *src, err_info *e)
{
    int i;
    err_code rc;

    j->n_phases = 0;
    if ((rc = civ_battle_init(&j->battle, &j->setup, e)))
        return rc;
    for (i = 0; i < n; i++) {
        civ_orders o[2];
        memcpy(o, orders[i], sizeof o);
        if ((rc = civ_json_fight(j, o, src, e)))
            return rc;
    }
    return ERR_OK;
}

/* The report of j's battle as it stands, with input (new text). */
static char *report_text(const civ_job *j, const dice_source *src,
                         const char *battle_id, json_t *input)
{
    const db_combat *cb = &j->rec.cb;
    json_t *o = json_object(), *v;
    char *md, *dice_text, *text;
    jw w;

    json_object_set_new(o, "id", json_string(cb->id));
    json_object_set_new(o, "system", json_string("civ"));
    json_object_set_new(o, "campaign_id", jsonb_str_or_null(cb->campaign_id));
    json_object_set_new(o, "created_at", json_string(cb->created_at));
    json_object_set_new(o, "note", jsonb_str_or_null(cb->note));
    json_object_set_new(o, "battle_id", jsonb_str_or_null(battle_id));
    if (j->turn > 0)
        json_object_set_new(o, "turn", json_integer(j->turn));
    json_object_set_new(o, "input", input);
    civ_json_outcome_json(j, src, o);
    jw_init(&w);
    combat_dice_write(&w, cb);
    dice_text = jw_take(&w, NULL);
    v = dice_text ? json_loads(dice_text, 0, NULL) : NULL;
    free(dice_text);
    json_object_set_new(o, "dice", v ? v : json_null());
    md = civ_json_markdown(j);
    json_object_set_new(o, "summary_markdown", json_string(md ? md : ""));
    free(md);
    text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* Fills j->rec's row, rolls, summary and report from src's log. */
err_code civ_json_record(civ_job *j, const dice_source *src,
                         const char *battle_id, json_t *input, err_info *e)
{
    db_combat *cb = &j->rec.cb;
    char summary[160];
    err_code rc;

    combat_record_row(&j->rec, "civ");
    if ((rc = combat_record_rolls(&j->rec, src, civ_json_roll_names, j, e))) {
        json_decref(input);
        return rc;
    }
    if (!civ_is_over(&j->battle))
        snprintf(summary, sizeof summary,
                 "Civilization battle: unresolved after %d phase%s",
                 j->n_phases, j->n_phases == 1 ? "" : "s");
    else
        snprintf(summary, sizeof summary,
                 "Civilization battle: %s after %d phase%s",
                 j->battle.winner < 0    ? "both armies destroyed"
                 : j->battle.winner == 0 ? "the attacker wins"
                                         : "the defender wins",
                 j->n_phases, j->n_phases == 1 ? "" : "s");
    cb->summary = strdup(summary);
    cb->report = report_text(j, src, battle_id, input);
    if (!cb->summary || !cb->report)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    return ERR_OK;
}

/* Fights the one-off to its end or its phase limit. */
err_code civ_json_fight_plan(civ_job *j, dice_source *src, err_info *e)
{
    err_code rc;

    if ((rc = civ_battle_init(&j->battle, &j->setup, e)))
        return rc;
    while (!civ_is_over(&j->battle) && j->n_phases < j->max_phases) {
        civ_orders o[2];
        memcpy(o, j->plan, sizeof o);
        o[0].n_wave = o[1].n_wave = 0;
        if ((rc = civ_json_fight(j, o, src, e)))
            return rc;
    }
    j->is_unresolved = !civ_is_over(&j->battle);
    return ERR_OK;
}
