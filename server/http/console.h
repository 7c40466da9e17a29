/*
 * console.h: the browser console (console/, docs/console.md), built into
 * the binary and served at / and /console/{asset_path}, and its share
 * page at /share/{secret}.
 *
 * The files are compiled in by tools/embed.c, which writes the table
 * below; a request can only name an entry of it, never a file on disk, so
 * no path can reach outside the console.  Every console response carries
 * the headers of console_headers (a strict Content-Security-Policy and
 * friends); every file is served with its strong ETag and Cache-Control:
 * no-cache, so a browser revalidates (304) on each load and never runs a
 * file of an older release beside a newer one.
 */
#ifndef UMPIRE_CONSOLE_H
#define UMPIRE_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#include "http.h"

typedef struct console_asset {
    const char *path;         /* relative to console/: "js/app.js" */
    const char *content_type; /* by extension, with charset for text */
    const unsigned char *data;
    size_t len;
    const char *etag; /* strong, quoted: "\"<16 hex digits>\"" */
} console_asset;

/* The built-in files, sorted by path (the generated console_assets.c). */
extern const console_asset console_assets[];
extern const size_t console_n_assets;

/* The asset at path (relative to console/), or NULL.  Borrowed: static. */
const console_asset *console_find(const char *path);

/* Whether a request path is the console's (/, /console, /console/...,
 * and the share page's /share/...): such responses carry console_headers
 * and no CORS headers. */
bool console_is_path(const char *path);

/* The security headers of every console response, name and value. */
extern const char *const console_headers[][2];
extern const size_t console_n_headers;

/* Route handlers: GET / (index.html) and GET /console/{asset_path}. */
void console_index(http_request *r);
void console_asset_get(http_request *r);
/* GET /share/{secret}: the share page (share.html, docs/sharing.md), the
 * same for every secret. */
void console_share(http_request *r);

#endif
