/*
 * migrations.h: the numbered schema migrations (see migrations.c).
 */
#ifndef UMPIRE_MIGRATIONS_H
#define UMPIRE_MIGRATIONS_H

extern const char *const migrations_sql[];
extern const int migrations_count;

#endif
