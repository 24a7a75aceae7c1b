"""asm_vop3_mods: per lane 16 raw 32-bit results (floats as their bit patterns, r13 an int).

Inputs are nonzero multiples of 1/4 in [-8, 8], so every result is exactly representable and
no zero-sign ambiguity arises in min/max. Semantics (CLRX GcnInstrsVop3 / Vopc):
input modifiers apply abs then neg; output: result * omod (mul:2, mul:4, div:2), then clamp to
[0, 1]; v_cndmask_b32 D = cond ? S1 : S0; v_cmpx writes EXEC (and VCC); v_mul_legacy_f32
gives +0.0 when either operand is 0 (even for a negative other operand); v_cvt_i32_f32
truncates; v_subrev D = S1 - S0; v_mad_f32 rounds the product (exact here)."""
import numpy as np

from kernels.corpus import Case, In, Out

GROUPS = 16
N = 64 * GROUPS


def reference(a, b, c):
    f = np.float32
    r = np.zeros((N, 16), np.float32)
    clamp = lambda v: np.clip(v, f(0), f(1)).astype(np.float32)  # noqa: E731
    r[:, 0] = np.abs(a) - b
    r[:, 1] = clamp(a * b)
    r[:, 2] = (a + b) * f(2)
    r[:, 3] = (a - b) * f(0.5)
    r[:, 4] = (-np.abs(a) * b + c) * f(4)
    r[:, 5] = clamp(np.maximum(-a, np.abs(b)))
    r[:, 6] = np.where(a > b, b, a)
    r[:, 7] = np.where(a < c, f(2) * c, f(-1))
    r[:, 8] = np.minimum(np.minimum(a, -b), c)
    r[:, 9] = np.median(np.stack([a, b, c]), axis=0)
    r[:, 10] = a * b - c  # exact: products of quarter-multiples fit in 24 bits
    lid = np.arange(N) % 64
    r[:, 11] = np.where(lid % 4 == 0, c, b)
    r[:, 12] = f(0.0)
    r[:, 14] = clamp((a - b) * f(2))
    r[:, 15] = (c - np.abs(a)) * f(0.5)
    u = r.view(np.uint32)
    u[:, 13] = (-np.trunc(np.abs(c))).astype(np.int32).view(np.uint32)
    return u.reshape(-1)


def case(rng):
    def vals():
        v = rng.integers(1, 33, N) * rng.choice([-1, 1], N)
        return (v / 4).astype(np.float32)
    a, b, c = vals(), vals(), vals()
    b[:8] = a[:8]  # equal operands: a - b = +0
    c[8:16] = a[8:16]
    return Case("asm_vop3_mods", (N,), (64,), [In(a), In(b), In(c), Out(np.uint32, 16 * N)],
                {3: reference(a, b, c)})
