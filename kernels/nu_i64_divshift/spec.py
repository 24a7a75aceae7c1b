"""64-bit unsigned/signed division and remainder by variable divisors (C truncation
semantics; y == 0 and LONG_MIN / -1 guarded in the kernel), shifts by variable amounts 0..63
(logical and arithmetic), rotate(ulong) and clz(ulong). Reference in Python integers."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 512
M = (1 << 64) - 1


def s64(v):
    return v - (1 << 64) if v >> 63 else v


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def one(x, y, s):
    sx, sy = s64(x), s64(y)
    q = x // y if y else 0xDEADBEEF
    r = x % y if y else 0
    sq = 0 if sy == 0 or (sy == -1 and sx == -(1 << 63)) else tdiv(sx, sy)
    sr = 0 if sy in (0, -1) else sx - tdiv(sx, sy) * sy
    rot = ((x << s) | (x >> (64 - s))) & M if s else x
    clz = 64 - y.bit_length()
    t = (64 - s - (s == 0)) & 63
    return [q, r, sq & M, sr & M, (x << s) & M, x >> s, (sx >> s) & M,
            rot ^ ((clz << 56) & M) ^ (x >> t)]


def case(rng):
    a = rng.integers(0, 2**64, N, dtype=np.uint64)
    b = rng.integers(0, 2**64, N, dtype=np.uint64)
    # divisors of every size: small, 32-bit, just over 32-bit, negative, zero, -1
    kind = np.arange(N) % 8
    b = np.where(kind == 1, b >> np.uint64(56), b)
    b = np.where(kind == 2, b >> np.uint64(32), b)
    b = np.where(kind == 3, (b >> np.uint64(30)) | np.uint64(1 << 33), b)
    a = np.where(kind == 4, a >> np.uint64(20), a)
    b[5] = 0
    b[6] = M
    a[6] = 1 << 63
    b[13] = M
    a[7] = 1 << 63
    b[7] = 3
    sh = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    sh[:4] = [0, 32, 63, 64 + 31]
    out = np.array([one(int(a[i]), int(b[i]), int(sh[i]) & 63) for i in range(N)],
                   dtype=np.uint64).reshape(-1)
    return Case("i64_divshift", (N,), (64,), [In(a), In(b), In(sh), Out(np.uint64, 8 * N)],
                {3: out})
