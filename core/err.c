/*
 * err.c: error details; see err.h.
 */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void err_clear(err_info *e)
{
    if (e == NULL)
        return;
    e->code = ERR_OK;
    e->field[0] = '\0';
    e->message[0] = '\0';
}

err_code err_set(err_info *e, err_code code, const char *field, const char *fmt,
                 ...)
{
    va_list ap;

    if (e == NULL || e->code != ERR_OK)
        return code;
    e->code = code;
    snprintf(e->field, sizeof e->field, "%s", field ? field : "");
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return code;
}

const char *err_code_name(err_code code)
{
    switch (code) {
    case ERR_OK: return "ok";
    case ERR_INVALID: return "invalid_value";
    case ERR_RANGE: return "out_of_range";
    case ERR_MISSING: return "missing_field";
    case ERR_UNKNOWN_FIELD: return "unknown_field";
    case ERR_LIMIT: return "limit_exceeded";
    case ERR_TOO_LARGE: return "body_too_large";
    case ERR_NOT_FOUND: return "not_found";
    case ERR_CONFLICT: return "conflict";
    case ERR_RULE: return "rule_violation";
    case ERR_UNAUTHORIZED: return "unauthorized";
    case ERR_FORBIDDEN: return "forbidden";
    case ERR_DICE: return "dice_unavailable";
    case ERR_NOMEM: return "out_of_memory";
    case ERR_DB: return "database_error";
    case ERR_INTERNAL: return "internal_error";
    case ERR_FULL: return "database_full";
    case ERR_UNAVAILABLE: return "database_unavailable";
    }
    return "internal_error";
}
