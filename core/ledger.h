/*
 * ledger.h: the campaign ledger of docs/ledger.md ("umpire-ledger-v1"):
 * every die of a campaign as a hash chain, and the walk that checks it.
 *
 *   content(entry) = its fields as netstrings ("3:abc,"), in the order of
 *                    docs/ledger.md
 *   hash(1)        = SHA-256(32 zero bytes || content(1))
 *   hash(pos)      = SHA-256(hash(pos - 1) || content(pos))
 *
 * An entry is a die of a campaign combat ("roll") or an action taken on a
 * campaign battle, with the dice it drew ("action").  This file does no
 * I/O: the database layer reads and writes the entries, the server serves
 * what ledger_check finds.
 */
#ifndef UMPIRE_LEDGER_H
#define UMPIRE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define LEDGER_VERSION    "umpire-ledger-v1"
#define LEDGER_HASH_HEX   65 /* 64 hex digits and the NUL */
#define LEDGER_HASH_BYTES 32 /* a hash as its bytes */
#define LEDGER_BATTLE_DIE 6  /* every battle die (Matrix, Civilization) */
#define LEDGER_MAX_NATURALS                                                    \
    1024 /* dice of one battle action at most (a                               \
          * Civilization phase throws up to 400) */

/* The head of an empty ledger, and the "previous hash" of its entry 1. */
extern const char ledger_genesis[LEDGER_HASH_HEX];

typedef enum ledger_kind { LEDGER_ROLL, LEDGER_ACTION } ledger_kind;

/*
 * One entry with every field of its content.  Strings are borrowed; NULL
 * counts as the empty text.  Roll entries use record_id as the combat id
 * and side..modified; action entries use record_id as the battle id, and
 * action, naturals (all dice LEDGER_BATTLE_DIE) and detail.
 */
typedef struct ledger_entry {
    ledger_kind kind;
    const char *campaign_id;
    long long pos;
    const char *at; /* the combat's created_at, or the action's time */
    const char *record_id;
    int seq; /* the die's seq in its combat, or the action's in its battle */
    /* roll */
    const char *side, *unit_id, *unit, *reason;
    int faces, natural, modified;
    /* action */
    const char *action;
    const int *naturals;
    size_t n_naturals;
    const char *detail;
    /* the record's dice */
    const char *source, *rng, *commitment, *client_seed;
    /* as stored: checked by ledger_check, ignored by ledger_content */
    const char *prev_hash, *hash;
} ledger_entry;

/* The entry's canonical content: a new buffer (free()) of *len bytes, or
 * NULL when out of memory. */
char *ledger_content(const ledger_entry *en, size_t *len);

/* out = hex SHA-256(prev's 32 bytes || content); prev must be 64 hex
 * digits (a malformed one counts as the genesis, and never matches). */
void ledger_link(const char *prev, const char *content, size_t len,
                 char out[LEDGER_HASH_HEX]);

/* out = the hash of en coming after prev (ledger_content, ledger_link). */
err_code ledger_hash(const ledger_entry *en, const char *prev,
                     char out[LEDGER_HASH_HEX], err_info *e);

/* The same two with hashes as their bytes, for a chain walked entry by
 * entry: each entry's hash is the next one's prev as it is, where the
 * hex forms would read each hash's 64 digits back again. */
void ledger_link_raw(const uint8_t prev[LEDGER_HASH_BYTES], const char *content,
                     size_t len, uint8_t out[LEDGER_HASH_BYTES]);
err_code ledger_hash_raw(const ledger_entry *en,
                         const uint8_t prev[LEDGER_HASH_BYTES],
                         uint8_t out[LEDGER_HASH_BYTES], err_info *e);

/* hex's 64 digits as their bytes; a malformed hex (or NULL) reads as the
 * genesis, as ledger_link takes it. */
void ledger_unhex(const char *hex, uint8_t out[LEDGER_HASH_BYTES]);

/* Parses a battle action's naturals as stored, a JSON array of integers
 * ("[4,1]"), into out (up to max).  Returns the count, or -1 if the text is
 * not such an array or holds more than max. */
int ledger_parse_naturals(const char *text, int *out, size_t max);

/* What walking a chain found.  broken_pos is the first entry that does not
 * hold (0: none); why says how, in a sentence. */
typedef struct ledger_walk {
    long long length;           /* entries walked */
    char head[LEDGER_HASH_HEX]; /* hash of the last entry walked */
    long long broken_pos;
    char why[256];
} ledger_walk;

/*
 * Walks entries (in stored order): each must be at pos 1, 2, ... in turn,
 * name the previous entry's hash as its prev_hash, and hash to its stored
 * hash.  Then the campaign's recorded length and head must be the walk's.
 * Stops at the first broken link.  ERR_NOMEM only.
 */
err_code ledger_check(const ledger_entry *entries, size_t n,
                      long long recorded_length, const char *recorded_head,
                      ledger_walk *out, err_info *e);

/* A record's revealed seed, for the dice check. */
typedef struct ledger_seed {
    const char *record_id;   /* a combat's or a battle's id */
    const char *server_seed; /* 64 hex digits, or NULL while still hidden */
} ledger_seed;

/* What the dice check counted. */
typedef struct ledger_dice {
    long long seeded;    /* seeded dice in the ledger */
    long long rederived; /* of those, re-derived from a revealed seed */
    long long entered;   /* entered dice: a record, not verifiable */
    long long pending;   /* seeded dice whose seed is not revealed yet */
} ledger_dice;

/*
 * Re-derives every seeded die of entries (docs/dice.md, rng v1): each
 * record's dice are one stream under its seed (from seeds) and the client
 * seed its entries name, in ledger order.  Each record's entries must
 * follow each other by seq from 1, name one client seed, and name the
 * commitment of the seed revealed.  Stops at the first entry that does
 * not hold (out->broken_pos, out->why).  ERR_NOMEM only.
 */
err_code ledger_check_dice(const ledger_entry *entries, size_t n,
                           const ledger_seed *seeds, size_t n_seeds,
                           ledger_walk *out, ledger_dice *count, err_info *e);

#endif
