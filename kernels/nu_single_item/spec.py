"""One work-item (grid 1, block 1: a wave with a single live lane) running serial loops:
prefix sums (int wrap), first min / last max with index, rotate-xor checksum."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1000


def case(rng):
    x = rng.integers(-2**31, 2**31, N).astype(np.int32)
    x[500] = x.max()  # ties: the kernel keeps the last max, the first min
    pre = np.cumsum(x.astype(np.int64)).astype(np.int32)
    ck = 0
    for v in x.tolist():
        ck = (((ck << 5) | (ck >> 27)) & 0xFFFFFFFF) ^ (v & 0xFFFFFFFF)
    imx = int(np.nonzero(x == x.max())[0][-1])
    stats = np.array([x.min(), int(np.argmin(x)), x.max(), imx, np.uint32(ck).view(np.int32),
                      1 + 10 + 100], np.int32)
    return Case("single_item", (1,), (1,), [In(x), np.int32(N), Out(np.int32, N),
                                            Out(np.int32, 6)], {2: pre, 3: stats})
