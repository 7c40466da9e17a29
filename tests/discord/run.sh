#!/bin/sh
# run.sh BUILD_DIR: checks the Discord command definitions and replies with
# Discord's own library (tests/discord/README.md).  Run by `make test` after
# the Check suites, from any directory.
#
# 1. Needs node (18 or later) and npm; when one is missing, tries
#    `deploy/install-deps.sh --browser` (which installs them).
# 2. Installs @discordjs/builders and discord-api-types, at the versions
#    pinned in package.json and package-lock.json, into
#    BUILD_DIR/discord/node_modules (once).
# 3. Writes `BUILD_DIR/umpire discord-commands` and the replies the Discord
#    suites of BUILD_DIR/umpire-tests make (UMPIRE_DISCORD_REPLIES) into a
#    folder of its own, and runs validate.mjs over them.
#
# When node or the packages cannot be had, or when SKIP_DISCORD_TESTS=1,
# prints "discord tests: SKIPPED: <reason>" and exits 0: the replies were
# not checked by Discord's library, and the line says so.  Otherwise exits
# with the checks' status.

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
BUILD_DIR=$(cd "$1" 2>/dev/null && pwd) || {
    echo "discord tests: no build directory $1 (run make first)" >&2
    exit 1
}
cd "$(dirname "$0")/../.." || exit 1
HERE=tests/discord

skip() {
    echo "discord tests: SKIPPED: $*; the Discord replies were NOT checked by Discord's library" >&2
    exit 0
}

[ "${SKIP_DISCORD_TESTS:-}" = 1 ] && skip "SKIP_DISCORD_TESTS=1"
for bin in umpire umpire-tests; do
    if [ ! -x "$BUILD_DIR/$bin" ]; then
        echo "discord tests: no $BUILD_DIR/$bin (run make first)" >&2
        exit 1
    fi
done

# --- 1. node and npm.

missing() {
    m=""
    command -v node >/dev/null 2>&1 || m="$m node"
    command -v npm >/dev/null 2>&1 || m="$m npm"
    echo "$m"
}
if [ -n "$(missing)" ]; then
    echo "discord tests: missing$(missing); trying deploy/install-deps.sh --browser"
    ./deploy/install-deps.sh --browser ||
        echo "discord tests: deploy/install-deps.sh --browser failed" >&2
    m=$(missing)
    [ -n "$m" ] && skip "missing$m (Debian packages nodejs, npm)"
fi
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
[ "${node_major:-0}" -ge 18 ] 2>/dev/null ||
    skip "node $(node --version 2>/dev/null) is older than 18"

# --- 2. The packages, pinned, into the build directory.

PREFIX=$BUILD_DIR/discord
VERSION=$(node -p "require('./$HERE/package.json').dependencies['@discordjs/builders']") || exit 1
PKG=$PREFIX/node_modules/@discordjs/builders/package.json
NO_UPDATE_NOTIFIER=1
export NO_UPDATE_NOTIFIER

installed=
if [ -f "$PKG" ] && cmp -s "$HERE/package-lock.json" "$PREFIX/package-lock.json"; then
    installed=$(node -p "require(process.argv[1]).version" "$PKG" 2>/dev/null)
fi
if [ "$installed" != "$VERSION" ]; then
    echo "discord tests: installing @discordjs/builders@$VERSION into $PREFIX"
    mkdir -p "$PREFIX" || exit 1
    cp "$HERE/package.json" "$HERE/package-lock.json" "$PREFIX/" || exit 1
    if ! (cd "$PREFIX" && npm ci --no-audit --no-fund --no-update-notifier \
            --ignore-scripts --loglevel=error --fetch-retries=1 \
            --fetch-timeout=60000) >"$PREFIX/install.log" 2>&1; then
        tail -n 20 "$PREFIX/install.log" >&2
        rm -f "$PREFIX/package-lock.json" # so the next run tries again
        skip "npm could not install @discordjs/builders@$VERSION (see $PREFIX/install.log)"
    fi
fi

# --- 3. What the service sends, then the checks.

find "$PREFIX" -maxdepth 1 -name 'run.*' -mmin +60 -exec rm -rf {} + 2>/dev/null
RUN=$(mktemp -d "$PREFIX/run.XXXXXX") || exit 1
mkdir "$RUN/replies" || exit 1
"$BUILD_DIR/umpire" discord-commands >"$RUN/commands.json" || {
    echo "discord tests: FAILED: umpire discord-commands" >&2
    exit 1
}
for suite in discord_http discord_battle discord_reply; do
    UMPIRE_DISCORD_REPLIES=$RUN/replies UMPIRE_TEST_VECTORS=tests/vectors \
        CK_RUN_SUITE=$suite "$BUILD_DIR/umpire-tests" >"$RUN/$suite.log" 2>&1 || {
        tail -n 20 "$RUN/$suite.log" >&2
        echo "discord tests: FAILED: the $suite suite (log in $RUN)" >&2
        exit 1
    }
done
DISCORD_PREFIX=$PREFIX node "$HERE/validate.mjs" "$RUN/commands.json" "$RUN/replies"
status=$?
[ $status -eq 0 ] && rm -rf "$RUN"
exit $status
