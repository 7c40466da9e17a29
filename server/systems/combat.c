/*
 * combat.c: what combats of every system share; see combat.h.
 */
#include "http.h"
#include "combat.h"
#include "jsonv.h"
#include "systems.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

/* A fresh server seed from the operating system, and its commitment. */
static void draw_seed(combat_dice *d)
{
    randombytes_buf(d->seed, sizeof d->seed);
    rng_hex(d->seed, sizeof d->seed, d->seed_hex);
    rng_commitment(d->seed, d->commitment);
    d->has_seed = true;
}

/* Parses "dice"; a seeded combat's seed comes later (combat_dice_init). */
err_code combat_parse_dice(const json_t *body, combat_dice *d, err_info *e)
{
    static const char *const fields[] = {"source", "client_seed", "commitment",
                                         NULL};
    static const char *const sources[] = {"seeded", "entered", NULL};
    json_t *obj = NULL;
    const char *cs = NULL, *cited = NULL;
    int source = 0;
    err_code rc;

    memset(d, 0, sizeof *d);
    if ((rc = jv_object(body, "", "dice", false, &obj, e)))
        return rc;
    if (obj &&
        ((rc = jv_object_only(obj, "dice", fields, e)) ||
         (rc = jv_enum(obj, "dice", "source", false, sources, &source, e)) ||
         (rc = jv_string(obj, "dice", "client_seed", false, RNG_CLIENT_SEED_MAX,
                         &cs, e)) ||
         (rc = jv_string(obj, "dice", "commitment", false, 64, &cited, e))))
        return rc;
    d->kind = source == 1 ? DICE_ENTERED : DICE_SEEDED;
    if (cs && d->kind == DICE_ENTERED)
        return err_set(e, ERR_INVALID, "dice.client_seed",
                       "a client seed goes with seeded dice only");
    if (cited) {
        uint8_t raw[32];
        if (d->kind == DICE_ENTERED)
            return err_set(e, ERR_INVALID, "dice.commitment",
                           "a commitment goes with seeded dice only");
        if (strlen(cited) != 64 || strspn(cited, "0123456789abcdef") != 64 ||
            rng_unhex(cited, raw, sizeof raw) != 0)
            return err_set(e, ERR_INVALID, "dice.commitment",
                           "a commitment is 64 lower-case hex digits");
        memcpy(d->cited, cited, 65);
        d->is_cited = true;
    }
    if (cs) {
        d->client_seed_len = strlen(cs);
        memcpy(d->client_seed, cs, d->client_seed_len + 1);
        d->has_client_seed = true;
    }
    return ERR_OK;
}

void combat_dice_write(jw *w, const db_combat *cb)
{
    jw_object(w);
    jw_kstring(w, "source", cb->dice_source);
    jw_kstring_or_null(w, "rng", cb->rng);
    jw_kstring_or_null(w, "commitment", cb->commitment);
    jw_kstring_or_null(w, "server_seed", cb->server_seed);
    jw_kstring_or_null(w, "client_seed", cb->client_seed);
    jw_kbool(w, "verifiable", strcmp(cb->dice_source, "seeded") == 0);
    jw_object_end(w);
}

void combat_rolls_write(jw *w, const db_roll *rolls, size_t n)
{
    size_t i;

    jw_array(w);
    for (i = 0; i < n; i++) {
        const db_roll *r = &rolls[i];
        jw_object(w);
        jw_kint(w, "seq", r->seq);
        jw_kstring(w, "side", r->side_name);
        jw_kstring(w, "unit", r->unit_name);
        jw_kstring_or_null(w, "unit_id", r->unit_id);
        jw_kstring(w, "reason", r->reason);
        jw_kint(w, "faces", r->faces);
        jw_kint(w, "natural", r->natural);
        jw_kint(w, "modified", r->modified);
        jw_kstring(w, "source", r->source);
        jw_kstring_or_null(w, "rng", r->rng);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* The report as served: the stored report text with its roll log spliced
 * in as the last member (new string, or NULL). */
char *combat_report_with_rolls(const char *report, const db_roll *rolls,
                               size_t n)
{
    size_t len = strlen(report);
    jw w;

    if (len < 2 || report[len - 1] != '}')
        return NULL;
    jw_init(&w);
    jw_raw(&w, report, len - 1);
    if (n > 0 && rolls[0].ledger_pos > 0) {
        /* A campaign combat's entries in the campaign's ledger: the last
         * one's hash seals them and everything before. */
        jw_raw(&w, ",\"ledger\":", 10);
        jw_object(&w);
        jw_kint(&w, "first_pos", (long long)rolls[0].ledger_pos);
        jw_kint(&w, "last_pos", (long long)rolls[n - 1].ledger_pos);
        jw_kstring(&w, "hash", rolls[n - 1].hash);
        jw_object_end(&w);
    }
    jw_raw(&w, ",\"rolls\":", 9);
    combat_rolls_write(&w, rolls, n);
    jw_raw(&w, "}", 1);
    return jw_take(&w, NULL);
}

/* Adds a difference, with printf formatting. */
void combat_differ(json_t *diffs, const char *fmt, ...)
{
    char line[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    json_array_append_new(diffs, json_string(line));
}

/*
 * Re-derives every seeded die from the revealed seed and the client seed
 * (docs/dice.md), whatever the system: the log must be the stream.
 * Returns true when every natural matches; entered dice are not checked.
 */
bool combat_check_seeded_dice(const db_combat *cb, const db_roll *rolls,
                              size_t n, json_t *diffs)
{
    uint8_t seed[RNG_SEED_LEN];
    char commitment[65];
    rng_v1 rng;
    size_t i;
    bool is_ok = true;

    if (rng_unhex(cb->server_seed, seed, sizeof seed) != 0) {
        combat_differ(diffs, "the stored server seed is malformed");
        return false;
    }
    rng_commitment(seed, commitment);
    if (strcmp(commitment, cb->commitment) != 0) {
        combat_differ(diffs, "the seed does not match its commitment");
        is_ok = false;
    }
    rng_v1_init(&rng, seed, (const uint8_t *)cb->client_seed,
                cb->client_seed ? strlen(cb->client_seed) : 0);
    for (i = 0; i < n; i++) {
        int natural;
        if (rolls[i].faces < RNG_FACES_MIN || rolls[i].faces > RNG_FACES_MAX) {
            combat_differ(diffs, "roll %zu: a d%d cannot be rolled", i + 1,
                          rolls[i].faces);
            is_ok = false;
            break;
        }
        natural = rng_v1_die(&rng, rolls[i].faces);
        if (natural != rolls[i].natural) {
            combat_differ(diffs, "roll %zu: the seed gives %d, the log says %d",
                          i + 1, natural, rolls[i].natural);
            is_ok = false;
        }
    }
    rng_v1_cleanup(&rng);
    sodium_memzero(seed, sizeof seed);
    return is_ok;
}

/* The report's "dice" must say what the combat's row says. */
void combat_check_report_dice(const db_combat *cb, json_t *diffs)
{
    static const char *const keys[] = {"source", "rng", "commitment",
                                       "server_seed", "client_seed"};
    json_t *report = json_loads(cb->report, 0, NULL);
    json_t *dice = json_object_get(report, "dice");
    const char *row[5];
    size_t i;

    row[0] = cb->dice_source;
    row[1] = cb->rng;
    row[2] = cb->commitment;
    row[3] = cb->server_seed;
    row[4] = cb->client_seed;
    for (i = 0; i < 5; i++) {
        const char *in_report =
            json_string_value(json_object_get(dice, keys[i]));
        const char *in_row = row[i] && row[i][0] ? row[i] : NULL;
        if ((in_report == NULL) != (in_row == NULL) ||
            (in_report && strcmp(in_report, in_row) != 0))
            combat_differ(diffs, "the report's dice.%s differs from the log's",
                          keys[i]);
    }
    json_decref(report);
}

err_code combat_parse_record(const json_t *body, combat_record *rec,
                             err_info *e)
{
    const char *note = NULL;
    err_code rc;

    if ((rc = combat_parse_dice(body, &rec->dice, e)) ||
        (rc = jv_string(body, "", "note", false, COMBAT_NOTE_MAX, &note, e)))
        return rc;
    if (note) {
        text_copy(rec->note, sizeof rec->note, note);
        rec->has_note = true;
    }
    return ERR_OK;
}

/* The seed of commitment k becomes d's. */
static err_code use_seed(combat_dice *d, const db_commitment *k, err_info *e)
{
    if (rng_unhex(k->seed, d->seed, sizeof d->seed) != 0)
        return err_set(e, ERR_DB, NULL,
                       "the seed of commitment %s is "
                       "unreadable",
                       k->commitment);
    text_copy(d->seed_hex, sizeof d->seed_hex, k->seed);
    text_copy(d->commitment, sizeof d->commitment, k->commitment);
    d->has_seed = true;
    return ERR_OK;
}

err_code combat_peek_commitment(db_conn *c, combat_record *rec, err_info *e)
{
    db_commitment k;
    err_code rc;

    if (rec->dice.kind != DICE_SEEDED)
        return ERR_OK;
    rc = db_commitment_next(c, rec->campaign_id, &k, e);
    if (rc == ERR_NOT_FOUND) {
        err_clear(e);
        return err_set(e, ERR_DB, NULL, "the campaign has no next commitment");
    }
    if (rc)
        return rc;
    if (rec->dice.is_cited && strcmp(k.commitment, rec->dice.cited) != 0)
        rc = err_set(e, ERR_CONFLICT, "dice.commitment",
                     "the campaign's next commitment is %s: the one cited "
                     "was used by an earlier combat, or is not this "
                     "campaign's",
                     k.commitment);
    else
        rc = use_seed(&rec->dice, &k, e);
    sodium_memzero(k.seed, sizeof k.seed);
    return rc;
}

err_code combat_claim_commitment(db_conn *c, combat_record *rec, err_info *e)
{
    db_commitment next;
    err_code rc;

    if (rec->dice.kind != DICE_SEEDED)
        return ERR_OK;
    rc = db_commitment_renew(c, rec->campaign_id, rec->dice.commitment, &next,
                             e);
    sodium_memzero(next.seed, sizeof next.seed);
    return rc;
}

err_code combat_take_commitment(db_conn *c, combat_record *rec, err_info *e)
{
    err_code rc = combat_peek_commitment(c, rec, e);

    return rc ? rc : combat_claim_commitment(c, rec, e);
}

err_code combat_cite(db *d, combat_record *rec, err_info *e)
{
    db_conn *c;
    db_commitment k;
    char oldest[DB_TIME_MAX];
    err_code rc;

    if (!rec->dice.is_cited)
        return ERR_OK;
    c = db_read_acquire(d);
    rc = db_commitment_get(c, rec->dice.cited, &k, NULL);
    db_read_release(d, c);
    db_time_ago(COMBAT_COMMITMENT_TTL, oldest);
    if (rc == ERR_NOT_FOUND || (rc == ERR_OK && k.campaign_id[0]))
        return err_set(e, ERR_INVALID, "dice.commitment",
                       "no one-off commitment %s: ask for one with POST "
                       "/v1/commitments (a campaign's next commitment is "
                       "cited in that campaign's combats)",
                       rec->dice.cited);
    if (rc)
        return err_set(e, rc, NULL, "cannot read the commitment");
    if (k.used_by[0])
        return err_set(e, ERR_CONFLICT, "dice.commitment",
                       "the commitment was used by combat %s", k.used_by);
    if (strcmp(k.created_at, oldest) < 0)
        return err_set(e, ERR_INVALID, "dice.commitment",
                       "the commitment has expired: it was not used within "
                       "%d hours",
                       COMBAT_COMMITMENT_TTL / 3600);
    rc = use_seed(&rec->dice, &k, e);
    sodium_memzero(k.seed, sizeof k.seed);
    return rc;
}

void combat_dice_init(combat_record *rec, dice_source *src, const int *entered,
                      size_t n_entered)
{
    /* A seed drawn now where none was taken from a commitment before (a
     * campaign's next, or one a one-off cites).  A campaign's combat that
     * had not taken its campaign's would roll on one of its own, whose
     * commitment the campaign's save then refuses as not its next. */
    if (rec->dice.kind == DICE_SEEDED && !rec->dice.has_seed)
        draw_seed(&rec->dice);
    if (rec->dice.kind == DICE_SEEDED)
        dice_init_seeded(src, rec->dice.seed,
                         (const uint8_t *)rec->dice.client_seed,
                         rec->dice.client_seed_len);
    else
        dice_init_values(src, DICE_ENTERED, entered, n_entered);
}

void combat_record_row(combat_record *rec, const char *system)
{
    db_combat *cb = &rec->cb;

    if (cb->id[0] == '\0')
        db_new_id("cbt", cb->id);
    text_copy(cb->campaign_id, DB_ID_MAX, rec->campaign_id);
    text_copy(cb->system, sizeof cb->system, system);
    db_now(cb->created_at);
    text_copy(cb->dice_source, sizeof cb->dice_source,
              dice_kind_name(rec->dice.kind));
    if (rec->dice.kind == DICE_SEEDED) {
        text_copy(cb->rng, sizeof cb->rng, RNG_VERSION);
        text_copy(cb->commitment, sizeof cb->commitment, rec->dice.commitment);
        text_copy(cb->server_seed, sizeof cb->server_seed, rec->dice.seed_hex);
        cb->client_seed =
            rec->dice.has_client_seed ? rec->dice.client_seed : NULL;
    }
    text_copy(cb->actor_token_id, DB_ID_MAX, rec->token_id);
    cb->note = rec->has_note ? rec->note : NULL;
}

err_code combat_record_rolls(combat_record *rec, const dice_source *src,
                             combat_roll_names names, const void *plan,
                             err_info *e)
{
    const char *source = rec->cb.dice_source;
    bool is_seeded = strcmp(source, "seeded") == 0;
    size_t i;

    /* Every field set below, each string to its NUL: the rest of a roll
     * (about 380 bytes, most of them strings' room) is never read, so
     * it is not zeroed either. */
    rec->rolls = malloc((src->n_log ? src->n_log : 1) * sizeof *rec->rolls);
    if (rec->rolls == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < src->n_log; i++) {
        const dice_roll *d = &src->log[i];
        db_roll *r = &rec->rolls[i];
        const char *side, *unit_name, *unit_id;

        names(plan, d, &side, &unit_name, &unit_id);
        r->seq = (int)i + 1;
        r->ledger_pos = 0;
        r->prev_hash[0] = r->hash[0] = '\0';
        text_copy(r->side_name, DB_NAME_MAX, side);
        text_copy(r->unit_id, DB_ID_MAX, unit_id);
        text_copy(r->unit_name, DB_NAME_MAX, unit_name);
        text_copy(r->reason, sizeof r->reason, d->reason);
        r->faces = d->faces;
        r->natural = d->natural;
        r->modified = d->modified;
        text_copy(r->source, sizeof r->source, source);
        text_copy(r->rng, sizeof r->rng, is_seeded ? RNG_VERSION : "");
    }
    rec->n_rolls = src->n_log;
    return ERR_OK;
}

void combat_report_head(jw *w, const db_combat *cb)
{
    jw_kstring(w, "id", cb->id);
    jw_kstring(w, "system", cb->system);
    jw_kstring_or_null(w, "campaign_id", cb->campaign_id);
    jw_kstring(w, "created_at", cb->created_at);
    jw_kstring_or_null(w, "note", cb->note);
}

const char *combat_dice_note_of(const char *source)
{
    return strcmp(source, "seeded") == 0
               ? "seeded (rng v1), the seed is revealed in the report"
               : "entered by the umpire from a real table (recorded, not "
                 "verifiable)";
}

const char *combat_dice_note(const combat_record *rec)
{
    return combat_dice_note_of(dice_kind_name(rec->dice.kind));
}

/* A system's failure (why) to render the facts of combat_id, into e:
 * out of memory as it is, anything else an internal error that says
 * why. */
static err_code facts_failed(err_info *e, const char *combat_id,
                             const err_info *why)
{
    if (why->code == ERR_NOMEM)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    return err_set(e, ERR_INTERNAL, NULL,
                   "the stored facts of combat %s do not render: %s", combat_id,
                   why->message);
}

err_code combat_render_facts(db_combat *cb, err_info *e)
{
    const systems_entry *s = systems_find(cb->system);
    err_info why;

    err_clear(&why);
    if (s == NULL || s->render_facts == NULL)
        return err_set(e, ERR_INTERNAL, NULL,
                       "combat %s is stored as facts, which its system %s "
                       "does not render",
                       cb->id, cb->system);
    if (s->render_facts(cb, &why) == ERR_OK)
        return ERR_OK;
    return facts_failed(e, cb->id, &why);
}

/* r's results let go (its kept rolls stay: they are keyed apart). */
static void results_clear(combat_results *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        free(r->text[i]);
    free(r->text);
    free(r->unit_id);
    if (r->facts != NULL)
        r->facts_free(r->facts);
    r->combat_id[0] = '\0';
    r->n = r->cap = 0;
    r->unit_id = NULL;
    r->text = NULL;
    r->facts = NULL;
    r->render = NULL;
    r->facts_free = NULL;
}

void combat_results_cleanup(combat_results *r)
{
    if (r == NULL)
        return;
    results_clear(r);
    free(r->rolls);
    memset(r, 0, sizeof *r);
}

err_code combat_results_rolls(db_conn *c, const char *combat_id,
                              combat_results *r, const db_roll **out, size_t *n,
                              err_info *e)
{
    err_code rc = ERR_OK;

    if (strcmp(r->rolls_combat_id, combat_id) != 0) {
        free(r->rolls);
        r->rolls = NULL;
        r->n_rolls = 0;
        r->rolls_combat_id[0] = '\0';
        if ((rc = db_rolls_list(c, combat_id, &r->rolls, &r->n_rolls, e)) ==
            ERR_OK)
            snprintf(r->rolls_combat_id, sizeof r->rolls_combat_id, "%s",
                     combat_id);
    }
    *out = rc == ERR_OK ? r->rolls : NULL;
    *n = rc == ERR_OK ? r->n_rolls : 0;
    return rc;
}

void combat_results_keep(combat_results *r, void *facts,
                         char *(*render)(void *facts, size_t i),
                         void (*facts_free)(void *facts))
{
    if (r->facts != NULL)
        r->facts_free(r->facts);
    r->facts = facts;
    r->render = render;
    r->facts_free = facts_free;
}

bool combat_results_add(combat_results *r, const char *unit_id)
{
    size_t cap = r->cap ? 2 * r->cap : 16, len = strlen(unit_id);
    char(*ids)[DB_ID_MAX];
    char **texts;

    if (len >= DB_ID_MAX) /* cut, as a copy to the size would */
        len = DB_ID_MAX - 1;
    if (r->n == r->cap) { /* room for 16 more, then twice as many */
        if ((ids = realloc(r->unit_id, cap * sizeof *ids)) == NULL)
            return false;
        r->unit_id = ids;
        if ((texts = realloc(r->text, cap * sizeof *texts)) == NULL)
            return false;
        r->text = texts;
        r->cap = cap;
    }
    memcpy(r->unit_id[r->n], unit_id, len);
    r->unit_id[r->n][len] = '\0';
    r->text[r->n++] = NULL;
    return true;
}

err_code combat_results_of(combat_results *r, const char *unit_id,
                           const char **out, err_info *e)
{
    size_t i;

    *out = NULL;
    for (i = 0; i < r->n; i++)
        if (strcmp(r->unit_id[i], unit_id) == 0)
            break;
    if (i == r->n)
        return ERR_OK;
    if (r->text[i] == NULL && r->facts == NULL)
        return err_set(e, ERR_INTERNAL, NULL,
                       "no facts kept for the result of unit %s", unit_id);
    if (r->text[i] == NULL && (r->text[i] = r->render(r->facts, i)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    *out = r->text[i];
    return ERR_OK;
}

/* The results of cb (combat_id's, or NULL: none) into r, cleared before;
 * as combat_results_load. */
static err_code results_of(const char *combat_id, const db_combat *cb,
                           combat_results *r, err_info *e)
{
    const systems_entry *s;
    err_info why;
    err_code rc = ERR_OK;

    err_clear(&why);
    if (cb != NULL && cb->facts != NULL &&
        (s = systems_find(cb->system)) != NULL && s->results_facts != NULL &&
        (rc = s->results_facts(cb, r, &why)) != ERR_OK)
        rc = facts_failed(e, combat_id, &why);
    if (rc != ERR_OK)
        results_clear(r);
    else
        snprintf(r->combat_id, sizeof r->combat_id, "%s", combat_id);
    return rc;
}

err_code combat_results_load(db_conn *c, const char *combat_id,
                             combat_results *r, err_info *e)
{
    db_combat cb;
    err_info why;
    err_code rc;

    if (strcmp(r->combat_id, combat_id) == 0)
        return ERR_OK;
    results_clear(r);
    err_clear(&why);
    rc = db_combat_get(c, combat_id, &cb, &why);
    if (rc == ERR_NOT_FOUND) /* none to give */
        return results_of(combat_id, NULL, r, e);
    if (rc != ERR_OK)
        return err_set(e, rc, NULL, "%s", why.message);
    rc = results_of(combat_id, &cb, r, e);
    db_combat_cleanup(&cb);
    return rc;
}

err_code combat_results_load_facts(const char *combat_id, const char *system,
                                   const unsigned char *facts, size_t len,
                                   combat_results *r, err_info *e)
{
    db_combat cb;

    if (strcmp(r->combat_id, combat_id) == 0)
        return ERR_OK;
    results_clear(r);
    memset(&cb, 0, sizeof cb);
    snprintf(cb.id, sizeof cb.id, "%s", combat_id);
    snprintf(cb.system, sizeof cb.system, "%s", system);
    cb.facts = (unsigned char *)facts; /* borrowed: not cleaned up */
    cb.facts_len = len;
    return results_of(combat_id, &cb, r, e);
}

void combat_check_facts(const db_combat *cb, const db_roll *rolls, size_t n,
                        json_t *diffs)
{
    const systems_entry *s = systems_find(cb->system);

    if (s == NULL || s->check_facts == NULL)
        combat_differ(diffs,
                      "the combat is stored as facts its system %s does "
                      "not read",
                      cb->system);
    else
        s->check_facts(cb, rolls, n, diffs);
}

void combat_record_cleanup(combat_record *rec)
{
    if (rec == NULL)
        return;
    combat_campaign_leave(rec);
    combat_record_unstage(rec); /* its outcome, staged or not */
    combat_bound_clear(rec);
    sodium_memzero(rec->dice.seed, sizeof rec->dice.seed);
}

err_code combat_insert_job(db_conn *c, void *arg, err_info *e)
{
    combat_record *rec = arg;
    err_code rc;

    if (rec->dice.is_cited &&
        db_commitment_use(c, rec->dice.cited, rec->cb.id, rec->cb.created_at,
                          NULL) != ERR_OK) {
        /* Claimed first by a combat racing this one, or purged as expired
         * since combat_cite read it. */
        db_commitment k;
        rc = db_commitment_get(c, rec->dice.cited, &k, NULL);
        if (rc == ERR_OK && k.used_by[0])
            return err_set(e, ERR_CONFLICT, "dice.commitment",
                           "the commitment was used by combat %s", k.used_by);
        if (rc == ERR_OK || rc == ERR_NOT_FOUND)
            return err_set(e, ERR_INVALID, "dice.commitment",
                           "the commitment has expired: it was not used "
                           "within %d hours",
                           COMBAT_COMMITMENT_TTL / 3600);
        return err_set(e, rc, NULL, "cannot read the commitment");
    }
    return db_combat_insert(c, &rec->cb, rec->rolls, rec->n_rolls, e);
}

void combat_finish(http_request *r, err_code rc, const err_info *e)
{
    combat_record *rec = r->state;

    if (rc != ERR_OK) {
        http_reply_problem(r, e);
        return;
    }
    if (rec->campaign_id[0])
        snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/combats/%s",
                 rec->campaign_id, rec->cb.id);
    else
        snprintf(r->location, sizeof r->location, "/v1/combats/%s", rec->cb.id);
    http_reply_json_text(
        r, 201,
        combat_report_with_rolls(rec->cb.report, rec->rolls, rec->n_rolls));
    r->render = HTTP_RENDER_COMBAT;
}

err_code combat_replay(const db_combat *cb, const db_roll *rolls, size_t n,
                       combat_replay_fn replay, json_t *diffs, err_info *e)
{
    json_t *report = json_loads(cb->report, 0, NULL);
    int *values = calloc(n ? n : 1, sizeof *values);
    dice_source src;
    size_t i;
    err_code rc = ERR_OK;

    if (report == NULL || values == NULL) {
        rc = err_set(e, ERR_INTERNAL, NULL, "cannot read the stored combat");
        goto out;
    }
    for (i = 0; i < n; i++)
        values[i] = rolls[i].natural;
    dice_init_values(&src, DICE_REPLAY, values, n);
    if (replay(report, &src, diffs)) {
        if (dice_check_all_used(&src, NULL) != ERR_OK)
            combat_differ(diffs, "the combat used %zu of the %zu logged dice",
                          src.n_log, n);
        for (i = 0; i < src.n_log && i < n; i++) {
            if (src.log[i].faces != rolls[i].faces)
                combat_differ(diffs, "roll %zu: a d%d now, a d%d in the log",
                              i + 1, src.log[i].faces, rolls[i].faces);
            if (strcmp(src.log[i].reason, rolls[i].reason) != 0)
                combat_differ(diffs,
                              "roll %zu: rolled for %s now, %s in the "
                              "log",
                              i + 1, src.log[i].reason, rolls[i].reason);
            if (src.log[i].modified != rolls[i].modified)
                combat_differ(diffs, "roll %zu: modified %d now, %d in the log",
                              i + 1, src.log[i].modified, rolls[i].modified);
        }
    }
    dice_cleanup(&src);
out:
    json_decref(report);
    free(values);
    return rc;
}
