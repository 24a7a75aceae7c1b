"""Shared pytest fixtures: golden-output verification in a few lines.

    def test_saxpy(run_kernel, assert_close_ulp):
        outs = run_kernel("kernels/saxpy/kernel.hsaco", "saxpy", (n,), (256,),
                          [InOut(y), In(x), np.float32(2), np.uint32(n)])
        assert_close_ulp(outs[0], 2 * x + y)
"""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared"


@pytest.fixture
def gpu():
    """A fresh emulated GPU (preset xbox-one)."""
    import gcnemu
    return gcnemu.GPU()


@pytest.fixture
def run_kernel(gpu):
    """run_kernel(program, kernel, grid, block, args) -> {arg index: array} on a fresh GPU."""
    from gcnemu.golden import run_kernel as _run

    def run(program, kernel, grid, block, args, report=False):
        return _run(program, kernel, grid, block, args, gpu=gpu, report=report)
    return run


@pytest.fixture
def assert_close_ulp():
    """assert_close_ulp(actual, expected, ulp=0): exact for ints, ULP-bounded for floats."""
    from gcnemu.golden import assert_close_ulp as _assert
    return _assert


@pytest.fixture(scope="session")
def shared_dir():
    """../shared (reference data), or skip when this checkout has none."""
    if not SHARED.is_dir():
        pytest.skip("../shared (reference data) is not present next to the repository")
    return SHARED
