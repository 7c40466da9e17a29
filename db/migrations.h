/*
 * migrations.h: the numbered schema migrations (see migrations.c).
 */
#ifndef UMPIRE_MIGRATIONS_H
#define UMPIRE_MIGRATIONS_H

#include "db.h"
#include "err.h"

typedef err_code (*migration_fn)(db_conn *conn, err_info *e);

/* Migration 16, the same SQL on both stores (migrations.c,
 * migrations_pg.c): a campaign's next commitment moved onto its row. */
#define MIGRATION_16_SQL                                                       \
    "ALTER TABLE campaigns ADD COLUMN next_commitment TEXT;"                   \
    "ALTER TABLE campaigns ADD COLUMN next_seed TEXT;"                         \
    "ALTER TABLE campaigns ADD COLUMN next_created_at TEXT;"                   \
    "UPDATE campaigns SET (next_commitment, next_seed, next_created_at) ="     \
    "  (SELECT commitment, seed, created_at FROM commitments k"                \
    "   WHERE k.campaign_id = campaigns.id AND k.used_at IS NULL);"            \
    "DELETE FROM commitments WHERE campaign_id IS NOT NULL;"                   \
    "DROP INDEX commitments_next;"

extern const char *const migrations_sql[];
extern const migration_fn migrations_after[];
extern const int migrations_count;

#endif
