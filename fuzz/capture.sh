#!/bin/sh
# fuzz/capture.sh UMPIRE_BINARY: writes the seeds of fuzz/seeds/documents/
# that only a real server makes: battles (b-live-*.json), a campaign report
# (p-live-*.json) and campaign combats as served, ledger and unit ids
# included (c-live-*.json).  A fresh database in a scratch folder, a free
# port, a campaign with a SCRUD combat, an EDNA test, a Matrix battle
# (open, half fought, finished) and a Civilization battle (open,
# finished), then GET .../report.  Run it by hand when those documents
# change shape (`make` first); `make fuzz` only reads the files.  Needs
# curl and jq.
set -eu

BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DEST=$(pwd)/fuzz/seeds/documents
WORK=$(mktemp -d)
"$BIN" --port 0 --db "$WORK/umpire.db" --access-log off >"$WORK/log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$WORK"' EXIT INT TERM
i=0
until grep -q listening "$WORK/log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 50 ] || { cat "$WORK/log" >&2; exit 1; }
    sleep 0.1
done
URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$WORK/log")

post() { # post PATH BODY
    curl -sf -X POST "$URL$1" -H "$AUTH" -H 'Content-Type: application/json' \
        -d "$2"
}
keep() { # keep NAME: stdin, compact, as a seed
    jq -c . >"$DEST/$1.json"
}

AUTH="X-None: 1"
post /v1/campaigns '{"name": "Capture <b>*1*</b>",
    "sides": [{"name": "russian"}, {"name": "german"}]}' >"$WORK/c.json"
C=/v1/campaigns/$(jq -r .id "$WORK/c.json")
AUTH="Authorization: Bearer $(jq -r .umpire_token "$WORK/c.json")"

for u in 'R1 russian' 'R2 russian' 'R3 russian' 'G1 german' 'G2 german'; do
    # shellcheck disable=SC2086 # "name side", split on purpose
    set -- $u
    post "$C/units" "{\"name\": \"$1\", \"side\": \"$2\", \"matrix\": {},
        \"scrud\": {}, \"edna\": {}}" >/dev/null
done
post "$C/combats/scrud" '{"sides": [{"side": "russian", "units":
    [{"unit": "R1"}, {"unit": "R2"}]}, {"side": "german", "units":
    [{"unit": "G1"}]}], "note": "a *skirmish*"}' >/dev/null
post "$C/combats/edna" '{"units": [{"unit": "R3"}]}' >/dev/null

# Matrix: open, half fought, finished.
# shellcheck disable=SC2016 # the backquotes are the note's own
post "$C/battles" '{"turn": 1, "note": "Orlau `ford`",
    "attacker": {"side": "russian", "argument": 1,
                 "units": ["R1", "R2", "R3"]},
    "defender": {"side": "german", "units": ["G1", "G2"]},
    "line": [{"attacker": ["R1"], "defender": ["G1"]},
             {"attacker": ["R2"], "defender": ["G2"]}]}' >"$WORK/b.json"
keep b-live-matrix-open <"$WORK/b.json"
B=$C/battles/$(jq -r .id "$WORK/b.json")
post "$B/actions" '{"action": "roll", "combat": 0}' >/dev/null
post "$B/actions" '{"action": "commit", "combat": 0, "army": "attacker",
    "unit": "R3"}' | keep b-live-matrix-half
post "$B/actions" '{"action": "accept", "combat": 0}' >/dev/null
post "$B/actions" '{"action": "roll", "combat": 1}' >/dev/null
post "$B/actions" '{"action": "accept", "combat": 1}' |
    keep b-live-matrix-finished

# Civilization: open, then phases until it is over.
civ() {
    post "$C/units" "{\"name\": \"$1\", \"side\": \"$2\", \"civ\": $3}" \
        >/dev/null
}
civ Musketeers russian '{"class": "infantry", "era": 3, "bonus": 1}'
civ Bombers russian '{"class": "aircraft", "era": 4, "dice_multiplier": 2}'
civ Cossacks russian '{"class": "cavalry", "era": 2}'
civ Knights german '{"class": "cavalry", "era": 2}'
civ Pikemen german '{"class": "infantry", "era": 2, "bonus": 1}'
post "$C/battles" '{"system": "civ", "turn": 2, "current_era": 3,
    "settlement": true, "great_wall": true,
    "attacker": {"side": "russian", "technologies": 9,
                 "units": ["Musketeers", "Bombers", "Cossacks"]},
    "defender": {"side": "german", "technologies": 7,
                 "units": ["Knights", "Pikemen"]}}' >"$WORK/v.json"
keep b-live-civ-open <"$WORK/v.json"
V=$C/battles/$(jq -r .id "$WORK/v.json")
i=0
while [ "$(jq -r .status "$WORK/v.json")" = open ] && [ $i -lt 20 ]; do
    post "$V/actions" '{"action": "phase"}' >"$WORK/v.json"
    i=$((i + 1))
done
keep b-live-civ-finished <"$WORK/v.json"

curl -sf "$URL$C/report" -H "$AUTH" | keep p-live-campaign
# Campaign combats as served: their ledger, unit ids, battle records.
curl -sf "$URL$C/combats" -H "$AUTH" | jq -r '.items[] | "\(.system) \(.id)"' |
    while read -r sys id; do
        curl -sf "$URL$C/combats/$id" -H "$AUTH" | keep "c-live-$sys"
    done
set -- "$DEST"/?-live-*.json
echo "captured: $# seeds in $DEST"
