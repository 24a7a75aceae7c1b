"""Compile time is kept out of a dispatch's time and said once: exec.jit.CompileWatch, the
report's compile_seconds, the CLI's notice."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

import gcnemu
from gcnemu import launch
from gcnemu.cli.run import compile_notice
from gcnemu.exec.jit import CompileWatch, njit

SAXPY = Path(__file__).resolve().parents[1] / "kernels" / "saxpy" / "kernel.hsaco"


def _fresh_function():
    """A function numba has to compile now (no disk cache), a fresh one at every call."""
    @njit(cache=False)
    def f(x):
        s = 0.0
        for i in range(x):
            s += np.sqrt(i)
        return s
    return f


def test_compile_watch_times_compiles_and_names_them():
    names = []
    f = _fresh_function()
    with CompileWatch(names.append) as w:
        f(10)
        f(20)                       # compiled once
    assert w.compiles == 1 and names == ["f"] and w.seconds > 0.01
    with CompileWatch(names.append) as w:
        f(30)                       # nothing to compile
    assert w.compiles == 0 and w.seconds == 0.0 and names == ["f"]


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
    gpu.on_compile = seen.append
    rep = gpu.dispatch(k, grid=(64,), block=(64,), args=args)
    assert seen == ["f"]
    assert rep.compile_seconds > 0.01 and rep.wall_seconds < rep.compile_seconds
    assert "compiling or loading machine code" in rep.summary()
    assert np.array_equal(y.to_numpy(), np.full(64, 4, np.float32))   # y = 2x + y, twice


def test_the_cli_says_once_that_it_compiles():
    out = io.StringIO()
    notice = compile_notice(out)
    notice("run_group_waves")
    notice("step_generic")
    assert out.getvalue().count("\n") == 1 and "first run only" in out.getvalue()
