"""tools/piglit_cl.py on small files in piglit's format (written here, not piglit's own): a
right expectation passes, a wrong one fails naming the element, unsupported ones skip."""
import importlib.util
import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("clang-14") is None or not os.path.isfile(
    "/usr/lib/clc/amdgcn--amdhsa.bc"), reason="needs clang-14, lld-14 and libclc-14")

spec = importlib.util.spec_from_file_location(
    "piglit_cl", Path(__file__).resolve().parent.parent / "tools" / "piglit_cl.py")
piglit_cl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(piglit_cl)

FILE = """/*!
[config]
name: scaled ids
clc_version_min: 10
kernel_name: scale

[test]
name: right
dimensions: 1
global_size: 4 0 0
local_size: 2 0 0
arg_out: 0 buffer int[4] 0 3 6 9
arg_in: 1 int 3
arg_in: 2 buffer int[2] NULL

[test]
name: wrong
dimensions: 1
global_size: 4 0 0
local_size: 2 0 0
arg_out: 0 buffer int[4] 0 3 7 9
arg_in: 1 int 3
arg_in: 2 buffer int[2] NULL

[test]
name: floats within a tolerance
kernel_name: half_of
global_size: 2 0 0
arg_out: 0 buffer float[2] 0.5 1.0000001 tolerance 2 ulp
arg_in: 0 buffer float[2] 1.0 2.0
!*/
kernel void scale(global int *out, int k, local int *tmp) {
    tmp[get_local_id(0)] = get_global_id(0) * k;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[get_local_id(0)];
}
kernel void half_of(global float *x) { x[get_global_id(0)] *= 0.5f; }
"""


def test_runner_passes_and_fails(tmp_path, capsys):
    f = tmp_path / "scale.cl"
    f.write_text(FILE)
    import gcnemu.cl as cl
    ctx = cl.create_some_context()
    res = piglit_cl.run_file(f, cl, ctx, cl.CommandQueue(ctx))
    assert [r[1] for r in res] == ["pass", "fail", "pass"], res
    assert "element 2: got 6, expected 7" in res[1][2]
    assert piglit_cl.main([str(f)]) == 1
    assert "pass 2, fail 1, skip 0" in capsys.readouterr().out


def test_runner_skips_with_reason(tmp_path):
    f = tmp_path / "cl20.cl"
    f.write_text("/*!\n[config]\nname: x\nclc_version_min: 20\n!*/\nkernel void k() {}\n")
    import gcnemu.cl as cl
    ctx = cl.create_some_context()
    assert piglit_cl.run_file(f, cl, ctx, cl.CommandQueue(ctx)) == [("cl20.cl", "skip", "needs OpenCL C > 1.2")]
