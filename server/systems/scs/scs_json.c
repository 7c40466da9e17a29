/*
 * scs_json.c: SCS documents in JSON; see scs_json.h.
 */
#include "scs_json.h"
#include "jsonv.h"

#include <stdio.h>
#include <string.h>

/* The example table of docs/rules/scs.md: for trying the service out and
 * for tests, not from any published game. */
static const char builtin_example[] =
    "{\"name\": \"example-2d6\","
    " \"note\": \"An example table for tests, not from any published game.\","
    " \"roll\": \"2d6\","
    " \"columns\": [\"1:2\", \"1:1\", \"2:1\", \"3:1\", \"4:1\", \"5:1\", "
    "\"6:1\"],"
    " \"rows\": {"
    "  \"2\":  [\"A2r1\", \"A2r1\", \"A1r1\", \"A1\", \"A1 D1\", \"D1r1\", "
    "\"D1r2\"],"
    "  \"3\":  [\"A2r1\", \"A1r1\", \"A1\", \"A1 D1\", \"D1r1\", \"D1r2\", "
    "\"D2r2\"],"
    "  \"4\":  [\"A1r1\", \"A1\", \"A1 D1\", \"D1r1\", \"D1r2\", \"D2r2\", "
    "\"D2r3\"],"
    "  \"5\":  [\"A1\", \"A1 D1\", \"D1r1\", \"D1r2\", \"D2r2\", \"D2r2\", "
    "\"D2r3\"],"
    "  \"6\":  [\"A1\", \"D1r1\", \"D1r2\", \"D1r2\", \"D2r2\", \"D2r3\", "
    "\"D3r3\"],"
    "  \"7\":  [\"A1 D1\", \"D1r1\", \"D1r2\", \"D2r2\", \"D2r3\", \"D2r3\", "
    "\"D3r3\"],"
    "  \"8\":  [\"D1r1\", \"D1r2\", \"D2r2\", \"D2r2\", \"D2r3\", \"D3r3\", "
    "\"D3r4\"],"
    "  \"9\":  [\"D1r1\", \"D1r2\", \"D2r2\", \"D2r3\", \"D3r3\", \"D3r3\", "
    "\"D3r4\"],"
    "  \"10\": [\"D1r2\", \"D2r2\", \"D2r3\", \"D3r3\", \"D3r3\", \"D3r4\", "
    "\"D4r4\"],"
    "  \"11\": [\"D1r2\", \"D2r2\", \"D2r3\", \"D3r3\", \"D3r4\", \"D4r4\", "
    "\"D4r4\"],"
    "  \"12\": [\"D2r2\", \"D2r3\", \"D3r3\", \"D3r4\", \"D4r4\", \"D4r4\", "
    "\"D4r5\"]"
    " }}";

static const struct {
    const char *doc;
    bool is_example;
} builtins[] = {
    {builtin_example, true},
};

/* ---- tables ---- */

static err_code parse_columns(const json_t *cols, const char *path,
                              scs_table *t, err_info *e)
{
    char f[JV_PATH_MAX];
    const char *why;
    size_t i;
    int bad;

    for (i = 0; i < json_array_size(cols); i++) {
        const json_t *c = json_array_get(cols, i);
        jv_index(f, path, i);
        if (!json_is_string(c) ||
            !scs_odds_parse(json_string_value(c), &t->columns[i]))
            return err_set(e, ERR_INVALID, f,
                           "a column is odds such as \"1:2\" or \"3:1\"");
    }
    t->n_columns = (int)json_array_size(cols);
    if (!scs_table_check_columns(t, &bad, &why)) {
        jv_index(f, path, (size_t)bad);
        return err_set(e, ERR_INVALID, f, "the column %s %s",
                       json_string_value(json_array_get(cols, (size_t)bad)),
                       why);
    }
    return ERR_OK;
}

/* One row: a result per column, each parsed. */
static err_code parse_row(const json_t *row, const char *path, int r,
                          const json_t *cols, scs_table *t, err_info *e)
{
    char f[JV_PATH_MAX];
    size_t i;

    if (!json_is_array(row) || json_array_size(row) != (size_t)t->n_columns)
        return err_set(e, ERR_INVALID, path,
                       "a row has one result per column: %d", t->n_columns);
    for (i = 0; i < json_array_size(row); i++) {
        const json_t *cell = json_array_get(row, i);
        const char *s = json_string_value(cell), *why = "not a string";
        jv_index(f, path, i);
        if (s == NULL || !scs_result_parse(s, &t->results[r][i], &why))
            return err_set(e, ERR_INVALID, f,
                           "the result in column %s does not parse: %s",
                           json_string_value(json_array_get(cols, i)), why);
        snprintf(t->text[r][i], SCS_RESULT_TEXT, "%s", s);
    }
    return ERR_OK;
}

static err_code parse_rows(const json_t *rows, const char *path,
                           const json_t *cols, scs_table *t, err_info *e)
{
    char f[JV_PATH_MAX], label[4];
    const char *key;
    json_t *v;
    int r, n = scs_roll_rows(t->roll);
    err_code rc;

    json_object_foreach((json_t *)rows, key, v)
    {
        jv_path(f, path, key);
        for (r = 0; r < n; r++) {
            scs_roll_label(t->roll, r, label);
            if (strcmp(label, key) == 0)
                break;
        }
        if (r == n)
            return err_set(
                e, ERR_UNKNOWN_FIELD, f, "no roll of %s is %s: rows are %s",
                scs_roll_kind_name(t->roll), key,
                t->roll == SCS_ROLL_D66 ? "11 to 66, each digit 1 to 6"
                                        : "2 to 12");
    }
    for (r = 0; r < n; r++) {
        scs_roll_label(t->roll, r, label);
        jv_path(f, path, label);
        if ((v = json_object_get(rows, label)) == NULL)
            return err_set(e, ERR_MISSING, f,
                           "the table has no row for a "
                           "roll of %s",
                           label);
        if ((rc = parse_row(v, f, r, cols, t, e)))
            return rc;
    }
    return ERR_OK;
}

static const char *name_field(char f[JV_PATH_MAX], const char *path)
{
    jv_path(f, path, "name");
    return f;
}

err_code scs_json_table_parse(const json_t *doc, const char *path, scs_table *t,
                              err_info *e)
{
    /* builtin, example and the times are what GET shows: a table read
     * from the service can be put back as it is. */
    static const char *const fields[] = {
        "name",    "note",    "roll",       "columns",    "rows",
        "builtin", "example", "created_at", "updated_at", NULL};
    static const char *const kinds[] = {"2d6", "d66", NULL};
    json_t *cols = NULL, *rows = NULL;
    const char *s = NULL;
    char f[JV_PATH_MAX];
    int kind = 0;
    err_code rc;

    bool flag;

    memset(t, 0, sizeof *t);
    if ((rc = jv_object_only(doc, path, fields, e)) ||
        (rc = jv_bool(doc, path, "builtin", false, &flag, e)) ||
        (rc = jv_bool(doc, path, "example", false, &flag, e)) ||
        (rc = jv_string(doc, path, "created_at", false, 64, &s, e)) ||
        (rc = jv_string(doc, path, "updated_at", false, 64, &s, e)) ||
        (rc = jv_string(doc, path, "name", false, SCS_JSON_NAME_MAX, &s, e)) ||
        (s && !scs_json_name_ok(s, name_field(f, path), e) &&
         (rc = ERR_INVALID)) ||
        (rc = jv_string(doc, path, "note", false, SCS_JSON_NOTE_MAX, &s, e)) ||
        (rc = jv_enum(doc, path, "roll", true, kinds, &kind, e)) ||
        (rc = jv_array(doc, path, "columns", true, 1, SCS_MAX_COLUMNS, &cols,
                       e)) ||
        (rc = jv_object(doc, path, "rows", true, &rows, e)))
        return rc;
    t->roll = kind == 1 ? SCS_ROLL_D66 : SCS_ROLL_2D6;
    jv_path(f, path, "columns");
    if ((rc = parse_columns(cols, f, t, e)))
        return rc;
    jv_path(f, path, "rows");
    return parse_rows(rows, f, cols, t, e);
}

json_t *scs_json_table_doc(const json_t *doc, const char *name)
{
    const json_t *note = json_object_get(doc, "note");
    json_t *t = json_pack("{s:s}", "name", name);

    if (note)
        json_object_set(t, "note", (json_t *)note);
    json_object_set(t, "roll", json_object_get(doc, "roll"));
    json_object_set(t, "columns", json_object_get(doc, "columns"));
    json_object_set(t, "rows", json_object_get(doc, "rows"));
    return t;
}

static json_t *builtin_doc(size_t i)
{
    json_t *doc = json_loads(builtins[i].doc, 0, NULL);

    if (doc) {
        json_object_set_new(doc, "builtin", json_true());
        json_object_set_new(doc, "example",
                            json_boolean(builtins[i].is_example));
    }
    return doc;
}

json_t *scs_json_builtin_tables(void)
{
    json_t *items = json_array();
    size_t i;

    for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        json_array_append_new(items, builtin_doc(i));
    return items;
}

json_t *scs_json_builtin_table(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        json_t *doc = builtin_doc(i);
        const char *n = json_string_value(json_object_get(doc, "name"));
        if (n && strcmp(n, name) == 0)
            return doc;
        json_decref(doc);
    }
    return NULL;
}

bool scs_json_name_ok(const char *s, const char *field, err_info *e)
{
    size_t n = strlen(s), i;

    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' ||
              s[i] == '-'))
            break;
    if (n == 0 || n > SCS_JSON_NAME_MAX || i < n) {
        err_set(e, ERR_INVALID, field,
                "a table's name is 1 to %d letters, digits, '.', '_' or '-'",
                SCS_JSON_NAME_MAX);
        return false;
    }
    return true;
}

/* ---- fractions, counters, options ---- */

err_code scs_json_frac(const json_t *v, const char *path, scs_frac *out,
                       err_info *e)
{
    bool is_ok;

    if (json_is_integer(v)) {
        is_ok = json_integer_value(v) > 0;
        *out = scs_frac_int(json_integer_value(v));
    } else {
        is_ok = json_is_string(v) && scs_frac_parse(json_string_value(v), out);
    }
    if (!is_ok)
        return err_set(e, ERR_INVALID, path,
                       "a multiplier is a positive number or fraction, such "
                       "as 2, \"1/2\" or \"0.25\"");
    if (out->num > SCS_MULTIPLIER_MAX || out->den > SCS_MULTIPLIER_MAX)
        return err_set(e, ERR_RANGE, path,
                       "a multiplier's numerator and denominator are at most "
                       "%d",
                       SCS_MULTIPLIER_MAX);
    return ERR_OK;
}

/* attack (null: none printed), defense and movement at path into p. */
static err_code parse_printed(const json_t *obj, const char *path,
                              bool is_patch, scs_printed *p, err_info *e)
{
    static const char *const fields[] = {"attack", "defense", "movement", NULL};
    const json_t *a = json_object_get(obj, "attack");
    err_code rc;

    if ((rc = jv_object_only(obj, path, fields, e)))
        return rc;
    if (json_is_null(a)) {
        p->has_attack = false;
        p->attack = 0;
    } else if (a || !is_patch) {
        if ((rc = jv_int(obj, path, "attack", true, 0, SCS_MAX_PRINTED,
                         &p->attack, e)))
            return rc;
        p->has_attack = true;
    }
    if ((rc = jv_int(obj, path, "defense", !is_patch, 0, SCS_MAX_PRINTED,
                     &p->defense, e)) ||
        (rc = jv_int(obj, path, "movement", false, 0, SCS_MAX_PRINTED,
                     &p->movement, e)))
        return rc;
    return ERR_OK;
}

err_code scs_json_counter_parse(const json_t *obj, const char *path,
                                bool is_patch, scs_counter *c, err_info *e)
{
    static const char *const fields[] = {
        "attack",     "defense",         "movement",      "reduced", "steps",
        "steps_lost", "exploit_capable", "out_of_supply", NULL};
    json_t *front = json_object(), *red = json_object_get(obj, "reduced");
    char f[JV_PATH_MAX];
    const char *keys[] = {"attack", "defense", "movement"};
    size_t i;
    err_code rc;

    if ((rc = jv_object_only(obj, path, fields, e)))
        goto out;
    /* The full side's values sit on the unit itself. */
    for (i = 0; i < 3; i++)
        if (json_object_get(obj, keys[i]))
            json_object_set(front, keys[i], json_object_get(obj, keys[i]));
    if ((rc = parse_printed(front, path, is_patch, &c->full, e)))
        goto out;
    jv_path(f, path, "reduced");
    if (json_is_null(red)) {
        c->has_reduced = false;
        memset(&c->reduced, 0, sizeof c->reduced);
    } else if (red) {
        if (!json_is_object(red)) {
            rc = err_set(e, ERR_INVALID, f,
                         "the reduced side is an object or null");
            goto out;
        }
        if (!c->has_reduced)
            memset(&c->reduced, 0, sizeof c->reduced);
        if ((rc = parse_printed(red, f, is_patch && c->has_reduced, &c->reduced,
                                e)))
            goto out;
        c->has_reduced = true;
    }
    if (!is_patch)
        c->steps = c->has_reduced ? 2 : 1;
    if ((rc = jv_int(obj, path, "steps", false, 1, SCS_MAX_STEPS, &c->steps,
                     e)) ||
        (rc = jv_int(obj, path, "steps_lost", false, 0, SCS_MAX_STEPS,
                     &c->steps_lost, e)) ||
        (rc =
             jv_bool(obj, path, "exploit_capable", false, &c->is_exploit, e)) ||
        (rc = jv_bool(obj, path, "out_of_supply", false, &c->is_out_of_supply,
                      e)))
        goto out;
    rc = scs_counter_check(c, path, e);
out:
    json_decref(front);
    return rc;
}

json_t *scs_json_printed_json(const scs_printed *p)
{
    return json_pack("{s:o, s:i, s:i}", "attack",
                     p->has_attack ? json_integer(p->attack) : json_null(),
                     "defense", p->defense, "movement", p->movement);
}

json_t *scs_json_counter_json(const scs_counter *c)
{
    json_t *j = scs_json_printed_json(&c->full);

    json_object_set_new(j, "reduced",
                        c->has_reduced ? scs_json_printed_json(&c->reduced)
                                       : json_null());
    json_object_set_new(j, "steps", json_integer(c->steps));
    json_object_set_new(j, "steps_lost", json_integer(c->steps_lost));
    json_object_set_new(j, "steps_left",
                        json_integer(c->steps - c->steps_lost));
    json_object_set_new(
        j, "side_shown",
        json_string(scs_counter_shown(c) == &c->reduced ? "reduced" : "full"));
    json_object_set_new(j, "exploit_capable", json_boolean(c->is_exploit));
    json_object_set_new(j, "out_of_supply", json_boolean(c->is_out_of_supply));
    return j;
}

err_code scs_json_options_parse(const json_t *obj, const char *path,
                                scs_options *o, err_info *e)
{
    static const char *const fields[] = {"out_of_supply", NULL};
    static const char *const oos_fields[] = {"attack", "defense", NULL};
    json_t *oos = NULL, *v;
    char p[JV_PATH_MAX], f[JV_PATH_MAX];
    err_code rc;

    jv_path(p, path, "out_of_supply");
    if ((rc = jv_object_only(obj, path, fields, e)) ||
        (rc = jv_object(obj, path, "out_of_supply", false, &oos, e)) ||
        (oos && (rc = jv_object_only(oos, p, oos_fields, e))))
        return rc;
    if (oos && (v = json_object_get(oos, "attack")) != NULL) {
        jv_path(f, p, "attack");
        if ((rc = scs_json_frac(v, f, &o->out_of_supply_attack, e)))
            return rc;
    }
    if (oos && (v = json_object_get(oos, "defense")) != NULL) {
        jv_path(f, p, "defense");
        if ((rc = scs_json_frac(v, f, &o->out_of_supply_defense, e)))
            return rc;
    }
    return ERR_OK;
}

json_t *scs_json_options_json(const scs_options *o)
{
    char a[SCS_FRAC_TEXT], d[SCS_FRAC_TEXT];

    scs_frac_text(o->out_of_supply_attack, a);
    scs_frac_text(o->out_of_supply_defense, d);
    return json_pack("{s:{s:s, s:s}}", "out_of_supply", "attack", a, "defense",
                     d);
}
