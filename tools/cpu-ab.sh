#!/usr/bin/env bash
# cpu-ab.sh - A/B timing of two trees on the CPU OpenCL stacks (PoCL, and Intel's CPU
# runtime where tools/dev.sh installed it): release builds of both, clscan-bench run in
# alternating rounds (A, B, A, B, ...) so that the machine's drift falls on both, and a
# table of each row's lowest median device time with every round's beside it.
#   tools/cpu-ab.sh REV_A REV_B ['clscan-bench options']      (from the repository root)
#   e.g. tools/cpu-ab.sh HEAD~1 HEAD '--call seg-keys-add,seg-add --sizes 2^22,2^24'
# REV: a git revision, or "." for the working tree as it is. Environment: ROUNDS (3),
# STACKS ("pocl intel"), WORK (/tmp/clscan-cpu-ab: the builds and the raw log).
# On a 2-core virtual machine the same call's median moves by 20-50% between rounds:
# trust a difference only where it holds in every round.
# SPDX-License-Identifier: MIT
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
rev_a=$1 rev_b=$2
opts=${3:---call seg-keys-add,seg-add --mode inclusive,exclusive --sizes 2^22,2^24}
rounds=${ROUNDS:-3}
stacks=${STACKS:-pocl intel}
work=${WORK:-/tmp/clscan-cpu-ab}
intel_dir=${CLSCAN_INTEL_OCL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/clscan-intel-ocl}
root=$PWD

# Builds revision $1 as side $2 (a or b) under $work/$2.
build_side() {
    local rev=$1 side=$2 src=$work/$2-src
    rm -rf "$src" "$work/$side"
    mkdir -p "$src"
    if [ "$rev" = . ]; then
        # (The working tree: tracked and untracked files that git does not ignore.)
        git -C "$root" ls-files -z --cached --others --exclude-standard |
            (cd "$root" && xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$src"
    else
        git -C "$root" archive "$rev" | tar -xf - -C "$src"
    fi
    (cd "$src" && meson setup "$work/$side" --buildtype=release >/dev/null &&
        ninja -C "$work/$side" clscan-bench >/dev/null)
}
mkdir -p "$work"
build_side "$rev_a" a
build_side "$rev_b" b
log=$work/raw.log
: >"$log"
for r in $(seq "$rounds"); do
    for stack in $stacks; do
        env_args=()
        case $stack in
        pocl) env_args=(OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd) ;;
        intel)
            [ -f "$intel_dir/vendors/intel.icd" ] || continue
            env_args=(OCL_ICD_VENDORS=$intel_dir/vendors LD_LIBRARY_PATH=$intel_dir/venv/lib) ;;
        *) echo "cpu-ab.sh: unknown stack $stack" >&2; exit 2 ;;
        esac
        for side in a b; do
            # shellcheck disable=SC2086 # opts are words
            env "${env_args[@]}" "$work/$side/clscan-bench" $opts --repeats 20 --warmup 2 \
                --no-batched 2>&1 |
                awk -v st="$stack" -v side="$side" '{
                    # (A call name may hold spaces, and a compaction row ends in its
                    # predicate: the columns are counted back from the check column.)
                    c = 0; for (i = NF; i > 0; --i) if ($i == "PASS" || $i == "FAIL") { c = i; break }
                    if (c < 16) next
                    name = $2; for (i = 3; i <= c - 16; ++i) name = name "_" $i
                    print st, side, $1, name, $(c - 14), $(c - 12), $c }' >>"$log"
        done
    done
done
echo "device us, lowest median of $rounds rounds (every round's in brackets); A = $rev_a, B = $rev_b"
awk '{ k = $1 " " $3 " " $4 " " $5; v[k, $2] = v[k, $2] " " $6
       if ($2 == "a" && (!(k in best_a) || $6 < best_a[k])) best_a[k] = $6
       if ($2 == "b" && (!(k in best_b) || $6 < best_b[k])) best_b[k] = $6
       if ($7 != "PASS") bad[k] = 1; keys[k] = 1 }
     END { for (k in keys)
               printf "%-44s A %9.1f B %9.1f  B/A %5.2f%s   [A%s] [B%s]\n", k, best_a[k],
                      best_b[k], best_b[k] / best_a[k], (k in bad) ? " FAILED CHECK" : "",
                      v[k, "a"], v[k, "b"] }' "$log" | sort
