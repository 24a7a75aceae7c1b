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


def test_kernels_with_global_atomics_run_serially():
    case = corpus.make_case("histogram", 0)
    gpu = gcnemu.GPU(waves_per_batch=4)
    prog = gcnemu.load(str(corpus.hsaco_path("histogram")))
    args = []
    for a in case.args:
        if isinstance(a, (corpus.In, corpus.InOut)):
            args.append(gpu.to_device(a.array))
        elif isinstance(a, corpus.Out):
            args.append(gpu.empty(a.nbytes))
        elif type(a).__name__ == "Local":
            args.append(gcnemu.Local(a.nbytes))
        else:
            args.append(a)
    rep = gpu.dispatch(prog.kernel(case.kernel), grid=case.grid, block=case.block, args=args, workers=2)
    assert rep.workers == 1 and "atomic" in rep.serial_reason


def test_two_workers_share_the_work():
    rep_args = corpus.make_case("mandelbrot", 0)
    assert rep_args.grid[0] * (rep_args.grid[1] if len(rep_args.grid) > 1 else 1) >= 4 * 64
    gpu = gcnemu.GPU(waves_per_batch=4)
    results, case = corpus.run_case("mandelbrot", gpu=gpu, workers=2)
    corpus.compare_results(case, results)
