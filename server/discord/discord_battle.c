/*
 * discord_battle.c: battles opened and fought from Discord; see
 * discord_battle.h.  The battle's handlers are the systems' own
 * (matrix_campaign.c, civ_campaign.c), called as the HTTP routes call
 * them, for the campaign's umpire token; their answer (the battle) is
 * made into the message by discord_battle_view.c when it is sent.
 */
#include "discord_battle.h"

#include "discord_battle_view.h"
#include "discord_combat.h"
#include "discord_http.h"
#include "discord_odds.h"
#include "discord_reply.h"
#include "systems.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- calling a battle handler for the interaction ---- */

/*
 * Makes r a request of the campaign's umpire token on the battle route
 * (battle_id NULL: the battles), and hands in back (r's state is the
 * handler's from now on).  The interaction's id is r's Idempotency-Key
 * already (discord_http.c).  False when r was answered.
 */
static bool become_umpire(http_request *r, discord_interaction *in,
                          const char *battle_id)
{
    if (!discord_http_params(r, in->campaign_id, battle_id)) {
        discord_reply_send(r, discord_reply_notice("Out of memory."));
        return false;
    }
    r->has_token = true;
    memset(&r->token, 0, sizeof r->token);
    text_copy(r->token.id, DB_ID_MAX, in->umpire_token_id);
    text_copy(r->token.campaign_id, DB_ID_MAX, in->campaign_id);
    r->token.is_umpire = true;
    r->state = NULL;
    r->state_free = NULL;
    discord_interaction_free(in);
    return true;
}

/* ---- opening ---- */

/* The army of list as {"side", "units"} into *out (new); false when r
 * was answered. */
static bool read_army(http_request *r, discord_interaction *in, const char *key,
                      json_t **out)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    char side[DB_NAME_MAX];
    json_t *units = NULL, *ids, *u;
    err_info e;
    size_t i;
    err_code rc;

    err_clear(&e);
    rc = discord_combat_units(c, in->campaign_id,
                              discord_interaction_str(in, key),
                              DISCORD_COMBAT_NAMES, &units, side, &e);
    db_read_release(d, c);
    if (rc != ERR_OK) {
        json_decref(units);
        discord_reply_send(r, discord_reply_notice("%s: %s", key, e.message));
        return false;
    }
    ids = json_array();
    json_array_foreach(units, i, u)
        json_array_append(ids, json_object_get(u, "unit"));
    json_decref(units);
    *out = json_pack("{s:s, s:o}", "side", side, "units", ids);
    return true;
}

/* The line "A1 v J1; A2 + A3 v J2" as the request's "line" (names as
 * typed: the battle finds its units by id or name); NULL when it is not
 * one. */
static json_t *read_line(const char *text)
{
    json_t *line = json_array();
    char buf[1600], *combat, *save = NULL;

    text_copy(buf, sizeof buf, text ? text : "");
    for (combat = strtok_r(buf, ";", &save); combat;
         combat = strtok_r(NULL, ";", &save)) {
        char *v = strstr(combat, " v "), *part, *s2 = NULL;
        json_t *sides[2] = {json_array(), json_array()};
        int k;
        if (v == NULL) {
            json_decref(sides[0]);
            json_decref(sides[1]);
            json_decref(line);
            return NULL;
        }
        *v = '\0';
        for (k = 0; k < 2; k++)
            for (part = strtok_r(k ? v + 3 : combat, "+,", &s2); part;
                 part = strtok_r(NULL, "+,", &s2)) {
                size_t n;
                while (*part == ' ')
                    part++;
                n = strlen(part);
                while (n > 0 && part[n - 1] == ' ')
                    part[--n] = '\0';
                if (n > 0)
                    json_array_append_new(sides[k], json_string(part));
            }
        json_array_append_new(line, json_pack("{s:o, s:o}", "attacker",
                                              sides[0], "defender", sides[1]));
    }
    if (json_array_size(line) == 0) {
        json_decref(line);
        return NULL;
    }
    return line;
}

/* Opens a battle of s with body (stolen), the common members added. */
static void open_battle(http_request *r, discord_interaction *in,
                        const systems_entry *s, json_t *body)
{
    char seed[48];
    long long turn = 1;

    discord_combat_seed(in, seed);
    json_object_set_new(body, "system", json_string(systems_name(s)));
    json_object_set_new(
        body, "dice",
        json_pack("{s:s, s:s}", "source", "seeded", "client_seed", seed));
    discord_interaction_int(in, "turn", &turn);
    json_object_set_new(body, "turn", json_integer(turn));
    if (discord_interaction_str(in, "note"))
        json_object_set_new(body, "note",
                            json_string(discord_interaction_str(in, "note")));
    if (!become_umpire(r, in, NULL)) {
        json_decref(body);
        return;
    }
    s->battle->create(r, body);
}

void discord_battle_matrix(http_request *r, discord_interaction *in)
{
    json_t *armies[2], *line = read_line(discord_interaction_str(in, "line"));
    long long argument = 0;

    if (line == NULL) {
        discord_reply_send(
            r, discord_reply_notice("line: combats after semicolons, each "
                                    "\"attackers v defenders\", units joined "
                                    "by +: \"A1 v J1; A2 + A3 v J2\"."));
        return;
    }
    if (!read_army(r, in, "attacker", &armies[0])) {
        json_decref(line);
        return;
    }
    if (!read_army(r, in, "defender", &armies[1])) {
        json_decref(armies[0]);
        json_decref(line);
        return;
    }
    if (discord_interaction_int(in, "argument", &argument))
        json_object_set_new(armies[0], "argument", json_integer(argument));
    open_battle(r, in, &matrix_stages,
                json_pack("{s:o, s:o, s:o}", "attacker", armies[0], "defender",
                          armies[1], "line", line));
}

void discord_battle_civ(http_request *r, discord_interaction *in)
{
    json_t *armies[2], *body;
    long long era = 1, tech[2] = {0, 0};
    bool is_settlement = false;

    if (!read_army(r, in, "attacker", &armies[0]))
        return;
    if (!read_army(r, in, "defender", &armies[1])) {
        json_decref(armies[0]);
        return;
    }
    discord_interaction_int(in, "current_era", &era);
    discord_interaction_bool(in, "settlement", &is_settlement);
    if (discord_interaction_int(in, "attacker_technologies", &tech[0]))
        json_object_set_new(armies[0], "technologies", json_integer(tech[0]));
    if (discord_interaction_int(in, "defender_technologies", &tech[1]))
        json_object_set_new(armies[1], "technologies", json_integer(tech[1]));
    body = json_pack("{s:o, s:o, s:I, s:b}", "attacker", armies[0], "defender",
                     armies[1], "current_era", (json_int_t)era, "settlement",
                     is_settlement);
    open_battle(r, in, &civ_stages, body);
}

json_t *discord_battle_created(const discord_interaction *in,
                               const json_t *answer, int status)
{
    (void)in;
    if (status >= 300 || !json_is_string(json_object_get(answer, "status")))
        return NULL;
    return discord_battle_view_message(answer, DISCORD_REPLY_MESSAGE, NULL);
}

/* ---- pressing ---- */

/* A press, from its custom_id
 * "b:<battle>:<n>:<action>[:<k>[:<army>[:<aircraft>]]]". */
typedef struct press {
    char battle[DB_ID_MAX];
    int n_actions;
    char action[16];
    int combat;    /* -1 when none */
    char army[16]; /* "" when none ("-" in a custom_id) */
    char air[DISCORD_BATTLE_VIEW_AIR_LEN + 1]; /* Civilization's aircraft
                                                * orders (view.h) */
} press;

static bool parse_press(const char *id, press *p)
{
    char buf[DISCORD_REPLY_CUSTOM_ID_MAX + 1], *f[7], *save = NULL, *tok;
    int n = 0;

    memset(p, 0, sizeof *p);
    p->combat = -1;
    text_copy(p->air, sizeof p->air, DISCORD_BATTLE_VIEW_AIR_DEFAULT);
    text_copy(buf, sizeof buf, id);
    for (tok = strtok_r(buf, ":", &save); tok && n < 7;
         tok = strtok_r(NULL, ":", &save))
        f[n++] = tok;
    if (n < 4 || strcmp(f[0], "b") != 0 || strlen(f[1]) >= DB_ID_MAX ||
        strlen(f[3]) >= sizeof p->action || strlen(f[2]) > 9 ||
        (n > 5 && strlen(f[5]) >= sizeof p->army) ||
        (n > 6 && !discord_battle_view_air_is_valid(f[6])))
        return false;
    text_copy(p->battle, sizeof p->battle, f[1]);
    p->n_actions = atoi(f[2]);
    text_copy(p->action, sizeof p->action, f[3]);
    if (n > 4)
        p->combat = atoi(f[4]);
    if (n > 5 && strcmp(f[5], "-") != 0)
        text_copy(p->army, sizeof p->army, f[5]);
    if (n > 6)
        text_copy(p->air, sizeof p->air, f[6]);
    return true;
}

/* The index of a Civilization army's name, or -1. */
static int army_index(const char *army)
{
    return strcmp(army, "attacker") == 0   ? 0
           : strcmp(army, "defender") == 0 ? 1
                                           : -1;
}

/* A Civilization phase's request: the wave picked in a select (wave
 * NULL: the standing order) and the aircraft orders the message carried
 * (docs/rules/civ.md, "A phase"). */
static void phase_body(json_t *body, const press *p, json_t *wave)
{
    static const char *const armies[] = {"attacker", "defender"};
    json_t *orders[2] = {json_object(), json_object()};
    int a;

    json_object_set_new(body, "action", json_string("phase"));
    if (wave != NULL && army_index(p->army) >= 0)
        json_object_set_new(orders[army_index(p->army)], "wave", wave);
    else
        json_decref(wave);
    for (a = 0; a < 2; a++) {
        const char *cls = discord_battle_view_air_class(p->air[a]);
        if (cls != NULL)
            json_object_set_new(orders[a], "aircraft_support",
                                json_string(cls));
        if (json_object_size(orders[a]) > 0)
            json_object_set_new(body, armies[a], orders[a]);
        else
            json_decref(orders[a]);
    }
}

/* The action's request, from the press and a select's values. */
static json_t *action_body(const press *p, const discord_interaction *in)
{
    json_t *body = json_pack("{s:s, s:i}", "action", p->action,
                             "expect_actions", p->n_actions),
           *wave;
    size_t i;

    if (strcmp(p->action, "wave") == 0) {
        /* A Civilization phase with the wave picked in the select. */
        wave = json_array();
        for (i = 0; i < in->n_values; i++)
            json_array_append_new(wave, json_string(in->values[i]));
        phase_body(body, p, wave);
        return body;
    }
    if (strcmp(p->action, "phase") == 0) {
        phase_body(body, p, NULL);
        return body;
    }
    if (p->combat >= 0)
        json_object_set_new(body, "combat", json_integer(p->combat));
    if (strcmp(p->action, "commit") == 0) {
        json_object_set_new(body, "army", json_string(p->army));
        json_object_set_new(body, "unit",
                            json_string(in->n_values ? in->values[0] : ""));
    }
    return body;
}

/* The system of a battle of the campaign, or NULL. */
static const systems_entry *battle_system(http_request *r, const char *cid,
                                          const char *battle)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    const systems_entry *s = NULL;
    db_battle b;

    memset(&b, 0, sizeof b);
    if (db_battle_get(c, cid, battle, &b, NULL) == ERR_OK)
        s = systems_find(b.system);
    db_battle_cleanup(&b);
    db_read_release(d, c);
    return s && s->battle ? s : NULL;
}

void discord_battle_press(http_request *r, discord_interaction *in)
{
    const systems_entry *s;
    json_t *body;
    press p;

    if (!parse_press(in->custom_id, &p)) {
        discord_reply_send(r, discord_reply_notice("This button is not one "
                                                   "of this service's."));
        return;
    }
    if (strcmp(p.action, "odds") == 0 && in->is_linked &&
        (in->role == DB_DISCORD_UMPIRE || in->role == DB_DISCORD_PLAYER)) {
        /* Odds read: a player may ask as the umpire may. */
        if ((s = battle_system(r, in->campaign_id, p.battle)) == NULL) {
            discord_reply_send(
                r, discord_reply_notice("This channel's campaign has no "
                                        "battle %s.",
                                        p.battle));
            return;
        }
        body = json_pack("{s:s, s:i}", "battle", p.battle, "expect_actions",
                         p.n_actions);
        if (strcmp(systems_name(s), "civ") == 0) {
            /* The phase with the orders the message carried; the phase
             * only. */
            phase_body(body, &p, NULL);
            json_object_del(body, "action");
            json_object_set_new(body, "odds",
                                json_pack("{s:b}", "battle", false));
        }
        discord_odds_battle(r, in, s, body, p.combat);
        return;
    }
    if (!in->is_linked || in->role != DB_DISCORD_UMPIRE) {
        discord_reply_send(
            r, discord_reply_notice("Only the campaign's umpire fights its "
                                    "battles: players read."));
        return;
    }
    if ((s = battle_system(r, in->campaign_id, p.battle)) == NULL) {
        discord_reply_send(r, discord_reply_notice("This channel's campaign "
                                                   "has no battle %s.",
                                                   p.battle));
        return;
    }
    if (strcmp(p.action, "air") == 0) {
        /* A choice of the aircraft's class acts on nothing: the battle is
         * read, and shown again with the choice in its components
         * (discord_battle_reshape). */
        if (strcmp(systems_name(s), "civ") != 0 || army_index(p.army) < 0 ||
            in->n_values != 1 ||
            discord_battle_view_air_letter(in->values[0]) == '\0') {
            discord_reply_send(
                r, discord_reply_notice("This select is not one of this "
                                        "service's."));
            return;
        }
        if (become_umpire(r, in, p.battle))
            s->battle->get(r);
        return;
    }
    body = action_body(&p, in);
    if (!become_umpire(r, in, p.battle)) {
        json_decref(body);
        return;
    }
    s->battle->action(r, body);
}

json_t *discord_battle_reshape(const discord_interaction *in,
                               const json_t *answer, int status)
{
    long long n_actions =
        json_integer_value(json_object_get(answer, "n_actions"));
    press p;

    if (status >= 300 || !json_is_string(json_object_get(answer, "status")))
        return NULL;
    if (!parse_press(in->custom_id, &p))
        return discord_battle_view_message(answer, DISCORD_REPLY_UPDATE, NULL);
    if (strcmp(p.action, "air") == 0) {
        /* The choice holds for the state the message showed only, as an
         * action's expect_actions does. */
        if (n_actions != p.n_actions)
            return discord_reply_notice("Refused: the battle has %lld "
                                        "actions, not %d: another action "
                                        "landed first",
                                        n_actions, p.n_actions);
        char letter = in->n_values == 1
                          ? discord_battle_view_air_letter(in->values[0])
                          : '\0';
        if (letter != '\0' && army_index(p.army) >= 0)
            p.air[army_index(p.army)] = letter;
    }
    /* After a phase the orders carry over to the next one. */
    return discord_battle_view_message(answer, DISCORD_REPLY_UPDATE, p.air);
}
