#!/usr/bin/env bash
# copy.sh: `umpire copy-sqlite` and `umpire migrate` on a PostgreSQL 15
# server.
#
#   UMPIRE_TEST_PG=postgresql://USER@HOST:PORT/DB tests/pg/copy.sh [BUILD]
#
# BUILD is the build folder (default build).  UMPIRE_TEST_PG names a
# database on the server, used only to reach it: each run makes databases
# of its own there (copy_<pid>, with the "C" collation) and drops them at
# the end, whatever happened.  The role needs CREATEDB, and owns what it
# makes.
#
#   1. Serves a campaign on a fresh SQLite file ($BUILD/umpire, port 0)
#      and plays it: SCRUD (seeded, a client seed, entered dice, an
#      Idempotency-Key), EDNA, SCS, a Matrix battle fought to its end and
#      another left open, a Civilization battle, a correction and a
#      resupply, a token reissued, a share link, a Discord webhook (its
#      posts wait: the poster's address refuses), one-off combats; then
#      stops the server.
#   2. umpire copy-sqlite copies the file into the fresh PostgreSQL
#      database: every ledger verifies there, and the rows copied are the
#      file's, table by table.
#   3. Serves the PostgreSQL database and checks that the API answers as
#      it did on SQLite, byte for byte once parsed (jq -S): the campaign,
#      its sides, units, token issues and share links, each unit's history
#      and the campaign's feed a page at a time, the combats (list and
#      each one), the battles (list and each one), the ledger and its
#      verification, the live events replayed from the first, a one-off
#      combat, the shared report, the player token.
#   4. A new combat lands on PostgreSQL: the ledger goes on from the
#      copied head and verifies; its rows sort after the copied ones
#      (identity sequences were moved past them); its events follow.
#   5. A second copy into the same database is refused, and changes
#      nothing.
#   6. umpire migrate on a fresh database twice: the same version after
#      each; two at once on another fresh database: both end at it.
#   7. A file whose ledger was altered is copied, and the command fails,
#      naming the campaign and the entry.
#   8. A database of schema version 1 (written with migration 1's SQL) is
#      migrated by the copy, its rolls chained on the way, and copied: its
#      ledger verifies on PostgreSQL, its text report reads back.
#
# Needs curl, jq, psql, sqlite3, and cc with pkg-config (for 8).  Exits 1
# on failure.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$ROOT/tests/lib.sh"
BUILD=${1:-build}
case $BUILD in
/*) UMPIRE=$BUILD/umpire ;;
*) UMPIRE=$ROOT/$BUILD/umpire ;;
esac
PG=${UMPIRE_TEST_PG:?set UMPIRE_TEST_PG to a PostgreSQL URL}
PSQL=(psql -X -q -v ON_ERROR_STOP=1)

die() {
    echo "copy.sh: FAILED: $*" >&2
    exit 1
}
ok() { echo "ok: $*"; }

for tool in curl jq psql sqlite3; do
    command -v "$tool" >/dev/null 2>&1 || die "needs $tool"
done
[ -x "$UMPIRE" ] || die "no $UMPIRE: build it first"

# The URL of database $1 on UMPIRE_TEST_PG's server.
url_of() {
    local base=${PG%%\?*} query=
    [ "$base" = "$PG" ] || query="?${PG#*\?}"
    local rest=${base#*://}
    case $rest in
    */*) base=${base%/*} ;;
    esac
    echo "$base/$1$query"
}

DBS=(copy_$$ copy_$$_m copy_$$_p copy_$$_t copy_$$_o)
DEST=$(url_of "${DBS[0]}")
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/umpire-copy.XXXXXX")
SERVER_PID=
cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    for db in "${DBS[@]}"; do
        "${PSQL[@]}" "$PG" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 ||
            true
    done
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for db in "${DBS[@]}"; do
    "${PSQL[@]}" "$PG" -c "CREATE DATABASE $db TEMPLATE template0 LOCALE 'C'" ||
        die "cannot create the database $db"
done

# ---- the server on database $1; BASE is where it listens.  Channel posts
# go to a port that refuses them, and wait an hour to be tried again: they
# stay pending, the same on both stores.
start_server() {
    umpire_start "$UMPIRE" "$SCRATCH/server.$RANDOM.err" --db "$1" \
        --discord-api-base http://127.0.0.1:9 --discord-attempts 5 \
        --discord-backoff-ms 3600000 || die "$UMPIRE_WHY"
    SERVER_PID=$UMPIRE_PID
    BASE=$UMPIRE_BASE
}
stop_server() {
    kill -TERM "$SERVER_PID"
    wait "$SERVER_PID" || die "the server did not stop cleanly"
    SERVER_PID=
}

# post PATH BODY [AUTH]: the answer's body; fails on a status of 400 or more.
post() {
    local body status
    body=$(curl -s -X POST "$BASE$1" -H 'Content-Type: application/json' \
        ${3:+-H "$3"} -d "$2" -w '\n%{http_code}') || die "POST $1: no answer"
    status=${body##*$'\n'}
    [ "$status" -lt 400 ] || die "POST $1: $status ${body%$'\n'*}"
    printf '%s\n' "${body%$'\n'*}"
}
camp() { # camp PATH BODY: a POST to the campaign as its umpire
    post "/v1/campaigns/$CAMPAIGN$1" "$2" "$UMPIRE_AUTH"
}

# ---- 1. the campaign, played on SQLite
SRC=$SCRATCH/umpire.db
start_server "$SRC"
# SCRUD units that never wear out (bench/campaign.sh): any combat can be
# fought again.
created=$(post /v1/campaigns '{"name": "Tannenberg 1914",
    "sides": [{"name": "russian"}, {"name": "german"}],
    "options": {"scrud": {"attrition": false, "defeats_per_elimination": 0,
                          "eliminate_below": -2}}}')
CAMPAIGN=$(jq -r .id <<<"$created")
UMPIRE_AUTH="Authorization: Bearer $(jq -r .umpire_token <<<"$created")"
PLAYER_AUTH="Authorization: Bearer $(jq -r '.sides[0].player_token' <<<"$created")"
for n in 1 2 3; do
    camp /units "{\"name\": \"R$n\", \"side\": \"russian\", \"scrud\": {\"quality\": -1}, \"edna\": {}}" >/dev/null
done
for n in 1 2; do
    camp /units "{\"name\": \"G$n\", \"side\": \"german\", \"scrud\": {\"quality\": 1}, \"edna\": {\"start\": 10}}" >/dev/null
done
curl -sf -X PUT "$BASE/v1/campaigns/$CAMPAIGN/webhook" -H "$UMPIRE_AUTH" \
    -H 'Content-Type: application/json' \
    -d '{"url": "https://discord.com/api/webhooks/112233445566778899/AbC_d-0123456789abcdefghijklmnopqrstuvwxyz"}' \
    >/dev/null || die "cannot set the webhook"
SIDES='"sides": [{"side": "russian", "units": [{"unit": "R1"}, {"unit": "R2"}, {"unit": "R3"}]},
                 {"side": "german",  "units": [{"unit": "G1"}, {"unit": "G2"}]}]'
COMBAT=$(camp /combats/scrud "{\"note\": \"Day 1\", \"dice\": {\"client_seed\": \"day-1\"}, $SIDES}" | jq -r .id)
camp /combats/scrud '{"dice": {"source": "entered"},
    "sides": [{"side": "russian", "units": [{"unit": "R1", "die": 4}]},
              {"side": "german",  "units": [{"unit": "G1", "die": 2}]}]}' >/dev/null
camp /combats/edna '{"units": [{"unit": "R1"}]}' >/dev/null
camp /combats/edna '{"note": "under the guns", "units": [{"unit": "R2", "modifier": 1}, {"unit": "R3"}]}' >/dev/null
for n in XIII XV; do
    camp /units "{\"name\": \"$n Corps\", \"side\": \"russian\", \"scs\": {\"attack\": 6, \"defense\": 5, \"reduced\": {\"attack\": 3, \"defense\": 3}}}" >/dev/null
done
camp /units '{"name": "XX Corps", "side": "german", "scs": {"attack": 5, "defense": 4, "reduced": {"attack": 2, "defense": 2}, "exploit_capable": true}}' >/dev/null
camp /combats/scs '{"table": "example-2d6",
    "attackers": [{"unit": "XIII Corps"}, {"unit": "XV Corps", "multipliers": ["1/2"]}],
    "defenders": [{"unit": "XX Corps", "multipliers": [2]}],
    "defender_retreat": {"convert_to_steps": 1}}' >/dev/null
for n in A B C D; do
    camp /units "{\"name\": \"Rifles $n\", \"side\": \"russian\", \"matrix\": {}}" >/dev/null
done
for n in A B C; do
    camp /units "{\"name\": \"Jaeger $n\", \"side\": \"german\", \"matrix\": {\"quality\": 1}}" >/dev/null
done
BATTLE=$(camp /battles '{"turn": 1, "note": "Orlau",
    "attacker": {"side": "russian", "argument": 1, "units": ["Rifles A", "Rifles B", "Rifles C"]},
    "defender": {"side": "german", "units": ["Jaeger A", "Jaeger B"]},
    "line": [{"attacker": ["Rifles A"], "defender": ["Jaeger A"]},
             {"attacker": ["Rifles B"], "defender": ["Jaeger B"]}]}' | jq -r .id)
act() { camp "/battles/$1/actions" "$2"; }
act "$BATTLE" '{"action": "roll", "combat": 0, "expect_actions": 0}' >/dev/null
act "$BATTLE" '{"action": "commit", "combat": 0, "army": "attacker", "unit": "Rifles C", "expect_actions": 1}' >/dev/null
act "$BATTLE" '{"action": "accept", "combat": 0, "expect_actions": 2}' >/dev/null
act "$BATTLE" '{"action": "roll", "combat": 1, "expect_actions": 3}' >/dev/null
[ "$(act "$BATTLE" '{"action": "accept", "combat": 1, "expect_actions": 4}' | jq -r .status)" = finished ] ||
    die "the Matrix battle did not finish"
OPEN=$(camp /battles '{"turn": 2,
    "attacker": {"side": "russian", "units": ["Rifles D"]},
    "defender": {"side": "german", "units": ["Jaeger C"]},
    "line": [{"attacker": ["Rifles D"], "defender": ["Jaeger C"]}]}' | jq -r .id)
act "$OPEN" '{"action": "roll", "combat": 0, "expect_actions": 0}' >/dev/null
civ() { camp /units "{\"name\": \"$1\", \"side\": \"$2\", \"civ\": $3}" >/dev/null; }
civ Musketeers russian '{"class": "infantry", "era": 3, "bonus": 1}'
civ Cannon russian '{"class": "artillery", "era": 3, "bonus": 1}'
civ Knights german '{"class": "cavalry", "era": 2}'
civ Pikemen german '{"class": "infantry", "era": 2, "bonus": 1}'
civ_state=$(camp /battles '{"system": "civ", "turn": 2, "current_era": 3, "settlement": true,
    "attacker": {"side": "russian", "technologies": 9, "units": ["Musketeers", "Cannon"]},
    "defender": {"side": "german", "technologies": 7, "units": ["Knights", "Pikemen"]}}')
CIV=$(jq -r .id <<<"$civ_state")
while [ "$(jq -r .status <<<"$civ_state")" = open ]; do
    civ_state=$(act "$CIV" "{\"action\": \"phase\", \"expect_actions\": $(jq .n_actions <<<"$civ_state")}")
done
curl -sf -X PATCH "$BASE/v1/campaigns/$CAMPAIGN/units/R1" -H "$UMPIRE_AUTH" \
    -H 'Content-Type: application/json' \
    -d '{"edna": {"edna": 6}, "note": "rallied"}' >/dev/null || die "PATCH failed"
camp /units/R2/resupply '{}' >/dev/null
NEXT=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN" -H "$PLAYER_AUTH" | jq -r .next_commitment)
curl -sf -X POST "$BASE/v1/campaigns/$CAMPAIGN/combats/scrud" -H "$UMPIRE_AUTH" \
    -H 'Content-Type: application/json' -H 'Idempotency-Key: day-2-skirmish' \
    -d "{\"dice\": {\"commitment\": \"$NEXT\", \"client_seed\": \"day-2\"},
         \"sides\": [{\"side\": \"russian\", \"units\": [{\"unit\": \"R1\"}]},
                     {\"side\": \"german\", \"units\": [{\"unit\": \"G1\"}]}]}" >/dev/null ||
    die "the Idempotency-Key combat failed"
PLAYER_AUTH="Authorization: Bearer $(camp /tokens '{"role": "player", "side": "russian"}' | jq -r .token)"
SHARE=$(camp /shares "{\"kind\": \"combat\", \"id\": \"$COMBAT\", \"note\": \"for the forum\"}" | jq -r .url)
SHARE=${SHARE#/share/}
camp /shares '{"kind": "campaign"}' >/dev/null
ONEOFF=$(post /v1/combats/scrud '{"dice": {"client_seed": "discord:1172"},
    "sides": [{"name": "red", "units": [{"name": "R1"}, {"name": "R2"}]},
              {"name": "blue", "units": [{"name": "B1", "quality": 1}]}]}' | jq -r .id)
post /v1/combats/edna '{"units": [{"name": "Sappers", "edna": 5, "modifier": -1}]}' >/dev/null
ok "a campaign played on SQLite"

# ---- what the API answers, into folder $1
get() { # get NAME PATH [AUTH]
    curl -sf "$BASE$2" -H "${3:-$UMPIRE_AUTH}" | jq -S . >"$OUT/$1.json" ||
        die "GET $2 failed"
}
pages() { # pages NAME PATH: every page of a list, following next_cursor
    local cursor='' k=0 sep
    case $2 in *\?*) sep='&' ;; *) sep='?' ;; esac
    while :; do
        get "$1.$k" "$2${cursor:+${sep}cursor=$cursor}"
        cursor=$(jq -r '.next_cursor // empty' "$OUT/$1.$k.json")
        [ -n "$cursor" ] || break
        k=$((k + 1))
    done
}
snapshot() {
    OUT=$SCRATCH/$1
    mkdir -p "$OUT"
    get campaign "/v1/campaigns/$CAMPAIGN"
    get campaign.player "/v1/campaigns/$CAMPAIGN" "$PLAYER_AUTH"
    get token /v1/token "$PLAYER_AUTH"
    pages sides "/v1/campaigns/$CAMPAIGN/sides?limit=1"
    pages units "/v1/campaigns/$CAMPAIGN/units?limit=3"
    pages tokens "/v1/campaigns/$CAMPAIGN/tokens?limit=2"
    pages shares "/v1/campaigns/$CAMPAIGN/shares?limit=1"
    for u in $(jq -r '.items[].id' "$OUT"/units.*.json); do
        pages "history.$u" "/v1/campaigns/$CAMPAIGN/units/$u/history?limit=2&order=newest"
        get "card.$u" "/v1/campaigns/$CAMPAIGN/units/$u/card"
    done
    pages feed "/v1/campaigns/$CAMPAIGN/history?limit=4"
    pages feed_newest "/v1/campaigns/$CAMPAIGN/history?limit=3&order=newest"
    pages combats "/v1/campaigns/$CAMPAIGN/combats?limit=2"
    for c in $(jq -r '.items[].id' "$OUT"/combats.*.json); do
        get "combat.$c" "/v1/campaigns/$CAMPAIGN/combats/$c"
    done
    pages battles "/v1/campaigns/$CAMPAIGN/battles?limit=1"
    for b in $(jq -r '.items[].id' "$OUT"/battles.*.json); do
        get "battle.$b" "/v1/campaigns/$CAMPAIGN/battles/$b"
    done
    get ledger "/v1/campaigns/$CAMPAIGN/ledger"
    get verify "/v1/campaigns/$CAMPAIGN/ledger/verify" "$PLAYER_AUTH"
    get oneoff "/v1/combats/$ONEOFF"
    get shared "/v1/shared/$SHARE" "X-None: none"
    # the live events, replayed from the first (the stream stays open:
    # cut after a second)
    curl -sN --max-time 1 "$BASE/v1/campaigns/$CAMPAIGN/events" \
        -H "$UMPIRE_AUTH" -H 'Accept: text/event-stream' \
        -H 'Last-Event-ID: 0' | grep -v '^:' >"$OUT/events.txt" || true
}
snapshot sqlite
[ "$(jq -r .verified "$SCRATCH/sqlite/verify.json")" = true ] ||
    die "the ledger does not verify on SQLite"
[ "$(jq -r .webhook.pending "$SCRATCH/sqlite/campaign.json")" -gt 0 ] ||
    die "no channel post waits on SQLite"
grep -q '^event: combat' "$SCRATCH/sqlite/events.txt" || die "no events on SQLite"
stop_server

# ---- 2. the copy
"$UMPIRE" copy-sqlite "$SRC" --db "$DEST" >"$SCRATCH/copy.out" ||
    { cat "$SCRATCH/copy.out"; die "copy-sqlite failed"; }
cat "$SCRATCH/copy.out"
grep -q '^umpire copy-sqlite: 1 of 1 ledgers verified$' "$SCRATCH/copy.out" ||
    die "copy-sqlite did not verify the ledger"
# the rows copied, table by table, against the file's
while read -r table n _; do
    want=$(sqlite3 "$SRC" "SELECT count(*) FROM $table")
    got=$("${PSQL[@]}" -At "$DEST" -c "SELECT count(*) FROM $table")
    if [ "$n" != "$want" ] || [ "$got" != "$want" ]; then
        die "table $table: $want rows in the file, $n said copied, $got there"
    fi
done < <(sed -n 's/^  \([a-z_]*\) *\([0-9]*\) rows$/\1 \2/p' "$SCRATCH/copy.out")
[ "$(grep -c ' rows$' "$SCRATCH/copy.out")" -ge 20 ] || die "too few tables copied"
# reports both packed (blobs) and as text went into BYTEA
[ "$(sqlite3 "$SRC" "SELECT count(DISTINCT typeof(report)) FROM combats
    WHERE typeof(report) IN ('blob', 'text')")" = 2 ] ||
    die "the SQLite file does not hold reports both packed and as text"
ok "copied, every table's rows there"

# ---- 3. the same answers on PostgreSQL
start_server "$DEST"
snapshot pg
for f in "$SCRATCH"/sqlite/*; do
    name=${f##*/}
    [ -f "$SCRATCH/pg/$name" ] || die "no $name on PostgreSQL"
    cmp -s "$f" "$SCRATCH/pg/$name" || {
        diff "$f" "$SCRATCH/pg/$name" | head -20 >&2
        die "$name differs on PostgreSQL"
    }
done
n_answers=$(find "$SCRATCH/pg" -type f | wc -l)
[ "$(find "$SCRATCH/sqlite" -type f | wc -l)" = "$n_answers" ] ||
    die "PostgreSQL lists more than SQLite"
ok "$n_answers answers the same on PostgreSQL as on SQLite"

# ---- 4. a new combat on PostgreSQL goes on from the copied ledger
OLD_LENGTH=$(jq .ledger.length "$SCRATCH/pg/verify.json")
OLD_HEAD=$(jq -r .ledger.head "$SCRATCH/pg/verify.json")
OLD_SEQ=$(jq -s 'map(.items[].seq) | max' "$SCRATCH"/pg/feed.*.json)
OLD_EVENT=$(sed -n 's/^id: //p' "$SCRATCH/pg/events.txt" | sort -n | tail -n 1)
NEW=$(camp /combats/scrud "{\"note\": \"Day 3\", $SIDES}")
NEW_ID=$(jq -r .id <<<"$NEW")
[ "$(jq .ledger.first_pos <<<"$NEW")" = $((OLD_LENGTH + 1)) ] ||
    die "the new combat's dice do not follow the copied ledger"
entry=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN/ledger" -H "$PLAYER_AUTH" |
    jq -c ".entries[$OLD_LENGTH]")
[ "$(jq -r .prev_hash <<<"$entry")" = "$OLD_HEAD" ] ||
    die "the new entry does not chain to the copied head"
verify=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN/ledger/verify" -H "$PLAYER_AUTH")
if [ "$(jq -r .verified <<<"$verify")" != true ] ||
    [ "$(jq .ledger.length <<<"$verify")" -le "$OLD_LENGTH" ]; then
    die "the ledger does not verify after a new combat: $verify"
fi
last=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN/combats?order=newest&limit=1" -H "$PLAYER_AUTH" | jq -r '.items[0].id')
[ "$last" = "$NEW_ID" ] || die "the new combat is not the newest ($last)"
seq=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN/history?order=newest&limit=1" -H "$PLAYER_AUTH" | jq '.items[0].seq')
[ "$seq" -gt "$OLD_SEQ" ] || die "the new history event ($seq) does not follow the copied ones ($OLD_SEQ)"
event=$(curl -sN --max-time 1 "$BASE/v1/campaigns/$CAMPAIGN/events" -H "$UMPIRE_AUTH" \
    -H 'Accept: text/event-stream' -H "Last-Event-ID: $OLD_EVENT" | grep -c '^event: combat' || true)
[ "$event" = 1 ] || die "$event combat events after the copied ones, not 1"
pending=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN" -H "$UMPIRE_AUTH" | jq .webhook.pending)
[ "$pending" = $(($(jq .webhook.pending "$SCRATCH/pg/campaign.json") + 1)) ] ||
    die "the new combat's channel post does not wait with the copied ones"
ok "a new combat on PostgreSQL: ledger $OLD_LENGTH -> $(jq .ledger.length <<<"$verify") verified, history and events go on"

# An event written as a build from before migration 23 writes it (no
# place in its unit's chain, a number of its own), as an instance not yet
# restarted would during an upgrade: the trigger chains it after R1's
# last, numbers it, moves R1's head, and its history serves it first.
R1=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN/units/R1/history?order=newest&limit=1" -H "$UMPIRE_AUTH") ||
    die "cannot read R1's history"
R1_LAST=$(jq -r '.next_cursor' <<<"$R1") # its service-wide seq
R1_NUM=$(jq '.items[0].seq' <<<"$R1") # its number in R1's history
got=$("${PSQL[@]}" "$DEST" -At -c "INSERT INTO unit_events (unit_row,
    campaign_row, at, kind, after, unit_seq) SELECT u.rowid, c.rowid,
    '2026-11-27T09:00:00.000Z', 'correction', '{\"older\":true}', 999
    FROM units u JOIN campaigns c ON c.id = u.campaign_id
    WHERE u.campaign_id = '$CAMPAIGN' AND u.name = 'R1'
    RETURNING seq, prev_seq, unit_seq") || die "cannot insert as an older build"
OLDER_SEQ=${got%%|*}
[ "$got" = "$OLDER_SEQ|$R1_LAST|$((R1_NUM + 1))" ] ||
    die "an older build's event is not chained: $got (R1's last: $R1_LAST, number $R1_NUM)"
R1=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN/units/R1/history?order=newest&limit=2" -H "$UMPIRE_AUTH")
[ "$(jq -c '[.items[].seq]' <<<"$R1")" = "[$((R1_NUM + 1)),$R1_NUM]" ] ||
    die "R1's history does not serve the older build's event first: $(jq -c '[.items[].seq]' <<<"$R1")"
[ "$(jq -r '.items[0].after.older' <<<"$R1")" = true ] || die "R1's newest event is not the older build's"
ok "an event written as an older build writes it is chained on PostgreSQL (seq $OLDER_SEQ after $R1_LAST)"
stop_server

# ---- 5. a second copy is refused, and changes nothing
n_combats=$("${PSQL[@]}" -At "$DEST" -c "SELECT count(*) FROM combats")
if "$UMPIRE" copy-sqlite "$SRC" --db "$DEST" >"$SCRATCH/again.out" 2>&1; then
    die "a copy into a database holding umpire data was not refused"
fi
grep -q 'already holds umpire data' "$SCRATCH/again.out" || {
    cat "$SCRATCH/again.out" >&2
    die "the refusal does not say why"
}
[ "$("${PSQL[@]}" -At "$DEST" -c "SELECT count(*) FROM combats")" = "$n_combats" ] ||
    die "the refused copy changed the database"
[ "$("${PSQL[@]}" -At "$DEST" -c "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'D'")" = 0 ] ||
    die "triggers were left off"
ok "a copy into a database holding umpire data is refused: $(tail -n 1 "$SCRATCH/again.out")"

# ---- 6. umpire migrate
M=$(url_of "${DBS[1]}")
first=$("$UMPIRE" migrate --db "$M") || die "migrate failed"
again=$("$UMPIRE" migrate --db "$M") || die "migrate failed again"
echo "$first"
echo "$again"
v1=$(sed -n 's/.*, \([0-9]*\) after.*/\1/p' <<<"$first")
v2=$(sed -n 's/.*version \([0-9]*\) before, \([0-9]*\) after.*/\1 \2/p' <<<"$again")
if [ -z "$v1" ] || [ "$v1" -lt 1 ] || [ "$v2" != "$v1 $v1" ]; then
    die "migrate twice: \"$first\", then \"$again\""
fi
P=$(url_of "${DBS[2]}")
"$UMPIRE" migrate --db "$P" >"$SCRATCH/m1.out" 2>&1 &
m1=$!
"$UMPIRE" migrate --db "$P" >"$SCRATCH/m2.out" 2>&1 &
m2=$!
wait "$m1" || { cat "$SCRATCH/m1.out" >&2; die "the first of two migrates at once failed"; }
wait "$m2" || { cat "$SCRATCH/m2.out" >&2; die "the second of two migrates at once failed"; }
cat "$SCRATCH/m1.out" "$SCRATCH/m2.out"
for out in m1 m2; do
    grep -q ", $v1 after" "$SCRATCH/$out.out" ||
        die "two migrates at once did not both end at version $v1"
done
[ "$("${PSQL[@]}" -At "$P" -c "SELECT count(*) || ' ' || max(version) FROM umpire_schema")" = "1 $v1" ] ||
    die "two migrates at once left the schema version wrong"
ok "umpire migrate: twice, and two at once"

# ---- 7. a ledger that does not verify once copied fails the command
# (the client seed of the combat holding entry 1 changed: a part of each
# of its entries, whether its rolls are rows or packed in one)
cp "$SRC" "$SCRATCH/tampered.db"
[ "$(sqlite3 "$SCRATCH/tampered.db" \
    "UPDATE combats SET client_seed = 'tampered' WHERE id IN (SELECT
       id FROM combats WHERE ledger_first = 1 UNION SELECT
       combat_id FROM rolls WHERE ledger_pos = 1); SELECT changes();")" = 1 ] ||
    die "cannot tamper with the combat holding entry 1"
if "$UMPIRE" copy-sqlite "$SCRATCH/tampered.db" --db "$(url_of "${DBS[3]}")" \
    >"$SCRATCH/tampered.out" 2>"$SCRATCH/tampered.err"; then
    die "copy-sqlite passed a ledger that does not verify"
fi
if ! grep -q "campaign $CAMPAIGN: its ledger does not verify: entry 1 " \
    "$SCRATCH/tampered.err" ||
    ! grep -q '^umpire copy-sqlite: 0 of 1 ledgers verified$' \
        "$SCRATCH/tampered.out"; then
    cat "$SCRATCH/tampered.out" "$SCRATCH/tampered.err" >&2
    die "copy-sqlite did not say which ledger does not verify"
fi
ok "a copied ledger that does not verify fails the command: $(head -n 1 "$SCRATCH/tampered.err")"

# ---- 8. a database of schema version 1 (the first) is migrated, then
# copied: its rolls chained on the way (migration 5), its ledger verified
cat >"$SCRATCH/v1.c" <<'END'
#include <stdio.h>

#include "migrations.h"

/* Only migration 1's SQL is printed: migration 5's C step never runs. */
err_code db_ledger_backfill(db_conn *c, err_info *e);
err_code db_ledger_backfill(db_conn *c, err_info *e)
{
    (void)c;
    (void)e;
    return ERR_OK;
}

int main(void)
{
    fputs(migrations_sql[0], stdout);
    return 0;
}
END
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -std=c11 -D_DEFAULT_SOURCE -I"$ROOT/core" -I"$ROOT/db" \
    $(pkg-config --cflags sqlite3 libpq) -o "$SCRATCH/v1" "$SCRATCH/v1.c" \
    "$ROOT/db/migrations.c" || die "cannot build the schema 1 writer"
V1=$SCRATCH/v1.db
OLD_TOKEN=ump_schema_one
OLD_HASH=$(printf %s "$OLD_TOKEN" | sha256sum | cut -d' ' -f1)
T=2025-06-01T09:00:00.000Z
{
    "$SCRATCH/v1"
    cat <<END
;
PRAGMA user_version = 1;
INSERT INTO campaigns VALUES ('cmp_v1', 'Quatre Bras', '$T', 0, 0, 1, 1, 0,
  1, 1, -5, 0);
INSERT INTO sides (id, campaign_id, name, created_at)
  VALUES ('sd_v1', 'cmp_v1', 'Allies', '$T');
INSERT INTO tokens (id, campaign_id, side_id, role, hash, created_at)
  VALUES ('tok_v1', 'cmp_v1', NULL, 'umpire', '$OLD_HASH', '$T');
INSERT INTO units (id, campaign_id, side_id, name, created_at, scrud_quality)
  VALUES ('unt_a', 'cmp_v1', 'sd_v1', '1st Foot', '$T', 1),
         ('unt_b', 'cmp_v1', 'sd_v1', 'Horse', '$T', 0);
INSERT INTO combats (id, campaign_id, system, created_at, dice_source,
  actor_token_id, summary, report) VALUES ('cbt_v1', 'cmp_v1', 'scrud',
  '2025-06-01T09:10:00.000Z', 'entered', 'tok_v1', 'a skirmish',
  '{"winner": "1st Foot"}');
INSERT INTO rolls (combat_id, seq, side_name, unit_id, unit_name, reason,
  faces, "natural", modified, source) VALUES
  ('cbt_v1', 1, 'Allies', 'unt_a', '1st Foot', 'scrud.front', 6, 4, 5,
   'entered'),
  ('cbt_v1', 2, 'Allies', 'unt_b', 'Horse', 'scrud.front', 6, 2, 2,
   'entered');
INSERT INTO unit_events (unit_id, campaign_id, at, kind, after) VALUES
  ('unt_a', 'cmp_v1', '$T', 'created', '{"name": "1st Foot"}'),
  ('unt_b', 'cmp_v1', '$T', 'created', '{"name": "Horse"}');
END
} | sqlite3 "$V1" || die "cannot write the schema 1 database"
O=$(url_of "${DBS[4]}")
"$UMPIRE" copy-sqlite "$V1" --db "$O" >"$SCRATCH/v1.out" || {
    cat "$SCRATCH/v1.out"
    die "copy-sqlite of a schema 1 database failed"
}
grep -q '^umpire copy-sqlite: 1 of 1 ledgers verified$' "$SCRATCH/v1.out" ||
    die "the schema 1 database's ledger did not verify once copied"
[ "$(sqlite3 "$V1" 'PRAGMA user_version')" = "$v1" ] ||
    die "the schema 1 database was not migrated"
start_server "$O"
verify=$(curl -sf "$BASE/v1/campaigns/cmp_v1/ledger/verify" \
    -H "Authorization: Bearer $OLD_TOKEN")
[ "$(jq -c '[.verified, .ledger.length]' <<<"$verify")" = '[true,2]' ] ||
    die "the schema 1 campaign on PostgreSQL: $verify"
# its report, text in SQLite, is read back
report=$(curl -sf "$BASE/v1/campaigns/cmp_v1/combats/cbt_v1" \
    -H "Authorization: Bearer $OLD_TOKEN" | jq -r .winner)
[ "$report" = "1st Foot" ] || die "the schema 1 report on PostgreSQL: $report"
stop_server
ok "a schema 1 database migrated and copied: its ledger of 2 verifies on PostgreSQL"
echo "copy.sh: passed"
