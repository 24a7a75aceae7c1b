"""erf, erfc, tgamma, sinpi, cospi, tanpi, atan2pi, pown, powr, hypot, log2, cbrt, exp2, and
sin/cos of large arguments (|arg| up to 1.8e7). Arguments the kernel computes in float are
computed in float32 here; each function is evaluated in float64 (Python math / numpy) and
compared with the OpenCL 1.2 single-precision bound: 16,16,16,4,4,6,6,16,16,4,3,2,3,4,4 ulp."""
import math

import numpy as np

from kernels.corpus import Case, In, Out

N = 256
F = np.float32
BOUNDS = np.array([16, 16, 16, 4, 4, 6, 6, 16, 16, 4, 3, 2, 3, 4, 4])


def case(rng):
    x = rng.uniform(-6, 6, N).astype(F)
    y = rng.uniform(-5, 5, N).astype(F)
    r = np.zeros((N, 15))
    for i in range(N):
        xi, yi = float(x[i]), float(y[i])
        r[i, 0] = math.erf(xi)
        r[i, 1] = math.erfc(xi)
        r[i, 2] = math.gamma(float(F(abs(x[i]) + F(0.1))))
        r[i, 3] = math.sin(math.pi * yi)
        r[i, 4] = math.cos(math.pi * yi)
        r[i, 5] = math.tan(math.pi * float(F(y[i] * F(0.2))))
        r[i, 6] = math.atan2(xi, yi) / math.pi
        r[i, 7] = xi ** (i % 9 - 4)
        r[i, 8] = float(F(abs(y[i]) + F(0.01))) ** xi
        r[i, 9] = math.hypot(float(F(x[i] * F(1e20))), float(F(y[i] * F(1e20))))
        r[i, 10] = math.log2(abs(float(F(x[i] * y[i]))))
        v = float(F(F(x[i] * y[i]) * F(100)))
        r[i, 11] = math.copysign(abs(v) ** (1 / 3), v)
        r[i, 12] = 2.0 ** float(F(x[i] * F(5)))
        r[i, 13] = math.sin(float(F(y[i] * F(1e5))))
        r[i, 14] = math.cos(float(F(x[i] * F(3e6))))
    # sinpi/cospi via math.sin(pi*y) lose accuracy for |y| up to 5: use exact reduction
    yr = np.array([math.remainder(float(t), 2.0) for t in y])
    r[:, 3] = np.sin(np.pi * yr)
    r[:, 4] = np.cos(np.pi * yr)
    return Case("math_more", (N,), (64,), [In(x), In(y), Out(F, 15 * N)],
                {2: r.astype(F)}, ulp=16, ulp_per_arg={2: BOUNDS},
                note="OpenCL 1.2 single-precision ULP bounds per function (table 7.1)")
