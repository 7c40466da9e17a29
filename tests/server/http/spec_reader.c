/*
 * spec_reader.c: api-spec/openapi.yaml for the spec tests, and what the
 * route table says each operation must document; see spec_reader.h.
 */
#include "spec_reader.h"

#include "console.h"
#include "problem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 64 /* components/parameters */
#define MAX_REFS   16 /* parameters of one operation */

/* A parameter of components/parameters. */
typedef struct comp_param {
    char key[64];  /* its key there: Format, PageLimit ... */
    char name[32]; /* its name: format, limit ... */
    char in[16];   /* query, path, header */
} comp_param;

/* What the reader is in. */
typedef struct reader {
    spec_doc *d;
    comp_param params[MAX_PARAMS];
    int n_params;
    char refs[SPEC_MAX_OPS][MAX_REFS][64]; /* each operation's parameters */
    int n_refs[SPEC_MAX_OPS];
    char path[160];
    spec_op *op;       /* the operation read, or NULL */
    int section;       /* 0 none, 1 paths, 2 components/parameters */
    int block;         /* in an operation: 0 none, 1 parameters, 2 responses */
    bool is_inline_in; /* an inline parameter's "in:" is next */
} reader;

const char *spec_file(void)
{
    const char *p = getenv("UMPIRE_API_SPEC");

    return p && p[0] ? p : "api-spec/openapi.yaml";
}

/* The indent of line, and whether the rest is key + ':' (then *key). */
static int indent_of(const char *line)
{
    return (int)strspn(line, " ");
}

static bool is_key(const char *line, int indent, const char *key)
{
    size_t n = strlen(key);

    return indent_of(line) == indent && strncmp(line + indent, key, n) == 0 &&
           line[indent + n] == ':';
}

static void read_path_line(reader *rd, const char *line)
{
    static const char *const methods[] = {"get",   "head",   "post",    "put",
                                          "patch", "delete", "options", NULL};
    int ind = indent_of(line), i;
    size_t len = strlen(line);

    if (ind == 2 && line[2] == '/' && line[len - 1] == ':') {
        snprintf(rd->path, sizeof rd->path, "%.*s", (int)(len - 3), line + 2);
        rd->op = NULL;
        return;
    }
    if (ind == 4) {
        rd->op = NULL;
        for (i = 0; methods[i]; i++)
            if (is_key(line, 4, methods[i]) &&
                line[4 + strlen(methods[i]) + 1] == '\0') {
                spec_op *op;
                size_t k;
                ck_assert_int_lt(rd->d->n_ops, SPEC_MAX_OPS);
                op = &rd->d->ops[rd->d->n_ops++];
                for (k = 0; methods[i][k]; k++)
                    op->method[k] = (char)toupper((unsigned char)methods[i][k]);
                snprintf(op->path, sizeof op->path, "%s", rd->path);
                rd->op = op;
            }
        rd->block = 0;
        return;
    }
    if (rd->op == NULL)
        return;
    if (ind == 6) {
        if (is_key(line, 6, "requestBody"))
            rd->op->has_body = true;
        rd->block = is_key(line, 6, "parameters")  ? 1
                    : is_key(line, 6, "responses") ? 2
                                                   : 0;
        return;
    }
    if (rd->block == 1) {
        int k = (int)(rd->op - rd->d->ops);
        const char *ref = strstr(line, "#/components/parameters/");
        if (ind == 8 && ref) {
            ck_assert_int_lt(rd->n_refs[k], MAX_REFS);
            snprintf(rd->refs[k][rd->n_refs[k]++], 64, "%.*s",
                     (int)strcspn(ref + 24, "'\""), ref + 24);
        } else if (ind == 8 && strncmp(line + 8, "- name: ", 8) == 0) {
            ck_assert_int_lt(rd->op->n_query, SPEC_MAX_QUERY);
            snprintf(rd->op->query[rd->op->n_query], 32, "%.31s", line + 16);
            rd->is_inline_in = true;
        } else if (ind == 10 && rd->is_inline_in &&
                   strncmp(line + 10, "in: ", 4) == 0) {
            rd->is_inline_in = false;
            if (strcmp(line + 14, "query") == 0)
                rd->op->n_query++; /* keep it: a query parameter */
        }
    } else if (rd->block == 2 && ind == 8 && line[8] == '\'' &&
               isdigit((unsigned char)line[9])) {
        ck_assert_int_lt(rd->op->n_statuses, SPEC_MAX_STATUSES);
        rd->op->statuses[rd->op->n_statuses++] = atoi(line + 9);
    }
}

static void read_component_line(reader *rd, const char *line)
{
    int ind = indent_of(line);
    comp_param *p;
    size_t len = strlen(line);

    if (ind == 4 && line[len - 1] == ':') {
        ck_assert_int_lt(rd->n_params, MAX_PARAMS);
        p = &rd->params[rd->n_params++];
        snprintf(p->key, sizeof p->key, "%.*s", (int)(len - 5), line + 4);
        return;
    }
    if (rd->n_params == 0 || ind != 6)
        return;
    p = &rd->params[rd->n_params - 1];
    if (strncmp(line + 6, "name: ", 6) == 0)
        snprintf(p->name, sizeof p->name, "%.31s", line + 12);
    else if (strncmp(line + 6, "in: ", 4) == 0)
        snprintf(p->in, sizeof p->in, "%.15s", line + 10);
}

/* Each operation's referenced query parameters, by name. */
static void resolve(reader *rd)
{
    int k, i, j;

    for (k = 0; k < rd->d->n_ops; k++)
        for (i = 0; i < rd->n_refs[k]; i++) {
            const comp_param *p = NULL;
            spec_op *op = &rd->d->ops[k];
            for (j = 0; j < rd->n_params; j++)
                if (strcmp(rd->params[j].key, rd->refs[k][i]) == 0)
                    p = &rd->params[j];
            ck_assert_msg(p != NULL, "%s %s: no parameter %s in components",
                          op->method, op->path, rd->refs[k][i]);
            if (strcmp(p->in, "query") != 0)
                continue;
            ck_assert_int_lt(op->n_query, SPEC_MAX_QUERY);
            snprintf(op->query[op->n_query++], 32, "%s", p->name);
        }
}

spec_doc *spec_read(void)
{
    FILE *f = fopen(spec_file(), "r");
    reader *rd = calloc(1, sizeof *rd);
    char line[1024];

    ck_assert_msg(f != NULL, "cannot read %s", spec_file());
    ck_assert_ptr_nonnull(rd);
    rd->d = calloc(1, sizeof *rd->d);
    ck_assert_ptr_nonnull(rd->d);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != ' ' && line[0] != '\0' && line[0] != '#') {
            rd->section = strcmp(line, "paths:") == 0 ? 1 : 0;
            rd->op = NULL;
            if (strcmp(line, "components:") == 0)
                rd->section = 3; /* until its "parameters:" */
            continue;
        }
        if (rd->section >= 2 && indent_of(line) == 2 && line[2] != ' ')
            rd->section = is_key(line, 2, "parameters") ? 2 : 3;
        else if (rd->section == 1 && line[0])
            read_path_line(rd, line);
        else if (rd->section == 2 && line[0])
            read_component_line(rd, line);
    }
    fclose(f);
    resolve(rd);
    {
        spec_doc *d = rd->d;
        free(rd);
        return d;
    }
}

const spec_op *spec_find(const spec_doc *d, const char *method,
                         const char *path)
{
    int i;

    for (i = 0; i < d->n_ops; i++)
        if (strcmp(d->ops[i].method, method) == 0 &&
            strcmp(d->ops[i].path, path) == 0)
            return &d->ops[i];
    return NULL;
}

bool spec_has_status(const spec_op *op, int status)
{
    int i;

    for (i = 0; i < op->n_statuses; i++)
        if (op->statuses[i] == status)
            return true;
    return false;
}

bool spec_has_query(const spec_op *op, const char *name)
{
    int i;

    for (i = 0; i < op->n_query; i++)
        if (strcmp(op->query[i], name) == 0)
            return true;
    return false;
}

const router_route *spec_route(const char *method, const char *path)
{
    size_t k;

    if (strcmp(method, "HEAD") == 0)
        method = "GET";
    for (k = 0; k < router_n_routes; k++)
        if (strcmp(router_routes[k].method, method) == 0 &&
            strcmp(router_routes[k].path, path) == 0)
            return &router_routes[k];
    return NULL;
}

/* Whether some err_code answers status (problem_status): the codes are
 * scanned past the enum's end, which answers 500. */
static bool is_answered_for_an_error(int status)
{
    int c;

    for (c = 0; c < 64; c++)
        if (problem_status((err_code)c) == status)
            return true;
    return false;
}

/* A path parameter other than the campaign (whose unknown ids are 403). */
static bool has_lookup_param(const char *path)
{
    const char *p = path;

    while ((p = strchr(p, '{')) != NULL) {
        if (strncmp(p, "{campaign_id}", 13) != 0)
            return true;
        p++;
    }
    return false;
}

static void add(int out[], const char *why[], int *n, int status,
                const char *reason)
{
    int i;

    for (i = 0; i < *n; i++)
        if (out[i] == status)
            return;
    ck_assert_int_lt(*n, SPEC_MAX_STATUSES);
    why[*n] = reason;
    out[(*n)++] = status;
}

int spec_required(const router_route *rt, const spec_op *op,
                  int out[SPEC_MAX_STATUSES], const char *why[])
{
    const char *method = op->method;
    bool has_body = strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 ||
                    strcmp(method, "PATCH") == 0;
    int n = 0;

    if (strcmp(method, "OPTIONS") == 0) {
        add(out, why, &n, 204, "OPTIONS answers Allow");
        if (!console_is_path(rt->path))
            add(out, why, &n, 403, "a CORS preflight from another origin");
        add(out, why, &n, 413, "any request with a body over the limit");
        add(out, why, &n, 415, "any request with a body not JSON");
        add(out, why, &n, 503, "any request while the service stops");
        return n;
    }
    add(out, why, &n, 400, "an unknown query parameter");
    add(out, why, &n, 500, "a server fault");
    add(out, why, &n, 503, "any request while the service stops");
    if (strcmp(method, "HEAD") != 0)
        add(out, why, &n, 405, "the path's other methods");
    if (rt->auth != ROUTER_PUBLIC)
        add(out, why, &n, 401, "no token or an unknown one");
    if (rt->auth == ROUTER_READ || rt->auth == ROUTER_UMPIRE)
        add(out, why, &n, 403, "a token of another campaign");
    if (has_lookup_param(rt->path) && strcmp(method, "PUT") != 0)
        add(out, why, &n, 404, "a path parameter naming nothing");
    if (router_takes(rt, "format") && !(rt->flags & ROUTER_RENDERS))
        add(out, why, &n, 406, "format=md on a JSON-only read");
    if (rt->query[0])
        add(out, why, &n, 422, "a bad query parameter value");
    if (has_body) {
        add(out, why, &n, 413, "a body over the limit");
        add(out, why, &n, 415, "a body that is not JSON");
        if (op->has_body)
            add(out, why, &n, 422, "an invalid body");
    }
    if (rt->flags & ROUTER_ROLLS) {
        add(out, why, &n, 409, "an Idempotency-Key in flight");
        add(out, why, &n, 422, "a bad Idempotency-Key");
    }
    if ((rt->flags & ROUTER_WRITES) && is_answered_for_an_error(507))
        add(out, why, &n, 507, "a write on a full disk (problem_status)");
    if (is_answered_for_an_error(429))
        add(out, why, &n, 429, "too many requests (problem_status)");
    if (is_answered_for_an_error(503))
        add(out, why, &n, 503, "unavailable (problem_status)");
    return n;
}

void spec_instantiate(const char *tmpl, const char *value, char *out, size_t n)
{
    size_t o = 0;

    while (*tmpl && o + 1 < n) {
        if (*tmpl == '{') {
            const char *end = strchr(tmpl, '}');
            bool is_campaign = strncmp(tmpl, "{campaign_id}", 13) == 0;
            o += (size_t)snprintf(out + o, n - o, "%s",
                                  is_campaign && value ? value
                                                       : "x_placeholder");
            tmpl = end + 1;
        } else {
            out[o++] = *tmpl++;
        }
    }
    out[o] = '\0';
}
