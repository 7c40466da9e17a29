/*
 * discord_verify.h: the Discord application's settings (its public key
 * and id, from the config file or flags) and the check of an
 * interaction's signature: Ed25519 by the application's key over
 * X-Signature-Timestamp followed by the raw body, given in
 * X-Signature-Ed25519 as hex (docs/discord.md).  Without both settings
 * the interactions endpoint is off.
 */
#ifndef UMPIRE_DISCORD_VERIFY_H
#define UMPIRE_DISCORD_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#define DISCORD_VERIFY_KEY_LEN 32  /* an Ed25519 public key */
#define DISCORD_VERIFY_SIG_LEN 64  /* an Ed25519 signature */
#define DISCORD_VERIFY_ID_MAX  24  /* a snowflake: up to 20 digits */
#define DISCORD_VERIFY_SKEW    300 /* seconds a timestamp may be off now */

typedef struct discord_config {
    bool has_key;
    unsigned char public_key[DISCORD_VERIFY_KEY_LEN];
    char application_id[DISCORD_VERIFY_ID_MAX]; /* "" unless set */
} discord_config;

/* No key, no id: the endpoint is off. */
void discord_verify_config_init(discord_config *cfg);
/* The application's public key as 64 hex digits; ERR_INVALID otherwise
 * (cfg unchanged). */
err_code discord_verify_config_key(discord_config *cfg, const char *hex,
                                   err_info *e);
/* The application's id, a snowflake (1 to 20 digits); ERR_INVALID
 * otherwise. */
err_code discord_verify_config_app(discord_config *cfg, const char *id,
                                   err_info *e);
/* Both are set: the endpoint is on. */
bool discord_verify_is_on(const discord_config *cfg);

/* An interaction's signature, checked. */
typedef enum discord_verify_result {
    DISCORD_VERIFY_OK,
    DISCORD_VERIFY_MISSING,   /* a signature header is absent */
    DISCORD_VERIFY_MALFORMED, /* not 128 hex digits, or a bad timestamp */
    DISCORD_VERIFY_BAD,       /* the signature does not verify */
    DISCORD_VERIFY_STALE      /* signed, but its timestamp is too far off */
} discord_verify_result;

/*
 * Checks sig_hex (X-Signature-Ed25519) over timestamp (X-Signature-
 * Timestamp, Unix seconds) followed by the len bytes of body, against
 * cfg's key; then that the timestamp is within DISCORD_VERIFY_SKEW of
 * now (Unix seconds).  Either header may be NULL (MISSING).
 */
discord_verify_result discord_verify_request(const discord_config *cfg,
                                             const char *sig_hex,
                                             const char *timestamp,
                                             const char *body, size_t len,
                                             long long now);

/* One sentence on a result, for the 401's detail (static). */
const char *discord_verify_why(discord_verify_result v);

#endif
