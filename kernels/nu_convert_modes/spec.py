"""convert_* with explicit rounding modes and saturation (OpenCL 1.2 6.2.3):
double->float rte/rtz/rtp/rtn (incl. overflow: rtz/rtn of +huge is FLT_MAX), long->float
rte/rtz, uint->float rtn/rtp, double->int/uint _sat (NaN -> 0), float->short/ushort _sat,
long->short _sat, char4/uchar4 _sat vectors. convert_short_rtz (no _sat) of an out-of-range
value is undefined in OpenCL: the binary does v_cvt_i32_f32 (saturating) and keeps the low
16 bits, which the reference models. Values are kept away from the libclc int->float
rtz/rtn quirk near 2**32 (documented in kernels/README.md) and from f32 denormals."""
import math
from fractions import Fraction

import numpy as np

from kernels._ref import ftz32, round_fraction_f32
from kernels.corpus import Case, In, Out

N = 512
INF = np.float32(np.inf)


def rnd(fr, mode):
    """float32 rounding of the exact rational fr (no denormals in these inputs)."""
    r = np.float32(round_fraction_f32(fr))
    if mode == "rte":
        return r
    rv = Fraction(float(r)) if np.isfinite(r) else (Fraction(2) ** 200 if r > 0 else -Fraction(2) ** 200)
    if mode == "rtz":
        return np.nextafter(r, np.float32(0)) if abs(rv) > abs(fr) else r
    if mode == "rtp":
        return np.nextafter(r, INF) if rv < fr else r
    if mode == "rtn":
        return np.nextafter(r, -INF) if rv > fr else r
    raise ValueError(mode)


def sat(v, lo, hi):
    return int(min(max(v, lo), hi))


def f2i(v, mode, lo, hi):
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return hi if v > 0 else lo
    fn = {"rtz": math.trunc, "rte": round, "rtp": math.ceil, "rtn": math.floor}[mode]
    return sat(fn(v), lo, hi)  # Python round() is half-to-even


def case(rng):
    d = rng.uniform(-3e9, 3e9, N)
    d[::4] = rng.uniform(-300, 300, N // 4)
    d[1::8] = np.round(rng.uniform(-1000, 1000, N // 8)) + 0.5   # halves
    d[2::16] = rng.choice([1e39, -1e39, 3.4028235677973366e38, 1e-30, -1e-30, 0.1, 1 / 3, 2.0 ** 31,
                           -2.0 ** 31 - 0.5, 4294967295.5, -0.0, 0.0], N // 16)
    d[3] = np.nan
    d[4] = np.inf
    f = rng.uniform(-80000, 80000, N).astype(np.float32)
    f[::3] = np.round(rng.uniform(-200, 200, (N + 2) // 3)).astype(np.float32) + np.float32(0.5)
    f[5], f[6], f[7] = np.nan, 3e10, -3e10
    lo = rng.integers(-2**62, 2**62, N, dtype=np.int64)
    lo[::5] = rng.integers(-2**40, 2**40, (N + 4) // 5)
    lo[1::5] = rng.integers(-2**20, 2**20, (N + 3) // 5)
    lo &= ~np.int64(0x80000000)  # (uint)z below 2**31: away from the rtz/rtn quirk at 2**32
    of = np.zeros((N, 8), np.float32)
    oi = np.zeros((N, 4), np.int32)
    os_ = np.zeros((N, 4), np.int16)
    oc = np.zeros((2, N, 4), np.int8)
    for i in range(N):
        x, y, z = float(d[i]), float(f[i]), int(lo[i])
        if math.isnan(x):
            of[i, :4] = np.nan
        elif math.isinf(x) or x == 0.0:
            of[i, :4] = np.float32(x)  # exact in every mode, sign kept (-0.0)
        else:
            fx = Fraction(x)
            of[i, :4] = [rnd(fx, m) for m in ("rte", "rtz", "rtp", "rtn")]
        uz = z & 0xFFFFFFFF
        of[i, 4:] = [rnd(Fraction(z), "rte"), rnd(Fraction(z), "rtz"),
                     rnd(Fraction(uz), "rtn"), rnd(Fraction(uz), "rtp")]
        oi[i] = [f2i(x, "rtz", -2**31, 2**31 - 1), f2i(x, "rte", -2**31, 2**31 - 1),
                 np.uint32(f2i(x, "rtp", 0, 2**32 - 1)).view(np.int32),
                 sat(z >> 20, -2**31, 2**31 - 1)]
        ys = float(ftz32(np.float32(f[i] * np.float32(0.001))))
        t = 0 if math.isnan(ys) else sat(math.trunc(ys), -2**31, 2**31 - 1) if not math.isinf(ys) else 0
        os_[i] = [f2i(y, "rtn", -32768, 32767), sat(z, -32768, 32767),
                  np.uint16(f2i(y, "rte", 0, 65535)).view(np.int16),
                  np.uint16(t & 0xFFFF).view(np.int16)]
        fy = np.float32(f[i])
        c4 = [fy, -fy, fy * np.float32(0.25), ftz32(fy * np.float32(100.0))]
        oc[0, i] = [f2i(float(v), "rte", -128, 127) for v in c4]
        zz = [np.int64(z >> s).astype(np.int32) for s in (0, 8, 16, 24)]
        oc[1, i] = np.array([sat(int(v), 0, 255) for v in zz], np.uint8).view(np.int8)
    return Case("convert_modes", (N,), (64,),
                [In(d), In(f), In(lo), Out(np.float32, 8 * N), Out(np.int32, 4 * N),
                 Out(np.int16, 4 * N), Out(np.int8, 8 * N)],
                {3: of.reshape(-1), 4: oi.reshape(-1), 5: os_.reshape(-1), 6: oc.reshape(-1)})
