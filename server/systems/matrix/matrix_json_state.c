/*
 * matrix_json_state.c: a Matrix battle's state, result, Markdown summary
 * and record in JSON (the second half of matrix_json.h; the setup and the
 * actions are in matrix_json.c).
 */
#include "matrix_json.h"
#include "jsonb.h"
#include "combat.h"
#include "jsonv.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- state and result ---- */

static json_t *combat_json(const matrix_job *j, int c)
{
    const matrix_combat *cb = &j->battle.combats[c];
    const matrix_pairing *p = &j->setup.line[c];
    json_t *o = json_object(), *dice, *res;
    int a, k;

    json_object_set_new(o, "index", json_integer(c));
    for (a = 0; a < 2; a++)
        json_object_set_new(
            o, matrix_json_army_key[a],
            matrix_json_names(j, a, p->units[a], p->n_units[a]));
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
    json_object_set_new(o, "campaign_id", jsonb_str_or_null(cb->campaign_id));
    json_object_set_new(o, "created_at", json_string(cb->created_at));
    json_object_set_new(o, "note", jsonb_str_or_null(cb->note));
    json_object_set_new(o, "battle_id", jsonb_str_or_null(battle_id));
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
