"""vloadn / vstoren with misaligned pointers and vector swizzles; 1024 work-items.
Floats are multiples of 1/8 in [-64, 64]: v*2 + w is exact."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024


def case(rng):
    f = (rng.integers(-512, 512, 3 * N + 8) / 8).astype(np.float32)
    b = rng.integers(0, 256, 16 * N).astype(np.uint8)
    s = rng.integers(-32768, 32768, 8 * N + 8).astype(np.int16)
    i = np.arange(N)
    v3 = np.stack([f[1 + 3 * i + k] for k in range(3)], 1)
    v4 = np.stack([f[3 * i + 2 + k] for k in range(3)], 1)
    of = (v3 * np.float32(2) + v4).reshape(-1)
    c = b.reshape(N, 16)
    ob = (c[:, ::-1].astype(np.int64) + 1).astype(np.uint8).reshape(-1)
    h = np.stack([s[8 * i + 1 + k] for k in range(8)], 1).astype(np.int64)
    os_ = (h[:, [1, 0, 3, 2, 5, 4, 7, 6]] - 3).astype(np.int16).reshape(-1)
    oi = np.stack([c[:, 0].astype(np.int32) + c[:, 15], (h[:, 7] * 2).astype(np.int32)],
                  1).astype(np.int32).reshape(-1)
    return Case("vload_store", (N,), (64,),
                [In(f), In(b), In(s), Out(np.float32, 3 * N), Out(np.uint8, 16 * N),
                 Out(np.int16, 8 * N), Out(np.int32, 2 * N)], {3: of, 4: ob, 5: os_, 6: oi})
