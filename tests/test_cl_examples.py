"""gcnemu.cl: PyOpenCL-style scripts (examples/opencl) run with `import gcnemu.cl as cl`, each
checking its results against numpy (the scripts assert); errors as PyOpenCL gives them."""
import os
import runpy
import shutil
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "opencl"
needs_clang = pytest.mark.skipif(shutil.which("clang-14") is None or not os.path.isfile(
    "/usr/lib/clc/amdgcn--amdhsa.bc"), reason="needs clang-14, lld-14 and libclc-14")


@needs_clang
@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_runs(script, capsys):
    text = (EXAMPLES / script).read_text()
    assert "import gcnemu.cl as cl" in text and "pyopencl" not in text.replace("import pyopencl as cl", "")
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")


@pytest.fixture(scope="module")
def cl():
    import gcnemu.cl as cl
    return cl


@pytest.fixture
def ctx(cl):
    return cl.create_some_context()


@needs_clang
def test_build_error_is_runtime_error_with_log(cl, ctx):
    prg = cl.Program(ctx, "__kernel void k(__global int *x) { x[0] = undeclared_thing; }")
    with pytest.raises(cl.RuntimeError) as ei:
        prg.build(options="-DFOO=1")
    assert isinstance(ei.value, cl.Error)
    msg = str(ei.value)
    assert "BUILD_PROGRAM_FAILURE" in msg and "undeclared_thing" in msg and "-DFOO=1" in msg
    log = prg.get_build_info(ctx.devices[0], cl.program_build_info.LOG)
    assert "undeclared_thing" in log
    assert prg.get_build_info(ctx.devices[0], cl.program_build_info.STATUS) == cl.build_status.ERROR


@needs_clang
def test_kernel_argument_errors(cl, ctx):
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, "__kernel void k(__global int *x, int n) { x[get_global_id(0)] = n; }").build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    with pytest.raises(cl.LogicError, match=r"argument #2 .*numpy scalar"):
        prg.k(q, (16,), (16,), buf, 5)                    # PyOpenCL wants np.int32(5)
    with pytest.raises(cl.LogicError, match="INVALID_ARG_SIZE"):
        prg.k(q, (16,), (16,), buf, np.int64(5))
    with pytest.raises(cl.LogicError, match="must divide"):
        prg.k(q, (17,), (16,), buf, np.int32(5))
    with pytest.raises(cl.LogicError, match="no kernel named 'nope'"):
        prg.nope
    # scalar dtypes given once: Python ints are accepted
    knl = prg.k
    knl.set_scalar_arg_dtypes([None, np.int32])
    knl(q, (16,), (8,), buf, -3)
    out = np.empty(16, np.int32)
    cl.enqueue_copy(q, out, buf)
    assert (out == -3).all()


def test_device_and_platform_properties(cl, ctx):
    (plat,) = cl.get_platforms()
    (dev,) = plat.get_devices()
    assert dev.type == cl.device_type.GPU and ctx.devices == [dev]
    assert dev.max_compute_units == 12 and dev.max_work_group_size == 256
    assert dev.local_mem_size == 32768 and "cl_khr_fp64" in dev.extensions
    assert dev.get_info(cl.device_info.MAX_COMPUTE_UNITS) == 12
    assert dev.platform is plat and "gcnemu" in dev.name


def test_unsupported_features_say_not_emulated(cl, ctx):
    for name in ("GLBuffer", "enqueue_map_image", "SVMAllocation"):
        with pytest.raises(cl.NotEmulatedError, match="not emulated"):
            getattr(cl, name)
    with pytest.raises(cl.NotEmulatedError, match="Context.some_future_thing"):
        ctx.some_future_thing
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    with pytest.raises(cl.NotEmulatedError, match="sub-buffers"):
        buf[0:16]
    with pytest.raises(cl.NotEmulatedError, match="OUT_OF_ORDER"):
        cl.CommandQueue(ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    assert getattr(cl, "GLBuffer", None) is None     # getattr with a default keeps working


def test_buffer_errors(cl, ctx):
    mf = cl.mem_flags
    with pytest.raises(cl.LogicError, match="positive size"):
        cl.Buffer(ctx, mf.READ_WRITE, 0)
    with pytest.raises(cl.LogicError, match="without a hostbuf"):
        cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, 16)
    q = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    with pytest.raises(cl.LogicError, match="outside the buffer of 16 bytes"):
        cl.enqueue_copy(q, np.empty(8, np.float32), buf)
    src = np.arange(4, dtype=np.float32)
    cl.enqueue_copy(q, buf, src)
    back = np.zeros(4, np.float32)
    cl.enqueue_copy(q, back, buf)
    assert np.array_equal(back, src)


def _pyopencl_with_pocl():
    try:
        import pyopencl
        return any("pocl" in p.name.lower() or "portable" in p.name.lower()
                   for p in pyopencl.get_platforms())
    except Exception:      # not installed, or no ICD: the skip says so
        return False


@needs_clang
@pytest.mark.skipif(not _pyopencl_with_pocl(),
                    reason="needs PyOpenCL with the pocl platform: the [test] extra installs pyopencl and "
                           "pocl-binary-distribution (x86-64 Linux only)")
@pytest.mark.parametrize("script, result", [("transpose_local.py", "t"), ("double_axpy.py", "out"),
                                            ("mandelbrot.py", "out")])
def test_same_output_as_pyopencl_on_pocl(script, result, monkeypatch):
    text = (EXAMPLES / script).read_text()
    ours = {}
    exec(compile(text, script, "exec"), ours)
    monkeypatch.setenv("PYOPENCL_CTX", next(str(i) for i, p in enumerate(__import__("pyopencl").get_platforms())
                                            if "pocl" in p.name.lower() or "portable" in p.name.lower()))
    theirs = {}
    exec(compile(text.replace("import gcnemu.cl as cl", "import pyopencl as cl"), script, "exec"), theirs)
    np.testing.assert_array_equal(ours[result], theirs[result])


@needs_clang
def test_profiling_events_are_simulated_cycles(cl):
    ctx = cl.create_some_context()
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 1024)
    prg = cl.Program(ctx, "__kernel void k(__global int *x) { x[get_global_id(0)] = 1; }").build()
    e1 = prg.k(q, (1024,), (64,), buf)
    e2 = prg.k(q, (1024,), (64,), buf)
    rep = e1.gcnemu_report
    assert rep.cycles and rep.cycles > 0, "the context's GPU runs in timing mode"
    clock_mhz = ctx.devices[0].max_clock_frequency
    assert e1.profile.end - e1.profile.start == int(rep.cycles * 1000 / clock_mhz)
    assert e2.profile.start >= e1.profile.end      # an in-order queue's clock
    plain = cl.CommandQueue(cl.create_some_context())
    with pytest.raises(cl.RuntimeError, match="PROFILING_ENABLE"):
        plain._event(1).profile
