#!/usr/bin/env bash
# durability.sh: kill -9 under load loses nothing acknowledged.
#
#   tests/durability.sh [BUILD]     BUILD is the build folder (default build)
#
# The service answers 201 to a combat only once the writer's transaction
# holding it has committed (http_defer_write, db.c's group commit), with
# synchronous=FULL.  This test holds it to that.  It starts $BUILD/umpire
# (port 0, --access-log off) over a fresh database in a scratch folder,
# sets up a campaign of units that never wear out (bench/campaign.sh), and
# then, ROUNDS times over:
#
#   1. puts the server under load: CLIENTS concurrent clients, each one curl
#      after another, each curl sending a batch of combat POSTs: one-off
#      SCRUD combats with seeded and with entered dice, one-off EDNA tests,
#      and campaign SCRUD combats with seeded and with entered dice.  Every
#      answer's status, curl's exit code and Location header are written
#      down by its client.  Each request has a connection of its own
#      (Connection: close): curl sends a request again, on a new
#      connection, when a kept-alive one dies before any answer, and the
#      request the kill cut would then look like one refused after it;
#   2. once the round has at least MIN_ACKS answers of 201 and has run for
#      LOAD_SECONDS and a random fraction of a second more, kill -9 the
#      server with the clients still sending;
#   3. asserts the kill did cut requests in flight (some curl ended with
#      an empty or broken answer, not merely a refused connection) and that
#      the round had MIN_ACKS acknowledged combats or more;
#   4. restarts the server on the same database and checks every combat
#      acknowledged so far, this round and the earlier ones: GET of its
#      Location answers 200; the campaign's ledger verifies, is as long as
#      the acknowledged campaign combats' dice at least, and holds at each
#      acknowledged combat's ledger.last_pos the hash its answer gave.
#
# A 201 counts as acknowledged as soon as its headers arrived, even if the
# kill cut its body.  kill -9 ends the process, not the machine: what the
# kernel had been handed survives it, so this checks that no 201 leaves
# before its commit, not that the commit reached the disk (synchronous=FULL
# is what covers a power cut).  Prints a line per round and one of
# verdict; exits 1 on failure.  Needs curl (7.84 or later: %header{}) and
# jq.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib.sh
. "$ROOT/tests/lib.sh"
BUILD=${1:-build}
case $BUILD in
/*) BUILD_ABS=$BUILD ;;
*) BUILD_ABS=$ROOT/$BUILD ;;
esac
ROUNDS=3
CLIENTS=6          # one per kind of request below
BATCH=25           # POSTs per curl
MIN_ACKS=50        # acknowledged combats a round needs before its kill
LOAD_SECONDS=2     # and the load it runs at least, plus up to 1 s more
MAX_LOAD_SECONDS=15

die() {
    echo "durability: FAILED: $*" >&2
    exit 1
}

for tool in curl jq; do
    command -v "$tool" >/dev/null 2>&1 ||
        die "needs $tool (apt-get install curl jq)"
done
[ -x "$BUILD_ABS/umpire" ] || die "no $BUILD_ABS/umpire: build it first"
CURL_VERSION=$(curl --version | awk 'NR == 1 { print $2 }')
[ "$(printf '%s\n' 7.84.0 "$CURL_VERSION" | sort -V | head -n 1)" = 7.84.0 ] ||
    die "needs curl 7.84 or later, not $CURL_VERSION"

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/umpire-durability.XXXXXX")
DB=$SCRATCH/umpire.db
SERVER_PID=
CLIENT_PIDS=()
cleanup() {
    touch "$SCRATCH/stop" 2>/dev/null || true
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    for pid in "${CLIENT_PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the server: started on port 0 over $DB; BASE is where it listens.
N_STARTS=0
start_server() {
    local log=$SCRATCH/server.$N_STARTS.err
    N_STARTS=$((N_STARTS + 1))
    umpire_start "$BUILD_ABS/umpire" "$log" --db "$DB" || die "$UMPIRE_WHY"
    SERVER_PID=$UMPIRE_PID
    BASE=$UMPIRE_BASE
}

start_server
# The release build's allocator (Makefile, ALLOC_LIBS): where the binary
# is linked with mimalloc, mimalloc serves its malloc (main.c says so only
# for a block malloc gave).
if ldd "$BUILD_ABS/umpire" | grep -q libmimalloc; then
    grep -q '^umpire: allocator mimalloc ' "$SCRATCH/server.0.err" ||
        die "linked with mimalloc, but the server says: $(grep allocator "$SCRATCH/server.0.err")"
fi
read -r CAMPAIGN TOKEN < <("$ROOT/bench/campaign.sh" "${BASE##*:}") ||
    die "cannot set up the campaign"
[ -n "$TOKEN" ] || die "cannot set up the campaign"
AUTH="Authorization: Bearer $TOKEN"

# ---- the requests: client i sends kind i (tests/lib.sh).
combat_kinds "$CAMPAIGN" durability

# A client: batches of BATCH POSTs until the stop file appears, each POST
# on a connection of its own (see 1. above).  For each answer it writes,
# after the body (campaign combats only: their ledger member is checked
# later), a line "@@ STATUS CURL_EXIT LOCATION".
client() { # client KIND OUTFILE
    local kind=$1 out=$2 url=$BASE${KIND_PATHS[$1]} args=() i
    for ((i = 0; i < BATCH; i++)); do
        if is_campaign_kind "$kind"; then
            args+=("$url")
        else
            args+=(-o /dev/null "$url")
        fi
    done
    local hdr=(-H 'Content-Type: application/json' -H 'Connection: close')
    is_campaign_kind "$kind" && hdr+=(-H "$AUTH")
    while [ ! -e "$SCRATCH/stop" ]; do
        curl -s --connect-timeout 2 --max-time 10 -X POST "${hdr[@]}" \
            -d "${KIND_BODIES[$kind]}" \
            -w '\n@@ %{http_code} %{exitcode} %header{location}\n' \
            "${args[@]}" >>"$out" 2>/dev/null || true
    done
}

n_acks_in() { # the 201s written so far by the clients of round $1
    cat "$SCRATCH/round.$1".* 2>/dev/null | grep -c '^@@ 201 ' || true
}

# ---- what has been acknowledged, over every round:
#   acked.oneoff, acked.campaign   Locations of acknowledged combats
#   ledger.campaign                "FIRST_POS LAST_POS HASH" of each
#                                  campaign combat whose whole answer came
: >"$SCRATCH/acked.oneoff"
: >"$SCRATCH/acked.campaign"
: >"$SCRATCH/ledger.campaign"
SUMMARY=()

round_count() { # round_count ROUND WHAT: the round's answers of that kind
    cat "$SCRATCH/round.$1".*.counts |
        awk -v k="$2" -F': ' '$1 == k { s += $2 } END { print s + 0 }'
}

# Puts round $1's load on the server and kills it under that load.
load_and_kill() {
    local round=$1 k start now waited acks cut refused other=
    rm -f "$SCRATCH/stop"
    CLIENT_PIDS=()
    for ((k = 0; k < CLIENTS; k++)); do
        : >"$SCRATCH/round.$round.$k"
        client "$k" "$SCRATCH/round.$round.$k" &
        CLIENT_PIDS+=($!)
    done
    start=$(date +%s%N)
    waited=$((LOAD_SECONDS * 1000 + RANDOM % 1000))
    while :; do
        sleep 0.05
        now=$(( ($(date +%s%N) - start) / 1000000 ))
        if [ "$now" -ge "$waited" ] && [ "$(n_acks_in "$round")" -ge "$MIN_ACKS" ]; then
            break
        fi
        [ "$now" -lt $((MAX_LOAD_SECONDS * 1000)) ] || {
            touch "$SCRATCH/stop"
            die "round $round: only $(n_acks_in "$round") combats acknowledged" \
                "in $MAX_LOAD_SECONDS s (at least $MIN_ACKS needed)"
        }
        kill -0 "$SERVER_PID" 2>/dev/null ||
            die "round $round: the server stopped under load"
    done
    kill -KILL "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    touch "$SCRATCH/stop"
    for pid in "${CLIENT_PIDS[@]}"; do
        wait "$pid" || true
    done
    CLIENT_PIDS=()

    # Every answer of the round: acknowledged (201, its Location came; cut
    # too if the rest of it did not), cut by the kill (curl's exit other
    # than 0 and 7, "could not connect"), refused after it (7), or another
    # status, which fails the round.
    for ((k = 0; k < CLIENTS; k++)); do
        local f=$SCRATCH/round.$round.$k dest=oneoff
        is_campaign_kind "$k" && dest=campaign
        awk -v acked="$SCRATCH/acked.$dest" -v bodies="$SCRATCH/bodies.$round.$k" '
            /^@@ / {
                if ($2 == "201" && $4 != "") {
                    print $4 >>acked
                    n["acks"]++
                    if ($3 == 0 && body != "") print body >>bodies
                    else if ($3 != 0) n["cut"]++
                } else if ($3 == 7) n["refused"]++
                else if ($3 != 0) n["cut"]++
                else n["other " $2]++
                body = ""; next
            }
            $0 != "" { body = $0 }
            END { for (k in n) print k ": " n[k] }
        ' "$f" >"$f.counts"
        if grep -q '^other ' "$f.counts"; then
            other+="${KIND_NAMES[$k]}: $(sed -n 's/^other //p' "$f.counts" | tr '\n' ' ')"
        fi
        if [ -s "$SCRATCH/bodies.$round.$k" ]; then
            jq -r '.ledger | if (.last_pos | type) == "number"
                then "\(.first_pos) \(.last_pos) \(.hash)" else error("no ledger") end' \
                "$SCRATCH/bodies.$round.$k" >>"$SCRATCH/ledger.campaign" ||
                die "round $round: a 201 to ${KIND_NAMES[$k]} is not a combat"
        fi
    done
    acks=$(round_count "$round" acks)
    cut=$(round_count "$round" cut)
    refused=$(round_count "$round" refused)
    [ -z "$other" ] ||
        die "round $round: answers other than 201 under load (status: count):" \
            "$other"
    [ "$acks" -ge "$MIN_ACKS" ] ||
        die "round $round: $acks combats acknowledged before the kill" \
            "(at least $MIN_ACKS needed)"
    [ "$cut" -ge 1 ] ||
        die "round $round: no request was in flight at the kill"
    SUMMARY+=("round $round: $acks acknowledged, $cut cut, $refused refused")
}

# GETs every Location of file $1 (with the curl arguments that follow) in
# one curl; writes "STATUS PATH" of each that did not answer 200.
get_all() { # get_all FILE [CURL ARGS...]
    local list=$1 cfg=$SCRATCH/get.cfg
    shift
    [ -s "$list" ] || return 0
    sed "s|.*|url = \"$BASE&\"\noutput = \"/dev/null\"|" "$list" >"$cfg"
    curl -s --max-time 60 "$@" -K "$cfg" -w '%{http_code} %{url_effective}\n' |
        grep -v '^200 ' | sed "s|$BASE||" || true
}

# Restarts the server on the database and checks every acknowledged combat;
# dies naming what was lost.
check_all() {
    local n_oneoff n_campaign lost verify bad_dice length
    start_server
    n_oneoff=$(wc -l <"$SCRATCH/acked.oneoff")
    n_campaign=$(wc -l <"$SCRATCH/acked.campaign")
    lost=$({
        get_all "$SCRATCH/acked.oneoff"
        get_all "$SCRATCH/acked.campaign" -H "$AUTH"
    })
    verify=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN/ledger/verify" -H "$AUTH" |
        jq -c 'if .verified == true then "" else .first_broken end') ||
        die "cannot verify the campaign's ledger"
    curl -sf "$BASE/v1/campaigns/$CAMPAIGN/ledger" -H "$AUTH" >"$SCRATCH/ledger.json" ||
        die "cannot export the campaign's ledger"
    # The dice of the acknowledged campaign combats whose answer came whole,
    # and each one's hash where its answer put it.
    bad_dice=$(jq -r '.length, (.entries[] | "\(.pos) \(.hash)")' "$SCRATCH/ledger.json" |
        awk 'NR == FNR { if (FNR == 1) len = $1; else at[$1] = $2; next }
             { dice += $2 - $1 + 1 }
             at[$2] != $3 { print "position " $2 " is not " $3 }
             END { if (dice > len) print "it holds " len " dice, not " dice }' \
            - "$SCRATCH/ledger.campaign")
    if [ -n "$lost" ] || [ "$verify" != '""' ] || [ -n "$bad_dice" ]; then
        [ -z "$lost" ] || echo "durability: $(echo "$lost" | wc -l) acknowledged" \
            "combats lost (status, path), among them:" \
            "$(echo "$lost" | head -n 5)" >&2
        [ "$verify" = '""' ] ||
            echo "durability: the campaign's ledger does not verify: $verify" >&2
        [ -z "$bad_dice" ] || echo "durability: the campaign's ledger lost" \
            "acknowledged dice:" "$(echo "$bad_dice" | head -n 5)" >&2
        die "after kill -9 number $((N_STARTS - 1)), acknowledged combats" \
            "are lost or altered"
    fi
    length=$(jq .length "$SCRATCH/ledger.json")
    LAST_CHECK="$n_oneoff one-off and $n_campaign campaign combats ($length dice)"
}

T0=$(date +%s)
for ((round = 1; round <= ROUNDS; round++)); do
    load_and_kill "$round"
    check_all
done
kill -TERM "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=
for line in "${SUMMARY[@]}"; do
    echo "durability: $line"
done
echo "durability: ok: $ROUNDS kills under load lost nothing of the" \
    "$LAST_CHECK acknowledged ($(($(date +%s) - T0)) s)"
