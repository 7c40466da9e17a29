/*
 * discord_rig.h: a test that plays Discord.  It makes its own Ed25519 key
 * pair (libsodium's crypto_sign_keypair), starts a server with that
 * public key as its Discord application's (harness.h, port 0), its
 * poster of channel posts pointed, when a test asks, at a local
 * stand-in for Discord (notify_rig.h), signs
 * every request byte for byte as Discord does (the timestamp's digits,
 * then the raw body) and sends it through real HTTP.  Interactions are
 * built as Discord builds them: a guild, a channel, a member with a user
 * id, and a fresh snowflake for each.
 *
 * Replies kept with discord_rig_keep are written, when
 * UMPIRE_DISCORD_REPLIES names a folder, one file each, for the checks
 * by Discord's own library (tests/discord/).  JSON returned is new:
 * the caller decrefs it.  Helpers abort the test on failure.
 */
#ifndef UMPIRE_TESTS_DISCORD_RIG_H
#define UMPIRE_TESTS_DISCORD_RIG_H

#include <stdbool.h>

#include <jansson.h>
#include <sodium.h>

#include "harness.h"

#define DISCORD_RIG_APP     "1100000000000000001"
#define DISCORD_RIG_GUILD   "1200000000000000001"
#define DISCORD_RIG_CHANNEL "1300000000000000001"
#define DISCORD_RIG_UMPIRE  "1400000000000000001" /* users */
#define DISCORD_RIG_PLAYER  "1400000000000000002"
#define DISCORD_RIG_OTHER   "1400000000000000003"

typedef struct discord_rig {
    test_server *ts;
    unsigned char pk[crypto_sign_PUBLICKEYBYTES];
    unsigned char sk[crypto_sign_SECRETKEYBYTES];
    test_campaign cmp;   /* sides "red" and "blue" */
    long long next_id;   /* the next interaction id */
    const char *channel; /* where interactions come from */
    char last_id[24];    /* the id of the last interaction sent */
} discord_rig;

/* A key pair, a server with it, a campaign (red, blue). */
void discord_rig_start(discord_rig *g);
/* The same, with the poster of channel posts set as posts says (NULL:
 * the defaults), e.g. posting to a local stand-in for Discord
 * (notify_rig.h: rcv_start, nrig_config). */
void discord_rig_start_with(discord_rig *g, const notify_config *posts);
/* The same on a server of cfg (http_config_default's, changed by the
 * caller: its Discord application is set here). */
void discord_rig_start_config(discord_rig *g, http_config *cfg);
void discord_rig_stop(discord_rig *g);

/* Signs body with timestamp (decimal Unix seconds) into sig_hex (129
 * bytes), as Discord does. */
void discord_rig_sign(const discord_rig *g, const char *timestamp,
                      const char *body, char *sig_hex);

/* Sends body to the endpoint with these headers (NULL: left out). */
void discord_rig_post(discord_rig *g, const char *sig_hex,
                      const char *timestamp, const char *body, http_resp *out);
/* Signs body now and sends it; the response must be 200 JSON (new). */
json_t *discord_rig_send(discord_rig *g, const char *body);

/* An interaction of type from user with data (JSON text; NULL for none),
 * with a fresh id (g->last_id): its body (new, free()). */
char *discord_rig_body(discord_rig *g, int type, const char *user,
                       const char *data);

/* A slash command with its options (JSON array text, "[]" for none). */
json_t *discord_rig_command(discord_rig *g, const char *user, const char *name,
                            const char *options_fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An autocomplete of name with options (one with "focused": true). */
json_t *discord_rig_complete(discord_rig *g, const char *user, const char *name,
                             const char *options);
/* A component pressed: its custom_id and, for a select, values (JSON
 * array text or NULL). */
json_t *discord_rig_press(discord_rig *g, const char *user,
                          const char *custom_id, const char *values);

/* The reply's content or first embed's description, "" if none. */
const char *discord_rig_text(const json_t *reply);
/* The reply is an ephemeral message (type 4, flags 64) holding want. */
void discord_rig_assert_notice(const json_t *reply, const char *want);
/* The reply is within Discord's limits, as the service counts them
 * (UTF-16 units), and parses no mention; returns its embed's total. */
size_t discord_rig_assert_limits(const json_t *reply);
/* Writes reply as name.json into $UMPIRE_DISCORD_REPLIES, if set. */
void discord_rig_keep(const json_t *reply, const char *name);

/* Links the channel (umpire) and claims red (player). */
void discord_rig_link(discord_rig *g);
/* A unit on side carrying every system (scrud, edna, scs, matrix, civ). */
void discord_rig_unit(discord_rig *g, const char *name, const char *side);

/* The custom_id of the first component whose custom_id has prefix, in
 * reply (borrowed from it), or NULL. */
const char *discord_rig_component(const json_t *reply, const char *part);

#endif
