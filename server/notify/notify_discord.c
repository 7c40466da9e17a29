/*
 * notify_discord.c: Discord's side of channel posts; see notify_discord.h.
 *
 * The URL shapes are checked by hand, byte by byte, rather than by a URL
 * parser: what is accepted is exactly what the header says, so no
 * parser's leniency (a user part, an encoded slash, a port) can send a
 * campaign's posts, and its token, anywhere but Discord.
 */
#include "notify_discord.h"

#include "text.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ID_DIGITS_MAX 20
#define TOKEN_MAX     128

/* The hosts a webhook URL may name (compared without letter case). */
static const char *const webhook_hosts[] = {"discord.com",
                                            "ptb.discord.com",
                                            "canary.discord.com",
                                            "discordapp.com",
                                            "ptb.discordapp.com",
                                            "canary.discordapp.com",
                                            NULL};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_token_char(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '_' || c == '-';
}

/* Whether the n bytes at host are one of webhook_hosts. */
static bool is_webhook_host(const char *host, size_t n)
{
    size_t i;

    for (i = 0; webhook_hosts[i]; i++)
        if (strlen(webhook_hosts[i]) == n &&
            strncasecmp(host, webhook_hosts[i], n) == 0)
            return true;
    return false;
}

/* A snowflake: 1..20 digits, no leading zero, within 64 bits. */
static bool is_snowflake(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || n > ID_DIGITS_MAX || s[0] == '0')
        return false;
    for (i = 0; i < n; i++)
        if (!is_digit(s[i]))
            return false;
    return n < ID_DIGITS_MAX || strncmp(s, "18446744073709551615", n) <= 0;
}

err_code notify_discord_parse_url(const char *url, const char *field,
                                  char id[DB_WEBHOOK_ID_MAX],
                                  char token[DB_WEBHOOK_TOKEN_MAX], err_info *e)
{
    static const char scheme[] = "https://", path[] = "/api/webhooks/";
    const char *host, *p, *slash;
    size_t n;

    id[0] = token[0] = '\0';
    if (strlen(url) >= DB_WEBHOOK_URL_MAX)
        return err_set(e, ERR_INVALID, field,
                       "a webhook URL has at most %d characters",
                       DB_WEBHOOK_URL_MAX - 1);
    if (strncasecmp(url, scheme, sizeof scheme - 1) != 0)
        goto shape;
    host = url + sizeof scheme - 1;
    slash = strchr(host, '/');
    if (slash == NULL || !is_webhook_host(host, (size_t)(slash - host)))
        return err_set(e, ERR_INVALID, field,
                       "the webhook must be Discord's: https://discord.com "
                       "(or discordapp.com, or their ptb. or canary. "
                       "subdomain), with no port or user");
    if (strncmp(slash, path, sizeof path - 1) != 0)
        goto shape;
    p = slash + sizeof path - 1;
    n = strspn(p, "0123456789");
    if (!is_snowflake(p, n) || p[n] != '/')
        goto shape;
    memcpy(id, p, n);
    id[n] = '\0';
    p += n + 1;
    for (n = 0; is_token_char(p[n]); n++)
        ;
    if (n == 0 || n > TOKEN_MAX || p[n] != '\0') {
        id[0] = '\0';
        goto shape;
    }
    memcpy(token, p, n + 1);
    return ERR_OK;
shape:
    return err_set(e, ERR_INVALID, field,
                   "a webhook URL is https://discord.com/api/webhooks/{id}/"
                   "{token}: the id in digits, the token of letters, digits, "
                   "_ and -, and nothing after it (no query, fragment or "
                   "trailing slash)");
}

void notify_discord_mask(const char *url, char *out, size_t n)
{
    const char *token = strrchr(url, '/');
    size_t len, keep;

    token = token ? token + 1 : url + strlen(url);
    len = strlen(token);
    keep = len >= 16 ? 4 : 0;
    snprintf(out, n, "%.*s%s%s", (int)(token - url), url, NOTIFY_DISCORD_MASK,
             token + len - keep);
}

/* Whether the n bytes at host name this machine. */
static bool is_loopback(const char *host, size_t n)
{
    return (n == 9 && strncasecmp(host, "localhost", n) == 0) ||
           (n == 5 && strncmp(host, "[::1]", n) == 0) ||
           (n >= 7 && strncmp(host, "127.", 4) == 0 &&
            strspn(host, "0123456789.") == n);
}

err_code notify_discord_check_base(const char *base, bool *is_http, err_info *e)
{
    const char *host, *end;
    size_t n, len = strlen(base);

    *is_http = strncmp(base, "http://", 7) == 0;
    if (!*is_http && strncmp(base, "https://", 8) != 0)
        return err_set(e, ERR_INVALID, "discord_api_base",
                       "the Discord API base is an https:// URL, not "
                       "\"%s\"",
                       base);
    host = base + (*is_http ? 7 : 8);
    /* The host ends at its port or path; an IPv6 one at its bracket. */
    n = host[0] == '[' && strchr(host, ']')
            ? (size_t)(strchr(host, ']') - host) + 1
            : strcspn(host, ":/");
    end = host + strcspn(host, "/");
    if (n == 0 || len > 200 || strpbrk(base, "?#@ \t\r\n\\") != NULL ||
        base[len - 1] == '/')
        return err_set(e, ERR_INVALID, "discord_api_base",
                       "the Discord API base is scheme://host[:port][/path] "
                       "without query, fragment, user or trailing slash, "
                       "not \"%s\"",
                       base);
    if (*is_http && !is_loopback(host, n))
        return err_set(e, ERR_INVALID, "discord_api_base",
                       "plain http is for a loopback Discord API base "
                       "(tests) only, not \"%.*s\"",
                       (int)(end - host), host);
    return ERR_OK;
}

/* ---- the message ---- */

/* The embed's title: what the record is. */
static const char *record_title(const char *system)
{
    static const char *const titles[][2] = {{"scrud", "SCRUD combat"},
                                            {"edna", "EDNA test"},
                                            {"scs", "SCS combat"},
                                            {"matrix", "Matrix battle"},
                                            {"civ", "Civilization battle"}};
    size_t i;

    for (i = 0; i < sizeof titles / sizeof titles[0]; i++)
        if (strcmp(system, titles[i][0]) == 0)
            return titles[i][1];
    return "Combat";
}

/* How many leading bytes of s, at most max, end on a UTF-8 boundary. */
static size_t utf8_cut(const char *s, size_t max)
{
    while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
        max--;
    return max;
}

/*
 * md cut to at most max bytes (new, free(); NULL when out of memory): at
 * the end of a line where one is near, a code block left open closed, and
 * an ellipsis saying that the report has the rest.
 */
static char *cut_markdown(const char *md, size_t max)
{
    static const char fence[] = "\n```", more[] = "\n\xe2\x80\xa6";
    size_t len = strlen(md), cut, i, n_fences = 0;
    char *out;

    if (len <= max)
        return strdup(md);
    cut = utf8_cut(md, max - (sizeof fence - 1) - (sizeof more - 1));
    for (i = cut; i > 0 && cut - i < 512; i--)
        if (md[i - 1] == '\n') {
            cut = i - 1;
            break;
        }
    for (i = 0; i + 3 <= cut; i++)
        if (strncmp(md + i, "```", 3) == 0) {
            n_fences++;
            i += 2;
        }
    out = malloc(cut + sizeof fence + sizeof more);
    if (out == NULL)
        return NULL;
    memcpy(out, md, cut);
    out[cut] = '\0';
    if (n_fences % 2)
        strcat(out, fence);
    strcat(out, more);
    return out;
}

char *notify_discord_message(const notify_discord_combat *cb)
{
    char title[160], path[160], footer[96], note[1024], *desc, *text = NULL;
    json_t *fields, *msg;

    snprintf(title, sizeof title, "%s \xc2\xb7 %s", record_title(cb->system),
             cb->campaign_name);
    snprintf(path, sizeof path, "`GET /v1/campaigns/%s/combats/%s`",
             cb->campaign_id, cb->combat_id);
    snprintf(footer, sizeof footer, "umpire \xc2\xb7 %s", cb->combat_id);
    /* Title, fields and footer take under 1,400 bytes (a note is 500
     * bytes at most, 1,000 escaped): the description's 4,096 keep the
     * whole embed under 6,000. */
    desc = cut_markdown(cb->summary && cb->summary[0] ? cb->summary : "-",
                        NOTIFY_DISCORD_DESCRIPTION_MAX);
    if (desc == NULL)
        return NULL;
    fields = json_pack("[{s:s, s:s}]", "name", "Report", "value", path);
    if (fields && cb->note && cb->note[0]) {
        text_md(note, sizeof note, cb->note);
        json_array_append_new(
            fields, json_pack("{s:s, s:s}", "name", "Note", "value", note));
    }
    msg = json_pack("{s:[{s:s, s:s, s:o, s:{s:s}, s:s}], s:{s:[]}}", "embeds",
                    "title", title, "description", desc, "fields", fields,
                    "footer", "text", footer, "timestamp", cb->created_at,
                    "allowed_mentions", "parse");
    free(desc);
    if (msg != NULL)
        text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    return text;
}

void notify_discord_read_429(const char *body, double *retry_after,
                             bool *is_global)
{
    json_t *doc = json_loads(body, JSON_DECODE_ANY, NULL);
    json_t *v = json_object_get(doc, "retry_after");

    *retry_after = json_is_number(v) && json_number_value(v) >= 0
                       ? json_number_value(v)
                       : -1;
    *is_global = json_is_true(json_object_get(doc, "global"));
    json_decref(doc);
}

void notify_discord_error_message(const char *body, char *out, size_t n)
{
    json_t *doc = json_loads(body, JSON_DECODE_ANY, NULL);
    const char *m = json_string_value(json_object_get(doc, "message"));
    size_t i;

    /* Kept to printable ASCII: the message is cut to fit, never inside
     * a character, and logged. */
    snprintf(out, n, "%s", m ? m : "");
    for (i = 0; out[i]; i++)
        if ((unsigned char)out[i] < 0x20)
            out[i] = ' ';
        else if ((unsigned char)out[i] > 0x7e)
            out[i] = '?';
    json_decref(doc);
}
