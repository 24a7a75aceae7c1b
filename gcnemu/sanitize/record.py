"""What the engine records for the sanitizer (``dispatch(..., sanitize=True)``).

The sanitizer runs the engine's trace recording (gcnemu/timing/trace.py: one
int64 array per batch, ``tr[0]`` the next free position, ``tr[1]`` the full flag, a
``-(w + 1)`` marker each time wave ``w`` starts running, then the program row of each executed
instruction) with one difference, chosen at compile time (``run_wave``'s ``san`` argument is
not None): the record after a memory instruction's row is the one written here, per lane,
instead of the timing model's cache lines. The timing record format is unchanged.

The record, computed *before* the instruction executes (a load may overwrite its address):

* SMRD loads: one entry, the byte address ``base + offset`` before the hardware aligns it;
* DS, FLAT, MUBUF, MTBUF, MIMG: EXEC (as int64), then for each active lane in lane order
  ``lane_entries`` addresses: DS ``(vaddr + offset) mod 2**32`` (per address of ds_*2*:
  two entries), FLAT the 64-bit address, MUBUF/MTBUF the address `buffer_address` computes
  with ``OUT_OF_RANGE`` set when the V# range check drops the lane (first or last dword);
  MIMG and GDS none (image addressing and GDS are not checked).
  A DS record with addresses (``lane_entries`` > 0) has a header after EXEC: -1, and the
  lanes' entries as above follow; or, for a whole wave whose lane addresses follow the
  pattern ``x(l) = a + (l mod P) s1 + (l div P) s2`` (P a power of two, 2 to 64: a row of
  lanes, a 2-D tile, a broadcast within groups of lanes; the second address of ds_*2* at
  ``x(l) + d``), ``log2 P`` and then ``a, s1, s2, d``: 5 entries where 64 or 128 would be.
  Nearly every LDS access of a real kernel has one; the analyses check such an access over
  the distinct addresses the pattern names, without reading 64 lanes' entries.

Which row takes how many entries per lane is a property of the row alone (`lane_entries`),
so the analyses (gcnemu/sanitize/analysis.py) walk the trace without markers. A memory
instruction whose address registers lie outside the wave's allocation records EXEC 0 (the
instruction fails anyway). Recording never changes functional state.
"""
from __future__ import annotations

import numpy as np

from ..exec.jit import njit
from ..exec.layout import (
    C_F0,
    C_F1,
    C_F2,
    C_F3,
    C_F5,
    C_F7,
    C_H,
    C_IMM,
    C_K,
    C_S0,
    C_S1,
    EXEC_HI,
    EXEC_LO,
    H_DS,
    H_FLAT,
    H_MTBUF,
    H_MUBUF,
    H_SMRD_LOAD,
    K_LOAD2,
    K_STORE2,
    K_WRXCHG2,
    WS_VBASE,
)
from ..mem.descriptors import (
    buffer_address,
    buffer_lane_operands,
    descriptor_words,
    vsharp_fields,
)
from ..mem.subops import subop_fields

U64 = np.uint64
#: set in a MUBUF/MTBUF lane's entry when the V# range check drops the access
OUT_OF_RANGE = np.int64(1) << 62


@njit
def lane_entries(code, pc):
    """Entries per active lane of row ``pc``'s record (0: none; SMRD: see the docstring)."""
    h = code[pc, C_H]
    if h == H_DS:
        if code[pc, C_F2] != 0:
            return 0                 # GDS
        kind = code[pc, C_K] & 0xFF
        return 2 if kind == K_LOAD2 or kind == K_STORE2 or kind == K_WRXCHG2 else 1
    if h == H_FLAT or h == H_MUBUF or h == H_MTBUF:
        return 1
    return 0


@njit(inline="always")
def _ds_pattern(vgpr, row, offa, offb, two, tr, at):
    """Write the compact record of a whole wave's DS addresses at ``tr[at:at + 5]`` and return
    True when they follow one (see the module docstring), else return False (what it wrote
    there, if anything, is overwritten). Branch-free loops over the lanes: ~10 ns for one
    line of lanes, ~25 ns for lines of P lanes."""
    m = np.int64(0xFFFFFFFF)
    e0 = (np.int64(vgpr[row, 0]) + offa) & m
    s1 = ((np.int64(vgpr[row, 1]) + offa) & m) - e0
    bad = np.int64(0)
    for l in range(64):                  # one line of lanes
        bad |= ((np.int64(vgpr[row, l]) + offa) & m) ^ (e0 + l * s1)
    k = np.int64(64)
    lg = np.int64(6)
    s2 = np.int64(0)
    if bad != 0:
        # lines of k lanes, k the first lane off the first line
        k = 2
        while k < 64 and ((np.int64(vgpr[row, k]) + offa) & m) == e0 + k * s1:
            k += 1
        if k & (k - 1):
            return False
        lg = 1
        while (1 << lg) != k:
            lg += 1
        s2 = ((np.int64(vgpr[row, k]) + offa) & m) - e0
        bad = np.int64(0)
        for l in range(64):
            bad |= ((np.int64(vgpr[row, l]) + offa) & m) ^ \
                (e0 + (l & (k - 1)) * s1 + (l >> lg) * s2)
        if bad != 0:
            return False
    d = np.int64(0)
    if two:
        d = ((np.int64(vgpr[row, 0]) + offb) & m) - e0
        for l in range(64):
            v = np.int64(vgpr[row, l])
            bad |= ((v + offb) & m) ^ (((v + offa) & m) + d)
        if bad != 0:
            return False
    tr[at] = lg
    tr[at + 1] = e0
    tr[at + 2] = s1
    tr[at + 3] = s2
    tr[at + 4] = d
    return True


@njit(_nrt=False)      # it allocates nothing: no reference counts of its arrays per call
def record_access(code, pc, w, sregs, ws, vgpr, tr, tp):
    """Append the sanitizer's record of the memory instruction at row ``pc`` (see the module
    docstring) at ``tr[tp]``; returns the new write position. At most 130 entries (with the
    row, within timing/trace.py's TRACE_SLACK: its DS scratch is not used by this trace)."""
    h = code[pc, C_H]
    if h == H_SMRD_LOAD:
        if code[pc, C_F1] != 0:
            c = code[pc, C_S1]
            off = np.int64(sregs[w, c]) if 0 <= c < 128 else np.int64(0)
        else:
            off = code[pc, C_IMM]
        s = code[pc, C_S0]
        base = np.int64(0)
        if 0 <= s and s + 1 < 128:
            base = np.int64(sregs[w, s]) | (np.int64(sregs[w, s + 1]) << 32)
            if code[pc, C_F0] != 0:      # s_buffer_load: 48-bit base from the V#
                base &= (np.int64(1) << 48) - 1
        tr[tp] = base + off
        return tp + 1
    ex = U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32))
    vbase = ws[w, WS_VBASE]
    nrows = vgpr.shape[0]
    per = lane_entries(code, pc)
    start = tp + 1
    n = 0
    if per == 0:
        tr[tp] = 0
        return start
    _, size, count, _, _, _, st64, _ = subop_fields(code[pc, C_K])
    if h == H_DS:
        row = vbase + code[pc, C_F3]
        if not (0 <= row < nrows):
            tr[tp] = 0
            tr[start] = -1
            return start + 1
        if per == 2:
            scale = 4 * max(1, count) * (64 if st64 else 1)
            offa = code[pc, C_F0] * scale
            offb = code[pc, C_F1] * scale
        else:
            offa = offb = code[pc, C_F0] | (code[pc, C_F1] << 8)
        tr[tp] = np.int64(ex)
        if ex == ~U64(0) and _ds_pattern(vgpr, row, offa, offb, per == 2, tr, start):
            return start + 5
        tr[start] = -1
        start += 1
        if ex == ~U64(0) and per == 1:
            # a whole wave at scattered addresses (a histogram's bins): a loop without
            # branches, vectorised
            for l in range(64):
                tr[start + l] = (np.int64(vgpr[row, l]) + offa) & 0xFFFFFFFF
            return start + 64
        for l in range(64):
            if (ex >> U64(l)) & U64(1):
                a = np.int64(vgpr[row, l])
                tr[start + n] = (a + offa) & 0xFFFFFFFF
                n += 1
                if per == 2:
                    tr[start + n] = (a + offb) & 0xFFFFFFFF
                    n += 1
        return start + n
    if h == H_FLAT:
        row = vbase + code[pc, C_F2]
        if not (0 <= row and row + 1 < nrows):
            tr[tp] = 0
            return start
        if ex == ~U64(0):
            for l in range(64):     # a whole wave: vectorised, as above
                tr[start + l] = np.int64(U64(vgpr[row, l]) | (U64(vgpr[row + 1, l]) << U64(32)))
            n = 64
        else:
            for l in range(64):
                if (ex >> U64(l)) & U64(1):
                    tr[start + n] = np.int64(U64(vgpr[row, l]) |
                                             (U64(vgpr[row + 1, l]) << U64(32)))
                    n += 1
    else:    # MUBUF, MTBUF
        offen = code[pc, C_F0]
        idxen = code[pc, C_F1]
        addr64 = code[pc, C_F3]
        vrow = vbase + code[pc, C_F5]
        srsrc = code[pc, C_F7] * 4
        if not (0 <= srsrc and srsrc + 3 < 128 and 0 <= vrow and vrow + 1 < nrows):
            tr[tp] = 0
            return start
        nbytes = max(1, min(size, 4) * max(count, 1))
        last = (nbytes - 4) if nbytes > 4 else 0
        w0, w1, w2, w3 = descriptor_words(sregs, w, srsrc)
        base, stride, swizzle, num_records, element_size, index_stride, add_tid = \
            vsharp_fields(w0, w1, w2, w3)
        c = code[pc, C_S0]
        soffset = U64(sregs[w, c]) if 0 <= c < 128 else U64(0)
        for l in range(64):
            if not (ex >> U64(l)) & U64(1):
                continue
            vidx, voff, v64 = buffer_lane_operands(vgpr, vrow, l, addr64, idxen, offen)
            a, inr = buffer_address(base, stride, num_records, swizzle, element_size,
                                    index_stride, add_tid, idxen, offen, addr64, vidx, voff,
                                    v64, code[pc, C_IMM], soffset, l, 0)
            if inr and last:
                _, inr = buffer_address(base, stride, num_records, swizzle, element_size,
                                        index_stride, add_tid, idxen, offen, addr64, vidx, voff,
                                        v64, code[pc, C_IMM], soffset, l, last)
            e = np.int64(a) & ((np.int64(1) << 62) - 1)
            tr[start + n] = e if inr else e | OUT_OF_RANGE
            n += 1
    tr[tp] = np.int64(ex)
    return start + n
