"""f64 add/sub/mul (IEEE), division (LLVM's v_div_scale/v_rcp_f64/v_fma_f64/v_div_fmas/
v_div_fixup expansion: correctly rounded), sqrt (libclc: v_rsq_f64 seed scaled with
v_ldexp_f64 + v_cmp_class_f64, then fma Newton-Raphson refinement).

x + y - 0.5*y compiles to v_add_f64 then v_fma_f64(y, -0.5, x+y): the reference uses an
exact fma."""
import numpy as np

from kernels._ref import fma64
from kernels.corpus import Case, In, Out

N = 2048


def case(rng):
    a = rng.standard_normal(N) * 10.0 ** rng.integers(-30, 30, N)
    b = rng.standard_normal(N) * 10.0 ** rng.integers(-30, 30, N)
    a[:4] = [1.0, 0.0, -2.0, 1e300]
    b[:4] = [3.0, 5.0, 7.0, 1e-10]  # 1e300/1e-10 overflows to inf
    with np.errstate(over="ignore"):
        s = fma64(b, np.full(N, -0.5), a + b)
        q = a / b
    r = np.sqrt(np.abs(a))
    return Case("fp64_arith", (N,), (128,),
                [In(a), In(b), Out(np.float64, N), Out(np.float64, N), Out(np.float64, N),
                 Out(np.float64, N), np.uint32(N)],
                {2: s, 3: a * b, 4: q, 5: r}, ulp=0, ulp_per_arg={5: 1},
                note="sum/product/quotient bit-exact (the division expansion is correctly "
                     "rounded); sqrt 1 ulp: libclc refines a v_rsq_f64 seed with two fma "
                     "Newton steps, correctly rounded for an accurate seed but not proven so")
