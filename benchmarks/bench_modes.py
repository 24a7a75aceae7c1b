"""Dispatch modes: 2-worker speedup and timing mode, measured when gcnemu offers them.

Run:  python -m pytest benchmarks/bench_modes.py --benchmark-only

* 2 workers: ``gpu.dispatch(..., workers=1)`` vs ``workers=2`` on the same launch, if
  ``GPU.dispatch`` takes a ``workers`` argument. Otherwise the benchmark is skipped with
  "not available" and the summary table says so; no number is made up.
* Timing: ``GPU(timing=True)`` vs the functional GPU on the same launch, if ``GPU`` takes a
  ``timing`` argument; likewise reported as not available otherwise.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import gcnbench
from kernels import corpus
from kernels.corpus import Out

W, H, MAXIT = 256, 192, 200


def _mandelbrot_args():
    return [Out(np.uint32, W * H), np.float32(-2.2), np.float32(-1.2), np.float32(3.0 / W),
            np.float32(2.4 / H), np.uint32(MAXIT)]


def _kernel():
    import gcnemu
    return gcnemu.load(str(corpus.hsaco_path("mandelbrot"))).kernel("mandelbrot")


def _accepts(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


@pytest.mark.parametrize("workers", [1, 2])
def test_workers(benchmark, workers):
    import gcnemu

    benchmark.group = "workers"
    if not _accepts(gcnemu.GPU.dispatch, "workers"):
        if workers == 2:
            gcnbench.record("workers", text="not available (GPU.dispatch has no 'workers' argument)")
        pytest.skip("not available: GPU.dispatch has no 'workers' argument")
    gpu = gcnemu.GPU()
    k = _kernel()
    args, bufs = gcnbench.device_args(gpu, _mandelbrot_args())
    rep = gpu.dispatch(k, grid=(W, H), block=(16, 8), args=args, workers=workers)
    result = bufs[0].to_numpy(np.uint32, W * H).copy()

    def run():
        return gpu.dispatch(k, grid=(W, H), block=(16, 8), args=args, workers=workers)

    benchmark.pedantic(run, rounds=3, iterations=1)
    assert np.array_equal(bufs[0].to_numpy(np.uint32, W * H), result)
    stats = getattr(benchmark, "stats", None)
    med = stats.stats.median if stats is not None else rep.wall_seconds
    benchmark.extra_info.update(workers=workers, winst=rep.instructions,
                                winst_per_s=rep.instructions / med)
    row = gcnbench.record("_workers_raw", workers=workers, seconds=med, winst=rep.instructions,
                          result=result)
    raw = {r["workers"]: r for r in gcnbench.RESULTS["_workers_raw"]}
    if workers == 2 and 1 in raw:
        one = raw[1]
        assert np.array_equal(one["result"], row["result"]), "workers=2 changed the result"
        gcnbench.record("workers", text=(
            f"mandelbrot {W}x{H}: workers=1 {one['seconds']:.3f} s "
            f"({one['winst'] / one['seconds'] / 1e6:.2f} M winst/s), workers=2 {med:.3f} s "
            f"({rep.instructions / med / 1e6:.2f} M winst/s): speedup {one['seconds'] / med:.2f}x"))


@pytest.mark.parametrize("timing", [False, True])
def test_timing_mode(benchmark, timing):
    import gcnemu

    benchmark.group = "timing mode"
    if not _accepts(gcnemu.GPU.__init__, "timing"):
        if timing:
            gcnbench.record("timing", text="not available (GPU() has no 'timing' argument)")
        pytest.skip("not available: GPU() has no 'timing' argument")
    gpu = gcnemu.GPU(timing=timing)
    k = _kernel()
    args, _ = gcnbench.device_args(gpu, _mandelbrot_args())
    rep, med, best = gcnbench.measure_dispatch(benchmark, gpu, k, (W, H), (16, 8), args, 3)
    gcnbench.record_speed(benchmark, "_timing_raw", f"timing={timing}", rep, med, best)
    raw = {r["kernel"]: r for r in gcnbench.RESULTS["_timing_raw"]}
    if timing and "timing=False" in raw:
        off = raw["timing=False"]
        cycles = getattr(rep, "cycles", None)
        gcnbench.record("timing", text=(
            f"mandelbrot {W}x{H}: functional {off['rate'] / 1e6:.2f} M winst/s, timing "
            f"{rep.instructions / med / 1e6:.2f} M winst/s (slowdown {med / off['seconds']:.2f}x)"
            + (f", {cycles} simulated cycles" if cycles is not None else "")))
