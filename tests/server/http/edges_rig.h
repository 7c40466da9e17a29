/*
 * edges_rig.h: what the edge-case tests of the HTTP layer (test_edges.c)
 * share: a server started with any http_config, and raw client sockets
 * that send a byte at a time, read one response on a kept-alive
 * connection, or wait for the server to close.
 */
#ifndef UMPIRE_TESTS_EDGES_RIG_H
#define UMPIRE_TESTS_EDGES_RIG_H

#include <stdbool.h>
#include <stddef.h>

#include <check.h>

#include "harness.h"

/* The suite's other test cases (test_edges_text.c, test_edges_stop.c,
 * test_edges_heavy.c). */
void edges_add_text_tests(TCase *tc);
void edges_add_stop_tests(TCase *tc);
void edges_add_heavy_tests(TCase *tc); /* test_edges_heavy.c */

/* cfg with the harness's test settings: port 0, access log off, the
 * defaults otherwise (edges_start fills in the database). */
void edges_config(http_config *cfg);
/* Starts a server with cfg over a fresh database (ts_stop stops it). */
test_server *edges_start(http_config *cfg);

/* Monotonic seconds. */
double edges_now(void);

/* A connected TCP socket to ts from the local address src ("127.0.0.1",
 * "127.0.0.2", ...), or -1 when src cannot be bound or connect fails. */
int edges_connect(const test_server *ts, const char *src);
/* Sends all of data; false when the server has closed. */
bool edges_send(int fd, const char *data, size_t len);
bool edges_send_str(int fd, const char *text);
/* A connection to ts that has sent one slow odds request: POST
 * /v1/odds/scrud, a small SCRUD combat sampled samples times (500,000: a
 * fraction of a second of work here; well inside the odds' 5 s bound
 * under the sanitizers too, where a million took about 3 s each while the
 * machine was busy with other work, and met it); -1 if it could not. */
int edges_send_slow_odds(const test_server *ts, long samples);

/*
 * Reads one response (its headers, then Content-Length bytes) within
 * timeout seconds into out (parsed as the harness parses, body as JSON
 * when it is JSON); 0 on success, -1 when the connection closed or the
 * time ran out first.
 */
int edges_read_one(int fd, double timeout, http_resp *out);

/* What edges_read_to_close saw. */
typedef struct edges_end {
    bool is_closed;  /* the server closed (end of stream or reset) */
    double after;    /* seconds from the call until then */
    size_t n_bytes;  /* bytes read before */
    char head[4096]; /* the first of them, NUL-terminated */
} edges_end;

/* Reads until the server closes or timeout seconds pass. */
void edges_read_to_close(int fd, double timeout, edges_end *out);

/* Polls the server's statistics until ok(stats, arg) or timeout seconds;
 * returns whether it held. */
bool edges_wait_stats(test_server *ts, double timeout,
                      bool (*ok)(const http_stats *st, int arg), int arg);
bool edges_n_pending_is(const http_stats *st, int n);
bool edges_n_connections_is(const http_stats *st, int n);

#endif
