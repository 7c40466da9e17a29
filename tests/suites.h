/*
 * suites.h: every Check suite of the project, one per source module, run by
 * tests/run_tests.c.  Test files mirror the source tree: tests/core/test_X.c
 * tests core/X.c.  A module whose tests would not fit one file of ~800 lines
 * gets more suites, each in its own file (scrud and scrud_examples; api and
 * auth; scrud_http and scrud_vectors; scs and scs_examples; scs_http and
 * scs_vectors; matrix_http and battles_http; verifier and verifier_ledger;
 * ledger_http and idempotency_http), with their shared helpers beside
 * them.  The ledger has a suite per layer: ledger_core (tests/core) and
 * ledger (tests/db, with what the database keeps of it).
 * suite_regressions (tests/server/test_regressions.c) is the exception: one
 * test per fixed bug, named after it, whatever module it was in.
 */
#ifndef UMPIRE_TESTS_SUITES_H
#define UMPIRE_TESTS_SUITES_H

#include <check.h>

Suite *suite_rng(void);
Suite *suite_digest(void);
Suite *suite_dice(void);
Suite *suite_scrud(void);
Suite *suite_scrud_examples(void);
Suite *suite_scrud_json(void);
Suite *suite_edna(void);
Suite *suite_scs(void);
Suite *suite_scs_examples(void);
Suite *suite_matrix(void);
Suite *suite_civ(void);
Suite *suite_odds(void);
Suite *suite_odds_scrud(void);
Suite *suite_odds_edna(void);
Suite *suite_odds_scs(void);
Suite *suite_odds_matrix(void);
Suite *suite_odds_civ(void);
Suite *suite_db(void);
Suite *suite_store(void);
Suite *suite_log(void);
Suite *suite_migrations(void);
Suite *suite_tables(void);
Suite *suite_battles(void);
Suite *suite_http(void);
Suite *suite_jsonw(void);
Suite *suite_jsonr(void);
Suite *suite_jsonv(void);
Suite *suite_systems(void);
Suite *suite_units_doc(void);
Suite *suite_api(void);
Suite *suite_auth(void);
Suite *suite_scrud_http(void);
Suite *suite_scrud_vectors(void);
Suite *suite_spec(void);
Suite *suite_edna_http(void);
Suite *suite_history(void);
Suite *suite_lists(void);
Suite *suite_scs_http(void);
Suite *suite_scs_vectors(void);
Suite *suite_matrix_http(void);
Suite *suite_civ_http(void);
Suite *suite_odds_http(void);
Suite *suite_battles_http(void);
Suite *suite_ledger_core(void);
Suite *suite_ledger(void);
Suite *suite_verifier(void);
Suite *suite_verifier_ledger(void);
Suite *suite_report(void);
Suite *suite_ledger_http(void);
Suite *suite_idempotency_http(void);
Suite *suite_console_http(void);
Suite *suite_cors(void);
Suite *suite_listen(void);
Suite *suite_webhooks(void);
Suite *suite_event_log(void);
Suite *suite_unit_docs(void);
Suite *suite_unit_cache(void);
Suite *suite_doc_dict(void);
Suite *suite_facts(void);
Suite *suite_webhooks_http(void);
Suite *suite_tokens_http(void);
Suite *suite_shares_http(void);
Suite *suite_events_http(void);
Suite *suite_notify(void);
Suite *suite_notify_discord(void);
Suite *suite_discord_http(void);
Suite *suite_discord_battle(void);
Suite *suite_discord_reply(void);
Suite *suite_full(void);
Suite *suite_wal_vfs(void);
Suite *suite_checkpointer(void);
Suite *suite_full_http(void);
Suite *suite_pipeline(void);
Suite *suite_backup(void);
Suite *suite_copy(void);
Suite *suite_edges(void);
Suite *suite_fog_http(void);
Suite *suite_regressions(void);

#endif
