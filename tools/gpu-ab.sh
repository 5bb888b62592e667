#!/usr/bin/env bash
# gpu-ab.sh - an earlier revision against the working tree on the lent GPU machine, in one
# call: builds both (release; the working tree in build-gpu, the revision in /tmp/ab-old),
# runs the same clscan-bench commands with each build, one after the other, ROUNDS times
# (default 1), then CUB's calls where CUB asks for them, printing a row per bench line
# (build, type, call, mode, n, device us, batched wall us, the copy's batched wall us).
# Logs under $OUT. The device gets the working tree only, so the revision travels as a
# tarball:
#   here:  git archive REV -o .gpu-kit/old.tar
#   there: source .gpu-kit/env.sh && CUB="bykey 20 24 28" \
#              bash tools/gpu-ab.sh .gpu-kit/old.tar '--call seg-add --sizes 2^24' ...
# CUB: arguments of .gpu-kit/anchors/cub_anchor.cu; CUB_MORE: of tools/cub_more.cu
# (each a ';'-separated list of calls).
# SPDX-License-Identifier: MIT
set -uo pipefail
old_tar=$1; shift
source "$(dirname "$0")/gpu-build.sh"
rm -rf /tmp/ab-old && mkdir -p /tmp/ab-old && tar -xf "$old_tar" -C /tmp/ab-old
(cd /tmp/ab-old && meson setup build-gpu --buildtype=release && meson compile -C build-gpu) \
    >"$OUT/build-old.log" 2>&1 || { tail -20 "$OUT/build-old.log"; exit 1; }
row() {
    grep --line-buffered -E "^(int32|uint32|int64|uint64|float|double) " |
        awk -v B="$1" '{ for (i = 1; i <= NF; ++i) if ($i ~ /^2\^[0-9]+$/) break;
                         if (i > NF) next;  # (columns counted from n: select rows end in
                                            # their predicate, several words)
                         printf "%-4s %-6s %-28s %6s dev %9s batched %9s copy-batched %9s\n",
                                B, $1, $2 " " $3, $i, $(i+2), $(i+9), $(i+10); fflush()}'
}
for round in $(seq "${ROUNDS:-1}"); do
    for build in old new; do
        exe=$b/clscan-bench
        [ $build = old ] && exe=/tmp/ab-old/build-gpu/clscan-bench
        for args in "$@"; do
            # (Word splitting of args is wanted: each is a list of options.)
            $exe $args --repeats 10 --warmup 2 2>&1 | tee -a "$OUT/bench-$build.log" | row $build
        done
    done
done
IFS=';' read -ra calls <<<"${CUB:-}"
for c in "${calls[@]}"; do /tmp/cub_anchor $c 2>&1 | tee -a "$OUT/cub.log" | grep '^cub_'; done
if [ -n "${CUB_MORE:-}" ]; then
    nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/cub_more tools/cub_more.cu >"$OUT/nvcc-more.log" 2>&1 ||
        tail -20 "$OUT/nvcc-more.log"
    IFS=';' read -ra calls <<<"$CUB_MORE"
    for c in "${calls[@]}"; do /tmp/cub_more $c 2>&1 | tee -a "$OUT/cub.log" | grep '^cub_'; done
fi
