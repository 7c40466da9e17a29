/*
 * migrations_pg_plpgsql.h: the PL/pgSQL that PostgreSQL's migrations
 * (migrations_pg.c) run or install, beside the tables they make: the
 * ledger's chaining of what was logged before it (migration 5, what
 * SQLite's migration does in C), the event log's triggers (migration 10)
 * and the trigger that keeps a unit's history chain (migration 23).
 * Each is SQL text to splice into its migration's entry; like the
 * migrations, never edit one that has shipped.  Included by
 * migrations_pg.c only.
 */
#ifndef UMPIRE_MIGRATIONS_PG_PLPGSQL_H
#define UMPIRE_MIGRATIONS_PG_PLPGSQL_H

/* Migration 5: each campaign's rolls and battle actions logged before
 * chained in the order they were logged, and each campaign's next
 * commitment (migrations_pg.c, migration 5, says how), with a function
 * of its own, dropped after: a field of an entry's content as a netstring
 * of its first room bytes (NULL is the empty text). */
#define LEDGER_BACKFILL_PG                                                     \
    "CREATE FUNCTION ledger_backfill_field(v text,"                            \
    "  room integer DEFAULT 2147483647) RETURNS bytea"                         \
    "  LANGUAGE sql IMMUTABLE AS $$"                                           \
    "  SELECT convert_to(octet_length(b) || ':', 'UTF8') || b ||"              \
    "    convert_to(',', 'UTF8')"                                              \
    "  FROM (SELECT substring(convert_to(coalesce(v, ''), 'UTF8')"             \
    "    FROM 1 FOR room) AS b) AS cut $$;"                                    \
    "DO $backfill$ DECLARE"                                                    \
    "  v_cmp record; e record; v_len bigint; v_head text; v_hash text;"        \
    "  v_content bytea; v_n bigint; v_ok boolean; v_list text;"                \
    "  v_faces text; v_seed bytea;"                                            \
    "BEGIN"                                                                    \
    "  FOR v_cmp IN SELECT id, ledger_length, ledger_head FROM campaigns"      \
    "    ORDER BY created_at LOOP"                                             \
    "    v_len := v_cmp.ledger_length;"                                        \
    "    v_head := v_cmp.ledger_head;"                                         \
    "    FOR e IN WITH logged AS ("                                            \
    "      SELECT 0 AS is_action, c.created_at AS at, c.id AS record_id,"      \
    "        r.seq AS seq, r.side_name AS side, r.unit_id AS unit_id,"         \
    "        r.unit_name AS unit, r.reason AS reason, r.faces AS faces,"       \
    "        r.\"natural\" AS nat, r.modified AS modified,"                    \
    "        NULL::text AS action, NULL::text AS naturals,"                    \
    "        NULL::text AS detail, r.source AS source, r.rng AS rng,"          \
    "        c.commitment AS commitment, c.client_seed AS client_seed"         \
    "      FROM rolls r JOIN combats c ON c.id = r.combat_id"                  \
    "      WHERE c.campaign_id = v_cmp.id AND NOT EXISTS (SELECT 1"            \
    "        FROM battles b WHERE b.combat_id = c.id"                          \
    "        AND b.campaign_id = c.campaign_id)"                               \
    "      UNION ALL"                                                          \
    "      SELECT 1, a.at, b.id, a.seq, NULL, NULL, NULL, NULL, 0, 0, 0,"      \
    "        a.kind, a.naturals, a.detail, b.dice_source,"                     \
    "        CASE b.dice_source WHEN 'seeded' THEN 'v1' END,"                  \
    "        b.commitment, b.client_seed"                                      \
    "      FROM battle_actions a JOIN battles b ON b.id = a.battle_id"         \
    "      WHERE b.campaign_id = v_cmp.id"                                     \
    "    ), placed AS ("                                                       \
    "      SELECT l.*, row_number() OVER (ORDER BY l.at, l.record_id,"         \
    "        l.seq) AS place FROM logged l"                                    \
    "    ), ranked AS ("                                                       \
    "      SELECT p.*, row_number() OVER (PARTITION BY p.record_id"            \
    "        ORDER BY p.place) AS k_place, row_number() OVER (PARTITION BY"    \
    "        p.record_id ORDER BY p.seq) AS k_seq FROM placed p"               \
    "    )"                                                                    \
    "    SELECT x.* FROM ranked x JOIN ranked slot"                            \
    "      ON slot.record_id = x.record_id AND slot.k_place = x.k_seq"         \
    "      ORDER BY slot.place LOOP"                                           \
    "      v_len := v_len + 1;"                                                \
    "      v_list := '';"                                                      \
    "      v_faces := '';"                                                     \
    "      IF e.is_action = 1 AND e.naturals ~"                                \
    "        '^[[] *([]]|[0-9]+ *(, *[0-9]+ *)*[]])$' THEN"                    \
    "        SELECT count(*), coalesce(bool_and(m[1]::numeric <= 1000), "      \
    "true),"                                                                   \
    "          coalesce(string_agg(m[1]::numeric::text, ',' ORDER BY o), '')," \
    "          coalesce(string_agg('6', ',' ORDER BY o), '')"                  \
    "          INTO v_n, v_ok, v_list, v_faces"                                \
    "          FROM regexp_matches(e.naturals, '[0-9]+', 'g')"                 \
    "          WITH ORDINALITY AS found(m, o);"                                \
    "        IF NOT v_ok OR v_n > 1024 THEN"                                   \
    "          v_list := '';"                                                  \
    "          v_faces := '';"                                                 \
    "        END IF;"                                                          \
    "      END IF;"                                                            \
    "      v_content := ledger_backfill_field('umpire-ledger-v1')"             \
    "        || ledger_backfill_field(CASE e.is_action WHEN 1 THEN 'action'"   \
    "          ELSE 'roll' END)"                                               \
    "        || ledger_backfill_field(v_cmp.id, 39)"                           \
    "        || ledger_backfill_field(v_len::text)"                            \
    "        || ledger_backfill_field(e.at, 31)"                               \
    "        || ledger_backfill_field(e.record_id, 39)"                        \
    "        || ledger_backfill_field(e.seq::text);"                           \
    "      IF e.is_action = 0 THEN"                                            \
    "        v_content := v_content || ledger_backfill_field(e.side, 64)"      \
    "          || ledger_backfill_field(e.unit_id, 39)"                        \
    "          || ledger_backfill_field(e.unit, 64)"                           \
    "          || ledger_backfill_field(e.reason, 31)"                         \
    "          || ledger_backfill_field(e.faces::text)"                        \
    "          || ledger_backfill_field(e.nat::text)"                          \
    "          || ledger_backfill_field(e.modified::text);"                    \
    "      ELSE"                                                               \
    "        v_content := v_content || ledger_backfill_field(e.action, 15)"    \
    "          || ledger_backfill_field(v_faces)"                              \
    "          || ledger_backfill_field(v_list)"                               \
    "          || ledger_backfill_field(e.detail);"                            \
    "      END IF;"                                                            \
    "      v_content := v_content || ledger_backfill_field(e.source, 15)"      \
    "        || ledger_backfill_field(e.rng, 7)"                               \
    "        || ledger_backfill_field(e.commitment, 64)"                       \
    "        || ledger_backfill_field(e.client_seed);"                         \
    "      v_hash := encode(sha256(decode(v_head, 'hex') || v_content),"       \
    "        'hex');"                                                          \
    "      IF e.is_action = 0 THEN"                                            \
    "        UPDATE rolls SET ledger_pos = v_len, prev_hash = v_head,"         \
    "          hash = v_hash WHERE combat_id = e.record_id AND seq = e.seq;"   \
    "      ELSE"                                                               \
    "        UPDATE battle_actions SET ledger_pos = v_len,"                    \
    "          prev_hash = v_head, hash = v_hash"                              \
    "          WHERE battle_id = e.record_id AND seq = e.seq;"                 \
    "      END IF;"                                                            \
    "      v_head := v_hash;"                                                  \
    "    END LOOP;"                                                            \
    "    UPDATE campaigns SET ledger_length = v_len, ledger_head = v_head"     \
    "      WHERE id = v_cmp.id;"                                               \
    "    v_seed := sha256(uuid_send(gen_random_uuid()) ||"                     \
    "      uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()));"     \
    "    INSERT INTO commitments (commitment, seed, campaign_id, created_at)"  \
    "      VALUES (encode(sha256(v_seed), 'hex'), encode(v_seed, 'hex'),"      \
    "        v_cmp.id, to_char(clock_timestamp() AT TIME ZONE 'UTC',"          \
    "        'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'));"                           \
    "  END LOOP;"                                                              \
    "END $backfill$;"                                                          \
    "DROP FUNCTION ledger_backfill_field(text, integer);"

/* The event log's triggers (migration 10).  One function per body: the
 * battle's row is logged alike when it is made and when its status
 * changes. */
#define EVENT_LOG_TRIGGERS_PG                                                  \
    "CREATE FUNCTION event_log_combats() RETURNS trigger LANGUAGE plpgsql"     \
    "  AS $$ BEGIN"                                                            \
    "  INSERT INTO event_log (campaign_id, kind, record_id)"                   \
    "    VALUES (NEW.campaign_id, 'combat', NEW.id);"                          \
    "  RETURN NULL; END $$;"                                                   \
    "CREATE TRIGGER event_log_combats AFTER INSERT ON combats"                 \
    "  FOR EACH ROW WHEN (NEW.campaign_id IS NOT NULL)"                        \
    "  EXECUTE FUNCTION event_log_combats();"                                  \
    "CREATE FUNCTION event_log_battles() RETURNS trigger LANGUAGE plpgsql"     \
    "  AS $$ BEGIN"                                                            \
    "  INSERT INTO event_log (campaign_id, kind, record_id, status, n)"        \
    "    VALUES (NEW.campaign_id, 'battle', NEW.id, NEW.status,"               \
    "      NEW.n_actions);"                                                    \
    "  RETURN NULL; END $$;"                                                   \
    "CREATE TRIGGER event_log_battles AFTER INSERT ON battles"                 \
    "  FOR EACH ROW EXECUTE FUNCTION event_log_battles();"                     \
    "CREATE FUNCTION event_log_battle_actions() RETURNS trigger"               \
    "  LANGUAGE plpgsql AS $$ BEGIN"                                           \
    "  INSERT INTO event_log (campaign_id, kind, record_id, status, n)"        \
    "    SELECT campaign_id, 'battle', id, status, NEW.seq FROM battles"       \
    "    WHERE id = NEW.battle_id;"                                            \
    "  RETURN NULL; END $$;"                                                   \
    "CREATE TRIGGER event_log_battle_actions AFTER INSERT ON battle_actions"   \
    "  FOR EACH ROW EXECUTE FUNCTION event_log_battle_actions();"              \
    "CREATE TRIGGER event_log_battle_status AFTER UPDATE OF status ON battles" \
    "  FOR EACH ROW WHEN (NEW.status IS DISTINCT FROM OLD.status)"             \
    "  EXECUTE FUNCTION event_log_battles();"                                  \
    "CREATE FUNCTION event_log_unit_events() RETURNS trigger"                  \
    "  LANGUAGE plpgsql AS $$ BEGIN"                                           \
    "  INSERT INTO event_log (campaign_id, kind, unit_seq)"                    \
    "    VALUES (NEW.campaign_id, 'unit', NEW.seq);"                           \
    "  RETURN NULL; END $$;"                                                   \
    "CREATE TRIGGER event_log_unit_events AFTER INSERT ON unit_events"         \
    "  FOR EACH ROW EXECUTE FUNCTION event_log_unit_events();"                 \
    "CREATE FUNCTION event_log_ledger() RETURNS trigger LANGUAGE plpgsql"      \
    "  AS $$ BEGIN"                                                            \
    "  INSERT INTO event_log (campaign_id, kind, n, head)"                     \
    "    VALUES (NEW.id, 'ledger', NEW.ledger_length, NEW.ledger_head);"       \
    "  RETURN NULL; END $$;"                                                   \
    "CREATE TRIGGER event_log_ledger AFTER UPDATE OF ledger_head ON campaigns" \
    "  FOR EACH ROW WHEN (NEW.ledger_head IS DISTINCT FROM OLD.ledger_head)"   \
    "  EXECUTE FUNCTION event_log_ledger();"                                   \
    "CREATE FUNCTION event_log_tokens() RETURNS trigger LANGUAGE plpgsql"      \
    "  AS $$ BEGIN"                                                            \
    "  INSERT INTO event_log (campaign_id, kind, record_id)"                   \
    "    VALUES (NEW.campaign_id, 'revoked', NEW.id);"                         \
    "  RETURN NULL; END $$;"                                                   \
    "CREATE TRIGGER event_log_tokens AFTER UPDATE OF revoked_at ON tokens"     \
    "  FOR EACH ROW"                                                           \
    "  WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)"           \
    "  EXECUTE FUNCTION event_log_tokens();"

/* Migration 23: before each history event is inserted, its place after
 * its unit's last (prev_seq), its number (unit_seq: what the inserter
 * gave is not kept), and its unit's head moved, every 64th marked
 * (migrations_pg.c, migration 23, says why a trigger here). */
#define UNIT_EVENTS_CHAIN_PG                                                   \
    "CREATE FUNCTION unit_events_chain() RETURNS trigger"                      \
    "  LANGUAGE plpgsql AS $$"                                                 \
    "  DECLARE h unit_heads%ROWTYPE;"                                          \
    "  BEGIN"                                                                  \
    "  IF NEW.unit_row IS NULL THEN RETURN NEW; END IF;"                       \
    "  SELECT * INTO h FROM unit_heads WHERE unit_row = NEW.unit_row;"         \
    "  IF FOUND THEN"                                                          \
    "    NEW.prev_seq := h.seq;"                                               \
    "    NEW.unit_seq := coalesce(h.unit_seq, 0) + 1;"                         \
    "    UPDATE unit_heads SET seq = NEW.seq, unit_seq = NEW.unit_seq,"        \
    "      n = h.n + 1 WHERE unit_row = NEW.unit_row;"                         \
    "    IF (h.n + 1) % 64 = 0 THEN"                                           \
    "      INSERT INTO unit_marks (unit_row, seq)"                             \
    "        VALUES (NEW.unit_row, NEW.seq);"                                  \
    "    END IF;"                                                              \
    "  ELSE"                                                                   \
    "    NEW.prev_seq := NULL;"                                                \
    "    NEW.unit_seq := 1;"                                                   \
    "    INSERT INTO unit_heads (unit_row, seq, unit_seq, n)"                  \
    "      VALUES (NEW.unit_row, NEW.seq, 1, 1);"                              \
    "  END IF;"                                                                \
    "  RETURN NEW; END $$;"                                                    \
    "CREATE TRIGGER unit_events_chain BEFORE INSERT ON unit_events"            \
    "  FOR EACH ROW EXECUTE FUNCTION unit_events_chain();"

#endif
