/*
 * commitments.h: the routes of one-off commitments (commitments.c).
 */
#ifndef UMPIRE_COMMITMENTS_H
#define UMPIRE_COMMITMENTS_H

#include "http.h"

/* POST /v1/commitments: a seed committed ahead. */
void commitments_create(http_request *r);
/* GET /v1/commitments/{c}: its status. */
void commitments_get(http_request *r);

#endif
