#!/bin/sh
# run.sh BUILD_DIR: the browser tests of the console (tests/browser/README.md).
# Run by `make test` after the Check suites, from any directory.
#
# 1. Needs /usr/bin/chromium (or $CHROMIUM), node and npm; when one is
#    missing, tries `deploy/install-deps.sh --browser`.
# 2. Installs playwright-core, at the version pinned in package.json and
#    package-lock.json, into BUILD_DIR/browser/node_modules (once; never a
#    browser download).
# 3. Starts BUILD_DIR/umpire on a free port with a fresh database under
#    BUILD_DIR/browser/, creates the fixtures through the API
#    (fixtures.mjs), runs console.test.mjs, and stops the server.
#
# When the browser, node or playwright-core cannot be had, or when
# SKIP_BROWSER_TESTS=1, prints "browser tests: SKIPPED: <reason>" and exits
# 0: the console was not tested, and the line says so.  Otherwise exits with
# the tests' status: 0 only when every step passed.  Screenshots go to
# BUILD_DIR/screenshots/.

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
BUILD_DIR=$(cd "$1" 2>/dev/null && pwd) || {
    echo "browser tests: no build directory $1 (run make first)" >&2
    exit 1
}
cd "$(dirname "$0")/../.." || exit 1
HERE=tests/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
STEP_TIMEOUT_MS=${STEP_TIMEOUT_MS:-30000}

skip() {
    echo "browser tests: SKIPPED: $*; the console was NOT tested in a browser" >&2
    exit "${unit_status:-0}"
}

[ "${SKIP_BROWSER_TESTS:-}" = 1 ] && skip "SKIP_BROWSER_TESTS=1"

if [ ! -x "$BUILD_DIR/umpire" ]; then
    echo "browser tests: no $BUILD_DIR/umpire (run make first)" >&2
    exit 1
fi

# --- 1. The browser and node.

missing() {
    m=""
    [ -x "$CHROMIUM" ] || m="$m $CHROMIUM"
    command -v node >/dev/null 2>&1 || m="$m node"
    command -v npm >/dev/null 2>&1 || m="$m npm"
    echo "$m"
}
if [ -n "$(missing)" ]; then
    echo "browser tests: missing$(missing); trying deploy/install-deps.sh --browser"
    ./deploy/install-deps.sh --browser ||
        echo "browser tests: deploy/install-deps.sh --browser failed" >&2
    m=$(missing)
    [ -n "$m" ] && skip "missing$m (Debian packages chromium, nodejs, npm)"
fi
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
[ "${node_major:-0}" -ge 18 ] 2>/dev/null ||
    skip "node $(node --version 2>/dev/null) is older than 18, which playwright-core needs"

# --- 1b. The unit test of the share page's checks (console/js/verify.js
# against verifier/README.md's worked vector and the golden stream), and of
# the console's readings of results (results.test.mjs), with node's own
# test runner: no browser and no package needed, so they run even when the
# browser tests are skipped below.
echo "browser tests: node --test $HERE/verify.test.mjs $HERE/results.test.mjs"
unit_status=0
node --test "$HERE/verify.test.mjs" "$HERE/results.test.mjs" || unit_status=1
[ $unit_status -ne 0 ] && echo "browser tests: FAILED: verify.test.mjs or results.test.mjs (console/js/verify.js, the console's results)" >&2

# --- 2. playwright-core, pinned, into the build directory.

PREFIX=$BUILD_DIR/browser
PW_VERSION=$(node -p "require('./$HERE/package.json').dependencies['playwright-core']") || exit 1
PW_PKG=$PREFIX/node_modules/playwright-core/package.json
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
NO_UPDATE_NOTIFIER=1
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD NO_UPDATE_NOTIFIER

installed=
if [ -f "$PW_PKG" ] && cmp -s "$HERE/package-lock.json" "$PREFIX/package-lock.json"; then
    installed=$(node -p "require(process.argv[1]).version" "$PW_PKG" 2>/dev/null)
fi
if [ "$installed" != "$PW_VERSION" ]; then
    echo "browser tests: installing playwright-core@$PW_VERSION into $PREFIX"
    mkdir -p "$PREFIX" || exit 1
    cp "$HERE/package.json" "$HERE/package-lock.json" "$PREFIX/" || exit 1
    if ! (cd "$PREFIX" && npm ci --no-audit --no-fund --no-update-notifier \
            --ignore-scripts --loglevel=error --fetch-retries=1 \
            --fetch-timeout=60000) >"$PREFIX/install.log" 2>&1; then
        tail -n 20 "$PREFIX/install.log" >&2
        # No registry, say: like having no npm (tests/lint_spec.sh does the same).
        rm -f "$PREFIX/package-lock.json" # so the next run tries again
        skip "npm could not install playwright-core@$PW_VERSION (see $PREFIX/install.log)"
    fi
fi

# --- 3. A server of our own, the fixtures, the tests.

# A failed run's directory is kept for a look, then removed by a later run
# (not at once: another run may be using this build directory right now).
find "$PREFIX" -maxdepth 1 -name 'run.*' -mmin +60 -exec rm -rf {} + 2>/dev/null
RUN=$(mktemp -d "$PREFIX/run.XXXXXX") || exit 1
SERVER_PID=
status=1
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    if [ -n "$SERVER_PID" ]; then
        kill -TERM "$SERVER_PID" 2>/dev/null
        wait "$SERVER_PID" 2>/dev/null
    fi
    if [ "$status" -eq 0 ]; then
        rm -rf "$RUN"
    else
        echo "browser tests: the server's log and database are kept in $RUN" >&2
        tail -n 20 "$RUN/server.log" >&2 2>/dev/null
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$BUILD_DIR/umpire" --listen 127.0.0.1 --port 0 --db "$RUN/umpire.db" \
    --access-log off 2>"$RUN/server.log" &
SERVER_PID=$!

# The startup line names the port it was given:
#   umpire 0.1.0 listening on http://127.0.0.1:PORT (database ...)
URL=
tries=0
while [ -z "$URL" ] && [ $tries -lt 100 ]; do
    URL=$(sed -n 's|.* listening on \(http://[0-9.]*:[0-9]*\).*|\1|p' "$RUN/server.log")
    [ -n "$URL" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
    tries=$((tries + 1))
done
if [ -z "$URL" ]; then
    echo "browser tests: FAILED: the server did not start" >&2
    exit 1
fi
echo "browser tests: server at $URL"

node "$HERE/fixtures.mjs" "$URL" >"$RUN/fixtures.env" || {
    echo "browser tests: FAILED: could not create the fixtures" >&2
    exit 1
}
while IFS='=' read -r key value; do
    case $key in
    UMPIRE_URL | CAMPAIGN_ID | UMPIRE_TOKEN | PLAYER_TOKEN) export "$key=$value" ;;
    *) echo "browser tests: unexpected fixture line $key" >&2 && exit 1 ;;
    esac
done <"$RUN/fixtures.env"

BROWSER_DIR=$PREFIX SCREENSHOTS=$BUILD_DIR/screenshots \
    CHROMIUM=$CHROMIUM STEP_TIMEOUT_MS=$STEP_TIMEOUT_MS \
    timeout 900 node "$HERE/console.test.mjs"
status=$?
[ $status -eq 124 ] && echo "browser tests: FAILED: over 15 minutes" >&2
[ $status -eq 77 ] && skip "chromium is installed but could not start here (see above)"
[ $unit_status -ne 0 ] && status=1
exit $status
