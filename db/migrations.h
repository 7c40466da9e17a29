/*
 * migrations.h: the numbered schema migrations (see migrations.c).
 */
#ifndef UMPIRE_MIGRATIONS_H
#define UMPIRE_MIGRATIONS_H

extern const char *const db_migrations[];
extern const int db_n_migrations_known;

#endif
