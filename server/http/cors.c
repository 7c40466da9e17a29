/*
 * cors.c: the allowed origins and their checks; see cors.h.
 */
#include "cors.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cors_config_init(cors_config *c)
{
    memset(c, 0, sizeof *c);
}

bool cors_is_enabled(const cors_config *c)
{
    return c->is_any || c->n_origins > 0;
}

static bool is_host_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '-' || ch == '.' || ch == '_' ||
           ch == '[' || ch == ']' || ch == ':';
}

/* Checks one origin (len bytes at s); NULL when it is fine, or why not. */
static const char *origin_problem(const char *s, size_t len)
{
    const char *sep = NULL, *host, *end = s + len, *colon, *port;
    size_t i;

    for (i = 0; i + 3 <= len && sep == NULL; i++)
        if (strncmp(s + i, "://", 3) == 0)
            sep = s + i;
    if (len == 4 && strncasecmp(s, "null", 4) == 0)
        return "\"null\" is the origin of any sandboxed page or local file; "
               "it cannot be allowed";
    if (sep == NULL || sep == s)
        return "an origin is scheme://host[:port], e.g. "
               "https://console.example.org";
    for (i = 0; s + i < sep; i++)
        if (!(isalpha((unsigned char)s[i]) ||
              (i > 0 && (isdigit((unsigned char)s[i]) || s[i] == '+' ||
                         s[i] == '-' || s[i] == '.'))))
            return "the scheme of an origin is letters, digits, +, - and .";
    host = sep + 3;
    if (host == end)
        return "an origin needs a host";
    for (i = 0; host + i < end; i++)
        if (!is_host_char(host[i]))
            return "an origin has no path, query, user or trailing slash: "
                   "scheme://host[:port] only";
    /* The port, if any, follows the last ':' outside an IPv6 literal. */
    colon = NULL;
    for (port = host; port < end; port++)
        if (*port == ':' && memchr(port, ']', (size_t)(end - port)) == NULL)
            colon = port;
    if (colon == NULL)
        return NULL;
    if (colon + 1 == end || colon + 6 < end)
        return "the port of an origin is 1 to 65535";
    for (port = colon + 1; port < end; port++)
        if (!isdigit((unsigned char)*port))
            return "the port of an origin is 1 to 65535";
    i = (size_t)strtoul(colon + 1, NULL, 10);
    if (i < 1 || i > 65535 || colon[1] == '0')
        return "the port of an origin is 1 to 65535, without leading zeros";
    if ((sep - s == 4 && strncasecmp(s, "http", 4) == 0 && i == 80) ||
        (sep - s == 5 && strncasecmp(s, "https", 5) == 0 && i == 443))
        return "leave the scheme's default port out of an origin: browsers "
               "never send it";
    return NULL;
}

err_code cors_config_add(cors_config *c, const char *value, err_info *e)
{
    cors_config next = *c;
    const char *p = value;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0') {
        cors_config_init(c);
        return ERR_OK;
    }
    for (;;) {
        size_t len;
        const char *why;

        while (*p == ' ' || *p == '\t')
            p++;
        len = strcspn(p, ",");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len == 0)
            return err_set(e, ERR_INVALID, "cors_origin",
                           "an empty origin in the list \"%s\"", value);
        if (len == 1 && *p == '*') {
            next.is_any = true;
        } else {
            if (len >= CORS_ORIGIN_MAX)
                return err_set(e, ERR_INVALID, "cors_origin",
                               "an origin is at most %d bytes",
                               CORS_ORIGIN_MAX - 1);
            if ((why = origin_problem(p, len)) != NULL)
                return err_set(e, ERR_INVALID, "cors_origin", "\"%.*s\": %s",
                               (int)(len > 80 ? 80 : len), p, why);
            if (next.n_origins == CORS_MAX_ORIGINS)
                return err_set(e, ERR_LIMIT, "cors_origin",
                               "at most %d origins can be allowed",
                               CORS_MAX_ORIGINS);
            snprintf(next.origins[next.n_origins++], CORS_ORIGIN_MAX, "%.*s",
                     (int)len, p);
        }
        p += strcspn(p, ",");
        if (*p == '\0')
            break;
        p++;
    }
    *c = next;
    return ERR_OK;
}

const char *cors_allow(const cors_config *c, const char *origin)
{
    int i;

    if (origin == NULL || origin[0] == '\0')
        return NULL;
    if (c->is_any)
        return "*";
    for (i = 0; i < c->n_origins; i++)
        if (strcasecmp(c->origins[i], origin) == 0)
            return origin;
    return NULL;
}
