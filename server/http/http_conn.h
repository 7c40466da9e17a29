/*
 * http_conn.h: the server's open connections, tracked so that slow and idle
 * clients cannot hold every slot (http.c wires it into libmicrohttpd).
 *
 * Each connection is in one state:
 *   - arriving: accepted, or a kept-alive connection whose next request
 *     line came in: its whole request (line, headers, body) must be in
 *     within request_timeout of the start, however the bytes trickle in
 *     (libmicrohttpd's own timeout restarts with every byte);
 *   - busy: its request is in, and is being handled or answered (a write
 *     waiting for its commit included): no deadline here;
 *   - streaming: its answer is a live event stream (http_stream.h), open
 *     for as long as the client stays: exempt from the request deadline,
 *     the keep-alive timeout and the giving up of idle connections (the
 *     stream's own keep-alives and hang-up watch look after it);
 *   - idle: answered and kept alive, waiting for its next request, for
 *     keepalive_timeout at most; when the open connections reach
 *     idle_close_percent of connection_limit, the idle ones are given up,
 *     longest idle first, until no more than about 80% are open.
 * A reaper thread ticks every 250 ms and closes what is over its time with
 * shutdown(2), which libmicrohttpd sees as the client going: it then closes
 * the connection itself (and calls the completed callback for a request it
 * had presented).  Every shutdown happens under the table's lock, and a
 * connection leaves the table (libmicrohttpd's "closed" notice) before
 * libmicrohttpd closes its socket, so a descriptor is never shut after it
 * could have been reused.
 */
#ifndef UMPIRE_HTTP_CONN_H
#define UMPIRE_HTTP_CONN_H

#include <stdbool.h>

#include <microhttpd.h>

typedef struct http_conn_table http_conn_table;

/* What the table enforces (from http_config; see http.h). */
typedef struct http_conn_limits {
    int request_timeout;    /* seconds for a whole request; 0 for none */
    int keepalive_timeout;  /* seconds idle between requests; 0 for none */
    int connection_limit;   /* the daemon's limit */
    int idle_close_percent; /* of connection_limit; 0 never gives up idle */
} http_conn_limits;

/* What the table has seen (http_conn_stats). */
typedef struct http_conn_counts {
    int n_open;                  /* connections open now */
    int n_idle;                  /* of them, idle between requests */
    unsigned long n_cut;         /* closed past their request deadline */
    unsigned long n_idle_closed; /* closed after keepalive_timeout idle */
    unsigned long n_given_up;    /* idle ones closed near the limit */
} http_conn_counts;

/* A new table with its reaper thread running, or NULL when out of memory
 * or threads.  Free with http_conn_table_free once libmicrohttpd has
 * stopped (or has stopped calling the hooks below). */
http_conn_table *http_conn_table_new(const http_conn_limits *limits);
/* Stops the reaper and frees what is left.  NULL allowed. */
void http_conn_table_free(http_conn_table *t);
/* Stops the reaper thread only (the table stays valid).  NULL allowed. */
void http_conn_table_stop_reaper(http_conn_table *t);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback (cls: the table). */
void http_conn_on_notify(void *cls, struct MHD_Connection *c,
                         void **socket_context,
                         enum MHD_ConnectionNotificationCode code);
/* libmicrohttpd's MHD_OPTION_URI_LOG_CALLBACK (cls: the table): a request
 * line came in.  Returns NULL (the access handler's first call still sees
 * no request state). */
void *http_conn_on_uri(void *cls, const char *uri, struct MHD_Connection *c);

/* c's request is all in (or being answered early): no deadline now. */
void http_conn_busy(http_conn_table *t, struct MHD_Connection *c);
/* c's answer is a live event stream: no deadline until it is done. */
void http_conn_stream(http_conn_table *t, struct MHD_Connection *c);
/* c's request is done: c waits idle for its next one. */
void http_conn_idle(http_conn_table *t, struct MHD_Connection *c);
/* Whether c was closed for being past its request deadline. */
bool http_conn_is_cut(http_conn_table *t, struct MHD_Connection *c);

void http_conn_stats(http_conn_table *t, http_conn_counts *out);

#endif
