"""Timing mode: the instruction cache of each CU group (gcnemu/timing/icache.py).

Expected counts follow by hand from the code's size and address and the cache geometry of
gcnemu/timing/config.py (the GCN whitepaper's 32 KB, 4-way, 64-byte lines, one I$ per 4 CUs;
32-byte fetches), never from the model's output:

* a wave fetches the 32-byte block of its first instruction, then each block it enters in
  sequence, and after a taken branch the target's block(s); each fetch looks up its line;
* a loop that spans more than 4 lines of every one of the 128 sets (> 5 x 128 lines) misses
  on every line in every iteration (LRU over a cyclic sweep of more lines than ways);
* a loop that fits misses on each of its lines once, in its first iteration.
"""
import numpy as np
import pytest

import gcnemu
from gcnemu.profile.counters import result_row
from gcnemu.timing import icache as IC
from gcnemu.timing.config import TimingConfig

from test_timing import asm_kernel

LINE = 64


def loop_kernel(tmp_path, name, body_ops, iterations):
    """s_mov s4, N; loop: body_ops x v_add_f32, s_sub, s_cmp, s_cbranch_scc1 loop; s_endpgm:
    every instruction 4 bytes."""
    src = (f"s_mov_b32 s4, {iterations}\nloop:\n" + "v_add_f32 v1, v1, v0\n" * body_ops +
           "s_sub_u32 s4, s4, 1\ns_cmp_lg_u32 s4, 0\ns_cbranch_scc1 loop\ns_endpgm\n")
    return asm_kernel(tmp_path, name, src)


def code_start(gpu, k):
    """The address of the kernel's first instruction that the I$ and the L2 see (assembly
    kernels have no code object in GPU memory: a range of their own, icache.code_address)."""
    return IC.code_address(gpu.caches, k.program, gpu.code_image_address(k) + k.code_address)


def ic(rep):
    c = rep.counters
    return (c["SQ_IFETCH"], c["SQC_ICACHE_HITS"], c["SQC_ICACHE_MISSES"],
            c["SQC_ICACHE_MISSES_DUPLICATE"])


def test_loop_larger_than_the_icache_misses_every_iteration(tmp_path):
    tc = TimingConfig()
    assert (tc.icache_bytes, tc.icache_ways, tc.icache_fetch_bytes) == (32768, 4, 32)
    sets = tc.icache_bytes // (LINE * tc.icache_ways)                   # 128
    ops = 5 * sets * LINE // 4                                          # 40 KB of v_add
    nbytes = 4 + 4 * ops + 3 * 4 + 4                                    # 40980
    lines = -(-nbytes // LINE)                                          # 641
    per_iter_fetches = -(-(nbytes - 4) // 32)     # blocks 0 .. of the s_cbranch: 1281
    reps = {}
    for n in (2, 3):
        k = loop_kernel(tmp_path, f"big{n}", ops, n)
        gpu = gcnemu.GPU(timing=True, num_cus=1)
        rep = gpu.dispatch(k, grid=(64,), block=(64,))
        assert code_start(gpu, k) % LINE == 0
        # every line of the loop (all of the code) misses once per iteration; the second
        # block of each line hits (its wave waited for the line)
        assert ic(rep) == (n * per_iter_fetches, n * (per_iter_fetches - lines), n * lines, 0)
        reps[n] = rep
    # the third iteration's misses hit the L2 (the code is there since the first): each
    # holds the wave l2_latency cycles, booked as "fetch" stalls
    assert reps[3].stalls["fetch"] - reps[2].stalls["fetch"] == lines * tc.l2_latency
    assert reps[3].pc_cycles["fetch"].sum() == reps[3].stalls["fetch"]


def test_small_loop_misses_in_its_first_iteration_only(tmp_path):
    nbytes = 4 + 4 * 16 + 3 * 4 + 4                                     # 84: 2 lines
    for n in (1, 5):
        k = loop_kernel(tmp_path, f"small{n}", 16, n)
        gpu = gcnemu.GPU(timing=True, num_cus=1)
        rep = gpu.dispatch(k, grid=(64,), block=(64,))
        assert code_start(gpu, k) % LINE == 0
        fetches, hits, misses, dup = ic(rep)
        assert misses == -(-nbytes // LINE) and dup == 0
        # blocks: 0, 1, 2 in the first iteration (84 bytes: 3 blocks), then 0 (the branch
        # target, offset 4), 1, 2 in each later one; all of them hit but the 2 misses
        assert fetches == 3 * n and hits == fetches - misses
        # the same dispatch again: the code is in the I$ (it outlives the dispatch)
        rep2 = gpu.dispatch(k, grid=(64,), block=(64,))
        assert ic(rep2) == (3 * n, 3 * n, 0, 0)
        assert rep2.stalls["fetch"] == 0 and rep.stalls["fetch"] > 0
        assert rep2.cycles < rep.cycles


def inv_loop_kernel(tmp_path, name, iterations, invalidate="s_icache_inv"):
    """s_mov s4, N; loop: 15 x v_add_f32 (bytes 4..63), s_cmp_eq_u32 s2, 0 (64: s2 holds the
    workgroup id x), s_cbranch_scc0 skip (68), ``invalidate`` (72), skip: s_sub (76), s_cmp
    (80), s_cbranch_scc1 loop (84), s_endpgm (88): 92 bytes, lines 0 and 1, blocks 0-2;
    workgroup 0 runs s_icache_inv in every iteration, the others jump over it."""
    src = (f"s_mov_b32 s4, {iterations}\nloop:\n" + "v_add_f32 v1, v1, v0\n" * 15 +
           f"s_cmp_eq_u32 s2, 0\ns_cbranch_scc0 skip\n{invalidate}\nskip:\n"
           "s_sub_u32 s4, s4, 1\ns_cmp_lg_u32 s4, 0\ns_cbranch_scc1 loop\ns_endpgm\n")
    return asm_kernel(tmp_path, name, src)


def test_icache_inv_in_a_loop_misses_every_iteration(tmp_path):
    """One wave (workgroup 0). Each iteration fetches block 0 (the branch target at byte 4;
    the wave's start in the first) on line 0, block 1 on line 0 (a hit: the wave waited for
    the line) and block 2 (byte 64) on line 1. Without s_icache_inv (an s_nop in its place)
    the two lines miss once; with it, the invalidate at byte 72 drops both, so they miss in
    every iteration, and from the second on each miss is an L2 hit: l2_latency cycles of
    "fetch" stall at rows 1 (byte 4) and 16 (byte 64)."""
    tc = TimingConfig()
    reps = {}
    for inv in ("s_icache_inv", "s_nop 0"):
        for n in (2, 3):
            k = inv_loop_kernel(tmp_path, f"inv{n}{inv[2]}", n, inv)
            gpu = gcnemu.GPU(timing=True, num_cus=1)
            reps[inv, n] = rep = gpu.dispatch(k, grid=(64,), block=(64,))
            assert code_start(gpu, k) % LINE == 0
            misses = 2 * n if inv == "s_icache_inv" else 2
            assert ic(rep) == (3 * n, 3 * n - misses, misses, 0)
            # the last iteration's invalidate (after its fetches) leaves the I$ empty
            assert gpu.caches.valid_lines("i") == (0 if inv == "s_icache_inv" else 2)
    d = {inv: (reps[inv, 3].pc_cycles["fetch"] - reps[inv, 2].pc_cycles["fetch"])
         for inv in ("s_icache_inv", "s_nop 0")}
    expected = np.zeros_like(d["s_nop 0"])
    assert np.array_equal(d["s_nop 0"], expected)
    expected[[1, 16]] = tc.l2_latency
    assert np.array_equal(d["s_icache_inv"], expected)
    assert reps["s_icache_inv", 3].stalls["fetch"] - reps["s_icache_inv", 2].stalls["fetch"] == \
        2 * tc.l2_latency


def test_icache_inv_leaves_other_groups_alone(tmp_path):
    """Two workgroups, one wave each, on CUs 0 and 1, one CU per I$ (two groups). The wave of
    workgroup 0 invalidates its own I$ only: it misses 2 lines in each of its n iterations (3
    fetches each, as above); the other wave misses its 2 lines once: 4 fetches an iteration
    (blocks 0, 1, 2, and block 2 again at the jump to skip, a hit). (Were the other group's
    I$ emptied too, that wave would miss again in the iterations after.)"""
    n = 3
    k = inv_loop_kernel(tmp_path, "groups", n)
    gpu = gcnemu.GPU(timing=True, num_cus=2, timing_config=TimingConfig(kcache_cus=1))
    assert gpu.caches.i_groups == 2
    rep = gpu.dispatch(k, grid=(128,), block=(64,))
    assert rep.wave_cu.tolist() == [0, 1]
    assert ic(rep) == (7 * n, 7 * n - (2 * n + 2), 2 * n + 2, 0)
    # workgroup 0's I$ ends empty (its last invalidate follows its last fetch), the other
    # holds both lines
    assert gpu.caches.valid_lines("i") == 2


def test_cu_groups_have_their_own_icache(tmp_path):
    # one wave on each CU: 4 CUs are one group (one I$), 8 CUs two
    k = asm_kernel(tmp_path, "straight", "v_add_f32 v1, v1, v0\n" * 40 + "s_endpgm\n")
    lines = -(-(41 * 4) // LINE)                                         # 3
    for cus, groups in ((4, 1), (8, 2)):
        gpu = gcnemu.GPU(timing=True, num_cus=cus)
        rep = gpu.dispatch(k, grid=(64 * cus,), block=(64,))
        assert code_start(gpu, k) % LINE == 0
        # every wave fetches every block (41 x 4 bytes: 6 blocks, 2 per line). The waves run
        # in step (one per CU, SIMD 0, from cycle 0): at each line's first block the group's
        # lowest CU misses and its other 3 find the line on its way (duplicate misses); the
        # second block of each line hits, the line having arrived
        assert ic(rep) == (cus * 6, cus * 3, groups * lines, (cus - groups) * lines)
        assert gpu.caches.valid_lines("i") == groups * lines
        assert len(gpu.caches.i_tags) == groups * 32768 // LINE


def test_queue_icache_invalidate_makes_the_next_dispatch_miss(tmp_path):
    k = asm_kernel(tmp_path, "inv", "v_add_f32 v1, v1, v0\n" * 40 + "s_endpgm\n")
    lines = 3
    gpu = gcnemu.GPU(timing=True, num_cus=1)
    q = gpu.queue()
    q.dispatch(k, (64,), (64,))
    q.dispatch(k, (64,), (64,))            # warm: no miss
    q.cache_op("l1", invalidate=True)      # not the I$
    q.dispatch(k, (64,), (64,))
    q.cache_op("i", invalidate=True)       # the command processor's I$ invalidate
    q.dispatch(k, (64,), (64,))
    reps = q.submit().reports
    assert [r.counters["SQC_ICACHE_MISSES"] for r in reps] == [lines, 0, 0, lines]
    assert gpu.caches.valid_lines("i") == lines
    gpu.caches.invalidate("all")
    assert gpu.caches.valid_lines("i") == 0
    assert gpu.dispatch(k, grid=(64,), block=(64,)).counters["SQC_ICACHE_MISSES"] == lines


def test_two_kernels_conflict_where_their_code_maps_to_the_same_sets(tmp_path):
    # a direct-mapped I$ of 4 lines (overrides of the preset): kernel A's lines are evicted
    # by kernel B's that map to the same sets, computed from the two code addresses
    ka = asm_kernel(tmp_path, "ka", "v_add_f32 v1, v1, v0\n" * 20 + "s_endpgm\n")
    kb = asm_kernel(tmp_path, "kb", "v_mul_f32 v1, v1, v0\n" * 20 + "s_endpgm\n")
    gpu = gcnemu.GPU(timing=True, num_cus=1, icache_bytes=4 * LINE, icache_ways=1)
    sets = 4

    def lines(k):
        a = code_start(gpu, k)
        return set(range(a // LINE, (a + 21 * 4 - 1) // LINE + 1))

    assert gpu.dispatch(ka, grid=(64,), block=(64,)).counters["SQC_ICACHE_MISSES"] == len(lines(ka))
    la, lb = lines(ka), lines(kb)
    assert la.isdisjoint(lb)
    gpu.dispatch(kb, grid=(64,), block=(64,))
    evicted = sum(1 for x in la if x % sets in {y % sets for y in lb})
    assert gpu.dispatch(ka, grid=(64,), block=(64,)).counters["SQC_ICACHE_MISSES"] == evicted


def test_icache_overrides_and_profile_counters(tmp_path):
    with pytest.raises(gcnemu.GcnEmuError, match="icache"):
        gcnemu.GPU(timing=True, icache_bytes=1000)
    with pytest.raises(gcnemu.GcnEmuError, match="timing is off"):
        gcnemu.GPU(icache_bytes=65536)
    gpu = gcnemu.GPU(timing=True, icache_bytes=65536, icache_ways=8)
    assert (gpu.timing_config.icache_bytes, gpu.timing_config.icache_ways) == (65536, 8)
    k = asm_kernel(tmp_path, "pmc", "v_add_f32 v1, v1, v0\n" * 40 + "s_endpgm\n")
    rep = gpu.dispatch(k, grid=(64,), block=(64,))
    row = result_row(rep, k, gpu.config, ["SQ_IFETCH", "SQC_ICACHE_HITS", "SQC_ICACHE_MISSES"])
    assert (row["SQ_IFETCH"], row["SQC_ICACHE_MISSES"]) == (6, 3)
    assert row["SQC_ICACHE_HITS"] == 3


@pytest.mark.parametrize("kcache_cus", [1, 2, 4])
def test_cus_per_icache_override(tmp_path, kcache_cus):
    """One wave on each of 4 CUs runs the same straight-line code: each I$ (one per
    ``kcache_cus`` CUs) fetches each of the code's lines from the L2 once, so the unique
    misses are the lines times the number of I$s; the other CUs of a group hit or wait on
    the same miss (duplicate)."""
    ops = 63                                                    # 64 instructions, 256 bytes
    k = asm_kernel(tmp_path, f"grp{kcache_cus}", "v_add_f32 v1, v1, v0\n" * ops + "s_endpgm\n")
    gpu = gcnemu.GPU(timing=True, num_cus=4, kcache_cus=kcache_cus)
    assert gpu.timing_config.kcache_cus == kcache_cus
    a = code_start(gpu, k)
    lines = (a + 4 * (ops + 1) - 1) // LINE - a // LINE + 1
    fetches, hits, misses, duplicate = ic(gpu.dispatch(k, grid=(4 * 64,), block=(64,)))
    assert misses == lines * (4 // kcache_cus)
    assert hits + misses + duplicate == fetches


def test_one_program_on_gpus_of_two_icache_sizes(tmp_path):
    """A program keeps its I$ layout (small sets, fetch blocks) per configuration: the same
    kernel object timed on a 32 KB I$, then on a 4 KB one (16 sets of 4 ways), then on the
    32 KB one again gets each size's counts (by hand, as in the tests above)."""
    ops = 5 * 16 * LINE // 4                  # more than 4 lines in each of 16 sets
    nbytes = 4 + 4 * ops + 3 * 4 + 4          # 5140
    lines = -(-nbytes // LINE)                # 81: fits 32 KB, not 4 KB
    fetches = -(-(nbytes - 4) // 32)          # blocks 0 .. of the s_cbranch, per iteration
    k = loop_kernel(tmp_path, "two_sizes", ops, 2)
    for size, misses in ((32768, lines), (4096, 2 * lines), (32768, lines)):
        gpu = gcnemu.GPU(timing=True, num_cus=1, icache_bytes=size)
        rep = gpu.dispatch(k, grid=(64,), block=(64,))
        assert code_start(gpu, k) % LINE == 0
        # 32 KB: each line misses in the first iteration only; 4 KB: in both
        assert ic(rep) == (2 * fetches, 2 * fetches - misses, misses, 0), size
