#!/usr/bin/env bash
# bench/cores.sh: throughput against worker threads, behind `make
# bench-cores` (bench/README.md, "Cores").
#
#   bench/cores.sh [BUILD_DIR]          (default: build)
#
# Runs bench/run.sh once (one round, no campaign) per thread count, 1, 2, 4,
# ... up to the machine's CPUs (and the CPU count itself when it is not a
# power of two): the bare handler and umpire both with that many worker
# threads, loaded by the same wrk command in the same run.  Prints one line
# per thread count: bare requests/s, one-off SCRUD 8 v 4 combats/s, their
# ratio, and how busy umpire's writer thread and (on average) its request
# workers were during the combat run (CPU time / wall time).  On a machine
# of 8 CPUs or more the servers and wrk are kept apart: with t threads both
# servers are pinned to CPUs 0..t-1, and wrk (BENCH_WRK_THREADS, a quarter
# of the CPUs; BENCH_CONNECTIONS, 128) to the upper half, so thread counts
# go up to half the CPUs.  On a smaller machine wrk runs on the same CPUs,
# and the figures show the trend at best.  BENCH_DURATION (5s) and
# BENCH_WARMUP (2s) are passed on, as are run.sh's other settings.
set -u

BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
CPUS=$(nproc)
export BENCH_DURATION=${BENCH_DURATION:-5s}
export BENCH_WARMUP=${BENCH_WARMUP:-2s}
export BENCH_ROUNDS=1 BENCH_CAMPAIGN=0

MAX=$CPUS
if [ "$CPUS" -ge 8 ]; then
    MAX=$((CPUS / 2))
    export BENCH_WRK_CPUS="$MAX-$((CPUS - 1))"
    export BENCH_WRK_THREADS=${BENCH_WRK_THREADS:-$((CPUS / 4))}
    export BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-128}
fi
counts=""
t=1
while [ "$t" -lt "$MAX" ]; do
    counts="$counts $t"
    t=$((t * 2))
done
counts="$counts $MAX"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/umpire-cores.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT

echo "umpire bench-cores: $CPUS CPUs, threads:$counts; each: bench/run.sh, one round," \
    "wrk -t${BENCH_WRK_THREADS:-1} -c${BENCH_CONNECTIONS:-64} -d$BENCH_DURATION after a -d$BENCH_WARMUP warm-up" \
    "${BENCH_WRK_CPUS:+(wrk on CPUs $BENCH_WRK_CPUS, the servers on CPUs 0..threads-1)}"
printf '%8s %14s %14s %8s %8s %8s\n' "threads" "bare req/s" "combat req/s" "ratio" \
    "writer" "workers"
status=0
for t in $counts; do
    pinned=""
    [ "$CPUS" -lt 8 ] || pinned="0-$((t - 1))"
    BENCH_SERVER_THREADS=$t BENCH_SERVER_CPUS=$pinned \
        "$HERE/run.sh" "$BUILD" >"$TMP/run-$t.out" 2>&1
    rc=$?
    bare=$(awk '/^1: bare/ { print $(NF - 5) }' "$TMP/run-$t.out")
    combat=$(awk '/^1: combat/ { print $(NF - 5) }' "$TMP/run-$t.out")
    if [ -z "$bare" ] || [ -z "$combat" ] || [ "$rc" -ge 2 ] ||
        grep -q '^ERROR' "$TMP/run-$t.out"; then
        echo "threads $t: the run failed (exit $rc):"
        sed 's/^/  /' "$TMP/run-$t.out"
        status=1
        continue
    fi
    # How busy umpire's writer and (on average) its workers were during
    # the combat run (run.sh's thread shares); "-" where not measured.
    writer=$(awk '$1 == "1:" && $2 == "combat" && $3 == "writer" {
                      sub(",", "", $4); print $4 }' "$TMP/run-$t.out")
    workers=$(awk '$1 == "1:" && $2 == "combat" && $3 == "writer" {
                       print $6 }' "$TMP/run-$t.out")
    printf '%8s %14s %14s %8s %8s %8s\n' "$t" "$bare" "$combat" \
        "$(awk -v c="$combat" -v b="$bare" 'BEGIN { printf "%.4f", (b > 0 ? c / b : 0) }')" \
        "${writer:--}" "${workers:--}"
done
exit $status
