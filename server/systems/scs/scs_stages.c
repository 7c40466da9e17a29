/*
 * scs_stages.c: SCS odds combats (docs/rules/scs.md) through the table of
 * systems: one-off with units inline, or in a campaign against its units'
 * counters and steps lost, and replay; see systems.h.  The combat itself,
 * from JSON to report, is in scs_combat.c, SCS documents (tables,
 * counters) in scs_json.c, the report's Markdown and HTML in
 * scs_report.c.
 */
#include "jsonb.h"
#include "scs_report.h"
#include "systems.h"
#include "combat.h"
#include "fog.h"
#include "jsonv.h"
#include "scs_json.h"
#include "scs_combat.h"
#include "scs_odds.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Side and unit of a logged SCS die: the attacker rolls for the stack. */
static void roll_names(const void *p, const dice_roll *d, const char **side,
                       const char **unit_name, const char **unit_id)
{
    const scs_combat *j = p;

    (void)d;
    *side = j->side_name[SCS_ATTACKER];
    *unit_name = "";
    *unit_id = "";
}

/* Core's messages name units by place ("attackers[1]"); the request
 * named them, so the message says their names. */
static void name_units(const scs_combat *j, err_info *e)
{
    char out[ERR_MESSAGE_MAX];
    const char *m = e->message;
    size_t n = 0;
    int s;

    while (*m && n + 1 < sizeof out) {
        bool is_named = false;
        for (s = 0; s < 2 && !is_named; s++) {
            size_t len = strlen(scs_combat_side_key[s]);
            char *end;
            long i;
            if (strncmp(m, scs_combat_side_key[s], len) != 0 || m[len] != '[')
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

/* run: resolves the combat with j's dice and fills the row, rolls and
 * report. */
static err_code run(void *job, err_info *e)
{
    scs_combat *j = job;
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
                        jsonb_str_or_null(cb->campaign_id));
    json_object_set_new(report, "created_at", json_string(cb->created_at));
    json_object_set_new(report, "note", jsonb_str_or_null(cb->note));
    json_object_set_new(report, "overrun", json_boolean(j->in.is_overrun));
    json_object_set_new(report, "table",
                        json_pack("{s:O, s:s, s:s}", "name",
                                  json_object_get(j->table_doc, "name"),
                                  "source", j->table_source, "roll",
                                  scs_roll_kind_name(j->table.roll)));
    json_object_set_new(report, "input", scs_combat_input_json(j));
    scs_combat_outcome_json(j, report);
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
    md = scs_combat_markdown(j, report);
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

static err_code parse_roll(const json_t *body, scs_combat *j, err_info *e)
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

static void *job_new(const json_t *body, err_info *e)
{
    scs_combat *j = calloc(1, sizeof *j);

    (void)body;
    if (j == NULL)
        err_set(e, ERR_NOMEM, NULL, "out of memory");
    return j;
}

/* read: the table, the units, the orders, the options and entered
 * roll (scs_combat_parse). */
static err_code read_request(void *job, const json_t *body, bool is_campaign,
                             err_info *e)
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
    scs_combat *j = job;
    err_code rc;

    if ((rc = jv_object_only(body, "", fields, e)) ||
        (rc = combat_parse_record(body, &j->rec, e)) ||
        (rc = parse_roll(body, j, e)) ||
        (rc = scs_combat_parse(body, is_campaign, j, e)))
        return rc;
    return ERR_OK;
}

/* check: a one-off's units are inline: the combat is ready to resolve. */
static err_code check(void *job, err_info *e)
{
    return scs_combat_prepare(job, e);
}

/* Campaign units: found, carrying SCS, in play, attackers on one side and
 * defenders on another; their counters read. */
static err_code bind_units_found(db_conn *c, scs_combat *j, err_info *e)
{
    char f[JV_PATH_MAX], side_id[2][DB_ID_MAX] = {"", ""};
    db_unit u;
    size_t i, k;
    int s, t;
    err_code rc;

    for (s = 0; s < 2; s++)
        for (i = 0; i < j->in.n_units[s]; i++) {
            snprintf(f, sizeof f, "%s[%zu].unit", scs_combat_side_key[s], i);
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
                               scs_combat_side_key[s], u.name, u.side_name,
                               j->side_name[s]);
            if (s == SCS_DEFENDER && strcmp(u.side_id, side_id[0]) == 0)
                return err_set(e, ERR_RULE, f,
                               "the unit %s is on the attackers' side, %s",
                               u.name, u.side_name);
            if (combat_bind_keep(&j->rec, &u) != ERR_OK)
                return err_set(e, ERR_NOMEM, NULL, "out of memory");
            text_copy(j->unit_id[s][i], DB_ID_MAX, u.id);
            text_copy(j->unit_name[s][i], DB_NAME_MAX, u.name);
            text_copy(j->side_name[s], DB_NAME_MAX, u.side_name);
            j->counters[s][i] = u.scs;
        }
    return ERR_OK;
}

/* bind_units_found, with the units read together where each find would
 * be a statement (PostgreSQL). */
static err_code bind_units(db_conn *c, scs_combat *j, err_info *e)
{
    const char *refs[2 * SCS_MAX_UNITS];
    size_t i, n = 0;
    int s;
    err_code rc;

    for (s = 0; s < 2; s++)
        for (i = 0; i < j->in.n_units[s]; i++)
            refs[n++] = j->unit_ref[s][i];
    if ((rc = db_units_prefetch(c, j->rec.campaign_id, refs, n, e)))
        return rc;
    rc = bind_units_found(c, j, e);
    db_units_prefetch_end(c);
    return rc;
}

/* The table a campaign combat names: the campaign's own, or a built-in. */
/* reset: the outcome dropped, and a table found by name, so that bind
 * finds it again as it is then. */
static void reset(void *job)
{
    scs_combat *j = job;

    if (j->table_source && strcmp(j->table_source, "inline") != 0) {
        json_decref(j->table_doc);
        j->table_doc = NULL;
        j->table_source = NULL;
    }
    memset(&j->out, 0, sizeof j->out);
    combat_record_unstage(&j->rec);
}

static err_code bind_table(db_conn *c, scs_combat *j, err_info *e)
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
    } else if (rc == ERR_NOT_FOUND && (j->table_doc = scs_combat_builtin_table(
                                           j->table_ref)) != NULL) {
        j->table_source = "builtin";
    } else if (rc == ERR_NOT_FOUND) {
        return err_set(e, ERR_INVALID, "table",
                       "the campaign has no table \"%s\", and no table "
                       "built in has that name",
                       j->table_ref);
    } else {
        return err_set(e, rc, NULL, "cannot read the table");
    }
    return scs_json_table_parse(j->table_doc, "table", &j->table, e);
}

static err_code apply_unit(db_conn *c, scs_combat *j, int s, size_t i,
                           err_info *e)
{
    const scs_unit_result *ur = &j->out.units[s][i];
    db_unit before, after;
    jw w;
    json_t *doc;
    char *text;
    err_code rc;

    if ((rc = combat_unit_before(c, &j->rec, j->unit_id[s][i], &before, e)))
        return rc;
    after = before;
    after.scs.steps_lost = ur->steps_lost;
    if (ur->is_eliminated) {
        after.is_eliminated = true;
        after.scrud.is_eliminated = true;
        text_copy(after.eliminated_reason, DB_REASON_MAX, "steps");
        text_copy(after.eliminated_by, DB_ID_MAX, j->rec.cb.id);
    }
    if ((rc = combat_unit_update(c, &j->rec, &after, e)))
        return rc;
    doc = scs_combat_unit_json(j, s, i);
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

/* bind: the campaign's options under the request's, its table and its
 * units; then the combat is ready to resolve. */
static err_code bind_campaign(db_conn *c, void *job, const db_campaign *cmp,
                              err_info *e)
{
    scs_combat *j = job;
    err_code rc;

    j->in.options = cmp->scs;
    if ((j->options && (rc = scs_json_options_parse(j->options, "options",
                                                    &j->in.options, e))) ||
        (rc = bind_table(c, j, e)) || (rc = bind_units(c, j, e)))
        return rc;
    return scs_combat_prepare(j, e);
}

/* apply: every unit's steps lost, and elimination, with its event. */
static err_code apply(db_conn *c, void *job, err_info *e)
{
    scs_combat *j = job;
    size_t i;
    int s;
    err_code rc;

    for (s = 0; s < 2; s++)
        for (i = 0; i < j->in.n_units[s]; i++)
            if ((rc = apply_unit(c, j, s, i, e)))
                return rc;
    return ERR_OK;
}

/* ---- replay ---- */

static bool replay(const json_t *stored, dice_source *src, json_t *diffs)
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
    scs_combat *j = calloc(1, sizeof *j);
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
        scs_combat_parse(input, false, j, &e) != ERR_OK ||
        scs_combat_prepare(j, &e)) {
        combat_differ(diffs,
                      "the stored report does not describe a combat "
                      "that can be resolved: %s",
                      e.message);
        goto out;
    }
    /* Who the units are is the record's, not the outcome's. */
    for (s = 0; s < 2; s++) {
        const json_t *units = json_object_get(stored, scs_combat_side_key[s]);
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
    scs_combat_outcome_json(j, again);
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
    md = scs_combat_markdown(j, again);
    if (md == NULL ||
        !json_is_string(json_object_get(stored, "summary_markdown")) ||
        strcmp(md, json_string_value(
                       json_object_get(stored, "summary_markdown"))) != 0)
        combat_differ(diffs, "the report's summary differs from its outcome");
out:
    free(md);
    json_decref(again);
    scs_combat_free(j);
    return is_resolved;
}

/* unit: its counter and steps lost. */
static json_t *unit_json(const db_unit *u)
{
    return u->has_scs ? scs_json_counter_json(&u->scs) : NULL;
}

/* options: the campaign's out-of-supply multipliers. */
static void options_default(db_campaign *cmp)
{
    scs_options_default(&cmp->scs);
}

static err_code options_read(const json_t *obj, const char *path,
                             db_campaign *cmp, err_info *e)
{
    return scs_json_options_parse(obj, path, &cmp->scs, e);
}

static json_t *options_json(const db_campaign *cmp)
{
    return scs_json_options_json(&cmp->scs);
}

/* fog: the attackers and defenders of other sides reduced to what the
 * viewer sees of them (fog.h), and their counters in the report's
 * "input" (which lists them in the same order, by name alone) with them;
 * the odds, the roll and the losses stay, the hidden units' names
 * nulled. */
static void fog(fog_pass *p, json_t *doc)
{
    static const char *const roles[] = {"attackers", "defenders"};
    json_t *input = json_object_get(doc, "input");
    fog_level levels[SCS_MAX_UNITS];
    size_t r, i, n;

    for (r = 0; r < 2; r++) {
        json_t *units = json_object_get(doc, roles[r]);
        json_t *counters = json_object_get(input, roles[r]);
        n = json_array_size(units);
        if (n > SCS_MAX_UNITS || json_array_size(counters) != n) {
            /* Not as run wrote it: keep no counter at all. */
            fog_entries(p, units, NULL);
            json_array_clear(counters);
            continue;
        }
        fog_entries(p, units, levels);
        for (i = n; i-- > 0;)
            if (!fog_entry(p, json_array_get(counters, i), levels[i]))
                json_array_remove(counters, i);
    }
    fog_scrub(p, input);
    fog_scrub(p, json_object_get(doc, "losses"));
    fog_scrub(p, json_object_get(doc, "eliminated"));
}

const systems_entry scs_stages = {
    .rules = &scs_system,
    .job_new = job_new,
    .job_free = scs_combat_free,
    .read = read_request,
    .check = check,
    .bind = bind_campaign,
    .run = run,
    .apply = apply,
    .reset = reset,
    .replay = replay,
    .render = scs_report_render,
    .unit_json = unit_json,
    .options_default = options_default,
    .options_read = options_read,
    .options_json = options_json,
    .odds = scs_odds_answer,
    .fog = fog,
};
