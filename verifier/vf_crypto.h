/*
 * vf_crypto.h: the verifier's own primitives, in plain C with no crypto
 * library, so that checking the dice does not mean trusting the code that
 * rolled them:
 *
 *   SHA-256       FIPS 180-4, incremental (init, update, final)
 *   HMAC-SHA256   RFC 2104
 *   ChaCha20      RFC 8439 (the IETF variant: 32-bit block counter,
 *                 96-bit nonce), its block function and a keystream reader
 *   vf_rng        the "rng v1" dice stream of docs/dice.md built on them
 *
 * Every public name carries the prefix vf_: these functions are linked into
 * the same test binary as the service and its crypto library.  Nothing here
 * allocates, does I/O or keeps global state.
 */
#ifndef UMPIRE_VF_CRYPTO_H
#define UMPIRE_VF_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define VF_SHA256_LEN     32 /* bytes of a SHA-256 digest */
#define VF_CHACHA_KEY_LEN 32
#define VF_CHACHA_NONCE   12 /* bytes of an IETF ChaCha20 nonce */
#define VF_CHACHA_BLOCK   64 /* bytes of one keystream block */
#define VF_SEED_LEN       32 /* bytes of an rng v1 server seed */
#define VF_FACES_MIN      2
#define VF_FACES_MAX      1000

/* SHA-256 state between vf_sha256_init and vf_sha256_final. */
typedef struct vf_sha256_ctx {
    uint32_t h[8];      /* the chaining value */
    uint8_t buf[64];    /* input not yet compressed */
    size_t buf_len;     /* bytes in buf, 0..63 */
    uint64_t total_len; /* bytes given so far */
} vf_sha256_ctx;

void vf_sha256_init(vf_sha256_ctx *s);
void vf_sha256_update(vf_sha256_ctx *s, const void *data, size_t len);
/* Writes the digest and wipes the state; init again before reuse. */
void vf_sha256_final(vf_sha256_ctx *s, uint8_t out[VF_SHA256_LEN]);
/* The digest of one buffer. */
void vf_sha256(const void *data, size_t len, uint8_t out[VF_SHA256_LEN]);

/* out = HMAC-SHA256(key, msg); keys of any length (RFC 2104). */
void vf_hmac_sha256(const uint8_t *key, size_t key_len, const void *msg,
                    size_t msg_len, uint8_t out[VF_SHA256_LEN]);

/* One ChaCha20 block (RFC 8439, section 2.3): 64 bytes of keystream. */
void vf_chacha20_block(const uint8_t key[VF_CHACHA_KEY_LEN], uint32_t counter,
                       const uint8_t nonce[VF_CHACHA_NONCE],
                       uint8_t out[VF_CHACHA_BLOCK]);

/* A ChaCha20 keystream read from a starting block counter onwards. */
typedef struct vf_chacha20 {
    uint8_t key[VF_CHACHA_KEY_LEN];
    uint8_t nonce[VF_CHACHA_NONCE];
    uint32_t counter;               /* block counter of the next block */
    uint8_t block[VF_CHACHA_BLOCK]; /* the current block */
    size_t pos;                     /* next unread byte of block; 64: none */
} vf_chacha20;

void vf_chacha20_init(vf_chacha20 *c, const uint8_t key[VF_CHACHA_KEY_LEN],
                      const uint8_t nonce[VF_CHACHA_NONCE], uint32_t counter);
/* The next n bytes of keystream, across block boundaries. */
void vf_chacha20_read(vf_chacha20 *c, uint8_t *out, size_t n);

/*
 * The rng v1 stream: key = HMAC-SHA256(key = seed, msg = client seed),
 * then the ChaCha20 keystream under key, nonce of zeros, counter from 0,
 * read as little-endian 32-bit words.
 */
typedef struct vf_rng {
    vf_chacha20 stream;
    uint64_t n_words; /* words read so far, rejected ones included */
} vf_rng;

/* client_seed may be NULL (the empty string). */
void vf_rng_init(vf_rng *r, const uint8_t seed[VF_SEED_LEN],
                 const uint8_t *client_seed, size_t client_seed_len);
/* The next word of the stream. */
uint32_t vf_rng_word(vf_rng *r);
/*
 * The smallest word a die of faces faces rejects: 2^32 - (2^32 mod faces),
 * as a 64-bit number because it is 2^32 when faces divides 2^32.
 */
uint64_t vf_rng_limit(int faces);
/*
 * A die of faces faces: the next word w below vf_rng_limit(faces), as
 * (w mod faces) + 1.  Returns 0, reading nothing, if faces is outside
 * VF_FACES_MIN..VF_FACES_MAX.
 */
int vf_rng_die(vf_rng *r, int faces);
/* Wipes the key material. */
void vf_rng_cleanup(vf_rng *r);

/* Lower-case hex of n bytes into out (2n + 1 bytes). */
void vf_hex(const uint8_t *bytes, size_t n, char *out);
/*
 * Exactly 2n hex digits (either case) into n bytes; returns 0, or -1 if
 * hex has another length or a character that is not a hex digit.
 */
int vf_unhex(const char *hex, uint8_t *out, size_t n);

#endif
