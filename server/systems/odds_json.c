/*
 * odds_json.c: the odds' request options and the common parts of their
 * answers; see odds_json.h.
 */
#include "odds_json.h"

#include "deadline.h"
#include "jsonv.h"
#include "odds_edna.h"
#include "text.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* The time bound (odds_limits.is_late). */
static bool is_late(void *arg)
{
    const odds_json_ask *ask = arg;

    return monotonic_s() > ask->deadline;
}

/* The fields of "odds" that system takes, besides the common ones. */
static const char *const *fields_of(const char *system)
{
    static const char *const common[] = {"method", "samples", "seed",
                                         "max_resolve_calls", NULL};
    static const char *const edna[] = {
        "method",      "samples",        "seed", "max_resolve_calls",
        "tests_ahead", "later_modifier", NULL};
    static const char *const matrix[] = {
        "method", "samples", "seed", "max_resolve_calls", "reserve", NULL};
    static const char *const civ[] = {
        "method", "samples", "seed", "max_resolve_calls", "battle", NULL};

    if (strcmp(system, "edna") == 0)
        return edna;
    if (strcmp(system, "matrix") == 0)
        return matrix;
    if (strcmp(system, "civ") == 0)
        return civ;
    return common;
}

/* Matrix's "reserve": {"combat", "army", "unit"}, as a commit names it. */
static err_code read_reserve(const json_t *obj, odds_json_ask *ask, err_info *e)
{
    static const char *const fields[] = {"combat", "army", "unit", NULL};
    static const char *const armies[] = {"attacker", "defender", NULL};
    json_t *r = NULL;
    const char *unit = NULL;
    err_code rc;

    if ((rc = jv_object(obj, "odds", "reserve", false, &r, e)) || r == NULL)
        return rc;
    if ((rc = jv_object_only(r, "odds.reserve", fields, e)) ||
        (rc = jv_int(r, "odds.reserve", "combat", true, 0, 1000,
                     &ask->reserve_combat, e)) ||
        (rc = jv_enum(r, "odds.reserve", "army", true, armies,
                      &ask->reserve_army, e)) ||
        (rc = jv_string(r, "odds.reserve", "unit", true, DB_NAME_MAX - 1, &unit,
                        e)))
        return rc;
    text_copy(ask->reserve_unit, DB_NAME_MAX, unit);
    ask->has_reserve = true;
    return ERR_OK;
}

err_code odds_json_read(const json_t *obj, const char *system,
                        odds_json_ask *ask, err_info *e)
{
    static const char *const methods[] = {"auto", "exact", "sample", NULL};
    const char *seed = NULL;
    int method = 0, samples = (int)ODDS_SAMPLES_DEFAULT,
        calls = (int)ODDS_MAX_CALLS;
    err_code rc;

    memset(ask, 0, sizeof *ask);
    odds_limits_default(&ask->limits);
    ask->tests_ahead = ODDS_JSON_AHEAD_DEFAULT;
    ask->is_battle = true;
    text_copy(ask->seed, sizeof ask->seed, ODDS_JSON_SEED_DEFAULT);
    if (obj != NULL && !json_is_object(obj))
        return err_set(e, ERR_INVALID, "odds", "must be an object");
    if (obj != NULL &&
        ((rc = jv_object_only(obj, "odds", fields_of(system), e)) ||
         (rc = jv_enum(obj, "odds", "method", false, methods, &method, e)) ||
         (rc = jv_int(obj, "odds", "samples", false, (int)ODDS_SAMPLES_MIN,
                      (int)ODDS_SAMPLES_MAX, &samples, e)) ||
         (rc = jv_int(obj, "odds", "max_resolve_calls", false, 1,
                      (int)ODDS_MAX_CALLS, &calls, e)) ||
         (rc = jv_string(obj, "odds", "seed", false, RNG_CLIENT_SEED_MAX, &seed,
                         e)) ||
         (rc = jv_int(obj, "odds", "tests_ahead", false, 0, ODDS_EDNA_MAX_AHEAD,
                      &ask->tests_ahead, e)) ||
         (rc = jv_bool(obj, "odds", "battle", false, &ask->is_battle, e)) ||
         (rc = read_reserve(obj, ask, e))))
        return rc;
    if (obj != NULL && json_object_get(obj, "later_modifier")) {
        if ((rc = jv_int(obj, "odds", "later_modifier", true, -100, 100,
                         &ask->later_modifier, e)))
            return rc;
        ask->has_later_modifier = true;
    }
    if (seed != NULL)
        text_copy(ask->seed, sizeof ask->seed, seed);
    ask->limits.method = (odds_method)method;
    ask->limits.samples = (uint64_t)samples;
    ask->limits.max_calls = (uint64_t)calls;
    ask->limits.seed = (const uint8_t *)ask->seed;
    ask->limits.seed_len = strlen(ask->seed);
    ask->limits.is_late = is_late;
    ask->limits.late_arg = ask;
    ask->limits.time_limit_ms = ODDS_JSON_TIME_LIMIT_MS;
    ask->deadline = monotonic_s() + ODDS_JSON_TIME_LIMIT_MS / 1000.0;
    return ERR_OK;
}

json_t *odds_json_count(odds_count n)
{
    char buf[ODDS_COUNT_TEXT];

    odds_count_text(n, buf);
    return json_string(buf);
}

json_t *odds_json_value(const odds_value *v)
{
    char num[ODDS_COUNT_TEXT], den[ODDS_COUNT_TEXT], frac[2 * ODDS_COUNT_TEXT];

    if (!v->is_exact)
        return json_pack("{s:f, s:f}", "decimal", v->decimal, "se", v->se);
    odds_count_text(v->num, num);
    odds_count_text(v->den, den);
    snprintf(frac, sizeof frac, "%s/%s", num, den);
    return json_pack("{s:s, s:f}", "fraction", frac, "decimal", v->decimal);
}

json_t *odds_json_acc(const odds_acc *a, odds_count total, unsigned share,
                      bool is_exact)
{
    odds_value v;

    if (total == 0) /* nothing counted: no outcome */
        return json_null();
    v = odds_value_of(a, total, share, is_exact);
    return odds_json_value(&v);
}

void odds_json_part(json_t *o, const odds_stats *st)
{
    json_object_set_new(o, "exact", json_boolean(st->is_exact));
    json_object_set_new(o, "method", json_string(st->method));
    json_object_set_new(
        o, "throws", st->is_exact ? odds_json_count(st->throws) : json_null());
    json_object_set_new(o, "samples",
                        st->is_exact ? json_null()
                                     : json_integer((json_int_t)st->samples));
    json_object_set_new(o, "why",
                        st->why[0] ? json_string(st->why) : json_null());
}

json_t *odds_json_head(const char *system, const odds_stats *st,
                       const odds_json_ask *ask)
{
    json_t *o = json_pack("{s:s}", "system", system);
    const odds_limits *l = &ask->limits;
    static const char *const methods[] = {"auto", "exact", "sample"};

    odds_json_part(o, st);
    json_object_set_new(o, "resolve_calls",
                        json_integer((json_int_t)st->calls));
    json_object_set_new(o, "seed", json_string(ask->seed));
    json_object_set_new(o, "budget",
                        json_pack("{s:s, s:I, s:I, s:i}", "method",
                                  methods[l->method], "max_resolve_calls",
                                  (json_int_t)l->max_calls, "samples",
                                  (json_int_t)l->samples, "time_limit_ms",
                                  (int)l->time_limit_ms));
    return o;
}
