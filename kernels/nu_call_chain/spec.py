"""Five levels of __attribute__((noinline)) helpers (private arrays by pointer, a struct
returned by value, out-parameters); reference mirrors the C with int32 wrap-around."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 256


def w32(v):
    return ((v + 2**31) % 2**32) - 2**31


def level3(g, base, n):
    v = [int(t) for t in g[base:base + 8]]
    for k in range(n):
        v[k] = w32(v[k] ^ w32(base + k))
    s = 0
    for k in range(n):
        s = w32(s * 31 + v[k])
    lo = w32(s + base)
    hi = w32(v[n - 1] - v[0])
    return lo, hi, np.float32(lo) * np.float32(0.5)


def level2(g, base, n):
    lo, hi, f = level3(g, base, n)
    return np.float32(f + np.float32(lo & 0xFF)), hi


def case(rng):
    g = rng.integers(-2**31, 2**31, 8 * N).astype(np.int32)
    outf = np.empty(N, np.float32)
    outi = np.empty(N, np.int32)
    for i in range(N):
        f, extra = level2(g, i * 8, 1 + i % 8)
        if i & 1:
            f2, e2 = level2(g, i * 8, 8)
            f = np.float32(f - f2)
            extra = w32(extra + e2)
        outf[i], outi[i] = f, extra
    return Case("call_chain", (N,), (64,), [In(g), Out(np.float32, N), Out(np.int32, N)],
                {1: outf, 2: outi})
