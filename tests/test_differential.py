"""Differential tests of the dispatch paths: the simplest one (one workgroup per batch, one
worker) against batched execution on two workers, for every corpus kernel: same bits."""
import numpy as np
import pytest

import gcnemu
from kernels import corpus


@pytest.mark.parametrize("name", corpus.list_kernels())
def test_batched_two_worker_dispatch_matches_one_group_at_a_time(name):
    simple, _ = corpus.run_case(name, gpu=gcnemu.GPU(waves_per_batch=1), workers=1)
    fast, _ = corpus.run_case(name, gpu=gcnemu.GPU(waves_per_batch=4), workers=2)
    assert simple.keys() == fast.keys()
    for i in simple:
        a = np.ascontiguousarray(simple[i]).view(np.uint8)
        b = np.ascontiguousarray(fast[i]).view(np.uint8)
        assert np.array_equal(a, b), f"{name}: argument {i} differs between dispatch paths"


@pytest.mark.parametrize("name,reason", [
    ("nu_last_block", "glc"),            # atomic_add whose old value the kernel uses
    ("nu_float_atomic", "glc"),          # a cmpswap loop
    ("atomics_global", "do not commute"),  # add, and, or, smax ... on the same words
    ("nu_local_atom64", "swap"),         # flat swap: the last writer wins
])
def test_order_dependent_global_atomics_run_serially(name, reason):
    case = corpus.make_case(name, 0)
    gpu = gcnemu.GPU(waves_per_batch=1)
    prog = gcnemu.load(str(corpus.hsaco_path(name)))
    rep = gpu.dispatch(prog.kernel(case.kernel), grid=case.grid, block=case.block,
                       args=corpus.device_args(gpu, case), workers=2)
    assert rep.workers == 1 and reason in rep.serial_reason


@pytest.mark.parametrize("name", ["histogram", "nu_compact"])
def test_commuting_global_atomics_run_on_two_workers(name):
    # no-return atomic adds only: the final memory does not depend on the interleaving
    gpu = gcnemu.GPU(waves_per_batch=4)
    results, case = corpus.run_case(name, gpu=gpu, workers=2)
    corpus.compare_results(case, results)
    prog = gcnemu.load(str(corpus.hsaco_path(name)))
    rep = gpu.dispatch(prog.kernel(case.kernel), grid=case.grid, block=case.block,
                       args=corpus.device_args(gpu, case), workers=2)
    assert rep.workers == 2 and rep.serial_reason == ""


_CONTENDED_ADD = """
    s_load_dwordx2 s[4:5], s[0:1], 0x0      // the one counter every lane adds to
    s_lshl_b32 s3, s2, 6
    v_add_i32 v1, vcc, s3, v0
    v_add_i32 v1, vcc, 1, v1                // gid + 1
    v_lshlrev_b32 v6, 20, v1                // (gid + 1) << 20 as a 64-bit value in v[6:7]
    v_lshrrev_b32 v7, 12, v1
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v2, s4
    v_mov_b32 v3, s5
    s_mov_b32 s8, 1000
loop:
    {atomic}
    s_sub_u32 s8, s8, 1
    s_cmp_eq_u32 s8, 0
    s_cbranch_scc0 loop
    s_waitcnt vmcnt(0)
    s_endpgm
"""


@pytest.mark.parametrize("atomic,bits", [("flat_atomic_add v[2:3], v1", 32),
                                         ("flat_atomic_add_x2 v[2:3], v[6:7]", 64)])
def test_contended_atomics_from_two_workers_lose_no_update(tmp_path, atomic, bits):
    """256 one-wave workgroups in batches of 64 waves on two threads (long batches, so the
    threads run at the same time): each lane adds (gid + 1) [<< 20 for the 64-bit op] 1000
    times to one word. The exact sum (mod 2^bits) shows any lost update."""
    src = tmp_path / "contended.s"
    src.write_text(_CONTENDED_ADD.format(atomic=atomic))
    gpu = gcnemu.GPU(waves_per_batch=64)
    k = gcnemu.load(src).kernel("contended")
    n = 256 * 64
    counter = gpu.to_device(np.zeros(1, np.uint64))
    rep = gpu.dispatch(k, grid=(n,), block=(64,), args=[counter], workers=2)
    assert rep.workers == 2
    total = 1000 * n * (n + 1) // 2
    if bits == 64:
        expected = (total << 20) % 2 ** 64
    else:
        expected = total % 2 ** 32
    assert int(counter.to_numpy(np.uint64)[0]) == expected


def test_two_workers_share_the_work():
    rep_args = corpus.make_case("mandelbrot", 0)
    assert rep_args.grid[0] * (rep_args.grid[1] if len(rep_args.grid) > 1 else 1) >= 4 * 64
    gpu = gcnemu.GPU(waves_per_batch=4)
    results, case = corpus.run_case("mandelbrot", gpu=gpu, workers=2)
    corpus.compare_results(case, results)


def test_two_workers_report_the_first_failing_workgroup_like_one(tmp_path):
    # workgroups 3 and 6 of 16 spin until the step limit; whichever thread meets a failure
    # first, the error must name workgroup 3, as a one-worker dispatch does
    src = tmp_path / "spin2.s"
    src.write_text("""
        s_cmp_eq_u32 s2, 3
        s_cbranch_scc1 spin
        s_cmp_eq_u32 s2, 6
        s_cbranch_scc0 done
    spin:
        s_branch spin
    done:
        s_endpgm
    """)
    messages = []
    for workers in (1, 2):
        gpu = gcnemu.GPU(step_limit=20_000, waves_per_batch=1)
        k = gcnemu.load(src).kernel("spin2")
        with pytest.raises(gcnemu.ExecutionError) as e:
            gpu.dispatch(k, grid=(16 * 64,), block=(64,), args=[], workers=workers)
        messages.append(str(e.value))
    assert "workgroup (3, 0, 0)" in messages[0] and "step limit" in messages[0]
    assert messages[1] == messages[0]
