/*
 * problem.h: domain errors to HTTP: the one place that knows which status
 * each err_code means, and the RFC 9457 problem document for it.
 */
#ifndef UMPIRE_PROBLEM_H
#define UMPIRE_PROBLEM_H

#include <jansson.h>

#include "err.h"

int problem_status(err_code code);

/* A new problem document for e (code, field, detail). */
json_t *problem_json(const err_info *e);

/* A new problem document from parts (field may be NULL). */
json_t *problem_make(int status, const char *code, const char *title,
                     const char *detail, const char *field);

#endif
