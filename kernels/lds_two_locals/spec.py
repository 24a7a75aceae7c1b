"""Two __local pointer arguments (Local(1024) floats, Local(1024) ints) plus static LDS;
groups of 256. Float results are exact (inputs are multiples of 1/4, small)."""
import numpy as np

from kernels.corpus import Case, In, Local, Out

N, B = 2048, 256


def case(rng):
    f = (rng.integers(-4000, 4000, N) / 4).astype(np.float32)
    k = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    lid = np.arange(N) % B
    base = np.arange(N) - lid
    of = f[base + B - 1 - lid] * np.float32(2) + ((lid % 64) * 3).astype(np.float32)
    oi = k[base + B - 1 - lid] ^ (((lid * 7) % 64) * 3).astype(np.int32)
    return Case("lds_two_locals", (N,), (B,),
                [In(f), In(k), Local(B * 4), Out(np.float32, N), Local(B * 4), Out(np.int32, N)],
                {3: of.astype(np.float32), 5: oi.astype(np.int32)})
