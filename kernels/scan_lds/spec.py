"""Inclusive scan of each 256-element block of 4096 uint32 values (wrapping adds)."""
import numpy as np

from kernels.corpus import Case, In, Out

N, B = 4096, 256


def reference(x):
    return np.cumsum(x.reshape(-1, B).astype(np.uint64), axis=1).astype(np.uint32).reshape(-1)


def case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    return Case("scan_inclusive", (N,), (B,), [In(x), Out(np.uint32, N)], {1: reference(x)})
