"""y = a*x + y over n = 4000 elements, grid 4096 (the last 96 work-items return early)."""
import numpy as np

from kernels._ref import mad32
from kernels.corpus import Case, In, InOut

N, GRID = 4000, 4096


def case(rng):
    x = rng.uniform(-4, 4, N).astype(np.float32)
    y = rng.uniform(-4, 4, N).astype(np.float32)
    a = np.float32(rng.uniform(0.5, 3))
    # clang contracts a*x+y to v_mac_f32: on gfx7 an unfused multiply-add (product rounded)
    want = mad32(np.full(N, a, np.float32), x, y)
    return Case("saxpy", (GRID,), (256,), [InOut(y), In(x), a, np.uint32(N)], {0: want},
                note="a*x+y contracts to v_mac_f32, which on gfx7 rounds the product (unfused)")
