/*
 * vf_crypto.c: SHA-256, HMAC-SHA256, ChaCha20 and the rng v1 stream; see
 * vf_crypto.h.  Written from the standards (FIPS 180-4, RFC 2104, RFC 8439)
 * and docs/dice.md, sharing no code with the service.  Byte order is
 * handled explicitly, so the results do not depend on the machine.
 */
#include "vf_crypto.h"

#include <string.h>

/* ---- helpers ----------------------------------------------------------- */

static uint32_t rotl32(uint32_t v, unsigned n)
{
    return (v << n) | (v >> (32 - n));
}

static uint32_t rotr32(uint32_t v, unsigned n)
{
    return (v >> n) | (v << (32 - n));
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Zeroes key material in a way the compiler may not drop. */
static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = p;

    while (n-- > 0)
        *v++ = 0;
}

/* ---- SHA-256 (FIPS 180-4, section 6.2) ---------------------------------- */

/* The round constants: the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes (section 4.2.2). */
static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/* Compresses one 64-byte block into the chaining value. */
static void sha256_block(uint32_t h[8], const uint8_t block[64])
{
    uint32_t w[64], v[8];
    int t;

    for (t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (t = 16; t < 64; t++) {
        uint32_t s0 =
            rotr32(w[t - 15], 7) ^ rotr32(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 =
            rotr32(w[t - 2], 17) ^ rotr32(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    memcpy(v, h, sizeof v);
    for (t = 0; t < 64; t++) {
        /* v[0..7] are the working variables a..h of the standard. */
        uint32_t e1 = rotr32(v[4], 6) ^ rotr32(v[4], 11) ^ rotr32(v[4], 25);
        uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
        uint32_t t1 = v[7] + e1 + ch + sha256_k[t] + w[t];
        uint32_t e0 = rotr32(v[0], 2) ^ rotr32(v[0], 13) ^ rotr32(v[0], 22);
        uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
        uint32_t t2 = e0 + maj;

        memmove(v + 1, v, 7 * sizeof v[0]);
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (t = 0; t < 8; t++)
        h[t] += v[t];
    wipe(w, sizeof w);
    wipe(v, sizeof v);
}

void vf_sha256_init(vf_sha256_ctx *s)
{
    /* Section 5.3.3: the first 32 bits of the fractional parts of the
     * square roots of the first 8 primes. */
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                   0x1f83d9ab, 0x5be0cd19};

    memcpy(s->h, h0, sizeof s->h);
    s->buf_len = 0;
    s->total_len = 0;
}

void vf_sha256_update(vf_sha256_ctx *s, const void *data, size_t len)
{
    const uint8_t *p = data;

    s->total_len += len;
    while (len > 0) {
        size_t take = sizeof s->buf - s->buf_len;

        if (take > len)
            take = len;
        memcpy(s->buf + s->buf_len, p, take);
        s->buf_len += take;
        p += take;
        len -= take;
        if (s->buf_len == sizeof s->buf) {
            sha256_block(s->h, s->buf);
            s->buf_len = 0;
        }
    }
}

void vf_sha256_final(vf_sha256_ctx *s, uint8_t out[VF_SHA256_LEN])
{
    /* Section 5.1.1: a 1 bit, zeros, then the length in bits as 64 bits,
     * big-endian, filling the last block. */
    uint64_t bits = s->total_len * 8;
    int i;

    s->buf[s->buf_len++] = 0x80;
    if (s->buf_len > 56) {
        memset(s->buf + s->buf_len, 0, sizeof s->buf - s->buf_len);
        sha256_block(s->h, s->buf);
        s->buf_len = 0;
    }
    memset(s->buf + s->buf_len, 0, 56 - s->buf_len);
    store_be32(s->buf + 56, (uint32_t)(bits >> 32));
    store_be32(s->buf + 60, (uint32_t)bits);
    sha256_block(s->h, s->buf);
    for (i = 0; i < 8; i++)
        store_be32(out + 4 * i, s->h[i]);
    wipe(s, sizeof *s);
}

void vf_sha256(const void *data, size_t len, uint8_t out[VF_SHA256_LEN])
{
    vf_sha256_ctx s;

    vf_sha256_init(&s);
    vf_sha256_update(&s, data, len);
    vf_sha256_final(&s, out);
}

/* ---- HMAC-SHA256 (RFC 2104) --------------------------------------------- */

void vf_hmac_sha256(const uint8_t *key, size_t key_len, const void *msg,
                    size_t msg_len, uint8_t out[VF_SHA256_LEN])
{
    uint8_t k[64] = {0}, pad[64], inner[VF_SHA256_LEN];
    vf_sha256_ctx s;
    size_t i;

    /* A key longer than the block is replaced by its digest. */
    if (key_len > sizeof k)
        vf_sha256(key, key_len, k);
    else if (key_len > 0)
        memcpy(k, key, key_len);

    /* inner = H((K ^ ipad) || msg) */
    for (i = 0; i < sizeof pad; i++)
        pad[i] = k[i] ^ 0x36;
    vf_sha256_init(&s);
    vf_sha256_update(&s, pad, sizeof pad);
    vf_sha256_update(&s, msg, msg_len);
    vf_sha256_final(&s, inner);

    /* out = H((K ^ opad) || inner) */
    for (i = 0; i < sizeof pad; i++)
        pad[i] = k[i] ^ 0x5c;
    vf_sha256_init(&s);
    vf_sha256_update(&s, pad, sizeof pad);
    vf_sha256_update(&s, inner, sizeof inner);
    vf_sha256_final(&s, out);

    wipe(k, sizeof k);
    wipe(pad, sizeof pad);
    wipe(inner, sizeof inner);
}

/* ---- ChaCha20 (RFC 8439, sections 2.1 to 2.4) --------------------------- */

/* The quarter round of section 2.1 on state words a, b, c, d. */
static void quarter_round(uint32_t x[16], int a, int b, int c, int d)
{
    x[a] += x[b];
    x[d] = rotl32(x[d] ^ x[a], 16);
    x[c] += x[d];
    x[b] = rotl32(x[b] ^ x[c], 12);
    x[a] += x[b];
    x[d] = rotl32(x[d] ^ x[a], 8);
    x[c] += x[d];
    x[b] = rotl32(x[b] ^ x[c], 7);
}

void vf_chacha20_block(const uint8_t key[VF_CHACHA_KEY_LEN], uint32_t counter,
                       const uint8_t nonce[VF_CHACHA_NONCE],
                       uint8_t out[VF_CHACHA_BLOCK])
{
    uint32_t init[16], x[16];
    int i;

    /* Section 2.3: "expand 32-byte k", the key, the counter, the nonce. */
    init[0] = 0x61707865;
    init[1] = 0x3320646e;
    init[2] = 0x79622d32;
    init[3] = 0x6b206574;
    for (i = 0; i < 8; i++)
        init[4 + i] = load_le32(key + 4 * i);
    init[12] = counter;
    for (i = 0; i < 3; i++)
        init[13 + i] = load_le32(nonce + 4 * i);

    memcpy(x, init, sizeof x);
    for (i = 0; i < 10; i++) {
        /* A column round, then a diagonal round: 20 rounds in all. */
        quarter_round(x, 0, 4, 8, 12);
        quarter_round(x, 1, 5, 9, 13);
        quarter_round(x, 2, 6, 10, 14);
        quarter_round(x, 3, 7, 11, 15);
        quarter_round(x, 0, 5, 10, 15);
        quarter_round(x, 1, 6, 11, 12);
        quarter_round(x, 2, 7, 8, 13);
        quarter_round(x, 3, 4, 9, 14);
    }
    for (i = 0; i < 16; i++)
        store_le32(out + 4 * i, x[i] + init[i]);
    wipe(x, sizeof x);
    wipe(init, sizeof init);
}

void vf_chacha20_init(vf_chacha20 *c, const uint8_t key[VF_CHACHA_KEY_LEN],
                      const uint8_t nonce[VF_CHACHA_NONCE], uint32_t counter)
{
    memcpy(c->key, key, sizeof c->key);
    memcpy(c->nonce, nonce, sizeof c->nonce);
    c->counter = counter;
    c->pos = sizeof c->block;
}

void vf_chacha20_read(vf_chacha20 *c, uint8_t *out, size_t n)
{
    while (n > 0) {
        size_t take;

        if (c->pos == sizeof c->block) {
            vf_chacha20_block(c->key, c->counter, c->nonce, c->block);
            c->counter++;
            c->pos = 0;
        }
        take = sizeof c->block - c->pos;
        if (take > n)
            take = n;
        memcpy(out, c->block + c->pos, take);
        c->pos += take;
        out += take;
        n -= take;
    }
}

/* ---- the rng v1 stream (docs/dice.md, "Seeded dice") ------------------- */

void vf_rng_init(vf_rng *r, const uint8_t seed[VF_SEED_LEN],
                 const uint8_t *client_seed, size_t client_seed_len)
{
    static const uint8_t zero_nonce[VF_CHACHA_NONCE];
    uint8_t key[VF_SHA256_LEN];

    /* Step 4: the key; step 5: the stream from block 0. */
    vf_hmac_sha256(seed, VF_SEED_LEN, client_seed,
                   client_seed != NULL ? client_seed_len : 0, key);
    vf_chacha20_init(&r->stream, key, zero_nonce, 0);
    r->n_words = 0;
    wipe(key, sizeof key);
}

uint32_t vf_rng_word(vf_rng *r)
{
    uint8_t b[4];

    vf_chacha20_read(&r->stream, b, sizeof b);
    r->n_words++;
    return load_le32(b);
}

uint64_t vf_rng_limit(int faces)
{
    const uint64_t two32 = UINT64_C(1) << 32;

    return two32 - two32 % (uint64_t)faces;
}

int vf_rng_die(vf_rng *r, int faces)
{
    uint64_t limit;
    uint32_t w;

    if (faces < VF_FACES_MIN || faces > VF_FACES_MAX)
        return 0;
    /* Step 6: words at or above the limit would favour the low faces. */
    limit = vf_rng_limit(faces);
    do {
        w = vf_rng_word(r);
    } while ((uint64_t)w >= limit);
    return (int)(w % (uint32_t)faces) + 1;
}

void vf_rng_cleanup(vf_rng *r)
{
    if (r != NULL)
        wipe(r, sizeof *r);
}

/* ---- hex ---------------------------------------------------------------- */

void vf_hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int vf_unhex(const char *hex, uint8_t *out, size_t n)
{
    size_t i;

    if (strlen(hex) != 2 * n)
        return -1;
    for (i = 0; i < n; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}
