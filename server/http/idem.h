/*
 * idem.h: Idempotency-Key on the requests that roll dice.
 *
 * A request carrying a key is answered, for 24 hours, by the first
 * response made for that key and the same method, path and body:
 *   - the first request claims the key (in memory) and runs; the writer
 *     job that lands its combat stores the response it made, in the same
 *     transaction (http.c calls idem_store);
 *   - a retry while the first still runs gets 409 (idempotency_in_flight);
 *   - a retry once it has landed gets the stored response again, with
 *     Idempotent-Replayed: true, and rolls nothing;
 *   - the same key with another method, path or body gets 422;
 *   - a request that was refused stores nothing: it changed nothing, and
 *     a retry is judged afresh.
 * Keys are scoped to the caller's token (public routes share one scope).
 */
#ifndef UMPIRE_IDEM_H
#define UMPIRE_IDEM_H

#include <stdbool.h>

#include "http.h"

#define IDEM_HEADER  "Idempotency-Key"
#define IDEM_TTL     (24 * 60 * 60) /* seconds a key is kept */
#define IDEM_KEY_MAX 255            /* bytes of a key */

/* Before the handler of a route that rolls dice.  True: go on (r->idem is
 * set up when the request carries a key).  False: r was answered (a
 * malformed key, a retry in flight, a replay, a reused key). */
bool idem_begin(http_request *r);

/* The same with a key that does not come from the header (the Discord
 * endpoint's interaction id), in scope (a front door's own, so that no
 * header can take its keys). */
bool idem_begin_as(http_request *r, const char *scope, const char *key);

/* In the writer job, once the route's job succeeded and made r's
 * response: stores it under r's key. */
err_code idem_store(db_conn *c, http_request *r, err_info *e);

#endif
