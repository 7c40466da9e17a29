/*
 * test_units_doc.c: a unit's state as its history keeps it
 * (server/systems/units_doc.c), byte for byte as jansson dumps the same
 * state (keys sorted, compact), for units of every system with names that
 * need escaping; and the texts kept between events: a row equal to the
 * last one written for its unit gets the same text without writing it,
 * and a row that differs in any value gets its own.
 */
#include "suites.h"
#include "systems.h"
#include "units_doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

/* The state of u as jansson writes it, from the systems' sections. */
static char *reference(const db_unit *u)
{
    json_t *j = json_object(), *systems = json_array(), *section;
    char *text;
    size_t i;

    for (i = 0; i < systems_n; i++)
        if ((section = systems_table[i]->unit_json(u)) != NULL) {
            json_array_append_new(systems,
                                  json_string(systems_name(systems_table[i])));
            json_object_set_new(j, systems_name(systems_table[i]), section);
        }
    json_object_set_new(j, "systems", systems);
    json_object_set_new(j, "name", json_string(u->name));
    json_object_set_new(j, "side_id", json_string(u->side_id));
    json_object_set_new(j, "eliminated", json_boolean(u->is_eliminated));
    json_object_set_new(j, "eliminated_reason",
                        u->eliminated_reason[0]
                            ? json_string(u->eliminated_reason)
                            : json_null());
    text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* The state the history keeps after a change to u (new). */
static char *kept(const db_unit *u)
{
    db_event ev;
    err_info e;

    ck_assert_int_eq(units_doc_event_make(NULL, u, "created", NULL, NULL, NULL,
                                          NULL, NULL, &ev, &e),
                     ERR_OK);
    ck_assert_ptr_null(ev.before);
    return ev.after;
}

static void unit_scrud(db_unit *u, const char *id, const char *name)
{
    memset(u, 0, sizeof *u);
    snprintf(u->id, sizeof u->id, "%s", id);
    snprintf(u->campaign_id, sizeof u->campaign_id, "cmp_doc");
    snprintf(u->side_id, sizeof u->side_id, "sd_doc");
    snprintf(u->side_name, sizeof u->side_name, "Blue");
    snprintf(u->name, sizeof u->name, "%s", name);
    snprintf(u->created_at, sizeof u->created_at, "2026-11-26T10:00:00.000Z");
    u->has_scrud = true;
    u->scrud.quality = 2;
    u->scrud.faces = 6;
    u->scrud.defeat_penalty = 1;
    u->row = 7;
}

START_TEST(test_state_as_jansson_writes_it)
{
    db_unit u;
    char *got, *want;

    unit_scrud(&u, "un_plain", "1st Foot");
    got = kept(&u);
    want = reference(&u);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);

    /* Every system, eliminated, a name to escape and one not ASCII. */
    unit_scrud(&u, "un_every", "Gu\xc3\xa9ns \"Old\" \\ \t\x01 Guard");
    u.is_eliminated = true;
    snprintf(u.eliminated_reason, sizeof u.eliminated_reason, "three_defeats");
    snprintf(u.eliminated_by, sizeof u.eliminated_by, "cbt_doc");
    u.has_edna = true;
    u.edna = 4;
    u.edna_start = 6;
    u.has_scs = true;
    u.scs = (scs_counter){.full = {true, 6, 5, 4},
                          .reduced = {true, 3, 2, 4},
                          .has_reduced = true,
                          .steps = 2,
                          .steps_lost = 1,
                          .is_exploit = true};
    u.has_matrix = true;
    u.matrix_quality = -2;
    u.has_civ = true;
    u.civ = (civ_unit){.cls = 0, .era = 2, .bonus = 3, .dice_multiplier = 1};
    got = kept(&u);
    want = reference(&u);
    ck_assert_str_eq(got, want);
    ck_assert_ptr_nonnull(strstr(got, "\"edna\":"));
    ck_assert_ptr_nonnull(strstr(got, "\\\"Old\\\" \\\\ \\t\\u0001"));
    free(got);
    free(want);
}
END_TEST

START_TEST(test_state_kept_per_row)
{
    db_unit u, changed, other;
    char *first, *again, *then, *back, *want;
    long long hits0, misses0, hits, misses;

    unit_scrud(&u, "un_kept_1", "Hussars");
    units_doc_memo_stats(&hits0, &misses0);
    first = kept(&u);
    units_doc_memo_stats(&hits, &misses);
    ck_assert_int_eq(misses, misses0 + 1);
    ck_assert_int_eq(hits, hits0);
    /* The same row again: given, not written. */
    again = kept(&u);
    units_doc_memo_stats(&hits, &misses);
    ck_assert_int_eq(hits, hits0 + 1);
    ck_assert_int_eq(misses, misses0 + 1);
    ck_assert_str_eq(again, first);
    ck_assert_ptr_ne(again, first);

    /* The same unit changed: its own text, then the first row's again. */
    changed = u;
    changed.scrud.fatigue_penalty = 1;
    then = kept(&changed);
    want = reference(&changed);
    ck_assert_str_eq(then, want);
    ck_assert_str_ne(then, first);
    free(want);
    back = kept(&u);
    ck_assert_str_eq(back, first);
    /* A change that no value shows on its own (the rowid): written again,
     * to the same text. */
    changed = u;
    changed.row = 8;
    free(then);
    units_doc_memo_stats(&hits0, &misses0);
    then = kept(&changed);
    units_doc_memo_stats(&hits, &misses);
    ck_assert_int_eq(misses, misses0 + 1);
    ck_assert_str_eq(then, first);
    /* Another unit of the same name and values: its own slot or row. */
    other = u;
    snprintf(other.id, sizeof other.id, "un_kept_2");
    snprintf(other.side_id, sizeof other.side_id, "sd_other");
    free(back);
    back = kept(&other);
    want = reference(&other);
    ck_assert_str_eq(back, want);
    free(want);
    free(first);
    free(again);
    free(then);
    free(back);
}
END_TEST

/* An event's time: the one given (a combat's events take the combat's),
 * else now. */
START_TEST(test_event_time)
{
    static const char at[] = "2026-01-02T03:04:05.006Z";
    db_unit before, after;
    db_event ev;
    err_info e;

    unit_scrud(&before, "unit_t", "Timed");
    after = before;
    after.scrud.fatigue_penalty = 1;
    ck_assert_int_eq(units_doc_event_make(&before, &after, "combat", "cbt_t",
                                          NULL, NULL, "{}", at, &ev, &e),
                     ERR_OK);
    ck_assert_str_eq(ev.at, at);
    ck_assert_str_eq(ev.kind, "combat");
    free(ev.before);
    free(ev.after);
    ck_assert_int_eq(units_doc_event_make(&before, &after, "correction", NULL,
                                          NULL, NULL, NULL, NULL, &ev, &e),
                     ERR_OK);
    ck_assert_uint_eq(strlen(ev.at), strlen(at));
    ck_assert_str_ne(ev.at, at);
    ck_assert_int_eq(ev.at[10], 'T');
    ck_assert_int_eq(ev.at[strlen(ev.at) - 1], 'Z');
    free(ev.before);
    free(ev.after);
}
END_TEST

Suite *suite_units_doc(void)
{
    Suite *s = suite_create("units_doc");
    TCase *tc = tcase_create("units_doc");

    tcase_add_test(tc, test_state_as_jansson_writes_it);
    tcase_add_test(tc, test_state_kept_per_row);
    tcase_add_test(tc, test_event_time);
    suite_add_tcase(s, tc);
    return s;
}
