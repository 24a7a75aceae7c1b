"""The cycle model's period replay (gcnemu.timing.model._period_run): a SIMD whose waves all
run loops of plain rows has the repeats of its issue pattern booked at once. Hand-written
kernels where the pattern holds for a while and then breaks (a wave leaves its loop early,
a barrier, a load that completes while the loop runs, an s_waitcnt in the loop that waits
for loads and then lets the waves pass, instruction-cache misses) give the
same bits with it as without it and as the plainest replay (``lockstep``), whose cycles
tests/test_timing*.py derive from the seeds; and the replay did book periods, so the
comparison covers it."""
import numpy as np
import pytest

import gcnemu
from gcnemu.timing import costs as C
from gcnemu.timing import model as M

from test_timing import asm_kernel
from test_timing_replay import OUTPUTS, _simulate_calls

#: a loop of VALU and scalar work whose trip count differs between workgroups (s2: the
#: workgroup's id), so waves leave it one after another while the others go on: 16-cycle
#: VALU rows (the VALU busy: waves sleep on it), a v_cmp whose VCC a scalar branch reads
#: (the 16-cycle retire wait), 8-cycle s_*_saveexec
EARLY_EXIT = """
s_and_b32 s4, s2, 3
s_mul_i32 s4, s4, 7
s_add_u32 s4, s4, 24
v_mov_b32 v1, 1.0
loop:
v_add_f32 v1, v1, v0
v_mul_lo_u32 v2, v1, v0
v_mul_f32 v3, v1, v1
v_cmp_gt_f32 vcc, v3, v1
s_cbranch_vccz skip
v_add_f32 v1, v1, 1.0
skip:
s_and_saveexec_b64 s[6:7], exec
s_sub_u32 s4, s4, 1
s_cmp_lg_u32 s4, 0
s_cbranch_scc1 loop
s_endpgm
"""

#: four waves a workgroup (one a SIMD) meet at a barrier after every run of an inner loop
BARRIER = """
s_mov_b32 s5, 4
outer:
s_mov_b32 s4, 24
inner:
v_add_f32 v1, v1, v0
v_mul_f32 v2, v1, v0
v_add_f32 v3, v2, v1
s_sub_u32 s4, s4, 1
s_cmp_lg_u32 s4, 0
s_cbranch_scc1 inner
s_barrier
s_sub_u32 s5, s5, 1
s_cmp_lg_u32 s5, 0
s_cbranch_scc1 outer
s_endpgm
"""

#: each iteration of the outer loop loads a dword, runs an inner ALU loop while the load is
#: on its way (it completes in the middle), then waits for it
LOAD = """
s_load_dwordx2 s[8:9], s[0:1], 0x0
s_waitcnt lgkmcnt(0)
v_lshlrev_b32 v3, 2, v0
v_add_i32 v4, vcc, s8, v3
v_mov_b32 v5, s9
v_addc_u32 v5, vcc, v5, 0, vcc
s_mov_b32 s5, 3
outer:
flat_load_dword v6, v[4:5]
s_mov_b32 s4, 40
inner:
v_add_f32 v1, v1, v0
v_mul_f32 v2, v1, v0
s_sub_u32 s4, s4, 1
s_cmp_lg_u32 s4, 0
s_cbranch_scc1 inner
s_waitcnt vmcnt(0)
v_add_f32 v1, v1, v6
s_sub_u32 s5, s5, 1
s_cmp_lg_u32 s5, 0
s_cbranch_scc1 outer
s_endpgm
"""

#: each iteration of the outer loop loads a dword and a scalar; the inner loop's s_waitcnt
#: (where a compiler may leave one: tests/bench loops_break) waits for them in its first
#: iteration, then lets the waves pass at once (_wait_clear): they run ahead and the repeats
#: are booked until the next load
WAITCNT = LOAD[:LOAD.index("outer:")] + """outer:
flat_load_dword v6, v[4:5]
s_load_dword s10, s[0:1], 0x0
s_mov_b32 s4, 40
inner:
v_add_f32 v1, v1, v0
v_mul_f32 v2, v1, v0
s_waitcnt vmcnt(0) lgkmcnt(0)
v_add_f32 v1, v1, v6
s_add_u32 s11, s11, s10
s_sub_u32 s4, s4, 1
s_cmp_lg_u32 s4, 0
s_cbranch_scc1 inner
s_sub_u32 s5, s5, 1
s_cmp_lg_u32 s5, 0
s_cbranch_scc1 outer
s_endpgm
"""

#: a loop of 3 I$ lines in an I$ of one 2-way set: every iteration misses (the fetches take
#: the ordered path, so no scan of it is repeated), then a small loop that stays in the I$
ICACHE = ("s_mov_b32 s4, 6\nbig:\n" + "v_add_f32 v1, v1, v0\n" * 44 +
          "s_sub_u32 s4, s4, 1\ns_cmp_lg_u32 s4, 0\ns_cbranch_scc1 big\n"
          "s_mov_b32 s4, 40\nsmall:\nv_mul_f32 v2, v1, v0\ns_sub_u32 s4, s4, 1\n"
          "s_cmp_lg_u32 s4, 0\ns_cbranch_scc1 small\ns_endpgm\n")


def _run(args, lockstep, period, stats):
    a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    cycles = M.simulate(*a, lockstep=lockstep, solo=True, period=period, period_stats=stats)
    return (cycles,) + tuple(a[15:])


def _compare(args, what):
    """The fast replay with the period replay on: the bits of the same without it and of the
    lockstep replay. Returns the period replay's stats (_Period.stats)."""
    stats = np.zeros(4, np.int64)
    on = _run(args, False, True, stats)
    for other, ref in (("without the period replay", _run(args, False, False, np.zeros(4, np.int64))),
                       ("the lockstep replay", _run(args, True, False, np.zeros(4, np.int64)))):
        assert ref[0] > 0, f"{what}: {other} did not finish"
        assert on[0] == ref[0], f"{what}: {on[0]} cycles, {other} {ref[0]}"
        for name, x, y in zip(OUTPUTS, on[1:], ref[1:]):
            if not np.array_equal(x, y):
                bad = np.flatnonzero((x != y).reshape(len(x), -1).any(axis=1))
                raise AssertionError(f"{what}: {name} differ from {other} at {bad[:8]}: "
                                     f"{x[bad[:4]]} vs {y[bad[:4]]}")
    return stats


#: name: (program, work-items a workgroup, workgroups, GPU overrides, whether periods are
#: booked); 10 waves a SIMD fit (asm_kernel's registers): with 64-item workgroups the SIMDs
#: are full (no wave can join while one runs), then the tail runs with none left to launch
CASES = {
    "early_exit": (EARLY_EXIT, 64, 96, {}, True),
    "barrier": (BARRIER, 256, 24, {}, True),
    "load": (LOAD, 64, 48, {}, True),
    "waitcnt": (WAITCNT, 64, 48, {}, True),
    "icache": (ICACHE, 64, 48, {"icache_bytes": 128, "icache_ways": 2}, False),
}


@pytest.mark.parametrize("name", CASES)
def test_period_replay_matches(tmp_path, monkeypatch, name):
    """Two dispatches on one CU (the first with a cold I$: fetches that may miss stop the
    runs until the code is in): the same bits with and without the period replay."""
    src, block, groups, kw, periods = CASES[name]
    k = asm_kernel(tmp_path, name, src)
    gpu = gcnemu.GPU(timing=True, num_cus=1, **kw)
    buf = gpu.to_device(np.arange(block * groups, dtype=np.float32))
    run = lambda: [gpu.dispatch(k, grid=(block * groups,), block=(block,), args=[buf])
                   for _ in range(2)]
    captured, _ = _simulate_calls(monkeypatch, run)
    assert len(captured) == 2
    booked = 0
    for i, args in enumerate(captured):
        stats = _compare(args, f"{name} dispatch {i}")
        booked += stats[3]
    if periods:
        assert booked > 0, f"{name}: no period was booked at once"


#: name: (program, whether its plain rows hold a loop); the expected answers read off each
#: program's control flow: a plain row is one that is not memory, LDS, s_waitcnt, s_barrier,
#: s_sleep or s_endpgm (costs.row_tables' flags)
LOOPS = {
    "early_exit": (EARLY_EXIT, True),    # a forward branch inside the loop
    "barrier": (BARRIER, True),          # the inner loop; the outer one holds s_barrier
    "load": (LOAD, True),                # the inner loop; the outer one loads
    "waitcnt": (WAITCNT, True),          # the inner loop holds an s_waitcnt
    "straight": ("v_add_f32 v1, v1, v0\n" * 8 + "s_endpgm\n", False),
    # every iteration loads and waits
    "loads_every_iteration": (LOAD[:LOAD.index("s_mov_b32 s5")] +
                              "s_mov_b32 s4, 8\nloop:\nflat_load_dword v6, v[4:5]\n"
                              "s_waitcnt vmcnt(0)\nv_add_f32 v1, v1, v6\ns_sub_u32 s4, s4, 1\n"
                              "s_cmp_lg_u32 s4, 0\ns_cbranch_scc1 loop\ns_endpgm\n", False),
    # the back edge's straight path holds a barrier, but a branch around it closes a plain
    # cycle (the rows between the loop's head and its back edge are not all plain)
    "plain_path_around": ("s_mov_b32 s4, 8\nloop:\nv_add_f32 v1, v1, v0\n"
                          "s_cmp_eq_u32 s4, 3\ns_cbranch_scc0 tail\ns_barrier\ntail:\n"
                          "s_sub_u32 s4, s4, 1\ns_cmp_lg_u32 s4, 0\ns_cbranch_scc1 loop\n"
                          "s_endpgm\n", True),
    # a loop that only a forward branch past the barrier could close: none
    "barrier_in_every_iteration": ("s_mov_b32 s4, 8\nloop:\nv_add_f32 v1, v1, v0\n"
                                   "s_barrier\ns_sub_u32 s4, s4, 1\ns_cmp_lg_u32 s4, 0\n"
                                   "s_cbranch_scc1 loop\ns_endpgm\n", False),
}


@pytest.mark.parametrize("name", LOOPS)
def test_period_replay_armed_by_plain_loops(tmp_path, monkeypatch, name):
    """The period replay (and its compiled entry) is used for a program whose plain rows hold
    a loop, and for no other (time_dispatch passes simulate a zero entry address)."""
    src, loop = LOOPS[name]
    k = asm_kernel(tmp_path, name, src)
    flags = C.row_tables(k.program, 1, 4, 0)[1]
    assert M.plain_loop(k.program, flags) is loop
    gpu = gcnemu.GPU(timing=True, num_cus=1)
    buf = gpu.to_device(np.zeros(64, np.float32))
    captured, _ = _simulate_calls(
        monkeypatch, lambda: gpu.dispatch(k, grid=(64,), block=(64,), args=[buf]))
    entry = captured[0][-1]     # (simulate's period_entry: the last argument kept)
    assert (entry != 0) is loop, f"{name}: period entry {entry:#x}"
