/*
 * idem.c: Idempotency-Key on the requests that roll dice; see idem.h.
 */
#include "idem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>
#include <sodium.h>

#include "rng.h"
#include "text.h"

/* A key is 1 to IDEM_KEY_MAX visible ASCII characters. */
static bool is_valid_key(const char *k)
{
    size_t n = strlen(k), i;

    if (n == 0 || n > IDEM_KEY_MAX)
        return false;
    for (i = 0; i < n; i++)
        if ((unsigned char)k[i] < 0x21 || (unsigned char)k[i] > 0x7e)
            return false;
    return true;
}

/* SHA-256 of what makes two requests the same: method, path and body. */
static void fingerprint(const http_request *r, char out[65])
{
    crypto_hash_sha256_state st;
    uint8_t h[crypto_hash_sha256_BYTES];

    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, (const unsigned char *)r->method,
                              strlen(r->method));
    crypto_hash_sha256_update(&st, (const unsigned char *)"\n", 1);
    crypto_hash_sha256_update(&st, (const unsigned char *)r->path,
                              strlen(r->path));
    crypto_hash_sha256_update(&st, (const unsigned char *)"\n", 1);
    if (r->body_len)
        crypto_hash_sha256_update(&st, (const unsigned char *)r->body,
                                  r->body_len);
    crypto_hash_sha256_final(&st, h);
    rng_hex(h, sizeof h, out);
}

/* Answers r with the stored response k (taking its body). */
static void replay(http_request *r, db_idem *k)
{
    http_reply_json_text(r, k->status, k->body);
    k->body = NULL;
    text_copy(r->location, sizeof r->location, k->location);
    r->render = k->render[0] ? http_render_kind(k->render) : HTTP_RENDER_NONE;
    r->is_replayed = true;
}

bool idem_begin(http_request *r)
{
    const char *key =
        MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, IDEM_HEADER);

    if (key == NULL)
        return true;
    return idem_begin_as(r, r->has_token ? r->token.id : "", key);
}

bool idem_begin_as(http_request *r, const char *scope, const char *key)
{
    db *d = http_db(r->srv);
    char since[DB_TIME_MAX];
    db_idem k;
    db_conn *c;
    err_info e;
    err_code rc;

    err_clear(&e);
    if (!is_valid_key(key)) {
        err_set(&e, ERR_INVALID, IDEM_HEADER,
                "an Idempotency-Key is 1 to %d visible ASCII characters",
                IDEM_KEY_MAX);
        http_reply_problem(r, &e);
        return false;
    }
    memset(&r->idem, 0, sizeof r->idem);
    text_copy(r->idem.scope, sizeof r->idem.scope, scope);
    text_copy(r->idem.key, sizeof r->idem.key, key);
    fingerprint(r, r->idem.fingerprint);
    if (!http_claim_key(r)) {
        http_reply_problem_raw(r, 409, "idempotency_in_flight", "Conflict",
                               "a request with this Idempotency-Key is still "
                               "being processed; retry shortly");
        return false;
    }
    /* Claimed: nothing with this key can land now but this request. */
    db_time_ago(IDEM_TTL, since);
    c = db_read_acquire(d);
    rc = db_idem_get(c, r->idem.scope, r->idem.key, since, &k, &e);
    db_read_release(d, c);
    if (rc == ERR_NOT_FOUND) {
        r->has_idem = true;
        return true;
    }
    if (rc == ERR_OK && strcmp(k.fingerprint, r->idem.fingerprint) != 0) {
        err_set(&e, ERR_INVALID, IDEM_HEADER,
                "this Idempotency-Key was used with another request (method, "
                "path or body); use a new key for a new request");
        http_reply_problem(r, &e);
    } else if (rc == ERR_OK) {
        replay(r, &k);
    } else {
        http_reply_problem(r, &e);
    }
    db_idem_cleanup(&k);
    return false;
}

err_code idem_store(db_conn *c, http_request *r, err_info *e)
{
    char oldest[DB_TIME_MAX];
    err_code rc;

    db_time_ago(IDEM_TTL, oldest);
    db_now(r->idem.created_at);
    r->idem.status = r->status;
    text_copy(r->idem.location, sizeof r->idem.location, r->location);
    text_copy(r->idem.render, sizeof r->idem.render,
              http_render_name(r->render));
    r->idem.body = r->resp_body;
    rc = db_idem_purge(c, oldest, e);
    if (rc == ERR_OK) {
        err_info got;
        err_clear(&got);
        rc = db_idem_insert(c, &r->idem, &got);
        if (rc == ERR_CONFLICT) /* the same key, landed meanwhile through
                                   another instance of the service */
            err_set(e, rc, "Idempotency-Key",
                    "a request with this Idempotency-Key landed first; "
                    "send it again to get its answer");
        else if (rc != ERR_OK && e != NULL && e->code == ERR_OK)
            *e = got;
    }
    r->idem.body = NULL; /* still the response's */
    return rc;
}
