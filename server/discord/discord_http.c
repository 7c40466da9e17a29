/*
 * discord_http.c: the interactions endpoint; see discord_http.h.  The
 * signature is checked on the raw body before anything is read; the
 * interaction is then the request's state, and its handler answers it
 * (discord_commands.c for commands and autocomplete, discord_battle.c for
 * buttons and selects).  A handler may call another front door's handler
 * (a battle's action, the ledger's verification): its answer is made
 * into a Discord message when it is sent, by discord_http_reshape.
 */
#include "discord_http.h"

#include "discord_battle.h"
#include "discord_commands.h"
#include "discord_interaction.h"
#include "discord_link.h"
#include "discord_reply.h"
#include "discord_verify.h"
#include "idem.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void discord_http_interactions(http_request *r)
{
    const discord_config *cfg = http_discord(r->srv);
    discord_verify_result v;
    discord_interaction *in;
    err_info e;

    if (!discord_verify_is_on(cfg)) {
        http_reply_problem_raw(r, 503, "discord_off", "Discord is off",
                               "this service has no Discord application: "
                               "set discord_public_key and "
                               "discord_application_id (docs/discord.md)");
        return;
    }
    v = discord_verify_request(cfg, http_header(r, "X-Signature-Ed25519"),
                               http_header(r, "X-Signature-Timestamp"), r->body,
                               r->body_len, (long long)time(NULL));
    if (v != DISCORD_VERIFY_OK) {
        http_reply_problem_raw(r, 401,
                               v == DISCORD_VERIFY_STALE ? "discord_stale"
                                                         : "discord_signature",
                               "Unauthorized", discord_verify_why(v));
        return;
    }
    /* Signed by Discord: from here on every answer is a 200. */
    r->reshape = discord_http_reshape;
    if ((in = calloc(1, sizeof *in)) == NULL) {
        discord_reply_send(r, discord_reply_notice("The service is out of "
                                                   "memory; try again."));
        return;
    }
    r->state = in;
    r->state_free = discord_interaction_free;
    err_clear(&e);
    if (discord_interaction_parse(r->body, r->body_len, in, &e) != ERR_OK) {
        discord_reply_send(r, discord_reply_notice("This interaction cannot "
                                                   "be read: %s",
                                                   e.message));
        return;
    }
    if (strcmp(in->application_id, cfg->application_id) != 0) {
        discord_reply_send(r, discord_reply_notice("This interaction is for "
                                                   "another application."));
        return;
    }
    if (in->type == DISCORD_INTERACTION_PING) {
        discord_reply_send(r, json_pack("{s:i}", "type", DISCORD_REPLY_PONG));
        return;
    }
    /* A repeated command or press gets its first answer again, whatever
     * changed since (a channel unlinked by the first, say): the
     * interaction's id is the key of what it does (idem.h). */
    if (in->type != DISCORD_INTERACTION_AUTOCOMPLETE &&
        !idem_begin_as(r, "discord", in->id))
        return;
    if (discord_link_lookup(http_db(r->srv), in, &e) != ERR_OK) {
        discord_reply_send(r, discord_reply_notice("The service cannot read "
                                                   "its database now: %s",
                                                   e.message));
        return;
    }
    /* Whatever it writes (a combat, a battle's action, a link), it writes
     * in the channel's campaign: its writes go one at a time with the
     * campaign's others (db_submit_in). */
    snprintf(r->job_campaign, sizeof r->job_campaign, "%s", in->campaign_id);
    if (in->type == DISCORD_INTERACTION_COMMAND)
        discord_commands_run(r, in);
    else if (in->type == DISCORD_INTERACTION_AUTOCOMPLETE)
        discord_commands_complete(r, in);
    else if (in->type == DISCORD_INTERACTION_COMPONENT)
        discord_battle_press(r, in);
    else
        discord_reply_send(r, discord_reply_notice("This service asks for no "
                                                   "forms."));
}

void discord_http_write(http_request *r, discord_interaction *in, db_job_fn job,
                        http_finish_fn finish)
{
    (void)
        in; /* r's state: the job's argument; its campaign, the linked
             * one, set when the interaction came (discord_http_interactions) */
    http_defer_write(r, job, finish);
}

bool discord_http_params(http_request *r, const char *a, const char *b)
{
    size_t la = strlen(a), lb = b ? strlen(b) : 0;
    char *buf = malloc(la + lb + 2);

    if (buf == NULL)
        return false;
    memcpy(buf, a, la + 1);
    memcpy(buf + la + 1, b ? b : "", lb + 1);
    free(r->param_buf);
    r->param_buf = buf;
    r->params[0] = buf;
    r->params[1] = buf + la + 1;
    r->n_params = b ? 2 : 1;
    return true;
}

err_code discord_http_record(db_conn *c, const discord_interaction *in,
                             const char *command, err_info *e)
{
    db_discord_interaction row;
    char at[DB_TIME_MAX];

    db_now(at);
    row.id = in->id;
    row.at = at;
    row.campaign_id = in->campaign_id;
    row.user_id = in->user_id;
    row.command = command;
    return db_discord_interaction_insert(c, &row, e);
}

/* A problem document's detail as an ephemeral notice. */
static json_t *problem_notice(const json_t *problem)
{
    const char *detail = json_string_value(json_object_get(problem, "detail"));

    return discord_reply_notice("Refused: %s",
                                detail ? detail : "the request failed");
}

/* The answer made from a handler's JSON, by the interaction it answers. */
static json_t *reshaped(const http_request *r, const json_t *answer)
{
    discord_interaction in;
    json_t *reply = NULL;

    if (discord_interaction_parse(r->body, r->body_len, &in, NULL) == ERR_OK) {
        /* The campaign of the handler called: its route's first
         * parameter (a replayed answer names its own). */
        if (r->n_params > 0 && r->params[0] != NULL)
            text_copy(in.campaign_id, DB_ID_MAX, r->params[0]);
        if (in.type == DISCORD_INTERACTION_COMPONENT)
            reply = discord_battle_reshape(&in, answer, r->status);
        else
            reply = discord_commands_reshape(&in, answer, r->status);
    }
    discord_interaction_cleanup(&in);
    return reply;
}

void discord_http_reshape(http_request *r)
{
    const char *body =
        r->resp_static ? (const char *)r->resp_static : r->resp_body;
    json_t *answer = body ? json_loadb(body, r->resp_len, 0, NULL) : NULL;
    json_t *reply;
    char *text;

    /* Already an interaction response (the endpoint's own, first or
     * replayed): sent as it is. */
    if (json_is_integer(json_object_get(answer, "type"))) {
        json_decref(answer);
        return;
    }
    if (r->content_type &&
        strcmp(r->content_type, "application/problem+json") == 0)
        reply = problem_notice(answer);
    else
        reply = answer ? reshaped(r, answer) : NULL;
    json_decref(answer);
    if (reply == NULL)
        reply = discord_reply_notice("The service made an answer Discord "
                                     "cannot show.");
    text = json_dumps(reply, JSON_COMPACT);
    json_decref(reply);
    if (text == NULL)
        return;
    free(r->resp_body);
    r->resp_body = text;
    r->resp_static = NULL;
    r->resp_len = strlen(text);
    r->status = 200;
    r->content_type = "application/json";
    r->render = HTTP_RENDER_NONE;
    r->location[0] = '\0';
}
