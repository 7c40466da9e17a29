/*
 * vf_ledger.c: the check of a campaign ledger, vf_verify_ledger; see
 * vf_verify.h.
 *
 * Read and validated as in vf_verify.c: a field missing or of the wrong
 * type makes the input unusable (VF_BAD_INPUT), a value well formed but
 * wrong is a problem (VF_MISMATCH).  Ledger hashes are always rebuilt from
 * the entries' fields, never from a content string the document might
 * carry.  Dice come from vf_crypto.c alone.
 */
#include "vf_verify.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vf_common.h"
#include "vf_crypto.h"

#define LEDGER_VERSION "umpire-ledger-v1"

/* ---- ledgers: reading ---------------------------------------------------- */

/* How a field of an entry is written in the canonical content. */
typedef enum field_type {
    FT_TEXT,    /* a string as its bytes */
    FT_NUMBER,  /* an integer in decimal */
    FT_NUMBERS, /* an array of integers, comma-separated */
} field_type;

typedef struct field {
    const char *name; /* its member in the export */
    field_type type;
} field;

/* docs/ledger.md, "Canonical content": the fields after the version, the
 * kind, the campaign id and pos (5 to 18 of a roll, 5 to 15 of an
 * action), in order. */
static const field roll_fields[] = {
    {"at", FT_TEXT},         {"combat_id", FT_TEXT},  {"seq", FT_NUMBER},
    {"side", FT_TEXT},       {"unit_id", FT_TEXT},    {"unit", FT_TEXT},
    {"reason", FT_TEXT},     {"faces", FT_NUMBER},    {"natural", FT_NUMBER},
    {"modified", FT_NUMBER}, {"source", FT_TEXT},     {"rng", FT_TEXT},
    {"commitment", FT_TEXT}, {"client_seed", FT_TEXT}};
static const field action_fields[] = {
    {"at", FT_TEXT},         {"battle_id", FT_TEXT},  {"seq", FT_NUMBER},
    {"action", FT_TEXT},     {"faces", FT_NUMBERS},   {"naturals", FT_NUMBERS},
    {"detail", FT_TEXT},     {"source", FT_TEXT},     {"rng", FT_TEXT},
    {"commitment", FT_TEXT}, {"client_seed", FT_TEXT}};

/* One entry of the ledger; the pointers are borrowed from the document. */
typedef struct entry {
    const json_t *obj;
    json_int_t pos, seq;
    bool is_action;     /* an action of a battle, else a die of a combat */
    const char *record; /* its combat_id or battle_id */
    const json_t *faces, *naturals;   /* integers of a roll, arrays of an
                                         action */
    uint8_t prev_hash[VF_SHA256_LEN]; /* as the export says */
    uint8_t hash[VF_SHA256_LEN];      /* as the export says */
    uint8_t computed[VF_SHA256_LEN];  /* rebuilt from prev_hash and fields */
} entry;

/* One element of "seeds": the dice of a combat or a battle. */
typedef struct record {
    const json_t *obj;
    const char *id;
    bool is_battle;
    const char *source;      /* "seeded" or "entered" */
    const char *server_seed; /* NULL until revealed */
} record;

typedef struct ledger {
    const char *campaign_id;
    json_int_t length;
    json_int_t after; /* a part's entries come after this position (0: the
                         whole, from entry 1) */
    uint8_t start[VF_SHA256_LEN]; /* the hash the first entry follows: 64
                                     zeros, or a part's first prev_hash */
    uint8_t head[VF_SHA256_LEN];
    entry *entries;
    size_t n_entries;
    record *records;
    size_t n_records;
} ledger;

/* A netstring: "<length>:<bytes>,". */
static void ns_put(vf_sha256_ctx *h, const char *s, size_t len)
{
    char head[32];
    int n = snprintf(head, sizeof head, "%zu:", len);

    vf_sha256_update(h, head, (size_t)n);
    vf_sha256_update(h, s, len);
    vf_sha256_update(h, ",", 1);
}

static void ns_int(vf_sha256_ctx *h, json_int_t v)
{
    char num[32];
    int n = snprintf(num, sizeof num, "%lld", (long long)v);

    ns_put(h, num, (size_t)n);
}

/* An array of integers as one netstring of comma-separated numbers: the
 * length first, then the numbers, so no buffer is needed. */
static int ns_ints(vf_sha256_ctx *h, const json_t *arr)
{
    char num[32];
    size_t len = 0, i, pass;
    int n;

    for (pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            n = snprintf(num, sizeof num, "%zu:", len);
            vf_sha256_update(h, num, (size_t)n);
        }
        for (i = 0; i < json_array_size(arr); i++) {
            const json_t *v = json_array_get(arr, i);
            if (!json_is_integer(v))
                return -1;
            n = snprintf(num, sizeof num, "%s%lld", i ? "," : "",
                         (long long)json_integer_value(v));
            len += (size_t)n;
            if (pass == 1)
                vf_sha256_update(h, num, (size_t)n);
        }
    }
    vf_sha256_update(h, ",", 1);
    return 0;
}

/* One field; null is the empty text.  -1 if absent or of the wrong type. */
static int ns_field(vf_sha256_ctx *h, const json_t *v, field_type type)
{
    if (json_is_null(v))
        ns_put(h, "", 0);
    else if (type == FT_TEXT && json_is_string(v))
        ns_put(h, json_string_value(v), json_string_length(v));
    else if (type == FT_NUMBER && json_is_integer(v))
        ns_int(h, json_integer_value(v));
    else if (type != FT_NUMBERS || !json_is_array(v))
        return -1;
    else
        return ns_ints(h, v);
    return 0;
}

/*
 * e->computed = SHA-256(prev_hash || content) of docs/ledger.md, "The
 * chain".  Returns the name of a field that is missing or of the wrong
 * type, or NULL.
 */
static const char *hash_entry(const ledger *L, entry *e)
{
    const field *fields = e->is_action ? action_fields : roll_fields;
    size_t n = e->is_action ? sizeof action_fields / sizeof *action_fields
                            : sizeof roll_fields / sizeof *roll_fields;
    const char *kind = e->is_action ? "action" : "roll";
    vf_sha256_ctx h;
    size_t i;

    vf_sha256_init(&h);
    vf_sha256_update(&h, e->prev_hash, sizeof e->prev_hash);
    ns_put(&h, LEDGER_VERSION, strlen(LEDGER_VERSION));
    ns_put(&h, kind, strlen(kind));
    ns_put(&h, L->campaign_id, strlen(L->campaign_id));
    ns_int(&h, e->pos);
    for (i = 0; i < n; i++)
        if (ns_field(&h, json_object_get(e->obj, fields[i].name),
                     fields[i].type) != 0)
            return fields[i].name;
    vf_sha256_final(&h, e->computed);
    return NULL;
}

/* The number of dice of an entry, and its die k (faces or natural). */
static size_t n_dice(const entry *e)
{
    return e->is_action ? json_array_size(e->faces) : 1;
}

static json_int_t die_at(const json_t *v, size_t k)
{
    return json_integer_value(json_is_array(v) ? json_array_get(v, k) : v);
}

/* Every die has faces 2..1000 and an integer natural, as many as faces. */
static int check_entry_dice(const entry *e)
{
    size_t k;

    if (e->is_action &&
        json_array_size(e->faces) != json_array_size(e->naturals))
        return -1;
    for (k = 0; k < n_dice(e); k++) {
        const json_t *f = e->is_action ? json_array_get(e->faces, k) : e->faces;
        const json_t *n =
            e->is_action ? json_array_get(e->naturals, k) : e->naturals;
        if (!json_is_integer(f) || !json_is_integer(n) ||
            json_integer_value(f) < VF_FACES_MIN ||
            json_integer_value(f) > VF_FACES_MAX)
            return -1;
    }
    return 0;
}

static vf_result read_entry(const ledger *L, const json_t *obj, size_t i,
                            entry *e, FILE *out)
{
    const char *kind = NULL, *prev = NULL, *hash = NULL, *bad;

    e->obj = obj;
    if (!json_is_object(obj) || vf_get_str(obj, "kind", true, &kind) ||
        kind == NULL || (strcmp(kind, "roll") && strcmp(kind, "action")))
        return vf_bad_input(out, "entries[%zu] is not of kind roll or action",
                            i);
    e->is_action = strcmp(kind, "action") == 0;
    if (vf_get_int(obj, "pos", 1, INT64_MAX, &e->pos) ||
        vf_get_int(obj, "seq", 1, INT64_MAX, &e->seq))
        return vf_bad_input(out,
                            "entries[%zu]: pos and seq must be positive "
                            "integers",
                            i);
    if (vf_get_str(obj, "prev_hash", true, &prev) ||
        vf_get_hash(prev, e->prev_hash) ||
        vf_get_str(obj, "hash", true, &hash) || vf_get_hash(hash, e->hash))
        return vf_bad_input(out,
                            "entries[%zu]: prev_hash and hash must be 64 "
                            "hex digits",
                            i);
    if ((bad = hash_entry(L, e)) != NULL)
        return vf_bad_input(
            out, "entries[%zu].%s is missing or of the wrong type", i, bad);
    e->record = json_string_value(
        json_object_get(obj, e->is_action ? "battle_id" : "combat_id"));
    e->faces = json_object_get(obj, "faces");
    e->naturals = json_object_get(obj, e->is_action ? "naturals" : "natural");
    if (e->record == NULL || check_entry_dice(e) != 0)
        return vf_bad_input(out,
                            "entries[%zu] needs its combat or battle id, and "
                            "dice of 2 to 1000 faces with a natural each",
                            i);
    return VF_OK;
}

static vf_result read_record(const json_t *obj, size_t i, record *r, FILE *out)
{
    const char *kind = NULL, *rng, *commitment, *client_seed;
    uint8_t bytes[VF_SHA256_LEN];

    r->obj = obj;
    if (!json_is_object(obj) || vf_get_str(obj, "record", true, &r->id) ||
        vf_get_str(obj, "kind", true, &kind) ||
        vf_get_str(obj, "source", true, &r->source) ||
        vf_get_str(obj, "rng", true, &rng) ||
        vf_get_str(obj, "commitment", true, &commitment) ||
        vf_get_str(obj, "server_seed", true, &r->server_seed) ||
        vf_get_str(obj, "client_seed", true, &client_seed) || r->id == NULL ||
        r->source == NULL || kind == NULL ||
        (strcmp(kind, "combat") && strcmp(kind, "battle")))
        return vf_bad_input(out,
                            "seeds[%zu] needs a record id, a kind (combat or "
                            "battle), a source, and rng, commitment, "
                            "server_seed and client_seed (strings or null)",
                            i);
    if (rng != NULL && strcmp(rng, "v1") != 0)
        return vf_bad_input(out,
                            "seeds[%zu]: rng \"%s\": this verifier knows v1 "
                            "only",
                            i, rng);
    if ((commitment && vf_get_hash(commitment, bytes)) ||
        (r->server_seed && vf_get_hash(r->server_seed, bytes)))
        return vf_bad_input(out,
                            "seeds[%zu]: commitment and server_seed must be "
                            "64 hex digits",
                            i);
    r->is_battle = strcmp(kind, "battle") == 0;
    return VF_OK;
}

static vf_result read_items(const json_t *doc, ledger *L, FILE *out);

/* The export's top level, then every entry and record. */
static vf_result read_ledger(const json_t *doc, ledger *L, FILE *out)
{
    const char *version = NULL, *head = NULL;

    if (!json_is_object(doc))
        return vf_bad_input(out, "a ledger must be a JSON object");
    if (vf_get_str(doc, "version", true, &version) || version == NULL ||
        strcmp(version, LEDGER_VERSION) != 0)
        return vf_bad_input(out, "version is not \"" LEDGER_VERSION "\"");
    if (vf_get_str(doc, "campaign_id", true, &L->campaign_id) ||
        L->campaign_id == NULL ||
        vf_get_int(doc, "length", 0, INT64_MAX, &L->length) ||
        vf_get_str(doc, "head", true, &head) || vf_get_hash(head, L->head))
        return vf_bad_input(out, "campaign_id, length and head (64 hex digits) "
                                 "are required");
    if (json_object_get(doc, "after") != NULL)
        return vf_bad_input(
            out,
            "this is the part of a ledger after entry %lld"
            " (?after=): join its entries after those up to "
            "there, from an export before it, and check the "
            "whole (docs/ledger.md, \"Keeping an export up to date, or "
            "finishing one\")",
            (long long)json_integer_value(json_object_get(doc, "after")));
    return read_items(doc, L, out);
}

/* doc's entries and seeds (its campaign_id read first); a part's first
 * entry gives the hash the chain starts from. */
static vf_result read_items(const json_t *doc, ledger *L, FILE *out)
{
    const json_t *entries = json_object_get(doc, "entries");
    const json_t *seeds = json_object_get(doc, "seeds");
    size_t i, j;

    if (!json_is_array(entries) || !json_is_array(seeds))
        return vf_bad_input(out, "missing array \"entries\" or \"seeds\"");
    L->n_entries = json_array_size(entries);
    L->n_records = json_array_size(seeds);
    L->entries = calloc(L->n_entries + 1, sizeof *L->entries);
    L->records = calloc(L->n_records + 1, sizeof *L->records);
    if (L->entries == NULL || L->records == NULL)
        return vf_bad_input(out, "out of memory");
    for (i = 0; i < L->n_entries; i++)
        if (read_entry(L, json_array_get(entries, i), i, &L->entries[i], out))
            return VF_BAD_INPUT;
    for (i = 0; i < L->n_records; i++) {
        record *r = &L->records[i];
        if (read_record(json_array_get(seeds, i), i, r, out) != VF_OK)
            return VF_BAD_INPUT;
        for (j = 0; j < i; j++)
            if (L->records[j].is_battle == r->is_battle &&
                strcmp(L->records[j].id, r->id) == 0)
                return vf_bad_input(out, "seeds lists %s twice", r->id);
    }
    if (L->after > 0 && L->n_entries > 0)
        memcpy(L->start, L->entries[0].prev_hash, sizeof L->start);
    return VF_OK;
}

/* ---- ledgers: the chain -------------------------------------------------- */

/* Entries 1..N in order (a part's after + 1..N, from the hash its first
 * names), each linked to the one before and matching its content; stops
 * at the first broken link.  Then the length and head. */
static void check_chain(const ledger *L, vf_checker *c)
{
    uint8_t prev[VF_SHA256_LEN];
    char hex[VF_HEX_LEN];
    size_t i;

    memcpy(prev, L->start, sizeof prev);
    for (i = 0; i < L->n_entries; i++) {
        const entry *e = &L->entries[i];
        long long want = (long long)L->after + (long long)i + 1,
                  pos = (long long)e->pos;

        if (pos != want) {
            vf_problem(c,
                       pos > want ? "entry %lld is missing: entry %lld comes "
                                    "next (an entry was removed)"
                                  : "entry %lld: found entry %lld in its place "
                                    "(entries repeated or out of order)",
                       want, pos);
            break;
        }
        if (memcmp(e->prev_hash, prev, sizeof prev) != 0) {
            if (i == 0)
                vf_problem(c, "entry 1: prev_hash is not 64 zeros (the ledger "
                              "does not start here)");
            else
                vf_problem(c,
                           "entry %lld: prev_hash does not match entry %lld "
                           "(an entry is missing or was replaced)",
                           pos, pos - 1);
            break;
        }
        if (memcmp(e->hash, e->computed, sizeof prev) != 0) {
            vf_problem(c,
                       "entry %lld: hash does not match its content (the "
                       "entry was altered)",
                       pos);
            break;
        }
        memcpy(prev, e->hash, sizeof prev);
    }
    if (i == L->n_entries && L->after > 0)
        fprintf(c->out,
                "chain: entries %lld to %lld, each linked to the one before "
                "and matching its content, from the hash entry %lld names "
                "as entry %lld's\n",
                (long long)L->after + 1, (long long)L->after + (long long)i,
                (long long)L->after + 1, (long long)L->after);
    else if (i == L->n_entries)
        fprintf(c->out,
                "chain: %zu entries, each linked to the one before "
                "and matching its content\n",
                L->n_entries);
    if (L->length != L->after + (json_int_t)L->n_entries)
        vf_problem(c, "length says %lld, but the ledger has %lld entries",
                   (long long)L->length,
                   (long long)L->after + (long long)L->n_entries);
    vf_hex(prev, sizeof prev, hex);
    if (i == L->n_entries && memcmp(L->head, prev, sizeof prev) != 0)
        vf_problem(c, "head is not the hash of the last entry (%s)", hex);
}

/* ---- ledgers: the dice --------------------------------------------------- */

/* Counts for the summary. */
typedef struct dice_stats {
    int n_verified;   /* records whose dice were re-derived */
    long n_dice;      /* dice re-derived */
    int n_unrevealed; /* seeded records whose seed is not revealed yet */
    int n_entered;    /* records of entered dice */
    int n_earlier;    /* records begun before a part (not re-derived) */
} dice_stats;

static const char *record_kind(bool is_battle)
{
    return is_battle ? "battle" : "combat";
}

/* Orders entries by record (combats first), then seq, then pos. */
static int entry_cmp(const void *a, const void *b)
{
    const entry *x = *(const entry *const *)a, *y = *(const entry *const *)b;
    int d = (int)x->is_action - (int)y->is_action;

    if (d == 0)
        d = strcmp(x->record, y->record);
    if (d == 0 && x->seq != y->seq)
        d = x->seq < y->seq ? -1 : 1;
    if (d == 0 && x->pos != y->pos)
        d = x->pos < y->pos ? -1 : 1;
    return d;
}

/* The record of seeds an entry belongs to, or NULL. */
static const record *find_record(const ledger *L, const entry *e)
{
    size_t i;

    for (i = 0; i < L->n_records; i++)
        if (L->records[i].is_battle == e->is_action &&
            strcmp(L->records[i].id, e->record) == 0)
            return &L->records[i];
    return NULL;
}

/* The first of the members that name a die's record (its source,
 * commitment and client seed) in which a and b differ, or NULL. */
static const char *record_differs(const json_t *a, const json_t *b)
{
    static const char *const same[] = {"source", "commitment", "client_seed"};
    size_t k;

    for (k = 0; k < sizeof same / sizeof *same; k++)
        if (strcmp(vf_text_of(a, same[k]), vf_text_of(b, same[k])))
            return same[k];
    return NULL;
}

/* Whether seed is the one commitment (64 hex digits, or "" for none)
 * holds: SHA-256 of its bytes. */
static bool seed_commits(const uint8_t seed[VF_SEED_LEN],
                         const char *commitment)
{
    uint8_t want[VF_SHA256_LEN], got[VF_SHA256_LEN];

    if (commitment[0] == '\0')
        return true;
    vf_sha256(seed, VF_SEED_LEN, got);
    return vf_get_hash(commitment, want) == 0 &&
           memcmp(want, got, sizeof got) == 0;
}

/* The entries say what their record says, and their seqs run 1, 2,
 * 3... (in a part, from the first's on, when the record began before it:
 * is_part) */
static int check_group(const record *r, entry *const *g, size_t n, bool is_part,
                       vf_checker *c)
{
    json_int_t from = is_part && n > 0 ? g[0]->seq : 1;
    const char *member;
    size_t j;

    for (j = 0; j < n; j++) {
        if ((member = record_differs(g[j]->obj, r->obj)) != NULL) {
            vf_problem(c, "entry %lld: its %s differs from %s %s's in seeds",
                       (long long)g[j]->pos, member, record_kind(r->is_battle),
                       r->id);
            return -1;
        }
        /* Sorted by seq, from its first: seq - from never overflows. */
        if (g[j]->seq - from != (json_int_t)j) {
            if (from <= INT64_MAX - (json_int_t)j)
                vf_problem(c,
                           "entry %lld: %s %s has %s %lld where %lld should "
                           "be (one is missing or repeated)",
                           (long long)g[j]->pos, record_kind(r->is_battle),
                           r->id, r->is_battle ? "action" : "die",
                           (long long)g[j]->seq,
                           (long long)(from + (json_int_t)j));
            else /* j > 0 */
                vf_problem(c,
                           "entry %lld: %s %s has %s %lld where the one "
                           "after %lld should be (one is missing or "
                           "repeated)",
                           (long long)g[j]->pos, record_kind(r->is_battle),
                           r->id, r->is_battle ? "action" : "die",
                           (long long)g[j]->seq, (long long)g[j - 1]->seq);
            return -1;
        }
    }
    return 0;
}

/* The dice of one entry from the record's stream; false after reporting
 * the first that differs. */
static bool derive_entry(vf_rng *rng, const record *r, const entry *e,
                         vf_checker *c)
{
    char die[64];
    size_t k;

    for (k = 0; k < n_dice(e); k++) {
        int computed = vf_rng_die(rng, (int)die_at(e->faces, k));
        json_int_t natural = die_at(e->naturals, k);

        if (computed == natural)
            continue;
        if (r->is_battle)
            snprintf(die, sizeof die, "action %lld die %zu", (long long)e->seq,
                     k + 1);
        else
            snprintf(die, sizeof die, "die %lld", (long long)e->seq);
        vf_problem(c,
                   "entry %lld: %s %s %s: the seed gives %d, the ledger says "
                   "%lld",
                   (long long)e->pos, record_kind(r->is_battle), r->id, die,
                   computed, (long long)natural);
        return false;
    }
    return true;
}

/* The seed against its commitment, then a record's dice from one stream,
 * entries in seq order; returns how many, or -1 after a problem. */
static long derive_group(const record *r, entry *const *g, size_t n,
                         vf_checker *c)
{
    uint8_t seed[VF_SEED_LEN];
    long count = 0;
    size_t j;
    vf_rng rng;

    vf_get_hash(r->server_seed, seed);
    if (!seed_commits(seed, vf_text_of(r->obj, "commitment"))) {
        vf_problem(c, "%s %s: the server seed does not match its commitment",
                   record_kind(r->is_battle), r->id);
        return -1;
    }
    vf_rng_init(&rng, seed, (const uint8_t *)vf_text_of(r->obj, "client_seed"),
                vf_len_of(r->obj, "client_seed"));
    for (j = 0; j < n && count >= 0; j++)
        count =
            derive_entry(&rng, r, g[j], c) ? count + (long)n_dice(g[j]) : -1;
    vf_rng_cleanup(&rng);
    return count;
}

/* One record of seeds against its entries (is_part: of a part, where a
 * record may have begun before its first entry). */
static void check_record(const record *r, entry *const *g, size_t n,
                         bool is_part, vf_checker *c, dice_stats *st)
{
    const char *kind = record_kind(r->is_battle);
    long count = 0;
    size_t j;

    if (check_group(r, g, n, is_part, c) != 0)
        return;
    for (j = 0; j < n; j++)
        count += (long)n_dice(g[j]);
    if (is_part && n > 0 && g[0]->seq > 1) {
        st->n_earlier++;
        fprintf(c->out,
                "%s %s: began before this part; %ld dice here, chained, not "
                "re-derived (its stream starts at entries the part does not "
                "hold)\n",
                kind, r->id, count);
    } else if (strcmp(r->source, "seeded") != 0) {
        st->n_entered++;
        fprintf(c->out,
                "%s %s: %ld %s dice, an honest record that cannot be "
                "re-derived\n",
                kind, r->id, count, r->source);
    } else if (r->server_seed == NULL) {
        st->n_unrevealed++;
        fprintf(c->out,
                "%s %s: seed not yet revealed (commitment %s); %ld "
                "dice to check once it is\n",
                kind, r->id, vf_text_of(r->obj, "commitment"), count);
    } else if ((count = derive_group(r, g, n, c)) >= 0) {
        st->n_verified++;
        st->n_dice += count;
        fprintf(c->out,
                "%s %s: seed matches its commitment; %ld dice "
                "re-derived\n",
                kind, r->id, count);
    }
}

/* Groups the entries by record, each in seq order, and checks each group
 * against its record of seeds. */
static void check_ledger_dice(const ledger *L, vf_checker *c, dice_stats *st)
{
    entry **sorted = calloc(L->n_entries + 1, sizeof *sorted);
    size_t i, j;

    if (sorted == NULL) {
        vf_problem(c, "out of memory");
        return;
    }
    for (i = 0; i < L->n_entries; i++)
        sorted[i] = &L->entries[i];
    qsort(sorted, L->n_entries, sizeof *sorted, entry_cmp);
    for (i = 0; i < L->n_entries; i = j) {
        const record *r = find_record(L, sorted[i]);

        for (j = i + 1;
             j < L->n_entries && sorted[j]->is_action == sorted[i]->is_action &&
             strcmp(sorted[j]->record, sorted[i]->record) == 0;
             j++)
            ;
        if (r != NULL)
            check_record(r, sorted + i, j - i, L->after > 0, c, st);
        else
            vf_problem(c, "entry %lld: %s %s is not listed in seeds",
                       (long long)sorted[i]->pos,
                       record_kind(sorted[i]->is_action), sorted[i]->record);
    }
    free(sorted);
}

vf_result vf_verify_ledger(const json_t *doc, FILE *out)
{
    ledger L = {0};
    vf_checker c = {.out = out};
    dice_stats st = {0};
    vf_result res = read_ledger(doc, &L, out);

    if (res != VF_OK)
        goto done;
    fprintf(out, "ledger of campaign %s (%s), %zu entries\n", L.campaign_id,
            LEDGER_VERSION, L.n_entries);
    check_chain(&L, &c);
    check_ledger_dice(&L, &c, &st);
    if (c.n_problems > 0) {
        res = vf_not_verified(&c);
    } else if (L.n_entries == 0) {
        fprintf(out, "RESULT: nothing to verify: the ledger has no entries\n");
        res = VF_UNVERIFIABLE;
    } else {
        fprintf(out,
                "RESULT: verified: %zu entries chained to the head; %ld "
                "dice of %d record%s re-derived from the seeds; %d not "
                "yet revealed; %d of entered dice (not checkable)\n",
                L.n_entries, st.n_dice, st.n_verified,
                st.n_verified == 1 ? "" : "s", st.n_unrevealed, st.n_entered);
    }
done:
    free(L.entries);
    free(L.records);
    return res;
}

/* ---- a share link's answer ----------------------------------------------- */

/* The entry at pos among L's, or NULL. */
static const entry *entry_at(const ledger *L, json_int_t pos)
{
    json_int_t i;

    if (pos <= L->after)
        return NULL;
    i = pos - L->after - 1;
    return i < (json_int_t)L->n_entries ? &L->entries[i] : NULL;
}

/* "1 entry", "2 entries" */
static const char *entries_word(long long n)
{
    return n == 1 ? "entry" : "entries";
}

/* Whether the report's value of key (when it gives one: a fogged name is
 * null) differs from the entry's. */
static bool differs(const json_t *roll, const json_t *e, const char *key)
{
    const json_t *v = json_object_get(roll, key);

    return v != NULL && !json_is_null(v) &&
           !json_equal(v, json_object_get(e, key));
}

/* The report's dice block (its "dice"), the ledger's entries of its
 * record are to name: the same source, commitment and client seed. */
static void check_entries_name_dice(const json_t *dice, const entry *e,
                                    vf_checker *c)
{
    const char *member = record_differs(dice, e->obj);

    if (member != NULL)
        vf_problem(c, "ledger entry %lld: its %s is not the report's (%s)",
                   (long long)e->pos, member, vf_text_of(e->obj, member));
}

/* A report's roll's seq: its own, or its place in the list (from 1), as
 * the combat check reads it. */
static json_int_t roll_seq(const json_t *roll, size_t k)
{
    const json_t *seq = json_object_get(roll, "seq");

    return json_is_integer(seq) ? json_integer_value(seq) : (json_int_t)k + 1;
}

/*
 * A shared combat in its ledger: its seal (the entry at its
 * ledger.last_pos, its last die, holds its ledger.hash; a part starts at
 * its first_pos), and its dice as the ledger holds them, one for one: seq,
 * faces, natural, and where the report gives them, side, unit, unit_id,
 * reason and modified; each entry naming the report's source, commitment
 * and client seed.  false when the input cannot be used (said on out).
 */
static bool check_combat_in_ledger(const ledger *L, const json_t *report,
                                   vf_checker *c)
{
    static const char *const labels[] = {"side", "unit", "unit_id", "reason",
                                         "modified"};
    const json_t *l = json_object_get(report, "ledger");
    const json_t *rolls = json_object_get(report, "rolls"), *r;
    const json_t *dice = json_object_get(report, "dice");
    const char *id = vf_text_of(report, "id"), *hash = NULL;
    uint8_t want[VF_SHA256_LEN];
    json_int_t first = 0, last = 0, last_seq = 0;
    const entry *e;
    size_t i, k, n_mine = 0;

    if (l != NULL && !json_is_null(l) && !json_is_object(l)) {
        vf_bad_input(c->out, "the report's ledger is not an object");
        return false;
    }
    for (i = 0; i < L->n_entries; i++)
        n_mine +=
            !L->entries[i].is_action && strcmp(L->entries[i].record, id) == 0;
    if (!json_is_object(l)) {
        /* No place in the ledger: a battle's record, whose dice are its
         * battle's actions' entries; any other combat's are missing. */
        if (json_is_string(json_object_get(report, "battle_id")) && n_mine == 0)
            fprintf(c->out,
                    "the record of battle %s: its dice are entries of the "
                    "battle's actions (its own link checks them)\n",
                    vf_text_of(report, "battle_id"));
        else
            vf_problem(c,
                       "the report names no place in the ledger for its %zu "
                       "dice (no ledger member)",
                       json_array_size(rolls));
        return true;
    }
    if (vf_get_int(l, "first_pos", 1, INT64_MAX, &first) ||
        vf_get_int(l, "last_pos", first, INT64_MAX, &last) ||
        vf_get_str(l, "hash", true, &hash) || vf_get_hash(hash, want)) {
        vf_bad_input(c->out, "the report's ledger needs first_pos, last_pos "
                             "(from first_pos) and hash (64 hex digits)");
        return false;
    }
    if (L->length != last)
        vf_problem(c,
                   "the link's ledger ends at entry %lld, the combat's last "
                   "die is entry %lld",
                   (long long)L->length, (long long)last);
    if (L->after > 0 && L->after + 1 != first)
        vf_problem(c, "the part starts at entry %lld, the combat at %lld",
                   (long long)L->after + 1, (long long)first);
    json_array_foreach(rolls, k, r)
    {
        json_int_t seq = roll_seq(r, k);
        if (seq > last_seq)
            last_seq = seq;
    }
    if ((e = entry_at(L, last)) == NULL)
        vf_problem(c, "the combat's seal, entry %lld, is not among the entries",
                   (long long)last);
    else if (e->is_action || strcmp(e->record, id) != 0 || e->seq != last_seq)
        vf_problem(c,
                   "the combat's seal, entry %lld, is not its last die (it is "
                   "%s's %s %lld)",
                   (long long)last, e->record, e->is_action ? "action" : "die",
                   (long long)e->seq);
    else if (memcmp(e->hash, want, sizeof want) != 0 ||
             memcmp(e->computed, want, sizeof want) != 0)
        vf_problem(c,
                   "the combat's seal does not hold: entry %lld is not the "
                   "hash the report gives",
                   (long long)last);
    else
        fprintf(c->out,
                "seal: entry %lld, its last die, holds the report's "
                "ledger hash\n",
                (long long)last);
    if (n_mine != json_array_size(rolls)) {
        vf_problem(c,
                   "the ledger holds %zu dice of this combat, the report %zu",
                   n_mine, json_array_size(rolls));
        return true;
    }
    json_array_foreach(rolls, k, r)
    {
        json_int_t seq = roll_seq(r, k);
        size_t m;
        for (i = 0; i < L->n_entries; i++) {
            e = &L->entries[i];
            if (!e->is_action && e->seq == seq && strcmp(e->record, id) == 0)
                break;
        }
        if (i == L->n_entries) {
            vf_problem(c, "die %lld of the report is not in the ledger",
                       (long long)seq);
            return true;
        }
        if (!json_equal(json_object_get(r, "natural"), e->naturals) ||
            !json_equal(json_object_get(r, "faces"), e->faces)) {
            vf_problem(c,
                       "die %lld: the report and ledger entry %lld differ "
                       "(its faces or natural)",
                       (long long)seq, (long long)e->pos);
            return true;
        }
        for (m = 0; m < sizeof labels / sizeof *labels; m++)
            if (differs(r, e->obj, labels[m])) {
                vf_problem(c,
                           "die %lld: the report and ledger entry %lld differ "
                           "(its %s)",
                           (long long)seq, (long long)e->pos, labels[m]);
                return true;
            }
        if (json_is_object(dice))
            check_entries_name_dice(dice, e, c);
    }
    fprintf(c->out, "the ledger holds the report's %zu dice, one for one\n",
            n_mine);
    return true;
}

/*
 * A shared battle's report against the ledger: its seed against its
 * commitment, and both the ledger's record of it in seeds; its actions
 * (n_actions) all among the entries, each naming its dice.
 */
static void check_battle_in_ledger(const ledger *L, const json_t *report,
                                   vf_checker *c)
{
    const json_t *dice = json_object_get(report, "dice");
    const char *id = vf_text_of(report, "id");
    const char *seed = vf_text_of(dice, "server_seed");
    const char *commitment = vf_text_of(dice, "commitment");
    size_t i, n_mine = 0;

    if (json_is_object(dice) && seed[0] != '\0') {
        uint8_t bytes[VF_SEED_LEN], want[VF_SHA256_LEN];
        if (vf_get_hash(seed, bytes) ||
            (commitment[0] != '\0' && vf_get_hash(commitment, want)))
            vf_problem(c, "the battle's seed or commitment is not 64 hex "
                          "digits");
        else if (!seed_commits(bytes, commitment))
            vf_problem(c, "the battle's server seed does not match its "
                          "commitment");
        else
            fprintf(c->out, "the battle's seed matches its commitment\n");
    }
    for (i = 0; i < L->n_records; i++) {
        const record *r = &L->records[i];
        if (!r->is_battle || strcmp(r->id, id) != 0 || !json_is_object(dice))
            continue;
        if (strcmp(vf_text_of(r->obj, "commitment"), commitment) ||
            strcmp(vf_text_of(r->obj, "server_seed"), seed))
            vf_problem(c, "the battle's seed or commitment is not the "
                          "ledger's record of it in seeds");
    }
    for (i = 0; i < L->n_entries; i++) {
        const entry *e = &L->entries[i];
        if (!e->is_action || strcmp(e->record, id) != 0)
            continue;
        n_mine++;
        if (json_is_object(dice))
            check_entries_name_dice(dice, e, c);
    }
    if (json_is_integer(json_object_get(report, "n_actions")) &&
        (json_int_t)n_mine !=
            json_integer_value(json_object_get(report, "n_actions")))
        vf_problem(c,
                   "the ledger holds %zu of the battle's actions, the "
                   "report %lld",
                   n_mine,
                   (long long)json_integer_value(
                       json_object_get(report, "n_actions")));
    else
        fprintf(c->out, "the ledger holds the battle's %zu action%s\n", n_mine,
                n_mine == 1 ? "" : "s");
}

vf_result vf_verify_shared(const json_t *doc, FILE *out)
{
    const json_t *report = json_object_get(doc, "report");
    const json_t *ldoc = json_object_get(doc, "ledger");
    const char *kind = NULL, *head = NULL;
    ledger L = {0};
    vf_checker c = {.out = out};
    dice_stats st = {0};
    vf_result dice = VF_UNVERIFIABLE, res;
    bool is_combat, is_battle;

    if (vf_get_str(doc, "kind", true, &kind) || kind == NULL ||
        (strcmp(kind, "combat") && strcmp(kind, "battle") &&
         strcmp(kind, "campaign")))
        return vf_bad_input(out, "a shared link's kind is combat, battle or "
                                 "campaign");
    is_combat = strcmp(kind, "combat") == 0;
    is_battle = strcmp(kind, "battle") == 0;
    if (vf_get_str(json_object_get(doc, "campaign"), "id", true,
                   &L.campaign_id) ||
        L.campaign_id == NULL ||
        vf_get_int(ldoc, "length", 0, INT64_MAX, &L.length) ||
        vf_get_str(ldoc, "head", true, &head) || vf_get_hash(head, L.head) ||
        (json_object_get(ldoc, "after") != NULL &&
         vf_get_int(ldoc, "after", 0, L.length, &L.after)))
        return vf_bad_input(out,
                            "a shared link needs campaign.id, and its "
                            "ledger's length, head (64 hex digits) and, for "
                            "a part, after (0 to length)");
    fprintf(out, "shared %s of campaign %s\n", kind, L.campaign_id);
    if (is_combat) {
        fprintf(out, "the report's dice:\n");
        if ((dice = vf_combat_check(report, out, "report")) == VF_BAD_INPUT)
            return VF_BAD_INPUT;
        if (dice == VF_MISMATCH)
            vf_problem(&c, "the report's dice do not follow from its seed "
                           "(above)");
    }
    if ((res = read_items(ldoc, &L, out)) != VF_OK)
        goto done;
    fprintf(out, "the ledger: %s\n",
            L.after > 0 ? "a part, from the shared record's first entry"
                        : "from entry 1");
    if (L.after > 0 && !is_combat && !is_battle)
        vf_problem(&c,
                   "a campaign's link holds its chain from entry 1, not "
                   "a part after entry %lld",
                   (long long)L.after);
    if (L.after > 0 && (is_combat || is_battle)) {
        const entry *first = L.n_entries ? &L.entries[0] : NULL;
        if (first == NULL || first->is_action != is_battle || first->seq != 1 ||
            strcmp(first->record, vf_text_of(report, "id")) != 0)
            vf_problem(&c,
                       "the part does not start at the %s's first %s: "
                       "entry %lld is not its",
                       kind, is_battle ? "action" : "die",
                       (long long)L.after + 1);
    }
    if ((json_int_t)L.n_entries != L.length - L.after) {
        /* after <= length: no sum below overflows once they agree. */
        vf_problem(&c,
                   "length says %lld, after %lld, but the ledger holds %zu "
                   "%s",
                   (long long)L.length, (long long)L.after, L.n_entries,
                   entries_word((long long)L.n_entries));
        res = vf_not_verified(&c);
        goto done;
    }
    check_chain(&L, &c);
    check_ledger_dice(&L, &c, &st);
    if (is_combat && !check_combat_in_ledger(&L, report, &c)) {
        res = VF_BAD_INPUT;
        goto done;
    }
    if (is_battle)
        check_battle_in_ledger(&L, report, &c);
    if (!is_combat && !is_battle && L.after == 0) {
        const json_t *cl =
            json_object_get(json_object_get(report, "campaign"), "ledger");
        if (json_is_object(cl) &&
            (!json_equal(json_object_get(cl, "length"),
                         json_object_get(ldoc, "length")) ||
             !json_equal(json_object_get(cl, "head"),
                         json_object_get(ldoc, "head"))))
            vf_problem(&c, "the campaign report's ledger length and head are "
                           "not the link's");
    }
    if (c.n_problems > 0) {
        res = vf_not_verified(&c);
    } else if (L.n_entries == 0 || (is_combat && dice != VF_OK)) {
        /* Nothing re-derived of the shared combat (entered dice, a seed
         * not yet revealed), or no entry at all: as umpire-verify says of
         * such a report alone (exit 3), the chain's check said above. */
        fprintf(out, "RESULT: nothing to verify: %s%s\n",
                is_combat && dice != VF_OK
                    ? "the report's dice cannot be re-derived (above)"
                    : "the link holds no ledger entries",
                L.n_entries > 0 ? "; its ledger's entries chain as they should"
                                : "");
        res = VF_UNVERIFIABLE;
    } else {
        char hex[VF_HEX_LEN];
        vf_hex(L.start, sizeof L.start, hex);
        fprintf(out,
                "RESULT: verified: %s%lld %s chained (%lld to %lld); "
                "%ld dice of %d record%s re-derived from the seeds; %d not "
                "yet revealed; %d of entered dice (not checkable)",
                dice == VF_OK ? "the report's dice follow from its seed; " : "",
                (long long)L.n_entries, entries_word((long long)L.n_entries),
                (long long)L.after + 1, (long long)L.length, st.n_dice,
                st.n_verified, st.n_verified == 1 ? "" : "s", st.n_unrevealed,
                st.n_entered);
        if (L.after > 0)
            fprintf(out, "; %d begun before the part", st.n_earlier);
        fputc('\n', out);
        if (L.after > 0)
            fprintf(out,
                    "NOTE: a part: entries 1 to %lld were not walked; entry "
                    "%lld follows the hash %s, which an export you keep (or "
                    "the link read whole) can confirm\n",
                    (long long)L.after, (long long)L.after + 1, hex);
        res = VF_OK;
    }
done:
    free(L.entries);
    free(L.records);
    return res;
}
