#define _GNU_SOURCE /* vasprintf */
/*
 * discord_rig.c: a test that plays Discord; see discord_rig.h.
 */
#include "discord_rig.h"

#include "discord_reply.h"
#include "discord_verify.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void discord_rig_start(discord_rig *g)
{
    discord_rig_start_with(g, NULL);
}

/* g's key pair, and its application's settings with its public key. */
static void keys(discord_rig *g, discord_config *cfg)
{
    char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];

    memset(g, 0, sizeof *g);
    crypto_sign_keypair(g->pk, g->sk);
    sodium_bin2hex(hex, sizeof hex, g->pk, sizeof g->pk);
    discord_verify_config_init(cfg);
    ck_assert_int_eq(discord_verify_config_key(cfg, hex, NULL), ERR_OK);
    ck_assert_int_eq(discord_verify_config_app(cfg, DISCORD_RIG_APP, NULL),
                     ERR_OK);
}

/* g's campaign on its started server, and its first interaction's id. */
static void campaign(discord_rig *g)
{
    static const char *const sides[] = {"red", "blue", NULL};

    ts_campaign(g->ts, &g->cmp, NULL, sides);
    g->next_id = 1500000000000000001LL;
    g->channel = DISCORD_RIG_CHANNEL;
}

void discord_rig_start_with(discord_rig *g, const notify_config *posts)
{
    discord_config cfg;

    keys(g, &cfg);
    g->ts = ts_start_discord(&cfg, posts);
    campaign(g);
}

void discord_rig_start_config(discord_rig *g, http_config *cfg)
{
    keys(g, &cfg->discord);
    g->ts = ts_start_config(cfg);
    campaign(g);
}

void discord_rig_stop(discord_rig *g)
{
    ts_stop(g->ts);
    g->ts = NULL;
}

void discord_rig_sign(const discord_rig *g, const char *timestamp,
                      const char *body, char *sig_hex)
{
    unsigned char sig[crypto_sign_BYTES];
    size_t tl = strlen(timestamp), bl = strlen(body);
    unsigned char *msg = malloc(tl + bl + 1);

    ck_assert_ptr_nonnull(msg);
    memcpy(msg, timestamp, tl);
    memcpy(msg + tl, body, bl);
    crypto_sign_detached(sig, NULL, msg, tl + bl, g->sk);
    free(msg);
    sodium_bin2hex(sig_hex, 2 * crypto_sign_BYTES + 1, sig, sizeof sig);
}

void discord_rig_post(discord_rig *g, const char *sig_hex,
                      const char *timestamp, const char *body, http_resp *out)
{
    size_t bl = strlen(body), cap = bl + 1024;
    char *req = malloc(cap);
    int n;

    ck_assert_ptr_nonnull(req);
    n = snprintf(req, cap,
                 "POST /v1/discord/interactions HTTP/1.1\r\nHost: localhost"
                 "\r\nConnection: close\r\nContent-Type: application/json\r\n"
                 "User-Agent: Discord-Interactions/1.0 (+https://discord.com)"
                 "\r\n%s%s%s%s%s%sContent-Length: %zu\r\n\r\n",
                 sig_hex ? "X-Signature-Ed25519: " : "", sig_hex ? sig_hex : "",
                 sig_hex ? "\r\n" : "",
                 timestamp ? "X-Signature-Timestamp: " : "",
                 timestamp ? timestamp : "", timestamp ? "\r\n" : "", bl);
    memcpy(req + n, body, bl);
    ck_assert_int_eq(ts_raw(g->ts, req, (size_t)n + bl, out), 0);
    free(req);
}

json_t *discord_rig_send(discord_rig *g, const char *body)
{
    char ts[24], sig[2 * crypto_sign_BYTES + 1];
    http_resp r;
    json_t *j;

    snprintf(ts, sizeof ts, "%lld", (long long)time(NULL));
    discord_rig_sign(g, ts, body, sig);
    discord_rig_post(g, sig, ts, body, &r);
    ck_assert_msg(r.status == 200 && r.json != NULL,
                  "the endpoint answered %d: %s", r.status,
                  r.body ? r.body : "");
    j = json_incref(r.json);
    http_resp_cleanup(&r);
    return j;
}

char *discord_rig_body(discord_rig *g, int type, const char *user,
                       const char *data)
{
    char *body = NULL;

    snprintf(g->last_id, sizeof g->last_id, "%lld", g->next_id++);
    ck_assert_int_ge(
        asprintf(&body,
                 "{\"id\":\"%s\",\"application_id\":\"%s\",\"type\":%d,"
                 "\"token\":\"aW50ZXJhY3Rpb24\",\"version\":1,"
                 "\"guild_id\":\"%s\",\"channel_id\":\"%s\",\"member\":{"
                 "\"user\":{\"id\":\"%s\",\"username\":\"u%s\"},"
                 "\"permissions\":\"0\"},\"locale\":\"en-GB\"%s%s}",
                 g->last_id, DISCORD_RIG_APP, type, DISCORD_RIG_GUILD,
                 g->channel, user, user, data ? ",\"data\":" : "",
                 data ? data : ""),
        0);
    return body;
}

static json_t *send_data(discord_rig *g, int type, const char *user,
                         const char *data)
{
    char *body = discord_rig_body(g, type, user, data);
    json_t *j = discord_rig_send(g, body);

    free(body);
    return j;
}

json_t *discord_rig_command(discord_rig *g, const char *user, const char *name,
                            const char *options_fmt, ...)
{
    char *opts = NULL, *data = NULL;
    va_list ap;
    json_t *j;

    va_start(ap, options_fmt);
    ck_assert_int_ge(vasprintf(&opts, options_fmt, ap), 0);
    va_end(ap);
    ck_assert_int_ge(asprintf(&data,
                              "{\"id\":\"1600000000000000001\",\"name\":\"%s\","
                              "\"type\":1,\"options\":%s}",
                              name, opts),
                     0);
    j = send_data(g, 2, user, data);
    free(opts);
    free(data);
    return j;
}

json_t *discord_rig_complete(discord_rig *g, const char *user, const char *name,
                             const char *options)
{
    char *data = NULL;
    json_t *j;

    ck_assert_int_ge(asprintf(&data,
                              "{\"id\":\"1600000000000000001\",\"name\":\"%s\","
                              "\"type\":1,\"options\":%s}",
                              name, options),
                     0);
    j = send_data(g, 4, user, data);
    free(data);
    return j;
}

json_t *discord_rig_press(discord_rig *g, const char *user,
                          const char *custom_id, const char *values)
{
    char *data = NULL;
    json_t *j;

    ck_assert_int_ge(
        asprintf(&data, "{\"custom_id\":\"%s\",\"component_type\":%d%s%s}",
                 custom_id, values ? 3 : 2, values ? ",\"values\":" : "",
                 values ? values : ""),
        0);
    j = send_data(g, 3, user, data);
    free(data);
    return j;
}

const char *discord_rig_text(const json_t *reply)
{
    const json_t *data = json_object_get(reply, "data");
    const char *s = json_string_value(json_object_get(data, "content"));

    if (s == NULL)
        s = json_string_value(json_object_get(
            json_array_get(json_object_get(data, "embeds"), 0), "description"));
    return s ? s : "";
}

void discord_rig_assert_notice(const json_t *reply, const char *want)
{
    const json_t *data = json_object_get(reply, "data");
    const char *text = discord_rig_text(reply);

    ck_assert_msg(json_integer_value(json_object_get(reply, "type")) == 4 &&
                      json_integer_value(json_object_get(data, "flags")) == 64,
                  "not an ephemeral message: %s", text);
    ck_assert_msg(strstr(text, want) != NULL, "\"%s\" does not say \"%s\"",
                  text, want);
}

static size_t len_of(const json_t *o, const char *k, size_t max)
{
    const char *s = json_string_value(json_object_get(o, k));
    size_t n = s ? discord_reply_len(s) : 0;

    ck_assert_msg(n <= max, "%s is %zu characters, over %zu", k, n, max);
    return n;
}

size_t discord_rig_assert_limits(const json_t *reply)
{
    const json_t *data = json_object_get(reply, "data"), *em, *f;
    const json_t *parse =
        json_object_get(json_object_get(data, "allowed_mentions"), "parse");
    size_t i, k, total = 0;

    ck_assert_msg(json_is_array(parse) && json_array_size(parse) == 0,
                  "allowed_mentions must parse nothing");
    len_of(data, "content", DISCORD_REPLY_CONTENT_MAX);
    json_array_foreach(json_object_get(data, "embeds"), i, em)
    {
        size_t t = len_of(em, "title", DISCORD_REPLY_TITLE_MAX) +
                   len_of(em, "description", DISCORD_REPLY_DESCRIPTION_MAX) +
                   len_of(json_object_get(em, "footer"), "text",
                          DISCORD_REPLY_FOOTER_MAX);
        ck_assert_uint_le(json_array_size(json_object_get(em, "fields")),
                          DISCORD_REPLY_FIELDS_MAX);
        json_array_foreach(json_object_get(em, "fields"), k, f) t +=
            len_of(f, "name", DISCORD_REPLY_FIELD_NAME_MAX) +
            len_of(f, "value", DISCORD_REPLY_FIELD_VALUE_MAX);
        ck_assert_uint_le(t, DISCORD_REPLY_EMBED_MAX);
        total += t;
    }
    return total;
}

void discord_rig_keep(const json_t *reply, const char *name)
{
    const char *dir = getenv("UMPIRE_DISCORD_REPLIES");
    char path[512];

    if (dir == NULL || dir[0] == '\0')
        return;
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    ck_assert_int_eq(json_dump_file(reply, path, JSON_INDENT(1)), 0);
}

void discord_rig_link(discord_rig *g)
{
    json_t *r = discord_rig_command(
        g, DISCORD_RIG_UMPIRE, "link",
        "[{\"name\":\"token\",\"type\":3,\"value\":\"%s\"}]", g->cmp.umpire);

    discord_rig_assert_notice(r, "is linked");
    json_decref(r);
    r = discord_rig_command(
        g, DISCORD_RIG_PLAYER, "claim",
        "[{\"name\":\"token\",\"type\":3,\"value\":\"%s\"}]", g->cmp.player[0]);
    discord_rig_assert_notice(r, "You hold the side **red**");
    json_decref(r);
}

void discord_rig_unit(discord_rig *g, const char *name, const char *side)
{
    char path[128];
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s/units", g->cmp.id);
    j = ts_call(g->ts, 201, "POST", path, g->cmp.umpire,
                "{\"name\":\"%s\",\"side\":\"%s\",\"scrud\":{},\"edna\":{},"
                "\"matrix\":{},\"scs\":{\"attack\":4,\"defense\":3,"
                "\"reduced\":{\"attack\":2,\"defense\":1}},"
                "\"civ\":{\"class\":\"infantry\",\"era\":2}}",
                name, side);
    json_decref(j);
}

/* Searches components (rows or their components) for part. */
static const char *find_component(const json_t *list, const char *part)
{
    const json_t *c;
    const char *id;
    size_t i;

    json_array_foreach(list, i, c)
    {
        id = json_string_value(json_object_get(c, "custom_id"));
        if (id && strstr(id, part))
            return id;
        if ((id = find_component(json_object_get(c, "components"), part)))
            return id;
    }
    return NULL;
}

const char *discord_rig_component(const json_t *reply, const char *part)
{
    return find_component(
        json_object_get(json_object_get(reply, "data"), "components"), part);
}
