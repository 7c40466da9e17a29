/*
 * problem.c: err_code -> HTTP status and problem+json; see problem.h.
 */
#include "problem.h"

#include <stdio.h>
#include <string.h>

int problem_status(err_code code)
{
    switch (code) {
    case ERR_OK: return 200;
    case ERR_INVALID:
    case ERR_RANGE:
    case ERR_MISSING:
    case ERR_UNKNOWN_FIELD:
    case ERR_LIMIT:
    case ERR_RULE:
    case ERR_DICE: return 422;
    case ERR_TOO_LARGE: return 413;
    case ERR_NOT_FOUND: return 404;
    case ERR_CONFLICT: return 409;
    case ERR_UNAUTHORIZED: return 401;
    case ERR_FORBIDDEN: return 403;
    case ERR_NOMEM:
    case ERR_DB:
    case ERR_INTERNAL: return 500;
    }
    return 500;
}

static const char *title_for(err_code code)
{
    switch (code) {
    case ERR_INVALID: return "Invalid value";
    case ERR_RANGE: return "Value out of range";
    case ERR_MISSING: return "Missing field";
    case ERR_UNKNOWN_FIELD: return "Unknown field";
    case ERR_LIMIT: return "Limit exceeded";
    case ERR_RULE: return "Not allowed by the rules";
    case ERR_DICE: return "Dice do not fit the combat";
    case ERR_TOO_LARGE: return "Request body too large";
    case ERR_NOT_FOUND: return "Not found";
    case ERR_CONFLICT: return "Conflict";
    case ERR_UNAUTHORIZED: return "Unauthorized";
    case ERR_FORBIDDEN: return "Forbidden";
    default: return "Internal error";
    }
}

json_t *problem_make(int status, const char *code, const char *title,
                     const char *detail, const char *field)
{
    char type[96];
    size_t i;
    json_t *p;

    snprintf(type, sizeof type, "urn:umpire:problem:%s", code);
    for (i = 0; type[i]; i++)
        if (type[i] == '_')
            type[i] = '-';
    p = json_pack("{s:s, s:s, s:i, s:s, s:s}", "type", type, "title", title,
                  "status", status, "detail", detail, "code", code);
    if (p && field && field[0])
        json_object_set_new(p, "field", json_string(field));
    return p;
}

json_t *problem_json(const err_info *e)
{
    err_code code = e->code == ERR_OK ? ERR_INTERNAL : e->code;
    const char *detail = e->message[0] ? e->message : title_for(code);

    /* Internal failures keep their details for the log, not the client. */
    if (problem_status(code) >= 500)
        detail = "the server failed to complete the request";
    return problem_make(problem_status(code), err_code_name(code),
                        title_for(code), detail, e->field);
}
