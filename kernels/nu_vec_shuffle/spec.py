"""shuffle/shuffle2 with per-item masks (only the low log2(n) bits count, OpenCL 1.2 6.12.12),
float8/uint16 swizzles (.even/.odd/.lo/.hi/.s048c), as_uint4/as_float reinterprets,
float3 .yzx*.zxy products (FTZ), uint4 rotate and variable shifts."""
import numpy as np

from kernels._ref import ftz32
from kernels.corpus import Case, In, Out

N = 256


def case(rng):
    a = rng.uniform(-4, 4, (N, 8)).astype(np.float32)
    b = rng.integers(0, 2**32, (N, 16), dtype=np.uint64).astype(np.uint32)
    m = rng.integers(0, 2**32, (N, 8), dtype=np.uint64).astype(np.uint32)
    ar = np.arange(N)[:, None]
    o1 = a[ar, m & 7]
    m16 = np.concatenate([m, m + np.uint32(8)], axis=1)
    t = b[ar, (m16 ^ 3) & 15]
    eo = np.concatenate([b[:, 0::2], b[:, 1::2]], axis=1)
    o2 = (t + eo).astype(np.uint32)
    p, q = a[:, 0:3], a[:, 5:8]
    c = ftz32(p[:, [1, 2, 0]] * q[:, [2, 0, 1]])
    w = ((a[:, 3].view(np.uint32) & 0x7FFFFFFF) | (b[:, 0] & 0x80000000)).view(np.float32)
    o3 = np.stack([w, c[:, 2], c[:, 1], c[:, 0]], axis=1)
    u = a[:, 0:4].view(np.uint32) ^ b[:, [0, 4, 8, 12]]
    rot = ((u[:, 0] << np.uint32(7)) | (u[:, 0] >> np.uint32(25))).astype(np.uint32)
    o4 = np.stack([u[:, 0] + u[:, 1], u[:, 2] - u[:, 3], rot, u[:, 3] >> (u[:, 1] & 31)],
                  axis=1).astype(np.uint32)
    return Case("vec_shuffle", (N,), (64,),
                [In(a), In(b), In(m), Out(np.float32, N * 8), Out(np.uint32, N * 16),
                 Out(np.float32, N * 4), Out(np.uint32, N * 4)],
                {3: o1.reshape(-1), 4: o2.reshape(-1), 5: o3.reshape(-1), 6: o4.reshape(-1)})
