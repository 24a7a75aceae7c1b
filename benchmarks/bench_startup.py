"""Start-up time and memory overhead, each measured in a fresh Python process.

Run:  python -m pytest benchmarks/bench_startup.py --benchmark-only

* warm start: ``python -c "import gcnemu; <first saxpy dispatch>"`` with numba's on-disk cache
  present (one untimed run first makes sure it is; then 3 timed runs). Target < 3 s.
* cold start: the same in a copy of the ``gcnemu`` package without ``__pycache__`` (numba
  caches next to the sources, so the copy starts with an empty cache and the shared cache is
  left alone); the child runs with ``PYTHONPATH`` = the copy and its working directory there,
  and it checks that it imported the copy. Run once (a minute or more of compilation on the
  2-core machine). Target < 60 s. ``GCNEMU_BENCH_COLD=0`` skips it.
* memory: peak resident memory growth of one saxpy dispatch of 10^6 work-items, beyond the
  user buffers (host arrays and device copies), after a warm-up dispatch.

Wall times include the interpreter start; the child CPU time (user + system) is shown as well,
because on the shared machine the wall time of a compilation depends on the load.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import gcnbench
from kernels import corpus

SAXPY = str(corpus.hsaco_path("saxpy"))
CODE = gcnbench.STARTUP_CHILD.replace("{hsaco!r}", repr(SAXPY))


def _check_file(info, expected_dir):
    got = Path(info["file"]).resolve()
    assert Path(expected_dir).resolve() in got.parents, f"child imported {got}, not the copy in {expected_dir}"


def test_warm_start(benchmark):
    benchmark.group = "start-up"
    root = gcnbench.ROOT
    # make sure the cache is warm (a jitted source edited since the last run drops it)
    gcnbench.run_child(CODE, cwd=root)
    runs = []

    def run():
        runs.append(gcnbench.run_child(CODE, cwd=root))

    benchmark.pedantic(run, rounds=3, iterations=1)
    runs.sort(key=lambda r: r[0])
    wall, cpu, info = runs[len(runs) // 2]
    _check_file(info, root / "gcnemu")
    benchmark.extra_info.update(wall_s=wall, cpu_s=cpu, **{k: info[k] for k in ("import_s", "first_dispatch_s")})
    gcnbench.record("startup", case="warm", wall=wall, cpu=cpu, import_s=info["import_s"],
                    first_dispatch_s=info["first_dispatch_s"], target="< 3 s",
                    note=f"median of 3 ({', '.join(f'{r[0]:.2f}' for r in runs)} s)")


def test_cold_start(benchmark, tmp_path):
    benchmark.group = "start-up"
    if os.environ.get("GCNEMU_BENCH_COLD", "1") == "0":
        gcnbench.record("startup", case="cold", target="< 60 s", note="skipped (GCNEMU_BENCH_COLD=0)")
        pytest.skip("GCNEMU_BENCH_COLD=0")
    copy = tmp_path / "cold"
    shutil.copytree(gcnbench.ROOT / "gcnemu", copy / "gcnemu",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    out = {}

    def run():
        out["r"] = gcnbench.run_child(CODE, cwd=copy, env_extra={"PYTHONPATH": str(copy)},
                                      drop_env=("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT"))

    benchmark.pedantic(run, rounds=1, iterations=1)
    wall, cpu, info = out["r"]
    _check_file(info, copy / "gcnemu")
    benchmark.extra_info.update(wall_s=wall, cpu_s=cpu, **{k: info[k] for k in ("import_s", "first_dispatch_s")})
    gcnbench.record("startup", case="cold", wall=wall, cpu=cpu, import_s=info["import_s"],
                    first_dispatch_s=info["first_dispatch_s"], target="< 60 s",
                    note="one run, empty numba cache")


def test_memory_overhead(benchmark):
    benchmark.group = "memory"
    n = 10**6
    code = gcnbench.MEMORY_CHILD.replace("{hsaco!r}", repr(SAXPY)).replace("{n}", str(n))
    out = {}

    def run():
        out["r"] = gcnbench.run_child(code, cwd=gcnbench.ROOT)

    benchmark.pedantic(run, rounds=1, iterations=1)
    _, _, m = out["r"]
    mb = 2**20
    user = m["host_bytes"] + m["dev_bytes"]
    # ru_maxrss growth from before the user buffers to after the dispatch, minus the buffers
    # (an underestimate when the warm-up's peak was higher than what followed)
    via_maxrss = (m["maxrss1"] - m["maxrss0"] - user) / mb
    # VmHWM reset just before the dispatch: its peak beyond the resident set with buffers made
    via_hwm = (m["hwm"] - m["rss1"]) / mb if m["hwm_reset"] else None
    benchmark.extra_info.update(base_rss_mb=m["rss0"] / mb, overhead_mb_maxrss=via_maxrss, overhead_mb_hwm=via_hwm,
                                user_mb=user / mb, waves=m["waves"], seconds=m["seconds"])
    text = (f"saxpy n=10^6 ({m['waves']} waves, {m['seconds']:.2f} s): process RSS {m['rss0'] / mb:.0f} MB "
            f"after import + warm-up (numba, LLVM, numpy); user buffers {user / mb:.1f} MB "
            f"(host {m['host_bytes'] / mb:.1f} + device {m['dev_bytes'] / mb:.1f}); emulator overhead: ")
    if via_hwm is not None:
        text += f"{via_hwm:.1f} MB (the dispatch's own peak over the resident set, VmHWM reset before it); "
    if m["maxrss1"] - m["maxrss0"] > user:
        text += f"{via_maxrss:.1f} MB by ru_maxrss growth minus buffers"
    else:
        text += (f"ru_maxrss grew {(m['maxrss1'] - m['maxrss0']) / mb:.1f} MB, less than the buffers: "
                 f"the warm-up's peak was higher, so that method shows no overhead")
    gcnbench.record("memory", text=text)
