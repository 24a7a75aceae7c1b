"""Cost of divergence: the same work per wave, uniform vs divergent control flow.

Run:  python -m pytest benchmarks/bench_divergence.py --benchmark-only

Two hand-written kernels (gfx7 assembly, loaded with ``gcnemu.load("x.s")``; launch state:
s[0:1] kernarg pointer, s2 workgroup id x, v0 work-item id x), one wave per workgroup:

* ``scalar_paths``: every loop iteration a wave takes path A or path B of a scalar branch
  (``s_cbranch_scc1``); both paths are 8 VALU ops + 1 scalar op, so every wave executes the
  same number of instructions whichever path it takes. Kernel argument ``mask``: 0 = every wave
  takes path A every iteration (uniform); 1 = the path alternates by workgroup id and iteration,
  so neighbouring waves are at different PCs (divergent *between* waves).
* ``lane_paths``: an if/else on the lane id inside a wave (``s_and_saveexec_b64`` /
  ``s_xor_b64`` / ``s_cbranch_execz``). ``mask`` 0: all lanes take path A (path B is skipped by
  ``s_cbranch_execz``); ``mask`` 1: odd lanes take path B, so the wave runs both paths under
  half EXEC (divergent *within* a wave: same work per lane, more wave-instructions).

The table reports wave-instructions/s and the time relative to the uniform run.
"""
from __future__ import annotations

import statistics

import numpy as np
import pytest

import gcnbench

ITERS = 1000
GROUPS = 64  # waves (one per workgroup)

_PATH_A = "\n".join(["  v_mul_f32 v3, v1, v2", "  v_add_f32 v1, v3, 0.5",
                     "  v_mul_f32 v3, v1, 0.5", "  v_add_f32 v1, v3, v2"] * 2)
_PATH_B = "\n".join(["  v_add_f32 v3, v1, v2", "  v_mul_f32 v1, v3, 0.5",
                     "  v_add_f32 v3, v1, 0.5", "  v_mul_f32 v1, v3, v2"] * 2)

SCALAR_PATHS = f"""
// kernarg: mask (u32), iterations (u32), out (u64 pointer)
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_cvt_f32_u32 v1, v0
  v_mov_b32 v2, 1.0
  s_mov_b32 s8, s5
loop:
  s_add_u32 s9, s2, s8
  s_and_b32 s9, s9, s4
  s_cmp_eq_u32 s9, 0
  s_cbranch_scc1 path_a
{_PATH_B}
  s_branch join
path_a:
{_PATH_A}
  s_nop 0
join:
  s_sub_u32 s8, s8, 1
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 loop
  s_lshl_b32 s10, s2, 6
  v_add_i32 v4, vcc, s10, v0
  v_lshlrev_b32 v4, 2, v4
  v_mov_b32 v5, s7
  v_add_i32 v4, vcc, s6, v4
  v_addc_u32 v5, vcc, 0, v5, vcc
  flat_store_dword v[4:5], v1
  s_waitcnt vmcnt(0)
  s_endpgm
"""

LANE_PATHS = f"""
// kernarg: mask (u32), iterations (u32), out (u64 pointer)
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_cvt_f32_u32 v1, v0
  v_mov_b32 v2, 1.0
  v_and_b32 v6, s4, v0
  v_cmp_eq_u32 s[12:13], 0, v6
  s_mov_b32 s8, s5
loop:
  s_and_saveexec_b64 s[10:11], s[12:13]
  s_cbranch_execz skip_a
{_PATH_A}
skip_a:
  s_xor_b64 exec, s[10:11], exec
  s_cbranch_execz skip_b
{_PATH_B}
skip_b:
  s_mov_b64 exec, s[10:11]
  s_sub_u32 s8, s8, 1
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 loop
  s_lshl_b32 s10, s2, 6
  v_add_i32 v4, vcc, s10, v0
  v_lshlrev_b32 v4, 2, v4
  v_mov_b32 v5, s7
  v_add_i32 v4, vcc, s6, v4
  v_addc_u32 v5, vcc, 0, v5, vcc
  flat_store_dword v[4:5], v1
  s_waitcnt vmcnt(0)
  s_endpgm
"""


def _ref(mask, lanes, iters):
    """numpy replay of the loop (float32 per op, like the kernel) for the first workgroup."""
    v1 = np.arange(64, dtype=np.float32)
    v2 = np.float32(1.0)
    h = np.float32(0.5)
    for it in range(iters, 0, -1):
        if lanes:
            take_a = (np.arange(64) & mask) == 0
        else:
            take_a = np.full(64, ((0 + it) & mask) == 0)
        a, b = v1.copy(), v1.copy()
        for _ in range(2):
            a = (a * v2 + h) * h + v2
            b = (((b + v2) * h) + h) * v2
        v1 = np.where(take_a, a, b).astype(np.float32)
    return v1


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    import gcnemu

    d = tmp_path_factory.mktemp("divergence")
    out = {}
    for name, src in (("scalar_paths", SCALAR_PATHS), ("lane_paths", LANE_PATHS)):
        p = d / f"{name}.s"
        p.write_text(src)
        out[name] = gcnemu.load(str(p)).kernel(name)
    return out


@pytest.mark.parametrize("family", ["scalar_paths", "lane_paths"])
def test_divergence(benchmark, kernels, family):
    """Uniform (mask 0) and divergent (mask 1) dispatches alternate within each round, so that
    the machine's changing load hits both alike; the ratio is of their median times."""
    import gcnemu

    benchmark.group = "divergence"
    gpu = gcnemu.GPU()
    out = gpu.empty(GROUPS * 64 * 4)
    k = kernels[family]
    launch = dict(grid=(GROUPS * 64,), block=(64,))
    first, times = {}, {0: [], 1: []}
    for mask in (0, 1):
        # correctness first, on a short loop: workgroup 0's results against a numpy replay
        gpu.dispatch(k, args=[np.uint32(mask), np.uint32(20), np.uint64(int(out))], **launch)
        np.testing.assert_array_equal(out.to_numpy(np.float32, 64),
                                      _ref(mask, family == "lane_paths", 20))
        first[mask] = gpu.dispatch(k, args=[np.uint32(mask), np.uint32(ITERS), np.uint64(int(out))],
                                   **launch)
        assert first[mask].waves == GROUPS

    def run():
        for mask in (0, 1):
            rep = gpu.dispatch(k, args=[np.uint32(mask), np.uint32(ITERS), np.uint64(int(out))],
                               **launch)
            assert rep.instructions == first[mask].instructions
            times[mask].append(rep.wall_seconds)

    benchmark.pedantic(run, rounds=5, iterations=1)
    med = {m: statistics.median(times[m]) for m in (0, 1)}
    benchmark.extra_info.update(
        winst_uniform=first[0].instructions, winst_divergent=first[1].instructions,
        seconds_uniform=med[0], seconds_divergent=med[1], time_ratio=med[1] / med[0],
        winst_per_s_uniform=first[0].instructions / med[0],
        winst_per_s_divergent=first[1].instructions / med[1])
    for mask in (0, 1):
        rep = first[mask]
        gcnbench.record("divergence", kernel=f"{family} {'uniform' if mask == 0 else 'divergent'}",
                        winst=rep.instructions, waves=rep.waves, seconds=med[mask],
                        best=min(times[mask]), rate=rep.instructions / med[mask], family=family,
                        uniform=(mask == 0))
