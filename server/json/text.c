/*
 * text.c: the growing text buffer of text.h.
 */
#include "text.h"

#include <stdarg.h>
#include <stdlib.h>

void text_put(text_buf *b, const char *p, size_t n)
{
    if (b->is_failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        char *s;
        while (cap < b->len + n + 1)
            cap *= 2;
        if ((s = realloc(b->s, cap)) == NULL) {
            b->is_failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void text_put_int(text_buf *b, long long v)
{
    char num[24], *p = num + sizeof num;
    unsigned long long u =
        v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0)
        *--p = '-';
    text_put(b, p, (size_t)(num + sizeof num - p));
}

void text_printf(text_buf *b, const char *fmt, ...)
{
    const char *run = fmt, *p;
    va_list ap;

    va_start(ap, fmt);
    for (p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        text_put(b, run, (size_t)(p - run));
        p++;
        if (*p == 's') {
            const char *v = va_arg(ap, const char *);
            text_put(b, v, strlen(v));
        } else if (*p == 'd') {
            char num[16], *q = num + sizeof num;
            int v = va_arg(ap, int);
            unsigned u = v < 0 ? 0U - (unsigned)v : (unsigned)v;
            do {
                *--q = (char)('0' + u % 10);
                u /= 10;
            } while (u > 0);
            if (v < 0)
                *--q = '-';
            text_put(b, q, (size_t)(num + sizeof num - q));
        } else {
            text_put(b, "%", 1); /* "%%", or a conversion not supported */
            if (*p == '\0') {
                run = p;
                break;
            }
        }
        run = p + 1;
    }
    text_put(b, run, strlen(run));
    va_end(ap);
}

char *text_take(text_buf *b)
{
    if (b->is_failed) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

/* Markdown's marks, which text_md escapes with a backslash. */
static const bool md_marks[256] = {
    ['\\'] = true, ['`'] = true, ['*'] = true, ['_'] = true,
    ['['] = true,  [']'] = true, ['#'] = true, ['<'] = true,
    ['>'] = true,  ['|'] = true, ['!'] = true, ['~'] = true,
};

static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

bool text_md_is_plain(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (is_control(c) || md_marks[c])
            return false;
    }
    return true;
}

void text_md(char *out, size_t n, const char *s)
{
    size_t k = 0;

    for (; *s && k + 2 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (is_control(c)) {
            out[k++] = ' ';
            continue;
        }
        if (md_marks[c])
            out[k++] = '\\';
        out[k++] = (char)c;
    }
    out[k] = '\0';
}
