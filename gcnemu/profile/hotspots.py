"""Hotspots: the kernel's disassembly annotated with cycles per instruction, their share of
the total and the stall reasons (Radeon GPU Profiler's instruction timing view, as text).

Cycles here are wave-cycles: each cycle of each wave's life is charged to one instruction,
issuing it or stalled on it, so the listing sums to the dispatch's SQ_WAVE_CYCLES (which is
the dispatch's cycles for a one-wave launch).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: the stall reasons of the apportioning adapter (see pc_cycles)
STALL_REASONS = ("waitcnt", "barrier", "issue", "other")


@dataclass
class PCCycles:
    """One instruction of the kernel: where, what, how often, and its wave-cycles."""

    offset: int                 #: byte offset from the kernel's entry
    text: str
    executions: int             #: wave-instructions executed (all waves)
    issue: int                  #: wave-cycles issuing it
    stalls: dict = field(default_factory=dict)   #: reason -> wave-cycles stalled on it

    @property
    def cycles(self) -> int:
        return self.issue + sum(self.stalls.values())


def apportion(total: int, weights) -> np.ndarray:
    """Split the integer ``total`` over ``weights`` in proportion, by largest remainder: the
    parts are integers that sum to ``total`` exactly (all zero when the weights are)."""
    w = np.asarray(weights, np.float64)
    out = np.zeros(len(w), np.int64)
    if total <= 0 or w.sum() <= 0:
        return out
    exact = w * (total / w.sum())
    out = np.floor(exact).astype(np.int64)
    rest = int(total - out.sum())
    if rest > 0:
        out[np.argsort(-(exact - out), kind="stable")[:rest]] += 1
    return out


def pc_cycles(rep, kernel, gpu) -> list:
    """Per instruction of ``kernel`` in a timing-mode DispatchReport: PCCycles in program order.

    PROFILING ADAPTER (one place to change): the cycle model does not yet report cycles per
    instruction (``rep.pc_cycles``, stall cycles by reason, is on its way); until it does,
    the model's dispatch totals are apportioned over the instructions with what the traces
    say per row (rep.trace_summary, gcnemu/timing/rows.py):

    * SQ_ACTIVE_INST_ANY (issuing) in proportion to executions x the row's issue cost (the
      CLRX table, gcnemu/timing/costs.py), with the taken-branch cost for the times a
      branch jumped;
    * SQ_WAIT_ANY over the s_waitcnt rows ("waitcnt") and the s_barrier rows ("barrier"):
      first split between the two kinds by their executions, then over the s_waitcnt rows
      in proportion to executions x the latency of what each waits for (vmcnt: the DRAM
      latency, lgkmcnt: the LDS latency in a kernel with LDS instructions, else the K$
      latency; expcnt: the export latency; TimingConfig), over the barriers by executions;
    * SQ_WAIT_INST_ANY ("issue": ready but waiting for an issue slot or unit) in proportion
      to executions x issue cost;
    * the rest of SQ_WAVE_CYCLES ("other": s_sleep/s_nop waits, a wave's start and end) in
      proportion to executions.

    When the report has ``pc_cycles`` (the model's per-instruction table: fields pc, count,
    issue and one per stall reason), that table is used as it is and nothing is apportioned;
    the listing, the trace and the report read only this function's result."""
    from ..isa.disassembler import format_instruction

    if rep.cycles is None:
        from ..errors import GcnEmuError
        raise GcnEmuError("hotspots need a timing-mode dispatch (GPU(timing=True))")
    info = kernel.info
    start = info.entry_address - kernel.code_address
    end = start + len(info.code)
    prog = kernel.program
    pcc = getattr(rep, "pc_cycles", None)
    if pcc is None and rep.trace_summary is None:
        from ..errors import GcnEmuError
        raise GcnEmuError("hotspots need the traces read back: set gpu.summarize_traces = True "
                          "before the dispatch")
    counts = pcc["count"] if pcc is not None else rep.trace_summary.row_counts
    rows = [r for r, ins in enumerate(prog.instructions) if start <= ins.offset < end]
    # rows outside the kernel's own code (functions it calls) are charged too: keep all rows
    # that ran, the kernel's first, then the others in program order
    own = set(rows)
    rows = rows + [r for r in np.nonzero(counts)[0].tolist() if r not in own]
    if pcc is not None:
        # the cycle model's own per-instruction table (gcnemu.report.DispatchReport.pc_cycles)
        reasons = [n for n in pcc.dtype.names if n not in ("pc", "count", "issue")]
        return [PCCycles(prog.instructions[r].offset - start,
                         format_instruction(prog.instructions[r]), int(pcc["count"][r]),
                         int(pcc["issue"][r]),
                         {n: int(pcc[n][r]) for n in reasons if pcc[n][r]}) for r in rows]
    return _apportioned(rep, prog, rows, start, gpu)


def _apportioned(rep, prog, rows, start, gpu) -> list:
    """PCCycles of ``rows`` apportioned from the dispatch's totals (see pc_cycles)."""
    from ..isa.disassembler import format_instruction
    from ..timing.costs import F_BARRIER, F_LDS, F_WAITCNT
    from ..timing.model import tables_for

    ts = rep.trace_summary
    _, flags, cost, taken, waits = tables_for(prog, gpu.config, gpu.timing_config)
    cnt = ts.row_counts[rows].astype(np.float64)
    c = rep.counters
    issue_w = cnt * cost[rows] + ts.row_jumps[rows] * np.maximum(taken[rows] - cost[rows], 0)
    is_wait = (flags[rows] & F_WAITCNT) != 0
    is_bar = (flags[rows] & F_BARRIER) != 0
    active = int(c.get("SQ_ACTIVE_INST_ANY", 0))
    wait = int(c.get("SQ_WAIT_ANY", 0))
    wait_inst = int(c.get("SQ_WAIT_INST_ANY", 0))
    other = max(0, int(c.get("SQ_WAVE_CYCLES", 0)) - active - wait - wait_inst)
    # the waits split between the waitcnt and the barrier rows by their executions
    n_wait, n_bar = cnt[is_wait].sum(), cnt[is_bar].sum()
    wait_w, bar_w = apportion(wait, [n_wait, n_bar]) if n_wait + n_bar else (0, 0)
    tc = gpu.timing_config
    uses_lds = bool((flags[rows] & F_LDS).any())
    w = waits[rows]
    latency = np.where(w[:, 0] >= 0, tc.dram_latency,
                       np.where(w[:, 2] >= 0, tc.lds_latency if uses_lds else tc.kcache_latency,
                                np.where(w[:, 1] >= 0, tc.export_latency, 1)))
    parts = {"issue_cycles": apportion(active, issue_w),
             "waitcnt": apportion(int(wait_w), cnt * is_wait * latency),
             "barrier": apportion(int(bar_w), cnt * is_bar),
             "issue": apportion(wait_inst, issue_w),
             "other": apportion(other, cnt)}
    out = []
    for i, r in enumerate(rows):
        ins = prog.instructions[r]
        stalls = {k: int(parts[k][i]) for k in STALL_REASONS if parts[k][i]}
        out.append(PCCycles(ins.offset - start, format_instruction(ins), int(ts.row_counts[r]),
                            int(parts["issue_cycles"][i]), stalls))
    return out


def format_hotspots(pcs: list, rep, order: str = "hot", limit: int | None = None) -> str:
    """The annotated listing: per instruction its wave-cycles, share of the total, issue and
    stall cycles, executions, cycles per execution (RGP's average latency) and the stall
    reasons; ``order`` "hot" (hottest first) or
    "program"; ``limit`` keeps the first N lines."""
    total = sum(p.cycles for p in pcs)
    rows = sorted(pcs, key=lambda p: -p.cycles) if order == "hot" else list(pcs)
    if limit is not None:
        rows = rows[:limit]
    out = [f"{rep.kernel}: {total} wave-cycles over {rep.waves} waves (SQ_WAVE_CYCLES "
           f"{rep.counters.get('SQ_WAVE_CYCLES', 0)}), dispatch {rep.cycles} cycles",
           f"{'cycles':>10} {'share':>6} {'issue':>9} {'stall':>9}  {'execs':>7} {'avg':>7}  "
           f"{'offset':>6}  instruction  [stall reasons]"]
    for p in rows:
        share = 100.0 * p.cycles / total if total else 0.0
        stall = sum(p.stalls.values())
        why = ", ".join(f"{k} {v}" for k, v in sorted(p.stalls.items(), key=lambda kv: -kv[1]))
        avg = p.cycles / p.executions if p.executions else 0.0
        out.append(f"{p.cycles:10d} {share:5.1f}% {p.issue:9d} {stall:9d}  {p.executions:7d} "
                   f"{avg:7.1f}  {p.offset:06x}  {p.text}" + (f"  [{why}]" if why else ""))
    out.append(f"{total:10d} 100.0%  total")
    return "\n".join(out)


def stall_breakdown(pcs: list) -> dict:
    """Wave-cycles by kind over the kernel: issuing, then each stall reason that occurs."""
    out = {"issuing": sum(p.issue for p in pcs)}
    for p in pcs:
        for k, v in p.stalls.items():
            out[k] = out.get(k, 0) + v
    return out
