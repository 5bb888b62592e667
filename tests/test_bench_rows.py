#!/usr/bin/env python3
"""test_bench_rows.py - the rows clscan-bench makes for several --type values: a general
scan (the 2x2 matrix struct, declared exact or not; segments by flags) and reduce by key
run once whatever the types, while the plain scan and run-length encoding (whose keys
are of --type) run once a type; every row's check passes. (A struct's general scan once
ran for each --type, the same call shown under two types.)
usage: test_bench_rows.py CLSCAN_BENCH   (on the first OpenCL device the bench picks)"""
# SPDX-License-Identifier: MIT
import collections
import csv
import os
import subprocess
import sys
import tempfile

bench = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "rows.csv")
    run = subprocess.run([bench, "--type", "int32,int64", "--call",
                          "scan,mat2,mat2-exact,seg-add,reduce-by-key,rle", "--sizes", "2^10",
                          "--repeats", "1", "--warmup", "0", "--no-batched", "--csv", out],
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        sys.exit(f"clscan-bench exited {run.returncode}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
got = collections.Counter(r["call"] for r in rows)
want = {"scan": 2, "mat2": 1, "mat2-exact": 1, "seg-add": 1, "reduce-by-key": 1, "rle": 2}
bad = [r for r in rows if r["check"] not in ("PASS", "SKIP")]
types = sorted(r["type"] for r in rows if r["call"] == "rle")
print("rows by call:", dict(got), "; rle types:", types)
if dict(got) != want or types != ["int32", "int64"] or bad:
    sys.exit(f"expected rows {want} (rle of int32 and int64), all checked; got {dict(got)}, "
             f"rle of {types}, checks {[(r['call'], r['type'], r['check']) for r in bad]}")
print("bench rows: as expected")
