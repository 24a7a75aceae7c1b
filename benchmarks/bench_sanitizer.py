"""The sanitizer's cost: ``dispatch(..., sanitize=True)`` against the plain dispatch on the
launches of bench_dispatch.py (the corpus's benchmark kernels). The issue allows 5x.

Run:  python -m pytest benchmarks/bench_sanitizer.py --benchmark-only

Plain and sanitized dispatches of the same launch alternate within each round (the machine's
load drifts; alternating keeps the ratio fair); ratio = best sanitized / best plain
process CPU time (gcnbench.alternate_modes says why). Both must give the same bits.

Measured: the README's sanitizer section has the current figures (process CPU time, main
against this code, all nine launches under 5x).
"""
from __future__ import annotations

import pytest

import bench_dispatch
import gcnbench

#: the issue's bound on sanitized / plain dispatch time
TARGET = 5.0


@pytest.mark.parametrize("launch", bench_dispatch.LAUNCHES,
                         ids=[ln.label.replace(" ", "_") for ln in bench_dispatch.LAUNCHES])
def test_sanitizer_overhead(benchmark, launch):
    benchmark.group = "sanitizer"
    (off, on), (_, rep), buffers = gcnbench.alternate_modes(
        benchmark, launch, [({}, {}), ({}, {"sanitize": True})], max(5, launch.rounds))
    assert gcnbench.same_bytes(buffers), "the sanitizer changed a result"
    found = rep.findings
    benchmark.extra_info.update(seconds_plain=off, seconds_sanitized=on, ratio=on / off,
                                findings=len(found))
    gcnbench.record("sanitizer", text=(
        f"{launch.label}: plain {off * 1e3:.2f} ms, sanitized {on * 1e3:.2f} ms: "
        f"{on / off:.2f}x (bound {TARGET:g}x); {len(found)} finding(s)"))
