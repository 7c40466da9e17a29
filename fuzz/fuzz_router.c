/*
 * fuzz_router.c: the router's path matching, without a server.
 *
 * match() and terminate_params() are static in server/http/router.c and
 * router_dispatch needs a libmicrohttpd connection past them (Accept, the
 * token, the handler), so this file compiles router.c itself and drives
 * the two as router_dispatch does; the fuzz targets link it instead of
 * router.o.  If router.c renames them, this file follows.  This file's
 * own statics start with fz_, out of router.c's way.
 *
 * What must hold for a path that matches a route: exactly one route of
 * the method matches; its parameters are as many as the template's
 * {names}, each non-empty, inside the copy of the path, without a '/'
 * unless it is a ROUTER_TAIL route's last; and router_takes says of each
 * query parameter's name what the route's list of names says (a model
 * written apart: the list split at its spaces).
 */
#include "fuzz.h"

#include "router.c"

#include <stdlib.h>

/* The model of router_takes: name is one of the words of rt->query. */
static bool fz_takes_model(const router_route *rt, const char *name)
{
    const char *q = rt->query;
    size_t len = strlen(name);

    while (*q) {
        size_t n = strcspn(q, " ");
        if (n == len && len > 0 && strncmp(q, name, n) == 0)
            return true;
        q += n;
        q += *q == ' ';
    }
    return false;
}

/* Each name of query ("a=1&b&c=") against the route's list. */
static void fz_check_query(const router_route *rt, char *query)
{
    char *item, *save = NULL;

    for (item = strtok_r(query, "&", &save); item != NULL;
         item = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(item, '=');
        if (eq != NULL)
            *eq = '\0';
        fuzz_check(router_takes(rt, item) == fz_takes_model(rt, item),
                   "%s: router_takes(\"%s\") is %d, the list \"%s\" says "
                   "otherwise",
                   rt->path, item, router_takes(rt, item), rt->query);
    }
}

void fuzz_router_check(const char *method, const char *path_query)
{
    char *copy = strdup(path_query), *path = copy, *query;
    const router_route *found = NULL;
    http_request r;
    size_t i, n_found = 0, len;
    int k, n_want = 0;
    bool is_head = strcmp(method, "HEAD") == 0;
    const char *t;

    fuzz_check(copy != NULL, "out of memory");
    if ((query = strchr(copy, '?')) != NULL)
        *query++ = '\0';
    len = strlen(path);
    memset(&r, 0, sizeof r);
    r.method = method;
    r.path = (char *)path;
    (void)pthread_once(&route_slashes_once, route_slashes_count);
    for (i = 0; i < router_n_routes; i++) {
        const router_route *rt = &router_routes[i];
        if (!match(rt, r.path, &r, false))
            continue;
        /* The count of slashes that lets router_dispatch try a route
         * never passes over one that matches. */
        fuzz_check(may_match(i, slashes(r.path)),
                   "%s: matches %s, which its slashes pass over", path,
                   rt->path);
        if (strcmp(rt->method, method) == 0 ||
            (is_head && strcmp(rt->method, "GET") == 0)) {
            found = rt;
            n_found++;
        }
    }
    if (found == NULL) {
        free(copy);
        return;
    }
    fuzz_check(n_found == 1, "%s %s: %zu routes match, the last wins: %s",
               method, path, n_found, found->path);
    r.param_buf = strdup(path);
    fuzz_check(r.param_buf != NULL, "out of memory");
    fuzz_check(match(found, r.param_buf, &r, true),
               "%s: matches, then does not", path);
    terminate_params(&r, found);
    for (t = found->path; (t = strchr(t, '{')) != NULL; t++)
        n_want++;
    fuzz_check(r.n_params == n_want, "%s: %d parameters for %s", path,
               r.n_params, found->path);
    for (k = 0; k < r.n_params; k++) {
        const char *p = r.params[k];
        bool is_tail = (found->flags & ROUTER_TAIL) && k == r.n_params - 1;
        fuzz_check(p >= r.param_buf && p < r.param_buf + len,
                   "%s: parameter %d outside the path", path, k);
        fuzz_check(p[0] != '\0', "%s: parameter %d is empty", path, k);
        fuzz_check(is_tail || strchr(p, '/') == NULL,
                   "%s: parameter %d has a '/': %s", path, k, p);
    }
    free(r.param_buf);
    if (query != NULL)
        fz_check_query(found, query);
    free(copy);
}

/* A seed for each route: its template with sample parameters, and its
 * query parameters. */
void fuzz_router_emit(void)
{
    char line[512];
    size_t i;

    for (i = 0; i < router_n_routes; i++) {
        const router_route *rt = &router_routes[i];
        const char *t = rt->path;
        size_t n = (size_t)snprintf(line, sizeof line, "%s ", rt->method);
        while (*t && n + 32 < sizeof line) {
            if (*t == '{') {
                const char *end = strchr(t, '}');
                n += (size_t)snprintf(
                    line + n, sizeof line - n, "%s",
                    (rt->flags & ROUTER_TAIL) && end[1] == '\0' ? "js/app.js"
                                                                : "x_0123");
                t = end + 1;
            } else {
                line[n++] = *t++;
            }
        }
        /* and every query parameter it takes: "?format=1&limit=1" */
        for (t = rt->query; *t && n + 80 < sizeof line;) {
            size_t k = strcspn(t, " ");
            n += (size_t)snprintf(line + n, sizeof line - n, "%c%.*s=1",
                                  t == rt->query ? '?' : '&', (int)k, t);
            t += k;
            t += *t == ' ';
        }
        fuzz_emit('u', line, n);
    }
}
