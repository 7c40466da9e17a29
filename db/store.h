/*
 * store.h: rows to and from structs for campaigns, sides, tokens, units,
 * combats, the roll log and unit history.
 *
 * Every function takes the connection to use: a pooled read connection for
 * reads, or the writer's connection inside a db_job_fn for writes (so a
 * combat's unit changes, combat row and roll log share one transaction).
 * Lookups that find nothing return ERR_NOT_FOUND.  Text documents (combat
 * reports, history states) are opaque strings here.
 */
#ifndef UMPIRE_STORE_H
#define UMPIRE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "db.h"
#include "err.h"
#include "scrud.h"

#define DB_NAME_MAX   65 /* names are 1..64 bytes */
#define DB_REASON_MAX 24

typedef struct db_campaign {
    char id[DB_ID_MAX];
    char name[DB_NAME_MAX];
    char created_at[DB_TIME_MAX];
    scrud_options scrud; /* the campaign's default SCRUD options */
} db_campaign;

typedef struct db_side {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char name[DB_NAME_MAX];
    char created_at[DB_TIME_MAX];
} db_side;

typedef struct db_token {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char side_id[DB_ID_MAX]; /* "" for the umpire token */
    bool is_umpire;
} db_token;

typedef struct db_unit {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char side_id[DB_ID_MAX];
    char side_name[DB_NAME_MAX]; /* read only: joined from sides */
    char name[DB_NAME_MAX];
    char created_at[DB_TIME_MAX];
    bool is_eliminated;
    char eliminated_reason[DB_REASON_MAX]; /* "" when not eliminated */
    char eliminated_by[DB_ID_MAX];         /* combat id, or "" */
    scrud_unit scrud; /* quality, penalties, faces; other fields unused */
} db_unit;

typedef struct db_event {
    long long seq;
    char unit_id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX];
    char at[DB_TIME_MAX];
    char kind[16]; /* created, combat, correction, resupply */
    char combat_id[DB_ID_MAX];
    char actor_token_id[DB_ID_MAX];
    char *note;   /* owned by lists; borrowed on insert */
    char *before; /* document or NULL */
    char *after;  /* document */
    char *result; /* document or NULL */
} db_event;

typedef struct db_combat {
    char id[DB_ID_MAX];
    char campaign_id[DB_ID_MAX]; /* "" for one-off combats */
    char system[16];
    char created_at[DB_TIME_MAX];
    char dice_source[16];
    char rng[8];
    char commitment[65];
    char server_seed[65];
    char actor_token_id[DB_ID_MAX];
    char *note;        /* may be NULL */
    char *client_seed; /* may be NULL */
    char *summary;
    char *report; /* the report document: the combat's record */
} db_combat;

typedef struct db_roll {
    int seq; /* 1-based, in draw order */
    char side_name[DB_NAME_MAX];
    char unit_id[DB_ID_MAX];
    char unit_name[DB_NAME_MAX];
    char reason[32];
    int faces, natural, modified;
    char source[16];
    char rng[8];
} db_roll;

/* Campaigns, sides, tokens. */
err_code db_campaign_insert(sqlite3 *c, const db_campaign *cmp, err_info *e);
err_code db_campaign_get(sqlite3 *c, const char *id, db_campaign *out,
                         err_info *e);
err_code db_side_insert(sqlite3 *c, const db_side *s, err_info *e);
/* *out is new (free()); sides in creation order. */
err_code db_sides_list(sqlite3 *c, const char *campaign_id, db_side **out,
                       size_t *n, err_info *e);
/* A side of the campaign by id or, failing that, by name. */
err_code db_side_find(sqlite3 *c, const char *campaign_id,
                      const char *id_or_name, db_side *out, err_info *e);
err_code db_token_insert(sqlite3 *c, const db_token *t, const char *hash_hex,
                         const char *created_at, err_info *e);
err_code db_token_find(sqlite3 *c, const char *hash_hex, db_token *out,
                       err_info *e);

/* Units. */
err_code db_unit_insert(sqlite3 *c, const db_unit *u, err_info *e);
/* Saves name, side, elimination and SCRUD state of an existing unit. */
err_code db_unit_update(sqlite3 *c, const db_unit *u, err_info *e);
/* A unit of the campaign by id or, failing that, by name. */
err_code db_unit_find(sqlite3 *c, const char *campaign_id,
                      const char *id_or_name, db_unit *out, err_info *e);
/* *out is new (free()); side_id NULL for all; eliminated -1 any, 0, 1. */
err_code db_units_list(sqlite3 *c, const char *campaign_id, const char *side_id,
                       int eliminated, db_unit **out, size_t *n, err_info *e);
err_code db_units_count(sqlite3 *c, const char *campaign_id, int *n,
                        err_info *e);

/* History. */
err_code db_event_insert(sqlite3 *c, const db_event *ev, err_info *e);
/* *out is new: release with db_events_free. Oldest first. */
err_code db_events_list(sqlite3 *c, const char *unit_id, db_event **out,
                        size_t *n, err_info *e);
void db_events_free(db_event *evs, size_t n);

/* Combats and their roll log. */
err_code db_combat_insert(sqlite3 *c, const db_combat *cb, const db_roll *rolls,
                          size_t n_rolls, err_info *e);
/* out's strings are new: release with db_combat_cleanup. */
err_code db_combat_get(sqlite3 *c, const char *id, db_combat *out, err_info *e);
void db_combat_cleanup(db_combat *cb);
/* Summaries (no report) of a campaign's combats, oldest first. */
err_code db_combats_list(sqlite3 *c, const char *campaign_id, db_combat **out,
                         size_t *n, err_info *e);
void db_combats_free(db_combat *cbs, size_t n);
/* *out is new (free()); in seq order. */
err_code db_rolls_list(sqlite3 *c, const char *combat_id, db_roll **out,
                       size_t *n, err_info *e);

#endif
