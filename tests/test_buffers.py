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
