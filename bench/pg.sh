#!/usr/bin/env bash
# bench/pg.sh: combats per second on PostgreSQL with 1, 2 and 4 instances,
# beside SQLite, in one run (`make bench-pg`; bench/README.md).
#
#   bench/pg.sh [BUILD_DIR]          (default: build)
#
# Starts a throw-away PostgreSQL cluster (tests/pg/cluster.sh) as durable
# as the SQLite store (fsync and synchronous_commit on, the defaults), then
# measures, one setting after another:
#
#   sqlite   one instance on a fresh SQLite file;
#   pg-N     N instances (1, 2, 4) on one fresh PostgreSQL database;
#
# each loaded by wrk for PG_BENCH_DURATION after a warm-up, with
# PG_BENCH_CONNECTIONS keep-alive connections shared out among the
# instances (one wrk per instance, run at once; their rates are summed):
#
#   one-off    SCRUD 8 v 4 one-off combats (bench/scrud-8v4.lua);
#   campaign   SCRUD 4 v 4 campaign combats (bench/campaign-4v4.lua),
#              each instance's wrk in a campaign of its own
#              (bench/campaign.sh: units that never wear out).  The combats
#              of one campaign go one at a time, whichever instance takes
#              them; those of different campaigns do not wait for each
#              other.  With PG_BENCH_SHARED=1, every instance's wrk in
#              the one campaign instead (the first instance's): one busy
#              campaign served by several instances, each landing between
#              the others' combats.
#
# Prints combats/s and p99 latency of each, and exits 1 if any request was
# answered other than 201.  Every process shares this machine's cores:
# PostgreSQL, the instances and wrk; on a machine of 2 cores the instances
# add concurrency, not cores.
#
# Settings (environment):
#   PG_BENCH_DURATION      measured run, wrk -d         (10s)
#   PG_BENCH_WARMUP        warm-up run                  (2s)
#   PG_BENCH_CONNECTIONS   connections in all, wrk -c   (32)
#   PG_BENCH_INSTANCES     the pg-N settings            ("1 2 4")
#   PG_BENCH_THREADS       worker threads per instance  (2)
#   PG_BENCH_SHARED=1      the campaign load in one campaign shared by
#                          the instances (default 0: one each)
set -euo pipefail

BUILD=${1:-build}
DURATION=${PG_BENCH_DURATION:-10s}
WARMUP=${PG_BENCH_WARMUP:-2s}
CONNECTIONS=${PG_BENCH_CONNECTIONS:-32}
INSTANCES=${PG_BENCH_INSTANCES:-1 2 4}
THREADS=${PG_BENCH_THREADS:-2}
SHARED=${PG_BENCH_SHARED:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
case $BUILD in
/*) UMPIRE=$BUILD/umpire ;;
*) UMPIRE=$ROOT/$BUILD/umpire ;;
esac

die() {
    echo "bench/pg.sh: $*" >&2
    exit 2
}
command -v wrk >/dev/null 2>&1 ||
    die "wrk is not installed (./deploy/install-deps.sh --bench installs it)"
command -v psql >/dev/null 2>&1 || die "psql is not installed"
[ -x "$UMPIRE" ] || die "$UMPIRE is missing: make $BUILD/umpire"

# shellcheck source=tests/pg/cluster.sh
. "$ROOT/tests/pg/cluster.sh"
# shellcheck source=tests/lib.sh
. "$ROOT/tests/lib.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/umpire-bench-pg.XXXXXX")
chmod 755 "$TMP"
mkdir "$TMP/pg"
PIDS=()
stop_all() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    PIDS=()
}
cleanup() {
    stop_all
    pg_cluster_stop "$TMP/pg"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pg_cluster_start "$TMP/pg" >/dev/null || die "no PostgreSQL cluster"

# start_instance DB: one more instance on DB; its port appended to PORTS.
PORTS=()
start_instance() {
    umpire_start "$UMPIRE" "$TMP/umpire.${#PIDS[@]}.log" --db "$1" \
        --threads "$THREADS" || die "an instance did not start: $UMPIRE_WHY"
    PIDS+=("$UMPIRE_PID")
    PORTS+=("${UMPIRE_BASE##*:}")
}

# load NAME KIND DURATION: one wrk per instance at once, the connections
# shared out; "RPS P99_MS NON201" of them all into $TMP/NAME.sum.
load() {
    local name=$1 kind=$2 dur=$3 n=${#PORTS[@]} i c pids=()
    for ((i = 0; i < n; i++)); do
        c=$((CONNECTIONS / n))
        if [ "$kind" = oneoff ]; then
            wrk -t1 -c"$c" -d"$dur" --latency -s "$HERE/scrud-8v4.lua" \
                "http://127.0.0.1:${PORTS[$i]}/v1/combats/scrud" \
                >"$TMP/$name.$i" 2>&1 &
        else
            wrk -t1 -c"$c" -d"$dur" --latency -s "$HERE/campaign-4v4.lua" \
                "http://127.0.0.1:${PORTS[$i]}/" -- ${CAMPAIGNS[$i]} \
                >"$TMP/$name.$i" 2>&1 &
        fi
        pids+=($!)
    done
    wait "${pids[@]}"
    cat "$TMP/$name".[0-9]* | awk '
        function ms(v) {
            if (v ~ /us$/) return v / 1000
            if (v ~ /ms$/) return v + 0
            if (v ~ /s$/)  return v * 1000
            return v
        }
        /^Requests\/sec:/ { rps += $2 }
        /^ +99% / { v = ms($2); if (v > p99) p99 = v }
        /Non-2xx or 3xx responses:/ { bad += $5 }
        /^non-201 responses:/ { bad += $3 }
        END { printf "%.0f %.2f %d\n", rps, p99, bad }' >"$TMP/$name.sum"
}

# setting NAME DB N: N instances on DB, a campaign each, both loads.
RESULTS=()
setting() {
    local name=$1 db=$2 n=$3 i kind r
    PORTS=()
    CAMPAIGNS=()
    for ((i = 0; i < n; i++)); do
        start_instance "$db"
    done
    for ((i = 0; i < n; i++)); do
        if [ "$SHARED" = 1 ] && [ "$i" -gt 0 ]; then
            CAMPAIGNS+=("${CAMPAIGNS[0]}")
            continue
        fi
        CAMPAIGNS+=("$("$HERE/campaign.sh" "${PORTS[$i]}")") ||
            die "cannot set up a campaign"
    done
    for kind in oneoff campaign; do
        [ "$WARMUP" = 0 ] || load "$name-$kind-warm" "$kind" "$WARMUP"
        load "$name-$kind" "$kind" "$DURATION"
        read -r rps p99 bad <"$TMP/$name-$kind.sum"
        [ "$bad" = 0 ] || {
            cat "$TMP/$name-$kind".[0-9]* >&2
            echo "bench/pg.sh: $name $kind: $bad answers not 201" >&2
            exit 1
        }
        r=$(printf '%-8s %-9s %9s %9s' "$name" "$kind" "$rps" "$p99")
        RESULTS+=("$r")
        echo "$r"
    done
    stop_all
}

echo "bench/pg.sh: $CONNECTIONS connections, ${DURATION} each, $THREADS worker threads per instance, $(nproc) CPUs"
printf '%-8s %-9s %9s %9s\n' setting combats combat/s p99_ms
setting sqlite "$TMP/bench.db" 1
for n in $INSTANCES; do
    db=bench_$n
    psql "$PG_ADMIN_URL" -qXc "CREATE DATABASE $db OWNER umpire \
        TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'" >/dev/null
    setting "pg-$n" "postgresql://umpire@127.0.0.1:$PG_PORT/$db" "$n"
done
