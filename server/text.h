/*
 * text.h: string helpers for the hot path (no printf machinery).
 */
#ifndef UMPIRE_TEXT_H
#define UMPIRE_TEXT_H

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

#endif
