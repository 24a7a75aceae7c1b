"""popcount, clz, rotate, shift-based bitfield extract, mul_hi (u/s), mad24/mul24,
abs_diff, hadd/rhadd, min/max, clamp, abs, logic ops, arithmetic shift, mad_hi,
add_sat/sub_sat, upsample. Exact integer references in Python ints."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024
M = 0xFFFFFFFF


def s32(v):
    v &= M
    return v - (1 << 32) if v >> 31 else v


def s24(v):
    v &= 0xFFFFFF
    return v - (1 << 24) if v >> 23 else v


def row(x, y):
    sx, sy = s32(x), s32(y)
    r = y & 31
    return [
        bin(x).count("1"),
        32 - x.bit_length(),
        ((x << r) | (x >> (32 - r))) & M if r else x,
        (x >> (y & 31)) & ((1 << ((y >> 8) & 15)) - 1),
        (x * y) >> 32,
        (sx * sy) >> 32,
        s24(x) * s24(y) + sx,
        (x & 0xFFFFFF) * (y & 0xFFFFFF),
        abs(sx - sy),
        (x + y) >> 1,
        (x + y + 1) >> 1,
        (sx + sy) >> 1,
        min(x, y) ^ (max(sx, sy) & M),
        min(max(sx, -1000), 1000000),
        abs(sx),
        (x & ~y) | (x ^ (y << 3)),
        sx >> (y & 31),
        ((x * y) >> 32) + x,
        (min(max(sx + sy, -2**31), 2**31 - 1) & M) ^ max(x - y, 0),
        ((x & 0xFFFF) << 16) | (y & 0xFFFF),
    ]


def reference(a, b):
    return np.array([v & M for x, y in zip(a.tolist(), b.tolist()) for v in row(x, y)],
                    dtype=np.uint32)


def case(rng):
    a = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    a[:8] = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x00800000, 12345, 0xFFFFFF]
    b[:8] = [0, 0xFFFFFFFF, 0xFFFFFFFF, 0x80000000, 1, 0xFF800000, 32, 0x1000]
    return Case("bitops", (N,), (256,), [In(a), In(b), Out(np.uint32, 20 * N)],
                {2: reference(a, b)})
