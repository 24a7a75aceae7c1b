"""`gcnemu run` through the entry point (gcnemu.cli.main): the built-in example, .npy buffers
in, out and in-out keeping their dtype and shape, and every error path: one line on stderr,
naming the --arg or flag, a non-zero exit status, a traceback only with --debug."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gcnemu.cli.run as cli_run
from gcnemu.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAXPY = str(ROOT / "kernels" / "saxpy" / "kernel.hsaco")     # y[i] = a * x[i] + y[i], i < n


def _run(capsys, *argv):
    """Exit status, stdout and stderr of the command, less the progress lines it prints
    while numba compiles (the first run in a fresh cache)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    err = "".join(line for line in err.splitlines(keepends=True)
                  if not line.startswith("gcnemu: compiling the engine"))
    return code, out, err


def test_example_matches_numpy(capsys):
    code, out, err = _run(capsys, "run", "--example")
    assert code == 0, err
    assert "matches numpy bit for bit" in out and "wave-instructions" in out


def test_inout_and_in_buffers(tmp_path, capsys):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    code, out, err = _run(capsys, "run", SAXPY, "--kernel", "saxpy", "--grid", "1000",
                          "--arg", f"inout:{tmp_path / 'y.npy'}", "--arg", f"in:{tmp_path / 'x.npy'}",
                          "--arg", "f32:2.5", "--arg", "u32:1000")
    assert code == 0, err
    got = np.load(tmp_path / "y.npy")
    assert got.dtype == np.float32 and got.shape == (1000,)
    assert np.array_equal(got, np.float32(2.5) * x + y)


def test_out_buffer_keeps_its_dtype_and_shape(tmp_path, capsys):
    x = np.arange(32 * 24, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    code, _, err = _run(capsys, "run", SAXPY, "--kernel", "saxpy", "--grid", "768",
                        "--arg", f"out:{tmp_path / 'y.npy'}:f32:32x24", "--arg",
                        f"in:{tmp_path / 'x.npy'}", "--arg", "f32:3", "--arg", "u32:768")
    assert code == 0, err
    got = np.load(tmp_path / "y.npy")
    assert got.dtype == np.float32 and got.shape == (32, 24)
    assert np.array_equal(got, (np.float32(3) * x).reshape(32, 24))


def test_default_block_is_one_wave_along_x():
    class _K:
        class info:
            reqd_workgroup_size = None
    assert cli_run.default_block((256, 192), _K) == (64, 1)
    assert cli_run.default_block((10,), _K) == (10,)
    _K.info.reqd_workgroup_size = (8, 8, 1)
    assert cli_run.default_block((256, 192), _K) == (8, 8)


@pytest.mark.parametrize("argv, text", [
    (["run"], "needs FILE, --kernel and --grid"),
    (["run", SAXPY, "--kernel", "nope", "--grid", "64"], "saxpy"),
    (["run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--arg", "out:y.npy:f33:64"],
     "--arg 'out:y.npy:f33:64': unknown dtype 'f33'"),
    (["run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--arg", "out:y.npy:f32"],
     "expected out:PATH:DTYPE:SHAPE"),
    (["run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--arg", "blob:3"], "unknown kind 'blob'"),
    (["run", SAXPY, "--kernel", "saxpy", "--grid", "64x0"], "bad size '64x0'"),
    (["run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--arg", "u32:x"], "not a valid u32"),
    (["run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--arg", "in:/no/such.npy"],
     "cannot read /no/such.npy"),
    (["run", "/no/such.hsaco", "--kernel", "saxpy", "--grid", "64"], "/no/such.hsaco"),
    # a uint where the kernel takes a float, and faults that name the CLI flag
    (["run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--arg", "u64:0", "--arg", "u64:0",
      "--arg", "u32:2", "--arg", "u32:64"], "expected a float"),
    (["run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--arg", "u64:0", "--arg", "u64:0",
      "--arg", "f32:2", "--arg", "u32:64"], "--allow-faults reports them instead"),
])
def test_errors_are_one_line_with_a_non_zero_status(capsys, argv, text):
    code, out, err = _run(capsys, *argv)
    assert code in (1, 2)
    assert err.startswith("gcnemu: error: ") and err.count("\n") == 1, err
    assert text in err, err
    assert "Traceback" not in err


def test_allow_faults_reports_instead(capsys):
    code, out, err = _run(capsys, "run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--arg",
                          "u64:0", "--arg", "u64:0", "--arg", "f32:2", "--arg", "u32:64",
                          "--allow-faults")
    assert code == 0, err
    assert "fault:" in out


def test_debug_shows_the_traceback(capsys):
    with pytest.raises(gcnemu_errors().GcnEmuError):
        main(["--debug", "run"])


def test_internal_errors_are_one_line(capsys, monkeypatch):
    def broken(args):
        raise ValueError("something\nbroke")
    monkeypatch.setattr(cli_run, "cmd_run", broken)
    code, _, err = _run(capsys, "run")
    assert code == 3
    assert err == ("gcnemu: internal error: ValueError: something broke (run with --debug for "
                   "the traceback, and please report it)\n")


def test_no_command_prints_help(capsys):
    code, out, _ = _run(capsys)
    assert code == 2 and "COMMAND" in out


def test_run_help_keeps_its_layout(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "  in:PATH.npy          input buffer\n" in out
    assert "out:PATH.npy:DTYPE:SHAPE" in out and "local:NBYTES" in out


def gcnemu_errors():
    import gcnemu.errors
    return gcnemu.errors
