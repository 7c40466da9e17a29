#!/usr/bin/env bash
# bench/portable.sh: the benchmark's programs, with the shared libraries
# they load, in one folder, for a bigger machine that has none of them
# installed (bench/README.md, "Cores").
#
#   bench/portable.sh DEST [BUILD_DIR]      (default: build)
#
# Copies BUILD_DIR/umpire, BUILD_DIR/bench-bare, wrk, curl and taskset to
# DEST/bin and every library they load (ldd) to DEST/lib, but the C
# library's own (libc, libm, libpthread, libdl, librt, libresolv: the
# other machine's loader must find its own, as new or newer), with bench/
# itself to DEST/bench.  There, with DEST/bin first on PATH and
# LD_LIBRARY_PATH=DEST/lib:
#
#   DEST/bench/cores.sh DEST/bin
set -eu

DEST=${1:?usage: bench/portable.sh DEST [BUILD_DIR]}
BUILD=${2:-build}
HERE=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$DEST/bin" "$DEST/lib" "$DEST/bench"
progs=("$BUILD/umpire" "$BUILD/bench-bare")
for p in wrk curl taskset; do
    progs+=("$(command -v "$p")")
done
for p in "${progs[@]}"; do
    [ -x "$p" ] || { echo "portable: $p is missing" >&2; exit 2; }
    cp "$p" "$DEST/bin/"
    ldd "$p" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
        grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv)\.so' |
        while read -r lib; do cp -L "$lib" "$DEST/lib/"; done
done
cp "$HERE"/*.sh "$HERE"/*.lua "$DEST/bench/"
echo "portable: $(ls "$DEST/bin" | wc -l) programs, $(ls "$DEST/lib" | wc -l) libraries, $(du -sh "$DEST" | cut -f1) in $DEST"
