#!/bin/sh
# Installs the Debian packages umpire builds and tests with, if any is
# missing.  Uses sudo when not run as root.  Safe to run again.
set -eu

PKGS="build-essential pkg-config libmicrohttpd-dev libjansson-dev libsqlite3-dev libsodium-dev check"
[ "${1:-}" = "--bench" ] && PKGS="$PKGS wrk"
[ "${1:-}" = "--valgrind" ] && PKGS="$PKGS valgrind"

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
