/*
 * jsonb.h: small builders of jansson documents the handlers share.
 */
#ifndef UMPIRE_JSONB_H
#define UMPIRE_JSONB_H

#include <jansson.h>

/* A JSON string, or null for NULL or "" (new reference). */
json_t *jsonb_str_or_null(const char *s);

/* json as compact text with sorted keys (new, free()), or NULL when json
 * is NULL or out of memory; json is stolen. */
char *jsonb_text(json_t *json);

#endif
