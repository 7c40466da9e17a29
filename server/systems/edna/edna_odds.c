/*
 * edna_odds.c: the odds of an EDNA test (docs/odds.md, "EDNA"): the test
 * read and bound by its own stages (pipeline_bound), worked out by
 * core/odds_edna.c, written as JSON.
 */
#include "edna_odds.h"

#include "edna_json.h"
#include "odds_edna.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

/* Whether v can happen: its fraction or its estimate is above 0. */
static bool is_possible(const odds_value *v)
{
    return v->is_exact ? v->num != 0 : v->decimal > 0;
}

static json_t *unit_json(const edna_job *j, const odds_edna *o, size_t i,
                         int later)
{
    const odds_edna_unit *u = &o->units[i];
    json_t *after = json_array(), *within = json_array();
    int v, k;

    for (v = j->units[i].edna; v >= 0; v--)
        if (is_possible(&u->after[v]))
            json_array_append_new(after,
                                  json_pack("{s:i, s:o}", "edna", v, "p",
                                            odds_json_value(&u->after[v])));
    for (k = 1; k <= o->ahead; k++)
        json_array_append_new(within,
                              json_pack("{s:i, s:o}", "tests", k, "p",
                                        odds_json_value(&u->within[k])));
    return json_pack(
        "{s:s, s:s?, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "name",
        j->unit_name[i], "unit_id", j->unit_id[i][0] ? j->unit_id[i] : NULL,
        "edna", j->units[i].edna, "modifier", j->units[i].modifier,
        "later_modifier", later, "passed", odds_json_value(&u->passed),
        "failed", odds_json_value(&u->failed), "edna_after", after,
        "mean_edna_after", odds_json_value(&u->mean_after), "ineffective_now",
        odds_json_value(&u->within[0]), "ineffective_within", within,
        "chain_exact", u->is_chain_exact);
}

json_t *edna_odds_answer(const odds_json_req *q, err_info *e)
{
    odds_edna o;
    void *job = NULL;
    edna_job *j = NULL;
    int *later = NULL;
    json_t *a = NULL, *units;
    size_t i;

    memset(&o, 0, sizeof o);
    if (pipeline_bound(q->system, q->body, q->campaign_id, q->d, &job, e))
        goto out;
    j = job;
    if (q->ask.has_later_modifier) {
        if ((later = calloc(j->in.n_units, sizeof *later)) == NULL) {
            err_set(e, ERR_NOMEM, NULL, "out of memory");
            goto out;
        }
        for (i = 0; i < j->in.n_units; i++)
            later[i] = q->ask.later_modifier;
    }
    if (odds_edna_compute(&j->in, later, q->ask.tests_ahead, &q->ask.limits, &o,
                          e))
        goto out;
    a = odds_json_head("edna", &o.stats, &q->ask);
    json_object_set_new(a, "tests_ahead", json_integer(o.ahead));
    json_object_set_new(a, "options",
                        json_pack("{s:i, s:i}", "dice", j->in.options.dice,
                                  "faces", j->in.options.faces));
    units = json_array();
    for (i = 0; i < o.n_units; i++)
        json_array_append_new(
            units,
            unit_json(j, &o, i, later ? later[i] : j->units[i].modifier));
    json_object_set_new(a, "units", units);
out:
    free(later);
    if (job != NULL)
        q->system->job_free(job);
    odds_edna_cleanup(&o);
    return a;
}
