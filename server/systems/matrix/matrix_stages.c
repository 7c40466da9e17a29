/*
 * matrix_stages.c: Matrix game battles (docs/rules/matrix.md) through the
 * table of systems: the one-off battle, whole in one request with its plan
 * (order of combats, reserves committed up front), and the replay of any
 * finished Matrix battle from its record; see systems.h.  Battles fought
 * action by action in a campaign are in matrix_campaign.c, the JSON in
 * matrix_json.c, the report's Markdown and HTML in matrix_report.c.
 */
#include "matrix_report.h"
#include "systems.h"
#include "combat.h"
#include "fog.h"
#include "jsonv.h"
#include "matrix_json.h"
#include "matrix_odds.h"
#include "text.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one-off battles ---- */

/* A refusal of the plan's action i, named where the plan gave it:
 * "commits[k].unit" rather than core's "unit". */
static void origin_field(const matrix_job *j, int i, err_info *e)
{
    const matrix_action *a = &j->actions[i];
    char f[ERR_FIELD_MAX + 32];

    if (a->origin >= 0)
        snprintf(f, sizeof f, "commits[%d]%s%.100s", a->origin,
                 e->field[0] ? "." : "", e->field);
    else
        snprintf(f, sizeof f, "line[%d]", -1 - a->origin);
    text_copy(e->field, sizeof e->field, f);
}

/* The actions of a one-off plan: for each combat in the attacker's order,
 * roll it, commit the reserves planned for it, accept it. */
static err_code plan_actions(const json_t *body, matrix_job *j, bool is_entered,
                             err_info *e)
{
    static const char *const commit_fields[] = {"combat", "army", "unit", "die",
                                                NULL};
    const json_t *order = json_object_get(body, "order");
    const json_t *commits = json_object_get(body, "commits");
    const json_t *line = json_object_get(body, "line");
    bool seen[MATRIX_MAX_COMBATS] = {false};
    char p[JV_PATH_MAX];
    size_t i, k;
    int c;
    err_code rc;

    if (order && (!json_is_array(order) ||
                  json_array_size(order) != (size_t)j->setup.n_line))
        return err_set(e, ERR_INVALID, "order",
                       "the order of the %d combats: each index once",
                       j->setup.n_line);
    if (commits && (!json_is_array(commits) ||
                    json_array_size(commits) > 2 * MATRIX_MAX_UNITS))
        return err_set(e, ERR_INVALID, "commits",
                       "a list of reserves to commit, at most %d",
                       2 * MATRIX_MAX_UNITS);
    for (i = 0; i < json_array_size(commits); i++) {
        jv_index(p, "commits", i);
        if ((rc = jv_object_only(json_array_get(commits, i), p, commit_fields,
                                 e)) ||
            (rc = jv_int(json_array_get(commits, i), p, "combat", true, 0,
                         j->setup.n_line - 1, &c, e)))
            return rc;
    }
    j->n_actions = 0;
    for (i = 0; i < (size_t)j->setup.n_line; i++) {
        const json_t *pair, *dice;
        matrix_action *a;
        if (order) {
            const json_t *v = json_array_get(order, i);
            jv_index(p, "order", i);
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) >= j->setup.n_line ||
                seen[json_integer_value(v)])
                return err_set(e, ERR_INVALID, p,
                               "each combat's index once, 0 to %d",
                               j->setup.n_line - 1);
            c = (int)json_integer_value(v);
        } else {
            c = (int)i;
        }
        seen[c] = true;
        pair = json_array_get(line, (size_t)c);
        dice = json_object_get(pair, "dice");
        a = &j->actions[j->n_actions++];
        memset(a, 0, sizeof *a);
        a->kind = MATRIX_ACT_ROLL;
        a->combat = c;
        a->army = a->unit = -1;
        a->origin = -1 - c;
        jv_index(p, "line", (size_t)c);
        if (dice && !is_entered)
            return err_set(e, ERR_INVALID, p,
                           "the dice are seeded: give a combat's \"dice\" "
                           "only when they are entered");
        if (!dice && is_entered)
            return err_set(e, ERR_MISSING, p,
                           "entered dice: give each combat's \"dice\"");
        if (dice) {
            json_t *act = json_pack("{s:s, s:i, s:O}", "action", "roll",
                                    "combat", c, "dice", dice);
            rc = matrix_json_parse_action(act, p, j, true, a, e);
            json_decref(act);
            if (rc)
                return rc;
        }
        for (k = 0; k < json_array_size(commits); k++) {
            const json_t *cm = json_array_get(commits, k);
            json_t *act;
            if (json_integer_value(json_object_get(cm, "combat")) != c)
                continue;
            jv_index(p, "commits", k);
            act = json_deep_copy(cm);
            json_object_set_new(act, "action", json_string("commit"));
            a = &j->actions[j->n_actions++];
            rc = matrix_json_parse_action(act, p, j, is_entered, a, e);
            a->origin = (int)k;
            json_decref(act);
            if (rc)
                return rc;
        }
        a = &j->actions[j->n_actions++];
        memset(a, 0, sizeof *a);
        a->kind = MATRIX_ACT_ACCEPT;
        a->combat = c;
        a->army = a->unit = -1;
        a->origin = -1 - c;
    }
    return ERR_OK;
}

/* Zeroes the members of j from offset from up to offset to. */
static void zero_members(matrix_job *j, size_t from, size_t to)
{
    memset((char *)j + from, 0, to - from);
}

/*
 * A one-off's job, zeroed but for the battle and the actions, 168 KB of
 * its 189: matrix_json_prepare sets the battle (matrix_battle_init) before
 * anything reads it, and the actions are written one by one as n_actions
 * counts them.
 */
static void *job_new(const json_t *body, err_info *e)
{
    matrix_job *j = malloc(sizeof *j);

    _Static_assert(
        offsetof(matrix_job, battle) < offsetof(matrix_job, result) &&
            offsetof(matrix_job, result) < offsetof(matrix_job, actions) &&
            offsetof(matrix_job, actions) < offsetof(matrix_job, n_actions),
        "job_new zeroes matrix_job in this order");
    (void)body;
    if (j == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    zero_members(j, 0, offsetof(matrix_job, battle));
    zero_members(j, offsetof(matrix_job, result),
                 offsetof(matrix_job, actions));
    zero_members(j, offsetof(matrix_job, n_actions), sizeof *j);
    return j;
}

/* read: the setup (armies, line, reserves) and the plan's actions. */
static err_code read_request(void *job, const json_t *body, bool is_campaign,
                             err_info *e)
{
    static const char *const fields[] = {
        "kind",  "ambush",  "basis", "attacker", "defender", "line",
        "order", "commits", "dice",  "note",     NULL};
    matrix_job *j = job;
    err_code rc;

    (void)is_campaign; /* a campaign's battles are matrix_campaign.c's */
    j->request = json_incref((json_t *)body);
    if ((rc = jv_object_only(body, "", fields, e)) ||
        (rc = combat_parse_record(body, &j->rec, e)) ||
        (rc = matrix_json_parse_setup(body, false, false, j, e)) ||
        (rc = matrix_json_prepare(j, e)) ||
        (rc = plan_actions(body, j, j->rec.dice.kind == DICE_ENTERED, e)))
        return rc;
    return ERR_OK;
}

/* Applies the plan's actions from the battle's start, to its end. */
static err_code fight(matrix_job *j, dice_source *src, err_info *e)
{
    int i, k;
    err_code rc;

    if ((rc = matrix_battle_init(&j->battle, &j->setup, e)))
        return rc;
    for (i = 0; i < j->n_actions && !matrix_is_over(&j->battle); i++)
        if ((rc = matrix_json_apply(j, &j->actions[i], src, e))) {
            origin_field(j, i, e);
            return rc;
        }
    /* A skirmish that escalates ends there: a plan going on is wrong. */
    for (k = i; k < j->n_actions; k++)
        if (j->actions[k].kind == MATRIX_ACT_COMMIT) {
            char f[JV_PATH_MAX];
            jv_index(f, "commits", (size_t)j->actions[k].origin);
            return err_set(e, ERR_RULE, f,
                           "the skirmish escalated to an open battle when "
                           "both armies had committed all their reserves: "
                           "no commit follows that");
        }
    j->n_actions = i; /* the accept left over: the skirmish ended there */
    return ERR_OK;
}

/* run: the battle fought whole with its dice, and its record. */
static err_code run(void *job, err_info *e)
{
    matrix_job *j = job;
    int values[4 * MATRIX_JSON_MAX_ACTIONS], n_values = 0, i, k;
    dice_source src;
    err_code rc;

    for (i = 0; i < j->n_actions; i++)
        for (k = 0; k < j->actions[i].n_naturals; k++)
            values[n_values++] = j->actions[i].naturals[k];
    combat_dice_init(&j->rec, &src, values, (size_t)n_values);
    rc = fight(j, &src, e);
    if (rc == ERR_OK)
        rc = matrix_json_record(j, NULL, e);
    dice_cleanup(&src);
    return rc;
}

/* ---- replay ---- */

static bool replay(const json_t *stored, dice_source *src, json_t *diffs)
{
    static const char *const parts[] = {"armies", "combats", "over",
                                        "escalated", "result"};
    const json_t *input = json_object_get(stored, "input");
    const json_t *acts = json_object_get(input, "actions");
    matrix_job *j = calloc(1, sizeof *j);
    const char *source;
    char *md = NULL;
    json_t *again = NULL;
    bool is_resolved = false;
    size_t i;
    err_info e;

    err_clear(&e);
    if (j == NULL || !json_is_array(acts) ||
        json_array_size(acts) > MATRIX_JSON_MAX_ACTIONS) {
        combat_differ(diffs, "the stored report does not describe a battle");
        goto out;
    }
    j->request = json_incref(json_object_get(input, "setup"));
    if (matrix_json_parse_setup(j->request, false, true, j, &e) ||
        matrix_json_prepare(j, &e)) {
        combat_differ(diffs, "the stored setup cannot be read: %s", e.message);
        goto out;
    }
    for (i = 0; i < json_array_size(acts); i++) {
        json_t *act = json_deep_copy(json_array_get(acts, i));
        /* the dice come from the log: read as seeded (none given) */
        if (matrix_json_parse_action(act, "input.actions", j, false,
                                     &j->actions[i], &e)) {
            json_decref(act);
            combat_differ(diffs, "action %zu cannot be read: %s", i + 1,
                          e.message);
            goto out;
        }
        json_decref(act);
    }
    j->n_actions = (int)json_array_size(acts);
    if (matrix_battle_init(&j->battle, &j->setup, &e)) {
        combat_differ(diffs, "the stored setup breaks the rules: %s",
                      e.message);
        goto out;
    }
    for (i = 0; i < (size_t)j->n_actions; i++)
        if (matrix_json_apply(j, &j->actions[i], src, &e)) {
            combat_differ(diffs, "action %zu does not replay: %s", i + 1,
                          e.message);
            goto out;
        }
    is_resolved = true;
    if (!j->battle.is_escalated &&
        matrix_battle_result(&j->battle, &j->result, &e)) {
        combat_differ(diffs, "the battle is not over: %s", e.message);
        goto out;
    }
    again = matrix_json_state_json(j);
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!json_equal(json_object_get(again, parts[i]),
                        json_object_get(stored, parts[i])))
            combat_differ(diffs, "the %s differ from the stored report",
                          parts[i]);
    /* The summary, written from the outcome and the dice's kind. */
    source = json_string_value(
        json_object_get(json_object_get(stored, "dice"), "source"));
    j->rec.dice.kind =
        source && strcmp(source, "seeded") == 0 ? DICE_SEEDED : DICE_ENTERED;
    md = j->battle.is_escalated ? NULL : matrix_json_markdown(j);
    {
        json_t *want = md ? json_string(md) : json_null();
        if (!json_equal(json_object_get(stored, "summary_markdown"), want))
            combat_differ(diffs, "the summary differs from the stored report");
        json_decref(want);
    }
out:
    free(md);
    json_decref(again);
    matrix_job_free(j);
    return is_resolved;
}

/* unit: its quality. */
static json_t *unit_json(const db_unit *u)
{
    return u->has_matrix ? json_pack("{s:i}", "quality", u->matrix_quality)
                         : NULL;
}

/* fog: each army's units reduced to what the viewer sees of its side
 * (fog.h), in a battle's setup or its record's "input"; the fight (the
 * line, each combat's dice, reserves and result) stays, the hidden units'
 * names nulled. */
static void fog(fog_pass *p, json_t *doc)
{
    json_t *input = json_object_get(doc, "input");

    fog_armies(p, json_object_get(doc, "setup"));
    fog_armies(p, json_object_get(input, "setup"));
    fog_scrub(p, json_object_get(doc, "setup"));
    fog_scrub(p, input);
    fog_scrub(p, json_object_get(doc, "armies"));
    fog_scrub(p, json_object_get(doc, "combats"));
    fog_scrub(p, json_object_get(doc, "result"));
}

const systems_entry matrix_stages = {
    .rules = &matrix_system,
    .job_new = job_new,
    .job_free = matrix_job_free,
    .read = read_request,
    .run = run,
    .replay = replay,
    .render = matrix_report_render,
    .unit_json = unit_json,
    .battle = &matrix_campaign_battles,
    .odds = matrix_odds_answer,
    .fog = fog,
};
