"""Linear-probing hash lookups (table of 1024 slots, 700 keys): found value or -1 and the
number of probes, per query (divergent while/break)."""
import numpy as np

from kernels.corpus import Case, In, Out

SLOTS, NKEYS, NQ = 1024, 700, 1000
EMPTY = 0xFFFFFFFF


def h(q):
    return (q * 2654435761) & 0xFFFFFFFF & (SLOTS - 1)


def case(rng):
    keys = rng.choice(2**31, NKEYS, replace=False).astype(np.uint32)
    vals = rng.integers(0, 2**31, NKEYS).astype(np.int32)
    tk = np.full(SLOTS, EMPTY, np.uint32)
    tv = np.zeros(SLOTS, np.int32)
    for k, v in zip(keys.tolist(), vals.tolist()):
        s = h(k)
        while tk[s] != EMPTY:
            s = (s + 1) & (SLOTS - 1)
        tk[s], tv[s] = k, v
    q = np.where(rng.random(NQ) < 0.6, rng.choice(keys, NQ),
                 rng.integers(2**31, 2**32 - 1, NQ, dtype=np.uint64)).astype(np.uint32)
    res = np.empty(NQ, np.int32)
    probes = np.empty(NQ, np.int32)
    lookup = dict(zip(keys.tolist(), vals.tolist()))
    for i, qq in enumerate(q.tolist()):
        s, c = h(qq), 0
        while True:
            c += 1
            if tk[s] == qq or tk[s] == EMPTY:
                break
            s = (s + 1) & (SLOTS - 1)
        res[i] = lookup.get(qq, -1)
        probes[i] = c
    res_full = np.zeros(1024, np.int32)
    res_full[:NQ] = res
    pr_full = np.zeros(1024, np.int32)
    pr_full[:NQ] = probes
    return Case("hash_probe", (1024,), (128,),
                [In(tk), In(tv), np.uint32(SLOTS - 1), In(q), Out(np.int32, 1024),
                 Out(np.int32, 1024), np.int32(NQ)], {4: res_full, 5: pr_full})
