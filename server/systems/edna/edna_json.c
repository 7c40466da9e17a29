/*
 * edna_json.c: EDNA tests in JSON; see edna_json.h.  The rules live in
 * core/edna.c.
 */
#include "edna_json.h"

#include "jsonv.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

err_code edna_json_options(const json_t *obj, edna_options *o, err_info *e)
{
    static const char *const fields[] = {"dice", "faces", NULL};
    err_code rc;

    if ((rc = jv_object_only(obj, "options", fields, e)) ||
        (rc = jv_int(obj, "options", "dice", false, 1, EDNA_MAX_DICE, &o->dice,
                     e)) ||
        (rc = jv_int(obj, "options", "faces", false, RNG_FACES_MIN,
                     RNG_FACES_MAX, &o->faces, e)))
        return rc;
    return ERR_OK;
}

/* Entered dice of unit i, checked against the options when known. */
static err_code parse_dice_list(const json_t *dice, const char *path,
                                edna_job *j, size_t i, err_info *e)
{
    char f[JV_PATH_MAX];
    size_t k;

    jv_path(f, path, "dice");
    if (dice == NULL)
        return j->rec.dice.kind == DICE_ENTERED
                   ? err_set(e, ERR_MISSING, f,
                             "entered dice need the \"dice\" of every unit")
                   : ERR_OK;
    if (j->rec.dice.kind != DICE_ENTERED)
        return err_set(e, ERR_INVALID, f,
                       "dice are seeded: give \"dice\" only with dice.source "
                       "\"entered\"");
    for (k = 0; k < json_array_size(dice); k++) {
        json_t *v = json_array_get(dice, k);
        if (!json_is_integer(v))
            return err_set(e, ERR_INVALID, f, "each die is an integer");
        if (json_integer_value(v) < 1 || json_integer_value(v) > RNG_FACES_MAX)
            return err_set(e, ERR_RANGE, f, "each die is from 1 to %d",
                           RNG_FACES_MAX);
        j->entered[i][k] = (int)json_integer_value(v);
    }
    j->n_entered[i] = (int)k;
    return ERR_OK;
}

/* A unit of the request: by reference (campaign) or inline (one-off). */
err_code edna_json_unit(const json_t *u, const char *path, bool is_campaign,
                        edna_job *j, size_t i, err_info *e)
{
    static const char *const campaign_fields[] = {"unit", "modifier", "dice",
                                                  NULL};
    static const char *const inline_fields[] = {"name",     "edna", "start",
                                                "modifier", "dice", NULL};
    const char *ref = NULL;
    json_t *dice = NULL;
    err_code rc;

    j->start[i] = EDNA_START_DEFAULT;
    j->units[i].edna = -1;
    if ((rc = jv_object_only(
             u, path, is_campaign ? campaign_fields : inline_fields, e)) ||
        (rc = jv_string(u, path, is_campaign ? "unit" : "name", true, 64, &ref,
                        e)) ||
        (rc = jv_int(u, path, "modifier", false, -EDNA_MODIFIER_LIMIT,
                     EDNA_MODIFIER_LIMIT, &j->units[i].modifier, e)) ||
        (!is_campaign && ((rc = jv_int(u, path, "start", false, 1, EDNA_MAX,
                                       &j->start[i], e)) ||
                          (rc = jv_int(u, path, "edna", false, 0, EDNA_MAX,
                                       &j->units[i].edna, e)))) ||
        (rc = jv_array(u, path, "dice", false, 1, EDNA_MAX_DICE, &dice, e)) ||
        (rc = parse_dice_list(dice, path, j, i, e)))
        return rc;
    text_copy(is_campaign ? j->unit_ref[i] : j->unit_name[i], DB_NAME_MAX, ref);
    if (is_campaign)
        return ERR_OK;
    if (j->units[i].edna < 0) {
        j->units[i].edna = j->start[i];
    } else if (json_object_get(u, "start") == NULL) {
        if (j->units[i].edna > j->start[i])
            j->start[i] = j->units[i].edna; /* EDNA never rose to get here */
    } else if (j->units[i].edna > j->start[i]) {
        char f[JV_PATH_MAX];
        jv_path(f, path, "edna");
        return err_set(e, ERR_RANGE, f,
                       "EDNA only goes down: at most its start %d, not %d",
                       j->start[i], j->units[i].edna);
    }
    return ERR_OK;
}

/* One unit's test as in the report (members into the open object). */
void edna_json_test_write(jw *w, const edna_job *j, const edna_result *res,
                          size_t i)
{
    const edna_result_unit *t = &res->units[i];
    int k;

    jw_kstring(w, "unit", j->unit_name[i]);
    jw_kstring_or_null(w, "unit_id", j->unit_id[i]);
    jw_key(w, "naturals");
    jw_array(w);
    for (k = 0; k < j->in.options.dice; k++)
        jw_int(w, j->rec.rolls[t->first_roll + (size_t)k].natural);
    jw_array_end(w);
    jw_kint(w, "modifier", j->units[i].modifier);
    jw_kint(w, "total", t->total);
    jw_kint(w, "start", j->start[i]);
    jw_kint(w, "edna_before", t->edna_before);
    jw_kint(w, "edna_after", t->edna_after);
    jw_kbool(w, "passed", t->is_passed);
    jw_kbool(w, "ineffective", t->is_ineffective);
}

void edna_json_tests_write(jw *w, const edna_job *j, const edna_result *res)
{
    size_t i;

    jw_key(w, "tests");
    jw_array(w);
    for (i = 0; i < res->n_units; i++) {
        jw_object(w);
        edna_json_test_write(w, j, res, i);
        jw_object_end(w);
    }
    jw_array_end(w);
}

char *edna_json_markdown(const edna_job *j, const edna_result *res)
{
    text_buf b = {0};
    size_t i;

    text_printf(&b, "**EDNA test%s** (%dd%d)\n", res->n_units > 1 ? "s" : "",
                j->in.options.dice, j->in.options.faces);
    for (i = 0; i < res->n_units; i++) {
        const edna_result_unit *t = &res->units[i];
        char name[2 * DB_NAME_MAX];
        text_md(name, sizeof name, j->unit_name[i]);
        text_printf(&b, "- %s: %d against EDNA %d, %s%s\n", name, t->total,
                    t->edna_before, t->is_passed ? "passed" : "failed",
                    t->is_ineffective ? ", now ineffective" : "");
        if (!t->is_passed && !t->is_ineffective)
            text_printf(&b, "  EDNA %d -> %d\n", t->edna_before, t->edna_after);
    }
    text_printf(&b, "_Dice: %s._\n", combat_dice_note(&j->rec));
    return text_take(&b);
}
