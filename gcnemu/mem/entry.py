"""The memory families' entries: one C-callable function per family, compiled on first use.

The engine does not link the families (nor SMRD's general path, mem/scalar.py smem):
run_group_waves writes the state arrays' addresses and shapes into a frame (a row of its
scratch), run_wave the row to run, and run_wave calls the family's compiled entry by
address (call_family), as it does for VALU ops. A family is compiled when one of its
instructions first runs on this general path (the engine returns to the host, which asks
family_address and writes the address into the program's rows: exec/engine.py
provide_code), which keeps about 20 s of compilation (image sampling alone ~9 s) out of a
fresh install's first dispatch of a kernel without, say, images, and ~12 s (the general
FLAT path) out of one whose FLAT accesses all take the engine's row kernels.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.extending import intrinsic

from ..exec.jit import call_native, native_address, njit, p_i64, p_u8, p_u32, p_u64
from ..exec.layout import (FR_BASE, FR_CODE, FR_DATA, FR_EXPORTS, FR_FAULTS, FR_INS, FR_LDS,
                           FR_MAPPED, FR_MSGS, FR_NCOLS, FR_NDATA, FR_NEXP, FR_NEXPC, FR_NF0,
                           FR_NF1, FR_NLDS, FR_NMAPPED, FR_NMSGS, FR_NROWS, FR_NV, FR_NW, FR_NWS,
                           FR_PC, FR_SREGS, FR_T32, FR_TMP, FR_VGPR, FR_W, FR_WS, H_DS, H_EXP,
                           H_FLAT, H_MEMTIME, H_MIMG, H_MTBUF, H_MUBUF, H_SMRD_LOAD, H_VINTRP,
                           NFRAME)
from .buffer import buffer_instruction
from .ds import ds_instruction
from .export import export_instruction, interp_instruction
from .flat import flat_instruction
from .image import image_instruction
from .scalar import smem


@intrinsic
def call_family(typingctx, addr, frame):
    """Call the family entry at ``addr`` with the frame's data pointer."""
    sig = types.void(addr, frame)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        call_native(builder, args[0], [builder.inttoptr(args[1], i64.as_pointer())])
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def call_with_frame(typingctx, addr, frame):
    """Call the entry at ``addr`` that returns an int64 (the engine's general path) with the
    frame's data pointer; returns what it returns."""
    sig = types.int64(addr, frame)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        return call_native(builder, args[0], [builder.inttoptr(args[1], i64.as_pointer())], i64)
    return sig, codegen


@njit(inline="always")
def frame_program(fp):
    """What the engine's general path needs from a frame besides frame_state: the whole
    program, the row to run (int64), the message buffer and the uint32 scratch rows."""
    f = carray(fp, (NFRAME,))
    return (carray(p_i64(f[FR_CODE]), (f[FR_NROWS], f[FR_NCOLS])), np.int64(f[FR_PC]),
            carray(p_i64(f[FR_MSGS]), (f[FR_NMSGS], 4)), carray(p_u32(f[FR_T32]), (8, 64)))


@njit(inline="always")
def frame_state(fp):
    """The state arrays a frame describes (views without reference counts)."""
    f = carray(fp, (NFRAME,))
    nw = f[FR_NW]
    return (carray(p_i64(f[FR_INS]), (f[FR_NCOLS],)), f[FR_W],
            carray(p_u32(f[FR_SREGS]), (nw, 128)), carray(p_i64(f[FR_WS]), (nw, f[FR_NWS])),
            carray(p_u32(f[FR_VGPR]), (f[FR_NV], 64)), carray(p_u8(f[FR_LDS]), (f[FR_NLDS],)),
            carray(p_u8(f[FR_DATA]), (f[FR_NDATA],)),
            carray(p_u8(f[FR_MAPPED]), (f[FR_NMAPPED],)), f[FR_BASE],
            carray(p_i64(f[FR_FAULTS]), (f[FR_NF0], f[FR_NF1], 4)),
            carray(p_u64(f[FR_TMP]), (4, 64)),
            carray(p_u32(f[FR_EXPORTS]), (f[FR_NEXP], f[FR_NEXPC])))


def _ds_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    ds_instruction(ins, w, sregs, ws, vgpr, lds, tmp[3].view(np.uint8))


def _flat_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    flat_instruction(ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults)


def _mubuf_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    buffer_instruction(ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, False,
                       tmp[3].view(np.uint8))


def _mtbuf_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    buffer_instruction(ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, True,
                       tmp[3].view(np.uint8))


def _mimg_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    image_instruction(ins, w, sregs, ws, vgpr, data, mapped, base, faults, tmp[3].view(np.uint8))


def _vintrp_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    interp_instruction(ins, w, sregs, ws, vgpr, lds)


def _smem_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    smem(ins, w, sregs, ws, data, mapped, base, faults)


def _exp_entry(fp):
    ins, w, sregs, ws, vgpr, lds, data, mapped, base, faults, tmp, exports = frame_state(fp)
    export_instruction(ins, w, sregs, ws, vgpr, exports)


_ENTRIES = {H_DS: _ds_entry, H_FLAT: _flat_entry, H_MUBUF: _mubuf_entry, H_MTBUF: _mtbuf_entry,
            H_MIMG: _mimg_entry, H_VINTRP: _vintrp_entry, H_EXP: _exp_entry,
            H_SMRD_LOAD: _smem_entry, H_MEMTIME: _smem_entry}
_FAMILY_SIGNATURE = types.void(types.CPointer(types.int64))


def family_address(h: int) -> int:
    """Address of the compiled entry of memory family ``h`` (an engine H_* handler; SMRD
    loads and s_memtime: mem/scalar.py smem), compiling it on first use (jit.native_address);
    0 for a handler that has none."""
    if h not in _ENTRIES:
        return 0
    return native_address(_ENTRIES[h], _FAMILY_SIGNATURE)
