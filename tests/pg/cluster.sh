#!/usr/bin/env bash
# cluster.sh: a throw-away PostgreSQL cluster for umpire's tests.
#
#   tests/pg/cluster.sh start DIR    starts a cluster in DIR (new or empty),
#                                    prints its URL, leaves it running
#   tests/pg/cluster.sh stop DIR     stops it and removes DIR
#
# or, from a bash script:
#
#   . tests/pg/cluster.sh
#   DIR=$(mktemp -d)
#   trap 'pg_cluster_stop "$DIR"' EXIT
#   pg_cluster_start "$DIR" || exit $?    # 77: no PostgreSQL, skip
#   ... "$PG_URL" ...
#
# pg_cluster_start finds the server's programs (PG_BINDIR if set, else
# /usr/lib/postgresql/*/bin, 15 first, else `pg_config --bindir`), and
# installs Debian's `postgresql` when they are missing; when it cannot, it
# prints a loud warning and returns 77, the status test drivers read as
# "skipped".  It runs initdb in DIR/data (C locale, UTF-8, trust: nothing
# but this machine's tests reach it), starts the server with pg_ctl on a
# Unix socket in DIR and a free TCP port on 127.0.0.1, creates the role
# `umpire` (login) and the database `umpire` it owns, in the C collation
# the service needs, and waits until the server accepts connections.
#
# PostgreSQL refuses to run as root: as root, the cluster belongs to the
# system user `umpire-test` (created if missing) and DIR is given to it;
# its parent folders must let that user through (mktemp -d under /tmp
# does).
#
# PG_FAST=1 turns fsync, synchronous_commit and full_page_writes off: for
# the unit tests, which start many databases and never crash the machine.
# Leave it unset for tests of durability, which need every commit on disk.
#
# After pg_cluster_start, these are exported:
#   PG_URL        postgresql://umpire@127.0.0.1:PORT/umpire   (the service's)
#   PG_ADMIN_URL  postgresql://postgres@127.0.0.1:PORT/postgres (superuser)
#   PG_PORT       the TCP port
#   PG_DIR        DIR (also the Unix socket's folder: psql -h "$PG_DIR")
#   PG_BINDIR     the folder of initdb, pg_ctl, postgres
#   PG_OS_USER    the system user the server runs as
# DIR/url holds PG_URL too, for other processes.
#
# Other functions, for scripts that run PostgreSQL programs themselves
# (tests/pg/failover.sh): pg_cluster_bindir, pg_cluster_install PKG...,
# pg_cluster_skip MESSAGE..., pg_cluster_os_user, pg_cluster_as_owner
# CMD..., pg_cluster_give DIR, pg_cluster_free_port.

# The system user the clusters run as when the caller is root.
PG_CLUSTER_TEST_USER=${PG_CLUSTER_TEST_USER:-umpire-test}
PG_CLUSTER_SKIP=77
# Ports handed out by pg_cluster_free_port in this shell, not yet bound:
# never handed out twice.
PG_CLUSTER_PORTS_GIVEN=" "

# pg_cluster_skip MESSAGE...: the loud warning of a skipped test, on
# standard error.  The caller returns or exits 77.
pg_cluster_skip() {
    {
        echo "=================================================================="
        echo "PostgreSQL tests: SKIPPED: $*"
        echo "The PostgreSQL store was NOT tested."
        echo "Install Debian's postgresql (sh deploy/install-deps.sh --pg) and"
        echo "run the tests again."
        echo "=================================================================="
    } >&2
}

# pg_cluster_install PKG...: installs the Debian packages of the list that
# are missing, with sudo when not root, as deploy/install-deps.sh does.
# Returns 1 when it cannot (no apt-get, no root and no sudo, apt failed).
pg_cluster_install() {
    local p missing=() sudo=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    command -v apt-get >/dev/null 2>&1 || {
        echo "pg_cluster: no apt-get to install ${missing[*]}" >&2
        return 1
    }
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            echo "pg_cluster: need root or sudo to install ${missing[*]}" >&2
            return 1
        }
        sudo=(sudo)
    fi
    echo "pg_cluster: installing ${missing[*]}" >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends "${missing[@]}" >/dev/null
}

# pg_cluster_bindir: prints the folder holding initdb, pg_ctl and postgres;
# 1 when there is none.  PostgreSQL 15 first (the version Debian 12 ships
# and pg_auto_failover's package is built for), else the newest.
pg_cluster_bindir() {
    local d
    if [ -n "${PG_BINDIR:-}" ]; then
        [ -x "$PG_BINDIR/initdb" ] && echo "$PG_BINDIR" && return 0
        return 1
    fi
    for d in /usr/lib/postgresql/15/bin \
        $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -t/ -k5,5 -rn); do
        [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && echo "$d" && return 0
    done
    # Another layout (a build from source, another distribution).
    d=$(pg_config --bindir 2>/dev/null) || return 1
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && echo "$d" && return 0
    return 1
}

# pg_cluster_os_user: the system user the servers run as: the caller, or
# PG_CLUSTER_TEST_USER when the caller is root (created here if missing).
pg_cluster_os_user() {
    if [ "$(id -u)" -ne 0 ]; then
        id -un
        return 0
    fi
    if ! id -u "$PG_CLUSTER_TEST_USER" >/dev/null 2>&1; then
        useradd --system --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin "$PG_CLUSTER_TEST_USER" >&2 || {
            echo "pg_cluster: cannot create the system user $PG_CLUSTER_TEST_USER" >&2
            return 1
        }
    fi
    echo "$PG_CLUSTER_TEST_USER"
}

# pg_cluster_as_owner CMD...: runs CMD as the servers' user, in the
# current folder (runuser keeps the environment but HOME, SHELL, USER and
# LOGNAME).  As anyone but root, runs it as it is.
pg_cluster_as_owner() {
    if [ "$(id -u)" -ne 0 ]; then
        "$@"
    else
        runuser -u "$PG_CLUSTER_TEST_USER" -- "$@"
    fi
}

# pg_cluster_give DIR: hands DIR over to the servers' user (as root), and
# checks that user can reach it.
pg_cluster_give() {
    local dir=$1 user
    user=$(pg_cluster_os_user) || return 1
    [ "$(id -u)" -eq 0 ] || return 0
    chown -R "$user:" "$dir" || return 1
    runuser -u "$user" -- test -w "$dir" || {
        echo "pg_cluster: $user cannot reach $dir: a folder above it is" \
            "closed to that user (use one under /tmp)" >&2
        return 1
    }
}

# pg_cluster_free_port: sets PG_CLUSTER_PORT to a TCP port nothing
# listens on, on 127.0.0.1, that this shell has not been given already
# (call it in this shell, not in $(...), or it cannot remember).  Another
# process may still take the port before a server binds it:
# pg_cluster_start tries again with another one if so.  The port is below
# the range the kernel draws clients' local ports from
# (ip_local_port_range): a port there may be a client connection's, which
# the test above does not see, and a server would then bind IPv6 alone
# and start, unreachable on 127.0.0.1 (pg_auto_failover's monitor did).
pg_cluster_free_port() {
    local port i lo=32768 base=20000 span=40000
    read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
    if [ "${lo:-0}" -gt 12000 ] 2>/dev/null; then
        base=10000
        span=$((lo - base))
    fi
    for ((i = 0; i < 200; i++)); do
        port=$((base + RANDOM % span))
        case $PG_CLUSTER_PORTS_GIVEN in *" $port "*) continue ;; esac
        # A connection that succeeds means someone listens.
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            continue
        fi
        PG_CLUSTER_PORTS_GIVEN+="$port "
        PG_CLUSTER_PORT=$port
        return 0
    done
    echo "pg_cluster: no free port found" >&2
    return 1
}

# pg_cluster_start DIR: see the top of this file.  Returns 0 with the
# cluster running and the variables exported, 77 when PostgreSQL cannot be
# had, 1 on any other failure (then nothing is left running).
pg_cluster_start() {
    local dir=${1:?usage: pg_cluster_start DIR} bindir user port started=''
    if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
        echo "pg_cluster: $dir is not empty" >&2
        return 1
    fi

    if ! bindir=$(pg_cluster_bindir); then
        pg_cluster_install postgresql || true
        bindir=$(pg_cluster_bindir) || {
            pg_cluster_skip "no PostgreSQL server programs (initdb, pg_ctl)" \
                "and Debian's postgresql could not be installed"
            return "$PG_CLUSTER_SKIP"
        }
    fi
    user=$(pg_cluster_os_user) || return 1

    mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
    # The marker pg_cluster_stop looks for before it removes anything.
    echo "umpire test cluster" >"$dir/.pg-cluster" || return 1
    pg_cluster_give "$dir" || return 1

    # -U postgres: the superuser keeps its usual name, whoever runs it.
    # --no-sync: a throw-away cluster need not wait for its files to reach
    # the disk before it starts.
    (cd "$dir" && pg_cluster_as_owner "$bindir/initdb" -D "$dir/data" \
        -U postgres --locale=C -E UTF8 -A trust --no-sync) >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        echo "pg_cluster: initdb failed" >&2
        return 1
    }
    {
        echo "# umpire tests (tests/pg/cluster.sh)"
        echo "listen_addresses = '127.0.0.1'"
        echo "unix_socket_directories = '$dir'"
        echo "max_connections = 200"   # several servers, each with its pool
        echo "shared_buffers = 64MB"
        echo "timezone = 'UTC'"
        echo "lc_messages = 'C'"
        echo "log_min_messages = warning"
        echo "log_line_prefix = '%m [%p] '"
        if [ "${PG_FAST:-0}" = 1 ]; then
            # Nothing waits for the disk: fast, and lost in a crash of the
            # machine, which a unit test does not survive anyway.
            echo "fsync = off"
            echo "synchronous_commit = off"
            echo "full_page_writes = off"
        fi
    } >>"$dir/data/postgresql.conf"

    # A free port; another process may take it first, so a failure to bind
    # it is tried again with another.
    for _ in 1 2 3 4 5; do
        pg_cluster_free_port || return 1
        port=$PG_CLUSTER_PORT
        if (cd "$dir" && pg_cluster_as_owner "$bindir/pg_ctl" -D "$dir/data" \
            -l "$dir/postgres.log" -o "-p $port" -w -t 60 start) >"$dir/pg_ctl.log" 2>&1; then
            started=1
            break
        fi
        grep -q 'could not bind\|Address already in use' "$dir/postgres.log" 2>/dev/null ||
            break
    done
    if [ -z "$started" ]; then
        cat "$dir/pg_ctl.log" "$dir/postgres.log" >&2 2>/dev/null
        echo "pg_cluster: the server did not start" >&2
        pg_cluster_stop "$dir"
        return 1
    fi

    # pg_ctl -w waited for the server; pg_isready says it accepts
    # connections over TCP too, as the service will connect.
    for _ in $(seq 100); do
        "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" && break
        sleep 0.1
    done
    # The C collation: ids, times and names are compared byte by byte,
    # as SQLite compares them (deploy/postgresql.md).
    "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres \
        -d postgres >/dev/null 2>"$dir/psql.log" <<'SQL' || {
CREATE ROLE umpire LOGIN;
CREATE DATABASE umpire OWNER umpire TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C';
SQL
        cat "$dir/psql.log" >&2
        echo "pg_cluster: cannot create the role and database umpire" >&2
        pg_cluster_stop "$dir"
        return 1
    }

    PG_PORT=$port
    PG_DIR=$dir
    PG_BINDIR=$bindir
    PG_OS_USER=$user
    PG_URL="postgresql://umpire@127.0.0.1:$port/umpire"
    PG_ADMIN_URL="postgresql://postgres@127.0.0.1:$port/postgres"
    export PG_PORT PG_DIR PG_BINDIR PG_OS_USER PG_URL PG_ADMIN_URL
    echo "$port" >"$dir/port"
    echo "$PG_URL" >"$dir/url"
}

# pg_cluster_stop DIR: stops the cluster in DIR at once (immediate mode:
# nothing is kept, so nothing needs a clean shutdown) and removes DIR.
# Only a folder pg_cluster_start made is removed (or an empty one).  Safe to call twice, and
# on a folder whose start failed half way.
pg_cluster_stop() {
    local dir=${1:?usage: pg_cluster_stop DIR} bindir pid
    if [ ! -f "$dir/.pg-cluster" ]; then
        # A start that gave up before making anything (no PostgreSQL):
        # the caller's empty folder goes; anything else is not ours.
        rmdir "$dir" 2>/dev/null || true
        return 0
    fi
    if [ -f "$dir/data/postmaster.pid" ]; then
        bindir=${PG_BINDIR:-$(pg_cluster_bindir)} || bindir=
        if [ -n "$bindir" ]; then
            (cd "$dir" && pg_cluster_as_owner "$bindir/pg_ctl" -D "$dir/data" \
                -m immediate -w -t 20 stop) >/dev/null 2>&1 || true
        fi
        # pg_ctl could not stop it (or is gone): the postmaster's own pid.
        pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null) || pid=
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill -QUIT "$pid" 2>/dev/null || true
            sleep 1
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -rf "$dir"
}

# Run as a program rather than sourced.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    case ${1:-} in
    start)
        [ $# -eq 2 ] || { echo "usage: $0 start DIR" >&2; exit 2; }
        status=0
        pg_cluster_start "$2" || status=$?
        if [ "$status" -ne 0 ]; then
            pg_cluster_stop "$2" # what a failed start left in DIR
            exit "$status"
        fi
        echo "$PG_URL"
        ;;
    stop)
        [ $# -eq 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }
        pg_cluster_stop "$2"
        ;;
    *)
        echo "usage: $0 start DIR | stop DIR" >&2
        exit 2
        ;;
    esac
fi
