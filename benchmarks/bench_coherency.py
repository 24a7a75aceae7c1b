"""Coherency-accurate mode (GPU(coherent_caches=True), gcnemu/coherency.py) against the
functional mode, on the launches of bench_dispatch.py (the corpus's benchmark kernels).

Run:  python -m pytest benchmarks/bench_coherency.py --benchmark-only

Each case dispatches with gpu.dispatch (the runtime's synchronisation around it) on a normal
and a coherent GPU, alternating within each round (the machine's load drifts), and reports
the ratio of their best process CPU times (gcnbench.alternate_modes says why); issue 17 asks
for at most 3x. The two must give the same bits (the launches are race-free) and the
coherent one no finding.
"""
from __future__ import annotations

import pytest

import bench_dispatch
import gcnbench

#: issue 17: "coherency-accurate mode [slows a dispatch] by at most 3x"
BUDGET = 3.0


@pytest.mark.parametrize("launch", bench_dispatch.LAUNCHES, ids=lambda ln: ln.label.replace(" ", "_"))
def test_coherent_mode(benchmark, launch):
    benchmark.group = "coherency"
    (off, on), (_, rep), buffers = gcnbench.alternate_modes(
        benchmark, launch, [({}, {}), ({"coherent_caches": True}, {})], max(5, launch.rounds))
    assert not rep.findings, [str(f) for f in rep.findings]
    assert gcnbench.same_bytes(buffers), "coherency-accurate mode changed the result"
    benchmark.extra_info.update(seconds_functional=off, seconds_coherent=on, slowdown=on / off)
    gcnbench.record("coherency", text=(
        f"{launch.label}: functional {off * 1e3:.2f} ms, coherent {on * 1e3:.2f} ms: "
        f"{on / off:.2f}x (budget {BUDGET:g}x)"))
