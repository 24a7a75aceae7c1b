"""Dispatch on two worker threads gives the same bits as one worker."""
import numpy as np
import pytest

import gcnemu
from kernels import corpus


def _run(name, workers):
    case = corpus.make_case(name, 0)
    gpu = gcnemu.GPU(waves_per_batch=4)       # small batches: several per worker
    prog = gcnemu.load(str(corpus.hsaco_path(name)))
    dev, back = [], {}
    for i, a in enumerate(case.args):
        if isinstance(a, (corpus.In, corpus.InOut)):
            dev.append(gpu.to_device(a.array))
            back[i] = dev[-1]
        elif isinstance(a, corpus.Out):
            dev.append(gpu.empty(a.nbytes))
            back[i] = dev[-1]
        elif type(a).__name__ == "Local":
            dev.append(gcnemu.Local(a.nbytes))
        else:
            dev.append(a)
    rep = gpu.dispatch(prog.kernel(case.kernel), grid=case.grid, block=case.block, args=dev,
                       workers=workers)
    return rep, {i: b.to_numpy(np.uint8) for i, b in back.items()}


@pytest.mark.parametrize("name", ["mandelbrot", "matmul_tiled", "scratch_spill", "reduce_lds"])
def test_two_workers_bit_identical(name):
    rep1, out1 = _run(name, 1)
    rep2, out2 = _run(name, 2)
    assert rep2.workers == 2 and rep2.counters == rep1.counters
    for i in out1:
        assert np.array_equal(out1[i], out2[i]), f"argument {i} differs"


def test_kernels_with_global_atomics_run_serially():
    rep, _ = _run("histogram", 2)
    assert rep.workers == 1 and "atomic" in rep.serial_reason
