#!/usr/bin/env bash
# gpu-run.sh - one call on the lent GPU machine: build, then
#   check: clscan-selftest of the device scans (single-pass with each atomics mode and
#          each look-back test mode, multi-level) and the test suite;
#   tune:  clscan-bench of single-pass tile shapes and atomics modes (int32 exclusive add);
#   bench: the issue-4 figures: int32 exclusive and float inclusive add, both device
#          scans, int64 exclusive add, and the look-back test modes (fallback counts);
#          then what compact runs;
#   compact: int32 compaction, both device algorithms: select-if keep-even, select-flagged
#          with half the flags set, partition keep-even, unique with runs of 2 on average;
#   general: general scans (clscan_scan), exclusive and inclusive: int32 add segmented by
#          flags, int64 min segmented by keys, a custom float max, the 2x2 uint matrix
#          product (16-byte struct), an int32 count of a float predicate (transform);
#   sort:  radix sort of uint32 keys and pairs (a uint32 value), and int64 keys;
#   stream: clscan_scan_host (clscan-bench --call host-stream): int32 exclusive add of
#          2^24 to 2^30 elements from pinned host memory to pinned host memory, in chunks
#          of the library's choice, 2^22, 2^24 and 2^26, each against the host-to-device
#          and device-to-host rates of the same bytes (wall times; the table last);
#   firstcall: first-call latency with the disk cache off, cold and warm, the driver's
#          cache empty and warm (tools/first-call.sh; the table in first-call.txt);
#   sizes: clscan-bigcheck: n = 2^32 + 3 (int32; int64 must be refused above the largest
#          allocation), 2^31 + 1 and 2^31 - 1 (int32, int64), every scan and compaction
#          it knows, out of place at offsets past 2^32 bytes and in place, checked against
#          the host reference on all cores (sizes.log; its table in sizes.txt;
#          BIGCHECK_ARGS adds options, e.g. "--sizes 2^20-1,2^20+1" for a dry run);
# logs under $OUT, a short table last. Run from the repository root as
#   source .gpu-kit/env.sh && bash tools/gpu-run.sh check,tune,bench
# The device tool brings back at most 8 files: logs travel as one logs.tgz, and the
# benchmark rows as one bench.csv with the variant name first. Every clscan-bench row but
# host-stream also takes its batched wall times (K calls back to back, one clFinish; the
# bench's --no-batched); the summary shows them in braces, call/copy, in us.
# SPDX-License-Identifier: MIT
set -uo pipefail
modes=${1:-check,bench}
has() { [[ ",$modes," == *",$1,"* ]]; }
OUT=${OUT:-/tmp/clscan-out}
mkdir -p "$OUT"
b=build-gpu
step() { echo "== $*" >&2; }

step build
{ { [ -f $b/build.ninja ] || meson setup $b --buildtype=release; } && meson compile -C $b; } \
    >"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
{ clinfo -l; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } \
    >"$OUT/clinfo.log" 2>&1
envof() { [ "$1" = - ] && return; echo "$1" | tr ',' ' '; }

# Selftest variants: name, environment ("-" for none).
checks=(
    "default -"
    "sp-cl12 CLSCAN_LOOKBACK_ATOMICS=cl12"
    "sp-giveup CLSCAN_LOOKBACK_SPINS=0"
    "sp-delay CLSCAN_LOOKBACK_TEST=delay,CLSCAN_LOOKBACK_SPINS=8"
    "sp-silent CLSCAN_LOOKBACK_TEST=silent"
    "multi-level CLSCAN_SCAN_ALGO=multi-level"
)
if has check; then
    step selftest and meson test, in parallel
    pids=()
    for v in "${checks[@]}"; do
        set -- $v
        quick=--quick
        [ "$1" = default ] && quick=
        ( timeout 400 env $(envof "$2") $b/clscan-selftest --seed 20261122 $quick >"$OUT/selftest-$1.log" 2>&1
          echo "### exit $?" >>"$OUT/selftest-$1.log" ) &
        pids+=($!)
    done
    timeout 420 meson test -C $b --print-errorlogs --num-processes 8 >"$OUT/test.log" 2>&1
    test_rc=$?
    wait "${pids[@]}"
fi

: >"$OUT/bench.log"
bench_one() { # name env sizes [extra bench args]
    local name=$1 e=$2 sizes=$3
    shift 3
    echo "### $name ($e)" >>"$OUT/bench.log"
    timeout ${BENCH_TIMEOUT:-150} env $(envof "$e") $b/clscan-bench --sizes $sizes --repeats 30 "$@" \
        --csv "$OUT/bench-$name.part" >>"$OUT/bench.log" 2>&1
    echo "### $name exit $?" >>"$OUT/bench.log"
    [ -s "$OUT/bench.csv" ] || grep -m1 '^platform' "$OUT/bench-$name.part" |
        sed 's/^/variant,/' >"$OUT/bench.csv"
    grep -vE '^(#|platform)' "$OUT/bench-$name.part" | sed "s/^/$name,/" >>"$OUT/bench.csv"
    rm -f "$OUT/bench-$name.part"
}
big=2^16,2^20,2^24,2^28
int32="--type int32 --op add --mode exclusive"
if has tune; then
    step tune
    for shape in 128x16 128x32 256x8 256x16 256x32 512x8 512x16; do
        w=${shape%x*} i=${shape#*x}
        bench_one "sp-$shape" CLSCAN_SP_WORK_GROUP_SIZE=$w,CLSCAN_SP_ITEMS_PER_THREAD=$i \
            $big $int32 --algo single-pass
    done
    bench_one "sp-ptx" CLSCAN_LOOKBACK_ATOMICS=ptx $big $int32 --algo single-pass
fi
if has bench; then
    step bench
    bench_one int32 - $big $int32 --algo single-pass,multi-level
    bench_one float-incl - $big --type float --op add --mode inclusive --algo single-pass,multi-level
    BENCH_TIMEOUT=300 bench_one int64 - 2^16,2^20,2^24,2^27,2^28 --type int64 --op add \
        --mode exclusive --algo single-pass --repeats 20
    bench_one int64 - 2^24,2^27 --type int64 --op add --mode exclusive --algo multi-level \
        --repeats 20
    bench_one giveup CLSCAN_LOOKBACK_SPINS=0 2^20,2^24 $int32 --algo single-pass
    bench_one delay CLSCAN_LOOKBACK_TEST=delay,CLSCAN_LOOKBACK_SPINS=8 2^20,2^24 $int32 \
        --algo single-pass
fi
if has bench || has compact; then
    step compact
    for call in select-if select-flagged partition unique; do
        bench_one $call - $big --type int32 --call $call --algo single-pass,multi-level
    done
fi

if has general; then
    step general
    bench_one general - $big --call seg-add,seg-keys-min,custom-max,mat2,transform-count \
        --mode exclusive,inclusive --repeats 20
fi
if has sort; then
    step sort
    BENCH_TIMEOUT=300 bench_one sort - $big --type uint32 --call sort-keys,sort-pairs --repeats 20
    bench_one sort64 - 2^20,2^24 --type int64 --call sort-keys --repeats 20
fi

if has stream; then
    step stream
    BENCH_TIMEOUT=560 bench_one stream - 2^24,2^26,2^28,2^30 --type int32 --op add \
        --mode exclusive --call host-stream --chunk 0,2^22,2^24,2^26 --repeats 10 --warmup 2
fi

if has firstcall; then
    step firstcall
    timeout 580 bash tools/first-call.sh -b $b -r 3 -w 1 -o "$OUT/first-call.log" \
        >"$OUT/first-call.txt" 2>"$OUT/first-call-progress.log"
    echo "### first-call.sh exit $?" >>"$OUT/first-call.txt"
fi

if has sizes; then
    step sizes
    # shellcheck disable=SC2086 # BIGCHECK_ARGS: more options (a smaller --sizes list)
    timeout 480 $b/clscan-bigcheck --seed 20261122 --time-limit 400 ${BIGCHECK_ARGS:-} \
        >"$OUT/sizes.log" 2>&1
    echo "### clscan-bigcheck exit $?" >>"$OUT/sizes.log"
    sed -n '/^table/,$p' "$OUT/sizes.log" >"$OUT/sizes.txt"
    [ -s "$OUT/sizes.txt" ] || tail -25 "$OUT/sizes.log" >"$OUT/sizes.txt" # (killed: where)
fi

(cd "$OUT" && tar czf logs.tgz *.log && rm -f *.log)
echo
if has check; then
    for v in "${checks[@]}"; do
        set -- $v
        echo "selftest $1: $(tar xzf "$OUT/logs.tgz" -O "selftest-$1.log" | grep -E 'passed, |### exit' | tr '\n' ' ')"
    done
    echo "meson test: $(tar xzf "$OUT/logs.tgz" -O test.log | grep -E '^(Ok|Fail|Timeout):' | tr '\n' ' ') (exit $test_rc)"
    tar xzf "$OUT/logs.tgz" -O test.log | grep -E "^ *[0-9]+/[0-9]+ " | grep -v " OK " || true
    tar xzf "$OUT/logs.tgz" -O selftest-default.log | grep -m3 -E "device scan|scan layers|versions"
fi
[ -s "$OUT/first-call.txt" ] && cat "$OUT/first-call.txt"
[ -s "$OUT/sizes.txt" ] && cat "$OUT/sizes.txt"
if [ -s "$OUT/bench.csv" ]; then
    echo "algo n:median device us/median wall us(copy us)fallbacks check[kept]{batched wall us/copy's}, by variant (bench.csv):"
    awk -F, 'NR>1 { key = $1 " " $8; if (key != last) { printf "\n%-24s", key; last = key }
                    printf " %s:%s/%s(%s)%s%s%s%s", $9, $18, $21, $25, $32, $33,
                           $38 == "" ? "" : "[" $38 "]",
                           $51 == "" ? "" : sprintf("{%.1f/%.1f}", $51, $54) } END { print "" }' \
        "$OUT/bench.csv"
    grep "exit [1-9]" <(tar xzf "$OUT/logs.tgz" -O bench.log) || true
    grep -q '"host-stream"' "$OUT/bench.csv" &&
        echo "host-stream n chunk: stream GB/s (H2D GB/s, D2H GB/s; stream/H2D %) check:"
    awk -F, '$35 == "\"host-stream\"" { printf "%s %s chunk %s: %.2f GB/s (H2D %.2f, D2H %.2f; %.1f%%) %s\n",
                                           $1, $9, $41, $46, $43, $45, $47, $33 }' "$OUT/bench.csv"
fi
