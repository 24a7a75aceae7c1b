"""SMRD: scalar loads from memory (s_load_dword*, s_buffer_load_dword*) and s_memtime.

run_wave loads the common s_load_dword[xN] in place (smem_in_place); the rest (s_buffer_load,
s_memtime, a register offset, a fault, an unaligned or unmapped base) goes to smem, through
an entry compiled on first use like a memory family's (gcnemu/mem/entry.py): ~2.5 s of
compilation that a kernel whose scalar loads all take the fast form never needs."""
from __future__ import annotations

import numpy as np

from ..exec.jit import njit
from ..exec.layout import (C_DST, C_F0, C_F1, C_H, C_IMM, C_K, C_S0, C_S1, H_MEMTIME, MASK32, U64,
                           WS_INSTS, WS_SMEM)
from ..exec.state import read_scalar, record_fault, sgpr_ok, write_scalar
from .space import PAGE_SHIFT, mem_load


@njit(_nrt=False)
def smem(ins, w, sregs, ws, mem_data, mem_mapped, mem_base, faults):
    """SMRD: s_load_dword*, s_buffer_load_dword*, s_memtime.

    _nrt=False: it allocates nothing, and numba's atomic incref/decref of its array arguments
    cost ten times the load itself (see the note in gcnemu/mem/access.py)."""
    ws[w, WS_SMEM] += 1
    if ins[C_H] == H_MEMTIME:
        # a deterministic clock: 4 cycles per instruction issued so far by this wave
        write_scalar(sregs, ws, w, ins[C_DST], 2, U64(ws[w, WS_INSTS] * 4))
        return
    ndw = ins[C_K]
    if ins[C_F1]:
        off = np.int64(read_scalar(sregs, ws, w, ins[C_S1], 1, 0, False))
    else:
        off = ins[C_IMM]
    if not sgpr_ok(ws, w, ins[C_DST], ndw):
        return
    if ins[C_F0]:
        # s_buffer_load: base and num_records from the V# in four SGPRs
        if not sgpr_ok(ws, w, ins[C_S0], 4):
            return
        base = np.int64(U64(sregs[w, ins[C_S0]]) | ((U64(sregs[w, ins[C_S0] + 1]) & U64(0xFFFF)) << U64(32)))
        num_records = np.int64(sregs[w, ins[C_S0] + 2])
        for i in range(ndw):
            o = (off & ~3) + 4 * i      # CLRX: SMRD + i*4 + (OFFSET & ~3), base as it is
            v = U64(0)
            if o + 4 <= num_records:
                v = _smem_dword(mem_data, mem_mapped, mem_base, base + o, ws, w, faults)
            sregs[w, ins[C_DST] + i] = np.uint32(v & MASK32)
        return
    if not sgpr_ok(ws, w, ins[C_S0], 2):
        return
    base = np.int64(U64(sregs[w, ins[C_S0]]) | (U64(sregs[w, ins[C_S0] + 1]) << U64(32)))
    # CLRX GcnInstrsSmrd.md, S_LOAD_DWORD: SDST = *(UINT32*)(SMRD + (OFFSET & ~3)): the byte
    # offset loses its two low bits, the base is used as it is (as for s_buffer_load above)
    addr = base + (off & ~np.int64(3))
    for i in range(ndw):
        v = _smem_dword(mem_data, mem_mapped, mem_base, addr + 4 * i, ws, w, faults)
        sregs[w, ins[C_DST] + i] = np.uint32(v & MASK32)


@njit(inline="always")
def smem_in_place(sregs, w, base_reg, offset, ndw, dst, mem_data, mem_mapped, mem_base):
    """The engine's fast form of s_load_dword[xN] (SGPR base, immediate offset; registers
    checked at decode: program.py): when its ``ndw`` dwords at base + (offset & ~3) are
    4-aligned in the backing array and their first and last pages (at most two: 64 bytes,
    256-byte pages) are mapped, loads them into SGPRs ``dst``.. and returns True; otherwise
    does nothing and returns False (smem then runs it, recording the faults). Plain indexing
    only: run_wave, which inlines it, is compiled without reference counting."""
    ua = (U64(sregs[w, base_reg]) | (U64(sregs[w, base_reg + 1]) << U64(32))) + \
        U64(offset & ~np.int64(3))
    ub = U64(mem_base)
    span = U64(4 * ndw)
    n = U64(mem_data.shape[0])
    if ua < ub or n < span or ua - ub > n - span or (ua & U64(3)) != U64(0):
        return False
    o = ua - ub
    if mem_mapped[o >> U64(PAGE_SHIFT)] == 0 or \
            mem_mapped[(o + span - U64(1)) >> U64(PAGE_SHIFT)] == 0:
        return False
    for i in range(ndw):
        q = o + U64(4 * i)
        sregs[w, dst + i] = np.uint32(mem_data[q]) | \
            (np.uint32(mem_data[q + U64(1)]) << np.uint32(8)) | \
            (np.uint32(mem_data[q + U64(2)]) << np.uint32(16)) | \
            (np.uint32(mem_data[q + U64(3)]) << np.uint32(24))
    return True


@njit(inline="always")
def _smem_dword(mem_data, mem_mapped, mem_base, addr, ws, w, faults):
    """The dword at addr: read in place when it is backed and mapped (no call per dword),
    else through space.mem_load, recording the fault."""
    ua = U64(addr)
    ub = U64(mem_base)
    if ua >= ub and ua - ub <= U64(mem_data.shape[0]) - U64(4):
        o = np.int64(ua - ub)
        if mem_mapped[o >> PAGE_SHIFT] != 0 and mem_mapped[(o + 3) >> PAGE_SHIFT] != 0:
            v = U64(0)
            for b in range(4):
                v |= U64(mem_data[o + b]) << U64(8 * b)
            return v
    v, ok = mem_load(mem_data, mem_mapped, mem_base, addr, 4)
    if not ok:
        record_fault(ws, w, faults, addr, -1, 0)
    return v
