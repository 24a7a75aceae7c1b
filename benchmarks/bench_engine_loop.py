"""Per-instruction overhead of the engine's wave loop: ns per wave-instruction.

Run:  python -m pytest benchmarks/bench_engine_loop.py --benchmark-only
  or  python benchmarks/bench_engine_loop.py          (prints a table, no pytest needed)

Each case is a counted loop run as one wave by ``gcnemu.run_snippet``; the loop body is
mostly instructions of one kind (s_nop, SALU, integer VALU, a mix), so time per executed
instruction (``WaveState.instructions``) is the engine's per-instruction cost for that kind.
"""
from __future__ import annotations

import time

import gcnemu

ITER = 20000


def _loop(body: str, iters: int = ITER) -> str:
    return f"""
    s_mov_b32 s0, {iters}
    v_mov_b32 v1, 7
    v_mov_b32 v2, 0x1234
loop:
{body}
    s_sub_u32 s0, s0, 1
    s_cmp_lg_u32 s0, 0
    s_cbranch_scc1 loop
    s_endpgm
"""


CASES = {
    "s_nop": _loop("\n".join(["    s_nop 0"] * 16)),
    "salu": _loop("""
    s_add_u32 s1, s1, s0
    s_xor_b32 s2, s2, s1
    s_lshl_b32 s3, s2, 3
    s_and_b32 s4, s3, 0xff00
    s_or_b32 s5, s4, s1
    s_mov_b32 s6, s5
    s_addc_u32 s7, s7, s6
    s_min_u32 s8, s7, s1
    s_add_u32 s9, s9, 1
    s_xor_b32 s10, s10, s9
    s_and_b32 s11, s10, s2
    s_mov_b32 s12, s11
    s_lshr_b32 s13, s12, 2
    s_or_b32 s14, s13, s3
    s_add_u32 s15, s15, s14
    s_sub_u32 s16, s15, s4
"""),
    "valu_int": _loop("""
    v_add_i32 v3, vcc, v1, v2
    v_and_b32 v4, v3, v1
    v_xor_b32 v5, v4, v2
    v_mov_b32 v6, v5
    v_lshlrev_b32 v7, 3, v6
    v_or_b32 v8, v7, v3
    v_sub_i32 v9, vcc, v8, v1
    v_max_u32 v10, v9, v2
    v_add_i32 v1, vcc, v1, v10
    v_and_b32 v11, 0xff, v1
    v_xor_b32 v12, s1, v11
    v_mov_b32 v13, v12
    v_lshrrev_b32 v14, 2, v13
    v_or_b32 v15, v14, v12
    v_add_i32 v2, vcc, v2, v15
    v_mov_b32 v16, s0
"""),
    "valu_float": _loop("""
    v_cvt_f32_u32 v3, v1
    v_add_f32 v4, v3, 1.0
    v_mul_f32 v5, v4, 0.5
    v_mad_f32 v6, -v5, v3, v4
    v_max_f32 v7, v6, v5
    v_min_f32 v8, |v7|, v4
    v_sub_f32 v9, v8, v3
    v_mac_f32 v10, v9, v4
    v_add_f32 v11, -v10, s1
    v_mul_f32 v12, v11, v11
    v_fma_f32 v13, v12, 2.0, -v3
    v_cvt_u32_f32 v14, v13
    v_add_f32 v15, v14, v12 clamp
    v_mul_f32 v16, v15, v4 mul:2
    v_mov_b32 v17, v16
    v_rcp_f32 v18, v4
"""),
    "mixed": _loop("""
    v_add_i32 v3, vcc, v1, v2
    s_add_u32 s1, s1, s0
    v_and_b32 v4, v3, v1
    s_xor_b32 s2, s2, s1
    v_cmp_gt_u32 vcc, v4, v2
    s_and_saveexec_b64 s[20:21], vcc
    v_mov_b32 v6, v5
    v_xor_b32 v5, s2, v4
    s_mov_b64 exec, s[20:21]
    v_lshlrev_b32 v7, 3, v6
    s_lshl_b32 s3, s2, 3
    v_or_b32 v8, v7, v3
    s_nop 0
    v_cndmask_b32 v9, v8, v1, vcc
    s_add_u32 s9, s9, 1
    v_add_i32 v1, vcc, v1, v9
"""),
}

_PROGRAMS = {}


def program(case):
    if case not in _PROGRAMS:
        from gcnemu.snippet import _to_program
        _PROGRAMS[case] = _to_program(CASES[case])
    return _PROGRAMS[case]


def run_case(case):
    st = gcnemu.run_snippet(program(case), step_limit=10**9)
    assert st.status == "done"
    return st


def measure(case, repeat=5):
    """(best ns per wave-instruction, instructions) over `repeat` runs."""
    run_case(case)  # compile / warm
    best = float("inf")
    n = 0
    for _ in range(repeat):
        t = time.perf_counter()
        st = run_case(case)
        dt = time.perf_counter() - t
        n = st.instructions
        best = min(best, dt)
    return best * 1e9 / n, n


try:
    import pytest

    @pytest.mark.parametrize("case", list(CASES))
    def test_engine_loop(benchmark, case):
        run_case(case)
        st = benchmark.pedantic(run_case, args=(case,), rounds=5, iterations=1)
        ns = benchmark.stats.stats.min * 1e9 / st.instructions
        benchmark.extra_info["ns_per_instruction"] = ns
        benchmark.extra_info["instructions"] = st.instructions
        print(f"\n{case}: {ns:.1f} ns per wave-instruction ({st.instructions} instructions)")
except ImportError:  # pragma: no cover
    pass


if __name__ == "__main__":
    for c in CASES:
        ns, n = measure(c)
        print(f"{c:<10} {ns:8.1f} ns/instr  ({n} instructions)")
