/*
 * cors.h: which other web origins may call the API from a browser
 * (Cross-Origin Resource Sharing; docs/console.md).
 *
 * None by default: the console is served by the service itself and needs
 * none.  The operator lists origins (--cors-origin, cors_origin in the
 * configuration file); a request whose Origin is one of them, compared
 * exactly (scheme, host and port, letter case aside), gets its origin
 * back in Access-Control-Allow-Origin.  "*" allows every origin, and is
 * then what is answered.  Tokens travel in the Authorization header, never
 * in cookies, so the service never answers Access-Control-Allow-Credentials.
 * The HTTP side (headers, preflights) is in http.c and router.c.
 */
#ifndef UMPIRE_CORS_H
#define UMPIRE_CORS_H

#include <stdbool.h>

#include "err.h"

#define CORS_MAX_ORIGINS 16
#define CORS_ORIGIN_MAX  256 /* bytes of one origin, its NUL included */

/* What a preflight answers (router.c): the methods and request headers
 * the API takes, and how long a browser may keep the answer. */
#define CORS_ALLOW_METHODS "GET, POST, PUT, PATCH, DELETE"
#define CORS_ALLOW_HEADERS                                                     \
    "Authorization, Content-Type, Accept, Idempotency-Key"
#define CORS_MAX_AGE "600"
/* The response headers a page of another origin may read. */
#define CORS_EXPOSE_HEADERS "Location, Idempotent-Replayed"

typedef struct cors_config {
    char origins[CORS_MAX_ORIGINS][CORS_ORIGIN_MAX]; /* exact origins */
    int n_origins;
    bool is_any; /* "*" was listed */
} cors_config;

/* No origin allowed. */
void cors_config_init(cors_config *c);

/*
 * Adds the origins of value, separated by commas (spaces around them are
 * ignored), to c.  Each is "*" or scheme://host[:port], with no path,
 * query, user or trailing slash, and no port that is its scheme's default
 * (a browser leaves 80 and 443 out of its Origin, so it would never
 * match); "null" is refused (any sandboxed page sends it).  An empty value
 * empties c (a flag's way to drop the configuration file's origins).
 * Returns ERR_INVALID (field "cors_origin") or ERR_LIMIT for more than
 * CORS_MAX_ORIGINS, and then leaves c as it was.
 */
err_code cors_config_add(cors_config *c, const char *value, err_info *e);

/* Whether any origin is allowed at all. */
bool cors_is_enabled(const cors_config *c);

/*
 * The Access-Control-Allow-Origin to answer a request's Origin header
 * with: "*", the origin itself (borrowed from the argument), or NULL when
 * it is not allowed or there is none.
 */
const char *cors_allow(const cors_config *c, const char *origin);

#endif
