"""Vector memory, LDS/GDS, interpolation and export instructions for the engine.

`subop(enc, name)` (Python, at program build time) reduces a mnemonic to an integer that says
what the access does; `memory_instruction` (numba) carries it out for the active lanes.
Out-of-range rules follow the seeds and CLRX's GcnMemHandling.md: unmapped global memory reads
0 and drops writes (recorded as faults), buffer accesses outside the V# range read 0 and drop
writes (not faults: the hardware defines them), LDS accesses beyond M0 or the workgroup's
allocation read 0 and drop writes.
"""
from __future__ import annotations

import re

import numpy as np

from . import memory as M
from .jit import njit

# subop layout
K_LOAD, K_STORE, K_ATOMIC, K_LOAD2, K_STORE2, K_SWIZZLE, K_APPEND, K_CONSUME, K_NOP, \
    K_SRC2, K_WRXCHG2, K_LOAD_FORMAT, K_STORE_FORMAT, K_RESINFO, K_UNSUPPORTED, \
    K_INTERP_P1, K_INTERP_P2, K_INTERP_MOV, K_EXPORT = range(19)

# extra atomic ops beyond memory.ATOMIC_*
A_RSUB, A_MSKOR, A_WRAP, A_CONDXCHG = 16, 17, 18, 19

_ATOMIC = {"swap": M.ATOMIC_SWAP, "wrxchg": M.ATOMIC_SWAP, "cmpswap": M.ATOMIC_CMPSWAP,
           "cmpst": M.ATOMIC_CMPSWAP, "add": M.ATOMIC_ADD, "sub": M.ATOMIC_SUB,
           "smin": M.ATOMIC_SMIN, "umin": M.ATOMIC_UMIN, "smax": M.ATOMIC_SMAX,
           "umax": M.ATOMIC_UMAX, "and": M.ATOMIC_AND, "or": M.ATOMIC_OR, "xor": M.ATOMIC_XOR,
           "inc": M.ATOMIC_INC, "dec": M.ATOMIC_DEC, "fcmpswap": M.ATOMIC_FCMPSWAP,
           "fmin": M.ATOMIC_FMIN, "fmax": M.ATOMIC_FMAX, "rsub": A_RSUB, "mskor": A_MSKOR,
           "wrap": A_WRAP, "condxchg32": A_CONDXCHG}


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
    m = re.fullmatch(r"ds_wrxchg(2st64|2)_rtn_(b32|b64)", name)
    if m:
        return pack(K_WRXCHG2, 4, 2 if m.group(2) == "b64" else 1, rtn=1, st64=int(m.group(1) == "2st64"))
    m = re.fullmatch(r"ds_([a-z0-9]+?)(_src2)?(_rtn)?_([biuf])(32|64)", name)
    if m and not name.startswith("ds_gws") and name != "ds_ordered_count":
        op, src2, rtn, t, bits = m.groups()
        if op in ("min", "max"):
            op = {"i": "s", "u": "u", "f": "f"}[t] + op
        aop = _ATOMIC.get(op)
        if aop is None:
            return pack(K_UNSUPPORTED)
        count = 2 if bits == "64" else 1
        if src2:
            return pack(K_SRC2, 4, count, aop=aop)
        # DS compare-store takes (cmp, src) where buffer/flat cmpswap take (src, cmp)
        return pack(K_ATOMIC, 4, count, aop=aop, rtn=int(bool(rtn)), swap_cmp=int(op == "cmpst"))
    if name == "ds_condxchg32_rtn_b64":
        return pack(K_ATOMIC, 4, 2, aop=A_CONDXCHG, rtn=1)
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
        if name in ("image_load", "image_load_mip"):
            return pack(K_LOAD_FORMAT, 4, 4)
        if name in ("image_store", "image_store_mip"):
            return pack(K_STORE_FORMAT, 4, 4)
        if name == "image_get_resinfo":
            return pack(K_RESINFO, 4, 4)
        return pack(K_UNSUPPORTED)
    return pack(K_UNSUPPORTED)


# --- numba side -----------------------------------------------------------------------------
from .engine import (  # noqa: E402  (engine imports this module after defining these)
    ALL_LANES, C_F0, C_F1, C_F2, C_F3, C_F4, C_F5, C_F6, C_F7, C_H, C_IMM, C_K, C_S0, C_WD,
    ERR_UNIMPLEMENTED, H_DS, H_EXP, H_FLAT, H_MIMG, H_MTBUF, H_MUBUF, H_VINTRP, M0, MASK32, U64,
    WS_LDS_BASE, WS_LDS_INSTS, WS_LDS_SIZE, WS_VBASE, WS_VMEM, fail, get_exec, read_scalar,
    record_fault, sgpr_ok, vgpr_ok, ERR_BAD_OPERAND,
)

SHARED_APERTURE_HI = 0x10000000   # flat addresses 0x1000_0000_xxxx_xxxx reach LDS
PRIVATE_APERTURE_HI = 0x20000000  # ... 0x2000_0000_xxxx_xxxx reach the lane's scratch


@njit
def _sext_bytes(v, size):
    if size == 1:
        return U64(np.int64(np.int8(v & U64(0xFF)))) & MASK32
    return U64(np.int64(np.int16(v & U64(0xFFFF)))) & MASK32


@njit
def _atomic_ext(old, aop, v, c, nbytes):
    """The DS-only atomic ops (rsub, mskor, wrap, condxchg32); returns the new value."""
    mask = ALL_LANES if nbytes == 8 else MASK32
    if aop == A_RSUB:
        return (v - old) & mask
    if aop == A_MSKOR:
        return ((old & ~v) | c) & mask
    if aop == A_WRAP:
        return (old - v) & mask if old >= v else (old + c) & mask
    return old


@njit
def lds_atomic(lds, a, aop, v, c, nbytes):
    old = U64(0)
    for b in range(nbytes):
        old |= U64(lds[a + b]) << U64(8 * b)
    if aop >= 16:
        new = _atomic_ext(old, aop, v, c, nbytes)
        for b in range(nbytes):
            lds[a + b] = np.uint8((new >> U64(8 * b)) & U64(0xFF))
        return old
    # reuse the global atomic on a view of the LDS bytes (mapped check is trivially true)
    ok_map = np.ones(1 + (a + nbytes) // M.PAGE_SIZE + 1, np.uint8)
    o, _ = M.mem_atomic(lds, ok_map, 0, a, aop, v, c, nbytes)
    return o


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
def _vreg(vgpr, ws, w, r, l):
    return U64(vgpr[ws[w, WS_VBASE] + r, l])


@njit
def _vset(vgpr, ws, w, r, l, v):
    vgpr[ws[w, WS_VBASE] + r, l] = np.uint32(v & MASK32)


@njit
def ds_instruction(ins, w, sregs, ws, vgpr, lds):
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
    if gds:
        base = lds.shape[0] - 65536
        limit = 65536
    else:
        base = ws[w, WS_LDS_BASE]
        limit = ws[w, WS_LDS_SIZE]
    m0 = np.int64(sregs[w, M0])
    if not gds and m0 < limit:
        limit = m0
    offset16 = off0 | (off1 << 8)
    if kind == K_APPEND or kind == K_CONSUME:
        # one atomic per wave on the counter at M0[15:0] + offset; every lane gets the old value
        a = (m0 & 0xFFFF) + offset16
        cnt = U64(0)
        for l in range(64):
            if (ex >> U64(l)) & U64(1):
                cnt += U64(1)
        old = U64(0)
        if a + 4 <= (65536 if gds else ws[w, WS_LDS_SIZE]):
            old = _lds_read(lds, base, a, 4)
            new = (old + cnt) & MASK32 if kind == K_APPEND else (old - cnt) & MASK32
            _lds_write(lds, base, a, new, 4)
        if vgpr_ok(ws, w, vdst, 1):
            for l in range(64):
                if (ex >> U64(l)) & U64(1):
                    _vset(vgpr, ws, w, vdst, l, old)
        return
    if kind == K_SWIZZLE:
        if not (vgpr_ok(ws, w, d0, 1) and vgpr_ok(ws, w, vdst, 1)):
            return
        src = np.empty(64, np.uint64)
        for l in range(64):
            src[l] = _vreg(vgpr, ws, w, d0, l)
        for l in range(64):
            if (ex >> U64(l)) & U64(1):
                if offset16 & 0x8000:   # quad permute: 2 bits per lane of each quad
                    sel = (offset16 >> (2 * (l & 3))) & 3
                    s = (l & ~3) | sel
                else:                     # bit-masked permute within groups of 32
                    and_m = offset16 & 0x1F
                    or_m = (offset16 >> 5) & 0x1F
                    xor_m = (offset16 >> 10) & 0x1F
                    s = (l & 0x20) | ((((l & 0x1F) & and_m) | or_m) ^ xor_m)
                v = src[s] if (ex >> U64(s)) & U64(1) else U64(0)
                _vset(vgpr, ws, w, vdst, l, v)
        return
    if not vgpr_ok(ws, w, vaddr, 1):
        return
    dw = 8 if count == 2 and (kind == K_LOAD2 or kind == K_STORE2 or kind == K_WRXCHG2) else 4
    if kind == K_LOAD or kind == K_STORE or kind == K_ATOMIC or kind == K_SRC2:
        nb = size * count if size < 4 else 4 * count
    else:
        nb = dw
    for l in range(64):
        if not (ex >> U64(l)) & U64(1):
            continue
        addr = np.int64(_vreg(vgpr, ws, w, vaddr, l))
        if kind == K_LOAD:
            a = addr + offset16
            ok = a >= 0 and a + nb <= limit
            if size < 4:
                v = _lds_read(lds, base, a, size) if ok else U64(0)
                if sext:
                    v = _sext_bytes(v, size)
                _vset(vgpr, ws, w, vdst, l, v)
            else:
                for i in range(count):
                    v = _lds_read(lds, base, a + 4 * i, 4) if ok else U64(0)
                    _vset(vgpr, ws, w, vdst + i, l, v)
        elif kind == K_STORE:
            a = addr + offset16
            if a >= 0 and a + nb <= limit:
                if size < 4:
                    _lds_write(lds, base, a, _vreg(vgpr, ws, w, d0, l), size)
                else:
                    for i in range(count):
                        _lds_write(lds, base, a + 4 * i, _vreg(vgpr, ws, w, d0 + i, l), 4)
        elif kind == K_LOAD2 or kind == K_STORE2 or kind == K_WRXCHG2:
            scale = dw * (64 if st64 else 1)
            for k in range(2):
                a = addr + (off0 if k == 0 else off1) * scale
                ok = a >= 0 and a + dw <= limit
                nd = dw // 4
                if kind == K_LOAD2:
                    for i in range(nd):
                        v = _lds_read(lds, base, a + 4 * i, 4) if ok else U64(0)
                        _vset(vgpr, ws, w, vdst + k * nd + i, l, v)
                else:
                    src = d0 if k == 0 else d1
                    for i in range(nd):
                        if kind == K_WRXCHG2:
                            v = _lds_read(lds, base, a + 4 * i, 4) if ok else U64(0)
                            _vset(vgpr, ws, w, vdst + k * nd + i, l, v)
                        if ok:
                            _lds_write(lds, base, a + 4 * i, _vreg(vgpr, ws, w, src + i, l), 4)
        elif kind == K_ATOMIC or kind == K_SRC2:
            a = addr + offset16
            nbytes = 4 * count
            if kind == K_SRC2:
                # B = A + 4*(offset1[7] ? {A[31],A[31:17]} : {offset1[6],offset1[6:0],offset0})
                a = addr
                if off1 & 0x80:
                    delta = (addr >> 17) | (-(1 << 15) if addr & 0x80000000 else 0)
                else:
                    delta = ((off1 & 0x7F) << 8) | off0
                    if off1 & 0x40:
                        delta -= 1 << 15
                b = a + 4 * delta
                if a >= 0 and a + nbytes <= limit and b >= 0 and b + nbytes <= limit:
                    v = _lds_read(lds, base, b, nbytes)
                    lds_atomic(lds[base:], a, aop, v, U64(0), nbytes)
                continue
            v = _vreg(vgpr, ws, w, d0, l)
            c = U64(0)
            if count == 2:
                v |= _vreg(vgpr, ws, w, d0 + 1, l) << U64(32)
            if aop == M.ATOMIC_CMPSWAP or aop == M.ATOMIC_FCMPSWAP or aop == A_MSKOR or aop == A_WRAP:
                c = _vreg(vgpr, ws, w, d1, l)
                if count == 2:
                    c |= _vreg(vgpr, ws, w, d1 + 1, l) << U64(32)
                if swap_cmp:
                    v, c = c, v
            if aop == A_CONDXCHG:
                # two 32-bit conditional exchanges: bit 63 of each half's data gates the write
                old = U64(0)
                if a >= 0 and a + 8 <= limit:
                    old = _lds_read(lds, base, a, 8)
                    for half in range(2):
                        dv = (v >> U64(32 * half)) & MASK32
                        if dv >> U64(31):
                            _lds_write(lds, base, a + 4 * half, dv & U64(0x7FFFFFFF), 4)
            elif a >= 0 and a + nbytes <= limit:
                old = lds_atomic(lds[base:], a, aop, v, c, nbytes)
            else:
                old = U64(0)
            if rtn:
                _vset(vgpr, ws, w, vdst, l, old & MASK32)
                if count == 2:
                    _vset(vgpr, ws, w, vdst + 1, l, old >> U64(32))


@njit
def _global_addr_space(addr):
    """0 global, 1 LDS (shared aperture), 2 scratch (private aperture)."""
    hi = U64(addr) >> U64(32)
    if hi == U64(SHARED_APERTURE_HI):
        return 1
    if hi == U64(PRIVATE_APERTURE_HI):
        return 2
    return 0


@njit
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
    for l in range(64):
        if not (ex >> U64(l)) & U64(1):
            continue
        addr = np.int64(_vreg(vgpr, ws, w, vaddr, l) | (_vreg(vgpr, ws, w, vaddr + 1, l) << U64(32)))
        space = _global_addr_space(addr)
        if space == 2:
            addr = scratch_lane_address(ws, w, l, addr & 0xFFFFFFFF)
            space = 0
        if kind == K_LOAD:
            for i in range(count):
                nb = size if size < 4 else 4
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
                nb = size if size < 4 else 4
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
                old = lds_atomic(lds[lbase:], a, aop, v, c, nbytes) if a + nbytes <= lsize else U64(0)
            else:
                old, ok = M.mem_atomic(mem_data, mem_mapped, mem_base, addr, aop, v, c, nbytes)
                if not ok:
                    record_fault(ws, w, faults, addr, l, 1)
            if glc:
                _vset(vgpr, ws, w, vdst, l, old & MASK32)
                if count == 2:
                    _vset(vgpr, ws, w, vdst + 1, l, old >> U64(32))


from .engine import WS_SCRATCH_BASE, WS_SCRATCH_WAVE  # noqa: E402


@njit
def scratch_lane_address(ws, w, lane, offset):
    return np.int64(M.scratch_address(ws[w, WS_SCRATCH_BASE], ws[w, WS_SCRATCH_WAVE], lane, offset))


@njit
def buffer_instruction(ins, w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, is_tbuffer):
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
    ex = get_exec(sregs, w)
    ws[w, WS_VMEM] += 1
    if kind == K_UNSUPPORTED:
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
        return
    if kind == K_NOP:
        return
    if not is_tbuffer and ins[C_F4]:
        # the lds bit (load straight into LDS through M0) is not modelled yet
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
        return
    if not sgpr_ok(ws, w, srsrc, 4):
        return
    w0 = U64(sregs[w, srsrc])
    w1 = U64(sregs[w, srsrc + 1])
    w2 = U64(sregs[w, srsrc + 2])
    w3 = U64(sregs[w, srsrc + 3])
    base = w0 | ((w1 & U64(0xFFFF)) << U64(32))
    stride = np.int64((w1 >> U64(16)) & U64(0x3FFF))
    swizzle = np.int64(w1 >> U64(31))
    num_records = np.int64(w2)
    element_size = np.int64(2 << ((w3 >> U64(19)) & U64(3)))
    index_stride = np.int64(8 << ((w3 >> U64(21)) & U64(3)))
    add_tid = np.int64((w3 >> U64(23)) & U64(1))
    soffset = read_scalar(sregs, ws, w, ins[C_S0], 1, 0, False)
    inst_offset = ins[C_IMM]
    nva = 2 if addr64 else (offen + idxen)
    if nva > 0 and not vgpr_ok(ws, w, vaddr, nva):
        return
    if kind == K_LOAD_FORMAT or kind == K_STORE_FORMAT:
        # only 32-bit-per-component data formats (32, 32_32, 32_32_32, 32_32_32_32) for now
        dfmt = ins[C_F4] if is_tbuffer else np.int64((w3 >> U64(15)) & U64(0xF))
        if dfmt != 4 and dfmt != 11 and dfmt != 13 and dfmt != 14:
            fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
            return
        size = 4
    is_load = kind == K_LOAD or kind == K_LOAD_FORMAT
    for l in range(64):
        if not (ex >> U64(l)) & U64(1):
            continue
        vidx = U64(0)
        voff = U64(0)
        v64 = U64(0)
        if addr64:
            v64 = _vreg(vgpr, ws, w, vaddr, l) | (_vreg(vgpr, ws, w, vaddr + 1, l) << U64(32))
        else:
            if idxen:
                vidx = _vreg(vgpr, ws, w, vaddr, l)
                if offen:
                    voff = _vreg(vgpr, ws, w, vaddr + 1, l)
            elif offen:
                voff = _vreg(vgpr, ws, w, vaddr, l)
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
                old, ok = M.mem_atomic(mem_data, mem_mapped, mem_base, np.int64(a), aop, v, c, nbytes)
                if not ok:
                    record_fault(ws, w, faults, np.int64(a), l, 1)
            if glc:
                _vset(vgpr, ws, w, vdata, l, old & MASK32)
                if count == 2:
                    _vset(vgpr, ws, w, vdata + 1, l, old >> U64(32))
            continue
        for i in range(count):
            nb = size if size < 4 else 4
            a, inr = M.buffer_address(base, stride, num_records, swizzle, element_size, index_stride,
                                      add_tid, idxen, offen, addr64, vidx, voff, v64, inst_offset,
                                      soffset, l, 4 * i)
            if is_load:
                v = U64(0)
                if inr:
                    v, ok = M.mem_load(mem_data, mem_mapped, mem_base, np.int64(a), nb)
                    if not ok:
                        record_fault(ws, w, faults, np.int64(a), l, 0)
                if sext:
                    v = _sext_bytes(v, size)
                _vset(vgpr, ws, w, vdata + i, l, v)
            elif inr:
                if not M.mem_store(mem_data, mem_mapped, mem_base, np.int64(a),
                                   _vreg(vgpr, ws, w, vdata + i, l), nb):
                    record_fault(ws, w, faults, np.int64(a), l, 1)


@njit
def memory_instruction(code, ins, w, sregs, ws, vgpr, lds, mem_data, mem_mapped, mem_base,
                       faults, tmp):
    h = ins[C_H]
    if h == H_DS:
        ds_instruction(ins, w, sregs, ws, vgpr, lds)
    elif h == H_FLAT:
        flat_instruction(ins, w, sregs, ws, vgpr, lds, mem_data, mem_mapped, mem_base, faults)
    elif h == H_MUBUF:
        buffer_instruction(ins, w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, False)
    elif h == H_MTBUF:
        buffer_instruction(ins, w, sregs, ws, vgpr, mem_data, mem_mapped, mem_base, faults, True)
    else:
        fail(ws, w, ERR_UNIMPLEMENTED, h)
