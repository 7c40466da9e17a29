#!/usr/bin/env bash
# bench/campaign.sh: sets up the campaign of the campaign benchmarks
# (bench/README.md, "Campaign combats").
#
#   bench/campaign.sh PORT       prints "CAMPAIGN_ID UMPIRE_TOKEN"
#
# Creates, through umpire's own API on 127.0.0.1:PORT, a campaign of two
# sides (blue, red) with four SCRUD units each (B1..B4, R1..R4).  Its SCRUD
# options make units that never wear out, so the same 4 v 4 combat can be
# fought again and again, for ever:
#   attrition: false              no defeat or fatigue penalty is ever kept,
#                                 so every modifier stays at the quality;
#   defeats_per_elimination: 0    no unit is lost to its side's defeats;
#   eliminate_below: -2           every quality is -1 or more, never below it.
# Every other option keeps its default.  Exit 2 on any failure.
#
# BENCH_WEAR=1 makes units that wear instead, as a real campaign's do:
# attrition on, so every combat keeps a fatigue penalty on most of the
# eight units (each written, with its history), and eliminate_below -100,
# so that none is lost before about 90 combats (run fewer than that).
set -u
PORT=${1:?usage: bench/campaign.sh PORT}
case ${BENCH_WEAR:-0} in
0) ATTRITION=false ELIMINATE_BELOW=-2 ;;
1) ATTRITION=true ELIMINATE_BELOW=-100 ;;
*)
    echo "bench/campaign.sh: BENCH_WEAR must be 0 or 1" >&2
    exit 2
    ;;
esac
BASE="http://127.0.0.1:$PORT/v1"

die() {
    echo "bench/campaign.sh: $*" >&2
    exit 2
}
command -v curl >/dev/null 2>&1 || die "curl is not installed"

created=$(curl -sf -X POST "$BASE/campaigns" -H 'Content-Type: application/json' \
    -d '{"name":"bench","sides":[{"name":"blue"},{"name":"red"}],
         "options":{"scrud":{"attrition":'"$ATTRITION"',"defeats_per_elimination":0,
                             "eliminate_below":'"$ELIMINATE_BELOW"'}}}') ||
    die "POST /v1/campaigns failed"
id=$(printf '%s' "$created" | sed -n 's/^{"id":"\([^"]*\)".*/\1/p')
[ -n "$id" ] || id=$(printf '%s' "$created" | grep -o '"id":"[^"]*"' | head -n 1 | cut -d'"' -f4)
token=$(printf '%s' "$created" | grep -o '"umpire_token":"[^"]*"' | cut -d'"' -f4)
if [ -z "$id" ] || [ -z "$token" ]; then
    die "cannot read the campaign's id and token: $created"
fi

unit() { # unit NAME SIDE QUALITY [FACES]
    local faces=${4:-6}
    curl -sf -o /dev/null -X POST "$BASE/campaigns/$id/units" \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        -d "{\"name\":\"$1\",\"side\":\"$2\",\"scrud\":{\"quality\":$3,\"faces\":$faces}}" ||
        die "cannot create unit $1"
}
unit B1 blue 2
unit B2 blue 1
unit B3 blue 0
unit B4 blue 1 8
unit R1 red 3
unit R2 red 1
unit R3 red -1
unit R4 red 0 8
echo "$id $token"
