/*
 * tokens.h: the routes of who a token is (tokens.c).
 */
#ifndef UMPIRE_TOKENS_H
#define UMPIRE_TOKENS_H

#include "http.h"

/* GET /v1/token: its campaign, role and side. */
void tokens_get(http_request *r);

#endif
