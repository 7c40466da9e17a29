#!/usr/bin/env bash
# failover.sh: the PostgreSQL primary dies under load; umpire goes on on
# the standby and loses nothing it acknowledged.
#
#   tests/pg/failover.sh [BUILD]     BUILD is the build folder (default build)
#   tests/pg/failover.sh --psql      the same failover, with psql as the
#                                    client instead of umpire
#
# Run by hand (it takes a minute or two, and installs packages).  It
# builds, in a scratch folder, a pg_auto_failover formation on this
# machine: a monitor and two PostgreSQL 15 nodes on free local ports
# (deploy/postgresql.md, "Failover"), runs `pg_autoctl run` for each in
# the background, waits until the monitor shows one primary and one
# secondary, and creates the role and database umpire on the primary, in
# the C collation.  Then:
#
#   1. starts $BUILD/umpire (port 0, --access-log off) on the multi-host
#      URL postgresql://umpire@127.0.0.1:P1,127.0.0.1:P2/umpire?
#      target_session_attrs=read-write&connect_timeout=2, after `umpire
#      migrate`, and sets up a campaign of units that never wear out
#      (bench/campaign.sh);
#   2. puts it under load: CLIENTS concurrent clients, each sending one
#      combat POST after another (the six kinds of tests/durability.sh),
#      each with an Idempotency-Key of its own and a connection of its own.
#      A combat not answered 201 (503: the failover cut its transaction;
#      409: its key is still in flight; no answer) is sent again with the
#      same key, as a bot does (docs/dice.md, "Idempotent rolls"), until it
#      is acknowledged.  Every try is written down with its times;
#   3. once MIN_ACKS combats are acknowledged and LOAD_SECONDS have passed,
#      kills the primary as a crash would: kill -9 of its pg_autoctl
#      keeper, its postmaster and every process of that postmaster, so
#      that the monitor, not the node, decides what happens next;
#   4. waits for the first combat acknowledged by a try sent after the
#      kill, prints the seconds from the kill to it, and fails when they
#      pass FAILOVER_BOUND; lets the load run AFTER_SECONDS more, stops it
#      (each client finishes the combat it is sending), and checks, with
#      the same umpire process, which reconnected by itself:
#        - no answer but 201, 503 and 409 (and none at all) came;
#        - a key never named two combats;
#        - GET of every acknowledged combat's Location answers 200;
#        - the campaign's ledger verifies, holds at each acknowledged
#          combat's ledger.last_pos the hash its answer gave, and is
#          exactly as long as the dice of the acknowledged campaign
#          combats: nothing acknowledged was lost, nothing rolled twice.
#
# With --psql, steps 1 and 2 are psql clients inserting rows keyed as the
# combats are (`insert ... on conflict (key) do nothing`, each try a
# connection of its own over the same URL), and the check is that every
# acknowledged row is on the new primary.  It tests the formation, its
# timeouts and the URL without umpire.
#
# The monitor's timeouts are lowered from pg_auto_failover's defaults
# (with which a silent primary is replaced after about a minute) to the
# ones below; the keepers'
# network_partition_timeout stays under primary_demote_timeout, as the
# defaults keep it, so that a primary cut off from the monitor demotes
# itself before the standby is promoted.
#
# Needs root or sudo the first time (postgresql and
# postgresql-15-auto-failover are installed when missing; when they cannot
# be, it says so loudly and exits 77), and curl 7.84 or later and jq.
# As root, the formation runs as the system user umpire-test
# (tests/pg/cluster.sh).  Prints a line per step and one of verdict;
# exits 1 on failure.  FAILOVER_BOUND=S changes the bound;
# FAILOVER_KEEP=1 keeps the scratch folder (every try, every node's log)
# for a look after the run; DUMP_LINES=N shows more of the nodes' logs
# when the formation fails.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pg/cluster.sh
. "$ROOT/tests/pg/cluster.sh"
# shellcheck source=tests/lib.sh
. "$ROOT/tests/lib.sh"

MODE=umpire
if [ "${1:-}" = --psql ]; then
    MODE=psql
    shift
fi
BUILD=${1:-build}
case $BUILD in
/*) BUILD_ABS=$BUILD ;;
*) BUILD_ABS=$ROOT/$BUILD ;;
esac

CLIENTS=6            # one per kind of combat (tests/durability.sh)
MIN_ACKS=50          # acknowledged before the kill
LOAD_SECONDS=3       # of load at least before the kill
AFTER_SECONDS=3      # of load after the first acknowledgement after it
TRY_PAUSE=0.2        # between two tries of one combat
COMBAT_DEADLINE=90   # seconds a client keeps retrying one combat
FORMATION_TIMEOUT=120
# Seconds from the kill to the first acknowledgement after it.  With the
# timeouts below the formation fails over in 6 to 7 s (measured with
# --psql: the monitor notices within 2 s, waits primary_demote_timeout,
# and the standby is promoted within a second); umpire's reconnection
# adds at most one connect_timeout per host.  The bound is about three
# times that, for a busy machine.
FAILOVER_BOUND=${FAILOVER_BOUND:-20}

# The monitor's failure detection (documented in pg_autoctl's
# configuration reference): a health check every second, 1 s to answer,
# one retry 0.5 s later; a node silent for 2 s with failed checks is
# unhealthy; the standby is promoted 4 s after the primary was told to
# demote, however silent it stays.
MONITOR_SETTINGS="
ALTER SYSTEM SET pgautofailover.health_check_period = 1000;
ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000;
ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1;
ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500;
ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 2000;
ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 4000;
SELECT pg_reload_conf();
"
# Each keeper's: a primary that reaches neither the monitor nor its
# standby for this long demotes itself (below primary_demote_timeout).
NETWORK_PARTITION_TIMEOUT=2

die() {
    echo "failover: FAILED: $*" >&2
    exit 1
}
say() {
    echo "failover: $*"
}

for tool in jq curl; do
    command -v "$tool" >/dev/null 2>&1 || die "needs $tool (apt-get install curl jq)"
done
if [ "$MODE" = umpire ]; then
    [ -x "$BUILD_ABS/umpire" ] || die "no $BUILD_ABS/umpire: build it first"
    CURL_VERSION=$(curl --version | awk 'NR == 1 { print $2 }')
    [ "$(printf '%s\n' 7.84.0 "$CURL_VERSION" | sort -V | head -n 1)" = 7.84.0 ] ||
        die "needs curl 7.84 or later, not $CURL_VERSION"
fi

# ---- PostgreSQL and pg_auto_failover, installed when missing.
if ! PG_BINDIR=$(pg_cluster_bindir); then
    pg_cluster_install postgresql || true
    PG_BINDIR=$(pg_cluster_bindir) || {
        pg_cluster_skip "no PostgreSQL server programs, and Debian's" \
            "postgresql could not be installed"
        exit "$PG_CLUSTER_SKIP"
    }
fi
PG_VERSION=$(basename "$(dirname "$PG_BINDIR")")
AUTOCTL=$(command -v pg_autoctl || echo "$PG_BINDIR/pg_autoctl")
if [ ! -x "$AUTOCTL" ] ||
    [ ! -f "/usr/share/postgresql/$PG_VERSION/extension/pgautofailover.control" ]; then
    pg_cluster_install "postgresql-$PG_VERSION-auto-failover" || true
    AUTOCTL=$(command -v pg_autoctl || echo "$PG_BINDIR/pg_autoctl")
    [ -x "$AUTOCTL" ] || {
        pg_cluster_skip "no pg_autoctl, and Debian's" \
            "postgresql-$PG_VERSION-auto-failover could not be installed"
        exit "$PG_CLUSTER_SKIP"
    }
fi
OS_USER=$(pg_cluster_os_user) || die "no system user to run PostgreSQL as"

# ---- the scratch folder, and everything started, stopped from the trap.
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/umpire-failover.XXXXXX")
pg_cluster_give "$SCRATCH" || die "cannot hand $SCRATCH to $OS_USER"
# Files the clients and this script write stay root's: a folder of their own.
WORK=$SCRATCH/work
mkdir "$WORK"
NODES=(monitor node1 node2)
declare -A NODE_PGID=() NODE_PORT=()
SERVER_PID=
CLIENT_PIDS=()

# kill_node NODE: kill -9 of the node's keeper (its process group: the
# pg_autoctl services and the postmaster they started) and of every
# process of its postmaster (which each lead a process group of their own,
# and would otherwise linger until they notice their postmaster is gone).
kill_node() {
    local node=$1 pm='' kids=
    pm=$(head -n 1 "$SCRATCH/$node/postmaster.pid" 2>/dev/null) || pm=
    if [ -n "$pm" ] && kill -0 "$pm" 2>/dev/null; then
        kids=$(ps -o pid= --ppid "$pm" 2>/dev/null | tr '\n' ' ') || kids=
    else
        pm=
    fi
    [ -z "${NODE_PGID[$node]:-}" ] || kill -KILL -- "-${NODE_PGID[$node]}" 2>/dev/null || true
    # shellcheck disable=SC2086
    [ -z "$pm" ] || kill -KILL $pm $kids 2>/dev/null || true
}

cleanup() {
    local node pid i
    touch "$WORK/stop" 2>/dev/null || true
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    for pid in "${CLIENT_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    # The keepers stop their postgres cleanly on SIGTERM (fast mode); what
    # is still there after 10 s is killed.
    for node in "${NODES[@]}"; do
        [ -z "${NODE_PGID[$node]:-}" ] || kill -TERM -- "-${NODE_PGID[$node]}" 2>/dev/null || true
    done
    for ((i = 0; i < 100; i++)); do
        pid=
        for node in "${NODES[@]}"; do
            if [ -n "${NODE_PGID[$node]:-}" ] && kill -0 -- "-${NODE_PGID[$node]}" 2>/dev/null; then
                pid=1
            fi
        done
        [ -n "$pid" ] || break
        sleep 0.1
    done
    for node in "${NODES[@]}"; do
        kill_node "$node"
    done
    if [ "${FAILOVER_KEEP:-0}" = 1 ]; then
        echo "failover: kept $SCRATCH (the clients' tries and the logs in work/)" >&2
    else
        rm -rf "$SCRATCH"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# autoctl ARGS...: pg_autoctl as the servers' user.  Its configuration
# and state go under the scratch folder (XDG_*: by default they would go
# to the user's home, which a system user has not).  PG_REGRESS_SOCK_DIR
# is how pg_autoctl is told where Postgres puts its Unix socket (it
# passes it as -k): the default, /var/run/postgresql, is the postgres
# user's alone.  PGHOST makes pg_autoctl reach its own node through that
# socket.  C.UTF-8: the clusters it initialises are UTF-8.
AS_OWNER=()
[ "$(id -u)" -ne 0 ] || AS_OWNER=(runuser -u "$OS_USER" --)
AUTOCTL_CMD=(env XDG_CONFIG_HOME="$SCRATCH/xdg/config" XDG_DATA_HOME="$SCRATCH/xdg/data"
    XDG_RUNTIME_DIR="$SCRATCH/xdg/run" PG_REGRESS_SOCK_DIR="$SCRATCH"
    PGHOST="$SCRATCH" LC_ALL=C.UTF-8 "$AUTOCTL")
autoctl() {
    (cd "$SCRATCH" && "${AS_OWNER[@]}" "${AUTOCTL_CMD[@]}" "$@")
}
# start_keeper NODE: `pg_autoctl run` for the node, in the background, in
# a session (so a process group) of its own, whose id is the background
# job's: the group kill_node kills.
start_keeper() {
    local node=$1
    (cd "$SCRATCH" && exec setsid "${AS_OWNER[@]}" "${AUTOCTL_CMD[@]}" \
        run --pgdata "$SCRATCH/$node") >>"$WORK/$node.log" 2>&1 </dev/null &
    NODE_PGID[$node]=$!
    # Killed on purpose, or by the cleanup: no job report from bash.
    disown "$!"
}
# superuser_psql PORT ARGS...: psql as the clusters' superuser (pg_autoctl
# runs initdb as the system user, who becomes it), over the Unix socket.
superuser_psql() {
    local port=$1
    shift
    "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$SCRATCH" -p "$port" -U "$OS_USER" "$@"
}
# state_json: the formation's nodes, as the monitor sees them.
state_json() {
    autoctl show state --pgdata "$SCRATCH/monitor" --json 2>/dev/null
}
# roles: "PORT CURRENT/ASSIGNED" of each node, sorted.
roles() {
    state_json | jq -r '.[] | "\(.nodeport) \(.current_group_state)/\(.assigned_group_state)"' |
        sort || true
}
dump_logs() {
    local node
    for node in "${NODES[@]}"; do
        echo "---- $node (last lines)" >&2
        tail -n "${DUMP_LINES:-15}" "$WORK/$node.log" >&2 2>/dev/null || true
    done
}

# ---- 1. the formation.
T0=$(date +%s)
for node in "${NODES[@]}"; do
    pg_cluster_free_port || die "no free port"
    NODE_PORT[$node]=$PG_CLUSTER_PORT
done
autoctl create monitor --pgdata "$SCRATCH/monitor" --pgport "${NODE_PORT[monitor]}" \
    --pgctl "$PG_BINDIR/pg_ctl" --hostname 127.0.0.1 --auth trust --no-ssl \
    >>"$WORK/monitor.log" 2>&1 || {
    dump_logs
    die "pg_autoctl create monitor failed"
}
start_keeper monitor
for _ in $(seq 100); do
    superuser_psql "${NODE_PORT[monitor]}" -d pg_auto_failover -c 'select 1' \
        >/dev/null 2>&1 && break
    sleep 0.2
done
MONITOR_URL="postgres://autoctl_node@127.0.0.1:${NODE_PORT[monitor]}/pg_auto_failover?sslmode=disable"

# The first node becomes the primary, the second its standby (a base
# backup of the first).  One at a time: the second must find a primary.
for node in node1 node2; do
    autoctl create postgres --pgdata "$SCRATCH/$node" --pgport "${NODE_PORT[$node]}" \
        --pgctl "$PG_BINDIR/pg_ctl" --hostname 127.0.0.1 --listen 127.0.0.1 \
        --name "$node" --monitor "$MONITOR_URL" --auth trust --no-ssl \
        >>"$WORK/$node.log" 2>&1 || {
        dump_logs
        die "pg_autoctl create postgres ($node) failed"
    }
    autoctl config set --pgdata "$SCRATCH/$node" \
        timeout.network_partition_timeout "$NETWORK_PARTITION_TIMEOUT" >/dev/null ||
        die "cannot set $node's network_partition_timeout"
    start_keeper "$node"
done
# wait_formation SECONDS: until the monitor shows node1 or node2 primary
# and the other secondary, both as assigned; sets PRIMARY and STANDBY.
wait_formation() {
    local deadline=$((SECONDS + $1)) now
    PRIMARY=
    while :; do
        now=$(roles)
        if [ "$now" = "$(sort <<<"${NODE_PORT[node1]} primary/primary
${NODE_PORT[node2]} secondary/secondary")" ]; then
            PRIMARY=node1 STANDBY=node2
            return 0
        fi
        if [ "$now" = "$(sort <<<"${NODE_PORT[node2]} primary/primary
${NODE_PORT[node1]} secondary/secondary")" ]; then
            PRIMARY=node2 STANDBY=node1
            return 0
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            autoctl show state --pgdata "$SCRATCH/monitor" >&2 || true
            dump_logs
            die "no primary and secondary in $1 s"
        fi
        sleep 0.5
    done
}
wait_formation "$FORMATION_TIMEOUT"
say "formation up in $(($(date +%s) - T0)) s: monitor on ${NODE_PORT[monitor]}," \
    "primary $PRIMARY on ${NODE_PORT[$PRIMARY]}, secondary $STANDBY on ${NODE_PORT[$STANDBY]}"

# The failover's timeouts, once the formation is up: lowered earlier,
# they can mark a node unhealthy while it is still being set up.
superuser_psql "${NODE_PORT[monitor]}" -d pg_auto_failover <<<"$MONITOR_SETTINGS" \
    >/dev/null || {
    dump_logs
    die "cannot set the monitor's timeouts"
}

# The role and the database, on the primary; the standby gets them by
# replication.  The C collation: see deploy/postgresql.md.
superuser_psql "${NODE_PORT[$PRIMARY]}" -d postgres >/dev/null <<'SQL' || die "cannot create the database umpire"
CREATE ROLE umpire LOGIN;
CREATE DATABASE umpire OWNER umpire TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C';
SQL
# Both nodes, the primary first; umpire never writes to a standby.
DB_URL="postgresql://umpire@127.0.0.1:${NODE_PORT[node1]},127.0.0.1:${NODE_PORT[node2]}/umpire?target_session_attrs=read-write&connect_timeout=2"

# ---- 2. the clients.  A combat (or, with --psql, a row) is sent again
# with its key until it is acknowledged.  Each try writes a line
#   @@ START_US END_US KEY STATUS EXIT LOCATION
# (umpire: the HTTP status, curl's exit code and the Location header;
# psql: 201 for a row inserted, else 0, psql's exit code and the key),
# after the body of a campaign combat answered 201, on a line of its own.
now_us() { echo "${EPOCHREALTIME//[^0-9]/}"; }

if [ "$MODE" = umpire ]; then
    say "umpire migrate, and umpire on $DB_URL"
    "$BUILD_ABS/umpire" migrate --db "$DB_URL" >"$WORK/migrate.log" 2>&1 || {
        cat "$WORK/migrate.log" >&2
        die "umpire migrate failed"
    }
    umpire_start "$BUILD_ABS/umpire" "$WORK/server.err" --db "$DB_URL" ||
        die "$UMPIRE_WHY"
    SERVER_PID=$UMPIRE_PID
    BASE=$UMPIRE_BASE
    read -r CAMPAIGN TOKEN < <("$ROOT/bench/campaign.sh" "${BASE##*:}") ||
        die "cannot set up the campaign"
    [ -n "$TOKEN" ] || die "cannot set up the campaign"
    AUTH="Authorization: Bearer $TOKEN"

    # The six kinds of tests/durability.sh (tests/lib.sh).
    combat_kinds "$CAMPAIGN" failover
else
    superuser_psql "${NODE_PORT[$PRIMARY]}" -d umpire -c \
        'SET ROLE umpire; CREATE TABLE probe (key text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())' \
        >/dev/null || die "cannot create the probe table"
    KIND_PATHS=(psql psql psql psql psql psql)
fi

# try KIND KEY BODYFILE: one try; prints "STATUS EXIT LOCATION".
try() {
    local kind=$1 key=$2 body=$3 hdr
    if [ "$MODE" = psql ]; then
        local rc=0
        "$PG_BINDIR/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$DB_URL" -c \
            "INSERT INTO probe (key) VALUES ('$key') ON CONFLICT (key) DO NOTHING" \
            >/dev/null 2>&1 || rc=$?
        if [ "$rc" -eq 0 ]; then echo "201 0 $key"; else echo "0 $rc -"; fi
        return
    fi
    hdr=(-H 'Content-Type: application/json' -H 'Connection: close'
        -H "Idempotency-Key: $key")
    is_campaign_kind "$kind" && hdr+=(-H "$AUTH")
    curl -s --connect-timeout 2 --max-time 20 -X POST "${hdr[@]}" \
        -d "${KIND_BODIES[$kind]}" -o "$body" \
        -w '%{http_code} %{exitcode} %header{location}' \
        "$BASE${KIND_PATHS[$kind]}" 2>/dev/null || true
}

# client KIND OUTFILE: combats until the stop file appears; the one being
# sent then is sent until acknowledged (or COMBAT_DEADLINE passes).
client() {
    local kind=$1 out=$2 n=0 key start end status code loc give_up_at body
    body=$WORK/body.$kind
    while [ ! -e "$WORK/stop" ]; do
        n=$((n + 1))
        key="failover-$$-$kind-$n"
        give_up_at=$((SECONDS + COMBAT_DEADLINE))
        while :; do
            : >"$body"
            start=$(now_us)
            read -r status code loc < <(try "$kind" "$key" "$body") || true
            end=$(now_us)
            if [ "${status:-0}" = 201 ] && is_campaign_kind "$kind" && [ "$code" = 0 ]; then
                tr -d '\n' <"$body" >>"$out"
                echo >>"$out"
            fi
            echo "@@ $start $end $key ${status:-0} ${code:-0} ${loc:--}" >>"$out"
            [ "${status:-0}" != 201 ] || break
            if [ "$SECONDS" -ge "$give_up_at" ]; then
                echo "@@ $end $end $key gave-up 0 -" >>"$out"
                break
            fi
            sleep "$TRY_PAUSE"
        done
    done
}

all_tries() { cat "$WORK"/client.* 2>/dev/null | grep '^@@ ' || true; }
n_acks() { all_tries | awk '$5 == 201' | wc -l; }

# ---- 3. load, and the kill.
rm -f "$WORK/stop"
for ((k = 0; k < CLIENTS; k++)); do
    : >"$WORK/client.$k"
    client "$k" "$WORK/client.$k" &
    CLIENT_PIDS+=($!)
done
load_start=$SECONDS
server_alive() {
    [ -z "$SERVER_PID" ] || kill -0 "$SERVER_PID" 2>/dev/null ||
        die "the server stopped under load (its log: $(tail -n 5 "$WORK/server.err"))"
}
until [ $((SECONDS - load_start)) -ge "$LOAD_SECONDS" ] && [ "$(n_acks)" -ge "$MIN_ACKS" ]; do
    [ $((SECONDS - load_start)) -lt 60 ] || die "only $(n_acks) acknowledged in 60 s" \
        "(at least $MIN_ACKS needed before the kill)"
    server_alive
    sleep 0.1
done

# Only a standby known in sync is promoted (pg_auto_failover keeps
# data over service): the kill waits for one.
wait_formation 60
ACKS_BEFORE=$(n_acks)
kill_node "$PRIMARY"
# Counted from here, when every process of the node is gone: a try sent
# before may still have been acknowledged by it.
KILL_US=$(now_us)
say "killed the primary ($PRIMARY, port ${NODE_PORT[$PRIMARY]}) after" \
    "$ACKS_BEFORE acknowledgements"

# ---- 4. the first acknowledgement of a try sent after the kill.
first_ack_after() {
    all_tries | awk -v k="$KILL_US" '$5 == 201 && $2 >= k && (!m || $3 < m) { m = $3 }
        END { if (m) print m }'
}
RECOVERED_US=
until [ -n "$RECOVERED_US" ]; do
    if [ $(($(now_us) - KILL_US)) -gt $(((FAILOVER_BOUND + 30) * 1000000)) ]; then
        autoctl show state --pgdata "$SCRATCH/monitor" >&2 || true
        dump_logs
        die "nothing acknowledged in $((FAILOVER_BOUND + 30)) s after the kill"
    fi
    server_alive
    sleep 0.1
    RECOVERED_US=$(first_ack_after)
done
FAILOVER_MS=$(((RECOVERED_US - KILL_US) / 1000))
FAILOVER_S=$(printf '%d.%01d' $((FAILOVER_MS / 1000)) $((FAILOVER_MS % 1000 / 100)))
say "first acknowledgement ${FAILOVER_S} s after the kill"
sleep "$AFTER_SECONDS"
touch "$WORK/stop"
for pid in "${CLIENT_PIDS[@]}"; do
    wait "$pid" || true
done
CLIENT_PIDS=()
server_alive
# The standby is the primary now (wait_primary: one with no standby).
deadline=$((SECONDS + 60))
until grep -q "^${NODE_PORT[$STANDBY]} .*primary/.*primary$" <<<"$(roles)"; do
    [ "$SECONDS" -lt "$deadline" ] ||
        die "the standby ($STANDBY) is not the primary: $(roles | tr '\n' ' ')"
    sleep 0.5
done
say "state after the failover:"
autoctl show state --pgdata "$SCRATCH/monitor" 2>/dev/null | sed 's/^/    /' || true

# ---- 5. the checks.
all_tries >"$WORK/tries"
N_TRIES=$(wc -l <"$WORK/tries")
N_ACKS=$(awk '$5 == 201' "$WORK/tries" | wc -l)
N_FAILED_AFTER=$(awk -v k="$KILL_US" '$5 != 201 && $3 >= k' "$WORK/tries" | wc -l)
GAVE_UP=$(awk '$5 == "gave-up"' "$WORK/tries" | wc -l)
# Answers that are neither an acknowledgement nor one of the retryable
# ones: 503 (the failover cut the transaction), 409 (the key's first try
# still in flight), 0 (no answer).
OTHER=$(awk '$5 != 201 && $5 != 503 && $5 != 409 && $5 != 0 && $5 != "gave-up" { n[$5]++ }
    END { for (s in n) printf "%s: %d, ", s, n[s] }' "$WORK/tries")
STATUSES=$(awk '{ n[$5]++ } END { for (s in n) printf "%s: %d  ", s, n[s] }' "$WORK/tries")
say "$N_TRIES tries ($STATUSES), $N_ACKS acknowledged"
[ -z "$OTHER" ] || die "answers other than 201, 503 and 409: $OTHER"
[ "$N_FAILED_AFTER" -ge 1 ] || die "no try failed after the kill: the kill did not hit the load"

if [ "$MODE" = psql ]; then
    awk '$5 == 201 { print $4 }' "$WORK/tries" | sort -u >"$WORK/acked"
    "$PG_BINDIR/psql" -X -q -A -t -d "$DB_URL" -c 'SELECT key FROM probe' |
        sort -u >"$WORK/stored" || die "cannot read the probe table"
    lost=$(comm -23 "$WORK/acked" "$WORK/stored")
    [ -z "$lost" ] || die "$(wc -l <<<"$lost") acknowledged rows lost, among them:" \
        "$(head -n 5 <<<"$lost" | tr '\n' ' ')"
    say "ok: failover in ${FAILOVER_S} s (bound $FAILOVER_BOUND s);" \
        "all $(wc -l <"$WORK/acked") acknowledged rows on the new primary" \
        "($(($(date +%s) - T0)) s)"
    exit 0
fi

# A key names one combat: every 201 it got has the same Location.
two=$(awk '$5 == 201 { if (($4 in loc) && loc[$4] != $7) print $4; loc[$4] = $7 }' "$WORK/tries")
[ -z "$two" ] || die "keys answered with two combats: $(head -n 3 <<<"$two" | tr '\n' ' ')"
: >"$WORK/acked.oneoff"
: >"$WORK/acked.campaign"
: >"$WORK/bodies"
for ((k = 0; k < CLIENTS; k++)); do
    dest=oneoff
    is_campaign_kind "$k" && dest=campaign
    awk '$1 == "@@" && $5 == 201 { print $7 }' "$WORK/client.$k" >>"$WORK/acked.$dest"
    grep -v '^@@ ' "$WORK/client.$k" | grep -v '^$' >>"$WORK/bodies" || true
done
sort -u -o "$WORK/acked.oneoff" "$WORK/acked.oneoff"
sort -u -o "$WORK/acked.campaign" "$WORK/acked.campaign"
# "FIRST_POS LAST_POS HASH" of each acknowledged campaign combat, once
# (a replay answers the same body).
if [ -s "$WORK/bodies" ]; then
    jq -r '.ledger | if (.last_pos | type) == "number"
        then "\(.first_pos) \(.last_pos) \(.hash)" else error("no ledger") end' \
        "$WORK/bodies" | sort -u >"$WORK/ledger.campaign" ||
        die "a 201 to a campaign combat is not a combat"
else
    : >"$WORK/ledger.campaign"
fi
# Campaign combats acknowledged without their whole answer: their dice
# are not counted, and the ledger's length can only be bounded.
EXACT=1
[ "$(wc -l <"$WORK/ledger.campaign")" -eq "$(wc -l <"$WORK/acked.campaign")" ] || EXACT=
[ "$GAVE_UP" -eq 0 ] || EXACT=

# GETs every Location of file $1 (with the curl arguments that follow) in
# one curl; writes "STATUS PATH" of each that did not answer 200.
get_all() { # get_all FILE [CURL ARGS...]
    local list=$1 cfg=$WORK/get.cfg
    shift
    [ -s "$list" ] || return 0
    sed "s|.*|url = \"$BASE&\"\noutput = \"/dev/null\"|" "$list" >"$cfg"
    curl -s --max-time 120 "$@" -K "$cfg" -w '%{http_code} %{url_effective}\n' |
        grep -v '^200 ' | sed "s|$BASE||" || true
}
lost=$({
    get_all "$WORK/acked.oneoff"
    get_all "$WORK/acked.campaign" -H "$AUTH"
})
verify=$(curl -sf "$BASE/v1/campaigns/$CAMPAIGN/ledger/verify" -H "$AUTH" |
    jq -c 'if .verified == true then "" else .first_broken end') ||
    die "cannot verify the campaign's ledger"
curl -sf "$BASE/v1/campaigns/$CAMPAIGN/ledger" -H "$AUTH" >"$WORK/ledger.json" ||
    die "cannot export the campaign's ledger"
bad_dice=$(jq -r '.length, (.entries[] | "\(.pos) \(.hash)")' "$WORK/ledger.json" |
    awk -v exact="$EXACT" '
        NR == FNR { if (FNR == 1) len = $1; else at[$1] = $2; next }
        { dice += $2 - $1 + 1 }
        at[$2] != $3 { print "position " $2 " is not " $3 }
        END {
            if (dice > len) print "it holds " len " dice, not " dice
            else if (exact && dice != len)
                print "it holds " len " dice, the acknowledged combats " dice
        }' - "$WORK/ledger.campaign")
if [ -n "$lost" ] || [ "$verify" != '""' ] || [ -n "$bad_dice" ]; then
    [ -z "$lost" ] || echo "failover: $(echo "$lost" | wc -l) acknowledged" \
        "combats lost (status, path), among them:" "$(echo "$lost" | head -n 5)" >&2
    [ "$verify" = '""' ] ||
        echo "failover: the campaign's ledger does not verify: $verify" >&2
    [ -z "$bad_dice" ] || echo "failover: the campaign's ledger is not the" \
        "acknowledged combats':" "$(echo "$bad_dice" | head -n 5)" >&2
    die "after the failover, acknowledged combats are lost, altered or doubled"
fi
kill -TERM "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=
EXACTLY=
[ -z "$EXACT" ] || EXACTLY=", the ledger's length exactly"
say "ok: failover in ${FAILOVER_S} s (bound $FAILOVER_BOUND s); nothing lost of the" \
    "$(wc -l <"$WORK/acked.oneoff") one-off and $(wc -l <"$WORK/acked.campaign")" \
    "campaign combats acknowledged ($(jq .length "$WORK/ledger.json") dice$EXACTLY)" \
    "($(($(date +%s) - T0)) s)"
