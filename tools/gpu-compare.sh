#!/usr/bin/env bash
# gpu-compare.sh - one call on the lent GPU machine: clscan-bench of this tree against an
# earlier tree (a `git archive` unpacked at $1) and CUB, in one run on one device, for
# "before and after" figures: int32 exclusive scan, select-if keep-even and uint32 sort
# of keys at the sizes given ($2, default 2^24,2^28; the sort at 2^28 is checked on the
# host, which takes minutes). Logs and CSV under $OUT; a short table last. Run as
#   source .gpu-kit/env.sh && bash tools/gpu-compare.sh .gpu-kit/base
set -uo pipefail
base=$1
sizes=${2:-2^24,2^28}
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
            type=int32
            [ $call = sort-keys ] && type=uint32
            echo "== $name round $round $call" >>"$OUT/bench.log"
            timeout 400 "$dir/build-cmp/clscan-bench" --type $type --call $call --sizes "$sizes" \
                --repeats 20 >>"$OUT/bench.log" 2>&1 || echo "FAILED ($?)" >>"$OUT/bench.log"
        done
    done
done
lg=$(echo "$sizes" | tr ',' '\n' | sed 's/2^//' | tr '\n' ' ')
for op in scan select sortk; do
    echo "== cub $op" >>"$OUT/bench.log"
    /tmp/cub_anchor $op $lg >>"$OUT/bench.log" 2>&1
done
cat "$OUT/bench.log"
