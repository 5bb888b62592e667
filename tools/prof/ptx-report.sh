#!/usr/bin/env bash
# ptx-report.sh - on NVIDIA's OpenCL, the programs a clscan-bench run builds are PTX: this
# runs the bench with a disk cache of its own, cuts the PTX out of each cached program,
# and has ptxas report each kernel's registers, spills and stack (what the source alone
# does not show). PTX files and the report under $OUT/ptx.
#   source .gpu-kit/env.sh && bash tools/prof/ptx-report.sh BUILD_DIR [bench args]
# SPDX-License-Identifier: MIT
set -uo pipefail
b=$1; shift
OUT=${OUT:-/tmp/clscan-out}
d=$OUT/ptx; rm -rf "$d"; mkdir -p "$d/cache"
CLSCAN_DISK_CACHE=1 CLSCAN_CACHE_DIR=$d/cache "$b/clscan-bench" "$@" --repeats 3 --warmup 1 \
    --no-batched >"$d/bench.log" 2>&1
for f in $(find "$d/cache" -type f -name '*.bin' ! -name 'clscan-probe-*'); do
    name=$(basename "$f" .bin)
    python3 - "$f" "$d/$name.ptx" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
i = data.find(b'//'); j = data.find(b'.version')
start = min(x for x in (i, j) if x >= 0)
end = data.find(b'\0', start)
open(sys.argv[2], 'wb').write(data[start:end if end > 0 else len(data)])
PY
    kernels=$(grep -o '^\.entry [a-z_0-9]*\|\.visible \.entry [a-z_0-9]*' "$d/$name.ptx" | awk '{print $NF}' | paste -sd,)
    echo "== $name: $kernels" | tee -a "$d/report.txt"
    ptxas -arch=sm_90 -v "$d/$name.ptx" -o /dev/null 2>&1 |
        grep -E "Compiling|registers|spill|stack" | tee -a "$d/report.txt"
done
