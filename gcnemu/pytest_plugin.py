"""gcnemu's pytest fixtures, installed with the package (a ``pytest11`` entry point), so that
any project's tests can use them without a conftest.py:

    def test_saxpy(run_kernel, assert_close_ulp):
        outs = run_kernel("saxpy.hsaco", "saxpy", (n,), (256,),
                          [InOut(y), In(x), np.float32(2), np.uint32(n)])
        assert_close_ulp(outs[0], np.float32(2) * x + y)

Importing this module loads neither numba nor the engine: pytest imports every installed
plugin in every session, including those that never use gcnemu.
"""
from __future__ import annotations

import pytest


@pytest.fixture
def gcnemu_gpu():
    """A fresh emulated GPU (preset xbox-one)."""
    import gcnemu
    return gcnemu.GPU()


@pytest.fixture
def run_kernel(gcnemu_gpu):
    """run_kernel(program, kernel, grid, block, args, report=False) -> {arg index: array}, on a
    fresh GPU (gcnemu.golden.run_kernel: In, Out, InOut, Local and scalars as arguments)."""
    from gcnemu.golden import run_kernel as _run

    def run(program, kernel, grid, block, args, report=False):
        return _run(program, kernel, grid, block, args, gpu=gcnemu_gpu, report=report)
    return run


@pytest.fixture
def assert_close_ulp():
    """assert_close_ulp(actual, expected, ulp=0): exact for integers, at most ``ulp`` units in
    the last place apart for floats (gcnemu.golden.assert_close_ulp)."""
    from gcnemu.golden import assert_close_ulp as _assert
    return _assert
