/*
 * jsonw.c: the streaming JSON writer; see jsonw.h.
 */
#include "jsonw.h"

#include <stdio.h>
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
    if (len)
        *len = w->len;
    w->s = NULL;
    return s;
}

/* Makes room for n more bytes (and a terminating NUL). */
static bool reserve(jw *w, size_t n)
{
    size_t cap;
    char *s;

    if (w->is_failed)
        return false;
    if (w->len + n + 1 <= w->cap)
        return true;
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

static void put(jw *w, const char *p, size_t n)
{
    if (!reserve(w, n))
        return;
    memcpy(w->s + w->len, p, n);
    w->len += n;
    w->s[w->len] = '\0';
}

/* Before a value or a key: the comma, unless a key was just written. */
static void item(jw *w)
{
    if (w->is_after_key) {
        w->is_after_key = false;
        return;
    }
    if (w->depth > 0 && w->has_item[w->depth])
        put(w, ",", 1);
    if (w->depth > 0)
        w->has_item[w->depth] = true;
}

static void open_container(jw *w, char c)
{
    item(w);
    put(w, &c, 1);
    if (w->depth + 1 >= JW_MAX_DEPTH) {
        w->is_failed = true;
        return;
    }
    w->depth++;
    w->has_item[w->depth] = false;
}

static void close_container(jw *w, char c)
{
    put(w, &c, 1);
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

static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

static void put_escaped(jw *w, const char *v)
{
    const char *p = v, *run;

    while (*p && !needs_escape((unsigned char)*p))
        p++;
    if (*p == '\0') {
        /* The common case: nothing to escape, one copy. */
        size_t n = (size_t)(p - v);
        if (!reserve(w, n + 2))
            return;
        w->s[w->len++] = '"';
        memcpy(w->s + w->len, v, n);
        w->len += n;
        w->s[w->len++] = '"';
        w->s[w->len] = '\0';
        return;
    }
    put(w, "\"", 1);
    for (run = v; *p; p++) {
        unsigned char c = (unsigned char)*p;
        char esc[8];
        if (!needs_escape(c))
            continue;
        put(w, run, (size_t)(p - run));
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(w, esc, 2);
        } else {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(w, esc, 6);
        }
        run = p + 1;
    }
    put(w, run, (size_t)(p - run));
    put(w, "\"", 1);
}

void jw_key(jw *w, const char *key)
{
    item(w);
    put_escaped(w, key);
    put(w, ":", 1);
    w->is_after_key = true;
}

void jw_string(jw *w, const char *v)
{
    item(w);
    put_escaped(w, v);
}

void jw_string_or_null(jw *w, const char *v)
{
    if (v == NULL || v[0] == '\0')
        jw_null(w);
    else
        jw_string(w, v);
}

void jw_int(jw *w, long long v)
{
    char num[24];
    char *p = num + sizeof num;
    unsigned long long u =
        v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0)
        *--p = '-';
    item(w);
    put(w, p, (size_t)(num + sizeof num - p));
}

void jw_bool(jw *w, bool v)
{
    item(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(jw *w)
{
    item(w);
    put(w, "null", 4);
}

void jw_raw(jw *w, const char *json, size_t len)
{
    item(w);
    put(w, json, len);
}

void jw_kstring(jw *w, const char *key, const char *v)
{
    jw_key(w, key);
    jw_string(w, v);
}

void jw_kstring_or_null(jw *w, const char *key, const char *v)
{
    jw_key(w, key);
    jw_string_or_null(w, v);
}

void jw_kint(jw *w, const char *key, long long v)
{
    jw_key(w, key);
    jw_int(w, v);
}

void jw_kbool(jw *w, const char *key, bool v)
{
    jw_key(w, key);
    jw_bool(w, v);
}
