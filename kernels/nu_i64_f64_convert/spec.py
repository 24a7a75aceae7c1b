"""64-bit integer <-> floating conversions (software sequences on gfx7): long/ulong ->
double rte/rtz/rtp/rtn, long/ulong -> float, double -> long/ulong _sat with rtz/rte/rtn/rtp
(NaN -> 0, out of range saturates). Exact references from rationals. Integer inputs stay
below 2**62 in magnitude for the rtz/rtp/rtn conversions (libclc's mode conversions convert
the rounded result back to an integer, which overflows at 2**63).

libclc-14 quirk, reproduced: convert_long_sat*(x) tests x > (double)LONG_MAX, and
(double)LONG_MAX rounds to 2**63, so x == 2**63 exactly is not caught and goes through the
plain f64 -> i64 expansion (hi = v_cvt_i32_f64(floor(x * 2**-32)) saturates to 0x7fffffff,
lo = v_cvt_u32_f64(fma(hi, -2**32, x)) = 0): 0x7fffffff00000000. Likewise
convert_ulong_sat*(2**64) gives 0xffffffff00000000. (The listing shows the compares against
0x43e00000_00000000 and 0x43f00000_00000000 with v_cmp_nlt_f64.)"""
import math
from fractions import Fraction

import numpy as np

from kernels._ref import round_fraction_f32
from kernels.corpus import Case, In, Out

N = 512
L = 2**63


def rnd64(fr, mode):
    r = float(fr)  # exact round-to-nearest-even
    rv = Fraction(r)
    if mode == "rtz" and abs(rv) > abs(fr):
        r = math.nextafter(r, 0.0)
    elif mode == "rtp" and rv < fr:
        r = math.nextafter(r, math.inf)
    elif mode == "rtn" and rv > fr:
        r = math.nextafter(r, -math.inf)
    return r


def f2l(v, mode, lo, hi):
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return hi if v > 0 else lo
    if v == hi + 1:  # exactly 2**63 / 2**64: the libclc quirk described above
        return hi - 0xFFFFFFFF
    fn = {"rtz": math.trunc, "rte": round, "rtp": math.ceil, "rtn": math.floor}[mode]
    return min(max(fn(v), lo), hi)


def case(rng):
    l = rng.integers(-2**62, 2**62, N, dtype=np.int64)
    l[::4] = rng.integers(-2**54, 2**54, N // 4)
    l[1::8] = (rng.integers(2**52, 2**53, N // 8) * 2 + 1) * rng.choice([-1, 1], N // 8)
    l[2::8] = rng.integers(-2**31, 2**31, N // 8)
    l[:6] = [0, 1, -1, 2**53 + 1, -(2**53 + 3), 2**62 - 1]
    d = rng.uniform(-2e19, 2e19, N)
    d[::3] = rng.uniform(-1e6, 1e6, (N + 2) // 3)
    d[1::6] = np.round(rng.uniform(-1e4, 1e4, len(d[1::6]))) + 0.5
    d[:12] = [np.nan, np.inf, -np.inf, -0.5, 0.5, 2.0**63, -2.0**63, 2.0**64, 1e300,
              -1e300, -0.0, 1.5]
    od = np.zeros((N, 6))
    of = np.zeros((N, 4), np.float32)
    ol = np.zeros((N, 5), np.int64)
    for i in range(N):
        x = int(l[i])
        ux = x & (2**64 - 1)
        od[i] = [rnd64(Fraction(x), "rte"), rnd64(Fraction(ux), "rte"), rnd64(Fraction(x), "rtz"),
                 rnd64(Fraction(ux >> 1), "rtp"), rnd64(Fraction(x), "rtn"), float(x >> 11)]
        of[i] = [round_fraction_f32(Fraction(x)), round_fraction_f32(Fraction(ux)),
                 round_fraction_f32(Fraction(x >> 40)), round_fraction_f32(Fraction(ux >> 3))]
        y = float(d[i])
        vals = [f2l(y, "rtz", -L, L - 1), f2l(y, "rtz", 0, 2**64 - 1), f2l(y, "rte", -L, L - 1),
                f2l(y * 0.5, "rtn", -L, L - 1), f2l(y, "rtp", 0, 2**64 - 1)]
        ol[i] = [v - 2**64 if v >= L else v for v in vals]
    return Case("i64_f64_convert", (N,), (64,),
                [In(l), In(d), Out(np.float64, 6 * N), Out(np.float32, 4 * N),
                 Out(np.int64, 5 * N)],
                {2: od.reshape(-1), 3: of.reshape(-1), 4: ol.reshape(-1)})
