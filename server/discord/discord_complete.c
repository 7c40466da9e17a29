/*
 * discord_complete.c: autocomplete from the campaign; see
 * discord_complete.h.  Each answer reads a pooled connection once, with a
 * query bounded to the choices Discord shows (25), so that typing in a
 * campaign of 10,000 units costs what typing in one of ten does.
 */
#include "discord_complete.h"

#include "discord_reply.h"
#include "scs_json.h"
#include "text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define OFFERED 25 /* choices Discord shows */

/* Where the item being typed starts: past the last separator of seps
 * (NULL-terminated) and the spaces after it. */
static size_t item_start(const char *typed, const char *const seps[])
{
    size_t best = 0, i;

    for (i = 0; seps[i]; i++) {
        const char *p = typed, *q, *last = NULL;
        while ((q = strstr(p, seps[i])) != NULL) {
            last = q;
            p = q + 1;
        }
        if (last && (size_t)(last - typed) + strlen(seps[i]) > best)
            best = (size_t)(last - typed) + strlen(seps[i]);
    }
    while (typed[best] == ' ')
        best++;
    return best;
}

/* name is an item of the list head (items between seps, trimmed, a name
 * followed by nothing or by a space and its suffix). */
static bool is_listed(const char *head, size_t head_len, const char *name,
                      const char *const seps[])
{
    size_t n = strlen(name), i, k;

    for (i = 0; i + n <= head_len; i++) {
        bool at_start = i == 0;
        if (strncasecmp(head + i, name, n) != 0)
            continue;
        for (k = 0; seps[k] && !at_start; k++) {
            size_t m = strlen(seps[k]), j = i;
            while (j > 0 && head[j - 1] == ' ' && seps[k][m - 1] != ' ')
                j--;
            at_start = j >= m && strncmp(head + j - m, seps[k], m) == 0;
        }
        if (at_start && (i + n == head_len || head[i + n] == ' ' ||
                         strchr(",;+", head[i + n]) != NULL))
            return true;
    }
    return false;
}

/* The system whose units the command takes, or NULL for any. */
static const char *system_of(const discord_interaction *in)
{
    static const char *const systems[] = {"scrud", "edna", "scs", "matrix",
                                          "civ", NULL};
    size_t i;

    for (i = 0; systems[i]; i++)
        if (strcmp(in->name, systems[i]) == 0)
            return systems[i];
    return NULL;
}

/* Whether fog of war keeps the sender from other sides' units at all
 * (fog.h, "hidden"): then *own is the name of its side ("" for none),
 * the only side whose units it is offered.  Cheap: the campaign's row and
 * the side's, not its units. */
static bool fog_hides(db_conn *c, const discord_interaction *in,
                      char own[DB_NAME_MAX])
{
    db_campaign cmp;
    db_side side;

    own[0] = '\0';
    if (in->role == DB_DISCORD_UMPIRE ||
        db_campaign_get(c, in->campaign_id, &cmp, NULL) != ERR_OK ||
        !cmp.fog.is_enabled || strcmp(cmp.fog.others, "hidden") != 0)
        return false;
    if (in->side_id[0] &&
        db_side_find(c, in->campaign_id, in->side_id, &side, NULL) == ERR_OK)
        text_copy(own, DB_NAME_MAX, side.name);
    return true;
}

/* Offers the units completing the item of typed that starts at start. */
static void offer_units(http_request *r, discord_interaction *in,
                        const char *typed, const char *const seps[])
{
    db_discord_name names[OFFERED + 8];
    char item[DB_NAME_MAX], value[4 * DISCORD_REPLY_CHOICE_MAX];
    char label[4 * DISCORD_REPLY_CHOICE_MAX + sizeof names[0].detail + 4];
    db *d = http_db(r->srv);
    json_t *choices = json_array(), *ch;
    size_t start = item_start(typed, seps), n = 0, i, len;
    char own[DB_NAME_MAX];
    bool is_fogged;
    db_conn *c;

    text_copy(item, sizeof item, typed + start);
    len = strlen(item);
    while (len > 0 && item[len - 1] == ' ')
        item[--len] = '\0';
    c = db_read_acquire(d);
    is_fogged = fog_hides(c, in, own);
    /* More than shown: some may be listed already. */
    db_discord_units_like(c, in->campaign_id, system_of(in), item, names,
                          sizeof names / sizeof names[0], &n, NULL);
    db_read_release(d, c);
    for (i = 0; i < n && json_array_size(choices) < OFFERED; i++) {
        if (is_listed(typed, start, names[i].name, seps) ||
            (is_fogged && strcmp(names[i].detail, own) != 0))
            continue;
        if (start + strlen(names[i].name) >= sizeof value)
            continue;
        snprintf(value, sizeof value, "%.*s%s", (int)start, typed,
                 names[i].name);
        snprintf(label, sizeof label, "%s (%s)", value, names[i].detail);
        if ((ch = discord_reply_choice(label, value)) != NULL)
            json_array_append_new(choices, ch);
    }
    discord_reply_send(r, discord_reply_choices(choices));
}

void discord_complete_units(http_request *r, discord_interaction *in,
                            const char *typed)
{
    static const char *const seps[] = {",", NULL};

    offer_units(r, in, typed, seps);
}

void discord_complete_line(http_request *r, discord_interaction *in,
                           const char *typed)
{
    static const char *const seps[] = {",", ";", "+", " v ", NULL};

    offer_units(r, in, typed, seps);
}

void discord_complete_unit(http_request *r, discord_interaction *in,
                           const char *typed)
{
    static const char *const seps[] = {NULL};
    const char *name = in->name;

    in->name = "unit"; /* any system */
    offer_units(r, in, typed, seps);
    in->name = name;
}

/* name holds typed, in any case of ASCII letters. */
static bool holds(const char *name, const char *typed)
{
    size_t n = strlen(typed), i;

    for (i = 0; name[i]; i++)
        if (strncasecmp(name + i, typed, n) == 0)
            return true;
    return n == 0;
}

void discord_complete_table(http_request *r, discord_interaction *in,
                            const char *typed)
{
    db *d = http_db(r->srv);
    json_t *choices = json_array(), *builtin = scs_json_builtin_tables(), *t,
           *ch;
    db_table *ts = NULL;
    size_t n = 0, i;
    db_conn *c = db_read_acquire(d);

    db_tables_list(c, in->campaign_id, &ts, &n, NULL);
    db_read_release(d, c);
    for (i = 0; i < n && json_array_size(choices) < OFFERED; i++)
        if (holds(ts[i].name, typed) &&
            (ch = discord_reply_choice(ts[i].name, ts[i].name)) != NULL)
            json_array_append_new(choices, ch);
    json_array_foreach(builtin, i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        char label[DB_NAME_MAX + 16];
        if (name == NULL || !holds(name, typed) ||
            json_array_size(choices) >= OFFERED)
            continue;
        snprintf(label, sizeof label, "%s (built-in)", name);
        if ((ch = discord_reply_choice(label, name)) != NULL)
            json_array_append_new(choices, ch);
    }
    db_tables_free(ts, n);
    json_decref(builtin);
    discord_reply_send(r, discord_reply_choices(choices));
}

void discord_complete_combat(http_request *r, discord_interaction *in,
                             const char *typed)
{
    db_discord_name names[OFFERED];
    char label[sizeof names[0].name + sizeof names[0].detail + 2];
    db *d = http_db(r->srv);
    json_t *choices = json_array(), *ch;
    size_t n = 0, i;
    db_conn *c = db_read_acquire(d);

    db_discord_combats_like(c, in->campaign_id, typed, names, OFFERED, &n,
                            NULL);
    db_read_release(d, c);
    for (i = 0; i < n; i++) {
        snprintf(label, sizeof label, "%.64s %.95s", names[i].name,
                 names[i].detail);
        if ((ch = discord_reply_choice(label, names[i].name)) != NULL)
            json_array_append_new(choices, ch);
    }
    discord_reply_send(r, discord_reply_choices(choices));
}
