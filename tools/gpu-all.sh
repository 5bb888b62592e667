#!/usr/bin/env bash
# gpu-all.sh - every primitive against CUB on the lent GPU machine, in one call: build
# (release), then for each primitive CUB's call (.gpu-kit/anchors/cub_anchor.cu, and
# tools/cub_more.cu for reduce, reduce by key, run-length encode, histogram, unique and the
# matrix scan) and clscan-bench's, both timed as batched wall (K calls back to back, one
# finish, median of 5 batches) next to their own buffer copy of the same bytes, and one
# table last.
#   source .gpu-kit/env.sh && bash tools/gpu-all.sh [scan sizes] [sort sizes]
# sizes: log2 of n, comma-separated (defaults 16,20,24,28 and 20,24,27). Logs: $OUT/all.log.
# The primitives and CUB's calls: tools/primitives.txt.
# ONLY: an extended regular expression; only the primitives whose names match it run.
# BENCH_ARGS: more clscan-bench options for every row of ours (e.g. --rotations 1).
# SPDX-License-Identifier: MIT
set -uo pipefail
scan_sizes=${1:-16,20,24,28}
sort_sizes=${2:-20,24,27}
source "$(dirname "$0")/gpu-build.sh"
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/cub_more tools/cub_more.cu >"$OUT/nvcc-more.log" 2>&1 ||
    tail -20 "$OUT/nvcc-more.log"
log=$OUT/all.log
: >"$log"
pow() { echo "$1" | tr ',' '\n' | sed 's/^/2^/' | paste -sd,; }
# rows: "name n ours ours_copy" from clscan-bench (columns counted from n, the first 2^k).
ours() { # name type call mode sizes [env...]
    local name=$1 type=$2 call=$3 mode=$4 ns=$5
    shift 5
    [[ $name =~ ${ONLY:-.} ]] || return 0
    env "$@" $b/clscan-bench --type "$type" --call "$call" --mode "$mode" --sizes "$ns" \
        --repeats 10 --warmup 2 ${BENCH_ARGS:-} </dev/null 2>&1 | tee -a "$log" |
        awk -v name="$name" '{ for (i = 1; i <= NF; ++i) if ($i ~ /^2\^[0-9]+$/) break;
                               if (i > NF || index($0, " PASS") == 0) next;
                               print name, $i, $(i+9), $(i+10), $(i+2) }'
}
# rows: "name n cub cub_copy" from cub_anchor (or tools/cub_more.cu's, with CUB_EXE).
cub() { # name op sizes
    [[ $1 =~ ${ONLY:-.} ]] || return 0
    ${CUB_EXE:-/tmp/cub_anchor} "$2" $(echo "$3" | tr ',' ' ') </dev/null 2>&1 | tee -a "$log" |
        sed -nE "s/^cub_[a-z0-9]+ n=(2\^[0-9]+) us=([0-9.]+) copy_us=([0-9.]+).*/$1 \1 \2 \3/p"
}
S=$(pow "$scan_sizes")
T=$(pow "$sort_sizes")
# (compact is clscan_compact; its CUB row would be select-if's.)
grep -v '^#' "$(dirname "$0")/primitives.txt" | while read -r name type call mode sizes cubop; do
    if [ "$sizes" = sort ]; then logs=$sort_sizes ns=$T; else logs=$scan_sizes ns=$S; fi
    case $cubop in
        anchor:*) cub "$name" "${cubop#anchor:}" "$logs" ;;
        more:*) CUB_EXE=/tmp/cub_more cub "$name" "${cubop#more:}" "$logs" ;;
    esac
    ours "$name" "$type" "$call" "$mode" "$ns"
done >"$OUT/rows.txt"
# The table: per primitive and size, ours (batched wall, its copy, dev time) and CUB's.
echo "primitive       n      ours_us  ours_copy  x_copy  dev_us   cub_us  cub_copy  ours/cub"
awk '{ k = $1 " " $2 }
     NF == 4 { cub[k] = $3; cubc[k] = $4; if (!(k in seen)) { seen[k] = 1; ord[++m] = k } }
     NF == 5 { us[k] = $3; copy[k] = $4; dev[k] = $5; if (!(k in seen)) { seen[k] = 1; ord[++m] = k } }
     END { for (j = 1; j <= m; ++j) { k = ord[j]; split(k, p, " ");
             printf "%-15s %-5s %8s %10s %7s %7s %8s %9s %9s\n", p[1], p[2],
                    (k in us) ? us[k] : "-", (k in copy) ? copy[k] : "-",
                    (k in us) ? sprintf("%.2f", us[k] / copy[k]) : "-",
                    (k in dev) ? dev[k] : "-", (k in cub) ? cub[k] : "-",
                    (k in cubc) ? cubc[k] : "-",
                    (k in us && k in cub) ? sprintf("%.2f", us[k] / cub[k]) : "-" } }' \
    "$OUT/rows.txt" | tee "$OUT/table.txt"
{ grep -c FAIL "$log" || true; } | sed 's/^/bench rows failing their check: /'
# (grep -c exits 1 when it counts none; the script's status is that of its checks.)
! grep -q FAIL "$log"
