#!/usr/bin/env bash
# bench/callgrind.sh: the cost targets of issue 17, in instructions, behind
# `make bench-cost` (bench/README.md, "Cost in instructions").
#
#   bench/callgrind.sh [BUILD_DIR]          (default: build)
#
# Runs BUILD_DIR/umpire under valgrind --tool=callgrind --separate-threads=yes
# three times, each on a fresh database with the same campaign set up by
# bench/campaign.sh (units that never wear out):
#   idle      start, set up, stop: the baseline;
#   one-off   the same, then N one-off SCRUD 8 v 4 combats (bench/scrud-8v4.lua's body);
#   campaign  the same, then N campaign SCRUD 4 v 4 combats (bench/campaign-4v4.lua's body).
# The combats are sent one after the other over one kept-alive connection
# (curl), so each one is a batch of its own for the writer: deterministic,
# and the dearest case for the writer (one commit per combat).  Every answer
# must be a 201.
#
# Prints, per combat: instructions of the whole server (every thread) minus
# the idle run's, divided by N; the same for the writer thread alone (the
# thread whose profile holds writer_main); and the database's growth in
# bytes (main file after a TRUNCATE checkpoint, minus the idle run's),
# against the targets of issue 17, each marked met or not met.
#
# Settings (environment):
#   N                     combats per run (2000)
#   BENCH_COST_KEEP=1     keeps the profiles (path printed) for callgrind_annotate
set -u

BUILD=${1:-build}
N=${N:-2000}
KEEP=${BENCH_COST_KEEP:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
UMPIRE_BIN="$BUILD/umpire"

die() {
    echo "bench-cost: $*" >&2
    exit 2
}
command -v valgrind >/dev/null 2>&1 ||
    die "valgrind is not installed (./deploy/install-deps.sh --valgrind installs it)"
command -v curl >/dev/null 2>&1 || die "curl is not installed"
command -v sqlite3 >/dev/null 2>&1 || die "the sqlite3 command is not installed"
[ -x "$UMPIRE_BIN" ] || die "$UMPIRE_BIN is missing: make $UMPIRE_BIN"
case $N in '' | *[!0-9]* | 0) die "N must be a number, 1 or more" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/umpire-cost.XXXXXX") || die "mktemp failed"
PID=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    [ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null
    if [ "$KEEP" = 1 ]; then
        echo "profiles kept in $TMP"
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The request bodies, taken from the wrk scripts so that both benchmarks
# send the same combats.
sed -n '/^wrk.body = \[\[/,/^\]\]/p' "$HERE/scrud-8v4.lua" | sed '1d;$d' >"$TMP/oneoff.json"
sed -n '/^{"sides":\[/,/^\]\])/p' "$HERE/campaign-4v4.lua" | sed '$d' >"$TMP/campaign.json"
if [ ! -s "$TMP/oneoff.json" ] || [ ! -s "$TMP/campaign.json" ]; then
    die "cannot read the request bodies from the wrk scripts"
fi

# profile NAME: one run under callgrind; leaves $TMP/NAME/ with the profiles,
# the database and NAME.codes (the status of every combat's answer).
profile() {
    local name=$1 dir="$TMP/$1" port id token url body
    mkdir -p "$dir"
    valgrind --tool=callgrind --separate-threads=yes \
        --callgrind-out-file="$dir/callgrind.out.%p" \
        "$UMPIRE_BIN" --listen 127.0.0.1 --port 0 --db "$dir/cost.db" \
        --access-log off --stop-timeout 120 >"$dir/umpire.log" 2>&1 &
    PID=$!
    port=""
    for _ in $(seq 600); do
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' \
            "$dir/umpire.log" | head -n 1)
        [ -n "$port" ] && break
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$port" ] || {
        cat "$dir/umpire.log" >&2
        die "umpire did not start under valgrind"
    }
    read -r id token < <("$HERE/campaign.sh" "$port")
    [ -n "${token:-}" ] || die "cannot set up the campaign"
    case $name in
    oneoff)
        url="http://127.0.0.1:$port/v1/combats/scrud"
        body="$TMP/oneoff.json"
        ;;
    campaign)
        url="http://127.0.0.1:$port/v1/campaigns/$id/combats/scrud"
        body="$TMP/campaign.json"
        ;;
    esac
    if [ "$name" != idle ]; then
        # One curl, N times the same URL: one connection, kept alive.
        {
            echo 'silent'
            echo 'request = "POST"'
            echo 'header = "Content-Type: application/json"'
            echo "header = \"Authorization: Bearer $token\""
            echo "data-binary = \"@$body\""
            printf '%s\n' 'write-out = "%{http_code}\n"'
            for _ in $(seq "$N"); do
                echo "url = \"$url\""
                echo 'output = "/dev/null"'
            done
        } >"$dir/curl.cfg"
        curl -K "$dir/curl.cfg" >"$dir/codes" 2>&1
        if [ "$(grep -c '^201$' "$dir/codes")" != "$N" ]; then
            sort "$dir/codes" | uniq -c | head -c 2000 >&2
            die "$name: not every combat was answered 201"
        fi
    fi
    kill -TERM "$PID"
    wait "$PID"
    PID=""
    sqlite3 "$dir/cost.db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null ||
        die "cannot checkpoint $dir/cost.db"
}

# total DIR: instructions of every thread; writer DIR: of the writer thread.
total() {
    cat "$1"/callgrind.out.* | awk '/^summary:/ { s += $2 } END { print s + 0 }'
}
writer() {
    local f
    f=$(grep -l 'writer_main' "$1"/callgrind.out.* | head -n 1)
    [ -n "$f" ] || die "no writer thread in $1"
    awk '/^summary:/ { s += $2 } END { print s + 0 }' "$f"
}
dbsize() { stat -c %s "$1/cost.db"; }

echo "umpire bench-cost: $UMPIRE_BIN under callgrind, $N combats per run, one at a time over one connection"
for run in idle oneoff campaign; do
    start=$(date +%s)
    profile "$run"
    echo "  $run: $(($(date +%s) - start)) s"
done

I_IDLE=$(total "$TMP/idle")
W_IDLE=$(writer "$TMP/idle")
S_IDLE=$(dbsize "$TMP/idle")
per() { # per A B: (A - B) / N
    awk -v a="$1" -v b="$2" -v n="$N" 'BEGIN { printf "%.0f\n", (a - b) / n }'
}
ONEOFF=$(per "$(total "$TMP/oneoff")" "$I_IDLE")
ONEOFF_W=$(per "$(writer "$TMP/oneoff")" "$W_IDLE")
ONEOFF_B=$(per "$(dbsize "$TMP/oneoff")" "$S_IDLE")
CAMP=$(per "$(total "$TMP/campaign")" "$I_IDLE")
CAMP_W=$(per "$(writer "$TMP/campaign")" "$W_IDLE")
CAMP_B=$(per "$(dbsize "$TMP/campaign")" "$S_IDLE")

echo
echo "idle baseline (start, migrations, campaign set-up, stop): $I_IDLE instructions, writer $W_IDLE; database $S_IDLE bytes"
echo
printf '%-46s %12s %12s  %s\n' "per combat" "measured" "target" "verdict"
row() { # row LABEL VALUE TARGET UNIT
    local verdict="not met"
    [ "$2" -le "$3" ] && verdict="met"
    printf '%-46s %12s %12s  %s\n' "$1" "$2$4" "$3$4" "$verdict"
}
row "one-off SCRUD 8 v 4, instructions server-side" "$ONEOFF" 150000 ""
row "campaign SCRUD 4 v 4, instructions server-side" "$CAMP" 300000 ""
row "campaign combat, writer thread instructions" "$CAMP_W" 60000 ""
row "campaign combat, database growth" "$CAMP_B" 3072 " B"
echo
echo "also: one-off combat: writer thread $ONEOFF_W instructions ($(awk -v w="$ONEOFF_W" -v t="$ONEOFF" 'BEGIN { printf "%.0f%%", t ? 100 * w / t : 0 }') of it)," \
    "database growth $ONEOFF_B B; campaign combat: writer $(awk -v w="$CAMP_W" -v t="$CAMP" 'BEGIN { printf "%.0f%%", t ? 100 * w / t : 0 }') of it"
