"""asm_f64: 40 dwords per work-item (8 waves). Layout (dword offsets):
 0 |a|-b  2 a*b  4 fma(a,b,-c)  6 min(a,b)  8 max(-a,c)  10 floor(a)  12 ceil(a)  14 trunc(a)
 16 rndne(a)  18 fract(a)  20 ldexp(a, (lane&7)-3)  22 frexp_mant(a)  24 frexp_exp(a) (i32)
 25 cvt_i32(a)  26 cvt_f64_i32(m)  28 cvt_f32_f64(c)  29 class(d, mask m) (0/1)
 30 cvt_f64_f32(cvt_f32_f64(c))  32 ldexp(a, -1040-(lane&15)) (f64 denormals, RNE)
 34 a*c (rounded)  36 b+c (rounded)  38 cvt_f64_u32(m).
a, b are multiples of 1/8 below 1024 in magnitude (products, fma, rounding ops exact);
c is a random double; d cycles through the ten v_cmp_class classes (bit 0 signalling NaN,
1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf)."""
import numpy as np

from kernels._ref import fma64
from kernels.corpus import Case, In, Out

GROUPS = 8
N = 64 * GROUPS
CLASS_BITS = np.array([0x7FF0000000000001, 0x7FF8000000000000, 0xFFF0000000000000,
                       0xC008000000000000, 0x800000000000ABCD, 0x8000000000000000, 0,
                       0x0000000000001234, 0x4000000000000000, 0x7FF0000000000000], np.uint64)


def classify(bits):
    b = int(bits)
    sign, exp, man = b >> 63, (b >> 52) & 0x7FF, b & ((1 << 52) - 1)
    if exp == 0x7FF:
        if man:
            return 1 if man >> 51 else 0
        return 2 if sign else 9
    if exp == 0:
        if man == 0:
            return 5 if sign else 6
        return 4 if sign else 7
    return 3 if sign else 8


def reference(a, b, c, d, m):
    lane = np.arange(N) % 64
    out = np.zeros((N, 40), np.uint32)

    def put(col, v):
        v = np.asarray(v)
        if v.dtype == np.float64:
            out[:, col:col + 2] = v.view(np.uint32).reshape(N, 2)
        else:
            out[:, col] = v.astype(np.int64).astype(np.uint64).astype(np.uint32)

    put(0, np.abs(a) - b)
    put(2, a * b)
    put(4, fma64(a, b, -c))
    put(6, np.minimum(a, b))
    put(8, np.maximum(-a, c))
    put(10, np.floor(a))
    put(12, np.ceil(a))
    put(14, np.trunc(a))
    put(16, np.rint(a))
    put(18, a - np.floor(a))
    put(20, np.ldexp(a, (lane & 7) - 3))
    mant, ex = np.frexp(a)
    put(22, mant)
    put(24, ex)
    put(25, np.trunc(a).astype(np.int64))
    put(26, m.view(np.int32).astype(np.float64))
    c32 = c.astype(np.float32)
    out[:, 28] = c32.view(np.uint32)
    out[:, 29] = [(int(mm) >> classify(dd)) & 1 for mm, dd in zip(m, d.view(np.uint64))]
    put(30, c32.astype(np.float64))
    put(32, np.ldexp(a, -1040 - (lane & 15)))
    put(34, a * c)
    put(36, b + c)
    put(38, m.astype(np.float64))
    return out.reshape(-1)


def case(rng):
    a = rng.integers(-8000, 8000, N) / 8.0
    b = rng.integers(-8000, 8000, N) / 8.0
    a[:8] = [0.0, 0.5, -0.5, 1.5, -2.5, 3.25, -1023.875, 2.0]
    c = rng.standard_normal(N) * 10.0 ** rng.integers(-20, 20, N)
    d = CLASS_BITS[np.arange(N) % 10].view(np.float64)
    m = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    with np.errstate(invalid="ignore"):
        want = reference(a, b, c, d, m)
    return Case("asm_f64", (N,), (64,),
                [In(a), In(b), In(c), In(d), In(m), Out(np.uint32, 40 * N)], {5: want})
