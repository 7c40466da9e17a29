/*
 * scs_rig.c: the rig of the SCS-over-HTTP suites; see scs_rig.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sodium.h>

#include "db_sql.h"
#include "rng.h"
#include "scs_rig.h"

static json_t *g_pool; /* JSON kept until teardown */

void scs_rig_setup(void)
{
    rig_setup();
    g_pool = json_array();
}

void scs_rig_teardown(void)
{
    json_decref(g_pool);
    g_pool = NULL;
    rig_teardown();
}

json_t *scs_rig_keep(json_t *j)
{
    if (j)
        json_array_append_new(g_pool, j);
    return j;
}

json_t *scs_get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

json_t *scs_at(const json_t *a, size_t i)
{
    return json_array_get(a, i);
}

const char *scs_str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

json_t *scs_json(const char *fmt, ...)
{
    char text[8192];
    json_error_t jerr;
    json_t *j;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    j = json_loads(text, JSON_DECODE_ANY, &jerr);
    ck_assert_msg(j != NULL, "bad JSON in the test %s: %s", text, jerr.text);
    return scs_rig_keep(j);
}

char *scs_text(const json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

    return s ? s : strdup("(none)");
}

json_t *scs_call(int status, const char *method, const char *token,
                 const char *body, const char *path_fmt, ...)
{
    char path[512];
    va_list ap;

    va_start(ap, path_fmt);
    vsnprintf(path, sizeof path, path_fmt, ap);
    va_end(ap);
    return scs_rig_keep(
        body ? ts_call(rig_ts, status, method, path, token, "%s", body)
             : ts_call(rig_ts, status, method, path, token, NULL));
}

void scs_rig_campaign(test_campaign *c, const char *options,
                      const char *const sides[])
{
    json_t *body = json_pack("{s:s, s:[]}", "name", "scs", "sides"), *j, *s;
    char *text;
    size_t i;

    for (i = 0; sides[i]; i++)
        json_array_append_new(json_object_get(body, "sides"),
                              json_pack("{s:s}", "name", sides[i]));
    if (options)
        json_object_set(body, "options", scs_json("%s", options));
    text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    j = scs_call(201, "POST", NULL, text, "/v1/campaigns");
    free(text);
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", scs_str(j, "id"));
    snprintf(c->umpire, sizeof c->umpire, "%s", scs_str(j, "umpire_token"));
    json_array_foreach(scs_get(j, "sides"), i, s)
    {
        ck_assert_uint_lt(i, 4);
        snprintf(c->player[i], sizeof c->player[i], "%s",
                 scs_str(s, "player_token"));
        snprintf(c->side_id[i], sizeof c->side_id[i], "%s", scs_str(s, "id"));
    }
    c->n_sides = (int)json_array_size(scs_get(j, "sides"));
}

json_t *scs_rig_unit(const test_campaign *c, const char *name, const char *side,
                     const char *scs, char *id_out)
{
    json_t *body = json_pack("{s:s, s:s, s:O}", "name", name, "side", side,
                             "scs", scs_json("%s", scs));
    char *text = json_dumps(body, JSON_COMPACT);
    json_t *j;

    json_decref(body);
    j = scs_call(201, "POST", c->umpire, text, "/v1/campaigns/%s/units", c->id);
    free(text);
    if (id_out)
        snprintf(id_out, 64, "%s", scs_str(j, "id"));
    return j;
}

json_t *scs_rig_put_table(const test_campaign *c, const char *name, int status,
                          const char *doc)
{
    return scs_call(status, "PUT", c->umpire, doc, "/v1/campaigns/%s/tables/%s",
                    c->id, name);
}

json_t *scs_rig_combat(const test_campaign *c, int status, const char *body)
{
    if (c == NULL)
        return scs_call(status, "POST", NULL, body, "/v1/combats/scs");
    return scs_call(status, "POST", c->umpire, body,
                    "/v1/campaigns/%s/combats/scs", c->id);
}

void scs_rig_combat_path(const json_t *rep, char *out, size_t n)
{
    const char *cid = scs_str(rep, "campaign_id");

    ck_assert_ptr_nonnull(scs_str(rep, "id"));
    if (cid)
        snprintf(out, n, "/v1/campaigns/%s/combats/%s", cid,
                 scs_str(rep, "id"));
    else
        snprintf(out, n, "/v1/combats/%s", scs_str(rep, "id"));
}

json_t *scs_rig_replay(const json_t *rep, const char *token, bool is_reproduced)
{
    char path[256], *d;
    json_t *r;

    scs_rig_combat_path(rep, path, sizeof path);
    r = scs_call(200, "POST", token, NULL, "%s/replay", path);
    RIG_EQ_STR(scs_str(r, "combat_id"), scs_str(rep, "id"));
    RIG_EQ_STR(scs_str(r, "system"), "scs");
    RIG_EQ_INT(rig_inum(r, "n_rolls"), json_array_size(scs_get(rep, "rolls")));
    d = scs_text(scs_get(r, "differences"));
    ck_assert_msg(json_is_true(scs_get(r, "reproduced")) == is_reproduced,
                  "%s: reproduced should be %d: %s", rig_ctx, is_reproduced, d);
    free(d);
    RIG_IS_TRUE((json_array_size(scs_get(r, "differences")) == 0) ==
                is_reproduced);
    return r;
}

void scs_rig_problem(const json_t *p, int status, const char *code,
                     const char *field)
{
    char *t = scs_text(p);

    ck_assert_msg(json_is_object(p) && rig_inum(p, "status") == status,
                  "%s: expected a %d problem, got %s", rig_ctx, status, t);
    free(t);
    ck_assert_msg(scs_str(p, "title") && scs_str(p, "detail") &&
                      scs_str(p, "detail")[0],
                  "%s: a problem without title or detail", rig_ctx);
    if (code)
        RIG_EQ_STR(scs_str(p, "code"), code);
    if (field)
        RIG_EQ_STR(scs_str(p, "field"), field);
}

json_t *scs_rig_report_unit(const json_t *rep, const char *name)
{
    json_t *u = rig_find_by(scs_get(rep, "attackers"), "unit", name);

    if (u == NULL)
        u = rig_find_by(scs_get(rep, "defenders"), "unit", name);
    ck_assert_msg(u != NULL, "%s: no unit %s in the report", rig_ctx, name);
    return u;
}

int scs_rig_edit_report(const char *id, const char *path, const char *value)
{
    char *text = ts_sql_doc(rig_ts, "SELECT report FROM combats WHERE id = ?",
                            TS_TEXT(id));
    json_t *rep;
    unsigned char *packed;
    char *docs, *both;
    size_t n;
    int changed;

    ck_assert_msg(text != NULL, "%s: no combat %s", rig_ctx, id);
    /* A campaign combat's value holds its events' documents after the
     * report (db_pack_after_report): kept as they are. */
    docs = db_after_report(text);
    db_report_end(text);
    rep = scs_rig_keep(json_loads(text, 0, NULL));
    ck_assert_msg(rep != NULL, "%s: the report of %s is not JSON", rig_ctx, id);
    free(text);
    scs_rig_set_at(rep, path, value);
    text = scs_text(rep);
    if (docs != NULL) {
        size_t len = strlen(text);
        ck_assert_ptr_nonnull(both = malloc(len + 1 + strlen(docs) + 1));
        memcpy(both, text, len);
        both[len] = DB_AFTER_REPORT;
        strcpy(both + len + 1, docs);
        free(text);
        free(docs);
        text = both;
    }
    packed = db_doc_pack(text, &n);
    ck_assert_ptr_nonnull(packed);
    changed = ts_sql_exec(rig_ts, "UPDATE combats SET report = ? WHERE id = ?",
                          TS_BLOB(packed, n), TS_TEXT(id));
    free(packed);
    free(text);
    return changed;
}

json_t *scs_rig_world(const test_campaign *c)
{
    static const char *const parts[] = {"",        "/units",   "/sides",
                                        "/tables", "/combats", "/history"};
    json_t *w = scs_rig_keep(json_object()), *u;
    size_t i;

    json_object_set_new(
        w, "#combats",
        json_integer(ts_sql_int(rig_ts, "SELECT count(*) FROM combats")));
    json_object_set_new(
        w, "#rolls",
        json_integer(ts_sql_int(rig_ts, "SELECT count(*) FROM rolls")));
    if (c == NULL)
        return w;
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
        json_object_set(w, parts[i][0] ? parts[i] : "campaign",
                        scs_call(200, "GET", c->umpire, NULL,
                                 "/v1/campaigns/%s%s", c->id, parts[i]));
    json_array_foreach(scs_get(scs_get(w, "/units"), "items"), i, u)
    {
        json_object_set(w, scs_str(u, "id"),
                        scs_call(200, "GET", c->umpire, NULL,
                                 "/v1/campaigns/%s/units/%s/history", c->id,
                                 scs_str(u, "id")));
    }
    return w;
}

void scs_rig_assert_unchanged(const json_t *before, const test_campaign *c)
{
    json_t *now = scs_rig_world(c), *v;
    const char *key;

    json_object_foreach((json_t *)before, key, v)
    {
        char *a = scs_text(v), *b = scs_text(scs_get(now, key));
        ck_assert_msg(json_equal(v, scs_get(now, key)),
                      "%s: %s changed:\n before %.600s\n after  %.600s",
                      rig_ctx, key, a, b);
        free(a);
        free(b);
    }
    RIG_EQ_INT(json_object_size(now), json_object_size(before));
}

void scs_rig_check_seeded(const json_t *rep)
{
    const json_t *dice = scs_get(rep, "dice"), *roll = scs_get(rep, "roll");
    const char *cs = scs_str(dice, "client_seed");
    uint8_t seed[RNG_SEED_LEN], hash[crypto_hash_sha256_BYTES];
    char hex[2 * crypto_hash_sha256_BYTES + 1];
    int n[2], k;
    rng_v1 rng;

    RIG_EQ_STR(scs_str(dice, "source"), "seeded");
    RIG_EQ_STR(scs_str(dice, "rng"), "v1");
    RIG_IS_TRUE(json_is_true(scs_get(dice, "verifiable")));
    ck_assert_ptr_nonnull(scs_str(dice, "server_seed"));
    ck_assert_int_eq(rng_unhex(scs_str(dice, "server_seed"), seed, sizeof seed),
                     0);
    crypto_hash_sha256(hash, seed, sizeof seed);
    sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
    RIG_EQ_STR(scs_str(dice, "commitment"), hex);
    rng_v1_init(&rng, seed, (const uint8_t *)cs, cs ? strlen(cs) : 0);
    for (k = 0; k < 2; k++)
        n[k] = rng_v1_die(&rng, 6);
    rng_v1_cleanup(&rng);
    RIG_EQ_INT(json_array_size(scs_get(rep, "rolls")), 2);
    for (k = 0; k < 2; k++) {
        const json_t *r = scs_at(scs_get(rep, "rolls"), (size_t)k);
        RIG_EQ_INT(rig_inum(r, "seq"), k + 1);
        RIG_EQ_INT(rig_inum(r, "faces"), 6);
        RIG_EQ_STR(scs_str(r, "source"), "seeded");
        RIG_EQ_STR(scs_str(r, "rng"), "v1");
        RIG_EQ_STR(scs_str(r, "reason"), "scs.crt");
        RIG_EQ_INT(rig_inum(r, "natural"), n[k]);
        RIG_EQ_INT(json_integer_value(scs_at(scs_get(roll, "dice"), (size_t)k)),
                   n[k]);
    }
    /* 2d6 is the sum; d66 the first die tens, the second units */
    RIG_EQ_INT(rig_inum(roll, "value"), strcmp(scs_str(roll, "kind"), "d66")
                                            ? n[0] + n[1]
                                            : 10 * n[0] + n[1]);
}

/* Members of each unit's part that say who it is, not how it fought. */
static const char *const who[] = {"unit_id", "side"};

static void same_units(const json_t *a, const json_t *b, const char *key)
{
    const json_t *ua = scs_get(a, key), *ub = scs_get(b, key);
    size_t i, k;

    RIG_EQ_INT(json_array_size(ua), json_array_size(ub));
    for (i = 0; i < json_array_size(ua); i++) {
        json_t *x = json_deep_copy(scs_at(ua, i)),
               *y = json_deep_copy(scs_at(ub, i));
        char *tx, *ty;
        for (k = 0; k < sizeof who / sizeof who[0]; k++) {
            json_object_del(x, who[k]);
            json_object_del(y, who[k]);
        }
        tx = scs_text(x);
        ty = scs_text(y);
        ck_assert_msg(json_equal(x, y), "%s: %s[%zu] differ:\n %s\n %s",
                      rig_ctx, key, i, tx, ty);
        free(tx);
        free(ty);
        json_decref(x);
        json_decref(y);
    }
}

void scs_rig_assert_same_outcome(const json_t *a, const json_t *b)
{
    static const char *const parts[] = {
        "attack_total", "defense_total", "ratio",    "odds",
        "column",       "off_table",     "roll",     "result",
        "losses",       "defender",      "attacker", "eliminated",
        "hex_vacated",  "advance",       "overrun",  "column_before_shifts"};
    size_t k;

    for (k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        char *ta = scs_text(scs_get(a, parts[k])),
             *tb = scs_text(scs_get(b, parts[k]));
        ck_assert_msg(scs_get(a, parts[k]) && json_equal(scs_get(a, parts[k]),
                                                         scs_get(b, parts[k])),
                      "%s: %s differ: %s against %s", rig_ctx, parts[k], ta,
                      tb);
        free(ta);
        free(tb);
    }
    same_units(a, b, "attackers");
    same_units(a, b, "defenders");
}

json_t *scs_rig_example_doc(void)
{
    json_t *t =
        json_deep_copy(scs_rig_keep(ts_load_vector("scs-example-crt.json")));

    json_object_del(t, "name");
    return t;
}

/* A d66 table of two columns: "-" on every row but cells (new). */
json_t *scs_rig_d66_doc(void)
{
    json_t *t = json_pack("{s:s, s:[s, s], s:{}}", "roll", "d66", "columns",
                          "1:1", "3:1", "rows");
    char label[24];
    int a, b;

    for (a = 1; a <= 6; a++)
        for (b = 1; b <= 6; b++) {
            snprintf(label, sizeof label, "%d%d", a, b);
            json_object_set_new(scs_get(t, "rows"), label,
                                json_pack("[s, s]", "-", "-"));
        }
    /* the first die is the tens: 35 and 53 read different rows */
    json_object_set_new(scs_get(t, "rows"), "35",
                        json_pack("[s, s]", "-", "D1r2"));
    json_object_set_new(scs_get(t, "rows"), "53",
                        json_pack("[s, s]", "-", "A1"));
    return t;
}

/*
 * Sets (value JSON) or removes (value NULL) the member at path of doc,
 * path written as the server names fields: "roll", "columns[2]",
 * "rows.7[3]".
 */
void scs_rig_set_at(json_t *doc, const char *path, const char *value)
{
    char buf[64], *tok, *next, *br;
    json_t *cur = doc, *v = value ? scs_json("%s", value) : NULL;
    long idx;
    int rc = 0;

    snprintf(buf, sizeof buf, "%s", path);
    for (tok = buf; tok; tok = next) {
        next = strchr(tok, '.');
        if (next)
            *next++ = '\0';
        br = strchr(tok, '[');
        idx = br ? strtol(br + 1, NULL, 10) : -1;
        if (br)
            *br = '\0';
        if (next) {
            cur = scs_get(cur, tok);
            if (br)
                cur = scs_at(cur, (size_t)idx);
        } else if (br && v) {
            rc = json_array_set(scs_get(cur, tok), (size_t)idx, v);
        } else if (br) {
            rc = json_array_remove(scs_get(cur, tok), (size_t)idx);
        } else if (v) {
            rc = json_object_set(cur, tok, v);
        } else {
            rc = json_object_del(cur, tok);
        }
        ck_assert_msg(cur != NULL && rc == 0, "no %s in the table", path);
    }
}

/* PUTs doc (taken) as name; the answer (kept). */
json_t *scs_rig_put_doc(const test_campaign *c, const char *name, int status,
                        json_t *doc)
{
    char *text = scs_text(doc);
    json_t *r = scs_rig_put_table(c, name, status, text);

    free(text);
    json_decref(doc);
    return r;
}

void scs_rig_assert_contains(const char *s, const char *needle)
{
    ck_assert_msg(s && strstr(s, needle), "%s: \"%s\" is not in: %s", rig_ctx,
                  needle, s ? s : "(null)");
}

/* Whether want is part of got: object members recursively, arrays of the
 * same length element by element, other values equal. */
static bool is_part(const json_t *want, const json_t *got)
{
    const char *key;
    json_t *v;
    size_t i;

    if (json_is_object(want) && json_is_object(got)) {
        json_object_foreach((json_t *)want, key, v)
        {
            if (!is_part(v, json_object_get(got, key)))
                return false;
        }
        return true;
    }
    if (json_is_array(want) && json_is_array(got)) {
        json_array_foreach(want, i, v)
        {
            if (!is_part(v, json_array_get(got, i)))
                return false;
        }
        return json_array_size(want) == json_array_size(got);
    }
    return got != NULL && json_equal(want, got);
}

void scs_rig_assert_has(const json_t *got, const char *fmt, ...)
{
    char text[4096], *g;
    json_error_t jerr;
    json_t *want;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    want = scs_rig_keep(json_loads(text, JSON_DECODE_ANY, &jerr));
    ck_assert_msg(want != NULL, "bad expectation %s: %s", text, jerr.text);
    g = scs_text(got);
    ck_assert_msg(is_part(want, got), "%s: expected %s\n in %.2500s", rig_ctx,
                  text, g);
    free(g);
}

void scs_rig_resubmit(const json_t *rep)
{
    json_t *body = scs_rig_keep(json_deep_copy(scs_get(rep, "input")));
    char *text;

    RIG_IS_TRUE(json_is_object(body));
    json_object_set_new(body, "dice", json_pack("{s:s}", "source", "entered"));
    if (!json_is_null(scs_get(rep, "roll")))
        json_object_set(body, "roll", scs_get(scs_get(rep, "roll"), "dice"));
    text = scs_text(body);
    scs_rig_assert_same_outcome(scs_rig_combat(NULL, 201, text), rep);
    free(text);
}

void scs_rig_check_cell(const json_t *rep, const json_t *doc)
{
    const json_t *cols = scs_get(doc, "columns");
    char label[24];
    size_t k;

    snprintf(label, sizeof label, "%lld",
             rig_inum(scs_get(rep, "roll"), "value"));
    for (k = 0; k < json_array_size(cols); k++)
        if (strcmp(json_string_value(scs_at(cols, k)),
                   scs_str(rep, "column")) == 0)
            break;
    RIG_IS_TRUE(k < json_array_size(cols));
    RIG_EQ_STR(
        scs_str(rep, "result"),
        json_string_value(scs_at(scs_get(scs_get(doc, "rows"), label), k)));
}

int scs_rig_n_lost(const json_t *rep, const char *side)
{
    json_t *l;
    size_t k;
    int n = 0;

    json_array_foreach(scs_get(rep, "losses"), k, l)
    {
        n += strcmp(scs_str(l, "side"), side) == 0;
    }
    return n;
}

json_t *scs_rig_refuse(int status, const char *code, const char *field,
                       const char *method, const char *token, const char *body,
                       const char *path_fmt, ...)
{
    char path[512];
    json_t *p;
    va_list ap;

    va_start(ap, path_fmt);
    vsnprintf(path, sizeof path, path_fmt, ap);
    va_end(ap);
    p = scs_call(status, method, token, body, "%s", path);
    scs_rig_problem(p, status, code, field);
    return p;
}

json_t *scs_rig_last_event(const test_campaign *c, const char *unit)
{
    json_t *h =
        scs_get(scs_rig_keep(rig_cget(c, "units/%s/history", unit)), "items");

    RIG_IS_TRUE(json_array_size(h) > 0);
    return scs_at(h, json_array_size(h) - 1);
}

void scs_rig_check_value(const json_t *rep, const char *unit, const char *mult,
                         const char *value)
{
    scs_rig_assert_has(scs_rig_report_unit(rep, unit),
                       "{\"multipliers\":%s,\"value\":{\"fraction\":\"%s\"}}",
                       mult, value);
}
