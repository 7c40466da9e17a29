/*
 * units_doc.c: a unit as a document, and the history event that records a
 * change of it; see units_doc.h.
 *
 * A history event stores the unit's state as text, byte for byte as
 * json_dumps wrote it with JSON_COMPACT | JSON_SORT_KEYS (jsonb_text), on
 * rows old and new alike.  That text is written here (state_text) the
 * way jansson's dump writes it (keys sorted by their bytes, jansson's
 * escapes, integers as "%lld"), without building the whole state as a
 * jansson tree and without the dump's costs (a loop check per container,
 * a printf per integer): on the writer's hot path, twice per unit of a
 * combat.  Only the systems' sections are jansson values (the table of
 * systems makes them); reals, which no section holds, are left to
 * json_dumps itself.
 *
 * And written once per state: a text is a function of the unit's row as
 * read (db_unit) and nothing else, so the last text written for each unit
 * is kept with the row it was written for (state_text_memo), and given again
 * for a row equal to it byte for byte.  A campaign combat writes each of
 * its units' state before the combat, which is the state after its last
 * change, written then.
 */
#include "units_doc.h"

#include "jsonb.h"
#include "systems.h"
#include "text.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The systems' sections of a unit into j: "systems", and one object each
 * for the systems it carries, as the table of systems writes them. */
static void add_systems(json_t *j, const db_unit *u)
{
    json_t *systems = json_array(), *section;
    size_t i;

    for (i = 0; i < systems_n; i++)
        if ((section = systems_table[i]->unit_json(u)) != NULL) {
            json_array_append_new(systems,
                                  json_string(systems_name(systems_table[i])));
            json_object_set_new(j, systems_name(systems_table[i]), section);
        }
    json_object_set_new(j, "systems", systems);
}

json_t *units_doc_json(const db_unit *u)
{
    json_t *j = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:b, s:o, s:o}", "id",
                          u->id, "name", u->name, "side", "id", u->side_id,
                          "name", u->side_name, "created_at", u->created_at,
                          "eliminated", u->is_eliminated, "eliminated_reason",
                          jsonb_str_or_null(u->eliminated_reason),
                          "eliminated_by", jsonb_str_or_null(u->eliminated_by));

    add_systems(j, u);
    return j;
}

/* ---- a state as text, as jsonb_text writes it ----
 *
 * Written into a text_buf (text.h), whose failures (memory, a value
 * jansson would refuse to dump) are sticky. */

/* Far deeper than any state: jansson refuses cycles, this stops them. */
#define DOC_MAX_DEPTH 256
/* Members of an object sorted on the stack; larger objects use the heap. */
#define DOC_MEMBERS_ON_STACK 16

/* The escape of c, a control character, '"' or '\\', as jansson's
 * dump_string writes it: \" \\ \b \f \n \r \t, others as \u00XX
 * (upper-case hex). */
static void put_escape(text_buf *b, unsigned char c)
{
    static const char hex[] = "0123456789ABCDEF";
    char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
    size_t len = 2;

    switch (c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    default: len = 6;
    }
    text_put(b, esc, len);
}

/* A string of n bytes, quoted and escaped as jansson's dump_string does
 * without flags (put_escape), everything else as it is.  Text that is not
 * UTF-8, which jansson refuses to hold or dump, fails the document. */
static void put_string(text_buf *b, const char *s, size_t n)
{
    size_t i, run = 0;
    unsigned char high = 0; /* the bits of every byte: 0x80 if not ASCII */

    text_put(b, "\"", 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            high |= c;
            continue;
        }
        text_put(b, s + run, i - run);
        put_escape(b, c);
        run = i + 1;
    }
    text_put(b, s + run, n - run);
    text_put(b, "\"", 1);
    if (high & 0x80) {
        /* jansson's own check of UTF-8: rare, names are mostly ASCII. */
        json_t *check = json_stringn(s, n);
        if (check == NULL)
            b->is_failed = true;
        json_decref(check);
    }
}

/* A member of an object being written: its key and its value, a jansson
 * value or one of the state's own. */
typedef enum doc_kind {
    DOC_JSON,           /* json */
    DOC_STRING,         /* s */
    DOC_STRING_OR_NULL, /* s, null when "" */
    DOC_BOOL,           /* is_true */
    DOC_SYSTEMS         /* the names of the systems with a section */
} doc_kind;

typedef struct doc_member {
    const char *key;
    size_t len;
    doc_kind kind;
    const json_t *json;
    const char *s;
    bool is_true;
} doc_member;

static void put_json(text_buf *b, const json_t *v, int depth);

/* jansson's order of keys: their bytes, then the shorter first. */
static int key_cmp(const doc_member *a, const doc_member *b)
{
    size_t i, n = a->len < b->len ? a->len : b->len;

    for (i = 0; i < n; i++)
        if (a->key[i] != b->key[i])
            return (unsigned char)a->key[i] - (unsigned char)b->key[i];
    return (a->len > b->len) - (a->len < b->len);
}

/* The n members of m as an object, keys sorted (insertion sort: a
 * state's objects have a handful of members); m is reordered.  sections:
 * a unit's, one per system of the table (NULL for a system it does not
 * carry), for DOC_SYSTEMS. */
static void put_members(text_buf *b, doc_member *m, size_t n,
                        json_t *const *sections, int depth)
{
    size_t i, k;
    bool is_first = true;

    for (i = 1; i < n; i++) {
        doc_member one = m[i];
        for (k = i; k > 0 && key_cmp(&m[k - 1], &one) > 0; k--)
            m[k] = m[k - 1];
        m[k] = one;
    }
    text_put(b, "{", 1);
    for (i = 0; i < n; i++) {
        if (i > 0)
            text_put(b, ",", 1);
        put_string(b, m[i].key, m[i].len);
        text_put(b, ":", 1);
        switch (m[i].kind) {
        case DOC_JSON: put_json(b, m[i].json, depth + 1); break;
        case DOC_STRING_OR_NULL:
            if (m[i].s[0] == '\0') {
                text_put(b, "null", 4);
                break;
            }
            /* fall through */
        case DOC_STRING: put_string(b, m[i].s, strlen(m[i].s)); break;
        case DOC_BOOL:
            text_put(b, m[i].is_true ? "true" : "false", m[i].is_true ? 4 : 5);
            break;
        case DOC_SYSTEMS:
            text_put(b, "[", 1);
            for (k = 0, is_first = true; k < systems_n; k++)
                if (sections[k] != NULL) {
                    const char *name = systems_name(systems_table[k]);
                    if (!is_first)
                        text_put(b, ",", 1);
                    put_string(b, name, strlen(name));
                    is_first = false;
                }
            text_put(b, "]", 1);
            break;
        }
    }
    text_put(b, "}", 1);
}

/* A jansson object's members, keys sorted. */
static void put_object(text_buf *b, const json_t *obj, int depth)
{
    doc_member on_stack[DOC_MEMBERS_ON_STACK], *m = on_stack;
    size_t n = json_object_size(obj), i = 0;
    void *it;

    if (n > DOC_MEMBERS_ON_STACK && (m = malloc(n * sizeof *m)) == NULL) {
        b->is_failed = true;
        return;
    }
    for (it = json_object_iter((json_t *)obj); it && i < n;
         it = json_object_iter_next((json_t *)obj, it), i++) {
        const char *key = json_object_iter_key(it);
        m[i] = (doc_member){.key = key,
                            .len = strlen(key),
                            .kind = DOC_JSON,
                            .json = json_object_iter_value(it)};
    }
    put_members(b, m, i, NULL, depth);
    if (m != on_stack)
        free(m);
}

/* v as json_dumps writes it with JSON_COMPACT | JSON_SORT_KEYS. */
static void put_json(text_buf *b, const json_t *v, int depth)
{
    size_t i;

    if (v == NULL || depth > DOC_MAX_DEPTH) {
        b->is_failed = true;
        return;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT: put_object(b, v, depth); break;
    case JSON_ARRAY:
        text_put(b, "[", 1);
        for (i = 0; i < json_array_size(v); i++) {
            if (i > 0)
                text_put(b, ",", 1);
            put_json(b, json_array_get(v, i), depth + 1);
        }
        text_put(b, "]", 1);
        break;
    case JSON_STRING:
        put_string(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER: text_put_int(b, (long long)json_integer_value(v)); break;
    case JSON_TRUE: text_put(b, "true", 4); break;
    case JSON_FALSE: text_put(b, "false", 5); break;
    case JSON_NULL: text_put(b, "null", 4); break;
    default: {
        /* A real: jansson's own formatting. */
        char *t =
            json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        if (t == NULL)
            b->is_failed = true;
        else
            text_put(b, t, strlen(t));
        free(t);
    }
    }
}

/* A member of the state (its key a string constant). */
#define DOC_MEMBER(k, ...)                                                     \
    ((doc_member){.key = (k), .len = sizeof(k) - 1, __VA_ARGS__})

/*
 * The unit's state as its history keeps it, as text (new, free()), or
 * NULL when out of memory or a string is not UTF-8: its name, side,
 * elimination, the section of each system it carries under the system's
 * name, and the list of those systems ("systems").
 */
static char *state_text(const db_unit *u)
{
    json_t *sections_on_stack[DOC_MEMBERS_ON_STACK], **sections;
    doc_member m_on_stack[DOC_MEMBERS_ON_STACK], *m = m_on_stack;
    text_buf b = {0};
    size_t i, n = 0, n_made = 0;

    sections = sections_on_stack;
    if (systems_n + 5 > DOC_MEMBERS_ON_STACK &&
        ((sections = malloc(systems_n * sizeof *sections)) == NULL ||
         (m = malloc((systems_n + 5) * sizeof *m)) == NULL))
        b.is_failed = true;
    for (; n_made < systems_n && !b.is_failed; n_made++) {
        const char *name = systems_name(systems_table[n_made]);
        sections[n_made] = systems_table[n_made]->unit_json(u);
        if (sections[n_made] != NULL)
            m[n++] = (doc_member){.key = name,
                                  .len = strlen(name),
                                  .kind = DOC_JSON,
                                  .json = sections[n_made]};
    }
    if (!b.is_failed) {
        m[n++] = DOC_MEMBER("name", .kind = DOC_STRING, .s = u->name);
        m[n++] = DOC_MEMBER("side_id", .kind = DOC_STRING, .s = u->side_id);
        m[n++] = DOC_MEMBER("eliminated", .kind = DOC_BOOL,
                            .is_true = u->is_eliminated);
        m[n++] = DOC_MEMBER("eliminated_reason", .kind = DOC_STRING_OR_NULL,
                            .s = u->eliminated_reason);
        m[n++] = DOC_MEMBER("systems", .kind = DOC_SYSTEMS);
        put_members(&b, m, n, sections, 0);
    }
    for (i = 0; i < n_made; i++)
        json_decref(sections[i]);
    if (sections != sections_on_stack)
        free(sections);
    if (m != m_on_stack)
        free(m);
    if (b.is_failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ---- states written before ----
 *
 * DOC_MEMO_SLOTS slots, each the last unit written (slot by its id) and
 * its text; DOC_MEMO_LOCKS locks, each over every DOC_MEMO_LOCKS-th slot.
 * A unit whose row differs from the slot's in any byte (padding and the
 * bytes after a string's end included: units are read into zeroed rows)
 * is written again, so what is given is always the text of that row.
 * The slots live as long as the process (about a megabyte). */
#define DOC_MEMO_SLOTS 1024
#define DOC_MEMO_LOCKS 16

typedef struct memo_slot {
    db_unit unit;
    char *text; /* NULL: empty */
} memo_slot;

static memo_slot memo[DOC_MEMO_SLOTS];
static pthread_mutex_t memo_locks[DOC_MEMO_LOCKS];
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;
static atomic_llong memo_hits, memo_misses;

static void memo_init(void)
{
    int i;

    for (i = 0; i < DOC_MEMO_LOCKS; i++)
        pthread_mutex_init(&memo_locks[i], NULL);
}

/* u's slot (FNV-1a of its id). */
static size_t memo_slot_of(const db_unit *u)
{
    unsigned long long h = 14695981039346656037ULL;
    const unsigned char *p;

    for (p = (const unsigned char *)u->id;
         p < (const unsigned char *)u->id + sizeof u->id && *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)(h % DOC_MEMO_SLOTS);
}

/* state_text(u), from the slot where it holds u's row. */
static char *state_text_memo(const db_unit *u)
{
    size_t i = memo_slot_of(u);
    pthread_mutex_t *lock = &memo_locks[i % DOC_MEMO_LOCKS];
    char *text = NULL, *kept, *prev;

    (void)pthread_once(&memo_once, memo_init);
    pthread_mutex_lock(lock);
    if (memo[i].text != NULL && memcmp(&memo[i].unit, u, sizeof *u) == 0)
        text = strdup(memo[i].text);
    pthread_mutex_unlock(lock);
    if (text != NULL) {
        atomic_fetch_add(&memo_hits, 1);
        return text;
    }
    atomic_fetch_add(&memo_misses, 1);
    if ((text = state_text(u)) == NULL)
        return NULL;
    if ((kept = strdup(text)) == NULL)
        return text; /* not kept */
    pthread_mutex_lock(lock);
    prev = memo[i].text;
    memo[i].unit = *u;
    memo[i].text = kept;
    pthread_mutex_unlock(lock);
    free(prev);
    return text;
}

void units_doc_memo_stats(long long *hits, long long *misses)
{
    *hits = atomic_load(&memo_hits);
    *misses = atomic_load(&memo_misses);
}

json_t *units_doc_state(const db_unit *u)
{
    char *text = state_text_memo(u);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;

    free(text);
    return j;
}

err_code units_doc_event_make(const db_unit *before, const db_unit *after,
                              const char *kind, const char *combat_id,
                              const char *token_id, const char *note,
                              const char *result, const char *at, db_event *ev,
                              err_info *e)
{
    memset(ev, 0, sizeof *ev);
    text_copy(ev->unit_id, DB_ID_MAX, after->id);
    ev->unit_row = after->row;
    text_copy(ev->campaign_id, DB_ID_MAX, after->campaign_id);
    if (at != NULL && at[0] != '\0')
        text_copy(ev->at, sizeof ev->at, at);
    else
        db_now(ev->at);
    text_copy(ev->kind, sizeof ev->kind, kind);
    text_copy(ev->combat_id, DB_ID_MAX, combat_id ? combat_id : "");
    text_copy(ev->actor_token_id, DB_ID_MAX, token_id ? token_id : "");
    ev->note = (char *)note;
    ev->before = before ? state_text_memo(before) : NULL;
    /* A unit the change left as it was has the same state after: its
     * text once more (a difference in padding alone only costs a
     * second writing). */
    if (ev->before && memcmp(before, after, sizeof *after) == 0)
        ev->after = strdup(ev->before);
    else
        ev->after = state_text_memo(after);
    ev->result = (char *)result;
    if ((before && !ev->before) || !ev->after) {
        free(ev->before);
        free(ev->after);
        ev->before = ev->after = NULL;
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    return ERR_OK;
}

err_code units_doc_event(db_conn *c, const db_unit *before,
                         const db_unit *after, const char *kind,
                         const char *combat_id, const char *token_id,
                         const char *note, const char *result, const char *at,
                         err_info *e)
{
    db_event ev;
    err_code rc = units_doc_event_make(before, after, kind, combat_id, token_id,
                                       note, result, at, &ev, e);

    if (rc == ERR_OK)
        rc = db_event_insert(c, &ev, e);
    free(ev.before);
    free(ev.after);
    return rc;
}
