"""The AMDGPU launch ABI for gfx7: initial SGPR/VGPR state, kernarg segment, AQL packet.

References: LLVM AMDGPUUsage, "Initial Kernel Execution State" (SGPR/VGPR order), "Kernel
Argument Metadata" (value kinds), "Code Object V5 Metadata" (hidden argument layout);
HSA Platform System Architecture spec (hsa_kernel_dispatch_packet_t).
"""
from __future__ import annotations

import operator
import struct
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ..errors import DispatchError, LoaderError
from .codeobject import KernelInfo

# --- initial wave state -----------------------------------------------------------------------

# User SGPRs in ABI order: (name, size in SGPRs, KernelInfo enable field).
USER_SGPRS = (
    ("private_segment_buffer", 4, "enable_sgpr_private_segment_buffer"),
    ("dispatch_ptr", 2, "enable_sgpr_dispatch_ptr"),
    ("queue_ptr", 2, "enable_sgpr_queue_ptr"),
    ("kernarg_segment_ptr", 2, "enable_sgpr_kernarg_segment_ptr"),
    ("dispatch_id", 2, "enable_sgpr_dispatch_id"),
    ("flat_scratch_init", 2, "enable_sgpr_flat_scratch_init"),
    ("private_segment_size", 1, "enable_sgpr_private_segment_size"),
    # Code object v2 only (amd_kernel_code_t); never enabled in a v3+ descriptor.
    ("grid_workgroup_count_x", 1, "enable_sgpr_grid_workgroup_count_x"),
    ("grid_workgroup_count_y", 1, "enable_sgpr_grid_workgroup_count_y"),
    ("grid_workgroup_count_z", 1, "enable_sgpr_grid_workgroup_count_z"),
)

# System SGPRs, written by the SPI after the user SGPRs, in this order.
SYSTEM_SGPRS = (
    ("workgroup_id_x", 1, "enable_sgpr_workgroup_id_x"),
    ("workgroup_id_y", 1, "enable_sgpr_workgroup_id_y"),
    ("workgroup_id_z", 1, "enable_sgpr_workgroup_id_z"),
    ("workgroup_info", 1, "enable_sgpr_workgroup_info"),
    ("private_segment_wave_offset", 1, "enable_private_segment"),
)


def initial_sgpr_layout(k: KernelInfo) -> list[tuple[str, int, int]]:
    """(what, first SGPR, count) for every SGPR the hardware initialises, in ABI order.

    User SGPRs start at s0; system SGPRs start at s[user_sgpr_count]. Raises LoaderError when
    the enabled user SGPRs do not add up to the descriptor's user_sgpr_count (COMPUTE_PGM_RSRC2
    USER_SGPR), because then the kernel's code and the launch state would disagree.
    """
    layout = []
    n = 0
    for name, size, flag in USER_SGPRS:
        if getattr(k, flag, 0):
            layout.append((name, n, size))
            n += size
    if n != k.user_sgpr_count:
        raise LoaderError(
            f"kernel {k.name}: enabled user SGPRs take {n} registers "
            f"({', '.join(x[0] for x in layout) or 'none'}) but rsrc2.user_sgpr_count is {k.user_sgpr_count}")
    for name, size, flag in SYSTEM_SGPRS:
        if getattr(k, flag, 0):
            layout.append((name, n, size))
            n += size
    return layout


def initial_vgpr_layout(k: KernelInfo) -> list[tuple[str, int, int]]:
    """(what, VGPR, count): v0 = work-item id x, v1 = y, v2 = z per enable_vgpr_workitem_id."""
    names = ("workitem_id_x", "workitem_id_y", "workitem_id_z")
    if not 0 <= k.enable_vgpr_workitem_id <= 2:
        raise LoaderError(f"kernel {k.name}: enable_vgpr_workitem_id is {k.enable_vgpr_workitem_id}, must be 0..2")
    return [(names[i], i, 1) for i in range(k.enable_vgpr_workitem_id + 1)]


def workgroup_info_value(waves_in_group: int, first_wave: bool = False, ordered_append_term: int = 0) -> int:
    """The workgroup_info system SGPR (AMDGPUUsage: {first_wave, 14'b0,
    ordered_append_term[10:0], threadgroup_size_in_waves[5:0]})."""
    if not 1 <= waves_in_group <= 63:
        raise DispatchError(f"a work-group holds 1..63 waves, got {waves_in_group}")
    return (int(bool(first_wave)) << 31) | ((ordered_append_term & 0x7FF) << 6) | waves_in_group


# --- kernarg segment ----------------------------------------------------------------------------

# Hidden argument kinds known to AMDGPUUsage (v2-v5). Values default to 0.
HIDDEN_KINDS = frozenset({
    "hidden_global_offset_x", "hidden_global_offset_y", "hidden_global_offset_z",
    "hidden_none", "hidden_printf_buffer", "hidden_hostcall_buffer", "hidden_default_queue",
    "hidden_completion_action", "hidden_multigrid_sync_arg", "hidden_heap_v1",
    "hidden_block_count_x", "hidden_block_count_y", "hidden_block_count_z",
    "hidden_group_size_x", "hidden_group_size_y", "hidden_group_size_z",
    "hidden_remainder_x", "hidden_remainder_y", "hidden_remainder_z",
    "hidden_grid_dims", "hidden_private_base", "hidden_shared_base", "hidden_queue_ptr",
    "hidden_dynamic_lds_size",
})

_FLOAT_TYPES = {"float": "<f", "double": "<d", "half": "<e"}
#: OpenCL scalar integer types (metadata .type_name) by signedness
_UNSIGNED_TYPES = {"uchar", "ushort", "uint", "ulong", "unsigned char", "unsigned short",
                   "unsigned int", "unsigned long", "size_t", "uintptr_t"}
_SIGNED_TYPES = {"char", "short", "int", "long", "signed char", "ptrdiff_t", "intptr_t"}


def default_hidden_args(grid: Sequence[int], block: Sequence[int]) -> dict[str, int]:
    """Hidden argument values for a launch of ``grid`` work-items in ``block``-sized groups
    (global offsets 0, v5 block counts, group sizes, remainders and grid dims)."""
    g = tuple(grid) + (1,) * (3 - len(grid))
    b = tuple(block) + (1,) * (3 - len(block))
    out = {"hidden_grid_dims": len(tuple(grid))}
    for i, ax in enumerate("xyz"):
        out[f"hidden_global_offset_{ax}"] = 0
        out[f"hidden_block_count_{ax}"] = g[i] // b[i]
        out[f"hidden_group_size_{ax}"] = b[i]
        out[f"hidden_remainder_{ax}"] = g[i] % b[i]
    return out


class _BadValue(Exception):
    """What is wrong with an argument value; the caller names the argument (the name is
    formatted only for an error, not for every argument of every dispatch)."""


def _int_bytes(value: int, size: int) -> bytes:
    lo, hi = -(1 << (8 * size - 1)), (1 << (8 * size)) - 1
    if not lo <= value <= hi:
        raise _BadValue(f"value {value} does not fit in {size} bytes")
    return (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def _encode_arg(k: KernelInfo, idx: int, arg, value: Any) -> bytes:
    try:
        return _encode_value(arg, value)
    except _BadValue as e:
        raise DispatchError(f"kernel {k.name} argument {idx} ({arg.name or '?'}: "
                            f"{arg.type_name or arg.value_kind}): {e}") from None


def _encode_value(arg, value: Any) -> bytes:
    size = arg.size
    kind = arg.value_kind
    if isinstance(value, (bytes, bytearray, memoryview)):
        if kind != "by_value":
            raise _BadValue(f"expected an address ({kind}), got raw bytes")
        if len(value) != size:
            raise _BadValue(f"expected {size} bytes, got {len(value)}")
        return bytes(value)
    if isinstance(value, np.ndarray):
        if kind != "by_value" or value.nbytes != size:
            raise _BadValue(f"expected {kind} of {size} bytes, got ndarray of {value.nbytes} bytes")
        return value.tobytes()
    if kind == "by_value":
        base = (arg.type_name or "").strip().rstrip("*").strip()
        if isinstance(value, np.generic):
            if value.dtype.itemsize != size:
                raise _BadValue(f"expected {size} bytes, got {value.dtype} ({value.dtype.itemsize} bytes)")
            if base in _FLOAT_TYPES and value.dtype.kind != "f":
                raise _BadValue(f"expected a {base}, got {value.dtype} (its bits would be taken "
                                f"as a {base}): pass np.{np.dtype(_FLOAT_TYPES[base]).name}(...)")
            if (base in _UNSIGNED_TYPES or base in _SIGNED_TYPES) and value.dtype.kind == "f":
                raise _BadValue(f"expected an integer ({base}), got {value.dtype}")
            if base in _UNSIGNED_TYPES and value.dtype.kind == "i" and value < 0:
                raise _BadValue(f"negative value {value} for the unsigned {base}")
            return value.tobytes()
        if base in _FLOAT_TYPES and struct.calcsize(_FLOAT_TYPES[base]) == size:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise _BadValue(f"expected a number, got {type(value).__name__}")
            return struct.pack(_FLOAT_TYPES[base], value)
        if isinstance(value, float):
            raise _BadValue(f"expected an integer for {size}-byte {base or 'by_value'}, got float {value!r}")
        try:
            v = operator.index(value)
        except TypeError:
            raise _BadValue(f"expected an integer, got {type(value).__name__}") from None
        if base in _UNSIGNED_TYPES and v < 0:
            raise _BadValue(f"negative value {v} for the unsigned {base}")
        return _int_bytes(v, size)
    # Pointers, dynamic LDS offsets, images, samplers, queues, pipes: an unsigned integer.
    if isinstance(value, (float, bool)):
        raise _BadValue(f"expected an address/offset ({kind}), got {type(value).__name__}")
    addr = getattr(value, "address", value)
    try:
        addr = operator.index(addr)
    except TypeError:
        raise _BadValue(f"expected an address/offset ({kind}), got {type(value).__name__}") from None
    if addr < 0 or addr >= 1 << (8 * size):
        raise _BadValue(f"address/offset 0x{addr:x} does not fit in {size} unsigned bytes")
    return addr.to_bytes(size, "little")


def build_kernarg_segment(k: KernelInfo, args: Sequence[Any], hidden: Optional[Mapping[str, int]] = None) -> bytes:
    """Lay out a kernarg segment for ``k`` from metadata offsets and sizes.

    ``args`` are the explicit arguments in order: addresses (ints, numpy integers, or objects
    with an ``address`` attribute) for global_buffer/image/sampler/queue/pipe arguments, the LDS
    byte offset for dynamic_shared_pointer arguments (the dispatcher places dynamic LDS after
    group_segment_fixed_size), and ints/floats/numpy scalars/bytes for by_value arguments.
    ``hidden`` maps hidden value kinds (e.g. from :func:`default_hidden_args`) to values; hidden
    arguments not in it are 0 (hidden_none always is). Raises DispatchError for a wrong count,
    type or range, naming the argument.
    """
    return KernargLayout(k, hidden).build(args)


class KernargLayout:
    """The part of :func:`build_kernarg_segment`'s work that does not depend on the explicit
    argument values (hidden arguments placed, metadata checked), done once so that repeated
    dispatches of a kernel only encode their explicit arguments."""

    def __init__(self, k: KernelInfo, hidden: Optional[Mapping[str, int]] = None):
        self.kernel = k
        if not k.has_metadata:
            self.explicit = None
            self.template = bytes(k.kernarg_segment_size or k.kernarg_size)
            return
        hidden = dict(hidden or {})
        unknown = [h for h in hidden if h not in HIDDEN_KINDS]
        if unknown:
            raise DispatchError(f"unknown hidden argument kinds {unknown}; known: {sorted(HIDDEN_KINDS)}")
        self.explicit = k.explicit_args
        size = max([k.kernarg_segment_size or 0] + [a.offset + a.size for a in k.args])
        seg = bytearray(size)
        for a in k.args:
            if a.is_hidden:
                v = 0 if a.value_kind == "hidden_none" else hidden.get(a.value_kind, 0)
                try:
                    seg[a.offset:a.offset + a.size] = _int_bytes(operator.index(v), a.size)
                except _BadValue as e:
                    raise DispatchError(f"kernel {k.name} {a.value_kind}: {e}") from None
        self.template = bytes(seg)

    def use_libclc_implicit_args(self, ndim: int, offset: Sequence[int]) -> None:
        """Lay the implicit arguments out as libclc-14 reads them (Mesa clover's layout): at
        the first hidden argument, dword 0 = work_dim (get_work_dim), dwords 1-3 = the global
        offsets x, y, z (get_global_offset, added by get_global_id). The code object's
        metadata describes ROCm's layout (hidden_global_offset_x, 8 bytes, first), which
        libclc's built-ins do not read; these 16 bytes replace the values placed there. A
        kernel without hidden arguments in its metadata (none read) is left as it is."""
        k = self.kernel
        hidden = [a.offset for a in getattr(k, "args", ()) if a.is_hidden]
        if self.explicit is None or not hidden:
            return
        base = min(hidden)
        seg = bytearray(self.template)
        if len(seg) < base + 16:
            seg.extend(bytes(base + 16 - len(seg)))
        words = [int(ndim)] + [int(o) for o in offset]
        for i, w in enumerate(words):
            if not 0 <= w <= 0xFFFFFFFF:
                raise DispatchError(f"kernel {k.name}: global offset {w} does not fit in the 32 "
                                    f"bits libclc reads")
            seg[base + 4 * i:base + 4 * i + 4] = w.to_bytes(4, "little")
        self.template = bytes(seg)

    def build(self, args: Sequence[Any]) -> bytes:
        """The kernarg segment with the explicit arguments ``args`` (see build_kernarg_segment)."""
        k, explicit = self.kernel, self.explicit
        if explicit is None:
            if args:
                raise DispatchError(f"kernel {k.name} has no argument metadata; cannot place {len(args)} arguments")
            return self.template
        if len(args) != len(explicit):
            sig = ", ".join(f"{a.type_name or a.value_kind} {a.name or ''}".strip() for a in explicit)
            raise DispatchError(f"kernel {k.name}({sig}) takes {len(explicit)} arguments, got {len(args)}")
        seg = bytearray(self.template)
        for idx, (a, value) in enumerate(zip(explicit, args)):
            seg[a.offset:a.offset + a.size] = _encode_arg(k, idx, a, value)
        return bytes(seg)


# --- AQL packet ---------------------------------------------------------------------------------

HSA_PACKET_TYPE_KERNEL_DISPATCH = 2
HSA_FENCE_SCOPE_SYSTEM = 2
# type KERNEL_DISPATCH, acquire and release fences at system scope (what ROCr/HIP use).
DEFAULT_DISPATCH_HEADER = (HSA_PACKET_TYPE_KERNEL_DISPATCH | HSA_FENCE_SCOPE_SYSTEM << 9
                           | HSA_FENCE_SCOPE_SYSTEM << 11)
AQL_PACKET_FORMAT = "<HHHHHHIIIIIQQQQ"  # hsa_kernel_dispatch_packet_t, 64 bytes


def build_aql_dispatch_packet(grid: Sequence[int], block: Sequence[int], kernarg_address: int,
                              kernel_object_address: int, private_segment_size: int,
                              group_segment_size: int, *, header: int = DEFAULT_DISPATCH_HEADER,
                              completion_signal: int = 0) -> bytes:
    """Encode a 64-byte hsa_kernel_dispatch_packet_t (little-endian).

    ``grid`` is the global size in work-items per dimension (HSA convention, like OpenCL's
    global_work_size), ``block`` the work-group size; both have 1-3 entries and the number of
    entries of ``grid`` is written to setup.dimensions.
    """
    grid = tuple(int(x) for x in grid)
    block = tuple(int(x) for x in block)
    if not 1 <= len(grid) <= 3 or len(block) > 3 or len(block) < 1:
        raise DispatchError(f"grid and block need 1-3 dimensions, got grid {grid} and block {block}")
    g = grid + (1,) * (3 - len(grid))
    b = block + (1,) * (3 - len(block))
    for i in range(3):
        if not 1 <= g[i] <= 0xFFFFFFFF:
            raise DispatchError(f"grid size {g[i]} in dimension {i} is outside 1..2^32-1")
        if not 1 <= b[i] <= 0xFFFF:
            raise DispatchError(f"work-group size {b[i]} in dimension {i} is outside 1..65535")
    return struct.pack(AQL_PACKET_FORMAT, header, len(grid), b[0], b[1], b[2], 0, g[0], g[1], g[2],
                       private_segment_size, group_segment_size, kernel_object_address,
                       kernarg_address, 0, completion_signal)
