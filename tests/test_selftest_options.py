#!/usr/bin/env python3
# test_selftest_options.py - clscan-selftest's command line (issue 21): usage errors (one
# line, then "try --help", exit 2), --platform/--device by index (an index past the end
# names itself and the count) and by a part of a name in any case (which one matched;
# none or several: an error naming the text), the banner's version, the final total, and
# no progress line when stderr is not a terminal. Arguments: the clscan-selftest binary
# and the project's version. Exit 77 (skipped) without an OpenCL platform.
# SPDX-License-Identifier: MIT
import csv
import io
import random
import re
import subprocess
import sys
import time

SELFTEST, VERSION = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    p = subprocess.run([SELFTEST, *args], stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=900)
    return p.returncode, p.stdout, p.stderr


def check(cond, what, out=""):
    if not cond:
        failures.append(what)
        print("FAIL " + what + ("\n" + out if out else ""))
    else:
        print("ok   " + what)


def usage_error(args, must_contain):
    """args must fail with exit 2 and exactly two lines on stderr: the error, naming
    must_contain, and the pointer to --help; nothing on stdout but a match line."""
    rc, out, err = run(*args)
    lines = err.splitlines()
    check(rc == 2 and len(lines) == 2 and lines[0].startswith("clscan-selftest: ") and
          must_contain in lines[0] and lines[1] == "try 'clscan-selftest --help'" and
          "usage:" not in out + err,
          "%s: exit 2, one line naming %r, then try --help" % (" ".join(args), must_contain),
          "exit %d\nstdout: %s\nstderr: %s" % (rc, out, err))
    return lines[0] if lines else ""


# The platforms and devices (--list), or skip.
rc, out, err = run("--list")
platforms = []  # [(name, [device names])]
for line in out.splitlines():
    m = re.match(r"platform (\d+): (.*)$", line)
    if m:
        platforms.append((m.group(2), []))
    m = re.match(r"  device (\d+): (.*)$", line)
    if m and platforms:
        platforms[-1][1].append(m.group(2))
if rc != 0 or not platforms:
    print("SKIP no OpenCL platform (--list: exit %d, %s)" % (rc, err.strip()))
    sys.exit(77)
np_ = len(platforms)
print("platforms: %s" % platforms)

rc, out, err = run("--help")
check(rc == 0 and out.startswith("usage: clscan-selftest") and "--platform P" in out,
      "--help: exit 0 with the usage on stdout")

usage_error(["--no-such-option"], "unknown option '--no-such-option'")
usage_error(["--platform"], "--platform needs a value")
usage_error(["--device", ""], "--device needs an index or a part of a name")
usage_error(["--types", "int33"], "'int33'")
usage_error(["--seed", "x1"], "'x1' is not a number")
usage_error(["--format", "xml"], "unknown format 'xml'")
usage_error(["--value-types", "int64,int33"], "'int64,int33'")

# Indices past the end name themselves and how many there are.
usage_error(["--platform", str(np_ + 3)],
            "--platform %d: no such platform: there %s %d" % (np_ + 3, "is" if np_ == 1 else
                                                               "are", np_))
most = max(len(d) for _, d in platforms)
line = usage_error(["--device", str(most + 2)], "--device %d: no such device" % (most + 2))
check(re.search(r"\b%d device" % most, line) is not None,
      "--device %d: the message gives the count %d" % (most + 2, most), line)
line = usage_error(["--platform", "0", "--device", str(len(platforms[0][1]) + 1)],
                   "platform 0 (%s) has %d device" % (platforms[0][0], len(platforms[0][1])))

# Names: none matches; the full name in another case picks that one.
usage_error(["--platform", "no-such-platform-x9"], "'no-such-platform-x9'")
usage_error(["--device", "no-such-device-x9"], "'no-such-device-x9'")
names = [n for n, _ in platforms]
for i, (name, devs) in enumerate(platforms):
    if names.count(name) != 1:
        continue
    text = name.swapcase()
    rc, out, err = run("--platform", text, "--list")
    check(rc == 0 and ("--platform %s: platform %d (%s)" % (text, i, name)) in out and
          out.count("\nplatform ") + out.startswith("platform ") == 1,
          "--platform %r --list: platform %d alone, said which" % (text, i), out + err)
    alldevs = [d for _, ds in platforms for d in ds]
    for j, dev in enumerate(devs):
        if alldevs.count(dev) != 1:
            continue
        text = dev.upper()
        rc, out, err = run("--device", text, "--list")
        check(rc == 0 and ("--device %s: platform %d device %d (%s)" % (text, i, j, dev)) in out,
              "--device %r: platform %d device %d, said which" % (text, i, j), out + err)
# Several: a letter in two platforms' names.
if np_ >= 2:
    common = sorted(set(names[0].lower()) & set(names[1].lower()) - set(" ()"))
    if common:
        usage_error(["--platform", common[0]], "--platform '%s' is in " % common[0])

# One small run on the first platform with a device: the banner's version, the final
# total, nothing of the progress line (stderr is not a terminal); the same in csv.
first = next((i for i, (_, d) in enumerate(platforms) if d), None)
if first is None:
    print("SKIP the run: no platform has a device")
else:
    seed = int(time.time()) ^ random.getrandbits(16)
    args = ["--platform", str(first), "--device", "0", "--quick", "--types", "int32",
            "--ops", "add", "--kinds", "select_if", "--max-size", "5000", "--seed", str(seed)]
    rc, out, err = run(*args)
    check(rc == 0 and ("clscan-selftest, libclscan %s: seed %d" % (VERSION, seed)) in out,
          "banner: libclscan %s, seed %d; exit 0" % (VERSION, seed), out[-2000:] + err)
    check(re.search(r"^\d+ passed, 0 failed, \d+ skipped \(1 device, \d+:\d\d\)$",
                    out.splitlines()[-1] if out else "") is not None,
          "the final line: the total, 1 device, the time", out[-500:])
    check("\r" not in out + err and "\033" not in out + err,
          "no progress line (\\r, escapes) without a terminal")
    rc, out, err = run(*args, "--format", "csv")
    check(rc == 0 and out.startswith("platform,device,") and "\r" not in out + err and
          "\033" not in out + err, "--format csv: records on stdout, no progress line",
          out[-500:] + err)

    # --value-types: every pair sort takes the value types named, none other (a record's
    # op column holds a pair sort's value type).
    rc, out, err = run("--platform", str(first), "--device", "0", "--quick", "--types", "uint32",
                       "--ops", "none", "--kinds", "sort_pairs", "--value-types", "int64",
                       "--max-size", "600", "--seed", str(seed), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    values = sorted({r.get("op") for r in rows})
    check(rc == 0 and rows and values == ["int64"],
          "--value-types int64: %d pair sorts, value types %s" % (len(rows), values),
          out[-500:] + err)

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
