#!/usr/bin/env bash
# bench/run.sh: the load test behind `make bench` (see bench/README.md).
#
#   bench/run.sh [BUILD_DIR]          (default: build)
#
# Starts BUILD_DIR/bench-bare (fixed JSON, no work) and BUILD_DIR/umpire on a
# fresh database in a temporary directory, both on free loopback ports and
# configured alike (threads, per-IP connection limit), and loads them with
# wrk with the same parameters, BENCH_ROUNDS times (3) in turn: the bare
# handler, one-off SCRUD 8 v 4 combats, and SCRUD 4 v 4 combats in a
# campaign whose units never wear out (bench/campaign.sh), each a warm-up
# then the measured run.  Prints requests/s and latency p50/p90/p99 of every
# run, the ratios combat/bare of each round and their medians, PASS or FAIL
# of the one-off median against the required 0.10 (the campaign ratio is
# informative), then how many combats the database holds.  Exits 1 on FAIL
# (or if any run had errors or the database lost a combat that was answered
# 201), 2 on a setup error.
#
# Settings (environment):
#   BENCH_ROUNDS          rounds of the three runs; the median is reported (3)
#   BENCH_DURATION        measured run of each server, wrk -d  (10s)
#   BENCH_WARMUP          warm-up run before each, wrk -d      (3s; 0 skips)
#   BENCH_CONNECTIONS     keep-alive connections, wrk -c       (64)
#   BENCH_WRK_THREADS     wrk threads, wrk -t                  (1)
#   BENCH_SERVER_THREADS  worker threads of both servers       (2)
#   BENCH_MIN_RATIO       the requirement                      (0.10)
#   BENCH_SERVER_CPUS     CPUs both servers are pinned to, a taskset -c
#                         list such as 0-7                     (none)
#   BENCH_WRK_CPUS        CPUs wrk is pinned to, such as 8-15  (none)
#   BENCH_CAMPAIGN=0      leaves out the campaign runs
#   BENCH_ENTERED=N       every Nth campaign combat of each connection with
#                         entered dice (bench/campaign-4v4.lua; none)
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
ROUNDS=${BENCH_ROUNDS:-3}
CAMPAIGN=${BENCH_CAMPAIGN:-1}
SERVER_CPUS=${BENCH_SERVER_CPUS:-}
WRK_CPUS=${BENCH_WRK_CPUS:-}

HERE=$(cd "$(dirname "$0")" && pwd)
SCRIPT="$HERE/scrud-8v4.lua"
CAMPAIGN_SCRIPT="$HERE/campaign-4v4.lua"
BARE_BIN="$BUILD/bench-bare"
UMPIRE_BIN="$BUILD/umpire"

die() {
    echo "bench: $*" >&2
    exit 2
}

# pin CPUS COMMAND...: COMMAND on those CPUs (taskset), or anywhere.  Run
# in the background (&) only: it execs, so that $! is the command itself
# (stop and /proc/$!/io reach it), not a subshell that would leave it
# running when killed.
pin() {
    local cpus=$1
    shift
    if [ -n "$cpus" ]; then
        exec taskset -c "$cpus" "$@"
    fi
    exec "$@"
}

command -v wrk >/dev/null 2>&1 ||
    die "wrk is not installed (./deploy/install-deps.sh --bench installs it)"
[ -x "$BARE_BIN" ] || die "$BARE_BIN is missing: make $BARE_BIN"
[ -x "$UMPIRE_BIN" ] || die "$UMPIRE_BIN is missing: make $UMPIRE_BIN"
[ -r "$SCRIPT" ] || die "$SCRIPT is missing"
[ -r "$CAMPAIGN_SCRIPT" ] || die "$CAMPAIGN_SCRIPT is missing"
case $ROUNDS in '' | *[!0-9]* | 0) die "BENCH_ROUNDS must be a number, 1 or more" ;; esac
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

# Both servers take umpire's per-IP connection limit (256), raised to the
# number of connections when there are more: wrk opens them all from
# 127.0.0.1.
PER_IP=256
[ "$CONNECTIONS" -le "$PER_IP" ] || PER_IP=$CONNECTIONS

# start_servers: both on port 0 (the kernel picks free ones).
pin "$SERVER_CPUS" "$BARE_BIN" 0 "$SERVER_THREADS" "$PER_IP" >"$TMP/bare.log" 2>&1 &
BARE_PID=$!
pin "$SERVER_CPUS" "$UMPIRE_BIN" --listen 127.0.0.1 --port 0 --db "$TMP/bench.db" \
    --threads "$SERVER_THREADS" --per-ip-connection-limit "$PER_IP" \
    --access-log off >"$TMP/umpire.log" 2>&1 &
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
CAMPAIGN_URL="http://127.0.0.1:$UMPIRE_PORT/"
CAMPAIGN_ARGS=()
if [ "$CAMPAIGN" != 0 ]; then
    read -r CAMPAIGN_ID CAMPAIGN_TOKEN < <("$HERE/campaign.sh" "$UMPIRE_PORT")
    [ -n "${CAMPAIGN_TOKEN:-}" ] || die "cannot set up the campaign"
    CAMPAIGN_ARGS=(-- "$CAMPAIGN_ID" "$CAMPAIGN_TOKEN" ${BENCH_ENTERED:+"$BENCH_ENTERED"})
fi
WRK_ARGS=(-t"$WRK_THREADS" -c"$CONNECTIONS" --timeout 10s --latency)

# run_wrk NAME DURATION [wrk args...]: output in $TMP/NAME.out
run_wrk() {
    local name=$1 dur=$2
    shift 2
    # In the background so that a signal stops the script at once.
    pin "$WRK_CPUS" wrk "${WRK_ARGS[@]}" -d"$dur" "$@" >"$TMP/$name.out" 2>&1 &
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

case $WARMUP in 0 | 0s) WARMUP_NOTE="no warm-up" ;; *) WARMUP_NOTE="each after a -d$WARMUP warm-up" ;; esac
echo "umpire bench: $(nproc) CPUs, $(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2)," \
    "wrk ${WRK_ARGS[*]} -d$DURATION ($WARMUP_NOTE) on loopback, $ROUNDS rounds"
echo "  bare:     $BARE_BIN, GET / -> 200 {\"status\":\"ok\"}," \
    "$SERVER_THREADS threads, $PER_IP connections per IP"
echo "  combat:   $UMPIRE_BIN --threads $SERVER_THREADS --per-ip-connection-limit $PER_IP" \
    "--access-log off, POST /v1/combats/scrud (bench/scrud-8v4.lua: one-off SCRUD 8 v 4, seeded dice) -> 201"
[ "$CAMPAIGN" = 0 ] ||
    echo "  campaign: the same umpire, POST /v1/campaigns/$CAMPAIGN_ID/combats/scrud" \
        "(bench/campaign-4v4.lua: SCRUD 4 v 4, seeded dice${BENCH_ENTERED:+, every ${BENCH_ENTERED}th entered}," \
        "units that never wear out) -> 201"
echo "  access logging is off in both (bench-bare has none), for a like-for-like comparison"
echo "  durability: every 201 follows the commit of its combat (SQLite WAL," \
    "synchronous=FULL, group commit); database in $TMP"
echo

RUNS="bare combat"
[ "$CAMPAIGN" = 0 ] || RUNS="$RUNS campaign"

# measure RUN ROUND: the warm-up and the measured run of RUN in round ROUND.
measure() {
    local run=$1 round=$2 args
    case $run in
    bare) args=("$BARE_URL") ;;
    combat) args=(-s "$SCRIPT" "$UMPIRE_URL") ;;
    campaign) args=(-s "$CAMPAIGN_SCRIPT" "$CAMPAIGN_URL" "${CAMPAIGN_ARGS[@]}") ;;
    esac
    if [ "$WARMUP_NOTE" != "no warm-up" ]; then
        run_wrk "$run-warmup-$round" "$WARMUP" "${args[@]}" || status=1
    fi
    [ "$run" = bare ] || threads_cpu "$TMP/$run-$round.cpu0"
    run_wrk "$run-$round" "$DURATION" "${args[@]}" || status=1
    [ "$run" = bare ] || threads_cpu "$TMP/$run-$round.cpu1"
}

# threads_cpu FILE: each of umpire's threads' id, name and CPU time so far
# (clock ticks, user and system), one line each, then the time (s).
threads_cpu() {
    cat "/proc/$UMPIRE_PID"/task/*/stat 2>/dev/null |
        awk '{ print $1, $2, $14 + $15 }' >"$1"
    date +%s.%N >>"$1"
}

# cpu_share NAME: how busy umpire's threads were over the measured run NAME
# (CPU time over wall time, from threads_cpu, thread by thread: one started
# during the run counts from 0, one that ended is left out): the writer,
# the request workers (libmicrohttpd's MHD-worker threads, or its one
# MHD-single with one thread: their mean, least and most) and all the
# others together.
cpu_share() {
    awk -v hz="$(getconf CLK_TCK)" '
        NR == FNR { if (NF == 1) t0 = $1; else a[$1] = $3; next }
        NF == 1 { t1 = $1; next }
        {
            busy = ($3 - a[$1]) / hz
            if ($2 == "(umpire-writer)") writer += busy
            else if ($2 == "(MHD-worker)" || $2 == "(MHD-single)") {
                if (n == 0 || busy < lo) lo = busy
                if (n == 0 || busy > hi) hi = busy
                workers += busy; n++
            } else rest += busy
        }
        END {
            s = t1 - t0
            if (s <= 0 || n == 0) { print "not measured"; exit }
            printf "writer %.0f%%, workers %.0f%% (%.0f%% to %.0f%%, %d), the rest %.0f%%\n",
                100 * writer / s, 100 * workers / n / s, 100 * lo / s, 100 * hi / s, n, 100 * rest / s
        }' "$TMP/$1.cpu0" "$TMP/$1.cpu1"
}

status=0
for round in $(seq "$ROUNDS"); do
    for run in $RUNS; do
        measure "$run" "$round"
    done
done

# Disk traffic of the server so far, before it stops (informative).
IO_BYTES=$(awk '/^write_bytes:/ { print $2 }' "/proc/$UMPIRE_PID/io" 2>/dev/null)

# median: the median of the numbers on stdin, one a line.
median() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) print 0
        else if (NR % 2) print v[(NR + 1) / 2]
        else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { # ratio A B: A / B to 4 places
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f\n", a / b; else print "0" }'
}

printf '%-30s %12s %9s %9s %9s %10s %7s\n' "" "requests/s" "p50 ms" \
    "p90 ms" "p99 ms" "requests" "errors"
for round in $(seq "$ROUNDS"); do
    for run in $RUNS; do
        case $run in
        bare) label="bare (fixed JSON)" ;;
        combat) label="combat (SCRUD 8 v 4)" ;;
        campaign) label="campaign (SCRUD 4 v 4)" ;;
        esac
        printf '%-30s %12.2f %9s %9s %9s %10s %7s\n' "$round: $label" \
            "$(field "$run-$round" rps)" "$(field "$run-$round" p50)" \
            "$(field "$run-$round" p90)" "$(field "$run-$round" p99)" \
            "$(field "$run-$round" requests)" "$(field "$run-$round" errors)"
    done
done
echo
echo "umpire's threads, busy over each measured run (CPU time / wall time; a thread"
echo "is one CPU at most; the workers are libmicrohttpd's, their mean and range):"
for round in $(seq "$ROUNDS"); do
    for run in $RUNS; do
        [ "$run" = bare ] ||
            printf '  %-28s %s\n' "$round: $run" "$(cpu_share "$run-$round")"
    done
done
echo

for run in $RUNS; do
    [ "$run" = bare ] && continue
    list=""
    for round in $(seq "$ROUNDS"); do
        r=$(ratio "$(field "$run-$round" rps)" "$(field "bare-$round" rps)")
        echo "$r" >>"$TMP/ratios-$run"
        list="$list${list:+, }$r"
    done
    med=$(median <"$TMP/ratios-$run")
    if [ "$run" = combat ]; then
        VERDICT=$(awk -v r="$med" -v m="$MIN_RATIO" \
            'BEGIN { print (r + 0 >= m + 0) ? "PASS" : "FAIL" }')
        printf 'ratio combat/bare, median of %s rounds (%s): %s (required >= %s): %s\n' \
            "$ROUNDS" "$list" "$med" "$MIN_RATIO" "$VERDICT"
        [ "$VERDICT" = PASS ] || status=1
    else
        printf 'ratio campaign/bare, median of %s rounds (%s): %s (informative)\n' \
            "$ROUNDS" "$list" "$med"
    fi
done

for round in $(seq "$ROUNDS"); do
    for run in $RUNS; do
        if [ "$(field "$run-$round" errors)" != 0 ]; then
            echo "ERROR: the $run run of round $round had" \
                "$(field "$run-$round" errors) failed requests:"
            grep -E 'Socket errors|Non-2xx|non-201' "$TMP/$run-$round.out" | sed 's/^/  /'
            status=1
        fi
    done
done

# Durability: every combat answered 201 must be in the database.  Stop the
# server gracefully first (requests in flight finish, WAL checkpointed).
# answered RUN: the 201s wrk counted for RUN, warm-ups included.
answered() {
    local n=0 f
    for f in "$TMP/$1"-*.out; do
        [ -f "$f" ] || continue
        f=$(basename "$f" .out)
        n=$((n + $(field "$f" requests) - $(field "$f" errors)))
    done
    echo "$n"
}
OK_201=$(answered combat)
OK_CAMPAIGN=0
[ "$CAMPAIGN" = 0 ] || OK_CAMPAIGN=$(answered campaign)
stop "$UMPIRE_PID"
UMPIRE_PID=""
# Where its campaign combats were worked out, as it logs when it stops.
grep '^umpire: campaign combats since the start' "$TMP/umpire.log" | sed 's/^umpire: //'
if command -v sqlite3 >/dev/null 2>&1; then
    STORED=$(sqlite3 "$TMP/bench.db" \
        'SELECT count(*) FROM combats WHERE campaign_id IS NULL' 2>&1)
    STORED_CAMPAIGN=$(sqlite3 "$TMP/bench.db" \
        'SELECT count(*) FROM combats WHERE campaign_id IS NOT NULL' 2>&1)
    ENTRIES=$(sqlite3 "$TMP/bench.db" \
        'SELECT coalesce(sum(ledger_length), 0) FROM campaigns' 2>&1)
    echo "combats in the database: $STORED one-off and $STORED_CAMPAIGN in" \
        "the campaign (its ledger $ENTRIES rolls); wrk counted $OK_201 and" \
        "$OK_CAMPAIGN answered 201 (warm-ups included; a request in flight" \
        "when wrk stops may land without being counted)"
    for pair in "$STORED:$OK_201" "$STORED_CAMPAIGN:$OK_CAMPAIGN"; do
        case ${pair%%:*} in
        '' | *[!0-9]*)
            echo "ERROR: cannot count the combats: ${pair%%:*}"
            status=1
            ;;
        *)
            if [ "${pair%%:*}" -lt "${pair##*:}" ]; then
                echo "ERROR: fewer combats stored than answered 201"
                status=1
            fi
            ;;
        esac
    done
else
    echo "combats in the database: not counted (no sqlite3 command);" \
        "wrk counted $OK_201 and $OK_CAMPAIGN answered 201"
fi
if [ -n "$IO_BYTES" ] && [ $((OK_201 + OK_CAMPAIGN)) -gt 0 ]; then
    awk -v b="$IO_BYTES" -v n="$((OK_201 + OK_CAMPAIGN))" 'BEGIN {
        printf "umpire wrote %.1f MB to disk, about %.1f KB per combat\n",
            b / 1048576, b / n / 1024 }'
fi
exit $status
