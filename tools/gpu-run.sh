#!/usr/bin/env bash
# gpu-run.sh - one call on the lent GPU machine: build, selftest, test suite and
# clscan-bench, logs under $OUT, a short table last. Run from the repository root as
#   source .gpu-kit/env.sh && bash tools/gpu-run.sh [bench-variants]
set -uo pipefail
OUT=${OUT:-/tmp/clscan-out}
mkdir -p "$OUT"
b=build-gpu
step() { echo "== $*" >&2; }

step build
{ meson setup $b --buildtype=release && meson compile -C $b; } >"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
clinfo -l >"$OUT/clinfo.log" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >>"$OUT/clinfo.log" 2>&1

step selftest
$b/clscan-selftest --seed 20261122 >"$OUT/selftest.log" 2>&1
selftest_rc=$?

step meson test
meson test -C $b --print-errorlogs >"$OUT/test.log" 2>&1
test_rc=$?

step bench
bench=(--type int32 --op add --mode exclusive --sizes 2^16,2^20,2^24,2^28 --repeats 50)
$b/clscan-bench "${bench[@]}" --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>&1
bench_rc=$?
# Padding off, same run, same sizes: what the bank-conflict padding is worth here.
CLSCAN_PADDING=0 $b/clscan-bench "${bench[@]}" >"$OUT/bench-nopad.log" 2>&1
# Optional tuning variants: "NAME=VALUE,..." arguments become environment settings.
for v in "$@"; do
    echo "### $v" >>"$OUT/bench-variants.log"
    env $(echo "$v" | tr ',' ' ') $b/clscan-bench --type int32 --op add --mode exclusive \
        --sizes 2^20,2^24,2^28 --repeats 30 >>"$OUT/bench-variants.log" 2>&1
done

echo
echo "selftest: $(tail -1 "$OUT/selftest.log") (exit $selftest_rc)"
echo "meson test: $(grep -E '^(Ok|Fail|Timeout):' "$OUT/test.log" | tr '\n' ' ') (exit $test_rc)"
echo "bench exit $bench_rc; default tuning:"
tail -8 "$OUT/bench.log"
echo "padding off:"
tail -6 "$OUT/bench-nopad.log"
if [ -e "$OUT/bench-variants.log" ]; then grep -E "^###|^ *int32" "$OUT/bench-variants.log"; fi
