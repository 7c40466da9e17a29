/*
 * matrix_campaign.c: Matrix game battles (docs/rules/matrix.md) fought in
 * a campaign: created with the seed's commitment shown before any die,
 * fought one action at a time (roll a combat, commit a reserve, accept),
 * and finished when the last combat is accepted: the record becomes a
 * combat with its whole roll log, routed units leave play and exhaustion
 * is stored on the sides.  Its handlers are the battle routes of
 * resources/battles.c for battles of system "matrix" (systems.h).
 *
 * Every action is one job of the database writer that reads the battle,
 * rebuilds its state from the logged actions, checks and applies the new
 * one and appends it: two requests on one battle are serialized, and the
 * action's sequence number (the key of its row) keeps a second from
 * landing on the same state.
 */
#include "jsonb.h"
#include "http.h"
#include "matrix_report.h"
#include "systems.h"
#include "battle.h"
#include "combat.h"
#include "jsonv.h"
#include "matrix_campaign.h"
#include "matrix_json.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

/* ---- shared ---- */

/* j's battle from its stored row: setup, actions, state rebuilt.  The
 * setup document stays in j->request. */
err_code matrix_campaign_load(db_conn *c, const char *campaign_id,
                              const char *battle_id, matrix_job *j, err_info *e)
{
    db_battle_action *acts = NULL;
    size_t n = 0, i;
    int values[4 * MATRIX_JSON_MAX_ACTIONS], n_values = 0, k;
    dice_source src;
    err_info why;
    err_code rc;

    rc = db_battle_get(c, campaign_id, battle_id, &j->row, NULL);
    if (rc == ERR_NOT_FOUND)
        return err_set(e, rc, NULL, "the campaign has no battle %s", battle_id);
    if (rc != ERR_OK)
        return err_set(e, rc, NULL, "cannot read the battle");
    j->turn = j->row.turn;
    json_decref(j->request);
    j->request = json_loads(j->row.setup, 0, NULL);
    if (j->request == NULL ||
        matrix_json_parse_setup(j->request, false, true, j, NULL) ||
        matrix_json_prepare(j, NULL))
        return err_set(e, ERR_DB, NULL, "the stored battle cannot be read");
    if ((rc = db_battle_actions_list(c, j->row.id, &acts, &n, e)))
        return rc;
    for (i = 0; i < n && rc == ERR_OK; i++) {
        if (i >= MATRIX_JSON_MAX_ACTIONS)
            rc = err_set(e, ERR_DB, NULL, "the battle has too many actions");
        else
            rc = matrix_json_action_from_row(&acts[i], &j->actions[i], e);
    }
    db_battle_actions_free(acts, n);
    if (rc)
        return rc;
    j->n_actions = (int)n;
    for (i = 0; i < n; i++)
        for (k = 0; k < j->actions[i].n_naturals; k++)
            values[n_values++] = j->actions[i].naturals[k];
    dice_init_values(&src, DICE_REPLAY, values, (size_t)n_values);
    err_clear(&why);
    rc = matrix_json_rebuild(j, &src, &why);
    dice_cleanup(&src);
    if (rc)
        return err_set(e, ERR_DB, NULL,
                       "the battle's stored actions do not replay: %s",
                       why.message);
    if (matrix_is_over(&j->battle) && !j->battle.is_escalated)
        matrix_battle_result(&j->battle, &j->result, NULL);
    return ERR_OK;
}

/* The battle as served: its row, then its state. */
static json_t *battle_json(const matrix_job *j)
{
    const db_battle *b = &j->row;
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:o, s:i}", "id", b->id,
                  "campaign_id", b->campaign_id, "system", b->system, "status",
                  b->status, "turn", b->turn, "created_at", b->created_at,
                  "updated_at", b->updated_at, "note",
                  jsonb_str_or_null(b->note), "n_actions", b->n_actions);
    json_t *state = matrix_json_state_json(j);
    const char *key;
    json_t *v;

    json_object_set_new(o, "dice", battle_dice_json(b));
    json_object_set_new(o, "combat_id", jsonb_str_or_null(b->combat_id));
    json_object_set_new(o, "escalated_from", jsonb_str_or_null(b->linked_from));
    json_object_set_new(o, "escalated_to", jsonb_str_or_null(b->linked_to));
    json_object_foreach(state, key, v) json_object_set(o, key, v);
    json_decref(state);
    return o;
}

/* ---- campaign battles ---- */

/* The campaign's sides and units for the armies; exhaustion due this turn
 * applied (and used up). */
err_code matrix_campaign_bind(db_conn *c, matrix_job *j, err_info *e)
{
    char f[JV_PATH_MAX];
    db_side side;
    db_unit u;
    int a, i, b, k;
    err_code rc;

    for (a = 0; a < 2; a++) {
        snprintf(f, sizeof f, "%s.side", matrix_json_army_key[a]);
        if ((rc = battle_find_side(c, j->rec.campaign_id, j->army_ref[a],
                                   a == 1 ? j->side_id[0] : "", f, &side, e)))
            return rc;
        text_copy(j->side_id[a], DB_ID_MAX, side.id);
        text_copy(j->army_name[a], DB_NAME_MAX, side.name);
        /* Exhausted in the last battle: -1 in its next battle this turn. */
        if (matrix_is_exhausted_in(side.exhausted_turn, j->turn)) {
            j->setup.armies[a].is_exhausted = true;
            j->exhausted_side[a] = side;
            j->exhausted_side[a].exhausted_turn = 0;
            j->is_exhaustion_used[a] = true;
        }
        for (i = 0; i < j->setup.armies[a].n_units; i++) {
            snprintf(f, sizeof f, "%s.units[%d]", matrix_json_army_key[a], i);
            if ((rc = battle_find_unit(c, j->rec.campaign_id, j->unit_ref[a][i],
                                       &side, matrix_json_army_key[a], f, &u,
                                       e)))
                return rc;
            if (!u.has_matrix)
                return err_set(e, ERR_RULE, f,
                               "the unit %s does not fight Matrix battles",
                               u.name);
            for (b = 0; b <= a; b++)
                for (k = 0; k < (b < a ? j->setup.armies[b].n_units : i); k++)
                    if (strcmp(j->unit_id[b][k], u.id) == 0)
                        return err_set(e, ERR_INVALID, f,
                                       "the unit %s is already in this battle",
                                       u.name);
            text_copy(j->unit_id[a][i], DB_ID_MAX, u.id);
            text_copy(j->unit_name[a][i], DB_NAME_MAX, u.name);
            j->setup.armies[a].quality[i] = u.matrix_quality;
        }
    }
    return ERR_OK;
}

/* A unit fights one battle at a time: none of j's units is in a battle of
 * the campaign that is still open. */
static err_code check_not_engaged(db_conn *c, const matrix_job *j, err_info *e)
{
    char other[DB_ID_MAX], f[JV_PATH_MAX];
    int a, u;
    err_code rc;

    for (a = 0; a < 2; a++)
        for (u = 0; u < j->setup.armies[a].n_units; u++) {
            if ((rc = battle_engaged(c, j->rec.campaign_id, j->unit_id[a][u],
                                     other, e)))
                return rc;
            if (other[0] == '\0')
                continue;
            snprintf(f, sizeof f, "%s.units[%d]", matrix_json_army_key[a], u);
            return err_set(e, ERR_RULE, f,
                           "the unit %s is in the battle %s, still open: a "
                           "unit fights one battle at a time",
                           j->unit_name[a][u], other);
        }
    return ERR_OK;
}

/* A skirmish that escalated: this open battle is the one it became.
 * Checks it, and with is_linking (once every check has passed) links the
 * skirmish to j's battle. */
static err_code link_escalation(db_conn *c, matrix_job *j, bool is_linking,
                                err_info *e)
{
    db_battle from;
    err_code rc;
    int a, u;

    memset(&from, 0, sizeof from);
    if (j->escalated_from[0] == '\0')
        return ERR_OK;
    rc = db_battle_get(c, j->rec.campaign_id, j->escalated_from, &from, NULL);
    if (rc != ERR_OK) {
        db_battle_cleanup(&from);
        return err_set(e, rc == ERR_NOT_FOUND ? ERR_INVALID : rc,
                       "escalated_from", "the campaign has no battle %s",
                       j->escalated_from);
    }
    if (strcmp(from.status, "escalated") != 0 || from.linked_to[0]) {
        rc = err_set(e, ERR_CONFLICT, "escalated_from",
                     from.linked_to[0]
                         ? "the skirmish already became the battle %s"
                         : "the battle %s is not a skirmish that escalated",
                     from.linked_to[0] ? from.linked_to : from.id);
    } else if (j->setup.kind != MATRIX_OPEN) {
        rc = err_set(e, ERR_RULE, "kind",
                     "an escalated skirmish becomes an open battle");
    } else if (from.turn != j->turn) {
        rc = err_set(e, ERR_RULE, "turn",
                     "the open battle is fought at once, in the skirmish's "
                     "turn %d",
                     from.turn);
    } else {
        /* The full armies include every unit of the skirmish, and fight as
         * it did: an army exhausted there is exhausted here. */
        json_t *s = json_loads(from.setup, 0, NULL);
        for (a = 0; a < 2 && rc == ERR_OK; a++) {
            json_t *army = json_object_get(s, matrix_json_army_key[a]);
            json_t *units = json_object_get(army, "units");
            if (json_is_true(json_object_get(army, "exhausted")))
                j->setup.armies[a].is_exhausted = true;
            for (u = 0; u < (int)json_array_size(units) && rc == ERR_OK; u++) {
                const char *id = json_string_value(json_object_get(
                    json_array_get(units, (size_t)u), "unit_id"));
                int k, found = 0;
                for (k = 0; k < j->setup.armies[a].n_units; k++)
                    found |= id && strcmp(j->unit_id[a][k], id) == 0;
                if (!found)
                    rc = err_set(e, ERR_RULE, matrix_json_army_key[a],
                                 "the open battle is fought with the full "
                                 "armies: every unit of the skirmish is in it");
            }
        }
        json_decref(s);
        if (rc == ERR_OK && is_linking) {
            text_copy(from.linked_to, DB_ID_MAX, j->row.id);
            db_now(from.updated_at);
            rc = db_battle_update(c, &from, e);
        }
    }
    db_battle_cleanup(&from);
    return rc;
}

static err_code battle_create_job(db_conn *c, void *arg, err_info *e)
{
    matrix_job *j = arg;
    db_battle *b = &j->row;
    json_t *setup;
    err_code rc;
    int a;

    /* Every check before any write: a refused battle writes nothing. */
    if ((rc = matrix_campaign_bind(c, j, e)) ||
        (rc = matrix_json_prepare(j, e)) ||
        (rc = link_escalation(c, j, false, e)) ||
        (rc = check_not_engaged(c, j, e)))
        return rc;
    if ((rc = battle_row_new(c, b, &j->rec, "matrix", j->turn, e)))
        return rc;
    text_copy(b->linked_from, DB_ID_MAX, j->escalated_from);
    if ((rc = link_escalation(c, j, true, e)))
        return rc;
    for (a = 0; a < 2; a++)
        if (j->is_exhaustion_used[a] &&
            (rc = db_side_update(c, &j->exhausted_side[a], e)))
            return rc;
    setup = matrix_json_setup_json(j);
    b->setup = json_dumps(setup, JSON_COMPACT);
    json_decref(setup);
    if (b->setup == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    return db_battle_insert(c, b, e);
}

static void battle_finish(http_request *r, err_code rc, const err_info *e)
{
    matrix_job *j = r->state;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/battles/%s",
             j->row.campaign_id, j->row.id);
    http_reply_json(r, 201, battle_json(j));
    r->render = HTTP_RENDER_BATTLE;
}

static void create(http_request *r, json_t *body)
{
    static const char *const fields[] = {
        "system",   "kind", "ambush", "basis", "turn",           "attacker",
        "defender", "line", "dice",   "note",  "escalated_from", NULL};
    const char *from = NULL;
    matrix_job *j;
    err_info e;

    err_clear(&e);
    if ((j = matrix_job_new(r, &e)) == NULL)
        goto fail;
    j->request = json_incref(body);
    if (jv_object_only(body, "", fields, &e) ||
        jv_int(body, "", "turn", true, 1, 1000000, &j->turn, &e) ||
        jv_string(body, "", "escalated_from", false, DB_ID_MAX - 1, &from,
                  &e) ||
        combat_parse_record(body, &j->rec, &e) ||
        matrix_json_parse_setup(body, true, false, j, &e))
        goto fail;
    if (from)
        text_copy(j->escalated_from, DB_ID_MAX, from);
    text_copy(j->rec.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(j->rec.token_id, DB_ID_MAX, r->token.id);
    json_decref(body);
    http_defer_write(r, battle_create_job, battle_finish);
    return;
fail:
    json_decref(body);
    http_reply_problem(r, &e);
}

static void get(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    matrix_job *j;
    err_info e;
    err_code rc;

    err_clear(&e);
    if ((j = matrix_job_new(r, &e)) == NULL) {
        http_reply_problem(r, &e);
        return;
    }
    /* The battle and its actions from one snapshot. */
    if ((rc = db_read_begin(d, &c, &e)) == ERR_OK) {
        rc = matrix_campaign_load(c, r->params[0], r->params[1], j, &e);
        if (db_read_end(d, c, rc ? NULL : &e) && rc == ERR_OK)
            rc = e.code;
    }
    if (rc != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    http_reply_json(r, 200, battle_json(j));
    r->render = HTTP_RENDER_BATTLE;
}

/* The record of a battle that ended: its combat, the units that fought,
 * routed units out of play, exhaustion on the sides. */
static err_code finish_battle(db_conn *c, matrix_job *j, err_info *e)
{
    db_battle *b = &j->row;
    int a, u, mark;
    err_code rc;

    battle_record_dice(&j->rec, b);
    if ((rc = matrix_json_record(j, b->id, e)) ||
        (rc = db_combat_insert(c, &j->rec.cb, j->rec.rolls, j->rec.n_rolls, e)))
        return rc;
    text_copy(b->combat_id, DB_ID_MAX, j->rec.cb.id);
    if (j->battle.is_escalated) {
        text_copy(b->status, sizeof b->status, "escalated");
        return ERR_OK;
    }
    text_copy(b->status, sizeof b->status, "finished");
    for (a = 0; a < 2; a++) {
        db_side side;
        for (u = 0; u < j->setup.armies[a].n_units; u++) {
            matrix_fate fate = j->result.fates[a][u];
            db_unit before, after;
            jw w;
            if (!j->result.has_fought[a][u])
                continue;
            if ((rc = db_unit_find(c, b->campaign_id, j->unit_id[a][u], &before,
                                   e)))
                return rc;
            after = before;
            if (fate == MATRIX_ROUTED) {
                after.is_eliminated = true;
                after.scrud.is_eliminated = true;
                text_copy(after.eliminated_reason, DB_REASON_MAX, "routed");
                text_copy(after.eliminated_by, DB_ID_MAX, j->rec.cb.id);
                if ((rc = db_unit_update(c, &after, e)))
                    return rc;
            }
            jw_init(&w);
            jw_object(&w);
            jw_kstring(&w, "system", "matrix");
            jw_kstring(&w, "battle_id", b->id);
            jw_kstring(&w, "army", matrix_json_army_key[a]);
            jw_kstring(&w, "result",
                       fate == MATRIX_NONE ? "none" : matrix_fate_name(fate));
            jw_kint(&w, "casualty_points", matrix_fate_points(fate));
            jw_object_end(&w);
            if ((rc = combat_unit_event(c, &j->rec, &before, &after, &w, e)))
                return rc;
        }
        mark = matrix_exhausted_turn(&j->result, a, b->turn);
        if (mark == 0)
            continue;
        if ((rc = db_side_find(c, b->campaign_id, j->side_id[a], &side, e)))
            return rc;
        side.exhausted_turn = mark;
        if ((rc = db_side_update(c, &side, e)))
            return rc;
    }
    return ERR_OK;
}

/* Every unit of the battle is still in play: a correction or another
 * system's combat may have eliminated one since the battle began. */
static err_code check_in_play(db_conn *c, const matrix_job *j, err_info *e)
{
    db_unit u;
    int a, k;
    err_code rc;

    for (a = 0; a < 2; a++)
        for (k = 0; k < j->setup.armies[a].n_units; k++) {
            if ((rc = db_unit_find(c, j->row.campaign_id, j->unit_id[a][k], &u,
                                   e)))
                return rc;
            if (u.is_eliminated)
                return err_set(e, ERR_CONFLICT, NULL,
                               "the unit %s has been eliminated (%s) since "
                               "the battle began: abandon the battle, or "
                               "correct the unit",
                               u.name, u.eliminated_reason);
        }
    return ERR_OK;
}

static bool is_abandon(const json_t *req)
{
    const char *a = json_string_value(json_object_get(req, "action"));
    return a && strcmp(a, "abandon") == 0;
}

/*
 * Ends an open battle with no result: nothing happens to its units, its
 * seed is revealed, and the exhaustion it used up is given back to the
 * sides (unless it came from the skirmish this battle escalated from).
 */
static err_code abandon(db_conn *c, matrix_job *j, const json_t *req,
                        err_info *e)
{
    static const char *const fields[] = {"action", "note", "expect_actions",
                                         NULL};
    db_battle_action row;
    const char *note = NULL;
    int expect = -1, a;
    err_code rc;

    memset(&row, 0, sizeof row);
    if ((rc = jv_object_only(req, "", fields, e)) ||
        (rc = jv_string(req, "", "note", false, COMBAT_NOTE_MAX, &note, e)) ||
        (rc = jv_int(req, "", "expect_actions", false, 0,
                     MATRIX_JSON_MAX_ACTIONS, &expect, e)))
        return rc;
    if (expect >= 0 && expect != j->n_actions)
        return err_set(e, ERR_CONFLICT, "expect_actions",
                       "the battle has %d actions, not %d: another action "
                       "landed first",
                       j->n_actions, expect);
    for (a = 0; a < 2 && j->row.linked_from[0] == '\0'; a++) {
        db_side side;
        if (!j->setup.armies[a].is_exhausted)
            continue;
        if ((rc = db_side_find(c, j->row.campaign_id, j->side_id[a], &side, e)))
            return rc;
        if (side.exhausted_turn == 0) {
            side.exhausted_turn = j->row.turn;
            if ((rc = db_side_update(c, &side, e)))
                return rc;
        }
    }
    row.seq = j->n_actions + 1;
    db_now(row.at);
    text_copy(row.actor_token_id, DB_ID_MAX, j->rec.token_id);
    text_copy(row.kind, sizeof row.kind, "abandon");
    row.combat = row.army = row.unit = -1;
    row.naturals = "[]";
    row.note = (char *)note;
    if ((rc = db_battle_action_insert(c, j->row.id, &row, e)))
        return rc;
    j->row.n_actions = row.seq;
    text_copy(j->row.updated_at, DB_TIME_MAX, row.at);
    text_copy(j->row.status, sizeof j->row.status, "abandoned");
    return db_battle_update(c, &j->row, e);
}

static err_code battle_action_job(db_conn *c, void *arg, err_info *e)
{
    static const char *const campaign_actions[] = {"roll", "commit", "accept",
                                                   "abandon", NULL};
    matrix_job *j = arg;
    const json_t *body = j->request;
    json_t *req = json_incref((json_t *)body);
    db_battle_action row;
    matrix_action *a;
    dice_source src;
    char naturals[64], id[DB_ID_MAX];
    const char *note = NULL;
    int expect = -1, i, n_drawn = 0;
    bool is_entered;
    err_code rc;

    memset(&row, 0, sizeof row);
    /* j->request becomes the stored setup while loading. */
    text_copy(id, DB_ID_MAX, j->row.id);
    if ((rc = matrix_campaign_load(c, j->rec.campaign_id, id, j, e)))
        goto out;
    if (strcmp(j->row.status, "open") != 0) {
        rc = err_set(e, ERR_CONFLICT, NULL, "the battle is over (%s)",
                     j->row.status);
        goto out;
    }
    if (is_abandon(req)) {
        rc = abandon(c, j, req, e);
        goto out;
    }
    if ((rc = check_in_play(c, j, e)))
        goto out;
    if ((rc = jv_int(req, "", "expect_actions", false, 0,
                     MATRIX_JSON_MAX_ACTIONS, &expect, e)) ||
        (rc = jv_string(req, "", "note", false, COMBAT_NOTE_MAX, &note, e)))
        goto out;
    if (expect >= 0 && expect != j->n_actions) {
        rc = err_set(e, ERR_CONFLICT, "expect_actions",
                     "the battle has %d actions, not %d: another action "
                     "landed first",
                     j->n_actions, expect);
        goto out;
    }
    if (j->n_actions >= MATRIX_JSON_MAX_ACTIONS) {
        rc = err_set(e, ERR_LIMIT, NULL, "a battle takes at most %d actions",
                     MATRIX_JSON_MAX_ACTIONS);
        goto out;
    }
    is_entered = strcmp(j->row.dice_source, "entered") == 0;
    a = &j->actions[j->n_actions];
    /* A battle in a campaign also takes "abandon" (handled above): the
     * refusal of any other word lists it too. */
    if ((rc = jv_enum(req, "", "action", true, campaign_actions, &i, e)) ||
        (rc = matrix_json_parse_action(req, "", j, is_entered, a, e)))
        goto out;
    if (is_entered) {
        dice_init_values(&src, DICE_ENTERED, a->naturals,
                         (size_t)a->n_naturals);
    } else {
        /* The battle's stream, past the dice already drawn. */
        uint8_t seed[RNG_SEED_LEN];
        const char *cs = j->row.client_seed;
        if (rng_unhex(j->row.server_seed, seed, sizeof seed) != 0) {
            rc = err_set(e, ERR_DB, NULL, "the battle's seed cannot be read");
            goto out;
        }
        dice_init_seeded(&src, seed, (const uint8_t *)cs, cs ? strlen(cs) : 0);
        sodium_memzero(seed, sizeof seed);
        for (i = 0; i < j->n_actions; i++)
            n_drawn += j->actions[i].n_naturals;
        dice_skip(&src, 6, n_drawn); /* every Matrix die is a d6 */
    }
    rc = matrix_json_apply(j, a, &src, e);
    if (rc == ERR_OK && is_entered)
        rc = dice_check_all_used(&src, e);
    dice_cleanup(&src);
    if (rc)
        goto out;
    j->n_actions++;
    row.seq = j->n_actions;
    db_now(row.at);
    text_copy(row.actor_token_id, DB_ID_MAX, j->rec.token_id);
    matrix_json_action_row(a, &row, naturals);
    row.note = (char *)note;
    if ((rc = db_battle_action_insert(c, j->row.id, &row, e)))
        goto out;
    j->row.n_actions = j->n_actions;
    text_copy(j->row.updated_at, DB_TIME_MAX, row.at);
    if (matrix_is_over(&j->battle) && (rc = finish_battle(c, j, e)))
        goto out;
    rc = db_battle_update(c, &j->row, e);
out:
    json_decref(req);
    return rc;
}

static void action_finish(http_request *r, err_code rc, const err_info *e)
{
    matrix_job *j = r->state;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    http_reply_json(r, 200, battle_json(j));
    r->render = HTTP_RENDER_BATTLE;
}

static void action(http_request *r, json_t *body)
{
    matrix_job *j;
    err_info e;

    err_clear(&e);
    if ((j = matrix_job_new(r, &e)) == NULL) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    /* Checked against the battle in the job: the body waits there. */
    j->request = body;
    text_copy(j->rec.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(j->row.id, DB_ID_MAX, r->params[1]);
    text_copy(j->rec.token_id, DB_ID_MAX, r->token.id);
    http_defer_write(r, battle_action_job, action_finish);
}

const systems_battle matrix_campaign_battles = {
    .create = create,
    .get = get,
    .action = action,
    .render = matrix_report_battle,
};
