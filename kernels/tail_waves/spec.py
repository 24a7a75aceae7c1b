"""Grid 1000, block 100: 10 groups of two waves each (64 lanes + 36 lanes)."""
import numpy as np

from kernels.corpus import Case, In, Out

N, B = 1000, 100


def case(rng):
    x = rng.integers(-10**6, 10**6, N).astype(np.int32)
    lid = np.arange(N) % B
    grp = np.arange(N) // B
    out = (x.astype(np.int64) * lid - grp).astype(np.int32)
    sums = x.reshape(-1, B).sum(1).astype(np.int32)
    return Case("tail_waves", (N,), (B,), [In(x), Out(np.int32, N), Out(np.int32, N // B)],
                {1: out, 2: sums})
