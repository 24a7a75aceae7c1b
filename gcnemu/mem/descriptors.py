"""Resource descriptors of gfx7: buffer (V#), image (T#) and sampler (S#) resources, and the
MUBUF/MTBUF address computation.

:func:`decode_vsharp` (buffer resource, 128 bit), :func:`decode_tsharp` (image, 256 bit),
:func:`decode_ssharp` (sampler, 128 bit) follow the Sea Islands bit layouts of CLRX's
GcnMemHandling.md; :func:`buffer_address` (numba) is the MUBUF/MTBUF address computation and
range check.

Scratch (private segment) on gfx7 under the AMDHSA ABI:

* :meth:`gcnemu.mem.space.Memory.allocate_scratch` reserves ``bytes_per_lane`` for each lane of a whole number of
  waves. The private segment buffer V# (user SGPRs 0-3 of the kernel) is
  :func:`scratch_vsharp`: base = scratch base, stride 0, swizzle_enable 1, element_size 4 bytes,
  index_stride 64, add_tid_enable 1, num_records = scratch size, data format 32 / UINT
  (ROCr's InitScratchSRD builds the same: num_records the scratch's bytes).
* Its range check (GcnMemHandling.md, STRIDE == 0): out of range iff BUFOFFSET >=
  NUM_RECORDS - SOFFSET, BUFOFFSET the swizzled offset. A kernel passing the wave offset in
  SOFFSET has its last wave's overflow past the scratch dropped; LLVM's gfx7 prologue
  instead adds it to the V# base (``s_add_u32 s0, s0, s_wave_offset``, SOFFSET 0), so the
  range runs NUM_RECORDS bytes from the wave's own part and the last wave's overflow reaches
  the bytes after the scratch (here unmapped: a fault) on the hardware too.
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

from typing import NamedTuple, Optional, Sequence

import numpy as np

from ..errors import MemoryFault
from ..exec.jit import njit

U64 = np.uint64

__all__ = ["buffer_address", "buffer_lane_operands", "scratch_address", "vsharp_fields", "decode_vsharp", "encode_vsharp",
           "decode_tsharp", "decode_ssharp", "scratch_vsharp", "VSharp", "TSharp", "SSharp",
           "IMAGE_TYPES", "encode_tsharp", "encode_ssharp"]


@njit(inline="always")
def descriptor_words(sregs, w, s):
    """The four dwords (uint64) of a resource descriptor in wave w's SGPRs s..s+3."""
    return U64(sregs[w, s]), U64(sregs[w, s + 1]), U64(sregs[w, s + 2]), U64(sregs[w, s + 3])


@njit(inline="always")
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


@njit(inline="always")
def buffer_lane_operands(vgpr, row, lane, addr64, idxen, offen):
    """(index, offset, 64-bit address) of one lane's MUBUF/MTBUF VADDR registers from VGPR row
    ``row`` on: the 64-bit address (addr64), else the index then the offset, each where its
    bit is set; absent ones are 0."""
    vidx = np.uint64(0)
    voff = np.uint64(0)
    v64 = np.uint64(0)
    if addr64:
        v64 = np.uint64(vgpr[row, lane]) | (np.uint64(vgpr[row + 1, lane]) << np.uint64(32))
    elif idxen:
        vidx = np.uint64(vgpr[row, lane])
        if offen:
            voff = np.uint64(vgpr[row + 1, lane])
    elif offen:
        voff = np.uint64(vgpr[row, lane])
    return vidx, voff, v64


@njit
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


@njit
def scratch_address(scratch_base, wave_offset, lane, private_offset):
    """Address of private byte ``private_offset`` of ``lane`` under the ABI's swizzled scratch
    V# (element size 4, index stride 64, stride 0, add_tid): see the module docstring."""
    o = np.uint64(private_offset)
    return (np.uint64(scratch_base) + np.uint64(wave_offset) + (o >> np.uint64(2)) * np.uint64(256)
            + np.uint64(lane) * np.uint64(4) + (o & np.uint64(3)))


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


def _pack_fields(fields, n: int, what: str) -> list:
    v = 0
    for name, val, lo, width in fields:
        if not 0 <= val < (1 << width):
            raise MemoryFault(f"{what}: {name} = {val} does not fit in {width} bits")
        v |= val << lo
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(n)]


def encode_tsharp(base_address: int, data_format: int, num_format: int, width: int,
                  height: int = 1, depth: int = 1, *, type: int = 9, pitch: Optional[int] = None,
                  dst_sel=(4, 5, 6, 7), tiling_index: int = 8) -> list:
    """The 8 dwords of a linear (tiling index 8) single-level image resource, the bit layout
    :func:`decode_tsharp` reads: sizes are real sizes (the fields hold size - 1), ``pitch`` in
    texels (default: width), ``dst_sel`` as in the T# (0, 1, 4..7 = 0, 1, X..W)."""
    if base_address % 256:
        raise MemoryFault(f"T#: image base 0x{base_address:x} is not 256-byte aligned")
    pitch = width if pitch is None else pitch
    is_array = type in (12, 13)
    return _pack_fields([("base_address", base_address >> 8, 0, 40),
                         ("data_format", data_format, 52, 6), ("num_format", num_format, 58, 4),
                         ("width", width - 1, 64, 14), ("height", height - 1, 78, 14),
                         ("dst_sel_x", dst_sel[0], 96, 3), ("dst_sel_y", dst_sel[1], 99, 3),
                         ("dst_sel_z", dst_sel[2], 102, 3), ("dst_sel_w", dst_sel[3], 105, 3),
                         ("tiling_index", tiling_index, 116, 5), ("type", type, 124, 4),
                         ("depth", depth - 1, 128, 13), ("pitch", pitch - 1, 141, 14),
                         ("last_array", depth - 1 if is_array else 0, 173, 13)], 8, "T#")


def encode_ssharp(clamp=(0, 0, 0), *, force_unnormalized: int = 0, xy_mag_filter: int = 0,
                  xy_min_filter: int = 0, mip_filter: int = 0, min_lod: int = 0,
                  max_lod: int = 0, border_color_type: int = 0) -> list:
    """The 4 dwords of a sampler resource, the bit layout :func:`decode_ssharp` reads: clamp
    modes per axis (0 wrap, 1 mirror, 2 clamp to last texel, ..., 6 border), filters (0 point,
    1 bilinear), LODs in 1/256 units, border colour type (0 transparent black, 1 opaque
    black, 2 opaque white)."""
    return _pack_fields([("clamp_x", clamp[0], 0, 3), ("clamp_y", clamp[1], 3, 3),
                         ("clamp_z", clamp[2], 6, 3),
                         ("force_unnormalized", force_unnormalized, 15, 1),
                         ("min_lod", min_lod, 32, 12), ("max_lod", max_lod, 44, 12),
                         ("xy_mag_filter", xy_mag_filter, 84, 2),
                         ("xy_min_filter", xy_min_filter, 86, 2), ("mip_filter", mip_filter, 90, 2),
                         ("border_color_type", border_color_type, 126, 2)], 4, "S#")
