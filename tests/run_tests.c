/*
 * run_tests.c: runs every suite of tests/suites.h and exits non-zero if any
 * test failed.  UMPIRE_TEST_VECTORS names the folder of test vectors
 * (default tests/vectors); CK_RUN_SUITE selects one suite by name;
 * UMPIRE_TEST_PG, a PostgreSQL URL, runs the API suites on that store.
 */
#include <stdlib.h>

#include <sodium.h>

#include "suites.h"

/* What a suite tests: the rules and the JSON alone (CORE), the SQLite
 * store itself (LITE), or the service over HTTP on either store (API). */
enum suite_kind { CORE, LITE, API };

/* On PostgreSQL (UMPIRE_TEST_PG set) only the API suites run, each server
 * on a schema of its own (tests/server/harness.c); the others do not
 * touch that store. */
static void add(SRunner *sr, Suite *(*make)(void), enum suite_kind kind)
{
    const char *pg = getenv("UMPIRE_TEST_PG");

    if (pg != NULL && pg[0] != '\0' && kind != API)
        return; /* not even made: an unused suite would leak */
    srunner_add_suite(sr, make());
}

int main(void)
{
    SRunner *sr;
    int n_failed;

    if (sodium_init() < 0)
        return 2;
    sr = srunner_create(NULL);
    add(sr, suite_rng, CORE);
    add(sr, suite_digest, CORE);
    add(sr, suite_dice, CORE);
    add(sr, suite_scrud, CORE);
    add(sr, suite_scrud_examples, CORE);
    add(sr, suite_scrud_json, CORE);
    add(sr, suite_edna, CORE);
    add(sr, suite_scs, CORE);
    add(sr, suite_scs_examples, CORE);
    add(sr, suite_matrix, CORE);
    add(sr, suite_civ, CORE);
    add(sr, suite_odds, CORE);
    add(sr, suite_odds_scrud, CORE);
    add(sr, suite_odds_edna, CORE);
    add(sr, suite_odds_scs, CORE);
    add(sr, suite_odds_matrix, CORE);
    add(sr, suite_odds_civ, CORE);
    add(sr, suite_db, LITE);
    add(sr, suite_store, LITE);
    add(sr, suite_log, LITE);
    add(sr, suite_migrations, LITE);
    add(sr, suite_tables, LITE);
    add(sr, suite_battles, LITE);
    add(sr, suite_http, API);
    add(sr, suite_jsonw, CORE);
    add(sr, suite_jsonr, CORE);
    add(sr, suite_jsonv, CORE);
    add(sr, suite_systems, CORE);
    add(sr, suite_units_doc, CORE);
    add(sr, suite_api, API);
    add(sr, suite_auth, API);
    add(sr, suite_scrud_http, API);
    add(sr, suite_scrud_vectors, API);
    add(sr, suite_edna_http, API);
    add(sr, suite_history, API);
    add(sr, suite_lists, API);
    add(sr, suite_scs_http, API);
    add(sr, suite_scs_vectors, API);
    add(sr, suite_matrix_http, API);
    add(sr, suite_civ_http, API);
    add(sr, suite_odds_http, API);
    add(sr, suite_battles_http, API);
    add(sr, suite_spec, CORE);
    add(sr, suite_ledger_core, CORE);
    add(sr, suite_ledger, LITE);
    add(sr, suite_verifier, CORE);
    add(sr, suite_verifier_ledger, API);
    add(sr, suite_report, CORE);
    add(sr, suite_ledger_http, API);
    add(sr, suite_idempotency_http, API);
    add(sr, suite_console_http, API);
    add(sr, suite_cors, API);
    add(sr, suite_listen, CORE);
    add(sr, suite_webhooks, LITE);
    add(sr, suite_event_log, LITE);
    add(sr, suite_unit_docs, LITE);
    add(sr, suite_unit_cache, LITE);
    add(sr, suite_doc_dict, LITE);
    add(sr, suite_facts, CORE);
    add(sr, suite_webhooks_http, API);
    add(sr, suite_tokens_http, API);
    add(sr, suite_shares_http, API);
    add(sr, suite_events_http, API);
    add(sr, suite_notify, CORE);
    add(sr, suite_notify_discord, API);
    add(sr, suite_discord_http, API);
    add(sr, suite_discord_battle, API);
    add(sr, suite_discord_reply, CORE);
    add(sr, suite_full, LITE);
    add(sr, suite_wal_vfs, LITE);
    add(sr, suite_checkpointer, LITE);
    add(sr, suite_full_http, LITE);
    add(sr, suite_pipeline, API);
    add(sr, suite_backup, LITE);
    add(sr, suite_copy, LITE);
    add(sr, suite_edges, API);
    add(sr, suite_fog_http, API);
    add(sr, suite_regressions, API);
    srunner_run_all(sr, CK_NORMAL);
    n_failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
