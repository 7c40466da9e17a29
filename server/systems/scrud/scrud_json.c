/*
 * scrud_json.c: SCRUD requests and reports as JSON; see scrud_json.h.
 * Field names follow api-spec/openapi.yaml; the rules live in core/scrud.c.
 */
#include "scrud_json.h"
#include "jsonv.h"
#include "jsonw.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L SCRUD_MODIFIER_LIMIT

static const char *const extra_names[] = {"beat_lowest", "ignore", "half",
                                          NULL};

err_code scrud_json_options(const json_t *obj, const char *path,
                            scrud_options *o, err_info *e)
{
    static const char *const fields[] = {"cap",
                                         "floor",
                                         "extra_dice",
                                         "attrition",
                                         "max_penalty_per_combat",
                                         "eliminate_below",
                                         "defeats_per_elimination",
                                         NULL};
    char f[JV_PATH_MAX];
    json_t *v;
    int extra = (int)o->extra_dice;
    err_code rc;

    if ((rc = jv_object_only(obj, path, fields, e)))
        return rc;
    v = json_object_get(obj, "cap");
    if (v != NULL) {
        jv_path(f, path, "cap");
        if (json_is_null(v)) {
            o->cap_kind = SCRUD_CAP_NONE;
        } else if (json_is_string(v) &&
                   strcmp(json_string_value(v), "faces") == 0) {
            o->cap_kind = SCRUD_CAP_FACES;
        } else if (json_is_integer(v)) {
            if ((rc = jv_int(obj, path, "cap", true, -L, RNG_FACES_MAX + L,
                             &o->cap, e)))
                return rc;
            o->cap_kind = SCRUD_CAP_FIXED;
        } else {
            return err_set(e, ERR_INVALID, f,
                           "must be \"faces\", an integer or null");
        }
    }
    v = json_object_get(obj, "floor");
    if (v != NULL && json_is_null(v)) {
        o->has_floor = false;
    } else if (v != NULL) {
        if ((rc = jv_int(obj, path, "floor", true, -L, L, &o->floor, e)))
            return rc;
        o->has_floor = true;
    }
    if ((rc =
             jv_enum(obj, path, "extra_dice", false, extra_names, &extra, e)) ||
        (rc = jv_bool(obj, path, "attrition", false, &o->attrition, e)) ||
        (rc = jv_int(obj, path, "max_penalty_per_combat", false, 0, 2,
                     &o->max_penalty_per_combat, e)) ||
        (rc = jv_int(obj, path, "eliminate_below", false, -L, L,
                     &o->eliminate_below, e)) ||
        (rc = jv_int(obj, path, "defeats_per_elimination", false, 0, L,
                     &o->defeats_per_elimination, e)))
        return rc;
    o->extra_dice = (scrud_extra_rule)extra;
    if (o->has_floor && o->cap_kind == SCRUD_CAP_FIXED && o->floor > o->cap) {
        jv_path(f, path, "floor");
        return err_set(e, ERR_RANGE, f, "the floor %d is above the cap %d",
                       o->floor, o->cap);
    }
    return ERR_OK;
}

void scrud_json_options_write(jw *w, const scrud_options *o)
{
    jw_object(w);
    jw_key(w, "cap");
    if (o->cap_kind == SCRUD_CAP_FACES)
        jw_string(w, "faces");
    else if (o->cap_kind == SCRUD_CAP_FIXED)
        jw_int(w, o->cap);
    else
        jw_null(w);
    jw_key(w, "floor");
    if (o->has_floor)
        jw_int(w, o->floor);
    else
        jw_null(w);
    jw_kstring(w, "extra_dice", scrud_extra_rule_name(o->extra_dice));
    jw_kbool(w, "attrition", o->attrition);
    jw_kint(w, "max_penalty_per_combat", o->max_penalty_per_combat);
    jw_kint(w, "eliminate_below", o->eliminate_below);
    jw_kint(w, "defeats_per_elimination", o->defeats_per_elimination);
    jw_object_end(w);
}

/* Parses what a writer produced (NULL on failure). */
static json_t *written_json(jw *w)
{
    char *text = jw_take(w, NULL);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;

    free(text);
    return j;
}

json_t *scrud_json_options_json(const scrud_options *o)
{
    jw w;

    jw_init(&w);
    scrud_json_options_write(&w, o);
    return written_json(&w);
}

static err_code check_dice_fit(const scrud_plan *plan, err_info *e);

static err_code parse_unit(const json_t *u, const char *path, bool is_campaign,
                           bool is_entered, scrud_plan *plan, int s, int i,
                           err_info *e)
{
    /* A unit's fields, a campaign's (by reference) or one given whole,
     * each value found once (jv_object_fields) for the _val getters. */
    enum {
        F_UNIT,
        F_NAME,
        F_QUALITY,
        F_DEFEAT,
        F_FATIGUE,
        F_FACES,
        F_RESERVE,
        F_MODIFIER,
        F_DIE
    };
    static const char *const fields[] = {[F_UNIT] = "unit",
                                         [F_NAME] = "name",
                                         [F_QUALITY] = "quality",
                                         [F_DEFEAT] = "defeat_penalty",
                                         [F_FATIGUE] = "fatigue_penalty",
                                         [F_FACES] = "faces",
                                         [F_RESERVE] = "reserve",
                                         [F_MODIFIER] = "modifier",
                                         [F_DIE] = "die",
                                         NULL};
    const unsigned both = 1u << F_RESERVE | 1u << F_MODIFIER | 1u << F_DIE,
                   campaign = 1u << F_UNIT | both,
                   inline_ = 1u << F_NAME | 1u << F_QUALITY | 1u << F_DEFEAT |
                             1u << F_FATIGUE | 1u << F_FACES | both;
    scrud_unit *su = &plan->units[s][i];
    json_t *v[sizeof fields / sizeof fields[0]];
    const char *ref = NULL;
    char f[JV_PATH_MAX];
    err_code rc;

    scrud_unit_default(su);
    plan->unit_ref[s][i][0] = '\0';
    plan->unit_name[s][i][0] = '\0';
    plan->unit_id[s][i][0] = '\0';
    plan->has_die[s][i] = false;
    plan->die[s][i] = 0;
    if ((rc = jv_object_fields(u, path, fields,
                               is_campaign ? campaign : inline_, v, e)))
        return rc;
    if (is_campaign) {
        if ((rc = jv_string_val(v[F_UNIT], path, "unit", true, 64, &ref, e)))
            return rc;
        text_copy(plan->unit_ref[s][i], DB_NAME_MAX, ref);
    } else {
        if ((rc = jv_string_val(v[F_NAME], path, "name", true, 64, &ref, e)) ||
            (rc = jv_int_val(v[F_QUALITY], path, "quality", false, -L, L,
                             &su->quality, e)) ||
            (rc = jv_int_val(v[F_DEFEAT], path, "defeat_penalty", false, 0, L,
                             &su->defeat_penalty, e)) ||
            (rc = jv_int_val(v[F_FATIGUE], path, "fatigue_penalty", false, 0, L,
                             &su->fatigue_penalty, e)) ||
            (rc = jv_int_val(v[F_FACES], path, "faces", false, RNG_FACES_MIN,
                             RNG_FACES_MAX, &su->faces, e)))
            return rc;
        text_copy(plan->unit_name[s][i], DB_NAME_MAX, ref);
    }
    if ((rc = jv_bool_val(v[F_RESERVE], path, "reserve", false, &su->is_reserve,
                          e)) ||
        (rc = jv_int_val(v[F_MODIFIER], path, "modifier", false, -L, L,
                         &su->modifier, e)))
        return rc;
    if (v[F_DIE] != NULL) {
        if (!is_entered)
            return err_set(e, ERR_INVALID, jv_path(f, path, "die"),
                           "dice are seeded: give \"die\" only with "
                           "dice.source \"entered\"");
        if ((rc = jv_int_val(v[F_DIE], path, "die", true, 1, RNG_FACES_MAX,
                             &plan->die[s][i], e)))
            return rc;
        plan->has_die[s][i] = true;
    } else if (is_entered) {
        return err_set(e, ERR_MISSING, jv_path(f, path, "die"),
                       "entered dice need a \"die\" for every unit");
    }
    return ERR_OK;
}

/* Unit names (one-off) or references (campaign) must not repeat. */
static err_code check_repeats(const scrud_plan *plan, bool is_campaign,
                              err_info *e)
{
    int s, i, t, j;
    char f[JV_PATH_MAX];

    for (s = 0; s < 2; s++)
        for (i = 0; i < (int)plan->in.sides[s].n_units; i++)
            for (t = 0; t <= s; t++)
                for (j = 0; j < (t == s ? i : (int)plan->in.sides[t].n_units);
                     j++) {
                    const char *a = is_campaign ? plan->unit_ref[s][i]
                                                : plan->unit_name[s][i];
                    const char *b = is_campaign ? plan->unit_ref[t][j]
                                                : plan->unit_name[t][j];
                    if (strcmp(a, b) != 0)
                        continue;
                    snprintf(f, sizeof f, "sides[%d].units[%d].%s", s, i,
                             is_campaign ? "unit" : "name");
                    return err_set(e, ERR_INVALID, f,
                                   "\"%s\" is already in this combat", a);
                }
    return ERR_OK;
}

err_code scrud_json_parse_sides(const json_t *body, bool is_campaign,
                                bool is_entered, scrud_plan *plan, err_info *e)
{
    static const char *const campaign_side[] = {"side", "modifier", "units",
                                                NULL};
    static const char *const inline_side[] = {"name", "modifier", "units",
                                              NULL};
    json_t *sides = NULL, *units = NULL;
    char sp[JV_PATH_MAX], up[JV_PATH_MAX], sf[JV_PATH_MAX];
    err_code rc;
    int s;
    size_t i;

    if ((rc = jv_array(body, "", "sides", true, 0, 64, &sides, e)))
        return rc;
    if (json_array_size(sides) != 2)
        return err_set(e, ERR_RANGE, "sides",
                       "a SCRUD combat has exactly two sides, not %zu",
                       json_array_size(sides));
    for (s = 0; s < 2; s++) {
        const json_t *side = json_array_get(sides, (size_t)s);
        const char *name = NULL;
        jv_index(sp, "sides", (size_t)s);
        if ((rc = jv_object_only(
                 side, sp, is_campaign ? campaign_side : inline_side, e)) ||
            (rc = jv_string(side, sp, is_campaign ? "side" : "name", true, 64,
                            &name, e)) ||
            (rc = jv_int(side, sp, "modifier", false, -L, L,
                         &plan->in.sides[s].modifier, e)) ||
            (rc = jv_array(side, sp, "units", true, 1, SCRUD_MAX_UNITS_PER_SIDE,
                           &units, e)))
            return rc;
        text_copy(plan->side_name[s], DB_NAME_MAX, name);
        jv_path(up, sp, "units");
        for (i = 0; i < json_array_size(units); i++) {
            char p[JV_PATH_MAX];
            jv_index(p, up, i);
            if ((rc = parse_unit(json_array_get(units, i), p, is_campaign,
                                 is_entered, plan, s, (int)i, e)))
                return rc;
        }
        plan->in.sides[s].units = plan->units[s];
        plan->in.sides[s].n_units = json_array_size(units);
    }
    if (strcmp(plan->side_name[0], plan->side_name[1]) == 0) {
        jv_path(sf, "sides[1]", is_campaign ? "side" : "name");
        return err_set(e, ERR_INVALID, sf,
                       "a combat is between two different sides");
    }
    if ((rc = check_repeats(plan, is_campaign, e)))
        return rc;
    /* Campaign units' faces are known once they are bound. */
    return is_campaign ? ERR_OK : check_dice_fit(plan, e);
}

/* Every entered die must fit its unit's die. */
static err_code check_dice_fit(const scrud_plan *plan, err_info *e)
{
    char f[JV_PATH_MAX];
    size_t s, i;

    for (s = 0; s < 2; s++)
        for (i = 0; i < plan->in.sides[s].n_units; i++) {
            int faces = plan->units[s][i].faces;
            if (!plan->has_die[s][i] || plan->die[s][i] <= faces)
                continue;
            snprintf(f, sizeof f, "sides[%zu].units[%zu].die", s, i);
            return err_set(e, ERR_RANGE, f,
                           "must be between 1 and %d (a d%d), not %d", faces,
                           faces, plan->die[s][i]);
        }
    return ERR_OK;
}

/* The path of side s's unit i (its "unit" field) into f, which it
 * returns: written only for a problem, off a combat's common path. */
static const char *unit_field(char f[JV_PATH_MAX], size_t s, size_t i)
{
    snprintf(f, JV_PATH_MAX, "sides[%zu].units[%zu].unit", s, i);
    return f;
}

static err_code bind_units(db_conn *c, const char *campaign_id,
                           scrud_plan *plan, combat_record *keep, err_info *e)
{
    char f[JV_PATH_MAX];
    db_side side;
    db_unit u;
    size_t s, i;
    err_code rc;

    for (s = 0; s < 2; s++) {
        rc = db_side_find(c, campaign_id, plan->side_name[s], &side, NULL);
        if (rc == ERR_NOT_FOUND) {
            snprintf(f, sizeof f, "sides[%zu].side", s);
            return err_set(e, ERR_INVALID, f, "the campaign has no side \"%s\"",
                           plan->side_name[s]);
        }
        if (rc != ERR_OK)
            return err_set(e, rc, NULL, "cannot read sides");
        text_copy(plan->side_id[s], DB_ID_MAX, side.id);
        text_copy(plan->side_name[s], DB_NAME_MAX, side.name);
        for (i = 0; i < plan->in.sides[s].n_units; i++) {
            scrud_unit *su = &plan->units[s][i];
            rc = db_unit_find(c, campaign_id, plan->unit_ref[s][i], &u, NULL);
            if (rc == ERR_NOT_FOUND)
                return err_set(e, ERR_INVALID, unit_field(f, s, i),
                               "the campaign has no unit \"%s\"",
                               plan->unit_ref[s][i]);
            if (rc != ERR_OK)
                return err_set(e, rc, NULL, "cannot read units");
            if (!u.has_scrud)
                return err_set(e, ERR_RULE, unit_field(f, s, i),
                               "the unit %s does not carry SCRUD", u.name);
            if (strcmp(u.side_id, side.id) != 0)
                return err_set(e, ERR_INVALID, unit_field(f, s, i),
                               "the unit %s belongs to the side \"%s\", not "
                               "\"%s\"",
                               u.name, u.side_name, side.name);
            if (keep != NULL && combat_bind_keep(keep, &u) != ERR_OK)
                return err_set(e, ERR_NOMEM, NULL, "out of memory");
            text_copy(plan->unit_id[s][i], DB_ID_MAX, u.id);
            text_copy(plan->unit_name[s][i], DB_NAME_MAX, u.name);
            su->quality = u.scrud.quality;
            su->defeat_penalty = u.scrud.defeat_penalty;
            su->fatigue_penalty = u.scrud.fatigue_penalty;
            su->faces = u.scrud.faces;
            su->is_eliminated = u.is_eliminated;
        }
    }
    if (strcmp(plan->side_id[0], plan->side_id[1]) == 0)
        return err_set(e, ERR_INVALID, "sides[1].side",
                       "a combat is between two different sides");
    /* The same unit named once by id and once by name. */
    for (s = 0; s < 2; s++)
        for (i = 0; i < plan->in.sides[s].n_units; i++) {
            size_t t, j;
            for (t = 0; t <= s; t++)
                for (j = 0; j < (t == s ? i : plan->in.sides[t].n_units); j++)
                    if (strcmp(plan->unit_id[s][i], plan->unit_id[t][j]) == 0) {
                        snprintf(f, sizeof f, "sides[%zu].units[%zu].unit", s,
                                 i);
                        return err_set(e, ERR_INVALID, f,
                                       "the unit %s is already in this combat",
                                       plan->unit_name[s][i]);
                    }
        }
    return check_dice_fit(plan, e);
}

err_code scrud_json_bind_units(db_conn *c, const char *campaign_id,
                               scrud_plan *plan, combat_record *keep,
                               err_info *e)
{
    const char *refs[2 * SCRUD_MAX_UNITS_PER_SIDE];
    size_t s, i, n = 0;
    err_code rc;

    /* read together where each find would be a statement (PostgreSQL) */
    for (s = 0; s < 2; s++)
        for (i = 0; i < plan->in.sides[s].n_units; i++)
            refs[n++] = plan->unit_ref[s][i];
    if ((rc = db_units_prefetch(c, campaign_id, refs, n, e)))
        return rc;
    rc = bind_units(c, campaign_id, plan, keep, e);
    db_units_prefetch_end(c);
    return rc;
}

void scrud_json_entered_values(const scrud_plan *plan, int *values, size_t *n)
{
    size_t s, i;

    *n = 0;
    for (s = 0; s < 2; s++)
        for (i = 0; i < plan->in.sides[s].n_units; i++)
            if (plan->has_die[s][i])
                values[(*n)++] = plan->die[s][i];
}

static void copy_opt_string(const json_t *obj, const char *key, char *out,
                            size_t n)
{
    const char *s = json_string_value(json_object_get(obj, key));

    text_copy(out, n, s ? s : "");
}

static int int_at(const json_t *obj, const char *key)
{
    return (int)json_integer_value(json_object_get(obj, key));
}

err_code scrud_json_parse_input(const json_t *report, scrud_plan *plan,
                                err_info *e)
{
    json_t *sides = json_object_get(report, "sides");
    json_t *opts = json_object_get(report, "options");
    size_t s, i;
    err_code rc;

    memset(plan, 0, sizeof *plan);
    scrud_options_default(&plan->in.options);
    if (!json_is_object(opts) || json_array_size(sides) != 2)
        return err_set(e, ERR_INTERNAL, NULL, "the stored report is malformed");
    if ((rc = scrud_json_options(opts, "options", &plan->in.options, e)))
        return rc;
    for (s = 0; s < 2; s++) {
        json_t *side = json_array_get(sides, s);
        json_t *units = json_object_get(side, "units");
        if (json_array_size(units) > SCRUD_MAX_UNITS_PER_SIDE)
            return err_set(e, ERR_INTERNAL, NULL,
                           "the stored report is malformed");
        copy_opt_string(side, "name", plan->side_name[s], DB_NAME_MAX);
        copy_opt_string(side, "side_id", plan->side_id[s], DB_ID_MAX);
        plan->in.sides[s].modifier = int_at(side, "modifier");
        for (i = 0; i < json_array_size(units); i++) {
            json_t *u = json_array_get(units, i);
            json_t *before = json_object_get(u, "before");
            scrud_unit *su = &plan->units[s][i];
            scrud_unit_default(su);
            copy_opt_string(u, "unit", plan->unit_name[s][i], DB_NAME_MAX);
            copy_opt_string(u, "unit_id", plan->unit_id[s][i], DB_ID_MAX);
            su->quality = int_at(u, "quality");
            su->faces = int_at(u, "faces");
            su->modifier = int_at(u, "combat_modifier");
            su->is_reserve = json_is_true(json_object_get(u, "reserve"));
            su->defeat_penalty = int_at(before, "defeat_penalty");
            su->fatigue_penalty = int_at(before, "fatigue_penalty");
        }
        plan->in.sides[s].units = plan->units[s];
        plan->in.sides[s].n_units = json_array_size(units);
    }
    return scrud_validate(&plan->in, e);
}

void scrud_json_unit_write(jw *w, const scrud_plan *plan,
                           const scrud_result *res, int s, int i)
{
    const scrud_unit *u = &plan->units[s][i];
    const scrud_unit_result *r = &res->units[s][i];

    jw_kstring(w, "unit", plan->unit_name[s][i]);
    jw_kstring_or_null(w, "unit_id", plan->unit_id[s][i]);
    jw_kint(w, "quality", u->quality);
    jw_kint(w, "faces", u->faces);
    jw_kbool(w, "reserve", u->is_reserve);
    jw_kint(w, "combat_modifier", u->modifier);
    jw_kint(w, "natural", r->natural);
    jw_kint(w, "score", r->score);
    jw_key(w, "rank");
    if (r->rank >= 0)
        jw_int(w, r->rank + 1);
    else
        jw_null(w);
    jw_kint(w, "reserve_bonus", r->reserve_bonus);
    jw_kint(w, "defeats", r->defeats);
    jw_kbool(w, "heavy_fighting", r->is_heavy_fighting);
    jw_key(w, "penalties_added");
    jw_object(w);
    jw_kint(w, "defeat", r->defeat_penalty_added);
    jw_kint(w, "fatigue", r->fatigue_penalty_added);
    jw_object_end(w);
    jw_key(w, "before");
    jw_object(w);
    jw_kint(w, "defeat_penalty", u->defeat_penalty);
    jw_kint(w, "fatigue_penalty", u->fatigue_penalty);
    jw_kint(w, "modifier", r->modifier_before);
    jw_object_end(w);
    jw_key(w, "after");
    jw_object(w);
    jw_kint(w, "defeat_penalty", r->defeat_penalty);
    jw_kint(w, "fatigue_penalty", r->fatigue_penalty);
    jw_kint(w, "modifier", r->modifier_after);
    jw_object_end(w);
    jw_key(w, "eliminated");
    if (r->eliminated == SCRUD_ELIM_NONE)
        jw_null(w);
    else
        jw_string(w, scrud_elimination_name(r->eliminated));
}

char *scrud_json_unit_result(const char *report, const scrud_spans *spans,
                             const scrud_plan *plan, int s, int i)
{
    /* The members jw_kstring would join after the entry's own. */
    static const char system[] = ",\"system\":\"scrud\",\"side\":";
    size_t at = spans->at[s][i], n = spans->end[s][i] - at;
    char *text = NULL, *p;
    jw side;

    jw_init(&side);
    jw_string(&side, plan->side_name[s]);
    if (!side.is_failed &&
        (text = malloc(n + sizeof system - 1 + side.len + 2)) != NULL) {
        p = text;
        memcpy(p, report + at, n);
        p += n;
        memcpy(p, system, sizeof system - 1);
        p += sizeof system - 1;
        memcpy(p, side.s, side.len);
        p += side.len;
        *p++ = '}';
        *p = '\0';
    }
    jw_free(&side);
    return text;
}

char *scrud_json_unit_result_text(const scrud_plan *plan,
                                  const scrud_result *res, int s, int i)
{
    jw w;

    jw_init(&w);
    jw_object(&w);
    scrud_json_unit_write(&w, plan, res, s, i);
    jw_kstring(&w, "system", "scrud");
    jw_kstring(&w, "side", plan->side_name[s]);
    jw_object_end(&w);
    return jw_take(&w, NULL);
}

static void side_write(jw *w, const scrud_plan *plan, const scrud_result *res,
                       int s, scrud_spans *spans)
{
    size_t k, i;

    jw_object(w);
    jw_kstring(w, "name", plan->side_name[s]);
    jw_kstring_or_null(w, "side_id", plan->side_id[s]);
    jw_kint(w, "modifier", plan->in.sides[s].modifier);
    jw_kint(w, "defeats_suffered", res->defeats[s]);
    jw_key(w, "lined_up");
    jw_array(w);
    for (k = 0; k < res->n_line_up[s]; k++) {
        int u = res->line_up[s][k];
        jw_object(w);
        jw_kstring(w, "unit", plan->unit_name[s][u]);
        jw_kstring_or_null(w, "unit_id", plan->unit_id[s][u]);
        jw_kint(w, "natural", res->units[s][u].natural);
        jw_kint(w, "score", res->units[s][u].score);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "units");
    jw_array(w);
    for (i = 0; i < plan->in.sides[s].n_units; i++) {
        jw_object(w);
        if (spans != NULL)
            spans->at[s][i] = w->len - 1; /* its "{" */
        scrud_json_unit_write(w, plan, res, s, (int)i);
        if (spans != NULL)
            spans->end[s][i] = w->len;
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "eliminated");
    jw_array(w);
    for (k = 0; k < res->n_eliminated[s]; k++) {
        int u = res->eliminated[s][k];
        jw_object(w);
        jw_kstring(w, "unit", plan->unit_name[s][u]);
        jw_kstring_or_null(w, "unit_id", plan->unit_id[s][u]);
        jw_kstring(w, "reason",
                   scrud_elimination_name(res->units[s][u].eliminated));
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

void scrud_json_outcome_write(jw *w, const scrud_plan *plan,
                              const scrud_result *res, scrud_spans *spans)
{
    size_t k;

    jw_key(w, "sides");
    jw_array(w);
    side_write(w, plan, res, 0, spans);
    side_write(w, plan, res, 1, spans);
    jw_array_end(w);
    jw_key(w, "pairs");
    jw_array(w);
    for (k = 0; k < res->n_pairs; k++) {
        const scrud_pair *p = &res->pairs[k];
        jw_object(w);
        jw_kstring(w, "first", plan->unit_name[0][p->unit[0]]);
        jw_kstring(w, "second", plan->unit_name[1][p->unit[1]]);
        jw_kint(w, "first_score", p->score[0]);
        jw_kint(w, "second_score", p->score[1]);
        jw_kstring(w, "winner", scrud_winner_name(p->winner));
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "extra");
    jw_array(w);
    for (k = 0; k < res->n_extra; k++) {
        const scrud_extra_die *x = &res->extra[k];
        const scrud_unit_result *r = &res->units[x->side][x->unit];
        jw_object(w);
        jw_kstring(w, "side", plan->side_name[x->side]);
        jw_kstring(w, "unit", plan->unit_name[x->side][x->unit]);
        jw_kint(w, "score", r->score);
        jw_kint(w, "natural", r->natural);
        jw_kstring_or_null(
            w, "defeated",
            x->target >= 0 ? plan->unit_name[1 - x->side][x->target] : NULL);
        jw_kstring(w, "result", x->target >= 0 ? "defeat" : "ignored");
        jw_object_end(w);
    }
    jw_array_end(w);
}

json_t *scrud_json_outcome_json(const scrud_plan *plan, const scrud_result *res)
{
    jw w;

    jw_init(&w);
    jw_object(&w);
    scrud_json_outcome_write(&w, plan, res, NULL);
    jw_object_end(&w);
    return written_json(&w);
}

/* Names made safe inside Markdown (text_md): most need nothing, so they
 * are used as they are and only the others are copied (this is on every
 * combat's path). */
typedef struct md_names {
    const char *side[2];
    const char *unit[2][SCRUD_MAX_UNITS_PER_SIDE];
    char *copies[2 * SCRUD_MAX_UNITS_PER_SIDE + 2]; /* owned */
    int n_copies;
} md_names;

static const char *md_name(md_names *n, const char *s)
{
    char *copy;

    if (text_md_is_plain(s) || (copy = malloc(2 * DB_NAME_MAX)) == NULL)
        return s;
    text_md(copy, 2 * DB_NAME_MAX, s);
    n->copies[n->n_copies++] = copy;
    return copy;
}

char *scrud_json_markdown(const scrud_plan *plan, const scrud_result *res,
                          const char *dice_note)
{
    md_names names, *n = &names;
    text_buf b = {0};
    size_t k;
    int s, u;

    n->n_copies = 0;
    for (s = 0; s < 2; s++) {
        n->side[s] = md_name(n, plan->side_name[s]);
        for (u = 0; u < (int)plan->in.sides[s].n_units; u++)
            n->unit[s][u] = md_name(n, plan->unit_name[s][u]);
    }
    text_printf(&b, "**SCRUD: %s vs %s**\n", n->side[0], n->side[1]);
    for (s = 0; s < 2; s++) {
        text_printf(&b, "%s lined up:", n->side[s]);
        for (k = 0; k < res->n_line_up[s]; k++) {
            u = res->line_up[s][k];
            text_printf(&b, " %s %d", n->unit[s][u], res->units[s][u].score);
        }
        text_printf(&b, "\n");
    }
    for (k = 0; k < res->n_pairs; k++) {
        const scrud_pair *p = &res->pairs[k];
        text_printf(&b, "- %s %d vs %s %d: %s\n", n->unit[0][p->unit[0]],
                    p->score[0], n->unit[1][p->unit[1]], p->score[1],
                    p->winner == SCRUD_TIE     ? "tie"
                    : p->winner == SCRUD_FIRST ? n->unit[0][p->unit[0]]
                                               : n->unit[1][p->unit[1]]);
    }
    for (k = 0; k < res->n_extra; k++) {
        const scrud_extra_die *x = &res->extra[k];
        if (x->target >= 0)
            text_printf(&b, "- extra die %s defeats %s\n",
                        n->unit[x->side][x->unit],
                        n->unit[1 - x->side][x->target]);
    }
    for (s = 0; s < 2; s++) {
        text_printf(&b, "**%s**: %d defeat%s", n->side[s], res->defeats[s],
                    res->defeats[s] == 1 ? "" : "s");
        for (k = 0; k < res->n_eliminated[s]; k++) {
            u = res->eliminated[s][k];
            text_printf(&b, "%s%s eliminated (%s)", k ? ", " : "; ",
                        n->unit[s][u],
                        res->units[s][u].eliminated == SCRUD_ELIM_THRESHOLD
                            ? "below the threshold"
                            : "three defeats");
        }
        text_printf(&b, "\n");
    }
    text_printf(&b, "_Dice: %s._\n", dice_note);
    while (n->n_copies > 0)
        free(n->copies[--n->n_copies]);
    return text_take(&b);
}

char *scrud_json_summary(const scrud_plan *plan, const scrud_result *res)
{
    text_buf b = {0};
    size_t k;
    int s, n_elim = 0;

    text_printf(&b, "%s vs %s: %d and %d defeats", plan->side_name[0],
                plan->side_name[1], res->defeats[0], res->defeats[1]);
    for (s = 0; s < 2; s++)
        for (k = 0; k < res->n_eliminated[s]; k++)
            text_printf(&b, "%s%s", n_elim++ ? ", " : "; eliminated: ",
                        plan->unit_name[s][res->eliminated[s][k]]);
    return text_take(&b);
}
