/*
 * matrix_odds.c: the odds of a Matrix battle (docs/odds.md, "Matrix"):
 * a one-off battle's plan (read by its own stages), a campaign battle as
 * it stands (its stored actions replayed, from a read snapshot), or a
 * campaign setup not yet created (its armies bound from the snapshot);
 * counted by core/odds_matrix.c, written as JSON.
 */
#include "matrix_odds.h"

#include "battle.h"
#include "combat.h"
#include "jsonv.h"
#include "matrix_campaign.h"
#include "odds_matrix.h"
#include "pipeline.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

/* ---- the request ---- */

/* A one-off plan's actions as the odds take them: the order of the
 * combats and the reserves planned for each. */
static void plan_of(const matrix_job *j, matrix_plan *p, int *n_order)
{
    int i;

    *n_order = 0;
    for (i = 0; i < j->n_actions; i++) {
        const matrix_action *a = &j->actions[i];
        if (a->kind == MATRIX_ACT_ROLL)
            p->order[(*n_order)++] = a->combat;
        else if (a->kind == MATRIX_ACT_COMMIT)
            p->reserves[a->combat][p->n_reserves[a->combat]++] =
                a->army * MATRIX_MAX_UNITS + a->unit;
    }
}

/* The combats not rolled yet, in the order of the line. */
static void plan_rest(const matrix_job *j, matrix_plan *p, int *n_order)
{
    int c;

    *n_order = 0;
    for (c = 0; c < j->setup.n_line; c++)
        if (!j->battle.combats[c].is_rolled)
            p->order[(*n_order)++] = c;
}

/* A campaign's battle as it stands: {"battle", "expect_actions"}. */
static err_code campaign_battle(const odds_json_req *q, matrix_job *j,
                                err_info *e)
{
    static const char *const fields[] = {"battle", "expect_actions", NULL};
    const char *id = NULL;
    int expect = -1;
    db_conn *c;
    err_code rc;

    if ((rc = jv_object_only(q->body, "", fields, e)) ||
        (rc = jv_string(q->body, "", "battle", true, DB_ID_MAX - 1, &id, e)) ||
        (rc = jv_int(q->body, "", "expect_actions", false, 0, 100000, &expect,
                     e)) ||
        (rc = db_read_begin(q->d, &c, e)))
        return rc;
    if ((rc = battle_check_system(c, q->campaign_id, id, "matrix", e)) ==
        ERR_OK)
        rc = matrix_campaign_load(c, q->campaign_id, id, j, e);
    if (db_read_end(q->d, c, rc ? NULL : e) && rc == ERR_OK)
        rc = e && e->code ? e->code : ERR_DB;
    if (rc)
        return rc;
    if (strcmp(j->row.status, "open") != 0)
        return err_set(e, ERR_CONFLICT, "battle", "the battle is over (%s)",
                       j->row.status);
    if (expect >= 0 && expect != j->row.n_actions)
        return err_set(e, ERR_CONFLICT, "expect_actions",
                       "the battle has %d actions, not %d: another action "
                       "landed first",
                       j->row.n_actions, expect);
    return ERR_OK;
}

/* A campaign setup, as a battle would be created from it. */
static err_code campaign_setup(const odds_json_req *q, matrix_job *j,
                               err_info *e)
{
    static const char *const fields[] = {
        "system",   "kind", "ambush", "basis", "turn", "attacker",
        "defender", "line", "dice",   "note",  NULL};
    db_conn *c;
    err_code rc;

    text_copy(j->rec.campaign_id, DB_ID_MAX, q->campaign_id);
    j->request = json_incref((json_t *)q->body);
    if ((rc = jv_object_only(q->body, "", fields, e)) ||
        (rc = jv_int(q->body, "", "turn", true, 1, 1000000, &j->turn, e)) ||
        (rc = combat_parse_record(q->body, &j->rec, e)) ||
        (rc = matrix_json_parse_setup(q->body, true, false, j, e)) ||
        (rc = db_read_begin(q->d, &c, e)))
        return rc;
    rc = matrix_campaign_bind(c, j, e);
    if (db_read_end(q->d, c, rc ? NULL : e) && rc == ERR_OK)
        rc = e && e->code ? e->code : ERR_DB;
    /* the line's names to units, the setup checked, the battle begun */
    return rc ? rc : matrix_json_prepare(j, e);
}

/* The reserve considered, by the name (or id) the request gives. */
static err_code reserve_of(const odds_json_ask *ask, const matrix_job *j,
                           odds_matrix_input *in, err_info *e)
{
    int a = ask->reserve_army, u;

    in->with_combat = -1;
    if (!ask->has_reserve)
        return ERR_OK;
    for (u = 0; u < j->setup.armies[a].n_units; u++)
        if (strcmp(j->unit_name[a][u], ask->reserve_unit) == 0 ||
            (j->unit_id[a][u][0] &&
             strcmp(j->unit_id[a][u], ask->reserve_unit) == 0))
            break;
    if (u == j->setup.armies[a].n_units)
        return err_set(e, ERR_INVALID, "odds.reserve.unit",
                       "the %s has no unit \"%s\"", matrix_json_army_key[a],
                       ask->reserve_unit);
    in->with_combat = ask->reserve_combat;
    in->with_army = a;
    in->with_unit = u;
    return ERR_OK;
}

/* ---- the answer ---- */

static json_t *classes_json(const odds_acc *acc, odds_count total,
                            bool is_exact)
{
    static const char *const fates[] = {"repulsed", "beaten", "routed"};
    json_t *a = json_array();
    int k;

    json_array_append_new(
        a, json_pack("{s:s, s:n, s:o}", "result", "even", "loser", "p",
                     odds_json_acc(&acc[0], total, 1, is_exact)));
    for (k = 1; k < ODDS_MATRIX_CLASSES; k++)
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:o}", "result", fates[(k - 1) % 3],
                         "loser", matrix_json_army_key[(k - 1) / 3], "p",
                         odds_json_acc(&acc[k], total, 1, is_exact)));
    return a;
}

static json_t *combat_json(const matrix_job *j, const odds_matrix *o,
                           const odds_matrix_input *in, int c)
{
    const odds_matrix_combat *oc = &o->combats[c];
    const matrix_pairing *p = &j->setup.line[c];
    json_t *with = json_null();

    if (oc->has_with)
        with = json_pack(
            "{s:s, s:s, s:b, s:o}", "army", matrix_json_army_key[in->with_army],
            "unit", j->unit_name[in->with_army][in->with_unit], "exact",
            oc->is_with_exact, "results",
            classes_json(oc->with, oc->with_total, oc->is_with_exact));
    return json_pack(
        "{s:i, s:o, s:o, s:b, s:b, s:b, s:o, s:o}", "index", c, "attacker",
        matrix_json_names(j, 0, p->units[0], p->n_units[0]), "defender",
        matrix_json_names(j, 1, p->units[1], p->n_units[1]), "rolled",
        oc->is_rolled, "accepted", oc->is_accepted, "exact", oc->is_now_exact,
        "results", classes_json(oc->now, oc->now_total, oc->is_now_exact),
        "if_reserve_joins", with);
}

static json_t *army_json(const matrix_job *j, const odds_matrix_battle *b,
                         int a)
{
    bool x = b->stats.is_exact;
    json_t *pts = json_array(), *units = json_array();
    int k, u;

    for (k = 0; k <= ODDS_MATRIX_POINTS; k++)
        if (b->points[a][k].sum != 0)
            json_array_append_new(
                pts,
                json_pack("{s:i, s:o}", "points", k, "p",
                          odds_json_acc(&b->points[a][k], b->total, 1, x)));
    for (u = 0; u < j->setup.armies[a].n_units; u++)
        json_array_append_new(
            units,
            json_pack(
                "{s:s, s:o, s:o, s:o, s:o}", "name", j->unit_name[a][u],
                "fought", odds_json_acc(&b->fought[a][u], b->total, 1, x),
                "repulsed",
                odds_json_acc(&b->fates[a][u][MATRIX_REPULSED], b->total, 1, x),
                "beaten",
                odds_json_acc(&b->fates[a][u][MATRIX_BEATEN], b->total, 1, x),
                "routed",
                odds_json_acc(&b->fates[a][u][MATRIX_ROUTED], b->total, 1, x)));
    return json_pack(
        "{s:o, s:o, s:o}", "casualty_points", pts, "mean_casualty_points",
        odds_json_acc(&b->mean_points[a], b->total, 1, x), "units", units);
}

static json_t *battle_json(const matrix_job *j, const odds_matrix_battle *b)
{
    bool x = b->stats.is_exact;
    json_t *o = json_object(), *states = json_array();
    int k;

    odds_json_part(o, &b->stats);
    for (k = 0; k < 4; k++)
        json_array_append_new(
            states, json_pack("{s:s, s:o}", "army_state",
                              matrix_state_name((matrix_state)k), "p",
                              odds_json_acc(&b->state[k], b->total, 1, x)));
    json_object_set_new(
        o, "winner",
        json_pack("{s:o, s:o, s:o}", "attacker",
                  odds_json_acc(&b->winner[0], b->total, 1, x), "defender",
                  odds_json_acc(&b->winner[1], b->total, 1, x), "draw",
                  odds_json_acc(&b->winner[2], b->total, 1, x)));
    json_object_set_new(o, "escalated",
                        odds_json_acc(&b->escalated, b->total, 1, x));
    json_object_set_new(o, "army_state", states);
    json_object_set_new(o, "exhausted",
                        odds_json_acc(&b->exhausted, b->total, 1, x));
    json_object_set_new(o, "attacker", army_json(j, b, 0));
    json_object_set_new(o, "defender", army_json(j, b, 1));
    return o;
}

static json_t *answer_json(const odds_json_req *q, const matrix_job *j,
                           const odds_matrix *o, const odds_matrix_input *in)
{
    json_t *a = odds_json_head("matrix", &o->stats, &q->ask), *combats;
    int c;

    combats = json_array();
    for (c = 0; c < o->n_combats; c++)
        json_array_append_new(combats, combat_json(j, o, in, c));
    json_object_set_new(
        a, "reserve",
        o->has_with
            ? json_pack("{s:i, s:s, s:s}", "combat", in->with_combat, "army",
                        matrix_json_army_key[in->with_army], "unit",
                        j->unit_name[in->with_army][in->with_unit])
            : json_null());
    json_object_set_new(a, "combats", combats);
    json_object_set_new(a, "battle", battle_json(j, &o->battle));
    json_object_set_new(a, "battle_if_reserve_joins",
                        o->has_with ? battle_json(j, &o->battle_with)
                                    : json_null());
    return a;
}

json_t *matrix_odds_answer(const odds_json_req *q, err_info *e)
{
    matrix_plan *plan = calloc(1, sizeof *plan);
    odds_matrix *o = calloc(1, sizeof *o);
    matrix_job *j = NULL;
    void *job = NULL;
    odds_matrix_input in;
    json_t *a = NULL;
    err_code rc;

    memset(&in, 0, sizeof in);
    if (plan == NULL || o == NULL ||
        (q->campaign_id && (job = j = calloc(1, sizeof *j)) == NULL)) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    if (q->campaign_id == NULL) {
        /* read: the setup, the battle begun, the plan's actions */
        rc = pipeline_bound(q->system, q->body, NULL, q->d, &job, e);
        j = job;
        if (rc == ERR_OK)
            plan_of(j, plan, &in.n_order);
    } else {
        rc = json_object_get(q->body, "battle") ? campaign_battle(q, j, e)
                                                : campaign_setup(q, j, e);
        if (rc == ERR_OK)
            plan_rest(j, plan, &in.n_order);
    }
    if (rc)
        goto out;
    in.battle = &j->battle;
    in.plan = plan;
    if (reserve_of(&q->ask, j, &in, e) ||
        odds_matrix_compute(&in, &q->ask.limits, o, e))
        goto out;
    a = answer_json(q, j, o, &in);
out:
    matrix_job_free(job);
    free(plan);
    free(o);
    return a;
}
