"""double libm: sin/cos (arguments up to 1e15: long argument reduction), tan, exp, log,
pow, atan2, cbrt, erf, log1p, sinh, asin, against glibc float64 (numpy/math), with the
OpenCL 1.2 double-precision bounds (4,4,5,3,3,16,6,2,16,2,4,4 ulp) plus 1 ulp for the
reference's own rounding."""
import math

import numpy as np

from kernels.corpus import Case, In, Out

N = 256
BOUNDS = np.array([4, 4, 5, 3, 3, 16, 6, 2, 16, 2, 4, 4]) + 1


def case(rng):
    x = rng.uniform(-10, 10, N)
    x[::4] = rng.uniform(1e5, 1e15, N // 4) * rng.choice([-1, 1], N // 4)
    x[1::8] = rng.uniform(-1e-3, 1e-3, N // 8)
    y = rng.uniform(-5, 5, N)
    r = np.stack([np.sin(x), np.cos(x), np.tan(y), np.exp(y), np.log(np.abs(x) + 1e-300),
                  np.power(np.abs(y) + 0.5, y * 3.0), np.arctan2(y, x), np.cbrt(x),
                  np.array([math.erf(t) for t in y]), np.log1p(np.abs(y)), np.sinh(y),
                  np.arcsin(y / 50.0)], axis=1)
    return Case("math_f64", (N,), (64,), [In(x), In(y), Out(np.float64, 12 * N)], {2: r},
                ulp=17, ulp_per_arg={2: BOUNDS},
                note="OpenCL 1.2 double-precision ULP bounds + 1 for the float64 reference")
