/*
 * discord.c: what the Discord front door keeps (server/discord/,
 * docs/discord.md), in SQL; declared in db.h.  A channel (guild and
 * channel) is linked to one campaign at most; a campaign's Discord
 * umpires are the users who linked a channel with its umpire token, and
 * its players the users who claimed a side with a player token.  Every
 * interaction that changed something is kept by its id, once: a repeated
 * interaction cannot land twice (ERR_CONFLICT on its second insert).
 */
#include "db_sql.h"

#include <stdio.h>
#include <string.h>

err_code db_discord_channel_get(db_conn *c, const char *guild_id,
                                const char *channel_id, db_discord_channel *out,
                                err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT campaign_id, linked_by, linked_at FROM "
                         "discord_channels WHERE guild_id = ? AND "
                         "channel_id = ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, guild_id);
    db_bind_text(st, 2, channel_id);
    step = db_step(st);
    if (step == DB_ROW) {
        snprintf(out->guild_id, sizeof out->guild_id, "%s", guild_id);
        snprintf(out->channel_id, sizeof out->channel_id, "%s", channel_id);
        db_column_copy(st, 0, out->campaign_id, sizeof out->campaign_id);
        db_column_copy(st, 1, out->linked_by, sizeof out->linked_by);
        db_column_copy(st, 2, out->linked_at, sizeof out->linked_at);
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the channel is not linked");
    } else {
        rc = db_fail(c, e, "read a linked channel");
    }
    db_done(st);
    return rc;
}

err_code db_discord_channel_link(db_conn *c, const db_discord_channel *ch,
                                 err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO discord_channels (guild_id, "
                         "channel_id, campaign_id, linked_by, linked_at) "
                         "VALUES (?,?,?,?,?) "
                         "ON CONFLICT (guild_id, channel_id) DO UPDATE SET "
                         "campaign_id = excluded.campaign_id, "
                         "linked_by = excluded.linked_by, "
                         "linked_at = excluded.linked_at",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, ch->guild_id);
    db_bind_text(st, 2, ch->channel_id);
    db_bind_text(st, 3, ch->campaign_id);
    db_bind_text(st, 4, ch->linked_by);
    db_bind_text(st, 5, ch->linked_at);
    rc = db_step_done(c, st, e, "link a channel");
    db_done(st);
    return rc;
}

err_code db_discord_channel_unlink(db_conn *c, const char *guild_id,
                                   const char *channel_id, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "DELETE FROM discord_channels WHERE guild_id = ? AND "
                         "channel_id = ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, guild_id);
    db_bind_text(st, 2, channel_id);
    rc = db_step_done(c, st, e, "unlink a channel");
    db_done(st);
    if (rc == ERR_OK && db_changes(c) == 0)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the channel is not linked");
    return rc;
}

err_code db_discord_umpire_add(db_conn *c, const char *campaign_id,
                               const char *user_id, const char *at, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO discord_umpires (campaign_id, "
                         "user_id, linked_at) VALUES (?,?,?) "
                         "ON CONFLICT DO NOTHING",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, user_id);
    db_bind_text(st, 3, at);
    rc = db_step_done(c, st, e, "record a Discord umpire");
    db_done(st);
    return rc;
}

err_code db_discord_player_claim(db_conn *c, const char *campaign_id,
                                 const char *user_id, const char *side_id,
                                 const char *at, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO discord_players (campaign_id, "
                         "user_id, side_id, claimed_at) VALUES (?,?,?,?) "
                         "ON CONFLICT (campaign_id, user_id) DO UPDATE SET "
                         "side_id = excluded.side_id, "
                         "claimed_at = excluded.claimed_at",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, user_id);
    db_bind_text(st, 3, side_id);
    db_bind_text(st, 4, at);
    rc = db_step_done(c, st, e, "record a Discord player");
    db_done(st);
    return rc;
}

err_code db_discord_role_get(db_conn *c, const char *campaign_id,
                             const char *user_id, db_discord_role *role,
                             char side_id[DB_ID_MAX], err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    *role = DB_DISCORD_NONE;
    side_id[0] = '\0';
    /* An umpire first: a user who is both acts as the umpire. */
    if ((rc = db_prepare(c,
                         "SELECT 1, '' FROM discord_umpires WHERE campaign_id "
                         "= ?1 AND user_id = ?2 UNION ALL SELECT 2, side_id "
                         "FROM discord_players WHERE campaign_id = ?1 AND "
                         "user_id = ?2 ORDER BY 1 LIMIT 1",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, user_id);
    step = db_step(st);
    if (step == DB_ROW) {
        *role =
            db_column_int(st, 0) == 1 ? DB_DISCORD_UMPIRE : DB_DISCORD_PLAYER;
        db_column_copy(st, 1, side_id, DB_ID_MAX);
    } else if (step != DB_DONE) {
        rc = db_fail(c, e, "read a Discord user's role");
    }
    db_done(st);
    return rc;
}

err_code db_discord_interaction_insert(db_conn *c,
                                       const db_discord_interaction *in,
                                       err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO discord_interactions (id, at, "
                         "campaign_id, user_id, command) VALUES (?,?,?,?,?)",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, in->id);
    db_bind_text(st, 2, in->at);
    db_bind_text_or_null(st, 3, in->campaign_id);
    db_bind_text(st, 4, in->user_id);
    db_bind_text(st, 5, in->command);
    rc = db_step_done(c, st, e, "record a Discord interaction");
    db_done(st);
    if (rc == ERR_CONFLICT) {
        err_clear(e);
        rc = err_set(e, ERR_CONFLICT, NULL,
                     "this interaction was already processed");
    }
    return rc;
}

err_code db_token_umpire_id(db_conn *c, const char *campaign_id,
                            char out[DB_ID_MAX], err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    out[0] = '\0';
    if ((rc = db_prepare(c,
                         "SELECT id FROM tokens WHERE campaign_id = ? AND "
                         "role = 'umpire' ORDER BY created_at LIMIT 1",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    step = db_step(st);
    if (step == DB_ROW)
        db_column_copy(st, 0, out, DB_ID_MAX);
    else if (step == DB_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no umpire");
    else
        rc = db_fail(c, e, "read the umpire token");
    db_done(st);
    return rc;
}

/* One statement per system (PERF.md: one statement per filter shape). */
#define UNITS_LIKE(col)                                                        \
    "SELECT u.name, s.name FROM units u JOIN sides s ON s.id = u.side_id "     \
    "WHERE u.campaign_id = ?1 AND u.eliminated = 0" col                        \
    " AND instr(lower(u.name), lower(?2)) > 0 "                                \
    "ORDER BY instr(lower(u.name), lower(?2)) != 1, u.name LIMIT ?3"

err_code db_discord_units_like(db_conn *c, const char *campaign_id,
                               const char *system, const char *typed,
                               db_discord_name *out, size_t max, size_t *n,
                               err_info *e)
{
    static const char *const systems[] = {"scrud", "edna", "scs", "matrix",
                                          "civ"};
    static const char *const sql[] = {
        UNITS_LIKE(" AND u.has_scrud = 1"), UNITS_LIKE(" AND u.has_edna = 1"),
        UNITS_LIKE(" AND u.has_scs = 1"),   UNITS_LIKE(" AND u.has_matrix = 1"),
        UNITS_LIKE(" AND u.has_civ = 1"),   UNITS_LIKE("")};
    db_stmt *st = NULL;
    size_t k = 0;
    err_code rc;
    int step;

    *n = 0;
    while (k < 5 && (system == NULL || strcmp(system, systems[k]) != 0))
        k++;
    if ((rc = db_prepare(c, sql[k], &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, typed);
    db_bind_int64(st, 3, (long long)max);
    while ((step = db_step(st)) == DB_ROW && *n < max) {
        db_column_copy(st, 0, out[*n].name, sizeof out[*n].name);
        db_column_copy(st, 1, out[*n].detail, sizeof out[*n].detail);
        (*n)++;
    }
    if (step != DB_DONE && step != DB_ROW)
        rc = db_fail(c, e, "list units by name");
    db_done(st);
    return rc;
}

err_code db_discord_combats_like(db_conn *c, const char *campaign_id,
                                 const char *typed, db_discord_name *out,
                                 size_t max, size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT id, system || ' ' || substr(created_at, 1, "
                         "16) || ' ' || replace(summary, '\n', ' ') FROM "
                         "combats WHERE campaign_id = ?1 AND instr(id, ?2) > "
                         "0 ORDER BY created_at DESC LIMIT ?3",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, typed);
    db_bind_int64(st, 3, (long long)max);
    while ((step = db_step(st)) == DB_ROW && *n < max) {
        db_column_copy(st, 0, out[*n].name, sizeof out[*n].name);
        db_column_copy(st, 1, out[*n].detail, sizeof out[*n].detail);
        (*n)++;
    }
    if (step != DB_DONE && step != DB_ROW)
        rc = db_fail(c, e, "list combats by id");
    db_done(st);
    return rc;
}
