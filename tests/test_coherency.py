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

import time
from pathlib import Path

import numpy as np
import pytest
from test_sanitizer import _PROLOGUE, _VMCNT

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


def test_uav_example_on_64_cus(prog):
    """The most CUs the mode models (a line's writer CUs are a 64-bit set): CU 63 writes the
    lines CU 0 read (produce reverses the index), and CU 0 reads them stale without the L1
    invalidate; 65 CUs is a clear error."""
    n = 64 * 64
    ids = np.arange(n, dtype=np.uint32)
    for invalidate_l1 in (True, False):
        g = gcnemu.GPU(coherent_caches=True, num_cus=64)
        uav = g.to_device(ids * 3)
        out = g.empty(n, np.uint32)
        q = g.queue()
        q.dispatch(prog.kernel("consume"), (n,), (64,), [out, uav])
        q.partial_flush()
        q.dispatch(prog.kernel("produce"), (n,), (64,), [uav, np.uint32(1000)])
        q.partial_flush()
        if invalidate_l1:
            q.cache_op("l1", invalidate=True)
        q.dispatch(prog.kernel("consume"), (n,), (64,), [out, uav])
        _release(q)
        res = q.submit()
        np.testing.assert_array_equal(uav.to_numpy(), 1000 + ids)
        np.testing.assert_array_equal(out.to_numpy(), 2 * (1000 + ids) if invalidate_l1
                                      else 2 * 3 * ids)
        assert _kinds(res.findings) == (set() if invalidate_l1 else {"stale-l1"})
    with pytest.raises(gcnemu.GcnEmuError, match="1 to 64 CUs, not 65"):
        gcnemu.GPU(coherent_caches=True, num_cus=65)


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


# --- the sanitizer in coherency-accurate mode ------------------------------------------------
def _uav_sanitized(prog, workers):
    g = gcnemu.GPU(coherent_caches=True, waves_per_batch=2)       # 6 batches
    a, b = g.to_device(IDS * 3), g.to_device(IDS * 5)
    out = g.empty(N, np.uint32)
    pair, produce = prog.kernel("consume_pair"), prog.kernel("produce")
    q = g.queue()
    q.dispatch(pair, (N,), (64,), [out, a, b])       # each CU's L1 takes its lines of a, b
    q.partial_flush()
    q.dispatch(produce, (N,), (64,), [a, np.uint32(1000)], workers=workers)
    q.partial_flush()                                 # ...but no cache_op("l1")
    q.dispatch(produce, (N,), (64,), [b, np.uint32(2000)], workers=workers)
    q.dispatch(pair, (N,), (64,), [out, a, b], sanitize=True, workers=workers)   # no barrier
    _release(q)
    res = q.submit()
    np.testing.assert_array_equal(out.to_numpy(), IDS * 3 + IDS * 5)      # both old
    np.testing.assert_array_equal(a.to_numpy(), 1000 + IDS)
    np.testing.assert_array_equal(b.to_numpy(), 2000 + IDS)
    assert res[3].workers == workers
    return res.findings, a, b


def test_sanitizer_with_the_uav_example_unsynchronised(prog):
    """The seed's UAV example without its synchronisation, the consumer sanitized: source a
    was written behind a barrier but no L1 invalidate (its CUs' L1s hold it stale: stale-l1),
    source b by a dispatch with no barrier after it (it may still run: missing-sync). The
    consumer sees both old values; the findings are the same with one or two workers."""
    seen = []
    for workers in (1, 2):
        findings, a, b = _uav_sanitized(prog, workers)
        stale = [f for f in findings if f.kind == "stale-l1"]
        sync = [f for f in findings if f.kind == "missing-sync"]
        assert _kinds(findings) == {"stale-l1", "missing-sync"}    # the kernel is race-free
        assert [f.address // 64 for f in stale] == [a.address // 64]   # workgroup 0's first
        assert [f.address // 64 for f in sync] == [b.address // 64]
        assert stale[0].count == sync[0].count == 12 * 4   # 12 waves, 4 lines each
        assert "#2 produce" in sync[0].detail and "#1 produce" in stale[0].detail
        seen.append(sorted(str(f) for f in findings))
    assert seen[0] == seen[1]


# out[gid] = in[gid] + 1, the loaded value used before the s_waitcnt that covers its load:
# tests/test_sanitizer.py's unwaited-read kernel
_UNWAITED = _PROLOGUE + _VMCNT.format(wait="")


def test_unwaited_read_in_coherent_mode(prog, tmp_path):
    """A consumer that uses its loaded value before the s_waitcnt, reading a UAV whose new
    data its L1 does not see: one report has the sanitizer's unwaited-read and the mode's
    stale-l1, the same with one or two workers; the runtime's path (gpu.dispatch) the
    unwaited-read only, and the new data."""
    path = tmp_path / "unwaited.s"
    path.write_text(_UNWAITED)
    k = gcnemu.load(str(path)).kernel("unwaited")
    seen = []
    for workers in (1, 2):
        g = gcnemu.GPU(coherent_caches=True, waves_per_batch=2)
        uav, out = g.to_device(IDS * 3), g.empty(N, np.uint32)
        q = g.queue()
        q.dispatch(k, (N,), (64,), [uav, out])                 # the L1s take uav's lines
        q.partial_flush()
        q.dispatch(prog.kernel("produce"), (N,), (64,), [uav, np.uint32(1000)])
        q.partial_flush()
        q.dispatch(k, (N,), (64,), [uav, out], sanitize=True, workers=workers)
        _release(q)
        res = q.submit()
        np.testing.assert_array_equal(out.to_numpy(), IDS * 3 + 1)     # the old uav, + 1
        assert _kinds(res.findings) == {"unwaited-read", "stale-l1"}
        [f] = [f for f in res.findings if f.kind == "unwaited-read"]
        assert f.instruction.startswith("v_add_i32_e32 v4, vcc, 1, v4") and f.count == 12
        assert (f.wave, f.workgroup) == (0, 0)
        [s] = [f for f in res.findings if f.kind == "stale-l1"]
        assert s.instruction.startswith("flat_load_dword v4") and s.count == 12 * 4
        seen.append(sorted(str(f) for f in res.findings))
        rep = g.dispatch(k, (N,), (64,), [uav, out], sanitize=True, workers=workers)
        np.testing.assert_array_equal(out.to_numpy(), 1000 + IDS + 1)
        assert [f.kind for f in rep.findings] == ["unwaited-read"]
    assert seen[0] == seen[1]


def test_time_limit_holds_for_the_whole_dispatch(prog, monkeypatch):
    """A dispatch that runs CU by CU (a stale L1) is many engine runs: each gets the same
    deadline, time_limit seconds after the dispatch began, not a fresh time_limit."""
    import gcnemu.launch as L
    deadlines = []
    run = L.Launch.run

    def spy(self, *a, **k):
        deadlines.append(k.get("deadline"))
        return run(self, *a, **k)
    g = gcnemu.GPU(coherent_caches=True)
    uav, out = g.to_device(IDS), g.empty(N, np.uint32)
    q = g.queue()
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, uav])
    q.partial_flush()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [uav, np.uint32(1)])
    q.partial_flush()
    q.submit()
    monkeypatch.setattr(L.Launch, "run", spy)
    q = g.queue()
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, uav], time_limit=50.0)
    t0 = time.monotonic()
    q.submit()
    t1 = time.monotonic()
    assert len(deadlines) == 12 and len(set(deadlines)) == 1      # one run per CU
    assert t0 + 50.0 <= deadlines[0] <= t1 + 50.0


# --- 2b. the render target read as a texture: image stores and loads through the L1 ----------
def _image(g, texels, w, h):
    """gcnemu's OpenCL image object (gcnemu.loader.climage) of a w x h image of uint (order
    R, UNSIGNED_INT32) whose texels are the Buffer ``texels``."""
    from gcnemu.loader.climage import CHANNEL_ORDERS, CHANNEL_TYPES, image_object_words
    words = image_object_words(texels.address, CHANNEL_ORDERS["R"],
                               CHANNEL_TYPES["UNSIGNED_INT32"], (w, h))
    return g.to_device(np.array(words, np.uint32))


@pytest.mark.parametrize("invalidate_l1", [True, False])
def test_render_target_read_as_texture(prog, invalidate_l1):
    """The seed's second example with image instructions: the consumer's texture reads
    (image_load) leave the texels in each CU's L1; a render-target write (image_store, from
    other CUs) and a barrier follow; without the L1 invalidate the seed prescribes the
    consumer reads the old texels, and a stale-l1 finding names its image_load."""
    g = gcnemu.GPU(coherent_caches=True)
    w, h = 64, 12                      # a row of 64 uint texels (4 lines) per workgroup, one per CU
    texels = g.to_device(IDS * 7)
    img = _image(g, texels, w, h)
    out = g.empty(N, np.uint32)
    read, write = prog.kernel("texture_read"), prog.kernel("render_target_write")
    q = g.queue()
    q.dispatch(read, (w, h), (64, 1), [out, img])          # each CU's L1 takes its row
    q.partial_flush()
    q.dispatch(write, (w, h), (64, 1), [img, np.uint32(1000)])
    q.partial_flush()
    if invalidate_l1:
        q.cache_op("l1", invalidate=True)
    q.dispatch(read, (w, h), (64, 1), [out, img])
    _release(q)
    res = q.submit()
    np.testing.assert_array_equal(texels.to_numpy(), 1000 + IDS)
    np.testing.assert_array_equal(out.to_numpy(), 1000 + IDS if invalidate_l1 else IDS * 7)
    if invalidate_l1:
        assert not res.findings, [str(f) for f in res.findings]
    else:
        [f] = res.findings
        assert f.kind == "stale-l1" and f.kernel == "texture_read"
        assert f.instruction.startswith("image_load") and f.address == texels.address
        assert f.count == 12 * 4 and "render_target_write" in f.detail


# --- capacity: the L1 holds 16 KB ------------------------------------------------------------
@pytest.mark.parametrize("kb_per_cu, evicted", [(16, True), (8, False)])
def test_stale_line_evicted_by_capacity_is_read_fresh(prog, kb_per_cu, evicted):
    """The UAV example without the L1 invalidate, with a dispatch between that reads
    ``kb_per_cu`` KB on every CU. Each L1 (TimingConfig: 16 KB, 64-way, so 4 sets; line x in
    set x mod 4) holds a handful of older lines per set (its 4 lines of the UAV, the lines
    of out its consumer wrote, those the producer's stores left): 16 KB read (64 new lines a
    set) evicts them all, LRU, and the consumer reads the UAV's new data from the L2; 8 KB
    (32 a set) leaves them, and it reads the stale data."""
    g = gcnemu.GPU(coherent_caches=True)
    uav, out = g.to_device(IDS * 3), g.empty(N, np.uint32)
    items = kb_per_cu * 1024 // 4 * 12                # per CU kb_per_cu KB: its share
    big, flag = g.to_device(np.zeros(items, np.uint32)), g.empty(1, np.uint32)
    consume = prog.kernel("consume")
    q = g.queue()
    q.dispatch(consume, (N,), (64,), [out, uav])             # the L1s take uav's lines
    q.partial_flush()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [uav, np.uint32(1000)])
    q.partial_flush()
    q.dispatch(prog.kernel("touch"), (items,), (64,), [flag, big])
    q.partial_flush()
    q.dispatch(consume, (N,), (64,), [out, uav])             # no cache_op("l1")
    _release(q)
    res = q.submit()
    np.testing.assert_array_equal(out.to_numpy(), 2 * (1000 + IDS) if evicted else 2 * IDS * 3)
    assert (not res.findings) if evicted else _kinds(res.findings) == {"stale-l1"}
    assert g.coherent.valid_lines("l1") <= 12 * 256                  # 256 lines per CU


# --- capacity: the L2 holds 512 KB ------------------------------------------------------------
@pytest.mark.parametrize("kb, evicted", [(512, True), (256, False)])
def test_l2_capacity(prog, kb, evicted):
    """The L2 (TimingConfig: 4 channels of 128 KB, 8-way; line n in channel n mod 4, set
    n // 4 mod 256) holds what a dispatch wrote, dirty, and a line older than memory after a
    host write. A dispatch that reads ``kb`` KB of other lines in between: 512 KB is 8 new
    lines in every set, which evicts the older ones (LRU): the dirty lines go to memory (the
    host sees them without a write-back) and the old copy is dropped (the next load reads
    memory: no stale data, no finding); 256 KB (4 a set) evicts none."""
    g = gcnemu.GPU(coherent_caches=True)
    uav, src, out = g.to_device(IDS * 3), g.to_device(IDS * 5), g.empty(N, np.uint32)
    big, flag = g.to_device(np.zeros(kb * 256, np.uint32)), g.empty(1, np.uint32)
    q = g.queue()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [uav, np.uint32(1000)])   # dirty in L2
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, src])               # src in L2
    q.partial_flush()
    q.submit()
    np.testing.assert_array_equal(uav.to_numpy(), IDS * 3)         # not written back yet
    src.write(IDS * 7)                                             # the L2's copy is old
    q = g.queue()
    q.dispatch(prog.kernel("touch"), (kb * 256,), (64,), [flag, big])
    q.partial_flush()
    q.cache_op("l1", invalidate=True)
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, src])
    res = q.submit()
    np.testing.assert_array_equal(uav.to_numpy(), 1000 + IDS if evicted else IDS * 3)
    q = g.queue()
    _release(q)
    q.submit()
    np.testing.assert_array_equal(out.to_numpy(), 2 * IDS * (7 if evicted else 5))
    if evicted:
        assert not res.findings, [str(f) for f in res.findings]
    else:
        [f] = res.findings
        assert f.kind == "missing-sync" and "L2" in f.detail and f.address == src.address
    np.testing.assert_array_equal(uav.to_numpy(), 1000 + IDS)


def test_reading_a_dirty_line_leaves_no_stale_flag(prog):
    """A dispatch reads lines another left dirty in the L2 (the engine runs on the L2's
    data): after it the host has written nothing, and a later consumer gets no finding."""
    g = gcnemu.GPU(coherent_caches=True)
    uav, out = g.to_device(IDS * 3), g.empty(N, np.uint32)
    q = g.queue()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [uav, np.uint32(1000)])
    q.partial_flush()
    q.cache_op("l1", invalidate=True)
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, uav])
    q.partial_flush()
    q.cache_op("l2", writeback=True, invalidate=False)
    q.cache_op("l1", invalidate=True)
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, uav])
    _release(q)
    res = q.submit()
    np.testing.assert_array_equal(out.to_numpy(), 2 * (1000 + IDS))
    assert not res.findings, [str(f) for f in res.findings]
    assert g.coherent.stale_lines("l2") == 0


@pytest.mark.parametrize("lines, evicted", [(256, True), (128, False)])
def test_k_cache_capacity(prog, lines, evicted):
    """The seed's first example with the L2 invalidate but not the K$'s: the K$ (TimingConfig:
    16 KB, 4-way, so 64 sets; one per 4 CUs) keeps the constant buffer's old line, unless a
    dispatch between read enough other lines through it with scalar loads: 256 lines (4 in
    every set) evict it, LRU; 128 (2 a set) do not."""
    g = gcnemu.GPU(coherent_caches=True)
    k = prog.kernel("scale_by_constant")
    cb, out = g.to_device(np.array([3, 5], np.uint32)), g.empty(N, np.uint32)
    table, total = g.to_device(np.ones(lines * 16, np.uint32)), g.empty(1, np.uint32)
    q = g.queue()
    q.dispatch(k, (N,), (64,), [out, cb])              # every K$ takes cb's line
    _release(q)
    q.submit()
    cb.write(np.array([7, 11], np.uint32))             # the CPU updates the constant buffer
    q = g.queue()
    q.dispatch(prog.kernel("scalar_lines"), (N,), (64,), [total, table, np.uint32(lines)])
    q.partial_flush()
    q.cache_op("l2", invalidate=True)                  # ...but not cache_op("k")
    q.dispatch(k, (N,), (64,), [out, cb])
    _release(q)
    res = q.submit()
    assert total.to_numpy()[0] == lines
    np.testing.assert_array_equal(out.to_numpy(), 7 * IDS + 11 if evicted else 3 * IDS + 5)
    if evicted:
        assert not res.findings, [str(f) for f in res.findings]
    else:
        assert _kinds(res.findings) == {"missing-sync"} and "K$" in res.findings[0].detail


@pytest.mark.parametrize("steps, evicted", [(64, True), (16, False)])
def test_stale_line_evicted_within_the_dispatch(prog, steps, evicted):
    """The consumer itself streams through ``steps`` x 256 bytes per wave before it reads the
    UAV its L1 holds stale: 64 steps are 64 new lines in each of the L1's 4 sets (64-way),
    which evict the stale lines first, so the read gets the L2's new data; 16 steps do not."""
    g = gcnemu.GPU(coherent_caches=True)
    uav, out = g.to_device(IDS * 3), g.empty(N, np.uint32)
    big = g.to_device(np.zeros(12 * steps * 64, np.uint32))
    q = g.queue()
    q.dispatch(prog.kernel("consume"), (N,), (64,), [out, uav])     # the L1s take uav's lines
    q.partial_flush()
    q.dispatch(prog.kernel("produce"), (N,), (64,), [uav, np.uint32(1000)])
    q.partial_flush()                                                # no cache_op("l1")
    q.dispatch(prog.kernel("consume_after_stream"), (N,), (64,),
               [out, uav, big, np.uint32(steps)])
    _release(q)
    res = q.submit()
    np.testing.assert_array_equal(out.to_numpy(), 2 * (1000 + IDS) if evicted else 2 * IDS * 3)
    assert (not res.findings) if evicted else _kinds(res.findings) == {"stale-l1"}
