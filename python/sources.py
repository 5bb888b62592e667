#!/usr/bin/env python3
# sources.py - prints the library's C and OpenCL C sources as the repository's top-level
# meson.build lists them (lib_sources, cl_public, cl_sources), one path a line relative to
# python/, so that the Python package's build can never miss a file the library gains.
# Usage: sources.py c|cl|cl_public
# SPDX-License-Identifier: MIT
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
text = open(os.path.join(here, '..', 'meson.build'), encoding='utf-8').read()


def block(name):
    m = re.search(r'^%s\s*=\s*(.*?)\)\s*$' % re.escape(name), text, re.M | re.S)
    if not m:
        sys.exit('sources.py: no %s = files(...) in ../meson.build' % name)
    return re.findall(r"'([^']+)'", m.group(1))


kind = sys.argv[1]
if kind == 'c':
    paths = block('lib_sources')
elif kind == 'cl_public':
    paths = block('cl_public')
else:
    paths = block('cl_public') + [p for p in block('cl_sources') if p.endswith('.cl')]
for p in paths:
    print('../' + p)
