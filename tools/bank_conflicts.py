#!/usr/bin/env python3
# bank_conflicts.py - counts the worst local-memory bank conflict of each step of the
# work-group scan in cl/clscan_workgroup.cl, with and without the padding, for a given
# work-group size, items per work-item, bank count and element size (4-byte banks,
# 32-wide warps). An element of E bytes covers E/4 banks and is served E/4 parts of a
# warp at a time; the padding puts one slot after a bank row's worth of elements
# (src/kernels/config.c: clscan__pad_shift; "padded/row": after `banks` elements, as
# before 8-byte elements had their own shift).
# SPDX-License-Identifier: MIT
import argparse


def pad(i, log_banks):
    return i + (i >> log_banks) if log_banks else i


def worst(addresses, threads, log_banks, banks, warp, words=1):
    """Largest number of distinct words any bank serves within one access of a warp.
    Wider elements are served a part of the warp at a time (8 bytes: each half-warp,
    the rule NVIDIA gives for 64-bit accesses), each part as a warp of 4-byte ones."""
    w = 1
    part = warp // words
    for first in range(0, threads, part):
        per_bank = {}
        for lid in range(first, first + part):
            a = addresses(lid)
            if a is None:
                continue
            p = pad(a, log_banks)
            for k in range(words):
                per_bank.setdefault((p * words + k) % banks, set()).add(p * words + k)
        if per_bank:
            w = max(w, max(len(v) for v in per_bank.values()))
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--wg', type=int, default=256)
    ap.add_argument('--items', type=int, default=8)
    ap.add_argument('--banks', type=int, default=32)
    ap.add_argument('--warp', type=int, default=32)
    ap.add_argument('--elem-bytes', type=int, default=4, choices=(4, 8, 16))
    a = ap.parse_args()
    words = a.elem_bytes // 4
    row = a.banks.bit_length() - 1
    shift = max(1, row - (words.bit_length() - 1))
    print(f'work-group {a.wg}, {a.items} items of {a.elem_bytes} bytes, {a.banks} banks, '
          f'warp {a.warp}: worst n-way conflict')
    shapes = [(0, 'unpadded'), (shift, 'padded')]
    if shift != row:
        shapes.insert(1, (row, 'padded/row'))
    for lb, name in shapes:
        load = max(worst(lambda l, j=j: j * a.wg + l, a.wg, lb, a.banks, a.warp, words)
                   for j in range(a.items))
        serial = max(worst(lambda l, j=j: l * a.items + j, a.wg, lb, a.banks, a.warp, words)
                     for j in range(a.items))
        sweeps = []
        d = 1
        while d < a.wg:
            right = lambda l, d=d: (2 * d * (l + 1) - 1) if 2 * d * (l + 1) - 1 < a.wg else None
            left = lambda l, d=d: right(l) - d if right(l) is not None else None
            sweeps.append(max(worst(right, a.wg, lb, a.banks, a.warp, words),
                              worst(left, a.wg, lb, a.banks, a.warp, words)))
            d *= 2
        print(f'  {name:10s} load/store {load}, serial {serial}, sweeps by stride {sweeps}')


if __name__ == '__main__':
    main()
