"""Exclusive scan of 8 blocks of 512 int32 values (wrapping adds) and per-block totals."""
import numpy as np

from kernels.corpus import Case, In, Out

N, G = 512, 8


def case(rng):
    x = rng.integers(-2**31, 2**31, N * G, dtype=np.int64).astype(np.int32)
    blocks = x.reshape(G, N).astype(np.int64)
    inc = np.cumsum(blocks, axis=1)
    exc = inc - blocks
    wrap = lambda v: (v & 0xFFFFFFFF).astype(np.uint32).view(np.int32)  # noqa: E731
    return Case("scan_blelloch", (G * 256,), (256,),
                [In(x), Out(np.int32, N * G), Out(np.int32, G)],
                {1: wrap(exc).reshape(-1), 2: wrap(inc[:, -1])})
