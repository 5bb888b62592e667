#!/usr/bin/env bash
# gpu-seg.sh - segmented scans on the lent GPU machine, in one call: build (release), the
# general-scan tests on the GPU (optionally), then clscan-bench of the plain int32 and
# int64 inclusive add against int32 add by int32 keys (seg-keys-add: CUB's
# InclusiveSumByKey), by flags (seg-add) and the 2x2 matrix product (mat2), each in the
# variants given, and CUB's InclusiveSumByKey and ExclusiveSum (.gpu-kit/anchors/
# cub_anchor.cu) in the same call; then the first use with warm caches (the disk cache's
# programs and bank probe, and the driver's cache): clscan_context_create and the first
# scan with clFinish, in fresh processes. Logs under $OUT, rows on stdout as they come.
#   source .gpu-kit/env.sh && bash tools/gpu-seg.sh [sizes] [test] [variants]
# sizes: log2 of n, comma-separated (default 20,24,28); variants: name=ENV=V:ENV=V,...
# (default "default=-"), each a bench run with those variables.
# SPDX-License-Identifier: MIT
set -uo pipefail
sizes=${1:-20,24,28}
tests=${2:-}
variants=${3:-default=-}
source "$(dirname "$0")/gpu-build.sh"
if [ "$tests" = test ]; then
    for t in "general -" "general-silent CLSCAN_LOOKBACK_TEST=silent" \
             "scan-silent CLSCAN_LOOKBACK_TEST=silent"; do
        set -- $t
        exe=$b/tests/test_${1%%-*}
        env=$( [ "$2" = - ] || echo "$2")
        # (CLSCAN_KERNEL_INCLUDE_DIR as meson test sets it: test_scan builds a kernel
        # that includes the library's OpenCL C.)
        if env CK_DEFAULT_TIMEOUT=580 CLSCAN_KERNEL_INCLUDE_DIR="$PWD/cl" $env "$exe" \
            >"$OUT/test-$1.log" 2>&1; then
            echo "test $1: OK ($(grep -c . "$OUT/test-$1.log") lines)"
        else
            echo "test $1: FAILED"; tail -15 "$OUT/test-$1.log"
        fi
    done
fi
ns=$(echo "$sizes" | tr ',' '\n' | sed 's/^/2^/' | paste -sd,)
: >"$OUT/seg-bench.log"
row_table() {
    grep --line-buffered -E "^(int32|int64|uint32) |^cub_|^bykey|^scan " |
        awk '/^(cub_|bykey|scan )/ {print; fflush(); next}
             {printf "%-6s %-24s %6s dev %9s batched %9s copy-batched %8s fb %s %s\n",
                     $1, $2 " " $3, $(NF-14), $(NF-12), $(NF-5), $(NF-4), $(NF-1), $NF;
              fflush()}'
}
for op in bykey scan; do
    /tmp/cub_anchor $op $(echo "$sizes" | tr ',' ' ') 2>&1 | tee -a "$OUT/seg-bench.log" |
        sed "s/^/$op /" | row_table
done
for v in $(echo "$variants" | tr ',' ' '); do
    name=${v%%=*}
    env=$(echo "${v#*=}" | tr ':' ' ')
    [ "$env" = - ] && env=
    echo "== $name $env" | tee -a "$OUT/seg-bench.log"
    env $env $b/clscan-bench --call seg-keys-add,seg-add,mat2 --mode inclusive --sizes "$ns" \
        --repeats 20 --warmup 3 2>&1 | tee -a "$OUT/seg-bench.log" | row_table
    [ "$name" = default ] &&
        $b/clscan-bench --type int32,int64 --call scan --mode inclusive --sizes "$ns" \
            --repeats 20 --warmup 3 2>&1 | tee -a "$OUT/seg-bench.log" | row_table
done
# First use with warm caches: one process fills both caches, the next ones are timed.
d=$(mktemp -d)
first() { env CLSCAN_DISK_CACHE=1 CLSCAN_CACHE_DIR=$d/cache CUDA_CACHE_PATH=$d/driver \
              $b/clscan-bench --first-call calls 2>&1 | grep '^first-call:'; }
first >/dev/null
first >/dev/null
for i in 1 2 3 4 5; do first; done | tee "$OUT/first-call.log" |
    sed -E 's/.*(cl_setup_ms=[^ ]*) (create_ms=[^ ]*).*(scan_total_ms=[^ ]*).*(bank_probe=[^ ]*) (check=[^ ]*).*/first use (warm caches): \1 \2 \3 \4 \5/'
