#!/usr/bin/env bash
# gpu-build.sh - sourced by the GPU scripts that compare with CUB (gpu-sort.sh,
# gpu-seg.sh): sets OUT (default /tmp/clscan-out) and b=build-gpu, builds the library
# there (release; an existing build directory is reused), logs to $OUT/build.log (its
# tail and exit 1 on failure), and compiles .gpu-kit/anchors/cub_anchor.cu to
# /tmp/cub_anchor (log: $OUT/nvcc.log).
# SPDX-License-Identifier: MIT
OUT=${OUT:-/tmp/clscan-out}
mkdir -p "$OUT"
b=build-gpu
{ { [ -f $b/build.ninja ] || meson setup $b --buildtype=release; } && meson compile -C $b; } \
    >"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/cub_anchor .gpu-kit/anchors/cub_anchor.cu \
    >"$OUT/nvcc.log" 2>&1 || tail -20 "$OUT/nvcc.log"
