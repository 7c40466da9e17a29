/*
 * problem.c: err_code -> HTTP status and problem+json; see problem.h.
 *
 * Invariant: every text put into a document has been through
 * problem_utf8, so jansson never refuses one for its bytes.
 */
#include "problem.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
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
    case ERR_FULL: return 507;
    case ERR_UNAVAILABLE: return 503;
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
    case ERR_FULL: return "Insufficient storage";
    case ERR_UNAVAILABLE: return "Database unavailable";
    default: return "Internal error";
    }
}

/* The length of the character at s (n bytes left): 1 for ASCII, that of
 * a well-formed UTF-8 sequence (utf8.h), or 0 when s does not start one. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    return s[0] < 0x80 ? 1 : utf8_length(s, n);
}

char *problem_utf8(const char *in, size_t len)
{
    const unsigned char *s = (const unsigned char *)in;
    char *out = malloc(3 * len + 1); /* each byte at worst one U+FFFD */
    size_t i = 0, o = 0;

    if (out == NULL)
        return NULL;
    while (i < len) {
        size_t k = utf8_seq(s + i, len - i);
        if (k == 0) {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        } else {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        }
    }
    out[o] = '\0';
    return out;
}

bool problem_is_utf8(const char *in, size_t len)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t i = 0, k;

    while (i < len) {
        if ((k = utf8_seq(s + i, len - i)) == 0)
            return false;
        i += k;
    }
    return true;
}

/* Sets key to a valid-UTF-8 copy of text; false when out of memory. */
static bool set_text(json_t *p, const char *key, const char *text)
{
    char *valid = problem_utf8(text, strlen(text));
    bool is_set = valid && json_object_set_new(p, key, json_string(valid)) == 0;

    free(valid);
    return is_set;
}

json_t *problem_make(int status, const char *code, const char *title,
                     const char *detail, const char *field)
{
    char type[96];
    size_t i;
    json_t *p = json_object();
    bool is_ok;

    if (p == NULL)
        return NULL;
    snprintf(type, sizeof type, "urn:umpire:problem:%s", code);
    for (i = 0; type[i]; i++)
        if (type[i] == '_')
            type[i] = '-';
    is_ok = set_text(p, "type", type) && set_text(p, "title", title) &&
            json_object_set_new(p, "status", json_integer(status)) == 0 &&
            set_text(p, "detail", detail) && set_text(p, "code", code);
    if (is_ok && field && field[0])
        is_ok = set_text(p, "field", field);
    if (!is_ok) {
        json_decref(p);
        return NULL;
    }
    return p;
}

json_t *problem_json(const err_info *e)
{
    err_code code = e->code == ERR_OK ? ERR_INTERNAL : e->code;
    const char *detail = e->message[0] ? e->message : title_for(code);

    /* Internal failures keep their details for the log, not the client;
     * a full disk's detail says what the client needs (nothing was
     * written, retry once space is freed). */
    if (problem_status(code) >= 500 && code != ERR_FULL &&
        code != ERR_UNAVAILABLE)
        detail = "the server failed to complete the request";
    return problem_make(problem_status(code), err_code_name(code),
                        title_for(code), detail, e->field);
}

const char *problem_fallback(size_t *len)
{
    static const char body[] =
        "{\"type\":\"urn:umpire:problem:internal-error\","
        "\"title\":\"Internal error\",\"status\":500,"
        "\"detail\":\"the server failed to build the response\","
        "\"code\":\"internal_error\"}";

    *len = sizeof body - 1;
    return body;
}
