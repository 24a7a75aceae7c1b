"""float4 / int4 with select, vector ternary, masks, swizzles, any/all. Floats are multiples
of 1/8 in [-64, 64] so every arithmetic result is exact."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 1024


def reference(a, b, c):
    lt = np.where(a < b, -1, 0).astype(np.int32)
    s1 = np.where(c < 0, b, a)
    s2 = np.where(lt < 0, b - a, a[:, ::-1])
    yzwx = c[:, [1, 2, 3, 0]]
    m = np.where(lt < 0, (yzwx.astype(np.int64) * 3).astype(np.uint64).astype(np.uint32).view(np.int32), c)
    of = np.empty((N, 2, 4), np.float32)
    of[:, 0] = s1 + s2 * np.float32(0.5)
    of[:, 1] = np.fmax(a, b)[:, [2, 0, 1, 3]]
    oi = np.empty((N, 2, 4), np.int32)
    oi[:, 0] = m ^ lt
    flags = np.stack([(lt < 0).any(1), (lt < 0).all(1), (c < 0).any(1), (c >= 0).all(1)], 1)
    oi[:, 1] = flags.astype(np.int32) + (c >> 28)
    return of.reshape(-1), oi.reshape(-1)


def case(rng):
    a = (rng.integers(-512, 512, (N, 4)) / 8).astype(np.float32)
    b = (rng.integers(-512, 512, (N, 4)) / 8).astype(np.float32)
    b[:16] = a[:16]
    c = rng.integers(-2**31, 2**31, (N, 4), dtype=np.int64).astype(np.int32)
    c[16:32] = np.abs(c[16:32] >> 1)
    of, oi = reference(a, b, c)
    return Case("vec_select", (N,), (64,), [In(a), In(b), In(c), Out(np.float32, 8 * N),
                                            Out(np.int32, 8 * N)], {3: of, 4: oi})
