#!/usr/bin/env bash
# bench/profile.sh: where the server's CPU time goes on this machine's own
# CPU, behind `make bench-profile` (bench/README.md, "Profile").
#
#   bench/profile.sh [BUILD_DIR]          (default: build)
#
# bench/callgrind.sh counts instructions as valgrind's model of a CPU runs
# them: deterministic, but blind to what the kernel does for the server
# (sockets, the log's writes and syncs), and without the CPU's SHA
# instructions or its fast string stores (a `rep stos` counts once a
# byte).  This runs BUILD_DIR/umpire under `perf record -e cpu-clock -g`
# (the kernel's software clock, which a virtual machine without hardware
# counters still has) while wrk loads it, then prints, from the samples:
#   - requests/s (under perf: lower than make bench's);
#   - each of the server's threads, by name (docs/operations.md: the
#     request workers MHD-worker, the writer umpire-writer, ...): its
#     share of all the server's samples, and that share split by where
#     the CPU was, the kernel or each library (umpire: the server's own
#     code);
#   - for each thread, what its kernel time went to: each system call (the
#     function the kernel's syscall entry called), page faults, and the
#     rest (interrupts, the network's deferred work, the scheduler).
#
# Settings (environment):
#   BENCH_PROFILE        oneoff (default): one-off SCRUD 8 v 4 combats
#                        (bench/scrud-8v4.lua); campaign: campaign SCRUD 4
#                        v 4 combats in the campaign bench/campaign.sh makes
#                        (bench/campaign-4v4.lua); bare: bench-bare's fixed
#                        answer (bench/bare.c), the floor
#   BENCH_DURATION       wrk -d (10s)
#   BENCH_CONNECTIONS    wrk -c (32); the servers let that many in from
#                        one address (256 at least, as bench/run.sh)
#   BENCH_SERVER_THREADS the servers' worker threads (2, their default)
#   BENCH_PROFILE_FREQ   samples a second a CPU (999)
#   BENCH_PROFILE_KEEP=1 keeps perf.data (its path printed) for perf report
#
# Needs perf (Debian's linux-perf), wrk and curl; `./deploy/install-deps.sh
# --bench` installs them.  perf must be allowed to see the kernel: run as
# root, or with sysctl kernel.perf_event_paranoid at 1 or below.
set -u

BUILD=${1:-build}
PROFILE=${BENCH_PROFILE:-oneoff}
DURATION=${BENCH_DURATION:-10s}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
FREQ=${BENCH_PROFILE_FREQ:-999}
KEEP=${BENCH_PROFILE_KEEP:-0}
HERE=$(cd "$(dirname "$0")" && pwd)

die() {
    echo "bench-profile: $*" >&2
    exit 2
}
command -v perf >/dev/null 2>&1 ||
    die "perf is not installed (./deploy/install-deps.sh --bench installs it)"
command -v wrk >/dev/null 2>&1 ||
    die "wrk is not installed (./deploy/install-deps.sh --bench installs it)"
command -v curl >/dev/null 2>&1 || die "curl is not installed"
case $PROFILE in
oneoff | campaign) SERVER="$BUILD/umpire" ;;
bare) SERVER="$BUILD/bench-bare" ;;
*) die "BENCH_PROFILE must be oneoff, campaign or bare" ;;
esac
[ -x "$SERVER" ] || die "$SERVER is missing: make $SERVER"
case $CONNECTIONS in '' | *[!0-9]* | 0) die "BENCH_CONNECTIONS must be a number, 1 or more" ;; esac
THREADS=${BENCH_SERVER_THREADS:-2}
case $THREADS in '' | *[!0-9]* | 0) die "BENCH_SERVER_THREADS must be a number, 1 or more" ;; esac
PER_IP=256
[ "$CONNECTIONS" -le "$PER_IP" ] || PER_IP=$CONNECTIONS
case $FREQ in '' | *[!0-9]* | 0) die "BENCH_PROFILE_FREQ must be a number, 1 or more" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/umpire-profile.XXXXXX") || die "mktemp failed"
PERF_PID=""
WRK_PID=""
# perf, stopped, stops the server it runs (SIGTERM, then waits for it).
cleanup() {
    [ -n "$WRK_PID" ] && kill "$WRK_PID" 2>/dev/null
    [ -n "$PERF_PID" ] && kill -INT "$PERF_PID" 2>/dev/null
    [ -n "$PERF_PID" ] && wait "$PERF_PID" 2>/dev/null
    if [ "$KEEP" = 1 ]; then
        echo "perf.data kept in $TMP"
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT

# A free port: the kernel's pick for a socket bound to port 0.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null) ||
    die "python3 is needed to find a free port"

if [ "$PROFILE" = bare ]; then
    cmd=("$SERVER" "$PORT" "$THREADS" "$PER_IP")
else
    cmd=("$SERVER" --listen 127.0.0.1 --port "$PORT" --db "$TMP/profile.db"
        --access-log off --threads "$THREADS" --per-ip-connection-limit "$PER_IP")
fi
perf record -F "$FREQ" -e cpu-clock -g -o "$TMP/perf.data" -- "${cmd[@]}" \
    >"$TMP/server.log" 2>&1 &
PERF_PID=$!
is_up=0
for _ in $(seq 100); do
    if curl -s --max-time 1 -o /dev/null "http://127.0.0.1:$PORT/health"; then
        is_up=1
        break
    fi
    kill -0 "$PERF_PID" 2>/dev/null || die "the server did not start: $(tail -3 "$TMP/server.log")"
    sleep 0.1
done
[ "$is_up" = 1 ] || die "the server did not answer /health in 10 s: $(tail -3 "$TMP/server.log")"

case $PROFILE in
oneoff)
    what="one-off SCRUD 8 v 4"
    wrk_args=(-s "$HERE/scrud-8v4.lua" "http://127.0.0.1:$PORT") ;;
campaign)
    what="campaign SCRUD 4 v 4"
    read -r id token < <("$HERE/campaign.sh" "$PORT") ||
        die "bench/campaign.sh could not set up the campaign"
    wrk_args=(-s "$HERE/campaign-4v4.lua" "http://127.0.0.1:$PORT" -- "$id" "$token") ;;
bare)
    what="the bare handler's fixed answer"
    wrk_args=("http://127.0.0.1:$PORT/") ;;
esac
echo "umpire bench-profile: $what, $THREADS worker threads," \
    "wrk -t1 -c$CONNECTIONS -d$DURATION, perf record -F $FREQ -e cpu-clock -g"
wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "${wrk_args[@]}" >"$TMP/wrk.out" 2>&1 &
WRK_PID=$!
wait "$WRK_PID" || die "wrk failed: $(tail -3 "$TMP/wrk.out")"
WRK_PID=""
awk '/^Requests\/sec/ { printf "requests/s under perf: %s\n", $2 }
     /^non-2/ { print }' "$TMP/wrk.out"
kill -INT "$PERF_PID" 2>/dev/null
wait "$PERF_PID" 2>/dev/null
PERF_PID=""

# Each sample: a line "COMM TID", then its frames (each a line that starts
# with a tab), leaf first, each "ADDRESS SYMBOL (DSO)".  Its place: the
# leaf's DSO.  A kernel sample's cause: the system call the syscall entry
# (do_syscall_64) called, the frame under it named *sys_* (without its
# __x64_sys_ or __sys_ prefix), or "(entry and exit)" where that frame is
# the entry's own work; else a page fault (exc_page_fault on the stack);
# else other.
perf script -i "$TMP/perf.data" -F comm,tid,ip,sym,dso 2>/dev/null | awk '
# The largest of row (at most most of them, each least % of total or
# more), largest first, each as fmt (its key, its %), then a newline; row
# is emptied of them.
function print_top(row, total, most, least, fmt,    shown, top, w) {
    for (shown = 0; shown < most; shown++) {
        top = ""; for (w in row) if (top == "" || row[w] > row[top]) top = w
        if (top == "" || 100 * row[top] / total < least) break
        printf fmt, top, 100 * row[top] / total
        delete row[top]
    }
    printf "\n"
}
function flush() {
    if (thread == "") return
    n[thread]++; total++
    where[thread SUBSEP place]++
    if (place == "kernel") {
        k[thread]++
        if (call == "" && fault) call = "(page faults)"
        sys[thread SUBSEP (call == "" ? "(other)" : call)]++
    }
    thread = ""
}
/^[^\t]/ && NF {
    flush()
    thread = $1; frame = 0; place = ""; call = ""; below = ""; fault = 0
    next
}
NF >= 2 && thread != "" {
    frame++
    dso = $NF; gsub(/[()]/, "", dso); sub(/.*\//, "", dso)
    if (frame == 1) {
        if (dso ~ /kernel/) place = "kernel"
        else { place = dso; sub(/\.so.*/, "", place); sub(/^lib/, "", place) }
    }
    if (place == "kernel" && call == "") {
        if ($2 == "do_syscall_64") {
            call = below
            if (call !~ /sys_/) call = "(entry and exit)"
            sub(/^_*(x64_|ia32_|do_|se_|k)?sys_/, "", call)
        } else if ($2 == "exc_page_fault")
            fault = 1
        if ($2 != "x64_sys_call") below = $2 # not the dispatcher
    }
}
END {
    flush()
    if (total == 0) { print "no samples (is perf allowed to record?)"; exit 1 }
    printf "%d samples\n\nby thread, and where its CPU time went (%% of the thread):\n", total
    for (t in n) order[t] = n[t]
    while (length(order) > 0) {
        best = ""; for (t in order) if (best == "" || order[t] > order[best]) best = t
        delete order[best]
        printf "  %-14s %5.1f%% of the server:", best, 100 * n[best] / total
        delete row
        for (key in where) { split(key, p, SUBSEP); if (p[1] == best) row[p[2]] = where[key] }
        print_top(row, n[best], 8, 0.5, " %s %.1f%%")
        if (k[best] > 0) {
            printf "  %-14s         its kernel time (%.1f%% of the thread) went to:", "", 100 * k[best] / n[best]
            delete row
            for (key in sys) { split(key, p, SUBSEP); if (p[1] == best) row[p[2]] = sys[key] }
            print_top(row, k[best], 6, 1, " %s %.0f%%")
        }
    }
}'
