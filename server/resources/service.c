/*
 * service.c: the service's own routes: its health (the database
 * answering and taking writes, the service's version, the schema's
 * version) and the combat
 * systems it serves, from core's registry.
 */
#include "service.h"

#include "registry.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

/*
 * 200 when the database answers and takes writes.  503 when it cannot be
 * read (a problem, database_error), or while writes fail because its disk
 * is full: then the health document says "database": "full" with a detail,
 * and turns back to ok by itself once writes land again (db_health).
 */
void service_health(http_request *r)
{
    db *d = http_db(r->srv);
    int version = db_ping(d);
    bool is_full = db_health(d) == DB_HEALTH_FULL;

    if (version < 0) {
        http_reply_problem_raw(r, 503, "database_error", "Service unavailable",
                               "the database cannot be read");
        return;
    }
    if (is_full) {
        http_reply_json(
            r, 503,
            json_pack("{s:s, s:s, s:s, s:s, s:i}", "status", "unavailable",
                      "database", "full", "detail",
                      "the database's disk is full: every write is refused "
                      "(507) and nothing is written; reads still work; "
                      "writes resume by themselves once space is freed",
                      "version", UMPIRE_VERSION, "schema_version", version));
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
