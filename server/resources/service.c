/*
 * service.c: the service's own routes: its health (the database
 * answering, the service's version, the schema's version) and the combat
 * systems it serves, from core's registry.
 */
#include "service.h"

#include "registry.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

void service_health(http_request *r)
{
    int version = db_ping(http_db(r->srv));

    if (version < 0) {
        http_reply_problem_raw(r, 503, "database_error", "Service unavailable",
                               "the database cannot be read");
        return;
    }
    http_reply_json(r, 200,
                    json_pack("{s:s, s:s, s:s, s:i}", "status", "ok",
                              "database", "ok", "version", UMPIRE_VERSION,
                              "schema_version", version));
}

void service_systems(http_request *r)
{
    json_t *items = json_array();
    size_t i;

    for (i = 0; i < registry_n_systems; i++) {
        const registry_system *cs = registry_systems[i];
        json_array_append_new(items, json_pack("{s:s, s:s, s:s}", "name",
                                               cs->name, "title", cs->title,
                                               "rules", cs->rules));
    }
    http_reply_json(r, 200, json_pack("{s:o}", "items", items));
}
