/*
 * http_request.c: reading a request (http.h): its query arguments, its
 * headers and its JSON body, which every handler reads the same strict
 * way (duplicate keys refused, an object required).  The request's life
 * is http.c's.
 */
#include "http.h"
#include "jsonr.h"

#include <stdio.h>

#include <microhttpd.h>

const char *http_query(http_request *r, const char *key)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *http_header(http_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

json_t *http_body_object(http_request *r)
{
    json_error_t jerr;
    json_t *v;
    char detail[256];

    if (r->body_len == 0) {
        http_reply_problem_raw(r, 400, "invalid_json", "Malformed JSON",
                               "the request needs a JSON object body");
        return NULL;
    }
    v = jsonr_loadb(r->body, r->body_len,
                    JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (v == NULL) {
        snprintf(detail, sizeof detail,
                 "the body is not valid JSON: %s (line %d, column %d)",
                 jerr.text, jerr.line, jerr.column);
        http_reply_problem_raw(r, 400, "invalid_json", "Malformed JSON",
                               detail);
        return NULL;
    }
    if (!json_is_object(v)) {
        json_decref(v);
        http_reply_problem_raw(r, 422, "invalid_value", "Invalid value",
                               "the body must be a JSON object");
        return NULL;
    }
    return v;
}
