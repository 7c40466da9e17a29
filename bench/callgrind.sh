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
# Then twice more (unless BENCH_COST_LOADED=0), with C campaigns (C =
# BENCH_COST_CLIENTS) set up one after the other by bench/campaign.sh, each
# with its own id and token:
#   idle-loaded  start, set up the C campaigns, stop: the loaded run's baseline;
#   loaded       the same, then C curls at once, each sending its share of N
#                (N / C, the first N % C one more) campaign combats to its
#                own campaign over its own kept-alive connection.
# Combats of several clients queued while the writer is busy share its next
# batch, so one commit (group commit) covers several of them: the writer's
# work under load.  No combat finds another of its campaign in flight, so
# every one is staged, as in the campaign run.  Every answer must be a 201.
# Batch sizes depend on how valgrind schedules the threads, so the loaded
# figures move more between runs than the others.
#
# Prints, per combat: instructions of the whole server (every thread) minus
# the idle run's, divided by N; the same for the writer thread alone (the
# thread whose profile holds writer_main); and the database's growth in
# bytes (main file after a TRUNCATE checkpoint, minus the idle run's),
# against the targets of issue 17, each marked met or not met.  Then the
# campaign combat's growth by table and index (SQLite's dbstat).  Then the
# loaded run's, minus idle-loaded's, divided by N: whole server, writer
# thread, and commits per combat (the writer's calls of db_run_batch, one
# per committed batch, minus idle-loaded's; see batches below).
#
# Settings (environment):
#   N                     combats per run (2000)
#   BENCH_COST_LOADED=0   skips the idle-loaded and loaded runs (default 1)
#   BENCH_COST_CLIENTS    C, clients (and campaigns) of the loaded run (8)
#   BENCH_COST_KEEP=1     keeps the profiles (path printed) for callgrind_annotate
#   BENCH_WEAR=1          campaigns whose units wear (bench/campaign.sh): every
#                         combat writes most of its units; N under 90
set -u

BUILD=${1:-build}
N=${N:-2000}
KEEP=${BENCH_COST_KEEP:-0}
LOADED=${BENCH_COST_LOADED:-1}
CLIENTS=${BENCH_COST_CLIENTS:-8}
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
if [ "${BENCH_WEAR:-0}" = 1 ] && [ "$N" -ge 90 ]; then
    die "with BENCH_WEAR=1, N must be under 90 (units are lost after about 90 combats)"
fi
case $LOADED in 0 | 1) ;; *) die "BENCH_COST_LOADED must be 0 or 1" ;; esac
case $CLIENTS in '' | *[!0-9]* | 0) die "BENCH_COST_CLIENTS must be a number, 1 or more" ;; esac
if [ "$LOADED" = 1 ] && [ "$CLIENTS" -gt "$N" ]; then
    die "BENCH_COST_CLIENTS ($CLIENTS) must be N ($N) or less"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/umpire-cost.XXXXXX") || die "mktemp failed"
PID=""
CURLS=() # the loaded run's curls while they run
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    local p
    for p in "${CURLS[@]}"; do kill -TERM "$p" 2>/dev/null; done
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
# (the script's first body: its seeded combat)
sed -n '/^{"sides":\[/,/^\]\])/{p;/^\]\])/q;}' "$HERE/campaign-4v4.lua" | sed '$d' >"$TMP/campaign.json"
if [ ! -s "$TMP/oneoff.json" ] || [ ! -s "$TMP/campaign.json" ]; then
    die "cannot read the request bodies from the wrk scripts"
fi

# curl_cfg FILE URL TOKEN BODY COUNT: a curl config sending the POST COUNT
# times: one curl, the same URL again and again, one connection kept alive;
# curl prints each answer's status on a line of its own.
curl_cfg() {
    {
        echo 'silent'
        echo 'request = "POST"'
        echo 'header = "Content-Type: application/json"'
        echo "header = \"Authorization: Bearer $3\""
        echo "data-binary = \"@$4\""
        printf '%s\n' 'write-out = "%{http_code}\n"'
        for _ in $(seq "$5"); do
            echo "url = \"$2\""
            echo 'output = "/dev/null"'
        done
    } >"$1"
}

# profile NAME: one run under callgrind; leaves $TMP/NAME/ with the profiles,
# the database and codes (the status of every combat's answer).
profile() {
    local name=$1 dir="$TMP/$1" port id token i n_camp=1 share
    local -a ids=() tokens=() pids=()
    case $name in idle-loaded | loaded) n_camp=$CLIENTS ;; esac
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
    # The campaigns, one after the other: the same set-up in a run and in
    # its idle baseline.
    for i in $(seq "$n_camp"); do
        id="" token=""
        read -r id token < <("$HERE/campaign.sh" "$port")
        [ -n "${token:-}" ] || die "cannot set up campaign $i"
        ids+=("$id")
        tokens+=("$token")
    done
    case $name in
    oneoff)
        curl_cfg "$dir/curl.cfg" "http://127.0.0.1:$port/v1/combats/scrud" \
            "${tokens[0]}" "$TMP/oneoff.json" "$N"
        ;;
    campaign)
        curl_cfg "$dir/curl.cfg" \
            "http://127.0.0.1:$port/v1/campaigns/${ids[0]}/combats/scrud" \
            "${tokens[0]}" "$TMP/campaign.json" "$N"
        ;;
    loaded)
        # Client i (0 ..) sends N / C combats, and one more while i < N % C.
        for i in $(seq 0 $((CLIENTS - 1))); do
            share=$((N / CLIENTS + (i < N % CLIENTS ? 1 : 0)))
            curl_cfg "$dir/curl.$i.cfg" \
                "http://127.0.0.1:$port/v1/campaigns/${ids[i]}/combats/scrud" \
                "${tokens[i]}" "$TMP/campaign.json" "$share"
        done
        ;;
    esac
    case $name in
    oneoff | campaign)
        curl -K "$dir/curl.cfg" >"$dir/codes" 2>&1
        ;;
    loaded)
        # Every config written first, then the C curls started at once.
        for i in $(seq 0 $((CLIENTS - 1))); do
            curl -K "$dir/curl.$i.cfg" >"$dir/codes.$i" 2>&1 &
            pids+=($!)
        done
        CURLS=("${pids[@]}")
        for i in "${pids[@]}"; do wait "$i"; done
        CURLS=()
        cat "$dir"/codes.* >"$dir/codes"
        ;;
    esac
    if [ "${name#idle}" = "$name" ] && [ "$(grep -c '^201$' "$dir/codes")" != "$N" ]; then
        sort "$dir/codes" | uniq -c | head -c 2000 >&2
        die "$name: not every combat was answered 201"
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
writer_file() {
    local f
    f=$(grep -l 'writer_main' "$1"/callgrind.out.* | head -n 1)
    [ -n "$f" ] || die "no writer thread in $1"
    echo "$f"
}
writer() {
    awk '/^summary:/ { s += $2 } END { print s + 0 }' "$(writer_file "$1")"
}
# batches DIR: the writer thread's calls of db_run_batch (db/db.c), the sum
# of the calls= lines under each cfn= naming it in its profile (names are
# compressed: "(7) name" the first time, "(7)" after).  On SQLite, one call
# is one commit: writer_main calls db_run_batch once per batch taken off the
# queue; db_run_batch opens one BEGIN IMMEDIATE, runs every job of the batch
# under a savepoint, and end_batch ends it with one COMMIT when a job
# succeeded (a batch whose jobs all failed, or a failed COMMIT, is rolled
# back: no commit).  Every answer here is a 201, so every batch committed.
# The migrations commit on the main thread (db_open), outside this count.
batches() {
    awk '
    /^c?fn=/ {
        v = $0
        sub(/^c?fn=/, "", v)
        if (match(v, /^\([0-9]+\)/)) {
            k = substr(v, 1, RLENGTH)
            v = substr(v, RLENGTH + 1)
            sub(/^ /, "", v)
            if (v != "")
                name[k] = v
            else
                v = name[k]
        }
        if ($0 ~ /^cfn=/)
            callee = v
        else
            callee = ""
        next
    }
    /^calls=/ && callee == "db_run_batch" {
        split($0, a, /[= ]/)
        n += a[2]
    }
    END { print n + 0 }' "$(writer_file "$1")"
}
dbsize() { stat -c %s "$1/cost.db"; }

RUNS="idle oneoff campaign"
[ "$LOADED" = 1 ] && RUNS="$RUNS idle-loaded loaded"
echo "umpire bench-cost: $UMPIRE_BIN under callgrind, $N combats per run, one at a time over one connection$(
    [ "$LOADED" = 1 ] && echo " (loaded: $CLIENTS at once)")"
for run in $RUNS; do
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

# Where a campaign combat's bytes go: each table's and index's pages
# (SQLite's dbstat), the campaign run's minus the idle run's, per combat,
# largest first, with the bytes of their rows (payload: the rest is page
# room left unused and the b-tree's own).
tables() { # tables DIR: name|pages' bytes|payload, one line per b-tree
    sqlite3 "$1/cost.db" "SELECT name, sum(pgsize), sum(payload) FROM dbstat GROUP BY name;" ||
        die "cannot read $1/cost.db's pages (dbstat)"
}
echo
echo "campaign combat, database growth by table and index (bytes per combat: pages, and rows' bytes in them):"
awk -F'|' -v n="$N" '
    NR == FNR { pg[$1] = $2; pl[$1] = $3; next }
    { d = $2 - pg[$1]; if (d > 0) printf "  %-32s %8.0f %8.0f\n", $1, d / n, ($3 - pl[$1]) / n }' \
    <(tables "$TMP/idle") <(tables "$TMP/campaign") | sort -k2,2nr

if [ "$LOADED" = 1 ]; then
    I_IDLE_L=$(total "$TMP/idle-loaded")
    W_IDLE_L=$(writer "$TMP/idle-loaded")
    LOAD=$(per "$(total "$TMP/loaded")" "$I_IDLE_L")
    LOAD_W=$(per "$(writer "$TMP/loaded")" "$W_IDLE_L")
    COMMITS=$(($(batches "$TMP/loaded") - $(batches "$TMP/idle-loaded")))
    # The same count for the sequential campaign run: one commit per combat.
    COMMITS_SEQ=$(($(batches "$TMP/campaign") - $(batches "$TMP/idle")))
    echo
    echo "loaded ($CLIENTS clients, each in its own campaign, at once): campaign combat:" \
        "server-side $LOAD instructions, writer thread $LOAD_W," \
        "commits $(awk -v c="$COMMITS" -v n="$N" 'BEGIN { printf "%.3f", c / n }') per combat" \
        "(batches of about $(awk -v c="$COMMITS" -v n="$N" 'BEGIN { printf "%.1f", c ? n / c : 0 }') combats:" \
        "$COMMITS commits for $N; the campaign run's: $COMMITS_SEQ)"
    echo "  idle-loaded baseline ($CLIENTS campaigns set up): $I_IDLE_L instructions, writer $W_IDLE_L"
fi
