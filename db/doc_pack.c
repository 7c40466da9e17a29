/*
 * doc_pack.c: documents stored packed (db_sql.h): zstd with the
 * dictionary of doc_dict.c, a context of each kind kept per thread, and
 * the readers of every layout stored so far (with the dictionary, bare
 * frames, frames after a prefix, text as it is).  The statements they are
 * read and written with are db_sql.c's.
 */
#include "db_sql.h"
#include "doc_dict.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

enum { DOC_MAX = 64 * 1024 * 1024 };

/* A document is packed by zstd with the dictionary of doc_dict.c: a
 * report shrinks to about a seventh, at level -1 (the level that packs it
 * with the least work still to less than it packed to at level 1 without
 * a dictionary).  What is packed with a dictionary starts with the tag of
 * that dictionary, then the zstd frame (with a checksum: read with other
 * bytes as its dictionary, a frame would give another text without it).
 * Documents packed before the dictionary are a bare zstd frame, at level
 * 1, and still read, as are those packed after another as their reference
 * (db_doc_text_after).  (Nothing is packed so now: the tests write such
 * values with their own packers, db_fixture_pack_after.) */
enum { DOC_DICT_LEVEL = -1, DOC_TAG_LEN = 4 };
/* db_doc_pack_small's level, with the same dictionary: a campaign
 * combat's report, kept and read for the campaign's life, packs about a
 * fifth smaller at level 3 than at -1, for about a fifth more work (the
 * frame reads back the same way; level 1 saves only a little of the
 * work, for less of the size). */
enum { DOC_DICT_LEVEL_SMALL = 3 };
/* db_doc_pack_quick's level, with the same dictionary, for a one-off's
 * report (a system's that stores reports, not facts: facts.c).  Measured
 * on a SCRUD 8 v 4 one-off's report (about 7 KB), before SCRUD combats
 * were stored as their facts: about 10k instructions less at -3 than at
 * -1 (under callgrind), about 5 % larger (1,170 bytes on average rather
 * than 1,115; 1,265 at most), its row still two to a 4 KB page.  Lower
 * levels packed larger for no less work. */
enum { DOC_DICT_LEVEL_QUICK = -3 };
static const unsigned char doc_tag_v1[DOC_TAG_LEN] = {0x1b, 'u', 'd', '1'};

/* The dictionary prepared for packing at each level and for reading,
 * each made the first time it is needed (a store only read never makes
 * the packers' three, which cost about a million instructions each) and
 * read-only once made, shared by every thread; and a context of each
 * kind per thread (made once: making one per document costs more than
 * the packing), freed when its thread ends. */
static ZSTD_CDict *doc_cdict, *doc_cdict_small, *doc_cdict_quick;
static ZSTD_DDict *doc_ddict;
static pthread_key_t doc_key, doc_dkey;
static pthread_once_t doc_once = PTHREAD_ONCE_INIT,
                      cdict_once = PTHREAD_ONCE_INIT,
                      cdict_small_once = PTHREAD_ONCE_INIT,
                      cdict_quick_once = PTHREAD_ONCE_INIT,
                      ddict_once = PTHREAD_ONCE_INIT;

static void doc_cctx_free(void *cctx)
{
    ZSTD_freeCCtx(cctx);
}

static void doc_dctx_free(void *dctx)
{
    ZSTD_freeDCtx(dctx);
}

static void doc_key_make(void)
{
    (void)pthread_key_create(&doc_key, doc_cctx_free);
    (void)pthread_key_create(&doc_dkey, doc_dctx_free);
}

static void cdict_make(void)
{
    doc_cdict =
        ZSTD_createCDict(db_doc_dict_v1, db_doc_dict_v1_len, DOC_DICT_LEVEL);
}

static void cdict_small_make(void)
{
    doc_cdict_small = ZSTD_createCDict(db_doc_dict_v1, db_doc_dict_v1_len,
                                       DOC_DICT_LEVEL_SMALL);
}

static void cdict_quick_make(void)
{
    doc_cdict_quick = ZSTD_createCDict(db_doc_dict_v1, db_doc_dict_v1_len,
                                       DOC_DICT_LEVEL_QUICK);
}

static void ddict_make(void)
{
    doc_ddict = ZSTD_createDDict(db_doc_dict_v1, db_doc_dict_v1_len);
}

/* This thread's context, or NULL when out of memory. */
static ZSTD_CCtx *doc_cctx(void)
{
    ZSTD_CCtx *cctx;

    pthread_once(&doc_once, doc_key_make);
    if ((cctx = pthread_getspecific(doc_key)) == NULL &&
        (cctx = ZSTD_createCCtx()) != NULL &&
        pthread_setspecific(doc_key, cctx) != 0) {
        ZSTD_freeCCtx(cctx);
        cctx = NULL;
    }
    return cctx;
}

static ZSTD_DCtx *doc_dctx(void)
{
    ZSTD_DCtx *dctx;

    pthread_once(&doc_once, doc_key_make);
    if ((dctx = pthread_getspecific(doc_dkey)) == NULL &&
        (dctx = ZSTD_createDCtx()) != NULL &&
        pthread_setspecific(doc_dkey, dctx) != 0) {
        ZSTD_freeDCtx(dctx);
        dctx = NULL;
    }
    return dctx;
}

/* text packed with the dictionary prepared as cdict (made by once's
 * function, called here first). */
static unsigned char *pack_dict(const char *text, ZSTD_CDict *const *cdict,
                                pthread_once_t *once, void (*make)(void),
                                size_t *len)
{
    size_t n = strlen(text), room = ZSTD_compressBound(n), got;
    ZSTD_CCtx *cctx;
    unsigned char *z;

    (void)pthread_once(once, make);
    if (n > DOC_MAX || (cctx = doc_cctx()) == NULL || *cdict == NULL)
        return NULL;
    if ((z = malloc(DOC_TAG_LEN + room)) == NULL)
        return NULL;
    memcpy(z, doc_tag_v1, DOC_TAG_LEN);
    got = ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    if (!ZSTD_isError(got))
        got = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(got))
        got = ZSTD_CCtx_refCDict(cctx, *cdict);
    if (!ZSTD_isError(got))
        got = ZSTD_compress2(cctx, z + DOC_TAG_LEN, room, text, n);
    (void)ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    if (ZSTD_isError(got)) {
        free(z);
        return NULL;
    }
    *len = DOC_TAG_LEN + got;
    return z;
}

unsigned char *db_doc_pack(const char *text, size_t *len)
{
    return pack_dict(text, &doc_cdict, &cdict_once, cdict_make, len);
}

unsigned char *db_doc_pack_small(const char *text, size_t *len)
{
    return pack_dict(text, &doc_cdict_small, &cdict_small_once,
                     cdict_small_make, len);
}

unsigned char *db_doc_pack_quick(const char *text, size_t *len)
{
    return pack_dict(text, &doc_cdict_quick, &cdict_quick_once,
                     cdict_quick_make, len);
}

/* Whether the n bytes at z start a zstd frame. */
static bool is_zstd(const unsigned char *z, size_t n)
{
    return n >= 4 && z[0] == 0x28 && z[1] == 0xb5 && z[2] == 0x2f &&
           z[3] == 0xfd;
}

/* The text of the packed frame at z (zlen bytes), packed with the
 * dictionary (is_dict), after prefix, or with neither; NULL when it does
 * not inflate to its length. */
static char *doc_inflate(const void *z, size_t zlen, bool is_dict,
                         const char *prefix)
{
    unsigned long long n = ZSTD_getFrameContentSize(z, zlen);
    ZSTD_DCtx *dctx;
    size_t got;
    char *text;

    if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR ||
        n > DOC_MAX || (text = malloc((size_t)n + 1)) == NULL)
        return NULL;
    /* This thread's context, its parameters and any prefix cleared. */
    if ((dctx = doc_dctx()) == NULL ||
        ZSTD_isError(ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters)))
        got = (size_t)-1;
    else if (is_dict && pthread_once(&ddict_once, ddict_make) != 0)
        got = (size_t)-1;
    else if (is_dict)
        got = doc_ddict == NULL
                  ? (size_t)-1
                  : ZSTD_decompress_usingDDict(dctx, text, (size_t)n, z, zlen,
                                               doc_ddict);
    else if (prefix == NULL)
        got = ZSTD_decompressDCtx(dctx, text, (size_t)n, z, zlen);
    else {
        got = ZSTD_DCtx_refPrefix(dctx, prefix, strlen(prefix));
        if (!ZSTD_isError(got))
            got = ZSTD_decompressDCtx(dctx, text, (size_t)n, z, zlen);
    }
    if (ZSTD_isError(got) || got != n) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

bool db_doc_is_dict(const void *z, size_t zlen)
{
    return zlen > DOC_TAG_LEN && memcmp(z, doc_tag_v1, DOC_TAG_LEN) == 0;
}

char *db_doc_text_after(const void *z, size_t zlen, const char *prefix)
{
    char *text;

    if (db_doc_is_dict(z, zlen))
        return doc_inflate((const unsigned char *)z + DOC_TAG_LEN,
                           zlen - DOC_TAG_LEN, true, NULL);
    if (!is_zstd(z, zlen)) {
        if ((text = malloc(zlen + 1)) == NULL)
            return NULL;
        memcpy(text, z, zlen);
        text[zlen] = '\0';
        return text;
    }
    return doc_inflate(z, zlen, false, prefix);
}

char *db_doc_text(const void *z, size_t zlen)
{
    return db_doc_text_after(z, zlen, NULL);
}

char *db_column_unpacked(db_stmt *st, int col,
                         char *(*unpack)(const void *, size_t))
{
    const void *z;

    if (db_column_type(st, col) != DB_BLOB)
        return db_column_dup(st, col);
    if ((z = db_column_blob(st, col)) == NULL)
        return NULL;
    return unpack(z, (size_t)db_column_bytes(st, col));
}

char *db_column_doc(db_stmt *st, int col)
{
    return db_column_unpacked(st, col, db_doc_text);
}
