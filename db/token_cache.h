/*
 * token_cache.h: the live tokens that bearers have shown, kept by the
 * SQLite store's readers (token_cache.c), so that a request's
 * authentication reads no row: about 17k instructions a request, most of
 * it the pages SQLite reads again after each commit of the writer.
 * Included by db/'s own files only.
 *
 * A token stops being live only when it is reissued (db_token_reissue,
 * tokens.c), in a writer job.  The cache has a generation: the writer
 * counts it once a batch with a reissue has ended, before the batch's
 * requests are answered, and a token is kept with the generation read
 * before its row was, and found only while the generation is still that.
 * So a token reissued is never found here once its reissue is answered,
 * and a lookup that began before the reissue committed reads the row
 * again.  Only live tokens are kept (an unknown one is read each time),
 * only by the readers (the writer's reads may see its own uncommitted
 * writes), and on SQLite only: a PostgreSQL store has other instances'
 * writers, whose reissues this instance would not hear of.
 */
#ifndef UMPIRE_TOKEN_CACHE_H
#define UMPIRE_TOKEN_CACHE_H

#include <stdbool.h>

#include "db.h"

typedef struct token_cache token_cache;

/* NULL when out of memory (then nothing is kept: every token is read). */
token_cache *token_cache_new(void);
void token_cache_free(token_cache *k);

/* The generation now: read it before the row, and keep the row with it. */
unsigned long long token_cache_generation(token_cache *k);
/* The live token whose hash is hash_hex (64 hex digits) into *out, when
 * kept at the generation now (true). */
bool token_cache_get(token_cache *k, const char *hash_hex, db_token *out);
/* Keeps t, read live with hash hash_hex after generation was read. */
void token_cache_put(token_cache *k, const char *hash_hex,
                     unsigned long long generation, const db_token *t);
/* A token was reissued, and its batch has ended (committed or not):
 * forgets every token kept (the writer, before it answers the batch). */
void token_cache_reissued(token_cache *k);

/* ---- the connections' side (db_conn's tokens) ---- */

/* db_token_find's: the live token of hash_hex as c finds it, when kept
 * (true); else *generation is the one to keep it with once read. */
bool db_token_kept(db_conn *c, const char *hash_hex, db_token *out,
                   unsigned long long *generation);
/* A live token c read, after *generation was read (db_token_kept): kept
 * where c read it outside a transaction, with no statement stepping (the
 * store as it stands, not an older snapshot; called once the statement
 * that read it is done). */
void db_token_keep(db_conn *c, const char *hash_hex,
                   unsigned long long generation, const db_token *t);

/* db_token_reissue's: c, the writer, reissued a token in its batch. */
void db_token_reissued(db_conn *c);

/* For tests: lookups answered and not; d's cache (NULL: none). */
void token_cache_stats(token_cache *k, long long *hits, long long *misses);
token_cache *db_token_cache(db *d);

#endif
