#!/usr/bin/env python3
"""test_plot_bench.py - tools/plot_bench.py on sample clscan-bench CSVs written here with
the CSV header tools/clscan-bench.c declares (its fields[] list, so a renamed column fails
this test): the SVGs parse as XML, hold the expected series with one point per size, the
points' GB/s are the CSV's (and CUB's from its time and clscan's bytes), and bad input is
refused with exit status 2 and a message.
usage: test_plot_bench.py SOURCE_ROOT   (random GB/s from a printed seed)"""
# SPDX-License-Identifier: MIT
import csv
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
SCRIPT = os.path.join(ROOT, "tools", "plot_bench.py")
SVG = "{http://www.w3.org/2000/svg}"
SEED = int(os.environ.get("CLSCAN_TEST_SEED", time.time_ns() % 1000000))
print(f"seed {SEED} (CLSCAN_TEST_SEED={SEED} repeats it)")
rng = random.Random(SEED)


def bench_fields():
    """platform, device, driver and the fields[] list of tools/clscan-bench.c's write_file."""
    with open(os.path.join(ROOT, "tools", "clscan-bench.c")) as f:
        src = f.read()
    m = re.search(r"static const char \*const fields\[\] = \{(.*?)\};", src, re.S)
    assert m, "no fields[] in tools/clscan-bench.c"
    return ["platform", "device", "driver"] + re.findall(r'"([a-z0-9_]+)"', m.group(1))


def sample_rows(call, typ, op, mode, sizes, elem):
    """Rows as clscan-bench writes them, random times; and one FAIL row that must not show."""
    rows = []
    for n in sizes:
        dev_us, copy_us = rng.uniform(5, 500), rng.uniform(2, 200)
        bat_us, copy_bat = rng.uniform(5, 500), rng.uniform(2, 200)
        moved = 2 * n * elem
        rows.append({"platform": "Portable Computing Language", "device": "cpu-test, \"x\"",
                     "driver": "6.0", "type": typ, "op": op, "mode": mode, "algo": "single-pass",
                     "n": n, "elem_bytes": elem, "bytes_moved": moved, "scan_median_us": dev_us,
                     "scan_gbps": moved / dev_us / 1e3, "copy_median_us": copy_us,
                     "copy_gbps": 2 * n * elem / copy_us / 1e3, "check": "PASS", "call": call,
                     "batch_calls": 10, "batched_median_us": bat_us,
                     "copy_batched_median_us": copy_bat})
    bad = dict(rows[0], n=sizes[-1] * 2, check="FAIL")
    return rows + [bad]


def write_csv(path, rows):
    fields = bench_fields()
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="")
        w.writeheader()
        for r in rows:
            w.writerow({k: v for k, v in r.items() if k in fields})


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def series(path):
    """{series name: [(n exponent, GB/s) from each point's tooltip]} of an SVG."""
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg", root.tag
    out = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") != "series":
            continue
        pts = []
        for el in g:
            t = el.find(SVG + "title")
            if t is not None:
                m = re.search(r"n=2\^([0-9.]+), ([0-9.e+-]+) GB/s", t.text)
                pts.append((float(m.group(1)), float(m.group(2))))
        out[g.get("data-name")] = pts
    return root, out


class PlotBench(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="plot_bench.")
        self.addCleanup(shutil.rmtree, self.dir)
        self.sizes = [2 ** k for k in range(10, 17)]
        self.scan = sample_rows("scan", "int32", "add", "exclusive", self.sizes, 4)
        self.sort = sample_rows("sort-keys", "uint32", "", "", self.sizes, 4)
        self.a, self.b = os.path.join(self.dir, "a.csv"), os.path.join(self.dir, "b.csv")
        write_csv(self.a, self.scan)
        write_csv(self.b, self.sort)

    def close(self, got, want):
        self.assertLess(abs(got - want), 1e-3 * want, f"{got} against {want}")

    def test_series_and_values(self):
        cub = os.path.join(self.dir, "cub.txt")
        cub_us = {n: rng.uniform(1, 100) for n in self.sizes[:3]}
        with open(cub, "w") as f:
            f.write("some other line\n")
            for n, us in cub_us.items():
                f.write(f"cub_scan n=2^{n.bit_length() - 1} us={us:.1f} copy_us=2.0 K=2000\n")
        out = os.path.join(self.dir, "svg")
        r = run(self.a, self.b, "--cub", cub, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["scan.svg", "sort-keys.svg"])
        root, s = series(os.path.join(out, "scan.svg"))
        title = "".join(root.find(SVG + "text").itertext())
        self.assertIn('cpu-test, "x"', title)
        name = "scan int32 add exclusive"  # (one algo: not named)
        self.assertEqual(sorted(s), sorted([f"{name} (device time)", f"{name} (batched wall)",
                                            "copy (device time)", "copy (batched wall)",
                                            "CUB (batched wall)", "CUB copy (batched wall)"]))
        good = [x for x in self.scan if x["check"] == "PASS"]
        self.assertEqual(len(s[f"{name} (device time)"]), len(good))  # (not the FAIL row)
        for (k, v), x in zip(s[f"{name} (device time)"], good):
            self.assertEqual(2 ** k, x["n"])
            self.close(v, x["scan_gbps"])
        for (k, v), x in zip(s[f"{name} (batched wall)"], good):
            self.close(v, x["bytes_moved"] / x["batched_median_us"] / 1e3)
        for (k, v), x in zip(s["copy (batched wall)"], good):
            self.close(v, 2 * x["n"] * 4 / x["copy_batched_median_us"] / 1e3)
        self.assertEqual(len(s["CUB (batched wall)"]), len(cub_us))
        for (k, v), (n, us) in zip(s["CUB (batched wall)"], sorted(cub_us.items())):
            self.assertEqual(2 ** k, n)
            self.close(v, 2 * n * 4 / round(us, 1) / 1e3)
        root, s = series(os.path.join(out, "sort-keys.svg"))
        self.assertEqual(sorted(s), ["copy (batched wall)", "copy (device time)",
                                     "sort-keys uint32 (batched wall)",
                                     "sort-keys uint32 (device time)"])

    def test_log_y_cub_csv_and_calls(self):
        cub = os.path.join(self.dir, "cub.csv")
        with open(cub, "w") as f:
            f.write("call,type,n,us,copy_us\nsort-keys,uint32,2^12,50,\nscan,int32,4096,9,3\n")
        out = os.path.join(self.dir, "svg")
        r = run(self.a, self.b, "--cub", cub, "--out", out, "--log-y", "--calls", "sort-keys")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(out), ["sort-keys.svg"])
        _, s = series(os.path.join(out, "sort-keys.svg"))
        self.assertEqual(len(s["CUB (batched wall)"]), 1)
        self.assertNotIn("CUB copy (batched wall)", s)
        self.close(s["CUB (batched wall)"][0][1], 2 * 4096 * 4 / 50 / 1e3)

    def test_two_algos(self):
        multi = [dict(r, algo="multi-level", scan_gbps=r["scan_gbps"] * 2) for r in self.scan]
        both = os.path.join(self.dir, "both.csv")
        write_csv(both, self.scan + multi)
        out = os.path.join(self.dir, "svg")
        r = run(both, "--out", out, "--y", "linear")
        self.assertEqual(r.returncode, 0, r.stderr)
        _, s = series(os.path.join(out, "scan.svg"))
        for algo, rows in (("single-pass", self.scan), ("multi-level", multi)):
            pts = s[f"scan int32 add exclusive {algo} (device time)"]
            good = [x for x in rows if x["check"] == "PASS"]
            self.assertEqual(len(pts), len(good))
            for (k, v), x in zip(pts, good):
                self.close(v, x["scan_gbps"])

    def test_bad_input(self):
        junk = os.path.join(self.dir, "junk.csv")
        with open(junk, "w") as f:
            f.write("a,b\n1,2\n")
        for args, what in (([junk], "not a clscan-bench CSV"),
                           ([os.path.join(self.dir, "none.csv")], "cannot read"),
                           ([self.a, "--cub", junk], "no CUB timings"),
                           ([self.a, "--calls", "sort-pairs"], "none of the calls")):
            r = run(*args, "--out", os.path.join(self.dir, "bad"))
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(what, r.stderr)
        unknown = os.path.join(self.dir, "unknown.txt")
        with open(unknown, "w") as f:
            f.write("cub_rle n=2^12 us=3.0 copy_us=1.0\n")
        r = run(self.a, "--cub", unknown, "--out", self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cub_rle is not one of cub_anchor's ops", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
