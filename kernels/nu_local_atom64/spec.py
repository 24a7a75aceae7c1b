"""64-bit __local atomics (ds_add/min/max/or/and/xor_b64, ds_cmpst_rtn_b64 loop computing a
max) and float atomic_xchg on __local and __global; only order-independent results are
compared (the __local float ends as some lane's id in [0, 128))."""
import numpy as np

from kernels.corpus import Case, In, InOut, Out

B, G = 128, 6
K = 0x5555AAAA5555AAAA


def case(rng):
    v = rng.integers(-2**63, 2**63 - 1, B * G, dtype=np.int64)
    v[B:B + 20] = rng.integers(-1000, 1000, 20)
    out = np.zeros(9 * G, np.int64)
    for g in range(G):
        x = [int(t) for t in v[g * B:(g + 1) * B]]
        add = sum(t >> 8 for t in x)
        add = ((add + 2**63) % 2**64) - 2**63
        o, a, xr = 0, -1, 0
        for t in x:
            o |= t & 0x00FF00FF00FF00FF
            a &= t | 0x0101010101010101
            xr ^= t
        um = max(t & (2**64 - 1) for t in x)
        um = um - 2**64 if um >= 2**63 else um
        cas = max([1] + [t ^ K for t in x])
        out[9 * g:9 * g + 9] = [add, min(x), max(x), um, o, a, xr, 1, cas]
    fx = np.full(G, -7.0, np.float32)
    return Case("local_atom64", (B * G,), (B,), [In(v), Out(np.int64, 9 * G), InOut(fx)],
                {1: out, 2: (2.5 * np.arange(G)).astype(np.float32)})
