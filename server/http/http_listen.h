/*
 * http_listen.h: the listening socket and the thread that accepts on it.
 *
 * libmicrohttpd's own accepting lets every worker thread of its pool watch
 * the listening socket; whichever wakes first takes up to ten new
 * connections in a row, and again while more are waiting.  A burst of
 * clients (a proxy's pool, a benchmark's connections) then lands unevenly:
 * `make bench`'s 64 connections, opened at once, left one of two workers
 * without a single one for the whole run in two runs of three.  A worker
 * serves its own connections only, so the busy one queues requests while
 * the other idles.
 *
 * So the server listens itself.  One thread (umpire-accept) accepts and
 * hands each connection to libmicrohttpd with MHD_add_connection, which
 * gives it to the worker its socket number names (the number modulo the
 * workers): consecutive sockets go to consecutive workers, so a burst is
 * shared evenly (the kernel gives a new socket the lowest free number, so
 * over time it is even as the numbers freed are).  At the connection limit
 * the thread stops accepting, as libmicrohttpd does; everything else (the
 * per-IP limit, timeouts) stays libmicrohttpd's.
 * The daemon must be started with MHD_USE_NO_LISTEN_SOCKET and
 * MHD_USE_ITC, with http_listen_daemon_limit's connection limit, and with
 * http_listener_on_notify as its connection notification (or called from
 * it).
 *
 * libmicrohttpd counts a worker's connections only once the worker has
 * taken them up, and refuses one that then finds its worker at its share
 * of the limit (the limit / the workers) -- in 0.9.75 without letting go
 * of a lock, so that the worker hangs for good.  A burst handed over
 * faster than the workers take it up, several to one worker, would reach
 * that while the server as a whole had room.  So the limit is the
 * thread's to keep, for all the workers together, counting every
 * connection from the moment it is handed over until it closes (the
 * workers report each one taken up and closed; one libmicrohttpd closes
 * before it is taken up, unreported, the thread finds gone by its
 * socket), and each worker's share is more than the whole limit.
 *
 * This file needs only the C library and libmicrohttpd: the bare server of
 * `make bench` (bench/bare.c) listens through it too, as the server does.
 */
#ifndef UMPIRE_HTTP_LISTEN_H
#define UMPIRE_HTTP_LISTEN_H

#include <stdbool.h>
#include <sys/socket.h>

#include <microhttpd.h>

typedef struct http_listener http_listener;

/*
 * Binds addr (an IPv4 or IPv6 address and port; port 0 takes a free one)
 * with SO_REUSEADDR, an IPv6 address for IPv6 alone, and listens.  The
 * listener in *out and the port it took in *port; false with errno set
 * (EADDRINUSE: the port is taken).
 */
bool http_listener_open(const struct sockaddr_storage *addr,
                        http_listener **out, int *port);

/* The connection limit to give libmicrohttpd (MHD_OPTION_CONNECTION_LIMIT)
 * for the server's limit over `workers` threads: each worker's share is
 * the whole limit and a margin; the accepting thread keeps the limit
 * itself (see above). */
unsigned http_listen_daemon_limit(unsigned connection_limit, unsigned workers);

/*
 * Starts the accepting thread, which hands every connection to d; false
 * with errno set when the thread cannot start (EINVAL: a limit of 0).
 * connection_limit is the server's, 1 or more: while d holds that many,
 * the thread accepts nothing and new connections wait in the backlog, as
 * with libmicrohttpd's own accepting.
 */
bool http_listener_start(http_listener *l, struct MHD_Daemon *d,
                         unsigned connection_limit);

/* The daemon's MHD_OPTION_NOTIFY_CONNECTION callback, cls the listener
 * (or to be called from the daemon's own): a worker has taken up a
 * connection handed to it (MHD_CONNECTION_NOTIFY_STARTED), or one has
 * closed (MHD_CONNECTION_NOTIFY_CLOSED).  The thread counts the
 * connections open, those in transit included, from these; it must hear
 * of both for every connection it handed over that a worker took up.  A
 * NULL listener is a no-op. */
void http_listener_on_notify(void *cls, struct MHD_Connection *c,
                             void **socket_context,
                             enum MHD_ConnectionNotificationCode code);

/* Connections accepted so far: handed to libmicrohttpd (one it refused,
 * at a limit, counted too), or closed at once for want of memory to note
 * it. */
unsigned long http_listener_accepted(const http_listener *l);

/* Stops accepting and waits for the thread, then closes the socket: call
 * it before MHD_stop_daemon (the thread must not hand a connection to a
 * stopped daemon).  Again, or NULL, a no-op. */
void http_listener_stop(http_listener *l);

/* Stops l if it is not stopped, and frees it: after MHD_stop_daemon (the
 * workers report to http_listener_on_notify until then).  NULL is a no-op. */
void http_listener_free(http_listener *l);

#endif
