/*
 * http_int.h: what http.c (the daemon and the request lifecycle) and
 * http_job.c (the work a request hands to other threads) share inside
 * server/http: the server's own state and the steps of a request's end.
 */
#ifndef UMPIRE_HTTP_INT_H
#define UMPIRE_HTTP_INT_H

#include "events_hub.h"
#include "http.h"
#include "http_conn.h"
#include "http_heavy.h"
#include "http_listen.h"
#include "http_log.h"
#include "notify.h"

#include <pthread.h>
#include <stdatomic.h>

#include <microhttpd.h>

struct http_server {
    http_config cfg;
    struct MHD_Daemon *daemon;
    http_listener *listener; /* the listening socket and umpire-accept */
    db *db;
    http_log *log;           /* the access log, or NULL when off */
    atomic_int n_in_flight;  /* requests between first call and completion */
    atomic_int n_pending;    /* requests suspended for a database write */
    atomic_int n_resuming;   /* write_done calls inside MHD_resume_connection */
    atomic_bool is_stopping; /* new requests are turned away (503) */
    notify *notify;          /* the poster of channel posts */
    events_hub *events;      /* live event streams and their pump */
    http_heavy *heavy;       /* the threads of long reads */
    http_heavy *odds;        /* the threads of the odds */
    http_streams *exports;   /* streamed ledger exports and their pump */
    int port;
    http_conn_table *conns; /* open connections (http_conn.h) */
    /* Idempotency keys of requests in flight, "scope\nkey" (idem.h). */
    pthread_mutex_t keys_lock;
    char **keys;
    size_t n_keys, cap_keys;
};

/* http.c: r freed, its handler's state with it (its idempotency key let
 * go first: http_release_key). */
void http_request_free(http_request *r);

/* http_job.c: */
/* r's write is no longer in flight: counted done, exactly once. */
void http_pending_end(http_request *r);
/* 503 service_stopping. */
void http_reply_stopping(http_request *r);
/* r's Idempotency-Key no longer in flight (http_claim_key); a no-op
 * unless r claimed one. */
void http_release_key(http_request *r);

#endif
