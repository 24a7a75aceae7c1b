"""gcnemu's benchmark suite (pytest-benchmark).

Run from the repository root:

    python -m pytest benchmarks/ --benchmark-only

Files named ``bench_*.py`` in this folder are collected (the hook below; the repository's
``pyproject.toml`` keeps ``testpaths = ["tests"]``, so a plain ``pytest`` does not run them).
At the end of the session a table prints wave-instructions/s per kernel, the divergence cost,
the 2-worker speedup, timing mode, cold and warm start-up and memory overhead.
Set ``GCNEMU_BENCH_COLD=0`` to skip the cold start (a minute or more of compilation).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for p in (str(HERE), str(HERE.parent)):
    if p not in sys.path:
        sys.path.insert(0, p)

import gcnbench  # noqa: E402


def pytest_collect_file(file_path, parent):
    """Collect ``bench_*.py`` as test modules (paths given on the command line are collected by
    pytest itself, so they are left alone here to avoid collecting them twice)."""
    if (file_path.suffix == ".py" and file_path.name.startswith("bench_")
            and not parent.session.isinitpath(file_path)):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def _fmt_s(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.4f}" if x < 1 else f"{x:.2f}"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    R = gcnbench.RESULTS
    if not R:
        return
    tr = terminalreporter
    tr.section("gcnemu benchmark summary")

    rows = R.get("speed", [])
    if rows:
        calib = gcnbench.calibration_rate()     # in this process, after the benchmarks
        tr.write_line(f"CPU: {gcnbench.cpu_description()}; calibration interpreter "
                      + (f"({gcnbench.CALIBRATION.name}): {calib / 1e6:.1f} M winst/s"
                         if calib else "absent (../shared/bench/calibration.py)"))
        tr.write_line("Emulation speed (dispatch only, warm; median of the rounds; "
                      "wave-instructions = SQ_INSTS; x calib = median rate / calibration rate)")
        tr.write_line(f"  {'kernel':<34}{'category':<13}{'waves':>8}{'wave-instr':>12}"
                      f"{'seconds':>10}{'M winst/s':>11}{'best M/s':>10}{'x calib':>9}")
        for r in rows:
            ratio = f"{r['rate'] / calib:>9.2f}" if calib else f"{'-':>9}"
            tr.write_line(f"  {r['kernel']:<34}{r.get('category', ''):<13}{r['waves']:>8}"
                          f"{r['winst']:>12}{_fmt_s(r['seconds']):>10}{r['rate'] / 1e6:>11.2f}"
                          f"{r['winst'] / r['best'] / 1e6:>10.2f}{ratio}")

    rows = R.get("fixed", [])
    if rows:
        tr.write_line("")
        tr.write_line("Fixed cost of a small dispatch (the same launch dispatched repeatedly; "
                      "microseconds per dispatch)")
        tr.write_line(f"  {'kernel':<34}{'waves':>8}{'wave-instr':>12}{'us median':>11}{'us best':>10}")
        for r in rows:
            tr.write_line(f"  {r['kernel']:<34}{r['waves']:>8}{r['winst']:>12}{r['us_median']:>11.1f}"
                          f"{r['us_best']:>10.1f}")

    rows = R.get("divergence", [])
    if rows:
        tr.write_line("")
        tr.write_line("Divergence cost (same work per lane; time ratio = seconds / seconds of the "
                      "uniform run, of the medians and of the best rounds)")
        tr.write_line(f"  {'variant':<34}{'wave-instr':>12}{'seconds':>10}{'M winst/s':>11}"
                      f"{'ratio med':>11}{'ratio best':>12}")
        base = {r["family"]: r for r in rows if r.get("uniform")}
        for r in rows:
            b = base.get(r["family"])
            rm = f"{r['seconds'] / b['seconds']:.2f}" if b else "-"
            rb = f"{r['best'] / b['best']:.2f}" if b else "-"
            tr.write_line(f"  {r['kernel']:<34}{r['winst']:>12}{_fmt_s(r['seconds']):>10}"
                          f"{r['rate'] / 1e6:>11.2f}{rm:>11}{rb:>12}")

    for section, title in (("small", "Small waves"), ("workers", "2-worker speedup"),
                           ("timing", "Timing mode"), ("coherency", "Coherency-accurate mode"),
                           ("sanitizer", "Sanitizer")):
        rows = R.get(section, [])
        if rows:
            tr.write_line("")
            for r in rows:
                tr.write_line(f"{title}: {r['text']}")

    rows = R.get("startup", [])
    if rows:
        tr.write_line("")
        tr.write_line("Start-up (fresh process: import gcnemu + first saxpy dispatch of 4096 items)")
        tr.write_line(f"  {'case':<14}{'wall s':>9}{'child CPU s':>13}{'import s':>10}"
                      f"{'1st dispatch s':>16}{'target':>9}")
        for r in rows:
            tr.write_line(f"  {r['case']:<14}{_fmt_s(r.get('wall')):>9}{_fmt_s(r.get('cpu')):>13}"
                          f"{_fmt_s(r.get('import_s')):>10}{_fmt_s(r.get('first_dispatch_s')):>16}"
                          f"{r.get('target', ''):>9}  {r.get('note', '')}")

    rows = R.get("memory", [])
    if rows:
        tr.write_line("")
        for r in rows:
            tr.write_line(f"Memory: {r['text']}")
