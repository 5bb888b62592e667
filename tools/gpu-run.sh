#!/usr/bin/env bash
# gpu-run.sh - one call on the lent GPU machine: build, selftest of every work-group and
# sub-group variant that can run there, the test suite, the example, and clscan-bench of
# the work-group scan variants with and without padding; logs under $OUT, a short table
# last. Run from the repository root as
#   source .gpu-kit/env.sh && bash tools/gpu-run.sh [check|bench|all]
# The device tool brings back at most 8 files: logs travel as one logs.tgz.
set -uo pipefail
mode=${1:-all}
OUT=${OUT:-/tmp/clscan-out}
mkdir -p "$OUT"
b=build-gpu
step() { echo "== $*" >&2; }

step build
{ meson setup $b --buildtype=release && meson compile -C $b; } >"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
{ clinfo -l; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } \
    >"$OUT/clinfo.log" 2>&1

# The variants: name, then environment settings ("-" for none).
variants=(
    "subgroup-nvidia -"
    "blelloch CLSCAN_WG_SCAN=blelloch"
    "subgroup-local CLSCAN_WG_SCAN=subgroup,CLSCAN_SUBGROUP_IMPL=local"
    "subgroup-local64 CLSCAN_WG_SCAN=subgroup,CLSCAN_SUBGROUP_IMPL=local,CLSCAN_SUBGROUP_WIDTH=64"
)
envof() { [ "$1" = - ] && return; echo "$1" | tr ',' ' '; }

if [ "$mode" != bench ]; then
    step selftest and meson test, in parallel
    pids=()
    for v in "${variants[@]}"; do
        set -- $v
        # The default gets the full size list, the others the quick one.
        quick=--quick
        [ "$1" = subgroup-nvidia ] && quick=
        ( timeout 450 env $(envof "$2") $b/clscan-selftest --seed 20261122 $quick >"$OUT/selftest-$1.log" 2>&1
          echo "### exit $?" >>"$OUT/selftest-$1.log" ) &
        pids+=($!)
    done
    timeout 480 meson test -C $b --print-errorlogs --num-processes 8 >"$OUT/test.log" 2>&1
    test_rc=$?
    wait "${pids[@]}"
fi

if [ "$mode" != check ]; then
step bench
sizes=2^16,2^20,2^24,2^28
: >"$OUT/bench.log"
bench_one() { # name env [extra bench args]
    local name=$1 e=$2
    shift 2
    echo "### $name ($e)" >>"$OUT/bench.log"
    timeout 150 env $(envof "$e") $b/clscan-bench --sizes $sizes --repeats 30 "$@" \
        --csv "$OUT/bench-$name.part" >>"$OUT/bench.log" 2>&1
    echo "### $name exit $?" >>"$OUT/bench.log"
    # One CSV for all variants (the variant first), since few files come back.
    [ -s "$OUT/bench.csv" ] || grep -m1 '^platform' "$OUT/bench-$name.part" |
        sed 's/^/variant,/' >"$OUT/bench.csv"
    grep -vE '^(#|platform)' "$OUT/bench-$name.part" | sed "s/^/$name,/" >>"$OUT/bench.csv"
    rm -f "$OUT/bench-$name.part"
}
for v in "${variants[@]}"; do
    set -- $v
    bench_one "$1" "$2" --type int32 --op add --mode exclusive
    bench_one "$1-nopad" "$( [ "$2" = - ] && echo CLSCAN_PADDING=0 || echo "$2,CLSCAN_PADDING=0")" \
        --type int32 --op add --mode exclusive
done
bench_one "float-incl-subgroup-nvidia" - --type float --op add --mode inclusive
bench_one "float-incl-blelloch" CLSCAN_WG_SCAN=blelloch --type float --op add --mode inclusive
sizes=2^16,2^20,2^24,2^27
bench_one "int64-subgroup-nvidia" - --type int64 --op add --mode exclusive
bench_one "int64-blelloch" CLSCAN_WG_SCAN=blelloch --type int64 --op add --mode exclusive
fi

(cd "$OUT" && tar czf logs.tgz *.log && rm -f *.log)
echo
if [ "$mode" != bench ]; then
    for v in "${variants[@]}"; do
        set -- $v
        echo "selftest $1: $(tar xzf "$OUT/logs.tgz" -O "selftest-$1.log" | grep -E 'passed, |### exit' | tr '\n' ' ')"
    done
    echo "meson test: $(tar xzf "$OUT/logs.tgz" -O test.log | grep -E '^(Ok|Fail|Timeout):' | tr '\n' ' ') (exit $test_rc)"
    tar xzf "$OUT/logs.tgz" -O test.log | grep -E "^ *[0-9]+/[0-9]+ " | grep -v " OK " || true
    tar xzf "$OUT/logs.tgz" -O selftest-subgroup-nvidia.log | grep -m3 -E "bank probe|scan layers|local memory"
fi
if [ "$mode" != check ]; then
    echo "n:median device us/median wall us(copy us)check, by variant (bench.csv):"
    awk -F, 'NR>1 { if ($1 != last) { printf "\n%-28s", $1; last = $1 }
                    printf " %s:%s/%s(%s)%s", $8, $17, $20, $24, $31 } END { print "" }' \
        "$OUT/bench.csv"
    grep "exit [1-9]" <(tar xzf "$OUT/logs.tgz" -O bench.log) || true
fi
