"""Coherency-accurate mode (``GPU(coherent_caches=True)``): caches that hold data.

What the seed caches-and-coherency.txt says, and what this module makes true of every
dispatch of such a GPU:

* "Some caches, like the L2 (TCC) and the L1 (TCP) are organized in a hierarchy. Most GPU
  blocks always run in parallel and don't automatically synchronize or snoop each other's
  caches." Each CU has an L1 that is write-through and not snooped: a line it holds keeps
  the data it had when the CU read (or wrote) it, whatever other CUs, later dispatches or the
  host write afterwards, until an L1 invalidate. The K$ (scalar cache, one per
  ``scalar_cache_cus`` CUs) likewise for scalar loads (SMRD): "K$/TCC: all constant buffers".
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

The view cannot tell access kinds apart, so a CU runs again (at most MAX_PASSES times in
all) when the trace of its memory accesses (gcnemu/timing/trace.py, recorded in this mode)
shows a load whose kind must see other data than the view gave it (a GLC load of a line the
CU's L1 holds stale, an atomic on a line another CU wrote): the second run gives such lines
the data that kind sees. A line that kinds disagree on in one CU's run gets the L2's data
(GLC loads and atomics first, then the K$'s, then the L1's).

The caches are unbounded: a line leaves only by a cache operation. On the hardware capacity
evictions make a missing invalidate show intermittently; here it shows every time. Image
(MIMG) accesses are not traced by the engine: they read the view but neither fill the L1
nor are checked; MIMG stores are found by comparing memory.

Findings (gcnemu.sanitize.findings) go to ``report.findings``: ``stale-l1`` for a vector
load that reads a line its CU's L1 holds stale, or bytes another CU of the dispatch wrote
without GLC; ``missing-sync`` for a scalar load from a stale K$ line, a load of a line the L2
holds older than memory (the host wrote it), a load of data a dispatch that may still be
running writes (no barrier between), and command-processor reads of stale indirect
arguments (gcnemu/queue.py); ``spin-hang`` for a wave that ran into the step or time limit
reading a stale line (the ExecutionError says so too).
"""
from __future__ import annotations

import numpy as np

from .errors import ExecutionError, GcnEmuError
from .exec.jit import njit
from .exec.layout import (C_F0, C_F1, C_F2, C_H, C_K, C_LIT, H_DS, H_FLAT, H_MIMG, H_MTBUF,
                          H_MUBUF, H_SMRD_LOAD, K_ATOMIC, K_STORE, K_STORE2, K_STORE_FORMAT)
from .mem.space import BASE
from .sanitize.findings import Finding, merge_findings

#: a CU runs at most this many times in a dispatch (see the module docstring)
MAX_PASSES = 3
#: bytes per cache line (seed: "All cache lines are 64 bytes")
LINE = 64
#: access classes of a program row (what the trace's lines of that row mean)
A_NONE, A_SMRD, A_HIT, A_GLC, A_STORE, A_ATOMIC, A_MIMG_LOAD, A_MIMG_STORE = range(8)
#: CUs that share one K$ (gfx7: one scalar cache per 4 CUs, as TimingConfig.kcache_cus)
SCALAR_CACHE_CUS = 4


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
        slc[i] = bool(fields.get("slc", 0))
        store = kind in (K_STORE, K_STORE2, K_STORE_FORMAT)
        if h == H_MIMG:
            cls[i] = A_MIMG_STORE if store or kind == K_ATOMIC else A_MIMG_LOAD
        elif kind == K_ATOMIC:
            cls[i] = A_ATOMIC
        elif store:
            cls[i] = A_STORE
        else:
            cls[i] = A_GLC if fields.get("glc", 0) else A_HIT
    rec = np.zeros(code.shape[0], np.int64)
    h = code[:, C_H]
    rec[(h == H_DS) | (h == H_MIMG)] = 1
    rec[(h == H_SMRD_LOAD) | ((h >= H_FLAT) & (h <= H_MTBUF))] = 2
    cache.update(cls=cls, slc=slc, rec=rec)
    return cls, slc


@njit
def trace_accesses(tr, rec, cls):
    """The memory accesses of a batch's raw trace (gcnemu/timing/trace.py): int64 [n, 3] of
    (wave id in the batch, program row, 64-byte line number) for every line of every traced
    SMRD, FLAT, MUBUF and MTBUF instruction of a class other than A_NONE. ``rec[row]`` says
    what follows a row entry (0 nothing, 1 one entry, 2 a count and that many lines)."""
    end = tr[0]
    n = 0
    i = 2
    while i < end:
        v = tr[i]
        if v < 0:
            i += 1
            continue
        k = rec[v]
        if k == 2:
            if cls[v] != 0:
                n += tr[i + 1]
            i += 2 + tr[i + 1]
        else:
            i += 1 + k
    out = np.empty((n, 3), np.int64)
    j = 0
    w = 0
    i = 2
    while i < end:
        v = tr[i]
        if v < 0:
            w = -v - 1
            i += 1
            continue
        k = rec[v]
        if k == 2:
            m = tr[i + 1]
            if cls[v] != 0:
                for q in range(m):
                    out[j, 0] = w
                    out[j, 1] = v
                    out[j, 2] = tr[i + 2 + q]
                    j += 1
            i += 2 + m
        else:
            i += 1 + k
    return out


def _lines_of(data: np.ndarray) -> np.ndarray:
    """data (uint8, a multiple of 64 bytes) as [lines, 8] uint64 for line-wise compares."""
    return data.view(np.uint64).reshape(-1, LINE // 8)


class CoherentCaches:
    """The data the caches of one coherency-accurate GPU hold, kept from one dispatch (or
    queue packet) to the next. See the module docstring for the model.

    Between dispatches ``gpu.memory`` holds DRAM (what the host sees); ``l2img`` is what the
    L2 serves (memory overlaid with the L2's own lines). Per CU, ``l1_valid`` says which lines
    its L1 holds and ``l1_stale[cu]`` the contents of those it holds older than the L2's;
    ``k_valid`` / ``k_stale`` the same per K$."""

    def __init__(self, compute_units: int):
        self.cus = compute_units
        self.nk = -(-compute_units // SCALAR_CACHE_CUS)
        self.nlines = 0
        self.dram_seen = np.zeros(0, np.uint8)   # memory as the last operation left it
        self.l2img = np.zeros(0, np.uint8)
        self.l2_valid = np.zeros(0, np.bool_)
        self.l2_dirty = np.zeros(0, np.bool_)
        self.l2_stale = np.zeros(0, np.bool_)    # clean, but the host wrote memory since
        self.l1_valid = np.zeros((compute_units, 0), np.bool_)
        self.k_valid = np.zeros((self.nk, 0), np.bool_)
        #: cu -> {line: (64 bytes the L1 holds, what wrote the newer data)}
        self.l1_stale = [dict() for _ in range(compute_units)]
        self.k_stale = [dict() for _ in range(self.nk)]
        #: line -> what last wrote it (a dispatch's label, "the host"), for findings
        self.writer = {}
        self.dispatches = 0

    # --- keeping up with memory -----------------------------------------------------------
    def sync(self, memory, exempt=()) -> None:
        """Take in what happened to memory outside the caches' view since the last operation:
        growth, and host writes (Buffer.write, to_device, allocation): a host write leaves
        the lines the L2 holds stale there (until an L2 invalidate), and the L2 takes the
        others from memory at their next access. ``exempt``: (address, bytes) regions the
        command processor writes for a dispatch (kernel arguments, dispatch packet,
        scratch), which reach the kernel fresh: they are written through and dropped from
        the L1s and K$s."""
        data = memory.data
        n = data.size // LINE
        if n != self.nlines:
            self._grow(data, n)
        if data.size == 0:
            return
        changed = np.flatnonzero((_lines_of(data) != _lines_of(self.dram_seen)).any(axis=1))
        ex = self.exempt_mask(exempt)
        if changed.size:
            is_ex = ex[changed]
            cp = changed[is_ex]
            host = changed[~is_ex]
            if cp.size:
                self._set_l2(cp, _lines_of(data)[cp], "the command processor", drop=True)
            in_l2 = host[self.l2_valid[host]]
            self.l2_stale[in_l2] = True
            for x in in_l2.tolist():
                self.writer[x] = "the host"
            fresh = host[~self.l2_valid[host]]
            if fresh.size:
                self._set_l2(fresh, _lines_of(data)[fresh], "the host")
            _lines_of(self.dram_seen)[changed] = _lines_of(data)[changed]

    def exempt_mask(self, regions) -> np.ndarray:
        """bool [lines]: the lines of the (address, bytes) regions."""
        m = np.zeros(self.nlines, np.bool_)
        for addr, nbytes in regions:
            a = (int(addr) - BASE) // LINE
            b = (int(addr) + int(nbytes) - BASE + LINE - 1) // LINE
            m[max(a, 0):max(min(b, self.nlines), 0)] = True
        return m

    def _grow(self, data, n) -> None:
        old = self.nlines
        def ext(a, fill=False):
            out = np.full(a.shape[:-1] + (n,), fill, a.dtype)
            out[..., :min(old, n)] = a[..., :min(old, n)]
            return out
        img = data.copy()
        if old:
            img[:old * LINE] = self.l2img[:old * LINE]
        self.l2img = img
        seen = data.copy()
        if old:
            seen[:old * LINE] = self.dram_seen[:old * LINE]
        self.dram_seen = seen
        self.l2_valid, self.l2_dirty, self.l2_stale = (ext(self.l2_valid), ext(self.l2_dirty),
                                                       ext(self.l2_stale))
        self.l1_valid = ext(self.l1_valid)
        self.k_valid = ext(self.k_valid)
        self.nlines = n

    def _set_l2(self, lines: np.ndarray, content: np.ndarray, who: str, drop=False,
                keep_cu=None) -> None:
        """Give the L2 image new contents for ``lines`` ([n, 8] uint64): the L1s and K$s that
        hold a line without a stale copy keep the old contents as one (they are not
        snooped), except that ``drop`` invalidates the line in them and ``keep_cu``
        (bool [cus, n]) marks CUs whose L1 took the new contents (their writes)."""
        img = _lines_of(self.l2img)
        old = img[lines]
        differs = (old != content).any(axis=1)
        if drop:
            self.l1_valid[:, lines] = False
            self.k_valid[:, lines] = False
            for d in self.l1_stale + self.k_stale:
                for x in lines.tolist():
                    d.pop(x, None)
        else:
            for valid, stale, own in ((self.l1_valid, self.l1_stale, keep_cu),
                                      (self.k_valid, self.k_stale, None)):
                for c in range(valid.shape[0]):
                    hold = valid[c, lines] & differs
                    if own is not None:
                        hold &= ~own[c]
                    if not hold.any():
                        continue
                    d = stale[c]
                    for j in np.flatnonzero(hold).tolist():
                        x = int(lines[j])
                        if x not in d:
                            d[x] = (old[j].copy(), who)
        img[lines] = content
        for x in lines[differs].tolist():
            self.writer[x] = who

    # --- cache operations -----------------------------------------------------------------
    def writeback(self, level: str, memory, skip=None) -> int:
        """Write the level's dirty lines to memory (only the L2 has any); returns how many.
        ``skip`` (bool [lines]): lines not written back (a top-of-pipe write-back while the
        dispatch writing them may still run)."""
        self.sync(memory)
        if level not in ("l2", "all"):
            return 0
        dirty = self.l2_dirty if skip is None else self.l2_dirty & ~skip
        lines = np.flatnonzero(dirty)
        if lines.size:
            _lines_of(memory.data)[lines] = _lines_of(self.l2img)[lines]
            _lines_of(self.dram_seen)[lines] = _lines_of(self.l2img)[lines]
            self.l2_dirty[lines] = False
        return int(lines.size)

    def invalidate(self, level: str, memory, skip=None) -> int:
        """Drop the level's lines ("l1": every CU's L1, "k": every K$, "l2", "i": the
        instruction cache, which holds nothing here: the engine runs code decoded from the
        code object, never from memory); the L2's invalidate writes its dirty lines back
        first (the seed's table gives the TCC only Writeback+Invalidate). Returns the lines
        written back."""
        self.sync(memory)
        n = 0
        if level in ("l1", "all"):
            self.l1_valid[:] = False
            for d in self.l1_stale:
                d.clear()
        if level in ("k", "all"):
            self.k_valid[:] = False
            for d in self.k_stale:
                d.clear()
        if level in ("l2", "all"):
            n = self.writeback("l2", memory, skip)
            lines = np.flatnonzero(self.l2_valid if skip is None else self.l2_valid & ~skip)
            if lines.size:
                self._set_l2(lines, _lines_of(memory.data)[lines], "the host")
                self.l2_valid[lines] = False
                self.l2_stale[lines] = False
        return n

    def cp_write(self, memory, address: int, payload: bytes, who: str) -> None:
        """A command-processor write (an end-of-pipe event's value): to memory and the L2."""
        self.sync(memory)
        memory.write(address, np.frombuffer(payload, np.uint8))
        lines = np.arange((address - BASE) // LINE, (address + len(payload) - 1 - BASE) // LINE + 1)
        _lines_of(self.dram_seen)[lines] = _lines_of(memory.data)[lines]
        self._set_l2(lines, _lines_of(memory.data)[lines].copy(), who)
        self.l2_stale[lines] = False
        self.l2_dirty[lines] = False

    def l2_read(self, address: int, nbytes: int) -> bytes:
        """Bytes as the L2 serves them (what a WAIT_REG_MEM of the command processor polls)."""
        o = address - BASE
        return self.l2img[o:o + nbytes].tobytes()

    def dirty_in(self, address: int, nbytes: int) -> bool:
        """Whether the L2 holds any of these bytes dirty (memory is older)."""
        a = (address - BASE) // LINE
        b = (address + nbytes - 1 - BASE) // LINE + 1
        return bool(self.l2_dirty[a:b].any())

    # --- a dispatch -----------------------------------------------------------------------
    def run_dispatch(self, gpu, launch, workers, time_limit, workgroups, label: str,
                     pending=()):
        """Run a dispatch (its segments written) through the caches: returns (the report,
        with its findings, and the written lines with their contents before the dispatch,
        for the queue's overlap bookkeeping). ``pending``: (label, lines, contents) of
        dispatches that may still run (no barrier since them): their lines read as the
        contents before them."""
        from .shards import merge_reports
        mem = gpu.memory
        launch.get_states(gpu)        # scratch exists (and is zeroed) before the sync
        exempt = [r for r in launch._regions.values()]
        exempt += [(st.scratch.address, st.scratch.size) for st in launch.states
                   if st.scratch is not None]
        self.sync(mem, exempt)
        ex = self.exempt_mask(exempt)
        data = mem.data
        dl = _lines_of(data)
        start = self.l2img.copy()           # the L2 at the dispatch's start
        sl = _lines_of(start)
        differ = np.flatnonzero((dl != sl).any(axis=1) & ~ex)
        dl[differ] = sl[differ]             # the engine runs on the L2's view
        prog = launch.ctx["prog"]
        cls, slc = row_classes(prog)
        rec = prog.__dict__["_coherency_tables"]["rec"]
        mimg_stores = bool((cls == A_MIMG_STORE).any())
        wpg = launch.ctx["waves_per_group"]
        name = launch.info.name
        # lines that may still be written by pending dispatches: the contents before them
        pend = {}
        for plabel, lines, content in pending:
            for x, row in zip(lines.tolist(), content):
                if x not in pend:
                    pend[x] = (row, plabel)
        ngroups = launch.ngroups
        rng = workgroups if workgroups is not None else range(ngroups)
        per = -(-len(rng) // self.cus)
        reps, found = [], []
        written = np.zeros(self.nlines, np.bool_)      # by any CU of this dispatch
        writer_cu = {}                                   # line -> first CU that wrote it
        fills = []                                       # (cu, class, slc, lines)
        kg = lambda c: c // SCALAR_CACHE_CUS
        live = _lines_of(self.l2img)       # the L2 as the CUs before this one left it
        for c in range(self.cus):
            part = range(rng.start + c * per, min(rng.start + (c + 1) * per, rng.stop))
            if not len(part):
                continue
            overrides = {}
            for npass in range(MAX_PASSES):
                view = self._view(c, kg(c), pend, overrides)
                lines_v = np.fromiter(view.keys(), np.int64, len(view))
                if lines_v.size:
                    dl[lines_v] = np.stack([v for v in view.values()])
                try:
                    rep = launch.run(gpu, workers, time_limit, part)
                except ExecutionError as e:
                    raise self._hang_error(e, launch, prog, cls, rec, c, view, pend, written,
                                           writer_cu) from None
                acc = self._accesses(launch, prog, cls, rec, wpg, ex)
                need = self._check(acc, cls, c, kg(c), view, pend, written, writer_cu, sl)
                if not need or npass == MAX_PASSES - 1:
                    break
                # run the CU again with the data each kind of load must see
                undo = self._written_lines(acc, cls, mimg_stores, dl, live, view)
                dl[undo] = live[undo]
                if lines_v.size:
                    dl[lines_v] = live[lines_v]
                overrides.update(need)
            reps.append(rep)
            found.extend(self._findings(acc, cls, slc, prog, name, c, kg(c), view, pend,
                                        written, writer_cu, part, wpg, sl))
            # the CU's writes, byte by byte, into the L2 image; memory as the L2 holds it
            wl = self._written_lines(acc, cls, mimg_stores, dl, live, view)
            if wl.size:
                before = np.stack([view[x] if x in view else live[x] for x in wl.tolist()])
                b8, n8 = before.view(np.uint8), dl[wl].view(np.uint8)
                img = live[wl].view(np.uint8)
                mask = b8 != n8
                img[mask] = n8[mask]
                live[wl] = img.view(np.uint64)
                for x in wl.tolist():
                    writer_cu.setdefault(x, c)
                written[wl] = True
                dl[wl] = live[wl]
            if lines_v.size:
                dl[lines_v] = live[lines_v]
            fills.append((c, acc))
        # memory back to DRAM
        back = np.union1d(differ, np.flatnonzero(written & ~ex))
        dl[back] = _lines_of(self.dram_seen)[back]
        exl = np.flatnonzero(ex)
        _lines_of(self.dram_seen)[exl] = dl[exl]
        _lines_of(self.l2img)[exl] = dl[exl]
        # the caches after the dispatch
        self._fill(fills, cls, slc, ex)
        wl = np.flatnonzero(written & ~ex)
        new = _lines_of(self.l2img)[wl].copy()
        _lines_of(self.l2img)[wl] = sl[wl]
        own = np.zeros((self.cus, wl.size), np.bool_)    # CUs whose L1 took their writes
        for c, acc in fills:
            mine = (cls[acc[:, 2]] == A_STORE) & ~slc[acc[:, 2]]
            own[c] = np.isin(wl, acc[mine, 3])
        self._set_l2(wl, new, label, keep_cu=own)
        for c in range(self.cus):
            for x in wl[own[c]].tolist():
                self.l1_stale[c].pop(x, None)
        self.l2_valid[wl] = True
        self.l2_dirty[wl] = True
        self.l2_stale[wl] = False
        self.dispatches += 1
        rep = merge_reports(reps, launch.grid, launch.block, launch.ngroups) if len(reps) > 1 \
            else reps[0]
        rep.shards = 0
        rep.workers = reps[0].workers
        rep.findings = merge_findings((rep.findings or []) + found)
        return rep, (label, wl, sl[wl].copy())

    def _view(self, c, k, pend, overrides) -> dict:
        """line -> [8] uint64 contents CU ``c`` reads where they differ from the L2's at the
        dispatch's start: its K$'s stale lines, its L1's (over them), the pending
        dispatches' (over all), then the overrides of a second run."""
        view = {x: v[0].view(np.uint64) for x, v in self.k_stale[k].items()}
        view.update((x, v[0].view(np.uint64)) for x, v in self.l1_stale[c].items())
        view.update((x, v[0]) for x, v in pend.items())
        view.update(overrides)
        return view

    def _accesses(self, launch, prog, cls, rec, wpg, ex) -> np.ndarray:
        """int64 [n, 5]: (workgroup, wave in workgroup, row, line index in memory, 0) of the
        memory accesses of the last launch.run, exempt lines dropped."""
        parts = []
        for batch, ids, tr in launch.raw_traces or ():
            a = trace_accesses(tr, rec, cls)
            if not a.size:
                continue
            w = ids  # the batch's wave ids are its rows of ws: workgroup = w // wpg
            out = np.empty((a.shape[0], 4), np.int64)
            out[:, 0] = np.asarray(batch, np.int64)[a[:, 0] // wpg]
            out[:, 1] = a[:, 0] % wpg
            out[:, 2] = a[:, 1]
            out[:, 3] = a[:, 2] - BASE // LINE
            parts.append(out)
        if not parts:
            return np.zeros((0, 4), np.int64)
        acc = np.concatenate(parts)
        ok = (acc[:, 3] >= 0) & (acc[:, 3] < self.nlines)
        acc = acc[ok]
        return acc[~ex[acc[:, 3]]]

    def _written_lines(self, acc, cls, mimg_stores, dl, live, view) -> np.ndarray:
        """The lines a CU's run may have written: those its stores and atomics touched, and
        with MIMG stores (not traced) every line that differs from its view."""
        k = cls[acc[:, 2]]
        lines = np.unique(acc[(k == A_STORE) | (k == A_ATOMIC), 3])
        if mimg_stores:
            diff = np.flatnonzero((dl != live).any(axis=1))
            lines = np.union1d(lines, diff)
        return lines

    def _expected(self, kind, x, c, k, pend, written, writer_cu, sl):
        """What a load of ``kind`` by CU ``c`` must read of line ``x`` ([8] uint64), and
        why it is not the L2's current data ('' when it is)."""
        if x in pend:
            return pend[x][0], "pend"
        if kind == A_GLC or kind == A_ATOMIC:
            return _lines_of(self.l2img)[x], ""
        if kind == A_SMRD and x in self.k_stale[k]:
            return self.k_stale[k][x][0].view(np.uint64), "k"
        if kind == A_HIT and x in self.l1_stale[c]:
            return self.l1_stale[c][x][0].view(np.uint64), "l1"
        if written[x] and writer_cu.get(x, c) != c:
            return sl[x], "race"
        return _lines_of(self.l2img)[x], ""

    def _check(self, acc, cls, c, k, view, pend, written, writer_cu, sl) -> dict:
        """Lines the last run read with other data than their kind must see: line -> the
        data (the first kind by priority decides: atomics and GLC loads, then scalar, then
        vector loads)."""
        need = {}
        if not acc.size:
            return need
        kinds = cls[acc[:, 2]]
        for kind in (A_ATOMIC, A_GLC, A_SMRD, A_HIT):
            for x in np.unique(acc[kinds == kind, 3]).tolist():
                if x in need:
                    continue
                want, _ = self._expected(kind, x, c, k, pend, written, writer_cu, sl)
                got = view.get(x, _lines_of(self.l2img)[x])
                if not np.array_equal(want, got):
                    need[x] = np.array(want, copy=True)
        return need

    def _findings(self, acc, cls, slc, prog, name, c, k, view, pend, written, writer_cu,
                  part, wpg, sl) -> list:
        """The findings of CU ``c``'s accesses: each load (kind, line) whose data is stale,
        once per (instruction, cause) with its count."""
        out = []
        if not acc.size:
            return out
        kinds = cls[acc[:, 2]]
        loads = np.flatnonzero((kinds == A_HIT) | (kinds == A_SMRD) | (kinds == A_GLC)
                               | (kinds == A_ATOMIC))
        seen = {}
        for i in loads.tolist():
            g, wv, row, x = (int(v) for v in acc[i])
            kind = int(kinds[i])
            _, why = self._expected(kind, x, c, k, pend, written, writer_cu, sl)
            if not why and self.l2_stale[x]:
                why = "l2"
            if not why:
                continue
            key = (row, why)
            if key in seen:
                seen[key].count += 1
                continue
            addr = BASE + x * LINE
            if why == "pend":
                kd = "missing-sync"
                detail = (f"reads line 0x{addr:x} that dispatch {pend[x][1]} writes, and no "
                          f"barrier (partial_flush, or a fence wait) came between: the two may "
                          f"overlap and this load may run before the write (seed: \"when both "
                          f"draw calls run at the same time, no amount of cache flushing will "
                          f"work\")")
            elif why == "l1":
                who = self.l1_stale[c][x][1]
                kd = "stale-l1"
                detail = (f"CU {c}'s L1 holds line 0x{addr:x} from before {who} wrote it; no "
                          f"L1 invalidate came between (the L1 is not snooped): add "
                          f"cache_op('l1') after the barrier, or load with GLC")
            elif why == "k":
                who = self.k_stale[k][x][1]
                kd = "missing-sync"
                detail = (f"the K$ of CUs {k * SCALAR_CACHE_CUS}-"
                          f"{min(self.cus, (k + 1) * SCALAR_CACHE_CUS) - 1} holds line "
                          f"0x{addr:x} from before {who} wrote it: invalidate the K$ (and the "
                          f"L2 for a host write) before the dispatch (seed: \"Issue a K and L2 "
                          f"cache GPU top-of-pipe flush\")")
            elif why == "race":
                kd = "stale-l1"
                detail = (f"line 0x{addr:x} is written in this dispatch by CU "
                          f"{writer_cu.get(x)}; a load without GLC on CU {c} may hit its L1's "
                          f"copy from before the write (shown here: the worst case): load "
                          f"with GLC, or move the consumer to a later dispatch")
            else:
                kd = "missing-sync"
                detail = (f"the L2 holds line 0x{addr:x} older than memory: "
                          f"{self.writer.get(x, 'the host')} wrote memory after the L2 read "
                          f"it; invalidate the L2 before the dispatch (cache_op('l2'))")
            f = Finding(kd, name, pc=int(prog.instructions[row].offset),
                        instruction=prog.text_at(row), wave=g * wpg + wv, workgroup=g,
                        address=addr, detail=detail, what=why)
            seen[key] = f
            out.append(f)
        return out

    def _fill(self, fills, cls, slc, ex) -> None:
        """Lines the CUs' loads and stores leave in their L1s and K$s and in the L2, by the
        seed's L1 policies (module docstring)."""
        for c, acc in fills:
            if not acc.size:
                continue
            kinds = cls[acc[:, 2]]
            s = slc[acc[:, 2]]
            lines = acc[:, 3]
            self.l2_valid[lines] = True
            keep = ((kinds == A_HIT) | (kinds == A_GLC) | (kinds == A_STORE)) & ~s
            drop = (kinds == A_ATOMIC) | (((kinds == A_HIT) | (kinds == A_GLC)
                                          | (kinds == A_STORE)) & s)
            self.l1_valid[c, lines[keep]] = True
            self.l1_valid[c, lines[drop & ~keep]] = False
            self.k_valid[c // SCALAR_CACHE_CUS, lines[kinds == A_SMRD]] = True

    def _hang_error(self, e, launch, prog, cls, rec, c, view, pend, written, writer_cu):
        """The ExecutionError of a CU's run that stopped (step or time limit), with the reason
        when its waves read stale lines: the 'spin-hang' finding."""
        reads = []
        for st in launch.states or ():
            if st.trace is None:
                continue
            a = trace_accesses(st.trace, rec, cls)
            if a.size:
                reads.append(a)
        stale = []
        if reads:
            a = np.concatenate(reads)
            for row, line in {(int(r), int(x)) for r, x in a[:, 1:]}:
                x = line - BASE // LINE
                if cls[row] in (A_HIT, A_SMRD) and 0 <= x < self.nlines and \
                        (x in view or (written[x] and writer_cu.get(x) != c)):
                    stale.append((row, x))
        if not stale or not any(s in str(e) for s in ("step", "time limit")):
            return e
        row, x = sorted(stale)[0]
        addr = BASE + x * LINE
        f = Finding("spin-hang", launch.info.name, pc=int(prog.instructions[row].offset),
                    instruction=prog.text_at(row), address=addr,
                    detail=(f"CU {c} keeps reading line 0x{addr:x} from its L1 (a load without "
                            f"GLC: policy HIT_LRU), which does not see the write another CU or "
                            f"dispatch made: load with GLC (MISS_LRU) to poll the L2"))
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
