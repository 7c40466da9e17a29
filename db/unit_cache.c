/*
 * unit_cache.c: campaigns' unit rows kept between campaign combats'
 * snapshots; see unit_cache.h.
 *
 * A table of CACHE_CAMPAIGNS campaigns, each in the slot its id hashes
 * to (a campaign takes the slot of another, which is then forgotten),
 * each with the version its rows are of, up to CACHE_UNITS units' rows
 * (a campaign's 65th unit read takes the place of one of them, in turn),
 * up to CACHE_SIDES sides' and the campaign's own.  One lock a slot.
 * About a megabyte when full.
 */
#include "unit_cache.h"

#include "db_conn.h"
#include "db_int.h"
#include "db_sql.h"
#include "writer_kept.h"

#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

enum { CACHE_CAMPAIGNS = 32, CACHE_UNITS = 64, CACHE_SIDES = 16 };

/* What a list of rows holds: rows of size bytes, each starting with its
 * id (db_new_id's, whose every id of the kind starts with id_form) and
 * holding its name at name_at; at most cap of them. */
typedef struct row_kind {
    size_t size, name_at;
    int cap;
    const char *id_form;
} row_kind;

static const row_kind unit_rows = {sizeof(db_unit), offsetof(db_unit, name),
                                   CACHE_UNITS, "unit_"};
static const row_kind side_rows = {sizeof(db_side), offsetof(db_side, name),
                                   CACHE_SIDES, "sd_"};

typedef struct row_list {
    unsigned char *rows; /* cap rows of its kind, made at first use */
    int n, next;         /* kept; the next to give up its place */
} row_list;

typedef struct campaign_slot {
    pthread_mutex_t lock;
    char campaign_id[DB_ID_MAX]; /* "": none */
    long long version;           /* of every row kept */
    row_list units, sides;
    bool has_campaign; /* campaign: its row (db_campaign_get), at version */
    db_campaign campaign;
} campaign_slot;

_Static_assert(offsetof(db_unit, id) == 0 && offsetof(db_side, id) == 0,
               "a row starts with its id");

struct unit_cache {
    campaign_slot slots[CACHE_CAMPAIGNS];
    atomic_llong hits, misses;
};

unit_cache *unit_cache_new(void)
{
    unit_cache *k = calloc(1, sizeof *k);
    int i;

    if (k == NULL)
        return NULL;
    for (i = 0; i < CACHE_CAMPAIGNS; i++)
        pthread_mutex_init(&k->slots[i].lock, NULL);
    return k;
}

void unit_cache_free(unit_cache *k)
{
    int i;

    if (k == NULL)
        return;
    for (i = 0; i < CACHE_CAMPAIGNS; i++) {
        pthread_mutex_destroy(&k->slots[i].lock);
        free(k->slots[i].units.rows);
        free(k->slots[i].sides.rows);
    }
    free(k);
}

unsigned unit_cache_slot(const char *campaign_id)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    const unsigned char *p;

    for (p = (const unsigned char *)campaign_id; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h % CACHE_CAMPAIGNS;
}

static campaign_slot *slot_of(unit_cache *k, const char *campaign_id)
{
    return &k->slots[unit_cache_slot(campaign_id)];
}

/* Whether r has room for its rows (made now if not yet). */
static bool rows_made(row_list *r, const row_kind *kind)
{
    return r->rows != NULL ||
           (r->rows = malloc((size_t)kind->cap * kind->size)) != NULL;
}

/* s given to campaign_id at version, empty; false when out of memory
 * (s then holds nothing).  s locked. */
static bool restart(campaign_slot *s, const char *campaign_id,
                    long long version)
{
    s->campaign_id[0] = '\0';
    s->units.n = s->units.next = 0;
    s->sides.n = s->sides.next = 0;
    s->has_campaign = false;
    if (!rows_made(&s->units, &unit_rows) || !rows_made(&s->sides, &side_rows))
        return false;
    memset(s->campaign_id, 0, sizeof s->campaign_id);
    memcpy(s->campaign_id, campaign_id, strnlen(campaign_id, DB_ID_MAX - 1));
    s->version = version;
    return true;
}

/* Whether s holds campaign_id's rows at version; s locked. */
static bool holds(const campaign_slot *s, const char *campaign_id,
                  long long version)
{
    return s->campaign_id[0] != '\0' && s->version == version &&
           strcmp(s->campaign_id, campaign_id) == 0;
}

/* s given to campaign_id at version, as holds() says: kept in, or
 * started again for a newer version or another campaign; false for an
 * older version (nothing is kept of it) or out of memory.  s locked. */
static bool take(campaign_slot *s, const char *campaign_id, long long version)
{
    if (holds(s, campaign_id, version))
        return true;
    if (strcmp(s->campaign_id, campaign_id) == 0 && s->version > version)
        return false;
    return restart(s, campaign_id, version);
}

/* s's list of the rows of kind. */
static row_list *list_of(campaign_slot *s, const row_kind *kind)
{
    return kind == &unit_rows ? &s->units : &s->sides;
}

/* Row i of r, of kind. */
static unsigned char *row_at(const row_list *r, const row_kind *kind, int i)
{
    return r->rows + (size_t)i * kind->size;
}

/* The place of ref among r's rows: by id, then by name where no row can
 * have ref as its id (the store finds a row by its id before it finds
 * one by its name, and every id of the kind has its form); -1. */
static int row_find(const row_list *r, const row_kind *kind, const char *ref)
{
    int i;

    for (i = 0; i < r->n; i++)
        if (strcmp((const char *)row_at(r, kind, i), ref) == 0)
            return i;
    if (strncmp(ref, kind->id_form, strlen(kind->id_form)) == 0)
        return -1;
    for (i = 0; i < r->n; i++)
        if (strcmp((const char *)row_at(r, kind, i) + kind->name_at, ref) == 0)
            return i;
    return -1;
}

/* row kept in r, in place of its row of before if r has one (else, r
 * full, of the next to give up its place). */
static void row_keep(row_list *r, const row_kind *kind, const void *row)
{
    int i;

    for (i = 0; i < r->n && strcmp((const char *)row_at(r, kind, i),
                                   (const char *)row) != 0;
         i++)
        ;
    if (i == kind->cap) {
        i = r->next;
        r->next = (r->next + 1) % kind->cap;
    } else if (i == r->n)
        r->n++;
    memcpy(row_at(r, kind, i), row, kind->size);
}

/* ref's row of kind (a unit's or a side's, in the slot's list of it) of
 * campaign_id as a snapshot at version reads it, into out: whether kept
 * (counted). */
static bool get_row(unit_cache *k, const char *campaign_id, long long version,
                    const row_kind *kind, const char *ref, void *out)
{
    campaign_slot *s;
    bool is_hit = false;
    int i;

    if (k == NULL)
        return false;
    s = slot_of(k, campaign_id);
    pthread_mutex_lock(&s->lock);
    if (holds(s, campaign_id, version)) {
        const row_list *r = list_of(s, kind);
        if ((i = row_find(r, kind, ref)) >= 0) {
            memcpy(out, row_at(r, kind, i), kind->size);
            is_hit = true;
        }
    }
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add(is_hit ? &k->hits : &k->misses, 1);
    return is_hit;
}

/* row (of kind) of campaign_id, read from a snapshot at version, kept:
 * rows of an older version are forgotten; a row older than those kept is
 * not kept. */
static void put_row(unit_cache *k, const char *campaign_id, long long version,
                    const row_kind *kind, const void *row)
{
    campaign_slot *s;

    if (k == NULL)
        return;
    s = slot_of(k, campaign_id);
    pthread_mutex_lock(&s->lock);
    if (take(s, campaign_id, version))
        row_keep(list_of(s, kind), kind, row);
    pthread_mutex_unlock(&s->lock);
}

bool unit_cache_get(unit_cache *k, const char *campaign_id, long long version,
                    const char *ref, db_unit *out)
{
    return get_row(k, campaign_id, version, &unit_rows, ref, out);
}

void unit_cache_put(unit_cache *k, long long version, const db_unit *u)
{
    put_row(k, u->campaign_id, version, &unit_rows, u);
}

/* The same as unit_cache_get and unit_cache_put for the campaign's sides
 * (by id, or name). */
static bool unit_cache_side_get(unit_cache *k, const char *campaign_id,
                                long long version, const char *ref,
                                db_side *out)
{
    return get_row(k, campaign_id, version, &side_rows, ref, out);
}

static void unit_cache_side_put(unit_cache *k, long long version,
                                const db_side *d)
{
    put_row(k, d->campaign_id, version, &side_rows, d);
}

/* Whether campaign_id's row is kept, and at which version. */
static bool unit_cache_campaign_at(unit_cache *k, const char *campaign_id,
                                   long long *version)
{
    campaign_slot *s;
    bool has;

    if (k == NULL)
        return false;
    s = slot_of(k, campaign_id);
    pthread_mutex_lock(&s->lock);
    has = s->has_campaign && strcmp(s->campaign_id, campaign_id) == 0;
    *version = s->version;
    pthread_mutex_unlock(&s->lock);
    return has;
}

bool unit_cache_campaign_get(unit_cache *k, const char *campaign_id,
                             long long version, db_campaign *out)
{
    campaign_slot *s;
    bool is_hit = false;

    if (k == NULL)
        return false;
    s = slot_of(k, campaign_id);
    pthread_mutex_lock(&s->lock);
    if (holds(s, campaign_id, version) && s->has_campaign) {
        *out = s->campaign;
        out->version = version;
        is_hit = true;
    }
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add(is_hit ? &k->hits : &k->misses, 1);
    return is_hit;
}

/* Keeps cmp, read from a snapshot at its version. */
static void unit_cache_campaign_put(unit_cache *k, const db_campaign *cmp)
{
    campaign_slot *s;

    if (k == NULL)
        return;
    s = slot_of(k, cmp->id);
    pthread_mutex_lock(&s->lock);
    if (take(s, cmp->id, cmp->version)) {
        s->campaign = *cmp;
        s->has_campaign = true;
    }
    pthread_mutex_unlock(&s->lock);
}

void unit_cache_land(unit_cache *k, const unit_landing *l)
{
    campaign_slot *s;
    size_t i;

    if (k == NULL)
        return;
    s = slot_of(k, l->campaign_id);
    pthread_mutex_lock(&s->lock);
    if (holds(s, l->campaign_id, l->from)) {
        /* The rows of every other unit, the sides and the campaign's own
         * (but for its version, which a read gives) are the same at to:
         * a combat writes none of them. */
        s->version = l->to;
    } else if (!take(s, l->campaign_id, l->to)) {
        /* Already newer than to (or out of memory).  Else the slot held
         * rows of another version or campaign: only the combat's units
         * are known at to. */
        pthread_mutex_unlock(&s->lock);
        return;
    }
    for (i = 0; i < l->n; i++)
        row_keep(&s->units, &unit_rows, &l->units[i]);
    pthread_mutex_unlock(&s->lock);
}

static void unit_landing_free(unit_landing *l)
{
    if (l == NULL)
        return;
    free(l->units);
    l->units = NULL;
    l->n = 0;
}

void unit_cache_stats(unit_cache *k, long long *hits, long long *misses)
{
    *hits = k ? atomic_load(&k->hits) : 0;
    *misses = k ? atomic_load(&k->misses) : 0;
}

/* Up to max of the rows of kind kept for campaign_id into out, and their
 * version (-1: none kept); how many. */
static size_t copy_rows(unit_cache *k, const char *campaign_id,
                        const row_kind *kind, long long *version, void *out,
                        size_t max)
{
    campaign_slot *s;
    size_t n = 0;

    *version = -1;
    if (k == NULL)
        return 0;
    s = slot_of(k, campaign_id);
    pthread_mutex_lock(&s->lock);
    if (strcmp(s->campaign_id, campaign_id) == 0) {
        const row_list *r = list_of(s, kind);
        *version = s->version;
        n = max < (size_t)r->n ? max : (size_t)r->n;
        memcpy(out, r->rows, n * kind->size);
    }
    pthread_mutex_unlock(&s->lock);
    return n;
}

size_t unit_cache_rows(unit_cache *k, const char *campaign_id,
                       long long *version, db_unit *out, size_t max)
{
    return copy_rows(k, campaign_id, &unit_rows, version, out, max);
}

size_t unit_cache_sides(unit_cache *k, const char *campaign_id,
                        long long *version, db_side *out, size_t max)
{
    return copy_rows(k, campaign_id, &side_rows, version, out, max);
}

unit_cache *db_unit_cache(db *d)
{
    return d->units;
}

void db_unit_cache_drop(db *d)
{
    unit_cache_free(d->units);
    d->units = NULL;
    d->writer->units = NULL;
}

/* ---- the connections' side ---- */

/* Whether c is a reader holding a snapshot that may use the cache. */
static bool is_snapshot(const db_conn *c)
{
    return c->units != NULL && !c->is_writer;
}

/* The version a reader's snapshot read is kept on either store: a combat
 * worked out ahead of others (pipeline.c) reads it, cache or none
 * (PostgreSQL keeps none). */
void db_snapshot_saw(db_conn *c, const char *campaign_id, long long version)
{
    if (c->is_writer)
        return;
    memcpy(c->snap_campaign, campaign_id, strnlen(campaign_id, DB_ID_MAX - 1));
    c->snap_campaign[strnlen(campaign_id, DB_ID_MAX - 1)] = '\0';
    c->snap_version = version;
}

void db_snapshot_forget(db_conn *c)
{
    if (c == NULL)
        return;
    c->units = NULL;
    c->snap_campaign[0] = '\0';
    c->snap_version = 0;
    c->has_snap_ledger = false;
    c->ahead = NULL;
    c->is_ahead = false;
    if (c->has_snap_next) {
        sodium_memzero(&c->snap_next, sizeof c->snap_next);
        c->has_snap_next = false;
    }
}

/* Whether c, a reader, has read campaign_id's version in its snapshot. */
static bool reader_knows(const db_conn *c, const char *campaign_id)
{
    return !c->is_writer && c->snap_campaign[0] != '\0' &&
           strcmp(c->snap_campaign, campaign_id) == 0;
}

/* The same, where c may use the cache. */
static bool snapshot_knows(const db_conn *c, const char *campaign_id)
{
    return is_snapshot(c) && reader_knows(c, campaign_id);
}

bool db_unit_kept(db_conn *c, const char *campaign_id, const char *ref,
                  db_unit *out)
{
    return snapshot_knows(c, campaign_id) &&
           unit_cache_get(c->units, campaign_id, c->snap_version, ref, out);
}

void db_unit_keep(db_conn *c, const db_unit *u)
{
    if (snapshot_knows(c, u->campaign_id))
        unit_cache_put(c->units, c->snap_version, u);
}

bool db_side_kept(db_conn *c, const char *campaign_id, const char *ref,
                  db_side *out)
{
    return snapshot_knows(c, campaign_id) &&
           unit_cache_side_get(c->units, campaign_id, c->snap_version, ref,
                               out);
}

void db_side_keep(db_conn *c, const db_side *d)
{
    if (snapshot_knows(c, d->campaign_id))
        unit_cache_side_put(c->units, c->snap_version, d);
}

bool db_campaign_kept(db_conn *c, const char *id, db_campaign *out)
{
    long long kept_at, version;
    bool has_next = false;

    /* The version read first (and the next commitment, which a staged
     * combat reads next: one statement, not two) only where the row is
     * kept: a campaign not kept is read whole at once.  The stash holds a
     * seed only while has_snap_next says so: another campaign's, read
     * before in this snapshot, goes first. */
    if (!is_snapshot(c) || !unit_cache_campaign_at(c->units, id, &kept_at))
        return false;
    if (c->has_snap_next) {
        sodium_memzero(&c->snap_next, sizeof c->snap_next);
        c->has_snap_next = false;
    }
    c->has_snap_ledger = false;
    if (db_campaign_version_next(c, id, &version, &c->snap_next, &has_next,
                                 &c->snap_ledger, NULL) != ERR_OK ||
        version != kept_at ||
        !unit_cache_campaign_get(c->units, id, version, out)) {
        if (has_next)
            sodium_memzero(&c->snap_next, sizeof c->snap_next);
        return false;
    }
    db_snapshot_saw(c, id, version);
    c->has_snap_next = has_next;
    c->has_snap_ledger = true;
    return true;
}

bool db_snapshot_next(const db_conn *c, const char *campaign_id,
                      db_commitment *out)
{
    if (!c->has_snap_next || !snapshot_knows(c, campaign_id) ||
        strcmp(c->snap_next.campaign_id, campaign_id) != 0)
        return false;
    *out = c->snap_next;
    return true;
}

bool db_snapshot_ledger(const db_conn *c, const char *campaign_id,
                        db_ledger_head *out)
{
    if (!c->has_snap_ledger || !snapshot_knows(c, campaign_id) ||
        strcmp(c->snap_ledger.campaign_id, campaign_id) != 0)
        return false;
    *out = c->snap_ledger;
    return true;
}

/* ---- ahead of the combats in flight ---- */

void db_snapshot_ahead(db_conn *c, const db_ahead *a)
{
    c->ahead = a;
    c->is_ahead = false;
}

bool db_snapshot_is_ahead(const db_conn *c)
{
    return c->is_ahead;
}

long long db_snapshot_version(const db_conn *c, const char *campaign_id)
{
    return reader_knows(c, campaign_id) ? c->snap_version : -1;
}

/* c's ahead, where it holds campaign_id and applies. */
static const db_ahead *ahead_of(const db_conn *c, const char *campaign_id)
{
    return c->is_ahead && c->ahead != NULL &&
                   strcmp(c->ahead->campaign_id, campaign_id) == 0
               ? c->ahead
               : NULL;
}

void db_campaign_ahead(db_conn *c, db_campaign *cmp)
{
    const db_ahead *a = c->ahead;

    if (a == NULL || strcmp(a->campaign_id, cmp->id) != 0)
        return;
    c->is_ahead = cmp->version >= a->from && cmp->version <= a->version;
    if (c->is_ahead)
        cmp->version = a->version;
}

bool db_ahead_next(const db_conn *c, const char *campaign_id,
                   db_commitment *out)
{
    const db_ahead *a = ahead_of(c, campaign_id);

    if (a == NULL || a->chain.next.commitment[0] == '\0')
        return false;
    *out = a->chain.next;
    return true;
}

bool db_ahead_chain(const db_conn *c, const char *campaign_id, db_chain *ch)
{
    const db_ahead *a = ahead_of(c, campaign_id);

    if (a == NULL)
        return false;
    memset(ch, 0, sizeof *ch);
    snprintf(ch->campaign_id, sizeof ch->campaign_id, "%s", campaign_id);
    ch->length = ch->length0 = a->chain.length;
    memcpy(ch->head, a->chain.head, sizeof ch->head);
    memcpy(ch->head0, a->chain.head, sizeof ch->head0);
    return true;
}

void db_unit_ahead(const db_conn *c, const char *campaign_id, db_unit *u)
{
    const db_ahead *a = ahead_of(c, campaign_id);
    size_t i;

    for (i = 0; a != NULL && i < a->n_units; i++)
        if (strcmp(a->units[i].id, u->id) == 0) {
            *u = a->units[i];
            return;
        }
}

void db_campaign_keep(db_conn *c, const db_campaign *cmp)
{
    if (is_snapshot(c))
        unit_cache_campaign_put(c->units, cmp);
}

void db_landings_drop(db_conn *w, size_t keep)
{
    while (w->n_landings > keep)
        unit_landing_free(&w->landings[--w->n_landings]);
}

void db_landings_publish(db *d, db_conn *w)
{
    size_t i;

    for (i = 0; i < w->n_landings; i++)
        unit_cache_land(d->units, &w->landings[i]);
}

void db_units_landed(db_conn *w, const char *campaign_id, long long from,
                     db_unit **units, size_t n)
{
    unit_landing *l;
    long long to;

    if (w->units == NULL || !w->is_writer || *units == NULL || n == 0)
        goto out;
    if (w->n_landings == w->cap_landings) {
        size_t cap = w->cap_landings ? w->cap_landings * 2 : 8;
        unit_landing *more = realloc(w->landings, cap * sizeof *more);
        if (more == NULL)
            goto out;
        w->landings = more;
        w->cap_landings = cap;
    }
    /* The version its writes left: as its ledger's save left it, where
     * that save checked the version and nothing counted it since (a
     * write of its units does not count it again: migration 26), else
     * read in its transaction (nothing else writes while it does).  A
     * version counted again by a trigger after the save (a side's
     * write) leaves to below the one committed, a version no snapshot
     * ever reads: its rows are then never given, only read again. */
    if (!db_keys_counted_version(w, campaign_id, &to) &&
        db_campaign_version(w, campaign_id, &to, NULL) != ERR_OK)
        goto out;
    l = &w->landings[w->n_landings++];
    memset(l->campaign_id, 0, sizeof l->campaign_id);
    memcpy(l->campaign_id, campaign_id, strnlen(campaign_id, DB_ID_MAX - 1));
    l->from = from;
    l->to = to;
    l->units = *units;
    l->n = n;
    *units = NULL;
    return;
out:
    free(*units);
    *units = NULL;
}
