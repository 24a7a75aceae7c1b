"""double fma (exact-rounded), min/max, rounding functions, copysign, ldexp, frexp, fmod
(exact), double->float->double, compares, double->long. f64 denormals are enabled on gfx7
(FP_DENORM 16/64 = 3), so no flushing in the reference.
round() follows the compiled libclc code, not IEEE/C: it computes trunc(x) + (|x - trunc(x)|
>= 0.5 ? copysign(1, x) : +0.0), so round(x) for -0.5 < x < 0 is +0.0 (C gives -0.0);
a CPU OpenCL (pocl) returns -0.0 there -- the only difference kernels.pocl_check finds."""
import math
from fractions import Fraction

import numpy as np

from kernels._ref import fma64
from kernels.corpus import Case, In, Out

N = 1024


def fmod64(x, y):
    fx, fy = Fraction(x), Fraction(y)
    q = abs(fx) // abs(fy)
    return math.copysign(float(abs(fx) - q * abs(fy)), x)


def reference(a, b, c):
    o = np.empty((N, 14), np.float64)
    o[:, 0] = fma64(a, b, c)
    o[:, 1] = np.fmin(a, b)
    o[:, 2] = np.fmax(a, c)
    o[:, 3] = np.floor(a)
    o[:, 4] = np.ceil(b)
    o[:, 5] = np.trunc(c)
    o[:, 6] = np.rint(a)
    tb = np.trunc(b)
    o[:, 7] = tb + np.where(np.abs(b - tb) >= 0.5, np.sign(b), 0)
    o[:, 8] = np.copysign(np.abs(a), b)
    o[:, 9] = np.ldexp(a, (np.arange(N) % 64) - 32)
    m, e = np.frexp(b)
    o[:, 10] = m
    o[:, 11] = [fmod64(x, y) for x, y in zip(a.tolist(), b.tolist())]
    o[:, 12] = c.astype(np.float32).astype(np.float64)
    o[:, 13] = np.where(a < b, a * 2.0, np.where(a == b, 0.0, -b))
    ol = np.empty((N, 3), np.int64)
    ol[:, 0] = e
    ol[:, 1] = np.trunc(c * 1024.0).astype(np.int64)
    ol[:, 2] = (a < b) + 2 * (b >= c) + 4 * np.signbit(c)
    return o.reshape(-1), ol.reshape(-1)


def case(rng):
    a = rng.standard_normal(N) * 2.0 ** rng.integers(-40, 40, N)
    b = rng.standard_normal(N) * 2.0 ** rng.integers(-40, 40, N)
    c = rng.standard_normal(N) * 2.0 ** rng.integers(-20, 30, N)
    a[:32] = np.arange(-16, 16) + 0.5  # ties for rint
    b[:32] = np.arange(-16, 16) + 0.5  # ties for round
    b[32:48] = a[32:48]
    od, ol = reference(a, b, c)
    return Case("fp64_math", (N,), (64,), [In(a), In(b), In(c), Out(np.float64, 14 * N),
                                           Out(np.int64, 3 * N)], {3: od, 4: ol})
