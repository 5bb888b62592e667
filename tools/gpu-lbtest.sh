#!/usr/bin/env bash
# gpu-lbtest.sh - one call on the lent GPU machine that runs the look-back's test modes
# (CLSCAN_LOOKBACK_TEST delay and silent: docs/ALGORITHMS.md, "Test modes") on the GPU:
# the meson tests whose names say silent or delay (every suite) and carry-single-pass
# (silent tiles under the carries), test_layers (the work-group walk's status words one
# by one), test_general's blocks case (sub-group 0's ordered walk in blocks under the
# plain, delayed and silent look-back), and the quick selftest under each mode. Release
# build in build-gpu; logs under $OUT (lbtest.tgz), a table of exit codes and seconds
# last. Run from the repository root as
#   source .gpu-kit/env.sh && bash tools/gpu-lbtest.sh
# SPDX-License-Identifier: MIT
set -uo pipefail
OUT=${OUT:-/tmp/clscan-out}
mkdir -p "$OUT/lb"
b=build-gpu
{ { [ -f $b/build.ninja ] || meson setup $b --buildtype=release; } && meson compile -C $b; } \
    >"$OUT/lb/build.log" 2>&1 || { tail -40 "$OUT/lb/build.log"; exit 1; }
run() { # name timeout command...: exit code and seconds into $OUT/lb/name.row
    local name=$1 limit=$2 t0 rc
    shift 2
    t0=$(date +%s)
    timeout "$limit" "$@" >"$OUT/lb/$name.log" 2>&1
    rc=$?
    printf '%-20s exit %-3s %4s s\n' "$name" "$rc" $(($(date +%s) - t0)) >"$OUT/lb/$name.row"
}
# The tests' names from tests/meson.build (meson's --list printed none there).
tests=$(sed -n "s/^test('\([^']*\)'.*/\1/p" tests/meson.build |
    grep -E 'silent|delay|^layers$|^carry-single-pass$' | tr '\n' ' ')
[ -n "$tests" ] || { echo "no test names found in tests/meson.build"; exit 1; }
# Side by side on the one GPU: the meson tests, the blocks case, the two selftests.
run general-blocks 450 env CK_RUN_CASE=blocks $b/tests/test_general &
for m in delay silent; do
    run "selftest-$m" 450 env CLSCAN_LOOKBACK_TEST=$m $b/clscan-selftest --quick --seed 20261203 &
done
run meson-modes 450 meson test -C $b --print-errorlogs --num-processes 6 $tests
wait
tar -C "$OUT" -czf "$OUT/lbtest.tgz" lb
grep -hE '^ *[0-9]+/[0-9]+ ' "$OUT/lb/meson-modes.log"
grep -h '^[0-9]*%: Checks' "$OUT/lb/general-blocks.log"
for m in delay silent; do tail -2 "$OUT/lb/selftest-$m.log"; done
cat "$OUT"/lb/*.row
