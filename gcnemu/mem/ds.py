"""DS: LDS and GDS access (GcnInstrsDs.md), and the LDS dword row kernels of the engine's
fast path.

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
"""
from __future__ import annotations

import numpy as np
from numba import carray, types

from ..exec.jit import native_address, njit, p_u32, row_kernel_call
from ..exec.lanes import (lds_gather1_1, lds_gather1_2, lds_gather1_3, lds_gather1_4,
                          lds_gather2_1, lds_gather2_2, lds_scatter1_1, lds_scatter1_2,
                          lds_scatter1_3, lds_scatter1_4, lds_scatter2_1, lds_scatter2_2)
from ..exec.layout import (C_K, K_APPEND, K_ATOMIC, K_CONSUME, K_LOAD, K_LOAD2, K_SRC2, K_STORE,
                           K_STORE2, K_SWIZZLE, K_WRXCHG2, M0, MASK32, U64, WS_LDS_BASE,
                           WS_LDS_INSTS, WS_LDS_OVERRUNS, WS_LDS_SIZE, WS_PC, WS_VBASE)
from ..exec.state import get_exec, record_lds_overrun, vgpr_ok
from ..sem.valu_int import popcount64
from .access import (lane_on, lane_value, lds_atomic, lds_read, lds_write, set_lane_value,
                     sext_bytes, vreg, vset)
from .atomics import (ATOMIC_ADD, ATOMIC_CMPSWAP, ATOMIC_FCMPSWAP, A_CONDXCHG, A_MSKOR, A_WRAP,
                      lds_atomic_new)
from .subops import counted_and_runs, raw_fields, subop_fields


# --- DS -------------------------------------------------------------------------------------
@njit(inline="always")
def lds_address(addr, offset, align):
    """The LDS address of a lane: ADDR + offset wrapped to 32 bits (the LDS address adder is 32
    bits wide: compilers fold a negative base register into a positive offset, e.g. ADDR =
    -4*lid, offset:252, and rely on the wrap), aligned down to ``align`` bytes."""
    return ((addr + offset) & 0xFFFFFFFF) & ~np.int64(align - 1)


@njit(_nrt=False)   # see the note in gcnemu/mem/access.py
def ds_instruction(ins, w, sregs, ws, vgpr, lds, scratch):
    kind, size, count, sext, aop, rtn, st64, swap_cmp = subop_fields(ins[C_K])
    off0, off1, gds, vaddr, d0, d1, vdst, _ = raw_fields(ins)
    ex = get_exec(sregs, w)
    if not counted_and_runs(ins, ws, w, kind, WS_LDS_INSTS):
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
            if lane_on(ex, l):
                cnt += U64(1)
        old = U64(0)
        if a + 4 <= lim:
            old = lds_read(lds, base, a, 4)
            new = (old + cnt) & MASK32 if kind == K_APPEND else (old - cnt) & MASK32
            lds_write(lds, base, a, new, 4)
        if vgpr_ok(ws, w, vdst, 1):
            for l in range(64):
                if lane_on(ex, l):
                    vset(vgpr, ws, w, vdst, l, old)
        return
    if not vgpr_ok(ws, w, vaddr, 1):
        return
    if kind == K_SWIZZLE:
        if not vgpr_ok(ws, w, vdst, 1):
            return
        src = scratch.view(np.uint64)   # 64 lanes of the source, copied first (vdst may = addr)
        for l in range(64):
            src[l] = vreg(vgpr, ws, w, vaddr, l)
        for l in range(64):
            if lane_on(ex, l):
                if offset16 & 0x8000:   # quad permute: 2 bits per lane of each quad
                    s = (l & 0x3C) | ((offset16 >> (2 * (l & 3))) & 3)
                else:                     # bit-masked permute within groups of 32
                    and_m = offset16 & 0x1F
                    or_m = (offset16 >> 5) & 0x1F
                    xor_m = (offset16 >> 10) & 0x1F
                    s = (l & 0x20) | ((((l & 0x1F) & and_m) | or_m) ^ xor_m)
                v = src[s] if lane_on(ex, s) else U64(0)
                vset(vgpr, ws, w, vdst, l, v)
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
    two_data = aop == ATOMIC_CMPSWAP or aop == ATOMIC_FCMPSWAP or aop == A_MSKOR or aop == A_WRAP
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
    lsize = ws[w, WS_LDS_SIZE]
    lds32 = lds[:lds.shape[0] & ~3].view(np.uint32)   # aligned dwords in one access
    for l in range(64):
        if not (ex >> U64(l)) & U64(1):
            continue
        addr = np.int64(vgpr[vb + vaddr, l])
        if kind == K_LOAD:
            a = lds_address(addr, offset16, align)
            ok = a + nb <= limit
            if not gds and a + nb > lsize:
                record_lds_overrun(ws, w, ws[w, WS_PC], a, l, 0)
            if size < 4:
                v = U64(0)
                if ok:
                    for b in range(size):
                        v |= U64(lds[base + a + b]) << U64(8 * b)
                if sext:
                    v = sext_bytes(v, size)
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
            a = lds_address(addr, offset16, align)
            if not gds and a + nb > lsize:
                record_lds_overrun(ws, w, ws[w, WS_PC], a, l, 1)
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
                a = lds_address(addr, (off0 if k == 0 else off1) * scale, nb)
                ok = a + nb <= limit
                if not gds and a + nb > lsize:
                    record_lds_overrun(ws, w, ws[w, WS_PC], a, l, int(kind != K_LOAD2))
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
            if not gds and max(a, b) + nb > lsize:
                record_lds_overrun(ws, w, ws[w, WS_PC], max(a, b), l, 1)
            if a + nb <= limit and b >= 0 and b + nb <= limit:
                v = lds_read(lds, base, b, nb)
                lds_atomic(lds, base, a, aop, v, U64(0), nb)
        else:  # K_ATOMIC
            a = lds_address(addr, offset16, nb)
            v = lane_value(vgpr, vb + d0, l, count)
            c = U64(0)
            if two_data:
                c = lane_value(vgpr, vb + d1, l, count)
                if swap_cmp:
                    v, c = c, v
            old = U64(0)
            if not gds and a + nb > lsize:
                record_lds_overrun(ws, w, ws[w, WS_PC], a, l, 1)
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
                    new = lds_atomic_new(old, aop, v, c, nb)
                    for b in range(nb):
                        lds[p + b] = np.uint8((new >> U64(8 * b)) & U64(0xFF))
            if rtn:
                set_lane_value(vgpr, vb + vdst, l, count, old)



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
# wave's 4-aligned LDS window, ulim the limit min(M0, LDS size) in bytes. Each returns the
# mask of the lanes of exec with an access out of range (see note_lds_row_overrun).

def _lds_read1_1(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_gather1_1(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read1_2(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_gather1_2(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read1_3(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_gather1_3(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read1_4(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_gather1_4(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read2_1(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_gather2_1(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_read2_2(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_gather2_2(ra, lds, src, uo0, uo1, amask, ulim, ex)


def _lds_write1_1(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_scatter1_1(lds, src, ra, ra, uo0, uo1, amask, ulim, ex)


def _lds_write1_2(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_scatter1_2(lds, src, ra, ra, uo0, uo1, amask, ulim, ex)


def _lds_write1_3(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_scatter1_3(lds, src, ra, ra, uo0, uo1, amask, ulim, ex)


def _lds_write1_4(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_scatter1_4(lds, src, ra, ra, uo0, uo1, amask, ulim, ex)


def _lds_write2_1(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_scatter2_1(lds, src, ra, rb, uo0, uo1, amask, ulim, ex)


def _lds_write2_2(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return lds_scatter2_2(lds, src, ra, rb, uo0, uo1, amask, ulim, ex)


# The dword LDS atomics with one data operand (ds_add_u32, ds_inc_u32, ds_max_i32, ...,
# returning or not): lane by lane in lane order (a later lane sees an earlier one's result,
# as in the hardware), through the same lds_atomic_new as ds_instruction. Here uo1 is the op
# (atomics.ATOMIC_*, A_*), row_a the destination (returning forms), row_b the data row.
@njit(inline="always")
def _lds_atomic_rows(ra, rb, lds, src, uo0, aop, amask, ulim, ex, rtn):
    addr = carray(p_u32(src), (64,))
    data = carray(p_u32(rb), (64,))
    dst = carray(p_u32(ra), (64,))
    words = carray(p_u32(lds), (ulim >> U64(2),))
    op = np.int64(aop)
    bad = U64(0)
    for l in range(64):
        if (ex >> U64(l)) & U64(1):
            # (ADDR + offset) wrapped to 32 bits, 4-aligned (lds_address), in range when
            # a + 4 <= ulim; read before this lane's result is written (vdst may be ADDR)
            a = (U64(addr[l]) + uo0) & amask
            old = U64(0)
            if ulim >= U64(4) and a <= ulim - U64(4):
                i = a >> U64(2)
                old = U64(words[i])
                v = U64(data[l])
                if op == ATOMIC_ADD:     # the common one (histograms, counters) inline
                    new = (old + v) & MASK32
                else:
                    new = lds_atomic_new(old, op, v, U64(0), 4)
                words[i] = np.uint32(new & MASK32)
            else:
                bad |= U64(1) << U64(l)
            if rtn:
                dst[l] = np.uint32(old)
    return bad


def _lds_atomic_rtn(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return _lds_atomic_rows(ra, rb, lds, src, uo0, uo1, amask, ulim, ex, True)


def _lds_atomic(ra, rb, lds, src, uo0, uo1, amask, ulim, ex):
    return _lds_atomic_rows(ra, rb, lds, src, uo0, uo1, amask, ulim, ex, False)


_LDS_ROW_KERNELS = {(K_LOAD, 1): _lds_read1_1, (K_LOAD, 2): _lds_read1_2,
                    (K_LOAD, 3): _lds_read1_3, (K_LOAD, 4): _lds_read1_4,
                    (K_LOAD2, 1): _lds_read2_1, (K_LOAD2, 2): _lds_read2_2,
                    (K_STORE, 1): _lds_write1_1, (K_STORE, 2): _lds_write1_2,
                    (K_STORE, 3): _lds_write1_3, (K_STORE, 4): _lds_write1_4,
                    (K_STORE2, 1): _lds_write2_1, (K_STORE2, 2): _lds_write2_2}
_LDS_ROW_SIGNATURE = types.uint64(*([types.uint64] * 9))


def lds_row_form(sub: int, off0: int, off1: int, gds: int, vaddr: int, data0: int, data1: int,
                 vdst: int):
    """The engine's fast form of a DS instruction (subop ``sub``, raw fields), or None when it
    has none: (kernel address, row_a, row_b, uo0, uo1, amask, VGPR end), rows and offsets as
    the kernels above take them; the kernel is compiled (or loaded from the disk cache) on
    first use. VGPR end is the allocation the instruction's rows need."""
    kind, size, count, _, aop, rtn, st64, _ = subop_fields(sub)
    if gds or size < 4:
        return None
    if kind == K_ATOMIC:
        # dword atomics with one data operand (see _lds_atomic_rows): uo1 carries the op
        if count != 1 or aop in (ATOMIC_CMPSWAP, ATOMIC_FCMPSWAP, A_MSKOR, A_WRAP, A_CONDXCHG):
            return None
        fn = _lds_atomic_rtn if rtn else _lds_atomic
        ra = vdst if rtn else data0
        end = max(ra, data0, vaddr) + 1
        return (native_address(fn, _LDS_ROW_SIGNATURE), ra, data0, off0 | (off1 << 8), aop,
                0xFFFFFFFC, end)
    if (kind, count) not in _LDS_ROW_KERNELS:
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




#: call_lds_rows(addr, row_a, row_b, lds, addr_row, uo0, uo1, amask, ulim, exec): the mask
#: of the lanes of exec with an access past ulim
call_lds_rows = row_kernel_call("call_lds_rows", True)


@njit(_nrt=False)
def note_lds_row_overrun(ins, ws, w, row, addresses, uo0, uo1, amask, bad):
    """Record the out-of-range lanes ``bad`` of a row kernel (instruction ``ins``, program
    row ``row``) as LDS overruns, the first with its address (the higher of its two, for
    ds_read2/write2) from ``addresses``, the instruction's address row as it was."""
    kind = subop_fields(ins[C_K])[0]
    lane = 0
    while not (bad >> U64(lane)) & U64(1):
        lane += 1
    v = np.int64(addresses[lane])
    # one address but for ds_read2/write2 (an atomic's uo1 is its op)
    a = (v + uo0) & amask
    if kind == K_LOAD2 or kind == K_STORE2:
        a = max(a, (v + uo1) & amask)
    record_lds_overrun(ws, w, row, a, lane, int(kind != K_LOAD and kind != K_LOAD2))
    ws[w, WS_LDS_OVERRUNS] += np.int64(popcount64(bad)) - 1
