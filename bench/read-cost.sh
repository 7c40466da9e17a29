#!/usr/bin/env bash
# bench/read-cost.sh: what a page of history costs, in instructions, behind
# `make bench-read-cost` (bench/README.md, "Reads in instructions").
#
#   bench/read-cost.sh [BUILD_DIR]          (default: build)
#
# Fills a fresh database through BUILD_DIR/umpire's own routes with the
# campaign of bench/campaign.sh and N campaign SCRUD 4 v 4 combats (bench/
# campaign-4v4.lua's body, one at a time: each is staged, as a lone combat
# is, and its history documents packed in its row), then runs the server on
# it under valgrind --tool=callgrind five times: idle (start, stop), then
# R requests of a unit's newest history page (B1's, 50 events), then R of
# the campaign's newest feed page (50 events), then R of B1's second page
# of 20 after a cursor, oldest first and newest first (the pages a reader
# pages through).  Prints, per request, the instructions of every thread
# minus the idle run's, divided by R.  A
# combat stored as its facts renders its units' results again on these
# pages (db.h, "a combat's facts"): this is what that costs a read.
#
# Settings (environment):
#   N   combats in the campaign (120)
#   R   requests of each page (10)
set -u

BUILD=${1:-build}
N=${N:-120}
R=${R:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
UMPIRE_BIN="$BUILD/umpire"

die() {
    echo "bench-read-cost: $*" >&2
    exit 2
}
command -v valgrind >/dev/null 2>&1 ||
    die "valgrind is not installed (./deploy/install-deps.sh --valgrind installs it)"
command -v curl >/dev/null 2>&1 || die "curl is not installed"
[ -x "$UMPIRE_BIN" ] || die "$UMPIRE_BIN is missing: make $UMPIRE_BIN"
case $N in '' | *[!0-9]* | 0) die "N must be a number, 1 or more" ;; esac
case $R in '' | *[!0-9]* | 0) die "R must be a number, 1 or more" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/umpire-read-cost.XXXXXX") || die "mktemp failed"
PID=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    [ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

# A free port: the kernel's choice, read back from a bound socket.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_up PORT: until /health answers (up to about 60 s under valgrind).
wait_up() {
    for _ in $(seq 240); do
        curl -sf -o /dev/null "http://127.0.0.1:$1/health" && return 0
        sleep 0.25
    done
    die "the server on port $1 did not come up (log: $TMP/umpire.log)"
}

# stop: SIGINT, then wait for the server (and valgrind) to finish.
stop() {
    kill -INT "$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
    PID=""
}

port=$(free_port)
"$UMPIRE_BIN" --listen 127.0.0.1 --port "$port" --db "$TMP/read.db" \
    --access-log off >"$TMP/umpire.log" 2>&1 &
PID=$!
wait_up "$port"
read -r id token < <("$HERE/campaign.sh" "$port") || die "campaign set-up failed"
# (the script's first body: its seeded combat)
sed -n '/^{"sides":\[/,/^\]\])/{p;/^\]\])/q;}' "$HERE/campaign-4v4.lua" | sed '$d' >"$TMP/combat.json"
for _ in $(seq "$N"); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        --data-binary @"$TMP/combat.json" \
        "http://127.0.0.1:$port/v1/campaigns/$id/combats/scrud")
    [ "$code" = 201 ] || die "a combat answered $code"
done
# cursor ORDER: the cursor after B1's first page of 20 in ORDER
cursor() {
    curl -sf -H "Authorization: Bearer $token" \
        "http://127.0.0.1:$port/v1/campaigns/$id/units/B1/history?limit=20&order=$1" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["next_cursor"])'
}
after_oldest=$(cursor oldest) || die "B1's first page (oldest) failed"
after_newest=$(cursor newest) || die "B1's first page (newest) failed"
stop

# run NAME PATH: the server under callgrind, R requests of PATH (none for
# the idle run); prints the instructions of every thread.
run() {
    local name=$1 path=$2 code
    port=$(free_port)
    valgrind --tool=callgrind --separate-threads=yes \
        --callgrind-out-file="$TMP/$name.%p" "$UMPIRE_BIN" --listen 127.0.0.1 \
        --port "$port" --db "$TMP/read.db" --access-log off \
        >>"$TMP/umpire.log" 2>&1 &
    PID=$!
    wait_up "$port"
    if [ -n "$path" ]; then
        for _ in $(seq "$R"); do
            code=$(curl -s -o /dev/null -w '%{http_code}' \
                -H "Authorization: Bearer $token" "http://127.0.0.1:$port$path")
            [ "$code" = 200 ] || die "$path answered $code"
        done
    fi
    stop
    grep -h '^summary' "$TMP/$name".* | awk '{s += $2} END {printf "%d\n", s}'
}

echo "umpire bench-read-cost: $UMPIRE_BIN under callgrind, a campaign of $N SCRUD 4 v 4 combats, $R requests of each page"
idle=$(run idle "")
hist=$(run history "/v1/campaigns/$id/units/B1/history?order=newest")
feed=$(run feed "/v1/campaigns/$id/history?order=newest")
older=$(run older "/v1/campaigns/$id/units/B1/history?limit=20&cursor=$after_oldest")
newer=$(run newer "/v1/campaigns/$id/units/B1/history?limit=20&order=newest&cursor=$after_newest")
printf '%-44s %12s\n' "per request, all threads" "instructions"
printf '%-44s %12d\n' "unit history, newest page (50 events)" $(((hist - idle) / R))
printf '%-44s %12d\n' "campaign feed, newest page (50 events)" $(((feed - idle) / R))
printf '%-44s %12d\n' "unit history, 2nd page oldest first (20)" $(((older - idle) / R))
printf '%-44s %12d\n' "unit history, 2nd page newest first (20)" $(((newer - idle) / R))
