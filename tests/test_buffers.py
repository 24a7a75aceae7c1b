"""Buffers keep the dtype and shape of their array: to_device, empty(shape, dtype), to_numpy."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.errors import GcnEmuError

SAXPY = Path(__file__).resolve().parents[1] / "kernels" / "saxpy" / "kernel.hsaco"


def test_to_device_keeps_dtype_and_shape():
    gpu = gcnemu.GPU()
    a = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    buf = gpu.to_device(a)
    assert (buf.dtype, buf.shape, buf.nbytes) == (np.dtype(np.int16), (2, 3, 4), 48)
    got = buf.to_numpy()
    assert got.dtype == np.int16 and got.shape == (2, 3, 4) and np.array_equal(got, a)
    # another view of the same bytes: flat, of that dtype
    assert np.array_equal(buf.to_numpy(np.uint8), a.reshape(-1).view(np.uint8))
    assert np.array_equal(buf.to_numpy(np.int16, 5), np.arange(5, dtype=np.int16))


def test_records_keep_their_dtype():
    gpu = gcnemu.GPU()
    rec = np.zeros(3, dtype=[("x", np.float32), ("id", np.uint32)])
    rec["x"], rec["id"] = [1.5, 2.5, 3.5], [7, 8, 9]
    got = gpu.to_device(rec).to_numpy()
    assert got.dtype == rec.dtype and np.array_equal(got, rec)


@pytest.mark.parametrize("shape, dtype, nbytes, want_shape", [
    (100, np.uint8, 100, (100,)),          # gpu.empty(n): n bytes, as before
    ((256, 192), np.uint32, 256 * 192 * 4, (256, 192)),
    (7, np.float64, 56, (7,)),
    ((2, 2, 2), "f4", 32, (2, 2, 2)),
])
def test_empty_takes_a_shape_and_dtype(shape, dtype, nbytes, want_shape):
    buf = gcnemu.GPU().empty(shape, dtype)
    assert buf.nbytes == nbytes
    got = buf.to_numpy()
    assert got.shape == want_shape and got.dtype == np.dtype(dtype) and not got.any()


@pytest.mark.parametrize("shape, dtype", [(0, np.uint8), ((4, 0), np.float32), (-3, np.uint8),
                                          (2.5, np.uint8), ((4,), "nonsense"), (4, object),
                                          (True, np.uint8)])
def test_empty_rejects_bad_shapes_and_dtypes(shape, dtype):
    with pytest.raises(GcnEmuError, match="gpu.empty"):
        gcnemu.GPU().empty(shape, dtype)


def test_to_numpy_of_a_partial_item_is_an_error():
    buf = gcnemu.GPU().to_device(np.arange(6, dtype=np.uint8))
    with pytest.raises(GcnEmuError, match="6 bytes, not a whole number of uint32"):
        buf.to_numpy(np.uint32)
    assert np.array_equal(buf.to_numpy(np.uint32, 1), np.arange(4, dtype=np.uint8).view(np.uint32))
    with pytest.raises(GcnEmuError, match="6 bytes, not a whole number of float64"):
        gcnemu.GPU().to_device(np.zeros(3, np.uint16)).to_numpy(np.float64)


def test_a_dispatch_writes_into_the_typed_view():
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    x = np.arange(64 * 4, dtype=np.float32).reshape(16, 16)
    y = gpu.empty((16, 16), np.float32)
    gpu.dispatch(k, grid=(256,), block=(64,), args=[y, gpu.to_device(x), np.float32(2),
                                                     np.uint32(256)])
    got = y.to_numpy()
    assert got.shape == (16, 16) and np.array_equal(got, 2 * x)


# --- __local pointer arguments ----------------------------------------------------------------
REDUCE = SAXPY.parents[1] / "reduce_lds" / "kernel.hsaco"   # (in, partial, __local uint*)


def test_a_local_pointer_needs_local():
    gpu = gcnemu.GPU()
    k = gcnemu.load(REDUCE).kernel("reduce_sum")
    data = np.arange(256, dtype=np.uint32)
    inp, part = gpu.to_device(data), gpu.empty(1, np.uint32)
    with pytest.raises(gcnemu.DispatchError, match=r"argument 2 \(uint\*\) is a __local "
                                                    r"pointer: pass gcnemu.Local\(nbytes\)"):
        gpu.dispatch(k, grid=(256,), block=(256,), args=[inp, part, 1024])
    with pytest.raises(gcnemu.DispatchError, match=r"argument 1 .* is not a __local pointer"):
        gpu.dispatch(k, grid=(256,), block=(256,), args=[inp, gcnemu.Local(4), gcnemu.Local(1024)])
    gpu.dispatch(k, grid=(256,), block=(256,), args=[inp, part, gcnemu.Local(1024)])
    assert part.to_numpy()[0] == data.sum()


def test_a_local_smaller_than_the_kernel_touches_is_a_fault_naming_it():
    # reduce_sum stores one uint per work-item into its __local argument (ds_write_b32, the
    # engine's row-kernel path): 256 work-items need 1024 bytes; 512 leaves lanes 128..255
    # past the allocation
    gpu = gcnemu.GPU()
    k = gcnemu.load(REDUCE).kernel("reduce_sum")
    inp, part = gpu.to_device(np.arange(256, dtype=np.uint32)), gpu.empty(1, np.uint32)
    with pytest.raises(gcnemu.MemoryFault, match=r"LDS store to byte 512 of a 512-byte workgroup "
                                                 r"allocation, past argument 2 \(uint\*\), whose "
                                                 r"gcnemu.Local\(512\) is bytes 0..511"):
        gpu.dispatch(k, grid=(256,), block=(256,), args=[inp, part, gcnemu.Local(512)])
    rep = gpu.dispatch(k, grid=(256,), block=(256,), args=[inp, part, gcnemu.Local(512)],
                       strict=False)
    assert rep.faults and all("past argument 2" in f for f in rep.faults)
    # the hardware's behaviour is kept: the overrun wrote nothing, the rest ran
    rep = gpu.dispatch(k, grid=(256,), block=(256,), args=[inp, part, gcnemu.Local(1024)])
    assert rep.faults == [] and part.to_numpy()[0] == np.arange(256).sum()


BYTE_LDS = """
__kernel void bytes(__global uchar *out, __local uchar *tmp)
{
    uint lid = get_local_id(0);
    tmp[lid] = (uchar)(lid * 3);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[get_local_size(0) - 1 - lid];
}
"""


def test_a_byte_overrun_of_local_is_a_fault_too(tmp_path):
    # ds_write_b8 / ds_read_u8 run on the DS lane loop, not the row kernels
    pytest.importorskip("gcnemu.loader.opencl")
    src = tmp_path / "bytes.cl"
    src.write_text(BYTE_LDS)
    try:
        k = gcnemu.load(src).kernel("bytes")
    except gcnemu.LoaderError as e:    # no clang-14 / libclc-14 here
        pytest.skip(str(e))
    gpu = gcnemu.GPU()
    out = gpu.empty(64, np.uint8)
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=[out, gcnemu.Local(48)], strict=False)
    assert any(f.startswith("LDS store to byte 48 of a 48-byte") and "argument 1 (uchar*)" in f
               for f in rep.faults), rep.faults
    # lanes 48..63 store past the 48 bytes, lanes 0..15 load past them: one report, 32 counted
    assert len(rep.faults) + rep.dropped["faults"] == 32
    gpu.dispatch(k, grid=(64,), block=(64,), args=[out, gcnemu.Local(64)])
    assert np.array_equal(out.to_numpy(), ((63 - np.arange(64)) * 3).astype(np.uint8))
