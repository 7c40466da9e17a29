/*
 * digest.c: SHA-256 and HMAC-SHA-256 through OpenSSL, libsodium's where
 * OpenSSL cannot; see digest.h.
 *
 * Fetching an algorithm and making a context for each hash cost about a
 * third as much again as hashing a roll's ledger content, so both are
 * made once: the algorithms for the process, the contexts for each
 * thread (one of each, in one block under one key, freed by the key's
 * destructor when the thread ends).  An HMAC context is set up again
 * with each key (EVP_MAC_init): it holds the key's state between uses,
 * as libsodium's would on the stack until its call returns.
 */
#include "digest.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <sodium.h>

typedef struct digest_ctx {
    EVP_MD_CTX *md;   /* SHA-256, or NULL: not made yet or no memory */
    EVP_MAC_CTX *mac; /* HMAC with SHA-256, or NULL: the same */
} digest_ctx;

static EVP_MD *sha256_md;
static EVP_MAC *hmac_mac;
static pthread_key_t ctx_key;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static bool has_ctx_key;

static void ctx_free(void *p)
{
    digest_ctx *d = p;

    EVP_MD_CTX_free(d->md);
    EVP_MAC_CTX_free(d->mac);
    free(d);
}

static void setup(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    hmac_mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    has_ctx_key = pthread_key_create(&ctx_key, ctx_free) == 0;
    ERR_clear_error(); /* a fetch that failed leaves its NULL, not errors */
}

/* This thread's contexts, or NULL (no memory). */
static digest_ctx *thread_ctx(void)
{
    digest_ctx *d;

    (void)pthread_once(&setup_once, setup);
    if (!has_ctx_key)
        return NULL;
    if ((d = pthread_getspecific(ctx_key)) != NULL)
        return d;
    if ((d = calloc(1, sizeof *d)) != NULL &&
        pthread_setspecific(ctx_key, d) != 0) {
        free(d);
        d = NULL;
    }
    return d;
}

static EVP_MD_CTX *md_ctx(void)
{
    digest_ctx *d = thread_ctx();

    if (d == NULL || sha256_md == NULL)
        return NULL;
    if (d->md == NULL)
        d->md = EVP_MD_CTX_new();
    return d->md;
}

/* This thread's HMAC context, its digest SHA-256. */
static EVP_MAC_CTX *mac_ctx(void)
{
    digest_ctx *d = thread_ctx();
    char name[] = "SHA256";
    OSSL_PARAM params[2];

    if (d == NULL || hmac_mac == NULL)
        return NULL;
    if (d->mac != NULL)
        return d->mac;
    if ((d->mac = EVP_MAC_CTX_new(hmac_mac)) == NULL)
        return NULL;
    params[0] =
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, name, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_MAC_CTX_set_params(d->mac, params) != 1) {
        EVP_MAC_CTX_free(d->mac);
        d->mac = NULL;
    }
    return d->mac;
}

static bool sha256_openssl(const void *a, size_t a_len, const void *b,
                           size_t b_len, uint8_t out[DIGEST_SHA256_BYTES])
{
    EVP_MD_CTX *ctx = md_ctx();
    bool is_done;

    (void)ERR_set_mark();
    is_done = ctx != NULL && EVP_DigestInit_ex2(ctx, sha256_md, NULL) == 1 &&
              (a_len == 0 || EVP_DigestUpdate(ctx, a, a_len) == 1) &&
              (b_len == 0 || EVP_DigestUpdate(ctx, b, b_len) == 1) &&
              EVP_DigestFinal_ex(ctx, out, NULL) == 1;
    /* What failed is not left for the thread's next OpenSSL user (what
     * another user queued before is). */
    (void)ERR_pop_to_mark();
    return is_done;
}

void digest_sha256(const void *a, size_t a_len, const void *b, size_t b_len,
                   uint8_t out[DIGEST_SHA256_BYTES])
{
    if (!sha256_openssl(a, a_len, b, b_len, out))
        digest_sha256_sodium(a, a_len, b, b_len, out);
}

void digest_sha256_sodium(const void *a, size_t a_len, const void *b,
                          size_t b_len, uint8_t out[DIGEST_SHA256_BYTES])
{
    crypto_hash_sha256_state st;

    crypto_hash_sha256_init(&st);
    if (a_len > 0)
        crypto_hash_sha256_update(&st, a, a_len);
    if (b_len > 0)
        crypto_hash_sha256_update(&st, b, b_len);
    crypto_hash_sha256_final(&st, out);
}

static bool hmac_openssl(const uint8_t *key, size_t key_len, const void *msg,
                         size_t msg_len, uint8_t out[DIGEST_SHA256_BYTES])
{
    EVP_MAC_CTX *ctx = mac_ctx();
    size_t n = 0;
    bool is_done;

    (void)ERR_set_mark();
    is_done = ctx != NULL && EVP_MAC_init(ctx, key, key_len, NULL) == 1 &&
              (msg_len == 0 || EVP_MAC_update(ctx, msg, msg_len) == 1) &&
              EVP_MAC_final(ctx, out, &n, DIGEST_SHA256_BYTES) == 1 &&
              n == DIGEST_SHA256_BYTES;
    (void)ERR_pop_to_mark();
    return is_done;
}

void digest_hmac_sha256(const uint8_t *key, size_t key_len, const void *msg,
                        size_t msg_len, uint8_t out[DIGEST_SHA256_BYTES])
{
    /* EVP_MAC_init with no key would use the context's last one. */
    static const uint8_t empty[1];

    if (key == NULL)
        key = empty; /* key_len is 0 */
    if (!hmac_openssl(key, key_len, msg, msg_len, out))
        digest_hmac_sha256_sodium(key, key_len, msg, msg_len, out);
}

void digest_hmac_sha256_sodium(const uint8_t *key, size_t key_len,
                               const void *msg, size_t msg_len,
                               uint8_t out[DIGEST_SHA256_BYTES])
{
    static const uint8_t empty[1];
    crypto_auth_hmacsha256_state st;

    crypto_auth_hmacsha256_init(&st, key ? key : empty, key_len);
    if (msg_len > 0)
        crypto_auth_hmacsha256_update(&st, msg, msg_len);
    crypto_auth_hmacsha256_final(&st, out);
    sodium_memzero(&st, sizeof st);
}
