"""float32 division, sqrt, rsqrt and libclc transcendentals; 2048 work-items, 17 results each.

Not bit-exact by nature: the compiled code builds on v_rcp_f32, v_sqrt_f32, v_exp_f32,
v_log_f32 (approximate hardware ops) with libclc polynomial / table code on top (sin/cos use
a Payne-Hanek table in the code object's read-only data, reached with s_getpc_b64). The
reference is float64 numpy rounded to float32; each column is allowed the OpenCL 1.2
full-profile ULP bound of its function (native_* have no spec bound: 2-4 ulp allowed for
single hardware ops). Domains avoid denormal results (gfx7 flushes f32 denormals) and keep
native_log2 away from x = 1 (absolute, not relative, error there)."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 2048
#            /  sqrt rsqrt exp exp2 log log2 sin cos tan atan2 pow cbrt hypot nrcp nexp2 nlog2
ULP = np.array([3, 3, 2, 3, 3, 3, 3, 4, 4, 5, 6, 16, 2, 4, 2, 4, 4])


def reference(a, b):
    x = a.astype(np.float64)
    y = b.astype(np.float64)
    cols = [x / y, np.sqrt(x), 1 / np.sqrt(x), np.exp(y), np.exp2(y), np.log(x), np.log2(x),
            np.sin(y), np.cos(y), np.tan(y), np.arctan2(y, x), np.power(x, y), np.cbrt(y),
            np.hypot(x, y), 1 / x, np.exp2(y), np.log2(x)]
    return np.stack(cols, 1).astype(np.float32)


def case(rng):
    a = np.exp(rng.uniform(np.log(0.05), np.log(200), N)).astype(np.float32)
    a[np.abs(a - 1) < 0.1] = 0.5
    b = rng.uniform(-8, 8, N).astype(np.float32)
    b[:8] = [0.5, -0.5, 1.0, 3.0, -3.0, 7.5, 1.5707964, 3.1415927]
    return Case("f32_transc", (N,), (64,), [In(a), In(b), Out(np.float32, 17 * N)],
                {2: reference(a, b)}, ulp=16, ulp_per_arg={2: ULP},
                note="approximate hardware ops under libclc; per-column OpenCL 1.2 ULP bounds "
                     "(ulp_per_arg[2] holds one bound per column)")
