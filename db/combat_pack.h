/*
 * combat_pack.h: a combat's packed roll log, its layouts and what both
 * sides of it share: combat_pack.c packs (before the writer),
 * combat_unpack.c reads back.  Included by no file outside db/.
 */
#ifndef UMPIRE_COMBAT_PACK_H
#define UMPIRE_COMBAT_PACK_H

#include "db_sql.h"

#include <sodium.h>

#include <stddef.h>

/* The layouts of a combat's roll log.
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
 * and its rolls one byte, RS, which says so (log.c's rolls_after_report reads
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
/* The tags of the values (ROLLS_TAG_LEN bytes of each literal). */
#define ROLLS_TAG         "\x1brh1"
#define ROLLS_TAG_V2      "\x1brh2"
#define ROLLS_TAG_COMPACT "\x1brc1"
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
#define UNIT_PREFIX "unit_"

/* The checksum of the rolls of a value in the compact layout (their n
 * bytes, after the tag, count and hashes) into out: the first
 * CHECK_BYTES of SipHash-2-4 with a fixed key (libsodium's
 * crypto_shorthash), a check against damage, not a secret, as zstd's
 * frame checked its content.  The hashes are left out: the ledger's chain
 * checks each, and tells which entry one altered breaks. */
static inline void check_of(const unsigned char *value, size_t n,
                            unsigned char out[CHECK_BYTES])
{
    static const unsigned char key[crypto_shorthash_KEYBYTES] =
        "umpire rolls v1";

    db_value_check(key, value, n, out);
}

/* Writes v at p: INT_BYTES bytes of 7 bits each, top bit set (no NUL,
 * any int). */
static inline unsigned char *put_u32(unsigned char *p, long long v)
{
    unsigned long u = (unsigned long)(v + 0x80000000LL);
    int i;

    for (i = 0; i < INT_BYTES; i++)
        *p++ = (unsigned char)(0x80 | ((u >> (7 * i)) & 0x7f));
    return p;
}

#endif
