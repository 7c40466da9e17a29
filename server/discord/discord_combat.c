/*
 * discord_combat.c: combats from Discord through the campaign pipeline;
 * see discord_combat.h.  The units of the lists are found on a pooled
 * connection first, so that an unknown unit is told at once, by name;
 * the writer job then binds them again in its own transaction (a unit
 * eliminated meanwhile is refused there, as over HTTP).
 */
#include "discord_combat.h"

#include "discord_http.h"
#include "discord_reply.h"
#include "discord_report.h"
#include "pipeline.h"
#include "systems.h"
#include "text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ITEMS_MAX 100 /* units in one list (the API's most per side) */
#define MULTS_MAX 8   /* multipliers of an SCS unit */
#define ITEM_MAX  256 /* bytes of an item as typed */

/* An item of a list: a unit's name and what its system takes after it. */
typedef struct item {
    char text[ITEM_MAX]; /* as typed, trimmed */
    char name[ITEM_MAX]; /* without the suffixes */
    bool has_suffix;
    long modifier;
    bool has_modifier;
    bool is_reserve;
    char mults[MULTS_MAX][16];
    int n_mults;
} item;

/* s is "+n" or "-n", n of 1 to 3 digits. */
static bool is_modifier(const char *s)
{
    size_t n = strlen(s), i;

    if (n < 2 || n > 4 || (s[0] != '+' && s[0] != '-'))
        return false;
    for (i = 1; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* s is "xA" or "xA/B" (x, X or the multiplication sign). */
static const char *multiplier(const char *s)
{
    if (strncmp(s, "\xC3\x97", 2) == 0)
        s += 2;
    else if (s[0] == 'x' || s[0] == 'X' || s[0] == '*')
        s++;
    else
        return NULL;
    return isdigit((unsigned char)s[0]) && strlen(s) < 16 ? s : NULL;
}

/* Takes the suffixes kind allows off the end of it->name, last first. */
static void parse_item(item *it, discord_combat_kind kind)
{
    char *sp;
    const char *m;

    text_copy(it->name, sizeof it->name, it->text);
    while ((sp = strrchr(it->name, ' ')) != NULL) {
        const char *tok = sp + 1;
        if (kind != DISCORD_COMBAT_NAMES && kind != DISCORD_COMBAT_SCS &&
            !it->has_modifier && is_modifier(tok)) {
            it->modifier = strtol(tok, NULL, 10);
            it->has_modifier = true;
        } else if (kind == DISCORD_COMBAT_SCRUD && !it->is_reserve &&
                   strcasecmp(tok, "reserve") == 0) {
            it->is_reserve = true;
        } else if (kind == DISCORD_COMBAT_SCS && it->n_mults < MULTS_MAX &&
                   (m = multiplier(tok)) != NULL) {
            /* Read last first: kept in the order typed. */
            memmove(it->mults[1], it->mults[0],
                    (size_t)it->n_mults * sizeof it->mults[0]);
            text_copy(it->mults[0], sizeof it->mults[0], m);
            it->n_mults++;
        } else {
            break;
        }
        it->has_suffix = true;
        while (sp > it->name && sp[-1] == ' ')
            sp--;
        *sp = '\0';
    }
}

/* Finds it's unit: by its name without suffixes, else by the whole. */
static err_code find_unit(db_conn *c, const char *campaign_id, item *it,
                          db_unit *u, err_info *e)
{
    err_code rc = db_unit_find(c, campaign_id, it->name, u, NULL);

    if (rc == ERR_NOT_FOUND && it->has_suffix &&
        (rc = db_unit_find(c, campaign_id, it->text, u, NULL)) == ERR_OK) {
        /* A unit whose name only looks like one with suffixes. */
        text_copy(it->name, sizeof it->name, u->name);
        it->has_modifier = it->is_reserve = false;
        it->n_mults = 0;
    }
    if (rc == ERR_NOT_FOUND)
        return err_set(e, rc, NULL,
                       "there is no unit \"%.64s\" in this campaign", it->name);
    if (rc != ERR_OK)
        return err_set(e, rc, NULL, "cannot read the campaign's units");
    return ERR_OK;
}

/* The request's entry of a unit found for it. */
static json_t *unit_json(const item *it, const db_unit *u)
{
    json_t *j = json_pack("{s:s}", "unit", u->id), *ms;
    int k;

    if (it->has_modifier)
        json_object_set_new(j, "modifier", json_integer(it->modifier));
    if (it->is_reserve)
        json_object_set_new(j, "reserve", json_true());
    if (it->n_mults > 0) {
        ms = json_array();
        for (k = 0; k < it->n_mults; k++)
            json_array_append_new(ms, json_string(it->mults[k]));
        json_object_set_new(j, "multipliers", ms);
    }
    return j;
}

/* The next item of *p (advanced past it) into it; false at the end. */
static bool next_item(const char **p, item *it)
{
    const char *s = *p, *end;
    size_t n;

    while (*s == ',' || *s == ' ')
        s++;
    if (*s == '\0')
        return false;
    end = strchr(s, ',');
    n = end ? (size_t)(end - s) : strlen(s);
    *p = s + n;
    while (n > 0 && s[n - 1] == ' ')
        n--;
    memset(it, 0, sizeof *it);
    snprintf(it->text, sizeof it->text, "%.*s", (int)n, s);
    return true;
}

err_code discord_combat_units(db_conn *c, const char *campaign_id,
                              const char *list, discord_combat_kind kind,
                              json_t **out, char *side, err_info *e)
{
    const char *p = list ? list : "";
    item it;
    db_unit u;
    err_code rc = ERR_OK;

    *out = json_array();
    if (side != NULL)
        side[0] = '\0';
    while (rc == ERR_OK && next_item(&p, &it)) {
        if (json_array_size(*out) == ITEMS_MAX)
            return err_set(e, ERR_LIMIT, NULL, "a list holds at most %d units",
                           ITEMS_MAX);
        parse_item(&it, kind);
        if ((rc = find_unit(c, campaign_id, &it, &u, e)))
            break;
        if (side == NULL)
            ; /* units of any side */
        else if (side[0] == '\0')
            text_copy(side, DB_NAME_MAX, u.side_name);
        else if (strcmp(side, u.side_name) != 0)
            return err_set(e, ERR_INVALID, NULL,
                           "%.64s is of the side %.64s, not %.64s: a list "
                           "holds one side's units",
                           u.name, u.side_name, side);
        json_array_append_new(*out, unit_json(&it, &u));
    }
    if (rc == ERR_OK && json_array_size(*out) == 0)
        rc = err_set(e, ERR_MISSING, NULL, "a list names one unit at least");
    return rc;
}

void discord_combat_seed(const discord_interaction *in, char out[48])
{
    snprintf(out, 48, "discord:%s", in->id);
}

/* ---- through the pipeline ---- */

static err_code combat_write(db_conn *c, void *arg, err_info *e)
{
    discord_interaction *in = arg;
    err_code rc;

    if ((rc = pipeline_campaign_job(c, in->job, e)))
        return rc;
    return discord_http_record(c, in, in->name, e);
}

/* Once committed: the combat's report as an embed. */
static void combat_done(http_request *r, err_code rc, const err_info *e)
{
    discord_interaction *in = r->state;
    const combat_record *rec = in->job;
    json_t *report;

    if (rc != ERR_OK) {
        discord_reply_send(
            r, discord_reply_notice("The combat was refused: %s",
                                    e && e->code ? e->message : "it failed"));
        return;
    }
    report = json_loads(rec->cb.report, 0, NULL);
    discord_reply_send(
        r, discord_reply_message(DISCORD_REPLY_MESSAGE, NULL,
                                 discord_report_combat(report, in->campaign_id),
                                 NULL, false));
    json_decref(report);
}

/* Reads body (stolen) as a request of s and hands it to the writer. */
static void run(http_request *r, discord_interaction *in,
                const systems_entry *s, json_t *body)
{
    char seed[48];
    void *job = NULL;
    err_info e;
    err_code rc;

    discord_combat_seed(in, seed);
    json_object_set_new(
        body, "dice",
        json_pack("{s:s, s:s}", "source", "seeded", "client_seed", seed));
    if (discord_interaction_str(in, "note"))
        json_object_set_new(body, "note",
                            json_string(discord_interaction_str(in, "note")));
    err_clear(&e);
    rc = pipeline_read(s, body, in->campaign_id, in->umpire_token_id, &job, &e);
    if (job != NULL) {
        in->job = job;
        in->job_free = s->job_free;
    }
    json_decref(body);
    if (rc != ERR_OK) {
        discord_reply_send(r, discord_reply_notice("The combat was refused: "
                                                   "%s",
                                                   e.message));
        return;
    }
    discord_http_write(r, in, combat_write, combat_done);
}

/* The units of the lists named keys[0..n) into arrays[] and sides[], on
 * one pooled connection; false when r was answered. */
static bool read_lists(http_request *r, discord_interaction *in,
                       const char *const keys[], int n,
                       discord_combat_kind kind, json_t *arrays[],
                       char sides[][DB_NAME_MAX])
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    err_info e;
    err_code rc = ERR_OK;
    int i;

    err_clear(&e);
    for (i = 0; i < n; i++)
        arrays[i] = NULL;
    for (i = 0; i < n && rc == ERR_OK; i++)
        rc = discord_combat_units(c, in->campaign_id,
                                  discord_interaction_str(in, keys[i]), kind,
                                  &arrays[i], sides ? sides[i] : NULL, &e);
    db_read_release(d, c);
    if (rc == ERR_OK)
        return true;
    for (i = 0; i < n; i++)
        json_decref(arrays[i]);
    discord_reply_send(r,
                       discord_reply_notice("%s: %s", keys[i - 1], e.message));
    return false;
}

/* The request of a SCRUD combat from in's options, or NULL when r was
 * answered. */
static json_t *scrud_body(http_request *r, discord_interaction *in)
{
    static const char *const keys[] = {"side_a", "side_b"};
    char sides[2][DB_NAME_MAX];
    json_t *units[2], *body;
    long long mod[2] = {0, 0};
    const char *extra = discord_interaction_str(in, "extra_dice");

    if (!read_lists(r, in, keys, 2, DISCORD_COMBAT_SCRUD, units, sides))
        return NULL;
    discord_interaction_int(in, "modifier_a", &mod[0]);
    discord_interaction_int(in, "modifier_b", &mod[1]);
    body = json_pack("{s:[{s:s, s:I, s:o}, {s:s, s:I, s:o}]}", "sides", "side",
                     sides[0], "modifier", (json_int_t)mod[0], "units",
                     units[0], "side", sides[1], "modifier", (json_int_t)mod[1],
                     "units", units[1]);
    if (extra != NULL)
        json_object_set_new(body, "options",
                            json_pack("{s:s}", "extra_dice", extra));
    return body;
}

static json_t *edna_body(http_request *r, discord_interaction *in)
{
    static const char *const keys[] = {"units"};
    json_t *units[1];

    /* EDNA tests units of any sides together. */
    if (!read_lists(r, in, keys, 1, DISCORD_COMBAT_MODIFIER, units, NULL))
        return NULL;
    return json_pack("{s:o}", "units", units[0]);
}

static json_t *scs_body(http_request *r, discord_interaction *in)
{
    static const char *const keys[] = {"attackers", "defenders"};
    char sides[2][DB_NAME_MAX];
    json_t *units[2], *body;
    long long shift = 0;

    if (!read_lists(r, in, keys, 2, DISCORD_COMBAT_SCS, units, sides))
        return NULL;
    body = json_pack("{s:o, s:o, s:s}", "attackers", units[0], "defenders",
                     units[1], "table",
                     discord_interaction_str(in, "table")
                         ? discord_interaction_str(in, "table")
                         : "");
    if (discord_interaction_int(in, "column_shift", &shift))
        json_object_set_new(body, "column_shift", json_integer(shift));
    return body;
}

json_t *discord_combat_body(http_request *r, discord_interaction *in,
                            const char *system, const systems_entry **s)
{
    if (strcmp(system, "scrud") == 0)
        return *s = &scrud_stages, scrud_body(r, in);
    if (strcmp(system, "edna") == 0)
        return *s = &edna_stages, edna_body(r, in);
    if (strcmp(system, "scs") == 0)
        return *s = &scs_stages, scs_body(r, in);
    discord_reply_send(r, discord_reply_notice("There are no odds of "
                                               "\"%.32s\" here.",
                                               system));
    return NULL;
}

void discord_combat_scrud(http_request *r, discord_interaction *in)
{
    json_t *body = scrud_body(r, in);

    if (body != NULL)
        run(r, in, &scrud_stages, body);
}

void discord_combat_edna(http_request *r, discord_interaction *in)
{
    json_t *body = edna_body(r, in);

    if (body != NULL)
        run(r, in, &edna_stages, body);
}

void discord_combat_scs(http_request *r, discord_interaction *in)
{
    json_t *body = scs_body(r, in);

    if (body != NULL)
        run(r, in, &scs_stages, body);
}
