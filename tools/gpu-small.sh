#!/usr/bin/env bash
# gpu-small.sh - small calls on the lent GPU machine: int32 exclusive scan and select-if
# at small sizes under several single-pass tile shapes (work-group size x items per
# work-item, forced through CLSCAN_SP_*), batched wall and device time next to the same
# run's buffer copy, and CUB's calls in the same machine session.
#   source .gpu-kit/env.sh && bash tools/gpu-small.sh [sizes] [shapes]
# sizes: log2 of n, comma-separated (default 16,18,20,22); shapes: WGxITEMS words
# (default "256x32 256x16 256x8 256x4 128x8 128x4 512x8"). Logs: $OUT/small.log.
# SPDX-License-Identifier: MIT
set -uo pipefail
sizes=${1:-16,18,20,22}
shapes=${2:-256x32 256x16 256x8 256x4 128x8 128x4 512x8}
source "$(dirname "$0")/gpu-build.sh"
log=$OUT/small.log
: >"$log"
S=$(echo "$sizes" | tr ',' '\n' | sed 's/^/2^/' | paste -sd,)
echo "call       shape      n       dev_us  batch_us  copy_batch  x_copy"
for call in scan select-if; do
    for shape in $shapes; do
        wg=${shape%x*} items=${shape#*x}
        CLSCAN_SCAN_ALGO=single-pass CLSCAN_SP_WORK_GROUP_SIZE=$wg CLSCAN_SP_ITEMS_PER_THREAD=$items \
            $b/clscan-bench --type int32 --call $call --sizes "$S" --repeats 20 --warmup 2 2>&1 |
            tee -a "$log" |
            awk -v call=$call -v shape=$shape '{ for (i = 1; i <= NF; ++i) if ($i ~ /^2\^[0-9]+$/) break;
                if (i > NF || index($0, " PASS") == 0) next;
                printf "%-10s %-9s %-6s %8s %9s %11s %7s\n", call, shape, $i, $(i+2), $(i+9), $(i+10), $(i+11) }'
    done
done
for op in scan select; do
    /tmp/cub_anchor $op $(echo "$sizes" | tr ',' ' ') 2>&1 | tee -a "$log" | grep '^cub_'
done
