"""The wave state's accessors that the engine and the memory families share (numba).

EXEC and VCC as 64-bit masks, scalar operand reads and writes with their range checks, VGPR
range checks, stopping a wave with an error and recording an access to unmapped memory. The
arrays and their columns are described in gcnemu/exec/layout.py.
"""
from __future__ import annotations

import numpy as np

from ..sem.valu_int import popcount64
from .jit import njit
from .layout import (ERR_BAD_OPERAND, ERR_OPERAND_SPACE, ERR_SGPR_RANGE, ERR_VGPR_RANGE, EXEC_HI,
                     EXEC_LO, INLINE_F32, INLINE_F64, MASK32, SGPR_MAX, ST_ERROR, U64, VCC_HI,
                     VCC_LO, WS_ERR, WS_ERR_ARG, WS_ERR_LANE, WS_ERR_ROW, WS_FAULTS,
                     WS_LDS_OVERRUN_ADDR, WS_LDS_OVERRUN_LANE, WS_LDS_OVERRUN_ROW,
                     WS_LDS_OVERRUNS, WS_PC, WS_SCC, WS_SGPRS, WS_STATUS, WS_VALU,
                     WS_VALU_LANES, WS_VCOUNT)




# --- register access ------------------------------------------------------------------------
# The operand readers and writers used by the general path are ordinary calls, not inlined:
# step_generic uses them at some 40 sites, and inlining each one tripled the engine's compile
# time (cold start: 107 -> 54 s CPU for the first dispatch) for no measured speed (the hot
# handlers are written out in run_wave).
@njit(inline="always")
def get_exec(sregs, w):
    return U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32))


@njit(inline="always")
def get_vcc(sregs, w):
    return U64(sregs[w, VCC_LO]) | (U64(sregs[w, VCC_HI]) << U64(32))


@njit(inline="always")
def set_pair(sregs, w, code, v):
    sregs[w, code] = np.uint32(v & MASK32)
    sregs[w, code + 1] = np.uint32(v >> U64(32))


@njit(inline="always")
def count_valu(ws, w, exec_mask):
    """Count one VALU wave-instruction issued with ``exec_mask`` (the EXEC it ran under)."""
    ws[w, WS_VALU] += 1
    ws[w, WS_VALU_LANES] += np.int64(popcount64(exec_mask))


@njit(inline="always")
def fail(ws, w, code, arg, lane=-1):
    """Stop wave w with an error (the row is the current PC)."""
    if ws[w, WS_STATUS] != ST_ERROR:
        ws[w, WS_STATUS] = ST_ERROR
        ws[w, WS_ERR] = code
        ws[w, WS_ERR_ROW] = ws[w, WS_PC]
        ws[w, WS_ERR_ARG] = arg
        ws[w, WS_ERR_LANE] = lane


@njit(inline="always")
def sgpr_ok(ws, w, code, ndw):
    """Check a range of ``ndw`` scalar registers from operand code ``code``: SGPRs must lie in
    the wave's allocation; a range of special registers (104..127) must end by EXEC_HI, the
    last row of ``sregs``. Fails the wave otherwise (so no access leaves its row)."""
    if code < 0:
        fail(ws, w, ERR_BAD_OPERAND, code)
        return False
    if code <= SGPR_MAX:
        if code + ndw > ws[w, WS_SGPRS]:
            fail(ws, w, ERR_SGPR_RANGE, code + ndw - 1)
            return False
    elif code + ndw > 128:
        fail(ws, w, ERR_OPERAND_SPACE, code + ndw - 1)
        return False
    return True


@njit
def read_scalar(sregs, ws, w, code, ndw, lit, lit_high):
    """Value of a scalar operand (register, inline constant, literal) of 1 or 2 dwords."""
    if code == 125:
        fail(ws, w, ERR_BAD_OPERAND, code)
        return U64(0)
    if code < 128:
        if not sgpr_ok(ws, w, code, ndw):
            return U64(0)
        v = U64(sregs[w, code])
        if ndw >= 2:
            v |= U64(sregs[w, code + 1]) << U64(32)
        return v
    if code <= 192:
        return U64(code - 128)
    if code <= 208:
        v = U64(0) - U64(code - 192)
        return v if ndw >= 2 else v & MASK32
    if 240 <= code <= 247:
        return INLINE_F64[code - 240] if ndw >= 2 else INLINE_F32[code - 240]
    if code == 251:  # VCCZ
        return U64(1) if get_vcc(sregs, w) == U64(0) else U64(0)
    if code == 252:  # EXECZ
        return U64(1) if get_exec(sregs, w) == U64(0) else U64(0)
    if code == 253:  # SCC
        return U64(ws[w, WS_SCC])
    if code == 255:
        v = U64(lit) & MASK32
        if ndw >= 2 and lit_high:
            return v << U64(32)
        return v
    fail(ws, w, ERR_BAD_OPERAND, code)
    return U64(0)


@njit
def write_scalar(sregs, ws, w, code, ndw, v):
    if code > 127 or code == 125:
        fail(ws, w, ERR_BAD_OPERAND, code)
        return
    if not sgpr_ok(ws, w, code, ndw):
        return
    sregs[w, code] = np.uint32(v & MASK32)
    for i in range(1, ndw):
        sregs[w, code + i] = np.uint32((v >> U64(32 * i)) & MASK32) if i < 2 else sregs[w, code + i]


@njit(inline="always")
def vgpr_ok(ws, w, r, ndw):
    if r < 0 or r + ndw > ws[w, WS_VCOUNT]:
        fail(ws, w, ERR_VGPR_RANGE, r + ndw - 1)
        return False
    return True



@njit(inline="always")
def record_lds_overrun(ws, w, row, addr, lane, is_write):
    """Remember an LDS access past the workgroup's allocation (it read 0 / was dropped) by
    program row ``row``."""
    if ws[w, WS_LDS_OVERRUNS] == 0:
        ws[w, WS_LDS_OVERRUN_ADDR] = addr
        ws[w, WS_LDS_OVERRUN_ROW] = row
        ws[w, WS_LDS_OVERRUN_LANE] = lane + 256 * is_write
    ws[w, WS_LDS_OVERRUNS] += 1


def first_lds_overrun(ws, w):
    """Wave w's first LDS access past its allocation as record_lds_overrun kept it: (byte
    address, program row, lane, is_write), or None when it made none."""
    if ws[w, WS_LDS_OVERRUNS] == 0:
        return None
    lane_wr = int(ws[w, WS_LDS_OVERRUN_LANE])
    return (int(ws[w, WS_LDS_OVERRUN_ADDR]), int(ws[w, WS_LDS_OVERRUN_ROW]), lane_wr & 255,
            int(lane_wr >= 256))


@njit
def record_fault(ws, w, faults, addr, lane, is_write):
    """Remember an access to unmapped memory: the access got zero / was dropped."""
    k = ws[w, WS_FAULTS]
    if k < faults.shape[1]:
        faults[w, k, 0] = addr
        faults[w, k, 1] = ws[w, WS_PC]
        faults[w, k, 2] = lane
        faults[w, k, 3] = is_write
    ws[w, WS_FAULTS] = k + 1

