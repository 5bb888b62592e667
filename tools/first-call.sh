#!/usr/bin/env bash
# first-call.sh - what a fresh process pays before its first results, with and without
# the disk cache of built programs (issue 6): runs `clscan-bench --first-call` in new
# processes with the disk cache off (CLSCAN_DISK_CACHE=0), on but empty (cold), and on
# and filled by an earlier process (warm); each with the driver's own kernel cache empty
# (POCL_CACHE_DIR, MESA_SHADER_CACHE_DIR and CUDA_CACHE_PATH pointed at a new directory
# for every process) and warm (a directory of this script's, filled first). Neither the
# user's cache nor the driver's usual one is read or written. Prints a table of
# milliseconds: medians over RUNS processes for the first calls, over WARM_RUNS for the
# warm call (clscan_context_warm, then the same calls).
#
#   tools/first-call.sh [-b BUILD_DIR] [-r RUNS] [-w WARM_RUNS] [-o LOG] [-- BENCH_ARGS]
#
# BENCH_ARGS go to clscan-bench (--platform, --device, --type, --sizes, --predicate).
# The OpenCL implementation is the loader's choice (OCL_ICD_VENDORS and the like). LOG,
# if given, receives every first-call line and the bench's other output.
# SPDX-License-Identifier: MIT
set -euo pipefail
build=build
runs=3
warm_runs=1
log=
while getopts b:r:w:o:h opt; do
    case $opt in
    b) build=$OPTARG ;;
    r) runs=$OPTARG ;;
    w) warm_runs=$OPTARG ;;
    o) log=$OPTARG ;;
    *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
bench=$build/clscan-bench
[ -x "$bench" ] || { echo "first-call.sh: no $bench (build first, or -b BUILD_DIR)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clscan-first-call.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
lines=$tmp/lines
: >"$lines"
: >"$tmp/output"
mkdir -p "$tmp/driver-warm" "$tmp/filled"

# One process: one MODE DISK DRIVER [BENCH_ARGS] runs clscan-bench --first-call MODE
# (calls or warm) with the disk cache DISK (off, cold, warm) and the driver's cache
# DRIVER (empty, warm), and appends its first-call line, tagged, to $lines.
one() {
    local mode=$1 disk=$2 driver=$3 dc cache line
    shift 3
    case $driver in
    empty) dc=$(mktemp -d "$tmp/driver.XXXXXX") ;;
    *) dc=$tmp/driver-warm ;;
    esac
    case $disk in
    off) cache=$tmp/unused ;;
    cold) cache=$(mktemp -d "$tmp/cold.XXXXXX") ;;
    *) cache=$tmp/filled ;;
    esac
    line=$(env CLSCAN_DISK_CACHE=$([ "$disk" = off ] && echo 0 || echo 1) \
        CLSCAN_CACHE_DIR="$cache" POCL_CACHE_DIR="$dc" MESA_SHADER_CACHE_DIR="$dc" \
        CUDA_CACHE_PATH="$dc" "$bench" --first-call "$mode" "$@" 2>&1 |
        tee -a "$tmp/output" | grep '^first-call:' || true)
    [ "$driver" = empty ] && rm -rf "$dc"
    [ "$disk" = cold ] && rm -rf "$cache"
    case $line in
    *check=PASS*) ;;
    *) echo "first-call.sh: $mode, disk cache $disk, driver cache $driver: ${line:-no result}" >&2
       tail -5 "$tmp/output" >&2
       exit 1 ;;
    esac
    echo "$driver $disk $line" >>"$lines"
}

echo "first-call.sh: $("$bench" --list | tr '\n' ' ' | sed 's/  */ /g')" >&2
# Fill the warm caches: ours with every program (the warm call) and the predicate's; the
# driver's with what both a disk-cache run and a run without it leave there.
echo "first-call.sh: filling the warm caches" >&2
one warm warm warm "$@"
one warm off warm "$@"
: >"$lines"
for driver in empty warm; do
    for disk in off cold warm; do
        echo "first-call.sh: driver cache $driver, disk cache $disk" >&2
        for ((i = 0; i < runs; i++)); do one calls $disk $driver "$@"; done
        for ((i = 0; i < warm_runs; i++)); do one warm $disk $driver "$@"; done
    done
done
[ -n "$log" ] && cat "$tmp/output" "$lines" >"$log"

grep -m1 '^clscan-bench --first-call' "$tmp/output" |
    sed 's/^clscan-bench --first-call [a-z]*: /first calls on /; s/; disk cache:.*//'
# The table: medians of each field over the processes of a row.
awk '
function val(key,   i, kv) {
    for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] }
    return ""
}
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
        t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    row = $1 " " $2
    if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
    m = val("mode")
    if (m == "calls") {
        c[row] = c[row] " " val("create_ms"); s1[row] = s1[row] " " val("scan_call_ms")
        s2[row] = s2[row] " " val("scan_total_ms"); q[row] = q[row] " " val("select_total_ms")
        b[row] = val("source_builds") "/" val("loaded"); n[row]++
        bp[row] = val("bank_probe")
    } else {
        w[row] = w[row] " " val("warm_ms"); ws[row] = ws[row] " " val("scan_total_ms")
        wq[row] = wq[row] " " val("select_total_ms"); wb[row] = val("programs") "/" val("source_builds") "/" val("loaded")
        nw[row]++
    }
}
END {
    printf "%-8s %-6s | %8s %9s %10s %10s %9s | %10s %10s %10s %12s | %s\n", "driver", "disk",
        "create", "scan call", "scan+fin", "select+fin", "built/ld", "warm", "scan+fin",
        "select+fin", "prog/blt/ld", "bank probe"
    for (r = 1; r <= rows; r++) {
        k = order[r]; split(k, p, " ")
        printf "%-8s %-6s | %8.1f %9.1f %10.1f %10.1f %9s | %10.1f %10.1f %10.1f %12s | %s\n",
            p[1], p[2], median(c[k]), median(s1[k]), median(s2[k]), median(q[k]), b[k],
            median(w[k]), median(ws[k]), median(wq[k]), wb[k], bp[k]
    }
}' "$lines"
echo "(ms, wall clock; medians of $runs processes for the first calls and $warm_runs for the warm call;"
echo " built/ld: programs built from source / loaded from the disk cache by the first calls;"
echo " prog/blt/ld: the same for the warm process, with the programs it made in all;"
echo " bank probe: where the last first-call process of the row had the bank probe's result:"
echo " measured, loaded from the disk cache, or not-run where the probe does not run)"
