"""The layouts of the arrays the engine, the memory families and the timing model share.

Everything here is data: integer codes and column numbers, and what each one means. The
modules that read and write the arrays import their columns from here and from nowhere else,
so that no two of them have to import each other.

The arrays (all plain numpy, shaped like the hardware):

* ``code[rows, NCOL]`` int64, a decoded program (gcnemu/exec/program.py): one row per
  instruction, columns ``C_*``. Operand codes use the hardware's 9-bit source space (0..255
  scalar registers and constants, 256 + n for VGPR n).
* ``sregs[waves, 128]`` uint32: each wave's scalar operand space indexed by operand code:
  SGPRs 0..103, FLAT_SCRATCH 104/105, VCC 106/107, TBA/TMA 108..111, TTMP 112..123, M0 124,
  EXEC 126/127.
* ``vgpr[rows, 64]`` uint32: the VGPR files of the SIMDs stacked (256 rows per SIMD); wave w
  owns rows ``ws[w, WS_VBASE] .. + ws[w, WS_VCOUNT]``; ``vgpr.view(np.float32)`` is the float
  view of the same memory.
* ``ws[waves, NWS]`` int64: the rest of each wave's state, columns ``WS_*``.
* ``frame[NFRAME]`` uint64: the addresses and shapes of the program and the state arrays,
  written once per call of engine.run_group_waves and handed to run_wave and to a memory
  family's compiled entry (gcnemu/mem/entry.py), columns ``FR_*``.
* ``faults[waves, k, 4]`` int64: the first k unmapped accesses of each wave (address, program
  row, lane or -1 for a scalar access, 1 for a write); ``ws[w, WS_FAULTS]`` counts them all.
"""
from __future__ import annotations

import numpy as np

from ..isa.encoding import (EXEC_HI, EXEC_LO, INLINE_DOUBLES, INLINE_FLOATS, M0, SGPR_MAX,  # noqa: F401
                            VCC_HI, VCC_LO)

U64 = np.uint64
MASK32 = np.uint64(0xFFFFFFFF)
ALL_LANES = np.uint64(0xFFFFFFFFFFFFFFFF)

#: the values of the inline float constants 240..247 (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0,
#: -4.0) as 32- and 64-bit patterns, indexed by code - 240
INLINE_F32 = np.array([INLINE_FLOATS[c] for c in range(240, 248)], np.uint64)
INLINE_F64 = np.array([INLINE_DOUBLES[c] for c in range(240, 248)], np.uint64)

# --- handlers (column C_H): what the engine does with a row ------------------------------------
(H_UNIMPLEMENTED, H_NOP, H_SALU, H_SAVEEXEC, H_GETPC, H_SETPC, H_SWAPPC, H_RFE, H_MOVRELS,
 H_MOVRELD, H_CBRANCH_JOIN, H_CBRANCH_G_FORK, H_CBRANCH_I_FORK, H_GETREG, H_SETREG,
 H_ENDPGM, H_BRANCH, H_CBRANCH, H_WAITCNT, H_BARRIER, H_SENDMSG, H_TRAP, H_SETHALT,
 H_SMRD_LOAD, H_MEMTIME, H_VALU, H_VCMP, H_READLANE, H_WRITELANE, H_READFIRSTLANE,
 H_VMOVRELS, H_VMOVRELD, H_VMOVRELSD, H_MQSAD, H_DS, H_FLAT, H_MUBUF, H_MTBUF, H_MIMG,
 H_VINTRP, H_EXP) = range(41)
#: the memory families H_DS .. H_EXP, in this order (the engine tests h >= H_DS and h <= H_EXP;
#: the timing trace records H_SMRD_LOAD and H_DS .. H_MIMG)
MEMORY_HANDLERS = {"DS": H_DS, "FLAT": H_FLAT, "MUBUF": H_MUBUF, "MTBUF": H_MTBUF,
                   "MIMG": H_MIMG, "VINTRP": H_VINTRP, "EXP": H_EXP}

# --- program columns (Program.code) -------------------------------------------------------------
(C_H,       # handler (H_*)
 C_K,       # handler argument: SALU/VALU op (a VALU op's kernel address), branch condition,
            # saveexec op, SMRD dwords, a memory family's sub-op (pack())
 C_PC,      # byte offset of the instruction in the program
 C_SIZE,    # bytes of the instruction
 C_S0, C_S1, C_S2,   # source operand codes (-1 absent; MUBUF/MTBUF: C_S0 is SOFFSET)
 C_DST,     # destination: an SGPR code (SALU) or a VGPR number (VALU)
 C_SDST,    # a VALU instruction's scalar destination (compare mask, carry-out)
 C_W0, C_W1, C_W2, C_WD,   # dwords of each source and of the destination
 C_ABS, C_NEG,             # VOP3 input modifiers, bit i for source i
 C_CLAMP, C_OMOD,          # VOP3 output modifiers
 C_LIT,     # the literal dword; memory families: extra raw fields, 8 bits each (program.py)
 C_IMM,     # SOPP/SOPK simm16, SMRD offset in bytes, memory families' OFFSET field
 C_TGT,     # branch target row (a target outside the program: -1 - byte offset)
 C_FLAGS,   # FL_* bits
 C_OMODW,   # 32 or 64: the width output modifiers apply at (0: none)
 C_F0, C_F1, C_F2, C_F3, C_F4, C_F5, C_F6, C_F7,   # memory families: raw fields in the
                                                   # order of program._FIELD_ORDER
 C_UNIT,    # the ISA table's unit (program.UNITS)
 C_ROW,     # the row's own index
 C_K0, C_K1, C_K2, C_KD,   # fast path: operand kinds (OP_*) of sources 0..2 and destination
 C_V0, C_V1, C_V2,         # fast path: constant operand values (32-bit row kernels: the
                           # address of the constant's row); SALU: C_V2 the inline form SQ_*
 C_SMAX, C_VMAX,           # fast path: SGPRs / VGPRs the operands need (checked per wave)
 C_FAST,    # 1: the fast path may run the row
 C_BLK, C_BLEN, C_BNVALU, C_BNSALU, C_BSMAX, C_BVMAX, C_BNDS,   # a block's facts (below)
 ) = range(49)
NCOL = 49
#: SALU rows without an inline form (C_V2 SQ_NONE): the address of the op's compiled kernel
#: (exec/opkernels.py salu_address)
C_SFN = C_F0
#: memory rows (and SMRD loads, s_memtime: mem/scalar.py smem): the address of the family's
#: compiled entry (gcnemu/mem/entry.py), 0 until an instruction of the family first needs it
#: (exec/engine.py provide_code)
C_FN = C_V0
#: DS rows with a fast form (mem/ds.lds_row_form, C_FAST 1): the row kernel's address, the
#: rows it reads and writes (relative VGPR numbers), its two offsets and alignment mask
C_DS_FN, C_DS_ROW_A, C_DS_ROW_B, C_DS_UO0, C_DS_UO1, C_DS_AMASK = C_V1, C_DST, C_SDST, C_S1, \
    C_S2, C_V2
#: FLAT rows with a fast form (mem/flat.flat_row_form, C_FAST 1): the row kernel's address,
#: the data or destination row and the bytes each lane accesses
C_FL_FN, C_FL_ROW, C_FL_SPAN = C_V1, C_DST, C_S1
#: the first row of a block (exec/blockjit.py; columns of their own: a block may start at a DS
#: row, whose C_F* hold its raw fields): the block function's address (0: no block starts
#: here), its rows, VALU rows, SALU rows, the SGPRs / VGPRs its operands need (checked per
#: wave, as C_SMAX / C_VMAX) and its DS rows (C_BLK .. C_BNDS, in the column list above)

# --- instruction flags (column C_FLAGS) ---------------------------------------------------------
FL_LIT_HIGH = 1        # a literal in a 64-bit float operand supplies the high dword
FL_CMP = 2             # VOPC: per-lane flags form a mask written to SDST (VCC or SGPR pair)
FL_CMPX = 4            # ... and to EXEC
FL_FLAGS_TO_SDST = 8   # carry-out / div_scale flag mask to SDST
FL_CIN_VCC = 16        # per-lane carry-in/select from VCC
FL_CIN_S2 = 32         # per-lane carry-in/select from the SGPR pair in src2
FL_ROW32 = 64          # C_K is the op's 32-bit row kernel (opkernels.valu32_address)
FL_PLAIN32 = 128       # FL_ROW32 and every source a VGPR without abs/neg, a constant or absent:
                       # C_V* hold the constant's (or the zero) row's address (program._row32_operands)

#: operand kinds of the fast path (columns C_K0, C_K1, C_K2, C_KD): absent, a register read
#: from sregs, a constant (its value in C_V0/1/2), a VGPR. Any other operand (SCC, VCCZ,
#: EXECZ, LDS_DIRECT, invalid codes) leaves the row at C_FAST 0.
OP_NONE, OP_SREG, OP_CONST, OP_VGPR = 0, 1, 2, 3

#: inline SALU forms (C_V2 of fast SALU rows): the moves and bitwise ops run without a call
(SQ_NONE, SQ_AND, SQ_OR, SQ_XOR, SQ_ANDN2, SQ_ORN2, SQ_NAND, SQ_NOR, SQ_XNOR, SQ_MOV,
 SQ_NOT) = range(11)

# --- wave state (ws columns) --------------------------------------------------------------------
(WS_PC,         # program row of the next instruction
 WS_SCC, WS_MODE, WS_STATUS,   # SCC, the MODE register (bits 28:0), ST_*
 WS_SGPRS,      # SGPRs allocated (s0 .. s[WS_SGPRS - 1])
 WS_VBASE, WS_VCOUNT,          # the wave's first row in vgpr, VGPRs allocated
 WS_STEPS,      # instructions executed, for the step limit
 WS_ERR, WS_ERR_ROW, WS_ERR_LANE, WS_ERR_ARG,   # the error (ERR_*), its row, lane, argument
 WS_TRAPSTS,    # TRAPSTS hardware register
 WS_GROUP,      # the wave's workgroup within its batch
 WS_LDS_BASE, WS_LDS_SIZE,     # the workgroup's LDS window in the lds array
 WS_HW_ID,      # HW_ID hardware register (wave slot, SIMD, CU)
 WS_CSP,        # the fork/join stack pointer (MODE[31:29] when read)
 WS_INSTS, WS_VALU, WS_SALU, WS_SMEM, WS_VMEM, WS_LDS_INSTS, WS_BRANCH, WS_TAKEN,   # counters
 WS_MSG_COUNT,  # s_sendmsg count
 WS_FAULTS,     # unmapped accesses (the first ones are in the faults array)
 WS_ERR_ADDR,
 WS_SCRATCH_BASE, WS_SCRATCH_WAVE,   # scratch base address and the wave's offset in it
 WS_WORK,       # the memory instructions' extra work in run_wave's last call (slice budget)
 ) = range(32)
WS_FORK_STACK = 32   # six (exec mask, pc row) pairs of the s_cbranch_*_fork stack
WS_CODE_BASE = 44    # GPU virtual address of the program's first instruction (s_getpc/s_setpc)
#: LDS accesses past the workgroup's allocation (the hardware reads 0 and drops the write;
#: gcnemu reports them as faults, naming the __local argument whose share was overrun): the
#: count, and the first one's byte address, program row and lane + 256 * is_write
WS_LDS_OVERRUNS, WS_LDS_OVERRUN_ADDR, WS_LDS_OVERRUN_ROW, WS_LDS_OVERRUN_LANE = 48, 49, 50, 51
#: EXEC-active lanes summed over the wave's VALU instructions (rocprof's thread counts:
#: SQ_THREAD_CYCLES_VALU, VALUUtilization)
WS_VALU_LANES = 52
NWS = 53

#: wave status (WS_STATUS)
ST_READY, ST_DONE, ST_BARRIER, ST_ERROR, ST_HALTED = range(5)

#: error codes (WS_ERR); ERROR_TEXT formats them with the error's argument
(ERR_NONE, ERR_UNIMPLEMENTED, ERR_SGPR_RANGE, ERR_VGPR_RANGE, ERR_BAD_OPERAND, ERR_STEP_LIMIT,
 ERR_BRANCH_TARGET, ERR_PC_RANGE, ERR_TRAP, ERR_MEMORY, ERR_LDS_RANGE, ERR_OPERAND_SPACE,
 ERR_FORK_STACK) = range(13)
ERR_FORMAT, ERR_TILED, ERR_RESOURCE = 32, 33, 34   # raised by the memory families

ERROR_TEXT = {
    ERR_UNIMPLEMENTED: "instruction not implemented by gcnemu",
    ERR_SGPR_RANGE: "SGPR s{arg} is outside the wave's allocation",
    ERR_VGPR_RANGE: "VGPR v{arg} is outside the wave's allocation",
    # the same, for an index no register has (an M0-relative one, as a rule)
    ERR_SGPR_RANGE + 100: "SGPR index {arg} (0x{arg:x}; M0-relative?) is outside the wave's "
                          "allocation",
    ERR_VGPR_RANGE + 100: "VGPR index {arg} (0x{arg:x}; M0-relative?) is outside the wave's "
                          "allocation",
    ERR_BAD_OPERAND: "invalid operand code {arg} for this instruction",
    ERR_STEP_LIMIT: "step limit of {arg} instructions reached (runaway loop?); GPU(step_limit=N) "
                    "or run_snippet(..., step_limit=N) raises it",
    ERR_BRANCH_TARGET: "branch target byte offset {arg} is not an instruction of the program",
    ERR_PC_RANGE: "program counter ran past the end of the program",
    ERR_TRAP: "s_trap {arg} executed and no trap handler is installed",
    ERR_MEMORY: "memory access fault",
    ERR_LDS_RANGE: "LDS access out of range",
    ERR_OPERAND_SPACE: "a scalar operand range runs to code {arg}, past EXEC_HI (code 127), the "
                       "end of the scalar operand space",
    ERR_FORK_STACK: "s_cbranch_join with a fork/join stack pointer of {arg} (the stack holds 6 "
                    "entries)",
    ERR_FORMAT: "unsupported buffer/image format (dfmt | nfmt<<8 | store<<16 = {arg})",
    ERR_TILED: "image T# tiling_index {arg} is a tiled layout; gcnemu supports only linear "
               "images (tiling_index 8)",
    ERR_RESOURCE: "image T# type {arg} is not supported (1D, 2D, 3D, 1D array and 2D array are)",
}

# --- memory sub-ops (column C_K of memory rows) -------------------------------------------------
#: what a memory instruction does, packed by gcnemu/mem/subops.pack: kind (bits 7:0), bytes per
#: component (15:8), components (19:16), sign extension (20), atomic op (28:24), returns the
#: old value (29), ST64 offsets (30), compare and data swapped (31)
(K_LOAD, K_STORE, K_ATOMIC, K_LOAD2, K_STORE2, K_SWIZZLE, K_APPEND, K_CONSUME, K_NOP,
 K_SRC2, K_WRXCHG2, K_LOAD_FORMAT, K_STORE_FORMAT, K_RESINFO, K_UNSUPPORTED,
 K_INTERP_P1, K_INTERP_P2, K_INTERP_MOV, K_EXPORT, K_SAMPLE) = range(20)

#: image_sample/gather4/get_lod flags (the sub-op's size field of K_SAMPLE)
SF_L, SF_LZ, SF_B, SF_C, SF_D, SF_CL, SF_O, SF_GATHER = 1, 2, 4, 8, 16, 32, 64, 128
SAMPLE_GET_LOD = 1  # K_SAMPLE with the sign-extension bit: image_get_lod

#: flat address apertures (high dword of a 64-bit FLAT address; the amd_queue_t holds them)
SHARED_APERTURE_HI = 0x10000000   # 0x1000_0000_xxxx_xxxx reaches LDS
PRIVATE_APERTURE_HI = 0x20000000  # 0x2000_0000_xxxx_xxxx reaches the lane's scratch

# --- the memory families' frame -----------------------------------------------------------------
#: words of ``frame``: the row's address (FR_INS, with FR_NCOLS columns), the wave, and each
#: state array's data address with its shape; then what the engine's general path
#: (exec/engine.py: step_generic, also compiled on first use and called by address) needs
#: besides: the whole program (FR_CODE, FR_NROWS rows), the row to run (FR_PC), the message
#: buffer (FR_MSGS, FR_NMSGS rows of 4) and the uint32 scratch rows (FR_T32, 8 rows of 64);
#: FR_GENERIC holds step_generic's address (0 until compiled); run_wave sets FR_NEED to 1 + the
#: row of an instruction whose compiled code is still missing, and FR_NEED_KIND which code
#: (NEED_*); FR_SCC receives the SCC of a SALU op kernel (exec/opkernels.py call_salu).
#: Traces: FR_TR and FR_NTR the trace's address and length, FR_REC, FR_REC_IMG and FR_REC_DS
#: the addresses of its recorders (gcnemu/timing/trace.py recorder_address: every memory
#: record but MIMG's and DS's, MIMG's, DS's; 0 until compiled); FR_TR_ROW the position of the current row's entry,
#: FR_TR_RUN that of the wave's run header + 1 (0: none) while run_wave records
(FR_INS, FR_W, FR_SREGS, FR_NW, FR_WS, FR_NWS, FR_VGPR, FR_NV, FR_LDS, FR_NLDS, FR_DATA,
 FR_NDATA, FR_MAPPED, FR_NMAPPED, FR_BASE, FR_FAULTS, FR_NF0, FR_NF1, FR_TMP, FR_EXPORTS,
 FR_NEXP, FR_NEXPC, FR_NCOLS, FR_CODE, FR_NROWS, FR_PC, FR_MSGS, FR_NMSGS, FR_T32,
 FR_GENERIC, FR_NEED, FR_SCC, FR_NEED_KIND, FR_TR, FR_NTR, FR_REC, FR_REC_IMG, FR_TR_ROW,
 FR_TR_RUN, FR_REC_DS) = range(40)
NFRAME = 40
#: what FR_NEED waits for: the row's own code (its memory family's entry or the general
#: path), the trace recorder of every memory record but MIMG's and DS's, the MIMG one, the DS one
NEED_ROW, NEED_REC, NEED_REC_IMG, NEED_REC_DS = range(4)
