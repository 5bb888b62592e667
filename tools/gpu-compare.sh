#!/usr/bin/env bash
# gpu-compare.sh - one call on the lent GPU machine: clscan-bench of this tree against an
# earlier tree (a `git archive` unpacked at $1) and CUB, in one run on one device, for
# "before and after" figures: int32 exclusive scan, select-if keep-even and uint32 sort
# of keys at the sizes given ($2, default 2^24,2^28; $3 the sort's, default 2^24: at 2^28
# its host check takes minutes), two rounds alternating the trees, then CUB. This tree's
# rows also carry batched wall times (batch us, copy batch, x copy), taken as cub_anchor
# takes CUB's (K calls, one wait, median of 5; the same K), for a like-for-like column;
# a base tree older than them prints none. Logs under $OUT; the table last. Run as
#   source .gpu-kit/env.sh && bash tools/gpu-compare.sh .gpu-kit/base
# SPDX-License-Identifier: MIT
set -uo pipefail
base=$1
sizes=${2:-2^24,2^28}
sort_sizes=${3:-2^24}
OUT=${OUT:-/tmp/clscan-out}
mkdir -p "$OUT"
for t in base:$base head:.; do
    name=${t%%:*} dir=${t#*:}
    (cd "$dir" && meson setup build-cmp --buildtype=release >/dev/null &&
        meson compile -C build-cmp clscan-bench) >"$OUT/build-$name.log" 2>&1 ||
        { tail -30 "$OUT/build-$name.log"; exit 1; }
done
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/cub_anchor .gpu-kit/anchors/cub_anchor.cu
logs=("$OUT/bench.log")
: >"$OUT/bench.log"
# Rounds alternate the trees, so that a drift of the clocks shows in both.
for round in 1 2; do
    for t in base:$base head:.; do
        name=${t%%:*} dir=${t#*:}
        for call in scan select-if sort-keys; do
            type=int32 at=$sizes
            [ $call = sort-keys ] && type=uint32 at=$sort_sizes
            echo "== $name round $round $call" >>"$OUT/bench.log"
            timeout 400 "$dir/build-cmp/clscan-bench" --type $type --call $call --sizes "$at" \
                --repeats 20 >>"$OUT/bench.log" 2>&1 || echo "FAILED ($?)" >>"$OUT/bench.log"
        done
    done
done
lg=$(echo "$sizes" | tr ',' '\n' | sed 's/2^//' | tr '\n' ' ')
for op in scan select sortk; do
    echo "== cub $op" >>"$OUT/bench.log"
    [ $op = sortk ] && lg=$(echo "$sort_sizes" | tr ',' '\n' | sed 's/2^//' | tr '\n' ' ')
    /tmp/cub_anchor $op $lg >>"$OUT/bench.log" 2>&1
done
cat "$OUT/bench.log"
