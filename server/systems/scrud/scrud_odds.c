/*
 * scrud_odds.c: the odds of a SCRUD combat (docs/odds.md, "SCRUD"): the
 * request read and bound by the combat's own stages (pipeline_bound),
 * counted by core/odds_scrud.c, written as JSON.
 */
#include "scrud_odds.h"

#include "pipeline.h"
#include "scrud_json.h"
#include "odds_scrud.h"

#include <stdlib.h>

/* Unit i of side s: its chances, and its penalties before and after. */
static json_t *unit_json(const scrud_plan *p, const odds_scrud *o, int s,
                         size_t i)
{
    const odds_scrud_unit *u = &o->units[s][i];
    const scrud_unit *in = &p->in.sides[s].units[i];
    bool x = o->stats.is_exact;
    odds_count t = o->total;

    return json_pack(
        "{s:s, s:s?, s:b, s:i, s:o, s:o, s:o, s:o, s:o, s:{s:i, s:o}, "
        "s:{s:i, s:o}}",
        "name", p->unit_name[s][i], "unit_id",
        p->unit_id[s][i][0] ? p->unit_id[s][i] : NULL, "reserve",
        in->is_reserve, "block", (int)u->block, "defeated",
        odds_json_acc(&u->defeated, t, 1, x), "mean_defeats",
        odds_json_acc(&u->defeats, t, 1, x), "eliminated",
        odds_json_acc(&u->eliminated, t, 1, x), "eliminated_by_threshold",
        odds_json_acc(&u->by_threshold, t, 1, x), "eliminated_by_defeats",
        odds_json_acc(&u->by_defeats, t, 1, x), "defeat_penalty", "before",
        in->defeat_penalty, "mean_after",
        odds_json_acc(&u->defeat_penalty, t, 1, x), "fatigue_penalty", "before",
        in->fatigue_penalty, "mean_after",
        odds_json_acc(&u->fatigue_penalty, t, 1, x));
}

static json_t *side_json(const scrud_plan *p, const odds_scrud *o, int s)
{
    json_t *dist = json_array(), *units = json_array();
    bool x = o->stats.is_exact;
    size_t i;
    int d;

    for (d = 0; d <= o->max_defeats[s]; d++)
        if (o->defeats[s][d].sum != 0)
            json_array_append_new(
                dist,
                json_pack("{s:i, s:o}", "defeats", d, "p",
                          odds_json_acc(&o->defeats[s][d], o->total, 1, x)));
    for (i = 0; i < o->n_units[s]; i++)
        json_array_append_new(units, unit_json(p, o, s, i));
    return json_pack("{s:s, s:o, s:o, s:o}", "name", p->side_name[s], "defeats",
                     dist, "mean_defeats",
                     odds_json_acc(&o->mean_defeats[s], o->total, 1, x),
                     "units", units);
}

json_t *scrud_odds_answer(const odds_json_req *q, err_info *e)
{
    odds_scrud *o = calloc(1, sizeof *o);
    void *job = NULL;
    scrud_job *j;
    json_t *a = NULL;
    bool x;

    if (o == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    if (pipeline_bound(q->system, q->body, q->campaign_id, q->d, &job, e) ||
        (j = job,
         odds_scrud_compute(&j->plan.in, &q->ask.limits, o, e) != ERR_OK))
        goto out;
    x = o->stats.is_exact;
    a = odds_json_head("scrud", &o->stats, &q->ask);
    json_object_set_new(a, "sides",
                        json_pack("[o, o]", side_json(&j->plan, o, 0),
                                  side_json(&j->plan, o, 1)));
    json_object_set_new(
        a, "more_defeats",
        json_pack("{s:o, s:o, s:o}", "first",
                  odds_json_acc(&o->more[0], o->total, 1, x), "second",
                  odds_json_acc(&o->more[1], o->total, 1, x), "equal",
                  odds_json_acc(&o->more[2], o->total, 1, x)));
out:
    if (job != NULL)
        q->system->job_free(job);
    odds_scrud_cleanup(o);
    free(o);
    return a;
}
