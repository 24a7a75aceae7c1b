"""Emulation speed per corpus kernel: wave-instructions per second of ``gpu.dispatch``.

Run:  python -m pytest benchmarks/bench_dispatch.py --benchmark-only

Each case loads a committed code object from ``kernels/``, puts its buffers on the device once,
dispatches once untimed (numba compile / cache load), then times the dispatch alone.
Problem sizes are scaled up from the corpus where the corpus launch is too small to time
(the corpus ``saxpy`` is kept as well: it shows the fixed cost of a dispatch). The first
dispatch's results are checked against numpy where that is cheap, so that a fast but wrong
engine does not go unnoticed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

import gcnbench
from kernels import corpus
from kernels.corpus import In, InOut, Out


@dataclass
class Launch:
    label: str
    corpus_name: str  # folder under kernels/
    symbol: str
    category: str
    grid: tuple
    block: tuple
    args: list
    rounds: int
    check: Callable | None = None  # check(buffers: {index: Buffer}) after the first dispatch
    notes: dict = field(default_factory=dict)


def _saxpy(n, rounds):
    rng = np.random.default_rng(1)
    x = rng.uniform(-4, 4, n).astype(np.float32)
    y = rng.uniform(-4, 4, n).astype(np.float32)
    a = np.float32(2.5)
    grid = -(-n // 256) * 256

    def check(b):  # the first dispatch only: y0 + a*x (unfused on gfx7: product rounded first)
        got = b[0].to_numpy(np.float32, n)
        assert np.array_equal(got, (a * x) + y)

    return Launch(f"saxpy n={n}", "saxpy", "saxpy", "memory", (grid,), (256,),
                  [InOut(y), In(x), a, np.uint32(n)], rounds, check)


def _mandelbrot(w, h, maxit, rounds):
    x0, y0 = np.float32(-2.2), np.float32(-1.2)
    dx, dy = np.float32(3.0 / w), np.float32(2.4 / h)
    return Launch(f"mandelbrot {w}x{h} it<={maxit}", "mandelbrot", "mandelbrot", "ALU, diverg.",
                  (w, h), (16, 8), [Out(np.uint32, w * h), x0, y0, dx, dy, np.uint32(maxit)], rounds)


def _nbody(n, rounds):
    rng = np.random.default_rng(2)
    pos = np.empty((n, 4), np.float32)
    pos[:, :3] = rng.uniform(-1, 1, (n, 3))
    pos[:, 3] = rng.uniform(0.5, 1.5, n)
    return Launch(f"nbody n={n}", "nbody", "nbody_acc", "ALU", (n,), (64,),
                  [In(pos), Out(np.float32, n * 4), Out(np.float32, n), np.uint32(n),
                   np.float32(0.01)], rounds)


def _matmul(m, n, k, rounds):
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)

    def check(bufs):  # loose: the exact (unfused, ordered) reference is in the corpus tests
        got = bufs[2].to_numpy(np.float32, m * n).reshape(m, n)
        assert np.allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)

    return Launch(f"matmul_tiled {m}x{k} @ {k}x{n}", "matmul_tiled", "matmul", "ALU, LDS",
                  (n, m), (16, 16), [In(a), In(b), Out(np.float32, m * n), np.uint32(m),
                                     np.uint32(n), np.uint32(k)], rounds, check)


def _transpose(w, h, rounds):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 2**32, (h, w), dtype=np.uint64).astype(np.uint32)

    def check(b):
        assert np.array_equal(b[1].to_numpy(np.uint32, w * h), a.T.reshape(-1))

    return Launch(f"transpose_lds {w}x{h}", "transpose_lds", "transpose", "memory, LDS",
                  (w, h), (16, 16), [In(a), Out(np.uint32, w * h), np.uint32(w), np.uint32(h)],
                  rounds, check)


def _histogram(n, grid, rounds):
    rng = np.random.default_rng(5)
    data = np.minimum(rng.exponential(40.0, n), 255).astype(np.uint8)

    def check(b):
        assert np.array_equal(b[2].to_numpy(np.uint32, 256),
                              np.bincount(data, minlength=256).astype(np.uint32))

    return Launch(f"histogram n={n} grid={grid}", "histogram", "histogram256", "memory, atom.",
                  (grid,), (256,), [In(data), np.uint32(n), InOut(np.zeros(256, np.uint32))],
                  rounds, check)


def _scan(n, rounds):
    rng = np.random.default_rng(6)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)

    def check(b):
        want = np.cumsum(x.reshape(-1, 256).astype(np.uint64), axis=1).astype(np.uint32)
        assert np.array_equal(b[1].to_numpy(np.uint32, n), want.reshape(-1))

    return Launch(f"scan_lds n={n}", "scan_lds", "scan_inclusive", "memory, LDS", (n,), (256,),
                  [In(x), Out(np.uint32, n)], rounds, check)


def _loops_break(n, rounds):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return Launch(f"loops_break n={n}", "loops_break", "loops_break", "branchy",
                  (n,), (128,), [In(x), Out(np.uint32, 2 * n), np.uint32(200000)], rounds)


# rounds are chosen so that each case takes about 1-3 s on the 2-core project machine
LAUNCHES = [
    _saxpy(4000, 20),            # the corpus launch: fixed cost per dispatch
    _saxpy(1 << 20, 3),
    _mandelbrot(256, 192, 200, 3),
    _nbody(1024, 3),
    _matmul(128, 128, 128, 3),
    _transpose(512, 512, 3),
    _histogram(1 << 20, 16384, 3),
    _scan(1 << 18, 3),
    _loops_break(8192, 3),
]


@pytest.fixture(scope="module")
def gpu():
    import gcnemu
    return gcnemu.GPU()


@pytest.mark.parametrize("launch", LAUNCHES, ids=[ln.label.replace(" ", "_") for ln in LAUNCHES])
def test_dispatch_speed(benchmark, gpu, launch):
    import gcnemu

    benchmark.group = "dispatch speed"
    kernel = gcnemu.load(str(corpus.hsaco_path(launch.corpus_name))).kernel(launch.symbol)
    args, bufs = gcnbench.device_args(gpu, launch.args)
    if launch.check is not None:
        first = gpu.dispatch(kernel, grid=launch.grid, block=launch.block, args=args)
        launch.check(bufs)
        assert first.instructions > 0
    rep, med, best = gcnbench.measure_dispatch(benchmark, gpu, kernel, launch.grid, launch.block,
                                               args, launch.rounds)
    gcnbench.record_speed(benchmark, "speed", launch.label, rep, med, best,
                          category=launch.category, user_mb=gcnbench.user_bytes(launch.args) / 2**20)


#: dispatches per timed round of the fixed-cost case (one dispatch is ~0.1-0.3 ms)
FIXED_COST_DISPATCHES = 200


def test_saxpy_small_dispatch_fixed_cost(benchmark, gpu):
    """The corpus saxpy launch (4096 work-items, 64 waves, ~1,800 wave-instructions) dispatched
    over and over, as a test suite of many small launches does: its time is mostly the fixed
    cost of a dispatch (set-up in Python), reported in microseconds per dispatch."""
    import gcnemu

    benchmark.group = "small dispatch"
    case = corpus.make_case("saxpy", 0)
    kernel = gcnemu.load(str(corpus.hsaco_path("saxpy"))).kernel(case.kernel)
    args, bufs = gcnbench.device_args(gpu, case.args)
    grid, block = tuple(case.grid), tuple(case.block)
    first = gpu.dispatch(kernel, grid=grid, block=block, args=args)
    corpus.compare_results(case, {i: b.to_numpy(case.expected[i].dtype).reshape(case.expected[i].shape)
                                  for i, b in bufs.items() if i in case.expected})
    walls = []

    def run():
        t = time.perf_counter()
        for _ in range(FIXED_COST_DISPATCHES):
            gpu.dispatch(kernel, grid=grid, block=block, args=args)
        walls.append(time.perf_counter() - t)

    benchmark.pedantic(run, rounds=10, iterations=1, warmup_rounds=1)
    walls.sort()
    med, best = walls[len(walls) // 2], walls[0]
    per = FIXED_COST_DISPATCHES
    benchmark.extra_info.update(us_per_dispatch_median=med / per * 1e6, us_per_dispatch_min=best / per * 1e6)
    gcnbench.record("fixed", kernel=f"saxpy corpus {grid[0]} items", waves=first.waves,
                    winst=first.instructions, us_median=med / per * 1e6, us_best=best / per * 1e6)


#: one-lane workgroups per dispatch of the small-wave case (piglit's
#: gegl-rgb-gamma-u8-to-ragabaf dispatches 208,320 of them)
ONE_LANE_GROUPS = 200_000


def test_one_lane_workgroups(benchmark, gpu):
    """The corpus saxpy (28 wave-instructions a wave) over 200,000 work-items in workgroups of
    one: 200,000 one-lane waves, each its own workgroup, so that the fixed cost per wave and
    per workgroup (set-up of a batch, the engine's entry into a wave) dominates. Reported in
    microseconds per wave, all costs included (targets: <= 5 us, <= 1.5 s in all)."""
    import gcnemu

    benchmark.group = "small waves"
    n = ONE_LANE_GROUPS
    kernel = gcnemu.load(str(corpus.hsaco_path("saxpy"))).kernel("saxpy")
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 0.5, np.float32)
    args, bufs = gcnbench.device_args(gpu, [InOut(y), In(x), np.float32(2), np.uint32(n)])
    first = gpu.dispatch(kernel, grid=(n,), block=(1,), args=args)
    assert first.waves == n
    assert np.array_equal(bufs[0].to_numpy(np.float32, n), np.float32(2) * x + y)
    rep, med, best = gcnbench.measure_dispatch(benchmark, gpu, kernel, (n,), (1,), args, 3)
    gcnbench.record_speed(benchmark, "speed", f"saxpy {n} one-lane groups", rep, med, best,
                          category="small waves", user_mb=n * 8 / 2**20)
    # the process's CPU time as well: on a shared machine the wall time includes waiting
    cpu = time.process_time()
    gpu.dispatch(kernel, grid=(n,), block=(1,), args=args)
    cpu = time.process_time() - cpu
    gcnbench.record("small", text=f"{n} one-lane workgroups of saxpy ({rep.instructions // n} "
                    f"wave-instructions each): {med:.2f} s, {med / n * 1e6:.2f} us per wave "
                    f"(best {best / n * 1e6:.2f}; CPU {cpu / n * 1e6:.2f} us per wave); "
                    f"targets <= 5 us, <= 1.5 s")
