"""Block 96 (a 64-lane and a 32-lane wave): odd-even transposition sort (stable, 96 barrier
phases) of keys with payloads, and a min/max tree, in three __local arrays."""
import numpy as np

from kernels.corpus import Case, In, Out

B, G = 96, 8


def case(rng):
    keys = rng.integers(-50, 50, B * G).astype(np.int32)
    keys[B:2 * B] = np.arange(B)[::-1]  # reversed: needs every phase
    vals = np.arange(B * G, dtype=np.int32) * 7
    ok, ov = keys.copy(), vals.copy()
    mm = np.zeros(2 * G, np.int32)
    for g in range(G):
        s = slice(g * B, (g + 1) * B)
        order = np.argsort(keys[s], kind="stable")
        ok[s], ov[s] = keys[s][order], vals[s][order]
        mm[2 * g], mm[2 * g + 1] = keys[s].min(), keys[s].max()
    return Case("oddeven96", (B * G,), (B,),
                [In(keys), In(vals), Out(np.int32, B * G), Out(np.int32, B * G),
                 Out(np.int32, 2 * G)], {2: ok, 3: ov, 4: mm})
