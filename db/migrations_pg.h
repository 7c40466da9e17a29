/*
 * migrations_pg.h: the schema of the PostgreSQL store, as numbered
 * migrations that mirror the SQLite ones (migrations.h); see
 * migrations_pg.c.
 */
#ifndef UMPIRE_MIGRATIONS_PG_H
#define UMPIRE_MIGRATIONS_PG_H

/* Entry N - 1 is migration N: the SQL (one or more statements) that does
 * in PostgreSQL what SQLite's migration N does, data included. */
extern const char *const migrations_pg_sql[];
extern const int migrations_pg_count; /* must equal migrations_count */

#endif
