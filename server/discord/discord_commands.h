/*
 * discord_commands.h: the slash commands, as a table of data (Redis's
 * command table): each command's name, description, options, who may
 * use it and its handler, all of one signature.  The same table is
 * printed as the JSON Discord's bulk-overwrite route takes (`umpire
 * discord-commands`, docs/discord.md), so what is registered and what is
 * served cannot drift apart.
 */
#ifndef UMPIRE_DISCORD_COMMANDS_H
#define UMPIRE_DISCORD_COMMANDS_H

#include <stdbool.h>

#include <jansson.h>

#include "discord_interaction.h"
#include "http.h"

/* Who may use a command. */
typedef enum discord_commands_who {
    DISCORD_COMMANDS_ANYONE, /* anyone, in a linked channel or not */
    DISCORD_COMMANDS_LINKED, /* anyone in a linked channel */
    DISCORD_COMMANDS_READER, /* the campaign's umpires and players */
    DISCORD_COMMANDS_UMPIRE  /* the campaign's Discord umpires */
} discord_commands_who;

/* Option types (Discord's numbers). */
enum {
    DISCORD_COMMANDS_SUBCOMMAND = 1,
    DISCORD_COMMANDS_STRING = 3,
    DISCORD_COMMANDS_INTEGER = 4,
    DISCORD_COMMANDS_BOOLEAN = 5
};

/* Answers an autocomplete of the focused option, whose text so far is
 * typed. */
typedef void (*discord_commands_complete_fn)(http_request *r,
                                             discord_interaction *in,
                                             const char *typed);

typedef struct discord_commands_option {
    int type; /* DISCORD_COMMANDS_STRING, _INTEGER or _BOOLEAN */
    const char *name;
    const char *description;
    bool is_required;
    discord_commands_complete_fn complete; /* NULL: no autocomplete */
    int min, max;                          /* integers; both 0: no range */
    int max_length;                        /* strings; 0: Discord's */
    const char *const *choices; /* strings, NULL-terminated; or NULL */
} discord_commands_option;

/* A subcommand: its name, description and options. */
typedef struct discord_commands_sub {
    const char *name;
    const char *description;
    const discord_commands_option *options; /* ends with a NULL name */
} discord_commands_sub;

typedef struct discord_commands_entry {
    const char *name;
    const char *description;
    discord_commands_who who;
    void (*run)(http_request *r, discord_interaction *in);
    /* The answer of the handler run calls (its JSON, and HTTP status
     * under 300), made into an interaction response (new); NULL when
     * run answers by itself. */
    json_t *(*reshape)(const discord_interaction *in, const json_t *answer,
                       int status);
    const discord_commands_option *options; /* ends with a NULL name */
    /* Subcommands (ending with a NULL name; options then opts_none), or
     * NULL: the handler reads in->subcommand. */
    const discord_commands_sub *subs;
} discord_commands_entry;

extern const discord_commands_entry discord_commands_table[];
extern const size_t discord_commands_n;

/* The command definitions for Discord's bulk overwrite (PUT
 * /applications/{id}/commands): a new JSON array. */
json_t *discord_commands_json(void);

/* Runs in's command after checking who may use it (r answered). */
void discord_commands_run(http_request *r, discord_interaction *in);
/* Answers in's autocomplete (r answered; no choices when the user may
 * not use the command). */
void discord_commands_complete(http_request *r, discord_interaction *in);
/* The reshape of in's command (see above), or NULL. */
json_t *discord_commands_reshape(const discord_interaction *in,
                                 const json_t *answer, int status);

#endif
