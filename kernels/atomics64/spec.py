"""64-bit global atomics from 1024 work-items; final values are order-independent."""
import numpy as np

from kernels.corpus import Case, In, InOut

N = 1024
M = (1 << 64) - 1


def s64(v):
    v &= M
    return v - (1 << 64) if v >> 63 else v


def case(rng):
    v = rng.integers(-2**63, 2**63, N, dtype=np.int64)
    xs = [int(a) for a in v]
    cell = np.array([5, 2**63 - 1, -2**63, 100], np.int64)
    ucell = np.array([M, 0, M, 0, 0x0123456789ABCDEF], np.uint64)
    wc = [s64(5 + sum(xs)), min(xs), max(xs), s64(100 + sum(a >> 40 for a in xs))]
    a = M
    for i, x in enumerate(xs):
        a &= (x & M) | (1 << (i & 63))
    o = 0
    for x in xs:
        o |= 1 << ((x & M) & 63)
    xr = 0x0123456789ABCDEF
    for x in xs:
        xr ^= x & M
    wu = [min(x & M for x in xs), max(x & M for x in xs), a, o, xr]
    mine = rng.integers(-2**63, 2**63, 2 * N, dtype=np.int64)
    mine_want = mine.copy()
    mine_want[:N] = v
    mine_want[N:] = mine[:N]
    return Case("atomics64", (N,), (128,), [In(v), InOut(cell), InOut(ucell), InOut(mine)],
                {1: np.array(wc, np.int64), 2: np.array(wu, np.uint64), 3: mine_want})
