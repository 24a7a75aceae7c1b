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
import os
import statistics
import time

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


WORKER_CASES = [("default", {}), ("waves_per_batch=128", {"waves_per_batch": 128})]


@pytest.mark.parametrize("config,gpu_kwargs", WORKER_CASES, ids=[c for c, _ in WORKER_CASES])
def test_workers(benchmark, config, gpu_kwargs):
    """workers=1 and workers=2 dispatches alternate within each round (the machine's load
    changes from second to second; alternating keeps the ratio fair); speedup = median time
    with 1 worker / median time with 2. The GPU's default batch of 512 waves gives this launch
    (768 waves) only 2 batches, so the second case uses smaller batches (6)."""
    import gcnemu

    benchmark.group = "workers"
    if not _accepts(gcnemu.GPU.dispatch, "workers"):
        if config == "default":
            gcnbench.record("workers", text="not available (GPU.dispatch has no 'workers' argument)")
        pytest.skip("not available: GPU.dispatch has no 'workers' argument")
    gpu = gcnemu.GPU(**gpu_kwargs)
    k = _kernel()
    args, bufs = gcnbench.device_args(gpu, _mandelbrot_args())
    launch = dict(grid=(W, H), block=(16, 8), args=args)
    results, times, cpu, reports = {}, {1: [], 2: []}, {1: [], 2: []}, {}
    for w in (1, 2):  # untimed: compile / cache load, and the results to compare
        reports[w] = gpu.dispatch(k, workers=w, **launch)
        results[w] = bufs[0].to_numpy(np.uint32, W * H).copy()
    assert np.array_equal(results[1], results[2]), "workers=2 changed the result"

    def run():
        for w in (1, 2):
            t, c = time.perf_counter(), time.process_time()
            gpu.dispatch(k, workers=w, **launch)
            times[w].append(time.perf_counter() - t)
            cpu[w].append(time.process_time() - c)

    benchmark.pedantic(run, rounds=3, iterations=1)
    t1, t2 = statistics.median(times[1]), statistics.median(times[2])
    rep = reports[2]
    used = getattr(rep, "workers", 2)
    why = getattr(rep, "serial_reason", "")
    load = os.getloadavg()[0]
    # process CPU seconds per wall second with 2 workers: above 1 only if the threads really
    # ran at the same time (the engine released the GIL and a second core was free)
    par = sum(cpu[2]) / sum(times[2])
    winst = rep.instructions
    benchmark.extra_info.update(seconds_workers1=t1, seconds_workers2=t2, speedup=t1 / t2,
                                workers_used=used, winst=winst, winst_per_s_workers1=winst / t1,
                                winst_per_s_workers2=winst / t2, loadavg_1min=load,
                                cpu_per_wall_workers2=par)
    gcnbench.record("workers", text=(
        f"mandelbrot {W}x{H} ({rep.waves} waves, GPU {config}): workers=1 {t1:.3f} s "
        f"({winst / t1 / 1e6:.2f} M winst/s), workers=2 {t2:.3f} s ({winst / t2 / 1e6:.2f} M winst/s): "
        f"speedup {t1 / t2:.2f}x; threads used {used}, CPU/wall {par:.2f}{' (' + why + ')' if why else ''}; "
        f"1-min load average {load:.1f} on {os.cpu_count()} CPUs"))


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
