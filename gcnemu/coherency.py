"""Coherency-accurate mode (``GPU(coherent_caches=True)``): caches that hold data.

What the seed caches-and-coherency.txt says, and what this module makes true of every
dispatch of such a GPU:

* "Some caches, like the L2 (TCC) and the L1 (TCP) are organized in a hierarchy. Most GPU
  blocks always run in parallel and don't automatically synchronize or snoop each other's
  caches." Each CU has an L1 that is write-through and not snooped: a line it holds keeps
  the data it had when the CU read (or wrote) it, whatever other CUs, later dispatches or the
  host write afterwards, until an L1 invalidate (a queue's cache_op("l1"), or a wave's
  ``buffer_wbinvl1(_vol)``, which LLVM puts after acquiring atomics: the CU's loads after it
  read the L2). The K$ (scalar cache, one per SCALAR_CACHE_CUS CUs) likewise for scalar
  loads (SMRD): "K$/TCC: all constant buffers".
* The L2 is shared and write-back: what the GPU writes stays in it, dirty, until an L2
  write-back; the host (``Buffer.to_numpy``, ``Buffer.write``) and the command processor's
  indirect-argument reads see memory, not the L2. A host write under a line the L2 holds
  leaves the L2's (older) copy, which the GPU keeps reading until an L2 invalidate.
* "All cache lines are 64 bytes." The L1 policies follow the instruction's GLC and SLC bits
  as the timing model (gcnemu/timing/model.py) applies them, from the seed's "L1 cache
  policies": loads without GLC HIT_LRU (SLC: HIT_EVICT), loads with GLC MISS_LRU (SLC:
  MISS_EVICT), stores MISS_LRU (SLC: MISS_EVICT), atomics MISS_EVICT ("atomics support only
  the MISS_EVICT policy"); atomics are performed in the L2.

How a dispatch runs. Its workgroups are split among the CUs in consecutive blocks (CU 0 the
first ``ceil(n / CUs)``, ...), and the CUs run one after the other, in the engine, each on a
view of memory: the L2's contents at the dispatch's start, overlaid with what that CU's L1
and K$ hold from earlier (stale) and, in a queue, with the contents from before the
dispatches that may still be running (``pending``: no barrier retired them). The writes of a
CU are merged, byte by byte, into the L2 after it ran. So, within a dispatch, a load without
GLC of bytes another CU writes sees them as they were at the dispatch's start: the worst
case of the hardware's race (the reading CU's L1 took the line before the write; CUs run
concurrently), which the emulator shows every time instead of once in a thousand runs. Loads
with GLC and atomics, which the L2 serves, see every write made so far in the engine's order
(CU 0's before CU 1's), as the normal mode does. A race-free kernel that follows the seed's
rules reads no stale line, and gets the same bits as in the normal mode.

When no CU has a stale line to read (no pending dispatch, no stale L1 or K$ line: always on
``gpu.dispatch``'s path, whose runtime invalidates the caches first) the workgroups run in
one go, in the same order, which is the same as CU by CU unless a load without GLC read a
line a lower CU wrote: the trace says so afterwards, and the dispatch runs again CU by CU.

The view cannot tell access kinds apart, so a CU runs again (at most MAX_PASSES times in
all) when the trace of its memory accesses (gcnemu/timing/trace.py, recorded in this mode
without the LDS records)
shows a load whose kind must see other data than the view gave it (a GLC load of a line the
CU's L1 holds stale, an atomic on a line another CU wrote): the second run gives such lines
the data that kind sees. A line that kinds disagree on in one CU's run gets the L2's data
(GLC loads and atomics first, then the K$'s, then the L1's).

The caches keep their state (valid bits, data, LRU lists) for the lines below the memory's
high-water mark (``Memory.high_water``: the end of the highest page ever mapped, and the guard
page after it): nothing above it was ever mapped, so no access reads data there or changes
it, and the mode's cost per dispatch follows the buffers, not the size of the backing array.

The caches have the sizes and associativity of the timing model's (gcnemu/timing/config.py
TimingConfig: L1 16 KB 64-way, K$ 16 KB 4-way, L2 4 channels of 128 KB 8-way; 64-byte lines,
LRU, the same set of each line as gcnemu/timing/model.py): after a dispatch its accesses
fill them in order, workgroup by workgroup (so CU by CU), each in the engine's order
(`apply_policies`), and a line a full set evicts leaves its cache: an L1 or K$ copy that was
stale is gone (the next load reads the L2: fresh), a dirty L2 line is written to memory (the
host sees it), an L2 copy older than memory is dropped. Within a dispatch, a stale line
that a CU's own accesses evict from its L1 before its first plain load of it is read from the
L2 (`evicted_before_read`: the CU runs again with that line's L2 data, and there is no
finding); one read both before and after its eviction reads the stale data throughout. The
K$'s and the L2's evictions take effect when the dispatch ends.
Capacity hides a missing invalidate when enough other data passes through the cache, as on
the hardware; a small working set shows it every time. Image
(MIMG) loads, stores and atomics are vector memory accesses like the others (the trace has
the lines of their texels, the L1 is the texture cache), with the same policies by their GLC
and SLC bits: a texture read after a render-target write without an L1 invalidate reads the
old texels. image_sample and image_gather4 are not traced (their filter footprints: the
timing model does not need them), so they read the view but neither fill the L1 nor are
checked.

A dispatch's ``time_limit`` holds for the dispatch as a whole: its runs (one per CU, and
the second runs) share one deadline.

With ``dispatch(..., sanitize=True)`` the sanitizer's findings (gcnemu/sanitize) join the
mode's in the same report: every run the mode keeps is made a second time, from the same
memory, with the sanitizer's recording (`CoherentCaches._sanitize_again` says why), and the
sanitizer analyses the runs of a dispatch together, as one run of the whole (global races
between workgroups of different CUs included; the same with any number of workers). On a
GPU without this mode the sanitizer reports neither ``stale-l1`` nor ``missing-sync``: they
need the caches' state across dispatches; inside one dispatch, the read of bytes another
workgroup writes (stale on the hardware when its L1 holds the line) is its ``global-race``.

Findings (gcnemu.sanitize.findings) go to ``report.findings``: ``stale-l1`` for a vector
load that reads a line its CU's L1 holds stale, or bytes another CU of the dispatch wrote
without GLC; ``missing-sync`` for a scalar load from a stale K$ line, a load of a line the L2
holds older than memory (the host wrote it), a load of data a dispatch that may still be
running writes (no barrier between), and command-processor reads of stale indirect
arguments (gcnemu/queue.py); ``spin-hang`` for a wave that ran into the step or time limit
reading a stale line (the ExecutionError says so too).
"""
from __future__ import annotations

import time

import numpy as np

from .errors import ExecutionError, GcnEmuError
from .exec.jit import njit
from .exec.layout import (C_H, C_K, H_FLAT, H_MIMG, H_MTBUF,
                          H_MUBUF, H_SMRD_LOAD, K_ATOMIC, K_NOP, K_STORE, K_STORE2,
                          K_STORE_FORMAT)
from .isa.disassembler import format_instruction
from .mem.space import BASE
from .sanitize.findings import Finding, merge_findings
from .timing.config import TimingConfig
from .timing.trace import entry_length, record_kinds

#: a CU runs at most this many times in a dispatch (see the module docstring)
MAX_PASSES = 3
#: bytes per cache line (seed: "All cache lines are 64 bytes")
LINE = 64
#: access classes of a program row (what the trace's lines of that row mean)
A_NONE, A_SMRD, A_HIT, A_GLC, A_STORE, A_ATOMIC, A_INV = range(7)
#: CUs that share one K$: the timing model's (TimingConfig.kcache_cus, and its source)
SCALAR_CACHE_CUS = TimingConfig.kcache_cus
#: the most CUs the mode models: a line's writer CUs and the CUs that invalidated their L1
#: are bit sets of one uint64 (GCN 1.1 parts have at most 44 CUs)
MAX_CUS = 64


def row_classes(prog):
    """Per program row: its access class (A_*) and whether it has SLC; cached on the program."""
    cache = prog.__dict__.setdefault("_coherency_tables", {})
    if "cls" in cache:
        return cache["cls"], cache["slc"]
    code = prog.code
    n = len(prog.instructions)
    cls = np.zeros(code.shape[0], np.int64)
    slc = np.zeros(code.shape[0], np.bool_)
    for i in range(n):
        h = int(code[i, C_H])
        if h == H_SMRD_LOAD:
            cls[i] = A_SMRD
            continue
        if h not in (H_FLAT, H_MUBUF, H_MTBUF, H_MIMG):
            continue
        kind = int(code[i, C_K]) & 0xFF
        fields = prog.instructions[i].fields
        if h == H_MUBUF and kind == K_NOP:
            cls[i] = A_INV       # buffer_wbinvl1(_vol): the wave's CU invalidates its L1
            continue
        slc[i] = bool(fields.get("slc", 0))
        store = kind in (K_STORE, K_STORE2, K_STORE_FORMAT)
        # image loads, stores and atomics go through the L1 (the texture cache) as buffer
        # ones do (the trace has their texels' lines: gcnemu/timing/trace.py)
        if kind == K_ATOMIC:
            cls[i] = A_ATOMIC
        elif store:
            cls[i] = A_STORE
        else:
            cls[i] = A_GLC if fields.get("glc", 0) else A_HIT
    cache.update(cls=cls, slc=slc)
    return cls, slc


@njit
def trace_accesses(tr, rec, cls, first_group, wpg, line0, ex, out, j):
    """The memory accesses of a batch's raw trace (gcnemu/timing/trace.py) of the consecutive
    workgroups from ``first_group`` on, ``wpg`` waves each, written to ``out`` (int64 [>= j +
    tr[0], 6]: a trace of tr[0] entries has fewer accesses) from row ``j`` on; returns the
    row after the last. Each row is (workgroup, wave in the workgroup, program row, line
    index = 64-byte line number - ``line0``, 0, 0: the CU and the effective class, set
    later), one for every line of every traced SMRD, FLAT, MUBUF, MTBUF and MIMG instruction
    of a class other than A_NONE, but lines outside ``ex`` or marked in it; one (line 0) for
    each L1 invalidate (A_INV). ``rec`` is the trace's record_kinds(prog)
    (gcnemu/timing/trace.py). The caller sizes ``out`` for all its batches at once (the sum of
    their tr[0]): one pass over each trace and no copy to join them."""
    end = tr[0]
    nl = ex.shape[0]
    w = 0
    i = 2
    while i < end:
        v = tr[i]
        if v < 0:
            w = -v - 1
            i += 1
            continue
        if rec[v] == 0:
            # a row without a record (nearly every entry): a branch, not entry_length's
            # select, so that the next entry's load does not wait for this one's (the walk
            # of a long ALU loop's trace went 3x faster)
            i += 1
            continue
        if rec[v] == 2:
            m = tr[i + 1]
            if cls[v] == A_INV:          # one entry, whatever lines its V# names
                out[j, 0] = first_group + w // wpg
                out[j, 1] = w % wpg
                out[j, 2] = v
                out[j, 3] = 0
                out[j, 4] = 0
                out[j, 5] = 0
                j += 1
            elif cls[v] != 0:
                for q in range(m):
                    x = tr[i + 2 + q] - line0
                    if 0 <= x < nl and not ex[x]:
                        out[j, 0] = first_group + w // wpg
                        out[j, 1] = w % wpg
                        out[j, 2] = v
                        out[j, 3] = x
                        out[j, 4] = 0
                        out[j, 5] = 0
                        j += 1
        i += entry_length(tr, i, rec[v])
    return j


# --- the caches' replacement: LRU, one linked list per set ------------------------------------
# A level (the L1s, the K$s, the L2) keeps, per entry (way), ``ent[e]`` = (its line index, -1
# when free; the previous and the next entry of its set in LRU order, -1 at the ends), per set
# ``ends[s]`` = (its most, its least recently used entry), and per cache and line ``way`` (int8)
# the way that holds it, read where ``valid`` says the cache holds the line: a hit and a miss
# cost the same few steps whatever the associativity (the L1's 64-way sets made a scan of
# every way the mode's largest cost).

@njit(inline="always")
def set_of(cache, n, chb, setb):
    """The set of line number ``n`` in cache ``cache`` of a level of 2^chb channels (line n
    in channel n mod channels) of 2^setb sets each (set n // channels mod sets): the timing
    model's placement (gcnemu/timing/model.py), with shifts and masks (the sizes are powers
    of two: _Lru)."""
    return (((cache << chb) | (n & ((1 << chb) - 1))) << setb) | ((n >> chb) & ((1 << setb) - 1))


@njit(inline="always")
def _unlink(ent, ends, s, e):
    p = ent[e, 1]
    q = ent[e, 2]
    if p >= 0:
        ent[p, 2] = q
    else:
        ends[s, 0] = q
    if q >= 0:
        ent[q, 1] = p
    else:
        ends[s, 1] = p


@njit(inline="always")
def _to_front(ent, ends, s, e):
    """Entry ``e`` of set ``s`` becomes its most recently used."""
    if ends[s, 0] == e:
        return
    _unlink(ent, ends, s, e)
    h = ends[s, 0]
    ent[e, 1] = -1
    ent[e, 2] = h
    if h >= 0:
        ent[h, 1] = e
    else:
        ends[s, 1] = e
    ends[s, 0] = e


@njit(inline="always")
def _to_back(ent, ends, s, e):
    """Entry ``e`` of set ``s`` becomes its least recently used (the next to be taken)."""
    if ends[s, 1] == e:
        return
    _unlink(ent, ends, s, e)
    t = ends[s, 1]
    ent[e, 2] = -1
    ent[e, 1] = t
    if t >= 0:
        ent[t, 2] = e
    else:
        ends[s, 0] = e
    ends[s, 1] = e


@njit
def lru_reset(ent, ends, ways, s0, s1):
    """Sets ``s0``..``s1 - 1`` hold nothing: every entry free, in way order."""
    for s in range(s0, s1):
        b = s * ways
        for i in range(ways):
            e = b + i
            ent[e, 0] = -1
            ent[e, 1] = e - 1 if i > 0 else -1
            ent[e, 2] = e + 1 if i < ways - 1 else -1
        ends[s, 0] = b
        ends[s, 1] = b + ways - 1


@njit(inline="always")
def lru_fill(ent, ends, way, s, wb, line, valid, row):
    """Line ``line`` enters set ``s`` (of 2^wb entries) of cache ``row`` (whose
    lines ``valid[row]`` says), LRU as the timing model's caches (gcnemu/timing/model.py
    _cache_access): a hit becomes the most recently used, a miss takes the least recently
    used entry (a free one if any: lru_free puts them last), evicting its line (its
    ``valid`` cleared). A whole cache invalidated (its ``valid`` cleared) needs nothing
    more: every entry's line is gone, and entries are taken from the back. Returns
    (whether it hit, the line evicted or -1)."""
    base = s << wb
    if valid[row, line]:
        e = base + way[row, line]
        if ent[e, 0] == line:
            _to_front(ent, ends, s, e)
            return True, np.int64(-1)
    e = ends[s, 1]
    t = ent[e, 0]
    ev = np.int64(-1)
    # the entry's line is evicted if the cache still holds it there (a line that left by an
    # invalidate and came back since is held by another entry of the set)
    if t >= 0 and t != line and valid[row, t] and way[row, t] == e - base:
        valid[row, t] = False
        ev = t
    ent[e, 0] = line
    way[row, line] = e - base
    valid[row, line] = True
    _to_front(ent, ends, s, e)
    return False, ev


@njit(inline="always")
def lru_free(ent, ends, way, s, wb, line, row):
    """Line ``line`` leaves set ``s`` (of 2^wb entries) of cache ``row`` (if it holds it):
    its entry becomes free."""
    e = (s << wb) + way[row, line]
    if ent[e, 0] == line:
        ent[e, 0] = -1
        _to_back(ent, ends, s, e)


@njit
def drop_lines(ent, ends, way, ncache, chb, setb, wb, lines, line0):
    """``lines`` (indices; line number = index + ``line0``) leave every one of the
    ``ncache`` caches of a level (their ``valid`` is the caller's)."""
    for x in lines:
        n = x + line0
        for c in range(ncache):
            lru_free(ent, ends, way, set_of(c, n, chb, setb), wb, x, c)


@njit(_nrt=False)   # no reference counting: the helpers' array arguments cost ~80% of it
def apply_policies(acc, slc, l1_valid, k_valid, touched, own, kcus, last_inv, l1e, l1s, l1w,
                   ke, ks, kw, l2e, l2s, l2w, l2v, l2_evicted, geo):
    """The lines the accesses ``acc`` (trace_accesses' columns, CU in column 4, in execution
    order per CU; the effective class in column 5) leave in the L1s (``l1_valid`` [cus,
    lines]) and K$s (``k_valid``), by the seed's L1 policies: loads and stores without SLC
    keep their line (HIT_LRU, MISS_LRU), with SLC drop it (HIT_EVICT, MISS_EVICT), atomics
    drop it (MISS_EVICT); scalar loads fill their K$. What the L1 or K$ does not serve (a
    miss; GLC loads, stores and atomics) goes to the L2 (``l2v``: its valid lines, as [1,
    lines]). Lines enter a set of their cache by `lru_fill`, evicting the least recently
    used one of a full set, as in
    the timing model (``l1e, l1s, l1w``, ``ke, ks, kw``, ``l2e, l2s, l2w``: each level's
    ent, ends and way arrays, see lru_fill; ``geo``: the log2 of the L1's sets and ways, of the K$'s, the line number of
    index 0, the log2 of the L2's channels, sets per channel and ways; line n is in set n mod sets of its L1 or K$, in
    channel n mod channels of the L2 and set n // channels mod sets there); lines the L2
    evicts are marked in ``l2_evicted``. Marks every line in
    ``touched`` and sets bit c of ``own[line]`` (uint64) for the lines CU c's L1 took from
    its own stores. An L1 invalidate (buffer_wbinvl1) empties its CU's L1: the last one of
    each CU is applied, in order (its access index is left in ``last_inv[cu]``, which the
    caller fills with -1: none). Returns how many lines the L2 evicted."""
    l1_setb, l1_wb, k_setb, k_wb, line0 = geo[0], geo[1], geo[2], geo[3], geo[4]
    l2_chb, l2_setb, l2_wb = geo[5], geo[6], geo[7]
    for i in range(acc.shape[0]):
        if acc[i, 5] == A_INV:
            last_inv[acc[i, 4]] = i
    nev = 0
    for i in range(acc.shape[0]):
        row = acc[i, 2]
        x = acc[i, 3]
        c = acc[i, 4]
        kind = acc[i, 5]
        if kind == A_INV:
            if last_inv[c] == i:
                l1_valid[c, :] = False      # (its entries need nothing: lru_fill)
            continue
        touched[x] = True
        n = x + line0
        served = False              # by the L1 or the K$: the L2 does not see the access
        if kind == A_SMRD:
            k = c // kcus
            served, _ev = lru_fill(ke, ks, kw, set_of(k, n, 0, k_setb), k_wb, x, k_valid, k)
        elif kind == A_HIT or kind == A_GLC or kind == A_STORE:
            if slc[row]:
                served = kind == A_HIT and l1_valid[c, x]
                if l1_valid[c, x]:
                    l1_valid[c, x] = False
                    lru_free(l1e, l1s, l1w, set_of(c, n, 0, l1_setb), l1_wb, x, c)
            else:
                hit, _ev = lru_fill(l1e, l1s, l1w, set_of(c, n, 0, l1_setb), l1_wb, x,
                                    l1_valid, c)
                served = hit and kind == A_HIT
                if kind == A_STORE:
                    own[x] |= np.uint64(1) << np.uint64(c)
        elif kind == A_ATOMIC and l1_valid[c, x]:
            l1_valid[c, x] = False
            lru_free(l1e, l1s, l1w, set_of(c, n, 0, l1_setb), l1_wb, x, c)
        if not served:
            _hit, ev = lru_fill(l2e, l2s, l2w, set_of(0, n, l2_chb, l2_setb), l2_wb, x, l2v, 0)
            if ev >= 0:
                nev += not l2_evicted[ev]
                l2_evicted[ev] = True
    return nev


@njit
def _held_copies(changed, written, l1_valid, k_valid, own):
    """int64 [n, 3]: (cache, line, is K$) for each L1 (but the writers' of the line, ``own``
    bits) and K$ that holds a line ``written[i]`` whose data ``changed[i]``. Cache by cache,
    then line by line: each cache's valid row is read in order (a line's column across the
    caches costs a cache miss per cache)."""
    ncu = l1_valid.shape[0]
    nch = 0
    for i in range(written.shape[0]):
        nch += changed[i]
    out = np.empty(((ncu + k_valid.shape[0]) * nch, 3), np.int64)
    n = 0
    if nch == 0:
        return out
    for c in range(ncu + k_valid.shape[0]):
        is_k = c >= ncu
        bit = np.uint64(0) if is_k else np.uint64(1) << np.uint64(c)
        for i in range(written.shape[0]):
            if not changed[i]:
                continue
            x = written[i]
            if k_valid[c - ncu, x] if is_k else (l1_valid[c, x] and not own[x] & bit):
                out[n, 0] = c - ncu if is_k else c
                out[n, 1] = x
                out[n, 2] = 1 if is_k else 0
                n += 1
    return out[:n]


@njit
def settle_lines(touched, written, dl, sl, l2img, seen, l2_valid, l2_dirty, l2_stale, l1_valid,
                 k_valid, own, release, l2_before):
    """The L2's data after a dispatch (all [lines, 8] uint64 line views, line index arrays
    sorted), whose accesses left the lines ``l2_valid`` says in it (`apply_policies`; before
    it: ``l2_before``): lines that came in come from memory (``sl``: the data at the
    dispatch's start); written lines it holds take their new data (``dl``), dirty unless
    ``release`` (the runtime's write-back right after), and memory gets its old data back
    unless ``release``; written lines it evicted are in memory (written back), clean;
    ``seen`` follows memory. Returns int64 [n, 3] (cache, line, is K$) of the
    L1s (not their writers', ``own`` bits) and K$s that hold a written line whose data
    changed: they keep the old data (not snooped)."""
    for x in touched:
        if l2_valid[x] and not l2_before[x]:
            l2img[x, :] = sl[x, :]
    nw = written.shape[0]
    changed = np.zeros(nw, np.bool_)
    for i in range(nw):
        x = written[i]
        for j in range(8):
            if dl[x, j] != sl[x, j]:
                changed[i] = True
                break
    out = _held_copies(changed, written, l1_valid, k_valid, own)
    for x in written:
        l2_stale[x] = False
        if not l2_valid[x]:
            l2_dirty[x] = False           # evicted after the write: written back
            continue
        l2img[x, :] = dl[x, :]
        l2_dirty[x] = not release
        if not release:
            dl[x, :] = sl[x, :]
    for x in touched:
        seen[x, :] = dl[x, :]
    return out


@njit
def evicted_before_read(acc, slc, stale, valid, way, ent, ends, c, setb, wb, line0):
    """The lines of ``stale`` (bool [lines]: CU ``c``'s L1 holds them older than the L2) that
    CU c's accesses ``acc`` (in order, classes in column 5) evict from its L1 before their
    first plain load (A_HIT) reads them: the L1 as apply_policies fills it, on copies
    (``valid``, ``way``: the CU's rows as [1, lines]; ``ent``, ``ends``: the L1s' lists), so
    that the CU's loads of such a line read the L2 (bool [lines])."""
    gone = np.zeros(stale.shape[0], np.bool_)
    read = np.zeros(stale.shape[0], np.bool_)
    for i in range(acc.shape[0]):
        kind = acc[i, 5]
        x = acc[i, 3]
        if kind == A_INV:
            valid[0, :] = False
            continue
        if kind == A_HIT and stale[x] and not read[x]:
            read[x] = True
            gone[x] = not valid[0, x]
        if kind == A_HIT or kind == A_GLC or kind == A_STORE:
            s = set_of(c, x + line0, 0, setb)
            if slc[acc[i, 2]]:
                if valid[0, x]:
                    valid[0, x] = False
                    lru_free(ent, ends, way, s, wb, x, 0)
            else:
                lru_fill(ent, ends, way, s, wb, x, valid, 0)
        elif kind == A_ATOMIC and valid[0, x]:
            valid[0, x] = False
            lru_free(ent, ends, way, set_of(c, x + line0, 0, setb), wb, x, 0)
    return gone


@njit
def by_workgroup(acc, g0, ng):
    """``acc`` (trace_accesses' rows of workgroups ``g0``..``g0 + ng - 1``) in workgroup order,
    each workgroup's rows in their order (a stable counting sort); ``acc`` itself when it is
    in that order already."""
    n = acc.shape[0]
    done = True
    for i in range(1, n):
        if acc[i, 0] < acc[i - 1, 0]:
            done = False
            break
    if done:
        return acc
    at = np.zeros(ng + 1, np.int64)
    for i in range(n):
        at[acc[i, 0] - g0 + 1] += 1
    for g in range(ng):
        at[g + 1] += at[g]
    out = np.empty_like(acc)
    for i in range(n):
        g = acc[i, 0] - g0
        j = at[g]
        for k in range(acc.shape[1]):     # element by element: a row view costs more
            out[j, k] = acc[i, k]
        at[g] = j + 1
    return out


@njit(_nrt=False)
def classify(acc, cls, g0, per, minw, written):
    """Columns 4 and 5 of ``acc`` (trace_accesses' rows, in execution order per CU): the CU,
    ``(workgroup - g0) // per`` when ``per`` > 0 (else column 4 as it is), and the access's
    effective class: its row's (``cls``), but a vector load after an L1 invalidate of its CU
    counts as a GLC load (its L1 holds nothing older: what LLVM's acquire fences rely on).
    Marks the lines stores and atomics wrote in ``written`` (bool [lines]) and lowers
    ``minw[line]`` to the lowest CU that wrote it. Returns whether a load without GLC (or a
    scalar load) read a line that a lower CU wrote: with the CUs in order, one that may have
    read it stale."""
    inv = 0                                  # bit c: CU c invalidated its L1 (c < 64)
    for i in range(acc.shape[0]):
        c = (acc[i, 0] - g0) // per if per > 0 else acc[i, 4]
        acc[i, 4] = c
        k = cls[acc[i, 2]]
        if k == A_INV:
            inv |= 1 << c
        elif k == A_HIT and (inv >> c) & 1:
            k = A_GLC
        acc[i, 5] = k
        if k == A_STORE or k == A_ATOMIC:
            x = acc[i, 3]
            written[x] = True
            if c < minw[x]:
                minw[x] = c
    for i in range(acc.shape[0]):
        k = acc[i, 5]
        if (k == A_HIT or k == A_SMRD) and minw[acc[i, 3]] < acc[i, 4]:
            return True
    return False


def _trace_accesses_of(parts, ctx) -> np.ndarray:
    """trace_accesses of the traces ``parts`` ((trace, first workgroup, waves per
    workgroup) each), joined in their order: int64 [n, 6]."""
    out = np.empty((sum(max(int(tr[0]), 0) for tr, _g, _w in parts), 6), np.int64)
    j = 0
    for tr, g, wpg in parts:
        j = trace_accesses(tr, ctx["rec"], ctx["cls"], g, wpg, BASE // LINE, ctx["ex"], out, j)
    return out[:j]


def _lines_in_use(memory) -> int:
    """The lines the caches keep state for: those below the memory's high-water mark (the
    lines above were never mapped: no access reads data there or changes it, so no cache
    holds them, and a per-dispatch cost scales with the buffers, not the backing array)."""
    return -(-memory.high_water // LINE)


def _lines_of(data: np.ndarray) -> np.ndarray:
    """data (uint8, a multiple of 64 bytes) as [lines, 8] uint64 for line-wise compares."""
    return data.view(np.uint64).reshape(-1, LINE // 8)


#: why a load's data is stale (a finding's cause): none, a dispatch that may still run, the
#: CU's L1, its K$, a write of another CU of the dispatch, the L2 older than memory
WHY_NONE, WHY_PEND, WHY_L1, WHY_K, WHY_RACE, WHY_L2 = range(6)
_CAUSE_NAMES = {WHY_PEND: "overlap", WHY_L1: "l1", WHY_K: "k", WHY_RACE: "other-cu", WHY_L2: "l2"}


class _Lru:
    """The replacement state of one level (see lru_fill): ``ncache`` caches of ``ch``
    channels of ``sets`` sets of ``ways`` entries."""

    def __init__(self, ncache: int, ch: int, sets: int, ways: int):
        if ways > 64 or any(v & (v - 1) for v in (ch, sets, ways)):
            raise GcnEmuError(f"a cache of {ch} channel(s) of {sets} sets of {ways} ways: "
                              f"coherency-accurate mode takes powers of two, at most 64 ways")
        self.ncache, self.ch, self.sets, self.ways = ncache, ch, sets, ways
        self.chb, self.setb, self.wb = (int(v).bit_length() - 1 for v in (ch, sets, ways))
        self.ent = np.zeros((ncache * ch * sets * ways, 3), np.int64)
        self.ends = np.zeros((ncache * ch * sets, 2), np.int64)
        self.way = np.zeros((ncache, 0), np.int8)
        lru_reset(self.ent, self.ends, self.ways, 0, self.ends.shape[0])


class CoherentCaches:
    """The data the caches of one coherency-accurate GPU hold, kept from one dispatch (or
    queue packet) to the next. See the module docstring for the model.

    ``gpu.memory`` holds DRAM (what the host sees) between dispatches. ``l2img`` holds the
    L2's contents on its valid lines (``l2_valid``; ``l2_dirty``: newer than memory;
    ``l2_stale``: older, the host wrote memory since). Per CU, ``l1_valid`` says which lines
    its L1 holds and ``l1_stale[cu]`` the contents of those it holds older than the L2
    (line -> (contents, what wrote the newer data)); ``k_valid`` / ``k_stale`` the same per
    K$. ``seen`` is memory as the caches last saw it, on the lines some cache holds (host
    writes are found by comparing)."""

    def __init__(self, compute_units: int, tc: TimingConfig | None = None):
        if not 1 <= compute_units <= MAX_CUS:
            raise GcnEmuError(f"coherency-accurate mode models 1 to {MAX_CUS} CUs, not "
                              f"{compute_units} (num_cus=)")
        self.cus = compute_units
        self.nk = -(-compute_units // SCALAR_CACHE_CUS)
        # the geometry of the timing model's caches (gcnemu/timing/config.py): sets of
        # 64-byte lines, LRU (the lists of lru_fill decide what leaves; l1_valid, k_valid and
        # l2_valid say what a cache holds)
        tc = tc if tc is not None else TimingConfig()
        l1_sets = tc.l1_bytes // LINE // tc.l1_ways
        k_sets = tc.kcache_bytes // LINE // tc.kcache_ways
        l2_sets = tc.l2_channel_bytes // LINE // tc.l2_ways
        self.lru = {"l1": _Lru(compute_units, 1, l1_sets, tc.l1_ways),
                    "k": _Lru(self.nk, 1, k_sets, tc.kcache_ways),
                    "l2": _Lru(1, tc.l2_channels, l2_sets, tc.l2_ways)}
        l1, k, l2 = self.lru["l1"], self.lru["k"], self.lru["l2"]
        self.geo = np.array([l1.setb, l1.wb, k.setb, k.wb, BASE // LINE, l2.chb, l2.setb,
                             l2.wb], np.int64)
        self.nlines = 0
        self.seen = np.zeros(0, np.uint8)
        self.l2img = np.zeros(0, np.uint8)
        self.l2_valid = np.zeros(0, np.bool_)
        self.l2_dirty = np.zeros(0, np.bool_)
        self.l2_stale = np.zeros(0, np.bool_)
        self.l1_valid = np.zeros((compute_units, 0), np.bool_)
        self.k_valid = np.zeros((self.nk, 0), np.bool_)
        self.l1_stale = [dict() for _ in range(compute_units)]
        self.k_stale = [dict() for _ in range(self.nk)]
        #: coherent dispatches run (the slow path: CU by CU, see run_dispatch)
        self.dispatches = 0
        self.cu_by_cu = 0

    # --- keeping up with memory -----------------------------------------------------------
    def _grow(self, n: int) -> None:
        old = self.nlines

        def ext(a):
            out = np.zeros(a.shape[:-1] + (n * (LINE if a.dtype == np.uint8 else 1),), a.dtype)
            k = min(a.shape[-1], out.shape[-1])
            out[..., :k] = a[..., :k]
            return out
        self.seen, self.l2img = ext(self.seen), ext(self.l2img)
        self.l2_valid, self.l2_dirty, self.l2_stale = (ext(self.l2_valid), ext(self.l2_dirty),
                                                       ext(self.l2_stale))
        self.l1_valid, self.k_valid = ext(self.l1_valid), ext(self.k_valid)
        for lru in self.lru.values():
            lru.way = ext(lru.way)
        self.nlines = n
        del old

    def sync(self, memory, exempt=()) -> None:
        """Take in what happened to memory outside the caches since the last operation:
        growth, and host writes (Buffer.write, to_device, allocation) to lines a cache holds:
        the L2 keeps its older copy (stale there until an L2 invalidate); an L1 or K$ whose
        line the L2 does not hold keeps its copy too. ``exempt``: (address, bytes) regions the
        command processor writes for a dispatch (kernel arguments, dispatch packet,
        scratch), which reach the kernel fresh: written through the L2, dropped from the L1s
        and K$s."""
        data = memory.data
        n = _lines_in_use(memory)
        if n != self.nlines:
            self._grow(n)
        if self._holds_nothing():
            return
        dl, seen = _lines_of(data), _lines_of(self.seen)
        idx = np.flatnonzero(self._cached())
        if not idx.size:
            return
        changed = idx[(dl[idx] != seen[idx]).any(axis=1)]
        if not changed.size:
            return
        ex = self.exempt_mask(exempt)[changed]
        cp, host = changed[ex], changed[~ex]
        if cp.size:
            _lines_of(self.l2img)[cp] = dl[cp]
            self._drop(cp)
        if host.size:
            in_l2 = self.l2_valid[host]
            self.l2_stale[host[in_l2]] = True
            out = host[~in_l2]
            if out.size:
                self._stale_copies(out, seen[out], "the host")
        seen[changed] = dl[changed]

    def _holds_nothing(self) -> bool:
        """No cache holds a line (as after invalidate("all")): then no L2 line is dirty or
        stale and no L1 or K$ keeps a stale copy either (they hold valid lines only), so there
        is nothing of memory to take in or drop."""
        return not (self.l2_valid.any() or self.l1_valid.any() or self.k_valid.any())

    def _cached(self) -> np.ndarray:
        return self.l2_valid | self.l1_valid.any(axis=0) | self.k_valid.any(axis=0)

    def exempt_mask(self, regions) -> np.ndarray:
        """bool [lines]: the lines of the (address, bytes) regions."""
        m = np.zeros(self.nlines, np.bool_)
        for addr, nbytes in regions:
            a = (int(addr) - BASE) // LINE
            b = (int(addr) + int(nbytes) - BASE + LINE - 1) // LINE
            m[max(a, 0):max(min(b, self.nlines), 0)] = True
        return m

    def _free(self, level: str, lines: np.ndarray) -> None:
        """``lines`` leave the replacement lists of every cache of ``level`` ("l1", "k",
        "l2"): the level no longer holds them (the caller clears its valid bits)."""
        lru = self.lru[level]
        if lines.size:
            drop_lines(lru.ent, lru.ends, lru.way, lru.ncache, lru.chb, lru.setb, lru.wb,
                       lines.astype(np.int64), BASE // LINE)

    def _drop(self, lines: np.ndarray) -> None:
        """The L1s and K$s lose these lines."""
        self.l1_valid[:, lines] = False
        self.k_valid[:, lines] = False
        self._free("l1", lines)
        self._free("k", lines)
        for d in self.l1_stale + self.k_stale:
            if d:
                for x in lines.tolist():
                    d.pop(x, None)

    def _stale_copies(self, lines, old, who: str, keep_cu=None) -> None:
        """The L2's data of ``lines`` changes from ``old`` ([n, 8] uint64): every L1 and K$
        holding a line without a stale copy keeps ``old`` as one (they are not snooped),
        except the CUs ``keep_cu`` (bool [cus, n]) marks, whose L1 took the new data."""
        for valid, stale, own in ((self.l1_valid, self.l1_stale, keep_cu),
                                  (self.k_valid, self.k_stale, None)):
            for c in range(valid.shape[0]):
                hold = valid[c, lines]
                if own is not None:
                    hold &= ~own[c]
                if not hold.any():
                    continue
                d = stale[c]
                for j in np.flatnonzero(hold).tolist():
                    x = int(lines[j])
                    if x not in d:
                        d[x] = (old[j].copy(), who)

    def _l2_view(self, dl, lines) -> np.ndarray:
        """[n, 8] uint64: what the L2 serves of ``lines`` (its data, or memory's)."""
        out = dl[lines].copy()
        v = self.l2_valid[lines]
        out[v] = _lines_of(self.l2img)[lines[v]]
        return out

    def valid_lines(self, level: str) -> int:
        """How many 64-byte lines the level holds ("l1", "k": over all CUs / K$s; "l2")."""
        a = {"l1": self.l1_valid, "k": self.k_valid, "l2": self.l2_valid}.get(level)
        if a is None:
            raise GcnEmuError(f"valid_lines takes 'l1', 'k' or 'l2', not {level!r}")
        return int(np.count_nonzero(a))

    def dirty_lines(self) -> int:
        """How many L2 lines hold data memory does not have yet."""
        return int(np.count_nonzero(self.l2_dirty))

    def stale_lines(self, level: str) -> int:
        """How many lines the L1s ("l1"), K$s ("k") or the L2 ("l2") hold older than the
        level below them."""
        if level == "l2":
            return int(np.count_nonzero(self.l2_stale))
        d = {"l1": self.l1_stale, "k": self.k_stale}.get(level)
        if d is None:
            raise GcnEmuError(f"stale_lines takes 'l1', 'k' or 'l2', not {level!r}")
        return sum(len(x) for x in d)

    # --- cache operations -----------------------------------------------------------------
    def writeback(self, level: str, memory, skip=None, sync=True) -> int:
        """Write the level's dirty lines to memory (only the L2 has any); returns how many.
        ``skip`` (bool [lines]): lines not written back (a top-of-pipe write-back while the
        dispatch writing them may still run); ``sync=False``: memory is as the caches left
        it (right after a dispatch)."""
        if sync:
            self.sync(memory)
        if level not in ("l2", "all"):
            return 0
        dirty = self.l2_dirty if skip is None else self.l2_dirty & ~skip
        lines = np.flatnonzero(dirty)
        if lines.size:
            img = _lines_of(self.l2img)[lines]
            _lines_of(memory.data)[lines] = img
            _lines_of(self.seen)[lines] = img
            self.l2_dirty[lines] = False
        return int(lines.size)

    def invalidate(self, level: str, memory, skip=None) -> int:
        """Drop the level's lines ("l1": every CU's L1, "k": every K$, "l2", "i": the
        instruction cache, which holds nothing here: the engine runs code decoded from the
        code object, never from memory); the L2's invalidate writes its dirty lines back
        first (the seed's table gives the TCC only Writeback+Invalidate). Returns the lines
        written back."""
        if level == "all" and skip is None:
            # everything is dropped: host writes since the last operation change nothing
            # (the dirty lines written back overwrite them, as on the hardware)
            n = _lines_in_use(memory)
            if n != self.nlines:
                self._grow(n)
            if self._holds_nothing():
                return 0
        else:
            self.sync(memory)
        n = 0
        if level in ("l1", "all"):
            self.l1_valid[:] = False         # (the replacement lists need nothing: lru_fill)
            for d in self.l1_stale:
                d.clear()
        if level in ("k", "all"):
            self.k_valid[:] = False
            for d in self.k_stale:
                d.clear()
        if level in ("l2", "all"):
            n = self.writeback("l2", memory, skip, sync=False)
            valid = self.l2_valid.copy() if skip is None else self.l2_valid & ~skip
            lines = np.flatnonzero(valid & self.l2_stale)
            if lines.size:     # the L1s and K$s keep the L2's old data
                self._stale_copies(lines, _lines_of(self.l2img)[lines], "the host")
            self.l2_valid[valid] = False
            self.l2_stale[valid] = False
            if skip is not None:
                self._free("l2", np.flatnonzero(valid))
        return n

    def cp_write(self, memory, address: int, payload: bytes, who: str) -> None:
        """A command-processor write (an end-of-pipe event's value): to memory and the L2."""
        self.sync(memory)
        dl = _lines_of(memory.data)
        lines = np.arange((address - BASE) // LINE, (address + len(payload) - 1 - BASE) // LINE + 1)
        old = self._l2_view(dl, lines)
        o = address - BASE
        b = np.frombuffer(payload, np.uint8)
        memory.write(address, b)
        self.l2img[o:o + len(b)] = b
        self.seen[o:o + len(b)] = b
        new = self._l2_view(dl, lines)
        ch = (old != new).any(axis=1)
        if ch.any():
            self._stale_copies(lines[ch], old[ch], who)

    def l2_read(self, memory, address: int, nbytes: int) -> bytes:
        """Bytes as the L2 serves them (what a WAIT_REG_MEM of the command processor polls)."""
        self.sync(memory)
        dl = _lines_of(memory.data)
        a = (address - BASE) // LINE
        lines = np.arange(a, (address + nbytes - 1 - BASE) // LINE + 1)
        raw = self._l2_view(dl, lines).view(np.uint8).reshape(-1)
        o = address - BASE - a * LINE
        return raw[o:o + nbytes].tobytes()

    def dirty_in(self, address: int, nbytes: int) -> bool:
        """Whether the L2 holds any of these bytes dirty (memory is older)."""
        a = (address - BASE) // LINE
        b = (address + nbytes - 1 - BASE) // LINE + 1
        return bool(self.l2_dirty[a:b].any())

    # --- a dispatch -----------------------------------------------------------------------
    def run_dispatch(self, gpu, launch, workers, time_limit, workgroups, label: str,
                     pending=(), release=False, sanitize=False):
        """Run a dispatch (its segments written) through the caches: returns (the report,
        with its findings; (label, the lines it wrote, their data before it) for the
        queue's overlap bookkeeping). ``pending``: such triples of dispatches that may
        still run (no barrier since them): their lines read as the data before them.
        ``release``: the L2 is written back right after (the runtime's path: no record).
        ``time_limit`` (seconds, None: none) holds for the dispatch as a whole, all its
        runs together. ``sanitize``: the sanitizer's findings join the mode's (`_sanitized`).

        When no CU has a stale line to read (no pending dispatch, no stale L1 or K$ line:
        the runtime's path) the workgroups run in one go, which is the same as CU by CU as
        long as no load without GLC reads what another CU wrote; when the trace shows one,
        the dispatch runs again CU by CU (module docstring)."""
        mem = gpu.memory
        launch.get_states(gpu)        # scratch exists (and is zeroed) before the sync
        exempt = list(launch._regions.values())
        exempt += [(st.scratch.address, st.scratch.size) for st in launch.states
                   if st.scratch is not None]
        self.sync(mem, exempt)
        ex = self.exempt_mask(exempt)
        data = mem.data
        dl = _lines_of(data)
        # the engine runs on the L2's view: its lines that differ from memory go in
        differ = np.zeros(0, np.int64) if self._holds_nothing() else \
            np.flatnonzero(self.l2_valid & (self.l2_dirty | self.l2_stale) & ~ex)
        dram_differ = dl[differ].copy()
        if differ.size:
            dl[differ] = _lines_of(self.l2img)[differ]
        start = data[:self.nlines * LINE].copy()     # (above: never mapped, never written)
        sl = _lines_of(start)
        prog = launch.ctx["prog"]
        cls, slc = row_classes(prog)
        ctx = dict(prog=prog, cls=cls, slc=slc, launch=launch,
                   rec=record_kinds(prog),
                   wpg=launch.ctx["waves_per_group"],
                   name=launch.info.name, ex=ex, sl=sl, dl=dl)
        pend = {}
        for plabel, lines, content in pending:
            for x, row in zip(lines.tolist(), content):
                pend.setdefault(x, (row, plabel))
        rng = workgroups if workgroups is not None else range(launch.ngroups)
        per = -(-len(rng) // self.cus)
        ctx.update(pend=pend, rng=rng, per=per, sanitize=sanitize, san=[], gpu=gpu,
                   gone=np.zeros(0, np.int64),
                   workers=workers, time_limit=time_limit,
                   deadline=None if time_limit is None else time.monotonic() + time_limit)
        gds = gpu.gds.copy() if launch.ctx["uses_gds"] else None
        try:
            stale_views = pend or any(self.l1_stale) or any(self.k_stale)
            result = None if stale_views else self._run_whole(ctx)
            if result is None:
                data[:start.size] = start
                if gds is not None:
                    gpu.gds[:] = gds
                self.cu_by_cu += 1
                result = self._run_cu_by_cu(ctx)
        except BaseException:
            data[:start.size] = start
            dl[differ] = dram_differ
            if gds is not None:
                gpu.gds[:] = gds
            raise
        reps, acc, written, found = result
        record = None if release else (label, written, sl[written].copy())
        # the L2's lines older than memory the dispatch did not write: memory keeps its data
        keep = self.l2_stale[differ] & ~np.isin(differ, written) if differ.size else \
            np.zeros(0, np.bool_)
        wb, wb_data = self._after(acc, written, ctx, label, release)
        seen = _lines_of(self.seen)
        if release:      # the L2 written back: its dirty lines are memory's now
            if differ.size:
                dl[differ[keep]] = dram_differ[keep]
                seen[differ[keep]] = dl[differ[keep]]
            self.l2_dirty[:] = False
        elif differ.size:
            # written lines the L2 evicted are in memory with their new data (settle_lines):
            # kept through the restore of the others
            back = differ[np.isin(differ, written) & ~self.l2_valid[differ]]
            new = dl[back].copy()
            dl[differ] = dram_differ
            seen[differ] = dram_differ       # memory as it is: no host write to find there
            dl[back] = new
            seen[back] = new
        if wb.size:      # lines the L2 evicted dirty: written back
            dl[wb] = wb_data
            seen[wb] = wb_data
        self.dispatches += 1
        if len(reps) > 1:
            from .shards import merge_reports
            rep = merge_reports(reps, launch.grid, launch.block, launch.ngroups)
        else:
            rep = reps[0]
        rep.shards = 0
        rep.workers = reps[0].workers
        # the sanitizer's findings (dispatch(..., sanitize=True)), then the mode's
        san = launch.sanitizer_findings(gpu, ctx["san"]) if sanitize else []
        rep.findings = merge_findings(san + found)
        return rep, record

    def _run(self, ctx, part):
        """One run of the workgroups ``part`` on memory as it is now (a CU's view, or the
        L2's), recording the lines of its accesses (launch.raw_traces); the report."""
        return ctx["launch"].run(ctx["gpu"], ctx["workers"], ctx["time_limit"], part,
                                 deadline=ctx["deadline"])

    def _snapshot(self, ctx):
        """What `_sanitize_again` needs of the state before a run: memory and GDS (None
        without the sanitizer)."""
        if not ctx["sanitize"]:
            return None
        gpu = ctx["gpu"]
        return (gpu.memory.data[:self.nlines * LINE].copy(),
                gpu.gds.copy() if ctx["launch"].ctx["uses_gds"] else None)

    def _sanitize_again(self, ctx, part, snap) -> None:
        """The run of ``part`` that the mode keeps, made again from the state before it
        (``snap``) with the sanitizer's recording; its batch results go to ``ctx["san"]``,
        analysed with the other runs' in `run_dispatch`.

        Why twice: the engine's trace slot holds one trace, and the mode reads the timing
        trace's line records (gcnemu/timing/trace.py) while the sanitizer reads its own
        per-lane records (gcnemu/sanitize/record.py). Each stays the format its own reader
        knows, whatever either becomes, and image accesses (which the sanitizer does not
        record) keep their lines, for the cost of a second run. The engine is
        deterministic, so the second run writes the same bytes: it is checked."""
        if snap is None:
            return
        gpu, launch = ctx["gpu"], ctx["launch"]
        mem = gpu.memory
        traces = launch.raw_traces
        n = snap[0].size
        after = mem.data[:n].copy()
        mem.data[:n] = snap[0]
        if snap[1] is not None:
            gds_after = gpu.gds.copy()
            gpu.gds[:] = snap[1]
        launch.run(gpu, ctx["workers"], ctx["time_limit"], part, sanitize=True,
                   deadline=ctx["deadline"], sanitize_raw=True)
        launch.raw_traces = traces
        if not np.array_equal(mem.data[:n], after) or (snap[1] is not None and
                                                       not np.array_equal(gpu.gds, gds_after)):
            diff = np.flatnonzero(mem.data[:n] != after)
            where = f"at 0x{BASE + int(diff[0]):x}" if diff.size else "in GDS"
            raise ExecutionError(
                f"the sanitizer's run of workgroups {part.start}-{part.stop - 1} wrote other "
                f"bytes than the run before it, {where}: the kernel's result depends on more "
                f"than its inputs (coherency-accurate mode runs a sanitized dispatch twice)",
                kernel=launch.info.name)
        ctx["san"].extend(launch.sanitized)
        launch.sanitized = None

    def _run_whole(self, ctx):
        """All the workgroups in one run (the fast path): (reports, [(cu, accesses)],
        written lines, findings), or None when a load without GLC read a line another CU
        wrote before it (then the dispatch runs CU by CU)."""
        launch = ctx["launch"]
        snap = self._snapshot(ctx)
        rep = self._run(ctx, ctx["rng"])
        acc = self._accesses(launch, ctx)
        minw = np.full(self.nlines, self.cus, np.int64)
        mask = np.zeros(self.nlines, np.bool_)
        if classify(acc, ctx["cls"], ctx["rng"].start, ctx["per"], minw, mask):
            return None
        self._sanitize_again(ctx, ctx["rng"], snap)
        written = np.flatnonzero(mask)
        # no CU has a stale view here (run_dispatch): only an L2 older than memory can
        # make a load stale, whatever the CU
        found = self._findings(acc, 0, ctx, {}, minw) if self.l2_stale.any() else []
        return [rep], acc, written, found

    def _run_cu_by_cu(self, ctx):
        """The CUs one after the other, each on its view (module docstring)."""
        launch = ctx["launch"]
        dl, sl, rng, per = ctx["dl"], ctx["sl"], ctx["rng"], ctx["per"]
        written = np.zeros(self.nlines, np.bool_)
        minw = np.full(self.nlines, self.cus, np.int64)
        cur = np.zeros_like(sl)                 # the data of the lines written so far
        reps, accs, found = [], [], []
        for c in range(self.cus):
            part = range(rng.start + c * per, min(rng.start + (c + 1) * per, rng.stop))
            if not len(part):
                continue
            overrides = {}
            for npass in range(MAX_PASSES):
                view = self._view(c, ctx["pend"], overrides)
                lv = np.fromiter(view.keys(), np.int64, len(view))
                saved = dl[lv].copy()
                if lv.size:
                    dl[lv] = np.stack(list(view.values()))
                live = dict(zip(lv.tolist(), saved))
                snap = self._snapshot(ctx)
                try:
                    rep = self._run(ctx, part)
                except ExecutionError as e:
                    raise self._hang_error(e, launch, ctx, c, view, minw) from None
                acc = self._accesses(launch, ctx)
                acc[:, 4] = c
                mask = np.zeros(self.nlines, np.bool_)
                classify(acc, ctx["cls"], 0, 0, np.full(self.nlines, c, np.int64), mask)
                mine = np.flatnonzero(mask)
                ctx["gone"] = self._evicted_before_read(acc, c, ctx)
                need = self._check(acc, c, ctx, view, live, written, cur, minw)
                if not need or npass == MAX_PASSES - 1:
                    break
                # run the CU again with the data each kind of load must see
                dl[mine] = np.where(written[mine][:, None], cur[mine], sl[mine])
                if lv.size:
                    dl[lv] = saved
                overrides.update(need)
            self._sanitize_again(ctx, part, snap)
            reps.append(rep)
            accs.append(acc)
            found.extend(self._findings(acc, c, ctx, view, minw))
            # the CU's writes merged byte by byte into overlaid lines; the rest back
            for j, x in enumerate(lv.tolist()):
                if x in set(mine.tolist()):
                    before = view[x].view(np.uint8)
                    now = dl[x].view(np.uint8)
                    merged = saved[j].copy().view(np.uint8)
                    m = before != now
                    merged[m] = now[m]
                    dl[x] = merged.view(np.uint64)
                else:
                    dl[x] = saved[j]
            cur[mine] = dl[mine]
            written[mine] = True
            minw[mine] = np.minimum(minw[mine], c)
        return reps, np.concatenate(accs), np.flatnonzero(written), found

    def _evicted_before_read(self, acc, c, ctx) -> np.ndarray:
        """The lines CU ``c``'s L1 holds stale that its own accesses in this run (``acc``)
        evict before reading them (evicted_before_read): those loads read the L2, and are
        no finding (sorted line indices)."""
        d = self.l1_stale[c]
        if not d or not acc.size:
            return np.zeros(0, np.int64)
        stale = np.zeros(self.nlines, np.bool_)
        stale[np.fromiter(d.keys(), np.int64, len(d))] = True
        lru = self.lru["l1"]
        gone = evicted_before_read(acc, ctx["slc"], stale, self.l1_valid[c:c + 1].copy(),
                                   lru.way[c:c + 1].copy(), lru.ent.copy(), lru.ends.copy(),
                                   c, lru.setb, lru.wb, BASE // LINE)
        return np.flatnonzero(gone)

    def _view(self, c, pend, overrides) -> dict:
        """line -> [8] uint64 data CU ``c`` reads where it differs from the L2's: its K$'s
        stale lines, its L1's (over them), the pending dispatches' (over all), then the
        overrides of a second run."""
        view = {x: v[0] for x, v in self.k_stale[c // SCALAR_CACHE_CUS].items()}
        view.update((x, v[0]) for x, v in self.l1_stale[c].items())
        view.update((x, v[0]) for x, v in pend.items())
        view.update(overrides)
        return view

    def _accesses(self, launch, ctx) -> np.ndarray:
        """int64 [n, 6]: (workgroup, wave in workgroup, row, line index in memory, CU and
        effective class: set by the caller and _classify) of the memory accesses of the last
        launch.run, exempt lines dropped."""
        traces = launch.raw_traces or ()
        return _trace_accesses_of([(tr, batch.start, ctx["wpg"]) for batch, _ids, tr in traces],
                                  ctx)

    def _want(self, kind, x, c, ctx, live, written, cur, minw):
        """What a load of ``kind`` by CU ``c`` must read of line ``x`` ([8] uint64)."""
        pend, sl = ctx["pend"], ctx["sl"]
        if x in pend:
            return pend[x][0]
        if kind == A_SMRD and x in self.k_stale[c // SCALAR_CACHE_CUS]:
            return self.k_stale[c // SCALAR_CACHE_CUS][x][0]
        if kind == A_HIT and x in self.l1_stale[c] and x not in ctx["gone"]:
            return self.l1_stale[c][x][0]
        if kind in (A_HIT, A_SMRD) and minw[x] < c:
            return sl[x]           # the worst case: the L1 (K$) took it before the write
        if x in live:
            return live[x]
        return cur[x] if written[x] else sl[x]

    def _check(self, acc, c, ctx, view, live, written, cur, minw) -> dict:
        """Lines the last run read with other data than their kind must see: line -> the
        data (the first kind by priority decides: atomics and GLC loads, then scalar, then
        vector loads). Only lines of the view, or written by an earlier CU, can differ."""
        need = {}
        if not acc.size:
            return need
        kinds = acc[:, 5]
        x = acc[:, 3]
        cand = np.isin(x, np.fromiter(view.keys(), np.int64, len(view))) | (minw[x] < c)
        for kind in (A_ATOMIC, A_GLC, A_SMRD, A_HIT):
            for line in np.unique(x[cand & (kinds == kind)]).tolist():
                if line in need:
                    continue
                want = self._want(kind, line, c, ctx, live, written, cur, minw)
                got = view[line] if line in view else (cur[line] if written[line]
                                                        else ctx["sl"][line])
                if not np.array_equal(want, got):
                    need[line] = np.array(want, copy=True)
        return need

    def _findings(self, acc, c, ctx, view, minw) -> list:
        """The findings of CU ``c``'s loads whose data is stale: one per (instruction,
        cause), with its count (lines x waves)."""
        if not acc.size:
            return []
        kinds = acc[:, 5]
        x = acc[:, 3]
        hit, smrd = kinds == A_HIT, kinds == A_SMRD
        load = hit | smrd | (kinds == A_GLC) | (kinds == A_ATOMIC)
        keys = lambda d: np.fromiter(d.keys(), np.int64, len(d))
        cause = np.zeros(len(x), np.int64)
        k = c // SCALAR_CACHE_CUS
        rules = [(load & np.isin(x, keys(ctx["pend"])), WHY_PEND),
                 (hit & np.isin(x, keys(self.l1_stale[c])) & ~np.isin(x, ctx["gone"]), WHY_L1),
                 (smrd & np.isin(x, keys(self.k_stale[k])), WHY_K),
                 ((hit | smrd) & (minw[x] < c), WHY_RACE),
                 (load & self.l2_stale[x], WHY_L2)]
        for m, code in reversed(rules):     # the first rule that holds decides
            cause[m] = code
        flagged = np.flatnonzero(cause)
        if not flagged.size:
            return []
        key = acc[flagged, 2] * 8 + cause[flagged]
        _u, first, counts = np.unique(key, return_index=True, return_counts=True)
        prog, name, wpg = ctx["prog"], ctx["name"], ctx["wpg"]
        out = []
        for i, n in zip(first.tolist(), counts.tolist()):
            j = int(flagged[i])
            g, wv, row, line, _cu, _k = (int(v) for v in acc[j])
            why = int(cause[j])
            addr = BASE + line * LINE
            kd, detail = self._explain(why, c, k, line, addr, ctx, minw)
            out.append(Finding(kd, name, pc=int(prog.instructions[row].offset),
                               instruction=format_instruction(prog.instructions[row]), wave=g * wpg + wv, workgroup=g,
                               address=addr, detail=detail, count=n, what=_CAUSE_NAMES[why]))
        return out

    def _explain(self, why, c, k, line, addr, ctx, minw):
        """(finding kind, detail) of a stale load's cause."""
        if why == WHY_PEND:
            return "missing-sync", (
                f"reads line 0x{addr:x} that dispatch {ctx['pend'][line][1]} writes, and no "
                f"barrier (partial_flush, or a fence wait) came between: the two may overlap "
                f"and this load may run before the write (seed: \"when both draw calls run at "
                f"the same time, no amount of cache flushing will work\")")
        if why == WHY_L1:
            return "stale-l1", (
                f"CU {c}'s L1 holds line 0x{addr:x} from before {self.l1_stale[c][line][1]} "
                f"wrote it, and no L1 invalidate came between (the L1 is not snooped): add "
                f"cache_op('l1') after the barrier, or load with GLC")
        if why == WHY_K:
            lo, hi = k * SCALAR_CACHE_CUS, min(self.cus, (k + 1) * SCALAR_CACHE_CUS) - 1
            return "missing-sync", (
                f"the K$ of CUs {lo}-{hi} holds line 0x{addr:x} from before "
                f"{self.k_stale[k][line][1]} wrote it: invalidate the K$ (cache_op('k')) before "
                f"the dispatch (seed: \"Issue a K and L2 cache GPU top-of-pipe flush\")")
        if why == WHY_RACE:
            return "stale-l1", (
                f"line 0x{addr:x} is written in this dispatch by CU {int(minw[line])}; a load "
                f"without GLC on CU {c} may hit its L1 (K$) copy from before the write (shown "
                f"here: the worst case): load with GLC, or read it in a later dispatch")
        return "missing-sync", (
            f"the L2 holds line 0x{addr:x} older than memory (the host wrote memory after the "
            f"L2 read it): invalidate the L2 (cache_op('l2'); and the K$ for scalar loads) "
            f"before the dispatch (seed: \"Issue a K and L2 cache GPU top-of-pipe flush\")")

    def _after(self, acc, written, ctx, label, release) -> tuple:
        """The caches after the dispatch: lines its loads and stores left in the L1s, K$s and
        the L2 by the seed's L1 policies and the caches' capacity (module docstring); its
        writes in the L2, dirty (memory gets its old data back) unless ``release``; the
        copies other L1s and K$s hold of them stale. Returns (lines, [n, 8] uint64 data)
        that memory takes after the dispatch: the dirty lines the L2 evicted (written back;
        those the dispatch wrote are memory's already: settle_lines)."""
        slc, dl, sl = ctx["slc"], ctx["dl"], ctx["sl"]
        # the caches fill in a canonical order, workgroup by workgroup (so CU by CU: each
        # has consecutive workgroups), each in the engine's order: how many workers ran the
        # dispatch, which changes how its workgroups are batched (and so interleaved at
        # barriers), changes no eviction
        acc = by_workgroup(acc, ctx["rng"].start, len(ctx["rng"]))
        touched = np.zeros(self.nlines, np.bool_)
        own = np.zeros(self.nlines, np.uint64)
        last_inv = np.full(self.cus, -1, np.int64)
        l2_before = self.l2_valid.copy()
        evicted = np.zeros(self.nlines, np.bool_)
        l1, k, l2 = self.lru["l1"], self.lru["k"], self.lru["l2"]
        nev = apply_policies(acc, slc, self.l1_valid, self.k_valid, touched, own,
                             SCALAR_CACHE_CUS, last_inv, l1.ent, l1.ends, l1.way, k.ent,
                             k.ends, k.way, l2.ent, l2.ends, l2.way,
                             self.l2_valid.reshape(1, -1), evicted, self.geo)
        for c in np.flatnonzero(last_inv >= 0).tolist():
            self.l1_stale[c].clear()          # its L1 was invalidated
        # the stale copies of lines a cache no longer holds (evicted, or dropped by SLC or
        # an atomic) are gone: the next load reads the L2
        for valid, stale in ((self.l1_valid, self.l1_stale), (self.k_valid, self.k_stale)):
            for c, d in enumerate(stale):
                if d:
                    for x in [x for x in d if not valid[c, x]]:
                        del d[x]
        touched[written] = True
        held = settle_lines(np.flatnonzero(touched), written, dl, sl, _lines_of(self.l2img),
                            _lines_of(self.seen), self.l2_valid, self.l2_dirty, self.l2_stale,
                            self.l1_valid, self.k_valid, own, release, l2_before)
        who = f"dispatch {label}"
        for c, x, is_k in held.tolist():
            d = (self.k_stale if is_k else self.l1_stale)[c]
            if x not in d:
                d[x] = (sl[x].copy(), who)
        for c, d in enumerate(self.l1_stale):     # a CU's own write refreshes its L1 line
            if d:
                for x in [x for x in d if (int(own[x]) >> c) & 1]:
                    del d[x]
        # what the L2 evicted: its dirty lines go to memory; an old copy (the host wrote
        # memory since) is dropped, and one that came back in before the end is dropped
        # again: the next access reads memory. (settle_lines changed the dirty and stale
        # bits of the written lines only: the others' are as before the dispatch.)
        if not nev:
            return np.zeros(0, np.int64), np.zeros((0, LINE // 8), np.uint64)
        ev = np.flatnonzero(evicted)
        mine = np.zeros(self.nlines, np.bool_)
        mine[written] = True
        ev = ev[~mine[ev] & l2_before[ev]]
        gone = ev[self.l2_dirty[ev]]
        self.l2_dirty[gone] = False
        stale = ev[self.l2_stale[ev]]
        self.l2_stale[stale] = False
        self.l2_valid[stale] = False
        self._free("l2", stale)
        return gone, _lines_of(self.l2img)[gone]

    def _hang_error(self, e, launch, ctx, c, view, minw):
        """The ExecutionError of a CU's run that stopped (step or time limit), with the reason
        when its waves read stale lines: the 'spin-hang' finding."""
        stale = []
        for st in launch.states or ():
            if st.trace is None:
                continue
            a = _trace_accesses_of([(st.trace, 0, 1)], ctx)
            for row, x in {(int(r), int(x)) for r, x in a[:, 2:4]}:
                if ctx["cls"][row] in (A_HIT, A_SMRD) and (x in view or minw[x] < c):
                    stale.append((row, x))
        if not stale or not any(s in str(e) for s in ("step limit", "time limit")):
            return e
        row, x = sorted(stale)[0]
        addr = BASE + x * LINE
        cache = "K$ (a scalar load)" if ctx["cls"][row] == A_SMRD else \
            "L1 (a vector load without GLC: policy HIT_LRU)"
        prog = ctx["prog"]
        f = Finding("spin-hang", ctx["name"], pc=int(prog.instructions[row].offset),
                    instruction=format_instruction(prog.instructions[row]), address=addr,
                    detail=(f"CU {c} keeps reading line 0x{addr:x} from its {cache}, which does "
                            f"not see the write another CU or dispatch made: poll with a GLC "
                            f"vector load (MISS_LRU: it reads the L2)"))
        err = ExecutionError(f"{e.args[0]}; {f}", kernel=e.kernel, pc=e.pc, wave=e.wave,
                             lane=e.lane, instruction=e.instruction)
        err.findings = [f]
        return err


def check_level(level: str) -> str:
    """A cache level name of the queue's cache operations, or a GcnEmuError."""
    if level not in ("l1", "l2", "k", "i", "all"):
        raise GcnEmuError(f"unknown cache level {level!r}: 'l1' (TCP), 'l2' (TCC), 'k' (K$), "
                          f"'i' (I$) or 'all'")
    return level
