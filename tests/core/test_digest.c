/*
 * test_digest.c: tests core/digest.c, SHA-256 and HMAC-SHA-256 through
 * OpenSSL with a context kept by each thread, and the libsodium fallbacks:
 * the published vectors (digest_vectors.h) by both, libsodium's own values for
 * every length and split around a block, one key after another on one context
 * (the empty key too), and several threads at once, each with contexts of its
 * own.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "digest.h"
#include "digest_vectors.h"
#include "rng.h"
#include "suites.h"

static void hex_of(const uint8_t h[DIGEST_SHA256_BYTES], char out[65])
{
    rng_hex(h, DIGEST_SHA256_BYTES, out);
}

/* The two ways of each: 0 digest.c's (OpenSSL's), 1 its fallback. */
static void sha_by(int way, const void *a, size_t a_len, const void *b,
                   size_t b_len, uint8_t out[DIGEST_SHA256_BYTES])
{
    (way ? digest_sha256_sodium : digest_sha256)(a, a_len, b, b_len, out);
}

static void hmac_by(int way, const uint8_t *key, size_t key_len, const void *m,
                    size_t n, uint8_t out[DIGEST_SHA256_BYTES])
{
    (way ? digest_hmac_sha256_sodium : digest_hmac_sha256)(key, key_len, m, n,
                                                           out);
}

static void sodium_sha256(const uint8_t *p, size_t n,
                          uint8_t out[DIGEST_SHA256_BYTES])
{
    crypto_hash_sha256(out, p, n);
}

static void sodium_hmac(const uint8_t *key, size_t key_len, const uint8_t *m,
                        size_t n, uint8_t out[DIGEST_SHA256_BYTES])
{
    crypto_auth_hmacsha256_state st;

    crypto_auth_hmacsha256_init(&st, key, key_len);
    crypto_auth_hmacsha256_update(&st, m, n);
    crypto_auth_hmacsha256_final(&st, out);
}

/* The published vectors (digest_vectors.h), both ways (_i); each SHA-256
 * message also as the second part alone and split in two. */
START_TEST(test_sha256_known)
{
    size_t n_v, i, n;
    const sha256_vector *v = sha256_vectors(&n_v);
    uint8_t h[DIGEST_SHA256_BYTES];
    char hex[65];

    for (i = 0; i < n_v; i++) {
        n = strlen(v[i].msg);
        sha_by(_i, v[i].msg, n, NULL, 0, h);
        hex_of(h, hex);
        ck_assert_str_eq(hex, v[i].hex);
        sha_by(_i, NULL, 0, v[i].msg, n, h);
        hex_of(h, hex);
        ck_assert_str_eq(hex, v[i].hex);
        sha_by(_i, v[i].msg, n / 2, v[i].msg + n / 2, n - n / 2, h);
        hex_of(h, hex);
        ck_assert_str_eq(hex, v[i].hex);
    }
}
END_TEST

/* Every length up to three blocks, split at every place, is libsodium's
 * hash of the whole. */
START_TEST(test_sha256_as_libsodium)
{
    uint8_t msg[200], want[DIGEST_SHA256_BYTES], got[DIGEST_SHA256_BYTES];
    size_t n, k;

    for (n = 0; n < sizeof msg; n++)
        msg[n] = (uint8_t)(n * 37 + 11);
    for (n = 0; n <= sizeof msg; n += 1 + (n > 70) * 6) {
        sodium_sha256(msg, n, want);
        for (k = 0; k <= n; k++) {
            digest_sha256(msg, k, msg + k, n - k, got);
            ck_assert_msg(memcmp(got, want, sizeof want) == 0,
                          "length %zu split at %zu", n, k);
        }
    }
}
END_TEST

START_TEST(test_hmac_known)
{
    size_t n_v, i, key_len, msg_len;
    const hmac_vector *v = hmac_vectors(&n_v);
    uint8_t key[256], msg[256], h[DIGEST_SHA256_BYTES];
    char hex[65];

    for (i = 0; i < n_v; i++) {
        key_len = vector_bytes_get(&v[i].key, key);
        msg_len = vector_bytes_get(&v[i].msg, msg);
        hmac_by(_i, key, key_len, msg, msg_len, h);
        hex_of(h, hex);
        ck_assert_str_eq(hex, v[i].hex);
    }
}
END_TEST

/* Keys of every size around a block and messages around two, one after
 * another on the thread's one context: each is libsodium's, so nothing
 * of a key is left for the next. */
START_TEST(test_hmac_as_libsodium)
{
    static const size_t key_lens[] = {0, 1, 31, 32, 33, 63, 64, 65, 100};
    uint8_t key[100], msg[140];
    uint8_t want[DIGEST_SHA256_BYTES], got[DIGEST_SHA256_BYTES];
    size_t i, n;

    for (i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(i * 7 + 3);
    for (i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 13 + 5);
    for (n = 0; n <= sizeof msg; n++)
        for (i = 0; i < sizeof key_lens / sizeof key_lens[0]; i++) {
            key[0] = (uint8_t)n; /* another key each time */
            sodium_hmac(key, key_lens[i], msg, n, want);
            digest_hmac_sha256(key, key_lens[i], n ? msg : NULL, n, got);
            ck_assert_msg(memcmp(got, want, sizeof want) == 0,
                          "key of %zu bytes, message of %zu", key_lens[i], n);
        }
}
END_TEST

/* No key (NULL) is the empty key, whatever key the thread's context held
 * last: HMAC of "x" under the empty key is libsodium's, after a call
 * under another key and after one under none. */
START_TEST(test_hmac_no_key)
{
    uint8_t want[DIGEST_SHA256_BYTES], got[DIGEST_SHA256_BYTES];
    uint8_t empty_key[1] = {0};
    int round;

    sodium_hmac(empty_key, 0, (const uint8_t *)"x", 1, want);
    for (round = 0; round < 2; round++) {
        digest_hmac_sha256((const uint8_t *)"abcde", 5, "x", 1, got);
        ck_assert(memcmp(got, want, sizeof want) != 0);
        digest_hmac_sha256(NULL, 0, "x", 1, got);
        ck_assert(memcmp(got, want, sizeof want) == 0);
        digest_hmac_sha256_sodium(NULL, 0, "x", 1, got);
        ck_assert(memcmp(got, want, sizeof want) == 0);
    }
}
END_TEST

/* Threads at once: each makes its own contexts (freed when it ends, which
 * the sanitizer's leak check sees) and gets libsodium's values. */
enum { THREADS = 4, ROUNDS = 300 };

static void *hash_many(void *arg)
{
    uintptr_t id = (uintptr_t)arg, bad = 0;
    uint8_t key[32], msg[80], want[DIGEST_SHA256_BYTES], got[32];
    int r;

    for (r = 0; r < ROUNDS; r++) {
        size_t n = (size_t)(r + (int)id) % sizeof msg;
        memset(key, (int)(id * 31 + (uintptr_t)r), sizeof key);
        memset(msg, (int)(id + (uintptr_t)r * 3), sizeof msg);
        sodium_hmac(key, sizeof key, msg, n, want);
        digest_hmac_sha256(key, sizeof key, msg, n, got);
        bad += memcmp(got, want, sizeof want) != 0;
        sodium_sha256(msg, n, want);
        digest_sha256(msg, n / 3, msg + n / 3, n - n / 3, got);
        bad += memcmp(got, want, sizeof want) != 0;
    }
    return (void *)bad;
}

START_TEST(test_threads)
{
    pthread_t t[THREADS];
    uintptr_t i;
    void *bad;

    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, hash_many, (void *)i), 0);
    for (i = 0; i < THREADS; i++) {
        ck_assert_int_eq(pthread_join(t[i], &bad), 0);
        ck_assert_msg(bad == NULL, "thread %u: %lu wrong", (unsigned)i,
                      (unsigned long)(uintptr_t)bad);
    }
}
END_TEST

Suite *suite_digest(void)
{
    Suite *s = suite_create("digest");
    TCase *tc = tcase_create("digest");

    tcase_add_loop_test(tc, test_sha256_known, 0, 2);
    tcase_add_test(tc, test_sha256_as_libsodium);
    tcase_add_loop_test(tc, test_hmac_known, 0, 2);
    tcase_add_test(tc, test_hmac_as_libsodium);
    tcase_add_test(tc, test_hmac_no_key);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);
    return s;
}
