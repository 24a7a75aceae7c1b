"""Shared pytest fixtures: golden-output verification in a few lines.

    def test_saxpy(run_kernel, assert_close_ulp):
        outs = run_kernel("kernels/saxpy/kernel.hsaco", "saxpy", (n,), (256,),
                          [InOut(y), In(x), np.float32(2), np.uint32(n)])
        assert_close_ulp(outs[0], 2 * x + y)
"""
import os
import subprocess
import sys
import tempfile
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


# --- tests/test_fuzz.py's campaigns, started once per session ----------------------------------
def _runs_fuzz_tests(config) -> bool:
    """Whether this session is likely to run tests/test_fuzz.py (no -k or -m filter, and a
    path argument that contains it)."""
    if config.option.keyword or config.option.markexpr:
        return False
    target = ROOT / "tests" / "test_fuzz.py"
    for arg in config.args:
        path = Path(arg.split("::")[0]).resolve()
        if path == target or path in target.parents:
            return True
    return False


def pytest_configure(config):
    """Start the fuzz campaigns in the background before the tests (and xdist's workers,
    which inherit GCNEMU_FUZZ_RESULTS) start: tests/test_fuzz.py explains why."""
    if hasattr(config, "workerinput") or "GCNEMU_FUZZ_RESULTS" in os.environ \
            or not _runs_fuzz_tests(config):
        return
    sys.path.insert(0, str(ROOT / "tools"))
    import fuzz
    with tempfile.NamedTemporaryFile(prefix="gcnemu-fuzz-", suffix=".jsonl", delete=False) as f:
        results = Path(f.name)
    os.environ["GCNEMU_FUZZ_RESULTS"] = str(results)
    config._gcnemu_fuzz = (fuzz.start_suite_campaigns(results), results)


def pytest_unconfigure(config):
    started = getattr(config, "_gcnemu_fuzz", None)
    if started:
        proc, results = started
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
        results.unlink(missing_ok=True)
        del os.environ["GCNEMU_FUZZ_RESULTS"]
