#!/usr/bin/env bash
# run.sh - checks libclscan as installed: builds this source tree in DIR/build with
# --prefix=DIR/prefix, installs it there afresh, then builds tests/consumers/consumer.c
# against the install five ways and runs each (on PoCL where it is installed):
#   cmake-shared, cmake-static  find_package(clscan CONFIG): clscan::clscan, clscan::clscan_static
#   pc-shared                   pkg-config --cflags --libs clscan
#   pc-static                   pkg-config --static --cflags --libs clscan-static
#   pc-static-private           libclscan.a with clscan.pc's --static libraries
# and checks that the shared builds load libclscan.so and the static ones do not.
#
# usage: tests/consumers/run.sh DIR [seed]   (DIR is kept, so a second run rebuilds only
# what changed). Exit status 0 when all pass, 77 when there is no OpenCL platform (the
# builds still ran), 1 otherwise.
# SPDX-License-Identifier: MIT
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tests/consumers/run.sh DIR [seed]" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
dir=$(cd "$1" && pwd)
echo '*' >"$dir/.gitignore" # (as meson does in a build directory)
seed=${2:-$(date +%s)}
prefix=$dir/prefix
start=$SECONDS
fail() { echo "consumers: $*" >&2; exit 1; }
for tool in meson ninja cmake pkg-config "${CC:-cc}" readelf; do
    command -v "$tool" >/dev/null || fail "$tool not found"
done

# The library and what it installs (not the tests and examples: they are not installed).
if [ ! -f "$dir/build/build.ninja" ]; then
    meson setup "$dir/build" "$src" --prefix="$prefix" >"$dir/setup.log" 2>&1 ||
        { cat "$dir/setup.log"; fail "meson setup failed"; }
fi
# (build.ninja first: meson regenerates it, and the target list, after a meson.build edit.)
ninja -C "$dir/build" build.ninja >"$dir/build.log" 2>&1 ||
    { tail -40 "$dir/build.log"; fail "meson could not regenerate $dir/build"; }
installed=$(meson introspect "$dir/build" --targets | python3 -c '
import json, os, sys
build = sys.argv[1]
for t in json.load(sys.stdin):
    if t["installed"]:
        for f in t["filename"]:
            print(os.path.relpath(f, build))' "$dir/build")
# shellcheck disable=SC2086 # one output file a word
ninja -C "$dir/build" -j "$(nproc)" $installed >>"$dir/build.log" 2>&1 ||
    { tail -40 "$dir/build.log"; fail "building the library failed"; }
rm -rf "$prefix"
meson install -C "$dir/build" --no-rebuild --quiet >"$dir/install.log" 2>&1 ||
    { cat "$dir/install.log"; fail "meson install failed"; }
pcfile=$(find "$prefix" -name clscan.pc -path '*/pkgconfig/*')
[ -n "$pcfile" ] || fail "no clscan.pc installed under $prefix"
libdir=$(dirname "$(dirname "$pcfile")")
echo "consumers: installed into $prefix ($((SECONDS - start)) s)"

# The builds. Each consumer gets the same seed.
out=$dir/consumers
rm -rf "$out" && mkdir -p "$out"
rm -rf "$dir/cmake"
if ! { cmake -S "$src/tests/consumers" -B "$dir/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release && cmake --build "$dir/cmake"; } >"$dir/cmake.log" 2>&1; then
    cat "$dir/cmake.log"
    fail "the CMake consumer did not build"
fi
cp "$dir/cmake/consumer_cmake_shared" "$out/cmake-shared"
cp "$dir/cmake/consumer_cmake_static" "$out/cmake-static"
export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pc() { pkg-config "$@" || fail "pkg-config $* failed"; }
build_pc() { # name, then compiler and linker arguments
    local name=$1
    shift
    # shellcheck disable=SC2068 # pkg-config's output is split into words on purpose
    "${CC:-cc}" -std=c11 -O2 -o "$out/$name" "$src/tests/consumers/consumer.c" $@ \
        >"$out/$name.log" 2>&1 || { cat "$out/$name.log"; fail "$name did not build"; }
}
# (libclscan.so is not on the loader's path: the shared build names its folder.)
build_pc pc-shared "$(pc --cflags --libs clscan) -Wl,-rpath,$libdir"
build_pc pc-static "$(pc --static --cflags --libs clscan-static)"
# Where the linker takes libclscan.a for -lclscan (-static, or no libclscan.so beside
# it), clscan.pc's Libs.private must name all it needs.
build_pc pc-static-private "$(pc --static --cflags --libs clscan |
    sed 's/-lclscan\b/-Wl,-Bstatic -lclscan -Wl,-Bdynamic/')"
echo "consumers: built 5 consumers ($((SECONDS - start)) s)"

# The runs: the shared builds must need libclscan.so, the static ones must not.
pocl=/etc/OpenCL/vendors/pocl.icd
[ -f "$pocl" ] && export OCL_ICD_VENDORS=$pocl
export CLSCAN_CACHE_DIR=$dir/cache
failed=0 skipped=0
for name in cmake-shared cmake-static pc-shared pc-static pc-static-private; do
    needs=no dynamic=$(readelf -d "$out/$name")
    grep -q 'NEEDED.*libclscan\.so' <<<"$dynamic" && needs=yes
    case "$name:$needs" in
    *-shared:no | *-static*:yes)
        echo "consumers: $name: libclscan.so needed: $needs (wrong)"
        failed=$((failed + 1))
        continue
        ;;
    esac
    rc=0
    "$out/$name" 100003 "$seed" >"$out/$name.out" 2>&1 || rc=$?
    case $rc in
    0) echo "consumers: $name: ok ($(grep -m1 '^consumer: device' "$out/$name.out" | cut -c18-))" ;;
    77) skipped=$((skipped + 1)); echo "consumers: $name: $(tail -1 "$out/$name.out")" ;;
    *)
        echo "consumers: $name: exit $rc (seed $seed):"
        sed 's/^/    /' "$out/$name.out"
        failed=$((failed + 1))
        ;;
    esac
done
echo "consumers: $failed failed, $skipped skipped ($((SECONDS - start)) s in all)"
[ "$failed" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
