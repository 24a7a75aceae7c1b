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
    #: stores and atomics, acknowledged by the L2: cu-whitepaper: "All unordered memory write
    #: and atomic instructions ... Minimum latency of this type of instruction is about 25
    #: cycles. If the data is not in the texture cache per channel (TCC) L2 cache, a latency
    #: of these instructions can be 100 cycles and more": 25 on an L2 hit; on a miss
    #: dram_latency (stores: the L2 allocates the line byte-masked, without reading it) or
    #: dram_latency plus the DRAM queue (atomics read the line).
    write_latency: int = 25
    #: L2 miss: cu-whitepaper: "If the data is not in the TCC L2 cache, a latency of these
    #: instructions can be 100 cycles and more" (added on top of the queueing for bandwidth).
    dram_latency: int = 100
    #: DRAM bandwidth in GB/s: gpu-overview: "68 GB/s" of main RAM; per cycle at the GPU's
    #: clock (GPUConfig.clock_mhz): 68e9 / 853e6 = 79.7 bytes per cycle on the Xbox One.
    dram_gbps: float = 68.0
    #: ESRAM bandwidth in GB/s: gpu-overview: "Peak throughput from ESRAM 128 bytes/clock *
    #: 853.33 MHz = 109.2 GB/sec" (its prose says 102.4 GB/s, 128 bytes at the 800 MHz clock
    #: before the update; the table's figure is taken). Used on GPUs whose preset has ESRAM.
    esram_gbps: float = 109.2
    #: ESRAM latency: gpu-overview: "The advantages of ESRAM are lower latency and lack of
    #: contention from other memory clients" without a figure. Assumption: half the DRAM
    #: latency. Its own bus: ESRAM traffic does not queue behind DRAM traffic.
    esram_latency: int = 50
    #: texture addresser rate: cu-whitepaper: a buffer read of one dword per lane "can achieve
    #: 4 clock cycles per wave" = 256 bytes / 4 cycles = one 64-byte line per cycle.
    ta_bytes_per_cycle: int = 64
    #: image instructions: cu-whitepaper: "The peak rate of texture reads is 16 clock cycles
    #: per wave": the texture unit is busy at least this long (more for more lines).
    #: image_load/store/atomic texels go through the L1 and L2 like a buffer's lines; sampling,
    #: gather4 and get_lod (their filter footprints are not traced) are timed as L1 hits.
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
    #: CUs that share one SQC, the K$ and the I$ (see icache_bytes) of a group of CUs
    kcache_cus: int = 4
    #: instruction cache (I$, in the SQC): AMD's "GCN Architecture" whitepaper (2012): "A
    #: cluster of up to 4 Compute Units share a single 32KB L1 instruction cache that is
    #: 4-way associative and backed by the L2 cache. Cache lines are 64B long" (the seeds
    #: name the I-cache (SQC) and its invalidate, caches-and-coherency.txt, without its
    #: geometry). One per ``kcache_cus`` CUs, LRU. A miss reads the line through the L2
    #: (l2_latency on an L2 hit, DRAM on a miss): the whitepaper's "backed by the L2 cache".
    icache_bytes: int = 32768
    icache_ways: int = 4
    #: bytes a wave fetches at a time: the whitepaper: the I$ "can sustain 32B instruction
    #: fetch per cycle"; clrx-gcn-timings: "program divided by in 32-byte blocks" (its
    #: alignment rules for 2-dword instructions). A wave fetches the block of its next
    #: instruction when that lies outside the block it holds, and after every taken branch
    #: (gpu-overview: "Taken branches require a read from the instruction cache").
    icache_fetch_bytes: int = 32
    #: cycles from a VALU instruction that writes scalar registers (v_cmp to VCC, carry-outs,
    #: v_readfirstlane, ...) to the first scalar instruction (SALU, branch, SMEM) that may read
    #: them: cu-whitepaper: "although a full-speed instruction takes only 4 cycles to issue, it
    #: takes 16 cycles to retire and write the result" (results are forwarded between VALU
    #: instructions only).
    valu_sgpr_latency: int = 16
    #: cu-whitepaper: "Latency of LDS instructions is at least 39 cycles".
    lds_latency: int = 39
    #: LDS data path: cu-whitepaper: "The peak data read and write rate of LDS instructions is
    #: 4 clock cycles per 64 32-bit words": a pass of the 32 banks (one dword each) takes 2
    #: cycles. A wave access of n passes keeps the CU's LDS busy max(lds_min_cycles, 2 n)
    #: cycles; each pass beyond the conflict-free count (a bank conflict, clrx-gcn-timings:
    #: "Any bank conflict adds penalty to timing and throughput") adds 2 cycles to the wave's
    #: issue time and to its latency.
    lds_pass_cycles: int = 2
    #: cu-whitepaper: LDS instructions issue "at a maximum rate of one per every four cycles
    #: per CU". (CLRX's DS throughput column gives 1/2 for ds_read_b32, one per 2 cycles:
    #: the two documents disagree; the model follows the whitepaper, see docs/timing.md.)
    lds_min_cycles: int = 4
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
        if self.dram_gbps <= 0 or self.esram_gbps <= 0 or self.ta_bytes_per_cycle <= 0 or self.lds_pass_cycles < 1:
            raise ValueError("TimingConfig bandwidths and lds_pass_cycles must be positive")
        for total, ways, what in ((self.l1_bytes, self.l1_ways, "l1"),
                                  (self.l2_channel_bytes, self.l2_ways, "l2"),
                                  (self.kcache_bytes, self.kcache_ways, "kcache"),
                                  (self.icache_bytes, self.icache_ways, "icache")):
            if ways < 1 or total < 64 * ways or total % (64 * ways):
                raise ValueError(f"TimingConfig {what}: {total} bytes is not a whole number of "
                                 f"sets of {ways} ways of 64-byte lines")
        sets = self.icache_bytes // (64 * max(self.icache_ways, 1))
        if sets & (sets - 1):
            raise ValueError(f"TimingConfig icache: {sets} sets ({self.icache_bytes} bytes of "
                             f"{self.icache_ways} ways of 64-byte lines) is not a power of two")
        if self.icache_fetch_bytes not in (4, 8, 16, 32, 64):
            raise ValueError(f"TimingConfig icache_fetch_bytes: {self.icache_fetch_bytes} is not "
                             f"4, 8, 16, 32 or 64 (a power of two that divides the 64-byte line)")
        if self.l2_channels < 1 or self.kcache_cus < 1:
            raise ValueError("TimingConfig: l2_channels and kcache_cus must be at least 1")
