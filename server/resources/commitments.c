/*
 * commitments.c: one-off commitments (docs/dice.md): a seed drawn and
 * committed ahead of the one-off combat that cites it, and its status
 * (unused, used by a combat, expired).  A campaign's next commitment is
 * the campaign's (campaigns.c); the writer claims a cited one
 * (combat_insert_job).
 */
#include "commitments.h"

#include "combat.h"
#include "jsonb.h"
#include "jsonv.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* t + seconds as db_now writes times; t is such a time. */
static void time_after(const char *t, long seconds, char out[DB_TIME_MAX])
{
    struct tm tm;
    time_t when;

    memset(&tm, 0, sizeof tm);
    if (sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
               &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
        text_copy(out, DB_TIME_MAX, t);
        return;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    when = timegm(&tm) + seconds;
    gmtime_r(&when, &tm);
    strftime(out, DB_TIME_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + strlen(out), DB_TIME_MAX - strlen(out), "%s",
             strlen(t) > 19 ? t + 19 : "Z");
}

static json_t *commitment_json(const db_commitment *k)
{
    char expires[DB_TIME_MAX], oldest[DB_TIME_MAX], url[160], used_url[160];
    bool is_used = k->used_by[0] != '\0';
    const char *status;

    /* Expired by the rule combat_cite applies. */
    time_after(k->created_at, COMBAT_COMMITMENT_TTL, expires);
    db_time_ago(COMBAT_COMMITMENT_TTL, oldest);
    status = is_used                             ? "used"
             : strcmp(k->created_at, oldest) < 0 ? "expired"
                                                 : "unused";
    snprintf(url, sizeof url, "/v1/commitments/%s", k->commitment);
    snprintf(used_url, sizeof used_url, "/v1/combats/%s", k->used_by);
    return json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:o, s:s}", "commitment",
                     k->commitment, "created_at", k->created_at, "status",
                     status, "expires_at",
                     is_used ? json_null() : json_string(expires), "rng",
                     RNG_VERSION, "used_by",
                     is_used ? json_pack("{s:s, s:s}", "combat_id", k->used_by,
                                         "url", used_url)
                             : json_null(),
                     "used_at", jsonb_str_or_null(k->used_at), "url", url);
}

typedef struct commitment_job {
    db_commitment k;
} commitment_job;

static err_code commitment_create_job(db_conn *c, void *arg, err_info *e)
{
    commitment_job *j = arg;
    char oldest[DB_TIME_MAX];
    err_code rc;

    /* Unused one-off commitments past their time go as new ones come. */
    db_time_ago(COMBAT_COMMITMENT_TTL, oldest);
    if ((rc = db_commitments_purge(c, oldest, e)))
        return rc;
    return db_commitment_new(c, NULL, &j->k, e);
}

static void commitment_create_finish(http_request *r, err_code rc,
                                     const err_info *e)
{
    commitment_job *j = r->state;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    snprintf(r->location, sizeof r->location, "/v1/commitments/%s",
             j->k.commitment);
    http_reply_json(r, 201, commitment_json(&j->k));
}

void commitments_create(http_request *r)
{
    commitment_job *j;
    json_t *body = NULL;
    err_info e;

    err_clear(&e);
    if (r->body_len > 0) {
        static const char *const fields[] = {NULL};
        if ((body = http_body_object(r)) == NULL)
            return;
        if (jv_object_only(body, "", fields, &e)) {
            json_decref(body);
            http_reply_problem(r, &e);
            return;
        }
        json_decref(body);
    }
    j = calloc(1, sizeof *j);
    if (j == NULL) {
        err_set(&e, ERR_NOMEM, NULL, "out of memory");
        http_reply_problem(r, &e);
        return;
    }
    r->state = j;
    r->state_free = free;
    http_defer_write(r, commitment_create_job, commitment_create_finish);
}

void commitments_get(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    db_commitment k;
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_commitment_get(c, r->params[0], &k, &e);
    db_read_release(d, c);
    if (rc == ERR_OK && k.campaign_id[0])
        rc = ERR_NOT_FOUND; /* a campaign's: shown by the campaign */
    if (rc == ERR_NOT_FOUND) {
        err_clear(&e);
        err_set(&e, ERR_NOT_FOUND, NULL,
                "no one-off commitment %s (an unused one expires after %d "
                "hours)",
                r->params[0], COMBAT_COMMITMENT_TTL / 3600);
    }
    if (rc != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    http_reply_json(r, 200, commitment_json(&k));
}
