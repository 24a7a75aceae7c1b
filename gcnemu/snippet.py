"""Run a snippet of GCN code as one wave, for tests and for users exploring instructions."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import GcnEmuError
from .exec import layout as L
from .exec.engine import (NO_TRACE, SLICE_STEPS, error_from_wave, new_sched, run_group_waves,
                          run_sliced)
from .exec.program import Program, build_program
from .exec.state import first_lds_overrun
from .isa.table import GFX7, gen_of
from .mem.export import new_export_buffer, read_exports
from .mem.space import BASE as _MEM_BASE
from .mem.space import Memory

#: MODE for snippets: round to nearest even, f32/f64 denormals kept, DX10 clamp and IEEE on
DEFAULT_MODE = 0x3F0
DEFAULT_STEP_LIMIT = 1_000_000


@dataclass
class WaveState:
    """The architectural state of a wave after it ran."""

    sgpr: np.ndarray      #: uint32 [104]: s0..s103
    vgpr: np.ndarray      #: uint32 [registers, 64]
    exec: int
    vcc: int
    scc: int
    m0: int
    pc: int               #: byte offset of the instruction after the last one executed
    mode: int
    status: str           #: "done", "halted" or "barrier"
    instructions: int     #: instructions executed
    messages: list        #: (simm16, m0) of each s_sendmsg
    faults: list          #: (address, byte pc, lane, is_write) of unmapped accesses
    exports: list = None  #: EXP instructions: dicts with target, en, compr, done, vm, exec, data
    flat_scratch: int = 0
    trapsts: int = 0
    #: records beyond the snippet's buffers, counted but not kept: {'s_sendmsg' | 'faults' |
    #: 'exports' | 'lds_overruns': n} (255 messages and exports, 64 faults, 1 LDS overrun)
    dropped: dict = field(default_factory=dict)
    #: uint8 [lds_bytes]: the LDS after the run
    lds: np.ndarray = None
    #: uint8 [65536]: the GDS after the run (DS instructions with ``gds``; M0[31:16] is the
    #: base of their window, M0[15:0] its size)
    gds: np.ndarray = None
    #: the first LDS access past ``lds_bytes`` (it read 0 or was dropped, as an access past
    #: a workgroup's LDS allocation is on the hardware): [(byte address, byte pc, lane,
    #: is_write)], or []; the others are counted in ``dropped``
    lds_overruns: list = field(default_factory=list)

    @property
    def vgpr_f32(self) -> np.ndarray:
        """The float32 view of the VGPRs (same memory)."""
        return self.vgpr.view(np.float32)


def _to_program(source_or_bytes, gen: str = GFX7) -> Program:
    if isinstance(source_or_bytes, Program):
        return source_or_bytes
    if isinstance(source_or_bytes, (bytes, bytearray, memoryview)):
        from .isa.decoder import decode
        return build_program(decode(bytes(source_or_bytes), gen), gen=gen)
    if isinstance(source_or_bytes, str):
        from .isa.assembler import assemble
        from .isa.decoder import decode
        return build_program(decode(assemble(source_or_bytes, gen), gen), gen=gen)
    raise GcnEmuError(f"run_snippet takes assembly text, machine code bytes or a Program, "
                      f"not {type(source_or_bytes).__name__}")


def run_snippet(source_or_bytes, sgpr=None, vgpr=None, exec_mask=0xFFFF_FFFF_FFFF_FFFF, mode=None,
                *, vcc=0, m0=0xFFFFFFFF, scc=0, num_vgprs=256, num_sgprs=104, lds_bytes=65536,
                lds=None, memory=None, step_limit=DEFAULT_STEP_LIMIT, target="gfx7") -> WaveState:
    """Run code as one wave until s_endpgm and return its final state.

    ``sgpr`` maps SGPR index -> uint32; ``vgpr`` maps VGPR index -> one value for all lanes or
    64 values. ``mode`` is the MODE register (default DEFAULT_MODE). ``memory`` is a
    gcnemu.mem.space.Memory for code that loads or stores (a fresh empty one by default).
    ``lds``: the LDS's first bytes when the wave starts (the rest of its ``lds_bytes`` are
    zeros); the returned state has the LDS and GDS contents after the run (``.lds``,
    ``.gds``) and the first LDS access past ``lds_bytes`` (``.lds_overruns``).
    Errors (unimplemented opcode, register out of the allocation, runaway loop past
    ``step_limit`` instructions) raise ExecutionError naming PC and instruction. ``target``
    "gfx6" assembles, decodes and runs the code as GCN 1.0 (Southern Islands) does.
    """
    try:
        gen = gen_of(target)
    except ValueError as e:
        raise GcnEmuError(f"run_snippet: {e}") from None
    prog = _to_program(source_or_bytes, gen)
    if not 1 <= num_vgprs <= 256 or not 1 <= num_sgprs <= 104:
        raise GcnEmuError(f"a wave has 1..256 VGPRs and 1..104 SGPRs, not {num_vgprs}/{num_sgprs}")
    sregs = np.zeros((1, 128), np.uint32)
    vg = np.zeros((256, 64), np.uint32)
    ws = np.zeros((1, L.NWS), np.int64)
    for k, v in (sgpr or {}).items():
        if not 0 <= k < num_sgprs:
            raise GcnEmuError(f"sgpr index {k} outside s0..s{num_sgprs - 1}")
        sregs[0, k] = np.uint32(int(v) & 0xFFFFFFFF)
    for k, v in (vgpr or {}).items():
        if not 0 <= k < num_vgprs:
            raise GcnEmuError(f"vgpr index {k} outside v0..v{num_vgprs - 1}")
        arr = np.asarray(v)
        if arr.ndim == 0:
            vg[k, :] = np.uint32(int(arr) & 0xFFFFFFFF) if arr.dtype.kind in "iub" else arr.astype(np.float32).view(np.uint32)
        else:
            if arr.shape != (64,):
                raise GcnEmuError(f"vgpr {k}: give one value or 64 values, not shape {arr.shape}")
            if arr.dtype.kind == "f":
                vg[k, :] = arr.astype(np.float32).view(np.uint32)   # floats become f32 bits
            elif arr.dtype.itemsize == 4:
                vg[k, :] = arr.view(np.uint32)
            else:
                vg[k, :] = (arr.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
    E_EXEC = int(exec_mask) & 0xFFFFFFFFFFFFFFFF
    sregs[0, L.EXEC_LO] = E_EXEC & 0xFFFFFFFF
    sregs[0, L.EXEC_HI] = E_EXEC >> 32
    sregs[0, L.VCC_LO] = int(vcc) & 0xFFFFFFFF
    sregs[0, L.VCC_HI] = (int(vcc) >> 32) & 0xFFFFFFFF
    sregs[0, L.M0] = int(m0) & 0xFFFFFFFF
    ws[0, L.WS_SCC] = 1 if scc else 0
    ws[0, L.WS_MODE] = DEFAULT_MODE if mode is None else int(mode)
    ws[0, L.WS_SGPRS] = num_sgprs
    ws[0, L.WS_VCOUNT] = num_vgprs
    ws[0, L.WS_LDS_SIZE] = lds_bytes
    lds_init = lds
    lds = np.zeros(lds_bytes + 65536, np.uint8)   # LDS, then the GDS region
    if lds_init is not None:
        init = np.frombuffer(bytes(lds_init), np.uint8) if not isinstance(lds_init, np.ndarray) \
            else np.ascontiguousarray(lds_init).view(np.uint8).ravel()
        if init.size > lds_bytes:
            raise GcnEmuError(f"initial LDS contents of {init.size} bytes exceed lds_bytes={lds_bytes}")
        lds[:init.size] = init
    mem = memory if memory is not None else Memory()
    data, mapped = mem.arrays()
    base = _MEM_BASE
    faults = np.zeros((1, 64, 4), np.int64)
    msgs = np.zeros((256, 4), np.int64)
    wave_ids = np.zeros(1, np.int64)
    exports = new_export_buffer(256)
    sched = new_sched()
    bad = run_sliced(lambda: run_group_waves(prog.code, wave_ids, sregs, ws, vg, lds, data, mapped,
                                             np.int64(base), faults, msgs, np.int64(step_limit),
                                             exports, NO_TRACE, np.int64(SLICE_STEPS), sched),
                     None, lambda: None, prog.code, sched)
    if bad >= 0:
        raise error_from_wave(prog, ws, 0)
    status = {L.ST_DONE: "done", L.ST_HALTED: "halted", L.ST_BARRIER: "barrier"}.get(int(ws[0, L.WS_STATUS]), "?")
    row = int(ws[0, L.WS_PC])
    if 0 <= row < len(prog.instructions):
        pc = prog.instructions[row].offset
    else:
        last = prog.instructions[-1] if prog.instructions else None
        pc = (last.offset + last.size) if last else 0
    nmsg = min(int(msgs[0, 0]), msgs.shape[0] - 1)
    nf = min(int(ws[0, L.WS_FAULTS]), faults.shape[1])
    n_over = int(ws[0, L.WS_LDS_OVERRUNS])
    overruns = []
    if n_over:
        addr, row, lane, is_write = first_lds_overrun(ws, 0)
        overruns.append((addr, _byte_pc(prog, row), lane, is_write))
    return WaveState(
        sgpr=sregs[0, :104].copy(), vgpr=vg[:num_vgprs].copy(),
        exec=int(sregs[0, L.EXEC_LO]) | (int(sregs[0, L.EXEC_HI]) << 32),
        vcc=int(sregs[0, L.VCC_LO]) | (int(sregs[0, L.VCC_HI]) << 32),
        scc=int(ws[0, L.WS_SCC]), m0=int(sregs[0, L.M0]), pc=pc, mode=(int(ws[0, L.WS_MODE]) & 0x1FFFFFFF) | ((int(ws[0, L.WS_CSP]) & 7) << 29),
        status=status, instructions=int(ws[0, L.WS_INSTS]),
        messages=[(int(msgs[i, 1]), int(msgs[i, 2])) for i in range(1, nmsg + 1)],
        faults=[(int(faults[0, i, 0]), _byte_pc(prog, int(faults[0, i, 1])), int(faults[0, i, 2]),
                 int(faults[0, i, 3])) for i in range(nf)],
        exports=read_exports(exports),
        flat_scratch=int(sregs[0, 104]) | (int(sregs[0, 105]) << 32),
        trapsts=int(ws[0, L.WS_TRAPSTS]),
        dropped={kind: n for kind, n in (("s_sendmsg", int(msgs[0, 0]) - nmsg),
                                         ("faults", int(ws[0, L.WS_FAULTS]) - nf),
                                         ("exports", int(exports[0, 0])
                                          - min(int(exports[0, 0]), exports.shape[0] - 1)),
                                         ("lds_overruns", n_over - len(overruns)))
                 if n},
        lds=lds[:lds_bytes].copy(), gds=lds[lds_bytes:].copy(), lds_overruns=overruns)


def _byte_pc(prog: Program, row: int) -> int:
    if 0 <= row < len(prog.instructions):
        return prog.instructions[row].offset
    return -1
