"""Occupancy limits against the seed documents' figures."""
import pytest

from gcnemu.hardware import PRESETS, occupancy

CFG = PRESETS["xbox-one"]


@pytest.mark.parametrize("waves,sgprs,vgprs", [
    # clrx-gcn-timings.txt: Waves | SGPRs | VGPRs (the most a wave may hold at that occupancy)
    (1, 128, 256), (2, 128, 128), (3, 128, 84), (4, 128, 64), (5, 96, 48), (6, 80, 40),
    (7, 72, 36), (8, 64, 32), (9, 56, 28), (10, 48, 24)])
def test_seed_occupancy_table(waves, sgprs, vgprs):
    assert occupancy(vgprs, sgprs, 0, 1, CFG).waves_per_simd == waves
    # one granule more of either resource drops a wave (except at the SGPR plateau of 128)
    if waves > 1:
        assert occupancy(vgprs + 4, sgprs, 0, 1, CFG).waves_per_simd < waves


def test_full_occupancy_below_24_vgprs_and_48_sgprs():
    # cu-whitepaper: "full CU occupancy is possible if the shaders require fewer than 24 VGPRs
    # and 48 SGPRs"; each CU handles up to 40 waves
    o = occupancy(24, 48, 0, 1, CFG)
    assert o.waves_per_simd * CFG.simds_per_cu == 40


def test_workgroup_limits():
    assert occupancy(24, 48, 0, 1, CFG).workgroups_per_cu == 16            # 16 workgroups per CU
    assert occupancy(24, 48, 40000, 4, CFG).workgroups_per_cu == 1         # 64 KB of LDS per CU
    o = occupancy(256, 48, 0, 16, CFG)                                      # 16 waves x 256 VGPRs
    assert o.workgroups_per_cu == 0 and o.limited_by == "VGPRs"
