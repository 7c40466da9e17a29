/*
 * test_ledger_http.c: placeholder, filled in with issue 7's work.
 */
#include "suites.h"

Suite *suite_ledger_http(void)
{
    return suite_create("ledger_http");
}
