"""Per-op cost of the float VALU lane kernels, in ns per 64-lane op (pytest-benchmark).

Run:  python -m pytest benchmarks/bench_valu_ops.py --benchmark-only
or    python benchmarks/bench_valu_ops.py [op ...]      (prints a table, no pytest needed)

Each op is called through ``gcnemu.exec.opkernels.call_valu`` on its compiled row kernel from a numba
loop (full EXEC, the default MODE of clang's OpenCL kernels: RNE, f32 denormals flushed, f64
denormals kept, DX10_CLAMP and IEEE set), on rows of random *normal* operands -- the common case
the fast paths are built for.  An integer op (v_add_i32) is measured alongside as the yardstick.
Timings on a shared 2-core machine are noisy: compare ratios taken within one run.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from numba import njit  # noqa: E402

#: MODE of the clang OpenCL kernels: round32=0 round64=0 denorm32=0 denorm64=3 dx10 ieee
DEFAULT_MODE = 0x3C0
FULL_EXEC = np.uint64(0xFFFFFFFFFFFFFFFF)

# operand kinds: f32 / f64 normal values of both signs, positive ones, small ints, ...
OPS = {
    "v_add_i32": ("i32", "i32", "i32"),
    "v_cndmask_b32": ("i32", "i32", "i32"),
    "v_add_f32": ("f32", "f32", "f32"),
    "v_sub_f32": ("f32", "f32", "f32"),
    "v_mul_f32": ("f32", "f32", "f32"),
    "v_mad_f32": ("f32", "f32", "f32"),
    "v_mac_f32": ("f32", "f32", "f32"),
    "v_fma_f32": ("f32", "f32", "f32"),
    "v_min_f32": ("f32", "f32", "f32"),
    "v_max_f32": ("f32", "f32", "f32"),
    "v_cmp_lt_f32": ("f32", "f32", "f32"),
    "v_cmp_eq_f32": ("f32", "f32", "f32"),
    "v_cvt_f32_i32": ("i32", "i32", "i32"),
    "v_cvt_f32_u32": ("i32", "i32", "i32"),
    "v_cvt_i32_f32": ("f32", "f32", "f32"),
    "v_floor_f32": ("f32", "f32", "f32"),
    "v_trunc_f32": ("f32", "f32", "f32"),
    "v_fract_f32": ("f32", "f32", "f32"),
    "v_rcp_f32": ("f32", "f32", "f32"),
    "v_rsq_f32": ("f32+", "f32", "f32"),
    "v_sqrt_f32": ("f32+", "f32", "f32"),
    "v_ldexp_f32": ("f32", "sh", "f32"),
    # the f32 division sequence (VCC clear, as for normal operands)
    "v_div_scale_f32": ("f32", "f32", "f32"),
    "v_div_fmas_f32": ("f32", "f32", "f32"),
    "v_div_fixup_f32": ("f32", "f32", "f32"),
    "v_add_f64": ("f64", "f64", "f64"),
    "v_mul_f64": ("f64", "f64", "f64"),
    "v_fma_f64": ("f64", "f64", "f64"),
    "v_min_f64": ("f64", "f64", "f64"),
    "v_max_f64": ("f64", "f64", "f64"),
    "v_cmp_lt_f64": ("f64", "f64", "f64"),
    "v_floor_f64": ("f64", "f64", "f64"),
    "v_fract_f64": ("f64", "f64", "f64"),
    "v_rcp_f64": ("f64", "f64", "f64"),
    "v_sqrt_f64": ("f64+", "f64", "f64"),
    "v_ldexp_f64": ("f64", "sh", "f64"),
}


def operand_row(kind, rng):
    """A uint64[64] row of operand bit patterns of the given kind."""
    mant = rng.uniform(1.0, 2.0, 64)
    ex = rng.integers(-20, 21, 64)
    sign = np.where(rng.integers(0, 2, 64) == 1, -1.0, 1.0)
    v = mant * np.exp2(ex)
    if not kind.endswith("+"):
        v = v * sign
    if kind.startswith("f32"):
        return v.astype(np.float32).view(np.uint32).astype(np.uint64)
    if kind.startswith("f64"):
        return v.view(np.uint64).copy()
    if kind == "sh":
        return (rng.integers(-8, 9, 64).astype(np.int64) & 0xFFFFFFFF).astype(np.uint64)
    return rng.integers(-(1 << 31), 1 << 31, 64).astype(np.int64).astype(np.uint64) & np.uint64(
        0xFFFFFFFF)


def _make_loop():
    from gcnemu.exec.opkernels import call_valu

    @njit(cache=True)
    def loop(addr, a, b, c, r, n, ex, mode):
        acc = np.uint64(0)
        for _ in range(n):
            acc ^= call_valu(addr, a.ctypes.data, b.ctypes.data, c.ctypes.data, r.ctypes.data,
                             np.uint64(0), ex, mode)
        return acc

    return loop


_LOOP = None


def ns_per_op(name, mode=DEFAULT_MODE, n=20000, repeat=5, seed=1):
    """Best-of-`repeat` ns per 64-lane call of op `name` on random normal operands."""
    global _LOOP
    from gcnemu.exec.opkernels import valu_address

    if _LOOP is None:
        _LOOP = _make_loop()
    rng = np.random.default_rng(seed)
    kinds = OPS.get(name, ("f32", "f32", "f32"))
    a, b, c = (operand_row(k, rng) for k in kinds)
    r = np.zeros(64, np.uint64)
    addr = valu_address(name)
    _LOOP(addr, a, b, c, r, 10, FULL_EXEC, np.int64(mode))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        _LOOP(addr, a, b, c, r, n, FULL_EXEC, np.int64(mode))
        best = min(best, (time.perf_counter() - t0) / n * 1e9)
    return best


def _bench_names():
    return list(OPS)


try:
    import pytest
except ImportError:  # pragma: no cover
    pytest = None

if pytest is not None:
    @pytest.mark.parametrize("name", _bench_names())
    def test_valu_op(benchmark, name):
        """ns per 64-lane op (extra_info['ns_per_op']); the benchmark times 2000 calls."""
        from gcnemu.exec.opkernels import valu_address

        global _LOOP
        if _LOOP is None:
            _LOOP = _make_loop()
        benchmark.group = "valu-ops"
        rng = np.random.default_rng(1)
        a, b, c = (operand_row(k, rng) for k in OPS[name])
        r = np.zeros(64, np.uint64)
        addr = valu_address(name)
        _LOOP(addr, a, b, c, r, 10, FULL_EXEC, np.int64(DEFAULT_MODE))
        n = 2000
        benchmark.pedantic(_LOOP, args=(addr, a, b, c, r, n, FULL_EXEC, np.int64(DEFAULT_MODE)),
                           rounds=5, iterations=1, warmup_rounds=1)
        benchmark.extra_info["ns_per_op"] = benchmark.stats.stats.min / n * 1e9


def main(argv):
    names = argv or _bench_names()
    base = ns_per_op("v_add_i32")
    print(f"{'op':<18}{'ns/64 lanes':>12}{'x v_add_i32':>13}")
    for name in names:
        t = ns_per_op(name)
        print(f"{name:<18}{t:>12.1f}{t / base:>13.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
