/*
 * jsonw.c: the streaming JSON writer; see jsonw.h.
 *
 * Every report of every combat goes through here, a few hundred keys and
 * values each, so each write reserves its bytes once (the comma, the
 * quotes, the colon and the text together) and copies safe runs of a
 * string whole.  The buffer always keeps a byte free for the terminating
 * NUL, which only jw_take writes.
 */
#include "jsonw.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

void jw_init(jw *w)
{
    w->s = NULL;
    w->len = w->cap = 0;
    w->is_failed = false;
    w->depth = 0;
    w->has_item[0] = false;
    w->is_after_key = false;
}

void jw_free(jw *w)
{
    if (w != NULL) {
        free(w->s);
        w->s = NULL;
    }
}

char *jw_take(jw *w, size_t *len)
{
    char *s;

    if (w->is_failed || w->s == NULL) {
        jw_free(w);
        return NULL;
    }
    s = w->s;
    s[w->len] = '\0';
    if (len)
        *len = w->len;
    w->s = NULL;
    return s;
}

/* Grows the buffer for n more bytes and the NUL; false once failed. */
static bool grow(jw *w, size_t n) __attribute__((noinline));
static bool grow(jw *w, size_t n)
{
    size_t cap;
    char *s;

    if (w->is_failed)
        return false;
    cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n + 1)
        cap *= 2;
    s = realloc(w->s, cap);
    if (s == NULL) {
        w->is_failed = true;
        return false;
    }
    w->s = s;
    w->cap = cap;
    return true;
}

/* Makes room for n more bytes (and a terminating NUL).  Once failed,
 * grow keeps saying no; a write that still fits the old buffer is
 * harmless, as jw_take returns NULL. */
static inline bool reserve(jw *w, size_t n)
{
    return w->len + n < w->cap || grow(w, n);
}

static void put(jw *w, const char *p, size_t n)
{
    if (!reserve(w, n))
        return;
    memcpy(w->s + w->len, p, n);
    w->len += n;
}

/*
 * Before a value or a key: whether it takes a comma (one byte the caller
 * reserves and writes), unless a key was just written.
 */
static inline size_t item(jw *w)
{
    if (w->is_after_key) {
        w->is_after_key = false;
        return 0;
    }
    if (w->depth == 0)
        return 0;
    if (w->has_item[w->depth])
        return 1;
    w->has_item[w->depth] = true;
    return 0;
}

/* A comma (if any) and n bytes of p after it, in one reservation. */
static void put_item(jw *w, const char *p, size_t n)
{
    size_t comma = item(w);

    if (!reserve(w, comma + n))
        return;
    if (comma)
        w->s[w->len++] = ',';
    memcpy(w->s + w->len, p, n);
    w->len += n;
}

static void open_container(jw *w, char c)
{
    size_t comma = item(w);

    if (reserve(w, comma + 1)) {
        if (comma)
            w->s[w->len++] = ',';
        w->s[w->len++] = c;
    }
    if (w->depth + 1 >= JW_MAX_DEPTH) {
        w->is_failed = true;
        return;
    }
    w->depth++;
    w->has_item[w->depth] = false;
}

static void close_container(jw *w, char c)
{
    if (reserve(w, 1))
        w->s[w->len++] = c;
    if (w->depth > 0)
        w->depth--;
}

void jw_object(jw *w)
{
    open_container(w, '{');
}

void jw_object_end(jw *w)
{
    close_container(w, '}');
}

void jw_array(jw *w)
{
    open_container(w, '[');
}

void jw_array_end(jw *w)
{
    close_container(w, ']');
}

/* The length of the run of s that needs no escaping. */
static inline size_t safe_run(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (!json_string_stops[p[0]]) {
        if (json_string_stops[p[1]])
            return (size_t)(p + 1 - (const unsigned char *)s);
        if (json_string_stops[p[2]])
            return (size_t)(p + 2 - (const unsigned char *)s);
        if (json_string_stops[p[3]])
            return (size_t)(p + 3 - (const unsigned char *)s);
        p += 4;
    }
    return (size_t)(p - (const unsigned char *)s);
}

/*
 * Writes the rest of a string from v on, v at a byte to escape, at the
 * first byte of a UTF-8 sequence or at its NUL, then the closing quote
 * and, for a key, the colon: each escape or sequence, then the next safe
 * run in one copy.  A well-formed UTF-8 sequence is copied as it is; a
 * byte that starts none (a string damaged in the store: what arrives in a
 * request is checked) is written as U+FFFD, so that the text is always
 * JSON that reads.
 */
static void put_escaped_tail(jw *w, const char *v, bool is_key)
{
    static const char hex[] = "0123456789abcdef";

    while (*v) {
        unsigned char c = (unsigned char)*v++;
        size_t n;
        char *d;

        if (!reserve(w, 6))
            return;
        d = w->s + w->len;
        if (c >= 0x80) {
            n = utf8_length((const unsigned char *)v - 1, UTF8_MAX);
            if (n > 0) {
                memcpy(d, v - 1, n);
                w->len += n;
                v += n - 1;
            } else {
                memcpy(d, "\\ufffd", 6);
                w->len += 6;
            }
        } else if (c == '"' || c == '\\') {
            d[0] = '\\';
            d[1] = (char)c;
            w->len += 2;
        } else {
            d[0] = '\\';
            d[1] = 'u';
            d[2] = '0';
            d[3] = '0';
            d[4] = hex[c >> 4];
            d[5] = hex[c & 0xf];
            w->len += 6;
        }
        n = safe_run(v);
        put(w, v, n);
        v += n;
    }
    put(w, is_key ? "\":" : "\"", is_key ? 2 : 1);
}

/*
 * A string (or a key, with its colon) as a JSON item, after the plain key
 * key (klen bytes; none when NULL): the comma, the key, the quotes and the
 * string's first safe run are written in one reservation; most strings
 * are that run alone.
 */
static void put_string_after(jw *w, const char *key, size_t klen, const char *v,
                             bool is_key)
{
    size_t n = safe_run(v), comma = item(w), colon = is_key, k;
    size_t kn = key ? klen + 3 : 0;
    char *d;

    if (!reserve(w, comma + kn + n + 2 + colon))
        return;
    d = w->s + w->len;
    k = 0;
    if (comma)
        d[k++] = ',';
    if (key) {
        d[k++] = '"';
        memcpy(d + k, key, klen);
        k += klen;
        d[k++] = '"';
        d[k++] = ':';
    }
    d[k++] = '"';
    memcpy(d + k, v, n);
    k += n;
    if (v[n] != '\0') {
        w->len += k;
        put_escaped_tail(w, v + n, is_key);
        return;
    }
    d[k++] = '"';
    if (is_key)
        d[k++] = ':';
    w->len += k;
}

static void put_string(jw *w, const char *v, bool is_key)
{
    put_string_after(w, NULL, 0, v, is_key);
}

/* ,"key": (the comma if the item takes one) in one reservation, for a
 * key that needs no escaping.  Leaves room for n more bytes after it. */
static inline bool put_plain_key(jw *w, const char *key, size_t len, size_t n)
{
    size_t comma = item(w);
    char *d;

    if (!reserve(w, comma + len + 3 + n))
        return false;
    d = w->s + w->len;
    if (comma)
        *d++ = ',';
    *d++ = '"';
    memcpy(d, key, len);
    d += len;
    *d++ = '"';
    *d++ = ':';
    w->len = (size_t)(d - w->s);
    return true;
}

void jw_key_plain(jw *w, const char *key, size_t len)
{
    put_plain_key(w, key, len, 0);
    w->is_after_key = true;
}

void jw_key_escaped(jw *w, const char *key)
{
    put_string(w, key, true);
    w->is_after_key = true;
}

void jw_string(jw *w, const char *v)
{
    put_string(w, v, false);
}

void jw_string_or_null(jw *w, const char *v)
{
    if (v == NULL || v[0] == '\0')
        jw_null(w);
    else
        jw_string(w, v);
}

/* The digits of u. */
static size_t n_digits(unsigned long long u)
{
    size_t n = 1;

    while (u >= 10) {
        u /= 10;
        n++;
    }
    return n;
}

/* v in decimal into d[0..n), n being its int_length. */
static void format_int(char *d, size_t n, long long v)
{
    unsigned long long u =
        v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    char *p = d + n;

    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0)
        *--p = '-';
}

/* The length of v in decimal. */
static size_t int_length(long long v)
{
    return v < 0 ? 1 + n_digits(0ULL - (unsigned long long)v)
                 : n_digits((unsigned long long)v);
}

void jw_int(jw *w, long long v)
{
    size_t comma = item(w), n = int_length(v);

    if (!reserve(w, comma + n))
        return;
    if (comma)
        w->s[w->len++] = ',';
    format_int(w->s + w->len, n, v);
    w->len += n;
}

void jw_kint_plain(jw *w, const char *key, size_t len, long long v)
{
    size_t n = int_length(v);

    if (!put_plain_key(w, key, len, n))
        return;
    format_int(w->s + w->len, n, v);
    w->len += n;
}

void jw_kraw_plain(jw *w, const char *key, size_t len, const char *json,
                   size_t n)
{
    if (!put_plain_key(w, key, len, n))
        return;
    memcpy(w->s + w->len, json, n);
    w->len += n;
}

void jw_kstring_plain(jw *w, const char *key, size_t len, const char *v)
{
    put_string_after(w, key, len, v, false);
}

void jw_kstring_or_null_plain(jw *w, const char *key, size_t len, const char *v)
{
    if (v == NULL || v[0] == '\0')
        jw_kraw_plain(w, key, len, "null", 4);
    else
        put_string_after(w, key, len, v, false);
}

void jw_bool(jw *w, bool v)
{
    put_item(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(jw *w)
{
    put_item(w, "null", 4);
}

void jw_raw(jw *w, const char *json, size_t len)
{
    put_item(w, json, len);
}
