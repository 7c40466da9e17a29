/*
 * migrations.c: the schema, as numbered forward-only migrations.
 *
 * Migration N (1-based) brings PRAGMA user_version from N-1 to N.  Never
 * edit a migration that has shipped: add the next one.  Columns that hold
 * documents (combat reports, history states) are opaque text to the
 * database layer; the server writes and reads them.
 *
 * History events name their unit, campaign and combat by the rowids of
 * their rows (migration 18): a migration that makes units, campaigns or
 * combats again must copy each row's rowid with it, and no row of them is
 * ever deleted.
 */
#include "migrations.h"

#include "db.h"
#include "migrations_event_log.h"

const char *const migrations_sql[] = {
    /* 1: campaigns, sides, tokens, units, combats, the roll log, history. */
    "CREATE TABLE campaigns ("
    "  id TEXT PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  created_at TEXT NOT NULL,"
    "  scrud_cap_kind INTEGER NOT NULL,"
    "  scrud_cap INTEGER NOT NULL,"
    "  scrud_has_floor INTEGER NOT NULL,"
    "  scrud_floor INTEGER NOT NULL,"
    "  scrud_extra_dice INTEGER NOT NULL,"
    "  scrud_attrition INTEGER NOT NULL,"
    "  scrud_max_penalty INTEGER NOT NULL,"
    "  scrud_eliminate_below INTEGER NOT NULL,"
    "  scrud_defeats_per_elimination INTEGER NOT NULL"
    ");"
    "CREATE TABLE sides ("
    "  id TEXT PRIMARY KEY,"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  name TEXT NOT NULL,"
    "  created_at TEXT NOT NULL,"
    "  UNIQUE (campaign_id, name)"
    ");"
    "CREATE TABLE tokens ("
    "  id TEXT PRIMARY KEY,"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  side_id TEXT REFERENCES sides(id),"
    "  role TEXT NOT NULL CHECK (role IN ('umpire', 'player')),"
    "  hash TEXT NOT NULL UNIQUE,"
    "  created_at TEXT NOT NULL"
    ");"
    "CREATE TABLE units ("
    "  id TEXT PRIMARY KEY,"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  side_id TEXT NOT NULL REFERENCES sides(id),"
    "  name TEXT NOT NULL,"
    "  created_at TEXT NOT NULL,"
    "  eliminated INTEGER NOT NULL DEFAULT 0,"
    "  eliminated_reason TEXT,"
    "  eliminated_by TEXT,"
    "  scrud_quality INTEGER NOT NULL DEFAULT 0,"
    "  scrud_faces INTEGER NOT NULL DEFAULT 6,"
    "  scrud_defeat_penalty INTEGER NOT NULL DEFAULT 0,"
    "  scrud_fatigue_penalty INTEGER NOT NULL DEFAULT 0,"
    "  UNIQUE (campaign_id, name)"
    ");"
    "CREATE INDEX units_by_side ON units (side_id);"
    "CREATE TABLE combats ("
    "  id TEXT PRIMARY KEY,"
    "  campaign_id TEXT REFERENCES campaigns(id),"
    "  system TEXT NOT NULL,"
    "  created_at TEXT NOT NULL,"
    "  note TEXT,"
    "  dice_source TEXT NOT NULL,"
    "  rng TEXT,"
    "  commitment TEXT,"
    "  server_seed TEXT,"
    "  client_seed TEXT,"
    "  actor_token_id TEXT,"
    "  summary TEXT NOT NULL,"
    "  report TEXT NOT NULL"
    ");"
    "CREATE INDEX combats_by_campaign ON combats (campaign_id, created_at);"
    "CREATE TABLE rolls ("
    "  combat_id TEXT NOT NULL REFERENCES combats(id),"
    "  seq INTEGER NOT NULL,"
    "  side_name TEXT,"
    "  unit_id TEXT,"
    "  unit_name TEXT,"
    "  reason TEXT NOT NULL,"
    "  faces INTEGER NOT NULL,"
    "  natural INTEGER NOT NULL,"
    "  modified INTEGER NOT NULL,"
    "  source TEXT NOT NULL,"
    "  rng TEXT,"
    "  PRIMARY KEY (combat_id, seq)"
    ") WITHOUT ROWID;"
    "CREATE INDEX rolls_by_unit ON rolls (unit_id) WHERE unit_id IS NOT NULL;"
    "CREATE TABLE unit_events ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  unit_id TEXT NOT NULL REFERENCES units(id),"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  at TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  combat_id TEXT REFERENCES combats(id),"
    "  actor_token_id TEXT,"
    "  note TEXT,"
    "  before TEXT,"
    "  after TEXT NOT NULL,"
    "  result TEXT"
    ");"
    "CREATE INDEX unit_events_by_unit ON unit_events (unit_id, seq);",

    /* 2: EDNA (campaign defaults, each unit's value), the systems a unit
     * carries, and each unit's history numbered from 1 for its readers.
     * Units from before carry every system (SCRUD and EDNA at 8); their
     * earlier history states keep the shape they were written in. */
    "ALTER TABLE campaigns ADD COLUMN edna_start INTEGER NOT NULL DEFAULT 8;"
    "ALTER TABLE campaigns ADD COLUMN edna_dice INTEGER NOT NULL DEFAULT 2;"
    "ALTER TABLE campaigns ADD COLUMN edna_faces INTEGER NOT NULL DEFAULT 6;"
    "ALTER TABLE units ADD COLUMN has_scrud INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE units ADD COLUMN has_edna INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE units ADD COLUMN edna INTEGER NOT NULL DEFAULT 8;"
    "ALTER TABLE units ADD COLUMN edna_start INTEGER NOT NULL DEFAULT 8;"
    "ALTER TABLE unit_events ADD COLUMN unit_seq INTEGER;"
    "UPDATE unit_events SET unit_seq = (SELECT n FROM (SELECT seq AS s, "
    "  row_number() OVER (PARTITION BY unit_id ORDER BY seq) AS n "
    "  FROM unit_events) WHERE s = unit_events.seq);"
    "CREATE UNIQUE INDEX unit_events_by_unit_seq "
    "  ON unit_events (unit_id, unit_seq);"
    "CREATE INDEX unit_events_by_campaign ON unit_events (campaign_id, seq);",

    /* 3: SCS: the campaign's out-of-supply multipliers (exact fractions as
     * text, "p" or "p/q"), each unit's counter (printed sides, steps, exploit
     * and supply marks; a NULL attack is none printed) and the campaign's
     * combat results tables as documents.  Units from before do not carry
     * SCS: they have no printed values; campaigns from before get
     * multipliers of 1 (no effect). */
    "ALTER TABLE campaigns ADD COLUMN scs_oos_attack TEXT NOT NULL "
    "  DEFAULT '1';"
    "ALTER TABLE campaigns ADD COLUMN scs_oos_defense TEXT NOT NULL "
    "  DEFAULT '1';"
    "ALTER TABLE units ADD COLUMN has_scs INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_attack INTEGER;"
    "ALTER TABLE units ADD COLUMN scs_defense INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_movement INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_has_reduced INTEGER NOT NULL "
    "  DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_r_attack INTEGER;"
    "ALTER TABLE units ADD COLUMN scs_r_defense INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_r_movement INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_steps INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_steps_lost INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_exploit INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN scs_out_of_supply INTEGER NOT NULL "
    "  DEFAULT 0;"
    "CREATE TABLE crts ("
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  name TEXT NOT NULL,"
    "  doc TEXT NOT NULL,"
    "  created_at TEXT NOT NULL,"
    "  updated_at TEXT NOT NULL,"
    "  PRIMARY KEY (campaign_id, name)"
    ") WITHOUT ROWID;",

    /* 4: Matrix battles and Civilization's pieces (a unit's class, era,
     * bonus and aircraft dice multiplier; units from before carry none).
     * Matrix: the turn a side's army fights exhausted (0: none),
     * each unit's Matrix quality, and the interactive battles with the
     * actions taken on them, in order (the state is rebuilt from the setup
     * and the actions; the primary key (battle_id, seq) refuses a second
     * action with the same seq, so two racing requests cannot both land).
     * Units from before that carry SCRUD and EDNA (made naming no system)
     * carry Matrix too, as such a unit made now does: it needs no printed
     * values, and a quality of 0 is the plain one.  Units that named their
     * systems keep only those. */
    "ALTER TABLE sides ADD COLUMN exhausted_turn INTEGER NOT NULL "
    "  DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN has_matrix INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE units ADD COLUMN matrix_quality INTEGER NOT NULL "
    "  DEFAULT 0;"
    "UPDATE units SET has_matrix = (has_scrud AND has_edna AND NOT has_scs);"
    "ALTER TABLE units ADD COLUMN has_civ INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN civ_class INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN civ_era INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE units ADD COLUMN civ_bonus INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE units ADD COLUMN civ_multiplier INTEGER NOT NULL "
    "  DEFAULT 1;"
    "CREATE TABLE battles ("
    "  id TEXT PRIMARY KEY,"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  system TEXT NOT NULL,"
    "  status TEXT NOT NULL "
    "    CHECK (status IN ('open', 'finished', 'escalated', 'abandoned')),"
    "  turn INTEGER NOT NULL,"
    "  created_at TEXT NOT NULL,"
    "  updated_at TEXT NOT NULL,"
    "  dice_source TEXT NOT NULL,"
    "  commitment TEXT,"
    "  server_seed TEXT,"
    "  client_seed TEXT,"
    "  actor_token_id TEXT,"
    "  note TEXT,"
    "  setup TEXT NOT NULL,"
    "  n_actions INTEGER NOT NULL DEFAULT 0,"
    "  combat_id TEXT REFERENCES combats(id),"
    "  linked_from TEXT,"
    "  linked_to TEXT"
    ");"
    "CREATE INDEX battles_by_campaign ON battles (campaign_id, created_at);"
    "CREATE TABLE battle_actions ("
    "  battle_id TEXT NOT NULL REFERENCES battles(id),"
    "  seq INTEGER NOT NULL,"
    "  at TEXT NOT NULL,"
    "  actor_token_id TEXT,"
    "  kind TEXT NOT NULL,"
    "  combat INTEGER NOT NULL,"
    "  army INTEGER NOT NULL,"
    "  unit INTEGER NOT NULL,"
    "  naturals TEXT NOT NULL,"
    "  note TEXT,"
    "  detail TEXT,"
    "  PRIMARY KEY (battle_id, seq)"
    ") WITHOUT ROWID;",

    /* 5: dice anyone can check (docs/dice.md, docs/ledger.md).
     * Commitments: seeds drawn ahead of the combats that will use them,
     * each a campaign's (at most one unused at a time: the next one) or a
     * one-off's; the seed stays secret until a combat uses it.  The
     * ledger: each campaign's dice as a hash chain over the rolls of its
     * combats and the actions of its battles (ledger_pos from 1 across
     * both), with the campaign's length and head.  Idempotency keys: the
     * first response to a request that rolled dice, to answer its
     * retries.  After the SQL, migration_5_after chains the rolls and
     * actions logged before and gives every campaign its next commitment. */
    "CREATE TABLE commitments ("
    "  commitment TEXT PRIMARY KEY,"
    "  seed TEXT NOT NULL,"
    "  campaign_id TEXT REFERENCES campaigns(id),"
    "  created_at TEXT NOT NULL,"
    "  used_at TEXT,"
    "  used_by TEXT"
    ") WITHOUT ROWID;"
    "CREATE UNIQUE INDEX commitments_next ON commitments (campaign_id) "
    "  WHERE campaign_id IS NOT NULL AND used_at IS NULL;"
    "CREATE INDEX commitments_by_campaign "
    "  ON commitments (campaign_id, created_at);"
    "ALTER TABLE campaigns ADD COLUMN ledger_length INTEGER NOT NULL "
    "  DEFAULT 0;"
    "ALTER TABLE campaigns ADD COLUMN ledger_head TEXT NOT NULL DEFAULT "
    "  '0000000000000000000000000000000000000000000000000000000000000000';"
    "ALTER TABLE rolls ADD COLUMN ledger_pos INTEGER;"
    "ALTER TABLE rolls ADD COLUMN prev_hash TEXT;"
    "ALTER TABLE rolls ADD COLUMN hash TEXT;"
    "ALTER TABLE battle_actions ADD COLUMN ledger_pos INTEGER;"
    "ALTER TABLE battle_actions ADD COLUMN prev_hash TEXT;"
    "ALTER TABLE battle_actions ADD COLUMN hash TEXT;"
    "CREATE INDEX battles_by_combat ON battles (combat_id) "
    "  WHERE combat_id IS NOT NULL;"
    "CREATE TABLE idempotency_keys ("
    "  scope TEXT NOT NULL,"
    "  key TEXT NOT NULL,"
    "  fingerprint TEXT NOT NULL,"
    "  created_at TEXT NOT NULL,"
    "  status INTEGER NOT NULL,"
    "  location TEXT,"
    "  render TEXT,"
    "  body TEXT NOT NULL,"
    "  PRIMARY KEY (scope, key)"
    ") WITHOUT ROWID;"
    "CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);",

    /* 6: Discord (docs/discord.md).  The channels linked to a campaign
     * (a channel to one campaign at most), the Discord users who are a
     * campaign's umpires (they linked with its umpire token) and the side
     * each player claimed (with its player token), and every interaction
     * that changed something: its id once only, who sent it and what it
     * was, so that a repeated interaction never acts twice. */
    "CREATE TABLE discord_channels ("
    "  guild_id TEXT NOT NULL,"
    "  channel_id TEXT NOT NULL,"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  linked_by TEXT NOT NULL,"
    "  linked_at TEXT NOT NULL,"
    "  PRIMARY KEY (guild_id, channel_id)"
    ") WITHOUT ROWID;"
    "CREATE INDEX discord_channels_by_campaign "
    "  ON discord_channels (campaign_id);"
    "CREATE TABLE discord_umpires ("
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  user_id TEXT NOT NULL,"
    "  linked_at TEXT NOT NULL,"
    "  PRIMARY KEY (campaign_id, user_id)"
    ") WITHOUT ROWID;"
    "CREATE TABLE discord_players ("
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  user_id TEXT NOT NULL,"
    "  side_id TEXT NOT NULL REFERENCES sides(id),"
    "  claimed_at TEXT NOT NULL,"
    "  PRIMARY KEY (campaign_id, user_id)"
    ") WITHOUT ROWID;"
    "CREATE TABLE discord_interactions ("
    "  id TEXT PRIMARY KEY,"
    "  at TEXT NOT NULL,"
    "  campaign_id TEXT,"
    "  user_id TEXT NOT NULL,"
    "  command TEXT NOT NULL"
    ") WITHOUT ROWID;"
    "CREATE INDEX discord_interactions_by_campaign "
    "  ON discord_interactions (campaign_id, at);",

    /* 7: channel posts (docs/discord.md, "Channel posts").  A campaign's
     * Discord webhook (one at most), with what became of its posts, and
     * the posts waiting to be sent.  The trigger makes the post in the
     * transaction of the combat itself, for every combat and battle
     * record of a campaign with a webhook, whichever front door made it:
     * a post cannot be lost between the commit and the poster
     * (server/notify/), which sends and settles them in seq order. */
    "CREATE TABLE webhooks ("
    "  campaign_id TEXT PRIMARY KEY REFERENCES campaigns(id),"
    "  url TEXT NOT NULL,"
    "  hook_id TEXT NOT NULL,"
    "  token TEXT NOT NULL,"
    "  set_at TEXT NOT NULL,"
    "  n_delivered INTEGER NOT NULL DEFAULT 0,"
    "  last_delivery_at TEXT,"
    "  last_delivery_combat TEXT,"
    "  n_failures INTEGER NOT NULL DEFAULT 0,"
    "  last_failure_at TEXT,"
    "  last_failure_combat TEXT,"
    "  last_error TEXT"
    ") WITHOUT ROWID;"
    "CREATE TABLE webhook_posts ("
    "  seq INTEGER PRIMARY KEY,"
    "  campaign_id TEXT NOT NULL REFERENCES webhooks(campaign_id),"
    "  combat_id TEXT NOT NULL REFERENCES combats(id),"
    "  created_at TEXT NOT NULL"
    ");"
    "CREATE INDEX webhook_posts_by_campaign "
    "  ON webhook_posts (campaign_id, seq);"
    "CREATE TRIGGER combats_post AFTER INSERT ON combats "
    "  WHEN NEW.campaign_id IS NOT NULL BEGIN"
    "  INSERT INTO webhook_posts (campaign_id, combat_id, created_at)"
    "    SELECT campaign_id, NEW.id, NEW.created_at FROM webhooks"
    "    WHERE campaign_id = NEW.campaign_id;"
    "  END;",

    /* 8: tokens reissued and share links (docs/sharing.md).  Reissuing a
     * token revokes the live one of its role and side and adds a new one:
     * revoked rows stay, so the campaign's list of issues keeps every
     * issue (issued_by 'creation' for the tokens made with the campaign
     * or a side, 'umpire' for a reissue) and history's actor ids still
     * name a row.  One live token per role and side at most (the partial
     * unique index).  A share link opens one combat, battle or the whole
     * campaign report to whoever holds its secret, stored as a SHA-256
     * hash like a token's; revoking one keeps its row (revoked_at). */
    "ALTER TABLE tokens ADD COLUMN issued_by TEXT NOT NULL "
    "  DEFAULT 'creation' CHECK (issued_by IN ('creation', 'umpire'));"
    "ALTER TABLE tokens ADD COLUMN revoked_at TEXT;"
    "CREATE UNIQUE INDEX tokens_live "
    "  ON tokens (campaign_id, role, coalesce(side_id, '')) "
    "  WHERE revoked_at IS NULL;"
    "CREATE INDEX tokens_by_campaign ON tokens (campaign_id);"
    "CREATE TABLE shares ("
    "  id TEXT PRIMARY KEY,"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  kind TEXT NOT NULL CHECK (kind IN ('combat', 'battle', 'campaign')),"
    "  target_id TEXT,"
    "  note TEXT,"
    "  hash TEXT NOT NULL UNIQUE,"
    "  created_at TEXT NOT NULL,"
    "  actor_token_id TEXT,"
    "  revoked_at TEXT,"
    "  CHECK ((kind = 'campaign') = (target_id IS NULL))"
    ");"
    "CREATE INDEX shares_by_campaign ON shares (campaign_id);",

    /* 9: fog of war (server/systems/fog.h).  Whether a campaign hides
     * other sides' units from a player, and how much of them it shows:
     * off, and "status", unless the campaign says otherwise. */
    "ALTER TABLE campaigns ADD COLUMN fog_enabled INTEGER NOT NULL "
    "  DEFAULT 0 CHECK (fog_enabled IN (0, 1));"
    "ALTER TABLE campaigns ADD COLUMN fog_others TEXT NOT NULL "
    "  DEFAULT 'status' "
    "  CHECK (fog_others IN ('full', 'status', 'name', 'hidden'));",

    /* 10: the campaign event log (docs/events.md): what the live events
     * stream serves, one row per event, its seq the event's id, increasing
     * service-wide and so within each campaign.  The triggers write it in
     * the transaction of what it reports, whatever the front door: a
     * campaign's combat, a battle created, each battle action and each
     * change of a battle's status, a unit history event, each new head of
     * the ledger, and a token revoked (migration 8: never served, it ends
     * the streams of that token).  A battle's status and number of actions, and
     * the ledger's length and head, are kept as they were then; the rest
     * is joined from its record when read (db/event_log.c).  Rows are
     * never updated or deleted (AUTOINCREMENT: no seq is ever reused).
     * What the database held before is logged first, in the order of its
     * times: every battle as it stands, combat and unit history event,
     * then each campaign's ledger head. */
    "CREATE TABLE event_log ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  kind TEXT NOT NULL"
    "    CHECK (kind IN ('combat', 'battle', 'unit', 'ledger', 'revoked')),"
    "  record_id TEXT,"   /* the combat's, the battle's or the token's id */
    "  unit_seq INTEGER," /* the unit history event's seq */
    "  status TEXT,"      /* a battle's, then */
    "  n INTEGER,"        /* a battle's actions, or the ledger's length */
    "  head TEXT"         /* the ledger's head */
    ");"
    "CREATE INDEX event_log_by_campaign ON event_log (campaign_id, seq);"
    "INSERT INTO event_log (campaign_id, kind, record_id, unit_seq, status, n)"
    "  SELECT campaign_id, kind, record_id, unit_seq, status, n FROM ("
    "    SELECT campaign_id, 'battle' AS kind, id AS record_id,"
    "      NULL AS unit_seq, status, n_actions AS n, created_at AS at,"
    "      0 AS rank FROM battles"
    "    UNION ALL SELECT campaign_id, 'combat', id, NULL, NULL, NULL,"
    "      created_at, 1 FROM combats WHERE campaign_id IS NOT NULL"
    "    UNION ALL SELECT campaign_id, 'unit', NULL, seq, NULL, NULL, at, 2"
    "      FROM unit_events)"
    "  ORDER BY at, rank, record_id, unit_seq;"
    "INSERT INTO event_log (campaign_id, kind, n, head)"
    "  SELECT id, 'ledger', ledger_length, ledger_head FROM campaigns"
    "  WHERE ledger_length > 0 ORDER BY created_at, id;" EVENT_LOG_TRIGGERS,

    /* 11: a campaign's units in creation order without a sort.  The
     * index's entries of one campaign are in rowid order, so the list of
     * a campaign's units, and a page of it, is a range of it (units.c,
     * units_sql); the unique (campaign_id, name) index gave them in name
     * order, to be sorted. */
    "CREATE INDEX units_by_campaign ON units (campaign_id);",

    /* 12: campaign combats worked out off the writer (server/systems/
     * pipeline.h).  A campaign's version counts every change to what the
     * rules of a combat read: its own row (options, the ledger's head),
     * its units and sides, its results tables.  A combat worked out on a
     * snapshot lands only if the version it read is still the campaign's;
     * else the writer works it out again.  The triggers keep the count
     * whatever the front door.  And the event log again, the same, but
     * with its kind checked by comparisons instead of an IN list, which
     * SQLite checks through a temporary table built at every insert (ten
     * inserts per combat); its triggers are dropped and made again around
     * the copy. */
    "ALTER TABLE campaigns ADD COLUMN version INTEGER NOT NULL DEFAULT 0;"
    "CREATE TRIGGER campaign_version_self AFTER UPDATE ON campaigns"
    "  WHEN NEW.version = OLD.version BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = NEW.id;"
    "  END;"
    "CREATE TRIGGER campaign_version_units_new AFTER INSERT ON units BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;"
    "  END;"
    "CREATE TRIGGER campaign_version_units AFTER UPDATE ON units BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;"
    "  END;"
    "CREATE TRIGGER campaign_version_sides_new AFTER INSERT ON sides BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;"
    "  END;"
    "CREATE TRIGGER campaign_version_sides AFTER UPDATE ON sides BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;"
    "  END;"
    "CREATE TRIGGER campaign_version_crts_new AFTER INSERT ON crts BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;"
    "  END;"
    "CREATE TRIGGER campaign_version_crts AFTER UPDATE ON crts BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = NEW.campaign_id;"
    "  END;"
    "CREATE TRIGGER campaign_version_crts_gone AFTER DELETE ON crts BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = OLD.campaign_id;"
    "  END;" EVENT_LOG_TRIGGERS_DROP EVENT_LOG_NEW(" AUTOINCREMENT")
        EVENT_LOG_MOVE EVENT_LOG_TRIGGERS,

    /* 13: a one-off combat's roll log packed into its row (db_combat_pack,
     * log.c): one row written instead of one per die.  NULL for a combat
     * whose rolls are rows of rolls: a campaign's, whose rolls are entries
     * of its ledger, and one-off combats from before. */
    "ALTER TABLE combats ADD COLUMN rolls BLOB;",

    /* 14: a combat's unit history documents packed once in its row
     * (db/unit_docs.c): its events keep their place there (doc_slot) and
     * no documents of their own.  Events from before, and every event not
     * of a combat, keep theirs (doc_slot NULL); one that has none has a
     * place.  Two indexes no statement reads are dropped, each an entry
     * more per row written: rolls_by_unit (a combat's rolls of one unit
     * are found by the primary key), and unit_events_by_unit_seq (a
     * unit's next number is read on unit_events_by_unit; the writer of a
     * campaign is one at a time, so no two events take the same).
     * combats_by_campaign leaves one-off combats out (every statement on
     * it names a campaign): a one-off writes one entry less.
     * unit_events and event_log are made again without
     * AUTOINCREMENT: their rows are never deleted, so the next seq is the
     * largest plus one, as before, without SQLite's counter row written
     * at every insert (two per history event). */
    "ALTER TABLE combats ADD COLUMN unit_docs BLOB;"
    "DROP INDEX combats_by_campaign;"
    "CREATE INDEX combats_by_campaign ON combats (campaign_id, created_at)"
    "  WHERE campaign_id IS NOT NULL;" EVENT_LOG_TRIGGERS_DROP
    "CREATE TABLE unit_events_new ("
    "  seq INTEGER PRIMARY KEY,"
    "  unit_id TEXT NOT NULL REFERENCES units(id),"
    "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
    "  at TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  combat_id TEXT REFERENCES combats(id),"
    "  actor_token_id TEXT,"
    "  note TEXT,"
    "  before TEXT,"
    "  after TEXT,"
    "  result TEXT,"
    "  unit_seq INTEGER,"
    "  doc_slot INTEGER,"
    "  CHECK (after IS NOT NULL"
    "    OR (coalesce(doc_slot, 0) > 0 AND combat_id IS NOT NULL))"
    ");"
    "INSERT INTO unit_events_new (seq, unit_id, campaign_id, at, kind,"
    "  combat_id, actor_token_id, note, before, after, result, unit_seq)"
    "  SELECT seq, unit_id, campaign_id, at, kind, combat_id,"
    "  actor_token_id, note, before, after, result, unit_seq"
    "  FROM unit_events ORDER BY seq;"
    "DROP TABLE unit_events;"
    "ALTER TABLE unit_events_new RENAME TO unit_events;"
    "CREATE INDEX unit_events_by_unit ON unit_events (unit_id, seq);"
    "CREATE INDEX unit_events_by_campaign ON unit_events (campaign_id, seq);"
    "DROP INDEX rolls_by_unit;" EVENT_LOG_NEW("")
        EVENT_LOG_MOVE EVENT_LOG_TRIGGERS,

    /* 15: a campaign combat's rolls packed into one row, with their
     * hashes, rather than a row of rolls each (db_combat_pack):
     * ledger_first the ledger place of the first, the others following
     * it.  A table of its own rather than the combat's row (as a
     * one-off's, migration 13): a combat's row holds its report and
     * history documents, and with its rolls too would fill a page alone. */
    "CREATE TABLE combat_rolls ("
    "  combat_id TEXT PRIMARY KEY REFERENCES combats(id),"
    "  ledger_first INTEGER NOT NULL,"
    "  rolls BLOB NOT NULL"
    ") WITHOUT ROWID;",

    /* 16: a campaign's next commitment on the campaign's row
     * (db_commitment_next), drawn again in the one write that spends it
     * (db_commitment_renew), rather than a row of commitments made and
     * another taken per combat: commitments keeps the one-off ones.  A
     * spent campaign commitment is kept by the combat or battle that used
     * it (migration 15's stop kept no row for it either); those left from
     * before go, their combats and battles holding them. */
    MIGRATION_16_SQL,

    /* 17: a combat's unit history events whose documents are in its row
     * (doc_slot) logged as one row of the event log for the run of them
     * (db_events_insert writes it): the row's seq is the last of the
     * places they take, n how many, unit_seq the first event's seq
     * (db/event_log.c reads one event per place).  The trigger logs the
     * others, one row each, as before.  And unit_events_by_unit holds
     * each event's unit_seq, so that a unit's next number (log.c) is read
     * from the index alone. */
    "DROP INDEX unit_events_by_unit;"
    "CREATE INDEX unit_events_by_unit ON unit_events (unit_id, seq, unit_seq);"
    "DROP TRIGGER event_log_unit_events;"
    "CREATE TRIGGER event_log_unit_events AFTER INSERT ON unit_events"
    "  WHEN NEW.doc_slot IS NULL BEGIN"
    "  INSERT INTO event_log (campaign_id, kind, unit_seq)"
    "    VALUES (NEW.campaign_id, 'unit', NEW.seq);"
    "  END;",

    /* 18: history events keyed by integers: the unit, its campaign and
     * its combat by their rows' rowids (unit_row, campaign_row,
     * combat_row) rather than their ids, and a packed event's time and
     * kind (its combat's created_at, and "combat") left to its combat's
     * row: NULL in the rows written from now on, kept in those from
     * before.  The two indexes key on the integers.  Units, campaigns
     * and combats are never deleted and a backup (VACUUM INTO) keeps
     * rowids, so a rowid stays its row's; a copy to PostgreSQL takes
     * them into its rowid columns (db/copy.c).  An event whose unit or
     * campaign is missing (written with foreign keys off) stops the
     * migration: its key would be NULL.  And the event log's
     * trigger on them goes: the one function that inserts history events
     * (db_events_insert, unit_events_write.c) logs each as the trigger did,
     * without a trigger's sub-program run at every insert. */
    "DROP TRIGGER event_log_unit_events;"
    "CREATE TABLE unit_events_new ("
    "  seq INTEGER PRIMARY KEY,"
    "  unit_row INTEGER NOT NULL,"
    "  campaign_row INTEGER NOT NULL,"
    "  at TEXT,"
    "  kind TEXT,"
    "  combat_row INTEGER,"
    "  actor_token_id TEXT,"
    "  note TEXT,"
    "  before TEXT,"
    "  after TEXT,"
    "  result TEXT,"
    "  unit_seq INTEGER,"
    "  doc_slot INTEGER,"
    "  CHECK (after IS NOT NULL"
    "    OR (coalesce(doc_slot, 0) > 0 AND combat_row IS NOT NULL)),"
    "  CHECK ((at IS NOT NULL AND kind IS NOT NULL)"
    "    OR (coalesce(doc_slot, 0) > 0 AND combat_row IS NOT NULL))"
    ");"
    "INSERT INTO unit_events_new (seq, unit_row, campaign_row, at, kind,"
    "  combat_row, actor_token_id, note, before, after, result, unit_seq,"
    "  doc_slot)"
    "  SELECT e.seq, un.rowid, cp.rowid, e.at, e.kind, cb.rowid,"
    "  e.actor_token_id, e.note, e.before, e.after, e.result, e.unit_seq,"
    "  e.doc_slot FROM unit_events e LEFT JOIN units un ON un.id = e.unit_id"
    "  LEFT JOIN campaigns cp ON cp.id = e.campaign_id"
    "  LEFT JOIN combats cb ON cb.id = e.combat_id ORDER BY e.seq;"
    "DROP TABLE unit_events;"
    "ALTER TABLE unit_events_new RENAME TO unit_events;"
    "CREATE INDEX unit_events_by_unit"
    "  ON unit_events (unit_row, seq, unit_seq);"
    "CREATE INDEX unit_events_by_campaign"
    "  ON unit_events (campaign_row, seq);",

    /* 19: a campaign's history feed read through the event log's rows of
     * its unit events (db_events_page), which log every one (a row each,
     * or a combat's block, migration 17), on an index of those rows by
     * their first event: one entry per combat rather than the eight of
     * unit_events_by_campaign, which goes.  (PostgreSQL keeps that one:
     * db/migrations_pg.c.) */
    "CREATE INDEX event_log_units ON event_log (campaign_id, unit_seq)"
    "  WHERE kind = 'unit';"
    "DROP INDEX unit_events_by_campaign;",

    /* 20: nothing in the tables: what their values may hold.  A campaign
     * combat's packed rolls keep their hashes beside their frame
     * (combat_pack.c), its events' documents may be in its report's frame
     * (unit_docs.c), and a one-off's rolls are (combat_pack.c).  A build from
     * before reads neither, and would take such a combat for a damaged one; the
     * version tells it, and it refuses the store (newer than it) rather than
     * misread it.  Values written before read as they are. */
    "SELECT 1;",

    /* 21: nothing in the tables either.  Packed rolls are stored in a
     * compact layout of their own, without a zstd frame (combat_pack.c):
     * a campaign combat's beside their hashes, a one-off's in its row
     * rather than in its report's frame.  A build from before would
     * take them for a damaged value; the version tells it, and it refuses
     * the store.  Values written before read as they are. */
    "SELECT 1;",

    /* 22: a campaign combat's packed rolls in its own row's rolls, with
     * ledger_first, rather than in a row of combat_rolls (migration 15),
     * which goes, its rows moved.  A combat's row no longer fills a page
     * alone (its report and documents packed: combat_pack.c, unit_docs.c),
     * so its rolls go in beside them: one row and one B-tree fewer for
     * the writer a combat (its key, its pages in every commit).
     * ledger_first is NULL for a combat without packed chained rolls (a
     * one-off's, or a battle's record, whose rolls are rows). */
    "ALTER TABLE combats ADD COLUMN ledger_first INTEGER;"
    "UPDATE combats SET rolls = k.rolls, ledger_first = k.ledger_first"
    "  FROM combat_rolls k WHERE k.combat_id = combats.id;"
    "DROP TABLE combat_rolls;",

    /* 23: a unit's history found by a chain rather than an index entry
     * per event (unit_events_write.c): each event the seq of its unit's event
     * before it (prev_seq), unit_heads each unit's last (its seq, number
     * and how many), unit_marks every 64th event of each unit, from which
     * a page is walked.  A combat writes its units' heads, rows of one
     * small table, where unit_events_by_unit took an entry in a page of
     * each unit's own: most of the pages each commit wrote.  Every event
     * written before takes its place in its unit's chain. */
    "ALTER TABLE unit_events ADD COLUMN prev_seq INTEGER;"
    "UPDATE unit_events SET prev_seq = w.p FROM (SELECT seq, lag(seq)"
    "  OVER (PARTITION BY unit_row ORDER BY seq) AS p FROM unit_events) AS w"
    "  WHERE w.seq = unit_events.seq AND w.p IS NOT NULL;"
    "CREATE TABLE unit_heads ("
    "  unit_row INTEGER PRIMARY KEY,"
    "  seq INTEGER NOT NULL,"
    "  unit_seq INTEGER,"
    "  n INTEGER NOT NULL"
    ");"
    "INSERT INTO unit_heads (unit_row, seq, unit_seq, n)"
    "  SELECT unit_row, max(seq), unit_seq, count(*) FROM unit_events"
    "  GROUP BY unit_row;"
    "CREATE TABLE unit_marks ("
    "  unit_row INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  PRIMARY KEY (unit_row, seq)"
    ") WITHOUT ROWID;"
    "INSERT INTO unit_marks (unit_row, seq) SELECT unit_row, seq FROM"
    "  (SELECT unit_row, seq, row_number() OVER (PARTITION BY unit_row"
    "  ORDER BY seq) AS k FROM unit_events) WHERE k % 64 = 0;"
    "DROP INDEX unit_events_by_unit;",

    /* 24: nothing in the tables: what their values may hold.  A combat
     * may be stored as its facts (facts.c: a SCRUD combat's, tagged, with
     * a checksum) in its report's place, and a campaign combat's events'
     * documents then in a frame of their own (unit_docs.c).  A build from
     * before would serve the facts as if they were a report; the version
     * tells it, and it refuses the store.  Values written before read as
     * they are. */
    "SELECT 1;",

    /* 25: a campaign's combats and the ledger's moves logged by the code
     * that writes them (event_log.c, db_log_combat and db_log_ledger)
     * rather than by triggers, and a combat that moves the ledger logged
     * in one row for both (its id, and the ledger's length and head after
     * it, in two places: its seq - 1 and its seq): one row, one index
     * entry and no trigger program a combat, where there were two of
     * each.  Its events read back as before, with the same ids.  Rows
     * written before read as they are. */
    "DROP TRIGGER IF EXISTS event_log_combats;"
    "DROP TRIGGER IF EXISTS event_log_ledger;",

    /* 26: trigger programs off the writer's path, run for every campaign
     * combat (about 5k and 6.5k instructions), and for every unit it
     * changes (about 11k, its campaign's row written again each time).
     * A combat's channel post is queued by the code that inserts the
     * combat (db_webhook_enqueue), which knows whether its campaign has a
     * webhook without asking again (the writer keeps that until it writes
     * a webhook).  A write of the campaign's row counts its version by
     * trigger only where it names none of the columns that every write
     * counts itself: its version, the ledger's length and head (the
     * ledger's save, ledger.c), and its next commitment (commitments.c,
     * and the ledger's save).  A trigger of UPDATE OF those columns is not
     * even coded into those writes.  A write of any other column still
     * counts by trigger, as before (fog.c's).  And a write of a unit
     * counts its campaign's version by the code that writes it
     * (db_unit_update), once a job: not again where the job has counted
     * it already (a combat's ledger save, before its units).  A version
     * counted once a transaction is all that a snapshot's cache asks
     * (unit_cache.c). */
    "DROP TRIGGER IF EXISTS combats_post;"
    "DROP TRIGGER IF EXISTS campaign_version_units;"
    "DROP TRIGGER IF EXISTS campaign_version_self;"
    "CREATE TRIGGER campaign_version_self AFTER UPDATE OF"
    "  id, name, created_at, scrud_cap_kind, scrud_cap, scrud_has_floor,"
    "  scrud_floor, scrud_extra_dice, scrud_attrition, scrud_max_penalty,"
    "  scrud_eliminate_below, scrud_defeats_per_elimination, edna_start,"
    "  edna_dice, edna_faces, scs_oos_attack, scs_oos_defense, fog_enabled,"
    "  fog_others ON campaigns"
    "  WHEN NEW.version = OLD.version BEGIN"
    "  UPDATE campaigns SET version = version + 1 WHERE id = NEW.id;"
    "  END;",

    /* 27: a campaign combat and its units' events logged in one row (a
     * staged combat's, db_events_insert_logged): the combat's row of
     * migration 25 with the block of migration 17 in it, its first
     * event's seq (unit_seq) and their number (n_units), after the
     * combat's place and the ledger's move, its seq the last event's.
     * One row of the log and its index entry a combat, where there were
     * two.  Its events read back as before, with the same ids.  The
     * feed's index now takes every row with unit events, whatever its
     * kind (unit_seq is set on exactly those). */
    "ALTER TABLE event_log ADD COLUMN n_units INTEGER;"
    "DROP INDEX event_log_units;"
    "CREATE INDEX event_log_units ON event_log (campaign_id, unit_seq)"
    "  WHERE unit_seq IS NOT NULL;",
};

/* Run after the SQL of the migration of the same index, in its
 * transaction; NULL for none. */
const migration_fn migrations_after[] = {
    NULL, NULL, NULL, NULL, db_ledger_backfill,
    NULL, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, NULL,
    NULL, NULL};

const int migrations_count =
    (int)(sizeof migrations_sql / sizeof migrations_sql[0]);

_Static_assert(sizeof migrations_after / sizeof migrations_after[0] ==
                   sizeof migrations_sql / sizeof migrations_sql[0],
               "every migration has its after step (NULL for none)");
