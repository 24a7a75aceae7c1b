"""Simulated-time benchmarks of corpus kernels with the ``gcn_bench`` fixture (the plugin's):
pytest-benchmark's statistics here are the simulated GPU time at the preset's clock, and
``extra_info`` holds cycles, occupancy and counters.

    python -m pytest benchmarks/bench_simulated.py --benchmark-only --benchmark-group-by=group
    python -m pytest benchmarks/bench_simulated.py --benchmark-only --benchmark-save=before
    ... edit a kernel ...
    python -m pytest benchmarks/bench_simulated.py --benchmark-only --benchmark-compare

The matmul group holds two variants of one kernel: the corpus kernel with 16x16 LDS tiles and
the same product without tiling (benchmarks/kernels/matmul_naive.cl, compiled with clang-14).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
M, N, K = 64, 64, 64


def _matmul_args():
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    return [a, b, np.zeros(M * N, np.float32), np.uint32(M), np.uint32(N), np.uint32(K)]


@pytest.mark.parametrize("variant", ["tiled", "naive"])
def test_matmul(gcn_bench, benchmark, variant):
    if variant == "naive" and not shutil.which("clang-14"):
        pytest.skip("the naive variant is OpenCL C: needs clang-14, lld-14, libclc-14")
    path = (ROOT / "kernels" / "matmul_tiled" / "kernel.hsaco" if variant == "tiled"
            else ROOT / "benchmarks" / "kernels" / "matmul_naive.cl")
    benchmark.group = "matmul 64x64x64"
    rep = gcn_bench(str(path), "matmul", (N, M), (16, 16), _matmul_args())
    assert rep.cycles > 0 and benchmark.extra_info["cycles"] == rep.cycles


def test_saxpy(gcn_bench, benchmark):
    n = 1 << 14
    x = np.ones(n, np.float32)
    benchmark.group = "saxpy"
    rep = gcn_bench(str(ROOT / "kernels" / "saxpy" / "kernel.hsaco"), "saxpy", n, 256,
                    [x.copy(), x, np.float32(2), np.uint32(n)])
    assert benchmark.extra_info["SQ_WAVES"] == n // 64 == rep.waves


def test_transpose_lds(gcn_bench, benchmark):
    w = h = 128
    src = np.arange(w * h, dtype=np.float32)
    benchmark.group = "transpose"
    rep = gcn_bench(str(ROOT / "kernels" / "transpose_lds" / "kernel.hsaco"), "transpose",
                    (w, h), (16, 16), [src, np.zeros(w * h, np.float32), np.uint32(w),
                                       np.uint32(h)])
    assert rep.cycles > 0
