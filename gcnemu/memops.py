"""Vector memory, LDS/GDS, interpolation and export instructions for the engine.

`subop(enc, name)` (Python, at program build time) reduces a mnemonic to an integer that says
what the access does; the family functions (numba, each reached through a C-callable entry
compiled on first use: `family_address`) carry it out for the active lanes, in lane order
(so per-lane atomics are atomic by construction).

Sources: CLRX's GcnInstrsDs/Mubuf/Mtbuf/Mimg/Vintrp.md and GcnMemHandling.md
(shared/reference/clrx-isa-docs). Rules and choices, family by family:

Global memory (FLAT, MUBUF, MTBUF, MIMG)
    Unmapped memory reads 0 and drops writes (recorded as faults: the seeds ask for a
    well-defined result plus an error). Buffer accesses outside the V# range
    (memory.buffer_address, incl. swizzled buffers) read 0 and drop writes without a fault.

MUBUF / MTBUF formats (GcnMemHandling.md "MUBUF/MTBUF format conversion")
    Data formats 1..14 (8, 16, 8_8, 32, 16_16, 10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10,
    8_8_8_8, 32_32, 16_16_16_16, 32_32_32, 32_32_32_32); names list components from the most
    significant bits, so 10_11_11 is X = bits 0-10, Y = 11-21, Z = 22-31 and 2_10_10_10 is
    X, Y, Z 10 bits each from bit 0 and W = bits 30-31.
    Reads (number format -> register): UNORM c/(2^n-1), SNORM max(c/(2^(n-1)-1), -1),
    SNORM_OGL (2c+1)/(2^n-1), USCALED/SSCALED float(c), each rounded once to f32 (nearest
    even; exact quotient for n <= 16, quotient rounded to f64 first for n = 32);
    UINT zero-, SINT sign-extended; FLOAT: 32-bit as is, 16-bit IEEE half, 11/10-bit unsigned
    floats (5-bit exponent) of the packed float formats, exactly widened.
    Writes: UNORM/SNORM clamp to [0,1]/[-1,1] (NaN -> 0), scale by 2^n-1 / 2^(n-1)-1 and round
    to nearest even; UINT/SINT keep the low n bits; FLOAT 32 as is, 16/11/10-bit by round to
    nearest even (overflow -> infinity, negative -> 0 for the unsigned 11/10-bit floats).
    USCALED/SSCALED/SNORM_OGL writes (no BufW in the table) and FLOAT with 8-bit or 2-bit
    components are invalid: the wave fails with ERR_FORMAT naming the format.
    Components missing from the format read as 0 (X, Y, Z) and 1 (W; 1.0 for float formats);
    then BUFFER_LOAD_FORMAT_* applies the V# DST_SEL (0, 1, R, G, B, A); TBUFFER_* use the
    instruction's dfmt/nfmt and identity selects. A store writes only the components the
    instruction supplies (packed formats by read-modify-write of their dword).
    A lane whose first component is out of range reads 0 for all four before DST_SEL.
    TFE: one more VGPR after the data gets 0, or 1 when an access of the lane hit unmapped
    memory. LDS=1 (buffer_load_ubyte/sbyte/ushort/sshort/dword/format_x): the value, zero-
    extended to a dword as GcnMemHandling.md says, goes to LDS at
    LDS_BASE + M0[15:0] + inst_offset + lane*4 (the AMD Sea Islands manual's formula; CLRX's
    omits inst_offset) instead of VGPRs; beyond the wave's LDS allocation it is dropped.
    buffer_wbinvl1 / _vol: no L1 model yet, the functional memory is always coherent: no-ops.

DS (GcnInstrsDs.md)
    Addresses are aligned down to the access size (b16 &~1, b32 &~3, b64 &~7, b96/b128
    &~15), bytes unaligned. LDS: an access is in range when it lies below min(M0, the
    workgroup's allocation); out of range reads 0 and drops writes. GDS (gds=1): the GDS
    region is the last 64 KiB of the lds array; M0[31:16] is the base, M0[15:0] the size.
    ds_cmpst: VDATA0 is the compare value, VDATA1 the new one (swapped relative to
    buffer/flat cmpswap). src2 ops use A = ADDR (&0x1fffc/0x1fff8 with offset bit 15) and
    B = A + 4 * sign-extended 16-bit delta, per the listing. ds_append/consume: one update per
    wave by popcount(EXEC) of the dword at M0[15:0] + offset (LDS; LLVM passes the pointer in
    M0) or GDS base + offset. ds_swizzle_b32 reads the ADDR register of the source lane.
    ds_condxchg32_rtn_b64 is not described by CLRX: each 32-bit half with bit 31 set stores
    its low 31 bits; the old 64 bits return. ds_gws_* and ds_ordered_count need a
    cross-workgroup scheduler and fail as unimplemented.

MIMG: see image_instruction. VINTRP: see interp_instruction. EXP: see export_instruction.
"""
from __future__ import annotations

import re

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.extending import intrinsic

from . import memory as M
from .jit import call_native, native_address, njit
from .lanes import (flat_gather_1, flat_gather_2, flat_gather_3, flat_gather_4, flat_scatter_1,
                    flat_scatter_2, flat_scatter_3, flat_scatter_4, lds_gather1_1,
                    lds_gather1_2, lds_gather1_3, lds_gather1_4, lds_gather2_1, lds_gather2_2,
                    lds_scatter1_1, lds_scatter1_2, lds_scatter1_3, lds_scatter1_4,
                    lds_scatter2_1, lds_scatter2_2)

# subop layout
K_LOAD, K_STORE, K_ATOMIC, K_LOAD2, K_STORE2, K_SWIZZLE, K_APPEND, K_CONSUME, K_NOP, \
    K_SRC2, K_WRXCHG2, K_LOAD_FORMAT, K_STORE_FORMAT, K_RESINFO, K_UNSUPPORTED, \
    K_INTERP_P1, K_INTERP_P2, K_INTERP_MOV, K_EXPORT, K_SAMPLE = range(20)

# extra atomic ops beyond memory.ATOMIC_*
A_RSUB, A_MSKOR, A_WRAP, A_CONDXCHG = 16, 17, 18, 19

# image_sample/gather4/get_lod flags (subop "size" field of K_SAMPLE)
SF_L, SF_LZ, SF_B, SF_C, SF_D, SF_CL, SF_O, SF_GATHER = 1, 2, 4, 8, 16, 32, 64, 128
SAMPLE_GET_LOD = 1  # K_SAMPLE with the 'sext' bit: image_get_lod

_ATOMIC = {"swap": M.ATOMIC_SWAP, "wrxchg": M.ATOMIC_SWAP, "cmpswap": M.ATOMIC_CMPSWAP,
           "cmpst": M.ATOMIC_CMPSWAP, "add": M.ATOMIC_ADD, "sub": M.ATOMIC_SUB,
           "smin": M.ATOMIC_SMIN, "umin": M.ATOMIC_UMIN, "smax": M.ATOMIC_SMAX,
           "umax": M.ATOMIC_UMAX, "and": M.ATOMIC_AND, "or": M.ATOMIC_OR, "xor": M.ATOMIC_XOR,
           "inc": M.ATOMIC_INC, "dec": M.ATOMIC_DEC, "fcmpswap": M.ATOMIC_FCMPSWAP,
           "fmin": M.ATOMIC_FMIN, "fmax": M.ATOMIC_FMAX, "rsub": A_RSUB, "mskor": A_MSKOR,
           "wrap": A_WRAP, "condxchg32": A_CONDXCHG}

# errors this module raises beyond the engine's (their texts are in engine.ERROR_TEXT)
ERR_FORMAT = 32
ERR_TILED = 33
ERR_RESOURCE = 34


def pack(kind, size=4, count=1, sext=0, aop=0, rtn=0, st64=0, swap_cmp=0):
    return kind | (size << 8) | (count << 16) | (sext << 20) | (aop << 24) | (rtn << 29) | \
        (st64 << 30) | (swap_cmp << 31)


def _ds_subop(name: str) -> int:
    m = re.fullmatch(r"ds_read(2st64|2)?_(b32|b64|b96|b128|i8|u8|i16|u16)", name)
    if m:
        t = m.group(2)
        size = {"i8": 1, "u8": 1, "i16": 2, "u16": 2}.get(t, 4)
        count = {"b64": 2, "b96": 3, "b128": 4}.get(t, 1)
        if m.group(1):
            return pack(K_LOAD2, 4, count, st64=int(m.group(1) == "2st64"))
        return pack(K_LOAD, size, count, sext=int(t in ("i8", "i16")))
    m = re.fullmatch(r"ds_write(2st64|2)?_(b8|b16|b32|b64|b96|b128)", name)
    if m:
        t = m.group(2)
        size = {"b8": 1, "b16": 2}.get(t, 4)
        count = {"b64": 2, "b96": 3, "b128": 4}.get(t, 1)
        if m.group(1):
            return pack(K_STORE2, 4, count, st64=int(m.group(1) == "2st64"))
        return pack(K_STORE, size, count)
    if name == "ds_swizzle_b32":
        return pack(K_SWIZZLE)
    if name == "ds_append":
        return pack(K_APPEND)
    if name == "ds_consume":
        return pack(K_CONSUME)
    if name == "ds_nop":
        return pack(K_NOP)
    if name.startswith("ds_gws") or name == "ds_ordered_count":
        return pack(K_UNSUPPORTED)   # needs a cross-workgroup scheduler
    m = re.fullmatch(r"ds_wrxchg(2st64|2)_rtn_(b32|b64)", name)
    if m:
        return pack(K_WRXCHG2, 4, 2 if m.group(2) == "b64" else 1, rtn=1, st64=int(m.group(1) == "2st64"))
    m = re.fullmatch(r"ds_([a-z0-9]+?)(_src2)?(_rtn)?_([biuf])(32|64|128)", name)
    if m:
        op, src2, rtn, t, bits = m.groups()
        if bits == "128":
            return pack(K_UNSUPPORTED)   # ds_condxchg32_rtn_b128
        if op in ("min", "max"):
            op = {"i": "s", "u": "u", "f": "f", "b": "u"}[t] + op
        if op == "cmpst" and t == "f":
            op = "fcmpswap"
        if src2 and op == "write":
            op = "swap"
        aop = _ATOMIC.get(op)
        if aop is None:
            return pack(K_UNSUPPORTED)
        count = 2 if bits == "64" else 1
        if src2:
            return pack(K_SRC2, 4, count, aop=aop)
        # DS compare-store takes (cmp, src) where buffer/flat cmpswap take (src, cmp)
        return pack(K_ATOMIC, 4, count, aop=aop, rtn=int(bool(rtn)), swap_cmp=int(op in ("cmpst", "fcmpswap")))
    return pack(K_UNSUPPORTED)


def _global_subop(name: str) -> int:
    """FLAT and MUBUF/MTBUF mnemonics (flat_*, buffer_*, tbuffer_*)."""
    body = name.split("_", 1)[1]
    m = re.fullmatch(r"load_(ubyte|sbyte|ushort|sshort|dword|dwordx2|dwordx3|dwordx4)", body)
    if m:
        t = m.group(1)
        size = {"ubyte": 1, "sbyte": 1, "ushort": 2, "sshort": 2}.get(t, 4)
        count = {"dwordx2": 2, "dwordx3": 3, "dwordx4": 4}.get(t, 1)
        return pack(K_LOAD, size, count, sext=int(t in ("sbyte", "sshort")))
    m = re.fullmatch(r"store_(byte|short|dword|dwordx2|dwordx3|dwordx4)", body)
    if m:
        t = m.group(1)
        size = {"byte": 1, "short": 2}.get(t, 4)
        count = {"dwordx2": 2, "dwordx3": 3, "dwordx4": 4}.get(t, 1)
        return pack(K_STORE, size, count)
    m = re.fullmatch(r"(load|store)_format_(x|xy|xyz|xyzw)", body)
    if m:
        return pack(K_LOAD_FORMAT if m.group(1) == "load" else K_STORE_FORMAT, 4, len(m.group(2)))
    m = re.fullmatch(r"atomic_([a-z0-9]+?)(_x2)?", body)
    if m:
        aop = _ATOMIC.get(m.group(1))
        if aop is None:
            return pack(K_UNSUPPORTED)
        return pack(K_ATOMIC, 4, 2 if m.group(2) else 1, aop=aop, rtn=1)
    if body in ("wbinvl1", "wbinvl1_vol", "wbinvl1_sc"):
        return pack(K_NOP)   # no L1 model yet: the functional memory is always coherent
    return pack(K_UNSUPPORTED)


def _image_subop(name: str) -> int:
    if name in ("image_load", "image_load_mip"):
        return pack(K_LOAD_FORMAT, 4, 4, st64=int(name.endswith("_mip")))
    if name in ("image_store", "image_store_mip"):
        return pack(K_STORE_FORMAT, 4, 4, st64=int(name.endswith("_mip")))
    if name == "image_get_resinfo":
        return pack(K_RESINFO, 4, 4)
    m = re.fullmatch(r"image_atomic_([a-z]+)", name)
    if m and m.group(1) in _ATOMIC and m.group(1) != "rsub":
        return pack(K_ATOMIC, 4, 1, aop=_ATOMIC[m.group(1)])
    if name == "image_get_lod":
        return pack(K_SAMPLE, 0, 4, sext=SAMPLE_GET_LOD)
    m = re.fullmatch(r"image_(sample|gather4)((?:_c|_cd|_d|_cl|_l|_lz|_b|_o)*)", name)
    if m:
        flags = SF_GATHER if m.group(1) == "gather4" else 0
        for sfx in m.group(2).split("_")[1:]:
            flags |= {"l": SF_L, "lz": SF_LZ, "b": SF_B, "c": SF_C, "d": SF_D, "cd": SF_D,
                      "cl": SF_CL, "o": SF_O}[sfx]
        return pack(K_SAMPLE, flags, 4)
    return pack(K_UNSUPPORTED)


def subop(enc: str, name: str) -> int:
    """Encode what a memory-family mnemonic does as an integer for the engine."""
    if enc == "DS":
        return _ds_subop(name)
    if enc in ("FLAT", "MUBUF", "MTBUF"):
        return _global_subop(name)
    if enc == "VINTRP":
        return pack({"v_interp_p1_f32": K_INTERP_P1, "v_interp_p2_f32": K_INTERP_P2,
                     "v_interp_mov_f32": K_INTERP_MOV}[name])
    if enc == "EXP":
        return pack(K_EXPORT)
    if enc == "MIMG":
        return _image_subop(name)
    return pack(K_UNSUPPORTED)


# --- data formats (GcnMemHandling.md), shared by MUBUF/MTBUF/MIMG -----------------------------
NF_UNORM, NF_SNORM, NF_USCALED, NF_SSCALED, NF_UINT, NF_SINT, NF_SNORM_OGL, NF_FLOAT = range(8)

#: per data format 0..15: components, bits of each component from bit 0, bytes per element
_FMT_DEF = {1: (8,), 2: (16,), 3: (8, 8), 4: (32,), 5: (16, 16), 6: (11, 11, 10),
            7: (10, 11, 11), 8: (2, 10, 10, 10), 9: (10, 10, 10, 2), 10: (8, 8, 8, 8),
            11: (32, 32), 12: (16, 16, 16, 16), 13: (32, 32, 32), 14: (32, 32, 32, 32)}
FMT_NC = np.zeros(16, np.int64)
FMT_BITS = np.zeros((16, 4), np.int64)
FMT_SHIFT = np.zeros((16, 4), np.int64)
FMT_BYTES = np.zeros(16, np.int64)
for _d, _bits in _FMT_DEF.items():
    FMT_NC[_d] = len(_bits)
    FMT_BYTES[_d] = sum(_bits) // 8
    _s = 0
    for _k, _b in enumerate(_bits):
        FMT_BITS[_d, _k] = _b
        FMT_SHIFT[_d, _k] = _s
        _s += _b
del _d, _bits, _s, _k, _b

DATA_FORMAT_NAMES = {0: "invalid", 1: "8", 2: "16", 3: "8_8", 4: "32", 5: "16_16", 6: "10_11_11",
                     7: "11_11_10", 8: "10_10_10_2", 9: "2_10_10_10", 10: "8_8_8_8", 11: "32_32",
                     12: "16_16_16_16", 13: "32_32_32", 14: "32_32_32_32", 15: "reserved"}
NUM_FORMAT_NAMES = ("unorm", "snorm", "uscaled", "sscaled", "uint", "sint", "snorm_ogl", "float")


def format_error_text(arg: int) -> str:
    """Decode ERR_FORMAT's argument (dfmt | nfmt << 8 | is_store << 16)."""
    d, n, st = arg & 0xFF, (arg >> 8) & 0xFF, (arg >> 16) & 1
    dn = DATA_FORMAT_NAMES.get(d, f"{d}")
    nn = NUM_FORMAT_NAMES[n] if n < 8 else f"{n}"
    return f"data format {dn} with number format {nn} is not supported for {'writes' if st else 'reads'}"


# --- numba side -----------------------------------------------------------------------------
from .engine import (  # noqa: E402  (engine imports this module after defining these)
    ALL_LANES, C_F0, C_F1, C_F2, C_F3, C_F4, C_F5, C_F6, C_F7, C_H, C_IMM, C_K, C_LIT, C_S0,
    ERR_UNIMPLEMENTED, H_DS, H_EXP, H_FLAT, H_MIMG, H_MTBUF, H_MUBUF, H_VINTRP, M0, MASK32, U64,
    WS_LDS_BASE, WS_LDS_INSTS, WS_LDS_SIZE, WS_VBASE, WS_VMEM, WS_VALU, fail, get_exec,
    read_scalar, record_fault, sgpr_ok, vgpr_ok,
)


SHARED_APERTURE_HI = 0x10000000   # flat addresses 0x1000_0000_xxxx_xxxx reach LDS
PRIVATE_APERTURE_HI = 0x20000000  # ... 0x2000_0000_xxxx_xxxx reach the lane's scratch
F32_ONE = U64(0x3F800000)

# Speed of the hot families (DS, FLAT, MUBUF/MTBUF plain loads and stores): numba wraps every
# array argument of a call and every view in atomic NRT incref/decref, which perf showed at
# about 40 % of the time of memory-heavy kernels. So the families but MIMG (image_sample
# allocates) are compiled with _nrt=False, and their per-lane loops index vgpr, lds
# and mem_data directly, aligned dwords through uint32 views, instead of calling _vreg or
# M.mem_load per lane; the helpers remain for faults and rare cases.


@njit
def _sext_bytes(v, size):
    if size == 1:
        return U64(np.int64(np.int8(v & U64(0xFF)))) & MASK32
    return U64(np.int64(np.int16(v & U64(0xFFFF)))) & MASK32


@njit
def _sext_bits(v, bits):
    """Sign-extend the low `bits` of v to int64."""
    m = U64(1) << U64(bits - 1)
    v = v & ((m << U64(1)) - U64(1))
    return np.int64(v ^ m) - np.int64(m)


@njit
def _atomic_ext(old, aop, v, c, nbytes):
    """The DS-only atomic ops (rsub, mskor, wrap); returns the new value."""
    mask = ALL_LANES if nbytes == 8 else MASK32
    if aop == A_RSUB:
        return (v - old) & mask
    if aop == A_MSKOR:
        return ((old & ~v) | c) & mask
    if aop == A_WRAP:
        return (old - v) & mask if old >= v else (old + c) & mask
    return old


@njit
def _lds_read(lds, base, a, nbytes):
    v = U64(0)
    for b in range(nbytes):
        v |= U64(lds[base + a + b]) << U64(8 * b)
    return v


@njit
def _lds_write(lds, base, a, v, nbytes):
    for b in range(nbytes):
        lds[base + a + b] = np.uint8((v >> U64(8 * b)) & U64(0xFF))


@njit
def _lds_atomic_new(old, aop, v, c, nbytes):
    """The value an LDS atomic leaves (memory.atomic_new's ops plus the DS-only ones)."""
    if aop >= 16:
        return _atomic_ext(old, aop, v, c, nbytes)
    new, ok = M.atomic_new(old, aop, v, c, nbytes)
    return new


@njit
def lds_atomic(lds, base, a, aop, v, c, nbytes):
    """Atomic op on LDS bytes [base+a, +nbytes); returns the old value."""
    old = _lds_read(lds, base, a, nbytes)
    _lds_write(lds, base, a, _lds_atomic_new(old, aop, v, c, nbytes), nbytes)
    return old


@njit
def _vreg(vgpr, ws, w, r, l):
    return U64(vgpr[ws[w, WS_VBASE] + r, l])


@njit
def _vset(vgpr, ws, w, r, l, v):
    vgpr[ws[w, WS_VBASE] + r, l] = np.uint32(v & MASK32)


@njit
def _lane_on(ex, l):
    return ((ex >> U64(l)) & U64(1)) != U64(0)


# --- DS -------------------------------------------------------------------------------------
@njit(_nrt=False)   # see the note above _sext_bytes
def ds_instruction(ins, w, sregs, ws, vgpr, lds, scratch):
    sub = ins[C_K]
    kind = sub & 0xFF
    size = (sub >> 8) & 0xFF
    count = (sub >> 16) & 0xF
    sext = (sub >> 20) & 1
    aop = (sub >> 24) & 0x1F
    rtn = (sub >> 29) & 1
    st64 = (sub >> 30) & 1
    swap_cmp = (sub >> 31) & 1
    off0 = ins[C_F0]
    off1 = ins[C_F1]
    gds = ins[C_F2]
    vaddr = ins[C_F3]
    d0 = ins[C_F4]
    d1 = ins[C_F5]
    vdst = ins[C_F6]
    ex = get_exec(sregs, w)
    ws[w, WS_LDS_INSTS] += 1
    if kind == K_UNSUPPORTED:
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
        return
    if kind == K_NOP:
        return
    m0 = np.int64(sregs[w, M0])
    if gds:
        gbase = (m0 >> 16) & 0xFFFF
        base = lds.shape[0] - 65536 + gbase
        limit = min(m0 & 0xFFFF, 65536 - gbase)
    else:
        base = ws[w, WS_LDS_BASE]
        limit = min(m0, ws[w, WS_LDS_SIZE])
    offset16 = off0 | (off1 << 8)
    if kind == K_APPEND or kind == K_CONSUME:
        # one update per wave of the dword at (LDS: M0[15:0] | GDS: base) + offset
        a = (offset16 & ~3) if gds else (((m0 & 0xFFFF) + offset16) & ~3)
        lim = limit if gds else ws[w, WS_LDS_SIZE]
        cnt = U64(0)
        for l in range(64):
            if _lane_on(ex, l):
                cnt += U64(1)
        old = U64(0)
        if a + 4 <= lim:
            old = _lds_read(lds, base, a, 4)
            new = (old + cnt) & MASK32 if kind == K_APPEND else (old - cnt) & MASK32
            _lds_write(lds, base, a, new, 4)
        if vgpr_ok(ws, w, vdst, 1):
            for l in range(64):
                if _lane_on(ex, l):
                    _vset(vgpr, ws, w, vdst, l, old)
        return
    if not vgpr_ok(ws, w, vaddr, 1):
        return
    if kind == K_SWIZZLE:
        if not vgpr_ok(ws, w, vdst, 1):
            return
        src = scratch.view(np.uint64)   # 64 lanes of the source, copied first (vdst may = addr)
        for l in range(64):
            src[l] = _vreg(vgpr, ws, w, vaddr, l)
        for l in range(64):
            if _lane_on(ex, l):
                if offset16 & 0x8000:   # quad permute: 2 bits per lane of each quad
                    s = (l & 0x3C) | ((offset16 >> (2 * (l & 3))) & 3)
                else:                     # bit-masked permute within groups of 32
                    and_m = offset16 & 0x1F
                    or_m = (offset16 >> 5) & 0x1F
                    xor_m = (offset16 >> 10) & 0x1F
                    s = (l & 0x20) | ((((l & 0x1F) & and_m) | or_m) ^ xor_m)
                v = src[s] if _lane_on(ex, s) else U64(0)
                _vset(vgpr, ws, w, vdst, l, v)
        return
    # register ranges
    if kind == K_LOAD and not vgpr_ok(ws, w, vdst, count):
        return
    if kind == K_STORE and not vgpr_ok(ws, w, d0, count):
        return
    if kind == K_LOAD2 or kind == K_WRXCHG2:
        if not vgpr_ok(ws, w, vdst, 2 * count):
            return
    if kind == K_STORE2 or kind == K_WRXCHG2:
        if not (vgpr_ok(ws, w, d0, count) and vgpr_ok(ws, w, d1, count)):
            return
    two_data = aop == M.ATOMIC_CMPSWAP or aop == M.ATOMIC_FCMPSWAP or aop == A_MSKOR or aop == A_WRAP
    if kind == K_ATOMIC:
        if not vgpr_ok(ws, w, d0, count):
            return
        if two_data and not vgpr_ok(ws, w, d1, count):
            return
        if rtn and not vgpr_ok(ws, w, vdst, count):
            return
    if kind == K_LOAD or kind == K_STORE:
        nb = size if size < 4 else 4 * count
        align = nb if nb <= 8 else 16
    else:
        nb = 4 * count
        align = nb
    vb = ws[w, WS_VBASE]
    lds32 = lds[:lds.shape[0] & ~3].view(np.uint32)   # aligned dwords in one access
    for l in range(64):
        if not (ex >> U64(l)) & U64(1):
            continue
        addr = np.int64(vgpr[vb + vaddr, l])
        # the LDS address adder is 32 bits wide: compilers fold a negative base register into
        # a positive offset (e.g. ADDR = -4*lid, offset:252) and rely on the wrap
        if kind == K_LOAD:
            a = ((addr + offset16) & 0xFFFFFFFF) & ~np.int64(align - 1)
            ok = a + nb <= limit
            if size < 4:
                v = U64(0)
                if ok:
                    for b in range(size):
                        v |= U64(lds[base + a + b]) << U64(8 * b)
                if sext:
                    v = _sext_bytes(v, size)
                vgpr[vb + vdst, l] = np.uint32(v & MASK32)
            else:
                for i in range(count):
                    v = U64(0)
                    if ok:
                        p = base + a + 4 * i
                        if p & 3 == 0:
                            v = U64(lds32[p >> 2])
                        else:
                            for b in range(4):
                                v |= U64(lds[p + b]) << U64(8 * b)
                    vgpr[vb + vdst + i, l] = np.uint32(v)
        elif kind == K_STORE:
            a = ((addr + offset16) & 0xFFFFFFFF) & ~np.int64(align - 1)
            if a + nb <= limit:
                if size < 4:
                    v = U64(vgpr[vb + d0, l])
                    for b in range(size):
                        lds[base + a + b] = np.uint8((v >> U64(8 * b)) & U64(0xFF))
                else:
                    for i in range(count):
                        v = vgpr[vb + d0 + i, l]
                        p = base + a + 4 * i
                        if p & 3 == 0:
                            lds32[p >> 2] = v
                        else:
                            for b in range(4):
                                lds[p + b] = np.uint8((v >> np.uint32(8 * b)) & np.uint32(0xFF))
        elif kind == K_LOAD2 or kind == K_STORE2 or kind == K_WRXCHG2:
            scale = nb * (64 if st64 else 1)
            for k in range(2):
                a = ((addr + (off0 if k == 0 else off1) * scale) & 0xFFFFFFFF) & ~np.int64(nb - 1)
                ok = a + nb <= limit
                src = d0 if k == 0 else d1
                for i in range(count):
                    p = base + a + 4 * i
                    if kind != K_STORE2:   # K_LOAD2, and the old value of K_WRXCHG2
                        v = U64(0)
                        if ok:
                            if p & 3 == 0:
                                v = U64(lds32[p >> 2])
                            else:
                                for b in range(4):
                                    v |= U64(lds[p + b]) << U64(8 * b)
                        vgpr[vb + vdst + k * count + i, l] = np.uint32(v)
                    if kind != K_LOAD2 and ok:
                        sv = vgpr[vb + src + i, l]
                        if p & 3 == 0:
                            lds32[p >> 2] = sv
                        else:
                            for b in range(4):
                                lds[p + b] = np.uint8((sv >> np.uint32(8 * b)) & np.uint32(0xFF))
        elif kind == K_SRC2:
            # A = ADDR (&0x1fffc with offset[15]); B = A + 4 * 16-bit signed delta (see listing)
            if offset16 & 0x8000:
                a = addr & (0x1FFFF & ~(nb - 1))
                delta = (addr >> 17) & 0x7FFF
                if addr & 0x80000000:
                    delta -= 1 << 15
            else:
                a = addr & ~np.int64(nb - 1)
                delta = offset16 & 0x7FFF
                if offset16 & 0x4000:
                    delta -= 1 << 15
            b = (a + 4 * delta) & ~np.int64(nb - 1)
            if a + nb <= limit and b >= 0 and b + nb <= limit:
                v = _lds_read(lds, base, b, nb)
                lds_atomic(lds, base, a, aop, v, U64(0), nb)
        else:  # K_ATOMIC
            a = ((addr + offset16) & 0xFFFFFFFF) & ~np.int64(nb - 1)
            v = U64(vgpr[vb + d0, l])
            c = U64(0)
            if count == 2:
                v |= U64(vgpr[vb + d0 + 1, l]) << U64(32)
            if two_data:
                c = U64(vgpr[vb + d1, l])
                if count == 2:
                    c |= U64(vgpr[vb + d1 + 1, l]) << U64(32)
                if swap_cmp:
                    v, c = c, v
            old = U64(0)
            if a + nb <= limit:
                p = base + a
                if aop == A_CONDXCHG:
                    for b in range(8):
                        old |= U64(lds[p + b]) << U64(8 * b)
                    for half in range(2):
                        dv = (v >> U64(32 * half)) & MASK32
                        if dv >> U64(31):
                            dv &= U64(0x7FFFFFFF)
                            for b in range(4):
                                lds[p + 4 * half + b] = np.uint8((dv >> U64(8 * b)) & U64(0xFF))
                else:
                    for b in range(nb):
                        old |= U64(lds[p + b]) << U64(8 * b)
                    new = _lds_atomic_new(old, aop, v, c, nb)
                    for b in range(nb):
                        lds[p + b] = np.uint8((new >> U64(8 * b)) & U64(0xFF))
            if rtn:
                vgpr[vb + vdst, l] = np.uint32(old & MASK32)
                if count == 2:
                    vgpr[vb + vdst + 1, l] = np.uint32(old >> U64(32))


# --- LDS dword row kernels (the engine's DS fast path) ---------------------------------------
# The dword loads and stores that LDS-heavy kernels are made of (ds_read/write_b32..b128,
# ds_read2/write2(st64)_b32/b64, not GDS) run straight from engine.run_wave: the decoder picks
# one of the compiled row kernels below for the instruction and precomputes its operands
# (lds_row_form), and the engine calls it with the wave's rows, LDS window and M0 limit. Each
# is one whole-row intrinsic of gcnemu/lanes.py: every lane's address and range check as
# vectors, the loads or stores lane by lane in lane order without branches, results written
# by one masked store per row. Same semantics as ds_instruction's lane loop, which runs
# everything else (and these when the wave's LDS base is not 4-aligned): 32-bit address wrap,
# alignment mask, out of range (a + nb > limit) reads 0 / drops the write, all addresses read
# before the first result is written (the destination may overlap the address).
#
# kernel(row_a, row_b, lds, addr_row, uo0, uo1, amask, ulim, exec): row_a is the destination
# (loads) or DATA0 row (stores), row_b the DATA1 row (ds_write2), lds the byte address of the
# wave's 4-aligned LDS window, ulim the limit min(M0, LDS size) in bytes.

def _lds_read1_1(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_gather1_1(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read1_2(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_gather1_2(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read1_3(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_gather1_3(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read1_4(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_gather1_4(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read2_1(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_gather2_1(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read2_2(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_gather2_2(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_write1_1(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_scatter1_1(lds, src, ra, ra, uo0, uo1, amask, ulim, ex)


def _lds_write1_2(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_scatter1_2(lds, src, ra, ra, uo0, uo1, amask, ulim, ex)


def _lds_write1_3(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_scatter1_3(lds, src, ra, ra, uo0, uo1, amask, ulim, ex)


def _lds_write1_4(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_scatter1_4(lds, src, ra, ra, uo0, uo1, amask, ulim, ex)


def _lds_write2_1(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_scatter2_1(lds, src, ra, rb, uo0, uo1, amask, ulim, ex)


def _lds_write2_2(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    lds_scatter2_2(lds, src, ra, rb, uo0, uo1, amask, ulim, ex)


_LDS_ROW_KERNELS = {(K_LOAD, 1): _lds_read1_1, (K_LOAD, 2): _lds_read1_2,
                    (K_LOAD, 3): _lds_read1_3, (K_LOAD, 4): _lds_read1_4,
                    (K_LOAD2, 1): _lds_read2_1, (K_LOAD2, 2): _lds_read2_2,
                    (K_STORE, 1): _lds_write1_1, (K_STORE, 2): _lds_write1_2,
                    (K_STORE, 3): _lds_write1_3, (K_STORE, 4): _lds_write1_4,
                    (K_STORE2, 1): _lds_write2_1, (K_STORE2, 2): _lds_write2_2}
_LDS_ROW_SIGNATURE = types.void(*([types.uint64] * 9))


def lds_row_form(sub: int, off0: int, off1: int, gds: int, vaddr: int, data0: int, data1: int,
                 vdst: int):
    """The engine's fast form of a DS instruction (subop ``sub``, raw fields), or None when it
    has none: (kernel address, row_a, row_b, uo0, uo1, amask, VGPR end), rows and offsets as
    the kernels above take them; the kernel is compiled (or loaded from the disk cache) on
    first use. VGPR end is the allocation the instruction's rows need."""
    kind, size, count, st64 = sub & 0xFF, (sub >> 8) & 0xFF, (sub >> 16) & 0xF, (sub >> 30) & 1
    if gds or (kind, count) not in _LDS_ROW_KERNELS or size < 4:
        return None
    fn = _LDS_ROW_KERNELS[(kind, count)]
    if kind in (K_LOAD, K_STORE):
        # offset16 for both rows; the alignment of ds_read/write_b96/b128 is 16 bytes
        uo0 = uo1 = off0 | (off1 << 8)
        amask = 0xFFFFFFFF & ~((4 * count if count <= 2 else 16) - 1)
    else:
        scale = 4 * count * (64 if st64 else 1)
        uo0, uo1 = off0 * scale, off1 * scale
        amask = 0xFFFFFFFF & ~(4 * count - 1)
    if kind == K_LOAD:
        ra, rb, end = vdst, vdst, vdst + count
    elif kind == K_LOAD2:
        ra, rb, end = vdst, vdst, vdst + 2 * count
    else:
        ra, rb = data0, (data1 if kind == K_STORE2 else data0)
        end = max(data0, rb) + count
    end = max(end, vaddr + 1)
    addr = native_address(fn, _LDS_ROW_SIGNATURE)
    return addr, ra, rb, uo0, uo1, amask, end


def _row_kernel_call(name, returns):
    """An intrinsic that calls the row kernel at its first argument (an address from
    lds_row_form / flat_row_form) with the nine others as 64-bit integers; returns the
    kernel's uint64 when ``returns``."""
    def call(typingctx, addr, a1, a2, a3, a4, a5, a6, a7, a8, a9):
        args = (addr, a1, a2, a3, a4, a5, a6, a7, a8, a9)
        sig = (types.uint64 if returns else types.void)(*args)

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            r = call_native(builder, args[0], [builder.sext(a, i64) if a.type.width < 64 else a
                                               for a in args[1:]], i64 if returns else None)
            return r if returns else context.get_dummy_value()
        return sig, codegen
    call.__name__ = name
    return intrinsic(call)


#: call_lds_rows(addr, row_a, row_b, lds, addr_row, uo0, uo1, amask, ulim, exec)
call_lds_rows = _row_kernel_call("call_lds_rows", False)


# --- FLAT dword row kernels (the engine's FLAT fast path) -------------------------------------
# flat_load/store_dword..dwordx4 run straight from engine.run_wave through these kernels
# (flat_row_form), one whole-row intrinsic each (lanes.flat_gather_* / flat_scatter_*), which
# run the access when every active lane is in the GPU heap, mapped and 4-aligned, and else
# do nothing and return the mask of the lanes that are not: the engine then runs the
# instruction through flat_instruction (lane by lane: the scratch aperture, LDS, faults).
#
# kernel(row, addr_row, data, mapped, ubase, dlim, page_shift, private_hi, exec) -> slow lanes

def _flat_read_1(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return flat_gather_1(row, src, data, mapped, ubase, dlim, ps, priv, ex)


def _flat_read_2(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return flat_gather_2(row, src, data, mapped, ubase, dlim, ps, priv, ex)


def _flat_read_3(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return flat_gather_3(row, src, data, mapped, ubase, dlim, ps, priv, ex)


def _flat_read_4(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return flat_gather_4(row, src, data, mapped, ubase, dlim, ps, priv, ex)


def _flat_write_1(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return flat_scatter_1(src, row, data, mapped, ubase, dlim, ps, priv, ex)


def _flat_write_2(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return flat_scatter_2(src, row, data, mapped, ubase, dlim, ps, priv, ex)


def _flat_write_3(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return flat_scatter_3(src, row, data, mapped, ubase, dlim, ps, priv, ex)


def _flat_write_4(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return flat_scatter_4(src, row, data, mapped, ubase, dlim, ps, priv, ex)


_FLAT_ROW_KERNELS = {(K_LOAD, 1): _flat_read_1, (K_LOAD, 2): _flat_read_2,
                     (K_LOAD, 3): _flat_read_3, (K_LOAD, 4): _flat_read_4,
                     (K_STORE, 1): _flat_write_1, (K_STORE, 2): _flat_write_2,
                     (K_STORE, 3): _flat_write_3, (K_STORE, 4): _flat_write_4}
_FLAT_ROW_SIGNATURE = types.uint64(*([types.uint64] * 9))


def flat_row_form(sub: int, vaddr: int, vdata: int, vdst: int):
    """The engine's fast form of a FLAT instruction (subop ``sub``, raw fields), or None when it
    has none: (kernel address, row, bytes per lane, VGPR end): row is the destination (loads) or
    data (stores), VGPR end the allocation the instruction's rows need."""
    kind, size, count = sub & 0xFF, (sub >> 8) & 0xFF, (sub >> 16) & 0xF
    if size < 4 or (kind, count) not in _FLAT_ROW_KERNELS:
        return None
    row = vdst if kind == K_LOAD else vdata
    fn = native_address(_FLAT_ROW_KERNELS[(kind, count)], _FLAT_ROW_SIGNATURE)
    return fn, row, 4 * count, max(row + count, vaddr + 2)


#: call_flat_rows(addr, row, addr_row, data, mapped, ubase, dlim, page_shift, private_hi,
#: exec) -> the slow lanes
call_flat_rows = _row_kernel_call("call_flat_rows", True)


# --- FLAT -----------------------------------------------------------------------------------
@njit
def _global_addr_space(addr):
    """0 global, 1 LDS (shared aperture), 2 scratch (private aperture)."""
    hi = U64(addr) >> U64(32)
    if hi == U64(SHARED_APERTURE_HI):
        return 1
    if hi == U64(PRIVATE_APERTURE_HI):
        return 2
    return 0


@njit(inline="always")
def _flat_lane_body(l, kind, size, count, sext, aop, glc, vaddr, vdata, vdst, nb, span, ws, w,
                    vgpr, lds, mem_data, mem_mapped, mem_base, faults, d32, ubase, dlim, lbase,
                    lsize, vb):
    """One active lane of a FLAT instruction, in full (the general path). Inlined into
    flat_instruction's lane loop for the other kinds (atomics, bytes, shorts); the dword fast
    loops call it out of line, through _flat_lane, for the lanes they do not take."""
    ua = U64(vgpr[vb + vaddr, l]) | (U64(vgpr[vb + vaddr + 1, l]) << U64(32))
    if (ua >> U64(32)) == U64(PRIVATE_APERTURE_HI):
        ua = U64(scratch_lane_address(ws, w, l, np.int64(ua & MASK32)))
    addr = np.int64(ua)
    # fast path: the lane's whole access (<= 16 bytes, so at most two pages) is backed
    # and mapped (LDS-aperture addresses lie far beyond the backing array); otherwise the
    # per-dword code below finds and records the faults
    if ua >= ubase and ua - ubase <= dlim:
        o = np.int64(ua - ubase)
        if mem_mapped[o >> M.PAGE_SHIFT] != 0 and mem_mapped[(o + span - 1) >> M.PAGE_SHIFT] != 0:
            if kind == K_LOAD:
                if nb == 4 and (o & 3) == 0:
                    for i in range(count):
                        vgpr[vb + vdst + i, l] = d32[(o >> 2) + i]
                    return
                for i in range(count):
                    v = U64(0)
                    for b in range(nb):
                        v |= U64(mem_data[o + 4 * i + b]) << U64(8 * b)
                    if sext:
                        v = _sext_bytes(v, size)
                    vgpr[vb + vdst + i, l] = np.uint32(v)
            elif kind == K_STORE:
                if nb == 4 and (o & 3) == 0:
                    for i in range(count):
                        d32[(o >> 2) + i] = vgpr[vb + vdata + i, l]
                    return
                for i in range(count):
                    v = vgpr[vb + vdata + i, l]
                    for b in range(nb):
                        mem_data[o + 4 * i + b] = np.uint8((v >> np.uint32(8 * b)) & np.uint32(0xFF))
            else:  # atomic
                nbytes = 4 * count
                v = U64(vgpr[vb + vdata, l])
                if count == 2:
                    v |= U64(vgpr[vb + vdata + 1, l]) << U64(32)
                c = U64(0)
                if aop == M.ATOMIC_CMPSWAP or aop == M.ATOMIC_FCMPSWAP:
                    c = U64(vgpr[vb + vdata + count, l])
                    if count == 2:
                        c |= U64(vgpr[vb + vdata + 3, l]) << U64(32)
                # thread-safe (compare-and-swap): kernels whose atomics commute run on
                # several workers
                old, ok = M.atomic_rmw(mem_data, o, aop, v, c, nbytes)
                if not ok:
                    record_fault(ws, w, faults, addr, l, 1)
                if glc:
                    vgpr[vb + vdst, l] = np.uint32(old & MASK32)
                    if count == 2:
                        vgpr[vb + vdst + 1, l] = np.uint32(old >> U64(32))
            return
    space = _global_addr_space(addr)   # 0 global or 1 LDS (scratch is mapped above)
    if kind == K_LOAD:
        for i in range(count):
            if space == 1:
                a = addr & 0xFFFFFFFF
                v = _lds_read(lds, lbase, a + 4 * i, nb) if a + 4 * i + nb <= lsize else U64(0)
            else:
                v, ok = M.mem_load(mem_data, mem_mapped, mem_base, addr + 4 * i, nb)
                if not ok:
                    record_fault(ws, w, faults, addr + 4 * i, l, 0)
            if sext:
                v = _sext_bytes(v, size)
            _vset(vgpr, ws, w, vdst + i, l, v)
    elif kind == K_STORE:
        for i in range(count):
            v = _vreg(vgpr, ws, w, vdata + i, l)
            if space == 1:
                a = addr & 0xFFFFFFFF
                if a + 4 * i + nb <= lsize:
                    _lds_write(lds, lbase, a + 4 * i, v, nb)
            else:
                if not M.mem_store(mem_data, mem_mapped, mem_base, addr + 4 * i, v, nb):
                    record_fault(ws, w, faults, addr + 4 * i, l, 1)
    else:  # atomic
        nbytes = 4 * count
        v = _vreg(vgpr, ws, w, vdata, l)
        if count == 2:
            v |= _vreg(vgpr, ws, w, vdata + 1, l) << U64(32)
        c = U64(0)
        if aop == M.ATOMIC_CMPSWAP or aop == M.ATOMIC_FCMPSWAP:
            c = _vreg(vgpr, ws, w, vdata + count, l)
            if count == 2:
                c |= _vreg(vgpr, ws, w, vdata + 3, l) << U64(32)
        if space == 1:
            a = addr & 0xFFFFFFFF
            old = lds_atomic(lds, lbase, a, aop, v, c, nbytes) if a + nbytes <= lsize else U64(0)
        else:
            old, ok = M.mem_atomic(mem_data, mem_mapped, mem_base, addr, aop, v, c, nbytes)
            if not ok:
                record_fault(ws, w, faults, addr, l, 1)
        if glc:
            _vset(vgpr, ws, w, vdst, l, old & MASK32)
            if count == 2:
                _vset(vgpr, ws, w, vdst + 1, l, old >> U64(32))


@njit
def _flat_lane(l, kind, size, count, sext, aop, glc, vaddr, vdata, vdst, nb, span, ws, w, vgpr,
               lds, mem_data, mem_mapped, mem_base, faults, d32, ubase, dlim, lbase, lsize, vb):
    _flat_lane_body(l, kind, size, count, sext, aop, glc, vaddr, vdata, vdst, nb, span, ws, w,
                    vgpr, lds, mem_data, mem_mapped, mem_base, faults, d32, ubase, dlim, lbase,
                    lsize, vb)


# The dword store loop of flat_instruction (flat_store_dword[xN] with a lane that is not
# fast; the loads and all-fast stores take lanes.flat_gather_*/flat_scatter_*), inlined with
# a constant n so the row loops unroll; unsigned indices (no negative-index fix-ups). A lane
# takes the fast path when its 64-bit address is not in the private aperture, lies in the
# backing array 4-aligned with its whole access there, and the access's first and last pages
# are mapped (LDS-aperture addresses lie far beyond the backing array); any other lane goes,
# in lane order, through _flat_lane (faults, scratch, LDS, unaligned dwords).
@njit(inline="always")
def _flat_dword_loop(kind, size, count, sext, aop, glc, vaddr, vdata, vdst, nb,
                     span, ws, w, vgpr, lds, mem_data, mem_mapped, mem_base, faults, d32,
                     ubase, dlim, lbase, lsize, vb, ex, n):
    ra = U64(vb + vaddr)
    rd = U64(vb + vdata)
    ulast = U64(4 * n - 1)
    ups = U64(M.PAGE_SHIFT)
    priv = U64(PRIVATE_APERTURE_HI)
    for l in range(64):
        ul = U64(l)
        if (ex >> ul) & U64(1):
            ua = U64(vgpr[ra, ul]) | (U64(vgpr[ra + U64(1), ul]) << U64(32))
            o = ua - ubase
            if ((ua >> U64(32)) != priv and ua >= ubase and o <= dlim and (o & U64(3)) == U64(0)
                    and mem_mapped[o >> ups] != 0 and mem_mapped[(o + ulast) >> ups] != 0):
                q = o >> U64(2)
                for i in range(n):
                    ui = U64(i)
                    d32[q + ui] = vgpr[rd + ui, ul]
            else:
                _flat_lane(l, kind, size, count, sext, aop, glc, vaddr, vdata, vdst, nb, span,
                           ws, w, vgpr, lds, mem_data, mem_mapped, mem_base, faults, d32, ubase,
                           dlim, lbase, lsize, vb)


@njit(_nrt=False)   # see the note above _sext_bytes
def flat_instruction(ins, w, sregs, ws, vgpr, lds, mem_data, mem_mapped, mem_base, faults):
    sub = ins[C_K]
    kind = sub & 0xFF
    size = (sub >> 8) & 0xFF
    count = (sub >> 16) & 0xF
    sext = (sub >> 20) & 1
    aop = (sub >> 24) & 0x1F
    glc = ins[C_F0]
    vaddr = ins[C_F2]
    vdata = ins[C_F3]
    vdst = ins[C_F5]
    ex = get_exec(sregs, w)
    ws[w, WS_VMEM] += 1
    if kind == K_UNSUPPORTED:
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
        return
    if kind == K_NOP:
        return
    if not vgpr_ok(ws, w, vaddr, 2):
        return
    ndata = count if kind != K_ATOMIC else count * (2 if aop == M.ATOMIC_CMPSWAP or aop == M.ATOMIC_FCMPSWAP else 1)
    if kind != K_LOAD and not vgpr_ok(ws, w, vdata, ndata):
        return
    if (kind == K_LOAD or (kind == K_ATOMIC and glc)) and not vgpr_ok(ws, w, vdst, count):
        return
    lbase = ws[w, WS_LDS_BASE]
    lsize = ws[w, WS_LDS_SIZE]
    vb = ws[w, WS_VBASE]
    nb = size if size < 4 else 4         # bytes per dword access
    span = np.int64(nb if kind != K_ATOMIC else 4 * count) + (4 * (count - 1) if kind != K_ATOMIC else 0)
    ubase = U64(mem_base)
    dlim = U64(mem_data.shape[0]) - U64(span)
    d32 = mem_data[:mem_data.shape[0] & ~3].view(np.uint32)
    if nb == 4 and (kind == K_LOAD or kind == K_STORE):
        # the row intrinsics' operands (a backing array shorter than one access: every lane
        # takes the lane-by-lane path)
        whole = U64(mem_data.shape[0]) >= U64(span)
        pv = U64(vgpr.ctypes.data)
        src = pv + U64(vb + vaddr) * U64(256)
        pd = U64(mem_data.ctypes.data)
        pm = U64(mem_mapped.ctypes.data)
        ups = U64(M.PAGE_SHIFT)
        priv = U64(PRIVATE_APERTURE_HI)
        slow = ex
        if kind == K_LOAD:
            # all lanes fast: the row loads of lanes.flat_gather_*; any other lane: the whole
            # load lane by lane below (the gather wrote nothing)
            if whole:
                dst = pv + U64(vb + vdst) * U64(256)
                if count == 1:
                    slow = flat_gather_1(dst, src, pd, pm, ubase, dlim, ups, priv, ex)
                elif count == 2:
                    slow = flat_gather_2(dst, src, pd, pm, ubase, dlim, ups, priv, ex)
                elif count == 3:
                    slow = flat_gather_3(dst, src, pd, pm, ubase, dlim, ups, priv, ex)
                else:
                    slow = flat_gather_4(dst, src, pd, pm, ubase, dlim, ups, priv, ex)
            if slow != U64(0):
                for l in range(64):
                    if (ex >> U64(l)) & U64(1):
                        _flat_lane(l, kind, size, count, sext, aop, glc, vaddr, vdata, vdst, nb,
                                   span, ws, w, vgpr, lds, mem_data, mem_mapped, mem_base,
                                   faults, d32, ubase, dlim, lbase, lsize, vb)
        else:
            # all active lanes fast: one branch-free store loop in lane order (see
            # lanes.flat_scatter_*); any other lane: the whole store lane by lane below
            if whole:
                dat = pv + U64(vb + vdata) * U64(256)
                if count == 1:
                    slow = flat_scatter_1(src, dat, pd, pm, ubase, dlim, ups, priv, ex)
                elif count == 2:
                    slow = flat_scatter_2(src, dat, pd, pm, ubase, dlim, ups, priv, ex)
                elif count == 3:
                    slow = flat_scatter_3(src, dat, pd, pm, ubase, dlim, ups, priv, ex)
                else:
                    slow = flat_scatter_4(src, dat, pd, pm, ubase, dlim, ups, priv, ex)
            if slow != U64(0):
                if count == 1:
                    _flat_dword_loop(kind, size, count, sext, aop, glc, vaddr, vdata,
                                     vdst, nb, span, ws, w, vgpr, lds, mem_data, mem_mapped,
                                     mem_base, faults, d32, ubase, dlim, lbase, lsize, vb, ex, 1)
                elif count == 2:
                    _flat_dword_loop(kind, size, count, sext, aop, glc, vaddr, vdata,
                                     vdst, nb, span, ws, w, vgpr, lds, mem_data, mem_mapped,
                                     mem_base, faults, d32, ubase, dlim, lbase, lsize, vb, ex, 2)
                elif count == 3:
                    _flat_dword_loop(kind, size, count, sext, aop, glc, vaddr, vdata,
                                     vdst, nb, span, ws, w, vgpr, lds, mem_data, mem_mapped,
                                     mem_base, faults, d32, ubase, dlim, lbase, lsize, vb, ex, 3)
                else:
                    _flat_dword_loop(kind, size, count, sext, aop, glc, vaddr, vdata,
                                     vdst, nb, span, ws, w, vgpr, lds, mem_data, mem_mapped,
                                     mem_base, faults, d32, ubase, dlim, lbase, lsize, vb, ex, 4)
        return
    for l in range(64):
        if (ex >> U64(l)) & U64(1):
            _flat_lane_body(l, kind, size, count, sext, aop, glc, vaddr, vdata, vdst, nb, span,
                            ws, w, vgpr, lds, mem_data, mem_mapped, mem_base, faults, d32,
                            ubase, dlim, lbase, lsize, vb)


from .engine import WS_SCRATCH_BASE, WS_SCRATCH_WAVE  # noqa: E402


@njit
def scratch_lane_address(ws, w, lane, offset):
    return np.int64(M.scratch_address(ws[w, WS_SCRATCH_BASE], ws[w, WS_SCRATCH_WAVE], lane, offset))


# --- number/data format conversion ----------------------------------------------------------
@njit
def _rne_shift(x, s):
    """Round the unsigned integer x / 2**s to nearest, ties to even (s >= 0)."""
    if s <= 0:
        return x
    if s > 62:
        return U64(0)
    q = x >> U64(s)
    rem = x & ((U64(1) << U64(s)) - U64(1))
    half = U64(1) << U64(s - 1)
    if rem > half or (rem == half and (q & U64(1)) != U64(0)):
        q += U64(1)
    return q


@njit
def _rne_f64(v):
    """Round a non-negative float64 to the nearest integer, ties to even."""
    f = np.floor(v)
    d = v - f
    if d > 0.5 or (d == 0.5 and (np.int64(f) & 1) == 1):
        f += 1.0
    return f


@njit
def small_float_to_f32(raw, mbits, signed):
    """A 5-bit-exponent float (half: mbits 10, signed; 11/10-bit: mbits 6/5, unsigned) -> f32 bits."""
    sign = U64(0)
    if signed:
        sign = ((raw >> U64(5 + mbits)) & U64(1)) << U64(31)
    e = np.int64((raw >> U64(mbits)) & U64(31))
    m = raw & ((U64(1) << U64(mbits)) - U64(1))
    if e == 31:
        return sign | U64(0x7F800000) | (m << U64(23 - mbits))
    if e == 0:
        if m == U64(0):
            return sign
        f = np.float32(np.float64(m) * 2.0 ** (-14 - mbits))   # exact
        return sign | U64(M.f32_to_bits(f))
    return sign | (U64(e - 15 + 127) << U64(23)) | (m << U64(23 - mbits))


@njit
def f32_to_small_float(b, mbits, signed):
    """f32 bits -> 5-bit-exponent float bits, round to nearest even; overflow -> infinity;
    negative -> 0 for unsigned formats; NaN -> quiet NaN."""
    sign = (b >> U64(31)) & U64(1)
    e32 = np.int64((b >> U64(23)) & U64(0xFF))
    m32 = b & U64(0x7FFFFF)
    sbit = U64(5 + mbits)
    inf = U64(31) << U64(mbits)
    if e32 == 255 and m32 != U64(0):
        r = inf | (U64(1) << U64(mbits - 1))
        return (r | (sign << sbit)) if signed else r
    if sign and not signed:
        return U64(0)
    sg = (sign << sbit) if signed else U64(0)
    if e32 == 255:
        return sg | inf
    if e32 == 0:
        return sg            # f32 denormals are far below the smallest 5-bit-exponent denormal
    sig = m32 | U64(0x800000)  # 24 bits
    e = e32 - 127 + 15
    if e >= 1:
        r = _rne_shift(sig, 23 - mbits)
        if r >= (U64(2) << U64(mbits)):
            r >>= U64(1)
            e += 1
        if e >= 31:
            return sg | inf
        return sg | (U64(e) << U64(mbits)) | (r & ((U64(1) << U64(mbits)) - U64(1)))
    r = _rne_shift(sig, 23 - mbits + 1 - e)
    return sg | r            # may round up into the smallest normal: the encoding is continuous


@njit
def fmt_valid(dfmt, nfmt, is_store):
    if dfmt < 1 or dfmt > 14 or nfmt > 7:
        return False
    if is_store and (nfmt == NF_USCALED or nfmt == NF_SSCALED or nfmt == NF_SNORM_OGL):
        return False
    if nfmt == NF_FLOAT:
        for k in range(FMT_NC[dfmt]):
            b = FMT_BITS[dfmt, k]
            if b != 32 and b != 16 and b != 11 and b != 10:
                return False
    return True


@njit
def fmt_one(nfmt):
    return U64(1) if nfmt == NF_UINT or nfmt == NF_SINT else F32_ONE


@njit
def decode_component(raw, bits, nfmt):
    """Raw component bits -> the 32-bit register value (GcnMemHandling.md number formats)."""
    if nfmt == NF_UINT:
        return raw
    if nfmt == NF_SINT:
        return U64(_sext_bits(raw, bits)) & MASK32
    if nfmt == NF_FLOAT:
        if bits == 32:
            return raw
        if bits == 16:
            return small_float_to_f32(raw, 10, True)
        return small_float_to_f32(raw, bits - 5, False)
    d = np.float64((U64(1) << U64(bits)) - U64(1))
    if nfmt == NF_UNORM:
        f = np.float64(raw) / d
    elif nfmt == NF_SNORM:
        f = np.float64(_sext_bits(raw, bits)) / np.float64((U64(1) << U64(bits - 1)) - U64(1))
        if f < -1.0:
            f = -1.0
    elif nfmt == NF_USCALED:
        f = np.float64(raw)
    elif nfmt == NF_SSCALED:
        f = np.float64(_sext_bits(raw, bits))
    else:  # SNORM_OGL
        f = (2.0 * np.float64(_sext_bits(raw, bits)) + 1.0) / d
    return U64(M.f32_to_bits(np.float32(f)))


@njit
def encode_component(v, bits, nfmt):
    """32-bit register value -> raw component bits (writes)."""
    mask = (U64(1) << U64(bits)) - U64(1)
    if nfmt == NF_UINT or nfmt == NF_SINT:
        return v & mask
    if nfmt == NF_FLOAT:
        if bits == 32:
            return v
        if bits == 16:
            return f32_to_small_float(v, 10, True)
        return f32_to_small_float(v, bits - 5, False)
    f = np.float64(M.bits_to_f32(v))
    if f != f:
        return U64(0)
    if nfmt == NF_UNORM:
        f = min(max(f, 0.0), 1.0)
        return U64(_rne_f64(f * np.float64(mask))) & mask
    # SNORM
    f = min(max(f, -1.0), 1.0)
    s = np.float64((U64(1) << U64(bits - 1)) - U64(1))
    x = f * s
    r = _rne_f64(x) if x >= 0 else -_rne_f64(-x)
    return U64(np.int64(r)) & mask


@njit
def _select(vals, sel, one):
    if sel == 1:
        return one
    if sel >= 4:
        return vals[sel - 4]
    return U64(0)


# --- MUBUF / MTBUF --------------------------------------------------------------------------
@njit(_nrt=False)   # see the note above _sext_bytes
def buffer_instruction(ins, w, sregs, ws, vgpr, lds, mem_data, mem_mapped, mem_base, faults,
                       is_tbuffer, scratch):
    """MUBUF and MTBUF: address from the V# in four SGPRs, per lane, with the range rule."""
    sub = ins[C_K]
    kind = sub & 0xFF
    size = (sub >> 8) & 0xFF
    count = (sub >> 16) & 0xF
    sext = (sub >> 20) & 1
    aop = (sub >> 24) & 0x1F
    offen = ins[C_F0]
    idxen = ins[C_F1]
    glc = ins[C_F2]
    addr64 = ins[C_F3]
    vaddr = ins[C_F5]
    vdata = ins[C_F6]
    srsrc = ins[C_F7] * 4
    tfe = ins[C_LIT] & 0xFF
    to_lds = 0 if is_tbuffer else ins[C_F4]
    ex = get_exec(sregs, w)
    ws[w, WS_VMEM] += 1
    if kind == K_UNSUPPORTED:
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
        return
    if kind == K_NOP:
        return
    if to_lds and (tfe or count != 1 or not (kind == K_LOAD or kind == K_LOAD_FORMAT)):
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])   # lds=1 is defined for single-dword loads only
        return
    if not sgpr_ok(ws, w, srsrc, 4):
        return
    w0 = U64(sregs[w, srsrc])
    w1 = U64(sregs[w, srsrc + 1])
    w2 = U64(sregs[w, srsrc + 2])
    w3 = U64(sregs[w, srsrc + 3])
    base, stride, swizzle, num_records, element_size, index_stride, add_tid = \
        M.vsharp_fields(w0, w1, w2, w3)
    soffset = read_scalar(sregs, ws, w, ins[C_S0], 1, 0, False)
    inst_offset = ins[C_IMM]
    nva = 2 if addr64 else (offen + idxen)
    if nva > 0 and not vgpr_ok(ws, w, vaddr, nva):
        return
    is_format = kind == K_LOAD_FORMAT or kind == K_STORE_FORMAT
    is_load = kind == K_LOAD or kind == K_LOAD_FORMAT
    dfmt = 4
    nfmt = NF_UINT
    dsel = np.int64(0xFAC)   # identity: 4 | 5 << 3 | 6 << 6 | 7 << 9
    if is_format:
        if is_tbuffer:
            dfmt = ins[C_F4]
            nfmt = (ins[C_LIT] >> 16) & 0xFF
        else:
            dfmt = np.int64((w3 >> U64(15)) & U64(0xF))
            nfmt = np.int64((w3 >> U64(12)) & U64(7))
            dsel = np.int64(w3 & U64(0xFFF))
        if not fmt_valid(dfmt, nfmt, not is_load):
            fail(ws, w, ERR_FORMAT, dfmt | (nfmt << 8) | ((0 if is_load else 1) << 16))
            return
    ndata = count
    if kind == K_ATOMIC:
        ndata = count * (2 if aop == M.ATOMIC_CMPSWAP or aop == M.ATOMIC_FCMPSWAP else 1)
    if not to_lds and not vgpr_ok(ws, w, vdata, ndata + (1 if tfe and is_load else 0)):
        return
    vals = scratch.view(np.uint64)[:4]
    vb = ws[w, WS_VBASE]
    ubase = U64(mem_base)
    dsize = U64(mem_data.shape[0])
    for l in range(64):
        if not (ex >> U64(l)) & U64(1):
            continue
        vidx = U64(0)
        voff = U64(0)
        v64 = U64(0)
        if addr64:
            v64 = U64(vgpr[vb + vaddr, l]) | (U64(vgpr[vb + vaddr + 1, l]) << U64(32))
        else:
            if idxen:
                vidx = U64(vgpr[vb + vaddr, l])
                if offen:
                    voff = U64(vgpr[vb + vaddr + 1, l])
            elif offen:
                voff = U64(vgpr[vb + vaddr, l])
        failed = False
        if kind == K_ATOMIC:
            a, inr = M.buffer_address(base, stride, num_records, swizzle, element_size, index_stride,
                                      add_tid, idxen, offen, addr64, vidx, voff, v64, inst_offset,
                                      soffset, l, 0)
            nbytes = 4 * count
            v = _vreg(vgpr, ws, w, vdata, l)
            if count == 2:
                v |= _vreg(vgpr, ws, w, vdata + 1, l) << U64(32)
            c = U64(0)
            if aop == M.ATOMIC_CMPSWAP or aop == M.ATOMIC_FCMPSWAP:
                c = _vreg(vgpr, ws, w, vdata + count, l)
                if count == 2:
                    c |= _vreg(vgpr, ws, w, vdata + 3, l) << U64(32)
            old = U64(0)
            if inr:
                if aop >= 16:
                    fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
                    return
                old, ok = M.mem_atomic(mem_data, mem_mapped, mem_base, np.int64(a), aop, v, c, nbytes)
                if not ok:
                    record_fault(ws, w, faults, np.int64(a), l, 1)
            if glc:
                _vset(vgpr, ws, w, vdata, l, old & MASK32)
                if count == 2:
                    _vset(vgpr, ws, w, vdata + 1, l, old >> U64(32))
            continue
        if is_format:
            # per component: the byte container holding it (1, 2 or 4 bytes) at its offset
            nc = FMT_NC[dfmt]
            esize = FMT_BYTES[dfmt]
            first_in = True
            for k in range(4):
                vals[k] = U64(0)
            if not is_load:
                for k in range(min(count, nc)):
                    bits = FMT_BITS[dfmt, k]
                    sh = FMT_SHIFT[dfmt, k]
                    coff = (sh // 32) * 4
                    csize = min(esize - coff, 4)
                    a, inr = M.buffer_address(base, stride, num_records, swizzle, element_size,
                                              index_stride, add_tid, idxen, offen, addr64, vidx,
                                              voff, v64, inst_offset, soffset, l, coff)
                    if not inr:
                        continue
                    raw = encode_component(_vreg(vgpr, ws, w, vdata + k, l), bits, nfmt)
                    cont, ok = M.mem_load(mem_data, mem_mapped, mem_base, np.int64(a), csize)
                    s = U64(sh - coff * 8)
                    fm = ((U64(1) << U64(bits)) - U64(1)) << s
                    cont = (cont & ~fm) | ((raw << s) & fm)
                    if not (ok and M.mem_store(mem_data, mem_mapped, mem_base, np.int64(a), cont, csize)):
                        record_fault(ws, w, faults, np.int64(a), l, 1)
                continue
            for k in range(nc):
                bits = FMT_BITS[dfmt, k]
                sh = FMT_SHIFT[dfmt, k]
                coff = (sh // 32) * 4
                csize = min(esize - coff, 4)
                a, inr = M.buffer_address(base, stride, num_records, swizzle, element_size,
                                          index_stride, add_tid, idxen, offen, addr64, vidx,
                                          voff, v64, inst_offset, soffset, l, coff)
                if k == 0:
                    first_in = inr
                if not inr:
                    continue
                cont, ok = M.mem_load(mem_data, mem_mapped, mem_base, np.int64(a), csize)
                if not ok:
                    failed = True
                    record_fault(ws, w, faults, np.int64(a), l, 0)
                raw = (cont >> U64(sh - coff * 8)) & ((U64(1) << U64(bits)) - U64(1))
                vals[k] = decode_component(raw, bits, nfmt)
            one = fmt_one(nfmt)
            if first_in and nc < 4:
                vals[3] = one
            if not first_in:
                for k in range(4):
                    vals[k] = U64(0)
            for i in range(count):
                v = _select(vals, (dsel >> (3 * i)) & 7, one)
                if to_lds:
                    _lds_dword_store(lds, ws, w, sregs, inst_offset, l, v)
                else:
                    _vset(vgpr, ws, w, vdata + i, l, v)
        else:
            for i in range(count):
                nb = size if size < 4 else 4
                a, inr = M.buffer_address(base, stride, num_records, swizzle, element_size, index_stride,
                                          add_tid, idxen, offen, addr64, vidx, voff, v64, inst_offset,
                                          soffset, l, 4 * i)
                # mapped and backed: accessed here directly (see the note above _sext_bytes)
                o = np.int64(-1)
                if inr and a >= ubase and a - ubase <= dsize - U64(nb):
                    o = np.int64(a - ubase)
                    if mem_mapped[o >> M.PAGE_SHIFT] == 0 or mem_mapped[(o + nb - 1) >> M.PAGE_SHIFT] == 0:
                        o = -1
                if is_load:
                    v = U64(0)
                    if o >= 0:
                        for b in range(nb):
                            v |= U64(mem_data[o + b]) << U64(8 * b)
                    elif inr:
                        v, ok = M.mem_load(mem_data, mem_mapped, mem_base, np.int64(a), nb)
                        if not ok:
                            failed = True
                            record_fault(ws, w, faults, np.int64(a), l, 0)
                    if to_lds:   # zero-extended (GcnMemHandling.md)
                        _lds_dword_store(lds, ws, w, sregs, inst_offset, l, v)
                        continue
                    if sext:
                        v = _sext_bytes(v, size)
                    vgpr[vb + vdata + i, l] = np.uint32(v & MASK32)
                elif o >= 0:
                    sv = vgpr[vb + vdata + i, l]
                    for b in range(nb):
                        mem_data[o + b] = np.uint8((sv >> np.uint32(8 * b)) & np.uint32(0xFF))
                elif inr:
                    if not M.mem_store(mem_data, mem_mapped, mem_base, np.int64(a),
                                       U64(vgpr[vb + vdata + i, l]), nb):
                        record_fault(ws, w, faults, np.int64(a), l, 1)
        if tfe and is_load:
            vgpr[vb + vdata + count, l] = np.uint32(1 if failed else 0)


@njit
def _lds_dword_store(lds, ws, w, sregs, inst_offset, lane, v):
    """MUBUF lds=1: LDS_ADDR = LDS_BASE + M0[15:0] + inst_offset + lane*4."""
    a = np.int64(sregs[w, M0] & np.uint32(0xFFFF)) + inst_offset + 4 * lane
    if a + 4 <= ws[w, WS_LDS_SIZE]:
        _lds_write(lds, ws[w, WS_LDS_BASE], a, v, 4)


# --- MIMG -----------------------------------------------------------------------------------
IMG_1D, IMG_2D, IMG_3D, IMG_1D_ARRAY, IMG_2D_ARRAY = 8, 9, 10, 12, 13
LINEAR_TILING_INDEX = 8


@njit
def _img_level(t_type, pitch, width, height, depth, bpe, level):
    """Linear mip chain (gcnemu's layout): level l of a W x H x D image is
    max(1, P>>l) x max(1, H>>l) x max(1, D>>l) texels (arrays keep all D slices, 1D images
    have H = 1), rows of max(1, pitch>>l) texels, levels one after another from level 0.
    Returns (byte offset of the level, row pitch, width, height, depth/slices)."""
    off = np.int64(0)
    is_arr = t_type == IMG_1D_ARRAY or t_type == IMG_2D_ARRAY
    h0 = 1 if (t_type == IMG_1D or t_type == IMG_1D_ARRAY) else height
    d0 = depth if (is_arr or t_type == IMG_3D) else 1
    for l in range(level + 1):
        p = max(1, pitch >> l)
        wl = max(1, width >> l)
        hl = max(1, h0 >> l)
        dl = d0 if is_arr else max(1, d0 >> l)
        if l == level:
            return off, p, wl, hl, dl
        off += np.int64(p) * hl * dl * bpe
    return off, 1, 1, 1, 1


@njit
def _tsharp(sregs, w, s, r128):
    """T# fields (memory.decode_tsharp's bit layout) from SGPRs s..s+7 (s..s+3 with r128)."""
    w0 = U64(sregs[w, s])
    w1 = U64(sregs[w, s + 1])
    w2 = U64(sregs[w, s + 2])
    w3 = U64(sregs[w, s + 3])
    base = (w0 | ((w1 & U64(0xFF)) << U64(32))) << U64(8)
    dfmt = np.int64((w1 >> U64(20)) & U64(0x3F))
    nfmt = np.int64((w1 >> U64(26)) & U64(0xF))
    width = np.int64(w2 & U64(0x3FFF)) + 1
    height = np.int64((w2 >> U64(14)) & U64(0x3FFF)) + 1
    dsel = np.int64(w3 & U64(0xFFF))
    base_level = np.int64((w3 >> U64(12)) & U64(0xF))
    last_level = np.int64((w3 >> U64(16)) & U64(0xF))
    tiling = np.int64((w3 >> U64(20)) & U64(0x1F))
    t_type = np.int64((w3 >> U64(28)) & U64(0xF))
    depth = 1
    pitch = width
    base_array = 0
    last_array = 0
    if not r128:
        w4 = U64(sregs[w, s + 4])
        w5 = U64(sregs[w, s + 5])
        depth = np.int64(w4 & U64(0x1FFF)) + 1
        pitch = np.int64((w4 >> U64(13)) & U64(0x3FFF)) + 1
        base_array = np.int64(w5 & U64(0x1FFF))
        last_array = np.int64((w5 >> U64(13)) & U64(0x1FFF))
    return (base, dfmt, nfmt, width, height, dsel, base_level, last_level, tiling, t_type,
            depth, pitch, base_array, last_array)


@njit
def _img_fetch(mem_data, mem_mapped, mem_base, addr, dfmt, nfmt, vals):
    """Read one texel at addr and decode its components into vals[4] (missing: 0,0,0,1).
    Returns False when a byte was unmapped (the texel then reads as zeros)."""
    nc = FMT_NC[dfmt]
    esize = FMT_BYTES[dfmt]
    okall = True
    for k in range(4):
        vals[k] = U64(0)
    for k in range(nc):
        bits = FMT_BITS[dfmt, k]
        sh = FMT_SHIFT[dfmt, k]
        coff = (sh // 32) * 4
        cont, ok = M.mem_load(mem_data, mem_mapped, mem_base, addr + coff, min(esize - coff, 4))
        okall = okall and ok
        vals[k] = decode_component((cont >> U64(sh - coff * 8)) & ((U64(1) << U64(bits)) - U64(1)),
                                   bits, nfmt)
    if nc < 4:
        vals[3] = fmt_one(nfmt)
    return okall


@njit
def _wrap_coord(i, n, mode):
    """Texel index i under an S# clamp mode; -1 means 'border'."""
    if mode == 0:      # wrap
        r = i % n
        return r + n if r < 0 else r
    if mode == 1:      # mirror
        p = i % (2 * n)
        if p < 0:
            p += 2 * n
        return p if p < n else 2 * n - 1 - p
    if mode == 3 or mode == 5 or mode == 7:   # mirror once
        if i < 0:
            i = -i - 1
        if mode == 3:
            return min(i, n - 1)
        return i if i < n else -1
    if mode == 2:      # clamp to last texel
        return min(max(i, 0), n - 1)
    return i if 0 <= i < n else -1   # clamp (half) border


@njit
def image_instruction(ins, w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, scratch):
    """MIMG on linear images (T# tiling_index 8) of type 1D, 2D, 3D, 1D array, 2D array.

    * VADDR: x [, y] [, z | slice] [, mip] as uint32 for load/store/atomic (image_*_mip add
      the mip level, relative to the T# BASE_LEVEL); floats for image_sample, with the bias
      first for _b and the LOD last for _l. Out-of-range texels, slices or levels read 0 and
      drop writes/atomics.
    * Data: VDATA holds the DMASK-enabled components consecutively. Loads and samples apply
      the T# DST_SEL; stores write only enabled components. Atomics operate on the raw 32-bit
      (DMASK 1 component, cmpswap 2) or 64-bit (2, cmpswap 4; data format 32_32) texel, with
      glc returning the old value (every gfx7 op incl. fcmpswap/fmin/fmax, IEEE minNum/
      maxNum as memory.mem_atomic).
    * image_get_resinfo: VADDR = mip level; returns (width, height, depth, levels) of the
      level (1D arrays give the slice count as height, 2D arrays as depth), 0 beyond the last.
    * image_sample*, image_gather4*, image_get_lod: see image_sample.
    * Not covered: tiled layouts (ERR_TILED), cube/MSAA/buffer images (ERR_RESOURCE),
      image_load_pck*/store_pck* (unimplemented), the image-only data formats (5_6_5 ...
      BC*, ERR_FORMAT), tfe/lwe on samples.
    """
    sub = ins[C_K]
    kind = sub & 0xFF
    variant = (sub >> 8) & 0xFF
    get_lod = (sub >> 20) & 1
    aop = (sub >> 24) & 0x1F
    has_mip = (sub >> 30) & 1
    dmask = ins[C_F0]
    unorm = ins[C_F1]
    glc = ins[C_F2]
    vaddr = ins[C_F4]
    vdata = ins[C_F5]
    srsrc = ins[C_F6] * 4
    ssamp = ins[C_F7] * 4
    tfe = ins[C_LIT] & 0xFF
    r128 = (ins[C_LIT] >> 16) & 0xFF
    ex = get_exec(sregs, w)
    ws[w, WS_VMEM] += 1
    if kind == K_UNSUPPORTED:
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
        return
    if not sgpr_ok(ws, w, srsrc, 4 if r128 else 8):
        return
    (base, dfmt, nfmt, width, height, dsel, base_level, last_level, tiling, t_type, depth, pitch,
     base_array, last_array) = _tsharp(sregs, w, srsrc, r128)
    if tiling != LINEAR_TILING_INDEX:
        fail(ws, w, ERR_TILED, tiling)
        return
    if t_type != IMG_1D and t_type != IMG_2D and t_type != IMG_3D and t_type != IMG_1D_ARRAY \
            and t_type != IMG_2D_ARRAY:
        fail(ws, w, ERR_RESOURCE, t_type)
        return
    is_arr = t_type == IMG_1D_ARRAY or t_type == IMG_2D_ARRAY
    ncoord = 1 if t_type == IMG_1D else (3 if (t_type == IMG_3D or t_type == IMG_2D_ARRAY) else 2)
    nsp = ncoord - 1 if is_arr else ncoord      # spatial coordinates
    nlevels = max(last_level - base_level + 1, 1)
    nslices = last_array - base_array + 1 if is_arr else 1
    if nslices < 1:
        nslices = 1
    ndm = 0
    for i in range(4):
        if (dmask >> i) & 1:
            ndm += 1
    if kind != K_RESINFO:
        is_store = kind == K_STORE_FORMAT or (kind == K_ATOMIC)
        if kind == K_ATOMIC:
            if dfmt != 4 and dfmt != 11:
                fail(ws, w, ERR_FORMAT, dfmt | (nfmt << 8) | (1 << 16))
                return
        elif not fmt_valid(dfmt, nfmt, is_store):
            fail(ws, w, ERR_FORMAT, dfmt | (nfmt << 8) | ((1 if is_store else 0) << 16))
            return
    bpe = FMT_BYTES[dfmt] if dfmt <= 14 else 4
    nva = 1
    if kind == K_RESINFO:
        nva = 1
    elif kind == K_SAMPLE:
        nva = ncoord + _nonzero(variant & SF_O) + _nonzero(variant & SF_B) + \
            _nonzero(variant & SF_C) + 2 * nsp * _nonzero(variant & SF_D) + \
            _nonzero(variant & SF_CL) + _nonzero(variant & SF_L)
        if (variant & SF_GATHER) and t_type != IMG_2D and t_type != IMG_2D_ARRAY:
            fail(ws, w, ERR_RESOURCE, t_type)
            return
    else:
        nva = ncoord + has_mip
    if not vgpr_ok(ws, w, vaddr, nva):
        return
    ndata = max(ndm, 1)
    if kind == K_SAMPLE and (variant & SF_GATHER):
        ndata = 4
    if not vgpr_ok(ws, w, vdata, ndata + (1 if tfe and kind != K_STORE_FORMAT else 0)):
        return
    vals = scratch.view(np.uint64)[:4]
    out = scratch.view(np.uint64)[4:8]
    one = fmt_one(nfmt)

    if kind == K_RESINFO:
        for l in range(64):
            if not _lane_on(ex, l):
                continue
            m = np.int64(_vreg(vgpr, ws, w, vaddr, l))
            if m < nlevels:
                _, _, wl, hl, dl = _img_level(t_type, pitch, width, height, depth, bpe, base_level + m)
                out[0] = U64(wl)
                out[1] = U64(nslices if t_type == IMG_1D_ARRAY else hl)
                out[2] = U64(nslices if t_type == IMG_2D_ARRAY else (dl if t_type == IMG_3D else 1))
                out[3] = U64(nlevels)
            else:
                for i in range(4):
                    out[i] = U64(0)
            j = 0
            for i in range(4):
                if (dmask >> i) & 1:
                    _vset(vgpr, ws, w, vdata + j, l, out[i])
                    j += 1
        return

    if kind == K_SAMPLE:
        image_sample(w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, variant,
                     get_lod, unorm, dmask, vaddr, vdata, ssamp, base, dfmt, nfmt, dsel,
                     base_level, nlevels, t_type, width, height, depth, pitch, base_array,
                     nslices, nsp, is_arr, bpe, vals, out, ex)
        return

    for l in range(64):
        if not _lane_on(ex, l):
            continue
        x = np.int64(_vreg(vgpr, ws, w, vaddr, l))
        y = np.int64(_vreg(vgpr, ws, w, vaddr + 1, l)) if ncoord > 1 else 0
        z = np.int64(_vreg(vgpr, ws, w, vaddr + 2, l)) if ncoord > 2 else 0
        mip = np.int64(_vreg(vgpr, ws, w, vaddr + ncoord, l)) if has_mip else 0
        if t_type == IMG_1D_ARRAY:
            z = y
            y = 0
        inr = mip < nlevels
        addr = np.int64(0)
        if inr:
            loff, p, wl, hl, dl = _img_level(t_type, pitch, width, height, depth, bpe, base_level + mip)
            zz = z
            if is_arr:
                inr = z < nslices
                zz = base_array + z
            else:
                inr = z < dl
            inr = inr and x < wl and y < hl
            addr = np.int64(base) + loff + ((zz * hl + y) * p + x) * bpe
        failed = False
        if kind == K_LOAD_FORMAT:
            if inr:
                if not _img_fetch(mem_data, mem_mapped, mem_base, addr, dfmt, nfmt, vals):
                    failed = True
                    record_fault(ws, w, faults, addr, l, 0)
            else:
                for k in range(4):
                    vals[k] = U64(0)
            j = 0
            for i in range(4):
                if (dmask >> i) & 1:
                    _vset(vgpr, ws, w, vdata + j, l, _select(vals, (dsel >> (3 * i)) & 7, one))
                    j += 1
            if tfe:
                _vset(vgpr, ws, w, vdata + ndata, l, U64(1) if failed else U64(0))
        elif kind == K_STORE_FORMAT:
            if not inr:
                continue
            nc = FMT_NC[dfmt]
            esize = FMT_BYTES[dfmt]
            j = 0
            for k in range(4):
                if not (dmask >> k) & 1:
                    continue
                v = _vreg(vgpr, ws, w, vdata + j, l)
                j += 1
                if k >= nc:
                    continue
                bits = FMT_BITS[dfmt, k]
                sh = FMT_SHIFT[dfmt, k]
                coff = (sh // 32) * 4
                csize = min(esize - coff, 4)
                raw = encode_component(v, bits, nfmt)
                cont, ok = M.mem_load(mem_data, mem_mapped, mem_base, addr + coff, csize)
                s = U64(sh - coff * 8)
                fm = ((U64(1) << U64(bits)) - U64(1)) << s
                cont = (cont & ~fm) | ((raw << s) & fm)
                if not (ok and M.mem_store(mem_data, mem_mapped, mem_base, addr + coff, cont, csize)):
                    record_fault(ws, w, faults, addr + coff, l, 1)
        else:  # atomic
            is_cmp = aop == M.ATOMIC_CMPSWAP or aop == M.ATOMIC_FCMPSWAP
            nd = ndm // 2 if is_cmp else ndm
            nbytes = 8 if nd >= 2 else 4
            if nbytes > bpe:
                fail(ws, w, ERR_FORMAT, dfmt | (nfmt << 8) | (1 << 16))
                return
            v = _vreg(vgpr, ws, w, vdata, l)
            cmp = U64(0)
            if nbytes == 8:
                v |= _vreg(vgpr, ws, w, vdata + 1, l) << U64(32)
            if is_cmp:
                cmp = _vreg(vgpr, ws, w, vdata + nd, l)
                if nbytes == 8:
                    cmp |= _vreg(vgpr, ws, w, vdata + nd + 1, l) << U64(32)
            old = U64(0)
            if inr:
                old, ok = M.mem_atomic(mem_data, mem_mapped, mem_base, addr, aop, v, cmp, nbytes)
                if not ok:
                    record_fault(ws, w, faults, addr, l, 1)
            if glc:
                _vset(vgpr, ws, w, vdata, l, old & MASK32)
                if nbytes == 8:
                    _vset(vgpr, ws, w, vdata + 1, l, old >> U64(32))


@njit
def _f32(v):
    return M.bits_to_f32(v & MASK32)


@njit
def _nonzero(x):
    return 1 if x != 0 else 0


@njit
def _sext6(v):
    v &= 0x3F
    return v - 64 if v & 0x20 else v


@njit
def _depth_compare(func, ref, texel):
    """S# DEPTH_COMPARE_FUNC (GcnMemHandling.md): 1 if ref <op> texel."""
    if func == 0:
        return False
    if func == 1:
        return ref < texel
    if func == 2:
        return ref == texel
    if func == 3:
        return ref <= texel
    if func == 4:
        return ref > texel
    if func == 5:
        return ref != texel
    if func == 6:
        return ref >= texel
    return True


@njit
def image_sample(w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, flags, get_lod,
                 unorm, dmask, vaddr, vdata, ssamp, base, dfmt, nfmt, dsel, base_level, nlevels,
                 t_type, width, height, depth, pitch, base_array, nslices, nsp, is_arr, bpe, vals,
                 out, ex):
    """image_sample (+ _l _lz _b _c _d _cd _cl _o), image_gather4 (same suffixes), image_get_lod.

    VADDR (GcnMemHandling.md): {offset} {bias} {z-compare} {derivatives} {x [y] [z|slice]}
    {clamp} {lod}, all f32 except the offset dword (6-bit signed x, y, z offsets at bits 0, 8,
    16, added to the integer texel indices).
    Coordinates are normalized unless the instruction's unorm bit or the S# FORCE_UNNORM is
    set (then the base level is used). LOD: _lz 0; _l the given value; otherwise
    log2(max(|dP/dx|, |dP/dy|)) in texels of the base level (isotropic, computed in f64)
    from _d/_cd derivatives (dx/dh ... then dx/dv ...) or, as a compute wave has them, the
    coarse quad derivatives P[quad lane 1] - P[quad lane 0] (horizontal) and P[lane 2] -
    P[lane 0] (vertical), read from the quad's VGPRs whatever its EXEC. Then + _b bias + S#
    LOD_BIAS (not for _lz), clamped to [S# MIN_LOD, MAX_LOD] and to the _cl clamp.
    MIP_FILTER none uses the base level; point picks the nearest level floor(lod + 0.5);
    linear blends levels floor(lod) and floor(lod) + 1 as (1-f)*r0 + f*r1 in f32 with
    f = frac(lod) quantized down to 1/256 (point for integer formats and gather4).
    Filter: the S# XY mag filter for LOD <= 0, the min filter otherwise (aniso values act as
    bilinear); integer formats always sample as point. Point takes texel floor(u*size);
    bilinear the texels around u*size - 0.5 with weights quantized down to 1/256 (CLRX's
    quoted precision), blended in f32 as (1-a)*t0 + a*t1 along x, then y, then z.
    Clamp modes: wrap, mirror, clamp-last-texel, mirror-once-last-texel, and the border modes
    (half-border treated as border) with BORDER_COLOR_TYPE (0,0,0,0) / (0,0,0,1) / (1,1,1,1);
    the register colour reads as 0. Array slices round to nearest even and clamp.
    _c: each fetched texel becomes (r, r, r, r) with r = 1.0 if z-compare <op> texel.x by the
    S# DEPTH_COMPARE_FUNC, else 0.0 (percentage-closer filtering when bilinear).
    gather4: the 2x2 bilinear footprint's component (lowest DMASK bit, after DST_SEL) as
    (x, y, z, w) = (i0,j1), (i1,j1), (i1,j0), (i0,j0), always four VGPRs; 2D and 2D arrays.
    get_lod: (LOD after bias and clamps, LOD before them) as f32, packed by DMASK.
    Results apply the T# DST_SEL and are packed by DMASK.
    """
    if not sgpr_ok(ws, w, ssamp, 4):
        return
    s0 = U64(sregs[w, ssamp])
    s1 = U64(sregs[w, ssamp + 1])
    s2 = U64(sregs[w, ssamp + 2])
    s3 = U64(sregs[w, ssamp + 3])
    clamp_mode = np.zeros(3, np.int64)
    clamp_mode[0] = np.int64(s0 & U64(7))
    clamp_mode[1] = np.int64((s0 >> U64(3)) & U64(7))
    clamp_mode[2] = np.int64((s0 >> U64(6)) & U64(7))
    cmp_func = np.int64((s0 >> U64(12)) & U64(7))
    unnorm = unorm != 0 or ((s0 >> U64(15)) & U64(1)) != U64(0)
    min_lod = np.float64(s1 & U64(0xFFF)) / 256.0
    max_lod = np.float64((s1 >> U64(12)) & U64(0xFFF)) / 256.0
    bias_raw = np.int64(s2 & U64(0x3FFF))
    if bias_raw >= 8192:
        bias_raw -= 16384
    lod_bias = np.float64(bias_raw) / 256.0
    mag_filter = np.int64((s2 >> U64(20)) & U64(3))
    min_filter = np.int64((s2 >> U64(22)) & U64(3))
    mip_filter = np.int64((s2 >> U64(26)) & U64(3))
    border_type = np.int64((s3 >> U64(30)) & U64(3))
    integer_fmt = nfmt == NF_UINT or nfmt == NF_SINT
    one = fmt_one(nfmt)
    gather = (flags & SF_GATHER) != 0
    # VADDR layout
    p = 0
    a_off = p
    p += _nonzero(flags & SF_O)
    a_bias = p
    p += _nonzero(flags & SF_B)
    a_zc = p
    p += _nonzero(flags & SF_C)
    a_der = p
    p += 2 * nsp * _nonzero(flags & SF_D)
    a_body = p
    p += nsp + (1 if is_arr else 0)
    a_cl = p
    p += _nonzero(flags & SF_CL)
    a_lod = p
    gcomp = 0
    for i in range(4):
        if (dmask >> i) & 1:
            gcomp = i
            break
    _, _, w0, h0, d0 = _img_level(t_type, pitch, width, height, depth, bpe, base_level)
    size0 = np.zeros(3, np.float64)
    size0[0] = w0
    size0[1] = h0
    size0[2] = d0
    xv = np.zeros(4, np.float32)
    yacc = np.zeros(4, np.float32)
    zacc = np.zeros(4, np.float32)
    gv = np.zeros(4, np.uint64)
    mip_acc = np.zeros(4, np.float32)
    idx = np.zeros((3, 2), np.int64)
    wgt = np.zeros((3, 2), np.float32)
    for l in range(64):
        if not _lane_on(ex, l):
            continue
        # level of detail
        raw_lod = 0.0
        if flags & SF_L:
            raw_lod = np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_lod, l)))
        elif not (flags & SF_LZ):
            q = l & 0x3C
            gx = 0.0
            gy = 0.0
            for d in range(nsp):
                if flags & SF_D:
                    dx = np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_der + d, l)))
                    dy = np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_der + nsp + d, l)))
                else:
                    c0 = np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_body + d, q)))
                    dx = np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_body + d, q + 1))) - c0
                    dy = np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_body + d, q + 2))) - c0
                if not unnorm:
                    dx *= size0[d]
                    dy *= size0[d]
                gx += dx * dx
                gy += dy * dy
            rho2 = max(gx, gy)
            raw_lod = 0.5 * np.log2(rho2) if rho2 > 0 else -1e30
        lod = raw_lod
        if flags & SF_B:
            lod += np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_bias, l)))
        if not (flags & SF_LZ):
            lod += lod_bias
        lod = min(max(lod, min_lod), max_lod)
        if flags & SF_CL:
            lod = min(lod, np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_cl, l))))
        if get_lod:
            out[0] = U64(M.f32_to_bits(np.float32(lod)))
            out[1] = U64(M.f32_to_bits(np.float32(max(raw_lod, -3.0e38))))
            out[2] = U64(0)
            out[3] = U64(0)
            j = 0
            for i in range(4):
                if (dmask >> i) & 1:
                    _vset(vgpr, ws, w, vdata + j, l, out[i])
                    j += 1
            continue
        level = 0
        nmip = 1
        mfrac = 0.0
        if mip_filter != 0 and not unnorm:
            if mip_filter == 2 and not integer_fmt and not gather and lod > 0:
                level = np.int64(np.floor(lod))
                mfrac = np.floor((lod - np.floor(lod)) * 256.0) / 256.0
                if level >= nlevels - 1:
                    level = nlevels - 1
                    mfrac = 0.0
                if mfrac > 0.0:
                    nmip = 2
            else:
                level = np.int64(np.floor(lod + 0.5)) if lod > 0 else 0
                level = min(level, nlevels - 1)
        bilinear = gather or ((min_filter if lod > 0 else mag_filter) != 0 and not integer_fmt)
        slice_ = 0
        if is_arr:
            sf = np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_body + nsp, l)))
            if sf != sf:
                sf = 0.0
            sf = min(max(sf, 0.0), np.float64(nslices - 1))
            slice_ = np.int64(_rne_f64(sf)) + base_array
        offw = np.int64(_vreg(vgpr, ws, w, vaddr + a_off, l)) if flags & SF_O else 0
        zref = _f32(_vreg(vgpr, ws, w, vaddr + a_zc, l)) if flags & SF_C else np.float32(0.0)
        for mi in range(nmip):
            loff, rp, wl, hl, dl = _img_level(t_type, pitch, width, height, depth, bpe, base_level + level + mi)
            for d in range(3):
                idx[d, 0] = 0
                idx[d, 1] = 0
                wgt[d, 0] = np.float32(1.0)
                wgt[d, 1] = np.float32(0.0)
                if d >= nsp:
                    continue
                n = wl if d == 0 else (hl if d == 1 else dl)
                u = np.float64(_f32(_vreg(vgpr, ws, w, vaddr + a_body + d, l)))
                if u != u:
                    u = 0.0
                t = u if unnorm else u * np.float64(n)
                o = _sext6(offw >> (8 * d)) if flags & SF_O else 0
                if bilinear:
                    t -= 0.5
                i0 = np.floor(t)
                i0i = (np.int64(i0) if abs(i0) < 1e15 else 0) + o
                idx[d, 0] = _wrap_coord(i0i, n, clamp_mode[d])
                if bilinear:
                    a = np.floor((t - i0) * 256.0) / 256.0
                    idx[d, 1] = _wrap_coord(i0i + 1, n, clamp_mode[d])
                    wgt[d, 0] = np.float32(1.0 - a)
                    wgt[d, 1] = np.float32(a)
            nz = 2 if (nsp >= 3 and bilinear) else 1
            ny = 2 if (nsp >= 2 and bilinear) else 1
            nx = 2 if bilinear else 1
            # blend as (1-a)*t0 + a*t1 along x, then y, then z (f32 products and sums)
            for kz in range(nz):
                for ky in range(ny):
                    for kx in range(nx):
                        ix = idx[0, kx]
                        iy = idx[1, ky]
                        iz = idx[2, kz]
                        if ix < 0 or iy < 0 or iz < 0:
                            # border colour
                            for k in range(4):
                                vals[k] = U64(0)
                            if border_type == 1:
                                vals[3] = one
                            elif border_type == 2:
                                for k in range(4):
                                    vals[k] = one
                        else:
                            zz = slice_ if is_arr else iz
                            addr = np.int64(base) + loff + ((zz * hl + iy) * rp + ix) * bpe
                            if not _img_fetch(mem_data, mem_mapped, mem_base, addr, dfmt, nfmt, vals):
                                record_fault(ws, w, faults, addr, l, 0)
                                for k in range(4):
                                    vals[k] = U64(0)
                        if flags & SF_C:
                            r = F32_ONE if _depth_compare(cmp_func, zref, _f32(vals[0])) else U64(0)
                            for k in range(4):
                                vals[k] = r
                        if gather:
                            # x = (i0, j1), y = (i1, j1), z = (i1, j0), w = (i0, j0)
                            gi = (0 if kx == 0 else 1) if ky == 1 else (2 if kx == 1 else 3)
                            gv[gi] = _select(vals, (dsel >> (3 * gcomp)) & 7, one)
                            continue
                        if not bilinear:
                            for k in range(4):
                                out[k] = vals[k]
                            continue
                        for k in range(4):
                            tp = wgt[0, kx] * _f32(vals[k])
                            xv[k] = tp if kx == 0 else np.float32(xv[k] + tp)
                    if bilinear and not gather:
                        for k in range(4):
                            tp = wgt[1, ky] * xv[k]
                            yacc[k] = tp if (ky == 0 or ny == 1) else np.float32(yacc[k] + tp)
                if bilinear and not gather:
                    for k in range(4):
                        tp = wgt[2, kz] * yacc[k]
                        zacc[k] = tp if (kz == 0 or nz == 1) else np.float32(zacc[k] + tp)
            if bilinear:
                for k in range(4):
                    out[k] = U64(M.f32_to_bits(zacc[k]))
            if nmip == 2:
                wm = np.float32(1.0 - mfrac) if mi == 0 else np.float32(mfrac)
                for k in range(4):
                    tp = wm * _f32(out[k])
                    mip_acc[k] = tp if mi == 0 else np.float32(mip_acc[k] + tp)
        if nmip == 2:
            for k in range(4):
                out[k] = U64(M.f32_to_bits(mip_acc[k]))
        if gather:
            for i in range(4):
                _vset(vgpr, ws, w, vdata + i, l, gv[i])
            continue
        j = 0
        for i in range(4):
            if (dmask >> i) & 1:
                _vset(vgpr, ws, w, vdata + j, l, _select(out, (dsel >> (3 * i)) & 7, one))
                j += 1


# --- VINTRP ---------------------------------------------------------------------------------
@njit
def interp_instruction(ins, w, sregs, ws, vgpr, lds):
    """v_interp_p1_f32 D = P0 + I*P10, v_interp_p2_f32 D = D + J*P20, v_interp_mov_f32.

    Parameters come from LDS in the layout of GcnInstrsVintrp.md: M0[15:0] is the byte offset
    of the block, M0[30:16] NEWPRIMMASK (bit q starts a new primitive at quad q+1, so the
    primitive of quad q is popcount(mask & ((1<<q)-1)) and NUMPRIM = popcount(mask)+1); the
    12 dwords of (attr, prim) start at dword 12*(attr*NUMPRIM + prim) and hold
    P0.x P10.x P0.y P10.y P0.z P10.z P0.w P10.w P20.x P20.y P20.z P20.w.
    Arithmetic: the docs write P0 + I*P10 as a multiply then an add, so it is computed as two
    IEEE f32 operations, each rounded to nearest even, denormals kept (not fused).
    v_interp_mov_f32's VSRC field selects P10 (0), P20 (1) or P0 (2), as LLVM's
    p10/p20/p0 operand encoding does. Parameters beyond the LDS allocation read 0.
    """
    kind = ins[C_K] & 0xFF
    vsrc = ins[C_F0]
    chan = ins[C_F1]
    attr = ins[C_F2]
    vdst = ins[C_F3]
    ex = get_exec(sregs, w)
    ws[w, WS_VALU] += 1
    if not vgpr_ok(ws, w, vdst, 1):
        return
    if kind != K_INTERP_MOV and not vgpr_ok(ws, w, vsrc, 1):
        return
    m0 = U64(sregs[w, M0])
    lbase = ws[w, WS_LDS_BASE]
    lsize = ws[w, WS_LDS_SIZE]
    start = np.int64(m0 & U64(0xFFFF))
    mask = np.int64((m0 >> U64(16)) & U64(0x7FFF))
    nprim = 1
    for b in range(15):
        nprim += (mask >> b) & 1
    for l in range(64):
        if not _lane_on(ex, l):
            continue
        q = l >> 2
        prim = 0
        for b in range(q):
            prim += (mask >> b) & 1
        blk = start + 4 * 12 * (attr * nprim + prim)
        if kind == K_INTERP_P1:
            o0 = blk + 4 * (2 * chan)
            o1 = blk + 4 * (2 * chan + 1)
        elif kind == K_INTERP_P2:
            o0 = blk + 4 * (8 + chan)
            o1 = o0
        else:
            if vsrc == 0:
                o0 = blk + 4 * (2 * chan + 1)
            elif vsrc == 1:
                o0 = blk + 4 * (8 + chan)
            else:
                o0 = blk + 4 * (2 * chan)
            o1 = o0
        pa = _lds_read(lds, lbase, o0, 4) if o0 + 4 <= lsize else U64(0)
        pb = _lds_read(lds, lbase, o1, 4) if o1 + 4 <= lsize else U64(0)
        if kind == K_INTERP_P1:
            i = _f32(_vreg(vgpr, ws, w, vsrc, l))
            prod = np.float32(i * _f32(pb))
            r = np.float32(_f32(pa) + prod)
            _vset(vgpr, ws, w, vdst, l, U64(M.f32_to_bits(r)))
        elif kind == K_INTERP_P2:
            j = _f32(_vreg(vgpr, ws, w, vsrc, l))
            prod = np.float32(j * _f32(pa))
            r = np.float32(_f32(_vreg(vgpr, ws, w, vdst, l)) + prod)
            _vset(vgpr, ws, w, vdst, l, U64(M.f32_to_bits(r)))
        else:
            _vset(vgpr, ws, w, vdst, l, pa)


# --- EXP ------------------------------------------------------------------------------------
EXPORT_HEADER = 8
EXPORT_COLS = EXPORT_HEADER + 4 * 64
#: header columns of an export row
(EX_WAVE, EX_TARGET, EX_EN, EX_FLAGS, EX_EXEC_LO, EX_EXEC_HI, EX_ROW, EX_SEQ) = range(8)
EXF_COMPR, EXF_DONE, EXF_VM = 1, 2, 4


def new_export_buffer(max_exports: int = 256) -> np.ndarray:
    """The array export_instruction fills: row 0 col 0 counts the exports attempted (rows
    1..max_exports hold the first ones); each row is EXPORT_COLS uint32."""
    return np.zeros((max_exports + 1, EXPORT_COLS), np.uint32)


def read_exports(buf: np.ndarray) -> list:
    """Exports of a buffer as dicts: wave, target, en, compr, done, vm, exec, data [4, 64]
    (uint32; with compr each component holds the f16 bits of its half)."""
    n = min(int(buf[0, 0]), buf.shape[0] - 1)
    out = []
    for r in buf[1:n + 1]:
        out.append(dict(wave=int(r[EX_WAVE]), target=int(r[EX_TARGET]), en=int(r[EX_EN]),
                        compr=bool(r[EX_FLAGS] & EXF_COMPR), done=bool(r[EX_FLAGS] & EXF_DONE),
                        vm=bool(r[EX_FLAGS] & EXF_VM),
                        exec=int(r[EX_EXEC_LO]) | (int(r[EX_EXEC_HI]) << 32), row=int(r[EX_ROW]),
                        data=r[EXPORT_HEADER:].reshape(4, 64).copy()))
    return out


@njit
def export_instruction(ins, w, sregs, ws, vgpr, exports):
    """exp: capture one export into `exports` (see new_export_buffer).

    Row: wave, target (0-7 MRT, 8 Z, 9 NULL, 12-15 POS, 32-63 PARAM), EN mask, flags
    (compr 1, done 2, vm 4), EXEC lo/hi, program row, sequence number, then 4 x 64 lanes.
    Uncompressed: component c = VSRC<c>. compr: two f16 per register, component c = half
    (c & 1) of VSRC<c >> 1> (VSRC0 = components 0,1; VSRC1 = 2,3), as 16-bit values.
    Disabled components and inactive lanes hold 0. done/vm are recorded only (the wave goes on).
    """
    en = ins[C_F0]
    compr = ins[C_F2]
    ex = get_exec(sregs, w)
    k = np.int64(exports[0, 0])
    exports[0, 0] = np.uint32(k + 1)
    row = k + 1
    if row >= exports.shape[0]:
        return
    exports[row, EX_WAVE] = np.uint32(w)
    exports[row, EX_TARGET] = np.uint32(ins[C_F1])
    exports[row, EX_EN] = np.uint32(en)
    exports[row, EX_FLAGS] = np.uint32((EXF_COMPR if compr else 0) | (EXF_DONE if ins[C_F3] else 0)
                                       | (EXF_VM if ins[C_F4] else 0))
    exports[row, EX_EXEC_LO] = np.uint32(ex & MASK32)
    exports[row, EX_EXEC_HI] = np.uint32(ex >> U64(32))
    exports[row, EX_ROW] = np.uint32(ws[w, 0])
    exports[row, EX_SEQ] = np.uint32(k)
    for c in range(4):
        if not (en >> c) & 1:
            for l in range(64):
                exports[row, EXPORT_HEADER + 64 * c + l] = 0
            continue
        j = (c >> 1) if compr else c     # VSRC0..2 in C_F5..C_F7, VSRC3 in the literal
        r = (ins[C_LIT] & 0xFF) if j == 3 else ins[C_F5 + j]
        if not vgpr_ok(ws, w, r, 1):
            return
        for l in range(64):
            v = _vreg(vgpr, ws, w, r, l) if _lane_on(ex, l) else U64(0)
            if compr:
                v = (v >> U64(16 * (c & 1))) & U64(0xFFFF)
            exports[row, EXPORT_HEADER + 64 * c + l] = np.uint32(v)


# --- entry: one C-callable function per family, compiled on first use --------------------
# The engine does not link the families: run_wave writes the state arrays' addresses and
# shapes into a frame (a row of its tmp scratch) and calls the family's compiled entry by
# address (call_family), as it does for VALU ops. A program compiles only the families it
# uses (gcnemu/program.py asks family_address when it builds a memory row), which keeps
# about 20 s of compilation (image sampling alone ~9 s) out of a fresh install's first
# dispatch of a kernel without, say, images.

# frame words
(FR_INS, FR_W, FR_SREGS, FR_NW, FR_WS, FR_NWS, FR_VGPR, FR_NV, FR_LDS, FR_NLDS, FR_DATA,
 FR_NDATA, FR_MAPPED, FR_NMAPPED, FR_BASE, FR_FAULTS, FR_NF0, FR_NF1, FR_TMP, FR_EXPORTS,
 FR_NEXP, FR_NEXPC, FR_NCOLS) = range(23)
NFRAME = 23


def _pointer_intrinsic(nbtype):
    @intrinsic
    def as_pointer(typingctx, addr):
        sig = types.CPointer(nbtype)(addr)

        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(types.CPointer(nbtype)))
        return sig, codegen
    return as_pointer


_p_u8, _p_u32, _p_i64, _p_u64 = (_pointer_intrinsic(t) for t in
                                 (types.uint8, types.uint32, types.int64, types.uint64))


@intrinsic
def call_family(typingctx, addr, frame):
    """Call the family entry at ``addr`` with the frame's data pointer."""
    sig = types.void(addr, frame)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        call_native(builder, args[0], [builder.inttoptr(args[1], i64.as_pointer())])
        return context.get_dummy_value()
    return sig, codegen


@njit(inline="always")
def _frame_state(fp):
    """The state arrays a frame describes (views without reference counts)."""
    f = carray(fp, (NFRAME,))
    nw = f[FR_NW]
    return (carray(_p_i64(f[FR_INS]), (f[FR_NCOLS],)), f[FR_W],
            carray(_p_u32(f[FR_SREGS]), (nw, 128)), carray(_p_i64(f[FR_WS]), (nw, f[FR_NWS])),
            carray(_p_u32(f[FR_VGPR]), (f[FR_NV], 64)), carray(_p_u8(f[FR_LDS]), (f[FR_NLDS],)),
            carray(_p_u8(f[FR_DATA]), (f[FR_NDATA],)),
            carray(_p_u8(f[FR_MAPPED]), (f[FR_NMAPPED],)), f[FR_BASE],
            carray(_p_i64(f[FR_FAULTS]), (f[FR_NF0], f[FR_NF1], 4)),
            carray(_p_u64(f[FR_TMP]), (4, 64)),
            carray(_p_u32(f[FR_EXPORTS]), (f[FR_NEXP], f[FR_NEXPC])))


def _ds_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = _frame_state(fp)
    ds_instruction(ins, w, sregs, ws, vgpr, lds, tmp[3].view(np.uint8))


def _flat_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = _frame_state(fp)
    flat_instruction(ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults)


def _mubuf_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = _frame_state(fp)
    buffer_instruction(ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, False,
                       tmp[3].view(np.uint8))


def _mtbuf_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = _frame_state(fp)
    buffer_instruction(ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, True,
                       tmp[3].view(np.uint8))


def _mimg_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = _frame_state(fp)
    image_instruction(ins, w, sregs, ws, vgpr, data, mapped, base, faults, tmp[3].view(np.uint8))


def _vintrp_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = _frame_state(fp)
    interp_instruction(ins, w, sregs, ws, vgpr, lds)


def _exp_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = _frame_state(fp)
    export_instruction(ins, w, sregs, ws, vgpr, exports)


_ENTRIES = {H_DS: _ds_entry, H_FLAT: _flat_entry, H_MUBUF: _mubuf_entry, H_MTBUF: _mtbuf_entry,
            H_MIMG: _mimg_entry, H_VINTRP: _vintrp_entry, H_EXP: _exp_entry}
_FAMILY_SIGNATURE = types.void(types.CPointer(types.int64))


def family_address(h: int) -> int:
    """Address of the compiled entry of memory family ``h`` (an engine H_* handler),
    compiling it on first use (jit.native_address); 0 for a handler that is not a memory
    family."""
    if h not in _ENTRIES:
        return 0
    return native_address(_ENTRIES[h], _FAMILY_SIGNATURE)
