"""Dynamic per-lane component indices into float16/int8 register vectors (read and write,
including j == m aliasing). clang-14 lowers them to v_cndmask_b32 select chains here.
Multiply-adds contract to v_mad/v_mac_f32; the products (x2, x0.5) are exact."""
import numpy as np

from kernels._ref import ftz32
from kernels.corpus import Case, In, Out

N = 256


def case(rng):
    v = rng.uniform(-100, 100, (N, 16)).astype(np.float32)
    idx = rng.integers(0, 2**31, N).astype(np.int32)
    idx[:16] = np.arange(16) * 17  # j == m
    out = np.zeros((N, 2), np.float32)
    iout = np.zeros(N, np.int32)
    for i in range(N):
        a = v[i].copy()
        w = [k * k - i for k in range(8)]
        j, m = int(idx[i]) & 15, (int(idx[i]) >> 4) & 15
        a[j] = ftz32(a[j] * np.float32(2) + a[m])
        w[m & 7] += j
        s = np.float32(0)
        for k in range(16):
            s = ftz32(s * np.float32(0.5) + a[(k + j) & 15])[()]
        out[i] = [a[m], s]
        iout[i] = w[j & 7] * 100 + w[m & 7]
    return Case("movrel_index", (N,), (64,),
                [In(v), In(idx), Out(np.float32, 2 * N), Out(np.int32, N)],
                {2: out.reshape(-1), 3: iout})
