/*
 * tokens.h: the routes of tokens (tokens.c): who a token is, a campaign's
 * tokens reissued and their issues listed; and the making of secrets
 * stored as hashes (tokens, share links).
 */
#ifndef UMPIRE_TOKENS_H
#define UMPIRE_TOKENS_H

#include "http.h"

#define TOKENS_MAX 64 /* a token's text: "<prefix>_<48 hex>" and its NUL */

/* GET /v1/token: its campaign, role and side. */
void tokens_get(http_request *r);

/* POST /v1/campaigns/{campaign_id}/tokens (umpire): a new token for the
 * umpire or a side, the old one revoked in the same commit; 201 with the
 * secret, shown only there. */
void tokens_reissue(http_request *r);

/* GET /v1/campaigns/{campaign_id}/tokens (umpire): every issue of the
 * campaign's tokens, a page at a time, never a secret. */
void tokens_list(http_request *r);

/* The lower-case hex SHA-256 of secret's text, as tokens and share links
 * are stored (and the router looks a bearer up). */
void tokens_hash_hex(const char *secret, char hash_hex[65]);

/* A new token "<prefix>_<48 hex digits>" (24 random bytes from the
 * operating system) into token, and its hash into hash_hex. */
void tokens_new(const char *prefix, char token[TOKENS_MAX], char hash_hex[65]);

#endif
