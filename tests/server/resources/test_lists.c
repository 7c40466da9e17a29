/*
 * test_lists.c: the paged lists of a campaign (paging.h): its sides,
 * units (with their filters), combats, battles and tables, read a page at
 * a time by order, limit and cursor, against the whole list read in one
 * page as the reference; bad paging parameters; a cursor that stays good
 * while new items are written.  Through real HTTP (harness.h).
 */
#include "harness.h"
#include "suites.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_DOC                                                              \
    "{\"roll\":\"2d6\",\"columns\":[\"1:1\",\"3:1\"],\"rows\":{"               \
    "\"2\":[\"A1r1\",\"A1\"],\"3\":[\"A1\",\"A1 D1\"],\"4\":[\"A1\","          \
    "\"D1r1\"],\"5\":[\"A1 D1\",\"D1r1\"],\"6\":[\"A1 D1\",\"D1r2\"],"         \
    "\"7\":[\"D1r1\",\"D1r2\"],\"8\":[\"D1r1\",\"D2r2\"],\"9\":[\"D1r2\","     \
    "\"D2r2\"],\"10\":[\"D1r2\",\"D2r3\"],\"11\":[\"D2r2\",\"D2r3\"],"         \
    "\"12\":[\"D2r2\",\"D3r3\"]}}"

static test_server *ts;
static test_campaign camp;

/* A campaign with sides blue, red and green; units B1..B4 (blue, every
 * system but SCS and Civilization), R1..R3 (red), G1 (green, EDNA only);
 * B2 eliminated, R1 ineffective. */
static void setup(void)
{
    static const char *const sides[] = {"blue", "red", "green", NULL};
    char path[160];
    int i;

    ts = ts_start();
    ts_campaign(ts, &camp, NULL, sides);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units", camp.id);
    for (i = 1; i <= 4; i++)
        json_decref(ts_call(ts, 201, "POST", path, camp.umpire,
                            "{\"name\":\"B%d\",\"side\":\"blue\"}", i));
    for (i = 1; i <= 3; i++)
        json_decref(ts_call(ts, 201, "POST", path, camp.umpire,
                            "{\"name\":\"R%d\",\"side\":\"red\"}", i));
    json_decref(ts_call(ts, 201, "POST", path, camp.umpire,
                        "{\"name\":\"G1\",\"side\":\"green\",\"edna\":{}}"));
    snprintf(path, sizeof path, "/v1/campaigns/%s/units/B2", camp.id);
    json_decref(
        ts_call(ts, 200, "PATCH", path, camp.umpire, "{\"eliminated\":true}"));
    snprintf(path, sizeof path, "/v1/campaigns/%s/units/R1", camp.id);
    json_decref(ts_call(ts, 200, "PATCH", path, camp.umpire,
                        "{\"edna\":{\"edna\":0}}"));
}

static void teardown(void)
{
    ts_stop(ts);
}

/* "/v1/campaigns/<id>/" + the formatted rest, in a static buffer. */
static const char *cpath(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static const char *cpath(const char *fmt, ...)
{
    static char buf[4][512];
    static int k;
    char *b = buf[k++ % 4];
    int n = snprintf(b, 512, "/v1/campaigns/%s/", camp.id);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(b + n, (size_t)(512 - n), fmt, ap);
    va_end(ap);
    return b;
}

/* The key of an item: a table's name, else its id. */
static const char *key_of(const json_t *item)
{
    const json_t *id = json_object_get(item, "id");

    return json_string_value(id ? id : json_object_get(item, "name"));
}

/* The keys of the items of page, appended to keys. */
static void add_keys(json_t *keys, const json_t *page)
{
    const json_t *items = json_object_get(page, "items");
    size_t i;

    ck_assert(json_is_array(items));
    for (i = 0; i < json_array_size(items); i++)
        json_array_append_new(keys,
                              json_string(key_of(json_array_get(items, i))));
}

/* list (e.g. "units?system=edna&") read page by page of limit in order:
 * the keys, checking each page's order, size and next_cursor. */
static json_t *walk(const char *list, const char *order, int limit)
{
    json_t *keys = json_array(), *page;
    char cursor[96] = "", ord[32] = "";
    int n_pages = 0;

    if (order)
        snprintf(ord, sizeof ord, "order=%s&", order);
    for (;;) {
        const json_t *next;
        size_t n;
        page = ts_call(ts, 200, "GET",
                       cpath("%s%slimit=%d%s%s", list, ord, limit,
                             cursor[0] ? "&cursor=" : "", cursor),
                       camp.player[0], NULL);
        n = json_array_size(json_object_get(page, "items"));
        ck_assert_int_le(n, (size_t)limit);
        if (order)
            ck_assert_str_eq(json_string_value(json_object_get(page, "order")),
                             order);
        add_keys(keys, page);
        next = json_object_get(page, "next_cursor");
        ck_assert_msg(next != NULL, "%s: no next_cursor", list);
        if (json_is_null(next)) {
            json_decref(page);
            break;
        }
        /* a page with a next one is full, and its cursor names its last */
        ck_assert_int_eq(n, (size_t)limit);
        snprintf(cursor, sizeof cursor, "%s", json_string_value(next));
        json_decref(page);
        ck_assert_int_lt(++n_pages, 100);
    }
    return keys;
}

/* The reference: the whole list in one page (the lists here are short). */
static json_t *whole(const char *list, const char *order)
{
    json_t *keys = json_array(), *page;

    page = ts_call(ts, 200, "GET",
                   cpath("%s%s%s%slimit=200", list, order ? "order=" : "",
                         order ? order : "", order ? "&" : ""),
                   camp.umpire, NULL);
    ck_assert(json_is_null(json_object_get(page, "next_cursor")));
    add_keys(keys, page);
    json_decref(page);
    return keys;
}

/* Every limit from 1 to past the end, both orders (when the list has
 * them): the pages joined are the whole list, newest the reverse. */
static void check_list(const char *list, bool has_order, size_t n_expected)
{
    json_t *all = whole(list, NULL), *rev, *got;
    size_t i, n = json_array_size(all);
    int limit;

    ck_assert_msg(n == n_expected, "%s lists %zu, not %zu", list, n,
                  n_expected);
    rev = json_array();
    for (i = n; i-- > 0;)
        json_array_append(rev, json_array_get(all, i));
    if (has_order) {
        got = whole(list, "newest");
        ck_assert_msg(json_equal(got, rev), "%s newest", list);
        json_decref(got);
    }
    for (limit = 1; limit <= (int)n + 1; limit++) {
        got = walk(list, has_order ? "oldest" : NULL, limit);
        ck_assert_msg(json_equal(got, all), "%s by %d", list, limit);
        json_decref(got);
        if (has_order) {
            got = walk(list, "newest", limit);
            ck_assert_msg(json_equal(got, rev), "%s newest by %d", list, limit);
            json_decref(got);
        }
    }
    json_decref(all);
    json_decref(rev);
}

/* Regression (issue: GET .../combats returned every combat even with
 * ?limit=1): combats, a page at a time; the default page is 50. */
START_TEST(test_combats_are_paged)
{
    json_t *page;
    int i;

    for (i = 0; i < 5; i++)
        json_decref(
            ts_call(ts, 201, "POST", cpath("combats/edna"), camp.umpire,
                    "{\"units\":[{\"unit\":\"G1\",\"modifier\":-20}]}"));
    page =
        ts_call(ts, 200, "GET", cpath("combats?limit=1"), camp.player[0], NULL);
    ck_assert_int_eq(json_array_size(json_object_get(page, "items")), 1);
    ck_assert(json_is_string(json_object_get(page, "next_cursor")));
    json_decref(page);
    check_list("combats?", true, 5);
    for (i = 0; i < 50; i++)
        json_decref(
            ts_call(ts, 201, "POST", cpath("combats/edna"), camp.umpire,
                    "{\"units\":[{\"unit\":\"B1\",\"modifier\":-20}]}"));
    page = ts_call(ts, 200, "GET", cpath("combats"), camp.player[0], NULL);
    ck_assert_int_eq(json_array_size(json_object_get(page, "items")), 50);
    json_decref(page);
}
END_TEST

/* Units, with each filter and a mix: pages of the filtered list. */
START_TEST(test_units_are_paged_with_their_filters)
{
    check_list("units?", true, 8);
    check_list("units?side=blue&", true, 4);
    check_list("units?side=red&eliminated=false&", true, 3);
    check_list("units?eliminated=true&", true, 1);
    check_list("units?eliminated=false&", true, 7);
    check_list("units?system=edna&", true, 8);
    check_list("units?system=matrix&", true, 7);
    check_list("units?system=scs&", true, 0);
    check_list("units?system=edna&ineffective=false&", true, 7);
    check_list("units?ineffective=true&side=red&", true, 1);
    check_list("units?side=blue&eliminated=false&system=scrud&"
               "ineffective=false&",
               true, 3);
}
END_TEST

START_TEST(test_sides_battles_tables_are_paged)
{
    const char *battle =
        "{\"turn\":1,\"attacker\":{\"side\":\"blue\",\"units\":[\"B1\"]},"
        "\"defender\":{\"side\":\"red\",\"units\":[\"R2\"]},\"line\":[{"
        "\"attacker\":[\"B1\"],\"defender\":[\"R2\"]}]}";
    char name[32];
    int i;

    check_list("sides?", true, 3);
    for (i = 0; i < 3; i++) {
        json_t *b = ts_call(ts, 201, "POST", cpath("battles"), camp.umpire,
                            "%s", battle);
        json_decref(ts_call(ts, 200, "POST",
                            cpath("battles/%s/actions",
                                  json_string_value(json_object_get(b, "id"))),
                            camp.umpire, "{\"action\":\"abandon\"}"));
        json_decref(b);
    }
    check_list("battles?", true, 3);
    for (i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "t%d", 3 - i); /* listed by name */
        json_decref(ts_call(ts, 201, "PUT", cpath("tables/%s", name),
                            camp.umpire, "%s", TABLE_DOC));
    }
    check_list("tables?", false, 4);
}
END_TEST

/* Bad paging parameters: 422 naming them (a cursor that names nothing of
 * the list included); the tables take no order (400). */
START_TEST(test_bad_paging)
{
    static const char *const lists[] = {"sides", "units", "combats", "battles",
                                        "tables"};
    static const struct {
        const char *query, *code, *field;
    } bad[] = {
        {"limit=0", "out_of_range", "limit"},
        {"limit=201", "out_of_range", "limit"},
        {"limit=x", "invalid_value", "limit"},
        {"cursor=", "invalid_value", "cursor"},
        {"order=sideways", "invalid_value", "order"},
        {"cursor=nope", "invalid_value", "cursor"},
    };
    size_t i, k;

    for (k = 0; k < sizeof lists / sizeof *lists; k++)
        for (i = 0; i < sizeof bad / sizeof *bad; i++) {
            bool is_tables = strcmp(lists[k], "tables") == 0;
            int want = 422;
            json_t *p;
            if (is_tables && strncmp(bad[i].query, "order", 5) == 0)
                want = 400; /* not a parameter of the tables */
            else if (is_tables && strcmp(bad[i].query, "cursor=nope") == 0)
                want = 200; /* a name: where the next page starts */
            p = ts_call(ts, want, "GET", cpath("%s?%s", lists[k], bad[i].query),
                        camp.player[0], NULL);
            if (want != 200)
                ck_assert_str_eq(json_string_value(json_object_get(p, "field")),
                                 bad[i].field);
            if (want == 422)
                ck_assert_str_eq(json_string_value(json_object_get(p, "code")),
                                 bad[i].code);
            json_decref(p);
        }
}
END_TEST

/* A cursor is the id of an item of this campaign's list: another list's
 * id, or another campaign's, names nothing of it. */
START_TEST(test_cursor_of_another_list)
{
    static const char *const sides[] = {"a", "b", NULL};
    test_campaign other;
    char path[256];
    json_t *page, *p;
    const char *sid;

    ts_campaign(ts, &other, NULL, sides);
    snprintf(path, sizeof path, "/v1/campaigns/%s/sides?limit=1", other.id);
    page = ts_call(ts, 200, "GET", path, other.umpire, NULL);
    sid = json_string_value(json_object_get(page, "next_cursor"));
    ck_assert_ptr_nonnull(sid);
    p = ts_call(ts, 422, "GET", cpath("sides?cursor=%s", sid), camp.umpire,
                NULL);
    ck_assert_str_eq(json_string_value(json_object_get(p, "field")), "cursor");
    json_decref(p);
    p = ts_call(ts, 422, "GET", cpath("units?cursor=%s", camp.side_id[0]),
                camp.umpire, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(p, "field")), "cursor");
    json_decref(p);
    json_decref(page);
}
END_TEST

/* Items written between two pages neither shift nor repeat what the
 * cursor has passed: they come at the end. */
START_TEST(test_cursor_while_writing)
{
    json_t *page, *rest, *all;
    char cursor[96];
    size_t i;

    page = ts_call(ts, 200, "GET", cpath("units?limit=3"), camp.umpire, NULL);
    snprintf(cursor, sizeof cursor, "%s",
             json_string_value(json_object_get(page, "next_cursor")));
    json_decref(page);
    json_decref(ts_call(ts, 201, "POST", cpath("units"), camp.umpire,
                        "{\"name\":\"A0\",\"side\":\"red\"}"));
    rest = ts_call(ts, 200, "GET", cpath("units?limit=200&cursor=%s", cursor),
                   camp.umpire, NULL);
    all = whole("units?", NULL);
    ck_assert_int_eq(json_array_size(json_object_get(rest, "items")) + 3,
                     json_array_size(all));
    for (i = 0; i < json_array_size(all) - 3; i++)
        ck_assert_str_eq(
            key_of(json_array_get(json_object_get(rest, "items"), i)),
            json_string_value(json_array_get(all, i + 3)));
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(rest, "items"),
                                        json_array_size(all) - 4),
                         "name")),
                     "A0");
    json_decref(rest);
    json_decref(all);
}
END_TEST

Suite *suite_lists(void)
{
    Suite *s = suite_create("lists");
    TCase *tc = tcase_create("lists");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_combats_are_paged);
    tcase_add_test(tc, test_units_are_paged_with_their_filters);
    tcase_add_test(tc, test_sides_battles_tables_are_paged);
    tcase_add_test(tc, test_bad_paging);
    tcase_add_test(tc, test_cursor_of_another_list);
    tcase_add_test(tc, test_cursor_while_writing);
    suite_add_tcase(s, tc);
    return s;
}
