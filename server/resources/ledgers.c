/*
 * ledgers.c: dice anyone can check (docs/dice.md, docs/ledger.md): a
 * campaign's ledger exported and verified.  One-off commitments are in
 * commitments.c.
 *
 * Verifying walks the hash chain (core/ledger.c), re-derives every seeded
 * die from its revealed seed, and checks the rolls kept outside the chain
 * against it: a campaign combat's roll that is not in the ledger, and a
 * battle's record whose dice differ from the actions that drew them.
 */
#include "ledgers.h"
#include "http_stream.h"
#include "jsonb.h"
#include "combat.h"
#include "http.h"
#include "jsonv.h"
#include "jsonw.h"
#include "text.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Everything read from one snapshot of a campaign. */
typedef struct ledger_view {
    db_chain ch; /* the recorded length and head */
    db_ledger_row *rows;
    size_t n_rows;
    ledger_entry *entries; /* views of rows */
    db_combat *combats;
    size_t n_combats;
    db_battle *battles;
    size_t n_battles;
    ledger_seed *seeds; /* revealed seeds of the records */
    size_t n_seeds;
    /* the rows by record, then position: a record's entries are found by
     * binary search, so checks stay n log n in the campaign's size */
    const db_ledger_row **by_record;
} ledger_view;

static void view_free(ledger_view *v)
{
    db_ledger_rows_free(v->rows, v->n_rows);
    free(v->entries);
    db_combats_free(v->combats, v->n_combats);
    db_battles_free(v->battles, v->n_battles);
    free(v->seeds);
    free(v->by_record);
}

static int row_order(const void *a, const void *b)
{
    const db_ledger_row *x = *(const db_ledger_row *const *)a;
    const db_ledger_row *y = *(const db_ledger_row *const *)b;
    int c = strcmp(x->record_id, y->record_id);

    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The first of record's rows in v->by_record (its index), or n_rows when
 * the record has none. */
static size_t record_first(const ledger_view *v, const char *record)
{
    size_t lo = 0, hi = v->n_rows;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(v->by_record[mid]->record_id, record) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->n_rows && strcmp(v->by_record[lo]->record_id, record) == 0
               ? lo
               : v->n_rows;
}

/* The revealed seeds: every combat's, and every battle's once it is no
 * longer open (an open battle's seed stays secret, and its dice pend). */
static err_code view_seeds(ledger_view *v, err_info *e)
{
    size_t i;

    v->seeds = calloc(v->n_combats + v->n_battles + 1, sizeof *v->seeds);
    if (v->seeds == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < v->n_combats; i++)
        if (v->combats[i].server_seed[0]) {
            v->seeds[v->n_seeds].record_id = v->combats[i].id;
            v->seeds[v->n_seeds++].server_seed = v->combats[i].server_seed;
        }
    for (i = 0; i < v->n_battles; i++)
        if (v->battles[i].server_seed[0] &&
            strcmp(v->battles[i].status, "open") != 0) {
            v->seeds[v->n_seeds].record_id = v->battles[i].id;
            v->seeds[v->n_seeds++].server_seed = v->battles[i].server_seed;
        }
    return ERR_OK;
}

static err_code view_load(db_conn *c, const char *campaign_id, ledger_view *v,
                          err_info *e)
{
    err_code rc;
    size_t i;

    memset(v, 0, sizeof *v);
    if ((rc = db_chain_open(c, campaign_id, &v->ch, e)) ||
        (rc = db_ledger_rows(c, campaign_id, &v->rows, &v->n_rows, e)) ||
        (rc = db_combats_list(c, campaign_id, &v->combats, &v->n_combats, e)) ||
        (rc = db_battles_list(c, campaign_id, &v->battles, &v->n_battles, e)))
        return rc;
    v->entries = calloc(v->n_rows + 1, sizeof *v->entries);
    v->by_record = calloc(v->n_rows + 1, sizeof *v->by_record);
    if (v->entries == NULL || v->by_record == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    for (i = 0; i < v->n_rows; i++) {
        db_ledger_row_entry(&v->rows[i], v->ch.campaign_id, &v->entries[i]);
        v->by_record[i] = &v->rows[i];
    }
    qsort(v->by_record, v->n_rows, sizeof *v->by_record, row_order);
    return view_seeds(v, e);
}

/* ---- the export ---- */

static json_t *int_list(const int *values, int each, size_t n)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < n; i++)
        json_array_append_new(a, json_integer(values ? values[i] : each));
    return a;
}

static json_t *entry_json(const ledger_entry *en)
{
    json_t *o =
        json_pack("{s:I, s:s, s:s}", "pos", (json_int_t)en->pos, "kind",
                  en->kind == LEDGER_ROLL ? "roll" : "action", "at", en->at);

    if (en->kind == LEDGER_ROLL) {
        json_object_set_new(o, "combat_id", json_string(en->record_id));
        json_object_set_new(o, "seq", json_integer(en->seq));
        json_object_set_new(o, "side", json_string(en->side));
        json_object_set_new(o, "unit_id", jsonb_str_or_null(en->unit_id));
        json_object_set_new(o, "unit", json_string(en->unit));
        json_object_set_new(o, "reason", json_string(en->reason));
        json_object_set_new(o, "faces", json_integer(en->faces));
        json_object_set_new(o, "natural", json_integer(en->natural));
        json_object_set_new(o, "modified", json_integer(en->modified));
    } else {
        json_object_set_new(o, "battle_id", json_string(en->record_id));
        json_object_set_new(o, "seq", json_integer(en->seq));
        json_object_set_new(o, "action", json_string(en->action));
        json_object_set_new(o, "faces",
                            int_list(NULL, LEDGER_BATTLE_DIE, en->n_naturals));
        json_object_set_new(o, "naturals",
                            int_list(en->naturals, 0, en->n_naturals));
        json_object_set_new(o, "detail", jsonb_str_or_null(en->detail));
    }
    json_object_set_new(o, "source", json_string(en->source));
    json_object_set_new(o, "rng", jsonb_str_or_null(en->rng));
    json_object_set_new(o, "commitment", jsonb_str_or_null(en->commitment));
    json_object_set_new(o, "client_seed",
                        en->client_seed ? json_string(en->client_seed)
                                        : json_null());
    json_object_set_new(o, "prev_hash", json_string(en->prev_hash));
    json_object_set_new(o, "hash", json_string(en->hash));
    return o;
}

static json_t *seed_json(const char *id, const char *kind, const char *source,
                         const char *commitment, const char *seed,
                         const char *client_seed)
{
    bool is_seeded = strcmp(source, "seeded") == 0;

    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "record", id,
                     "kind", kind, "source", source, "rng",
                     is_seeded ? json_string(RNG_VERSION) : json_null(),
                     "commitment", jsonb_str_or_null(commitment), "server_seed",
                     jsonb_str_or_null(seed), "client_seed",
                     client_seed ? json_string(client_seed) : json_null());
}

/* ---- the export, streamed ---- */

/*
 * GET .../ledger is read and sent a piece at a time, so that neither its
 * time nor its memory grows with the campaign on any request worker: the
 * handler reads the chain's head, opens a stream (http_stream.h) with the
 * document's first bytes, and the export pump, a thread of its own,
 * writes the entries and then the seeds as the client takes them (at
 * most EXPORT_BUFFER bytes waiting), from one snapshot held on a
 * connection of the export's own (db_snapshot_open).  A failure half-way
 * ends the stream there: the document is then cut short, which no JSON
 * reader takes for a whole one.  A shared link's part of the ledger
 * (ledgers_send_part) is sent the same way, its entries ending at the
 * shared report's last die.
 */
enum {
    EXPORT_BUFFER = 256 * 1024, /* bytes waiting per export, at most */
    EXPORTS_MAX = 16,           /* exports at once, service-wide */
    EXPORTS_PER_TOKEN = 2,      /* and per token */
    EXPORT_KEEPALIVE_MS = 15000 /* a blank (JSON whitespace) after this
                                   long without a write */
};

typedef struct export_job {
    db_conn *c;
    db_ledger_cursor *cur;
    char campaign_id[DB_ID_MAX];
    const char *end; /* the document's last bytes, after the seeds (static) */
    int part;        /* 0 entries, 1 seeds, 2 done */
    bool is_whole;   /* its last bytes written: its statements read out */
    bool is_first;   /* nothing yet in the current array */
} export_job;

/* Its cursor and snapshot closed; a snapshot given up first unless the
 * document was written whole (db_snapshot_abandon: on PostgreSQL, the
 * rest of a statement's answer is then not read, on the pump). */
static void export_release(export_job *x)
{
    if (!x->is_whole)
        db_snapshot_abandon(x->c);
    db_ledger_cursor_close(x->cur);
    db_snapshot_close(x->c);
    x->cur = NULL;
    x->c = NULL;
}

static void export_gone(void *arg, void *user)
{
    export_job *x = user;

    (void)arg;
    if (x) {
        export_release(x);
        free(x);
    }
}

/* Writes json (taken) after a comma unless it is the array's first. */
static bool export_item(http_stream *s, export_job *x, json_t *json)
{
    char *text = json ? json_dumps(json, JSON_COMPACT) : NULL;
    bool is_ok = text != NULL &&
                 (x->is_first || http_stream_write(s, ",", 1)) &&
                 http_stream_write(s, text, strlen(text));

    x->is_first = false;
    free(text);
    json_decref(json);
    return is_ok;
}

/* The next piece of x: false when the stream is to end now. */
static bool export_step(http_stream *s, export_job *x)
{
    static const char between[] = "],\"seeds\":[";
    db_ledger_row row;
    db_ledger_seed sd;
    ledger_entry en;
    err_info e;
    int got;

    err_clear(&e);
    if (x->part == 0) {
        if ((got = db_ledger_cursor_entry(x->cur, &row, &e)) == 1) {
            db_ledger_row_entry(&row, x->campaign_id, &en);
            bool is_ok = export_item(s, x, entry_json(&en));
            db_ledger_row_clear(&row);
            return is_ok;
        }
        if (got == 0) {
            x->part = 1;
            x->is_first = true;
            return http_stream_write(s, between, sizeof between - 1);
        }
    } else {
        if ((got = db_ledger_cursor_seed(x->cur, &sd, &e)) == 1) {
            bool is_ok = export_item(
                s, x,
                seed_json(sd.id, sd.is_battle ? "battle" : "combat", sd.source,
                          sd.commitment, sd.seed, sd.client_seed));
            free(sd.client_seed);
            return is_ok;
        }
        if (got == 0) {
            x->is_whole = true;
            http_stream_write(s, x->end, strlen(x->end));
            return false; /* the document is whole: the stream ends */
        }
    }
    if (got < 0)
        fprintf(stderr, "umpire: the export of campaign %s stopped: %s\n",
                x->campaign_id, e.message);
    return false;
}

/* The export pump's turn: each export is given what its room takes. */
static void export_work(void *arg, http_stream *const *streams, size_t n)
{
    size_t i;

    (void)arg;
    for (i = 0; i < n; i++) {
        http_stream *s = streams[i];
        export_job *x = http_stream_user(s);

        if (x == NULL || x->part == 2)
            continue;
        while (http_stream_room(s) > 0)
            if (!export_step(s, x)) {
                x->part = 2;
                export_release(x);
                http_stream_end(s);
                break;
            }
        if (x->part != 2)
            http_stream_want(s);
    }
}

err_code ledgers_export_start(int stall_ms, int max_ms, http_streams **out,
                              err_info *e)
{
    http_streams_config cfg = {EXPORTS_MAX,
                               EXPORT_KEEPALIVE_MS,
                               "\n",
                               EXPORT_BUFFER,
                               stall_ms,
                               max_ms,
                               "ledger exports and shared ledgers"};
    http_streams_producer producer = {export_work, export_gone, NULL};

    return http_streams_start(&cfg, &producer, out, e);
}

/* Exports, refused (http_stream_refuse). */
static const http_stream_kind exports_kind = {"ledger exports running", "busy",
                                              5, 5, NULL};
/* Shared links' ledger parts (ledgers_send_part), among the exports: all
 * links together stream SHARES_MAX at most, so that readers without a
 * token, however many, leave the rest of the exports to the campaigns'
 * tokens. */
enum { SHARES_MAX = 8 };
static const char shares_key[] = "shared links"; /* no token's id */
static const http_stream_kind shares_kind = {"ledger streams open", "busy", 5,
                                             5, "the shared links have"};

static void export_refuse(http_request *r, http_stream_refusal why)
{
    http_stream_refuse(r, why, &exports_kind, EXPORTS_PER_TOKEN);
}

/* A new export of campaign_id's ledger after after (0: from the first) up
 * to upto (below 0: whole), with every record's seeds or those its entries
 * name (db_ledger_cursor_open), or (combat_id not NULL) of that combat's
 * own entries, after + 1 to upto (db_ledger_cursor_open_combat); its
 * snapshot and cursor open, ending with end; NULL with r answered.  When
 * chain is not NULL, the chain's recorded head into it, from the same
 * snapshot. */
static export_job *export_new(http_request *r, const char *campaign_id,
                              const char *combat_id, long long after,
                              long long upto, bool is_all_seeds,
                              const char *end, db_chain *chain)
{
    export_job *x = calloc(1, sizeof *x);
    err_info e;
    err_code rc;

    err_clear(&e);
    if (x == NULL) {
        export_refuse(r, HTTP_STREAM_NO_MEMORY);
        return NULL;
    }
    x->is_first = true;
    x->end = end;
    snprintf(x->campaign_id, sizeof x->campaign_id, "%s", campaign_id);
    if ((rc = db_snapshot_open(http_db(r->srv), &x->c, &e)) ||
        (chain != NULL &&
         (rc = db_chain_open(x->c, x->campaign_id, chain, &e))) ||
        (rc =
             combat_id != NULL
                 ? db_ledger_cursor_open_combat(x->c, x->campaign_id, combat_id,
                                                after + 1, upto, &x->cur, &e)
                 : db_ledger_cursor_open(x->c, x->campaign_id, after, upto,
                                         is_all_seeds, &x->cur, &e))) {
        export_gone(NULL, x);
        http_reply_err(r, rc, &e);
        return NULL;
    }
    return x;
}

/* Answers r with x streamed after first (x is the stream's from now on,
 * or freed).  A HEAD is answered as GET is, stream and all, so that its
 * headers are GET's (chunked, no Content-Length): libmicrohttpd sends no
 * body, and frees the stream with the response. */
static void export_send(http_request *r, export_job *x, const char *first,
                        const char *key, int max_per_key,
                        const http_stream_kind *kind)
{
    bool is_head = strcmp(r->method, "HEAD") == 0;
    http_stream_refusal why;
    http_stream *s;

    if (is_head) {
        /* Nothing read for it: its snapshot let go before the pump could
         * start the query, the stream ended at once. */
        export_release(x);
        x->part = 2;
    }
    s = http_stream_open(http_export_streams(r->srv), r, key, max_per_key, x,
                         first, &why);
    if (s == NULL) {
        export_gone(NULL, x);
        http_stream_refuse(r, why, kind, max_per_key);
        return;
    }
    if (is_head)
        http_stream_end(s);
    http_reply_stream(r, s, "application/json");
}

/* ?after=N of an export: the entries after position N (0, the default:
 * all).  False (and e) when malformed. */
static bool parse_after(http_request *r, long long *after, err_info *e)
{
    const char *s = http_query(r, "after");
    char *end = NULL;

    *after = 0;
    if (s == NULL)
        return true;
    errno = 0;
    *after = strtoll(s, &end, 10);
    if (*s >= '0' && *s <= '9' && *end == '\0' && errno == 0 &&
        (s[0] != '0' || s[1] == '\0') && *after != LLONG_MAX)
        return true;
    err_set(e, ERR_INVALID, "after",
            "after is the position of the last entry you hold, a whole "
            "number from 0, not \"%.40s\"",
            s);
    return false;
}

/* ?seeds= of an export: "named" (the default), those of the records its
 * entries name (with after, the part's; else every record's), or "all",
 * every record's whatever after (a download cut short, resumed: the
 * seeds come last).  False (and e) when malformed. */
static bool parse_seeds(http_request *r, bool *is_all, err_info *e)
{
    const char *s = http_query(r, "seeds");

    *is_all = s != NULL && strcmp(s, "all") == 0;
    if (s == NULL || *is_all || strcmp(s, "named") == 0)
        return true;
    err_set(e, ERR_INVALID, "seeds",
            "seeds is \"named\" (the seeds of the records the entries name, "
            "the default) or \"all\" (every record's), not \"%.40s\"",
            s);
    return false;
}

void ledgers_export(http_request *r)
{
    const char *key = r->has_token ? r->token.id : "";
    http_stream_refusal why;
    bool is_all_seeds;
    long long after;
    export_job *x;
    db_chain ch;
    char *first;
    err_info e;
    jw w;

    err_clear(&e);
    if (!parse_after(r, &after, &e) || !parse_seeds(r, &is_all_seeds, &e)) {
        http_reply_err(r, e.code, &e);
        return;
    }
    if ((why = http_streams_check(http_export_streams(r->srv), key,
                                  EXPORTS_PER_TOKEN)) != HTTP_STREAM_OPENED) {
        export_refuse(r, why);
        return;
    }
    if ((x = export_new(r, r->params[0], NULL, after, -1, is_all_seeds, "]}",
                        &ch)) == NULL)
        return;
    /* The head, up to the entries' array (ids and hex digits: nothing to
     * escape). */
    jw_init(&w);
    jw_object(&w);
    jw_kstring(&w, "campaign_id", ch.campaign_id);
    jw_kstring(&w, "version", LEDGER_VERSION);
    jw_kint(&w, "length", ch.length);
    jw_kstring(&w, "head", ch.head);
    if (after > 0)
        jw_kint(&w, "after", after);
    jw_key(&w, "entries");
    jw_raw(&w, "[", 1);
    if ((first = jw_take(&w, NULL)) == NULL) {
        export_gone(NULL, x);
        export_refuse(r, HTTP_STREAM_NO_MEMORY);
        return;
    }
    export_send(r, x, first, key, EXPORTS_PER_TOKEN, &exports_kind);
    free(first);
}

bool ledgers_part_may(http_request *r)
{
    http_stream_refusal why =
        http_streams_check(http_export_streams(r->srv), shares_key, SHARES_MAX);

    if (why != HTTP_STREAM_OPENED)
        http_stream_refuse(r, why, &shares_kind, SHARES_MAX);
    return why == HTTP_STREAM_OPENED;
}

void ledgers_send_part(http_request *r, const char *campaign_id,
                       const char *combat_id, long long after, long long upto,
                       const char *first)
{
    export_job *x;

    /* Its room was checked before the report was read (ledgers_part_may);
     * http_stream_open checks it again as it opens. */
    if ((x = export_new(r, campaign_id, combat_id, after, upto, false, "]}}",
                        NULL)) != NULL)
        export_send(r, x, first, shares_key, SHARES_MAX, &shares_kind);
}

/* ---- verification ---- */

/* Adds a problem at pos (0: none in particular). */
static void problem(json_t *problems, long long pos, const char *why)
{
    json_array_append_new(problems,
                          json_pack("{s:o, s:s}", "pos",
                                    pos ? json_integer(pos) : json_null(),
                                    "problem", why));
}

/* A battle's record must hold the dice its actions drew, in order. */
static err_code check_battle_record(db_conn *c, const ledger_view *v,
                                    const db_battle *b, json_t *problems,
                                    err_info *e)
{
    db_roll *rolls = NULL;
    size_t n = 0, k = 0, i;
    int j;
    char why[256];
    err_code rc;

    if ((rc = db_rolls_list(c, b->combat_id, &rolls, &n, e)))
        return rc;
    for (i = record_first(v, b->id); i < v->n_rows; i++) {
        const db_ledger_row *row = v->by_record[i];
        if (strcmp(row->record_id, b->id) != 0)
            break;
        if (row->kind != LEDGER_ACTION)
            continue;
        for (j = 0; j < row->n_naturals; j++, k++)
            if (k >= n || rolls[k].natural != row->naturals[j]) {
                snprintf(why, sizeof why,
                         "battle %s: its record %s does not hold the dice "
                         "its actions drew (die %zu)",
                         b->id, b->combat_id, k + 1);
                problem(problems, 0, why);
                free(rolls);
                return ERR_OK;
            }
    }
    if (k != n) {
        snprintf(why, sizeof why,
                 "battle %s: its record %s holds %zu dice, its actions drew "
                 "%zu",
                 b->id, b->combat_id, n, k);
        problem(problems, 0, why);
    }
    free(rolls);
    return ERR_OK;
}

/* The checks of the rolls kept outside the chain. */
static err_code check_outside(db_conn *c, const char *campaign_id,
                              const ledger_view *v, json_t *problems,
                              err_info *e)
{
    char(*loose)[DB_ID_MAX + 16] = NULL;
    size_t n = 0, i;
    err_code rc;

    if ((rc = db_ledger_unchained(c, campaign_id, &loose, &n, e)))
        return rc;
    for (i = 0; i < n; i++) {
        char why[256];
        snprintf(why, sizeof why,
                 "roll %s is in the roll log but not in the ledger (it was "
                 "added after the fact)",
                 loose[i]);
        problem(problems, 0, why);
    }
    free(loose);
    for (i = 0; i < v->n_battles && rc == ERR_OK; i++)
        if (v->battles[i].combat_id[0])
            rc = check_battle_record(c, v, &v->battles[i], problems, e);
    return rc;
}

/* Reads ?pos= and ?hash= (both or neither): an entry's number and the
 * hash a player kept for it.  False (and e) when malformed. */
static bool parse_kept(http_request *r, long long *pos, err_info *e)
{
    const char *pos_s = http_query(r, "pos"), *hash = http_query(r, "hash");
    char *end = NULL;

    *pos = 0;
    if (pos_s == NULL && hash == NULL)
        return true;
    if (pos_s == NULL || hash == NULL) {
        err_set(e, ERR_INVALID, pos_s ? "hash" : "pos",
                "pos and hash go together: an entry's number and the hash "
                "you kept for it");
        return false;
    }
    *pos = strtoll(pos_s, &end, 10);
    if (*pos_s < '1' || *pos_s > '9' || *end != '\0' || *pos < 1) {
        err_set(e, ERR_INVALID, "pos", "pos is an entry's number, from 1");
        return false;
    }
    if (strlen(hash) != 64 || strspn(hash, "0123456789abcdef") != 64) {
        err_set(e, ERR_INVALID, "hash",
                "hash is 64 lower-case hex digits, as the ledger shows it");
        return false;
    }
    return true;
}

/* A hash the caller kept (?pos=&hash=) must still be the ledger's. */
static void check_kept(http_request *r, const ledger_view *v, long long pos,
                       json_t *problems)
{
    const char *hash = http_query(r, "hash");
    char why[256];

    if (pos == 0)
        return;
    if (pos < 1 || (size_t)pos > v->n_rows) {
        snprintf(why, sizeof why,
                 "the ledger holds %zu entries: entry %lld, whose hash you "
                 "kept, is gone",
                 v->n_rows, pos);
        problem(problems, pos, why);
    } else if (strcmp(v->rows[pos - 1].hash, hash) != 0) {
        snprintf(why, sizeof why,
                 "entry %lld: its hash is not the one you kept (the ledger "
                 "was rewritten up to there)",
                 pos);
        problem(problems, pos, why);
    }
}

/*
 * Campaign campaign_id's ledger checked on c (one snapshot): the chain,
 * every revealed seed's dice, the rolls kept outside the chain, every
 * battle's record.  Into v (read; the caller frees it), the walk of the
 * chain, the dice counted, and problems (each {pos, problem}, in that
 * order).
 */
static err_code check_view(db_conn *c, const char *campaign_id, ledger_view *v,
                           ledger_walk *chain, ledger_dice *count,
                           json_t *problems, err_info *e)
{
    ledger_walk dice;
    err_code rc = view_load(c, campaign_id, v, e);

    if (rc == ERR_OK)
        rc = ledger_check(v->entries, v->n_rows, v->ch.length, v->ch.head,
                          chain, e);
    if (rc == ERR_OK)
        rc = ledger_check_dice(v->entries, v->n_rows, v->seeds, v->n_seeds,
                               &dice, count, e);
    if (rc != ERR_OK)
        return rc;
    if (chain->broken_pos)
        problem(problems, chain->broken_pos, chain->why);
    if (dice.broken_pos)
        problem(problems, dice.broken_pos, dice.why);
    return check_outside(c, campaign_id, v, problems, e);
}

err_code ledgers_problems(db_conn *c, const char *campaign_id,
                          json_t **problems, err_info *e)
{
    ledger_view v;
    ledger_walk chain;
    ledger_dice count;
    err_code rc;

    if ((*problems = json_array()) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    rc = check_view(c, campaign_id, &v, &chain, &count, *problems, e);
    view_free(&v);
    if (rc != ERR_OK) {
        json_decref(*problems);
        *problems = NULL;
    }
    return rc;
}

void ledgers_verify(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    ledger_view v;
    ledger_walk chain;
    ledger_dice count;
    json_t *problems, *first = json_null();
    long long kept;
    err_info e;
    err_code rc, end_rc;

    err_clear(&e);
    if (!parse_kept(r, &kept, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    if ((rc = db_read_begin(d, &c, &e)) != ERR_OK) {
        http_reply_err(r, rc, &e);
        return;
    }
    problems = json_array();
    rc = check_view(c, r->params[0], &v, &chain, &count, problems, &e);
    end_rc = db_read_end(d, c, &e);
    if (rc == ERR_OK)
        rc = end_rc;
    if (rc != ERR_OK) {
        json_decref(problems);
        view_free(&v);
        http_reply_err(r, rc, &e);
        return;
    }
    check_kept(r, &v, kept, problems);
    if (json_array_size(problems) > 0)
        first = json_deep_copy(json_array_get(problems, 0));
    http_reply_json(
        r, 200,
        json_pack("{s:s, s:b, s:o, s:{s:I, s:s, s:I}, s:{s:I, s:I, s:I, s:I}, "
                  "s:o}",
                  "campaign_id", v.ch.campaign_id, "verified",
                  json_array_size(problems) == 0, "first_broken", first,
                  "ledger", "length", (json_int_t)v.ch.length, "head",
                  v.ch.head, "walked", (json_int_t)chain.length, "dice",
                  "seeded", (json_int_t)count.seeded, "rederived",
                  (json_int_t)count.rederived, "entered",
                  (json_int_t)count.entered, "pending",
                  (json_int_t)count.pending, "problems", problems));
    view_free(&v);
}
