"""__local atomics from 8 groups of 192 work-items (3 waves each); every compared word is
independent of the order in which the atomics run (c[9] sums atomic_inc's return values,
c[11] is a cmpxchg retry loop adding x & 7)."""
import numpy as np

from kernels.corpus import Case, In, Out

G, B = 8, 192
M = 0xFFFFFFFF


def s32(v):
    v &= M
    return v - (1 << 32) if v >> 31 else v


def group_ref(x):
    xs = [int(v) for v in x]
    c = [0] * 12
    c[0] = sum(xs)
    c[1] = -sum(v >> 4 for v in xs)
    c[2] = min(xs + [0x7FFFFFFF])
    c[3] = max(xs + [-2**31])
    c[4] = min(v & M for v in xs)
    a = M
    for lid, v in enumerate(xs):
        a &= (~(1 << (lid & 31)) & M) | (v & M)
    c[5] = a
    o = 0
    for v in xs:
        o |= 1 << ((v & M) & 31)
    c[6] = o
    xr = 0
    for v in xs:
        xr ^= v & M
    c[7] = xr
    c[8] = len(xs)
    c[9] = sum(range(len(xs)))
    c[10] = 5
    c[11] = sum(v & 7 for v in xs)
    return [s32(v) for v in c]


def case(rng):
    x = rng.integers(-2**31, 2**31, G * B, dtype=np.int64).astype(np.int32)
    full = np.array([v for g in range(G) for v in group_ref(x[g * B:(g + 1) * B])], np.int32)
    return Case("local_atomics", (G * B,), (B,), [In(x), Out(np.int32, G * 12)], {1: full})
