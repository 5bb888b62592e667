#!/usr/bin/env python3
# bank_conflicts.py - counts the worst local-memory bank conflict of each step of the
# work-group scan in cl/clscan_workgroup.cl, with and without the padding, for a given
# work-group size, items per work-item and bank count (4-byte elements, 32-wide warps).
# SPDX-License-Identifier: MIT
import argparse


def pad(i, log_banks):
    return i + (i >> log_banks) if log_banks else i


def worst(addresses, threads, log_banks, banks, warp):
    """Largest number of distinct addresses any bank gets within one warp."""
    w = 1
    for first in range(0, threads, warp):
        per_bank = {}
        for lid in range(first, first + warp):
            a = addresses(lid)
            if a is None:
                continue
            p = pad(a, log_banks)
            per_bank.setdefault(p % banks, set()).add(p)
        if per_bank:
            w = max(w, max(len(v) for v in per_bank.values()))
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--wg', type=int, default=256)
    ap.add_argument('--items', type=int, default=8)
    ap.add_argument('--banks', type=int, default=32)
    ap.add_argument('--warp', type=int, default=32)
    a = ap.parse_args()
    log_banks = a.banks.bit_length() - 1
    print(f'work-group {a.wg}, {a.items} items, {a.banks} banks, warp {a.warp}: worst n-way conflict')
    for lb, name in ((0, 'unpadded'), (log_banks, 'padded')):
        load = max(worst(lambda l, j=j: j * a.wg + l, a.wg, lb, a.banks, a.warp)
                   for j in range(a.items))
        serial = max(worst(lambda l, j=j: l * a.items + j, a.wg, lb, a.banks, a.warp)
                     for j in range(a.items))
        sweeps = []
        d = 1
        while d < a.wg:
            right = lambda l, d=d: (2 * d * (l + 1) - 1) if 2 * d * (l + 1) - 1 < a.wg else None
            left = lambda l, d=d: right(l) - d if right(l) is not None else None
            sweeps.append(max(worst(right, a.wg, lb, a.banks, a.warp),
                              worst(left, a.wg, lb, a.banks, a.warp)))
            d *= 2
        print(f'  {name:9s} load/store {load}, serial {serial}, sweeps by stride {sweeps}')


if __name__ == '__main__':
    main()
