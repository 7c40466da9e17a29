/*
 * civ_campaign.c: Civilization battles in a campaign (docs/rules/civ.md),
 * fought one phase per request: created with the seed's commitment
 * shown, each phase logged with its orders and dice, finished when an
 * army is gone (destroyed units leave play) or abandoned.  Its handlers
 * are the battle routes of resources/battles.c for battles of system
 * "civ" (systems.h).  One-off battles and replay are in civ_stages.c.
 */
#include "jsonb.h"
#include "http.h"
#include "civ_report.h"
#include "systems.h"
#include "battle.h"
#include "civ_campaign.h"
#include "civ_json.h"
#include "combat.h"
#include "jsonv.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

/* ---- campaign battles ---- */

static civ_job *job_for(http_request *r, err_info *e)
{
    civ_job *j = civ_job_new(CIV_JSON_MAX_PHASES);

    r->state = j;
    r->state_free = civ_job_free;
    if (j == NULL)
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    return j;
}

/* Sides and units for the armies: Civilization pieces in play, of the
 * army's side, once each, in no other open battle. */
static err_code bind(db_conn *c, civ_job *j, err_info *e)
{
    char f[JV_PATH_MAX], other[DB_ID_MAX];
    db_side side;
    db_unit u;
    int a, i, b, k;
    err_code rc;

    for (a = 0; a < 2; a++) {
        snprintf(f, sizeof f, "%s.side", civ_json_army_key[a]);
        if ((rc = battle_find_side(c, j->rec.campaign_id, j->army_ref[a],
                                   a == 1 ? j->side_id[0] : "", f, &side, e)))
            return rc;
        text_copy(j->side_id[a], DB_ID_MAX, side.id);
        text_copy(j->army_name[a], DB_NAME_MAX, side.name);
        for (i = 0; i < j->setup.armies[a].n_units; i++) {
            snprintf(f, sizeof f, "%s.units[%d]", civ_json_army_key[a], i);
            if ((rc = battle_find_unit(c, j->rec.campaign_id, j->unit_ref[a][i],
                                       &side, civ_json_army_key[a], f, &u, e)))
                return rc;
            if (!u.has_civ)
                return err_set(e, ERR_RULE, f,
                               "the unit %s is not a Civilization piece",
                               u.name);
            for (b = 0; b <= a; b++)
                for (k = 0; k < (b < a ? j->setup.armies[b].n_units : i); k++)
                    if (strcmp(j->unit_id[b][k], u.id) == 0)
                        return err_set(e, ERR_INVALID, f,
                                       "the unit %s is already in this battle",
                                       u.name);
            if ((rc = battle_engaged(c, j->rec.campaign_id, u.id, other, e)))
                return rc;
            if (other[0])
                return err_set(e, ERR_RULE, f,
                               "the unit %s is in the battle %s, still open: "
                               "a unit fights one battle at a time",
                               u.name, other);
            text_copy(j->unit_id[a][i], DB_ID_MAX, u.id);
            text_copy(j->unit_name[a][i], DB_NAME_MAX, u.name);
            j->setup.armies[a].units[i] = u.civ;
        }
    }
    return civ_check_setup(&j->setup, e);
}

static err_code create_job(db_conn *c, void *arg, err_info *e)
{
    civ_job *j = arg;
    db_battle *b = &j->row;
    json_t *setup;
    err_code rc;

    if ((rc = bind(c, j, e)) ||
        (rc = battle_row_new(c, b, &j->rec, "civ", j->turn, e)))
        return rc;
    setup = civ_json_setup_json(j);
    b->setup = json_dumps(setup, JSON_COMPACT);
    json_decref(setup);
    if (b->setup == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    return db_battle_insert(c, b, e);
}

/* Loads the stored battle into j: setup, phases rebuilt from their orders
 * and logged dice; src (caller's) is left holding that log. */
err_code civ_campaign_load(db_conn *c, const char *campaign_id, const char *id,
                           civ_job *j, dice_source *src, err_info *e)
{
    db_battle_action *acts = NULL;
    size_t n = 0, i, k;
    int n_values = 0, n_phases = 0;
    civ_orders(*orders)[2] = NULL;
    json_t *setup;
    err_info why;
    err_code rc;

    dice_init_values(src, DICE_REPLAY, j->entered, 0);
    rc = db_battle_get(c, campaign_id, id, &j->row, NULL);
    if (rc == ERR_NOT_FOUND)
        return err_set(e, rc, NULL, "the campaign has no battle %s", id);
    if (rc != ERR_OK)
        return err_set(e, rc, NULL, "cannot read the battle");
    j->turn = j->row.turn;
    setup = json_loads(j->row.setup, 0, NULL);
    err_clear(&why);
    if (setup == NULL || civ_json_parse_setup(setup, false, true, j, &why)) {
        json_decref(setup);
        return err_set(e, ERR_DB, NULL, "the stored battle cannot be read");
    }
    json_decref(setup);
    if ((rc = db_battle_actions_list(c, j->row.id, &acts, &n, e)))
        return rc;
    orders = calloc(n ? n : 1, sizeof *orders);
    for (i = 0; i < n && orders && rc == ERR_OK; i++) {
        json_t *nat = json_loads(acts[i].naturals, 0, NULL);
        json_t *det =
            acts[i].detail ? json_loads(acts[i].detail, 0, NULL) : NULL;
        if (strcmp(acts[i].kind, "phase") == 0) {
            if (det == NULL ||
                civ_json_parse_orders(det, "", j, orders[n_phases], &why))
                rc = err_set(e, ERR_DB, NULL, "a stored phase cannot be read");
            else
                n_phases++;
            for (k = 0; rc == ERR_OK && k < json_array_size(nat); k++)
                j->entered[n_values++] =
                    (int)json_integer_value(json_array_get(nat, k));
        }
        json_decref(nat);
        json_decref(det);
    }
    db_battle_actions_free(acts, n);
    if (orders == NULL)
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (rc == ERR_OK) {
        dice_init_values(src, DICE_REPLAY, j->entered, (size_t)n_values);
        if (civ_json_rebuild(j, (const civ_orders(*)[2])orders, n_phases, src,
                             &why))
            rc = err_set(e, ERR_DB, NULL,
                         "the battle's stored phases do not replay: %s",
                         why.message);
    }
    free(orders);
    return rc;
}

/* The battle as served: its row, setup, phases and state. */
static json_t *battle_json(const civ_job *j, const dice_source *src)
{
    const db_battle *b = &j->row;
    int n0 = civ_regulars(&j->battle, 0), n1 = civ_regulars(&j->battle, 1);
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:o, s:i, s:o}", "id", b->id,
        "campaign_id", b->campaign_id, "system", b->system, "status", b->status,
        "turn", b->turn, "created_at", b->created_at, "updated_at",
        b->updated_at, "note", jsonb_str_or_null(b->note), "n_actions",
        b->n_actions, "combat_id", jsonb_str_or_null(b->combat_id));

    json_object_set_new(o, "dice", battle_dice_json(b));
    json_object_set_new(o, "setup", civ_json_setup_json(j));
    civ_json_outcome_json(j, src, o);
    /* Who picks the next wave, and its size. */
    json_object_set_new(
        o, "next_wave",
        civ_is_over(&j->battle)
            ? json_null()
            : json_pack("{s:o, s:i}", "picked_by",
                        n0 == n1
                            ? json_null()
                            : json_string(civ_json_army_key[n0 > n1 ? 0 : 1]),
                        "size", n0 < n1 ? n0 : n1));
    return o;
}

static void create_finish(http_request *r, err_code rc, const err_info *e)
{
    civ_job *j = r->state;
    dice_source src;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    dice_init_values(&src, DICE_REPLAY, j->entered, 0);
    civ_battle_init(&j->battle, &j->setup, NULL);
    snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/battles/%s",
             j->row.campaign_id, j->row.id);
    http_reply_json(r, 201, battle_json(j, &src));
    r->render = HTTP_RENDER_BATTLE;
    dice_cleanup(&src);
}

static void create(http_request *r, json_t *body)
{
    static const char *const fields[] = {
        "system",   "turn",     "current_era", "settlement", "great_wall",
        "attacker", "defender", "dice",        "note",       NULL};
    civ_job *j;
    err_info e;

    err_clear(&e);
    if ((j = job_for(r, &e)) == NULL || jv_object_only(body, "", fields, &e) ||
        jv_int(body, "", "turn", true, 1, 1000000, &j->turn, &e) ||
        combat_parse_record(body, &j->rec, &e) ||
        civ_json_parse_setup(body, true, false, j, &e)) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    text_copy(j->rec.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(j->rec.token_id, DB_ID_MAX, r->token.id);
    json_decref(body);
    http_defer_write(r, create_job, create_finish);
}

static void get(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    dice_source src;
    civ_job *j;
    err_info e;
    err_code rc, end_rc;

    err_clear(&e);
    if ((j = job_for(r, &e)) == NULL) {
        http_reply_problem(r, &e);
        return;
    }
    if (db_read_begin(d, &c, &e) != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    /* The battle and its actions from one snapshot, ended in every case;
     * the first error stays in e. */
    rc = civ_campaign_load(c, r->params[0], r->params[1], j, &src, &e);
    end_rc = db_read_end(d, c, &e);
    if (rc == ERR_OK)
        rc = end_rc;
    if (rc == ERR_OK) {
        http_reply_json(r, 200, battle_json(j, &src));
        r->render = HTTP_RENDER_BATTLE;
    } else {
        http_reply_problem(r, &e);
    }
    dice_cleanup(&src);
}

/* The record of a battle that ended: its combat, destroyed units out of
 * play, an event for every unit that fought. */
static err_code finish(db_conn *c, civ_job *j, const dice_source *src,
                       err_info *e)
{
    db_battle *b = &j->row;
    bool fought[2][CIV_MAX_UNITS] = {{false}};
    json_t *input, *phases;
    int a, u, i, k;
    err_code rc;

    battle_record_dice(&j->rec, b);
    input = json_pack("{s:o}", "setup", civ_json_setup_json(j));
    phases = json_array();
    for (i = 0; i < j->n_phases; i++)
        json_array_append_new(phases, civ_json_orders_json(j, j->orders[i]));
    json_object_set_new(input, "phases", phases);
    if ((rc = civ_json_record(j, src, b->id, input, e)) ||
        (rc = db_combat_insert(c, &j->rec.cb, j->rec.rolls, j->rec.n_rolls, e)))
        return rc;
    text_copy(b->combat_id, DB_ID_MAX, j->rec.cb.id);
    text_copy(b->status, sizeof b->status, "finished");
    for (i = 0; i < j->n_phases; i++)
        for (a = 0; a < 2; a++) {
            const civ_army_phase *p = &j->phases[i].armies[a];
            for (k = 0; k < p->n_wave; k++)
                fought[a][p->wave[k]] = true;
            for (k = 0; k < p->n_aircraft; k++)
                fought[a][p->aircraft[k]] = true;
            for (k = 0; k < p->n_destroyed; k++)
                fought[a][p->destroyed[k]] = true;
        }
    for (a = 0; a < 2; a++)
        for (u = 0; u < j->setup.armies[a].n_units; u++) {
            db_unit before, after;
            bool is_destroyed = !j->battle.is_alive[a][u];
            jw w;
            if (!fought[a][u])
                continue;
            if ((rc = db_unit_find(c, b->campaign_id, j->unit_id[a][u], &before,
                                   e)))
                return rc;
            after = before;
            /* A piece a correction took out of play meanwhile keeps it. */
            if (is_destroyed && !before.is_eliminated) {
                after.is_eliminated = true;
                after.scrud.is_eliminated = true;
                text_copy(after.eliminated_reason, DB_REASON_MAX, "destroyed");
                text_copy(after.eliminated_by, DB_ID_MAX, j->rec.cb.id);
                if ((rc = db_unit_update(c, &after, e)))
                    return rc;
            }
            jw_init(&w);
            jw_object(&w);
            jw_kstring(&w, "system", "civ");
            jw_kstring(&w, "battle_id", b->id);
            jw_kstring(&w, "army", civ_json_army_key[a]);
            jw_kbool(&w, "destroyed", is_destroyed);
            jw_object_end(&w);
            if ((rc = combat_unit_event(c, &j->rec, &before, &after, &w, e)))
                return rc;
        }
    return ERR_OK;
}

static bool is_in_play(db_conn *c, const civ_job *j, err_info *e)
{
    db_unit u;
    int a, k;

    for (a = 0; a < 2; a++)
        for (k = 0; k < j->setup.armies[a].n_units; k++) {
            if (!j->battle.is_alive[a][k])
                continue;
            if (db_unit_find(c, j->row.campaign_id, j->unit_id[a][k], &u, e))
                return false;
            if (u.is_eliminated) {
                err_set(e, ERR_CONFLICT, NULL,
                        "the unit %s has been eliminated (%s) since the "
                        "battle began: abandon the battle, or correct the "
                        "unit",
                        u.name, u.eliminated_reason);
                return false;
            }
        }
    return true;
}

/* Entered dice of a phase: {"attacker": [...], "defender": [...]}, each
 * army's wave dice then its aircraft's. */
static err_code phase_dice(const json_t *req, civ_job *j, int *values, int *n,
                           int given[2], err_info *e)
{
    static const char *const fields[] = {"attacker", "defender", NULL};
    json_t *dice = NULL;
    char f[JV_PATH_MAX], fk[JV_PATH_MAX];
    size_t k;
    int a;
    err_code rc;

    (void)j;
    *n = 0;
    if ((rc = jv_object(req, "", "dice", true, &dice, e)) ||
        (rc = jv_object_only(dice, "dice", fields, e)))
        return rc;
    for (a = 0; a < 2; a++) {
        json_t *arr = NULL;
        if ((rc = jv_array(dice, "dice", civ_json_army_key[a], true, 1,
                           2 * CIV_MAX_UNITS, &arr, e)))
            return rc;
        jv_path(f, "dice", civ_json_army_key[a]);
        for (k = 0; k < json_array_size(arr); k++) {
            json_t *v = json_array_get(arr, k);
            jv_index(fk, f, k);
            if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                json_integer_value(v) > 6)
                return err_set(e, ERR_RANGE, fk, "a d6: 1 to 6");
            values[(*n)++] = (int)json_integer_value(v);
        }
        given[a] = (int)json_array_size(arr);
    }
    return ERR_OK;
}

/* The request's own members, checked against the battle as it stands:
 * *act is "phase" or "abandon". */
static err_code action_check(const civ_job *j, const char **act,
                             const char **note, err_info *e)
{
    static const char *const fields[] = {"action", "attacker", "defender",
                                         "dice",   "note",     "expect_actions",
                                         NULL};
    const json_t *req = j->request;
    int expect = -1;
    err_code rc;

    *act = json_string_value(json_object_get(req, "action"));
    if (strcmp(j->row.status, "open") != 0)
        return err_set(e, ERR_CONFLICT, NULL, "the battle is over (%s)",
                       j->row.status);
    if ((rc = jv_object_only(req, "", fields, e)) ||
        (rc =
             jv_int(req, "", "expect_actions", false, 0, 100000, &expect, e)) ||
        (rc = jv_string(req, "", "note", false, COMBAT_NOTE_MAX, note, e)))
        return rc;
    if (*act == NULL || (strcmp(*act, "phase") && strcmp(*act, "abandon")))
        return err_set(e, *act ? ERR_INVALID : ERR_MISSING, "action",
                       "a Civilization battle's actions are \"phase\" and "
                       "\"abandon\"");
    if (expect >= 0 && expect != j->row.n_actions)
        return err_set(e, ERR_CONFLICT, "expect_actions",
                       "the battle has %d actions, not %d: another action "
                       "landed first",
                       j->row.n_actions, expect);
    return ERR_OK;
}

/* An abandon: no orders and no dice; the battle ends with no result. */
static err_code abandon(db_conn *c, civ_job *j, db_battle_action *row,
                        err_info *e)
{
    const json_t *req = j->request;
    err_code rc;

    if (json_object_get(req, "attacker") || json_object_get(req, "defender") ||
        json_object_get(req, "dice"))
        return err_set(e, ERR_INVALID, "action",
                       "an abandon takes no orders and no dice");
    text_copy(row->kind, sizeof row->kind, "abandon");
    row->combat = -1;
    row->naturals = "[]";
    if ((rc = db_battle_action_insert(c, j->row.id, row, e)))
        return rc;
    text_copy(j->row.status, sizeof j->row.status, "abandoned");
    return ERR_OK;
}

/* The phase's dice into next: entered in the request (values holds them,
 * given counts each army's), or the battle's seeded stream past the src
 * dice already drawn.  next needs dice_cleanup only on success. */
static err_code phase_source(const json_t *req, civ_job *j,
                             const dice_source *src, dice_source *next,
                             int *values, int given[2], err_info *e)
{
    uint8_t seed[RNG_SEED_LEN];
    const char *cs = j->row.client_seed;
    int n_values = 0;
    err_code rc;

    if (strcmp(j->row.dice_source, "entered") == 0) {
        if ((rc = phase_dice(req, j, values, &n_values, given, e)))
            return rc;
        dice_init_values(next, DICE_ENTERED, values, (size_t)n_values);
        return ERR_OK;
    }
    if (json_object_get(req, "dice"))
        return err_set(e, ERR_INVALID, "dice",
                       "the battle's dice are seeded: give dice only when "
                       "they are entered");
    if (rng_unhex(j->row.server_seed, seed, sizeof seed) != 0)
        return err_set(e, ERR_DB, NULL, "the seed cannot be read");
    dice_init_seeded(next, seed, (const uint8_t *)cs, cs ? strlen(cs) : 0);
    sodium_memzero(seed, sizeof seed);
    /* The battle's stream, past the dice already drawn (d6s). */
    dice_skip(next, 6, src->n_log);
    return ERR_OK;
}

/* Entered dice: each army's list holds its own dice, wave then aircraft
 * (the phase's waves say how many).  rc is the fight's: on a refusal
 * here a phase fought is taken back. */
static err_code phase_given(civ_job *j, err_code rc, const int given[2],
                            err_info *e)
{
    const civ_phase *ph;
    int a;

    if ((rc != ERR_OK && rc != ERR_DICE) ||
        strcmp(j->row.dice_source, "entered") != 0)
        return rc;
    ph = &j->phases[j->n_phases - (rc == ERR_OK)];
    for (a = 0; a < 2; a++) {
        int want = ph->armies[a].n_wave + ph->armies[a].n_aircraft;
        if (given[a] != want) {
            char f[JV_PATH_MAX];
            jv_path(f, "dice", civ_json_army_key[a]);
            if (rc == ERR_OK)
                j->n_phases--; /* refused: not this phase */
            err_clear(e);
            return err_set(e, ERR_RANGE, f,
                           "the %s throws %d dice this phase (its wave and "
                           "its aircraft), not %d",
                           civ_json_army_key[a], want, given[a]);
        }
    }
    return rc;
}

/* The phase's row: its dice (they join the battle's log for the record)
 * and its orders, as texts (new, in *naturals and *detail). */
static err_code phase_row(const civ_job *j, const civ_orders o[2],
                          const dice_source *next, db_battle_action *row,
                          char **naturals, char **detail, err_info *e)
{
    text_buf b = {0};
    json_t *d;
    size_t k;

    text_printf(&b, "[");
    for (k = 0; k < next->n_log; k++)
        text_printf(&b, "%s%d", k ? "," : "", next->log[k].natural);
    text_printf(&b, "]");
    *naturals = text_take(&b);
    d = civ_json_orders_json(j, o);
    *detail = json_dumps(d, JSON_COMPACT);
    json_decref(d);
    if (*naturals == NULL || *detail == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    text_copy(row->kind, sizeof row->kind, "phase");
    row->combat = j->n_phases - 1;
    row->naturals = *naturals;
    row->detail = *detail;
    return ERR_OK;
}

/* A battle over after this phase: rebuilt over every die of its log (src
 * the dice before, next the phase's), and finished. */
static err_code phase_over(db_conn *c, civ_job *j, const dice_source *src,
                           const dice_source *next, err_info *e)
{
    int *all = j->entered, n_all = (int)src->n_values, i;
    int np = j->n_phases;
    civ_orders(*ords)[2] = calloc((size_t)np, sizeof *ords);
    dice_source full;
    err_code rc;

    if (ords == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < (int)next->n_log; i++)
        all[n_all++] = next->log[i].natural;
    memcpy(ords, j->orders, (size_t)np * sizeof *ords);
    dice_init_values(&full, DICE_REPLAY, all, (size_t)n_all);
    rc = civ_json_rebuild(j, (const civ_orders(*)[2])ords, np, &full, e);
    free(ords);
    if (rc == ERR_OK)
        rc = finish(c, j, &full, e);
    dice_cleanup(&full);
    return rc;
}

/* A phase: the orders, the dice, the fight, its row, and the battle's
 * end when an army is gone. */
static err_code phase(db_conn *c, civ_job *j, const dice_source *src,
                      db_battle_action *row, err_info *e)
{
    const json_t *req = j->request;
    int values[4 * CIV_MAX_UNITS], given[2] = {0, 0};
    char *naturals = NULL, *detail = NULL;
    dice_source next;
    civ_orders o[2];
    err_code rc;

    if (j->n_phases >= CIV_JSON_MAX_PHASES)
        return err_set(e, ERR_LIMIT, NULL, "a battle has at most %d phases",
                       CIV_JSON_MAX_PHASES);
    if (!is_in_play(c, j, e))
        return e->code;
    if ((rc = civ_json_parse_orders(req, "", j, o, e)) ||
        (rc = phase_source(req, j, src, &next, values, given, e)))
        return rc;
    rc = phase_given(j, civ_json_fight(j, o, &next, e), given, e);
    if (rc == ERR_OK && (rc = dice_check_all_used(&next, e)) == ERR_OK &&
        (rc = phase_row(j, o, &next, row, &naturals, &detail, e)) == ERR_OK &&
        (rc = db_battle_action_insert(c, j->row.id, row, e)) == ERR_OK &&
        civ_is_over(&j->battle))
        rc = phase_over(c, j, src, &next, e);
    dice_cleanup(&next);
    row->naturals = row->detail = NULL;
    free(naturals);
    free(detail);
    return rc;
}

/* The action in j->request on the battle j->row.id, as its row. */
static err_code action_apply(db_conn *c, civ_job *j, err_info *e)
{
    db_battle_action row;
    dice_source src;
    const char *act = NULL, *note = NULL;
    char id[DB_ID_MAX];
    err_code rc;

    memset(&row, 0, sizeof row);
    text_copy(id, DB_ID_MAX, j->row.id);
    if ((rc = civ_campaign_load(c, j->rec.campaign_id, id, j, &src, e)) ||
        (rc = action_check(j, &act, &note, e)))
        goto out;
    row.seq = j->row.n_actions + 1;
    db_now(row.at);
    text_copy(row.actor_token_id, DB_ID_MAX, j->rec.token_id);
    row.army = row.unit = -1;
    row.note = (char *)note;
    rc = strcmp(act, "abandon") == 0 ? abandon(c, j, &row, e)
                                     : phase(c, j, &src, &row, e);
    if (rc == ERR_OK) {
        j->row.n_actions = row.seq;
        text_copy(j->row.updated_at, DB_TIME_MAX, row.at);
        rc = db_battle_update(c, &j->row, e);
    }
out:
    dice_cleanup(&src);
    return rc;
}

/* The battle as c shows it now, as served (new reference, or NULL). */
static json_t *battle_read_back(db_conn *c, const civ_job *j, err_info *e)
{
    civ_job *fresh = civ_job_new(CIV_JSON_MAX_PHASES);
    dice_source src;
    json_t *o = NULL;

    if (fresh == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    if (civ_campaign_load(c, j->row.campaign_id, j->row.id, fresh, &src, e) ==
            ERR_OK &&
        (o = battle_json(fresh, &src)) == NULL)
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    dice_cleanup(&src);
    civ_job_free(fresh);
    return o;
}

/*
 * The action.  When its answer is kept under an Idempotency-Key, the
 * battle as it now stands is read back here, in the same transaction,
 * where it sees what the action wrote; otherwise after the commit, off
 * the writer (action_finish).
 */
static err_code action_job(db_conn *c, void *arg, err_info *e)
{
    civ_job *j = arg;
    err_code rc;

    if ((rc = action_apply(c, j, e)) || !j->is_reply_in_job)
        return rc;
    if ((j->reply = battle_read_back(c, j, e)) == NULL)
        return e->code ? e->code : ERR_INTERNAL;
    return ERR_OK;
}

static void action_finish(http_request *r, err_code rc, const err_info *e)
{
    civ_job *j = r->state;
    db *d = http_db(r->srv);
    db_conn *c;
    err_info e2;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    if (j->reply == NULL) {
        /* Served as stored: read back the battle the action made. */
        err_clear(&e2);
        if (db_read_begin(d, &c, &e2) != ERR_OK) {
            http_reply_problem(r, &e2);
            return;
        }
        j->reply = battle_read_back(c, j, &e2);
        if (db_read_end(d, c, &e2) != ERR_OK) {
            json_decref(j->reply);
            j->reply = NULL;
        }
        if (j->reply == NULL) {
            http_reply_problem(r, &e2);
            return;
        }
    }
    http_reply_json(r, 200, j->reply);
    j->reply = NULL;
    r->render = HTTP_RENDER_BATTLE;
}

static void action(http_request *r, json_t *body)
{
    civ_job *j;
    err_info e;

    err_clear(&e);
    if ((j = job_for(r, &e)) == NULL) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    j->request = body;
    text_copy(j->rec.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(j->row.id, DB_ID_MAX, r->params[1]);
    text_copy(j->rec.token_id, DB_ID_MAX, r->token.id);
    j->is_reply_in_job = r->has_idem;
    http_defer_write(r, action_job, action_finish);
}

const systems_battle civ_campaign_battles = {
    .create = create,
    .get = get,
    .action = action,
    .render = civ_report_battle,
};
