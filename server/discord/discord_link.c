/*
 * discord_link.c: linking channels and claiming sides; see
 * discord_link.h.  A token is found by its hash, as the router finds a
 * bearer token; each change is one job of the database writer, recorded
 * with the interaction that asked for it.
 */
#include "discord_link.h"

#include "discord_http.h"
#include "discord_reply.h"
#include "text.h"
#include "tokens.h"

#include <stdio.h>
#include <string.h>

err_code discord_link_lookup(db *d, discord_interaction *in, err_info *e)
{
    db_conn *c;
    db_discord_channel ch;
    err_code rc = ERR_OK;

    if (in->guild_id[0] == '\0' || in->channel_id[0] == '\0')
        return ERR_OK;
    c = db_read_acquire(d);
    rc = db_discord_channel_get(c, in->guild_id, in->channel_id, &ch, NULL);
    if (rc == ERR_NOT_FOUND) {
        rc = ERR_OK;
    } else if (rc == ERR_OK) {
        in->is_linked = true;
        text_copy(in->campaign_id, DB_ID_MAX, ch.campaign_id);
        rc = db_discord_role_get(c, in->campaign_id, in->user_id, &in->role,
                                 in->side_id, e);
        if (rc == ERR_OK && in->role == DB_DISCORD_UMPIRE)
            rc = db_token_umpire_id(c, in->campaign_id, in->umpire_token_id, e);
    } else {
        rc = err_set(e, rc, NULL, "cannot read the channel's link");
    }
    db_read_release(d, c);
    return rc;
}

/* The token option, found by its hash into in->token; false when r was
 * answered (no such token). */
static bool find_token(http_request *r, discord_interaction *in)
{
    const char *token = discord_interaction_str(in, "token");
    char hex[65];
    db *d = http_db(r->srv);
    db_conn *c;
    err_code rc;

    if (token == NULL || token[0] == '\0') {
        discord_reply_send(r, discord_reply_notice("Give the token."));
        return false;
    }
    tokens_hash_hex(token, hex);
    c = db_read_acquire(d);
    rc = db_token_find(c, hex, &in->token, NULL);
    db_read_release(d, c);
    if (rc != ERR_OK) {
        discord_reply_send(
            r, discord_reply_notice(rc == ERR_NOT_FOUND
                                        ? "That token is not valid."
                                        : "The service cannot read its "
                                          "database now; try again."));
        return false;
    }
    return true;
}

/* ---- /link ---- */

static err_code link_job(db_conn *c, void *arg, err_info *e)
{
    discord_interaction *in = arg;
    db_discord_channel ch;
    db_campaign cmp;
    err_code rc;

    memset(&ch, 0, sizeof ch);
    text_copy(ch.guild_id, sizeof ch.guild_id, in->guild_id);
    text_copy(ch.channel_id, sizeof ch.channel_id, in->channel_id);
    text_copy(ch.campaign_id, sizeof ch.campaign_id, in->token.campaign_id);
    text_copy(ch.linked_by, sizeof ch.linked_by, in->user_id);
    db_now(ch.linked_at);
    /* The record names the campaign linked to. */
    text_copy(in->campaign_id, DB_ID_MAX, ch.campaign_id);
    if ((rc = db_campaign_get(c, ch.campaign_id, &cmp, e)) ||
        (rc = db_discord_channel_link(c, &ch, e)) ||
        (rc = db_discord_umpire_add(c, ch.campaign_id, in->user_id,
                                    ch.linked_at, e)) ||
        (rc = discord_http_record(c, in, "link", e)))
        return rc;
    discord_reply_md(in->text, sizeof in->text, cmp.name);
    return ERR_OK;
}

static void link_finish(http_request *r, err_code rc, const err_info *e)
{
    discord_interaction *in = r->state;

    if (rc != ERR_OK) {
        discord_reply_send(
            r, discord_reply_notice("The channel was not linked: %s",
                                    e && e->code ? e->message : "it failed"));
        return;
    }
    discord_reply_send(
        r, discord_reply_notice(
               "This channel is linked to the campaign **%s** (%s), and you "
               "are one of its umpires here: you resolve its combats and "
               "fight its battles. Players claim their side with /claim and "
               "their player token. Keep the token to yourself: this answer "
               "is only for you.",
               in->text, in->campaign_id));
}

void discord_link_link(http_request *r, discord_interaction *in)
{
    if (in->guild_id[0] == '\0' || in->channel_id[0] == '\0') {
        discord_reply_send(r, discord_reply_notice("Link a channel of a "
                                                   "server, not a direct "
                                                   "message."));
        return;
    }
    if (!find_token(r, in))
        return;
    if (!in->token.is_umpire) {
        discord_reply_send(
            r, discord_reply_notice("That is a player token: a player claims "
                                    "a side with /claim; an umpire links the "
                                    "channel with the umpire token."));
        return;
    }
    discord_http_write(r, in, link_job, link_finish);
}

/* ---- /unlink ---- */

static err_code unlink_job(db_conn *c, void *arg, err_info *e)
{
    discord_interaction *in = arg;
    err_code rc;

    if ((rc = db_discord_channel_unlink(c, in->guild_id, in->channel_id, e)))
        return rc;
    return discord_http_record(c, in, "unlink", e);
}

static void unlink_finish(http_request *r, err_code rc, const err_info *e)
{
    discord_interaction *in = r->state;

    if (rc != ERR_OK) {
        discord_reply_send(
            r, discord_reply_notice("The channel was not unlinked: %s",
                                    e && e->code ? e->message : "it failed"));
        return;
    }
    discord_reply_send(
        r, discord_reply_message(DISCORD_REPLY_MESSAGE,
                                 "This channel is no longer linked to its "
                                 "campaign. An umpire links it again with "
                                 "/link.",
                                 NULL, NULL, false));
    (void)in;
}

void discord_link_unlink(http_request *r, discord_interaction *in)
{
    discord_http_write(r, in, unlink_job, unlink_finish);
}

/* ---- /claim ---- */

static err_code claim_job(db_conn *c, void *arg, err_info *e)
{
    discord_interaction *in = arg;
    char at[DB_TIME_MAX];
    db_side side;
    err_code rc;

    db_now(at);
    if ((rc = db_side_find(c, in->campaign_id, in->token.side_id, &side, e)) ||
        (rc = db_discord_player_claim(c, in->campaign_id, in->user_id, side.id,
                                      at, e)) ||
        (rc = discord_http_record(c, in, "claim", e)))
        return rc;
    discord_reply_md(in->text, sizeof in->text, side.name);
    return ERR_OK;
}

static void claim_finish(http_request *r, err_code rc, const err_info *e)
{
    discord_interaction *in = r->state;

    if (rc != ERR_OK) {
        discord_reply_send(
            r, discord_reply_notice("The side was not claimed: %s",
                                    e && e->code ? e->message : "it failed"));
        return;
    }
    discord_reply_send(
        r, discord_reply_notice(
               "You hold the side **%s** in this channel's campaign. You can "
               "read its units (/unit), its ledger (/ledger), the next "
               "commitment (/commitment) and check any combat (/check). "
               "Keep your token to yourself: this answer is only for you.",
               in->text));
}

void discord_link_claim(http_request *r, discord_interaction *in)
{
    if (!find_token(r, in))
        return;
    if (in->token.is_umpire) {
        discord_reply_send(
            r, discord_reply_notice("That is the umpire token: an umpire "
                                    "links the channel with /link; a player "
                                    "claims a side with a player token."));
        return;
    }
    if (strcmp(in->token.campaign_id, in->campaign_id) != 0) {
        discord_reply_send(
            r, discord_reply_notice("That token is of another campaign than "
                                    "the one this channel is linked to."));
        return;
    }
    discord_http_write(r, in, claim_job, claim_finish);
}
