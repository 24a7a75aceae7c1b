"""Parameters of the timing model: latencies, cache geometry, bandwidth.

Per-opcode issue costs do not live here: they come from the ISA table (the CLRX column of
gcnemu/isa/gfx7.tsv, see gcnemu/timing/costs.py). Each field below says where its value comes
from: a seed document (../shared/seeds) or, where the seeds give no figure, a stated assumption.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimingConfig:
    """Immutable timing parameters (cycles are GPU clock cycles)."""

    #: vector memory access that hits the CU's L1 (TCP). cu-whitepaper: "Minimum latency of
    #: this type of instruction is about 25 cycles".
    l1_latency: int = 25
    #: L1 miss that hits the L2 (TCC). Assumption: the seeds give no figure between the L1
    #: minimum (25) and the L2-miss figure (100+); 50 is taken.
    l2_latency: int = 50
    #: L2 miss: cu-whitepaper: "If the data is not in the TCC L2 cache, a latency of these
    #: instructions can be 100 cycles and more" (added on top of the queueing for bandwidth).
    dram_latency: int = 100
    #: DRAM bandwidth: gpu-overview: main RAM 68 GB/s at 853.33 MHz = 79.7 bytes per cycle.
    dram_bytes_per_cycle: float = 68e9 / 853.33e6
    #: texture addresser rate: cu-whitepaper: a buffer read of one dword per lane "can achieve
    #: 4 clock cycles per wave" = 256 bytes / 4 cycles = one 64-byte line per cycle.
    ta_bytes_per_cycle: int = 64
    #: image instructions (addresses not traced): cu-whitepaper: "The peak rate of texture
    #: reads is 16 clock cycles per wave"; timed as L1 hits.
    image_cycles: int = 16
    #: L1 (TCP): gpu-overview: 16 KB per CU, 64-way, 256 lines of 64 bytes, write-through.
    l1_bytes: int = 16384
    l1_ways: int = 64
    #: L2 (TCC): gpu-overview: four 8-way caches of 128 KB (2048 lines of 64 bytes) shared by
    #: the GPU, each owning a subset of the address space (here: line number mod 4).
    l2_channels: int = 4
    l2_channel_bytes: int = 131072
    l2_ways: int = 8
    #: scalar data cache (K$): cu-whitepaper: "Latency of a scalar memory read is at least 20
    #: cycles from the cache". Size 16 KB, 4-way, one per 4 CUs: GCN's K$ (the seeds name the
    #: K-cache (SQC) without its geometry; assumption from the GCN architecture).
    kcache_latency: int = 20
    kcache_bytes: int = 16384
    kcache_ways: int = 4
    kcache_cus: int = 4
    #: cu-whitepaper: "Latency of LDS instructions is at least 39 cycles".
    lds_latency: int = 39
    #: cu-whitepaper: "The latency of GDS instructions is at least 45 cycles".
    gds_latency: int = 45
    #: export to the SX: assumption (the seeds give no figure); counted on EXPCNT.
    export_latency: int = 16
    #: clrx-gcn-timings: a 2-dword (8-byte) instruction "may require 4 extra cycles". Off (0)
    #: by default: the cu-whitepaper's worked figures count every instruction at its table cost.
    long_instruction_cycles: int = 0
    #: cost of instructions the CLRX tables give no figure for (v_interp_*, exp, FLAT, ...):
    #: clrx-gcn-timings: "Almost all instructions (scalar and vector) are executed within 4
    #: cycles".
    default_cycles: int = 4
    #: cycles from a workgroup's launch to its waves' first issue. Assumption: 0 (the seeds
    #: give no figure).
    launch_cycles: int = 0

    def __post_init__(self):
        for name, value in self.__dict__.items():
            if value < 0:
                raise ValueError(f"TimingConfig.{name} must not be negative, got {value}")
        if self.dram_bytes_per_cycle <= 0 or self.ta_bytes_per_cycle <= 0:
            raise ValueError("TimingConfig bandwidths must be positive")
        for total, ways, what in ((self.l1_bytes, self.l1_ways, "l1"),
                                  (self.l2_channel_bytes, self.l2_ways, "l2"),
                                  (self.kcache_bytes, self.kcache_ways, "kcache")):
            if ways < 1 or total < 64 * ways or total % (64 * ways):
                raise ValueError(f"TimingConfig {what}: {total} bytes is not a whole number of "
                                 f"sets of {ways} ways of 64-byte lines")
        if self.l2_channels < 1 or self.kcache_cus < 1:
            raise ValueError("TimingConfig: l2_channels and kcache_cus must be at least 1")
