"""Timing mode: s_waitcnt against memory latencies, caches, LDS bank conflicts.

Expected values follow by hand from the TimingConfig parameters (seed figures) and the issue
rules stated in tests/test_timing.py; see each test's derivation.
"""
import dataclasses

import numpy as np
import pytest

import gcnemu
from gcnemu.timing.config import TimingConfig

from test_timing import asm_kernel, warm


LOAD_AND_WAIT = """
s_load_dwordx2 s[4:5], s[0:1], 0x0
s_waitcnt lgkmcnt(0)
v_mov_b32 v1, s4
v_mov_b32 v2, s5
flat_load_dword v3, v[1:2]
s_waitcnt vmcnt(0)
v_add_f32 v3, v3, v3
s_endpgm
"""


def _run_load(tmp_path, tc=None):
    gpu = gcnemu.GPU(timing=True, timing_config=tc)
    buf = gpu.to_device(np.arange(64, dtype=np.float32))
    k = asm_kernel(tmp_path, "ldw", LOAD_AND_WAIT)
    return warm(gpu, k, grid=(64,), block=(64,), args=[buf])


def test_waitcnt_waits_the_modelled_latency(tmp_path):
    tc = TimingConfig()
    rep = _run_load(tmp_path)
    # s_load at 0: K$ miss, L2 miss, DRAM: done at 20 + 50 + 100 = 170; s_waitcnt (ready at 4)
    # waits until 170, issues at SIMD 0's next turn 172; v_mov 176, 180; flat_load at 184:
    # its one line enters the texture addresser at once, L1 miss, L2 miss (another line):
    # done 184 + 50 + 100 = 334; s_waitcnt issues at 336, v_add 340, s_endpgm 344, done 348
    assert (tc.kcache_latency, tc.l2_latency, tc.dram_latency) == (20, 50, 100)
    assert rep.cycles == 348
    assert rep.counters["SQC_DCACHE_MISSES"] == 1
    assert rep.counters["TCP_TCC_READ_REQ"] == 1 and rep.counters["TCP_TOTAL_CACHE_ACCESSES"] == 1
    assert rep.counters["TCC_MISS"] == 2 and rep.counters["TCC_EA_RDREQ"] == 2
    assert rep.counters["SQ_WAIT_ANY"] == (170 - 4) + (334 - 188)
    # the waits by reason, on the two s_waitcnt rows
    assert rep.stalls["lgkmcnt"] == 170 - 4 and rep.stalls["vmcnt"] == 334 - 188


def test_dram_latency_is_waited_for_twice(tmp_path):
    # the two misses are waited for one after the other: +40 cycles of DRAM latency, +80 in all
    base = _run_load(tmp_path).cycles
    slower = _run_load(tmp_path, TimingConfig(dram_latency=140)).cycles
    assert slower - base == 80


def test_second_wave_hits_the_caches(tmp_path):
    gpu = gcnemu.GPU(dataclasses.replace(gcnemu.PRESETS["xbox-one"], compute_units=1), timing=True)
    buf = gpu.to_device(np.arange(64, dtype=np.float32))
    k = asm_kernel(tmp_path, "ldw2", LOAD_AND_WAIT)
    # two workgroups on the one CU, SIMDs 0 and 1; wave 1 starts 1 cycle later and its loads
    # find the lines wave 0 brought into the K$, the L2 and the L1
    rep = gpu.dispatch(k, grid=(128,), block=(64,), args=[buf])
    assert rep.counters["SQC_DCACHE_MISSES"] == 1 and rep.counters["SQC_DCACHE_HITS"] == 1
    assert rep.counters["TCP_TCC_READ_REQ"] == 1 and rep.counters["TCP_HIT"] == 1


LDS_READS = """
v_lshlrev_b32 v1, {shift}, v0
{reads}
s_waitcnt lgkmcnt(0)
s_endpgm
"""


def _lds_cycles(tmp_path, shift, m):
    src = LDS_READS.format(shift=shift, reads="\n".join(["ds_read_b32 v2, v1"] * m))
    k = asm_kernel(tmp_path, f"lds{shift}", src)
    rep = warm(gcnemu.GPU(timing=True), k, grid=(64,), block=(64,), args=[gcnemu.Local(8192)])
    return rep


@pytest.mark.parametrize("shift,degree", [(3, 2), (4, 4), (7, 32)])
def test_lds_bank_conflict_of_degree_k_costs_k_times(tmp_path, shift, degree):
    """Lane l reads dword address l << shift: 32 banks of 4 bytes (bank = address bits 2-6),
    a half wave per pass: stride 8 bytes puts 2 distinct dwords on each of 16 banks (2-way),
    stride 16 -> 4-way, stride 128 -> all 32 lanes on bank 0 (32-way). The LDS is busy
    k x 4 cycles per ds_read_b32 instead of 4, so m reads take 4(k-1)m cycles longer."""
    m = 6
    free = _lds_cycles(tmp_path, 2, m)
    conf = _lds_cycles(tmp_path, shift, m)
    assert free.counters["SQ_LDS_BANK_CONFLICT"] == 0
    assert conf.counters["SQ_LDS_BANK_CONFLICT"] == m * 4 * (degree - 1)
    assert conf.cycles - free.cycles == 4 * (degree - 1) * m


def test_lds_latency(tmp_path):
    # v_lshlrev at 0, one ds_read at 4 (done 4 + 39 = 43), s_waitcnt issues at 44, s_endpgm 48
    rep = _lds_cycles(tmp_path, 2, 1)
    assert rep.cycles == 52


STORE = """
s_load_dwordx2 s[4:5], s[0:1], 0x0
v_lshlrev_b32 v1, 2, v0
s_waitcnt lgkmcnt(0)
v_add_i32 v1, vcc, s4, v1
v_mov_b32 v2, s5
v_addc_u32 v2, vcc, 0, v2, vcc
flat_store_dword v[1:2], v0
s_endpgm
"""


def test_stores_write_through_to_the_l2(tmp_path):
    gpu = gcnemu.GPU(timing=True)
    out = gpu.empty(256)
    rep = warm(gpu, asm_kernel(tmp_path, "st", STORE), grid=(64,), block=(64,), args=[out])
    assert np.array_equal(out.to_numpy(np.uint32), np.arange(64))
    # 64 dwords = 4 lines written through (and kept in the L1: MISS_LRU), allocated in the
    # L2 without a DRAM read; the kernel-argument line is the only DRAM read
    assert rep.counters["TCP_TCC_WRITE_REQ"] == 4 and rep.counters["TCP_TCC_READ_REQ"] == 0
    assert rep.counters["TCC_MISS"] == 5 and rep.counters["TCC_EA_RDREQ"] == 1
    # the dispatch ends when the stores are acknowledged: the s_load's data arrives at
    # 20 + 50 + 100 = 170 -> s_waitcnt at 172, v_add 176, v_mov 180, v_addc 184, store 188;
    # its lines enter the texture addresser at 188..191, each an L2 miss: acknowledged 100
    # cycles later (cu-whitepaper: "100 cycles and more"): done 291 (s_endpgm ends at 196)
    assert rep.cycles == 291
