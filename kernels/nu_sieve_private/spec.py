"""Per-item sieve of Eratosthenes in a private uchar[3000] (scratch), limits 2..3000:
number of primes below the limit and the largest one (0 if none)."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 128


def primes_below(n):
    s = np.ones(max(n, 2), bool)
    s[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if s[p]:
            s[p * p::p] = False
    return np.nonzero(s[:n])[0]


def case(rng):
    lim = rng.integers(2, 3001, N).astype(np.int32)
    lim[:4] = [2, 3, 3000, 100]
    cnt = np.zeros(N, np.int32)
    last = np.zeros(N, np.int32)
    for i, n in enumerate(lim.tolist()):
        p = primes_below(n)
        cnt[i] = p.size
        last[i] = p[-1] if p.size else 0
    assert cnt[3] == 25 and last[3] == 97
    return Case("sieve_private", (N,), (64,), [In(lim), Out(np.int32, N), Out(np.int32, N)],
                {1: cnt, 2: last})
