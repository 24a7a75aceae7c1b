"""Transpose of a 96 (wide) x 64 (high) uint32 matrix."""
import numpy as np

from kernels.corpus import Case, In, Out

W, H = 96, 64


def case(rng):
    a = rng.integers(0, 2**32, (H, W), dtype=np.uint64).astype(np.uint32)
    return Case("transpose", (W, H), (16, 16), [In(a), Out(np.uint32, W * H), np.uint32(W),
                                                 np.uint32(H)], {1: a.T.copy().reshape(-1)})
