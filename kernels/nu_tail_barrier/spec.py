"""`if (gid >= n) return;` before a barrier: grid 1024 in groups of 256, n = 860, so the
last group has 92 live items: its 4th wave returns entirely and its 2nd wave partly. Live
items read buf[(lid+1) % valid] + buf[valid-1-lid] where valid = live items of the group.
(Undefined in OpenCL 1.2, but what real gfx7 hardware does: an ended wave no longer counts
at the barrier.)"""
import numpy as np

from kernels.corpus import Case, In, Out

B, GRID, N = 256, 1024, 860


def case(rng):
    x = rng.integers(-10**6, 10**6, GRID).astype(np.int32)
    out = np.zeros(GRID, np.int32)
    for g in range(GRID // B):
        valid = min(B, N - g * B)
        buf = x[g * B:g * B + valid] * 2
        lid = np.arange(valid)
        out[g * B:g * B + valid] = buf[(lid + 1) % valid] + buf[valid - 1 - lid]
    return Case("tail_barrier", (GRID,), (B,), [In(x), Out(np.int32, GRID), np.int32(N)],
                {1: out})
