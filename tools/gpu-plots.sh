#!/usr/bin/env bash
# gpu-plots.sh - the H100 plots of docs/PERFORMANCE.md on the lent GPU machine, in one
# call: build (release, tools/gpu-build.sh, which also compiles CUB's anchor), clscan-bench
# with CSV output over n = 2^12..2^28 for the main primitives (int32 exclusive add scan,
# select-if keep-even, reduce add and inclusive add scan by int32 keys; uint32 sort-keys
# to 2^27), CUB's calls at the same sizes (.gpu-kit/anchors/cub_anchor.cu, and
# tools/cub_more.cu for reduce), then tools/plot_bench.py: one SVG per primitive.
#   source .gpu-kit/env.sh && bash tools/gpu-plots.sh [sizes] [sort sizes]
# sizes: log2 of n, comma-separated (defaults 12,...,28 and 12,...,27). Writes in
# /tmp/clscan-plots/plots: bench-int32.csv, bench-bykey.csv, bench-sort.csv, cub.txt (the
# anchors' lines, each after the clscan-bench call and type it stands beside), the SVGs
# and plots.log; then all of it as one $OUT/plots.tgz (the device tool brings back few
# files). For the docs: tar -xzf plots.tgz -C /tmp && cp /tmp/plots/*.svg
# /tmp/plots/*.csv /tmp/plots/cub.txt docs/plots/h100/ (tools/plot_bench.py --help: what
# the plots show).
# SPDX-License-Identifier: MIT
set -uo pipefail
sizes=${1:-$(seq -s, 12 28)}
sort_sizes=${2:-$(seq -s, 12 27)}
source "$(dirname "$0")/gpu-build.sh"
dir=/tmp/clscan-plots/plots
log=$dir/plots.log
rm -rf "$dir"
mkdir -p "$dir"
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/cub_more tools/cub_more.cu >"$dir/nvcc-more.log" 2>&1 ||
    tail -20 "$dir/nvcc-more.log"
: >"$log"
pow() { echo "$1" | tr ',' '\n' | sed 's/^/2^/' | paste -sd,; }
start=$SECONDS
# clscan-bench: device time and batched wall of each call, beside its buffer copy.
bench() { # csv type calls mode sizes
    $b/clscan-bench --type "$2" --call "$3" --mode "$4" --sizes "$5" --repeats 10 --warmup 2 \
        --csv "$dir/$1" >>"$log" 2>&1 || echo "clscan-bench --call $3: exit $? (see $log)"
    echo "clscan-bench $3: done ($((SECONDS - start)) s)"
}
bench bench-int32.csv int32 scan,select-if,reduce exclusive "$(pow "$sizes")"
bench bench-bykey.csv int32 seg-keys-add inclusive "$(pow "$sizes")"
bench bench-sort.csv uint32 sort-keys exclusive "$(pow "$sort_sizes")"
# CUB: "CALL TYPE cub_<op> n=2^k us=... copy_us=..." (plot_bench.py's --cub text form).
cub() { # call type exe op sizes
    "$3" "$4" $(echo "$5" | tr ',' ' ') 2>&1 | tee -a "$log" | grep '^cub_' | sed "s/^/$1 $2 /"
}
{
    cub scan int32 /tmp/cub_anchor scan "$sizes"
    cub select-if int32 /tmp/cub_anchor select "$sizes"
    cub seg-keys-add int32 /tmp/cub_anchor bykey "$sizes"
    cub reduce int32 /tmp/cub_more reduce "$sizes"
    cub sort-keys uint32 /tmp/cub_anchor sortk "$sort_sizes"
} >"$dir/cub.txt"
echo "CUB: $(wc -l <"$dir/cub.txt") rows ($((SECONDS - start)) s)"
python3 tools/plot_bench.py "$dir"/bench-{int32,bykey,sort}.csv --cub "$dir/cub.txt" \
    --out "$dir" || echo "plot_bench.py failed"
grep -c FAIL "$log" | sed 's/^/bench rows failing their check: /'
tar -czf "$OUT/plots.tgz" -C "$dir/.." plots && echo "$OUT/plots.tgz: $(ls "$dir" | wc -l) files"
