/*
 * jsonv.h: strict validation of request JSON.
 *
 * Every getter takes the object, the JSON path of that object ("" for the
 * top level) and a key, and reports errors with the full field path
 * (e.g. "sides[0].units[2].quality") and, for numbers, the allowed range.
 * A getter whose key is absent leaves *out alone and returns ERR_OK unless
 * the field is required (ERR_MISSING).  JSON null counts as absent only
 * where a getter says so.
 */
#ifndef UMPIRE_JSONV_H
#define UMPIRE_JSONV_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "err.h"

#define JV_PATH_MAX ERR_FIELD_MAX

/* out = base.key (or key when base is ""); returns out. */
char *jv_path(char *out, const char *base, const char *key);
/* out = base[i]. */
void jv_index(char *out, const char *base, size_t i);

/* ERR_INVALID unless v is an object; ERR_UNKNOWN_FIELD for a key not in
 * allowed (NULL-terminated). */
err_code jv_object_only(const json_t *v, const char *path,
                        const char *const allowed[], err_info *e);
/* jv_object_only's check, of the names (NULL-terminated) whose bit (1u
 * << their index) is in allowed (a name from the 33rd on always is), and
 * (vals not NULL) vals[i] the value of names[i], NULL where v has none
 * (vals holds a slot for every name; on an error it may be partly
 * filled, and is not to be read): a parser then gives each to a _val
 * getter below, rather than looking each name up again (a lookup of a
 * field that is not there costs as much as one that is). */
err_code jv_object_fields(const json_t *v, const char *path,
                          const char *const names[], unsigned allowed,
                          json_t *vals[], err_info *e);

err_code jv_int(const json_t *obj, const char *path, const char *key,
                bool required, int lo, int hi, int *out, err_info *e);
err_code jv_bool(const json_t *obj, const char *path, const char *key,
                 bool required, bool *out, err_info *e);
/* A string of 1..max_len bytes (min 0 if allow_empty); *out borrowed. */
err_code jv_string(const json_t *obj, const char *path, const char *key,
                   bool required, size_t max_len, const char **out,
                   err_info *e);
/* An array of min..max elements; *out borrowed. */
err_code jv_array(const json_t *obj, const char *path, const char *key,
                  bool required, size_t min, size_t max, json_t **out,
                  err_info *e);
/* An object; *out borrowed. */
err_code jv_object(const json_t *obj, const char *path, const char *key,
                   bool required, json_t **out, err_info *e);
/* As jv_int, jv_bool and jv_string, of the member's value v (NULL when
 * the object has none), key naming it in errors. */
err_code jv_int_val(const json_t *v, const char *path, const char *key,
                    bool required, int lo, int hi, int *out, err_info *e);
err_code jv_bool_val(const json_t *v, const char *path, const char *key,
                     bool required, bool *out, err_info *e);
err_code jv_string_val(const json_t *v, const char *path, const char *key,
                       bool required, size_t max_len, const char **out,
                       err_info *e);
/* One of the strings in choices (NULL-terminated); *out its index. */
err_code jv_enum(const json_t *obj, const char *path, const char *key,
                 bool required, const char *const choices[], int *out,
                 err_info *e);

#endif
