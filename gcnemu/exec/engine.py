"""The execution engine: one numba loop that runs waves over a decoded Program.

This is the only place that dispatches on instruction handlers. Per-opcode arithmetic lives
in gcnemu/sem (reached through the generated gcnemu/exec/dispatch_gen.py and the op kernels of
gcnemu/exec/opkernels.py); the memory families in gcnemu/mem, called through their compiled
entries (gcnemu/mem/entry.py) or, for dword LDS and FLAT accesses and scalar loads, directly.
The arrays it runs on and their columns are described in gcnemu/exec/layout.py.
"""
from __future__ import annotations

import numpy as np
from numba import types

from ..errors import ExecutionError
from ..mem.ds import call_lds_rows, note_lds_row_overrun
from ..mem.entry import call_family, call_with_frame, family_address, frame_program, frame_state
from ..mem.flat import call_flat_rows
from ..mem.formats import format_error_text
from ..mem.scalar import smem_in_place
from ..mem.space import PAGE_SHIFT
from ..sem import fp as FP
from ..sanitize.record import record_access
from ..sem.valu_int import popcount64
from ..timing.trace import TRACE_SLACK, add_run, call_recorder, recorder_address, runs_limit
from . import dispatch_gen as D
from .jit import native_address, njit, view_i64_2d, view_u8_1d, view_u32_2d, view_u64_2d
from .lanes import copy_row_modified, fill_row
from .layout import (ALL_LANES, C_ABS, C_BLEN, C_BLK, C_BNDS, C_BNSALU, C_BNVALU, C_BSMAX, C_BVMAX,
                     C_CLAMP, C_DST, C_DS_AMASK, C_DS_FN, C_DS_ROW_A, C_DS_ROW_B,
                     C_DS_UO0, C_DS_UO1, C_F2, C_F3, C_FAST, C_FLAGS, C_FL_FN, C_FL_ROW, C_FL_SPAN,
                     C_FN, C_H, C_IMM, C_K, C_K0, C_K1, C_K2, C_KD, C_LIT, C_NEG, C_OMOD, C_OMODW,
                     C_PC, C_S0, C_S1, C_S2, C_SDST, C_SIZE, C_SMAX, C_TGT, C_V0, C_V1, C_V2,
                     C_VMAX, C_W0, C_W1, C_W2, C_WD, ERROR_TEXT, ERR_BAD_OPERAND,
                     ERR_BRANCH_TARGET, ERR_FORK_STACK, ERR_FORMAT, ERR_PC_RANGE, ERR_SGPR_RANGE,
                     ERR_STEP_LIMIT, ERR_TRAP, ERR_UNIMPLEMENTED, ERR_VGPR_RANGE, EXEC_HI, EXEC_LO,
                     FL_CIN_S2, FL_CIN_VCC, FL_CMP, FL_CMPX, FL_FLAGS_TO_SDST, FL_LIT_HIGH,
                     FL_PLAIN32,
                     FL_ROW32, C_SFN, FR_BASE, FR_CODE, FR_DATA, FR_EXPORTS, FR_FAULTS, FR_GENERIC,
                     FR_INS, FR_LDS, FR_MAPPED, FR_MSGS, FR_NCOLS, FR_NDATA, FR_NEED, FR_NEED_KIND,
                     FR_NEXP, FR_NEXPC, FR_NF0, FR_NF1, FR_NLDS, FR_NMAPPED, FR_NMSGS, FR_NROWS,
                     FR_NTR, FR_NV, FR_NW, FR_NWS, FR_PC, FR_REC, FR_REC_DS, FR_REC_IMG, FR_SCC, FR_SREGS,
                     FR_T32, FR_TMP, FR_TR, FR_TR_ROW, FR_TR_RUN, FR_VGPR, FR_W, FR_WS,
                     H_BARRIER,
                     H_BRANCH, H_CBRANCH, H_CBRANCH_G_FORK, H_CBRANCH_I_FORK, H_CBRANCH_JOIN, H_DS,
                     H_ENDPGM, H_EXP, H_FLAT, H_GETPC, H_GETREG, H_MEMTIME, H_MIMG, H_MOVRELD,
                     H_MOVRELS, H_MQSAD, H_NOP, H_READFIRSTLANE, H_READLANE, H_RFE, H_SALU,
                     H_SAVEEXEC, H_SENDMSG, H_SETHALT, H_SETPC, H_SETREG, H_SMRD_LOAD, H_SWAPPC,
                     H_TRAP, H_VALU, H_VCMP, H_VMOVRELD, H_VMOVRELS, H_VMOVRELSD, H_WAITCNT,
                     H_WRITELANE, M0, MASK32, NEED_REC, NEED_REC_DS, NEED_REC_IMG, NEED_ROW, OP_CONST, OP_NONE,
                     OP_SREG, OP_VGPR,
                     PRIVATE_APERTURE_HI, SQ_AND, SQ_ANDN2, SQ_MOV, SQ_NAND, SQ_NONE, SQ_NOR,
                     SQ_OR, SQ_ORN2, SQ_XNOR, SQ_XOR, ST_BARRIER, ST_DONE, ST_ERROR, ST_HALTED,
                     ST_READY, U64, VCC_HI, VCC_LO, WS_CODE_BASE, WS_CSP, WS_ERR, WS_ERR_ARG,
                     WS_ERR_LANE, WS_ERR_ROW, WS_FORK_STACK, WS_GROUP, WS_HW_ID, WS_INSTS,
                     WS_LDS_BASE, WS_LDS_INSTS, WS_LDS_SIZE, WS_MODE, WS_MSG_COUNT, WS_PC, WS_SALU,
                     WS_SCC, WS_SGPRS, WS_SMEM, WS_STATUS, WS_STEPS, WS_TAKEN, WS_TRAPSTS,
                     WS_VALU, WS_VALU_LANES, WS_VBASE, WS_VCOUNT, WS_VMEM, WS_WORK)
from .opkernels import call_block, call_ds_block, call_salu, call_valu, call_valu32
from .state import (count_valu, fail, get_exec, get_vcc, read_scalar, set_pair, vgpr_ok,
                    write_scalar)



@njit
def read_vector(vgpr, sregs, ws, w, code, ndw, lit, lit_high, lds, out):
    """Fill out[64] with a VALU source operand (VGPR, or a scalar broadcast to all lanes)."""
    if code >= 256:
        r = code - 256
        if not vgpr_ok(ws, w, r, ndw):
            return
        row = ws[w, WS_VBASE] + r
        if ndw >= 2:
            for l in range(64):
                out[l] = U64(vgpr[row, l]) | (U64(vgpr[row + 1, l]) << U64(32))
        else:
            for l in range(64):
                out[l] = U64(vgpr[row, l])
        return
    if code == 254:
        # LDS_DIRECT: one value from LDS at M0[15:0], the same for every lane; M0[18:16] is the
        # type: 0 u8, 1 u16, 2 dword, 4 i8, 5 i16 (CLRX GcnOperands.md)
        m0 = sregs[w, M0]
        addr = np.int64(m0 & np.uint32(0xFFFF))
        typ = np.int64((m0 >> np.uint32(16)) & np.uint32(7))
        nb = 1 if (typ & 3) == 0 else (2 if (typ & 3) == 1 else 4)
        v = U64(0)
        base = ws[w, WS_LDS_BASE]
        if addr + nb <= ws[w, WS_LDS_SIZE]:
            for b in range(nb):
                v |= U64(lds[base + addr + b]) << U64(8 * b)
        if typ == 4 and v >= U64(0x80):
            v |= U64(0xFFFFFF00)
        elif typ == 5 and v >= U64(0x8000):
            v |= U64(0xFFFF0000)
        for l in range(64):
            out[l] = v
        return
    v = read_scalar(sregs, ws, w, code, ndw, lit, lit_high)
    for l in range(64):
        out[l] = v


@njit
def write_vector(vgpr, ws, w, r, ndw, res, exec_mask):
    if not vgpr_ok(ws, w, r, ndw):
        return
    row = ws[w, WS_VBASE] + r
    if exec_mask == ALL_LANES:
        for l in range(64):
            vgpr[row, l] = np.uint32(res[l] & MASK32)
        if ndw >= 2:
            for l in range(64):
                vgpr[row + 1, l] = np.uint32(res[l] >> U64(32))
        return
    for l in range(64):
        if (exec_mask >> U64(l)) & U64(1):
            vgpr[row, l] = np.uint32(res[l] & MASK32)
            if ndw >= 2:
                vgpr[row + 1, l] = np.uint32(res[l] >> U64(32))


@njit
def apply_input_mods(row, ndw, absbit, negbit):
    sign = U64(1) << U64(63 if ndw >= 2 else 31)
    if absbit:
        for l in range(row.shape[0]):
            row[l] &= ~sign
    if negbit:
        for l in range(row.shape[0]):
            row[l] ^= sign


@njit(inline="always")
def salu_quick(q, a, b, wd):
    """The inline SALU forms (layout.SQ_*, C_V2 of SALU rows): the moves and bitwise ops of
    gcnemu/sem/salu.py, D = f(S0, S1) at the destination's width ``wd`` (dwords). Their SCC
    is D != 0, except for the moves, which keep it."""
    if q == SQ_MOV:
        return a
    if q == SQ_AND:
        r = a & b
    elif q == SQ_OR:
        r = a | b
    elif q == SQ_XOR:
        r = a ^ b
    elif q == SQ_ANDN2:
        r = a & ~b
    elif q == SQ_ORN2:
        r = a | ~b
    elif q == SQ_NAND:
        r = ~(a & b)
    elif q == SQ_NOR:
        r = ~(a | b)
    elif q == SQ_XNOR:
        r = ~(a ^ b)
    else:
        r = ~a
    if wd < 2:
        r &= MASK32
    return r


@njit(inline="always")
def saveexec_result(k, s, ex):
    """The new EXEC of s_<op>_saveexec_b64 number k (and, or, xor, andn2, orn2, nand, nor,
    xnor) from SSRC0 = s and the old EXEC (scalars only: no array, no refcount)."""
    if k == 0:
        return s & ex
    if k == 1:
        return s | ex
    if k == 2:
        return s ^ ex
    if k == 3:
        return s & ~ex
    if k == 4:
        return s | ~ex
    if k == 5:
        return ~(s & ex)
    if k == 6:
        return ~(s | ex)
    return ~(s ^ ex)


# --- hardware registers (s_getreg/s_setreg) -------------------------------------------------
@njit
def hwreg_value(sregs, ws, w, hw_id):
    if hw_id == 1:   # MODE, with the fork/join stack pointer in bits 31:29
        return (U64(ws[w, WS_MODE]) & U64(0x1FFFFFFF)) | (U64(ws[w, WS_CSP] & 7) << U64(29))
    if hw_id == 2:  # STATUS: SCC(0), EXECZ(9), VCCZ(10), IN_BARRIER(12), VALID(16)
        s = U64(ws[w, WS_SCC]) | (U64(1) << U64(16))
        if get_exec(sregs, w) == U64(0):
            s |= U64(1) << U64(9)
        if get_vcc(sregs, w) == U64(0):
            s |= U64(1) << U64(10)
        return s
    if hw_id == 3:
        return U64(ws[w, WS_TRAPSTS])
    if hw_id == 4:
        return U64(ws[w, WS_HW_ID])
    if hw_id == 5:  # GPR_ALLOC: VGPR base/size (granules of 4), SGPR base/size (granules of 8)
        vsize = (ws[w, WS_VCOUNT] // 4 - 1) & 0x3F
        ssize = (ws[w, WS_SGPRS] // 8 - 1) & 0xF
        return U64(((ws[w, WS_VBASE] % 256) // 4) | (vsize << 8) | (ssize << 24))
    if hw_id == 6:  # LDS_ALLOC: base and size in 64-dword granules
        return U64(((ws[w, WS_LDS_SIZE] + 255) // 256) << 12)
    return U64(0)


# --- the wave loop --------------------------------------------------------------------------
@njit
def step_generic(code, pc, w, sregs, ws, vgpr, lds, msgs, tmp, t32):
    """Execute the instruction at row pc on ws/sregs state (the general path: every handler,
    every operand kind, every error; run_wave runs memory instructions and SMRD (mem.scalar.smem)
    itself, through mem.entry.call_family). Returns the next row."""
    ins = code[pc]
    h = ins[C_H]
    next_pc = pc + 1
    if h == H_SALU:
        ndw0 = ins[C_W0]
        lit_high = (ins[C_FLAGS] & FL_LIT_HIGH) != 0
        a = read_scalar(sregs, ws, w, ins[C_S0], ndw0, ins[C_LIT], lit_high)
        b = U64(0)
        if ins[C_S1] >= 0:
            b = read_scalar(sregs, ws, w, ins[C_S1], ins[C_W1], ins[C_LIT], lit_high)
        d = U64(0)
        if ins[C_DST] >= 0 and ins[C_DST] < 128:
            d = read_scalar(sregs, ws, w, ins[C_DST], ins[C_WD], 0, False)
        if ws[w, WS_STATUS] != ST_READY:
            return pc
        q = ins[C_V2]
        if q == SQ_NONE:
            # the op's compiled kernel; tmp[0, 0] receives its SCC
            r = call_salu(ins[C_SFN], a, b, d, U64(ws[w, WS_SCC]), tmp.ctypes.data)
            ws[w, WS_SCC] = np.int64(tmp[0, 0])
        else:
            r = salu_quick(q, a, b, ins[C_WD])
            if q != SQ_MOV:
                ws[w, WS_SCC] = 1 if r != U64(0) else 0
        if ins[C_DST] >= 0:
            write_scalar(sregs, ws, w, ins[C_DST], ins[C_WD], r)
        ws[w, WS_SALU] += 1
    elif h == H_VALU or h == H_VCMP:
        s0 = tmp[0]
        s1 = tmp[1]
        s2 = tmp[2]
        res = tmp[3]
        exec_mask = get_exec(sregs, w)
        flags = ins[C_FLAGS]
        lit_high = (flags & FL_LIT_HIGH) != 0
        read_vector(vgpr, sregs, ws, w, ins[C_S0], ins[C_W0], ins[C_LIT], lit_high, lds, s0)
        if ins[C_S1] >= 0:
            read_vector(vgpr, sregs, ws, w, ins[C_S1], ins[C_W1], ins[C_LIT], lit_high, lds, s1)
        else:
            s1[:] = 0
        cin = U64(0)
        if flags & FL_CIN_S2:
            cin = read_scalar(sregs, ws, w, ins[C_S2], 2, ins[C_LIT], False)
            s2[:] = 0
        elif ins[C_S2] >= 0:
            read_vector(vgpr, sregs, ws, w, ins[C_S2], ins[C_W2], ins[C_LIT], lit_high, lds, s2)
        else:
            s2[:] = 0
        if flags & FL_CIN_VCC:
            cin = get_vcc(sregs, w)
        if ins[C_ABS] | ins[C_NEG]:
            apply_input_mods(s0, ins[C_W0], ins[C_ABS] & 1, ins[C_NEG] & 1)
            apply_input_mods(s1, ins[C_W1], ins[C_ABS] & 2, ins[C_NEG] & 2)
            apply_input_mods(s2, ins[C_W2], ins[C_ABS] & 4, ins[C_NEG] & 4)
        if ws[w, WS_STATUS] != ST_READY:
            return pc
        if flags & FL_ROW32:
            # the 32-bit row kernel on narrowed copies, all lanes computed into t32 row 3
            for i in range(3):
                for l in range(64):
                    t32[i, l] = np.uint32(tmp[i, l] & MASK32)
            p32 = np.int64(t32.ctypes.data)
            fl = call_valu32(ins[C_K], p32 + 768, p32, p32 + 256, p32 + 512, p32 + 768, cin,
                             ALL_LANES, ws[w, WS_MODE])
            for l in range(64):
                res[l] = U64(t32[3, l])
        else:
            fl = call_valu(ins[C_K], s0.ctypes.data, s1.ctypes.data, s2.ctypes.data,
                           res.ctypes.data, cin, exec_mask, ws[w, WS_MODE])
        if ins[C_OMODW] != 0 and (ins[C_OMOD] | ins[C_CLAMP]) != 0:
            apply_output_mods(res, exec_mask, ins[C_OMODW], ins[C_OMOD], ins[C_CLAMP], ws[w, WS_MODE])
        if flags & FL_CMP:
            m = fl & exec_mask
            write_scalar(sregs, ws, w, ins[C_SDST], 2, m)
            if flags & FL_CMPX:
                set_pair(sregs, w, EXEC_LO, m)
        else:
            write_vector(vgpr, ws, w, ins[C_DST], ins[C_WD], res, exec_mask)
            if flags & FL_FLAGS_TO_SDST:
                write_scalar(sregs, ws, w, ins[C_SDST], 2, fl & exec_mask)
        count_valu(ws, w, exec_mask)
    elif h == H_ENDPGM:
        ws[w, WS_STATUS] = ST_DONE
    elif h == H_BRANCH:
        next_pc = branch_to(ws, w, ins)
    elif h == H_CBRANCH:
        k = ins[C_K]
        take = False
        if k == 0:
            take = ws[w, WS_SCC] == 0
        elif k == 1:
            take = ws[w, WS_SCC] != 0
        elif k == 2:
            take = get_vcc(sregs, w) == U64(0)
        elif k == 3:
            take = get_vcc(sregs, w) != U64(0)
        elif k == 4:
            take = get_exec(sregs, w) == U64(0)
        elif k == 5:
            take = get_exec(sregs, w) != U64(0)
        if take:
            next_pc = branch_to(ws, w, ins)
            ws[w, WS_TAKEN] += 1
    elif h == H_NOP or h == H_WAITCNT:
        pass
    elif h == H_BARRIER:
        ws[w, WS_STATUS] = ST_BARRIER
    elif h == H_SAVEEXEC:
        ex = get_exec(sregs, w)
        s = read_scalar(sregs, ws, w, ins[C_S0], 2, ins[C_LIT], False)
        nx = saveexec_result(ins[C_K], s, ex)
        write_scalar(sregs, ws, w, ins[C_DST], 2, ex)
        set_pair(sregs, w, EXEC_LO, nx)
        ws[w, WS_SCC] = 1 if nx != U64(0) else 0
        ws[w, WS_SALU] += 1
    elif h == H_READLANE:
        lane = np.int64(read_scalar(sregs, ws, w, ins[C_S1], 1, ins[C_LIT], False) & U64(63))
        r = ins[C_S0] - 256
        if ins[C_S0] < 256:
            fail(ws, w, ERR_BAD_OPERAND, ins[C_S0])
        elif vgpr_ok(ws, w, r, 1):
            write_scalar(sregs, ws, w, ins[C_DST], 1, U64(vgpr[ws[w, WS_VBASE] + r, lane]))
        count_valu(ws, w, get_exec(sregs, w))
    elif h == H_WRITELANE:
        lane = np.int64(read_scalar(sregs, ws, w, ins[C_S1], 1, ins[C_LIT], False) & U64(63))
        v = read_scalar(sregs, ws, w, ins[C_S0], 1, ins[C_LIT], False)
        if vgpr_ok(ws, w, ins[C_DST], 1):
            vgpr[ws[w, WS_VBASE] + ins[C_DST], lane] = np.uint32(v)
        count_valu(ws, w, get_exec(sregs, w))
    elif h == H_READFIRSTLANE:
        s0 = tmp[0]
        ex = get_exec(sregs, w)
        lane = 0
        for l in range(64):
            if (ex >> U64(l)) & U64(1):
                lane = l
                break
        read_vector(vgpr, sregs, ws, w, ins[C_S0], 1, ins[C_LIT], False, lds, s0)
        write_scalar(sregs, ws, w, ins[C_DST], 1, s0[lane] & MASK32)
        count_valu(ws, w, ex)
    elif h == H_VMOVRELS or h == H_VMOVRELD or h == H_VMOVRELSD:
        s0 = tmp[0]
        m0 = np.int64(sregs[w, M0])
        exec_mask = get_exec(sregs, w)
        src = ins[C_S0]
        if h != H_VMOVRELD:
            if src < 256:
                fail(ws, w, ERR_BAD_OPERAND, src)
                return pc
            src = src + m0
        read_vector(vgpr, sregs, ws, w, src, 1, ins[C_LIT], False, lds, s0)
        dst = ins[C_DST] + (m0 if h != H_VMOVRELS else 0)
        write_vector(vgpr, ws, w, dst, 1, s0, exec_mask)
        count_valu(ws, w, exec_mask)
    elif h == H_MQSAD:
        s0 = tmp[0]
        s1 = tmp[1]
        s2 = tmp[2]
        res = tmp[3]
        exec_mask = get_exec(sregs, w)
        read_vector(vgpr, sregs, ws, w, ins[C_S0], 2, ins[C_LIT], False, lds, s0)
        read_vector(vgpr, sregs, ws, w, ins[C_S1], 1, ins[C_LIT], False, lds, s1)
        read_vector(vgpr, sregs, ws, w, ins[C_S2], 2, ins[C_LIT], False, lds, s2)
        if ins[C_S2] >= 256:
            read_vector(vgpr, sregs, ws, w, ins[C_S2] + 2, 2, ins[C_LIT], False, lds, res)
        else:
            res[:] = 0
        mqsad(vgpr, ws, w, ins[C_DST], s0, s1, s2, res, exec_mask)
        count_valu(ws, w, exec_mask)
    elif h == H_MOVRELS or h == H_MOVRELD:
        m0 = np.int64(sregs[w, M0])
        src = ins[C_S0] + (m0 if h == H_MOVRELS else 0)
        dst = ins[C_DST] + (m0 if h == H_MOVRELD else 0)
        # the M0-relative register must stay among the wave's SGPRs (not run into VCC/EXEC)
        rel = src if h == H_MOVRELS else dst
        nd = ins[C_W0] if h == H_MOVRELS else ins[C_WD]
        if rel < 0 or rel + nd > min(ws[w, WS_SGPRS], 104):
            fail(ws, w, ERR_SGPR_RANGE, rel + nd - 1)
            return next_pc
        v = read_scalar(sregs, ws, w, src, ins[C_W0], ins[C_LIT], False)
        write_scalar(sregs, ws, w, dst, ins[C_WD], v)
        ws[w, WS_SALU] += 1
    elif h == H_GETPC:
        write_scalar(sregs, ws, w, ins[C_DST], 2,
                     U64(ws[w, WS_CODE_BASE] + code[pc, C_PC] + code[pc, C_SIZE]))
    elif h == H_SETPC or h == H_SWAPPC:
        target = np.int64(read_scalar(sregs, ws, w, ins[C_S0], 2, ins[C_LIT], False))
        if h == H_SWAPPC:
            write_scalar(sregs, ws, w, ins[C_DST], 2,
                         U64(ws[w, WS_CODE_BASE] + code[pc, C_PC] + code[pc, C_SIZE]))
        next_pc = row_of_pc(code, target - ws[w, WS_CODE_BASE])
        if next_pc < 0:
            fail(ws, w, ERR_BRANCH_TARGET, target)
    elif h == H_GETREG:
        simm = ins[C_IMM]
        hw_id = simm & 0x3F
        off = (simm >> 6) & 0x1F
        size = ((simm >> 11) & 0x1F) + 1
        v = (hwreg_value(sregs, ws, w, hw_id) >> U64(off)) & ((U64(1) << U64(size)) - U64(1))
        write_scalar(sregs, ws, w, ins[C_DST], 1, v)
        ws[w, WS_SALU] += 1
    elif h == H_SETREG:
        simm = ins[C_IMM]
        hw_id = simm & 0x3F
        off = (simm >> 6) & 0x1F
        size = ((simm >> 11) & 0x1F) + 1
        if ins[C_S0] == 255:
            v = U64(ins[C_LIT]) & MASK32
        else:
            v = read_scalar(sregs, ws, w, ins[C_S0], 1, 0, False)
        mask = (((U64(1) << U64(size)) - U64(1)) << U64(off)) & MASK32
        if hw_id == 1:
            cur = hwreg_value(sregs, ws, w, 1)
            new = (cur & ~mask) | ((v << U64(off)) & mask)
            ws[w, WS_MODE] = np.int64(new)
            ws[w, WS_CSP] = np.int64((new >> U64(29)) & U64(7))   # MODE[31:29] is the CSP
        elif hw_id == 3:
            ws[w, WS_TRAPSTS] = np.int64((U64(ws[w, WS_TRAPSTS]) & ~mask) | ((v << U64(off)) & mask))
        ws[w, WS_SALU] += 1
    elif h == H_CBRANCH_I_FORK or h == H_CBRANCH_G_FORK:
        next_pc = fork(code, ins, pc, w, sregs, ws)
    elif h == H_CBRANCH_JOIN:
        next_pc = join(code, ins, pc, w, sregs, ws)
    elif h == H_SENDMSG:
        # msgs[0, 0] counts the messages of all waves; rows 1.. hold (wave, simm16, M0, pc)
        k = msgs[0, 0] + 1
        if k < msgs.shape[0]:
            msgs[k, 0] = w
            msgs[k, 1] = ins[C_IMM]
            msgs[k, 2] = np.int64(sregs[w, M0])
            msgs[k, 3] = pc
        msgs[0, 0] = k
        ws[w, WS_MSG_COUNT] += 1
    elif h == H_SETHALT:
        if ins[C_IMM] & 1:
            ws[w, WS_STATUS] = ST_HALTED
    elif h == H_TRAP:
        fail(ws, w, ERR_TRAP, ins[C_IMM] & 0xFF)
    elif h == H_RFE:
        target = np.int64(read_scalar(sregs, ws, w, ins[C_S0], 2, ins[C_LIT], False))
        next_pc = row_of_pc(code, target - ws[w, WS_CODE_BASE])
        if next_pc < 0:
            fail(ws, w, ERR_BRANCH_TARGET, target)
    else:
        fail(ws, w, ERR_UNIMPLEMENTED, h)
    return next_pc

# --- the fast path -----------------------------------------------------------------------
# No helper taking an array is called on the hot path: numba wraps array arguments of
# inline="always" helpers, row views (vgpr[row]) and calls in atomic NRT incref/decref
# (lock inc/dec), which perf showed at 35-50 % of the time of SALU and VALU instructions.
# Operand reads and writes are written out in run_wave with 2-D indexing instead.
T32_ZERO = 6   # the t32 row that stays zero: the source row of absent operands


@njit(inline="always")
def row32_source(code, pc, i, sregs, w, pvb, vstride, q32):
    """Address of source row i of a 32-bit row kernel call (pvb: the address VGPR code 0
    would have, so that code c's row is at pvb + c * vstride): a VGPR row in place, a
    constant's row (C_V*: program.CONSTANT_ROWS, modifiers applied), the zero row of t32 (at
    q32) for an absent operand; an SGPR broadcast into t32 row i, and an abs/neg VGPR copied
    there with the modifier applied."""
    k = code[pc, C_K0 + i]
    c = code[pc, C_S0 + i]
    am = np.uint32(0x80000000) if (code[pc, C_ABS] >> i) & 1 else np.uint32(0)
    nm = np.uint32(0x80000000) if (code[pc, C_NEG] >> i) & 1 else np.uint32(0)
    if k == OP_VGPR:
        q = pvb + c * vstride
        if am | nm:
            copy_row_modified(q32 + i * 256, q, am, nm)
            q = q32 + i * 256
        return q
    if k == OP_CONST:
        return code[pc, C_V0 + i]
    if k == OP_SREG:
        fill_row(q32 + i * 256, (sregs[w, c] & ~am) ^ nm)
        return q32 + i * 256
    return q32 + T32_ZERO * 256


@njit(inline="always")
def _wave_locals(ws, w):
    """What run_wave keeps in locals between general-path steps: (SCC, steps, instructions,
    SALU, VALU and taken-branch counts, active VALU lanes, MODE)."""
    return (ws[w, WS_SCC], ws[w, WS_STEPS], ws[w, WS_INSTS], ws[w, WS_SALU], ws[w, WS_VALU],
            ws[w, WS_TAKEN], ws[w, WS_VALU_LANES], ws[w, WS_MODE])


@njit(inline="always")
def _store_wave_locals(ws, w, scc, steps, insts, nsalu, nvalu, ntaken, nlanes):
    """Write run_wave's locals back (MODE is written where it changes)."""
    ws[w, WS_SCC] = scc
    ws[w, WS_STEPS] = steps
    ws[w, WS_INSTS] = insts
    ws[w, WS_SALU] = nsalu
    ws[w, WS_VALU] = nvalu
    ws[w, WS_TAKEN] = ntaken
    ws[w, WS_VALU_LANES] = nlanes


@njit(inline="always")
def _trace_end(tr, san):
    """Where a trace's entries must stay below: timing's keep room for the table of runs
    (timing/trace.py runs_limit); the sanitizer's have none."""
    return runs_limit(tr) if san is None else tr.shape[0]


@njit(inline="always")
def fast_row(code, pc, h, nsg, vcount):
    """Whether run_wave's hot loop runs row ``pc`` (handler ``h``): nops and s_waitcnt,
    branches to a row of the program, SALU, VALU and saveexec rows the decoder marked C_FAST
    whose registers lie inside the wave's allocation (``nsg`` SGPRs, ``vcount`` VGPRs), and
    s_setreg of MODE from a literal or an allocated SGPR. Any other row goes to the memory
    fast paths or to step_generic."""
    if h == H_NOP or h == H_WAITCNT or h == H_CBRANCH:
        return True
    if h == H_BRANCH:
        return code[pc, C_TGT] >= 0
    if h == H_SALU or h == H_SAVEEXEC:
        return code[pc, C_FAST] != 0 and code[pc, C_SMAX] <= nsg
    if h == H_VALU or h == H_VCMP:
        return code[pc, C_FAST] != 0 and code[pc, C_SMAX] <= nsg and code[pc, C_VMAX] <= vcount
    if h == H_SETREG:
        c = code[pc, C_S0]
        return (code[pc, C_IMM] & 0x3F) == 1 and (c == 255 or (c <= 103 and c < nsg))
    return False


@njit(inline="always")
def block_done(blk, ws, w, mode):
    """What a block that ran (``blk`` its return value, exec/blockjit.py) leaves the hot
    loop's locals: (SCC, its VALU lanes, MODE), MODE written back where the block set it."""
    if (blk >> 16) & 1:
        # the block ran an s_setreg of MODE: MODE[28:0] as it left them (exec/blockjit.py),
        # MODE[31:29] the CSP as the s_setreg handler has it
        mode = ((blk >> 17) & 0x1FFFFFFF) | ((ws[w, WS_CSP] & 7) << 29)
        ws[w, WS_MODE] = mode
    return blk & 1, (blk >> 1) & 0x7FFF, mode


@njit(inline="always")
def _block_entries(code, pc, tr, tp, end):
    """Recording: when the entries of the block starting at row ``pc`` fit below ``end``,
    write those of its rows after the first (plain rows: each is its row number) from tr[tp]
    on and return True."""
    nb = code[pc, C_BLEN]
    if tp + nb - 1 + TRACE_SLACK > end:
        return False
    for i in range(1, nb):    # unsigned: no negative-index fix-up in the loop
        tr[U64(tp + i - 1)] = pc + i
    return True


@njit(inline="always")
def _record_block(code, pc, steps, stop, nsg, vcount, tr, tp, end):
    """Recording: _block_entries of the block starting at row ``pc`` (a fast row, so the
    block has no DS row) when it may run (block_may_run)."""
    return (block_may_run(code, pc, steps, stop, nsg, vcount) and
            _block_entries(code, pc, tr, tp, end))


@njit(inline="always")
def block_may_run(code, pc, steps, stop, nsg, vcount):
    """Whether a block starts at row ``pc`` (exec/blockjit.py) and may be called there: it
    ends within ``stop`` (``steps`` counting its first row) and the wave has the SGPRs and
    VGPRs its operands need."""
    return code[pc, C_BLK] != 0 and steps + code[pc, C_BLEN] - 1 <= stop and \
        code[pc, C_BSMAX] <= nsg and code[pc, C_BVMAX] <= vcount


#: the work of a memory instruction (DS, FLAT, MUBUF, MTBUF, MIMG, EXP) in wave-instructions:
#: 64 lanes' address checks and copies (flat_load_dwordx4: ~1.5 us, v_add_f32: ~0.05 us)
MEMORY_WORK = 32


@njit(inline="always")
def ds_block_may_run(code, pc, steps, stop, nsg, vcount, lds_base):
    """block_may_run for a block with DS rows (exec/blockjit.py: it starts at a DS row):
    also with the MEMORY_WORK of its DS rows after the first (counted already) within
    ``stop``, so that the row path would not have paused inside it, and on a 4-aligned LDS
    window (the row kernels')."""
    return block_may_run(code, pc, steps + MEMORY_WORK * (code[pc, C_BNDS] - 1), stop, nsg,
                         vcount) and (lds_base & 3) == 0


@njit(_nrt=False)
def run_wave(w, frame, step_limit, step_pause, tr, san=None):
    """Run wave w until it ends, reaches a barrier, halts or fails, or its step count plus the
    extra work of its memory instructions (MEMORY_WORK each, left in WS_WORK) reaches
    ``step_pause`` (it then stays ready, to go on at its PC). Returns its status.

    The program and the state arrays are the ones ``frame`` describes (run_group_waves writes
    it once per call, layout.FR_*; the views are exec/jit.py's view_*, as the memory families
    make theirs with mem/entry.py frame_state):
    numba passes each array argument as its ~8 words on the stack, and a wave is called again
    after each s_barrier (scan_lds: 9 times a wave; with its dozen arrays as arguments, the
    calls were ~10% of its time). Compiled without reference counting (it allocates nothing):
    numba's atomic incref and decref of array arguments cost ~0.13 us a call.

    The hot handlers (SALU, VALU, compares, branches, saveexec, nop) run here on local copies
    of PC, SCC, the step and instruction counters, using operand kinds and constants the
    decoder precomputed (gcnemu/exec/program.py: C_K*, C_V*, C_SMAX, C_VMAX, C_FAST), in an
    inner loop of their own (`fast_row` says which rows): a run of them goes on there without
    the outer loop's dispatch (mandelbrot's loop never leaves it). A row where a block
    starts (exec/blockjit.py: C_BLK, a straight-line run of such rows compiled into one
    function) runs the whole run in one call unless the block declines. The memory
    fast paths follow; everything else -- and any instruction whose operands need a run-time
    check that fails -- goes to `step_generic` with the locals written back to ws first and
    reloaded after.

    VALU instructions whose operands are all 32-bit (FL_ROW32) call their 32-bit row kernel
    on the VGPR rows themselves: only scalar operands, modified copies and the absent ones of
    rows that are not FL_PLAIN32 go through the uint32 scratch rows ``t32`` (FL_PLAIN32 rows
    read constants and absent sources from program.CONSTANT_ROWS), and the kernel stores the
    result under EXEC.

    Memory families are called with ``frame`` (gcnemu/mem/entry.py, layout.FR_*): the
    state arrays' addresses and shapes, written once here; each instruction sets only its row address.

    ``tr`` is the timing or coherency trace (gcnemu/timing/trace.py), or NO_TRACE (empty)
    when nothing is recorded. One specialisation records or not, by a test of ``tr``'s length
    (once per instruction, and a run of fast rows goes on only when not recording): a second
    one, recording, was a second compilation of the whole loop (~7 s of the first timing run,
    ~2 s more for run_group_waves', which links it). The memory records are written
    by the recorders of timing/trace.py, called by address like the memory families and
    compiled on first use (their own NEED_CODE: a functional run never compiles them). When
    the trace has no room left the wave stops before its next instruction, still ready, and
    ``tr[1]`` is set (the caller grows it); a coherency-mode trace (``tr[1]`` -1) gets the
    memory rows only, and the other rows run as when nothing is recorded. ``san`` not None
    (with ``tr``): the sanitizer's
    trace, whose memory records are gcnemu/sanitize/record.py's per-lane addresses (a second
    specialisation).
    """
    code = view_i64_2d(np.int64(frame[FR_CODE]), (np.int64(frame[FR_NROWS]),
                                                  np.int64(frame[FR_NCOLS])))
    nwaves = np.int64(frame[FR_NW])
    sregs = view_u32_2d(np.int64(frame[FR_SREGS]), (nwaves, np.int64(128)))
    ws = view_i64_2d(np.int64(frame[FR_WS]), (nwaves, np.int64(frame[FR_NWS])))
    vgpr = view_u32_2d(np.int64(frame[FR_VGPR]), (np.int64(frame[FR_NV]), np.int64(64)))
    mem_data = view_u8_1d(np.int64(frame[FR_DATA]), (np.int64(frame[FR_NDATA]),))
    mem_mapped = view_u8_1d(np.int64(frame[FR_MAPPED]), (np.int64(frame[FR_NMAPPED]),))
    mem_base = np.int64(frame[FR_BASE])
    tmp = view_u64_2d(np.int64(frame[FR_TMP]), (np.int64(4), np.int64(64)))
    t32 = view_u32_2d(np.int64(frame[FR_T32]), (np.int64(8), np.int64(64)))
    if ws[w, WS_STATUS] != ST_READY:
        return ws[w, WS_STATUS]
    n = code.shape[0]
    nsg = ws[w, WS_SGPRS]
    vcount = ws[w, WS_VCOUNT]
    vbase = ws[w, WS_VBASE]
    pc = ws[w, WS_PC]
    scc, steps, insts, nsalu, nvalu, ntaken, nlanes, mode = _wave_locals(ws, w)
    zmask = 0
    nl = tmp.shape[1]
    # the scratch rows by address (views of them would cost reference counting every call)
    p0 = tmp.ctypes.data
    p1 = p0 + 512
    p2 = p0 + 1024
    pres = p0 + 1536
    pv = np.int64(vgpr.ctypes.data)   # int64 addresses: uint64 + int64 would be float64
    vstride = np.int64(vgpr.strides[0])
    pvb = pv + (vbase - 256) * vstride   # VGPR operand code c (256 + v) is the row at pvb + c * vstride
    q32 = np.int64(t32.ctypes.data)
    psg = np.int64(sregs.ctypes.data) + w * np.int64(sregs.strides[0])   # the wave's SGPR row
    plds = np.int64(frame[FR_LDS])
    pdata = np.int64(mem_data.ctypes.data)
    pmapped = np.int64(mem_mapped.ctypes.data)
    ndata = np.int64(mem_data.shape[0])
    frame[FR_W] = U64(w)
    pframe = frame.ctypes.data
    pscc = np.int64(pframe) + FR_SCC * 8
    code_base = np.int64(code.ctypes.data)
    code_stride = np.int64(code.strides[0])
    # the trace (NO_TRACE: nothing recorded). Its state lives in memory, not in locals: the
    # write position in tr[0], the position of the current row's entry (to take it back,
    # NEED_CODE) and of this run's header (+ 1; 0: none) in the frame, so that functional
    # mode carries no trace state through the fast rows' loop
    rec = tr.shape[0] != 0
    # a coherency-mode trace (tr[1] -1, timing/trace.py) needs the memory rows only: the
    # others are not recorded, and fast rows and blocks run as in a functional run
    steps_rec = rec and not (san is None and tr[1] < 0)
    full = False
    if rec:
        frame[FR_TR] = U64(tr.ctypes.data)
        frame[FR_NTR] = U64(tr.shape[0])
        frame[FR_TR_RUN] = U64(0)
        tp = tr[0]
        if tp + TRACE_SLACK > _trace_end(tr, san):
            full = True
        else:
            frame[FR_TR_RUN] = U64(tp + 1)
            tr[tp] = -(w + 1)
            tr[0] = tp + 1
    step_stop = min(step_limit, step_pause)
    # the stop of a block the inner loop below may call: step_stop, or, recording, -1 (none)
    # unless its entries were written whole (blk_stop)
    fast_stop = np.int64(-1) if steps_rec else step_stop
    work = 0
    need = False
    while not full:
        if pc < 0 or pc >= n or steps >= step_stop:
            break
        h = code[pc, C_H]
        # how far a block starting at this row may run: to the fast loop's stop, or, where
        # this run records and the row's block has been recorded whole above, to step_stop
        blk_stop = fast_stop
        blk_recorded = False
        if rec:
            tp = tr[0]
            frame[FR_TR_ROW] = U64(tp)
            if tp + TRACE_SLACK > _trace_end(tr, san):
                full = True
                break
            if h == H_SMRD_LOAD or (h >= H_DS and h <= H_MIMG):
                if san is None:
                    # the recorder, by address (timing/trace.py); not compiled yet: back to
                    # the host before this instruction, as for a memory family below
                    if h == H_MIMG:
                        recorder, need_kind = frame[FR_REC_IMG], NEED_REC_IMG
                    elif h == H_DS:
                        recorder, need_kind = frame[FR_REC_DS], NEED_REC_DS
                    else:
                        recorder, need_kind = frame[FR_REC], NEED_REC
                    if recorder == U64(0):
                        frame[FR_NEED_KIND] = U64(need_kind)
                        need = True
                        break
                    tr[tp] = pc
                    frame[FR_INS] = U64(code_base + pc * code_stride)
                    tp = call_recorder(recorder, pframe, tp + 1)
                else:
                    tr[tp] = pc
                    tp = record_access(code, pc, w, sregs, ws, vgpr, tr, tp + 1)
            elif steps_rec:
                tr[tp] = pc
                tp += 1
                if fast_row(code, pc, h, nsg, vcount) and \
                        _record_block(code, pc, steps + 1, step_stop, nsg, vcount, tr, tp,
                                      _trace_end(tr, san)):
                    # a block starts here and the fast loop below will call it (its rows'
                    # entries written, taken back there if the block declines)
                    tp += code[pc, C_BLEN] - 1
                    blk_stop = step_stop
                    blk_recorded = True
            tr[0] = tp
        steps += 1
        if h >= H_DS and h <= H_EXP:
            # a memory instruction does up to ~30x the host work of a VALU one: it counts
            # MEMORY_WORK towards the pause, so that a slice takes ~0.1 s whatever runs
            work += MEMORY_WORK
            step_stop = min(step_limit, step_pause - work)
            fast_stop = np.int64(-1) if steps_rec else step_stop
        next_pc = pc + 1
        if h == H_DS and code[pc, C_BLK] != 0 and \
                (not rec or (san is None and code[pc, C_BNDS] == 1)) and \
                ds_block_may_run(code, pc, steps, step_stop, nsg, vcount, ws[w, WS_LDS_BASE]):
            # a block with DS rows starts at this DS row (exec/blockjit.py): called here, away
            # from the fast loop below, whose state its LDS window and size would add to
            # (loops_break ran ~10 % slower so); declined, this row goes on to the DS path
            # below. Recording, only a block whose one DS row is this first one: its record
            # was written above from the registers the block starts with, and its other rows
            # (plain) have their row numbers as entries, written here (taken back if it
            # declines); the records of DS rows further in would need the registers of then
            ent = np.int64(0)
            room = True
            if steps_rec:
                ent = tr[0]
                room = _block_entries(code, pc, tr, ent, _trace_end(tr, san))
                if room:
                    tr[0] = ent + code[pc, C_BLEN] - 1
            blk = np.int64(-1)
            if room:
                blk = call_ds_block(code[pc, C_BLK], pvb, vstride, psg, np.int64(scc), mode,
                                    plds + ws[w, WS_LDS_BASE], ws[w, WS_LDS_SIZE])
            if steps_rec and blk < 0:
                tr[0] = ent
            if blk >= 0:
                nb = code[pc, C_BLEN]
                scc, bl, mode = block_done(blk, ws, w, mode)
                nlanes += bl
                nvalu += code[pc, C_BNVALU]
                nsalu += code[pc, C_BNSALU]
                nds = code[pc, C_BNDS]
                ws[w, WS_LDS_INSTS] += nds
                work += MEMORY_WORK * (nds - 1)     # the first row's counted above
                step_stop = min(step_limit, step_pause - work)
                fast_stop = np.int64(-1) if steps_rec else step_stop
                steps += nb - 1
                insts += nb
                pc += nb
                continue
        if fast_row(code, pc, h, nsg, vcount):
            # the hot handlers (SALU with inline moves and bitwise ops, 32-bit and other fast
            # VALU, branches, saveexec, s_setreg of MODE, nops) in a loop of their own: a run
            # of such instructions goes on here, each next row checked by fast_row and the
            # step limit, without the general dispatch between them (LLVM keeps this small
            # loop's state in registers). Recording, each next row's entry is written at the
            # bottom of this loop, as the top of the outer loop writes the first's.
            stop = False
            while True:
                # a block (exec/blockjit.py) starts here: its rows in one call, unless it
                # would pass the step stop (blk_stop: recording, only a block whose entries
                # were written whole), the wave
                # lacks its registers, or it declines (-1: nothing stored; this row and the
                # next then run one at a time below)
                blk = np.int64(-1)
                if block_may_run(code, pc, steps, blk_stop, nsg, vcount):
                    blk = call_block(code[pc, C_BLK], pvb, vstride, psg, np.int64(scc), mode)
                if blk_recorded:
                    blk_recorded = False
                    blk_stop = fast_stop
                    if blk < 0:
                        # recorded whole but run one row at a time: only this row's entry
                        # stays (the block's are the last written)
                        tr[0] -= code[pc, C_BLEN] - 1
                if blk >= 0:
                    nb = code[pc, C_BLEN]
                    scc, bl, mode = block_done(blk, ws, w, mode)
                    nlanes += bl
                    nvalu += code[pc, C_BNVALU]
                    nsalu += code[pc, C_BNSALU]
                    steps += nb - 1
                    insts += nb - 1
                    next_pc = pc + nb
                elif h == H_SALU:
                    kd = code[pc, C_KD]
                    dc = code[pc, C_DST]
                    wd = code[pc, C_WD]
                    # operands written out here (see the note above run_wave)
                    a = U64(code[pc, C_V0])
                    if code[pc, C_K0] == OP_SREG:
                        c = code[pc, C_S0]
                        a = U64(sregs[w, c])
                        if code[pc, C_W0] >= 2:
                            a |= U64(sregs[w, c + 1]) << U64(32)
                    b = U64(code[pc, C_V1])
                    if code[pc, C_K1] == OP_SREG:
                        c = code[pc, C_S1]
                        b = U64(sregs[w, c])
                        if code[pc, C_W1] >= 2:
                            b |= U64(sregs[w, c + 1]) << U64(32)
                    d = U64(0)
                    if kd == OP_SREG:
                        d = U64(sregs[w, dc])
                        if wd >= 2:
                            d |= U64(sregs[w, dc + 1]) << U64(32)
                    q = code[pc, C_V2]
                    if q == SQ_NONE:
                        r = call_salu(code[pc, C_SFN], a, b, d, U64(scc), pscc)
                        scc = np.int64(frame[FR_SCC])
                    else:
                        r = salu_quick(q, a, b, wd)
                        if q != SQ_MOV:
                            scc = 1 if r != U64(0) else 0
                    if kd == OP_SREG:
                        sregs[w, dc] = np.uint32(r & MASK32)
                        if wd >= 2:
                            sregs[w, dc + 1] = np.uint32(r >> U64(32))
                    nsalu += 1
                elif h == H_VALU or h == H_VCMP:
                    ex = (U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32)))
                    flags = code[pc, C_FLAGS]
                    cin = U64(0)
                    if flags & FL_ROW32:
                        if flags & FL_PLAIN32:
                            # every source a VGPR row in place or a row whose address the decoder put in
                            # C_V* (a constant's, the zero row): one test each (program._row32_operands)
                            q0 = pvb + code[pc, C_S0] * vstride if code[pc, C_K0] == OP_VGPR \
                                else code[pc, C_V0]
                            q1 = pvb + code[pc, C_S1] * vstride if code[pc, C_K1] == OP_VGPR \
                                else code[pc, C_V1]
                            q2 = pvb + code[pc, C_S2] * vstride if code[pc, C_K2] == OP_VGPR \
                                else code[pc, C_V2]
                        else:
                            # 32-bit operands in place where they are rows (row32_source)
                            q0 = row32_source(code, pc, 0, sregs, w, pvb, vstride, q32)
                            q1 = row32_source(code, pc, 1, sregs, w, pvb, vstride, q32)
                            if flags & FL_CIN_S2:
                                c = code[pc, C_S2]
                                cin = U64(sregs[w, c]) | (U64(sregs[w, c + 1]) << U64(32)) \
                                    if code[pc, C_K2] == OP_SREG else U64(code[pc, C_V2])
                                q2 = q32 + T32_ZERO * 256
                            else:
                                q2 = row32_source(code, pc, 2, sregs, w, pvb, vstride, q32)
                        if flags & FL_CIN_VCC:
                            cin = (U64(sregs[w, VCC_LO]) | (U64(sregs[w, VCC_HI]) << U64(32)))
                        pd = q32 + 3 * 256
                        if not flags & FL_CMP:
                            pd = pv + (vbase + code[pc, C_DST]) * vstride
                        fl = call_valu32(code[pc, C_K], pd, q0, q1, q2, q32 + 3 * 256, cin, ex, mode)
                        if flags & (FL_CMP | FL_FLAGS_TO_SDST):
                            m = fl & ex
                            sp = code[pc, C_SDST]
                            sregs[w, sp] = np.uint32(m & MASK32)
                            sregs[w, sp + 1] = np.uint32(m >> U64(32))
                            if flags & FL_CMPX:
                                sregs[w, EXEC_LO] = np.uint32(m & MASK32)
                                sregs[w, EXEC_HI] = np.uint32(m >> U64(32))
                    else:
                        # sources into tmp rows 0..2, written out here (no helper taking arrays: see
                        # the note above run_wave); absent sources are zero rows, zmask remembers rows already zero
                        for i in range(3):
                            kind = code[pc, C_K0 + i]
                            c = code[pc, C_S0 + i]
                            ndw = code[pc, C_W0 + i]
                            if i == 2 and flags & FL_CIN_S2:
                                cin = U64(sregs[w, c]) | (U64(sregs[w, c + 1]) << U64(32)) \
                                    if kind == OP_SREG else U64(code[pc, C_V2])
                                kind = OP_NONE
                            if kind == OP_NONE:
                                if not (zmask >> i) & 1:
                                    for l in range(nl):
                                        tmp[i, l] = U64(0)
                                    zmask |= 1 << i
                                continue
                            zmask &= ~(1 << i)
                            if kind == OP_VGPR:
                                row = vbase + c - 256
                                if ndw >= 2:
                                    for l in range(nl):
                                        tmp[i, l] = U64(vgpr[row, l]) | (U64(vgpr[row + 1, l]) << U64(32))
                                else:
                                    for l in range(nl):
                                        tmp[i, l] = U64(vgpr[row, l])
                                continue
                            if kind == OP_SREG:
                                v = U64(sregs[w, c])
                                if ndw >= 2:
                                    v |= U64(sregs[w, c + 1]) << U64(32)
                            else:
                                v = U64(code[pc, C_V0 + i])
                            for l in range(nl):
                                tmp[i, l] = v
                        if flags & FL_CIN_VCC:
                            cin = (U64(sregs[w, VCC_LO]) | (U64(sregs[w, VCC_HI]) << U64(32)))
                        if code[pc, C_ABS] | code[pc, C_NEG]:
                            # input modifiers (as apply_input_mods), on all three rows like the general path
                            for i in range(3):
                                sign = U64(1) << U64(63 if code[pc, C_W0 + i] >= 2 else 31)
                                am = sign if (code[pc, C_ABS] >> i) & 1 else U64(0)
                                nm = sign if (code[pc, C_NEG] >> i) & 1 else U64(0)
                                if am | nm:
                                    for l in range(nl):
                                        tmp[i, l] = (tmp[i, l] & ~am) ^ nm
                            zmask = 0
                        fl = call_valu(code[pc, C_K], p0, p1, p2,
                                       pres, cin, ex, mode)
                        if code[pc, C_OMODW] != 0 and (code[pc, C_OMOD] | code[pc, C_CLAMP]) != 0:
                            apply_output_mods(tmp[3], ex, code[pc, C_OMODW], code[pc, C_OMOD], code[pc, C_CLAMP], mode)
                        if flags & FL_CMP:
                            m = fl & ex
                            sp = code[pc, C_SDST]
                            sv = m
                            sregs[w, sp] = np.uint32(sv & MASK32)
                            sregs[w, sp + 1] = np.uint32(sv >> U64(32))
                            if flags & FL_CMPX:
                                sp = EXEC_LO
                                sv = m
                                sregs[w, sp] = np.uint32(sv & MASK32)
                                sregs[w, sp + 1] = np.uint32(sv >> U64(32))
                        else:
                            row = vbase + code[pc, C_DST]
                            if ex == ALL_LANES:
                                for l in range(nl):
                                    vgpr[row, l] = np.uint32(tmp[3, l] & MASK32)
                                if code[pc, C_WD] >= 2:
                                    for l in range(nl):
                                        vgpr[row + 1, l] = np.uint32(tmp[3, l] >> U64(32))
                            else:
                                for l in range(nl):
                                    vgpr[row, l] = np.uint32(tmp[3, l] & MASK32) if (ex >> U64(l)) & U64(1) \
                                        else vgpr[row, l]
                                if code[pc, C_WD] >= 2:
                                    for l in range(nl):
                                        vgpr[row + 1, l] = np.uint32(tmp[3, l] >> U64(32)) \
                                            if (ex >> U64(l)) & U64(1) else vgpr[row + 1, l]
                            if flags & FL_FLAGS_TO_SDST:
                                sp = code[pc, C_SDST]
                                sv = fl & ex
                                sregs[w, sp] = np.uint32(sv & MASK32)
                                sregs[w, sp + 1] = np.uint32(sv >> U64(32))
                    nvalu += 1
                    nlanes += np.int64(popcount64(ex))
                elif h == H_CBRANCH:
                    k = code[pc, C_K]
                    take = False
                    if k == 0:
                        take = scc == 0
                    elif k == 1:
                        take = scc != 0
                    elif k == 2:
                        take = (U64(sregs[w, VCC_LO]) | (U64(sregs[w, VCC_HI]) << U64(32))) == U64(0)
                    elif k == 3:
                        take = (U64(sregs[w, VCC_LO]) | (U64(sregs[w, VCC_HI]) << U64(32))) != U64(0)
                    elif k == 4:
                        take = (U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32))) == U64(0)
                    elif k == 5:
                        take = (U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32))) != U64(0)
                    if take:
                        t = code[pc, C_TGT]
                        ntaken += 1
                        if t < 0:
                            stop = True
                            break
                        next_pc = t
                elif h == H_BRANCH:
                    next_pc = code[pc, C_TGT]
                elif h == H_SAVEEXEC:
                    ex = (U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32)))
                    s = U64(code[pc, C_V0])
                    if code[pc, C_K0] == OP_SREG:
                        c = code[pc, C_S0]
                        s = U64(sregs[w, c]) | (U64(sregs[w, c + 1]) << U64(32))
                    nx = saveexec_result(code[pc, C_K], s, ex)
                    sp = code[pc, C_DST]
                    sv = ex
                    sregs[w, sp] = np.uint32(sv & MASK32)
                    sregs[w, sp + 1] = np.uint32(sv >> U64(32))
                    sp = EXEC_LO
                    sv = nx
                    sregs[w, sp] = np.uint32(sv & MASK32)
                    sregs[w, sp + 1] = np.uint32(sv >> U64(32))
                    scc = 1 if nx != U64(0) else 0
                    nsalu += 1
                elif h == H_SETREG:
                    # s_setreg of MODE from an SGPR or a literal (clang toggles the f32 denormal bits
                    # around every f32 division), as step_generic does it, on the local mode
                    simm = code[pc, C_IMM]
                    off = U64((simm >> 6) & 0x1F)
                    mask = (((U64(1) << U64(((simm >> 11) & 0x1F) + 1)) - U64(1)) << off) & MASK32
                    c = code[pc, C_S0]
                    v = U64(code[pc, C_LIT]) & MASK32 if c == 255 else U64(sregs[w, c])
                    cur = (U64(mode) & U64(0x1FFFFFFF)) | (U64(ws[w, WS_CSP] & 7) << U64(29))
                    new = (cur & ~mask) | ((v << off) & mask)
                    mode = np.int64(new)
                    ws[w, WS_MODE] = mode
                    ws[w, WS_CSP] = np.int64((new >> U64(29)) & U64(7))
                    nsalu += 1
                # H_NOP, H_WAITCNT: nothing to do
                insts += 1
                pc = next_pc
                if pc < 0 or pc >= n or steps >= step_stop:
                    break
                h = code[pc, C_H]
                if not fast_row(code, pc, h, nsg, vcount):
                    break
                if steps_rec:
                    # the next row's entry (and a block's, as at the top of the outer loop),
                    # written here: a run of blocks and branches stays in this loop. The
                    # position goes through memory (tr[0]), not a local, which would be live
                    # in this loop in functional mode too (it ran ~5 % slower so)
                    end = _trace_end(tr, san)
                    tp = tr[0]
                    if tp + TRACE_SLACK > end:
                        break     # full: the top of the outer loop stops the wave here
                    tr[U64(tp)] = pc
                    if _record_block(code, pc, steps + 1, step_stop, nsg, vcount, tr, tp + 1,
                                     end):
                        blk_stop = step_stop
                        blk_recorded = True
                        tr[0] = tp + code[pc, C_BLEN]
                    else:
                        tr[0] = tp + 1
                steps += 1
                next_pc = pc + 1
            if stop:
                break
            continue
        elif h == H_ENDPGM or h == H_BARRIER:
            # here rather than in step_generic: a call there costs ~90 ns (its array
            # arguments' reference counts, among others)
            ws[w, WS_STATUS] = ST_DONE if h == H_ENDPGM else ST_BARRIER
            insts += 1
            pc = next_pc
            break
        elif h == H_DS and code[pc, C_FAST] != 0 and code[pc, C_VMAX] <= vcount and \
                (ws[w, WS_LDS_BASE] & 3) == 0:
            # LDS dword loads and stores: the row kernel the decoder picked (see
            # mem.ds.lds_row_form), on the wave's rows and LDS window, limit min(M0, size)
            ex = (U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32)))
            lim = min(np.int64(sregs[w, M0]), ws[w, WS_LDS_SIZE])
            arow = vbase + code[pc, C_F3]
            kept = code[pc, C_F3] >= code[pc, C_DS_ROW_A]
            if kept:
                # a load may overwrite its address row: keep the addresses for a fault report
                for l in range(64):
                    t32[7, l] = vgpr[arow, l]
            bad = call_lds_rows(code[pc, C_DS_FN], pv + (vbase + code[pc, C_DS_ROW_A]) * vstride,
                                pv + (vbase + code[pc, C_DS_ROW_B]) * vstride,
                                plds + ws[w, WS_LDS_BASE], pv + arow * vstride,
                                code[pc, C_DS_UO0], code[pc, C_DS_UO1], code[pc, C_DS_AMASK],
                                lim, ex)
            if bad != U64(0) and lim == ws[w, WS_LDS_SIZE]:
                # past the allocation, not only past M0: a fault to report (the hardware's 0)
                note_lds_row_overrun(code[pc], ws, w, pc,
                                     t32[7] if kept else vgpr[arow],
                                     code[pc, C_DS_UO0], code[pc, C_DS_UO1], code[pc, C_DS_AMASK],
                                     bad)
            ws[w, WS_LDS_INSTS] += 1
        elif h == H_FLAT and code[pc, C_FAST] != 0 and code[pc, C_VMAX] <= vcount and \
                ndata >= code[pc, C_FL_SPAN] and call_flat_rows(
                    code[pc, C_FL_FN], pv + (vbase + code[pc, C_FL_ROW]) * vstride,
                    pv + (vbase + code[pc, C_F2]) * vstride, pdata, pmapped, mem_base,
                    ndata - code[pc, C_FL_SPAN], PAGE_SHIFT, PRIVATE_APERTURE_HI,
                    U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32))) == U64(0):
            # FLAT dword loads and stores whose lanes are all in mapped GPU memory: the row
            # kernel the decoder picked (mem.flat.flat_row_form); any other lane -> the general
            # path below runs the instruction again
            ws[w, WS_VMEM] += 1
        elif h == H_SMRD_LOAD and code[pc, C_FAST] != 0 and code[pc, C_SMAX] <= nsg and \
                smem_in_place(sregs, w, code[pc, C_S0], code[pc, C_IMM], code[pc, C_K],
                              code[pc, C_DST], mem_data, mem_mapped, mem_base):
            # s_load_dword[xN] in mapped memory, without the general path's round trip of the
            # locals (clang's kernels start with three to five); else smem below
            ws[w, WS_SMEM] += 1
        else:
            # the general path, on ws: write the locals back, run, reload. The memory
            # families (and SMRD's smem) and step_generic are compiled on first use and
            # called by address with the frame (gcnemu/mem/entry.py); an address still 0
            # sends the wave back to the host before this instruction, as if paused
            # (run_group_waves returns NEED_CODE)
            family = (h >= H_DS and h <= H_EXP) or h == H_SMRD_LOAD or h == H_MEMTIME
            fn = U64(code[pc, C_FN]) if family else frame[FR_GENERIC]
            if fn == U64(0):
                frame[FR_NEED_KIND] = U64(NEED_ROW)
                steps -= 1
                if h >= H_DS and h <= H_EXP:
                    work -= MEMORY_WORK
                if rec:
                    tr[0] = np.int64(frame[FR_TR_ROW])
                need = True
                break
            ws[w, WS_PC] = pc
            _store_wave_locals(ws, w, scc, steps, insts, nsalu, nvalu, ntaken, nlanes)
            zmask = 0
            if family:
                frame[FR_INS] = U64(code_base + pc * code_stride)
                call_family(fn, pframe)
            else:
                frame[FR_PC] = U64(pc)
                next_pc = call_with_frame(fn, pframe)
            scc, steps, insts, nsalu, nvalu, ntaken, nlanes, mode = _wave_locals(ws, w)
            st = ws[w, WS_STATUS]
            if st != ST_READY:
                if st == ST_ERROR:
                    break
                insts += 1
                pc = next_pc
                break
        insts += 1
        pc = next_pc
    _store_wave_locals(ws, w, scc, steps, insts, nsalu, nvalu, ntaken, nlanes)
    ws[w, WS_WORK] = work
    if rec and san is None and frame[FR_TR_RUN] != U64(0):
        add_run(tr, np.int64(frame[FR_TR_RUN]) - 1, tr[0])
    if need:
        frame[FR_NEED] = U64(pc + 1)
        ws[w, WS_PC] = pc
        return ws[w, WS_STATUS]
    if rec:
        if full:
            tr[1] = 1
            ws[w, WS_PC] = pc
            return ws[w, WS_STATUS]
    if ws[w, WS_STATUS] == ST_READY:
        # left the loop at a PC, step-limit or branch-target error: report it at this PC
        ws[w, WS_PC] = pc
        if pc < 0 or pc >= n:
            fail(ws, w, ERR_PC_RANGE, pc)
        elif steps >= step_limit:
            fail(ws, w, ERR_STEP_LIMIT, step_limit)
        elif steps + work >= step_pause:
            pass    # paused: run_group_waves' slice of work is used up
        else:
            # a taken branch to a target outside the program: the step is counted, the
            # instruction is not (as in step_generic)
            t = code[pc, C_TGT]
            fail(ws, w, ERR_BRANCH_TARGET, -1 - t)
    elif ws[w, WS_STATUS] != ST_ERROR:
        ws[w, WS_PC] = pc
    return ws[w, WS_STATUS]



@njit(inline="always")
def branch_to(ws, w, ins):
    t = ins[C_TGT]
    if t < 0:
        fail(ws, w, ERR_BRANCH_TARGET, -1 - t)
        return ws[w, WS_PC]
    return t


@njit
def row_of_pc(code, byte_pc):
    lo = 0
    hi = code.shape[0] - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        p = code[mid, C_PC]
        if p == byte_pc:
            return mid
        if p < byte_pc:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@njit
def fork(code, ins, pc, w, sregs, ws):
    """s_cbranch_i_fork / g_fork: split EXEC by a mask, run the smaller half first.

    The other half's (exec, pc) is pushed on the wave's control stack (CSP counts entries,
    at most six as in the hardware's 3-bit CSP field); s_cbranch_join pops it.
    """
    ex = get_exec(sregs, w)
    mask = read_scalar(sregs, ws, w, ins[C_S0], 2, ins[C_LIT], False)
    if ins[C_H] == H_CBRANCH_G_FORK:
        target_byte = np.int64(read_scalar(sregs, ws, w, ins[C_S1], 2, ins[C_LIT], False))
        target = row_of_pc(code, target_byte - ws[w, WS_CODE_BASE])
    else:
        target = ins[C_TGT]
    taken = mask & ex
    not_taken = ~mask & ex
    if taken == U64(0):
        return pc + 1
    if target < 0:
        fail(ws, w, ERR_BRANCH_TARGET, target)
        return pc
    if not_taken == U64(0):
        return target
    csp = ws[w, WS_CSP]
    if csp >= 6:
        fail(ws, w, ERR_BAD_OPERAND, csp)
        return pc
    ws[w, WS_CSP] = csp + 1
    slot = WS_FORK_STACK + 2 * csp
    if _popcount(taken) > _popcount(not_taken):
        ws[w, slot] = np.int64(taken)
        ws[w, slot + 1] = target
        set_pair(sregs, w, EXEC_LO, not_taken)
        return pc + 1
    ws[w, slot] = np.int64(not_taken)
    ws[w, slot + 1] = pc + 1
    set_pair(sregs, w, EXEC_LO, taken)
    return target


@njit
def join(code, ins, pc, w, sregs, ws):
    """s_cbranch_join SSRC0: SSRC0 holds the CSP saved before the matching fork (read from
    MODE[31:29]); when CSP still equals it nothing was pushed and the join falls through,
    otherwise it pops the fork stack: EXEC and PC of the half that still has to run."""
    saved = np.int64(read_scalar(sregs, ws, w, ins[C_S0], 1, ins[C_LIT], False) & U64(7))
    csp = ws[w, WS_CSP]
    if csp == saved or csp == 0:
        return pc + 1
    if csp > 6:   # s_setreg can set MODE[31:29] to 7: there is no seventh entry to pop
        fail(ws, w, ERR_FORK_STACK, csp)
        return pc
    csp -= 1
    ws[w, WS_CSP] = csp
    slot = WS_FORK_STACK + 2 * csp
    set_pair(sregs, w, EXEC_LO, U64(ws[w, slot]))
    return ws[w, slot + 1]


@njit
def _popcount(x):
    c = 0
    while x != U64(0):
        x &= x - U64(1)
        c += 1
    return c


@njit
def apply_output_mods(res, exec_mask, width, omod, clamp, mode):
    for l in range(64):
        if (exec_mask >> U64(l)) & U64(1):
            if width == 64:
                res[l] = FP.apply_omod_clamp_f64(res[l], omod, clamp, mode)
            else:
                res[l] = FP.apply_omod_clamp_f32(res[l], omod, clamp, mode)


@njit
def mqsad(vgpr, ws, w, dst, s0, s1, s2lo, s2hi, exec_mask):
    if not vgpr_ok(ws, w, dst, 4):
        return
    row = ws[w, WS_VBASE] + dst
    for l in range(64):
        if (exec_mask >> U64(l)) & U64(1):
            lo, hi = D.v_mqsad_u32_u8(s0[l], s1[l], s2lo[l], s2hi[l], l, ws[w, WS_MODE])
            vgpr[row, l] = np.uint32(lo & MASK32)
            vgpr[row + 1, l] = np.uint32(lo >> U64(32))
            vgpr[row + 2, l] = np.uint32(hi & MASK32)
            vgpr[row + 3, l] = np.uint32(hi >> U64(32))




# --- scheduling -----------------------------------------------------------------------------
#: the work a wave's turn costs run_group_waves besides its instructions, in wave-instructions
#: (run_wave's set-up): what a loop through s_barrier spends its slices on
RESUME_COST = 16

#: run_group_waves' answer when a wave needs code that is compiled on first use
NEED_CODE = -4
#: the ``tr`` of run_group_waves and run_wave when nothing is recorded (an array, not None:
#: recording or not is one specialisation, see run_wave)
NO_TRACE = np.zeros(0, np.int64)
#: the words of run_group_waves' ``sched``: the wave of the pass to run next, whether a wave
#: ran in this pass, the address of the compiled general path (0: not yet), the row that
#: needs code and which code (layout.NEED_*; after NEED_CODE), the addresses of the trace's
#: recorders (FR_REC, FR_REC_IMG, FR_REC_DS; 0: not yet)
SC_NEXT, SC_RAN, SC_GENERIC, SC_NEED, SC_NEED_KIND, SC_REC, SC_REC_IMG, SC_REC_DS = range(8)
NSCHED = 8
#: the sched word of each recorder's address, by the NEED_* kind that waits for it
_RECORDER_WORD = {NEED_REC: SC_REC, NEED_REC_IMG: SC_REC_IMG, NEED_REC_DS: SC_REC_DS}


@njit
def run_group_waves(code, wave_ids, sregs, ws, vgpr, lds, mem_data, mem_mapped, mem_base,
                    faults, msgs, step_limit, exports, tr, budget, sched, san=None):
    """Run the waves of one or more workgroups to completion, honouring s_barrier.

    Waves run one at a time, each until it ends or reaches a barrier; when every live wave
    of a workgroup waits at the barrier, they are all released. The order is fixed, so
    results are deterministic. Returns -1 when done, the id of a wave that failed, -2 when
    the trace ``tr`` (timing or coherency, or the sanitizer's with ``san``; NO_TRACE when
    nothing is recorded) is full (grow it and call again), -3 when about ``budget``
    wave-instructions ran in this call (a slice: the caller can look at the clock and at
    Ctrl-C, then call again), or NEED_CODE (-4) when a wave stopped before an instruction
    whose compiled code is not there yet (row ``sched[SC_NEED]``: provide_code compiles it;
    then call again). ``sched`` (int64[NSCHED], from new_sched() for a new batch) keeps where
    the schedule stands between calls, so that the waves run in the same order however the
    work is sliced, and the address of the compiled general path (SC_GENERIC).
    """
    # the VALU scratch rows, 64-byte aligned: numba's np.empty aligns to 32 bytes only, and
    # rows straddling cache lines split every AVX-512 load and store of the row kernels
    # rows 4..7 are eight uint32 rows for the 32-bit row kernels (t32: three sources, the
    # result, its flags, declined lanes, a row of zeros for absent sources, one spare);
    # row 8 the memory families' frame
    buf = np.zeros(9 * 64 + 8, np.uint64)
    off = ((64 - (buf.ctypes.data & 63)) & 63) // 8
    tmp = buf[off:off + 256].reshape((4, 64))
    t32 = buf[off + 256:off + 512].view(np.uint32).reshape((8, 64))
    frame = buf[off + 512:off + 576]
    # the program and the state arrays, for run_wave (see there) and the memory families,
    # whose views of them take these shapes (mem/entry.py frame_state)
    if sregs.shape[0] != ws.shape[0] or sregs.shape[1] != 128 or vgpr.shape[1] != 64:
        raise ValueError("run_group_waves: sregs must be [waves, 128] for ws' waves, vgpr "
                         "[rows, 64]")
    frame[FR_CODE] = U64(code.ctypes.data)
    frame[FR_NROWS] = U64(code.shape[0])
    frame[FR_NCOLS] = U64(code.shape[1])
    frame[FR_SREGS] = U64(sregs.ctypes.data)
    frame[FR_NW] = U64(ws.shape[0])
    frame[FR_WS] = U64(ws.ctypes.data)
    frame[FR_NWS] = U64(ws.shape[1])
    frame[FR_VGPR] = U64(vgpr.ctypes.data)
    frame[FR_NV] = U64(vgpr.shape[0])
    frame[FR_LDS] = U64(lds.ctypes.data)
    frame[FR_NLDS] = U64(lds.shape[0])
    frame[FR_DATA] = U64(mem_data.ctypes.data)
    frame[FR_NDATA] = U64(mem_data.shape[0])
    frame[FR_MAPPED] = U64(mem_mapped.ctypes.data)
    frame[FR_NMAPPED] = U64(mem_mapped.shape[0])
    frame[FR_BASE] = U64(mem_base)
    frame[FR_FAULTS] = U64(faults.ctypes.data)
    frame[FR_NF0] = U64(faults.shape[0])
    frame[FR_NF1] = U64(faults.shape[1])
    frame[FR_TMP] = U64(tmp.ctypes.data)
    frame[FR_EXPORTS] = U64(exports.ctypes.data)
    frame[FR_NEXP] = U64(exports.shape[0])
    frame[FR_NEXPC] = U64(exports.shape[1])
    frame[FR_MSGS] = U64(msgs.ctypes.data)
    frame[FR_NMSGS] = U64(msgs.shape[0])
    frame[FR_T32] = U64(t32.ctypes.data)
    frame[FR_GENERIC] = U64(sched[SC_GENERIC])
    rec = tr.shape[0] != 0
    frame[FR_REC] = U64(sched[SC_REC])
    frame[FR_REC_IMG] = U64(sched[SC_REC_IMG])
    frame[FR_REC_DS] = U64(sched[SC_REC_DS])
    nw = wave_ids.shape[0]
    # Barrier release below: the dispatcher lays out each workgroup's waves consecutively,
    # so a group is one run of wave_ids and is decided by scanning that run (O(waves) per
    # pass instead of each waiting wave scanning the whole batch: 128 waves in a batch).
    # Checked once here; a batch where a group is split falls back to the full scans. The
    # dispatcher numbers a batch's groups in wave order, so one pass sees them increase; only
    # a batch laid out otherwise pays for the quadratic check (which took ~100 us a call on
    # a 512-wave batch: 6-13% of saxpy, transpose_lds and scan_lds)
    contig = True
    for i in range(1, nw):
        if ws[wave_ids[i], WS_GROUP] < ws[wave_ids[i - 1], WS_GROUP]:
            contig = False
            break
    if not contig:
        contig = True
        for i in range(1, nw):
            g = ws[wave_ids[i], WS_GROUP]
            if g != ws[wave_ids[i - 1], WS_GROUP]:
                for j in range(i - 1):
                    if ws[wave_ids[j], WS_GROUP] == g:
                        contig = False
    spent = 0
    while True:
        # sched[SC_NEXT]: the wave of the pass to run next; sched[SC_RAN]: a wave ran in this pass
        for i in range(sched[SC_NEXT], nw):
            w = wave_ids[i]
            if ws[w, WS_STATUS] == ST_READY:
                if spent >= budget:
                    sched[SC_NEXT] = i
                    return -3
                before = ws[w, WS_STEPS]
                run_wave(w, frame, step_limit, before + budget - spent, tr, san)
                spent += ws[w, WS_STEPS] - before + ws[w, WS_WORK] + RESUME_COST
                sched[SC_RAN] = 1
                if rec:
                    if tr[1] > 0:    # full (-1: a coherency-mode trace, gcnemu/timing/trace.py)
                        sched[SC_NEXT] = i
                        return -2
                if ws[w, WS_STATUS] == ST_ERROR:
                    return w
                if frame[FR_NEED] != U64(0):       # stopped before code not compiled yet
                    sched[SC_NEED] = np.int64(frame[FR_NEED]) - 1
                    sched[SC_NEED_KIND] = np.int64(frame[FR_NEED_KIND])
                    sched[SC_NEXT] = i
                    return NEED_CODE
                if ws[w, WS_STATUS] == ST_READY:   # paused mid-way: go on here next call
                    sched[SC_NEXT] = i
                    return -3
        progressed = sched[SC_RAN] != 0
        sched[SC_NEXT] = 0
        sched[SC_RAN] = 0
        # release barriers: a group whose live waves all wait
        released = False
        i = 0
        while contig and i < nw:
            g = ws[wave_ids[i], WS_GROUP]
            j = i
            any_ready = False
            any_wait = False
            while j < nw and ws[wave_ids[j], WS_GROUP] == g:
                st = ws[wave_ids[j], WS_STATUS]
                if st == ST_READY:
                    any_ready = True
                elif st == ST_BARRIER:
                    any_wait = True
                j += 1
            if any_wait and not any_ready:
                for k in range(i, j):
                    if ws[wave_ids[k], WS_STATUS] == ST_BARRIER:
                        ws[wave_ids[k], WS_STATUS] = ST_READY
                released = True
            i = j
        for i in range(nw if not contig else 0):
            w = wave_ids[i]
            if ws[w, WS_STATUS] != ST_BARRIER:
                continue
            g = ws[w, WS_GROUP]
            all_wait = True
            for j in range(nw):
                v = wave_ids[j]
                if ws[v, WS_GROUP] == g and ws[v, WS_STATUS] == ST_READY:
                    all_wait = False
                    break
            if all_wait:
                for j in range(nw):
                    v = wave_ids[j]
                    if ws[v, WS_GROUP] == g and ws[v, WS_STATUS] == ST_BARRIER:
                        ws[v, WS_STATUS] = ST_READY
                released = True
        if not progressed and not released:
            break
    return -1



#: wave-instructions per call of run_group_waves (a slice: ~0.01-0.1 s): how often a dispatch
#: looks at the clock and at Ctrl-C
SLICE_STEPS = 1 << 21

def _generic_entry(fp):
    """step_generic on the state a frame describes (gcnemu/mem/entry.py), as a C-callable
    entry: the general path is compiled on first use, like the memory families (~14 s of
    compilation that a kernel whose instructions all take run_wave's fast paths never needs)."""
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    code, pc, msgs, t32 = frame_program(fp)
    return step_generic(code, pc, np.int64(w), sregs, ws, vgpr, lds, msgs, tmp, t32)


_GENERIC_SIGNATURE = types.int64(types.CPointer(types.int64))
#: sched word -> the address of the code it holds (the general path, the trace's recorders),
#: once compiled or loaded in this process
_compiled: dict = {}


def new_sched() -> np.ndarray:
    """A ``sched`` for run_group_waves' first call on a new batch."""
    sched = np.zeros(NSCHED, np.int64)
    for word, addr in list(_compiled.items()):
        sched[word] = addr
    return sched


def provide_code(code: np.ndarray, sched: np.ndarray) -> None:
    """Compile (or load from numba's disk cache) the code that row ``sched[SC_NEED]`` of the
    program ``code`` waits for, after run_group_waves returned NEED_CODE: a trace recorder
    (``sched[SC_NEED_KIND]``, into ``sched``), or the row's memory family's entry, written
    into every row of the family (threads running the same program see either 0 or the
    address), or the general path, into ``sched``."""
    kind = int(sched[SC_NEED_KIND])
    if kind != NEED_ROW:
        word = _RECORDER_WORD[kind]
        if word not in _compiled:
            _compiled[word] = recorder_address(kind)
        sched[word] = _compiled[word]
        return
    row = int(sched[SC_NEED])
    h = int(code[row, C_H])
    if H_DS <= h <= H_EXP or h in (H_SMRD_LOAD, H_MEMTIME):
        addr = family_address(h)
        if not addr:
            raise RuntimeError(f"no compiled entry for memory handler {h}")
        code[code[:, C_H] == h, C_FN] = addr
    else:
        if SC_GENERIC not in _compiled:
            _compiled[SC_GENERIC] = native_address(_generic_entry, _GENERIC_SIGNATURE)
        sched[SC_GENERIC] = _compiled[SC_GENERIC]


def run_sliced(run_slice, trace_full, between_slices, code, sched) -> int:
    """Call ``run_slice()`` (one run_group_waves call on the program ``code`` with ``sched``)
    until the waves are done: returns -1 or the id of a wave that failed. A full timing trace
    calls ``trace_full()`` (which grows it), a used-up slice ``between_slices()`` (which may
    raise to stop the run) and code not compiled yet provide_code before the next call."""
    while True:
        bad = run_slice()
        if bad == -2:
            trace_full()
        elif bad == -3:
            between_slices()
        elif bad == NEED_CODE:
            provide_code(code, sched)
        else:
            return bad


def error_from_wave(prog, ws: np.ndarray, w: int, kernel: str | None = None,
                    wave_label: str | None = None) -> ExecutionError:
    """The ExecutionError of a wave that failed (its WS_ERR* columns), naming the PC and the
    instruction of the decoded program ``prog`` where it stopped."""
    code = int(ws[w, WS_ERR])
    arg = int(ws[w, WS_ERR_ARG])
    row = int(ws[w, WS_ERR_ROW])
    lane = int(ws[w, WS_ERR_LANE])
    if code in (ERR_SGPR_RANGE, ERR_VGPR_RANGE) and not 0 <= arg <= 511:
        code += 100
    text = ERROR_TEXT.get(code, f"error {code}").format(arg=arg)
    pc = text_ins = None
    if 0 <= row < len(prog.instructions):
        ins = prog.instructions[row]
        pc = ins.offset
        text_ins = prog.text_at(row)
        if code == ERR_FORMAT:
            text = format_error_text(arg)
        if code == ERR_UNIMPLEMENTED:
            text = f"{ins.defn.encoding} instruction {ins.defn.name} (opcode {ins.defn.opcode}) " \
                   f"is not implemented by gcnemu"
    return ExecutionError(text, kernel=kernel, pc=pc, wave=w if wave_label is None else wave_label,
                          lane=lane if lane >= 0 else None, instruction=text_ins)
