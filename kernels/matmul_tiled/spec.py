"""64x48 times 48x80 float32 matmul, 16x16 tiles. Reference: the kernel's own summation order
(k = 0..K-1), each step an unfused multiply-add (v_mac_f32 / v_mad_f32 on gfx7)."""
import numpy as np

from kernels._ref import mad32
from kernels.corpus import Case, In, Out

M, N, K = 64, 80, 48


def reference(a, b):
    acc = np.zeros((M, N), np.float32)
    for k in range(K):
        acc = mad32(np.broadcast_to(a[:, k:k + 1], (M, N)), np.broadcast_to(b[k:k + 1, :], (M, N)),
                    acc)
    return acc


def case(rng):
    a = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    return Case("matmul", (N, M), (16, 16),
                [In(a), In(b), Out(np.float32, M * N), np.uint32(M), np.uint32(N), np.uint32(K)],
                {2: reference(a, b).reshape(-1)},
                note="sum order k=0..K-1 with a rounded product per step (gfx7 mad is unfused)")
