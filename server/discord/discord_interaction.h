/*
 * discord_interaction.h: an interaction as Discord sends it (a slash
 * command, an autocomplete, a button or select pressed), read from its
 * JSON into what the handlers use, and who sent it in which campaign.
 *
 * Discord's documents are read leniently: Discord adds fields without
 * notice, so unknown ones are ignored; the fields used are checked for
 * their types, and ids are snowflakes (1 to 20 digits).
 */
#ifndef UMPIRE_DISCORD_INTERACTION_H
#define UMPIRE_DISCORD_INTERACTION_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "db.h"
#include "err.h"

/* Interaction types (Discord's numbers). */
enum {
    DISCORD_INTERACTION_PING = 1,
    DISCORD_INTERACTION_COMMAND = 2,
    DISCORD_INTERACTION_COMPONENT = 3,
    DISCORD_INTERACTION_AUTOCOMPLETE = 4,
    DISCORD_INTERACTION_MODAL = 5
};

#define DISCORD_INTERACTION_MAX 25 /* options of a command, select values */

typedef struct discord_interaction_option {
    const char *name;    /* borrowed from the document */
    const json_t *value; /* borrowed: string, integer, number or boolean */
    bool is_focused;     /* the option being typed (autocomplete) */
} discord_interaction_option;

typedef struct discord_interaction {
    json_t *doc; /* owned: the parsed body */
    int type;
    char id[DB_DISCORD_ID_MAX];
    char application_id[DB_DISCORD_ID_MAX];
    char guild_id[DB_DISCORD_ID_MAX];   /* "" in a direct message */
    char channel_id[DB_DISCORD_ID_MAX]; /* "" when none */
    char user_id[DB_DISCORD_ID_MAX];
    const char *name; /* the command's name, or "" (borrowed) */
    const char *subcommand; /* its subcommand's name, or "" (borrowed) */
    discord_interaction_option options[DISCORD_INTERACTION_MAX];
    size_t n_options;
    const char *custom_id; /* a component's, or "" (borrowed) */
    const char *values[DISCORD_INTERACTION_MAX]; /* a select's (borrowed) */
    size_t n_values;

    /* Who sent it, filled by discord_http.c from the channel's link. */
    bool is_linked;
    char campaign_id[DB_ID_MAX];
    db_discord_role role;
    char side_id[DB_ID_MAX]; /* a player's side, or "" */
    char umpire_token_id[DB_ID_MAX]; /* who a Discord umpire acts as */

    /* What its handler keeps while its write is on the database writer
     * (the interaction is then the request's state). */
    void *job; /* e.g. a combat's pipeline job, freed by job_free */
    void (*job_free)(void *job);
    db_token token; /* a token given with the command (link, claim) */
    char text[256]; /* a handler's own words for its answer */
} discord_interaction;

/* Parses the len bytes of body into in (its doc new: release with
 * discord_interaction_cleanup, also on failure).  ERR_INVALID with a
 * sentence when it is not an interaction. */
err_code discord_interaction_parse(const char *body, size_t len,
                                   discord_interaction *in, err_info *e);
void discord_interaction_cleanup(discord_interaction *in);
/* Cleans up and frees in (heap-made; NULL allowed): a request's
 * state_free. */
void discord_interaction_free(void *in);

/* The option called name: its string (borrowed), or NULL when it is
 * absent or not a string. */
const char *discord_interaction_str(const discord_interaction *in,
                                    const char *name);
/* Its integer into *out; false when absent or not an integer. */
bool discord_interaction_int(const discord_interaction *in, const char *name,
                             long long *out);
/* Its boolean into *out; false when absent or not a boolean. */
bool discord_interaction_bool(const discord_interaction *in, const char *name,
                              bool *out);
/* The focused option (autocomplete), or NULL. */
const discord_interaction_option *
discord_interaction_focused(const discord_interaction *in);

#endif
