"""The dispatch report: what a dispatch did, in rocprof's counter names."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .hardware import Occupancy
from .timing.costs import PC_COLUMNS, STALL_REASONS
from .exec.layout import (WS_INSTS, WS_LDS_INSTS, WS_SALU, WS_SMEM, WS_TAKEN, WS_VALU,
                          WS_VMEM)


@dataclass
class DispatchReport:
    """What a dispatch did: launch shape, instruction counts (rocprof names), faults; in
    timing mode (GPU(timing=True)) also the simulated cycles, timing counters
    (gcnemu.timing.model.COUNTER_NAMES), per-wave start/end cycles and where the cycles went.

    Timing-mode fields (None with timing off):

    * ``cycles`` (int): simulated GPU clock cycles of the whole dispatch, from the first
      workgroup's launch to the last wave's end or the last memory write's completion,
      whichever is later; ``time_us`` (float): the same at the preset's clock
      (``clock_mhz``).
    * ``pc_cycles`` (numpy structured array, one entry per instruction of the program in
      program order, int64 fields): ``pc`` the instruction's byte offset in the code,
      ``count`` the wave-instructions issued there, ``issue`` the cycles the waves spent
      issuing it (its cost: 4 for a full-rate VALU op, 20 for a taken branch, ...), and the
      wave-cycles each wave waited before issuing it, by reason (the names of
      ``stall_reasons``): ``vmcnt`` / ``lgkmcnt`` / ``expcnt`` (an s_waitcnt waiting on that
      counter: the counter that held it longest gets the wait), ``barrier`` (s_barrier: booked
      on the instruction after the barrier), ``unit_busy`` (its unit was busy: the SIMD's
      VALU, the texture unit, the LDS, export/GDS), ``arbiter`` (ready but not selected:
      another wave of its SIMD took the port, or its SIMD's round-robin turn had not come),
      ``fetch`` (instruction fetch: waiting for the instruction's bytes from the CU group's
      I$ after a miss, gcnemu/timing/icache.py, and the extra cycles of 8-byte instructions
      when TimingConfig.long_instruction_cycles is set), ``dependency`` (a scalar instruction
      waiting for scalar registers a VALU instruction of its wave writes, e.g. VCC of a
      v_cmp: TimingConfig.valu_sgpr_latency). Each wave's lifetime, from its launch to
      the end of its last instruction, is split exactly among its instructions: the sum of
      ``issue`` and all stall fields over the table equals ``counters["SQ_WAVE_CYCLES"]``
      (wave-cycles; divide by ``waves`` for the mean wave, or by ``achieved_occupancy`` x
      the GPU's SIMDs for the dispatch's ``cycles``).
    * ``stalls`` (dict str -> int): the stall fields of ``pc_cycles`` summed over the
      program, in wave-cycles.
    * ``occupancy`` (gcnemu.hardware.Occupancy, in either mode): the waves per SIMD and
      workgroups per CU the kernel's resources allow, and what limits them;
      ``achieved_occupancy`` (float): the mean number of resident waves per SIMD over the
      dispatch, SQ_WAVE_CYCLES / (cycles x CUs x SIMDs per CU).
    """

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
    #: timing mode only: per instruction, issue and stall cycles (see the class docstring)
    pc_cycles: np.ndarray | None = None
    #: timing mode only: stall wave-cycles by reason, summed over the program
    stalls: dict | None = None
    #: timing mode only: mean resident waves per SIMD over the dispatch
    achieved_occupancy: float | None = None
    #: the GPU's clock (its preset's, or GPU(clock_mhz=...)), for time_us
    clock_mhz: float | None = None
    #: waves that ended with s_sethalt (they stop there; the dispatch goes on)
    halted_waves: int = 0
    #: EXEC-active lanes summed over the VALU wave-instructions (64 per instruction when
    #: no lane is off): valu_lanes / (64 x SQ_INSTS_VALU) is the SIMD lane utilisation
    valu_lanes: int = 0
    #: records beyond the engine's buffers, counted but not kept: {'s_sendmsg' | 'faults' |
    #: 'exports': n} (1,023 messages and exports a batch, 16 faults a wave)
    dropped: dict = field(default_factory=dict)
    #: dispatch(..., sanitize=True) and coherency-accurate mode: the hazards found
    #: (gcnemu.sanitize.findings.Finding, one per distinct hazard with its count); None when
    #: nothing looked for them
    findings: list | None = None

    #: the names of the stall fields of pc_cycles and the keys of stalls
    stall_reasons = STALL_REASONS

    @property
    def time_us(self) -> float | None:
        """Timing mode: the dispatch's simulated time in microseconds at the GPU's clock."""
        if self.cycles is None or not self.clock_mhz:
            return None
        return self.cycles / self.clock_mhz

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
                + (f", {self.cycles} simulated cycles ({self.time_us:.2f} us at "
                   f"{self.clock_mhz:g} MHz)" if self.cycles is not None else ""))



#: the instruction counters of a dispatch and the wave-state columns they add up
COUNTER_COLUMNS = {"SQ_INSTS": WS_INSTS, "SQ_INSTS_VALU": WS_VALU, "SQ_INSTS_SALU": WS_SALU,
                   "SQ_INSTS_SMEM": WS_SMEM, "SQ_INSTS_VMEM": WS_VMEM,
                   "SQ_INSTS_LDS": WS_LDS_INSTS, "SQ_INSTS_BRANCH_TAKEN": WS_TAKEN}


#: pc_cycles' fields: the instruction's byte offset, then the timing model's per-row columns
PC_CYCLES_DTYPE = np.dtype([("pc", np.int64)] + [(name, np.int64) for name in PC_COLUMNS])
