/*
 * migrations.h: the numbered schema migrations (see migrations.c).
 */
#ifndef UMPIRE_MIGRATIONS_H
#define UMPIRE_MIGRATIONS_H

#include <sqlite3.h>

#include "err.h"

typedef err_code (*migration_fn)(sqlite3 *conn, err_info *e);

extern const char *const migrations_sql[];
extern const migration_fn migrations_after[];
extern const int migrations_count;

#endif
