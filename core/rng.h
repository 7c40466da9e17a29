/*
 * rng.h: the "rng v1" dice stream of docs/dice.md.
 *
 *   key    = HMAC-SHA256(key = server seed, message = client seed)
 *   stream = ChaCha20-IETF keystream under key, nonce of zeros, block
 *            counter from 0, read as little-endian 32-bit words
 *   die(F) = next word w below 2^32 - (2^32 mod F), as (w mod F) + 1;
 *            words at or above that limit are discarded.
 *
 * ChaCha20 comes from libsodium, HMAC-SHA256 and the commitment's SHA-256
 * from digest.h; this file does no I/O and keeps no state of its own, so
 * the same seed gives the same dice on every machine.
 */
#ifndef UMPIRE_RNG_H
#define UMPIRE_RNG_H

#include <stddef.h>
#include <stdint.h>

#define RNG_SEED_LEN        32
#define RNG_CLIENT_SEED_MAX 256
#define RNG_FACES_MIN       2
#define RNG_FACES_MAX       1000
#define RNG_VERSION         "v1"

typedef struct rng_v1 {
    uint8_t key[32];   /* the derived ChaCha20 key */
    uint8_t block[64]; /* the current keystream block */
    uint32_t counter;  /* block counter of the next block to generate */
    unsigned pos;      /* next unread byte of block; 64 when empty */
    uint64_t n_words;  /* words consumed so far, rejected ones included */
} rng_v1;

/* Derives the key and positions the stream at its first word. */
void rng_v1_init(rng_v1 *r, const uint8_t seed[RNG_SEED_LEN],
                 const uint8_t *client_seed, size_t client_seed_len);

/* Wipes the key material. */
void rng_v1_cleanup(rng_v1 *r);

/* The next 32-bit word of the stream. */
uint32_t rng_v1_word(rng_v1 *r);

/*
 * A die of faces faces (RNG_FACES_MIN..RNG_FACES_MAX, asserted): the next
 * accepted word mapped to 1..faces.
 */
int rng_v1_die(rng_v1 *r, int faces);

/* hex_out (65 bytes) = lower-case hex SHA-256 of seed: its commitment. */
void rng_commitment(const uint8_t seed[RNG_SEED_LEN], char hex_out[65]);

/* Lower-case hex of n bytes into out (2n+1 bytes). */
void rng_hex(const uint8_t *bytes, size_t n, char *out);

/* Parses 2n hex digits (and nothing after them) into n bytes; returns 0
 * on success, -1 otherwise (out may then be partly written). */
int rng_unhex(const char *hex, uint8_t *out, size_t n);

#endif
