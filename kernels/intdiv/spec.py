"""int/uint and long/ulong division and remainder; C semantics: quotient truncates toward
zero, remainder has the dividend's sign. No division by zero, no INT_MIN / -1."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024


def cdiv(x, y):
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def reference(a, b, bits):
    m = (1 << bits) - 1
    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        q = cdiv(x, y)
        ux, uy = x & m, y & m
        out += [q, x - q * y, ux // uy, ux % uy]
    dt = np.int32 if bits == 32 else np.int64
    ut = np.uint32 if bits == 32 else np.uint64
    return np.array([v & m for v in out], dtype=ut).view(dt)


def operands(rng, bits):
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1)
    dt = np.int32 if bits == 32 else np.int64
    a = rng.integers(lo, hi, N, dtype=dt)
    b = rng.integers(lo, hi, N, dtype=dt)
    b[: N // 4] = rng.integers(-300, 300, N // 4)  # small divisors
    a[N // 2: N // 2 + 64] = rng.integers(-1000, 1000, 64)  # small dividends
    b[N // 2 + 64: N // 2 + 96] = rng.choice([1, -1, 2, -2, 3, 7], 32)
    a[N // 2 + 96: N // 2 + 100] = [lo, lo, hi - 1, hi - 1]
    b[N // 2 + 96: N // 2 + 100] = [1, 2, -1, lo]
    b[b == 0] = 1
    bad = (a == lo) & (b == -1)
    b[bad] = 3
    return a, b


def case(rng):
    a, b = operands(rng, 32)
    la, lb = operands(rng, 64)
    return Case("intdiv", (N,), (64,),
                [In(a), In(b), Out(np.int32, 4 * N), In(la), In(lb), Out(np.int64, 4 * N)],
                {2: reference(a, b, 32), 5: reference(la, lb, 64)})
