"""tools/timing_speed.py: the per-launch speed of timing mode against functional mode."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import timing_speed  # noqa: E402


def test_measures_the_small_saxpy_and_puts_simulate_back(capsys):
    import bench_dispatch

    import gcnemu.timing.model as model
    simulate = model.simulate
    launch = next(ln for ln in bench_dispatch.LAUNCHES if ln.label == "saxpy n=4000")
    m = timing_speed.measure(launch, rounds=2)
    # the model's share is part of the timing dispatch it was measured in
    assert 0 < m["simulate"] < m["timing"]
    assert m["functional"] > 0
    assert model.simulate is simulate         # the wrapper is gone after the run
    assert timing_speed.main(["--rounds", "1", "--only", "saxpy n=4000"]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("saxpy n=4000")]
    assert len(rows) == 1
    functional, timing, sim, ratio, budget = (float(x) for x in rows[0].split()[2:])
    # the times are printed to 0.005 ms, the ratio from the unrounded ones (to 0.0005)
    tol = ratio * (0.005 / functional + 0.005 / timing) + 0.0005
    assert 0 < sim < timing and abs(ratio - functional / timing) <= tol
    # what the line (1/3) leaves the model: 3 x functional less the rest of the timing run
    assert abs(budget - (3 * functional - (timing - sim))) <= 5 * 0.005 + 0.005


def test_the_floor_walk_reads_every_wave_instruction_once():
    import bench_dispatch
    import gcnbench

    import gcnemu
    from kernels import corpus
    launch = next(ln for ln in bench_dispatch.LAUNCHES if ln.label == "saxpy n=4000")
    ms, rows = timing_speed.floor_ms(launch, rounds=1)
    # the engine's own count of the functional run (not the traces the walk reads)
    k = gcnemu.load(str(corpus.hsaco_path(launch.corpus_name))).kernel(launch.symbol)
    gpu = gcnemu.GPU()
    args, _bufs = gcnbench.device_args(gpu, launch.args)
    rep = gpu.dispatch(k, grid=launch.grid, block=launch.block, args=args)
    assert rows == rep.instructions and ms > 0


def test_an_unknown_launch_is_a_clear_error(capsys):
    with pytest.raises(SystemExit) as e:
        timing_speed.main(["--only", "no-such-kernel"])
    assert e.value.code == 2
    assert "no launch matches 'no-such-kernel'" in capsys.readouterr().err
