# _native.py - the ctypes layer of the clscan package: finds and loads libclscan, mirrors
# the public structs of include/clscan.h field for field, and declares every public call.
# SPDX-License-Identifier: MIT
import ctypes
import ctypes.util
import os

c_size_t = ctypes.c_size_t
c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_ulong64 = ctypes.c_uint64      # cl_ulong
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
cl_mem = ctypes.c_void_p
cl_event = ctypes.c_void_p
cl_queue = ctypes.c_void_p
ctx_p = ctypes.c_void_p         # clscan_context *

# Status codes and constants of clscan.h.
SUCCESS = 0
ERROR_INVALID_ARGUMENT = -7001
ERROR_UNSUPPORTED = -7002
ERROR_BUILD_FAILED = -7003
ERROR_OUT_OF_RESOURCES = -7004
ERROR_INVALID_ENVIRONMENT = -7005
OPTION_ZERO = (1 << 64) - 1
OPTIONS_IGNORE_ENVIRONMENT = 1

INT32, UINT32, INT64, UINT64, FLOAT, DOUBLE = range(6)
OP_ADD, OP_MUL, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR = range(7)
SEGMENTS_NONE, SEGMENTS_FLAGS, SEGMENTS_KEYS = range(3)


class ScanDesc(ctypes.Structure):
    """clscan_scan_desc."""
    _fields_ = [
        ('type', c_int),
        ('type_name', c_char_p),
        ('type_size', c_size_t),
        ('source', c_char_p),
        ('op', c_int),
        ('combine', c_char_p),
        ('identity', c_char_p),
        ('transform', c_char_p),
        ('input_type_name', c_char_p),
        ('input_type_size', c_size_t),
        ('segments', c_int),
        ('key_type', c_int),
        ('output', c_char_p),
        ('output_types', c_char_p * 4),
        ('index_base', c_size_t),
        ('compensated', c_int),
    ]


class Carry(ctypes.Structure):
    """clscan_carry."""
    _fields_ = [
        ('in_value', c_void_p),
        ('in_buffer', cl_mem),
        ('in_offset', c_size_t),
        ('out_buffer', cl_mem),
        ('out_offset', c_size_t),
    ]


class Part(ctypes.Structure):
    """clscan_part."""
    _fields_ = [
        ('ctx', ctx_p),
        ('queue', cl_queue),
        ('src', cl_mem),
        ('src_offset', c_size_t),
        ('segments', cl_mem),
        ('segments_offset', c_size_t),
        ('dst', cl_mem),
        ('dst_offset', c_size_t),
        ('n', c_size_t),
    ]


class CompactDesc(ctypes.Structure):
    """clscan_compact_desc."""
    _fields_ = [
        ('type_name', c_char_p),
        ('type_size', c_size_t),
        ('source', c_char_p),
        ('predicate', c_char_p),
        ('partition', c_int),
        ('stable', c_int),
    ]


class ContextOptions(ctypes.Structure):
    """clscan_context_options (cl_device_type is a cl_ulong bitfield, cl_device_local_mem_type
    a cl_uint, the clscan_* enums ints)."""
    _fields_ = [
        ('struct_size', c_size_t),
        ('flags', c_uint),
        ('vendor', c_char_p),
        ('device_type', c_ulong64),
        ('opencl_version', c_char_p),
        ('opencl_c_version', c_char_p),
        ('extensions', c_char_p),
        ('local_mem_size', c_ulong64),
        ('local_mem_type', c_uint),
        ('max_work_group_size', c_ulong64),
        ('max_mem_alloc_size', c_ulong64),
        ('compute_units', c_ulong64),
        ('wg_multiple', c_ulong64),
        ('subgroup_width', c_ulong64),
        ('fp64', c_int),
        ('int64_atomics', c_int),
        ('max_loop_iterations', c_ulong64),
        ('bank_probe', c_int),
        ('local_mem_banks', c_ulong64),
        ('bank_width', c_ulong64),
        ('work_group_size', c_ulong64),
        ('items_per_thread', c_ulong64),
        ('groups_per_cu', c_ulong64),
        ('max_groups', c_ulong64),
        ('single_group_tiles', c_ulong64),
        ('sp_work_group_size', c_ulong64),
        ('sp_items_per_thread', c_ulong64),
        ('padding', c_int),
        ('subgroups', c_int),
        ('wg_scan', c_int),
        ('algorithm', c_int),
        ('lookback_atomics', c_int),
        ('lookback_spins', c_ulong64),
        ('lookback_test', c_int),
        ('disk_cache', c_int),
        ('cache_dir', c_char_p),
        ('kernel_include_dir', c_char_p),
        ('sort_algorithm', c_int),
        ('max_text_bytes', c_ulong64),
        ('max_programs', c_ulong64),
        ('max_program_bytes', c_ulong64),
        ('sort_max_registers', c_ulong64),
        ('global_mem_cache_size', c_ulong64),
    ]


# The C names of the mirrored structs, for the layout test.
STRUCTS = {'clscan_scan_desc': ScanDesc, 'clscan_carry': Carry, 'clscan_part': Part,
           'clscan_compact_desc': CompactDesc, 'clscan_context_options': ContextOptions}

_P = ctypes.POINTER
_EV = (c_uint, _P(cl_event), _P(cl_event))   # wait list count, wait list, event out

# name: (restype, argtypes) for every CLSCAN_API call of clscan.h.
_PROTOTYPES = {
    'clscan_version': (c_uint, ()),
    'clscan_status_string': (c_char_p, (c_int,)),
    'clscan_type_size': (c_size_t, (c_int,)),
    'clscan_type_name': (c_char_p, (c_int,)),
    'clscan_op_name': (c_char_p, (c_int,)),
    'clscan_context_create': (c_int, (c_void_p, c_void_p, _P(ctx_p))),
    'clscan_context_create_with_options': (c_int, (c_void_p, c_void_p, _P(ContextOptions),
                                                   _P(ctx_p))),
    'clscan_context_release': (None, (ctx_p,)),
    'clscan_context_last_error': (c_char_p, (ctx_p,)),
    'clscan_context_describe': (c_size_t, (ctx_p, c_char_p, c_size_t)),
    'clscan_context_warm': (c_int, (ctx_p,)),
    'clscan_kernel_build_options': (c_int, (ctx_p, c_int, c_int, c_size_t, c_char_p, c_size_t,
                                            _P(c_size_t), _P(c_size_t), _P(c_size_t))),
    'clscan_exclusive_scan': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem, c_size_t,
                                      c_size_t, c_int, c_int) + _EV),
    'clscan_inclusive_scan': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem, c_size_t,
                                      c_size_t, c_int, c_int) + _EV),
    'clscan_exclusive_scan_carry': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem,
                                            c_size_t, c_size_t, c_int, c_int, _P(Carry)) + _EV),
    'clscan_inclusive_scan_carry': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem,
                                            c_size_t, c_size_t, c_int, c_int, _P(Carry)) + _EV),
    'clscan_scan': (c_int, (ctx_p, cl_queue, _P(ScanDesc), c_int, cl_mem, c_size_t, cl_mem,
                            c_size_t, cl_mem, c_size_t, c_size_t) + _EV),
    'clscan_scan_carry': (c_int, (ctx_p, cl_queue, _P(ScanDesc), c_int, cl_mem, c_size_t,
                                  cl_mem, c_size_t, cl_mem, c_size_t, c_size_t,
                                  _P(Carry)) + _EV),
    'clscan_scan_output': (c_int, (ctx_p, cl_queue, _P(ScanDesc), c_int, cl_mem, c_size_t,
                                   cl_mem, c_size_t, cl_mem, c_size_t, c_size_t, _P(cl_mem),
                                   _P(c_size_t), c_uint, _P(Carry)) + _EV),
    'clscan_scan_parts': (c_int, (_P(ScanDesc), c_int, _P(Part), c_size_t, _P(Carry),
                                  c_uint, _P(cl_event), _P(cl_event))),
    'clscan_scan_host': (c_int, (ctx_p, _P(cl_queue), _P(ScanDesc), c_int, c_void_p, c_void_p,
                                 c_size_t, c_size_t, _P(Carry)) + _EV),
    'clscan_reduce': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, c_size_t, c_int, c_int,
                              cl_mem, c_size_t) + _EV),
    'clscan_reduce_desc': (c_int, (ctx_p, cl_queue, _P(ScanDesc), cl_mem, c_size_t, c_size_t,
                                   cl_mem, c_size_t) + _EV),
    'clscan_reduce_by_key': (c_int, (ctx_p, cl_queue, _P(ScanDesc), cl_mem, c_size_t, cl_mem,
                                     c_size_t, c_size_t, cl_mem, c_size_t, cl_mem, c_size_t,
                                     cl_mem) + _EV),
    'clscan_run_length_encode': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, c_size_t, c_int,
                                         cl_mem, c_size_t, cl_mem, c_size_t, c_int,
                                         cl_mem) + _EV),
    'clscan_run_length_encode_nontrivial': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t,
                                                    c_size_t, c_int, cl_mem, c_size_t, cl_mem,
                                                    c_size_t, c_int, cl_mem) + _EV),
    'clscan_histogram_even': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, c_size_t, c_int,
                                      c_size_t, c_void_p, c_void_p, cl_mem, c_size_t,
                                      c_int) + _EV),
    'clscan_histogram_range': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, c_size_t, c_int,
                                       c_size_t, cl_mem, c_size_t, cl_mem, c_size_t,
                                       c_int) + _EV),
    'clscan_select_flagged': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem, c_size_t,
                                      cl_mem, c_size_t, cl_mem, c_size_t, c_int) + _EV),
    'clscan_select_if': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem, c_size_t, cl_mem,
                                 c_size_t, c_int, c_char_p) + _EV),
    'clscan_partition_if': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem, c_size_t,
                                    cl_mem, c_size_t, c_int, c_char_p) + _EV),
    'clscan_unique': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem, c_size_t, cl_mem,
                              c_size_t, c_int) + _EV),
    'clscan_compact': (c_int, (ctx_p, cl_queue, _P(CompactDesc), cl_mem, c_size_t, cl_mem,
                               c_size_t, cl_mem, c_size_t) + _EV),
    'clscan_sort_keys': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem, c_size_t, c_size_t,
                                 c_int) + _EV),
    'clscan_sort_pairs': (c_int, (ctx_p, cl_queue, cl_mem, c_size_t, cl_mem, c_size_t, cl_mem,
                                  c_size_t, cl_mem, c_size_t, c_size_t, c_int, c_int) + _EV),
}


def _candidates():
    env = os.environ.get('CLSCAN_LIBRARY')
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, name) for name in ('libclscan.so', 'libclscan.dylib',
                                                   'clscan.dll', 'libclscan.so.0')]
    out = [p for p in out if os.path.exists(p)]
    found = ctypes.util.find_library('clscan')
    if found:
        out.append(found)
    return out


def load():
    """Loads libclscan: $CLSCAN_LIBRARY if set, else the copy installed beside this
    package, else what ctypes.util.find_library('clscan') finds. Declares every call."""
    paths = _candidates()
    if not paths:
        raise ImportError('clscan: libclscan not found (set CLSCAN_LIBRARY to the path of '
                          'libclscan.so, or install the package with pip)')
    errors = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append('%s: %s' % (path, e))
    else:
        raise ImportError('clscan: cannot load libclscan: ' + '; '.join(errors))
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = list(argtypes)
    lib.path = path
    return lib


lib = load()
