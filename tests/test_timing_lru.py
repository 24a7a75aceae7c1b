"""The caches' LRU (gcnemu/timing/model.py _cache_access, _cache_drop, _drop_owned: the L1s,
the L2 and the K$) against true LRU written out plainly here: a hit takes the lookup's stamp;
a miss fills the empty way of lowest index, else the way of least stamp; a drop empties the
line's way; a wave's end empties the entries it owns. Random sequences from random starting
states (lines an earlier dispatch left, with their stamps, and empty ways), on sets of 1, 4,
8 (the L2), 64 ways (the L1) and 100 (a TimingConfig's wider L1)."""
import numpy as np
import pytest

from gcnemu.timing import model as M


class _TrueLRU:
    def __init__(self, tags, stamps, ways):
        self.tags, self.stamps, self.ways = list(tags), list(stamps), ways

    def access(self, s, line, clock):
        ent = range(s * self.ways, (s + 1) * self.ways)
        for e in ent:
            if self.tags[e] == line:
                self.stamps[e] = clock
                return True, e, -1
        empty = [e for e in ent if self.tags[e] < 0]
        e = empty[0] if empty else min(ent, key=lambda i: self.stamps[i])
        ev = self.tags[e]
        self.tags[e], self.stamps[e] = line, clock
        return False, e, ev

    def drop(self, e):
        self.tags[e], self.stamps[e] = -1, 0


@pytest.mark.parametrize("ways,nsets,seed", [(1, 3, 0), (4, 2, 1), (8, 4, 2), (64, 2, 3),
                                            (100, 2, 4)])
def test_cache_lru_matches_true_lru(ways, nsets, seed):
    rng = np.random.default_rng(seed)
    n = ways * nsets
    pool = rng.choice(1 << 40, 3 * n + 4, replace=False).astype(np.int64)
    tags = np.full(n, -1, np.int64)
    stamps = np.zeros(n, np.int64)
    for s in range(nsets):
        held = [int(x) for x in pool if x % nsets == s][:ways]
        for w in range(ways):
            if held and rng.random() < 0.8:
                tags[s * ways + w] = held.pop()
    valid = tags >= 0
    stamps[valid] = rng.choice(10 * n, int(valid.sum()), replace=False) + 1
    clock = 10 * n + 1
    ref = _TrueLRU(tags, stamps, ways)
    own = np.zeros(n, np.int64)
    for step in range(30 * n + 200):
        r = rng.random()
        line = int(pool[rng.integers(len(pool))])
        s = line % nsets
        if r < 0.85:
            clock += 1
            got = M._cache_access(tags, stamps, s * ways, ways, line, clock)
            assert (bool(got[0]), int(got[1]), int(got[2])) == ref.access(s, line, clock), step
            own[got[1]] = 1 + int(rng.integers(3)) if rng.random() < 0.2 else 0
        elif r < 0.95:
            M._cache_drop(tags, stamps, s * ways, ways, line)
            for e in range(s * ways, (s + 1) * ways):
                if ref.tags[e] == line:
                    ref.drop(e)
        else:
            owner = 1 + int(rng.integers(3))
            gone = [e for e in range(n) if own[e] == owner and ref.tags[e] >= 0]
            M._drop_owned(tags, stamps, own, 0, n, owner)
            for e in gone:
                ref.drop(e)
            assert not (own == owner).any(), step
        assert tags.tolist() == ref.tags and stamps.tolist() == ref.stamps, step
