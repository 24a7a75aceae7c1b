"""Dispatches on several workers (GPU.dispatch(..., workers=N)): the calling thread and a GPU's
pool of helper threads share the batches. A launch too small to split runs on the calling
thread and says so; an exception in a helper reaches the caller; concurrent dispatches (two
GPUs, or one GPU from two Python threads) give correct results; a GPU that is garbage
collected leaves no thread behind. Expected values come from numpy, never from a run."""
from __future__ import annotations

import gc
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.launch import Launch

ROOT = Path(__file__).resolve().parents[1]
SAXPY = ROOT / "kernels" / "saxpy" / "kernel.hsaco"   # y = a * x + y, args (y, x, a, n)


def _helper_threads():
    return {t for t in threading.enumerate() if t.name.startswith("gcnemu-worker")}


def _saxpy(gpu, n, a, y0, workers, block=64):
    x = np.arange(n, dtype=np.float32)
    y = gpu.to_device(np.full(n, y0, np.float32))
    rep = gpu.dispatch(gcnemu.load(SAXPY).kernel("saxpy"), grid=(n,), block=(block,),
                       args=[y, gpu.to_device(x), np.float32(a), np.uint32(n)], workers=workers)
    # small integers: a * x + y is exact in float32, with or without a fused multiply-add
    return rep, y.to_numpy(np.float32), np.float32(a) * x + np.float32(y0)


def test_small_launch_runs_on_the_calling_thread_and_says_so():
    gpu = gcnemu.GPU()             # 128 waves per batch: 64 waves are one batch
    before = _helper_threads()
    rep, got, want = _saxpy(gpu, 64 * 64, 3, 5, workers=2)
    assert rep.workers == 1 and rep.serial_reason.startswith("small launch: its 64 waves")
    assert np.array_equal(got, want)
    # no helper was started for it (a subset, not equality: helpers of GPUs that earlier tests
    # dropped may still be ending meanwhile)
    assert not _helper_threads() - before
    rep1, got1, _ = _saxpy(gpu, 64 * 64, 3, 5, workers=1)
    assert rep1.workers == 1 and rep1.serial_reason == ""
    assert np.array_equal(got1, got)


def test_launch_of_several_batches_runs_on_the_workers_asked_for():
    gpu = gcnemu.GPU(waves_per_batch=16)
    rep, got, want = _saxpy(gpu, 64 * 64, 2, 1, workers=2)
    assert rep.workers == 2 and rep.serial_reason == ""
    assert np.array_equal(got, want)


def test_exception_in_a_helper_thread_reaches_the_caller(monkeypatch):
    gpu = gcnemu.GPU(waves_per_batch=8)
    run_batch = Launch.run_batch
    helper_ran = threading.Event()

    def failing_in_helpers(self, *args):
        if threading.current_thread() is threading.main_thread():
            # the caller's first batch waits until a helper has taken the next one, so that
            # the failure surely happens on a helper thread
            assert helper_ran.wait(30)
            return run_batch(self, *args)
        helper_ran.set()
        raise RuntimeError("failure inside a helper")

    monkeypatch.setattr(Launch, "run_batch", failing_in_helpers)
    with pytest.raises(RuntimeError, match="failure inside a helper"):
        _saxpy(gpu, 64 * 64, 3, 1, workers=2)
    assert helper_ran.is_set()
    monkeypatch.setattr(Launch, "run_batch", run_batch)
    rep, got, want = _saxpy(gpu, 64 * 64, 3, 1, workers=2)   # the pool still works
    assert rep.workers == 2 and np.array_equal(got, want)


@pytest.mark.parametrize("shared_gpu", [False, True], ids=["two GPUs", "one GPU"])
def test_concurrent_dispatches_from_two_python_threads(shared_gpu):
    """Each thread dispatches its own saxpy (its own size and factor) with workers=2 and checks
    every round. Buffers and launches are made before the threads start: an allocation that
    would grow GPU memory while the other thread's dispatch runs raises MemoryFault."""
    gpus = [gcnemu.GPU(waves_per_batch=8)] * 2 if shared_gpu else \
        [gcnemu.GPU(waves_per_batch=8) for _ in range(2)]
    kernel = gcnemu.load(SAXPY).kernel("saxpy")
    clients = []
    for i, gpu in enumerate(gpus):
        n = 64 * 96 + 32 * i
        x = np.arange(n, dtype=np.float32)
        y = gpu.to_device(np.zeros(n, np.float32))
        launch = dict(grid=(n,), block=(64,), args=[y, gpu.to_device(x), np.float32(i + 2), np.uint32(n)])
        gpu.dispatch(kernel, workers=2, **launch)
        clients.append((gpu, x, y, launch))
    outcomes = {}

    def client(i):
        gpu, x, y, launch = clients[i]
        try:
            for rnd in range(6):
                y.write(np.full(len(x), rnd, np.float32))
                rep = gpu.dispatch(kernel, workers=2, **launch)
                want = np.float32(i + 2) * x + np.float32(rnd)   # exact: small integers
                outcomes.setdefault(i, []).append(rep.workers == 2 and
                                                  np.array_equal(y.to_numpy(np.float32), want))
        except BaseException as e:   # noqa: BLE001 - reported by the assertion below
            outcomes[i] = e

    threads = [threading.Thread(target=client, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert outcomes == {0: [True] * 6, 1: [True] * 6}


def test_memory_stays_locked_until_the_last_concurrent_dispatch_ends(monkeypatch):
    """Thread A's dispatch is held inside a batch while the main thread runs a whole dispatch
    on the same GPU: when that one ends, an allocation that would grow (move) the backing
    array under A's engine must still fail rather than lose A's stores."""
    gpu = gcnemu.GPU(waves_per_batch=8)
    run_batch = Launch.run_batch
    inside, release = threading.Event(), threading.Event()

    def held_in_thread_a(self, *args):
        if threading.current_thread().name == "A":
            inside.set()
            assert release.wait(30)
        return run_batch(self, *args)

    monkeypatch.setattr(Launch, "run_batch", held_in_thread_a)
    result = {}
    a = threading.Thread(name="A", target=lambda: result.update(a=_saxpy(gpu, 64 * 32, 2, 1, workers=1)))
    a.start()
    try:
        assert inside.wait(30)
        rep, got, want = _saxpy(gpu, 64 * 16, 3, 4, workers=1)
        assert np.array_equal(got, want)
        with pytest.raises(gcnemu.MemoryFault, match="grow during a dispatch"):
            gpu.empty(2 * gpu.memory.data.size)
    finally:
        release.set()
        a.join(30)
    _, got, want = result["a"]
    assert np.array_equal(got, want)
    gpu.empty(2 * gpu.memory.data.size)        # no dispatch runs: the array may grow


def test_helper_threads_exit_when_the_gpu_is_garbage_collected():
    before = _helper_threads()
    gpu = gcnemu.GPU(waves_per_batch=8)
    rep, got, want = _saxpy(gpu, 64 * 64, 3, 1, workers=3)
    assert rep.workers == 3 and np.array_equal(got, want)
    helpers = _helper_threads() - before
    assert 1 <= len(helpers) <= 2
    del gpu, rep
    # a helper slow to wake may start (and find no batch) after the dispatch returned: while
    # it runs, its work item holds the launch, so the GPU becomes garbage only once it is
    # done; collect until then
    deadline = time.monotonic() + 30
    while any(t.is_alive() for t in helpers) and time.monotonic() < deadline:
        gc.collect()
        for t in helpers:
            t.join(0.1)
    assert not any(t.is_alive() for t in helpers)
