/*
 * combat_unpack.c: a packed roll log read back (db_rolls_text,
 * db_rolls_unpack, db_rolls_read), for log.c's and ledger.c's reads:
 * every layout combat_pack.c packs and has packed (combat_pack.h).  No
 * SQL.
 */
#include "combat_pack.h"
#include "rng.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The next integer of a packed roll log at *p (before end); false when
 * it is cut short. */
static bool get_u32(const unsigned char **p, const unsigned char *end, int *out)
{
    unsigned long u = 0;
    int i;

    if (end - *p < INT_BYTES)
        return false;
    for (i = 0; i < INT_BYTES; i++)
        u |= (unsigned long)((*p)[i] & 0x7f) << (7 * i);
    *p += INT_BYTES;
    *out = (int)((long long)u - 0x80000000LL);
    return true;
}

static bool get_str(const unsigned char **p, const unsigned char *end,
                    char *out, size_t max)
{
    size_t n;

    if (end - *p < 1 || (*p)[0] == 0)
        return false;
    n = (size_t)(*p)[0] - 1;
    if ((size_t)(end - *p - 1) < n || n >= max)
        return false;
    memcpy(out, *p + 1, n);
    out[n] = '\0';
    *p += 1 + n;
    return true;
}

/* The text of chained rolls stored with their k hashes beside it (bare:
 * the rolls without them) as db_rolls_unpack reads it: each roll then
 * its previous hash (the first's, empty after) and its hash.  New, or
 * NULL when out of memory, or when the rolls are cut short or are not
 * k - 1. */
static char *with_hashes(const char *bare, const unsigned char *hashes,
                         size_t k)
{
    size_t len = strlen(bare), n = 0, f;
    const unsigned char *p = (const unsigned char *)bare, *end = p + len;
    unsigned char *text, *q;

    if ((q = text = malloc(len + k * (2 + 2 * HASH_BYTES) + 1)) == NULL)
        return NULL;
    while (p < end) {
        const unsigned char *start = p;
        /* its numbers, then its strings */
        bool is_whole = n + 1 < k && end - p >= ROLL_INTS * INT_BYTES;
        if (is_whole)
            p += ROLL_INTS * INT_BYTES;
        for (f = 0; is_whole && f < ROLL_STRS; f++) {
            is_whole = end > p && p[0] != 0 && (size_t)(end - p) >= p[0];
            if (is_whole)
                p += p[0];
        }
        if (!is_whole) {
            free(text);
            return NULL;
        }
        memcpy(q, start, (size_t)(p - start));
        q += p - start;
        if (n == 0) {
            *q++ = 2 * HASH_BYTES + 1;
            rng_hex(hashes, HASH_BYTES, (char *)q); /* its NUL overwritten */
            q += 2 * HASH_BYTES;
        } else
            *q++ = 1;
        *q++ = 2 * HASH_BYTES + 1;
        rng_hex(hashes + (n + 1) * HASH_BYTES, HASH_BYTES, (char *)q);
        q += 2 * HASH_BYTES;
        n++;
    }
    *q = '\0';
    if (n + 1 != k) {
        free(text);
        return NULL;
    }
    return (char *)text;
}

/* An integer of the compact layout at *p (a zigzag varint) into *out;
 * false when it does not read or is not a 32-bit integer. */
static bool get_compact_int(const unsigned char **p, const unsigned char *end,
                            int *out)
{
    unsigned long long v;
    long long x;

    if (!db_get_varint(p, end, VARINT_MAX, &v))
        return false;
    x = db_unzigzag(v);
    if ((v >> 1) > (unsigned long long)INT32_MAX + 1 || x < INT32_MIN ||
        x > INT32_MAX)
        return false;
    *out = (int)x;
    return true;
}

/* A string of the compact layout at *p (put_compact_str) into s, of
 * room bytes (its length *n; prev and *prev_n the previous roll's, NULL
 * for the first roll); false when it does not read, or does not fit in
 * room with a NUL after it (a unit id's digits take one). */
static bool get_compact_str(const unsigned char **p, const unsigned char *end,
                            char *s, size_t room, size_t *n, const char *prev,
                            size_t prev_n)
{
    unsigned long long h;

    if (!db_get_varint(p, end, VARINT_MAX, &h))
        return false;
    if (h == 0) {
        if (prev == NULL || prev_n >= room)
            return false;
        memcpy(s, prev, prev_n);
        *n = prev_n;
    } else if (h == 1) {
        if (end - *p < UNIT_ID_BYTES ||
            UNIT_PREFIX_LEN + 2 * UNIT_ID_BYTES >= room)
            return false;
        memcpy(s, UNIT_PREFIX, UNIT_PREFIX_LEN);
        rng_hex(*p, UNIT_ID_BYTES, s + UNIT_PREFIX_LEN); /* 24 digits, NUL */
        *p += UNIT_ID_BYTES;
        *n = UNIT_PREFIX_LEN + 2 * UNIT_ID_BYTES;
    } else {
        if (h - 2 >= room || h - 2 >= UINT8_MAX ||
            (unsigned long long)(end - *p) < h - 2)
            return false;
        *n = (size_t)(h - 2);
        memcpy(s, *p, *n);
        *p += *n;
    }
    return true;
}

/* The rolls of the compact layout from p to end, as the text the layout
 * before packed (put_roll, without hashes), into out, which takes *len
 * bytes and a NUL (out NULL: only *len).  False when they do not read:
 * cut short, something after them, not rolls rolls, an integer out of
 * range, a string the text cannot hold (a NUL in it, or too long). */
static bool compact_bare(const unsigned char *p, const unsigned char *end,
                         size_t rolls, unsigned char *out, size_t *len)
{
    char strs[2][ROLL_STRS][UINT8_MAX];
    size_t lens[2][ROLL_STRS], i, f, k;

    *len = 0;
    for (k = 0; k < rolls; k++) {
        /* this roll's strings, and the roll before's */
        char(*cur)[UINT8_MAX] = strs[k % 2];
        char(*prev)[UINT8_MAX] = strs[(k + 1) % 2];
        for (i = 0; i < ROLL_INTS; i++) {
            int x;
            if (!get_compact_int(&p, end, &x))
                return false;
            if (out != NULL)
                out = put_u32(out, x);
        }
        *len += ROLL_INTS * INT_BYTES;
        for (f = 0; f < ROLL_STRS; f++) {
            size_t *n = &lens[k % 2][f];
            if (!get_compact_str(&p, end, cur[f], UINT8_MAX, n,
                                 k > 0 ? prev[f] : NULL,
                                 lens[(k + 1) % 2][f]) ||
                memchr(cur[f], '\0', *n) != NULL)
                return false;
            if (out != NULL) {
                *out++ = (unsigned char)(*n + 1);
                memcpy(out, cur[f], *n);
                out += *n;
            }
            *len += 1 + *n;
        }
    }
    if (out != NULL)
        *out = '\0';
    return p == end;
}

/* The count of 4 bytes at p, least significant first. */
static size_t count_at(const unsigned char *p)
{
    return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 |
           (size_t)p[3] << 24;
}

/* A value in the compact layout, its head read (compact_open): its
 * rolls from p to end (their checksum after end), rolls of them, and a
 * chained one's k = rolls + 1 hashes (NULL and 0: a one-off's). */
typedef struct compact_value {
    const unsigned char *hashes, *p, *end;
    size_t k, rolls;
} compact_value;

/* The value of zlen bytes at z in the compact layout (its tag read:
 * chained rolls' or a one-off's) into *v; false when it does not read:
 * its checksum not that of its bytes, a count that cannot be (none; for
 * chained rolls fewer than 2 hashes, or more than the value holds), more
 * rolls than its bytes can hold (each takes a byte a field at least). */
static bool compact_open(const unsigned char *z, size_t zlen, bool is_chained,
                         compact_value *v)
{
    size_t count, head = ROLLS_TAG_LEN + 4;
    unsigned char check[CHECK_BYTES];

    if (zlen < head + CHECK_BYTES)
        return false;
    v->end = z + zlen - CHECK_BYTES;
    count = count_at(z + ROLLS_TAG_LEN);
    if (count == 0 ||
        (is_chained &&
         (count < 2 || count > (size_t)(v->end - z - head) / HASH_BYTES)))
        return false;
    if (is_chained)
        head += count * HASH_BYTES;
    check_of(z + head, (size_t)(v->end - z) - head, check);
    v->p = z + head;
    v->hashes = is_chained ? z + ROLLS_TAG_LEN + 4 : NULL;
    v->k = is_chained ? count : 0;
    v->rolls = is_chained ? count - 1 : count;
    return memcmp(check, v->end, CHECK_BYTES) == 0 &&
           v->rolls <= (size_t)(v->end - v->p) / (ROLL_INTS + ROLL_STRS);
}

/* The text of a value in the compact layout (its zlen bytes at z, its
 * tag read: chained rolls' or a one-off's), as db_rolls_text gives it;
 * NULL when it does not read (compact_open), its rolls not read whole,
 * or out of memory. */
static char *compact_value_text(const unsigned char *z, size_t zlen,
                                bool is_chained)
{
    compact_value v;
    unsigned char *bare;
    char *text;
    size_t len;

    if (!compact_open(z, zlen, is_chained, &v) ||
        !compact_bare(v.p, v.end, v.rolls, NULL, &len) ||
        (bare = malloc(len + 1)) == NULL)
        return NULL;
    (void)compact_bare(v.p, v.end, v.rolls, bare, &len);
    if (v.hashes == NULL)
        return (char *)bare;
    text = with_hashes((const char *)bare, v.hashes, v.k);
    free(bare);
    return text;
}

char *db_rolls_text(const void *value, size_t zlen)
{
    const unsigned char *z = value;
    bool is_tagged = zlen >= ROLLS_TAG_LEN + 4;
    size_t k, head;
    char *bare, *text;

    if (is_tagged && memcmp(z, ROLLS_TAG_V2, ROLLS_TAG_LEN) == 0)
        return compact_value_text(z, zlen, true);
    if (is_tagged && memcmp(z, ROLLS_TAG_COMPACT, ROLLS_TAG_LEN) == 0)
        return compact_value_text(z, zlen, false);
    if (!is_tagged || memcmp(z, ROLLS_TAG, ROLLS_TAG_LEN) != 0)
        return db_doc_text(z, zlen);
    k = count_at(z + ROLLS_TAG_LEN);
    if (k < 2 || k > (zlen - ROLLS_TAG_LEN - 4) / HASH_BYTES)
        return NULL;
    head = ROLLS_TAG_LEN + 4 + k * HASH_BYTES;
    if ((bare = db_doc_text(z + head, zlen - head)) == NULL)
        return NULL;
    text = with_hashes(bare, z + ROLLS_TAG_LEN + 4, k);
    free(bare);
    return text;
}

err_code db_rolls_unpack(const char *text, long long ledger_first,
                         db_roll **out, size_t *n, err_info *e)
{
    const unsigned char *p = (const unsigned char *)text,
                        *end = p + strlen(text);
    db_roll *rolls = NULL;
    size_t cap = 0, k = 0;

    while (p < end) {
        db_roll *r;
        if (k == cap) {
            db_roll *more;
            cap = cap ? cap * 2 : 16;
            if ((more = realloc(rolls, cap * sizeof *more)) == NULL) {
                free(rolls);
                return err_set(e, ERR_NOMEM, NULL, "out of memory");
            }
            rolls = more;
        }
        r = &rolls[k++];
        memset(r, 0, sizeof *r);
        if (!get_u32(&p, end, &r->seq) || !get_u32(&p, end, &r->faces) ||
            !get_u32(&p, end, &r->natural) || !get_u32(&p, end, &r->modified) ||
            !get_str(&p, end, r->side_name, sizeof r->side_name) ||
            !get_str(&p, end, r->unit_id, sizeof r->unit_id) ||
            !get_str(&p, end, r->unit_name, sizeof r->unit_name) ||
            !get_str(&p, end, r->reason, sizeof r->reason) ||
            !get_str(&p, end, r->source, sizeof r->source) ||
            !get_str(&p, end, r->rng, sizeof r->rng) ||
            (ledger_first > 0 &&
             (!get_str(&p, end, r->prev_hash, sizeof r->prev_hash) ||
              !get_str(&p, end, r->hash, sizeof r->hash)))) {
            free(rolls);
            return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
        }
        if (ledger_first > 0) {
            r->ledger_pos = ledger_first + (long long)(k - 1);
            if (k > 1) /* the hash of the roll before */
                memcpy(r->prev_hash, rolls[k - 2].hash, sizeof r->prev_hash);
        }
    }
    *out = rolls;
    *n = k;
    return ERR_OK;
}

/* ---- a packed roll log read straight into its rolls ----
 *
 * A history page reads each event's rolls, the ledger's verify and export
 * every roll of the campaign: the compact layouts are read into their
 * rolls at once, without the text of the layout before (compact_bare,
 * with_hashes) only to read it again (db_rolls_unpack).  What they read
 * is what db_rolls_unpack reads of that text, field for field, and what
 * does not read so does not read here (test_ledger compares the two). */

/* The rolls of the compact layout from p to end (count of them) into out
 * (zeroed), as db_rolls_unpack reads compact_text's text of them: the
 * same checks (compact_bare's, and each string fitting its field);
 * hashes (a campaign combat's count + 1: the first roll's previous hash,
 * then each roll's hash) chained at ledger_first, or NULL (a one-off's,
 * without).  Where unit_id is not NULL, only its rolls' hashes are
 * written out (each roll's from the hashes alone: its previous is the
 * roll before's), the caller keeping those rolls alone. */
static bool compact_rolls(const unsigned char *p, const unsigned char *end,
                          size_t count, const unsigned char *hashes,
                          long long ledger_first, const char *unit_id,
                          db_roll *out)
{
    size_t k, f;

    for (k = 0; k < count; k++) {
        db_roll *r = &out[k];
        const db_roll *b = k > 0 ? &out[k - 1] : NULL;
        struct {
            char *s;
            size_t room;
            const char *prev;
        } strs[ROLL_STRS] = {
            {r->side_name, sizeof r->side_name, b ? b->side_name : NULL},
            {r->unit_id, sizeof r->unit_id, b ? b->unit_id : NULL},
            {r->unit_name, sizeof r->unit_name, b ? b->unit_name : NULL},
            {r->reason, sizeof r->reason, b ? b->reason : NULL},
            {r->source, sizeof r->source, b ? b->source : NULL},
            {r->rng, sizeof r->rng, b ? b->rng : NULL}};

        if (!get_compact_int(&p, end, &r->seq) ||
            !get_compact_int(&p, end, &r->faces) ||
            !get_compact_int(&p, end, &r->natural) ||
            !get_compact_int(&p, end, &r->modified))
            return false;
        for (f = 0; f < ROLL_STRS; f++) {
            size_t n;
            if (!get_compact_str(&p, end, strs[f].s, strs[f].room, &n,
                                 strs[f].prev,
                                 strs[f].prev ? strlen(strs[f].prev) : 0) ||
                memchr(strs[f].s, '\0', n) != NULL)
                return false;
            strs[f].s[n] = '\0';
        }
        if (hashes != NULL) {
            r->ledger_pos = ledger_first + (long long)k;
            if (unit_id != NULL && strcmp(r->unit_id, unit_id) != 0)
                continue;
            /* the first roll's previous hash, then the hash of the roll
             * before (hashes[k]), and its own */
            rng_hex(hashes + k * HASH_BYTES, HASH_BYTES, r->prev_hash);
            rng_hex(hashes + (k + 1) * HASH_BYTES, HASH_BYTES, r->hash);
        }
    }
    return p == end;
}

/* db_rolls_read, unit_id as compact_rolls takes it. */
static err_code rolls_read(const void *value, size_t zlen,
                           long long ledger_first, const char *unit_id,
                           db_roll **out, size_t *n, err_info *e)
{
    const unsigned char *z = value;
    bool is_tagged = zlen >= ROLLS_TAG_LEN + 4,
         is_chained = is_tagged && memcmp(z, ROLLS_TAG_V2, ROLLS_TAG_LEN) == 0,
         is_one_off =
             is_tagged && memcmp(z, ROLLS_TAG_COMPACT, ROLLS_TAG_LEN) == 0;
    compact_value v;
    db_roll *r;
    char *text;
    err_code rc;

    *out = NULL;
    *n = 0;
    /* Any other layout, or a compact one read as the other kind (which
     * the text does not read either), through its text. */
    if (!(is_chained && ledger_first > 0) &&
        !(is_one_off && ledger_first <= 0)) {
        if ((text = db_rolls_text(value, zlen)) == NULL)
            return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
        rc = db_rolls_unpack(text, ledger_first, out, n, e);
        free(text);
        return rc;
    }
    if (!compact_open(z, zlen, is_chained, &v))
        return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
    if ((r = calloc(v.rolls, sizeof *r)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (!compact_rolls(v.p, v.end, v.rolls, v.hashes, ledger_first, unit_id,
                       r)) {
        free(r);
        return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
    }
    *out = r;
    *n = v.rolls;
    return ERR_OK;
}

err_code db_rolls_read(const void *value, size_t zlen, long long ledger_first,
                       db_roll **out, size_t *n, err_info *e)
{
    return rolls_read(value, zlen, ledger_first, NULL, out, n, e);
}

err_code db_column_rolls_read(db_stmt *st, int col, long long ledger_first,
                              const char *unit_id, db_roll **out, size_t *n,
                              err_info *e)
{
    const void *z;
    char *text;
    err_code rc;

    *out = NULL;
    *n = 0;
    if (db_column_type(st, col) == DB_BLOB) {
        if ((z = db_column_blob(st, col)) == NULL) /* none, or no memory */
            return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
        return rolls_read(z, (size_t)db_column_bytes(st, col), ledger_first,
                          unit_id, out, n, e);
    }
    if ((text = db_column_dup(st, col)) == NULL)
        return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
    rc = db_rolls_unpack(text, ledger_first, out, n, e);
    free(text);
    return rc;
}
