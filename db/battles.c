/*
 * battles.c: SQL for interactive battles (Matrix) and the actions taken on
 * them, declared in db.h.  A battle row is its setup (an opaque document the
 * server writes) and a few fields that change as it is fought; its state is
 * rebuilt from the setup and its actions, replayed in seq order.
 *
 * Invariants: a battle's actions are numbered 1, 2, ... with no gap or
 * repeat: the primary key (battle_id, seq) refuses a second action with a
 * seq already taken, so of two requests racing on one battle only the
 * first lands (the other gets ERR_CONFLICT); the battle's n_actions is
 * written in the same writer job as its action.  Text that may be empty is
 * stored as NULL and read back as "" (arrays) or NULL (pointers), except
 * the client seed, kept as given like a combat's.  Prepared statements only;
 * every statement is released (db_done) at its function's single exit.
 */
#include "db_sql.h"
#include "rng.h"

#include <stdlib.h>
#include <string.h>

err_code db_battle_insert(db_conn *c, const db_battle *b, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    /* A NULL here would fail the NOT NULL constraint as ERR_CONFLICT, which
     * callers read as a lost race. */
    if (b->setup == NULL) {
        rc = err_set(e, ERR_INTERNAL, NULL, "battle %s has no setup", b->id);
        goto out;
    }
    if ((rc = db_prepare(c,
                         "INSERT INTO battles (id, campaign_id, system, "
                         "status, turn, created_at, updated_at, dice_source, "
                         "commitment, server_seed, client_seed, "
                         "actor_token_id, note, setup, n_actions, combat_id, "
                         "linked_from, linked_to) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, b->id);
    db_bind_text(st, 2, b->campaign_id);
    db_bind_text(st, 3, b->system);
    db_bind_text(st, 4, b->status);
    db_bind_int(st, 5, b->turn);
    db_bind_text(st, 6, b->created_at);
    db_bind_text(st, 7, b->updated_at);
    db_bind_text(st, 8, b->dice_source);
    db_bind_text_or_null(st, 9, b->commitment);
    db_bind_text_or_null(st, 10, b->server_seed);
    if (b->client_seed)
        db_bind_text(st, 11, b->client_seed);
    db_bind_text_or_null(st, 12, b->actor_token_id);
    db_bind_text_or_null(st, 13, b->note);
    db_bind_text(st, 14, b->setup);
    db_bind_int(st, 15, b->n_actions);
    db_bind_text_or_null(st, 16, b->combat_id);
    db_bind_text_or_null(st, 17, b->linked_from);
    db_bind_text_or_null(st, 18, b->linked_to);
    rc = db_step_done(c, st, e, "insert battle");
out:
    db_done(st);
    return rc;
}

err_code db_battle_update(db_conn *c, const db_battle *b, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "UPDATE battles SET status = ?3, updated_at = ?4, "
                         "n_actions = ?5, combat_id = ?6, linked_to = ?7 "
                         "WHERE id = ?1 AND campaign_id = ?2",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, b->id);
    db_bind_text(st, 2, b->campaign_id);
    db_bind_text(st, 3, b->status);
    db_bind_text(st, 4, b->updated_at);
    db_bind_int(st, 5, b->n_actions);
    db_bind_text_or_null(st, 6, b->combat_id);
    db_bind_text_or_null(st, 7, b->linked_to);
    if ((rc = db_step_done(c, st, e, "update battle")) == ERR_OK &&
        db_changes(c) != 1)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no battle %s",
                     b->id);
out:
    db_done(st);
    return rc;
}

#define BATTLE_COLUMNS                                                         \
    "id, campaign_id, system, status, turn, created_at, updated_at, "          \
    "dice_source, commitment, server_seed, client_seed, actor_token_id, "      \
    "note, n_actions, combat_id, linked_from, linked_to "

/* A row of BATTLE_COLUMNS, then setup when has_setup. */
static void read_battle(db_stmt *st, db_battle *b, bool has_setup)
{
    memset(b, 0, sizeof *b);
    db_column_copy(st, 0, b->id, sizeof b->id);
    db_column_copy(st, 1, b->campaign_id, sizeof b->campaign_id);
    db_column_copy(st, 2, b->system, sizeof b->system);
    db_column_copy(st, 3, b->status, sizeof b->status);
    b->turn = db_column_int(st, 4);
    db_column_copy(st, 5, b->created_at, sizeof b->created_at);
    db_column_copy(st, 6, b->updated_at, sizeof b->updated_at);
    db_column_copy(st, 7, b->dice_source, sizeof b->dice_source);
    db_column_copy(st, 8, b->commitment, sizeof b->commitment);
    db_column_copy(st, 9, b->server_seed, sizeof b->server_seed);
    b->client_seed = db_column_dup(st, 10);
    db_column_copy(st, 11, b->actor_token_id, sizeof b->actor_token_id);
    b->note = db_column_dup(st, 12);
    b->n_actions = db_column_int(st, 13);
    db_column_copy(st, 14, b->combat_id, sizeof b->combat_id);
    db_column_copy(st, 15, b->linked_from, sizeof b->linked_from);
    db_column_copy(st, 16, b->linked_to, sizeof b->linked_to);
    if (has_setup)
        b->setup = db_column_dup(st, 17);
}

err_code db_battle_get(db_conn *c, const char *campaign_id, const char *id,
                       db_battle *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT " BATTLE_COLUMNS ", setup FROM battles "
                         "WHERE campaign_id = ? AND id = ?",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, id);
    step = db_step(st);
    if (step == DB_ROW) {
        read_battle(st, out, true);
        if (out->setup == NULL) { /* setup is NOT NULL: the copy failed */
            db_battle_cleanup(out);
            rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
        } else if (out->n_actions < 0) {
            db_battle_cleanup(out);
            rc = err_set(e, ERR_DB, NULL, "battle %s holds impossible values",
                         id);
        }
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no battle %s",
                     id);
    } else {
        rc = db_fail(c, e, "read battle");
    }
out:
    db_done(st);
    return rc;
}

void db_battle_cleanup(db_battle *b)
{
    if (b == NULL)
        return;
    free(b->client_seed);
    free(b->note);
    free(b->setup);
    memset(b, 0, sizeof *b);
}

static void read_battle_row(db_stmt *st, void *elem)
{
    read_battle(st, elem, false);
}

static void release_battles(void *v, size_t n)
{
    db_battles_free(v, n);
}

err_code db_battles_list(db_conn *c, const char *campaign_id, db_battle **out,
                         size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    /* rowid breaks ties between battles created in the same millisecond. */
    if ((rc = db_prepare(c,
                         "SELECT " BATTLE_COLUMNS "FROM battles "
                         "WHERE campaign_id = ? ORDER BY created_at, rowid",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    rc = db_read_rows(c, st, sizeof **out, read_battle_row, release_battles,
                      &rows, n, "list battles", e);
    *out = rows;
    return rc;
}

err_code db_battles_page(db_conn *c, const char *campaign_id, const db_page *pg,
                         db_battle **out, size_t *n, err_info *e)
{
    /* [after][newest first]: one statement per shape (PERF.md), each an
     * index range of battles_by_campaign (campaign_id, created_at), whose
     * rows are in rowid order within a created_at: no sort. */
    static const db_page_sql sql = {
        {{"SELECT " BATTLE_COLUMNS "FROM battles WHERE campaign_id = ?1 "
          "ORDER BY created_at, rowid LIMIT ?4",
          "SELECT " BATTLE_COLUMNS "FROM battles WHERE campaign_id = ?1 "
          "ORDER BY created_at DESC, rowid DESC LIMIT ?4"},
         {"SELECT " BATTLE_COLUMNS "FROM battles WHERE campaign_id = ?1 "
          "AND (created_at, rowid) > (?2, ?3) "
          "ORDER BY created_at, rowid LIMIT ?4",
          "SELECT " BATTLE_COLUMNS "FROM battles WHERE campaign_id = ?1 "
          "AND (created_at, rowid) < (?2, ?3) "
          "ORDER BY created_at DESC, rowid DESC LIMIT ?4"}},
        "SELECT created_at, rowid FROM battles "
        "WHERE id = ?1 AND campaign_id = ?2",
        true};
    void *rows;
    err_code rc =
        db_read_page(c, &sql, campaign_id, pg, sizeof **out, read_battle_row,
                     release_battles, &rows, n, "list battles", e);

    *out = rows;
    return rc;
}

void db_battles_free(db_battle *bs, size_t n)
{
    size_t i;

    for (i = 0; bs && i < n; i++)
        db_battle_cleanup(&bs[i]);
    free(bs);
}

/* The action a of battle_id as a ledger entry (docs/ledger.md): the
 * battle's dice are read from its row; naturals into the caller's array.
 * The entry borrows a and the strings copied into b. */
typedef struct battle_dice {
    char campaign_id[DB_ID_MAX];
    char source[16];
    char commitment[LEDGER_HASH_HEX];
    char *client_seed;
    int naturals[LEDGER_MAX_NATURALS];
} battle_dice;

static err_code action_entry(db_conn *c, const char *battle_id,
                             const db_battle_action *a, battle_dice *b,
                             ledger_entry *en, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step, n;

    memset(en, 0, sizeof *en);
    if ((rc = db_prepare(c,
                         "SELECT campaign_id, dice_source, commitment, "
                         "client_seed FROM battles WHERE id = ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, battle_id);
    step = db_step(st);
    if (step == DB_ROW) {
        db_column_copy(st, 0, b->campaign_id, sizeof b->campaign_id);
        db_column_copy(st, 1, b->source, sizeof b->source);
        db_column_copy(st, 2, b->commitment, sizeof b->commitment);
        b->client_seed = db_column_dup(st, 3);
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_CONFLICT, NULL, "no battle %s", battle_id);
    } else {
        rc = db_fail(c, e, "read the battle's dice");
    }
    db_done(st);
    if (rc)
        return rc;
    n = ledger_parse_naturals(a->naturals, b->naturals, LEDGER_MAX_NATURALS);
    if (n < 0)
        return err_set(e, ERR_INTERNAL, NULL,
                       "action %d of battle %s has an unreadable dice list",
                       a->seq, battle_id);
    en->kind = LEDGER_ACTION;
    en->at = a->at;
    en->record_id = battle_id;
    en->seq = a->seq;
    en->action = a->kind;
    en->naturals = b->naturals;
    en->n_naturals = (size_t)n;
    en->detail = a->detail;
    en->source = b->source;
    en->rng = strcmp(b->source, "seeded") == 0 ? RNG_VERSION : "";
    en->commitment = b->commitment;
    en->client_seed = b->client_seed;
    return ERR_OK;
}

err_code db_battle_action_insert(db_conn *c, const char *battle_id,
                                 const db_battle_action *a, err_info *e)
{
    db_stmt *st = NULL;
    battle_dice dice = {0};
    ledger_entry en;
    db_chain ch;
    char prev[LEDGER_HASH_HEX], hash[LEDGER_HASH_HEX];
    err_code rc;

    /* As for a battle's setup: a NULL must not pass for a lost race. */
    if (a->naturals == NULL) {
        rc = err_set(e, ERR_INTERNAL, NULL,
                     "action %d of battle %s has no dice list", a->seq,
                     battle_id);
        goto out;
    }
    if ((rc = action_entry(c, battle_id, a, &dice, &en, e)) ||
        (rc = db_chain_open(c, dice.campaign_id, &ch, e)) ||
        (rc = db_chain_add(&ch, &en, prev, hash, e)))
        goto out;
    if ((rc = db_prepare(c,
                         "INSERT INTO battle_actions (battle_id, seq, at, "
                         "actor_token_id, kind, combat, army, unit, "
                         "naturals, note, detail, ledger_pos, prev_hash, "
                         "hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, battle_id);
    db_bind_int(st, 2, a->seq);
    db_bind_text(st, 3, a->at);
    db_bind_text_or_null(st, 4, a->actor_token_id);
    db_bind_text(st, 5, a->kind);
    db_bind_int(st, 6, a->combat);
    db_bind_int(st, 7, a->army);
    db_bind_int(st, 8, a->unit);
    db_bind_text(st, 9, a->naturals);
    db_bind_text_or_null(st, 10, a->note);
    db_bind_text_or_null(st, 11, a->detail);
    db_bind_int64(st, 12, en.pos);
    db_bind_text(st, 13, prev);
    db_bind_text(st, 14, hash);
    if ((rc = db_step_done(c, st, e, "insert battle action")) == ERR_OK)
        rc = db_chain_save(c, &ch, e);
out:
    db_done(st);
    free(dice.client_seed);
    return rc;
}

static void read_action_row(db_stmt *st, void *elem)
{
    db_battle_action *a = elem;

    a->seq = db_column_int(st, 0);
    db_column_copy(st, 1, a->at, sizeof a->at);
    db_column_copy(st, 2, a->actor_token_id, sizeof a->actor_token_id);
    db_column_copy(st, 3, a->kind, sizeof a->kind);
    a->combat = db_column_int(st, 4);
    a->army = db_column_int(st, 5);
    a->unit = db_column_int(st, 6);
    a->naturals = db_column_dup(st, 7);
    a->note = db_column_dup(st, 8);
    a->detail = db_column_dup(st, 9);
}

static void release_actions(void *v, size_t n)
{
    db_battle_actions_free(v, n);
}

err_code db_battle_actions_list(db_conn *c, const char *battle_id,
                                db_battle_action **out, size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    void *rows;
    err_code rc;
    size_t i;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT seq, at, actor_token_id, kind, combat, army, "
                         "unit, naturals, note, detail FROM battle_actions "
                         "WHERE battle_id = ? ORDER BY seq",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, battle_id);
    rc = db_read_rows(c, st, sizeof **out, read_action_row, release_actions,
                      &rows, n, "list battle actions", e);
    *out = rows;
    for (i = 0; rc == ERR_OK && i < *n; i++)
        if ((*out)[i].naturals == NULL) /* NOT NULL: the copy failed */
            rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (rc != ERR_OK) {
        db_battle_actions_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void db_battle_actions_free(db_battle_action *as, size_t n)
{
    size_t i;

    for (i = 0; as && i < n; i++) {
        free(as[i].naturals);
        free(as[i].note);
        free(as[i].detail);
    }
    free(as);
}
