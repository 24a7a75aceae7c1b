"""What the functional engine records for the timing model (only when timing is on) and the
coherency-accurate mode (gcnemu/coherency.py, which reads the lines of each access).

The engine appends to one int64 array per batch of waves (``tr``):

* ``tr[0]`` the next free position, ``tr[1]`` set to 1 when the buffer filled up (the engine
  stopped before an instruction; the caller grows the buffer and resumes), entries from 2 on;
  ``tr[1]`` -1 (until full): a trace for the coherency-accurate mode (gcnemu/coherency.py),
  which reads the lines only: DS records are written as one conflict-free pass, uncounted,
  and the rows without a record are not written at all (exec/engine.py run_wave);
* ``-(w + 1)``: the following entries belong to wave ``w`` of the batch (written each time
  ``run_wave`` starts running a wave, since waves run one at a time until end or barrier);
  each such run of a wave is also listed in the table of runs at the trace's end (below);
* ``row``: the program row of each executed instruction, in execution order;
* after the row of a memory instruction, a record computed *before* it executes (a load may
  overwrite its own address registers):
  - SMRD loads, FLAT, MUBUF, MTBUF, MIMG: ``n`` then the ``n`` distinct 64-byte line numbers
    (address >> 6, sorted) that the active lanes touch (all cache lines are 64 bytes: seed
    caches-and-coherency); for MIMG the texels of image_load/store/atomic (the addressing of
    gcnemu/mem/image.py), none for image_sample/gather4/get_lod (their filter footprints are
    not traced: the model times them at the texture rate as L1 hits) and image_get_resinfo;
  - DS: the LDS passes of the access and how many it would need conflict free, packed
    (see `ds_passes`).

The trace's tail is not part of the entries: the DS scratch (``DS_SCRATCH`` entries, see
`ds_passes`) ends the array, the count of runs lies before it, and before that the table of
runs grows downwards, two entries a run: the positions of its header and of its end (timing
mode; `add_run`, `run_at`). A reader of the per-wave streams takes the runs from there
instead of walking the entries (gcnemu/timing/model.py split_trace); the trace fills up
when the entries would reach the table.

Recording never changes functional state: it only reads registers, and allocates nothing.
The engine calls the recorders by address, as it calls the memory families: two C-callable
entries on its frame (gcnemu/mem/entry.py frame_state, the trace at layout.FR_TR), each
compiled when a traced wave first needs it (exec/engine.py provide_code): `trace_memory` for
every record but MIMG's and DS's, `image_trace` for MIMG's, `ds_trace` for DS's. The engine's loop is one compiled
function with and without a trace, so a recorder linked into it would be compiled by every
functional cold start (~6 s), and image addressing by every kernel's first timing run. The
recorders themselves are compiled without reference counting (``_nrt=False``: numba's
atomic increments and decrements of their array arguments cost more than the record of a
regular access); the entries' views of the state have no owner, whose counts numba prunes.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from ..exec.jit import call_native, native_address, njit, p_i64
from ..exec.layout import (C_F0, C_F1, C_F2, C_F3, C_F4, C_F5, C_F6, C_F7, C_H, C_IMM, C_K, C_LIT,
                           C_S0, C_S1, EXEC_HI, EXEC_LO, FR_NTR, FR_TR, H_DS, H_FLAT, H_MIMG,
                           H_MTBUF, H_MUBUF, H_SMRD_LOAD, K_ATOMIC, K_LOAD2, K_LOAD_FORMAT,
                           K_STORE2, K_STORE_FORMAT, K_WRXCHG2, NEED_REC_DS, NEED_REC_IMG, NFRAME,
                           WS_VBASE)
from ..mem.descriptors import (buffer_address, buffer_lane_operands, descriptor_words,
                               vsharp_fields)
from ..mem.formats import FMT_BYTES
from ..mem.image import (IMG_1D, IMG_1D_ARRAY, IMG_2D, IMG_2D_ARRAY, IMG_3D, LINEAR_TILING_INDEX,
                         image_geometry, texel_address, tsharp_fields)
from ..mem.entry import frame_state
from ..mem.subops import subop_fields
from ..sem.valu_int import popcount64

U64 = np.uint64
#: ds_passes' scratch after the record: per bank its first dword, its count of distinct
#: dwords and the head of its chain of further ones (3 x 32), the chain's next free entry,
#: then the chain: up to 32 lanes x 2 addresses x 4 dwords as (dword, next) pairs; then the
#: last KEYS accesses counted, _KEY_LEN entries each (ndw, the distance of the two addresses
#: (0 for one), the first active lane's byte within its dword, EXEC, the result, the hash of
#: the relative addresses (_lane_shift), then per lane its address less the first active
#: lane's, 0 when inactive), the one to compare first (the last one used), the next one
#: to replace and the count of accesses since one matched (ds_passes)
_CNT, _HEAD, _NEXT, _CHAIN = 32, 64, 96, 97
KEYS = 4
_KEY = _CHAIN + 2 * 32 * 2 * 4
_KEY_RESULT, _KEY_HASH, _KEY_REL = 4, 5, 6
_KEY_LEN = _KEY_REL + 64
_KEY_LAST = _KEY + KEYS * _KEY_LEN
_KEY_NEXT = _KEY_LAST + 1
_KEY_MISSES = _KEY_NEXT + 1
DS_SCRATCH = _KEY_MISSES + 1
#: after this many accesses in a row that matched no remembered one, ds_passes looks at the
#: keys for two accesses in KEY_RETRY only (the others are counted straight away)
KEY_GIVE_UP, KEY_RETRY = 16, 64
#: room an instruction may need in the trace: its row and a memory record of up to 128 lines,
#: below the DS scratch, which lies at the trace's end (trace_memory: there it stays in the
#: CPU's caches; at the write position it would be new memory at every DS instruction)
TRACE_SLACK = 2 + 128 + DS_SCRATCH
#: the shortest trace the engine writes to (its tail and room for one instruction); a
#: shorter one is full from the start
MIN_TRACE = TRACE_SLACK + 3
#: LDS: 32 banks of 4 bytes (seed clrx-gcn-timings: bank = address bits 2-6)
LDS_BANKS = 32
#: the count of runs: this many entries before a trace's end (the module docstring)
RUNS_COUNT = DS_SCRATCH + 1


@njit(inline="always")
def runs_limit(tr):
    """The end the entries of a trace must stay below while a wave runs: room is kept for
    the run being recorded and those before it in the table of runs. 0 for a trace too
    short for its tail and one instruction (it is full: the caller grows it)."""
    n = tr.shape[0]
    if n < MIN_TRACE:
        return np.int64(0)
    return n - 2 * (tr[n - RUNS_COUNT] + 1)


@njit(inline="always")
def add_run(tr, header, end):
    """List the run of a wave whose header is at ``header`` and whose entries end at ``end``
    in the trace's table of runs (its room was kept: runs_limit)."""
    c = tr.shape[0] - RUNS_COUNT
    j = tr[c]
    tr[c - 2 - 2 * j] = header
    tr[c - 1 - 2 * j] = end
    tr[c] = j + 1


@njit(inline="always")
def run_at(tr, j):
    """The header and end positions of run ``j`` (in trace order) of the table of runs."""
    c = tr.shape[0] - RUNS_COUNT
    return tr[c - 2 - 2 * j], tr[c - 1 - 2 * j]


def tail_length(tr) -> int:
    """Entries at the end of a trace that are not entries (the DS scratch, the count and
    table of runs): what a grown trace must keep at its own end (0: too short to have
    been written, see runs_limit)."""
    if tr.shape[0] < MIN_TRACE:
        return 0
    return int(RUNS_COUNT + 2 * tr[tr.shape[0] - RUNS_COUNT])


def record_kinds(prog) -> np.ndarray:
    """Per program row: which memory record follows its row entry in a trace, 0 none, 1 one
    entry (DS), 2 a count n and n line numbers (SMRD loads, FLAT, MUBUF, MTBUF, MIMG); cached
    on the program. Every reader of the trace walks it with this table and entry_length."""
    cache = prog.__dict__.setdefault("_timing_tables", {})
    if "rec" not in cache:
        h = prog.code[:, C_H]
        rec = np.zeros(len(h), np.int64)
        rec[h == H_DS] = 1
        rec[(h == H_SMRD_LOAD) | ((h >= H_FLAT) & (h <= H_MTBUF)) | (h == H_MIMG)] = 2
        cache["rec"] = rec
    return cache["rec"]


@njit(inline="always")
def entry_length(tr, i, r):
    """Entries of the row entry at tr[i] and its memory record of kind r (record_kinds)."""
    return 1 if r == 0 else (2 if r == 1 else 2 + tr[i + 1])


@njit(inline="always")
def _scalar_reg(sregs, w, code):
    if 0 <= code < 128:
        return np.int64(sregs[w, code])
    return np.int64(0)


@njit(inline="always")
def _compact_lines(tr, start, n):
    """Sort tr[start:start+n] in place and drop duplicates; returns the distinct count.

    An insertion sort: it allocates nothing (recording must not) and the lines of consecutive
    lanes come nearly in order, where it is linear."""
    if n <= 1:
        return n
    for i in range(start + 1, start + n):
        v = tr[i]
        j = i - 1
        while j >= start and tr[j] > v:
            tr[j + 1] = tr[j]
            j -= 1
        tr[j + 1] = v
    k = 1
    for i in range(1, n):
        if tr[start + i] != tr[start + k - 1]:
            tr[start + k] = tr[start + i]
            k += 1
    return k


@njit(inline="always")
def _add_lines(tr, start, n, a, nbytes):
    """Append the 64-byte lines of the ``nbytes`` at address ``a`` to the n lines at
    tr[start:], but not the last line written again (neighbouring lanes mostly share a line:
    the list to sort stays short); returns the new count (at most 128: 64 lanes of at most
    16 bytes touch at most 128 lines)."""
    for line in range(a >> 6, ((a + nbytes - 1) >> 6) + 1):
        if n > 0 and tr[start + n - 1] == line:
            continue
        if n < 128:
            tr[start + n] = line
            n += 1
    return n


@njit(inline="always")
def _lane_active(mask, l):
    """1 when bit ``l`` of ``mask`` is set, else 0, as an int64. The lane loops below use
    it as a factor, never as a condition, and index with unsigned integers (no negative-index
    fix-up): a select or a fix-up there made LLVM emit a scalar loop with a branch per lane
    (the remembered-access comparison: ~54 ns against ~6 vectorised)."""
    return np.int64((mask >> U64(l)) & U64(1))


@njit(inline="always")
def _ds_half_plain(vgpr, row, off, ndw, am, lo, f):
    """True when the active lanes (bit i of ``am``: lane lo + i) of the half wave from lane
    ``lo`` on all access the same ``ndw`` dwords (a broadcast) or, one dword each, a
    broadcast or the bank after the previous active lane's (a row of a tile): one pass,
    conflict free, whatever the other lanes hold. ``f``: the first active lane."""
    d0 = (np.int64(vgpr[row, f]) + off) >> 2
    step = 1 if ndw == 1 else 0
    ur = U64(row)
    bad = np.int64(0)
    for i in range(32):       # branch free (see _lane_active): vectorised
        dl = (np.int64(vgpr[ur, U64(lo + i)]) + off) >> 2
        bad |= _lane_active(am, i) & np.int64(dl != d0 + step * (lo + i - f)) & \
            np.int64(dl != d0)
    return bad == 0


@njit(inline="always")
def _ds_half_natural(vgpr, row, ndw, lo):
    """True when lane lo + i's address is lane lo's plus 4 ndw i for every lane of the half
    (a row of ndw-dword elements, each lane the next)."""
    ur = U64(row)
    a0 = np.int64(vgpr[ur, U64(lo)])
    bad = np.int64(0)
    for i in range(1, 32):    # branch free: vectorised
        bad |= np.int64(np.int64(vgpr[ur, U64(lo + i)]) != a0 + 4 * ndw * i)
    return bad == 0


#: _ds_half_rows takes halves whose dwords lie in at most 16 rows of 32 dwords, when it
#: needs at most this many passes over the lanes (a pass: two rows, of one address and
#: dword of a lane): histogram's 256 bins, 9 rows, take 5
ROW_PASSES = 8


@njit(inline="always")
def _add_bits(c0, c1, c2, c3, c4, mask):
    """Add 1 to the 5-bit counters (bit planes c0..c4) of the lanes set in ``mask``."""
    t = c0 & mask
    c0 ^= mask
    t2 = c1 & t
    c1 ^= t
    t3 = c2 & t2
    c2 ^= t2
    c4 |= c3 & t3
    c3 ^= t3
    return c0, c1, c2, c3, c4


@njit(inline="always")
def _ds_half_rows(vgpr, row, offa, offb, nk, ndw, am, lo):
    """The passes and conflict-free passes of a half wave (as ds_passes, packed) whose
    dwords lie in few 32-dword rows, or -1 when there are more (ROW_PASSES).

    A row's dwords are one per bank: per row a 32-bit mask of the banks its dwords use,
    two rows a 64-bit word, made by one branch-free (vectorised) pass over the lanes; a
    dword is a (row, bank) pair, so a bank's distinct dwords are the rows whose mask holds
    it, counted for all banks at once in bit-sliced counters. No step depends on the
    addresses by a branch: random addresses (a histogram's bins) cost what regular ones do."""
    big = np.int64(1) << 62
    ur = U64(row)
    dmin = big
    dmax = np.int64(-1)
    for k in range(nk):
        off = offb if k else offa
        for l in range(32):       # branch free (see _lane_active): vectorised
            d = (np.int64(vgpr[ur, U64(lo + l)]) + off) >> 2
            act = _lane_active(am, l)
            dmin = min(dmin, d * act + big * (1 - act))
            dmax = max(dmax, (d + 1) * act - 1)
    base = (dmin >> 5) << 5
    words = ((dmax + ndw - 1 - base) >> 6) + 1
    if words > 8 or words * nk * ndw > ROW_PASSES:
        return np.int64(-1)
    # per bank, the count of rows holding one of its dwords, as 5 bit planes (up to 16 rows)
    c0 = c1 = c2 = c3 = c4 = U64(0)
    m = 0
    for wd in range(words):
        mask = U64(0)
        for k in range(nk):
            off = offb if k else offa
            for i in range(ndw):
                for l in range(32):   # branch free (see _lane_active): vectorised
                    q = ((np.int64(vgpr[ur, U64(lo + l)]) + off) >> 2) + i - base
                    hit = _lane_active(am, l) & np.int64((q >> 6) == wd)
                    mask |= (U64(1) << U64(q & 63)) * U64(hit)
        m += popcount64(mask)
        c0, c1, c2, c3, c4 = _add_bits(c0, c1, c2, c3, c4, mask & U64(0xFFFFFFFF))
        c0, c1, c2, c3, c4 = _add_bits(c0, c1, c2, c3, c4, mask >> U64(32))
    # the largest count: from the top plane down, keep the banks that have each bit
    worst = 0
    cand = U64(0xFFFFFFFF)
    if cand & c4:
        worst |= 16
        cand &= c4
    if cand & c3:
        worst |= 8
        cand &= c3
    if cand & c2:
        worst |= 4
        cand &= c2
    if cand & c1:
        worst |= 2
        cand &= c1
    if cand & c0:
        worst |= 1
    return np.int64(worst) | (np.int64((m + LDS_BANKS - 1) // LDS_BANKS) << 16)


@njit(inline="always")
def _bank_add(tr, s, d):
    """Count dword ``d`` in the per-bank tables at tr[s:] (see ds_passes) unless its bank
    holds it already; returns 1 when it was new, else 0."""
    b = s + (d & (LDS_BANKS - 1))
    c = tr[b + _CNT]
    if c == 0:
        tr[b] = d
        tr[b + _CNT] = 1
        return 1
    if tr[b] == d:
        return 0
    # the bank's further dwords: a chain of (dword, next) pairs after the tables
    i = tr[b + _HEAD]
    while i >= 0:
        if tr[i] == d:
            return 0
        i = tr[i + 1]
    e = tr[s + _NEXT]
    tr[e] = d
    tr[e + 1] = tr[b + _HEAD]
    tr[b + _HEAD] = e
    tr[s + _NEXT] = e + 2
    tr[b + _CNT] = c + 1
    return 1


@njit(_nrt=False)
def ds_passes(vgpr, row, offa, offb, two, ndw, ex, tr, s):
    """LDS passes of one wave access, packed as ``passes | conflict_free << 16``.

    Lane l accesses ``ndw`` consecutive dwords from (vgpr[row, l] + offa) & ~3 and, when
    ``two`` (ds_read2/write2/wrxchg2), ``ndw`` more from (vgpr[row, l] + offb) & ~3; active
    where bit l of ``ex`` is set. The LDS serves a half wave (32 lanes) at a time through 32
    banks of 4 bytes (seed clrx-gcn-timings: bank = address bits 2-6); in one pass each bank
    delivers one dword, equal dwords are broadcast. A half wave needs as many passes as the
    most distinct dwords one bank must deliver (every dword of every lane counts: a b64 or
    b128 access is judged on all its dwords); conflict free it would need ceil(distinct
    dwords / 32). ``passes`` and ``conflict_free`` are the sums over the two halves (0 for a
    half without active lanes). ``tr[s:s + DS_SCRATCH]`` is scratch: recording must not
    allocate.

    Moving every address by the same number of dwords changes no bank conflict, so the
    answer depends only on the lanes' addresses relative to the first active lane's, that
    lane's byte within its dword, EXEC, the width and the distance of the two addresses (a
    ds_read2 at distance 0 reads the dwords of one address twice: the same answer). The
    last KEYS accesses counted are kept in the scratch (_KEY); one that matches (a loop
    reading a tile with the same address registers at growing offsets, the next wave's same
    pattern) costs one vectorised comparison with the last key used; after a miss, one pass
    hashes the addresses and another key whose hash (_lane_shift) differs is passed over
    unread. Keys hold ndw >= 1: zeros (a fresh trace's tail) match nothing. Where KEY_GIVE_UP
    accesses in a row matched none (random addresses: a histogram's bins), the keys are
    looked at for two accesses in a row in KEY_RETRY only (the first keeps its own, which the
    second may match), until one matches: the comparison, the hash and the new key cost ~a
    quarter of such a miss. The answer is the count's either way."""
    if ex == U64(0):
        return np.int64(0)
    misses = tr[s + _KEY_MISSES]
    if misses >= KEY_GIVE_UP and misses % KEY_RETRY > 1:
        tr[s + _KEY_MISSES] = misses + 1
        return _ds_count_forms(vgpr, row, offa, offb, two, ndw, ex, tr, s)
    af = np.int64(vgpr[row, np.int64(trailing_zeros(ex))])
    dist = offb - offa if two else np.int64(0)
    byte = (af + offa) & 3
    ur = U64(row)
    # the last key used, compared lane by lane (a loop over a tile hits it); the others
    # only where the hash of the addresses, taken after a miss, matches theirs
    first = tr[s + _KEY_LAST] & (KEYS - 1)
    c = s + _KEY + first * _KEY_LEN
    if _key_fits(tr, c, ndw, dist, byte, ex):
        r = U64(c + _KEY_REL)
        diff = np.int64(0)
        for l in range(64):       # branch free (see _lane_active): vectorised
            diff |= tr[r + U64(l)] ^ ((np.int64(vgpr[ur, U64(l)]) - af) * _lane_active(ex, l))
        if diff == 0:
            tr[s + _KEY_MISSES] = 0
            return tr[c + _KEY_RESULT]
    h = U64(0)
    for l in range(64):           # branch free: vectorised
        h += U64((np.int64(vgpr[ur, U64(l)]) - af) * _lane_active(ex, l)) << _lane_shift(l)
    h = np.int64(h)
    for t in range(1, KEYS):
        e = (first + t) & (KEYS - 1)
        c = s + _KEY + e * _KEY_LEN
        if tr[c + _KEY_HASH] != h or not _key_fits(tr, c, ndw, dist, byte, ex):
            continue
        r = U64(c + _KEY_REL)
        diff = np.int64(0)
        for l in range(64):       # branch free (see _lane_active): vectorised
            diff |= tr[r + U64(l)] ^ ((np.int64(vgpr[ur, U64(l)]) - af) * _lane_active(ex, l))
        if diff == 0:
            tr[s + _KEY_LAST] = e
            tr[s + _KEY_MISSES] = 0
            return tr[c + _KEY_RESULT]
    tr[s + _KEY_MISSES] = misses + 1
    res = _ds_count_forms(vgpr, row, offa, offb, two, ndw, ex, tr, s)
    e = tr[s + _KEY_NEXT] & (KEYS - 1)
    tr[s + _KEY_NEXT] = (e + 1) & (KEYS - 1)
    tr[s + _KEY_LAST] = e
    c = s + _KEY + e * _KEY_LEN
    r = U64(c + _KEY_REL)
    for l in range(64):
        tr[r + U64(l)] = (np.int64(vgpr[ur, U64(l)]) - af) * _lane_active(ex, l)
    tr[c] = ndw
    tr[c + 1] = dist
    tr[c + 2] = byte
    tr[c + 3] = np.int64(ex)
    tr[c + _KEY_RESULT] = res
    tr[c + _KEY_HASH] = h
    return res


@njit(inline="always")
def _lane_shift(l):
    """Lane l's shift in the hash of ds_passes' remembered accesses: the hash is the sum,
    modulo 2^64, of each lane's relative address shifted left by l mod 32, so a key whose
    hash differs cannot match and a miss (random addresses: a histogram's bins) is told
    apart by one pass, not a comparison of 64 lanes per key; equal hashes are still
    compared lane by lane. Taken only after the last key used missed: hashing in the pass
    that compares it made the common hit ~10 % dearer."""
    return U64(l & 31)


@njit(inline="always")
def _key_fits(tr, c, ndw, dist, byte, ex):
    """True when the remembered access at tr[c:] has the width, distance of the two
    addresses, byte within the dword and EXEC given (its lanes are compared apart)."""
    return tr[c] == ndw and tr[c + 1] == dist and tr[c + 2] == byte and tr[c + 3] == np.int64(ex)


@njit(_nrt=False)
def _ds_count_forms(vgpr, row, offa, offb, two, ndw, ex, tr, s):
    """_ds_count, with the common form (one address, one dword a lane: ds_read_b32,
    ds_write_b32, ds_add_u32 ...) in a copy of its own, compiled with that width and count
    of addresses as constants: LLVM folds their loops there (a histogram's random bins
    ~150 -> ~105 ns a call). A call of its own: ds_passes has two call sites."""
    if not two and ndw == 1:
        return _ds_count(vgpr, row, offa, offa, False, 1, ex, tr, s)
    return _ds_count(vgpr, row, offa, offb, two, ndw, ex, tr, s)


@njit(inline="always")
def _ds_count(vgpr, row, offa, offb, two, ndw, ex, tr, s):
    """ds_passes without its memory of the last access: per half wave, a row of a tile or a
    broadcast, a full row of multi-dword elements (one vectorised comparison each), dwords
    in few rows of banks (_ds_half_rows), or else each bank's distinct dwords counted as
    they come (its first dword in a table, the others in a chain)."""
    passes = 0
    ideal = 0
    nk = 2 if two else 1
    for half in range(2):
        lo = 32 * half
        am = (ex >> U64(lo)) & U64(0xFFFFFFFF)
        if am == U64(0):
            continue
        if not two and \
                _ds_half_plain(vgpr, row, offa, ndw, am, lo, lo + np.int64(trailing_zeros(am))):
            passes += 1
            ideal += 1
            continue
        if not two and am == U64(0xFFFFFFFF) and _ds_half_natural(vgpr, row, ndw, lo):
            # 32 lanes at the natural stride: 32 x ndw consecutive dwords, ndw a bank
            passes += ndw
            ideal += ndw
            continue
        pi = _ds_half_rows(vgpr, row, offa, offb, nk, ndw, am, lo)
        if pi >= 0:
            passes += pi & 0xFFFF
            ideal += pi >> 16
            continue
        for b in range(LDS_BANKS):
            tr[s + _CNT + b] = 0
            tr[s + _HEAD + b] = -1
        tr[s + _NEXT] = s + _CHAIN
        m = 0
        for k in range(2 if two else 1):
            prev = np.int64(-1)
            off = offb if k else offa
            for l in range(lo, lo + 32):
                if not (ex >> U64(l)) & U64(1):
                    continue
                a = np.int64(vgpr[row, l])
                if a == prev:
                    continue        # the previous active lane's dwords (a broadcast, a run)
                prev = a
                d = (a + off) >> 2
                for i in range(ndw):
                    m += _bank_add(tr, s, d + i)
        worst = 0
        for b in range(LDS_BANKS):
            worst = max(worst, tr[s + _CNT + b])
        passes += worst
        ideal += (m + LDS_BANKS - 1) // LDS_BANKS
    return passes | (ideal << 16)


@njit(_nrt=False)
def image_trace(ins, w, sregs, ws, vgpr, tr, tp):
    """Append the memory record of the MIMG instruction ``ins`` (its program row) of wave
    ``w`` at tr[tp] (the module docstring) and return the new write position: the distinct
    64-byte lines (sorted) of the texels an image_load, store or atomic touches, addressed
    as gcnemu/mem/image.py's image_instruction does. No lines for other MIMG instructions and
    for what image_instruction refuses (a T# or VADDR outside the registers, a tiled or
    unsupported image: the wave fails). trace_memory records every other kind."""
    n = _image_lines(ins, w, sregs, ws, vgpr, tr, tp + 1)
    tr[tp] = n
    return tp + 1 + n


@njit(inline="always")
def _image_lines(ins, w, sregs, ws, vgpr, tr, start):
    """image_trace's lines, written at tr[start:]; returns their count."""
    kind, _, _, _, _, _, has_mip, _ = subop_fields(ins[C_K])
    if kind != K_LOAD_FORMAT and kind != K_STORE_FORMAT and kind != K_ATOMIC:
        return np.int64(0)
    ex = U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32))
    srsrc = ins[C_F6] * 4
    r128 = (ins[C_LIT] >> 16) & 0xFF
    if srsrc < 0 or srsrc + (4 if r128 else 8) > 128:
        return np.int64(0)
    (base, dfmt, _, width, height, _, base_level, last_level, tiling, t_type, depth, pitch,
     base_array, last_array) = tsharp_fields(sregs, w, srsrc, r128)
    if tiling != LINEAR_TILING_INDEX or (t_type != IMG_1D and t_type != IMG_2D and
                                         t_type != IMG_3D and t_type != IMG_1D_ARRAY and
                                         t_type != IMG_2D_ARRAY):
        return np.int64(0)
    is_arr, ncoord, _, nlevels, nslices = image_geometry(t_type, base_level, last_level,
                                                         base_array, last_array)
    row = ws[w, WS_VBASE] + ins[C_F4]
    if row < 0 or row + ncoord + has_mip > vgpr.shape[0]:
        return np.int64(0)
    bpe = FMT_BYTES[dfmt] if dfmt <= 14 else 4
    n = np.int64(0)
    for l in range(64):
        if not (ex >> U64(l)) & U64(1):
            continue
        x = np.int64(vgpr[row, l])
        y = np.int64(vgpr[row + 1, l]) if ncoord > 1 else np.int64(0)
        z = np.int64(vgpr[row + 2, l]) if ncoord > 2 else np.int64(0)
        mip = np.int64(vgpr[row + ncoord, l]) if has_mip else np.int64(0)
        a, inr = texel_address(t_type, base, pitch, width, height, depth, bpe, base_level,
                               nlevels, base_array, nslices, is_arr, x, y, z, mip)
        if inr:
            n = _add_lines(tr, start, n, a, bpe)
    return _compact_lines(tr, start, n)


@njit(inline="always")
def _flat_contiguous(vgpr, row, nbytes):
    """True when the 64-bit FLAT addresses of rows ``row``, ``row + 1`` are lane 0's plus
    ``nbytes`` per lane, all below 2^62 (their lines are then one range, as _add_lines would
    list them)."""
    a0 = np.int64(U64(vgpr[row, 0]) | (U64(vgpr[row + 1, 0]) << U64(32)))
    bad = False
    for l in range(64):       # branch free: vectorised
        a = np.int64(U64(vgpr[row, l]) | (U64(vgpr[row + 1, l]) << U64(32)))
        bad |= a != a0 + nbytes * l
    return not bad and 0 <= a0 < (np.int64(1) << 62)


@njit(inline="always")
def _flat_address(vgpr, ur, l):
    """Lane l's 64-bit FLAT address from rows ``ur``, ``ur + 1`` (unsigned), as an int64."""
    return np.int64(U64(vgpr[ur, U64(l)]) | (U64(vgpr[ur + U64(1), U64(l)]) << U64(32)))


@njit(inline="always")
def _flat_lines_in_order(vgpr, row, ex, nbytes, tr, start):
    """The lines of a FLAT access whose active lanes' addresses (rows ``row``, ``row + 1``)
    do not go back (each lane's first and last line at least the previous active lane's;
    rows of a tile, a strided walk), written at tr[start:] sorted and distinct as
    _add_lines and _compact_lines would list them; returns their count, or -1 when the
    addresses go back or one is 2^63 or more, which _add_lines takes as negative (nothing
    usable written then). A lane adds the lines after the previous lane's last one (at
    most two: an access of at most 16 bytes spans at most two lines).

    Full EXEC (the common case): one vectorised pass checks the order and marks the lanes
    that add lines, then only those are visited. Otherwise one pass without data-dependent
    branches, an inactive lane standing for the previous active one: the lines are written
    always and counted only when new."""
    ur = U64(row)
    pos = start
    if ex == ~U64(0):
        bad = np.int64(_flat_address(vgpr, ur, 0) < 0)
        adds = U64(1)
        for l in range(1, 64):    # branch free: vectorised
            a = _flat_address(vgpr, ur, l)
            p = _flat_address(vgpr, ur, l - 1)
            last = (a + nbytes - 1) >> 6
            plast = (p + nbytes - 1) >> 6
            bad |= np.int64(a < 0) | np.int64((a >> 6) < (p >> 6)) | np.int64(last < plast)
            adds |= U64(last > plast) << U64(l)
        if bad != 0:
            return np.int64(-1)
        while adds != U64(0):
            l = np.int64(trailing_zeros(adds))
            adds &= adds - U64(1)
            a = _flat_address(vgpr, ur, l)
            st = a >> 6
            if l > 0:
                st = max(st, ((_flat_address(vgpr, ur, l - 1) + nbytes - 1) >> 6) + 1)
            tr[pos] = st
            tr[pos + 1] = st + 1
            pos += ((a + nbytes - 1) >> 6) - st + 1
        return pos - start
    ok = True
    lp = np.int64(-1)      # the previous active lane's first and last line
    hp = np.int64(-1)
    for l in range(64):
        a = _flat_address(vgpr, ur, l)
        first = a >> 6
        last = (a + nbytes - 1) >> 6
        if not (ex >> U64(l)) & U64(1):
            first = lp
            last = hp
        else:
            ok &= (a >= 0) & (first >= lp) & (last >= hp)
        st = max(first, hp + 1)
        tr[pos] = st
        tr[pos + 1] = st + 1
        pos += max(np.int64(0), last - st + 1)
        lp = first
        hp = last
    return pos - start if ok else np.int64(-1)


@njit(_nrt=False)
def ds_trace(ins, w, sregs, ws, vgpr, tr, tp):
    """Append the record of the DS instruction ``ins`` of wave ``w`` at tr[tp], as
    trace_memory does every other kind's: its LDS passes (ds_passes); returns the new write
    position. Kept apart so that the first timing run of a kernel without LDS instructions
    does not compile ds_passes (~3 s)."""
    ex = U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32))
    vbase = ws[w, WS_VBASE]
    nrows = vgpr.shape[0]
    if tr[1] < 0:
        tr[tp] = 1 | (1 << 16)    # coherency-accurate mode: no bank count (docstring)
        return tp + 1
    kind, size, count, _, _, _, st64, _ = subop_fields(ins[C_K])
    if ins[C_F2] != 0:      # GDS: no LDS banks involved
        tr[tp] = 1 | (1 << 16)
        return tp + 1
    ndw = max(1, count) if size >= 4 else 1
    two = kind == K_LOAD2 or kind == K_STORE2 or kind == K_WRXCHG2
    if two:
        scale = 4 * ndw * (64 if st64 else 1)
        offa = ins[C_F0] * scale
        offb = ins[C_F1] * scale
    else:
        offa = offb = ins[C_F0] | (ins[C_F1] << 8)
    row = vbase + ins[C_F3]
    tr[tp] = ds_passes(vgpr, row, offa, offb, two, ndw, ex, tr, tr.shape[0] - DS_SCRATCH) \
        if 0 <= row < nrows else 1 | (1 << 16)
    return tp + 1


@njit(_nrt=False)
def trace_memory(ins, w, sregs, ws, vgpr, tr, tp):
    """Append the memory record of the instruction ``ins`` (its program row) of wave ``w``
    at tr[tp] (see the module docstring); returns the new write position. MIMG records are
    image_trace's and DS records ds_trace's (kept apart so that a kernel without images or
    LDS does not compile their addressing and bank counts). Registers outside the wave's allocation are read as the engine would fail
    on them: the record is then empty (the instruction fails anyway)."""
    h = ins[C_H]
    ex = U64(sregs[w, EXEC_LO]) | (U64(sregs[w, EXEC_HI]) << U64(32))
    vbase = ws[w, WS_VBASE]
    nrows = vgpr.shape[0]
    start = tp + 1
    n = np.int64(0)
    if h == H_SMRD_LOAD:
        ndw = ins[C_K]
        if ins[C_F1] != 0:
            off = _scalar_reg(sregs, w, ins[C_S1])
        else:
            off = ins[C_IMM]
        s = ins[C_S0]
        if 0 <= s and s + 1 < 128:
            base = _scalar_reg(sregs, w, s) | (_scalar_reg(sregs, w, s + 1) << 32)
            if ins[C_F0] != 0:      # s_buffer_load: 48-bit base from the V#
                base &= (np.int64(1) << 48) - 1
            a = (base + (off & ~3)) & ~np.int64(3)
            first = a >> 6
            last = (a + 4 * ndw - 1) >> 6
            for line in range(first, last + 1):
                tr[start + n] = line
                n += 1
        tr[tp] = n
        return start + n
    _, size, count, _, _, _, _, _ = subop_fields(ins[C_K])
    nbytes = max(1, min(size, 4) * max(count, 1))
    if h == H_FLAT:
        row = vbase + ins[C_F2]
        if 0 <= row and row + 1 < nrows:
            if ex == ~U64(0) and _flat_contiguous(vgpr, row, nbytes):
                # every lane, each the next element (a row of a buffer): the lines of one
                # range, already sorted and distinct
                a = np.int64(U64(vgpr[row, 0]) | (U64(vgpr[row + 1, 0]) << U64(32)))
                for line in range(a >> 6, ((a + 64 * nbytes - 1) >> 6) + 1):
                    tr[start + n] = line
                    n += 1
                tr[tp] = n
                return start + n
            n = _flat_lines_in_order(vgpr, row, ex, nbytes, tr, start)
            if n >= 0:
                tr[tp] = n
                return start + n
            n = np.int64(0)
            for l in range(64):
                if (ex >> U64(l)) & U64(1):
                    a = np.int64(U64(vgpr[row, l]) | (U64(vgpr[row + 1, l]) << U64(32)))
                    n = _add_lines(tr, start, n, a, nbytes)
    elif h == H_MUBUF or h == H_MTBUF:
        offen = ins[C_F0]
        idxen = ins[C_F1]
        addr64 = ins[C_F3]
        vrow = vbase + ins[C_F5]
        srsrc = ins[C_F7] * 4
        if 0 <= srsrc and srsrc + 3 < 128 and 0 <= vrow and vrow + 1 < nrows:
            w0, w1, w2, w3 = descriptor_words(sregs, w, srsrc)
            base, stride, swizzle, num_records, element_size, index_stride, add_tid = \
                vsharp_fields(w0, w1, w2, w3)
            soffset = U64(_scalar_reg(sregs, w, ins[C_S0]))
            for l in range(64):
                if not (ex >> U64(l)) & U64(1):
                    continue
                vidx, voff, v64 = buffer_lane_operands(vgpr, vrow, l, addr64, idxen, offen)
                a, inr = buffer_address(base, stride, num_records, swizzle, element_size,
                                        index_stride, add_tid, idxen, offen, addr64, vidx, voff,
                                        v64, ins[C_IMM], soffset, l, 0)
                if not inr:
                    continue     # out of range: no memory access
                n = _add_lines(tr, start, n, np.int64(a), nbytes)
    n = _compact_lines(tr, start, n)
    tr[tp] = n
    return start + n


@njit(inline="always")
def _frame_trace(fp):
    """The trace a frame names (layout.FR_TR, FR_NTR), as a view without reference counts."""
    f = carray(fp, (NFRAME,))
    return carray(p_i64(f[FR_TR]), (f[FR_NTR],))


def _memory_entry(fp, tp):
    ins, w, sregs, ws, vgpr, _, _, _, _, _, _, _ = frame_state(fp)
    return trace_memory(ins, w, sregs, ws, vgpr, _frame_trace(fp), tp)


def _image_entry(fp, tp):
    ins, w, sregs, ws, vgpr, _, _, _, _, _, _, _ = frame_state(fp)
    return image_trace(ins, w, sregs, ws, vgpr, _frame_trace(fp), tp)


def _ds_entry(fp, tp):
    ins, w, sregs, ws, vgpr, _, _, _, _, _, _, _ = frame_state(fp)
    return ds_trace(ins, w, sregs, ws, vgpr, _frame_trace(fp), tp)


_RECORDER_SIGNATURE = types.int64(types.CPointer(types.int64), types.int64)


def recorder_address(kind: int) -> int:
    """Address of the compiled recorder entry (called with the engine's frame, whose FR_INS
    names the row and FR_TR the trace, and the write position; returns the new one) of the
    records that ``kind`` (layout.NEED_REC*) waits for: MIMG's (image_trace), DS's
    (ds_trace) or every other kind's (trace_memory). Compiled on first use
    (jit.native_address), or loaded from numba's disk cache."""
    entry = {NEED_REC_IMG: _image_entry, NEED_REC_DS: _ds_entry}.get(kind, _memory_entry)
    return native_address(entry, _RECORDER_SIGNATURE)


@intrinsic
def call_recorder(typingctx, addr, frame, tp):
    """Call the recorder entry at ``addr`` (recorder_address) with the frame's data pointer
    and the write position ``tp``; returns the new write position."""
    sig = types.int64(addr, frame, types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        pos = args[2] if args[2].type.width == 64 else builder.sext(args[2], i64)
        return call_native(builder, args[0], [builder.inttoptr(args[1], i64.as_pointer()), pos],
                           i64)
    return sig, codegen
