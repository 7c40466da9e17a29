/*
 * migrations_event_log.h: the SQL of SQLite's campaign event log that
 * several migrations (migrations.c) share: its triggers (migration 10,
 * made again by 12 around the copy of the log) and the table made again
 * (migrations 12 and 14).  Like the migrations, never edit what has
 * shipped.  Included by migrations.c only.
 */
#ifndef UMPIRE_MIGRATIONS_EVENT_LOG_H
#define UMPIRE_MIGRATIONS_EVENT_LOG_H

/* The event log's triggers (migration 10; made again by 12, around the
 * copy of the log). */
#define EVENT_LOG_TRIGGERS                                                     \
    "CREATE TRIGGER event_log_combats AFTER INSERT ON combats"                 \
    "  WHEN NEW.campaign_id IS NOT NULL BEGIN"                                 \
    "  INSERT INTO event_log (campaign_id, kind, record_id)"                   \
    "    VALUES (NEW.campaign_id, 'combat', NEW.id);"                          \
    "  END;"                                                                   \
    "CREATE TRIGGER event_log_battles AFTER INSERT ON battles BEGIN"           \
    "  INSERT INTO event_log (campaign_id, kind, record_id, status, n)"        \
    "    VALUES (NEW.campaign_id, 'battle', NEW.id, NEW.status,"               \
    "      NEW.n_actions);"                                                    \
    "  END;"                                                                   \
    "CREATE TRIGGER event_log_battle_actions AFTER INSERT ON battle_actions"   \
    "  BEGIN"                                                                  \
    "  INSERT INTO event_log (campaign_id, kind, record_id, status, n)"        \
    "    SELECT campaign_id, 'battle', id, status, NEW.seq FROM battles"       \
    "    WHERE id = NEW.battle_id;"                                            \
    "  END;"                                                                   \
    "CREATE TRIGGER event_log_battle_status AFTER UPDATE OF status ON battles" \
    "  WHEN NEW.status IS NOT OLD.status BEGIN"                                \
    "  INSERT INTO event_log (campaign_id, kind, record_id, status, n)"        \
    "    VALUES (NEW.campaign_id, 'battle', NEW.id, NEW.status,"               \
    "      NEW.n_actions);"                                                    \
    "  END;"                                                                   \
    "CREATE TRIGGER event_log_unit_events AFTER INSERT ON unit_events BEGIN"   \
    "  INSERT INTO event_log (campaign_id, kind, unit_seq)"                    \
    "    VALUES (NEW.campaign_id, 'unit', NEW.seq);"                           \
    "  END;"                                                                   \
    "CREATE TRIGGER event_log_ledger AFTER UPDATE OF ledger_head ON campaigns" \
    "  WHEN NEW.ledger_head IS NOT OLD.ledger_head BEGIN"                      \
    "  INSERT INTO event_log (campaign_id, kind, n, head)"                     \
    "    VALUES (NEW.id, 'ledger', NEW.ledger_length, NEW.ledger_head);"       \
    "  END;"                                                                   \
    "CREATE TRIGGER event_log_tokens AFTER UPDATE OF revoked_at ON tokens"     \
    "  WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL BEGIN"       \
    "  INSERT INTO event_log (campaign_id, kind, record_id)"                   \
    "    VALUES (NEW.campaign_id, 'revoked', NEW.id);"                         \
    "  END;"

/* The event log made again (migrations 12 and 14): its triggers dropped,
 * the new table made (SEQ_MORE: what follows its seq's INTEGER PRIMARY
 * KEY), the rows moved from the old table into it, which then takes its
 * name and index. */
#define EVENT_LOG_TRIGGERS_DROP                                                \
    "DROP TRIGGER event_log_combats;"                                          \
    "DROP TRIGGER event_log_battles;"                                          \
    "DROP TRIGGER event_log_battle_actions;"                                   \
    "DROP TRIGGER event_log_battle_status;"                                    \
    "DROP TRIGGER event_log_unit_events;"                                      \
    "DROP TRIGGER event_log_ledger;"                                           \
    "DROP TRIGGER event_log_tokens;"
#define EVENT_LOG_NEW(SEQ_MORE)                                                \
    "CREATE TABLE event_log_new ("                                             \
    "  seq INTEGER PRIMARY KEY" SEQ_MORE ","                                   \
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"                    \
    "  kind TEXT NOT NULL"                                                     \
    "    CHECK (kind = 'combat' OR kind = 'battle' OR kind = 'unit'"           \
    "      OR kind = 'ledger' OR kind = 'revoked'),"                           \
    "  record_id TEXT,"                                                        \
    "  unit_seq INTEGER,"                                                      \
    "  status TEXT,"                                                           \
    "  n INTEGER,"                                                             \
    "  head TEXT"                                                              \
    ");"
#define EVENT_LOG_MOVE                                                         \
    "INSERT INTO event_log_new (seq, campaign_id, kind, record_id, unit_seq,"  \
    "  status, n, head)"                                                       \
    "  SELECT seq, campaign_id, kind, record_id, unit_seq, status, n, head"    \
    "  FROM event_log ORDER BY seq;"                                           \
    "DROP TABLE event_log;"                                                    \
    "ALTER TABLE event_log_new RENAME TO event_log;"                           \
    "CREATE INDEX event_log_by_campaign ON event_log (campaign_id, seq);"

#endif
