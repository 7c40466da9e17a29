/*
 * discord_read.c: reads from Discord; see discord_read.h.
 */
#include "discord_read.h"

#include "combats.h"
#include "discord_http.h"
#include "discord_reply.h"
#include "discord_report.h"
#include "fog.h"
#include "ledgers.h"
#include "text.h"
#include "units_doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MD (4 * 64 + 1)

static void send_embed(http_request *r, json_t *embed)
{
    discord_reply_send(r, discord_reply_message(DISCORD_REPLY_MESSAGE, NULL,
                                                embed, NULL, false));
}

/* ---- /unit ---- */

/* A section of a unit (its members but objects) as "key: value" lines. */
static char *section_text(const json_t *section)
{
    text_buf b = {0};
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)section, k, v) {
        char *s;
        if (json_is_object(v) || json_is_null(v))
            continue;
        s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        text_printf(&b, "%s: %s\n", k, s ? s : "?");
        free(s);
    }
    return text_take(&b);
}

static char *events_text(const db_event *evs, size_t n)
{
    text_buf b = {0};
    char note[NAME_MD];
    size_t i;

    for (i = 0; i < n; i++) {
        char at[17];
        /* "2026-11-22T10:00": the minute is enough here. */
        snprintf(at, sizeof at, "%s", evs[i].at);
        text_printf(&b, "#%d %s %s", (int)evs[i].unit_seq, at, evs[i].kind);
        if (evs[i].combat_id[0])
            text_printf(&b, " %s", evs[i].combat_id);
        if (evs[i].note && evs[i].note[0]) {
            discord_reply_md(note, 80, evs[i].note);
            text_printf(&b, ": %s", note);
        }
        text_printf(&b, "\n");
    }
    return text_take(&b);
}

static json_t *unit_embed(const db_unit *u, const db_event *evs, size_t n,
                          long long n_events)
{
    char name[NAME_MD], side[NAME_MD], title[2 * NAME_MD + 8], foot[256];
    json_t *doc = units_doc_json(u), *systems = json_object_get(doc, "systems"),
           *v;
    discord_embed em;
    size_t i;
    char *text;

    discord_reply_md(name, sizeof name, u->name);
    discord_reply_md(side, sizeof side, u->side_name);
    snprintf(title, sizeof title, "%s (%s)", name, side);
    snprintf(foot, sizeof foot,
             "Unit %s \xC2\xB7 %lld events \xC2\xB7 its history: GET "
             "/v1/campaigns/%s/units/%s/history",
             u->id, n_events, u->campaign_id, u->id);
    discord_reply_embed_init(&em, title, u->is_eliminated ? 0x808080 : 0x2f6f9f,
                             foot, NULL);
    if (u->is_eliminated)
        snprintf(title, sizeof title, "**Eliminated** (%s%s%s).",
                 u->eliminated_reason, u->eliminated_by[0] ? " in " : "",
                 u->eliminated_by);
    else if (u->has_edna && u->edna == 0)
        snprintf(title, sizeof title, "In play, **ineffective** (EDNA 0).");
    else
        snprintf(title, sizeof title, "In play.");
    discord_reply_embed_text(&em, title);
    json_array_foreach(systems, i, v) {
        const char *sys = json_string_value(v);
        text = section_text(json_object_get(doc, sys));
        discord_reply_embed_field(&em, sys, text, true);
        free(text);
    }
    text = events_text(evs, n);
    discord_report_fields(&em, "Recent history", text);
    free(text);
    json_decref(doc);
    return discord_reply_embed_take(&em);
}

/* A unit fog of war shows at level (FOG_STATUS or FOG_NAME; fog.h): its
 * name and side, and at "status" whether it is eliminated. */
static json_t *fogged_embed(const db_unit *u, fog_level level)
{
    char name[NAME_MD], side[NAME_MD], title[2 * NAME_MD + 8];
    discord_embed em;

    discord_reply_md(name, sizeof name, u->name);
    discord_reply_md(side, sizeof side, u->side_name);
    snprintf(title, sizeof title, "%s (%s)", name, side);
    discord_reply_embed_init(&em, title, 0x808080, "Fog of war", NULL);
    if (level == FOG_STATUS && u->is_eliminated)
        snprintf(title, sizeof title, "**Eliminated** (%s).",
                 u->eliminated_reason);
    else if (level == FOG_STATUS)
        snprintf(title, sizeof title, "In play.");
    else
        snprintf(title, sizeof title, "Fog of war hides its state.");
    discord_reply_embed_text(&em, title);
    return discord_reply_embed_take(&em);
}

/* The unit ref as the sender may see it: *level is FOG_FULL for the
 * umpire; a unit fog hides is not found. */
static err_code find_unit(db_conn *c, const discord_interaction *in,
                          const char *ref, db_unit *u, fog_level *level)
{
    db_campaign cmp;
    fog_view v;
    err_code rc;

    memset(&v, 0, sizeof v);
    if ((rc = db_campaign_get(c, in->campaign_id, &cmp, NULL)) == ERR_OK &&
        (rc = fog_view_load(c, &cmp, in->role == DB_DISCORD_UMPIRE, in->side_id,
                            &v, NULL)) == ERR_OK &&
        (rc = db_unit_find(c, in->campaign_id, ref, u, NULL)) == ERR_OK &&
        (*level = fog_of_side(&v, u->side_id)) == FOG_HIDDEN)
        rc = ERR_NOT_FOUND;
    fog_view_cleanup(&v);
    return rc;
}

void discord_read_unit(http_request *r, discord_interaction *in)
{
    const char *ref = discord_interaction_str(in, "unit");
    db *d = http_db(r->srv);
    db_event_query q = {in->campaign_id, NULL, 0, true, DISCORD_READ_EVENTS};
    db_event *evs = NULL;
    size_t n = 0;
    db_unit u;
    db_conn *c;
    fog_level level = FOG_FULL;
    err_code rc;

    c = db_read_acquire(d);
    rc = find_unit(c, in, ref ? ref : "", &u, &level);
    if (rc == ERR_OK && level == FOG_FULL) {
        q.unit_id = u.id;
        rc = db_events_page(c, &q, &evs, &n, NULL);
    }
    db_read_release(d, c);
    if (rc == ERR_NOT_FOUND)
        discord_reply_send(r, discord_reply_notice("There is no unit "
                                                   "\"%.64s\" in this "
                                                   "campaign.",
                                                   ref ? ref : ""));
    else if (rc != ERR_OK)
        discord_reply_send(r, discord_reply_notice("The unit cannot be read "
                                                   "now; try again."));
    else if (level != FOG_FULL)
        send_embed(r, fogged_embed(&u, level));
    else
        send_embed(r, unit_embed(&u, evs, n, n > 0 ? evs[0].unit_seq : 0));
    db_events_free(evs, n);
}

/* ---- /commitment ---- */

void discord_read_commitment(http_request *r, discord_interaction *in)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    db_commitment next;
    discord_embed em;
    char text[512], foot[128];
    err_code rc = db_commitment_next(c, in->campaign_id, &next, NULL);

    db_read_release(d, c);
    if (rc != ERR_OK) {
        discord_reply_send(r, discord_reply_notice("The campaign's next "
                                                   "commitment cannot be "
                                                   "read now."));
        return;
    }
    snprintf(text, sizeof text,
             "`%s`\nThe campaign's next seeded combat or battle uses the "
             "seed behind this SHA-256. Its report reveals the seed, and "
             "anyone can check that they match (/check, umpire-verify).",
             next.commitment);
    snprintf(foot, sizeof foot, "Campaign %s \xC2\xB7 drawn %s",
             in->campaign_id, next.created_at);
    discord_reply_embed_init(&em, "Next commitment", 0x4b7a3a, foot, NULL);
    discord_reply_embed_text(&em, text);
    send_embed(r, discord_reply_embed_take(&em));
}

/* ---- /ledger ---- */

void discord_read_ledger(http_request *r, discord_interaction *in)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    db_chain ch;
    discord_embed em;
    char text[640];
    err_code rc = db_chain_open(c, in->campaign_id, &ch, NULL);

    db_read_release(d, c);
    if (rc != ERR_OK) {
        discord_reply_send(r, discord_reply_notice("The ledger cannot be "
                                                   "read now."));
        return;
    }
    if (ch.length <= DISCORD_READ_VERIFY_MAX) {
        /* The HTTP front door's verification, reshaped. */
        if (!discord_http_params(r, in->campaign_id, NULL)) {
            discord_reply_send(r, discord_reply_notice("Out of memory."));
            return;
        }
        ledgers_verify(r);
        return;
    }
    snprintf(text, sizeof text,
             "Length %lld, head `%s`.\nToo long to verify within Discord's 3 "
             "seconds (over %d entries): verify it with GET "
             "/v1/campaigns/%s/ledger/verify, or offline with umpire-verify "
             "--ledger.",
             ch.length, ch.head, DISCORD_READ_VERIFY_MAX, in->campaign_id);
    discord_reply_embed_init(&em, "Ledger (not verified here)", 0x808080,
                             NULL, NULL);
    discord_reply_embed_text(&em, text);
    send_embed(r, discord_reply_embed_take(&em));
}

json_t *discord_read_ledger_reshape(const discord_interaction *in,
                                    const json_t *answer, int status)
{
    const json_t *ledger = json_object_get(answer, "ledger");
    const json_t *dice = json_object_get(answer, "dice");
    const json_t *first = json_object_get(answer, "first_broken");
    bool is_ok = json_is_true(json_object_get(answer, "verified"));
    char text[1024], foot[256];
    discord_embed em;

    if (status >= 300)
        return NULL;
    snprintf(text, sizeof text,
             "%s\nLength %lld, head `%s`.\nDice: %lld seeded (%lld "
             "re-derived from their revealed seeds), %lld entered, %lld "
             "pending in open battles.",
             is_ok ? "**Verified**: every link holds and every revealed die "
                     "re-derives."
                   : "**Broken**: see below.",
             (long long)json_integer_value(json_object_get(ledger, "length")),
             json_string_value(json_object_get(ledger, "head")),
             (long long)json_integer_value(json_object_get(dice, "seeded")),
             (long long)json_integer_value(json_object_get(dice, "rederived")),
             (long long)json_integer_value(json_object_get(dice, "entered")),
             (long long)json_integer_value(json_object_get(dice, "pending")));
    snprintf(foot, sizeof foot,
             "Keep the head: GET /v1/campaigns/%s/ledger/verify?pos=&hash= "
             "checks later that it is still in the chain.",
             in->campaign_id);
    discord_reply_embed_init(&em, is_ok ? "Ledger verified" : "Ledger broken",
                             is_ok ? 0x4b7a3a : 0xb03030, foot, NULL);
    discord_reply_embed_text(&em, text);
    if (json_is_object(first)) {
        char *s = json_dumps(first, JSON_COMPACT);
        discord_reply_embed_field(&em, "First broken", s ? s : "?", false);
        free(s);
    }
    return discord_reply_message(DISCORD_REPLY_MESSAGE, NULL,
                                 discord_reply_embed_take(&em), NULL, false);
}

/* ---- /check ---- */

void discord_read_check(http_request *r, discord_interaction *in)
{
    const char *id = discord_interaction_str(in, "combat");

    if (id == NULL || id[0] == '\0' || strchr(id, '/') != NULL ||
        !discord_http_params(r, in->campaign_id, id)) {
        discord_reply_send(r, discord_reply_notice("Name a combat by its id "
                                                   "(cbt_...)."));
        return;
    }
    combats_replay_campaign(r);
}

json_t *discord_read_check_reshape(const discord_interaction *in,
                                   const json_t *answer, int status)
{
    const json_t *diffs = json_object_get(answer, "differences"), *d;
    const json_t *seeded = json_object_get(answer, "seeded_dice_verified");
    bool is_ok = json_is_true(json_object_get(answer, "reproduced"));
    const char *id = json_string_value(json_object_get(answer, "combat_id"));
    char text[512], where[512];
    text_buf b = {0};
    discord_embed em;
    size_t i;
    char *s;

    if (status >= 300 || id == NULL)
        return NULL;
    snprintf(text, sizeof text,
             "%s\n%lld dice logged; seeded dice %s.",
             is_ok ? "**Reproduced**: the rules give the stored outcome from "
                     "the logged dice."
                   : "**Differs** from the stored outcome: see below.",
             (long long)json_integer_value(json_object_get(answer, "n_rolls")),
             json_is_true(seeded)    ? "verified against the revealed seed"
             : json_is_false(seeded) ? "**do not match** the revealed seed"
                                     : "none (entered at the table)");
    discord_report_where(where, sizeof where, in->campaign_id, id);
    discord_reply_embed_init(&em, NULL, is_ok ? 0x4b7a3a : 0xb03030, where,
                             NULL);
    snprintf(where, sizeof where, "Check of %s (%s)", id,
             json_string_value(json_object_get(answer, "system")));
    discord_reply_embed_title(&em, where);
    discord_reply_embed_text(&em, text);
    json_array_foreach(diffs, i, d) {
        if (json_is_string(d))
            text_printf(&b, "%s\n", json_string_value(d));
    }
    s = text_take(&b);
    if (s && s[0])
        discord_report_fields(&em, "Differences", s);
    free(s);
    return discord_reply_message(DISCORD_REPLY_MESSAGE, NULL,
                                 discord_reply_embed_take(&em), NULL, false);
}
