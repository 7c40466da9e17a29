/*
 * combat_pack.c: a combat packed to store, before the writer (db.h,
 * db_combat_pack): its report, and its roll log in one value rather than
 * a row per roll (the layouts: combat_pack.h; read back by
 * combat_unpack.c).  No SQL.
 */
#include "combat_pack.h"
#include "rng.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void db_value_check(const unsigned char *key, const void *value, size_t n,
                    unsigned char out[DB_CHECK_BYTES])
{
    unsigned char h[crypto_shorthash_BYTES];

    crypto_shorthash(h, value, n, key);
    memcpy(out, h, DB_CHECK_BYTES);
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
    return strncmp(s, UNIT_PREFIX, UNIT_PREFIX_LEN) == 0 &&
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
    memcpy(out, is_chained ? ROLLS_TAG_V2 : ROLLS_TAG_COMPACT, ROLLS_TAG_LEN);
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
