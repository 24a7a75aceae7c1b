"""Timing mode's speed against functional mode on benchmarks/bench_dispatch.py's launches, as
issue 16 states its line (timing mode at least 1/3 of functional speed on every launch).

    python tools/timing_speed.py                      # every launch, best of 5 rounds
    python tools/timing_speed.py --rounds 7 --only scan_lds,matmul
    python tools/timing_speed.py --floor              # and what walking the traces costs

Per launch, a ``GPU()`` and a ``GPU(timing=True)`` each dispatch it once untimed (compile or
cache load; the timing GPU's caches are then warm, as in a steady run), then in each round
one dispatch of each, alternating. Times are CPU time of the calling thread per dispatch
(``time.thread_time``), the best over the rounds: on a shared machine wall-clock ratios swing,
and both modes run on the calling thread (workers=1). ``simulate`` is the cycle model's share
of the timing dispatch (gcnemu.timing.model.simulate, wrapped for the run); the rest is the
recording run, the trace's split and the report. Machines differ and drift (the same launch
moved ~15 % between rounds on one machine): compare trees by alternating runs of this tool
in each, and cycle identity with tools/timing_fingerprint.py.

``budget`` is what the line leaves ``simulate``: 3 x functional less the rest of the timing
dispatch (negative: the line is out of reach even with a free cycle model). ``--floor`` adds
``walk``: one pass over the same traces that does the least any cycle model must do per
wave-instruction (read its row and skip its memory record, book a count and its cost in the
per-row table, update the wave's row, prefetch its trace as the model does), round robin
over as many waves at a time as the GPU holds resident, without issue rules, units, caches
or waits. A yardstick, not a proof: the model reads every entry at least once (a repeating
issue pattern is compared before it is booked at once), and does the rest of its work
besides.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _walk_traces():
    """The --floor walk (module docstring), compiled on first use."""
    import numpy as np
    from numba import njit

    from gcnemu.timing import costs as C
    from gcnemu.timing.model import PREFETCH, _prefetch

    @njit
    def walk(streams, wbeg, wend, rflags, rcost, resident, npc):
        # returns the rows walked, or -1 when a wave's records did not end at its stream's end
        nw = wbeg.shape[0]
        rows = 0
        pos = wbeg.copy()
        pcc = np.zeros(rcost.shape[0] * npc, np.int64)
        since = np.zeros(nw, np.int64)
        for g0 in range(0, nw, resident):
            g1 = min(nw, g0 + resident)
            live = g1 - g0
            while live > 0:
                live = 0
                for w in range(g0, g1):
                    p = pos[w]
                    if p >= wend[w]:
                        continue
                    live += 1
                    rows += 1
                    row = streams[p]
                    f = rflags[row]
                    if f & C.F_VMEM or (f & C.F_SMEM and not f & C.F_NOREC):
                        p += 2 + streams[p + 1]
                    elif f & (C.F_LDS | C.F_GDS):
                        p += 2
                    else:
                        p += 1
                    pcc[row * npc] += 1
                    pcc[row * npc + 1] += rcost[row]
                    since[w] += rcost[row]
                    pos[w] = p
                    _prefetch(streams, p + PREFETCH)    # (as the model does)
        for w in range(nw):
            if pos[w] != wend[w]:
                return -1
        return rows + 0 * (pcc[0] + since[0])    # (kept: the bookings are not dead code)

    return walk


def _launch_on(launch, timing: bool):
    """The kernel of one bench_dispatch Launch, a ``GPU(timing=timing)`` and its arguments
    there."""
    import gcnbench

    import gcnemu
    from kernels import corpus

    k = gcnemu.load(str(corpus.hsaco_path(launch.corpus_name))).kernel(launch.symbol)
    gpu = gcnemu.GPU(timing=timing)
    args, _bufs = gcnbench.device_args(gpu, launch.args)
    return k, gpu, args


def floor_ms(launch, rounds: int) -> tuple:
    """Best-of-``rounds`` thread CPU ms of the --floor walk over one timing dispatch's traces,
    and the wave-instructions it walked."""
    import gcnemu.timing.model as model

    k, gpu, args = _launch_on(launch, timing=True)
    simulate = model.simulate
    seen = {}

    def grab(*a, **kw):
        seen["a"] = a
        return simulate(*a, **kw)

    model.simulate = grab
    try:
        gpu.dispatch(k, grid=launch.grid, block=launch.block, args=args)
    finally:
        model.simulate = simulate
    a = seen["a"]
    streams, wbeg, wend, ncu, nsimd, wps, rflags, rcost = (a[0], a[1], a[2], int(a[4]), int(a[5]),
                                                            int(a[6]), a[9], a[10])
    walk = _walk_traces()
    best = float("inf")
    for _ in range(rounds + 1):      # (the first compiles)
        t0 = time.thread_time()
        rows = walk(streams, wbeg, wend, rflags, rcost, ncu * nsimd * wps, model.NPC)
        best = min(best, time.thread_time() - t0)
    if rows < 0:
        raise RuntimeError(f"{launch.label}: the walk's memory records do not end where the "
                           "waves' streams end (the trace format changed?)")
    return best * 1e3, rows


def measure(launch, rounds: int) -> dict:
    """Best-of-``rounds`` thread CPU ms per dispatch of one bench_dispatch Launch: functional,
    timing, and simulate's share of the timing dispatch that was fastest."""
    import gcnemu.timing.model as model

    runs = []
    for timing in (False, True):
        k, gpu, args = _launch_on(launch, timing)
        gpu.dispatch(k, grid=launch.grid, block=launch.block, args=args)
        runs.append((gpu, args))
    simulate = model.simulate
    spent = [0.0]

    def timed(*a, **kw):
        t0 = time.thread_time()
        try:
            return simulate(*a, **kw)
        finally:
            spent[0] += time.thread_time() - t0

    best = {"functional": float("inf"), "timing": float("inf"), "simulate": 0.0}
    model.simulate = timed
    try:
        for _ in range(rounds):
            for mode, (gpu, args) in zip(("functional", "timing"), runs):
                spent[0] = 0.0
                t0 = time.thread_time()
                gpu.dispatch(k, grid=launch.grid, block=launch.block, args=args)
                dt = time.thread_time() - t0
                if dt < best[mode]:
                    best[mode] = dt
                    if mode == "timing":
                        best["simulate"] = spent[0]
    finally:
        model.simulate = simulate
    return {m: v * 1e3 for m, v in best.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--only", default="",
                    help="comma-separated substrings of the launch labels to run (default all)")
    ap.add_argument("--floor", action="store_true",
                    help="also time one walk over the traces without a cycle model (docstring)")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import bench_dispatch

    sel = [s for s in a.only.split(",") if s]
    launches = [ln for ln in bench_dispatch.LAUNCHES
                if not sel or any(s in ln.label for s in sel)]
    if not launches:
        ap.error(f"no launch matches {a.only!r}; labels: "
                 + "; ".join(ln.label for ln in bench_dispatch.LAUNCHES))
    print(f"{'launch':34s} {'functional':>10s} {'timing':>9s} {'simulate':>9s} {'ratio':>6s} "
          f"{'budget':>7s}" + (f" {'walk':>6s}" if a.floor else "")
          + "   (ms of thread CPU per dispatch, best of {})".format(a.rounds))
    for ln in launches:
        m = measure(ln, a.rounds)
        budget = 3 * m["functional"] - (m["timing"] - m["simulate"])
        print(f"{ln.label:34s} {m['functional']:10.2f} {m['timing']:9.2f} {m['simulate']:9.2f} "
              f"{m['functional'] / m['timing']:6.3f} {budget:7.2f}"
              + (f" {floor_ms(ln, a.rounds)[0]:6.2f}" if a.floor else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
