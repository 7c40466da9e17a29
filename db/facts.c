/*
 * facts.c: a combat's facts (db.h, "a combat's facts"): the integers and
 * strings a system writes them with and reads them back by, and the value
 * they are stored as in the report's column, tagged and checked
 * (db_sql.h: db_facts_wrap, db_facts_unwrap).  No SQL.
 */
#include "db_sql.h"

#include <sodium.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The stored value: FACTS_TAG, the facts, then CHECK_BYTES of a checksum
 * of the facts (SipHash-2-4 with a fixed key, libsodium's
 * crypto_shorthash: a check against damage, as the compact roll log's).
 * The tag starts with ESC, which no report's text starts with, nor a zstd
 * frame or another packed value (their tags are ESC and other letters). */
enum { FACTS_TAG_LEN = 4, CHECK_BYTES = 4 };
static const unsigned char facts_tag[FACTS_TAG_LEN] = {0x1b, 'f', 'c', '1'};

/* A varint takes at most VARINT_MAX bytes (a 64-bit value's). */
enum { VARINT_MAX = 10 };

static void check_of(const unsigned char *facts, size_t n,
                     unsigned char out[CHECK_BYTES])
{
    static const unsigned char key[crypto_shorthash_KEYBYTES] =
        "umpire facts v1";
    unsigned char h[crypto_shorthash_BYTES];

    crypto_shorthash(h, facts, n, key);
    memcpy(out, h, CHECK_BYTES);
}

/* Room for n more bytes in f; false (f marked) when out of memory. */
static bool room(db_facts *f, size_t n)
{
    unsigned char *more;
    size_t cap;

    if (f->is_nomem)
        return false;
    if (f->len + n <= f->cap)
        return true;
    cap = f->cap ? f->cap : 256;
    while (cap < f->len + n)
        cap *= 2;
    if ((more = realloc(f->buf, cap)) == NULL) {
        f->is_nomem = true;
        return false;
    }
    f->buf = more;
    f->cap = cap;
    return true;
}

/* v as a varint: 7 bits a byte, least significant first, the top bit set
 * on every byte but the last. */
static void put_varint(db_facts *f, unsigned long long v)
{
    if (!room(f, VARINT_MAX))
        return;
    while (v >= 0x80) {
        f->buf[f->len++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    f->buf[f->len++] = (unsigned char)v;
}

void db_facts_int(db_facts *f, long long v)
{
    /* zigzag: 0, -1, 1, -2, 2 ... as 0, 1, 2, 3, 4 */
    put_varint(f, ((unsigned long long)v << 1) ^ (v < 0 ? ~0ULL : 0));
}

void db_facts_str(db_facts *f, const char *s)
{
    size_t n = s ? strlen(s) : 0;

    put_varint(f, n);
    if (n > 0 && room(f, n)) {
        memcpy(f->buf + f->len, s, n);
        f->len += n;
    }
}

bool db_facts_done(db_facts *f, db_combat *cb)
{
    bool is_ok = !f->is_nomem && f->len > 0;

    free(cb->facts);
    cb->facts = is_ok ? f->buf : NULL;
    cb->facts_len = is_ok ? f->len : 0;
    if (!is_ok)
        free(f->buf);
    memset(f, 0, sizeof *f);
    return is_ok;
}

void db_facts_read(db_facts_reader *r, const db_combat *cb)
{
    r->p = cb->facts;
    r->end = cb->facts ? cb->facts + cb->facts_len : NULL;
    r->is_bad = cb->facts == NULL;
}

static unsigned long long get_varint(db_facts_reader *r)
{
    unsigned long long v = 0;
    int shift;

    for (shift = 0; !r->is_bad && r->p < r->end && shift < 7 * VARINT_MAX;
         shift += 7) {
        unsigned char b = *r->p++;
        v |= (unsigned long long)(b & 0x7f) << shift;
        if ((b & 0x80) == 0)
            return v;
    }
    r->is_bad = true;
    return 0;
}

int db_facts_get_int(db_facts_reader *r, int min, int max)
{
    unsigned long long u = get_varint(r);
    long long v = (long long)(u >> 1) ^ -(long long)(u & 1);

    if (r->is_bad || v < min || v > max) {
        r->is_bad = true;
        return min;
    }
    return (int)v;
}

void db_facts_get_str(db_facts_reader *r, char *out, size_t size)
{
    unsigned long long n = get_varint(r);

    if (!r->is_bad && (n >= size || n > (unsigned long long)(r->end - r->p)))
        r->is_bad = true;
    if (r->is_bad) {
        out[0] = '\0';
        return;
    }
    memcpy(out, r->p, (size_t)n);
    out[n] = '\0';
    r->p += n;
}

bool db_facts_end(const db_facts_reader *r)
{
    return !r->is_bad && r->p == r->end;
}

unsigned char *db_facts_wrap(const db_combat *cb, size_t *len)
{
    size_t n = FACTS_TAG_LEN + cb->facts_len + CHECK_BYTES;
    unsigned char *z = malloc(n);

    if (z == NULL)
        return NULL;
    memcpy(z, facts_tag, FACTS_TAG_LEN);
    memcpy(z + FACTS_TAG_LEN, cb->facts, cb->facts_len);
    check_of(cb->facts, cb->facts_len, z + FACTS_TAG_LEN + cb->facts_len);
    *len = n;
    return z;
}

bool db_is_facts(const void *z, size_t zlen)
{
    return z != NULL && zlen >= FACTS_TAG_LEN &&
           memcmp(z, facts_tag, FACTS_TAG_LEN) == 0;
}

unsigned char *db_facts_unwrap(const void *z, size_t zlen, size_t *len)
{
    const unsigned char *v = z;
    unsigned char check[CHECK_BYTES], *facts;
    size_t n;

    if (!db_is_facts(z, zlen) || zlen <= FACTS_TAG_LEN + CHECK_BYTES)
        return NULL;
    n = zlen - FACTS_TAG_LEN - CHECK_BYTES;
    check_of(v + FACTS_TAG_LEN, n, check);
    if (memcmp(check, v + FACTS_TAG_LEN + n, CHECK_BYTES) != 0 ||
        (facts = malloc(n)) == NULL)
        return NULL;
    memcpy(facts, v + FACTS_TAG_LEN, n);
    *len = n;
    return facts;
}
