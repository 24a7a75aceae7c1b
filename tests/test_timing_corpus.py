"""Timing is a layer: corpus kernels give the same bits with timing on and off, and the
timing result is deterministic (also with 2 workers)."""
import numpy as np
import pytest

import gcnemu
from kernels import corpus

@pytest.mark.parametrize("name", corpus.list_kernels())
def test_same_results_with_timing_on_and_off(name):
    off, case = corpus.run_case(name, gcnemu.GPU(), seed=3)
    gpu = gcnemu.GPU(timing=True)
    reports = []
    dispatch = gpu.dispatch

    def keep(*a, **k):
        reports.append(dispatch(*a, **k))
        return reports[-1]

    gpu.dispatch = keep
    on, _ = corpus.run_case(name, gpu, seed=3)
    assert off.keys() == on.keys()
    for i in off:
        assert off[i].tobytes() == on[i].tobytes(), f"{name}: output {i} differs with timing on"
    corpus.compare_results(case, on)
    rep = reports[-1]
    assert rep.cycles > 0 and rep.wave_cycles.shape == (rep.waves, 2)
    assert (rep.wave_cycles[:, 1] >= rep.wave_cycles[:, 0]).all()
    assert rep.counters["GRBM_GUI_ACTIVE"] == rep.cycles >= rep.wave_cycles[:, 1].max()
    # where the cycles went: each wave's lifetime split exactly among its instructions
    pc = rep.pc_cycles
    spent = pc["issue"].sum() + sum(pc[r].sum() for r in rep.stall_reasons)
    assert spent == rep.counters["SQ_WAVE_CYCLES"] == \
        (rep.wave_cycles[:, 1] - rep.wave_cycles[:, 0]).sum()
    assert pc["count"].sum() == rep.counters["SQ_INSTS"]
    assert all((pc[r] >= 0).all() for r in rep.stall_reasons)
    assert rep.stalls == {r: int(pc[r].sum()) for r in rep.stall_reasons}
    assert 0 < rep.achieved_occupancy <= rep.occupancy.waves_per_simd


def _timed(workers, gpu=None):
    gpu = gpu or gcnemu.GPU(timing=True, waves_per_batch=32)
    prog = gcnemu.load(str(corpus.hsaco_path("mandelbrot"))).kernel("mandelbrot")
    out = gpu.empty(64 * 48 * 4)
    args = [out, np.float32(-2.2), np.float32(-1.2), np.float32(3.0 / 64), np.float32(2.4 / 48),
            np.uint32(60)]
    rep = gpu.dispatch(prog, grid=(64, 48), block=(16, 8), args=args, workers=workers)
    return rep, out.to_numpy(np.uint32)


def test_timing_is_deterministic_with_workers():
    r1, o1 = _timed(1)
    r2, o2 = _timed(2)
    assert r1.cycles > 0 and r1.cycles == r2.cycles
    assert r1.counters == r2.counters
    assert np.array_equal(r1.wave_cycles, r2.wave_cycles)
    assert np.array_equal(r1.pc_cycles, r2.pc_cycles)
    assert np.array_equal(o1, o2)


@pytest.mark.parametrize("workers", [1, 2])
def test_trace_buffers_grow(monkeypatch, workers):
    """A batch whose trace outgrows the buffer resumes after growing it, and the per-worker
    stream buffers grow keeping the earlier batches' streams: same cycles, twice in a row
    (the second dispatch reuses the grown buffers)."""
    import gcnemu.launch as G
    r1, _ = _timed(1)
    orig = G.BatchState.__init__

    def small(self, *a, **k):
        orig(self, *a, **k)
        if self.trace is not None:     # the trace is the streams array's rest
            self.streams = self.trace = np.zeros(64, np.int64)
            self.trace_room = 512

    monkeypatch.setattr(G.BatchState, "__init__", small)
    gpu = gcnemu.GPU(timing=True, waves_per_batch=32)
    for _ in range(2):
        gpu.caches.flush("all")      # as cold as the first GPU's (the caches outlive dispatches)
        r2, _ = _timed(workers, gpu)
        assert r2.cycles == r1.cycles and r2.counters == r1.counters
        assert np.array_equal(r2.wave_cycles, r1.wave_cycles)
