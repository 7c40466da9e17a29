/*
 * tokens.c: who a bearer token is (GET /v1/token), and a campaign's
 * tokens reissued and listed (docs/sharing.md, "Reissuing a token").
 *
 * GET /v1/token: a client holding only a token (the console, a chat bot)
 * learns from it which campaign to call; the router has checked the token
 * (ROUTER_TOKEN) and left it in r->token.
 *
 * A reissue (the umpire's) replaces the umpire token or a side's player
 * token: one writer job revokes the live token of that role and side and
 * stores its successor's hash, so the old token is refused (401) from the
 * commit on, and the answer, written after that commit, is the only place
 * the new secret is ever shown.  Every issue is listed, without secrets.
 */
#include "tokens.h"
#include "jsonb.h"
#include "http.h"
#include "jsonv.h"
#include "paging.h"
#include "digest.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

void tokens_get(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    db_campaign cmp;
    db_side side;
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_campaign_get(c, r->token.campaign_id, &cmp, &e);
    if (rc == ERR_OK && !r->token.is_umpire)
        rc = db_side_find(c, r->token.campaign_id, r->token.side_id, &side, &e);
    db_read_release(d, c);
    if (rc != ERR_OK) {
        /* A valid token's campaign and side exist: one missing is the
         * database's fault, not the caller's. */
        if (rc == ERR_NOT_FOUND) {
            err_clear(&e);
            err_set(&e, ERR_INTERNAL, NULL, "the token's %s is missing",
                    r->token.is_umpire ? "campaign" : "campaign or side");
        }
        http_reply_problem(r, &e);
        return;
    }
    http_reply_json(
        r, 200,
        json_pack("{s:s, s:s, s:s, s:o, s:o}", "campaign_id", cmp.id,
                  "campaign_name", cmp.name, "role",
                  r->token.is_umpire ? "umpire" : "player", "side_id",
                  jsonb_str_or_null(r->token.side_id), "side_name",
                  r->token.is_umpire ? json_null() : json_string(side.name)));
}

void tokens_hash_hex(const char *secret, char hash_hex[65])
{
    uint8_t h[DIGEST_SHA256_BYTES];

    digest_sha256(secret, strlen(secret), NULL, 0, h);
    rng_hex(h, sizeof h, hash_hex);
}

void tokens_new(const char *prefix, char token[TOKENS_MAX], char hash_hex[65])
{
    uint8_t raw[24];
    size_t n;

    randombytes_buf(raw, sizeof raw);
    n = (size_t)snprintf(token, TOKENS_MAX, "%s_", prefix);
    sodium_bin2hex(token + n, TOKENS_MAX - n, raw, sizeof raw);
    tokens_hash_hex(token, hash_hex);
}

/* ---- reissue ---- */

typedef struct token_reissue {
    db_token tok;                /* the new token: id, campaign, role, side */
    char side_ref[DB_NAME_MAX];  /* the side as the body named it */
    char side_name[DB_NAME_MAX]; /* found by the job */
    char secret[TOKENS_MAX];
    char hash[65];
    char issued_at[DB_TIME_MAX];
} token_reissue;

static err_code reissue_job(db_conn *c, void *arg, err_info *e)
{
    token_reissue *tr = arg;
    db_side side;
    err_code rc;

    if (!tr->tok.is_umpire) {
        rc = db_side_find(c, tr->tok.campaign_id, tr->side_ref, &side, e);
        if (rc == ERR_NOT_FOUND) {
            err_clear(e);
            return err_set(e, ERR_INVALID, "side",
                           "the campaign has no side \"%s\"", tr->side_ref);
        }
        if (rc != ERR_OK)
            return rc;
        snprintf(tr->tok.side_id, DB_ID_MAX, "%s", side.id);
        snprintf(tr->side_name, DB_NAME_MAX, "%s", side.name);
    }
    return db_token_reissue(c, &tr->tok, tr->hash, tr->issued_at, e);
}

static json_t *side_or_null(const char *id, const char *name)
{
    if (id == NULL || id[0] == '\0')
        return json_null();
    return json_pack("{s:s, s:s}", "id", id, "name", name);
}

static void reissue_finish(http_request *r, err_code rc, const err_info *e)
{
    token_reissue *tr = r->state;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/tokens",
             tr->tok.campaign_id);
    http_reply_json(r, 201,
                    json_pack("{s:s, s:s, s:o, s:s, s:s}", "id", tr->tok.id,
                              "role", tr->tok.is_umpire ? "umpire" : "player",
                              "side",
                              side_or_null(tr->tok.side_id, tr->side_name),
                              "token", tr->secret, "issued_at", tr->issued_at));
}

/* The body: {"role": "umpire"} or {"role": "player", "side": ...}. */
static err_code reissue_read(const json_t *body, token_reissue *tr, err_info *e)
{
    static const char *const fields[] = {"role", "side", NULL};
    static const char *const roles[] = {"umpire", "player", NULL};
    const char *side = NULL;
    int role = 0;
    err_code rc;

    if ((rc = jv_object_only(body, "", fields, e)) ||
        (rc = jv_enum(body, "", "role", true, roles, &role, e)) ||
        (rc =
             jv_string(body, "", "side", role == 1, DB_NAME_MAX - 1, &side, e)))
        return rc;
    if (role == 0 && side != NULL)
        return err_set(e, ERR_INVALID, "side",
                       "the umpire's token belongs to no side: give side "
                       "only with role player");
    tr->tok.is_umpire = role == 0;
    if (side != NULL)
        snprintf(tr->side_ref, sizeof tr->side_ref, "%s", side);
    return ERR_OK;
}

void tokens_reissue(http_request *r)
{
    json_t *body = http_body_object(r);
    token_reissue *tr;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    tr = calloc(1, sizeof *tr);
    r->state = tr;
    r->state_free = free;
    if (tr == NULL) {
        json_decref(body);
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "out of memory");
        return;
    }
    if (reissue_read(body, tr, &e) != ERR_OK) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    json_decref(body);
    db_new_id("tok", tr->tok.id);
    snprintf(tr->tok.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    db_now(tr->issued_at);
    tokens_new(tr->tok.is_umpire ? "ump" : "ply", tr->secret, tr->hash);
    http_defer_write(r, reissue_job, reissue_finish);
}

/* ---- the list of issues ---- */

static json_t *issue_json(const db_token_issue *t)
{
    return json_pack("{s:s, s:s, s:o, s:s, s:s, s:o}", "id", t->id, "role",
                     t->is_umpire ? "umpire" : "player", "side",
                     side_or_null(t->side_id, t->side_name), "issued_at",
                     t->issued_at, "issued_by",
                     t->is_by_umpire ? "umpire" : "creation", "revoked_at",
                     jsonb_str_or_null(t->revoked_at));
}

static err_code tokens_list_fetch(db_conn *c, const char *campaign_id,
                                  const db_page *pg, void **rows, size_t *n,
                                  err_info *e)
{
    db_token_issue *ts = NULL;
    err_code rc = db_token_issues_page(c, campaign_id, pg, &ts, n, e);

    *rows = ts;
    return rc;
}

static json_t *tokens_list_item(const void *row)
{
    return issue_json((const db_token_issue *)row);
}

static const char *tokens_list_cursor(const void *row)
{
    return ((const db_token_issue *)row)->id;
}

void tokens_list(http_request *r)
{
    static const paging_list list = {tokens_list_fetch, sizeof(db_token_issue),
                                     tokens_list_item, tokens_list_cursor,
                                     NULL};

    paging_serve(r, &list);
}
