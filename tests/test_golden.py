"""The golden-output helpers and fixtures, used the way a user would use them."""
import numpy as np
import pytest

from gcnemu.golden import In, InOut, Out, ulp_distance


def test_saxpy_with_fixtures(run_kernel, assert_close_ulp):
    n = 1000
    x = np.linspace(-3, 3, n).astype(np.float32)
    y = np.arange(n, dtype=np.float32)
    outs = run_kernel("kernels/saxpy/kernel.hsaco", "saxpy", (1024,), (256,),
                      [InOut(y), In(x), np.float32(2.5), np.uint32(n)])
    # clang contracts a*x+y into v_mac_f32 (kernel.lst), which rounds the product, then the sum
    want = np.float32(2.5) * x + y
    assert_close_ulp(outs[0], want, ulp=0)


def test_ulp_distance_against_nextafter():
    a = np.array([1.0, -0.0, 0.0, np.nan, 1.0], np.float32)
    b = np.array([np.nextafter(np.float32(1), np.float32(2)), 0.0, -np.float32(1e-45), np.nan, np.nan],
                 np.float32)
    assert list(ulp_distance(a, b)) == [1, 0, 1, 0, 2**64 - 1]


def test_assert_close_ulp_reports_first_mismatch(assert_close_ulp):
    with pytest.raises(AssertionError, match="index \\(2,\\)"):
        assert_close_ulp(np.array([1, 2, 3]), np.array([1, 2, 4]))
    assert_close_ulp(np.float32([1.0]), np.float32([1.0000001]), ulp=1)
    with pytest.raises(AssertionError, match="1 ulp apart"):
        assert_close_ulp(np.float32([1.0]), np.float32([1.0000001]), ulp=0)


def test_out_buffers_are_zero_filled_and_read_back(run_kernel):
    outs = run_kernel("kernels/saxpy/kernel.hsaco", "saxpy", (64,), (64,),
                      [Out(np.float32, 64), In(np.full(64, 3, np.float32)), np.float32(2), np.uint32(64)])
    assert outs[0].dtype == np.float32 and np.array_equal(outs[0], np.full(64, 6, np.float32))
