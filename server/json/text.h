/*
 * text.h: string helpers for the hot path (no printf machinery).
 */
#ifndef UMPIRE_TEXT_H
#define UMPIRE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Copies src into dst of n bytes, truncating, always terminated. */
static inline void text_copy(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);

    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* A growing text buffer, e.g. for Markdown summaries.  Start it as
 * {0}; allocation failures are sticky and make text_take return NULL. */
typedef struct text_buf {
    char *s;
    size_t len, cap;
    bool is_failed;
} text_buf;

/* Appends the n bytes at p; v in decimal, as "%lld" writes it. */
void text_put(text_buf *b, const char *p, size_t n);
void text_put_int(text_buf *b, long long v);

/*
 * Appends fmt with its arguments.  Only %s, %d and %% are understood:
 * enough for reports, and without the printf machinery on the hot path.
 */
void text_printf(text_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* s made safe inside a Markdown line, into out (n bytes, truncating):
 * control characters become spaces and Markdown's marks are escaped, so
 * a name cannot start a line or a list item of its own. */
void text_md(char *out, size_t n, const char *s);
/* s needs no change to be safe in Markdown (text_md would copy it as is). */
bool text_md_is_plain(const char *s);

/* The text (new, free()), or NULL if any append failed. */
char *text_take(text_buf *b);

#endif
