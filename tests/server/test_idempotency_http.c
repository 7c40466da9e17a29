/*
 * test_idempotency_http.c: placeholder, filled in with issue 7's work.
 */
#include "suites.h"

Suite *suite_idempotency_http(void)
{
    return suite_create("idempotency_http");
}
