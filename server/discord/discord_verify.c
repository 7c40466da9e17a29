/*
 * discord_verify.c: the application's settings and the signature check;
 * see discord_verify.h.  The signature is checked before the time, so a
 * request that is merely late is told apart from a forged one; both are
 * refused.
 */
#include "discord_verify.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

void discord_verify_config_init(discord_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
}

/* n bytes from exactly 2n hex digits; -1 otherwise. */
static int unhex(const char *hex, unsigned char *out, size_t n)
{
    size_t got = 0;
    const char *end = NULL;

    if (hex == NULL || strlen(hex) != 2 * n)
        return -1;
    if (sodium_hex2bin(out, n, hex, 2 * n, NULL, &got, &end) != 0 ||
        got != n || *end != '\0')
        return -1;
    return 0;
}

err_code discord_verify_config_key(discord_config *cfg, const char *hex,
                                   err_info *e)
{
    unsigned char key[DISCORD_VERIFY_KEY_LEN];

    if (unhex(hex, key, sizeof key) != 0)
        return err_set(e, ERR_INVALID, "discord_public_key",
                       "the Discord public key is 64 hex digits (the "
                       "application's General Information page)");
    memcpy(cfg->public_key, key, sizeof key);
    cfg->has_key = true;
    return ERR_OK;
}

err_code discord_verify_config_app(discord_config *cfg, const char *id,
                                   err_info *e)
{
    size_t n = id ? strlen(id) : 0, i;

    for (i = 0; i < n; i++)
        if (id[i] < '0' || id[i] > '9')
            break;
    if (n == 0 || n >= DISCORD_VERIFY_ID_MAX - 3 || i < n)
        return err_set(e, ERR_INVALID, "discord_application_id",
                       "the Discord application id is 1 to 20 digits");
    memcpy(cfg->application_id, id, n + 1);
    return ERR_OK;
}

bool discord_verify_is_on(const discord_config *cfg)
{
    return cfg != NULL && cfg->has_key && cfg->application_id[0] != '\0';
}

/* Unix seconds: 1 to 12 digits. */
static int parse_time(const char *s, long long *out)
{
    size_t n = strlen(s), i;
    long long t = 0;

    if (n == 0 || n > 12)
        return -1;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        t = t * 10 + (s[i] - '0');
    }
    *out = t;
    return 0;
}

discord_verify_result discord_verify_request(const discord_config *cfg,
                                             const char *sig_hex,
                                             const char *timestamp,
                                             const char *body, size_t len,
                                             long long now)
{
    unsigned char sig[DISCORD_VERIFY_SIG_LEN], *msg;
    size_t ts_len;
    long long t;
    int rc;

    if (sig_hex == NULL || timestamp == NULL)
        return DISCORD_VERIFY_MISSING;
    if (unhex(sig_hex, sig, sizeof sig) != 0 || parse_time(timestamp, &t) != 0)
        return DISCORD_VERIFY_MALFORMED;
    /* What Discord signs: the timestamp's bytes, then the body's. */
    ts_len = strlen(timestamp);
    msg = malloc(ts_len + len + 1);
    if (msg == NULL)
        return DISCORD_VERIFY_BAD;
    memcpy(msg, timestamp, ts_len);
    if (len)
        memcpy(msg + ts_len, body, len);
    rc = crypto_sign_verify_detached(sig, msg, ts_len + len, cfg->public_key);
    free(msg);
    if (rc != 0)
        return DISCORD_VERIFY_BAD;
    if (t < now - DISCORD_VERIFY_SKEW || t > now + DISCORD_VERIFY_SKEW)
        return DISCORD_VERIFY_STALE;
    return DISCORD_VERIFY_OK;
}

const char *discord_verify_why(discord_verify_result v)
{
    switch (v) {
    case DISCORD_VERIFY_OK:
        return "the signature holds";
    case DISCORD_VERIFY_MISSING:
        return "an interaction needs X-Signature-Ed25519 and "
               "X-Signature-Timestamp";
    case DISCORD_VERIFY_MALFORMED:
        return "X-Signature-Ed25519 is 128 hex digits and "
               "X-Signature-Timestamp Unix seconds";
    case DISCORD_VERIFY_BAD:
        return "the signature does not verify with the application's "
               "public key";
    case DISCORD_VERIFY_STALE:
        break;
    }
    return "the signed timestamp is more than 5 minutes away from now: a "
           "replayed or delayed request";
}
