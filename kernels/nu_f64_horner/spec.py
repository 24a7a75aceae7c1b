"""double: row dot products (acc += a*b contracts to v_fma_f64, so a fused recurrence),
Horner with fma() and with p*x+c (also contracted to fma: both columns equal), exp/log/sin
(OpenCL 1.2 double bounds: 3, 3, 4 ulp vs numpy) and sqrt (correctly rounded)."""
import numpy as np

from kernels._ref import fma64
from kernels.corpus import Case, In, Out

N, LEN = 256, 24


def case(rng):
    a = rng.uniform(-1, 1, (N, LEN))
    b = rng.uniform(-1, 1, LEN)
    coef = rng.uniform(-2, 2, 9)
    xs = rng.uniform(-3, 3, N)
    dots = np.zeros(N)
    for k in range(LEN):
        dots = fma64(a[:, k], np.full(N, b[k]), dots)
    p = np.full(N, coef[-1])
    for k in range(len(coef) - 2, -1, -1):
        p = fma64(p, xs, np.full(N, coef[k]))
    poly = np.stack([p, p], axis=1).reshape(-1)
    lib = np.stack([np.exp(xs), np.log(np.abs(xs) + 0.5), np.sin(xs * 3.0),
                    np.sqrt(np.abs(dots))], axis=1)
    return Case("f64_horner", (N,), (64,),
                [In(a), In(b), In(coef), np.int32(len(coef)), In(xs), Out(np.float64, N),
                 Out(np.float64, 2 * N), Out(np.float64, 4 * N), np.int32(LEN)],
                {5: dots, 6: poly, 7: lib}, ulp=4,
                ulp_per_arg={5: 0, 6: 0, 7: np.array([3, 3, 4, 0])},
                note="libm columns: OpenCL 1.2 double ULP bounds exp 3, log 3, sin 4; sqrt exact")
