/*
 * ledger.c: the campaign ledger's content, links and walk; see ledger.h and
 * docs/ledger.md.
 */
#include "ledger.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "digest.h"
#include "rng.h"

const char ledger_genesis[LEDGER_HASH_HEX] =
    "0000000000000000000000000000000000000000000000000000000000000000";

/* A growing buffer of content: on the caller's array until it outgrows
 * it, then on the heap. */
typedef struct buf {
    char *p;
    size_t len, cap;
    bool is_oom;
    bool is_heap; /* p is malloc'd (else the caller's array, or NULL) */
} buf;

/* Room in b for n more bytes and a NUL; false when out of memory (b
 * then is_oom). */
static bool reserve(buf *b, size_t n)
{
    size_t cap;
    char *p;

    if (b->is_oom)
        return false;
    if (b->len + n + 1 <= b->cap)
        return true;
    cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    p = b->is_heap ? realloc(b->p, cap) : malloc(cap);
    if (p == NULL) {
        b->is_oom = true;
        return false;
    }
    if (!b->is_heap && b->len > 0)
        memcpy(p, b->p, b->len);
    b->p = p;
    b->cap = cap;
    b->is_heap = true;
    return true;
}

static void put(buf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* v in decimal ("%lld") into the end of num (24 bytes); returns where it
 * starts. */
static char *decimal(long long v, char num[24])
{
    char *p = num + 24;
    unsigned long long u =
        v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0)
        *--p = '-';
    return p;
}

/* The fields of one entry's content, gathered before they are written:
 * each field's bytes, then all of them as netstrings ("<length>:<bytes>,")
 * in one reservation (every entry is some twenty of them, and every roll
 * of a campaign combat is chained, and every entry of an export checked,
 * as one). */
enum { FIELDS_MAX = 18, NUMS_MAX = 5 }; /* a roll's 18; its 5 numbers */

typedef struct fields {
    struct {
        const char *s;
        size_t n;
    } f[FIELDS_MAX];
    size_t n_f;
    size_t room;            /* bytes they take at most, as netstrings */
    char num[NUMS_MAX][24]; /* the numbers' decimal text (decimal) */
    size_t n_num;
} fields;

/* The decimal digits of n. */
static size_t digits(size_t n)
{
    size_t k = 1;

    while (n >= 10) {
        n /= 10;
        k++;
    }
    return k;
}

/* A field of n bytes at s (borrowed until put_fields). */
static void add(fields *fs, const char *s, size_t n)
{
    assert(fs->n_f < FIELDS_MAX);
    fs->f[fs->n_f].s = s;
    fs->f[fs->n_f].n = n;
    fs->n_f++;
    fs->room += digits(n) + 2 + n; /* its length, ':', it and ',' */
}

/* A text field (NULL: the empty text). */
static void add_text(fields *fs, const char *s)
{
    add(fs, s ? s : "", s ? strlen(s) : 0);
}

static void add_num(fields *fs, long long v)
{
    char *num, *d;

    assert(fs->n_num < NUMS_MAX);
    num = fs->num[fs->n_num++];
    d = decimal(v, num);

    add(fs, d, (size_t)(num + 24 - d));
}

/* The fields of fs as netstrings at the end of b. */
static void put_fields(buf *b, const fields *fs)
{
    size_t i;
    char *p;

    if (!reserve(b, fs->room))
        return;
    p = b->p + b->len;
    for (i = 0; i < fs->n_f; i++) {
        size_t n = fs->f[i].n;
        if (n < 10) {
            *p++ = (char)('0' + n);
        } else {
            char num[24], *d = decimal((long long)n, num);
            size_t k = (size_t)(num + sizeof num - d);
            memcpy(p, d, k);
            p += k;
        }
        *p++ = ':';
        memcpy(p, fs->f[i].s, n);
        p += n;
        *p++ = ',';
    }
    *p = '\0';
    b->len = (size_t)(p - b->p);
}

/* A comma-separated list of n copies of each (faces) or of values, into
 * list (empty when n is 0). */
static void list_of(buf *list, const int *values, int each, size_t n)
{
    size_t i;

    put(list, "", 0);
    for (i = 0; i < n; i++) {
        char num[24], *d = decimal(values ? values[i] : each, num);
        if (i > 0)
            put(list, ",", 1);
        put(list, d, (size_t)(num + sizeof num - d));
    }
}

/* The literal s as a field, without counting it. */
#define ADD_LITERAL(fs, s) add((fs), (s), sizeof(s) - 1)

/* The entry's canonical content (docs/ledger.md) into b. */
static void content(buf *b, const ledger_entry *en)
{
    buf faces = {0}, naturals = {0};
    fields fs;

    fs.n_f = fs.room = fs.n_num = 0;
    ADD_LITERAL(&fs, LEDGER_VERSION);
    if (en->kind == LEDGER_ROLL)
        ADD_LITERAL(&fs, "roll");
    else
        ADD_LITERAL(&fs, "action");
    add_text(&fs, en->campaign_id);
    add_num(&fs, en->pos);
    add_text(&fs, en->at);
    add_text(&fs, en->record_id);
    add_num(&fs, en->seq);
    if (en->kind == LEDGER_ROLL) {
        add_text(&fs, en->side);
        add_text(&fs, en->unit_id);
        add_text(&fs, en->unit);
        add_text(&fs, en->reason);
        add_num(&fs, en->faces);
        add_num(&fs, en->natural);
        add_num(&fs, en->modified);
    } else {
        add_text(&fs, en->action);
        list_of(&faces, NULL, LEDGER_BATTLE_DIE, en->n_naturals);
        list_of(&naturals, en->naturals, 0, en->n_naturals);
        if (faces.is_oom || naturals.is_oom)
            b->is_oom = true;
        add(&fs, faces.p ? faces.p : "", faces.len);
        add(&fs, naturals.p ? naturals.p : "", naturals.len);
        add_text(&fs, en->detail);
    }
    add_text(&fs, en->source);
    add_text(&fs, en->rng);
    add_text(&fs, en->commitment);
    add_text(&fs, en->client_seed);
    put_fields(b, &fs);
    free(faces.p);
    free(naturals.p);
}

char *ledger_content(const ledger_entry *en, size_t *len)
{
    buf b = {0};

    content(&b, en);
    if (b.is_oom) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

/* SHA-256 is the ledger's dearest work (every roll chained, every entry
 * of a verify or an export): digest.h's, OpenSSL's with a context kept
 * by each thread. */
void ledger_link_raw(const uint8_t prev[LEDGER_HASH_BYTES], const char *content,
                     size_t len, uint8_t out[LEDGER_HASH_BYTES])
{
    digest_sha256(prev, LEDGER_HASH_BYTES, content, len, out);
}

void ledger_unhex(const char *hex, uint8_t out[LEDGER_HASH_BYTES])
{
    if (hex == NULL || rng_unhex(hex, out, LEDGER_HASH_BYTES) != 0)
        memset(out, 0, LEDGER_HASH_BYTES);
}

void ledger_link(const char *prev, const char *content, size_t len,
                 char out[LEDGER_HASH_HEX])
{
    uint8_t prev_raw[LEDGER_HASH_BYTES], h[LEDGER_HASH_BYTES];

    ledger_unhex(prev, prev_raw);
    ledger_link_raw(prev_raw, content, len, h);
    rng_hex(h, sizeof h, out);
}

err_code ledger_hash_raw(const ledger_entry *en,
                         const uint8_t prev[LEDGER_HASH_BYTES],
                         uint8_t out[LEDGER_HASH_BYTES], err_info *e)
{
    /* A roll's content fits on the stack; a long battle action's may
     * not, and moves to the heap. */
    char on_stack[1024];
    buf b = {on_stack, 0, sizeof on_stack, false, false};

    content(&b, en);
    if (!b.is_oom)
        ledger_link_raw(prev, b.p, b.len, out);
    if (b.is_heap)
        free(b.p);
    if (b.is_oom)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    return ERR_OK;
}

err_code ledger_hash(const ledger_entry *en, const char *prev,
                     char out[LEDGER_HASH_HEX], err_info *e)
{
    uint8_t prev_raw[LEDGER_HASH_BYTES], h[LEDGER_HASH_BYTES];
    err_code rc;

    ledger_unhex(prev, prev_raw);
    if ((rc = ledger_hash_raw(en, prev_raw, h, e)) == ERR_OK)
        rng_hex(h, sizeof h, out);
    return rc;
}

int ledger_parse_naturals(const char *text, int *out, size_t max)
{
    const char *p = text;
    size_t n = 0;

    if (p == NULL || *p++ != '[')
        return -1;
    while (*p == ' ')
        p++;
    if (*p == ']')
        return p[1] == '\0' ? 0 : -1;
    for (;;) {
        char *end;
        long v;
        while (*p == ' ')
            p++;
        if (*p < '0' || *p > '9')
            return -1;
        v = strtol(p, &end, 10);
        if (n == max || v > 1000)
            return -1;
        out[n++] = (int)v;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == ']')
            return p[1] == '\0' ? (int)n : -1;
        if (*p++ != ',')
            return -1;
    }
}

/* Marks the walk broken at pos, with a reason (printf formatting). */
static void broken(ledger_walk *w, long long pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void broken(ledger_walk *w, long long pos, const char *fmt, ...)
{
    va_list ap;

    w->broken_pos = pos;
    va_start(ap, fmt);
    vsnprintf(w->why, sizeof w->why, fmt, ap);
    va_end(ap);
}

err_code ledger_check(const ledger_entry *entries, size_t n,
                      long long recorded_length, const char *recorded_head,
                      ledger_walk *out, err_info *e)
{
    const char *prev = ledger_genesis;
    size_t i;
    err_code rc;
    /* The hash of the entry before, as its bytes: each entry names it
     * (checked as text first), so it is what the last one hashed to. */
    uint8_t prev_raw[LEDGER_HASH_BYTES] = {0}, h_raw[LEDGER_HASH_BYTES];

    memset(out, 0, sizeof *out);
    memcpy(out->head, ledger_genesis, LEDGER_HASH_HEX);
    for (i = 0; i < n; i++) {
        const ledger_entry *en = &entries[i];
        long long want = (long long)i + 1;
        char h[LEDGER_HASH_HEX];

        if (en->pos != want) {
            broken(out, want,
                   "entry %lld is missing: the next one stored is numbered "
                   "differently (an entry was deleted or inserted)",
                   want);
            return ERR_OK;
        }
        if (en->prev_hash == NULL || strcmp(en->prev_hash, prev) != 0) {
            broken(out, want,
                   "entry %lld does not name the hash of the entry before it "
                   "(an entry before it was replaced, or the chain was cut)",
                   want);
            return ERR_OK;
        }
        if ((rc = ledger_hash_raw(en, prev_raw, h_raw, e)))
            return rc;
        rng_hex(h_raw, sizeof h_raw, h);
        if (en->hash == NULL || strcmp(en->hash, h) != 0) {
            broken(out, want,
                   "entry %lld does not match its hash (its content was "
                   "altered)",
                   want);
            return ERR_OK;
        }
        prev = en->hash;
        memcpy(prev_raw, h_raw, sizeof prev_raw);
        out->length = want;
        memcpy(out->head, en->hash, LEDGER_HASH_HEX);
    }
    if (recorded_length > out->length) {
        broken(out, out->length + 1,
               "the campaign records %lld entries, and the chain stops "
               "before that (entries were deleted from its end)",
               recorded_length);
        return ERR_OK;
    }
    if (recorded_length < out->length) {
        broken(out, recorded_length + 1,
               "the campaign records %lld entries, and the chain holds more",
               recorded_length);
        return ERR_OK;
    }
    if (recorded_head == NULL || strcmp(recorded_head, out->head) != 0)
        broken(out, out->length,
               "the campaign's recorded head is not the hash of entry %lld",
               out->length);
    return ERR_OK;
}

/* The dice check's state for one record. */
typedef struct record_stream {
    const char *record_id;
    const char *seed_hex;    /* NULL: hidden */
    const char *client_seed; /* as its first entry names it */
    char commitment[LEDGER_HASH_HEX];
    int last_seq;
    bool is_started;
    rng_v1 rng;
} record_stream;

static int by_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int seed_by_id(const void *a, const void *b)
{
    return strcmp(((const ledger_seed *)a)->record_id,
                  ((const ledger_seed *)b)->record_id);
}

/* The records of entries, each once, sorted (ids borrowed): *n of them
 * in a new array, with a stream each (zeroed) in *streams.  Entries are
 * then matched to their stream by binary search, so the check stays
 * n log n however many records a campaign has. */
static err_code streams_make(const ledger_entry *entries, size_t n,
                             const ledger_seed *seeds, size_t n_seeds,
                             const char ***ids, record_stream **streams,
                             size_t *n_ids, err_info *e)
{
    ledger_seed *sorted = malloc((n_seeds ? n_seeds : 1) * sizeof *sorted);
    size_t i, k = 0;

    *ids = malloc((n ? n : 1) * sizeof **ids);
    *streams = calloc(n ? n : 1, sizeof **streams);
    if (sorted == NULL || *ids == NULL || *streams == NULL) {
        free(sorted);
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    for (i = 0; i < n; i++)
        (*ids)[i] = entries[i].record_id;
    qsort(*ids, n, sizeof **ids, by_id);
    for (i = 0; i < n; i++)
        if (k == 0 || strcmp((*ids)[k - 1], (*ids)[i]) != 0)
            (*ids)[k++] = (*ids)[i];
    *n_ids = k;
    if (n_seeds > 0)
        memcpy(sorted, seeds, n_seeds * sizeof *sorted);
    qsort(sorted, n_seeds, sizeof *sorted, seed_by_id);
    for (i = 0; i < k; i++) {
        ledger_seed key = {(*ids)[i], NULL};
        const ledger_seed *found =
            bsearch(&key, sorted, n_seeds, sizeof *sorted, seed_by_id);
        (*streams)[i].record_id = (*ids)[i];
        (*streams)[i].seed_hex = found ? found->server_seed : NULL;
    }
    free(sorted);
    return ERR_OK;
}

/* The stream of en's record. */
static record_stream *stream_for(const char **ids, record_stream *streams,
                                 size_t n_ids, const ledger_entry *en)
{
    const char **found =
        bsearch(&en->record_id, ids, n_ids, sizeof *ids, by_id);

    return &streams[found - ids];
}

/* Starts s's stream at its first entry; false (and why) if the seed does
 * not match the commitment. */
static bool stream_start(record_stream *s, const ledger_entry *en,
                         ledger_walk *out)
{
    uint8_t seed[RNG_SEED_LEN];
    const char *cs = en->client_seed ? en->client_seed : "";

    s->is_started = true;
    s->client_seed = cs;
    if (rng_unhex(s->seed_hex, seed, sizeof seed) != 0) {
        broken(out, en->pos,
               "entry %lld: the revealed seed of its record "
               "is malformed",
               en->pos);
        return false;
    }
    rng_commitment(seed, s->commitment);
    rng_v1_init(&s->rng, seed, (const uint8_t *)cs, strlen(cs));
    sodium_memzero(seed, sizeof seed);
    return true;
}

/* Checks one seeded entry's dice against s; false at the first die that
 * does not re-derive (why set). */
static bool stream_check(record_stream *s, const ledger_entry *en,
                         ledger_walk *out, ledger_dice *count)
{
    size_t n = en->kind == LEDGER_ROLL ? 1 : en->n_naturals, i;

    if (strcmp(s->commitment, en->commitment ? en->commitment : "") != 0) {
        broken(out, en->pos,
               "entry %lld: the seed revealed for its record "
               "does not match the commitment it names",
               en->pos);
        return false;
    }
    if (strcmp(s->client_seed, en->client_seed ? en->client_seed : "") != 0) {
        broken(out, en->pos,
               "entry %lld names another client seed than the "
               "entries of its record before it",
               en->pos);
        return false;
    }
    for (i = 0; i < n; i++) {
        int faces = en->kind == LEDGER_ROLL ? en->faces : LEDGER_BATTLE_DIE;
        int logged = en->kind == LEDGER_ROLL ? en->natural : en->naturals[i];
        int derived;
        if (faces < RNG_FACES_MIN || faces > RNG_FACES_MAX) {
            broken(out, en->pos,
                   "entry %lld: a die of that many faces "
                   "cannot be rolled",
                   en->pos);
            return false;
        }
        derived = rng_v1_die(&s->rng, faces);
        if (derived != logged) {
            out->broken_pos = en->pos;
            snprintf(out->why, sizeof out->why,
                     "entry %lld: die %zu of %s seq %d: the seed gives %d, "
                     "the ledger says %d (the die was changed or re-rolled)",
                     en->pos, i + 1, en->record_id, en->seq, derived, logged);
            return false;
        }
        count->rederived++;
    }
    return true;
}

err_code ledger_check_dice(const ledger_entry *entries, size_t n,
                           const ledger_seed *seeds, size_t n_seeds,
                           ledger_walk *out, ledger_dice *count, err_info *e)
{
    const char **ids = NULL;
    record_stream *rs = NULL;
    size_t n_ids = 0, i;
    err_code rc;

    memset(count, 0, sizeof *count);
    out->broken_pos = 0;
    out->why[0] = '\0';
    if ((rc = streams_make(entries, n, seeds, n_seeds, &ids, &rs, &n_ids, e)))
        goto out;
    for (i = 0; i < n && out->broken_pos == 0; i++) {
        const ledger_entry *en = &entries[i];
        record_stream *s = stream_for(ids, rs, n_ids, en);
        long long dice =
            en->kind == LEDGER_ROLL ? 1 : (long long)en->n_naturals;

        if (en->seq != s->last_seq + 1) {
            out->broken_pos = en->pos;
            snprintf(out->why, sizeof out->why,
                     "entry %lld: %s seq %d follows seq %d in the ledger (a "
                     "die or action of it is missing or out of place)",
                     en->pos, en->record_id, en->seq, s->last_seq);
            break;
        }
        s->last_seq = en->seq;
        if (en->source == NULL || strcmp(en->source, "seeded") != 0) {
            count->entered += dice;
            continue;
        }
        count->seeded += dice;
        if (s->seed_hex == NULL) {
            count->pending += dice;
            continue;
        }
        if (!s->is_started && !stream_start(s, en, out))
            break;
        if (!stream_check(s, en, out, count))
            break;
    }
out:
    for (i = 0; rs && i < n_ids; i++)
        if (rs[i].is_started)
            rng_v1_cleanup(&rs[i].rng);
    free(rs);
    free(ids);
    return rc;
}
