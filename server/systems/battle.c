/*
 * battle.c: what interactive battles share; see battle.h.
 */
#include "battle.h"
#include "jsonb.h"
#include "combat.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

err_code battle_row_new(db_conn *c, db_battle *b, combat_record *rec,
                        const char *system, int turn, err_info *e)
{
    err_code rc;

    db_new_id("bat", b->id);
    if ((rc = combat_take_commitment(c, rec, e)))
        return rc;
    text_copy(b->campaign_id, DB_ID_MAX, rec->campaign_id);
    text_copy(b->system, sizeof b->system, system);
    text_copy(b->status, sizeof b->status, "open");
    b->turn = turn;
    db_now(b->created_at);
    text_copy(b->updated_at, DB_TIME_MAX, b->created_at);
    text_copy(b->dice_source, sizeof b->dice_source,
              dice_kind_name(rec->dice.kind));
    if (rec->dice.kind == DICE_SEEDED) {
        text_copy(b->commitment, sizeof b->commitment, rec->dice.commitment);
        text_copy(b->server_seed, sizeof b->server_seed, rec->dice.seed_hex);
        b->client_seed =
            rec->dice.has_client_seed ? strdup(rec->dice.client_seed) : NULL;
    }
    text_copy(b->actor_token_id, DB_ID_MAX, rec->token_id);
    b->note = rec->has_note ? strdup(rec->note) : NULL;
    return ERR_OK;
}

void battle_record_dice(combat_record *rec, const db_battle *b)
{
    rec->dice.kind =
        strcmp(b->dice_source, "seeded") == 0 ? DICE_SEEDED : DICE_ENTERED;
    text_copy(rec->dice.seed_hex, sizeof rec->dice.seed_hex, b->server_seed);
    text_copy(rec->dice.commitment, sizeof rec->dice.commitment, b->commitment);
    if (b->client_seed) {
        text_copy(rec->dice.client_seed, sizeof rec->dice.client_seed,
                  b->client_seed);
        rec->dice.client_seed_len = strlen(rec->dice.client_seed);
        rec->dice.has_client_seed = true;
    }
    if (b->note) {
        text_copy(rec->note, sizeof rec->note, b->note);
        rec->has_note = true;
    }
    text_copy(rec->campaign_id, DB_ID_MAX, b->campaign_id);
    rec->cb.is_battle_record = true;
}

json_t *battle_dice_json(const db_battle *b)
{
    bool is_open = strcmp(b->status, "open") == 0;
    bool is_seeded = strcmp(b->dice_source, "seeded") == 0;

    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:b}", "source", b->dice_source,
                     "rng", is_seeded ? json_string(RNG_VERSION) : json_null(),
                     "commitment", jsonb_str_or_null(b->commitment),
                     "server_seed",
                     is_open ? json_null() : jsonb_str_or_null(b->server_seed),
                     "client_seed", jsonb_str_or_null(b->client_seed),
                     "verifiable", is_seeded);
}

err_code battle_find_side(db_conn *c, const char *campaign_id, const char *ref,
                          const char *other_side_id, const char *field,
                          db_side *side, err_info *e)
{
    err_code rc = db_side_find(c, campaign_id, ref, side, NULL);

    if (rc == ERR_NOT_FOUND)
        return err_set(e, ERR_INVALID, field, "the campaign has no side \"%s\"",
                       ref);
    if (rc != ERR_OK)
        return err_set(e, rc, NULL, "cannot read sides");
    if (other_side_id[0] && strcmp(side->id, other_side_id) == 0)
        return err_set(e, ERR_RULE, field,
                       "the two armies are of two sides, not both of %s",
                       side->name);
    return ERR_OK;
}

err_code battle_find_unit(db_conn *c, const char *campaign_id, const char *ref,
                          const db_side *side, const char *army,
                          const char *field, db_unit *u, err_info *e)
{
    err_code rc = db_unit_find(c, campaign_id, ref, u, NULL);

    if (rc == ERR_NOT_FOUND)
        return err_set(e, ERR_INVALID, field, "the campaign has no unit \"%s\"",
                       ref);
    if (rc != ERR_OK)
        return err_set(e, rc, NULL, "cannot read units");
    if (u->is_eliminated)
        return err_set(e, ERR_RULE, field,
                       "the unit %s is eliminated and out of play", u->name);
    if (strcmp(u->side_id, side->id) != 0)
        return err_set(e, ERR_RULE, field,
                       "the unit %s is of %s, not of the %s's side %s", u->name,
                       u->side_name, army, side->name);
    return ERR_OK;
}

static const char *const army_keys[2] = {"attacker", "defender"};

err_code battle_engaged(db_conn *c, const char *campaign_id,
                        const char *unit_id, char battle_id[DB_ID_MAX],
                        err_info *e)
{
    db_battle *bs = NULL, other;
    size_t n = 0, i;
    int a, k;
    err_code rc;

    battle_id[0] = '\0';
    if ((rc = db_battles_list(c, campaign_id, &bs, &n, e)))
        return rc;
    for (i = 0; i < n && rc == ERR_OK && !battle_id[0]; i++) {
        json_t *setup;
        if (strcmp(bs[i].status, "open") != 0)
            continue;
        memset(&other, 0, sizeof other);
        if ((rc = db_battle_get(c, campaign_id, bs[i].id, &other, e)))
            break;
        /* Every system's setup has "attacker" and "defender" armies whose
         * "units" carry their "unit_id". */
        setup = json_loads(other.setup, 0, NULL);
        for (a = 0; a < 2; a++) {
            json_t *units =
                json_object_get(json_object_get(setup, army_keys[a]), "units");
            for (k = 0; k < (int)json_array_size(units); k++) {
                const char *id = json_string_value(json_object_get(
                    json_array_get(units, (size_t)k), "unit_id"));
                if (id && strcmp(id, unit_id) == 0)
                    text_copy(battle_id, DB_ID_MAX, other.id);
            }
        }
        json_decref(setup);
        db_battle_cleanup(&other);
    }
    db_battles_free(bs, n);
    return rc;
}

err_code battle_check_system(db_conn *c, const char *campaign_id,
                             const char *id, const char *system, err_info *e)
{
    db_battle b;
    err_code rc;

    memset(&b, 0, sizeof b);
    rc = db_battle_get(c, campaign_id, id, &b, NULL);
    if (rc == ERR_NOT_FOUND)
        rc = err_set(e, rc, NULL, "the campaign has no battle %s", id);
    else if (rc != ERR_OK)
        rc = err_set(e, rc, NULL, "cannot read the battle");
    else if (strcmp(b.system, system) != 0)
        rc = err_set(e, ERR_INVALID, "battle",
                     "the battle %s is a %s battle, not a %s one", id, b.system,
                     system);
    db_battle_cleanup(&b);
    return rc;
}
