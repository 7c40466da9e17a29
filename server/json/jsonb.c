/*
 * jsonb.c: small builders of jansson documents; see jsonb.h.
 */
#include "jsonb.h"

json_t *jsonb_str_or_null(const char *s)
{
    return s && s[0] ? json_string(s) : json_null();
}

char *jsonb_text(json_t *json)
{
    char *s = json ? json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

    json_decref(json);
    return s;
}
