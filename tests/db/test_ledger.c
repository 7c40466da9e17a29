/*
 * test_ledger.c: placeholder, filled in with issue 7's work.
 */
#include "suites.h"

Suite *suite_ledger(void)
{
    return suite_create("ledger");
}
