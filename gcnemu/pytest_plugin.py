"""gcnemu's pytest fixtures, installed with the package (a ``pytest11`` entry point), so that
any project's tests can use them without a conftest.py:

    def test_saxpy(run_kernel, assert_close_ulp):
        outs = run_kernel("saxpy.hsaco", "saxpy", (n,), (256,),
                          [InOut(y), In(x), np.float32(2), np.uint32(n)])
        assert_close_ulp(outs[0], np.float32(2) * x + y)

Importing this module loads neither numba nor the engine: pytest imports every installed
plugin in every session, including those that never use gcnemu.
"""
from __future__ import annotations

import pytest


@pytest.fixture
def gcnemu_gpu():
    """A fresh emulated GPU (preset xbox-one)."""
    import gcnemu
    return gcnemu.GPU()


@pytest.fixture
def run_kernel(gcnemu_gpu):
    """run_kernel(program, kernel, grid, block, args, report=False) -> {arg index: array}, on a
    fresh GPU (gcnemu.golden.run_kernel: In, Out, InOut, Local and scalars as arguments)."""
    from gcnemu.golden import run_kernel as _run

    def run(program, kernel, grid, block, args, report=False):
        return _run(program, kernel, grid, block, args, gpu=gcnemu_gpu, report=report)
    return run


@pytest.fixture
def assert_close_ulp():
    """assert_close_ulp(actual, expected, ulp=0): exact for integers, at most ``ulp`` units in
    the last place apart for floats (gcnemu.golden.assert_close_ulp)."""
    from gcnemu.golden import assert_close_ulp as _assert
    return _assert


#: the counters gcn_bench records in extra_info (with the derived metrics of gcnemu.profile)
BENCH_COUNTERS = ("SQ_WAVES", "SQ_INSTS_VALU", "SQ_INSTS_SALU", "SQ_INSTS_VMEM", "SQ_INSTS_LDS",
                  "SQ_WAIT_ANY", "SQ_ACTIVE_INST_VALU", "TCC_HIT", "TCC_MISS",
                  "SQ_LDS_BANK_CONFLICT")


@pytest.fixture
def gcn_bench(request):
    """gcn_bench(program, kernel, grid, block, args, preset="xbox-one", clock="simulated",
    rounds=3) -> DispatchReport: runs the dispatch in timing mode under pytest-benchmark.

    ``program`` is a path (.hsaco, .cl, .s, CAL binary) or a gcnemu.load result; ``args``
    as GPU.dispatch takes them, except that numpy arrays are copied to the GPU first.
    ``clock="simulated"`` (default): the benchmark's timer is the simulated GPU time at the
    preset's clock, so pytest-benchmark's statistics, histograms and ``--benchmark-compare``
    compare kernel variants by simulated time; ``clock="host"`` measures the emulator's own
    wall time instead. Either way ``benchmark.extra_info`` gets the simulated ``cycles``,
    ``time_us``, ``waves``, ``waves_per_simd`` (theoretical occupancy), ``occupancy``
    (achieved/theoretical) and the counters of BENCH_COUNTERS with rocprof's derived metrics.
    Needs pytest-benchmark (gcnemu's ``[test]`` extra)."""
    try:
        benchmark = request.getfixturevalue("benchmark")
    except pytest.FixtureLookupError:
        pytest.skip("gcn_bench needs pytest-benchmark (pip install pytest-benchmark)")

    def run(program, kernel, grid, block, args=(), preset="xbox-one", clock="simulated",
            rounds=3):
        import numpy as np

        import gcnemu
        from gcnemu.profile.counters import derived_metrics

        if clock not in ("simulated", "host"):
            raise ValueError(f"gcn_bench: clock is 'simulated' or 'host', not {clock!r}")
        gpu = gcnemu.GPU(preset, timing=True)
        prog = gcnemu.load(program) if isinstance(program, (str, bytes)) or hasattr(
            program, "__fspath__") else program
        k = prog.kernel(kernel)
        dargs = [gpu.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        grid = tuple(grid) if not isinstance(grid, int) else (grid,)
        block = tuple(block) if not isinstance(block, int) else (block,)
        reports = []
        simulated = [0.0]

        def dispatch():
            rep = gpu.dispatch(k, grid=grid, block=block, args=dargs)
            simulated[0] += rep.cycles / (gpu.config.clock_mhz * 1e6)
            reports.append(rep)
            return rep

        gpu.dispatch(k, grid=grid, block=block, args=dargs)     # compile and set up once
        if clock == "simulated":
            if not hasattr(benchmark, "_timer"):
                raise RuntimeError("gcn_bench: this pytest-benchmark has no fixture timer to "
                                   "replace; use clock='host'")
            benchmark._timer = lambda: simulated[0]
        benchmark.pedantic(dispatch, rounds=rounds, iterations=1)
        rep = reports[-1]
        info = benchmark.extra_info
        info.update(cycles=rep.cycles, time_us=round(rep.cycles / gpu.config.clock_mhz, 3),
                    waves=rep.waves, clock=clock, preset=preset,
                    waves_per_simd=rep.occupancy.waves_per_simd,
                    occupancy_limiter=rep.occupancy.limited_by)
        info.update({n: rep.counters[n] for n in BENCH_COUNTERS if n in rep.counters})
        info.update(derived_metrics(rep, gpu.config))
        return rep
    return run
