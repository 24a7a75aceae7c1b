"""The command processor (gpu.queue(), gcnemu/queue.py) on a normal and a timing-mode GPU:
packets in order, barriers, fences and their cost, in-order retirement, pass-through of
dispatch keywords. The coherency examples are in tests/test_coherency.py."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.queue import MEMORY_TRANSACTION_CYCLES

KERNELS = Path(__file__).parent / "data" / "coherency" / "kernels.cl"
N = 12 * 64
IDS = np.arange(N, dtype=np.uint32)


@pytest.fixture(scope="module")
def prog():
    return gcnemu.load(str(KERNELS))


def test_packets_in_order_and_keywords_pass_through(prog):
    g = gcnemu.GPU()
    buf = g.to_device(IDS)
    out = g.empty(N, np.uint32)
    fence = g.empty(2, np.uint32)
    q = g.queue()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [buf, np.uint32(7)], workers=2)
    q.write_on_event((fence, 4), 5, event="eos")
    q.wait_memory((fence, 4), 5)
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, buf], strict=False)
    q.write_on_event(fence, timestamp=True)
    res = q.submit()
    assert len(res) == 2 and not q.packets
    np.testing.assert_array_equal(out.to_numpy(), 2 * (7 + IDS))
    # the functional clock of a timestamp: dispatches retired
    np.testing.assert_array_equal(fence.to_numpy(), [2, 5])
    assert res.cycles is None and res.findings == []


def _timed(prog, between):
    g = gcnemu.GPU(timing=True)
    a = g.to_device(IDS)
    b = g.empty(N, np.uint32)
    fence = g.empty(1, np.uint32)
    q = g.queue()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [a, np.uint32(3)])
    if between == "barrier":
        q.partial_flush()
    elif between == "fence":
        q.write_on_event(fence, 1, event="eop")
        q.wait_memory(fence, 1)
    q.dispatch(prog.kernel("produce"), (N,), (64,), [b, np.uint32(4)])
    return q.submit()


def test_timing_overlap_barrier_fence(prog):
    free, bar, fen = (_timed(prog, w) for w in (None, "barrier", "fence"))
    for res in (free, bar, fen):
        (s0, e0), (s1, e1) = res.dispatch_cycles
        assert e1 >= e0 and s1 >= s0 and res.cycles == max(e0, e1)   # retire in order
        assert e0 - s0 == res[0].cycles
    # without a barrier the second dispatch starts when the first one's last wave launched
    (s0, e0), (s1, _e1) = free.dispatch_cycles
    assert s1 == s0 + int(free[0].wave_cycles[:, 0].max()) < e0
    # CS_PARTIAL_FLUSH: it starts when the first has drained
    (_s0, e0), (s1, _e1) = bar.dispatch_cycles
    assert s1 == e0
    # a fence: "the cost of at least two memory transactions, which will be at least 800
    # cycles" (seed caches-and-coherency.txt)
    (_s0, e0), (s1, _e1) = fen.dispatch_cycles
    assert s1 - e0 == 2 * MEMORY_TRANSACTION_CYCLES >= 800
    assert free.cycles < bar.cycles < fen.cycles


def test_timing_cache_operations_cost(prog):
    g = gcnemu.GPU(timing=True)
    a = g.to_device(IDS)
    q = g.queue()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [a, np.uint32(3)])
    q.partial_flush()
    q.cache_op("l2", writeback=True, invalidate=False)
    res = q.submit()
    (_s, e), = res.dispatch_cycles
    dirty = N * 4 // 64       # the lines produce wrote, dirty in the L2
    per_cycle = g.timing_config.dram_gbps * 1e3 / g.config.clock_mhz
    assert res.cycles == e + int(np.ceil(dirty * 64 / per_cycle)) + MEMORY_TRANSACTION_CYCLES
    assert g.caches.dirty_lines() == 0


def test_queue_argument_errors(prog):
    g = gcnemu.GPU()
    q = g.queue()
    with pytest.raises(gcnemu.GcnEmuError, match="'top' or 'eop'"):
        q.cache_op("l2", when="later")
    with pytest.raises(gcnemu.GcnEmuError, match="value or timestamp"):
        q.write_on_event(0x100000000)
    with pytest.raises(gcnemu.GcnEmuError, match="compare"):
        q.wait_memory(0x100000000, 1, compare="~")
    with pytest.raises(gcnemu.GcnEmuError, match="'me' or 'pfp'"):
        q.wait_memory(0x100000000, 1, engine="ce")
    q.dispatch(prog.kernel("produce"), (N,), (64,), [g.empty(4)], bogus=1)
    with pytest.raises(TypeError, match="bogus"):
        q.submit()
