/*
 * problem.h: domain errors to HTTP: the one place that knows which status
 * each err_code means, and the RFC 9457 problem document for it.
 *
 * Problem documents never fail on bad text: a detail or field that echoes
 * what a client sent (a path parameter percent-decoded into bytes that are
 * not UTF-8, say) has each invalid byte replaced by U+FFFD, so the document
 * is always valid JSON.  Only running out of memory makes these NULL, and
 * problem_fallback is the body to send then.
 */
#ifndef UMPIRE_PROBLEM_H
#define UMPIRE_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "err.h"

int problem_status(err_code code);

/* A new problem document for e (code, field, detail), or NULL when out of
 * memory. */
json_t *problem_json(const err_info *e);

/* A new problem document from parts (field may be NULL; any of the texts
 * may hold invalid UTF-8), or NULL when out of memory. */
json_t *problem_make(int status, const char *code, const char *title,
                     const char *detail, const char *field);

/* A fixed 500 internal_error problem document, serialized (static, never
 * freed); its length in *len.  The answer when no other can be made. */
const char *problem_fallback(size_t *len);

/*
 * A copy of in (len bytes) that is valid UTF-8: each byte that does not
 * start a well-formed sequence (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF) becomes U+FFFD.  New (free()), NUL-terminated;
 * NULL when out of memory.
 */
char *problem_utf8(const char *in, size_t len);

/* Whether in (len bytes) is valid UTF-8 as problem_utf8 judges it. */
bool problem_is_utf8(const char *in, size_t len);

#endif
