/*
 * unit_docs.c: the documents of a combat's unit history events (each
 * unit's state before and after, and its part of the result), packed
 * once in the combat's row (migration 14) rather than in every event's
 * row: the events of one combat repeat most of each other's text, so
 * together they pack to about a tenth, and the writer writes one value
 * instead of three per unit.  Declared in db.h (packing) and
 * unit_docs.h (reading).
 *
 * The text packed: for each event in order, its before, after and
 * result separated by US (0x1f) and ended by RS (0x1e).  An empty field
 * is NULL, except after (never NULL), where it means "the same as
 * before".  JSON text holds neither byte raw (a control character in a
 * string is escaped), nor any NUL.
 *
 * A campaign combat's with its report, in one frame
 * (db_pack_after_report, combat_pack.c): the report's value holds the
 * report, RS, then that text (the results repeat the report's lines, so
 * they pack to a few hundred bytes after it), and unit_docs holds one
 * byte, RS, which says so.  The report read back ends at its first RS
 * (db_report_end), which no JSON text holds raw.
 * Packing the documents after the report in a frame of their own, as
 * before (with the report as zstd's reference: db_doc_text_after; such
 * values still read), cost the work of indexing the report again.
 *
 * A combat stored as its facts (facts.c; migration 24) has no report to
 * pack them with: its documents are a frame of their own (with the
 * dictionary, at db_doc_pack's level), and without each unit's
 * result, which the combat gives again from its facts (server/systems,
 * results_facts): the result's field is empty, and reads back NULL.
 *
 * Such an event's row holds no actor, note, time or kind either: they are
 * the combat's (packed only when every event is a "combat" event of the
 * combat with its actor and note), given back from its row: the actor and
 * note by unit_docs_fill where the event's are empty, the time and kind
 * by the reads' joins (migration 18).
 */
#include "db_sql.h"
#include "unit_docs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FIELD_END = 0x1f, EVENT_END = 0x1e };

static size_t len_or_0(const char *s)
{
    return s ? strlen(s) : 0;
}

/* Whether ev is of cb, a "combat" event with its combat's actor and note:
 * then its row holds none of these, nor its time, and the reads give it
 * the combat's (NULL and "" are one note, as stored). */
static bool is_of_combat(const db_event *ev, const db_combat *cb)
{
    const char *a = ev->note ? ev->note : "", *b = cb->note ? cb->note : "";

    return strcmp(ev->kind, "combat") == 0 &&
           strcmp(ev->combat_id, cb->id) == 0 &&
           strcmp(ev->actor_token_id, cb->actor_token_id) == 0 &&
           strcmp(a, b) == 0;
}

bool db_combat_docs_in_report(const db_combat *cb)
{
    return db_is_after_report(cb->unit_docs_z, cb->unit_docs_z_len);
}

err_code db_combat_pack_events(db_combat *cb, db_event *const *evs, size_t n,
                               err_info *e)
{
    size_t size = 1, i;
    char *text, *p;
    err_code rc = ERR_OK;

    /* A report packed with documents of before holds them: packed again
     * (db_combat_pack) or stored as it is. */
    if (db_combat_docs_in_report(cb)) {
        free(cb->report_z);
        cb->report_z = NULL;
        cb->report_z_len = 0;
    }
    free(cb->unit_docs_z);
    cb->unit_docs_z = NULL;
    cb->unit_docs_z_len = 0;
    /* No place until packed: a failure leaves every event to hold its
     * own documents. */
    for (i = 0; i < n; i++)
        evs[i]->doc_slot = 0;
    if (n == 0)
        return ERR_OK;
    for (i = 0; i < n; i++)
        if (!is_of_combat(evs[i], cb))
            return ERR_OK; /* each event keeps its own */
    for (i = 0; i < n; i++)
        size += len_or_0(evs[i]->before) + len_or_0(evs[i]->after) +
                len_or_0(evs[i]->result) + 3;
    if ((p = text = malloc(size)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < n; i++) {
        const db_event *ev = evs[i];
        size_t k;
        if (ev->before) {
            memcpy(p, ev->before, k = strlen(ev->before));
            p += k;
        }
        *p++ = FIELD_END;
        if (ev->after && !(ev->before && strcmp(ev->before, ev->after) == 0)) {
            memcpy(p, ev->after, k = strlen(ev->after));
            p += k;
        }
        *p++ = FIELD_END;
        /* A combat stored as its facts gives each unit's result again
         * (server/systems, results_facts): not stored twice. */
        if (ev->result && cb->facts == NULL) {
            memcpy(p, ev->result, k = strlen(ev->result));
            p += k;
        }
        *p++ = EVENT_END;
    }
    *p = '\0';
    /* In a campaign combat's report frame, unless it is stored as its
     * facts (facts.c) or not a campaign's: then in a frame of their own,
     * at db_doc_pack's level (-1).  (A 4 v 4 combat's, about 1.7 KB
     * of text, packed to about 185 bytes at level 3 and 218 at -1, for
     * about 20k instructions less: measured on the bench's campaign
     * combat, whose row still fits three to a page.) */
    if (cb->facts != NULL && cb->campaign_id[0] != '\0') {
        if ((cb->unit_docs_z = db_doc_pack(text, &cb->unit_docs_z_len)) == NULL)
            rc = ERR_NOMEM;
    } else if (cb->report != NULL && cb->campaign_id[0] != '\0') {
        unsigned char *z;
        size_t zlen;
        if (db_pack_after_report(cb, text, &z, &zlen, &cb->unit_docs_z)) {
            free(cb->report_z);
            cb->report_z = z;
            cb->report_z_len = zlen;
            cb->unit_docs_z_len = 1;
        } else
            rc = ERR_NOMEM;
    } else if ((cb->unit_docs_z = db_doc_pack(text, &cb->unit_docs_z_len)) ==
               NULL)
        rc = ERR_NOMEM;
    free(text);
    if (rc != ERR_OK)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < n; i++) {
        evs[i]->doc_slot = (int)i + 1;
        memcpy(evs[i]->at, cb->created_at, sizeof evs[i]->at);
    }
    return ERR_OK;
}

void unit_docs_cache_clear(unit_docs_cache *cache)
{
    int i;

    for (i = 0; i < UNIT_DOCS_CACHED; i++) {
        free(cache->slots[i].text);
        free(cache->slots[i].note);
        memset(&cache->slots[i], 0, sizeof cache->slots[i]);
    }
    cache->next = 0;
}

/* Combat combat_id's documents unpacked, actor and note, in *out, from
 * cache or read into it (the oldest entry making room). */
static err_code cache_load(db_conn *c, const char *combat_id,
                           unit_docs_cache *cache,
                           const struct unit_docs_cached **out, err_info *e)
{
    struct unit_docs_cached *slot;
    db_stmt *st = NULL;
    char *report = NULL;
    bool ok = false;
    err_code rc;
    int i;

    for (i = 0; i < UNIT_DOCS_CACHED; i++)
        if (cache->slots[i].text != NULL &&
            strcmp(cache->slots[i].combat_id, combat_id) == 0) {
            *out = &cache->slots[i];
            return ERR_OK;
        }
    slot = &cache->slots[cache->next];
    cache->next = (cache->next + 1) % UNIT_DOCS_CACHED;
    free(slot->text);
    free(slot->note);
    memset(slot, 0, sizeof *slot);
    if ((rc = db_prepare(c,
                         "SELECT report, unit_docs, actor_token_id, note "
                         "FROM combats WHERE id = ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, combat_id);
    if (db_step(st) == DB_ROW && db_column_type(st, 1) == DB_BLOB) {
        const unsigned char *z = db_column_blob(st, 1);
        size_t zlen = (size_t)db_column_bytes(st, 1);
        unsigned char *kept = NULL;
        if (db_doc_is_dict(z, zlen)) {
            /* In a frame of their own, with the dictionary. */
            slot->text = db_doc_text(z, zlen);
        } else if (db_is_after_report(z, zlen)) {
            /* After the report, in its frame. */
            report = db_column_doc(st, 0);
            slot->text = db_after_report(report);
        } else if ((kept = malloc(zlen ? zlen : 1)) != NULL) {
            /* (Before migration 20) in a frame after the report, the
             * report zstd's reference: z kept before the report is read
             * (on PostgreSQL, reading a statement's next blob frees the
             * one before: sql_pg.c). */
            memcpy(kept, z, zlen);
            if ((report = db_column_doc(st, 0)) != NULL)
                slot->text = db_doc_text_after(kept, zlen, report);
        }
        free(kept);
        db_column_copy(st, 2, slot->actor_token_id,
                       sizeof slot->actor_token_id);
        slot->note = db_column_dup(st, 3);
        ok = slot->text != NULL &&
             (slot->note != NULL || db_column_type(st, 3) == DB_NULL);
    }
    free(report);
    db_done(st);
    if (!ok) {
        free(slot->text);
        free(slot->note);
        memset(slot, 0, sizeof *slot);
        return err_set(e, ERR_DB, NULL,
                       "the history documents of combat %s cannot be read",
                       combat_id);
    }
    snprintf(slot->combat_id, sizeof slot->combat_id, "%s", combat_id);
    *out = slot;
    return ERR_OK;
}

/* A copy of the n bytes at s, NULL for none (or out of memory: *ok
 * false). */
static char *field_dup(const char *s, size_t n, bool *ok)
{
    char *out;

    if (n == 0)
        return NULL;
    if ((out = malloc(n + 1)) == NULL) {
        *ok = false;
        return NULL;
    }
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

err_code unit_docs_take(db_event *ev, const char *text, const char *actor,
                        const char *note, err_info *e)
{
    const char *p = text, *f1, *f2, *end;
    bool ok = true;
    int k;

    if (ev->doc_slot <= 0)
        return err_set(e, ERR_DB, NULL,
                       "a history event of combat %s has no documents there",
                       ev->combat_id);

    for (k = 1; k < ev->doc_slot && p != NULL; k++)
        if ((p = strchr(p, EVENT_END)) != NULL)
            p++;
    if (p == NULL || (end = strchr(p, EVENT_END)) == NULL ||
        (f1 = memchr(p, FIELD_END, (size_t)(end - p))) == NULL ||
        (f2 = memchr(f1 + 1, FIELD_END, (size_t)(end - f1 - 1))) == NULL)
        return err_set(e, ERR_DB, NULL,
                       "the history documents of combat %s are malformed",
                       ev->combat_id);
    free(ev->before);
    free(ev->result);
    ev->before = field_dup(p, (size_t)(f1 - p), &ok);
    ev->after = f2 > f1 + 1 ? field_dup(f1 + 1, (size_t)(f2 - f1 - 1), &ok)
                            : field_dup(p, (size_t)(f1 - p), &ok);
    ev->result = field_dup(f2 + 1, (size_t)(end - f2 - 1), &ok);
    if (ev->actor_token_id[0] == '\0')
        snprintf(ev->actor_token_id, sizeof ev->actor_token_id, "%s", actor);
    if (ev->note == NULL && note != NULL)
        ok = ok && (ev->note = strdup(note)) != NULL;
    if (!ok)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (ev->after == NULL)
        return err_set(e, ERR_DB, NULL,
                       "a history event of combat %s has no state",
                       ev->combat_id);
    return ERR_OK;
}

err_code unit_docs_fill(db_conn *c, db_event *ev, unit_docs_cache *cache,
                        err_info *e)
{
    const struct unit_docs_cached *cb = NULL;
    err_code rc;

    if (ev->doc_slot <= 0 || ev->after != NULL)
        return ERR_OK;
    if ((rc = cache_load(c, ev->combat_id, cache, &cb, e)))
        return rc;
    return unit_docs_take(ev, cb->text, cb->actor_token_id, cb->note, e);
}
