#!/bin/sh
# check_schema.sh: checks the PostgreSQL store's migrations
# (db/migrations_pg.c) on a PostgreSQL 15 server, against SQLite's
# (db/migrations.c).
#
# Applies every PostgreSQL migration, each in its own transaction, into a
# scratch schema; checks that every table has SQLite's columns, plus rowid
# on the tables whose rowid the shared statements read; then works the
# triggers (event log, channel posts, campaign version) and runs shared
# statements that lean on the translation (rowid paging, instr).  The
# schema is dropped at the end, whatever happened.
#
# Needs a C compiler, pkg-config, libpq and SQLite (headers and library),
# psql, and a server reached through libpq's usual environment (PGHOST,
# PGPORT, PGUSER, PGDATABASE) whose database uses the "C" collation.
# Run from the repository root: tests/pg/check_schema.sh
set -eu

schema="umpire_check_$$"
tmp=$(mktemp -d)
PSQL="psql -X -q -v ON_ERROR_STOP=1"

cleanup() {
    $PSQL -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
    $PSQL -c "DROP SCHEMA IF EXISTS ${schema}_up CASCADE" >/dev/null 2>&1 ||
        true
    rm -rf "$tmp"
}
trap cleanup EXIT

# The ledger's backfill (SQLite's migration 5 after step) has nothing to
# chain in an empty database: it stands alone here, without the rest of
# the database layer.
cat >"$tmp/backfill_stub.c" <<'EOF'
#include "migrations.h"

err_code db_ledger_backfill(db_conn *c, err_info *e);

err_code db_ledger_backfill(db_conn *c, err_info *e)
{
    (void)c;
    (void)e;
    return ERR_OK;
}
EOF

# Applies migrations_pg_sql into the schema named by argv[1].
cat >"$tmp/pg_apply.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <libpq-fe.h>
#include "migrations.h"
#include "migrations_pg.h"

static int run(PGconn *c, const char *sql, int n)
{
    PGresult *r = PQexec(c, sql);
    int s = PQresultStatus(r);

    PQclear(r);
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        return 0;
    fprintf(stderr, "migration %d: %s", n, PQerrorMessage(c));
    return 1;
}

/* argv[1] the schema; argv[2] and argv[3], if given, the first and last
 * migrations to apply (from 1), into the schema as it is when the first
 * is more than 1. */
int main(int argc, char **argv)
{
    PGconn *c = PQconnectdb("");
    char sql[256];
    int k, first = argc == 4 ? atoi(argv[2]) : 1,
           last = argc == 4 ? atoi(argv[3]) : migrations_pg_count;

    if ((argc != 2 && argc != 4) || PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "%s", PQerrorMessage(c));
        return 1;
    }
    if (migrations_pg_count != migrations_count) {
        fprintf(stderr, "%d PostgreSQL migrations, %d SQLite ones\n",
                migrations_pg_count, migrations_count);
        return 1;
    }
    if (first <= 1)
        snprintf(sql, sizeof sql, "CREATE SCHEMA %s; SET search_path = %s",
                 argv[1], argv[1]);
    else
        snprintf(sql, sizeof sql, "SET search_path = %s", argv[1]);
    if (run(c, sql, 0))
        return 1;
    for (k = first - 1; k < last && k < migrations_pg_count; k++)
        if (run(c, "BEGIN", k + 1) || run(c, migrations_pg_sql[k], k + 1) ||
            run(c, "COMMIT", k + 1))
            return 1;
    PQfinish(c);
    return 0;
}
EOF

# SQLite's tables and columns after every migration, as "table|column".
cat >"$tmp/sqlite_columns.c" <<'EOF'
#include <stdio.h>
#include <sqlite3.h>
#include "migrations.h"

int main(void)
{
    sqlite3 *c;
    sqlite3_stmt *st;
    int k;

    if (sqlite3_open(":memory:", &c) != SQLITE_OK)
        return 1;
    for (k = 0; k < migrations_count; k++)
        if (sqlite3_exec(c, migrations_sql[k], NULL, NULL, NULL) != SQLITE_OK) {
            fprintf(stderr, "migration %d: %s\n", k + 1, sqlite3_errmsg(c));
            return 1;
        }
    if (sqlite3_prepare_v2(c,
                           "SELECT m.name || '|' || p.name FROM sqlite_schema m, "
                           "pragma_table_info(m.name) p WHERE m.type = 'table' "
                           "AND m.name NOT LIKE 'sqlite_%' ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK)
        return 1;
    while (sqlite3_step(st) == SQLITE_ROW)
        printf("%s\n", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(c);
    return 0;
}
EOF

CFLAGS="-std=c11 -D_DEFAULT_SOURCE -Icore -Idb $(pkg-config --cflags libpq sqlite3)"
cc $CFLAGS -o "$tmp/pg_apply" "$tmp/pg_apply.c" "$tmp/backfill_stub.c" \
    db/migrations_pg.c db/migrations.c $(pkg-config --libs libpq sqlite3)
cc $CFLAGS -o "$tmp/sqlite_columns" "$tmp/sqlite_columns.c" \
    "$tmp/backfill_stub.c" db/migrations.c $(pkg-config --libs sqlite3)

"$tmp/pg_apply" "$schema"
echo "ok: every PostgreSQL migration applies"

"$tmp/sqlite_columns" >"$tmp/sqlite.txt"
$PSQL -At -c "SELECT table_name || '|' || column_name FROM
    information_schema.columns WHERE table_schema = '$schema' AND
    column_name <> 'rowid' ORDER BY 1" >"$tmp/pg.txt"
diff "$tmp/sqlite.txt" "$tmp/pg.txt"
rowid_tables=$($PSQL -At -c "SELECT string_agg(table_name, ' ' ORDER BY
    table_name) FROM information_schema.columns WHERE table_schema =
    '$schema' AND column_name = 'rowid'")
test "$rowid_tables" = "battles campaigns combats shares sides tokens units"
echo "ok: the tables and columns are SQLite's (rowid on $rowid_tables)"

$PSQL <<EOF
SET search_path = $schema;
INSERT INTO campaigns (id, name, created_at, scrud_cap_kind, scrud_cap,
  scrud_has_floor, scrud_floor, scrud_extra_dice, scrud_attrition,
  scrud_max_penalty, scrud_eliminate_below, scrud_defeats_per_elimination)
  VALUES ('cmp_1', 'Ligny', '2025-06-01T09:00:00.000Z', 0, 0, 1, 1, 0, 1,
  1, -2, 3);
INSERT INTO sides (id, campaign_id, name, created_at)
  VALUES ('sd_1', 'cmp_1', 'Blue', '2025-06-01T09:00:00.000Z');
INSERT INTO units (id, campaign_id, side_id, name, created_at) VALUES
  ('un_1', 'cmp_1', 'sd_1', 'Old Guard', '2025-06-01T09:00:00.000Z'),
  ('un_2', 'cmp_1', 'sd_1', 'Young Guard', '2025-06-01T09:00:00.000Z'),
  ('un_3', 'cmp_1', 'sd_1', 'Lancers', '2025-06-01T09:00:00.000Z');
INSERT INTO tokens (id, campaign_id, side_id, role, hash, created_at)
  VALUES ('tok_1', 'cmp_1', NULL, 'umpire', 'h1', '2025-06-01T09:00:00.000Z');
INSERT INTO webhooks (campaign_id, url, hook_id, token, set_at)
  VALUES ('cmp_1', 'https://example.invalid/hook', 'h', 't', 'x');
DO \$\$
DECLARE
  v_version bigint;
  v_seq bigint;
  v_at text;
  v_rowid bigint;
  v_found text;
  v_logged bigint := (SELECT count(*) FROM event_log);
BEGIN
  -- combats: a campaign's is logged and posted, a one-off neither
  INSERT INTO combats (id, campaign_id, system, created_at, dice_source,
    summary, report) VALUES
    ('cbt_1', 'cmp_1', 'scrud', '2025-06-01T10:00:00.000Z', 'entered', 's',
     convert_to('{}', 'UTF8')),
    ('cbt_2', 'cmp_1', 'scrud', '2025-06-01T10:00:00.000Z', 'entered', 's',
     convert_to('{}', 'UTF8')),
    ('cbt_3', NULL, 'scrud', '2025-06-01T10:00:00.000Z', 'entered', 's',
     convert_to('{}', 'UTF8'));
  ASSERT (SELECT count(*) FROM event_log WHERE kind = 'combat') = 2,
    'the campaign combats are logged';
  ASSERT (SELECT count(*) FROM event_log WHERE record_id = 'cbt_3') = 0,
    'a one-off combat is not logged';
  ASSERT (SELECT count(*) FROM webhook_posts) = 2, 'the posts are made';

  -- the campaign's version: its units, its sides, its tables, itself
  v_version := (SELECT version FROM campaigns WHERE id = 'cmp_1');
  UPDATE units SET name = 'Middle Guard' WHERE id = 'un_2';
  ASSERT (SELECT version FROM campaigns WHERE id = 'cmp_1') = v_version + 1,
    'a unit changed bumps the version';
  INSERT INTO crts (campaign_id, name, doc, created_at, updated_at)
    VALUES ('cmp_1', 'Standard', '{}', 'x', 'x');
  UPDATE crts SET doc = '[]' WHERE campaign_id = 'cmp_1';
  DELETE FROM crts WHERE campaign_id = 'cmp_1';
  UPDATE sides SET exhausted_turn = 2 WHERE id = 'sd_1';
  ASSERT (SELECT version FROM campaigns WHERE id = 'cmp_1') = v_version + 5,
    'tables and sides bump the version';

  -- the ledger's head, once per new head; the campaign's own change
  UPDATE campaigns SET ledger_length = 1, ledger_head = repeat('ab', 32)
    WHERE id = 'cmp_1';
  ASSERT (SELECT count(*) FROM event_log WHERE kind = 'ledger' AND n = 1
    AND head = repeat('ab', 32)) = 1, 'a new head is logged';
  ASSERT (SELECT version FROM campaigns WHERE id = 'cmp_1') = v_version + 6,
    'the campaign changed bumps its version once';
  UPDATE campaigns SET ledger_head = repeat('ab', 32) WHERE id = 'cmp_1';
  ASSERT (SELECT count(*) FROM event_log WHERE kind = 'ledger') = 1,
    'the same head is not logged again';

  -- battles: made, acted on, their status changed (or not)
  INSERT INTO battles (id, campaign_id, system, status, turn, created_at,
    updated_at, dice_source, setup) VALUES
    ('bat_1', 'cmp_1', 'matrix', 'open', 1, '2025-06-01T11:00:00.000Z', 'x',
     'entered', '{}'),
    ('bat_2', 'cmp_1', 'matrix', 'open', 1, '2025-06-01T11:00:00.000Z', 'x',
     'entered', '{}');
  INSERT INTO battle_actions (battle_id, seq, at, kind, combat, army, unit,
    naturals) VALUES ('bat_1', 1, 'x', 'roll', 0, -1, -1, '[3]');
  UPDATE battles SET n_actions = 1 WHERE id = 'bat_1';
  UPDATE battles SET status = 'finished' WHERE id = 'bat_1';
  ASSERT (SELECT string_agg(status || n, ',' ORDER BY seq) FROM event_log
    WHERE record_id = 'bat_1') = 'open0,open1,finished1',
    'a battle is logged when made, acted on and finished';

  -- a unit's history, a token revoked
  INSERT INTO unit_events (unit_row, campaign_row, at, kind, after,
    unit_seq) VALUES ((SELECT rowid FROM units WHERE id = 'un_1'),
    (SELECT rowid FROM campaigns WHERE id = 'cmp_1'), 'x', 'edit', '{}', 1)
    RETURNING seq INTO v_seq;
  ASSERT (SELECT count(*) FROM event_log WHERE kind = 'unit'
    AND unit_seq = v_seq AND campaign_id = 'cmp_1') = 1,
    'a history event is logged, with its campaign';
  UPDATE tokens SET revoked_at = 'x' WHERE id = 'tok_1';
  UPDATE tokens SET revoked_at = 'y' WHERE id = 'tok_1';
  ASSERT (SELECT count(*) FROM event_log WHERE kind = 'revoked'
    AND record_id = 'tok_1') = 1, 'a token revoked is logged once';
  ASSERT (SELECT count(*) FROM event_log) = v_logged + 9,
    'nothing else is logged';

  -- paging on (created_at, rowid), as db/log.c and db/battles.c do
  EXECUTE 'SELECT created_at, rowid FROM combats WHERE id = \$1 AND '
    'campaign_id = \$2' INTO v_at, v_rowid USING 'cbt_1', 'cmp_1';
  EXECUTE 'SELECT id FROM combats WHERE campaign_id = \$1 AND '
    '(created_at, rowid) > (\$2, \$3) ORDER BY created_at, rowid LIMIT \$4'
    INTO v_found USING 'cmp_1', v_at, v_rowid, 1;
  ASSERT v_found = 'cbt_2', 'combats page on from the cursor';
  EXECUTE 'SELECT created_at, rowid FROM battles WHERE id = \$1 AND '
    'campaign_id = \$2' INTO v_at, v_rowid USING 'bat_2', 'cmp_1';
  EXECUTE 'SELECT id FROM battles WHERE campaign_id = \$1 AND '
    '(created_at, rowid) < (\$2, \$3) ORDER BY created_at DESC, rowid DESC '
    'LIMIT \$4' INTO v_found USING 'cmp_1', v_at, v_rowid, 1;
  ASSERT v_found = 'bat_1', 'battles page back from the cursor';

  -- the Discord unit search (db/discord.c), with instr
  EXECUTE 'SELECT string_agg(name, '','') FROM (SELECT u.name, s.name AS '
    'side FROM units u JOIN sides s ON s.id = u.side_id WHERE '
    'u.campaign_id = \$1 AND u.eliminated = 0 AND u.has_scrud = 1 AND '
    'instr(lower(u.name), lower(\$2)) > 0 ORDER BY '
    'instr(lower(u.name), lower(\$2)) != 1, u.name LIMIT \$3) AS found'
    INTO v_found USING 'cmp_1', 'GUARD', 5;
  ASSERT v_found = 'Middle Guard,Old Guard', 'the unit search finds by part';
END
\$\$;
EOF
echo "ok: the triggers and the shared statements work"

# Migration 18 on a store with history: every event keeps its unit,
# campaign and combat, now by rowid, and its time and kind.
up="${schema}_up"
"$tmp/pg_apply" "$up" 1 17
$PSQL <<EOF
SET search_path = $up;
INSERT INTO campaigns (id, name, created_at, scrud_cap_kind, scrud_cap,
  scrud_has_floor, scrud_floor, scrud_extra_dice, scrud_attrition,
  scrud_max_penalty, scrud_eliminate_below, scrud_defeats_per_elimination)
  VALUES ('cmp_0', 'Quatre Bras', 't0', 0, 0, 1, 1, 0, 1, 1, -2, 3),
         ('cmp_1', 'Ligny', 't0', 0, 0, 1, 1, 0, 1, 1, -2, 3),
         ('cmp_2', 'Wavre', 't0', 0, 0, 1, 1, 0, 1, 1, -2, 3);
INSERT INTO sides (id, campaign_id, name, created_at)
  VALUES ('sd_2', 'cmp_2', 'Blue', 't0');
-- rowids all different: the unit's 4, the campaign's 3, the combat's 2
INSERT INTO units (id, campaign_id, side_id, name, created_at) VALUES
  ('un_0', 'cmp_2', 'sd_2', 'Lancers', 't0'),
  ('un_00', 'cmp_2', 'sd_2', 'Hussars', 't0'),
  ('un_1', 'cmp_2', 'sd_2', 'Old Guard', 't0'),
  ('un_2', 'cmp_2', 'sd_2', 'Young Guard', 't0');
INSERT INTO combats (id, campaign_id, system, created_at, dice_source,
  summary, report) VALUES
  ('cbt_0', 'cmp_2', 'scrud', 't1', 'entered', 's', convert_to('{}', 'UTF8')),
  ('cbt_1', 'cmp_2', 'scrud', 't1', 'entered', 's', convert_to('{}', 'UTF8'));
INSERT INTO unit_events (unit_id, campaign_id, at, kind, combat_id, after,
  unit_seq, doc_slot) VALUES
  ('un_2', 'cmp_2', 't0', 'created', NULL, '{}', 1, NULL),
  ('un_2', 'cmp_2', 't2', 'combat', 'cbt_1', NULL, 2, 1);
EOF
"$tmp/pg_apply" "$up" 18 18
test "$($PSQL -At -c "SET search_path = $up; SELECT unit_row || ',' ||
    campaign_row || ',' || combat_row FROM unit_events WHERE doc_slot = 1")" \
    = "4,3,2" || {
    echo "migration 18 keyed the event otherwise" >&2
    exit 1
}
got=$($PSQL -At -c "SET search_path = $up; SELECT string_agg(concat_ws('|',
    un.id, cp.id, cb.id, e.at, e.kind, e.unit_seq), ',' ORDER BY e.seq)
    FROM unit_events e JOIN units un ON un.rowid = e.unit_row
    JOIN campaigns cp ON cp.rowid = e.campaign_row
    LEFT JOIN combats cb ON cb.rowid = e.combat_row")
test "$got" = "un_2|cmp_2|t0|created|1,un_2|cmp_2|cbt_1|t2|combat|2" || {
    echo "migration 18 gave: $got" >&2
    exit 1
}
echo "ok: migration 18 keeps every event's unit, campaign and combat"
