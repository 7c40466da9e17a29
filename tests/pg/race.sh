#!/usr/bin/env bash
# race.sh: two umpire processes on one PostgreSQL hammer the same campaign.
#
#   tests/pg/race.sh [BUILD]     BUILD is the build folder (default build)
#
# It takes the cluster from PG_ADMIN_URL and PG_PORT (tests/pg/cluster.sh
# exports them; tests/pg/run.sh starts one), or starts its own, and makes a
# database of its own in it.  Two instances, A and B, serve that database.
# A campaign of units that never wear out (bench/campaign.sh) is set up
# through A, a live event stream is opened on B, and then:
#
#   1. CLIENTS clients, half on A and half on B, each send ROUNDS campaign
#      SCRUD combats of all eight units, at once: every one must be
#      answered 201 (each instance has several writers; combats of one
#      campaign are serialised by the database, whoever sends them);
#   2. an Idempotency-Key used on A and then on B gets A's combat again
#      from B; one key sent to A and B at the same moment makes one combat
#      at most (the other answer is the same combat, or a 409); a one-off
#      commitment cited on A and B at the same moment is used once (201
#      and 409);
#   3. a Matrix battle's action sent to A and to B at the same moment with
#      the same expect_actions lands once: the other is refused (409);
#
# and afterwards, through both instances:
#   - the ledger verifies, and holds every 201's hash at its last_pos;
#   - the campaign's combats are exactly the acknowledged ones, none
#     doubled;
#   - every unit's history grew by exactly one event per combat;
#   - the event stream on B received every combat of its campaign,
#     those sent to A too, while a second campaign was as busy;
#   - a combat of one campaign does not wait behind another's held lock;
#   - in a second campaign whose units wear (bench/campaign.sh's
#     BENCH_WEAR=1), busy from A and B at once with seeded and entered
#     dice while a unit is edited through each: every combat is answered
#     201, every unit's history runs unbroken (each event from what the
#     one before it left, whichever instance wrote either: a combat
#     worked out ahead of others on one instance is worked out again
#     where the other's landed between), and the ledger verifies.
# Prints a line per check; exits 1 on failure, 77 when PostgreSQL cannot
# be had.  Needs curl and jq.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case $BUILD in
/*) BUILD_ABS=$BUILD ;;
*) BUILD_ABS=$ROOT/$BUILD ;;
esac
CLIENTS=6
ROUNDS=40

die() {
    echo "race: FAILED: $*" >&2
    exit 1
}
ok() { echo "race: ok: $*"; }

for tool in curl jq psql; do
    command -v "$tool" >/dev/null 2>&1 || die "needs $tool"
done
[ -x "$BUILD_ABS/umpire" ] || die "no $BUILD_ABS/umpire: build it first"

# shellcheck source=tests/pg/cluster.sh
. "$ROOT/tests/pg/cluster.sh"
# shellcheck source=tests/lib.sh
. "$ROOT/tests/lib.sh"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/umpire-race.XXXXXX")
chmod 755 "$SCRATCH"
PIDS=()
OWN_CLUSTER=
DBNAME=race_$$
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    [ -n "${PG_ADMIN_URL:-}" ] &&
        psql "$PG_ADMIN_URL" -qXc "DROP DATABASE IF EXISTS $DBNAME" \
            >/dev/null 2>&1 || true
    [ -n "$OWN_CLUSTER" ] && pg_cluster_stop "$SCRATCH/pg"
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${PG_ADMIN_URL:-}" ]; then
    mkdir "$SCRATCH/pg"
    PG_FAST=1 pg_cluster_start "$SCRATCH/pg" || exit $?
    OWN_CLUSTER=1
fi
psql "$PG_ADMIN_URL" -qXc "CREATE DATABASE $DBNAME OWNER umpire \
    TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'" >/dev/null
URL="postgresql://umpire@127.0.0.1:$PG_PORT/$DBNAME"

# start_server NAME: an instance on port 0 over URL; its base URL into
# the variable NAME.
start_server() {
    umpire_start "$BUILD_ABS/umpire" "$SCRATCH/$1.err" --db "$URL" ||
        die "instance $1: $UMPIRE_WHY"
    PIDS+=("$UMPIRE_PID")
    printf -v "$1" '%s' "$UMPIRE_BASE"
}
start_server A
start_server B
ok "two instances on one database: $A and $B"

read -r CAMPAIGN TOKEN < <("$ROOT/bench/campaign.sh" "${A##*:}") ||
    die "cannot set up the campaign"
# A second campaign, busy at the same time: its events interleave with
# the first's in the log.
read -r CAMPAIGN2 TOKEN2 < <("$ROOT/bench/campaign.sh" "${B##*:}") ||
    die "cannot set up the second campaign"
AUTH2="Authorization: Bearer $TOKEN2"
AUTH="Authorization: Bearer $TOKEN"
JSON='Content-Type: application/json'
UNITS=(B1 B2 B3 B4 R1 R2 R3 R4)
CP=/v1/campaigns/$CAMPAIGN
SIDES='"sides": [
  {"side": "blue", "units": [{"unit": "B1"}, {"unit": "B2"}, {"unit": "B3"}, {"unit": "B4"}]},
  {"side": "red",  "units": [{"unit": "R1"}, {"unit": "R2"}, {"unit": "R3"}, {"unit": "R4"}]}]'

n_events() { # n_events BASE UNIT
    curl -sf "$1$CP/units/$2/card" -H "$AUTH" | jq -r .n_events
}
declare -A BEFORE
for u in "${UNITS[@]}"; do
    BEFORE[$u]=$(n_events "$B" "$u")
done

# The live events of the campaign, from B.
curl -sN "$B$CP/events" -H "$AUTH" -H 'Accept: text/event-stream' \
    >"$SCRATCH/events" 2>/dev/null &
PIDS+=($!)
sleep 0.5

# ---- 1. combats from both instances at once
client() { # client BASE OUT [CAMPAIGN AUTH]
    local i args=() cp=/v1/campaigns/${3:-$CAMPAIGN}
    for ((i = 0; i < ROUNDS; i++)); do
        args+=("$1$cp/combats/scrud")
    done
    curl -s -X POST -H "$JSON" -H "${4:-$AUTH}" -d "{$SIDES}" \
        -w '\n@@ %{http_code} %header{location}\n' "${args[@]}" >"$2"
}
CLIENT_PIDS=()
for ((k = 0; k < CLIENTS; k++)); do
    base=$A
    [ $((k % 2)) = 1 ] && base=$B
    client "$base" "$SCRATCH/client.$k" &
    CLIENT_PIDS+=($!)
done
for k in A1 B1 A2 B2; do
    base=${k%?}
    client "${!base}" "$SCRATCH/other.$k" "$CAMPAIGN2" "$AUTH2" &
    CLIENT_PIDS+=($!)
done
for pid in "${CLIENT_PIDS[@]}"; do
    wait "$pid"
done
statuses=$(cat "$SCRATCH"/client.* | sed -n 's/^@@ \([0-9]*\) .*/\1/p' |
    sort | uniq -c | tr '\n' ' ')
n_sent=$((CLIENTS * ROUNDS))
n_201=$(cat "$SCRATCH"/client.* | grep -c '^@@ 201 ' || true)
[ "$n_201" = "$n_sent" ] ||
    die "$n_sent combats sent, $n_201 answered 201 (statuses: $statuses)"
n_other=$(cat "$SCRATCH"/other.* | grep -c '^@@ 201 ' || true)
[ "$n_other" = $((4 * ROUNDS)) ] ||
    die "the second campaign's combats: $n_other of $((4 * ROUNDS)) answered 201"
ok "$n_sent combats from $CLIENTS clients on two instances: all 201 (and $n_other in a second campaign at once)"
# Each answer's body is one line of JSON before its @@ line.
cat "$SCRATCH"/client.* | grep '^{' |
    jq -r '"\(.id) \(.ledger.last_pos) \(.ledger.last_hash // .ledger.hash // "")"' \
        >"$SCRATCH/acked"
grep -c . "$SCRATCH/acked" | grep -qx "$n_sent" ||
    die "not every 201 carried its combat"
sent_on_a=$(sed -n '/^{/{p;q;}' "$SCRATCH/client.0" | jq -r .id)

# ---- 2. an Idempotency-Key across instances
body="{\"dice\": {\"client_seed\": \"race\"}, $SIDES}"
first=$(curl -s -X POST "$A$CP/combats/scrud" -H "$JSON" -H "$AUTH" \
    -H 'Idempotency-Key: race-1' -d "$body" | jq -r .id)
again=$(curl -s -X POST "$B$CP/combats/scrud" -H "$JSON" -H "$AUTH" \
    -H 'Idempotency-Key: race-1' -d "$body" | jq -r .id)
[ -n "$first" ] && [ "$first" != null ] || die "the keyed combat failed"
[ "$first" = "$again" ] ||
    die "Idempotency-Key race-1: A made $first, B answered $again"
ok "an Idempotency-Key used on A replays from B ($first)"
RACERS=()
for base in A B; do
    curl -s -X POST "${!base}$CP/combats/scrud" -H "$JSON" -H "$AUTH" \
        -H 'Idempotency-Key: race-2' -d "$body" \
        -w '\n@@ %{http_code}\n' >"$SCRATCH/key.$base" &
    RACERS+=($!)
done
wait "${RACERS[@]}"
keyed=()
for base in A B; do
    code=$(sed -n 's/^@@ //p' "$SCRATCH/key.$base")
    case $code in
    201) keyed+=("$(grep '^{' "$SCRATCH/key.$base" | jq -r .id)") ;;
    409) ;;
    *) die "Idempotency-Key race-2 on $base: $code" ;;
    esac
done
[ "${#keyed[@]}" -ge 1 ] || die "Idempotency-Key race-2: no combat at all"
[ "${#keyed[@]}" = 1 ] || [ "${keyed[0]}" = "${keyed[1]}" ] ||
    die "Idempotency-Key race-2 made two combats: ${keyed[*]}"
ok "one key sent to A and B at once makes one combat (${keyed[0]})"
N_KEYED=2 # race-1 and race-2

# ---- 2b. a one-off commitment cited on A and on B at the same moment
COMMITMENT=$(curl -sf -X POST "$B/v1/commitments" | jq -r .commitment)
[ -n "$COMMITMENT" ] && [ "$COMMITMENT" != null ] ||
    die "cannot draw a commitment"
RACERS=()
for base in A B; do
    curl -s -X POST "${!base}/v1/combats/edna" -H "$JSON" \
        -d "{\"dice\": {\"commitment\": \"$COMMITMENT\"},
             \"units\": [{\"name\": \"Sappers\", \"edna\": 5}]}" \
        -o /dev/null -w '%{http_code}\n' >"$SCRATCH/commit.$base" &
    RACERS+=($!)
done
wait "${RACERS[@]}"
codes=$(sort "$SCRATCH/commit.A" "$SCRATCH/commit.B" | tr '\n' ' ')
used=$(curl -sf "$A/v1/commitments/$COMMITMENT" | jq -r .status)
[ "$codes" = "201 409 " ] && [ "$used" = used ] ||
    die "a commitment cited on A and B at once: answers $codes, status $used"
ok "a commitment cited on A and B at once is used once ($codes)"

# ---- 3. a battle action raced from both instances
curl -sf -o /dev/null -X POST "$A$CP/units" -H "$JSON" -H "$AUTH" \
    -d '{"name": "M1", "side": "blue", "matrix": {}}' ||
    die "cannot create a Matrix unit"
curl -sf -o /dev/null -X POST "$A$CP/units" -H "$JSON" -H "$AUTH" \
    -d '{"name": "M2", "side": "red", "matrix": {}}' ||
    die "cannot create a Matrix unit"
battle=$(curl -s -X POST "$A$CP/battles" -H "$JSON" -H "$AUTH" -d '{
  "turn": 1,
  "attacker": {"side": "blue", "units": ["M1"]},
  "defender": {"side": "red", "units": ["M2"]},
  "line": [{"attacker": ["M1"], "defender": ["M2"]}]}' | jq -r .id)
[ -n "$battle" ] && [ "$battle" != null ] || die "cannot create the battle"
RACERS=()
for base in A B; do
    curl -s -X POST "${!base}$CP/battles/$battle/actions" -H "$JSON" \
        -H "$AUTH" -d '{"action": "roll", "combat": 0, "expect_actions": 0}' \
        -o /dev/null -w '%{http_code}\n' >"$SCRATCH/action.$base" &
    RACERS+=($!)
done
wait "${RACERS[@]}"
codes=$(sort "$SCRATCH/action.A" "$SCRATCH/action.B" | tr '\n' ' ')
n_actions=$(curl -sf "$B$CP/battles/$battle" -H "$AUTH" | jq -r .n_actions)
case "$codes/$n_actions" in
"200 409 /1" | "201 409 /1")
    ok "a battle action raced on A and B lands once ($codes)" ;;
*) die "a battle action raced on A and B: answers $codes, $n_actions actions" ;;
esac

# ---- afterwards, through both instances
for base in A B; do
    v=$(curl -sf "${!base}$CP/ledger/verify" -H "$AUTH")
    [ "$(jq -r .verified <<<"$v")" = true ] ||
        die "the ledger does not verify through $base: $v"
done
ledger=$(curl -sf "$B$CP/ledger" -H "$AUTH")
missing=$(while read -r id pos hash; do
    [ -n "$hash" ] || continue
    got=$(jq -r --argjson p "$pos" '.entries[] | select(.pos == $p) | .hash' \
        <<<"$ledger")
    [ "$got" = "$hash" ] || echo "$id"
done <"$SCRATCH/acked" | head -n 3)
[ -z "$missing" ] || die "acknowledged hashes not in the ledger: $missing"
ok "the ledger verifies on A and B and holds every acknowledged hash"

cursor=
: >"$SCRATCH/listed"
while :; do
    page=$(curl -sf "$A$CP/combats?limit=100${cursor:+&cursor=$cursor}" -H "$AUTH")
    jq -r '.items[].id' <<<"$page" >>"$SCRATCH/listed"
    cursor=$(jq -r '.next_cursor // empty' <<<"$page")
    [ -n "$cursor" ] || break
done
n_listed=$(sort -u "$SCRATCH/listed" | grep -c .)
[ "$n_listed" = "$(grep -c . "$SCRATCH/listed")" ] ||
    die "a combat is listed twice"
want=$((n_sent + N_KEYED))
[ "$n_listed" = "$want" ] ||
    die "the campaign lists $n_listed combats, not the $want acknowledged"
cut -d' ' -f1 "$SCRATCH/acked" | sort >"$SCRATCH/acked.ids"
sort -u "$SCRATCH/listed" | comm -23 "$SCRATCH/acked.ids" - |
    grep -q . && die "an acknowledged combat is not listed"
ok "the campaign holds exactly the $want acknowledged combats, none doubled"

for u in "${UNITS[@]}"; do
    after=$(n_events "$A" "$u")
    grown=$((after - BEFORE[$u]))
    [ "$grown" = "$want" ] ||
        die "unit $u: its history grew by $grown events, not $want"
done
ok "every unit's history grew by one event per combat ($want)"

v=$(curl -sf "$A/v1/campaigns/$CAMPAIGN2/ledger/verify" -H "$AUTH2")
[ "$(jq -r .verified <<<"$v")" = true ] ||
    die "the second campaign's ledger does not verify: $v"
ok "the second campaign's ledger verifies too"

sleep 1
grep -q "\"combat_id\":\"$sent_on_a\"" "$SCRATCH/events" ||
    die "the event stream on B never told of $sent_on_a, sent to A"
missed=$(sort -u "$SCRATCH/listed" | while read -r id; do
    grep -q "\"combat_id\":\"$id\"" "$SCRATCH/events" || echo "$id"
done | head -n 3)
[ -z "$missed" ] ||
    die "the event stream on B missed combats of its campaign: $missed"
ok "the event stream on B told of every combat of its campaign, those sent to A too"

# ---- 4. an event that commits after a later one of another campaign
# A transaction of the first campaign takes its place in the log and
# commits only after a combat of the second campaign (a later place) has
# committed and been read: B's stream must still tell of it.
psql "$URL" -qXc "BEGIN; INSERT INTO event_log (campaign_id, kind, n, head) VALUES ('$CAMPAIGN', 'ledger', 999999, 'late'); SELECT pg_sleep(2); SELECT pg_notify('umpire_commit', ''); COMMIT;" \
    >/dev/null &
LATE=$!
sleep 0.5
curl -sf -o /dev/null -X POST "$B/v1/campaigns/$CAMPAIGN2/combats/scrud" \
    -H "$JSON" -H "$AUTH2" -d "{$SIDES}" || die "a combat of the second campaign failed"
wait "$LATE"
sleep 1
grep -q '"length":999999' "$SCRATCH/events" ||
    die "the event stream on B missed an event that committed after a later one of another campaign"
ok "an event committed after a later one of another campaign still reaches the stream"

# ---- 5. a campaign held elsewhere holds none of the others
# Another session holds the first campaign's lock (as an instance whose
# combat of it is slow would) while combats of it queue on A: a combat of
# the second campaign on A still lands at once.
psql "$URL" -qXc "BEGIN; SELECT pg_advisory_xact_lock(hashtextextended('$CAMPAIGN', 0)); SELECT pg_sleep(4); COMMIT;" \
    >/dev/null &
HOLDER=$!
sleep 0.5
HELD=()
for ((k = 0; k < 6; k++)); do
    curl -s -X POST "$A$CP/combats/scrud" -H "$JSON" -H "$AUTH" \
        -d "{$SIDES}" -o /dev/null -w '%{http_code}\n' >"$SCRATCH/held.$k" &
    HELD+=($!)
done
sleep 0.3
t=$(curl -s -X POST "$A/v1/campaigns/$CAMPAIGN2/combats/scrud" -H "$JSON" \
    -H "$AUTH2" -d "{$SIDES}" -o /dev/null -w '%{http_code} %{time_total}')
wait "${HELD[@]}" "$HOLDER"
case $t in
201\ 0.* | 201\ 1.*) ;;
*) die "a combat of another campaign waited behind a held one: $t s" ;;
esac
[ "$(sort -u "$SCRATCH"/held.* | tr '\n' ' ')" = "201 " ] ||
    die "the held campaign's combats: $(sort "$SCRATCH"/held.* | uniq -c | tr '\n' ' ')"
ok "with one campaign held, another's combat lands at once (${t#* } s); the held ones land after"
# ---- 6. a campaign whose units wear, busy from both instances
read -r CW TW < <(BENCH_WEAR=1 "$ROOT/bench/campaign.sh" "${A##*:}") ||
    die "cannot set up the campaign whose units wear"
AUTHW="Authorization: Bearer $TW"
CPW=/v1/campaigns/$CW
ENTERED='"sides": [
  {"side": "blue", "units": [{"unit": "B1", "die": 3}, {"unit": "B2", "die": 4}, {"unit": "B3", "die": 2}, {"unit": "B4", "die": 5}]},
  {"side": "red",  "units": [{"unit": "R1", "die": 6}, {"unit": "R2", "die": 1}, {"unit": "R3", "die": 3}, {"unit": "R4", "die": 4}]}],
  "dice": {"source": "entered"}'
WEAR_ROUNDS=18 # 4 clients: 72 combats, fewer than the 90 none outlives
wear_client() { # wear_client BASE K OUT
    local i body
    for ((i = 0; i < WEAR_ROUNDS; i++)); do
        body="{$SIDES}"
        [ $(((i + $2) % 5)) = 4 ] && body="{$ENTERED}"
        curl -s -X POST "$1$CPW/combats/scrud" -H "$JSON" -H "$AUTHW" \
            -d "$body" -o /dev/null -w '%{http_code}\n' >>"$3"
    done
}
wear_edits() { # wear_edits BASE UNIT OUT
    local i
    for ((i = 0; i < 4; i++)); do
        sleep 0.05
        curl -s -X PATCH "$1$CPW/units/$2" -H "$JSON" -H "$AUTHW" \
            -d "{\"scrud\": {\"quality\": $((i % 2))}}" -o /dev/null \
            -w '%{http_code}\n' >>"$3"
    done
}
WEARERS=()
for k in 0 1 2 3; do
    base=A
    [ $((k % 2)) = 1 ] && base=B
    wear_client "${!base}" "$k" "$SCRATCH/wear.$k" &
    WEARERS+=($!)
done
wear_edits "$A" B1 "$SCRATCH/wear.edits" &
WEARERS+=($!)
wear_edits "$B" R1 "$SCRATCH/wear.edits" &
WEARERS+=($!)
wait "${WEARERS[@]}"
codes=$(cat "$SCRATCH"/wear.[0-9] | sort | uniq -c | tr '\n' ' ')
[ "$(cat "$SCRATCH"/wear.[0-9] | grep -c '^201$')" = $((4 * WEAR_ROUNDS)) ] ||
    die "the campaign whose units wear: combats answered $codes"
[ "$(sort -u "$SCRATCH/wear.edits")" = 200 ] ||
    die "the campaign whose units wear: edits answered $(sort "$SCRATCH/wear.edits" | uniq -c | tr '\n' ' ')"
for u in "${UNITS[@]}"; do
    cursor=
    : >"$SCRATCH/history.$u"
    while :; do
        page=$(curl -sf "$B$CPW/units/$u/history?order=oldest&limit=100${cursor:+&cursor=$cursor}" \
            -H "$AUTHW") || die "unit $u: its history could not be read"
        jq -c '.items[] | [.before, .after]' <<<"$page" >>"$SCRATCH/history.$u"
        cursor=$(jq -r '.next_cursor // empty' <<<"$page")
        [ -n "$cursor" ] || break
    done
    broken=$(jq -s -r '. as $h | range(1; length)
        | select($h[. - 1][1] != $h[.][0])' \
        "$SCRATCH/history.$u" | head -n 1)
    [ -z "$broken" ] ||
        die "unit $u: its history's event $broken does not start from what the one before it left"
    n=$(grep -c . "$SCRATCH/history.$u")
    [ "$n" -gt $((4 * WEAR_ROUNDS)) ] ||
        die "unit $u: $n events in its history, for $((4 * WEAR_ROUNDS)) combats"
done
v=$(curl -sf "$A$CPW/ledger/verify" -H "$AUTHW")
[ "$(jq -r .verified <<<"$v")" = true ] ||
    die "the ledger of the campaign whose units wear does not verify: $v"
ok "$((4 * WEAR_ROUNDS)) combats whose units wear, from A and B at once with edits: all 201, every unit's history unbroken, the ledger verified"
echo "race: passed"
