"""char/uchar/short/ushort loads and stores, n = 3001 of a 3072 grid (odd tail)."""
import numpy as np

from kernels.corpus import Case, In, Out

N, GRID = 3001, 3072


def case(rng):
    c = rng.integers(-128, 128, N).astype(np.int8)
    uc = rng.integers(0, 256, N).astype(np.uint8)
    s = rng.integers(-32768, 32768, N).astype(np.int16)
    us = rng.integers(0, 65536, N).astype(np.uint16)
    v4 = rng.integers(0, 256, (N, 4)).astype(np.uint8)
    a, b, d, e = (x.astype(np.int64) for x in (c, uc, s, us))
    oi = ((a * 1000003 + b * 65537 + d * 3 + e) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    oc = ((a + b) & 0xFF).astype(np.uint8).view(np.int8)
    os_ = ((d * 7 + e) & 0xFFFF).astype(np.uint16)
    q = v4.astype(np.int64)
    ob = np.stack([q[:, 3], (q[:, 0] + q[:, 1]) & 0xFF, (q[:, 2] >> 1) | (c.view(np.uint8) & 0x80),
                   np.maximum(q[:, 0], q[:, 2])], 1).astype(np.uint8).reshape(-1)
    return Case("bytes_shorts", (GRID,), (256,),
                [In(c), In(uc), In(s), In(us), In(v4), Out(np.int32, N), Out(np.int8, N),
                 Out(np.uint16, N), Out(np.uint8, 4 * N), np.uint32(N)],
                {5: oi, 6: oc, 7: os_, 8: ob})
