"""The sanitizer of one launch: its static tables, each worker's shadow state, and the
findings of a dispatch (``gpu.dispatch(..., sanitize=True)``; gcnemu/launch.py drives it).

Per batch of workgroups the engine writes the sanitizer's trace (gcnemu/sanitize/record.py)
into `BatchShadow.trace`; whenever it fills up, and at the batch's end, `BatchShadow.consume`
hands it to the analyses (gcnemu/sanitize/analysis.py) and empties it, so the trace stays
small whatever the kernel runs. The batch's counts and first occurrences go back with the
batch's result; `Sanitizer.findings` adds them up in batch order (the same with any number
of workers) and looks for global races among the whole dispatch's accesses.
"""
from __future__ import annotations

import numpy as np

from ..exec.layout import C_PC
from ..isa.disassembler import format_instruction
from ..isa.operands import Unprintable
from ..timing.trace import TRACE_SLACK
from . import analysis as A
from .findings import Finding, merge_findings
from .rows import NWORDS, VREG, register_bits, register_name, row_sets

#: the engine's second specialisation of run_wave is chosen by this argument not being None
SANITIZE = np.zeros(1, np.int64)
#: entries of a batch's trace before it is analysed and emptied (8 MB)
TRACE_ENTRIES = 1 << 20
_WAITS = {A.WAIT_VM: "vmcnt", A.WAIT_LGKM: "lgkmcnt"}


class Sanitizer:
    """The static half of a launch's sanitizer: register sets and access sizes per row, the
    registers the launch ABI initialises, and the batch shadows of its workers."""

    def __init__(self, prog, gen: str, kernel: str, waves_per_group: int, lds_size: int,
                 sgpr_layout, vgpr_ids: int):
        self.prog, self.kernel, self.wpg, self.lds_size = prog, kernel, waves_per_group, lds_size
        self.sets = row_sets(prog, gen)
        self.access = A.access_table(prog.code)
        init = [r for _what, first, count in sgpr_layout for r in range(first, first + count)]
        init += [124, 126, 127]            # M0 (gcnemu sets it to -1) and EXEC
        init += range(VREG, VREG + min(int(vgpr_ids), 3))
        #: the registers written when a wave starts (a bit set, as RowSets')
        self.init = register_bits([init])[0]
        self._text = {}

    def shadow(self, nwaves: int, ngroups: int) -> "BatchShadow":
        """A worker's shadow state for batches of up to ``nwaves`` waves, ``ngroups`` groups."""
        return BatchShadow(self, nwaves, ngroups)

    # --- the dispatch's findings ---------------------------------------------------------------
    def findings(self, results, memory) -> list:
        """The findings of a dispatch from its batches' results (in batch order): one Finding
        per kind and row (global races: per pair of rows), with its count."""
        nrows = self.prog.code.shape[0]
        counts = np.zeros((len(A.KIND_NAMES), nrows), np.int64)
        first = np.zeros((len(A.KIND_NAMES), nrows, A.NF), np.int64)
        evs, waves = [], []
        for bc, bf, ev, wa in results:
            new = (counts == 0) & (bc > 0)
            first[new] = bf[new]
            counts += bc
            if len(ev):
                evs.append(ev)
            waves.append(wa)
        out = self._findings(counts, first)
        if evs:
            gc = np.zeros((len(A.KIND_NAMES), nrows), np.int64)
            gf = np.zeros((len(A.KIND_NAMES), nrows, A.NF), np.int64)
            ids = np.concatenate([w for w, _ in waves])
            atomics = np.zeros(int(ids.max()) + 1 if len(ids) else 1, np.int64)
            atomics[ids] = np.concatenate([a for _, a in waves])
            A.global_races(np.concatenate(evs), self.wpg, atomics, gc, gf, self.access)
            out += self._findings(gc, gf)
        return merge_findings(out)

    def _findings(self, counts, first) -> list:
        out = []
        for k, row in zip(*np.nonzero(counts)):
            out.append(self._finding(int(k), int(row), [int(x) for x in first[k, row]],
                                     int(counts[k, row])))
        out.sort(key=lambda f: (f.pc, list(A.KIND_NAMES).index(f.kind)))
        return out

    def _pc(self, row: int) -> int:
        return int(self.prog.code[row, C_PC])

    def text(self, row: int) -> str:
        """The disassembly of row ``row`` (the mnemonic where the disassembler has no text)."""
        t = self._text.get(row)
        if t is None:
            ins = self.prog.instructions[row]
            try:
                t = format_instruction(ins)
            except Unprintable:
                t = ins.name
            self._text[row] = t
        return t

    def _at(self, row: int) -> str:
        return f"`{self.text(row)}` (pc 0x{self._pc(row):x})"

    def _finding(self, k: int, row: int, f: list, count: int) -> Finding:
        kind = A.KIND_NAMES[k]
        wave, lane, addr, other, det = f
        what = ""
        if k == A.K_UNWAITED:
            reg, cnt, prow = register_name(other), _WAITS[det & 15], det >> 4
            what = reg
            detail = (f"{reg} is read before the s_waitcnt {cnt} that covers {self._at(prow)} "
                      f"writing it")
        elif k == A.K_STORE_DATA:
            reg = register_name(other)
            what = reg
            detail = (f"{reg} is overwritten before s_waitcnt expcnt says {self._at(det >> 4)} "
                      f"has read it")
        elif k == A.K_UNINIT:
            if det == A.UNINIT_REG:
                what = register_name(other)
                detail = f"{what} is read and nothing wrote it (nor does the launch ABI)"
            else:
                what = "lds"
                detail = "LDS bytes are read that no wave of the workgroup wrote"
        elif k == A.K_LDS_RACE:
            what = f"0x{self._pc(other):x}"
            detail = (f"another wave of the workgroup accesses the same LDS bytes at "
                      f"{self._at(other)}, one of them writing, with no s_barrier between")
        elif k == A.K_GLOBAL_RACE:
            what = f"0x{self._pc(other):x}"
            detail = (f"another work-item writes the same bytes at {self._at(other)} with no "
                      f"order between the accesses (no atomic, no barrier in one workgroup)")
        elif k == A.K_OOB:
            what = {A.OOB_BUFFER: "buffer", A.OOB_SCRATCH: "scratch", A.OOB_LDS: "lds",
                    A.OOB_GLOBAL: "global", A.OOB_PRIVATE: "scratch"}[det]
            detail = {
                A.OOB_BUFFER: "outside the V#'s range (num_records/stride): the hardware reads "
                              "0 and drops writes",
                A.OOB_SCRATCH: "outside the wave's scratch (private segment) range: the "
                               "hardware reads 0 and drops writes",
                A.OOB_LDS: f"past the workgroup's LDS allocation of {self.lds_size} bytes",
                A.OOB_GLOBAL: "outside every allocation of the GPU's memory",
                A.OOB_PRIVATE: "outside the work-item's own private segment (its bytes of "
                               "the scratch, in the ABI's swizzled layout): another "
                               "work-item's private data, or past the scratch; the hardware "
                               "does not check it",
            }[det]
        else:
            what = ""
            detail = (f"the address is not a multiple of {det} bytes; the hardware aligns it "
                      f"down (CLRX GcnMemHandling.md)")
        return Finding(kind, self.kernel, self._pc(row), self.text(row), wave,
                       wave // self.wpg if wave >= 0 else -1, lane, addr, detail, count, what)


class BatchShadow:
    """One worker's sanitizer state for a batch: the trace the engine writes, the per-wave
    register and counter state, the LDS shadow and the batch's findings so far."""

    def __init__(self, san: Sanitizer, nwaves: int, ngroups: int):
        self.san = san
        self.trace = np.zeros(TRACE_ENTRIES + TRACE_SLACK, np.int64)
        self.written = np.zeros((nwaves, NWORDS), np.uint64)
        self.pbits = np.zeros((nwaves, 3, NWORDS), np.uint64)
        self.pend = np.full((nwaves, A.NREGS, 3), -1, np.int64)
        self.cnt = np.zeros((nwaves, 9), np.int64)
        self.lds = np.zeros((4, ngroups * ((san.lds_size + 3) // 4)), np.int64)
        self.lds_grp = np.zeros((ngroups, 2), np.int64)
        nrows = san.prog.code.shape[0]
        self.counts = np.zeros((len(A.KIND_NAMES), nrows), np.int64)
        self.first = np.zeros((len(A.KIND_NAMES), nrows, A.NF), np.int64)
        self.ev = np.zeros((1 << 12, A.NEV), np.int64)

    def nbytes(self) -> int:
        """Bytes of the host arrays this shadow holds (for the launch cache's footprint)."""
        return sum(a.nbytes for a in (self.trace, self.written, self.pbits, self.pend, self.cnt,
                                      self.lds, self.lds_grp, self.counts, self.first, self.ev))

    def start(self, gwave: np.ndarray, wgroup: np.ndarray, memory, scratch) -> None:
        """Begin a batch: ``gwave``/``wgroup`` the dispatch-wide wave and batch-local group of
        each wave of the batch's arrays."""
        self.written[:] = self.san.init
        self.pbits[:] = 0
        # nothing is outstanding when a batch starts: each counter's done count catches up
        # with its issued count, which makes whatever ``pend`` holds from the last batch older
        # than any outstanding access (refilling pend instead costs ~1 ms a batch: 3 MB for
        # 256 waves)
        c = self.cnt
        c[:, 1] = c[:, 0]
        c[:, 3] = c[:, 2]
        c[:, 5] = c[:, 4]
        c[:, 6:] = 0
        self.lds[:] = 0
        self.lds_grp[:, 0] = -1
        self.lds_grp[:, 1] = 0
        self.counts[:] = 0
        self.first[:] = 0
        self.nev = 0
        self.seq = 0
        self.gwave, self.wgroup = gwave, wgroup
        order = np.argsort(memory.alloc_start, kind="stable")
        self.starts = memory.alloc_start[order].astype(np.int64)
        self.ends = memory.alloc_end[order].astype(np.int64)
        self.scratch = (scratch.address, scratch.address + scratch.size,
                        scratch.bytes_per_lane) if scratch is not None else (0, 0, 0)
        self.trace[0] = 2
        self.trace[1] = 0

    def consume(self) -> None:
        """Analyse what the trace holds and empty it (the engine then goes on writing)."""
        s, tr = self.san.sets, self.trace
        self.nev, self.ev, self.seq = A.consume(
            tr, 2, int(tr[0]), self.san.prog.code, self.san.access, s.reads, s.writes, s.locks,
            s.locks_at, s.counters, s.waits, s.barrier, s.moves, s.words, s.run, s.run_sets, self.gwave, self.wgroup,
            self.written, self.pbits, self.pend, self.cnt, self.lds, self.lds_grp,
            self.san.lds_size, self.starts, self.ends, self.scratch[0], self.scratch[1], self.scratch[2],
            self.counts, self.first, self.ev, self.nev, self.seq)
        tr[0] = 2
        tr[1] = 0

    def result(self, ids) -> tuple:
        """(counts, first occurrences, global accesses, (dispatch-wide waves, their global
        atomics)) of the batch whose waves are ``ids``: copies, or arrays no longer the
        shadow's."""
        ev = self.ev[:self.nev]
        self.ev = np.empty((max(1 << 12, self.nev), A.NEV), np.int64)   # ev goes with the result
        return (self.counts.copy(), self.first.copy(), ev, (self.gwave[ids], self.cnt[ids, 8].copy()))
