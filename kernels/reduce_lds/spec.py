"""Per-group sums of 8192 uint32 values, 256 work-items per group -> 32 partial sums."""
import numpy as np

from kernels.corpus import Case, In, Local, Out

N, BLOCK = 8192, 256


def reference(x):
    return x.reshape(-1, BLOCK).sum(axis=1, dtype=np.uint64).astype(np.uint32)


def case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)  # sums wrap mod 2**32
    return Case("reduce_sum", (N,), (BLOCK,), [In(x), Out(np.uint32, N // BLOCK), Local(BLOCK * 4)],
                {1: reference(x)})
