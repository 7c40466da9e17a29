/*
 * combat_pack.c: a combat packed to store, before the writer (db.h,
 * db_combat_pack): its report, and its roll log in one value rather than
 * a row per roll; and a packed roll log read back (db_rolls_unpack), for
 * log.c's and ledger.c's reads.  No SQL.
 */
#include "db_sql.h"
#include "rng.h"

#include <sodium.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- a combat's roll log packed ----
 *
 * The text of a roll log (the layout every reader reads, db_rolls_text's,
 * and stored so before migration 21): each roll's seq, faces, natural
 * and modified, 5 bytes each (7 bits a byte, the top bit set), then its
 * side, unit id, unit name, reason, source and rng, each its length plus
 * 1 in one byte and its bytes (no field is longer than 254); a campaign
 * combat's (chained at ledger_first, ledger_first + 1, ...: a row of
 * combat_rolls from migration 15, its own row's from 22) then its previous hash
 * (the first roll's; empty after, where it is the hash of the roll before) and
 * its hash, the same way.  The whole packed as text (it holds no NUL): a
 * one-off's by db_doc_pack, a campaign combat's by a bare frame (so stored
 * before the layout below).
 *
 * A campaign combat's is now stored with its hashes beside the frame
 * rather than in it (db_rolls_text reads either): ROLLS_TAG, the number
 * of hashes k (4 bytes, least significant first), the k hashes as their
 * 32 bytes each (the first roll's previous hash, then each roll's hash),
 * then the frame of the text without them.  A hash's 64 hex digits,
 * which no roll repeats, are most of the text and pack to about half:
 * zstd spent about two thirds of its work on a combat's rolls coding
 * them, for the size they take as bytes.  That frame is now packed with
 * the documents' dictionary (db_doc_pack), which knows a roll log's
 * words: about a third less work than a bare frame (still read:
 * db_doc_text reads either), for 40 bytes more a combat.
 *
 * A campaign combat's is now (ROLLS_TAG_V2) stored without zstd: the tag,
 * k and the k hashes as before, then each roll in a compact layout of its
 * own (put_compact, pack_rolls): seq, faces, natural and modified as zigzag
 * varints, then its six strings, each a varint h: 0, the previous roll's same
 * string (a combat's rolls repeat their side, reason, source and rng);
 * 1, a unit id as db_new_id makes them ("unit_" and 24 hex digits)
 * written as its 12 bytes; else h - 2 bytes of text.  Then a checksum
 * of the rolls (check_of), which a damaged value fails, as a frame's
 * did.  zstd's fixed work for a frame (its context, its entropy tables)
 * was most of the work of packing a few hundred bytes; this takes about
 * a tenth of it (some 30k instructions less for a 4 v 4 campaign combat,
 * under callgrind), its value smaller (a unit id in 13 bytes), and reads
 * back without a frame to unpack.  It reads as the text of the layout
 * before (compact_bare), so every reader is the same.
 *
 * A one-off's was packed in one frame with its report, after it: the
 * report's value holds the report, RS (DB_AFTER_REPORT), then the text,
 * and its rolls one byte, RS, which says so (log.c's rolls_of reads
 * them, or db_combat_rolls from the report already read).  It is now
 * (ROLLS_TAG_COMPACT) in its rolls' value in the compact layout: the tag,
 * the number of rolls (4 bytes, least significant first), the rolls, their
 * checksum.
 * In the report's frame, zstd's work on a roll log's few hundred bytes
 * was about 25k instructions for an 8 v 4 one-off; so, a few thousand.
 * Values written before (a frame of their own, or after the report) read
 * as they are. */
enum { ROLLS_TAG_LEN = 4, HASH_BYTES = 32 };
/* A roll of the text: ROLL_INTS integers of INT_BYTES each, then
 * ROLL_STRS strings (compact_bare writes it). */
enum { ROLL_INTS = 4, INT_BYTES = 5, ROLL_STRS = 6 };
static const unsigned char rolls_tag[ROLLS_TAG_LEN] = {0x1b, 'r', 'h', '1'};
static const unsigned char rolls_tag_v2[ROLLS_TAG_LEN] = {0x1b, 'r', 'h', '2'};
static const unsigned char rolls_tag_compact[ROLLS_TAG_LEN] = {0x1b, 'r', 'c',
                                                               '1'};
/* A unit id in the compact layout: its prefix, then its 12 bytes as 24
 * lower-case hex digits.  A varint of the layout takes at most
 * VARINT_MAX bytes (a 32-bit integer's zigzag).  The value ends with
 * CHECK_BYTES of a checksum of all before it (check_of). */
enum {
    UNIT_PREFIX_LEN = 5,
    UNIT_ID_BYTES = 12,
    VARINT_MAX = 5,
    CHECK_BYTES = DB_CHECK_BYTES
};
static const char unit_prefix[] = "unit_";

/* The checksum of the rolls of a value in the compact layout (their n
 * bytes, after the tag, count and hashes) into out: the first
 * CHECK_BYTES of SipHash-2-4 with a fixed key (libsodium's
 * crypto_shorthash), a check against damage, not a secret, as zstd's
 * frame checked its content.  The hashes are left out: the ledger's chain
 * checks each, and tells which entry one altered breaks. */
static void check_of(const unsigned char *value, size_t n,
                     unsigned char out[CHECK_BYTES])
{
    static const unsigned char key[crypto_shorthash_KEYBYTES] =
        "umpire rolls v1";

    db_value_check(key, value, n, out);
}

void db_value_check(const unsigned char *key, const void *value, size_t n,
                    unsigned char out[DB_CHECK_BYTES])
{
    unsigned char h[crypto_shorthash_BYTES];

    crypto_shorthash(h, value, n, key);
    memcpy(out, h, DB_CHECK_BYTES);
}

/* Writes v at p: INT_BYTES bytes of 7 bits each, top bit set (no NUL,
 * any int). */
static unsigned char *put_u32(unsigned char *p, long long v)
{
    unsigned long u = (unsigned long)(v + 0x80000000LL);
    int i;

    for (i = 0; i < INT_BYTES; i++)
        *p++ = (unsigned char)(0x80 | ((u >> (7 * i)) & 0x7f));
    return p;
}

/* Whether h is a hash as the ledger writes them: 64 lower-case hex
 * digits (stored as their 32 bytes, and read back the same). */
static bool is_hash(const char *h)
{
    return db_is_lower_hex(h, LEDGER_HASH_HEX - 1) &&
           h[LEDGER_HASH_HEX - 1] == '\0';
}

/* Whether the n rolls are chained one after the other (a campaign
 * combat's, db_combat_chain): their ledger places ledger_first, + 1, ...,
 * the previous hash of each after the first the hash before it, and every
 * hash the ledger's (is_hash). */
static bool is_chained_run(const db_roll *rolls, size_t n)
{
    size_t i;

    if (n == 0 || rolls[0].ledger_pos <= 0 || !is_hash(rolls[0].prev_hash))
        return false;
    for (i = 0; i < n; i++)
        if (rolls[i].ledger_pos != rolls[0].ledger_pos + (long long)i ||
            (i > 0 && strcmp(rolls[i].prev_hash, rolls[i - 1].hash) != 0) ||
            !is_hash(rolls[i].hash))
            return false;
    return true;
}

/* Whether s is a unit id as db_new_id makes them, its 24 digits
 * lower-case hex. */
static bool is_unit_id(const char *s)
{
    return strncmp(s, unit_prefix, UNIT_PREFIX_LEN) == 0 &&
           db_is_lower_hex(s + UNIT_PREFIX_LEN, 2 * UNIT_ID_BYTES);
}

/* Writes s (of at most max bytes; prev the previous roll's, or NULL) at
 * p, as put_compact says. */
static unsigned char *put_compact_str(unsigned char *p, const char *s,
                                      const char *prev, size_t max)
{
    size_t n = strnlen(s, max);

    if (prev != NULL && strncmp(s, prev, max) == 0) {
        *p++ = 0;
    } else if (max > UNIT_PREFIX_LEN + 2 * UNIT_ID_BYTES &&
               n == UNIT_PREFIX_LEN + 2 * UNIT_ID_BYTES && is_unit_id(s)) {
        *p++ = 1;
        (void)rng_unhex(s + UNIT_PREFIX_LEN, p, UNIT_ID_BYTES);
        p += UNIT_ID_BYTES;
    } else {
        p = db_put_varint(p, n + 2);
        memcpy(p, s, n);
        p += n;
    }
    return p;
}

/* The most bytes a roll takes in the compact layout: an integer's varint
 * takes at most 5 (a 32-bit zigzag), a string's header at most 2 (a
 * length of 254 at most), a unit id fewer than its text. */
static size_t compact_size(const db_roll *r)
{
    return ROLL_INTS * 5 + ROLL_STRS * 2 +
           strnlen(r->side_name, sizeof r->side_name) +
           strnlen(r->unit_id, sizeof r->unit_id) +
           strnlen(r->unit_name, sizeof r->unit_name) +
           strnlen(r->reason, sizeof r->reason) +
           strnlen(r->source, sizeof r->source) +
           strnlen(r->rng, sizeof r->rng);
}

/* Writes roll r (prev the roll before it, or NULL) at p in the compact
 * layout, without its hashes. */
static unsigned char *put_compact(unsigned char *p, const db_roll *r,
                                  const db_roll *prev)
{
    p = db_put_varint(p, db_zigzag(r->seq));
    p = db_put_varint(p, db_zigzag(r->faces));
    p = db_put_varint(p, db_zigzag(r->natural));
    p = db_put_varint(p, db_zigzag(r->modified));
    p = put_compact_str(p, r->side_name, prev ? prev->side_name : NULL,
                        sizeof r->side_name);
    p = put_compact_str(p, r->unit_id, prev ? prev->unit_id : NULL,
                        sizeof r->unit_id);
    p = put_compact_str(p, r->unit_name, prev ? prev->unit_name : NULL,
                        sizeof r->unit_name);
    p = put_compact_str(p, r->reason, prev ? prev->reason : NULL,
                        sizeof r->reason);
    p = put_compact_str(p, r->source, prev ? prev->source : NULL,
                        sizeof r->source);
    return put_compact_str(p, r->rng, prev ? prev->rng : NULL, sizeof r->rng);
}

/* The n rolls' value in the compact layout: new, *len its size; NULL
 * when out of memory.  Chained (is_chained: a campaign combat's):
 * ROLLS_TAG_V2, their n + 1 hashes counted then each of 32 bytes (the
 * first roll's previous hash, then each roll's), the rolls.  A one-off's:
 * ROLLS_TAG_COMPACT, n, the rolls. */
static unsigned char *pack_rolls(const db_roll *rolls, size_t n,
                                 bool is_chained, size_t *len)
{
    size_t count = is_chained ? n + 1 : n,
           head = ROLLS_TAG_LEN + 4 + (is_chained ? count * HASH_BYTES : 0),
           size = head + CHECK_BYTES, i;
    unsigned char *out, *h, *p;

    for (i = 0; i < n; i++)
        size += compact_size(&rolls[i]);
    if ((out = malloc(size)) == NULL)
        return NULL;
    memcpy(out, is_chained ? rolls_tag_v2 : rolls_tag_compact, ROLLS_TAG_LEN);
    for (i = 0; i < 4; i++)
        out[ROLLS_TAG_LEN + i] = (unsigned char)(count >> (8 * i));
    h = out + ROLLS_TAG_LEN + 4;
    /* Hex already checked (is_chained_run). */
    if (is_chained)
        (void)rng_unhex(rolls[0].prev_hash, h, HASH_BYTES);
    for (i = 0; is_chained && i < n; i++)
        (void)rng_unhex(rolls[i].hash, h + (i + 1) * HASH_BYTES, HASH_BYTES);
    p = out + head;
    for (i = 0; i < n; i++)
        p = put_compact(p, &rolls[i], i > 0 ? &rolls[i - 1] : NULL);
    check_of(out + head, (size_t)(p - out) - head, p);
    *len = (size_t)(p - out) + CHECK_BYTES;
    return out;
}

/* ---- what is packed after a combat's report (db_sql.h) ---- */

/* text packed as cb's report is: a campaign's (a combat's, or a battle's
 * record) smaller, since the campaign keeps it (and its database grows by
 * it) for its whole life; a one-off's with the least work
 * (db_doc_pack_quick).  New, or NULL. */
static unsigned char *pack_report(const db_combat *cb, const char *text,
                                  size_t *len)
{
    return cb->campaign_id[0] != '\0' ? db_doc_pack_small(text, len)
                                      : db_doc_pack_quick(text, len);
}

bool db_pack_after_report(const db_combat *cb, const char *text,
                          unsigned char **z, size_t *zlen,
                          unsigned char **marker)
{
    size_t len = strlen(cb->report), n = strlen(text);
    char *both = malloc(len + 1 + n + 1);
    unsigned char *m = malloc(1);

    *z = NULL;
    if (both != NULL && m != NULL) {
        memcpy(both, cb->report, len);
        both[len] = DB_AFTER_REPORT;
        memcpy(both + len + 1, text, n + 1);
        *z = pack_report(cb, both, zlen);
    }
    free(both);
    if (*z == NULL) {
        free(m);
        return false;
    }
    m[0] = DB_AFTER_REPORT;
    *marker = m;
    return true;
}

bool db_is_after_report(const void *value, size_t len)
{
    return value != NULL && len == 1 &&
           *(const unsigned char *)value == DB_AFTER_REPORT;
}

char *db_after_report(const char *report)
{
    const char *rs = report ? strchr(report, DB_AFTER_REPORT) : NULL;

    return rs ? strdup(rs + 1) : NULL;
}

const char *db_report_end(char *report)
{
    char *rs = report ? strchr(report, DB_AFTER_REPORT) : NULL;

    if (rs == NULL)
        return NULL;
    *rs = '\0';
    return rs + 1;
}

err_code db_combat_pack(db_combat *cb, const db_roll *rolls, size_t n,
                        err_info *e)
{
    bool is_chained;

    free(cb->rolls_z);
    cb->rolls_z = NULL;
    /* The facts in the report's place where there are (facts.c), else
     * the report packed (pack_report), unless it is already with its
     * events' documents (kept). */
    if (!db_combat_docs_in_report(cb)) {
        free(cb->report_z);
        cb->report_z = NULL;
        if (cb->facts != NULL)
            cb->report_z = db_facts_wrap(cb, &cb->report_z_len);
        else if (cb->report != NULL)
            cb->report_z = pack_report(cb, cb->report, &cb->report_z_len);
        if (cb->report_z == NULL && (cb->facts != NULL || cb->report != NULL))
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    cb->ledger_first = 0;
    is_chained = cb->campaign_id[0] != '\0' && is_chained_run(rolls, n);
    /* A campaign's rolls not chained (a battle's record's: its dice are
     * its actions) stay rows. */
    if (n == 0 || (cb->campaign_id[0] != '\0' && !is_chained))
        return ERR_OK;
    /* A campaign's with its hashes, a one-off's alone (pack_rolls). */
    cb->rolls_z = pack_rolls(rolls, n, is_chained, &cb->rolls_z_len);
    if (cb->rolls_z == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (is_chained)
        cb->ledger_first = rolls[0].ledger_pos;
    return ERR_OK;
}

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
        memcpy(s, unit_prefix, UNIT_PREFIX_LEN);
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

/* The text of the rolls of a value in the compact layout, as
 * db_rolls_text gives it: the rolls rolls from p to end, and chained
 * ones' k hashes from hashes (NULL: a one-off's, without).  New, or
 * NULL. */
static char *compact_text(const unsigned char *hashes, size_t k,
                          const unsigned char *p, const unsigned char *end,
                          size_t rolls)
{
    unsigned char *bare;
    char *text;
    size_t len;

    /* each roll takes at least a byte for each of its fields */
    if (rolls > (size_t)(end - p) / (ROLL_INTS + ROLL_STRS) ||
        !compact_bare(p, end, rolls, NULL, &len) ||
        (bare = malloc(len + 1)) == NULL)
        return NULL;
    (void)compact_bare(p, end, rolls, bare, &len);
    if (hashes == NULL)
        return (char *)bare;
    text = with_hashes((const char *)bare, hashes, k);
    free(bare);
    return text;
}

/* The text of a value in the compact layout (its zlen bytes at z, its
 * tag read: chained rolls' or a one-off's), as db_rolls_text gives it;
 * NULL when it does not read: its checksum not that of its bytes, a count
 * that cannot be (none; for chained rolls fewer than 2 hashes, or more
 * than the value holds), its rolls not read whole. */
static char *compact_value_text(const unsigned char *z, size_t zlen,
                                bool is_chained)
{
    size_t count, head = ROLLS_TAG_LEN + 4;
    unsigned char check[CHECK_BYTES];
    const unsigned char *end;

    if (zlen < head + CHECK_BYTES)
        return NULL;
    end = z + zlen - CHECK_BYTES;
    count = count_at(z + ROLLS_TAG_LEN);
    if (count == 0 ||
        (is_chained &&
         (count < 2 || count > (size_t)(end - z - head) / HASH_BYTES)))
        return NULL;
    if (is_chained)
        head += count * HASH_BYTES;
    check_of(z + head, (size_t)(end - z) - head, check);
    if (memcmp(check, end, CHECK_BYTES) != 0)
        return NULL;
    if (!is_chained)
        return compact_text(NULL, 0, z + head, end, count);
    return compact_text(z + ROLLS_TAG_LEN + 4, count, z + head, end, count - 1);
}

char *db_rolls_text(const void *value, size_t zlen)
{
    const unsigned char *z = value;
    bool is_tagged = zlen >= ROLLS_TAG_LEN + 4;
    size_t k, head;
    char *bare, *text;

    if (is_tagged && memcmp(z, rolls_tag_v2, ROLLS_TAG_LEN) == 0)
        return compact_value_text(z, zlen, true);
    if (is_tagged && memcmp(z, rolls_tag_compact, ROLLS_TAG_LEN) == 0)
        return compact_value_text(z, zlen, false);
    if (!is_tagged || memcmp(z, rolls_tag, ROLLS_TAG_LEN) != 0)
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
    const unsigned char *z = value, *end;
    bool is_tagged = zlen >= ROLLS_TAG_LEN + 4,
         is_chained = is_tagged && memcmp(z, rolls_tag_v2, ROLLS_TAG_LEN) == 0,
         is_one_off =
             is_tagged && memcmp(z, rolls_tag_compact, ROLLS_TAG_LEN) == 0;
    size_t count, rolls, head = ROLLS_TAG_LEN + 4;
    unsigned char check[CHECK_BYTES];
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
    /* compact_value_text's checks, then compact_text's */
    if (zlen < head + CHECK_BYTES)
        return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
    end = z + zlen - CHECK_BYTES;
    count = count_at(z + ROLLS_TAG_LEN);
    if (count == 0 ||
        (is_chained &&
         (count < 2 || count > (size_t)(end - z - head) / HASH_BYTES)))
        return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
    if (is_chained)
        head += count * HASH_BYTES;
    check_of(z + head, (size_t)(end - z) - head, check);
    rolls = is_chained ? count - 1 : count;
    if (memcmp(check, end, CHECK_BYTES) != 0 ||
        rolls > (size_t)(end - z - head) / (ROLL_INTS + ROLL_STRS))
        return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
    if ((r = calloc(rolls, sizeof *r)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (!compact_rolls(z + head, end, rolls,
                       is_chained ? z + ROLLS_TAG_LEN + 4 : NULL, ledger_first,
                       unit_id, r)) {
        free(r);
        return err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
    }
    *out = r;
    *n = rolls;
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
