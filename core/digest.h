/*
 * digest.h: SHA-256 and HMAC-SHA-256 for the ledger's links, the dice's
 * key and commitments, and tokens' hashes.
 *
 * OpenSSL's libcrypto gives them: it uses the CPU's SHA or vector
 * instructions where it has them, and where it has neither still fewer
 * instructions than libsodium's portable code.  Each thread keeps one
 * context of each, set up again for each use and freed when the thread
 * ends; the algorithms are fetched once.  Where OpenSSL cannot give a
 * value (no memory), libsodium's, which is the same value, so a caller
 * never fails.
 */
#ifndef UMPIRE_DIGEST_H
#define UMPIRE_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_SHA256_BYTES 32

/* out = SHA-256 of a (a_len bytes) then b (b_len bytes); either may be
 * empty (NULL with a length of 0). */
void digest_sha256(const void *a, size_t a_len, const void *b, size_t b_len,
                   uint8_t out[DIGEST_SHA256_BYTES]);

/* out = HMAC-SHA-256 of msg (msg_len bytes, NULL with 0 for none) under
 * key (key_len bytes, NULL with 0 for the empty key). */
void digest_hmac_sha256(const uint8_t *key, size_t key_len, const void *msg,
                        size_t msg_len, uint8_t out[DIGEST_SHA256_BYTES]);

/* The same two by libsodium alone: what the two above fall back to, and
 * what the tests hold them to. */
void digest_sha256_sodium(const void *a, size_t a_len, const void *b,
                          size_t b_len, uint8_t out[DIGEST_SHA256_BYTES]);
void digest_hmac_sha256_sodium(const uint8_t *key, size_t key_len,
                               const void *msg, size_t msg_len,
                               uint8_t out[DIGEST_SHA256_BYTES]);

#endif
