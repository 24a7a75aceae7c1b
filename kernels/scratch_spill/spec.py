"""Per work-item 96-word private array in scratch, LCG-filled, read-modify-written at
runtime indices. 1024 work-items (scratch per wave = 64 * 96 * 4 bytes + spills)."""
import numpy as np

from kernels.corpus import Case, In, Out

N, P = 1024, 96
M = 0xFFFFFFFF


def reference(seed, idx):
    out = np.empty(N, np.uint32)
    for g in range(N):
        s = int(seed[g])
        priv = []
        for _ in range(P):
            s = (s * 1664525 + 1013904223) & M
            priv.append(s)
        acc = 0
        for k in range(16):
            j = (int(idx[g]) + k * 7) % P
            priv[(j * 5) % P] ^= acc
            acc = (acc + (priv[j] >> (k & 7))) & M
        out[g] = acc ^ priv[int(idx[g]) % P]
    return out


def case(rng):
    seed = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    idx = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    return Case("scratch_spill", (N,), (64,), [In(seed), In(idx), Out(np.uint32, N)],
                {2: reference(seed, idx)})
