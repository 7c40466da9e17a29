/*
 * digest_vectors.h: the published known answers that every SHA-256 and
 * HMAC-SHA256 of the project is held to: the server's (core/digest.c,
 * test_digest.c) and the standalone verifier's own (test_verifier.c).
 *
 *   SHA-256: FIPS 180-2 (its appendix B) and the empty message;
 *   HMAC-SHA256: RFC 4231, test cases 1, 2, 3, 6 and 7 (6 and 7: a key
 *   longer than a block, hashed first).
 */
#ifndef UMPIRE_TEST_DIGEST_VECTORS_H
#define UMPIRE_TEST_DIGEST_VECTORS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_vector {
    const char *msg; /* its bytes, without the NUL */
    const char *hex; /* the digest, 64 hex digits */
} sha256_vector;

/* A key or message: text's bytes, or (text NULL) n bytes of byte. */
typedef struct vector_bytes {
    const char *text;
    uint8_t byte;
    size_t n;
} vector_bytes;

typedef struct hmac_vector {
    vector_bytes key, msg;
    const char *hex;
} hmac_vector;

/* The vectors; *n their number. */
const sha256_vector *sha256_vectors(size_t *n);
const hmac_vector *hmac_vectors(size_t *n);

/* b's bytes into out (room for 256), their number returned. */
size_t vector_bytes_get(const vector_bytes *b, uint8_t out[256]);

#endif
