"""Exact float32 library functions. Inputs are normal floats with magnitudes in [2**-20, 2**20]
(no denormal results: gfx7 flushes f32 denormals). mad(x, y, 1) follows gfx7 v_mad_f32
(product rounded, unfused); fma is exact-rounded. fmod is exact by definition.
round() follows the compiled libclc code, not IEEE/C: it computes trunc(x) + (|x - trunc(x)|
>= 0.5 ? copysign(1, x) : +0.0), so round(x) for -0.5 < x < 0 is +0.0 (C gives -0.0);
a CPU OpenCL (pocl) returns -0.0 there -- the only difference kernels.pocl_check finds."""
import math
from fractions import Fraction

import numpy as np

from kernels._ref import fma32, mad32
from kernels.corpus import Case, In, Out

N = 1024


def fmod32(x, y):
    # exact remainder with the sign of x (representable: |r| < |y|, same grid as inputs)
    fx, fy = Fraction(float(x)), Fraction(float(y))
    q = abs(fx) // abs(fy)
    r = abs(fx) - q * abs(fy)
    return np.float32(math.copysign(float(r), float(x)))


def round_half_away(x):
    return np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))


def reference(a, b):
    a64 = a.astype(np.float64)
    o = np.zeros((N, 17), np.float32)
    o[:, 0] = np.floor(a)
    o[:, 1] = np.ceil(a)
    o[:, 2] = np.trunc(a)
    r = np.trunc(a64) + np.where(np.abs(a64 - np.trunc(a64)) >= 0.5, np.sign(a64), 0)
    o[:, 3] = r.astype(np.float32)
    o[:, 4] = np.rint(a)
    fl = np.floor(a)
    o[:, 5] = np.minimum(a - fl, np.float32(np.nextafter(np.float32(1), np.float32(0))))
    o[:, 6] = fl
    o[:, 7] = [fmod32(x, y) for x, y in zip(a, b)]
    o[:, 8] = np.fmin(a, b)
    o[:, 9] = np.fmax(a, b)
    o[:, 10] = mad32(a, b, np.ones(N, np.float32))
    o[:, 11] = fma32(a, b, -a)
    o[:, 12] = np.copysign(a, b)
    m, e = np.frexp(a)
    o[:, 13] = m
    k = np.fmod(np.trunc(b.astype(np.float64)), 20).astype(np.int64)  # (int)y % 20, C semantics
    o[:, 14] = np.ldexp(a, k)
    o[:, 15] = np.where(a > b, a - b, np.float32(0)) + np.abs(b)  # float32 ops
    ax, ay = np.abs(a), np.abs(b)
    mx = np.where(ax > ay, a, np.where(ay > ax, b, np.fmax(a, b)))
    mn = np.where(ax < ay, a, np.where(ay < ax, b, np.fmin(a, b)))
    o[:, 16] = mx - mn
    oi = np.stack([e.astype(np.int32), (e - 1).astype(np.int32)], 1)
    return o.reshape(-1), oi.reshape(-1)


def case(rng):
    def vals(n):
        v = (rng.uniform(1, 2, n) * 2.0 ** rng.integers(-20, 20, n)).astype(np.float32)
        return v * rng.choice(np.array([-1, 1], np.float32), n)
    a = vals(N)
    b = vals(N)
    half = rng.integers(-50, 50, 64).astype(np.float32) + np.float32(0.5)
    a[:64] = half  # .5 ties for round / rint
    a[64:80] = np.float32(3.0)
    b[64:80] = np.float32(-3.0)  # |x| == |y| for maxmag/minmag
    a[80:96] = rng.integers(-1000, 1000, 16).astype(np.float32)  # integers
    of, oi = reference(a, b)
    return Case("floatmath", (N,), (64,), [In(a), In(b), Out(np.float32, 17 * N),
                                           Out(np.int32, 2 * N)], {2: of, 3: oi})
