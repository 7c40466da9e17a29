/*
 * api.h: the route handlers, one per route of router.c, grouped by file:
 * api_campaigns.c (service, campaigns, sides, and the shared helpers
 * below), api_units.c (units, corrections, resupply, history),
 * api_combats.c (SCRUD combats, reports, replay), api_edna.c (EDNA tests),
 * api_scs.c (SCS combats), api_tables.c (combat results tables),
 * api_battles.c (interactive battles: Matrix) and api_token.c (who a token
 * is).  The console's routes are in console.h.
 */
#ifndef UMPIRE_API_H
#define UMPIRE_API_H

#include "combat.h"
#include "http.h"

void api_health(http_request *r);
void api_systems(http_request *r);
void api_campaign_create(http_request *r);
/* Who a token is: its campaign, role and side (api_token.c). */
void api_token_get(http_request *r);
void api_campaign_get(http_request *r);
void api_sides_list(http_request *r);
void api_side_create(http_request *r);
void api_units_list(http_request *r);
void api_unit_create(http_request *r);
void api_unit_get(http_request *r);
void api_unit_patch(http_request *r);
void api_unit_resupply(http_request *r);
void api_unit_history(http_request *r);
void api_unit_card(http_request *r);
void api_campaign_history(http_request *r);

void api_tables_builtin_list(http_request *r);
void api_table_builtin_get(http_request *r);
void api_tables_list(http_request *r);
void api_table_get(http_request *r);
void api_table_put(http_request *r);
void api_table_delete(http_request *r);
/* Dice anyone can check (api_ledger.c). */
void api_ledger_get(http_request *r);
void api_ledger_verify(http_request *r);
void api_commitment_create(http_request *r);
void api_commitment_get(http_request *r);
/* A campaign's report (api_report.c). */
void api_campaign_report(http_request *r);
#define API_NOTE_MAX COMBAT_NOTE_MAX /* bytes of any note */

/* Shared by the handlers. */

/* A JSON string, or null for NULL or "" (new reference). */
json_t *api_str_or_null(const char *s);
/* json as compact text with sorted keys (new, free()), or NULL; json is
 * stolen. */
char *api_doc(json_t *json);
/* Replies e's problem, or a generic one for rc when e holds none. */
void api_reply_err(http_request *r, err_code rc, const err_info *e);

/* Documents of a unit (new references). */
json_t *api_unit_json(const db_unit *u);
json_t *api_unit_state_json(const db_unit *u);

/*
 * Records a history event of a unit (in c, inside the write transaction):
 * its state before (NULL for "created") and after, what caused it (a
 * combat id or NULL), who (token id or NULL), a note, and the unit's
 * result in a combat (a JSON document, borrowed; NULL for none).
 */
err_code api_unit_event(db_conn *c, const db_unit *before, const db_unit *after,
                        const char *kind, const char *combat_id,
                        const char *token_id, const char *note,
                        const char *result, err_info *e);

#endif
