"""Per-row and per-wave facts read back from the waves' trace streams after the cycle model.

For profiling (gcnemu/profile): how often each row ran, how often a branch row jumped, the
LDS bank-conflict degrees, the 64-byte lines each row and each wave touched, and each wave's
executed rows in order (the trace's memory-traffic track and instruction slices).

Cycles per instruction come from the cycle model itself (``DispatchReport.pc_cycles``); these
are the facts it does not keep.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..exec.jit import njit


@dataclass
class TraceSummary:
    """What the traces of a timing-mode dispatch say per program row and per wave."""

    row_counts: np.ndarray    #: int64 [rows]: times each row was executed, all waves together
    row_jumps: np.ndarray     #: int64 [rows]: times the next row executed was not row + 1
    row_lds_degree: np.ndarray  #: int64 [rows]: sum of the LDS bank-conflict degrees (DS rows)
    row_lines: np.ndarray     #: int64 [rows]: 64-byte lines the row's accesses touched
    wave_lines: np.ndarray    #: int64 [waves]: 64-byte lines each wave's accesses touched
    #: the waves' streams (rows, each followed by its memory record) and where each wave's
    #: starts and ends in it; views of the launch's buffers, valid until the GPU's next
    #: dispatch of the same launch
    streams: np.ndarray = None
    wave_begin: np.ndarray = None
    wave_end: np.ndarray = None

    def wave_rows(self, prog, w: int) -> np.ndarray:
        """The rows wave ``w`` executed, in order."""
        from .trace import record_kinds
        return _rows_of(self.streams, self.wave_begin[w], self.wave_end[w], record_kinds(prog))


@njit
def _summarize(streams, wbeg, wend, rec, counts, jumps, degree, rlines, wlines):
    n = len(rec)
    for w in range(len(wbeg)):
        i = wbeg[w]
        e = wend[w]
        prev = -1
        while i < e:
            r = streams[i]
            if r < 0 or r >= n:      # (cannot happen for the engine's traces)
                break
            counts[r] += 1
            if prev >= 0 and r != prev + 1:
                jumps[prev] += 1
            prev = r
            k = rec[r]
            if k == 0:
                i += 1
            elif k == 1:
                if streams[i + 1] > 0:
                    degree[r] += streams[i + 1]
                i += 2
            else:
                m = streams[i + 1]
                rlines[r] += m
                wlines[w] += m
                i += 2 + m


@njit
def _rows_of(streams, b, e, rec):
    out = np.empty(e - b, np.int64)
    n = 0
    i = b
    while i < e:
        r = streams[i]
        out[n] = r
        n += 1
        k = rec[r]
        i += 1 if k == 0 else (2 if k == 1 else 2 + streams[i + 1])
    return out[:n]


def summarize(prog, traces, streams) -> TraceSummary:
    """The TraceSummary of a dispatch's traces (the arguments of time_dispatch); waves in the
    order of DispatchReport.wave_cycles (workgroup by workgroup, waves of a group in order)."""
    from .trace import record_kinds

    bases = np.cumsum([0] + [len(s) for s in streams])
    parts = [(g, k, b + bases[which], e + bases[which]) for g, k, b, e, which in traces]
    nrows = prog.code.shape[0]
    if parts:
        wg, wk, wbeg, wend = (np.concatenate([p[i] for p in parts]) for i in range(4))
        joined = streams[0] if len(streams) == 1 else np.concatenate(streams)
    else:
        wg = wk = wbeg = wend = joined = np.zeros(0, np.int64)
    order = np.lexsort((wk, wg))
    wbeg = np.ascontiguousarray(wbeg[order], np.int64)
    wend = np.ascontiguousarray(wend[order], np.int64)
    out = TraceSummary(*(np.zeros(nrows, np.int64) for _ in range(4)),
                       np.zeros(len(wbeg), np.int64))
    _summarize(joined, wbeg, wend, record_kinds(prog), out.row_counts, out.row_jumps,
               out.row_lds_degree, out.row_lines, out.wave_lines)
    out.streams, out.wave_begin, out.wave_end = joined, wbeg, wend
    return out
