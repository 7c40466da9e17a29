/*
 * run_tests.c: runs every suite of tests/suites.h and exits non-zero if any
 * test failed.  UMPIRE_TEST_VECTORS names the folder of test vectors
 * (default tests/vectors); CK_RUN_SUITE selects one suite by name.
 */
#include <stdlib.h>

#include <sodium.h>

#include "suites.h"

int main(void)
{
    SRunner *sr;
    int n_failed;

    if (sodium_init() < 0)
        return 2;
    sr = srunner_create(suite_rng());
    srunner_add_suite(sr, suite_dice());
    srunner_add_suite(sr, suite_scrud());
    srunner_add_suite(sr, suite_scrud_examples());
    srunner_add_suite(sr, suite_edna());
    srunner_add_suite(sr, suite_scs());
    srunner_add_suite(sr, suite_scs_examples());
    srunner_add_suite(sr, suite_matrix());
    srunner_add_suite(sr, suite_civ());
    srunner_add_suite(sr, suite_odds());
    srunner_add_suite(sr, suite_odds_scrud());
    srunner_add_suite(sr, suite_odds_edna());
    srunner_add_suite(sr, suite_odds_scs());
    srunner_add_suite(sr, suite_odds_matrix());
    srunner_add_suite(sr, suite_odds_civ());
    srunner_add_suite(sr, suite_db());
    srunner_add_suite(sr, suite_store());
    srunner_add_suite(sr, suite_log());
    srunner_add_suite(sr, suite_migrations());
    srunner_add_suite(sr, suite_tables());
    srunner_add_suite(sr, suite_battles());
    srunner_add_suite(sr, suite_http());
    srunner_add_suite(sr, suite_jsonw());
    srunner_add_suite(sr, suite_jsonr());
    srunner_add_suite(sr, suite_systems());
    srunner_add_suite(sr, suite_api());
    srunner_add_suite(sr, suite_auth());
    srunner_add_suite(sr, suite_scrud_http());
    srunner_add_suite(sr, suite_scrud_vectors());
    srunner_add_suite(sr, suite_edna_http());
    srunner_add_suite(sr, suite_history());
    srunner_add_suite(sr, suite_lists());
    srunner_add_suite(sr, suite_scs_http());
    srunner_add_suite(sr, suite_scs_vectors());
    srunner_add_suite(sr, suite_matrix_http());
    srunner_add_suite(sr, suite_civ_http());
    srunner_add_suite(sr, suite_odds_http());
    srunner_add_suite(sr, suite_battles_http());
    srunner_add_suite(sr, suite_spec());
    srunner_add_suite(sr, suite_ledger_core());
    srunner_add_suite(sr, suite_ledger());
    srunner_add_suite(sr, suite_verifier());
    srunner_add_suite(sr, suite_verifier_ledger());
    srunner_add_suite(sr, suite_report());
    srunner_add_suite(sr, suite_ledger_http());
    srunner_add_suite(sr, suite_idempotency_http());
    srunner_add_suite(sr, suite_console_http());
    srunner_add_suite(sr, suite_cors());
    srunner_add_suite(sr, suite_webhooks());
    srunner_add_suite(sr, suite_event_log());
    srunner_add_suite(sr, suite_webhooks_http());
    srunner_add_suite(sr, suite_tokens_http());
    srunner_add_suite(sr, suite_shares_http());
    srunner_add_suite(sr, suite_events_http());
    srunner_add_suite(sr, suite_notify());
    srunner_add_suite(sr, suite_notify_discord());
    srunner_add_suite(sr, suite_discord_http());
    srunner_add_suite(sr, suite_discord_battle());
    srunner_add_suite(sr, suite_discord_reply());
    srunner_add_suite(sr, suite_full());
    srunner_add_suite(sr, suite_full_http());
    srunner_add_suite(sr, suite_pipeline());
    srunner_add_suite(sr, suite_backup());
    srunner_add_suite(sr, suite_edges());
    srunner_add_suite(sr, suite_fog_http());
    srunner_add_suite(sr, suite_regressions());
    srunner_run_all(sr, CK_NORMAL);
    n_failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
