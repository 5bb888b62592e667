#!/usr/bin/env bash
# sass.sh - the machine code (SASS) of one kernel of a PTX file that tools/prof/ptx-report.sh
# brought back from NVIDIA's OpenCL, read on a machine without a GPU or CUDA: fetches
# NVIDIA's ptxas, cuobjdump and nvdisasm once from PyPI (the nvidia-cuda-nvcc,
# -cuobjdump and -nvdisasm wheels, CUDA 13, about 100 MB) into $SASS_TOOLS (default
# ~/.cache/clscan-sass-tools), assembles the kernel alone for sm_90 (the PTX keeps the
# .maxnreg the library put on it), and writes the listing to KERNEL.sass beside the PTX
# and a count of each opcode to stdout. Counting instructions this way showed where the
# run-length encoding and scan-by-key kernels spent theirs (docs/PERFORMANCE.md,
# thirty-fourth session); ncu does not profile OpenCL kernels.
#   bash tools/prof/sass.sh FILE.ptx clscan_sel_single [sm_90]
# SPDX-License-Identifier: MIT
set -euo pipefail
ptx=$1 kernel=$2 arch=${3:-sm_90}
tools=${SASS_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/clscan-sass-tools}
if [ ! -x "$tools/bin/ptxas" ] || [ ! -x "$tools/bin/cuobjdump" ] || [ ! -x "$tools/bin/nvdisasm" ]; then
    mkdir -p "$tools/wheels" "$tools/bin"
    python3 -m pip download -q --no-deps -d "$tools/wheels" "nvidia-cuda-nvcc==13.0.*" \
        nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
    for w in "$tools"/wheels/*.whl; do python3 -m zipfile -e "$w" "$tools/unpacked"; done
    for t in ptxas cuobjdump nvdisasm; do
        f=$(find "$tools/unpacked" -type f -name "$t" | head -1)
        [ -n "$f" ] || { echo "sass.sh: no $t in the wheels" >&2; exit 1; }
        cp "$f" "$tools/bin/$t"
        chmod +x "$tools/bin/$t"
    done
fi
out=$(dirname "$ptx")/$kernel.sass
cubin=$(mktemp --suffix=.cubin)
trap 'rm -f "$cubin"' EXIT
"$tools/bin/ptxas" -arch="$arch" -v -e "$kernel" "$ptx" -o "$cubin" 2>&1 |
    grep -E "registers|spill" >&2 || true
PATH=$tools/bin:$PATH cuobjdump -sass "$cubin" |
    grep -E '/\*[0-9a-f]{4}\*/' | grep -v '^\s*/\* 0x' | sed 's| */\* 0x.*||' >"$out"
echo "$(wc -l <"$out") instructions in $out" >&2
# (The opcode: the word after the address and any predicate guard.)
sed -E 's|^\s*/\*[0-9a-f]+\*/\s*(@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9]*).*|\2|' "$out" |
    sort | uniq -c | sort -rn
