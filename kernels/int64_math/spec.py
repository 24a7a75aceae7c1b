"""ulong/long: add, sub, mul, mul_hi (unsigned and signed), shifts by y&63, comparisons."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024
M64 = (1 << 64) - 1


def s64(v):
    return v - (1 << 64) if v >> 63 else v


def reference(a, b):
    out = np.zeros((N, 12), np.uint64)
    for i in range(N):
        x, y = int(a[i]), int(b[i])
        sx, sy = s64(x), s64(y)
        sh = y & 63
        out[i] = [
            (x + y) & M64, (x - y) & M64, (x * y) & M64, (x * y) >> 64,
            (x << sh) & M64, x >> sh, (sx >> sh) & M64,
            int(sx < sy) | int(x < y) << 1 | int(x == y) << 2 | int(sx >= sy) << 3,
            ((sx * sy) >> 64) & M64, x - y if x > y else y - x, max(sx, sy) & M64,
            ((x ^ (y >> 7)) + (x & 0xFFFFFFFF) * (y & 0xFFFFFFFF)) & M64,
        ]
    return out.reshape(-1)


def case(rng):
    a = rng.integers(0, 2**64, N, dtype=np.uint64)
    b = rng.integers(0, 2**64, N, dtype=np.uint64)
    b[:64] = a[:64]  # equality cases
    a[64:128] >>= np.uint64(40)  # small values
    b[128:192] = np.uint64(2**63)  # sign boundary
    return Case("int64_math", (N,), (256,), [In(a), In(b), Out(np.uint64, N * 12)],
                {2: reference(a, b)})
