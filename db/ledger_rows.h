/*
 * ledger_rows.h: what ledger.c's migration 5 and ledger_cursor.c share
 * with ledger_rows.c, the ledger's entries read back: the entries' query
 * (LEDGER_ROWS_SQL and its parts), a row of it (its columns in order)
 * into a db_ledger_row, or the entries a combat's packed row holds, a
 * roll's previous hash taken from the entry before, and the strings a
 * list of them owns freed (db_read_rows's callbacks).  Included by no
 * file outside db/.
 */
#ifndef UMPIRE_LEDGER_ROWS_H
#define UMPIRE_LEDGER_ROWS_H

#include "db_sql.h"

/* Both kinds of entry of one campaign from position ?3 up to position ?2
 * (a combat's packed rolls whole, from its first, which ?3 is when it
 * falls among them: the cursor stops at ?2), with
 * their record's dice; the order of the columns is db_ledger_read_row's.  A
 * battle's rng is "v1" for seeded dice (battles store no rng of their own).  A
 * combat whose rolls are packed (in its row with ledger_first: migrations 15
 * and 22) is one row, kind 2, at its first roll's place, the packed rolls its
 * last column: read_entries makes an entry of each.  That part comes first:
 * PostgreSQL types each column of a UNION from its parts in order, and a NULL
 * before the bytes would make it text. */
#define LEDGER_PACKED_COLUMNS                                                  \
    "SELECT 2, c.ledger_first, c.created_at, c.id, 0, NULL, NULL, NULL, "      \
    "NULL, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, c.commitment, "              \
    "c.client_seed, NULL, NULL, c.rolls "
#define LEDGER_PACKED_SELECT LEDGER_PACKED_COLUMNS "FROM combats c "
#define LEDGER_ROLLS_COLUMNS                                                   \
    "SELECT 0, r.ledger_pos, c.created_at, c.id, r.seq, r.side_name, "         \
    "r.unit_id, r.unit_name, r.reason, r.faces, r.natural, r.modified, "       \
    "NULL, NULL, NULL, r.source, r.rng, c.commitment, c.client_seed, "         \
    "r.prev_hash, r.hash, NULL "
#define LEDGER_ROLLS_SELECT                                                    \
    LEDGER_ROLLS_COLUMNS "FROM rolls r JOIN combats c ON c.id = r.combat_id "
#define LEDGER_ACTIONS_COLUMNS                                                 \
    "SELECT 1, a.ledger_pos, a.at, b.id, a.seq, NULL, NULL, NULL, NULL, 0, "   \
    "0, 0, a.kind, a.naturals, a.detail, b.dice_source, "                      \
    "CASE b.dice_source WHEN 'seeded' THEN 'v1' END, b.commitment, "           \
    "b.client_seed, a.prev_hash, a.hash, NULL "
/* Each kind's rows of the campaign from position ?3 up to ?2. */
#define LEDGER_PACKED_RANGE                                                    \
    "c.campaign_id = ?1 AND c.ledger_first <= ?2 AND c.ledger_first >= ?3 "
#define LEDGER_ROLLS_RANGE                                                     \
    "c.campaign_id = ?1 AND r.ledger_pos <= ?2 AND r.ledger_pos >= ?3 "
#define LEDGER_ACTIONS_RANGE                                                   \
    "b.campaign_id = ?1 AND a.ledger_pos <= ?2 AND a.ledger_pos >= ?3 "
#define LEDGER_ROWS_SQL                                                        \
    LEDGER_PACKED_SELECT                                                       \
    "WHERE " LEDGER_PACKED_RANGE "UNION ALL " LEDGER_ROLLS_SELECT              \
    "WHERE " LEDGER_ROLLS_RANGE "UNION ALL " LEDGER_ACTIONS_COLUMNS            \
    "FROM battle_actions a "                                                   \
    "JOIN battles b ON b.id = a.battle_id WHERE " LEDGER_ACTIONS_RANGE         \
    "ORDER BY 2"

void db_ledger_read_row(db_stmt *st, void *elem);
void db_ledger_release_rows(void *rows, size_t n);
/* The entries of LEDGER_ROWS_SQL's row at st appended to *rows (*n of
 * *cap): the row itself, or each roll a combat's packed row holds. */
err_code db_ledger_read_entries(db_stmt *st, db_ledger_row **rows, size_t *n,
                                size_t *cap, err_info *e);
/* r's previous hash from the entry before it, where r is a roll kept as a
 * row without one and before is the roll before it in its combat. */
void db_ledger_prev_from(db_ledger_row *r, const db_ledger_row *before);

#endif
