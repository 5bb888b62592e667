#!/usr/bin/env python3
# run_pytest.py - the meson test 'python': runs pytest on python/tests with this
# interpreter, or exits 77 (meson's "skipped") where pyopencl, numpy or pytest is missing.
# SPDX-License-Identifier: MIT
import os
import sys

try:
    import numpy  # noqa: F401
    import pyopencl  # noqa: F401
    import pytest
except ImportError as e:
    print('python test skipped: %s (Debian: apt-get install python3-pyopencl '
          'python3-numpy python3-pytest)' % e)
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
sys.exit(pytest.main(['-p', 'no:cacheprovider', '-v', here] + sys.argv[1:]))
