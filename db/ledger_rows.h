/*
 * ledger_rows.h: what ledger.c's migration 5 shares with ledger_rows.c,
 * the ledger's entries read back: a row of an entries' query (the columns
 * of LEDGER_ROWS_SQL, in order) into a db_ledger_row, and the strings a
 * list of them owns freed (db_read_rows's callbacks).  Included by no
 * file outside db/.
 */
#ifndef UMPIRE_LEDGER_ROWS_H
#define UMPIRE_LEDGER_ROWS_H

#include "db_sql.h"

void db_ledger_read_row(db_stmt *st, void *elem);
void db_ledger_release_rows(void *rows, size_t n);

#endif
