/*
 * notify_rig.h: the rig of the poster's tests (test_notify.c): a stand-in
 * for Discord, an HTTP server on 127.0.0.1 port 0 (libmicrohttpd) that
 * answers each POST as a script says (204, 429 with Retry-After, a 5xx,
 * slowly) and records what it was sent; a port where nobody listens; and
 * an umpire server whose poster posts to the stand-in, with waits scaled
 * down so that the tests are quick.
 *
 * JSON a helper returns is new: the caller decrefs it.  Helpers abort the
 * test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_NOTIFY_RIG_H
#define UMPIRE_TESTS_NOTIFY_RIG_H

#include <stddef.h>

#include <jansson.h>

#include "harness.h"
#include "notify.h"

/* One answer of the script. */
typedef struct rcv_step {
    int status;
    const char *headers; /* "Name: value" lines, '\n'-separated, or NULL */
    const char *body;    /* or NULL for none */
    int delay_ms;        /* waited before answering (a slow Discord) */
} rcv_step;

/* One request received. */
typedef struct rcv_request {
    char method[8];
    char path[256];
    char content_type[64];
    char *body; /* owned by the receiver */
    double at;  /* when it came, monotonic seconds */
} rcv_request;

typedef struct receiver receiver;

/* Starts a receiver that answers the i-th POST with steps[i], and every
 * one after the last with the last (n_steps 0: 204 always). */
receiver *rcv_start(const rcv_step *steps, size_t n_steps);
int rcv_port(const receiver *r);
/* Stops it (cutting its delays short). NULL ok. */
void rcv_stop(receiver *r);
/* Waits until n requests came or timeout_ms passed; the count then. */
int rcv_wait(receiver *r, int n, int timeout_ms);
/* The i-th request (a copy; rcv_request_cleanup). */
void rcv_get(receiver *r, int i, rcv_request *out);
void rcv_request_cleanup(rcv_request *q);

/* A port of 127.0.0.1 where nobody listens. */
int rcv_dead_port(void);

/* The webhook every test campaign is given, and its parts. */
#define NRIG_HOOK_ID "112233445566778899"
#define NRIG_TOKEN   "tok_EN-abcdefghijklmnopqrstuvwxyz0123456789"
#define NRIG_URL     "https://discord.com/api/webhooks/" NRIG_HOOK_ID "/" NRIG_TOKEN

/* The poster's settings of the tests: base http://127.0.0.1:port/api
 * (valid until the next call: start the server before), backoff 20 ms
 * doubling up to 200 ms, 3 tries, tries of 300 ms, no logging. */
void nrig_config(notify_config *cfg, int port);

/* An umpire server with the poster set as cfg says (ts_stop stops it);
 * cfg's base must name a loopback receiver or dead port. */
test_server *nrig_server(const notify_config *cfg);

/* Stops ts's server, keeping its database, and starts another on it
 * with the poster set as cfg says: what a restart of the service does. */
void nrig_restart(test_server *ts, const notify_config *cfg);

/* A campaign (sides red and blue, units R1 R2 of red, B1 of blue) given
 * the webhook NRIG_URL. */
void nrig_campaign(test_server *ts, test_campaign *c);

/* Resolves a SCRUD combat of the campaign, asserting 201 within
 * max_ms; its id into id (64 bytes). */
void nrig_combat(test_server *ts, const test_campaign *c, int max_ms,
                 char id[64]);

/* The campaign's "webhook" as GET /v1/campaigns/{id} shows it (new; NULL
 * for JSON null). */
json_t *nrig_webhook(test_server *ts, const test_campaign *c);

/* Waits until the campaign's webhook counts n posts settled (delivered
 * and failed) with none pending, or timeout_ms passed; the webhook
 * then (new). */
json_t *nrig_wait_settled(test_server *ts, const test_campaign *c, long long n,
                          int timeout_ms);

/* Monotonic seconds. */
double nrig_now(void);

#endif
