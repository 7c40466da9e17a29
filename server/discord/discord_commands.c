/*
 * discord_commands.c: the table of slash commands, its JSON for Discord,
 * and dispatch; see discord_commands.h.  Unit lists are options of text
 * ("R1, R2 +1, R3 reserve") completed item by item from the campaign's
 * units (discord_complete.c), so a side may hold as many units as the
 * service allows, not one option per unit.
 */
#include "discord_commands.h"

#include "discord_battle.h"
#include "discord_combat.h"
#include "discord_complete.h"
#include "discord_link.h"
#include "discord_odds.h"
#include "discord_read.h"
#include "discord_reply.h"

#include <string.h>

#define S        DISCORD_COMMANDS_STRING
#define I        DISCORD_COMMANDS_INTEGER
#define B        DISCORD_COMMANDS_BOOLEAN
#define LIST_MAX 6000 /* characters of a list of units (Discord's most) */

static const char *const extra_dice[] = {"beat_lowest", "ignore", "half", NULL};

static const discord_commands_option opts_token[] = {
    {S, "token", "The token (never shown to anyone: the answer is private)",
     true, NULL, 0, 0, 200, NULL},
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

static const discord_commands_option opts_none[] = {
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

static const discord_commands_option opts_scrud[] = {
    {S, "side_a", "First side's units: R1, R2 +1 (modifier), R3 reserve", true,
     discord_complete_units, 0, 0, LIST_MAX, NULL},
    {S, "side_b", "Second side's units, the same way", true,
     discord_complete_units, 0, 0, LIST_MAX, NULL},
    {I, "modifier_a", "First side's modifier", false, NULL, -100, 100, 0, NULL},
    {I, "modifier_b", "Second side's modifier", false, NULL, -100, 100, 0,
     NULL},
    {S, "extra_dice", "What unpaired dice do (the campaign's rule unless set)",
     false, NULL, 0, 0, 0, extra_dice},
    {S, "note", "A note kept with the combat", false, NULL, 0, 0, 500, NULL},
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

static const discord_commands_option opts_edna[] = {
    {S, "units", "Units to test: R1, R2 +1 (harder by 1)", true,
     discord_complete_units, 0, 0, LIST_MAX, NULL},
    {S, "note", "A note kept with the test", false, NULL, 0, 0, 500, NULL},
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

static const discord_commands_option opts_scs[] = {
    {S, "attackers", "Attacking units: XIII Corps, XV Corps x1/2 (multiplier)",
     true, discord_complete_units, 0, 0, LIST_MAX, NULL},
    {S, "defenders", "Defending units: XX Corps x2", true,
     discord_complete_units, 0, 0, LIST_MAX, NULL},
    {S, "table", "The combat results table", true, discord_complete_table, 0, 0,
     64, NULL},
    {I, "column_shift", "Columns to shift (right is positive)", false, NULL,
     -20, 20, 0, NULL},
    {S, "note", "A note kept with the combat", false, NULL, 0, 0, 500, NULL},
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

static const discord_commands_option opts_unit[] = {
    {S, "unit", "The unit", true, discord_complete_unit, 0, 0, 64, NULL},
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

static const discord_commands_option opts_check[] = {
    {S, "combat", "The combat's id (cbt_...)", true, discord_complete_combat, 0,
     0, 40, NULL},
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

static const discord_commands_option opts_matrix[] = {
    {S, "attacker", "Attacking army's units", true, discord_complete_units, 0,
     0, LIST_MAX, NULL},
    {S, "defender", "Defending army's units", true, discord_complete_units, 0,
     0, LIST_MAX, NULL},
    {S, "line",
     "The line: A1 v J1; A2 + A3 v J2 (units not in it wait in "
     "reserve)",
     true, discord_complete_line, 0, 0, LIST_MAX, NULL},
    {I, "turn", "The campaign turn", true, NULL, 1, 100000, 0, NULL},
    {I, "argument", "The attacker's matrix argument", false, NULL, -1, 1, 0,
     NULL},
    {S, "note", "A note kept with the battle", false, NULL, 0, 0, 500, NULL},
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

static const discord_commands_option opts_civ[] = {
    {S, "attacker", "Attacking army's pieces", true, discord_complete_units, 0,
     0, LIST_MAX, NULL},
    {S, "defender", "Defending army's pieces", true, discord_complete_units, 0,
     0, LIST_MAX, NULL},
    {I, "current_era", "The game's current era (1 ancient to 4 modern)", true,
     NULL, 1, 4, 0, NULL},
    {I, "turn", "The campaign turn", true, NULL, 1, 100000, 0, NULL},
    {B, "settlement", "The defender holds a settlement", false, NULL, 0, 0, 0,
     NULL},
    {I, "attacker_technologies", "Technologies the attacker controls", false,
     NULL, 0, 100, 0, NULL},
    {I, "defender_technologies", "Technologies the defender controls", false,
     NULL, 0, 100, 0, NULL},
    {S, "note", "A note kept with the battle", false, NULL, 0, 0, 500, NULL},
    {0, NULL, NULL, false, NULL, 0, 0, 0, NULL}};

/* /odds: the combats' options without the note, and who sees it. */
#define OPT_PUBLIC                                                             \
    {                                                                          \
        B, "public", "Show the odds to the channel (only you otherwise)",      \
            false, NULL, 0, 0, 0, NULL                                         \
    }
#define OPT_END                                                                \
    {                                                                          \
        0, NULL, NULL, false, NULL, 0, 0, 0, NULL                              \
    }

static const discord_commands_option opts_odds_scrud[] = {
    {S, "side_a", "First side's units: R1, R2 +1 (modifier), R3 reserve", true,
     discord_complete_units, 0, 0, LIST_MAX, NULL},
    {S, "side_b", "Second side's units, the same way", true,
     discord_complete_units, 0, 0, LIST_MAX, NULL},
    {I, "modifier_a", "First side's modifier", false, NULL, -100, 100, 0, NULL},
    {I, "modifier_b", "Second side's modifier", false, NULL, -100, 100, 0,
     NULL},
    {S, "extra_dice", "What unpaired dice do (the campaign's rule unless set)",
     false, NULL, 0, 0, 0, extra_dice},
    OPT_PUBLIC,
    OPT_END};

static const discord_commands_option opts_odds_edna[] = {
    {S, "units", "Units to test: R1, R2 +1 (harder by 1)", true,
     discord_complete_units, 0, 0, LIST_MAX, NULL},
    OPT_PUBLIC,
    OPT_END};

static const discord_commands_option opts_odds_scs[] = {
    {S, "attackers", "Attacking units: XIII Corps, XV Corps x1/2 (multiplier)",
     true, discord_complete_units, 0, 0, LIST_MAX, NULL},
    {S, "defenders", "Defending units: XX Corps x2", true,
     discord_complete_units, 0, 0, LIST_MAX, NULL},
    {S, "table", "The combat results table", true, discord_complete_table, 0, 0,
     64, NULL},
    {I, "column_shift", "Columns to shift (right is positive)", false, NULL,
     -20, 20, 0, NULL},
    OPT_PUBLIC,
    OPT_END};

static const discord_commands_sub subs_odds[] = {
    {"scrud", "Each side's chance of more defeats, each unit's of elimination",
     opts_odds_scrud},
    {"edna", "Each unit's chance to pass, fail or become ineffective",
     opts_odds_edna},
    {"scs", "The chance of each result of the table", opts_odds_scs},
    {NULL, NULL, NULL}};

const discord_commands_entry discord_commands_table[] = {
    {"link", "Link this channel to a campaign with its umpire token",
     DISCORD_COMMANDS_ANYONE, discord_link_link, NULL, opts_token, NULL},
    {"unlink", "Unlink this channel from its campaign", DISCORD_COMMANDS_UMPIRE,
     discord_link_unlink, NULL, opts_none, NULL},
    {"claim", "Claim your side with your player token", DISCORD_COMMANDS_LINKED,
     discord_link_claim, NULL, opts_token, NULL},
    {"scrud", "Resolve a SCRUD combat between two sides' units",
     DISCORD_COMMANDS_UMPIRE, discord_combat_scrud, NULL, opts_scrud, NULL},
    {"edna", "Test units' EDNA (morale)", DISCORD_COMMANDS_UMPIRE,
     discord_combat_edna, NULL, opts_edna, NULL},
    {"scs", "Resolve an SCS odds combat on a combat results table",
     DISCORD_COMMANDS_UMPIRE, discord_combat_scs, NULL, opts_scs, NULL},
    {"matrix", "Open a Matrix game battle, fought with its buttons",
     DISCORD_COMMANDS_UMPIRE, discord_battle_matrix, discord_battle_created,
     opts_matrix, NULL},
    {"civ", "Open a Civilization battle, fought with its buttons",
     DISCORD_COMMANDS_UMPIRE, discord_battle_civ, discord_battle_created,
     opts_civ, NULL},
    {"unit", "A unit's card and its recent history", DISCORD_COMMANDS_READER,
     discord_read_unit, NULL, opts_unit, NULL},
    {"ledger", "The campaign ledger's head, verified", DISCORD_COMMANDS_READER,
     discord_read_ledger, discord_read_ledger_reshape, opts_none, NULL},
    {"commitment", "The next commitment: post it before the dice",
     DISCORD_COMMANDS_READER, discord_read_commitment, NULL, opts_none, NULL},
    {"check", "Replay a combat and check its dice", DISCORD_COMMANDS_READER,
     discord_read_check, discord_read_check_reshape, opts_check, NULL},
    {"odds", "The chances of a SCRUD combat, an EDNA test or an SCS combat",
     DISCORD_COMMANDS_READER, discord_odds_run, NULL, opts_none, subs_odds},
};
const size_t discord_commands_n =
    sizeof discord_commands_table / sizeof discord_commands_table[0];

static json_t *option_json(const discord_commands_option *o)
{
    json_t *j =
        json_pack("{s:i, s:s, s:s, s:b}", "type", o->type, "name", o->name,
                  "description", o->description, "required", o->is_required);
    size_t i;

    if (o->complete)
        json_object_set_new(j, "autocomplete", json_true());
    if (o->type == DISCORD_COMMANDS_INTEGER && (o->min || o->max)) {
        json_object_set_new(j, "min_value", json_integer(o->min));
        json_object_set_new(j, "max_value", json_integer(o->max));
    }
    if (o->max_length)
        json_object_set_new(j, "max_length", json_integer(o->max_length));
    if (o->choices) {
        json_t *cs = json_array();
        for (i = 0; o->choices[i]; i++)
            json_array_append_new(cs,
                                  json_pack("{s:s, s:s}", "name", o->choices[i],
                                            "value", o->choices[i]));
        json_object_set_new(j, "choices", cs);
    }
    return j;
}

json_t *discord_commands_json(void)
{
    json_t *all = json_array();
    size_t i, k;

    for (i = 0; i < discord_commands_n; i++) {
        const discord_commands_entry *c = &discord_commands_table[i];
        json_t *opts = json_array();
        for (k = 0; c->options[k].name; k++)
            json_array_append_new(opts, option_json(&c->options[k]));
        for (k = 0; c->subs && c->subs[k].name; k++) {
            json_t *sub = json_array();
            const discord_commands_option *o;
            for (o = c->subs[k].options; o->name; o++)
                json_array_append_new(sub, option_json(o));
            json_array_append_new(
                opts, json_pack("{s:i, s:s, s:s, s:o}", "type",
                                DISCORD_COMMANDS_SUBCOMMAND, "name",
                                c->subs[k].name, "description",
                                c->subs[k].description, "options", sub));
        }
        /* Chat commands (type 1), in servers only (context 0). */
        json_array_append_new(all, json_pack("{s:i, s:s, s:s, s:o, s:[i]}",
                                             "type", 1, "name", c->name,
                                             "description", c->description,
                                             "options", opts, "contexts", 0));
    }
    return all;
}

static const discord_commands_entry *find(const char *name)
{
    size_t i;

    for (i = 0; i < discord_commands_n; i++)
        if (strcmp(discord_commands_table[i].name, name) == 0)
            return &discord_commands_table[i];
    return NULL;
}

/* Why in's user may not use c, or NULL when they may. */
static const char *refusal(const discord_commands_entry *c,
                           const discord_interaction *in)
{
    if (c->who == DISCORD_COMMANDS_ANYONE)
        return NULL;
    if (!in->is_linked)
        return "This channel is not linked to a campaign. An umpire links "
               "it with /link and the campaign's umpire token.";
    if (c->who == DISCORD_COMMANDS_LINKED || in->role == DB_DISCORD_UMPIRE)
        return NULL;
    if (c->who == DISCORD_COMMANDS_UMPIRE)
        return in->role == DB_DISCORD_PLAYER
                   ? "Only the campaign's umpire can do that: players read."
                   : "Only the campaign's umpire can do that.";
    return in->role == DB_DISCORD_PLAYER
               ? NULL
               : "Claim your side first with /claim and your player token.";
}

void discord_commands_run(http_request *r, discord_interaction *in)
{
    const discord_commands_entry *c = find(in->name);
    const char *why;

    if (c == NULL) {
        discord_reply_send(
            r, discord_reply_notice("This service has no command /%.32s: "
                                    "register its commands again "
                                    "(docs/discord.md).",
                                    in->name));
        return;
    }
    if ((why = refusal(c, in)) != NULL) {
        discord_reply_send(r, discord_reply_notice("%s", why));
        return;
    }
    c->run(r, in);
}

void discord_commands_complete(http_request *r, discord_interaction *in)
{
    const discord_commands_entry *c = find(in->name);
    const discord_interaction_option *f = discord_interaction_focused(in);
    const discord_commands_option *opts = c ? c->options : NULL;
    size_t k;

    for (k = 0; c && c->subs && c->subs[k].name; k++)
        if (strcmp(c->subs[k].name, in->subcommand) == 0)
            opts = c->subs[k].options;
    if (c != NULL && f != NULL && refusal(c, in) == NULL)
        for (k = 0; opts[k].name; k++)
            if (strcmp(opts[k].name, f->name) == 0 &&
                opts[k].complete != NULL) {
                const char *typed = json_string_value(f->value);
                opts[k].complete(r, in, typed ? typed : "");
                return;
            }
    discord_reply_send(r, discord_reply_choices(json_array()));
}

json_t *discord_commands_reshape(const discord_interaction *in,
                                 const json_t *answer, int status)
{
    const discord_commands_entry *c = find(in->name);

    return c && c->reshape ? c->reshape(in, answer, status) : NULL;
}
