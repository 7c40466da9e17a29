/*
 * units_doc.c: a unit as a document, and the history event that records a
 * change of it; see units_doc.h.
 */
#include "units_doc.h"

#include "jsonb.h"
#include "systems.h"

#include <stdio.h>
#include <string.h>

/* The systems' sections of a unit into j: "systems", and one object each
 * for the systems it carries, as the table of systems writes them. */
static void add_systems(json_t *j, const db_unit *u)
{
    json_t *systems = json_array(), *section;
    size_t i;

    for (i = 0; i < systems_n; i++)
        if ((section = systems_table[i]->unit_json(u)) != NULL) {
            json_array_append_new(systems,
                                  json_string(systems_name(systems_table[i])));
            json_object_set_new(j, systems_name(systems_table[i]), section);
        }
    json_object_set_new(j, "systems", systems);
}

json_t *units_doc_state(const db_unit *u)
{
    json_t *j =
        json_pack("{s:s, s:s, s:b, s:o}", "name", u->name, "side_id",
                  u->side_id, "eliminated", u->is_eliminated,
                  "eliminated_reason", jsonb_str_or_null(u->eliminated_reason));

    add_systems(j, u);
    return j;
}

json_t *units_doc_json(const db_unit *u)
{
    json_t *j = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:b, s:o, s:o}", "id",
                          u->id, "name", u->name, "side", "id", u->side_id,
                          "name", u->side_name, "created_at", u->created_at,
                          "eliminated", u->is_eliminated, "eliminated_reason",
                          jsonb_str_or_null(u->eliminated_reason),
                          "eliminated_by", jsonb_str_or_null(u->eliminated_by));

    add_systems(j, u);
    return j;
}

err_code units_doc_event(db_conn *c, const db_unit *before,
                         const db_unit *after, const char *kind,
                         const char *combat_id, const char *token_id,
                         const char *note, const char *result, err_info *e)
{
    db_event ev;
    err_code rc;

    memset(&ev, 0, sizeof ev);
    snprintf(ev.unit_id, DB_ID_MAX, "%s", after->id);
    snprintf(ev.campaign_id, DB_ID_MAX, "%s", after->campaign_id);
    db_now(ev.at);
    snprintf(ev.kind, sizeof ev.kind, "%s", kind);
    snprintf(ev.combat_id, DB_ID_MAX, "%s", combat_id ? combat_id : "");
    snprintf(ev.actor_token_id, DB_ID_MAX, "%s", token_id ? token_id : "");
    ev.note = (char *)note;
    ev.before = before ? jsonb_text(units_doc_state(before)) : NULL;
    ev.after = jsonb_text(units_doc_state(after));
    ev.result = (char *)result;
    if ((before && !ev.before) || !ev.after)
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    else
        rc = db_event_insert(c, &ev, e);
    free(ev.before);
    free(ev.after);
    return rc;
}
