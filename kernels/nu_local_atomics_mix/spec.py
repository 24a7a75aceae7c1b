"""__local atomic_min/max (int and uint), or/and/xor, add/sub, inc/dec, cmpxchg + xchg, in
192-item groups; only order-independent results are compared."""
import numpy as np

from kernels.corpus import Case, In, Out

B, G = 192, 6


def w32(v):
    return ((int(v) + 2**31) % 2**32) - 2**31


def case(rng):
    v = rng.integers(-2**31, 2**31, B * G).astype(np.int32)
    v[(v & 0xFF) == 0x5A] ^= 1          # no winner unless planted
    v[0 * B + 77] = (v[77] & ~0xFF) | 0x5A
    v[2 * B + 5] = (v[2 * B + 5] & ~0xFF) | 0x5A
    v[2 * B + 150] = (v[2 * B + 150] & ~0xFF) | 0x5A
    out = np.zeros(11 * G, np.int32)
    for g in range(G):
        x = v[g * B:(g + 1) * B].astype(np.int64)
        u = x & 0xFFFFFFFF
        sor = 0
        sand = -1
        sxor = 0
        for t in x:
            sor |= int(t) & 0x0F0F0F0F
            sand &= int(t) | 0x10000000
            sxor ^= int(t)
        sadd = w32(sum(int(t) >> 4 if t & 1 else -(int(t) >> 6) for t in x))
        cnt = 1000 + int(((x & 2) != 0).sum()) - int(((x & 2) == 0).sum())
        won = int(((x & 0xFF) == 0x5A).any())
        out[g * 11:(g + 1) * 11] = [x.min(), x.max(), w32(u.min()), w32(u.max()), sor, w32(sand),
                                    w32(sxor), sadd, cnt, won, 7]
    return Case("local_atomics_mix", (B * G,), (B,), [In(v), Out(np.int32, 11 * G)], {1: out})
