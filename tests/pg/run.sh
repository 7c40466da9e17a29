#!/usr/bin/env bash
# run.sh: the PostgreSQL half of `make test`.
#
#   tests/pg/run.sh [BUILD]     BUILD is the build folder (default build)
#
# Starts a throw-away PostgreSQL cluster (tests/pg/cluster.sh: Debian's
# postgresql is installed when missing; initdb and pg_ctl in a scratch
# folder, as the user umpire-test when run as root), then runs on it:
#
#   1. tests/pg/check_schema.sh: every migration applies, the tables
#      have SQLite's columns, the triggers work, and migration 18 keeps
#      a store's history;
#   2. the API suites of $BUILD/umpire-tests (UMPIRE_TEST_PG): every
#      server the tests start gets a schema of its own in the database;
#   3. tests/pg/race.sh: two instances hammer one campaign;
#   4. tests/pg/copy.sh: an SQLite database moved into PostgreSQL;
#   5. tests/pg/failover.sh: a pg_auto_failover formation of its own, its
#      primary killed under load (about half a minute; UMPIRE_TEST_FAILOVER=0
#      leaves it out; when pg_auto_failover cannot be had it says so loudly
#      and the rest still counts).
#
# The suites run with fsync off (PG_FAST=1): they test the service's
# logic on PostgreSQL, not the disk.  When PostgreSQL cannot be had, or
# SKIP_PG_TESTS=1, prints "PostgreSQL tests: SKIPPED: <reason>" and exits
# 0: the PostgreSQL store was not tested, and the line says so.  Otherwise
# exits with the first failure's status.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case $BUILD in
/*) BUILD_ABS=$BUILD ;;
*) BUILD_ABS=$ROOT/$BUILD ;;
esac

skip() {
    echo "PostgreSQL tests: SKIPPED: $*; the PostgreSQL store was NOT tested" >&2
    exit 0
}
[ "${SKIP_PG_TESTS:-}" = 1 ] && skip "SKIP_PG_TESTS=1"

# shellcheck source=tests/pg/cluster.sh
. "$ROOT/tests/pg/cluster.sh"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/umpire-pg.XXXXXX")
chmod 755 "$SCRATCH"
mkdir "$SCRATCH/pg"
trap 'pg_cluster_stop "$SCRATCH/pg"; rm -rf "$SCRATCH"' EXIT
status=0
PG_FAST=1 pg_cluster_start "$SCRATCH/pg" || status=$?
[ "$status" = 0 ] || {
    [ "$status" = "$PG_CLUSTER_SKIP" ] && skip "no PostgreSQL server"
    exit "$status"
}
export PG_URL PG_ADMIN_URL PG_PORT

cd "$ROOT"
echo "PostgreSQL tests: the migrations against SQLite's"
PATH="$PG_BINDIR:$PATH" PGHOST=127.0.0.1 PGPORT=$PG_PORT PGUSER=postgres \
    PGDATABASE=postgres tests/pg/check_schema.sh
echo "PostgreSQL tests: the API suites on $PG_URL"
UMPIRE_TEST_PG=$PG_URL UMPIRE_TEST_VECTORS=tests/vectors \
    UMPIRE_VERIFY_BIN=$BUILD_ABS/umpire-verify "$BUILD_ABS/umpire-tests"
echo "PostgreSQL tests: two instances on one campaign"
tests/pg/race.sh "$BUILD"
echo "PostgreSQL tests: an SQLite database copied into PostgreSQL"
UMPIRE_TEST_PG=$PG_ADMIN_URL tests/pg/copy.sh "$BUILD"
if [ "${UMPIRE_TEST_FAILOVER:-1}" != 0 ]; then
    echo "PostgreSQL tests: the primary killed under load"
    status=0
    tests/pg/failover.sh "$BUILD" || status=$?
    if [ "$status" = "$PG_CLUSTER_SKIP" ]; then
        echo "PostgreSQL tests: failover SKIPPED: no pg_auto_failover; failover was NOT tested" >&2
    elif [ "$status" != 0 ]; then
        exit "$status"
    fi
fi
echo "PostgreSQL tests: passed"
