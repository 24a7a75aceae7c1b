"""gcnemu.cl.array (pyopencl.array's basics) against numpy: the same operations on the same
inputs give the same dtypes and the same bits (numpy is the reference PyOpenCL follows)."""
import os
import shutil

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    shutil.which("clang-14") is None or not os.path.isfile("/usr/lib/clc/amdgcn--amdhsa.bc"),
    reason="needs clang-14, lld-14 and libclc-14")


@pytest.fixture(scope="module")
def queue():
    import gcnemu.cl as cl
    return cl.CommandQueue(cl.create_some_context())


@pytest.fixture(scope="module")
def cl_array():
    import gcnemu.cl.array as cl_array
    return cl_array


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8)), \
        (got, want)


RNG = np.random.default_rng(7)
F32 = (RNG.standard_normal((3, 67)) * 1e3).astype(np.float32)
F32B = (RNG.standard_normal((3, 67)) * 1e-3).astype(np.float32)
I8 = RNG.integers(-128, 128, 200, dtype=np.int8)
I8B = RNG.integers(-128, 128, 200, dtype=np.int8)
I32 = RNG.integers(-2**31, 2**31, 130, dtype=np.int32)
U16 = RNG.integers(0, 2**16, 130, dtype=np.uint16)
F64 = RNG.standard_normal(130)


def test_round_trip_keeps_shape_and_dtype(queue, cl_array):
    for a in (F32, I8, F64, np.zeros((0,), np.int32), np.arange(6, dtype=np.uint64).reshape(2, 3)):
        _same(cl_array.to_device(queue, a).get(), a)
    z = cl_array.zeros(queue, (5, 3), np.int16)
    _same(z.get(), np.zeros((5, 3), np.int16))
    _same(cl_array.empty_like(z).fill(-3).get(), np.full((5, 3), -3, np.int16))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv"])
@pytest.mark.parametrize("a, b", [(F32, F32B), (I8, I8B), (I32, U16[:130].astype(np.int32) * 40000),
                                  (F64, U16)], ids=["f32", "i8", "i32", "f64-u16"])
def test_binary_operations_match_numpy(queue, cl_array, op, a, b):
    fn = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide}[op]
    if op == "truediv" and a.dtype.kind == "i":
        b = np.where(b == 0, 1, b).astype(b.dtype)          # no division by zero
    with np.errstate(all="ignore"):
        want = fn(a, b)
    got = getattr(cl_array.to_device(queue, a), f"__{op}__")(cl_array.to_device(queue, b))
    _same(got.get(), want)


def test_scalars_either_side_and_in_place(queue, cl_array):
    a = cl_array.to_device(queue, F32)
    _same((2 * a + 1).get(), 2 * F32 + 1)
    _same((1 / a).get(), np.float32(1) / F32)
    _same((3.5 - a).get(), 3.5 - F32)
    i = cl_array.to_device(queue, I8)
    _same((i * 3).get(), I8 * 3)                       # wraps as int8, as numpy
    _same((i / 2).get(), I8 / 2)                        # true division: float64
    _same((-i).get(), -I8)
    _same((-a).get(), -F32)
    a += cl_array.to_device(queue, F32B)
    _same(a.get(), F32 + F32B)
    a *= 2.0
    _same(a.get(), (F32 + F32B) * np.float32(2))
    with pytest.raises(TypeError, match="cannot cast"):
        i += 0.5                                        # numpy refuses float64 into int8 too
    u = cl_array.to_device(queue, U16)
    _same((-u).get(), -U16)


def test_astype_converts_as_numpy(queue, cl_array):
    x = np.array([-2.75, -0.5, 0.5, 1.5, 1e9, -1e9], np.float32)
    _same(cl_array.to_device(queue, x).astype(np.float64).get(), x.astype(np.float64))
    _same(cl_array.to_device(queue, x[:4]).astype(np.int32).get(), x[:4].astype(np.int32))
    _same(cl_array.to_device(queue, I32).astype(np.float32).get(), I32.astype(np.float32))


def test_what_is_not_emulated_says_so(queue, cl_array):
    import gcnemu.cl as cl
    a = cl_array.to_device(queue, F32)
    assert cl.array is cl_array
    for thing in (lambda: cl_array.sum(a), lambda: a.reshape(201), lambda: a[1:3],
                  lambda: cl_array.to_device(queue, np.ones(3, np.complex64))):
        with pytest.raises(cl.NotEmulatedError, match="not emulated"):
            thing()
    with pytest.raises(ValueError, match="shapes"):
        a + cl_array.to_device(queue, F32B[0])
    with pytest.raises(TypeError, match="to_device"):
        a + F32
