"""Hotspots: the kernel's disassembly annotated with cycles per instruction, their share of
the total and the stall reasons (Radeon GPU Profiler's instruction timing view, as text).

Cycles here are wave-cycles: each cycle of each wave's life is charged to one instruction,
issuing it or stalled on it, so the listing sums to the dispatch's SQ_WAVE_CYCLES (which is
the dispatch's cycles for a one-wave launch).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

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


def pc_cycles(rep, kernel, gpu) -> list:
    """Per instruction of ``kernel`` in a timing-mode DispatchReport: PCCycles in program order,
    from the cycle model's own per-instruction table (``rep.pc_cycles``: fields pc, count,
    issue and one per stall reason; see gcnemu.report.DispatchReport). The kernel's own rows
    come first, then the rows of functions it called that ran. The listing, the trace and the
    HTML report read only this function's result."""
    from ..isa.disassembler import format_instruction

    pcc = rep.pc_cycles
    if rep.cycles is None or pcc is None:
        from ..errors import GcnEmuError
        raise GcnEmuError("hotspots need a timing-mode dispatch (GPU(timing=True))")
    info = kernel.info
    start = info.entry_address - kernel.code_address
    end = start + len(info.code)
    prog = kernel.program
    rows = [r for r, ins in enumerate(prog.instructions) if start <= ins.offset < end]
    own = set(rows)
    rows = rows + [r for r in np.nonzero(pcc["count"])[0].tolist() if r not in own]
    reasons = [n for n in pcc.dtype.names if n not in ("pc", "count", "issue")]
    return [PCCycles(prog.instructions[r].offset - start,
                     format_instruction(prog.instructions[r]), int(pcc["count"][r]),
                     int(pcc["issue"][r]),
                     {n: int(pcc[n][r]) for n in reasons if pcc[n][r]}) for r in rows]


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
