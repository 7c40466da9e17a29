/*
 * rng.c: the rng v1 stream; see rng.h and docs/dice.md.
 */
#include "rng.h"

#include <assert.h>
#include <string.h>

#include <sodium.h>

#include "digest.h"

void rng_v1_init(rng_v1 *r, const uint8_t seed[RNG_SEED_LEN],
                 const uint8_t *client_seed, size_t client_seed_len)
{
    digest_hmac_sha256(seed, RNG_SEED_LEN, client_seed,
                       client_seed ? client_seed_len : 0, r->key);
    r->counter = 0;
    r->pos = sizeof r->block;
    r->n_words = 0;
}

void rng_v1_cleanup(rng_v1 *r)
{
    if (r != NULL)
        sodium_memzero(r, sizeof *r);
}

uint32_t rng_v1_word(rng_v1 *r)
{
    static const uint8_t zero_block[64];
    static const uint8_t nonce[crypto_stream_chacha20_ietf_NONCEBYTES];
    const uint8_t *b;

    if (r->pos >= sizeof r->block) {
        crypto_stream_chacha20_ietf_xor_ic(
            r->block, zero_block, sizeof r->block, nonce, r->counter, r->key);
        r->counter++;
        r->pos = 0;
    }
    b = r->block + r->pos;
    r->pos += 4;
    r->n_words++;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
}

int rng_v1_die(rng_v1 *r, int faces)
{
    uint64_t f, limit;
    uint32_t w;

    assert(faces >= RNG_FACES_MIN && faces <= RNG_FACES_MAX);
    f = (uint64_t)faces;
    /* 2^32 - (2^32 mod F): the largest multiple of F that fits. */
    limit = (UINT64_C(1) << 32) - ((UINT64_C(1) << 32) % f);
    do {
        w = rng_v1_word(r);
    } while ((uint64_t)w >= limit);
    return (int)(w % f) + 1;
}

void rng_commitment(const uint8_t seed[RNG_SEED_LEN], char hex_out[65])
{
    uint8_t h[DIGEST_SHA256_BYTES];

    digest_sha256(seed, RNG_SEED_LEN, NULL, 0, h);
    rng_hex(h, sizeof h, hex_out);
}

void rng_hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

/* Each byte's value as a hex digit plus one, or 0: one look-up a digit (the
 * ledger reads a hash's 64 digits for every roll it chains). */
static const signed char hex_value[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
    ['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16}; /* value + 1; 0: none */

int rng_unhex(const char *hex, uint8_t *out, size_t n)
{
    const unsigned char *h = (const unsigned char *)hex;
    const uint8_t *end = out + n;

    /* A digit is read only after the one before it was one: a string
     * that ends early stops at its NUL, which is none. */
    while (out < end) {
        int hi = hex_value[h[0]], lo;
        if (hi == 0 || (lo = hex_value[h[1]]) == 0)
            return -1;
        *out++ = (uint8_t)((hi - 1) << 4 | (lo - 1));
        h += 2;
    }
    return *h == '\0' ? 0 : -1;
}
