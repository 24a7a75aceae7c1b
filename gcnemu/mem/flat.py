"""FLAT: global, LDS (shared aperture) and scratch (private aperture) access by 64-bit address,
and the FLAT dword row kernels of the engine's fast path.

Unmapped memory reads 0 and drops writes (recorded as faults: the seeds ask for a
well-defined result plus an error).
"""
from __future__ import annotations

import numpy as np
from numba import carray, types

from ..exec.jit import native_address, njit, p_u8, p_u32, row_kernel_call
from ..exec.lanes import (flat_gather_1, flat_gather_2, flat_gather_3, flat_gather_4,
                          flat_scatter_1, flat_scatter_2, flat_scatter_3, flat_scatter_4)
from ..exec.layout import (C_K, K_ATOMIC, K_LOAD, K_STORE, MASK32, PRIVATE_APERTURE_HI,
                           SHARED_APERTURE_HI, U64, WS_LDS_BASE, WS_LDS_SIZE, WS_SCRATCH_BASE,
                           WS_SCRATCH_WAVE, WS_VBASE, WS_VMEM)
from ..exec.state import get_exec, record_fault, vgpr_ok
from .access import (atomic_lane_operands, lds_atomic, lds_read, lds_write, set_lane_value,
                     sext_bytes, vreg, vset)
from .atomics import ATOMIC_CMPSWAP, ATOMIC_FCMPSWAP, atomic_rmw, mem_atomic
from .descriptors import scratch_address
from .space import PAGE_SHIFT, mem_load, mem_store
from .subops import counted_and_runs, raw_fields, subop_fields


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


# The byte and short loads and stores (flat_load_ubyte/sbyte/ushort/sshort, flat_store_byte/
# short) by the same rule, as plain lane loops: every active lane is checked first (as in
# _flat_lane_body's fast path: not in the private aperture, the access inside the backing
# array, its first and last pages mapped; no alignment needed), and if one is not, nothing
# is accessed and its mask returned. Then lane by lane in lane order, each lane's address
# read before its own result is written (the destination may be the address row).
@njit(inline="always")
def _flat_small_rows(row, src, data, mapped, ubase, dlim, ps, priv, ex, size, sext, store):
    lo = carray(p_u32(src), (64,))
    hi = carray(p_u32(src + U64(256)), (64,))
    r = carray(p_u32(row), (64,))
    last = U64(size - 1)
    d = carray(p_u8(data), (dlim + U64(size),))
    pages = carray(p_u8(mapped), (((dlim + last) >> ps) + U64(1),))
    slow = U64(0)
    for l in range(64):
        if (ex >> U64(l)) & U64(1):
            ua = U64(lo[l]) | (U64(hi[l]) << U64(32))
            o = ua - ubase
            if not (U64(hi[l]) != priv and ua >= ubase and o <= dlim and pages[o >> ps] != 0
                    and pages[(o + last) >> ps] != 0):
                slow |= U64(1) << U64(l)
    if slow != U64(0):
        return slow
    for l in range(64):
        if (ex >> U64(l)) & U64(1):
            o = (U64(lo[l]) | (U64(hi[l]) << U64(32))) - ubase
            if store:
                v = r[l]
                d[o] = np.uint8(v & np.uint32(0xFF))
                if size == 2:
                    d[o + U64(1)] = np.uint8((v >> np.uint32(8)) & np.uint32(0xFF))
            else:
                v = U64(d[o])
                if size == 2:
                    v |= U64(d[o + U64(1)]) << U64(8)
                if sext:
                    v = sext_bytes(v, size)
                r[l] = np.uint32(v)
    return U64(0)


def _flat_read_u8(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return _flat_small_rows(row, src, data, mapped, ubase, dlim, ps, priv, ex, 1, False, False)


def _flat_read_i8(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return _flat_small_rows(row, src, data, mapped, ubase, dlim, ps, priv, ex, 1, True, False)


def _flat_read_u16(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return _flat_small_rows(row, src, data, mapped, ubase, dlim, ps, priv, ex, 2, False, False)


def _flat_read_i16(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return _flat_small_rows(row, src, data, mapped, ubase, dlim, ps, priv, ex, 2, True, False)


def _flat_write_8(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return _flat_small_rows(row, src, data, mapped, ubase, dlim, ps, priv, ex, 1, False, True)


def _flat_write_16(row, src, data, mapped, ubase, dlim, ps, priv, ex):
    return _flat_small_rows(row, src, data, mapped, ubase, dlim, ps, priv, ex, 2, False, True)


#: (kind, bytes, sign-extended) -> the byte and short row kernels
_FLAT_SMALL_KERNELS = {(K_LOAD, 1, 0): _flat_read_u8, (K_LOAD, 1, 1): _flat_read_i8,
                       (K_LOAD, 2, 0): _flat_read_u16, (K_LOAD, 2, 1): _flat_read_i16,
                       (K_STORE, 1, 0): _flat_write_8, (K_STORE, 2, 0): _flat_write_16}

_FLAT_ROW_KERNELS = {(K_LOAD, 1): _flat_read_1, (K_LOAD, 2): _flat_read_2,
                     (K_LOAD, 3): _flat_read_3, (K_LOAD, 4): _flat_read_4,
                     (K_STORE, 1): _flat_write_1, (K_STORE, 2): _flat_write_2,
                     (K_STORE, 3): _flat_write_3, (K_STORE, 4): _flat_write_4}
_FLAT_ROW_SIGNATURE = types.uint64(*([types.uint64] * 9))


def flat_row_form(sub: int, vaddr: int, vdata: int, vdst: int):
    """The engine's fast form of a FLAT instruction (subop ``sub``, raw fields), or None when it
    has none: (kernel address, row, bytes per lane, VGPR end): row is the destination (loads) or
    data (stores), VGPR end the allocation the instruction's rows need."""
    kind, size, count, sext, _, _, _, _ = subop_fields(sub)
    row = vdst if kind == K_LOAD else vdata
    if size < 4:
        key = (kind, size, int(bool(sext)) if kind == K_LOAD else 0)
        if count != 1 or key not in _FLAT_SMALL_KERNELS:
            return None
        fn = native_address(_FLAT_SMALL_KERNELS[key], _FLAT_ROW_SIGNATURE)
        return fn, row, size, max(row + 1, vaddr + 2)
    if (kind, count) not in _FLAT_ROW_KERNELS:
        return None
    fn = native_address(_FLAT_ROW_KERNELS[(kind, count)], _FLAT_ROW_SIGNATURE)
    return fn, row, 4 * count, max(row + count, vaddr + 2)


#: call_flat_rows(addr, row, addr_row, data, mapped, ubase, dlim, page_shift, private_hi,
#: exec) -> the slow lanes
call_flat_rows = row_kernel_call("call_flat_rows", True)



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
        if mem_mapped[o >> PAGE_SHIFT] != 0 and mem_mapped[(o + span - 1) >> PAGE_SHIFT] != 0:
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
                        v = sext_bytes(v, size)
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
                v, c = atomic_lane_operands(vgpr, vb + vdata, l, count,
                                            aop == ATOMIC_CMPSWAP or aop == ATOMIC_FCMPSWAP)
                # thread-safe (compare-and-swap): kernels whose atomics commute run on
                # several workers
                old, ok = atomic_rmw(mem_data, o, aop, v, c, nbytes)
                if not ok:
                    record_fault(ws, w, faults, addr, l, 1)
                if glc:
                    set_lane_value(vgpr, vb + vdst, l, count, old)
            return
    space = _global_addr_space(addr)   # 0 global or 1 LDS (scratch is mapped above)
    if kind == K_LOAD:
        for i in range(count):
            if space == 1:
                a = addr & 0xFFFFFFFF
                v = lds_read(lds, lbase, a + 4 * i, nb) if a + 4 * i + nb <= lsize else U64(0)
            else:
                v, ok = mem_load(mem_data, mem_mapped, mem_base, addr + 4 * i, nb)
                if not ok:
                    record_fault(ws, w, faults, addr + 4 * i, l, 0)
            if sext:
                v = sext_bytes(v, size)
            vset(vgpr, ws, w, vdst + i, l, v)
    elif kind == K_STORE:
        for i in range(count):
            v = vreg(vgpr, ws, w, vdata + i, l)
            if space == 1:
                a = addr & 0xFFFFFFFF
                if a + 4 * i + nb <= lsize:
                    lds_write(lds, lbase, a + 4 * i, v, nb)
            else:
                if not mem_store(mem_data, mem_mapped, mem_base, addr + 4 * i, v, nb):
                    record_fault(ws, w, faults, addr + 4 * i, l, 1)
    else:  # atomic
        nbytes = 4 * count
        v, c = atomic_lane_operands(vgpr, vb + vdata, l, count,
                                    aop == ATOMIC_CMPSWAP or aop == ATOMIC_FCMPSWAP)
        if space == 1:
            a = addr & 0xFFFFFFFF
            old = lds_atomic(lds, lbase, a, aop, v, c, nbytes) if a + nbytes <= lsize else U64(0)
        else:
            old, ok = mem_atomic(mem_data, mem_mapped, mem_base, addr, aop, v, c, nbytes)
            if not ok:
                record_fault(ws, w, faults, addr, l, 1)
        if glc:
            set_lane_value(vgpr, vb + vdst, l, count, old)


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
    ups = U64(PAGE_SHIFT)
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


@njit(_nrt=False)   # see the note in gcnemu/mem/access.py
def flat_instruction(ins, w, sregs, ws, vgpr, lds, mem_data, mem_mapped, mem_base, faults):
    kind, size, count, sext, aop, _, _, _ = subop_fields(ins[C_K])
    glc, _, vaddr, vdata, _, vdst, _, _ = raw_fields(ins)
    ex = get_exec(sregs, w)
    if not counted_and_runs(ins, ws, w, kind, WS_VMEM):
        return
    if not vgpr_ok(ws, w, vaddr, 2):
        return
    ndata = count if kind != K_ATOMIC else count * (2 if aop == ATOMIC_CMPSWAP or aop == ATOMIC_FCMPSWAP else 1)
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
        ups = U64(PAGE_SHIFT)
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


@njit
def scratch_lane_address(ws, w, lane, offset):
    return np.int64(scratch_address(ws[w, WS_SCRATCH_BASE], ws[w, WS_SCRATCH_WAVE], lane, offset))
