/*
 * scs_combat.c: an SCS combat from JSON, and its report; see scs_combat.h.
 */
#include "scs_combat.h"
#include "jsonb.h"
#include "combat.h"
#include "jsonv.h"
#include "scs_json.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ORDERS (SCS_MAX_UNITS * SCS_MAX_STEPS)

const char *const scs_combat_side_key[2] = {"attackers", "defenders"};
const char *const scs_combat_side_label[2] = {"attacker", "defender"};
const char *const scs_combat_alloc_key[2] = {"attacker_allocation",
                                             "defender_allocation"};
const char *const scs_combat_retreat_key[2] = {"attacker_retreat",
                                               "defender_retreat"};

void scs_combat_free(void *p)
{
    scs_combat *j = p;
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
        if ((rc = scs_json_frac(json_array_get(ms, k), fk, &su->multipliers[k],
                                e)))
            return rc;
    }
    su->n_multipliers = (int)json_array_size(ms);
    return ERR_OK;
}

/* A unit of the request: by reference (campaign) or inline (one-off). */
static err_code parse_unit(const json_t *u, const char *path, bool is_campaign,
                           scs_combat *j, int s, size_t i, err_info *e)
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
    rc = scs_json_counter_parse(counter, path, false, &j->counters[s][i], e);
    json_decref(counter);
    return rc;
}

static err_code parse_side(const json_t *body, bool is_campaign, scs_combat *j,
                           int s, err_info *e)
{
    json_t *units = NULL;
    char p[JV_PATH_MAX];
    size_t i;
    err_code rc;

    if ((rc = jv_array(body, "", scs_combat_side_key[s], true, 1, SCS_MAX_UNITS,
                       &units, e)))
        return rc;
    for (i = 0; i < json_array_size(units); i++) {
        jv_index(p, scs_combat_side_key[s], i);
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

static err_code parse_orders(const json_t *body, scs_combat *j, int s,
                             err_info *e)
{
    static const char *const fields[] = {"convert_to_steps", "ezoc_hexes",
                                         "blocked_hexes", "extra_step_units",
                                         NULL};
    scs_orders *o = &j->in.orders[s];
    json_t *r = NULL;
    err_code rc;

    if ((rc =
             parse_names(body, "", scs_combat_alloc_key[s], &j->alloc[s], e)) ||
        (rc = jv_object(body, "", scs_combat_retreat_key[s], false, &r, e)) ||
        r == NULL)
        return rc;
    if ((rc = jv_object_only(r, scs_combat_retreat_key[s], fields, e)) ||
        (rc = jv_int(r, scs_combat_retreat_key[s], "convert_to_steps", false, 0,
                     SCS_MAX_EFFECT, &o->convert, e)) ||
        (rc = jv_int(r, scs_combat_retreat_key[s], "ezoc_hexes", false, 0,
                     SCS_MAX_EFFECT, &o->ezoc_hexes, e)) ||
        (rc = jv_int(r, scs_combat_retreat_key[s], "blocked_hexes", false, 0,
                     SCS_MAX_EFFECT, &o->blocked_hexes, e)) ||
        (rc = parse_names(r, scs_combat_retreat_key[s], "extra_step_units",
                          &j->extra[s], e)))
        return rc;
    return ERR_OK;
}

/* A built-in table as the report's input keeps it (new), or NULL. */
json_t *scs_combat_builtin_table(const char *name)
{
    json_t *b = scs_json_builtin_table(name), *t;

    if (b == NULL)
        return NULL;
    t = scs_json_table_doc(b, name);
    json_decref(b);
    return t;
}

/* The table: a built-in's name, an object inline, or (campaign) a name to
 * look up in the job. */
static err_code parse_table(const json_t *body, bool is_campaign, scs_combat *j,
                            err_info *e)
{
    const json_t *t = json_object_get(body, "table");
    const char *name;

    if (t == NULL)
        return err_set(e, ERR_MISSING, "table",
                       "a combat needs a combat results table: a name or the "
                       "table itself");
    if (json_is_object(t)) {
        err_code rc = scs_json_table_parse(t, "table", &j->table, e);
        if (rc)
            return rc;
        name = json_string_value(json_object_get(t, "name"));
        j->table_doc = scs_json_table_doc(t, name ? name : "inline");
        j->table_source = "inline";
        return j->table_doc ? ERR_OK
                            : err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    if (!json_is_string(t) || json_string_length(t) < 1 ||
        json_string_length(t) > SCS_JSON_NAME_MAX)
        return err_set(e, ERR_INVALID, "table",
                       "a table is named by a string of 1 to %d bytes, or "
                       "given as an object",
                       SCS_JSON_NAME_MAX);
    text_copy(j->table_ref, DB_NAME_MAX, json_string_value(t));
    if (is_campaign)
        return ERR_OK;
    if ((j->table_doc = scs_combat_builtin_table(j->table_ref)) == NULL)
        return err_set(e, ERR_INVALID, "table",
                       "there is no built-in table \"%s\"; a one-off combat "
                       "can also give its table inline",
                       j->table_ref);
    j->table_source = "builtin";
    return scs_json_table_parse(j->table_doc, "table", &j->table, e);
}

/* Unit i of side s has the name of a unit listed before it. */
static bool is_named_before(const scs_combat *j, int s, size_t i)
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
err_code scs_combat_parse(const json_t *body, bool is_campaign, scs_combat *j,
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
        (rc = scs_json_options_parse(opts, "options", &j->in.options, e)))
        return rc;
    j->options = json_incref(opts);
    if (is_campaign)
        return ERR_OK;
    /* Inline units: one name each in the combat. */
    for (s = 0; s < 2; s++)
        for (i = 0; i < j->in.n_units[s]; i++)
            if (is_named_before(j, s, i)) {
                char f[JV_PATH_MAX];
                snprintf(f, sizeof f, "%s[%zu].name", scs_combat_side_key[s],
                         i);
                return err_set(e, ERR_INVALID, f,
                               "the unit \"%s\" is already in this combat",
                               j->unit_name[s][i]);
            }
    return ERR_OK;
}

/* The unit of side s that name designates (its name, id or the reference
 * the request gave), or -1. */
static int unit_index(const scs_combat *j, int s, const char *name)
{
    size_t i;

    for (i = 0; i < j->in.n_units[s]; i++)
        if (strcmp(j->unit_name[s][i], name) == 0 ||
            (j->unit_id[s][i][0] && strcmp(j->unit_id[s][i], name) == 0) ||
            (j->unit_ref[s][i][0] && strcmp(j->unit_ref[s][i], name) == 0))
            return (int)i;
    return -1;
}

static err_code resolve_names(const scs_combat *j, int s, const json_t *names,
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
                           name, scs_combat_side_key[s]);
        }
        out[k] = u;
    }
    *n_out = (int)json_array_size(names);
    return ERR_OK;
}

/* Once the units are known: orders to unit indices, and each unit's values
 * for the combat from its counter. */
err_code scs_combat_prepare(scs_combat *j, err_info *e)
{
    char f[JV_PATH_MAX];
    size_t i;
    int s;
    err_code rc;

    for (s = 0; s < 2; s++) {
        scs_orders *o = &j->in.orders[s];
        jv_path(f, scs_combat_retreat_key[s], "extra_step_units");
        if ((rc = resolve_names(j, s, j->alloc[s], scs_combat_alloc_key[s],
                                o->allocation, &o->n_allocation, e)) ||
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
static json_t *input_unit_json(const scs_combat *j, int s, size_t i)
{
    const scs_counter *c = &j->counters[s][i];
    json_t *u = scs_json_printed_json(&c->full);

    json_object_set_new(u, "name", json_string(j->unit_name[s][i]));
    json_object_set_new(u, "reduced",
                        c->has_reduced ? scs_json_printed_json(&c->reduced)
                                       : json_null());
    json_object_set_new(u, "steps", json_integer(c->steps));
    json_object_set_new(u, "steps_lost", json_integer(c->steps_lost));
    json_object_set_new(u, "exploit_capable", json_boolean(c->is_exploit));
    json_object_set_new(u, "out_of_supply", json_boolean(c->is_out_of_supply));
    json_object_set_new(u, "multipliers", multipliers_json(&j->units[s][i]));
    return u;
}

static json_t *names_json(const scs_combat *j, int s, const int *idx, int n)
{
    json_t *a = json_array();
    int k;

    for (k = 0; k < n; k++)
        json_array_append_new(a, json_string(j->unit_name[s][idx[k]]));
    return a;
}

json_t *scs_combat_input_json(const scs_combat *j)
{
    json_t *in = json_pack("{s:O}", "table", j->table_doc);
    int s;
    size_t i;

    for (s = 0; s < 2; s++) {
        json_t *units = json_array();
        for (i = 0; i < j->in.n_units[s]; i++)
            json_array_append_new(units, input_unit_json(j, s, i));
        json_object_set_new(in, scs_combat_side_key[s], units);
    }
    json_object_set_new(in, "column_shift", json_integer(j->in.column_shift));
    json_object_set_new(in, "overrun", json_boolean(j->in.is_overrun));
    for (s = 0; s < 2; s++) {
        const scs_orders *o = &j->in.orders[s];
        json_object_set_new(in, scs_combat_alloc_key[s],
                            names_json(j, s, o->allocation, o->n_allocation));
        json_object_set_new(
            in, scs_combat_retreat_key[s],
            json_pack("{s:i, s:i, s:i, s:o}", "convert_to_steps", o->convert,
                      "ezoc_hexes", o->ezoc_hexes, "blocked_hexes",
                      o->blocked_hexes, "extra_step_units",
                      names_json(j, s, o->extra_units, o->n_extra_units)));
    }
    json_object_set_new(in, "options", scs_json_options_json(&j->in.options));
    return in;
}

/* One unit's part in the combat (the report's, and its history's). */
json_t *scs_combat_unit_json(const scs_combat *j, int s, size_t i)
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
        jsonb_str_or_null(j->unit_id[s][i]), "side",
        jsonb_str_or_null(j->side_name[s]), "role", scs_combat_side_label[s],
        "side_shown", scs_counter_shown(c) == &c->reduced ? "reduced" : "full",
        "printed", scs_json_printed_json(scs_counter_shown(c)), "strength",
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

static json_t *column_json(const scs_combat *j, int col)
{
    char t[24];

    if (col < 0)
        return json_null();
    scs_odds_text(j->table.columns[col], t);
    return json_string(t);
}

/* Everything a replay must reproduce (members into o). */
void scs_combat_outcome_json(const scs_combat *j, json_t *o)
{
    const scs_outcome *x = &j->out;
    json_t *losses = json_array(), *elim = json_array(), *adv;
    char odds[24];
    size_t i, k;
    int s;

    for (s = 0; s < 2; s++) {
        json_t *units = json_array();
        for (i = 0; i < j->in.n_units[s]; i++)
            json_array_append_new(units, scs_combat_unit_json(j, s, i));
        json_object_set_new(o, scs_combat_side_key[s], units);
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
            losses, json_pack("{s:s, s:s, s:s, s:s}", "side",
                              scs_combat_side_label[l->side], "unit",
                              j->unit_name[l->side][l->unit], "cause",
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
static void side_markdown(text_buf *b, const scs_combat *j, int s)
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

char *scs_combat_markdown(const scs_combat *j, const json_t *o)
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
