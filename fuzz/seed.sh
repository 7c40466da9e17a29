#!/bin/sh
# fuzz/seed.sh BUILD: the fuzz targets' seed corpora, made afresh in
# BUILD/seeds/<target>/ from the project's own material (fuzz/README.md).
# Each seed is its target's selector byte, then the body.
#
#   requests:   fuzz/seeds/requests/<system>/*.json (the API spec's
#               examples and hand-written bodies; campaign-*.json are
#               campaign requests), every combat body of README.md, and
#               the worked examples of tests/vectors/ as one-off requests
#               (fuzz/vectors.jq);
#   documents:  the tables of tests/vectors/, fuzz/seeds/documents/
#               (<selector>-*.json documents, formats.txt, routes.txt),
#               and what the targets write themselves (UMPIRE_FUZZ_EMIT):
#               the report of every request seed that runs (as a combat,
#               and for the systems fought as battles as a battle too), a
#               campaign report listing them, the built-in tables and a
#               path for every route.
#
# Needs jq, and BUILD/fuzz-requests and BUILD/fuzz-documents built.
set -eu

B=$1
OUT=$B/seeds
REQ=$OUT/requests
DOC=$OUT/documents
SEEDS=fuzz/seeds

rm -rf "$OUT"
mkdir -p "$REQ" "$DOC"

# "<one-off selector> <campaign selector> <system>", one line per system.
UMPIRE_FUZZ_SYSTEMS=1 "$B/fuzz-requests" >"$OUT/systems" 2>/dev/null

# selector SYSTEM IS_CAMPAIGN
selector() {
    awk -v s="$1" -v c="$2" '$3 == s { print (c ? $2 : $1) }' "$OUT/systems"
}

# seed DIR SELECTOR NAME: a seed of DIR's target with stdin as its body,
# named by its checksum (so a seed given twice is kept once).
seed() {
    { printf '%s' "$2"; cat; } >"$1/.new"
    sum=$(cksum <"$1/.new" | cut -d' ' -f1)
    mv "$1/.new" "$1/$2-$3-$sum"
}

# ---- requests ----

for f in "$SEEDS"/requests/*/*.json; do
    sys=$(basename "$(dirname "$f")")
    case $(basename "$f") in
    campaign-*) sel=$(selector "$sys" 1) ;;
    *) sel=$(selector "$sys" 0) ;;
    esac
    if [ -z "$sel" ]; then
        echo "fuzz/seed.sh: $f: no system $sys in the table of systems" >&2
        exit 1
    fi
    seed "$REQ" "$sel" "$sys" <"$f"
done

# README.md: every body POSTed to .../combats/<system>, one-off or in the
# campaign of the tour ('...' bodies; ones that splice in a shell variable
# are not JSON and are left out).
awk '
    /curl .*-X POST .*\/combats\/(scrud|edna|scs|matrix|civ)/ {
        match($0, /\/combats\/(scrud|edna|scs|matrix|civ)/)
        sys = substr($0, RSTART + 9, RLENGTH - 9)
        camp = ($0 ~ /\/campaigns\//) ? 1 : 0
        want = 1
    }
    want && index($0, "-d '\''") {
        body = substr($0, index($0, "-d '\''") + 4)
        want = 0
        busy = 1
    }
    busy {
        if (body == "")
            body = $0
        end = index(body, "'\''")
        if (end) {
            text = text substr(body, 1, end - 1)
            print sys, camp, text
            busy = 0
            text = ""
        } else {
            text = text body " "
        }
        body = ""
        next
    }
' README.md | while read -r sys camp body; do
    printf '%s' "$body" | jq -e 'type == "object"' >/dev/null 2>&1 || continue
    printf '%s' "$body" | seed "$REQ" "$(selector "$sys" "$camp")" "$sys-readme"
done

# tests/vectors/: requests, and tables for the documents target.
for f in tests/vectors/*.json; do
    jq -r -f fuzz/vectors.jq "$f"
done | while read -r sys body; do
    if [ "$sys" = "@t" ]; then
        printf '%s' "$body" | seed "$DOC" t vector
    else
        printf '%s' "$body" | seed "$REQ" "$(selector "$sys" 0)" "$sys-vector"
    fi
done

# ---- documents ----

for f in "$SEEDS"/documents/?-*.json; do
    sel=$(basename "$f" | cut -c1)
    seed "$DOC" "$sel" file <"$f"
done
# formats.txt: "query<TAB>Accept" a line ("-" for no query).
grep -v '^#' "$SEEDS/documents/formats.txt" | while IFS='	' read -r q a; do
    [ "$q" = "-" ] && q=""
    printf '%s\n%s' "$q" "$a" | seed "$DOC" f format
done
# routes.txt: "METHOD /path" a line.
grep -v '^#' "$SEEDS/documents/routes.txt" | while read -r line; do
    printf '%s' "$line" | seed "$DOC" u route
done

# What the targets write: reports of the request seeds, built-in tables,
# routes.  A request seed that crashes is reported here already.
if ! UMPIRE_FUZZ_EMIT=$DOC "$B/fuzz-requests" "$REQ"/* >"$OUT/emit.log" 2>&1; then
    tail -n 60 "$OUT/emit.log" >&2
    echo "fuzz/seed.sh: a request seed fails (log: $OUT/emit.log)" >&2
    exit 1
fi
printf 'none' >"$OUT/none"
UMPIRE_FUZZ_EMIT=$DOC "$B/fuzz-documents" "$OUT/none" >>"$OUT/emit.log" 2>&1

# A campaign report listing the combats made above (report_campaign).
for f in "$DOC"/c-*; do
    tail -c +2 "$f"
    echo
done | jq -s -c '{
    "campaign": {"id": "cmp_fuzz", "name": "Seeds", "created_at":
                 "2026-01-01T00:00:00Z", "ledger": {"length": 3, "head": "ab"},
                 "next_commitment": "cd"},
    "sides": [{"id": "sd_a", "name": "a", "exhausted_turn": 2},
              {"id": "sd_b", "name": "b", "exhausted_turn": null}],
    "units": [],
    "combats": [ .[] | {id: (.id // "cbt_x"), system, created_at, note,
                        dice_source: .dice.source, summary_markdown,
                        url: "/v1/combats/x"} ],
    "battles": [{"id": "bat_1", "system": "matrix", "status": "finished",
                 "turn": 3, "created_at": "2026-01-04", "combat_id": "cbt_3",
                 "url": "/v1/campaigns/cmp_fuzz/battles/bat_1"}]}' |
    seed "$DOC" p combats

echo "  SEEDS   $(ls "$REQ" | wc -l) requests, $(ls "$DOC" | wc -l) documents"
