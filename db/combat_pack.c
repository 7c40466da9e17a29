/*
 * combat_pack.c: a combat packed to store, before the writer (db.h,
 * db_combat_pack): its report, and its roll log in one value rather than
 * a row per roll; and a packed roll log read back (db_rolls_unpack), for
 * log.c's and ledger.c's reads.  No SQL.
 */
#include "db_sql.h"
#include "rng.h"

#include <stdlib.h>
#include <string.h>

/* ---- a combat's roll log packed ----
 *
 * Each roll: seq, faces, natural and modified, 5 bytes each (7 bits a
 * byte, the top bit set), then side, unit id, unit name, reason, source
 * and rng, each its length plus 1 in one byte and its bytes (no field is
 * longer than 254); a campaign combat's (chained at ledger_first,
 * ledger_first + 1, ...: a row of combat_rolls, migration 15) then its
 * previous hash (the first roll's; empty after, where it is the hash of
 * the roll before) and its hash, the same way.  The whole packed as text
 * (it holds no NUL): a one-off's by db_doc_pack, a campaign combat's by
 * a bare frame (so stored before the layout below).
 *
 * A campaign combat's is now stored with its hashes beside the frame
 * rather than in it (db_column_rolls reads either): ROLLS_TAG, the number
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
 * A one-off's is packed in one frame with its report, after it: the
 * report's value holds the report, RS (DB_AFTER_REPORT), then the text,
 * and its rolls one byte, RS, which says so (log.c's rolls_of reads
 * them, or db_combat_rolls from the report already read).  A frame of
 * their own cost a frame's fixed work again for a few hundred bytes.
 * Values written before (a frame of their own) read as they are. */
enum { ROLLS_TAG_LEN = 4, HASH_BYTES = 32 };
/* A packed roll: ROLL_INTS integers of INT_BYTES each, then ROLL_STRS
 * strings (put_roll). */
enum { ROLL_INTS = 4, INT_BYTES = 5, ROLL_STRS = 6 };
static const unsigned char rolls_tag[ROLLS_TAG_LEN] = {0x1b, 'r', 'h', '1'};

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

/* Writes s (of at most max bytes) at p: its length plus 1, its bytes. */
static unsigned char *put_str(unsigned char *p, const char *s, size_t max)
{
    size_t n = strnlen(s, max);

    *p++ = (unsigned char)(n + 1);
    memcpy(p, s, n);
    return p + n;
}

/* Whether h is a hash as the ledger writes them: 64 lower-case hex
 * digits (stored as their 32 bytes, and read back the same). */
static bool is_hash(const char *h)
{
    size_t i;

    for (i = 0; i < LEDGER_HASH_HEX - 1; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
            return false;
    return h[i] == '\0';
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

/* The bytes roll r takes packed. */
static size_t packed_size(const db_roll *r)
{
    return ROLL_INTS * INT_BYTES + ROLL_STRS +
           strnlen(r->side_name, sizeof r->side_name) +
           strnlen(r->unit_id, sizeof r->unit_id) +
           strnlen(r->unit_name, sizeof r->unit_name) +
           strnlen(r->reason, sizeof r->reason) +
           strnlen(r->source, sizeof r->source) +
           strnlen(r->rng, sizeof r->rng);
}

/* Writes roll r at p, without its hashes. */
static unsigned char *put_roll(unsigned char *p, const db_roll *r)
{
    p = put_u32(p, r->seq);
    p = put_u32(p, r->faces);
    p = put_u32(p, r->natural);
    p = put_u32(p, r->modified);
    p = put_str(p, r->side_name, sizeof r->side_name);
    p = put_str(p, r->unit_id, sizeof r->unit_id);
    p = put_str(p, r->unit_name, sizeof r->unit_name);
    p = put_str(p, r->reason, sizeof r->reason);
    p = put_str(p, r->source, sizeof r->source);
    return put_str(p, r->rng, sizeof r->rng);
}

/* The chained rolls' value (ROLLS_TAG, the hashes, the frame of text, the
 * rolls without them): new, *len its size; NULL when out of memory. */
static unsigned char *pack_chained(const char *text, const db_roll *rolls,
                                   size_t n, size_t *len)
{
    size_t head = ROLLS_TAG_LEN + 4 + (n + 1) * HASH_BYTES, zlen, i;
    unsigned char *z = db_doc_pack(text, &zlen), *out, *h;

    if (z == NULL || (out = malloc(head + zlen)) == NULL) {
        free(z);
        return NULL;
    }
    memcpy(out, rolls_tag, ROLLS_TAG_LEN);
    for (i = 0; i < 4; i++)
        out[ROLLS_TAG_LEN + i] = (unsigned char)((n + 1) >> (8 * i));
    h = out + ROLLS_TAG_LEN + 4;
    /* Hex already checked (is_chained_run). */
    (void)rng_unhex(rolls[0].prev_hash, h, HASH_BYTES);
    for (i = 0; i < n; i++)
        (void)rng_unhex(rolls[i].hash, h + (i + 1) * HASH_BYTES, HASH_BYTES);
    memcpy(out + head, z, zlen);
    free(z);
    *len = head + zlen;
    return out;
}

/* ---- what is packed after a combat's report (db_sql.h) ---- */

/* text packed as cb's report is: a campaign's (a combat's, or a battle's
 * record) smaller, since the campaign keeps it (and its database grows by
 * it) for its whole life; a one-off's with the least work.  New, or
 * NULL. */
static unsigned char *pack_report(const db_combat *cb, const char *text,
                                  size_t *len)
{
    return cb->campaign_id[0] != '\0' ? db_doc_pack_small(text, len)
                                      : db_doc_pack(text, len);
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
    unsigned char *text, *p;
    size_t size = 1, i;
    bool is_chained;
    /* a one-off's rolls packed in its report's frame (a campaign combat's
     * history documents are, db_combat_pack_events: never both) */
    bool is_with_report = cb->campaign_id[0] == '\0' && n > 0 &&
                          cb->report != NULL && !db_combat_docs_in_report(cb);

    free(cb->rolls_z);
    cb->rolls_z = NULL;
    /* The report packed (pack_report), here unless it is packed with its
     * rolls (below) or already with its events' documents (kept). */
    if (!db_combat_docs_in_report(cb)) {
        free(cb->report_z);
        cb->report_z = NULL;
        if (cb->report != NULL && !is_with_report &&
            (cb->report_z = pack_report(cb, cb->report, &cb->report_z_len)) ==
                NULL)
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    cb->ledger_first = 0;
    is_chained = cb->campaign_id[0] != '\0' && is_chained_run(rolls, n);
    /* A campaign's rolls not chained (a battle's record's: its dice are
     * its actions) stay rows. */
    if (n == 0 || (cb->campaign_id[0] != '\0' && !is_chained))
        return ERR_OK;
    for (i = 0; i < n; i++)
        size += packed_size(&rolls[i]);
    if ((p = text = malloc(size)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < n; i++)
        p = put_roll(p, &rolls[i]);
    *p = '\0';
    /* A campaign's: its hashes beside a frame packed with the documents'
     * dictionary (pack_chained).  A one-off's: in its report's frame. */
    if (is_with_report) {
        if (db_pack_after_report(cb, (const char *)text, &cb->report_z,
                                 &cb->report_z_len, &cb->rolls_z))
            cb->rolls_z_len = 1;
    } else
        cb->rolls_z =
            is_chained
                ? pack_chained((const char *)text, rolls, n, &cb->rolls_z_len)
                : db_doc_pack((const char *)text, &cb->rolls_z_len);
    free(text);
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

char *db_column_rolls(db_stmt *st, int col)
{
    const void *z;

    if (db_column_type(st, col) != DB_BLOB)
        return db_column_doc(st, col);
    if ((z = db_column_blob(st, col)) == NULL)
        return NULL;
    return db_rolls_text(z, (size_t)db_column_bytes(st, col));
}

char *db_rolls_text(const void *value, size_t zlen)
{
    const unsigned char *z = value;
    size_t k, head;
    char *bare, *text;

    if (zlen < ROLLS_TAG_LEN + 4 || memcmp(z, rolls_tag, ROLLS_TAG_LEN) != 0)
        return db_doc_text(z, zlen);
    k = (size_t)z[4] | (size_t)z[5] << 8 | (size_t)z[6] << 16 |
        (size_t)z[7] << 24;
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
