/*
 * test_events_http.c: tests server/resources/events.c, events_hub.c and
 * the streaming of server/http/http_stream.c through real HTTP, with a
 * raw socket client (events_rig.h): a combat made through the API
 * arrives on an open stream with its id; a battle created and acted on;
 * a stream resumed with Last-Event-ID replays exactly the events it
 * missed, in order, then goes on live; the 5th stream of a token gets 429
 * with Retry-After, the service's cap 503; a client that leaves is
 * noticed at once and the server still stops within its bound; the
 * keep-alive comment; a stream outlives the request deadline and the
 * idle timeout; the requests refused; a player's stream under fog of war.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>

#include "edges_rig.h"
#include "events.h"
#include "events_rig.h"
#include "harness.h"
#include "suites.h"

static const char *const sides[] = {"red", "blue", NULL};

/* A server whose keep-alive comes after keepalive_ms. */
static test_server *start(int keepalive_ms, int events_limit)
{
    http_config cfg;

    edges_config(&cfg);
    cfg.events_keepalive_ms = keepalive_ms;
    if (events_limit > 0)
        cfg.events_limit = events_limit;
    return edges_start(&cfg);
}

/* A SCRUD combat of the red unit red against the blue unit blue: its
 * id. */
static void fight(test_server *ts, const test_campaign *c, const char *red,
                  const char *blue, char id[64])
{
    char path[128];
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c->id);
    j = ts_call(ts, 201, "POST", path, c->umpire,
                "{\"sides\":[{\"side\":\"red\",\"units\":[{\"unit\":\"%s\"}]},"
                "{\"side\":\"blue\",\"units\":[{\"unit\":\"%s\"}]}]}",
                red, blue);
    snprintf(id, 64, "%s", json_string_value(json_object_get(j, "id")));
    json_decref(j);
}

/* A combat of two new units: its id. */
static void combat(test_server *ts, const test_campaign *c, char id[64])
{
    static int n;
    char red[16], blue[16];

    snprintf(red, sizeof red, "R%d", ++n);
    snprintf(blue, sizeof blue, "B%d", n);
    ts_unit(ts, c, red, "red", 0, 6, NULL);
    ts_unit(ts, c, blue, "blue", 0, 6, NULL);
    fight(ts, c, red, blue, id);
}

/* The next event, which must be of kind, within 5 s (cleanup: caller). */
static void expect_event(events_client *s, const char *kind, events_block *b)
{
    ck_assert_msg(events_next_event(s, 5.0, b), "no %s event within 5 s", kind);
    ck_assert_msg(strcmp(b->kind, kind) == 0, "a %s event, not %s: %s", kind,
                  b->kind, b->data ? b->data : "");
    ck_assert_ptr_nonnull(b->json);
    ck_assert_int_gt(b->id, 0);
}

/* Reads events until one of kind (within 5 s); its id. */
static long long skip_to(events_client *s, const char *kind, events_block *b)
{
    for (;;) {
        ck_assert_msg(events_next_event(s, 5.0, b), "no %s event", kind);
        if (strcmp(b->kind, kind) == 0)
            return b->id;
        events_block_cleanup(b);
    }
}

static bool n_streams_is(const http_stats *st, int n)
{
    return st->n_streams == n;
}

START_TEST(test_combat_arrives_with_its_id)
{
    test_server *ts = start(15000, 0);
    events_client s;
    events_block b;
    test_campaign c;
    char id[64], v[80], r1[64], b1[64], url[160], path[256];
    const char *units[2] = {r1, b1}, *names[2] = {"R1", "B1"};
    long long last;
    json_t *page;
    int k;

    ts_campaign(ts, &c, NULL, sides);
    ck_assert_int_eq(events_open(&s, ts, c.id, NULL, c.umpire, NULL), 200);
    ck_assert(strstr(s.head, "Content-Type: text/event-stream") != NULL);
    ck_assert(strstr(s.head, "X-Accel-Buffering: no") != NULL);
    ck_assert(strstr(s.head, "Transfer-Encoding: chunked") != NULL);
    ck_assert(events_next(&s, 5.0, &b) && b.has_retry); /* it begins */
    events_block_cleanup(&b);
    ts_unit(ts, &c, "R1", "red", 0, 6, r1);
    expect_event(&s, "unit", &b);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "unit_id")), r1);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "kind")),
                     "created");
    last = b.id;
    events_block_cleanup(&b);
    ts_unit(ts, &c, "B1", "blue", 0, 6, b1);
    expect_event(&s, "unit", &b);
    ck_assert_int_gt(b.id, last);
    events_block_cleanup(&b);
    fight(ts, &c, "R1", "B1", id);
    expect_event(&s, "combat", &b);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "combat_id")),
                     id);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "system")),
                     "scrud");
    ck_assert_ptr_nonnull(
        json_string_value(json_object_get(b.json, "summary")));
    snprintf(url, sizeof url, "/v1/campaigns/%s/combats/%s", c.id, id);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "url")), url);
    events_block_cleanup(&b);
    /* Its dice in the ledger, then each unit's history event of it. */
    expect_event(&s, "ledger", &b);
    ck_assert_int_ge(json_integer_value(json_object_get(b.json, "length")), 2);
    snprintf(v, sizeof v, "%s",
             json_string_value(json_object_get(b.json, "head")));
    ck_assert_uint_eq(strlen(v), 64);
    events_block_cleanup(&b);
    /* Whole, as its history serves it: the states and the result the
     * combat keeps for its events (migration 14), each unit's own, and
     * its own rolls of the combat's (the stream keeps the combat's for
     * the events of its units that follow). */
    for (k = 0; k < 2; k++) {
        expect_event(&s, "unit", &b);
        ck_assert_str_eq(
            json_string_value(json_object_get(b.json, "combat_id")), id);
        ck_assert_str_eq(json_string_value(json_object_get(b.json, "unit_id")),
                         units[k]);
        ck_assert_str_eq(json_string_value(json_object_get(
                             json_object_get(b.json, "after"), "name")),
                         names[k]);
        ck_assert(json_is_object(json_object_get(b.json, "before")));
        ck_assert_str_eq(json_string_value(json_object_get(
                             json_object_get(b.json, "result"), "system")),
                         "scrud");
        ck_assert_str_eq(json_string_value(json_object_get(
                             json_object_get(b.json, "result"), "unit")),
                         names[k]);
        snprintf(path, sizeof path,
                 "/v1/campaigns/%s/units/%s/history?order=newest&limit=1", c.id,
                 units[k]);
        page = ts_call(ts, 200, "GET", path, c.umpire, NULL);
        ck_assert_uint_ge(json_array_size(json_object_get(b.json, "rolls")), 1);
        ck_assert(json_equal(
            json_object_get(b.json, "rolls"),
            json_object_get(json_array_get(json_object_get(page, "items"), 0),
                            "rolls")));
        json_decref(page);
        events_block_cleanup(&b);
    }
    events_close(&s);
    ts_stop(ts);
}
END_TEST

/* Matrix units Rifles (red) and Jaeger (blue), and a battle of them: its
 * id. */
static void battle(test_server *ts, const test_campaign *c, char id[64])
{
    char path[128];
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s/units", c->id);
    json_decref(ts_call(ts, 201, "POST", path, c->umpire,
                        "{\"name\":\"Rifles\",\"side\":\"red\","
                        "\"matrix\":{}}"));
    json_decref(ts_call(ts, 201, "POST", path, c->umpire,
                        "{\"name\":\"Jaeger\",\"side\":\"blue\","
                        "\"matrix\":{}}"));
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c->id);
    j = ts_call(ts, 201, "POST", path, c->umpire,
                "{\"turn\":1,\"attacker\":{\"side\":\"red\",\"units\":"
                "[\"Rifles\"]},\"defender\":{\"side\":\"blue\",\"units\":"
                "[\"Jaeger\"]},\"line\":[{\"attacker\":[\"Rifles\"],"
                "\"defender\":[\"Jaeger\"]}]}");
    snprintf(id, 64, "%s", json_string_value(json_object_get(j, "id")));
    json_decref(j);
}

START_TEST(test_battle_action_arrives)
{
    test_server *ts = start(15000, 0);
    events_client s;
    events_block b;
    test_campaign c;
    char id[64], path[160];

    ts_campaign(ts, &c, NULL, sides);
    ck_assert_int_eq(events_open(&s, ts, c.id, NULL, c.player[1], NULL), 200);
    battle(ts, &c, id);
    skip_to(&s, "battle", &b);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "battle_id")),
                     id);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "system")),
                     "matrix");
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "status")),
                     "open");
    ck_assert_int_eq(json_integer_value(json_object_get(b.json, "n_actions")),
                     0);
    events_block_cleanup(&b);
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s/actions", c.id,
             id);
    json_decref(ts_call(ts, 200, "POST", path, c.umpire,
                        "{\"action\":\"roll\",\"combat\":0,"
                        "\"expect_actions\":0}"));
    expect_event(&s, "battle", &b);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "battle_id")),
                     id);
    ck_assert_int_eq(json_integer_value(json_object_get(b.json, "n_actions")),
                     1);
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s", c.id, id);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "url")), path);
    events_block_cleanup(&b);
    expect_event(&s, "ledger", &b); /* the action's dice */
    events_block_cleanup(&b);
    /* Abandoned: the action, then the battle's new status. */
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s/actions", c.id,
             id);
    json_decref(
        ts_call(ts, 200, "POST", path, c.umpire, "{\"action\":\"abandon\"}"));
    skip_to(&s, "battle", &b);
    ck_assert_int_eq(json_integer_value(json_object_get(b.json, "n_actions")),
                     2);
    events_block_cleanup(&b);
    skip_to(&s, "battle", &b);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "status")),
                     "abandoned");
    events_block_cleanup(&b);
    events_close(&s);
    ts_stop(ts);
}
END_TEST

/* Up to n events (comments skipped) until none comes for wait seconds:
 * their texts "id kind data" into out (each new). */
static int collect(events_client *s, char **out, int n, double wait)
{
    events_block b;
    int k = 0;

    while (k < n && events_next_event(s, wait, &b)) {
        size_t len = strlen(b.data) + 64;
        out[k] = malloc(len);
        ck_assert_ptr_nonnull(out[k]);
        snprintf(out[k++], len, "%lld %s %s", b.id, b.kind, b.data);
        events_block_cleanup(&b);
    }
    return k;
}

static void free_all(char **texts, int n)
{
    while (n > 0)
        free(texts[--n]);
}

START_TEST(test_resume_replays_what_was_missed)
{
    test_server *ts = start(15000, 0);
    events_client all, one, again;
    events_block b;
    test_campaign c;
    char *seen[64], *replayed[64], id[64], hdr[64];
    long long last;
    int n_seen, n_replayed, i;

    ts_campaign(ts, &c, NULL, sides);
    /* The reference: a stream that never leaves. */
    ck_assert_int_eq(events_open(&all, ts, c.id, NULL, c.umpire, NULL), 200);
    ck_assert_int_eq(events_open(&one, ts, c.id, NULL, c.player[0], NULL), 200);
    combat(ts, &c, id);
    last = skip_to(&one, "combat", &b);
    events_block_cleanup(&b);
    events_close(&one); /* it leaves, having seen up to the combat */
    combat(ts, &c, id);
    ts_unit(ts, &c, "Reserve", "red", 0, 6, NULL);
    combat(ts, &c, id);
    n_seen = collect(&all, seen, 64, 1.0);
    snprintf(hdr, sizeof hdr, "Last-Event-ID: %lld\r\n", last);
    ck_assert_int_eq(events_open(&again, ts, c.id, NULL, c.player[0], hdr),
                     200);
    /* Exactly the events after last, in order: as the stream that never
     * left saw them. */
    for (i = 0; i < n_seen && strtoll(seen[i], NULL, 10) <= last; i++)
        ;
    n_replayed = collect(&again, replayed, 64, 1.0);
    ck_assert_int_eq(n_replayed, n_seen - i);
    ck_assert_int_gt(n_replayed, 5);
    for (int k = 0; k < n_replayed; k++)
        ck_assert_str_eq(replayed[k], seen[i + k]);
    /* Then live. */
    combat(ts, &c, id);
    skip_to(&again, "combat", &b);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "combat_id")),
                     id);
    ck_assert_int_gt(b.id, strtoll(replayed[n_replayed - 1], NULL, 10));
    events_block_cleanup(&b);
    free_all(seen, n_seen);
    free_all(replayed, n_replayed);
    events_close(&again);
    events_close(&all);
    ts_stop(ts);
}
END_TEST

/* ?last_event_id= too, and a Last-Event-ID header wins over it (a
 * browser reconnects to the same URL with the header). */
START_TEST(test_resume_by_query)
{
    test_server *ts = start(15000, 0);
    events_client s;
    events_block b;
    test_campaign c;

    ts_campaign(ts, &c, NULL, sides);
    ts_unit(ts, &c, "R1", "red", 0, 6, NULL);
    ts_unit(ts, &c, "B1", "blue", 0, 6, NULL);
    ck_assert_int_eq(
        events_open(&s, ts, c.id, "last_event_id=0", c.umpire, NULL), 200);
    expect_event(&s, "unit", &b);
    ck_assert_int_eq(b.id, 1); /* the whole log */
    events_block_cleanup(&b);
    events_close(&s);
    ck_assert_int_eq(events_open(&s, ts, c.id, "last_event_id=0", c.umpire,
                                 "Last-Event-ID: 1\r\n"),
                     200);
    expect_event(&s, "unit", &b);
    ck_assert_int_eq(b.id, 2);
    events_block_cleanup(&b);
    events_close(&s);
    ts_stop(ts);
}
END_TEST

START_TEST(test_fifth_stream_of_a_token_is_refused)
{
    test_server *ts = start(15000, 0);
    events_client s[EVENTS_PER_TOKEN + 1], other;
    test_campaign c;
    char retry[16];
    http_resp h = {0};
    int i;

    ts_campaign(ts, &c, NULL, sides);
    for (i = 0; i < EVENTS_PER_TOKEN; i++)
        ck_assert_int_eq(events_open(&s[i], ts, c.id, NULL, c.umpire, NULL),
                         200);
    ck_assert_int_eq(events_open(&s[i], ts, c.id, NULL, c.umpire, NULL), 429);
    h.head = s[i].head;
    ck_assert_int_eq(ts_header(&h, "Retry-After", retry, sizeof retry), 1);
    ck_assert_int_gt(atoi(retry), 0);
    ck_assert_str_eq(json_string_value(json_object_get(s[i].problem, "code")),
                     "too_many_streams");
    events_close(&s[i]);
    /* Another token is counted apart. */
    ck_assert_int_eq(events_open(&other, ts, c.id, NULL, c.player[0], NULL),
                     200);
    ck_assert(edges_wait_stats(ts, 2.0, n_streams_is, EVENTS_PER_TOKEN + 1));
    /* One leaves: its place is free again. */
    events_close(&s[0]);
    ck_assert(edges_wait_stats(ts, 2.0, n_streams_is, EVENTS_PER_TOKEN));
    ck_assert_int_eq(events_open(&s[0], ts, c.id, NULL, c.umpire, NULL), 200);
    for (i = 0; i < EVENTS_PER_TOKEN; i++)
        events_close(&s[i]);
    events_close(&other);
    ts_stop(ts);
}
END_TEST

START_TEST(test_service_cap)
{
    test_server *ts = start(15000, 2);
    events_client a, b, d;
    test_campaign c;
    http_resp h = {0};
    char retry[16];

    ts_campaign(ts, &c, NULL, sides);
    ck_assert_int_eq(events_open(&a, ts, c.id, NULL, c.umpire, NULL), 200);
    ck_assert_int_eq(events_open(&b, ts, c.id, NULL, c.player[0], NULL), 200);
    ck_assert_int_eq(events_open(&d, ts, c.id, NULL, c.player[1], NULL), 503);
    h.head = d.head;
    ck_assert_int_eq(ts_header(&h, "Retry-After", retry, sizeof retry), 1);
    ck_assert_str_eq(json_string_value(json_object_get(d.problem, "code")),
                     "streams_full");
    events_close(&a);
    events_close(&b);
    events_close(&d);
    ts_stop(ts);
}
END_TEST

/* With a keep-alive of 15 s, a client that leaves is noticed by its
 * socket's hang-up, not by a failed write: its stream is gone at once. */
START_TEST(test_client_that_leaves_is_cleaned_up)
{
    test_server *ts = start(15000, 0);
    events_client gone, stays;
    events_block b;
    test_campaign c;
    double t0;

    ts_campaign(ts, &c, NULL, sides);
    ck_assert_int_eq(events_open(&gone, ts, c.id, NULL, c.umpire, NULL), 200);
    ck_assert_int_eq(events_open(&stays, ts, c.id, NULL, c.umpire, NULL), 200);
    ck_assert(events_next(&gone, 5.0, &b)); /* mid-stream */
    events_block_cleanup(&b);
    ck_assert(edges_wait_stats(ts, 2.0, n_streams_is, 2));
    events_close(&gone);
    ck_assert_msg(edges_wait_stats(ts, 2.0, n_streams_is, 1),
                  "the stream of a client that left is still open");
    ts_unit(ts, &c, "R1", "red", 0, 6, NULL); /* the other goes on */
    expect_event(&stays, "unit", &b);
    events_block_cleanup(&b);
    /* Stopping ends the stream left, cleanly, within the stop's bound. */
    t0 = edges_now();
    ts_stop(ts);
    ck_assert_double_lt(edges_now() - t0, 5.0);
    ck_assert_msg(events_wait_end(&stays, 2.0), "the stream did not end");
    events_close(&stays);
}
END_TEST

START_TEST(test_keep_alive_comment)
{
    test_server *ts = start(200, 0);
    events_client s;
    events_block b;
    test_campaign c;
    double t0 = edges_now();

    ts_campaign(ts, &c, NULL, sides);
    ck_assert_int_eq(events_open(&s, ts, c.id, NULL, c.player[0], NULL), 200);
    do
        ck_assert_msg(events_next(&s, 2.0, &b), "no keep-alive within 2 s");
    while (b.comment[0] == '\0' && (events_block_cleanup(&b), true));
    ck_assert_str_eq(b.comment, " keep-alive");
    ck_assert_double_lt(edges_now() - t0, 2.0);
    events_block_cleanup(&b);
    events_close(&s);
    ts_stop(ts);
}
END_TEST

/* A stream is exempt from the request deadline and the idle timeout
 * (http_conn.h): it outlives both, and still gets events. */
START_TEST(test_stream_outlives_deadlines)
{
    http_config cfg;
    test_server *ts;
    events_client s;
    events_block b;
    test_campaign c;
    http_stats st;
    double end;

    edges_config(&cfg);
    cfg.request_timeout = 1;
    cfg.keepalive_timeout = 1;
    cfg.events_keepalive_ms = 300;
    ts = edges_start(&cfg);
    ts_campaign(ts, &c, NULL, sides);
    ck_assert_int_eq(events_open(&s, ts, c.id, NULL, c.umpire, NULL), 200);
    for (end = edges_now() + 2.5; edges_now() < end;) {
        ck_assert_msg(events_next(&s, 1.0, &b), "the stream went quiet");
        events_block_cleanup(&b);
    }
    ts_unit(ts, &c, "R1", "red", 0, 6, NULL);
    expect_event(&s, "unit", &b);
    events_block_cleanup(&b);
    http_stats_read(ts->srv, &st);
    ck_assert_uint_eq(st.n_cut, 0);
    ck_assert_int_eq(st.n_streams, 1);
    events_close(&s);
    ts_stop(ts);
}
END_TEST

/* A request of the route as raw text: its status. */
static int raw_status(test_server *ts, const char *req, http_resp *r)
{
    ck_assert_int_eq(ts_raw(ts, req, strlen(req), r), 0);
    return r->status;
}

START_TEST(test_refusals)
{
    test_server *ts = start(15000, 0);
    events_client s;
    test_campaign c, other;
    char req[512];
    http_resp r;

    ts_campaign(ts, &c, NULL, sides);
    ts_campaign(ts, &other, NULL, sides);
    /* No Accept, or one that does not take the stream: 406. */
    snprintf(req, sizeof req,
             "GET /v1/campaigns/%s/events HTTP/1.1\r\nHost: x\r\n"
             "Authorization: Bearer %s\r\nConnection: close\r\n\r\n",
             c.id, c.umpire);
    ck_assert_int_eq(raw_status(ts, req, &r), 406);
    http_resp_cleanup(&r);
    snprintf(req, sizeof req,
             "GET /v1/campaigns/%s/events HTTP/1.1\r\nHost: x\r\n"
             "Authorization: Bearer %s\r\nAccept: application/json, "
             "text/event-stream;q=0\r\nConnection: close\r\n\r\n",
             c.id, c.umpire);
    ck_assert_int_eq(raw_status(ts, req, &r), 406);
    http_resp_cleanup(&r);
    /* HEAD: the stream's headers, no stream. */
    snprintf(req, sizeof req,
             "HEAD /v1/campaigns/%s/events HTTP/1.1\r\nHost: x\r\n"
             "Authorization: Bearer %s\r\nAccept: */*\r\n"
             "Connection: close\r\n\r\n",
             c.id, c.umpire);
    ck_assert_int_eq(raw_status(ts, req, &r), 200);
    ck_assert_str_eq(r.content_type, "text/event-stream");
    http_resp_cleanup(&r);
    /* Not an event's id: 422 naming it. */
    ck_assert_int_eq(
        events_open(&s, ts, c.id, NULL, c.umpire, "Last-Event-ID: 12x\r\n"),
        422);
    ck_assert_str_eq(json_string_value(json_object_get(s.problem, "field")),
                     "last_event_id");
    events_close(&s);
    ck_assert_int_eq(
        events_open(&s, ts, c.id, "last_event_id=-1", c.umpire, NULL), 422);
    events_close(&s);
    /* Tokens: another campaign's, none valid. */
    ck_assert_int_eq(events_open(&s, ts, c.id, NULL, other.umpire, NULL), 403);
    events_close(&s);
    ck_assert_int_eq(events_open(&s, ts, c.id, NULL, "nope", NULL), 401);
    events_close(&s);
    ck_assert_int_eq(events_open(&s, ts, c.id, "format=md", c.umpire, NULL),
                     406);
    events_close(&s);
    ts_stop(ts);
}
END_TEST

/* A player's stream under fog of war with others "hidden": the other
 * side's units' events are left out, its own side's are not; the umpire's
 * stream shows both. */
START_TEST(test_player_stream_under_fog)
{
    test_server *ts = start(15000, 0);
    events_client red, ump;
    events_block b;
    test_campaign c;
    char path[128], r2[64], b2[64];
    int n_red = 0;

    ts_campaign(ts, &c, NULL, sides);
    snprintf(path, sizeof path, "/v1/campaigns/%s", c.id);
    json_decref(ts_call(ts, 200, "PATCH", path, c.umpire,
                        "{\"options\":{\"fog\":{\"enabled\":true,"
                        "\"others\":\"hidden\"}}}"));
    ck_assert_int_eq(events_open(&red, ts, c.id, NULL, c.player[0], NULL), 200);
    ck_assert_int_eq(events_open(&ump, ts, c.id, NULL, c.umpire, NULL), 200);
    ts_unit(ts, &c, "B2", "blue", 0, 6, b2);
    ts_unit(ts, &c, "R2", "red", 0, 6, r2);
    expect_event(&ump, "unit", &b);
    ck_assert_str_eq(json_string_value(json_object_get(b.json, "unit_id")), b2);
    events_block_cleanup(&b);
    expect_event(&ump, "unit", &b);
    events_block_cleanup(&b);
    while (events_next_event(&red, 1.0, &b)) {
        ck_assert_str_eq(b.kind, "unit");
        ck_assert_str_eq(json_string_value(json_object_get(b.json, "unit_id")),
                         r2);
        n_red++;
        events_block_cleanup(&b);
    }
    ck_assert_int_eq(n_red, 1);
    events_close(&red);
    events_close(&ump);
    ts_stop(ts);
}
END_TEST

/* A replay longer than a batch of the hub (64 events) comes whole and in
 * order, then the stream goes on live. */
START_TEST(test_long_replay)
{
    test_server *ts = start(15000, 0);
    events_client s;
    events_block b;
    test_campaign c;
    char name[16];
    long long last = 0;
    int i;

    ts_campaign(ts, &c, NULL, sides);
    for (i = 0; i < 150; i++) {
        snprintf(name, sizeof name, "U%d", i);
        ts_unit(ts, &c, name, i % 2 ? "red" : "blue", 0, 6, NULL);
    }
    ck_assert_int_eq(
        events_open(&s, ts, c.id, "last_event_id=0", c.player[1], NULL), 200);
    for (i = 0; i < 150; i++) {
        expect_event(&s, "unit", &b);
        ck_assert_int_gt(b.id, last);
        last = b.id;
        snprintf(name, sizeof name, "U%d", i);
        ck_assert_str_eq(json_string_value(json_object_get(
                             json_object_get(b.json, "after"), "name")),
                         name);
        events_block_cleanup(&b);
    }
    ts_unit(ts, &c, "Last", "red", 0, 6, NULL);
    expect_event(&s, "unit", &b);
    ck_assert_int_gt(b.id, last);
    events_block_cleanup(&b);
    events_close(&s);
    ts_stop(ts);
}
END_TEST

/* A token reissued: the streams of the old one end at once, the new one
 * opens its own. */
START_TEST(test_reissued_token_ends_its_streams)
{
    test_server *ts = start(15000, 0);
    events_client old, ump, fresh;
    events_block b;
    test_campaign c;
    char path[128], token[128];
    json_t *j;

    ts_campaign(ts, &c, NULL, sides);
    ck_assert_int_eq(events_open(&old, ts, c.id, NULL, c.player[0], NULL), 200);
    ck_assert_int_eq(events_open(&ump, ts, c.id, NULL, c.umpire, NULL), 200);
    snprintf(path, sizeof path, "/v1/campaigns/%s/tokens", c.id);
    j = ts_call(ts, 201, "POST", path, c.umpire,
                "{\"role\":\"player\",\"side\":\"red\"}");
    snprintf(token, sizeof token, "%s",
             json_string_value(json_object_get(j, "token")));
    json_decref(j);
    ck_assert_msg(events_wait_end(&old, 2.0), "the old token's stream is on");
    ck_assert_int_eq(events_open(&fresh, ts, c.id, NULL, token, NULL), 200);
    ts_unit(ts, &c, "R1", "red", 0, 6, NULL);
    expect_event(&fresh, "unit", &b); /* the revocation is no event */
    events_block_cleanup(&b);
    expect_event(&ump, "unit", &b);
    events_block_cleanup(&b);
    ck_assert(!ump.is_ended);
    events_close(&old);
    events_close(&ump);
    events_close(&fresh);
    ts_stop(ts);
}
END_TEST

Suite *suite_events_http(void)
{
    Suite *s = suite_create("events_http");
    TCase *tc = tcase_create("events_http");

    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_combat_arrives_with_its_id);
    tcase_add_test(tc, test_battle_action_arrives);
    tcase_add_test(tc, test_resume_replays_what_was_missed);
    tcase_add_test(tc, test_resume_by_query);
    tcase_add_test(tc, test_long_replay);
    tcase_add_test(tc, test_fifth_stream_of_a_token_is_refused);
    tcase_add_test(tc, test_service_cap);
    tcase_add_test(tc, test_client_that_leaves_is_cleaned_up);
    tcase_add_test(tc, test_keep_alive_comment);
    tcase_add_test(tc, test_stream_outlives_deadlines);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_player_stream_under_fog);
    tcase_add_test(tc, test_reissued_token_ends_its_streams);
    return s;
}
