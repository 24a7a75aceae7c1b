"""asm_smrd: scalar loads (s_buffer_load_* through a V# made from kernarg values, s_load_*
with immediate and SGPR offsets). 8 groups of one wave; lane 0 writes 36 dwords per group.
SMRD immediate offsets are in dwords, SGPR offsets in bytes (gfx7)."""
import numpy as np

from kernels.corpus import Case, In, Out

GROUPS = 8


def case(rng):
    data = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    out = []
    for g in range(GROUPS):
        out += list(data[1:32]) + [data[g], data[g + 1], data[32], data[33], data[34]]
    return Case("asm_smrd", (64 * GROUPS,), (64,),
                [In(data), Out(np.uint32, 36 * GROUPS), np.uint32(data.nbytes)],
                {1: np.array(out, np.uint32)})
