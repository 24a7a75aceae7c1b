"""Ten scalar arguments: char, short, int, long, float, double, uint, ulong, uchar, ushort
(kernarg offsets 0, 2, 4, 8, 16, 24, 32, 40, 48, 50; see the code object metadata)."""
import numpy as np

from kernels._ref import fma64
from kernels.corpus import Case, Out

N = 256


def case(rng):
    c = np.int8(-100)
    s = np.int16(-12345)
    i = np.int32(rng.integers(-2**31, 2**31))
    l = np.int64(rng.integers(-2**63, 2**63, dtype=np.int64))
    f = np.float32(-3.25)
    d = np.float64(rng.standard_normal())
    u = np.uint32(rng.integers(0, 2**32))
    ul = np.uint64(rng.integers(0, 2**64, dtype=np.uint64))
    uc = np.uint8(250)
    us = np.uint16(65000)
    echo = np.array([int(c) & (2**64 - 1), int(s) & (2**64 - 1), int(i) & (2**64 - 1),
                     int(l) & (2**64 - 1), int(f.view(np.uint32)), int(d.view(np.uint64)), int(u),
                     int(ul), int(uc), int(us)], dtype=np.uint64)
    g = np.arange(N)
    # left-to-right double adds; clang contracts (double)f*d + t into v_fma_f64 (kernel.lst),
    # so the reference uses an exact fma there (c*g and i*0.5 are exact products anyway)
    mix = reference_mix(c, s, i, l, f, d, u, ul, uc, us, g)
    return Case("scalar_args", (N,), (64,), [c, s, i, l, f, d, u, ul, uc, us,
                                             Out(np.uint64, 10), Out(np.float64, N)],
                {10: echo, 11: mix})


def reference_mix(c, s, i, l, f, d, u, ul, uc, us, g):
    c, s, i, f, d = float(c), float(s), float(i), float(f), float(d)
    out = np.empty(len(g), np.float64)
    for k in g:
        t = c * float(k) + s
        t = t + i * 0.5
        t = t + float(int(l) >> 20)
        t = float(fma64([f], [d], [t])[0]) if FMA_FD else t + f * d
        t = t + float(int(u) ^ int(k))
        t = t + float(int(ul) >> 40)
        t = t + float(int(uc))
        t = t - float(int(us))
        out[k] = t
    return out


FMA_FD = True
