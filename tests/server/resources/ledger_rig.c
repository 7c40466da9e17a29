#define _GNU_SOURCE /* asprintf */
/*
 * ledger_rig.c: the rig of the ledger and idempotency suites over HTTP;
 * see ledger_rig.h.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <check.h>
#include <sodium.h>

#include "ledger_rig.h"
#include "rig.h"
#include "rng.h"

/* Texts kept until teardown. */
static char **g_texts;
static size_t g_n_texts, g_cap_texts;
static pthread_mutex_t g_texts_lock = PTHREAD_MUTEX_INITIALIZER;

static void *keep_text(void *p)
{
    pthread_mutex_lock(&g_texts_lock);
    if (g_n_texts == g_cap_texts) {
        g_cap_texts = g_cap_texts ? 2 * g_cap_texts : 64;
        g_texts = realloc(g_texts, g_cap_texts * sizeof *g_texts);
    }
    if (g_texts)
        g_texts[g_n_texts++] = p;
    pthread_mutex_unlock(&g_texts_lock);
    return p;
}

void lg_setup(void)
{
    scs_rig_setup();
}

void lg_teardown(void)
{
    size_t i;

    for (i = 0; i < g_n_texts; i++)
        free(g_texts[i]);
    free(g_texts);
    g_texts = NULL;
    g_n_texts = g_cap_texts = 0;
    scs_rig_teardown();
}

/* ---- the client ---- */

void lg_header(const lg_resp *r, const char *name, char *out, size_t n)
{
    const char *p = r->head;
    size_t len = strlen(name);

    out[0] = '\0';
    while (p && (p = strchr(p, '\n')) != NULL) {
        p++;
        if (strncasecmp(p, name, len) == 0 && p[len] == ':') {
            const char *v = p + len + 1, *end;
            while (*v == ' ')
                v++;
            end = strpbrk(v, "\r\n");
            snprintf(out, n, "%.*s", (int)(end ? end - v : (long)strlen(v)), v);
            return;
        }
    }
}

/* Sends all of raw to fd and reads until the server closes. */
static char *exchange(int fd, const char *raw, size_t len, size_t *n_out)
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    ssize_t got;

    while (len > 0) {
        ssize_t w = send(fd, raw, len, MSG_NOSIGNAL);
        if (w <= 0)
            break; /* the server may answer before reading everything */
        raw += w;
        len -= (size_t)w;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            char *grown;
            cap = cap ? cap * 2 : 8192;
            if ((grown = realloc(buf, cap)) == NULL) {
                free(buf);
                return NULL;
            }
            buf = grown;
        }
        got = recv(fd, buf + n, cap - n - 1, 0);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    if (buf)
        buf[n] = '\0';
    *n_out = n;
    return buf;
}

int lg_send(const char *method, const char *path, const char *token,
            const char *key, const char *headers, const char *body,
            lg_resp *out)
{
    struct sockaddr_in a;
    size_t blen = body ? strlen(body) : 0, n = 0;
    char *req = NULL, *buf, *sep, replayed[16];
    int fd, len;

    memset(out, 0, sizeof *out);
    len = asprintf(&req,
                   "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                   "%s%s%s%s%s%s%s%sContent-Length: %zu\r\n\r\n%s",
                   method, path, token ? "Authorization: Bearer " : "",
                   token ? token : "", token ? "\r\n" : "",
                   key ? "Idempotency-Key: " : "", key ? key : "",
                   key ? "\r\n" : "", headers ? headers : "",
                   body ? "Content-Type: application/json\r\n" : "", blen,
                   body ? body : "");
    if (len < 0)
        return -1;
    fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)rig_ts->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        free(req);
        return -1;
    }
    buf = exchange(fd, req, (size_t)len, &n);
    close(fd);
    free(req);
    if (buf == NULL || n == 0 ||
        sscanf(buf, "HTTP/1.%*d %d", &out->status) != 1) {
        free(buf);
        return -1;
    }
    sep = strstr(buf, "\r\n\r\n");
    out->body = strdup(sep ? sep + 4 : "");
    if (sep)
        *sep = '\0';
    out->head = buf;
    lg_header(out, "Content-Type", out->content_type, sizeof out->content_type);
    lg_header(out, "Location", out->location, sizeof out->location);
    lg_header(out, "Idempotent-Replayed", replayed, sizeof replayed);
    out->is_replayed = strcmp(replayed, "true") == 0;
    out->json = out->body && out->body[0]
                    ? json_loads(out->body, JSON_DECODE_ANY, NULL)
                    : NULL;
    if (json_is_object(out->json) &&
        json_string_value(json_object_get(out->json, "code")))
        snprintf(out->code, sizeof out->code, "%s",
                 json_string_value(json_object_get(out->json, "code")));
    return 0;
}

void lg_resp_cleanup(lg_resp *r)
{
    if (r == NULL)
        return;
    free(r->head);
    free(r->body);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

lg_resp *lg_do(int status, const char *method, const char *token,
               const char *key, const char *headers, const char *body,
               const char *path_fmt, ...)
{
    lg_resp *r = keep_text(calloc(1, sizeof *r));
    char path[512];
    va_list ap;

    ck_assert_ptr_nonnull(r);
    va_start(ap, path_fmt);
    vsnprintf(path, sizeof path, path_fmt, ap);
    va_end(ap);
    ck_assert_msg(lg_send(method, path, token, key, headers, body, r) == 0,
                  "%s: %s %s: no answer", rig_ctx, method, path);
    keep_text(r->head);
    keep_text(r->body);
    scs_rig_keep(r->json);
    ck_assert_msg(r->status == status, "%s: %s %s: expected %d, got %d: %.600s",
                  rig_ctx, method, path, status, r->status, r->body);
    return r;
}

/* ---- bursts ---- */

typedef struct burst_arg {
    pthread_barrier_t *start;
    const char *method, *path, *token, *key, *body;
    lg_shot *shot;
} burst_arg;

static void *fire(void *p)
{
    burst_arg *a = p;
    lg_resp r;

    pthread_barrier_wait(a->start);
    a->shot->status = -1;
    if (lg_send(a->method, a->path, a->token, a->key, NULL, a->body, &r) != 0)
        return NULL;
    a->shot->status = r.status;
    a->shot->body = keep_text(r.body);
    r.body = NULL;
    snprintf(a->shot->code, sizeof a->shot->code, "%s", r.code);
    snprintf(a->shot->location, sizeof a->shot->location, "%s", r.location);
    a->shot->is_replayed = r.is_replayed;
    lg_resp_cleanup(&r);
    return NULL;
}

void lg_burst(int n, const char *method, const char *path, const char *token,
              const char *key, const char *body, lg_shot *shots)
{
    pthread_barrier_t start;
    pthread_t th[16];
    burst_arg args[16];
    int i;

    ck_assert_int_le(n, 16);
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (i = 0; i < n; i++) {
        memset(&shots[i], 0, sizeof shots[i]);
        args[i] =
            (burst_arg){&start, method, path, token, key, body, &shots[i]};
        ck_assert_int_eq(pthread_create(&th[i], NULL, fire, &args[i]), 0);
    }
    for (i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
}

/* ---- campaigns ---- */

void lg_next(const test_campaign *c, char out[65])
{
    json_t *cmp =
        scs_call(200, "GET", c->umpire, NULL, "/v1/campaigns/%s", c->id);
    const char *k = scs_str(cmp, "next_commitment");

    ck_assert_msg(k && strlen(k) == 64 && strspn(k, "0123456789abcdef") == 64,
                  "%s: next_commitment is %s", rig_ctx, k ? k : "(none)");
    memcpy(out, k, 65);
}

void lg_campaign(test_campaign *c)
{
    static const char *const sides[] = {"blue", "red", NULL};
    static const char *const units[][2] = {
        {"B1", "blue"}, {"B2", "blue"}, {"R1", "red"}, {"R2", "red"}};
    char body[256];
    size_t i;

    scs_rig_campaign(c, NULL, sides);
    for (i = 0; i < sizeof units / sizeof units[0]; i++) {
        snprintf(body, sizeof body, "{\"name\":\"%s\",\"side\":\"%s\"}",
                 units[i][0], units[i][1]);
        scs_call(201, "POST", c->umpire, body, "/v1/campaigns/%s/units", c->id);
    }
    scs_call(201, "POST", c->umpire,
             "{\"name\":\"cb1\",\"side\":\"blue\",\"civ\":{\"class\":"
             "\"infantry\",\"era\":1,\"bonus\":-20}}",
             "/v1/campaigns/%s/units", c->id);
    scs_call(201, "POST", c->umpire,
             "{\"name\":\"cr1\",\"side\":\"red\",\"civ\":{\"class\":"
             "\"infantry\",\"era\":1,\"bonus\":-20}}",
             "/v1/campaigns/%s/units", c->id);
}

json_t *lg_cpost(const test_campaign *c, int status, const char *route,
                 const char *body)
{
    return scs_call(status, "POST", c->umpire, body, "/v1/campaigns/%s/%s",
                    c->id, route);
}

void lg_check_seeded(const json_t *rep, const char *commitment)
{
    const json_t *dice = scs_get(rep, "dice"), *r;
    const char *cs = scs_str(dice, "client_seed");
    uint8_t seed[RNG_SEED_LEN], h[crypto_hash_sha256_BYTES];
    char hex[2 * crypto_hash_sha256_BYTES + 1];
    rng_v1 rng;
    size_t i;

    RIG_EQ_STR(scs_str(dice, "source"), "seeded");
    RIG_EQ_STR(scs_str(dice, "commitment"), commitment);
    ck_assert_msg(
        scs_str(dice, "server_seed") &&
            rng_unhex(scs_str(dice, "server_seed"), seed, sizeof seed) == 0,
        "%s: no server seed revealed", rig_ctx);
    crypto_hash_sha256(h, seed, sizeof seed);
    sodium_bin2hex(hex, sizeof hex, h, sizeof h);
    RIG_EQ_STR(hex, commitment);
    RIG_IS_TRUE(json_array_size(scs_get(rep, "rolls")) > 0);
    rng_v1_init(&rng, seed, (const uint8_t *)cs, cs ? strlen(cs) : 0);
    json_array_foreach(scs_get(rep, "rolls"), i, r)
    {
        RIG_EQ_INT(rig_inum(r, "seq"), (long long)i + 1);
        RIG_EQ_INT(rig_inum(r, "natural"),
                   rng_v1_die(&rng, (int)rig_inum(r, "faces")));
    }
    rng_v1_cleanup(&rng);
}

/* ---- the ledger ---- */

json_t *lg_ledger(const test_campaign *c)
{
    return scs_call(200, "GET", c->umpire, NULL, "/v1/campaigns/%s/ledger",
                    c->id);
}

json_t *lg_verify(const test_campaign *c, const char *query_fmt, ...)
{
    char q[300];
    va_list ap;

    va_start(ap, query_fmt);
    vsnprintf(q, sizeof q, query_fmt, ap);
    va_end(ap);
    return scs_call(200, "GET", c->umpire, NULL,
                    "/v1/campaigns/%s/ledger/verify%s", c->id, q);
}

void lg_check_verified(const json_t *v, long long length, long long seeded,
                       long long rederived, long long entered,
                       long long pending)
{
    const json_t *d = scs_get(v, "dice"), *l = scs_get(v, "ledger");
    char *t = scs_text(v);

    ck_assert_msg(json_is_true(scs_get(v, "verified")) &&
                      json_is_null(scs_get(v, "first_broken")) &&
                      json_array_size(scs_get(v, "problems")) == 0,
                  "%s: not verified: %.900s", rig_ctx, t);
    free(t);
    RIG_EQ_INT(rig_inum(l, "length"), length);
    RIG_EQ_INT(rig_inum(l, "walked"), length);
    RIG_EQ_INT(rig_inum(d, "seeded"), seeded);
    RIG_EQ_INT(rig_inum(d, "rederived"), rederived);
    RIG_EQ_INT(rig_inum(d, "entered"), entered);
    RIG_EQ_INT(rig_inum(d, "pending"), pending);
}

void lg_check_broken(const json_t *v, long long pos, const char *word)
{
    const json_t *fb = scs_get(v, "first_broken");
    const char *why = scs_str(fb, "problem");
    char *t = scs_text(v);

    ck_assert_msg(json_is_false(scs_get(v, "verified")) && json_is_object(fb),
                  "%s: verified, expected broken: %.900s", rig_ctx, t);
    free(t);
    if (pos)
        RIG_EQ_INT(rig_inum(fb, "pos"), pos);
    else
        RIG_IS_TRUE(json_is_null(scs_get(fb, "pos")));
    RIG_IS_TRUE(json_array_size(scs_get(v, "problems")) >= 1);
    RIG_IS_TRUE(json_equal(scs_at(scs_get(v, "problems"), 0), fb));
    if (word)
        scs_rig_assert_contains(why, word);
}

/* The string member k of j, NULL for null or absent. */
static const char *str_or_null(const json_t *j, const char *k)
{
    return json_string_value(json_object_get(j, k));
}

void lg_entry(const json_t *j, const char *campaign_id, ledger_entry *en,
              int naturals[LEDGER_MAX_NATURALS])
{
    const char *kind = scs_str(j, "kind");
    bool is_roll = kind && strcmp(kind, "roll") == 0;
    const json_t *v;
    size_t i;

    memset(en, 0, sizeof *en);
    ck_assert_msg(kind && (is_roll || strcmp(kind, "action") == 0),
                  "%s: an entry of kind %s", rig_ctx, kind ? kind : "(none)");
    en->kind = is_roll ? LEDGER_ROLL : LEDGER_ACTION;
    en->campaign_id = campaign_id;
    en->pos = rig_inum(j, "pos");
    en->at = scs_str(j, "at");
    en->record_id = scs_str(j, is_roll ? "combat_id" : "battle_id");
    en->seq = (int)rig_inum(j, "seq");
    if (is_roll) {
        en->side = str_or_null(j, "side");
        en->unit_id = str_or_null(j, "unit_id");
        en->unit = str_or_null(j, "unit");
        en->reason = str_or_null(j, "reason");
        en->faces = (int)rig_inum(j, "faces");
        en->natural = (int)rig_inum(j, "natural");
        en->modified = (int)rig_inum(j, "modified");
    } else {
        en->action = scs_str(j, "action");
        RIG_IS_TRUE(json_array_size(scs_get(j, "naturals")) <=
                    LEDGER_MAX_NATURALS);
        RIG_EQ_INT(json_array_size(scs_get(j, "faces")),
                   json_array_size(scs_get(j, "naturals")));
        json_array_foreach(scs_get(j, "naturals"), i, v)
        {
            naturals[i] = (int)json_integer_value(v);
            RIG_EQ_INT(json_integer_value(scs_at(scs_get(j, "faces"), i)), 6);
        }
        en->naturals = naturals;
        en->n_naturals = json_array_size(scs_get(j, "naturals"));
        en->detail = str_or_null(j, "detail");
    }
    en->source = scs_str(j, "source");
    en->rng = str_or_null(j, "rng");
    en->commitment = str_or_null(j, "commitment");
    en->client_seed = str_or_null(j, "client_seed");
    en->prev_hash = scs_str(j, "prev_hash");
    en->hash = scs_str(j, "hash");
}

/* Appends s (NULL: empty) to buf as a netstring. */
static void ns(char **buf, size_t *len, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    char head[32];
    int k = snprintf(head, sizeof head, "%zu:", n);
    char *grown = realloc(*buf, *len + (size_t)k + n + 2);

    ck_assert_ptr_nonnull(grown);
    *buf = grown;
    memcpy(*buf + *len, head, (size_t)k);
    memcpy(*buf + *len + k, s ? s : "", n);
    (*buf)[*len + (size_t)k + n] = ',';
    *len += (size_t)k + n + 1;
    (*buf)[*len] = '\0';
}

/* The JSON member k of entry j as the text docs/ledger.md writes it:
 * strings as they are, integers in decimal, lists comma-separated, null
 * and absent as the empty text (new: free()). */
static char *field_text(const json_t *j, const char *k)
{
    const json_t *v = json_object_get(j, k), *x;
    char *out = calloc(1, 1), *grown;
    size_t i, len = 0;

    ck_assert_ptr_nonnull(out);
    if (json_is_string(v)) {
        free(out);
        return strdup(json_string_value(v));
    }
    if (json_is_integer(v)) {
        free(out);
        ck_assert_int_ge(
            asprintf(&out, "%lld", (long long)json_integer_value(v)), 0);
        return out;
    }
    json_array_foreach(v, i, x)
    {
        char item[32];
        int n = snprintf(item, sizeof item, "%s%lld", i ? "," : "",
                         (long long)json_integer_value(x));
        grown = realloc(out, len + (size_t)n + 1);
        ck_assert_ptr_nonnull(grown);
        out = grown;
        memcpy(out + len, item, (size_t)n + 1);
        len += (size_t)n;
    }
    return out;
}

/* Entry j's content written from its JSON fields in the order of
 * docs/ledger.md, without core/ledger.c (new: free()). */
static char *content_by_hand(const json_t *j, const char *campaign_id,
                             size_t *len)
{
    static const char *const roll[] = {
        "pos",  "at",         "combat_id",   "seq",     "side",     "unit_id",
        "unit", "reason",     "faces",       "natural", "modified", "source",
        "rng",  "commitment", "client_seed", NULL};
    static const char *const action[] = {
        "pos",        "at",          "battle_id", "seq",    "action",
        "faces",      "naturals",    "detail",    "source", "rng",
        "commitment", "client_seed", NULL};
    bool is_roll = strcmp(scs_str(j, "kind"), "roll") == 0;
    const char *const *f = is_roll ? roll : action;
    char *buf = NULL;
    size_t i;

    *len = 0;
    ns(&buf, len, "umpire-ledger-v1");
    ns(&buf, len, is_roll ? "roll" : "action");
    ns(&buf, len, campaign_id);
    for (i = 0; f[i]; i++) {
        char *t = field_text(j, f[i]);
        ns(&buf, len, t);
        free(t);
    }
    return buf;
}

/* hex SHA-256(prev's 32 bytes || content), computed here. */
static void link_by_hand(const char *prev, const char *content, size_t len,
                         char out[LEDGER_HASH_HEX])
{
    uint8_t raw[32], h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_state st;

    ck_assert_int_eq(rng_unhex(prev, raw, sizeof raw), 0);
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, raw, sizeof raw);
    crypto_hash_sha256_update(&st, (const unsigned char *)content, len);
    crypto_hash_sha256_final(&st, h);
    sodium_bin2hex(out, LEDGER_HASH_HEX, h, sizeof h);
}

void lg_recompute(const json_t *ledger)
{
    const char *cid = scs_str(ledger, "campaign_id");
    char prev[LEDGER_HASH_HEX], hash[LEDGER_HASH_HEX], mine[LEDGER_HASH_HEX];
    int naturals[LEDGER_MAX_NATURALS];
    const json_t *j;
    size_t i;

    memcpy(prev, ledger_genesis, LEDGER_HASH_HEX);
    RIG_EQ_STR(scs_str(ledger, "version"), "umpire-ledger-v1");
    json_array_foreach(scs_get(ledger, "entries"), i, j)
    {
        ledger_entry en;
        size_t len = 0, hand_len = 0;
        char *content, *by_hand;

        lg_entry(j, cid, &en, naturals);
        snprintf(rig_ctx, sizeof rig_ctx, "entry %zu recomputed", i + 1);
        RIG_EQ_INT(en.pos, (long long)i + 1);
        RIG_EQ_STR(en.prev_hash, prev);
        content = ledger_content(&en, &len);
        by_hand = content_by_hand(j, cid, &hand_len);
        ck_assert_ptr_nonnull(content);
        ck_assert_msg(len == hand_len && memcmp(content, by_hand, len) == 0,
                      "%s: content %s, by hand %s", rig_ctx, content, by_hand);
        ledger_link(prev, content, len, hash);
        link_by_hand(prev, by_hand, hand_len, mine);
        free(content);
        free(by_hand);
        RIG_EQ_STR(en.hash, hash);
        RIG_EQ_STR(mine, hash);
        memcpy(prev, hash, LEDGER_HASH_HEX);
    }
    RIG_EQ_INT(rig_inum(ledger, "length"),
               (long long)json_array_size(scs_get(ledger, "entries")));
    RIG_EQ_STR(scs_str(ledger, "head"), prev);
}

json_t *lg_at(const json_t *ledger, long long pos)
{
    json_t *j = scs_at(scs_get(ledger, "entries"), (size_t)(pos - 1));

    ck_assert_msg(j != NULL && rig_inum(j, "pos") == pos,
                  "%s: no entry %lld in the ledger", rig_ctx, pos);
    return j;
}

typedef struct roll_hashes {
    int seq;
    const char *prev, *hash;
} roll_hashes;

/* Roll seq's hashes set (rig_packed_rolls_edit; the previous hash is
 * stored for the first roll only, the others' being the hash before). */
static void set_hashes(db_roll *rolls, size_t *n, void *ctx)
{
    const roll_hashes *rh = ctx;
    size_t i;

    for (i = 0; i < *n; i++)
        if (rolls[i].seq == rh->seq) {
            snprintf(rolls[i].prev_hash, sizeof rolls[i].prev_hash, "%s",
                     rh->prev);
            snprintf(rolls[i].hash, sizeof rolls[i].hash, "%s", rh->hash);
        }
}

void lg_rewrite(const test_campaign *c, const json_t *ledger, long long from)
{
    char prev[LEDGER_HASH_HEX], hash[LEDGER_HASH_HEX];
    int naturals[LEDGER_MAX_NATURALS];
    const json_t *j;
    size_t i;

    memcpy(prev,
           from > 1 ? scs_str(lg_at(ledger, from - 1), "hash") : ledger_genesis,
           LEDGER_HASH_HEX);
    json_array_foreach(scs_get(ledger, "entries"), i, j)
    {
        ledger_entry en;
        err_info e;

        if ((long long)i + 1 < from)
            continue;
        lg_entry(j, c->id, &en, naturals);
        ck_assert_int_eq(ledger_hash(&en, prev, hash, &e), ERR_OK);
        if (en.kind == LEDGER_ROLL) {
            roll_hashes rh = {en.seq, prev, hash};
            if (!rig_packed_rolls_edit(en.record_id, set_hashes, &rh))
                ts_sql_exec(rig_ts,
                            "UPDATE rolls SET prev_hash = ?, hash = ? WHERE "
                            "combat_id = ? AND seq = ?",
                            TS_TEXT(prev), TS_TEXT(hash), TS_TEXT(en.record_id),
                            TS_INT(en.seq));
        } else
            ts_sql_exec(rig_ts,
                        "UPDATE battle_actions SET prev_hash = ?, hash = ? "
                        "WHERE battle_id = ? AND seq = ?",
                        TS_TEXT(prev), TS_TEXT(hash), TS_TEXT(en.record_id),
                        TS_INT(en.seq));
        memcpy(prev, hash, LEDGER_HASH_HEX);
    }
    ts_sql_exec(rig_ts, "UPDATE campaigns SET ledger_head = ? WHERE id = ?",
                TS_TEXT(prev), TS_TEXT(c->id));
}

/* ---- a campaign's ledger, as its requests show it ---- */

/* POST .../battles/{bid}/actions as the umpire (kept). */
json_t *lg_act(const test_campaign *c, const char *bid, int status,
               const char *body)
{
    return scs_call(status, "POST", c->umpire, body,
                    "/v1/campaigns/%s/battles/%s/actions", c->id, bid);
}

/* The report's ledger member spans first..last and is sealed by the hash
 * of the export's entry last. */
void lg_check_span(const json_t *rep, const json_t *ledger, long long first,
                   long long last)
{
    const json_t *l = scs_get(rep, "ledger");
    size_t n = json_array_size(scs_get(rep, "rolls"));

    RIG_EQ_INT(rig_inum(l, "first_pos"), first);
    RIG_EQ_INT(rig_inum(l, "last_pos"), last);
    RIG_EQ_INT((long long)n, last - first + 1);
    RIG_EQ_STR(scs_str(l, "hash"), scs_str(lg_at(ledger, last), "hash"));
}

/* The entries first..last of the export are the report's rolls in seq
 * order, kind roll, with the report's dice. */
void lg_check_rolls(const json_t *rep, const json_t *ledger, long long first)
{
    const json_t *r, *dice = scs_get(rep, "dice");
    size_t i;

    json_array_foreach(scs_get(rep, "rolls"), i, r)
    {
        const json_t *en = lg_at(ledger, first + (long long)i);
        RIG_EQ_STR(scs_str(en, "kind"), "roll");
        RIG_EQ_STR(scs_str(en, "combat_id"), scs_str(rep, "id"));
        RIG_EQ_STR(scs_str(en, "at"), scs_str(rep, "created_at"));
        RIG_EQ_INT(rig_inum(en, "seq"), rig_inum(r, "seq"));
        RIG_EQ_INT(rig_inum(en, "natural"), rig_inum(r, "natural"));
        RIG_EQ_INT(rig_inum(en, "modified"), rig_inum(r, "modified"));
        RIG_EQ_INT(rig_inum(en, "faces"), rig_inum(r, "faces"));
        RIG_EQ_STR(scs_str(en, "unit"), scs_str(r, "unit"));
        RIG_EQ_STR(scs_str(en, "reason"), scs_str(r, "reason"));
        RIG_EQ_STR(scs_str(en, "source"), scs_str(dice, "source"));
        RIG_IS_TRUE(
            json_equal(scs_get(en, "commitment"), scs_get(dice, "commitment")));
        RIG_IS_TRUE(json_equal(scs_get(en, "client_seed"),
                               scs_get(dice, "client_seed")));
    }
}

/* The export's entry pos is battle bid's action seq of this kind, with
 * n dice. */
void lg_check_action(const json_t *ledger, long long pos, const char *bid,
                     int seq, const char *action, size_t n)
{
    const json_t *en = lg_at(ledger, pos);

    RIG_EQ_STR(scs_str(en, "kind"), "action");
    RIG_EQ_STR(scs_str(en, "battle_id"), bid);
    RIG_EQ_INT(rig_inum(en, "seq"), seq);
    RIG_EQ_STR(scs_str(en, "action"), action);
    RIG_EQ_INT(json_array_size(scs_get(en, "naturals")), (long long)n);
}

/* The campaign shows a ledger of length entries, headed by head. */
void lg_check_head(const test_campaign *c, long long length, const char *head)
{
    json_t *cmp =
        scs_call(200, "GET", c->umpire, NULL, "/v1/campaigns/%s", c->id);
    char url[128];

    snprintf(url, sizeof url, "/v1/campaigns/%s/ledger", c->id);
    RIG_EQ_INT(rig_inum(scs_get(cmp, "ledger"), "length"), length);
    RIG_EQ_STR(scs_str(scs_get(cmp, "ledger"), "head"), head);
    RIG_EQ_STR(scs_str(scs_get(cmp, "ledger"), "url"), url);
}
