# conftest.py - pytest fixtures of the clscan package's tests: the random seed (printed in
# the report header; CLSCAN_TEST_SEED=n repeats a run) and a queue on the first OpenCL
# device (PoCL in the test command: OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd).
# SPDX-License-Identifier: MIT
import os
import random

import numpy as np
import pytest

SEED = int(os.environ.get('CLSCAN_TEST_SEED') or random.SystemRandom().randrange(1 << 31))


def pytest_report_header(config):
    return 'clscan: seed %d (CLSCAN_TEST_SEED=%d repeats it)' % (SEED, SEED)


@pytest.fixture
def rng(request):
    # One generator per test, from the seed and the test's name, so that a test's
    # inputs do not depend on which other tests ran.
    name = request.node.nodeid.encode()
    return np.random.default_rng([SEED] + list(name[-64:]))


@pytest.fixture(scope='session')
def queue():
    cl = pytest.importorskip('pyopencl')
    for platform in cl.get_platforms():
        devices = platform.get_devices()
        if devices:
            ctx = cl.Context([devices[0]])
            return cl.CommandQueue(ctx)
    pytest.skip('no OpenCL device')
