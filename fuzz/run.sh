#!/bin/sh
# fuzz/run.sh BUILD TARGET...: what `make fuzz` runs once the targets are
# built (fuzz/README.md).  Makes the seed corpora (fuzz/seed.sh), runs each
# target's regression inputs (fuzz/regressions/<target>/), then fuzzes each
# target for FUZZ_SECONDS (60) into its corpus BUILD/corpus/<target>, kept
# from run to run.  Prints each run's executions and coverage; on a crash,
# its report and the input kept in BUILD/artifacts/.  Exits 1 if anything
# crashed.
#
#   FUZZ_SECONDS  seconds per target (60)
#   FUZZ_MAX_LEN  longest input in bytes (16384: bodies, not files)
#   FUZZ_FLAGS    more libFuzzer flags, e.g. "-jobs=4 -workers=4"
set -eu

B=$1
shift
SECONDS_EACH=${FUZZ_SECONDS:-60}
MAX_LEN=${FUZZ_MAX_LEN:-16384}
ART=$B/artifacts
LOGS=$B/logs
status=0

# Leaks count; UBSan stops at the first finding (-fno-sanitize-recover).
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS

./fuzz/seed.sh "$B"
mkdir -p "$ART" "$LOGS"

# crash_report LOG: the sanitizer's or the check's report and the input.
crash_report() {
    sed -n '/==ERROR\|==umpire-fuzz==\|runtime error\|^SUMMARY\|Test unit written\|Base64:/,$p' "$1" |
        grep -v '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|pulse\)' | head -n 80
}

for t in "$@"; do
    bin=$B/fuzz-$t
    log=$LOGS/$t.log
    corpus=$B/corpus/$t
    mkdir -p "$corpus"

    # Every input once that crashed before: it must not crash now.
    if [ -n "$(ls fuzz/regressions/"$t" 2>/dev/null)" ]; then
        if "$bin" -runs=1 fuzz/regressions/"$t"/* >"$LOGS/$t-regressions.log" 2>&1; then
            echo "  FUZZ    $t: $(ls fuzz/regressions/"$t" | wc -l) regression inputs pass"
        else
            echo "  FUZZ    $t: a regression input crashes (log: $LOGS/$t-regressions.log)"
            crash_report "$LOGS/$t-regressions.log"
            status=1
        fi
    fi

    echo "  FUZZ    $t for ${SECONDS_EACH}s (log: $log)"
    # shellcheck disable=SC2086
    if "$bin" -max_total_time="$SECONDS_EACH" -max_len="$MAX_LEN" \
        -timeout=10 -rss_limit_mb=2048 -dict=fuzz/umpire.dict \
        -artifact_prefix="$ART/$t-" -print_final_stats=1 \
        ${FUZZ_FLAGS:-} "$corpus" "$B/seeds/$t" >"$log" 2>&1; then
        grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 | sed 's/^/          /'
        grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" |
            sed 's/^/          /'
    else
        echo "  FUZZ    $t CRASHED:"
        crash_report "$log"
        status=1
    fi
done
exit $status
