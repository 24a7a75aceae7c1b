"""Instruction fetch: the instruction cache (I$) of each group of CUs, for the cycle model.

What is modelled (parameters in gcnemu/timing/config.py, each with its source):

* An I$ per ``kcache_cus`` CUs (the SQC, which also holds the K$): ``icache_bytes`` (32 KB),
  ``icache_ways`` (4), 64-byte lines, LRU, backed by the L2 (AMD's GCN Architecture
  whitepaper: "A cluster of up to 4 Compute Units share a single 32KB L1 instruction cache
  that is 4-way associative and backed by the L2 cache. Cache lines are 64B long").
* The code lies where the dispatch put it: line = (code address of the row) // 64, so two
  kernels whose code maps to the same sets evict each other.
* A wave fetches ``icache_fetch_bytes`` (32) at a time (the whitepaper's "32B instruction
  fetch per cycle"; CLRX: "program divided by in 32-byte blocks"): before it issues an
  instruction whose bytes lie in a block it has not fetched since its previous one (the
  next block of straight-line code), after every taken branch (gpu-overview: "Taken branches
  require a read from the instruction cache"; the branch target's blocks) and at its start.
  Each such fetch looks up the lines of those blocks: a hit costs nothing beyond the issue
  costs (CLRX's per-instruction cycles count "fast dispatching from cache"), a miss waits
  for the line from the L2 (the model's L2 and DRAM latencies and queue), and a wave that
  finds a line another wave's miss is still bringing in waits for the same arrival. The
  wave's wait is booked as the "fetch" stall of the instruction it was about to issue.
* ``s_icache_inv`` (CLRX GcnInstrsSopp.md: "Invalidate entire L1 instruction cache") empties
  the I$ of the issuing wave's CU group when it issues, in (cycle, CU) order like a fetch
  that may miss: every wave of the group misses on its next fetch of a line (the blocks a
  wave already holds in its buffer stay there: the next row of the same block needs no
  fetch). Neither document gives it a cost of its own: it issues at the sequencer's
  ``default_cycles`` as the other internal s_* instructions; its price is the misses after.
  Other groups' I$s are not touched (the command processor's invalidate of every I$ between
  dispatches is ``GPUCaches.invalidate("i")``).
* Not modelled: prefetching of the next line, the I$'s bandwidth (32 B a cycle shared by
  the group: one fetch a cycle is more than the CUs' issue needs).

Counters (rocprof's names): SQ_IFETCH (blocks fetched), SQC_ICACHE_HITS,
SQC_ICACHE_MISSES (lines read from the L2), SQC_ICACHE_MISSES_DUPLICATE (lookups of a line a
miss is still bringing in).

Order between CUs. The cycle model runs each CU on its own clock and brings CUs into
(cycle, CU) order only for accesses to shared state (gcnemu/timing/model.py); a CU group's
I$ is such state. A fetch that may miss, or that may touch a line some other access could
evict first, takes that ordered path (``ordered=True``: and its misses go to the L2). A
fetch is resolved without it when its result cannot depend on the order: each of its lines
is in the I$, was already looked up in this dispatch, and its set holds no more of the
program's lines than it has ways ("small"). Such a line cannot be evicted during the
dispatch: only the program's lines are fetched, a miss evicts the least recently used entry
(invalid ones first), and an LRU stamp of this dispatch (``base`` + cycle) is newer than any
entry not looked up in it, of which a small set always holds one when it misses. LRU stamps
only grow (the larger of the old stamp and the access's), so their final values do not
depend on the order of those hits either. (The replay tests check this against a replay in
strict (cycle, CU) order.) ``s_icache_inv`` breaks the first premise (a line held can leave
during the dispatch, and a CU running ahead could hit on a line another CU's earlier
invalidate has dropped), so a dispatch whose program contains it has no small sets: all its
fetches take the ordered path (``prepare(..., invalidates=True)``).

The state is one int64 array, ``ic``, laid out below: the persistent tags and stamps of the
GPU's I$s (gcnemu.timing.caches.GPUCaches) copied in by ``prepare`` and back by ``finish``,
and per dispatch the lines' arrival cycles, the small sets and per program row the blocks a
fetch of it reads.
"""
from __future__ import annotations

import numpy as np

from ..exec.jit import njit
from ..mem.space import BASE as MEMORY_BASE

#: bits of the category in a wave's next-row word (the model's _next_word, categories 0..6):
#: a fetch is pending before that row issues, entered in sequence (the row's new blocks) or
#: by a jump or at the wave's start (all the row's blocks)
PEND_SEQ = 8
PEND_JUMP = 16
CAT_MASK = 7
INF = np.int64(1) << 62

# header of ``ic``
(IC_BASE, IC_SETS, IC_WAYS, IC_GROUP, IC_SHIFT, IC_TAGS, IC_STAMPS, IC_RDY, IC_SMALL, IC_ROWS,
 IC_NROWS, IC_NMISS, IC_MISS, NHEAD) = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16)
#: (IC_MISS: entry, line of at most two misses of the fetch being resolved in order; IC_GROUP:
#: where the table of the first entry of each CU's I$ lies, one per CU)


@njit(inline="always")
def seq_fetch(ic, row):
    """PEND_SEQ when a wave that enters ``row`` in sequence fetches (the row has bytes in a
    block after the previous row's last), else 0."""
    r = ic[IC_ROWS] + 3 * row
    return PEND_SEQ if ic[r] <= ic[r + 2] else 0


@njit(inline="always")
def pending(ic, row, nxt):
    """The pending-fetch bits of the row ``nxt`` a wave goes to from ``row``: PEND_JUMP when
    it is not the next row in the program (a taken branch), else seq_fetch."""
    if nxt != row + 1:
        return PEND_JUMP
    return seq_fetch(ic, nxt)


@njit(inline="always")
def _hit(ic, h, stamp, t, ctr, x_fetch):
    """A lookup that found its line in entry ``h`` at cycle t: the entry's LRU stamp becomes
    at least ``stamp``; returns the cycle the line is there, t, or later while the miss that
    brings it is still on its way (a duplicate miss)."""
    st = ic[IC_STAMPS] + h
    ic[st] = max(ic[st], stamp)
    rdy = ic[ic[IC_RDY] + h]
    if rdy > t:
        ctr[x_fetch + 3] += 1
        return rdy
    ctr[x_fetch + 1] += 1
    return t


@njit(inline="always")
def fetch_one(ic, cu, row, pend, t, ctr, x_fetch):
    """``fetch(..., ordered=False, ...)`` for the common case, a fetch of one line, inlined
    into the model's loops (the same result); a fetch of two lines goes to ``fetch``."""
    r = ic[IC_ROWS] + 3 * row
    first = ic[r + 1] if pend & PEND_JUMP else ic[r]
    last = ic[r + 2]
    sh = ic[IC_SHIFT]
    line = first >> sh
    if last >> sh != line:
        return fetch(ic, cu, row, pend, t, np.bool_(False), ctr, x_fetch)
    s = line & (ic[IC_SETS] - 1)
    if ic[ic[IC_SMALL] + s] == 0:
        return np.int64(-1)
    ways = ic[IC_WAYS]
    e = ic[IC_TAGS] + ic[ic[IC_GROUP] + cu] + s * ways
    for i in range(e, e + ways):
        if ic[i] == line:
            h = i - ic[IC_TAGS]
            st = ic[IC_STAMPS] + h
            base = ic[IC_BASE]
            if ic[st] < base:
                return np.int64(-1)
            ctr[x_fetch] += last - first + 1
            return _hit(ic, h, base + t, t, ctr, x_fetch)
    return np.int64(-1)


@njit(inline="always")
def sure_hit(ic, cu, row, pend, t):
    """Whether a fetch of the blocks of ``row`` that ``pend`` names, by a wave of CU ``cu`` at
    cycle t or any later cycle of this dispatch, hits and waits for nothing, whatever the
    order of the CUs' accesses: ``fetch(..., ordered=False)`` would return t. Each line is
    held, was looked up in this dispatch, lies in a small set (so it cannot leave, see the
    module docstring) and has arrived. Changes nothing (the model's period replay asks this
    before a scan it may repeat)."""
    r = ic[IC_ROWS] + 3 * row
    first = ic[r + 1] if pend & PEND_JUMP else ic[r]
    sh = ic[IC_SHIFT]
    ways = ic[IC_WAYS]
    base = ic[IC_BASE]
    grp = ic[ic[IC_GROUP] + cu]
    tags = ic[IC_TAGS]
    for line in range((first >> sh), (ic[r + 2] >> sh) + 1):
        s = line & (ic[IC_SETS] - 1)
        if ic[ic[IC_SMALL] + s] == 0:
            return False
        h = np.int64(-1)
        for i in range(grp + s * ways, grp + s * ways + ways):
            if ic[tags + i] == line:
                h = i
                break
        if h < 0 or ic[ic[IC_STAMPS] + h] < base or ic[ic[IC_RDY] + h] > t:
            return False
    return True


@njit(_nrt=False)
def fetch(ic, cu, row, pend, t, ordered, ctr, x_fetch):
    """Fetch the blocks of ``row`` that the pending bits ``pend`` name, for a wave of CU
    ``cu`` at cycle t: the cycle at which they have all arrived (t or later), or -1 when
    ``ordered`` is False and the result could depend on the order of the CUs' accesses (see
    the module docstring: nothing is changed then). With ``ordered``, misses take their
    entries (LRU) and are listed at ic[IC_NMISS], ic[IC_MISS:]: the caller reads their lines
    from the L2 and calls ``filled``. ctr[x_fetch:x_fetch + 4]: SQ_IFETCH, SQC_ICACHE_HITS,
    SQC_ICACHE_MISSES, SQC_ICACHE_MISSES_DUPLICATE."""
    r = ic[IC_ROWS] + 3 * row
    first = ic[r + 1] if pend & PEND_JUMP else ic[r]
    last = ic[r + 2]
    sh = ic[IC_SHIFT]
    mask = ic[IC_SETS] - 1        # (a power of two: TimingConfig checks)
    ways = ic[IC_WAYS]
    base = ic[IC_BASE]
    grp = ic[ic[IC_GROUP] + cu]
    tags = ic[IC_TAGS]
    stamps = ic[IC_STAMPS]
    l0 = first >> sh
    l1 = last >> sh
    if not ordered:
        # each line held, looked up in this dispatch, in a small set: hits whatever the order
        # (found entries in h0, h1)
        h0 = np.int64(-1)
        h1 = np.int64(-1)
        for line in range(l0, l1 + 1):
            s = line & mask
            if ic[ic[IC_SMALL] + s] == 0:
                return np.int64(-1)
            e = grp + s * ways
            h = np.int64(-1)
            for i in range(e, e + ways):
                if ic[tags + i] == line:
                    h = i
                    break
            if h < 0 or ic[stamps + h] < base:
                return np.int64(-1)
            if line == l0:
                h0 = h
            else:
                h1 = h
        ctr[x_fetch] += last - first + 1
        arrive = t
        for h in (h0, h1):
            if h >= 0:
                arrive = max(arrive, _hit(ic, h, base + t, t, ctr, x_fetch))
        return arrive
    ctr[x_fetch] += last - first + 1
    arrive = t
    nmiss = 0
    for line in range(l0, l1 + 1):
        e = grp + (line & mask) * ways
        hit = -1
        victim = e
        for i in range(e, e + ways):
            if ic[tags + i] == line:
                hit = i
                break
            # invalid entries first, then the least recently used (lowest way on a tie)
            if ic[tags + victim] >= 0 and (ic[tags + i] < 0 or
                                           ic[stamps + i] < ic[stamps + victim]):
                victim = i
        if hit >= 0:
            arrive = max(arrive, _hit(ic, hit, base + t, t, ctr, x_fetch))
            continue
        ctr[x_fetch + 2] += 1
        ic[tags + victim] = line
        ic[stamps + victim] = base + t
        ic[ic[IC_RDY] + victim] = INF
        ic[IC_MISS + 2 * nmiss] = victim
        ic[IC_MISS + 2 * nmiss + 1] = line
        nmiss += 1
    ic[IC_NMISS] = nmiss
    return arrive


@njit(_nrt=False)
def invalidate(ic, cu):
    """``s_icache_inv`` issued on CU ``cu``: every entry of its group's I$ becomes invalid
    (tag -1, stamp 0: taken first by the next miss of its set). Called in (cycle, CU) order.
    A wave already waiting for a line keeps the arrival cycle its fetch returned."""
    ways = ic[IC_WAYS]
    e = ic[IC_TAGS] + ic[ic[IC_GROUP] + cu]
    for i in range(e, e + ic[IC_SETS] * ways):
        ic[i] = -1
        ic[i - ic[IC_TAGS] + ic[IC_STAMPS]] = 0


@njit(inline="always")
def filled(ic, k, at):
    """The k-th miss of the last ordered fetch arrives at cycle ``at``; returns ``at``."""
    ic[ic[IC_RDY] + ic[IC_MISS + 2 * k]] = at
    return at


def code_address(caches, prog, code_base: int) -> int:
    """The address the I$ and the L2 see for the program's first byte: ``code_base``, where the
    dispatch mapped its code object. A program without one (bare assembly, snippets: the
    engine runs them at address 0, which no memory backs) gets a range of its own above the
    48-bit address space, one per program and GPU (``caches.unmapped_code``), 4 GB apart, so
    that two such programs share no line; their first bytes map to the same set, as code
    objects mapped at 4 KB boundaries do."""
    if code_base >= MEMORY_BASE:
        return int(code_base)
    table = caches.unmapped_code
    hit = table.get(id(prog))
    if hit is None or hit[0] is not prog:
        hit = (prog, (1 << 48) + (len(table) << 32) + int(code_base))
        table[id(prog)] = hit
    return hit[1]


def blocks(pcs, sizes, code_base: int, fetch_bytes: int) -> np.ndarray:
    """Per program row: (first block a fetch reads when the row is entered in sequence, first
    block when it is jumped to, its last block), blocks of ``fetch_bytes`` numbered by address
    (address // fetch_bytes); the row's bytes are code_base + pc .. + size - 1. A row entered in
    sequence reads the blocks after the previous row's last one (none when it ends in that)."""
    pcs = np.asarray(pcs, np.int64) + int(code_base)
    sizes = np.maximum(np.asarray(sizes, np.int64), 1)
    first = pcs // fetch_bytes
    last = (pcs + sizes - 1) // fetch_bytes
    seq = first.copy()
    seq[1:] = np.maximum(first[1:], last[:-1] + 1)
    return np.stack([seq, first, last], axis=1).astype(np.int64)


def prepare(tags, stamps, base: int, ngroups: int, tc, rows: np.ndarray,
            invalidates: bool = False) -> np.ndarray:
    """The ``ic`` array of a dispatch: header, the GPU's I$ ``tags`` and ``stamps`` (copies;
    ``finish`` writes them back), arrival cycles (every line held has arrived when a dispatch
    starts), the small sets of this program and ``rows`` (``blocks``: int64 [rows, 3]).
    ``invalidates``: the program contains ``s_icache_inv``; then no set is small (see the
    module docstring)."""
    return fill(layout(tags.shape[0], ngroups, tc, rows, invalidates), tags, stamps, base)


def fill(ic: np.ndarray, tags, stamps, base: int) -> np.ndarray:
    """Put the GPU's I$ ``tags``, ``stamps`` and LRU ``base`` into ``ic``, a copy of a
    ``layout`` (what changes from one dispatch of a program to the next); returns it."""
    n = tags.shape[0]
    o = int(ic[IC_TAGS])
    if ic[IC_STAMPS] - o != n:
        raise ValueError("icache.fill: the tag arrays do not match the layout")
    ic[IC_BASE] = base
    ic[o:o + n] = tags
    ic[o + n:o + 2 * n] = stamps
    return ic


def layout(n: int, ngroups: int, tc, rows: np.ndarray, invalidates: bool = False) -> np.ndarray:
    """What ``prepare`` puts in ``ic`` that depends only on the program, where its code lies
    and the configuration (header, group table, small sets, ``rows``), with room for ``n``
    tags and stamps (zero) and the arrival cycles (zero: every line held has arrived when a
    dispatch starts): the same for every dispatch of the program, so the model keeps it and
    ``fill``s a copy."""
    sets = tc.icache_bytes // (64 * tc.icache_ways)
    nrows = rows.shape[0]
    sh = 6 - int(tc.icache_fetch_bytes).bit_length() + 1    # blocks per line: 1 << sh
    cus = ngroups * tc.kcache_cus
    ic = np.zeros(NHEAD + cus + 3 * n + sets + 3 * nrows, np.int64)
    ic[IC_SETS] = sets
    ic[IC_WAYS] = tc.icache_ways
    ic[IC_SHIFT] = sh
    ic[IC_GROUP] = NHEAD
    ic[NHEAD:NHEAD + cus] = (np.arange(cus) // tc.kcache_cus) * sets * tc.icache_ways
    o = NHEAD + cus
    ic[IC_TAGS] = o
    ic[IC_STAMPS] = o + n
    ic[IC_RDY] = o + 2 * n
    ic[IC_SMALL] = o + 3 * n
    ic[IC_ROWS] = o + 3 * n + sets
    ic[IC_NROWS] = nrows
    if n != ngroups * sets * tc.icache_ways:
        raise ValueError("icache.layout: the tag arrays do not match the configuration")
    # small sets: those that at most ``ways`` of the program's lines map to (the program's
    # code is one range of lines, so each set holds the quotient or one more)
    if nrows and not invalidates:
        lo = int(rows[:, 1].min()) >> sh
        hi = int(rows[:, 2].max()) >> sh
        count = np.zeros(sets, np.int64)
        np.add.at(count, np.arange(lo, hi + 1) % sets, 1)
        ic[ic[IC_SMALL]:ic[IC_SMALL] + sets] = count <= tc.icache_ways
    if nrows:
        ic[ic[IC_ROWS]:] = rows.ravel()
    return ic


def finish(ic: np.ndarray, tags, stamps, cycles: int) -> int:
    """Write a dispatch's I$ state back into the GPU's ``tags`` and ``stamps``; returns the
    LRU base of the next dispatch (newer than every stamp this one gave)."""
    n = tags.shape[0]
    tags[:] = ic[ic[IC_TAGS]:ic[IC_TAGS] + n]
    stamps[:] = ic[ic[IC_STAMPS]:ic[IC_STAMPS] + n]
    return int(ic[IC_BASE]) + max(int(cycles), 0) + 1
