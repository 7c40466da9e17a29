/*
 * utf8.h: well-formed UTF-8, as jansson reads it; shared by the quick
 * reader (jsonr.c) and the writer (jsonw.c).
 */
#ifndef UMPIRE_UTF8_H
#define UMPIRE_UTF8_H

#include <stddef.h>

/* The length of the well-formed UTF-8 sequence at q (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF, as jansson
 * checks), or 0: none starts there, or it would take more than room
 * bytes.  Each byte is read only after the one before it continued the
 * sequence, so in a string ended by its NUL, room may count past the NUL
 * (UTF8_MAX: the NUL ends the sequence). */
enum { UTF8_MAX = 4 };
static inline size_t utf8_length(const unsigned char *q, size_t room)
{
    unsigned v;
    size_t n, i;

    if (q[0] >= 0xc2 && q[0] <= 0xdf)
        n = 2, v = q[0] & 0x1fu;
    else if (q[0] >= 0xe0 && q[0] <= 0xef)
        n = 3, v = q[0] & 0x0fu;
    else if (q[0] >= 0xf0 && q[0] <= 0xf4)
        n = 4, v = q[0] & 0x07u;
    else
        return 0;
    if (room < n)
        return 0;
    for (i = 1; i < n; i++) {
        if ((q[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (q[i] & 0x3fu);
    }
    if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
        (n == 4 && (v < 0x10000 || v > 0x10ffff)))
        return 0;
    return n;
}

#endif
