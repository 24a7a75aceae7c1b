"""float3 arrays have a 16-byte stride (the 4th word is padding, filled with garbage here),
vload3/vstore3 are packed (12 bytes); double3/long3 vload3/vstore3 at 24-byte stride."""
import numpy as np

from kernels._ref import ftz32, mad32
from kernels.corpus import Case, In, Out

N = 128


def case(rng):
    a = rng.uniform(-10, 10, (N, 4)).astype(np.float32)
    a[:, 3] = np.nan  # padding, never used
    pk = rng.uniform(-10, 10, (N, 3)).astype(np.float32)
    d = rng.uniform(-1e5, 1e5, (N, 3))
    lg = rng.integers(-2**63, 2**63 - 1, (N, 3), dtype=np.int64)
    b = np.zeros((N, 4), np.float32)
    b[:, :3] = ftz32(a[:, [2, 0, 1]] - pk)
    b[:, 3] = np.arange(N)
    po = mad32(a[:, :3], np.float32(2), pk[:, [1, 2, 0]])
    dout = d[:, [1, 2, 0]] * np.array([1.5, -2.0, 0.25])
    lout = lg[:, [2, 1, 0]] ^ (lg >> np.array([1, 7, 63]))
    return Case("float3_stride", (N,), (64,),
                [In(a), Out(np.float32, 4 * N), In(pk), Out(np.float32, 3 * N), In(d),
                 Out(np.float64, 3 * N), In(lg), Out(np.int64, 3 * N)],
                {1: b.reshape(-1), 3: po.reshape(-1), 5: dout.reshape(-1), 7: lout.reshape(-1)})
