"""The dispatch report: what a dispatch did, in rocprof's counter names."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .hardware import Occupancy
from .exec.layout import (WS_INSTS, WS_LDS_INSTS, WS_SALU, WS_SMEM, WS_TAKEN, WS_VALU,
                          WS_VMEM)


@dataclass
class DispatchReport:
    """What a dispatch did: launch shape, instruction counts (rocprof names), faults; in
    timing mode (GPU(timing=True)) also the simulated cycles, timing counters
    (gcnemu.timing.model.COUNTER_NAMES) and per-wave start/end cycles."""

    kernel: str
    grid: tuple
    block: tuple
    workgroups: int
    waves: int
    counters: dict = field(default_factory=dict)
    faults: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    exports: list = field(default_factory=list)   #: EXP data (see gcnemu.mem.export.read_exports)
    wall_seconds: float = 0.0   #: the dispatch's host time, less compile_seconds
    compile_seconds: float = 0.0   #: numba compiling (or loading from its cache) in the dispatch
    occupancy: Occupancy | None = None
    workers: int = 1          #: threads the dispatch's batches were shared among
    serial_reason: str = ""   #: why more workers (or shards) were asked for but one was used
    #: shards the dispatch ran in on Dask workers (dispatch(..., client=)); 0: in this process
    shards: int = 0
    #: timing mode only (GPU(timing=True)): simulated GPU cycles of the whole dispatch
    cycles: int | None = None
    #: timing mode only: int64 [waves, 2] start and end cycle of each wave, in dispatch order
    #: (workgroup by workgroup, waves of a workgroup in order)
    wave_cycles: np.ndarray | None = None
    #: timing mode only: int64 [waves]: the CU each wave ran on in the cycle model
    wave_cu: np.ndarray | None = None
    #: timing mode with GPU.summarize_traces only: what the traces say per program row and
    #: per wave (executions, branch jumps, LDS conflict degrees, lines touched, the rows each
    #: wave ran): gcnemu.timing.rows.TraceSummary
    trace_summary: object | None = None
    #: waves that ended with s_sethalt (they stop there; the dispatch goes on)
    halted_waves: int = 0
    #: records beyond the engine's buffers, counted but not kept: {'s_sendmsg' | 'faults' |
    #: 'exports': n} (1,023 messages and exports a batch, 16 faults a wave)
    dropped: dict = field(default_factory=dict)

    @property
    def instructions(self) -> int:
        """SQ_INSTS: wave-instructions executed."""
        return self.counters.get("SQ_INSTS", 0)

    def summary(self) -> str:
        """One line: launch shape, wave-instructions, emulation speed, faults (and the
        simulated cycles in timing mode)."""
        rate = self.instructions / self.wall_seconds / 1e6 if self.wall_seconds > 0 else 0.0
        return (f"{self.kernel}: grid {self.grid} block {self.block}, {self.workgroups} workgroups, "
                f"{self.waves} waves, {self.instructions} wave-instructions in {self.wall_seconds:.3f} s "
                f"({rate:.1f} M/s"
                + (f"; and {self.compile_seconds:.1f} s compiling or loading machine code"
                   if self.compile_seconds >= 0.05 else "") + "), "
                f"{len(self.faults) + self.dropped.get('faults', 0)} faults"
                + (f", {self.halted_waves} waves halted by s_sethalt" if self.halted_waves else "")
                + "".join(f", {n} {kind} records not kept" for kind, n in self.dropped.items())
                + (f", {self.cycles} simulated cycles" if self.cycles is not None else ""))



#: the instruction counters of a dispatch and the wave-state columns they add up
COUNTER_COLUMNS = {"SQ_INSTS": WS_INSTS, "SQ_INSTS_VALU": WS_VALU, "SQ_INSTS_SALU": WS_SALU,
                   "SQ_INSTS_SMEM": WS_SMEM, "SQ_INSTS_VMEM": WS_VMEM,
                   "SQ_INSTS_LDS": WS_LDS_INSTS, "SQ_INSTS_BRANCH_TAKEN": WS_TAKEN}
