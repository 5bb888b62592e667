#!/usr/bin/env bash
# dev.sh - the README's two commands: `tools/dev.sh selftest` builds libclscan and runs
# clscan-selftest on every OpenCL device; `tools/dev.sh test` builds and runs the test
# suite on each OpenCL implementation present, plus the quick selftest under Oclgrind
# (default tuning, two emulated device profiles of tests/profiles.txt, the look-back
# modes) and the general-scan tests under Oclgrind, a program built with CMake and
# pkg-config against libclscan as installed (tests/consumers/run.sh), and the host
# code under AddressSanitizer + UBSan, valgrind memcheck and ThreadSanitizer on PoCL; it
# leaves out the meson suites of extra tunings (tests/meson.build), which
# `tools/dev.sh test-full` adds; `tools/dev.sh sanitizers` runs only the three stages.
# `tools/dev.sh quick` is the inner loop (under 3 minutes on 2 cores with a warm build):
# on PoCL only, the unit tests and a few core suites, then the quick selftest.
# Both install what a fresh Debian 12 lacks (when run as root, or with sudo) first; test
# also installs Intel's OpenCL CPU runtime from PyPI and runs the selftest on both its
# sub-group paths and some suites there (stage_intel).
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CLSCAN_BUILD_DIR:-build}
# Open MPI: for examples/mpi_scan.c only (the library does not use MPI).
mpi_packages=(libopenmpi-dev openmpi-bin)
# g++, opencl-clhpp-headers: tests/test_cpp.cpp (include/clscan.hpp): not built without g++,
# its Khronos C++ bindings part left out without the headers.
packages=(pocl-opencl-icd mesa-opencl-icd oclgrind ocl-icd-opencl-dev opencl-c-headers cmake
          clinfo check meson ninja-build pkg-config gcc g++ opencl-clhpp-headers python3
          python3-venv valgrind "${mpi_packages[@]}"
          python3-pyopencl python3-numpy python3-pytest)  # the 'python' test (python/)
packages+=(abigail-tools)  # abidw, abidiff: the 'abi' test (abi/check.sh, docs/ABI.md)
packages+=(gdb)  # the backtrace of a test's core, where one crashed (crash_backtraces)

usage() {
    echo "usage: tools/dev.sh selftest [clscan-selftest options] | quick | test | test-full |" \
        "sanitizers | deps" >&2
    exit 2
}

# Installs the Debian packages of the list that are missing (where apt-get and dpkg are;
# Open MPI is optional, and without it the MPI example is not built). With the argument
# nompi (`dev.sh selftest`, which needs no MPI) Open MPI is left out. Without dpkg (a
# GPU host set up by hand, another distribution), what the build needs is checked and
# the rest left to the tests, which skip what is missing.
install_deps() {
    local want=() pkg
    if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
        if command -v meson >/dev/null && command -v ninja >/dev/null &&
            pkg-config --exists OpenCL check 2>/dev/null; then
            return
        fi
        echo "dev.sh: meson, ninja, OpenCL and Check development files are needed" >&2
        exit 1
    fi
    for pkg in "${packages[@]}"; do
        [ "${1:-}" = nompi ] && [[ " ${mpi_packages[*]} " == *" $pkg "* ]] && continue
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
            want+=("$pkg")
    done
    [ ${#want[@]} = 0 ] && return
    local sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    echo "dev.sh: installing ${want[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${want[@]}" >/dev/null
}

build() {
    install_deps "$@"
    [ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
    meson compile -C "$build" >/dev/null
}

# rusticl shows its llvmpipe device only when asked to.
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}

# Runs `meson test` with the ICD loader restricted to one implementation's .icd file (and
# the meson arguments after it: the suites to leave out); adds its passes and failures to
# the totals.
passed=0
failed=0
# What failed, a short entry each, printed again just before the totals (CI shows the
# end of the output, where the details printed at the time may not reach): fail N TEXT
# adds N failures and the entry TEXT.
failures=()
fail() {
    failed=$((failed + $1))
    failures+=("$2")
}
# The totals line, after the entries of what failed; the argument: text for its end.
report() {
    if [ ${#failures[@]} -gt 0 ]; then
        echo "== what failed"
        printf '%s\n' "${failures[@]}"
    fi
    echo "$passed passed, $failed failed${1:-}"
}
run_suite() {
    local name=$1 icd=$2
    shift 2
    echo "== meson test on $name ($icd)${*:+ $*}"
    local log marker
    marker=$(mktemp)
    # (Cores allowed, so that a test that crashes leaves one for crash_backtraces.)
    log=$(ulimit -c unlimited 2>/dev/null
          OCL_ICD_VENDORS=$icd meson test -C "$build" --print-errorlogs "$@" 2>&1) || true
    crash_backtraces "$marker"
    rm -f "$marker"
    echo "$log" | grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Timeout|Expected Fail|Unexpected Pass|Skipped):" || true
    local ok fail timeout
    ok=$(echo "$log" | sed -n 's/^Ok: *\([0-9]*\).*/\1/p' | tail -1)
    fail=$(echo "$log" | sed -n 's/^Fail: *\([0-9]*\).*/\1/p' | tail -1)
    timeout=$(echo "$log" | sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' | tail -1)
    if [ -z "$ok" ]; then # meson did not get as far as a summary
        echo "$log" | tail -30
        fail 1 "meson test on $name: no summary: $(echo "$log" | tail -3)"
        return
    fi
    passed=$((passed + ok))
    [ "${fail:-0}" = 0 ] && [ "${timeout:-0}" = 0 ] && return
    echo "$log" | grep -B2 -A40 "stdout:" | head -120
    # (The entry: meson's lines of the failed tests, then Check's failure lines and any
    # signal, crash or FAIL line of the tests' output.)
    fail $((${fail:-0} + ${timeout:-0})) "meson test on $name:
$(echo "$log" | grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)|:[EF]:|signal|^FAIL |Segmentation|Abort" |
    awk '!seen[$0]++' | head -12)"
}

# Prints the threads' backtraces of each core file written under the build directory
# since the file `marker` (where the kernel's core_pattern writes a crashing process's core
# into its working directory), then deletes the core: an intermittent crash in CI then
# says where it happened (docs/IMPLEMENTATION-ISSUES.md, the rusticl crash). Quiet where
# there is none.
crash_backtraces() {
    local marker=$1 core exe
    while IFS= read -r core; do
        echo "== core $core"
        if ! command -v gdb >/dev/null; then
            echo "   (gdb is not installed: no backtrace)"
        else
            exe=$(gdb -batch -c "$core" 2>&1 |
                sed -n "s/^Core was generated by \`\([^ ']*\).*/\1/p") || true
            # (A relative path is from the crashed process's working directory, where its
            # core was written.)
            case $exe in /* | '') ;; *) exe=$(dirname "$core")/${exe#./} ;; esac
            echo "   of ${exe:-an unknown program}"
            # (|| true: under set -e and pipefail, a backtrace that cannot be read must
            # not stop the stages.)
            if [ -n "$exe" ]; then
                gdb -batch -ex "thread apply all bt 24" "$exe" "$core" 2>&1 |
                    grep -E '^(Thread|#|Program terminated)' | head -150 || true
            fi
        fi
        rm -f "$core"
    done < <(find "$build" -maxdepth 3 -type f \( -name core -o -name 'core.[0-9]*' \) \
                  -newer "$marker" 2>/dev/null)
}

# The quick selftest under Oclgrind with race and uninitialised-value checks: any
# error Oclgrind reports fails it, as does any failed case. Arguments: a name for the
# log, the CLSCAN_* settings (NAME=VALUE words, or ""), then the program and its
# arguments. (oclgrind_report: the lines of its reports.)
oclgrind_report='(memory address 0x|divergence detected|^Invalid |^Uninitialized |depends on uninitialized)'
# A settings word oclgrind_checks=A,B replaces the two checks (see general_runs).
run_oclgrind() {
    local name=$1 settings="" checks="--data-races --uninitialized" word
    for word in $2; do
        case "$word" in
        oclgrind_checks=*) checks=${word#oclgrind_checks=} checks=${checks//,/ } ;;
        *) settings+=" $word" ;;
        esac
    done
    shift 2
    echo "== ${*#$build/} under oclgrind $checks ($name)"
    local log=$build/oclgrind-$name.log
    local rc=0 start=$SECONDS
    # shellcheck disable=SC2086 # settings are NAME=VALUE words, checks options
    env $settings oclgrind $checks "$@" >"$log" 2>&1 </dev/null || rc=$?
    local errors
    # Oclgrind's reports name the memory address ("Read-write data race at local memory
    # address 0x...", "Invalid read of size 4 at global memory address 0x..."), or say
    # "Uninitialized value written to ..." or "Controlflow depends on uninitialized value".
    errors=$(grep -cE "$oclgrind_report" "$log" || true)
    grep -E "scan layers" "$log" || true
    tail -n 1 "$log"
    if [ "$rc" = 0 ] && [ "$errors" = 0 ]; then
        echo "oclgrind ($name): no errors reported ($((SECONDS - start)) s, two runs at a time)"
        passed=$((passed + 1))
    else
        echo "oclgrind ($name): exit $rc, $errors error reports (see $log)"
        grep -m 10 -A8 -E "$oclgrind_report" "$log" || true
        failed=$((failed + 1)) # (in the background: wait_oclgrind counts the run)
    fi
}

# The radix sorts under Oclgrind, both algorithms (three-step, and one-sweep in its
# portable form), 4- and 8-byte keys, keys and pairs: one sort of
# 2999 elements a process, two processes at a time. (In one process, a sort whose buffers take the
# addresses of released smaller ones trips Oclgrind's reused-range fault,
# docs/IMPLEMENTATION-ISSUES.md.)
run_oclgrind_sorts() {
    local algo t k settings
    for algo in three-step onesweep; do
        settings="CLSCAN_SORT_ALGO=$algo"
        for t in uint32 int64; do
            for k in sort_keys sort_pairs; do
                oclgrind_bg "sort-$algo-$t-$k" "$settings" "$build/clscan-selftest" \
                    --quick --types "$t" --ops none --kinds "$k" --min-size 2999 --max-size 2999
            done
        done
    done
    # The three-step sort's bucket form (groups of one work-item, a cache of 4 KiB so that
    # 2049 keys try it): every key pattern and layout of one size in a process (all
    # buckets but for the skewed and special keys, which take the passes), one size of
    # value a process (a later call with wider values grows the scratch buffer, and
    # Oclgrind then takes the grown part as uninitialised: docs/IMPLEMENTATION-ISSUES.md;
    # int64 keys' pairs take every value type, the widest first). Most buckets of 2049
    # keys hold a few, which each pass ranks by comparing (clscan_sort_bk_bucket_few); the
    # few, narrow and special keys fill some buckets enough to take the counters. Since
    # then the four runs take 8-19 s each under Oclgrind (uint32 keys with int64 values
    # took 2:01 before, int64 pairs 4:32), so test runs them all, as PoCL, rusticl and
    # Intel's runtime do in meson's sort-buckets.
    settings="CLSCAN_SORT_ALGO=three-step CLSCAN_GLOBAL_MEM_CACHE_SIZE=4096"
    settings+=" CLSCAN_WORK_GROUP_SIZE=1 CLSCAN_ITEMS_PER_THREAD=64"
    oclgrind_bg "sort-buckets-uint32-int64-pairs" "$settings" "$build/clscan-selftest" \
        --types uint32 --value-types int64 --ops none --kinds sort_pairs \
        --min-size 2049 --max-size 2049
    oclgrind_bg "sort-buckets-uint32-uint32-pairs" "$settings" "$build/clscan-selftest" \
        --types uint32 --value-types uint32,float --ops none --kinds sort_pairs \
        --min-size 2049 --max-size 2049
    oclgrind_bg "sort-buckets-int64-pairs" "$settings" "$build/clscan-selftest" \
        --types int64 --ops none --kinds sort_pairs \
        --min-size 2049 --max-size 2049
    oclgrind_bg "sort-buckets-uint32-keys" "$settings" "$build/clscan-selftest" \
        --types uint32 --ops none --kinds sort_keys --min-size 2049 --max-size 2049
    return 0
}
# Every line "name CLSCAN_SETTINGS..." of stdin (tests/profiles.txt) under Oclgrind, on the types and
# operators that take different paths (built-in-able ADD, shuffled MUL, bitwise XOR; 4-
# and 8-byte integers) and sizes up to a few tiles, with select-if and partition-if
# (the two ways compaction writes; flags and unique differ only in what decides, and run
# under Oclgrind in the default and look-back runs) on those types; two at a time
# ($types replaces the two types). The full type and operator
# matrix of each profile, with every compaction kind, runs on PoCL and rusticl.
# A line's settings may end in types=LIST, kinds=LIST and ops=LIST of its own.
run_oclgrind_profiles() {
    local name settings word line_types line_kinds line_ops line_max
    while read -r name settings; do
        case "$name" in '#'* | '') continue ;; esac
        line_types=${types:-int32,int64} line_kinds=${kinds:-select_if,partition_if}
        line_ops=add,mul,xor line_max=5000
        for word in $settings; do
            case "$word" in
            types=*) line_types=${word#types=} ;;
            kinds=*) line_kinds=${word#kinds=} ;;
            ops=*) line_ops=${word#ops=} ;;
            max=*) line_max=${word#max=} ;;
            esac
        done
        # Oclgrind has 32 KiB of local memory: a profile claiming more gets 32 KiB there
        # (else its larger tiles would not launch).
        settings=$(echo "$settings" |
            sed -E -e 's/CLSCAN_LOCAL_MEM_SIZE=(48|64)K/CLSCAN_LOCAL_MEM_SIZE=32K/' \
                -e 's/(^| )(types|kinds|ops|max)=[^ ]*//g')
        oclgrind_bg "$name" "$settings" "$build/clscan-selftest" --quick --types "$line_types" \
            --ops "$line_ops" --kinds "$line_kinds" --max-size "$line_max"
    done
}

# The device scans and compactions under Oclgrind (which takes the single-pass scan by
# default): the multi-level one, and the single-pass one on 64 x 2 tiles with silent
# tiles (their successors reduce them; about 80 s more each for the compactions), with
# 64- and 32-bit words; test-full adds the wait giving up at once and delayed tiles.
lookback_runs() {
    local sp="CLSCAN_SCAN_ALGO=single-pass CLSCAN_SP_WORK_GROUP_SIZE=64 CLSCAN_SP_ITEMS_PER_THREAD=2"
    echo "multi-level CLSCAN_SCAN_ALGO=multi-level"
    if [ "$cmd" = test-full ]; then # (in test, the silent tiles cover the fallback)
        echo "sp-giveup $sp CLSCAN_LOOKBACK_SPINS=0"
        echo "sp-delay $sp CLSCAN_LOOKBACK_TEST=delay CLSCAN_LOOKBACK_SPINS=8"
    fi
    echo "sp-silent $sp CLSCAN_LOOKBACK_TEST=silent"
    echo "sp-silent-32 $sp CLSCAN_LOOKBACK_TEST=silent CLSCAN_INT64_ATOMICS=0"
}

# General scans (tests/test_general: every case, inclusive and exclusive, up to 700
# elements) under Oclgrind in three shapes: the default, single-pass with 64 x 4 tiles
# and silent tiles, and the multi-level scan with 64 x 4 tiles, two groups (4 items: the
# segmented tile of values and head bits takes a multiple of 4, docs/ALGORITHMS.md; with
# an output stage the tile keeps its pairs). In the single-pass
# shape, the unsegmented structs (case 2, the compensated sums) leave an LLVM intrinsic
# Oclgrind cannot run when its compiler optimises (docs/IMPLEMENTATION-ISSUES.md): they
# run in a process of their own that Oclgrind compiles with -O0 (OCLGRIND_BUILD_OPTIONS;
# slower to simulate), without the disk cache (whose key does not see that variable).
general_runs() {
    local sp="CLSCAN_SCAN_ALGO=single-pass CLSCAN_SP_WORK_GROUP_SIZE=64 CLSCAN_SP_ITEMS_PER_THREAD=4"
    echo "general CK_FORK=no"
    echo "general-sp-silent CK_FORK=no $sp CLSCAN_LOOKBACK_TEST=silent CLSCAN_TEST_SKIP_CASE=2" \
        "CLSCAN_TEST_SKIP_COMPENSATED=1"
    echo "general-sp-silent-O0 CK_FORK=no $sp CLSCAN_LOOKBACK_TEST=silent CLSCAN_TEST_ONLY_CASE=2" \
        "OCLGRIND_BUILD_OPTIONS=-O0 CLSCAN_DISK_CACHE=0"
    echo "general-multi-level CK_FORK=no CLSCAN_SCAN_ALGO=multi-level CLSCAN_WORK_GROUP_SIZE=64" \
        "CLSCAN_ITEMS_PER_THREAD=4 CLSCAN_MAX_GROUPS=2"
    # One work-item groups (the CPUs' shape: the segmented scans in vector registers, with
    # and without an output stage), with the race and access checks alone: Oclgrind
    # 21.10's uninitialised-value check crashes on those kernels
    # (docs/IMPLEMENTATION-ISSUES.md).
    local one="oclgrind_checks=--data-races CK_FORK=no CLSCAN_SCAN_ALGO=single-pass"
    one+=" CLSCAN_SP_WORK_GROUP_SIZE=1 CLSCAN_SP_ITEMS_PER_THREAD=64"
    echo "general-one-item $one CLSCAN_TEST_SKIP_CASE=2 CLSCAN_TEST_SKIP_COMPENSATED=1"
    echo "bykey-one-item $one CLSCAN_TEST_NONTRIVIAL_MIN_SIZE=257"
    # Carries (tests/test_carry, quick: three built-in pairs and four general cases, up
    # to 300 elements) with silent tiles, whose successors' fallbacks walk below tile 0 to
    # the carry-in; then clscan_scan_parts (its test case 'parts') one type and size a
    # process, each about a second: in one process a later scan whose buffers are larger
    # than released ones trips Oclgrind's reused-range fault (docs/IMPLEMENTATION-ISSUES.md).
    echo "carry-sp-silent CK_FORK=no CK_RUN_CASE=devices CLSCAN_TEST_QUICK=1" \
        "CLSCAN_TEST_MAX_SIZE=300 $sp CLSCAN_LOOKBACK_TEST=silent CLSCAN_TEST_SKIP_CASE=2"
    local t n
    for t in int32 int64 float; do
        for n in 1 129 1000; do
            echo "carry-parts-$t-$n CK_FORK=no CK_RUN_CASE=parts CLSCAN_TEST_PARTS_TYPE=$t" \
                "CLSCAN_TEST_MIN_SIZE=$n CLSCAN_TEST_MAX_SIZE=$n $sp CLSCAN_LOOKBACK_TEST=silent"
        done
    done
    # Reductions (tests/test_reduce, up to 700 elements): the default shape, and 16 x 2
    # tiles under a loop budget of 100, so the partials are folded over several levels.
    echo "reduce CK_FORK=no"
    echo "reduce-levels CK_FORK=no CLSCAN_SCAN_ALGO=multi-level CLSCAN_WORK_GROUP_SIZE=16" \
        "CLSCAN_ITEMS_PER_THREAD=2 CLSCAN_MAX_LOOP_ITERATIONS=100"
    # (and 16 x 4 single-pass tiles on 64 compute units: the scan's one-pass reduction)
    echo "reduce-one-pass CK_FORK=no CK_RUN_CASE=builtin CLSCAN_TEST_TYPES=int32,float" \
        "CLSCAN_SCAN_ALGO=single-pass CLSCAN_SP_WORK_GROUP_SIZE=16 CLSCAN_SP_ITEMS_PER_THREAD=4" \
        "CLSCAN_COMPUTE_UNITS=64 CLSCAN_SINGLE_GROUP_TILES=1"
    # (and the same on 4 compute units: the levels in one kernel, clscan_reduce_single,
    # and with the silent look-back, whose last group folds every fourth partial again)
    local one_kernel="CK_FORK=no CK_RUN_CASE=builtin CLSCAN_TEST_TYPES=int32,float"
    one_kernel+=" CLSCAN_SCAN_ALGO=single-pass CLSCAN_SP_WORK_GROUP_SIZE=16"
    one_kernel+=" CLSCAN_SP_ITEMS_PER_THREAD=4 CLSCAN_COMPUTE_UNITS=4"
    echo "reduce-one-kernel $one_kernel"
    echo "reduce-one-kernel-silent $one_kernel CLSCAN_LOOKBACK_TEST=silent"
    # Histograms (tests/test_histogram, up to 700 samples): the bins local memory holds,
    # then (test-full) in a process of its own the global-atomics path (40000 bins), whose scratch
    # row would otherwise grow past earlier calls' and trip Oclgrind's reused-range fault
    # (docs/IMPLEMENTATION-ISSUES.md).
    # The output stage, reduce by key and run-length encoding, compaction of any type
    # (tests/test_output, test_bykey, test_compact; up to 700 elements). Runs longer than
    # one at one size (257) only: each call's temporary buffer would otherwise reuse a
    # smaller released one's addresses (docs/IMPLEMENTATION-ISSUES.md).
    echo "output CK_FORK=no"
    echo "bykey CK_FORK=no CLSCAN_TEST_NONTRIVIAL_MIN_SIZE=257"
    echo "compact CK_FORK=no"
    echo "histogram CK_FORK=no CLSCAN_TEST_MAX_BINS=1000"
    # (The global path took 97 s in CI's run of 2026-12-02, beside another run; test
    # runs it natively alone, in meson's histogram suites on every implementation.)
    if [ "$cmd" = test-full ]; then
        echo "histogram-global CK_FORK=no CLSCAN_TEST_MIN_BINS=40000"
    fi
}
run_oclgrind_general() {
    local name settings
    while read -r name settings; do
        local prog=$build/tests/test_general
        [[ $name == carry* ]] && prog=$build/tests/test_carry
        [[ $name == reduce* ]] && prog=$build/tests/test_reduce
        [[ $name == histogram* ]] && prog=$build/tests/test_histogram
        [[ $name == output ]] && prog=$build/tests/test_output
        [[ $name == bykey* ]] && prog=$build/tests/test_bykey
        [[ $name == compact ]] && prog=$build/tests/test_compact
        oclgrind_bg "$name" "CLSCAN_TEST_MAX_SIZE=700 $settings" "$prog"
    done
}

# Oclgrind runs in the background, at most two at a time (each with worker threads of
# its own): a run starts as soon as one of the two ends, its report goes to a summary
# file, and wait_oclgrind counts them all at the end, in the order they started.
pids=()
names=()
oclgrind_bg() {
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
    run_oclgrind "$@" >"$build/oclgrind-$1.summary" &
    pids+=($!)
    names+=("$1")
}

# Waits for the background Oclgrind runs and counts them from their summaries.
wait_oclgrind() {
    local i
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || true
        cat "$build/oclgrind-${names[$i]}.summary"
        if grep -q "no errors reported" "$build/oclgrind-${names[$i]}.summary"; then
            passed=$((passed + 1))
        else
            fail 1 "oclgrind (${names[$i]}): $(grep -m 1 "^oclgrind (" \
                "$build/oclgrind-${names[$i]}.summary")"
        fi
    done
    pids=()
    names=()
}

# ---- The host code under sanitizers and valgrind, on PoCL; each stage counts once.
# Suppressions live in tests/sanitizers/ and cover only the OpenCL implementation, LLVM
# and the ICD loader; each says what it hides and why.
san_dir=$PWD/tests/sanitizers
pocl_icd=/etc/OpenCL/vendors/pocl.icd

# Configures (once) and builds the named test targets of a sanitizer build directory.
# Arguments: the directory, its meson options, then "--" and the targets.
sanitizer_build() {
    local dir=$1 opts=()
    shift
    while [ "$1" != -- ]; do
        opts+=("$1")
        shift
    done
    shift
    { [ -f "$dir/build.ninja" ] || meson setup "$dir" "${opts[@]}" >/dev/null; } &&
        meson compile -C "$dir" "$@" >/dev/null
}

# Runs the named tests of the ordinary build natively on PoCL, so that PoCL's kernel
# cache holds what the stage's run will build (LLVM is slow under sanitizers and
# valgrind, and its leaks are not ours to find); failures here are the ordinary suite's.
warm_pocl_cache() {
    OCL_ICD_VENDORS=$pocl_icd meson test -C "$build" --no-rebuild "$@" \
        >"$build/stage-warmup.log" 2>&1 || true
}

# Runs `meson test` on PoCL for the named tests of a build directory and counts the whole
# run as one pass or one failure. Arguments: the stage's name, the directory, a wrapper
# (or ""), then the tests. The caller puts the stage's settings in the environment and
# sets stage_start (SECONDS when the stage began, its build and warm-up included).
run_sanitizer_stage() {
    local name=$1 dir=$2 wrapper=$3
    shift 3
    local log=$dir/stage-$name.log rc=0 start=$SECONDS
    OCL_ICD_VENDORS=$pocl_icd meson test -C "$dir" --no-rebuild --print-errorlogs \
        ${wrapper:+--wrapper "$wrapper"} "$@" >"$log" 2>&1 || rc=$?
    grep -E "^ *[0-9]+/[0-9]+ " "$log" || true
    local took="tests $((SECONDS - start)) s, stage $((SECONDS - stage_start)) s"
    if [ "$rc" = 0 ]; then
        echo "$name: no errors reported ($took)"
        passed=$((passed + 1))
    else
        echo "$name: exit $rc ($took; see $log)"
        grep -m 20 -A25 -E "^==[0-9]+==|^(WARNING|ERROR|SUMMARY): |runtime error|:[EF]:" "$log" |
            head -150 || true
        fail 1 "$name: exit $rc: $(grep -m 3 -E "^(ERROR|SUMMARY): |runtime error|:[EF]:" "$log")"
    fi
}

# AddressSanitizer + UndefinedBehaviorSanitizer (which stops at its first report, by
# -fno-sanitize-recover=all and by UBSAN_OPTIONS): units, the default scan, select,
# general-scan, sort, reduction, histogram and reduce-by-key suites, threads, and 100 cycles (too few for the resident-memory check, which ASan's
# quarantine would upset anyway; objects and heap are still checked every cycle). Leaks
# are checked as each forked test exits.
stage_asan() {
    stage_start=$SECONDS
    local dir=$build-asan tests=(units scan select general sort reduce histogram bykey threads cycles)
    echo "== asan-ubsan: ${tests[*]} on PoCL"
    if ! sanitizer_build "$dir" -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fno-sanitize-recover=all -- test_units test_scan test_select test_general \
        test_sort test_reduce test_histogram test_bykey test_threads test_cycles; then
        echo "asan-ubsan: the build in $dir failed"
        fail 1 "asan-ubsan: the build in $dir failed"
        return
    fi
    CLSCAN_TEST_CYCLES=2 warm_pocl_cache "${tests[@]}"
    # Full unwinding on malloc, through PoCL and LLVM, which lack frame pointers: lsan.supp
    # names the PoCL function a leak comes from, not the whole library.
    # (intercept_tls_get_addr=0: LeakSanitizer's own record of dynamic TLS went stale over
    # PoCL's dlopen'ed kernels and its tracer crashed at exit, docs/IMPLEMENTATION-ISSUES.md.)
    local -x ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:fast_unwind_on_malloc=0:intercept_tls_get_addr=0
    local -x LSAN_OPTIONS=suppressions=$san_dir/lsan.supp:print_suppressions=0
    local -x UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    local -x CLSCAN_TEST_CYCLES=100
    # (test: 50 calls a thread in each mixed case of the threads test, test-full its 200.)
    [ "$cmd" = test-full ] || local -x CLSCAN_TEST_THREAD_CALLS=50
    run_sanitizer_stage asan-ubsan "$dir" "" "${tests[@]}"
}

# valgrind memcheck on the ordinary build: units, threads and 10 cycles, each in one
# process (CK_FORK=no: else valgrind loads PoCL and LLVM again for every forked test), on
# smaller matrices (the knobs of tests/test_threads.c), with definite leaks as errors.
# Under valgrind PoCL sees a Haswell CPU and compiles for it, so the warm-up runs with
# PoCL told to compile for that CPU too: valgrind then finds the kernels in PoCL's cache
# instead of running LLVM under memcheck (a minute or more per program).
stage_valgrind() {
    stage_start=$SECONDS
    # (threads takes memcheck nearly 3 minutes on 2 cores: test-full only; the threads
    # test runs under AddressSanitizer and ThreadSanitizer in test.)
    local tests=(units cycles)
    [ "$cmd" = test-full ] && tests+=(threads)
    echo "== valgrind: ${tests[*]} on PoCL"
    if ! command -v valgrind >/dev/null; then
        echo "dev.sh: valgrind not installed: memcheck stage not run" >&2
        fail 1 "valgrind not installed"
        return
    fi
    local vg="valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
    vg+=" --show-leak-kinds=definite --num-callers=40 --suppressions=$san_dir/valgrind.supp"
    local -x CK_FORK=no CLSCAN_TEST_THREAD_CALLS=8 CLSCAN_TEST_MAX_SIZE=5000
    local -x CLSCAN_TEST_THREAD_TYPES=int32,double CLSCAN_TEST_CYCLES=10
    if grep -qw avx2 /proc/cpuinfo; then
        local -x POCL_LLVM_CPU_NAME=haswell POCL_KERNELLIB_NAME=avx2
        warm_pocl_cache "${tests[@]}"
    fi
    run_sanitizer_stage valgrind "$build" "$vg" "${tests[@]}"
}

# ThreadSanitizer: the threads test (eight threads on one context with their own queues
# and with one shared queue, and racing program builds); any report fails it.
stage_tsan() {
    stage_start=$SECONDS
    local dir=$build-tsan
    echo "== tsan: threads on PoCL"
    if ! sanitizer_build "$dir" -Db_sanitize=thread -Db_lundef=false -- test_threads; then
        echo "tsan: the build in $dir failed"
        fail 1 "tsan: the build in $dir failed"
        return
    fi
    local -x TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$san_dir/tsan.supp
    [ "$cmd" = test-full ] || local -x CLSCAN_TEST_THREAD_CALLS=50 # (as under ASan)
    run_sanitizer_stage tsan "$dir" "" threads
}

sanitizer_stages() {
    if [ ! -f "$pocl_icd" ]; then
        echo "dev.sh: PoCL not installed: sanitizer and valgrind stages not run" >&2
        fail 3 "PoCL not installed: sanitizer and valgrind stages not run"
        return
    fi
    stage_asan
    stage_valgrind
    stage_tsan
}

# The library as installed (tests/consumers/run.sh): built in $build-consumers/build,
# installed into $build-consumers/prefix, and a program built against that with CMake
# (find_package) and pkg-config, shared and static, run on PoCL; counts once (about
# 30 s on 2 cores, most of it building the library there).
stage_consumers() {
    echo "== consumers: CMake and pkg-config builds against an installed tree"
    local rc=0 log=$build-consumers/stage.log
    mkdir -p "$build-consumers"
    tests/consumers/run.sh "$build-consumers" >"$log" 2>&1 || rc=$?
    grep '^consumers: ' "$log" || tail -30 "$log"
    case $rc in
    0) passed=$((passed + 1)) ;;
    77) echo "consumers: no OpenCL platform: not run" >&2 ;;
    *) echo "consumers: exit $rc (see $log)"; fail 1 "consumers: exit $rc (see $log)" ;;
    esac
}

# ---- Intel's OpenCL CPU runtime (PyPI): a vendor's own implementation, with
# cl_intel_subgroups and the cl_khr_subgroup_* extensions, the one stack here that runs the
# library's intel and khr sub-group paths. It goes into a virtual environment once
# (CLSCAN_INTEL_OCL_DIR, default ~/.cache/clscan-intel-ocl; about 800 MB), with an ICD file
# in a vendors directory of its own. Its lib/ goes first on LD_LIBRARY_PATH, which also
# puts the Khronos ICD loader it ships before the system's: that one takes only a
# directory in OCL_ICD_VENDORS. MALLOC_PERTURB_=96, not meson's random value: the
# allocator still fills freed and new blocks, and every run takes the one value that made
# the runtime's compiler crash on the unrolled barrier loops the kernels no longer have
# (docs/IMPLEMENTATION-ISSUES.md), so that a return of them fails every time.
intel_ocl_packages=(intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0)
intel_dir=${CLSCAN_INTEL_OCL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/clscan-intel-ocl}

# Installs the runtime unless this package list is already there (python3-venv first,
# where apt-get is and Python's venv module is not), and writes its ICD file.
setup_intel_ocl() {
    local venv=$intel_dir/venv stamp=$intel_dir/installed
    if [ ! -f "$venv/lib/libintelocl.so" ] ||
        [ "$(cat "$stamp" 2>/dev/null)" != "${intel_ocl_packages[*]}" ]; then
        rm -rf "$venv" "$stamp"
        mkdir -p "$intel_dir"
        if ! python3 -m venv "$venv" >/dev/null 2>&1; then
            rm -rf "$venv"
            command -v apt-get >/dev/null || return 1
            local sudo=
            [ "$(id -u)" = 0 ] || sudo=sudo
            echo "dev.sh: installing python3-venv" >&2
            $sudo apt-get update -qq &&
                DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv \
                    >/dev/null &&
                python3 -m venv "$venv" || return 1
        fi
        echo "dev.sh: installing ${intel_ocl_packages[*]} from PyPI into $venv" >&2
        "$venv/bin/pip" install -q --disable-pip-version-check "${intel_ocl_packages[@]}" &&
            [ -f "$venv/lib/libintelocl.so" ] || return 1
        echo "${intel_ocl_packages[*]}" >"$stamp"
    fi
    mkdir -p "$intel_dir/vendors"
    echo "$venv/lib/libintelocl.so" >"$intel_dir/vendors/intel.icd"
}

# The quick selftest on Intel's runtime with one sub-group implementation (intel or khr,
# or intel:32 for Intel's sub-groups of 32 lanes), the CLSCAN_* settings after it, then
# "--" and selftest options (none: the kinds below), started in the background: the
# runtime's compiler, which the quick selftest mostly waits on, takes one core, so the
# runs go side by side (on 2 cores, 3 runs of about 100 s took 300 s one after another).
# finish_intel_selftests waits for them and counts each; a run fails too when the scans
# did not take its implementation (the "scan layers" line).
intel_runs=()
start_intel_selftest() {
    local impl=${1%%:*} width= settings=()
    [ "$1" = "$impl" ] || width=${1#*:}
    shift
    while [ "$1" != -- ]; do
        settings+=("$1")
        shift
    done
    shift
    local opts=("$@")
    # (The kinds the selftest ran by default before the sorts joined them, issue 21.)
    [ ${#opts[@]} -gt 0 ] ||
        opts=(--kinds "select_flagged,select_if,partition_if,unique,general,histogram")
    local run=$impl$width log=$build/selftest-intel-$impl$width.log
    echo "== clscan-selftest --quick ${opts[*]} on Intel's runtime: $impl sub-groups," \
        "${settings[*]}" >"$log.head"
    (
        start=$SECONDS rc=0
        env "${settings[@]}" "$build/clscan-selftest" --quick "${opts[@]}" \
            >"$log" 2>&1 </dev/null || rc=$?
        echo "$rc $((SECONDS - start))" >"$log.rc"
    ) &
    intel_runs+=("$run $impl ${width:--} $!")
}
finish_intel_selftests() {
    local entry run impl width pid rc took log
    for entry in "${intel_runs[@]}"; do
        read -r run impl width pid <<<"$entry"
        [ "$width" = - ] && width=
        wait "$pid" || true
        log=$build/selftest-intel-$run.log
        cat "$log.head"
        read -r rc took <"$log.rc" 2>/dev/null || { rc=unknown; took=?; }
        grep -m 1 "scan layers" "$log" || true
        tail -n 1 "$log"
        local what="$impl sub-groups${width:+ of $width}"
        if [ "$rc" = 0 ] && grep -q "scan layers:.* $impl sub-groups of $width" "$log"; then
            echo "selftest ($what): passed ($took s, beside the other runs)"
            passed=$((passed + 1))
        else
            echo "selftest ($what): exit $rc, or not on $what (see $log)"
            grep -m 20 -E "FAIL|failures \(" "$log" || true
            fail 1 "selftest ($what) on Intel's runtime: exit $rc:
$(grep -m 6 -E "FAIL|failures \(" "$log")"
        fi
        rm -f "$log.head" "$log.rc"
    done
    intel_runs=()
}

# Installs the runtime (an install that fails fails the command), then runs the quick
# selftest on each sub-group path with 64-wide groups of 4 elements a work-item (on a CPU
# device the tuning table's groups are one work-item wide, where a sub-group scan has
# one lane) and the layer tests (tests/test_layers.c: the khr, intel and local sub-group
# scans at every width and shape), sub-group 0's ordered walk in blocks (general-blocks)
# and carries through it (carry-subgroups). test: the selftest on 4- and 8-byte integers and
# doubles, three operators (a built-in sub-group scan, shuffles), select-if, partition-if
# and the general scans, and (intel:32) the compactions' ballot paths; about 5 of test's
# minutes on 2 cores. test-full: the whole quick selftest, and more suites with the default tuning
# (not threads: a hang inside the runtime's waits, docs/IMPLEMENTATION-ISSUES.md).
stage_intel() {
    local start=$SECONDS
    echo "== Intel's OpenCL CPU runtime (${intel_ocl_packages[*]}, $intel_dir)"
    if ! setup_intel_ocl; then
        echo "dev.sh: installing Intel's OpenCL CPU runtime into $intel_dir failed" >&2
        fail 1 "installing Intel's OpenCL CPU runtime failed"
        return
    fi
    local -x OCL_ICD_VENDORS=$intel_dir/vendors MALLOC_PERTURB_=96
    local -x LD_LIBRARY_PATH=$intel_dir/venv/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    local wide=(CLSCAN_WORK_GROUP_SIZE=64 CLSCAN_ITEMS_PER_THREAD=4
                CLSCAN_SP_WORK_GROUP_SIZE=64 CLSCAN_SP_ITEMS_PER_THREAD=4)
    local narrow=(--types "int32,double" --ops "add,mul,max"
                  --kinds "select_if,partition_if,general")
    # (histogram: with the default tuning's one work-item groups, the counting loop's
    # vectors, which only this stack takes; 10 s.)
    local suites=(layers general-blocks carry-subgroups histogram)
    if [ "$cmd" = test-full ]; then
        narrow=()
        suites=(layers general-blocks carry-subgroups histogram units scan select general sort
                carry stream options)
    fi
    start_intel_selftest intel "${wide[@]}" -- "${narrow[@]}"
    # (The khr run under the silent look-back test, every fourth tile publishing nothing:
    # the general kernels' sub-group walk and its fallback run only on native sub-groups,
    # and this is the one such stack here. The plain integer scans walk by sub-group too
    # there, as they do on NVIDIA's warps, CLSCAN_LOOKBACK_WALK=sub-group; the intel run
    # keeps their work-group walk.)
    # (In test without max, whose built-in sub-group scan add's run covers here and the
    # intel run above takes too.)
    local khr=("${narrow[@]}")
    [ "$cmd" = test-full ] || khr=(--types "int32,double" --ops "add,mul"
                                   --kinds "select_if,partition_if,general")
    start_intel_selftest khr CLSCAN_SUBGROUP_IMPL=khr CLSCAN_LOOKBACK_TEST=silent \
        CLSCAN_LOOKBACK_WALK=sub-group "${wide[@]}" \
        -- "${khr[@]}"
    # (Sub-groups of 32 with cl_khr_subgroup_ballot take the paths of NVIDIA's warps that
    # ballot: compactions ranked by ballots with their elements stashed in local memory,
    # unique's and run-length encoding's neighbours by shuffles and their heads written
    # from ballots, the look-back walker's highest lane; 50 s on 2 cores. test-full adds
    # the general scans, whose segment heads by flags then come from ballots in 32-item
    # rows: 90 s more.)
    local ballot=(--types "int32,double" --ops add
                  --kinds "select_flagged,select_if,partition_if,unique,run_length")
    [ "$cmd" = test-full ] && ballot=()
    start_intel_selftest intel:32 CLSCAN_SUBGROUP_WIDTH=32 CLSCAN_WORK_GROUP_SIZE=64 \
        CLSCAN_ITEMS_PER_THREAD=8 CLSCAN_SP_WORK_GROUP_SIZE=64 CLSCAN_SP_ITEMS_PER_THREAD=32 \
        -- "${ballot[@]}"
    finish_intel_selftests
    run_suite intel "$intel_dir/vendors" "${suites[@]}"
    echo "Intel's runtime: $((SECONDS - start)) s"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
selftest)
    build nompi
    exec "$build/clscan-selftest" "$@"
    ;;
quick)
    # The inner loop, on PoCL only: the tests without OpenCL (layering, plot script), the
    # unit and bank-probe tests, the suites of the default tuning for the main calls
    # (scans, compactions, general scans, reductions, histograms, sorts, compaction of any
    # type, the output stage), then `clscan-selftest --quick` (which also runs reduce by
    # key): on an idle 2-core machine about 2 minutes with the kernel caches cold, half a
    # minute warm. `tools/dev.sh test` before a commit.
    build
    [ -f "$pocl_icd" ] || { echo "dev.sh: quick runs on PoCL, which is not installed" >&2; exit 1; }
    start=$SECONDS
    run_suite pocl "$pocl_icd" layers-check plot-bench units banks scan select general \
        reduce histogram sort compact output
    echo "== clscan-selftest --quick on pocl"
    if OCL_ICD_VENDORS=$pocl_icd "$build/clscan-selftest" --quick >"$build/selftest-quick.log" 2>&1; then
        passed=$((passed + 1))
    else
        grep -m 20 -E "FAIL|failures \(" "$build/selftest-quick.log" || true
        fail 1 "clscan-selftest --quick on pocl:
$(grep -m 6 -E "FAIL|failures \(" "$build/selftest-quick.log")"
    fi
    tail -n 1 "$build/selftest-quick.log"
    report " ($((SECONDS - start)) s after the build)"
    [ "$failed" = 0 ]
    ;;
test | test-full)
    build
    found=0
    # test: every suite but 'extended', 'profiles-ci' and 'rusticl-ci' on PoCL (the two
    # CI profiles take 7 of its minutes there, and the recursive select and multi-level
    # carries 3; they run on rusticl, and the profiles under Oclgrind), and on rusticl not
    # 'lookback-stress', 'once' nor 'pocl-ci' (tests/meson.build); test-full: all of them
    # on both.
    # test runs 1,000 context cycles a platform (one takes about 60 ms on PoCL, 7-11 ms
    # on rusticl); test-full the 10,000 of test_cycles' default and of 'cycles-10k'.
    skip_pocl=() skip_rusticl=() pocl_cycles=${CLSCAN_TEST_CYCLES:-}
    rusticl_cycles=${CLSCAN_TEST_CYCLES:-}
    if [ "$cmd" = test ]; then
        skip_pocl=(--no-suite extended --no-suite profiles-ci --no-suite rusticl-ci)
        skip_rusticl=(--no-suite extended --no-suite lookback-stress --no-suite once
            --no-suite pocl-ci)
        pocl_cycles=${CLSCAN_TEST_CYCLES:-1000}
        rusticl_cycles=${CLSCAN_TEST_CYCLES:-1000}
    fi
    if [ -f /etc/OpenCL/vendors/pocl.icd ]; then
        found=1
        CLSCAN_TEST_CYCLES=$pocl_cycles run_suite pocl /etc/OpenCL/vendors/pocl.icd \
            "${skip_pocl[@]}"
    fi
    if [ -f /etc/OpenCL/vendors/rusticl.icd ]; then
        found=1
        # (MALLOC_PERTURB_=96, not meson's random value: with 1, 2 or 3 Mesa 22.3's OpenCL C
        # to SPIR-V step crashes building one of test_general's programs, every time,
        # docs/IMPLEMENTATION-ISSUES.md; the allocator still fills freed and new blocks.)
        MALLOC_PERTURB_=96 CLSCAN_TEST_CYCLES=$rusticl_cycles run_suite rusticl \
            /etc/OpenCL/vendors/rusticl.icd "${skip_rusticl[@]}"
    fi
    # Intel's OpenCL CPU runtime, installed from PyPI (stage_intel).
    stage_intel
    # On a machine with other vendors' ICDs (a GPU host), also the full default list.
    if [ -d /etc/OpenCL/vendors ] && ls /etc/OpenCL/vendors/*.icd 2>/dev/null |
        grep -qvE '/(pocl|rusticl|mesa)\.icd$'; then
        found=1
        run_suite "all platforms" /etc/OpenCL/vendors
    elif [ -n "${OCL_ICD_VENDORS:-}" ] && [ "$found" = 0 ]; then
        found=1
        run_suite "OCL_ICD_VENDORS" "$OCL_ICD_VENDORS"
    fi
    [ "$found" = 1 ] || { echo "dev.sh: no OpenCL implementation found" >&2; fail 1 "no OpenCL implementation found"; }
    if command -v oclgrind >/dev/null; then
        # (General scans run under Oclgrind through tests/test_general, below.)
        # (test: the scans of three operators, the built-in-able add, mul shuffled, xor
        # bitwise; test-full all seven, max and min among them: the four operators took
        # 299 s in CI's run of 2026-12-01 (2 cores), and max alone 158 s beside two other
        # Oclgrind runs.)
        # (test: sizes up to 4097, four tiles and one element of the default shape; the
        # quick list's 12345 (thirteen tiles, still one window of the look-back) is 8 of
        # its 1782 cases and 37% of its time there: 2:50 alone on this machine with it,
        # 1:47 without, 2026-12-01. test-full keeps it.)
        default_ops=add,mul,xor default_max=(--max-size 4097)
        [ "$cmd" = test-full ] && default_ops=add,mul,min,max,and,or,xor default_max=()
        oclgrind_bg default "" "$build/clscan-selftest" --quick --ops "$default_ops" \
            --kinds select_flagged,select_if,partition_if,unique "${default_max[@]}"
        # The example: user kernels built from the installed-style headers.
        oclgrind_bg example "CLSCAN_KERNEL_INCLUDE_DIR=$PWD/cl" \
            "$build/examples/fused_map_scan" 20000 "$(date +%s)"
        # The output stage's example: CSR from COO in one clscan_scan_output call.
        oclgrind_bg example-csr "" "$build/examples/csr_from_coo" 5000 "$(date +%s)"
        # The OpenCL C layers on their own (tests/test_layers.c, trimmed under Oclgrind).
        oclgrind_bg layers "CLSCAN_KERNEL_INCLUDE_DIR=$PWD/cl CLSCAN_TEST_QUICK=1 CK_FORK=no" \
            "$build/tests/test_layers"
        # test: the profiles of the 'profiles-ci' suite (tests/meson.build) with add and
        # xor (mul's shuffled operator runs in the default run above, and in these two
        # profiles natively on rusticl, every operator; the two took 102 and 93 s with all
        # three in CI's run of 2026-12-02); test-full: every profile, all three operators.
        if [ "$cmd" = test-full ]; then
            run_oclgrind_profiles <tests/profiles.txt
        else
            # (Not a pipe: a function at the end of one runs in a subshell, whose runs the
            # count below would never see.)
            run_oclgrind_profiles < <(grep -E '^(amd-wave64|intel-simd16) ' tests/profiles.txt |
                sed -e 's/$/ ops=add,xor/')
        fi
        # (The silent tiles with the two ways compaction writes only: flags and unique
        # differ in what decides, which the default and multi-level runs cover; test-full
        # runs every kind there. 32-bit status words in test of int64 only, whose values
        # span two words, the case 32-bit words add. In test the silent tiles take add
        # alone: mul's shuffled operator the default run and PoCL's lookback-stress suite
        # cover, xor's bitwise path the default run (with all three, these two runs took
        # 4:40 and 3:42 of a 12.5-minute stage that runs two at a time; with add and xor
        # 199-220 s and 111 s, while CI took 30-32 minutes on 2 cores); test-full takes
        # all three. The 32-bit words' run: its words, not its operator, are what it adds
        # to the other run. In test the 64-bit words' run takes int32, the 32-bit words'
        # int64; test-full adds int64 on 64-bit words (the two types took 234 s in CI's run
        # of 2026-12-01; side by side, int32 alone 85 s and int64 157 s). In test the
        # 32-bit words' run stops at 2049 elements, 33 of its int64 tiles of 64 x 1 (178 s
        # up to 4097 in CI's run of 2026-12-02); test-full goes to 5000.)
        every=select_flagged,select_if,partition_if,unique
        if [ "$cmd" = test-full ]; then
            kinds=$every run_oclgrind_profiles < <(lookback_runs | grep -v '^sp-silent-32 ')
            run_oclgrind_profiles < <(lookback_runs | grep '^sp-silent-32 ')
        else
            run_oclgrind_profiles < <(lookback_runs | sed -e "/^multi-level /s/\$/ kinds=$every/" \
                -e '/^sp-silent-32 /s/$/ types=int64 ops=add max=2049/' \
                -e '/^sp-silent /s/$/ types=int32 ops=add/')
        fi
        # (The sorts before the general runs: the longest runs first, two at a time.)
        run_oclgrind_sorts
        run_oclgrind_general < <(general_runs)
        wait_oclgrind
    else
        echo "dev.sh: oclgrind not installed: kernel race checks not run" >&2
        fail 1 "oclgrind not installed"
    fi
    stage_consumers
    sanitizer_stages
    report
    [ "$failed" = 0 ]
    ;;
sanitizers)
    build
    sanitizer_stages
    report
    [ "$failed" = 0 ]
    ;;
deps)
    # Only the Debian packages of the list that are missing (.ci/run).
    install_deps
    ;;
*) usage ;;
esac
