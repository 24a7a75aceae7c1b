"""The sanitizer's analyses: a batch's trace (gcnemu/sanitize/record.py) and the program's
static register sets (gcnemu/sanitize/rows.py) in, hazards out. All of it runs in numba.

`BatchShadow.consume` walks a trace once, in the order the engine ran the waves, keeping per
wave the registers written, the loads outstanding on each counter and the barriers passed,
and per LDS byte the last writer and readers (wave and barrier epoch): it finds
``unwaited-read``, ``store-data-overwritten``, ``uninitialized-read``, ``lds-race``,
``out-of-bounds`` and ``misaligned``, and collects the dispatch's global accesses (one entry
per run of lanes that access one ascending range, else one per lane and dword, with a byte
mask). `global_races` walks those after the dispatch and finds ``global-race``. The
trace may be consumed in pieces (the engine stops when it is full): the shadow state carries
over.

The cost is per run of register-only rows, not per row, and per range of dwords an
instruction touches, not per lane, wherever that changes no finding: a run of rows that
only read and write registers (rows.register_runs) is checked as one, an LDS instruction is
first checked whole, global ranges are checked as ranges, and the row-by-row and per-lane
paths run only where those find something (or where the lanes' addresses do not fit them),
so that what is found and counted is the same.

Findings are counted per (kind, row): ``counts[kind, row]`` and the first occurrence's wave,
lane, address, register or other access (``first[kind, row]``, see F_*).
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..exec.jit import njit
from ..exec.layout import (
    C_H,
    C_K,
    H_DS,
    H_FLAT,
    H_MIMG,
    H_MTBUF,
    H_MUBUF,
    H_SMRD_LOAD,
    K_ATOMIC,
    K_LOAD,
    K_LOAD2,
    K_LOAD_FORMAT,
    K_STORE,
    K_STORE2,
    K_STORE_FORMAT,
    K_WRXCHG2,
    PRIVATE_APERTURE_HI,
    SHARED_APERTURE_HI,
)
from ..sem.valu_int import popcount64
from .record import OUT_OF_RANGE, lane_entries
from .rows import EXP, LGKM, NWORDS, RUN_EXPOSED, RUN_READS, RUN_WRITES, SMEM, VM

#: the kinds the analyses find, in the order of their rows in ``counts`` (names as KINDS)
KIND_NAMES = ("unwaited-read", "store-data-overwritten", "lds-race", "global-race",
              "uninitialized-read", "out-of-bounds", "misaligned")
K_UNWAITED, K_STORE_DATA, K_LDS_RACE, K_GLOBAL_RACE, K_UNINIT, K_OOB, K_MISALIGNED = range(7)
#: columns of ``first``: wave (dispatch-wide), lane, address, register or other row, detail
F_WAVE, F_LANE, F_ADDR, F_OTHER, F_DETAIL = range(5)
NF = 5
#: out-of-bounds details (F_DETAIL); OOB_PRIVATE: in the scratch, but not the work-item's
#: own private bytes (`_private_offset`)
OOB_BUFFER, OOB_SCRATCH, OOB_LDS, OOB_GLOBAL, OOB_PRIVATE = 1, 2, 3, 4, 5
#: uninitialized-read details: a register (F_OTHER) or LDS bytes
UNINIT_REG, UNINIT_LDS = 1, 2
#: unwaited-read details: which counter the read should have waited for
WAIT_VM, WAIT_LGKM = 1, 2
#: the registers of the sanitizer's space (rows.VREG + 256 VGPRs)
NREGS = 512
#: access kinds of a row (``access[row, 0]``)
A_NONE, A_LOAD, A_STORE, A_ATOMIC = 0, 1, 2, 3
_ROWBITS = 22
_ROWMASK = (1 << _ROWBITS) - 1
#: columns of a global access (``ev``, see consume) and the flag of a range access in column 1
NEV = 7
EV_RANGE = np.int64(1) << 33


def access_table(code: np.ndarray) -> np.ndarray:
    """int64 [n, 4] per row: access kind (A_*), bytes per lane and address, alignment, and the
    trace record's entries per active lane (record.lane_entries: looked up here once rather
    than called per record, which costs the reference counts of its array argument)."""
    n = code.shape[0]
    out = np.zeros((n, 4), np.int64)
    for r in range(n):
        h = int(code[r, C_H])
        if not (h == H_SMRD_LOAD or H_DS <= h <= H_MIMG):
            continue
        out[r, 3] = lane_entries(code, r)
        sub = int(code[r, C_K])
        kind, size, count = sub & 0xFF, (sub >> 8) & 0xFF, (sub >> 16) & 0xF
        if h == H_SMRD_LOAD:
            out[r, :3] = (A_LOAD, 4 * int(code[r, C_K]), 4)
            continue
        if h == H_MIMG:
            continue
        if kind in (K_LOAD, K_LOAD2, K_LOAD_FORMAT):
            a = A_LOAD
        elif kind in (K_STORE, K_STORE2, K_STORE_FORMAT):
            a = A_STORE
        elif kind in (K_ATOMIC, K_WRXCHG2):
            a = A_ATOMIC
        else:
            continue            # swizzle, append/consume, src2, no-ops: no addressed bytes
        if kind in (K_LOAD2, K_STORE2, K_WRXCHG2):
            nb = 4 * max(1, count)
            al = nb
        else:
            nb = max(1, size) * max(1, count)
            if h == H_DS:
                al = nb if nb <= 8 else 16          # mem/ds.py aligns down to these
            elif h == H_FLAT:
                # gfx7 FLAT reads and writes unaligned addresses as they are (clang emits
                # flat_load_dword for packed struct members on gfx700; mem/flat.py does the
                # same): nothing is lost, so nothing to report
                al = 1
            else:
                # CLRX GcnMemHandling.md: 32-bit and wider align to 4 bytes, 16-bit to 2
                al = 4 if nb >= 4 else nb
        out[r, :3] = (a, nb, al)
    return out


@njit
def _note(counts, first, kind, row, wave, lane, addr, other, detail):
    if counts[kind, row] == 0:
        first[kind, row, F_WAVE] = wave
        first[kind, row, F_LANE] = lane
        first[kind, row, F_ADDR] = addr
        first[kind, row, F_OTHER] = other
        first[kind, row, F_DETAIL] = detail
    counts[kind, row] += 1


@njit(inline="always")
def _last_start(starts, a):
    """Index of the last allocation starting at or below byte ``a`` (starts sorted), -1 if
    none."""
    lo, hi = 0, starts.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= a:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@njit(inline="always")
def _past_scratch(starts, a, scratch_lo, scratch_hi):
    """True when byte ``a`` lies past the end of the scratch with no allocation starting in
    between: where the last wave's private overflow goes (the scratch is the allocation
    below it)."""
    return scratch_hi > scratch_lo and a >= scratch_hi and \
        _last_start(starts, a) == _last_start(starts, scratch_lo)


@njit(inline="always")
def _in_alloc(starts, ends, a, nb):
    """True when [a, a + nb) lies inside one allocation (starts sorted)."""
    i = _last_start(starts, a)
    return i >= 0 and a + nb <= ends[i]


@njit(inline="always")
def _private_offset(rel, lane, bpl):
    """The private byte offset of byte ``rel`` of a wave's scratch (from its wave offset) if
    it is one of lane ``lane``'s, else ``bpl`` (past the end). The ABI's scratch V# (element
    size 4, index stride 64, add_tid: gcnemu/mem/descriptors.py) puts private byte o of lane l
    at 256 (o // 4) + 4 l + o % 4; a multi-dword access swizzles each dword alike, so its
    first byte's offset and its size say whether it stays in the lane's bytes."""
    if rel < 0 or rel >= 64 * bpl or (rel >> 2) & 63 != lane:
        return bpl
    return (rel >> 8) * 4 + (rel & 3)


@njit(inline="always")
def _alloc_of(starts, ends, a):
    """(start, end) of the allocation holding byte ``a`` (which _in_alloc found)."""
    i = _last_start(starts, a)
    return starts[i], ends[i]


@njit(inline="always")
def _run_clean(tr, p, row, n, jlo, jhi, run_sets, w, written, pbits, pend, cnt):
    """True when ``tr[p:p + n]`` is the register-only run from ``row`` (rows.register_runs)
    and consume's row-by-row walk of it would find nothing: every register it reads before
    writing it is written (so no row reads one unwritten: a copy's source neither), no
    register it reads is outstanding on vmcnt or lgkmcnt, and none it writes is store data
    not yet read (expcnt). Bits of ``pbits`` that the rows would find done are cleared here,
    as the walk clears them (a done access is no finding, whichever row looks first: no
    counter moves within the run); where one is outstanding it returns False and the walk
    reports it."""
    same = True
    for i in range(1, n):
        same &= tr[p + i] == row + i
    if not same:
        return False
    for j in range(jlo, jhi):
        if run_sets[row, RUN_EXPOSED, j] & ~written[w, j]:
            return False
    one = np.uint64(1)
    lag = (cnt[w, 0] != cnt[w, 1], cnt[w, 2] != cnt[w, 3], cnt[w, 4] != cnt[w, 5])
    for q in range(3):
        if not lag[q]:
            continue                    # the counter caught up: pbits[w, q] is empty
        for j in range(jlo, jhi):
            m = run_sets[row, RUN_WRITES if q == 2 else RUN_READS, j] & pbits[w, q, j]
            while m:
                b = np.uint64(trailing_zeros(m))
                m &= m - one
                pv = pend[w, 64 * j + np.int64(b), q]
                if pv >= 0 and (pv >> _ROWBITS) >= cnt[w, 2 * q + 1]:
                    return False
                pbits[w, q, j] &= ~(one << b)
    return True


@njit
def consume(tr, start, end, code, acc, reads, writes, locks, locks_at, counters, waits,
            barrier, moves, words, runs, run_sets, gwave, wgroup, written, pbits, pend, cnt, lds_sh,
            lds_grp, lds_size, starts, ends, scratch_lo, scratch_hi, scratch_bpl, counts, first, ev, nev,
            seq0):
    """Walk ``tr[start:end]`` (entries after the header). ``reads``/``writes``: the rows'
    register bit sets (rows.RowSets), ``words`` the span of words where a row has any (its
    walks stay inside it); ``runs``/``run_sets``: the register-only runs (rows.register_runs),
    each taken in one step where the trace holds it whole and it has nothing to report.
    Per batch wave w: ``written[w]`` the registers written
    (a bit set), ``pend[w, r, c]`` (c: 0 VM, 1 LGKM, 2 EXP; ``seq << 22 | row`` of the last
    access that writes or reads r, outstanding while seq is not below the counter's done
    count; -1 none) and ``pbits[w, c]`` the registers whose ``pend[w, r, c]`` may be
    outstanding (a bit set: a row whose registers miss both it and ``written``'s holes has
    nothing to report and is walked in a few word operations), ``cnt[w]`` (issued and done
    per counter, SMEM outstanding, barrier epoch);
    ``gwave``/``wgroup`` map batch waves to dispatch-wide ones and to the batch's LDS share;
    ``lds_sh``: see _lds_access; ``lds_grp[g]``: per group of the batch, the last barrier epoch
    in which one of its waves stored to LDS (not atomically; -1 none) and 1 once every dword of
    its LDS is known written (see the atomics' check below); ``scratch_lo``/``scratch_hi``: the batch's scratch,
    ``scratch_bpl`` bytes per lane (`_private_offset`). Global accesses go to
    ``ev`` (int64 [cap, NEV]) from ``nev`` on; returns (nev, ev, seq) -- ``ev`` grown when
    needed. A global access is one lane's dword: dword address, row | lane << 22 | mask << 28
    | write << 32, wave | epoch << 32, dynamic instruction number, the wave's global atomics
    before it, 0, 0; or, where the active lanes' addresses form ascending ranges (lane k of
    a run of them at ``a + k * bytes``: nearly every access of a real kernel), each run as one
    *range* access: first byte, row | first lane << 22 | EV_RANGE | write << 32, the same
    two, end byte, EXEC (`expand_ranges` turns it back into the lanes' entries).
    ``moves[row]``: 1 for a copy (its destination is as defined as its sources), 2 for
    v_writelane."""
    p = start
    w = 0
    seq = seq0
    cur_lo = np.int64(0)       # the allocation the last global access fell in
    cur_hi = np.int64(0)
    buf = np.zeros(128, np.int64)          # a compact DS record's lane entries (record.py)
    rng = np.zeros(256, np.uint64)         # an LDS instruction's ranges of dwords (below)
    # the LDS shadow's rows, each a 1-D array: the whole-instruction loops index them with
    # unsigned numbers (no negative-index wraparound), twice as fast as lds_sh[k, i]
    sh0, sh1, sh2, sh3 = lds_sh[0], lds_sh[1], lds_sh[2], lds_sh[3]
    held = np.zeros(NWORDS, np.uint64)     # a row's registers read and never written
    one = np.uint64(1)
    while p < end:
        v = tr[p]
        p += 1
        if v < 0:
            w = -v - 1
            continue
        row = v
        if row >= code.shape[0]:
            break                       # not a row: the trace is not the engine's
        nr_ = runs[row, 0]
        if nr_ > 1 and p - 1 + nr_ <= end and \
                _run_clean(tr, p - 1, row, nr_, runs[row, 1], runs[row, 2], run_sets, w,
                           written, pbits, pend, cnt):
            # a register-only run, whole in the trace, that reads no register unwritten or
            # outstanding and overwrites no locked data: what the rows one by one below would
            # leave is its registers written (see _run_clean)
            for j in range(runs[row, 1], runs[row, 2]):
                written[w, j] |= run_sets[row, RUN_WRITES, j]
            p += nr_ - 1
            continue
        h = code[row, C_H]
        gw = gwave[w]
        ep = cnt[w, 7]
        # --- registers read: written before? outstanding? (first as bit sets: nearly every
        # row reads only registers written and no longer outstanding)
        mv = moves[row]
        jlo, jhi = words[row, 0], words[row, 1]
        miss = np.uint64(0)
        hit = np.uint64(0)
        if mv == 0:
            # the row's writes recorded at once (the pass a copy needs below, saved); the
            # registers it reads unwritten kept in ``held`` for the walk (then written: they
            # are reported once per wave)
            for j in range(jlo, jhi):
                wr = written[w, j]
                mw = reads[row, j] & ~wr
                held[j] = mw
                miss |= mw
                written[w, j] = wr | mw | writes[row, j]
        else:
            for j in range(jlo, jhi):
                mw = reads[row, j] & ~written[w, j]
                held[j] = mw
                miss |= mw
        if cnt[w, 0] != cnt[w, 1] or cnt[w, 2] != cnt[w, 3]:
            # a load outstanding (else ``pbits`` 0 and 1 are empty: see s_waitcnt below)
            for j in range(jlo, jhi):
                hit |= reads[row, j] & (pbits[w, 0, j] | pbits[w, 1, j])
        defined = miss == 0 or mv == 0  # a copy passes the undefined value on
        if miss | hit:
            for j in range(jlo, jhi):     # the registers in ascending order, as listed
                m = held[j] | (reads[row, j] & (pbits[w, 0, j] | pbits[w, 1, j]))
                while m:
                    b = np.uint64(trailing_zeros(m))
                    m &= m - one
                    bit = one << b
                    r = 64 * j + np.int64(b)
                    if held[j] & bit and not mv:
                        _note(counts, first, K_UNINIT, row, gw, -1, -1, r, UNINIT_REG)
                    for q in range(2):          # vmcnt, then lgkmcnt
                        if pbits[w, q, j] & bit:
                            pv = pend[w, r, q]
                            if pv >= 0 and (pv >> _ROWBITS) >= cnt[w, 2 * q + 1]:
                                wait = WAIT_VM if q == 0 else WAIT_LGKM
                                _note(counts, first, K_UNWAITED, row, gw, -1, -1, r,
                                      wait | ((pv & _ROWMASK) << 4))
                                pend[w, r, q] = -1
                            pbits[w, q, j] &= ~bit  # done or reported: nothing more to say
        c = counters[row]
        if c < 0:                       # s_waitcnt
            nvm, nexp, nlgkm = waits[row, 0], waits[row, 1], waits[row, 2]
            cnt[w, 1] = max(cnt[w, 1], cnt[w, 0] - nvm)
            cnt[w, 5] = max(cnt[w, 5], cnt[w, 4] - nexp)
            if nlgkm == 0:
                cnt[w, 3] = cnt[w, 2]
                cnt[w, 6] = 0
            elif cnt[w, 6] == 0:        # no SMEM outstanding: LGKM returns in order
                cnt[w, 3] = max(cnt[w, 3], cnt[w, 2] - nlgkm)
            # a counter that caught up leaves nothing outstanding on it
            for q in range(3):
                if cnt[w, 2 * q] == cnt[w, 2 * q + 1]:
                    for j in range(NWORDS):
                        pbits[w, q, j] = 0
            continue
        # --- registers written: store data still unread? then outstanding results
        lockhit = np.uint64(0)
        if cnt[w, 4] != cnt[w, 5]:     # else no store data is outstanding
            for j in range(jlo, jhi):
                lockhit |= writes[row, j] & pbits[w, 2, j]
        if lockhit:
            for j in range(jlo, jhi):
                m = writes[row, j] & pbits[w, 2, j]
                while m:
                    b = np.uint64(trailing_zeros(m))
                    m &= m - one
                    r = 64 * j + np.int64(b)
                    pv = pend[w, r, 2]
                    if pv >= 0 and (pv >> _ROWBITS) >= cnt[w, 5]:
                        _note(counts, first, K_STORE_DATA, row, gw, -1, -1, r,
                              (pv & _ROWMASK) << 4)
                        pend[w, r, 2] = -1
                    pbits[w, 2, j] &= ~(one << b)
        if mv != 0:                     # (other rows recorded theirs above)
            for j in range(jlo, jhi):
                if defined:
                    written[w, j] |= writes[row, j]
                elif mv != 2:           # v_writelane: one lane; the others keep theirs
                    written[w, j] &= ~writes[row, j]
        if c & (VM | SMEM | LGKM):
            q = 0 if c & VM else 1
            s = cnt[w, 0] if c & VM else cnt[w, 2]
            for j in range(jlo, jhi):
                m = writes[row, j]
                pbits[w, q, j] |= m
                while m:
                    b = np.uint64(trailing_zeros(m))
                    m &= m - one
                    pend[w, 64 * j + np.int64(b), q] = (s << _ROWBITS) | row
        for i in range(locks_at[row], locks_at[row + 1]):
            r = locks[i]
            pend[w, r, 2] = (cnt[w, 4] << _ROWBITS) | row
            pbits[w, 2, r >> 6] |= one << np.uint64(r & 63)
        if c & VM:
            cnt[w, 0] += 1
        if c & (SMEM | LGKM):
            cnt[w, 2] += 1
        if c & SMEM:
            cnt[w, 6] += 1
        if c & EXP:
            cnt[w, 4] += 1
        if c & VM and acc[row, 0] == A_ATOMIC:
            cnt[w, 8] += 1              # global atomics so far (see global_races)
        # --- barriers and memory records
        if barrier[row]:
            cnt[w, 7] += 1
            continue
        if not (h == H_SMRD_LOAD or (H_DS <= h <= H_MIMG)):
            continue
        kind = acc[row, 0]
        nb = acc[row, 1]
        al = acc[row, 2]
        if h == H_SMRD_LOAD:
            a = tr[p]
            p += 1
            if a & 3:
                _note(counts, first, K_MISALIGNED, row, gw, -1, a, -1, 4)
            # only the first dword: clang merges kernarg loads into wider ones that may read
            # past the segment's end, which the runtime's allocation makes harmless
            if not _in_alloc(starts, ends, a & ~np.int64(3), 4):
                _note(counts, first, K_OOB, row, gw, -1, a, -1, OOB_GLOBAL)
            continue
        ex = tr[p]
        p += 1
        per = acc[row, 3]
        compact = False
        lg = np.int64(6)
        ca = cs1 = cs2 = cd = np.int64(0)
        if h == H_DS and per > 0:       # the header of a DS record (record.py)
            if tr[p] >= 0:
                compact = True
                lg, ca, cs1, cs2, cd = tr[p], tr[p + 1], tr[p + 2], tr[p + 3], tr[p + 4]
                p += 5
            else:
                p += 1
        if kind == A_NONE or per == 0:
            if not compact:
                exu = np.uint64(ex)
                while exu:              # step over the record: no addressed bytes
                    exu &= exu - np.uint64(1)
                    p += per
            continue
        seq += 1
        exu = np.uint64(ex)
        nent = np.int64(popcount64(exu)) * per      # the record's address entries
        if h == H_DS and kind == A_STORE:
            g = wgroup[w]
            lds_grp[g, 0] = max(lds_grp[g, 0], ep)
        if h == H_DS:
            # The whole-instruction path: an instruction whose lanes all access whole,
            # aligned, in-bounds dwords is checked first without changing the shadow; when
            # that finds nothing, the shadow is updated. This is the per-lane path's
            # outcome: its lanes differ from each other only in the dwords they touch, and
            # what a lane leaves behind (its wave's access, the bytes written) neither makes
            # nor hides a finding of another lane of the same instruction (and a dword that
            # two lanes touch is updated alike twice). When the check finds something, the
            # per-lane path below runs and counts it lane by lane.
            # The dwords: ``nr`` ranges of whole dwords of the shadow, [rng[2k], rng[2k+1])
            # (a row of lanes over a row of LDS, a tile's lines read by ds_read2, a column of
            # 16-lane broadcasts, ...), checked and updated in vectorised loops; else each
            # address of ``src[q:q + kn]`` (a compact record's distinct ones, or the lanes').
            # Ranges may overlap: the check reads the shadow only, and an update made twice
            # leaves what it made once.
            fits = False
            nr = 0
            gbase = wgroup[w] * ((lds_size + 3) >> 2)
            ni = (np.int64(1) << lg) if cs1 != 0 else np.int64(1)
            nj = (np.int64(64) >> lg) if cs2 != 0 else np.int64(1)
            am = (al - 1) | 3
            src = tr
            q = p
            kn = nent
            if compact and (nb & 3) == 0 and (ni == 1 or cs1 == nb or cs1 == -nb) and \
                    (ca & am) == 0 and (ni == 1 or (cs1 & am) == 0) and \
                    (nj == 1 or (cs2 & am) == 0) and (per == 1 or (cd & am) == 0):
                # a compact record whose lane groups each cover one run of dwords: the
                # ranges in closed form, a group (and, for read2/write2, each of its two
                # addresses) one range
                run = ni * nb
                lo = np.int64(1) << 40
                top = -lo
                for j in range(nj):
                    for k in range(per):
                        x = ca + j * cs2 + k * cd + (0 if cs1 >= 0 else (ni - 1) * cs1)
                        lo = min(lo, x)
                        top = max(top, x + run)
                        a0 = np.uint64(gbase + (x >> 2))
                        a1 = np.uint64(gbase + ((x + run) >> 2))
                        if nr and rng[2 * nr - 1] == a0:
                            rng[2 * nr - 1] = a1      # right after the last: one range
                        else:
                            rng[2 * nr] = a0
                            rng[2 * nr + 1] = a1
                            nr += 1
                if lo >= 0 and top <= lds_size:
                    fits = True
                else:
                    nr = 0
            elif (nb & 3) == 0 and nent > 0:
                if compact:             # its distinct addresses only
                    kn = 0
                    for j in range(nj):
                        for i in range(ni):
                            x = ca + i * cs1 + j * cs2
                            buf[kn] = x
                            kn += 1
                            if per == 2:
                                buf[kn] = x + cd
                                kn += 1
                    src = buf
                    q = 0
                # one pass (vectorised): bounds and alignment
                lo = src[q]
                top = lo
                bits = np.int64(0)
                for k in range(q, q + kn):
                    x = src[k]
                    lo = min(lo, x)
                    top = max(top, x)
                    bits |= x
                fits = (bits & (al - 1)) == 0 and lo >= 0 and top + nb <= lds_size
            if fits:
                wtag = w + 1
                ept = ep & 0xFFFFF
                store = kind == A_STORE
                found = False
                taken = False           # a dword's first reader is another wave's
                nd = np.uint64(nb >> 2)
                if kind == A_ATOMIC and lds_grp[wgroup[w], 0] < ep and ep < (1 << 20) - 1:
                    # an atomic races with another wave's plain store in its epoch only, and
                    # reads bytes nobody wrote only until every dword was written: when no
                    # wave of the group stored in this epoch (nor later: the epochs the
                    # shadow keeps are the low 20 bits) and the group's LDS is all written
                    # (sticky: bytes written stay written), there is nothing to check (a
                    # histogram's bins, bumped by every wave)
                    g = wgroup[w]
                    if lds_grp[g, 1] == 0:
                        whole = True
                        for i in range(np.uint64(gbase), np.uint64(gbase + ((lds_size + 3) >> 2))):
                            whole &= sh3[i] == 0xF
                        lds_grp[g, 1] = whole
                    skip = lds_grp[g, 1] != 0
                else:
                    skip = False
                if skip:
                    pass
                elif nr:
                    # unsigned indices: numba then leaves out the negative-index wraparound,
                    # which keeps LLVM from vectorising the loops (2.5x slower)
                    for r in range(nr):
                        for i in range(rng[2 * r], rng[2 * r + 1]):
                            lw = sh0[i]
                            # (& and | on bools: no branches)
                            found |= (not store) & (sh3[i] != 0xF)  # uninitialised
                            found |= _by_other_wave(lw, wtag, ept) & \
                                (store | (((lw >> _AT_SHIFT) & 1) == 0))  # another's write
                            if store:
                                found |= _by_other_wave(sh1[i], wtag, ept) | \
                                    _by_other_wave(sh2[i], wtag, ept)      # another's read
                            else:
                                taken |= _by_other_wave(sh1[i], wtag, ept)
                else:
                    for k in range(q, q + kn):
                        i0 = np.uint64(gbase + (src[k] >> 2))
                        for i in range(i0, i0 + nd):
                            lw = sh0[i]
                            found |= (not store) & (sh3[i] != 0xF)
                            found |= _by_other_wave(lw, wtag, ept) & \
                                (store | (((lw >> _AT_SHIFT) & 1) == 0))
                            if store:
                                found |= _by_other_wave(sh1[i], wtag, ept) | \
                                    _by_other_wave(sh2[i], wtag, ept)
                if not found:
                    me = _lds_pack(w, ep, row, kind == A_ATOMIC, 0xF)
                    if nr and kind == A_LOAD and not taken:
                        # every dword's first reader is none, older or this wave: this one
                        for r in range(nr):
                            for i in range(rng[2 * r], rng[2 * r + 1]):
                                sh1[i] = me
                    elif nr and kind == A_LOAD:
                        for r in range(nr):
                            for i in range(rng[2 * r], rng[2 * r + 1]):
                                r1 = sh1[i]
                                first_reader = not _by_other_wave(r1, wtag, ept)
                                sh1[i] = me if first_reader else r1
                                sh2[i] = sh2[i] if first_reader else me
                    elif nr:
                        for r in range(nr):
                            for i in range(rng[2 * r], rng[2 * r + 1]):
                                sh0[i] = me
                                sh3[i] = 0xF
                    else:
                        for k in range(q, q + kn):
                            i0 = np.uint64(gbase + (src[k] >> 2))
                            for i in range(i0, i0 + nd):
                                if kind == A_LOAD:
                                    if not _by_other_wave(sh1[i], wtag, ept):
                                        sh1[i] = me
                                    else:
                                        sh2[i] = me
                                else:
                                    sh0[i] = me
                                    sh3[i] = 0xF
                    if not compact:
                        p += nent
                    continue
            # the per-lane path, on a compact record's lanes written out
            if compact:
                for l in range(64):
                    x = ca + (l & ((1 << lg) - 1)) * cs1 + (l >> lg) * cs2
                    buf[per * l] = x
                    if per == 2:
                        buf[per * l + 1] = x + cd
                src = buf
                q = 0
            else:
                src = tr
                q = p
            prev = np.int64(-1)
            # plain loads and stores of whole, aligned, in-bounds dwords (nearly all of them)
            # are checked here, written out: _lds_access's checks with every byte mask 0xF.
            # Inline code, not a helper: numba increments and decrements the reference count
            # of each array passed to even an inlined function, atomically, on every call,
            # which cost more than the checks themselves.
            fast = kind != A_ATOMIC and (nb & 3) == 0
            nd = nb >> 2
            store = kind == A_STORE
            wtag = w + 1
            ept = ep & 0xFFFFF
            me = _lds_pack(w, ep, row, False, 0xF)
            gb = wgroup[w] * ((lds_size + 3) >> 2)
            for l in range(64):
                if not (exu >> np.uint64(l)) & np.uint64(1):
                    continue
                # a lane at the previous lane's address(es) (a broadcast) finds what that
                # one found: checked once
                same = kind != A_ATOMIC and src[q] == prev and (per == 1 or src[q + 1] == src[q - 1])
                prev = src[q]
                for k in range(per):
                    if not same:
                        a = src[q]
                        if fast and (a & (al - 1)) == 0 and a + nb <= lds_size:
                            uninit = False
                            other = np.int64(-1)
                            i0 = gb + (a >> 2)
                            for i in range(i0, i0 + nd):
                                if not store and lds_sh[3, i] != 0xF:
                                    uninit = True
                                if other < 0:
                                    lw = lds_sh[0, i]
                                    if _by_other_wave(lw, wtag, ept) and \
                                            (store or not (lw >> _AT_SHIFT) & 1):
                                        other = (lw >> _ROW_SHIFT) & _ROWMASK
                                if store:
                                    if other < 0:
                                        for s in range(1, 3):
                                            x = lds_sh[s, i]
                                            if _by_other_wave(x, wtag, ept):
                                                other = (x >> _ROW_SHIFT) & _ROWMASK
                                                break
                                    lds_sh[0, i] = me
                                    lds_sh[3, i] = 0xF
                                else:
                                    if not _by_other_wave(lds_sh[1, i], wtag, ept):
                                        lds_sh[1, i] = me
                                    else:
                                        lds_sh[2, i] = me
                            if uninit:
                                _note(counts, first, K_UNINIT, row, gw, l, a, -1, UNINIT_LDS)
                            if other >= 0:
                                _note(counts, first, K_LDS_RACE, row, gw, l, a, other, 0)
                        else:
                            _lds_access(a, nb, al, kind, row, w, gw, l, ep, wgroup[w], lds_sh,
                                        lds_size, counts, first)
                    q += 1
            if not compact:
                p = q
            continue
        # The range path: the active lanes' addresses split into runs, each one ascending
        # range (lane k of a run at ``a + k * bytes``: a row of a 2-D block, the whole wave
        # in 1-D); when every run is whole, aligned accesses inside one allocation, clear of
        # the scratch and of FLAT's LDS and scratch apertures, there is nothing to report and
        # each run is one range access for global_races. Otherwise the per-lane path below.
        if per == 1 and nent > 0:
            # branch-free, on unsigned indices (no wraparound code): vectorised; ``off`` 0
            # when all the lanes make one run (the whole wave, as a rule)
            bits = np.int64(0)
            off = np.int64(0)
            up = np.uint64(p)
            t0 = tr[p]
            for k in range(np.uint64(nent)):
                x = tr[up + k]
                bits |= x
                off |= x ^ (t0 + np.int64(k) * nb)
            ok = (bits & (al - 1)) == 0
            nev0 = nev
            rest = exu                  # the lanes of the runs not yet taken
            k = p
            while ok and k < p + nent:
                a0 = tr[k]
                j = p + nent if off == 0 else k + 1
                while j < p + nent and tr[j] == tr[j - 1] + nb:
                    j += 1
                aend = tr[j - 1] + nb
                if h == H_FLAT:
                    for x in (a0, aend - 1):
                        hi = (x >> 32) & 0xFFFFFFFF
                        if hi == SHARED_APERTURE_HI or hi == PRIVATE_APERTURE_HI:
                            ok = False
                if a0 < scratch_hi and aend > scratch_lo:
                    ok = False
                if ok and not (cur_lo <= a0 and aend <= cur_hi):
                    if _in_alloc(starts, ends, a0, aend - a0):
                        cur_lo, cur_hi = _alloc_of(starts, ends, a0)
                    else:
                        ok = False
                if ok and kind != A_ATOMIC:  # atomics do not race
                    if nev >= ev.shape[0]:
                        ev = _grown(ev, nev)
                    ev[nev, 0] = a0
                    ev[nev, 1] = row | (np.int64(trailing_zeros(rest)) << 22) | EV_RANGE | \
                        (np.int64(kind == A_STORE) << 32)
                    ev[nev, 2] = gw | (ep << 32)
                    ev[nev, 3] = seq
                    ev[nev, 4] = cnt[w, 8]
                    ev[nev, 5] = aend
                    ev[nev, 6] = ex
                    nev += 1
                for _ in range(j - k):
                    rest &= rest - np.uint64(1)
                k = j
            if ok:
                p += nent
                continue
            nev = nev0                  # the per-lane path records them
        for l in range(64):
            if not (exu >> np.uint64(l)) & np.uint64(1):
                continue
            for k in range(per):
                a = tr[p]
                p += 1
                oor = False
                if h == H_MUBUF or h == H_MTBUF:
                    oor = (a & OUT_OF_RANGE) != 0
                    a = a & (OUT_OF_RANGE - 1)
                if a & (al - 1):         # alignments are powers of two
                    _note(counts, first, K_MISALIGNED, row, gw, l, a, -1, al)
                    a &= ~(al - 1)       # what the hardware accesses
                hi = (a >> 32) & 0xFFFFFFFF
                if h == H_FLAT and (hi == SHARED_APERTURE_HI or hi == PRIVATE_APERTURE_HI):
                    # FLAT to LDS: not checked here; to scratch: the aperture offset is the
                    # lane's private byte offset (gcnemu/mem/descriptors.py), reported at the
                    # scratch byte it reaches (the swizzle of the MUBUF path's addresses)
                    o = a & 0xFFFFFFFF
                    if hi == PRIVATE_APERTURE_HI and o + nb > scratch_bpl:
                        _note(counts, first, K_OOB, row, gw, l,
                              scratch_lo + w * 64 * scratch_bpl + (o >> 2) * 256 + 4 * l + (o & 3),
                              -1, OOB_PRIVATE)
                    continue
                inscratch = scratch_lo <= a < scratch_hi
                if oor:
                    # dropped by the V#; past the scratch's end too when the kernel passes the
                    # wave offset in SOFFSET (GcnMemHandling.md, STRIDE == 0: out of range iff
                    # BUFOFFSET >= NUM_RECORDS - SOFFSET), the last wave's private overflow
                    scr = inscratch or _past_scratch(starts, a, scratch_lo, scratch_hi)
                    _note(counts, first, K_OOB, row, gw, l, a, -1,
                          OOB_SCRATCH if scr else OOB_BUFFER)
                    continue
                if inscratch and h != H_FLAT and _private_offset(
                        a - scratch_lo - w * 64 * scratch_bpl, l, scratch_bpl) + nb > scratch_bpl:
                    _note(counts, first, K_OOB, row, gw, l, a, -1, OOB_PRIVATE)
                    continue
                if not (cur_lo <= a and a + nb <= cur_hi):   # not the last lane's allocation
                    if not _in_alloc(starts, ends, a, nb):
                        # past the end of the scratch (the last wave's private overflow: the
                        # scratch is the allocation below) it is the work-item's, not global
                        past = h != H_FLAT and _past_scratch(starts, a, scratch_lo, scratch_hi)
                        _note(counts, first, K_OOB, row, gw, l, a, -1,
                              OOB_PRIVATE if past else OOB_GLOBAL)
                        continue
                    cur_lo, cur_hi = _alloc_of(starts, ends, a)
                if inscratch or kind == A_ATOMIC:
                    continue            # private per lane; atomics do not race
                # global accesses, one entry per dword touched
                d0 = a >> 2
                d1 = (a + nb - 1) >> 2
                for d in range(d0, d1 + 1):
                    lo = max(a, d * 4) - d * 4
                    hiB = min(a + nb, d * 4 + 4) - d * 4
                    mask = ((1 << hiB) - 1) ^ ((1 << lo) - 1)
                    if nev >= ev.shape[0]:
                        ev = _grown(ev, nev)
                    ev[nev, 0] = d
                    ev[nev, 1] = row | (np.int64(l) << 22) | (np.int64(mask) << 28) | \
                        (np.int64(kind == A_STORE) << 32)
                    ev[nev, 2] = gw | (ep << 32)
                    ev[nev, 3] = seq
                    ev[nev, 4] = cnt[w, 8]
                    ev[nev, 5] = 0
                    ev[nev, 6] = 0
                    nev += 1
    return nev, ev, seq


@njit
def _grown(ev, nev):
    """``ev`` with twice the room, its first ``nev`` accesses kept."""
    grown = np.empty((2 * ev.shape[0], NEV), np.int64)
    grown[:nev] = ev[:nev]
    return grown


#: the LDS shadow packs, per dword: wave + 1 (bits 0-15), barrier epoch (16-35), row (36-57),
#: atomic (58) and the bytes accessed (59-62)
_EP_SHIFT, _ROW_SHIFT, _AT_SHIFT, _MASK_SHIFT = 16, 36, 58, 59


@njit(inline="always")
def _lds_pack(w, epoch, row, atomic, mask):
    return (w + 1) | ((epoch & 0xFFFFF) << _EP_SHIFT) | (row << _ROW_SHIFT) | \
        (np.int64(atomic) << _AT_SHIFT) | (np.int64(mask) << _MASK_SHIFT)


@njit(inline="always")
def _by_other_wave(x, wtag, ept):
    """True when the access packed in ``x`` (_lds_pack) was made by another wave than the one
    tagged ``wtag`` (w + 1) in barrier epoch ``ept`` (its low 20 bits). & on bools, not
    `and`: no branches, so the whole-dword loops that use it vectorise."""
    return (x != 0) & ((x & 0xFFFF) != wtag) & (((x >> _EP_SHIFT) & 0xFFFFF) == ept)


@njit(inline="always")
def _lds_concurrent(x, w, ep, mask):
    """True when the access packed in ``x`` was made by another wave in barrier epoch ``ep``
    and touched some of the bytes ``mask``."""
    return _by_other_wave(x, w + 1, ep & 0xFFFFF) and ((x >> _MASK_SHIFT) & mask) != 0


@njit(inline="always")
def _lds_access(a, nb, al, kind, row, w, gw, l, ep, g, lds_sh, lds_size, counts, first):
    """One lane's LDS access at group-relative byte ``a``: bounds, alignment, races and reads
    of bytes no one wrote. ``lds_sh`` [4, dwords]: per dword of the batch's LDS the last
    writer, two readers (_lds_pack) and the bytes ever written; group g's dwords start at
    g * ceil(lds_size / 4). A writer or reader replaced by another wave's access to other
    bytes of the same dword is forgotten (a race with it can go unseen, none is invented)."""
    if a & (al - 1):                 # alignments are powers of two
        _note(counts, first, K_MISALIGNED, row, gw, l, a, -1, al)
        a &= ~(al - 1)               # what the hardware accesses (mem/ds.py)
    if a + nb > lds_size:
        _note(counts, first, K_OOB, row, gw, l, a, -1, OOB_LDS)
        return
    gbase = g * ((lds_size + 3) >> 2)
    writes = kind == A_STORE or kind == A_ATOMIC
    reads = kind == A_LOAD or kind == A_ATOMIC
    atomic = kind == A_ATOMIC
    raced = False
    uninit = False
    other = np.int64(-1)
    for d in range(a >> 2, ((a + nb - 1) >> 2) + 1):
        if nb >= 4:
            mask = 0xF                 # aligned dwords (al >= 4)
        else:
            lo = a - 4 * d
            mask = ((1 << (lo + nb)) - 1) ^ ((1 << lo) - 1)
        i = gbase + d
        if reads and (lds_sh[3, i] & mask) != mask:
            uninit = True
        lw = lds_sh[0, i]
        # an aligned read and an atomic see each other whole (single-copy atomic): plain
        # writes race, atomics and reads do not race with atomics
        if not raced and _lds_concurrent(lw, w, ep, mask) and \
                (kind == A_STORE or not (lw >> _AT_SHIFT) & 1):
            raced = True
            other = (lw >> _ROW_SHIFT) & _ROWMASK
        if kind == A_STORE and not raced:
            for s in range(1, 3):
                if _lds_concurrent(lds_sh[s, i], w, ep, mask):
                    raced = True
                    other = (lds_sh[s, i] >> _ROW_SHIFT) & _ROWMASK
                    break
        if writes:
            if (lw & 0xFFFF) == w + 1 and ((lw >> _EP_SHIFT) & 0xFFFFF) == (ep & 0xFFFFF):
                mask |= (lw >> _MASK_SHIFT) & 0xF
            lds_sh[0, i] = _lds_pack(w, ep, row, atomic, mask)
            lds_sh[3, i] |= mask
        else:
            if not _by_other_wave(lds_sh[1, i], w + 1, ep & 0xFFFFF):
                lds_sh[1, i] = _lds_pack(w, ep, row, atomic, mask)
            else:
                lds_sh[2, i] = _lds_pack(w, ep, row, atomic, mask)
    if uninit:
        _note(counts, first, K_UNINIT, row, gw, l, a, -1, UNINIT_LDS)
    if raced:
        _note(counts, first, K_LDS_RACE, row, gw, l, a, other, 0)


#: dwords of address space one pass of global_races shadows (16 MB: two int32 arrays of 4M)
WINDOW_SHIFT = 22


@njit(inline="always")
def _dwords_of(ev, e):
    """First and last dword of global access ``e`` (a lane's dword or a range access)."""
    if ev[e, 1] & EV_RANGE:
        return ev[e, 0] >> 2, (ev[e, 5] - 1) >> 2
    return ev[e, 0], ev[e, 0]


@njit(inline="always")
def _mask_at(ev, e, d):
    """The bytes of dword ``d`` that global access ``e`` touches (a 4-bit mask)."""
    if ev[e, 1] & EV_RANGE:
        lo = max(ev[e, 0], 4 * d) - 4 * d
        hi = min(ev[e, 5], 4 * d + 4) - 4 * d
        return ((1 << hi) - 1) ^ ((1 << lo) - 1)
    return (ev[e, 1] >> 28) & 0xF


@njit(inline="always")
def _whole(ev, e):
    """True when global access ``e`` is a range access of whole dwords (every dword's mask
    0xF)."""
    return (ev[e, 1] & EV_RANGE) != 0 and (ev[e, 0] & 3) == 0 and (ev[e, 5] & 3) == 0


@njit(inline="always")
def _unordered(ev, a, b, ma, mb, wpg, atomics):
    """True when global accesses ``a`` and ``b`` (rows of ``ev``), which touch the bytes
    ``ma`` and ``mb`` of one dword, overlap and nothing orders them (see global_races)."""
    if not (ma & mb):
        return False
    wa, wb = ev[a, 2] & 0xFFFFFFFF, ev[b, 2] & 0xFFFFFFFF
    ka, kb = ev[a, 4], ev[b, 4]
    if wa == wb:
        # one instruction's lanes (a range access is never compared with itself: its lanes'
        # bytes are disjoint)
        return ev[a, 3] == ev[b, 3] and ((ev[a, 1] >> 22) & 63) != ((ev[b, 1] >> 22) & 63)
    if (atomics[wa] > ka and kb > 0) or (atomics[wb] > kb and ka > 0):
        return False
    if wa // wpg != wb // wpg:
        return True
    return (ev[a, 2] >> 32) == (ev[b, 2] >> 32)


@njit(inline="always")
def _flag(ev, e, d, other, flagged, counts, first):
    if not flagged[e]:
        flagged[e] = 1
        m = ev[e, 1]
        _note(counts, first, K_GLOBAL_RACE, m & _ROWMASK, ev[e, 2] & 0xFFFFFFFF,
              (m >> 22) & 63, d * 4, ev[other, 1] & _ROWMASK, 0)


@njit
def _races(ev, wpg, atomics, counts, first):
    """global_races' walk over ``ev`` (lane and range accesses alike); returns whether it
    flagged any access."""
    n = ev.shape[0]
    if n == 0:
        return False
    lo, hi = _dwords_of(ev, 0)
    for e in range(n):
        d0, d1 = _dwords_of(ev, e)
        lo = min(lo, d0)
        hi = max(hi, d1)
    if hi - lo < (1 << WINDOW_SHIFT):
        size = hi - lo + 1          # one window from the lowest dword
        nwin = 1
    else:
        size = 1 << WINDOW_SHIFT
        nwin = ((hi - lo) >> WINDOW_SHIFT) + 1
    # the windows any access falls in (one, as a rule: the buffers lie together)
    used = np.zeros(nwin, np.uint8)
    for e in range(n):
        d0, d1 = _dwords_of(ev, e)
        for win in range((d0 - lo) // size, (d1 - lo) // size + 1):
            used[win] = 1
    # int32 (global_races checks that the accesses fit): half the memory traffic of int64
    lastw = np.empty(size, np.int32)
    lastr = np.empty(size, np.int32)
    flagged = np.zeros(n, np.uint8)
    found = False
    for win in range(nwin):
        if not used[win]:
            continue
        lastw[:] = -1
        lastr[:] = -1
        wlo = lo + win * size
        for e in range(n):
            d0, d1 = _dwords_of(ev, e)
            d0 = max(d0, wlo)
            d1 = min(d1, wlo + size - 1)
            write = (ev[e, 1] >> 32) & 1
            if d1 > d0 and _whole(ev, e):
                # a range of whole dwords whose dwords all have the same last writer and
                # reader, each none or such a range too (a buffer that one instruction reads
                # and another writes back: nearly all of them): what the loop below finds at
                # its first dword it finds at every other, so it is checked once and the
                # shadow updated in vectorised loops
                u0 = np.uint64(d0 - wlo)
                u1 = np.uint64(d1 - wlo + 1)
                o = lastw[u0]
                r = lastr[u0]
                same = True
                for i in range(u0, u1):
                    same &= (lastw[i] == o) & (lastr[i] == r)
                if same and (o < 0 or _whole(ev, o)) and (r < 0 or _whole(ev, r)):
                    if o >= 0 and _unordered(ev, e, o, 0xF, 0xF, wpg, atomics):
                        found = True
                        if write:
                            _flag(ev, o, d0, e, flagged, counts, first)
                        _flag(ev, e, d0, o, flagged, counts, first)
                    if write:
                        if r >= 0 and _unordered(ev, r, e, 0xF, 0xF, wpg, atomics):
                            found = True
                            _flag(ev, r, d0, e, flagged, counts, first)
                        for i in range(u0, u1):
                            lastw[i] = np.int32(e)
                    else:
                        for i in range(u0, u1):
                            lastr[i] = np.int32(e)
                    continue
            for d in range(d0, d1 + 1):
                i = d - wlo
                me = _mask_at(ev, e, d)
                o = lastw[i]
                if o >= 0 and _unordered(ev, e, o, me, _mask_at(ev, o, d), wpg, atomics):
                    found = True
                    if write:
                        _flag(ev, o, d, e, flagged, counts, first)
                    _flag(ev, e, d, o, flagged, counts, first)
                if write:
                    r = lastr[i]
                    if r >= 0 and _unordered(ev, r, e, _mask_at(ev, r, d), me, wpg, atomics):
                        found = True
                        _flag(ev, r, d, e, flagged, counts, first)
                    lastw[i] = np.int32(e)
                else:
                    lastr[i] = np.int32(e)
    return found


@njit
def _byte_spans(ev):
    """int64 [n] first byte and [n] end byte of each global access (a range access's bytes,
    a lane's bytes of its dword: its mask is one run of bytes)."""
    n = ev.shape[0]
    s = np.empty(n, np.int64)
    t = np.empty(n, np.int64)
    for e in range(n):
        if ev[e, 1] & EV_RANGE:
            s[e] = ev[e, 0]
            t[e] = ev[e, 5]
        else:
            m = (ev[e, 1] >> 28) & 0xF
            lo = np.int64(trailing_zeros(np.uint64(m | 16)))
            hi = lo
            while hi < 4 and (m >> hi) & 1:
                hi += 1
            s[e] = 4 * ev[e, 0] + lo
            t[e] = 4 * ev[e, 0] + hi
    return s, t


@njit
def _overlapping_pairs(ev, s, t, order, wpg, atomics, budget):
    """Whether two global accesses overlap with one of them writing and nothing ordering them
    (_unordered): 0 no such pair, 1 maybe (a pair found), -1 unknown (more than ``budget``
    overlapping pairs looked at). ``order`` sorts the accesses by first byte ``s``; each
    overlapping pair is looked at once, from the one that starts first, so that accesses
    that touch their own bytes (each wave its part of a buffer, a read and the write back)
    cost a step each. Every pair global_races' walk can flag is such a pair."""
    n = order.shape[0]
    seen = 0
    for i in range(n):
        e = order[i]
        we = (ev[e, 1] >> 32) & 1
        for k in range(i + 1, n):
            f = order[k]
            if s[f] >= t[e]:
                break
            seen += 1
            if seen > budget:
                return -1
            if (we | ((ev[f, 1] >> 32) & 1)) and _unordered(ev, e, f, 0xF, 0xF, wpg, atomics):
                return 1
    return 0


@njit
def expand_ranges(ev, acc):
    """``ev`` with each range access replaced by its lanes' accesses, one per lane and dword,
    as consume's per-lane path writes them (``acc``: access_table, for the bytes per lane).
    A range's lanes are the active ones (EXEC, column 6) from its first, one per ``bytes``."""
    n = 0
    for e in range(ev.shape[0]):
        if ev[e, 1] & EV_RANGE:
            nb = acc[ev[e, 1] & _ROWMASK, 1]
            a = ev[e, 0]
            while a < ev[e, 5]:
                n += ((a + nb - 1) >> 2) - (a >> 2) + 1
                a += nb
        else:
            n += 1
    out = np.zeros((n, NEV), np.int64)
    k = 0
    for e in range(ev.shape[0]):
        m = ev[e, 1]
        if not m & EV_RANGE:
            out[k] = ev[e]
            k += 1
            continue
        nb = acc[m & _ROWMASK, 1]
        a = ev[e, 0]
        exu = np.uint64(ev[e, 6])
        for l in range((m >> 22) & 63, 64):
            if not (exu >> np.uint64(l)) & np.uint64(1):
                continue
            if a >= ev[e, 5]:
                break
            for d in range(a >> 2, ((a + nb - 1) >> 2) + 1):
                lo = max(a, d * 4) - d * 4
                hiB = min(a + nb, d * 4 + 4) - d * 4
                mask = ((1 << hiB) - 1) ^ ((1 << lo) - 1)
                out[k, 0] = d
                out[k, 1] = (m & _ROWMASK) | (np.int64(l) << 22) | (np.int64(mask) << 28) | \
                    (((m >> 32) & 1) << 32)
                out[k, 2] = ev[e, 2]
                out[k, 3] = ev[e, 3]
                out[k, 4] = ev[e, 4]
                k += 1
            a += nb
    return out


def global_races(ev, wpg, atomics, counts, first, acc):
    """Races among the dispatch's global accesses ``ev`` (consume's entries, in batch order):
    an access that overlaps a write by another work-item with no order between them --
    another workgroup, another wave of the group in the same barrier epoch, or another lane
    of the same wave instruction -- is counted once at its row, with the write's row as the
    other access (two writes: both). Each dword keeps its last writer and last reader, in
    windows of 2**WINDOW_SHIFT dwords (no sort: linear in the accesses per window touched).

    Global atomics order too, as in the last-block reduction (each workgroup writes its
    part, then bumps a counter; the one that sees the final count reads all parts): an
    access made before its wave's last global atomic (``atomics[wave]``, the wave's total)
    and one made after the other wave's first are taken as ordered. This cannot tell which
    atomics a kernel synchronises through, so races hidden behind unrelated atomics are
    missed.

    First the accesses are sorted by address and each pair that overlaps looked at
    (_overlapping_pairs): when no pair has a write and no order, there is nothing to find,
    and the walks below do not run (their windows' shadows cost a pass over every dword
    between the lowest and the highest access: ~1x a plain dispatch of saxpy on 2**20
    elements). Then range accesses are walked as they are, into scratch counts: a range's
    bytes in a dword are the union of its lanes' there, and its attributes theirs, so this
    walk flags whatever the lanes' walk would (and maybe more). Only when it flags anything
    are the ranges expanded (expand_ranges) and the lanes walked, which gives each finding
    its lane, address and count."""
    if ev.shape[0] == 0:
        return
    if ev.shape[0] >= 2**31:
        raise ValueError(f"global_races: {ev.shape[0]} global accesses, more than the 2**31 "
                         f"its int32 shadow can name")
    s, t = _byte_spans(ev)
    order = np.argsort(s, kind="stable")
    if _overlapping_pairs(ev, s, t, order, wpg, atomics, 8 * ev.shape[0] + (1 << 16)) == 0:
        return
    if not (ev[:, 1] & EV_RANGE).any():
        _races(ev, wpg, atomics, counts, first)
        return
    if _races(ev, wpg, atomics, np.zeros_like(counts), np.zeros_like(first)):
        lanes = expand_ranges(ev, acc)
        if lanes.shape[0] >= 2**31:
            raise ValueError(f"global_races: {lanes.shape[0]} global lane accesses, more than "
                             f"the 2**31 its int32 shadow can name")
        _races(lanes, wpg, atomics, counts, first)
