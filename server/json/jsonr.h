/*
 * jsonr.h: reading JSON text into jansson values, quickly.
 *
 * jansson's reader takes every byte through a callback, a UTF-8 check and
 * a saved-token buffer: about 220 instructions a byte, most of a one-off
 * combat's request.  jsonr reads the documents requests are made of
 * (objects, arrays, strings with the usual escapes, integers, true, false,
 * null) straight from the buffer into the same jansson values, and hands
 * anything else to json_loadb unchanged: a document with an error, a real
 * number, a \u escape, an integer of more than 18 digits, or nesting
 * deeper than JSONR_MAX_DEPTH.  Either way the result is what json_loadb
 * gives: the same values, keys in the same order, the same errors.
 */
#ifndef UMPIRE_JSONR_H
#define UMPIRE_JSONR_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* Deeper documents are read by jansson (whose limit is 2048). */
#define JSONR_MAX_DEPTH 64

/*
 * As json_loadb(buf, len, flags, err): a new reference, or NULL with err
 * (may be NULL) filled in by jansson.  flags other than
 * JSON_REJECT_DUPLICATES and JSON_DECODE_ANY go to json_loadb directly.
 */
json_t *jsonr_loadb(const char *buf, size_t len, size_t flags,
                    json_error_t *err);

/*
 * Whether buf (len bytes) is an object or an array that jsonr_loadb(buf,
 * len, 0, ...) reads whole itself (no real number, no \u escape, nesting
 * under JSONR_MAX_DEPTH, no key given twice in an object, none with an
 * escape, no object of more than 32 members), without reading it: such a
 * text may be written out as it is where jansson would write the value
 * it reads (the same value; its text may differ only in whitespace and in
 * how an escape is spelled).  false does not mean the text is not JSON.
 */
bool jsonr_is_plain(const char *buf, size_t len);

#endif
