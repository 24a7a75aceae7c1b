"""The ``gcn_bench`` fixture under pytest-benchmark (run in a nested pytest session), and the
progress bar of long dispatches."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[1]
VALU5 = ROOT / "tests" / "data" / "profile" / "valu5.s"


def test_gcn_bench_records_simulated_time(pytester, monkeypatch):
    pytest.importorskip("pytest_benchmark")
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_b=f"""
        def test_valu5(gcn_bench):
            rep = gcn_bench({str(VALU5)!r}, "valu5", 256, 64, rounds=2)
            assert rep.waves == 4
    """)
    out = pytester.path / "b.json"
    # in a subprocess: an in-process run drops the modules it imported when it ends (numba's
    # among them), and numba cannot be imported a second time into the same interpreter
    # and without xdist: pytest-benchmark turns itself off where xdist is active (an xdist
    # worker's PYTEST_XDIST_WORKER, which the subprocess would inherit, says so too)
    res = pytester.runpytest_subprocess("-p", "gcnemu.pytest_plugin", "-q", "-p", "no:cacheprovider",
                                        "-p", "no:xdist", f"--benchmark-json={out}")
    res.assert_outcomes(passed=1)
    bench, = json.loads(out.read_text())["benchmarks"]
    info = bench["extra_info"]
    # the benchmark's time is the simulated dispatch time at the preset's clock (853 MHz)
    assert bench["stats"]["min"] == pytest.approx(info["cycles"] / 853e6)
    assert bench["stats"]["rounds"] == 2
    assert info["time_us"] == pytest.approx(info["cycles"] / 853, abs=1e-3)
    assert info["SQ_WAVES"] == info["Wavefronts"] == 4 and info["clock"] == "simulated"
    assert info["SQ_INSTS_VALU"] == 5 * 4 and info["waves_per_simd"] == 1


def test_progress_bar_only_past_a_second(monkeypatch):
    pytest.importorskip("tqdm")
    from gcnemu.profile import progress

    stream = io.StringIO()
    bar = progress.DispatchProgress("k", enabled=True, stream=stream)
    bar(1, 10)                           # within the first second: nothing
    assert bar.bar is None and stream.getvalue() == ""
    monkeypatch.setattr(progress, "DELAY", 0.0)
    bar(2, 10)
    bar(7, 10)
    assert bar.bar is not None and bar.bar.n == 7 and "k" in stream.getvalue()
    bar.close()
    quiet = progress.DispatchProgress("k", enabled=None, stream=stream)   # stdout not a TTY
    quiet(5, 10)
    assert quiet.bar is None
