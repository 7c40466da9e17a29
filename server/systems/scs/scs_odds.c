/*
 * scs_odds.c: the odds of an SCS combat (docs/odds.md, "SCS"): the
 * combat read and bound by its own stages (pipeline_bound), the table's
 * column and each unit's losses counted by core/odds_scs.c, as JSON.
 */
#include "scs_odds.h"

#include "jsonb.h"
#include "odds_scs.h"
#include "pipeline.h"
#include "scs_combat.h"

#include <stdlib.h>

static json_t *frac_json(scs_frac f)
{
    char a[SCS_FRAC_TEXT], b[SCS_FRAC_TEXT];

    scs_frac_text(f, a);
    scs_frac_decimal(f, b);
    return json_pack("{s:s, s:s}", "fraction", a, "decimal", b);
}

static json_t *column_json(const scs_combat *j, int col)
{
    char t[24];

    if (col < 0)
        return json_null();
    scs_odds_text(j->table.columns[col], t);
    return json_string(t);
}

/* The column's rows, each with its result, and its distinct results. */
static void table_json(const scs_combat *j, const odds_scs *o, json_t *a)
{
    json_t *rows = json_array(), *results = json_array();
    bool x = o->stats.is_exact;
    char label[4];
    int r;

    for (r = 0; !o->is_off_table && r < o->n_rows; r++) {
        scs_roll_label(j->table.roll, r, label);
        json_array_append_new(
            rows, json_pack("{s:s, s:s, s:o}", "roll", label, "result",
                            j->table.text[r][o->column], "p",
                            odds_json_acc(&o->rows[r], o->total, 1, x)));
    }
    for (r = 0; r < o->n_results; r++)
        json_array_append_new(
            results, json_pack("{s:s, s:o}", "result", o->results_text[r], "p",
                               odds_json_acc(&o->results[r], o->total, 1, x)));
    json_object_set_new(a, "rows", rows);
    json_object_set_new(a, "results", results);
}

static json_t *unit_json(const scs_combat *j, const odds_scs *o, int s,
                         size_t i)
{
    const odds_scs_unit *u = &o->units[s][i];
    const scs_unit *in = &j->units[s][i];
    json_t *lost = json_array();
    bool x = o->stats.is_exact;
    int k;

    for (k = 0; k <= in->steps - in->steps_lost; k++)
        if (u->lost[k].sum != 0)
            json_array_append_new(
                lost, json_pack("{s:i, s:o}", "steps", k, "p",
                                odds_json_acc(&u->lost[k], o->total, 1, x)));
    return json_pack(
        "{s:s, s:o, s:i, s:i, s:o, s:o, s:o}", "name", j->unit_name[s][i],
        "unit_id", jsonb_str_or_null(j->unit_id[s][i]), "steps", in->steps,
        "steps_lost_before", in->steps_lost, "steps_lost", lost,
        "mean_steps_lost", odds_json_acc(&u->mean_lost, o->total, 1, x),
        "eliminated", odds_json_acc(&u->eliminated, o->total, 1, x));
}

static void sides_json(const scs_combat *j, const odds_scs *o, json_t *a)
{
    bool x = o->stats.is_exact;
    size_t i;
    int s;

    for (s = 0; s < 2; s++) {
        json_t *units = json_array();
        for (i = 0; i < j->in.n_units[s]; i++)
            json_array_append_new(units, unit_json(j, o, s, i));
        json_object_set_new(a, scs_combat_side_key[s], units);
        json_object_set_new(
            a, scs_combat_side_label[s],
            json_pack("{s:o, s:o, s:o}", "mean_steps_lost",
                      odds_json_acc(&o->side_lost[s], o->total, 1, x),
                      "eliminated",
                      odds_json_acc(&o->side_eliminated[s], o->total, 1, x),
                      "mean_retreat_hexes",
                      odds_json_acc(&o->retreat_hexes[s], o->total, 1, x)));
    }
    json_object_set_new(a, "hex_vacated",
                        odds_json_acc(&o->vacated, o->total, 1, x));
    json_object_set_new(a, "advance_allowed",
                        odds_json_acc(&o->advance, o->total, 1, x));
}

json_t *scs_odds_answer(const odds_json_req *q, err_info *e)
{
    odds_scs *o = calloc(1, sizeof *o);
    void *job = NULL;
    scs_combat *j;
    json_t *a = NULL;
    char odds[24];

    if (o == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    if (pipeline_bound(q->system, q->body, q->campaign_id, q->d, &job, e) ||
        (j = job, odds_scs_compute(&j->in, &q->ask.limits, o, e) != ERR_OK))
        goto out;
    a = odds_json_head("scs", &o->stats, &q->ask);
    json_object_set_new(a, "table",
                        json_pack("{s:O, s:s}", "name",
                                  json_object_get(j->table_doc, "name"), "roll",
                                  scs_roll_kind_name(j->table.roll)));
    json_object_set_new(a, "attack_total", frac_json(o->totals[0]));
    json_object_set_new(a, "defense_total", frac_json(o->totals[1]));
    scs_odds_text(o->odds, odds);
    json_object_set_new(a, "odds",
                        o->odds.defense ? json_string(odds) : json_null());
    json_object_set_new(a, "column_before_shifts",
                        column_json(j, o->column_found));
    json_object_set_new(a, "column", column_json(j, o->column));
    json_object_set_new(a, "off_table", json_boolean(o->is_off_table));
    table_json(j, o, a);
    sides_json(j, o, a);
out:
    if (job != NULL)
        q->system->job_free(job);
    free(o);
    return a;
}
