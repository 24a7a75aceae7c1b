"""One 4-bit LSD radix-sort pass (digit at bit 8) within groups of 128 keys: stable
partition by digit and the per-group 16-bucket histogram."""
import numpy as np

from kernels.corpus import Case, In, Out

B, G, SHIFT = 128, 10, 8


def case(rng):
    keys = rng.integers(0, 2**32, B * G, dtype=np.uint64).astype(np.uint32)
    keys[B:2 * B] &= 0xFFFFF0FF  # a group where every digit is 0
    srt = np.empty_like(keys)
    hist = np.zeros(G * 16, np.uint32)
    for g in range(G):
        k = keys[g * B:(g + 1) * B]
        d = (k >> SHIFT) & 15
        srt[g * B:(g + 1) * B] = k[np.argsort(d, kind="stable")]
        hist[g * 16:(g + 1) * 16] = np.bincount(d, minlength=16)
    return Case("radix_pass", (B * G,), (B,),
                [In(keys), Out(np.uint32, B * G), Out(np.uint32, G * 16), np.uint32(SHIFT)],
                {1: srt, 2: hist})
