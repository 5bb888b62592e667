#!/usr/bin/env python3
"""check_layers.py - fails on an #include that breaks the source tree's layering
(docs/ARCHITECTURE.md): a src/ file including a header of a higher layer, a src/ file
outside the layer folders, a private header over 300 lines, or a tool or example
including anything of the library but its installed headers.

Usage: check_layers.py <repository root>. Prints every violation; exit status 1 if any."""
# SPDX-License-Identifier: MIT
import os
import re
import sys

# The layers of src/, bottom up: a file may include its own layer's headers and those
# of the layers below it.
LAYERS = ['base', 'device', 'tune', 'kernels', 'runtime', 'algo']
# What tools/ and examples/ may include in quotes besides their own folder's headers.
PUBLIC = {'clscan.h', 'clscan_ext.h'}
MAX_HEADER_LINES = 300

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def includes(path):
    with open(path, encoding='utf-8') as f:
        return INCLUDE.findall(f.read())


def check_src(root, errors):
    src = os.path.join(root, 'src')
    for name in sorted(os.listdir(src)):
        if os.path.isfile(os.path.join(src, name)):
            errors.append(f'src/{name}: a source file outside the layer folders')
    for layer in sorted(os.listdir(src)):
        folder = os.path.join(src, layer)
        if not os.path.isdir(folder):
            continue
        if layer not in LAYERS:
            errors.append(f'src/{layer}/: not a layer ({", ".join(LAYERS)})')
            continue
        rank = LAYERS.index(layer)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            rel = f'src/{layer}/{name}'
            if name.endswith('.h'):
                with open(path, encoding='utf-8') as f:
                    lines = sum(1 for _ in f)
                if lines > MAX_HEADER_LINES:
                    errors.append(f'{rel}: {lines} lines, over {MAX_HEADER_LINES}')
            if not name.endswith(('.c', '.h')):
                continue
            for kind, inc in includes(path):
                if kind == '<':
                    if inc.startswith('clscan') and inc != 'clscan.h' and inc != 'clscan_ext.h':
                        errors.append(f'{rel}: includes <{inc}>')
                    continue
                if inc in PUBLIC:
                    continue
                parts = inc.split('/')
                if len(parts) != 2 or parts[0] not in LAYERS:
                    errors.append(f'{rel}: includes "{inc}", not "<layer>/<header>.h"')
                elif LAYERS.index(parts[0]) > rank:
                    errors.append(f'{rel}: includes "{inc}" of the higher layer {parts[0]}')


def check_users(root, folder, errors):
    base = os.path.join(root, folder)
    own = {n for n in os.listdir(base) if n.endswith('.h')}
    for name in sorted(os.listdir(base)):
        if not name.endswith(('.c', '.h', '.cpp')):
            continue
        for kind, inc in includes(os.path.join(base, name)):
            if inc in PUBLIC or (kind == '"' and inc in own):
                continue
            if kind == '<' and not inc.startswith('clscan'):
                continue  # system and third-party headers
            errors.append(f'{folder}/{name}: includes {kind}{inc}: only the installed '
                          f'headers ({", ".join(sorted(PUBLIC))}) and its own folder\'s')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    errors = []
    check_src(root, errors)
    for folder in ('tools', 'examples'):
        check_users(root, folder, errors)
    for e in errors:
        print(e)
    print(f'check_layers: {len(errors)} violation(s)')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
