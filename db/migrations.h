/*
 * migrations.h: the numbered schema migrations (see migrations.c).
 */
#ifndef UMPIRE_MIGRATIONS_H
#define UMPIRE_MIGRATIONS_H

#include "db.h"
#include "err.h"

typedef err_code (*migration_fn)(db_conn *conn, err_info *e);

extern const char *const migrations_sql[];
extern const migration_fn migrations_after[];
extern const int migrations_count;

#endif
