"""The timing model's caches of one GPU, kept from one dispatch to the next.

On the hardware the L2 (TCC), the CUs' L1s (TCP) and the scalar K$ keep their contents
between dispatches; the synchronisation rules of the seed caches-and-coherency.txt exist
because of that ("No flushes are required if the data is consumed through the same cache
that it has been written through"). ``GPU(timing=True).caches`` holds their tags, LRU stamps
and the L2's dirty bits; every dispatch of that GPU starts from what the previous one left,
and the operations below flush or invalidate a level explicitly (the command processor's
cache operations call them). Only tags are kept: the functional memory is always current.
"""
from __future__ import annotations

import numpy as np

from ..errors import GcnEmuError

#: the levels and the operations the seed's table ("Supported cache operations") gives them:
#: TCP (L1) and TCC (L2): writeback+invalidate; K-cache and I-cache (SQC): invalidate. The L1
#: is write-through, so it never holds dirty lines.
LEVELS = ("l1", "l2", "k", "i")


class GPUCaches:
    """Tags of the L1s (one per CU), the L2, the K$s and the I$s (one of each per
    ``kcache_cus`` CUs) of a GPU in timing mode, as the cycle model (gcnemu/timing/model.py,
    gcnemu/timing/icache.py) reads and updates them.

    ``invalidate(level)``, ``writeback(level)``, ``flush(level)`` (writeback then
    invalidate) take "l1", "l2", "k", "i" or "all" and return the number of dirty lines they
    wrote back to memory (only the L2 holds any); ``valid_lines(level)`` and
    ``dirty_lines()`` say what the caches hold."""

    def __init__(self, compute_units: int, tc):
        #: what the tag arrays are laid out for (see check)
        self.geometry = self._geometry(compute_units, tc)
        l1 = compute_units * (tc.l1_bytes // 64)
        l2 = tc.l2_channels * (tc.l2_channel_bytes // 64)
        nk = -(-compute_units // tc.kcache_cus)
        k = nk * (tc.kcache_bytes // 64)
        self.l1_tags = np.full(l1, -1, np.int64)
        self.l1_stamps = np.zeros(l1, np.int64)
        self.l2_tags = np.full(l2, -1, np.int64)
        self.l2_stamps = np.zeros(l2, np.int64)
        self.l2_dirty = np.zeros(l2, np.int64)
        self.k_tags = np.full(k, -1, np.int64)
        self.k_stamps = np.zeros(k, np.int64)
        #: the I$s: one per K$ group; ``i_base``: the LRU stamp base of the next dispatch
        #: (gcnemu/timing/icache.py: stamps are base + cycle)
        self.i_groups = nk
        ni = nk * (tc.icache_bytes // 64)
        self.i_tags = np.full(ni, -1, np.int64)
        self.i_stamps = np.zeros(ni, np.int64)
        self.i_base = 1
        #: programs without a code object in GPU memory: id -> (program, the address their
        #: code has for the I$ and the L2), see icache.code_address
        self.unmapped_code = {}
        #: the LRU clock: one tick per line looked up, over all dispatches
        self.lru = np.zeros(1, np.int64)

    @staticmethod
    def _geometry(compute_units: int, tc) -> tuple:
        return (compute_units, tc.l1_bytes, tc.l1_ways, tc.l2_channels, tc.l2_channel_bytes,
                tc.l2_ways, tc.kcache_bytes, tc.kcache_ways, tc.kcache_cus, tc.icache_bytes,
                tc.icache_ways)

    def check(self, compute_units: int, tc) -> None:
        """Raise a GcnEmuError unless the caches were made for this GPU's CU count and cache
        geometry (the model indexes the tag arrays without bounds checks)."""
        if self._geometry(compute_units, tc) != self.geometry:
            raise GcnEmuError("the GPU's caches were made for another configuration (its "
                              "config or timing_config changed after GPU() was built): make a "
                              "new GPU")

    def _levels(self, level: str) -> tuple:
        if level == "all":
            return LEVELS
        if level not in LEVELS:
            raise GcnEmuError(f"unknown cache level {level!r}; levels: {', '.join(LEVELS)} or 'all'")
        return (level,)

    def _arrays(self, level: str):
        return {"l1": (self.l1_tags, self.l1_stamps), "l2": (self.l2_tags, self.l2_stamps),
                "k": (self.k_tags, self.k_stamps), "i": (self.i_tags, self.i_stamps)}[level]

    def writeback(self, level: str = "l2") -> int:
        """Write the level's dirty lines back to memory (they stay valid); returns how many.
        The L1 is write-through and the K$ and I$ read-only: 0 for them."""
        n = 0
        for lv in self._levels(level):
            if lv == "l2":
                n += int(np.count_nonzero(self.l2_dirty))
                self.l2_dirty[:] = 0
        return n

    def invalidate(self, level: str) -> int:
        """Drop every line of the level (the next access misses). The seed's L2 supports
        only writeback+invalidate, so invalidating the L2 writes its dirty lines back first;
        returns the number of lines written back."""
        n = 0
        for lv in self._levels(level):
            if lv == "l2":
                n += self.writeback("l2")
            tags, stamps = self._arrays(lv)
            tags[:] = -1
            stamps[:] = 0
        return n

    def flush(self, level: str = "all") -> int:
        """Writeback and invalidate the level (the seed's "Writeback+Invalidate"); returns
        the number of lines written back."""
        return self.invalidate(level)

    def valid_lines(self, level: str) -> int:
        """How many 64-byte lines the level holds (over all its instances)."""
        return sum(int(np.count_nonzero(self._arrays(lv)[0] >= 0)) for lv in self._levels(level))

    def dirty_lines(self) -> int:
        """How many L2 lines hold data not yet written to memory."""
        return int(np.count_nonzero(self.l2_dirty))

    def holds(self, level: str, address: int) -> bool:
        """Whether some instance of the level holds the 64-byte line of ``address``."""
        line = int(address) >> 6
        return any(bool(np.any(self._arrays(lv)[0] == line)) for lv in self._levels(level))
