# clscan - Python bindings of libclscan for PyOpenCL: scans, reductions, compaction,
# sorting and histograms on pyopencl.array.Array objects, with numpy-like names and dtypes.
# SPDX-License-Identifier: MIT
"""libclscan for PyOpenCL.

Every call takes pyopencl.array.Array arguments (1-D, contiguous; slices with an offset
are fine), enqueues its work on a queue (``queue=``, default: the first array's queue)
after the input arrays' ``.events`` and ``wait_for=``, and returns at once: the event
of the work is appended to each output array's ``.events``, as pyopencl.array does, so
``out.get()`` waits for it. Counts and reduction results stay on the device as 0-d
arrays (``int(count.get())`` reads one). Failures raise :class:`clscan.Error`.
"""
import ctypes
import os
import threading
import weakref

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from . import _native
from ._native import lib

__all__ = [
    'Error', 'Context', 'get_context', 'version', 'status_string', 'type_size', 'type_name',
    'op_name', 'cumsum', 'cumprod', 'cummin', 'cummax', 'cumulative', 'scan', 'scan_output',
    'scan_parts', 'scan_host', 'reduce', 'sum', 'prod', 'amin', 'amax', 'reduce_by_key',
    'run_length_encode', 'run_length_encode_nontrivial', 'histogram', 'select_flagged',
    'select_if', 'partition_if', 'unique', 'compact', 'sort', 'sort_pairs', 'argsort',
]

# The OpenCL C headers installed in the package (pip install), for kernel_build_options.
_PACKAGED_CL = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cl')
if not os.path.isfile(os.path.join(_PACKAGED_CL, 'clscan_workgroup.cl')):
    _PACKAGED_CL = None

_v = lib.clscan_version()
__version__ = '%d.%d.%d' % (_v // 10000, _v // 100 % 100, _v % 100)

# numpy dtype -> (clscan_type, OpenCL C name). Other dtypes are refused where a library
# type is needed; OpenCL C names of a few more serve output stages and user texts.
_TYPES = {np.dtype(np.int32): (_native.INT32, 'int'),
          np.dtype(np.uint32): (_native.UINT32, 'uint'),
          np.dtype(np.int64): (_native.INT64, 'long'),
          np.dtype(np.uint64): (_native.UINT64, 'ulong'),
          np.dtype(np.float32): (_native.FLOAT, 'float'),
          np.dtype(np.float64): (_native.DOUBLE, 'double')}
_CL_NAMES = dict((d, name) for d, (_, name) in _TYPES.items())
_CL_NAMES.update({np.dtype(np.int8): 'char', np.dtype(np.uint8): 'uchar',
                  np.dtype(np.int16): 'short', np.dtype(np.uint16): 'ushort'})
_DTYPE_OF_TYPE = dict((t, d) for d, (t, _) in _TYPES.items())

_OPS = {'add': _native.OP_ADD, 'mul': _native.OP_MUL, 'min': _native.OP_MIN,
        'max': _native.OP_MAX, 'and': _native.OP_AND, 'or': _native.OP_OR,
        'xor': _native.OP_XOR, 'multiply': _native.OP_MUL, 'minimum': _native.OP_MIN,
        'maximum': _native.OP_MAX, 'bitwise_and': _native.OP_AND,
        'bitwise_or': _native.OP_OR, 'bitwise_xor': _native.OP_XOR, 'sum': _native.OP_ADD,
        'prod': _native.OP_MUL}


class Error(RuntimeError):
    """A libclscan call failed. ``status`` is the clscan_status (or OpenCL error) code,
    ``name`` its name ("CLSCAN_ERROR_INVALID_ARGUMENT", "CL_INVALID_VALUE", ...) and
    ``message`` the library's detail (clscan_context_last_error: what was wrong, or the
    compiler's log for CLSCAN_ERROR_BUILD_FAILED)."""

    def __init__(self, status, message, call=None):
        self.status = status
        self.name = status_string(status)
        self.message = message
        self.call = call
        text = '%s: %s' % (call, self.name) if call else self.name
        super().__init__(text + (': ' + message if message else ''))


def version():
    """clscan_version(): the linked library's CLSCAN_VERSION_NUMBER (major*10000 + ...)."""
    return lib.clscan_version()


def status_string(status):
    """clscan_status_string: the name of a status code."""
    return lib.clscan_status_string(int(status)).decode()


def _type_of(dtype, what='dtype'):
    try:
        return _TYPES[np.dtype(dtype)][0]
    except (KeyError, TypeError):
        raise TypeError('clscan: %s %s is not one of int32, uint32, int64, uint64, float32, '
                        'float64' % (what, dtype)) from None


def _op_of(op):
    if isinstance(op, np.ufunc):
        op = op.__name__
    if isinstance(op, str):
        try:
            return _OPS[op.lower()]
        except KeyError:
            pass
    raise ValueError('clscan: unknown operator %r (add, mul, min, max, and, or, xor or the '
                     'matching numpy ufunc)' % (op,))


def type_size(dtype):
    """clscan_type_size of a numpy dtype's clscan type."""
    return lib.clscan_type_size(_type_of(dtype))


def type_name(dtype):
    """clscan_type_name of a numpy dtype's clscan type ("int32", "float", ...)."""
    return lib.clscan_type_name(_type_of(dtype)).decode()


def op_name(op):
    """clscan_op_name of an operator ("add", np.minimum, ...)."""
    return lib.clscan_op_name(_op_of(op)).decode()


def _b(text):
    return None if text is None else text.encode() if isinstance(text, str) else bytes(text)


# ---- Contexts -----------------------------------------------------------------------
_SWITCH_FIELDS = ('fp64', 'int64_atomics', 'bank_probe', 'padding', 'disk_cache')
_ENUM_FIELDS = {
    'subgroups': {'local': 1, 'khr': 2, 'nvidia': 3, 'intel': 4},
    'wg_scan': {'blelloch': 1, 'subgroups': 2},
    'algorithm': {'multi-level': 1, 'single-pass': 2},
    'lookback_atomics': {'cl12': 1, 'c11': 2, 'ptx': 3},
    'lookback_test': {'off': 0, 'delay': 1, 'silent': 2},
    'sort_algorithm': {'three-step': 1, 'onesweep': 2},
}


def _options_struct(options):
    o = _native.ContextOptions()
    o.struct_size = ctypes.sizeof(o)
    keep = []
    fields = dict(_native.ContextOptions._fields_)
    for key, value in options.items():
        if value is None:
            continue
        if key == 'ignore_environment':
            o.flags |= _native.OPTIONS_IGNORE_ENVIRONMENT if value else 0
        elif key == 'flags':
            o.flags |= int(value)
        elif key in ('struct_size',) or key not in fields:
            raise TypeError('clscan.Context: unknown option %r' % key)
        elif fields[key] is ctypes.c_char_p:
            keep.append(_b(str(value)))
            setattr(o, key, keep[-1])
        elif key in _SWITCH_FIELDS:
            setattr(o, key, value if not isinstance(value, bool) else (2 if value else 1))
        elif key in _ENUM_FIELDS and isinstance(value, str):
            try:
                setattr(o, key, _ENUM_FIELDS[key][value])
            except KeyError:
                raise ValueError('clscan.Context: option %s=%r is not one of %s'
                                 % (key, value, ', '.join(_ENUM_FIELDS[key]))) from None
        elif fields[key] is ctypes.c_uint64 and int(value) == 0:
            setattr(o, key, _native.OPTION_ZERO)
        else:
            setattr(o, key, int(value))
    return o, keep


class Context:
    """A clscan_context for one (pyopencl Context, Device). Made by get_context() for the
    calls (one per pair, cached while the pyopencl Context lives), or directly with
    options: every field of clscan_context_options by name (``algorithm='multi-level'``,
    ``disk_cache=False``, ``work_group_size=64``, ``ignore_environment=True``; a number
    0 means CLSCAN_OPTION_ZERO). Released by release(), or when garbage collected."""

    def __init__(self, context, device=None, **options):
        if isinstance(context, cl.CommandQueue):
            device = device or context.device
            context = context.context
        if device is None:
            devices = context.devices
            if len(devices) != 1:
                raise ValueError('clscan.Context: the context has %d devices: pass device='
                                 % len(devices))
            device = devices[0]
        # A weak reference: the cache of get_context() must not keep the context alive.
        self._cl_context = weakref.ref(context)
        self.device = device
        self._ptr = _native.ctx_p()
        self._lock = threading.Lock()
        if ('kernel_include_dir' not in options and _PACKAGED_CL
                and not os.environ.get('CLSCAN_KERNEL_INCLUDE_DIR')):
            options['kernel_include_dir'] = _PACKAGED_CL
        if options:
            o, keep = _options_struct(options)
            status = lib.clscan_context_create_with_options(
                ctypes.c_void_p(context.int_ptr), ctypes.c_void_p(device.int_ptr),
                ctypes.byref(o), ctypes.byref(self._ptr))
            del keep
        else:
            status = lib.clscan_context_create(ctypes.c_void_p(context.int_ptr),
                                               ctypes.c_void_p(device.int_ptr),
                                               ctypes.byref(self._ptr))
        if status != _native.SUCCESS:
            raise Error(status, lib.clscan_context_last_error(None).decode(errors='replace'),
                        'clscan_context_create')
        self._dummy = None

    @property
    def cl_context(self):
        """The pyopencl Context (None once it has been collected)."""
        return self._cl_context()

    @property
    def handle(self):
        """The clscan_context pointer, as an int (0 once released)."""
        return self._ptr.value or 0

    def release(self):
        """clscan_context_release: frees the context's programs and scratch."""
        ptr, self._ptr = self._ptr, _native.ctx_p()
        if ptr:
            lib.clscan_context_release(ptr)

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def last_error(self):
        """clscan_context_last_error: this thread's last failure's detail on the context."""
        return lib.clscan_context_last_error(self._ptr).decode(errors='replace')

    def describe(self):
        """clscan_context_describe: what the context detected and chose, as text."""
        n = lib.clscan_context_describe(self._ptr, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        lib.clscan_context_describe(self._ptr, buf, n + 1)
        return buf.value.decode(errors='replace')

    def warm(self):
        """clscan_context_warm: builds (or loads) every warmable program now; blocks."""
        self._check(lib.clscan_context_warm(self._ptr), 'clscan_context_warm')

    def kernel_build_options(self, dtype, op='add', max_work_group_size=0):
        """clscan_kernel_build_options: (options text, work-group size, tile size) for a
        kernel of yours that includes <clscan_workgroup.cl>."""
        length, wg, tile = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
        args = (self._ptr, _type_of(dtype), _op_of(op), max_work_group_size)
        self._check(lib.clscan_kernel_build_options(*args, None, 0, ctypes.byref(length),
                                                    None, None), 'clscan_kernel_build_options')
        buf = ctypes.create_string_buffer(length.value + 1)
        self._check(lib.clscan_kernel_build_options(*args, buf, length.value + 1, None,
                                                    ctypes.byref(wg), ctypes.byref(tile)),
                    'clscan_kernel_build_options')
        return buf.value.decode(), wg.value, tile.value

    def _check(self, status, call):
        if status != _native.SUCCESS:
            message = lib.clscan_context_last_error(self._ptr)
            if not message:
                message = lib.clscan_context_last_error(None)
            raise Error(status, (message or b'').decode(errors='replace'), call)

    def _dummy_buffer(self):
        # A buffer for empty arrays, which pyopencl gives no buffer.
        if self._dummy is None:
            self._dummy = cl.Buffer(self.cl_context, cl.mem_flags.READ_WRITE, 64)
        return self._dummy


_contexts = weakref.WeakKeyDictionary()
_contexts_lock = threading.Lock()


def get_context(queue):
    """The cached clscan Context of a queue's (context, device); made on first use and
    released when the pyopencl Context is collected (or by calling its release())."""
    with _contexts_lock:
        per = _contexts.setdefault(queue.context, {})
        dev = queue.device.int_ptr
        ctx = per.get(dev)
        if ctx is None or not ctx.handle:
            ctx = per[dev] = Context(queue.context, queue.device)
        return ctx


# ---- Arguments ----------------------------------------------------------------------
def _mem(ary, ctx, what, dtype=None):
    """(cl_mem, element offset, n) of a 1-D contiguous pyopencl array."""
    if not isinstance(ary, cla.Array):
        raise TypeError('clscan: %s must be a pyopencl.array.Array, not %s'
                        % (what, type(ary).__name__))
    if dtype is not None and ary.dtype != np.dtype(dtype):
        raise TypeError('clscan: %s has dtype %s, expected %s' % (what, ary.dtype,
                                                                  np.dtype(dtype)))
    if ary.size and not ary.flags.forc:
        raise ValueError('clscan: %s is not contiguous (strides %s)' % (what, ary.strides))
    if ary.base_data is None:
        return ctypes.c_void_p(ctx._dummy_buffer().int_ptr), 0, 0
    size = ary.dtype.itemsize
    if ary.offset % size:
        raise ValueError('clscan: %s starts at byte %d, not at a whole %s element'
                         % (what, ary.offset, ary.dtype))
    return ctypes.c_void_p(ary.base_data.int_ptr), ary.offset // size, ary.size


class _Call:
    """The queue, context and wait list of one call."""

    def __init__(self, queue, arrays, wait_for):
        arrays = [a for a in arrays if isinstance(a, cla.Array)]
        if queue is None:
            queue = next((a.queue for a in arrays if a.queue is not None), None)
            if queue is None:
                raise ValueError('clscan: no queue= given and the arrays have none')
        self.queue = queue
        self.ctx = get_context(queue)
        events = list(wait_for or [])
        for a in arrays:
            events.extend(a.events)
        self.n_wait = len(events)
        self.wait = (_native.cl_event * max(1, len(events)))(*[e.int_ptr for e in events])
        self.event = _native.cl_event()

    def ev(self):
        """The three trailing arguments: wait list count, wait list, event out."""
        return (self.n_wait, self.wait if self.n_wait else None, ctypes.byref(self.event))

    def run(self, fn, *args, outputs=()):
        name = fn.__name__
        self.ctx._check(fn(*args), name)
        evt = cl.Event.from_int_ptr(self.event.value, retain=False)
        for o in outputs:
            if isinstance(o, cla.Array):
                o.add_event(evt)
        return evt

    def mem(self, ary, what, dtype=None):
        return _mem(ary, self.ctx, what, dtype)

    def empty(self, shape, dtype):
        return cla.empty(self.queue, shape, dtype)


def _out(call, out, n, dtype, what='out'):
    if out is None:
        return call.empty((n,), dtype)
    if out.size != n:
        raise ValueError('clscan: %s has %d elements, expected %d' % (what, out.size, n))
    return out


def _carry(call, initial, total, dtype, keep):
    """A clscan_carry from initial (a host scalar, or a 1-element device array) and total
    (a device array that receives the total at its first element), or None."""
    if initial is None and total is None:
        return None
    c = _native.Carry()
    if isinstance(initial, cla.Array):
        c.in_buffer, c.in_offset, _ = call.mem(initial, 'initial', dtype)
    elif initial is not None:
        value = np.array(initial, dtype=dtype).reshape(1)
        keep.append(value)
        c.in_value = value.ctypes.data
    if total is not None:
        c.out_buffer, c.out_offset, m = call.mem(total, 'total', dtype)
        if m < 1:
            raise ValueError('clscan: total must hold one element')
    return ctypes.byref(c)


# ---- Scans --------------------------------------------------------------------------
def cumulative(ary, op='add', out=None, exclusive=False, initial=None, total=None,
               queue=None, wait_for=None):
    """Inclusive (or exclusive) scan of ary under a built-in operator: clscan_inclusive_scan,
    clscan_exclusive_scan, or their _carry forms where initial (the carry-in: a host value
    or a device array's first element) or total (a device array receiving the total of
    initial and every element) is given. out may be ary (in place). Returns out."""
    call = _Call(queue, [ary, initial], wait_for)
    src, so, n = call.mem(ary, 'ary')
    type_ = _type_of(ary.dtype)
    out = _out(call, out, n, ary.dtype)
    dst, do, _ = call.mem(out, 'out', ary.dtype)
    keep = []
    carry = _carry(call, initial, total, ary.dtype, keep)
    base = (call.ctx._ptr, call.queue.int_ptr, src, so, dst, do, n, type_, _op_of(op))
    if carry is None:
        fn = lib.clscan_exclusive_scan if exclusive else lib.clscan_inclusive_scan
        call.run(fn, *base, *call.ev(), outputs=(out,))
    else:
        fn = lib.clscan_exclusive_scan_carry if exclusive else lib.clscan_inclusive_scan_carry
        call.run(fn, *base, carry, *call.ev(), outputs=(out, total))
    return out


def cumsum(ary, out=None, exclusive=False, **kw):
    """Prefix sums (numpy.cumsum of a 1-D array; exclusive=True shifts by one, from 0)."""
    return cumulative(ary, 'add', out, exclusive, **kw)


def cumprod(ary, out=None, exclusive=False, **kw):
    """Prefix products (numpy.cumprod)."""
    return cumulative(ary, 'mul', out, exclusive, **kw)


def cummin(ary, out=None, exclusive=False, **kw):
    """Running minimum (numpy.minimum.accumulate; NaNs ignored as fmin does)."""
    return cumulative(ary, 'min', out, exclusive, **kw)


def cummax(ary, out=None, exclusive=False, **kw):
    """Running maximum (numpy.maximum.accumulate; NaNs ignored as fmax does)."""
    return cumulative(ary, 'max', out, exclusive, **kw)


def _desc(dtype=None, op='add', combine=None, identity=None, type_name=None, source=None,
          transform=None, input_dtype=None, input_type_name=None, segments=None,
          key_dtype=None, output=None, output_types=(), index_base=0, compensated=False,
          keep=None):
    """A clscan_scan_desc. dtype is the scan type: a library dtype, or (with type_name)
    any dtype whose itemsize is the user type's size (a numpy structured dtype, say)."""
    d = _native.ScanDesc()
    dtype = np.dtype(dtype)
    if type_name is not None:
        d.type_name = _b(type_name)
        d.type_size = dtype.itemsize
    else:
        d.type = _type_of(dtype)
    d.source = _b(source)
    if combine is not None or identity is not None:
        d.combine, d.identity = _b(combine), _b(identity)
    else:
        d.op = _op_of(op)
    d.transform = _b(transform)
    if input_type_name is not None:
        d.input_type_name = _b(input_type_name)
        d.input_type_size = np.dtype(input_dtype).itemsize if input_dtype is not None else 0
    elif input_dtype is not None and np.dtype(input_dtype) != dtype:
        d.input_type_name = _b(_CL_NAMES.get(np.dtype(input_dtype)))
        if d.input_type_name is None:
            d.input_type_size = np.dtype(input_dtype).itemsize
    if segments == 'flags':
        d.segments = _native.SEGMENTS_FLAGS
    elif segments == 'keys':
        d.segments = _native.SEGMENTS_KEYS
        d.key_type = _type_of(key_dtype, 'key dtype')
    elif segments is not None:
        raise ValueError("clscan: segments must be None, 'flags' or 'keys'")
    d.output = _b(output)
    for k, t in enumerate(output_types):
        d.output_types[k] = _b(t)
    d.index_base = index_base
    d.compensated = 1 if compensated else 0
    return d


def _segments_kind(segments, flags):
    if segments is None:
        return None, None
    if flags or segments.dtype == np.uint8:
        return 'flags', None
    return 'keys', segments.dtype


def scan(ary, out=None, exclusive=False, op='add', combine=None, identity=None, dtype=None,
         type_name=None, source=None, transform=None, input_type_name=None, segments=None,
         flags=False, initial=None, total=None, index_base=0, compensated=False,
         queue=None, wait_for=None):
    """The general scan, clscan_scan (clscan_scan_carry with initial or total): a built-in
    op, or OpenCL C ``combine`` over a and b with its ``identity``; a scan type of dtype
    (default: out's, else ary's), or a type of yours (``type_name`` defined in ``source``,
    its size dtype's itemsize); an input ``transform`` over x and i; segments given as a
    uint8 flags array (nonzero starts a segment; or flags=True) or as a keys array (a new
    key starts one); ``compensated`` float sums. Returns out."""
    call = _Call(queue, [ary, segments, initial], wait_for)
    src, so, n = call.mem(ary, 'ary')
    if dtype is None:
        dtype = out.dtype if out is not None else ary.dtype
    kind, key_dtype = _segments_kind(segments, flags)
    d = _desc(dtype, op, combine, identity, type_name, source, transform,
              ary.dtype, input_type_name, kind, key_dtype, index_base=index_base,
              compensated=compensated)
    out = _out(call, out, n, dtype)
    dst, do, _ = call.mem(out, 'out', dtype)
    seg, sego = (None, 0)
    if segments is not None:
        seg, sego, _ = call.mem(segments, 'segments')
    keep = []
    carry = _carry(call, initial, total, dtype, keep)
    args = (call.ctx._ptr, call.queue.int_ptr, ctypes.byref(d), 0 if exclusive else 1, src, so,
            seg, sego, dst, do, n)
    if carry is None:
        call.run(lib.clscan_scan, *args, *call.ev(), outputs=(out,))
    else:
        call.run(lib.clscan_scan_carry, *args, carry, *call.ev(), outputs=(out, total))
    return out


def scan_output(ary, output, outputs=(), output_types=None, out=False, exclusive=False,
                dtype=None, op='add', combine=None, identity=None, type_name=None,
                source=None, transform=None, input_type_name=None, segments=None,
                flags=False, initial=None, total=None, index_base=0, queue=None,
                wait_for=None):
    """clscan_scan_output: a scan whose OpenCL C statements ``output`` run once per
    element with its result y (and x, i, p, n, s, first, last, segments), writing to
    out0..out3, the arrays of ``outputs`` (their OpenCL C element types from their
    dtypes, or output_types). out: False (default) stores no scan result, None allocates one, or an
    array. Returns out (None when not stored); the event is on every output array."""
    call = _Call(queue, [ary, segments, initial] + list(outputs), wait_for)
    src, so, n = call.mem(ary, 'ary')
    if dtype is None:
        dtype = out.dtype if isinstance(out, cla.Array) else ary.dtype
    if output_types is None:
        output_types = []
        for k, o in enumerate(outputs):
            name = _CL_NAMES.get(o.dtype)
            if name is None:
                raise TypeError('clscan: outputs[%d] has dtype %s: give output_types' % (k, o.dtype))
            output_types.append(name)
    if len(outputs) > 4:
        raise ValueError('clscan: at most 4 outputs')
    kind, key_dtype = _segments_kind(segments, flags)
    d = _desc(dtype, op, combine, identity, type_name, source, transform, ary.dtype,
              input_type_name, kind, key_dtype, output, output_types, index_base)
    if out is False:
        dst, do, out = None, 0, None
    else:
        out = _out(call, out, n, dtype)
        dst, do, _ = call.mem(out, 'out', dtype)
    seg, sego = (None, 0)
    if segments is not None:
        seg, sego, _ = call.mem(segments, 'segments')
    mems = (_native.cl_mem * 4)()
    offs = (ctypes.c_size_t * 4)()
    for k, o in enumerate(outputs):
        m, off, _ = call.mem(o, 'outputs[%d]' % k)
        mems[k], offs[k] = m.value, off
    keep = []
    carry = _carry(call, initial, total, dtype, keep)
    call.run(lib.clscan_scan_output, call.ctx._ptr, call.queue.int_ptr, ctypes.byref(d),
             0 if exclusive else 1, src, so, seg, sego, dst, do, n, mems, offs, len(outputs),
             carry, *call.ev(), outputs=(out, total) + tuple(outputs))
    return out


def scan_parts(parts, exclusive=False, op='add', combine=None, identity=None, dtype=None,
               type_name=None, source=None, transform=None, flags=False, initial=None,
               total=None, index_base=0, wait_for=None):
    """clscan_scan_parts: one scan over parts on several devices (or queues) of one
    cl_context. parts: a list of (queue, src, dst) or (queue, src, dst, segment_flags)
    tuples, in order. Returns the list of events, one per part (each also on its dst)."""
    if not parts:
        raise ValueError('clscan: scan_parts needs at least one part')
    calls = [_Call(p[0], [p[1]] + ([p[3]] if len(p) > 3 else []), None) for p in parts]
    first = calls[0]
    events = list(wait_for or [])
    for c in calls:
        events.extend(e for e in (c.wait[:c.n_wait]) if e)
    src0 = parts[0][1]
    if dtype is None:
        dtype = parts[0][2].dtype
    segmented = any(len(p) > 3 and p[3] is not None for p in parts)
    d = _desc(dtype, op, combine, identity, type_name, source, transform, src0.dtype, None,
              'flags' if segmented or flags else None, None, index_base=index_base)
    arr = (_native.Part * len(parts))()
    for k, (p, c) in enumerate(zip(parts, calls)):
        q = arr[k]
        q.ctx, q.queue = c.ctx._ptr, c.queue.int_ptr
        q.src, q.src_offset, q.n = c.mem(p[1], 'parts[%d] src' % k)
        q.dst, q.dst_offset, m = c.mem(p[2], 'parts[%d] dst' % k, dtype)
        if m != q.n:
            raise ValueError('clscan: parts[%d] dst has %d elements, src %d' % (k, m, q.n))
        if len(p) > 3 and p[3] is not None:
            q.segments, q.segments_offset, _ = c.mem(p[3], 'parts[%d] segments' % k)
    keep = []
    carry = _carry(first, initial, total, dtype, keep)
    wait = (_native.cl_event * max(1, len(events)))(*[getattr(e, 'int_ptr', e) for e in events])
    outs = (_native.cl_event * len(parts))()
    status = lib.clscan_scan_parts(ctypes.byref(d), 0 if exclusive else 1, arr, len(parts),
                                   carry, len(events), wait if events else None, outs)
    if status != _native.SUCCESS:
        msg = b''
        for c in calls:
            msg = lib.clscan_context_last_error(c.ctx._ptr) or msg
            if msg:
                break
        msg = msg or lib.clscan_context_last_error(None) or b''
        raise Error(status, msg.decode(errors='replace'), 'clscan_scan_parts')
    result = [cl.Event.from_int_ptr(e, retain=False) for e in outs]
    for p, e in zip(parts, result):
        p[2].add_event(e)
    if total is not None:
        total.add_event(result[-1])
    return result


def scan_host(host, queue, out=None, exclusive=False, op='add', combine=None, identity=None,
              dtype=None, type_name=None, source=None, transform=None, chunk=0,
              second_queue=None, initial=None, total=None, index_base=0, wait_for=None):
    """clscan_scan_host: scans a host numpy array through the device in chunks (two queues
    overlap transfers: second_queue, default queue itself) into out (a numpy array,
    allocated if None). Blocks until out is written; returns out."""
    host = np.ascontiguousarray(host)
    if dtype is None:
        dtype = out.dtype if out is not None else host.dtype
    if out is None:
        out = np.empty(host.shape, dtype)
    if not out.flags.c_contiguous or out.size != host.size or out.dtype != np.dtype(dtype):
        raise ValueError('clscan: out must be a contiguous %s array of %d elements'
                         % (np.dtype(dtype), host.size))
    call = _Call(queue, [initial], wait_for)
    d = _desc(dtype, op, combine, identity, type_name, source, transform, host.dtype,
              index_base=index_base)
    queues = (_native.cl_queue * 2)(queue.int_ptr, (second_queue or queue).int_ptr)
    keep = []
    carry = _carry(call, initial, total, dtype, keep)
    evt = call.run(lib.clscan_scan_host, call.ctx._ptr, queues, ctypes.byref(d),
                   0 if exclusive else 1, host.ctypes.data, out.ctypes.data, host.size, chunk,
                   carry, *call.ev(), outputs=(total,))
    evt.wait()
    return out


# ---- Reductions ---------------------------------------------------------------------
def reduce(ary, op='add', out=None, combine=None, identity=None, dtype=None, type_name=None,
           source=None, transform=None, input_type_name=None, queue=None, wait_for=None):
    """Reduces ary to a 0-d device array (or into out's first element): clscan_reduce for
    a built-in op, clscan_reduce_desc with combine/identity, a user type or a transform.
    Returns out; int(out.get()) or out.get()[()] reads it."""
    call = _Call(queue, [ary], wait_for)
    src, so, n = call.mem(ary, 'ary')
    general = (combine is not None or identity is not None or type_name is not None
               or transform is not None or input_type_name is not None
               or (dtype is not None and np.dtype(dtype) != ary.dtype))
    if dtype is None:
        dtype = out.dtype if out is not None else ary.dtype
    if out is None:
        out = call.empty((), dtype)
    res, ro, m = call.mem(out, 'out', dtype)
    if m < 1:
        raise ValueError('clscan: out must hold one element')
    if general:
        d = _desc(dtype, op, combine, identity, type_name, source, transform, ary.dtype,
                  input_type_name)
        call.run(lib.clscan_reduce_desc, call.ctx._ptr, call.queue.int_ptr, ctypes.byref(d),
                 src, so, n, res, ro, *call.ev(), outputs=(out,))
    else:
        call.run(lib.clscan_reduce, call.ctx._ptr, call.queue.int_ptr, src, so, n,
                 _type_of(ary.dtype), _op_of(op), res, ro, *call.ev(), outputs=(out,))
    return out


def sum(ary, **kw):  # noqa: A001 - numpy's name
    """The sum of ary as a 0-d device array (clscan_reduce, add)."""
    return reduce(ary, 'add', **kw)


def prod(ary, **kw):
    """The product of ary as a 0-d device array."""
    return reduce(ary, 'mul', **kw)


def amin(ary, **kw):
    """The minimum of ary as a 0-d device array (NaNs ignored; +inf when empty)."""
    return reduce(ary, 'min', **kw)


def amax(ary, **kw):
    """The maximum of ary as a 0-d device array (NaNs ignored; -inf when empty)."""
    return reduce(ary, 'max', **kw)


def reduce_by_key(keys, values, op='add', flags=False, combine=None, identity=None,
                  dtype=None, type_name=None, source=None, transform=None, unique_keys=None,
                  reduced=None, queue=None, wait_for=None):
    """clscan_reduce_by_key: each run of equal keys (or, with flags=True / uint8 keys,
    each segment a nonzero flag starts) reduced to one value. Returns (unique_keys,
    reduced, count): arrays of len(values) elements of which the first count (a 0-d
    uint64 device array) are written; unique_keys is None with flags."""
    call = _Call(queue, [keys, values], wait_for)
    km, ko, n = call.mem(keys, 'keys')
    vm, vo, nv = call.mem(values, 'values')
    if nv != n:
        raise ValueError('clscan: keys has %d elements, values %d' % (n, nv))
    kind, key_dtype = _segments_kind(keys, flags)
    if dtype is None:
        dtype = reduced.dtype if reduced is not None else values.dtype
    d = _desc(dtype, op, combine, identity, type_name, source, transform, values.dtype, None,
              kind, key_dtype)
    reduced = _out(call, reduced, n, dtype, 'reduced')
    rm, ro, _ = call.mem(reduced, 'reduced', dtype)
    um, uo = None, 0
    if kind == 'keys':
        unique_keys = _out(call, unique_keys, n, keys.dtype, 'unique_keys')
        um, uo, _ = call.mem(unique_keys, 'unique_keys', keys.dtype)
    count = call.empty((), np.uint64)
    cm, _, _ = call.mem(count, 'count')
    call.run(lib.clscan_reduce_by_key, call.ctx._ptr, call.queue.int_ptr, ctypes.byref(d),
             km, ko, vm, vo, n, um, uo, rm, ro, cm, *call.ev(),
             outputs=(unique_keys, reduced, count))
    return unique_keys, reduced, count


def run_length_encode(ary, length_dtype=np.uint32, queue=None, wait_for=None):
    """clscan_run_length_encode: (unique, lengths, count) of the runs of equal elements;
    the first count (0-d uint64 device array) elements of unique and lengths are set."""
    call = _Call(queue, [ary], wait_for)
    src, so, n = call.mem(ary, 'ary')
    unique_ = call.empty((n,), ary.dtype)
    lengths = call.empty((n,), length_dtype)
    count = call.empty((), np.uint64)
    um, uo, _ = call.mem(unique_, 'unique')
    lm, lo, _ = call.mem(lengths, 'lengths')
    cm, _, _ = call.mem(count, 'count')
    call.run(lib.clscan_run_length_encode, call.ctx._ptr, call.queue.int_ptr, src, so, n,
             _type_of(ary.dtype), um, uo, lm, lo, _type_of(length_dtype, 'length dtype'), cm,
             *call.ev(), outputs=(unique_, lengths, count))
    return unique_, lengths, count


def run_length_encode_nontrivial(ary, length_dtype=np.uint32, queue=None, wait_for=None):
    """clscan_run_length_encode_nontrivial: (offsets, lengths, count) of the runs of two
    or more equal elements (first index and length of each)."""
    call = _Call(queue, [ary], wait_for)
    src, so, n = call.mem(ary, 'ary')
    offsets = call.empty((max(1, n // 2),), length_dtype)
    lengths = call.empty((max(1, n // 2),), length_dtype)
    count = call.empty((), np.uint64)
    om, oo, _ = call.mem(offsets, 'offsets')
    lm, lo, _ = call.mem(lengths, 'lengths')
    cm, _, _ = call.mem(count, 'count')
    call.run(lib.clscan_run_length_encode_nontrivial, call.ctx._ptr, call.queue.int_ptr, src,
             so, n, _type_of(ary.dtype), om, oo, lm, lo, _type_of(length_dtype, 'length dtype'),
             cm, *call.ev(), outputs=(offsets, lengths, count))
    return offsets, lengths, count


def histogram(ary, bins, range=None, dtype=np.uint32, out=None, queue=None,  # noqa: A002
              wait_for=None):
    """Counts of ary's elements per bin (numpy.histogram's first result). bins an int
    with range=(lower, upper): even bins over [lower, upper) (clscan_histogram_even);
    bins a device array of num_bins + 1 ascending edges of ary's dtype, each bin
    [edge_b, edge_b+1) (clscan_histogram_range). Elements outside, and NaNs, are not
    counted (numpy closes the last bin; this does not). Returns the counts array."""
    call = _Call(queue, [ary, bins], wait_for)
    src, so, n = call.mem(ary, 'ary')
    stype = _type_of(ary.dtype)
    if isinstance(bins, cla.Array):
        nbins = bins.size - 1
        out = _out(call, out, nbins, dtype, 'out')
        om, oo, _ = call.mem(out, 'out', dtype)
        lm, lo, _ = call.mem(bins, 'bins', ary.dtype)
        call.run(lib.clscan_histogram_range, call.ctx._ptr, call.queue.int_ptr, src, so, n,
                 stype, nbins, lm, lo, om, oo, _type_of(dtype, 'count dtype'), *call.ev(),
                 outputs=(out,))
        return out
    if range is None:
        raise ValueError('clscan: histogram with a number of bins needs range=(lower, upper)')
    nbins = int(bins)
    lower = np.array(range[0], dtype=ary.dtype)
    upper = np.array(range[1], dtype=ary.dtype)
    out = _out(call, out, nbins, dtype, 'out')
    om, oo, _ = call.mem(out, 'out', dtype)
    call.run(lib.clscan_histogram_even, call.ctx._ptr, call.queue.int_ptr, src, so, n, stype,
             nbins, lower.ctypes.data, upper.ctypes.data, om, oo,
             _type_of(dtype, 'count dtype'), *call.ev(), outputs=(out,))
    return out


# ---- Compaction ---------------------------------------------------------------------
def _compaction(fn, ary, out, queue, wait_for, extra_arrays, *mid, predicate=None):
    call = _Call(queue, [ary] + extra_arrays, wait_for)
    src, so, n = call.mem(ary, 'ary')
    out = _out(call, out, n, ary.dtype)
    dst, do, _ = call.mem(out, 'out', ary.dtype)
    count = call.empty((), np.uint64)
    cm, _, _ = call.mem(count, 'count')
    pre = tuple(m(call) for m in mid)
    args = (call.ctx._ptr, call.queue.int_ptr, src, so) + (pre[0] if pre else ()) + \
        (dst, do, cm, n, _type_of(ary.dtype))
    if predicate is not None:
        args += (_b(predicate),)
    call.run(fn, *args, *call.ev(), outputs=(out, count))
    return out, count


def select_flagged(ary, flags, out=None, queue=None, wait_for=None):
    """clscan_select_flagged: the elements whose uint8 flag is nonzero, in order.
    Returns (out, count): out[:count] is set (count a 0-d uint64 device array)."""
    def flag_args(call):
        fm, fo, nf = call.mem(flags, 'flags', np.uint8)
        if nf < ary.size:
            raise ValueError('clscan: flags has %d elements, ary %d' % (nf, ary.size))
        return (fm, fo)
    return _compaction(lib.clscan_select_flagged, ary, out, queue, wait_for, [flags],
                       flag_args)


def select_if(ary, predicate, out=None, queue=None, wait_for=None):
    """clscan_select_if: the elements where the OpenCL C predicate over x (the element)
    and i (its index) is true, in order. Returns (out, count)."""
    return _compaction(lib.clscan_select_if, ary, out, queue, wait_for, [],
                       predicate=predicate)


def partition_if(ary, predicate, out=None, queue=None, wait_for=None):
    """clscan_partition_if: the elements where predicate holds first, in order, then the
    others in reverse order. Returns (out, count) with count the number kept."""
    return _compaction(lib.clscan_partition_if, ary, out, queue, wait_for, [],
                       predicate=predicate)


def unique(ary, out=None, queue=None, wait_for=None):
    """clscan_unique: each run of equal elements shrunk to its first (numpy.unique of
    sorted input). Returns (out, count)."""
    return _compaction(lib.clscan_unique, ary, out, queue, wait_for, [])


def compact(ary, predicate, out=None, type_name=None, source=None, partition=False,
            stable=False, queue=None, wait_for=None):
    """clscan_compact: select (or with partition=True, partition; stable=True keeps the
    rejected in order) elements of any OpenCL C type: type_name (default: ary's dtype's
    OpenCL C name), defined in source, of ary's itemsize. Returns (out, count)."""
    call = _Call(queue, [ary], wait_for)
    src, so, n = call.mem(ary, 'ary')
    if type_name is None:
        type_name = _CL_NAMES.get(ary.dtype)
        if type_name is None:
            raise TypeError('clscan: compact of dtype %s needs type_name' % ary.dtype)
    d = _native.CompactDesc(_b(type_name), ary.dtype.itemsize, _b(source), _b(predicate),
                            1 if partition else 0, 1 if stable else 0)
    out = _out(call, out, n, ary.dtype)
    dst, do, _ = call.mem(out, 'out', ary.dtype)
    count = call.empty((), np.uint64)
    cm, _, _ = call.mem(count, 'count')
    call.run(lib.clscan_compact, call.ctx._ptr, call.queue.int_ptr, ctypes.byref(d), src, so,
             dst, do, cm, n, *call.ev(), outputs=(out, count))
    return out, count


# ---- Sorting ------------------------------------------------------------------------
def sort(ary, out=None, queue=None, wait_for=None):
    """clscan_sort_keys: ary sorted ascending (stable radix sort; floats by their bits:
    -0.0 before +0.0, NaNs at the ends by sign). out may be ary. Returns out."""
    call = _Call(queue, [ary], wait_for)
    src, so, n = call.mem(ary, 'ary')
    out = _out(call, out, n, ary.dtype)
    dst, do, _ = call.mem(out, 'out', ary.dtype)
    call.run(lib.clscan_sort_keys, call.ctx._ptr, call.queue.int_ptr, src, so, dst, do, n,
             _type_of(ary.dtype), *call.ev(), outputs=(out,))
    return out


def sort_pairs(keys, values, keys_out=None, values_out=None, queue=None, wait_for=None):
    """clscan_sort_pairs: keys sorted ascending, stably, each value moved with its key.
    Returns (keys_out, values_out)."""
    call = _Call(queue, [keys, values], wait_for)
    km, ko, n = call.mem(keys, 'keys')
    vm, vo, nv = call.mem(values, 'values')
    if nv != n:
        raise ValueError('clscan: keys has %d elements, values %d' % (n, nv))
    keys_out = _out(call, keys_out, n, keys.dtype, 'keys_out')
    values_out = _out(call, values_out, n, values.dtype, 'values_out')
    kom, koo, _ = call.mem(keys_out, 'keys_out', keys.dtype)
    vom, voo, _ = call.mem(values_out, 'values_out', values.dtype)
    call.run(lib.clscan_sort_pairs, call.ctx._ptr, call.queue.int_ptr, km, ko, vm, vo, kom, koo,
             vom, voo, n, _type_of(keys.dtype), _type_of(values.dtype, 'values dtype'),
             *call.ev(), outputs=(keys_out, values_out))
    return keys_out, values_out


def argsort(ary, dtype=np.int64, queue=None, wait_for=None):
    """The indices that sort ary stably (numpy.argsort(kind='stable')), of dtype int64 (or
    int32/uint32/uint64), by sort_pairs of ary with 0, 1, 2, ... Returns the indices."""
    q = queue or ary.queue
    index = cla.arange(q, ary.size, dtype=dtype)
    return sort_pairs(ary, index, queue=q, wait_for=wait_for)[1]
