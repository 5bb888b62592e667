#!/usr/bin/env bash
# cpu-all.sh - every primitive of tools/gpu-all.sh's table on one CPU OpenCL stack (the
# ICD loader's first device: set OCL_ICD_VENDORS) against the same run's buffer copy:
# clscan-bench's device time, its ratio to the copy (%), and batched wall over the
# batched copy. No CUB. One row a primitive (tools/primitives.txt), checked rows only.
#   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd tools/cpu-all.sh 2^22 [BENCH]
# BENCH: the clscan-bench to run (default build/clscan-bench; use a release build).
# SPDX-License-Identifier: MIT
S=${1:?size, e.g. 2^22}
bench=${2:-build/clscan-bench}
set -uo pipefail
grep -v '^#' "$(dirname "$0")/primitives.txt" | while read -r name type call mode _; do
  "$bench" --type $type --call $call --mode $mode --sizes $S --repeats 10 --warmup 2 </dev/null 2>&1 |
    awk -v name=$name '{ for (i = 1; i <= NF; ++i) if ($i ~ /^2\^[0-9]+$/) break;
       if (i > NF || index($0, " PASS") == 0) next;
       printf "%-15s %-5s dev %10s ratio %6s batched %10s copy %10s x_copy %6s\n", name, $i, $(i+2), $(i+8), $(i+9), $(i+10), $(i+11) }'
done
