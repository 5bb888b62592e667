# test_clscan.py - pytest suite of the clscan Python package: every call against numpy on
# random inputs (seed in the report header), with array slices (offsets), events, wait
# lists, errors, and the ctypes structs' layout against the C header's.
# SPDX-License-Identifier: MIT
import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

cl = pytest.importorskip('pyopencl')
cla = pytest.importorskip('pyopencl.array')
import clscan  # noqa: E402
from clscan import _native  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DTYPES = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]


def has_fp64(queue):
    return 'cl_khr_fp64' in queue.device.extensions


def skip_fp64(queue, dtype):
    if np.dtype(dtype) == np.float64 and not has_fp64(queue):
        pytest.skip('no fp64')


def padded(queue, host, pad=3):
    """host on the device inside a larger array: returns (device slice, whole array)."""
    whole = np.zeros(host.size + 2 * pad, host.dtype)
    whole[pad:pad + host.size] = host
    dev = cla.to_device(queue, whole)
    return dev[pad:pad + host.size], dev


def small(rng, dtype, n, hi=10):
    return rng.integers(0, hi, n).astype(dtype)


# ---- Layout of the mirrored structs, and the constants --------------------------------
def test_struct_layouts(tmp_path):
    cc = os.environ.get('CC') or shutil.which('cc') or shutil.which('gcc')
    if not cc:
        if os.environ.get('CLSCAN_REQUIRE_LAYOUT_CHECK'):
            pytest.fail('no C compiler to check the struct layouts with')
        pytest.skip('no C compiler')
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "clscan.h"',
             'int main(void) {']
    expect = []
    for cname, py in _native.STRUCTS.items():
        lines.append('printf("%%zu\\n", sizeof(%s));' % cname)
        expect.append(('sizeof ' + cname, ctypes.sizeof(py)))
        for field, _ in py._fields_:
            lines.append('printf("%%zu\\n", offsetof(%s, %s));' % (cname, field))
            expect.append(('%s.%s' % (cname, field), getattr(py, field).offset))
            lines.append('printf("%%zu\\n", sizeof(((%s *)0)->%s));' % (cname, field))
            expect.append(('sizeof %s.%s' % (cname, field), getattr(py, field).size))
    consts = {'CLSCAN_SUCCESS': _native.SUCCESS,
              'CLSCAN_ERROR_INVALID_ARGUMENT': _native.ERROR_INVALID_ARGUMENT,
              'CLSCAN_ERROR_UNSUPPORTED': _native.ERROR_UNSUPPORTED,
              'CLSCAN_ERROR_BUILD_FAILED': _native.ERROR_BUILD_FAILED,
              'CLSCAN_ERROR_OUT_OF_RESOURCES': _native.ERROR_OUT_OF_RESOURCES,
              'CLSCAN_ERROR_INVALID_ENVIRONMENT': _native.ERROR_INVALID_ENVIRONMENT,
              'CLSCAN_OPTION_ZERO': _native.OPTION_ZERO,
              'CLSCAN_OPTIONS_IGNORE_ENVIRONMENT': _native.OPTIONS_IGNORE_ENVIRONMENT,
              'CLSCAN_INT32': _native.INT32, 'CLSCAN_DOUBLE': _native.DOUBLE,
              'CLSCAN_OP_ADD': _native.OP_ADD, 'CLSCAN_OP_XOR': _native.OP_XOR,
              'CLSCAN_SEGMENTS_FLAGS': _native.SEGMENTS_FLAGS,
              'CLSCAN_SEGMENTS_KEYS': _native.SEGMENTS_KEYS,
              'CLSCAN_VERSION_NUMBER': clscan.version()}
    for name, value in consts.items():
        lines.append('printf("%%lld\\n", (long long)(%s));' % name)
        expect.append((name, value if value < (1 << 63) else value - (1 << 64)))
    lines.append('return 0; }')
    src = tmp_path / 'layout.c'
    src.write_text('\n'.join(lines) + '\n')
    exe = tmp_path / 'layout'
    subprocess.run([cc, '-std=c11', '-I', os.path.join(ROOT, 'include'), str(src), '-o',
                    str(exe)], check=True)
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert len(got) == len(expect)
    wrong = ['%s: C %s, Python %s' % (name, g, v) for (name, v), g in zip(expect, got)
             if int(g) != v]
    assert not wrong, 'struct layouts differ from clscan.h:\n' + '\n'.join(wrong)


def test_names():
    assert clscan.__version__ == '%d.%d.%d' % (clscan.version() // 10000,
                                               clscan.version() // 100 % 100,
                                               clscan.version() % 100)
    assert clscan.status_string(-7001) == 'CLSCAN_ERROR_INVALID_ARGUMENT'
    assert clscan.status_string(-30) == 'CL_INVALID_VALUE'
    assert [clscan.type_size(d) for d in DTYPES] == [4, 4, 8, 8, 4, 8]
    assert clscan.type_name(np.float32) == 'float'
    assert clscan.op_name(np.minimum) == 'min' and clscan.op_name('xor') == 'xor'
    with pytest.raises(TypeError, match='int8'):
        clscan.type_size(np.int8)
    with pytest.raises(ValueError, match='unknown operator'):
        clscan.op_name('pow')


# ---- Scans ------------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('exclusive', [False, True])
def test_cumsum(queue, rng, dtype, exclusive):
    skip_fp64(queue, dtype)
    n = int(rng.integers(1, 20000))
    host = small(rng, dtype, n)
    src, _ = padded(queue, host)
    out, whole_out = padded(queue, np.zeros(n, dtype), pad=5)
    r = clscan.cumsum(src, out=out, exclusive=exclusive)
    assert r is out
    ref = np.cumsum(host, dtype=dtype)
    if exclusive:
        ref = np.concatenate([[0], ref[:-1]]).astype(dtype)
    w = whole_out.get()
    np.testing.assert_array_equal(w[5:-5], ref)
    assert not w[:5].any() and not w[-5:].any()       # nothing outside out written


@pytest.mark.parametrize('dtype', [np.int32, np.float64])
@pytest.mark.parametrize('fn,ref', [(clscan.cumprod, np.multiply.accumulate),
                                    (clscan.cummin, np.minimum.accumulate),
                                    (clscan.cummax, np.maximum.accumulate)])
def test_cum_ops(queue, rng, dtype, fn, ref):
    skip_fp64(queue, dtype)
    n = int(rng.integers(1, 10000))
    if fn is clscan.cumprod and dtype == np.float64:
        host = rng.choice([0.5, 1.0, 2.0, -1.0], n).astype(dtype)   # exact products
    else:
        host = rng.integers(-1000, 1000, n).astype(dtype)
    src, _ = padded(queue, host)
    np.testing.assert_array_equal(fn(src).get(), ref(host, dtype=dtype))


def test_bitwise_and_in_place(queue, rng):
    host = rng.integers(0, 1 << 32, 7777, dtype=np.uint64).astype(np.uint32)
    a, _ = padded(queue, host)
    clscan.cumulative(a, np.bitwise_xor, out=a)
    np.testing.assert_array_equal(a.get(), np.bitwise_xor.accumulate(host))


def test_carry(queue, rng):
    host = small(rng, np.int64, 5000)
    src, _ = padded(queue, host)
    total = cla.zeros(queue, 2, np.int64)
    out = clscan.cumsum(src, initial=100, total=total[1:])
    np.testing.assert_array_equal(out.get(), 100 + np.cumsum(host))
    assert total.get()[1] == 100 + host.sum() and total.get()[0] == 0
    # The total of one call as the carry-in of the next, on the device.
    out2 = clscan.cumsum(src, exclusive=True, initial=total[1:])
    np.testing.assert_array_equal(out2.get(), 100 + host.sum() + np.cumsum(host) - host)


# ---- General scans ----------------------------------------------------------------------
def test_scan_custom_operator(queue, rng):
    # "last nonzero so far": associative, not commutative.
    host = (rng.integers(0, 4, 9000) * rng.integers(0, 2, 9000)).astype(np.int32)
    src, _ = padded(queue, host)
    out = clscan.scan(src, combine='b != 0 ? b : a', identity='0')
    ref = np.zeros_like(host)
    last = 0
    for k, x in enumerate(host):
        last = x if x else last
        ref[k] = last
    np.testing.assert_array_equal(out.get(), ref)


def segmented_ref(host, starts, exclusive=False):
    ref = np.zeros_like(host)
    acc = 0
    for k, x in enumerate(host):
        if k == 0 or starts[k]:
            acc = 0
        if exclusive:
            ref[k] = acc
            acc += x
        else:
            acc += x
            ref[k] = acc
    return ref


def test_scan_segments(queue, rng):
    n = 6000
    host = small(rng, np.int32, n)
    flags = (rng.random(n) < 0.01).astype(np.uint8)
    src, _ = padded(queue, host)
    fl, _ = padded(queue, flags)
    out = clscan.scan(src, segments=fl)
    np.testing.assert_array_equal(out.get(), segmented_ref(host, flags))
    keys = np.cumsum(rng.random(n) < 0.02).astype(np.int32)
    starts = np.concatenate([[1], keys[1:] != keys[:-1]])
    ks, _ = padded(queue, keys)
    out = clscan.scan(src, segments=ks, exclusive=True)
    np.testing.assert_array_equal(out.get(), segmented_ref(host, starts, exclusive=True))


def test_scan_transform_widened_compensated(queue, rng):
    host = rng.random(8000).astype(np.float32)
    src, _ = padded(queue, host)
    counts = clscan.scan(src, dtype=np.int32, transform='x > 0.5f ? 1 : 0')
    np.testing.assert_array_equal(counts.get(), np.cumsum(host > 0.5))
    big = rng.integers(0, 1 << 31, 5000, dtype=np.int64).astype(np.uint32)
    bs, _ = padded(queue, big)
    wide = clscan.scan(bs, dtype=np.uint64)          # uint into ulong: no transform
    np.testing.assert_array_equal(wide.get(), np.cumsum(big, dtype=np.uint64))
    comp = clscan.scan(src, compensated=True).get()
    exact = np.cumsum(host, dtype=np.float64)
    assert np.max(np.abs(comp - exact) / exact) < 2e-7


def test_scan_user_type(queue, rng):
    # (sum, count) pairs as OpenCL C int2, from a numpy structured dtype of the same size.
    pair = np.dtype([('s', np.int32), ('c', np.int32)])
    host = np.zeros(3000, pair)
    host['s'] = rng.integers(-50, 50, 3000)
    host['c'] = 1
    src = cla.to_device(queue, host)
    out = clscan.scan(src, type_name='int2', combine='a + b', identity='(int2)(0, 0)')
    got = out.get()
    np.testing.assert_array_equal(got['s'], np.cumsum(host['s']))
    np.testing.assert_array_equal(got['c'], np.arange(1, 3001))


def test_scan_output(queue, rng):
    lengths = rng.integers(0, 4, 2500).astype(np.uint32)
    src, _ = padded(queue, lengths)
    total = int(lengths.sum())
    values = cla.zeros(queue, max(1, total), np.int32)
    res = clscan.scan_output(src, 'for (uint k = 0; k < x; ++k) out0[y + k] = (int)i;',
                             outputs=[values], exclusive=True)
    assert res is None
    np.testing.assert_array_equal(values.get()[:total],
                                  np.repeat(np.arange(lengths.size), lengths))


def test_scan_parts(queue, rng):
    a = small(rng, np.int64, 3000)
    b = small(rng, np.int64, 2000)
    sa, _ = padded(queue, a)
    sb, _ = padded(queue, b)
    da, db = cla.empty_like(sa), cla.empty_like(sb)
    total = cla.zeros(queue, 1, np.int64)
    events = clscan.scan_parts([(queue, sa, da), (queue, sb, db)], initial=7, total=total)
    assert len(events) == 2 and all(isinstance(e, cl.Event) for e in events)
    ref = 7 + np.cumsum(np.concatenate([a, b]))
    np.testing.assert_array_equal(np.concatenate([da.get(), db.get()]), ref)
    assert total.get()[0] == ref[-1]


def test_scan_host(queue, rng):
    host = small(rng, np.int64, 10000)
    out = clscan.scan_host(host, queue, chunk=3000)
    np.testing.assert_array_equal(out, np.cumsum(host))


# ---- Reductions -------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.int64, np.float32])
def test_reduce(queue, rng, dtype):
    host = rng.integers(-1000, 1000, int(rng.integers(1, 30000))).astype(dtype)
    src, _ = padded(queue, host)
    assert clscan.sum(src).get() == host.sum()
    assert clscan.amin(src).get() == host.min()
    assert clscan.amax(src).get() == host.max()
    signs = np.where(host >= 0, 1, -1).astype(dtype)
    assert clscan.prod(padded(queue, signs)[0]).get() == np.prod(signs)
    empty = cla.empty(queue, 0, dtype)
    assert clscan.sum(empty).get() == 0


def test_reduce_desc(queue, rng):
    host = rng.random(7000).astype(np.float32)
    src, _ = padded(queue, host)
    r = clscan.reduce(src, dtype=np.int32, transform='x < 0.25f ? 1 : 0')
    assert int(r.get()) == int((host < 0.25).sum())
    m = clscan.reduce(src, combine='fmax(a, b)', identity='-INFINITY')
    assert m.get() == host.max()


def test_reduce_by_key(queue, rng):
    n = 5000
    keys = np.cumsum(rng.random(n) < 0.05).astype(np.int32) * 3
    values = small(rng, np.int64, n)
    ks, _ = padded(queue, keys)
    vs, _ = padded(queue, values)
    uk, red, count = clscan.reduce_by_key(ks, vs)
    starts = np.flatnonzero(np.concatenate([[1], keys[1:] != keys[:-1]]))
    m = int(count.get())
    assert m == starts.size
    np.testing.assert_array_equal(uk.get()[:m], keys[starts])
    np.testing.assert_array_equal(red.get()[:m], np.add.reduceat(values, starts))
    flags = np.zeros(n, np.uint8)
    flags[starts] = 1
    none, red2, count2 = clscan.reduce_by_key(padded(queue, flags)[0], vs, op='max')
    assert none is None and int(count2.get()) == m
    np.testing.assert_array_equal(red2.get()[:m], np.maximum.reduceat(values, starts))


def test_run_length_encode(queue, rng):
    host = np.repeat(rng.integers(0, 5, 800), rng.integers(1, 4, 800)).astype(np.uint32)
    src, _ = padded(queue, host)
    starts = np.flatnonzero(np.concatenate([[1], host[1:] != host[:-1]]))
    lens = np.diff(np.concatenate([starts, [host.size]]))
    u, lengths, count = clscan.run_length_encode(src, length_dtype=np.uint64)
    m = int(count.get())
    assert m == starts.size
    np.testing.assert_array_equal(u.get()[:m], host[starts])
    np.testing.assert_array_equal(lengths.get()[:m], lens)
    offs, nlens, ncount = clscan.run_length_encode_nontrivial(src)
    k = int(ncount.get())
    assert k == int((lens > 1).sum())
    np.testing.assert_array_equal(offs.get()[:k], starts[lens > 1])
    np.testing.assert_array_equal(nlens.get()[:k], lens[lens > 1])


def test_histogram(queue, rng):
    host = rng.integers(-20, 120, 20000).astype(np.int32)
    src, _ = padded(queue, host)
    counts = clscan.histogram(src, 10, range=(0, 100))
    np.testing.assert_array_equal(counts.get(), np.histogram(host[(host >= 0) & (host < 100)],
                                                             10, (0, 100))[0])
    edges = np.array([-20, -3, 0, 7, 50, 99, 119], np.int32)
    counts = clscan.histogram(src, cla.to_device(queue, edges), dtype=np.uint64)
    ref = np.histogram(host[host < edges[-1]], edges)[0]   # numpy closes its last bin
    np.testing.assert_array_equal(counts.get(), ref)


# ---- Compaction -------------------------------------------------------------------------
def test_select(queue, rng):
    n = 9000
    host = rng.random(n).astype(np.float32)
    src, _ = padded(queue, host)
    flags = (rng.random(n) < 0.3).astype(np.uint8)
    out, count = clscan.select_flagged(src, padded(queue, flags)[0])
    kept = host[flags != 0]
    assert int(count.get()) == kept.size
    np.testing.assert_array_equal(out.get()[:kept.size], kept)
    out, count = clscan.select_if(src, 'x > 0.5f && i % 3 != 0')
    kept = host[(host > 0.5) & (np.arange(n) % 3 != 0)]
    assert int(count.get()) == kept.size
    np.testing.assert_array_equal(out.get()[:kept.size], kept)
    out, count = clscan.partition_if(src, 'x > 0.5f && i % 3 != 0')
    sel = (host > 0.5) & (np.arange(n) % 3 != 0)
    np.testing.assert_array_equal(out.get(), np.concatenate([host[sel], host[~sel][::-1]]))


def test_unique(queue, rng):
    host = np.sort(rng.integers(0, 300, 5000)).astype(np.int64)
    out, count = clscan.unique(padded(queue, host)[0])
    ref = np.unique(host)
    assert int(count.get()) == ref.size
    np.testing.assert_array_equal(out.get()[:ref.size], ref)


def test_compact(queue, rng):
    host = rng.integers(-100, 100, 6000).astype(np.int32)
    src, _ = padded(queue, host)
    out, count = clscan.compact(src, 'x < 0', partition=True, stable=True)
    sel = host < 0
    assert int(count.get()) == sel.sum()
    np.testing.assert_array_equal(out.get(), np.concatenate([host[sel], host[~sel]]))
    vec = np.dtype((np.int32, 2))
    pairs = rng.integers(-5, 5, (3000, 2)).astype(np.int32)
    ps = cla.to_device(queue, pairs.view(np.dtype([('x', np.int32), ('y', np.int32)])).ravel())
    out, count = clscan.compact(ps, 'x.x + x.y > 0', type_name='int2')
    kept = pairs[pairs.sum(axis=1) > 0]
    assert int(count.get()) == len(kept) and vec.itemsize == 8
    got = out.get()[:len(kept)]
    np.testing.assert_array_equal(np.stack([got['x'], got['y']], axis=1), kept)


# ---- Sorting ----------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.uint32, np.int64, np.float32])
def test_sort(queue, rng, dtype):
    n = int(rng.integers(1, 20000))
    host = (rng.standard_normal(n) * 1e6).astype(dtype)
    src, _ = padded(queue, host)
    np.testing.assert_array_equal(clscan.sort(src).get(), np.sort(host))
    values = rng.integers(0, 1 << 30, n).astype(np.uint32)
    k, v = clscan.sort_pairs(src, padded(queue, values)[0])
    order = np.argsort(host, kind='stable')
    np.testing.assert_array_equal(k.get(), host[order])
    np.testing.assert_array_equal(v.get(), values[order])
    np.testing.assert_array_equal(clscan.argsort(src).get(), order)


# ---- Contexts, errors, events -----------------------------------------------------------
def test_context(queue, rng):
    ctx = clscan.get_context(queue)
    assert clscan.get_context(queue) is ctx and ctx.handle
    text = ctx.describe()
    assert queue.device.name.split()[0] in text
    opts, wg, tile = ctx.kernel_build_options(np.int32, 'add')
    assert '-D' in opts and wg > 0 and tile % wg == 0
    with clscan.Context(queue, algorithm='multi-level', disk_cache=False,
                        work_group_size=64, items_per_thread=2) as own:
        assert 'multi-level' in own.describe()
    assert not own.handle
    with pytest.raises(clscan.Error) as e:
        clscan.Context(queue, subgroups=99)
    assert e.value.name == 'CLSCAN_ERROR_INVALID_ENVIRONMENT' and 'SUBGROUP' in e.value.message


def test_errors(queue, rng):
    src = cla.to_device(queue, rng.random(100).astype(np.float32))
    with pytest.raises(clscan.Error) as e:
        clscan.cumulative(src, 'xor')
    assert e.value.status == _native.ERROR_UNSUPPORTED
    assert e.value.name == 'CLSCAN_ERROR_UNSUPPORTED' and e.value.message
    with pytest.raises(clscan.Error) as e:
        clscan.histogram(src, 4, range=(1.0, 0.0))
    assert e.value.name == 'CLSCAN_ERROR_INVALID_ARGUMENT'
    assert 'lower' in e.value.message and 'CLSCAN_ERROR_INVALID_ARGUMENT' in str(e.value)
    with pytest.raises(clscan.Error) as e:
        clscan.select_if(src, '')
    assert e.value.status == _native.ERROR_INVALID_ARGUMENT
    with pytest.raises(TypeError, match='int8'):
        clscan.cumsum(cla.zeros(queue, 4, np.int8))
    with pytest.raises(ValueError, match='contiguous'):
        clscan.cumsum(cla.zeros(queue, 8, np.int32)[::2])


def test_events(queue, rng):
    host = small(rng, np.int32, 4000)
    gate = cl.UserEvent(queue.context)
    src = cla.to_device(queue, host)
    try:
        out = clscan.cumsum(src, wait_for=[gate])
        evt = out.events[-1]
        assert isinstance(evt, cl.Event)
        assert evt.command_execution_status != cl.command_execution_status.COMPLETE
    finally:   # never leave the queue blocked behind the gate
        gate.set_status(cl.command_execution_status.COMPLETE)
    evt.wait()
    np.testing.assert_array_equal(out.get(), np.cumsum(host))
    # A call waits for its inputs' events, as pyopencl.array's operations do.
    src2 = cla.empty(queue, 4000, np.int32)
    gate2 = cl.UserEvent(queue.context)
    src2.add_event(cl.enqueue_copy(queue, src2.data, src.data, wait_for=[gate2]))
    try:
        out2 = clscan.cumsum(src2)
        assert out2.events[-1].command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        gate2.set_status(cl.command_execution_status.COMPLETE)
    np.testing.assert_array_equal(out2.get(), np.cumsum(host))
