"""The two ends of the graphics pipeline a compute emulator still meets: parameter
interpolation from LDS (VINTRP: interp_instruction) and exports (EXP: export_instruction,
captured in a buffer that new_export_buffer makes and read_exports reads).
"""
from __future__ import annotations

import numpy as np

from ..exec.jit import njit
from ..exec.layout import (C_F5, C_K, C_LIT, K_INTERP_MOV, K_INTERP_P1, K_INTERP_P2, M0, MASK32,
                           U64, WS_LDS_BASE, WS_LDS_SIZE)
from ..exec.state import count_valu, get_exec, vgpr_ok
from ..sem.fp import as_f32, f32_bits
from .access import lane_on, lds_read, vreg, vset
from .subops import raw_fields


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
    vsrc, chan, attr, vdst, _, _, _, _ = raw_fields(ins)
    ex = get_exec(sregs, w)
    count_valu(ws, w, ex)
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
        if not lane_on(ex, l):
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
        pa = lds_read(lds, lbase, o0, 4) if o0 + 4 <= lsize else U64(0)
        pb = lds_read(lds, lbase, o1, 4) if o1 + 4 <= lsize else U64(0)
        if kind == K_INTERP_P1:
            i = as_f32(vreg(vgpr, ws, w, vsrc, l))
            prod = np.float32(i * as_f32(pb))
            r = np.float32(as_f32(pa) + prod)
            vset(vgpr, ws, w, vdst, l, U64(f32_bits(r)))
        elif kind == K_INTERP_P2:
            j = as_f32(vreg(vgpr, ws, w, vsrc, l))
            prod = np.float32(j * as_f32(pa))
            r = np.float32(as_f32(vreg(vgpr, ws, w, vdst, l)) + prod)
            vset(vgpr, ws, w, vdst, l, U64(f32_bits(r)))
        else:
            vset(vgpr, ws, w, vdst, l, pa)


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
    en, tgt, compr, done, vm, _, _, _ = raw_fields(ins)
    ex = get_exec(sregs, w)
    k = np.int64(exports[0, 0])
    exports[0, 0] = np.uint32(k + 1)
    row = k + 1
    if row >= exports.shape[0]:
        return
    exports[row, EX_WAVE] = np.uint32(w)
    exports[row, EX_TARGET] = np.uint32(tgt)
    exports[row, EX_EN] = np.uint32(en)
    exports[row, EX_FLAGS] = np.uint32((EXF_COMPR if compr else 0) | (EXF_DONE if done else 0)
                                       | (EXF_VM if vm else 0))
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
            v = vreg(vgpr, ws, w, r, l) if lane_on(ex, l) else U64(0)
            if compr:
                v = (v >> U64(16 * (c & 1))) & U64(0xFFFF)
            exports[row, EXPORT_HEADER + 64 * c + l] = np.uint32(v)
