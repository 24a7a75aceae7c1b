"""asm_ds: LDS read2/write2 with offsets, swizzles, add_rtn, add/max/min, byte ops, append.
8 work-groups of 128 (two waves each). Reference from the DS definitions (CLRX GcnInstrsDs):
ds_swizzle quad-perm mode (offset bit 15): lane' = (lane & 0x3c) + sel[lane & 3];
bitmask mode: lane' = (lane & 32) + ((((lane & 31) & and) | or) ^ xor), within the wave;
ds_append adds popcount(EXEC) at M0[15:0] + offset (M0 = 0 here) -> 64 per wave."""
import numpy as np

from kernels.corpus import Case, In, Out

GROUPS, B = 8, 128
N = GROUPS * B


def reference(x):
    x = x.astype(np.int64)
    out = np.zeros((N, 10), np.int64)
    for g in range(GROUPS):
        xs = x[g * B:(g + 1) * B]
        for lid in range(B):
            lane = lid % 64
            wave = xs[lid - lane: lid - lane + 64]
            nb = xs[(lid + 1) % B]
            q = (lane & 0x3C) + [3, 2, 1, 0][lane & 3]
            bm = (lane & 32) + ((((lane & 31) & 0x1F) | 0) ^ 5)
            byte = int(xs[lid ^ 1]) & 0xFF
            mn = min(int(v) - (1 << 32) if v >> 31 else int(v) for v in xs)
            out[g * B + lid] = [nb, nb ^ 0xFFFF, wave[q], wave[bm], lid * 3, lid * 3 + xs[lid],
                                int((xs & 0xFF).sum()), 128, byte - 256 if byte & 0x80 else byte,
                                int(xs.max()) ^ (mn & 0xFFFFFFFF)]
    return (out & 0xFFFFFFFF).astype(np.uint32).reshape(-1)


def case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    return Case("asm_ds", (N,), (B,), [In(x), Out(np.uint32, 10 * N)], {1: reference(x)})
