/*
 * fuzz_requests.c: the libFuzzer target of the combat requests: each
 * system's read stage, and for a one-off the rest of the pipeline without
 * a database (systems/pipeline.h, as tests/server/systems/test_systems.c
 * drives it), then the combat's report as served, rendered, and replayed.
 *
 * Input: one selector byte, then the request body as POST would carry it.
 *   '0' + i   a one-off combat of systems_table[i] (read, check, run);
 *   'a' + i   a campaign combat of systems_table[i], read only (binding
 *             a campaign's units needs the database).
 * A body citing a commitment ("dice": {"commitment": ...}) stops after the
 * read: combat_cite reads it through the database pool.
 *
 * What must hold (fuzz.h): no crash, leak or undefined behaviour; a
 * request never fails as the service's fault (ERR_DB, ERR_INTERNAL: a
 * 500); a combat that ran has a report that is JSON, renders cleanly in
 * both formats, and replays from its own roll log with no difference,
 * as POST .../replay promises.  And the body as the service reads it
 * (jsonr_loadb, the quick reader) is what jansson's own reader makes of
 * it: the same value, keys in the same order, or the same error.
 */
#include "fuzz.h"

#include "combat.h"
#include "jsonr.h"
#include "pipeline.h"
#include "report.h"
#include "systems.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* UMPIRE_FUZZ_VERBOSE: each input's outcome on stderr (to see what the
 * seeds reach). */
static bool g_is_verbose;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    size_t i;

    (void)argc;
    (void)argv;
    fuzz_init();
    g_is_verbose = getenv("UMPIRE_FUZZ_VERBOSE") != NULL;
    /* fuzz/seed.sh asks for the selectors of the systems. */
    if (getenv("UMPIRE_FUZZ_SYSTEMS") != NULL) {
        for (i = 0; i < systems_n; i++)
            printf("%c %c %s\n", (char)('0' + i), (char)('a' + i),
                   systems_name(systems_table[i]));
        exit(0);
    }
    return 0;
}

/* The replay checks of resources/combats.c on a record just made. */
static void check_replay(const combat_record *rec)
{
    const systems_entry *s = rec->system;
    json_t *diffs = json_array();
    err_info e;
    err_code rc;

    err_clear(&e);
    combat_check_report_dice(&rec->cb, diffs);
    if (strcmp(rec->cb.dice_source, "seeded") == 0)
        combat_check_seeded_dice(&rec->cb, rec->rolls, rec->n_rolls, diffs);
    rc =
        combat_replay(&rec->cb, rec->rolls, rec->n_rolls, s->replay, diffs, &e);
    fuzz_check(rc == ERR_OK, "%s: a new combat does not replay: %d %s (%s)",
               systems_name(s), rc, e.field, e.message);
    if (json_array_size(diffs) > 0) {
        char *text = json_dumps(diffs, JSON_INDENT(1));
        fuzz_check(false, "%s: a new combat replays with differences: %s",
                   systems_name(s), text ? text : "?");
    }
    json_decref(diffs);
}

/* A combat that ran: its report as served, rendered, replayed. */
static void check_record(const combat_record *rec)
{
    const char *sys = systems_name(rec->system);
    json_t *report, *served;
    char *text;

    fuzz_check(rec->cb.report != NULL, "%s: no report", sys);
    fuzz_check(fuzz_utf8_ok(rec->cb.report, strlen(rec->cb.report)),
               "%s: the report is not UTF-8", sys);
    report = json_loads(rec->cb.report, 0, NULL);
    fuzz_check(json_is_object(report), "%s: the report is not a JSON object",
               sys);
    json_decref(report);
    text = combat_report_with_rolls(rec->cb.report, rec->rolls, rec->n_rolls);
    fuzz_check(text != NULL, "%s: no report with its rolls", sys);
    served = json_loads(text, 0, NULL);
    fuzz_check(json_is_object(served),
               "%s: the report as served is not JSON: %s", sys, text);
    fuzz_render_both(sys, report_combat, served);
    fuzz_emit('c', text, strlen(text));
    if (rec->system->battle != NULL) /* a one-off battle's record */
        fuzz_emit('b', text, strlen(text));
    json_decref(served);
    free(text);
    check_replay(rec);
}

static void run_request(const systems_entry *s, const json_t *body,
                        bool is_campaign)
{
    void *job = NULL;
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = pipeline_read(s, body, is_campaign ? "cmp_fuzz" : NULL,
                       is_campaign ? "tok_fuzz" : NULL, &job, &e);
    if (rc == ERR_OK && !is_campaign &&
        !((combat_record *)job)->dice.is_cited) {
        rc = pipeline_oneoff(NULL, job, &e);
        if (rc == ERR_OK)
            check_record(job);
    }
    if (g_is_verbose)
        fprintf(stderr, "umpire-fuzz: %s %s: %s %s %s\n", systems_name(s),
                is_campaign ? "campaign read" : "one-off",
                rc == ERR_OK ? "ok" : err_code_name(rc), e.field, e.message);
    fuzz_check(rc != ERR_DB && rc != ERR_INTERNAL,
               "%s: a request fails as the service's fault (%s): %s: %s",
               systems_name(s), err_code_name(rc), e.field, e.message);
    if (job != NULL)
        s->job_free(job);
}

/* a and b the same value, objects' keys in the same order (or both
 * NULL). */
static bool same_json(json_t *a, json_t *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_object(a)) {
        void *ia = json_object_iter(a), *ib = json_object_iter(b);
        for (; ia && ib; ia = json_object_iter_next(a, ia),
                         ib = json_object_iter_next(b, ib))
            if (strcmp(json_object_iter_key(ia), json_object_iter_key(ib)) ||
                !same_json(json_object_iter_value(ia),
                           json_object_iter_value(ib)))
                return false;
        return ia == NULL && ib == NULL;
    }
    if (json_is_array(a)) {
        size_t i;
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (i = 0; i < json_array_size(a); i++)
            if (!same_json(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    return json_equal(a, b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const systems_entry *s;
    json_t *body, *same;
    json_error_t jerr, jerr_same;
    bool is_campaign, is_same_error;

    if (size < 1)
        return 0;
    if (data[0] >= '0' && (size_t)(data[0] - '0') < systems_n) {
        s = systems_table[data[0] - '0'];
        is_campaign = false;
    } else if (data[0] >= 'a' && (size_t)(data[0] - 'a') < systems_n) {
        s = systems_table[data[0] - 'a'];
        is_campaign = true;
    } else {
        return -1; /* not a selector: keep it out of the corpus */
    }
    fuzz_dice_reset();
    /* As http_body_object (http_request.c) reads a body. */
    body = jsonr_loadb((const char *)data + 1, size - 1,
                       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    same = json_loadb((const char *)data + 1, size - 1,
                      JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr_same);
    is_same_error =
        strcmp(jerr.text, jerr_same.text) == 0 && jerr.line == jerr_same.line &&
        jerr.column == jerr_same.column && jerr.position == jerr_same.position;
    fuzz_check(same_json(body, same) && (body != NULL || is_same_error),
               "the quick reader and jansson disagree");
    json_decref(same);
    if (json_is_object(body))
        run_request(s, body, is_campaign);
    json_decref(body);
    return 0;
}
