/*
 * discord_http.h: the Discord interactions endpoint, POST
 * /v1/discord/interactions (docs/discord.md): Discord's "Interactions
 * Endpoint URL", which receives every slash command, autocomplete and
 * button press as a signed HTTP POST; no gateway connection, no bot
 * process.
 *
 * A request is answered in three ways only:
 *   - 503 discord_off when the service has no Discord application (its
 *     public key and id, from the config file or flags);
 *   - 401 when the signature is missing, malformed or wrong, or its
 *     timestamp is more than 5 minutes off (Discord needs the 401);
 *   - otherwise 200 with an interaction response: PONG for a PING, a
 *     message, an updated message or autocomplete choices, and an
 *     ephemeral message saying why for everything refused.
 * Every command is answered within Discord's 3 seconds: reads at once,
 * writes once their transaction commits (milliseconds); the odds on the
 * odds' threads, or busy once they waited there 1.5 s (discord_odds.h),
 * unless working them out takes longer still (their limit is 5 s).
 */
#ifndef UMPIRE_DISCORD_HTTP_H
#define UMPIRE_DISCORD_HTTP_H

#include <stdbool.h>

#include "http.h"

/* The route's handler. */
void discord_http_interactions(http_request *r);

struct discord_interaction;

/*
 * A write for interaction in (r's state): job runs on the database
 * writer with in, and finish answers once it has committed.  The
 * interaction's id is already claimed as r's Idempotency-Key (idem.h,
 * in the scope "discord"; discord_http_interactions does it for every
 * command and press), so the answer is kept with what the job wrote, and
 * a repeated interaction gets it again and never acts twice.
 */
void discord_http_write(http_request *r, struct discord_interaction *in,
                        db_job_fn job, http_finish_fn finish);

/* Gives r the path parameters of another front door's route (a then b;
 * b may be NULL), so that its handler can be called for the interaction.
 * False when out of memory. */
bool discord_http_params(http_request *r, const char *a, const char *b);

/* In a write's job: records in as processed, by command (its id once
 * only: ERR_CONFLICT for a repeat that got this far). */
err_code discord_http_record(db_conn *c, const struct discord_interaction *in,
                             const char *command, err_info *e);

/* The answer of a handler the endpoint calls (a battle's, a ledger's, a
 * replay's, a problem), made into an interaction response: r's
 * response is replaced (r->reshape; http.h). */
void discord_http_reshape(http_request *r);

#endif
