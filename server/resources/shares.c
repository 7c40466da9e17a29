/*
 * shares.c: share links (docs/sharing.md).  The umpire opens one combat,
 * one battle or the whole campaign report to whoever holds a link, with
 * no token: links are made, listed and revoked under
 * /v1/campaigns/{campaign_id}/shares, and read at GET /v1/shared/{secret}
 * (the console's share page, GET /share/{secret}, reads it there).
 *
 * A link's secret is 32 random bytes in base64url (43 characters), shown
 * once, in the url of the answer that makes the link, and stored only as
 * the SHA-256 of its text, like a token; a list never shows it.  A
 * revoked or unknown secret answers 404, as does every secret the same
 * way, so an answer tells nothing about links that do not exist.
 *
 * A link reads as a viewer of its campaign holding no side: the public
 * read makes r->token such a viewer (no id, no side, not the umpire) and
 * asks the handlers of GET .../combats/{id}, .../battles/{id} and
 * .../report themselves for their answers, so that what is shared is what
 * those routes serve that viewer, never a copy kept apart.  Fog of war
 * comes with them: each of those handlers fogs its answer for its
 * request's viewer (fog_view_of, fog.h), here every side's units as the
 * campaign's "others" says.  The ledger part is GET .../ledger's export
 * cut at the report's last die (ledgers_send_part), streamed as the
 * export is, and left whole, as fog leaves it for players, so that every
 * die stays checkable.
 */
#include "shares.h"

#include "battles.h"
#include "combats.h"
#include "http.h"
#include "jsonb.h"
#include "jsonv.h"
#include "jsonw.h"
#include "ledgers.h"
#include "paging.h"
#include "report.h"
#include "reports.h"
#include "tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

/* The secret's text: 32 bytes as unpadded base64url, and its NUL. */
#define SECRET_BYTES 32
#define SECRET_MAX                                                             \
    sodium_base64_ENCODED_LEN(SECRET_BYTES,                                    \
                              sodium_base64_VARIANT_URLSAFE_NO_PADDING)

static const char *const kinds[] = {"combat", "battle", "campaign", NULL};

bool shares_is_secret(const char *s)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "abcdefghijklmnopqrstuvwxyz0123456789-_";

    return s != NULL && strlen(s) == SECRET_MAX - 1 &&
           strspn(s, alphabet) == SECRET_MAX - 1;
}

/* A link as the umpire's lists show it (new): never its secret. */
static json_t *share_json(const db_share *s)
{
    return json_pack("{s:s, s:s, s:o, s:o, s:s, s:o}", "id", s->id, "kind",
                     s->kind, "target_id", jsonb_str_or_null(s->target_id),
                     "note", jsonb_str_or_null(s->note), "created_at",
                     s->created_at, "revoked_at",
                     jsonb_str_or_null(s->revoked_at));
}

static void reply_oom(http_request *r)
{
    http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                           "out of memory");
}

/* ---- made ---- */

typedef struct share_new {
    db_share s;
    char secret[SECRET_MAX];
    char hash[65];
} share_new;

/* The link's target must be a combat or battle of its campaign. */
static err_code check_target(db_conn *c, const db_share *s, err_info *e)
{
    db_combat cb;
    db_battle b;
    err_code rc = ERR_OK;

    memset(&cb, 0, sizeof cb);
    memset(&b, 0, sizeof b);
    if (strcmp(s->kind, "combat") == 0) {
        rc = db_combat_get(c, s->target_id, &cb, e);
        if (rc == ERR_OK && strcmp(cb.campaign_id, s->campaign_id) != 0)
            rc = ERR_NOT_FOUND;
        db_combat_cleanup(&cb);
    } else if (strcmp(s->kind, "battle") == 0) {
        rc = db_battle_get(c, s->campaign_id, s->target_id, &b, e);
        db_battle_cleanup(&b);
    }
    if (rc != ERR_NOT_FOUND)
        return rc;
    err_clear(e);
    return err_set(e, ERR_INVALID, "id", "the campaign has no %s %s", s->kind,
                   s->target_id);
}

static err_code create_job(db_conn *c, void *arg, err_info *e)
{
    share_new *sn = arg;
    err_code rc;

    if ((rc = check_target(c, &sn->s, e)))
        return rc;
    return db_share_insert(c, &sn->s, sn->hash, e);
}

static void create_finish(http_request *r, err_code rc, const err_info *e)
{
    share_new *sn = r->state;
    char url[16 + SECRET_MAX];
    json_t *j;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    j = share_json(&sn->s);
    snprintf(url, sizeof url, "/share/%s", sn->secret);
    json_object_set_new(j, "url", json_string(url));
    snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/shares",
             sn->s.campaign_id);
    http_reply_json(r, 201, j);
}

/* The body: {"kind", "id" (a combat's or battle's; none for the
 * campaign), "note"?}. */
static err_code create_read(const json_t *body, db_share *s, err_info *e)
{
    static const char *const fields[] = {"kind", "id", "note", NULL};
    const char *id = NULL, *note = NULL;
    int kind = 0;
    err_code rc;

    if ((rc = jv_object_only(body, "", fields, e)) ||
        (rc = jv_enum(body, "", "kind", true, kinds, &kind, e)) ||
        (rc = jv_string(body, "", "id", kind != 2, DB_ID_MAX - 1, &id, e)) ||
        (rc = jv_string(body, "", "note", false, DB_SHARE_NOTE_MAX - 1, &note,
                        e)))
        return rc;
    if (kind == 2 && id != NULL)
        return err_set(e, ERR_INVALID, "id",
                       "a link to the campaign's report names no id");
    snprintf(s->kind, sizeof s->kind, "%s", kinds[kind]);
    snprintf(s->target_id, sizeof s->target_id, "%s", id ? id : "");
    snprintf(s->note, sizeof s->note, "%s", note ? note : "");
    return ERR_OK;
}

void shares_create(http_request *r)
{
    json_t *body = http_body_object(r);
    unsigned char raw[SECRET_BYTES];
    share_new *sn;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    sn = calloc(1, sizeof *sn);
    r->state = sn;
    r->state_free = free;
    if (sn == NULL) {
        json_decref(body);
        reply_oom(r);
        return;
    }
    if (create_read(body, &sn->s, &e) != ERR_OK) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    json_decref(body);
    db_new_id("shr", sn->s.id);
    snprintf(sn->s.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(sn->s.actor_token_id, DB_ID_MAX, "%s", r->token.id);
    db_now(sn->s.created_at);
    randombytes_buf(raw, sizeof raw);
    sodium_bin2base64(sn->secret, sizeof sn->secret, raw, sizeof raw,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(raw, sizeof raw);
    tokens_hash_hex(sn->secret, sn->hash);
    http_defer_write(r, create_job, create_finish);
}

/* ---- listed and revoked ---- */

static err_code shares_list_fetch(db_conn *c, const char *campaign_id,
                                  const db_page *pg, void **rows, size_t *n,
                                  err_info *e)
{
    db_share *ss = NULL;
    err_code rc = db_shares_page(c, campaign_id, pg, &ss, n, e);

    *rows = ss;
    return rc;
}

static json_t *shares_list_item(const void *row)
{
    return share_json((const db_share *)row);
}

static const char *shares_list_cursor(const void *row)
{
    return ((const db_share *)row)->id;
}

void shares_list(http_request *r)
{
    static const paging_list list = {shares_list_fetch, sizeof(db_share),
                                     shares_list_item, shares_list_cursor,
                                     NULL};

    paging_serve(r, &list);
}

typedef struct share_revoke {
    char campaign_id[DB_ID_MAX];
    char id[DB_ID_MAX];
    char at[DB_TIME_MAX];
    db_share s; /* as revoked */
} share_revoke;

static err_code revoke_job(db_conn *c, void *arg, err_info *e)
{
    share_revoke *sr = arg;

    return db_share_revoke(c, sr->campaign_id, sr->id, sr->at, &sr->s, e);
}

static void revoke_finish(http_request *r, err_code rc, const err_info *e)
{
    if (rc != ERR_OK)
        http_reply_err(r, rc, e);
    else
        http_reply_no_content(r);
}

void shares_delete(http_request *r)
{
    share_revoke *sr;
    err_info e;

    err_clear(&e);
    if (strlen(r->params[1]) >= DB_ID_MAX) {
        err_set(&e, ERR_NOT_FOUND, NULL, "the campaign has no such share link");
        http_reply_problem(r, &e);
        return;
    }
    sr = calloc(1, sizeof *sr);
    r->state = sr;
    r->state_free = free;
    if (sr == NULL) {
        reply_oom(r);
        return;
    }
    snprintf(sr->campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(sr->id, DB_ID_MAX, "%s", r->params[1]);
    db_now(sr->at);
    http_defer_write(r, revoke_job, revoke_finish);
}

/* ---- read through a link ---- */

/* Runs handler as the GET of the link's campaign and target (with_target)
 * would run, for the viewer r->token is; its answer's JSON (new) and
 * render kind, or NULL with r answered (its problem, or a 500).  r's path
 * parameters are its own again afterwards. */
static json_t *ask(http_request *r, void (*handler)(http_request *),
                   db_share *s, bool with_target, http_render *kind)
{
    char *params[2] = {r->params[0], r->params[1]};
    int n_params = r->n_params;
    json_t *doc;

    r->params[0] = s->campaign_id;
    r->params[1] = s->target_id;
    r->n_params = with_target ? 2 : 1;
    handler(r);
    r->params[0] = params[0];
    r->params[1] = params[1];
    r->n_params = n_params;
    if (!r->is_ready || r->status != 200) {
        if (!r->is_ready)
            http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                                   "the shared read was not answered");
        return NULL;
    }
    doc = json_loadb(r->resp_body ? r->resp_body : "", r->resp_len, 0, NULL);
    if (kind != NULL)
        *kind = r->render;
    r->render = HTTP_RENDER_NONE;
    if (doc == NULL)
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "the shared report is malformed");
    return doc;
}

/* How far the shared report's dice reach in the campaign's ledger, into
 * *first and *last, and the hash of the entry at *last into head: a
 * combat's first and last entries (its report's "ledger"), the whole chain
 * the campaign's report read (from 1), a battle's first and last actions'
 * entries (read from the store); *first and *last 0 (head 64 zeros) for
 * none.  false with r answered. */
static bool ledger_reach(http_request *r, http_render kind,
                         const json_t *report, const db_share *s,
                         long long *first, long long *last,
                         char head[LEDGER_HASH_HEX])
{
    const json_t *l = NULL, *f = NULL;
    const char *h = NULL;

    *first = *last = 0;
    snprintf(head, LEDGER_HASH_HEX, "%s", ledger_genesis);
    if (kind == HTTP_RENDER_BATTLE) {
        db *d = http_db(r->srv);
        db_conn *c = db_read_acquire(d);
        err_info e;
        err_code rc;

        err_clear(&e);
        rc = db_battle_ledger_reach(c, s->campaign_id, s->target_id, first,
                                    last, head, &e);
        db_read_release(d, c);
        if (rc != ERR_OK) {
            http_reply_err(r, rc, &e);
            return false;
        }
        if (*last <= 0 || *first <= 0 || *first > *last) {
            *first = *last = 0;
            snprintf(head, LEDGER_HASH_HEX, "%s", ledger_genesis);
        }
        return true;
    }
    if (kind == HTTP_RENDER_COMBAT) {
        l = json_object_get(report, "ledger");
        h = json_string_value(json_object_get(l, "hash"));
        f = json_object_get(l, "first_pos");
        l = json_object_get(l, "last_pos");
    } else if (kind == HTTP_RENDER_CAMPAIGN) {
        l = json_object_get(json_object_get(report, "campaign"), "ledger");
        h = json_string_value(json_object_get(l, "head"));
        l = json_object_get(l, "length");
    }
    if (!json_is_integer(l) || json_integer_value(l) <= 0)
        return true;
    if (h == NULL || strlen(h) != LEDGER_HASH_HEX - 1 ||
        (f != NULL && (!json_is_integer(f) || json_integer_value(f) <= 0 ||
                       json_integer_value(f) > json_integer_value(l)))) {
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "the shared report's ledger is malformed");
        return false;
    }
    *last = (long long)json_integer_value(l);
    *first = f != NULL ? (long long)json_integer_value(f) : 1;
    memcpy(head, h, LEDGER_HASH_HEX);
    return true;
}

/* The answer (shares_shared's table in docs/sharing.md), report the
 * text its route answered: up to the '[' that opens its ledger part's
 * entries, which the export's stream goes on from; or, for a part of no
 * entry (last 0), whole.  after: the position its entries come after
 * (?ledger=own), written as "after"; below 0, none is written (the whole
 * answer, from entry 1).
 * New; NULL when out of memory. */
static char *answer_text(const db_share *s, const db_campaign *cmp,
                         const char *report, long long after, long long last,
                         const char *head)
{
    jw w;

    jw_init(&w);
    jw_object(&w);
    jw_kstring(&w, "kind", s->kind);
    jw_key(&w, "campaign");
    jw_object(&w);
    jw_kstring(&w, "id", cmp->id);
    jw_kstring(&w, "name", cmp->name);
    jw_object_end(&w);
    jw_kstring(&w, "created_at", s->created_at);
    jw_key(&w, "report");
    jw_raw(&w, report, strlen(report));
    jw_key(&w, "ledger");
    jw_object(&w);
    jw_kint(&w, "length", last);
    jw_kstring(&w, "head", head);
    if (after >= 0)
        jw_kint(&w, "after", after);
    jw_key(&w, "entries");
    if (last > 0) {
        jw_raw(&w, "[", 1);
        return jw_take(&w, NULL);
    }
    jw_raw(&w, "[]", 2);
    jw_key(&w, "seeds");
    jw_raw(&w, "[]", 2);
    jw_object_end(&w);
    jw_object_end(&w);
    return jw_take(&w, NULL);
}

/* The link of r's secret and its campaign; false with r answered. */
static bool find_link(http_request *r, db_share *s, db_campaign *cmp)
{
    db *d = http_db(r->srv);
    db_conn *c;
    char hash[65];
    err_info e;
    err_code rc;

    err_clear(&e);
    if (!shares_is_secret(r->params[0])) {
        /* As an unknown secret answers, without a look. */
        err_set(&e, ERR_NOT_FOUND, NULL,
                "no share link has this secret (or it was revoked)");
        http_reply_problem(r, &e);
        return false;
    }
    tokens_hash_hex(r->params[0], hash);
    c = db_read_acquire(d);
    rc = db_share_find(c, hash, s, &e);
    if (rc == ERR_OK)
        rc = db_campaign_get(c, s->campaign_id, cmp, &e);
    db_read_release(d, c);
    if (rc != ERR_OK)
        http_reply_problem(r, &e);
    return rc == ERR_OK;
}

/* ?ledger: "all" (the default: the entries from position 1) or "own"
 * (*is_own: from the shared record's first entry); false with e set, as
 * the export's ?seeds (ledgers.c) and the lists' filters read theirs. */
static bool parse_ledger(http_request *r, bool *is_own, err_info *e)
{
    const char *v = http_query(r, "ledger");

    *is_own = v != NULL && strcmp(v, "own") == 0;
    if (v == NULL || *is_own || strcmp(v, "all") == 0)
        return true;
    err_set(e, ERR_INVALID, "ledger",
            "ledger is \"all\" (the entries from position 1, the default) "
            "or \"own\" (from the shared record's first entry), not "
            "\"%.40s\"",
            v);
    return false;
}

void shares_shared(http_request *r)
{
    static void (*const handlers[])(http_request *) = {
        combats_get_campaign, battles_get, reports_campaign};
    db_share s;
    db_campaign cmp;
    http_render kind = HTTP_RENDER_NONE;
    char head[LEDGER_HASH_HEX], *text;
    long long first, last, after;
    bool is_own;
    err_info e;
    json_t *report;
    int k;

    err_clear(&e);
    if (!parse_ledger(r, &is_own, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    if (!find_link(r, &s, &cmp))
        return;
    for (k = 0; kinds[k] && strcmp(kinds[k], s.kind) != 0; k++)
        ;
    if (kinds[k] == NULL) {
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "the share link's kind is unknown");
        return;
    }
    /* A viewer of the campaign holding no side: the handlers asked below
     * fog their answers for it (fog.h: every side is "others"). */
    memset(&r->token, 0, sizeof r->token);
    snprintf(r->token.campaign_id, DB_ID_MAX, "%s", s.campaign_id);
    r->has_token = true;
    /* Refused before the report is read when no ledger part could stream
     * now (the service's exports, or the links', are full). */
    if (r->format == REPORT_JSON && !ledgers_part_may(r))
        return;
    if ((report = ask(r, handlers[k], &s, k != 2, &kind)) == NULL)
        return;
    if (r->format != REPORT_JSON) {
        /* Markdown or HTML: the report itself, rendered as its route
         * renders it (http_reply.c), its links to this share page. */
        char url[160];
        snprintf(url, sizeof url, "/share/%s", r->params[0]);
        json_object_set_new(report, "share_url", json_string(url));
        http_reply_json(r, 200, report);
        r->render = kind;
        return;
    }
    if (!ledger_reach(r, kind, report, &s, &first, &last, head)) {
        json_decref(report);
        return;
    }
    /* From position 1, or (?ledger=own) from the record's first entry:
     * the entries after the one before it. */
    after = !is_own ? -1 : last > 0 ? first - 1 : 0;
    /* The report as its route wrote it (still r's answer), not written
     * again from its parse. */
    json_decref(report);
    if ((text = answer_text(&s, &cmp, r->resp_body ? r->resp_body : "{}", after,
                            last, head)) == NULL) {
        reply_oom(r);
        return;
    }
    if (last <= 0) {
        http_reply_json_text(r, 200, text);
    } else {
        /* The entries from position 1 (or after after) and their
         * records' seeds, streamed as the ledger's export is (ledgers.h):
         * neither this thread nor memory holds the campaign's whole
         * ledger.  A combat's own part is read by its id: a few rows,
         * however long the campaign. */
        ledgers_send_part(r, cmp.id,
                          is_own && kind == HTTP_RENDER_COMBAT ? s.target_id
                                                               : NULL,
                          after > 0 ? after : 0, last, text);
        free(text);
    }
    /* Vary: Accept, as every answer that renders (no-op in JSON); not on
     * a refusal. */
    if (r->status == 200)
        r->render = kind;
}
