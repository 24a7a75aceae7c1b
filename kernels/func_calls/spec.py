"""Calls to non-inlined functions (see kernel.lst: s_swappc_b64, scratch stack).
poly() evaluates with small integers: every float result is exact (|r| < 2**24)."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024
M = 0xFFFFFFFF


def mix(a, b, c):
    a = (a - c) & M
    a ^= ((c << 4) | (c >> 28)) & M
    c = (c + b) & M
    b = (b - a) & M
    b ^= ((a << 6) | (a >> 26)) & M
    a = (a + c) & M
    c = (c - b) & M
    c ^= ((b << 8) | (b >> 24)) & M
    b = (b + a) & M
    return a ^ b ^ c


def reference(x):
    out = np.empty(N, np.uint32)
    fout = np.empty(N, np.float32)
    for i, v in enumerate(x.tolist()):
        n = 8 + (v & 15)
        buf = [mix(v, k, v ^ k) for k in range(n)]
        acc = sum(b * (k + 1) for k, b in enumerate(buf)) & M
        out[i] = mix(acc, v, i)
        xf, deg = float((v & 7) - 3), (v >> 3) & 7
        r = 1.0
        for k in range(deg):
            r = r * xf + k
        fout[i] = r
    return out, fout


def case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    out, fout = reference(x)
    return Case("func_calls", (N,), (64,), [In(x), Out(np.uint32, N), Out(np.float32, N)],
                {1: out, 2: fout})
