"""Coherency-accurate mode (GPU(coherent_caches=True), gcnemu/coherency.py) and the command
processor (gpu.queue(), gcnemu/queue.py): the four worked examples of the seed
caches-and-coherency.txt ("Examples"), each with the synchronisation the seed prescribes (the
consumer sees the new data) and without it (the stale data, and a finding that says why),
and a spin-wait on a flag another CU sets.

Expected values come from the seed's rules, computed here with numpy: "new" is what the
producer wrote, "old" what the consumer's cache (or memory) held before. The kernels are
OpenCL C (tests/data/coherency/kernels.cl). The xbox-one preset has 12 CUs; N work-items in
workgroups of 64 are 12 workgroups, one per CU (coherency.py gives CU c the c-th block of
workgroups).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.errors import ExecutionError
from kernels import corpus

KERNELS = Path(__file__).parent / "data" / "coherency" / "kernels.cl"
N = 12 * 64
IDS = np.arange(N, dtype=np.uint32)


@pytest.fixture(scope="module")
def prog():
    return gcnemu.load(str(KERNELS))


def _kinds(findings) -> set:
    return {f.kind for f in findings}


def _release(q):
    """The L2 write-back that lets the host see the queue's results (the host reads memory,
    not the L2)."""
    q.cache_op("l2", writeback=True, invalidate=False, when="eop")


# --- 1. "Synchronizing when a constant buffer is updated through the CPU" ------------------
# "If the CPU is using write-combined memory, and the address of the dynamic buffer hasn't
# been seen in this frame, do nothing. ... Issue a K and L2 cache GPU top-of-pipe flush."
@pytest.mark.parametrize("flush, fresh, finding", [
    (("k", "l2"), True, None),
    (("k",), False, "missing-sync"),       # the L2 still holds the old line
    (("l2",), False, "missing-sync"),      # the K$ still holds the old line
    ((), False, "missing-sync"),
])
def test_constant_buffer_updated_by_cpu(prog, flush, fresh, finding):
    g = gcnemu.GPU(coherent_caches=True)
    k = prog.kernel("scale_by_constant")
    cb = g.to_device(np.array([3, 5], np.uint32))
    out = g.empty(N, np.uint32)
    q = g.queue()
    q.dispatch(k, (N,), (64,), [out, cb])     # first use: nothing to flush
    _release(q)
    assert not q.submit().findings
    np.testing.assert_array_equal(out.to_numpy(), 3 * IDS + 5)
    cb.write(np.array([7, 11], np.uint32))   # the CPU updates the constant buffer
    q = g.queue()
    for level in flush:
        q.cache_op(level, invalidate=True, when="top")
    q.dispatch(k, (N,), (64,), [out, cb])
    _release(q)
    res = q.submit()
    np.testing.assert_array_equal(out.to_numpy(), 7 * IDS + 11 if fresh else 3 * IDS + 5)
    if finding is None:
        assert not res.findings, [str(f) for f in res.findings]
    else:
        assert finding in _kinds(res.findings)
        f = next(f for f in res.findings if f.kind == finding)
        assert f.kernel == "scale_by_constant" and f.instruction.startswith("s_load")
        assert f.address // 64 == cb.address // 64
        assert ("K$" in f.detail) if "l2" in flush else ("L2" in f.detail)


# --- 2. "Synchronizing a render target that is to be used as a texture" ---------------------
# Method 1: "Issue an EOS PS_DONE memory write. Before the consumer starts, insert a wait on
# memory", with independent work between ("Draw X N"); here a compute producer and consumer.
@pytest.mark.parametrize("fenced", [True, False])
def test_render_target_as_texture_eos_fence(prog, fenced):
    g = gcnemu.GPU(coherent_caches=True)
    old = IDS * 7
    target = g.to_device(old)
    fence = g.empty(1, np.uint32)
    other = g.empty(N, np.uint32)
    out = g.empty(N, np.uint32)
    q = g.queue()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [target, np.uint32(1000)])
    q.cache_op("l2", writeback=True, invalidate=False, when="eop")   # pipelined flush
    q.cache_op("l1", invalidate=True, when="eop")
    if fenced:
        q.write_on_event(fence, 1, event="eos")
    q.dispatch(prog.kernel("produce"), (N,), (64,), [other, np.uint32(5)])   # "Draw X N"
    if fenced:
        q.wait_memory(fence, 1, compare="==")
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, target])
    _release(q)
    res = q.submit()
    assert len(res) == 3
    np.testing.assert_array_equal(out.to_numpy(), 2 * (1000 + IDS) if fenced else 2 * old)
    np.testing.assert_array_equal(other.to_numpy(), 5 + IDS)
    if fenced:
        assert not res.findings, [str(f) for f in res.findings]
    else:
        [f] = [f for f in res.findings if f.kind == "missing-sync"]
        assert f.kernel == "consume" and f.instruction.startswith("flat_load_dword")
        assert "produce" in f.detail and "barrier" in f.detail
        assert f.count == 12 * 4       # every wave, every line of its 256 bytes


# --- 3. "Synchronizing a UAV write to be used as a render target" (read by a dispatch) ------
# "Issue a pipelined L1/L2 cache flush ... you can use a CS_PARTIAL_FLUSH instead of Steps 3
# and 4"; the L1 "requires it to be flushed when a producer writes through it and a consumer
# reads through it".
@pytest.mark.parametrize("invalidate_l1, workers", [(True, 1), (False, 1), (False, 2)])
def test_uav_written_then_read(prog, invalidate_l1, workers):
    g = gcnemu.GPU(coherent_caches=True, waves_per_batch=2)
    old = IDS * 3
    uav = g.to_device(old)
    out = g.empty(N, np.uint32)
    consume, produce = prog.kernel("consume"), prog.kernel("produce")
    q = g.queue()
    q.dispatch(consume, (N,), (64,), [out, uav], workers=workers)   # L1s take uav's lines
    q.partial_flush()
    q.dispatch(produce, (N,), (64,), [uav, np.uint32(1000)], workers=workers)  # other CUs
    q.partial_flush()
    if invalidate_l1:
        q.cache_op("l1", invalidate=True)
    q.dispatch(consume, (N,), (64,), [out, uav], workers=workers)
    _release(q)
    res = q.submit()
    np.testing.assert_array_equal(uav.to_numpy(), 1000 + IDS)
    np.testing.assert_array_equal(out.to_numpy(), 2 * (1000 + IDS) if invalidate_l1 else 2 * old)
    if invalidate_l1:
        assert not res.findings, [str(f) for f in res.findings]
    else:
        [f] = res.findings
        assert f.kind == "stale-l1" and f.kernel == "consume"
        assert "L1" in f.detail and "produce" in f.detail and f.workgroup == 0
        assert f.count == 12 * 4 and res[2].workers == workers
        assert str(f).startswith("stale-l1: consume pc 0x")


def test_host_reads_memory_until_l2_writeback(prog):
    g = gcnemu.GPU(coherent_caches=True)
    uav = g.to_device(IDS * 3)
    q = g.queue()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [uav, np.uint32(1000)])
    q.submit()
    np.testing.assert_array_equal(uav.to_numpy(), IDS * 3)      # dirty in the L2
    assert g.coherent.dirty_lines() == N * 4 // 64
    q = g.queue()
    q.cache_op("l2", writeback=True, invalidate=False)
    q.submit()
    np.testing.assert_array_equal(uav.to_numpy(), 1000 + IDS)
    assert g.coherent.dirty_lines() == 0 and g.coherent.valid_lines("l2") >= N * 4 // 64


# --- 4. "Synchronizing an indirect buffer written from a CS through a UAV" ------------------
# "Issue a pipelined L1/L2 cache flush. Issue an EOP fence write F ... Method 1: Before the
# consumer starts, insert a wait on memory F on the PFP ... Method 2: Use a wait on memory on
# the ME followed by the PFP_SYNC_TO_ME."
@pytest.mark.parametrize("sync", ["pfp", "me+pfp_sync", "me", "none"])
def test_indirect_arguments_from_compute(prog, sync):
    g = gcnemu.GPU(coherent_caches=True)
    args = g.to_device(np.array([1, 1, 1], np.uint32))
    fence = g.empty(1, np.uint32)
    src = g.to_device(IDS + 1)
    out = g.empty(N, np.uint32)
    q = g.queue()
    q.dispatch(prog.kernel("write_counts"), (64,), (64,), [args, np.uint32(12)])
    if sync != "none":
        q.cache_op("l2", writeback=True, invalidate=False, when="eop")
        q.write_on_event(fence, 1, event="eop")
        q.wait_memory(fence, 1, engine="pfp" if sync == "pfp" else "me")
        if sync == "me+pfp_sync":
            q.pfp_sync_me()
    q.dispatch_indirect(prog.kernel("consume"), args, (64,), [out, src])
    _release(q)
    res = q.submit()
    good = sync in ("pfp", "me+pfp_sync")
    expect = 2 * (IDS + 1)
    if not good:      # the PFP read (1, 1, 1): one workgroup
        expect[64:] = 0
    np.testing.assert_array_equal(out.to_numpy(), expect)
    assert res[1].workgroups == (12 if good else 1)
    if good:
        assert not res.findings, [str(f) for f in res.findings]
    else:
        details = " ".join(f.detail for f in res.findings if f.kind == "missing-sync")
        assert "PFP" in details
        if sync == "none":
            assert "dirty in the L2" in details


# --- the spin-wait ---------------------------------------------------------------------------
@pytest.mark.parametrize("kernel, hangs", [("spin_plain", True), ("spin_scalar", True),
                                           ("spin_glc", False)])
def test_spin_on_flag_set_by_another_cu(prog, kernel, hangs):
    k = prog.kernel(kernel)
    extra = [] if kernel == "spin_scalar" else [np.uint32(0)]
    for coherent in (False, True):
        g = gcnemu.GPU(coherent_caches=coherent, step_limit=20_000)
        flag = g.empty(1, np.uint32)
        out = g.empty(2, np.uint32)
        run = lambda: g.dispatch(k, (128,), (64,), [flag, out] + extra)
        if coherent and hangs:
            # workgroup 1 (CU 1) polls a line its L1 (K$) took before workgroup 0 (CU 0) set
            # it: without GLC it never sees the write
            with pytest.raises(ExecutionError, match="step limit") as e:
                run()
            assert "spin-hang" in str(e.value) and "GLC" in str(e.value)
            assert e.value.findings[0].kind == "spin-hang"
        else:
            run()    # the normal mode runs workgroup 0 first: no hang
            np.testing.assert_array_equal(out.to_numpy(), [0, 1])


def test_dispatch_keeps_bits_and_workers(prog):
    """gpu.dispatch is the runtime's path: the same bits as the normal mode, with one or two
    workers, and no finding."""
    outs = []
    for coherent, workers in ((False, 1), (True, 1), (True, 2)):
        g = gcnemu.GPU(coherent_caches=coherent, waves_per_batch=8)    # 6 batches
        src = g.to_device(np.arange(N * 4, dtype=np.uint32) * 5)
        out = g.empty(N * 4, np.uint32)
        for _ in range(2):
            g.dispatch(prog.kernel("produce"), (N * 4,), (64,), [src, np.uint32(9)],
                       workers=workers)
            rep = g.dispatch(prog.kernel("consume"), (N * 4,), (64,), [out, src],
                             workers=workers)
        assert not rep.findings and rep.workers == workers
        outs.append(out.to_numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], outs[2])


def test_queue_errors(prog):
    g = gcnemu.GPU(coherent_caches=True)
    q = g.queue()
    with pytest.raises(gcnemu.GcnEmuError, match="unknown cache level"):
        q.cache_op("l3")
    flag = g.empty(1, np.uint32)
    q.wait_memory(flag, 1)
    with pytest.raises(ExecutionError, match="waits forever"):
        q.submit()
    with pytest.raises(gcnemu.GcnEmuError, match="functional mode"):
        gcnemu.GPU(coherent_caches=True, timing=True)


@pytest.mark.parametrize("name", corpus.list_kernels())
def test_corpus_in_coherent_mode(name, monkeypatch):
    """Every corpus kernel (race-free, written for the runtime's synchronisation) gives its
    numpy reference's results through gpu.dispatch in coherency-accurate mode, without a
    finding."""
    reports = []
    dispatch = gcnemu.GPU.dispatch

    def spy(self, *a, **k):
        reports.append(dispatch(self, *a, **k))
        return reports[-1]
    monkeypatch.setattr(gcnemu.GPU, "dispatch", spy)
    results, case = corpus.run_case(name, gpu=gcnemu.GPU(coherent_caches=True))
    corpus.compare_results(case, results)
    assert not reports[-1].findings, [str(f) for f in reports[-1].findings]
