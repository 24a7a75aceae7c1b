"""Sort each 512-element block of 4096 uint32 values (8 groups of 256 work-items)."""
import numpy as np

from kernels.corpus import Case, InOut

N, B = 4096, 512


def case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    x[:40] = x[40:80]  # duplicates
    return Case("bitonic_sort", (N // 2,), (256,), [InOut(x)],
                {0: np.sort(x.reshape(-1, B), axis=1).reshape(-1)})
