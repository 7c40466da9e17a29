/*
 * facts.c: a combat's facts (db.h, "a combat's facts"): the integers and
 * strings a system writes them with and reads them back by, and the value
 * they are stored as in the report's column, tagged and checked
 * (db_sql.h: db_facts_wrap, db_facts_unwrap).  No SQL.
 */
#include "db_sql.h"
#include "rng.h"

#include <sodium.h>

#include <stdlib.h>
#include <string.h>

/* The stored value: FACTS_TAG, the facts, then CHECK_BYTES of a checksum
 * of the facts (SipHash-2-4 with a fixed key, libsodium's
 * crypto_shorthash: a check against damage, as the compact roll log's).
 * The tag starts with ESC, which no report's text starts with, nor a zstd
 * frame or another packed value (their tags are ESC and other letters). */
enum { FACTS_TAG_LEN = 4, CHECK_BYTES = DB_CHECK_BYTES };
static const unsigned char facts_tag[FACTS_TAG_LEN] = {0x1b, 'f', 'c', '1'};

/* Integers are zigzagged varints (db_sql.h).  A string is a varint h,
 * then: h = 1, an id as db_new_id makes them (its
 * prefix's length, the prefix, its ID_BYTES: 17 bytes for a unit's 29
 * characters); else h - 2 bytes of text (h = 0 is never written). */
enum { ID_PREFIX_MAX = 8, ID_BYTES = 12 };

static void check_of(const unsigned char *facts, size_t n,
                     unsigned char out[CHECK_BYTES])
{
    static const unsigned char key[crypto_shorthash_KEYBYTES] =
        "umpire facts v1";

    db_value_check(key, facts, n, out);
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

/* v as a varint (db_sql.h). */
static void put_varint(db_facts *f, unsigned long long v)
{
    if (room(f, DB_VARINT_MAX))
        f->len = (size_t)(db_put_varint(f->buf + f->len, v) - f->buf);
}

void db_facts_int(db_facts *f, long long v)
{
    put_varint(f, db_zigzag(v));
}

/* The length of s's prefix where s (n bytes) is an id as db_new_id makes
 * them: 2 to ID_PREFIX_MAX lower-case letters, '_', ID_BYTES as
 * lower-case hex digits; else 0. */
static size_t id_prefix(const char *s, size_t n)
{
    size_t k = 0;

    while (k < n && k <= ID_PREFIX_MAX && s[k] >= 'a' && s[k] <= 'z')
        k++;
    if (k < 2 || k > ID_PREFIX_MAX || n != k + 1 + 2 * ID_BYTES ||
        s[k] != '_' || !db_is_lower_hex(s + k + 1, 2 * ID_BYTES))
        return 0;
    return k;
}

void db_facts_str(db_facts *f, const char *s)
{
    size_t n = s ? strlen(s) : 0, k = n ? id_prefix(s, n) : 0;

    if (k > 0) { /* an id: 1, its prefix's length, prefix, its bytes */
        put_varint(f, 1);
        if (room(f, 1 + k + ID_BYTES)) {
            f->buf[f->len++] = (unsigned char)k;
            memcpy(f->buf + f->len, s, k);
            f->len += k;
            (void)rng_unhex(s + k + 1, f->buf + f->len, ID_BYTES);
            f->len += ID_BYTES;
        }
        return;
    }
    put_varint(f, n + 2); /* else its length + 2, its bytes */
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

/* The next varint (db_sql.h); 0 and r bad when there is none. */
static unsigned long long get_varint(db_facts_reader *r)
{
    unsigned long long v = 0;

    if (r->is_bad || !db_get_varint(&r->p, r->end, DB_VARINT_MAX, &v)) {
        r->is_bad = true;
        return 0;
    }
    return v;
}

int db_facts_get_int(db_facts_reader *r, int min, int max)
{
    unsigned long long u = get_varint(r);
    long long v = db_unzigzag(u);

    if (r->is_bad || v < min || v > max) {
        r->is_bad = true;
        return min;
    }
    return (int)v;
}

void db_facts_get_str(db_facts_reader *r, char *out, size_t size)
{
    unsigned long long h = get_varint(r), n = 0;
    size_t k = 0;

    if (!r->is_bad && h == 1) { /* an id (db_facts_str) */
        k = r->p < r->end ? *r->p++ : 0;
        n = k + 1 + 2 * ID_BYTES;
        if (k < 2 || k > ID_PREFIX_MAX || n >= size ||
            (size_t)(r->end - r->p) < k + ID_BYTES)
            r->is_bad = true;
    } else if (!r->is_bad) {
        n = h >= 2 ? h - 2 : 0;
        if (h < 2 || n >= size || n > (unsigned long long)(r->end - r->p))
            r->is_bad = true;
    }
    if (r->is_bad) {
        out[0] = '\0';
        return;
    }
    if (k > 0) {
        memcpy(out, r->p, k);
        out[k] = '_';
        rng_hex(r->p + k, ID_BYTES, out + k + 1);
        r->p += k + ID_BYTES;
    } else {
        memcpy(out, r->p, (size_t)n);
        r->p += n;
    }
    out[n] = '\0';
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

err_code db_facts_unwrap(const void *z, size_t zlen, unsigned char **facts,
                         size_t *len)
{
    const unsigned char *v = z;
    unsigned char check[CHECK_BYTES];
    size_t n;

    *facts = NULL;
    *len = 0;
    if (!db_is_facts(z, zlen) || zlen <= FACTS_TAG_LEN + CHECK_BYTES)
        return ERR_DB;
    n = zlen - FACTS_TAG_LEN - CHECK_BYTES;
    check_of(v + FACTS_TAG_LEN, n, check);
    if (memcmp(check, v + FACTS_TAG_LEN + n, CHECK_BYTES) != 0)
        return ERR_DB;
    if ((*facts = malloc(n)) == NULL)
        return ERR_NOMEM;
    memcpy(*facts, v + FACTS_TAG_LEN, n);
    *len = n;
    return ERR_OK;
}
