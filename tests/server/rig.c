/*
 * rig.c: the test rig of the SCRUD-over-HTTP suites; see rig.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "db_sql.h"

test_server *rig_ts;
char rig_ctx[192];

void rig_setup(void)
{
    rig_ts = ts_start();
}

void rig_teardown(void)
{
    ts_stop(rig_ts);
    rig_ts = NULL;
}

/* Shorthands for jansson lookups (borrowed; NULL when absent). */
static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static json_t *at(const json_t *a, size_t i)
{
    return json_array_get(a, i);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* An integer member that must be there. */
long long rig_inum(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    ck_assert_msg(json_is_integer(v), "%s: \"%s\" is not an integer", rig_ctx,
                  k);
    return (long long)json_integer_value(v);
}

/* The element of items whose member key is name, or NULL. */
json_t *rig_find_by(const json_t *items, const char *key, const char *name)
{
    size_t i;
    json_t *v;

    json_array_foreach(items, i, v)
    {
        const char *s = str(v, key);
        if (s && strcmp(s, name) == 0)
            return v;
    }
    return NULL;
}

/* A unit's entry in a report (either side), asserted present. */
json_t *rig_report_unit(const json_t *rep, const char *name)
{
    json_t *u =
        rig_find_by(get(at(get(rep, "sides"), 0), "units"), "unit", name);

    if (u == NULL)
        u = rig_find_by(get(at(get(rep, "sides"), 1), "units"), "unit", name);
    ck_assert_msg(u != NULL, "%s: no unit %s in the report", rig_ctx, name);
    return u;
}

/* A request with a printf path; asserts status, returns the body. */
json_t *rig_call(int status, const char *method, const char *token,
                 const char *body, const char *path_fmt, ...)
{
    char path[512];
    va_list ap;

    va_start(ap, path_fmt);
    vsnprintf(path, sizeof path, path_fmt, ap);
    va_end(ap);
    return body ? ts_call(rig_ts, status, method, path, token, "%s", body)
                : ts_call(rig_ts, status, method, path, token, NULL);
}

/* GET /v1/campaigns/{id}/<what> as the umpire. */
json_t *rig_cget(const test_campaign *c, const char *what_fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    return rig_call(200, "GET", c->umpire, NULL, "/v1/campaigns/%s/%s", c->id,
                    what);
}

/* Posts a campaign SCRUD combat; body is the JSON text. */
json_t *rig_campaign_combat(const test_campaign *c, int status,
                            const char *body)
{
    return rig_call(status, "POST", c->umpire, body,
                    "/v1/campaigns/%s/combats/scrud", c->id);
}

/* POST .../replay (path without it) reproduces the combat. */
void rig_check_replay(const char *path, const char *token)
{
    json_t *r = rig_call(200, "POST", token, NULL, "%s/replay", path);

    ck_assert_msg(json_is_true(get(r, "reproduced")), "%s: not reproduced: %s",
                  rig_ctx, json_dumps(get(r, "differences"), 0));
    RIG_EQ_INT(json_array_size(get(r, "differences")), 0);
    json_decref(r);
}

int rig_packed_rolls_edit(const char *id, rig_rolls_fn edit, void *ctx)
{
    char *text = ts_sql_rolls(rig_ts, "SELECT rolls FROM combats WHERE id = ?",
                              TS_TEXT(id));
    /* A one-off's packed after its report, in its value, as before the
     * compact layout (one byte, RS, in its rolls: db/combat_pack.c): the
     * report kept to pack again (the rolls then in the compact layout). */
    char *report = NULL;
    long long first;
    db_roll *rolls = NULL;
    size_t n = 0, i;
    db_combat cb;
    err_info e;
    int changed;

    if (text == NULL)
        return 0;
    if (db_is_after_report(text, strlen(text))) {
        free(text);
        report = ts_sql_doc(rig_ts, "SELECT report FROM combats WHERE id = ?",
                            TS_TEXT(id));
        ck_assert_ptr_nonnull(report);
        ck_assert_ptr_nonnull(text = db_after_report(report));
        db_report_end(report);
    }
    first = ts_sql_int(rig_ts,
                       "SELECT coalesce(ledger_first, 0) FROM combats "
                       "WHERE id = ?",
                       TS_TEXT(id));
    err_clear(&e);
    ck_assert_msg(db_rolls_unpack(text, first, &rolls, &n, &e) == ERR_OK,
                  "%s: the packed rolls of %s: %s", rig_ctx, id, e.message);
    free(text);
    edit(rolls, &n, ctx);
    /* Only the first roll's previous hash is stored: the others' is the
     * hash of the roll before, as they read back. */
    for (i = 1; first > 0 && i < n; i++)
        memcpy(rolls[i].prev_hash, rolls[i - 1].hash, sizeof rolls[i].hash);
    memset(&cb, 0, sizeof cb);
    if (first > 0) /* packed as a campaign's: chained */
        snprintf(cb.campaign_id, sizeof cb.campaign_id, "cmp_packed");
    cb.report = report;
    ck_assert_int_eq(db_combat_pack(&cb, rolls, n, &e), ERR_OK);
    free(rolls);
    free(report);
    ck_assert_msg(cb.rolls_z != NULL, "%s: the rolls of %s no longer pack",
                  rig_ctx, id);
    if (cb.report_z != NULL) /* with the report, as a one-off's */
        changed = ts_sql_exec(rig_ts,
                              "UPDATE combats SET report = ?, rolls = ? "
                              "WHERE id = ?",
                              TS_BLOB(cb.report_z, cb.report_z_len),
                              TS_BLOB(cb.rolls_z, cb.rolls_z_len), TS_TEXT(id));
    else if (first > 0)
        changed = ts_sql_exec(rig_ts,
                              "UPDATE combats SET rolls = ?, "
                              "ledger_first = ? WHERE id = ?",
                              TS_BLOB(cb.rolls_z, cb.rolls_z_len),
                              TS_INT(cb.ledger_first), TS_TEXT(id));
    else
        changed =
            ts_sql_exec(rig_ts, "UPDATE combats SET rolls = ? WHERE id = ?",
                        TS_BLOB(cb.rolls_z, cb.rolls_z_len), TS_TEXT(id));
    free(cb.rolls_z);
    free(cb.report_z);
    return changed;
}

typedef struct roll_natural {
    int seq;
    const char *natural; /* an SQL expression of "natural" */
    int n_changed;
} roll_natural;

static void set_natural(db_roll *rolls, size_t *n, void *ctx)
{
    roll_natural *rn = ctx;
    char sql[160];
    size_t i;

    for (i = 0; i < *n; i++)
        if (rolls[i].seq == rn->seq) {
            snprintf(sql, sizeof sql,
                     "SELECT %s FROM (SELECT %d AS \"natural\") AS r",
                     rn->natural, rolls[i].natural);
            rolls[i].natural = (int)ts_sql_int(rig_ts, sql);
            rn->n_changed++;
        }
}

int rig_edit_roll(const char *id, int seq, const char *natural)
{
    roll_natural rn = {seq, natural, 0};
    char sql[256];

    if (rig_packed_rolls_edit(id, set_natural, &rn))
        return rn.n_changed;
    snprintf(sql, sizeof sql,
             "UPDATE rolls SET \"natural\" = %s WHERE combat_id = ? AND "
             "seq = ?",
             natural);
    return ts_sql_exec(rig_ts, sql, TS_TEXT(id), TS_INT(seq));
}
