"""Nested loops with continue/break and a bounded Collatz count per work-item."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 2048
LIMIT = 200000
M = 0xFFFFFFFF


def reference(x):
    out = np.empty(2 * N, np.uint32)
    for i, v in enumerate(x.tolist()):
        acc = 0
        for k in range(v & 63):
            if (k ^ v) & 1:
                continue
            acc = (acc + k * ((v >> 8) & 0xFF)) & M
            if acc > LIMIT:
                break
            for j in range(4):
                if ((v >> j) & 3) == 3:
                    break
                acc ^= (j << (k % 13)) & M
        n, steps = (v >> 16) | 1, 0
        while n != 1 and steps < 500:
            n = (3 * n + 1) & M if n & 1 else n >> 1
            steps += 1
        out[2 * i], out[2 * i + 1] = acc, steps
    return out


def case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    return Case("loops_break", (N,), (128,), [In(x), Out(np.uint32, 2 * N), np.uint32(LIMIT)],
                {1: reference(x)})
