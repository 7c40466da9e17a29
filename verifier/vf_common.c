/*
 * vf_common.c: the report and the field readers both checks of
 * umpire-verify use; see vf_common.h.
 */
#include "vf_common.h"

#include <stdarg.h>
#include <string.h>

/* ---- reporting ----------------------------------------------------------- */

/* A problem: printed at once and counted; the first is kept. */
void vf_problem(vf_checker *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    if (c->n_problems++ == 0)
        memcpy(c->first, c->msg, sizeof c->msg);
    fprintf(c->out, "PROBLEM: %s\n", c->msg);
}

/* The summary line of a check that found problems; returns VF_MISMATCH. */
vf_result vf_not_verified(const vf_checker *c)
{
    fprintf(c->out, "%s: NOT VERIFIED: %d problem%s; the first: %s\n",
            c->label ? c->label : "RESULT", c->n_problems,
            c->n_problems == 1 ? "" : "s", c->first);
    return VF_MISMATCH;
}

/* Says why the input cannot be used; returns VF_BAD_INPUT. */
vf_result vf_bad_input(FILE *out, const char *fmt, ...)
{
    va_list ap;

    fputs("UNUSABLE INPUT: ", out);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    return VF_BAD_INPUT;
}

/* ---- reading fields ------------------------------------------------------ */

/*
 * obj[key] into *s: a string, or NULL when it is null or absent.  Returns
 * -1 when it is of another type, or absent and is_required.
 */
int vf_get_str(const json_t *obj, const char *key, bool is_required,
               const char **s)
{
    const json_t *v = json_object_get(obj, key);

    *s = NULL;
    if (v == NULL)
        return is_required ? -1 : 0;
    if (json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    *s = json_string_value(v);
    return 0;
}

/* obj[key] as an integer in lo..hi into *n; -1 otherwise. */
int vf_get_int(const json_t *obj, const char *key, json_int_t lo, json_int_t hi,
               json_int_t *n)
{
    const json_t *v = json_object_get(obj, key);

    if (!json_is_integer(v))
        return -1;
    *n = json_integer_value(v);
    return *n >= lo && *n <= hi ? 0 : -1;
}

/* hex, when not NULL, as 32 bytes into out; -1 if NULL or malformed. */
int vf_get_hash(const char *hex, uint8_t out[VF_SHA256_LEN])
{
    return hex != NULL && vf_unhex(hex, out, VF_SHA256_LEN) == 0 ? 0 : -1;
}

/* obj[key] as text, "" when it is null or absent (already validated). */
const char *vf_text_of(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));

    return s != NULL ? s : "";
}

/* Its length in bytes: a client seed may hold any bytes, NUL included. */
size_t vf_len_of(const json_t *obj, const char *key)
{
    return json_string_length(json_object_get(obj, key));
}
