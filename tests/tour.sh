#!/usr/bin/env bash
# tour.sh: runs the README's "A five-minute tour" word for word against a
# fresh server, so the tour cannot drift from what the service answers.
#
#   tests/tour.sh [BUILD]     BUILD is the build folder (default build)
#
# Starts $BUILD/umpire on 127.0.0.1:8080 (the port the tour names; it fails
# if something already listens there) over a database in a scratch folder,
# waits for /health, then takes every ```sh block of the README section,
# in order, up to the next "## " heading, and runs them all in one bash
# process with `set -euo pipefail`, inside the scratch folder, so the files
# the tour writes (campaign.json, campaign.html, ...) land there.  The
# commands are not edited: a `build` link in the scratch folder points at
# BUILD, so a relative build/umpire-verify still resolves.
#
# A block fails when a command of it fails, or when the server answered any
# of its requests with a status of 400 or more (read from the access log,
# since `curl -s` exits 0 on HTTP errors).  After the last block, a few
# checks on the campaign's final state: the tour's combat and battles
# exist, the battles finished, the campaign holds every combat the tour
# fought, the ledger verifies, the first combat replays.  Needs curl and jq.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in
/*) BUILD_ABS=$BUILD ;;
*) BUILD_ABS=$ROOT/$BUILD ;;
esac
PORT=8080
README=$ROOT/README.md
SECTION='## A five-minute tour'
# Run after the tour, in the same shell: it checks the tour's dice offline.
SECTION_MORE='## Checking dice offline'

die() {
    echo "tour: $*" >&2
    exit 1
}

for tool in curl jq; do
    command -v "$tool" >/dev/null 2>&1 ||
        die "needs $tool (apt-get install curl jq)"
done
[ -x "$BUILD_ABS/umpire" ] || die "no $BUILD_ABS/umpire: build it first"
grep -qxF "$SECTION" "$README" || die "no \"$SECTION\" section in README.md"
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    die "port $PORT is taken (the tour names localhost:$PORT): stop what" \
        "listens there and run again"
fi

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/umpire-tour.XXXXXX")
SERVER_PID=
cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the blocks, one file each: tour/1.sh, tour/2.sh, ...
mkdir "$SCRATCH/tour" "$SCRATCH/work"
awk -v section="$SECTION" -v more="$SECTION_MORE" -v dir="$SCRATCH/tour" '
    $0 == section || $0 == more { on = 1; next }
    on && /^## / { on = 0; next }
    on && !in_block && $0 == "```sh" { in_block = 1; n++; next }
    on && in_block && $0 == "```" { in_block = 0; close(f); next }
    on && in_block { f = dir "/" n ".sh"; print > f }
    END { if (in_block) exit 1 }
' "$README" || die "a \`\`\`sh block of the tour is not closed"
N_BLOCKS=$(find "$SCRATCH/tour" -name '*.sh' | wc -l)
[ "$N_BLOCKS" -gt 0 ] || die "no \`\`\`sh block in \"$SECTION\""
ln -s "$BUILD_ABS" "$SCRATCH/work/build"

# ---- the server
"$BUILD_ABS/umpire" --listen 127.0.0.1 --port "$PORT" --db "$SCRATCH/t.db" \
    --access-log "$SCRATCH/access.log" 2>"$SCRATCH/server.err" &
SERVER_PID=$!
for _ in $(seq 100); do
    kill -0 "$SERVER_PID" 2>/dev/null || {
        cat "$SCRATCH/server.err" >&2
        die "the server stopped before answering /health"
    }
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null ||
    die "no answer from /health in 10 s"
kill -0 "$SERVER_PID" 2>/dev/null || die "the server on port $PORT is not ours"

# ---- the driver: every block in one shell, then the checks on the end state.
# Names of its own start with __tour_ so they cannot meet the tour's.
{
    echo 'set -euo pipefail'
    echo "__tour_scratch='$SCRATCH'"
    cat <<'EOF'
# The access log's lines from line $1 on whose status is 400 or more
# ('... "GET /path" 404 123 0.456ms').  A request is logged once it has
# completed, just after its answer: hence the pause.
__tour_errors() {
    sleep 0.1
    tail -n +"$1" "$__tour_scratch/access.log" |
        grep -E '" [45][0-9][0-9] [0-9]+ [0-9.]+ms$' || true
}
# Block $1 begins: noted for the report, and where its requests start.
__tour_begin() {
    echo "$1" >"$__tour_scratch/current"
    __tour_from=$(($(wc -l <"$__tour_scratch/access.log") + 1))
}
EOF
    i=1
    while [ "$i" -le "$N_BLOCKS" ]; do
        cat <<EOF
__tour_begin $i
{ source "\$__tour_scratch/tour/$i.sh"; } >"\$__tour_scratch/out.$i" 2>&1
__tour_bad=\$(__tour_errors "\$__tour_from")
if [ -n "\$__tour_bad" ]; then
    echo "requests answered with an error:" >&2
    echo "\$__tour_bad" >&2
    exit 1
fi
EOF
        i=$((i + 1))
    done
    cat <<'EOF'
echo checks >"$__tour_scratch/current"
__tour_fail() { echo "check failed: $*" >&2; exit 1; }
__tour_get() { curl -sf "localhost:8080/v1/campaigns/$CAMPAIGN$1" -H "$PLAYER"; }
for __tour_v in CAMPAIGN COMBAT BATTLE CIV; do
    case ${!__tour_v:-null} in
    null | "") __tour_fail "\$$__tour_v was not set" ;;
    esac
done
[ "$(__tour_get "/battles/$BATTLE" | jq -r .status)" = finished ] ||
    __tour_fail "the Matrix battle $BATTLE did not finish"
[ "$(__tour_get "/battles/$CIV" | jq -r .status)" = finished ] ||
    __tour_fail "the Civilization battle $CIV did not finish"
# SCRUD day 1, two EDNA tests, SCS, the Matrix and Civilization battles'
# records, SCRUD day 2 (the Idempotency-Key one).
__tour_n=$(__tour_get "/combats?limit=200" | jq '.items | length')
[ "$__tour_n" -eq 7 ] ||
    __tour_fail "the campaign holds $__tour_n combats, not 7"
[ "$(__tour_get /ledger/verify | jq -r .verified)" = true ] ||
    __tour_fail "the campaign's ledger does not verify"
[ "$(curl -sf -X POST "localhost:8080/v1/campaigns/$CAMPAIGN/combats/$COMBAT/replay" \
    -H "$PLAYER" | jq -r .reproduced)" = true ] ||
    __tour_fail "combat $COMBAT does not replay"
grep -qi '<html' campaign.html || __tour_fail "campaign.html is not a page"
EOF
} >"$SCRATCH/driver.sh"

# The tour works in a scratch directory: it leaves nothing in the checkout
# (checked against git's view of it, where there is one).
checkout_state() {
    git -C "$ROOT" status --porcelain --untracked-files=all 2>/dev/null || true
}
BEFORE=$(checkout_state)

cd "$SCRATCH/work"
if ! TMPDIR="$SCRATCH" bash "$SCRATCH/driver.sh" </dev/null 2>"$SCRATCH/driver.err"; then
    at=$(cat "$SCRATCH/current" 2>/dev/null || echo 1)
    if [ "$at" = checks ]; then
        echo "tour: all $N_BLOCKS blocks ran, but the end state is wrong:" >&2
        cat "$SCRATCH/driver.err" >&2
    else
        echo "tour: block $at of $N_BLOCKS failed:" >&2
        sed 's/^/    /' "$SCRATCH/tour/$at.sh" >&2
        echo "its output:" >&2
        sed 's/^/    /' "$SCRATCH/out.$at" >&2 2>/dev/null || true
        cat "$SCRATCH/driver.err" >&2
    fi
    echo "server log:" >&2
    tail -n 20 "$SCRATCH/server.err" >&2
    exit 1
fi
[ "$(checkout_state)" = "$BEFORE" ] ||
    die "the tour left files in the checkout: $(checkout_state)"
echo "tour: $N_BLOCKS blocks ran"
