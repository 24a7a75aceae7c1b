"""Kernels from code objects v2, v3 and v4 (built by tests/data/loader/build.sh) dispatch and
compute the right results: the launch ABI differs per version (v2: amd_kernel_code_t headers
inside .text and YAML metadata). clang-14 cannot emit v5 (tests/data/loader/README.md says
how a v5 object was forced out of LLVM 14 for the loader tests); its v5 ABI is LLVM 14's
experimental one, so v5 dispatch is not claimed here."""
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.golden import In, Out, run_kernel

DATA = Path(__file__).resolve().parent / "data" / "loader"


@pytest.mark.parametrize("version", [2, 3, 4])
def test_vadd(version):
    n = 1000
    a = np.linspace(-1, 1, n, dtype=np.float32)
    b = np.arange(n, dtype=np.float32)
    outs = run_kernel(DATA / f"kernels_v{version}.hsaco", "vadd", (1024,), (128,),
                      [In(a), In(b), Out(np.float32, n), np.uint32(n)])
    assert np.array_equal(outs[2].view(np.uint32), (a + b).view(np.uint32))


@pytest.mark.parametrize("version", [2, 3, 4])
def test_lds_kernel_with_static_and_dynamic_local(version):
    out = run_kernel(DATA / f"kernels_v{version}.hsaco", "lds_kernel", (128,), (64,),
                     [Out(np.int32, 128), gcnemu.Local(64 * 4), np.int8(-3), np.int16(300),
                      np.int64(70000), np.float64(2.75)])[0]
    lid = np.arange(128) % 64
    want = (63 - lid) + lid + (-3) + 300 + 70000 + 2          # tile[63-lid] + dyn[lid] + ...; (int)2.75 == 2
    assert np.array_equal(out, want.astype(np.int32))
