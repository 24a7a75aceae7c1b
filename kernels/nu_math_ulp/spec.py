"""float built-ins. approx: asin, acos, sinh, cosh, tanh, expm1, log1p, exp10, log10,
asinh, atan, rootn(.,3) against float64 numpy rounded to float32, with the OpenCL 1.2
single-precision bounds (4,4,4,4,5,3,2,3,3,4,5,16 ulp). exact: fdim, remainder, remquo
(quotient's low 3 bits and sign), nextafter, modf, logb, maxmag, minmag, copysign, frexp,
ldexp, ilogb, which OpenCL specifies exactly (0 ulp)."""
import math
from fractions import Fraction

import numpy as np

from kernels._ref import ftz32
from kernels.corpus import Case, In, Out

N = 512
BOUNDS = np.array([4, 4, 4, 4, 5, 3, 2, 3, 3, 4, 5, 16])


def case(rng):
    x = rng.uniform(-6, 6, N).astype(np.float32)
    y = rng.uniform(-5, 5, N).astype(np.float32)
    x = np.where(np.abs(x) < 0.01, np.float32(0.5), x).astype(np.float32)
    y = np.where(np.abs(y) < 0.01, np.float32(-0.75), y).astype(np.float32)
    y[0:8] = -x[0:8]        # ties for maxmag/minmag, zero remainders
    y[8:16] = x[8:16]       # nextafter(x, x) == x
    y[16:24] = x[16:24] / 4  # exact quotients
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    ax = np.abs(x64)
    approx = np.stack([np.arcsin(x64 / 8), np.arccos(x64 / 8), np.sinh(x64), np.cosh(x64),
                       np.tanh(x64), np.expm1(x64), np.log1p(ax), 10.0 ** x64, np.log10(ax),
                       np.arcsinh(y64), np.arctan(y64), np.cbrt(ax)], axis=1).astype(np.float32)
    exact = np.zeros((N, 12), np.float32)
    ints = np.zeros((N, 3), np.int32)
    for i in range(N):
        xi, yi = float(x[i]), float(y[i])
        exact[i, 0] = ftz32(np.float32(x[i] - y[i])) if xi > yi else 0.0
        r = math.remainder(xi, yi)
        exact[i, 1] = exact[i, 2] = r
        k = int((Fraction(xi) - Fraction(r)) / Fraction(yi))
        ints[i, 0] = -((-k) & 7) if k < 0 else (k & 7)
        exact[i, 3] = np.nextafter(x[i], y[i])
        v = np.float32(x[i] * np.float32(3.7))
        ip = np.trunc(v)
        exact[i, 4] = np.copysign(np.float32(v - ip), v)
        exact[i, 5] = ip
        m, e = math.frexp(yi)
        exact[i, 6] = e - 1
        if abs(xi) > abs(yi):
            exact[i, 7], exact[i, 8] = xi, yi
        elif abs(yi) > abs(xi):
            exact[i, 7], exact[i, 8] = yi, xi
        else:
            exact[i, 7], exact[i, 8] = max(xi, yi), min(xi, yi)
        exact[i, 9] = math.copysign(abs(yi), xi)
        exact[i, 10] = m
        ints[i, 1] = e
        n = int(np.float32(y[i] * np.float32(4.0)))
        exact[i, 11] = math.ldexp(xi, n)
        ints[i, 2] = math.frexp(xi)[1] - 1
    return Case("math_ulp", (N,), (64,),
                [In(x), In(y), Out(np.float32, 12 * N), Out(np.float32, 12 * N),
                 Out(np.int32, 3 * N)],
                {2: approx, 3: exact, 4: ints.reshape(-1)}, ulp=16,
                ulp_per_arg={2: BOUNDS, 3: 0},
                note="approx columns: OpenCL 1.2 single-precision ULP bounds per function")
