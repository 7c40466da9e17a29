/*
 * tokens.c: GET /v1/token, who a bearer token is: its campaign, its
 * role and, for a player, its side.  A client holding only a token (the
 * console, a chat bot) learns from it which campaign to call.  The router
 * has checked the token (ROUTER_TOKEN) and left it in r->token.
 */
#include "tokens.h"
#include "jsonb.h"
#include "http.h"

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
