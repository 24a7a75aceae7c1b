"""What a GCN GPU has: configurations (the presets) and the occupancy they allow a kernel."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GPUConfig:
    """Immutable description of a GCN GPU (what the seeds and vendor specs state). ``isa`` is
    the instruction set its kernels are decoded and run with: "gfx7" (GCN 1.1, Sea Islands)
    or "gfx6" (GCN 1.0, Southern Islands: Tahiti, Pitcairn, Cape Verde)."""

    name: str
    compute_units: int
    clock_mhz: float
    dpfactor: int                   #: CLRX DPFACTOR: 1/2-rate f64 = 1 ... 1/16-rate = 8
    simds_per_cu: int = 4
    waves_per_simd: int = 10
    vgprs_per_simd: int = 256       #: rows of 64 lanes
    sgprs_per_simd: int = 512
    lds_per_cu: int = 65536
    gds_bytes: int = 65536
    max_workgroups_per_cu: int = 16
    max_workgroup_size: int = 1024
    isa: str = "gfx7"
    #: embedded SRAM the GPU's buffers may be placed in (gpu.to_device(..., memory="esram"))
    esram_bytes: int = 0


PRESETS = {
    # Xbox One: 12 CUs at 853 MHz (seeds: gpu-overview / cu-whitepaper)
    # (gpu-overview: "ESRAM size 32 MB")
    "xbox-one": GPUConfig("xbox-one", 12, 853, 8, esram_bytes=32 << 20),
    # Radeon HD 7970: Tahiti XT, GCN 1.0 (Southern Islands), 32 CUs at 925 MHz, f64 at 1/4
    "hd7970": GPUConfig("hd7970", 32, 925, 2, isa="gfx6"),
    "tahiti": GPUConfig("tahiti", 32, 925, 2, isa="gfx6"),
    "r9-290x": GPUConfig("r9-290x", 44, 1000, 4),
    "r7-260x": GPUConfig("r7-260x", 14, 1100, 8),
    "firepro-w9100": GPUConfig("firepro-w9100", 44, 930, 1),
}


#: the seed's occupancy table (clrx-gcn-timings): waves per SIMD -> SGPRs a wave may hold
_SGPR_LIMIT = {1: 128, 2: 128, 3: 128, 4: 128, 5: 96, 6: 80, 7: 72, 8: 64, 9: 56, 10: 48}


@dataclass(frozen=True)
class Occupancy:
    """How many waves of a kernel fit on a SIMD and how many of its workgroups on a CU."""

    waves_per_simd: int
    workgroups_per_cu: int
    limited_by: str          #: "VGPRs", "SGPRs", "LDS", "waves", "workgroups"


def occupancy(vgprs: int, sgprs: int, lds_bytes: int, waves_per_group: int,
              config: GPUConfig) -> Occupancy:
    """Resident waves per SIMD and workgroups per CU (the seeds: 256 VGPRs and 512 SGPRs per
    SIMD with VGPRs in granules of 4, at most 10 waves per SIMD, 40 per CU, 16 workgroups per
    CU, 64 KB LDS per CU; a workgroup's waves spread over the CU's 4 SIMDs)."""
    vg = max(4, -(-vgprs // 4) * 4)
    by = {"waves": config.waves_per_simd, "VGPRs": config.vgprs_per_simd // vg}
    by["SGPRs"] = max([n for n, lim in _SGPR_LIMIT.items() if sgprs <= lim] or [0])
    wps = min(by.values())
    limited = min(by, key=lambda k: (by[k], k != "waves"))
    simds = config.simds_per_cu
    # a workgroup's waves spread over the SIMDs: it needs ceil(waves/4) slots on the busiest one
    fits = -(-waves_per_group // simds) <= wps
    groups = (wps * simds) // waves_per_group if fits else 0
    reasons = {"workgroups": config.max_workgroups_per_cu}
    if lds_bytes:
        reasons["LDS"] = config.lds_per_cu // lds_bytes
    g = min([groups] + list(reasons.values()))
    if g < groups:
        limited = min(reasons, key=reasons.get)
    return Occupancy(wps, g, limited)
