/*
 * jsonv.c: strict request validation; see jsonv.h.
 */
#include "jsonv.h"

#include <stdio.h>
#include <string.h>

/* Appends n bytes of p at out[*len], truncating at JV_PATH_MAX. */
static void append(char *out, size_t *len, const char *p, size_t n)
{
    if (*len + n >= JV_PATH_MAX)
        n = JV_PATH_MAX - 1 - *len;
    memcpy(out + *len, p, n);
    *len += n;
    out[*len] = '\0';
}

char *jv_path(char *out, const char *base, const char *key)
{
    size_t len = 0;

    out[0] = '\0';
    if (base != NULL && base[0] != '\0') {
        append(out, &len, base, strlen(base));
        append(out, &len, ".", 1);
    }
    append(out, &len, key, strlen(key));
    return out;
}

void jv_index(char *out, const char *base, size_t i)
{
    char num[24], *p = num + sizeof num;
    size_t len = 0;

    *--p = ']';
    do {
        *--p = (char)('0' + i % 10);
        i /= 10;
    } while (i > 0);
    *--p = '[';
    out[0] = '\0';
    append(out, &len, base, strlen(base));
    append(out, &len, p, (size_t)(num + sizeof num - p));
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

err_code jv_object_fields(const json_t *v, const char *path,
                          const char *const names[], unsigned allowed,
                          json_t *vals[], err_info *e)
{
    const char *key;
    json_t *val;
    char f[JV_PATH_MAX];
    size_t i;

    if (vals != NULL)
        for (i = 0; names[i]; i++)
            vals[i] = NULL;
    if (!json_is_object(v))
        return err_set(e, ERR_INVALID, path[0] ? path : NULL,
                       "must be an object, not %s", type_name(v));
    json_object_foreach((json_t *)v, key, val)
    {
        /* the first byte first: most names differ there */
        for (i = 0; names[i]; i++)
            if (names[i][0] == key[0] && (i >= 32 || (allowed & (1u << i))) &&
                strcmp(names[i], key) == 0)
                break;
        if (names[i] == NULL) {
            jv_path(f, path, key);
            return err_set(e, ERR_UNKNOWN_FIELD, f, "unknown field \"%s\"",
                           key);
        }
        if (vals != NULL)
            vals[i] = val;
    }
    return ERR_OK;
}

err_code jv_object_only(const json_t *v, const char *path,
                        const char *const allowed[], err_info *e)
{
    return jv_object_fields(v, path, allowed, ~0u, NULL, e);
}

/* The JSON types a getter accepts, and how an error names each. */
typedef enum jv_type {
    JV_INT,
    JV_BOOL,
    JV_STRING,
    JV_ARRAY,
    JV_OBJECT
} jv_type;

static bool is_type(const json_t *v, jv_type t)
{
    switch (t) {
    case JV_INT: return json_is_integer(v);
    case JV_BOOL: return json_is_boolean(v);
    case JV_STRING: return json_is_string(v);
    case JV_ARRAY: return json_is_array(v);
    case JV_OBJECT: return json_is_object(v);
    }
    return false;
}

static const char *const type_wanted[] = {"an integer", "true or false",
                                          "a string", "an array", "an object"};

/*
 * v, the member key of an object (NULL when absent): ERR_MISSING when it
 * is absent and required, ERR_INVALID when present but not of type t.
 * The field path f is formatted only when there is an error to report.
 */
static err_code check(const json_t *v, const char *path, const char *key,
                      bool required, jv_type t, char *f, err_info *e)
{
    if (v == NULL && required) {
        jv_path(f, path, key);
        return err_set(e, ERR_MISSING, f, "the field \"%s\" is required", key);
    }
    if (v != NULL && !is_type(v, t)) {
        jv_path(f, path, key);
        return err_set(e, ERR_INVALID, f, "must be %s, not %s", type_wanted[t],
                       type_name(v));
    }
    return ERR_OK;
}

err_code jv_int_val(const json_t *v, const char *path, const char *key,
                    bool required, int lo, int hi, int *out, err_info *e)
{
    char f[JV_PATH_MAX];
    err_code rc;
    json_int_t n;

    if (v == NULL && !required) /* absent: nothing to check */
        return ERR_OK;
    if ((rc = check(v, path, key, required, JV_INT, f, e)) || v == NULL)
        return rc;
    n = json_integer_value(v);
    if (n < lo || n > hi) {
        jv_path(f, path, key);
        return err_set(e, ERR_RANGE, f,
                       "must be between %d and %d, not %" JSON_INTEGER_FORMAT,
                       lo, hi, n);
    }
    *out = (int)n;
    return ERR_OK;
}

err_code jv_int(const json_t *obj, const char *path, const char *key,
                bool required, int lo, int hi, int *out, err_info *e)
{
    return jv_int_val(json_object_get(obj, key), path, key, required, lo, hi,
                      out, e);
}

err_code jv_bool_val(const json_t *v, const char *path, const char *key,
                     bool required, bool *out, err_info *e)
{
    char f[JV_PATH_MAX];
    err_code rc;

    if (v == NULL && !required) /* absent: nothing to check */
        return ERR_OK;
    if ((rc = check(v, path, key, required, JV_BOOL, f, e)) || v == NULL)
        return rc;
    *out = json_is_true(v);
    return ERR_OK;
}

err_code jv_bool(const json_t *obj, const char *path, const char *key,
                 bool required, bool *out, err_info *e)
{
    return jv_bool_val(json_object_get(obj, key), path, key, required, out, e);
}

err_code jv_string_val(const json_t *v, const char *path, const char *key,
                       bool required, size_t max_len, const char **out,
                       err_info *e)
{
    char f[JV_PATH_MAX];
    err_code rc;
    size_t len;

    if (v == NULL && !required) /* absent: nothing to check */
        return ERR_OK;
    if ((rc = check(v, path, key, required, JV_STRING, f, e)) || v == NULL)
        return rc;
    len = json_string_length(v);
    if (len == 0 || len > max_len) {
        jv_path(f, path, key);
        return err_set(e, ERR_RANGE, f, "must be 1 to %zu bytes long, not %zu",
                       max_len, len);
    }
    if (strlen(json_string_value(v)) != len) {
        jv_path(f, path, key);
        return err_set(e, ERR_INVALID, f, "must not contain NUL characters");
    }
    *out = json_string_value(v);
    return ERR_OK;
}

err_code jv_string(const json_t *obj, const char *path, const char *key,
                   bool required, size_t max_len, const char **out, err_info *e)
{
    return jv_string_val(json_object_get(obj, key), path, key, required,
                         max_len, out, e);
}

err_code jv_array(const json_t *obj, const char *path, const char *key,
                  bool required, size_t min, size_t max, json_t **out,
                  err_info *e)
{
    char f[JV_PATH_MAX];
    json_t *v = json_object_get(obj, key);
    err_code rc;
    size_t n;

    if ((rc = check(v, path, key, required, JV_ARRAY, f, e)) || v == NULL)
        return rc;
    n = json_array_size(v);
    if (n > max || n < min) {
        jv_path(f, path, key);
        if (n > max)
            return err_set(e, ERR_LIMIT, f, "holds at most %zu items, not %zu",
                           max, n);
        return err_set(e, ERR_RANGE, f, "needs at least %zu items, not %zu",
                       min, n);
    }
    *out = v;
    return ERR_OK;
}

err_code jv_object(const json_t *obj, const char *path, const char *key,
                   bool required, json_t **out, err_info *e)
{
    char f[JV_PATH_MAX];
    json_t *v = json_object_get(obj, key);
    err_code rc;

    if ((rc = check(v, path, key, required, JV_OBJECT, f, e)) || v == NULL)
        return rc;
    *out = v;
    return ERR_OK;
}

err_code jv_enum(const json_t *obj, const char *path, const char *key,
                 bool required, const char *const choices[], int *out,
                 err_info *e)
{
    char f[JV_PATH_MAX], list[160] = "";
    const char *s = NULL;
    err_code rc;
    int i;

    if ((rc = jv_string(obj, path, key, required, 64, &s, e)))
        return rc;
    if (s == NULL)
        return ERR_OK;
    for (i = 0; choices[i]; i++) {
        if (strcmp(choices[i], s) == 0) {
            *out = i;
            return ERR_OK;
        }
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 i ? ", " : "", choices[i]);
    }
    jv_path(f, path, key);
    return err_set(e, ERR_INVALID, f, "must be one of %s, not \"%s\"", list, s);
}
