"""The cycle model: replays the waves' traces on the CUs under the seeds' issue rules.

What it models (the seeds in ../shared/seeds):

* Placement: workgroups launch in dispatch order; at the start the CUs take them in turn
  (round robin), then each goes to the CU where resources freed first, as many per CU as
  the kernel's occupancy allows (waves per SIMD, workgroups per CU: gcnemu.device.occupancy);
  each wave goes to the SIMD of its CU with the fewest resident waves. (The functional
  HW_ID register keeps the static placement of gcnemu/launch.py: workgroup g on CU g mod #CUs.)
* Issue (cu-whitepaper "Instruction scheduling"): on cycle t each CU considers SIMD t mod 4;
  its waves, oldest first, may each issue one instruction, at most one per category (VALU,
  SALU/SMEM, branch) and at most two of VMEM, LDS, export/GDS, each of those at most one.
  A wave is busy for its instruction's issue cost (CLRX tables, e.g. 4 for full-rate VALU,
  16 for transcendentals, 20 for a taken branch); a SIMD's VALU is busy for the VALU cost
  (a 16-cycle op is "re-issued until complete"). Dependent VALU instructions do not stall
  (the seed: results are forwarded).
* Memory: s_waitcnt waits until at most N operations of a counter are outstanding (vmcnt:
  VMEM and FLAT; lgkmcnt: LDS, GDS, SMEM, FLAT; expcnt: exports). VMEM: the texture unit
  takes one 64-byte line per cycle (at least 4 cycles per instruction), each line goes
  through the CU's L1 (16 KB, 64-way LRU, write-through), the shared L2 (4 channels of
  128 KB, 8-way LRU, write-back) and DRAM (latency plus a bandwidth queue); SMEM through a
  K$ per 4 CUs; LDS: the access's bank-conflict degree k multiplies its cost.
* s_barrier: a workgroup's waves wait until all its live waves arrived.

The result: total cycles (the last wave's end or the last memory completion), per-wave start
and end cycles, and counters with rocprof names (see COUNTER_NAMES).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from llvmlite import ir
from numba import carray
from numba.core import cgutils, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from ..exec.jit import call_native, native_address, njit, p_i64
from ..exec.layout import (C_H, C_PC, C_SIZE, C_TGT, H_BRANCH, H_CBRANCH, H_CBRANCH_G_FORK,
                           H_CBRANCH_I_FORK, H_CBRANCH_JOIN, H_ENDPGM, H_RFE, H_SETPC,
                           H_SWAPPC, H_TRAP)
from . import costs as C
from . import icache as IC
from .trace import MIN_TRACE, RUNS_COUNT, run_at

INF = np.int64(1) << 62
Q = 32           # outstanding operations remembered per wave and counter

#: counters the model returns (rocprof names; cycles are GPU clock cycles, not quad-cycles)
COUNTER_NAMES = (
    "GRBM_GUI_ACTIVE",           # cycles of the dispatch (GPU busy)
    "SQ_WAVES",                  # waves run
    "SQ_WAVE_CYCLES",            # wave-cycles: sum over waves of (end - start)
    "SQ_BUSY_CYCLES",            # cycles with at least one wave resident on the GPU
    "SQ_BUSY_CU_CYCLES",         # sum over CUs of the cycles with at least one wave resident
    "SQ_WAIT_ANY",               # wave-cycles spent in s_waitcnt and s_barrier waits
    "SQ_WAIT_INST_ANY",          # wave-cycles a ready instruction waited for its issue slot/unit
    "SQ_ACTIVE_INST_ANY",        # wave-cycles spent issuing instructions (sum of issue costs)
    "SQ_ACTIVE_INST_VALU",
    "SQ_ACTIVE_INST_SCA",        # SALU and SMEM
    "SQ_ACTIVE_INST_VMEM",
    "SQ_ACTIVE_INST_LDS",
    "SQ_ACTIVE_INST_EXP",        # exports and GDS
    "SQ_ACTIVE_INST_MISC",       # branches and sequencer-internal instructions
    "SQ_LDS_BANK_CONFLICT",      # cycles the LDS spent on bank-conflict replays
    "TCP_TOTAL_CACHE_ACCESSES",  # 64-byte lines looked up in the L1s by vector memory
    "TCP_HIT",                   # vector-load lines that hit the L1
    "TCP_TCC_READ_REQ",          # L1 read misses sent to the L2
    "TCP_TCC_WRITE_REQ",         # lines written through to the L2
    "TCP_TCC_ATOMIC_REQ",        # lines of atomics (performed in the L2)
    "TCC_HIT",
    "TCC_MISS",
    "TCC_EA_RDREQ",              # L2 line reads from DRAM
    "TCC_EA_WRREQ",              # dirty L2 lines written back to DRAM
    "SQC_DCACHE_HITS",           # K$ (scalar data cache) line hits
    "SQC_DCACHE_MISSES",
    "SQ_IFETCH",                 # instruction blocks fetched (gcnemu/timing/icache.py)
    "SQC_ICACHE_HITS",           # I$ line lookups that hit
    "SQC_ICACHE_MISSES",         # I$ lines read from the L2
    "SQC_ICACHE_MISSES_DUPLICATE",   # lookups of a line an earlier miss is still bringing in
)
(X_CYCLES, X_WAVES, X_WAVE_CYCLES, X_BUSY, X_BUSY_CU, X_WAIT_ANY, X_WAIT_INST, X_ACT_ANY,
 X_ACT_VALU, X_ACT_SCA, X_ACT_VMEM, X_ACT_LDS, X_ACT_EXP, X_ACT_MISC, X_LDS_CONFLICT,
 X_TCP_ACC, X_TCP_HIT, X_TCP_RD, X_TCP_WR, X_TCP_AT, X_TCC_HIT, X_TCC_MISS, X_EA_RD, X_EA_WR,
 X_K_HIT, X_K_MISS, X_IFETCH, _X_IC_HIT, _X_IC_MISS, _X_IC_DUP) = range(len(COUNTER_NAMES))

# parameter vector indices (TimingConfig, flattened for numba)
(P_L1_LAT, P_L2_LAT, P_DRAM_LAT, P_DRAM_LINE_FP, P_TA_BYTES, P_IMAGE, P_L1_SETS, P_L1_WAYS,
 P_L2_CH, P_L2_SETS, P_L2_WAYS, P_K_LAT, P_K_SETS, P_K_WAYS, P_K_CUS, P_LDS_LAT, P_GDS_LAT,
 P_EXP_LAT, P_LONG, P_LAUNCH, P_WRITE_LAT, P_LDS_PASS, P_LDS_MIN, P_ESRAM_LAT, P_ESRAM_LINE_FP,
 P_VS_LAT, NPARAM) = range(27)

PC_COLUMNS = C.PC_COLUMNS
NPC = len(PC_COLUMNS)
(PC_COUNT, PC_ISSUE, PC_VM, PC_LGKM, PC_EXP, PC_BARRIER, PC_UNIT, PC_ARBITER,
 PC_FETCH, PC_DEP) = range(NPC)
#: per-wave table (WV) stride and fields: the cycles it has waited for its next row's
#: instruction fetch (a wave's ready cycle and its next row, what every scan reads for every
#: wave, live in its SIMD's row of the SIMD table SS), the cycle since which it waits for
#: the busy LDS as a parked wave (see PARKED), stream position, stream
#: end, the cycle since which it has been waiting to issue its next row (its previous row's
#: issue end), the stall cycles of that wait known so far (unit busy, barrier, dependency),
#: and the wave's last VALU write of scalar registers: when it retires and which registers
#: (the 128-bit mask of costs.scalar_masks)
WVS = 12
WV_FETCH, WV_PARKED, WV_POS, WV_END, WV_SINCE, WV_UNIT, WV_BAR, WV_DEP, WV_DEPST, WV_DMLO, \
    WV_DMHI = range(11)
#: rows whose dependency flags alone do not take them off the fast path
DEP_FLAGS = C.F_VSDST | C.F_SREAD
# kinds of an L2 access
L2_READ, L2_WRITE, L2_ATOMIC = range(3)
FP = 256   # DRAM bus time is kept in 1/256 cycles
#: how far ahead in its stream (entries) a wave's trace is prefetched when it issues
PREFETCH = 16


# --- trace demultiplexing ---------------------------------------------------------------------
@intrinsic
def _copy(typingctx, dst, d0, src, s0, n):
    """dst[d0:d0 + n] = src[s0:s0 + n] for int64 arrays that do not overlap, as one memcpy;
    the caller has checked the bounds. (Contiguous 1-D int64 arrays only: anything else does
    not type.)"""
    if not all(isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
               and a.dtype == types.int64 for a in (dst, src)):
        return None
    sig = types.void(dst, d0, src, s0, n)

    def codegen(context, builder, signature, args):
        da = context.make_array(signature.args[0])(context, builder, args[0])
        sa = context.make_array(signature.args[2])(context, builder, args[2])
        cgutils.raw_memcpy(builder, builder.gep(da.data, [args[1]]),
                           builder.gep(sa.data, [args[3]]), args[4],
                           context.get_constant(types.intp, 8))
        return context.get_dummy_value()
    return sig, codegen


@njit
def split_trace(tr, nwaves, out, base, at):
    """Per-wave streams from a batch trace (gcnemu/timing/trace.py): returns spans, the
    begins then the ends (2 nwaves + 2 entries; ``spans.reshape(2, -1)``: wave w's entries
    are out[s[0, w]:s[1, w]], empty for a wave without a run, and s[:, nwaves] the end of
    what ``out`` now holds of the batch: the trace's entries, or the copies after them).
    One flat array: returning a 2-D one compiled 0.15 s slower, in every first timing run.

    ``at``: where the trace lies in ``out`` (``tr`` is out[at:], the worker's streams array,
    gcnemu/launch.py BatchState), or -1 (a trace of its own). The trace's table of runs says
    where each run of a wave (until it ends, waits at a barrier or is paused) starts and
    ends. Where the trace lies in ``out`` and every wave ran in one run (no barrier, no
    pause: most batches), the entries stay where the engine wrote them and each wave's span
    is its run's, between the headers: nothing is copied (saxpy n=2^20: a 5.6 MB memmove,
    ~0.5 ms a dispatch). Else the runs are copied to ``out`` from ``base`` on (it must have
    room for tr[0] - 2 entries, below the trace's tail where the trace lies in ``out``), in
    run order, each as one block (a memcpy: an element loop took 2.7 ms of mandelbrot
    256x192's 2.1 M entries, the memcpy 0.3 ms; not a slice assignment, which compiles
    numba's shape-mismatch message: ~1 s of string formatting code in the first timing
    run), with no walk over the entries. The runs are checked first: the spans and copies
    point where they say."""
    if at >= 0 and at + tr.shape[0] != out.shape[0]:
        raise ValueError("timing model: the trace is not the rest of the streams array")
    nr = tr[tr.shape[0] - RUNS_COUNT] if tr.shape[0] >= MIN_TRACE else 0
    # -1 until a run is seen
    spans = np.empty(2 * nwaves + 2, np.int64)
    for w in range(2 * nwaves + 2):
        spans[w] = -1
    once = at >= 0
    for j in range(nr):
        h, e = run_at(tr, j)
        if not (0 <= h < e <= tr.shape[0] and 1 <= -tr[h] <= nwaves):
            raise ValueError("timing model: a run in the trace's table of runs is out of range")
        w = -tr[h] - 1
        once = once and spans[w] < 0
        spans[w] = at + h + 1
        spans[nwaves + 1 + w] = at + e
    if once:
        for w in range(nwaves):
            if spans[w] < 0:
                spans[w] = spans[nwaves + 1 + w] = at
        spans[nwaves] = spans[2 * nwaves + 1] = at + tr[0]
        return spans
    if base < 0 or (at >= 0 and base < at + tr[0]):
        raise ValueError("timing model: the streams' base is negative or within the trace")
    # where the trace lies in ``out``, its tail (the table of runs read below, the DS
    # scratch the next batch reads) stays out of the copies' way
    room = out.shape[0] if at < 0 else at + tr.shape[0] - RUNS_COUNT - 2 * nr
    # the streams' starts, as counts first
    for w in range(nwaves + 1):
        spans[w] = 0
    for j in range(nr):
        h, e = run_at(tr, j)
        spans[-tr[h]] += e - h - 1
    spans[0] = base
    for w in range(1, nwaves + 1):
        spans[w] += spans[w - 1]
    if spans[nwaves] > room:
        raise ValueError("timing model: the streams array has no room for the trace")
    for w in range(nwaves + 1):
        spans[nwaves + 1 + w] = spans[w]      # the write positions, then the ends
    for j in range(nr):
        h, e = run_at(tr, j)
        w = nwaves + 1 + (-tr[h] - 1)
        _copy(out, spans[w], tr, h + 1, e - h - 1)
        spans[w] += e - h - 1
    return spans


# --- caches ------------------------------------------------------------------------------------
@njit(_nrt=False)
def _cache_access(tags, stamps, base, ways, line, clock):
    """Look ``line`` up in the set of ``ways`` entries at ``base``; LRU. Returns (hit, entry,
    evicted line or -1); on a miss the least recently used entry takes the line."""
    # unsigned indices: no negative-index fix-up in the loop (see simulate)
    b = np.uint64(base)
    victim = b
    oldest = INF
    for i in range(b, b + np.uint64(ways)):
        if tags[i] == line:
            stamps[i] = clock
            return True, np.int64(i), np.int64(-1)
        if stamps[i] < oldest:
            oldest = stamps[i]
            victim = i
    ev = tags[victim]
    tags[victim] = line
    stamps[victim] = clock
    return False, np.int64(victim), ev


@njit(_nrt=False)
def _cache_drop(tags, stamps, base, ways, line):
    """Invalidate ``line`` in the set of ``ways`` entries at ``base`` if it is there."""
    b = np.uint64(base)
    for i in range(b, b + np.uint64(ways)):
        if tags[i] == line:
            tags[i] = -1
            stamps[i] = 0
            return


#: the memory state array of the model (``dram`` below): the DRAM bus's and the ESRAM's next
#: free times (1/FP cycles), then the ESRAM buffers' line ranges [first, end) in address order
MEM_DRAM, MEM_ESRAM, MEM_RANGES = 0, 1, 2


@njit(inline="always")
def _in_esram(dram, line):
    """Whether ``line`` lies in an ESRAM buffer (binary search over the sorted ranges)."""
    lo = 0
    hi = (dram.shape[0] - MEM_RANGES) // 2
    while lo < hi:
        mid = (lo + hi) // 2
        if dram[MEM_RANGES + 2 * mid + 1] <= line:
            lo = mid + 1
        else:
            hi = mid
    return lo < (dram.shape[0] - MEM_RANGES) // 2 and dram[MEM_RANGES + 2 * lo] <= line


@njit(_nrt=False)
def _l2_access(l2tags, l2stamps, l2dirty, l2rdy, P, line, clock, t, dram, kind, ctr):
    """One line through the L2 (and DRAM on a miss), requested at cycle t, by a read, a write
    or an atomic (``kind``: L2_*). Returns its latency: reads l2_latency on a hit, plus the
    DRAM latency and queue on a miss; writes and atomics write_latency on a hit (the seed's
    "about 25 cycles"), on a miss the DRAM latency (writes: the line is allocated byte-masked,
    nothing is read) or write_latency + DRAM latency + queue (atomics read the line). A line
    is allocated when requested; a later hit still waits until its data has arrived (l2rdy).
    ``dram``: the memory state (MEM_*): a miss goes to the ESRAM when its line lies in an
    ESRAM buffer (its own bus, bandwidth and latency: gpu-overview: "lower latency and lack of
    contention from other memory clients"), else to DRAM."""
    ch = line % P[P_L2_CH]
    s = (line // P[P_L2_CH]) % P[P_L2_SETS]
    base = (ch * P[P_L2_SETS] + s) * P[P_L2_WAYS]
    hit, i, ev = _cache_access(l2tags, l2stamps, base, P[P_L2_WAYS], line, clock)
    if hit:
        ctr[X_TCC_HIT] += 1
        if kind == L2_READ:
            return max(P[P_L2_LAT], l2rdy[i] - t)
        l2dirty[i] = 1
        return max(P[P_WRITE_LAT], l2rdy[i] - t)
    ctr[X_TCC_MISS] += 1
    t_fp = t * FP
    if ev >= 0 and l2dirty[i]:
        ctr[X_EA_WR] += 1          # write back the evicted dirty line (uses the bus, no wait)
        if _in_esram(dram, ev):
            dram[MEM_ESRAM] = max(dram[MEM_ESRAM], t_fp) + P[P_ESRAM_LINE_FP]
        else:
            dram[MEM_DRAM] = max(dram[MEM_DRAM], t_fp) + P[P_DRAM_LINE_FP]
    l2dirty[i] = 0 if kind == L2_READ else 1
    bus = MEM_DRAM
    mem_lat = P[P_DRAM_LAT]
    line_fp = P[P_DRAM_LINE_FP]
    if dram.shape[0] > MEM_RANGES and _in_esram(dram, line):
        bus = MEM_ESRAM
        mem_lat = P[P_ESRAM_LAT]
        line_fp = P[P_ESRAM_LINE_FP]
    if kind == L2_WRITE:
        lat = max(P[P_WRITE_LAT], mem_lat)
    else:
        ctr[X_EA_RD] += 1
        start = max(dram[bus], t_fp)
        dram[bus] = start + line_fp
        lat = (P[P_L2_LAT] if kind == L2_READ else P[P_WRITE_LAT]) + mem_lat + \
            (start - t_fp + FP - 1) // FP
    l2rdy[i] = t + lat
    return lat


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Ask the CPU to fetch the cache line of arr[idx] (a hint: no effect on results, no
    fault past the array's end)."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
            ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0i8")
        # (address, read, high temporal locality, data cache)
        builder.call(fn, [builder.bitcast(builder.gep(ary.data, [args[1]]), i8p), i32(0), i32(3),
                          i32(1)])
        return context.get_dummy_value()
    return sig, codegen


# --- the replay ---------------------------------------------------------------------------------
# Each CU runs on its own clock until it would issue an instruction that touches state shared
# with other CUs: SHARED_FLAGS (vector and scalar memory: the L2, DRAM, the K$ and the LRU
# clock; a wave's end: the next workgroup's launch, the queue pool and the busy counters).
# Such an instruction at cycle t on CU c waits until no other CU is behind (t, c), so the
# shared state sees the accesses in (cycle, CU) order, the order of a replay that visits every
# CU on every cycle. Everything else a CU does touches only its own SIMDs, waves and units.
# (s_icache_inv, F_ICINV, invalidates its CU group's I$: shared too.)
SHARED_FLAGS = C.F_VMEM | C.F_SMEM | C.F_END | C.F_ICINV

# A CU's scans that need nothing but plain VALU, SALU, branch and internal instructions and
# the CU-local LDS accesses, s_waitcnt and s_barrier (LOCAL_FLAGS) run in _fast_run, a small
# loop whose scan state fits in registers, over two interleaved tables:
# per wave (WV, see WV_*): stream position, stream end, stall cycles, ...; per SIMD (SS,
# stride 3 + 3 x waves per SIMD): wake cycle, resident waves, VALU free cycle, the resident
# waves oldest first, then the cycle at which each of them may issue, then each one's
# next-row word (_next_word: the row and its category, with icache.PEND_* bits while a fetch
# is pending). A scan reads those two for every resident wave: kept with the SIMD, in one
# row that stays in the CPU's L1, not in the waves' scattered state (WV, the trace), a wave
# that is not ready or is refused its port or unit costs no load that misses the L1 (the
# ready cycles moved there: ~5-10% less CPU; the next rows: ~6-10% on LDS and memory
# kernels). Per row, rinfo packs cost, category (with icache.PEND_SEQ when a wave entering it in
# sequence fetches), a flag for rows that need the full path, and the taken-branch cost:
INFO_COST_MASK = (1 << 20) - 1
INFO_CAT_SHIFT = 20
INFO_CAT_MASK = 15
INFO_SLOW = 1 << 24
INFO_VW = 1 << 25         # a VALU row that writes scalar registers
INFO_SR = 1 << 26         # a scalar row that reads scalar registers
INFO_LOCAL = 1 << 27      # not plain, but _fast_run's local path takes it (LOCAL_FLAGS)
INFO_LDS = 1 << 28        # an LDS access (F_LDS)
INFO_WAIT = 1 << 29       # s_waitcnt (F_WAITCNT)
INFO_BAR = 1 << 30        # s_barrier (F_BARRIER)
INFO_TAKEN_SHIFT = 32
#: what _fast_run's local path takes beside plain rows: LDS accesses, s_waitcnt and s_barrier
#: touch only their CU's state (the LDS, the wave's own queues, its workgroup, all on the
#: CU), so need no (cycle, CU) order (scan_lds, transpose_lds, matmul_tiled, histogram
#: and nbody issue one every few instructions: without them the scans ran in the full path)
LOCAL_FLAGS = C.F_LDS | C.F_WAITCNT | C.F_BARRIER
#: _local_row's answers for a row that does not issue
REFUSED_PORT, REFUSED_WAIT = np.int64(-1), np.int64(-2)
#: the tables _fast_run's local path uses (simulate's, see there), whether solo runs are on,
#: the address of the period replay's frame (PF_*; 0: off), and each SIMD's mask of parked
#: slots with whether _fast_run parks (see PARKED)
_Local = namedtuple("_Local", ("lds_free", "qrow", "vq", "vn", "eq", "en", "lq", "ln", "rwait",
                               "wacc", "P", "wgrp", "status", "barr_ready", "garr", "glive",
                               "group_first", "wloc", "gnext", "solo", "per", "parked",
                               "park"))
#: scans the full path runs itself after a _fast_run call that could not finish one scan
#: (memory or barriers every few instructions: the hand-over would cost more than it saves),
#: doubled after each such call in a row up to FAST_RUN_BACKOFF_MAX, back to the first after
#: a call that ran (memory kernels: saxpy 2^20, histogram, matmul_tiled, scan_lds 5-10% less
#: CPU than a fixed 8; a fixed 32 gains as much there but costs nbody ~8%)
FAST_RUN_BACKOFF = 8
FAST_RUN_BACKOFF_MAX = 64
U1, U2, U3, U4 = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
NEXT_ROW_MASK = (1 << 32) - 1
#: memory rows (F_*) and what makes a scan check more than the port before their unit
MEM_ROW = C.F_VMEM | C.F_LDS | C.F_GDS | C.F_EXP
NO_EARLY_UNIT = C.F_WAITCNT | C.F_SREAD


@njit(inline="always")
def _cu_key(t, cb, cu):
    """A CU's key in the choice of the CU that runs next: its cycle t, then its number."""
    if t >= INF >> cb:
        raise ValueError("timing model: cycle count beyond the CU keys' range")
    return (t << cb) | cu


@njit(inline="always")
def _next_word(row, cat):
    """A slot's next-row word: the row and its category (with icache.PEND_* bits)."""
    return (cat << 32) | row

#: a scan paused before an access that needs (cycle, CU) order resumes where it stopped: per
#: CU one row of RS (stride RSS, one cache line): the slot to resume at (-1: no paused scan),
#: the ports used, the memory instructions issued, whether a wave ended, the scan's earliest
#: next ready cycle and the earliest release/launch cycle it caused
RS_SI, RS_USED, RS_NMEM, RS_ENDED, RS_SMIN, RS_FLOOR = range(6)
RSS = 8


@njit(inline="always")
def _pause(RS, cu, si, used, nmem, ended, smin, floor):
    """Save the scan state of CU cu, paused at slot si (see RS_*)."""
    r = np.uint64(cu) * np.uint64(RSS)
    RS[r + np.uint64(RS_SI)] = si
    RS[r + np.uint64(RS_USED)] = used
    RS[r + np.uint64(RS_NMEM)] = nmem
    RS[r + np.uint64(RS_ENDED)] = ended
    RS[r + np.uint64(RS_SMIN)] = smin
    RS[r + np.uint64(RS_FLOOR)] = floor


@njit
def _row_info(rcat, rflags, rcost, rtaken, ic):
    """The per-row table of _fast_run (see INFO_*)."""
    info = np.empty(rcost.shape[0], np.int64)
    if rcost.shape[0] > NEXT_ROW_MASK:
        raise ValueError("timing model: more program rows than a next-row word holds")
    for r in range(rcost.shape[0]):
        if not (0 <= rcost[r] <= INFO_COST_MASK and 0 <= rcat[r] <= IC.CAT_MASK):
            raise ValueError("timing model: a row's cost or category is out of range")
        f = rflags[r]
        # (an LDS access of another category, or a memory category without F_LDS, would need
        # the units _fast_run does not hold)
        local = (f & ~(DEP_FLAGS | LOCAL_FLAGS) == 0 and f & LOCAL_FLAGS != 0
                 and ((f & C.F_LDS != 0) == (rcat[r] == C.CAT_LDS))
                 and rcat[r] != C.CAT_VMEM and rcat[r] != C.CAT_EXPGDS)
        info[r] = (rcost[r] | ((rcat[r] | IC.seq_fetch(ic, r)) << INFO_CAT_SHIFT)
                   | (rtaken[r] << INFO_TAKEN_SHIFT)
                   | (INFO_SLOW if f & ~DEP_FLAGS != 0 else 0)
                   | (INFO_VW if f & C.F_VSDST else 0)
                   | (INFO_SR if f & C.F_SREAD else 0)
                   | (INFO_LOCAL if local else 0)
                   | (INFO_LDS if f & C.F_LDS else 0)
                   | (INFO_WAIT if f & C.F_WAITCNT else 0)
                   | (INFO_BAR if f & C.F_BARRIER else 0))
    return info


@njit(inline="always")
def _mod_nsimd(x, nsimd):
    """x (uint64) mod nsimd: a mask for 4 SIMDs per CU (every preset's), a division for any
    other count (a division by a run-time value takes ~25 cycles: ~6 % of _fast_run's samples
    on scan_lds sat right after one)."""
    if nsimd == 4:
        return x & U3
    return x % np.uint64(nsimd)


@njit(inline="always")
def _turn_simd(t, nsimd):
    """The SIMD whose turn cycle t (>= 0) is: t mod nsimd (unsigned: no floor fix-up)."""
    return np.int64(_mod_nsimd(np.uint64(t), nsimd))


@njit(inline="always")
def _turn_after(u, simd, nsimd):
    """The first turn of SIMD ``simd`` at or after cycle u (>= 0)."""
    d = np.uint64(simd) + np.uint64(nsimd) - _mod_nsimd(np.uint64(u), nsimd)
    return u + np.int64(_mod_nsimd(d, nsimd))


#: the ready cycle of a parked wave: refused by its CU's busy LDS in _fast_run's early check,
#: it sleeps until its SIMD's first scan at which the LDS is free (_unpark), instead of
#: waking at the SIMD's first turn after the LDS frees, being refused again when another wave
#: took the LDS before that turn, and so on (scan_lds: 1.4 M of its 3.8 M slot visits, ~19
#: refusals per LDS access). Exact: the refusals it skips are each the LDS unit's (the port
#: check before cannot refuse it while the LDS is busy: no LDS access issued in that scan;
#: nor can two memory issues, VMEM and export/GDS, where the program has no export/GDS row:
#: else no wave parks), their stall cycles add up to its wait from the first to its waking
#: turn (each wakes it at the next refusal's cycle), and a scan at which the LDS is free
#: comes at the first turn of its SIMD at or after the LDS frees (the SIMD's wake cycle is
#: at most that turn while it has parked waves).
PARKED = INF + 1


@njit(_nrt=False)
def _unpark(parked, sid, SS, so, wo, WV, t):
    """Wake SIMD sid's parked waves (see PARKED) at its scan of cycle t, at which its CU's
    LDS is free: each books its wait since it parked as its unit-busy stall. Returns the
    cycles booked (SQ_WAIT_INST_ANY)."""
    m = np.uint64(parked[sid])
    waited = np.int64(0)
    while m:
        si = np.uint64(trailing_zeros(m))
        m &= m - U1
        wq = np.uint64(SS[so + U3 + si]) * np.uint64(WVS)
        d = t - WV[wq + np.uint64(WV_PARKED)]
        WV[wq + np.uint64(WV_UNIT)] += d
        waited += d
        SS[so + wo + si] = t
    parked[sid] = 0
    return waited


@njit(inline="always")
def _parked_wake(parked, sid, lds_free, wake, simd, nsimd):
    """A SIMD's wake cycle after its scan (``wake``: its waves' and releases' earliest), at
    most the first turn at which its parked waves, if any, find the LDS free."""
    if parked[sid] != 0:
        return min(wake, _turn_after(lds_free, simd, nsimd))
    return wake


@njit(_nrt=False)
def _ready_slots(SS, at, first, n, t):
    """Slots first..n-1 of a SIMD (ready cycles from SS[at]): the mask of those whose ready
    cycle has come by t (bit = slot), and the earliest ready cycle of the others (INF: none).
    _fast_run's scan visits the slots of the mask, oldest first, without a branch per slot on
    whether it is ready (data: each mispredicted test took ~14 % of _fast_run's samples on
    scan_lds). No other slot becomes ready during the scan: a wave changes only its own ready
    cycle, and a barrier releases its workgroup after the scan's cycle (_released_now: a row
    that costs 0). (Its own call, not inline: inline in both scan loops, its vector code added
    ~2 s to the first timing run's compile time; _replay, whose scans a pause often splits,
    kept its slot loop, which the mask did not speed up.)"""
    m = np.uint64(0)
    later = INF
    for si in range(first, n):
        r = SS[at + np.uint64(si)]
        m |= np.uint64(r <= t) << np.uint64(si)
        later = min(later, r if r > t else INF)
    return m, later


@njit(inline="always")
def _released_now(ready, SS, at, si, n, t, release):
    """_fast_run's mask of ready slots (_ready_slots) after the visit of slot si released a
    workgroup at cycle ``release``: at the scan's own cycle t (its s_barrier costs 0, as a
    test's tables may make it; no CLRX figure is 0) the released waves of later slots issue
    in it too, as the plain replay's slot loop finds them."""
    if release <= t:
        m, _later = _ready_slots(SS, at, si + 1, n, t)
        ready |= m
    return ready


@njit(inline="always")
def _next_turn(SS, base, ss, nsimd, t, simd):
    """The first cycle after t at which the CU's SIMD of that turn (cycle mod nsimd) may issue
    (its wake time, SS[.., 0], has come): (cycle, SIMD), or (INF, 0) if none ever may. t is
    a turn of SIMD simd."""
    for _ in range(nsimd):
        t += 1
        simd += 1
        if simd == nsimd:
            simd = 0
        if SS[base + np.uint64(simd) * ss] <= t:
            return t, simd
    # nothing in the next nsimd cycles: jump to the earliest wake, then step from there
    mw = INF
    for s in range(nsimd):
        mw = min(mw, SS[base + np.uint64(s) * ss])
    if mw >= INF:
        return INF, 0
    t = mw
    simd = _turn_simd(t, nsimd)
    for _ in range(nsimd):
        if SS[base + np.uint64(simd) * ss] <= t:
            return t, simd
        t += 1
        simd += 1
        if simd == nsimd:
            simd = 0
    return t, simd     # (not reached: the SIMD of the earliest wake has its turn by now)


@njit(inline="always")
def _book_waits(pcc, WV, wq, wacc, wu, ru):
    """Book the cycles the wave waited in s_waitcnt since its previous issue (wacc: vmcnt,
    lgkmcnt, expcnt) to row ``ru``'s columns, and move its stall start past them (the
    arbiter's share starts after them)."""
    pr = ru * np.uint64(NPC)
    wa = 3 * wu
    pcc[pr + np.uint64(PC_VM)] += wacc[wa]
    pcc[pr + np.uint64(PC_LGKM)] += wacc[wa + U1]
    pcc[pr + np.uint64(PC_EXP)] += wacc[wa + U2]
    WV[wq + np.uint64(WV_SINCE)] += wacc[wa] + wacc[wa + U1] + wacc[wa + U2]
    wacc[wa] = 0
    wacc[wa + U1] = 0
    wacc[wa + U2] = 0


@njit(inline="always")
def _account(pcc, WV, wq, row, t, busy):
    """Book the wave at WV[wq:] issuing row ``row`` at cycle t for ``busy`` cycles in the
    per-row table: the issue, and the cycles since its previous issue ended as stalls (the
    known reasons; the rest: not selected by the arbiter, or its SIMD's turn not come)."""
    pr = np.uint64(row) * np.uint64(NPC)
    u = WV[wq + np.uint64(WV_UNIT)]
    b = WV[wq + np.uint64(WV_BAR)]
    d = WV[wq + np.uint64(WV_DEPST)]
    f = WV[wq + np.uint64(WV_FETCH)]
    pcc[pr] += 1
    pcc[pr + U1] += busy
    pcc[pr + np.uint64(PC_UNIT)] += u
    pcc[pr + np.uint64(PC_BARRIER)] += b
    pcc[pr + np.uint64(PC_DEP)] += d
    pcc[pr + np.uint64(PC_FETCH)] += f
    pcc[pr + np.uint64(PC_ARBITER)] += t - WV[wq + np.uint64(WV_SINCE)] - u - b - d - f
    WV[wq + np.uint64(WV_SINCE)] = t + busy
    WV[wq + np.uint64(WV_UNIT)] = 0
    WV[wq + np.uint64(WV_BAR)] = 0
    WV[wq + np.uint64(WV_DEPST)] = 0
    WV[wq + np.uint64(WV_FETCH)] = 0


@njit(inline="always")
def _unit_turns(free, t, nsimd):
    """The cycles of the turns of a SIMD (one every nsimd cycles from t) on which a wave waits
    for a unit busy until ``free``: a unit's free time only moves on when a wave issues to
    it, which nobody can before ``free``, so the wave would be refused on each of them."""
    # (unsigned: free > t; the turns' count times nsimd, rounded down from d)
    d = np.uint64(free - t + nsimd - 1)
    return np.int64(d - _mod_nsimd(d, nsimd))


@njit(inline="always")
def _unit_free(cat, valu_free, ta_free, lds_free, exp_free, simd, cu):
    """The cycle the unit of issue category ``cat`` frees: the SIMD's VALU, or the CU's
    texture addresser (VMEM), LDS, or export/GDS unit (the other memory category)."""
    if cat == C.CAT_VALU:
        return valu_free[simd]
    if cat == C.CAT_VMEM:
        return ta_free[cu]
    if cat == C.CAT_LDS:
        return lds_free[cu]
    return exp_free[cu]


@njit(inline="always")
def _unit_sleep(WV, wq, SS, sri, free, t, nsimd):
    """The wave at WV[wq:] (ready cycle at SS[sri]) is refused at cycle t by a unit busy
    until ``free``: it sleeps until its SIMD's first turn after that (_unit_turns), booked as
    its unit-busy stall. Returns the cycle it wakes."""
    k = _unit_turns(free, t, nsimd)
    WV[wq + np.uint64(WV_UNIT)] += k
    SS[sri] = t + k
    return t + k


@njit(inline="always")
def _stall(WV, wq, field, SS, sri, until, t):
    """The wave at WV[wq:] (ready cycle SS[sri]) cannot issue before cycle ``until`` > t, for
    the reason whose stall cycles WV field ``field`` sums (WV_FETCH, WV_DEPST): book the wait
    there and sleep until then."""
    WV[wq + np.uint64(field)] += until - t
    SS[sri] = until


@njit(inline="always")
def _dep_wait(WV, wq, rsg, row, t):
    """For a scalar row that reads scalar registers: the cycle until which the wave's last
    VALU write of any of them has not retired (cu-whitepaper: a VALU instruction "takes 16
    cycles to retire and write the result"; results are forwarded between VALU instructions,
    not to the scalar unit), or 0 when it need not wait."""
    dr = WV[wq + np.uint64(WV_DEP)]
    if dr <= t:
        return np.int64(0)
    r2 = np.uint64(row) * U2
    if (WV[wq + np.uint64(WV_DMLO)] & rsg[r2]) | (WV[wq + np.uint64(WV_DMHI)] & rsg[r2 + U1]):
        return dr
    return np.int64(0)


@njit(inline="always")
def _dep_write(WV, wq, rsg, row, at):
    """A VALU row writing scalar registers issues: they retire at ``at``."""
    r2 = np.uint64(row) * U2
    WV[wq + np.uint64(WV_DEP)] = at
    WV[wq + np.uint64(WV_DMLO)] = rsg[r2]
    WV[wq + np.uint64(WV_DMHI)] = rsg[r2 + U1]


@njit(inline="always")
def _advance_plain(WV, wq, SS, nxi, streams, rinfo, t, cat, cost, p, row, info, pcc, rsg, vslat,
                   ic):
    """Move the wave at WV[wq:] past the plain instruction it issues at cycle t (stream
    position p, row ``row``, rinfo ``info``, category ``cat``, issue cost ``cost``): its next
    position, its next row and category (and whether it must fetch it) in its slot's word
    SS[nxi], and the cycle at which it may issue again (returned)."""
    nxt = p + 1
    WV[wq + U2] = nxt
    # the waves' streams (~10 MB for mandelbrot 256x192) are read by hundreds of waves in
    # turn, too many sequential streams for the CPU's own prefetcher: this hint makes the
    # replay ~5% faster
    _prefetch(streams, nxt + PREFETCH)
    nr = streams[np.uint64(nxt)]
    c = (rinfo[np.uint64(nr)] >> INFO_CAT_SHIFT) & INFO_CAT_MASK
    if nr != row + 1:
        c |= IC.PEND_JUMP       # (as IC.pending: with the static PEND_SEQ of rinfo)
    SS[nxi] = _next_word(nr, c)
    busy = cost
    if cat == C.CAT_BRANCH and nr != row + 1:
        busy = info >> INFO_TAKEN_SHIFT
    _account(pcc, WV, wq, row, t, busy)
    if info & INFO_VW:
        _dep_write(WV, wq, rsg, row, t + vslat)
    return t + busy


@njit(_nrt=False)
def _solo_run(cu, simd, nsimd, t, SS, so, sri, nxi, w, WV, streams, rinfo, pcc, rsg, vslat, ic,
              ctr, L):
    """_fast_run's scans of SIMD ``simd`` of CU cu while its only wave w (ready cycle
    SS[sri], next-row word SS[nxi], state WV[w * WVS:], not at s_barrier) runs plain rows:
    each of its turns is a scan that finds that wave alone, so its rows issue here one after
    the other, ahead of the CU's other SIMDs, in the scan's steps (fetch, scalar dependency,
    VALU, issue).
    Nothing the other SIMDs do in the meantime can change that: no workgroup is left to
    launch (no wave joins the SIMD; _fast_run checks), the wave is at no barrier (no release
    wakes it), and a plain row touches only its wave, its SIMD's VALU, the per-row table and
    the counters (sums) and the I$ (a hit whose result does not depend on the order:
    gcnemu/timing/icache.py; a possible miss stops the run). An s_waitcnt goes through the
    scan's local path (_local_row) here too: it reads only its wave's queues of outstanding
    operations, whose completion cycles were fixed when they issued (nbody's inner loop has
    one after each pair of LDS reads). Stops before a row that is not plain or s_waitcnt,
    costs 0 cycles or is (nearly) the wave's last, or a fetch that needs order: the scan of
    that turn runs as any other. t: the turn of the SIMD's scan just done; w: the wave, L:
    the local rows' tables (_Local). Returns (the wave's ready cycle, the issue counters
    SQ_WAIT_INST_ANY, VALU, SALU, misc it added)."""
    wq = np.uint64(w) * np.uint64(WVS)
    a_wait = np.int64(0)
    a_valu = np.int64(0)
    a_sca = np.int64(0)
    a_misc = np.int64(0)
    r = SS[sri]
    while True:
        # the SIMD's next turn at or after r, when its scan (wake = r) would take the wave (a
        # row of cost 0 leaves r at its issue turn: a wave issues once a turn)
        u = max(r, t + 1)
        t = _turn_after(u, simd, nsimd)
        nx = SS[nxi]
        cat = nx >> 32
        row = nx & NEXT_ROW_MASK
        info = rinfo[np.uint64(row)]
        p = WV[wq + U2]
        if ((info & INFO_SLOW and (info & WAIT_MASK != WAIT_ROW or p + 2 >= WV[wq + U3]))
                or p + 1 >= WV[wq + U3] or info & INFO_COST_MASK == 0
                or info >> INFO_TAKEN_SHIFT == 0):
            # (a row of cost 0 would leave the wave ready at a turn this run has taken, at
            # which the CU's scans, still behind, would let it issue again; p + 2: as the
            # scan, which takes a local row's last two entries to the full path)
            break
        if cat >= IC.PEND_SEQ:
            a = IC.fetch_one(ic, cu, row, cat, t, ctr, X_IFETCH)
            if a < 0:
                break        # (nothing changed: the scan of that turn takes it)
            cat &= IC.CAT_MASK
            SS[nxi] = _next_word(row, cat)
            if a > t:
                _stall(WV, wq, WV_FETCH, SS, sri, a, t)
                r = a
                continue
        cost = info & INFO_COST_MASK
        if info & INFO_SR:
            dw = _dep_wait(WV, wq, rsg, row, t)
            if dw > 0:
                _stall(WV, wq, WV_DEPST, SS, sri, dw, t)
                r = dw
                continue
        if info & INFO_SLOW:
            # s_waitcnt: waits, or issues (its port is free: the SIMD's only wave, a scan of
            # its own each turn)
            r, x, y, _ = _local_row(cu, t, nsimd, SS, so, sri, nxi, WV, w, wq, p, row, cat,
                                    info, cost, 0, 0, streams, rinfo, pcc, rsg, vslat, ic, ctr,
                                    L)
            if r == REFUSED_WAIT:
                a_wait += y
                r = x
            elif cat == C.CAT_VALU:
                a_valu += x
            elif cat == C.CAT_SALU:
                a_sca += x
            else:
                a_misc += x
            continue
        if cat == C.CAT_VALU:
            if SS[so + U2] > t:
                r = _unit_sleep(WV, wq, SS, sri, SS[so + U2], t, nsimd)
                a_wait += r - t
                continue
            SS[so + U2] = t + cost
            a_valu += cost
        elif cat == C.CAT_SALU:
            a_sca += cost
        else:
            a_misc += cost
        r = _advance_plain(WV, wq, SS, nxi, streams, rinfo, t, cat, cost, p, row, info, pcc, rsg,
                           vslat, ic)
        SS[sri] = r
    return r, a_wait, a_valu, a_sca, a_misc


# Period replay (_period_run): a SIMD whose resident waves all run loops of plain rows
# repeats its issue pattern. When, after one of its scans, its whole issue state relative to
# that scan's cycle (each slot's wave, ready cycle, next-row word, stall cycles so far and
# the retire time of its scalar writes; the VALU's free cycle; its wake) equals its state
# after an earlier scan D cycles before, and each wave's trace goes on repeating the rows it
# issued in between, the next periods issue the same rows at the same offsets: k of them
# are booked at once (the per-row table, the issue counters and the I$ counters k times the
# period's, the I$ entries' LRU stamps those of the last period, every cycle of the SIMD
# k x D later). The state is taken after each scan in which the oldest wave jumps back (once
# an iteration of its loop) and compared with the last one of the same hash among the last
# PER_SNAPS taken (the waves of a SIMD issue at different rates, the oldest first, so the
# pattern often spans many iterations of the oldest: with the last 4 compared, mandelbrot
# booked 10 % of its wave-instructions at once, with 16 45 %, with the hash over 64 48 %;
# loops_break 0 with 4, 26 % with 64). PER_* lay out the workspace (in the frame, PF_*).
PER_SNAPS = 64
PER_HASH_BITS = 10    # the last snapshot of each hash of the compared fields: PR.htab
PER_HEAD = 9          # per snapshot: t, log and fetch-log length, 4 issue counters, wake, VALU
PER_SLOT = 12         # per slot: wave, ready, word, since, unit, bar, depst, fetch, dep (3), pos
PER_CMP = 11          # (the slot fields compared: all but the stream position)
PER_LOG = 16384       # issues logged: row, busy, unit, barrier, dependency, fetch, arbiter
PER_FLOG = 4096       # fetches logged: row, pending bits, cycle
#: scans of a SIMD that _fast_run lets pass before it tries another period run after one
#: that ran fewer than PER_MIN_SCANS scans, doubled after each such up to PER_BACKOFF_MAX
#: (on memory and LDS kernels a try after every scan would cost a call each)
PER_BACKOFF = 4
PER_BACKOFF_MAX = 1024
PER_MIN_SCANS = 4
#: _period_run's workspace: ``snap``, ``log``, ``flog`` (see PER_*), the I$ counters of one
#: period (``ctr``), the next snapshot's number (``seq``), the last snapshot of each hash
#: (``htab``), and ``stats``: scans run, wave-instructions issued in them, periods booked at
#: once, wave-instructions booked at once (for tests and measurements)
_Period = namedtuple("_Period", ("snap", "log", "flog", "ctr", "seq", "htab", "stats"))

# _period_run is not linked into _fast_run: it is compiled (or loaded from numba's disk
# cache) the first time a program whose plain (and s_waitcnt) rows hold a loop is timed
# (period_entry, called by time_dispatch: plain_loop; the only programs whose periods it can
# book), and _period_try calls it by address (_call_period), as the engine calls its trace
# recorders. Linked in, it added ~5 s of compile to every first timing run and grew
# _fast_run's compiled body. Its frame (an int64 array, made by _period_frame; _Local.per
# holds its address, 0 when the period replay is off): the entry's address, the frame's own
# address, the scalars and the arrays' addresses and sizes the entry needs (_fast_run's
# ``acc`` among them), the issue counters it added and the scans it ran (what it returns
# beside the SIMD's wake), the workspace's offsets in the frame, the next snapshot's number
# and the stats; from PF_HEAD on: per SIMD the scans left before its next try (PF_HEAD +
# SIMD) and its back-off (frame[PF_BACK] + SIMD), then the workspace.
(PF_ENTRY, PF_SELF, PF_NSIMD, PF_WPS, PF_VSLAT, PF_SS, PF_NSS, PF_WV, PF_NWV, PF_STREAMS,
 PF_NSTREAMS, PF_RINFO, PF_NRINFO, PF_PCC, PF_NPCC, PF_RSG, PF_NRSG, PF_IC, PF_NIC, PF_CTR,
 PF_NCTR, PF_WAIT, PF_VALU, PF_SCA, PF_MISC, PF_SCANS, PF_BACK, PF_PCTR, PF_HTAB, PF_SNAP,
 PF_LOG, PF_FLOG, PF_VN, PF_EN, PF_LN, PF_NQ, PF_QROW, PF_NW, PF_RWAIT, PF_NROWS, PF_WACC,
 PF_ACC, PF_SEQ, PF_STATS) = range(44)
PF_HEAD = PF_STATS + 4


@njit
def _period_frame(entry, nsimds, nsimd, wps, vslat, SS, WV, streams, rinfo, pcc, rsg, ic, ctr,
                  vn, en, ln, qrow, rwait, wacc, acc):
    """The period replay's frame (see PF_*) for the entry at address ``entry`` (0: the
    period replay is off, and the frame is its header alone)."""
    if entry == 0:
        return np.zeros(PF_HEAD, np.int64)
    ncol = PER_HEAD + PER_SLOT * wps
    pctr = PF_HEAD + 2 * nsimds
    htab = pctr + ctr.shape[0]
    snap = htab + (1 << PER_HASH_BITS)
    log = snap + PER_SNAPS * ncol
    flog = log + PER_LOG * 7
    # (the snapshots and logs are written before they are read: not cleared)
    f = np.empty(flog + PER_FLOG * 3, np.int64)
    f[:snap] = 0
    f[PF_HEAD + nsimds:pctr] = PER_BACKOFF
    f[PF_ENTRY] = entry
    f[PF_SELF] = f.ctypes.data
    f[PF_NSIMD] = nsimd
    f[PF_WPS] = wps
    f[PF_VSLAT] = vslat
    f[PF_SS] = SS.ctypes.data
    f[PF_NSS] = SS.shape[0]
    f[PF_WV] = WV.ctypes.data
    f[PF_NWV] = WV.shape[0]
    f[PF_STREAMS] = streams.ctypes.data
    f[PF_NSTREAMS] = streams.shape[0]
    f[PF_RINFO] = rinfo.ctypes.data
    f[PF_NRINFO] = rinfo.shape[0]
    f[PF_PCC] = pcc.ctypes.data
    f[PF_NPCC] = pcc.shape[0]
    f[PF_RSG] = rsg.ctypes.data
    f[PF_NRSG] = rsg.shape[0]
    f[PF_IC] = ic.ctypes.data
    f[PF_NIC] = ic.shape[0]
    f[PF_CTR] = ctr.ctypes.data
    f[PF_NCTR] = ctr.shape[0]
    f[PF_BACK] = PF_HEAD + nsimds
    f[PF_PCTR] = pctr
    f[PF_HTAB] = htab
    f[PF_SNAP] = snap
    f[PF_LOG] = log
    f[PF_FLOG] = flog
    f[PF_VN] = vn.ctypes.data
    f[PF_EN] = en.ctypes.data
    f[PF_LN] = ln.ctypes.data
    f[PF_NQ] = vn.shape[0]
    f[PF_QROW] = qrow.ctypes.data
    f[PF_NW] = qrow.shape[0]
    f[PF_RWAIT] = rwait.ctypes.data
    f[PF_NROWS] = rwait.shape[0]
    f[PF_WACC] = wacc.ctypes.data
    f[PF_ACC] = acc.ctypes.data
    return f


@njit(_nrt=False)
def _period_take(sn, t, nlog, nflog, a_wait, a_valu, a_sca, a_misc, wake, SS, so, wo, wpsu, n,
                 WV):
    """Write the SIMD's issue state after its scan at cycle t into snapshot ``sn`` (PER_*);
    returns a hash of the fields _period_repeats compares (PER_HASH_BITS bits)."""
    sn[0] = t
    sn[1] = nlog
    sn[2] = nflog
    sn[3] = a_wait
    sn[4] = a_valu
    sn[5] = a_sca
    sn[6] = a_misc
    sn[7] = wake - t
    sn[8] = max(SS[so + U2] - t, 0)
    for si in range(n):
        w = np.uint64(SS[so + U3 + np.uint64(si)])
        wq = w * np.uint64(WVS)
        o = PER_HEAD + PER_SLOT * si
        sn[o] = w
        sn[o + 1] = SS[wo + np.uint64(si)] - t
        sn[o + 2] = SS[wo + np.uint64(si) + wpsu]
        sn[o + 3] = WV[wq + np.uint64(WV_SINCE)] - t
        sn[o + 4] = WV[wq + np.uint64(WV_UNIT)]
        sn[o + 5] = WV[wq + np.uint64(WV_BAR)]
        sn[o + 6] = WV[wq + np.uint64(WV_DEPST)]
        sn[o + 7] = WV[wq + np.uint64(WV_FETCH)]
        d = WV[wq + np.uint64(WV_DEP)] - t
        # (a retire time already past never holds the wave again, whatever its registers)
        sn[o + 8] = max(d, 0)
        sn[o + 9] = WV[wq + np.uint64(WV_DMLO)] if d > 0 else 0
        sn[o + 10] = WV[wq + np.uint64(WV_DMHI)] if d > 0 else 0
        sn[o + 11] = WV[wq + U2]
    h = np.uint64(0)
    for f in range(7, PER_HEAD + PER_SLOT * n):
        if f < PER_HEAD or (f - PER_HEAD) % PER_SLOT < PER_CMP:
            h = (h ^ np.uint64(sn[f])) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(64 - PER_HASH_BITS))


@njit(_nrt=False)
def _period_repeats(sp, sn, n, WV, streams):
    """How many more times the period between snapshots sp and sn (PER_*) repeats: -1 when
    the states differ; else the most periods every wave's trace repeats the rows it issued
    in the period for (and its last row is not among them)."""
    if sp[7] != sn[7] or sp[8] != sn[8]:
        return np.int64(-1)
    for si in range(n):
        o = PER_HEAD + PER_SLOT * si
        for f in range(PER_CMP):
            if sp[o + f] != sn[o + f]:
                return np.int64(-1)
    k = INF
    for si in range(n):
        o = PER_HEAD + PER_SLOT * si
        p = sn[o + 11]
        m = p - sp[o + 11]
        if m <= 0:
            return np.int64(0)
        # positions p+1.. that hold the row m before, up to the k periods found so far, and
        # before the wave's last row (a period issues positions p..p+m-1, each with a next)
        end = min(WV[np.uint64(sn[o]) * np.uint64(WVS) + U3], p + 1 + min(k, INF // m) * m)
        q = p + 1
        while q < end and streams[np.uint64(q)] == streams[np.uint64(q - m)]:
            q += 1
        k = min(k, (q - 1 - p) // m)
        if k == 0:
            return k
    return k


@njit(_nrt=False)
def _period_book(sp, sn, k, n, SS, so, wo, WV, log, flog, pcc, ic, cu, ctr, pctr):
    """Book k more periods of the one between snapshots sp and sn (PER_*) at once: the
    per-row table k times the logged issues, the I$ counters k times the logged fetches'
    (their entries' LRU stamps as at the last period's fetches), and the SIMD's state k x D
    cycles and k periods' stream positions later. Returns k x D."""
    kd = k * (sn[0] - sp[0])
    for i in range(sp[1], sn[1]):
        pr = np.uint64(log[i, 0]) * np.uint64(NPC)
        pcc[pr] += k
        pcc[pr + U1] += k * log[i, 1]
        pcc[pr + np.uint64(PC_UNIT)] += k * log[i, 2]
        pcc[pr + np.uint64(PC_BARRIER)] += k * log[i, 3]
        pcc[pr + np.uint64(PC_DEP)] += k * log[i, 4]
        pcc[pr + np.uint64(PC_FETCH)] += k * log[i, 5]
        pcc[pr + np.uint64(PC_ARBITER)] += k * log[i, 6]
    for i in range(sp[2], sn[2]):
        # (a sure hit at its cycle hits at any later one: icache.sure_hit)
        IC.fetch_one(ic, cu, flog[i, 0], flog[i, 1], flog[i, 2] + kd, pctr, X_IFETCH)
    for i in range(X_IFETCH, X_IFETCH + 4):
        ctr[i] += k * pctr[i]
        pctr[i] = 0
    SS[so + U2] += kd
    for si in range(n):
        o = PER_HEAD + PER_SLOT * si
        wq = np.uint64(sn[o]) * np.uint64(WVS)
        SS[wo + np.uint64(si)] += kd
        WV[wq + U2] += k * (sn[o + 11] - sp[o + 11])
        WV[wq + np.uint64(WV_SINCE)] += kd
        WV[wq + np.uint64(WV_DEP)] += kd
    return kd


#: what an s_waitcnt row's rinfo holds of WAIT_MASK
WAIT_MASK = INFO_SLOW | INFO_LOCAL | INFO_WAIT | INFO_LDS | INFO_BAR
WAIT_ROW = INFO_SLOW | INFO_LOCAL | INFO_WAIT
#: the tables _period_run reads for s_waitcnt rows (simulate's: the outstanding operations
#: per queue row, each wave's queue row, the rows' limits, the waves' s_waitcnt stalls)
_Wait = namedtuple("_Wait", ("vn", "en", "ln", "qrow", "rwait", "wacc"))


@njit(inline="always")
def _wait_clear(QW, w, row):
    """Whether wave w passes the s_waitcnt ``row`` now and at any later cycle while it issues
    nothing but plain rows, as a plain row: no more operations of each counter outstanding
    than the row allows (_waitcnt returns at once, touching nothing; plain rows push none),
    and no s_waitcnt stall of the wave waiting to be booked (_book_waits books nothing)."""
    q = QW.qrow[w]
    lv = QW.rwait[row, 0]
    le = QW.rwait[row, 1]
    ll = QW.rwait[row, 2]
    wa = 3 * w
    return ((lv < 0 or QW.vn[q] <= lv) and (le < 0 or QW.en[q] <= le)
            and (ll < 0 or QW.ln[q] <= ll) and QW.wacc[wa] == 0 and QW.wacc[wa + 1] == 0
            and QW.wacc[wa + 2] == 0)


@njit(_nrt=False)
def _period_run(cu, simd, nsimd, t, wake, SS, so, wpsu, WV, streams, rinfo, pcc, rsg, vslat,
                ic, ctr, PR, QW):
    """_fast_run's scans of SIMD ``simd`` of CU cu after its scan at cycle t (``wake``: the
    cycle from which it has something to do), run here ahead of the CU's other SIMDs while
    every wave a scan may issue has a plain row, or an s_waitcnt that it passes as one
    (_wait_clear; not the wave's last row, nor the one before, as _fast_run's local path),
    whose fetch is a sure I$ hit (icache.sure_hit); repeats of its issue pattern are booked
    at once (see PER_*).
    Nothing else reaches the SIMD meanwhile: no wave can join it (the caller checks: its
    slots are full, or no workgroup is left to launch), none of its waves is at a barrier
    (none can be woken), and a plain row touches only its wave, the SIMD's VALU, sums and I$
    hits that do not depend on the order. Each scan takes the steps of _fast_run's, for
    plain rows. Returns (the SIMD's wake cycle, the issue counters SQ_WAIT_INST_ANY, VALU,
    SALU, misc it added, the scans it ran)."""
    a_wait = np.int64(0)
    a_valu = np.int64(0)
    a_sca = np.int64(0)
    a_misc = np.int64(0)
    n = np.int64(SS[so + U1])
    wo = so + U3 + wpsu
    snap = PR.snap
    log = PR.log
    flog = PR.flog
    st = PR.stats
    seq0 = PR.seq[0]     # the first snapshot of this run (PR.seq: the next one's number)
    nlog = 0
    nflog = 0
    scans = np.int64(0)
    for si in range(n):
        if SS[wo + np.uint64(si)] >= INF:
            return wake, a_wait, a_valu, a_sca, a_misc, scans
    while True:
        # the SIMD's first turn after t at or after its wake
        u = max(wake, t + 1)
        tn = _turn_after(u, simd, nsimd)
        stop = False
        for si in range(n):
            sri = wo + np.uint64(si)
            if SS[sri] > tn:
                continue
            nx = SS[sri + wpsu]
            row = nx & NEXT_ROW_MASK
            wu = np.uint64(SS[so + U3 + np.uint64(si)])
            wq = wu * np.uint64(WVS)
            info = rinfo[np.uint64(row)]
            if ((info & INFO_SLOW
                 and not (info & WAIT_MASK == WAIT_ROW and WV[wq + U2] + 2 < WV[wq + U3]
                          and _wait_clear(QW, wu, row)))
                    or WV[wq + U2] + 1 >= WV[wq + U3]
                    or ((nx >> 32) >= IC.PEND_SEQ
                        and not IC.sure_hit(ic, cu, row, nx >> 32, tn))):
                stop = True
                break
        if stop:
            break
        if nlog + n > PER_LOG or nflog + n > PER_FLOG:
            seq0 = PR.seq[0]      # (the logs are full: start over)
            nlog = 0
            nflog = 0
        t = tn
        scans += 1
        used = 0
        smin = INF
        back = False
        for si in range(n):
            sri = wo + np.uint64(si)
            r = SS[sri]
            if r > t:
                smin = min(smin, r)
                continue
            nxi = sri + wpsu
            nx = SS[nxi]
            cat = nx >> 32
            if (used >> cat) & 1:
                a_wait += nsimd
                smin = t + 1
                continue
            wq = np.uint64(SS[so + U3 + np.uint64(si)]) * np.uint64(WVS)
            p = WV[wq + U2]
            row = nx & NEXT_ROW_MASK
            info = rinfo[np.uint64(row)]
            if cat >= IC.PEND_SEQ:
                IC.fetch_one(ic, cu, row, cat, t, ctr, X_IFETCH)     # (t: a sure hit)
                flog[nflog, 0] = row
                flog[nflog, 1] = cat
                flog[nflog, 2] = t
                nflog += 1
                cat &= IC.CAT_MASK
                SS[nxi] = _next_word(row, cat)
                if (used >> cat) & 1:
                    a_wait += nsimd
                    smin = t + 1
                    continue
            cost = info & INFO_COST_MASK
            if info & INFO_SR:
                dw = _dep_wait(WV, wq, rsg, row, t)
                if dw > 0:
                    _stall(WV, wq, WV_DEPST, SS, sri, dw, t)
                    smin = min(smin, dw)
                    continue
            if cat == C.CAT_VALU:
                if SS[so + U2] > t:
                    r = _unit_sleep(WV, wq, SS, sri, SS[so + U2], t, nsimd)
                    a_wait += r - t
                    smin = min(smin, r)
                    continue
                SS[so + U2] = t + cost
                a_valu += cost
            elif cat == C.CAT_SALU:
                a_sca += cost
            else:
                a_misc += cost
            if cat != C.CAT_INTERNAL:
                used |= 1 << cat
            # (what _account books, logged for a repeat)
            e = log[nlog]
            e[0] = row
            e[2] = WV[wq + np.uint64(WV_UNIT)]
            e[3] = WV[wq + np.uint64(WV_BAR)]
            e[4] = WV[wq + np.uint64(WV_DEPST)]
            e[5] = WV[wq + np.uint64(WV_FETCH)]
            e[6] = t - WV[wq + np.uint64(WV_SINCE)] - e[2] - e[3] - e[4] - e[5]
            r = _advance_plain(WV, wq, SS, nxi, streams, rinfo, t, cat, cost, p, row, info,
                               pcc, rsg, vslat, ic)
            e[1] = r - t
            nlog += 1
            st[1] += 1
            if si == 0 and SS[nxi] & NEXT_ROW_MASK <= row:
                back = True
            SS[sri] = r
            smin = min(smin, r)
        wake = smin
        if not back:
            continue
        # the oldest wave jumped back: take the state, compare it with the last state of the
        # same hash among the last PER_SNAPS taken in this run
        seq = PR.seq[0]
        PR.seq[0] = seq + 1
        sn = snap[seq % PER_SNAPS]
        h = _period_take(sn, t, nlog, nflog, a_wait, a_valu, a_sca, a_misc, wake, SS, so, wo,
                         wpsu, n, WV)
        c = PR.htab[h] - 1
        PR.htab[h] = seq + 1
        if c < seq0 or c <= seq - PER_SNAPS:
            continue
        sp = snap[c % PER_SNAPS]
        m = _period_repeats(sp, sn, n, WV, streams)
        if m > 0:
            st[2] += m
            st[3] += m * (sn[1] - sp[1])
            a_wait += m * (sn[3] - sp[3])
            a_valu += m * (sn[4] - sp[4])
            a_sca += m * (sn[5] - sp[5])
            a_misc += m * (sn[6] - sp[6])
            kd = _period_book(sp, sn, m, n, SS, so, wo, WV, log, flog, pcc, ic, cu, ctr,
                              PR.ctr)
            t += kd
            wake += kd
            seq0 = PR.seq[0]
            nlog = 0
            nflog = 0
    # a wave refused its port in the last scan keeps its ready cycle from before: the SIMD's
    # scans up to here are done, so it may issue no earlier than its next turn (a scan the
    # CU, still behind, runs for a wake such as a memory completion's finds nothing ready)
    for si in range(n):
        sri = wo + np.uint64(si)
        if SS[sri] <= t:
            SS[sri] = t + 1
    st[0] += scans
    return wake, a_wait, a_valu, a_sca, a_misc, scans


def _period_entry(fp, cu, simd, t, wake, so):
    """The C-callable entry of _period_run (see PF_*): the frame at ``fp`` names the arrays;
    returns the SIMD's wake cycle and leaves the counters and the scans in the frame."""
    h = carray(fp, (PF_HEAD,))
    a = h[PF_SELF]
    wps = h[PF_WPS]
    PR = _Period(carray(p_i64(a + 8 * h[PF_SNAP]), (PER_SNAPS, PER_HEAD + PER_SLOT * wps)),
                 carray(p_i64(a + 8 * h[PF_LOG]), (PER_LOG, 7)),
                 carray(p_i64(a + 8 * h[PF_FLOG]), (PER_FLOG, 3)),
                 carray(p_i64(a + 8 * h[PF_PCTR]), (h[PF_NCTR],)),
                 carray(p_i64(a + 8 * PF_SEQ), (1,)),
                 carray(p_i64(a + 8 * h[PF_HTAB]), (1 << PER_HASH_BITS,)),
                 carray(p_i64(a + 8 * PF_STATS), (4,)))
    r, dw, dv, ds, dm, nsc = _period_run(
        cu, simd, h[PF_NSIMD], t, wake, carray(p_i64(h[PF_SS]), (h[PF_NSS],)), np.uint64(so),
        np.uint64(wps), carray(p_i64(h[PF_WV]), (h[PF_NWV],)),
        carray(p_i64(h[PF_STREAMS]), (h[PF_NSTREAMS],)),
        carray(p_i64(h[PF_RINFO]), (h[PF_NRINFO],)), carray(p_i64(h[PF_PCC]), (h[PF_NPCC],)),
        carray(p_i64(h[PF_RSG]), (h[PF_NRSG],)), h[PF_VSLAT],
        carray(p_i64(h[PF_IC]), (h[PF_NIC],)), carray(p_i64(h[PF_CTR]), (h[PF_NCTR],)), PR,
        _Wait(carray(p_i64(h[PF_VN]), (h[PF_NQ],)), carray(p_i64(h[PF_EN]), (h[PF_NQ],)),
              carray(p_i64(h[PF_LN]), (h[PF_NQ],)), carray(p_i64(h[PF_QROW]), (h[PF_NW],)),
              carray(p_i64(h[PF_RWAIT]), (h[PF_NROWS], 3)),
              carray(p_i64(h[PF_WACC]), (3 * h[PF_NW],))))
    h[PF_WAIT] = dw
    h[PF_VALU] = dv
    h[PF_SCA] = ds
    h[PF_MISC] = dm
    h[PF_SCANS] = nsc
    return r


_PERIOD_SIGNATURE = types.int64(types.CPointer(types.int64), types.int64, types.int64,
                                types.int64, types.int64, types.int64)


def period_entry() -> int:
    """Address of _period_run's compiled entry (_period_entry), for simulate's
    ``period_entry``: compiled on first use (jit.native_address), or loaded from numba's disk
    cache."""
    return native_address(_period_entry, _PERIOD_SIGNATURE)


@intrinsic
def _call_period(typingctx, entry, frame, cu, simd, t, wake, so):
    """Call the period replay's entry at address ``entry`` (period_entry) with its frame's
    address and the int64s cu, simd, t, wake, so; returns the SIMD's wake cycle."""
    sig = types.int64(entry, frame, cu, simd, t, wake, so)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        return call_native(builder, args[0],
                           [builder.inttoptr(args[1], i64.as_pointer())] + list(args[2:]), i64)
    return sig, codegen


@njit(_nrt=False)
def _period_try(fa, cu, simd, t, wake, so):
    """_fast_run's try of a period run of SIMD ``simd`` of CU cu after its scan at cycle t
    (``wake``: the cycle from which it has something to do; ``so``: its row of the SIMD
    table), with the frame at address ``fa`` (PF_*): when its oldest wave's next row is plain
    (on memory and LDS kernels most tries that find it otherwise stop at once) and its
    back-off allows. Adds the issue counters the run added to _fast_run's ``acc`` and returns
    the SIMD's wake cycle. (A call of its own: inline, the call site's code made _fast_run's
    scans of memory and LDS kernels, which never get here, 2-7 % slower.)"""
    per = p_i64(fa)
    SS = p_i64(per[PF_SS])
    row = SS[so + 3 + per[PF_WPS] * 2] & NEXT_ROW_MASK
    if p_i64(per[PF_RINFO])[row] & INFO_SLOW:
        return wake
    sid = cu * per[PF_NSIMD] + simd
    sk = PF_HEAD + sid
    if per[sk] > 0:
        per[sk] -= 1
        return wake
    wake = _call_period(per[PF_ENTRY], fa, cu, simd, t, wake, so)
    acc = p_i64(per[PF_ACC])
    acc[0] += per[PF_WAIT]     # (_fast_run adds its own counters to acc at its end)
    acc[1] += per[PF_VALU] + per[PF_SCA] + per[PF_MISC]
    acc[2] += per[PF_VALU]
    acc[3] += per[PF_SCA]
    acc[4] += per[PF_MISC]
    bk = per[PF_BACK] + sid
    if per[PF_SCANS] < PER_MIN_SCANS:
        per[sk] = per[bk]
        per[bk] = min(2 * per[bk], PER_BACKOFF_MAX)
    else:
        per[bk] = PER_BACKOFF
    return wake


@njit(_nrt=False)
def _fast_run(cu, t, nsimd, wps, SS, sstride, WV, streams, rinfo, acc, RS, pcc, rsg, vslat, ic,
              ctr, L):
    """Run CU cu's scans from cycle t while they need only the fast path: plain VALU, SALU,
    branch and internal instructions, and the CU-local rows of LOCAL_FLAGS (LDS accesses,
    s_waitcnt, s_barrier), none of them a wave's last. Returns the cycle of the first scan
    that needs more, with CU cu's row of RS set to resume it there, or INF when no wave of
    the CU can issue any more. acc: the issue counters (a_wait, a_any, a_valu, a_sca,
    a_misc) and the last memory completion, updated. SS: per SIMD (wake, waves, VALU free,
    slots...), WV: per wave (see WV_*); pcc: the per-row cycle table (see _account); ic: the
    I$s (gcnemu/timing/icache.py): a fetch that needs (cycle, CU) order (a possible miss)
    ends the run like a row that needs the full path; ctr: the counters; L: the tables the
    local rows use (_Local). A local row goes through the full path's steps in its order
    (the memory unit's early check, fetch, scalar dependency, s_waitcnt, port and unit,
    issue), so the results are the same bits."""
    a_wait = np.int64(0)     # cycles ready waves were refused (SQ_WAIT_INST_ANY)
    a_valu = np.int64(0)
    a_sca = np.int64(0)
    a_misc = np.int64(0)
    a_lds = np.int64(0)      # issue cycles of LDS accesses (SQ_ACTIVE_INST_ANY)
    last_mem = acc[5]
    ss = np.uint64(sstride)
    wpsu = np.uint64(wps)
    wo = U3 + wpsu      # where a SIMD's waves' ready cycles start (next-row words: + wps)
    base = np.uint64(cu * nsimd) * ss
    cuu = np.uint64(cu)
    simd = _turn_simd(t, nsimd)
    out = INF
    # solo runs (_solo_run) need that no wave joins a SIMD: no workgroup left to launch (only
    # the full path launches, when a wave ends)
    nolaunch = L.gnext[0] >= L.group_first.shape[0] - 1
    solo = L.solo and nolaunch
    pf = L.per
    while True:
        so = base + np.uint64(simd) * ss
        if SS[so] <= t:
            used = 0
            nmem = 0
            smin = INF
            floor = INF     # earliest barrier release this scan caused
            sid = cuu * np.uint64(nsimd) + np.uint64(simd)
            if L.parked[sid] != 0 and L.lds_free[cuu] <= t:
                a_wait += _unpark(L.parked, sid, SS, so, wo, WV, t)
            ready, smin = _ready_slots(SS, so + wo, 0, SS[so + U1], t)
            while ready:
                si = np.int64(trailing_zeros(ready))
                ready &= ready - U1
                sri = so + wo + np.uint64(si)
                nxi = sri + wpsu
                nx = SS[nxi]
                cat = nx >> 32
                if (used >> cat) & 1:     # (internal instructions never set a port bit)
                    a_wait += nsimd
                    smin = t + 1
                    continue
                w = np.uint64(SS[so + U3 + np.uint64(si)])
                wq = w * np.uint64(WVS)
                # (every way on from here reads or books in the wave's row, which the scans
                # of other SIMDs and CUs have often evicted: its load starts now)
                _prefetch(WV, wq + np.uint64(WV_UNIT))
                row = nx & NEXT_ROW_MASK
                info = rinfo[np.uint64(row)]
                if info & INFO_SLOW:
                    if cat == C.CAT_LDS and info & (INFO_LDS | INFO_WAIT | INFO_SR) == INFO_LDS:
                        # the memory unit's early check, which the full path makes before
                        # anything else (see _replay): refused here, a wave refused there
                        # (scan_lds: 1.4 M of its 3.8 M visits before refused waves parked;
                        # 87 K parks now)
                        if nmem >= 2:
                            a_wait += nsimd
                            smin = t + 1
                            continue
                        uf = L.lds_free[cuu]
                        if uf > t and L.park:
                            SS[sri] = PARKED
                            WV[wq + np.uint64(WV_PARKED)] = t
                            L.parked[sid] |= np.int64(1) << si
                            continue
                        if uf > t:
                            r = _unit_sleep(WV, wq, SS, sri, uf, t, nsimd)
                            a_wait += r - t
                            smin = min(smin, r)
                            continue
                    p = WV[wq + U2]
                    # (an issue reads the entries after p, which a wave that waited long may
                    # have lost from the CPU's caches since its previous issue's prefetch)
                    _prefetch(streams, p + 1)
                    if info & INFO_LOCAL == 0 or p + 2 >= WV[wq + U3]:
                        _pause(RS, cu, si, used, nmem, 0, smin, floor)
                        out = t
                        break
                else:
                    p = WV[wq + U2]
                    _prefetch(streams, p + 1)
                    if p + 1 >= WV[wq + U3]:
                        _pause(RS, cu, si, used, nmem, 0, smin, floor)
                        out = t
                        break
                # --- instruction fetch (gcnemu/timing/icache.py), as in simulate ---
                if cat >= IC.PEND_SEQ:
                    a = IC.fetch_one(ic, cu, row, cat, t, ctr, X_IFETCH)
                    if a < 0:
                        _pause(RS, cu, si, used, nmem, 0, smin, floor)
                        out = t
                        break
                    cat &= IC.CAT_MASK
                    SS[nxi] = _next_word(row, cat)
                    if a > t:
                        _stall(WV, wq, WV_FETCH, SS, sri, a, t)
                        smin = min(smin, a)
                        continue
                    if (used >> cat) & 1:
                        a_wait += nsimd
                        smin = t + 1
                        continue
                # --- end of instruction fetch ---
                cost = info & INFO_COST_MASK
                if info & INFO_SR:
                    dw = _dep_wait(WV, wq, rsg, row, t)
                    if dw > 0:
                        _stall(WV, wq, WV_DEPST, SS, sri, dw, t)
                        smin = min(smin, dw)
                        continue
                if info & INFO_SLOW:
                    r, x, y, release = _local_row(cu, t, nsimd, SS, so, sri, nxi, WV, w, wq,
                                                     p, row, cat, info, cost, used, nmem,
                                                     streams, rinfo, pcc, rsg, vslat, ic, ctr,
                                                     L)
                    if r == REFUSED_PORT:
                        a_wait += nsimd
                        smin = t + 1
                        continue
                    if r == REFUSED_WAIT:
                        # (its ready cycle is set)
                        a_wait += y
                        smin = min(smin, x)
                        continue
                    if cat != C.CAT_INTERNAL:
                        used |= 1 << cat
                    if info & INFO_LDS:
                        nmem += 1
                        last_mem = max(last_mem, y)
                        a_lds += x
                    elif cat == C.CAT_VALU:
                        a_valu += x
                    elif cat == C.CAT_SALU:
                        a_sca += x
                    else:
                        a_misc += x
                    smin = min(smin, r)
                    if release < INF:
                        # a barrier released its workgroup: the CU's SIMDs wake
                        for s in range(nsimd):
                            wi = base + np.uint64(s) * ss
                            SS[wi] = min(SS[wi], release)
                        floor = min(floor, release)
                        ready = _released_now(ready, SS, so + wo, si, SS[so + U1], t, release)
                    continue
                if cat == C.CAT_VALU:
                    if SS[so + U2] > t:
                        # the VALU is busy: the wave sleeps until its SIMD's first turn after
                        # the VALU frees (it would fail each turn before: see _unit_turns)
                        r = _unit_sleep(WV, wq, SS, sri, SS[so + U2], t, nsimd)
                        a_wait += r - t
                        smin = min(smin, r)
                        continue
                    SS[so + U2] = t + cost
                    a_valu += cost
                elif cat == C.CAT_SALU:
                    a_sca += cost
                else:
                    a_misc += cost
                if cat != C.CAT_INTERNAL:
                    used |= 1 << cat
                r = _advance_plain(WV, wq, SS, nxi, streams, rinfo, t, cat, cost, p, row, info,
                                   pcc, rsg, vslat, ic)
                SS[sri] = r
                smin = min(smin, r)
            if out < INF:
                break
            sri = so + wo
            if solo and SS[so + U1] == 1 and SS[sri] < INF:
                # the SIMD's only wave (not at s_barrier) runs alone until a row needs a scan
                r, dw, dv, ds, dm = _solo_run(cu, simd, nsimd, t, SS, so, sri, sri + wpsu,
                                              SS[so + U3], WV, streams, rinfo, pcc, rsg,
                                              vslat, ic, ctr, L)
                a_wait += dw
                a_valu += dv
                a_sca += ds
                a_misc += dm
                smin = r
            elif (pf != 0 and floor >= INF and SS[so + U1] >= 2
                  and (nolaunch or SS[so + U1] == wps)):
                # no wave can join the SIMD (slots full, or no workgroup left): its waves may
                # run ahead, and their repeating issue pattern be booked at once
                smin = _period_try(pf, cu, simd, t, smin, np.int64(so))
            SS[so] = _parked_wake(L.parked, sid, L.lds_free[cuu], min(smin, floor), simd, nsimd)
        # the next turn of a SIMD with something to do: the next nsimd turns one by one,
        # then a jump to the earliest wake
        t, simd = _next_turn(SS, base, ss, nsimd, t, simd)
        if t >= INF:
            break
    acc[0] += a_wait
    acc[1] += a_valu + a_sca + a_misc + a_lds
    acc[2] += a_valu
    acc[3] += a_sca
    acc[4] += a_misc
    acc[5] = last_mem
    return out


@njit(inline="always")
def _local_row(cu, t, nsimd, SS, so, sri, nxi, WV, w, wq, p, row, cat, info, cost, used, nmem,
               streams, rinfo, pcc, rsg, vslat, ic, ctr, L):
    """_fast_run's local path: the wave w (at WV[wq:], ready cycle SS[sri], next-row word
    SS[nxi]) at stream position p, fetched and past its scalar dependency, tries to issue
    the LDS access, s_waitcnt or s_barrier ``row`` (category ``cat``, rinfo ``info``, cost
    ``cost``) at cycle t, in the full path's steps (see _replay): its s_waitcnt, its port
    and unit, the issue. Returns, when it issues, (the cycle it may issue again, its issue
    cycles, its memory completion or 0, the cycle its barrier released its workgroup or
    INF); when it waits, (REFUSED_WAIT, its next ready cycle, the wait booked as
    SQ_WAIT_INST_ANY, INF); when its port is taken, (REFUSED_PORT, 0, 0, INF)."""
    wu = np.uint64(w)
    cuu = np.uint64(cu)
    ru = np.uint64(row)
    if info & INFO_WAIT:
        q = L.qrow[wu]
        uv = _waitcnt(L.vq, L.vn, q, L.rwait[ru, 0], t)
        ue = _waitcnt(L.eq, L.en, q, L.rwait[ru, 1], t)
        ul = _waitcnt(L.lq, L.ln, q, L.rwait[ru, 2], t)
        u = max(uv, ue, ul)
        if u > t:
            ctr[X_WAIT_ANY] += u - t
            # the counter that holds the wave longest gets the wait
            wa = 3 * wu + (np.uint64(0) if uv == u else
                           (np.uint64(1) if ul == u else np.uint64(2)))
            L.wacc[wa] += u - t
            SS[sri] = u
            return REFUSED_WAIT, u, np.int64(0), INF
    # the category's port and unit (as _replay: VMEM and export/GDS rows are not local)
    ok = (used >> cat) & 1 == 0
    if ok:
        if cat == C.CAT_VALU:
            ok = SS[so + U2] <= t
        elif cat == C.CAT_LDS:
            ok = nmem < 2 and L.lds_free[cuu] <= t
    if not ok:
        if (used >> cat) & 1 == 0 and nmem < 2:
            uf = SS[so + U2] if cat == C.CAT_VALU else L.lds_free[cuu]
            rv = _unit_sleep(WV, wq, SS, sri, uf, t, nsimd)
            return REFUSED_WAIT, rv, rv - t, INF
        return REFUSED_PORT, np.int64(0), np.int64(0), INF     # its SIMD's next turn
    nxt = p + 1
    done = np.int64(0)
    if info & INFO_LDS:
        P = L.P
        rec = streams[p + 1]       # passes | conflict-free passes << 16
        nxt = p + 2
        passes = rec & 0xFFFF
        extra = (passes - (rec >> 16)) * P[P_LDS_PASS]
        L.lds_free[cuu] = t + max(P[P_LDS_MIN], passes * P[P_LDS_PASS])
        ctr[X_LDS_CONFLICT] += extra
        cost += extra      # the wave waits for its replays
        done = t + P[P_LDS_LAT] + extra
        _push(L.lq, L.ln, L.qrow[wu], done, t)
        ctr[X_ACT_LDS] += cost
    elif cat == C.CAT_VALU:
        SS[so + U2] = t + cost
    WV[wq + U2] = nxt
    _prefetch(streams, nxt + PREFETCH)     # (see _advance_plain)
    nr = streams[np.uint64(nxt)]          # (nxt < the stream's end: see _fast_run)
    c = (rinfo[np.uint64(nr)] >> INFO_CAT_SHIFT) & INFO_CAT_MASK
    if nr != row + 1:
        c |= IC.PEND_JUMP
    SS[nxi] = _next_word(nr, c)
    busy = cost
    if cat == C.CAT_BRANCH and nr != row + 1:
        busy = info >> INFO_TAKEN_SHIFT
    _book_waits(pcc, WV, wq, L.wacc, wu, ru)
    _account(pcc, WV, wq, row, t, busy)
    if info & INFO_VW:
        _dep_write(WV, wq, rsg, row, t + vslat)
    SS[sri] = t + busy
    release = INF
    if info & INFO_BAR:
        g = L.wgrp[wu]
        L.status[wu] = 2
        L.barr_ready[wu] = t + busy
        SS[sri] = INF
        L.garr[g] += 1
        if L.garr[g] >= L.glive[g]:
            _release(g, L.group_first, L.status, L.barr_ready, t + busy, L.garr, ctr, WV, SS,
                     L.wloc)
            release = t + busy
    return t + busy, cost, done, release


# --- the scheduler -------------------------------------------------------------------------------
@njit(_nrt=False)
def _waitcnt_until(q, n, w, limit, t):
    """Earliest time >= t at which at most ``limit`` of wave w's outstanding operations in
    queue q (n[w] entries) are still in flight; drops those done by then. Allocates nothing
    (the model's helpers run without reference counting) and keeps the queue's order."""
    k = n[w]
    if limit < 0 or k <= limit:
        return t
    if limit == 0:
        # (s_waitcnt ...(0), the common case: all of them, the latest)
        until = t
        for i in range(k):
            until = max(until, q[w, i])
        n[w] = 0
        return until
    # the (k - limit)-th earliest completion: the entry with that many entries before it in
    # sorted order (k <= Q, so counting is cheap)
    rank = k - limit - 1
    nth = q[w, 0]
    for i in range(k):
        v = q[w, i]
        less = 0
        same = 0
        for j in range(k):
            less += q[w, j] < v
            same += q[w, j] == v
        if less <= rank < less + same:
            nth = v
            break
    until = max(t, nth)
    m = 0
    for i in range(k):
        if q[w, i] > until:
            q[w, m] = q[w, i]
            m += 1
    n[w] = m
    return until


@njit(inline="always")
def _waitcnt(q, n, w, limit, t):
    """_waitcnt_until with its common case inline: nothing to wait for (no limit, or no more
    than ``limit`` outstanding) returns t without the call (whose arrays numba passes field by
    field)."""
    if limit < 0 or n[w] <= limit:
        return t
    return _waitcnt_until(q, n, w, limit, t)


@njit(inline="always")
def _push(q, n, w, done, t):
    """Remember an outstanding operation finishing at ``done``: _push_full with its common
    case inline (room in the queue: appended, without the call, whose arrays numba passes
    field by field)."""
    k = n[w]
    if k < Q:
        q[w, k] = done
        n[w] = k + 1
    else:
        _push_full(q, n, w, done, t)


@njit(_nrt=False)
def _push_full(q, n, w, done, t):
    """Remember an outstanding operation finishing at ``done`` (drops finished ones first)."""
    k = n[w]
    if k >= Q:
        m = 0
        for i in range(k):
            if q[w, i] > t:
                q[w, m] = q[w, i]
                m += 1
        k = m
        if k >= Q:
            # still Q in flight: forget the earliest (a later s_waitcnt no longer waits for
            # it). The hardware's counters hold at most 15 (vmcnt, lgkmcnt) and 7 (expcnt)
            # outstanding operations, so real code waits long before Q = 32.
            j = 0
            for i in range(k):
                if q[w, i] < q[w, j]:
                    j = i
            q[w, j] = q[w, k - 1]
            k -= 1
    q[w, k] = done
    n[w] = k + 1


@njit
def simulate(streams, wbeg, wend, group_first, ncu, nsimd, wps, gpc,
             rcat, rflags, rcost, rtaken, rwait, rsg2, P, wave_out, wave_cu, ctr, pcc,
             l1tags, l1stamps, l2tags, l2stamps, l2dirty, ktags, kstamps, lru, esram, ic,
             period_entry=0, lockstep=False, solo=True, period=True, period_stats=None):
    """Run the model; fills wave_out[w] = (start, end), wave_cu[w], the counters and the
    per-row cycle table pcc (rows x NPC, flat; see PC_COLUMNS); returns the cycles. The
    caches' tags, LRU stamps and dirty bits (gcnemu/timing/caches.py) are the GPU's, kept
    from one dispatch to the next, as is ``lru[0]``, the LRU clock; all their data has
    arrived when a dispatch starts. ``rsg2``: int64 [rows, 2], the scalar registers a row
    writes (VALU) or reads (scalar), see costs.scalar_masks. ``esram``: the line ranges [first, end) of the GPU's
    ESRAM buffers, flat and in address order. ``ic``: the I$s and the rows' fetch blocks
    (gcnemu/timing/icache.py), updated. ``lockstep``: the plainest replay, for tests: no
    _fast_run, and every CU yields after each scan, so the scans run in (cycle, CU) order;
    the results are the same bits. ``solo``: _fast_run lets a wave that is alone on its SIMD
    run ahead (_solo_run); False only for tests (the same bits). ``period_entry``: the address
    of _period_run's compiled entry (period_entry(); 0: none), with which _fast_run books the
    repeats of a SIMD's issue pattern at once; ``period``: False turns that off, for tests
    and measurements (the same bits), as is ``period_stats``, an int64 array of 4 that gets
    _period_run's _Period.stats added."""
    nw = wbeg.shape[0]
    ng = group_first.shape[0] - 1
    if not 0 < wps <= 64:
        raise ValueError("timing model: waves per SIMD must be 1 to 64 (a scan's slot mask)")
    # per wave (WV interleaves them for _fast_run, see WV_*): position in its stream, ...
    WV = np.zeros(WVS * nw, np.int64)
    ptr = WV[WV_POS::WVS]
    for i in range(nw):     # (loops, not slice assignments: see split_trace)
        ptr[i] = wbeg[i]
    for i in range(nw):
        WV[WV_END + i * WVS] = wend[i]
    since = WV[WV_SINCE::WVS]
    # s_waitcnt stall cycles of a wave's next row (vmcnt, lgkmcnt, expcnt)
    wacc = np.zeros(3 * nw, np.int64)
    # each wave's first next-row word (_launch puts it in its slot)
    wnx0 = np.zeros(nw, np.int64)
    for w in range(nw):
        if wbeg[w] < wend[w]:
            r0 = streams[wbeg[w]]
            wnx0[w] = _next_word(r0, rcat[r0] | IC.PEND_JUMP)    # (a wave starts by fetching)
    status = np.zeros(nw, np.int64)       # 0 pending, 1 active, 2 at barrier, 3 done
    wsimd = np.zeros(nw, np.int64)
    wgrp = np.zeros(nw, np.int64)
    barr_ready = np.zeros(nw, np.int64)   # when a wave at a barrier would have been ready
    # outstanding memory operations per resident wave (rows handed out at launch)
    nq = ncu * nsimd * wps
    vq = np.zeros((nq, Q), np.int64)
    vn = np.zeros(nq, np.int64)
    lq = np.zeros((nq, Q), np.int64)
    ln = np.zeros(nq, np.int64)
    eq = np.zeros((nq, Q), np.int64)
    en = np.zeros(nq, np.int64)
    qrow = np.zeros(nw, np.int64)
    qfree = np.arange(nq)[::-1].copy()
    qtop = np.full(1, nq, np.int64)
    for g in range(ng):
        for w in range(group_first[g], group_first[g + 1]):
            wgrp[w] = g
    # per group
    glive = np.zeros(ng, np.int64)
    garr = np.zeros(ng, np.int64)
    # workgroups launch in order, each on a CU with room for it (gnext[0]: the next one)
    gnext = np.zeros(1, np.int64)
    lpick = np.empty(64, np.int64)     # _launch's scratch
    lload = np.empty(nsimd, np.int64)
    cu_ngroups = np.zeros(ncu, np.int64)
    cu_rr = np.zeros(ncu, np.int64)
    cu_resident = np.zeros(ncu, np.int64)
    cu_busy_since = np.zeros(ncu, np.int64)
    # per SIMD (SS interleaves them for _fast_run): the earliest cycle at which one of its
    # waves may issue (SIMDs with nothing to do are not scanned; lowered by launches and
    # barrier releases), resident waves, cycle its VALU is free, the waves oldest first
    sstride = np.uint64(3 + 3 * wps)
    SSflat = np.zeros(ncu * nsimd * (3 + 3 * wps), np.int64)
    SS = SSflat.reshape((ncu * nsimd, 3 + 3 * wps))
    SS[:, 3:] = -1
    wake = SS[:, 0]
    nslot = SS[:, 1]
    valu_free = SS[:, 2]
    slots = SS[:, 3:3 + wps]
    # the cycle at which each slot's wave may issue (waves at a barrier: INF; see _fast_run
    # on why it lives here), and where in SSflat each resident wave's lies
    sready = SS[:, 3 + wps:3 + 2 * wps]
    snext = SS[:, 3 + 2 * wps:]          # each slot's next-row word
    wloc = np.zeros(nw, np.int64)
    wpsu = np.uint64(wps)
    ta_free = np.zeros(ncu, np.int64)
    lds_free = np.zeros(ncu, np.int64)
    exp_free = np.zeros(ncu, np.int64)
    # caches (the GPU's; when each line's data arrives is the dispatch's)
    l1_ways = P[P_L1_WAYS]
    l1_sets = P[P_L1_SETS]
    l2rdy = np.zeros(l2tags.shape[0], np.int64)
    l1rdy = np.zeros(l1tags.shape[0], np.int64)
    # 1 + the wave whose EVICT-policy access filled each L1 entry (0: none), and whether a
    # wave filled any (caches-and-coherency: HIT_EVICT and MISS_EVICT: "the current wave's
    # data is invalidated in the cache when the wave is done")
    l1own = np.zeros(l1tags.shape[0], np.int64)
    wown = np.zeros(nw, np.int64)
    krdy = np.zeros(ktags.shape[0], np.int64)
    dram = np.zeros(MEM_RANGES + esram.shape[0], np.int64)
    for i in range(len(esram)):
        dram[MEM_RANGES + i] = esram[i]
    clock = lru[0]
    last_mem = np.int64(0)
    done_waves = 0
    resident_total = 0
    busy_since = np.int64(0)
    t = np.int64(0)
    # at time 0 the CUs take workgroups in turn (round robin) until none fits
    placed = True
    while placed:
        placed = False
        for cu in range(ncu):
            fin, n = _launch(cu, t, np.int64(1), gnext, ng, cu_ngroups, cu_rr, group_first, nsimd, wps, gpc,
                             slots, nslot, status, since, wsimd, glive, wbeg, wend, wave_out,
                             wave_cu, qrow, qfree, qtop, vn, ln, en, P, lpick, lload, SS, wnx0,
                             wloc)
            done_waves += fin
            if n > 0:
                placed = True
    for cu in range(ncu):
        k = 0
        for s in range(nsimd):
            k += nslot[cu * nsimd + s]
        if k > 0:
            cu_resident[cu] = k
            resident_total += k
    # hot counters kept in locals (stored in ctr at the end)
    a_wait = np.int64(0)
    a_any = np.int64(0)
    a_valu = np.int64(0)
    a_sca = np.int64(0)
    a_misc = np.int64(0)
    # each CU's own clock (see SHARED_FLAGS): the cycle of its next scan, as the key
    # (cycle << cb) | CU (INF: none), so that (cycle, CU) order is one integer comparison
    cb = np.int64(1)
    while (1 << cb) < ncu:
        cb += 1
    ckey = np.arange(ncu).astype(np.int64)
    # a scan paused before a shared access resumes there (see RS_*)
    RS = np.zeros(ncu * RSS, np.int64)
    for c in range(ncu):
        RS[c * RSS + RS_SI] = -1
    acc = np.zeros(6, np.int64)             # _fast_run's counters and last memory completion
    fr_skip = np.zeros(ncu, np.int64)       # scans left before _fast_run is tried again
    fr_back = np.full(ncu, FAST_RUN_BACKOFF, np.int64)
    rinfo = _row_info(rcat, rflags, rcost, rtaken, ic)
    rsg = rsg2.ravel()
    vslat = P[P_VS_LAT]
    # (typed: a literal 0 for either made numba compile _replay twice, ~9 s)
    done_waves = np.int64(done_waves)
    resident_total = np.int64(resident_total)
    per = _period_frame(period_entry if period else 0, ncu * nsimd, nsimd, wps, vslat, SSflat,
                        WV, streams, rinfo, pcc, rsg, ic, ctr, vn, en, ln, qrow, rwait, wacc,
                        acc)
    # waves park (see PARKED) unless the period replay may run (its runs read the waves'
    # ready cycles) or a row is an export/GDS access
    park = per[PF_ENTRY] == 0
    for r in range(rcat.shape[0]):
        if rcat[r] == C.CAT_EXPGDS:
            park = False
    L = _Local(lds_free, qrow, vq, vn, eq, en, lq, ln, rwait, wacc, P, wgrp, status, barr_ready,
               garr, glive, group_first, wloc, gnext, solo,
               np.int64(per.ctypes.data) if per[PF_ENTRY] != 0 else np.int64(0),
               np.zeros(ncu * nsimd, np.int64), park)
    cycles = _replay(done_waves, nw, ncu, cb, lockstep, ckey, nsimd, SSflat, sstride, wake, fr_skip,
                     a_wait, a_any, a_valu, a_sca, a_misc, RS, nslot, slots, wpsu, rflags, ptr,
                     rcat, rcost, streams, pcc, wacc, WV, ng, gnext, cu_ngroups, cu_rr, group_first,
                     wps, gpc, status, since, wsimd, glive, wbeg, wend, wave_out, wave_cu, qrow,
                     qfree, qtop, vn, ln, en, P, lpick, lload, SS, wnx0, wloc, cu_resident,
                     resident_total, acc, rinfo, rsg, vslat, ic, ctr, vq, eq, lq, ta_free, last_mem,
                     rtaken, wgrp, barr_ready, garr, busy_since, fr_back, clock, l2tags, l2stamps,
                     l2dirty, l2rdy, dram, valu_free, rwait, wown, l1_ways, lds_free, sready, snext,
                     cu_busy_since, exp_free, l1tags, l1stamps, l1own, l1_sets, l1rdy, ktags,
                 kstamps, krdy, lru, L)
    if period_stats is not None:
        for i in range(4):
            period_stats[i] += per[PF_STATS + i]
    # (a use of the frame after _replay: _Local holds only its address, and numba frees an
    # array after its last use)
    per[PF_ENTRY] = 0
    return cycles


@njit(_nrt=False)
def _replay(done_waves, nw, ncu, cb, lockstep, ckey, nsimd, SSflat, sstride, wake, fr_skip,
            a_wait, a_any, a_valu, a_sca, a_misc, RS, nslot, slots, wpsu, rflags, ptr, rcat,
            rcost, streams, pcc, wacc, WV, ng, gnext, cu_ngroups, cu_rr, group_first, wps, gpc,
            status, since, wsimd, glive, wbeg, wend, wave_out, wave_cu, qrow, qfree, qtop, vn, ln,
            en, P, lpick, lload, SS, wnx0, wloc, cu_resident, resident_total, acc, rinfo, rsg,
            vslat, ic, ctr, vq, eq, lq, ta_free, last_mem, rtaken, wgrp, barr_ready, garr,
            busy_since, fr_back, clock, l2tags, l2stamps, l2dirty, l2rdy, dram, valu_free, rwait,
            wown, l1_ways, lds_free, sready, snext, cu_busy_since, exp_free, l1tags, l1stamps,
            l1own, l1_sets, l1rdy, ktags, kstamps, krdy, lru, L):
    """simulate's replay loop, over the tables simulate allocated (see there): without
    numba's reference counting (a function that allocates keeps a count for every array
    view it passes around; in this loop its atomic increments and decrements took about a
    quarter of the time). Returns the cycles, or -1 if no wave can ever issue."""
    while done_waves < nw:
        # the CU furthest behind runs; it may touch shared state while it stays before the
        # next one (ties: the lower CU first, as in a replay that visits the CUs in order)
        # (the two smallest keys without a branch per CU)
        k1 = INF
        k2 = INF
        for c in range(ncu):
            x = ckey[c]
            k2 = min(k2, max(k1, x))
            k1 = min(k1, x)
        if k1 >= INF:
            return -1    # nothing can ever issue (cannot happen for traces of real runs)
        cu = k1 & ((np.int64(1) << cb) - 1)
        t = k1 >> cb
        # unsigned copies for indexing: numba adds a negative-index fix-up to every access
        # with a signed index, and in the scan loop the extra registers spill
        cuu = np.uint64(cu)
        rsi = cuu * np.uint64(RSS)     # the CU's row of RS
        while True:
            if lockstep:
                pass
            elif RS[rsi] < 0 and fr_skip[cuu] > 0:
                fr_skip[cuu] -= 1
            elif RS[rsi] < 0:
                # scans that need only the fast path run in a small loop of their own
                t0 = t
                acc[0] = a_wait
                acc[1] = a_any
                acc[2] = a_valu
                acc[3] = a_sca
                acc[4] = a_misc
                acc[5] = last_mem
                t = _fast_run(cu, t, nsimd, wps, SSflat, sstride, WV, streams, rinfo, acc,
                              RS, pcc, rsg, vslat, ic, ctr, L)
                a_wait = acc[0]
                a_any = acc[1]
                a_valu = acc[2]
                a_sca = acc[3]
                a_misc = acc[4]
                last_mem = acc[5]
                if t >= INF:
                    ckey[cuu] = INF      # no wave left on the CU (or none can ever issue)
                    break
                if t == t0:
                    # its first scan needed the full path: memory or barriers are frequent
                    # here, and the hand-over costs more than the small loop saves
                    # (see FAST_RUN_BACKOFF)
                    fr_skip[cuu] = fr_back[cuu]
                    fr_back[cuu] = min(2 * fr_back[cuu], FAST_RUN_BACKOFF_MAX)
                else:
                    fr_back[cuu] = FAST_RUN_BACKOFF
            simd = _turn_simd(t, nsimd)
            sid = cu * nsimd + simd
            sidu = np.uint64(sid)
            paused = False
            if wake[sidu] <= t:
                # may this scan touch shared state?
                shared_ok = (t << cb) | cu < k2
                si0 = 0
                used = 0
                nmem = 0
                ended = False
                smin = INF
                floor = INF     # earliest release/launch time this scan caused
                if RS[rsi] >= 0:
                    si0 = RS[rsi]
                    used = RS[rsi + np.uint64(RS_USED)]
                    nmem = RS[rsi + np.uint64(RS_NMEM)]
                    ended = RS[rsi + np.uint64(RS_ENDED)] != 0
                    smin = RS[rsi + np.uint64(RS_SMIN)]
                    floor = RS[rsi + np.uint64(RS_FLOOR)]
                    RS[rsi] = -1
                elif L.parked[sidu] != 0 and lds_free[cuu] <= t:
                    # (a resumed scan woke them at its start)
                    a_wait += _unpark(L.parked, sidu, SSflat, sidu * sstride, U3 + wpsu, WV, t)
                for si in range(si0, nslot[sidu]):
                    sri = sidu * sstride + U3 + wpsu + np.uint64(si)
                    rv = SSflat[sri]
                    if rv > t:       # (waves at a barrier have ready = INF)
                        if rv < smin:
                            smin = rv
                        continue
                    w = slots[sidu, np.uint64(si)]
                    wu = np.uint64(w)
                    wq = wu * np.uint64(WVS)
                    nxi = sri + wpsu
                    nx = SSflat[nxi]
                    cat = nx >> 32
                    if cat != C.CAT_INTERNAL and (used >> cat) & 1:
                        a_wait += nsimd    # its port is taken: its SIMD's next turn
                        smin = t + 1
                        continue
                    row = nx & NEXT_ROW_MASK
                    ru = np.uint64(row)
                    fl = rflags[ru]
                    if (C.CAT_VMEM <= cat <= C.CAT_EXPGDS and fl & NO_EARLY_UNIT == 0
                            and fl & MEM_ROW != 0):
                        # a memory row (fetched, no scalar reads, no s_waitcnt: nothing below
                        # before its unit check can stop it): that check now, from the
                        # SIMD's row alone (the refusals below, word for word)
                        if nmem >= 2:
                            a_wait += nsimd
                            smin = t + 1
                            continue
                        uf = _unit_free(cat, valu_free, ta_free, lds_free, exp_free, sidu, cuu)
                        if uf > t:
                            rv = _unit_sleep(WV, wq, SSflat, sri, uf, t, nsimd)
                            a_wait += rv - t
                            smin = min(smin, rv)
                            continue
                    p = ptr[wu]
                    # --- instruction fetch (gcnemu/timing/icache.py): the row's blocks are not
                    # in the wave's buffer; a fetch that may miss waits for (cycle, CU) order
                    if cat >= IC.PEND_SEQ:
                        a = IC.fetch(ic, cu, row, cat, t, np.bool_(False), ctr, X_IFETCH)
                        if a < 0:
                            if not shared_ok:
                                _pause(RS, cu, si, used, nmem, ended, smin, floor)
                                paused = True
                                break
                            a, clock = _ifetch_ordered(ic, cu, row, cat, t, clock, l2tags, l2stamps,
                                                       l2dirty, l2rdy, P, dram, ctr)
                        cat &= IC.CAT_MASK
                        SSflat[nxi] = _next_word(row, cat)
                        if a > t:
                            _stall(WV, wq, WV_FETCH, SSflat, sri, a, t)
                            smin = min(smin, a)
                            continue
                        if cat != C.CAT_INTERNAL and (used >> cat) & 1:
                            a_wait += nsimd
                            smin = t + 1
                            continue
                    # --- end of instruction fetch ---
                    if fl & C.F_SREAD:
                        dw = _dep_wait(WV, wq, rsg, row, t)
                        if dw > 0:
                            _stall(WV, wq, WV_DEPST, SSflat, sri, dw, t)
                            if dw < smin:
                                smin = dw
                            continue
                    if fl & ~DEP_FLAGS == 0 and p + 1 < wend[wu]:
                        # plain: a VALU, SALU, branch or internal instruction that is not the
                        # wave's last (no memory, s_waitcnt, barrier or end), as in _fast_run
                        cost = rcost[ru]
                        if cat == C.CAT_VALU:
                            if valu_free[sidu] > t:
                                rv = _unit_sleep(WV, wq, SSflat, sri, valu_free[sidu], t, nsimd)
                                a_wait += rv - t
                                smin = min(smin, rv)
                                continue
                            valu_free[sidu] = t + cost
                            a_valu += cost
                        elif cat == C.CAT_SALU:
                            a_sca += cost
                        else:
                            a_misc += cost
                        if cat != C.CAT_INTERNAL:
                            used |= 1 << cat
                        a_any += cost
                        rv = _advance_plain(WV, wq, SSflat, nxi, streams, rinfo, t, cat, cost, p,
                                            row, rinfo[ru], pcc, rsg, vslat, ic)
                        SSflat[sri] = rv
                        smin = min(smin, rv)
                        continue
                    cat = rcat[ru]
                    if fl & C.F_WAITCNT:
                        q = qrow[wu]
                        uv = _waitcnt(vq, vn, q, rwait[ru, 0], t)
                        ue = _waitcnt(eq, en, q, rwait[ru, 1], t)
                        ul = _waitcnt(lq, ln, q, rwait[ru, 2], t)
                        u = max(uv, ue, ul)
                        if u > t:
                            ctr[X_WAIT_ANY] += u - t
                            # the counter that holds the wave longest gets the wait
                            wa = 3 * wu + (np.uint64(0) if uv == u else
                                           (np.uint64(1) if ul == u else np.uint64(2)))
                            wacc[wa] += u - t
                            SSflat[sri] = u
                            if u < smin:
                                smin = u
                            continue
                    # the category's port and unit
                    ok = (used >> cat) & 1 == 0
                    if ok:
                        if cat == C.CAT_VALU:
                            ok = valu_free[sidu] <= t
                        elif cat == C.CAT_VMEM:
                            ok = nmem < 2 and ta_free[cuu] <= t
                        elif cat == C.CAT_LDS:
                            ok = nmem < 2 and lds_free[cuu] <= t
                        elif cat == C.CAT_EXPGDS:
                            ok = nmem < 2 and exp_free[cuu] <= t
                    if not ok:
                        if (used >> cat) & 1 == 0 and nmem < 2:
                            # its unit is busy: asleep until its SIMD's first turn after the
                            # unit frees (see _unit_turns)
                            uf = _unit_free(cat, valu_free, ta_free, lds_free, exp_free, sidu,
                                            cuu)
                            rv = _unit_sleep(WV, wq, SSflat, sri, uf, t, nsimd)
                            a_wait += rv - t
                            smin = min(smin, rv)
                            continue
                        a_wait += nsimd    # the port is taken: its SIMD's next turn
                        smin = t + 1
                        continue
                    if not shared_ok and (fl & SHARED_FLAGS or p + 2 >= wend[wu]):
                        # a memory access through shared caches, or (perhaps) the wave's end:
                        # wait until no other CU is behind this scan
                        _pause(RS, cu, si, used, nmem, ended, smin, floor)
                        paused = True
                        break
                    # issue
                    if cat != C.CAT_INTERNAL:
                        used |= 1 << cat
                    cost = rcost[ru]
                    if fl & C.F_LONG:
                        cost += P[P_LONG]
                    nxt = p + 1
                    if fl & C.F_VMEM:
                        nmem += 1
                        if fl & C.F_MIMG:
                            # the texture rate (cu-whitepaper: "The peak rate of texture reads
                            # is 16 clock cycles per wave"), the lines through the caches as a
                            # buffer's; a sample's footprint is not traced: an L1 hit
                            nl = streams[p + 1]
                            nxt = p + 2 + nl
                            ta_time = max(P[P_IMAGE], (nl * 64 + P[P_TA_BYTES] - 1) // P[P_TA_BYTES])
                            done = t + (max(P[P_L1_LAT], ta_time) if fl & C.F_UNTRACED else ta_time)
                        else:
                            nl = streams[p + 1]
                            nxt = p + 2 + nl
                            ta_time = max(4, (nl * 64 + P[P_TA_BYTES] - 1) // P[P_TA_BYTES])
                            done = t + ta_time
                        # the EVICT policies (SLC): the lines this access fills belong to the
                        # wave, and its end invalidates them (_drop_owned); LRU fills: nobody's
                        own = np.int64(0)
                        if fl & C.F_SLC and not fl & C.F_ATOMIC:
                            own = w + 1
                            wown[wu] = 1
                        for j in range(nl):
                            line = streams[p + 2 + j]
                            clock += 1
                            # the texture addresser takes the lines one after the other
                            tj = t + (j * 64) // P[P_TA_BYTES]
                            ctr[X_TCP_ACC] += 1
                            b = (cu * l1_sets + line % l1_sets) * l1_ways
                            if fl & C.F_ATOMIC:
                                # performed in the L2; L1 policy MISS_EVICT (the seed: "atomics
                                # support only the MISS_EVICT policy")
                                ctr[X_TCP_AT] += 1
                                _cache_drop(l1tags, l1stamps, b, l1_ways, line)
                                lt = _l2_access(l2tags, l2stamps, l2dirty, l2rdy, P, line, clock, tj,
                                                dram, np.int64(L2_ATOMIC), ctr)
                            elif fl & C.F_STORE:
                                # write-through to the write-back L2; L1 policy MISS_LRU (the
                                # driver's default: the line stays for later reads) or, with
                                # SLC, MISS_EVICT (it stays until the wave ends)
                                ctr[X_TCP_WR] += 1
                                _h, i1, _e = _cache_access(l1tags, l1stamps, b, l1_ways, line,
                                                           clock)
                                l1rdy[i1] = tj
                                l1own[i1] = own
                                lt = _l2_access(l2tags, l2stamps, l2dirty, l2rdy, P, line, clock, tj,
                                                dram, np.int64(L2_WRITE), ctr)
                            elif fl & C.F_GLC:
                                # MISS_LRU (GLC) or MISS_EVICT (GLC SLC): no hit on what the
                                # L1 holds; the line read is kept (LRU) or kept until the wave
                                # ends (EVICT)
                                ctr[X_TCP_RD] += 1
                                lt = _l2_access(l2tags, l2stamps, l2dirty, l2rdy, P, line, clock, tj,
                                                dram, np.int64(L2_READ), ctr)
                                _h, i1, _e = _cache_access(l1tags, l1stamps, b, l1_ways, line,
                                                           clock)
                                l1rdy[i1] = tj + lt
                                l1own[i1] = own
                            else:
                                # HIT_LRU (the driver's default for reads) or HIT_EVICT (SLC:
                                # what a miss brings in stays until the wave ends)
                                hit, i1, ev = _cache_access(l1tags, l1stamps, b, l1_ways, line, clock)
                                if hit:
                                    ctr[X_TCP_HIT] += 1
                                    lt = max(P[P_L1_LAT], l1rdy[i1] - tj)
                                else:
                                    ctr[X_TCP_RD] += 1
                                    lt = _l2_access(l2tags, l2stamps, l2dirty, l2rdy, P, line, clock, tj,
                                                    dram, np.int64(L2_READ), ctr)
                                    l1rdy[i1] = tj + lt
                                    l1own[i1] = own
                            if tj + lt > done:
                                done = tj + lt
                        ta_free[cuu] = t + ta_time
                        # vmcnt returns in order
                        q = qrow[wu]
                        if vn[q] > 0:
                            done = max(done, vq[q, vn[q] - 1])
                        _push(vq, vn, q, done, t)
                        if fl & C.F_FLAT:
                            _push(lq, ln, qrow[wu], done, t)
                        if done > last_mem:
                            last_mem = done
                        ctr[X_ACT_VMEM] += cost
                    elif fl & C.F_LDS:
                        nmem += 1
                        rec = streams[p + 1]       # passes | conflict-free passes << 16
                        nxt = p + 2
                        passes = rec & 0xFFFF
                        extra = (passes - (rec >> 16)) * P[P_LDS_PASS]
                        lds_free[cuu] = t + max(P[P_LDS_MIN], passes * P[P_LDS_PASS])
                        ctr[X_LDS_CONFLICT] += extra
                        cost += extra      # the wave waits for its replays
                        done = t + P[P_LDS_LAT] + extra
                        _push(lq, ln, qrow[wu], done, t)
                        last_mem = max(last_mem, done)
                        ctr[X_ACT_LDS] += cost
                    elif fl & C.F_GDS:
                        nmem += 1
                        nxt = p + 2
                        exp_free[cuu] = t + cost
                        _push(lq, ln, qrow[wu], t + P[P_GDS_LAT], t)
                        last_mem = max(last_mem, t + P[P_GDS_LAT])
                        ctr[X_ACT_EXP] += cost
                    elif fl & C.F_EXP:
                        nmem += 1
                        exp_free[cuu] = t + cost
                        _push(eq, en, qrow[wu], t + P[P_EXP_LAT], t)
                        last_mem = max(last_mem, t + P[P_EXP_LAT])
                        ctr[X_ACT_EXP] += cost
                    elif fl & C.F_SMEM:
                        lat = P[P_K_LAT]
                        nl = 0
                        if not fl & C.F_NOREC:      # s_memtime has no address record
                            nl = streams[p + 1]
                            nxt = p + 2 + nl
                        kb = (cu // P[P_K_CUS]) * P[P_K_SETS]
                        for j in range(nl):
                            line = streams[p + 2 + j]
                            clock += 1
                            hit, ik, ev = _cache_access(ktags, kstamps, (kb + line % P[P_K_SETS]) * P[P_K_WAYS],
                                                        P[P_K_WAYS], line, clock)
                            if hit:
                                ctr[X_K_HIT] += 1
                                lt = max(P[P_K_LAT], krdy[ik] - t)
                            else:
                                ctr[X_K_MISS] += 1
                                lt = P[P_K_LAT] + _l2_access(l2tags, l2stamps, l2dirty, l2rdy, P, line,
                                                             clock, t, dram, np.int64(L2_READ), ctr)
                                krdy[ik] = t + lt
                            if lt > lat:
                                lat = lt
                        done = t + lat
                        _push(lq, ln, qrow[wu], done, t)
                        if done > last_mem:
                            last_mem = done
                        ctr[X_ACT_SCA] += cost
                    elif cat == C.CAT_VALU:
                        valu_free[sidu] = t + cost
                        a_valu += cost
                    elif cat == C.CAT_SALU:
                        a_sca += cost
                    else:
                        a_misc += cost
                    if fl & C.F_ICINV:
                        # s_icache_inv: the group's waves miss on their next fetches
                        IC.invalidate(ic, cu)
                    a_any += cost
                    ptr[wu] = nxt
                    _prefetch(streams, nxt + PREFETCH)     # (see _advance_plain)
                    if nxt < wend[wu]:
                        nr = streams[nxt]
                        SSflat[nxi] = _next_word(nr, rcat[nr] | IC.pending(ic, row, nr))
                    busy = cost
                    if cat == C.CAT_BRANCH and nxt < wend[wu] and streams[nxt] != row + 1:
                        busy = rtaken[ru]
                    _book_waits(pcc, WV, wq, wacc, wu, ru)
                    pr = ru * np.uint64(NPC)
                    if fl & C.F_LONG:
                        # an 8-byte instruction's extra fetch cycles (clrx-gcn-timings)
                        pcc[pr + np.uint64(PC_FETCH)] += P[P_LONG]
                        pcc[pr + U1] -= P[P_LONG]
                    _account(pcc, WV, wq, row, t, busy)
                    if fl & C.F_VSDST:
                        _dep_write(WV, wq, rsg, row, t + vslat)
                    SSflat[sri] = t + busy
                    if t + busy < smin:
                        smin = t + busy
                    if fl & C.F_BARRIER:
                        g = wgrp[wu]
                        status[wu] = 2
                        barr_ready[wu] = t + busy
                        SSflat[sri] = INF
                        garr[g] += 1
                        if garr[g] >= glive[g]:
                            _release(g, group_first, status, barr_ready, t + busy, garr, ctr, WV,
                                     SSflat, wloc)
                            _wake_cu(wake, cu, nsimd, t + busy)
                            floor = min(floor, t + busy)
                    elif fl & C.F_END or nxt >= wend[wu]:
                        status[wu] = 3
                        if wown[wu]:
                            _drop_owned(l1tags, l1stamps, l1own, cu * l1_sets * l1_ways,
                                        l1_sets * l1_ways, w + 1)
                        qfree[qtop[0]] = qrow[wu]      # its outstanding stores are in last_mem
                        qtop[0] += 1
                        wave_out[wu, 1] = t + busy
                        done_waves += 1
                        ended = True
                        g = wgrp[wu]
                        glive[g] -= 1
                        if glive[g] == 0:
                            cu_ngroups[cuu] -= 1
                        elif garr[g] > 0 and garr[g] >= glive[g]:
                            _release(g, group_first, status, barr_ready, t + busy, garr, ctr, WV,
                                     SSflat, wloc)
                            _wake_cu(wake, cu, nsimd, t + busy)
                            floor = min(floor, t + busy)
                if paused:
                    ckey[cuu] = _cu_key(t, cb, cu)
                    break
                if ended:
                    # compact the SIMD's list (and its mask of parked slots), then launch what
                    # now fits on the CU
                    m = 0
                    pk = L.parked[sid]
                    L.parked[sid] = 0
                    for si in range(nslot[sid]):
                        w = slots[sid, si]
                        if status[w] != 3:
                            slots[sid, m] = w
                            sready[sid, m] = sready[sid, si]
                            snext[sid, m] = snext[sid, si]
                            wloc[w] = sid * sstride + 3 + wps + m
                            L.parked[sid] |= ((pk >> si) & 1) << m
                            m += 1
                    nslot[sid] = m
                    fin, _n = _launch(cu, t + 4, ng, gnext, ng, cu_ngroups, cu_rr, group_first, nsimd,
                                      wps, gpc, slots, nslot, status, since, wsimd, glive, wbeg, wend,
                                      wave_out, wave_cu, qrow, qfree, qtop, vn, ln, en, P, lpick,
                                      lload, SS, wnx0, wloc)
                    done_waves += fin
                    after = 0
                    for s in range(nsimd):
                        after += nslot[cu * nsimd + s]
                    # residency accounting for the busy counters
                    old = cu_resident[cu]
                    cu_resident[cu] = after
                    if old > 0 and after == 0:
                        ctr[X_BUSY_CU] += t + 4 - cu_busy_since[cu]
                    elif old == 0 and after > 0:
                        cu_busy_since[cu] = t + 4
                    resident_total += after - old
                    if resident_total == 0:
                        ctr[X_BUSY] += t + 4 - busy_since
                    _wake_cu(wake, cu, nsimd, t + 4)
                    floor = min(floor, t + 4)
                wake[sidu] = _parked_wake(L.parked, sidu, lds_free[cuu], min(smin, floor), simd,
                                          nsimd)
            # the CU's next turn of a SIMD with something to do
            t, _s = _next_turn(SSflat, cuu * np.uint64(nsimd) * sstride, sstride, nsimd, t, simd)
            if t >= INF:
                ckey[cuu] = INF      # no wave left on the CU (or none can ever issue)
                break
            if lockstep:
                ckey[cuu] = _cu_key(t, cb, cu)
                break
    ctr[X_WAIT_INST] += a_wait
    ctr[X_ACT_ANY] += a_any
    ctr[X_ACT_VALU] += a_valu
    ctr[X_ACT_SCA] += a_sca
    ctr[X_ACT_MISC] += a_misc
    end = np.int64(0)
    for w in range(nw):
        if wave_out[w, 1] > end:
            end = wave_out[w, 1]
    cycles = max(end, last_mem)
    for w in range(nw):
        ctr[X_WAVE_CYCLES] += wave_out[w, 1] - wave_out[w, 0]
    ctr[X_CYCLES] = cycles
    ctr[X_WAVES] = nw
    lru[0] = clock
    return cycles


@njit(_nrt=False)
def _ifetch_ordered(ic, cu, row, pend, t, clock, l2tags, l2stamps, l2dirty, l2rdy, P, dram, ctr):
    """A wave's instruction fetch in (cycle, CU) order (gcnemu/timing/icache.py): its I$
    lookups, and each missing line read through the L2 (and DRAM). Returns (the cycle at which
    its blocks have arrived, the LRU clock)."""
    a = IC.fetch(ic, cu, row, pend, t, np.bool_(True), ctr, X_IFETCH)
    for k in range(ic[IC.IC_NMISS]):
        clock += 1
        lat = _l2_access(l2tags, l2stamps, l2dirty, l2rdy, P, ic[IC.IC_MISS + 2 * k + 1], clock,
                         t, dram, np.int64(L2_READ), ctr)
        a = max(a, IC.filled(ic, k, t + lat))
    return a, clock


@njit(_nrt=False)
def _drop_owned(tags, stamps, own, base, n, owner):
    """Invalidate the entries [base, base + n) of an L1 that ``owner`` filled (see l1own):
    a wave with an EVICT policy's lines ends."""
    for i in range(base, base + n):
        if own[i] == owner:
            own[i] = 0
            if tags[i] >= 0:
                tags[i] = -1
                stamps[i] = 0


@njit(_nrt=False)
def _wake_cu(wake, cu, nsimd, at):
    for s in range(cu * nsimd, (cu + 1) * nsimd):
        if at < wake[s]:
            wake[s] = at


@njit(_nrt=False)
def _release(g, group_first, status, barr_ready, at, garr, ctr, WV, SSflat, wloc):
    """Release a workgroup's waves waiting at s_barrier at time ``at`` (their ready cycles
    lie at SSflat[wloc[wave]])."""
    for v in range(group_first[g], group_first[g + 1]):
        if status[v] == 2:
            status[v] = 1
            ctr[X_WAIT_ANY] += max(0, at - barr_ready[v])
            WV[v * WVS + WV_BAR] += max(0, at - barr_ready[v])
            SSflat[wloc[v]] = at
    garr[g] = 0


@njit(_nrt=False)
def _launch(cu, t, limit, gnext, ng, cu_ngroups, cu_rr, group_first, nsimd, wps, gpc, slots,
            nslot, status, since, wsimd, glive, wbeg, wend, wave_out, wave_cu, qrow, qfree, qtop,
            vn, ln, en, P, pick, load, SS, wnx0, wloc):
    """Launch the dispatch's next workgroups (in order, at most ``limit``) on CU ``cu`` while
    they fit: each wave goes to the SIMD with the fewest resident waves (ties: round robin
    from where the CU's previous workgroup started). Returns (waves that ended at once, i.e.
    had empty streams; workgroups launched). A launched wave's ready cycle and next-row word
    (``wnx0``) go to its slot in the SIMD table ``SS`` (see _fast_run); ``wloc``: where its
    ready cycle lies in the flat table."""
    finished = 0
    launched = 0
    while gnext[0] < ng and launched < limit and cu_ngroups[cu] < gpc:
        g = gnext[0]
        n = group_first[g + 1] - group_first[g]
        for s in range(nsimd):
            load[s] = nslot[cu * nsimd + s]
        fits = True
        for k in range(n):
            best = -1
            for j in range(nsimd):
                s = (cu_rr[cu] + k + j) % nsimd
                if load[s] < wps and (best < 0 or load[s] < load[best]):
                    best = s
            if best < 0:
                fits = False
                break
            pick[k % 64] = best
            load[best] += 1
        if not fits:
            break
        for k in range(n):
            w = group_first[g] + k
            s = pick[k % 64]
            sid = cu * nsimd + s
            wsimd[w] = s
            wave_cu[w] = cu
            since[w] = t
            wave_out[w, 0] = t
            if wbeg[w] >= wend[w]:
                status[w] = 3
                wave_out[w, 1] = t
                finished += 1
                continue
            status[w] = 1
            qtop[0] -= 1
            q = qfree[qtop[0]]
            qrow[w] = q
            vn[q] = 0
            ln[q] = 0
            en[q] = 0
            slots[sid, nslot[sid]] = w
            SS[sid, 3 + wps + nslot[sid]] = t + P[P_LAUNCH]
            SS[sid, 3 + 2 * wps + nslot[sid]] = wnx0[w]
            wloc[w] = sid * SS.shape[1] + 3 + wps + nslot[sid]
            nslot[sid] += 1
            glive[g] += 1
        cu_rr[cu] = (cu_rr[cu] + n) % nsimd
        gnext[0] += 1
        launched += 1
        if glive[g] > 0:
            cu_ngroups[cu] += 1
    return finished, launched


# --- the Python entry ------------------------------------------------------------------------
@dataclass
class TimingResult:
    """What the model gives a DispatchReport."""

    cycles: int
    counters: dict
    wave_cycles: np.ndarray     #: int64 [waves, 2]: start and end cycle of each wave
    wave_cu: np.ndarray         #: int64 [waves]: the CU each wave ran on
    pc: np.ndarray              #: int64 [program rows, NPC]: see PC_COLUMNS


def _params(tc, config) -> np.ndarray:
    P = np.zeros(NPARAM, np.int64)
    P[P_L1_LAT] = tc.l1_latency
    P[P_L2_LAT] = tc.l2_latency
    P[P_DRAM_LAT] = tc.dram_latency
    # GB/s at the GPU's clock -> bytes per cycle -> cycles per 64-byte line, in 1/FP cycles
    P[P_DRAM_LINE_FP] = max(1, round(64 * config.clock_mhz * 1e6 / (tc.dram_gbps * 1e9) * FP))
    P[P_ESRAM_LINE_FP] = max(1, round(64 * config.clock_mhz * 1e6 / (tc.esram_gbps * 1e9) * FP))
    P[P_ESRAM_LAT] = tc.esram_latency
    P[P_VS_LAT] = tc.valu_sgpr_latency
    P[P_TA_BYTES] = tc.ta_bytes_per_cycle
    P[P_IMAGE] = tc.image_cycles
    P[P_L1_WAYS] = tc.l1_ways
    P[P_L1_SETS] = tc.l1_bytes // (64 * tc.l1_ways)
    P[P_L2_CH] = tc.l2_channels
    P[P_L2_WAYS] = tc.l2_ways
    P[P_L2_SETS] = tc.l2_channel_bytes // (64 * tc.l2_ways)
    P[P_K_LAT] = tc.kcache_latency
    P[P_K_WAYS] = tc.kcache_ways
    P[P_K_SETS] = tc.kcache_bytes // (64 * tc.kcache_ways)
    P[P_K_CUS] = tc.kcache_cus
    P[P_LDS_LAT] = tc.lds_latency
    P[P_GDS_LAT] = tc.gds_latency
    P[P_EXP_LAT] = tc.export_latency
    P[P_LONG] = tc.long_instruction_cycles
    P[P_LAUNCH] = tc.launch_cycles
    P[P_WRITE_LAT] = tc.write_latency
    P[P_LDS_PASS] = tc.lds_pass_cycles
    P[P_LDS_MIN] = tc.lds_min_cycles
    return P


def esram_lines(buffers) -> np.ndarray:
    """The line ranges [first, end) of ESRAM buffers given as (address, bytes), flat and in
    address order (what simulate's ``esram`` takes)."""
    r = sorted((a >> 6, (a + n + 63) >> 6) for a, n in buffers)
    return np.array([x for pair in r for x in pair], np.int64)


_PARAMS = {}


def _params_for(tc, config) -> np.ndarray:
    """_params, kept per (timing configuration, GPU configuration) (both frozen)."""
    key = (id(tc), id(config))
    hit = _PARAMS.get(key)
    if hit is None or hit[0] is not tc or hit[1] is not config:
        if len(_PARAMS) > 64:
            _PARAMS.clear()
        hit = _PARAMS[key] = (tc, config, _params(tc, config))
    return hit[2]


def _icache_layout(prog, caches, tc, code_base, flags):
    """The program's I$ layout (icache.layout) where ``caches`` sees its code, cached on the
    Program: a dispatch copies it and fills in the GPU's tags (icache.fill)."""
    addr = IC.code_address(caches, prog, code_base)
    key = (addr, caches.i_groups, caches.i_tags.shape[0], tc.icache_bytes, tc.icache_ways,
           tc.icache_fetch_bytes, tc.kcache_cus)
    cache = prog.__dict__.setdefault("_timing_icache", {})
    if key not in cache:
        if len(cache) > 16:
            cache.clear()
        rows = IC.blocks(prog.code[:, C_PC], prog.code[:, C_SIZE], addr, tc.icache_fetch_bytes)
        cache[key] = IC.layout(caches.i_tags.shape[0], caches.i_groups, tc, rows,
                               invalidates=bool((flags & C.F_ICINV).any()))
    return cache[key]


def tables_for(prog, config, tc):
    """The program's per-row timing tables (cached on the Program)."""
    key = (config.dpfactor, tc.default_cycles, tc.long_instruction_cycles)
    cache = prog.__dict__.setdefault("_timing_tables", {})
    if key not in cache:
        cache[key] = C.row_tables(prog, config.dpfactor, tc.default_cycles, tc.long_instruction_cycles)
    return cache[key]


#: handlers of rows whose successors plain_loop cannot tell (indirect jumps, forks, traps)
_UNKNOWN_SUCCESSORS = (H_SETPC, H_SWAPPC, H_RFE, H_CBRANCH_G_FORK, H_CBRANCH_I_FORK,
                       H_CBRANCH_JOIN, H_TRAP)


def plain_loop(prog, flags) -> bool:
    """Whether the program's plain rows (no flag but DEP_FLAGS in ``flags``, tables_for's)
    and s_waitcnt rows hold a loop: a wave may run a cycle of them, the only runs whose
    repeats the period replay (_period_run) can book, as it stops at any other row. True
    also when such a row jumps where the program does not say (s_setpc_b64 and the like).
    Cached on the Program."""
    cache = prog.__dict__.setdefault("_timing_plain_loop", {})
    key = flags.tobytes()
    if key not in cache:
        if len(cache) > 16:
            cache.clear()
        cache[key] = _has_plain_cycle(prog.code[:, C_H], prog.code[:, C_TGT], flags)
    return cache[key]


def _has_plain_cycle(handler, target, flags) -> bool:
    n = len(flags)
    plain = (flags & ~(DEP_FLAGS | C.F_WAITCNT)) == 0
    succ = []
    for r in range(n):
        h = int(handler[r])
        if not plain[r] or h == H_ENDPGM:
            succ.append(())
        elif h in _UNKNOWN_SUCCESSORS:
            return True
        elif h == H_BRANCH:
            succ.append((int(target[r]),))
        elif h == H_CBRANCH:
            succ.append((int(target[r]), r + 1))
        else:
            succ.append((r + 1,))
    # depth-first search for a back edge among plain rows (0: not seen, 1: on the path, 2: done)
    state = [0] * n
    for root in range(n):
        if state[root] or not plain[root]:
            continue
        state[root] = 1
        stack = [(root, 0)]
        while stack:
            r, i = stack[-1]
            if i == len(succ[r]):
                state[r] = 2
                stack.pop()
                continue
            stack[-1] = (r, i + 1)
            q = succ[r][i]
            if not (0 <= q < n and plain[q]) or state[q] == 2:
                continue
            if state[q] == 1:
                return True
            state[q] = 1
            stack.append((q, 0))
    return False


def time_dispatch(prog, traces, streams, config, tc, occ, waves_per_group, caches,
                  esram=(), code_base=0) -> TimingResult:
    """Run the model over a dispatch's traces: ``streams``, a list of arrays that hold the
    waves' streams (one per worker, see split_trace), and ``traces``, one tuple per batch:
    (group id of each wave, index in group, stream start, stream end, index in ``streams``);
    ``caches``: the GPU's (gcnemu.timing.caches.GPUCaches), updated; ``esram``: the (address,
    bytes) of the GPU's ESRAM buffers; ``code_base``: the GPU address of the program's first
    byte (its rows' lines in the I$ and the L2)."""
    # one worker (the common case): its array is the model's, else they are joined; one
    # batch (a small launch): its arrays as they are (np.concatenate copies even one array,
    # and this glue is a third of a small dispatch's time outside simulate)
    if len(traces) == 1 and len(streams) == 1:
        wg, wk, wbeg, wend, _ = traces[0]
        streams = streams[0]
    elif traces:
        bases = [0]
        for st in streams:
            bases.append(bases[-1] + len(st))
        wg = np.concatenate([tr[0] for tr in traces])
        wk = np.concatenate([tr[1] for tr in traces])
        wbeg = np.concatenate([tr[2] + bases[tr[4]] for tr in traces])
        wend = np.concatenate([tr[3] + bases[tr[4]] for tr in traces])
        streams = streams[0] if len(streams) == 1 else np.concatenate(streams)
    else:
        wg = wk = wbeg = wend = streams = np.zeros(0, np.int64)
    # the waves in workgroup order, each group's by index (wk < waves_per_group): the
    # batches mostly come that way already, and a check is ~30x cheaper than the sort
    # (~0.35 ms of saxpy n=2^20's 16384 waves); a stable sort of the key is lexsort's order
    key = wg * waves_per_group + wk
    if key.shape[0] > 1 and not bool(np.all(key[1:] >= key[:-1])):
        order = np.argsort(key, kind="stable")
        wg, wbeg, wend = wg[order], wbeg[order], wend[order]
    group_first = np.zeros(1, np.int64)      # (no wave: no group)
    if len(wg):
        starts = np.flatnonzero(wg[1:] != wg[:-1]) + 1
        group_first = np.concatenate(([0], starts, [len(wg)])).astype(np.int64, copy=False)
    cat, flags, cost, taken, wait, sregs = tables_for(prog, config, tc)
    P = _params_for(tc, config)
    wave_out = np.zeros((len(wg), 2), np.int64)
    wave_cu = np.zeros(len(wg), np.int64)
    ctr = np.zeros(len(COUNTER_NAMES), np.int64)
    pcc = np.zeros(len(cat) * NPC, np.int64)
    c = caches
    ic = IC.fill(_icache_layout(prog, c, tc, code_base, flags).copy(), c.i_tags, c.i_stamps,
                 c.i_base)
    cycles = simulate(streams, wbeg, wend, group_first, config.compute_units,
                      config.simds_per_cu, occ.waves_per_simd, occ.workgroups_per_cu,
                      cat, flags, cost, taken, wait, sregs, P, wave_out, wave_cu, ctr, pcc,
                      c.l1_tags, c.l1_stamps, c.l2_tags, c.l2_stamps, c.l2_dirty, c.k_tags,
                      c.k_stamps, c.lru, esram_lines(esram), ic,
                      period_entry() if plain_loop(prog, flags) else 0, False, True)
    if cycles < 0:
        raise RuntimeError("timing model: no wave can issue (internal error)")
    c.i_base = IC.finish(ic, c.i_tags, c.i_stamps, cycles)
    counters = dict(zip(COUNTER_NAMES, ctr.tolist()))
    return TimingResult(int(cycles), counters, wave_out, wave_cu, pcc.reshape(len(cat), NPC))
