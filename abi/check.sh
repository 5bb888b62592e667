#!/usr/bin/env bash
# abi/check.sh - the ABI check of `meson test` (test 'abi', docs/ABI.md): compares the built
# libclscan.so with the last release's ABI (abi/libclscan-<version>.abi) by abidiff,
# and fails on any change it reports but added functions (and changes reviewed and
# accepted in abi/libclscan-<version>.accepted, if there is one).
#
#   abi/check.sh BASELINE.abi LIBRARY.so HEADERS_DIR
#   abi/check.sh --dump LIBRARY.so HEADERS_DIR OUT.abi   (writes a baseline: at a release)
#
# Exit status: 0 compatible, 1 a change (the report is printed), 77 (meson's "skipped")
# where abidiff is not installed (apt-get install abigail-tools) or the library has no
# debug information to read types from (a build without -g, such as buildtype=release).
# SPDX-License-Identifier: MIT
set -euo pipefail

# How a baseline reads the library: exported functions and the types that the headers
# under HEADERS_DIR define. It keeps file names without their folders (--short-locs: the
# same from any checkout or build directory): abidiff's --headers-dir1 tells the headers'
# types from others by them, and without them it would report no change of any type.
read_opts=(--drop-private-types --exported-interfaces-only)

skip() {
    echo "abi/check.sh: $*: ABI check not run" >&2
    exit 77
}

have_debug_info() {
    # Any DWARF section will do: readelf where binutils are, else a look for the name.
    if command -v readelf >/dev/null; then
        readelf -S "$1" | grep -q '\.debug_info'
    else
        grep -q '\.debug_info' "$1"
    fi
}

if [ "${1:-}" = --dump ]; then
    [ $# = 4 ] || { echo "usage: abi/check.sh --dump LIBRARY.so HEADERS_DIR OUT.abi" >&2; exit 2; }
    lib=$2 headers=$3 out=$4
    command -v abidw >/dev/null || { echo "abi/check.sh: abidw not found (abigail-tools)" >&2; exit 1; }
    have_debug_info "$lib" || { echo "abi/check.sh: $lib has no debug information (build with -g)" >&2; exit 1; }
    abidw "${read_opts[@]}" --headers-dir "$headers" --no-corpus-path --no-comp-dir-path \
        --short-locs --no-elf-needed --type-id-style hash --out-file "$out" "$lib"
    echo "abi/check.sh: wrote $out ($(wc -c <"$out") bytes)"
    exit 0
fi

[ $# = 3 ] || { echo "usage: abi/check.sh BASELINE.abi LIBRARY.so HEADERS_DIR" >&2; exit 2; }
baseline=$1 lib=$2 headers=$3
[ -f "$baseline" ] || { echo "abi/check.sh: no baseline $baseline" >&2; exit 1; }
[ -f "$lib" ] || { echo "abi/check.sh: no library $lib" >&2; exit 1; }
command -v abidiff >/dev/null || skip "abidiff not found (install abigail-tools)"
have_debug_info "$lib" || skip "$lib has no debug information (built without -g)"

# The report: abidiff with --headers-dir1/2, so that only the public headers' types are
# described, added functions included. (--drop-private-types is not given: with
# --headers-dir1 on an ABI file it makes abidiff 2.2 abort; the baseline holds no other
# types anyway.) The opaque struct clscan_context, defined in the library and not in the
# headers, shows as a declaration that became a definition: harmless, filtered out.
rc=0
report=$(abidiff --headers-dir1 "$headers" --headers-dir2 "$headers" --no-corpus-path \
    --fail-no-debug-info "$baseline" "$lib" 2>&1) || rc=$?
echo "abidiff $(basename "$baseline") $(basename "$lib"): exit status $rc"
echo "$report"
# The verdict, from a second run that leaves out added functions and variables (abidiff
# counts an addition as an ABI change, and additions are what the policy allows), line
# numbers, and the header filter: that filter also hides a public struct's field
# retyped between typedefs of other headers (size_t to cl_uint) where no offset or size
# changes. The library's functions see no types but the
# headers' and OpenCL's opaque handles, so nothing private shows without it.
# abidiff's exit status is a bit mask: 1 error, 2 usage error, 4 an ABI change, 8 an
# incompatible one. Bit 8 comes only with removed functions and variables: a struct's
# changed layout, a changed parameter or a renumbered enumerator sets bit 4 alone, so bit
# 4 fails the check too, unless the verdict's report is word for word the one reviewed
# and accepted in <baseline>.accepted (docs/ABI.md: fields appended to
# clscan_context_options). A suppression file could not do that: libabigail 2.2's
# has_data_member_inserted_at = end on clscan_context_options also hid a renumbered
# enumerator of one of its fields' enums.
accepted=${baseline%.abi}.accepted
rc=0
verdict=$(abidiff --no-added-syms --no-show-locs --no-corpus-path --fail-no-debug-info \
    "$baseline" "$lib" 2>&1) || rc=$?
if [ $((rc & 3)) != 0 ]; then
    echo "$verdict"
    echo "abi/check.sh: abidiff failed (exit status $rc)" >&2
    exit 1
fi
if [ $((rc & 8)) != 0 ]; then
    echo "abi/check.sh: INCOMPATIBLE: the library no longer has what $baseline has" >&2
    exit 1
fi
if [ $((rc & 4)) != 0 ]; then
    if [ -f "$accepted" ] && [ "$verdict" = "$(cat "$accepted")" ]; then
        echo "abi/check.sh: the changes from $baseline are those accepted in $accepted"
        exit 0
    fi
    echo "$verdict"
    echo "abi/check.sh: the ABI changed from $baseline in more than additions" \
        "(docs/ABI.md)" >&2
    exit 1
fi
echo "abi/check.sh: no ABI change from $baseline but additions (if any, listed above)"
