#!/usr/bin/env python3
"""plot_bench.py - renders clscan-bench CSV files as SVG plots: GB/s against n for each
primitive (the CSV's call), with the buffer copy's line and, where given, CUB's points.
Python standard library only; the SVG is written by hand.

usage: tools/plot_bench.py [--cub FILE]... [--out DIR] [--y auto|linear|log] [--calls LIST]
                           [--title TEXT] BENCH.csv...

One SVG per device and call, DIR/<call>.svg (DIR/<device>-<call>.svg where the CSV files
hold several devices). Each panel: x = n, log2 scale; y = GB/s (linear from 0, or log with
--y log; --y auto, the default: log where the largest GB/s drawn is over 30 times the
smallest, as a sort's beside the copy). Series, one colour per (type, op, mode, algo):
  solid line, filled dots   GB/s of the call by device time (the CSV's scan_gbps: the least
                            the call moves, bytes_moved, over its median device time)
  dashed line, hollow dots  GB/s of the call by batched wall time (bytes_moved over
                            batched_median_us: K calls back to back, one finish)
  grey solid / dashed line  the buffer copy of the same run (copy_gbps; and
                            2*n*elem_bytes over copy_batched_median_us), per element size
  black squares / diamonds  CUB's call and CUB's own copy (--cub), batched wall; its GB/s
                            counts the bytes of clscan's row of the same call, type and n
                            (bytes_moved; the copy: 2*n*elem_bytes)
Only rows whose check is PASS or UNCHECKED are drawn.

--cub FILE: CUB's timings, either a CSV with a header naming at least call, n and us (and
optionally type, copy_us), n a count or 2^k, us microseconds per call; or the text lines
the anchor programs print (shared/anchors/cub_anchor.cu, tools/cub_more.cu):
    [CALL [TYPE]] cub_<op> n=2^<k> us=<us> copy_us=<us> ...
where a leading CALL (a clscan-bench call name) and TYPE say which clscan rows the line
belongs to; without them <op> is looked up in CUB_OPS (below: cub_anchor.cu's ops; its
bykey is InclusiveSumByKey, seg-keys-add; tools/cub_more.cu's bykey is ReduceByKey, so
its lines need the prefix). Other lines are ignored.

Exit status: 0 plots written; 2 bad usage or input (with a message saying what).
"""
# SPDX-License-Identifier: MIT
import argparse
import csv
import math
import os
import re
import sys
from xml.sax.saxutils import escape

# cub_anchor.cu's ops: the clscan-bench call and type whose rows they stand beside.
CUB_OPS = {
    "scan": ("scan", "int32"),
    "scan64": ("scan", "int64"),
    "fscan": ("scan", "float"),
    "select": ("select-if", "int32"),
    "flagged": ("select-flagged", "int32"),
    "sortk": ("sort-keys", "uint32"),
    "sortp": ("sort-pairs", "uint32"),
    "bykey": ("seg-keys-add", "int32"),
}
REQUIRED = ("device", "platform", "type", "n", "elem_bytes", "bytes_moved", "scan_gbps",
            "copy_gbps", "check", "call")
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2")
W, H = 640, 380                 # the SVG above its legend
L, R, T, B = 62, 16, 34, 44     # margins: the plot area is inside them
LEGEND_ROW = 14                 # the legend: rows of two entries below the x axis's label


class InputError(Exception):
    """Bad input: the message says what was wrong."""


def number(text):
    """A CSV number field, or None where empty."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def parse_n(text):
    """An element count: 2^k or a number."""
    text = text.strip()
    m = re.fullmatch(r"2\^(\d+)", text)
    if m:
        return 2 ** int(m.group(1))
    v = number(text)
    if v is None or v < 1:
        raise ValueError(text)
    return int(v)


def read_bench(path):
    """The measured rows of one clscan-bench CSV file, as dicts with numbers parsed."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
            if missing:
                raise InputError(f"{path}: not a clscan-bench CSV (no column {', '.join(missing)})")
            rows = []
            for line, raw in enumerate(reader, start=2):
                if raw.get("check") not in ("PASS", "UNCHECKED"):
                    continue
                n = number(raw["n"])
                if n is None or n < 1:
                    raise InputError(f"{path}:{line}: bad n '{raw['n']}'")
                r = dict(raw)
                r["n"] = int(n)
                for k in ("elem_bytes", "bytes_moved", "scan_gbps", "copy_gbps",
                          "batched_median_us", "copy_batched_median_us"):
                    r[k] = number(raw.get(k))
                rows.append(r)
            return rows
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")


def read_cub(path):
    """CUB's timings: a list of dicts call, type (or None), n, us, copy_us (or None)."""
    try:
        with open(path, newline="") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")
    lines = text.splitlines()
    out = []
    head = [h.strip() for h in lines[0].split(",")] if lines else []
    if "call" in head and "n" in head and "us" in head:
        for line, raw in enumerate(csv.DictReader(lines), start=2):
            try:
                n = parse_n(raw["n"] or "")
            except ValueError:
                raise InputError(f"{path}:{line}: bad n '{raw['n']}'")
            us = number(raw["us"])
            if us is None or us <= 0:
                raise InputError(f"{path}:{line}: bad us '{raw['us']}'")
            out.append({"call": raw["call"].strip(), "type": (raw.get("type") or "").strip() or None,
                        "n": n, "us": us, "copy_us": number(raw.get("copy_us"))})
        return out
    pat = re.compile(r"^(?:(\S+)\s+(?:(\S+)\s+)?)?cub_([a-z0-9]+) n=(2\^\d+|\d+) us=([0-9.]+)"
                     r"(?: copy_us=([0-9.]+))?")
    for line in lines:
        m = pat.match(line.strip())
        if not m:
            continue
        call, typ, op, n, us, copy_us = m.groups()
        if not call:
            if op not in CUB_OPS:
                raise InputError(f"{path}: cub_{op} is not one of cub_anchor's ops: put the "
                                 "clscan-bench call (and type) before it")
            call, typ = CUB_OPS[op]
        out.append({"call": call, "type": typ, "n": parse_n(n), "us": float(us),
                    "copy_us": float(copy_us) if copy_us else None})
    if not out:
        raise InputError(f"{path}: no CUB timings (neither a CSV with call,n,us nor "
                         "cub_<op> n=... us=... lines)")
    return out


def nice_step(span, ticks=5):
    """A 1, 2 or 5 times a power of ten step giving about `ticks` ticks over span."""
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def fmt(v):
    """A tick label."""
    if v >= 100 or v == int(v):
        return f"{v:.0f}"
    return f"{v:.2g}" if v < 1 else f"{v:.3g}"


class Panel:
    """One SVG: its scales and the elements drawn so far."""

    def __init__(self, xs, ys, log_y):
        self.x0, self.x1 = math.log2(min(xs)) - 0.25, math.log2(max(xs)) + 0.25
        self.log_y = log_y
        hi = max(ys)
        if log_y:
            lo = min(y for y in ys if y > 0)
            self.y0 = math.floor(math.log10(lo))
            self.y1 = max(math.ceil(math.log10(hi)), self.y0 + 1)
        else:
            step = nice_step(hi)
            self.y0, self.y1, self.ystep = 0.0, math.ceil(hi * 1.05 / step) * step, step
        self.out = []

    def px(self, n):
        return L + (math.log2(n) - self.x0) / (self.x1 - self.x0) * (W - L - R)

    def py(self, y):
        if self.log_y:
            f = (math.log10(y) - self.y0) / (self.y1 - self.y0)
        else:
            f = (y - self.y0) / (self.y1 - self.y0)
        return H - B - f * (H - T - B)

    def axes(self, title, xlabel, ylabel):
        o = self.out
        o.append(f'<text x="{W / 2:.0f}" y="18" text-anchor="middle" font-size="12" '
                 f'font-weight="bold">{escape(title)}</text>')
        # x ticks: every power of two, labelled every one or every few
        k0, k1 = math.ceil(self.x0), math.floor(self.x1)
        every = max(1, math.ceil((k1 - k0 + 1) / 12))
        for k in range(k0, k1 + 1):
            x = self.px(2 ** k)
            o.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" class="grid"/>')
            if (k - k0) % every == 0:
                o.append(f'<text x="{x:.1f}" y="{H - B + 14}" text-anchor="middle">2'
                         f'<tspan dy="-5" font-size="8">{k}</tspan></text>')
        # y ticks
        if self.log_y:
            vals = []
            for e in range(self.y0, self.y1 + 1):
                vals += [m * 10 ** e for m in ((1, 2, 5) if self.y1 - self.y0 <= 3 else (1,))]
            vals = [v for v in vals if 10 ** self.y0 <= v <= 10 ** self.y1]
        else:
            count = int(round((self.y1 - self.y0) / self.ystep))
            vals = [self.y0 + i * self.ystep for i in range(count + 1)]
        for v in vals:
            y = self.py(v)
            o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" class="grid"/>')
            o.append(f'<text x="{L - 4}" y="{y + 3:.1f}" text-anchor="end">{fmt(v)}</text>')
        o.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" '
                 'fill="none" stroke="#444"/>')
        o.append(f'<text x="{(L + W - R) / 2:.0f}" y="{H - 8}" text-anchor="middle">'
                 f'{escape(xlabel)}</text>')
        o.append(f'<text transform="translate(14 {(T + H - B) / 2:.0f}) rotate(-90)" '
                 f'text-anchor="middle">{escape(ylabel)}</text>')

    def series(self, name, points, colour, dash, marker, filled):
        """A polyline (dash None: none; "" solid) through the points, and a marker (circle,
        square, diamond or None) at each."""
        pts = sorted(p for p in points if p[1] > 0)
        if not pts:
            return
        o = self.out
        o.append(f'<g class="series" data-name="{escape(name, {chr(34): "&quot;"})}">')
        if dash is not None and len(pts) > 1:
            d = " ".join(f"{self.px(n):.1f},{self.py(y):.1f}" for n, y in pts)
            o.append(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="1.5"'
                     + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        fill = colour if filled else "white"
        for n, y in pts:
            x, yy = self.px(n), self.py(y)
            tip = f"<title>{escape(name)}: n=2^{math.log2(n):.4g}, {y:.4g} GB/s</title>"
            if marker == "circle":
                o.append(f'<circle cx="{x:.1f}" cy="{yy:.1f}" r="2.5" fill="{fill}" '
                         f'stroke="{colour}">{tip}</circle>')
            elif marker == "square":
                o.append(f'<rect x="{x - 3:.1f}" y="{yy - 3:.1f}" width="6" height="6" '
                         f'fill="{fill}" stroke="{colour}">{tip}</rect>')
            elif marker == "diamond":
                o.append(f'<path d="M{x:.1f} {yy - 4:.1f}l4 4-4 4-4-4z" fill="{fill}" '
                         f'stroke="{colour}">{tip}</path>')
        o.append("</g>")

    def legend(self, entries):
        """entries: (label, colour, dash or None, marker, filled), two a row below the plot."""
        o = self.out
        self.height = H + (len(entries) + 1) // 2 * LEGEND_ROW + 6
        for i, (label, colour, dash, marker, filled) in enumerate(entries):
            x = L - 40 + (i % 2) * (W - L + 40) // 2
            y = H + 4 + (i // 2) * LEGEND_ROW
            if dash is not None:
                o.append(f'<line x1="{x}" y1="{y - 3}" x2="{x + 22}" y2="{y - 3}" '
                         f'stroke="{colour}" stroke-width="1.5"'
                         + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
            fill = colour if filled else "white"
            cx = x + 11
            if marker == "circle":
                o.append(f'<circle cx="{cx}" cy="{y - 3}" r="2.5" fill="{fill}" stroke="{colour}"/>')
            elif marker == "square":
                o.append(f'<rect x="{cx - 3}" y="{y - 6}" width="6" height="6" fill="{fill}" '
                         f'stroke="{colour}"/>')
            elif marker == "diamond":
                o.append(f'<path d="M{cx} {y - 7}l4 4-4 4-4-4z" fill="{fill}" stroke="{colour}"/>')
            o.append(f'<text x="{x + 28}" y="{y}">{escape(label)}</text>')

    def svg(self):
        h = getattr(self, "height", H)
        return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" '
                f'viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="10">\n'
                "<style>.grid{stroke:#e4e4e4;stroke-width:1}</style>\n"
                f'<rect width="{W}" height="{h}" fill="white"/>\n'
                + "\n".join(self.out) + "\n</svg>\n")


def variant(r, algos):
    """A row's series name within its call: type, op, mode where given, and algo where the
    call's rows have more than one (algos: how many)."""
    parts = [r.get("type"), r.get("op"), r.get("mode"), r.get("algo") if algos > 1 else None]
    return " ".join(p for p in parts if p)


def gbps(amount, us):
    return amount / us / 1e3 if amount and us else None


def render(device, driver, call, rows, cubs, log_y, title):
    """The SVG text of one call's panel, and the names of the series drawn."""
    variants = {}
    for r in rows:
        variants.setdefault(variant(r, len({x.get("algo") for x in rows})), []).append(r)
    copies = {}  # elem_bytes -> {n: (device GB/s, batched GB/s)}
    for r in rows:
        c = copies.setdefault(r["elem_bytes"], {})
        b = gbps(2 * r["n"] * (r["elem_bytes"] or 0), r["copy_batched_median_us"])
        old = c.get(r["n"], (None, None))
        c[r["n"]] = (old[0] or r["copy_gbps"], old[1] or b)
    # CUB: GB/s from the bytes of this call's row of the same type and n
    cub_pts, cub_copy = [], []
    for c in cubs:
        match = [r for r in rows if r["n"] == c["n"] and (not c["type"] or r["type"] == c["type"])]
        if not match:
            continue
        r = match[0]
        cub_pts.append((c["n"], gbps(r["bytes_moved"], c["us"])))
        if c["copy_us"]:
            cub_copy.append((c["n"], gbps(2 * c["n"] * (r["elem_bytes"] or 0), c["copy_us"])))
    series = []  # (name, points, colour, dash, marker, filled, legend label)
    for i, (name, rs) in enumerate(sorted(variants.items())):
        colour = COLOURS[i % len(COLOURS)]
        dev = [(r["n"], r["scan_gbps"]) for r in rs if r["scan_gbps"]]
        bat = [(r["n"], gbps(r["bytes_moved"], r["batched_median_us"])) for r in rs]
        bat = [p for p in bat if p[1]]
        label = f"{call} {name}".strip()
        if dev:
            series.append((f"{label} (device time)", dev, colour, "", "circle", True))
        if bat:
            series.append((f"{label} (batched wall)", bat, colour, "5,3", "circle", False))
    for i, (eb, c) in enumerate(sorted(copies.items(), key=lambda kv: kv[0] or 0)):
        colour = ("#777", "#aaa", "#555")[i % 3]
        size = f", {eb:.0f}-byte elements" if len(copies) > 1 and eb else ""
        dev = [(n, v[0]) for n, v in c.items() if v[0]]
        bat = [(n, v[1]) for n, v in c.items() if v[1]]
        if dev:
            series.append((f"copy{size} (device time)", dev, colour, "", None, True))
        if bat:
            series.append((f"copy{size} (batched wall)", bat, colour, "5,3", None, True))
    cub_pts = [p for p in cub_pts if p[1]]
    cub_copy = [p for p in cub_copy if p[1]]
    if cub_pts:
        series.append(("CUB (batched wall)", cub_pts, "#000", None, "square", True))
    if cub_copy:
        series.append(("CUB copy (batched wall)", cub_copy, "#000", None, "diamond", False))
    xs = [p[0] for s in series for p in s[1]]
    ys = [p[1] for s in series for p in s[1] if p[1] > 0]
    if not xs or not ys:
        return None, []
    if log_y is None:  # auto
        log_y = max(ys) > 30 * min(ys)
    panel = Panel(xs, ys, log_y)
    platform = rows[0].get("platform")
    head = title or f"{call}: {device}" + (f" ({platform}, driver {driver})" if driver else "")
    if not title and len(head) > 72:  # (the width of the title)
        head = f"{call}: {device}" + (f" (driver {driver})" if driver else "")
    panel.axes(head, "n (elements)", "GB/s (least bytes the call moves / time)")
    for name, pts, colour, dash, marker, filled in series:
        panel.series(name, pts, colour, dash, marker, filled)
    panel.legend([(s[0], s[2], s[3], s[4], s[5]) for s in series])
    return panel.svg(), [s[0] for s in series]


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "device"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="clscan-bench --csv files")
    ap.add_argument("--cub", action="append", default=[], help="CUB timings (see the top)")
    ap.add_argument("--out", default=".", help="directory for the SVGs (default .)")
    ap.add_argument("--y", choices=("auto", "linear", "log"), default="auto",
                    help="the GB/s axis (default auto: log where the values span over 30x)")
    ap.add_argument("--log-y", dest="y", action="store_const", const="log", help="--y log")
    ap.add_argument("--calls", help="comma-separated calls to plot (default all)")
    ap.add_argument("--title", help="the title instead of '<call>: <device>'")
    a = ap.parse_args(argv)
    try:
        rows = [r for p in a.csv for r in read_bench(p)]
        cubs = [c for p in a.cub for c in read_cub(p)]
    except InputError as e:
        print(f"plot_bench: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("plot_bench: no PASS or UNCHECKED rows in " + ", ".join(a.csv), file=sys.stderr)
        return 2
    wanted = a.calls.split(",") if a.calls else None
    devices = sorted({r["device"] for r in rows})
    os.makedirs(a.out, exist_ok=True)
    written = 0
    for device in devices:
        drows = [r for r in rows if r["device"] == device]
        calls = []
        for r in drows:
            if r["call"] not in calls:
                calls.append(r["call"])
        for call in calls:
            if wanted and call not in wanted:
                continue
            crows = [r for r in drows if r["call"] == call]
            svg, names = render(device, crows[0].get("driver"), call, crows,
                                [c for c in cubs if c["call"] == call],
                                {"auto": None, "log": True, "linear": False}[a.y], a.title)
            if not svg:
                continue
            name = (slug(device) + "-" if len(devices) > 1 else "") + slug(call) + ".svg"
            with open(os.path.join(a.out, name), "w") as f:
                f.write(svg)
            print(f"{os.path.join(a.out, name)}: {len(names)} series ({', '.join(names)})")
            written += 1
    if wanted and not written:
        print(f"plot_bench: none of the calls {a.calls} has rows to plot", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
