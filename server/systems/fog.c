/*
 * fog.c: fog of war; see fog.h.  Who is looking (a fog_view, read from one
 * snapshot), the campaign option, and the reductions of what every system
 * shares: units, history events, a report's frame (its roll log and
 * Markdown summary) and the campaign report.  A report's own part is its
 * system's fog stage (systems.h), built on fog_entries and fog_scrub.
 *
 * Invariant: a viewer that is not on (the umpire, fog off, or "others"
 * "full") gets every document back untouched, so the umpire's answers
 * are byte for byte what they were before fog existed.
 */
#include "fog.h"

#include "report.h"
#include "systems.h"
#include "jsonv.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

static const char *const level_names[] = {"full", "status", "name", "hidden",
                                          NULL};

const char *fog_level_name(fog_level l)
{
    return level_names[l];
}

/* The level called name; FOG_STATUS (the default) for any other. */
static fog_level level_of(const char *name)
{
    int i;

    for (i = 0; level_names[i]; i++)
        if (strcmp(name, level_names[i]) == 0)
            return (fog_level)i;
    return FOG_STATUS;
}

/* ---- the campaign option ---- */

void fog_options_default(db_fog *f)
{
    f->is_enabled = false;
    text_copy(f->others, sizeof f->others, "status");
}

err_code fog_options_read(const json_t *obj, const char *path, db_fog *f,
                          err_info *e)
{
    static const char *const fields[] = {"enabled", "others", NULL};
    err_code rc;
    int others = -1;

    if ((rc = jv_object_only(obj, path, fields, e)) ||
        (rc = jv_bool(obj, path, "enabled", false, &f->is_enabled, e)) ||
        (rc = jv_enum(obj, path, "others", false, level_names, &others, e)))
        return rc;
    if (others >= 0)
        text_copy(f->others, sizeof f->others, level_names[others]);
    return ERR_OK;
}

json_t *fog_options_json(const db_fog *f)
{
    return json_pack("{s:b, s:s}", "enabled", f->is_enabled, "others",
                     f->others[0] ? f->others : "status");
}

/* ---- who is looking ---- */

static int unit_ref_cmp(const void *a, const void *b)
{
    return strcmp(((const db_unit_ref *)a)->id, ((const db_unit_ref *)b)->id);
}

err_code fog_view_load(db_conn *c, const db_campaign *cmp, bool is_umpire,
                       const char *side_id, fog_view *out, err_info *e)
{
    err_code rc;

    memset(out, 0, sizeof *out);
    text_copy(out->campaign_id, sizeof out->campaign_id, cmp->id);
    out->others = level_of(cmp->fog.others);
    if (is_umpire || !cmp->fog.is_enabled || out->others == FOG_FULL)
        return ERR_OK;
    out->is_on = true;
    text_copy(out->side_id, sizeof out->side_id, side_id ? side_id : "");
    if ((rc = db_sides_list(c, cmp->id, &out->sides, &out->n_sides, e)) ||
        (rc = db_unit_refs(c, cmp->id, &out->units, &out->n_units, e)))
        return rc;
    /* Looked up by id for every unit a document mentions. */
    qsort(out->units, out->n_units, sizeof *out->units, unit_ref_cmp);
    return ERR_OK;
}

err_code fog_view_of(db_conn *c, const http_request *r, const char *campaign_id,
                     fog_view *out, err_info *e)
{
    db_campaign cmp;
    err_code rc;

    memset(out, 0, sizeof *out);
    if (r->has_token && r->token.is_umpire)
        return ERR_OK;
    if ((rc = db_campaign_get(c, campaign_id, &cmp, e)))
        return rc;
    return fog_view_load(c, &cmp, false, r->has_token ? r->token.side_id : NULL,
                         out, e);
}

void fog_view_cleanup(fog_view *v)
{
    if (v == NULL)
        return;
    free(v->sides);
    free(v->units);
    memset(v, 0, sizeof *v);
}

fog_level fog_of_side(const fog_view *v, const char *side_id)
{
    if (!v->is_on)
        return FOG_FULL;
    if (side_id && v->side_id[0] && strcmp(side_id, v->side_id) == 0)
        return FOG_FULL;
    return v->others;
}

fog_level fog_of_side_name(const fog_view *v, const char *side_name)
{
    size_t i;

    if (!v->is_on)
        return FOG_FULL;
    for (i = 0; side_name && i < v->n_sides; i++)
        if (strcmp(v->sides[i].name, side_name) == 0)
            return fog_of_side(v, v->sides[i].id);
    return v->others;
}

const char *fog_unit_side(const fog_view *v, const char *unit_id)
{
    db_unit_ref key;
    const db_unit_ref *u;

    if (!v->is_on || unit_id == NULL)
        return NULL;
    text_copy(key.id, sizeof key.id, unit_id);
    u = bsearch(&key, v->units, v->n_units, sizeof *v->units, unit_ref_cmp);
    return u ? u->side_id : NULL;
}

fog_level fog_of_unit(const fog_view *v, const char *unit_id)
{
    return fog_of_side(v, fog_unit_side(v, unit_id));
}

bool fog_unit_visible(const fog_view *v, const char *side_id)
{
    return fog_of_side(v, side_id) != FOG_HIDDEN;
}

const char *fog_units_side(const fog_view *v, fog_level needed)
{
    return v->is_on && v->others > needed ? v->side_id : NULL;
}

/* ---- units and their history ---- */

/* The members a reduced entry keeps: what names and places a unit, and at
 * "status" whether it is eliminated and why. */
static const char *const keep_name[] = {"id",   "unit",    "unit_id", "name",
                                        "side", "side_id", "role",    NULL};
static const char *const keep_status[] = {"eliminated", "eliminated_reason",
                                          NULL};

static bool is_listed(const char *key, const char *const list[])
{
    size_t i;

    for (i = 0; list[i]; i++)
        if (strcmp(key, list[i]) == 0)
            return true;
    return false;
}

/* Drops from obj what level (FOG_STATUS or FOG_NAME) does not show. */
static void keep_only(json_t *obj, fog_level level)
{
    const char *key;
    json_t *val;
    void *tmp;

    json_object_foreach_safe(obj, tmp, key, val)
    {
        if (!is_listed(key, keep_name) &&
            !(level == FOG_STATUS && is_listed(key, keep_status)))
            json_object_del(obj, key);
    }
}

/* obj reduced to level and marked so; obj is returned. */
static json_t *reduce(json_t *obj, fog_level level)
{
    keep_only(obj, level);
    json_object_set_new(obj, "fog", json_string(fog_level_name(level)));
    return obj;
}

err_code fog_unit_not_found(err_info *e, const char *ref)
{
    return err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no unit \"%s\"",
                   ref);
}

json_t *fog_unit(const fog_view *v, json_t *unit)
{
    const char *side =
        json_string_value(json_object_get(json_object_get(unit, "side"), "id"));
    fog_level level = fog_of_side(v, side);

    if (unit == NULL || level == FOG_FULL)
        return unit;
    if (level == FOG_HIDDEN) {
        json_decref(unit);
        return NULL;
    }
    return reduce(unit, level);
}

json_t *fog_event(const fog_view *v, json_t *event, const char *side_id)
{
    static const char *const kept[] = {"seq",    "unit_seq", "unit_id",
                                       "at",     "kind",     "combat_id",
                                       "before", "after",    NULL};
    fog_level level = fog_of_side(v, side_id);
    const char *key;
    json_t *val;
    void *tmp;

    if (event == NULL || level == FOG_FULL)
        return event;
    if (level == FOG_HIDDEN) {
        json_decref(event);
        return NULL;
    }
    json_object_foreach_safe(event, tmp, key, val)
    {
        if (!is_listed(key, kept))
            json_object_del(event, key);
        else if (json_is_object(val))
            keep_only(val, level); /* the states before and after */
    }
    json_object_set_new(event, "fog", json_string(fog_level_name(level)));
    return event;
}

/* ---- for the systems' fog stages ---- */

/* Adds the string member key of entry, if any, to p->hidden. */
static void hide_member(fog_pass *p, const json_t *entry, const char *key)
{
    const char *s = json_string_value(json_object_get(entry, key));

    if (s && *s)
        json_object_set_new(p->hidden, s, json_true());
}

bool fog_entry(fog_pass *p, json_t *entry, fog_level level)
{
    if (level == FOG_FULL || !json_is_object(entry))
        return true;
    p->n_reduced++;
    if (level == FOG_HIDDEN) {
        hide_member(p, entry, "unit");
        hide_member(p, entry, "name");
        hide_member(p, entry, "unit_id");
        return false;
    }
    reduce(entry, level);
    return true;
}

/* The level of an entry that names its own side or unit. */
static fog_level entry_level(const fog_view *v, const json_t *entry)
{
    const json_t *side = json_object_get(entry, "side");

    if (json_is_string(json_object_get(entry, "side_id")))
        return fog_of_side(
            v, json_string_value(json_object_get(entry, "side_id")));
    if (json_is_string(side))
        return fog_of_side_name(v, json_string_value(side));
    return fog_of_unit(v, json_string_value(json_object_get(entry, "unit_id")));
}

void fog_entries(fog_pass *p, json_t *arr, fog_level *levels)
{
    size_t i, k = 0, n = json_array_size(arr);

    for (i = 0; i < n; i++) {
        json_t *entry = json_array_get(arr, k);
        fog_level level = entry_level(p->v, entry);
        if (levels)
            levels[i] = level;
        if (fog_entry(p, entry, level))
            k++;
        else
            json_array_remove(arr, k);
    }
}

void fog_entries_at(fog_pass *p, json_t *arr, fog_level level)
{
    size_t k = 0;

    while (k < json_array_size(arr))
        if (fog_entry(p, json_array_get(arr, k), level))
            k++;
        else
            json_array_remove(arr, k);
}

void fog_armies(fog_pass *p, json_t *setup)
{
    static const char *const armies[] = {"attacker", "defender"};
    size_t a;

    for (a = 0; a < 2; a++) {
        json_t *army = json_object_get(setup, armies[a]);
        const char *id = json_string_value(json_object_get(army, "side_id"));
        fog_entries_at(
            p, json_object_get(army, "units"),
            id ? fog_of_side(p->v, id)
               : fog_of_side_name(
                     p->v, json_string_value(json_object_get(army, "name"))));
    }
}

static bool is_hidden(const fog_pass *p, const json_t *s)
{
    return json_is_string(s) &&
           json_object_get(p->hidden, json_string_value(s)) != NULL;
}

/* The members whose value names a unit, and those that map units to
 * values (fog.h, fog_scrub). */
static const char *const naming[] = {"unit",   "unit_id",  "name", "first",
                                     "second", "defeated", NULL};
static const char *const unit_maps[] = {"dice", "unit_results", NULL};

static void scrub(fog_pass *p, json_t *t, bool is_unit_map)
{
    const char *key;
    json_t *val;
    void *tmp;
    size_t i;

    if (json_is_array(t)) {
        json_array_foreach(t, i, val)
        {
            if (is_hidden(p, val))
                json_array_set_new(t, i, json_null());
            else
                scrub(p, val, false);
        }
        return;
    }
    json_object_foreach_safe(t, tmp, key, val)
    {
        if (is_unit_map && json_object_get(p->hidden, key))
            json_object_del(t, key);
        else if (is_listed(key, naming) && is_hidden(p, val))
            json_object_set_new(t, key, json_null());
        else
            scrub(p, val, is_listed(key, unit_maps));
    }
}

void fog_scrub(fog_pass *p, json_t *tree)
{
    if (json_object_size(p->hidden) > 0 && tree)
        scrub(p, tree, false);
}

/* ---- reports ---- */

/* Whether doc is an interactive battle (its id's prefix, battle.c) rather
 * than a combat report. */
static bool is_battle(const json_t *doc)
{
    const char *id = json_string_value(json_object_get(doc, "id"));

    return id && strncmp(id, "bat_", 4) == 0;
}

/* What a document read through fog says of it: {"side_id", "others"}. */
static json_t *marker(const fog_view *v)
{
    return json_pack("{s:o, s:s}", "side_id",
                     v->side_id[0] ? json_string(v->side_id) : json_null(),
                     "others", fog_level_name(v->others));
}

json_t *fog_report(const fog_view *v, json_t *doc)
{
    const systems_entry *s;
    fog_pass p = {v, NULL, 0};
    char *md;

    if (doc == NULL || !v->is_on)
        return doc;
    if ((p.hidden = json_object()) == NULL) {
        json_decref(doc);
        return NULL;
    }
    s = systems_find(json_string_value(json_object_get(doc, "system")));
    if (s && s->fog)
        s->fog(&p, doc);
    /* The roll log names every unit that rolled. */
    fog_scrub(&p, json_object_get(doc, "rolls"));
    json_decref(p.hidden);
    if (p.n_reduced > 0 && !is_battle(doc) &&
        json_object_get(doc, "summary_markdown")) {
        /* The stored summary tells what was just taken out. */
        json_object_del(doc, "summary_markdown");
        md = report_combat(doc, REPORT_MARKDOWN);
        json_object_set_new(doc, "summary_markdown",
                            md ? json_string(md) : json_null());
        free(md);
    }
    json_object_set_new(doc, "fog", marker(v));
    return doc;
}

char *fog_summary(const fog_view *v, const char *system, const char *summary)
{
    const systems_entry *s = systems_find(system);

    if (v->is_on && s && s->fog_summary)
        return s->fog_summary(v, summary ? summary : "");
    return strdup(summary ? summary : "");
}

json_t *fog_campaign_report(const fog_view *v, json_t *report)
{
    json_t *units = json_object_get(report, "units"), *cbs, *cb;
    size_t i, k = 0, n = json_array_size(units);

    if (report == NULL || !v->is_on)
        return report;
    for (i = 0; i < n; i++) {
        json_t *u = fog_unit(v, json_incref(json_array_get(units, k)));
        if (u == NULL) {
            json_array_remove(units, k);
            continue;
        }
        json_decref(u); /* reduced in place: the array holds it */
        k++;
    }
    cbs = json_object_get(report, "combats");
    json_array_foreach(cbs, i, cb)
    {
        char *line =
            fog_summary(v, json_string_value(json_object_get(cb, "system")),
                        json_string_value(json_object_get(cb, "summary")));
        json_object_set_new(cb, "summary", json_string(line ? line : ""));
        free(line);
    }
    json_object_set_new(report, "fog", marker(v));
    return report;
}
