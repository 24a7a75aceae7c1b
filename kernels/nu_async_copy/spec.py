"""async_work_group_copy (global->local, local->global) and async_work_group_strided_copy
(stride 9) with wait_group_events; r = a*2 - c[(lid+1) % 128] (the product is exact)."""
import numpy as np

from kernels._ref import ftz32
from kernels.corpus import Case, In, Out

B, G, STRIDE = 128, 8, 9


def case(rng):
    x = rng.uniform(-100, 100, B * G).astype(np.float32)
    cols = rng.uniform(-100, 100, STRIDE * B + G).astype(np.float32)
    out = np.zeros(B * G, np.float32)
    for g in range(G):
        a = x[g * B:(g + 1) * B]
        c = cols[g + STRIDE * np.arange(B)]
        out[g * B:(g + 1) * B] = ftz32(a * np.float32(2) - np.roll(c, -1))
    return Case("async_copy", (B * G,), (B,),
                [In(x), In(cols), Out(np.float32, B * G), np.int32(STRIDE)], {2: out})
