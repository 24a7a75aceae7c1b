"""Per-work-group stable stream compaction (keep x % 3 != 0, C remainder semantics),
scan in LDS, local atomic count, global atomic total."""
import numpy as np

from kernels.corpus import Case, In, Out

B, G = 256, 12


def case(rng):
    x = rng.integers(-1000, 1000, B * G).astype(np.int32)
    x[B * 3:B * 4] = 3 * rng.integers(-300, 300, B)  # a group that keeps nothing
    out = np.zeros(B * G, np.int32)
    counts = np.zeros(G, np.int32)
    for g in range(G):
        blk = x[g * B:(g + 1) * B]
        keep = blk[np.fmod(blk, 3) != 0]
        out[g * B:g * B + keep.size] = keep
        counts[g] = keep.size
    return Case("compact", (B * G,), (B,),
                [In(x), Out(np.int32, B * G), Out(np.int32, G), Out(np.int32, 1)],
                {1: out, 2: counts, 3: np.array([counts.sum()], np.int32)})
