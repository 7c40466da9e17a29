/*
 * console.c: the browser console's files as HTTP resources; see
 * console.h.  The files themselves are in the generated console_assets.c.
 */
#include "console.h"
#include "shares.h"

#include <stdlib.h>
#include <string.h>

/* docs/console.md explains each one. */
const char *const console_headers[][2] = {
    {"Content-Security-Policy",
     "default-src 'none'; script-src 'self'; style-src 'self'; "
     "img-src 'self' data:; connect-src 'self'; font-src 'self'; "
     "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
    {"X-Frame-Options", "DENY"},
    {"Referrer-Policy", "no-referrer"},
    {"Cross-Origin-Opener-Policy", "same-origin"},
    {"Cross-Origin-Resource-Policy", "same-origin"},
    {"Permissions-Policy", "camera=(), microphone=(), geolocation=()"},
};
const size_t console_n_headers =
    sizeof console_headers / sizeof console_headers[0];

static int by_path(const void *key, const void *elem)
{
    return strcmp(key, ((const console_asset *)elem)->path);
}

const console_asset *console_find(const char *path)
{
    if (path == NULL || console_n_assets == 0)
        return NULL;
    return bsearch(path, console_assets, console_n_assets,
                   sizeof console_assets[0], by_path);
}

bool console_is_path(const char *path)
{
    return strcmp(path, "/") == 0 || strcmp(path, "/console") == 0 ||
           strncmp(path, "/console/", 9) == 0 ||
           strncmp(path, "/share/", 7) == 0;
}

/*
 * Whether an If-None-Match value names etag: "*", or a comma-separated
 * list of entity tags, weak ones (W/"...") included, as RFC 9110 section
 * 13.1.2 compares them for GET and HEAD.
 */
static bool etag_matches(const char *list, const char *etag)
{
    size_t n = strlen(etag);
    const char *p = list;

    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (*p == '\0')
            return false;
        if (*p == '*')
            return true;
        if (strncmp(p, "W/", 2) == 0)
            p += 2;
        if (strncmp(p, etag, n) == 0 &&
            (p[n] == '\0' || p[n] == ',' || p[n] == ' ' || p[n] == '\t'))
            return true;
        p += strcspn(p, ",");
    }
}

static void serve(http_request *r, const console_asset *a)
{
    const char *inm = http_header(r, "If-None-Match");

    r->etag = a->etag;
    r->cache_control = "no-cache";
    if (inm != NULL && etag_matches(inm, a->etag))
        http_reply_static(r, 304, NULL, 0, NULL);
    else
        http_reply_static(r, 200, a->data, a->len, a->content_type);
}

static void not_found(http_request *r, const char *detail)
{
    err_info e;

    err_clear(&e);
    err_set(&e, ERR_NOT_FOUND, NULL, "%s", detail);
    http_reply_problem(r, &e);
}

void console_index(http_request *r)
{
    const console_asset *a = console_find("index.html");

    if (a == NULL)
        not_found(r, "this build of the service has no console");
    else
        serve(r, a);
}

/* The page is the same for every secret: the page's script reads the
 * secret from its own path and asks GET /v1/shared/{secret}, which
 * answers 404 for an unknown or revoked one (docs/sharing.md).  A path
 * that cannot be a secret at all is 404 here already. */
void console_share(http_request *r)
{
    const console_asset *a = console_find("share.html");

    if (!shares_is_secret(r->params[0]))
        not_found(r, "this is not a share link's address");
    else if (a == NULL)
        not_found(r, "this build of the service has no share page");
    else
        serve(r, a);
}

void console_asset_get(http_request *r)
{
    const console_asset *a = console_find(r->params[0]);

    if (a == NULL)
        not_found(r, "the console has no such file");
    else
        serve(r, a);
}
