"""Histogram of 20000 skewed random bytes, 8 groups x 256 work-items (grid-stride loop)."""
import numpy as np

from kernels.corpus import Case, In, InOut

N = 20000


def case(rng):
    # skewed: many collisions on a few bins, some bins empty
    data = np.minimum(rng.exponential(40.0, N), 255).astype(np.uint8)
    hist0 = np.zeros(256, np.uint32)
    want = np.bincount(data, minlength=256).astype(np.uint32)
    return Case("histogram256", (2048,), (256,), [In(data), np.uint32(N), InOut(hist0)], {2: want})
