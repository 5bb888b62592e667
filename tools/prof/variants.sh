#!/usr/bin/env bash
# variants.sh - builds copies of the tree with one-sweep defaults changed and prints
# sort-profile for each (profiling aid; run on the GPU machine after env.sh).
# SPDX-License-Identifier: MIT
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
root=$PWD
run_variant() { # name sed-expr
    local d=/tmp/v-$1; rm -rf $d; mkdir -p $d
    git ls-files -co --exclude-standard | grep -v '^.gpu-kit' | tar -cf - -T - | tar -xf - -C $d
    [ -n "$2" ] && sed -i "$2" $d/cl/clscan_sort_onesweep.cl
    [ -n "${3:-}" ] && sed -i "$3" $d/src/algo/sort.c
    (cd $d && meson setup b --buildtype=release >/dev/null && ninja -C b libclscan.so.0.1.0 >/dev/null) || { echo "$1: build failed"; return; }
    gcc -O2 -o $d/prof -I$d/include tools/prof/sort-profile.c -L$d/b -lclscan -lOpenCL -Wl,-rpath,$d/b
    for s in ${SIZES:-24 27}; do echo -n "$1 "; CLSCAN_DISK_CACHE=0 $d/prof $s; echo -n "$1 "; CLSCAN_DISK_CACHE=0 $d/prof $s pairs; done
}
run_variant base ""
run_variant items32 "" 's/os.items = item_bytes <= 4 ? 24 :/os.items = item_bytes <= 4 ? 32 :/'
run_variant window2 's/^#define CLSCAN_OS_WINDOW 4/#define CLSCAN_OS_WINDOW 2/'
run_variant hist16 's/^#define CLSCAN_OS_HIST_LOADS 8/#define CLSCAN_OS_HIST_LOADS 16/'
