/*
 * notify_discord.h: Discord's side of channel posts (docs/discord.md,
 * "Channel posts"): the webhook URLs a campaign may be given, their
 * masked form, the API base the poster sends to, the message posted for a
 * combat, and what a 429's body asks for.  Pure functions: no I/O.
 */
#ifndef UMPIRE_NOTIFY_DISCORD_H
#define UMPIRE_NOTIFY_DISCORD_H

#include <stdbool.h>
#include <stddef.h>

#include "db.h"
#include "err.h"

/* Discord's limits on an embed, in characters; the message counts bytes,
 * which are never fewer. */
#define NOTIFY_DISCORD_DESCRIPTION_MAX 4096
#define NOTIFY_DISCORD_EMBED_MAX       6000

/* Where a masked URL's token was: the last few characters are kept. */
#define NOTIFY_DISCORD_MASK "****"

/*
 * Reads url as a Discord webhook URL: https://discord.com/api/webhooks/
 * {id}/{token}, the host also discordapp.com or the ptb. or canary.
 * subdomain of either (letter case aside); id 1..20 digits (a snowflake),
 * token 1..128 of A-Z a-z 0-9 _ -; no port, user, query, fragment or
 * trailing slash.  id and token receive their parts.  ERR_INVALID, with
 * field, for anything else.
 */
err_code notify_discord_parse_url(const char *url, const char *field,
                                  char id[DB_WEBHOOK_ID_MAX],
                                  char token[DB_WEBHOOK_TOKEN_MAX],
                                  err_info *e);

/* url (as parse_url took it) with its token masked: NOTIFY_DISCORD_MASK
 * and the token's last 4 characters (none of a token under 16), into out
 * (n bytes, truncating). */
void notify_discord_mask(const char *url, char *out, size_t n);

/*
 * Checks an API base to post to, e.g. "https://discord.com/api" (the
 * webhook's path is added to it): https://host[:port][/path], no query,
 * fragment or trailing slash; plain http only for a loopback host
 * (127.0.0.1 and the like, localhost, [::1]), which is what tests point
 * it at.  *is_http says which.  ERR_INVALID, field "discord_api_base".
 */
err_code notify_discord_check_base(const char *base, bool *is_http,
                                   err_info *e);

/* A combat to post (strings borrowed; NULL where a field says so). */
typedef struct notify_discord_combat {
    const char *campaign_id;
    const char *campaign_name;
    const char *combat_id;
    const char *system;     /* "scrud", ...; Matrix and Civilization
                             * combats of a campaign are battle records */
    const char *created_at; /* RFC 3339 */
    const char *note;       /* or NULL */
    const char *summary;    /* the report's Markdown summary */
} notify_discord_combat;

/*
 * The message that posts cb: one embed (title, the summary as its
 * description, cut to NOTIFY_DISCORD_DESCRIPTION_MAX bytes with an open
 * code block closed, the report's path, the note, the combat id and
 * time), at most NOTIFY_DISCORD_EMBED_MAX bytes of text in all, and
 * allowed_mentions that mention nobody.  New JSON text (free()), or NULL
 * when out of memory.
 */
char *notify_discord_message(const notify_discord_combat *cb);

/* What a 429's body (JSON, or anything) asks: *retry_after in seconds
 * (-1 when it does not say), *is_global whether the limit is global. */
void notify_discord_read_429(const char *body, double *retry_after,
                             bool *is_global);

/* Discord's error message in body ({"message": ...}) into out (n bytes),
 * or "" when there is none. */
void notify_discord_error_message(const char *body, char *out, size_t n);

#endif
