# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables set here are the callers'
# tests/lib.sh: what the scripts that run umpire themselves share
# (tests/durability.sh, tests/pg/race.sh, copy.sh, failover.sh,
# bench/pg.sh).  Sourced, not run; needs bash and curl.

# umpire_start BIN LOG [ARGS...]: starts BIN --listen 127.0.0.1 --port 0
# --access-log off ARGS... in the background, its output in LOG (where it
# says the port it took), and waits until it answers /health.  Sets
# UMPIRE_PID, and UMPIRE_BASE to http://127.0.0.1:PORT.  Returns 1 when it
# stopped first (its output copied to stderr) or gave no answer in 10 s,
# UMPIRE_WHY saying which; the caller says what failed.
umpire_start() {
    local bin=$1 log=$2 port=
    shift 2
    : >"$log" # there before the server opens it: read from the first try
    "$bin" --listen 127.0.0.1 --port 0 --access-log off "$@" >"$log" 2>&1 &
    UMPIRE_PID=$!
    UMPIRE_BASE=
    for _ in $(seq 100); do
        if ! kill -0 "$UMPIRE_PID" 2>/dev/null; then
            cat "$log" >&2
            UMPIRE_WHY="it stopped before answering /health"
            return 1
        fi
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log")
        if [ -n "$port" ] &&
            curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
            UMPIRE_BASE=http://127.0.0.1:$port
            return 0
        fi
        sleep 0.1
    done
    UMPIRE_WHY="no answer from /health in 10 s"
    return 1
}

# combat_kinds CAMPAIGN CLIENT_SEED: the six kinds of combat the load
# tests send, one per client, into KIND_NAMES, KIND_PATHS and KIND_BODIES:
# one-off SCRUD seeded (with CLIENT_SEED) and entered, one-off EDNA, and
# campaign SCRUD seeded, seeded with CLIENT_SEED and entered, in
# CAMPAIGN as bench/campaign.sh sets it up (units B1..B4 and R1..R4, which
# never wear out, so any combat of them can be fought again and again).
combat_kinds() {
    local campaign=$1 seed=$2 sides seeded entered u
    local path="/v1/campaigns/$campaign/combats/scrud"
    sides='"sides": [
  {"side": "blue", "units": [{"unit": "B1"DB1}, {"unit": "B2"DB2}, {"unit": "B3"DB3}, {"unit": "B4"DB4}]},
  {"side": "red",  "units": [{"unit": "R1"DR1}, {"unit": "R2"DR2}, {"unit": "R3"DR3}, {"unit": "R4"DR4}]}]'
    seeded=$sides
    entered=$sides
    for u in B1 B2 B3 B4 R1 R2 R3 R4; do
        seeded=${seeded//D$u/}
        entered=${entered//D$u/, \"die\": $((RANDOM % 6 + 1))}
    done
    KIND_NAMES=(oneoff-scrud-seeded oneoff-scrud-entered oneoff-edna
        campaign-scrud-seeded campaign-scrud-client-seed campaign-scrud-entered)
    KIND_PATHS=(/v1/combats/scrud /v1/combats/scrud /v1/combats/edna
        "$path" "$path" "$path")
    KIND_BODIES=(
        "{\"dice\": {\"client_seed\": \"$seed\"},
      \"sides\": [{\"name\": \"red\",  \"units\": [{\"name\": \"R1\"}, {\"name\": \"R2\"}, {\"name\": \"R3\"}]},
                {\"name\": \"blue\", \"units\": [{\"name\": \"B1\", \"quality\": 1}, {\"name\": \"B2\"}]}]}"
        '{"dice": {"source": "entered"},
      "sides": [{"name": "red",  "units": [{"name": "R1", "die": 3}, {"name": "R2", "die": 5}]},
                {"name": "blue", "units": [{"name": "B1", "quality": 1, "die": 2}, {"name": "B2", "die": 6}]}]}'
        '{"units": [{"name": "Sappers", "edna": 5, "modifier": -1}, {"name": "Pickets"}]}'
        "{$seeded}"
        "{\"dice\": {\"client_seed\": \"$seed\"}, $seeded}"
        "{\"dice\": {\"source\": \"entered\"}, $entered}"
    )
}

# is_campaign_kind K: whether kind K (of combat_kinds) is a campaign's.
is_campaign_kind() { [ "${KIND_PATHS[$1]}" != "${KIND_PATHS[$1]#/v1/campaigns/}" ]; }
