"""Timing mode: GPU(timing=True) gives the same bits as GPU() plus a cycle count.

Every expected cycle count here is derived by hand from the seeds' rules and figures
(../shared/seeds) and the TimingConfig parameters, never from the emulator's output:

* a SIMD is considered every 4th cycle, SIMD s on cycles t with t mod 4 == s, so a wave on
  SIMD s issues at most one full-rate instruction per 4 cycles, starting at cycle s;
* issue costs are the CLRX figures: v_add_f32 4, v_rsq_f32 16, ds_read_b32 4, s_endpgm 4;
* a wave ends when its s_endpgm has issued (+ its 4 cycles);
* waves of different ages on one SIMD: the oldest wins each category.
"""
import dataclasses

import pytest

import gcnemu
from gcnemu.hardware import PRESETS
from gcnemu.timing.config import TimingConfig


def asm_kernel(tmp_path, name, body, vgprs=8, sgprs=16):
    """An assembly kernel whose register counts allow 10 waves per SIMD (the default launch
    state of assembly kernels claims 256 VGPRs: one wave per SIMD)."""
    p = tmp_path / f"{name}.s"
    p.write_text(body)
    k = gcnemu.load(str(p)).kernel(name)
    k.info = dataclasses.replace(k.info, vgpr_count=vgprs, sgpr_count=sgprs)
    return k


def warm(gpu, k, **kw):
    """``gpu.dispatch(k, **kw)`` on a GPU that has run ``k`` once: its code is in the I$ (the
    derivations here count issue and memory, not the first fetches of the code, which
    tests/test_timing_icache.py derives), and the data caches are emptied in between
    (gpu.caches.invalidate), as on a new GPU."""
    gpu.dispatch(k, **kw)
    for level in ("l1", "k", "l2"):
        gpu.caches.invalidate(level)
    return gpu.dispatch(k, **kw)


def valu_program(n, op="v_add_f32 v1, v1, v0"):
    return "\n".join([op] * n + ["s_endpgm"]) + "\n"


def one_cu(**kw):
    return dataclasses.replace(PRESETS["xbox-one"], name="xbox-one-1cu", compute_units=1, **kw)


def test_n_valu_on_one_wave_take_4n_cycles(tmp_path):
    n = 20
    k = asm_kernel(tmp_path, "chain", valu_program(n))
    rep = warm(gcnemu.GPU(timing=True), k, grid=(64,), block=(64,))
    # v_add at 0, 4, ..., 4(n-1); s_endpgm at 4n, done 4 cycles later
    assert rep.cycles == 4 * n + 4
    assert rep.counters["SQ_ACTIVE_INST_VALU"] == 4 * n
    assert rep.wave_cycles.tolist() == [[0, 4 * n + 4]]


def test_transcendentals_are_quarter_rate(tmp_path):
    n = 10
    k = asm_kernel(tmp_path, "rsq", valu_program(n, "v_rsq_f32 v1, v0"))
    rep = warm(gcnemu.GPU(timing=True), k, grid=(64,), block=(64,))
    assert rep.cycles == 16 * n + 4      # CLRX: V_RSQ_F32 16 cycles


def test_f64_cost_follows_the_dpfactor(tmp_path):
    n = 10
    k = asm_kernel(tmp_path, "dadd", valu_program(n, "v_add_f64 v[2:3], v[2:3], v[2:3]"))
    for preset, dpf in (("xbox-one", 8), ("hd7970", 2)):
        rep = warm(gcnemu.GPU(preset, timing=True), k, grid=(64,), block=(64,))
        assert rep.cycles == 4 * dpf * n + 4     # CLRX: V_ADD_F64 DPFACTOR*4


def test_four_waves_overlap_on_four_simds(tmp_path):
    n = 20
    k = asm_kernel(tmp_path, "four", valu_program(n))
    rep = warm(gcnemu.GPU(timing=True), k, grid=(256,), block=(256,))
    # one wave per SIMD, SIMD s starts at cycle s: the last ends at 3 + 4n + 4
    assert rep.cycles == 3 + 4 * n + 4
    assert sorted(rep.wave_cycles[:, 1].tolist()) == [4 * n + 4 + s for s in range(4)]


def test_two_waves_per_simd_share_its_valu(tmp_path):
    n = 20
    k = asm_kernel(tmp_path, "eight", valu_program(n))
    rep = warm(gcnemu.GPU(timing=True), k, grid=(512,), block=(512,))
    # per SIMD: 2n VALU slots back to back (the older wave's s_endpgm issues beside the younger
    # wave's VALU), then the younger wave's s_endpgm; SIMD 3 is 3 cycles late
    assert rep.cycles == 3 + 4 * 2 * n + 4


@pytest.mark.parametrize("nsimd", [2, 3, 4, 5])
def test_turns_and_unit_waits_with_other_simd_counts(tmp_path, nsimd):
    """A CU with nsimd SIMDs (the presets have 4, for which the model's turn arithmetic masks
    instead of dividing): SIMD s issues at the cycles = s mod nsimd."""
    n = 10
    gpu = gcnemu.GPU(one_cu(simds_per_cu=nsimd), timing=True)
    # one wave, alone on SIMD 0: each v_add (4 cycles) issues at SIMD 0's first turn after
    # the previous one ends, 4 rounded up to a multiple of nsimd later
    period = -(-4 // nsimd) * nsimd
    rep = warm(gpu, asm_kernel(tmp_path, "chain", valu_program(n)), grid=(64,), block=(64,))
    assert rep.cycles == period * n + 4
    assert rep.stalls["arbiter"] == (period - 4) * n
    # waves 0 and nsimd share SIMD 0: wave 0's v_rsq holds the VALU from 0 to 16; wave nsimd,
    # refused the port at 0, finds the VALU busy at its next turn, nsimd, and sleeps until
    # SIMD 0's first turn at or after 16 (unit_busy), issues there and ends at its first turn
    # at or after that + 16 (s_endpgm: + 4)
    k2 = asm_kernel(tmp_path, "busy", "v_rsq_f32 v1, v0\ns_endpgm\n")
    rep2 = warm(gpu, k2, grid=(64 * (nsimd + 1),), block=(64 * (nsimd + 1),))
    at = -(-16 // nsimd) * nsimd
    assert rep2.stalls["unit_busy"] == at - nsimd
    assert rep2.wave_cycles[nsimd].tolist() == [0, -(-(at + 16) // nsimd) * nsimd + 4]


def test_seed_80_instructions_300_waves_24000_cycles_on_one_cu(tmp_path):
    """cu-whitepaper: "if a shader has 80 instructions and runs on 300 waves, it should ideally
    take 24,000 cycles to execute on a single CU" (one full-rate instruction per cycle per CU)."""
    k = asm_kernel(tmp_path, "eighty", valu_program(80))
    gpu = gcnemu.GPU(one_cu(), timing=True)
    rep = warm(gpu, k, grid=(300 * 64,), block=(64,))
    assert rep.waves == 300
    # 75 waves per SIMD x 80 x 4 cycles = 24,000 VALU cycles per SIMD back to back; plus SIMD 3's
    # 3-cycle phase and the last wave's s_endpgm (4)
    assert rep.cycles == 24000 + 3 + 4
    assert rep.counters["SQ_ACTIVE_INST_VALU"] == 300 * 80 * 4


def test_timing_counters_present(tmp_path):
    k = asm_kernel(tmp_path, "ctr", valu_program(4))
    rep = warm(gcnemu.GPU(timing=True), k, grid=(64,), block=(64,))
    for name in ("GRBM_GUI_ACTIVE", "SQ_WAVE_CYCLES", "SQ_BUSY_CYCLES", "SQ_WAIT_INST_ANY",
                 "SQ_ACTIVE_INST_VALU", "TCP_TCC_READ_REQ", "TCC_HIT", "TCC_MISS",
                 "SQ_LDS_BANK_CONFLICT", "SQC_DCACHE_HITS"):
        assert name in rep.counters
    assert rep.counters["GRBM_GUI_ACTIVE"] == rep.cycles == 20
    assert rep.counters["SQ_WAVE_CYCLES"] == 20
    assert rep.counters["SQ_BUSY_CYCLES"] == 20


def test_functional_mode_has_no_cycles(tmp_path):
    k = asm_kernel(tmp_path, "func", valu_program(4))
    rep = gcnemu.GPU().dispatch(k, grid=(64,), block=(64,))
    assert rep.cycles is None and "GRBM_GUI_ACTIVE" not in rep.counters


def test_timing_config_needs_timing():
    with pytest.raises(gcnemu.GcnEmuError, match="timing is off"):
        gcnemu.GPU(timing_config=TimingConfig())
    with pytest.raises(ValueError, match="negative"):
        TimingConfig(l2_latency=-1)


def test_cli_run_timing(tmp_path, capsys):
    from gcnemu.cli import main
    p = tmp_path / "chain.s"
    p.write_text(valu_program(20))
    assert main(["run", str(p), "--kernel", "chain", "--grid", "64", "--timing"]) == 0
    out = capsys.readouterr().out
    # assembly kernels claim 256 VGPRs (one wave per SIMD); one wave: 20 v_add + s_endpgm,
    # 84 cycles with its code in the I$. A new GPU's is cold: the 84 bytes are 2 lines, each
    # an I$ miss, an L2 miss and a DRAM read (the bus idle): the wave waits l2_latency +
    # dram_latency = 150 cycles at its start and at byte 64 (row 16), then its SIMD's next
    # turn (150 = 2 mod 4: +2 each)
    tc = TimingConfig()
    assert "timing: %d cycles (1 waves)" % (84 + 2 * (tc.l2_latency + tc.dram_latency + 2)) in out
    assert "SQ_ACTIVE_INST_VALU" in out


BARRIER = """
v_readfirstlane_b32 s8, v0
s_cmp_eq_u32 s8, 0
s_cbranch_scc1 skip
{slow}
skip:
s_barrier
s_endpgm
"""


def test_barrier_waits_for_the_slowest_wave(tmp_path):
    """Workgroup of 2 waves (SIMDs 0 and 1); wave 0 jumps straight to s_barrier, wave 1 first
    runs m v_rsq_f32 (16 cycles each). s_cmp reads the SGPR v_readfirstlane writes: it waits
    until the VALU instruction retires, 16 cycles after its issue (cu-whitepaper). Wave 0:
    v_readfirstlane 0, s_cmp 16, s_cbranch taken at 20 (CLRX: 20 cycles when taken),
    s_barrier at 40. Wave 1: 1, 17, not taken at 21 (4 cycles), v_rsq at 25 + 16i, s_barrier
    at 25 + 16m: both released at 29 + 16m; s_endpgm: wave 1 at 29 + 16m, wave 0 at its
    SIMD's next turn 32 + 16m, ending at 36 + 16m."""
    m = 5
    k = asm_kernel(tmp_path, "bar", BARRIER.format(slow="\n".join(["v_rsq_f32 v1, v0"] * m)))
    rep = warm(gcnemu.GPU(timing=True), k, grid=(128,), block=(128,))
    assert rep.cycles == 36 + 16 * m
    assert rep.wave_cycles.tolist() == [[0, 36 + 16 * m], [0, 33 + 16 * m]]
    assert rep.counters["SQ_WAIT_ANY"] == (29 + 16 * m) - 44
    assert rep.stalls["dependency"] == 2 * 12 and rep.stalls["barrier"] == (29 + 16 * m) - 44


def test_long_instruction_penalty_is_a_parameter(tmp_path):
    """clrx-gcn-timings: an 8-byte instruction "may require 4 extra cycles"; off by default
    (TimingConfig.long_instruction_cycles = 0), 8 cycles per v_mad_f32 (VOP3) when set to 4."""
    n = 10
    k = asm_kernel(tmp_path, "mad", valu_program(n, "v_mad_f32 v1, v1, v0, v0"))
    off = warm(gcnemu.GPU(timing=True), k, grid=(64,), block=(64,))
    on = warm(gcnemu.GPU(timing=True, timing_config=TimingConfig(long_instruction_cycles=4)), k,
              grid=(64,), block=(64,))
    assert off.cycles == 4 * n + 4
    assert on.cycles == 8 * n + 4


def test_s_sleep_and_s_nop_durations(tmp_path):
    """CLRX GcnInstrsSopp.md: s_sleep sleeps (SIMM16 & 7) x 64 cycles; s_nop waits
    (SIMM16 & 7) + 1 cycles, within its 4-cycle issue here."""
    k = asm_kernel(tmp_path, "slp", "s_sleep 3\ns_nop 7\ns_nop 1\ns_endpgm\n")
    rep = warm(gcnemu.GPU(timing=True), k, grid=(64,), block=(64,))
    assert rep.cycles == 3 * 64 + 8 + 4 + 4


def test_cli_example_with_timing(capsys):
    from gcnemu.cli import main
    assert main(["run", "--example", "--timing"]) == 0
    out = capsys.readouterr().out
    assert "matches numpy bit for bit" in out
    # 1024 waves of saxpy read 2 x 256 KB: some thousands of cycles, never zero
    cycles = int(out.split("timing: ")[1].split(" cycles")[0])
    assert cycles > 1000 and "(1024 waves)" in out


def test_a_dispatch_of_no_waves_takes_no_cycles(tmp_path):
    """time_dispatch given no batch traces (no wave ran): no workgroup, 0 cycles, no wave rows
    (its glue special-cases one batch; none must still be no group, not a negative count)."""
    import numpy as np

    from gcnemu.hardware import occupancy
    from gcnemu.timing import model as M

    gpu = gcnemu.GPU(timing=True)
    k = asm_kernel(tmp_path, "chain", valu_program(2))
    occ = occupancy(8, 16, 0, 1, gpu.config)
    r = M.time_dispatch(k.program, [], [np.zeros(0, np.int64)], gpu.config, gpu.timing_config,
                        occ, 1, gpu.caches)
    assert r.cycles == 0 and r.wave_cycles.shape == (0, 2)
