"""Compile time is kept out of a dispatch's time and its progress is shown: exec.jit.CompileWatch
(and njit_closure, its plan), the report's compile_seconds, the CLI's "N of M" lines."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

import gcnemu
from gcnemu import launch
from gcnemu import cli
from gcnemu.cli.run import CompileProgress
from gcnemu.exec import engine
from gcnemu.exec.jit import CompileWatch, njit, njit_closure
from gcnemu.mem import scalar

SAXPY = Path(__file__).resolve().parents[1] / "kernels" / "saxpy" / "kernel.hsaco"


def _fresh_function():
    """A function numba has to compile now (no disk cache), a fresh one at every call."""
    @njit(cache=False)
    def f(x):
        s = 0.0
        for i in range(x):     # enough to compile for well over 0.05 s (summary() shows that)
            s += np.sqrt(i) + np.sin(i) * np.cos(i) + np.exp(-i) + np.log1p(i) + np.arctan2(i, x)
        return s
    return f


def test_compile_watch_times_compiles_and_counts_them():
    seen = []
    f = _fresh_function()
    with CompileWatch(lambda *a: seen.append(a)) as w:
        f(10)
        f(20)                       # compiled once
    assert w.compiles == 1 and seen == [("f", 1, 1)] and w.seconds > 0.01
    with CompileWatch(lambda *a: seen.append(a)) as w:
        f(30)                       # nothing to compile
    assert w.compiles == 0 and w.seconds == 0.0 and len(seen) == 1


def test_the_plan_counts_what_compiling_a_root_compiles():
    """The closure of three fresh functions, one calling the others: m is 3 from the start,
    with an inline helper walked through and not counted."""
    @njit(cache=False)
    def leaf(x):
        return x + 1

    @njit(cache=False, inline="always")
    def helper(x):
        return leaf(x) * 2

    @njit(cache=False)
    def other(x):
        return x - 1

    @njit(cache=False)
    def root(x):
        return helper(x) + other(x)

    assert njit_closure([root]) == {root, leaf, other}
    seen = []
    with CompileWatch(lambda *a: seen.append(a), lambda: ([root], [])):
        assert root(3) == 10
    assert sorted(seen, key=lambda a: a[1]) == [("root", 1, 3), (seen[1][0], 2, 3),
                                                (seen[2][0], 3, 3)]
    assert {seen[1][0], seen[2][0]} == {"leaf", "other"}
    # the engine's plan: its loop and the helpers it calls, not the general paths (step_generic,
    # SMRD's smem: compiled on first use) nor the trace's recorders
    plan = njit_closure(*launch.compile_plan(False))
    assert {engine.run_group_waves, engine.run_wave} <= plan
    assert engine.step_generic not in plan and scalar.smem not in plan
    assert not any(d.py_func.__module__ == "gcnemu.timing.trace" for d in plan)


def test_a_dispatch_reports_compile_time_apart(monkeypatch):
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    y, x = gpu.empty(64, np.float32), gpu.to_device(np.ones(64, np.float32))
    args = [y, x, np.float32(2), np.uint32(64)]
    gpu.dispatch(k, grid=(64,), block=(64,), args=args)      # compiled or loaded now
    run = launch.Launch.run
    f = _fresh_function()

    def run_compiling(self, *a, **kw):
        f(5)                        # a compile in the middle of the dispatch
        return run(self, *a, **kw)
    monkeypatch.setattr(launch.Launch, "run", run_compiling)
    seen = []
    gpu.on_compile = lambda *a: seen.append(a)
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=args)
    assert seen == [("f", 1, 1)]       # the engine is compiled: nothing else is expected
    assert rep.compile_seconds > 0.01 and rep.wall_seconds < rep.compile_seconds
    assert "compiling or loading machine code" in rep.summary()
    assert np.array_equal(y.to_numpy(), np.full(64, 4, np.float32))   # y = 2x + y, twice


def test_progress_in_a_pipe_is_a_dozen_plain_lines():
    out = io.StringIO()
    progress = CompileProgress(out)
    for n in range(1, 31):
        progress(f"fn{n}", n, 30)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and 10 <= len(lines) <= 12
    assert lines[0] == "gcnemu: compiling the engine, first run only: 1 of 30 (fn1)"
    assert lines[-1] == "gcnemu: compiling the engine, first run only: 30 of 30 (fn30)"


def test_progress_on_a_terminal_redraws_one_line():
    class Tty(io.StringIO):
        def isatty(self):
            return True
    out = Tty()
    progress = CompileProgress(out)
    progress("run_group_waves", 1, 3)
    progress("run_wave", 2, 3)
    progress("smem", 3, 3)
    progress.finish()
    text = out.getvalue()
    assert text.count("\r") == 3 and text.count("\n") == 1 and text.endswith("\n")
    assert text.split("\r")[-1].rstrip() == "gcnemu: compiling the engine, first run only: 3 of 3 (smem)"


def test_the_cli_shows_progress_while_it_compiles(monkeypatch, capsys):
    """Through the entry point: ``gcnemu run --example`` with a function to compile in its
    dispatch prints the progress line on stderr (a pipe here: plain lines), then its result."""
    run = launch.Launch.run
    f = _fresh_function()

    def run_compiling(self, *a, **kw):
        f(5)
        return run(self, *a, **kw)
    monkeypatch.setattr(launch.Launch, "run", run_compiling)
    assert cli.main(["run", "--example"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == ["gcnemu: compiling the engine, first run only: 1 of 1 (f)"]
    assert "matches numpy bit for bit" in out
