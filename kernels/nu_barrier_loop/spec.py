"""y = A x (512 x 300) with x staged through a 256-float __local buffer (Local argument) in a
loop with two barriers per chunk; 2D work-group (64, 4). Sum order k = 0..299 with
unfused v_mac_f32 (gfx7), denormals flushed."""
import numpy as np

from kernels._ref import mad32
from kernels.corpus import Case, In, Local, Out

ROWS, COLS = 512, 300


def case(rng):
    A = rng.uniform(-1, 1, (ROWS, COLS)).astype(np.float32)
    x = rng.uniform(-1, 1, COLS).astype(np.float32)
    acc = np.zeros(ROWS, np.float32)
    for k in range(COLS):
        acc = mad32(A[:, k], np.full(ROWS, x[k]), acc)
    return Case("barrier_loop", (ROWS // 4, 4), (64, 4),
                [In(A), In(x), Out(np.float32, ROWS), np.int32(COLS), Local(256 * 4)], {2: acc})
