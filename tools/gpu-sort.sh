#!/usr/bin/env bash
# gpu-sort.sh - the radix sort on the lent GPU machine, in one call: build (release),
# the sort tests on the GPU with the device's default sort and with silent tiles (the
# one-sweep look-back's fallback), then clscan-bench of sort-keys and sort-pairs (uint32 keys,
# int64 and float keys) with the one-sweep sort, uint32 with the three-step sort (up to
# 2^24), and CUB's SortKeys and SortPairs
# (.gpu-kit/anchors/cub_anchor.cu) in the same call. Logs under $OUT, a table last.
#   source .gpu-kit/env.sh && bash tools/gpu-sort.sh [sizes] [test|-] [nobench|variants]
# sizes: log2 of n, comma-separated (default 20,24,27); "test" runs the tests too;
# variants: name=ENV=V:ENV=V,... (default "default=-"), each a run of the one-sweep
# uint32 benchmark with those variables, where BUILD=DIR runs DIR/clscan-bench (another
# build, to compare kernels in one call); the int64, float and three-step rows run once
# after them (not with SORT_ONLY_VARIANTS=1). The
# device tool brings back at most 8 files: the test logs travel as one sort-tests.tgz,
# the benchmark as sort-bench.log (gpu-run.sh writes bench.log: run after it, or not in
# the same $OUT), and the table goes to stdout as each part ends.
# SPDX-License-Identifier: MIT
set -uo pipefail
sizes=${1:-20,24,27}
tests=${2:-}
variants=${3:-default=-}
source "$(dirname "$0")/gpu-build.sh"
if [ "$tests" = test ]; then
    for v in "default -" "silent CLSCAN_LOOKBACK_TEST=silent,CLSCAN_LOOKBACK_SPINS=8"; do
        set -- $v
        env=$( [ "$2" = - ] || echo "$2" | tr ',' ' ')
        if env CK_DEFAULT_TIMEOUT=580 $env $b/tests/test_sort >"/tmp/test-$1.log" 2>&1; then
            echo "test_sort $1: OK"
        else
            echo "test_sort $1: FAILED"; grep -v "^  sort" "/tmp/test-$1.log" | tail -15
        fi
    done
    tar -czf "$OUT/sort-tests.tgz" -C /tmp $(cd /tmp && ls test-*.log)
fi
[ "$variants" = nobench ] && exit 0
ns=$(echo "$sizes" | tr ',' '\n' | sed 's/^/2^/' | paste -sd,)
small=$(echo "$sizes" | tr ',' '\n' | awk '$1 <= 24' | sed 's/^/2^/' | paste -sd,)
: >"$OUT/sort-bench.log"
# The rows of a clscan-bench run (or cub_anchor's lines) as they come.
row_table() {
    grep --line-buffered -E "^(uint32|int64|float) .*sort|^cub_" |
        awk '/^cub_/ {print; fflush(); next}
             {printf "%-7s %-11s %6s dev %9s wall %9s batched %9s copy-batched %8s %s\n",
                     $1, $2, $4, $6, $7, $13, $14, $NF; fflush()}'
}
bench() { # algo type calls sizes [env...]
    local algo=$1 type=$2 calls=$3 ns=$4 exe=$b/clscan-bench
    shift 4
    local env=()
    for e in "$@"; do
        case $e in BUILD=*) exe=${e#BUILD=}/clscan-bench ;; *) env+=("$e") ;; esac
    done
    echo "== $algo $type $calls ${env[*]} ($exe)" | tee -a "$OUT/sort-bench.log"
    env CLSCAN_SORT_ALGO=$algo "${env[@]}" $exe --type "$type" --call "$calls" --sizes "$ns" \
        --repeats 10 --warmup 2 2>&1 | tee -a "$OUT/sort-bench.log" | row_table
}
# CUB first: it is quick, and a timeout later keeps it.
for op in sortk sortp; do
    /tmp/cub_anchor $op $(echo "$sizes" | tr ',' ' ') 2>&1 | tee -a "$OUT/sort-bench.log" |
        row_table
done
for v in $(echo "$variants" | tr ',' ' '); do
    env=$(echo "${v#*=}" | tr ':' ' ')
    [ "$env" = - ] && env=
    echo "== variant ${v%%=*}" >>"$OUT/sort-bench.log"
    bench onesweep uint32 sort-keys,sort-pairs "$ns" $env
done
# (SORT_ONLY_VARIANTS=1: the variants' rows only.)
[ "${SORT_ONLY_VARIANTS:-0}" = 1 ] && exit 0
bench onesweep int64 sort-keys "$ns"
bench onesweep float sort-keys "$ns"
# The three-step sort's host checks at 2^27 take minutes: up to 2^24 only.
[ -n "$small" ] && bench three-step uint32 sort-keys,sort-pairs "$small"

