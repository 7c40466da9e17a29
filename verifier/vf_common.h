/*
 * vf_common.h: what the two checks of umpire-verify share, the combat
 * report's (vf_verify.c) and the ledger's (vf_ledger.c): the report for
 * people, its problems and its summary line, and readers of JSON fields
 * that validate as they read.  Internal to verifier/: the API is
 * vf_verify.h.
 *
 * Every name carries the prefix vf_, as in vf_crypto.h: these are linked
 * into the same test binary as the service.  Strings read are borrowed
 * from the document.
 */
#ifndef UMPIRE_VF_COMMON_H
#define UMPIRE_VF_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "vf_crypto.h"
#include "vf_verify.h"

#define VF_HEX_LEN (2 * VF_SHA256_LEN + 1) /* a digest in hex, with its NUL */

/* ---- reporting ----------------------------------------------------------- */

/* What a check has found so far; {.out = out} starts one. */
typedef struct vf_checker {
    FILE *out;
    const char *label; /* its summary line's first word: NULL for "RESULT",
                          the program's; a part of a bigger check names
                          itself */
    int n_problems;
    char first[512]; /* the first problem, repeated in the summary */
    char msg[512];   /* the latest one */
} vf_checker;

/* A problem: printed at once and counted; the first is kept. */
void vf_problem(vf_checker *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The summary line of a check that found problems; returns VF_MISMATCH. */
vf_result vf_not_verified(const vf_checker *c);

/*
 * A combat report's check (vf_verify_combat), its summary line starting
 * with label ("RESULT" for the program's, else the name of this part of a
 * bigger check, as a shared link's).
 */
vf_result vf_combat_check(const json_t *report, FILE *out, const char *label);

/* Says on out why the input cannot be used; returns VF_BAD_INPUT. */
vf_result vf_bad_input(FILE *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- reading fields ------------------------------------------------------ */

/*
 * obj[key] into *s: a string, or NULL when it is null or absent.  Returns
 * -1 when it is of another type, or absent and is_required.
 */
int vf_get_str(const json_t *obj, const char *key, bool is_required,
               const char **s);

/* obj[key] as an integer in lo..hi into *n; -1 otherwise. */
int vf_get_int(const json_t *obj, const char *key, json_int_t lo, json_int_t hi,
               json_int_t *n);

/* hex, when not NULL, as 32 bytes into out; -1 if NULL or malformed. */
int vf_get_hash(const char *hex, uint8_t out[VF_SHA256_LEN]);

/* obj[key] as text, "" when it is null or absent (already validated). */
const char *vf_text_of(const json_t *obj, const char *key);

/* Its length in bytes: a client seed may hold any bytes, NUL included. */
size_t vf_len_of(const json_t *obj, const char *key);

#endif
