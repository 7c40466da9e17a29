/*
 * jsonw.h: a small streaming JSON writer into a growing buffer.
 *
 * Reports are written once as text (stored, sent, and spliced with their
 * roll log) instead of being built as jansson trees and serialized again:
 * on the hot path of a combat that is most of the CPU.  Commas are placed
 * automatically; keys and values alternate inside objects.  Strings must
 * be UTF-8 (request strings are, jansson checks them).  Allocation
 * failures are sticky: jw_take returns NULL.
 */
#ifndef UMPIRE_JSONW_H
#define UMPIRE_JSONW_H

#include <stdbool.h>
#include <stddef.h>

#define JW_MAX_DEPTH 32

typedef struct jw {
    char *s;
    size_t len, cap;
    bool is_failed;
    int depth;
    bool has_item[JW_MAX_DEPTH]; /* the container at each depth has items */
    bool is_after_key;
} jw;

void jw_init(jw *w);
/* The text, new (free()), and its length; NULL if anything failed. */
char *jw_take(jw *w, size_t *len);
void jw_free(jw *w);

void jw_object(jw *w);
void jw_object_end(jw *w);
void jw_array(jw *w);
void jw_array_end(jw *w);
void jw_key(jw *w, const char *key);
void jw_string(jw *w, const char *v);
void jw_string_or_null(jw *w, const char *v); /* NULL or "" -> null */
void jw_int(jw *w, long long v);
void jw_bool(jw *w, bool v);
void jw_null(jw *w);
/* A value already in JSON text. */
void jw_raw(jw *w, const char *json, size_t len);

/* key + value shorthands */
void jw_kstring(jw *w, const char *key, const char *v);
void jw_kstring_or_null(jw *w, const char *key, const char *v);
void jw_kint(jw *w, const char *key, long long v);
void jw_kbool(jw *w, const char *key, bool v);

#endif
