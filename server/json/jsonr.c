/*
 * jsonr.c: the quick JSON reader; see jsonr.h.
 *
 * Each reader function returns a new value, or NULL to give up: on any
 * error, anything outside the subset it reads, or out of memory.  Giving
 * up anywhere hands the whole buffer to json_loadb, so an error is always
 * jansson's own, with its line, column and message.  What the subset
 * accepts, jansson accepts with the same values (the tests compare the
 * two on many documents): objects are built with the calls jansson's
 * reader makes (json_object_setn_new_nocheck; a duplicate, where refused,
 * is seen as a size that did not grow), so keys keep their order.
 */
#include "jsonr.h"
#include "utf8.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const unsigned char *p, *end;
    size_t flags;
    int depth;
} reader;

/* JSON's whitespace, as jansson skips it between tokens. */
static void skip_space(reader *r)
{
    while (r->p < r->end &&
           (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
        r->p++;
}

/* The byte a one-character escape stands for, or -1 (\u is not read
 * here). */
static int unescape(unsigned char c)
{
    switch (c) {
    case '"':
    case '\\':
    case '/': return c;
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    }
    return -1;
}

/*
 * The string whose opening quote r->p is just after: *s and *n its bytes,
 * borrowed from the buffer, or, when it has escapes, decoded into *copy
 * (new, free()); copy NULL only checks it (s and n are left alone).  r->p
 * ends after the closing quote.
 */
static bool read_string(reader *r, const char **s, size_t *n, char **copy)
{
    const unsigned char *start = r->p, *q = r->p;
    bool has_escape = false;
    char *d;

    if (copy != NULL)
        *copy = NULL;
    for (;;) {
        while (q < r->end && !json_string_stops[*q])
            q++;
        if (q == r->end || *q < 0x20)
            return false;
        if (*q == '"')
            break;
        if (*q == '\\') {
            if (r->end - q < 2 || unescape(q[1]) < 0)
                return false;
            has_escape = true;
            q += 2;
        } else {
            size_t k = utf8_length(q, (size_t)(r->end - q));
            if (k == 0)
                return false;
            q += k;
        }
    }
    r->p = q + 1;
    if (copy == NULL)
        return true;
    if (!has_escape) {
        *s = (const char *)start;
        *n = (size_t)(q - start);
        return true;
    }
    if ((*copy = d = malloc((size_t)(q - start))) == NULL)
        return false;
    while (start < q) {
        if (*start == '\\') {
            *d++ = (char)unescape(start[1]);
            start += 2;
        } else {
            *d++ = (char)*start++;
        }
    }
    *s = *copy;
    *n = (size_t)(d - *copy);
    return true;
}

/* An integer of 1 to 18 digits (jansson reads longer ones, and reals). */
static json_t *read_integer(reader *r)
{
    const unsigned char *q = r->p, *digits;
    bool is_negative = false;
    json_int_t v = 0;

    if (*q == '-') {
        is_negative = true;
        q++;
    }
    digits = q;
    while (q < r->end && *q >= '0' && *q <= '9') {
        if (q - digits == 18)
            return NULL;
        v = v * 10 + (*q++ - '0');
    }
    if (q == digits || (*digits == '0' && q - digits > 1))
        return NULL;
    r->p = q;
    return json_integer(is_negative ? -v : v);
}

/* A literal: true, false or null.  What follows it is the caller's to
 * check, as after any value. */
static bool read_word(reader *r, const char *word, size_t n)
{
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return false;
    r->p += n;
    return true;
}

static json_t *read_value(reader *r);

/* After an object's or an array's opening ('{' or '[' at r->p): true
 * when close follows at once (the container is empty, and r->p is past
 * it). */
static bool list_opens_empty(reader *r, char close)
{
    r->p++;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return true;
    }
    return false;
}

/* After a member or an item: LIST_NEXT past a comma, LIST_END past close,
 * LIST_BAD at anything else. */
typedef enum { LIST_NEXT, LIST_END, LIST_BAD } list_step;

static list_step list_after_item(reader *r, char close)
{
    skip_space(r);
    if (r->p < r->end && *r->p == ',') {
        r->p++;
        skip_space(r);
        return LIST_NEXT;
    }
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return LIST_END;
    }
    return LIST_BAD;
}

/* One member of obj, "key": value, at r->p. */
static bool read_member(reader *r, json_t *obj)
{
    const char *key;
    size_t n;
    char *copy;
    json_t *v;
    size_t size = json_object_size(obj);
    bool is_read = false;

    if (r->p == r->end || *r->p != '"')
        return false;
    r->p++;
    if (!read_string(r, &key, &n, &copy))
        return false;
    skip_space(r);
    if (r->p == r->end || *r->p != ':')
        goto out;
    r->p++;
    skip_space(r);
    /* A repeated key replaces its value and leaves the size as it was:
     * refused, that gives up (one hash lookup per key, not two). */
    if ((v = read_value(r)) != NULL)
        is_read = json_object_setn_new_nocheck(obj, key, n, v) == 0 &&
                  (!(r->flags & JSON_REJECT_DUPLICATES) ||
                   json_object_size(obj) > size);
out:
    free(copy);
    return is_read;
}

/* The object at r->p ('{'). */
static json_t *read_object(reader *r)
{
    json_t *obj = json_object();

    if (obj == NULL || list_opens_empty(r, '}'))
        return obj;
    while (read_member(r, obj)) {
        list_step step = list_after_item(r, '}');
        if (step == LIST_END)
            return obj;
        if (step == LIST_BAD)
            break;
    }
    json_decref(obj);
    return NULL;
}

/* The array at r->p ('['). */
static json_t *read_array(reader *r)
{
    json_t *arr = json_array();

    if (arr == NULL || list_opens_empty(r, ']'))
        return arr;
    for (;;) {
        json_t *v = read_value(r);
        list_step step;
        if (v == NULL || json_array_append_new(arr, v) != 0)
            break;
        if ((step = list_after_item(r, ']')) == LIST_END)
            return arr;
        if (step == LIST_BAD)
            break;
    }
    json_decref(arr);
    return NULL;
}

/* The value at r->p (after whitespace). */
static json_t *read_value(reader *r)
{
    json_t *v = NULL;

    if (r->p == r->end)
        return NULL;
    switch (*r->p) {
    case '{':
    case '[':
        if (r->depth >= JSONR_MAX_DEPTH)
            return NULL;
        r->depth++;
        v = *r->p == '{' ? read_object(r) : read_array(r);
        r->depth--;
        return v;
    case '"': {
        const char *s;
        size_t n;
        char *copy;

        r->p++;
        if (!read_string(r, &s, &n, &copy))
            return NULL;
        v = json_stringn_nocheck(s, n);
        free(copy);
        return v;
    }
    case 't': return read_word(r, "true", 4) ? json_true() : NULL;
    case 'f': return read_word(r, "false", 5) ? json_false() : NULL;
    case 'n': return read_word(r, "null", 4) ? json_null() : NULL;
    }
    if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
        return read_integer(r);
    return NULL;
}

/* ---- checking a document without reading it (jsonr_is_plain) ---- */

static bool check_value(reader *r);

/* An integer, as read_integer reads one. */
static bool check_integer(reader *r)
{
    const unsigned char *q = r->p, *digits;

    if (*q == '-')
        q++;
    digits = q;
    while (q < r->end && *q >= '0' && *q <= '9')
        if (++q - digits > 18)
            return false;
    if (q == digits || (*digits == '0' && q - digits > 1))
        return false;
    r->p = q;
    return true;
}

/* The string whose opening quote r->p is just after, as read_string
 * reads it. */
static bool check_string(reader *r)
{
    return read_string(r, NULL, NULL, NULL);
}

/* The object at r->p ('{'): its members, none of them repeated (jansson
 * would keep the last of a key given twice; the text keeps both).  A key
 * with an escape (two spellings of one key) or an object of more than
 * KEYS_MAX members gives up. */
static bool check_object(reader *r)
{
    enum { KEYS_MAX = 32 };
    const unsigned char *key[KEYS_MAX];
    size_t len[KEYS_MAX], n = 0, i;

    if (list_opens_empty(r, '}'))
        return true;
    for (;;) {
        const unsigned char *k;
        list_step step;
        if (r->p == r->end || *r->p != '"' || n == KEYS_MAX)
            return false;
        k = ++r->p;
        if (!check_string(r))
            return false;
        key[n] = k;
        len[n] = (size_t)(r->p - 1 - k);
        if (memchr(k, '\\', len[n]) != NULL)
            return false;
        for (i = 0; i < n; i++)
            if (len[i] == len[n] && memcmp(key[i], k, len[n]) == 0)
                return false;
        n++;
        skip_space(r);
        if (r->p == r->end || *r->p != ':')
            return false;
        r->p++;
        skip_space(r);
        if (!check_value(r) || (step = list_after_item(r, '}')) == LIST_BAD)
            return false;
        if (step == LIST_END)
            return true;
    }
}

/* The array at r->p ('['). */
static bool check_array(reader *r)
{
    list_step step = LIST_NEXT;

    if (list_opens_empty(r, ']'))
        return true;
    while (step == LIST_NEXT)
        if (!check_value(r) || (step = list_after_item(r, ']')) == LIST_BAD)
            return false;
    return true;
}

/* The value at r->p, as read_value reads it. */
static bool check_value(reader *r)
{
    bool is_read;

    if (r->p == r->end)
        return false;
    switch (*r->p) {
    case '{':
    case '[':
        if (r->depth >= JSONR_MAX_DEPTH)
            return false;
        r->depth++;
        is_read = *r->p == '{' ? check_object(r) : check_array(r);
        r->depth--;
        return is_read;
    case '"': r->p++; return check_string(r);
    case 't': return read_word(r, "true", 4);
    case 'f': return read_word(r, "false", 5);
    case 'n': return read_word(r, "null", 4);
    }
    if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
        return check_integer(r);
    return false;
}

bool jsonr_is_plain(const char *buf, size_t len)
{
    reader r;

    if (buf == NULL)
        return false;
    r.p = (const unsigned char *)buf;
    r.end = r.p + len;
    r.flags = 0;
    r.depth = 0;
    skip_space(&r);
    if (r.p == r.end || (*r.p != '{' && *r.p != '['))
        return false;
    if (!check_value(&r))
        return false;
    skip_space(&r);
    return r.p == r.end;
}

/* What json_loadb leaves in err after reading len bytes. */
static void loaded(json_error_t *err, size_t len)
{
    static const char source[] = "<buffer>";

    if (err == NULL)
        return;
    err->text[0] = '\0';
    err->line = -1;
    err->column = -1;
    err->position = (int)len;
    memcpy(err->source, source, sizeof source);
}

json_t *jsonr_loadb(const char *buf, size_t len, size_t flags,
                    json_error_t *err)
{
    reader r;
    json_t *v;

    if (buf == NULL ||
        (flags & ~(size_t)(JSON_REJECT_DUPLICATES | JSON_DECODE_ANY)) != 0)
        return json_loadb(buf, len, flags, err);
    r.p = (const unsigned char *)buf;
    r.end = r.p + len;
    r.flags = flags;
    r.depth = 0;
    skip_space(&r);
    v = NULL;
    if ((flags & JSON_DECODE_ANY) ||
        (r.p < r.end && (*r.p == '{' || *r.p == '[')))
        v = read_value(&r);
    if (v != NULL) {
        skip_space(&r);
        if (r.p != r.end) {
            json_decref(v);
            v = NULL;
        }
    }
    if (v == NULL)
        return json_loadb(buf, len, flags, err);
    loaded(err, len);
    return v;
}
