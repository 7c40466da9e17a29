/*
 * discord_odds.c: the odds from Discord; see discord_odds.h.  The answer
 * is the odds routes' own (pipeline_odds), shown as percentages with the
 * exact fraction beside them where it is short, within the reply
 * module's limits; the whole answer is one POST away (the footer says
 * which route).
 *
 * They are worked out on the odds' own threads (http_defer_odds), as the
 * odds routes are, not on the request worker that read the interaction:
 * an odds request may take seconds (its time limit is 5), and a request
 * worker held so long holds every connection it serves.  With the odds'
 * queue full, the interaction is answered at once with the service's
 * 503 busy as a notice (discord_http_reshape); one that waited there
 * longer than wait_max_ms is answered busy too rather than worked out:
 * Discord waits 3 s for an answer, and drops one that comes later.
 */
#include "discord_odds.h"

#include "deadline.h"
#include "discord_combat.h"
#include "discord_reply.h"
#include "pipeline.h"
#include "systems.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The longest an interaction's odds may wait for the odds' threads and
 * still be worked out (discord_odds_set_wait_max). */
static int wait_max_ms = DISCORD_ODDS_WAIT_MAX_MS;

void discord_odds_set_wait_max(int ms)
{
    wait_max_ms = ms;
}

static const json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(get(o, k));
    return s ? s : "?";
}

/* A probability {"fraction", "decimal"} or {"decimal", "se"} as text. */
static void prob(char *out, size_t n, const json_t *p)
{
    double d = json_number_value(get(p, "decimal"));
    const char *f = json_string_value(get(p, "fraction"));

    if (f != NULL && strlen(f) <= 24)
        snprintf(out, n, "%.1f%% (%s)", d * 100.0, f);
    else if (json_is_number(get(p, "se")))
        snprintf(out, n, "%.1f%% \xC2\xB1%.1f", d * 100.0,
                 json_number_value(get(p, "se")) * 100.0);
    else
        snprintf(out, n, "%.1f%%", d * 100.0);
}

/* Appends a line to buf (n bytes), its text made safe for Markdown where
 * it comes from a name. */
static void line(char *buf, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void line(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;

    if (len + 1 >= n)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
    len = strlen(buf);
    if (len + 1 < n) {
        buf[len] = '\n';
        buf[len + 1] = '\0';
    }
}

static void md(char *out, size_t n, const char *s)
{
    discord_reply_md(out, n, s ? s : "?");
}

static void footer(char *out, size_t n, const json_t *a, const char *cid)
{
    char how[160];

    if (json_is_true(get(a, "exact")) && json_is_string(get(a, "throws")) &&
        strcmp(str(a, "throws"), "0"))
        snprintf(how, sizeof how, "Exact: %s throws counted", str(a, "throws"));
    else if (json_is_true(get(a, "exact")))
        snprintf(how, sizeof how, "Exact");
    else
        snprintf(how, sizeof how,
                 "Monte Carlo: %lld samples (\xC2\xB1 one "
                 "standard error)",
                 (long long)json_integer_value(get(a, "samples")));
    snprintf(out, n,
             "%s \xC2\xB7 nothing rolled \xC2\xB7 the whole answer: POST "
             "/v1/campaigns/%s/odds/%s",
             how, cid ? cid : "{id}", str(a, "system"));
}

static void scrud(discord_embed *em, const json_t *a)
{
    const json_t *sides = get(a, "sides"), *more = get(a, "more_defeats");
    char text[2048] = "", p[96], name[128],
         value[DISCORD_REPLY_FIELD_VALUE_MAX];
    const json_t *side, *u;
    size_t s, i;

    md(name, sizeof name, str(json_array_get(sides, 0), "name"));
    prob(p, sizeof p, get(more, "first"));
    line(text, sizeof text, "**%s** more defeats: %s", name, p);
    md(name, sizeof name, str(json_array_get(sides, 1), "name"));
    prob(p, sizeof p, get(more, "second"));
    line(text, sizeof text, "**%s** more defeats: %s", name, p);
    prob(p, sizeof p, get(more, "equal"));
    line(text, sizeof text, "Equal defeats: %s", p);
    discord_reply_embed_text(em, text);
    json_array_foreach(sides, s, side)
    {
        char title[160];
        value[0] = '\0';
        json_array_foreach(get(side, "units"), i, u)
        {
            md(name, sizeof name, str(u, "name"));
            prob(p, sizeof p, get(u, "eliminated"));
            line(value, sizeof value, "%s: eliminated %s", name, p);
        }
        snprintf(title, sizeof title, "%s: each unit's elimination",
                 str(side, "name"));
        discord_reply_embed_field(em, title, value, false);
    }
}

static void edna(discord_embed *em, const json_t *a)
{
    const json_t *u, *within;
    char name[128], p1[96], p2[96], p3[96], value[512];
    size_t i;

    json_array_foreach(get(a, "units"), i, u)
    {
        value[0] = '\0';
        prob(p1, sizeof p1, get(u, "passed"));
        prob(p2, sizeof p2, get(u, "failed"));
        prob(p3, sizeof p3, get(u, "ineffective_now"));
        line(value, sizeof value, "Pass %s\nFail %s\nIneffective now %s", p1,
             p2, p3);
        within =
            json_array_get(get(u, "ineffective_within"),
                           json_array_size(get(u, "ineffective_within")) - 1);
        if (within != NULL) {
            prob(p1, sizeof p1, get(within, "p"));
            line(value, sizeof value, "Ineffective within %lld tests %s",
                 (long long)json_integer_value(get(within, "tests")), p1);
        }
        snprintf(name, sizeof name, "%s (EDNA %lld)", str(u, "name"),
                 (long long)json_integer_value(get(u, "edna")));
        discord_reply_embed_field(em, name, value, true);
    }
}

static void scs(discord_embed *em, const json_t *a)
{
    const json_t *r;
    char text[3072] = "", name[160], p[96];
    size_t i;

    md(name, sizeof name, str(get(a, "table"), "name"));
    line(text, sizeof text, "Table **%s**", name);
    json_array_foreach(get(a, "results"), i, r)
    {
        md(name, sizeof name, str(r, "result"));
        prob(p, sizeof p, get(r, "p"));
        line(text, sizeof text, "%s: %s", name, p);
    }
    discord_reply_embed_text(em, text);
}

static void matrix_results(char *buf, size_t n, const json_t *results)
{
    const json_t *r;
    char p[96];
    size_t i;

    json_array_foreach(results, i, r)
    {
        double d = json_number_value(get(get(r, "p"), "decimal"));
        if (d <= 0.0 && !json_is_number(get(get(r, "p"), "se")))
            continue;
        prob(p, sizeof p, get(r, "p"));
        if (json_is_string(get(r, "loser")))
            line(buf, n, "%s %s: %s", str(r, "loser"), str(r, "result"), p);
        else
            line(buf, n, "%s: %s", str(r, "result"), p);
    }
}

static void matrix(discord_embed *em, const json_t *a, int combat)
{
    const json_t *cb = NULL, *c, *w;
    char text[2048] = "", value[1024] = "", p[96];
    size_t i;

    json_array_foreach(get(a, "combats"), i,
                       c) if ((int)json_integer_value(get(c, "index")) ==
                              combat) cb = c;
    if (cb != NULL) {
        line(text, sizeof text, "Combat %d, before its roll:", combat + 1);
        matrix_results(text, sizeof text, get(cb, "results"));
        if (json_is_object(get(cb, "if_reserve_joins"))) {
            char title[160];
            matrix_results(value, sizeof value,
                           get(get(cb, "if_reserve_joins"), "results"));
            snprintf(title, sizeof title, "If %s joins",
                     str(get(cb, "if_reserve_joins"), "unit"));
            discord_reply_embed_field(em, title, value, false);
        }
    }
    discord_reply_embed_text(em, text);
    w = get(get(a, "battle"), "winner");
    value[0] = '\0';
    prob(p, sizeof p, get(w, "attacker"));
    line(value, sizeof value, "Attacker %s", p);
    prob(p, sizeof p, get(w, "defender"));
    line(value, sizeof value, "Defender %s", p);
    prob(p, sizeof p, get(w, "draw"));
    line(value, sizeof value, "Draw %s", p);
    discord_reply_embed_field(em, "The battle's winner (no more reserves)",
                              value, false);
}

static void civ(discord_embed *em, const json_t *a)
{
    const json_t *ph = get(a, "phase"), *h = get(ph, "higher_total"),
                 *after = get(ph, "after");
    char text[1024] = "", value[1024] = "", p[96];

    line(text, sizeof text, "The next phase, with the orders shown:");
    prob(p, sizeof p, get(h, "attacker"));
    line(text, sizeof text, "Attacker wins the phase (higher total): %s", p);
    prob(p, sizeof p, get(h, "defender"));
    line(text, sizeof text, "Defender wins the phase (higher total): %s", p);
    prob(p, sizeof p, get(h, "equal"));
    line(text, sizeof text, "Equal totals: %s", p);
    discord_reply_embed_text(em, text);
    prob(p, sizeof p, get(after, "attacker_wins"));
    line(value, sizeof value, "Attacker has won %s", p);
    prob(p, sizeof p, get(after, "defender_wins"));
    line(value, sizeof value, "Defender has won %s", p);
    prob(p, sizeof p, get(after, "both_gone"));
    line(value, sizeof value, "Both armies gone %s", p);
    prob(p, sizeof p, get(after, "goes_on"));
    line(value, sizeof value, "The battle goes on %s", p);
    discord_reply_embed_field(em, "After the phase", value, false);
}

json_t *discord_odds_embed(const json_t *answer, const char *campaign_id,
                           int combat)
{
    const char *sys = str(answer, "system");
    char foot[512], title[64];
    discord_embed em;

    footer(foot, sizeof foot, answer, campaign_id);
    snprintf(title, sizeof title, "Odds: %s",
             strcmp(sys, "scrud") == 0    ? "SCRUD combat"
             : strcmp(sys, "edna") == 0   ? "EDNA test"
             : strcmp(sys, "scs") == 0    ? "SCS combat"
             : strcmp(sys, "matrix") == 0 ? "Matrix battle"
             : strcmp(sys, "civ") == 0    ? "Civilization phase"
                                          : sys);
    discord_reply_embed_init(&em, title, 0x4a6a3a, foot, NULL);
    if (strcmp(sys, "scrud") == 0)
        scrud(&em, answer);
    else if (strcmp(sys, "edna") == 0)
        edna(&em, answer);
    else if (strcmp(sys, "scs") == 0)
        scs(&em, answer);
    else if (strcmp(sys, "matrix") == 0)
        matrix(&em, answer, combat);
    else if (strcmp(sys, "civ") == 0)
        civ(&em, answer);
    return discord_reply_embed_take(&em);
}

/* What the odds' thread is given: the interaction's odds to work out (the
 * interaction's job while it waits). */
typedef struct odds_job {
    const systems_entry *s;
    json_t *body;
    int combat;
    bool is_public;
    double queued_ms; /* when it was handed to the odds' threads (ms) */
} odds_job;

static void odds_job_free(void *p)
{
    odds_job *j = p;

    if (j != NULL)
        json_decref(j->body);
    free(j);
}

/* Answers r with the odds of j's body of j's system. */
static void answer_now(http_request *r, const discord_interaction *in,
                       const odds_job *j)
{
    err_info e;
    json_t *a;
    int combat = j->combat;
    bool is_public = j->is_public;

    err_clear(&e);
    a = pipeline_odds(j->s, j->body, in->campaign_id, in->umpire_token_id,
                      http_db(r->srv), &e);
    if (a == NULL) {
        discord_reply_send(
            r, discord_reply_notice("No odds: %s",
                                    e.code ? e.message : "they failed"));
        return;
    }
    discord_reply_send(
        r, discord_reply_message(DISCORD_REPLY_MESSAGE, NULL,
                                 discord_odds_embed(a, in->campaign_id, combat),
                                 NULL, !is_public));
    json_decref(a);
}

/* On a thread of the odds: the interaction is r's state, the odds its
 * job. */
static void answer_deferred(http_request *r)
{
    discord_interaction *in = r->state;
    const odds_job *j = in->job;

    if (monotonic_ms() - j->queued_ms > wait_max_ms) {
        discord_reply_send(r, discord_reply_notice(
                                  "The odds are busy: this request waited too "
                                  "long to be answered in time. Try again "
                                  "shortly."));
        return;
    }
    answer_now(r, in, j);
}

/* Answers r with the odds of body (stolen) of s, on the odds' threads. */
static void answer(http_request *r, discord_interaction *in,
                   const systems_entry *s, json_t *body, int combat,
                   bool is_public)
{
    odds_job *j = calloc(1, sizeof *j);

    if (j == NULL) {
        json_decref(body);
        discord_reply_send(r, discord_reply_notice("The service is out of "
                                                   "memory; try again."));
        return;
    }
    *j = (odds_job){s, body, combat, is_public, monotonic_ms()};
    if (r->state != in || in->job != NULL) {
        /* Not the request's own interaction (kept for a write): here. */
        answer_now(r, in, j);
        odds_job_free(j);
        return;
    }
    in->job = j;
    in->job_free = odds_job_free;
    http_defer_odds(r, answer_deferred);
}

void discord_odds_run(http_request *r, discord_interaction *in)
{
    const systems_entry *s = NULL;
    json_t *body = discord_combat_body(r, in, in->subcommand, &s);
    bool is_public = false;

    if (body == NULL)
        return;
    discord_interaction_bool(in, "public", &is_public);
    answer(r, in, s, body, -1, is_public);
}

void discord_odds_battle(http_request *r, discord_interaction *in,
                         const systems_entry *s, json_t *body, int combat)
{
    answer(r, in, s, body, combat, false);
}
