"""Every kernel of kernels/ runs on the emulator and matches its numpy reference."""
import pytest

from kernels import corpus

# Known mismatches, each explained; strict: a fix makes the xfail fail, so it gets removed.
KNOWN: dict = {}


@pytest.mark.parametrize("name", corpus.list_kernels())
def test_kernel_matches_reference(name):
    if name in KNOWN:
        pytest.xfail(KNOWN[name])
    results, case = corpus.run_case(name)
    corpus.compare_results(case, results)
