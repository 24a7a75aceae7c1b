"""Timing fidelity: micro-kernels for the defects of issue 16 and the memory system the seeds
describe (caches-and-coherency.txt: the L1 policies, caches that outlive dispatches; the
cu-whitepaper's store/atomic latency and LDS rate; per-dword LDS bank conflicts), the reports
(pc_cycles, stalls, achieved occupancy, time_us), GPU(**overrides) and ESRAM. Every expected
number is derived in the test's comment from the seeds' figures and TimingConfig."""
import numpy as np
import pytest

import gcnemu
from gcnemu.errors import GcnEmuError
from gcnemu.timing import TimingConfig

from test_timing import asm_kernel, warm

ADDR = """
s_load_dwordx2 s[4:5], s[0:1], 0x0
s_waitcnt lgkmcnt(0)
v_mov_b32 v1, s4
v_mov_b32 v2, s5
"""
LANE_ADDR = ADDR + """
v_lshlrev_b32 v3, 2, v0
v_add_i32 v1, vcc, v1, v3
v_addc_u32 v2, vcc, v2, 0, vcc
"""

#: each workgroup of 256 work-items (s2: its id) loads its own 1024 bytes
STREAM = ADDR + """
v_lshlrev_b32 v3, 2, v0
s_lshl_b32 s6, s2, 10
v_add_i32 v3, vcc, s6, v3
v_add_i32 v1, vcc, v1, v3
v_addc_u32 v2, vcc, v2, 0, vcc
flat_load_dword v4, v[1:2]
s_waitcnt vmcnt(0)
s_endpgm
"""


def _row(rep, k, name, nth=0):
    rows = [i for i, ins in enumerate(k.program.instructions) if ins.name == name]
    return rep.pc_cycles[rows[nth]]


# --- LDS ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("op,stride,cost", [
    ("ds_read_b64 v[2:3], v1", 8, 8),          # CLRX: DS_READ_B64 | 8
    ("ds_read_b128 v[2:5], v1", 16, 16),       # CLRX: DS_READ_B128 | 16
    ("ds_read_b64 v[2:3], v1", 0, 8),          # a broadcast: no conflict
    ("ds_read2_b32 v[2:3], v1 offset1:1", 8, 8),   # the same bytes as b64: CLRX 8
])
def test_multi_dword_lds_is_not_counted_twice(tmp_path, op, stride, cost):
    """At its natural stride a multi-dword access fills every bank once per pass: no
    conflict, the wave pays CLRX's cycles (the issue: b64 cost 16, b128 64-80)."""
    k = asm_kernel(tmp_path, "ds", f"v_mul_u32_u24 v1, {stride}, v0\n{op}\ns_endpgm\n")
    rep = gcnemu.GPU(timing=True).dispatch(k, grid=(64,), block=(64,), args=[gcnemu.Local(1024)])
    assert int(_row(rep, k, op.split()[0])["issue"]) == cost
    assert rep.counters["SQ_LDS_BANK_CONFLICT"] == 0


def test_b64_conflict_counts_every_dword(tmp_path):
    """ds_read_b64 at a 16-byte stride: lane l's dwords 4l and 4l+1 use banks 4l mod 32 and
    4l+1 mod 32: a half wave's 64 dwords on 16 banks, 4 each: 4 passes where 2 would do; two
    halves: 4 extra passes x 2 cycles = 8 cycles more (judged on the first dwords alone it
    would be the 2-way conflict of a b32 access at 16 bytes, doubled by the width: 16)."""
    k = asm_kernel(tmp_path, "ds16", "v_lshlrev_b32 v1, 4, v0\nds_read_b64 v[2:3], v1\ns_endpgm\n")
    rep = gcnemu.GPU(timing=True).dispatch(k, grid=(64,), block=(64,), args=[gcnemu.Local(1024)])
    assert rep.counters["SQ_LDS_BANK_CONFLICT"] == 8
    assert int(_row(rep, k, "ds_read_b64")["issue"]) == 8 + 8


def test_lds_unit_sustains_one_b32_write_per_4_clocks(tmp_path):
    """40 waves on one CU, 32 ds_write_b32 each (conflict free): the whitepaper's "4 clock
    cycles per 64 32-bit words" and CLRX's DS_WRITE_B32 throughput 1/4: 40 x 32 x 4 cycles,
    plus the last write's latency and the start."""
    k = asm_kernel(tmp_path, "dsw", "v_lshlrev_b32 v1, 2, v0\n" + "ds_write_b32 v1, v0\n" * 32
                   + "s_endpgm\n")
    rep = warm(gcnemu.GPU(timing=True, num_cus=1), k, grid=(64 * 40,), block=(64,),
               args=[gcnemu.Local(1024)])
    assert 40 * 32 * 4 <= rep.cycles <= 40 * 32 * 4 * 1.03


# --- stores and atomics ----------------------------------------------------------------------
@pytest.mark.parametrize("op,hit,latency", [
    ("flat_store_dword v[1:2], v0", True, 25),      # "about 25 cycles"
    ("flat_store_dword v[1:2], v0", False, 100),    # "100 cycles and more" (L2 miss)
    ("flat_atomic_add v3, v[1:2], v0 glc", True, 25),
    ("flat_atomic_add v3, v[1:2], v0 glc", False, 25 + 100),   # the line is read from DRAM
])
def test_store_and_atomic_latency(tmp_path, op, hit, latency):
    body = ADDR + (op + "\ns_waitcnt vmcnt(0)\n" if hit else "") + op + \
        "\ns_waitcnt vmcnt(0)\ns_endpgm\n"
    k = asm_kernel(tmp_path, "st", body)
    gpu = gcnemu.GPU(timing=True)
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=[gpu.to_device(np.zeros(64, np.uint32))])
    n = 1 if hit else 0
    got = _row(rep, k, op.split()[0], n)["issue"] + _row(rep, k, "s_waitcnt", 1 + n)["vmcnt"]
    assert got == latency


# --- L1 policies -------------------------------------------------------------------------------
def _two(tmp_path, first, second, cus=1):
    gpu = gcnemu.GPU(timing=True, num_cus=cus)
    buf = gpu.to_device(np.zeros(64, np.uint32))
    body = LANE_ADDR + "{}\ns_waitcnt vmcnt(0)\ns_endpgm\n"
    gpu.dispatch(asm_kernel(tmp_path, "a", body.format(first)), grid=(64,), block=(64,), args=[buf])
    return gpu.dispatch(asm_kernel(tmp_path, "b", body.format(second)), grid=(64,), block=(64,),
                        args=[buf])


@pytest.mark.parametrize("first,second,hits", [
    # the driver's defaults: MISS_LRU writes, HIT_LRU reads: "either of these policies allow a
    # read to hit on a previous wave's write" (4 lines of 64 dwords)
    ("flat_store_dword v[1:2], v0", "flat_load_dword v4, v[1:2]", 4),
    # SLC store: MISS_EVICT: "the current wave's data is invalidated in the cache when the
    # wave is done": nothing is left for the following waves
    ("flat_store_dword v[1:2], v0 slc", "flat_load_dword v4, v[1:2]", 0),
    # GLC read: MISS_LRU: "doesn't allow hits on the previous wavefront's data"
    ("flat_load_dword v4, v[1:2]", "flat_load_dword v4, v[1:2] glc", 0),
    # SLC read: HIT_EVICT: hits on what the L1 holds
    ("flat_load_dword v4, v[1:2]", "flat_load_dword v4, v[1:2] slc", 4),
    # after an SLC read that missed (HIT_EVICT: invalidated when its wave is done), a plain
    # read of the next wave misses
    ("flat_load_dword v4, v[1:2] slc", "flat_load_dword v4, v[1:2]", 0),
    ("flat_load_dword v4, v[1:2] glc slc", "flat_load_dword v4, v[1:2]", 0),
    # atomics: MISS_EVICT: they drop the line from the L1
    ("flat_atomic_add v4, v[1:2], v0 glc", "flat_load_dword v4, v[1:2]", 0),
])
def test_l1_policies(tmp_path, first, second, hits):
    assert _two(tmp_path, first, second).counters["TCP_HIT"] == hits


@pytest.mark.parametrize("first,hits,left", [
    # the EVICT policies drop the wave's data "when the wave is done", not before: its own
    # later read of the same 4 lines (64 lanes x 4 bytes) hits, and none is left after it
    ("flat_load_dword v4, v[1:2] slc", 4, 0),          # HIT_EVICT
    ("flat_load_dword v4, v[1:2] glc slc", 4, 0),      # MISS_EVICT read
    ("flat_store_dword v[1:2], v0 slc", 4, 0),         # MISS_EVICT write
    ("flat_load_dword v4, v[1:2]", 4, 4),              # HIT_LRU, for comparison
    # atomics (MISS_EVICT) are performed in the L2: the L1 keeps no copy of their lines, and
    # the plain read after them fills the L1 for the following waves
    ("flat_atomic_add v4, v[1:2], v0 glc", 0, 4),
])
def test_evict_lines_live_until_the_wave_ends(tmp_path, first, hits, left):
    gpu = gcnemu.GPU(timing=True, num_cus=1)
    buf = gpu.to_device(np.zeros(64, np.uint32))
    body = (LANE_ADDR + first + "\ns_waitcnt vmcnt(0)\nflat_load_dword v5, v[1:2]\n"
            "s_waitcnt vmcnt(0)\ns_endpgm\n")
    rep = gpu.dispatch(asm_kernel(tmp_path, "a", body), grid=(64,), block=(64,), args=[buf])
    assert rep.counters["TCP_HIT"] == hits
    # what is left for the next wave: the LRU lines, none of the EVICT ones
    assert gpu.caches.valid_lines("l1") == left


def test_lru_order_within_one_instruction(tmp_path):
    """A 4-way, 1-set L1. Lines 3, 2, 1, 0 are loaded one by one (ways 0-3), then one
    instruction touches 0, 1, 2, 3 (hits, in that order: line 0 is now the least recently
    used), line 4 evicts line 0, and line 0 misses again: 4 hits. (With one LRU stamp per
    instruction, line 4 would evict way 0, line 3, and line 0 would hit: 5.)"""
    one = "v_mov_b32 v3, {}\nv_add_i32 v5, vcc, v1, v3\nv_addc_u32 v6, vcc, v2, 0, vcc\n" \
          "flat_load_dword v4, v[5:6]\n"
    body = ADDR + "".join(one.format(64 * i) for i in (3, 2, 1, 0)) + \
        "v_and_b32 v3, 3, v0\nv_lshlrev_b32 v3, 6, v3\nv_add_i32 v5, vcc, v1, v3\n" \
        "v_addc_u32 v6, vcc, v2, 0, vcc\nflat_load_dword v4, v[5:6]\n" + \
        one.format(64 * 4) + one.format(0) + "s_waitcnt vmcnt(0)\ns_endpgm\n"
    gpu = gcnemu.GPU(timing=True, timing_config=TimingConfig(l1_bytes=256, l1_ways=4))
    buf = gpu.to_device(np.zeros(128, np.uint32))
    assert buf.address % 256 == 0
    rep = gpu.dispatch(asm_kernel(tmp_path, "lru", body), grid=(64,), block=(64,), args=[buf])
    assert rep.counters["TCP_HIT"] == 4 and rep.counters["TCP_TOTAL_CACHE_ACCESSES"] == 10


# --- caches across dispatches -------------------------------------------------------------------
def test_caches_outlive_dispatches_until_invalidated(tmp_path):
    gpu = gcnemu.GPU(timing=True, num_cus=1)
    buf = gpu.to_device(np.zeros(64, np.uint32))
    k = asm_kernel(tmp_path, "rd", LANE_ADDR + "flat_load_dword v4, v[1:2]\ns_waitcnt vmcnt(0)\n"
                   "s_endpgm\n")
    run = lambda: gpu.dispatch(k, grid=(64,), block=(64,), args=[buf])  # noqa: E731
    cold = run()
    assert cold.counters["TCP_HIT"] == 0 and cold.counters["TCC_HIT"] == 0
    warm = run()          # the L1 still holds the 4 lines, the K$ the kernel argument
    assert warm.counters["TCP_HIT"] == 4 and warm.counters["SQC_DCACHE_HITS"] == 1
    assert warm.cycles < cold.cycles
    assert gpu.caches.valid_lines("l1") == 4 and gpu.caches.holds("l2", buf.address)
    assert gpu.caches.invalidate("l1") == 0 and gpu.caches.valid_lines("l1") == 0
    l2 = run()            # L1 misses, L2 hits
    assert l2.counters["TCP_HIT"] == 0 and l2.counters["TCC_HIT"] == 4
    gpu.caches.flush("all")
    again = run()
    assert again.cycles == cold.cycles and again.counters == cold.counters


def test_l2_flush_writes_back_dirty_lines(tmp_path):
    gpu = gcnemu.GPU(timing=True)
    buf = gpu.to_device(np.zeros(64, np.uint32))
    k = asm_kernel(tmp_path, "wr", LANE_ADDR + "flat_store_dword v[1:2], v0\ns_endpgm\n")
    gpu.dispatch(k, grid=(64,), block=(64,), args=[buf])
    assert gpu.caches.dirty_lines() == 4
    assert gpu.caches.writeback("l2") == 4 and gpu.caches.dirty_lines() == 0
    assert gpu.caches.holds("l2", buf.address)          # written back, still valid
    gpu.dispatch(k, grid=(64,), block=(64,), args=[buf])
    assert gpu.caches.invalidate("l2") == 4 and gpu.caches.valid_lines("l2") == 0
    with pytest.raises(GcnEmuError, match="unknown cache level 'l3'.*l1, l2, k"):
        gpu.caches.invalidate("l3")
    with pytest.raises(GcnEmuError, match="timing mode only"):
        gcnemu.GPU().caches
    gpu.timing_config = TimingConfig(l1_bytes=8192)
    with pytest.raises(GcnEmuError, match="caches were made for another configuration"):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[buf])


# --- reports -------------------------------------------------------------------------------------
def test_pc_cycles_split_a_wave_exactly(tmp_path):
    """One wave: s_load (K$ + L2 + DRAM miss: 170 cycles), s_waitcnt waits lgkmcnt from 4 to
    170; v_rsq (16) then v_add: the VALU is busy until 16+... see the booking below."""
    body = "s_load_dword s4, s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\nv_rsq_f32 v1, v0\n" \
           "v_add_f32 v2, v1, v1\ns_endpgm\n"
    k = asm_kernel(tmp_path, "pcs", body)
    gpu = gcnemu.GPU(timing=True)
    rep = warm(gpu, k, grid=(64,), block=(64,), args=[gpu.to_device(np.zeros(4, np.uint32))])
    pc = rep.pc_cycles
    assert pc["pc"].tolist() == [ins.offset for ins in k.program.instructions]
    assert pc["count"].tolist() == [1] * 5
    # s_load issues at 0 (4 cycles); s_waitcnt ready at 4, waits until 170 (lgkmcnt), issues
    # at SIMD 0's turn 172 (2 cycles not its turn: arbiter); v_rsq at 176 (16 cycles), v_add
    # at 192, s_endpgm at 196, done 200
    w = _row(rep, k, "s_waitcnt")
    assert (w["lgkmcnt"], w["arbiter"]) == (166, 2)
    assert _row(rep, k, "v_rsq_f32")["issue"] == 16
    assert rep.cycles == 200 and pc["issue"].sum() + sum(rep.stalls.values()) == 200
    assert rep.time_us == pytest.approx(200 / 853)
    # 1 wave on 48 SIMDs for the whole dispatch
    assert rep.achieved_occupancy == pytest.approx(1 / 48)


def test_barrier_and_unit_stalls(tmp_path):
    """Two waves of one workgroup on SIMDs 0 and 1: wave 0 reaches s_barrier at 4 (ready
    again at 8), wave 1 at 5 (9): wave 0 waits 1 cycle, booked as 'barrier' on the
    instruction after s_barrier. Five waves on 4 SIMDs: waves 0 and 4 share SIMD 0, and
    wave 4's v_rsq waits while wave 0's holds the VALU for 16 cycles ('unit_busy')."""
    body = "v_cmp_eq_u32 vcc, 0, v0\ns_barrier\nv_add_f32 v1, v0, v0\ns_endpgm\n"
    k = asm_kernel(tmp_path, "bar", body)
    rep = warm(gcnemu.GPU(timing=True), k, grid=(128,), block=(128,))
    assert rep.stalls["barrier"] >= 1
    assert _row(rep, k, "v_add_f32")["barrier"] == rep.stalls["barrier"]
    assert rep.stalls["barrier"] == 1
    k2 = asm_kernel(tmp_path, "busy", "v_rsq_f32 v1, v0\ns_endpgm\n")
    rep2 = warm(gcnemu.GPU(timing=True), k2, grid=(320,), block=(320,))
    # wave 4: at 0 the VALU port is wave 0's (arbiter), at 4, 8, 12 the VALU is busy
    assert rep2.stalls["unit_busy"] == 12 and rep2.wave_cycles[4].tolist() == [0, 36]


def test_overrides(tmp_path):
    with pytest.raises(GcnEmuError, match="unknown keyword argument.*cus.*num_cus, clock_mhz, "
                                          "dpfactor, l1_bytes, l2_bytes, dram_gbps, esram_gbps"):
        gcnemu.GPU(timing=True, cus=4)
    with pytest.raises(GcnEmuError, match="timing is off"):
        gcnemu.GPU(l1_bytes=8192)
    with pytest.raises(GcnEmuError, match="dpfactor must be 1, 2, 4 or 8"):
        gcnemu.GPU(dpfactor=3)
    g = gcnemu.GPU("hd7970", timing=True, num_cus=4, clock_mhz=500, dpfactor=8, l1_bytes=8192,
                   l2_bytes=1 << 20, dram_gbps=34, esram_gbps=50)
    assert (g.config.compute_units, g.config.clock_mhz, g.config.dpfactor) == (4, 500, 8)
    tc = g.timing_config
    assert (tc.l1_bytes, tc.l2_channels * tc.l2_channel_bytes, tc.dram_gbps) == (8192, 1 << 20, 34)
    k = asm_kernel(tmp_path, "v", "v_add_f64 v[2:3], v[2:3], v[2:3]\ns_endpgm\n")
    rep = warm(g, k, grid=(64,), block=(64,))
    assert rep.cycles == 8 * 4 + 4 and rep.time_us == pytest.approx(36 / 500)


def test_dram_bandwidth_override(tmp_path):
    """A streaming load of 64 KB on one CU is DRAM bound at 34 GB/s (64 bytes / (34e9 / 853e6)
    = 1.61 cycles a line; the texture unit takes 1) and at 17 GB/s (3.21): 1024 lines x 1.61
    cycles more."""
    k = asm_kernel(tmp_path, "stream", STREAM)
    out = []
    for gbps in (34, 17):
        gpu = gcnemu.GPU(timing=True, num_cus=1, dram_gbps=gbps)
        buf = gpu.to_device(np.zeros(16384, np.uint32))
        out.append(gpu.dispatch(k, grid=(16384,), block=(256,), args=[buf]).cycles)
    assert out[1] - out[0] == pytest.approx(1024 * 64 * 853e6 * (1 / 17e9 - 1 / 34e9), rel=0.1)


# --- ESRAM ---------------------------------------------------------------------------------------
def test_esram_buffers(tmp_path):
    k = asm_kernel(tmp_path, "stream", STREAM)
    data = np.arange(16384, dtype=np.uint32)
    cyc = {}
    for mem in ("dram", "esram"):
        gpu = gcnemu.GPU(timing=True, num_cus=1, dram_gbps=17)
        buf = gpu.to_device(data, memory=mem)
        assert np.array_equal(buf.to_numpy(), data)
        cyc[mem] = gpu.dispatch(k, grid=(16384,), block=(256,), args=[buf]).cycles
    # ESRAM: 109.2 GB/s (128 bytes a cycle: the texture unit's line a cycle is the limit)
    # instead of 17 GB/s (3.2 cycles a line): 1024 lines take > 1024 x 3.2 cycles from DRAM,
    # less than 1024 x 2 from ESRAM
    assert cyc["dram"] > 1024 * 3.2 and cyc["esram"] < 1024 * 2
    gpu = gcnemu.GPU()
    a = gpu.empty(30 << 20, memory="esram")
    with pytest.raises(GcnEmuError, match="ESRAM is full.*33554432"):
        gpu.empty(4 << 20, memory="esram")
    a.free()
    gpu.empty(4 << 20, memory="esram")
    with pytest.raises(GcnEmuError, match="hd7970 GPU has no ESRAM"):
        gcnemu.GPU("hd7970").empty(64, memory="esram")
    with pytest.raises(GcnEmuError, match="'dram' or 'esram'"):
        gpu.empty(64, memory="vram")


# --- VALU -> scalar latency ------------------------------------------------------------------
@pytest.mark.parametrize("scalar,cycles,stall", [
    # v_cmp at 0 writes VCC, retired at 16 (cu-whitepaper: "it takes 16 cycles to retire and
    # write the result"); s_cbranch_vccz reads VCC: ready at 4, waits until 16 (not taken:
    # lane 0 sets VCC); s_endpgm at 20, done 24
    ("s_cbranch_vccz 0", 24, 12),
    # an SALU reading the VCC pair
    ("s_and_b64 s[4:5], vcc, exec", 24, 12),
    # a scalar instruction that does not read VCC does not wait: 0, 4, 8, done 12
    ("s_mov_b32 s4, 0", 12, 0),
])
def test_valu_to_scalar_latency(tmp_path, scalar, cycles, stall):
    k = asm_kernel(tmp_path, "dep", f"v_cmp_eq_u32 vcc, 0, v0\n{scalar}\ns_endpgm\n")
    rep = warm(gcnemu.GPU(timing=True), k, grid=(64,), block=(64,))
    assert rep.cycles == cycles and rep.stalls["dependency"] == stall


def test_readfirstlane_to_smem(tmp_path):
    """v_readfirstlane into s4 at 0; s_load with s4 as offset register waits until 16."""
    k = asm_kernel(tmp_path, "rfl", "v_readfirstlane_b32 s4, v0\ns_load_dword s5, s[0:1], s4\n"
                   "s_endpgm\n")
    gpu = gcnemu.GPU(timing=True)
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=[gpu.to_device(np.zeros(4, np.uint32))])
    assert _row(rep, k, "s_load_dword")["dependency"] == 12


def test_image_loads_go_through_the_caches(tmp_path):
    """image_load's texels are traced like a buffer's lines: a 64 x 1 image of 32-bit texels,
    lane l loads texel (l, 0) twice: 256 bytes = 4 lines each time; the first load misses the
    cold L1 and L2, the second hits the L1 (HIT_LRU)."""
    from test_mem_helpers import encode_tsharp
    t = encode_tsharp(0, 64, 1, dfmt=4, nfmt=4, t_type=9)      # (base: from the kernarg)
    gpu = gcnemu.GPU(timing=True, num_cus=1)
    buf = gpu.to_device(np.arange(64, dtype=np.uint32))
    assert buf.address % 256 == 0
    body = ADDR + "s_lshr_b64 s[8:9], s[4:5], 8\n" + f"s_or_b32 s9, s9, {t[1]:#x}\n" + \
        "".join(f"s_mov_b32 s{10 + i}, {t[2 + i]:#x}\n" for i in range(6)) + \
        "v_mov_b32 v1, v0\nv_mov_b32 v2, 0\n" + \
        "image_load v4, v[1:2], s[8:15] dmask:0x1 unorm\ns_waitcnt vmcnt(0)\n" * 2 + \
        "v_lshlrev_b32 v3, 2, v0\nv_add_i32 v1, vcc, s4, v3\nv_mov_b32 v2, s5\n" \
        "v_addc_u32 v2, vcc, v2, 0, vcc\nflat_store_dword v[1:2], v4\ns_waitcnt vmcnt(0)\ns_endpgm\n"
    rep = warm(gpu, asm_kernel(tmp_path, "img", body), grid=(64,), block=(64,), args=[buf])
    assert np.array_equal(buf.to_numpy(np.uint32, 64), np.arange(64))   # (the texels, stored back)
    c = rep.counters
    # 2 image loads + the store, 4 lines each, through the L1 (the store does not count as a
    # hit: MISS_LRU); L2 misses: the image's 4 lines once, and the kernarg line (s_load)
    assert (c["TCP_TOTAL_CACHE_ACCESSES"], c["TCP_HIT"], c["TCC_MISS"]) == (12, 4, 4 + 1)
