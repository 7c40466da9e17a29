#!/bin/sh
# Installs the Debian packages umpire builds and tests with, if any is
# missing.  Uses sudo when not run as root.  Safe to run again.
#
#   --bench     also wrk, curl, sqlite3, python3 and perf (linux-perf), for
#               `make bench` and the other benchmarks (bench/README.md)
#   --valgrind  also valgrind, for `make valgrind` and `make bench-cost`
#   --tour      also curl and jq, for the README's tour (`make tour`)
#   --fuzz      also clang (with libFuzzer) unless clang is on PATH, and jq,
#               for `make fuzz` (fuzz/README.md)
#   --browser   also Debian's chromium and a font for its screenshots, and
#               nodejs and npm unless node and npm are already on PATH, for
#               the browser tests (tests/browser/README.md) and the checks
#               of the Discord replies (tests/discord/README.md)
#   --pg        also the PostgreSQL server and pg_auto_failover, for the
#               PostgreSQL tests (tests/pg/, which also use curl, jq and
#               sqlite3) and a database machine (deploy/postgresql.md)
set -eu

PKGS="build-essential pkg-config libmicrohttpd-dev libjansson-dev libsqlite3-dev libpq-dev libsodium-dev libssl-dev libcurl4-openssl-dev libzstd-dev libmimalloc-dev check"
[ "${1:-}" = "--bench" ] && PKGS="$PKGS wrk curl sqlite3 linux-perf python3"
[ "${1:-}" = "--valgrind" ] && PKGS="$PKGS valgrind"
[ "${1:-}" = "--tour" ] && PKGS="$PKGS curl jq"
# Debian 12's PostgreSQL is 15; pg_auto_failover's package is per version.
[ "${1:-}" = "--pg" ] &&
    PKGS="$PKGS postgresql postgresql-15-auto-failover curl jq sqlite3"
if [ "${1:-}" = "--fuzz" ]; then
    PKGS="$PKGS jq"
    command -v clang >/dev/null 2>&1 || PKGS="$PKGS clang"
fi
if [ "${1:-}" = "--browser" ]; then
    PKGS="$PKGS chromium fonts-dejavu-core"
    command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
    # Debian's nodejs comes without npm; NodeSource's provides it and
    # conflicts with Debian's npm, which must then not be asked for.
    command -v npm >/dev/null 2>&1 ||
        dpkg-query -W -f='${Provides}' nodejs 2>/dev/null | grep -qE '(^|, )npm( |,|$)' ||
        PKGS="$PKGS npm"
fi

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "need root or sudo to install:$missing" >&2
        exit 1
    }
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
