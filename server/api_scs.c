/*
 * api_scs.c: SCS odds combats (docs/rules/scs.md): in a campaign against
 * its units' counters and steps lost, or one-off with units inline; the
 * report of step 10 with its Markdown summary, and replay.
 *
 * The report opens with "input": the combat as a one-off request would
 * give it (the table whole, every unit inline as it stood, the orders as
 * resolved), so a reader can resubmit it, and replay reads the combat back
 * from it.  A campaign combat lands whole: every unit's steps, the combat
 * and its roll log in one job of the database writer.
 */
#include "api.h"
#include "combat.h"
#include "jsonv.h"
#include "scs_api.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ORDERS (SCS_MAX_UNITS * SCS_MAX_STEPS)

static const char *const side_key[2] = {"attackers", "defenders"};
static const char *const side_label[2] = {"attacker", "defender"};
static const char *const alloc_key[2] = {"attacker_allocation",
                                         "defender_allocation"};
static const char *const retreat_key[2] = {"attacker_retreat",
                                           "defender_retreat"};

typedef struct scs_job {
    combat_record rec; /* first: combat_finish finds it as the state */
    scs_input in;
    scs_table table;
    scs_outcome out;
    json_t *table_doc;           /* the table resolved on (a reference) */
    const char *table_source;    /* "builtin", "campaign" or "inline" */
    char table_ref[DB_NAME_MAX]; /* campaign: looked up in the job */
    scs_unit units[2][SCS_MAX_UNITS];
    scs_counter counters[2][SCS_MAX_UNITS];
    char unit_ref[2][SCS_MAX_UNITS][DB_NAME_MAX]; /* campaign: as asked */
    char unit_name[2][SCS_MAX_UNITS][DB_NAME_MAX];
    char unit_id[2][SCS_MAX_UNITS][DB_ID_MAX]; /* "" one-off */
    char side_name[2][DB_NAME_MAX];            /* "" one-off */
    json_t *alloc[2]; /* the orders' unit names, resolved once units are */
    json_t *extra[2]; /* known (references) */
    json_t *options;  /* the request's (a reference) or NULL */
    int roll[2];      /* entered dice */
    bool has_roll;
} scs_job;

static void scs_job_free(void *p)
{
    scs_job *j = p;
    int s;

    if (j == NULL)
        return;
    for (s = 0; s < 2; s++) {
        json_decref(j->alloc[s]);
        json_decref(j->extra[s]);
    }
    json_decref(j->table_doc);
    json_decref(j->options);
    combat_record_cleanup(&j->rec);
    free(j);
}

/* ---- reading a combat ---- */

static err_code parse_multipliers(const json_t *u, const char *path,
                                  scs_unit *su, err_info *e)
{
    json_t *ms = NULL;
    char f[JV_PATH_MAX];
    size_t k;
    err_code rc;

    if ((rc = jv_array(u, path, "multipliers", false, 0, SCS_MAX_MULTIPLIERS,
                       &ms, e)))
        return rc;
    jv_path(f, path, "multipliers");
    for (k = 0; k < json_array_size(ms); k++) {
        char fk[JV_PATH_MAX];
        jv_index(fk, f, k);
        if ((rc = scs_api_frac(json_array_get(ms, k), fk, &su->multipliers[k],
                               e)))
            return rc;
    }
    su->n_multipliers = (int)json_array_size(ms);
    return ERR_OK;
}

/* A unit of the request: by reference (campaign) or inline (one-off). */
static err_code parse_unit(const json_t *u, const char *path, bool is_campaign,
                           scs_job *j, int s, size_t i, err_info *e)
{
    static const char *const campaign_fields[] = {"unit", "multipliers", NULL};
    static const char *const inline_fields[] = {
        "name",          "attack",      "defense",    "movement",
        "reduced",       "steps",       "steps_lost", "exploit_capable",
        "out_of_supply", "multipliers", NULL};
    const char *ref = NULL;
    json_t *counter;
    err_code rc;

    if ((rc = jv_object_only(
             u, path, is_campaign ? campaign_fields : inline_fields, e)) ||
        (rc = jv_string(u, path, is_campaign ? "unit" : "name", true, 64, &ref,
                        e)) ||
        (rc = parse_multipliers(u, path, &j->units[s][i], e)))
        return rc;
    text_copy(is_campaign ? j->unit_ref[s][i] : j->unit_name[s][i], DB_NAME_MAX,
              ref);
    if (is_campaign)
        return ERR_OK;
    /* The counter's members, without the combat's. */
    counter = json_deep_copy(u);
    json_object_del(counter, "name");
    json_object_del(counter, "multipliers");
    rc = scs_api_counter_parse(counter, path, false, &j->counters[s][i], e);
    json_decref(counter);
    return rc;
}

static err_code parse_side(const json_t *body, bool is_campaign, scs_job *j,
                           int s, err_info *e)
{
    json_t *units = NULL;
    char p[JV_PATH_MAX];
    size_t i;
    err_code rc;

    if ((rc = jv_array(body, "", side_key[s], true, 1, SCS_MAX_UNITS, &units,
                       e)))
        return rc;
    for (i = 0; i < json_array_size(units); i++) {
        jv_index(p, side_key[s], i);
        if ((rc = parse_unit(json_array_get(units, i), p, is_campaign, j, s, i,
                             e)))
            return rc;
    }
    j->in.n_units[s] = json_array_size(units);
    return ERR_OK;
}

/* A list of unit names at key (strings), kept to resolve later. */
static err_code parse_names(const json_t *obj, const char *path,
                            const char *key, json_t **out, err_info *e)
{
    char f[JV_PATH_MAX], fk[JV_PATH_MAX];
    json_t *a = NULL;
    size_t k;
    err_code rc;

    if ((rc = jv_array(obj, path, key, false, 0, MAX_ORDERS, &a, e)) ||
        a == NULL)
        return rc;
    jv_path(f, path, key);
    for (k = 0; k < json_array_size(a); k++)
        if (!json_is_string(json_array_get(a, k))) {
            jv_index(fk, f, k);
            return err_set(e, ERR_INVALID, fk, "a unit is named by a string");
        }
    *out = json_incref(a);
    return ERR_OK;
}

static err_code parse_orders(const json_t *body, scs_job *j, int s, err_info *e)
{
    static const char *const fields[] = {"convert_to_steps", "ezoc_hexes",
                                         "blocked_hexes", "extra_step_units",
                                         NULL};
    scs_orders *o = &j->in.orders[s];
    json_t *r = NULL;
    err_code rc;

    if ((rc = parse_names(body, "", alloc_key[s], &j->alloc[s], e)) ||
        (rc = jv_object(body, "", retreat_key[s], false, &r, e)) || r == NULL)
        return rc;
    if ((rc = jv_object_only(r, retreat_key[s], fields, e)) ||
        (rc = jv_int(r, retreat_key[s], "convert_to_steps", false, 0,
                     SCS_MAX_EFFECT, &o->convert, e)) ||
        (rc = jv_int(r, retreat_key[s], "ezoc_hexes", false, 0, SCS_MAX_EFFECT,
                     &o->ezoc_hexes, e)) ||
        (rc = jv_int(r, retreat_key[s], "blocked_hexes", false, 0,
                     SCS_MAX_EFFECT, &o->blocked_hexes, e)) ||
        (rc = parse_names(r, retreat_key[s], "extra_step_units", &j->extra[s],
                          e)))
        return rc;
    return ERR_OK;
}

/* A built-in table as the report's input keeps it (new), or NULL. */
static json_t *builtin_table(const char *name)
{
    json_t *b = scs_api_builtin_table(name), *t;

    if (b == NULL)
        return NULL;
    t = scs_api_table_doc(b, name);
    json_decref(b);
    return t;
}

/* The table: a built-in's name, an object inline, or (campaign) a name to
 * look up in the job. */
static err_code parse_table(const json_t *body, bool is_campaign, scs_job *j,
                            err_info *e)
{
    const json_t *t = json_object_get(body, "table");
    const char *name;

    if (t == NULL)
        return err_set(e, ERR_MISSING, "table",
                       "a combat needs a combat results table: a name or the "
                       "table itself");
    if (json_is_object(t)) {
        err_code rc = scs_api_table_parse(t, "table", &j->table, e);
        if (rc)
            return rc;
        name = json_string_value(json_object_get(t, "name"));
        j->table_doc = scs_api_table_doc(t, name ? name : "inline");
        j->table_source = "inline";
        return j->table_doc ? ERR_OK
                            : err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    if (!json_is_string(t) || json_string_length(t) < 1 ||
        json_string_length(t) > SCS_API_NAME_MAX)
        return err_set(e, ERR_INVALID, "table",
                       "a table is named by a string of 1 to %d bytes, or "
                       "given as an object",
                       SCS_API_NAME_MAX);
    text_copy(j->table_ref, DB_NAME_MAX, json_string_value(t));
    if (is_campaign)
        return ERR_OK;
    if ((j->table_doc = builtin_table(j->table_ref)) == NULL)
        return err_set(e, ERR_INVALID, "table",
                       "there is no built-in table \"%s\"; a one-off combat "
                       "can also give its table inline",
                       j->table_ref);
    j->table_source = "builtin";
    return scs_api_table_parse(j->table_doc, "table", &j->table, e);
}

/* Unit i of side s has the name of a unit listed before it. */
static bool is_named_before(const scs_job *j, int s, size_t i)
{
    int t;
    size_t k;

    for (t = 0; t <= s; t++)
        for (k = 0; k < (t < s ? j->in.n_units[t] : i); k++)
            if (strcmp(j->unit_name[t][k], j->unit_name[s][i]) == 0)
                return true;
    return false;
}

/* The combat's members of body (its own fields checked by the caller). */
static err_code parse_combat(const json_t *body, bool is_campaign, scs_job *j,
                             err_info *e)
{
    json_t *opts = NULL;
    size_t i;
    int s;
    err_code rc;

    scs_options_default(&j->in.options);
    if ((rc = parse_table(body, is_campaign, j, e)) ||
        (rc = parse_side(body, is_campaign, j, SCS_ATTACKER, e)) ||
        (rc = parse_side(body, is_campaign, j, SCS_DEFENDER, e)) ||
        (rc = jv_int(body, "", "column_shift", false, -SCS_MAX_SHIFT,
                     SCS_MAX_SHIFT, &j->in.column_shift, e)) ||
        (rc = jv_bool(body, "", "overrun", false, &j->in.is_overrun, e)) ||
        (rc = parse_orders(body, j, SCS_ATTACKER, e)) ||
        (rc = parse_orders(body, j, SCS_DEFENDER, e)) ||
        (rc = jv_object(body, "", "options", false, &opts, e)))
        return rc;
    /* One-off options apply over the defaults now; a campaign's over the
     * campaign's, in the job. */
    if (!is_campaign && opts &&
        (rc = scs_api_options_parse(opts, "options", &j->in.options, e)))
        return rc;
    j->options = json_incref(opts);
    if (is_campaign)
        return ERR_OK;
    /* Inline units: one name each in the combat. */
    for (s = 0; s < 2; s++)
        for (i = 0; i < j->in.n_units[s]; i++)
            if (is_named_before(j, s, i)) {
                char f[JV_PATH_MAX];
                snprintf(f, sizeof f, "%s[%zu].name", side_key[s], i);
                return err_set(e, ERR_INVALID, f,
                               "the unit \"%s\" is already in this combat",
                               j->unit_name[s][i]);
            }
    return ERR_OK;
}

/* The unit of side s that name designates (its name, id or the reference
 * the request gave), or -1. */
static int unit_index(const scs_job *j, int s, const char *name)
{
    size_t i;

    for (i = 0; i < j->in.n_units[s]; i++)
        if (strcmp(j->unit_name[s][i], name) == 0 ||
            (j->unit_id[s][i][0] && strcmp(j->unit_id[s][i], name) == 0) ||
            (j->unit_ref[s][i][0] && strcmp(j->unit_ref[s][i], name) == 0))
            return (int)i;
    return -1;
}

static err_code resolve_names(const scs_job *j, int s, const json_t *names,
                              const char *path, int *out, int *n_out,
                              err_info *e)
{
    char f[JV_PATH_MAX];
    size_t k;

    for (k = 0; k < json_array_size(names); k++) {
        const char *name = json_string_value(json_array_get(names, k));
        int u = unit_index(j, s, name);
        if (u < 0) {
            jv_index(f, path, k);
            return err_set(e, ERR_INVALID, f, "\"%s\" is not one of the %s",
                           name, side_key[s]);
        }
        out[k] = u;
    }
    *n_out = (int)json_array_size(names);
    return ERR_OK;
}

/* Once the units are known: orders to unit indices, and each unit's values
 * for the combat from its counter. */
static err_code prepare(scs_job *j, err_info *e)
{
    char f[JV_PATH_MAX];
    size_t i;
    int s;
    err_code rc;

    for (s = 0; s < 2; s++) {
        scs_orders *o = &j->in.orders[s];
        jv_path(f, retreat_key[s], "extra_step_units");
        if ((rc = resolve_names(j, s, j->alloc[s], alloc_key[s], o->allocation,
                                &o->n_allocation, e)) ||
            (rc = resolve_names(j, s, j->extra[s], f, o->extra_units,
                                &o->n_extra_units, e)))
            return rc;
        for (i = 0; i < j->in.n_units[s]; i++) {
            const scs_counter *c = &j->counters[s][i];
            const scs_printed *p = scs_counter_shown(c);
            scs_unit *u = &j->units[s][i];
            u->has_attack = p->has_attack;
            u->attack = p->attack;
            u->defense = p->defense;
            u->steps = c->steps;
            u->steps_lost = c->steps_lost;
            u->is_exploit = c->is_exploit;
            u->is_out_of_supply = c->is_out_of_supply;
        }
        j->in.units[s] = j->units[s];
    }
    j->in.table = &j->table;
    return ERR_OK;
}

/* ---- the report ---- */

static json_t *frac_json(scs_frac f)
{
    char a[SCS_FRAC_TEXT], b[SCS_FRAC_TEXT];

    scs_frac_text(f, a);
    scs_frac_decimal(f, b);
    return json_pack("{s:s, s:s}", "fraction", a, "decimal", b);
}

static json_t *multipliers_json(const scs_unit *u)
{
    json_t *a = json_array();
    char t[SCS_FRAC_TEXT];
    int k;

    for (k = 0; k < u->n_multipliers; k++) {
        scs_frac_text(u->multipliers[k], t);
        json_array_append_new(a, json_string(t));
    }
    return a;
}

/* A unit inline, as a one-off request gives it (the report's input). */
static json_t *input_unit_json(const scs_job *j, int s, size_t i)
{
    const scs_counter *c = &j->counters[s][i];
    json_t *u = scs_api_printed_json(&c->full);

    json_object_set_new(u, "name", json_string(j->unit_name[s][i]));
    json_object_set_new(u, "reduced",
                        c->has_reduced ? scs_api_printed_json(&c->reduced)
                                       : json_null());
    json_object_set_new(u, "steps", json_integer(c->steps));
    json_object_set_new(u, "steps_lost", json_integer(c->steps_lost));
    json_object_set_new(u, "exploit_capable", json_boolean(c->is_exploit));
    json_object_set_new(u, "out_of_supply", json_boolean(c->is_out_of_supply));
    json_object_set_new(u, "multipliers", multipliers_json(&j->units[s][i]));
    return u;
}

static json_t *names_json(const scs_job *j, int s, const int *idx, int n)
{
    json_t *a = json_array();
    int k;

    for (k = 0; k < n; k++)
        json_array_append_new(a, json_string(j->unit_name[s][idx[k]]));
    return a;
}

static json_t *input_json(const scs_job *j)
{
    json_t *in = json_pack("{s:O}", "table", j->table_doc);
    int s;
    size_t i;

    for (s = 0; s < 2; s++) {
        json_t *units = json_array();
        for (i = 0; i < j->in.n_units[s]; i++)
            json_array_append_new(units, input_unit_json(j, s, i));
        json_object_set_new(in, side_key[s], units);
    }
    json_object_set_new(in, "column_shift", json_integer(j->in.column_shift));
    json_object_set_new(in, "overrun", json_boolean(j->in.is_overrun));
    for (s = 0; s < 2; s++) {
        const scs_orders *o = &j->in.orders[s];
        json_object_set_new(in, alloc_key[s],
                            names_json(j, s, o->allocation, o->n_allocation));
        json_object_set_new(
            in, retreat_key[s],
            json_pack("{s:i, s:i, s:i, s:o}", "convert_to_steps", o->convert,
                      "ezoc_hexes", o->ezoc_hexes, "blocked_hexes",
                      o->blocked_hexes, "extra_step_units",
                      names_json(j, s, o->extra_units, o->n_extra_units)));
    }
    json_object_set_new(in, "options", scs_api_options_json(&j->in.options));
    return in;
}

/* One unit's part in the combat (the report's, and its history's). */
static json_t *unit_json(const scs_job *j, int s, size_t i)
{
    const scs_counter *c = &j->counters[s][i];
    const scs_unit *u = &j->units[s][i];
    const scs_unit_result *r = &j->out.units[s][i];
    json_t *m = multipliers_json(u);
    char t[SCS_FRAC_TEXT];

    if (u->is_out_of_supply) {
        scs_frac_text(s == SCS_ATTACKER ? j->in.options.out_of_supply_attack
                                        : j->in.options.out_of_supply_defense,
                      t);
        if (strcmp(t, "1") != 0)
            json_array_append_new(m, json_string(t));
    }
    return json_pack(
        "{s:s, s:o, s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:i, "
        "s:b, s:b, s:b, s:i}",
        "unit", j->unit_name[s][i], "unit_id",
        api_str_or_null(j->unit_id[s][i]), "side",
        api_str_or_null(j->side_name[s]), "role", side_label[s], "side_shown",
        scs_counter_shown(c) == &c->reduced ? "reduced" : "full", "printed",
        scs_api_printed_json(scs_counter_shown(c)), "strength",
        s == SCS_ATTACKER ? json_integer(u->attack) : json_integer(u->defense),
        "multipliers", m, "value", frac_json(r->value), "steps", c->steps,
        "steps_lost_before", c->steps_lost, "lost", r->lost, "steps_lost",
        r->steps_lost, "eliminated", r->is_eliminated, "exploit_capable",
        c->is_exploit, "out_of_supply", c->is_out_of_supply, "advance_hexes",
        r->advance);
}

static json_t *side_json(const scs_side_result *r)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "steps",
                     r->effect.steps, "retreat", r->effect.retreat, "converted",
                     r->converted, "ezoc_hexes", r->ezoc_hexes, "blocked_hexes",
                     r->blocked_hexes, "retreat_hexes", r->retreat_hexes,
                     "steps_ignored", r->steps_ignored, "eliminated",
                     r->is_eliminated);
}

static json_t *column_json(const scs_job *j, int col)
{
    char t[24];

    if (col < 0)
        return json_null();
    scs_odds_text(j->table.columns[col], t);
    return json_string(t);
}

/* Everything a replay must reproduce (members into o). */
static void outcome_json(const scs_job *j, json_t *o)
{
    const scs_outcome *x = &j->out;
    json_t *losses = json_array(), *elim = json_array(), *adv;
    char odds[24];
    size_t i, k;
    int s;

    for (s = 0; s < 2; s++) {
        json_t *units = json_array();
        for (i = 0; i < j->in.n_units[s]; i++)
            json_array_append_new(units, unit_json(j, s, i));
        json_object_set_new(o, side_key[s], units);
    }
    json_object_set_new(o, "attack_total",
                        frac_json(x->sides[SCS_ATTACKER].total));
    json_object_set_new(o, "defense_total",
                        frac_json(x->sides[SCS_DEFENDER].total));
    if (x->odds.defense == 0) {
        json_object_set_new(o, "ratio", json_null());
        json_object_set_new(o, "odds", json_null());
    } else {
        scs_frac ratio;
        scs_frac d = x->sides[SCS_DEFENDER].total;
        scs_frac_mul(x->sides[SCS_ATTACKER].total, (scs_frac){d.den, d.num},
                     &ratio);
        json_object_set_new(o, "ratio", frac_json(ratio));
        scs_odds_text(x->odds, odds);
        json_object_set_new(o, "odds", json_string(odds));
    }
    json_object_set_new(o, "column_before_shifts",
                        column_json(j, x->column_found));
    json_object_set_new(o, "column", column_json(j, x->column));
    json_object_set_new(o, "off_table", json_boolean(x->is_off_table));
    if (x->is_off_table) {
        json_object_set_new(o, "roll", json_null());
        json_object_set_new(o, "result", json_null());
    } else {
        int row = scs_roll_row(j->table.roll, x->roll);
        json_object_set_new(
            o, "roll",
            json_pack("{s:s, s:[i, i], s:i}", "kind",
                      scs_roll_kind_name(j->table.roll), "dice",
                      j->rec.rolls ? j->rec.rolls[x->first_roll].natural : 0,
                      j->rec.rolls ? j->rec.rolls[x->first_roll + 1].natural
                                   : 0,
                      "value", x->roll));
        json_object_set_new(o, "result",
                            json_string(j->table.text[row][x->column]));
    }
    for (k = 0; k < x->n_losses; k++) {
        const scs_loss *l = &x->losses[k];
        json_array_append_new(
            losses,
            json_pack("{s:s, s:s, s:s, s:s}", "side", side_label[l->side],
                      "unit", j->unit_name[l->side][l->unit], "cause",
                      scs_loss_cause_name(l->cause), "chosen_by",
                      l->is_ordered ? "orders" : "default"));
    }
    json_object_set_new(o, "losses", losses);
    json_object_set_new(o, "defender", side_json(&x->sides[SCS_DEFENDER]));
    json_object_set_new(o, "attacker", side_json(&x->sides[SCS_ATTACKER]));
    for (s = 1; s >= 0; s--)
        for (i = 0; i < j->in.n_units[s]; i++)
            if (x->units[s][i].is_eliminated)
                json_array_append_new(elim, json_string(j->unit_name[s][i]));
    json_object_set_new(o, "eliminated", elim);
    json_object_set_new(o, "hex_vacated", json_boolean(x->is_vacated));
    adv = json_pack("{s:b, s:b, s:i, s:i}", "allowed", x->is_advance_allowed,
                    "required", x->is_advance_required, "hexes",
                    x->advance_hexes, "exploit_hexes", x->exploit_hexes);
    json_object_set_new(o, "advance", adv);
}

/* The Markdown of one side's losses and retreat. */
static void side_markdown(text_buf *b, const scs_job *j, int s)
{
    const scs_side_result *r = &j->out.sides[s];
    char name[2 * DB_NAME_MAX];
    size_t i;
    bool any = false;

    text_printf(b, "- %s:", s == SCS_ATTACKER ? "Attacker" : "Defender");
    for (i = 0; i < j->in.n_units[s]; i++) {
        const scs_unit_result *u = &j->out.units[s][i];
        if (u->lost == 0)
            continue;
        text_md(name, sizeof name, j->unit_name[s][i]);
        text_printf(b, "%s %s loses %d step%s%s", any ? "," : "", name, u->lost,
                    u->lost > 1 ? "s" : "",
                    u->is_eliminated ? " (eliminated)" : "");
        any = true;
    }
    if (!any)
        text_printf(b, " no step lost");
    if (r->retreat_hexes > 0)
        text_printf(b, "; retreats %d hex%s", r->retreat_hexes,
                    r->retreat_hexes > 1 ? "es" : "");
    if (r->converted > 0)
        text_printf(b, "; %d retreat hex%s converted to steps", r->converted,
                    r->converted > 1 ? "es" : "");
    if (r->ezoc_hexes > 0)
        text_printf(b, "; %d EZOC hex%s", r->ezoc_hexes,
                    r->ezoc_hexes > 1 ? "es" : "");
    if (r->blocked_hexes > 0)
        text_printf(b, "; %d retreat hex%s blocked", r->blocked_hexes,
                    r->blocked_hexes > 1 ? "es" : "");
    if (r->steps_ignored > 0)
        text_printf(b, "; %d step%s beyond what it could lose",
                    r->steps_ignored, r->steps_ignored > 1 ? "s" : "");
    text_printf(b, "\n");
}

static char *markdown(const scs_job *j, const json_t *o)
{
    const scs_outcome *x = &j->out;
    const char *odds = json_string_value(json_object_get(o, "odds"));
    const char *col = json_string_value(json_object_get(o, "column"));
    text_buf b = {0};
    char at[SCS_FRAC_TEXT], dt[SCS_FRAC_TEXT], table[2 * DB_NAME_MAX];

    scs_frac_decimal(x->sides[SCS_ATTACKER].total, at);
    scs_frac_decimal(x->sides[SCS_DEFENDER].total, dt);
    text_md(table, sizeof table,
            json_string_value(json_object_get(j->table_doc, "name")));
    text_printf(&b, "**SCS %s** on %s\n",
                j->in.is_overrun ? "overrun" : "combat", table);
    text_printf(&b, "Attack %s against defense %s: %s", at, dt,
                odds ? odds : "defense 0");
    if (x->is_off_table)
        text_printf(&b, ", off the left of the table: no roll, the attacker "
                        "loses a step.\n");
    else
        text_printf(&b, ", column %s. Roll %d (%s): %s.\n", col ? col : "-",
                    x->roll, j->table.roll == SCS_ROLL_D66 ? "d66" : "2d6",
                    json_string_value(json_object_get(o, "result")));
    side_markdown(&b, j, SCS_DEFENDER);
    side_markdown(&b, j, SCS_ATTACKER);
    if (x->is_advance_allowed)
        text_printf(&b, "Advance%s: 1 hex, exploit-capable units %d.\n",
                    x->is_advance_required ? " (required, overrun)" : "",
                    x->exploit_hexes);
    text_printf(&b, "_Dice: %s._\n", combat_dice_note(&j->rec));
    return text_take(&b);
}

/* Side and unit of a logged SCS die: the attacker rolls for the stack. */
static void roll_names(const void *p, const dice_roll *d, const char **side,
                       const char **unit_name, const char **unit_id)
{
    const scs_job *j = p;

    (void)d;
    *side = j->side_name[SCS_ATTACKER];
    *unit_name = "";
    *unit_id = "";
}

/* Core's messages name units by place ("attackers[1]"); the request
 * named them, so the message says their names. */
static void name_units(const scs_job *j, err_info *e)
{
    char out[ERR_MESSAGE_MAX];
    const char *m = e->message;
    size_t n = 0;
    int s;

    while (*m && n + 1 < sizeof out) {
        bool is_named = false;
        for (s = 0; s < 2 && !is_named; s++) {
            size_t len = strlen(side_key[s]);
            char *end;
            long i;
            if (strncmp(m, side_key[s], len) != 0 || m[len] != '[')
                continue;
            i = strtol(m + len + 1, &end, 10);
            if (*end != ']' || i < 0 || (size_t)i >= j->in.n_units[s])
                continue;
            n += (size_t)snprintf(out + n, sizeof out - n, "%s",
                                  j->unit_name[s][i]);
            if (n >= sizeof out)
                n = sizeof out - 1;
            m = end + 1;
            is_named = true;
        }
        if (!is_named)
            out[n++] = *m++;
    }
    out[n] = '\0';
    memcpy(e->message, out, n + 1);
}

/* Resolves the combat with j's dice and fills the row, rolls and report. */
static err_code scs_run(scs_job *j, err_info *e)
{
    dice_source src;
    db_combat *cb = &j->rec.cb;
    json_t *report = NULL;
    char *md = NULL, summary[160];
    const char *res;
    err_code rc;

    combat_dice_init(&j->rec, &src, j->roll, j->has_roll ? 2 : 0);
    rc = scs_resolve(&j->in, &src, &j->out, e);
    if (rc == ERR_DICE && j->rec.dice.kind == DICE_ENTERED && !j->has_roll) {
        err_clear(e);
        rc = err_set(e, ERR_MISSING, "roll",
                     "entered dice need the \"roll\": the two dice, as "
                     "thrown");
    }
    if (rc) {
        name_units(j, e);
        goto out;
    }
    if (j->out.is_off_table && j->has_roll) {
        rc = err_set(e, ERR_INVALID, "roll",
                     "the odds are off the left of the table: no die is "
                     "rolled, give no \"roll\"");
        goto out;
    }
    if ((rc = dice_check_all_used(&src, e)))
        goto out;
    combat_record_row(&j->rec, "scs");
    if ((rc = combat_record_rolls(&j->rec, &src, roll_names, j, e)))
        goto out;
    report = json_object();
    json_object_set_new(report, "id", json_string(cb->id));
    json_object_set_new(report, "system", json_string("scs"));
    json_object_set_new(report, "campaign_id",
                        api_str_or_null(cb->campaign_id));
    json_object_set_new(report, "created_at", json_string(cb->created_at));
    json_object_set_new(report, "note", api_str_or_null(cb->note));
    json_object_set_new(report, "overrun", json_boolean(j->in.is_overrun));
    json_object_set_new(report, "table",
                        json_pack("{s:O, s:s, s:s}", "name",
                                  json_object_get(j->table_doc, "name"),
                                  "source", j->table_source, "roll",
                                  scs_roll_kind_name(j->table.roll)));
    json_object_set_new(report, "input", input_json(j));
    outcome_json(j, report);
    res = json_string_value(json_object_get(report, "result"));
    {
        int lost[2] = {0, 0};
        size_t k;
        for (k = 0; k < j->out.n_losses; k++)
            lost[j->out.losses[k].side]++;
        snprintf(summary, sizeof summary,
                 "SCS %s%s %s: steps lost, attacker %d, defender %d",
                 j->in.is_overrun ? "overrun " : "",
                 json_string_value(json_object_get(report, "odds"))
                     ? json_string_value(json_object_get(report, "odds"))
                     : "vs 0",
                 res ? res : "off the table", lost[0], lost[1]);
    }
    cb->summary = strdup(summary);
    md = markdown(j, report);
    {
        jw w;
        json_t *dice;
        char *dice_text;
        jw_init(&w);
        combat_dice_write(&w, cb);
        dice_text = jw_take(&w, NULL);
        dice = dice_text ? json_loads(dice_text, 0, NULL) : NULL;
        free(dice_text);
        json_object_set_new(report, "dice", dice ? dice : json_null());
    }
    json_object_set_new(report, "summary_markdown", json_string(md ? md : ""));
    cb->report = json_dumps(report, JSON_COMPACT);
    if (!md || !cb->summary || !cb->report)
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
out:
    json_decref(report);
    free(md);
    dice_cleanup(&src);
    return rc;
}

/* ---- requests ---- */

static err_code parse_roll(const json_t *body, scs_job *j, err_info *e)
{
    json_t *roll = NULL;
    size_t k;
    err_code rc;

    if ((rc = jv_array(body, "", "roll", false, 2, 2, &roll, e)) ||
        roll == NULL)
        return rc;
    if (j->rec.dice.kind != DICE_ENTERED)
        return err_set(e, ERR_INVALID, "roll",
                       "dice are seeded: give a \"roll\" only with "
                       "dice.source \"entered\"");
    for (k = 0; k < 2; k++) {
        json_t *v = json_array_get(roll, k);
        char f[JV_PATH_MAX];
        jv_index(f, "roll", k);
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > 6)
            return err_set(e, ERR_RANGE, f,
                           "the roll is two dice of 1 to 6, as thrown (for "
                           "d66 the first is the tens)");
        j->roll[k] = (int)json_integer_value(v);
    }
    j->has_roll = true;
    return ERR_OK;
}

static scs_job *scs_job_parse(http_request *r, bool is_campaign, err_info *e)
{
    static const char *const fields[] = {"table",
                                         "attackers",
                                         "defenders",
                                         "column_shift",
                                         "overrun",
                                         "attacker_allocation",
                                         "defender_allocation",
                                         "attacker_retreat",
                                         "defender_retreat",
                                         "options",
                                         "roll",
                                         "dice",
                                         "note",
                                         NULL};
    json_t *body = http_body_object(r);
    scs_job *j;

    if (body == NULL)
        return NULL;
    j = calloc(1, sizeof *j);
    r->state = j;
    r->state_free = scs_job_free;
    if (j == NULL) {
        err_set(e, ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    if (jv_object_only(body, "", fields, e) ||
        combat_parse_record(body, &j->rec, e) || parse_roll(body, j, e) ||
        parse_combat(body, is_campaign, j, e) ||
        (!is_campaign && prepare(j, e)))
        goto fail;
    json_decref(body);
    return j;
fail:
    json_decref(body);
    http_reply_problem(r, e);
    return NULL;
}

void api_oneoff_scs(http_request *r)
{
    scs_job *j;
    err_info e;

    err_clear(&e);
    if ((j = scs_job_parse(r, false, &e)) == NULL)
        return;
    if (scs_run(j, &e) != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    http_defer_write(r, combat_insert_job, combat_finish);
}

/* Campaign units: found, carrying SCS, in play, attackers on one side and
 * defenders on another; their counters read. */
static err_code bind_units(sqlite3 *c, scs_job *j, err_info *e)
{
    char f[JV_PATH_MAX], side_id[2][DB_ID_MAX] = {"", ""};
    db_unit u;
    size_t i, k;
    int s, t;
    err_code rc;

    for (s = 0; s < 2; s++)
        for (i = 0; i < j->in.n_units[s]; i++) {
            snprintf(f, sizeof f, "%s[%zu].unit", side_key[s], i);
            rc = db_unit_find(c, j->rec.campaign_id, j->unit_ref[s][i], &u,
                              NULL);
            if (rc == ERR_NOT_FOUND)
                return err_set(e, ERR_INVALID, f,
                               "the campaign has no unit \"%s\"",
                               j->unit_ref[s][i]);
            if (rc != ERR_OK)
                return err_set(e, rc, NULL, "cannot read units");
            if (!u.has_scs)
                return err_set(e, ERR_RULE, f, "the unit %s does not carry SCS",
                               u.name);
            if (u.is_eliminated)
                return err_set(e, ERR_RULE, f,
                               "the unit %s is eliminated and out of play",
                               u.name);
            for (t = 0; t <= s; t++)
                for (k = 0; k < (t < s ? j->in.n_units[t] : i); k++)
                    if (strcmp(j->unit_id[t][k], u.id) == 0)
                        return err_set(e, ERR_INVALID, f,
                                       "the unit %s is already in this combat",
                                       u.name);
            if (i == 0)
                text_copy(side_id[s], DB_ID_MAX, u.side_id);
            if (strcmp(side_id[s], u.side_id) != 0)
                return err_set(e, ERR_RULE, f,
                               "the %s are one side's units: %s is on %s, "
                               "not %s's side",
                               side_key[s], u.name, u.side_name,
                               j->side_name[s]);
            if (s == SCS_DEFENDER && strcmp(u.side_id, side_id[0]) == 0)
                return err_set(e, ERR_RULE, f,
                               "the unit %s is on the attackers' side, %s",
                               u.name, u.side_name);
            text_copy(j->unit_id[s][i], DB_ID_MAX, u.id);
            text_copy(j->unit_name[s][i], DB_NAME_MAX, u.name);
            text_copy(j->side_name[s], DB_NAME_MAX, u.side_name);
            j->counters[s][i] = u.scs;
        }
    return ERR_OK;
}

/* The table a campaign combat names: the campaign's own, or a built-in. */
static err_code bind_table(sqlite3 *c, scs_job *j, err_info *e)
{
    db_table t;
    err_code rc;

    if (j->table_doc != NULL) /* inline */
        return ERR_OK;
    memset(&t, 0, sizeof t);
    rc = db_table_get(c, j->rec.campaign_id, j->table_ref, &t, NULL);
    if (rc == ERR_OK) {
        j->table_doc = json_loads(t.doc, 0, NULL);
        j->table_source = "campaign";
        db_table_cleanup(&t);
        if (j->table_doc == NULL)
            return err_set(e, ERR_DB, NULL,
                           "the stored table \"%s\" is not "
                           "JSON",
                           j->table_ref);
    } else if (rc == ERR_NOT_FOUND &&
               (j->table_doc = builtin_table(j->table_ref)) != NULL) {
        j->table_source = "builtin";
    } else if (rc == ERR_NOT_FOUND) {
        return err_set(e, ERR_INVALID, "table",
                       "the campaign has no table \"%s\", and no table "
                       "built in has that name",
                       j->table_ref);
    } else {
        return err_set(e, rc, NULL, "cannot read the table");
    }
    return scs_api_table_parse(j->table_doc, "table", &j->table, e);
}

static err_code apply_unit(sqlite3 *c, scs_job *j, int s, size_t i, err_info *e)
{
    const scs_unit_result *ur = &j->out.units[s][i];
    db_unit before, after;
    jw w;
    json_t *doc;
    char *text;
    err_code rc;

    if ((rc =
             db_unit_find(c, j->rec.campaign_id, j->unit_id[s][i], &before, e)))
        return rc;
    after = before;
    after.scs.steps_lost = ur->steps_lost;
    if (ur->is_eliminated) {
        after.is_eliminated = true;
        after.scrud.is_eliminated = true;
        text_copy(after.eliminated_reason, DB_REASON_MAX, "steps");
        text_copy(after.eliminated_by, DB_ID_MAX, j->rec.cb.id);
    }
    if ((rc = db_unit_update(c, &after, e)))
        return rc;
    doc = unit_json(j, s, i);
    json_object_set_new(doc, "system", json_string("scs"));
    text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    if (text == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    jw_init(&w);
    jw_raw(&w, text, strlen(text));
    free(text);
    return combat_unit_event(c, &j->rec, &before, &after, &w, e);
}

static err_code campaign_scs_job(sqlite3 *c, void *arg, err_info *e)
{
    scs_job *j = arg;
    db_campaign cmp;
    size_t i;
    int s;
    err_code rc;

    if ((rc = db_campaign_get(c, j->rec.campaign_id, &cmp, e)))
        return rc;
    j->in.options = cmp.scs;
    if ((j->options && (rc = scs_api_options_parse(j->options, "options",
                                                   &j->in.options, e))) ||
        (rc = bind_table(c, j, e)) || (rc = bind_units(c, j, e)) ||
        (rc = prepare(j, e)) || (rc = scs_run(j, e)) ||
        (rc = db_combat_insert(c, &j->rec.cb, j->rec.rolls, j->rec.n_rolls, e)))
        return rc;
    for (s = 0; s < 2; s++)
        for (i = 0; i < j->in.n_units[s]; i++)
            if ((rc = apply_unit(c, j, s, i, e)))
                return rc;
    return ERR_OK;
}

void api_campaign_scs(http_request *r)
{
    scs_job *j;
    err_info e;

    err_clear(&e);
    if ((j = scs_job_parse(r, true, &e)) == NULL)
        return;
    text_copy(j->rec.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(j->rec.token_id, DB_ID_MAX, r->token.id);
    http_defer_write(r, campaign_scs_job, combat_finish);
}

/* ---- replay ---- */

bool api_scs_replay(const json_t *stored, dice_source *src, json_t *diffs)
{
    static const char *const parts[] = {"attackers",
                                        "defenders",
                                        "attack_total",
                                        "defense_total",
                                        "ratio",
                                        "odds",
                                        "column_before_shifts",
                                        "column",
                                        "off_table",
                                        "roll",
                                        "result",
                                        "losses",
                                        "defender",
                                        "attacker",
                                        "eliminated",
                                        "hex_vacated",
                                        "advance"};
    const json_t *input = json_object_get(stored, "input");
    scs_job *j = calloc(1, sizeof *j);
    json_t *again = json_object();
    const json_t *table;
    const char *source;
    char *md = NULL;
    bool is_resolved = false;
    size_t i, k;
    int s;
    err_info e;

    err_clear(&e);
    if (j == NULL || !json_is_object(input) ||
        parse_combat(input, false, j, &e) != ERR_OK || prepare(j, &e)) {
        combat_differ(diffs,
                      "the stored report does not describe a combat "
                      "that can be resolved: %s",
                      e.message);
        goto out;
    }
    /* Who the units are is the record's, not the outcome's. */
    for (s = 0; s < 2; s++) {
        const json_t *units = json_object_get(stored, side_key[s]);
        for (i = 0; i < j->in.n_units[s]; i++) {
            const json_t *u = json_array_get(units, i);
            const char *id = json_string_value(json_object_get(u, "unit_id"));
            const char *side = json_string_value(json_object_get(u, "side"));
            text_copy(j->unit_id[s][i], DB_ID_MAX, id ? id : "");
            text_copy(j->side_name[s], DB_NAME_MAX, side ? side : "");
        }
    }
    if (scs_system.resolve(&j->in, src, &j->out, &e) != ERR_OK) {
        combat_differ(diffs,
                      "the combat does not resolve from its input "
                      "and the logged dice: %s",
                      e.message);
        goto out;
    }
    is_resolved = true;
    /* The roll's dice as the log has them. */
    j->rec.rolls = calloc(src->n_log ? src->n_log : 1, sizeof *j->rec.rolls);
    for (k = 0; j->rec.rolls && k < src->n_log; k++)
        j->rec.rolls[k].natural = src->log[k].natural;
    j->rec.n_rolls = src->n_log;
    outcome_json(j, again);
    for (k = 0; k < sizeof parts / sizeof parts[0]; k++)
        if (!json_equal(json_object_get(again, parts[k]),
                        json_object_get(stored, parts[k])))
            combat_differ(diffs, "the %s differ from the stored report",
                          parts[k]);
    /* What the report says besides the outcome: the overrun, the table,
     * and the summary written from them. */
    if (json_is_true(json_object_get(stored, "overrun")) != j->in.is_overrun)
        combat_differ(diffs, "the report's overrun differs from its input");
    table = json_object_get(stored, "table");
    if (!json_equal(json_object_get(table, "name"),
                    json_object_get(j->table_doc, "name")) ||
        !json_is_string(json_object_get(table, "roll")) ||
        strcmp(json_string_value(json_object_get(table, "roll")),
               scs_roll_kind_name(j->table.roll)) != 0)
        combat_differ(diffs, "the report's table differs from its input");
    source = json_string_value(
        json_object_get(json_object_get(stored, "dice"), "source"));
    j->rec.dice.kind =
        source && strcmp(source, "seeded") == 0 ? DICE_SEEDED : DICE_ENTERED;
    md = markdown(j, again);
    if (md == NULL ||
        !json_is_string(json_object_get(stored, "summary_markdown")) ||
        strcmp(md, json_string_value(
                       json_object_get(stored, "summary_markdown"))) != 0)
        combat_differ(diffs, "the report's summary differs from its outcome");
out:
    free(md);
    json_decref(again);
    scs_job_free(j);
    return is_resolved;
}
