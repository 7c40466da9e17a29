/*
 * units.c: units of a campaign: creating, reading and listing them,
 * corrections and resupply.  Every change is one writer job that also
 * records the history event (units_doc_event), so a unit's history can
 * never miss a change; history.c reads the events back.  What a resupply
 * does to a unit is the rules' (scrud_unit_resupply, scs_counter_resupply).
 */
#include "units.h"
#include "units_doc.h"
#include "fog.h"
#include "http.h"
#include "jsonv.h"
#include "scrud_json.h"
#include "civ_json.h"
#include "scs_json.h"
#include "matrix.h"
#include "registry.h"
#include "paging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UNITS_PER_CAMPAIGN 10000

/* ---- units ---- */

/* A boolean query filter: -1 absent, 0, 1; false with e set if bad. */
static bool bool_filter(http_request *r, const char *key, int *out, err_info *e)
{
    const char *v = http_query(r, key);

    *out = -1;
    if (v == NULL)
        return true;
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        *out = v[0] == 't';
        return true;
    }
    err_set(e, ERR_INVALID, key, "the %s filter is true or false, not \"%s\"",
            key, v);
    return false;
}

/* The registry's systems for a message, in its order: "scrud, edna, scs,
 * matrix or civ". */
static void system_names(char *buf, size_t size)
{
    size_t i, len = 0;

    buf[0] = '\0';
    for (i = 0; i < registry_n_systems && len < size; i++) {
        const char *sep = i == 0                       ? ""
                          : i + 1 < registry_n_systems ? ", "
                                                       : " or ";
        len += (size_t)snprintf(buf + len, size - len, "%s%s", sep,
                                registry_systems[i]->name);
    }
}

/* The filters of a list of units (?eliminated, ?ineffective, ?system,
 * then ?side: its id in side, which outlives f); false when r was
 * answered. */
static bool read_unit_filter(http_request *r, db_conn *c, db_unit_filter *f,
                             db_side *side, err_info *e)
{
    const char *side_q = http_query(r, "side");

    f->side_id = NULL;
    f->system = http_query(r, "system");
    if (!bool_filter(r, "eliminated", &f->eliminated, e) ||
        !bool_filter(r, "ineffective", &f->ineffective, e))
        return false;
    if (f->system && registry_find(f->system) == NULL) {
        char names[128];
        system_names(names, sizeof names);
        err_set(e, ERR_INVALID, "system", "the system filter is %s, not \"%s\"",
                names, f->system);
        return false;
    }
    if (side_q != NULL && db_side_find(c, r->params[0], side_q, side, e))
        return false;
    f->side_id = side_q ? side->id : NULL;
    return true;
}

/* Keeps f to the one side a fogged viewer may list (fog_units_side): a
 * filter on what it cannot see of other sides' units would tell it. */
static void fog_filter(const fog_view *v, db_unit_filter *f)
{
    fog_level needed = f->system || f->ineffective >= 0 ? FOG_FULL
                       : f->eliminated >= 0             ? FOG_STATUS
                                                        : FOG_NAME;
    const char *side = fog_units_side(v, needed);

    /* Another side asked for lists nothing: "" is no unit's side. */
    if (side != NULL)
        f->side_id = f->side_id && strcmp(f->side_id, side) != 0 ? "" : side;
}

void units_list(http_request *r)
{
    db *d = http_db(r->srv);
    db_unit_filter f;
    db_conn *c = NULL;
    db_side side;
    db_unit *units = NULL;
    size_t n = 0, i;
    paging p;
    fog_view v;
    json_t *items, *u;
    err_info e;

    err_clear(&e);
    memset(&v, 0, sizeof v);
    if (paging_read(r, true, &p, &e)) {
        c = db_read_acquire(d);
        if (fog_view_of(c, r, r->params[0], &v, &e) == ERR_OK &&
            read_unit_filter(r, c, &f, &side, &e)) {
            db_page pg = {p.cursor, p.is_newest_first, p.limit + 1};
            fog_filter(&v, &f);
            paging_db_result(
                db_units_page(c, r->params[0], &f, &pg, &units, &n, &e), &e);
        }
        db_read_release(d, c);
    }
    if (e.code != ERR_OK) {
        fog_view_cleanup(&v);
        http_reply_problem(r, &e);
        return;
    }
    /* One row more than the page tells whether another page follows. */
    items = json_array();
    for (i = 0; i < n && i < (size_t)p.limit; i++)
        if ((u = fog_unit(&v, units_doc_json(&units[i]))) != NULL)
            json_array_append_new(items, u);
    paging_reply(r, &p, NULL, items,
                 n > (size_t)p.limit ? units[p.limit - 1].id : NULL);
    free(units);
    fog_view_cleanup(&v);
}

/* A unit write: create, correct or resupply, with its history event. */
typedef struct unit_write {
    db_unit unit; /* the unit as it is to be */
    char side_ref[DB_NAME_MAX];
    char note[COMBAT_NOTE_MAX + 1];
    bool has_note;
    const char *kind; /* history event kind */
    /* correction: which fields the body set */
    json_t *changes;          /* the PATCH body (a reference) */
    char token_id[DB_ID_MAX]; /* who made the change */
    bool has_edna_start;      /* create: the body gave edna.start */
} unit_write;

static void unit_write_free(void *p)
{
    unit_write *uw = p;

    if (uw)
        json_decref(uw->changes);
    free(uw);
}

static err_code unit_create_job(db_conn *c, void *arg, err_info *e)
{
    unit_write *uw = arg;
    db_side side;
    db_unit existing;
    int n;
    err_code rc;

    rc = db_side_find(c, uw->unit.campaign_id, uw->side_ref, &side, NULL);
    if (rc == ERR_NOT_FOUND)
        return err_set(e, ERR_INVALID, "side",
                       "the campaign has no side \"%s\"", uw->side_ref);
    if (rc != ERR_OK)
        return err_set(e, rc, NULL, "cannot read sides");
    snprintf(uw->unit.side_id, DB_ID_MAX, "%s", side.id);
    snprintf(uw->unit.side_name, DB_NAME_MAX, "%s", side.name);
    if (uw->unit.has_edna && !uw->has_edna_start) {
        db_campaign cmp;
        if ((rc = db_campaign_get(c, uw->unit.campaign_id, &cmp, e)))
            return rc;
        uw->unit.edna_start = cmp.edna_start;
    }
    uw->unit.edna = uw->unit.edna_start;
    if ((rc = db_units_count(c, uw->unit.campaign_id, &n, e)))
        return rc;
    if (n >= MAX_UNITS_PER_CAMPAIGN)
        return err_set(e, ERR_LIMIT, NULL, "a campaign has at most %d units",
                       MAX_UNITS_PER_CAMPAIGN);
    if (db_unit_find(c, uw->unit.campaign_id, uw->unit.name, &existing, NULL) ==
        ERR_OK)
        return err_set(e, ERR_CONFLICT, "name",
                       "the campaign already has a unit \"%s\"", uw->unit.name);
    if ((rc = db_unit_insert(c, &uw->unit, e)))
        return rc;
    return units_doc_event(c, NULL, &uw->unit, "created", NULL, uw->token_id,
                           uw->has_note ? uw->note : NULL, NULL, NULL, e);
}

static void unit_finish(http_request *r, err_code rc, const err_info *e)
{
    unit_write *uw = r->state;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    if (strcmp(uw->kind, "created") == 0) {
        snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/units/%s",
                 uw->unit.campaign_id, uw->unit.id);
        http_reply_json(r, 201, units_doc_json(&uw->unit));
    } else {
        http_reply_json(r, 200, units_doc_json(&uw->unit));
    }
}

static unit_write *unit_write_new(http_request *r, const char *kind)
{
    unit_write *uw = calloc(1, sizeof *uw);

    r->state = uw;
    r->state_free = unit_write_free;
    if (uw == NULL)
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "out of memory");
    else {
        uw->kind = kind;
        snprintf(uw->token_id, DB_ID_MAX, "%s", r->token.id);
    }
    return uw;
}

static err_code parse_scrud_state(const json_t *obj, const char *path,
                                  scrud_unit *u, err_info *e)
{
    static const char *const fields[] = {"quality", "faces", "defeat_penalty",
                                         "fatigue_penalty", NULL};
    const int lim = SCRUD_MODIFIER_LIMIT;
    err_code rc;

    if ((rc = jv_object_only(obj, path, fields, e)) ||
        (rc = jv_int(obj, path, "quality", false, -lim, lim, &u->quality, e)) ||
        (rc = jv_int(obj, path, "faces", false, RNG_FACES_MIN, RNG_FACES_MAX,
                     &u->faces, e)) ||
        (rc = jv_int(obj, path, "defeat_penalty", false, 0, lim,
                     &u->defeat_penalty, e)) ||
        (rc = jv_int(obj, path, "fatigue_penalty", false, 0, lim,
                     &u->fatigue_penalty, e)))
        return rc;
    return ERR_OK;
}

/* A new unit's SCS counter: a unit of two steps or more is printed on two
 * sides, so it needs its reduced side. */
static bool parse_scs_new(const json_t *obj, scs_counter *c, err_info *e)
{
    memset(c, 0, sizeof *c);
    if (scs_json_counter_parse(obj, "scs", false, c, e))
        return false;
    if (c->steps > 1 && !c->has_reduced) {
        err_set(e, ERR_MISSING, "scs.reduced",
                "a unit of %d steps is printed on two sides: give its "
                "reduced side",
                c->steps);
        return false;
    }
    if (c->steps_lost == c->steps) {
        err_set(e, ERR_RANGE, "scs.steps_lost",
                "a new unit has a step left: at most %d of its %d steps lost",
                c->steps - 1, c->steps);
        return false;
    }
    return true;
}

/* A unit's Matrix section: {"quality"} (-3..3, default 0). */
static bool parse_matrix(const json_t *obj, db_unit *u, err_info *e)
{
    static const char *const fields[] = {"quality", NULL};

    return jv_object_only(obj, "matrix", fields, e) == ERR_OK &&
           jv_int(obj, "matrix", "quality", false, -MATRIX_QUALITY_MAX,
                  MATRIX_QUALITY_MAX, &u->matrix_quality, e) == ERR_OK;
}

static bool parse_note(const json_t *body, unit_write *uw, err_info *e)
{
    const char *note = NULL;

    if (jv_string(body, "", "note", false, COMBAT_NOTE_MAX, &note, e))
        return false;
    if (note) {
        snprintf(uw->note, sizeof uw->note, "%s", note);
        uw->has_note = true;
    }
    return true;
}

void units_create(http_request *r)
{
    static const char *const fields[] = {
        "name", "side", "scrud", "edna", "scs", "matrix", "civ", "note", NULL};
    static const char *const edna_fields[] = {"start", NULL};
    json_t *body = http_body_object(r), *scrud = NULL, *edna = NULL,
           *scs = NULL, *matrix = NULL, *civ = NULL;
    const char *name = NULL, *side = NULL;
    unit_write *uw;
    bool is_none;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    if ((uw = unit_write_new(r, "created")) == NULL) {
        json_decref(body);
        return;
    }
    scrud_unit_default(&uw->unit.scrud);
    if (jv_object_only(body, "", fields, &e) ||
        jv_string(body, "", "name", true, 64, &name, &e) ||
        jv_string(body, "", "side", true, 64, &side, &e) ||
        jv_object(body, "", "scrud", false, &scrud, &e) ||
        (scrud && parse_scrud_state(scrud, "scrud", &uw->unit.scrud, &e)) ||
        jv_object(body, "", "edna", false, &edna, &e) ||
        (edna && (jv_object_only(edna, "edna", edna_fields, &e) ||
                  jv_int(edna, "edna", "start", false, 1, EDNA_MAX,
                         &uw->unit.edna_start, &e))) ||
        jv_object(body, "", "scs", false, &scs, &e) ||
        (scs && !parse_scs_new(scs, &uw->unit.scs, &e)) ||
        jv_object(body, "", "matrix", false, &matrix, &e) ||
        (matrix && !parse_matrix(matrix, &uw->unit, &e)) ||
        jv_object(body, "", "civ", false, &civ, &e) ||
        (civ && civ_json_parse_unit(civ, "civ", false, &uw->unit.civ, &e)) ||
        !parse_note(body, uw, &e)) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    /* The systems named carry the unit; naming none, it carries SCRUD,
     * EDNA and Matrix (SCS needs the counter's printed values). */
    is_none = !scrud && !edna && !scs && !matrix && !civ;
    uw->unit.has_scrud = scrud != NULL || is_none;
    uw->unit.has_edna = edna != NULL || is_none;
    uw->unit.has_scs = scs != NULL;
    uw->unit.has_matrix = matrix != NULL || is_none;
    uw->unit.has_civ = civ != NULL;
    uw->has_edna_start = edna && json_object_get(edna, "start");
    db_new_id("unit", uw->unit.id);
    snprintf(uw->unit.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(uw->unit.name, DB_NAME_MAX, "%s", name);
    snprintf(uw->side_ref, DB_NAME_MAX, "%s", side);
    db_now(uw->unit.created_at);
    json_decref(body);
    http_defer_write(r, unit_create_job, unit_finish);
}

void units_get(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    db_unit u;
    fog_view v;
    json_t *doc = NULL;
    err_info e;
    err_code rc;

    err_clear(&e);
    if ((rc = fog_view_of(c, r, r->params[0], &v, &e)) == ERR_OK)
        rc = db_unit_find(c, r->params[0], r->params[1], &u, &e);
    db_read_release(d, c);
    /* A unit the caller may not see is as absent as one that is not. */
    if (rc == ERR_OK && (doc = fog_unit(&v, units_doc_json(&u))) == NULL)
        rc = fog_unit_not_found(&e, r->params[1]);
    fog_view_cleanup(&v);
    if (rc != ERR_OK)
        http_reply_problem(r, &e);
    else
        http_reply_json(r, 200, doc);
}

/* Loads the unit named in the path into uw->unit; keeps a copy before. */
static err_code load_unit(db_conn *c, unit_write *uw, db_unit *before,
                          err_info *e)
{
    err_code rc = db_unit_find(c, uw->unit.campaign_id, uw->unit.id, before, e);

    if (rc == ERR_OK)
        uw->unit = *before;
    return rc;
}

static err_code unit_patch_job(db_conn *c, void *arg, err_info *e)
{
    unit_write *uw = arg;
    db_unit before, other;
    json_t *scrud = json_object_get(uw->changes, "scrud");
    json_t *edna = json_object_get(uw->changes, "edna");
    json_t *scs = json_object_get(uw->changes, "scs");
    json_t *matrix = json_object_get(uw->changes, "matrix");
    json_t *civ = json_object_get(uw->changes, "civ");
    const char *name = json_string_value(json_object_get(uw->changes, "name"));
    json_t *elim = json_object_get(uw->changes, "eliminated");
    err_code rc;

    if ((rc = load_unit(c, uw, &before, e)))
        return rc;
    if (name && strcmp(name, before.name) != 0) {
        if (db_unit_find(c, before.campaign_id, name, &other, NULL) == ERR_OK)
            return err_set(e, ERR_CONFLICT, "name",
                           "the campaign already has a unit \"%s\"", name);
        snprintf(uw->unit.name, DB_NAME_MAX, "%s", name);
    }
    if (scrud && !before.has_scrud)
        return err_set(e, ERR_RULE, "scrud", "the unit does not carry SCRUD");
    if (edna && !before.has_edna)
        return err_set(e, ERR_RULE, "edna", "the unit does not carry EDNA");
    if (scs && !before.has_scs)
        return err_set(e, ERR_RULE, "scs", "the unit does not carry SCS");
    if (matrix && !before.has_matrix)
        return err_set(e, ERR_RULE, "matrix",
                       "the unit does not fight Matrix battles");
    if (matrix && !parse_matrix(matrix, &uw->unit, e))
        return e->code;
    if (civ && !before.has_civ)
        return err_set(e, ERR_RULE, "civ",
                       "the unit is not a Civilization piece");
    if (civ && (rc = civ_json_parse_unit(civ, "civ", true, &uw->unit.civ, e)))
        return rc;
    if (civ && uw->unit.civ.cls != CIV_AIRCRAFT)
        uw->unit.civ.dice_multiplier = 1;
    if (scs &&
        (rc = scs_json_counter_parse(scs, "scs", true, &uw->unit.scs, e)))
        return rc;
    if (scs && uw->unit.scs.steps > 1 && !uw->unit.scs.has_reduced)
        return err_set(e, ERR_MISSING, "scs.reduced",
                       "a unit of %d steps is printed on two sides: give its "
                       "reduced side",
                       uw->unit.scs.steps);
    if (scrud && (rc = parse_scrud_state(scrud, "scrud", &uw->unit.scrud, e)))
        return rc;
    if (edna && ((rc = jv_int(edna, "edna", "start", false, 1, EDNA_MAX,
                              &uw->unit.edna_start, e)) ||
                 (rc = jv_int(edna, "edna", "edna", false, 0, EDNA_MAX,
                              &uw->unit.edna, e))))
        return rc;
    /* EDNA stays at most its start: a correction that raises EDNA past it
     * raises the start too, unless it sets a lower start itself. */
    if (edna && uw->unit.edna > uw->unit.edna_start) {
        if (json_object_get(edna, "start") != NULL)
            return err_set(e, ERR_RANGE, "edna.edna",
                           "EDNA is at most its start %d, not %d",
                           uw->unit.edna_start, uw->unit.edna);
        uw->unit.edna_start = uw->unit.edna;
    }
    /* A unit with no step left is out of play: a correction that takes
     * every step eliminates it, and one that returns it to play gives a
     * step back. */
    if (before.has_scs && elim && !json_is_true(elim) &&
        uw->unit.scs.steps_lost >= uw->unit.scs.steps)
        return err_set(e, ERR_RULE, "eliminated",
                       "the unit has lost all its %d steps: give steps back "
                       "(scs.steps_lost) to return it to play",
                       uw->unit.scs.steps);
    if (scs && uw->unit.scs.steps_lost == uw->unit.scs.steps &&
        !uw->unit.is_eliminated && !elim)
        elim = json_true();
    if (elim) {
        uw->unit.is_eliminated = json_is_true(elim);
        snprintf(uw->unit.eliminated_reason, DB_REASON_MAX, "%s",
                 uw->unit.is_eliminated ? "correction" : "");
        uw->unit.eliminated_by[0] = '\0';
    }
    uw->unit.scrud.is_eliminated = uw->unit.is_eliminated;
    if ((rc = db_unit_update(c, &uw->unit, e)))
        return rc;
    return units_doc_event(c, &before, &uw->unit, "correction", NULL,
                           uw->token_id, uw->has_note ? uw->note : NULL, NULL,
                           NULL, e);
}

void units_patch(http_request *r)
{
    static const char *const fields[] = {"name", "eliminated", "scrud",
                                         "edna", "scs",        "matrix",
                                         "civ",  "note",       NULL};
    static const char *const edna_fields[] = {"edna", "start", NULL};
    json_t *body = http_body_object(r), *scrud = NULL, *edna = NULL,
           *scs = NULL, *matrix = NULL, *civ = NULL;
    db_unit probe_unit;
    int probe_edna = 0;
    const char *name = NULL;
    bool elim = false;
    scrud_unit probe;
    unit_write *uw;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    if ((uw = unit_write_new(r, "correction")) == NULL) {
        json_decref(body);
        return;
    }
    scrud_unit_default(&probe);
    /* Validate everything here; the job applies it to the stored unit. */
    if (jv_object_only(body, "", fields, &e) ||
        jv_string(body, "", "name", false, 64, &name, &e) ||
        jv_bool(body, "", "eliminated", false, &elim, &e) ||
        jv_object(body, "", "scrud", false, &scrud, &e) ||
        (scrud && parse_scrud_state(scrud, "scrud", &probe, &e)) ||
        jv_object(body, "", "edna", false, &edna, &e) ||
        (edna &&
         (jv_object_only(edna, "edna", edna_fields, &e) ||
          jv_int(edna, "edna", "start", false, 1, EDNA_MAX, &probe_edna, &e) ||
          jv_int(edna, "edna", "edna", false, 0, EDNA_MAX, &probe_edna, &e))) ||
        jv_object(body, "", "scs", false, &scs, &e) ||
        jv_object(body, "", "matrix", false, &matrix, &e) ||
        (matrix && !parse_matrix(matrix, &probe_unit, &e)) ||
        jv_object(body, "", "civ", false, &civ, &e) ||
        !parse_note(body, uw, &e)) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    if (!name && !json_object_get(body, "eliminated") &&
        (!scrud || json_object_size(scrud) == 0) &&
        (!edna || json_object_size(edna) == 0) &&
        (!scs || json_object_size(scs) == 0) &&
        (!matrix || json_object_size(matrix) == 0) &&
        (!civ || json_object_size(civ) == 0)) {
        json_decref(body);
        err_set(&e, ERR_MISSING, NULL,
                "a correction changes at least one of name, eliminated, "
                "scrud, edna, scs, matrix, civ");
        http_reply_problem(r, &e);
        return;
    }
    uw->changes = body;
    snprintf(uw->unit.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(uw->unit.id, DB_ID_MAX, "%s", r->params[1]);
    http_defer_write(r, unit_patch_job, unit_finish);
}

static err_code unit_resupply_job(db_conn *c, void *arg, err_info *e)
{
    unit_write *uw = arg;
    db_unit before;
    err_code rc;

    if ((rc = load_unit(c, uw, &before, e)))
        return rc;
    if (!before.has_scrud && !before.has_scs)
        return err_set(e, ERR_RULE, NULL,
                       "the unit %s carries neither SCRUD nor SCS: it has no "
                       "fatigue or supply to restore",
                       before.name);
    if (before.is_eliminated)
        return err_set(e, ERR_RULE, NULL,
                       "the unit %s is eliminated and cannot be resupplied",
                       before.name);
    /* Each system the unit carries says what resupply restores. */
    if (uw->unit.has_scrud)
        scrud_unit_resupply(&uw->unit.scrud);
    if (uw->unit.has_scs)
        scs_counter_resupply(&uw->unit.scs);
    if ((rc = db_unit_update(c, &uw->unit, e)))
        return rc;
    return units_doc_event(c, &before, &uw->unit, "resupply", NULL,
                           uw->token_id, uw->has_note ? uw->note : NULL, NULL,
                           NULL, e);
}

void units_resupply(http_request *r)
{
    static const char *const fields[] = {"note", NULL};
    json_t *body = NULL;
    unit_write *uw;
    err_info e;

    err_clear(&e);
    if ((uw = unit_write_new(r, "resupply")) == NULL)
        return;
    if (r->body_len > 0) {
        if ((body = http_body_object(r)) == NULL)
            return;
        if (jv_object_only(body, "", fields, &e) || !parse_note(body, uw, &e)) {
            json_decref(body);
            http_reply_problem(r, &e);
            return;
        }
        json_decref(body);
    }
    snprintf(uw->unit.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(uw->unit.id, DB_ID_MAX, "%s", r->params[1]);
    http_defer_write(r, unit_resupply_job, unit_finish);
}
