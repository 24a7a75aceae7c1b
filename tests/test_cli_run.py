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


CAL = ROOT / "kernels" / "_cal"      # AMD-compiled CAL ELF binaries (Tahiti), AMD's license


def test_cal_binary_buffers_and_scalars(tmp_path, capsys):
    # BinarySearch_Kernels.cl: work-item t checks the segment [lo + t*sub, lo + t*sub + sub-1]
    # and writes (lower, upper, -, 1) of the one segment holding findMe to outputArray[0]
    arr = np.arange(5, 5 + 7 * 1024, 7, dtype=np.uint32)
    np.save(tmp_path / "arr.npy", arr)
    code, out, err = _run(capsys, "run", str(CAL / "BinarySearch_Kernels.bin"), "--kernel",
                          "binarySearch", "--grid", "128", "--block", "64",
                          "--arg", f"out:{tmp_path / 'o.npy'}:u32:4", "--arg", f"in:{tmp_path / 'arr.npy'}",
                          "--arg", f"u32:{arr[500]}", "--arg", "u32:0", "--arg", "u32:1023", "--arg", "u32:8")
    assert code == 0, err
    assert "binarySearch: grid (128, 1, 1)" in out
    assert np.load(tmp_path / "o.npy").tolist() == [496, 503, 0, 1]


def test_cal_binary_local_argument(tmp_path, capsys):
    # MatrixTranspose_Kernels.cl: a 16x16 tile through a __local buffer of 16*16 floats
    a = np.random.default_rng(3).standard_normal((32, 48)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    argv = ["run", str(CAL / "MatrixTranspose_Kernels.bin"), "--kernel", "matrixTranspose",
            "--grid", "48x32", "--block", "16x16", "--arg", f"out:{tmp_path / 't.npy'}:f32:48x32",
            "--arg", f"in:{tmp_path / 'a.npy'}", "--arg", "local:1024", "--arg", "u32:48",
            "--arg", "u32:32", "--arg", "u32:16"]
    code, _, err = _run(capsys, *argv)
    assert code == 0, err
    assert np.array_equal(np.load(tmp_path / "t.npy"), a.T)
    # a buffer where the kernel takes a __local pointer is named as such
    argv[argv.index("local:1024")] = f"in:{tmp_path / 'a.npy'}"
    code, _, err = _run(capsys, *argv)
    assert code == 1 and "argument 2 (block: local float) is a __local pointer" in err


CAL_DIR = ROOT / "kernels" / "_cal"


def test_cal_binary_vector_arguments(tmp_path, capsys):
    # SimpleConvolution_Kernels.cl takes uint2 inputDimensions and maskDimensions by value;
    # a 1x1 mask of 1.0 copies the input (the kernel rounds s + 0.5 down to an integer)
    inp = np.random.default_rng(4).integers(0, 1000, (8, 16)).astype(np.uint32)
    np.save(tmp_path / "in.npy", inp)
    np.save(tmp_path / "mask.npy", np.ones(1, np.float32))
    code, _, err = _run(capsys, "run", str(CAL_DIR / "SimpleConvolution_Kernels.bin"),
                        "--gpu", "tahiti", "--kernel", "simpleConvolution", "--grid", "128",
                        "--arg", f"out:{tmp_path / 'o.npy'}:u32:8x16", "--arg", f"in:{tmp_path / 'in.npy'}",
                        "--arg", f"in:{tmp_path / 'mask.npy'}", "--arg", "u32:16,8", "--arg", "u32:1,1")
    assert code == 0, err
    assert np.array_equal(np.load(tmp_path / "o.npy"), inp)
    code, _, err = _run(capsys, "run", str(CAL_DIR / "SimpleConvolution_Kernels.bin"),
                        "--kernel", "simpleConvolution", "--grid", "128",
                        "--arg", f"out:{tmp_path / 'o.npy'}:u32:8x16", "--arg", f"in:{tmp_path / 'in.npy'}",
                        "--arg", f"in:{tmp_path / 'mask.npy'}", "--arg", "u32:16", "--arg", "u32:1,1")
    assert code == 1 and "expected 2 values, got 1" in err


def test_vector_argument_errors(capsys):
    code, _, err = _run(capsys, "run", str(CAL / "BinarySearch_Kernels.bin"), "--kernel",
                        "binarySearch", "--grid", "64", "--arg", "u32:1,x")
    assert code == 1 and "'1,x' is not a valid u32 vector" in err


def test_cal_binary_argument_errors(capsys):
    code, _, err = _run(capsys, "run", str(CAL / "BinarySearch_Kernels.bin"), "--kernel",
                        "binarySearch", "--grid", "64", "--arg", "u32:1")
    assert code == 1 and "takes 6 arguments, got 1" in err
    code, _, err = _run(capsys, "run", str(CAL / "BinarySearch_Kernels.bin"), "--kernel", "nope",
                        "--grid", "64")
    assert code == 1 and "binarySearch" in err


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


# --- --coherent: coherency-accurate mode ----------------------------------------------------
#: work-item i writes a[i] and reads a[i - 64] (mod n), which the previous workgroup writes:
#: a race between workgroups. On the xbox-one preset (12 CUs) grid 768 in workgroups of 64
#: gives workgroup g to CU g, so CU g reads a line CU g - 1 writes in the same dispatch
#: without GLC: its L1 may hold the line from before the write (the mode shows that case).
_NEIGHBOUR = """
__kernel void neighbour(__global uint* out, __global uint* a) {
  uint i = get_global_id(0), n = get_global_size(0);
  a[i] = i + 1000u;
  out[i] = a[(i + n - 64u) % n];
}
"""


def test_coherent_mode_shows_a_stale_read(tmp_path, capsys):
    src = tmp_path / "neighbour.cl"
    src.write_text(_NEIGHBOUR)
    a0 = np.arange(768, dtype=np.uint32) * 7
    np.save(tmp_path / "a.npy", a0)
    code, out, err = _run(capsys, "run", str(src), "--kernel", "neighbour", "--grid", "768",
                          "--block", "64", "--coherent",
                          "--arg", f"out:{tmp_path / 'o.npy'}:u32:768",
                          "--arg", f"inout:{tmp_path / 'a.npy'}")
    assert code == 1, err
    # the worst case, every time: each read sees a as it was before the dispatch
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), np.roll(a0, 64))
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), np.arange(768) + 1000)
    assert "coherency: 1 finding:" in out and "stale-l1: neighbour" in out
    assert "is written in this dispatch by CU" in out
    # with the sanitizer as well: its global race joins the mode's stale read
    code, out, err = _run(capsys, "run", str(src), "--kernel", "neighbour", "--grid", "768",
                          "--block", "64", "--coherent", "--sanitize",
                          "--arg", f"out:{tmp_path / 'o.npy'}:u32:768",
                          "--arg", f"in:{tmp_path / 'a.npy'}")
    assert code == 1, err
    assert "sanitizer+coherency:" in out and "stale-l1: neighbour" in out
    assert "global-race: neighbour" in out


@pytest.mark.parametrize("flags, head", [(("--coherent",), "coherency"),
                                         (("--sanitize",), "sanitizer"),
                                         (("--coherent", "--sanitize"), "sanitizer+coherency")])
def test_example_in_the_checking_modes(capsys, flags, head):
    """saxpy has no race and no hazard: each mode keeps its result and says it looked."""
    code, out, err = _run(capsys, "run", "--example", *flags)
    assert code == 0, err
    assert "matches numpy bit for bit" in out
    assert f"{head}: 0 findings (no hazard seen)" in out


@pytest.mark.parametrize("flag", ["--timing", "--trace=t.json"])
def test_coherent_mode_is_not_a_timing_mode(capsys, flag):
    code, out, err = _run(capsys, "run", SAXPY, "--kernel", "saxpy", "--grid", "64", "--coherent",
                          flag)
    assert code in (1, 2)
    assert err.startswith("gcnemu: error: ") and err.count("\n") == 1, err
    assert f"--coherent does not combine with {flag.split('=')[0]}" in err
