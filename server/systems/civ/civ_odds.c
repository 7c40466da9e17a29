/*
 * civ_odds.c: the odds of a Civilization phase and battle (docs/odds.md,
 * "Civilization"): a one-off battle read by its own stages, or a campaign
 * battle loaded from a read snapshot with the next phase's orders as a
 * phase action gives them; counted by core/odds_civ.c, as JSON.
 */
#include "civ_odds.h"

#include "battle.h"
#include "civ_campaign.h"
#include "jsonv.h"
#include "odds_civ.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

/* A one-off: the first phase and the rest on the plan's standing orders,
 * as civ_resolve fights them. */
static err_code oneoff(const odds_json_req *q, civ_job **out,
                       odds_civ_input *in, err_info *e)
{
    void *job = NULL;
    civ_job *j;
    int a;
    err_code rc = pipeline_bound(q->system, q->body, NULL, q->d, &job, e);

    *out = j = job;
    if (rc || (rc = civ_battle_init(&j->battle, &j->setup, e)))
        return rc;
    for (a = 0; a < 2; a++) {
        in->orders[a] = j->plan[a];
        in->orders[a].n_wave = 0;
        in->orders[a].is_casualty_preference = true;
        in->standing[a] = in->orders[a];
    }
    in->max_phases = j->max_phases;
    return ERR_OK;
}

/* A campaign battle's next phase: {"battle", "action", "attacker",
 * "defender", "expect_actions", "note", "dice"}, as the phase action
 * (its dice are not used); the battle on from there on the same orders
 * standing (the wave as the preference). */
static err_code campaign(const odds_json_req *q, civ_job **out,
                         odds_civ_input *in, err_info *e)
{
    static const char *const fields[] = {
        "battle",         "action", "attacker", "defender",
        "expect_actions", "note",   "dice",     NULL};
    const char *id = NULL, *act = NULL;
    int expect = -1, a, k;
    dice_source src;
    db_conn *c;
    civ_job *j = *out = civ_job_new(CIV_JSON_MAX_PHASES);
    err_code rc;

    if (j == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if ((rc = jv_object_only(q->body, "", fields, e)) ||
        (rc = jv_string(q->body, "", "battle", true, DB_ID_MAX - 1, &id, e)) ||
        (rc = jv_string(q->body, "", "action", false, 16, &act, e)) ||
        (rc = jv_int(q->body, "", "expect_actions", false, 0, 100000, &expect,
                     e)))
        return rc;
    if (act && strcmp(act, "phase") != 0)
        return err_set(e, ERR_INVALID, "action", "the odds are of a \"phase\"");
    if ((rc = db_read_begin(q->d, &c, e)))
        return rc;
    dice_init_values(&src, DICE_REPLAY, NULL, 0);
    if ((rc = battle_check_system(c, q->campaign_id, id, "civ", e)) == ERR_OK)
        rc = civ_campaign_load(c, q->campaign_id, id, j, &src, e);
    dice_cleanup(&src);
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
    if ((rc = civ_json_parse_orders(q->body, "", j, in->orders, e)))
        return rc;
    for (a = 0; a < 2; a++) {
        civ_orders *s = &in->standing[a];
        *s = in->orders[a];
        s->n_preference = s->n_wave;
        for (k = 0; k < s->n_wave; k++)
            s->preference[k] = s->wave[k];
        s->n_wave = 0;
        s->is_casualty_preference = true;
    }
    in->max_phases = CIV_JSON_MAX_PHASES - j->n_phases;
    return ERR_OK;
}

/* ---- the answer ---- */

static json_t *army_phase_json(const civ_job *j, const odds_civ *o, int a)
{
    const odds_civ_army *m = &o->armies[a];
    bool x = o->phase_stats.is_exact;
    json_t *totals = json_array(), *units = json_array();
    size_t k;
    int u;

    for (k = 0; k < m->totals.n; k++)
        json_array_append_new(
            totals,
            json_pack("{s:i, s:o}", "total", m->totals.keys[k], "p",
                      odds_json_acc(&m->totals.accs[k], o->total, 1, x)));
    for (u = 0; u < j->setup.armies[a].n_units; u++)
        if (j->battle.is_alive[a][u])
            json_array_append_new(
                units,
                json_pack("{s:s, s:o}", "name", j->unit_name[a][u], "destroyed",
                          odds_json_acc(&m->destroyed[u], o->total, 1, x)));
    return json_pack(
        "{s:s, s:o, s:o, s:o, s:o}", "name", j->army_name[a], "totals", totals,
        "mean_total", odds_json_acc(&m->mean_total, o->total, 1, x),
        "mean_pieces_lost", odds_json_acc(&m->mean_destroyed, o->total, 1, x),
        "units", units);
}

static json_t *phase_json(const civ_job *j, const odds_civ *o)
{
    bool x = o->phase_stats.is_exact;
    json_t *p = json_object();
    odds_count t = o->total;

    odds_json_part(p, &o->phase_stats);
    json_object_set_new(p, "attacker", army_phase_json(j, o, 0));
    json_object_set_new(p, "defender", army_phase_json(j, o, 1));
    json_object_set_new(
        p, "higher_total",
        json_pack("{s:o, s:o, s:o}", "attacker",
                  odds_json_acc(&o->higher[0], t, 1, x), "defender",
                  odds_json_acc(&o->higher[1], t, 1, x), "equal",
                  odds_json_acc(&o->higher[2], t, 1, x)));
    json_object_set_new(
        p, "after",
        json_pack("{s:o, s:o, s:o, s:o}", "attacker_wins",
                  odds_json_acc(&o->after[0], t, 1, x), "defender_wins",
                  odds_json_acc(&o->after[1], t, 1, x), "both_gone",
                  odds_json_acc(&o->after[2], t, 1, x), "goes_on",
                  odds_json_acc(&o->after[3], t, 1, x)));
    return p;
}

static json_t *battle_json(const civ_job *j, const odds_civ *o, int max_phases)
{
    json_t *b = json_object();
    int a, u;

    odds_json_part(b, &o->battle_stats);
    json_object_set_new(b, "max_phases", json_integer(max_phases));
    json_object_set_new(b, "winner",
                        json_pack("{s:o, s:o, s:o, s:o}", "attacker",
                                  odds_json_value(&o->winner[0]), "defender",
                                  odds_json_value(&o->winner[1]), "both_gone",
                                  odds_json_value(&o->winner[2]), "unresolved",
                                  odds_json_value(&o->winner[3])));
    json_object_set_new(b, "mean_phases", odds_json_value(&o->mean_phases));
    for (a = 0; a < 2; a++) {
        json_t *units = json_array();
        for (u = 0; u < j->setup.armies[a].n_units; u++)
            if (j->battle.is_alive[a][u])
                json_array_append_new(
                    units,
                    json_pack("{s:s, s:o}", "name", j->unit_name[a][u],
                              "destroyed", odds_json_value(&o->lost[a][u])));
        json_object_set_new(b, civ_json_army_key[a],
                            json_pack("{s:o}", "units", units));
    }
    return b;
}

json_t *civ_odds_answer(const odds_json_req *q, err_info *e)
{
    odds_civ *o = calloc(1, sizeof *o);
    odds_civ_input *in = calloc(1, sizeof *in);
    civ_job *j = NULL;
    json_t *a = NULL;

    if (o == NULL || in == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    if (q->campaign_id ? campaign(q, &j, in, e) : oneoff(q, &j, in, e))
        goto out;
    in->battle = &j->battle;
    in->has_battle = q->ask.is_battle;
    if (odds_civ_compute(in, &q->ask.limits, o, e))
        goto out;
    a = odds_json_head("civ", &o->stats, &q->ask);
    json_object_set_new(a, "phase", phase_json(j, o));
    json_object_set_new(a, "battle",
                        o->has_battle ? battle_json(j, o, in->max_phases)
                                      : json_null());
out:
    civ_job_free(j);
    odds_civ_cleanup(o);
    free(o);
    free(in);
    return a;
}
