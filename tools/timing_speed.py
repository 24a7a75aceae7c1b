"""Timing mode's speed against functional mode on benchmarks/bench_dispatch.py's launches, as
issue 16 states its line (timing mode at least 1/3 of functional speed on every launch).

    python tools/timing_speed.py                      # every launch, best of 5 rounds
    python tools/timing_speed.py --rounds 7 --only scan_lds,matmul

Per launch, a ``GPU()`` and a ``GPU(timing=True)`` each dispatch it once untimed (compile or
cache load; the timing GPU's caches are then warm, as in a steady run), then in each round
one dispatch of each, alternating. Times are CPU time of the calling thread per dispatch
(``time.thread_time``), the best over the rounds: on a shared machine wall-clock ratios swing,
and both modes run on the calling thread (workers=1). ``simulate`` is the cycle model's share
of the timing dispatch (gcnemu.timing.model.simulate, wrapped for the run); the rest is the
recording run, the trace's split and the report. Machines differ and drift (the same launch
moved ~15 % between rounds on one machine): compare trees by alternating runs of this tool
in each, and cycle identity with tools/timing_fingerprint.py.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(launch, rounds: int) -> dict:
    """Best-of-``rounds`` thread CPU ms per dispatch of one bench_dispatch Launch: functional,
    timing, and simulate's share of the timing dispatch that was fastest."""
    import gcnbench

    import gcnemu
    import gcnemu.timing.model as model
    from kernels import corpus

    k = gcnemu.load(str(corpus.hsaco_path(launch.corpus_name))).kernel(launch.symbol)
    runs = []
    for timing in (False, True):
        gpu = gcnemu.GPU(timing=timing)
        args, _bufs = gcnbench.device_args(gpu, launch.args)
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
    print(f"{'launch':34s} {'functional':>10s} {'timing':>9s} {'simulate':>9s} {'ratio':>6s}"
          "   (ms of thread CPU per dispatch, best of {})".format(a.rounds))
    for ln in launches:
        m = measure(ln, a.rounds)
        print(f"{ln.label:34s} {m['functional']:10.2f} {m['timing']:9.2f} {m['simulate']:9.2f} "
              f"{m['functional'] / m['timing']:6.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
