"""Shared helpers of the benchmark suite: device arguments, the dispatch measurement, child
processes for start-up and memory, and the registry that the end-of-session table reads.

Not a benchmark file itself (the name does not start with ``bench_``); ``benchmarks/conftest.py``
puts this folder on ``sys.path`` so that ``import gcnbench`` works from every bench file.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `kernels` is a top-level package of the repository
    sys.path.insert(0, str(ROOT))

#: section -> list of row dicts; filled by the benchmarks, printed by conftest's summary hook
RESULTS: dict[str, list[dict]] = {}


def record(section: str, **row) -> dict:
    RESULTS.setdefault(section, []).append(row)
    return row


# --------------------------------------------------------------------------- the yardstick
#: ../shared/bench/calibration.py: a plain numba wave interpreter whose rate on the CPU at hand
#: the engine's speed is divided by, so that figures from different machines compare
CALIBRATION = ROOT.parent / "shared" / "bench" / "calibration.py"


def calibration_rate() -> float | None:
    """The calibration interpreter's wave-instructions/s in this process (best of 5), or None
    where ../shared is absent."""
    if not CALIBRATION.is_file():
        return None
    # imported by its own name, as its docstring says: numba's disk cache of its function
    # finds the module again by that name in the next run
    if str(CALIBRATION.parent) not in sys.path:
        sys.path.append(str(CALIBRATION.parent))
    import calibration
    return calibration.rate()


def cpu_description() -> str:
    """The CPU model, core count and widest vector extension, from /proc/cpuinfo."""
    model, flags = "unknown CPU", set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model == "unknown CPU":
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    vector = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    text = f"{model}, {os.cpu_count()} CPUs, {vector}"
    # numba's code generation forced to another CPU (tests/test_portable_codegen.py shows how)
    target = os.environ.get("NUMBA_CPU_NAME")
    if target:
        feats = os.environ.get("NUMBA_CPU_FEATURES", "")
        wide = "with" if "+avx512f" in feats.split(",") else "without"
        text += f"; code generated for {target} {wide} AVX-512 (NUMBA_CPU_NAME)"
    return text


# --------------------------------------------------------------------------- device arguments
def device_args(gpu, args):
    """Corpus-style arguments (In / InOut / Out / Local / numpy scalars) -> dispatch arguments.

    Returns ``(dispatch_args, buffers)`` where ``buffers`` maps an argument index to its device
    Buffer (for reading results back)."""
    import gcnemu
    from kernels.corpus import In, Out

    out, bufs = [], {}
    for i, a in enumerate(args):
        if isinstance(a, In):  # In and InOut
            bufs[i] = gpu.to_device(a.array)
            out.append(bufs[i])
        elif isinstance(a, Out):
            bufs[i] = gpu.empty(a.nbytes)
            out.append(bufs[i])
        elif type(a).__name__ == "Local":
            out.append(gcnemu.Local(a.nbytes))
        else:
            out.append(a)
    return out, bufs


def alternate_modes(benchmark, launch, modes, rounds):
    """Time one bench_dispatch launch in two or more modes: ``modes`` is a list of (GPU
    keyword arguments, dispatch keyword arguments), one GPU each. Each mode dispatches once
    untimed first (numba's compile or cache load; the results to compare), then every timed
    round runs the modes one after the other. Returns (the best process CPU time per mode,
    in seconds; the untimed reports; the device buffers per mode: argument index -> Buffer).

    Why CPU time, best of the rounds: on a machine that other jobs share, a dispatch's wall
    time includes the time its threads wait for a core, which grows with the dispatch's
    length (a 5x longer dispatch is preempted more often), so wall-clock ratios of two modes
    drifted 30-50 % from run to run at load average 4-5; process CPU time (all the
    dispatch's threads, waiting excluded) moved a few percent. The rounds still alternate
    the modes (cache and frequency effects hit them alike). pytest-benchmark's own table
    shows the wall times."""
    import gcnemu
    from kernels import corpus

    k = gcnemu.load(str(corpus.hsaco_path(launch.corpus_name))).kernel(launch.symbol)
    runs, reports, buffers = [], [], []
    for gpu_kw, dispatch_kw in modes:
        gpu = gcnemu.GPU(**gpu_kw)
        args, bufs = device_args(gpu, launch.args)
        reports.append(gpu.dispatch(k, grid=launch.grid, block=launch.block, args=args,
                                    **dispatch_kw))
        buffers.append(bufs)
        runs.append((gpu, args, dispatch_kw))
    times = [[] for _ in modes]

    def run():
        for (gpu, args, dispatch_kw), seconds in zip(runs, times):
            t = time.process_time()
            gpu.dispatch(k, grid=launch.grid, block=launch.block, args=args, **dispatch_kw)
            seconds.append(time.process_time() - t)

    benchmark.pedantic(run, rounds=rounds, iterations=1)
    return [min(s) for s in times], reports, buffers


def same_bytes(buffers) -> bool:
    """Whether every mode's buffers (alternate_modes' third result) hold the same bytes."""
    first = buffers[0]
    return all(np.array_equal(first[i].to_numpy(np.uint8), other[i].to_numpy(np.uint8))
               for other in buffers[1:] for i in first)


def user_bytes(args) -> int:
    """Bytes of the buffers among corpus-style arguments (host copy not counted)."""
    from kernels.corpus import In, Out

    return sum(a.nbytes for a in args if isinstance(a, (In, Out)))


# --------------------------------------------------------------------------- dispatch speed
def measure_dispatch(benchmark, gpu, kernel, grid, block, args, rounds):
    """Benchmark ``gpu.dispatch`` alone (buffers already on the device; one untimed dispatch
    first so that numba's compilation or cache load is not timed).

    Returns ``(first_report, seconds_median, seconds_min)``; the seconds come from
    pytest-benchmark's statistics, or from the reports' own wall time when benchmarking is
    disabled (``--benchmark-disable``)."""
    first = gpu.dispatch(kernel, grid=grid, block=block, args=args)
    reports = []

    def run():
        rep = gpu.dispatch(kernel, grid=grid, block=block, args=args)
        reports.append(rep)
        return rep

    benchmark.pedantic(run, rounds=rounds, iterations=1, warmup_rounds=0)
    stats = getattr(benchmark, "stats", None)
    if stats is not None and getattr(stats, "stats", None) is not None:
        med, best = stats.stats.median, stats.stats.min
    else:
        walls = sorted(r.wall_seconds for r in reports)
        med, best = walls[len(walls) // 2], walls[0]
    for r in reports:
        assert r.instructions == first.instructions, "instruction count differs between runs"
    return first, med, best


def record_speed(benchmark, section, label, rep, seconds, best, **extra):
    winst = rep.instructions
    rate = winst / seconds if seconds > 0 else float("nan")
    benchmark.extra_info.update(winst=winst, waves=rep.waves, seconds_median=seconds,
                                seconds_min=best, winst_per_s=rate,
                                winst_per_s_best=winst / best if best > 0 else float("nan"), **extra)
    return record(section, kernel=label, winst=winst, waves=rep.waves, seconds=seconds,
                  best=best, rate=rate, **extra)


# --------------------------------------------------------------------------- child processes
def run_child(code: str, *, cwd, env_extra=None, drop_env=(), timeout=1800):
    """Run ``python -c code`` in a fresh process; returns (wall s, child CPU s, parsed JSON of
    the last stdout line)."""
    import resource

    env = dict(os.environ)
    for k in drop_env:
        env.pop(k, None)
    env.update(env_extra or {})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(cwd), env=env,
                          capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"child process failed (rc {proc.returncode}):\n{proc.stdout[-2000:]}\n"
                           f"{proc.stderr[-4000:]}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    return wall, cpu, json.loads(lines[-1])


#: first dispatch of saxpy (4096 work-items) in a fresh process, checked against numpy
STARTUP_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import gcnemu
t1 = time.perf_counter()
n = 4096
gpu = gcnemu.GPU()
k = gcnemu.load(sys.argv[1] if len(sys.argv) > 1 else {hsaco!r}).kernel("saxpy")
x = np.arange(n, dtype=np.float32); y = np.ones(n, np.float32)
dy = gpu.to_device(y); dx = gpu.to_device(x)
rep = gpu.dispatch(k, grid=(n,), block=(256,), args=[dy, dx, np.float32(2.0), np.uint32(n)])
t2 = time.perf_counter()
assert np.array_equal(dy.to_numpy(np.float32), np.float32(2.0) * x + y)
print(json.dumps(dict(file=gcnemu.__file__, import_s=t1 - t0, first_dispatch_s=t2 - t1,
                      winst=rep.instructions)))
"""

#: emulator memory beyond the user buffers for one saxpy dispatch of n work-items
MEMORY_CHILD = r"""
import gc, json, resource, time
import numpy as np
import gcnemu

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return -1

n = {n}
gpu = gcnemu.GPU()
k = gcnemu.load({hsaco!r}).kernel("saxpy")
# warm-up dispatch on a small size: numba's compilation / cache load is not the overhead we want
sx = gpu.to_device(np.zeros(4096, np.float32)); sy = gpu.to_device(np.zeros(4096, np.float32))
gpu.dispatch(k, grid=(4096,), block=(256,), args=[sy, sx, np.float32(2.0), np.uint32(4096)])
gc.collect()
maxrss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
rss0 = status("VmRSS")
x = np.arange(n, dtype=np.float32); y = np.ones(n, np.float32)
dy = gpu.to_device(y); dx = gpu.to_device(x)
host_bytes = x.nbytes + y.nbytes
dev_bytes = x.nbytes + y.nbytes
rss1 = status("VmRSS")
try:   # reset the peak (VmHWM) so that it measures the dispatch alone
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    hwm_reset = status("VmHWM") <= rss1 + 4096 * 64
except OSError:
    hwm_reset = False
t = time.perf_counter()
rep = gpu.dispatch(k, grid=(n,), block=(256,), args=[dy, dx, np.float32(2.0), np.uint32(n)])
dt = time.perf_counter() - t
maxrss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
hwm = status("VmHWM")
assert np.array_equal(dy.to_numpy(np.float32, n), np.float32(2.0) * x + y)
print(json.dumps(dict(n=n, waves=rep.waves, seconds=dt, maxrss0=maxrss0, maxrss1=maxrss1,
                      rss0=rss0, rss1=rss1, hwm=hwm, hwm_reset=hwm_reset,
                      host_bytes=host_bytes, dev_bytes=dev_bytes)))
"""
