/*
 * ledgers.h: the routes of a campaign's ledger (ledgers.c).
 */
#ifndef UMPIRE_LEDGERS_H
#define UMPIRE_LEDGERS_H

#include "http.h"
#include "http_stream.h"

/* GET .../ledger: every entry and every record's dice, streamed from one
 * snapshot by the export pump (started with ledgers_export_start) as the
 * client takes it. */
void ledgers_export(http_request *r);
/*
 * A shared link's answer (shares.c), streamed as the export is: first
 * (the caller's text, up to the '[' of the ledger part's entries), then
 * campaign_id's entries after after (0: from position 1) up to upto (1 or
 * more) (combat_id not NULL: that combat's own, after + 1 its first
 * position and upto its last, read by its id), then
 * "],\"seeds\":[", the seeds of the records with entries among them (as
 * the export gives them), and "]}}", closing the ledger part and the
 * document.  All links together stream 8 at once at most, among the
 * service's 16 exports: one more is refused as an export is (429
 * too_many_streams, or 503 busy when the exports are full).  The caller
 * checks first, before its own reads (ledgers_part_may).
 */
void ledgers_send_part(http_request *r, const char *campaign_id,
                       const char *combat_id, long long after, long long upto,
                       const char *first);
/* Whether a shared link's part may stream now (checked before its report
 * is read): false with r answered as ledgers_send_part refuses. */
bool ledgers_part_may(http_request *r);
/* stall_ms: an export (or a shared link's part) whose client takes under
 * 64 KiB in this long while half its buffer or more waits is cut
 * (http_streams_config), its snapshot given back; max_ms: one still
 * running after this long is cut too (0: never). */
err_code ledgers_export_start(int stall_ms, int max_ms, http_streams **out,
                              err_info *e);
/* GET .../ledger/verify: the chain and every revealed seed's dice checked. */
void ledgers_verify(http_request *r);
/* The same checks of campaign_id's ledger on c (one snapshot: db_read_begin),
 * for a caller outside HTTP (umpire copy-sqlite): *problems new, each
 * {pos, problem} as the route lists them; empty when it verifies. */
err_code ledgers_problems(db_conn *c, const char *campaign_id,
                          json_t **problems, err_info *e);

#endif
