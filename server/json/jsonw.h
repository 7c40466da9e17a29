/*
 * jsonw.h: a small streaming JSON writer into a growing buffer.
 *
 * Reports are written once as text (stored, sent, and spliced with their
 * roll log) instead of being built as jansson trees and serialized again:
 * on the hot path of a combat that is most of the CPU.  Commas are placed
 * automatically; keys and values alternate inside objects.  Strings are
 * UTF-8 (request strings are, jansson checks them); a byte of one that
 * starts no well-formed sequence is written as U+FFFD.  Allocation
 * failures are sticky: jw_take returns NULL.
 */
#ifndef UMPIRE_JSONW_H
#define UMPIRE_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

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
void jw_string(jw *w, const char *v);
void jw_string_or_null(jw *w, const char *v); /* NULL or "" -> null */
void jw_int(jw *w, long long v);
void jw_bool(jw *w, bool v);
void jw_null(jw *w);
/* A value already in JSON text. */
void jw_raw(jw *w, const char *json, size_t len);

/*
 * Keys.  Nearly every key is a string literal that needs no escaping: for
 * those the compiler works out the length and the check (gcc and clang
 * fold strlen and strcspn of a literal) and the writer copies the key
 * whole, with its quotes and its colon.  Any other key (one with a byte
 * to escape, or with UTF-8, checked as a string's is) is written like a
 * string value; the output is the same either way.
 */
#define JW_ESCAPED                                                             \
    "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11" \
    "\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"                 \
    "\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f"         \
    "\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f"         \
    "\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf"         \
    "\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf"         \
    "\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf"         \
    "\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf"         \
    "\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef"         \
    "\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff"

/* key, of len bytes, none of them in JW_ESCAPED (use jw_key). */
void jw_key_plain(jw *w, const char *key, size_t len);
/* key escaped as a string (use jw_key). */
void jw_key_escaped(jw *w, const char *key);
/* jw_key_plain and jw_int in one write (use jw_kint). */
void jw_kint_plain(jw *w, const char *key, size_t len, long long v);

/* jw_key_plain and a string, a string or null (jw_string_or_null), or
 * JSON text of n bytes, each in one write (use jw_kstring,
 * jw_kstring_or_null, jw_kbool). */
void jw_kstring_plain(jw *w, const char *key, size_t len, const char *v);
void jw_kstring_or_null_plain(jw *w, const char *key, size_t len,
                              const char *v);
void jw_kraw_plain(jw *w, const char *key, size_t len, const char *json,
                   size_t n);

/* Whether key, a string literal at the call (the compiler folds this),
 * needs no escaping. */
#define JW_IS_PLAIN(key) (strcspn((key), JW_ESCAPED) == strlen(key))

/*
 * ,"key": for a key of len bytes that follows another in its object, when
 * the buffer has room for it, n bytes after it and the NUL: written here,
 * where the key's length is a constant and its copy a few moves, and the
 * place after the colon returned (the caller writes its n bytes or fewer,
 * and moves w->len); NULL otherwise, for the general write.  A report's
 * keys nearly all follow another.
 */
static inline char *jw_next_key(jw *w, const char *key, size_t len, size_t n)
{
    char *d;

    if (w->depth == 0 || !w->has_item[w->depth] || w->is_after_key ||
        w->len + len + 4 + n >= w->cap)
        return NULL;
    d = w->s + w->len;
    d[0] = ',';
    d[1] = '"';
    memcpy(d + 2, key, len);
    d[len + 2] = '"';
    d[len + 3] = ':';
    return d + len + 4;
}

static inline void jw_key(jw *w, const char *key)
{
    if (JW_IS_PLAIN(key))
        jw_key_plain(w, key, strlen(key));
    else
        jw_key_escaped(w, key);
}

/* key + value shorthands */
static inline void jw_kstring(jw *w, const char *key, const char *v)
{
    if (JW_IS_PLAIN(key)) {
        jw_kstring_plain(w, key, strlen(key), v);
    } else {
        jw_key_escaped(w, key);
        jw_string(w, v);
    }
}

static inline void jw_kstring_or_null(jw *w, const char *key, const char *v)
{
    if (JW_IS_PLAIN(key)) {
        size_t len = strlen(key);
        char *d;
        if ((v == NULL || v[0] == '\0') &&
            (d = jw_next_key(w, key, len, 4)) != NULL) {
            memcpy(d, "null", 4);
            w->len = (size_t)(d - w->s) + 4;
            return;
        }
        jw_kstring_or_null_plain(w, key, len, v);
    } else {
        jw_key_escaped(w, key);
        jw_string_or_null(w, v);
    }
}

/*
 * A report's integers are nearly all 0 to 99: those written after
 * jw_next_key's key, without the call and the general formatting of
 * jw_kint_plain (about a sixth of its instructions).  The text is the same
 * either way.
 */
static inline void jw_kint(jw *w, const char *key, long long v)
{
    if (JW_IS_PLAIN(key)) {
        size_t len = strlen(key);
        char *d;
        if (v >= 0 && v < 100 && (d = jw_next_key(w, key, len, 2)) != NULL) {
            if (v >= 10)
                *d++ = (char)('0' + v / 10);
            *d++ = (char)('0' + v % 10);
            w->len = (size_t)(d - w->s);
            return;
        }
        jw_kint_plain(w, key, len, v);
    } else {
        jw_key_escaped(w, key);
        jw_int(w, v);
    }
}

static inline void jw_kbool(jw *w, const char *key, bool v)
{
    if (JW_IS_PLAIN(key)) {
        size_t len = strlen(key);
        char *d = jw_next_key(w, key, len, 5);
        if (d != NULL) {
            memcpy(d, v ? "true" : "false", 5); /* within the room asked */
            w->len = (size_t)(d - w->s) + (v ? 4 : 5);
            return;
        }
        jw_kraw_plain(w, key, len, v ? "true" : "false", v ? 4 : 5);
    } else {
        jw_key_escaped(w, key);
        jw_bool(w, v);
    }
}

#endif
