/*
 * token_cache.c: live tokens kept by the SQLite store's readers; see
 * token_cache.h.
 *
 * TOKEN_SLOTS tokens, each in the slot its hash's first digits name
 * (another token's there takes its place), with the generation it was
 * read after.  A lock for each of TOKEN_LOCKS stripes of slots, so that
 * the request workers do not queue on one.  About 150 KB.
 */
#include "token_cache.h"

#include "db_conn.h"
#include "db_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "rng.h"

enum { TOKEN_SLOTS = 1024, TOKEN_LOCKS = 16 };

typedef struct token_slot {
    char hash[65]; /* "": none */
    unsigned long long generation;
    db_token token;
} token_slot;

/* A stripe's lock, and its lookups answered and not (counted under it:
 * no line that every worker writes). */
typedef struct token_stripe {
    pthread_mutex_t lock;
    long long hits, misses;
} token_stripe;

struct token_cache {
    atomic_ullong generation;
    token_stripe stripes[TOKEN_LOCKS];
    token_slot slots[TOKEN_SLOTS];
};

token_cache *token_cache_new(void)
{
    token_cache *k = calloc(1, sizeof *k);
    int i;

    if (k == NULL)
        return NULL;
    atomic_init(&k->generation, 1);
    for (i = 0; i < TOKEN_LOCKS; i++)
        pthread_mutex_init(&k->stripes[i].lock, NULL);
    return k;
}

void token_cache_free(token_cache *k)
{
    int i;

    if (k == NULL)
        return;
    for (i = 0; i < TOKEN_LOCKS; i++)
        pthread_mutex_destroy(&k->stripes[i].lock);
    /* A token's hash is no secret, nor its row; nothing to wipe. */
    free(k);
}

/* The slot of a hash: its first four hex digits (a hash's digits are
 * evenly spread), or -1 where it is not 64 hex digits. */
static int slot_of(const char *hash_hex)
{
    char head[5];
    uint8_t b[2];

    if (hash_hex == NULL || strlen(hash_hex) != 64)
        return -1;
    memcpy(head, hash_hex, 4);
    head[4] = '\0';
    if (rng_unhex(head, b, sizeof b) != 0)
        return -1;
    return (int)(((unsigned)b[0] << 8 | b[1]) % TOKEN_SLOTS);
}

unsigned long long token_cache_generation(token_cache *k)
{
    return atomic_load(&k->generation);
}

bool token_cache_get(token_cache *k, const char *hash_hex, db_token *out)
{
    int s = slot_of(hash_hex);
    token_stripe *stripe;
    token_slot *t;
    bool is_hit;

    if (s < 0)
        return false;
    stripe = &k->stripes[s % TOKEN_LOCKS];
    t = &k->slots[s];
    pthread_mutex_lock(&stripe->lock);
    is_hit = t->generation == atomic_load(&k->generation) &&
             strcmp(t->hash, hash_hex) == 0;
    if (is_hit)
        *out = t->token;
    if (is_hit)
        stripe->hits++;
    else
        stripe->misses++;
    pthread_mutex_unlock(&stripe->lock);
    return is_hit;
}

void token_cache_put(token_cache *k, const char *hash_hex,
                     unsigned long long generation, const db_token *tok)
{
    int s = slot_of(hash_hex);
    token_stripe *stripe;
    token_slot *t;

    if (s < 0)
        return;
    stripe = &k->stripes[s % TOKEN_LOCKS];
    t = &k->slots[s];
    pthread_mutex_lock(&stripe->lock);
    memcpy(t->hash, hash_hex, sizeof t->hash);
    t->generation = generation;
    t->token = *tok;
    pthread_mutex_unlock(&stripe->lock);
}

void token_cache_reissued(token_cache *k)
{
    if (k != NULL)
        atomic_fetch_add(&k->generation, 1);
}

void token_cache_stats(token_cache *k, long long *hits, long long *misses)
{
    int i;

    *hits = *misses = 0;
    for (i = 0; k != NULL && i < TOKEN_LOCKS; i++) {
        pthread_mutex_lock(&k->stripes[i].lock);
        *hits += k->stripes[i].hits;
        *misses += k->stripes[i].misses;
        pthread_mutex_unlock(&k->stripes[i].lock);
    }
}

token_cache *db_token_cache(db *d)
{
    return d->tokens;
}

/* A reader's cache; the writer's reads may see its own writes not yet
 * committed, and keep nothing. */
static token_cache *reader_cache(const db_conn *c)
{
    return c->is_writer ? NULL : c->tokens;
}

bool db_token_kept(db_conn *c, const char *hash_hex, db_token *out,
                   unsigned long long *generation)
{
    token_cache *k = reader_cache(c);

    *generation = k ? token_cache_generation(k) : 0;
    return k != NULL && token_cache_get(k, hash_hex, out);
}

/* Whether c reads the store as it now stands: no transaction open, and
 * no statement left stepping (either holds an older snapshot, whose rows
 * must not be kept at the generation now). */
static bool reads_now(db_conn *c)
{
    sqlite3_stmt *st = NULL;

    if (c->lite == NULL || !sqlite3_get_autocommit(c->lite))
        return false;
    while ((st = sqlite3_next_stmt(c->lite, st)) != NULL)
        if (sqlite3_stmt_busy(st))
            return false;
    return true;
}

void db_token_keep(db_conn *c, const char *hash_hex,
                   unsigned long long generation, const db_token *t)
{
    token_cache *k = reader_cache(c);

    if (k != NULL && reads_now(c))
        token_cache_put(k, hash_hex, generation, t);
}

void db_token_reissued(db_conn *c)
{
    c->is_token_reissued = true;
}
