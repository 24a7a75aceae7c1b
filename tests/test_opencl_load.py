"""gcnemu.load("k.cl"): OpenCL C compiled with clang-14/lld-14/libclc-14, cached by content,
with build options; missing tools and compile errors are LoaderErrors that say what to do."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import gcnemu
from gcnemu.cli import main
from gcnemu.errors import LoaderError
from gcnemu.loader import opencl

SRC = """
__kernel void scale(__global int* a, int k) {
    size_t i = get_global_id(0);
    a[i] = a[i] * k + N;       // N comes from the build options
}
"""
needs_toolchain = pytest.mark.skipif(
    any(name is None for name in (opencl.shutil.which("clang-14"), opencl.shutil.which("ld.lld-14")))
    or not opencl.os.path.isfile(opencl.LIBCLC), reason="clang-14, lld-14 and libclc-14 are not installed")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GCNEMU_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "opencl"


@needs_toolchain
def test_a_cl_file_compiles_runs_and_is_cached(tmp_path, cache, monkeypatch):
    f = tmp_path / "scale.cl"
    f.write_text(SRC)
    prog = gcnemu.load(f, options=["-DN=4"])
    gpu = gcnemu.GPU()
    a = np.arange(256, dtype=np.int32)
    buf = gpu.to_device(a)
    gpu.dispatch(prog.kernel("scale"), grid=(256,), block=(64,), args=[buf, np.int32(3)])
    assert np.array_equal(buf.to_numpy(), a * 3 + 4)
    assert len(list(cache.glob("*.hsaco"))) == 1
    # the second load comes from the cache: clang is not run again
    real_run = subprocess.run

    def no_clang(cmd, *a, **kw):
        if "-c" in cmd:
            raise AssertionError("clang ran again")
        return real_run(cmd, *a, **kw)
    monkeypatch.setattr(opencl.subprocess, "run", no_clang)
    assert gcnemu.load(f, options=["-DN=4"]).kernel("scale").info.code == prog.kernel("scale").info.code
    monkeypatch.undo()
    monkeypatch.setenv("GCNEMU_CACHE_DIR", str(cache.parent))
    gcnemu.load(f, options=["-DN=5"])               # other options: another entry
    assert len(list(cache.glob("*.hsaco"))) == 2


@needs_toolchain
def test_compile_errors_are_loader_errors_with_clangs_message(tmp_path, cache):
    f = tmp_path / "bad.cl"
    f.write_text(SRC)                               # N undefined
    with pytest.raises(LoaderError, match=r"could not compile bad.cl:\n.*bad.cl:4:.*'N'"):
        gcnemu.load(f)


@needs_toolchain
def test_no_linker_warning_is_printed(tmp_path, cache, capfd):
    f = tmp_path / "ok.cl"
    f.write_text(SRC)
    gcnemu.load(f, options=["-DN=1"])
    assert "warning" not in capfd.readouterr().err


def test_missing_tools_name_the_packages(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(opencl.shutil, "which", lambda name: None)
    f = tmp_path / "k.cl"
    f.write_text(SRC)
    with pytest.raises(LoaderError, match="needs clang-14, ld.lld-14.*install clang-14 lld-14"):
        gcnemu.load(f)


def test_options_are_for_cl_files(tmp_path):
    with pytest.raises(LoaderError, match="OpenCL C files"):
        gcnemu.load(b"\x7fELF", options=["-DN=1"])
    f = tmp_path / "k.cl"
    f.write_text(SRC)
    with pytest.raises(LoaderError, match="a list of clang arguments"):
        gcnemu.load(f, options="-DN=1")


@needs_toolchain
def test_the_cli_runs_a_cl_file(tmp_path, cache, capsys):
    f = tmp_path / "scale.cl"
    f.write_text(SRC)
    np.save(tmp_path / "a.npy", np.arange(64, dtype=np.int32))
    code = main(["run", str(f), "--build-option=-DN=2", "--kernel", "scale", "--grid", "64",
                 "--arg", f"inout:{tmp_path / 'a.npy'}", "--arg", "i32:5"])
    assert code == 0, capsys.readouterr().err
    assert np.array_equal(np.load(tmp_path / "a.npy"), np.arange(64, dtype=np.int32) * 5 + 2)
