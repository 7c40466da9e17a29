#!/usr/bin/env bash
# bench/run.sh: the load test behind `make bench` (see bench/README.md).
#
#   bench/run.sh [BUILD_DIR]          (default: build)
#
# Starts BUILD_DIR/bench-bare (fixed JSON, no work) and BUILD_DIR/umpire on a
# fresh database in a temporary directory, both on free loopback ports, and
# loads each with wrk with the same parameters: first a warm-up, then the
# measured run.  Prints requests/s and latency p50/p90/p99 of each, the ratio
# combat/bare and PASS or FAIL against the required 0.10, then how many
# combats the database holds.  Exits 1 on FAIL (or if either run had errors
# or the database lost a combat that was answered 201), 2 on a setup error.
#
# Settings (environment):
#   BENCH_DURATION        measured run of each server, wrk -d  (10s)
#   BENCH_WARMUP          warm-up run of each server, wrk -d   (3s; 0 skips)
#   BENCH_CONNECTIONS     keep-alive connections, wrk -c       (64)
#   BENCH_WRK_THREADS     wrk threads, wrk -t                  (1)
#   BENCH_SERVER_THREADS  worker threads of both servers       (2)
#   BENCH_MIN_RATIO       the requirement                      (0.10)
#   BENCH_VERBOSE=1       also print wrk's own output
set -u

BUILD=${1:-build}
DURATION=${BENCH_DURATION:-10s}
WARMUP=${BENCH_WARMUP:-3s}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
WRK_THREADS=${BENCH_WRK_THREADS:-1}
SERVER_THREADS=${BENCH_SERVER_THREADS:-2}
MIN_RATIO=${BENCH_MIN_RATIO:-0.10}
VERBOSE=${BENCH_VERBOSE:-0}

HERE=$(cd "$(dirname "$0")" && pwd)
SCRIPT="$HERE/scrud-8v4.lua"
BARE_BIN="$BUILD/bench-bare"
UMPIRE_BIN="$BUILD/umpire"

die() {
    echo "bench: $*" >&2
    exit 2
}

command -v wrk >/dev/null 2>&1 ||
    die "wrk is not installed (./deploy/install-deps.sh --bench installs it)"
[ -x "$BARE_BIN" ] || die "$BARE_BIN is missing: make $BARE_BIN"
[ -x "$UMPIRE_BIN" ] || die "$UMPIRE_BIN is missing: make $UMPIRE_BIN"
[ -r "$SCRIPT" ] || die "$SCRIPT is missing"
case $CONNECTIONS in '' | *[!0-9]*) die "BENCH_CONNECTIONS must be a number" ;; esac
case $WRK_THREADS in '' | *[!0-9]*) die "BENCH_WRK_THREADS must be a number" ;; esac
[ "$WRK_THREADS" -le "$CONNECTIONS" ] ||
    die "BENCH_WRK_THREADS must not exceed BENCH_CONNECTIONS"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/umpire-bench.XXXXXX") || die "mktemp failed"
BARE_PID=""
UMPIRE_PID=""
WRK_PID=""

stop() { # stop PID: SIGTERM, wait up to 15 s, then SIGKILL
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 150); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    [ -z "$WRK_PID" ] || kill -KILL "$WRK_PID" 2>/dev/null
    stop "$BARE_PID"
    stop "$UMPIRE_PID"
    BARE_PID=""
    UMPIRE_PID=""
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_port PID LOGFILE: prints the port the server announced in LOGFILE
# ("... listening on http://127.0.0.1:PORT ...").
wait_port() {
    local pid=$1 log=$2 port
    for _ in $(seq 100); do
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' \
            "$log" 2>/dev/null | head -n 1)
        if [ -n "$port" ]; then
            echo "$port"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}

# wait_http PORT PATH: waits until GET PATH answers 200.
wait_http() {
    local port=$1 path=$2 line
    for _ in $(seq 100); do
        if exec 3<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
            printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3
            line=""
            IFS= read -r -t 2 line <&3
            exec 3<&- 3>&-
            case $line in "HTTP/1."?" 200"*) return 0 ;; esac
        fi
        sleep 0.1
    done
    return 1
}

# start_servers: both on port 0 (the kernel picks free ones).
"$BARE_BIN" 0 "$SERVER_THREADS" >"$TMP/bare.log" 2>&1 &
BARE_PID=$!
"$UMPIRE_BIN" --listen 127.0.0.1 --port 0 --db "$TMP/bench.db" \
    --threads "$SERVER_THREADS" --access-log off >"$TMP/umpire.log" 2>&1 &
UMPIRE_PID=$!

BARE_PORT=$(wait_port "$BARE_PID" "$TMP/bare.log") || {
    cat "$TMP/bare.log" >&2
    die "bench-bare did not start"
}
UMPIRE_PORT=$(wait_port "$UMPIRE_PID" "$TMP/umpire.log") || {
    cat "$TMP/umpire.log" >&2
    die "umpire did not start"
}
wait_http "$BARE_PORT" / || die "bench-bare does not answer on port $BARE_PORT"
wait_http "$UMPIRE_PORT" /health ||
    die "umpire does not answer GET /health on port $UMPIRE_PORT"

BARE_URL="http://127.0.0.1:$BARE_PORT/"
UMPIRE_URL="http://127.0.0.1:$UMPIRE_PORT/v1/combats/scrud"
WRK_ARGS=(-t"$WRK_THREADS" -c"$CONNECTIONS" --timeout 10s --latency)

# run_wrk NAME DURATION [wrk args...]: output in $TMP/NAME.out
run_wrk() {
    local name=$1 dur=$2
    shift 2
    # In the background so that a signal stops the script at once.
    wrk "${WRK_ARGS[@]}" -d"$dur" "$@" >"$TMP/$name.out" 2>&1 &
    WRK_PID=$!
    wait "$WRK_PID"
    local rc=$?
    WRK_PID=""
    if [ "$VERBOSE" = 1 ] || [ $rc -ne 0 ]; then
        echo "--- wrk $name (exit $rc)"
        cat "$TMP/$name.out"
    fi
    return $rc
}

# field NAME KEY: one figure from wrk's output ("rps", "requests", "p50",
# "p90", "p99" in ms, "errors": socket errors + non-2xx/3xx + non-201).
field() {
    awk -v key="$2" '
        function ms(v) {
            if (v ~ /us$/) return v / 1000
            if (v ~ /ms$/) return v + 0
            if (v ~ /m$/)  return v * 60000
            if (v ~ /s$/)  return v * 1000
            return v
        }
        /^Requests\/sec:/            { rps = $2 }
        /requests in/                { req = $1 }
        /^ +50% /                    { p50 = ms($2) }
        /^ +90% /                    { p90 = ms($2) }
        /^ +99% /                    { p99 = ms($2) }
        /Socket errors:/ {
            for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) sock += $i + 0
        }
        /Non-2xx or 3xx responses:/  { non2xx = $NF }
        /^non-201 responses:/        { bad = $3 }
        END {
            if (key == "rps") print rps + 0
            else if (key == "requests") print req + 0
            else if (key == "p50") printf "%.2f\n", p50
            else if (key == "p90") printf "%.2f\n", p90
            else if (key == "p99") printf "%.2f\n", p99
            else if (key == "errors") print sock + (bad != "" ? bad : non2xx) + 0
        }' "$TMP/$1.out"
}

case $WARMUP in 0 | 0s) WARMUP_NOTE="no warm-up" ;; *) WARMUP_NOTE="after a -d$WARMUP warm-up" ;; esac
echo "umpire bench: $(nproc) CPUs, $(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2)," \
    "wrk ${WRK_ARGS[*]} -d$DURATION ($WARMUP_NOTE) on loopback"
echo "  bare:   $BARE_BIN, GET / -> 200 {\"status\":\"ok\"}," \
    "$SERVER_THREADS threads"
echo "  combat: $UMPIRE_BIN --threads $SERVER_THREADS --access-log off," \
    "POST /v1/combats/scrud (bench/scrud-8v4.lua: one-off SCRUD 8 v 4, seeded dice) -> 201"
echo "  access logging is off in both (bench-bare has none), for a like-for-like comparison"
echo "  durability: every 201 follows the commit of its combat (SQLite WAL," \
    "synchronous=FULL, group commit); database in $TMP"
echo

status=0
if [ "$WARMUP_NOTE" != "no warm-up" ]; then
    run_wrk bare-warmup "$WARMUP" "$BARE_URL" || status=1
fi
run_wrk bare "$DURATION" "$BARE_URL" || status=1
if [ "$WARMUP_NOTE" != "no warm-up" ]; then
    run_wrk combat-warmup "$WARMUP" -s "$SCRIPT" "$UMPIRE_URL" || status=1
fi
run_wrk combat "$DURATION" -s "$SCRIPT" "$UMPIRE_URL" || status=1

# Disk traffic of the server so far, before it stops (informative).
IO_BYTES=$(awk '/^write_bytes:/ { print $2 }' "/proc/$UMPIRE_PID/io" 2>/dev/null)

printf '%-26s %12s %9s %9s %9s %10s %7s\n' "" "requests/s" "p50 ms" \
    "p90 ms" "p99 ms" "requests" "errors"
for run in bare combat; do
    case $run in
    bare) label="bare (fixed JSON)" ;;
    combat) label="combat (SCRUD 8 v 4)" ;;
    esac
    printf '%-26s %12.2f %9s %9s %9s %10s %7s\n' "$label" "$(field $run rps)" \
        "$(field $run p50)" "$(field $run p90)" "$(field $run p99)" \
        "$(field $run requests)" "$(field $run errors)"
done
echo

BARE_RPS=$(field bare rps)
COMBAT_RPS=$(field combat rps)
RATIO=$(awk -v c="$COMBAT_RPS" -v b="$BARE_RPS" \
    'BEGIN { if (b > 0) printf "%.4f", c / b; else print "0" }')
VERDICT=$(awk -v r="$RATIO" -v m="$MIN_RATIO" \
    'BEGIN { print (r + 0 >= m + 0) ? "PASS" : "FAIL" }')
printf 'ratio combat/bare: %.2f / %.2f = %s (required >= %s): %s\n' \
    "$COMBAT_RPS" "$BARE_RPS" "$RATIO" "$MIN_RATIO" "$VERDICT"
[ "$VERDICT" = PASS ] || status=1

for run in bare combat; do
    if [ "$(field $run errors)" != 0 ]; then
        echo "ERROR: the $run run had $(field $run errors) failed requests:"
        grep -E 'Socket errors|Non-2xx|non-201' "$TMP/$run.out" | sed 's/^/  /'
        status=1
    fi
done

# Durability: every combat answered 201 must be in the database.  Stop the
# server gracefully first (requests in flight finish, WAL checkpointed).
OK_201=0
for run in combat-warmup combat; do
    [ -f "$TMP/$run.out" ] || continue
    OK_201=$((OK_201 + $(field $run requests) - $(field $run errors)))
done
stop "$UMPIRE_PID"
UMPIRE_PID=""
if command -v sqlite3 >/dev/null 2>&1; then
    STORED=$(sqlite3 "$TMP/bench.db" 'SELECT count(*) FROM combats' 2>&1)
    ROLLS=$(sqlite3 "$TMP/bench.db" 'SELECT count(*) FROM rolls' 2>&1)
    echo "combats in the database: $STORED (with $ROLLS rolls); wrk counted" \
        "$OK_201 answered 201 (warm-up included; a request in flight when wrk" \
        "stops may land without being counted)"
    case $STORED in
    '' | *[!0-9]*)
        echo "ERROR: cannot count the combats: $STORED"
        status=1
        ;;
    *)
        if [ "$STORED" -lt "$OK_201" ]; then
            echo "ERROR: fewer combats stored than answered 201"
            status=1
        fi
        ;;
    esac
else
    echo "combats in the database: not counted (no sqlite3 command);" \
        "wrk counted $OK_201 answered 201"
fi
if [ -n "$IO_BYTES" ] && [ "$OK_201" -gt 0 ]; then
    awk -v b="$IO_BYTES" -v n="$OK_201" 'BEGIN {
        printf "umpire wrote %.1f MB to disk, about %.1f KB per combat\n",
            b / 1048576, b / n / 1024 }'
fi
exit $status
