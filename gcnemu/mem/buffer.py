"""MUBUF and MTBUF: buffer access through a V# (GcnInstrsMubuf.md, GcnInstrsMtbuf.md).

Buffer accesses outside the V# range (descriptors.buffer_address, incl. swizzled buffers)
read 0 and drop writes without a fault; unmapped memory reads 0 and drops writes, recorded
as a fault (the seeds ask for a well-defined result plus an error). Data formats:
gcnemu/mem/formats.py.

Alignment (CLRX GcnMemHandling.md, buffer addressing: "For 32-bit and wider operations, an
address are aligned to 4 bytes. For 16-bit operations, an address are aligned to 2 bytes."):
the final address of a dword (or wider) access, of an atomic, and of a 4-byte format
component drops its two low bits; of a 16-bit access or component, its low bit.

A lane whose first component is out of range reads 0 for all four before DST_SEL.
TFE: one more VGPR after the data gets 0, or 1 when an access of the lane hit unmapped
memory. LDS=1 (buffer_load_ubyte/sbyte/ushort/sshort/dword/format_x): the value, zero-
extended to a dword as GcnMemHandling.md says, goes to LDS at
LDS_BASE + M0[15:0] + inst_offset + lane*4 (the AMD Sea Islands manual's formula; CLRX's
omits inst_offset) instead of VGPRs; beyond the wave's LDS allocation it is dropped.
buffer_wbinvl1 / _vol change no memory here: the functional memory is coherent. In
coherency-accurate mode (GPU(coherent_caches=True)) gcnemu/coherency.py reads them from the
trace and invalidates the wave's CU's L1.
"""
from __future__ import annotations

import numpy as np

from ..exec.jit import njit
from ..exec.layout import (C_H, C_IMM, C_K, C_LIT, C_S0, ERR_FORMAT, ERR_UNIMPLEMENTED, K_ATOMIC,
                           K_LOAD, K_LOAD_FORMAT, K_STORE_FORMAT, M0, MASK32, U64, WS_LDS_BASE,
                           WS_LDS_SIZE, WS_VBASE, WS_VMEM)
from ..exec.state import fail, get_exec, read_scalar, record_fault, sgpr_ok, vgpr_ok
from .access import atomic_lane_operands, lds_write, set_lane_value, sext_bytes, vreg, vset
from .atomics import A_RSUB, ATOMIC_CMPSWAP, ATOMIC_FCMPSWAP, mem_atomic
from .descriptors import buffer_address, buffer_lane_operands, descriptor_words, vsharp_fields
from .formats import (FMT_NC, NF_UINT, component_layout, dst_select, fmt_one, fmt_valid,
                      load_component, store_component)
from .space import PAGE_SHIFT, mem_load, mem_store
from .subops import counted_and_runs, raw_fields, subop_fields


# --- MUBUF / MTBUF --------------------------------------------------------------------------
@njit(_nrt=False)   # see the note in gcnemu/mem/access.py
def buffer_instruction(ins, w, sregs, ws, vgpr, lds, mem_data, mem_mapped, mem_base, faults,
                       is_tbuffer, scratch):
    """MUBUF and MTBUF: address from the V# in four SGPRs, per lane, with the range rule."""
    kind, size, count, sext, aop, _, _, _ = subop_fields(ins[C_K])
    offen, idxen, glc, addr64, lds_or_dfmt, vaddr, vdata, srsrc = raw_fields(ins)
    srsrc *= 4
    tfe = ins[C_LIT] & 0xFF
    to_lds = 0 if is_tbuffer else lds_or_dfmt
    ex = get_exec(sregs, w)
    if not counted_and_runs(ins, ws, w, kind, WS_VMEM):
        return
    if to_lds and (tfe or count != 1 or not (kind == K_LOAD or kind == K_LOAD_FORMAT)):
        fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])   # lds=1 is defined for single-dword loads only
        return
    if not sgpr_ok(ws, w, srsrc, 4):
        return
    w0, w1, w2, w3 = descriptor_words(sregs, w, srsrc)
    base, stride, swizzle, num_records, element_size, index_stride, add_tid = \
        vsharp_fields(w0, w1, w2, w3)
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
            dfmt = lds_or_dfmt
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
        ndata = count * (2 if aop == ATOMIC_CMPSWAP or aop == ATOMIC_FCMPSWAP else 1)
    if not to_lds and not vgpr_ok(ws, w, vdata, ndata + (1 if tfe and is_load else 0)):
        return
    vals = scratch.view(np.uint64)[:4]
    vb = ws[w, WS_VBASE]
    ubase = U64(mem_base)
    dsize = U64(mem_data.shape[0])
    for l in range(64):
        if not (ex >> U64(l)) & U64(1):
            continue
        vidx, voff, v64 = buffer_lane_operands(vgpr, vb + vaddr, l, addr64, idxen, offen)
        failed = False
        if kind == K_ATOMIC:
            a, inr = buffer_address(base, stride, num_records, swizzle, element_size, index_stride,
                                    add_tid, idxen, offen, addr64, vidx, voff, v64, inst_offset,
                                    soffset, l, 0)
            a &= ~U64(3)
            nbytes = 4 * count
            v, c = atomic_lane_operands(vgpr, vb + vdata, l, count,
                                        aop == ATOMIC_CMPSWAP or aop == ATOMIC_FCMPSWAP)
            old = U64(0)
            if inr:
                if aop > A_RSUB:      # rsub (GCN 1.0) is the one DS-only op a buffer has
                    fail(ws, w, ERR_UNIMPLEMENTED, ins[C_H])
                    return
                old, ok = mem_atomic(mem_data, mem_mapped, mem_base, np.int64(a), aop, v, c, nbytes)
                if not ok:
                    record_fault(ws, w, faults, np.int64(a), l, 1)
            if glc:
                set_lane_value(vgpr, vb + vdata, l, count, old)
            continue
        if is_format:
            # per component: the byte container holding it (1, 2 or 4 bytes) at its offset
            nc = FMT_NC[dfmt]
            first_in = True
            for k in range(4):
                vals[k] = U64(0)
            if not is_load:
                for k in range(min(count, nc)):
                    bits, coff, csize, shift = component_layout(dfmt, k)
                    a, inr = buffer_address(base, stride, num_records, swizzle, element_size,
                                            index_stride, add_tid, idxen, offen, addr64, vidx,
                                            voff, v64, inst_offset, soffset, l, coff)
                    a &= ~U64(csize - 1)
                    if inr and not store_component(mem_data, mem_mapped, mem_base, np.int64(a),
                                                   vreg(vgpr, ws, w, vdata + k, l), bits, csize,
                                                   shift, nfmt):
                        record_fault(ws, w, faults, np.int64(a), l, 1)
                continue
            for k in range(nc):
                bits, coff, csize, shift = component_layout(dfmt, k)
                a, inr = buffer_address(base, stride, num_records, swizzle, element_size,
                                        index_stride, add_tid, idxen, offen, addr64, vidx,
                                        voff, v64, inst_offset, soffset, l, coff)
                a &= ~U64(csize - 1)
                if k == 0:
                    first_in = inr
                if not inr:
                    continue
                vals[k], ok = load_component(mem_data, mem_mapped, mem_base, np.int64(a), bits,
                                             csize, shift, nfmt)
                if not ok:
                    failed = True
                    record_fault(ws, w, faults, np.int64(a), l, 0)
            one = fmt_one(nfmt)
            if first_in and nc < 4:
                vals[3] = one
            if not first_in:
                for k in range(4):
                    vals[k] = U64(0)
            for i in range(count):
                v = dst_select(vals, (dsel >> (3 * i)) & 7, one)
                if to_lds:
                    _lds_dword_store(lds, ws, w, sregs, inst_offset, l, v)
                else:
                    vset(vgpr, ws, w, vdata + i, l, v)
        else:
            for i in range(count):
                nb = size if size < 4 else 4
                a, inr = buffer_address(base, stride, num_records, swizzle, element_size, index_stride,
                                        add_tid, idxen, offen, addr64, vidx, voff, v64, inst_offset,
                                        soffset, l, 4 * i)
                a &= ~U64(nb - 1)
                # mapped and backed: accessed here directly (see the note in gcnemu/mem/access.py)
                o = np.int64(-1)
                if inr and a >= ubase and a - ubase <= dsize - U64(nb):
                    o = np.int64(a - ubase)
                    if mem_mapped[o >> PAGE_SHIFT] == 0 or mem_mapped[(o + nb - 1) >> PAGE_SHIFT] == 0:
                        o = -1
                if is_load:
                    v = U64(0)
                    if o >= 0:
                        for b in range(nb):
                            v |= U64(mem_data[o + b]) << U64(8 * b)
                    elif inr:
                        v, ok = mem_load(mem_data, mem_mapped, mem_base, np.int64(a), nb)
                        if not ok:
                            failed = True
                            record_fault(ws, w, faults, np.int64(a), l, 0)
                    if to_lds:   # zero-extended (GcnMemHandling.md)
                        _lds_dword_store(lds, ws, w, sregs, inst_offset, l, v)
                        continue
                    if sext:
                        v = sext_bytes(v, size)
                    vgpr[vb + vdata + i, l] = np.uint32(v & MASK32)
                elif o >= 0:
                    sv = vgpr[vb + vdata + i, l]
                    for b in range(nb):
                        mem_data[o + b] = np.uint8((sv >> np.uint32(8 * b)) & np.uint32(0xFF))
                elif inr:
                    if not mem_store(mem_data, mem_mapped, mem_base, np.int64(a),
                                     U64(vgpr[vb + vdata + i, l]), nb):
                        record_fault(ws, w, faults, np.int64(a), l, 1)
        if tfe and is_load:
            vgpr[vb + vdata + count, l] = np.uint32(1 if failed else 0)


@njit
def _lds_dword_store(lds, ws, w, sregs, inst_offset, lane, v):
    """MUBUF lds=1: LDS_ADDR = LDS_BASE + M0[15:0] + inst_offset + lane*4."""
    a = np.int64(sregs[w, M0] & np.uint32(0xFFFF)) + inst_offset + 4 * lane
    if a + 4 <= ws[w, WS_LDS_SIZE]:
        lds_write(lds, ws[w, WS_LDS_BASE], a, v, 4)
