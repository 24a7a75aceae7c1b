"""Dispatch fixes of issue 19: the AQL packet's setup dimensions say how many dimensions the
caller gave, get_work_dim() and get_global_offset() are right for libclc-built kernels, and
dispatch(offset=) shifts get_global_id."""
import os
import shutil

import numpy as np
import pytest

import gcnemu

pytestmark = pytest.mark.skipif(shutil.which("clang-14") is None or not os.path.isfile(
    "/usr/lib/clc/amdgcn--amdhsa.bc"), reason="needs clang-14, lld-14 and libclc-14")

SRC = """
__kernel void k(__global uint *o) {
  __constant ushort *pkt = (__constant ushort *)__builtin_amdgcn_dispatch_ptr();
  size_t i = (get_global_id(0) - get_global_offset(0))
           + (get_global_id(1) - get_global_offset(1)) * get_global_size(0);
  o[i*5+0] = get_work_dim();
  o[i*5+1] = pkt[1] & 3;          /* setup.dimensions */
  o[i*5+2] = get_global_id(0);
  o[i*5+3] = get_global_id(1);
  o[i*5+4] = get_global_offset(0);
}
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    p = tmp_path_factory.mktemp("cl") / "wd.cl"
    p.write_text(SRC)
    return gcnemu.load(str(p)).kernel("k")


@pytest.mark.parametrize("grid,block,offset", [((8,), (4,), None), ((8,), (4,), (5,)),
                                               ((4, 2), (2, 2), (3, 7)), ((4, 2, 1), (2, 2, 1), None)])
def test_work_dim_setup_and_offset(kernel, grid, block, offset):
    gpu = gcnemu.GPU()
    n = int(np.prod(grid))
    buf = gpu.empty((n, 5), np.uint32)
    gpu.dispatch(kernel, grid, block, [buf], offset=offset)
    got = buf.to_numpy()
    off = tuple(offset or (0,) * len(grid)) + (0, 0)
    g = tuple(grid) + (1,)
    idx = np.arange(n)
    assert (got[:, 0] == len(grid)).all(), "get_work_dim()"
    assert (got[:, 1] == len(grid)).all(), "AQL setup.dimensions"
    assert np.array_equal(got[:, 2], idx % g[0] + off[0])
    assert np.array_equal(got[:, 3], idx // g[0] % g[1] + off[1])
    assert (got[:, 4] == off[0]).all()


def test_offset_errors(kernel):
    gpu = gcnemu.GPU()
    buf = gpu.empty((8, 5), np.uint32)
    with pytest.raises(gcnemu.DispatchError, match="needs 1 integers"):
        gpu.dispatch(kernel, (8,), (4,), [buf], offset=(1, 2))
    with pytest.raises(gcnemu.DispatchError, match="implicit_args"):
        gpu.dispatch(kernel, (8,), (4,), [buf], implicit_args="clover")


def test_rocm_layout_keeps_metadata_offsets(kernel):
    """implicit_args='rocm' writes hidden_global_offset_x as the metadata says (8 bytes at its
    offset): libclc's get_work_dim reads its low dword, the x offset."""
    gpu = gcnemu.GPU()
    buf = gpu.empty((8, 5), np.uint32)
    gpu.dispatch(kernel, (8,), (4,), [buf], offset=(6,), implicit_args="rocm")
    assert (buf.to_numpy()[:, 0] == 6).all()
