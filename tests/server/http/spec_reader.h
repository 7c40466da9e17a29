/*
 * spec_reader.h: api-spec/openapi.yaml as the spec tests (test_spec.c,
 * test_spec_http.c) read it: its operations, each with the statuses it
 * documents and the query parameters it lists, and what the route table
 * (router.h) says each operation must document.
 *
 * The spec is read line by line: under "paths:", a path sits at exactly two
 * spaces of indent, each operation's method at four, its "parameters:" and
 * "responses:" at six, a parameter ("- $ref:" or "- name:") and a status
 * at eight; under "components:" "parameters:", each parameter at four with
 * its "name:" and "in:" at six.
 */
#ifndef UMPIRE_TESTS_SPEC_READER_H
#define UMPIRE_TESTS_SPEC_READER_H

#include <check.h>
#include <stdbool.h>

#include "router.h"

#define SPEC_MAX_OPS      192
#define SPEC_MAX_STATUSES 24
#define SPEC_MAX_QUERY    12

typedef struct spec_op {
    char method[8]; /* upper case: GET, HEAD, OPTIONS, POST ... */
    char path[160];
    int statuses[SPEC_MAX_STATUSES]; /* documented, in the spec's order */
    int n_statuses;
    char query[SPEC_MAX_QUERY][32]; /* its query parameters' names */
    int n_query;
    bool has_body; /* it has a requestBody */
} spec_op;

typedef struct spec_doc {
    spec_op ops[SPEC_MAX_OPS];
    int n_ops;
} spec_doc;

/* The spec's file: $UMPIRE_API_SPEC or api-spec/openapi.yaml. */
const char *spec_file(void);

/* Reads the spec into *d (aborts the test when it cannot); new: free(). */
spec_doc *spec_read(void);

/* The operation method path, or NULL. */
const spec_op *spec_find(const spec_doc *d, const char *method,
                         const char *path);

/* Whether op documents status. */
bool spec_has_status(const spec_op *op, int status);

/* Whether op lists the query parameter name. */
bool spec_has_query(const spec_op *op, const char *name);

/*
 * The statuses the operation op (GET, HEAD, OPTIONS, POST ... of rt's path)
 * must document, derived from the route table and problem_status
 * (problem.h), and from op only whether it takes a body (a POST that takes
 * none, a replay, validates none: no 422 for it); returns how many went
 * into out (SPEC_MAX_STATUSES at most).  why[i] says where each comes
 * from.
 */
int spec_required(const router_route *rt, const spec_op *op,
                  int out[SPEC_MAX_STATUSES], const char *why[]);

/* The route of method (HEAD: GET's) and path in the table, or NULL. */
const router_route *spec_route(const char *method, const char *path);

/* Fills {params} of tmpl with value, into out (n bytes). */
void spec_instantiate(const char *tmpl, const char *value, char *out, size_t n);

/* TCase of test_spec_http.c: answers over HTTP against the spec. */
TCase *spec_http_tcase(void);

#endif
