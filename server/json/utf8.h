/*
 * utf8.h: well-formed UTF-8, as jansson reads it, and the runs of a JSON
 * string's bytes that need no second look; shared by the quick reader
 * (jsonr.c) and the writer (jsonw.c); its UTF-8 check by problem
 * documents too (problem.c).
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

/* The bytes that end a run of a JSON string's bytes taken as they are:
 * its NUL (where it is a C string) and control characters (escaped in
 * writing, an error in reading), '"' and '\\' (the closing quote, or
 * escaped; an escape's start), and the first bytes of UTF-8 sequences
 * (checked one by one: utf8_length).  DEL (0x7f) passes through. */
static const unsigned char json_string_stops[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x10 */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20: '"' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x30 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50: '\\' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x60 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x70 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x80 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x90 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xa0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xb0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xc0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xd0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xe0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xf0 */
};

#endif
