"""64-bit integer built-ins and long2 select; exact Python-integer references."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024
M = (1 << 64) - 1


def s64(v):
    v &= M
    return v - (1 << 64) if v >> 63 else v


def row(x, y):
    sx, sy = s64(x), s64(y)
    r = y & 63
    m = [-1 if sx < sy else 0, -1 if sy < (sx >> 1) else 0]  # v < w
    w = [sy, sx >> 1]
    v = [sx, sy]
    s = [v[k] if m[k] else w[k] for k in range(2)]
    return [
        bin(x).count("1"), 64 - x.bit_length(),
        ((x << r) | (x >> (64 - r))) & M if r else x,
        ((sx * sy) >> 64) ^ ((x * y) >> 64),
        abs(sx - sy), (x + y) >> 1, (x + y + 1) >> 1,
        min(x, y) ^ (max(sx, sy) & M),
        (x & ~(x ^ (y >> 3))) | (y & (x ^ (y >> 3))),
        min(max(sx + sy, -2**63), 2**63 - 1), max(x - y, 0),
        s[0], s[1],
        (m[0] + 2 * m[1]) ^ (64 - x.bit_length()),
    ]


def case(rng):
    a = rng.integers(0, 2**64, N, dtype=np.uint64)
    b = rng.integers(0, 2**64, N, dtype=np.uint64)
    a[:6] = [0, 1, M, 2**63, 2**63 - 1, 12345]
    b[:6] = [0, M, M, 2**63, 1, 64]
    a[8:40] >>= np.uint64(30)
    want = np.array([v & M for x, y in zip(a.tolist(), b.tolist()) for v in row(x, y)],
                    np.uint64)
    return Case("int64_bits", (N,), (128,), [In(a), In(b), Out(np.uint64, 14 * N)], {2: want})
