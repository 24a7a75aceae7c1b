"""The GPU virtual address space and the memory rules of gfx7 (Sea Islands).

Design (numba first):

* One ``np.uint8`` backing array ``data`` covers the contiguous virtual range starting at
  :data:`BASE` (0x1_0000_0000, so that small integers are never valid addresses). Byte ``i`` of
  ``data`` is the byte at virtual address ``BASE + i``.
* ``mapped`` has one uint8 per 256-byte page of ``data``; 0 means unmapped. Every allocation starts
  on a page boundary (which satisfies the 256-byte alignment GCN buffers want) and is followed by
  at least one unmapped guard page, so running off the end of a buffer faults once it leaves
  the buffer's last page. (Inside that last page an overrun is not detected: like real page
  tables, mapping is per page. ``describe`` still names such an address precisely.)
* ``data`` may be reallocated (grown) by :meth:`Memory.allocate` between dispatches, never during
  one: the engine takes :meth:`Memory.arrays` at dispatch start. :meth:`Memory.lock` makes a
  growth attempt raise instead.
* The per-lane accessors :func:`mem_load`, :func:`mem_store` and :func:`mem_atomic` are numba
  functions taking ``(data, mapped, base, addr, ...)``. An unmapped access never raises: loads
  return 0, stores are dropped, and ``ok`` is False so the engine can record the fault
  (the seeds ask for "well-defined results ... rather than crashing").

Descriptors: :func:`decode_vsharp` (buffer resource, 128 bit), :func:`decode_tsharp` (image,
256 bit), :func:`decode_ssharp` (sampler, 128 bit), with the Sea Islands bit layouts of
CLRX's GcnMemHandling.md; :func:`buffer_address` is the MUBUF/MTBUF address computation and
range check.

Scratch (private segment) on gfx7 under the AMDHSA ABI:

* :meth:`Memory.allocate_scratch` reserves ``bytes_per_lane`` for each lane of a whole number of
  waves. The private segment buffer V# (user SGPRs 0-3 of the kernel) is
  :func:`scratch_vsharp`: base = scratch base, stride 0, swizzle_enable 1, element_size 4 bytes,
  index_stride 64, add_tid_enable 1, num_records = scratch size, data format 32 / UINT.
* The private_segment_wave_offset system SGPR of wave ``w`` is ``w * 64 * bytes_per_lane``; the
  kernel passes it as SOFFSET. With that V#, :func:`buffer_address` puts private byte ``o`` of
  lane ``l`` at ``base + wave_offset + (o // 4) * 256 + l * 4 + o % 4`` (see
  :func:`scratch_address`): dwords of the 64 lanes interleave, which is what makes a wave's
  spill of one VGPR a single contiguous 256-byte write.
* FLAT access to scratch: the kernel sets FLAT_SCRATCH_HI = (flat_scratch_init.lo +
  wave_offset) >> 8 and FLAT_SCRATCH_LO = flat_scratch_init.hi = bytes_per_lane (LLVM
  SIFrameLowering for CI). The dispatcher therefore passes flat_scratch_init = (scratch base
  offset within the scratch backing memory, bytes_per_lane); a FLAT address inside the private
  aperture (aperture base from the amd_queue_t behind queue_ptr) maps with the same swizzle:
  ``scratch_address(scratch_base, FLAT_SCRATCH_HI << 8, lane, flat_addr - aperture_base)``.
"""
from __future__ import annotations

import bisect
import threading
from typing import NamedTuple, Optional, Sequence, Union

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import types
from numba.extending import intrinsic

from .errors import MemoryFault

__all__ = [
    "BASE", "PAGE_SIZE", "PAGE_SHIFT", "Memory", "ScratchSegment",
    "mem_load", "mem_store", "mem_atomic", "atomic_new", "buffer_address", "scratch_address",
    "decode_vsharp", "encode_vsharp", "decode_tsharp", "decode_ssharp", "scratch_vsharp",
    "VSharp", "TSharp", "SSharp",
    "ATOMIC_SWAP", "ATOMIC_CMPSWAP", "ATOMIC_ADD", "ATOMIC_SUB", "ATOMIC_SMIN", "ATOMIC_UMIN",
    "ATOMIC_SMAX", "ATOMIC_UMAX", "ATOMIC_AND", "ATOMIC_OR", "ATOMIC_XOR", "ATOMIC_INC",
    "ATOMIC_DEC", "ATOMIC_FCMPSWAP", "ATOMIC_FMIN", "ATOMIC_FMAX",
]

BASE = 0x1_0000_0000
PAGE_SHIFT = 8   # 256-byte pages: an overrun is caught within 256 bytes of a buffer end
PAGE_SIZE = 1 << PAGE_SHIFT
DEFAULT_MAX_BYTES = 16 << 30  # refuse to grow the backing array past 16 GiB of host memory

# Atomic operation codes for mem_atomic (gcnemu's own numbering; the ISA tables map the
# BUFFER_/FLAT_/DS_/IMAGE_ATOMIC_* opcodes onto these).
ATOMIC_SWAP = 0
ATOMIC_CMPSWAP = 1   # mem = (mem == cmp) ? value : mem
ATOMIC_ADD = 2
ATOMIC_SUB = 3
ATOMIC_SMIN = 4
ATOMIC_UMIN = 5
ATOMIC_SMAX = 6
ATOMIC_UMAX = 7
ATOMIC_AND = 8
ATOMIC_OR = 9
ATOMIC_XOR = 10
ATOMIC_INC = 11      # mem = (mem >= value) ? 0 : mem + 1
ATOMIC_DEC = 12      # mem = (mem == 0 || mem > value) ? value : mem - 1
ATOMIC_FCMPSWAP = 13  # float compare: -0 == +0, NaN never equal
ATOMIC_FMIN = 14     # IEEE minNum: a NaN operand yields the other; -0 < +0
ATOMIC_FMAX = 15
ATOMIC_NAMES = ("swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax", "and", "or",
                "xor", "inc", "dec", "fcmpswap", "fmin", "fmax")


# --- bit casts usable inside numba ----------------------------------------------------------------

def _make_bitcast(src_bits: int, dst_type, dst_ir):
    @intrinsic
    def _cast(typingctx, x):
        if not isinstance(x, types.Integer) and not isinstance(x, types.Float):
            return None
        sig = dst_type(x)

        def codegen(context, builder, signature, args):
            v = args[0]
            if isinstance(x, types.Float):
                return builder.bitcast(v, dst_ir)
            w = x.bitwidth
            if w > src_bits:
                v = builder.trunc(v, ir.IntType(src_bits))
            elif w < src_bits:
                v = builder.zext(v, ir.IntType(src_bits))
            return builder.bitcast(v, dst_ir)
        return sig, codegen
    return _cast


bits_to_f32 = _make_bitcast(32, types.float32, ir.FloatType())
bits_to_f64 = _make_bitcast(64, types.float64, ir.DoubleType())
f32_to_bits = _make_bitcast(32, types.uint32, ir.IntType(32))
f64_to_bits = _make_bitcast(64, types.uint64, ir.IntType(64))


# --- per-lane accessors ---------------------------------------------------------------------------

@njit(cache=True)
def _locate(data, mapped, base, addr, nbytes):
    """Byte offset of [addr, addr+nbytes) in data, or -1 if any byte is unmapped."""
    a = np.uint64(addr)
    b = np.uint64(base)
    if a < b:
        return np.int64(-1)
    off = a - b
    end = off + np.uint64(nbytes)
    if end < off or end > np.uint64(data.size):
        return np.int64(-1)
    if mapped[np.int64(off >> np.uint64(PAGE_SHIFT))] == 0:
        return np.int64(-1)
    if mapped[np.int64((end - np.uint64(1)) >> np.uint64(PAGE_SHIFT))] == 0:
        return np.int64(-1)
    return np.int64(off)


@njit(cache=True)
def mem_load(data, mapped, base, addr, nbytes):
    """Load ``nbytes`` (1, 2, 4 or 8) little-endian bytes at virtual ``addr``, any alignment.

    Returns (value as uint64, zero-extended; ok). Unmapped: (0, False)."""
    o = _locate(data, mapped, base, addr, nbytes)
    if o < 0:
        return np.uint64(0), False
    v = np.uint64(0)
    for i in range(nbytes):
        v |= np.uint64(data[o + i]) << np.uint64(8 * i)
    return v, True


@njit(cache=True)
def mem_store(data, mapped, base, addr, value, nbytes):
    """Store the low ``nbytes`` (1, 2, 4 or 8) of ``value`` little-endian at ``addr``.

    Returns ok; an unmapped store writes nothing and returns False."""
    o = _locate(data, mapped, base, addr, nbytes)
    if o < 0:
        return False
    v = np.uint64(value)
    for i in range(nbytes):
        data[o + i] = np.uint8((v >> np.uint64(8 * i)) & np.uint64(0xFF))
    return True


@njit(cache=True)
def _sext(v, bits):
    if bits == 64:
        return np.int64(v)
    m = np.uint64(1) << np.uint64(bits - 1)
    return np.int64(v ^ m) - np.int64(m)


@njit(cache=True)
def _fminmax(a, b, want_min):
    # IEEE-754 minNum/maxNum: a quiet treatment of NaN (the other operand wins); -0 < +0.
    if a != a:
        return b
    if b != b:
        return a
    if a == b:
        if want_min:
            return a if np.signbit(a) else b
        return b if np.signbit(a) else a
    if want_min:
        return a if a < b else b
    return a if a > b else b


@intrinsic
def _cas(typingctx, data, offset, expected, desired, nbytes):
    """Compare-and-swap of the naturally aligned 4- or 8-byte word at byte ``offset`` of the
    uint8 array ``data`` (sequentially consistent, a host ``lock cmpxchg``): stores ``desired``
    if the word equals ``expected``. Returns the word's value before (uint64)."""
    if not (isinstance(data, types.Array) and isinstance(nbytes, types.IntegerLiteral)):
        return None
    width = nbytes.literal_value * 8
    sig = types.uint64(data, offset, expected, desired, nbytes)

    def codegen(context, builder, signature, args):
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        it = ir.IntType(width)
        ptr = builder.bitcast(builder.gep(arr.data, [args[1]]), it.as_pointer())
        exp = builder.trunc(args[2], it) if width < 64 else args[2]
        new = builder.trunc(args[3], it) if width < 64 else args[3]
        pair = builder.cmpxchg(ptr, exp, new, "seq_cst", "seq_cst")
        old = builder.extract_value(pair, 0)
        return builder.zext(old, ir.IntType(64)) if width < 64 else old
    return sig, codegen


@njit(cache=True)
def atomic_new(old, op, value, cmp, nbytes):
    """The value an atomic op (ATOMIC_*) leaves in a 4- or 8-byte word holding ``old``;
    (new, ok), ok False for an unknown op. Scalars only: the engine's memory paths call it
    per lane without passing arrays (each array argument costs numba an atomic refcount)."""
    bits = nbytes * 8
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) if bits == 64 else (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    v = np.uint64(value) & mask
    c = np.uint64(cmp) & mask
    new = old
    if op == ATOMIC_SWAP:
        new = v
    elif op == ATOMIC_CMPSWAP:
        new = v if old == c else old
    elif op == ATOMIC_ADD:
        new = (old + v) & mask
    elif op == ATOMIC_SUB:
        new = (old - v) & mask
    elif op == ATOMIC_SMIN:
        new = old if _sext(old, bits) <= _sext(v, bits) else v
    elif op == ATOMIC_UMIN:
        new = old if old <= v else v
    elif op == ATOMIC_SMAX:
        new = old if _sext(old, bits) >= _sext(v, bits) else v
    elif op == ATOMIC_UMAX:
        new = old if old >= v else v
    elif op == ATOMIC_AND:
        new = old & v
    elif op == ATOMIC_OR:
        new = old | v
    elif op == ATOMIC_XOR:
        new = old ^ v
    elif op == ATOMIC_INC:
        new = np.uint64(0) if old >= v else (old + np.uint64(1)) & mask
    elif op == ATOMIC_DEC:
        new = v if (old == np.uint64(0) or old > v) else old - np.uint64(1)
    elif op == ATOMIC_FCMPSWAP or op == ATOMIC_FMIN or op == ATOMIC_FMAX:
        if bits == 32:
            fo = np.float64(bits_to_f32(old))
            fv = np.float64(bits_to_f32(v))
            fc = np.float64(bits_to_f32(c))
        else:
            fo = bits_to_f64(old)
            fv = bits_to_f64(v)
            fc = bits_to_f64(c)
        if op == ATOMIC_FCMPSWAP:
            new = v if fo == fc else old
        else:
            r = _fminmax(fo, fv, op == ATOMIC_FMIN)
            # Return the winning operand's own bits (keeps NaN payloads and signed zeros exact).
            if r != r:
                new = old if fo != fo else v
            elif r == fo and np.signbit(r) == np.signbit(fo):
                new = old
            else:
                new = v
    else:
        return old, False
    return new, True
@njit(cache=True)
def atomic_rmw(data, o, op, value, cmp, nbytes):
    """Atomic read-modify-write (op: ATOMIC_*) of the 4- or 8-byte word at byte offset ``o``
    of ``data`` (already located and mapped). Returns (old value, ok).

    A naturally aligned word is updated with a host compare-and-swap loop, so the update is
    atomic also between the threads of a multi-worker dispatch (gcnemu/gpu.py runs kernels
    whose global atomics commute on two workers). A misaligned word is updated byte by byte:
    atomic only with respect to the calling thread's own lanes.
    """
    if (data.ctypes.data + o) % nbytes == 0:
        # CAS(0, 0) is an atomic read that never changes the word
        cur = _cas(data, o, np.uint64(0), np.uint64(0), 8) if nbytes == 8 else \
            _cas(data, o, np.uint64(0), np.uint64(0), 4)
        while True:
            new, ok = atomic_new(cur, op, value, cmp, nbytes)
            if not ok:
                return cur, False
            if new == cur:
                return cur, True
            prev = _cas(data, o, cur, new, 8) if nbytes == 8 else _cas(data, o, cur, new, 4)
            if prev == cur:
                return cur, True
            cur = prev
    old = np.uint64(0)
    for i in range(nbytes):
        old |= np.uint64(data[o + i]) << np.uint64(8 * i)
    new, ok = atomic_new(old, op, value, cmp, nbytes)
    if not ok:
        return old, False
    for i in range(nbytes):
        data[o + i] = np.uint8((new >> np.uint64(8 * i)) & np.uint64(0xFF))
    return old, True


@njit(cache=True)
def mem_atomic(data, mapped, base, addr, op, value, cmp, nbytes):
    """Atomic read-modify-write of a 4- or 8-byte word at ``addr`` (op: ATOMIC_* constant),
    thread-safe as `atomic_rmw` says.

    ``value`` is the data operand, ``cmp`` the compare operand of CMPSWAP/FCMPSWAP (ignored
    otherwise). Returns (old value as uint64, ok); unmapped: (0, False) and memory unchanged.
    """
    o = _locate(data, mapped, base, addr, nbytes)
    if o < 0:
        return np.uint64(0), False
    return atomic_rmw(data, o, op, value, cmp, nbytes)


# --- buffer addressing --------------------------------------------------------------------------

@njit(cache=True, inline="always")
def vsharp_fields(w0, w1, w2, w3):
    """The fields of a V# (four dwords, uint64) that buffer_address takes: (base, stride,
    swizzle_enable, num_records, element_size in bytes, index_stride in elements, add_tid).
    Scalars only, so the engine's memory path and the timing trace decode it alike."""
    base = w0 | ((w1 & np.uint64(0xFFFF)) << np.uint64(32))
    stride = np.int64((w1 >> np.uint64(16)) & np.uint64(0x3FFF))
    swizzle = np.int64(w1 >> np.uint64(31))
    element_size = np.int64(2 << ((w3 >> np.uint64(19)) & np.uint64(3)))
    index_stride = np.int64(8 << ((w3 >> np.uint64(21)) & np.uint64(3)))
    add_tid = np.int64((w3 >> np.uint64(23)) & np.uint64(1))
    return base, stride, swizzle, np.int64(w2), element_size, index_stride, add_tid


@njit(cache=True)
def buffer_address(base_address, stride, num_records, swizzle_enable, element_size, index_stride,
                   add_tid_enable, idxen, offen, addr64, vgpr_index, vgpr_offset, vaddr64,
                   inst_offset, soffset, lane, extra_offset):
    """MUBUF/MTBUF address of one lane's access and whether it is in range (GcnMemHandling.md).

    ``element_size`` and ``index_stride`` are in bytes/elements (decoded: 2 << field and
    8 << field), ``extra_offset`` is the byte offset of the dword being accessed within a
    multi-dword access (0, 4, 8, 12), applied before swizzling as the hardware does.
    With ``addr64``: ADDRESS = BASE + VADDR64 + OFFSET + SOFFSET, no range check.
    Otherwise AOFFSET = inst_offset + (offen ? vgpr_offset : 0), AINDEX = (idxen ? vgpr_index : 0)
    + (add_tid ? lane : 0), BUFOFFSET is (u32)(AINDEX*STRIDE)+AOFFSET (linear) or the swizzle
    formula; out of range when stride == 0 and BUFOFFSET >= NUM_RECORDS - SOFFSET, or stride != 0
    and (AINDEX >= NUM_RECORDS or (idxen|add_tid) and AOFFSET >= STRIDE).
    Returns (address uint64, in_range bool); out-of-range loads read 0 and stores are dropped.
    """
    m32 = np.uint64(0xFFFFFFFF)
    base = np.uint64(base_address)
    so = np.uint64(soffset) & m32
    if addr64:
        return base + np.uint64(vaddr64) + (np.uint64(inst_offset + extra_offset) & m32) + so, True
    aoffset = np.uint64(inst_offset + extra_offset) & m32
    if offen:
        aoffset = (aoffset + (np.uint64(vgpr_offset) & m32)) & m32
    aindex = np.uint64(0)
    if idxen:
        aindex = np.uint64(vgpr_index) & m32
    if add_tid_enable:
        aindex = (aindex + np.uint64(lane)) & m32
    st = np.uint64(stride)
    if swizzle_enable:
        es = np.uint64(element_size)
        ist = np.uint64(index_stride)
        index_msb = aindex // ist
        index_lsb = aindex % ist
        offset_msb = aoffset // es
        offset_lsb = aoffset % es
        bufoffset = offset_lsb + es * index_lsb + ist * (index_msb * st + offset_msb * es)
    else:
        bufoffset = ((aindex * st) & m32) + aoffset
    nr = np.uint64(num_records)
    if st == np.uint64(0):
        in_range = bufoffset + so < nr
    else:
        in_range = aindex < nr
        if (idxen or add_tid_enable) and aoffset >= st:
            in_range = False
    return base + so + bufoffset, in_range


@njit(cache=True)
def scratch_address(scratch_base, wave_offset, lane, private_offset):
    """Address of private byte ``private_offset`` of ``lane`` under the ABI's swizzled scratch
    V# (element size 4, index stride 64, stride 0, add_tid): see the module docstring."""
    o = np.uint64(private_offset)
    return (np.uint64(scratch_base) + np.uint64(wave_offset) + (o >> np.uint64(2)) * np.uint64(256)
            + np.uint64(lane) * np.uint64(4) + (o & np.uint64(3)))


# --- descriptors ---------------------------------------------------------------------------------

def _as_int(words: Sequence[int], n: int, what: str) -> int:
    w = [int(x) for x in np.asarray(words, dtype=np.uint64).ravel()] if not isinstance(words, (list, tuple)) else [int(x) for x in words]
    if len(w) != n:
        raise MemoryFault(f"{what} needs {n} dwords, got {len(w)}")
    v = 0
    for i, x in enumerate(w):
        if not 0 <= x <= 0xFFFFFFFF:
            raise MemoryFault(f"{what} dword {i} = {x} is not a 32-bit value")
        v |= x << (32 * i)
    return v


def _f(v: int, lo: int, width: int) -> int:
    return (v >> lo) & ((1 << width) - 1)


class VSharp(NamedTuple):
    """Decoded buffer resource (V#). element_size/index_stride are in bytes/elements;
    the raw 2-bit fields are element_size_code/index_stride_code."""
    base_address: int
    stride: int
    cache_swizzle: int
    swizzle_enable: int
    num_records: int
    dst_sel_x: int
    dst_sel_y: int
    dst_sel_z: int
    dst_sel_w: int
    num_format: int
    data_format: int
    element_size_code: int
    index_stride_code: int
    element_size: int
    index_stride: int
    add_tid_enable: int
    hash_enable: int
    heap: int
    type: int


def decode_vsharp(words: Sequence[int]) -> VSharp:
    """Decode a 4-dword buffer resource (Sea Islands layout, GcnMemHandling.md)."""
    v = _as_int(words, 4, "V# buffer resource")
    es, ist = _f(v, 115, 2), _f(v, 117, 2)
    return VSharp(
        base_address=_f(v, 0, 48), stride=_f(v, 48, 14), cache_swizzle=_f(v, 62, 1),
        swizzle_enable=_f(v, 63, 1), num_records=_f(v, 64, 32), dst_sel_x=_f(v, 96, 3),
        dst_sel_y=_f(v, 99, 3), dst_sel_z=_f(v, 102, 3), dst_sel_w=_f(v, 105, 3),
        num_format=_f(v, 108, 3), data_format=_f(v, 111, 4), element_size_code=es,
        index_stride_code=ist, element_size=2 << es, index_stride=8 << ist,
        add_tid_enable=_f(v, 119, 1), hash_enable=_f(v, 121, 1), heap=_f(v, 122, 1),
        type=_f(v, 126, 2))


def encode_vsharp(base_address: int, num_records: int, stride: int = 0, *, swizzle_enable: int = 0,
                  cache_swizzle: int = 0, dst_sel: Sequence[int] = (4, 5, 6, 7), num_format: int = 4,
                  data_format: int = 4, element_size_code: int = 0, index_stride_code: int = 0,
                  add_tid_enable: int = 0) -> np.ndarray:
    """Build a 4-dword V# (uint32 array). Defaults: identity dst_sel, UINT, format 32, type 0."""
    fields = ((base_address, 0, 48, "base_address"), (stride, 48, 14, "stride"),
              (cache_swizzle, 62, 1, "cache_swizzle"), (swizzle_enable, 63, 1, "swizzle_enable"),
              (num_records, 64, 32, "num_records"), (dst_sel[0], 96, 3, "dst_sel_x"),
              (dst_sel[1], 99, 3, "dst_sel_y"), (dst_sel[2], 102, 3, "dst_sel_z"),
              (dst_sel[3], 105, 3, "dst_sel_w"), (num_format, 108, 3, "num_format"),
              (data_format, 111, 4, "data_format"), (element_size_code, 115, 2, "element_size_code"),
              (index_stride_code, 117, 2, "index_stride_code"), (add_tid_enable, 119, 1, "add_tid_enable"))
    v = 0
    for val, lo, width, name in fields:
        if not 0 <= int(val) < (1 << width):
            raise MemoryFault(f"V# field {name} = {val} does not fit in {width} bits")
        v |= int(val) << lo
    return np.array([(v >> (32 * i)) & 0xFFFFFFFF for i in range(4)], dtype=np.uint32)


def scratch_vsharp(scratch_base: int, size: int) -> np.ndarray:
    """The private segment buffer V# the ABI hands a kernel (see the module docstring)."""
    return encode_vsharp(scratch_base, size, 0, swizzle_enable=1, element_size_code=1,
                         index_stride_code=3, add_tid_enable=1)


IMAGE_TYPES = {0: "buffer", 8: "1d", 9: "2d", 10: "3d", 11: "cube", 12: "1d_array",
               13: "2d_array", 14: "2d_msaa", 15: "2d_msaa_array"}


class TSharp(NamedTuple):
    """Decoded image resource (T#). width/height/depth/pitch are the real sizes (field + 1)."""
    base_address: int
    min_lod: float
    data_format: int
    num_format: int
    width: int
    height: int
    perf_mod: int
    interlaced: int
    dst_sel_x: int
    dst_sel_y: int
    dst_sel_z: int
    dst_sel_w: int
    base_level: int
    last_level: int
    mip_levels: int
    tiling_index: int
    pow2pad: int
    type: int
    type_name: str
    depth: int
    pitch: int
    base_array: int
    last_array: int
    min_lod_warn: int


def decode_tsharp(words: Sequence[int]) -> TSharp:
    """Decode an 8-dword (or the 4-dword short form, upper half zero) image resource."""
    w = [int(x) for x in (words.tolist() if isinstance(words, np.ndarray) else words)]
    if len(w) == 4:
        w = w + [0, 0, 0, 0]
    v = _as_int(w, 8, "T# image resource")
    t = _f(v, 124, 4)
    base_level, last_level = _f(v, 108, 4), _f(v, 112, 4)
    return TSharp(
        base_address=_f(v, 0, 40) << 8, min_lod=_f(v, 40, 12) / 256.0, data_format=_f(v, 52, 6),
        num_format=_f(v, 58, 4), width=_f(v, 64, 14) + 1, height=_f(v, 78, 14) + 1,
        perf_mod=_f(v, 92, 3), interlaced=_f(v, 95, 1), dst_sel_x=_f(v, 96, 3),
        dst_sel_y=_f(v, 99, 3), dst_sel_z=_f(v, 102, 3), dst_sel_w=_f(v, 105, 3),
        base_level=base_level, last_level=last_level, mip_levels=max(last_level - base_level + 1, 1),
        tiling_index=_f(v, 116, 5), pow2pad=_f(v, 121, 1), type=t,
        type_name=IMAGE_TYPES.get(t, f"reserved{t}"), depth=_f(v, 128, 13) + 1,
        pitch=_f(v, 141, 14) + 1, base_array=_f(v, 160, 13), last_array=_f(v, 173, 13),
        min_lod_warn=_f(v, 192, 12))


class SSharp(NamedTuple):
    """Decoded sampler (S#). LODs are converted from unsigned 4.8 / signed 5.8 / signed 1.4."""
    clamp_x: int
    clamp_y: int
    clamp_z: int
    depth_compare_func: int
    force_unnormalized: int
    normalized_coords: bool
    mc_coord_trunc: int
    force_degamma: int
    trunc_coord: int
    disable_cube_wrap: int
    filter_mode: int
    min_lod: float
    max_lod: float
    perf_mip: int
    perf_z: int
    lod_bias: float
    lod_bias_sec: float
    xy_mag_filter: int
    xy_min_filter: int
    z_filter: int
    mip_filter: int
    mip_point_preclamp: int
    disable_lsb_ceil: int
    filter_prec_fix: int
    border_color_ptr: int
    border_color_type: int


def _signed(x: int, bits: int) -> int:
    return x - (1 << bits) if x & (1 << (bits - 1)) else x


def decode_ssharp(words: Sequence[int]) -> SSharp:
    """Decode a 4-dword sampler resource (GcnMemHandling.md, "Sampler resource format")."""
    v = _as_int(words, 4, "S# sampler")
    fu = _f(v, 15, 1)
    return SSharp(
        clamp_x=_f(v, 0, 3), clamp_y=_f(v, 3, 3), clamp_z=_f(v, 6, 3),
        depth_compare_func=_f(v, 12, 3), force_unnormalized=fu, normalized_coords=not fu,
        mc_coord_trunc=_f(v, 19, 1), force_degamma=_f(v, 20, 1), trunc_coord=_f(v, 27, 1),
        disable_cube_wrap=_f(v, 28, 1), filter_mode=_f(v, 29, 2),
        min_lod=_f(v, 32, 12) / 256.0, max_lod=_f(v, 44, 12) / 256.0, perf_mip=_f(v, 56, 4),
        perf_z=_f(v, 60, 4), lod_bias=_signed(_f(v, 64, 14), 14) / 256.0,
        lod_bias_sec=_signed(_f(v, 78, 6), 6) / 16.0, xy_mag_filter=_f(v, 84, 2),
        xy_min_filter=_f(v, 86, 2), z_filter=_f(v, 88, 2), mip_filter=_f(v, 90, 2),
        mip_point_preclamp=_f(v, 92, 1), disable_lsb_ceil=_f(v, 93, 1),
        filter_prec_fix=_f(v, 94, 1), border_color_ptr=_f(v, 96, 12),
        border_color_type=_f(v, 126, 2))


# --- the address space -------------------------------------------------------------------------

class ScratchSegment(NamedTuple):
    """A scratch (private segment) allocation: see the module docstring for its layout."""
    address: int
    size: int
    bytes_per_lane: int
    lanes: int
    waves: int
    vsharp: np.ndarray  # the private segment buffer V# (4 x uint32)

    def wave_offset(self, wave: int) -> int:
        """private_segment_wave_offset SGPR value of wave ``wave`` (0-based)."""
        if not 0 <= wave < self.waves:
            raise MemoryFault(f"wave {wave} outside scratch segment of {self.waves} waves")
        return wave * 64 * self.bytes_per_lane


class _Alloc(NamedTuple):
    start: int      # virtual address
    nbytes: int     # requested size
    end_page: int   # virtual address one past the last mapped page
    name: str


def zeros_aligned(shape, dtype, align: int = 64) -> np.ndarray:
    """np.zeros whose data starts on an ``align``-byte boundary (numpy aligns large arrays
    to 16 bytes only): rows the compiled code moves with 64-byte vector loads and stores
    (VGPR files, constant rows, the backing store) then never straddle cache lines."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(nbytes + align, np.uint8)
    off = -raw.ctypes.data % align
    return raw[off:off + nbytes].view(dtype).reshape(shape)


class Memory:
    """The GPU virtual address space: allocation, host access and fault descriptions.

    Addresses are plain ints (virtual addresses >= BASE). Host accesses (read/write) must lie
    within one allocation and raise MemoryFault otherwise; device accesses go through the numba
    helpers, which never raise.
    """

    def __init__(self, initial_bytes: int = 1 << 20, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        n = max(PAGE_SIZE, -(-int(initial_bytes) // PAGE_SIZE) * PAGE_SIZE)
        self.max_bytes = int(max_bytes)
        self.data = zeros_aligned(n, np.uint8)
        self.mapped = np.zeros(n >> PAGE_SHIFT, dtype=np.uint8)
        self._allocs: list[_Alloc] = []      # sorted by start
        self._freed: list[_Alloc] = []       # for "use after free" descriptions
        self._locked = False
        self._counter = 0
        # allocate/free from several Python threads (e.g. dispatches on one GPU): the first-fit
        # search and the table must change as one step, or two buffers get the same range
        self._mutex = threading.RLock()
        self.alloc_start = np.zeros(0, dtype=np.uint64)
        self.alloc_end = np.zeros(0, dtype=np.uint64)
        self.alloc_names: list[str] = []

    base = BASE

    @property
    def size(self) -> int:
        """Bytes of virtual range currently backed (BASE .. BASE + size)."""
        return int(self.data.size)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(data, mapped): what the engine passes to the numba helpers, with base = BASE.
        Valid until the next allocate() that has to grow the backing array."""
        return self.data, self.mapped

    def lock(self) -> None:
        """Forbid growing the backing array (call at dispatch start)."""
        self._locked = True

    def unlock(self) -> None:
        """Allow growth again (call when the dispatch has finished)."""
        self._locked = False

    def _rebuild_table(self) -> None:
        self.alloc_start = np.array([a.start for a in self._allocs], dtype=np.uint64)
        self.alloc_end = np.array([a.start + a.nbytes for a in self._allocs], dtype=np.uint64)
        self.alloc_names = [a.name for a in self._allocs]

    def _grow(self, need_end: int) -> None:
        need = need_end - BASE
        if need <= self.data.size:
            return
        if self._locked:
            raise MemoryFault("allocation needs the backing array to grow during a dispatch")
        if need > self.max_bytes:
            raise MemoryFault(f"out of GPU memory: need {need} bytes of backing store, limit {self.max_bytes}")
        n = self.data.size
        while n < need:
            n *= 2
        n = min(max(n, need), self.max_bytes)
        n = -(-n // PAGE_SIZE) * PAGE_SIZE
        data = zeros_aligned(n, np.uint8)
        data[:self.data.size] = self.data
        mapped = np.zeros(n >> PAGE_SHIFT, dtype=np.uint8)
        mapped[:self.mapped.size] = self.mapped
        self.data, self.mapped = data, mapped

    def allocate(self, nbytes: int, align: int = 256, name: Optional[str] = None) -> int:
        """Map ``nbytes`` (>0) of zeroed memory and return its virtual address.

        The address is aligned to max(align, page); guard pages separate allocations.
        Safe to call from several threads.
        """
        with self._mutex:
            return self._allocate(nbytes, align, name)

    def _allocate(self, nbytes: int, align: int, name: Optional[str]) -> int:
        nbytes = int(nbytes)
        align = int(align)
        if nbytes <= 0:
            raise MemoryFault(f"allocation size must be positive, got {nbytes}")
        if align <= 0 or align & (align - 1):
            raise MemoryFault(f"alignment must be a power of two, got {align}")
        align = max(align, PAGE_SIZE)
        span = -(-nbytes // PAGE_SIZE) * PAGE_SIZE
        # First fit: the lowest gap that leaves a guard page on both sides.
        prev_end = BASE  # page BASE..BASE+PAGE stays unmapped: a guard before the first buffer
        start = None
        for a in self._allocs:
            cand = -(-(prev_end + PAGE_SIZE) // align) * align
            if cand + span + PAGE_SIZE <= a.start:
                start = cand
                break
            prev_end = a.end_page
        if start is None:
            start = -(-(prev_end + PAGE_SIZE) // align) * align
        end_page = start + span
        self._grow(end_page + PAGE_SIZE)  # keep the trailing guard page inside the array
        if name is None:
            name = f"buffer{self._counter}"
        self._counter += 1
        off = start - BASE
        self.data[off:off + span] = 0
        self.mapped[off >> PAGE_SHIFT:(off + span) >> PAGE_SHIFT] = 1
        bisect.insort(self._allocs, _Alloc(start, nbytes, end_page, name))
        self._freed = [f for f in self._freed if f.end_page <= start or f.start >= end_page]
        self._rebuild_table()
        return start

    def allocate_scratch(self, bytes_per_lane: int, lanes: int, name: str = "scratch") -> ScratchSegment:
        """Allocate the private segment of ``lanes`` work-items (rounded up to whole 64-lane
        waves), ``bytes_per_lane`` each (rounded up to a dword), in the swizzled layout."""
        if bytes_per_lane < 0 or lanes <= 0:
            raise MemoryFault(f"scratch needs bytes_per_lane >= 0 and lanes > 0, got {bytes_per_lane}, {lanes}")
        bpl = -(-int(bytes_per_lane) // 4) * 4
        waves = -(-int(lanes) // 64)
        size = max(bpl * 64 * waves, 4)
        addr = self.allocate(size, name=name)
        return ScratchSegment(addr, size, bpl, int(lanes), waves, scratch_vsharp(addr, size))

    def _find(self, address: int) -> Optional[_Alloc]:
        i = bisect.bisect_right(self._allocs, (address, float("inf"))) - 1
        if i >= 0:
            a = self._allocs[i]
            if a.start <= address < a.start + a.nbytes:
                return a
        return None

    def free(self, address: int) -> None:
        """Unmap the allocation starting at ``address`` (MemoryFault if there is none)."""
        with self._mutex:
            self._free(address)

    def _free(self, address: int) -> None:
        for i, a in enumerate(self._allocs):
            if a.start == address:
                off = a.start - BASE
                self.mapped[off >> PAGE_SHIFT:(a.end_page - BASE) >> PAGE_SHIFT] = 0
                del self._allocs[i]
                self._freed.append(a)
                self._rebuild_table()
                return
        raise MemoryFault(f"free of 0x{address:x}, which is not the start of a live allocation "
                          f"({self.describe(address)})")

    def _host_range(self, address: int, nbytes: int, what: str) -> int:
        a = self._find(address)
        if a is None or address + nbytes > a.start + a.nbytes:
            raise MemoryFault(f"host {what} of {nbytes} bytes at 0x{address:x} is outside any "
                              f"allocation ({self.describe(address)})")
        return address - BASE

    def write(self, address: int, data: Union[bytes, bytearray, memoryview, np.ndarray]) -> None:
        """Copy ``data`` (bytes or any contiguous numpy array, raw bytes) to ``address``."""
        buf = np.ascontiguousarray(data).view(np.uint8).ravel() if isinstance(data, np.ndarray) \
            else np.frombuffer(bytes(data), dtype=np.uint8)
        off = self._host_range(address, buf.size, "write")
        self.data[off:off + buf.size] = buf

    def read(self, address: int, nbytes: int) -> bytes:
        """Copy ``nbytes`` starting at ``address`` out of GPU memory."""
        off = self._host_range(address, nbytes, "read")
        return self.data[off:off + nbytes].tobytes()

    def read_array(self, address: int, dtype, count: int) -> np.ndarray:
        """A fresh numpy array of ``count`` elements of ``dtype`` read from ``address``."""
        dt = np.dtype(dtype)
        off = self._host_range(address, dt.itemsize * count, "read")
        return self.data[off:off + dt.itemsize * count].copy().view(dt)

    def describe(self, address: int) -> str:
        """Say where ``address`` is: 'buffer NAME + 0x..' or 'unmapped, N bytes past buffer X'."""
        a = self._find(address)
        if a is not None:
            return f"buffer '{a.name}' (0x{a.start:x}, {a.nbytes} bytes) + {address - a.start}"
        for f in reversed(self._freed):
            if f.start <= address < f.start + f.nbytes:
                return f"freed buffer '{f.name}' (was 0x{f.start:x}, {f.nbytes} bytes) + {address - f.start}"
        if not self._allocs:
            return f"unmapped address 0x{address:x} (no buffers allocated)"
        i = bisect.bisect_right(self._allocs, (address, float("inf"))) - 1
        before = self._allocs[i] if i >= 0 else None
        after = self._allocs[i + 1] if i + 1 < len(self._allocs) else None
        end = before.start + before.nbytes if before else None
        if before is not None and address < before.end_page:
            return (f"{address - end} bytes past the end of buffer '{before.name}' "
                    f"(0x{before.start:x}, {before.nbytes} bytes), inside its last page (mapped)")
        if before is not None and (after is None or address - end <= after.start - address):
            return f"unmapped, {address - end} bytes past buffer '{before.name}' (0x{before.start:x}, {before.nbytes} bytes)"
        return f"unmapped, {after.start - address} bytes before buffer '{after.name}' (0x{after.start:x}, {after.nbytes} bytes)"

    def is_mapped(self, address: int) -> bool:
        """True when the page holding ``address`` is mapped."""
        off = address - BASE
        return 0 <= off < self.data.size and bool(self.mapped[off >> PAGE_SHIFT])
