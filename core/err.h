/*
 * err.h: the project-wide error codes and the error details struct.
 *
 * Every fallible function returns an err_code (ERR_OK is 0) and may fill an
 * optional err_info owned by the caller.  The first error wins: once an
 * err_info holds an error, later err_set calls leave it unchanged, so the
 * innermost, most precise description reaches the user.
 */
#ifndef UMPIRE_ERR_H
#define UMPIRE_ERR_H

#include <stddef.h>

typedef enum err_code {
    ERR_OK = 0,
    ERR_INVALID,       /* a value is malformed or of the wrong type */
    ERR_RANGE,         /* a value is outside its documented range */
    ERR_MISSING,       /* a required field is absent */
    ERR_UNKNOWN_FIELD, /* a field that the schema does not define */
    ERR_LIMIT,         /* a documented count limit is exceeded */
    ERR_TOO_LARGE,     /* a request body over the size limit */
    ERR_NOT_FOUND,     /* no such resource (or not visible to the caller) */
    ERR_CONFLICT,      /* the request contradicts the resource's state */
    ERR_RULE,         /* the rules forbid it (e.g. an eliminated unit fights) */
    ERR_UNAUTHORIZED, /* no credentials or unknown credentials */
    ERR_FORBIDDEN,    /* credentials valid but not for this */
    ERR_DICE,         /* the dice source cannot give a die (entered/replay) */
    ERR_NOMEM,
    ERR_DB, /* the database failed */
    ERR_INTERNAL,
    ERR_FULL,       /* the database's disk is full: nothing was written */
    ERR_UNAVAILABLE /* the database cannot be reached (or is not the
                       primary): nothing was written */
} err_code;

#define ERR_FIELD_MAX   160
#define ERR_MESSAGE_MAX 320

typedef struct err_info {
    err_code code;                 /* ERR_OK while no error is recorded */
    char field[ERR_FIELD_MAX];     /* JSON path of the offending field, or "" */
    char message[ERR_MESSAGE_MAX]; /* one sentence for a human */
} err_info;

/* Clears e (NULL allowed). */
void err_clear(err_info *e);

/*
 * Records an error in e unless e is NULL or already holds one.  field may be
 * NULL.  Returns code, so callers can write `return err_set(e, ...)`.
 */
err_code err_set(err_info *e, err_code code, const char *field, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));

/* A stable lower-case name for code, e.g. "out_of_range". */
const char *err_code_name(err_code code);

#endif
