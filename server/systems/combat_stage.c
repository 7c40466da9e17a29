/*
 * combat_stage.c: a campaign combat's outcome worked out off the writer
 * (pipeline_stage), as every system shares it: the writes apply records
 * instead of making them (its units' new rows, their history events), the
 * units bind read, the units it leaves for its campaign's next combats,
 * and the campaigns with a combat in flight; see combat.h.
 */
#include "combat.h"
#include "deadline.h"
#include "text.h"
#include "units_doc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

/* items (of *cap, each size bytes) with room for one more after n: as
 * it is, or doubled when full (first: its first size), *cap updated;
 * NULL when out of memory (items as it was). */
static void *room_for_one(void *items, size_t *cap, size_t n, size_t size,
                          size_t first)
{
    size_t more_cap;
    void *more;

    if (n < *cap)
        return items;
    more_cap = *cap ? *cap * 2 : first;
    if ((more = realloc(items, more_cap * size)) != NULL)
        *cap = more_cap;
    return more;
}

/* A new change at the end of rec's, zeroed; NULL when out of memory. */
static combat_change *change_new(combat_record *rec)
{
    combat_change *more = room_for_one(rec->changes, &rec->cap_changes,
                                       rec->n_changes, sizeof *more, 16);

    if (more == NULL)
        return NULL;
    rec->changes = more;
    memset(&rec->changes[rec->n_changes], 0, sizeof rec->changes[0]);
    return &rec->changes[rec->n_changes++];
}

err_code combat_unit_event(db_conn *c, combat_record *rec,
                           const db_unit *before, const db_unit *after,
                           jw *result, err_info *e)
{
    return combat_unit_event_text(c, rec, before, after, jw_take(result, NULL),
                                  e);
}

err_code combat_unit_event_text(db_conn *c, combat_record *rec,
                                const db_unit *before, const db_unit *after,
                                char *text, err_info *e)
{
    const char *note = rec->has_note ? rec->note : NULL;
    combat_change *ch;
    err_code rc;

    if (text == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (!rec->is_staging) {
        rc = units_doc_event(c, before, after, "combat", rec->cb.id,
                             rec->token_id, note, text, rec->cb.created_at, e);
        free(text);
        return rc;
    }
    if ((ch = change_new(rec)) == NULL) {
        free(text);
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    ch->is_event = true;
    /* The combat's time (a packed event's is read from its combat's row:
     * the same), not the clock again for each unit. */
    if ((rc = units_doc_event_make(before, after, "combat", rec->cb.id,
                                   rec->token_id, note, text,
                                   rec->cb.created_at, &ch->ev, e))) {
        free(text);
        rec->n_changes--;
        return rc;
    }
    return ERR_OK; /* text is the change's now (ev.result) */
}

err_code combat_unit_update(db_conn *c, combat_record *rec,
                            const db_unit *after, err_info *e)
{
    combat_change *ch;

    if (!rec->is_staging)
        return db_unit_update(c, after, e);
    if ((ch = change_new(rec)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    ch->unit = *after;
    return ERR_OK;
}

/* The history events among rec's changes, in their order: *n of them
 * (new, free(); NULL when out of memory). */
static db_event **events_of(const combat_record *rec, size_t *n)
{
    db_event **evs = malloc(rec->n_changes * sizeof *evs);
    size_t i;

    *n = 0;
    for (i = 0; evs != NULL && i < rec->n_changes; i++)
        if (rec->changes[i].is_event)
            evs[(*n)++] = &rec->changes[i].ev;
    return evs;
}

/* The units' new rows, then the history events in one call, in their
 * order, after the combat's row of the event log held back: the store
 * logs a combat with its events in one row where it can
 * (db_events_insert_logged). */
err_code combat_changes_write(db_conn *c, const combat_record *rec,
                              db_combat_log *held, err_info *e)
{
    db_event **evs;
    err_code rc = ERR_OK;
    size_t i, n;

    if (rec->n_changes == 0) /* the combat's row alone */
        return db_events_insert_logged(c, NULL, 0, held, e);
    if ((evs = events_of(rec, &n)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < rec->n_changes && rc == ERR_OK; i++)
        if (!rec->changes[i].is_event)
            rc = db_unit_update(c, &rec->changes[i].unit, e);
    if (rc == ERR_OK)
        rc = db_events_insert_logged(c, (const db_event *const *)evs, n, held,
                                     e);
    free(evs);
    return rc;
}

void combat_units_leave(combat_record *rec)
{
    db_unit *units;
    size_t i, k, n = rec->n_bound;

    free(rec->left);
    rec->left = NULL;
    rec->n_left = 0;
    if (rec->n_bound + rec->n_changes == 0 ||
        (units = malloc((rec->n_bound + rec->n_changes) * sizeof *units)) ==
            NULL)
        return; /* nothing kept: the next combats read the store */
    memcpy(units, rec->bound, rec->n_bound * sizeof *units);
    /* A unit's new row in place of the row read, or after them. */
    for (i = 0; i < rec->n_changes; i++) {
        const db_unit *after = &rec->changes[i].unit;
        if (rec->changes[i].is_event)
            continue;
        for (k = 0; k < n && strcmp(units[k].id, after->id) != 0; k++)
            ;
        units[k] = *after;
        n += k == n;
    }
    for (i = 0; i < n; i++)
        db_unit_as_stored(&units[i], &units[i]);
    rec->left = units;
    rec->n_left = n;
}

void combat_units_landed(db_conn *c, combat_record *rec)
{
    db_units_landed(c, rec->campaign_id, rec->version, &rec->left, rec->n_left);
    rec->n_left = 0;
}

err_code combat_changes_pack(combat_record *rec, err_info *e)
{
    db_event **evs;
    size_t n;
    err_code rc;

    if (rec->n_changes == 0)
        return ERR_OK;
    if ((evs = events_of(rec, &n)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    rc = db_combat_pack_events(&rec->cb, evs, n, e);
    free(evs);
    return rc;
}

static void changes_clear(combat_record *rec)
{
    size_t i;

    for (i = 0; i < rec->n_changes; i++) {
        free(rec->changes[i].ev.before);
        free(rec->changes[i].ev.after);
        free(rec->changes[i].ev.result);
    }
    free(rec->changes);
    rec->changes = NULL;
    rec->n_changes = rec->cap_changes = 0;
}

void combat_record_unstage(combat_record *rec)
{
    changes_clear(rec);
    free(rec->rolls);
    free(rec->cb.summary);
    free(rec->cb.report);
    free(rec->cb.facts);
    free(rec->cb.report_z);
    free(rec->cb.rolls_z);
    free(rec->cb.unit_docs_z);
    rec->cb.facts = NULL;
    rec->cb.facts_len = 0;
    rec->cb.report_z = NULL;
    rec->cb.rolls_z = NULL;
    rec->cb.ledger_first = 0;
    rec->cb.unit_docs_z = NULL;
    free(rec->left);
    rec->left = NULL;
    rec->n_left = 0;
    rec->rolls = NULL;
    rec->n_rolls = 0;
    rec->cb.summary = rec->cb.report = NULL;
    rec->is_staging = rec->is_staged = false;
    sodium_memzero(&rec->chain_end, sizeof rec->chain_end);
}

/* ---- units as bind read them ---- */

err_code combat_bind_keep(combat_record *rec, const db_unit *u)
{
    db_unit *more = room_for_one(rec->bound, &rec->cap_bound, rec->n_bound,
                                 sizeof *more, 8);

    if (more == NULL)
        return ERR_NOMEM;
    rec->bound = more;
    rec->bound[rec->n_bound++] = *u;
    return ERR_OK;
}

err_code combat_unit_before(db_conn *c, const combat_record *rec,
                            const char *unit_id, db_unit *out, err_info *e)
{
    size_t i;

    for (i = 0; i < rec->n_bound; i++)
        if (strcmp(rec->bound[i].id, unit_id) == 0) {
            *out = rec->bound[i];
            return ERR_OK;
        }
    return db_unit_find(c, rec->campaign_id, unit_id, out, e);
}

void combat_bound_clear(combat_record *rec)
{
    free(rec->bound);
    rec->bound = NULL;
    rec->n_bound = rec->cap_bound = 0;
}

/* ---- a campaign's combats in flight ---- */

/* Campaigns with combats between their reading and their writer job, and
 * how many: a few at a time in practice, so a small table; a campaign it
 * has no room for is taken as busy (its combats then go to the writer
 * whole, as they always may).  For each, whether one of its combats is
 * being worked out now (pipeline_stage), and how the combats in flight
 * leave it (has_ahead), for the next to be worked out ahead of them,
 * with the version each of its units' rows is of (unit_at, beside
 * ahead.units); gen counts each ahead kept or dropped. */
enum { BUSY_SLOTS = 64, AHEAD_UNITS_MAX = 256 };
/* The longest a combat waits for another of its campaign being worked
 * out, before it goes to the writer whole; and for those in flight to
 * land, where they leave nothing to go on: a batch's commit, with its
 * sync, which on a slow disk takes longer than this service lets one of
 * the HTTP threads (and every connection it serves) stand still
 * (combat_campaign_set_wait may change both). */
#define AHEAD_WAIT_MS 50
#define DRAIN_WAIT_MS 5
static atomic_int ahead_wait_ms = AHEAD_WAIT_MS, drain_wait_ms = DRAIN_WAIT_MS;
static struct {
    char campaign_id[DB_ID_MAX];
    int n;
    bool is_working, has_ahead;
    bool is_drain_late; /* a wait for those in flight to land ran out */
    db_ahead ahead;     /* its units owned */
    long long *unit_at;
    unsigned long gen;
} busy[BUSY_SLOTS];
static pthread_mutex_t busy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t busy_worked; /* on the monotonic clock */
static pthread_once_t busy_once = PTHREAD_ONCE_INIT;

static void busy_init(void)
{
    pthread_condattr_t attr;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&busy_worked, &attr);
    pthread_condattr_destroy(&attr);
}

void combat_ahead_free(db_ahead *a)
{
    free(a->units);
    sodium_memzero(a, sizeof *a); /* the next commitment's seed */
}

/* A copy of from into to (units new); false when out of memory. */
static bool ahead_copy(db_ahead *to, const db_ahead *from)
{
    *to = *from;
    to->units = NULL;
    if (from->n_units > 0 &&
        (to->units = malloc(from->n_units * sizeof *to->units)) == NULL) {
        sodium_memzero(to, sizeof *to);
        return false;
    }
    if (from->n_units > 0)
        memcpy(to->units, from->units, from->n_units * sizeof *to->units);
    return true;
}

/* The slot of campaign_id with combats in flight, or -1. */
static int busy_slot(const char *campaign_id)
{
    int i;

    for (i = 0; i < BUSY_SLOTS; i++)
        if (busy[i].n > 0 && strcmp(busy[i].campaign_id, campaign_id) == 0)
            return i;
    return -1;
}

/* Slot i keeps no ahead (any being worked out on the one it had will
 * not take its place). */
static void ahead_drop(int i)
{
    if (busy[i].has_ahead)
        combat_ahead_free(&busy[i].ahead);
    free(busy[i].unit_at);
    busy[i].unit_at = NULL;
    busy[i].has_ahead = false;
    busy[i].gen++;
}

combat_enter combat_campaign_enter(combat_record *rec, db_ahead *ahead)
{
    struct timespec until, until_drain;
    bool has_until_drain = false;
    combat_enter how = COMBAT_ENTER_WRITER;
    int i;

    memset(ahead, 0, sizeof *ahead);
    pthread_once(&busy_once, busy_init);
    until = deadline_in_ms(atomic_load(&ahead_wait_ms));
    pthread_mutex_lock(&busy_lock);
    /* Another of its combats being worked out: wait for what it leaves.
     * Those in flight leaving nothing to be worked out ahead on (one was
     * worked out again, or by the writer, or rolled no die): wait for
     * them to land, a short while, and be worked out alone after them,
     * rather than send this one and every one after it to the writer
     * until none is in flight.  They land on the writer, not on these
     * threads (combat_committed). */
    for (;;) {
        bool is_draining;

        if ((i = busy_slot(rec->campaign_id)) < 0)
            break;
        is_draining = !busy[i].is_working && !busy[i].has_ahead;
        /* Free, or (once such a wait ran out: a commit slower than it)
         * the writer for all until none is in flight, as before. */
        if ((!busy[i].is_working && !is_draining) ||
            (is_draining && busy[i].is_drain_late))
            break;
        /* The drain's own time counts from when it is first seen (after
         * a wait for one being worked out, it may only begin). */
        if (is_draining && !has_until_drain) {
            until_drain = deadline_in_ms(atomic_load(&drain_wait_ms));
            has_until_drain = true;
        }
        if (pthread_cond_timedwait(&busy_worked, &busy_lock,
                                   is_draining ? &until_drain : &until) != 0) {
            /* Those in flight did not land in a drain's whole time: the
             * writer for all, these waiting too, until none is. */
            if (is_draining && (i = busy_slot(rec->campaign_id)) >= 0 &&
                !busy[i].is_working && !busy[i].has_ahead) {
                busy[i].is_drain_late = true;
                pthread_cond_broadcast(&busy_worked);
            }
            break;
        }
    }
    if ((i = busy_slot(rec->campaign_id)) >= 0) {
        busy[i].n++;
        rec->is_counted = true;
        if (!busy[i].is_working && busy[i].has_ahead &&
            ahead_copy(ahead, &busy[i].ahead)) {
            busy[i].is_working = true;
            rec->holds_work = true;
            rec->ahead_gen = busy[i].gen;
            how = COMBAT_ENTER_AHEAD;
        } else {
            /* Worked out whole by the writer, between those in flight
             * and any worked out after: none of them would land. */
            ahead_drop(i);
        }
    } else {
        for (i = 0; i < BUSY_SLOTS && busy[i].n > 0; i++)
            ;
        if (i < BUSY_SLOTS) {
            text_copy(busy[i].campaign_id, DB_ID_MAX, rec->campaign_id);
            busy[i].n = 1;
            busy[i].is_drain_late = false;
            busy[i].is_working = true;
            rec->holds_work = true;
            ahead_drop(i);
            rec->ahead_gen = busy[i].gen;
            rec->is_counted = true;
            how = COMBAT_ENTER_ALONE;
        }
    }
    pthread_mutex_unlock(&busy_lock);
    return how;
}

/* What rec leaves in slot i, for the next combat: the campaign at
 * rec->version + 1, its ledger and next commitment rec's, and the units
 * of the ahead it was worked out on (is_on_ahead) whose rows are newer
 * than its snapshot (seen), under rec's own (rec->left).  False when out
 * of memory, or too many units. */
static bool ahead_keep(int i, const combat_record *rec, bool is_on_ahead,
                       long long seen)
{
    size_t k = is_on_ahead ? busy[i].ahead.n_units : 0, n = 0, j, m;
    db_unit *units = malloc((k + rec->n_left) * sizeof *units);
    long long *at = malloc((k + rec->n_left) * sizeof *at);
    db_ahead a;

    if (units == NULL || at == NULL || k + rec->n_left > AHEAD_UNITS_MAX) {
        free(units);
        free(at);
        return false;
    }
    /* A row of a version the snapshot holds is read from the store. */
    for (j = 0; j < k; j++)
        if (busy[i].unit_at[j] > seen) {
            units[n] = busy[i].ahead.units[j];
            at[n++] = busy[i].unit_at[j];
        }
    for (j = 0; j < rec->n_left; j++) {
        for (m = 0; m < n && strcmp(units[m].id, rec->left[j].id) != 0; m++)
            ;
        units[m] = rec->left[j];
        at[m] = rec->version + 1;
        n += m == n;
    }
    memset(&a, 0, sizeof a);
    text_copy(a.campaign_id, DB_ID_MAX, rec->campaign_id);
    a.from = seen;
    a.version = rec->version + 1;
    a.chain = rec->chain_end;
    a.chain.spent[0] = '\0';
    a.units = units;
    a.n_units = n;
    ahead_drop(i);
    busy[i].ahead = a;
    busy[i].unit_at = at;
    busy[i].has_ahead = true;
    busy[i].is_drain_late = false;
    sodium_memzero(&a, sizeof a); /* the next commitment's seed */
    return true;
}

void combat_campaign_worked(combat_record *rec, bool is_on_ahead,
                            long long seen)
{
    int i;

    pthread_mutex_lock(&busy_lock);
    if ((i = busy_slot(rec->campaign_id)) >= 0 && rec->is_counted) {
        /* Kept where the landing of the next will say this one landed,
         * as worked out: its dice move the ledger's head, which the
         * next's save checks (db_combat_insert_chained), with the next
         * commitment it leaves (seeded, the one it drew, stored only by
         * its landing; entered, the campaign's as it found it,
         * pipeline_stage), and nothing went to the writer whole
         * meanwhile (gen). */
        if (!(busy[i].gen == rec->ahead_gen && rec->is_staged &&
              rec->n_rolls > 0 && rec->left != NULL && seen >= 0 &&
              (rec->dice.kind != DICE_SEEDED ||
               rec->chain_end.spent[0] != '\0') &&
              rec->chain_end.next.commitment[0] != '\0' &&
              (!is_on_ahead || busy[i].has_ahead) &&
              ahead_keep(i, rec, is_on_ahead, seen)))
            ahead_drop(i);
    }
    pthread_mutex_unlock(&busy_lock);
}

/* Slot i's combat being worked out is done (busy_lock held). */
static void release(int i, combat_record *rec)
{
    if (i >= 0) {
        busy[i].is_working = false;
        pthread_cond_broadcast(&busy_worked);
    }
    rec->holds_work = false;
}

void combat_campaign_release(combat_record *rec)
{
    pthread_mutex_lock(&busy_lock); /* holds_work is written under it */
    if (rec->holds_work)
        release(busy_slot(rec->campaign_id), rec);
    pthread_mutex_unlock(&busy_lock);
}

void combat_campaign_no_ahead(const char *campaign_id)
{
    int i;

    pthread_mutex_lock(&busy_lock);
    if ((i = busy_slot(campaign_id)) >= 0)
        ahead_drop(i);
    pthread_mutex_unlock(&busy_lock);
}

void combat_campaign_leave(combat_record *rec)
{
    int i;

    if (!rec->is_counted)
        return;
    pthread_mutex_lock(&busy_lock);
    i = busy_slot(rec->campaign_id);
    if (rec->holds_work)
        release(i, rec);
    if (i >= 0 && --busy[i].n == 0) {
        ahead_drop(i);
        busy[i].is_working = false;
        pthread_cond_broadcast(&busy_worked); /* none in flight now */
    }
    pthread_mutex_unlock(&busy_lock);
    rec->is_counted = false;
}

void combat_committed(void *state)
{
    combat_campaign_leave(state);
}

void combat_campaign_set_wait(int ms, int drain_ms)
{
    atomic_store(&ahead_wait_ms, ms > 0 ? ms : AHEAD_WAIT_MS);
    atomic_store(&drain_wait_ms, drain_ms > 0 ? drain_ms : DRAIN_WAIT_MS);
}
